"""Real servers for the classroom's reliability tests and benchmarks/bench_classroom.py (the same code measures):

- :func:`start_app` — ``streamlit run serve.py`` (the dashboard and the classroom routes, what ``./dev app``
  starts) on a free localhost port with its own data directory or database URL;
- :func:`postgres_server` — a throwaway Postgres server from Debian's binaries in a temporary directory, on a
  free localhost port, trust authentication (initdb and postgres run as the ``postgres`` user when we are root).

Plain HTTP helpers (``call``) use only the standard library.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 60
# The server's teacher secret (LDP_TEACHER_SECRET) in every server started here: creating a class over HTTP needs it.
TEACHER_SECRET = "harness-teacher-secret"


class Unavailable(RuntimeError):
    """What a server needs is not installed here (the reason says what to install)."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class App:
    url: str
    process: subprocess.Popen
    log_path: Path
    started_s: float

    def log_tail(self, chars: int = 3000) -> str:
        with contextlib.suppress(OSError):
            return self.log_path.read_text(errors="replace")[-chars:]
        return ""


def start_app(env: dict[str, str], log_path: Path, port: int | None = None) -> App:
    """``streamlit run serve.py`` with ``env`` added (e.g. LDP_DATA_DIR); returns once /_stcore/health answers."""
    port = port or free_port()
    full_env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
                "PYTHONUNBUFFERED": "1", "LDP_TEACHER_SECRET": TEACHER_SECRET, **env}
    cmd = [sys.executable, "-m", "streamlit", "run", "serve.py", "--server.headless", "true", "--server.port",
           str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
           "--server.fileWatcherType", "none"]
    log_path.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    with open(log_path, "w") as log:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=full_env, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)
    app = App(f"http://127.0.0.1:{port}", proc, log_path, 0.0)
    while time.perf_counter() < t0 + START_TIMEOUT_S:
        if proc.poll() is not None:
            raise RuntimeError(f"serve.py exited with code {proc.returncode}:\n{app.log_tail()}")
        with contextlib.suppress(OSError, ValueError):
            with urllib.request.urlopen(f"{app.url}/_stcore/health", timeout=2) as resp:
                if resp.status == 200:
                    app.started_s = time.perf_counter() - t0
                    return app
        time.sleep(0.05)
    stop_app(app)
    raise RuntimeError(f"serve.py did not answer within {START_TIMEOUT_S} s:\n{app.log_tail()}")


def stop_app(app: App, *, kill: bool = False) -> None:
    """Stop the server: SIGKILL when ``kill`` (no shutdown code runs: a crash), else SIGTERM."""
    if app.process.poll() is None:
        app.process.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
        try:
            app.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            app.process.kill()
            app.process.wait(timeout=10)


def call(method: str, url: str, body: object | None = None, token: str | None = None,
         timeout: float = 10) -> tuple[int, object]:
    """One JSON request; (status, decoded body — JSON, or text for CSV)."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            status, raw, ctype = resp.status, resp.read(), resp.headers.get("Content-Type", "")
    except urllib.error.HTTPError as err:
        status, raw, ctype = err.code, err.read(), err.headers.get("Content-Type", "")
    text = raw.decode("utf-8")
    return status, (json.loads(text) if "json" in ctype else text)


# --------------------------------------------------------------------------- Postgres
def find_pg_bin() -> str | None:
    """The directory of initdb and postgres: $LDP_PG_BIN, Debian's /usr/lib/postgresql/<version>/bin, or PATH."""
    candidates = [os.environ.get("LDP_PG_BIN", "")] + sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(os.path.dirname(os.path.realpath(on_path)))
    for d in filter(None, candidates):
        if os.access(os.path.join(d, "initdb"), os.X_OK) and os.access(os.path.join(d, "postgres"), os.X_OK):
            return d
    return None


@contextlib.contextmanager
def postgres_server(start_timeout_s: float = 30) -> Iterator[str]:
    """A throwaway Postgres server; yields its URL and removes everything on exit. :class:`Unavailable` if the
    binaries or psycopg are missing."""
    try:
        import psycopg
    except ImportError:
        raise Unavailable("psycopg 3 is not installed: pip install -r requirements.txt") from None
    bindir = find_pg_bin()
    if bindir is None:
        raise Unavailable("Postgres is not installed (no initdb/postgres in /usr/lib/postgresql/*/bin or PATH): "
                          "install the Debian package 'postgresql' (./dev test does this when run as root)")
    user = None
    if os.geteuid() == 0:  # initdb and postgres refuse to run as root
        try:
            user = pwd.getpwnam("postgres")
        except KeyError:
            raise Unavailable("running as root and there is no 'postgres' user to run Postgres as") from None
    as_user = {"user": user.pw_uid, "group": user.pw_gid} if user is not None else {}
    root = tempfile.mkdtemp(prefix="ldp-pg-")
    if user is not None:
        os.chown(root, user.pw_uid, user.pw_gid)
    data, log = os.path.join(root, "data"), os.path.join(root, "postgres.log")
    port = free_port()
    proc = None
    try:
        subprocess.run([os.path.join(bindir, "initdb"), "-D", data, "-U", "ldp", "--auth=trust", "-E", "UTF8",
                        "--no-sync"], check=True, capture_output=True, timeout=120, **as_user)
        with open(log, "w") as fh:
            if user is not None:
                os.chown(log, user.pw_uid, user.pw_gid)
            proc = subprocess.Popen([os.path.join(bindir, "postgres"), "-D", data, "-p", str(port), "-c",
                                     "listen_addresses=127.0.0.1", "-c", f"unix_socket_directories={root}",
                                     "-c", "max_connections=200"], stdout=fh, stderr=subprocess.STDOUT, **as_user)
        deadline = time.monotonic() + start_timeout_s
        while True:
            try:
                psycopg.connect(f"host=127.0.0.1 port={port} user=ldp dbname=postgres", connect_timeout=2).close()
                break
            except psycopg.OperationalError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    with open(log) as fh:
                        raise RuntimeError(f"the throwaway Postgres server did not start:\n{fh.read()[-2000:]}") \
                            from None
                time.sleep(0.2)
        yield f"postgresql://ldp@127.0.0.1:{port}/postgres"
    finally:
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGINT)  # "fast" shutdown: do not wait for pooled client connections
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
        shutil.rmtree(root, ignore_errors=True)
