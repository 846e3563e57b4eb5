"""The Hadamard mechanism (Cormode, Maddock, Maple, VLDB 2021, §4.4): the paper's variance, ε-LDP at the boundary,
and t = 1 being HR."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ldp
from ldp.mechanisms.frequency.hadamard import hadamard_mechanism_paper_variance


@pytest.mark.parametrize("epsilon,t", [(0.5, 1), (1.0, 2), (2.0, 3), (4.0, 4)])
def test_variance_is_the_papers_formula_for_a_rare_value(epsilon, t):
    mech = ldp.get_mechanism("hadamard", epsilon, 64, t=t)
    e = math.exp(epsilon)
    paper = (e + 2**t - 1) ** 2 / (t * (e - 1) ** 2)
    assert float(mech.variance(0.0, 1000)) * 1000 == pytest.approx(paper, rel=1e-12)
    assert mech.lecture_variance() == pytest.approx(paper, rel=1e-12)


@pytest.mark.parametrize("t", [2, 3])
def test_closed_form_variance_matches_simulated_reports(t):
    """The exact engine's estimates of one value vary as the closed form says (f = 0.3, 0.7 and 0)."""
    mech = ldp.get_mechanism("hadamard", 1.5, 8, t=t)
    counts = np.array([600, 1400, 0, 0, 0, 0, 0, 0])
    rng = np.random.default_rng(11)
    est = np.stack([mech.estimate(ldp.collect(mech, counts, rng, "exact")).values for _ in range(400)])
    sigma2 = mech.variance(counts / 2000, 2000)
    ratio = est.var(axis=0, ddof=1) / sigma2
    assert np.all((ratio > 0.7) & (ratio < 1.35)), ratio
    assert np.all(np.abs(est.mean(axis=0) - counts / 2000) < 5 * np.sqrt(sigma2 / 400))


def test_t_one_is_hr_bit_for_bit():
    hm = ldp.get_mechanism("hadamard", 1.0, 16, t=1)
    hr = ldp.get_mechanism("hr", 1.0, 16)
    values = np.random.default_rng(0).integers(0, 16, 3000)
    a, b = hm.perturb(values, ldp.make_rng(5)), hr.perturb(values, ldp.make_rng(5))
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(hm.support_counts(a), hr.support_counts(b))
    assert (hm.p_star, hm.q_star) == (hr.p_star, hr.q_star) and hm.pure
    np.testing.assert_allclose(hm.variance(np.full(16, 1 / 16), 100), hr.variance(np.full(16, 1 / 16), 100))
    assert hm.channel()[1] == hr.channel()[1]


@pytest.mark.parametrize("epsilon,t,d", [(0.3, 2, 4), (1.0, 3, 4), (2.5, 2, 3), (2.0, 4, 2)])
def test_epsilon_ldp_at_the_boundary(epsilon, t, d):
    mech = ldp.get_mechanism("hadamard", epsilon, d, t=t)
    assert not mech.pure
    loss = mech.privacy_loss(max_outputs=20000)
    assert epsilon * (1 - 1e-9) < loss <= epsilon + 1e-12


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.5, 4.0, 6.0])
def test_default_t_minimises_the_papers_variance(epsilon):
    mech = ldp.get_mechanism("hadamard", epsilon, 16)
    best = min(hadamard_mechanism_paper_variance(epsilon, t) for t in range(1, 17))
    assert hadamard_mechanism_paper_variance(epsilon, mech.t) == best
    assert (mech.t == 1) == (epsilon < math.log((3 - math.sqrt(2)) / (math.sqrt(2) - 1)))
