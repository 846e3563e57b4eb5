"""Running independent tasks in order on one core, a local process pool or a Dask cluster.

:func:`run_ordered` maps a picklable function over a list of tasks and yields the results **in task order**
whatever the executor, so a sweep whose tasks seed themselves from what they are (never from where or when they
run) gives identical tables on every executor. Tasks are batched so that one submitted unit of work takes about
``target_seconds`` (50 ms by default: below that, inter-process overhead dominates), judged from the first task,
which always runs here. At most ``2 × workers`` batches are in flight, so memory stays bounded however many
tasks there are. ``progress(done, total)`` is called as results arrive; ``cancel()`` is polled between batches
and stops the run with :class:`Cancelled` (pending work is dropped).

Executors: ``"serial"`` (this process), ``"processes"`` (stdlib ``ProcessPoolExecutor``, forkserver start so a
threaded caller such as the dashboard is safe), ``"dask"`` (an existing cluster's scheduler ``address``; Dask's
``distributed`` is an optional extra, imported only here). A run whose tasks would all finish within
``serial_below`` seconds (judged from the first) stays in this process: a pool would only add start-up time.
"""

from __future__ import annotations

import itertools
import math
import multiprocessing
import os
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from ldp.core.cancellation import Cancelled, cancelled
from ldp.core.errors import InvalidInput

__all__ = ["EXECUTORS", "Cancelled", "run_ordered"]  # Cancelled: ldp.core.cancellation

EXECUTORS = ("serial", "processes", "dask")


def _apply_batch(fn: Callable[[Any], Any], batch: Sequence[Any]) -> list[Any]:
    return [fn(task) for task in batch]


def _check(executor: str, workers: int | None, address: str | None) -> int:
    if executor not in EXECUTORS:
        raise InvalidInput(f"unknown executor {executor!r}; choose one of: {', '.join(EXECUTORS)}")
    if executor == "dask" and not address:
        raise InvalidInput("the dask executor needs the scheduler address of an existing cluster (e.g. tcp://host:8786)")
    if workers is None:
        return max(1, os.cpu_count() or 1)
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InvalidInput(f"workers must be a positive integer, got {workers!r}")
    return workers


def run_ordered(fn: Callable[[Any], Any], tasks: Sequence[Any], *, executor: str = "serial",
                workers: int | None = None, address: str | None = None, target_seconds: float = 0.05,
                serial_below: float = 0.5, progress: Callable[[int, int], None] | None = None,
                cancel: Callable[[], bool] | None = None) -> Iterator[Any]:
    """Yield ``fn(task)`` for every task, in task order, computed on ``executor``.

    The first task always runs in this process and times the rest: tasks are batched so that one batch takes about
    ``target_seconds``, at most ``2 × workers`` batches are in flight, and a run whose remaining tasks would finish
    within ``serial_below`` seconds stays in this process (see the module docstring).

    Parameters
    ----------
    fn : callable
        A picklable function of one task (a module-level function for the ``"processes"`` and ``"dask"`` executors).
    tasks : sequence
        The tasks (picklable); each result is yielded in this order whatever the executor.
    executor : {"serial", "processes", "dask"}, default "serial"
        Where the tasks run: this process, a local forkserver process pool, or an existing Dask cluster.
    workers : int, optional
        Number of worker processes (default: the number of CPUs); for Dask, a lower bound on the in-flight window.
    address : str, optional
        The Dask scheduler address (e.g. ``"tcp://host:8786"``); required for ``executor="dask"``.
    target_seconds : float, default 0.05
        Target duration of one submitted batch, in seconds.
    serial_below : float, default 0.5
        If the remaining tasks would take less than this many seconds (judged from the first), run them here.
    progress : callable (done, total) -> None, optional
        Called after every batch of results with the number of tasks done and the total.
    cancel : callable () -> bool, optional
        Polled between batches; when it returns True the run stops with :class:`Cancelled` (as does the predicate
        installed by :func:`~ldp.core.cancellation.cancel_when`).

    Yields
    ------
    object
        ``fn(task)`` for each task, in task order.

    Raises
    ------
    InvalidInput
        For an unknown executor, a Dask run without ``address`` or without the ``distributed`` package, or a
        ``workers`` that is not a positive integer.
    Cancelled
        When ``cancel()`` (or the installed predicate) asks the run to stop; pending work is dropped.
    """
    workers = _check(executor, workers, address)
    items = list(tasks)
    total = len(items)
    if total == 0:
        return
    done = 0

    def step(results: list[Any]) -> Iterator[Any]:
        nonlocal done
        for result in results:
            done += 1
            yield result
        if progress is not None:
            progress(done, total)

    def should_stop() -> bool:  # the caller's cancel(), or the predicate installed by cancel_when
        return (cancel is not None and cancel()) or cancelled()

    if should_stop():
        raise Cancelled("cancelled before the first task")
    start = time.perf_counter()
    first = fn(items[0])
    seconds = max(time.perf_counter() - start, 1e-6)
    yield from step([first])
    rest = items[1:]
    if executor == "serial" or not rest or seconds * len(rest) < serial_below or (
            executor == "processes" and workers == 1):
        for task in rest:
            if should_stop():
                raise Cancelled(f"cancelled after {done} of {total} tasks")
            yield from step([fn(task)])
        return
    size = max(1, math.ceil(target_seconds / seconds))
    batches = [rest[i:i + size] for i in range(0, len(rest), size)]
    if executor == "processes":
        with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("forkserver")) as pool:
            yield from _drain(lambda batch: pool.submit(_apply_batch, fn, batch), batches, 2 * workers, step,
                              should_stop, lambda: pool.shutdown(wait=False, cancel_futures=True), total)
        return
    try:
        from distributed import Client
    except ImportError:
        raise InvalidInput("the dask executor needs Dask's 'distributed' package (an optional extra): "
                           "pip install distributed") from None
    client = Client(address, set_as_default=False)
    try:
        window = 2 * max(workers, sum(client.nthreads().values()) or 1)
        yield from _drain(lambda batch: client.submit(_apply_batch, fn, batch, pure=False), batches, window, step,
                          should_stop, lambda: None, total)
    finally:
        client.close()


def _drain(submit: Callable[[list[Any]], Any], batches: list[list[Any]], window: int,
           step: Callable[[list[Any]], Iterator[Any]], cancel: Callable[[], bool],
           stop: Callable[[], None], total: int) -> Iterator[Any]:
    """Keep ``window`` batches in flight and yield their results in submission order."""
    pending: deque[Any] = deque()
    queue = iter(batches)

    def drop() -> None:
        for future in pending:
            future.cancel()
        stop()

    try:
        for batch in itertools.islice(queue, window):
            pending.append(submit(batch))
        while pending:
            if cancel():
                left = len(pending)
                drop()
                raise Cancelled(f"cancelled with {left} batch(es) of {total} tasks still pending")
            results = pending.popleft().result()
            nxt = next(queue, None)
            if nxt is not None:
                pending.append(submit(nxt))
            yield from step(results)
    except BaseException:  # Ctrl-C, a page rerun (Stop), or the consumer stopped early: drop the queued work
        drop()
        raise

