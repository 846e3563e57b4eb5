"""Accuracy conformance over the registry (every kind), on both engines.

- The aggregate's mean over trials is the mechanism's closed form ``expected_aggregate`` (its variance
  ``aggregate_variance`` where given), for every mechanism that has one.
- The mechanism's own estimate is unbiased and its error matches the closed-form variance ``estimate_variance``
  wherever there is one (frequency oracles: matrix inversion; mean mechanisms: the average).

Tolerances (derived, not tuned): with R independent trials, the mean of an unbiased quantity with variance σ_v²
has standard deviation σ_v/√R; we require |z| < 5 for every entry (two-sided 5σ, probability < 6e-7 per entry
under the null — seeds are fixed anyway). Where a mechanism has no closed-form variance of its aggregate the
sample variance of the R trials stands in (a t statistic with R − 1 = 99 degrees of freedom: P(|t| > 5) < 3e-6).
The per-trial MSE is (1/d) Σ e_v² with e_v ≈ N(0, σ_v²) nearly independent across v (cross-correlations are
O(1/d)), so its mean over R trials has sd ≈ √(2 Σ σ_v⁴)/(d √R); we require the empirical mean MSE within 5
such sd (×1.25 for the Gaussian approximation and O(1/d) correlations) of the theory.
"""

from __future__ import annotations

import numpy as np
import pytest
from ldp_test_support import build, sample_inputs, support_values

import ldp

D = 16
N = 20_000
TRIALS = 100
EPSILON = 1.0


def _population() -> np.ndarray:
    weights = 1.0 / np.arange(1, D + 1) ** 1.1
    counts = np.floor(N * weights / weights.sum()).astype(np.int64)
    counts[0] += N - counts.sum()
    return counts


def _estimators(mech, count: int = 2) -> list[str]:
    """The first ``count`` registered estimators that apply to the mechanism (its default among them)."""
    names = [e.name for e in ldp.ESTIMATORS if e.applies_to(mech)]
    assert mech.default_estimator in names
    return names[:count]


@pytest.mark.parametrize("engine", ["exact", "fast"])
def test_aggregate_matches_its_closed_form(mechanism_name, engine):
    mech = build(mechanism_name, EPSILON, D)
    counts = _population()
    support = support_values(mech, D)
    expected = mech.expected_aggregate(counts, support)
    if expected is None:
        pytest.skip(f"{mechanism_name} has no closed-form expected aggregate")
    rng = np.random.default_rng(20261121)
    aggs = [ldp.collect(mech, counts, rng, engine, support=support) for _ in range(TRIALS)]
    assert all(a.n == N and a.engine == engine for a in aggs)
    stats = np.stack([a.counts for a in aggs])
    assert stats.shape == (TRIALS, mech.statistic_size()) == (TRIALS, expected.shape[0])
    variance = mech.aggregate_variance(counts, support)
    if variance is None:
        variance = stats.var(axis=0, ddof=1)
    else:
        assert variance.shape == expected.shape and np.all(variance >= 0)
    sd = np.sqrt(variance / TRIALS)
    live = sd > 0
    np.testing.assert_allclose(stats.mean(axis=0)[~live], expected[~live], rtol=1e-9, atol=1e-9)
    z = (stats.mean(axis=0)[live] - expected[live]) / sd[live]
    assert np.abs(z).max() < 5, f"{mechanism_name}/{engine}: aggregate off its closed form, max |z| = " \
                                f"{np.abs(z).max():.2f}"


@pytest.mark.parametrize("engine", ["exact", "fast"])
def test_unbiased_and_mse_matches_theory(mechanism_name, engine):
    mech = build(mechanism_name, EPSILON, D)
    counts = _population()
    support = support_values(mech, D)
    sigma2 = mech.estimate_variance(counts, support)
    if sigma2 is None:
        pytest.skip(f"{mechanism_name}'s own estimate has no closed-form variance (a biased reconstruction)")
    name = mech.default_estimator
    result = ldp.simulate(mech, counts, support=support, estimators=[name], engine=engine, trials=TRIALS,
                          seed=20261122)
    truth = result.true_values
    est = result.estimates[name]
    if mech.kind == "frequency":
        np.testing.assert_allclose(sigma2, mech.variance(truth, N), rtol=1e-12)
    z = (est.mean(axis=0) - truth) / np.sqrt(sigma2 / TRIALS)
    assert np.abs(z).max() < 5, f"{mechanism_name}/{engine}: biased, max |z| = {np.abs(z).max():.2f}"
    mse = np.mean((est - truth) ** 2)
    if mech.kind == "frequency":
        assert result.metrics[name]["mse"].mean() == pytest.approx(mse, rel=1e-12)
    theory = sigma2.mean()
    sd = np.sqrt(2 * np.sum(sigma2**2)) / (truth.size * np.sqrt(TRIALS))
    assert abs(mse - theory) < 5 * 1.25 * sd, (
        f"{mechanism_name}/{engine}: MSE {mse:.4g} vs closed-form {theory:.4g} (sd {sd:.2g})")
    assert result.theoretical_variance == pytest.approx(theory)


@pytest.mark.parametrize("engine", ["exact", "fast"])
def test_same_seed_same_result(mechanism_name, engine):
    mech = build(mechanism_name, EPSILON, D)
    counts = _population()
    support = support_values(mech, D)
    names = _estimators(mech)
    a = ldp.simulate(mech, counts, support=support, estimators=names, engine=engine, trials=2, seed=5)
    b = ldp.simulate(mech, counts, support=support, estimators=names, engine=engine, trials=2, seed=5)
    c = ldp.simulate(mech, counts, support=support, estimators=names[:1], engine=engine, trials=2, seed=6)
    for name in names:
        np.testing.assert_array_equal(a.estimates[name], b.estimates[name])
    assert not np.array_equal(a.estimates[names[0]], c.estimates[names[0]])


def test_exact_engine_independent_of_worker_count(mechanism_name):
    mech = build(mechanism_name, EPSILON, D)
    counts = _population()
    support = support_values(mech, D)
    one = ldp.run_exact(mech, np.random.default_rng(3), true_counts=counts, support=support, chunk_size=4096,
                        workers=1)
    two = ldp.run_exact(mech, np.random.default_rng(3), true_counts=counts, support=support, chunk_size=4096,
                        workers=2)
    np.testing.assert_array_equal(one.counts, two.counts)
    assert one.n == two.n == N


def test_reports_round_trip_through_text(mechanism_name):
    mech = build(mechanism_name, EPSILON, 8)
    values = sample_inputs(mech, 300, np.random.default_rng(1))
    reports = mech.perturb(values, np.random.default_rng(2))
    assert reports.shape[0] == 300
    parsed = mech.parse_reports(list(mech.format_reports(reports)))
    np.testing.assert_allclose(mech.aggregate(parsed).counts, mech.aggregate(reports).counts, rtol=1e-5, atol=1e-3)


def test_secure_randomness_drives_every_client(mechanism_name):
    mech = build(mechanism_name, EPSILON, 8)
    values = sample_inputs(mech, 200, np.random.default_rng(0))
    reports = mech.perturb(values, ldp.SecureRandom())
    agg = mech.aggregate(reports)
    assert agg.counts.shape == (mech.statistic_size(),) and np.all(np.isfinite(agg.counts)) and agg.n == 200
