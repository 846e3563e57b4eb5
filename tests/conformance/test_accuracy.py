"""Accuracy conformance over the registry: matrix inversion is unbiased and its error matches the
closed-form variance, on both engines, for every mechanism.

Tolerances (derived, not tuned): with R independent trials, the mean estimate of value v has
standard deviation σ_v/√R where σ_v² = mechanism.variance(f_v, n); we require |z| < 5 for every v
(two-sided 5σ, probability < 6e-7 per value under the null — seeds are fixed anyway). The per-trial
MSE is (1/d) Σ e_v² with e_v ≈ N(0, σ_v²) nearly independent across v (cross-correlations are
O(1/d)), so its mean over R trials has sd ≈ √(2 Σ σ_v⁴)/(d √R); we require the empirical mean MSE
within 5 such sd (×1.25 for the Gaussian approximation and O(1/d) correlations) of the theory.
"""

from __future__ import annotations

import numpy as np
import pytest
from ldp_test_support import build

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


@pytest.mark.parametrize("engine", ["exact", "fast"])
def test_unbiased_and_mse_matches_theory(mechanism_name, engine):
    mech = build(mechanism_name, EPSILON, D)
    counts = _population()
    truth = counts / N
    result = ldp.simulate(mech, counts, estimators=["mi"], engine=engine, trials=TRIALS, seed=20261122)
    est = result.estimates["mi"]
    sigma2 = mech.variance(truth, N)
    z = (est.mean(axis=0) - truth) / np.sqrt(sigma2 / TRIALS)
    assert np.abs(z).max() < 5, f"{mechanism_name}/{engine}: biased, max |z| = {np.abs(z).max():.2f}"
    mse = result.metrics["mi"]["mse"].mean()
    theory = sigma2.mean()
    sd = np.sqrt(2 * np.sum(sigma2**2)) / (D * np.sqrt(TRIALS))
    assert abs(mse - theory) < 5 * 1.25 * sd, (
        f"{mechanism_name}/{engine}: MSE {mse:.4g} vs closed-form {theory:.4g} (sd {sd:.2g})")
    assert result.theoretical_variance == pytest.approx(theory)


@pytest.mark.parametrize("engine", ["exact", "fast"])
def test_same_seed_same_result(mechanism_name, engine):
    mech = build(mechanism_name, EPSILON, D)
    counts = _population()
    a = ldp.simulate(mech, counts, estimators=["mi", "norm-sub"], engine=engine, trials=2, seed=5)
    b = ldp.simulate(mech, counts, estimators=["mi", "norm-sub"], engine=engine, trials=2, seed=5)
    c = ldp.simulate(mech, counts, estimators=["mi"], engine=engine, trials=2, seed=6)
    np.testing.assert_array_equal(a.estimates["mi"], b.estimates["mi"])
    np.testing.assert_array_equal(a.estimates["norm-sub"], b.estimates["norm-sub"])
    assert not np.array_equal(a.estimates["mi"], c.estimates["mi"])


def test_exact_engine_independent_of_worker_count(mechanism_name):
    mech = build(mechanism_name, EPSILON, D)
    counts = _population()
    one = ldp.run_exact(mech, np.random.default_rng(3), true_counts=counts, chunk_size=4096, workers=1)
    two = ldp.run_exact(mech, np.random.default_rng(3), true_counts=counts, chunk_size=4096, workers=2)
    np.testing.assert_array_equal(one.counts, two.counts)
    assert one.n == two.n == N


def test_reports_round_trip_through_text(mechanism_name):
    mech = build(mechanism_name, EPSILON, 8)
    values = np.random.default_rng(1).integers(0, 8, 300)
    reports = mech.perturb(values, np.random.default_rng(2))
    assert reports.shape[0] == 300
    parsed = mech.parse_reports(list(mech.format_reports(reports)))
    np.testing.assert_allclose(mech.support_counts(parsed), mech.support_counts(reports), rtol=1e-5, atol=1e-3)


def test_secure_randomness_drives_every_client(mechanism_name):
    mech = build(mechanism_name, EPSILON, 8)
    values = np.arange(200) % 8
    reports = mech.perturb(values, ldp.SecureRandom())
    counts = mech.support_counts(reports)
    assert counts.shape == (8,) and np.all(np.isfinite(counts))
