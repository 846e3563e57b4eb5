"""Rounding a distribution to integer counts that sum exactly to n."""

from __future__ import annotations

import numpy as np

from ldp.core.errors import InvalidInput

__all__ = ["largest_remainder"]


def largest_remainder(freqs: np.ndarray, n: int) -> np.ndarray:
    """n units spread over the entries in proportion to ``freqs`` by largest remainder.

    The counts sum to n exactly and |count_v − n f_v / Σf| < 1 for every v (ties by index).

    Parameters
    ----------
    freqs : array_like
        A 1-D vector of finite, non-negative weights with a positive sum (normalised here).
    n : int
        The number of units (users) to spread, ≥ 0.

    Returns
    -------
    numpy.ndarray of int64
        The counts, summing to n.

    Raises
    ------
    InvalidInput
        For weights that are not a non-empty 1-D finite non-negative vector with a positive sum, or a bad n.
    """
    f = np.asarray(freqs, dtype=np.float64)
    if f.ndim != 1 or f.size < 1 or not np.all(np.isfinite(f)) or np.any(f < 0) or f.sum() <= 0:
        raise InvalidInput("frequencies must be finite, non-negative and not all zero")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise InvalidInput(f"the number of users must be a non-negative integer, got {n!r}")
    raw = f / f.sum() * int(n)
    counts = np.floor(raw).astype(np.int64)
    short = int(n) - int(counts.sum())
    if short > 0:
        order = np.argsort(-(raw - counts), kind="stable")[:short]
        counts[order] += 1
    return counts
