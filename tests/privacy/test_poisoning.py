"""Maximal-gain attack: closed forms against the paper's theorems, simulation against the closed forms."""

import math

import numpy as np
import pytest

from ldp.core.errors import LDPError
from ldp.mechanisms import get_mechanism
from ldp.privacy.poisoning import (
    attacked_mechanism,
    crafted_reports,
    expected_gain,
    fake_users,
    simulate_attack,
    targets_supported,
)

D, TARGETS = 32, [3, 7, 11]


def population(n=200_000, d=D):
    w = 1 / np.arange(1, d + 1) ** 1.1
    return np.round(w / w.sum() * n).astype(np.int64)


def test_grr_gain_is_theorem_1():
    mech = get_mechanism("grr", epsilon=1.0, d=D)
    p, q = mech.p_star, mech.q_star
    for beta, f_t in ((0.01, 0.0), (0.05, 0.2)):
        paper = beta * (1 - f_t) + beta * (D - 3) * q / (p - q)
        assert float(expected_gain(mech, TARGETS, beta, f_t)) == pytest.approx(paper)


def test_oue_gain_is_theorem_2():
    eps = 1.5
    mech = get_mechanism("oue", epsilon=eps, d=D)
    for beta, f_t in ((0.01, 0.0), (0.05, 0.2)):
        paper = beta * (2 * 3 - f_t) + 2 * beta * 3 / (math.exp(eps) - 1)
        assert float(expected_gain(mech, TARGETS, beta, f_t)) == pytest.approx(paper)


def test_olh_finds_a_hash_for_all_targets_and_is_close_to_oue():
    mech = get_mechanism("olh", epsilon=1.0, d=D)
    assert targets_supported(mech, TARGETS) == 3
    reports = crafted_reports(mech, TARGETS, 50, np.random.default_rng(0))
    support = mech.aggregate(reports).counts
    assert np.all(support[TARGETS] == 50)
    # with the paper's ideal q* = 1/g and g = e^ε + 1 the gain is OUE's; our exact Carter–Wegman q* is close
    oue = float(expected_gain(get_mechanism("oue", epsilon=1.0, d=D), TARGETS, 0.05))
    assert float(expected_gain(mech, TARGETS, 0.05)) == pytest.approx(oue, rel=0.15)


@pytest.mark.parametrize("name", ["grr", "oue", "olh"])
def test_simulation_matches_closed_form(name):
    mech = get_mechanism(name, epsilon=1.0, d=D)
    res = simulate_attack(mech, population(), TARGETS, 0.05, trials=8, seed=1)
    # the MI gain is linear in the reports: its mean over T trials is within 4 SE of the expectation; the
    # genuine collection's noise enters only through 1/(n+m) − 1/n, far below 1e-3
    se = res.simulated_sd["mi"] / math.sqrt(res.trials)
    assert res.simulated_gain["mi"] == pytest.approx(res.expected_gain, abs=4 * se + 1e-3)
    assert res.fake_users == fake_users(res.genuine_users, 0.05)
    # Norm-Sub clips negative estimates and shifts every value: it takes part of the promoted mass back
    assert res.simulated_gain["norm-sub"] < res.simulated_gain["mi"]


def test_grr_is_least_robust_at_small_epsilon():
    gains = {n: float(expected_gain(get_mechanism(n, epsilon=0.5, d=D), TARGETS, 0.05)) for n in ("grr", "oue", "olh")}
    assert gains["grr"] > gains["oue"] and gains["grr"] > gains["olh"]


def test_bad_input():
    with pytest.raises(LDPError):
        attacked_mechanism("sue", 1.0, D)
    mech = get_mechanism("grr", epsilon=1.0, d=D)
    with pytest.raises(LDPError):
        expected_gain(mech, [D], 0.1)
    with pytest.raises(LDPError):
        expected_gain(mech, TARGETS, 1.0)
    with pytest.raises(LDPError):
        simulate_attack(mech, population(), TARGETS, -0.1)
