"""Closed forms of the papers against our derived parameters."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ldp
from ldp.maths.primes import next_prime
from ldp.mechanisms.frequency.local_hashing import collision_probability, residue_class_sizes
from ldp.mechanisms.frequency.subset_selection import ss_default_omega
from ldp.mechanisms.frequency.unary import the_optimal_theta
from ldp.mechanisms.longitudinal import l_olh_g


@pytest.mark.parametrize("eps_inf,eps_1", [(2.0, 1.0), (4.0, 2.0), (8.0, 4.0), (1.0, 0.2)])
@pytest.mark.parametrize("k", [2, 10, 100])
def test_lgrr_second_step_against_paper_closed_form(eps_inf, eps_1, k):
    """Our p2 spends exactly ε1 on the exact chained channel. The paper's closed form solves
    (p1p2 + q1q2)/(p1q2 + q1p2) = e^{ε1}, which omits the k − 2 paths through third values: it agrees
    with ours for k = 2 and, for k > 2, gives a mechanism that silently spends less than ε1."""
    mech = ldp.get_mechanism("l-grr", eps_inf, k, epsilon_1=eps_1)
    a, b = math.exp(eps_inf), math.exp(eps_1)
    paper = (math.exp(eps_inf + eps_1) - 1) / (-k * b + (k - 1) * a + b + a * b - 1)  # IBU paper §3.2
    p1, q1 = mech.p1, mech.q1
    q2_paper = (1 - paper) / (k - 1)
    assert (p1 * paper + q1 * q2_paper) / (p1 * q2_paper + q1 * paper) == pytest.approx(b, rel=1e-9)
    exact_ratio_paper = (p1 * paper + (1 - p1) * q2_paper) / (q1 * paper + (1 - q1) * q2_paper)
    assert mech.p_star / mech.q_star == pytest.approx(b, rel=1e-12)
    assert mech.privacy_loss() == pytest.approx(eps_1, rel=1e-9) if k <= 10 else True
    if k == 2:
        assert mech.p2 == pytest.approx(paper, rel=1e-12)
    else:
        assert math.log(exact_ratio_paper) < eps_1 - 1e-3


@pytest.mark.parametrize("eps_inf,eps_1", [(2.0, 1.0), (4.0, 2.0), (8.0, 4.0)])
def test_losue_second_step_equals_paper_closed_form(eps_inf, eps_1):
    mech = ldp.get_mechanism("l-osue", eps_inf, 10, epsilon_1=eps_1)
    a, b = math.exp(eps_inf), math.exp(eps_1)
    paper_p2 = (a * b - 1) / (a - b + a * b - 1)  # IBU paper §3.2, L-OSUE
    assert mech.p2 == pytest.approx(paper_p2, rel=1e-9)
    assert mech.q2 == pytest.approx(1 - paper_p2, rel=1e-9)
    assert mech.p1 == 0.5 and mech.q1 == pytest.approx(1 / (a + 1))


@pytest.mark.parametrize("name", ["l-sue", "l-oue", "l-soue", "l-osue"])
@pytest.mark.parametrize("eps_inf", [1.0, 2.0, 4.0])
def test_lue_chain_spends_exactly_eps1(name, eps_inf):
    mech = ldp.get_mechanism(name, eps_inf, 10)
    p, q = mech.p_star, mech.q_star
    assert math.log(p * (1 - q) / (q * (1 - p))) == pytest.approx(eps_inf / 2, rel=1e-9)


def test_lue_unreachable_eps1_is_explained():
    with pytest.raises(ldp.LDPError, match="not reachable"):
        ldp.get_mechanism("l-soue", 2.0, 10, epsilon_1=1.9)
    with pytest.raises(ldp.LDPError, match="smaller than epsilon"):
        ldp.get_mechanism("l-grr", 2.0, 10, epsilon_1=2.0)


def test_l_olh_g_formula():
    # a = e^4, b = e^2: evaluate the paper's expression directly
    a, b = math.exp(4.0), math.exp(2.0)
    inner = (1 - a**2 + math.sqrt(a**4 - 14 * a**2 + 12 * a * b * (1 - a * b) + 12 * a**3 * b + 1)) / (6 * (a - b))
    assert l_olh_g(4.0, 2.0) == 1 + max(1, math.floor(inner))
    assert ldp.get_mechanism("l-olh", 4.0, 100).g == l_olh_g(4.0, 2.0)
    assert l_olh_g(1.0, 0.5) >= 2


def test_olh_g_and_ss_omega_defaults():
    assert ldp.get_mechanism("olh", 1.0, 100).g == round(math.e + 1)
    assert ldp.get_mechanism("olh", 3.0, 100).g == round(math.exp(3) + 1)
    assert ldp.get_mechanism("olh", 1.0, 100, g=7).g == 7
    assert ss_default_omega(1.0, 1024) == math.floor(1024 / (math.e + 1))
    assert ss_default_omega(8.0, 10) == 1


def test_ss_probabilities_match_paper():
    mech = ldp.get_mechanism("ss", 1.0, 20)
    w, k, e = mech.omega, 20, math.e
    assert mech.p_star == pytest.approx(w * e / (w * e + k - w))
    assert mech.q_star == pytest.approx((w * e * (w - 1) + (k - w) * w) / ((k - 1) * (w * e + k - w)))


def test_the_theta_minimizes_variance():
    for eps in (0.5, 1.0, 4.0):
        theta = the_optimal_theta(eps)
        assert 0.5 <= theta <= 1.0

        def var(t, eps=eps):
            return ldp.get_mechanism("the", eps, 50, theta=t).approximate_variance(1)
        assert var(theta) <= min(var(t) for t in np.linspace(0.5, 0.999, 60)) + 1e-12


def test_lecture_variance_table():
    """The f → 0 variances of the lecture's comparison table (Var/n)."""
    e = math.exp(1.0)
    d = 64
    expect = {
        "grr": (d - 2 + e) / (e - 1) ** 2,
        "sue": math.exp(0.5) / (math.exp(0.5) - 1) ** 2,
        "oue": 4 * e / (e - 1) ** 2,
        "blh": (e + 1) ** 2 / (e - 1) ** 2,
        "she": 8.0,
    }
    for name, value in expect.items():
        mech = ldp.get_mechanism(name, 1.0, d, **({"prime": 2**31 - 1} if name == "blh" else {}))
        assert mech.approximate_variance(1) == pytest.approx(value, rel=1e-6), name


def test_lh_q_star_tends_to_one_over_g():
    assert collision_probability(2**31 - 1, 4) == pytest.approx(0.25, rel=1e-8)
    np.testing.assert_array_equal(residue_class_sizes(11, 4), [3, 3, 3, 2])  # residues 0..10 mod 4
    assert collision_probability(11, 4) == pytest.approx((3 * 3 * 2 + 2 * 1) / (11 * 10))
    mech = ldp.get_mechanism("olh", 1.0, 16)
    assert mech.prime == next_prime(16) == 17
    assert abs(mech.q_star - 1 / mech.g) < 0.02


def test_lh_support_counting_algorithms_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both counting methods against the definition, including g ≥ P/2 (one-element runs), g not dividing P,
    b = 0 and b above y (the runs' split point); the runs method both in one pass over every row and a block of
    rows at a time (its single-pass limit set to 0), with more rows than one block."""
    from ldp.mechanisms.frequency import local_hashing
    from ldp.mechanisms.frequency.local_hashing import (
        RUN_BLOCK_CELLS,
        SINGLE_PASS_CELLS,
        _lh_counts_enumerate,
        _lh_counts_runs,
        lh_support_counts,
    )
    rng = np.random.default_rng(3)
    # the last two: multipliers ranked by a count over [0, P) (P ≤ 4n) and, with few reports, by a sort
    cases = [(2, 31, 30, 500), (5, 37, 37, 500), (40, 41, 20, 500), (3, 11, 7, 50), (4, 1031, 1024, 3000),
             (4, 1031, 1024, 100)]
    for g, prime, d, n in cases:
        a = rng.integers(1, prime, n)
        b = rng.integers(0, prime, n)
        y = rng.integers(0, g, n)
        direct = np.array([np.sum(((a * v + b) % prime) % g == y) for v in range(d)])
        np.testing.assert_array_equal(_lh_counts_runs(a, b, y, d, prime, g), direct)
        np.testing.assert_array_equal(_lh_counts_enumerate(a, b, y, d, prime, g), direct)
        np.testing.assert_array_equal(lh_support_counts(a, b, y, d, prime, g), direct)
        with monkeypatch.context() as patch:
            patch.setattr(local_hashing, "SINGLE_PASS_CELLS", 0)
            np.testing.assert_array_equal(_lh_counts_runs(a, b, y, d, prime, g), direct)
    assert 1030 * 4 * (-(-1031 // 4) + 1) <= SINGLE_PASS_CELLS  # the (4, 1031) cases fit one pass …
    assert 1030 * (1031 + 4) > RUN_BLOCK_CELLS  # … and span several blocks when taken a block at a time
