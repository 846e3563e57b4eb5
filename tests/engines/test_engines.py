"""Engines: both return the same type; the exact engine streams users in bounded chunks."""

from __future__ import annotations

import numpy as np
import pytest

import ldp
from ldp.engines import collect, run_exact


def test_values_and_counts_paths_agree_in_distribution():
    mech = ldp.get_mechanism("grr", 2.0, 5)
    counts = np.array([100, 0, 50, 0, 10])
    values = np.repeat(np.arange(5), counts)
    a = run_exact(mech, np.random.default_rng(0), values=values, chunk_size=32)
    b = run_exact(mech, np.random.default_rng(0), true_counts=counts, chunk_size=32)
    np.testing.assert_array_equal(a.counts, b.counts)  # same users in the same order, same seeds
    assert a.n == b.n == 160 and a.engine == "exact"


def test_chunks_bound_memory(monkeypatch):
    """The randomizer never sees more than one chunk of users at a time."""
    mech = ldp.get_mechanism("oue", 1.0, 64)
    seen: list[int] = []
    original = type(mech)._perturb

    def spy(self, values, rng):
        seen.append(values.shape[0])
        return original(self, values, rng)

    monkeypatch.setattr(type(mech), "_perturb", spy)
    run_exact(mech, np.random.default_rng(0), true_counts=np.full(64, 1000), chunk_size=5000, workers=1)
    assert max(seen) <= 5000 and sum(seen) == 64000


def test_engine_errors():
    mech = ldp.get_mechanism("grr", 1.0, 3)
    with pytest.raises(ValueError, match="engine"):
        collect(mech, np.array([1, 2, 3]), np.random.default_rng(0), engine="slow")
    with pytest.raises(ValueError, match="n ≥ 1"):
        ldp.run_fast(mech, np.zeros(3, dtype=int), np.random.default_rng(0))
    with pytest.raises(ValueError, match="exactly one"):
        run_exact(mech, np.random.default_rng(0))
    with pytest.raises(ValueError, match="n ≥ 1"):
        ldp.simulate(mech, np.zeros(3, dtype=int))
    with pytest.raises(ValueError, match="trials"):
        ldp.simulate(mech, np.ones(3, dtype=int), trials=0)


def test_fast_engine_handles_a_billion_users():
    mech = ldp.get_mechanism("olh", 1.0, 1024)
    counts = np.random.default_rng(0).multinomial(10**9, np.full(1024, 1 / 1024))
    agg = ldp.run_fast(mech, counts, np.random.default_rng(1))
    assert agg.n == 10**9 and agg.counts.shape == (1024,)


def test_secure_source_runs_sequentially():
    mech = ldp.get_mechanism("hr", 1.0, 16)
    agg = run_exact(mech, ldp.SecureRandom(), true_counts=np.full(16, 50))
    assert agg.n == 800


def test_sweep_is_tidy_and_reproducible():
    def population(d, n, rng):
        return rng.multinomial(n, np.full(d, 1 / d))

    kwargs = dict(mechanisms=["grr", "l-oue"], epsilons=[0.5, 2.0], users=[1000], domain_sizes=[8, 16],
                  estimators=["mi", "norm-sub"], trials=2, seed=3, epsilon_1=0.25)
    table = ldp.sweep(population, **kwargs)
    assert len(table) == 2 * 2 * 1 * 2 * 2 * 2 * 5
    assert set(table.columns) >= {"mechanism", "epsilon", "users", "d", "trial", "estimator", "metric", "value"}
    again = ldp.sweep(population, **kwargs)
    np.testing.assert_array_equal(table["value"].to_numpy(), again["value"].to_numpy())
