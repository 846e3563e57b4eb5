"""Work handed to a second process, so that ten sessions' reruns use both of the machine's cores.

A Streamlit server is one Python process: every session's rerun holds the same interpreter lock, and ten sessions
changing ε at once queue their CPU one after the other on one core (benchmarks/bench_concurrency.py), however many
cores there are. :func:`call` runs a pure engine function — a page's simulation, its metrics — in a worker process
instead, where it holds another lock on another core, while this process goes on building the other sessions'
figures and tables. The function and its arguments travel by pickle (a module-level function, arrays, mechanism
names and seeds: what ``st.cache_data`` already hashes), its result or its exception comes back the same way, and
the same seeds give the same numbers bit for bit as a call in this process (tests/app/test_offload.py).

The pool (:func:`workers` processes, spawned — never forked from a threaded server; a spawned process re-imports
``app.py``, which draws nothing under that name) is started once per server, in
the background, :data:`START_DELAY_S` after the first page is drawn (:func:`start`); until it is ready, when it has
broken, or with ``LDP_OFFLOAD=0`` (the tests' default), :func:`call` runs the function here. Only short work goes
there (a rerun's few tens of milliseconds): it is not cancelled when its tab closes and shows no progress bar, so
the exact engine's simulations, which take seconds, stay here (:func:`for_engine`).
"""

from __future__ import annotations

import concurrent.futures
import importlib
import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from ldp import InvalidInput
from views import heap

__all__ = ["call", "enabled", "for_engine", "ready", "start", "stop", "workers"]

T = TypeVar("T")


def workers() -> int:
    """Worker processes to start: one per core, or ``LDP_OFFLOAD_WORKERS``. The server's own process mostly waits
    for them while they compute; with ten sessions on their own seeds changing ε at once on the Post-processing page
    (benchmarks/bench_concurrency.py, 2 cores, side by side), two workers gave a p95 of 1.12-1.13 s, one 1.35-1.39 s,
    none 2.35 s.

    Raises
    ------
    InvalidInput
        If ``LDP_OFFLOAD_WORKERS`` is set to anything but a whole number from 1 to twice the cores (at least 2):
        each worker holds about 270 MB (265 MB resident measured with the engine, SciPy and Plotly imported).
    """
    cores = os.cpu_count() or 1
    raw = os.environ.get("LDP_OFFLOAD_WORKERS", "").strip()
    if not raw:
        return cores
    limit = max(2, 2 * cores)
    count = int(raw) if raw.isdigit() else 0
    if not 1 <= count <= limit:
        raise InvalidInput(f"LDP_OFFLOAD_WORKERS must be a whole number from 1 to {limit} (about 270 MB each), "
                           f"got {raw!r}")
    return count


#: Seconds between the first page drawn and the workers' start: each spends 1-2 s of CPU importing the engine, which
#: started at once competed with the browser still drawing that first page (cold start 3.2 -> 4.0 s,
#: benchmarks/bench_dashboard.py). Meanwhile pages compute here.
START_DELAY_S = 8.0
#: What a worker imports before its first task: the engine, the studies and figures the pages send, and the
#: SciPy module some estimators import on use.
WARM_MODULES = ("ldp", "ldp.studies.comparison", "ldp.viz", "ldp.viz.estimator_comparison", "ldp.viz.distributions",
                "scipy.optimize")

_lock = threading.Lock()
_pool: concurrent.futures.ProcessPoolExecutor | None = None
_ready = threading.Event()


def enabled() -> bool:
    """Whether work may go to the pool (``LDP_OFFLOAD`` not ``0``)."""
    return os.environ.get("LDP_OFFLOAD", "1") != "0"


def _exit_with_parent() -> None:
    """In a worker: exit as soon as the server process has gone, however it went. A worker waits for its next task
    on a queue whose writing end it holds itself, so it never sees the end of it; a server killed (not shut down)
    left its workers waiting, about 270 MB each, for ever.

    A worker also ignores Ctrl+C (SIGINT, which a terminal sends to the server and its workers alike): the server
    shuts down on it and its workers follow it out here. Each worker used to print a KeyboardInterrupt traceback
    into the terminal of every ``./dev app`` stopped with Ctrl+C."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        multiprocessing.connection.wait([parent.sentinel])
        os._exit(0)

    threading.Thread(target=watch, name="ldp-offload-parent", daemon=True).start()


def _warm() -> int:
    with heap.imports_kept():  # views/heap.py: the imports without the collections they trigger
        for name in WARM_MODULES:  # imported once per worker, before the first real call
            importlib.import_module(name)
    return os.getpid()


def start() -> bool:
    """Start the pool once (later calls do nothing) and warm its workers up in the background; returns whether a
    pool exists or is being started. Raises :class:`~ldp.core.errors.InvalidInput` for a bad worker count
    (:func:`workers`), before any process starts."""
    global _pool
    if not enabled():
        return False
    count = workers()
    with _lock:
        if _pool is not None:
            return True
        _pool = concurrent.futures.ProcessPoolExecutor(max_workers=count, initializer=_exit_with_parent,
                                                       mp_context=multiprocessing.get_context("spawn"))
        pool = _pool

    def warm() -> None:
        time.sleep(START_DELAY_S)
        try:
            futures = [pool.submit(_warm) for _ in range(count)]  # one each: every worker is started here
            for future in futures:
                future.result()
        except (BrokenProcessPool, RuntimeError, OSError):
            return
        _ready.set()

    threading.Thread(target=warm, name="ldp-offload-warm", daemon=True).start()
    return True


def ready() -> bool:
    """Whether :func:`call` sends work to the pool now."""
    return _ready.is_set() and enabled()


def stop() -> None:
    """Shut the pool down (its workers exit); :func:`start` may start a new one."""
    global _pool
    with _lock:
        pool, _pool = _pool, None
        _ready.clear()
    if pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)


def call(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)``, run by a worker process when the pool is ready, else here. ``fn`` must be a
    module-level function of the engine; a broken pool (a worker killed) is dropped and the call made here."""
    pool = _pool if ready() else None
    if pool is None:
        return fn(*args, **kwargs)
    try:
        future = pool.submit(fn, *args, **kwargs)
    except (BrokenProcessPool, RuntimeError):  # broken, or shut down meanwhile
        _drop(pool)
        return fn(*args, **kwargs)
    try:
        return future.result()
    except BrokenProcessPool:
        _drop(pool)
        return fn(*args, **kwargs)


def for_engine(engine: str) -> Callable[..., Any]:
    """How to run a simulation on ``engine``: :func:`call` for the fast engine (milliseconds: it samples the
    aggregate), a call here for the exact one (seconds: it randomizes every user, so its run stays where closing
    the tab stops it and its progress is drawn)."""
    return call if engine == "fast" else _here


def _here(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    return fn(*args, **kwargs)


def _drop(pool: concurrent.futures.ProcessPoolExecutor) -> None:
    global _pool
    with _lock:
        if _pool is pool:
            _pool = None
            _ready.clear()
    pool.shutdown(wait=False, cancel_futures=True)
