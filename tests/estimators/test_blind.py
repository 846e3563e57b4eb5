"""Blind deconvolution: ε from the reports' mean support size, DW with it (convolution paper, Appendix B)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ldp.core.errors import NotAvailable
from ldp.core.results import Aggregate
from ldp.engines import collect
from ldp.estimators import get_estimator
from ldp.estimators.blind import estimate_epsilon, probe_channel, support_size
from ldp.mechanisms import get_mechanism

D, N = 100, 100_000


def _population(seed: int = 0) -> np.ndarray:
    x = np.arange(D)
    f = np.exp(-0.5 * ((x - 40) / 12.0) ** 2)
    return np.random.default_rng(seed).multinomial(N, f / f.sum())


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_oue_epsilon_is_recovered_within_the_support_size_noise(epsilon):
    mech = get_mechanism("oue", epsilon, D)
    agg = collect(mech, _population(), np.random.default_rng(1), "fast")
    found = estimate_epsilon(mech, agg)
    # S/n = ½ + (d − 1)q* on average; one user's support size has variance p(1 − p) + (d − 1)q(1 − q), so
    # sd(S/n) = √(that/n), and ε̂'s sd is that over |dS/dε| = (d − 1)e^ε/(e^ε + 1)² (delta method); allow 5 sd
    q = 1 / (math.exp(epsilon) + 1)
    sd_support = math.sqrt((0.25 + (D - 1) * q * (1 - q)) / N)
    slope = (D - 1) * math.exp(epsilon) / (math.exp(epsilon) + 1) ** 2
    assert abs(found.epsilon - epsilon) < 5 * sd_support / slope
    assert not found.clipped


def test_support_size_is_p_plus_d_minus_one_q():
    mech = get_mechanism("sue", 1.0, D)
    assert support_size(mech) == pytest.approx(mech.p_star + (D - 1) * mech.q_star)


def test_dw_blind_matches_dw_when_epsilon_is_recovered():
    mech = get_mechanism("oue", 2.0, D)
    agg = collect(mech, _population(2), np.random.default_rng(3), "fast")
    blind = get_estimator("dw-blind").estimate(mech, agg)
    informed = get_estimator("dw").estimate(mech, agg)
    truth = _population(2) / N
    mse_blind = np.mean((blind.values - truth) ** 2)
    mse_dw = np.mean((informed.values - truth) ** 2)
    assert blind.diagnostics["epsilon_hat"] == pytest.approx(2.0, abs=0.05)
    assert mse_blind == pytest.approx(mse_dw, rel=0.1)  # ε̂ within 0.05 of ε moves DW's MSE by a few percent


def test_a_support_size_out_of_range_is_clipped_and_said():
    mech = get_mechanism("oue", 1.0, D)
    impossible = Aggregate(np.full(D, 0.6 * N), N)  # 60 supported per report; ε → 0 gives 50
    est = get_estimator("dw-blind").estimate(mech, impossible)
    assert est.diagnostics["epsilon_hat"] == pytest.approx(1e-3) and any("nearest end" in w for w in est.warnings)


@pytest.mark.parametrize("name", ["grr", "ss", "olh", "blh", "l-oue"])
def test_protocols_whose_support_size_does_not_reveal_epsilon_are_refused(name):
    mech = get_mechanism(name, 1.0, D)
    assert not get_estimator("dw-blind").applies_to(mech)
    agg = collect(mech, _population(), np.random.default_rng(4), "fast")
    with pytest.raises(NotAvailable):
        estimate_epsilon(mech, agg)


def test_probing_one_input_recovers_the_h_vector():
    mech = get_mechanism("oue", 1.0, 20)
    p_hat, q_hat = probe_channel(mech, 7, 20_000, np.random.default_rng(5))
    # binomial: sd(p̂) = √(p(1 − p)/m) ≈ 0.0035; q̂ averages 19 such shares: 5 sd each
    assert abs(p_hat - mech.p_star) < 5 * math.sqrt(mech.p_star * (1 - mech.p_star) / 20_000)
    assert abs(q_hat - mech.q_star) < 5 * math.sqrt(mech.q_star * (1 - mech.q_star) / 20_000 / 19)
