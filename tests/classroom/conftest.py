"""Fixtures of the classroom tests: a throwaway Postgres server for the session (``classroom_harness``: Debian's
``postgresql`` binaries in a temporary directory on a free localhost port) — the tests that need it are skipped,
with the reason, when it is not installed (``./dev test`` installs it when it can)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from classroom_harness import TEACHER_SECRET, Unavailable, postgres_server  # noqa: E402


@pytest.fixture(autouse=True)
def teacher_secret(monkeypatch) -> str:
    """Every Classroom built in a test knows the harness's teacher secret (``$LDP_TEACHER_SECRET``)."""
    monkeypatch.setenv("LDP_TEACHER_SECRET", TEACHER_SECRET)
    return TEACHER_SECRET


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    pytest.importorskip("sqlalchemy", reason="SQLAlchemy 2 is not installed: pip install -r requirements.txt")
    try:
        with postgres_server() as url:
            yield url
    except Unavailable as exc:
        pytest.skip(str(exc))
