"""RAPPOR (Erlingsson, Pihur, Korolova, CCS 2014): the paper's privacy formulas, the exact channel at the boundary,
the reduction to (L-)SUE, the memoized permanent response, unbiased OLS decoding with the closed-form variance and
the paper's Bonferroni significance test."""

from __future__ import annotations

import math

import numpy as np
import pytest
from ldp_test_support import assert_ldp_error
from scipy import stats

import ldp
from ldp.mechanisms.base import channel_privacy_loss
from ldp.mechanisms.frequency.rappor import RAPPOR, rappor_bit_probabilities, rappor_epsilons
from ldp.mechanisms.frequency.unary import sue_probabilities

PAPER_EPS_INF = 4 * math.log(3)  # f = 0.5, h = 2: ε∞ = 2h·ln((1 − f/2)/(f/2)) = 4 ln 3


def rappor(epsilon: float, d: int, **params) -> RAPPOR:
    return ldp.get_mechanism("rappor", epsilon, d, **params)


# ------------------------------------------------------------------------------------------------ privacy formulas
def test_paper_parameters_give_the_papers_epsilons():
    """The paper's running example f = 0.5, p = 0.5, q = 0.75, h = 2: q* = ½·0.5·1.25 + 0.5·0.75 = 0.6875,
    p* = 0.3125 + 0.25 = 0.5625, ε∞ = 4 ln 3 ≈ 4.39 and ε1 = 2 ln(0.6875·0.4375/(0.5625·0.3125)) ≈ 1.0743."""
    assert rappor_bit_probabilities(0.5, 0.5, 0.75) == (0.6875, 0.5625)
    eps_inf, eps_1 = rappor_epsilons(0.5, 0.5, 0.75, 2)
    assert eps_inf == pytest.approx(4.394449, abs=1e-6)
    assert eps_1 == pytest.approx(2 * math.log(0.6875 * 0.4375 / (0.5625 * 0.3125)), rel=1e-14)
    assert eps_1 == pytest.approx(1.074286, abs=1e-6)
    mech = rappor(PAPER_EPS_INF, 16)  # the constructor's ε is ε∞: it derives f
    assert mech.f == pytest.approx(0.5, rel=1e-14) and mech.q == 0.75 and mech.p == 0.5
    assert mech.bit_probabilities == pytest.approx((0.6875, 0.5625), rel=1e-14)
    assert mech.params["epsilon_1"] == pytest.approx(eps_1, rel=1e-14) and mech.epsilon_inf == PAPER_EPS_INF
    assert mech.paper_epsilons == pytest.approx((PAPER_EPS_INF, eps_1), rel=1e-14)
    # h = 1: the PRR of one bit is SUE at ε∞ (basic one-time RAPPOR)
    one = rappor(1.3, 8, h=1)
    assert (1 - one.f / 2, one.f / 2) == pytest.approx(sue_probabilities(1.3), rel=1e-14)


@pytest.mark.parametrize(("epsilon", "params"), [(PAPER_EPS_INF, {}), (1.0, {"epsilon_1": 0.4}),
                                                 (2.5, {"h": 1, "p": 0.25, "q": 0.9}), (0.3, {"h": 3, "k": 10})])
def test_exact_channel_spends_epsilon_1_at_the_boundary(epsilon, params):
    """One report's exact channel (cohort uniform, product of Bernoullis over its bits): its loss equals the
    closed form for these hashes and the paper's ε1 (values 0 and 1 have disjoint bits in some cohort here), and
    the memoized PRR's loss is ε∞."""
    mech = rappor(epsilon, 3, **{"k": 6, "m": 4, **params})
    matrix, labels = mech.channel(max_outputs=20000)
    assert matrix.shape == (3, mech.m * 2**mech.k) and len(labels) == matrix.shape[1]
    np.testing.assert_allclose(matrix.sum(axis=1), 1.0, atol=1e-12)
    loss = channel_privacy_loss(matrix)
    eps_1 = mech.params["epsilon_1"]
    assert loss == pytest.approx(mech.exact_privacy_loss(), rel=1e-12)
    assert loss == pytest.approx(eps_1, rel=1e-12) and loss <= eps_1 * (1 + 1e-12)
    assert loss == pytest.approx(mech.paper_epsilons[1], rel=1e-12)
    assert mech.first_step_privacy_loss() == pytest.approx(epsilon, rel=1e-12)
    if "epsilon_1" in params:
        assert eps_1 == params["epsilon_1"] and 0.5 < mech.q < 1


def test_overlapping_bloom_bits_spend_less_than_the_papers_bound():
    """k = 8, m = 4, d = 2: values 0 and 1 share a bit in every cohort, so the exact loss (the channel's) is below
    the paper's worst-case ε1 — and the closed form for these hashes still equals the channel's."""
    mech = rappor(2.0, 2, k=8, m=4)
    loss = channel_privacy_loss(mech.channel(max_outputs=20000)[0])
    assert loss == pytest.approx(mech.exact_privacy_loss(), rel=1e-12)
    assert loss < 0.99 * mech.params["epsilon_1"]


def test_epsilon_1_and_q_are_one_choice():
    mech = rappor(2.0, 8, epsilon_1=0.7)
    assert rappor_epsilons(mech.f, mech.p, mech.q, mech.h)[1] == pytest.approx(0.7, rel=1e-12)
    again = rappor(2.0, 8, **mech.params)  # the resolved parameters rebuild the same mechanism (report files)
    assert again == mech
    assert_ldp_error(lambda: rappor(2.0, 8, epsilon_1=0.7, q=0.75), "give one of them")
    assert_ldp_error(lambda: rappor(2.0, 8, epsilon_1=2.0), "smaller than epsilon")
    assert_ldp_error(lambda: rappor(2.0, 8, epsilon_1=1.99), "not reachable")
    assert_ldp_error(lambda: rappor(2.0, 8, p=0.8, q=0.75), "must exceed p")
    assert_ldp_error(lambda: rappor(2.0, 8, k=2, h=3), "at least as many Bloom bits")


# ------------------------------------------------------------------------------------------------ reductions
def test_one_hash_one_cohort_is_l_sue_on_the_hashed_bit():
    """h = 1, one cohort, p = 1 − q: per bit the chain is L-SUE's (SUE at ε∞ memoized, SUE re-drawn), so the
    report of v is L-SUE's report of the bit v hashes to (L-SUE on a domain of k values, the same ε∞ and ε1)."""
    lsue = ldp.get_mechanism("l-sue", 2.0, 8, epsilon_1=0.8)
    mech = rappor(2.0, 5, k=8, h=1, m=1, p=lsue.q2, q=lsue.p2)
    assert mech.params["epsilon_1"] == pytest.approx(0.8, rel=1e-9)
    assert mech.bit_probabilities == pytest.approx((lsue.p_star, lsue.q_star), rel=1e-12)
    ours, our_labels = mech.channel()
    theirs, their_labels = lsue.channel()
    columns = [their_labels.index(label.replace(" ", "")[1:]) for label in our_labels]  # "0 b₁ … b_k" → "b₁…b_k"
    for v in range(mech.d):
        bit = int(mech.hash_positions()[0, 0, v])
        np.testing.assert_allclose(ours[v], theirs[bit, columns], rtol=1e-12)


# ------------------------------------------------------------------------------------------------ memoization
def test_rounds_reuse_one_memoized_permanent_response():
    """Over τ = 200 reports of one user each bit's mean is near q where the memoized B'_i = 1 and near p where it
    is 0 (the two are 0.25 apart, 7 binomial sd at τ = 200), so classifying by (p + q)/2 reads B' off: the bits of
    the user's Bloom filter show B' = 1 in a fraction 1 − f/2 = 0.75, the others f/2 = 0.25. Without memoization
    every mean would sit at q* = 0.6875 or p* = 0.5625 and the fractions would be near 1 and 0. 500 users × 16
    bits: each fraction has sd ≤ √(0.1875/1000) ≈ 0.014 (about 1000 and 7000 bits); 5 sd ≈ 0.07."""
    mech = rappor(PAPER_EPS_INF, 8, k=16, m=4)
    rng = np.random.default_rng(11)
    values = rng.integers(0, 8, 500)
    reports = mech.perturb_rounds(values, 200, rng)
    assert reports.shape == (200, 500, 17)
    assert np.all(reports[:, :, 0] == reports[0, :, 0])  # one cohort per user
    bloom = mech.bloom_filters(values, reports[0, :, 0])
    permanent = reports[:, :, 1:].mean(axis=0) > (mech.p + mech.q) / 2
    assert permanent[bloom].mean() == pytest.approx(1 - mech.f / 2, abs=0.07)
    assert permanent[~bloom].mean() == pytest.approx(mech.f / 2, abs=0.07)
    assert_ldp_error(lambda: mech.perturb_rounds(values, 0, rng), "rounds")


# ------------------------------------------------------------------------------------------------ decoding
def test_decoded_frequencies_are_unbiased_with_the_closed_form_variance():
    """R = 400 fast collections of a small domain (d = 6, k = 16, m = 4, n = 5000): every mean estimate within
    5 sd (σ_v/√R, σ_v² the closed form) of the truth, and every sample variance inside the χ²(R − 1) interval of
    level 10⁻⁶/d (the estimates are linear in a sum of n independent users: Gaussian to O(1/n))."""
    mech = rappor(1.5, 6, k=16, m=4)
    counts = np.array([2000, 1200, 800, 600, 400, 0])
    n, trials = int(counts.sum()), 400
    rng = np.random.default_rng(7)
    est = np.stack([mech.estimate(mech.sample_aggregate(counts, rng)).values for _ in range(trials)])
    truth = counts / n
    sigma2 = mech.variance(truth, n)
    np.testing.assert_allclose(sigma2, mech.estimate_variance(counts), rtol=1e-12)
    z = (est.mean(axis=0) - truth) / np.sqrt(sigma2 / trials)
    assert np.abs(z).max() < 5, z
    low, high = stats.chi2.ppf([0.5e-6 / 6, 1 - 0.5e-6 / 6], trials - 1) / (trials - 1)
    ratio = est.var(axis=0, ddof=1) / sigma2
    assert np.all((ratio > low) & (ratio < high)), ratio


def test_the_scalar_variance_is_a_value_among_uniform_others():
    """variance(f, n) for one frequency: a value of frequency f, the other d − 1 sharing 1 − f, averaged over
    which value it is — the vector formula evaluated on those populations."""
    mech = rappor(1.0, 5, k=8, m=4)
    d, n, f = 5, 1000, 0.3
    rows = [np.full(d, (1 - f) / (d - 1)) for _ in range(d)]
    for u, row in enumerate(rows):
        row[u] = f
    expected = np.mean([mech.variance(row, n)[u] for u, row in enumerate(rows)])
    assert float(mech.variance(f, n)) == pytest.approx(expected, rel=1e-12)
    assert mech.approximate_variance(n) == pytest.approx(float(mech.variance(0.0, n)), rel=1e-15)
    assert mech.approximate_variance(n) > 0


def test_significance_test_finds_the_heavy_values_and_keeps_its_level():
    """Zipf(1.1) over the first 8 of d = 32 candidates, n = 20,000, the paper's f, p, q (ε∞ = 4 ln 3), k = 32,
    m = 16, R = 300 collections. The top three (frequencies ≥ 0.119, standard error ≈ 0.021: z ≥ 5.7 against the
    one-sided Bonferroni threshold t ≈ 2.95) are detected in ≥ 95 % of collections (power Φ(2.7) ≈ 0.997). The 24
    absent candidates are each flagged with probability α/d under the t approximation, so some absent one in at
    most 24·0.05/32 = 0.0375 of the collections: Binomial(300, 0.0375) has mean 11.3, sd 3.3, and we allow 5 sd above
    (28); without the Bonferroni correction the rate would be about 1 − 0.95²⁴ ≈ 0.71."""
    d, n, trials = 32, 20_000, 300
    weights = 1 / np.arange(1, 9) ** 1.1
    counts = np.zeros(d, dtype=np.int64)
    counts[:8] = np.floor(n * weights / weights.sum())
    counts[0] += n - counts.sum()
    mech = rappor(PAPER_EPS_INF, d, k=32, m=16)
    rng = np.random.default_rng(2014)
    hits = np.zeros(d)
    false_trials = 0
    for _ in range(trials):
        est = mech.estimate(mech.sample_aggregate(counts, rng))
        detected = np.asarray(est.diagnostics["detected"], dtype=np.int64)
        hits[detected] += 1
        false_trials += bool(np.any(detected >= 8))
    assert np.all(hits[:3] >= 0.95 * trials), hits[:3]
    assert false_trials <= 28, false_trials
    dec = mech.decode(mech.sample_aggregate(counts, rng))
    assert dec.residual_dof == 32 * 16 - d and dec.alpha == 0.05
    assert set(dec.detected) == {int(v) for v in np.flatnonzero(dec.p_values < 0.05 / d)}
    np.testing.assert_allclose(dec.frequencies, dec.counts / n, rtol=1e-15)
    with pytest.raises(ValueError):
        dec.p_values[0] = 0.0  # frozen


def test_decoding_refuses_a_design_that_cannot_tell_the_values_apart():
    assert_ldp_error(lambda: rappor(1.0, 40, k=8, m=4), "needs d < m·k")  # 32 bit counts for 40 candidates
    # h = 1, k = 2: each cohort's two rows sum to one in every column, so rank X ≤ 1 + m = 4 < d = 5
    mech = rappor(1.0, 5, k=2, h=1, m=3)
    agg = mech.sample_aggregate(np.full(5, 10), np.random.default_rng(0))
    assert_ldp_error(lambda: mech.estimate(agg), "cannot tell 5 values apart")
    assert_ldp_error(lambda: mech.variance(np.full(5, 0.2), 50), "cannot tell 5 values apart")


def test_reports_round_trip_and_aggregate_by_cohort():
    mech = rappor(1.0, 6, k=8, m=3)
    rng = np.random.default_rng(5)
    values = rng.integers(0, 6, 300)
    reports = mech.perturb(values, rng)
    assert reports.shape == (300, 9)
    lines = list(mech.format_reports(reports))
    np.testing.assert_array_equal(mech.parse_reports(lines), reports)
    stat = mech.aggregate(reports).counts.reshape(3, 9)
    for j in range(3):
        mine = reports[reports[:, 0] == j]
        np.testing.assert_array_equal(stat[j], np.append(mine[:, 1:].sum(axis=0), mine.shape[0]))
    assert_ldp_error(lambda: mech.aggregate(np.zeros((2, 8), dtype=int)), "k \\+ 1")
    assert_ldp_error(lambda: mech.aggregate(np.full((2, 9), 3)), "0 or 1|out of range")
    assert "Cohort" in mech.explain_report(lines[0])


def test_a_report_supports_a_value_when_all_its_bloom_bits_are_set():
    """The Bloom membership query (the audit's "support" events): a holder of v has all of v's h bits set with
    probability q*^h (h distinct bits); 20,000 reports give sd ≤ 0.0035, 5 sd ≈ 0.018."""
    mech = rappor(PAPER_EPS_INF, 8, k=64, m=1)
    assert len(set(mech.hash_positions()[0, :, 0].tolist())) == 2  # value 0 sets two distinct bits
    reports = mech.perturb(np.zeros(20_000, dtype=np.int64), np.random.default_rng(3))
    supports = mech.report_supports(reports, 0)
    assert supports.mean() == pytest.approx(mech.bit_probabilities[0] ** 2, abs=0.018)
    own = mech.hash_positions()[0, :, 0]
    np.testing.assert_array_equal(supports, np.all(reports[:, 1 + own] == 1, axis=1))


def test_a_cohort_beyond_m_is_refused_even_with_one_cohort():
    """With m = 1 every field was checked against [0, 2) only, so a report of cohort 1 passed and then failed with a
    bare IndexError in the counting: the cohort is checked against m itself."""
    mech = rappor(PAPER_EPS_INF, 8, k=16, m=1)
    bad = np.zeros((2, 17), dtype=np.int64)
    bad[1, 0] = 1
    assert_ldp_error(lambda: mech.aggregate(bad), "cohort")
    assert mech.aggregate(np.zeros((2, 17), dtype=np.int64)).n == 2
