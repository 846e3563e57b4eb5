"""Cooperative cancellation: the library's long loops stop at their next checkpoint once the installed predicate
says so, and run to the end otherwise."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import ldp
from ldp.core.cancellation import Cancelled, cancel_when, cancelled, checkpoint
from ldp.core.executors import run_ordered
from ldp.engines import run_exact


class _AfterCalls:
    """A predicate that turns true on its ``k``-th evaluation (and counts them)."""

    def __init__(self, k: int) -> None:
        self.k, self.calls = k, 0

    def __call__(self) -> bool:
        self.calls += 1
        return self.calls >= self.k


def test_checkpoint_is_silent_without_a_predicate_and_raises_once_it_holds():
    checkpoint()
    assert not cancelled()
    with cancel_when(_AfterCalls(2), interval=0.0):
        checkpoint()  # first evaluation: false
        with pytest.raises(Cancelled):
            checkpoint()
    checkpoint()  # the block is over


def test_the_predicate_is_evaluated_at_most_every_interval():
    pred = _AfterCalls(10**9)
    with cancel_when(pred, interval=3600.0):
        for _ in range(1000):
            checkpoint()
    assert pred.calls == 1


def test_each_thread_sees_only_its_own_predicate():
    seen: list[bool] = []
    with cancel_when(lambda: True, interval=0.0):
        worker = threading.Thread(target=lambda: seen.append(cancelled()))
        worker.start()
        worker.join()
        assert cancelled()
    assert seen == [False]


def test_the_exact_engine_stops_between_chunks():
    mech = ldp.get_mechanism("grr", 1.0, 8)
    counts = np.full(8, 40_000)
    pred = _AfterCalls(3)
    with cancel_when(pred, interval=0.0), pytest.raises(Cancelled):
        run_exact(mech, true_counts=counts, rng=np.random.default_rng(0), chunk_size=1_000, workers=2)
    assert pred.calls == 3  # stopped at the third of 320 chunks, not after all of them
    agg = run_exact(mech, true_counts=counts, rng=np.random.default_rng(0), chunk_size=1_000, workers=2)
    assert agg.n == 320_000  # without a predicate the same call runs to the end


def test_simulations_em_and_sweeps_stop():
    mech = ldp.get_mechanism("oue", 1.0, 16)
    counts = np.arange(1, 17) * 100
    with cancel_when(_AfterCalls(4), interval=0.0), pytest.raises(Cancelled):
        ldp.simulate(mech, counts, trials=50, seed=1)
    sw = ldp.get_mechanism("sw", 1.0, 64)
    agg = sw.sample_aggregate(np.full(64, 1_000), np.random.default_rng(2))
    em = ldp.get_estimator("em", tol=0.0, max_iter=10_000)
    with cancel_when(_AfterCalls(5), interval=0.0), pytest.raises(Cancelled):
        em.estimate(sw, agg)
    with cancel_when(_AfterCalls(3), interval=0.0), pytest.raises(Cancelled):
        list(run_ordered(lambda x: x * x, list(range(100))))
