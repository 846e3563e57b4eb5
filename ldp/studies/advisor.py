"""Which estimator to use for *these* reports and *this* query: the consistency paper's method selection.

Wang et al., "Locally Differentially Private Frequency Estimation with Consistency" (NDSS 2020), §V.D
"Choosing the method on synthetic dataset": the best post-processing depends on the query (full
domain, frequent values, random or fixed set-value queries) and on the data, so from the LDP reports
alone

1. estimate the distribution and make it consistent (non-negative, summing to one) — the paper
   processes the estimate with **Norm-Sub** (our default, ``fit="norm-sub"``) or PowerNS; it finds that
   with Norm-Sub "the optimal method can be found quite accurately", while a PowerNS fit tends to
   select PowerNS itself (it pulls the data towards its own power-law prior);
2. take that distribution, with the same number of users n, as a synthetic ground truth;
3. simulate the collection many times (the fast engine, :func:`ldp.engines.run_fast`) and estimate
   with every candidate post-processing method;
4. score each candidate on the user's query task (:mod:`ldp.evaluation.tasks`) against the synthetic truth and
   recommend the one with the lowest expected error.

All candidates see the *same* simulated collections (drawn once, reused for every candidate) and the
same random set-value queries, so their errors are paired. Post-Pos (``clip_queries``) is scored on
clipped answers, as it would answer the queries. The result is deterministic given ``seed``.

Performance: sampling support counts is O(d) per trial, and most estimators are O(d) too; every
candidate runs through its ``estimate_batch`` (IBU's runs all trials at once).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ldp.core.errors import InvalidInput
from ldp.core.params import check_positive_int
from ldp.core.registry import ESTIMATORS
from ldp.core.results import Aggregate
from ldp.core.streams import rng_for
from ldp.engines import collect, run_fast, stack_aggregates
from ldp.estimators import get_estimator, parse_estimators
from ldp.estimators.base import Estimator
from ldp.evaluation.tasks import (
    GAIN_BASELINE,
    BoundTask,
    Task,
    clip_for,
    closed_form_mi_mse,
    get_task,
    utility_gain,
)
from ldp.evaluation.uncertainty import standard_error
from ldp.maths.rounding import largest_remainder
from ldp.mechanisms.base import Mechanism

__all__ = ["DEFAULT_FIT", "AdvisorCheck", "Recommendation", "advise", "advisor_collection", "estimate_trials",
           "fit_synthetic", "recommend", "synthetic_counts"]

DEFAULT_FIT = "norm-sub"
#: Γ of each candidate over the IBU paper's baseline, MI clipped and renormalised (Eq. (1), §2.3).
GAIN_COLUMN = "Γ vs MI clipped + renormalised (%)"
SECTION = "consistency paper §V.D (Choosing the method on synthetic dataset)"


# =========================================================================== the synthetic ground truth
def fit_synthetic(mechanism: Mechanism, counts: np.ndarray, n: int, fit: str = DEFAULT_FIT) -> np.ndarray:
    """Step 1 of §V.D: the reports' estimate processed by a *consistent* method (Norm-Sub by default,
    as the paper recommends; PowerNS is its other choice), checked to be a probability vector.

    Parameters
    ----------
    mechanism : Mechanism
        The frequency oracle the reports came from.
    counts : numpy.ndarray
        The reports' support counts, shape (d,).
    n : int
        The number of users who reported.
    fit : str, default DEFAULT_FIT
        A registered *consistent* estimator (``"norm-sub"``; ``"power-ns"`` is the paper's other choice).

    Returns
    -------
    numpy.ndarray
        The fitted distribution, shape (d,), non-negative and summing to 1.

    Raises
    ------
    InvalidInput
        If ``fit`` is not consistent (the message lists those that apply), or its estimate is not a probability
        vector (to within 1e-6).

    References
    ----------
    Wang, Lopuhaä-Zwakenberg, Li, Škorić, Li, "Locally Differentially Private Frequency Estimation with
    Consistency" (NDSS 2020), §V.D, "Choosing the method on synthetic dataset", step 1.
    """
    cls = ESTIMATORS.get(fit)
    if not cls.consistent:
        ok = [e.name for e in ESTIMATORS if e.consistent and e.applies_to(mechanism)]
        raise InvalidInput(f"the synthetic distribution must be consistent; fit with one of: {', '.join(ok)}")
    f = get_estimator(fit).estimate(mechanism, counts, n).values
    if not (np.all(np.isfinite(f)) and np.all(f >= -1e-12) and abs(f.sum() - 1.0) < 1e-6):
        raise InvalidInput(f"fit {fit!r} did not give a probability vector (sum {f.sum():.6g}, min {f.min():.3g})")
    f = np.maximum(f, 0.0)
    return f / f.sum()


def synthetic_counts(freqs: np.ndarray, n: int) -> np.ndarray:
    """n users spread over the values by largest remainder: Σ = n and |count − n·f| < 1 for every value,
    so the synthetic dataset is the fitted distribution itself, without sampling noise.

    Parameters
    ----------
    freqs : numpy.ndarray
        A probability vector, shape (d,) (from :func:`fit_synthetic`).
    n : int
        The users to spread.

    Returns
    -------
    numpy.ndarray
        Integer users per value, shape (d,), summing to n (:func:`ldp.maths.rounding.largest_remainder`).
    """
    return largest_remainder(freqs, n)


# =========================================================================== batched estimation
def estimate_trials(estimator: Estimator, mechanism: Mechanism, counts: Aggregate | np.ndarray, n: int) -> np.ndarray:
    """The estimator on every row of ``counts`` (trials, d): its ``estimate_batch`` (vectorized where the
    estimator has a vectorized form, e.g. IBU's batched Eq. (3) iteration).

    Parameters
    ----------
    estimator : Estimator
        A built estimator.
    mechanism : Mechanism
        The mechanism the counts came from.
    counts : numpy.ndarray
        Support counts, shape (trials, d), one collection per row.
    n : int
        Users per collection.

    Returns
    -------
    numpy.ndarray
        The estimates, shape (trials, d).

    References
    ----------
    Arcolezi, Cerna, Palamidessi, "On the Utility Gain of Iterative Bayesian Update for Locally Differentially
    Private Mechanisms" (DBSec 2023), Eq. (3): the IBU iteration.
    """
    return estimator.estimate_batch(mechanism, counts, n)


# =========================================================================== the recommendation
@dataclass
class Recommendation:
    """The advisor's answer: the best estimator for the task and every candidate's expected error.

    ``table`` has one row per candidate, best first: ``estimator`` (name), ``display name``,
    ``consistent``, ``expected error`` (mean over trials), ``standard error`` (of that mean),
    ``trial SD`` (spread of a single collection's error), ``vs best`` (ratio), ``paired diff SE`` and
    ``tied with best`` (the paired mean difference to the best is within 2 standard errors),
    ``Γ vs MI clipped + renormalised (%)`` (IBU paper Eq. (1) over its §2.3 baseline ``norm-mul``, when that is a
    candidate), ``equivalent users`` (full-domain MSE
    only: n·MSE_MI/MSE with MI's closed form), ``seconds`` and ``note`` (an error, if the estimator
    failed). ``synthetic`` is the fitted distribution used as ground truth; ``errors`` holds every
    candidate's per-trial errors. For a task where higher is better (top-k precision) the column is
    ``expected score`` and the best has the highest mean.

    Attributes
    ----------
    best : str
        The recommended estimator's name.
    table : pandas.DataFrame
        One row per candidate, best first (columns above, plus ``rank``).
    synthetic : numpy.ndarray
        The fitted distribution used as ground truth, shape (d,).
    task : str
        The task's registered name.
    task_label : str
        The task as people read it (with its parameters).
    task_params : dict of str to Any
        The bound task's parameters.
    trials : int
        The simulated collections.
    seed : int or None
        The seed (None: fresh randomness).
    fit : str
        The consistent estimator that made ``synthetic``.
    n : int
        Users.
    mechanism : Mechanism
        The frequency oracle.
    errors : dict of str to numpy.ndarray
        Per-trial errors (scores), shape (trials,), of every candidate and of the references scored beside them
        (the Γ baseline ``norm-mul``, the guideline); NaN where an estimator failed.
    better : str, default "lower"
        ``"lower"`` or ``"higher"``: which way the task's value is better.
    elapsed_s : float, default 0.0
        Wall seconds of :func:`recommend`.
    method : str, default SECTION
        Where the method comes from (consistency paper §V.D).
    guideline : str or None, default None
        The paper's fixed guideline for the task (§V.F), scored on the same collections even when it is not a
        candidate; None where the task has none or it does not apply to the mechanism.

    References
    ----------
    Wang, Lopuhaä-Zwakenberg, Li, Škorić, Li, "Locally Differentially Private Frequency Estimation with
    Consistency" (NDSS 2020), §V.D, "Choosing the method on synthetic dataset"; §V.F (the guidelines).
    Arcolezi, Cerna, Palamidessi (DBSec 2023), Eq. (1) (Γ) over the baseline of §2.3 (MI clipped and renormalised).
    """

    best: str
    table: pd.DataFrame
    synthetic: np.ndarray
    task: str
    task_label: str
    task_params: dict[str, Any]
    trials: int
    seed: int | None
    fit: str
    n: int
    mechanism: Mechanism
    errors: dict[str, np.ndarray] = field(repr=False)
    better: str = "lower"
    elapsed_s: float = 0.0
    method: str = SECTION
    #: The paper's fixed guideline for the task (§V.F), scored on the same collections even when it is not a
    #: candidate; None where the task has none or it does not apply to the mechanism.
    guideline: str | None = None

    @property
    def value_column(self) -> str:
        """``expected error`` (lower is better) or, for a score such as top-k precision, ``expected score``."""
        return "expected error" if self.better == "lower" else "expected score"

    @property
    def ranking(self) -> list[str]:
        return list(self.table["estimator"])

    def expected_error(self, name: str) -> float:
        return float(np.mean(self.errors[name]))

    def summary(self) -> str:
        row = self.table.iloc[0]
        tied = [e for e, t in zip(self.table["estimator"][1:], self.table["tied with best"][1:], strict=True) if t]
        also = f"; statistically tied with {', '.join(tied)}" if tied else ""
        value = self.value_column
        return (f"{row['display name']} is best for {self.task_label}: {value} {row[value]:.4g} "
                f"± {row['standard error']:.2g} over {self.trials} simulated collections{also}")

    def to_dict(self) -> dict[str, Any]:
        return {"best": self.best, "task": self.task, "task_label": self.task_label,
                "task_params": {k: (v.tolist() if isinstance(v, np.ndarray) else v)
                                for k, v in self.task_params.items()},
                "trials": self.trials, "seed": self.seed, "fit": self.fit, "n": self.n,
                "mechanism": self.mechanism.name, "epsilon": self.mechanism.epsilon, "better": self.better,
                "method": self.method, "elapsed_s": self.elapsed_s, "synthetic": self.synthetic.tolist(),
                "guideline": self.guideline,
                "guideline_expected": None if self.guideline is None else self.expected_error(self.guideline),
                "table": self.table.to_dict(orient="records")}


def _check_inputs(mechanism: Mechanism, counts: np.ndarray, n: int, trials: int) -> np.ndarray:
    c = np.asarray(counts, dtype=np.float64)
    if c.shape != (mechanism.d,):
        raise InvalidInput(f"support counts must have length d={mechanism.d}, got shape {c.shape}")
    if not np.all(np.isfinite(c)):
        raise InvalidInput("support counts must be finite")
    check_positive_int(n, "n")
    if isinstance(trials, bool) or not isinstance(trials, (int, np.integer)) or trials < 2:
        raise InvalidInput(f"trials must be an integer ≥ 2 (the standard error needs two), got {trials!r}")
    return c


def _candidates(mechanism: Mechanism, candidates: Sequence[str] | str | None, consistent_only: bool) -> list[str]:
    if candidates is None:
        names = [e.name for e in ESTIMATORS if e.applies_to(mechanism)]
    else:
        names = parse_estimators(list(candidates) if not isinstance(candidates, str) else candidates, mechanism)
    if consistent_only:
        names = [name for name in names if ESTIMATORS.get(name).consistent]
    if not names:
        raise InvalidInput(f"no candidate estimator applies to {mechanism.name}")
    return names


def _score_candidates(estimators: dict[str, Any], mechanism: Mechanism, reports: Aggregate, n: int,
                      bound: BoundTask, truth: np.ndarray
                      ) -> tuple[dict[str, np.ndarray], dict[str, float], dict[str, str]]:
    """Each candidate's per-trial error (score) on the re-simulated collections, its seconds, and a note where it
    failed (its errors are NaN then)."""
    errors: dict[str, np.ndarray] = {}
    seconds: dict[str, float] = {}
    notes: dict[str, str] = {}
    for name, estimator in estimators.items():
        t0 = time.perf_counter()
        try:
            est = estimate_trials(estimator, mechanism, reports, n)
            errors[name] = np.asarray(bound.score(truth, est, clip_for(estimator)), dtype=np.float64)
            notes[name] = ""
        except (ValueError, FloatingPointError, ArithmeticError) as exc:
            errors[name] = np.full(reports.counts.shape[0], np.nan)
            notes[name] = f"failed: {exc}"
        seconds[name] = time.perf_counter() - t0
    return errors, seconds, notes


def _score_references(spec: Task, mechanism: Mechanism, reports: Aggregate, n: int, bound: BoundTask,
                      truth: np.ndarray, errors: dict[str, np.ndarray]) -> str | None:
    """Score Γ's reference (Eq. 14) and the paper's fixed guideline (§V.F) on the same collections even when they
    are not candidates (into ``errors``); the guideline's name, or None where it does not apply or fails."""
    guideline = spec.guideline if spec.guideline and ESTIMATORS.get(spec.guideline).applies_to(mechanism) else None
    for extra in dict.fromkeys(e for e in (GAIN_BASELINE, guideline) if e is not None):
        cls = ESTIMATORS.get(extra)
        if extra in errors or not cls.applies_to(mechanism):
            continue
        try:
            est = estimate_trials(get_estimator(extra), mechanism, reports, n)
            errors[extra] = np.asarray(bound.score(truth, est, clip_for(cls)), dtype=np.float64)
        except (ValueError, FloatingPointError, ArithmeticError):
            if extra == guideline:
                guideline = None
    return guideline


def _ranking_row(rank: int, name: str, best: str, errors: dict[str, np.ndarray], means: dict[str, float],
                 better: str, z: float, mi_mse: float | None, n: int, seconds: float, note: str) -> dict[str, Any]:
    """One row of the advisor's table: the expected error (or score), its standard errors, the paired comparison
    with the best, Γ against the baseline and the equivalent users where they apply."""
    err = errors[name]
    diff = err - errors[best]
    diff_se = standard_error(diff) if name != best else 0.0
    mean = means[name]
    value = "expected error" if better == "lower" else "expected score"
    row: dict[str, Any] = {
        "rank": rank, "estimator": name, "display name": ESTIMATORS.get(name).display_name,
        "consistent": bool(ESTIMATORS.get(name).consistent), value: mean,
        "standard error": standard_error(err), "trial SD": float(np.std(err, ddof=1)),
        "vs best": mean / means[best] if means[best] != 0 else (1.0 if mean == 0 else float("inf")),
        "paired diff SE": diff_se,
        "tied with best": bool(name == best or (math.isfinite(mean) and abs(float(np.mean(diff))) <= z * diff_se)),
    }
    if GAIN_BASELINE in errors and better == "lower" and math.isfinite(mean) and math.isfinite(means[GAIN_BASELINE]):
        row[GAIN_COLUMN] = utility_gain(means[GAIN_BASELINE], mean)
    if mi_mse is not None:
        row["equivalent users"] = n * mi_mse / mean if math.isfinite(mean) and mean > 0 else float("nan")
    row["seconds"] = seconds
    row["note"] = note
    return row


def recommend(mechanism: Mechanism, counts: np.ndarray, n: int, task: str | Task = "mse", trials: int = 20,
              seed: int | None = 0, candidates: Sequence[str] | str | None = None, *, fit: str = DEFAULT_FIT,
              consistent_only: bool = False, estimator_params: dict[str, dict[str, Any]] | None = None,
              labels: Sequence[str] | None = None, z: float = 2.0, **task_params: Any) -> Recommendation:
    """Recommend an estimator for ``task`` from one set of reports (support ``counts``, ``n`` users).

    ``task`` is a name of :data:`ldp.evaluation.tasks.TASKS` (``mse``, ``topk`` with ``k``, ``topk-precision``,
    ``set`` with ``rho`` (fraction) and ``queries``, ``subsets`` with ``groups``, ``threshold`` with
    ``threshold``); ``task_params`` are its parameters, checked before any simulation. ``candidates``
    defaults to every registered estimator that applies to the mechanism (``consistent_only`` keeps
    the consistent ones); ``estimator_params`` maps a name to its parameters. ``fit`` is the consistent
    method that turns the reports' estimate into the synthetic truth (§V.D: Norm-Sub). ``labels`` name
    the values for ``groups`` given by label. ``z`` sets the "tied with best" band (paired z·SE).

    Parameters
    ----------
    mechanism : Mechanism
        The frequency oracle the reports came from.
    counts : numpy.ndarray
        Support counts of the reports, shape (d,), finite.
    n : int
        Users who reported (positive).
    task : str or Task, default "mse"
        The query task the candidates are scored on.
    trials : int, default 20
        Simulated collections, at least 2 (a standard error needs two).
    seed : int or None, default 0
        Seed of the simulated collections and the random queries (streams keyed by name); None: fresh
        randomness.
    candidates : Sequence[str] or str or None, default None
        Estimator names (or a comma-separated string, :func:`ldp.estimators.parse_estimators`); None: every
        registered estimator that applies.
    fit : str, default DEFAULT_FIT
        The consistent estimator of :func:`fit_synthetic`.
    consistent_only : bool, default False
        Keep only consistent candidates.
    estimator_params : dict of str to dict or None, default None
        Parameters per candidate name; a name that is not a candidate raises.
    labels : Sequence[str] or None, default None
        The values' labels, for ``groups`` given by label.
    z : float, default 2.0
        Half-width, in paired standard errors, of the "tied with best" band.
    **task_params : Any
        The task's parameters (``k``, ``rho``, ``queries``, ``groups``, ``threshold`` …).

    Returns
    -------
    Recommendation
        The best candidate, the ranking table and every candidate's per-trial errors.

    Raises
    ------
    InvalidInput
        If the counts do not have shape (d,) or are not finite, n is not a positive integer, trials < 2, no
        candidate applies, ``estimator_params`` names a non-candidate, the task or its parameters are invalid,
        ``fit`` is not consistent, or every candidate failed.

    References
    ----------
    Wang, Lopuhaä-Zwakenberg, Li, Škorić, Li, "Locally Differentially Private Frequency Estimation with
    Consistency" (NDSS 2020), §V.D, "Choosing the method on synthetic dataset", steps 1–4 (module docstring).
    """
    start = time.perf_counter()
    c = _check_inputs(mechanism, counts, n, trials)
    n = int(n)
    spec = get_task(task)
    names = _candidates(mechanism, candidates, consistent_only)
    query_rng = rng_for(seed, "advisor", "queries")
    bound: BoundTask = spec.bind(mechanism.d, rng=query_rng, labels=labels, **task_params)
    params = estimator_params or {}
    unknown = set(params) - set(names)
    if unknown:
        raise InvalidInput(f"estimator_params for estimators that are not candidates: {', '.join(sorted(unknown))}")
    estimators = {name: get_estimator(name, **params.get(name, {})) for name in names}

    synthetic = fit_synthetic(mechanism, c, n, fit)
    population = synthetic_counts(synthetic, n)
    truth = population / n
    rng = rng_for(seed, "advisor", "collections")
    reports = stack_aggregates([run_fast(mechanism, population, rng) for _ in range(int(trials))])

    errors, seconds, notes = _score_candidates(estimators, mechanism, reports, n, bound, truth)
    guideline = _score_references(spec, mechanism, reports, n, bound, truth, errors)
    sign = -1.0 if spec.better == "higher" else 1.0
    means = {name: float(np.mean(v)) for name, v in errors.items()}
    ok = [name for name in names if math.isfinite(means[name])]
    if not ok:
        raise InvalidInput("every candidate estimator failed: " + "; ".join(f"{k}: {v}" for k, v in notes.items()))
    order = sorted(ok, key=lambda name: sign * means[name]) + [name for name in names if name not in ok]
    best = order[0]
    mi_mse = closed_form_mi_mse(mechanism, n, truth) if spec.name == "mse" else None
    rows = [_ranking_row(rank, name, best, errors, means, spec.better, z, mi_mse, n, seconds[name], notes[name])
            for rank, name in enumerate(order, start=1)]
    table = pd.DataFrame(rows)
    return Recommendation(best=best, table=table, synthetic=synthetic, task=spec.name, task_label=bound.label,
                          task_params={k: v for k, v in bound.params.items()}, trials=int(trials),
                          seed=None if seed is None else int(seed), fit=fit, n=n, mechanism=mechanism,
                          errors=errors, better=spec.better, elapsed_s=time.perf_counter() - start,
                          guideline=guideline)



# =========================================================================== the advisor, checked against the truth
def advisor_collection(mechanism: Mechanism, counts: np.ndarray, *, engine: str, seed: int) -> Aggregate:
    """One simulated collection of the population ``counts`` — the reports a user would hold — drawn
    from its own stream of ``seed`` (independent of the lab's trials).

    Parameters
    ----------
    mechanism : Mechanism
        The frequency oracle.
    counts : numpy.ndarray
        The population's users per value, shape (d,), integers.
    engine : str
        The simulation engine (``"fast"`` or ``"exact"``).
    seed : int
        The seed; the stream is ``rng_for(seed, "advisor collection")``.

    Returns
    -------
    Aggregate
        The collection's support counts and n.
    """
    rng = rng_for(int(seed), "advisor collection")
    return collect(mechanism, np.asarray(counts, dtype=np.int64), rng, engine)


@dataclass
class AdvisorCheck:
    """The advisor's recommendation from one collection, next to what the simulator knows: each
    candidate's *actual* error on that collection against the true distribution.

    ``table`` (best expected first): ``rank``, ``estimator`` (name), ``display name``, ``expected``
    (the advisor's mean error over its re-simulations, or mean score for a higher-is-better task),
    ``standard error``, ``trial SD``, ``tied with best``, ``actual`` (on these reports, scored like the
    advisor: same queries, Post-Pos clipped), ``actual rank``, ``actual − expected (trial SDs)``, and the
    advisor's Γ (:data:`GAIN_COLUMN`) / ``equivalent users`` when it computed them.

    Attributes
    ----------
    recommendation : Recommendation
        The advisor's answer from the collection's reports.
    truth : numpy.ndarray
        The population's true distribution, shape (d,).
    actual : dict of str to float
        Each candidate's (and the guideline's) actual error or score on the collection; NaN where it failed.
    table : pandas.DataFrame
        The comparison table (columns above), in the advisor's order.
    n : int
        Users in the collection.
    notes : dict of str to str, default {}
        Why an estimator failed on the collection, by name.
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

    @property
    def actual_ratio(self) -> float:
        """The recommended estimator's actual error over the actual best candidate's on these reports (1 when it
        is the best; for a higher-is-better score, best over recommended). The check a page shows first."""
        best, top = self.actual.get(self.best, math.nan), self.actual.get(self.actual_best, math.nan)
        if self.better == "higher":
            best, top = top, best
        if not (math.isfinite(best) and math.isfinite(top)):
            return math.nan
        return 1.0 if best == top else (best / top if top > 0 else math.inf)

    def guideline(self) -> dict[str, Any] | None:
        """The paper's fixed guideline (§V.F) for the task, beside the data-driven choice: its name, display name,
        expected error (advisor's re-simulations) and actual error on these reports."""
        name = self.recommendation.guideline
        if name is None:
            return None
        return {"estimator": name, "display name": ESTIMATORS.get(name).display_name,
                "expected": self.recommendation.expected_error(name), "actual": self.actual.get(name, math.nan),
                "is recommended": name == self.best}

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
           estimator_params: dict[str, dict[str, Any]] | None = None, **task_params: Any) -> AdvisorCheck:
    """Simulate one collection of the population ``counts`` (:func:`advisor_collection`), ask
    :func:`ldp.studies.advisor.recommend` which estimator suits ``task`` from those reports alone, and score every
    candidate on the same reports against the true distribution (which only a simulator knows), with the
    advisor's own random queries (same seed stream) and Post-Pos's clipping.

    Parameters
    ----------
    mechanism : Mechanism
        The frequency oracle.
    counts : numpy.ndarray
        The true population's users per value, shape (d,), integers.
    task : str, default "mse"
        The query task's registered name.
    trials : int, default 20
        The advisor's simulated collections (at least 2).
    seed : int, default 0
        The seed of the collection, the advisor's re-simulations and the random queries.
    candidates : Sequence[str] or None, default None
        Candidate estimator names; None: every one that applies.
    engine : str, default "fast"
        The engine of the one collection (the advisor's re-simulations always use the fast one).
    labels : Sequence[str] or None, default None
        The values' labels, for ``groups`` given by label.
    estimator_params : dict of str to dict or None, default None
        Parameters per candidate name.
    **task_params : Any
        The task's parameters.

    Returns
    -------
    AdvisorCheck
        The recommendation beside each candidate's actual error on the collection.

    Raises
    ------
    InvalidInput
        As :func:`recommend`.
    """

    c = np.asarray(counts, dtype=np.int64)
    agg = advisor_collection(mechanism, c, engine=engine, seed=seed)
    rec = recommend(mechanism, agg.counts, int(agg.n), task=task, trials=int(trials), seed=int(seed),
                            candidates=None if candidates is None else list(candidates), labels=labels,
                            estimator_params=estimator_params, **task_params)
    truth = c / c.sum()
    bound = get_task(task).bind(mechanism.d, rng=rng_for(int(seed), "advisor", "queries"),
                                      labels=labels, **task_params)
    actual: dict[str, float] = {}
    notes: dict[str, str] = {}
    for name in dict.fromkeys([*rec.ranking, *([rec.guideline] if rec.guideline else [])]):
        try:
            est = get_estimator(name, **(estimator_params or {}).get(name, {})).estimate(mechanism, agg).values
            actual[name] = float(bound.score(truth, est[None, :], clip_for(name))[0])
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
        for col in (GAIN_COLUMN, "equivalent users"):
            if col in rec.table.columns:
                row[col] = float(r[col]) if r[col] is not None else float("nan")
        row["note"] = str(r.get("note", "") or notes.get(name, ""))
        rows.append(row)
    return AdvisorCheck(recommendation=rec, truth=truth, actual=actual, table=pd.DataFrame(rows), n=int(agg.n),
                        notes=notes)
