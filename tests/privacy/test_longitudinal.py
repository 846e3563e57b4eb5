"""Repeated collection: the attacker's posterior vs rounds, simulated against its closed forms."""

import math

import numpy as np
import pytest

from ldp.core.errors import LDPError
from ldp.mechanisms.frequency.grr import grr_probabilities
from ldp.privacy.longitudinal import longitudinal_study, memoized_limit, posterior_bound

USERS = 20_000
# a mean posterior over USERS users has standard error ≤ 0.5/sqrt(USERS) ≈ 0.0035; 4 SE ≈ 0.014
TOL = 4 * 0.5 / math.sqrt(USERS)


@pytest.fixture(scope="module")
def study():
    return longitudinal_study(4, 2.0, 1.0, [1, 5, 20, 100], users=USERS, seed=2)


def test_one_round_matches_grr_closed_form(study):
    # uniform prior: after one GRR(ε1) report the posterior on v is p if y = v, q otherwise: E = p² + (d−1)q²
    p, q = grr_probabilities(1.0, 4)
    expected = p * p + 3 * q * q
    assert study.posterior_fresh[0] == pytest.approx(expected, abs=TOL)
    # L-GRR's chained channel is exactly ε1 for one report (GRR-shaped): the same posterior after one round
    assert study.posterior_memoized[0] == pytest.approx(expected, abs=TOL)


def test_memoized_posterior_tends_to_the_limit_and_fresh_to_certainty(study):
    p1, q1 = grr_probabilities(2.0, 4)
    assert study.memoized_limit == pytest.approx(p1 * p1 + 3 * q1 * q1)
    assert memoized_limit(np.full(4, 0.25), 2.0) == study.memoized_limit
    assert all(pm <= study.memoized_limit + TOL for pm in study.posterior_memoized)
    assert study.posterior_memoized[-1] > study.memoized_limit - 0.02
    assert study.posterior_fresh[-1] > 0.99
    assert np.all(np.diff(study.posterior_fresh) > 0)


def test_budgets_and_bounds(study):
    assert study.composed_epsilon == [1.0, 5.0, 20.0, 100.0]
    assert study.memoized_epsilon == [1.0, 2.0, 2.0, 2.0]
    assert study.bound_memoized[-1] == pytest.approx(float(posterior_bound(0.25, 2.0)))
    # every realised posterior is at most the DP bound, hence so is the mean
    assert all(p <= b + 1e-12 for p, b in zip(study.posterior_fresh, study.bound_fresh, strict=True))
    assert all(p <= b + 1e-12 for p, b in zip(study.posterior_memoized, study.bound_memoized, strict=True))


def test_bad_input():
    with pytest.raises(LDPError):
        longitudinal_study(4, 1.0, 2.0, [1])  # ε1 ≥ ε∞
    with pytest.raises(LDPError):
        longitudinal_study(4, 2.0, 1.0, [0])
    with pytest.raises(LDPError):
        longitudinal_study(4, 2.0, 1.0, [1], prior=[1, 2])
