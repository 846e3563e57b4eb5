"""Fixtures of the classroom tests: a throwaway Postgres server (Debian's ``postgresql`` binaries, in a temporary
directory on a free localhost port, trust authentication, stopped at the end of the session) — the tests that need
it are skipped, with the reason, when the binaries are not installed (``./dev test`` installs them when it can)."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator

import pytest

PG_START_TIMEOUT_S = 30


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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    pytest.importorskip("sqlalchemy", reason="SQLAlchemy 2 is not installed: pip install -r requirements.txt")
    pytest.importorskip("psycopg", reason="psycopg 3 is not installed: pip install -r requirements.txt")
    bindir = find_pg_bin()
    if bindir is None:
        pytest.skip("Postgres is not installed (no initdb/postgres in /usr/lib/postgresql/*/bin or PATH): install the "
                    "Debian package 'postgresql' (./dev test does this when run as root with apt-get)")
    # initdb and postgres refuse to run as root: run them as the 'postgres' system user when we are root
    user = None
    if os.geteuid() == 0:
        try:
            user = pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("running as root and there is no 'postgres' user to run the throwaway server as")
    root = tempfile.mkdtemp(prefix="ldp-pg-")
    data = os.path.join(root, "data")
    if user is not None:
        os.chown(root, user.pw_uid, user.pw_gid)
    as_user = {"user": user.pw_uid, "group": user.pw_gid} if user is not None else {}
    port = _free_port()
    log = os.path.join(root, "postgres.log")
    proc = None
    try:
        subprocess.run([os.path.join(bindir, "initdb"), "-D", data, "-U", "ldp", "--auth=trust", "-E", "UTF8",
                        "--no-sync"], check=True, capture_output=True, timeout=120, **as_user)
        with open(log, "w") as fh:
            if user is not None:
                os.chown(log, user.pw_uid, user.pw_gid)
            proc = subprocess.Popen([os.path.join(bindir, "postgres"), "-D", data, "-p", str(port),
                                     "-c", "listen_addresses=127.0.0.1", "-c", f"unix_socket_directories={root}",
                                     "-c", "max_connections=100"],
                                    stdout=fh, stderr=subprocess.STDOUT, **as_user)
        url = f"postgresql://ldp@127.0.0.1:{port}/postgres"
        import psycopg

        deadline = time.monotonic() + PG_START_TIMEOUT_S
        while True:
            try:
                psycopg.connect(f"host=127.0.0.1 port={port} user=ldp dbname=postgres", connect_timeout=2).close()
                break
            except psycopg.OperationalError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    with open(log) as fh:
                        tail = fh.read()[-2000:]
                    pytest.fail(f"the throwaway Postgres server did not start:\n{tail}")
                time.sleep(0.2)
        yield url
    finally:
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGINT)  # "fast" shutdown: do not wait for pooled client connections
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
        shutil.rmtree(root, ignore_errors=True)
