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


# --------------------------------------------------------------------------- intervals that hold at small counts
def test_count_distribution_is_the_convolution_of_two_binomials():
    from scipy.stats import binom

    from ldp.evaluation.uncertainty import _count_cdf

    rng = np.random.default_rng(0)
    n, p, q = 300, 0.6, 0.05
    m = rng.integers(0, n + 1, size=40).astype(float)
    c = rng.integers(-2, n + 2, size=40).astype(float)
    brute = [(binom.pmf(np.arange(int(mm) + 1), mm, p) * binom.cdf(cc - np.arange(int(mm) + 1), n - mm, q)).sum()
             for mm, cc in zip(m, c, strict=True)]
    np.testing.assert_allclose(_count_cdf(c, m, n, p, q), brute, atol=1e-12)


@pytest.mark.parametrize(("name", "epsilon", "n"), [("grr", 6.0, 60), ("oue", 1.0, 80), ("olh", 2.0, 50)])
def test_exact_intervals_cover_every_possible_count_at_least_at_their_level(name, epsilon, n):
    """Deterministic, no simulation: for every true count m ∈ [0, n] the probability that the interval computed
    from the support count C ~ Bin(m, p*) + Bin(n − m, q*) contains m is Σ_c P(C = c | m)·1[m ∈ I(c)] — at least
    the level, for every m (test inversion with two one-sided tests at (1 − level)/2)."""
    from ldp.evaluation.uncertainty import _count_cdf, _exact_count_bounds

    mech = ldp.get_mechanism(name, epsilon, 8)
    p, q = mech.p_star, mech.q_star
    level = 0.9
    c = np.arange(n + 1, dtype=float)
    lo, hi = _exact_count_bounds(c, c, np.full(c.shape, float(n)), n, p, q, (1 - level) / 2)
    for m in range(n + 1):
        mm = np.full(n + 1, float(m))
        pmf = _count_cdf(c, mm, n, p, q) - _count_cdf(c - 1, mm, n, p, q)
        assert pmf[(lo <= m) & (m <= hi)].sum() >= level - 1e-9, m


def test_simultaneous_band_holds_where_the_normal_band_did_not():
    """GRR at ε = 6, d = 200, n = 2,000: expected noise support n·q* ≈ 3, far from normal. Over 200 collections the
    exact + Bonferroni band must cover every value at once in ≥ 95 % of them (guaranteed; checked to 3 binomial SEs:
    ≥ 0.95 − 3·√(0.95·0.05/200) = 0.904), where the Gaussian Šidák band covered ~82 %."""
    from ldp.evaluation.uncertainty import frequency_intervals

    d, n, trials = 200, 2000, 200
    mech = ldp.get_mechanism("grr", 6.0, d)
    rng = np.random.default_rng(11)
    counts = rng.multinomial(n, rng.dirichlet(np.ones(d)))
    truth = counts / n
    band = normal = 0
    for _ in range(trials):
        agg = ldp.run_fast(mech, counts, rng)
        iv = frequency_intervals(mech, agg.counts, n, 0.95, simultaneous=True)
        band += bool(iv.covers(truth).all())
        est = mech.estimate(agg.counts, n).values
        normal += bool(np.all(np.abs(est - truth) <= simultaneous_halfwidth(mech.variance(truth, n), 0.95)))
        assert iv.exact_share == 1.0 and iv.simultaneous
    assert band / trials >= 0.904
    assert normal / trials < 0.9  # the old band (why this exists)


def test_large_counts_use_the_normal_interval_at_the_estimate():
    from ldp.evaluation.uncertainty import EXACT_COUNT_VARIANCE, frequency_intervals

    mech = ldp.get_mechanism("oue", 1.0, 16)
    n = 1_000_000
    agg = ldp.run_fast(mech, np.full(16, n // 16), np.random.default_rng(0))
    iv = frequency_intervals(mech, agg.counts, n, 0.95)
    q = mech.q_star
    assert n * q * (1 - q) > EXACT_COUNT_VARIANCE and set(iv.method) == {"normal"}
    est = mech.estimate(agg.counts, n).values
    half = z_value(0.95) * np.sqrt(mech.variance(np.clip(est, 0, 1), n))
    np.testing.assert_allclose(iv.low, est - half)
    np.testing.assert_allclose(iv.high, est + half)


def test_a_mechanism_that_is_not_pure_gets_normal_intervals_and_says_so():
    from ldp.evaluation.uncertainty import frequency_intervals

    mech = ldp.get_mechanism("she", 1.0, 8)
    agg = ldp.run_fast(mech, np.full(8, 500), np.random.default_rng(0))
    iv = frequency_intervals(mech, agg.counts, 4000, 0.95, simultaneous=True)
    assert set(iv.method) == {"normal"} and any("not pure" in note for note in iv.notes)
    with pytest.raises(ldp.LDPError):
        frequency_intervals(mech, agg.counts, 4000, 1.5)


def test_frequency_intervals_refuse_bad_counts_with_one_reason():
    from ldp.evaluation.uncertainty import frequency_intervals

    mech = ldp.get_mechanism("grr", 1.0, 4)
    for counts, n, match in [(np.ones(3), 10, "length d=4"), (np.array([1, np.nan, 1, 1]), 10, "finite"),
                             (np.array([1, 20, 1, 1]), 10, "within"), (np.ones(4), 0, "n"),
                             (np.array(["a"] * 4), 10, "numbers")]:
        with pytest.raises(ldp.LDPError, match=match):
            frequency_intervals(mech, counts, n)


@pytest.mark.parametrize("name", ["grr", "oue", "olh"])
def test_intervals_from_the_mi_estimate_equal_those_from_the_counts(name):
    """The Playground keeps MI estimates, not counts: inverting Eq. (1) back to integer counts must give the very
    intervals (and band) that the counts give."""
    from ldp.evaluation.uncertainty import estimate_intervals, frequency_intervals
    mech = ldp.get_mechanism(name, 6.0 if name == "grr" else 1.0, 50)
    truth = np.random.default_rng(0).multinomial(3000, np.full(50, 1 / 50))
    agg = mech.sample_aggregate(truth, np.random.default_rng(1))
    mi = mech.estimate(agg).values
    for simultaneous in (False, True):
        a = frequency_intervals(mech, agg.counts, agg.n, 0.9, simultaneous=simultaneous)
        b = estimate_intervals(mech, mi, agg.n, 0.9, simultaneous=simultaneous)
        np.testing.assert_allclose(b.low, a.low, atol=1e-12)
        np.testing.assert_allclose(b.high, a.high, atol=1e-12)
        assert list(b.method) == list(a.method)
    with pytest.raises(ldp.LDPError):
        estimate_intervals(mech, np.full(49, 0.02), agg.n)
