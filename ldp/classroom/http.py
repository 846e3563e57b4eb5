"""The classroom's HTTP routes (Starlette), mounted beside the dashboard by ``serve.py`` through Streamlit's
``st.App(..., routes=...)`` — the same server and port as ``./dev app``; each handler is a thin wrapper over
:class:`~ldp.classroom.service.Classroom` (tests drive them with Starlette's ``TestClient``).

JSON contract (bodies are JSON, errors ``{"error": "<one line>"}`` with a 4xx status):

- ``POST /api/classes`` ``{question, labels | range, mechanism, epsilon}`` → 201 ``{code, teacher_token}``
- ``GET /api/classes/{code}`` (public) → question, labels/range, mechanism, ε, ``parameters``
- ``POST /api/classes/{code}/reports`` ``{report, nonce[, question]}`` → 201, or 400/404/409/413/429
- ``GET /api/classes/{code}/summary`` (teacher) → ``{reports, estimate, histogram, intervals, error, truth, …}``
- teacher, with ``Authorization: Bearer <teacher_token>``: ``POST …/close``, ``POST …/questions`` (the next
  question), ``POST …/reveal`` ``{truth}``, ``GET …/reports.csv``, ``DELETE /api/classes/{code}``
- ``GET /join/{code}``: the student page; ``GET /classroom/randomizer.js``: its randomizer.

The students' question route runs on the event loop when the store is local (SQLite: a lookup cached for 1 s, or
one read that never waits for a writer under WAL); handing it to the thread pool cost CPU and latency when 200
students arrive at once (benchmarks/bench_classroom.py). On SQLite a report's validation, commit and fsync run on
one dedicated writer thread (SQLite has one writer anyway; committing on the loop itself was faster on an idle
machine but its tail latency tripled when the disk or the cores were busy), on Postgres on a pool of 10 threads;
everything else (the teacher's routes) runs in Starlette's thread pool: nothing blocks the loop that also serves the
dashboard.
Bodies are read up to :data:`MAX_BODY_BYTES` and refused beyond (413).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from ldp.classroom.errors import TooLarge, status_of
from ldp.classroom.service import Classroom, default_classroom
from ldp.core.errors import InvalidInput, LDPError

__all__ = ["MAX_BODY_BYTES", "classroom_routes"]

MAX_BODY_BYTES = 4096
STATIC = Path(__file__).resolve().parent / "static"
_NO_STORE = {"Cache-Control": "no-store"}
# SQLite has one writer at a time: the reports' commits run on one dedicated thread (a plain executor hop costs
# less CPU than anyio's thread pool, and no pool thread waits on the write lock)
_WRITER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ldp-classroom-writer")
# Postgres takes concurrent writers: the reports' round trips run on a pool as large as the connection pool
_DB_POOL = ThreadPoolExecutor(max_workers=10, thread_name_prefix="ldp-classroom-db")


async def _body(request: Request) -> Any:
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY_BYTES):
        raise TooLarge(f"the body must be at most {MAX_BODY_BYTES} bytes")
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_BODY_BYTES:
            raise TooLarge(f"the body must be at most {MAX_BODY_BYTES} bytes")
    try:
        return json.loads(data.decode("utf-8")) if data else None
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise InvalidInput("the body must be JSON") from None


def _token(request: Request) -> str | None:
    auth = request.headers.get("authorization", "")
    scheme, _, token = auth.partition(" ")
    if scheme.lower() != "bearer":
        return None
    return token.strip() or None


def _truth(body: Any) -> Any:
    if not isinstance(body, dict) or set(body) != {"truth"}:
        raise InvalidInput("the body must be {\"truth\": {label: count, …}} (or a number, or null to hide it)")
    return body["truth"]


def classroom_routes(classroom: Classroom | Callable[[], Classroom] = default_classroom) -> list[Route]:
    """The routes over ``classroom`` (or a function returning it, called on first use: the default opens the store
    named by the environment only when a request arrives)."""
    get = classroom if callable(classroom) and not isinstance(classroom, Classroom) else (lambda: classroom)

    def handler(work: Callable[[Request, Any], Any], *, status: int = 200, body: bool = False,
                kind: str = "json", quick: bool = False, serial: bool = False) -> Callable:
        async def endpoint(request: Request) -> Response:
            try:
                payload = await _body(request) if body else None
                if quick and get().store.local:
                    result = work(request, payload)
                elif serial:
                    pool = _WRITER if get().store.local else _DB_POOL
                    result = await asyncio.get_running_loop().run_in_executor(pool, work, request, payload)
                else:
                    result = await run_in_threadpool(work, request, payload)
            except LDPError as exc:
                return JSONResponse({"error": str(exc)}, status_code=status_of(exc), headers=_NO_STORE)
            if kind == "csv":
                code = request.path_params["code"].upper()
                disposition = f'attachment; filename="class-{code}.csv"'
                return Response(result, media_type="text/csv; charset=utf-8",
                                headers={**_NO_STORE, "Content-Disposition": disposition})
            return JSONResponse(result, status_code=status, headers=_NO_STORE)
        return endpoint

    def code(request: Request) -> str:
        return request.path_params["code"]

    async def student_page(request: Request) -> Response:
        return HTMLResponse((STATIC / "student.html").read_text(encoding="utf-8"), headers=_NO_STORE)

    async def randomizer_js(request: Request) -> Response:
        return FileResponse(STATIC / "randomizer.js", media_type="text/javascript", headers=_NO_STORE)

    return [
        Route("/api/classes", handler(lambda r, b: get().create_class(b), status=201, body=True), methods=["POST"]),
        Route("/api/classes/{code}", handler(lambda r, b: get().public_info(code(r)), quick=True), methods=["GET"]),
        Route("/api/classes/{code}", handler(lambda r, b: get().delete(code(r), _token(r))), methods=["DELETE"]),
        Route("/api/classes/{code}/reports",
              handler(lambda r, b: get().submit(code(r), b), status=201, body=True, serial=True), methods=["POST"]),
        Route("/api/classes/{code}/summary", handler(lambda r, b: get().summary(code(r), _token(r))),
              methods=["GET"]),
        Route("/api/classes/{code}/close", handler(lambda r, b: get().close(code(r), _token(r))), methods=["POST"]),
        Route("/api/classes/{code}/questions",
              handler(lambda r, b: get().next_question(code(r), _token(r), b), status=201, body=True),
              methods=["POST"]),
        Route("/api/classes/{code}/reveal",
              handler(lambda r, b: get().reveal(code(r), _token(r), _truth(b)), body=True), methods=["POST"]),
        Route("/api/classes/{code}/reports.csv", handler(lambda r, b: get().export_csv(code(r), _token(r)),
                                                         kind="csv"), methods=["GET"]),
        Route("/join/{code}", student_page, methods=["GET"]),
        Route("/classroom/randomizer.js", randomizer_js, methods=["GET"]),
    ]
