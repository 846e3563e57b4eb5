"""Pure maths behind the Post-processing lab and the Numerical distributions page.

Post-processing lab (Wang et al., "Locally Differentially Private Frequency Estimation with
Consistency", NDSS 2020 — "the consistency paper", §V):

* per-value empirical bias and variance over repeated trials (§V.B, Figs. 2 and 3);
* the full-domain MSE (§V.A, ``MSE = (1/d) Σ_v (f_v − f'_v)²``), the frequent-value (top-k) MSE (§V.E)
  and the set-value query MSE over random subsets holding ρ% of the domain (§V.D, Figs. 6 and 7);
* per-task summaries, which estimator is best for each task, the utility gain Γ over MI (IBU paper
  Eq. (1)) and the equivalent users n′ (§V.C, Fig. 5);
* the advisor (§V.D, :mod:`ldp.studies.advisor`) run on one simulated collection and checked against the truth
  (:func:`advise`).

The query errors are those of :mod:`ldp.evaluation.tasks` (imported lazily: it imports this module); Post-Pos
(``clip_queries``, :func:`clip_for`) answers every query clipped at 0, so it equals Base-Pos on single
values and differs from MI on small sets (§IV-A, §V.C–D).

Numerical distributions (Li et al., "Estimating Numerical Distributions under Local Differential
Privacy", SIGMOD 2020 — "the square-wave paper", §3): Wasserstein-1 and Kolmogorov–Smirnov distances,
random range queries and the errors of the mean, the variance and the quantiles, all computed on
histograms with real-unit bin edges. A histogram is read as a density that is *uniform within each
bin*, so its CDF is piecewise linear between the edges and every quantity here is exact for that
density. These metrics live here until the numerical issue moves them into :mod:`ldp.evaluation.metrics`.

Everything is pure numpy/pandas (no Streamlit), deterministic given the seeds passed in.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np
import pandas as pd

from ldp.data import sample_counts
from ldp.engines import Aggregate, collect
from ldp.estimators import get_estimator
from ldp.estimators.consistency import norm_sub
from ldp.mechanisms.base import Mechanism
from ldp.simulation import SimulationResult, simulate

__all__ = [
    "CHUNK_TRIALS", "DECILES", "NUMERICAL_METRICS", "TASKS", "TASK_NAMES", "AdvisorCheck", "BiasVariance", "advise",
    "advisor_collection", "advisor_seconds", "best_per_task", "bias_summary", "bias_variance", "cdf_at",
    "cdf_at_edges", "chunk_plan", "clip_for", "comparison_columns", "density", "draw_population", "estimated_seconds",
    "full_domain_mse", "histogram_mean", "histogram_variance", "ks_distance", "mean_error", "merge_results",
    "numerical_metrics", "numerical_metrics_over_trials", "numerical_summary", "per_value_table", "preselect",
    "quantile_errors", "quantile_table", "quantile_values", "random_subsets", "range_query_answers", "range_query_mae",
    "run_chunk", "set_value_answers", "set_value_curve_table", "set_value_mse", "set_value_mse_expected",
    "subset_size", "summary_table", "task_errors", "time_estimators", "to_distribution", "top_k_curve",
    "top_k_curve_table", "top_k_mse_per_trial", "variance_error", "wasserstein_distance",
]

# Independent random streams derived from the page's one seed: the population drawn from the data,
# the collections (one per chunk of trials) and the random set-value queries never share numbers.
STREAM_POPULATION, STREAM_COLLECTION, STREAM_QUERIES, STREAM_RANGES, STREAM_TIMING, STREAM_ADVISOR = 0, 1, 2, 3, 4, 5
CHUNK_TRIALS = 10
DECILES = tuple(round(0.1 * i, 1) for i in range(1, 10))

TASKS = {
    "full": "Full domain (MSE)",
    "topk": "Frequent values (top-k MSE)",
    "set": "Set-value queries (MSE)",
}
#: The lab's three tasks as named in :data:`ldp.evaluation.tasks.TASKS`.
TASK_NAMES = {"full": "mse", "topk": "topk", "set": "set"}


# =========================================================================== populations and runs
def draw_population(counts: np.ndarray, n: int, seed: int) -> np.ndarray:
    """Users per value for a population of ``n`` users following the data's distribution.

    When ``n`` equals the number of rows the data's own counts are returned; otherwise ``n`` users
    are drawn i.i.d. from the empirical distribution (one multinomial draw, seeded by ``seed``).
    """
    c = np.asarray(counts)
    if c.ndim != 1 or c.size < 2:
        raise ValueError("the data needs at least two values")
    if np.any(c < 0) or c.sum() <= 0:
        raise ValueError("the data's counts must be non-negative and not all zero")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"the number of users must be a positive integer, got {n!r}")
    if int(n) == int(c.sum()) and np.all(c == np.floor(c)):
        return c.astype(np.int64)
    rng = np.random.default_rng([int(seed), STREAM_POPULATION])
    return sample_counts(c, int(n), rng)


def chunk_plan(trials: int, size: int = CHUNK_TRIALS) -> list[tuple[int, int]]:
    """``(index, trials)`` of the chunks a run of ``trials`` trials is split into (for progress).

    Chunk ``i`` always has the same seed, so a run of 60 trials reuses the first 50 of a run of 50.
    """
    if isinstance(trials, bool) or not isinstance(trials, (int, np.integer)) or trials < 1:
        raise ValueError(f"trials must be a positive integer, got {trials!r}")
    full, rest = divmod(int(trials), size)
    plan = [(i, size) for i in range(full)]
    if rest:
        plan.append((full, rest))
    return plan


def run_chunk(mechanism: Mechanism, counts: np.ndarray, estimators: Sequence[str], *, engine: str, seed: int,
              index: int, trials: int, top_k: int = 10) -> SimulationResult:
    """Chunk ``index`` of a run: ``trials`` collections with the chunk's own child seed."""
    rng = np.random.default_rng([int(seed), STREAM_COLLECTION, int(index)])
    result = simulate(mechanism, counts, estimators=list(estimators), engine=engine, trials=int(trials), seed=rng,
                      top_k=top_k)
    result.seed = int(seed)
    return result


def merge_results(parts: Sequence[SimulationResult]) -> SimulationResult:
    """Concatenate the trials of several runs of the same configuration."""
    if not parts:
        raise ValueError("nothing to merge")
    first = parts[0]
    names = list(first.estimates)
    for part in parts[1:]:
        if list(part.estimates) != names or part.mechanism != first.mechanism or not np.array_equal(
                part.true_counts, first.true_counts):
            raise ValueError("can only merge runs of the same configuration")
    estimates = {e: np.concatenate([p.estimates[e] for p in parts]) for e in names}
    metrics = {e: {m: np.concatenate([p.metrics[e][m] for p in parts]) for m in first.metrics[e]} for e in names}
    return SimulationResult(mechanism=first.mechanism, true_counts=first.true_counts, engine=first.engine,
                            estimates=estimates, metrics=metrics, elapsed_s=sum(p.elapsed_s for p in parts),
                            seed=first.seed)


def estimated_seconds(n: int, d: int, trials: int, engine: str, estimator_seconds: float = 0.0) -> float:
    """A generous estimate of a run's wall time, for the "this will take a while" warning.

    Measured on the registry (1 core): the fast engine costs ≈ 0.1 ms + 1 µs·d per trial; the exact
    engine up to ≈ 0.1 µs per user plus 20 ns per user and domain value (SHE and SS, the slowest).
    ``estimator_seconds`` is the time all estimators take on one collection (:func:`time_estimators`;
    iterative ones such as IBU dominate), counted once per trial with a 25% margin.
    """
    if engine == "fast":
        per_trial = 2e-4 + 2e-6 * d
    else:
        per_trial = n * (1e-7 + 2e-8 * d) + 2e-4
    return float(trials * (per_trial + 1.25 * max(0.0, float(estimator_seconds))))


def time_estimators(mechanism: Mechanism, counts: np.ndarray, estimators: Sequence[str],
                    seed: int = 0) -> dict[str, float]:
    """Seconds each estimator takes on one (fast-engine) collection of this configuration."""
    agg = collect(mechanism, np.asarray(counts, dtype=np.int64), np.random.default_rng([int(seed), STREAM_TIMING]),
                  "fast")
    out: dict[str, float] = {}
    for name in estimators:
        estimator = get_estimator(name)
        start = time.perf_counter()
        estimator.estimate(mechanism, agg.counts, agg.n)
        out[name] = time.perf_counter() - start
    return out


def preselect(timing: Mapping[str, float], *, n: int, d: int, trials: int, engine: str,
              limit: float = 10.0) -> tuple[list[str], list[str]]:
    """A default set of estimators whose run stays under ``limit`` seconds (:func:`estimated_seconds`).

    Starts from every estimator of ``timing`` (name → seconds per collection, :func:`time_estimators`)
    and leaves out the slowest ones (IBU with its paper defaults, first) until the estimate fits, keeping
    at least the fastest. When the run is too long even without estimators (the exact engine, many trials)
    leaving some out would not help, so all are kept. Returns ``(kept, left_out)``, both in the order of
    ``timing``.
    """
    names = list(timing)
    kept = set(names)
    if estimated_seconds(n, d, trials, engine) > limit:
        return names, []
    for name in sorted(names, key=lambda e: -timing[e]):
        total = sum(timing[e] for e in kept)
        if len(kept) <= 1 or estimated_seconds(n, d, trials, engine, total) <= limit:
            break
        kept.discard(name)
    return [e for e in names if e in kept], [e for e in names if e not in kept]


# =========================================================================== bias and variance (§V.B)
@dataclass(frozen=True)
class BiasVariance:
    """Per-value statistics of an estimator over T trials (arrays of length d, domain order).

    mean_v = (1/T) Σ_t f'_v⁽ᵗ⁾;  bias_v = mean_v − f_v (consistency paper Fig. 2);
    variance_v = 1/(T−1) Σ_t (f'_v⁽ᵗ⁾ − mean_v)² (Fig. 3; unbiased sample variance);
    bias_se_v = √(variance_v / T), the standard error of the empirical bias.
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
    """Empirical bias, variance and the bias's standard error per value from (trials, d) estimates."""
    est = np.asarray(estimates, dtype=np.float64)
    f = np.asarray(truth, dtype=np.float64)
    if est.ndim != 2 or est.shape[1] != f.shape[0]:
        raise ValueError(f"estimates must have shape (trials, {f.shape[0]}), got {est.shape}")
    trials = est.shape[0]
    if trials < 2:
        raise ValueError("bias and variance need at least 2 trials")
    mean = est.mean(axis=0)
    var = est.var(axis=0, ddof=1)
    return BiasVariance(truth=f, mean=mean, bias=mean - f, variance=var, bias_se=np.sqrt(var / trials))


def per_value_table(result: SimulationResult, labels: Sequence[str],
                    display: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Tidy per-value bias/variance table of every estimator, values sorted by true frequency.

    Columns: estimator, rank (1 = most frequent), value, true frequency, mean estimate, bias,
    bias standard error, empirical variance and the closed-form MI variance
    Var[f'_v] = [f p*(1−p*) + (1−f) q*(1−q*)] / (n (p*−q*)²) of the mechanism (the reference line).
    """
    truth = result.true_frequencies
    if len(labels) != truth.shape[0]:
        raise ValueError(f"need {truth.shape[0]} labels, got {len(labels)}")
    theory = np.asarray(result.variance_per_value(), dtype=np.float64)
    frames = []
    for name, est in result.estimates.items():
        bv = bias_variance(est, truth)
        order = bv.order
        frames.append(pd.DataFrame({
            "estimator": (display or {}).get(name, name),
            "rank": np.arange(1, truth.shape[0] + 1),
            "value": [str(labels[i]) for i in order],
            "true frequency": truth[order],
            "mean estimate": bv.mean[order],
            "bias": bv.bias[order],
            "bias standard error": bv.bias_se[order],
            "variance": bv.variance[order],
            "closed-form MI variance": theory[order],
        }))
    return pd.concat(frames, ignore_index=True)


# =========================================================================== query errors (§V.A, §V.D, §V.E)
def _tasks() -> ModuleType:
    """:mod:`ldp.evaluation.tasks`, imported lazily: it imports this module (``random_subsets``, ``bias_variance``)."""
    from ldp.evaluation import tasks

    return tasks


def clip_for(estimator: str) -> bool:
    """Whether ``estimator`` answers queries clipped at 0 (Post-Pos, consistency paper §IV-A), via
    :func:`ldp.evaluation.tasks.clip_for`; names that are not registered estimators (e.g. in hand-made
    tables) do not clip."""
    try:
        return _tasks().clip_for(estimator)
    except (ValueError, KeyError):
        return False


def _check_estimates(estimates: np.ndarray, truth: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    est = np.asarray(estimates, dtype=np.float64)
    f = np.asarray(truth, dtype=np.float64)
    if est.ndim == 1:
        est = est[None, :]
    if est.ndim != 2 or est.shape[1] != f.shape[0]:
        raise ValueError(f"estimates must have shape (trials, {f.shape[0]}), got {est.shape}")
    return est, f


def full_domain_mse(estimates: np.ndarray, truth: np.ndarray, *, clip: bool = False) -> np.ndarray:
    """MSE = (1/d) Σ_v (f_v − f'_v)² per trial (consistency paper §V.A), :func:`ldp.evaluation.tasks.full_domain_error`;
    ``clip`` answers every value clipped at 0 as Post-Pos does."""
    est, f = _check_estimates(estimates, truth)
    return _tasks().full_domain_error(f, est, clip=clip)


def top_k_mse_per_trial(estimates: np.ndarray, truth: np.ndarray, k: int, *, clip: bool = False) -> np.ndarray:
    """MSE over D_tk, the k values with the highest true frequency, per trial (§V.E),
    :func:`ldp.evaluation.tasks.top_k_error`."""
    est, f = _check_estimates(estimates, truth)
    return _tasks().top_k_error(f, est, int(k), clip=clip)


def top_k_curve(estimates: np.ndarray, truth: np.ndarray, ks: Sequence[int], *, clip: bool = False) -> np.ndarray:
    """Top-k MSE for every k in ``ks`` (shape (len(ks), trials)), by cumulative sums over the ranking
    (each k is :func:`ldp.evaluation.tasks.top_k_error`; single-value answers clipped at 0 when ``clip``)."""
    est, f = _check_estimates(estimates, truth)
    if clip:
        est = np.maximum(est, 0.0)
    order = np.argsort(-f, kind="stable")
    sq = (est[:, order] - f[order]) ** 2
    csum = np.cumsum(sq, axis=1)
    ks_arr = np.asarray(list(ks), dtype=np.int64)
    if ks_arr.size and (ks_arr.min() < 1 or ks_arr.max() > f.shape[0]):
        raise ValueError(f"k must be between 1 and the domain size {f.shape[0]}")
    return (csum[:, ks_arr - 1] / ks_arr).T


def subset_size(d: int, rho: float) -> int:
    """|D_sρ| = ρ·|D| rounded, at least 1 (ρ is a fraction in (0, 1])."""
    if not 0 < rho <= 1:
        raise ValueError(f"ρ must be a fraction in (0, 1], got {rho!r}")
    return max(1, min(int(d), int(round(rho * d))))


def random_subsets(d: int, rho: float, queries: int, rng: np.random.Generator) -> np.ndarray:
    """``queries`` random subsets D_sρ of the domain, each with ρ·d distinct values drawn uniformly
    (consistency paper §V.D), as a boolean mask of shape (queries, d)."""
    if isinstance(queries, bool) or not isinstance(queries, (int, np.integer)) or queries < 1:
        raise ValueError(f"the number of queries must be a positive integer, got {queries!r}")
    m = subset_size(d, rho)
    picks = np.argsort(rng.random((int(queries), int(d))), axis=1)[:, :m]
    mask = np.zeros((int(queries), int(d)), dtype=bool)
    np.put_along_axis(mask, picks, True, axis=1)
    return mask


def set_value_answers(estimates: np.ndarray, masks: np.ndarray, *, clip: bool = False) -> np.ndarray:
    """f'_{D_sρ} = Σ_{v ∈ D_sρ} f'_v for every trial and subset: shape (trials, queries)
    (:func:`ldp.evaluation.tasks.answer_queries`; clipped at 0 when ``clip``)."""
    est = np.atleast_2d(np.asarray(estimates, dtype=np.float64))
    return _tasks().answer_queries(est, np.asarray(masks, dtype=bool), clip=clip)


def set_value_mse(estimates: np.ndarray, truth: np.ndarray, masks: np.ndarray, *, clip: bool = False) -> np.ndarray:
    """Set-value MSE per trial: mean over the subsets of (f_{D_sρ} − f'_{D_sρ})² (§V.D),
    :func:`ldp.evaluation.tasks.set_query_error`."""
    est, f = _check_estimates(estimates, truth)
    return _tasks().set_query_error(f, est, np.asarray(masks, dtype=bool), clip=clip)


def set_value_mse_expected(estimates: np.ndarray, truth: np.ndarray, m: int) -> np.ndarray:
    """The set-value MSE averaged over *all* subsets of size m (the limit of many random queries).

    With errors e_v = f'_v − f_v and a uniform m-subset S of d values, P(v ∈ S) = m/d and
    P(u, v ∈ S) = m(m−1)/(d(d−1)) for u ≠ v, so
    E_S[(Σ_{v∈S} e_v)²] = (m/d) Σ e_v² + m(m−1)/(d(d−1)) · [(Σ e_v)² − Σ e_v²]   (per trial).
    Exact for unclipped answers only (a clipped sum is not linear in the e_v).
    """
    est, f = _check_estimates(estimates, truth)
    d = f.shape[0]
    if not 1 <= m <= d:
        raise ValueError(f"the subset size must be between 1 and {d}, got {m}")
    e = est - f
    s2 = np.sum(e**2, axis=1)
    s1 = np.sum(e, axis=1)
    pair = m * (m - 1) / (d * (d - 1))
    return (m / d) * s2 + pair * (s1**2 - s2)


def task_errors(estimates: Mapping[str, np.ndarray], truth: np.ndarray, *, k: int, rho: float, queries: int,
                seed: int) -> dict[str, dict[str, np.ndarray]]:
    """Per-trial errors of every estimator for the three tasks of §V: task → estimator → (trials,).

    The same random subsets (seeded by ``seed``) are used for every estimator and trial, so the
    comparison is paired. Post-Pos (:func:`clip_for`) answers every query clipped at 0, so it equals
    Base-Pos on the full-domain and top-k tasks and differs from MI on small sets (§V.C–D).
    """
    f = np.asarray(truth, dtype=np.float64)
    masks = random_subsets(f.shape[0], rho, queries, np.random.default_rng([int(seed), STREAM_QUERIES]))
    out: dict[str, dict[str, np.ndarray]] = {t: {} for t in TASKS}
    for name, est in estimates.items():
        clip = clip_for(name)
        out["full"][name] = full_domain_mse(est, f, clip=clip)
        out["topk"][name] = top_k_mse_per_trial(est, f, k, clip=clip)
        out["set"][name] = set_value_mse(est, f, masks, clip=clip)
    return out


def top_k_curve_table(estimates: Mapping[str, np.ndarray], truth: np.ndarray, ks: Sequence[int],
                      display: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Tidy table of the top-k MSE (mean over trials and its standard error) for every k in ``ks``
    (Post-Pos's answers clipped at 0)."""
    rows = []
    for name, est in estimates.items():
        curve = top_k_curve(est, truth, ks, clip=clip_for(name))
        for k, per_trial in zip(ks, curve, strict=True):
            rows.append({"estimator": (display or {}).get(name, name), "k": int(k), "MSE": float(np.mean(per_trial)),
                         "SE": _se(per_trial)})
    return pd.DataFrame(rows)


def set_value_curve_table(estimates: Mapping[str, np.ndarray], truth: np.ndarray, rhos_percent: Sequence[float],
                          display: Mapping[str, str] | None = None, *, queries: int = 200,
                          seed: int = 0) -> pd.DataFrame:
    """Tidy table of the set-value MSE (mean over trials) for every ρ in ``rhos_percent``.

    Averaged over *all* subsets of ρ% of the domain (:func:`set_value_mse_expected`, column
    ``averaged over`` = "all sets"), except for estimators that clip their answers (Post-Pos): a
    clipped sum has no closed form, so their MSE is averaged over ``queries`` random sets per ρ
    (seeded by ``seed``, the same sets for every such estimator).
    """
    f = np.asarray(truth, dtype=np.float64)
    d = f.shape[0]
    masks = {}
    rows = []
    for name, est in estimates.items():
        clip = clip_for(name)
        for i, rho in enumerate(rhos_percent):
            m = subset_size(d, float(rho) / 100)
            if clip:
                if i not in masks:
                    masks[i] = random_subsets(d, float(rho) / 100, int(queries),
                                              np.random.default_rng([int(seed), STREAM_QUERIES, i]))
                mse, over = set_value_mse(est, f, masks[i], clip=True), f"{int(queries)} random sets"
            else:
                mse, over = set_value_mse_expected(est, f, m), "all sets"
            rows.append({"estimator": (display or {}).get(name, name), "ρ (%)": float(rho), "set size": m,
                         "MSE": float(np.mean(mse)), "averaged over": over})
    return pd.DataFrame(rows)


def bias_summary(table: pd.DataFrame, z: float = 2.0) -> dict[str, dict[str, float]]:
    """Per estimator (as named in :func:`per_value_table`): mean |bias|, the share of values whose
    bias is within ±z standard errors of zero (≈95% for an unbiased estimator when z = 2), the mean
    empirical variance and its ratio to the closed-form MI variance."""
    out: dict[str, dict[str, float]] = {}
    for name, rows in table.groupby("estimator", sort=False):
        bias, se = rows["bias"].to_numpy(), rows["bias standard error"].to_numpy()
        var, theory = rows["variance"].to_numpy(), rows["closed-form MI variance"].to_numpy()
        out[str(name)] = {
            "mean |bias|": float(np.mean(np.abs(bias))),
            f"values with |bias| ≤ {z:g} SE (%)": float(100 * np.mean(np.abs(bias) <= z * se)),
            "mean variance": float(np.mean(var)),
            "variance / closed-form MI variance": float(np.mean(var) / np.mean(theory)),
        }
    return out


# =========================================================================== summaries
def _se(x: np.ndarray) -> float:
    return float(np.std(x, ddof=1) / math.sqrt(x.shape[0])) if x.shape[0] > 1 else float("nan")


def summary_table(errors: Mapping[str, Mapping[str, np.ndarray]], extra: Mapping[str, Mapping[str, float]]
                  | None = None, display: Mapping[str, str] | None = None,
                  task_names: Mapping[str, str] | None = None) -> pd.DataFrame:
    """One row per estimator: the mean over trials of each task's error (and its standard error),
    plus any ``extra`` per-estimator columns (e.g. mean |bias|)."""
    names = task_names or TASKS
    estimators = list(next(iter(errors.values())))
    rows = []
    for est in estimators:
        row: dict[str, object] = {"estimator": (display or {}).get(est, est)}
        for task, per in errors.items():
            row[names.get(task, task)] = float(np.mean(per[est]))
            row[f"{names.get(task, task)} ± SE"] = _se(np.asarray(per[est]))
        for col, value in (extra or {}).get(est, {}).items():
            row[col] = value
        rows.append(row)
    return pd.DataFrame(rows)


def best_per_task(errors: Mapping[str, Mapping[str, np.ndarray]], display: Mapping[str, str] | None = None,
                  task_names: Mapping[str, str] | None = None, z: float = 2.0) -> pd.DataFrame:
    """For each task: the estimator with the lowest mean error, the runner-up, and whether the lead is
    clear — the paired mean difference over the same trials exceeds z standard errors."""
    names = task_names or TASKS
    rows = []
    for task, per in errors.items():
        ranked = sorted(per, key=lambda e: float(np.mean(per[e])))
        best = ranked[0]
        row: dict[str, object] = {"task": names.get(task, task), "best": (display or {}).get(best, best),
                                  "mean error": float(np.mean(per[best]))}
        if len(ranked) > 1:
            second = ranked[1]
            diff = np.asarray(per[second]) - np.asarray(per[best])
            se = _se(diff)
            row["runner-up"] = (display or {}).get(second, second)
            row["runner-up / best"] = float(np.mean(per[second]) / row["mean error"]) if row["mean error"] > 0 \
                else float("inf")
            row["clear lead"] = bool(np.mean(diff) > z * se) if np.isfinite(se) else False
        else:
            row["runner-up"] = "—"
            row["runner-up / best"] = float("nan")
            row["clear lead"] = False
        rows.append(row)
    return pd.DataFrame(rows)


def comparison_columns(errors: Mapping[str, Mapping[str, np.ndarray]], *, n: int, mechanism: Mechanism,
                       truth: np.ndarray, task_names: Mapping[str, str] | None = None,
                       baseline: str = "mi") -> dict[str, dict[str, float]]:
    """Per estimator: the utility gain Γ(%) over matrix inversion for each task (IBU paper Eq. (1),
    :func:`ldp.evaluation.tasks.utility_gain` of the mean errors over the same trials; NaN when MI did not run) and
    the equivalent users n′ = n·MSE_MI/MSE for the full-domain MSE (consistency paper §V.C, Fig. 5,
    :func:`ldp.evaluation.tasks.equivalent_users` with MI's closed-form MSE, so it is defined without MI)."""
    tasks = _tasks()
    names = task_names or TASKS
    estimators = list(next(iter(errors.values())))
    mi_mse = tasks.closed_form_mi_mse(mechanism, int(n), np.asarray(truth, dtype=np.float64))
    out: dict[str, dict[str, float]] = {e: {} for e in estimators}
    for task, per in errors.items():
        col = f"Γ vs MI, {names.get(task, task)} (%)"
        base = float(np.mean(per[baseline])) if baseline in per else float("nan")
        for est in estimators:
            mean = float(np.mean(per[est]))
            ok = math.isfinite(base) and math.isfinite(mean) and base >= 0 and mean >= 0
            out[est][col] = float(tasks.utility_gain(base, mean)) if ok else float("nan")
    if "full" in errors:
        for est in estimators:
            mse = float(np.mean(errors["full"][est]))
            out[est]["equivalent users n′ (full domain)"] = (
                float(tasks.equivalent_users(int(n), mse, mi_mse)) if math.isfinite(mse) and mse > 0 else float("nan"))
    return out


# =========================================================================== the advisor, checked against the truth
def advisor_collection(mechanism: Mechanism, counts: np.ndarray, *, engine: str, seed: int) -> Aggregate:
    """One simulated collection of the population ``counts`` — the reports a user would hold — drawn
    from its own stream of ``seed`` (independent of the lab's trials)."""
    rng = np.random.default_rng([int(seed), STREAM_ADVISOR])
    return collect(mechanism, np.asarray(counts, dtype=np.int64), rng, engine)


def advisor_seconds(timing: Mapping[str, float], *, n: int, d: int, trials: int, engine: str) -> float:
    """A generous estimate of :func:`advise`'s wall time: one collection, ``trials`` fast re-simulations and
    every candidate on each of them plus once on the collection (``timing`` from :func:`time_estimators`)."""
    per = float(sum(max(0.0, float(t)) for t in timing.values()))
    return estimated_seconds(n, d, 1, engine) + estimated_seconds(n, d, trials, "fast") + 1.25 * (trials + 1) * per


@dataclass
class AdvisorCheck:
    """The advisor's recommendation from one collection, next to what the simulator knows: each
    candidate's *actual* error on that collection against the true distribution.

    ``table`` (best expected first): ``rank``, ``estimator`` (name), ``display name``, ``expected``
    (the advisor's mean error over its re-simulations, or mean score for a higher-is-better task),
    ``standard error``, ``trial SD``, ``tied with best``, ``actual`` (on these reports, scored like the
    advisor: same queries, Post-Pos clipped), ``actual rank``, ``actual − expected (trial SDs)``, and the
    advisor's ``Γ vs MI (%)`` / ``equivalent users`` when it computed them.
    """

    recommendation: Any
    truth: np.ndarray
    actual: dict[str, float]
    table: pd.DataFrame
    n: int
    notes: dict[str, str] = field(default_factory=dict)

    @property
    def best(self) -> str:
        return str(self.recommendation.best)

    @property
    def better(self) -> str:
        return str(self.recommendation.better)

    @property
    def actual_best(self) -> str:
        row = self.table.sort_values(["actual rank", "rank"], kind="stable").iloc[0]
        return str(row["estimator"])

    def row(self, name: str) -> pd.Series:
        return self.table[self.table["estimator"] == name].iloc[0]

    def verdict(self) -> str:
        """One sentence: where the recommended estimator actually ranked on these reports."""
        best = self.row(self.best)
        size = int(self.table["actual"].notna().sum())
        if not math.isfinite(best["actual"]):
            return f"On these reports {best['display name']} failed: {best['note']}"
        if int(best["actual rank"]) == 1:
            ties = int((self.table["actual rank"] == 1).sum())
            also = "the actual best" if ties == 1 else f"one of the {ties} actual best (tied)"
            return (f"On these reports {best['display name']} is also {also} of the {size} candidates "
                    f"(actual {best['actual']:.3g}).")
        top = self.row(self.actual_best)
        return (f"On these reports {best['display name']} ranks {int(best['actual rank'])} of {size} "
                f"(actual {best['actual']:.3g}); the actual best is {top['display name']} ({top['actual']:.3g}) — "
                "one collection is one draw, the expectation is over many.")


def advise(mechanism: Mechanism, counts: np.ndarray, *, task: str = "mse", trials: int = 20, seed: int = 0,
           candidates: Sequence[str] | None = None, engine: str = "fast", labels: Sequence[str] | None = None,
           **task_params: Any) -> AdvisorCheck:
    """Simulate one collection of the population ``counts`` (:func:`advisor_collection`), ask
    :func:`ldp.studies.advisor.recommend` which estimator suits ``task`` from those reports alone, and score every
    candidate on the same reports against the true distribution (which only a simulator knows), with the
    advisor's own random queries (same seed stream) and Post-Pos's clipping."""
    from ldp.studies import advisor

    tasks = _tasks()
    c = np.asarray(counts, dtype=np.int64)
    agg = advisor_collection(mechanism, c, engine=engine, seed=seed)
    rec = advisor.recommend(mechanism, agg.counts, int(agg.n), task=task, trials=int(trials), seed=int(seed),
                            candidates=None if candidates is None else list(candidates), labels=labels,
                            **task_params)
    truth = c / c.sum()
    bound = tasks.get_task(task).bind(mechanism.d, rng=np.random.default_rng([int(seed), advisor.STREAM_QUERIES]),
                                      labels=labels, **task_params)
    actual: dict[str, float] = {}
    notes: dict[str, str] = {}
    for name in rec.ranking:
        try:
            est = get_estimator(name).estimate(mechanism, agg.counts, int(agg.n))
            actual[name] = float(bound.score(truth, np.asarray(est, dtype=np.float64)[None, :], clip_for(name))[0])
        except (ValueError, FloatingPointError, ArithmeticError) as exc:
            actual[name] = float("nan")
            notes[name] = f"failed: {exc}"
    value = rec.value_column
    sign = -1.0 if rec.better == "higher" else 1.0
    finite = {e: sign * actual[e] for e in rec.ranking if math.isfinite(actual[e])}

    def actual_rank(name: str) -> float:  # ties share the best rank ("min" ranking)
        return float(1 + sum(v < finite[name] for v in finite.values())) if name in finite else float("nan")

    rows = []
    for _, r in rec.table.iterrows():
        name = str(r["estimator"])
        sd = float(r["trial SD"])
        gap = (actual[name] - float(r[value])) / sd if sd > 0 and math.isfinite(actual[name]) else float("nan")
        row = {"rank": int(r["rank"]), "estimator": name, "display name": r["display name"],
               "expected": float(r[value]), "standard error": float(r["standard error"]), "trial SD": sd,
               "tied with best": bool(r["tied with best"]), "actual": actual[name],
               "actual rank": actual_rank(name),
               "actual − expected (trial SDs)": gap}
        for col in ("Γ vs MI (%)", "equivalent users"):
            if col in rec.table.columns:
                row[col] = float(r[col]) if r[col] is not None else float("nan")
        row["note"] = str(r.get("note", "") or notes.get(name, ""))
        rows.append(row)
    return AdvisorCheck(recommendation=rec, truth=truth, actual=actual, table=pd.DataFrame(rows), n=int(agg.n),
                        notes=notes)


# =========================================================================== numerical histograms
def _edges(edges: np.ndarray, d: int | None = None) -> np.ndarray:
    e = np.asarray(edges, dtype=np.float64)
    if e.ndim != 1 or e.size < 2:
        raise ValueError("edges must be a 1-D array of at least two bin edges")
    if not (np.all(np.isfinite(e)) and np.all(np.diff(e) > 0)):
        raise ValueError("edges must be finite and strictly increasing")
    if d is not None and e.size != d + 1:
        raise ValueError(f"a histogram with {d} bins needs {d + 1} edges, got {e.size}")
    return e


def to_distribution(x: np.ndarray) -> np.ndarray:
    """``x`` itself if it is a probability vector, else its Norm-Sub projection onto the simplex
    (consistency paper §IV-C): estimates that are negative or do not sum to one are made valid
    before any distribution metric is computed."""
    v = np.asarray(x, dtype=np.float64)
    if v.ndim != 1 or v.size < 1 or not np.all(np.isfinite(v)):
        raise ValueError("a histogram must be a 1-D array of finite numbers")
    if np.all(v >= 0) and abs(v.sum() - 1.0) <= 1e-9:
        return v
    return norm_sub(v)


def _pair(edges: np.ndarray, p: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    pp, qq = to_distribution(p), to_distribution(q)
    if pp.shape != qq.shape:
        raise ValueError(f"the two histograms have different lengths {pp.size} and {qq.size}")
    return _edges(edges, pp.size), pp, qq


def density(edges: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Density per bin in the data's unit: frequency / bin width (no projection: shows raw estimates)."""
    f = np.asarray(p, dtype=np.float64)
    return f / np.diff(_edges(edges, f.size))


def cdf_at_edges(p: np.ndarray) -> np.ndarray:
    """P(x, e_k) = Σ_{j<k} p_j at the d + 1 edges (0 … 1)."""
    f = np.asarray(p, dtype=np.float64)
    return np.concatenate([[0.0], np.cumsum(f)])


def cdf_at(edges: np.ndarray, p: np.ndarray, x: np.ndarray | float) -> np.ndarray:
    """CDF of the uniform-within-bin density at points ``x`` (linear interpolation between edges)."""
    f = np.asarray(p, dtype=np.float64)
    e = _edges(edges, f.size)
    return np.interp(np.asarray(x, dtype=np.float64), e, cdf_at_edges(f))


def wasserstein_distance(edges: np.ndarray, p: np.ndarray, q: np.ndarray) -> float:
    """W1 = ∫ |P(p, x) − P(q, x)| dx in the data's unit (square-wave paper §3.1).

    Both CDFs are linear inside a bin, so their difference D is too; with D = a at the bin's left
    edge and b at its right, the bin contributes w(|a| + |b|)/2 when a, b have the same sign and
    w(a² + b²) / (2(|a| + |b|)) when D crosses zero — the integral is exact.
    """
    e, pp, qq = _pair(edges, p, q)
    diff = cdf_at_edges(pp) - cdf_at_edges(qq)
    a, b, w = diff[:-1], diff[1:], np.diff(e)
    same = a * b >= 0
    tot = np.abs(a) + np.abs(b)
    with np.errstate(invalid="ignore", divide="ignore"):
        crossing = np.where(tot > 0, (a**2 + b**2) / (2 * tot), 0.0)
    return float(np.sum(w * np.where(same, tot / 2, crossing)))


def ks_distance(edges: np.ndarray, p: np.ndarray, q: np.ndarray) -> float:
    """KS = max_x |P(p, x) − P(q, x)| (square-wave paper §3.1); the maximum of the piecewise-linear
    difference is attained at an edge."""
    _, pp, qq = _pair(edges, p, q)
    return float(np.max(np.abs(cdf_at_edges(pp) - cdf_at_edges(qq))))


def _moments(e: np.ndarray, p: np.ndarray) -> tuple[float, float]:
    c = (e[:-1] + e[1:]) / 2
    w = np.diff(e)
    mean = float(np.sum(p * c))
    second = float(np.sum(p * (c**2 + w**2 / 12)))
    return mean, second - mean**2


def histogram_mean(edges: np.ndarray, p: np.ndarray) -> float:
    """Mean of the uniform-within-bin density: Σ p_k c_k with c_k the bin centre."""
    e, pp, _ = _pair(edges, p, p)
    return _moments(e, pp)[0]


def histogram_variance(edges: np.ndarray, p: np.ndarray) -> float:
    """Variance of the uniform-within-bin density: Σ p_k (c_k² + w_k²/12) − mean²."""
    e, pp, _ = _pair(edges, p, p)
    return _moments(e, pp)[1]


def mean_error(edges: np.ndarray, p: np.ndarray, q: np.ndarray) -> float:
    """|mean(p) − mean(q)| in the data's unit (square-wave paper §3.2)."""
    e, pp, qq = _pair(edges, p, q)
    return abs(_moments(e, pp)[0] - _moments(e, qq)[0])


def variance_error(edges: np.ndarray, p: np.ndarray, q: np.ndarray) -> float:
    """|Var(p) − Var(q)| in the data's unit squared (square-wave paper §3.2)."""
    e, pp, qq = _pair(edges, p, q)
    return abs(_moments(e, pp)[1] - _moments(e, qq)[1])


def _check_quantiles(quantiles: Sequence[float]) -> np.ndarray:
    beta = np.asarray(list(quantiles), dtype=np.float64)
    if beta.ndim != 1 or beta.size == 0 or np.any(beta <= 0) or np.any(beta >= 1):
        raise ValueError("quantile levels must be fractions strictly between 0 and 1")
    return beta


def quantile_values(edges: np.ndarray, p: np.ndarray, quantiles: Sequence[float] = DECILES) -> np.ndarray:
    """Q(p, β) = the smallest x with P(p, x) ≥ β (inverse of the piecewise-linear CDF), in real units."""
    beta = _check_quantiles(quantiles)
    e, pp, _ = _pair(edges, p, p)
    cdf = cdf_at_edges(pp)
    cdf[-1] = 1.0  # guard against rounding: the last edge holds all the mass
    k = np.searchsorted(cdf[1:], beta, side="left")  # first bin whose right-edge CDF reaches β
    k = np.minimum(k, pp.size - 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        frac = np.where(pp[k] > 0, (beta - cdf[k]) / pp[k], 0.0)
    return e[k] + np.clip(frac, 0.0, 1.0) * (e[k + 1] - e[k])


def quantile_errors(edges: np.ndarray, p: np.ndarray, q: np.ndarray,
                    quantiles: Sequence[float] = DECILES) -> np.ndarray:
    """|Q(p, β) − Q(q, β)| for every level β, in the data's unit (square-wave paper §3.2 averages
    these over β ∈ {10%, …, 90%})."""
    return np.abs(quantile_values(edges, p, quantiles) - quantile_values(edges, q, quantiles))


def range_query_answers(edges: np.ndarray, p: np.ndarray, lefts: np.ndarray, width: float) -> np.ndarray:
    """R(p, i, α) = P(p, i + width) − P(p, i) for every left end i (real units)."""
    e, pp, _ = _pair(edges, p, p)
    lo = np.asarray(lefts, dtype=np.float64)
    return cdf_at(e, pp, lo + width) - cdf_at(e, pp, lo)


def range_query_mae(edges: np.ndarray, p: np.ndarray, q: np.ndarray, alpha: float, rng: np.random.Generator,
                    queries: int = 1000) -> float:
    """Mean absolute error of random range queries of width α·(domain length) (square-wave paper §3.2):
    the left end i is uniform on [lo, hi − α(hi − lo)]; the answer is the fraction of users in
    [i, i + α(hi − lo)]."""
    if not 0 < alpha <= 1:
        raise ValueError(f"the range-query width α must be a fraction in (0, 1], got {alpha!r}")
    if isinstance(queries, bool) or not isinstance(queries, (int, np.integer)) or queries < 1:
        raise ValueError(f"the number of queries must be a positive integer, got {queries!r}")
    e, pp, qq = _pair(edges, p, q)
    length = e[-1] - e[0]
    width = alpha * length
    lefts = e[0] + rng.random(int(queries)) * (length - width)
    return float(np.mean(np.abs(range_query_answers(e, pp, lefts, width) - range_query_answers(e, qq, lefts, width))))


NUMERICAL_METRICS: dict[str, tuple[str, str]] = {
    # key → (display name, unit kind: "unit", "unit²", "fraction")
    "wasserstein": ("Wasserstein-1 distance", "unit"),
    "ks": ("Kolmogorov–Smirnov distance", "fraction"),
    "mean": ("Absolute error of the mean", "unit"),
    "variance": ("Absolute error of the variance", "unit²"),
    "quantiles": ("Mean absolute error of the deciles", "unit"),
}


def numerical_metrics(edges: np.ndarray, p: np.ndarray, q: np.ndarray, *, alphas: Sequence[float] = (0.1, 0.4),
                      rng: np.random.Generator | None = None, queries: int = 1000,
                      quantiles: Sequence[float] = DECILES) -> dict[str, float]:
    """All numerical metrics of estimate ``q`` against truth ``p`` (keys of ``NUMERICAL_METRICS`` plus
    ``range_<α>`` per range-query width). The same random ranges are used for every estimate given
    the same ``rng`` state."""
    out = {
        "wasserstein": wasserstein_distance(edges, p, q),
        "ks": ks_distance(edges, p, q),
        "mean": mean_error(edges, p, q),
        "variance": variance_error(edges, p, q),
        "quantiles": float(np.mean(quantile_errors(edges, p, q, quantiles))),
    }
    gen = rng if rng is not None else np.random.default_rng(0)
    for alpha in alphas:
        out[f"range_{alpha:g}"] = range_query_mae(edges, p, q, float(alpha), gen, queries)
    return out


def numerical_metrics_over_trials(edges: np.ndarray, truth: np.ndarray, estimates: np.ndarray, *,
                                  alphas: Sequence[float], seed: int, queries: int = 1000,
                                  progress: Callable[[int, int], None] | None = None) -> dict[str, np.ndarray]:
    """``numerical_metrics`` for every trial's estimate (rows of ``estimates``): metric → (trials,).
    Each trial uses the same random ranges (seeded by ``seed``)."""
    est = np.atleast_2d(np.asarray(estimates, dtype=np.float64))
    rows = []
    for t in range(est.shape[0]):
        rng = np.random.default_rng([int(seed), STREAM_RANGES])
        rows.append(numerical_metrics(edges, truth, est[t], alphas=alphas, rng=rng, queries=queries))
        if progress is not None:
            progress(t + 1, est.shape[0])
    return {key: np.array([r[key] for r in rows]) for key in rows[0]}


def numerical_summary(per_trial: Mapping[str, np.ndarray], unit: str = "") -> pd.DataFrame:
    """Display table of :func:`numerical_metrics_over_trials`: metric, mean over trials, its standard
    error, and the unit (the data's unit, its square, or a fraction of users)."""
    u = unit or "data units"
    units = {"unit": u, "unit²": f"{u}²" if unit else "data units squared", "fraction": "fraction of users"}
    rows = []
    for key, values in per_trial.items():
        if key.startswith("range_"):
            name, kind = f"Range queries, width α = {key[6:]} of the domain (MAE)", "fraction"
        else:
            name, kind = NUMERICAL_METRICS[key]
        arr = np.asarray(values, dtype=np.float64)
        rows.append({"metric": name, "mean over trials": float(np.mean(arr)), "± SE": _se(arr) if arr.size > 1
                     else float("nan"), "unit": units[kind]})
    return pd.DataFrame(rows)


def quantile_table(edges: np.ndarray, truth: np.ndarray, estimates: np.ndarray,
                   quantiles: Sequence[float] = DECILES) -> pd.DataFrame:
    """Per quantile level: the true quantile, the first trial's estimated quantile (real units) and the
    mean absolute error over all trials (rows of ``estimates``; each projected with Norm-Sub first)."""
    est = np.atleast_2d(np.asarray(estimates, dtype=np.float64))
    true_q = quantile_values(edges, truth, quantiles)
    est_q = np.array([quantile_values(edges, row, quantiles) for row in est])
    return pd.DataFrame({"level": [f"{b:.0%}" for b in quantiles], "true": true_q, "estimated (trial 1)": est_q[0],
                         "mean absolute error": np.mean(np.abs(est_q - true_q), axis=0)})
