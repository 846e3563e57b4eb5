"""Query tasks and measures on frequency vectors, named as a UI shows them.

What an analyst asks of an estimate decides which estimator is best (Wang et al., "Locally
Differentially Private Frequency Estimation with Consistency", NDSS 2020 — "the consistency paper",
§V). The tasks here are pure functions of a true frequency vector ``true`` (shape (d,)) and an
estimate (shape (d,), or (trials, d) to score many trials at once: the result then has one entry per
trial instead of being a float):

* **full-domain error** — MSE = (1/d) Σ_v (f_v − f′_v)² (§V.A, §V.C);
* **frequent values (top-k)** — the MSE over D_tk, the k values with the highest *true* frequency
  (§V.E; :func:`ldp.evaluation.metrics.top_k_mse`, the one top-k MSE), and the precision of the *estimated*
  top-k set (the share of it that is truly top-k);
* **random set-value queries** — subsets D_sρ holding ρ·d values drawn uniformly, answered by
  f′_{D_sρ} = Σ_{v∈D_sρ} f′_v, and the MSE of the answers (§V.D, Figs. 6–7);
* **fixed subsets** — user-defined groups of values (e.g. the emoji categories of §V.D, Fig. 8);
* **threshold detection** — true and false positives among the values whose estimate exceeds a
  threshold (Arcolezi et al.'s convolution-framework paper, §V.E, Fig. 9);
* **utility gain** Γ(%) = 100·max((M_A − M_B)/M_A, 0) of a method B over a baseline A (IBU paper Eq. (1));
* **equivalent users** n′ = n·MSE_MI(n)/MSE_method(n): how many users *without* post-processing give
  the error the post-processed estimate has with n users (consistency paper §V.C, Eq. (3), Fig. 5);
* **per-value bias and variance** over repeated trials (Figs. 2–3) — :func:`bias_variance`.

Post-Pos (``clip_queries`` estimators) post-processes *query answers*, not the vector: every task
takes ``clip``; with ``clip=True`` each answer (a single value's frequency for the full-domain and
top-k tasks, a subset's sum for set-value tasks) is clipped at 0 (§IV-A: on single values Post-Pos
equals Base-Pos). :func:`clip_for` reads the flag from an estimator.

``TASKS`` (the registry :data:`ldp.core.registry.TASKS`) holds the tasks (:class:`Task`, with display name,
description, function and aliases); :meth:`Task.bind` validates a task's parameters once for a domain through
the task's own :meth:`Task.prepare` hook and returns a scorer used by :mod:`ldp.studies.advisor` and
:mod:`ldp.studies.comparison`. ρ is a *fraction* of the domain throughout (ρ = 0.1 is the paper's ρ = 10%),
as in :func:`random_subsets`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ldp.core.errors import InvalidInput
from ldp.core.registry import ESTIMATORS, TASKS
from ldp.estimators.wiener import Detection, threshold_detection
from ldp.evaluation.metrics import check_k, frequency_pair, top_k_indices, top_k_mse
from ldp.mechanisms.base import Mechanism

__all__ = [
    "GAIN_BASELINE", "GAIN_BASELINE_LABEL", "MEASURES", "QUERY_TASKS", "TASKS", "BiasVariance", "BoundTask",
    "Detection", "SetQueryTask", "SubsetsTask", "Task", "ThresholdTask", "TopKTask", "answer_queries",
    "bias_variance", "clip_for", "closed_form_mi_mse", "equivalent_users", "fixed_subset_error",
    "full_domain_error", "get_task", "random_subsets", "set_query_error", "set_value_mse_curve",
    "set_value_mse_expected", "subset_masks", "subset_size", "threshold_errors", "threshold_positives", "top_k_curve",
    "top_k_precision", "utility_gain"
]

Subsets = np.ndarray | Sequence[Sequence[int]] | Mapping[str, Any]


# =========================================================================== helpers
def _out(values: np.ndarray, estimate: np.ndarray) -> float | np.ndarray:
    """A float for a single estimate, an array (one entry per trial) for a stack of them."""
    return float(values) if np.ndim(estimate) == 1 else np.asarray(values, dtype=np.float64)


def _answers(values: np.ndarray, clip: bool) -> np.ndarray:
    return np.maximum(values, 0.0) if clip else values


def clip_for(estimator: str | Any) -> bool:
    """Whether the estimator clips query answers at 0 (Post-Pos's ``clip_queries``), by name, class or instance.

    Parameters
    ----------
    estimator : str, type or object
        A registered estimator name (``ldp.ESTIMATORS``), an estimator class or an instance.

    Returns
    -------
    bool
        The class's ``clip_queries`` flag (False when it has none).

    Raises
    ------
    InvalidInput
        For an unknown estimator name.

    References
    ----------
    Consistency paper (Wang et al., NDSS'20), §IV-A: Post-Pos clips query answers, not the vector.
    """
    cls = ESTIMATORS.get(estimator) if isinstance(estimator, str) else (
        estimator if isinstance(estimator, type) else type(estimator))
    return bool(getattr(cls, "clip_queries", False))


# =========================================================================== full domain and top-k
def full_domain_error(true: np.ndarray, estimate: np.ndarray, *, clip: bool = False) -> float | np.ndarray:
    """Full-domain MSE (1/d) Σ_v (f_v − f′_v)² (consistency paper §V.A); ``clip`` answers each value as Post-Pos.

    Parameters
    ----------
    true, estimate : array_like
        The true frequencies (d,) and the estimate (d,) or stack of trials (trials, d) whose values are scored.
    clip : bool, default False
        Clip each value's answer at 0 before scoring (Post-Pos).

    Returns
    -------
    float or numpy.ndarray
        The MSE (one per trial for a stack).

    Raises
    ------
    InvalidInput
        If the shapes do not fit (see :func:`ldp.evaluation.metrics.frequency_pair`).

    References
    ----------
    Consistency paper (Wang et al., NDSS'20), §V.A and §V.C (full-domain MSE).
    """
    f, est = frequency_pair(true, estimate)
    return _out(np.mean((_answers(est, clip) - f) ** 2, axis=-1), est)


def top_k_precision(true: np.ndarray, estimate: np.ndarray, k: int = 10, **_: Any) -> float | np.ndarray:
    """|estimated top-k ∩ true top-k| / k: the share of the k values with the highest *estimates* that are truly top-k.

    Ties are broken by index on both sides. 1 is perfect.

    Parameters
    ----------
    true, estimate : array_like
        The true frequencies (d,), which define the true top k, and the estimate (d,) or stack (trials, d) ranked.
    k : int, default 10
        Size of both top-k sets, in [1, d].
    **_
        Further keywords (e.g. ``clip``), ignored: the ranking of the raw estimates is scored.

    Returns
    -------
    float or numpy.ndarray
        The precision in [0, 1] (one per trial for a stack).

    Raises
    ------
    InvalidInput
        For mismatched shapes or k outside [1, d].
    """
    f, est = frequency_pair(true, estimate)
    k = check_k(k, f.shape[0])
    truth = np.zeros(f.shape[0], dtype=bool)
    truth[top_k_indices(f, k)] = True
    picked = np.argsort(-np.atleast_2d(est), axis=-1, kind="stable")[:, :k]
    hits = truth[picked].sum(axis=-1) / k
    return _out(hits if est.ndim == 2 else hits[0], est)


# =========================================================================== per-value bias and variance (§V.B)

@dataclass(frozen=True)
class BiasVariance:
    """Per-value statistics of an estimator over T trials (arrays of length d, domain order).

    mean_v = (1/T) Σ_t f'_v⁽ᵗ⁾;  bias_v = mean_v − f_v (consistency paper Fig. 2);
    variance_v = 1/(T−1) Σ_t (f'_v⁽ᵗ⁾ − mean_v)² (Fig. 3; unbiased sample variance);
    bias_se_v = √(variance_v / T), the standard error of the empirical bias.

    Attributes
    ----------
    truth : numpy.ndarray
        The true frequencies f_v.
    mean : numpy.ndarray
        The mean estimate over the trials.
    bias : numpy.ndarray
        ``mean − truth``.
    variance : numpy.ndarray
        The unbiased sample variance over the trials.
    bias_se : numpy.ndarray
        The standard error of ``bias``.
    """

    truth: np.ndarray
    mean: np.ndarray
    bias: np.ndarray
    variance: np.ndarray
    bias_se: np.ndarray

    @property
    def order(self) -> np.ndarray:
        """Indices of the values sorted by decreasing true frequency (ties by index)."""
        return np.argsort(-self.truth, kind="stable")

def bias_variance(estimates: np.ndarray, truth: np.ndarray) -> BiasVariance:
    """Empirical bias, variance and the bias's standard error per value from (trials, d) estimates.

    Parameters
    ----------
    estimates : array_like
        The estimates of T ≥ 2 trials, shape (T, d).
    truth : array_like
        The true frequencies, shape (d,).

    Returns
    -------
    BiasVariance
        The per-value statistics.

    Raises
    ------
    InvalidInput
        If ``estimates`` is not (trials, d) or has fewer than 2 trials.

    References
    ----------
    Consistency paper (Wang et al., NDSS'20), §V.B, Figs. 2–3.
    """
    est = np.asarray(estimates, dtype=np.float64)
    f = np.asarray(truth, dtype=np.float64)
    if est.ndim != 2 or est.shape[1] != f.shape[0]:
        raise InvalidInput(f"estimates must have shape (trials, {f.shape[0]}), got {est.shape}")
    trials = est.shape[0]
    if trials < 2:
        raise InvalidInput("bias and variance need at least 2 trials")
    mean = est.mean(axis=0)
    var = est.var(axis=0, ddof=1)
    return BiasVariance(truth=f, mean=mean, bias=mean - f, variance=var, bias_se=np.sqrt(var / trials))

# =========================================================================== random subsets (§V.D)

def subset_size(d: int, rho: float) -> int:
    """|D_sρ| = ρ·|D| rounded, at least 1 (ρ is a fraction in (0, 1]).

    Parameters
    ----------
    d : int
        The domain size |D|.
    rho : float
        The fraction ρ of the domain, in (0, 1] (the paper's ρ = 10% is 0.1).

    Returns
    -------
    int
        The subset size, in [1, d].

    Raises
    ------
    InvalidInput
        If ρ is outside (0, 1].
    """
    if not 0 < rho <= 1:
        raise InvalidInput(f"ρ must be a fraction in (0, 1], got {rho!r}")
    return max(1, min(int(d), int(round(rho * d))))

def random_subsets(d: int, rho: float, queries: int, rng: np.random.Generator) -> np.ndarray:
    """``queries`` random subsets D_sρ of the domain, each with ρ·d distinct values drawn uniformly, as a boolean mask.

    Parameters
    ----------
    d : int
        The domain size.
    rho : float
        The fraction of the domain in each subset, in (0, 1].
    queries : int
        The number of subsets (≥ 1).
    rng : numpy.random.Generator
        Draws the subsets.

    Returns
    -------
    numpy.ndarray of bool
        Shape (queries, d), each row holding :func:`subset_size` ``(d, rho)`` True entries.

    Raises
    ------
    InvalidInput
        For a bad ρ or number of queries.

    References
    ----------
    Consistency paper (Wang et al., NDSS'20), §V.D (random set-value queries D_sρ).
    """
    if isinstance(queries, bool) or not isinstance(queries, (int, np.integer)) or queries < 1:
        raise InvalidInput(f"the number of queries must be a positive integer, got {queries!r}")
    m = subset_size(d, rho)
    picks = np.argsort(rng.random((int(queries), int(d))), axis=1)[:, :m]
    mask = np.zeros((int(queries), int(d)), dtype=bool)
    np.put_along_axis(mask, picks, True, axis=1)
    return mask


# =========================================================================== set-value queries
def subset_masks(subsets: Subsets, d: int, labels: Sequence[str] | None = None) -> tuple[list[str], np.ndarray]:
    """Names and the boolean mask (queries, d) of a set of subsets.

    ``subsets`` is a boolean mask (queries, d) (e.g. from :func:`random_subsets`), a list of index
    lists, or a mapping name → members, where members are value indices, value labels (with
    ``labels``) or a boolean mask of length d — e.g. categories of values. An empty subset raises
    ``InvalidInput("subset 'x' is empty")``; an index outside the domain or an unknown label is an error.

    Parameters
    ----------
    subsets : numpy.ndarray, sequence of sequences of int, or mapping
        The subsets, in one of the forms above.
    d : int
        The domain size.
    labels : sequence of str, optional
        The values' labels, to name members by label.

    Returns
    -------
    tuple of (list of str, numpy.ndarray)
        The subsets' names (their keys, or their positions as strings) and the (queries, d) boolean mask.

    Raises
    ------
    InvalidInput
        For no subsets, an empty subset, a mask of the wrong shape, an index outside [0, d), an unknown label, or
        non-integer members without ``labels``.
    """
    d = int(d)
    if isinstance(subsets, np.ndarray) and subsets.dtype == bool:
        mask = np.atleast_2d(subsets)
        if mask.ndim != 2 or mask.shape[1] != d:
            raise InvalidInput(f"a subset mask must have shape (queries, {d}), got {subsets.shape}")
        names = [str(i) for i in range(mask.shape[0])]
    else:
        items = list(subsets.items()) if isinstance(subsets, Mapping) else [
            (str(i), members) for i, members in enumerate(subsets)]
        if not items:
            raise InvalidInput("give at least one subset")
        position = {str(lab): i for i, lab in enumerate(labels)} if labels is not None else None
        mask = np.zeros((len(items), d), dtype=bool)
        names = []
        for row, (name, members) in enumerate(items):
            names.append(str(name))
            arr = np.asarray(members)
            if arr.dtype == bool:
                if arr.shape != (d,):
                    raise InvalidInput(f"subset {name!r}: a boolean mask must have length {d}, got shape {arr.shape}")
                mask[row] = arr
                continue
            arr = arr.ravel()
            if arr.size and not np.issubdtype(arr.dtype, np.integer):
                if position is None:
                    raise InvalidInput(f"subset {name!r}: members must be value indices (give labels to use names)")
                unknown = [str(v) for v in arr if str(v) not in position]
                if unknown:
                    raise InvalidInput(f"subset {name!r}: unknown value(s) {', '.join(unknown[:5])}")
                arr = np.array([position[str(v)] for v in arr], dtype=np.int64)
            if arr.size and (arr.min() < 0 or arr.max() >= d):
                raise InvalidInput(f"subset {name!r}: value indices must lie in [0, {d}), got {arr.min()}..{arr.max()}")
            mask[row, arr.astype(np.int64)] = True
    empty = np.flatnonzero(~mask.any(axis=1))  # every row checked at once (500 random sets per call)
    if empty.size:
        raise InvalidInput(f"subset {names[int(empty[0])]!r} is empty")
    return names, mask


def answer_queries(estimate: np.ndarray, subsets: Subsets, *, clip: bool = False) -> np.ndarray:
    """Answers f′_S = Σ_{v∈S} f′_v for every subset.

    ``clip=True`` reports a negative answer as 0 (Post-Pos, consistency paper §IV-A).

    Parameters
    ----------
    estimate : array_like
        An estimate of shape (d,) or a stack (trials, d).
    subsets : numpy.ndarray, sequence or mapping
        The subsets, in any form :func:`subset_masks` accepts.
    clip : bool, default False
        Clip each answer at 0.

    Returns
    -------
    numpy.ndarray
        Shape (queries,) for one estimate, (trials, queries) for a stack.

    Raises
    ------
    InvalidInput
        For an estimate that is not 1-D or 2-D, or bad subsets.
    """
    est = np.asarray(estimate, dtype=np.float64)
    if est.ndim not in (1, 2):
        raise InvalidInput(f"the estimate must have shape (d,) or (trials, d), got {est.shape}")
    _, mask = subset_masks(subsets, est.shape[-1])
    return _answers(est @ mask.T.astype(np.float64), clip)


def set_query_error(true: np.ndarray, estimate: np.ndarray, subsets: Subsets, *,
                    clip: bool = False) -> float | np.ndarray:
    """MSE of the set-value answers, mean over the subsets of (f_S − f′_S)² (§V.D).

    The true answers are never clipped (they are non-negative).

    Parameters
    ----------
    true, estimate : array_like
        The true frequencies (d,) and the estimate (d,) or stack (trials, d) whose subset sums are compared.
    subsets : numpy.ndarray, sequence or mapping
        The subsets, in any form :func:`subset_masks` accepts.
    clip : bool, default False
        Clip each estimated answer at 0 (Post-Pos).

    Returns
    -------
    float or numpy.ndarray
        The mean squared error of the subset sums (one per trial for a stack).

    Raises
    ------
    InvalidInput
        For mismatched shapes or bad subsets.

    References
    ----------
    Consistency paper (Wang et al., NDSS'20), §V.D, Figs. 6–7.
    """
    f, est = frequency_pair(true, estimate)
    _, mask = subset_masks(subsets, f.shape[0])
    return _subset_sums_error(f, est, mask.T.astype(np.float64), clip)


def _subset_sums_error(f: np.ndarray, est: np.ndarray, members: np.ndarray, clip: bool) -> float | np.ndarray:
    """:func:`set_query_error` of validated frequencies, given the subsets as a (d, queries) matrix of 0/1."""
    if members.shape[0] != f.shape[0]:
        raise InvalidInput(f"a subset mask must have shape (queries, {f.shape[0]}), got {members.T.shape}")
    return _out(np.mean((_answers(est @ members, clip) - f @ members) ** 2, axis=-1), est)


def fixed_subset_error(true: np.ndarray, estimate: np.ndarray, groups: Subsets, *,
                       labels: Sequence[str] | None = None, clip: bool = False) -> float | np.ndarray:
    """MSE over user-defined subsets (e.g. categories of values, §V.D Fig. 8).

    Parameters
    ----------
    true, estimate : array_like
        As for :func:`set_query_error`.
    groups : numpy.ndarray, sequence or mapping
        The groups of values, in any form :func:`subset_masks` accepts.
    labels : sequence of str, optional
        The values' labels, to name members by label.
    clip : bool, default False
        Clip each estimated answer at 0 (Post-Pos).

    Returns
    -------
    float or numpy.ndarray
        The MSE over the groups (one per trial for a stack).

    Raises
    ------
    InvalidInput
        For mismatched shapes or bad groups.

    References
    ----------
    Consistency paper (Wang et al., NDSS'20), §V.D, Fig. 8 (emoji categories).
    """
    f, est = frequency_pair(true, estimate)
    _, mask = subset_masks(groups, f.shape[0], labels)
    return set_query_error(f, est, mask, clip=clip)


def top_k_curve(estimates: np.ndarray, truth: np.ndarray, ks: Sequence[int], *, clip: bool = False) -> np.ndarray:
    """Top-k MSE for every k in ``ks``, by cumulative sums over the ranking.

    Each k is :func:`ldp.evaluation.metrics.top_k_mse` to rounding; single-value answers are clipped at 0 when
    ``clip``.

    Parameters
    ----------
    estimates : array_like
        An estimate of shape (d,) or a stack (trials, d).
    truth : array_like
        The true frequencies, shape (d,).
    ks : sequence of int
        The values of k, each in [1, d].
    clip : bool, default False
        Clip each value's answer at 0 (Post-Pos).

    Returns
    -------
    numpy.ndarray
        Shape (len(ks), trials).

    Raises
    ------
    InvalidInput
        For mismatched shapes or a k outside [1, d].
    """
    f, est = frequency_pair(truth, estimates)
    est = np.atleast_2d(est)
    if clip:
        est = np.maximum(est, 0.0)
    order = np.argsort(-f, kind="stable")
    sq = (est[:, order] - f[order]) ** 2
    csum = np.cumsum(sq, axis=1)
    ks_arr = np.asarray(list(ks), dtype=np.int64)
    if ks_arr.size and (ks_arr.min() < 1 or ks_arr.max() > f.shape[0]):
        raise InvalidInput(f"k must be between 1 and the domain size {f.shape[0]}")
    return (csum[:, ks_arr - 1] / ks_arr).T


def set_value_mse_expected(estimates: np.ndarray, truth: np.ndarray, m: int) -> np.ndarray:
    """The set-value MSE averaged over *all* subsets of size m (the limit of many random queries).

    With errors e_v = f'_v − f_v and a uniform m-subset S of d values, P(v ∈ S) = m/d and
    P(u, v ∈ S) = m(m−1)/(d(d−1)) for u ≠ v, so
    E_S[(Σ_{v∈S} e_v)²] = (m/d) Σ e_v² + m(m−1)/(d(d−1)) · [(Σ e_v)² − Σ e_v²]   (per trial).
    Exact for unclipped answers only (a clipped sum is not linear in the e_v).

    Parameters
    ----------
    estimates, truth : array_like
        The estimate (d,) or stack (trials, d) whose errors e_v are summed, and the true frequencies (d,).
    m : int
        The subset size, in [1, d].

    Returns
    -------
    numpy.ndarray
        The expected MSE, one per trial.

    Raises
    ------
    InvalidInput
        For mismatched shapes or m outside [1, d].
    """
    return set_value_mse_curve(estimates, truth, [m])[0]


def set_value_mse_curve(estimates: np.ndarray, truth: np.ndarray, sizes: Sequence[int]) -> np.ndarray:
    """:func:`set_value_mse_expected` at every subset size of ``sizes``: the errors' sum and sum of squares are
    made once for all sizes (the same floats as one call per size).

    Parameters
    ----------
    estimates, truth : array_like
        As for :func:`set_value_mse_expected`.
    sizes : sequence of int
        Subset sizes, each in [1, d].

    Returns
    -------
    numpy.ndarray
        The expected MSE, shape (len(sizes), trials).

    Raises
    ------
    InvalidInput
        For mismatched shapes or a size outside [1, d].
    """
    f, est = frequency_pair(truth, estimates)
    est = np.atleast_2d(est)
    d = f.shape[0]
    for m in sizes:
        if not 1 <= m <= d:
            raise InvalidInput(f"the subset size must be between 1 and {d}, got {m}")
    e = est - f
    s2 = np.sum(e**2, axis=1)
    s1 = np.sum(e, axis=1)
    out = np.empty((len(sizes), est.shape[0]))
    for i, m in enumerate(sizes):
        pair = m * (m - 1) / (d * (d - 1))
        out[i] = (m / d) * s2 + pair * (s1**2 - s2)
    return out


# =========================================================================== threshold detection
def threshold_positives(true: np.ndarray, estimate: np.ndarray, threshold: float) -> Detection:
    """True and false positives at ``threshold`` (convolution-framework paper §V.E).

    A value is a positive when its estimate is strictly above the threshold; it is a true positive when its true
    frequency is above it too. Counts per trial for a (trials, d) estimate. Same unit as the inputs.

    Parameters
    ----------
    true, estimate : array_like
        The true frequencies (d,), which say which values are truly above, and the estimate (d,) or a stack
        (trials, d) whose values above ``threshold`` are the positives.
    threshold : float
        The detection threshold, in the frequencies' unit.

    Returns
    -------
    Detection
        ``(tp, fp)``: counts (arrays of one per trial for a stack).

    Raises
    ------
    InvalidInput
        For mismatched shapes.

    References
    ----------
    Convolution-framework / Wiener-deconvolution paper, §V.E, Fig. 9.
    """
    f, est = frequency_pair(true, estimate)
    return threshold_detection(est, f, float(threshold))


def threshold_errors(true: np.ndarray, estimate: np.ndarray, threshold: float, **_: Any) -> float | np.ndarray:
    """Misclassified values at ``threshold``: false positives + false negatives. 0 is perfect.

    False negatives are the values truly above the threshold whose estimate is not.

    Parameters
    ----------
    true, estimate, threshold
        As for :func:`threshold_positives`.
    **_
        Further keywords (e.g. ``clip``), ignored: threshold answers are never clipped.

    Returns
    -------
    float or numpy.ndarray
        The number of misclassified values (one per trial for a stack).

    Raises
    ------
    InvalidInput
        For mismatched shapes.
    """
    f, est = frequency_pair(true, estimate)
    tp, fp = threshold_positives(f, est, threshold)
    actual = int(np.count_nonzero(f > float(threshold)))
    return _out(np.asarray(fp) + (actual - np.asarray(tp)), est)


# =========================================================================== comparisons
#: The baseline of the IBU paper's utility gain Γ (Eq. (1)): matrix inversion with negative estimates clipped to
#: 0 and renormalised to sum to one (§2.3) — the registered estimator ``norm-mul``.
GAIN_BASELINE = "norm-mul"
GAIN_BASELINE_LABEL = "MI clipped at 0 and renormalised (IBU paper §2.3)"


def utility_gain(metric_a: float | np.ndarray, metric_b: float | np.ndarray) -> float | np.ndarray:
    """Γ(%) = 100·max((M_A − M_B)/M_A, 0): the gain of method B over baseline A for an error metric.

    IBU paper Eq. (1), A = MI, B = IBU; clipped at 0 ("no gain"). Γ = 0 when M_A = 0.

    Parameters
    ----------
    metric_a : float or array_like
        The baseline's error M_A (finite, ≥ 0).
    metric_b : float or array_like
        The method's error M_B (finite, ≥ 0), broadcastable with ``metric_a``.

    Returns
    -------
    float or numpy.ndarray
        The gain in percent, in [0, 100] (float for scalars).

    Raises
    ------
    InvalidInput
        If a metric is negative or not finite.

    References
    ----------
    Arcolezi et al., IBU vs matrix inversion (DBSec'23), Eq. (1).
    """
    a = np.asarray(metric_a, dtype=np.float64)
    b = np.asarray(metric_b, dtype=np.float64)
    if np.any(a < 0) or np.any(b < 0) or not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise InvalidInput("utility gain needs finite, non-negative error metrics")
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(a > 0, (a - b) / np.where(a > 0, a, 1.0), 0.0)
    gain = 100.0 * np.maximum(rel, 0.0)
    return float(gain) if gain.ndim == 0 else gain


def closed_form_mi_mse(mechanism: Mechanism, n: int, true: np.ndarray | None = None) -> float:
    """The expected full-domain MSE of matrix inversion with n users: (1/d) Σ_v Var[f̂_v] (the mechanism's closed form).

    For a frequency vector summing to one this is the consistency paper's §V.C expression
    q(1−q)/(n(p−q)²) + (1−p−q)/(d·n(p−q)), independent of the distribution (uniform when ``true`` is None).

    Parameters
    ----------
    mechanism : Mechanism
        The frequency oracle (its ``variance(f, n)`` gives Var[f̂_v]).
    n : int
        The number of users (≥ 1).
    true : array_like, optional
        The true frequencies, length d (uniform when None).

    Returns
    -------
    float
        The expected MSE.

    Raises
    ------
    InvalidInput
        For a bad n or a ``true`` of the wrong length.

    References
    ----------
    Consistency paper (Wang et al., NDSS'20), §V.C.
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise InvalidInput(f"n must be a positive integer, got {n!r}")
    f = np.full(mechanism.d, 1.0 / mechanism.d) if true is None else np.asarray(true, dtype=np.float64)
    if f.shape != (mechanism.d,):
        raise InvalidInput(f"true frequencies must have length d={mechanism.d}, got shape {f.shape}")
    return float(np.mean(mechanism.variance(f, int(n))))


def equivalent_users(n: int, mse_method: float | np.ndarray, mse_mi: float | None = None, *,
                     mechanism: Mechanism | None = None, true: np.ndarray | None = None) -> float | np.ndarray:
    """n′ = n·MSE_MI(n)/MSE_method(n) (consistency paper §V.C, Fig. 5).

    MI's MSE is ∝ 1/n, so n′ users without post-processing give the error the method has with n users. n′ > n means
    the method saves users. ``mse_mi`` is MI's MSE at n (e.g. from the same trials); without it the closed form of
    ``mechanism`` is used (:func:`closed_form_mi_mse`).

    Parameters
    ----------
    n : int
        The number of users (≥ 1).
    mse_method : float or array_like
        The method's MSE at n (positive, finite).
    mse_mi : float, optional
        Matrix inversion's MSE at n (positive, finite).
    mechanism : Mechanism, optional
        Needed when ``mse_mi`` is None.
    true : array_like, optional
        The true frequencies for the closed form (uniform when None).

    Returns
    -------
    float or numpy.ndarray
        n′ (an array when ``mse_method`` is one).

    Raises
    ------
    InvalidInput
        For a bad n, neither ``mse_mi`` nor ``mechanism``, or a non-positive or non-finite MSE.

    References
    ----------
    Consistency paper (Wang et al., NDSS'20), §V.C, Eq. (3), Fig. 5.
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise InvalidInput(f"n must be a positive integer, got {n!r}")
    if mse_mi is None:
        if mechanism is None:
            raise InvalidInput("give mse_mi, or the mechanism for MI's closed-form MSE")
        mse_mi = closed_form_mi_mse(mechanism, int(n), true)
    mm = np.asarray(mse_method, dtype=np.float64)
    if not (np.all(mm > 0) and np.all(np.isfinite(mm)) and math.isfinite(mse_mi) and mse_mi > 0):
        raise InvalidInput("equivalent users need positive, finite MSEs")
    out = int(n) * float(mse_mi) / mm
    return float(out) if out.ndim == 0 else out


# =========================================================================== the registry
@dataclass(frozen=True)
class BoundTask:
    """A task with its parameters checked for one domain: ``score(true, estimates, clip)`` gives one error per row.

    Built by :meth:`Task.bind`; ``estimates`` is (trials, d).

    Parameters
    ----------
    task : Task
        The task.
    params : dict
        Its parameters, checked and completed for the domain (defaults filled in).
    score : callable (true, estimates, clip) -> numpy.ndarray
        The scorer, one error per trial.
    """

    task: Task
    params: dict[str, Any]
    score: Callable[[np.ndarray, np.ndarray, bool], np.ndarray] = field(repr=False)

    @property
    def label(self) -> str:
        parts = []
        for key, value in self.params.items():
            if key not in self.task.parameters:
                continue
            if isinstance(value, (Mapping, np.ndarray, list, tuple)):
                parts.append(f"{len(value)} {key}")
            else:
                parts.append(f"{key}={value}")
        extra = ", ".join(parts)
        return f"{self.task.display_name} ({extra})" if extra else self.task.display_name


Score = Callable[[np.ndarray, np.ndarray, bool], np.ndarray]


@dataclass(frozen=True)
class Task:
    """A query task: ``function(true, estimate, **params)`` is its error (lower is better unless ``better="higher"``).

    A family with parameters to check or to draw overrides :meth:`prepare`.

    Parameters
    ----------
    name : str
        Registry name (e.g. ``"topk"``).
    display_name : str
        Label shown by the pages.
    description : str
        One line explaining the task.
    function : callable
        ``function(true, estimate, clip=..., **params)``: the error of an estimate (or a stack of them).
    parameters : dict, optional
        The parameter names it accepts with their defaults (None: required).
    better : {"lower", "higher"}, default "lower"
        Which direction of the score is better.
    paper : str, default ""
        Where the task comes from (paper and section).
    guideline : str, optional
        The consistency paper's fixed guideline for this task (§V.F), an estimator name; None where it has none.
    aliases : tuple of str, default ()
        Other names it answers to (``ldp advise --task full``).
    """

    name: str
    display_name: str
    description: str
    function: Callable[..., float | np.ndarray] = field(repr=False)
    parameters: dict[str, Any] = field(default_factory=dict)
    better: str = "lower"
    paper: str = ""
    #: The consistency paper's fixed guideline for this task (§V.F: single values → Base-Cut, frequent values →
    #: Norm, set-value queries → PowerNS), shown beside the advisor's data-driven choice; None where it has none.
    guideline: str | None = None
    aliases: tuple[str, ...] = ()

    def __call__(self, true: np.ndarray, estimate: np.ndarray, **params: Any) -> float | np.ndarray:
        return self.function(true, estimate, **params)

    def bind(self, d: int, *, rng: np.random.Generator | None = None, labels: Sequence[str] | None = None,
             **params: Any) -> BoundTask:
        """Check ``params`` for domain size d once (k ≤ d, ρ in (0, 1], non-empty subsets …) and draw
        the random subsets of the set-value task from ``rng`` (the same subsets for every estimator and
        trial, so comparisons are paired)."""
        unknown = set(params) - set(self.parameters)
        if unknown:
            valid = ", ".join(self.parameters) or "none"
            raise InvalidInput(f"task {self.name!r}: unknown parameter(s) {', '.join(sorted(unknown))}; valid: {valid}")
        p = {**self.parameters, **params}
        missing = [k for k, v in p.items() if v is None]
        if missing:
            raise InvalidInput(f"task {self.name!r} needs {', '.join(missing)}")
        score = self.prepare(d, p, rng=rng, labels=labels)
        return BoundTask(self, p, score)

    def prepare(self, d: int, params: dict[str, Any], *, rng: np.random.Generator | None,
                labels: Sequence[str] | None) -> Score:
        """The hook of :meth:`bind`: check (and complete, in place) ``params`` for domain size d and return the
        scorer ``score(true, estimates, clip)``. By default the task's function with its parameters."""
        fn = self.function
        kwargs = {k: params[k] for k in self.parameters}
        return lambda t, e, c: np.atleast_1d(fn(t, e, clip=c, **kwargs))


@dataclass(frozen=True)
class TopKTask(Task):
    """A task on the k most frequent values: k must lie in [1, d].

    Parameters
    ----------
    name, display_name, description, function, parameters, better, paper, guideline, aliases
        As for :class:`Task`; ``parameters`` holds ``k``.
    """

    def prepare(self, d: int, params: dict[str, Any], *, rng: np.random.Generator | None,
                labels: Sequence[str] | None) -> Score:
        params["k"] = check_k(params["k"], d)
        return super().prepare(d, params, rng=rng, labels=labels)


@dataclass(frozen=True)
class SetQueryTask(Task):
    """Random set-value queries: ``queries`` subsets holding a fraction ρ of the domain, drawn once from ``rng``.

    Parameters
    ----------
    name, display_name, description, function, parameters, better, paper, guideline, aliases
        As for :class:`Task`; ``parameters`` holds ``rho`` and ``queries``.
    """

    def prepare(self, d: int, params: dict[str, Any], *, rng: np.random.Generator | None,
                labels: Sequence[str] | None) -> Score:
        queries = params["queries"]
        if isinstance(queries, bool) or not isinstance(queries, (int, np.integer)) or queries < 1:
            raise InvalidInput(f"the number of queries must be a positive integer, got {queries!r}")
        subset_size(d, float(params["rho"]))  # validates ρ
        gen = rng if rng is not None else np.random.default_rng(0)
        members = random_subsets(d, float(params["rho"]), int(queries), gen).T.astype(np.float64)  # once, not per
        return lambda t, e, c: np.atleast_1d(_subset_sums_error(*frequency_pair(t, e), members, c))  # estimator


@dataclass(frozen=True)
class SubsetsTask(Task):
    """Fixed subsets: user-defined groups of values (by index, or by label given ``labels``).

    Parameters
    ----------
    name, display_name, description, function, parameters, better, paper, guideline, aliases
        As for :class:`Task`; ``parameters`` holds ``groups``.
    """

    def prepare(self, d: int, params: dict[str, Any], *, rng: np.random.Generator | None,
                labels: Sequence[str] | None) -> Score:
        _, masks = subset_masks(params["groups"], d, labels)
        return lambda t, e, c: np.atleast_1d(set_query_error(t, e, masks, clip=c))


@dataclass(frozen=True)
class ThresholdTask(Task):
    """Threshold detection: misclassified values around a finite frequency threshold (answers are not clipped).

    Parameters
    ----------
    name, display_name, description, function, parameters, better, paper, guideline, aliases
        As for :class:`Task`; ``parameters`` holds ``threshold``.
    """

    def prepare(self, d: int, params: dict[str, Any], *, rng: np.random.Generator | None,
                labels: Sequence[str] | None) -> Score:
        thr = float(params["threshold"])
        if not math.isfinite(thr):
            raise InvalidInput(f"the threshold must be a finite frequency, got {params['threshold']!r}")
        return lambda t, e, c: np.atleast_1d(threshold_errors(t, e, thr))


CONSISTENCY = "Wang et al., Frequency Estimation with Consistency (NDSS 2020)"
for _task in (
    Task("mse", "Full domain (MSE)", "mean squared error of every value's frequency", full_domain_error,
         paper=CONSISTENCY + ", §V.C", guideline="base-cut", aliases=("full", "full-domain")),
    TopKTask("topk", "Frequent values (top-k MSE)", "mean squared error over the k truly most frequent values",
             top_k_mse, {"k": 10}, paper=CONSISTENCY + ", §V.E", guideline="norm", aliases=("top-k", "frequent")),
    TopKTask("topk-precision", "Top-k precision", "share of the k values with the highest estimates that are "
             "truly among the k most frequent (higher is better)", top_k_precision, {"k": 10}, better="higher"),
    SetQueryTask("set", "Random set-value queries (MSE)", "mean squared error of sums over random subsets holding a "
                 "fraction ρ of the domain", set_query_error, {"rho": 0.1, "queries": 200},
                 paper=CONSISTENCY + ", §V.D", guideline="power-ns", aliases=("set-value",)),
    SubsetsTask("subsets", "Fixed subsets (MSE)", "mean squared error of sums over user-defined groups of values "
                "(e.g. categories)", fixed_subset_error, {"groups": None}, paper=CONSISTENCY + ", §V.D (Fig. 8)",
                guideline="power-ns", aliases=("fixed", "groups")),
    ThresholdTask("threshold", "Threshold detection (misclassified values)", "false positives plus false negatives "
                  "among values whose estimate is above a frequency threshold", threshold_errors,
                  {"threshold": None}, paper="Convolution framework / Wiener deconvolution paper, §V.E"),
):
    TASKS.register(_task)

#: The tasks by name, read-only: a live view of the registry for code that wants a mapping (a page's options).
QUERY_TASKS: Mapping[str, Task] = TASKS.mapping()


#: Measures that compare estimators or describe them over trials rather than answer a query.
MEASURES: dict[str, tuple[str, str, Callable[..., Any]]] = {
    "utility-gain": ("Utility gain Γ (%)", "100·max((M_A − M_B)/M_A, 0), IBU paper Eq. (1)", utility_gain),
    "equivalent-users": ("Equivalent users n′", "users MI would need for the method's error, n·MSE_MI/MSE",
                         equivalent_users),
    "bias-variance": ("Per-value bias and variance", "empirical bias and variance over trials (Figs. 2–3)",
                      bias_variance),
    "threshold-positives": ("Threshold true/false positives", "values above a threshold, correctly or not",
                            threshold_positives),
}


def get_task(name: str | Task) -> Task:
    """The task called ``name`` (or an alias such as ``full``) from the registry.

    Parameters
    ----------
    name : str or Task
        A registered task name or alias; a :class:`Task` is returned as is.

    Returns
    -------
    Task
        The task.

    Raises
    ------
    InvalidInput
        For an unknown name (the message lists the valid ones).
    """
    if isinstance(name, Task):
        return name
    return TASKS.get(str(name))
