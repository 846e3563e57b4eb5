"""Confidence intervals for frequency estimates from the closed-form variance.

Matrix-inversion estimates are sums of n independent bounded terms, so f̂(v) is close to Gaussian
with the mechanism's closed-form variance σ_v². A per-value interval is f̂(v) ± z σ_v with
z = Φ⁻¹(½ + level/2). A simultaneous band uses Šidák's correction z' = Φ⁻¹(½ + level^{1/d}/2): by
Šidák's inequality (1967), for any jointly Gaussian errors the probability that *every* value is
inside its interval is at least ``level``, so "every bar is inside" holds at the stated level.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import ndtri

from ldp.core.errors import LDPError


def _check_level(level: float) -> float:
    if not 0 < level < 1:
        raise LDPError(f"confidence level must lie strictly between 0 and 1, got {level}")
    return float(level)


def z_value(level: float) -> float:
    return float(ndtri(0.5 + _check_level(level) / 2))


def value_intervals(variances: np.ndarray, level: float = 0.95) -> np.ndarray:
    """Per-value half-widths z·σ_v (each interval covers its value with probability ``level``)."""
    return z_value(level) * np.sqrt(np.asarray(variances, dtype=np.float64))


def simultaneous_z(level: float, d: int) -> float:
    if d < 1:
        raise LDPError("need at least one value")
    per_value = _check_level(level) ** (1.0 / d)
    return float(ndtri(0.5 + per_value / 2))


def simultaneous_halfwidth(variances: np.ndarray, level: float = 0.95) -> np.ndarray:
    """Half-widths of a band that contains every value at once with probability ≥ ``level`` (Šidák)."""
    var = np.asarray(variances, dtype=np.float64)
    return simultaneous_z(level, var.shape[0]) * np.sqrt(var)


def coverage(true: np.ndarray, estimate: np.ndarray, halfwidth: np.ndarray) -> float:
    """Fraction of values whose true frequency lies inside estimate ± halfwidth."""
    return float(np.mean(np.abs(np.asarray(estimate) - np.asarray(true)) <= np.asarray(halfwidth)))


def standard_error(x: np.ndarray) -> float:
    """Standard error of the mean of ``x``: sd (ddof 1) / √len, NaN with fewer than two values."""
    arr = np.asarray(x, dtype=np.float64).ravel()
    return float(np.std(arr, ddof=1) / math.sqrt(arr.size)) if arr.size > 1 else float("nan")
