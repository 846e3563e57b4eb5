"""Iterative proportional fitting: the fitted table meets its marginals and is the maximum-entropy one."""

from __future__ import annotations

import numpy as np
import pytest

from ldp.core.errors import InvalidInput
from ldp.maths.ipf import BlockConstraint, block_sums, ipf, marginal_constraint


def pairwise(p: np.ndarray) -> list:
    return [marginal_constraint(p.shape, axes, p.sum(axis=3 - sum(axes))) for axes in ((0, 1), (0, 2), (1, 2))]


def test_three_way_fit_sums_to_one_and_matches_the_pairwise_marginals() -> None:
    p = np.random.default_rng(1).dirichlet(np.ones(60)).reshape(4, 3, 5)
    table, iterations, residual = ipf(p.shape, pairwise(p))
    assert table.sum() == pytest.approx(1.0, abs=1e-12)
    assert residual <= 1e-10 and iterations < 200
    for c in pairwise(p):
        np.testing.assert_allclose(block_sums(table, c.bounds), c.target, atol=1e-9)
    # a generic 3-way table has a three-way interaction: the max-entropy fit is another table with the same pairs
    assert np.abs(table - p).max() > 1e-4


def test_a_table_without_three_way_interaction_is_recovered_exactly() -> None:
    """A Markov chain x1 → x2 → x3 is p(1,2)·p(2,3)/p(2): the maximum-entropy table given its pairwise marginals."""
    rng = np.random.default_rng(2)
    first = rng.dirichlet(np.ones(4))
    k12, k23 = rng.dirichlet(np.ones(3), size=4), rng.dirichlet(np.ones(5), size=3)
    p = first[:, None, None] * k12[:, :, None] * k23[None, :, :]
    table, _, _ = ipf(p.shape, pairwise(p))
    np.testing.assert_allclose(table, p, atol=1e-9)


def test_block_constraints_refine_a_coarse_grid() -> None:
    """A 2 × 2 grid of blocks and the fine row sums: the cells of a block share its mass as the rows dictate."""
    rows = np.array([0.1, 0.2, 0.3, 0.4])
    grid = np.array([[0.2, 0.1], [0.3, 0.4]])
    b = np.array([0, 2, 4])
    table, _, residual = ipf((4, 4), [BlockConstraint((b, b), grid), BlockConstraint((np.arange(5), None), rows)])
    assert residual < 1e-9
    np.testing.assert_allclose(block_sums(table, (b, b)), grid, atol=1e-9)
    np.testing.assert_allclose(table.sum(axis=1), rows, atol=1e-9)
    np.testing.assert_allclose(table[:, 0], table[:, 1])  # nothing distinguishes the columns within a block


def test_bad_constraints_are_refused() -> None:
    with pytest.raises(InvalidInput):
        ipf((2, 2), [])
    with pytest.raises(InvalidInput):
        ipf((2, 2), [marginal_constraint((2, 2), (0,), np.array([-0.1, 1.1]))])
