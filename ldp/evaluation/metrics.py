"""Error measures between the truth and an estimate, one registry (``METRICS``) for every kind.

- Frequency vectors (IBU paper §2.1): MSE, MAE, L1, the largest absolute error and the top-k MSE.
- Distributions of a numerical attribute, on histograms with real-unit edges (square-wave paper §3):
  Wasserstein-1 and Kolmogorov–Smirnov distances, the errors of the mean, the variance and the deciles, and
  the mean absolute error of random range queries of width α (``range_mae`` is α = 0.1;
  ``range_mae_<α>`` any other width). Wasserstein and KS also apply to categorical data, in the domain's order.
- Means: the absolute and squared error of each estimated mean.

Every metric is ``metric(true, estimate, **context)``; the context carries what some need: ``k`` (top-k),
``edges`` (real-unit bin edges), ``rng`` and ``queries`` (range queries), ``project`` (score the Norm-Sub
projection of an estimate that is not a distribution instead of the raw estimate).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ldp.core.errors import InvalidInput
from ldp.core.registry import METRICS
from ldp.evaluation.histograms import DECILES, cdf_at_edges, check_edges, moments, quantile_values, range_answers
from ldp.maths.simplex import to_distribution

__all__ = ["DEFAULT_METRICS", "Metric", "check_k", "compute_metrics", "frequency_pair", "get_metric", "ks_distance",
           "mae", "max_abs_error", "metrics_over_trials", "mse", "range_query_mae", "range_query_mae_rows",
           "top_k_indices", "top_k_mse", "wasserstein"]

RANGE_QUERIES = 1000


@dataclass(frozen=True)
class Metric:
    """A registered error measure: ``function(true, estimate, **context) → float``.

    Calling the metric checks that both arrays have the same shape and are finite, then calls ``function`` with
    ``parameters`` merged under the call's context.

    Parameters
    ----------
    name : str
        Registry name (e.g. ``"mse"``).
    display_name : str
        Short label for tables and charts.
    description : str
        One line explaining the measure.
    function : callable
        ``function(true, estimate, **context) -> float``.
    kinds : tuple of str, default ("frequency",)
        The kinds of estimate it applies to: ``"frequency"``, ``"numerical"``, ``"mean"``, ``"vector"``.
    unit : str, default "frequency"
        How to read the value: "frequency²", "frequency", "unit", "unit²", "fraction" of users, or "value" of a mean.
    parameters : dict, optional
        Fixed keyword arguments of ``function`` (e.g. ``{"alpha": 0.1}``), overridden by the call's context.
    long_name : str, default ""
        A fuller name for tables (defaults to the display name, see :attr:`title`).
    closed_form : callable, optional
        ``closed_form(variance, true, **context)``: the expected error of an unbiased estimate whose entries have the
        closed-form ``variance``; None when there is none (see :meth:`expected`).
    closed_form_quality : str, default ""
        How good the closed form is ("exact", "normal approximation").
    rows : callable, optional
        ``rows(true, estimates, **context) -> values``: the metric of every row of ``estimates`` at once, equal to
        one call per row (used by :func:`metrics_over_trials`); None: one call per row.
    """

    name: str
    display_name: str
    description: str
    function: Callable[..., float] = field(repr=False)
    kinds: tuple[str, ...] = ("frequency",)
    unit: str = "frequency"
    parameters: dict[str, Any] = field(default_factory=dict)
    long_name: str = ""  # a fuller name for tables (defaults to the display name)
    #: ``closed_form(variance, true, **context)``: the expected error of an unbiased estimate whose entries have
    #: the closed-form ``variance`` (None: no closed form), and how good that is (``closed_form_quality``).
    closed_form: Callable[..., float] | None = field(default=None, repr=False)
    closed_form_quality: str = ""
    rows: Callable[..., np.ndarray] | None = field(default=None, repr=False)

    @property
    def title(self) -> str:
        return self.long_name or self.display_name

    def __call__(self, true: np.ndarray, estimate: np.ndarray, **context: Any) -> float:
        t = np.asarray(true, dtype=np.float64)
        e = np.asarray(estimate, dtype=np.float64)
        if t.shape != e.shape:
            raise InvalidInput(f"{self.name}: true and estimate have different shapes {t.shape} and {e.shape}")
        if not (np.all(np.isfinite(t)) and np.all(np.isfinite(e))):
            raise InvalidInput(f"{self.name}: the values hold NaN or infinity")
        return float(self.function(t, e, **{**self.parameters, **context}))

    def over_rows(self, true: np.ndarray, estimates: np.ndarray, **context: Any) -> np.ndarray:
        """The metric of every row of ``estimates`` (trials × values), checked as one call checks one row: through
        ``rows`` when the metric has it, else one call per row. A ``rng`` in the context is a generator factory
        or None (each row then scores the same random draws, as separate calls would)."""
        if self.rows is None:
            return np.array([self(true, row, **context) for row in estimates])
        t = np.asarray(true, dtype=np.float64)
        e = np.asarray(estimates, dtype=np.float64)
        if e.shape[1:] != t.shape:
            raise InvalidInput(f"{self.name}: true and estimate have different shapes {t.shape} and {e.shape[1:]}")
        if not (np.all(np.isfinite(t)) and np.all(np.isfinite(e))):
            raise InvalidInput(f"{self.name}: the values hold NaN or infinity")
        return np.asarray(self.rows(t, e, **{**self.parameters, **context}), dtype=np.float64)

    def expected(self, variance: np.ndarray | None, true: np.ndarray, **context: Any) -> float:
        """The closed-form expected value of this error for an unbiased estimate of ``true`` whose entries have
        ``variance`` (e.g. matrix inversion's; ``context`` as for the metric, e.g. ``k``); NaN without one."""
        if self.closed_form is None or variance is None:
            return math.nan
        return float(self.closed_form(np.asarray(variance, dtype=np.float64), np.asarray(true, dtype=np.float64),
                                      **{**self.parameters, **context}))


# =========================================================================== frequency vectors
def mse(true: np.ndarray, estimate: np.ndarray, **_: Any) -> float:
    """Mean squared error over the domain, (1/d) Σ (f − f̂)² (IBU paper §2.1).

    Parameters
    ----------
    true, estimate : numpy.ndarray
        True and estimated frequencies, of the same shape.
    **_
        Further context, ignored (every metric takes the same keywords).

    Returns
    -------
    float
        The mean over all entries.

    References
    ----------
    Arcolezi et al., IBU vs matrix inversion (DBSec'23), §2.1: MSE of a frequency estimate.
    """
    return float(np.mean((true - estimate) ** 2))


def mae(true: np.ndarray, estimate: np.ndarray, **_: Any) -> float:
    """Mean absolute error over the domain, (1/d) Σ |f − f̂| (IBU paper §2.1).

    Parameters
    ----------
    true, estimate : numpy.ndarray
        True and estimated frequencies, of the same shape (any shape: the mean runs over every entry).
    **_
        Further context (``k``, ``edges`` ...), which MAE does not use.

    Returns
    -------
    float
        The mean absolute difference over all entries.

    References
    ----------
    Arcolezi et al., IBU vs matrix inversion (DBSec'23), §2.1: MAE of a frequency estimate.
    """
    return float(np.mean(np.abs(true - estimate)))


def l1_distance(true: np.ndarray, estimate: np.ndarray, **_: Any) -> float:
    return float(np.sum(np.abs(true - estimate)))


def max_abs_error(true: np.ndarray, estimate: np.ndarray, **_: Any) -> float:
    """Largest absolute error of any single value, max |f − f̂|.

    Parameters
    ----------
    true, estimate : numpy.ndarray
        True and estimated frequencies, of the same shape (the maximum runs over every entry).
    **_
        Unused context.

    Returns
    -------
    float
        The maximum absolute difference.
    """
    return float(np.max(np.abs(true - estimate)))


def check_k(k: Any, d: int) -> int:
    """k as an int in [1, d] (the domain size); a k larger than the domain is an error, never silently capped.

    Parameters
    ----------
    k : int
        The number of top values asked for.
    d : int
        The domain size.

    Returns
    -------
    int
        ``k`` as a Python int.

    Raises
    ------
    InvalidInput
        If ``k`` is a bool, not an integer, or outside [1, d].
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= d:
        raise InvalidInput(f"k must be an integer between 1 and the domain size {d}, got {k!r}")
    return int(k)


def top_k_indices(true: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k most frequent true values (ties broken by index); k must lie in [1, d].

    Parameters
    ----------
    true : array_like
        The true frequencies (last axis: the d values).
    k : int
        How many indices, in [1, d].

    Returns
    -------
    numpy.ndarray
        The k indices, most frequent first.

    Raises
    ------
    InvalidInput
        If ``k`` is outside [1, d] (see :func:`check_k`).
    """
    return np.argsort(-np.asarray(true), kind="stable")[:check_k(k, np.asarray(true).shape[-1])]


def frequency_pair(true: np.ndarray, estimate: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``true`` (d,) and ``estimate`` (d,) or a stack (trials, d) as float arrays, their shapes checked.

    Parameters
    ----------
    true : array_like
        The true frequencies, a non-empty 1-D array.
    estimate : array_like
        One estimate of shape (d,) or a stack of shape (trials, d).

    Returns
    -------
    tuple of numpy.ndarray
        ``(true, estimate)`` as float64.

    Raises
    ------
    InvalidInput
        If ``true`` is not a non-empty 1-D array or ``estimate``'s last axis is not d.
    """
    f = np.asarray(true, dtype=np.float64)
    est = np.asarray(estimate, dtype=np.float64)
    if f.ndim != 1 or f.size < 1:
        raise InvalidInput(f"the true frequencies must be a non-empty 1-D array, got shape {f.shape}")
    if est.ndim not in (1, 2) or est.shape[-1] != f.shape[0]:
        raise InvalidInput(f"the estimate must have shape ({f.shape[0]},) or (trials, {f.shape[0]}), got {est.shape}")
    return f, est


def top_k_mse(true: np.ndarray, estimate: np.ndarray, k: int = 10, *, clip: bool = False,
              **_: Any) -> float | np.ndarray:
    """MSE over D_tk, the k values with the highest *true* frequency: the one top-k MSE.

    Behind the metric ``topk_mse`` and the query task ``topk`` (ties by index; consistency paper §V.E).
    Neither the mechanism nor the post-processing knows D_tk; k outside [1, d] is an error. ``estimate`` may be a
    stack (trials, d): then one error per trial (an array) instead of a float.

    Parameters
    ----------
    true : array_like
        The true frequencies, shape (d,), which define D_tk.
    estimate : array_like
        An estimate of shape (d,), or a stack (trials, d) scored row by row.
    k : int, default 10
        The number of most frequent true values scored, in [1, d].
    clip : bool, default False
        Answer each value clipped at 0 (Post-Pos, :func:`ldp.evaluation.tasks.clip_for`).
    **_
        Further context, ignored.

    Returns
    -------
    float or numpy.ndarray
        The top-k MSE (float for one estimate, shape (trials,) for a stack).

    Raises
    ------
    InvalidInput
        For mismatched shapes or k outside [1, d].

    References
    ----------
    Wang et al., "Locally Differentially Private Frequency Estimation with Consistency" (NDSS'20), §V.E (top-k
    metric, D_tk).
    """
    f, est = frequency_pair(true, estimate)
    idx = top_k_indices(f, k)
    answers = np.maximum(est[..., idx], 0.0) if clip else est[..., idx]
    errors = np.mean((answers - f[idx]) ** 2, axis=-1)
    return float(errors) if est.ndim == 1 else errors


# Closed forms for an unbiased estimate with per-value variance σ²: exact for the squared errors; the absolute
# errors by the normal approximation E|f̂ − f| = σ √(2/π) per value.
NORMAL_ABS = math.sqrt(2 / math.pi)


def expected_mse(variance: np.ndarray, true: np.ndarray, **_: Any) -> float:
    return float(variance.mean())


def expected_top_k_mse(variance: np.ndarray, true: np.ndarray, k: int = 10, **_: Any) -> float:
    return float(variance[top_k_indices(true, min(int(k), variance.size))].mean())


def expected_mae(variance: np.ndarray, true: np.ndarray, **_: Any) -> float:
    return float(np.sqrt(variance).mean() * NORMAL_ABS)


def expected_l1(variance: np.ndarray, true: np.ndarray, **_: Any) -> float:
    return float(np.sqrt(variance).sum() * NORMAL_ABS)


# =========================================================================== histograms (real units)
def _histograms(true: np.ndarray, estimate: np.ndarray, edges: Any, project: bool) -> tuple[np.ndarray, ...]:
    true, estimate = np.asarray(true, dtype=np.float64), np.asarray(estimate, dtype=np.float64)
    if true.shape != estimate.shape:
        raise InvalidInput(f"true and estimate have different shapes {true.shape} and {estimate.shape}")
    e = check_edges(edges, true.size)
    if project:
        return e, to_distribution(true), to_distribution(estimate)
    return e, true, estimate


def wasserstein(true: np.ndarray, estimate: np.ndarray, edges: Any = None, project: bool = False,
                **_: Any) -> float:
    """W1 = ∫ |F − G| dx in the unit of ``edges`` (unit-width bins in the domain's order without them).

    F − G is linear inside a bin; with D = a at the bin's left edge and b at its right, the bin contributes
    w(|a| + |b|)/2 when a, b have the same sign and w(a² + b²)/(2(|a| + |b|)) when D crosses zero — exact.

    Parameters
    ----------
    true, estimate : array_like
        Frequencies of the d bins (same shape).
    edges : array_like, optional
        The d + 1 real-unit bin edges (unit-width bins when None).
    project : bool, default False
        Score the Norm-Sub projections onto the simplex (:func:`ldp.maths.simplex.to_distribution`) instead of the
        raw vectors.
    **_
        Further context, ignored.

    Returns
    -------
    float
        The Wasserstein-1 distance, in the data's unit.

    Raises
    ------
    InvalidInput
        If the shapes differ or the edges are not d + 1 finite increasing numbers.

    References
    ----------
    Square-wave paper (Li et al., SIGMOD'20), §3 "Wasserstein Distance" (continuous domain).
    """
    return _wasserstein(*_histograms(true, estimate, edges, project))


def _wasserstein(e: np.ndarray, t: np.ndarray, q: np.ndarray, **_: Any) -> float:
    diff = cdf_at_edges(t) - cdf_at_edges(q)
    a, b, w = diff[:-1], diff[1:], np.diff(e)
    tot = np.abs(a) + np.abs(b)
    crossing = np.divide(a * a + b * b, 2 * tot, out=np.zeros_like(a), where=tot > 0)
    return float(np.sum(w * np.where(a * b >= 0, tot / 2, crossing)))


def ks_distance(true: np.ndarray, estimate: np.ndarray, edges: Any = None, project: bool = False,
                **_: Any) -> float:
    """KS = max |F − G| (attained at a bin edge, the difference being piecewise linear).

    Parameters
    ----------
    true, estimate : array_like
        Frequencies of the d bins (same shape), read as cumulative distributions F and G.
    edges : array_like, optional
        The d + 1 real-unit bin edges (unit-width bins when None; they do not change the value, only checked).
    project : bool, default False
        Compare the Norm-Sub projections of both vectors instead of the raw ones.
    **_
        Unused context.

    Returns
    -------
    float
        The Kolmogorov–Smirnov distance (a fraction of users).

    Raises
    ------
    InvalidInput
        For mismatched shapes or bad edges.

    References
    ----------
    Square-wave paper (Li et al., SIGMOD'20), §3 "Kolmogorov-Smirnov (KS) Distance".
    """
    return _ks(*_histograms(true, estimate, edges, project))


def _ks(e: np.ndarray, t: np.ndarray, q: np.ndarray, **_: Any) -> float:
    return float(np.max(np.abs(cdf_at_edges(t) - cdf_at_edges(q))))


def mean_error(true: np.ndarray, estimate: np.ndarray, edges: Any = None, project: bool = False, **_: Any) -> float:
    """|mean(true) − mean(estimate)| in the data's unit (square-wave paper §3.2)."""
    return _mean_gap(*_histograms(true, estimate, edges, project))


def _mean_gap(e: np.ndarray, t: np.ndarray, q: np.ndarray, **_: Any) -> float:
    return abs(moments(e, t)[0] - moments(e, q)[0])


def variance_error(true: np.ndarray, estimate: np.ndarray, edges: Any = None, project: bool = False,
                   **_: Any) -> float:
    """|Var(true) − Var(estimate)| in the data's unit squared (square-wave paper §3.2)."""
    return _variance_gap(*_histograms(true, estimate, edges, project))


def _variance_gap(e: np.ndarray, t: np.ndarray, q: np.ndarray, **_: Any) -> float:
    return abs(moments(e, t)[1] - moments(e, q)[1])


def quantile_error(true: np.ndarray, estimate: np.ndarray, edges: Any = None,
                   quantiles: Sequence[float] = DECILES, **_: Any) -> float:
    """Mean over the deciles of |Q(true, β) − Q(estimate, β)| (square-wave paper §3.2); quantiles need a
    distribution, so an estimate that is not one is projected with Norm-Sub first."""
    return _quantile_gap(*_histograms(true, estimate, edges, True), quantiles=quantiles)


def _quantile_gap(e: np.ndarray, t: np.ndarray, q: np.ndarray, quantiles: Sequence[float] = DECILES,
                  **_: Any) -> float:
    return float(np.mean(np.abs(quantile_values(e, t, quantiles) - quantile_values(e, q, quantiles))))


def _histogram_rows(score: Callable[..., float], always_project: bool = False) -> Callable[..., np.ndarray]:
    """The rows form of a histogram metric whose value is ``score(e, t, q, **context)`` on its
    :func:`_histograms`: the edges checked and the truth projected once, each row projected as one call
    projects it — the values of one call per row."""
    def rows(true: np.ndarray, estimates: np.ndarray, edges: Any = None, project: bool = False,
             **context: Any) -> np.ndarray:
        block = np.atleast_2d(np.asarray(estimates, dtype=np.float64))
        projected = project or always_project
        e, t, _ = _histograms(true, block[0], edges, projected)
        return np.array([score(e, t, to_distribution(q) if projected else q, **context) for q in block])
    return rows


def range_query_mae(true: np.ndarray, estimate: np.ndarray, edges: Any = None, alpha: float = 0.1,
                    rng: np.random.Generator | None = None, queries: int = RANGE_QUERIES, project: bool = False,
                    **_: Any) -> float:
    """Mean absolute error of random range queries of width α·(domain length) (square-wave paper §3.2).

    The left end is uniform on [lo, hi − α(hi − lo)]; the answer is the fraction of users in the range.

    Parameters
    ----------
    true, estimate : array_like
        Frequencies of the d bins (same shape), read as densities uniform within each bin.
    edges : array_like, optional
        The d + 1 real-unit bin edges (unit-width bins when None).
    alpha : float, default 0.1
        The range width as a fraction of the domain length, in (0, 1].
    rng : numpy.random.Generator, optional
        Draws the left ends (a generator seeded with 0 when None, so every estimate is scored on the same ranges).
    queries : int, default 1000
        Number of random ranges (≥ 1).
    project : bool, default False
        Score the Norm-Sub projections instead of the raw vectors.
    **_
        Further context, ignored.

    Returns
    -------
    float
        The mean of |R(true, i, α) − R(estimate, i, α)| over the queries.

    Raises
    ------
    InvalidInput
        For α outside (0, 1], a bad number of queries, mismatched shapes or bad edges.

    References
    ----------
    Square-wave paper (Li et al., SIGMOD'20), §3 "Range Query" and §6 (α = 0.1 and 0.4).
    """
    _check_range_queries(alpha, queries)
    e, t, q = _histograms(true, estimate, edges, project)
    lefts, width = _range_queries(e, alpha, rng, queries)
    return float(np.mean(np.abs(range_answers(e, t, lefts, width) - range_answers(e, q, lefts, width))))


def range_query_mae_rows(true: np.ndarray, estimates: np.ndarray, edges: Any = None, alpha: float = 0.1,
                         rng: Callable[[], np.random.Generator] | None = None, queries: int = RANGE_QUERIES,
                         project: bool = False, **_: Any) -> np.ndarray:
    """:func:`range_query_mae` of every row of ``estimates`` on the same ranges (those of one call with a fresh
    generator from ``rng``), the ranges and the truth's answers computed once: equal to one call per row.

    Parameters
    ----------
    true : array_like
        Frequencies of the d bins.
    estimates : array_like
        Shape (trials, d): one estimate per row.
    edges, alpha, queries, project
        As for :func:`range_query_mae`.
    rng : callable or None, default None
        A factory of the generator that draws the left ends (every row scores the same ranges); None: seed 0.
    **_
        Further context, ignored.

    Returns
    -------
    numpy.ndarray
        Shape (trials,): the mean absolute error of each row's range answers.

    Raises
    ------
    InvalidInput
        As :func:`range_query_mae`.

    References
    ----------
    Square-wave paper (Li et al., SIGMOD'20), §3 "Range Query" and §6 (α = 0.1 and 0.4).
    """
    _check_range_queries(alpha, queries)
    rows = np.atleast_2d(np.asarray(estimates, dtype=np.float64))
    if rows.ndim != 2 or not np.all(np.isfinite(rows)):  # _histograms checks row 0; every row is scored
        raise InvalidInput(f"range_mae: the estimates must be finite rows (trials × d), got shape {rows.shape}")
    e, t, _ = _histograms(true, rows[0], edges, project)
    lefts, width = _range_queries(e, alpha, rng() if callable(rng) else rng, queries)
    truth = range_answers(e, t, lefts, width)
    out = np.empty(rows.shape[0])
    for i, row in enumerate(rows):
        q = to_distribution(row) if project else row
        out[i] = np.mean(np.abs(truth - range_answers(e, q, lefts, width)))
    return out


def _check_range_queries(alpha: float, queries: Any) -> None:
    if not 0 < alpha <= 1:
        raise InvalidInput(f"the range-query width α must be a fraction in (0, 1], got {alpha!r}")
    if isinstance(queries, bool) or not isinstance(queries, (int, np.integer)) or queries < 1:
        raise InvalidInput(f"the number of queries must be a positive integer, got {queries!r}")


def _range_queries(e: np.ndarray, alpha: float, rng: np.random.Generator | None, queries: Any,
                   ) -> tuple[np.ndarray, float]:
    """The left ends of ``queries`` random ranges of width α·(domain length) over the edges ``e``, and the width."""
    gen = rng if rng is not None else np.random.default_rng(0)
    length = e[-1] - e[0]
    width = alpha * length
    return e[0] + gen.random(int(queries)) * (length - width), width


# =========================================================================== means
def abs_error(true: np.ndarray, estimate: np.ndarray, **_: Any) -> float:
    """|μ̂ − μ| (mean over the dimensions)."""
    return float(np.mean(np.abs(true - estimate)))


def squared_error(true: np.ndarray, estimate: np.ndarray, **_: Any) -> float:
    """(μ̂ − μ)² (mean over the dimensions)."""
    return float(np.mean((true - estimate) ** 2))


# The rows forms of the elementwise errors: each row (flattened, as one call reduces every entry of its estimate)
# is reduced along its contiguous memory, as one call reduces its one estimate (the same pairwise sums), so each
# value is that call's bit for bit.
def _gaps(true: np.ndarray, estimates: np.ndarray) -> np.ndarray:
    rows = np.ascontiguousarray(estimates)  # C order: each row's entries side by side
    return true.reshape(-1) - rows.reshape(rows.shape[0], -1)


def _mse_rows(true: np.ndarray, estimates: np.ndarray, **_: Any) -> np.ndarray:
    return np.mean(_gaps(true, estimates) ** 2, axis=1)


def _mae_rows(true: np.ndarray, estimates: np.ndarray, **_: Any) -> np.ndarray:
    return np.mean(np.abs(_gaps(true, estimates)), axis=1)


def _l1_rows(true: np.ndarray, estimates: np.ndarray, **_: Any) -> np.ndarray:
    return np.sum(np.abs(_gaps(true, estimates)), axis=1)


def _max_abs_rows(true: np.ndarray, estimates: np.ndarray, **_: Any) -> np.ndarray:
    return np.max(np.abs(_gaps(true, estimates)), axis=1)


def _top_k_mse_rows(true: np.ndarray, estimates: np.ndarray, k: int = 10, *, clip: bool = False,
                    **_: Any) -> np.ndarray:
    f, est = frequency_pair(true, estimates)
    idx = top_k_indices(f, k)
    answers = np.ascontiguousarray(np.atleast_2d(est)[:, idx])  # C order: an indexed stack may come out in F order
    if clip:
        answers = np.maximum(answers, 0.0)
    return np.mean((answers - f[idx]) ** 2, axis=1)


HISTOGRAM_KINDS = ("frequency", "numerical")
for _metric in (
    Metric("mse", "MSE", "mean squared error over all values", mse, HISTOGRAM_KINDS, "frequency²",
           closed_form=expected_mse, closed_form_quality="exact", rows=_mse_rows),
    Metric("mae", "MAE", "mean absolute error over all values", mae, closed_form=expected_mae,
           closed_form_quality="normal approximation", rows=_mae_rows),
    Metric("l1", "L1", "sum of absolute errors (twice the total-variation distance for distributions)",
           l1_distance, closed_form=expected_l1, closed_form_quality="normal approximation", rows=_l1_rows),
    Metric("max_abs", "Max abs error", "largest absolute error of any single value", max_abs_error,
           rows=_max_abs_rows),
    Metric("topk_mse", "Top-k MSE", "mean squared error over the k most frequent values", top_k_mse,
           unit="frequency²", closed_form=expected_top_k_mse, closed_form_quality="exact", rows=_top_k_mse_rows),
    Metric("wasserstein", "Wasserstein", "earth mover's distance between the distributions (in the data's unit for "
           "numerical data)", wasserstein, HISTOGRAM_KINDS, "unit", long_name="Wasserstein-1 distance",
           rows=_histogram_rows(_wasserstein)),
    Metric("ks", "KS", "largest gap between the cumulative distributions", ks_distance, HISTOGRAM_KINDS, "fraction",
           long_name="Kolmogorov–Smirnov distance", rows=_histogram_rows(_ks)),
    Metric("mean_error", "Absolute error of the mean", "|mean of the truth − mean of the estimate|", mean_error,
           ("numerical",), "unit", rows=_histogram_rows(_mean_gap)),
    Metric("variance_error", "Absolute error of the variance", "|variance of the truth − variance of the estimate|",
           variance_error, ("numerical",), "unit²", rows=_histogram_rows(_variance_gap)),
    Metric("quantile_error", "Mean absolute error of the deciles", "average over the nine deciles of the gap "
           "between the true and estimated decile", quantile_error, ("numerical",), "unit",
           rows=_histogram_rows(_quantile_gap, always_project=True)),
    Metric("range_mae", "Range queries (MAE)", "mean absolute error of the fraction of users in random ranges of "
           "width α of the domain", range_query_mae, ("numerical",), "fraction", {"alpha": 0.1},
           "Range queries, width α = 0.1 of the domain (MAE)", rows=range_query_mae_rows),
    Metric("abs_error", "Absolute error", "|estimated mean − true mean|", abs_error, ("mean", "vector"), "value",
           closed_form=expected_mae, closed_form_quality="normal approximation"),
    Metric("squared_error", "Squared error", "(estimated mean − true mean)²", squared_error, ("mean", "vector"),
           "value²", closed_form=expected_mse, closed_form_quality="exact"),
):
    METRICS.register(_metric)

DEFAULT_METRICS: dict[str, tuple[str, ...]] = {
    "frequency": ("mse", "mae", "l1", "max_abs", "topk_mse"),
    "numerical": ("wasserstein", "ks", "range_mae", "range_mae_0.4", "mean_error", "variance_error",
                  "quantile_error"),
    "mean": ("abs_error", "squared_error"),
    "vector": ("abs_error", "squared_error"),
}

_RANGE = re.compile(r"^range_mae_(\d*\.?\d+)$")


def get_metric(name: str) -> Metric:
    """The registered metric ``name``; ``range_mae_<α>`` is the range-query MAE at width α.

    Parameters
    ----------
    name : str
        A registered metric name (``ldp.METRICS``; case-insensitive), or ``range_mae_<α>`` with α in (0, 1].

    Returns
    -------
    Metric
        The metric (a fresh one with ``{"alpha": α}`` for ``range_mae_<α>``).

    Raises
    ------
    InvalidInput
        For an unknown name or an α outside (0, 1].
    """
    match = _RANGE.match(str(name).strip().lower())
    if match:
        alpha = float(match.group(1))
        if not (math.isfinite(alpha) and 0 < alpha <= 1):
            raise InvalidInput(f"range-query width α must be a fraction in (0, 1], got {alpha}")
        base = METRICS.get("range_mae")
        return Metric(str(name), f"Range queries, α = {alpha:g} (MAE)", base.description, base.function, base.kinds,
                      base.unit, {"alpha": alpha}, f"Range queries, width α = {alpha:g} of the domain (MAE)",
                      rows=base.rows)
    return METRICS.get(name)


def compute_metrics(true: np.ndarray, estimate: np.ndarray, names: Sequence[str], **context: Any) -> dict[str, float]:
    """Evaluate the named metrics of an estimate against the truth.

    Parameters
    ----------
    true : numpy.ndarray
        The true frequencies (or mean).
    estimate : numpy.ndarray
        The estimate, of the same shape (or a stack of estimates on the first axis).
    names : sequence of str
        Registered metric names (``ldp.METRICS``), e.g. ``"mse"``, ``"wasserstein"``, ``"range_mae_0.4"``.
    **context
        What some metrics need: ``k`` (top-k MSE), ``edges`` (numerical metrics), ``rng`` (random range queries).

    Returns
    -------
    dict of str to float
        Each metric's value.
    """
    out = {}
    for name in names:
        ctx = dict(context)
        if "rng" in ctx and isinstance(ctx["rng"], Callable):  # a fresh generator per metric: same ranges for all
            ctx["rng"] = ctx["rng"]()
        out[name] = get_metric(name)(true, estimate, **ctx)
    return out


def metrics_over_trials(true: np.ndarray, estimates: np.ndarray, names: Sequence[str], **context: Any,
                        ) -> dict[str, np.ndarray]:
    """:func:`compute_metrics` for every row of ``estimates`` (trials × values): metric → (trials,).

    Parameters
    ----------
    true : numpy.ndarray
        The true frequencies (or mean).
    estimates : numpy.ndarray
        One estimate per row (a 1-D array counts as one trial).
    names : sequence of str
        Registered metric names.
    **context
        As for :func:`compute_metrics` (``k``, ``edges``, ``rng``, ...).

    Returns
    -------
    dict of str to numpy.ndarray
        Each metric's value per trial.

    Raises
    ------
    InvalidInput
        For an unknown metric or an estimate that does not fit the truth.
    """
    block = np.atleast_2d(estimates)
    shared = isinstance(context.get("rng"), np.random.Generator)  # one generator consumed row after row
    batched = [] if shared else [name for name in names if get_metric(name).rows is not None]
    rest = [name for name in names if name not in batched]
    rows = [compute_metrics(true, row, rest, **context) for row in block] if rest else []
    out = {name: get_metric(name).over_rows(true, block, **context) for name in batched}
    return {name: out[name] if name in out else np.array([r[name] for r in rows]) for name in names}
