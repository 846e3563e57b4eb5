"""Iterative proportional fitting (IPF): the maximum-entropy table with given block sums.

A *constraint* is a target table of sums over blocks of a d₁ × … × d_k array: for each axis, either the axis is
summed out (``None``) or its indices are grouped into contiguous blocks given by their boundaries (``[0, …, d]``;
``arange(d + 1)`` keeps the axis whole). IPF (Deming–Stephan 1940) starts from the uniform table and, constraint by
constraint, rescales every cell of a block so the block's sum matches the target. When the targets are consistent it
converges to the table of maximum entropy among those meeting every constraint (Csiszár 1975) — the I-projection of
the uniform table, the same fit as log-linear models with exactly the constrained interactions. Inconsistent targets
(noisy estimates) make the cycle settle near a compromise; the caller then stops at ``max_iter``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ldp.core.errors import InvalidInput

__all__ = ["BlockConstraint", "block_sums", "ipf", "marginal_constraint"]


@dataclass(frozen=True)
class BlockConstraint:
    """Block sums ``target`` over the axes whose ``bounds`` are given (``None``: axis summed out).

    Parameters
    ----------
    bounds : tuple of (numpy.ndarray or None)
        Per axis of the table: the block edges (increasing cell indices from 0 to the axis length), or None to
        sum the axis out.
    target : numpy.ndarray
        The required block sums, one per block of the kept axes.
    """

    bounds: tuple[np.ndarray | None, ...]
    target: np.ndarray


def marginal_constraint(shape: Sequence[int], axes: Sequence[int], target: np.ndarray) -> BlockConstraint:
    """The constraint that the marginal over ``axes`` (every other axis summed out) equals ``target``.

    Parameters
    ----------
    shape : sequence of int
        The table's shape.
    axes : sequence of int
        The axes the marginal keeps (one block per cell along each).
    target : array_like
        The marginal, of the kept axes' shape.

    Returns
    -------
    BlockConstraint
        Single-cell blocks on the kept axes, the others summed out.
    """
    bounds = tuple(np.arange(int(d) + 1) if i in axes else None for i, d in enumerate(shape))
    return BlockConstraint(bounds, np.asarray(target, dtype=np.float64))


def block_sums(table: np.ndarray, bounds: Sequence[np.ndarray | None]) -> np.ndarray:
    """Sums of ``table`` over the blocks of ``bounds`` (an axis with ``None`` is summed out).

    Parameters
    ----------
    table : numpy.ndarray
        The table.
    bounds : sequence of (numpy.ndarray or None)
        Per axis: block edges, or None to sum the axis out (:class:`BlockConstraint`).

    Returns
    -------
    numpy.ndarray
        One sum per block of the kept axes.
    """
    out = table
    for axis, b in reversed(list(enumerate(bounds))):
        out = out.sum(axis=axis) if b is None else np.add.reduceat(out, np.asarray(b[:-1]), axis=axis)
    return out


def _spread(block_values: np.ndarray, bounds: Sequence[np.ndarray | None]) -> np.ndarray:
    """Each block's value repeated over its cells (broadcastable against the table)."""
    out = block_values
    for axis, b in enumerate(bounds):
        if b is None:
            out = np.expand_dims(out, axis)
        else:
            out = np.repeat(out, np.diff(b), axis=axis)
    return out


def ipf(shape: Sequence[int], constraints: Sequence[BlockConstraint], *, max_iter: int = 200,
        tol: float = 1e-10) -> tuple[np.ndarray, int, float]:
    """The maximum-entropy non-negative table meeting ``constraints`` (iterative proportional fitting).

    Parameters
    ----------
    shape : sequence of int
        The table's shape.
    constraints : sequence of BlockConstraint
        Block-sum targets (non-negative, each summing to the same total, normally 1).
    max_iter : int, default 200
        Full cycles over the constraints at most.
    tol : float, default 1e-10
        Stop when no block sum is further than ``tol`` from its target after a cycle.

    Returns
    -------
    (table, iterations, residual)
        The fitted table (summing to the first target's total), the cycles run, and the largest block-sum gap.
    """
    if not constraints:
        raise InvalidInput("IPF needs at least one constraint")
    for c in constraints:
        if len(c.bounds) != len(shape):
            raise InvalidInput(f"a constraint has {len(c.bounds)} axes for a table of {len(shape)}")
        if np.any(c.target < 0) or not np.all(np.isfinite(c.target)):
            raise InvalidInput("IPF targets must be finite and non-negative")
    total = float(constraints[0].target.sum())
    table = np.full(tuple(int(d) for d in shape), total / float(np.prod(shape)))
    residual = np.inf
    iterations = 0
    for iterations in range(1, max_iter + 1):  # noqa: B007 - the count is returned
        for c in constraints:
            current = block_sums(table, c.bounds)
            ratio = np.divide(c.target, current, out=np.zeros_like(current), where=current > 0)
            table *= _spread(ratio, c.bounds)
        residual = max(float(np.max(np.abs(block_sums(table, c.bounds) - c.target))) for c in constraints)
        if residual <= tol:
            break
    return table, iterations, residual
