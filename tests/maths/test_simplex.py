"""Projection onto the probability simplex (Norm-Sub, ldp.maths.simplex): contracts and properties (hypothesis)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import ldp
from ldp.maths.simplex import is_distribution, norm_sub, to_distribution

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


def test_norm_sub_is_reexported():
    assert ldp.norm_sub is norm_sub
    assert ldp.estimators.norm_sub is norm_sub


def test_norm_sub_by_hand_and_errors():
    np.testing.assert_allclose(norm_sub(np.array([0.5, 0.5, -0.2])), [0.5, 0.5, 0.0])
    np.testing.assert_allclose(norm_sub(np.array([0.7, 0.7, 0.1])), [0.5, 0.5, 0.0], atol=1e-15)  # δ = 0.2
    np.testing.assert_allclose(norm_sub(np.zeros(4)), np.full(4, 0.25))
    with pytest.raises(ldp.LDPError, match="1-D"):
        norm_sub(np.zeros((2, 2)))
    with pytest.raises(ldp.LDPError, match="1-D"):
        norm_sub(np.zeros(0))
    with pytest.raises(ldp.LDPError, match="finite"):
        norm_sub(np.array([0.5, np.nan]))


def test_is_distribution_and_to_distribution():
    p = np.array([0.2, 0.3, 0.5])
    assert is_distribution(p) and is_distribution(p + 1e-12)
    assert not is_distribution(np.array([0.6, 0.6, -0.2]))  # sums to one, but a negative entry
    assert not is_distribution(np.array([0.2, 0.3]))
    assert not is_distribution(np.array([0.5, np.nan, 0.5]))
    np.testing.assert_array_equal(to_distribution(p), p)  # left as it is
    q = np.array([0.6, 0.6, -0.2])
    np.testing.assert_allclose(to_distribution(q), norm_sub(q))
    with pytest.raises(ldp.LDPError, match="finite"):
        to_distribution(np.array([np.inf, 0.0]))
    with pytest.raises(ldp.LDPError, match="1-D"):
        to_distribution(np.ones((2, 2)))
