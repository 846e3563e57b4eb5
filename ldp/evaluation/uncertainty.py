"""Confidence intervals for frequency estimates from the closed-form variance.

Matrix-inversion estimates are sums of n independent bounded terms, so f̂(v) is close to Gaussian
with the mechanism's closed-form variance σ_v². A per-value interval is f̂(v) ± z σ_v with
z = Φ⁻¹(½ + level/2). A simultaneous band uses Šidák's correction z' = Φ⁻¹(½ + level^{1/d}/2): by
Šidák's inequality (1967), for any jointly Gaussian errors the probability that *every* value is
inside its interval is at least ``level``, so "every bar is inside" holds at the stated level.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ldp.core.errors import InvalidInput
from ldp.core.params import check_positive_int
from ldp.maths.gaussian import normal_quantile

__all__ = ["EXACT_COUNT_VARIANCE", "FrequencyIntervals", "coverage", "estimate_intervals", "frequency_intervals",
           "simultaneous_halfwidth", "simultaneous_z", "standard_error", "value_intervals", "z_value"]


def _check_level(level: float) -> float:
    if not 0 < level < 1:
        raise InvalidInput(f"confidence level must lie strictly between 0 and 1, got {level}")
    return float(level)


def z_value(level: float) -> float:
    """The two-sided normal quantile z = Φ⁻¹(½ + level/2) of a per-value interval.

    Parameters
    ----------
    level : float
        The confidence level, strictly between 0 and 1.

    Returns
    -------
    float
        z (1.96 at level 0.95).

    Raises
    ------
    InvalidInput
        If ``level`` is not in (0, 1).
    """
    return normal_quantile(0.5 + _check_level(level) / 2)


def value_intervals(variances: np.ndarray, level: float = 0.95) -> np.ndarray:
    """Per-value half-widths z·σ_v (each interval covers its value with probability ``level``).

    Parameters
    ----------
    variances : array_like
        The closed-form variance σ_v² of each value's estimate.
    level : float, default 0.95
        The per-value confidence level, in (0, 1).

    Returns
    -------
    numpy.ndarray
        The half-widths, one per value.

    Raises
    ------
    InvalidInput
        If ``level`` is not in (0, 1).
    """
    return z_value(level) * np.sqrt(np.asarray(variances, dtype=np.float64))


def simultaneous_z(level: float, d: int) -> float:
    """Šidák's z' = Φ⁻¹(½ + level^{1/d}/2): every one of d Gaussian values is inside ± z'σ with probability ≥ level.

    Parameters
    ----------
    level : float
        The simultaneous confidence level, in (0, 1).
    d : int
        The number of values (≥ 1).

    Returns
    -------
    float
        z'.

    Raises
    ------
    InvalidInput
        If ``level`` is not in (0, 1) or d < 1.
    """
    if d < 1:
        raise InvalidInput("need at least one value")
    per_value = _check_level(level) ** (1.0 / d)
    return normal_quantile(0.5 + per_value / 2)


def simultaneous_halfwidth(variances: np.ndarray, level: float = 0.95) -> np.ndarray:
    """Half-widths of a band that contains every value at once with probability ≥ ``level`` (Šidák).

    Parameters
    ----------
    variances : array_like
        The closed-form variance σ_v² of each of the d values' estimates.
    level : float, default 0.95
        The simultaneous confidence level, in (0, 1).

    Returns
    -------
    numpy.ndarray
        z'·σ_v for each value (see :func:`simultaneous_z`).

    Raises
    ------
    InvalidInput
        If ``level`` is not in (0, 1) or there are no values.
    """
    var = np.asarray(variances, dtype=np.float64)
    return simultaneous_z(level, var.shape[0]) * np.sqrt(var)


def coverage(true: np.ndarray, estimate: np.ndarray, halfwidth: np.ndarray) -> float:
    """Fraction of values whose true frequency lies inside estimate ± halfwidth.

    Parameters
    ----------
    true : array_like
        The true frequencies.
    estimate : array_like
        The estimate (same shape).
    halfwidth : array_like
        The intervals' half-widths (broadcastable).

    Returns
    -------
    float
        The covered fraction, in [0, 1].
    """
    return float(np.mean(np.abs(np.asarray(estimate) - np.asarray(true)) <= np.asarray(halfwidth)))


def standard_error(x: np.ndarray) -> float:
    """Standard error of the mean of ``x``: sd (ddof 1) / √len, NaN with fewer than two values.

    Parameters
    ----------
    x : array_like
        The sample (flattened).

    Returns
    -------
    float
        The standard error, or NaN for fewer than two values.
    """
    arr = np.asarray(x, dtype=np.float64).ravel()
    return float(np.std(arr, ddof=1) / math.sqrt(arr.size)) if arr.size > 1 else float("nan")


# =========================================================================== intervals that hold at small counts
#: Below this variance of a support count the per-value interval is exact (binomial test inversion); above it
#: the count's skewness is at most 1/√2500 = 0.02 and the normal quantile errs by ≲ 1 % of the half-width
#: (Cornish–Fisher: relative error ≈ γ(z² − 1)/(6z) ≤ 0.02·15/24 at z = 4, the simultaneous z of d ≈ 10³).
EXACT_COUNT_VARIANCE = 2500.0
_TAIL_SDS = 10.0  # the convolution sums the narrower binomial over its mean ± 10 sd (tail mass < 1e-20)


@dataclass(frozen=True)
class FrequencyIntervals:
    """Confidence intervals [low, high] for every value's frequency, from one collection's support counts.

    ``simultaneous``: the band holds every value at once with probability ≥ ``level``; ``method`` says per
    value whether its interval is ``"exact"`` (binomial test inversion) or ``"normal"``; ``notes`` explain.

    Parameters
    ----------
    low, high : numpy.ndarray
        The interval ends per value (frequencies; ``low`` may be below 0 for a normal interval).
    level : float
        The confidence level, in (0, 1).
    simultaneous : bool
        Whether the level holds for all values at once (Bonferroni) rather than per value.
    method : numpy.ndarray of str
        ``"exact"`` or ``"normal"`` per value.
    notes : tuple of str, default ()
        One-line explanations for a page to show.
    """

    low: np.ndarray
    high: np.ndarray
    level: float
    simultaneous: bool
    method: np.ndarray
    notes: tuple[str, ...] = ()

    def covers(self, truth: np.ndarray) -> np.ndarray:
        t = np.asarray(truth, dtype=np.float64)
        return (self.low <= t) & (t <= self.high)

    @property
    def exact_share(self) -> float:
        return float(np.mean(self.method == "exact"))


def _binom_cdf(k: np.ndarray, trials: np.ndarray, prob: np.ndarray) -> np.ndarray:
    """P(Bin(trials, prob) ≤ k), elementwise, for any real k (0 below 0, 1 from trials on)."""
    from scipy.special import bdtr  # on first use (ldp.maths.gaussian.normal_quantile says why)

    k, trials, prob = np.broadcast_arrays(np.floor(k), trials, prob)
    inside = (k >= 0) & (k < trials)
    out = np.where(k >= trials, 1.0, 0.0)
    if np.any(inside):
        out[inside] = bdtr(k[inside].astype(np.int64), trials[inside].astype(np.int64), prob[inside])
    return out


def _binom_pmf(k: np.ndarray, trials: np.ndarray, prob: np.ndarray) -> np.ndarray:
    from scipy.special import gammaln, xlog1py, xlogy  # on first use (as _binom_cdf)

    log = (gammaln(trials + 1) - gammaln(k + 1) - gammaln(trials - k + 1) + xlogy(k, prob)
           + xlog1py(trials - k, -prob))
    return np.where((k >= 0) & (k <= trials), np.exp(log), 0.0)


def _binom_pmf_run(first: np.ndarray, width: int, trials: np.ndarray, prob: np.ndarray) -> np.ndarray:
    """pmf of Bin(trials, prob) at k = first, first + 1, …, first + width − 1 for each row: one log-gamma pmf per
    row at the run's first k in [0, trials], then the ratio pmf(k + 1)/pmf(k) = (N − k)/(k + 1)·p/(1 − p)
    accumulated in logs (a few flops per cell instead of three log-gammas)."""
    k = first[:, None] + np.arange(width)[None, :]
    n_, p_ = trials[:, None], prob[:, None]
    anchor = np.clip(first, 0, trials)
    with np.errstate(divide="ignore", invalid="ignore"):
        step = np.where(k < 0, 0.0, np.where(k < n_, np.log(n_ - k) - np.log(k + 1) + np.log(p_) - np.log1p(-p_),
                                             -np.inf))
    before = np.concatenate([np.zeros((k.shape[0], 1)), np.cumsum(step[:, :-1], axis=1)], axis=1)
    col = (anchor - first).astype(np.int64)
    inside = (col >= 0) & (col < width)
    base = np.zeros(k.shape[0])
    base[inside] = before[np.flatnonzero(inside), col[inside]]
    with np.errstate(divide="ignore"):  # a pmf that underflows to 0 is −inf in logs, 0 again below
        log_anchor = np.log(_binom_pmf(anchor, trials, prob))
    with np.errstate(invalid="ignore"):
        out = np.exp(log_anchor[:, None] + before - base[:, None])
    return np.where((k >= 0) & (k <= n_) & inside[:, None], np.nan_to_num(out, nan=0.0), 0.0)


def _count_cdf(c: np.ndarray, m: np.ndarray, n: int, p: float, q: float) -> np.ndarray:
    """P(X + Y ≤ c) for X ~ Bin(m, p), Y ~ Bin(n − m, q), elementwise over (c, m): Σ over the narrower of the
    two binomials (mean ± 10 sd) of its pmf times the other's cdf."""
    c = np.asarray(c, dtype=np.float64)
    m = np.asarray(m, dtype=np.float64)
    rest = n - m
    sx, sy = np.sqrt(m * p * (1 - p)), np.sqrt(rest * q * (1 - q))
    over_x = sx <= sy
    trials = np.where(over_x, m, rest)
    prob = np.where(over_x, p, q)
    other_trials = np.where(over_x, rest, m)
    other_prob = np.where(over_x, q, p)
    mean, sd = trials * prob, np.where(over_x, sx, sy)
    start = np.clip(np.floor(mean - _TAIL_SDS * sd - 1), 0, None)
    stop = np.minimum(np.minimum(np.ceil(mean + _TAIL_SDS * sd + 1), trials), np.maximum(c, -1))
    out = np.zeros(c.shape)
    spans = np.maximum(stop - start, 0.0) + 1
    order = np.argsort(spans, kind="stable")  # rows of similar width together: each block is as wide as its widest
    for pos in range(0, order.shape[0], 256):
        sl = order[pos:pos + 256]
        width = int(spans[sl].max())
        steps = np.arange(width)[None, :]
        # the narrow variable runs k = stop, stop − 1, …; the other's cdf at c − k then climbs from c − stop
        # one pmf at a time (one incomplete-beta call per row, sums of positive terms only: no cancellation)
        k = stop[sl, None] - steps
        bottom = c[sl] - stop[sl]
        cdf = _binom_cdf(bottom, other_trials[sl], other_prob[sl])[:, None] + np.concatenate(
            [np.zeros((sl.shape[0], 1)),
             np.cumsum(_binom_pmf_run(bottom + 1, width - 1, other_trials[sl], other_prob[sl]), axis=1)], axis=1)
        pmf = _binom_pmf_run(stop[sl] - width + 1, width, trials[sl], prob[sl])[:, ::-1]  # k = stop, stop − 1, …
        out[sl] = (np.where(k >= start[sl, None], pmf, 0.0) * cdf).sum(axis=1)
    return np.clip(out, 0.0, 1.0)


def _first_accepted(accept: Callable[[np.ndarray], np.ndarray], lo: np.ndarray, hi: np.ndarray, n: int,
                    increasing: bool) -> np.ndarray:
    """Per element, the smallest integer m in [0, n] with accept(m) (``increasing``: accept is monotone
    False → True) or the largest (accept monotone True → False), searched first in the bracket [lo, hi]
    and in all of [0, n] where the bracket turns out not to hold it."""
    lo, hi = np.clip(np.floor(lo), 0, n), np.clip(np.ceil(hi), 0, n)
    if increasing:
        bad = ~accept(hi) | ((lo > 0) & accept(np.maximum(lo - 1, 0)))
    else:
        bad = ~accept(lo) | ((hi < n) & accept(np.minimum(hi + 1, n)))
    lo, hi = np.where(bad, 0.0, lo), np.where(bad, float(n), hi)
    while np.any(lo < hi):
        if increasing:
            mid = np.floor((lo + hi) / 2)
            ok = accept(mid)
            hi, lo = np.where(ok, mid, hi), np.where(ok, lo, mid + 1)
        else:
            mid = np.ceil((lo + hi) / 2)
            ok = accept(mid)
            lo, hi = np.where(ok, mid, lo), np.where(ok, hi, mid - 1)
    return lo


def _exact_count_bounds(c: np.ndarray, guess: np.ndarray, spread: np.ndarray, n: int, p: float, q: float,
                        tail: float) -> tuple[np.ndarray, np.ndarray]:
    """Exact (Clopper–Pearson-type) bounds on the number of holders m of each value from its support count c:
    the m ∈ [0, n] not rejected by either one-sided test at level ``tail``. P(C ≤ c | m) decreases in m
    (p > q), so each bound is an integer bisection, started in the bracket guess ± spread."""
    lower = _first_accepted(lambda m: 1.0 - _count_cdf(c - 1, m, n, p, q) > tail, guess - spread, guess + spread,
                            n, increasing=True)
    upper = _first_accepted(lambda m: _count_cdf(c, m, n, p, q) > tail, guess - spread, guess + spread, n,
                            increasing=False)
    return lower, np.maximum(upper, lower)


def frequency_intervals(mechanism: Any, counts: np.ndarray, n: int, level: float = 0.95, *,
                        simultaneous: bool = False) -> FrequencyIntervals:
    """Intervals for each value's frequency from one collection's support counts ``counts`` of ``n`` users.

    For a pure frequency oracle the support count of v is exactly C ~ Bin(n_v, p*) + Bin(n − n_v, q*)
    (each user supports v independently with probability p* if she holds v, q* otherwise; IBU paper
    Def. 2). Where C's variance is small (below ``EXACT_COUNT_VARIANCE``: small expected counts n·q*, the
    regime where the normal approximation under-covers) the interval inverts this distribution exactly
    over integer n_v; elsewhere it is f̂ ± z·σ̂ with σ̂ the closed-form variance at the clipped estimate.
    The simultaneous band uses per-value level 1 − (1 − level)/d (Bonferroni: valid for any dependence
    between values, and within 0.2 % of Šidák's Gaussian-only level^{1/d}); each exact interval covers with
    probability ≥ its level, so the band covers every value at once with probability ≥ ``level``. Non-pure
    mechanisms (SHE) get the normal interval, with a note.

    Parameters
    ----------
    mechanism : Mechanism
        The frequency oracle that produced the counts (its ``d``, ``variance``, ``estimate`` and, if pure,
        ``p_star``/``q_star``).
    counts : array_like
        The support count of each of the d values, each in [0, n].
    n : int
        The number of users (≥ 1).
    level : float, default 0.95
        The confidence level, in (0, 1).
    simultaneous : bool, default False
        Make the level hold for every value at once.

    Returns
    -------
    FrequencyIntervals
        The intervals, with the method per value and notes.

    Raises
    ------
    InvalidInput
        For a bad level or n, or counts that are not d finite numbers in [0, n].

    References
    ----------
    Arcolezi et al., IBU vs matrix inversion (DBSec'23), Definition 2 (pure LDP) and Eq. (2) (the MI estimate).
    """
    level = _check_level(level)
    n = check_positive_int(n, "n")
    try:
        c = np.asarray(counts, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"support counts must be numbers: {exc}") from None
    if c.shape != (mechanism.d,):
        raise InvalidInput(f"support counts must have length d={mechanism.d}, got shape {c.shape}")
    if not np.all(np.isfinite(c)) or np.any(c < 0) or np.any(c > n):
        raise InvalidInput(f"support counts must be finite and within [0, n={n}]")
    estimate = mechanism.estimate(c, n).values if hasattr(mechanism, "estimate") else c / n
    return _intervals(mechanism, np.asarray(estimate, dtype=np.float64), c, n, level, simultaneous)


def estimate_intervals(mechanism: Any, mi_estimate: np.ndarray, n: int, level: float = 0.95, *,
                       simultaneous: bool = False) -> FrequencyIntervals:
    """:func:`frequency_intervals` from one collection's matrix-inversion estimate instead of its counts.

    For a pure mechanism f̂ = (C/n − q*)/(p* − q*) (Eq. (1) of the consistency paper; IBU paper Eq. (2)) is inverted
    to the integer support counts C (rounded, clipped to [0, n]); other mechanisms get the normal interval around f̂.

    Parameters
    ----------
    mechanism : Mechanism
        The frequency oracle that produced the estimate.
    mi_estimate : array_like
        The d matrix-inversion estimates (finite).
    n, level, simultaneous
        As for :func:`frequency_intervals`.

    Returns
    -------
    FrequencyIntervals
        Exact intervals where the inverted counts are small (pure mechanisms), normal ones elsewhere.

    Raises
    ------
    InvalidInput
        For a bad level or n, or an estimate that is not d finite numbers.
    """
    level = _check_level(level)
    n = check_positive_int(n, "n")
    f = np.asarray(mi_estimate, dtype=np.float64)
    if f.shape != (mechanism.d,) or not np.all(np.isfinite(f)):
        raise InvalidInput(f"the estimate must be {mechanism.d} finite numbers, got shape {f.shape}")
    counts = None
    if getattr(mechanism, "pure", False):
        p, q = mechanism.p_star, mechanism.q_star
        counts = np.clip(np.rint(n * (q + (p - q) * f)), 0, n)
    return _intervals(mechanism, f, counts, n, level, simultaneous)


def _intervals(mechanism: Any, estimate: np.ndarray, c: np.ndarray | None, n: int, level: float,
               simultaneous: bool) -> FrequencyIntervals:
    d = estimate.shape[0]
    alpha = (1 - level) / d if simultaneous else 1 - level
    z = normal_quantile(1 - alpha / 2)
    clipped = np.clip(estimate, 0.0, 1.0)
    sd = np.sqrt(mechanism.variance(clipped, n))
    low, high = estimate - z * sd, estimate + z * sd
    method = np.full(d, "normal", dtype=object)
    notes: list[str] = []
    if getattr(mechanism, "pure", False) and c is not None:
        p, q = mechanism.p_star, mechanism.q_star
        m = clipped * n
        count_var = m * p * (1 - p) + (n - m) * q * (1 - q)
        small = count_var < EXACT_COUNT_VARIANCE
        if np.any(small):
            spread = (z + 8) * n * sd[small] + 20  # the bracket; checked, and widened where it misses
            lo_m, hi_m = _exact_count_bounds(np.rint(c[small]), m[small], spread, n, p, q, alpha / 2)
            low[small], high[small] = lo_m / n, hi_m / n
            method[small] = "exact"
            notes.append(f"{int(small.sum()):,} of {d:,} values have small support counts (variance < "
                         f"{EXACT_COUNT_VARIANCE:g}): their intervals invert the exact binomial distribution of "
                         "the count, where the normal approximation would cover less than stated.")
    else:
        notes.append(f"{mechanism.display_name} is not pure (continuous reports): normal intervals, which hold "
                     "when every count sums many users' reports.")
    if simultaneous:
        notes.append(f"Simultaneous: per-value level 1 − {1 - level:g}/{d:,} (Bonferroni), valid for any "
                     "dependence between values.")
    return FrequencyIntervals(low=low, high=high, level=level, simultaneous=simultaneous,
                              method=method.astype(str), notes=tuple(notes))
