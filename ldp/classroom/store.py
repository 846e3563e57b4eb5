"""Where classes, questions and reports live: SQLite by default, Postgres for several app instances.

- **SQLite** (stdlib ``sqlite3``): ``classroom.sqlite3`` in the data directory (``$LDP_DATA_DIR``, default
  ``.ldp-data/`` in the working directory), WAL journal, ``synchronous=FULL`` (a commit is fsynced, so a report is
  on disk before the API answers 201), a busy timeout, one connection per thread and one short
  ``BEGIN IMMEDIATE`` transaction per report.
- **Postgres** (``$LDP_DATABASE_URL=postgresql://…``, SQLAlchemy 2 + psycopg 3): the same statements; Postgres
  commits durably by default (``synchronous_commit = on``).

Stored per report: its one-line text, its nonce and a timestamp (whole seconds), with the ids of its class
and question — never an IP address, a user agent or an answer. The teacher token is stored as its SHA-256.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ldp.classroom.errors import DuplicateNonce, StorageUnavailable
from ldp.core.errors import InvalidInput

__all__ = ["DEFAULT_DATA_DIR", "SQLiteStore", "SQLStore", "Store", "open_store"]

DEFAULT_DATA_DIR = ".ldp-data"
BUSY_TIMEOUT_MS = 10_000

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS classes (
        id {pk}, code VARCHAR(16) NOT NULL UNIQUE, token_hash VARCHAR(64) NOT NULL, created BIGINT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS questions (
        id {pk}, class_id BIGINT NOT NULL, seq INTEGER NOT NULL, spec TEXT NOT NULL,
        closed INTEGER NOT NULL DEFAULT 0, truth TEXT, created BIGINT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS reports (
        id {pk}, class_id BIGINT NOT NULL, question_id BIGINT NOT NULL, nonce VARCHAR(64) NOT NULL,
        report TEXT NOT NULL, created BIGINT NOT NULL, UNIQUE (class_id, nonce))""",
    "CREATE INDEX IF NOT EXISTS reports_by_question ON reports (question_id, id)",
    "CREATE INDEX IF NOT EXISTS questions_by_class ON questions (class_id, seq)",
)


def unavailable(exc: BaseException) -> StorageUnavailable:
    """The store's own error (disk full, read-only file, database down) as a one-line, retryable 503."""
    detail = " ".join(str(getattr(exc, "orig", None) or exc).split())[:100] or type(exc).__name__
    return StorageUnavailable(f"the class's storage is unavailable right now ({detail}); retry in a few seconds")


class Store(ABC):
    """The statements, written once with ``:name`` parameters (both sqlite3 and SQLAlchemy's ``text`` take them).

    Subclasses provide ``_tx(write) -> context manager`` yielding ``run(sql, **params) -> list of rows``; a backend
    error becomes a retryable :class:`~ldp.classroom.errors.StorageUnavailable` (503).

    Attributes
    ----------
    pk : str
        The primary-key column type of the schema.
    backend : str
        ``"sqlite"`` or ``"postgresql"``.
    local : bool
        Whether reads are local and sub-millisecond (SQLite), so the students' question route may run on the event
        loop.
    """

    pk = "INTEGER PRIMARY KEY"
    backend = "?"
    #: reads are local and sub-millisecond (SQLite): the students' question route may run on the event loop
    local = False

    @abstractmethod
    def _tx(self, write: bool) -> contextlib.AbstractContextManager[Any]:
        """A transaction (``BEGIN IMMEDIATE`` for writes on SQLite) yielding ``run(sql, **params) -> rows``."""

    @abstractmethod
    def _is_unique_violation(self, exc: Exception) -> bool:
        """Whether ``exc`` is the backend's unique-constraint violation."""

    def create_schema(self) -> None:
        with self._tx(True) as run:
            for stmt in _SCHEMA:
                run(stmt.format(pk=self.pk))
        # reports.client: the sender's per-class pseudonym (Classroom.client_pseudonym), NULL for in-process reports —
        # added here so that stores created before it gain it too (idempotent)
        with self._tx(True) as run:
            if "client" not in self._report_columns(run):
                run("ALTER TABLE reports ADD COLUMN client VARCHAR(32)")

    def _report_columns(self, run: Any) -> set[str]:
        """The reports table's column names (hook: SQLite's PRAGMA, the information schema elsewhere)."""
        rows = run("SELECT column_name FROM information_schema.columns WHERE table_name = 'reports'")
        return {str(r[0]).lower() for r in rows}

    # ---------------------------------------------------------------- classes and questions
    def create_class(self, code: str, token_hash: str, spec_json: str) -> int:
        now = int(time.time())
        with self._tx(True) as run:
            cid = run("INSERT INTO classes (code, token_hash, created) VALUES (:code, :th, :now) RETURNING id",
                      code=code, th=token_hash, now=now)[0][0]
            run("INSERT INTO questions (class_id, seq, spec, created) VALUES (:cid, 1, :spec, :now)",
                cid=cid, spec=spec_json, now=now)
        return int(cid)

    def class_row(self, code: str) -> tuple[int, str] | None:
        """(class id, token hash) of the class with this code."""
        with self._tx(False) as run:
            rows = run("SELECT id, token_hash FROM classes WHERE code = :code", code=code)
        return (int(rows[0][0]), rows[0][1]) if rows else None

    def current_question(self, code: str) -> tuple[int, int, int, str, int, str | None] | None:
        """(class id, question id, seq, spec, closed, truth) of the class's latest question."""
        with self._tx(False) as run:
            rows = run("SELECT c.id, q.id, q.seq, q.spec, q.closed, q.truth FROM classes c JOIN questions q "
                       "ON q.class_id = c.id WHERE c.code = :code ORDER BY q.seq DESC LIMIT 1", code=code)
        if not rows:
            return None
        r = rows[0]
        return int(r[0]), int(r[1]), int(r[2]), r[3], int(r[4]), r[5]

    def questions(self, class_id: int) -> list[tuple[int, int, str, int]]:
        """(question id, seq, spec, closed) of every question of a class, in order."""
        with self._tx(False) as run:
            rows = run("SELECT id, seq, spec, closed FROM questions WHERE class_id = :cid ORDER BY seq", cid=class_id)
        return [(int(a), int(b), c, int(d)) for a, b, c, d in rows]

    def add_question(self, class_id: int, spec_json: str) -> int:
        with self._tx(True) as run:
            run("UPDATE questions SET closed = 1 WHERE class_id = :cid", cid=class_id)
            seq = run("SELECT COALESCE(MAX(seq), 0) + 1 FROM questions WHERE class_id = :cid", cid=class_id)[0][0]
            return int(run("INSERT INTO questions (class_id, seq, spec, created) VALUES (:cid, :seq, :spec, :now) "
                           "RETURNING id", cid=class_id, seq=int(seq), spec=spec_json, now=int(time.time()))[0][0])

    def close_question(self, question_id: int) -> None:
        with self._tx(True) as run:
            run("UPDATE questions SET closed = 1 WHERE id = :qid", qid=question_id)

    def set_truth(self, question_id: int, truth_json: str | None) -> None:
        with self._tx(True) as run:
            run("UPDATE questions SET truth = :t WHERE id = :qid", t=truth_json, qid=question_id)

    def delete_class(self, class_id: int) -> None:
        with self._tx(True) as run:
            run("DELETE FROM reports WHERE class_id = :cid", cid=class_id)
            run("DELETE FROM questions WHERE class_id = :cid", cid=class_id)
            run("DELETE FROM classes WHERE id = :cid", cid=class_id)

    # ---------------------------------------------------------------- reports
    def add_report(self, class_id: int, question_id: int, nonce: str, report: str, client: str | None = None) -> bool:
        """Store one report in one short transaction, only while its question is open. False: the question is
        closed. :class:`DuplicateNonce` if the class already holds a report with this nonce. ``client``: the
        sender's per-class pseudonym (None in-process)."""
        try:
            with self._tx(True) as run:
                rows = run("INSERT INTO reports (class_id, question_id, nonce, report, created, client) "
                           "SELECT :cid, :qid, :nonce, :report, :now, :client WHERE EXISTS "
                           "(SELECT 1 FROM questions WHERE id = :qid AND class_id = :cid AND closed = 0) RETURNING id",
                           cid=class_id, qid=question_id, nonce=nonce, report=report, now=int(time.time()),
                           client=client)
        except Exception as exc:
            if self._is_unique_violation(exc):
                raise DuplicateNonce("this nonce was already used: one report per nonce") from None
            raise
        return bool(rows)

    def reports(self, question_id: int) -> list[str]:
        with self._tx(False) as run:
            return [r[0] for r in run("SELECT report FROM reports WHERE question_id = :qid ORDER BY id",
                                      qid=question_id)]

    def report_rows(self, class_id: int) -> list[tuple[int, str, str, int]]:
        """(question seq, nonce, report, created) of every report of a class, for the CSV export."""
        with self._tx(False) as run:
            rows = run("SELECT q.seq, r.nonce, r.report, r.created FROM reports r JOIN questions q "
                       "ON q.id = r.question_id WHERE r.class_id = :cid ORDER BY q.seq, r.id", cid=class_id)
        return [(int(a), b, c, int(d)) for a, b, c, d in rows]

    def client_counts(self, question_id: int) -> list[tuple[str | None, int]]:
        """(client pseudonym, reports) of a question, most reports first (None: in-process reports)."""
        with self._tx(False) as run:
            rows = run("SELECT client, COUNT(*) FROM reports WHERE question_id = :qid GROUP BY client "
                       "ORDER BY COUNT(*) DESC, client", qid=question_id)
        return [(r[0], int(r[1])) for r in rows]

    def drop_client(self, question_id: int, client: str) -> int:
        """Delete one client's reports of a question; how many."""
        with self._tx(True) as run:
            rows = run("DELETE FROM reports WHERE question_id = :qid AND client = :client RETURNING id",
                       qid=question_id, client=client)
        return len(rows)

    def count(self, question_id: int) -> int:
        with self._tx(False) as run:
            return int(run("SELECT COUNT(*) FROM reports WHERE question_id = :qid", qid=question_id)[0][0])


class SQLiteStore(Store):
    """The SQLite store: WAL journal, ``synchronous=FULL``, one connection per thread, serialised writers.

    Creates the parent directory and the schema.

    Parameters
    ----------
    path : str or os.PathLike
        The database file (``classroom.sqlite3`` in the data directory).

    Attributes
    ----------
    path : pathlib.Path
        As given.

    Raises
    ------
    StorageUnavailable
        If the schema cannot be created (read-only file, disk full).
    """
    backend = "sqlite"
    local = True

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        # SQLite has one writer at a time; waiting for it in SQLite's busy handler means sleeping 1, 2, 5, … 100 ms
        # between retries, so this process's writers queue on a lock instead (woken at once). The busy timeout
        # still covers writers in other processes.
        self._write_lock = threading.Lock()
        self.create_schema()

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                                   check_same_thread=False)
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = FULL")
            self._local.conn = conn
        return conn

    def _report_columns(self, run: Any) -> set[str]:
        return {str(r[1]).lower() for r in run("PRAGMA table_info(reports)")}

    @contextlib.contextmanager
    def _tx(self, write: bool) -> Iterator[Any]:
        try:
            with self._sqlite_tx(write) as run:
                yield run
        except (sqlite3.Error, OSError) as exc:
            if self._is_unique_violation(exc):
                raise
            raise unavailable(exc) from exc

    @contextlib.contextmanager
    def _sqlite_tx(self, write: bool) -> Iterator[Any]:
        conn = self._conn()
        with self._write_lock if write else contextlib.nullcontext():
            conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")

            def run(sql: str, **params: Any) -> list[tuple]:
                return conn.execute(sql, params).fetchall()

            try:
                yield run
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def _is_unique_violation(self, exc: Exception) -> bool:
        return isinstance(exc, sqlite3.IntegrityError) and "UNIQUE" in str(exc)


class SQLStore(Store):
    """Postgres (or any SQLAlchemy URL) through SQLAlchemy 2; ``postgresql://`` URLs use the psycopg 3 driver.

    Parameters
    ----------
    url : str
        The database URL (``postgresql://user:pass@host/db``).
    pool_size : int, default 10
        Connections kept in the pool (as many again may overflow); recycled after 30 min.

    Attributes
    ----------
    engine : sqlalchemy.engine.Engine
        The connection pool.

    Raises
    ------
    InvalidInput
        If SQLAlchemy is not installed.
    StorageUnavailable
        If the schema cannot be created (database down).
    """

    pk = "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"
    backend = "postgresql"

    def __init__(self, url: str, *, pool_size: int = 10) -> None:
        try:
            import sqlalchemy
        except ImportError:
            raise InvalidInput("LDP_DATABASE_URL needs SQLAlchemy 2 and psycopg 3: pip install -r requirements.txt") \
                from None
        if url.startswith("postgresql://") or url.startswith("postgres://"):
            url = "postgresql+psycopg://" + url.split("://", 1)[1]
        self._sa = sqlalchemy
        # no pre-ping (a round trip per checkout): connections are recycled after 30 min instead
        self.engine = sqlalchemy.create_engine(url, pool_size=pool_size, max_overflow=pool_size, pool_recycle=1800)
        self.create_schema()

    @contextlib.contextmanager
    def _tx(self, write: bool) -> Iterator[Any]:
        try:
            with self.engine.begin() as conn:
                def run(sql: str, **params: Any) -> list[tuple]:
                    res = conn.execute(self._sa.text(sql), params)
                    return [tuple(r) for r in res] if res.returns_rows else []

                yield run
        except (self._sa.exc.SQLAlchemyError, OSError) as exc:
            if self._is_unique_violation(exc):
                raise
            raise unavailable(exc) from exc

    def _is_unique_violation(self, exc: Exception) -> bool:
        if not isinstance(exc, self._sa.exc.IntegrityError):
            return False
        return getattr(getattr(exc, "orig", None), "sqlstate", None) == "23505"


def open_store(database_url: str | None = None, data_dir: str | os.PathLike[str] | None = None) -> Store:
    """The store named by ``database_url`` (default ``$LDP_DATABASE_URL``), else SQLite in ``data_dir``.

    ``data_dir`` defaults to ``$LDP_DATA_DIR``, else ``.ldp-data``.

    Parameters
    ----------
    database_url : str, optional
        A ``postgresql://`` URL; empty or unset selects SQLite.
    data_dir : str or os.PathLike, optional
        The directory of ``classroom.sqlite3``.

    Returns
    -------
    Store
        A :class:`SQLStore` or a :class:`SQLiteStore`, schema created.

    Raises
    ------
    InvalidInput
        For a URL that is not ``postgresql://…``.
    StorageUnavailable
        If the SQLite file cannot be opened or created.
    """
    url = database_url if database_url is not None else os.environ.get("LDP_DATABASE_URL", "")
    if url:
        if not url.split("://", 1)[0].startswith("postgres"):
            raise InvalidInput(f"LDP_DATABASE_URL must be a postgresql://… URL, got {url.split('://', 1)[0]}://…")
        return SQLStore(url)
    directory = Path(data_dir if data_dir is not None else os.environ.get("LDP_DATA_DIR") or DEFAULT_DATA_DIR)
    try:
        return SQLiteStore(directory / "classroom.sqlite3")
    except (sqlite3.Error, OSError) as exc:
        raise unavailable(exc) from exc
