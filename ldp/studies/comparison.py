"""Comparing estimators over repeated collections of one configuration (the Post-processing lab's maths).

Consistency paper (Wang et al., "Locally Differentially Private Frequency Estimation with Consistency", NDSS
2020, §V): runs split into chunks of trials (for progress bars; chunk i always draws from the same named
stream, so a run of 60 trials reuses a run of 50), per-value empirical bias and variance tables (Figs. 2–3),
the errors of every estimator on the three tasks of §V (full domain, frequent values, set-value queries), their
summaries, which estimator is best per task, and the utility gain Γ (IBU paper Eq. (1)) and equivalent users n′
(§V.C) beside them. Numerical distributions get their metric summary and quantile table here too.

Every quantity comes from :mod:`ldp.evaluation`; everything here is pure numpy/pandas, deterministic given
the seeds passed in.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ldp.core.errors import InvalidInput, LDPError
from ldp.core.params import check_positive_int
from ldp.core.registry import TASKS
from ldp.core.streams import rng_for
from ldp.data.domain import draw_population
from ldp.engines import collect
from ldp.estimators import get_estimator
from ldp.evaluation.histograms import DECILES, quantile_values
from ldp.evaluation.metrics import get_metric, metrics_over_trials
from ldp.evaluation.tasks import (
    GAIN_BASELINE,
    bias_variance,
    clip_for,
    closed_form_mi_mse,
    equivalent_users,
    get_task,
    random_subsets,
    set_query_error,
    set_value_mse_curve,
    subset_size,
    top_k_curve,
    utility_gain,
)
from ldp.evaluation.uncertainty import standard_error
from ldp.maths.simplex import to_distribution
from ldp.mechanisms import get_mechanism
from ldp.mechanisms.base import Mechanism
from ldp.simulation import SimulationResult, simulate, simulate_estimates

__all__ = [
    "CHUNK_TRIALS", "NUMERICAL_METRICS", "NUMERICAL_PROJECTION", "COMPARISON_TASKS", "QueryComparison",
    "best_per_task", "bias_summary", "chunk_plan", "comparison_columns", "draw_population", "early_stopping_study",
    "ibu_early_stopping", "max_trials", "merge_results", "numerical_metrics", "numerical_summary", "per_value_table",
    "quantile_table", "query_comparison", "run_chunk", "run_methods", "run_trials", "set_value_curve_table",
    "set_value_sample_table", "simulate_numerical", "summary_table", "task_errors", "top_k_curve_table",
]

CHUNK_TRIALS = 10




#: The query tasks of the consistency paper's §V comparison (registered tasks, :data:`ldp.core.registry.TASKS`).
COMPARISON_TASKS = ("mse", "topk", "set")


def _task(name: str) -> str:
    """The registered name of a task given by any of its names (``full`` → ``mse``); other keys as they are."""
    return TASKS.get(name).name if name in TASKS else name


def task_labels(task_names: Mapping[str, str] | None = None) -> dict[str, str]:
    """Task → label: the registered tasks' display names, overridden by ``task_names`` (keyed by any name of a
    task, e.g. ``full``)."""
    labels = {t.name: t.display_name for t in TASKS}
    labels.update({_task(k): v for k, v in (task_names or {}).items()})
    return labels


# =========================================================================== populations and runs


def chunk_plan(trials: int, size: int = CHUNK_TRIALS) -> list[tuple[int, int]]:
    """``(index, trials)`` of the chunks a run of ``trials`` trials is split into (for progress).

    Chunk ``i`` always has the same seed, so a run of 60 trials reuses the first 50 of a run of 50.

    Parameters
    ----------
    trials : int
        The run's trials (positive).
    size : int, default CHUNK_TRIALS
        Trials per chunk (the last chunk holds the remainder).

    Returns
    -------
    list of tuple of (int, int)
        ``(index, trials)`` per chunk, indices 0, 1, …; the trials sum to ``trials``.

    Raises
    ------
    InvalidInput
        If ``trials`` is not a positive integer.
    """
    trials = check_positive_int(trials, "trials")
    full, rest = divmod(int(trials), size)
    plan = [(i, size) for i in range(full)]
    if rest:
        plan.append((full, rest))
    return plan


def run_chunk(mechanism: Mechanism, counts: np.ndarray, estimators: Sequence[str], *, engine: str, seed: int,
              index: int, trials: int, top_k: int = 10, metrics: Sequence[str] | None = None) -> SimulationResult:
    """Chunk ``index`` of a run: ``trials`` collections with the chunk's own child seed.

    Parameters
    ----------
    mechanism : Mechanism
        The frequency oracle.
    counts : numpy.ndarray
        The population's users per value, shape (d,).
    estimators : Sequence[str]
        Registered estimator names.
    engine : str
        The simulation engine.
    seed : int
        The run's seed; the chunk draws from ``rng_for(seed, "collection", index)``.
    index : int
        The chunk's index in :func:`chunk_plan`.
    trials : int
        Collections in the chunk.
    top_k : int, default 10
        The k of the result's top-k metrics.
    metrics : Sequence[str] or None, default None
        The metrics scored per trial (None: the kind's defaults; empty: none, for a caller that scores the estimates
        its own way, as the Post-processing page does — a tenth of a chunk's time).

    Returns
    -------
    SimulationResult
        The chunk's collections, with ``seed`` set to the run's seed (not the chunk's stream).
    """
    rng = rng_for(int(seed), "collection", int(index))
    result = simulate(mechanism, counts, estimators=list(estimators), engine=engine, trials=int(trials), seed=rng,
                      top_k=top_k, metrics=metrics)
    return dataclasses.replace(result, seed=int(seed))


def run_trials(mechanism: Mechanism, counts: np.ndarray, estimators: Sequence[str], *, engine: str, seed: int,
               trials: int, chunk: Callable[[int, int], SimulationResult] | None = None,
               progress: Callable[[int, int], None] | None = None) -> SimulationResult:
    """``trials`` collections of the population, run in the chunks of :func:`chunk_plan` and merged.

    ``chunk(index, size)`` runs one chunk (default :func:`run_chunk` of this configuration; a page passes a
    cached one); ``progress(done, trials)`` is called after each chunk.

    Parameters
    ----------
    mechanism, counts, estimators, engine
        The configuration, as in :func:`run_chunk` (used by the default ``chunk`` only).
    seed : int
        The run's seed (each chunk's stream is keyed by its index).
    trials : int
        All trials of the run (positive).
    chunk : Callable[[int, int], SimulationResult] or None, default None
        Runs chunk (index, size); None uses :func:`run_chunk` with the arguments above.
    progress : Callable[[int, int], None] or None, default None
        Called with (trials done, trials) after each chunk.

    Returns
    -------
    SimulationResult
        The chunks merged by :func:`merge_results` (trials in chunk order).

    Raises
    ------
    InvalidInput
        If ``trials`` is not a positive integer, or the chunks are not of one configuration.
    """
    def default(index: int, size: int) -> SimulationResult:
        return run_chunk(mechanism, counts, estimators, engine=engine, seed=seed, index=index, trials=size)

    run = chunk or default
    parts = []
    done = 0
    for index, size in chunk_plan(trials):
        parts.append(run(index, size))
        done += size
        if progress is not None:
            progress(done, int(trials))
    return merge_results(parts)


def max_trials(d: int, estimators: int, cells: int) -> int:
    """The most trials whose estimates (trials × d × estimators numbers) fit in ``cells``.

    Parameters
    ----------
    d : int
        Domain size.
    estimators : int
        Estimators per trial (0 counts as 1).
    cells : int
        The budget of stored numbers.

    Returns
    -------
    int
        ⌊cells / (d · estimators)⌋ (0 when not even one trial fits).
    """
    return int(cells) // max(1, int(d) * int(estimators))


def _same_configuration(parts: Sequence[SimulationResult]) -> SimulationResult:
    """The first run, once every run is checked to be of the same configuration (estimators, mechanism, truth)."""
    if not parts:
        raise InvalidInput("nothing to merge")
    first = parts[0]
    for part in parts[1:]:
        if list(part.estimates) != list(first.estimates) or part.mechanism != first.mechanism \
                or not np.array_equal(part.true_counts, first.true_counts):
            raise InvalidInput("can only merge runs of the same configuration")
    return first


def _iteration_diagnostics(parts: Sequence[SimulationResult]) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Iterative estimators' ``converged`` and ``iterations`` per trial over the runs (a run where one never
    iterated has no entry for it: converged, 0 iterations)."""
    iterative = list(dict.fromkeys(e for p in parts for e in p.converged))
    converged = {e: np.concatenate([p.converged.get(e, np.ones(p.trials, dtype=bool)) for p in parts])
                 for e in iterative}
    iterations = {e: np.concatenate([p.iterations.get(e, np.zeros(p.trials, dtype=np.int64)) for p in parts])
                  for e in iterative}
    return converged, iterations


def merge_results(parts: Sequence[SimulationResult]) -> SimulationResult:
    """Concatenate the trials of several runs of the same configuration.

    Parameters
    ----------
    parts : Sequence[SimulationResult]
        Runs with the same estimators (in the same order), mechanism and true counts.

    Returns
    -------
    SimulationResult
        The first run's configuration with every run's estimates, metrics, baselines (those all runs have),
        convergence diagnostics and notes, trials in the order of ``parts``; ``elapsed_s`` summed.

    Raises
    ------
    InvalidInput
        If ``parts`` is empty or the runs differ in configuration.
    """
    first = _same_configuration(parts)
    names = list(first.estimates)
    estimates = {e: np.concatenate([p.estimates[e] for p in parts]) for e in names}
    metrics = {e: {m: np.concatenate([p.metrics[e][m] for p in parts]) for m in first.metrics[e]} for e in names}
    converged, iterations = _iteration_diagnostics(parts)
    return SimulationResult(mechanism=first.mechanism, true_counts=first.true_counts, engine=first.engine,
                            estimates=estimates, metrics=metrics, elapsed_s=sum(p.elapsed_s for p in parts),
                            seed=first.seed, support=first.support, edges=first.edges, top_k=first.top_k,
                            converged=converged, iterations=iterations,
                            notes={e: w for p in reversed(parts) for e, w in p.notes.items()},
                            baseline={m: np.concatenate([p.baseline[m] for p in parts]) for m in first.baseline
                                      if all(m in p.baseline for p in parts)})


# =========================================================================== bias and variance (§V.B)


def per_value_table(result: SimulationResult, labels: Sequence[str],
                    display: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Tidy per-value bias/variance table of every estimator, values sorted by true frequency.

    Columns: estimator, rank (1 = most frequent), value, true frequency, mean estimate, bias,
    bias standard error, empirical variance and the closed-form MI variance
    Var[f'_v] = [f p*(1−p*) + (1−f) q*(1−q*)] / (n (p*−q*)²) of the mechanism (the reference line).

    Parameters
    ----------
    result : SimulationResult
        Repeated collections of one configuration.
    labels : Sequence[str]
        One label per value (d of them).
    display : Mapping[str, str] or None, default None
        Estimator name → the name shown in the ``estimator`` column; None (or a missing name) shows the name.

    Returns
    -------
    pandas.DataFrame
        d rows per estimator with the columns above (``closed-form MI variance`` is the same for every
        estimator).

    Raises
    ------
    InvalidInput
        If there is not one label per value (``labels`` must have the length d of the result's true
        frequencies).

    References
    ----------
    Wang, Lopuhaä-Zwakenberg, Li, Škorić, Li, "Locally Differentially Private Frequency Estimation with
    Consistency" (NDSS 2020), §III.D Eq. (3) (the MI variance per value) and §V.B (Figs. 2–3: bias and
    variance per value).
    """
    truth = result.true_frequencies
    if len(labels) != truth.shape[0]:
        raise InvalidInput(f"need {truth.shape[0]} labels, got {len(labels)}")
    theory = np.asarray(result.variance_per_value(), dtype=np.float64)
    names = list(result.estimates)
    parts = [bias_variance(result.estimates[name], truth) for name in names]
    orders = [bv.order for bv in parts]
    d = truth.shape[0]

    def column(values: Sequence[np.ndarray]) -> np.ndarray:  # one estimator's rows after another's
        return np.concatenate([v[order] for v, order in zip(values, orders, strict=True)])

    # one frame built from whole columns (a frame per estimator and their concatenation cost 2.5 times as much)
    return pd.DataFrame({
        "estimator": np.repeat([(display or {}).get(name, name) for name in names], d),
        "rank": np.tile(np.arange(1, d + 1), len(names)),
        "value": [str(labels[i]) for order in orders for i in order],
        "true frequency": column([truth] * len(names)),
        "mean estimate": column([bv.mean for bv in parts]),
        "bias": column([bv.bias for bv in parts]),
        "bias standard error": column([bv.bias_se for bv in parts]),
        "variance": column([bv.variance for bv in parts]),
        "closed-form MI variance": column([theory] * len(names)),
    })


def bias_summary(table: pd.DataFrame, z: float = 2.0) -> dict[str, dict[str, float]]:
    """Per estimator (as named in :func:`per_value_table`): mean |bias|, the share of values whose
    bias is within ±z standard errors of zero (≈95% for an unbiased estimator when z = 2), the mean
    empirical variance and its ratio to the closed-form MI variance.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`per_value_table`'s output.
    z : float, default 2.0
        The band, in standard errors, within which a value's bias counts as zero.

    Returns
    -------
    dict of str to dict of str to float
        Per estimator (in table order): ``mean |bias|``, ``values with |bias| ≤ z SE (%)``, ``mean variance`` and
        ``variance / closed-form MI variance`` (ratio of the means).
    """
    out: dict[str, dict[str, float]] = {}
    codes, names = pd.factorize(table["estimator"], sort=False)  # the rows of each estimator, in table order
    columns = [table[c].to_numpy(dtype=np.float64) for c in ("bias", "bias standard error", "variance",
                                                              "closed-form MI variance")]
    for code, name in enumerate(names):
        rows = codes == code
        bias, se, var, theory = (c[rows] for c in columns)
        out[str(name)] = {
            "mean |bias|": float(np.mean(np.abs(bias))),
            f"values with |bias| ≤ {z:g} SE (%)": float(100 * np.mean(np.abs(bias) <= z * se)),
            "mean variance": float(np.mean(var)),
            "variance / closed-form MI variance": float(np.mean(var) / np.mean(theory)),
        }
    return out


# =========================================================================== query errors (§V.A, §V.D, §V.E)


def task_errors(estimates: Mapping[str, np.ndarray], truth: np.ndarray, *, k: int, rho: float, queries: int,
                seed: int) -> dict[str, dict[str, np.ndarray]]:
    """Per-trial errors of every estimator for the tasks of §V (:data:`COMPARISON_TASKS`, each bound with the
    parameters of ``k``, ``rho`` and ``queries`` it takes): task → estimator → (trials,).

    The same random subsets (seeded by ``seed``) are used for every estimator and trial, so the
    comparison is paired. Post-Pos (:func:`clip_for`) answers every query clipped at 0, so it equals
    Base-Pos on the full-domain and top-k tasks and differs from MI on small sets (§V.C–D).

    Parameters
    ----------
    estimates : Mapping[str, numpy.ndarray]
        Estimator name → estimates, shape (trials, d) (one estimate, shape (d,), counts as one trial).
    truth : numpy.ndarray
        The true frequencies, shape (d,).
    k : int
        The top-k task's k.
    rho : float
        The set-value task's set size, as a fraction of the domain.
    queries : int
        The set-value task's random sets.
    seed : int
        The seed of the random sets (``rng_for(seed, "set-value queries")``).

    Returns
    -------
    dict of str to dict of str to numpy.ndarray
        Task (``mse``, ``topk``, ``set``) → estimator → per-trial errors, shape (trials,).

    Raises
    ------
    InvalidInput
        If a task refuses its parameters (e.g. k or ρ out of range).

    References
    ----------
    Wang, Lopuhaä-Zwakenberg, Li, Škorić, Li, "Locally Differentially Private Frequency Estimation with
    Consistency" (NDSS 2020), §V.C (full domain), §V.D (set-value) and §V.E (frequent values).
    """
    f = np.asarray(truth, dtype=np.float64)
    given = {"k": int(k), "rho": rho, "queries": queries}
    bound = {name: get_task(name).bind(f.shape[0], rng=rng_for(int(seed), "set-value queries"),
                                       **{p: v for p, v in given.items() if p in get_task(name).parameters})
             for name in COMPARISON_TASKS}
    out: dict[str, dict[str, np.ndarray]] = {t: {} for t in bound}
    for name, est in estimates.items():
        clip = clip_for(name)
        stack = np.atleast_2d(np.asarray(est, dtype=np.float64))
        for task, scorer in bound.items():
            out[task][name] = scorer.score(f, stack, clip)
    return out


def top_k_curve_table(estimates: Mapping[str, np.ndarray], truth: np.ndarray, ks: Sequence[int],
                      display: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Tidy table of the top-k MSE (mean over trials and its standard error) for every k in ``ks``
    (Post-Pos's answers clipped at 0).

    Parameters
    ----------
    estimates : Mapping[str, numpy.ndarray]
        Estimator name → estimates, shape (trials, d).
    truth : numpy.ndarray
        The true frequencies, shape (d,); the top k are its k most frequent values.
    ks : Sequence[int]
        The k values.
    display : Mapping[str, str] or None, default None
        Estimator name → shown name.

    Returns
    -------
    pandas.DataFrame
        One row per (estimator, k): ``estimator``, ``k``, ``MSE``, ``SE``.

    References
    ----------
    Wang, Lopuhaä-Zwakenberg, Li, Škorić, Li, "Locally Differentially Private Frequency Estimation with
    Consistency" (NDSS 2020), §V.E (frequent values).
    """
    ks = [int(k) for k in ks]
    names, mses, ses = [], [], []
    for name, est in estimates.items():
        # (k, trials), each row contiguous: the mean and SD of a row are np.mean's and standard_error's of that row
        curve = np.ascontiguousarray(top_k_curve(est, truth, ks, clip=clip_for(name)))
        trials = curve.shape[1]
        names += [(display or {}).get(name, name)] * len(ks)
        mses.append(np.mean(curve, axis=1))
        ses.append(np.std(curve, axis=1, ddof=1) / math.sqrt(trials) if trials > 1 else np.full(len(ks), np.nan))
    return pd.DataFrame({"estimator": names, "k": np.tile(np.asarray(ks, dtype=np.int64), len(mses)),
                         "MSE": np.concatenate(mses) if mses else np.empty(0),
                         "SE": np.concatenate(ses) if ses else np.empty(0)})


def set_value_curve_table(estimates: Mapping[str, np.ndarray], truth: np.ndarray, rhos_percent: Sequence[float],
                          display: Mapping[str, str] | None = None, *, queries: int = 200,
                          seed: int = 0) -> pd.DataFrame:
    """Tidy table of the set-value MSE (mean over trials) for every ρ in ``rhos_percent``.

    Averaged over *all* subsets of ρ% of the domain (:func:`set_value_mse_expected`, column
    ``averaged over`` = "all sets"), except for estimators that clip their answers (Post-Pos): a
    clipped sum has no closed form, so their MSE is averaged over ``queries`` random sets per ρ
    (seeded by ``seed``, the same sets for every such estimator).

    Parameters
    ----------
    estimates : Mapping[str, numpy.ndarray]
        Estimator name → estimates, shape (trials, d).
    truth : numpy.ndarray
        The true frequencies, shape (d,).
    rhos_percent : Sequence[float]
        Set sizes ρ, in percent of the domain.
    display : Mapping[str, str] or None, default None
        Estimator name → shown name.
    queries : int, default 200
        Random sets per ρ for the clipping estimators.
    seed : int, default 0
        Seed of those sets (a stream keyed by ρ).

    Returns
    -------
    pandas.DataFrame
        One row per (estimator, ρ): ``estimator``, ``ρ (%)``, ``set size``, ``MSE``, ``averaged over``.

    References
    ----------
    Wang, Lopuhaä-Zwakenberg, Li, Škorić, Li, "Locally Differentially Private Frequency Estimation with
    Consistency" (NDSS 2020), §V.D (set-value evaluation).
    """
    f = np.asarray(truth, dtype=np.float64)
    d = f.shape[0]
    sizes = [subset_size(d, float(rho) / 100) for rho in rhos_percent]
    masks = {}
    rows = []
    for name, est in estimates.items():
        clip = clip_for(name)
        expected = None if clip else set_value_mse_curve(est, f, sizes)  # every ρ from one pass over the errors
        for i, (rho, m) in enumerate(zip(rhos_percent, sizes, strict=True)):
            if clip:
                if i not in masks:
                    masks[i] = random_subsets(d, float(rho) / 100, int(queries),
                                              rng_for(int(seed), "set-value queries", float(rho)))
                mse, over = set_query_error(f, np.atleast_2d(est), masks[i], clip=True), f"{int(queries)} random sets"
            else:
                mse, over = expected[i], "all sets"
            rows.append({"estimator": (display or {}).get(name, name), "ρ (%)": float(rho), "set size": m,
                         "MSE": float(np.mean(mse)), "averaged over": over})
    return pd.DataFrame(rows)


def set_value_sample_table(errors: Mapping[str, np.ndarray], truth: np.ndarray, rho_percent: float,
                           display: Mapping[str, str] | None = None) -> pd.DataFrame:
    """The set-value errors of :func:`task_errors` (estimator → per-trial MSE over its random sets) at one ρ:
    estimator, ρ (%), set size, MSE (mean over trials) and its standard error.

    Parameters
    ----------
    errors : Mapping[str, numpy.ndarray]
        Estimator name → per-trial set-value MSE (``task_errors(...)["set"]``).
    truth : numpy.ndarray
        The true frequencies (only its length d is used, for the set size).
    rho_percent : float
        The ρ the errors were computed at, in percent.
    display : Mapping[str, str] or None, default None
        Estimator name → shown name.

    Returns
    -------
    pandas.DataFrame
        One row per estimator: ``estimator``, ``ρ (%)``, ``set size``, ``MSE``, ``SE``.
    """
    m = subset_size(np.asarray(truth).shape[0], float(rho_percent) / 100)
    return pd.DataFrame([{"estimator": (display or {}).get(name, name), "ρ (%)": float(rho_percent), "set size": m,
                          "MSE": float(np.mean(values)), "SE": standard_error(values)}
                         for name, values in errors.items()])


# =========================================================================== summaries


def summary_table(errors: Mapping[str, Mapping[str, np.ndarray]], extra: Mapping[str, Mapping[str, float]]
                  | None = None, display: Mapping[str, str] | None = None,
                  task_names: Mapping[str, str] | None = None) -> pd.DataFrame:
    """One row per estimator: the mean over trials of each task's error (and its standard error),
    plus any ``extra`` per-estimator columns (e.g. mean |bias|).

    Parameters
    ----------
    errors : Mapping[str, Mapping[str, numpy.ndarray]]
        Task → estimator → per-trial errors (:func:`task_errors`); every task has the same estimators.
    extra : Mapping[str, Mapping[str, float]] or None, default None
        Estimator name → further columns (e.g. :func:`bias_summary`, :func:`comparison_columns`).
    display : Mapping[str, str] or None, default None
        Estimator name → shown name.
    task_names : Mapping[str, str] or None, default None
        Task (any of its names) → column label; default the registered tasks' display names.

    Returns
    -------
    pandas.DataFrame
        One row per estimator (in the first task's order): ``estimator``, per task its mean error and
        ``<label> ± SE``, then the extra columns.
    """
    names = task_labels(task_names)
    estimators = list(next(iter(errors.values())))
    rows = []
    for est in estimators:
        row: dict[str, object] = {"estimator": (display or {}).get(est, est)}
        for task, per in errors.items():
            label = names.get(_task(task), task)
            row[label] = float(np.mean(per[est]))
            row[f"{label} ± SE"] = standard_error(np.asarray(per[est]))
        for col, value in (extra or {}).get(est, {}).items():
            row[col] = value
        rows.append(row)
    return pd.DataFrame(rows)


def best_per_task(errors: Mapping[str, Mapping[str, np.ndarray]], display: Mapping[str, str] | None = None,
                  task_names: Mapping[str, str] | None = None, z: float = 2.0) -> pd.DataFrame:
    """For each task: the estimator with the lowest mean error, the runner-up, and whether the lead is
    clear — the paired mean difference over the same trials exceeds z standard errors.

    Parameters
    ----------
    errors : Mapping[str, Mapping[str, numpy.ndarray]]
        Task → estimator → per-trial errors, the same trials for every estimator.
    display : Mapping[str, str] or None, default None
        Estimator name → shown name.
    task_names : Mapping[str, str] or None, default None
        Task → label, as in :func:`summary_table`.
    z : float, default 2.0
        Standard errors the paired difference must exceed for a clear lead.

    Returns
    -------
    pandas.DataFrame
        One row per task: ``task``, ``best``, ``mean error``, ``runner-up`` ("—" when there is one estimator),
        ``runner-up / best`` and ``clear lead``.
    """
    names = task_labels(task_names)
    rows = []
    for task, per in errors.items():
        ranked = sorted(per, key=lambda e: float(np.mean(per[e])))
        best = ranked[0]
        row: dict[str, object] = {"task": names.get(_task(task), task), "best": (display or {}).get(best, best),
                                  "mean error": float(np.mean(per[best]))}
        if len(ranked) > 1:
            second = ranked[1]
            diff = np.asarray(per[second]) - np.asarray(per[best])
            se = standard_error(diff)
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
                       baseline: str = GAIN_BASELINE) -> dict[str, dict[str, float]]:
    """Per estimator: the utility gain Γ(%) for each task (IBU paper Eq. (1), :func:`ldp.evaluation.tasks.utility_gain`
    of the mean errors over the same trials) over ``baseline`` — by default the paper's, MI clipped at 0 and
    renormalised (§2.3, ``norm-mul``); NaN when the baseline did not run — and the equivalent users
    n′ = n·MSE_MI/MSE for the full-domain MSE (consistency paper §V.C, Fig. 5, :func:`equivalent_users` with
    MI's closed-form MSE, so it is defined without MI). The Γ column names its baseline.

    Parameters
    ----------
    errors : Mapping[str, Mapping[str, numpy.ndarray]]
        Task → estimator → per-trial errors (:func:`task_errors`).
    n : int
        Users per collection.
    mechanism : Mechanism
        The frequency oracle (for MI's closed-form MSE).
    truth : numpy.ndarray
        The true frequencies, shape (d,).
    task_names : Mapping[str, str] or None, default None
        Task → label, for the column names.
    baseline : str, default GAIN_BASELINE
        The estimator Γ is measured against (it must be among ``errors``' estimators, else Γ is NaN).

    Returns
    -------
    dict of str to dict of str to float
        Estimator → ``Γ vs <baseline>, <task> (%)`` per task and, when a full-domain task is present,
        ``equivalent users n′ (full domain)``; NaN where undefined.

    References
    ----------
    Arcolezi, Cerna, Palamidessi, "On the Utility Gain of Iterative Bayesian Update for Locally Differentially
    Private Mechanisms" (DBSec 2023), Eq. (1) (Γ) and §2.3 (the baseline).
    Wang, Lopuhaä-Zwakenberg, Li, Škorić, Li, "Locally Differentially Private Frequency Estimation with
    Consistency" (NDSS 2020), §V.C and Fig. 5 (n′).
    """
    names = task_labels(task_names)
    estimators = list(next(iter(errors.values())))
    mi_mse = closed_form_mi_mse(mechanism, int(n), np.asarray(truth, dtype=np.float64))
    label = "MI clipped + renormalised" if baseline == GAIN_BASELINE else baseline
    out: dict[str, dict[str, float]] = {e: {} for e in estimators}
    for task, per in errors.items():
        col = f"Γ vs {label}, {names.get(_task(task), task)} (%)"
        base = float(np.mean(per[baseline])) if baseline in per else float("nan")
        for est in estimators:
            mean = float(np.mean(per[est]))
            ok = math.isfinite(base) and math.isfinite(mean) and base >= 0 and mean >= 0
            out[est][col] = float(utility_gain(base, mean)) if ok else float("nan")
    full = next((per for task, per in errors.items() if _task(task) == "mse"), None)
    if full is not None:
        for est in estimators:
            mse = float(np.mean(full[est]))
            out[est]["equivalent users n′ (full domain)"] = (
                float(equivalent_users(int(n), mse, mi_mse)) if math.isfinite(mse) and mse > 0 else float("nan"))
    return out


@dataclasses.dataclass(frozen=True)
class QueryComparison:
    """Every estimator on the query tasks of §V at one (k, ρ), for one run: what the lab's query section shows.

    Attributes
    ----------
    errors : dict of str to dict of str to numpy.ndarray
        :func:`task_errors`: task → estimator → per-trial errors.
    top_k_curve : pandas.DataFrame
        :func:`top_k_curve_table` over ``ks``.
    set_curve : pandas.DataFrame
        :func:`set_value_curve_table` over ``rhos_percent`` (the expected MSE against ρ).
    set_sample : pandas.DataFrame
        :func:`set_value_sample_table` of the random sets at the chosen ρ.
    summary : pandas.DataFrame
        :func:`summary_table` with, per estimator, :func:`comparison_columns` (Γ, n′) and its :func:`bias_summary`.
    best : pandas.DataFrame
        :func:`best_per_task`.
    """

    errors: dict[str, dict[str, np.ndarray]]
    top_k_curve: pd.DataFrame
    set_curve: pd.DataFrame
    set_sample: pd.DataFrame
    summary: pd.DataFrame
    best: pd.DataFrame


def query_comparison(result: SimulationResult, table: pd.DataFrame, display: Mapping[str, str], *, k: int,
                     rho_percent: float, queries: int, ks: Sequence[int], rhos_percent: Sequence[float],
                     task_names: Mapping[str, str], gain_names: Mapping[str, str],
                     z: float = 2.0) -> QueryComparison:
    """The errors of every estimator of ``result`` on the full domain, its top k and random sets of ρ% of the
    domain (:func:`task_errors`, sets seeded by the run's seed), the curves against k and ρ, and the per-task
    summary with Γ, n′ and the bias summary beside each estimator.

    Parameters
    ----------
    result : SimulationResult
        Repeated collections of one configuration.
    table : pandas.DataFrame
        :func:`per_value_table` of ``result`` with the names of ``display`` (for :func:`bias_summary`).
    display : Mapping[str, str]
        Estimator name → shown name, for every estimator of ``result``.
    k : int
        The top-k task's k.
    rho_percent : float
        The set-value task's set size, in percent of the domain.
    queries : int
        Random sets of the set-value task.
    ks : Sequence[int]
        The k values of the top-k curve.
    rhos_percent : Sequence[float]
        The ρ values (percent) of the set-value curve.
    task_names : Mapping[str, str]
        Task → label of the summary's and the best-per-task table's columns and rows.
    gain_names : Mapping[str, str]
        Task → label inside the Γ columns' names (:func:`comparison_columns`).
    z : float, default 2.0
        Standard errors of the bias band (:func:`bias_summary`) and of a clear lead (:func:`best_per_task`).

    Returns
    -------
    QueryComparison
        The errors and every table built from them.

    Raises
    ------
    InvalidInput
        From :func:`task_errors`, when a task refuses its k, its ρ or its number of queries.

    References
    ----------
    Consistency paper (Wang et al., NDSS 2020), §V.C–E, Figs. 6–7 and 10.
    """
    truth = result.true_frequencies
    seed = result.seed or 0
    errors = task_errors(result.estimates, truth, k=k, rho=rho_percent / 100, queries=queries, seed=seed)
    sampled = set_value_sample_table(errors["set"], truth, rho_percent, display)
    per_name = bias_summary(table, z=z)  # one pass over the table's groups (each estimator's rows, as filtered)
    bias = {e: per_name[display[e]] for e in result.estimates}
    gains = comparison_columns(errors, n=result.n, mechanism=result.mechanism, truth=truth, task_names=gain_names)
    extra = {e: {**gains[e], **bias[e]} for e in result.estimates}
    return QueryComparison(
        errors=errors, top_k_curve=top_k_curve_table(result.estimates, truth, ks, display),
        set_curve=set_value_curve_table(result.estimates, truth, rhos_percent, display, seed=seed),
        set_sample=sampled, summary=summary_table(errors, extra=extra, display=display, task_names=task_names),
        best=best_per_task(errors, display=display, task_names=task_names, z=z))


# =========================================================================== IBU: early stopping vs the limit
def ibu_early_stopping(mechanism: Mechanism, counts: np.ndarray, n: int, truth: np.ndarray,
                       checkpoints: Sequence[int] = (0, 1, 3, 10, 30, 100, 300, 1_000, 3_000, 10_000)) -> pd.DataFrame:
    """How the paper's plain Eq. (3) iterations behave when stopped early (IBU paper §4.1 stops at 10,000):
    MSE against the truth and distance to the limit after each number of iterations, next to the limit itself
    (the maximum-likelihood estimate, IBU's default) and matrix inversion. Early stopping regularises towards
    the uniform start: on a near-uniform distribution, or for GRR at low ε, an early iterate can beat the limit.

    Parameters
    ----------
    mechanism : Mechanism
        A pure frequency oracle (IBU needs its p* and q*).
    counts : numpy.ndarray
        One collection's support counts, shape (d,).
    n : int
        Users in the collection.
    truth : numpy.ndarray
        The true frequencies, shape (d,).
    checkpoints : Sequence[int], default (0, 1, 3, …, 10 000)
        Iteration counts at which the iterate is scored (0: the uniform start).

    Returns
    -------
    pandas.DataFrame
        One row per checkpoint: ``iterations``, ``MSE``, ``distance to the limit`` (max norm),
        ``MSE / limit's MSE`` and ``MSE / MI's MSE``.

    References
    ----------
    Arcolezi, Cerna, Palamidessi, "On the Utility Gain of Iterative Bayesian Update for Locally Differentially
    Private Mechanisms" (DBSec 2023), Eq. (3) (the iteration) and §4.1 (10,000 iterations, tolerance 10⁻¹²).
    """
    from ldp.estimators.ibu import ibu_iterates, ibu_mle, ibu_observed

    f = np.asarray(truth, dtype=np.float64)
    agg = mechanism.as_aggregate(counts, n)
    observed = ibu_observed(np.maximum(agg.counts, 0.0))
    limit = ibu_mle(observed, mechanism.p_star, mechanism.q_star)
    marks = np.asarray(list(checkpoints), dtype=np.int64)
    iterates = ibu_iterates(observed, mechanism.p_star, mechanism.q_star, marks)
    mi = mechanism.estimate(agg).values
    rows = [{"iterations": int(t), "MSE": float(np.mean((x - f) ** 2)),
             "distance to the limit": float(np.max(np.abs(x - limit)))} for t, x in zip(marks, iterates, strict=True)]
    table = pd.DataFrame(rows)
    table["MSE / limit's MSE"] = table["MSE"] / float(np.mean((limit - f) ** 2))
    table["MSE / MI's MSE"] = table["MSE"] / float(np.mean((mi - f) ** 2))
    return table


def early_stopping_study(mechanism: Mechanism, population: np.ndarray, *, trials: int = 10, seed: int = 0,
                         engine: str = "fast",
                         checkpoints: Sequence[int] = (0, 1, 3, 10, 30, 100, 300, 1_000, 3_000, 10_000),
                         ) -> pd.DataFrame:
    """:func:`ibu_early_stopping` averaged over ``trials`` collections of the population (their own named stream
    of ``seed``; the plain iterations of all collections run together): per checkpoint, the mean MSE of the plain
    Eq. (3) iterate, its mean distance to the limit, and the mean MSE of the limit (IBU's default) and of MI on the
    same collections.

    Parameters
    ----------
    mechanism : Mechanism
        A pure frequency oracle.
    population : numpy.ndarray
        Users per value, shape (d,), integers.
    trials : int, default 10
        Collections (positive).
    seed : int, default 0
        The seed; the collections draw from ``rng_for(seed, "ibu early stopping")``.
    engine : str, default "fast"
        The simulation engine.
    checkpoints : Sequence[int], default (0, 1, 3, …, 10 000)
        Iteration counts at which the iterates are scored.

    Returns
    -------
    pandas.DataFrame
        One row per checkpoint: ``iterations``, ``MSE``, ``distance to the limit``, ``limit MSE``, ``MI MSE``
        (the same on every row) and ``MSE / limit's MSE``.

    Raises
    ------
    InvalidInput
        If ``trials`` is not a positive integer (or, from the mechanism, the population does not have its
        length d).

    References
    ----------
    Arcolezi, Cerna, Palamidessi, "On the Utility Gain of Iterative Bayesian Update for Locally Differentially
    Private Mechanisms" (DBSec 2023), Eq. (3) and §4.1.
    """
    from ldp.estimators.ibu import ibu_iterates, ibu_mle, ibu_observed

    trials = check_positive_int(trials, "trials")
    c = np.asarray(population, dtype=np.int64)
    truth = c / c.sum()
    rng = rng_for(int(seed), "ibu early stopping")
    aggs = [collect(mechanism, c, rng, engine) for _ in range(trials)]
    observed = np.stack([ibu_observed(np.maximum(agg.counts, 0.0)) for agg in aggs])
    limits = np.stack([ibu_mle(row, mechanism.p_star, mechanism.q_star) for row in observed])
    mi = np.stack([mechanism.estimate(agg).values for agg in aggs])
    marks = np.asarray(list(checkpoints), dtype=np.int64)
    iterates = ibu_iterates(observed, mechanism.p_star, mechanism.q_star, marks)  # (marks, trials, d)
    limit_mse = float(np.mean((limits - truth) ** 2))
    out = pd.DataFrame({"iterations": marks,
                        "MSE": np.mean((iterates - truth) ** 2, axis=(1, 2)),
                        "distance to the limit": np.mean(np.max(np.abs(iterates - limits), axis=2), axis=1),
                        "limit MSE": limit_mse, "MI MSE": float(np.mean((mi - truth) ** 2))})
    out["MSE / limit's MSE"] = out["MSE"] / limit_mse
    return out


# =========================================================================== numerical distributions
NUMERICAL_METRICS = ("wasserstein", "ks", "mean_error", "variance_error", "quantile_error")


def numerical_metrics(edges: np.ndarray, truth: np.ndarray, estimates: np.ndarray, alphas: Sequence[float], *,
                      seed: int, queries: int = 1000) -> dict[str, np.ndarray]:
    """Per-trial numerical metrics of histogram estimates (rows of ``estimates``) in real units.

    Scored as the square-wave paper scores them (§3.2, §6.1): the mean absolute error of ``queries`` random range
    queries of each width α (the same ranges for every call with this ``seed``) on each method's own output,
    without projection (a range answer needs no distribution: HH-CI's and HaarHRR's raw answers are what the
    paper compares); :data:`NUMERICAL_METRICS` (Wasserstein, KS, mean, variance, quantiles) need a distribution,
    so an estimate that is not one is scored through its Norm-Sub projection (:data:`NUMERICAL_PROJECTION`).

    Parameters
    ----------
    edges : numpy.ndarray
        The d + 1 bucket edges, in the data's unit.
    truth : numpy.ndarray
        The true distribution over the d buckets.
    estimates : numpy.ndarray
        Estimates, shape (trials, d).
    alphas : Sequence[float]
        Range-query widths α, as fractions of the domain; empty for no range metric.
    seed : int
        The seed of the random ranges.
    queries : int, default 1000
        Random ranges per width.

    Returns
    -------
    dict of str to numpy.ndarray
        Metric key (those of :data:`NUMERICAL_METRICS`, then ``range_mae_<α>``) → per-trial values, shape
        (trials,).

    References
    ----------
    Li, Wang, Lopuhaä-Zwakenberg, Li, Škorić, "Estimating Numerical Distributions under Local Differential
    Privacy" (SIGMOD 2020), §3.1–3.2 (the metrics) and §6.1 (the setup).
    """
    projected = metrics_over_trials(truth, estimates, NUMERICAL_METRICS, edges=edges, project=True)
    ranges = [f"range_mae_{a:g}" for a in alphas]
    raw = metrics_over_trials(truth, estimates, ranges, edges=edges, project=False, queries=int(queries),
                              rng=lambda: rng_for(int(seed), "range-queries")) if ranges else {}
    return {**projected, **raw}


NUMERICAL_PROJECTION = ("Range queries score each method's own estimate (no projection, as in the square-wave "
                        "paper §6.1); Wasserstein, KS, the mean, the variance and the quantiles need a distribution "
                        "and score the Norm-Sub projection of an estimate that is negative or does not sum to one.")


def simulate_numerical(mechanism: str, reconstruction: str | None, epsilon: float, counts: np.ndarray,
                       edges: np.ndarray, *, engine: str, trials: int, seed: int,
                       params: Mapping[str, Any] | None = None,
                       reconstruction_params: Mapping[str, Any] | None = None) -> np.ndarray:
    """``trials`` collections of a bucketized population by a registered numerical mechanism (with its own
    ``params``, e.g. SW's b), reconstructed with ``reconstruction`` (default: the mechanism's own; with
    ``reconstruction_params``, e.g. EMS's tol): estimates (trials, d). The same seed gives the same collections
    whatever the reconstruction.

    Parameters
    ----------
    mechanism : str
        A registered numerical mechanism's name; built with d = ``len(counts)``.
    reconstruction : str or None
        A registered reconstruction (estimator) name; None uses the mechanism's default.
    epsilon : float
        Each user's budget ε.
    counts : numpy.ndarray
        Users per bucket, shape (d,).
    edges : numpy.ndarray
        The d + 1 bucket edges (the estimates do not depend on them: the units are the caller's, for
        :func:`numerical_metrics`).
    engine : str
        The simulation engine.
    trials : int
        Collections.
    seed : int
        The seed of the collections.
    params : Mapping[str, Any] or None, default None
        The mechanism's other parameters (e.g. SW's ``b``).
    reconstruction_params : Mapping[str, Any] or None, default None
        The reconstruction's parameters.

    Returns
    -------
    numpy.ndarray
        Estimates, shape (trials, d).

    Raises
    ------
    LDPError
        If the mechanism or reconstruction is unknown or refuses its parameters or this d (e.g. more buckets
        than a hierarchy supports).
    """
    mech = get_mechanism(mechanism, epsilon, int(np.asarray(counts).shape[0]), **dict(params or {}))
    method = reconstruction or mech.default_estimator
    estimator = get_estimator(method, **dict(reconstruction_params or {}))
    # simulate's estimates without its metrics, the collections reconstructed as one batch (EM/EMS)
    return simulate_estimates(mech, counts, estimator, engine=engine, trials=int(trials), seed=seed)


def run_methods(methods: Sequence[tuple[str, str | None]], run: Callable[[str, str | None], np.ndarray],
                ) -> tuple[dict[tuple[str, str | None], np.ndarray], dict[tuple[str, str | None], str]]:
    """Run every (mechanism, reconstruction) with ``run`` (e.g. :func:`simulate_numerical` on one configuration,
    cached): returns the estimates of those that ran and, for those that cannot run on this configuration (an
    ``LDPError``, e.g. more buckets than a hierarchy supports), the reason.

    Parameters
    ----------
    methods : Sequence[tuple[str, str or None]]
        (mechanism, reconstruction) pairs, e.g. from :func:`ldp.studies.choices.numerical_methods`.
    run : Callable[[str, str or None], numpy.ndarray]
        Runs one pair and returns its estimates.

    Returns
    -------
    tuple of (dict, dict)
        (pair → estimates of those that ran, pair → the LDPError's message of those that could not); other
        exceptions propagate.
    """
    done: dict[tuple[str, str | None], np.ndarray] = {}
    failed: dict[tuple[str, str | None], str] = {}
    for method in methods:
        try:
            done[method] = run(*method)
        except LDPError as exc:
            failed[method] = str(exc)
    return done, failed



def numerical_summary(per_trial: Mapping[str, np.ndarray], unit: str = "") -> pd.DataFrame:
    """Display table of numerical metrics over trials (metric key → per-trial values, as in
    ``SimulationResult.metrics[estimator]``): metric, mean over trials, its standard error, and the unit (the
    data's unit, its square, or a fraction of users).

    Parameters
    ----------
    per_trial : Mapping[str, numpy.ndarray]
        Registered metric key → per-trial values.
    unit : str, default ""
        The data's unit ("" reads "data units").

    Returns
    -------
    pandas.DataFrame
        One row per metric: ``metric`` (its title), ``mean over trials``, ``± SE``, ``unit``.

    Raises
    ------
    InvalidInput
        If a key is not a registered metric.
    """
    u = unit or "data units"
    units = {"unit": u, "unit²": f"{u}²" if unit else "data units squared", "fraction": "fraction of users"}
    rows = []
    for key, values in per_trial.items():
        metric = get_metric(key)
        arr = np.asarray(values, dtype=np.float64)
        rows.append({"metric": metric.title, "mean over trials": float(np.mean(arr)),
                     "± SE": standard_error(arr), "unit": units.get(metric.unit, metric.unit)})
    return pd.DataFrame(rows)


def quantile_table(edges: np.ndarray, truth: np.ndarray, estimates: np.ndarray,
                   quantiles: Sequence[float] = DECILES) -> pd.DataFrame:
    """Per quantile level: the true quantile, the first trial's estimated quantile (real units) and the
    mean absolute error over all trials (rows of ``estimates``; each projected with Norm-Sub first).

    Parameters
    ----------
    edges : numpy.ndarray
        The d + 1 bucket edges (real units).
    truth : numpy.ndarray
        The true distribution, shape (d,).
    estimates : numpy.ndarray
        Estimates, shape (trials, d) or (d,); a row that is not a distribution is read through its Norm-Sub
        projection (``to_distribution``), as :data:`NUMERICAL_PROJECTION` says (a CDF with negative steps has no
        quantile).
    quantiles : Sequence[float], default DECILES
        Levels strictly between 0 and 1.

    Returns
    -------
    pandas.DataFrame
        One row per level: ``level`` (e.g. "10%"), ``true``, ``estimated (trial 1)``, ``mean absolute error``.

    Raises
    ------
    InvalidInput
        If a level is not strictly inside (0, 1) or the edges do not fit.

    References
    ----------
    Li, Wang, Lopuhaä-Zwakenberg, Li, Škorić, "Estimating Numerical Distributions under Local Differential
    Privacy" (SIGMOD 2020), §3.2 (quantiles).
    """
    est = np.atleast_2d(np.asarray(estimates, dtype=np.float64))
    true_q = quantile_values(edges, truth, quantiles)
    est_q = np.array([quantile_values(edges, to_distribution(row), quantiles) for row in est])
    return pd.DataFrame({"level": [f"{b:.0%}" for b in quantiles], "true": true_q, "estimated (trial 1)": est_q[0],
                         "mean absolute error": np.mean(np.abs(est_q - true_q), axis=0)})
