"""Apple's CMS and HCMS ("Learning with Privacy at Scale", 2017): the paper's variance (with its collision terms),
ε-LDP at the boundary, the sketch-size trade-off, and the fixed hashes' collision bias that the own estimate removes."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ldp
from ldp.mechanisms.frequency.count_mean_sketch import paper_variance, sketch_tradeoff


@pytest.mark.parametrize("name", ["cms", "hcms"])
@pytest.mark.parametrize("epsilon", [1.0, 2.0])
def test_exact_variance_of_a_wide_sketch_is_the_papers(name, epsilon):
    """k = 64 hashes into m = 1024 cells, d = 16 uniform values: the exact variance of the own estimate is within 2 %
    of the paper's random-hash variance (measured 0.989–0.996 ×)."""
    mech = ldp.get_mechanism(name, epsilon, 16, k=64, m=1024)
    n, f = 10_000, np.full(16, 1 / 16)
    ours = mech.variance(f, n)
    paper = paper_variance(name, epsilon, 64, 1024, n, f * n, f * n) / n**2
    np.testing.assert_allclose(ours, paper, rtol=0.02)


def test_the_papers_noise_terms():
    """No collisions (m → ∞): CMS's count variance is n(c_ε² − 1)/4 with c_ε = (e^{ε/2} + 1)/(e^{ε/2} − 1), HCMS's is
    n c'_ε² − n_v with c'_ε = (e^ε + 1)/(e^ε − 1)."""
    eps, n = 1.0, 1000
    c = (math.exp(eps / 2) + 1) / (math.exp(eps / 2) - 1)
    c2 = (math.exp(eps) + 1) / (math.exp(eps) - 1)
    big = 2**40
    assert paper_variance("cms", eps, 8, big, n, np.array([0.0]), None)[0] == pytest.approx(n * (c * c - 1) / 4)
    assert paper_variance("hcms", eps, 8, big, n, np.array([100.0]), None)[0] == pytest.approx(n * c2 * c2 - 100)


@pytest.mark.parametrize("name,epsilon,k,m,d", [("cms", 0.5, 4, 4, 4), ("cms", 2.0, 3, 5, 3),
                                                ("hcms", 0.5, 4, 8, 4), ("hcms", 3.0, 8, 16, 5)])
def test_epsilon_ldp_at_the_boundary(name, epsilon, k, m, d):
    mech = ldp.get_mechanism(name, epsilon, d, k=k, m=m)
    matrix, labels = mech.channel(max_outputs=20000)
    np.testing.assert_allclose(matrix.sum(axis=1), 1.0)
    loss = mech.privacy_loss(max_outputs=20000)
    assert epsilon * (1 - 1e-9) < loss <= epsilon + 1e-12


@pytest.mark.parametrize("name", ["cms", "hcms"])
def test_sketch_size_tradeoff_falls_then_flattens(name):
    """Fixed n and ε: the MSE against m falls while collisions dominate, then flattens at the noise floor (the
    paper's (m/(m − 1))² and 1/m collision terms vanish); it never rises in this model."""
    weights = 1 / np.arange(1, 1001) ** 1.1
    counts = np.floor(100_000 * weights / weights.sum())
    widths = [2, 4, 16, 64, 256, 1024, 4096, 16384]
    mse = sketch_tradeoff(name, 2.0, counts, widths, k=16)
    assert np.all(np.diff(mse) <= 1e-15)  # falls (never rises)
    assert mse[0] > 100 * mse[-1]  # collisions dominate a narrow sketch
    assert (mse[-2] - mse[-1]) / mse[-1] < 0.1  # flat beyond m ≈ 4d
    with pytest.raises(ldp.LDPError, match="widths"):
        sketch_tradeoff(name, 2.0, counts, [1])


@pytest.mark.parametrize("name", ["cms", "hcms"])
def test_fixed_hashes_bias_the_papers_estimate_not_ours(name):
    mech = ldp.get_mechanism(name, 2.0, 16, k=4, m=8)
    counts = np.array([4000, 2000, 1000] + [200] * 13)
    n = int(counts.sum())
    expected = mech.expected_aggregate(counts)
    np.testing.assert_allclose(mech.invert(expected, n), counts / n, atol=1e-12)
    assert np.abs(mech.paper_estimate(expected, n) - counts / n).max() > 0.01


def test_hcms_sketch_is_the_papers_transform_back():
    """M = M_H Hᵀ: one user's sketch has k·c'·(±1)·H[l, ·] in row j, and its expectation is CMS's."""
    cms = ldp.get_mechanism("cms", 1.0, 16, k=8, m=16)
    hcms = ldp.get_mechanism("hcms", 1.0, 16, k=8, m=16)
    counts = np.arange(16) * 10
    np.testing.assert_allclose(hcms._sketch(hcms.expected_aggregate(counts)),
                               cms._sketch(cms.expected_aggregate(counts)), atol=1e-9)


@pytest.mark.parametrize("name", ["cms", "hcms"])
def test_reports_round_trip_and_aggregate(name):
    mech = ldp.get_mechanism(name, 1.0, 10, k=4, m=8)
    rng = np.random.default_rng(1)
    reports = mech.perturb(rng.integers(0, 10, 200), rng)
    lines = list(mech.format_reports(reports))
    np.testing.assert_array_equal(mech.parse_reports(lines), reports)
    assert mech.aggregate(reports).counts.shape == (32,)


def test_a_hash_row_beyond_k_is_refused_even_with_one_row():
    """CMS with k = 1 checked every field against [0, 2) only: a report of row 1 passed and then failed with a bare
    IndexError in the counting. The row is checked against k itself (as HCMS does)."""
    mech = ldp.get_mechanism("cms", 1.0, 5, k=1, m=4)
    bad = np.zeros((2, 5), dtype=np.int64)
    bad[1, 0] = 1
    with pytest.raises(ldp.LDPError, match="hash row"):
        mech.aggregate(bad)
    assert mech.aggregate(np.zeros((2, 5), dtype=np.int64)).n == 2
