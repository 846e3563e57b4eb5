"""A histogram with real-unit bin edges read as a density that is uniform within each bin.

Its CDF is piecewise linear between the edges, so every quantity here (CDF, quantiles, moments, range answers)
is exact for that density (square-wave paper §3). Estimates that are not distributions can be projected onto
the simplex first with :func:`ldp.maths.simplex.to_distribution`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ldp.core.errors import InvalidInput

__all__ = ["DECILES", "cdf_at", "cdf_at_edges", "check_edges", "density", "moments", "quantile_values",
           "range_answers", "unit_edges"]

DECILES = tuple(round(0.1 * i, 1) for i in range(1, 10))


def unit_edges(d: int) -> np.ndarray:
    """Edges 0, 1, …, d: bins of width 1 in the domain's order (categorical data).

    Parameters
    ----------
    d : int
        Number of bins.

    Returns
    -------
    numpy.ndarray
        The d + 1 edges as float64.
    """
    return np.arange(int(d) + 1, dtype=np.float64)


def check_edges(edges: np.ndarray | None, d: int) -> np.ndarray:
    """d + 1 finite, strictly increasing edges (unit-width bins when None).

    Parameters
    ----------
    edges : array_like or None
        Bin edges in the data's unit, or None for :func:`unit_edges`.
    d : int
        Number of bins.

    Returns
    -------
    numpy.ndarray
        The edges as float64, shape ``(d + 1,)``.

    Raises
    ------
    InvalidInput
        If there are not d + 1 edges, or they are not finite and strictly increasing.
    """
    if edges is None:
        return unit_edges(d)
    e = np.asarray(edges, dtype=np.float64)
    if e.ndim != 1 or e.size != d + 1:
        raise InvalidInput(f"a histogram with {d} bins needs {d + 1} edges, got shape {e.shape}")
    if not (np.all(np.isfinite(e)) and np.all(np.diff(e) > 0)):
        raise InvalidInput("edges must be finite and strictly increasing")
    return e


def density(edges: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Density per bin in the data's unit: frequency / bin width (no projection: shows raw estimates).

    Parameters
    ----------
    edges : array_like or None
        The d + 1 bin edges (unit-width bins when None).
    p : array_like
        Frequency of each of the d bins (need not be a distribution).

    Returns
    -------
    numpy.ndarray
        ``p_k / (e_{k+1} − e_k)`` for each bin.

    Raises
    ------
    InvalidInput
        If the edges do not fit ``p`` (see :func:`check_edges`).
    """
    f = np.asarray(p, dtype=np.float64)
    return f / np.diff(check_edges(edges, f.size))


def cdf_at_edges(p: np.ndarray) -> np.ndarray:
    """P(x ≤ e_k) = Σ_{j<k} p_j at the d + 1 edges (0 … Σp).

    Parameters
    ----------
    p : array_like
        Frequency of each of the d bins.

    Returns
    -------
    numpy.ndarray
        The cumulative sums, shape ``(d + 1,)``, starting at 0.
    """
    f = np.asarray(p, dtype=np.float64)
    return np.concatenate([[0.0], np.cumsum(f)])


def cdf_at(edges: np.ndarray, p: np.ndarray, x: np.ndarray | float) -> np.ndarray:
    """CDF of the uniform-within-bin density at points ``x`` (linear interpolation between edges).

    Parameters
    ----------
    edges : array_like or None
        The d + 1 bin edges (unit-width bins when None).
    p : array_like
        Frequency of each of the d bins.
    x : float or array_like
        Points in the data's unit; below the first edge the CDF is 0, above the last Σp.

    Returns
    -------
    numpy.ndarray
        P(p, x) at each point (square-wave paper §3's cumulative function for a continuous domain).

    Raises
    ------
    InvalidInput
        If the edges do not fit ``p``.
    """
    f = np.asarray(p, dtype=np.float64)
    return np.interp(np.asarray(x, dtype=np.float64), check_edges(edges, f.size), cdf_at_edges(f))


def moments(edges: np.ndarray, p: np.ndarray) -> tuple[float, float]:
    """Mean Σ p_k c_k and variance Σ p_k (c_k² + w_k²/12) − mean² (c_k centre, w_k width of bin k).

    Exact for the density uniform within each bin; the square-wave paper's mean and variance statistics (§3, §6).

    Parameters
    ----------
    edges : array_like or None
        The d + 1 bin edges (unit-width bins when None).
    p : array_like
        Frequency of each of the d bins (a distribution for the result to be a mean and variance).

    Returns
    -------
    tuple of float
        ``(mean, variance)`` in the data's unit (and its square).

    Raises
    ------
    InvalidInput
        If the edges do not fit ``p``.
    """
    f = np.asarray(p, dtype=np.float64)
    e = check_edges(edges, f.size)
    c = (e[:-1] + e[1:]) / 2
    w = np.diff(e)
    mean = float(np.sum(f * c))
    second = float(np.sum(f * (c**2 + w**2 / 12)))
    return mean, second - mean**2


def quantile_values(edges: np.ndarray, p: np.ndarray, quantiles: Sequence[float] = DECILES) -> np.ndarray:
    """Q(p, β) = the smallest x with P(p, x) ≥ β (inverse of the piecewise-linear CDF) for a distribution p.

    Parameters
    ----------
    edges : array_like or None
        The d + 1 bin edges (unit-width bins when None).
    p : array_like
        A distribution over the d bins (the last edge is taken to hold all the mass).
    quantiles : sequence of float, default DECILES
        Levels β strictly between 0 and 1 (the paper's B = {10%, …, 90%}).

    Returns
    -------
    numpy.ndarray
        One value per level, in the data's unit.

    Raises
    ------
    InvalidInput
        If the levels are empty or not strictly inside (0, 1), or the edges do not fit ``p``.

    References
    ----------
    Square-wave paper (Li et al., SIGMOD'20), §3 "Quantiles": Q(x, β).
    """
    beta = np.asarray(list(quantiles), dtype=np.float64)
    if beta.ndim != 1 or beta.size == 0 or np.any(beta <= 0) or np.any(beta >= 1):
        raise InvalidInput("quantile levels must be fractions strictly between 0 and 1")
    f = np.asarray(p, dtype=np.float64)
    e = check_edges(edges, f.size)
    cdf = cdf_at_edges(f)
    cdf[-1] = 1.0  # guard against rounding: the last edge holds all the mass
    k = np.minimum(np.searchsorted(cdf[1:], beta, side="left"), f.size - 1)  # first bin reaching β
    with np.errstate(invalid="ignore", divide="ignore"):
        frac = np.where(f[k] > 0, (beta - cdf[k]) / f[k], 0.0)
    return e[k] + np.clip(frac, 0.0, 1.0) * (e[k + 1] - e[k])


def range_answers(edges: np.ndarray, p: np.ndarray, lefts: np.ndarray, width: float) -> np.ndarray:
    """R(p, i, α) = P(p, i + width) − P(p, i) for every left end i (real units).

    Parameters
    ----------
    edges : array_like or None
        The d + 1 bin edges (unit-width bins when None), in the unit of ``lefts`` and ``width``.
    p : array_like
        Frequency of each of the d bins, read as a density uniform within each bin.
    lefts : array_like
        Left ends i of the ranges, in the data's unit.
    width : float
        The range size α, in the data's unit.

    Returns
    -------
    numpy.ndarray
        The mass of each range [i, i + α].

    Raises
    ------
    InvalidInput
        If the edges do not fit ``p``.

    References
    ----------
    Square-wave paper (Li et al., SIGMOD'20), §3 "Range Query": R(x, i, α).
    """
    lo = np.asarray(lefts, dtype=np.float64)
    return cdf_at(edges, p, lo + width) - cdf_at(edges, p, lo)
