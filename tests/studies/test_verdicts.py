"""Plain verdicts: the traffic lights follow the intervals, the noise floor is Eq. (5), and the n and ε that would
change the verdict are the smallest that do (checked against the closed form at the answer and just below)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ldp
from ldp.studies.verdicts import verdict


def _collect(name: str, eps: float, d: int, n: int):
    mech = ldp.get_mechanism(name, eps, d)
    f = np.random.default_rng(0).dirichlet(np.full(d, 0.5))
    counts = np.random.default_rng(1).multinomial(n, f)
    agg = mech.sample_aggregate(counts, np.random.default_rng(2))
    return mech, mech.estimate(agg).values


@pytest.mark.parametrize("name", ["grr", "oue", "olh"])
def test_lights_follow_the_intervals_and_the_answers_are_minimal(name):
    mech, est = _collect(name, 0.3, 50, 200_000)
    v = verdict(mech, est, 200_000)
    iv = ldp.evaluation.uncertainty.estimate_intervals(mech, est, 200_000, 0.95)
    assert np.array_equal(v.lights == "red", iv.low <= 0)
    assert v.count("green") + v.count("amber") + v.count("red") == 50
    assert v.sigma == pytest.approx(math.sqrt(mech.approximate_variance(200_000)))
    # n: z·σ₀(n) ≤ 1/d at the answer and not one user below (σ₀² ∝ 1/n exactly)
    z = 1.959963984540054

    def sigma_at(n: int) -> float:
        return math.sqrt(mech.approximate_variance(n))
    assert z * sigma_at(v.users_needed) <= 1 / 50 * (1 + 1e-9)
    assert z * sigma_at(v.users_needed - 1) > 1 / 50
    assert v.epsilon_needed is not None and v.epsilon_needed > 0.3


def test_swamped_when_the_noise_floor_exceeds_an_average_share():
    mech, est = _collect("oue", 0.05, 104, 1_000_000)
    v = verdict(mech, est, 1_000_000)
    assert v.swamped and "noise swamps the signal" in v.sentence("OUE", 0.05)
    mech, est = _collect("oue", 2.0, 20, 1_000_000)
    calm = verdict(mech, est, 1_000_000)
    assert not calm.swamped and "already told from zero" in calm.sentence("OUE", 2.0)
    with pytest.raises(ldp.LDPError):
        verdict(ldp.get_mechanism("sw", 1.0, 16), np.full(16, 1 / 16), 1000)
