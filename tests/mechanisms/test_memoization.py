"""Repeated 1BitMean collection: α-point rounding, memoization, output perturbation (ldp.mechanisms.memoization)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ldp.core.errors import InvalidInput
from ldp.mechanisms import get_mechanism
from ldp.mechanisms.mean import OneBitMean
from ldp.mechanisms.memoization import (
    alpha_point_round,
    change_evidence,
    memoized_histogram_rounds,
    memoized_mean_rounds,
    memoized_round_variance,
)


def test_alpha_point_rounding_is_unbiased_and_fixed_per_user():
    steps, x = 32, np.full(200_000, 0.3137)
    alpha = np.random.default_rng(0).random(x.size)
    k = alpha_point_round(x, steps, alpha)
    grid = -1.0 + 2.0 * k / steps
    # the rounded value takes the two neighbouring grid points, so its sd is at most half a step (1/32);
    # the mean of 200,000 draws is within 5 sd = 5 · (1/32)/√200000 ≈ 3.5e-4 of x
    assert set(np.unique(grid)) <= {-1.0 + 2.0 * 21 / 32, -1.0 + 2.0 * 22 / 32}
    assert abs(grid.mean() - 0.3137) < 3.5e-4
    # the same α always rounds the same value the same way; the end points stay on the grid
    assert np.array_equal(k, alpha_point_round(x, steps, alpha))
    assert alpha_point_round(np.array([-1.0, 1.0]), steps, np.array([0.5, 0.5])).tolist() == [0, steps]


@pytest.mark.parametrize("gamma", [0.0, 0.2])
def test_each_round_is_unbiased_with_the_stated_variance(gamma):
    # 300 independent collections of one round: (μ̂ − μ)/σ should be standard normal. Its mean over 300 is within
    # 4/√300 ≈ 0.23 of 0 and its sd within 0.2 of 1 (sd of a sample sd ≈ 1/√600 ≈ 0.04, so 5 sd)
    values = np.random.default_rng(1).uniform(-1, 1, 500)[None, :]
    z = np.array([memoized_mean_rounds(values, 1.0, np.random.default_rng(s), steps=8, gamma=gamma).z_scores[0]
                  for s in range(300)])
    assert abs(z.mean()) < 0.23
    assert 0.8 < z.std() < 1.2


def test_round_variance_is_one_time_1bitmean_without_output_perturbation():
    values = np.linspace(-1, 1, 101)
    assert memoized_round_variance(values, 0.7) == pytest.approx(OneBitMean(0.7).mean_variance(values), rel=1e-12)
    assert memoized_round_variance(values, 0.7, 0.25) > memoized_round_variance(values, 0.7)


def test_a_steady_value_costs_epsilon_once_and_repeats_its_bit():
    values = np.tile(np.random.default_rng(2).uniform(-1, 1, 1000), (20, 1))
    run = memoized_mean_rounds(values, 2.0, np.random.default_rng(3))
    assert np.all(run.revealed == 1) and np.all(run.bit_changes == 0)
    assert np.all(run.epsilon_spent == 2.0) and run.epsilon_fresh == 40.0
    # with output perturbation the bit changes though the value does not (≈ 2γ(1 − γ) of the rounds)
    blurred = memoized_mean_rounds(values, 2.0, np.random.default_rng(3), gamma=0.1)
    rate = blurred.bit_changes.sum() / (19 * 1000)
    assert abs(rate - 0.18) < 0.02  # binomial sd √(0.18·0.82/19000) ≈ 0.003


def test_values_alternating_between_two_cells_reveal_two_memoized_bits():
    row = np.array([-0.5, 0.5] * 10)
    values = np.tile(row[:, None], (1, 400))
    run = memoized_mean_rounds(values, 1.0, np.random.default_rng(4), steps=4)
    assert np.all(run.revealed == 2)
    assert np.all(run.epsilon_spent == 2.0)


def test_change_evidence_by_brute_force():
    eps, gamma, steps = 1.0, 0.15, 2
    plus = OneBitMean(eps).plus_probability(np.array([-1.0, 0.0, 1.0]))
    c = 2 * gamma * (1 - gamma)

    def after_move(a, b):  # both memoized bits and both flips enumerated
        total = 0.0
        for ba in (0, 1):
            for bb in (0, 1):
                pa = plus[a] if ba else 1 - plus[a]
                pb = plus[b] if bb else 1 - plus[b]
                differ = ba != bb
                total += pa * pb * ((1 - c) if differ else c)
        return total

    expected = (after_move(0, 1) + after_move(1, 2)) / 2 / c
    assert change_evidence(eps, gamma, steps) == pytest.approx(expected, rel=1e-12)
    assert change_evidence(eps, 0.0, steps) == math.inf
    assert change_evidence(eps, 0.4999999, 32) == pytest.approx(1.0, abs=1e-5)


@pytest.mark.parametrize("values, kwargs", [
    (np.zeros(5), {}),
    (np.full((2, 3), 1.5), {}),
    (np.zeros((2, 3)), {"gamma": 0.5}),
    (np.zeros((2, 3)), {"steps": 0}),
])
def test_bad_input_is_refused(values, kwargs):
    with pytest.raises(InvalidInput):
        memoized_mean_rounds(values, 1.0, np.random.default_rng(0), **kwargs)


@pytest.mark.parametrize("d_prime, gamma", [(1, 0.0), (4, 0.0), (4, 0.15)])
def test_memoized_dbitflip_rounds_are_unbiased_with_the_stated_variance(d_prime, gamma):
    # 200 independent collections (one round, 2,000 users over d = 8): z per value standard normal. The mean of
    # 1,600 z's is within 4/√1600 = 0.1 of 0; their sd within 0.1 of 1 (sd of a sample sd ≈ 1/√3200 ≈ 0.018)
    codes = np.random.default_rng(5).integers(0, 8, 2000)[None, :]
    z = np.concatenate([memoized_histogram_rounds(codes, 1.0, 8, np.random.default_rng(s), d_prime=d_prime,
                                                  gamma=gamma).z_scores[0] for s in range(200)])
    assert abs(z.mean()) < 0.1
    assert 0.9 < z.std() < 1.1


def test_memoized_dbitflip_variance_is_one_time_dbitflip_without_perturbation():
    codes = np.random.default_rng(6).integers(0, 6, 3000)[None, :]
    run = memoized_histogram_rounds(codes, 2.0, 6, np.random.default_rng(7), d_prime=3)
    truth = np.bincount(codes[0], minlength=6) / 3000
    expected = np.sqrt(get_mechanism("dbitflip", 2.0, 6, d_prime=3).variance(truth, 3000))
    assert np.allclose(run.round_std[0], expected, rtol=1e-12)


def test_moving_between_unsampled_values_changes_nothing_sent():
    # d' = 1 of d = 50: a user whose value walks over the domain reveals at most two states (in her bucket or not)
    walk = np.random.default_rng(8).integers(0, 50, (40, 500))
    run = memoized_histogram_rounds(walk, 1.0, 50, np.random.default_rng(9), d_prime=1)
    assert run.revealed.max() <= 2 and np.all(run.epsilon_spent <= 2.0)
    steady = memoized_histogram_rounds(np.tile(walk[:1], (40, 1)), 1.0, 50, np.random.default_rng(9))
    assert np.all(steady.revealed == 1) and np.all(steady.bit_changes == 0)
