"""Per-value and simultaneous confidence intervals."""

from __future__ import annotations

import numpy as np
import pytest

import ldp
from ldp.evaluation.uncertainty import (
    coverage,
    simultaneous_halfwidth,
    simultaneous_z,
    standard_error,
    value_intervals,
    z_value,
)


def test_z_values():
    assert z_value(0.95) == pytest.approx(1.959964, rel=1e-6)
    np.testing.assert_allclose(value_intervals(np.array([4.0, 1.0]), 0.95), [2 * 1.959964, 1.959964], rtol=1e-6)
    with pytest.raises(ldp.LDPError, match="confidence level"):
        z_value(1.0)
    # Šidák: d values all inside with probability level ⇔ each inside with probability level^(1/d)
    assert simultaneous_z(0.95, 1) == pytest.approx(z_value(0.95))
    assert simultaneous_z(0.95, 10) == pytest.approx(z_value(0.95 ** 0.1))
    with pytest.raises(ldp.LDPError, match="at least one value"):
        simultaneous_z(0.95, 0)


def test_standard_error():
    x = np.array([1.0, 2.0, 3.0, 4.0])
    assert standard_error(x) == pytest.approx(np.std(x, ddof=1) / 2)
    assert standard_error(np.array([[1.0, 3.0]])) == pytest.approx(1.0)  # any shape: all values
    assert np.isnan(standard_error(np.array([1.0])))


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
