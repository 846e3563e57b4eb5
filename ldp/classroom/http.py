"""The classroom's HTTP routes (Starlette), mounted beside the dashboard by ``serve.py`` through Streamlit's
``st.App(..., routes=...)`` — the same server and port as ``./dev app``; each handler is a thin wrapper over
:class:`~ldp.classroom.service.Classroom` (tests drive them with Starlette's ``TestClient``).

JSON contract (bodies are JSON sent as ``Content-Type: application/json`` — else 415; errors
``{"error": "<one line>"}`` with a 4xx status; a state-changing request from another origin is a 403):

- ``POST /api/classes`` ``{question, labels | range, mechanism, epsilon}`` with ``Authorization: Bearer <teacher
  secret>`` (the server's, see :mod:`ldp.classroom.service`) → 201 ``{code, teacher_token}``; 401/403 without it
- ``GET /api/classes/{code}`` (public) → question, labels/range, mechanism, ε, ``parameters``; every route with a
  code counts the client address's unknown codes and lookups (429 with ``Retry-After`` beyond)
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
Bodies are read up to :data:`MAX_BODY_BYTES` and refused beyond (413). A hostile body is a 400 with a one-line
reason, never a 500: nesting too deep to parse, ``NaN``/``Infinity``, a number too large for a float, a lone
surrogate (``"\\ud800"``, refused at the boundary: stored, it would break every later answer that shows it). The
store being unusable (disk full, read-only database, database down) is a 503 with ``Retry-After``; anything
unexpected is a JSON 500 whose details go to the server's log only.

Cross-site requests (:func:`_check_request`). A page on another site can make a student's browser POST to this
server: a "simple" request (``Content-Type: text/plain``, no custom header) needs no CORS preflight, so its body
arrives whatever this server answers. Two checks close that door on every state-changing request (POST, DELETE):

- a body must be declared ``Content-Type: application/json`` (else 415): a cross-origin page can only send that
  type after a CORS preflight, which this server never grants;
- the ``Origin`` header, when present, must name this server: its host:port must equal the request's ``Host``
  (the port defaulting to the Origin scheme's, 80 or 443), else 403. ``Origin: null`` (sandboxed frames,
  ``file:`` pages) is refused too. Extra origins (a reverse proxy that rewrites ``Host``) can be allowed with
  ``LDP_ALLOWED_ORIGINS`` (comma-separated ``scheme://host[:port]``).

A request *without* ``Origin`` is allowed: every current browser sends ``Origin`` on a POST or DELETE (same-origin
fetches included), so a missing one means a non-browser client (curl, a script, the tests) — which could post the
same body directly anyway, so refusing it would protect nothing. The one browser signal still checked then is
``Sec-Fetch-Site``: ``cross-site`` or ``same-site`` without an Origin is refused (403).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from ldp.classroom.errors import (
    CrossSite,
    NotFound,
    TooLarge,
    UnsupportedMediaType,
    retry_after_of,
    status_of,
)
from ldp.classroom.service import Classroom, default_classroom
from ldp.classroom.store import unavailable
from ldp.core.errors import InvalidInput, LDPError

__all__ = ["DEVICE_HEADER", "MAX_BODY_BYTES", "classroom_routes"]

MAX_BODY_BYTES = 4096
#: the student page's device token (a random id it keeps in localStorage): with the address, the per-client limit
DEVICE_HEADER = "X-LDP-Device"
_log = logging.getLogger("ldp.classroom")
STATIC = Path(__file__).resolve().parent / "static"
_NO_STORE = {"Cache-Control": "no-store"}
# SQLite has one writer at a time: the reports' commits run on one dedicated thread (a plain executor hop costs
# less CPU than anyio's thread pool, and no pool thread waits on the write lock)
_WRITER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ldp-classroom-writer")
# Postgres takes concurrent writers: the reports' round trips run on a pool as large as the connection pool
_DB_POOL = ThreadPoolExecutor(max_workers=10, thread_name_prefix="ldp-classroom-db")


_STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_DEFAULT_PORT = {"http": 80, "https": 443}


def _host_port(netloc: str, scheme: str) -> tuple[str, int] | None:
    """(lower-case host, port) of ``host[:port]``, the port defaulting to the scheme's; None if unparsable."""
    try:
        parts = urlsplit("//" + netloc)
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname:
        return None
    return parts.hostname.lower(), port if port is not None else _DEFAULT_PORT.get(scheme, 0)


def _allowed_origins() -> set[tuple[str, int]]:
    out = set()
    for item in os.environ.get("LDP_ALLOWED_ORIGINS", "").split(","):
        item = item.strip()
        if item:
            scheme = item.split("://", 1)[0].lower()
            hp = _host_port(item.split("://", 1)[-1].rstrip("/"), scheme)
            if hp is not None:
                out.add(hp)
    return out


def _check_request(request: Request, *, body: bool) -> None:
    """Refuse a state-changing request from another site (403) or a body not declared JSON (415); see the
    module's docstring for why a request without ``Origin`` is let through."""
    if request.method not in _STATE_CHANGING:
        return
    origin = request.headers.get("origin")
    if origin is None:
        if request.headers.get("sec-fetch-site", "").lower() in ("cross-site", "same-site"):
            raise CrossSite("cross-site requests are refused: post from this server's own pages")
    else:
        scheme = origin.split("://", 1)[0].lower() if "://" in origin else ""
        seen = _host_port(origin.split("://", 1)[1].rstrip("/"), scheme) if scheme in _DEFAULT_PORT else None
        host = _host_port(request.headers.get("host", ""), scheme) if seen is not None else None
        if seen is None or (seen != host and seen not in _allowed_origins()):
            raise CrossSite(f"cross-site requests are refused: Origin {origin[:80]!r} is not this server")
    if body:
        media = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if media != "application/json":
            raise UnsupportedMediaType("the body must be sent as Content-Type: application/json")


async def _body(request: Request) -> Any:
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY_BYTES):
        raise TooLarge(f"the body must be at most {MAX_BODY_BYTES} bytes")
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_BODY_BYTES:
            raise TooLarge(f"the body must be at most {MAX_BODY_BYTES} bytes")
    if not data:
        return None
    try:
        value = json.loads(data.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise InvalidInput("the body must be JSON") from None
    except RecursionError:
        raise InvalidInput("the body is nested too deeply") from None
    except ValueError:   # e.g. an integer beyond Python's digit limit
        raise InvalidInput("the body holds a number too large to read") from None
    _check_text(value)
    return value


def _no_constant(name: str) -> Any:
    raise InvalidInput(f"the body must be plain JSON: {name} is not a JSON number")


def _check_text(value: Any) -> None:
    """Refuse text that is not valid Unicode (a lone surrogate such as ``"\\ud800"``, which JSON allows but no
    UTF-8 encoder writes back): it would be stored, then break every answer that shows it. Iterative: the
    parsed body may be deeply nested."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise InvalidInput("the body holds text that is not valid Unicode (a lone surrogate)") from None


def _is_storage_error(exc: BaseException) -> bool:
    """Whether ``exc`` comes from the store being unusable (SQLite or SQLAlchemy/psycopg errors, the file system)."""
    if isinstance(exc, (sqlite3.Error, OSError)):
        return True
    module = type(exc).__module__ or ""
    return module.startswith(("sqlalchemy", "psycopg"))


class _JSON(JSONResponse):
    """JSON, falling back to ASCII escapes when a text cannot be written as UTF-8 (a lone surrogate stored before
    the boundary refused them): the class stays readable."""

    def render(self, content: Any) -> bytes:
        try:
            return super().render(content)
        except UnicodeEncodeError:
            return json.dumps(content, ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode("ascii")


def _error(exc: LDPError) -> JSONResponse:
    headers = dict(_NO_STORE)
    retry = retry_after_of(exc)
    if retry is not None:
        headers["Retry-After"] = str(retry)
    reason = " ".join(str(exc).split()) or type(exc).__name__
    return _JSON({"error": reason}, status_code=status_of(exc), headers=headers)


def _address(request: Request) -> str:
    """The client's address (the peer of the connection: behind a reverse proxy, the proxy's)."""
    return request.client.host if request.client is not None else "unknown"


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
    """The Starlette routes of the classroom API and the student page over ``classroom``.

    ``classroom`` may be a function returning it, called on first use: the default opens the store named by the
    environment only when a request arrives. Every handler checks the request (JSON content type, body size, origin),
    the lookup limits for routes with a code, and maps an ``LDPError`` to ``{"error": ...}`` with its status.

    Parameters
    ----------
    classroom : Classroom or callable () -> Classroom, default default_classroom
        The classroom the routes serve.

    Returns
    -------
    list of starlette.routing.Route
        The routes listed in the module docstring, to mount beside the dashboard.
    """
    get = classroom if callable(classroom) and not isinstance(classroom, Classroom) else (lambda: classroom)

    def handler(work: Callable[[Request, Any], Any], *, status: int = 200, body: bool = False,
                kind: str = "json", quick: bool = False, serial: bool = False,
                teacher: bool = False) -> Callable:
        async def endpoint(request: Request) -> Response:
            address = _address(request)
            coded = "code" in request.path_params
            try:
                _check_request(request, body=body)
                if teacher:
                    get().check_teacher_secret(_token(request))
                if coded:
                    get().check_lookup(address)
                payload = await _body(request) if body else None
                if quick and get().store.local:
                    result = work(request, payload)
                elif serial:
                    pool = _WRITER if get().store.local else _DB_POOL
                    result = await asyncio.get_running_loop().run_in_executor(pool, work, request, payload)
                else:
                    result = await run_in_threadpool(work, request, payload)
                if kind == "csv":
                    code = request.path_params["code"].upper()
                    disposition = f'attachment; filename="class-{code}.csv"'
                    return Response(result.encode("utf-8"), media_type="text/csv; charset=utf-8",
                                    headers={**_NO_STORE, "Content-Disposition": disposition})
                return _JSON(result, status_code=status, headers=_NO_STORE)
            except LDPError as exc:
                if coded and isinstance(exc, NotFound):
                    get().missed(address)
                return _error(exc)
            except (RecursionError, OverflowError):
                return _error(InvalidInput("the request holds a value too large or too deeply nested"))
            except Exception as exc:
                if _is_storage_error(exc):
                    _log.warning("classroom store unavailable: %s: %s", type(exc).__name__, exc)
                    return _error(unavailable(exc))
                _log.exception("classroom: unexpected error on %s %s", request.method, request.url.path)
                return JSONResponse({"error": "the server failed on this request (its log has the details)"},
                                    status_code=500, headers=_NO_STORE)
        return endpoint

    def code(request: Request) -> str:
        return request.path_params["code"]

    async def student_page(request: Request) -> Response:
        return HTMLResponse((STATIC / "student.html").read_text(encoding="utf-8"), headers=_NO_STORE)

    async def randomizer_js(request: Request) -> Response:
        return FileResponse(STATIC / "randomizer.js", media_type="text/javascript", headers=_NO_STORE)

    return [
        Route("/api/classes", handler(lambda r, b: get().create_class(b), status=201, body=True, teacher=True),
              methods=["POST"]),
        Route("/api/classes/{code}", handler(lambda r, b: get().public_info(code(r)), quick=True), methods=["GET"]),
        Route("/api/classes/{code}", handler(lambda r, b: get().delete(code(r), _token(r))), methods=["DELETE"]),
        Route("/api/classes/{code}/reports",
              handler(lambda r, b: get().submit(code(r), b, address=_address(r), device=r.headers.get(DEVICE_HEADER)),
                      status=201, body=True, serial=True), methods=["POST"]),
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
