"""Simulation engines: both turn a population into the server's support-count vector.

- ``exact``: runs the real client randomizer for every simulated user, streaming users in chunks
  (memory bounded by the chunk, independent of n) and aggregating each chunk on the server side.
  Chunks are processed on a small thread pool (numpy releases the GIL); each chunk has its own
  child generator spawned from the seed, so results do not depend on scheduling.
- ``fast``: samples the aggregate support counts directly (``Mechanism.sample_support_counts``):
  exact in distribution for GRR, UE, THE, SHE and the longitudinal GRR/UE chains; exact mean and
  covariance for SS (Gaussian) and exact marginals with pairwise-independent-hash covariance for LH
  and HR (see each mechanism's docstring). Cost is O(d), independent of n.

Both return :class:`Aggregate`, so nothing downstream knows which engine ran.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from ldp.core.randomness import RandomSource
from ldp.mechanisms.base import Mechanism

ENGINES = ("fast", "exact")


@dataclass(frozen=True)
class Aggregate:
    """What the server holds after collection: support counts C(v) and the number of reports n."""

    counts: np.ndarray
    n: int
    engine: str


def check_engine(engine: str) -> str:
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; choose one of: {', '.join(ENGINES)}")
    return engine


def _values_in_range(cumulative: np.ndarray, start: int, stop: int) -> np.ndarray:
    """Values of users start..stop−1 when users are listed value by value (counts → users)."""
    return np.searchsorted(cumulative, np.arange(start, stop), side="right").astype(np.int64)


def default_workers() -> int:
    return max(1, min(2, os.cpu_count() or 1))


def run_exact(mechanism: Mechanism, rng: np.random.Generator | RandomSource, *,
              values: np.ndarray | None = None, true_counts: np.ndarray | None = None,
              chunk_size: int | None = None, workers: int | None = None) -> Aggregate:
    """Perturb every user with the real client randomizer and aggregate, chunk by chunk.

    Give either ``values`` (one integer per user) or ``true_counts`` (users per value; users are then
    generated chunk by chunk, so not even the population is held in memory).
    """
    if (values is None) == (true_counts is None):
        raise ValueError("give exactly one of values or true_counts")
    chunk = int(chunk_size or mechanism.chunk_size())
    if values is not None:
        arr = mechanism.validate_values(values)
        n = arr.shape[0]

        def take(start: int, stop: int) -> np.ndarray:
            return arr[start:stop]
    else:
        counts = np.asarray(true_counts, dtype=np.int64)
        if counts.shape != (mechanism.d,) or np.any(counts < 0):
            raise ValueError(f"true counts must be {mechanism.d} non-negative integers")
        cumulative = np.cumsum(counts)
        n = int(cumulative[-1])

        def take(start: int, stop: int) -> np.ndarray:
            return _values_in_range(cumulative, start, stop)
    if n < 1:
        raise ValueError("need at least one user (n ≥ 1)")
    bounds = [(s, min(n, s + chunk)) for s in range(0, n, chunk)]

    def work(job: tuple[tuple[int, int], RandomSource]) -> np.ndarray:
        (start, stop), child = job
        reports = mechanism._perturb(take(start, stop), child)
        return np.asarray(mechanism._support_counts(reports), dtype=np.float64)

    if isinstance(rng, np.random.Generator):
        children: list[RandomSource] = list(rng.spawn(len(bounds)))
        n_workers = workers or default_workers()
    else:  # a secure source cannot be split; run sequentially from it
        children = [rng] * len(bounds)
        n_workers = 1
    total = np.zeros(mechanism.d)
    if n_workers == 1 or len(bounds) == 1:
        for job in zip(bounds, children, strict=True):
            total += work(job)
    else:
        with ThreadPoolExecutor(max_workers=n_workers) as pool:
            # map keeps submission order, so the float sum is deterministic
            for part in pool.map(work, zip(bounds, children, strict=True)):
                total += part
    return Aggregate(counts=total, n=n, engine="exact")


def run_fast(mechanism: Mechanism, true_counts: np.ndarray, rng: np.random.Generator) -> Aggregate:
    """Sample the support-count vector of the population ``true_counts`` directly (O(d))."""
    counts = np.asarray(true_counts)
    n = int(counts.sum())
    if n < 1:
        raise ValueError("need at least one user (n ≥ 1)")
    return Aggregate(counts=mechanism.sample_support_counts(counts, rng), n=n, engine="fast")


def collect(mechanism: Mechanism, true_counts: np.ndarray, rng: np.random.Generator, engine: str = "fast",
            workers: int | None = None) -> Aggregate:
    """Run the chosen engine on a population given by its per-value counts."""
    if check_engine(engine) == "fast":
        return run_fast(mechanism, true_counts, rng)
    return run_exact(mechanism, rng, true_counts=true_counts, workers=workers)


def aggregate_reports(mechanism: Mechanism, reports: np.ndarray) -> Aggregate:
    """Server side on real reports (e.g. a report file): support counts and n."""
    rep = mechanism.validate_reports(reports)
    return Aggregate(counts=np.asarray(mechanism._support_counts(rep), dtype=np.float64), n=int(rep.shape[0]),
                     engine="reports")
