"""Per-value and simultaneous confidence intervals."""

from __future__ import annotations

import numpy as np
import pytest

import ldp
from ldp.evaluation.metrics import ks_distance, wasserstein
from ldp.evaluation.uncertainty import coverage, simultaneous_halfwidth, value_intervals, z_value


def test_z_values():
    assert z_value(0.95) == pytest.approx(1.959964, rel=1e-6)
    np.testing.assert_allclose(value_intervals(np.array([4.0, 1.0]), 0.95), [2 * 1.959964, 1.959964], rtol=1e-6)
    with pytest.raises(ValueError):
        z_value(1.0)


def test_simultaneous_band_covers_every_value_at_the_level():
    """Fast-engine OUE estimates: the fraction of trials with every value inside the Šidák band must be
    ≥ 95% up to sampling error (400 trials: sd of a proportion near 0.95 is 0.011; allow 4 sd)."""
    d, n = 64, 100_000
    mech = ldp.get_mechanism("oue", 1.0, d)
    counts = np.random.default_rng(0).multinomial(n, np.full(d, 1 / d))
    res = ldp.simulate(mech, counts, estimators=["mi"], trials=400, seed=3)
    half = simultaneous_halfwidth(res.variance_per_value(), 0.95)
    inside = np.all(np.abs(res.estimates["mi"] - res.true_frequencies) <= half, axis=1).mean()
    assert inside >= 0.95 - 4 * 0.011
    per_value = value_intervals(res.variance_per_value(), 0.95)
    cov = np.mean([coverage(res.true_frequencies, est, per_value) for est in res.estimates["mi"]])
    assert cov == pytest.approx(0.95, abs=4 * np.sqrt(0.95 * 0.05 / (400 * d)) + 0.01)


def test_wasserstein_and_ks_by_hand():
    p = np.array([1.0, 0.0, 0.0])
    q = np.array([0.0, 0.0, 1.0])
    # uniform-within-bin masses on [0,1) and [2,3): W1 = 2 (shift by two bins)
    assert wasserstein(p, q, edges=np.array([0.0, 1, 2, 3])) == pytest.approx(2.0)
    assert wasserstein(p, q, edges=np.array([0.0, 10, 20, 30])) == pytest.approx(20.0)
    assert ks_distance(p, q) == pytest.approx(1.0)
    assert wasserstein(p, p) == 0.0 and ks_distance(p, p) == 0.0
    # neighbouring bins: W1 = 1 bin width
    assert wasserstein(np.array([1.0, 0]), np.array([0.0, 1])) == pytest.approx(1.0)
    # a crossing inside a bin: F−G goes 0 → 0.5 → −0.5 → 0 on unit bins: 0.25 + 0.25 + 0.25
    assert wasserstein(np.array([0.5, 0.0, 0.5]), np.array([0.0, 1.0, 0.0])) == pytest.approx(0.75)
