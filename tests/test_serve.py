"""serve.py: the classroom's routes mounted by their paths and loaded on the first request; the chart library
loaded by the shell; the first page's imports."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.routing import Route
from starlette.testclient import TestClient

import serve
from ldp.classroom.http import classroom_routes


def _example(path: str) -> str:
    """A concrete URL for a route pattern: every ``{name}`` or ``{name:conv}`` replaced by a code-like value."""
    return re.sub(r"\{[^}]+\}", "ABC123", path)


def test_the_lazy_paths_cover_every_classroom_route():
    lazy = [Route(path, serve.LazyClassroom()) for path in serve.CLASSROOM_PATHS]
    for route in classroom_routes():
        url = _example(route.path)
        scope = {"type": "http", "path": url, "method": next(iter(route.methods or {"GET"})), "root_path": ""}
        assert any(candidate.matches(scope)[0].name == "FULL" for candidate in lazy), f"{route.path} is not mounted"


def test_a_request_reaches_the_classroom_through_the_lazy_routes():
    client = TestClient(Starlette(routes=serve.classroom_routes()))
    script = client.get("/classroom/randomizer.js")
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    assert client.get("/api/classes/NOPE99").status_code == 404  # the classroom's own answer: no such class
    assert client.get("/classroom/nothing-here").status_code == 404  # the classroom's router: no such route
    refused = client.post("/api/classes/ABC123/reports", content=b"{}", headers={"Content-Type": "text/plain"})
    assert refused.status_code == 415  # its request checks apply as when mounted directly


# --------------------------------------------------------------------------- the chart library loaded by the shell
SHELL = ('<!DOCTYPE html><html><head><title>Streamlit</title>'
         '<script type="module" crossorigin src="./static/js/index.X1.js"></script></head><body></body></html>')


def _shell_app(body: str, media_type: str = "text/html", chunked: bool = False, **headers: str):
    from starlette.responses import Response, StreamingResponse

    async def endpoint(request):  # noqa: ANN001, ARG001
        if chunked:  # the body in two pieces (more_body), as a file is streamed
            async def pieces():
                yield body[:40].encode()
                yield body[40:].encode()  # (str bodies only)
            return StreamingResponse(pieces(), media_type=media_type, headers=headers)
        return Response(body, media_type=media_type, headers=headers)

    return TestClient(serve.ChartPreload(Starlette(routes=[Route("/", endpoint), Route("/playground", endpoint)])))


def test_the_installed_streamlit_has_one_plotly_chunk_to_preload():
    chunk = serve.chart_chunk()
    assert chunk is not None and re.fullmatch(r"PlotlyChart\.[\w-]+\.js", chunk)
    assert serve.ChartPreload(None).line.decode().count(chunk) == 1


@pytest.mark.parametrize("chunked", [False, True])
@pytest.mark.parametrize("path", ["/", "/playground"])
def test_the_shell_imports_the_chart_chunk_before_its_head_ends(path, chunked):
    answer = _shell_app(SHELL, chunked=chunked).get(path)
    line = f'<script type="module">import("./static/js/{serve.chart_chunk()}").catch(() => {{}});</script></head>'
    assert answer.status_code == 200 and line in answer.text
    assert answer.text.replace(line, "</head>") == SHELL  # nothing else changed
    assert int(answer.headers["content-length"]) == len(answer.content)


@pytest.mark.parametrize(("body", "media_type", "headers"), [
    ("<html><head></head><body>the classroom's own page</body></html>", "text/html", {}),  # no Streamlit bundle
    (SHELL, "text/plain", {}),
    (SHELL, "text/html", {"content-encoding": "gzip"}),  # compressed: left alone
])
def test_other_answers_pass_through_unchanged(body, media_type, headers):
    import gzip

    sent = gzip.compress(body.encode()) if headers else body
    answer = _shell_app(sent, media_type, **headers).get("/")
    assert answer.content == body.encode()  # (the client undoes the compression)


def test_without_a_chunk_nothing_is_changed(monkeypatch):
    monkeypatch.setattr(serve, "chart_chunk", lambda: None)
    assert _shell_app(SHELL).get("/").text == SHELL


def test_a_page_load_is_asked_for_uncompressed_so_its_shell_gets_the_line():
    """Streamlit compresses the shell of a page's path when the browser accepts gzip: a page load (Accept: text/html)
    reaches it without Accept-Encoding; other requests keep theirs."""
    from starlette.middleware import Middleware
    from starlette.middleware.gzip import GZipMiddleware
    from starlette.responses import Response

    async def endpoint(request):  # noqa: ANN001, ARG001
        return Response(SHELL * 20, media_type="text/html")

    inner = Starlette(routes=[Route("/learn", endpoint)], middleware=[Middleware(GZipMiddleware, minimum_size=10)])
    client = TestClient(serve.ChartPreload(inner))
    page = client.get("/learn", headers={"Accept": "text/html,application/xhtml+xml", "Accept-Encoding": "gzip"})
    assert "content-encoding" not in page.headers and page.text.count(serve.chart_chunk()) == 1
    other = client.get("/learn", headers={"Accept": "*/*", "Accept-Encoding": "gzip"})
    assert other.headers["content-encoding"] == "gzip" and serve.chart_chunk() not in other.text


def test_a_large_html_answer_is_streamed_on_not_held(monkeypatch):
    """Only up to SHELL_MAX_BYTES of an HTML answer is held: a larger one passes through whole and unchanged."""
    monkeypatch.setattr(serve, "SHELL_MAX_BYTES", 100)
    big = SHELL.replace("</head>", "<style>" + "x" * 500 + "</style></head>")
    answer = _shell_app(big, chunked=True).get("/")
    assert answer.text == big  # not rewritten: it is not the shell


def test_the_first_page_path_leaves_scipy_out():
    """What the first page's run imports and loads (the dashboard's modules, the Playground's, the sample it opens
    on, pandas' Styler for its errors table) does not import SciPy (its import, with the array-API layer that pulls
    numpy.f2py and unittest in, was a sixth of the cold start): the modules that need it import it where they use it
    (ldp.maths.gaussian.normal_quantile)."""
    script = ("import sys, serve, views.common, views.offload, views.playground\n"
              "import pandas.io.formats.style\n"
              "from ldp.data import samples\n"
              "samples.load_sample(samples.DEFAULT_TABLE)\n"
              "assert 'scipy' not in sys.modules, sorted(m for m in sys.modules if m.startswith('scipy'))[:5]\n")
    root = str(Path(serve.__file__).resolve().parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (root, os.environ.get("PYTHONPATH")))),
           "LDP_PRECOMPUTE": "0"}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120,
                          cwd=root)
    assert done.returncode == 0, done.stderr[-2000:]


def test_the_server_shuts_the_offload_workers_down_when_it_stops(monkeypatch):
    """serve.py's lifespan stops views/offload.py's pool when the server stops (a server ended by a signal runs no
    exit handler: its workers' queues leaked semaphores); a server whose dashboard never ran imports nothing."""
    import asyncio
    import types

    stopped: list[bool] = []

    async def live_and_stop() -> None:
        async with serve.stop_workers(None):
            pass

    monkeypatch.delitem(sys.modules, "views.offload", raising=False)
    asyncio.run(live_and_stop())
    assert "views.offload" not in sys.modules and not stopped
    monkeypatch.setitem(sys.modules, "views.offload", types.SimpleNamespace(stop=lambda: stopped.append(True)))
    asyncio.run(live_and_stop())
    assert stopped == [True]
