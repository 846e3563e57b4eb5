"""The server ``./dev app`` starts: the dashboard (``app.py``) and, on the same port, the live classroom's HTTP
routes and student page (``ldp.classroom.http``), mounted with Streamlit's ``st.App(..., routes=[...])``.

``streamlit run serve.py`` finds ``app`` (an ``st.App``) and serves it with uvicorn; the pages stay in ``app.py``
(``streamlit run app.py`` still serves the dashboard alone, without the classroom routes).

Cold start. The engine's imports (``ldp`` with numpy, pandas and SciPy: about a second) are not on the way to the
server's first answer: the classroom's routes are mounted by their paths only (:data:`CLASSROOM_PATHS`) and load
``ldp.classroom.http`` on their first request, and a background thread imports the engine and the first page's
modules while the browser fetches and starts the dashboard's JavaScript — time the server otherwise spends idle —
so the first page's run finds them imported (benchmarks/bench_dashboard.py, cold start).
"""

from __future__ import annotations

import os

# One BLAS thread per matrix product: the server's parallelism is its sessions (and the engine's own thread pool);
# OpenBLAS's default of one thread per core spin-waits against them, and a small product (50×105 @ 105×500) took a
# median 22 ms instead of 0.1 ms on a loaded 2-core server. Read by OpenBLAS when numpy is first imported, so set
# before any import that reaches numpy (app.py does the same for `streamlit run app.py`).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import contextlib
import importlib
import threading
import time

import streamlit as st
from starlette.concurrency import run_in_threadpool
from starlette.routing import Route, Router

#: The paths of the classroom's routes (``ldp.classroom.http.classroom_routes``; tests/test_serve.py checks that
#: these cover every one of them).
CLASSROOM_PATHS = ("/api/classes", "/api/classes/{rest:path}", "/join/{code}", "/classroom/{rest:path}")
#: What the background thread imports: the classroom's routes (which import the whole engine), then the first
#: page (its own modules: figures, studies).
WARM_MODULES = ("ldp.classroom.http", "views.playground")


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


def warm_imports(modules: tuple[str, ...] = WARM_MODULES, wait_s: float = 10.0) -> None:
    """Import ``modules`` (errors are left for the page that imports them to show). A dashboard module is imported
    once Streamlit's runtime exists (its caches register with it), waiting at most ``wait_s``."""
    from streamlit import runtime

    for name in modules:
        if name.startswith("views."):
            deadline = time.monotonic() + wait_s
            while not runtime.exists() and time.monotonic() < deadline:
                time.sleep(0.02)
        with contextlib.suppress(Exception):
            importlib.import_module(name)


def classroom_routes() -> list[Route]:
    """The classroom's paths, each served by one :class:`LazyClassroom`."""
    classroom = LazyClassroom()
    return [Route(path, classroom) for path in CLASSROOM_PATHS]


threading.Thread(target=warm_imports, name="ldp-warm-imports", daemon=True).start()

app = st.App("app.py", routes=classroom_routes())
