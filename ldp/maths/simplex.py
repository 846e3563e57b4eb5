"""Projection onto the probability simplex (Norm-Sub).

Consistency paper (Wang et al., NDSS 2020) §IV-C: Norm-Sub returns max(x_v − δ, 0) with δ chosen so that the
result sums to one — the exact Euclidean projection of x onto {f ≥ 0, Σ f = 1}, computed by sorting.
"""

from __future__ import annotations

import numpy as np

from ldp.core.errors import InvalidInput

__all__ = ["is_distribution", "norm_sub", "to_distribution"]


def norm_sub(estimate: np.ndarray) -> np.ndarray:
    """Norm-Sub: max(x_v − δ, 0) with δ chosen so the result sums to one (O(d log d)).

    Parameters
    ----------
    estimate : array_like
        An unbiased estimate (e.g. matrix inversion's), possibly negative: a non-empty 1-D vector of finite numbers.

    Returns
    -------
    numpy.ndarray
        The Euclidean projection onto the probability simplex: non-negative, summing to one.

    Raises
    ------
    InvalidInput
        For an estimate that is not a non-empty 1-D vector, or that holds NaN or infinity.

    References
    ----------
    Wang, Lopuhaä-Zwakenberg, Li, Škorić, Li — Locally Differentially Private Frequency Estimation with Consistency,
    NDSS 2020, §IV-C (Norm-Sub).
    """
    x = np.asarray(estimate, dtype=np.float64)
    if x.ndim != 1 or x.size < 1:
        raise InvalidInput(f"Norm-Sub needs a non-empty 1-D vector, got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise InvalidInput("Norm-Sub needs finite numbers (the estimate holds NaN or infinity)")
    srt = np.sort(x)[::-1]
    cums = np.cumsum(srt) - 1.0
    idx = np.arange(1, x.shape[0] + 1)
    ok = srt - cums / idx > 0
    rho = int(np.nonzero(ok)[0][-1]) + 1
    delta = cums[rho - 1] / rho
    return np.maximum(x - delta, 0.0)


def is_distribution(x: np.ndarray, atol: float = 1e-9) -> bool:
    """Whether ``x`` is non-negative and sums to one (within ``atol``).

    Parameters
    ----------
    x : array_like
        The vector.
    atol : float, default 1e-9
        The tolerance on |Σx − 1|.

    Returns
    -------
    bool
        True when every entry is finite and ≥ 0 and the sum is within ``atol`` of one.
    """
    v = np.asarray(x, dtype=np.float64)
    return bool(np.all(np.isfinite(v)) and np.all(v >= 0) and abs(v.sum() - 1.0) <= atol)


def to_distribution(x: np.ndarray) -> np.ndarray:
    """``x`` itself if it is a probability vector, else its Norm-Sub projection onto the simplex.

    Parameters
    ----------
    x : array_like
        A non-empty 1-D vector of finite numbers.

    Returns
    -------
    numpy.ndarray
        A distribution (``x`` as float64 when it already is one).

    Raises
    ------
    InvalidInput
        If ``x`` is not a non-empty 1-D vector of finite numbers.

    References
    ----------
    Consistency paper (Wang et al., NDSS'20), §IV-C (Norm-Sub).
    """
    v = np.asarray(x, dtype=np.float64)
    if v.ndim != 1 or v.size < 1 or not np.all(np.isfinite(v)):
        raise InvalidInput("a histogram must be a 1-D array of finite numbers")
    return v if is_distribution(v) else norm_sub(v)
