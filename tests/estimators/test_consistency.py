"""Matrix inversion and Norm-Sub: contracts and properties (hypothesis)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import ldp
from ldp.estimators import norm_sub, parse_estimators

vectors = arrays(np.float64, st.integers(2, 60), elements=st.floats(-2, 2, allow_nan=False, width=64))


def _bisection_norm_sub(x: np.ndarray) -> np.ndarray:
    lo, hi = x.min() - 1.0, x.max()
    for _ in range(200):
        mid = (lo + hi) / 2
        if np.maximum(x - mid, 0).sum() > 1:
            lo = mid
        else:
            hi = mid
    return np.maximum(x - (lo + hi) / 2, 0)


@given(vectors)
@settings(max_examples=200, deadline=None)
def test_norm_sub_is_a_distribution_and_matches_bisection(x):
    out = norm_sub(x)
    assert np.all(out >= 0)
    assert out.sum() == pytest.approx(1.0, abs=1e-9)
    np.testing.assert_allclose(out, _bisection_norm_sub(x), atol=1e-7)


@given(vectors)
@settings(max_examples=100, deadline=None)
def test_norm_sub_is_idempotent_and_is_the_simplex_projection(x):
    out = norm_sub(x)
    np.testing.assert_allclose(norm_sub(out), out, atol=1e-12)
    # KKT of min ||y − x||² on the simplex: y − x = −δ on the support, y = 0 where x ≤ δ
    support = out > 0
    delta = (x - out)[support]
    assert np.ptp(delta) < 1e-9
    assert np.all(x[~support] <= delta[0] + 1e-9)


def test_mi_is_unclipped_and_unbiased_form():
    mech = ldp.get_mechanism("grr", 1.0, 4)
    counts = np.array([10.0, 0.0, 0.0, 90.0])
    est = ldp.get_estimator("mi").estimate(mech, counts, 100)
    assert est.min() < 0
    np.testing.assert_allclose(est, (counts - 100 * mech.q_star) / (100 * (mech.p_star - mech.q_star)))
    assert est.sum() == pytest.approx(1.0)  # GRR counts sum to n, so MI sums to one


def test_estimator_errors():
    mech = ldp.get_mechanism("oue", 1.0, 4)
    with pytest.raises(ValueError, match="unknown estimator"):
        parse_estimators("mi,nope")
    with pytest.raises(ValueError, match="no estimator"):
        parse_estimators(" , ")
    with pytest.raises(ValueError, match="length"):
        ldp.get_estimator("mi").estimate(mech, np.zeros(3), 10)
    with pytest.raises(ValueError, match="positive"):
        ldp.get_estimator("norm-sub").estimate(mech, np.zeros(4), 0)
    assert parse_estimators("MI, norm-sub,mi", mech) == ["mi", "norm-sub"]


def test_estimator_conformance_over_registry():
    mech = ldp.get_mechanism("oue", 1.0, 32)
    counts = ldp.run_fast(mech, np.full(32, 100), np.random.default_rng(0)).counts
    for cls in ldp.ESTIMATORS:
        est = cls().estimate(mech, counts, 3200)
        assert est.shape == (32,) and np.all(np.isfinite(est))
        if cls.consistent:
            assert np.all(est >= 0) and est.sum() == pytest.approx(1.0)
        for attr in ("name", "display_name", "description", "paper"):
            assert getattr(cls, attr)
