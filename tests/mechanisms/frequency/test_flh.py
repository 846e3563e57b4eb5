"""FLH (Cormode, Maddock, Maple, VLDB 2021, §4.3): the paper's variance (OLH's, as k' → ∞), ε-LDP on the exact
channel of a fixed pool, and why the server inverts the pool's own channel."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ldp
from ldp.mechanisms.frequency.fast_local_hashing import pool_hash_matrix
from ldp.mechanisms.frequency.xxh32 import xxh32_decimal


def paper_variance(epsilon: float, n: int) -> float:
    """The paper's FLH variance (OLH's): 4e^ε / (n (e^ε − 1)²)."""
    e = math.exp(epsilon)
    return 4 * e / (n * (e - 1) ** 2)


def test_ideal_variance_is_the_papers_formula_where_g_is_e_eps_plus_one():
    """At ε = ln 3, g = round(e^ε + 1) = 4 = e^ε + 1 exactly and OLH's variance is the paper's 4e^ε/(e^ε − 1)²."""
    mech = ldp.get_mechanism("flh", math.log(3.0), 16)
    assert mech.g == 4
    assert mech.ideal_variance(0.0, 1000) == pytest.approx(paper_variance(math.log(3.0), 1000), rel=1e-12)
    assert mech.lecture_variance() == pytest.approx(3.0)


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0])
def test_exact_variance_of_a_large_pool_is_the_papers(epsilon):
    """With k' = 10⁴ functions and d = 64 values the pool's exact variance (uniform population) is within 3 % of
    OLH's and of the paper's 4e^ε/(n(e^ε − 1)²) (measured: 0.999, 0.994, 1.006 × the paper's). Inverting the whole
    collision matrix also uses Σ_v f_v = 1, which removes a share of about 1/d of the collision noise: at d = 16
    the exact variance is 6 % below OLH's."""
    d, n = 64, 10_000
    mech = ldp.get_mechanism("flh", epsilon, d)
    f = np.full(d, 1 / d)
    exact = mech.variance(f, n)
    np.testing.assert_allclose(exact, mech.ideal_variance(f, n), rtol=0.03)
    np.testing.assert_allclose(exact, paper_variance(epsilon, n), rtol=0.03)
    small_d = ldp.get_mechanism("flh", epsilon, 16)
    ratio = small_d.variance(np.full(16, 1 / 16), n) / small_d.ideal_variance(np.full(16, 1 / 16), n)
    assert np.all((ratio > 0.9) & (ratio < 0.97))


def test_a_small_pool_costs_variance():
    """k' = 20 functions for 16 values: collisions are uneven and the exact variance exceeds OLH's."""
    f = np.full(16, 1 / 16)
    small = ldp.get_mechanism("flh", 1.0, 16, pool=20)
    large = ldp.get_mechanism("flh", 1.0, 16)
    assert small.variance(f, 1000).mean() > 1.1 * large.variance(f, 1000).mean()


@pytest.mark.parametrize("epsilon,pool,d", [(0.3, 64, 4), (1.0, 64, 8), (2.5, 32, 6), (1.0, 200, 3)])
def test_epsilon_ldp_at_the_boundary_on_the_pools_channel(epsilon, pool, d):
    mech = ldp.get_mechanism("flh", epsilon, d, pool=pool)
    matrix, labels = mech.channel(max_outputs=20000)
    assert matrix.shape == (d, pool * mech.g) and len(labels) == pool * mech.g
    np.testing.assert_allclose(matrix.sum(axis=1), 1.0)
    loss = mech.privacy_loss(max_outputs=20000)
    assert epsilon * (1 - 1e-9) < loss <= epsilon + 1e-12


def test_the_pools_channel_is_inverted_exactly_where_the_papers_estimate_is_biased():
    mech = ldp.get_mechanism("flh", 1.0, 16)
    counts = np.array([5000, 3000, 2000, 1000] + [250] * 12)
    n = int(counts.sum())
    expected = mech.expected_aggregate(counts)
    np.testing.assert_allclose(mech.invert(expected, n), counts / n, atol=1e-12)
    bias = np.abs(mech.paper_estimate(expected, n) - counts / n).max()
    assert 1e-3 < bias < 2e-2  # O(1/√k'): small, yet many standard errors of a repeated collection


def test_support_counting_agrees_with_reading_each_report():
    mech = ldp.get_mechanism("flh", 1.0, 12, pool=300)
    rng = np.random.default_rng(3)
    reports = mech.perturb(rng.integers(0, 12, 5000), rng)
    counts = mech.support_counts(reports)
    direct = [int(mech.report_supports(reports, v).sum()) for v in range(12)]
    np.testing.assert_array_equal(counts, direct)
    # the sparse path (many distinct (j, y) cells) gives the same counts
    big = ldp.get_mechanism("flh", 6.0, 12, pool=300)
    rep = big.perturb(rng.integers(0, 12, 500), rng)
    np.testing.assert_array_equal(big.support_counts(rep), [int(big.report_supports(rep, v).sum())
                                                             for v in range(12)])


def test_the_pool_is_the_libraries_xxh32_hash_matrix():
    """pure-LDP's FastLHServer: matrix[i][j] = xxhash.xxh32(str(j), seed=i).intdigest() % g."""
    h = pool_hash_matrix(50, 20, 5)
    want = xxh32_decimal(np.arange(20)[None, :], np.arange(50)[:, None]) % 5
    np.testing.assert_array_equal(h, want)
    assert not h.flags.writeable


def test_a_pool_too_small_for_the_domain_is_refused():
    mech = ldp.get_mechanism("flh", 1.0, 64, pool=1, g=2)
    with pytest.raises(ldp.LDPError, match="larger pool"):
        mech.estimate(np.zeros(64), 10)
