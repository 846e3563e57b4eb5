"""The Bayes-optimal attacker: closed forms against exact channel enumeration."""

from __future__ import annotations

import math

import numpy as np
import pytest
from ldp_test_support import SMALL_DOMAIN_PARAMS, build

import ldp
from ldp.mechanisms import base
from ldp.mechanisms.frequency import local_hashing
from ldp.mechanisms.frequency.base import first_hit_success
from ldp.mechanisms.frequency.hadamard import HR
from ldp.studies.attacks import attack_success, baseline_success, channel_success, plausible_deniability_ratio


@pytest.mark.parametrize("epsilon", [0.3, 1.2, 3.0])
def test_closed_forms_equal_enumeration(mechanism_name, epsilon, monkeypatch):
    """Every mechanism's attacker: by enumeration of the exact channel where it is small, by the family's closed
    form otherwise (forced here by allowing no enumeration); None where reports are continuous."""
    d = 7 if mechanism_name == "ss" else 6
    small = {"prime": 7} if mechanism_name in ("blh", "olh", "l-blh", "l-olh") else {}
    if mechanism_name in ("cms", "rappor"):  # k · 2^m (CMS), m · 2^k (RAPPOR) reports: small ones keep the channel
        small = SMALL_DOMAIN_PARAMS[mechanism_name]  # enumerable
    mech = build(mechanism_name, epsilon, d, **small)
    prior = np.random.default_rng(int(epsilon * 10)).dirichlet(np.ones(mech.d))
    exact = attack_success(mech, prior)
    monkeypatch.setattr(base, "EXACT_ATTACK_CELLS", 0)
    closed = attack_success(mech, prior)
    if not mech.has_discrete_channel():
        assert exact is None and closed is None  # continuous reports (SHE, SW, GW, SR, PM): not computed
        return
    assert baseline_success(prior) - 1e-12 <= exact <= 1.0
    assert exact == pytest.approx(channel_success(mech.channel(max_outputs=10**6)[0], prior), rel=1e-12)
    if closed is None:  # no closed form: the numerical and the non-pure mechanisms (dBitFlip) are only enumerated
        assert mech.kind == "numerical" or not mech.pure
        return
    if isinstance(mech, HR):
        # closed form assumes independent rows; the Hadamard rows are only pairwise independent
        assert closed == pytest.approx(exact, rel=0.1)
    else:
        assert closed == pytest.approx(exact, rel=1e-9)


def test_grr_uniform_prior_and_limits():
    d, eps = 5, 1.0
    mech = ldp.get_mechanism("grr", eps, d)
    uniform = np.full(d, 1 / d)
    # uniform prior: the best guess is the report itself, correct with probability p
    assert attack_success(mech, uniform) == pytest.approx(mech.p_star)
    assert baseline_success(uniform) == pytest.approx(1 / d)
    big = ldp.get_mechanism("grr", 25.0, d)  # near the largest ε double precision can sample (issue 10 item 14)
    assert attack_success(big, uniform) == pytest.approx(1.0, abs=1e-9)
    assert plausible_deniability_ratio(eps) == pytest.approx(math.e)


def test_channel_success_by_hand():
    channel = np.array([[0.75, 0.25], [0.25, 0.75]])  # Warner with ε = ln 3
    assert channel_success(channel, np.array([0.8, 0.2])) == pytest.approx(0.6 + 0.2)


def test_prior_validation():
    mech = ldp.get_mechanism("oue", 1.0, 4)
    with pytest.raises(ldp.LDPError, match="one probability per value"):
        attack_success(mech, np.ones(3))
    with pytest.raises(ldp.LDPError, match="non-negative"):
        attack_success(mech, np.array([1, -1, 0, 0.5]))
    with pytest.raises(ldp.LDPError, match="non-negative"):
        baseline_success(np.array([1.0, -1.0]))
    assert attack_success(mech, np.array([2.0, 1.0, 1.0, 0.0])) == attack_success(mech, np.array([0.5, 0.25, 0.25,
                                                                                                   0.0]))


def test_attack_success_is_the_mechanisms_own():
    mech = ldp.get_mechanism("ss", 1.0, 50)  # too large to enumerate: the closed form
    prior = np.random.default_rng(2).dirichlet(np.ones(50))
    assert attack_success(mech, prior) == mech.attack_success(prior)


def test_success_grows_with_epsilon():
    prior = np.random.default_rng(1).dirichlet(np.ones(50))
    for name in ("oue", "olh", "ss", "grr"):
        values = [attack_success(ldp.get_mechanism(name, e, 50), prior) for e in (0.1, 1.0, 4.0, 8.0)]
        assert all(b >= a - 1e-12 for a, b in zip(values, values[1:], strict=False)), name


@pytest.mark.parametrize("name", ["olh", "l-olh", "blh"])
@pytest.mark.parametrize(("d", "epsilon"), [(37, 4.0), (20, 3.0), (10, 1.0)])
def test_local_hashing_attacker_is_exact_for_its_carter_wegman_family(name, d, epsilon):
    """The attacker on a (a, b, y) report is computed over the hash family in use, not an ideal hash: it equals
    the enumeration of the exact channel (P(P − 1)·g outputs) to rounding. At d = 37, ε = 4 (g = 56, P = 59: most
    residue classes mod g hold one residue, so values rarely collide) the ideal-hash formula is >4 points low."""
    mech = ldp.get_mechanism(name, epsilon, d)
    for prior in (np.full(d, 1 / d), np.random.default_rng(d).dirichlet(np.ones(d))):
        exact = channel_success(mech.channel(max_outputs=10**7)[0], prior)
        assert mech._attack_success(prior) == pytest.approx(exact, abs=1e-12)
    if (name, d) == ("olh", 37):
        keep, other = mech._hashed_probabilities()
        ideal = mech.g * first_hit_success(np.full(d, 1 / d), 1 / mech.g, keep, other)
        assert attack_success(mech, np.full(d, 1 / d)) - ideal > 0.04


def test_local_hashing_attacker_samples_large_families_within_its_stated_tolerance(monkeypatch):
    """Beyond the enumeration budget the family is sampled until the 95 % half-width is below 1e-4; forced here on
    a family small enough to enumerate, the sampled answer is within 3e-4 (≥ 5 standard errors) of the exact one,
    and reproducible (the sampling stream is keyed by P and g)."""
    mech = ldp.get_mechanism("olh", 4.0, 37)
    prior = np.random.default_rng(5).dirichlet(np.ones(37))
    exact = mech._attack_success(prior)
    monkeypatch.setattr(local_hashing, "ATTACK_EXACT_FUNCTIONS", 0)
    sampled = mech._attack_success(prior)
    assert sampled != exact and sampled == pytest.approx(exact, abs=3e-4)
    assert mech._attack_success(prior) == sampled
    monkeypatch.setattr(local_hashing, "ATTACK_MAX_CELLS", 1)
    with pytest.warns(UserWarning, match="sampled hash functions"):
        mech._attack_success(prior)


def test_local_hashing_with_the_reference_hash_keeps_the_ideal_hash_formula():
    mech = ldp.get_mechanism("olh", 4.0, 37, hash="xxh32")
    prior = np.random.default_rng(3).dirichlet(np.ones(37))
    keep, other = mech._hashed_probabilities()
    assert attack_success(mech, prior) == pytest.approx(
        mech.g * first_hit_success(np.sort(prior)[::-1], 1 / mech.g, keep, other), rel=1e-12)
