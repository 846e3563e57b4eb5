"""The Sylvester–Hadamard matrix and its fast transform."""

from __future__ import annotations

import numpy as np

__all__ = ["fwht", "hadamard_sign"]


def fwht(x: np.ndarray) -> np.ndarray:
    """H x for the m × m Sylvester–Hadamard matrix (m a power of 2), unnormalized, O(m log m)."""
    y = np.array(x, dtype=np.float64)
    size = y.shape[0]
    h = 1
    while h < size:
        y = y.reshape(-1, 2, h)
        y = np.stack([y[:, 0] + y[:, 1], y[:, 0] - y[:, 1]], axis=1).reshape(size)
        h *= 2
    return y


def hadamard_sign(j: np.ndarray, a: np.ndarray) -> np.ndarray:
    """H[j, a] = (−1)^popcount(j & a), broadcast over ``j`` and ``a``."""
    return 1 - 2 * (np.bitwise_count(np.bitwise_and(j, a)) & 1).astype(np.int64)
