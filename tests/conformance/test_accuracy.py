"""Accuracy conformance for every mechanism of every kind, on both engines (generated over the registry).

The aggregate. Every mechanism states the mean and the variance of every entry of its aggregate in closed form
(``expected_aggregate``, ``aggregate_variance``; a missing hook fails, it is never skipped). Over R independent
collections of a Zipf population (d = 16 cells, n = 20,000 users, ε = 1):

- mean: the sample mean of entry v has standard deviation σ_v/√R, so z_v = (mean − E)/(σ_v/√R) is standard normal
  (CLT: every entry is a sum of n independent per-user terms) and we require |z_v| < 5 for every v (two-sided 5σ:
  P < 5.7·10⁻⁷ per entry, < 3·10⁻⁵ for the largest aggregate here under Bonferroni). Entries of variance 0 must
  equal their expectation.
- variance: (R − 1)s²_v/σ²_v is χ²(R − 1) for Gaussian entries; non-Gaussian entries add their excess kurtosis
  κ_v/R to the relative variance of s²_v, and κ_v = O(1/n) for a sum of n bounded (or Laplace) per-user terms, so
  at n = 20,000 the χ² law holds to better than 10⁻³. We require every (R − 1)s²_v/σ²_v inside the two-sided
  χ²(R − 1) interval of level 10⁻⁶/k (k entries: Bonferroni, family-wise 10⁻⁶). R = 1000 on the fast engine
  (s²/σ² within about ±25 %) and R = 100 on the exact engine (about 0.45–1.9: it catches a variance formula off
  by a factor of two, the fast engine the finer errors).

The fast engine keeps what it promises (``fast_engine_exact`` / ``fast_engine_note``, the case's ``fast`` fact):
- "distribution": at n = 3 users (where no central limit hides a wrong law) R = 1000 fast draws and R = 1000
  exact-engine draws have the same law: a χ² test of homogeneity on the joint value of the aggregate (categories
  with fewer than 10 draws in both samples pooled) when it is discrete, two-sample Kolmogorov–Smirnov tests on
  every entry and on the three projections below when it is continuous (SHE); each test at level 10⁻⁶/#tests.
- "marginals": the same tests entry by entry.
- "moments": mean and variance (above).
- the covariance, wherever promised (every mechanism but Carter–Wegman local hashing, whose note says its
  independent binomials leave out the negative correlation of the counts): for three fixed projections w (all
  ones, alternating signs, a fixed Gaussian vector), Var[w·A] on the fast engine (R = 1000) and on the exact
  engine (R = 100) agree by a two-sided F test at level 10⁻⁶/3; a projection that is constant on the exact
  engine (e.g. SS's total, n·ω) must be constant on the fast engine too.

The estimate. Where the mechanism's own estimate has a closed-form variance (``estimate_variance``: frequency
oracles' matrix inversion, mean mechanisms' average) the estimates of the same R collections are unbiased
(|z| < 5 per entry, as above) and their mean squared error matches theory: the per-trial MSE is (1/d) Σ e_v² with
e_v ≈ N(0, σ_v²) nearly independent across v (cross-correlations are O(1/d)), so its mean over R trials has
sd ≈ √(2 Σ σ_v⁴)/(d √R); we require the empirical mean MSE within 5 such sd (×1.25 for the Gaussian
approximation and the O(1/d) correlations) of the theory. Numerical mechanisms' reconstructions are biased and
declare ``estimate_variance = False``; the suite checks that declaration.

Seeds are fixed and named by (case, engine) (``ldp.core.streams.rng_for``), so the checks do not flake; that they
do not pass vacuously was measured by running them against deliberately wrong closed forms (all 31 configurations):
an aggregate variance ×1.3 fails the fast-engine variance check everywhere (the exact engine's R = 100 catches ×2 in
25 and ×½ in 30 of 31), an expected aggregate ×1.01 fails the fast-engine mean check everywhere (exact: 26 of 31),
an estimate variance ×1.3 or ×0.7 fails the MSE check for every frequency oracle on both engines (not for the mean
mechanisms, whose single entry gives the MSE check little power at R = 100–1000); a moment-matched Gaussian or
Poisson sampler in place of SW's, GW's or the unary encodings' exact one fails the law check with p < 10⁻¹¹ (R = 1000).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from ldp_test_support import Case, parametrize_with_checks, support_values
from scipy import stats

import ldp
from ldp.core.streams import rng_for

D = 16
N = 20_000
EPSILON = 1.0
TRIALS = {"fast": 1000, "exact": 100}
SMALL = np.array([2, 1, 0, 0])  # n = 3 users on d = 4 cells: the fast engine's law, before any CLT
SMALL_TRIALS = 1000
Z_LIMIT = 5.0
FAMILY_ALPHA = 1e-6
SEED = 20261121


def population(d: int = D, n: int = N) -> np.ndarray:
    """Zipf(1.1) counts of n users over d cells (the first cell takes the rounding remainder)."""
    weights = 1.0 / np.arange(1, d + 1) ** 1.1
    counts = np.floor(n * weights / weights.sum()).astype(np.int64)
    counts[0] += n - counts.sum()
    return counts


@functools.cache
def aggregate_draws(case: Case, engine: str) -> tuple[Any, np.ndarray, np.ndarray | None, np.ndarray]:
    """(mechanism, population, support, statistics of TRIALS[engine] independent collections), cached so the
    aggregate, covariance and estimate checks share the same collections."""
    mech = case.mechanism(EPSILON, D)
    counts = population()
    support = support_values(mech, D)
    rng = rng_for(SEED, "aggregate", case.id, engine)
    aggs = [ldp.collect(mech, counts, rng, engine, support=support) for _ in range(TRIALS[engine])]
    assert all(a.n == N and a.engine == engine for a in aggs)
    return mech, counts, support, np.stack([a.counts for a in aggs])


def closed_form(mech: Any, counts: np.ndarray, support: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    expected = mech.expected_aggregate(counts, support)
    variance = mech.aggregate_variance(counts, support)
    assert expected is not None, f"{mech.name}: implement expected_aggregate (the closed-form mean of the aggregate)"
    assert variance is not None, f"{mech.name}: implement aggregate_variance (the closed-form variance)"
    assert expected.shape == variance.shape == (mech.statistic_size(),)
    assert np.all(variance >= 0) and np.all(np.isfinite(expected))
    return expected, variance


# --------------------------------------------------------------------------------------------- the aggregate
def check_aggregate_mean_matches_closed_form(case: Case, engine: str) -> None:
    mech, counts, support, draws = aggregate_draws(case, engine)
    expected, variance = closed_form(mech, counts, support)
    trials = draws.shape[0]
    mean = draws.mean(axis=0)
    live = variance > 0
    np.testing.assert_allclose(mean[~live], expected[~live], rtol=1e-9, atol=1e-9)
    z = (mean[live] - expected[live]) / np.sqrt(variance[live] / trials)
    assert np.abs(z).max() < Z_LIMIT, (f"{case.id}/{engine}: aggregate off its closed form, "
                                       f"max |z| = {np.abs(z).max():.2f}")


def check_aggregate_variance_matches_closed_form(case: Case, engine: str) -> None:
    mech, counts, support, draws = aggregate_draws(case, engine)
    _, variance = closed_form(mech, counts, support)
    trials = draws.shape[0]
    live = variance > 0
    np.testing.assert_allclose(draws[:, ~live].std(axis=0), 0.0, atol=1e-9 * max(1.0, float(np.abs(draws).max())))
    statistic = (trials - 1) * draws[:, live].var(axis=0, ddof=1) / variance[live]
    alpha = FAMILY_ALPHA / max(1, int(live.sum()))
    low, high = stats.chi2.ppf([alpha / 2, 1 - alpha / 2], trials - 1)
    ratio = statistic / (trials - 1)
    bad = (statistic < low) | (statistic > high)
    assert not bad.any(), (f"{case.id}/{engine}: sample variance / closed form = {ratio[bad][:4]} outside "
                           f"[{low / (trials - 1):.3f}, {high / (trials - 1):.3f}]")


def projections(size: int) -> dict[str, np.ndarray]:
    return {"sum": np.ones(size), "alternating": (-1.0) ** np.arange(size),
            "gaussian": np.random.default_rng(17).standard_normal(size)}


def check_fast_engine_covariance_matches_exact(case: Case) -> None:
    _, _, _, fast = aggregate_draws(case, "fast")
    _, _, _, exact = aggregate_draws(case, "exact")
    scale = float(fast.var(axis=0).sum()) + 1.0
    tests = projections(fast.shape[1])
    alpha = FAMILY_ALPHA / len(tests)
    for label, w in tests.items():
        var_fast, var_exact = float((fast @ w).var(ddof=1)), float((exact @ w).var(ddof=1))
        if var_exact <= 1e-9 * scale:  # a constant of the exact engine (a total fixed by n) stays constant
            assert var_fast <= 1e-6 * scale, f"{case.id}: projection {label} is constant on the exact engine only"
            continue
        low, high = stats.f.ppf([alpha / 2, 1 - alpha / 2], fast.shape[0] - 1, exact.shape[0] - 1)
        ratio = var_fast / var_exact
        assert low < ratio < high, (f"{case.id}: Var[{label} projection] fast/exact = {ratio:.3f} outside "
                                    f"[{low:.3f}, {high:.3f}]")


@functools.cache
def small_draws(case: Case) -> tuple[np.ndarray, np.ndarray]:
    """R draws of the aggregate of the n = 3 population SMALL on each engine."""
    mech = case.mechanism(EPSILON, SMALL.size)
    support = support_values(mech, SMALL.size)
    out = []
    for engine in ("fast", "exact"):
        rng = rng_for(SEED, "small", case.id, engine)
        out.append(np.stack([ldp.collect(mech, SMALL, rng, engine, support=support).counts
                             for _ in range(SMALL_TRIALS)]))
    return out[0], out[1]


def is_discrete(values: np.ndarray) -> bool:
    """Few distinct values (counts, a histogram, ±scale sums) rather than a continuum (SHE's Laplace sums)."""
    return len(np.unique(values)) <= 4 * math.isqrt(values.shape[0])


def same_law_pvalue(a: np.ndarray, b: np.ndarray) -> float:
    """p-value of "the rows of a and b (one value or one vector per draw) have the same law": χ² test of
    homogeneity on their values when discrete (values with fewer than 10 draws in both samples pooled into one
    category), two-sample Kolmogorov–Smirnov when continuous (one value per draw)."""
    if is_discrete(np.concatenate([a.ravel(), b.ravel()])):
        rows_a, rows_b = a.reshape(a.shape[0], -1), b.reshape(b.shape[0], -1)
        values, index = np.unique(np.concatenate([rows_a, rows_b]), axis=0, return_inverse=True)
        index = index.ravel()
        table = np.stack([np.bincount(index[:rows_a.shape[0]], minlength=len(values)),
                          np.bincount(index[rows_a.shape[0]:], minlength=len(values))]).astype(np.float64)
        rare = table.sum(axis=0) < 10
        if rare.any():
            table = np.concatenate([table[:, ~rare], table[:, rare].sum(axis=1, keepdims=True)], axis=1)
        table = table[:, table.sum(axis=0) > 0]
        if table.shape[1] < 2:
            return 1.0
        return float(stats.chi2_contingency(table, correction=False).pvalue)
    assert a.ndim == 1, "continuous values are compared one projection at a time"
    return float(stats.ks_2samp(a, b).pvalue)


def check_fast_engine_law_matches_exact(case: Case, joint: bool) -> None:
    fast, exact = small_draws(case)
    tests: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    if joint and is_discrete(np.concatenate([fast, exact]).ravel()):
        tests["joint"] = (fast, exact)
    else:
        for v in range(fast.shape[1]):
            tests[f"entry {v}"] = (fast[:, v], exact[:, v])
        if joint:  # continuous: projections that see the dependence between entries
            for label, w in projections(fast.shape[1]).items():
                tests[label] = (fast @ w, exact @ w)
    alpha = FAMILY_ALPHA / len(tests)
    for label, (a, b) in tests.items():
        p = same_law_pvalue(a, b)
        assert p > alpha, f"{case.id}: fast and exact engines differ in law ({label}): p = {p:.2e} < {alpha:.1e}"


def check_fast_engine_note_states_its_limits(case: Case) -> None:
    """A fast engine that does not reproduce the covariance between entries says so in its note."""
    note = ldp.MECHANISMS.get(case.name).fast_engine_note
    assert "not the cross-covariances" in note, f"{case.id}: fast_engine_note must say the covariances are not exact"


# --------------------------------------------------------------------------------------------- the estimate
def check_estimate_is_unbiased_with_closed_form_variance(case: Case, engine: str) -> None:
    mech, counts, support, draws = aggregate_draws(case, engine)
    sigma2 = mech.estimate_variance(counts, support)
    truth = mech.true_values(counts, support)
    trials = draws.shape[0]
    est = np.stack([mech.estimate(row, N).values for row in draws])
    assert est.shape == (trials, truth.size) and sigma2.shape == truth.shape
    if mech.kind == "frequency":
        np.testing.assert_allclose(sigma2, mech.variance(truth, N), rtol=1e-12)
    z = (est.mean(axis=0) - truth) / np.sqrt(sigma2 / trials)
    assert np.abs(z).max() < Z_LIMIT, f"{case.id}/{engine}: biased, max |z| = {np.abs(z).max():.2f}"
    mse = float(np.mean((est - truth) ** 2))
    theory = float(sigma2.mean())
    sd = math.sqrt(2 * np.sum(sigma2**2)) / (truth.size * math.sqrt(trials))
    assert abs(mse - theory) < Z_LIMIT * 1.25 * sd, (
        f"{case.id}/{engine}: MSE {mse:.4g} vs closed-form {theory:.4g} (sd {sd:.2g})")


def check_estimate_variance_is_declared(case: Case) -> None:
    """The closed-form variance of the own estimate exists exactly where the test table says it does (a numerical
    mechanism's reconstruction is biased, so it has none)."""
    mech = case.mechanism(EPSILON, D)
    counts = population()
    sigma2 = mech.estimate_variance(counts, support_values(mech, D))
    assert (sigma2 is not None) == case.facts["estimate_variance"], (
        f"{case.id}: estimate_variance is {'present' if sigma2 is not None else 'absent'}; update MECHANISM_CASES")


def check_simulate_reports_the_closed_form(case: Case) -> None:
    mech = case.mechanism(EPSILON, D)
    counts = population()
    support = support_values(mech, D)
    name = mech.default_estimator
    result = ldp.simulate(mech, counts, support=support, estimators=[name], engine="fast", trials=3, seed=4)
    est = result.estimates[name]
    assert est.shape == (3, mech.true_values(counts, support).size) and np.all(np.isfinite(est))
    sigma2 = mech.estimate_variance(counts, support)
    if sigma2 is None:
        assert result.theoretical_variance is None
    else:
        assert result.theoretical_variance == pytest.approx(float(sigma2.mean()))
    if mech.kind == "frequency":
        assert result.metrics[name]["mse"] == pytest.approx(np.mean((est - result.true_values) ** 2, axis=1),
                                                            rel=1e-12)


def slow(check: Any) -> Any:
    """The `slow` marker: the law checks draw 2 × 1000 small collections of their own (they still run in the test
    command; `-m "not slow"` leaves them out when iterating)."""
    return pytest.param(check, marks=pytest.mark.slow)


def yield_accuracy_checks(case: Case) -> Iterator[Any]:
    for engine in ldp.engines.ENGINES:
        yield functools.partial(check_aggregate_mean_matches_closed_form, engine=engine)
        yield functools.partial(check_aggregate_variance_matches_closed_form, engine=engine)
    if case.facts["covariance"]:
        yield check_fast_engine_covariance_matches_exact
    else:
        yield check_fast_engine_note_states_its_limits
    if case.facts["fast"] in ("distribution", "marginals"):
        yield slow(functools.partial(check_fast_engine_law_matches_exact, joint=case.facts["fast"] == "distribution"))
    yield check_estimate_variance_is_declared
    if case.facts["estimate_variance"]:
        for engine in ldp.engines.ENGINES:
            yield functools.partial(check_estimate_is_unbiased_with_closed_form_variance, engine=engine)
    yield check_simulate_reports_the_closed_form


@parametrize_with_checks(ldp.MECHANISMS, yield_accuracy_checks)
def test_mechanism(case, check):
    check(case)
