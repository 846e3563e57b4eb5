"""PEM's solved allocation (ldp.mechanisms.prefix_allocation): the model's expected number found grows with the
users and the solver never does worse than equal groups under it."""

from __future__ import annotations

import math

import numpy as np

from ldp.mechanisms.prefix_allocation import (
    expected_found,
    optimise_allocation,
    prefix_lengths,
    uniform_expected_found,
    zipf_prior,
)


def olh_variance(length: int) -> float:
    e = math.exp(2.0)
    return 4 * e / (e - 1) ** 2


def test_the_model_grows_with_the_users_and_is_bounded_by_k():
    prior = zipf_prior(8)
    lengths = prefix_lengths(16, 7, 4)
    assert lengths == [7, 11, 15, 16]
    found = [expected_found(np.full(4, 0.25), lengths, n, [olh_variance(x) for x in lengths], prior)
             for n in (10_000, 100_000, 1_000_000, 10**9)]
    assert np.all(np.diff(found) > 0) and 7.9 < found[-1] <= 8


def test_the_solver_is_at_least_the_uniform_groups_under_the_model():
    for n in (20_000, 200_000):
        best = optimise_allocation(16, 8, 3, 4, n, olh_variance)
        assert abs(sum(best.shares) - 1) < 1e-9 and best.lengths[-1] == 16
        assert best.expected_found >= uniform_expected_found(prefix_lengths(16, 7, 4), n, olh_variance, 8) - 1e-12
