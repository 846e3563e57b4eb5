"""Consistent trees (ldp.maths.trees, square-wave paper §4.2–§4.3): tree aggregation, Hay et al.'s constrained
inference as the weighted least-squares consistent tree, and the ADMM projection with non-negativity."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ldp
from ldp.maths.trees import AdmmTrace, admm_tree, aggregate_tree, constrained_inference, tree_height


def noisy_levels(beta: int, h: int, rng: np.random.Generator, scale: float = 0.05) -> tuple[list, np.ndarray]:
    leaves = rng.dirichlet(np.ones(beta ** h))
    true = aggregate_tree(leaves, beta)
    var = np.array([0.0] + [scale ** 2 * (1 + k) for k in range(1, h + 1)])
    noisy = [np.ones(1)] + [true[k] + rng.normal(0, math.sqrt(var[k]), true[k].size) for k in range(1, h + 1)]
    return noisy, var


def tree_matrix(beta: int, h: int) -> np.ndarray:
    """Rows: nodes of depths 1..h; columns: leaves; entry 1 if the leaf is under the node."""
    rows = []
    for k in range(1, h + 1):
        span = beta ** (h - k)
        rows.append(np.kron(np.eye(beta ** k), np.ones((1, span))))
    return np.vstack(rows)


def test_tree_height_and_aggregation():
    assert tree_height(64, 4) == 3 and tree_height(65, 4) == 4 and tree_height(2, 4) == 1 and tree_height(1024, 2) == 10
    levels = aggregate_tree(np.arange(16.0), 4)
    assert [lv.size for lv in levels] == [1, 4, 16]
    assert levels[1].tolist() == [6.0, 22.0, 38.0, 54.0] and levels[0][0] == 120.0
    with pytest.raises(ldp.LDPError, match="power of 4"):
        aggregate_tree(np.ones(10), 4)


@pytest.mark.parametrize("beta,h", [(4, 3), (2, 4), (3, 2)])
def test_ci_is_consistent_and_is_the_weighted_least_squares_tree(beta, h):
    rng = np.random.default_rng(beta * 10 + h)
    noisy, var = noisy_levels(beta, h, rng)
    out = constrained_inference(noisy, var, beta)
    assert out[0][0] == 1.0
    for k in range(h):  # parent = sum of children
        np.testing.assert_allclose(out[k], out[k + 1].reshape(-1, beta).sum(axis=1), atol=1e-12)
    # GLS over consistent trees with root 1: min Σ (T y − x̃)²/σ² s.t. Σ y = 1 (KKT system)
    t = tree_matrix(beta, h)
    w = np.repeat(1.0 / var[1:], [beta ** k for k in range(1, h + 1)])
    x = np.concatenate(noisy[1:])
    n = t.shape[1]
    kkt = np.block([[t.T @ (w[:, None] * t), np.ones((n, 1))], [np.ones((1, n)), np.zeros((1, 1))]])
    sol = np.linalg.solve(kkt, np.concatenate([t.T @ (w * x), [1.0]]))
    np.testing.assert_allclose(out[-1], sol[:n], atol=1e-10)


def simplex_qp(q: np.ndarray, c: np.ndarray) -> np.ndarray:
    """The exact minimizer of ½ yᵀQy − cᵀy over y ≥ 0, Σ y = 1 (Q positive definite), by active sets: solve the
    equality-constrained problem on a support S (its KKT system), drop the most negative value, or add the leaf
    whose multiplier μ_i = (Qy − c)_i + λ is most negative, until y_S ≥ 0 and μ ≥ 0 off S — the KKT conditions,
    sufficient for a convex problem, so the answer is certified rather than trusted to a general solver's
    convergence (SciPy 1.17's SLSQP stopped on (4, 2) with "positive directional derivative for linesearch")."""
    n = c.size
    support = np.ones(n, dtype=bool)
    for _ in range(4 * n):
        k = int(support.sum())
        kkt = np.block([[q[np.ix_(support, support)], np.ones((k, 1))], [np.ones((1, k)), np.zeros((1, 1))]])
        sol = np.linalg.solve(kkt, np.concatenate([c[support], [1.0]]))
        y = np.zeros(n)
        y[support] = sol[:k]
        if y.min() < 0:
            support[np.argmin(y)] = False
            continue
        mu = q @ y - c + sol[k]
        if (~support).any() and mu[~support].min() < -1e-12:
            support[np.flatnonzero(~support)[np.argmin(mu[~support])]] = True
            continue
        return y
    raise AssertionError("the active-set reference did not settle")


@pytest.mark.parametrize("beta,h", [(4, 2), (2, 4)])
def test_admm_solves_the_constrained_least_squares_problem(beta, h):
    rng = np.random.default_rng(3 + beta)
    noisy, var = noisy_levels(beta, h, rng, scale=0.15)
    leaves, trace = admm_tree(noisy, var, beta)
    assert isinstance(trace, AdmmTrace) and trace.converged and trace.iterations >= 1
    assert np.all(leaves >= 0) and leaves.sum() == pytest.approx(1.0, abs=1e-12)
    # reference: the same QP in the leaves (x ≥ 0 on a consistent tree ⇔ leaves ≥ 0), solved exactly
    t = tree_matrix(beta, h)
    w = np.repeat(1.0 / var[1:], [beta ** k for k in range(1, h + 1)])
    x = np.concatenate(noisy[1:])
    q, c = t.T @ (w[:, None] * t), t.T @ (w * x)
    ref = simplex_qp(q, c)
    assert 0 < np.count_nonzero(ref) < ref.size  # the non-negativity binds: not the unconstrained answer
    # ADMM's stopping rule (ε_rel = 1e-6 on residuals of order one) leaves about 1e-6 per leaf
    np.testing.assert_allclose(leaves, ref, atol=2e-5)
    objective = lambda y: 0.5 * y @ q @ y - c @ y  # noqa: E731
    assert objective(ref) <= objective(leaves) <= objective(ref) + 1e-7


def test_admm_keeps_padding_leaves_at_zero_and_reports_non_convergence():
    rng = np.random.default_rng(8)
    noisy, var = noisy_levels(4, 2, rng, scale=0.15)
    pad = np.zeros(16, dtype=bool)
    pad[13:] = True  # d = 13 real buckets of 16 leaves
    leaves, trace = admm_tree(noisy, var, 4, fixed_zero=pad)
    assert trace.converged and np.all(leaves[pad] == 0) and leaves.sum() == pytest.approx(1.0, abs=1e-12)
    capped, short = admm_tree(noisy, var, 4, max_iter=2)
    assert not short.converged and short.iterations == 2
    assert np.all(np.isfinite(capped))
