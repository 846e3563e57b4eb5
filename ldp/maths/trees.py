"""Consistent trees: aggregation, Hay et al.'s constrained inference and the ADMM projection with non-negativity
(square-wave paper §4.2–§4.3; Hay et al. 2010; Boyd et al. 2011). Pure numerical routines on per-depth node
estimates and their noise variances."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ldp.core.errors import InvalidInput

__all__ = ["ADMM_EPS_ABS", "ADMM_EPS_REL", "ADMM_MAX_ITER", "AdmmTrace", "admm_tree", "aggregate_tree",
           "constrained_inference", "tree_height"]

ADMM_EPS_ABS = 1e-9
ADMM_EPS_REL = 1e-6
ADMM_MAX_ITER = 2000


def tree_height(d: int, branching: int) -> int:
    """h = ⌈log_β d⌉ (at least 1): the tree has β^h ≥ d leaves.

    Parameters
    ----------
    d : int
        The number of leaves needed (the domain size).
    branching : int
        The branching factor β ≥ 2.

    Returns
    -------
    int
        The height h ≥ 1.
    """
    h, size = 1, branching
    while size < d:
        size *= branching
        h += 1
    return h


def aggregate_tree(leaves: np.ndarray, branching: int) -> list[np.ndarray]:
    """Node values of every depth 0..h from the β^h leaf values (parent = sum of children).

    Parameters
    ----------
    leaves : array_like
        The leaf values; their number must be a power of ``branching``.
    branching : int
        The branching factor β.

    Returns
    -------
    list of numpy.ndarray
        ``levels[k]`` holds the β^k node values at depth k (``levels[0]`` the root, ``levels[h]`` the leaves).

    Raises
    ------
    InvalidInput
        If the number of leaves is not a power of β.
    """
    leaves = np.asarray(leaves, dtype=np.float64)
    h = round(math.log(leaves.size, branching))
    if branching ** h != leaves.size:
        raise InvalidInput(f"{leaves.size} leaves is not a power of {branching}")
    levels = [leaves]
    for _ in range(h):
        levels.append(levels[-1].reshape(-1, branching).sum(axis=1))
    return levels[::-1]


def constrained_inference(levels: list[np.ndarray], variances: Any, branching: int,
                          root: float | None = 1.0) -> list[np.ndarray]:
    """Hay et al.'s two-pass constrained inference with a noise variance per depth (§4.2, [17]).

    ``levels[k]`` are the noisy node estimates at depth k (β^k values; ``levels[0]`` the root),
    ``variances[k]`` their common variance. ``root`` fixes the root (variance 0) — the known total; with
    ``root=None`` the root's own estimate and variance are used. Returns the consistent tree (every node
    the sum of its children) that minimizes Σ_k Σ_v (x̄_v − x̃_v)²/σ_k²: exact GLS, since siblings share
    their variance. O(β^h).

    Parameters
    ----------
    levels : list of numpy.ndarray
        The noisy node estimates per depth, root first.
    variances : array_like
        The noise variance of each depth (length h + 1; ``inf`` marks a depth with no estimate of its own).
    branching : int
        The branching factor β.
    root : float or None, default 1.0
        The known root value (the total), or None to use the root's estimate.

    Returns
    -------
    list of numpy.ndarray
        The consistent node values per depth, in the layout of ``levels``.

    References
    ----------
    Square-wave paper (Li et al., SIGMOD'20), §4.2; Hay, Rastogi, Miklau, Suciu, "Boosting the accuracy of
    differentially private histograms through consistency", PVLDB 2010.
    """
    h = len(levels) - 1
    var = np.asarray(variances, dtype=np.float64)
    z: list[np.ndarray] = [np.asarray(x, dtype=np.float64) for x in levels]
    s2 = np.empty(h + 1)
    s2[h] = var[h]
    for k in range(h - 1, -1, -1):  # bottom-up weighted averaging
        child_sum = z[k + 1].reshape(-1, branching).sum(axis=1)
        child_var = branching * s2[k + 1]
        if k == 0 and root is not None:
            z[0] = np.array([float(root)])
            s2[0] = 0.0
            continue
        if var[k] == np.inf:
            z[k], s2[k] = child_sum, child_var
            continue
        a, b = 1.0 / var[k], 1.0 / child_var
        z[k] = (a * z[k] + b * child_sum) / (a + b)
        s2[k] = 1.0 / (a + b)
    out = [z[0]]
    for k in range(1, h + 1):  # top-down mean consistency
        zk = z[k].reshape(-1, branching)
        gap = out[k - 1] - zk.sum(axis=1)
        out.append((zk + gap[:, None] / branching).ravel())
    return out


@dataclass(frozen=True)
class AdmmTrace:
    """How ADMM stopped: iterations run, final primal/dual residuals, whether the rule was met.

    Parameters
    ----------
    iterations : int
        The ADMM iterations run.
    primal_residual : float
        ‖x − z‖ at the last iteration.
    dual_residual : float
        ρ‖z − z_prev‖ at the last iteration.
    converged : bool
        Whether both residuals met Boyd et al.'s stopping rule before ``max_iter``.
    """

    iterations: int
    primal_residual: float
    dual_residual: float
    converged: bool


def admm_tree(levels: list[np.ndarray], variances: Any, branching: int, *, fixed_zero: np.ndarray | None = None,
              rho: float = 1.0, eps_abs: float = ADMM_EPS_ABS, eps_rel: float = ADMM_EPS_REL,
              max_iter: int = ADMM_MAX_ITER) -> tuple[np.ndarray, AdmmTrace]:
    """HH-ADMM, Eq. (2) of §4.3: min ½‖x − x̃‖²_W s.t. A x = 0, x ≥ 0, x_root = 1, W = diag(1/σ²_depth).

    Split x (consistent tree, root 1) and z (x ≥ 0): Boyd et al. [7] scaled-form ADMM,
    x ← Proj_W+ρ(consistent, root 1)[(W x̃ + ρ(z − u))/(W + ρ)]  (= :func:`constrained_inference` with
    per-depth variances 1/(w_k + ρ)), z ← max(0, x + u) (0 on ``fixed_zero`` leaves, e.g. padding),
    u ← u + x − z. Stops when ‖r‖ ≤ √N ε_abs + ε_rel max(‖x‖, ‖z‖) and ‖s‖ ≤ √N ε_abs + ε_rel ‖ρu‖ (Boyd
    §3.3.1); ρ is rebalanced ×/÷2 when one residual exceeds 10× the other (§3.4.1). Returns the leaves of
    z renormalized to sum exactly to one, and the trace.

    Parameters
    ----------
    levels : list of numpy.ndarray
        The noisy node estimates per depth, root first (the root's is ignored: it is fixed to 1).
    variances : array_like
        The noise variance of each depth (length h + 1; the root's is ignored).
    branching : int
        The branching factor β.
    fixed_zero : numpy.ndarray of bool, optional
        Leaves forced to 0 (e.g. padding beyond the domain); a node is forced to 0 when all its leaves are.
    rho : float, default 1.0
        The initial ADMM penalty ρ.
    eps_abs, eps_rel : float
        The absolute and relative tolerances of the stopping rule.
    max_iter : int, default 2000
        The iteration cap.

    Returns
    -------
    tuple of (numpy.ndarray, AdmmTrace)
        The β^h leaves (non-negative, summing to one; uniform over the free leaves if z vanished) and the trace.

    References
    ----------
    Square-wave paper (Li et al., SIGMOD'20), §4.3, Eq. (2) (HH-ADMM); Boyd, Parikh, Chu, Peleato, Eckstein,
    "Distributed optimization and statistical learning via ADMM", 2011, §3.3.1 and §3.4.1.
    """
    h = len(levels) - 1
    var = np.asarray(variances, dtype=np.float64)[1:]
    w = 1.0 / var
    w = w / w.mean()  # scale-free objective so that ρ = 1 is a sensible start
    sizes = [branching ** k for k in range(1, h + 1)]
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    n_nodes = int(offsets[-1])
    xt = np.concatenate([np.asarray(levels[k], dtype=np.float64) for k in range(1, h + 1)])
    wv = np.repeat(w, sizes)
    zero_mask = np.zeros(n_nodes, dtype=bool)
    if fixed_zero is not None and np.any(fixed_zero):
        leaf_zero = np.asarray(fixed_zero, dtype=bool)
        for k in range(1, h + 1):  # a node is forced to 0 if all its leaves are
            zero_mask[offsets[k - 1]:offsets[k]] = leaf_zero.reshape(sizes[k - 1], -1).all(axis=1)
    # warm start from the (weighted) CI solution clipped at 0
    ci = constrained_inference([np.ones(1)] + [xt[offsets[k - 1]:offsets[k]] for k in range(1, h + 1)],
                               np.concatenate([[0.0], var]), branching)
    x = np.concatenate(ci[1:])
    z = np.maximum(x, 0.0)
    z[zero_mask] = 0.0
    u = np.zeros(n_nodes)
    sqrt_n = math.sqrt(n_nodes)
    r_norm = s_norm = math.inf
    it = 0
    converged = False
    while it < max_iter:
        it += 1
        denom = wv + rho
        c = (wv * xt + rho * (z - u)) / denom
        lv = np.concatenate([[0.0], 1.0 / (w + rho)])
        tree = constrained_inference([np.ones(1)] + [c[offsets[k - 1]:offsets[k]] for k in range(1, h + 1)],
                                     lv, branching)
        x = np.concatenate(tree[1:])
        z_old = z
        z = np.maximum(x + u, 0.0)
        z[zero_mask] = 0.0
        r = x - z
        u = u + r
        r_norm = float(np.linalg.norm(r))
        s_norm = rho * float(np.linalg.norm(z - z_old))
        eps_pri = sqrt_n * eps_abs + eps_rel * max(float(np.linalg.norm(x)), float(np.linalg.norm(z)))
        eps_dual = sqrt_n * eps_abs + eps_rel * rho * float(np.linalg.norm(u))
        if r_norm <= eps_pri and s_norm <= eps_dual:
            converged = True
            break
        if r_norm > 10.0 * s_norm:
            rho *= 2.0
            u /= 2.0
        elif s_norm > 10.0 * r_norm:
            rho /= 2.0
            u *= 2.0
    leaves = z[offsets[h - 1]:offsets[h]].copy()
    total = leaves.sum()
    leaves = leaves / total if total > 0 else np.where(zero_mask[offsets[h - 1]:], 0.0, 1.0) / max(
        1, int((~zero_mask[offsets[h - 1]:]).sum()))
    return leaves, AdmmTrace(it, r_norm, s_norm, converged)
