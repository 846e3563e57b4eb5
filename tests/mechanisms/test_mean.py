"""Mean mechanisms (§2.2) and the 50/50 variance split (§6.3): unbiasedness, closed-form variances, LDP, and the
mechanism protocol (a population of distinct values, the aggregate is the sum of the reports)."""

import math

import numpy as np
import pytest
from scipy import stats

import ldp
from ldp.mechanisms.mean import (
    HYPERGEOMETRIC_LIMIT,
    PiecewiseMechanism,
    StochasticRounding,
    estimate_variance,
    sample_variance_split,
)


@pytest.mark.parametrize("name", ["sr", "pm"])
@pytest.mark.parametrize("eps", [0.5, 1.0, 4.0])
@pytest.mark.parametrize("v0", [-1.0, -0.3, 0.0, 0.8, 1.0])
def test_per_user_unbiased_with_closed_form_variance(name, eps, v0):
    mech = ldp.get_mechanism(name, eps)
    rng = np.random.default_rng(11)
    n = 200_000
    rep = mech.perturb(np.full(n, v0), rng)
    lo, hi = mech.output_range
    assert np.all((rep >= lo) & (rep <= hi))
    var = float(mech.variance(v0))
    assert abs(rep.mean() - v0) < 5 * math.sqrt(var / n)
    # sample variance: s.e. ≈ sqrt((μ4 − σ⁴)/n); bounded by the output range: μ4 ≤ (2·hi)²·σ²
    se = math.sqrt(((2 * hi) ** 2 * var) / n)
    assert abs(rep.var() - var) < 5 * se


@pytest.mark.parametrize("name", ["laplace", "sr", "pm", "hm"])
def test_mean_estimate_over_trials(name):
    mech = ldp.get_mechanism(name, 1.0)
    rng = np.random.default_rng(2)
    values = np.clip(rng.normal(0.3, 0.3, 2000), -1, 1)
    est = np.array([mech.estimate_mean(mech.perturb(values, rng)) for _ in range(400)])
    v = mech.mean_variance(values)
    assert abs(est.mean() - values.mean()) < 5 * math.sqrt(v / 400)
    assert abs(est.var(ddof=1) / v - 1) < 5 * math.sqrt(2 / 399)


def test_sr_pm_crossover():
    """§6.2 / [33]: SR has the smaller worst-case variance for small ε, PM for large ε."""
    assert StochasticRounding(0.5).worst_case_variance() < PiecewiseMechanism(0.5).worst_case_variance()
    assert PiecewiseMechanism(4.0).worst_case_variance() < StochasticRounding(4.0).worst_case_variance()


@pytest.mark.parametrize("eps", [0.3, 1.0, 5.0])
def test_ldp(eps):
    pm = PiecewiseMechanism(eps)
    y = np.linspace(-pm.s, pm.s, 2001)
    dens = pm.density(y[:, None], np.linspace(-1, 1, 81)[None, :])
    assert dens.max() / dens.min() == pytest.approx(math.exp(eps), rel=1e-12)
    assert pm.privacy_loss() == pytest.approx(eps)
    # each density integrates to 1: p_high·(r − ℓ) + p_low·(2s − (r − ℓ))
    width = 2 / (pm.t - 1)
    assert pm.p_high * width + pm.p_low * (2 * pm.s - width) == pytest.approx(1.0)
    assert StochasticRounding(eps).privacy_loss() == pytest.approx(eps)


@pytest.mark.parametrize("name", ["sr", "pm"])
@pytest.mark.parametrize("method", ["centered", "moment"])
def test_variance_with_half_split(name, method):
    rng = np.random.default_rng(4)
    values = np.clip(rng.normal(0.2, 0.35, 4000), -1, 1)
    sigma2 = values.var()
    mech = ldp.get_mechanism(name, 2.0)
    res = [estimate_variance(mech, values, rng, method=method) for _ in range(300)]
    est = np.array([r["variance"] for r in res])
    assert res[0]["n_mean"] == 2000 and res[0]["n_variance"] == 2000
    # O(1/n) bias ±Var[μ̂] (μ̂ from 2000 users) plus 5 standard errors of the trial mean
    var_mu = mech.mean_variance(values[:2000])
    assert abs(est.mean() - sigma2) < 5 * est.std(ddof=1) / math.sqrt(300) + 2 * var_mu
    with pytest.raises(ldp.LDPError, match="method"):
        estimate_variance(mech, values, rng, method="xx")
    with pytest.raises(ldp.LDPError, match="two users"):
        estimate_variance(mech, values[:1], rng)
    with pytest.raises(ldp.LDPError, match="outside"):
        estimate_variance(mech, values + 2.0, rng)



@pytest.mark.parametrize(("name", "method"), [("sr", "centered"), ("sr", "moment"), ("pm", "centered")])
def test_fast_variance_split_has_the_exact_splits_mean_and_spread(name, method):
    """The fast engine's 50/50 split (a hypergeometric split of the counts, two fast aggregates) against the
    exact one (every client) on the same population: T = 400 estimates each."""
    mech = ldp.get_mechanism(name, 1.0)
    support, counts = np.array([-0.8, -0.1, 0.5, 0.9]), np.array([300, 500, 700, 500])
    values = np.repeat(support, counts)
    trials = 400
    fast_rng, exact_rng = np.random.default_rng(21), np.random.default_rng(22)
    fast = [sample_variance_split(mech, counts, support, fast_rng, method=method) for _ in range(trials)]
    exact = np.array([estimate_variance(mech, values, exact_rng, method=method)["variance"] for _ in range(trials)])
    est = np.array([r["variance"] for r in fast])
    assert {(r["n_mean"], r["n_variance"]) for r in fast} == {(1000, 1000)}
    # same mean: the difference of two independent means of T draws has sd √(s_f²/T + s_e²/T); 4 sd
    assert abs(est.mean() - exact.mean()) < 4 * math.sqrt((est.var(ddof=1) + exact.var(ddof=1)) / trials)
    # same spread: σ̂² is a sum of 1000 reports (near normal), so ln s has sd ≈ 1/√(2(T − 1)) and the log-ratio of
    # two independent sds 1/√(T − 1); 4 sd (a second half of n instead of n/2 users would give ln √2 ≈ 0.35)
    assert abs(math.log(est.std(ddof=1) / exact.std(ddof=1))) < 4 / math.sqrt(trials - 1)
    # and the theory: E[σ̂²] = σ² ± Var[μ̂] (μ̂ from the 1000 first-half users; + for centered, − for moment), within
    # 4 standard errors of the T-trial mean plus that O(1/n) term
    sigma2 = values.var()
    var_mu = float(counts @ mech.variance(support)) / values.size / 1000
    assert abs(est.mean() - sigma2) < 4 * est.std(ddof=1) / math.sqrt(trials) + 2 * var_mu


def test_fast_variance_split_inputs_and_very_large_populations():
    mech = ldp.get_mechanism("sr", 1.0)
    rng = np.random.default_rng(0)
    support = np.array([-0.5, 0.5])
    with pytest.raises(ldp.LDPError, match="method"):
        sample_variance_split(mech, [10, 10], support, rng, method="xx")
    with pytest.raises(ldp.LDPError, match="two users"):
        sample_variance_split(mech, [1, 0], support, rng)
    with pytest.raises(ldp.LDPError, match="non-negative"):
        sample_variance_split(mech, [-1, 5], support, rng)
    with pytest.raises(ldp.LDPError, match="support"):
        sample_variance_split(mech, [5, 5], support + 1.0, rng)
    # beyond numpy's hypergeometric limit each user joins the first half with probability ½: halves n/2 ± √n/2
    counts = np.array([HYPERGEOMETRIC_LIMIT // 2, HYPERGEOMETRIC_LIMIT // 2 + 2])
    res = sample_variance_split(mech, counts, support, rng)
    n = int(counts.sum())
    assert res["n_mean"] + res["n_variance"] == n and abs(res["n_mean"] - n / 2) < 5 * math.sqrt(n) / 2
    # σ² = 0.25 here; σ̂²'s sd ≈ 2·√(Var[ṽ]/(n/2)) ≈ 3·10⁻⁴ at ε = 1: within 5 sd (+ Var[μ̂], negligible)
    assert abs(res["variance"] - 0.25) < 5 * 2 * math.sqrt(float(mech.worst_case_variance()) / (n / 2))


# --------------------------------------------------------------------------- the mechanism protocol
@pytest.mark.parametrize("name", ["sr", "pm"])
def test_registered_as_mean_mechanisms(name):
    mech = ldp.get_mechanism(name, 1.0)
    assert mech.kind == "mean" and mech.d == 1 and mech.input_kind == "signed"
    assert mech.default_estimator == "average" and mech.statistic_size() == 1
    # the lecture's order, then 1BitMean (SR with a 0/1 report)
    assert [cls.name for cls in ldp.mechanisms_of("mean")] == ["laplace", "sr", "pm", "hm", "1bitmean", "gaussian",
                                                                   "gaussian-bits"]
    values = np.array([-1.0, -0.5, 0.0, 0.25, 1.0])
    reports = mech.perturb(values, np.random.default_rng(0))
    agg = mech.aggregate(reports)
    assert agg.n == 5 and agg.counts.tolist() == [pytest.approx(reports.sum())]
    est = mech.estimate(agg)
    assert est.estimator == "average" and est.values.tolist() == [pytest.approx(reports.mean())]
    assert mech.estimate_mean(reports) == pytest.approx(reports.mean())
    np.testing.assert_array_equal(ldp.get_estimator("average").estimate(mech, agg).values, est.values)
    # a population is users per distinct value, with the values as support
    support, counts = np.array([-0.5, 0.5]), np.array([30, 10])
    np.testing.assert_allclose(mech.true_values(counts, support), [-0.25])
    assert mech.expected_aggregate(counts, support).tolist() == [pytest.approx(-10.0)]
    np.testing.assert_allclose(mech.aggregate_variance(counts, support), counts @ mech.variance(support))
    np.testing.assert_allclose(mech.estimate_variance(counts, support), counts @ mech.variance(support) / 40**2)
    assert mech.mean_variance(np.repeat(support, counts)) == pytest.approx(float(mech.estimate_variance(counts,
                                                                                                      support)[0]))


def test_sr_fast_engine_is_exact_in_distribution():
    """SR's fast engine draws the number of +1 reports per distinct value (binomial): the sum takes the same
    values, with the same law, as the exact engine's — compared by a two-sample chi-square on the +1 counts."""
    mech = ldp.get_mechanism("sr", 1.0)
    assert mech.fast_engine_exact
    support, counts = np.array([-0.8, 0.1, 0.6]), np.array([40, 25, 35])
    rng = np.random.default_rng(5)
    trials = 3000

    def plus_counts(engine):
        sums = np.array([ldp.collect(mech, counts, rng, engine, support=support).counts[0] for _ in range(trials)])
        return np.rint((sums / mech.scale + counts.sum()) / 2).astype(int)  # number of +1 reports

    fast, exact = plus_counts("fast"), plus_counts("exact")
    bins = np.arange(min(fast.min(), exact.min()), max(fast.max(), exact.max()) + 2)
    table = np.array([np.histogram(fast, bins)[0], np.histogram(exact, bins)[0]])
    table = table[:, table.sum(axis=0) >= 10]  # cells with enough counts for the chi-square approximation
    assert stats.chi2_contingency(table)[1] > 1e-6


def test_pm_fast_engine_is_gaussian_with_the_exact_moments():
    mech = ldp.get_mechanism("pm", 2.0)
    assert not mech.fast_engine_exact and "Gaussian" in mech.fast_engine_note
    support, counts = np.array([-0.5, 0.9]), np.array([300, 700])
    rng = np.random.default_rng(6)
    sums = np.array([mech.sample_aggregate(counts, rng, support).counts[0] for _ in range(4000)])
    mean, var = float(counts @ support), float(counts @ mech.variance(support))
    assert abs(sums.mean() - mean) < 5 * math.sqrt(var / sums.size)
    assert abs(sums.var(ddof=1) / var - 1) < 5 * math.sqrt(2 / (sums.size - 1))


# --------------------------------------------------------------------------- Laplace and the Hybrid Mechanism
@pytest.mark.parametrize("epsilon", [0.2, 0.61, 0.62, 1.0, 3.0, 8.0])
def test_hybrid_mechanism_variance_is_the_papers_worst_case(epsilon):
    """Wang et al. (ICDE'19) §III-C: above ε* the HM variance is constant in v and equals
    (t + 3)/(3t(t − 1)) + ((e^ε + 1)/(e^ε − 1))²/t with t = e^{ε/2}; below it HM is SR. It is never worse than PM or
    SR in the worst case."""
    hm, pm, sr = (ldp.get_mechanism(n, epsilon) for n in ("hm", "pm", "sr"))
    v = np.linspace(-1, 1, 9)
    if epsilon > 0.61:
        t = math.exp(epsilon / 2)
        closed = (t + 3) / (3 * t * (t - 1)) + ((math.exp(epsilon) + 1) / (math.exp(epsilon) - 1)) ** 2 / t
        np.testing.assert_allclose(hm.variance(v), closed, rtol=1e-12)
        assert hm.alpha == pytest.approx(1 - math.exp(-epsilon / 2))
    else:
        assert hm.alpha == 0.0
        np.testing.assert_allclose(hm.variance(v), sr.variance(v))
    assert hm.worst_case_variance() <= min(pm.worst_case_variance(), sr.worst_case_variance()) * (1 + 1e-12)


def test_laplace_variance_and_grid():
    mech = ldp.get_mechanism("laplace", 0.5)
    assert mech.variance(np.array([0.0, 1.0])).tolist() == [2 * (2 / 0.5) ** 2] * 2  # 8/ε²
    reports = mech.perturb(np.zeros(10_000), np.random.default_rng(0))
    assert mech.output_grid.contains(reports).all()  # no floating-point side channel (Mironov)
    lo, hi = mech.output_range
    assert lo == -hi and hi >= 1 + 40 * mech.b


# --------------------------------------------------------------------------- the Gaussian (ε, δ) mechanisms
def test_gaussian_mean_is_epsilon_delta_with_the_analytic_sigma():
    """σ is the analytic Gaussian mechanism's at Δ = 2 (7.4613 at ε = 1, δ = 1e-5); δ is a parameter shown in
    ``params``; the variance is σ² for every value; the reports sit on the grid (no floating-point side channel)."""
    mech = ldp.get_mechanism("gaussian", 1.0)
    assert mech.params == {"delta": 1e-5} and mech.delta == 1e-5
    assert mech.sigma == pytest.approx(7.4613, abs=1e-4)
    assert mech.variance(np.array([-1.0, 0.0, 1.0])).tolist() == [mech.sigma ** 2] * 3
    assert mech.privacy_profile(1.0) == pytest.approx(1e-5, rel=1e-9) and mech.privacy_loss() == math.inf
    reports = mech.perturb(np.zeros(5000), np.random.default_rng(0))
    assert mech.output_grid.contains(reports).all()
    looser = ldp.get_mechanism("gaussian", 1.0, delta=1e-2)
    assert looser.sigma < mech.sigma  # a larger δ buys less noise


@pytest.mark.parametrize("bins", [2, 3, 5])
def test_noise_on_bits_variance_and_its_cost(bins):
    """Var[ṽ | v] = (g_{i+1} − v)(v − g_i) + σ²(√2)·Σ g_j²; with two bins it is 1 − v² + 2σ²(√2), which is the
    Gaussian's σ²(2) plus 1 − v² (σ scales with Δ: σ(2) = √2·σ(√2)): never better than the plain Gaussian."""
    bits = ldp.get_mechanism("gaussian-bits", 1.0, bins=bins)
    plain = ldp.get_mechanism("gaussian", 1.0)
    g = np.linspace(-1, 1, bins)
    v = np.linspace(-1, 1, 17)
    i = np.minimum(np.floor((v + 1) / (2 / (bins - 1))), bins - 2).astype(int)
    np.testing.assert_allclose(bits.variance(v), (g[i + 1] - v) * (v - g[i]) + bits.sigma ** 2 * (g @ g), rtol=1e-12)
    assert bits.sigma * math.sqrt(2) == pytest.approx(plain.sigma, rel=1e-9)
    if bins == 2:
        np.testing.assert_allclose(bits.variance(v), 1 - v * v + plain.sigma ** 2, rtol=1e-12)
    assert np.all(bits.variance(v) >= plain.variance(v) * (1 - 1e-12))
    reports = bits.perturb(v, np.random.default_rng(1))
    assert reports.shape == (v.size, bins)
    assert bits.parse_reports(list(bits.format_reports(reports))).tolist() == reports.tolist()


def test_branch_free_select_is_np_where_bit_for_bit():
    """PM chooses its report with a select on the bits (no branch per element): it must be np.where exactly, for
    signed zeros, infinities, NaN payloads and subnormals too."""
    from ldp.mechanisms.mean import _select

    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -1.5, 2.0 ** 1000])
    rng = np.random.default_rng(7)
    a = np.concatenate([special, rng.normal(size=1000)])
    b = np.concatenate([special[::-1], rng.normal(size=1000)])
    cond = np.concatenate([[True, False] * 4, rng.random(1000) < 0.5])
    assert np.array_equal(_select(cond, a, b).view(np.int64), np.where(cond, a, b).view(np.int64))
