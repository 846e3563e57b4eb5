"""The server ``./dev app`` starts: the dashboard (``app.py``) and, on the same port, the live classroom's HTTP
routes and student page (``ldp.classroom.http``), mounted with Streamlit's ``st.App(..., routes=[...])``.

``streamlit run serve.py`` finds ``app`` (an ``st.App``) and serves it with uvicorn; the pages stay in ``app.py``
(``streamlit run app.py`` still serves the dashboard alone, without the classroom routes).

Cold start. The engine's imports (``ldp`` with numpy and pandas) are not on the way to the server's first answer:
the classroom's routes are mounted by their paths only (:data:`CLASSROOM_PATHS`) and load ``ldp.classroom.http`` on
their first request, and the dashboard's modules are imported by the first page's run (``app.py``, inside
``views.heap.first_imports``). A background thread used to import them, with the first page's sample and
``inspect``'s module index, while the browser started: on today's stack it made the cold start slower, not faster
(3.61 against 3.10 s to a drawn Playground, medians of nine interleaved starts, benchmarks/bench_dashboard.py's
measure): its work contended for the interpreter lock with the server's event loop and the first run, and the
browser drew the page in more, later pieces.
"""

from __future__ import annotations

import contextlib
import os
import sys

# One BLAS thread per matrix product: the server's parallelism is its sessions (and the engine's own thread pool);
# OpenBLAS's default of one thread per core spin-waits against them, and a small product (50×105 @ 105×500) took a
# median 22 ms instead of 0.1 ms on a loaded 2-core server. Read by OpenBLAS when numpy is first imported, so set
# before any import that reaches numpy (app.py does the same for `streamlit run app.py`).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from collections.abc import AsyncIterator
from pathlib import Path

import streamlit as st
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.routing import Route, Router

#: The paths of the classroom's routes (``ldp.classroom.http.classroom_routes``; tests/test_serve.py checks that
#: these cover every one of them).
CLASSROOM_PATHS = ("/api/classes", "/api/classes/{rest:path}", "/join/{code}", "/classroom/{rest:path}")
#: What marks Streamlit's HTML shell: the script tag of its main bundle.
SHELL_MARKER = b'src="./static/js/index.'
#: An HTML answer is held whole only up to this size (Streamlit's shell is about 6 kB): a larger one is not the
#: shell, and is passed on as it comes, so memory stays bounded whatever a route answers.
SHELL_MAX_BYTES = 256 * 1024


class ChartPreload:
    """ASGI middleware: the dashboard's HTML shell (Streamlit's ``index.html``, the answer to ``/`` and to every
    page's path) with one more line before ``</head>``, a module script that imports Streamlit's own Plotly chunk
    (:func:`chart_chunk`) at once.

    Streamlit imports that chunk (4.7 MB of JavaScript) only when a page's first chart arrives, after the server's
    first run; the browser then fetches, compiles and runs it before it can draw. Imported by the shell, it loads
    while the browser connects and the server computes the first page: the same URL then resolves to the module
    already there. The cold start (benchmarks/bench_dashboard.py) went from 3.65 s to 3.19 s (medians of five,
    side by side with the dashboard served without it). Every page but Learn and the classroom's own draws charts
    on its first view.

    Only a successful (200), uncompressed HTML answer to a GET that loads Streamlit's main bundle is changed (not
    the classroom's own pages); a page load is asked for uncompressed. Everything else passes through untouched,
    and with no single chunk found nothing is changed."""

    def __init__(self, app) -> None:  # noqa: ANN001 - an ASGI app
        self.app = app
        chunk = chart_chunk()
        self.line = (f'<script type="module">import("./static/js/{chunk}").catch(() => {{}});</script>'.encode()
                     if chunk else None)

    async def __call__(self, scope, receive, send) -> None:  # noqa: ANN001 - the ASGI signature
        if self.line is None or scope["type"] != "http" or scope["method"] != "GET":
            await self.app(scope, receive, send)
            return
        headers = scope.get("headers", [])
        if any(k.lower() == b"accept" and b"text/html" in v for k, v in headers):
            # a page load (the browser asks for HTML): answered uncompressed, so that the shell can be read here
            # (Streamlit compresses the shell of a page's path, not of /); a few kB, once per tab
            scope = {**scope, "headers": [(k, v) for k, v in headers if k.lower() != b"accept-encoding"]}
        held: dict = {}
        chunks: list[bytes] = []

        async def shell(message) -> None:  # noqa: ANN001 - an ASGI message
            if message["type"] == "http.response.start":
                headers = {k.lower(): v for k, v in message.get("headers", [])}
                if (message.get("status") == 200 and headers.get(b"content-type", b"").startswith(b"text/html")
                        and b"content-encoding" not in headers):
                    held["start"] = message  # held until the body is whole
                    return
            elif message["type"] == "http.response.body" and "start" in held:
                chunks.append(message.get("body", b""))
                more = message.get("more_body", False)
                if more and sum(map(len, chunks)) > SHELL_MAX_BYTES:  # not the shell: passed on as it is
                    await send(held.pop("start"))
                    await send({"type": "http.response.body", "body": b"".join(chunks), "more_body": True})
                    return
                if more:
                    return
                body = b"".join(chunks)
                if SHELL_MARKER in body and b"</head>" in body:
                    body = body.replace(b"</head>", self.line + b"</head>", 1)
                start = held.pop("start")
                headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
                await send({**start, "headers": [*headers, (b"content-length", str(len(body)).encode())]})
                await send({"type": "http.response.body", "body": body})
                return
            await send(message)

        await self.app(scope, receive, shell)


def chart_chunk() -> str | None:
    """The installed Streamlit's Plotly chunk (``PlotlyChart.<hash>.js`` beside its main bundle), or None unless
    there is exactly one."""
    found = sorted((Path(st.__file__).parent / "static" / "static" / "js").glob("PlotlyChart.*.js"))
    return found[0].name if len(found) == 1 else None


class LazyClassroom:
    """An ASGI app routing to ``ldp.classroom.http.classroom_routes()``, built on the first request (in a worker
    thread, so a request that arrives while the engine is still being imported does not stall the event loop)."""

    def __init__(self) -> None:
        self._router: Router | None = None

    @staticmethod
    def _build() -> Router:
        from ldp.classroom.http import classroom_routes

        return Router(routes=classroom_routes())

    async def __call__(self, scope, receive, send) -> None:  # noqa: ANN001 - the ASGI signature
        if self._router is None:
            self._router = await run_in_threadpool(self._build)
        await self._router(scope, receive, send)


def classroom_routes() -> list[Route]:
    """The classroom's paths, each served by one :class:`LazyClassroom`."""
    classroom = LazyClassroom()
    return [Route(path, classroom) for path in CLASSROOM_PATHS]


@contextlib.asynccontextmanager
async def stop_workers(_app: object) -> AsyncIterator[None]:
    """The server's lifespan: when it stops (Ctrl+C, SIGTERM), the offload workers (``views/offload.py``), if they
    were started, are shut down first. Stopped by a signal, the server process ends by that signal once it has shut
    down, without Python's exit handlers: the workers' queues were never released, and every stop printed the
    resource tracker's "5 leaked semaphore objects" warning."""
    yield
    offload = sys.modules.get("views.offload")  # never imported here: only where the dashboard has run
    if offload is not None:
        await run_in_threadpool(offload.stop)


app = st.App("app.py", routes=classroom_routes(), middleware=[Middleware(ChartPreload)], lifespan=stop_workers)
