"""A histogram with real-unit edges read as a uniform-within-bin density (ldp.evaluation.histograms): CDF,
density, moments, quantiles and range answers against hand-computed values (square-wave paper §3)."""

from __future__ import annotations

import numpy as np
import pytest

import ldp
from ldp.evaluation.histograms import (
    DECILES,
    cdf_at,
    cdf_at_edges,
    check_edges,
    density,
    moments,
    quantile_values,
    range_answers,
    unit_edges,
)


def test_density_and_cdf():
    edges = np.array([0.0, 1.0, 3.0])
    np.testing.assert_allclose(density(edges, [0.5, 0.5]), [0.5, 0.25])
    np.testing.assert_allclose(cdf_at(edges, [0.5, 0.5], [0.5, 1.0, 2.0, 3.0]), [0.25, 0.5, 0.75, 1.0])
    np.testing.assert_allclose(cdf_at_edges([0.2, 0.3, 0.5]), [0, 0.2, 0.5, 1.0])
    # outside the edges the CDF is 0 and its total
    np.testing.assert_allclose(cdf_at(edges, [0.5, 0.5], [-1.0, 4.0]), [0.0, 1.0])
    # density shows raw estimates as they are (no projection)
    np.testing.assert_allclose(density(edges, [0.6, -0.1]), [0.6, -0.05])


def test_moments():
    # U[0,1] has mean 1/2 and variance 1/12, U[0,2] mean 1 and variance 4/12.
    assert moments([0, 1, 2], [1, 0]) == pytest.approx((0.5, 1 / 12))
    assert moments([0, 1, 2], [0.5, 0.5]) == pytest.approx((1.0, 1 / 3))
    assert moments([0, 1, 3], [0.5, 0.5])[0] == pytest.approx(0.5 * 0.5 + 0.5 * 2)


def test_deciles_of_a_uniform_histogram():
    assert DECILES == (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
    edges = np.linspace(0, 10, 11)
    np.testing.assert_allclose(quantile_values(edges, np.full(10, 0.1)), np.arange(1, 10), atol=1e-12)
    # Real units: 24 bins over a day.
    np.testing.assert_allclose(quantile_values(np.linspace(0, 24, 25), np.full(24, 1 / 24)),
                               2.4 * np.arange(1, 10), atol=1e-9)


def test_quantiles_with_unequal_widths_and_empty_bins():
    assert quantile_values([0, 1, 3], [0.5, 0.5], [0.25, 0.5, 0.75]) == pytest.approx([0.5, 1.0, 2.0])
    # An empty middle bin: the median is the smallest x with F(x) ≥ 0.5, the end of the first bin.
    assert quantile_values([0, 1, 2, 3], [0.5, 0, 0.5], [0.5, 0.75]) == pytest.approx([1.0, 2.5])


def test_range_answers():
    edges = np.linspace(0, 20, 11)
    uniform = np.full(10, 0.1)
    lefts = np.array([0.0, 3.3, 12.0])
    np.testing.assert_allclose(range_answers(edges, uniform, lefts, 4.0), 0.2)
    # a range over part of a bin holds its share of that bin
    np.testing.assert_allclose(range_answers([0, 1, 2], [1.0, 0.0], np.array([0.5]), 1.0), [0.5])


def test_edges():
    np.testing.assert_array_equal(unit_edges(3), [0, 1, 2, 3])
    np.testing.assert_array_equal(check_edges(None, 3), [0, 1, 2, 3])
    with pytest.raises(ldp.LDPError, match="needs 3 edges"):
        check_edges([0, 1], 2)
    with pytest.raises(ldp.LDPError, match="strictly increasing"):
        check_edges([0, 2, 1], 2)
    with pytest.raises(ldp.LDPError, match="strictly increasing"):
        check_edges([0, np.inf, 1], 2)
    with pytest.raises(ldp.LDPError, match="between 0 and 1"):
        quantile_values([0, 1, 2], [1, 0], [0.5, 1.0])
