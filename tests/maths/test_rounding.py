"""Rounding a distribution to integer counts that sum exactly to n (ldp.maths.rounding)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import ldp
from ldp.maths.rounding import largest_remainder


def test_by_hand():
    np.testing.assert_array_equal(largest_remainder(np.array([0.5, 0.3, 0.2]), 10), [5, 3, 2])
    np.testing.assert_array_equal(largest_remainder(np.array([1.0, 1.0, 1.0]), 10), [4, 3, 3])  # ties by index
    np.testing.assert_array_equal(largest_remainder(np.array([0.26, 0.26, 0.48]), 4), [1, 1, 2])
    np.testing.assert_array_equal(largest_remainder(np.array([2.0, 0.0]), 0), [0, 0])
    assert largest_remainder(np.array([0.5, 0.5]), 7).dtype == np.int64


@given(arrays(np.float64, st.integers(1, 40), elements=st.floats(0, 10, allow_nan=False)),
       st.integers(0, 10**6))
@settings(max_examples=150, deadline=None)
def test_counts_sum_to_n_within_one_of_the_share(freqs, n):
    if freqs.sum() <= 0:
        return
    counts = largest_remainder(freqs, n)
    assert counts.sum() == n and np.all(counts >= 0)
    assert np.all(np.abs(counts - n * freqs / freqs.sum()) < 1)


@pytest.mark.parametrize(("freqs", "n"), [([0.5, -0.1], 10), ([0.0, 0.0], 10), ([np.nan, 1.0], 3), ([[0.5]], 3),
                                          ([0.5, 0.5], -1), ([0.5, 0.5], 2.5)])
def test_bad_inputs(freqs, n):
    with pytest.raises(ldp.LDPError):
        largest_remainder(np.array(freqs), n)
