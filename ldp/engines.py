"""Simulation engines: both turn a population into the server's :class:`~ldp.core.results.Aggregate`, for
every kind of mechanism, through the mechanism's public protocol only.

- ``exact``: runs the real client randomizer (``mechanism.perturb``) for every simulated user, streaming users
  in chunks (memory bounded by the chunk, independent of n) and aggregating each chunk on the server side
  (``mechanism.aggregate(..., trusted=True)``: reports the engine itself just produced are not re-validated,
  unlike reports from outside, see :func:`aggregate_reports`); aggregates are additive, so the chunks'
  aggregates add up. Chunks run on a small thread pool (numpy releases the GIL); each chunk has its own child
  generator spawned from the caller's, so results do not depend on scheduling.
- ``fast``: draws the aggregate directly (``mechanism.sample_aggregate``), in O(size of the aggregate)
  whatever n; exact in distribution where ``mechanism.fast_engine_exact`` says so, otherwise as
  ``mechanism.fast_engine_note`` describes.

A population is given as users per input cell (``true_counts``), plus the cells' values (``support``) for mean
mechanisms; the exact engine can also take one input per user (``values``).
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np

from ldp.core.cancellation import checkpoint
from ldp.core.errors import InvalidInput
from ldp.core.params import check_positive_int
from ldp.core.randomness import RandomSource
from ldp.core.results import SIMULATION_ENGINES, Aggregate
from ldp.mechanisms.base import Mechanism

__all__ = ["ENGINES", "aggregate_reports", "check_engine", "chunk_bounds", "collect", "default_workers", "run_exact",
           "run_fast", "stack_aggregates"]

ENGINES = SIMULATION_ENGINES


def check_engine(engine: str) -> str:
    """Check that ``engine`` names a simulation engine.

    Parameters
    ----------
    engine : str
        ``"exact"`` or ``"fast"`` (:data:`ENGINES`).

    Returns
    -------
    str
        ``engine`` unchanged.

    Raises
    ------
    InvalidInput
        For any other name.
    """
    if engine not in ENGINES:
        raise InvalidInput(f"unknown engine {engine!r}; choose one of: {', '.join(ENGINES)}")
    return engine


def default_workers() -> int:
    """The exact engine's default number of threads: the machine's cores, at least 1 and at most 2.

    Returns
    -------
    int
        ``max(1, min(2, os.cpu_count()))`` (1 when the count is unknown).
    """
    return max(1, min(2, os.cpu_count() or 1))


def chunk_bounds(n: int, chunk: int) -> Iterator[tuple[int, int]]:
    """The chunks of :func:`run_exact` for n users and chunks of at most ``chunk``: (start, stop) of each, in order.
    The users are split into equal chunks (their sizes differ by at most one), an even number of them when one is
    not enough, so that the engine's two threads end together (n = 2·10⁴ at 8,192: four chunks of 5,000, not
    8,192 + 8,192 + 3,616, which kept one thread busy 18% longer).

    Parameters
    ----------
    n : int
        Users (≥ 1).
    chunk : int
        The most users a chunk may hold (≥ 1).

    Yields
    ------
    tuple of (int, int)
        Each chunk's first user and the user after its last.
    """
    pieces = -(-n // chunk)
    if 1 < pieces < n:
        pieces += pieces % 2
    size, extra = divmod(n, pieces)  # the first `extra` chunks take one user more
    start = 0
    for i in range(pieces):
        stop = start + size + (i < extra)
        yield start, stop
        start = stop


def _cells_in_range(cumulative: np.ndarray, start: int, stop: int) -> np.ndarray:
    """Cells of users start..stop−1 when users are listed cell by cell (counts → users): each cell that the range
    meets, repeated as many times as it has users there (O(users + cells met), not a search per user)."""
    first, last = np.searchsorted(cumulative, [start, stop - 1], side="right")
    ends = np.minimum(cumulative[first:last + 1], stop)
    begins = np.maximum(np.concatenate(([0], cumulative[:-1]))[first:last + 1], start)
    return np.repeat(np.arange(first, last + 1, dtype=np.int64), ends - begins)


def run_exact(mechanism: Mechanism, rng: np.random.Generator | RandomSource, *, values: Any = None,
              true_counts: Any = None, support: Any = None, chunk_size: int | None = None,
              workers: int | None = None) -> Aggregate:
    """Perturb every user with the real client randomizer and aggregate, chunk by chunk.

    Users of a population are generated chunk by chunk (``mechanism.cell_inputs``), so not even the population is held
    in memory; each chunk draws from its own child generator, so the result does not depend on scheduling.

    Parameters
    ----------
    mechanism : Mechanism
        The mechanism every user runs.
    rng : numpy.random.Generator or RandomSource
        A seeded generator (a simulation) or :class:`ldp.SecureRandom` (a genuine collection, run sequentially).
    values : array_like, optional
        One input per user. Give exactly one of ``values`` and ``true_counts``.
    true_counts : array_like of int, optional
        Users per input cell (with ``support`` for mean and vector mechanisms).
    support : array_like, optional
        The cells' values, for mechanisms whose population is given by its values.
    chunk_size : int, optional
        At most this many users per chunk (default: the mechanism's, bounded in memory cells); the users are split
        into equal chunks (:func:`chunk_bounds`).
    workers : int, optional
        Threads (default: up to 2).

    Returns
    -------
    Aggregate
        The aggregate of every user's report (``engine="exact"``).
    """
    if (values is None) == (true_counts is None):
        raise InvalidInput("give exactly one of values or true_counts")
    chunk = mechanism.chunk_size() if chunk_size is None else check_positive_int(chunk_size, "chunk_size")
    if values is not None:
        arr = mechanism.validate_values(values)
        n = int(arr.shape[0])

        def take(start: int, stop: int, child: RandomSource) -> np.ndarray:
            return arr[start:stop]
    else:
        counts, sup = mechanism.check_population(true_counts, support)
        cumulative = np.cumsum(counts)
        n = int(cumulative[-1])

        def take(start: int, stop: int, child: RandomSource) -> np.ndarray:
            return mechanism.cell_inputs(_cells_in_range(cumulative, start, stop), child, sup)
    if n < 1:
        raise InvalidInput("need at least one user (n ≥ 1)")
    chunks = -(-n // chunk)

    def work(job: tuple[tuple[int, int], RandomSource]) -> Aggregate:
        (start, stop), child = job
        # the reports were produced just now by the mechanism's own client: trusted, not re-validated (the
        # check is for reports crossing a boundary: files, the network, callers of Mechanism.aggregate)
        return mechanism.perturb_aggregate(take(start, stop, child), child)

    secure = not isinstance(rng, np.random.Generator)

    def jobs() -> Iterator[tuple[tuple[int, int], RandomSource]]:
        # lazily, one child generator per chunk: rng.spawn(1) k times gives the same children as rng.spawn(k)
        # (the seed sequence counts its spawns), without holding n/chunk generators (10¹⁵ users: 10⁸ of them)
        for bounds in chunk_bounds(n, chunk):
            yield bounds, (rng if secure else rng.spawn(1)[0])

    # a secure source cannot be split; run sequentially from it
    n_workers = 1 if secure else default_workers() if workers is None else check_positive_int(workers, "workers")
    total = np.zeros(mechanism.statistic_size())
    if n_workers == 1 or chunks == 1:
        for job in jobs():
            checkpoint()
            total += work(job).counts
    else:
        with ThreadPoolExecutor(max_workers=n_workers) as pool:
            pending: deque[Future[Aggregate]] = deque()
            try:
                for job in jobs():  # at most 2 chunks per worker in flight: memory bounded whatever n is
                    pending.append(pool.submit(work, job))
                    if len(pending) >= 2 * n_workers:
                        checkpoint()  # the worker threads do not see the caller's cancellation context
                        total += pending.popleft().result().counts  # in submission order: a deterministic sum
                while pending:
                    checkpoint()
                    total += pending.popleft().result().counts
            except BaseException:
                for future in pending:
                    future.cancel()  # drop the queued chunks, not just stop reading
                raise
    return Aggregate._from_engine(total, n, "exact")


def run_fast(mechanism: Mechanism, true_counts: Any, rng: np.random.Generator, support: Any = None) -> Aggregate:
    """Draw the aggregate of a population directly, without simulating users (``mechanism.sample_aggregate``).

    Parameters
    ----------
    mechanism : Mechanism
        The mechanism every user runs.
    true_counts : array_like of int
        Users per input cell.
    rng : numpy.random.Generator
        The collection's random stream.
    support : array_like, optional
        The cells' values, for mean and vector mechanisms.

    Returns
    -------
    Aggregate
        The aggregate, exact in distribution or as the mechanism's ``fast_engine_note`` says (``engine="fast"``).
    """
    return mechanism.sample_aggregate(true_counts, rng, support)


def stack_aggregates(aggregates: Sequence[Aggregate]) -> Aggregate:
    """Aggregates of one mechanism, all of n reports, as one batch: their statistics stacked row by row (trials ×
    statistic), marked as the engines' when every one is (an estimator's batch then takes them without re-checking
    each row, as it takes one engine aggregate; statistics from elsewhere are checked).

    Parameters
    ----------
    aggregates : sequence of Aggregate
        At least one, all with the same n and statistic shape.

    Returns
    -------
    Aggregate
        ``counts`` of shape (len(aggregates), statistic size) and the common n.

    Raises
    ------
    InvalidInput
        If there is none, or they differ in n or shape.
    """
    aggs = list(aggregates)
    if not aggs or not all(isinstance(a, Aggregate) for a in aggs):
        raise InvalidInput("stack_aggregates needs at least one Aggregate")
    n, shape = aggs[0].n, aggs[0].counts.shape
    if any(a.n != n or a.counts.shape != shape for a in aggs):
        raise InvalidInput("the aggregates of one batch must share n and the statistic's shape")
    rows = np.stack([a.counts for a in aggs])
    engines = {a.engine for a in aggs}
    if len(engines) == 1 and all(a.simulated for a in aggs):
        return Aggregate._from_engine(rows, n, engines.pop())
    return Aggregate(rows, n)


def collect(mechanism: Mechanism, true_counts: Any, rng: np.random.Generator, engine: str = "fast", *,
            support: Any = None, workers: int | None = None) -> Aggregate:
    """Run the chosen engine on a population given by its users per cell.

    Parameters
    ----------
    mechanism : Mechanism
        The mechanism every user runs.
    true_counts : array_like of int
        Users per input cell (a value, a bucket, or — for mean and vector mechanisms — a distinct value given in
        ``support``).
    rng : numpy.random.Generator
        The collection's random stream (seeded for a reproducible simulation).
    engine : {"fast", "exact"}, default "fast"
        ``"fast"`` draws the aggregate directly (:func:`run_fast`); ``"exact"`` runs every client (:func:`run_exact`).
    support : array_like, optional
        The cells' values, for mechanisms whose population is given by its values (mean, vector).
    workers : int, optional
        Threads of the exact engine (default: up to 2).

    Returns
    -------
    Aggregate
        The aggregate of one collection.
    """
    if check_engine(engine) == "fast":
        return run_fast(mechanism, true_counts, rng, support)
    return run_exact(mechanism, rng, true_counts=true_counts, support=support, workers=workers)


def aggregate_reports(mechanism: Mechanism, reports: Any) -> Aggregate:
    """Server side on real reports (e.g. a report file): validated, as everything from outside the engine.

    Parameters
    ----------
    mechanism : Mechanism
        The mechanism the reports were made with.
    reports : array_like
        One report per user, in the mechanism's report layout.

    Returns
    -------
    Aggregate
        The mechanism's additive statistic of the reports and n (``engine="reports"``).

    Raises
    ------
    InvalidInput
        Reports of another shape, type or range than this mechanism produces.
    """
    return mechanism.aggregate(reports)
