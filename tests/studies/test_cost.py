"""Run-time estimates (ldp.studies.cost): generous, from one cost model, and the right order of magnitude."""

from __future__ import annotations

import numpy as np
import pytest

import ldp
from ldp.studies import cost


def test_estimated_seconds_grows_with_the_work():
    assert cost.estimated_seconds(10**6, 100, 50, "fast") < 1
    assert cost.estimated_seconds(10**6, 100, 50, "exact") > 10
    assert cost.estimated_seconds(10**6, 1000, 50, "exact") > cost.estimated_seconds(10**6, 100, 50, "exact")
    # the fast engine's cost does not depend on n, the exact engine's is linear in n
    assert cost.estimated_seconds(10**3, 100, 50, "fast") == cost.estimated_seconds(10**6, 100, 50, "fast")
    assert cost.collection_seconds(2 * 10**6, 100, "exact") - 2e-4 == pytest.approx(
        2 * (cost.collection_seconds(10**6, 100, "exact") - 2e-4))


def test_time_estimators_feeds_the_estimate():
    mech = ldp.get_mechanism("oue", 1.0, 16)
    timing = cost.time_estimators(mech, np.full(16, 100), ["mi", "norm-sub"], seed=0)
    assert set(timing) == {"mi", "norm-sub"} and all(t >= 0 for t in timing.values())
    base = cost.estimated_seconds(1000, 16, 50, "fast")
    assert cost.estimated_seconds(1000, 16, 50, "fast", estimator_seconds=0.2) == pytest.approx(base + 50 * 1.25 * 0.2)


def test_preselect_leaves_out_the_slowest():
    timing = {"mi": 0.0, "ibu": 1.0, "power": 0.1}
    kept, left = cost.preselect(timing, n=1000, d=10, trials=50, engine="fast", limit=10.0)
    assert kept == ["mi", "power"] and left == ["ibu"]
    assert cost.estimated_seconds(1000, 10, 50, "fast", 0.1) <= 10.0
    assert cost.preselect(timing, n=1000, d=10, trials=50, engine="fast", limit=100.0) == (list(timing), [])
    # Too slow even without estimators (the exact engine): leaving estimators out would not help.
    assert cost.preselect(timing, n=10**7, d=1000, trials=50, engine="exact", limit=10.0) == (list(timing), [])
    assert cost.preselect({"a": 5.0, "b": 9.0}, n=10, d=2, trials=50, engine="fast", limit=1.0) == (["a"], ["b"])


def test_advisor_seconds_grows_with_the_work():
    timing = {"mi": 0.001, "ibu": 0.05}
    base = cost.advisor_seconds(timing, n=10**5, d=100, trials=20, engine="fast")
    assert base == pytest.approx(cost.estimated_seconds(10**5, 100, 1, "fast") + cost.estimated_seconds(
        10**5, 100, 20, "fast") + 1.25 * 21 * 0.051)
    assert cost.advisor_seconds(timing, n=10**5, d=100, trials=40, engine="fast") > base
    assert cost.advisor_seconds(timing, n=10**5, d=100, trials=20, engine="exact") > base


def test_estimate_sweep_seconds_cost_model():
    """A sweep costs the sum of its configurations' run estimates plus a per-configuration overhead."""
    configs = [(10_000, 50)] * 3
    fast = cost.estimate_sweep_seconds(configs, trials=10, engine="fast", estimator_seconds=0.01, overhead=0.0)
    assert fast == pytest.approx(3 * cost.estimated_seconds(10_000, 50, 10, "fast", 0.01))
    assert cost.estimate_sweep_seconds(configs, trials=20, engine="fast", estimator_seconds=0.01,
                                       overhead=0.0) == pytest.approx(2 * fast, rel=1e-12)
    assert cost.estimate_sweep_seconds(configs, trials=10, engine="fast", estimator_seconds=0.01,
                                       overhead=0.5) == pytest.approx(fast + 1.5)
    # the exact engine grows with n (and the fast one does not)
    along_n = [(1000, 50), (3000, 50)]
    exact = cost.estimate_sweep_seconds(along_n, trials=1, engine="exact", overhead=0.0)
    assert exact == pytest.approx(cost.estimated_seconds(1000, 50, 1, "exact")
                                  + cost.estimated_seconds(3000, 50, 1, "exact"))
    assert cost.estimate_sweep_seconds([(3000, 50)], trials=1, engine="exact") > cost.estimate_sweep_seconds(
        [(1000, 50)], trials=1, engine="exact")
    assert cost.estimate_sweep_seconds(along_n, trials=1, engine="fast", overhead=0.0) == pytest.approx(
        2 * cost.estimated_seconds(1, 50, 1, "fast"))


def test_numerical_and_mean_estimates():
    base = cost.estimated_seconds(10**5, 48, 20, "fast")
    assert cost.numerical_seconds(10**5, 48, 20, "fast") == pytest.approx(base)
    two = cost.numerical_seconds(10**5, 48, 20, "fast", methods=2)
    assert two == pytest.approx(3 * base + 2 * cost.SECONDS_PER_BUCKET_TRIAL * 48 * 20)
    assert cost.mean_seconds(10**6, 1) > 0
    assert cost.mean_seconds(10**6, 10) == pytest.approx(10 * cost.mean_seconds(10**6, 1))
    # the fast engine runs no client: its cost does not grow with n
    assert cost.mean_seconds(10**9, 10, "fast") == cost.mean_seconds(10**3, 10, "fast") < cost.mean_seconds(10**6, 10)


def test_sweep_seconds_counts_each_configuration():
    grid = [1000.0, 10_000.0]
    along_n = cost.sweep_seconds("users", grid, users=5, d=16, mechanisms=3, trials=2, engine="exact")
    expected = cost.estimate_sweep_seconds([(1000, 16), (10_000, 16)] * 3, trials=2, engine="exact")
    assert along_n == pytest.approx(expected)
    along_d = cost.sweep_seconds("d", [4.0, 64.0], users=100, d=16, mechanisms=1, trials=2, engine="exact")
    assert along_d == pytest.approx(cost.estimate_sweep_seconds([(100, 4), (100, 64)], trials=2, engine="exact"))


def test_timing_epsilon_is_one_per_octave():
    """The estimators are timed at the power of two nearest ε (log scale), so every ε of an octave shares one timing;
    where the mechanism cannot be built there (a longitudinal ε1 at or above it) they are timed at ε itself."""
    from ldp.studies.cost import timing_epsilon

    assert [timing_epsilon("oue", e, 16) for e in (0.2, 0.7, 0.71, 1.0, 1.3, 1.5, 3.0)] == [
        0.25, 0.5, 1.0, 1.0, 1.0, 2.0, 4.0]
    assert timing_epsilon("l-olh", 1.3, 16, {"epsilon_1": 1.2}) == 1.3  # ε1 = 1.2 is not below 1
    assert timing_epsilon("l-olh", 1.3, 16, {"epsilon_1": 0.6}) == 1.0
