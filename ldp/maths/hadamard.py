"""The Sylvester–Hadamard matrix and its fast transform."""

from __future__ import annotations

import numpy as np

__all__ = ["fwht", "hadamard_sign"]


def fwht(x: np.ndarray) -> np.ndarray:
    """H x for the m × m Sylvester–Hadamard matrix (m a power of 2), unnormalized, O(m log m).

    Parameters
    ----------
    x : array_like
        A vector of length m, a power of 2 (a copy is transformed).

    Returns
    -------
    numpy.ndarray
        H x (float64), with H[j, a] = (−1)^popcount(j & a).
    """
    y = np.array(x, dtype=np.float64)
    size = y.shape[0]
    h = 1
    while h < size:
        y = y.reshape(-1, 2, h)
        y = np.stack([y[:, 0] + y[:, 1], y[:, 0] - y[:, 1]], axis=1).reshape(size)
        h *= 2
    return y


def hadamard_sign(j: np.ndarray, a: np.ndarray) -> np.ndarray:
    """H[j, a] = (−1)^popcount(j & a), broadcast over ``j`` and ``a``.

    Parameters
    ----------
    j, a : array_like of int
        Row and column indices (non-negative integers), broadcastable.

    Returns
    -------
    numpy.ndarray of int64
        The entries, ±1.
    """
    return 1 - 2 * (np.bitwise_count(np.bitwise_and(j, a)) & 1).astype(np.int64)
