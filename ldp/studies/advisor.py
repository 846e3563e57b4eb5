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

Performance: sampling support counts is O(d) per trial, and most estimators are O(d) too; the
iterative IBU (10,000 Eq. (3) iterations at d = 1024, ε = 1) runs on all trials at once
(:func:`ibu_em_batch`, the same iteration and per-trial stopping rule as
:func:`ldp.estimators.ibu.iterative_bayesian_update`). An estimator class may also provide
``estimate_batch(mechanism, counts (trials, d), n) -> (trials, d)``, which is used when present.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ldp.core.registry import ESTIMATORS
from ldp.engines import run_fast
from ldp.estimators import get_estimator, parse_estimators
from ldp.estimators.base import Estimator
from ldp.estimators.ibu import IBU, ibu_observed
from ldp.evaluation.tasks import BoundTask, Task, clip_for, closed_form_mi_mse, get_task, utility_gain
from ldp.mechanisms.base import Mechanism

__all__ = ["DEFAULT_FIT", "Recommendation", "estimate_trials", "fit_synthetic", "ibu_em_batch", "recommend",
           "synthetic_counts"]

DEFAULT_FIT = "norm-sub"
STREAM_COLLECTION, STREAM_QUERIES = 1, 2
SECTION = "consistency paper §V.D (Choosing the method on synthetic dataset)"


# =========================================================================== the synthetic ground truth
def fit_synthetic(mechanism: Mechanism, counts: np.ndarray, n: int, fit: str = DEFAULT_FIT) -> np.ndarray:
    """Step 1 of §V.D: the reports' estimate processed by a *consistent* method (Norm-Sub by default,
    as the paper recommends; PowerNS is its other choice), checked to be a probability vector."""
    cls = ESTIMATORS.get(fit)
    if not cls.consistent:
        ok = [e.name for e in ESTIMATORS if e.consistent and e.applies_to(mechanism)]
        raise ValueError(f"the synthetic distribution must be consistent; fit with one of: {', '.join(ok)}")
    f = np.asarray(get_estimator(fit).estimate(mechanism, counts, n), dtype=np.float64)
    if not (np.all(np.isfinite(f)) and np.all(f >= -1e-12) and abs(f.sum() - 1.0) < 1e-6):
        raise ValueError(f"fit {fit!r} did not give a probability vector (sum {f.sum():.6g}, min {f.min():.3g})")
    f = np.maximum(f, 0.0)
    return f / f.sum()


def synthetic_counts(freqs: np.ndarray, n: int) -> np.ndarray:
    """n users spread over the values by largest remainder: Σ = n and |count − n·f| < 1 for every value,
    so the synthetic dataset is the fitted distribution itself, without sampling noise."""
    f = np.asarray(freqs, dtype=np.float64)
    raw = f * int(n)
    base = np.floor(raw).astype(np.int64)
    rest = int(n) - int(base.sum())
    if rest > 0:
        order = np.argsort(-(raw - base), kind="stable")[:rest]
        base[order] += 1
    return base


# =========================================================================== batched estimation
def ibu_em_batch(observed: np.ndarray, p_star: float, q_star: float, *, max_iter: int = 10_000,
                 tol: float = 1e-12, stop: str = "max_abs") -> np.ndarray:
    """IBU's Eq. (3) iteration (:func:`ldp.estimators.ibu.iterative_bayesian_update`) on every row of
    ``observed`` (trials, d) at once: each row starts from the uniform distribution and stops at its
    own first iteration whose change is below ``tol`` (returning that next iterate), or returns its last
    iterate after ``max_iter``. Rows that stop leave the batch."""
    obs = np.ascontiguousarray(observed, dtype=np.float64)
    rows, d = obs.shape
    p, q = float(p_star), float(q_star)
    k = q / (p - q)
    k_next = k * obs.sum(axis=1)
    result = np.empty_like(obs)
    active = np.arange(rows)
    f = np.full((rows, d), 1.0 / d)
    ks = np.full(rows, k)
    w = np.empty_like(f)
    nxt = np.empty_like(f)
    diff = np.empty_like(f)
    for it in range(int(max_iter)):
        if k > 0:
            np.add(f, ks[:, None], out=w)
            np.divide(obs, w, out=w)
        else:
            w.fill(0.0)
            np.divide(obs, f, out=w, where=f > 0)
        total = w.sum(axis=1)
        w += (k * total)[:, None]
        np.multiply(f, w, out=nxt)
        np.subtract(nxt, f, out=diff)
        np.abs(diff, out=diff)
        change = diff.max(axis=1) if stop == "max_abs" else diff.sum(axis=1)
        bad = ~np.isfinite(change)
        done = (change < tol) | bad
        last = it == int(max_iter) - 1
        if done.any() or last:
            finished = np.ones(active.size, dtype=bool) if last else done
            src = np.where(bad[:, None], f, nxt)
            result[active[finished]] = src[finished]
            keep = ~finished
            if not keep.any():
                break
            active, f, obs = active[keep], nxt[keep], obs[keep]
            ks = k_next[active]
            w, nxt, diff = np.empty_like(f), np.empty_like(f), np.empty_like(f)
            continue
        f, nxt = nxt, f
        if it == 0:
            ks = k_next[active]
    return result


def estimate_trials(estimator: Estimator, mechanism: Mechanism, counts: np.ndarray, n: int) -> np.ndarray:
    """The estimator on every row of ``counts`` (trials, d): ``estimate_batch`` when the class has one,
    the batched IBU iteration for IBU (``method="em"``), else one call per row."""
    c = np.asarray(counts, dtype=np.float64)
    batch = getattr(estimator, "estimate_batch", None)
    if callable(batch):
        return np.asarray(batch(mechanism, c, n), dtype=np.float64)
    if (isinstance(estimator, IBU) and estimator.params["method"] == "em" and np.all(np.isfinite(c))
            and np.all(c >= 0) and np.all(c.sum(axis=1) > 0) and estimator.applies_to(mechanism)):
        obs = np.stack([ibu_observed(row) for row in c])
        return ibu_em_batch(obs, mechanism.p_star, mechanism.q_star, max_iter=estimator.params["max_iter"],
                            tol=estimator.params["tol"], stop=estimator.params["stop"])
    return np.stack([estimator.estimate(mechanism, row, n) for row in c])


# =========================================================================== the recommendation
@dataclass
class Recommendation:
    """The advisor's answer: the best estimator for the task and every candidate's expected error.

    ``table`` has one row per candidate, best first: ``estimator`` (name), ``display name``,
    ``consistent``, ``expected error`` (mean over trials), ``standard error`` (of that mean),
    ``trial SD`` (spread of a single collection's error), ``vs best`` (ratio), ``paired diff SE`` and
    ``tied with best`` (the paired mean difference to the best is within 2 standard errors),
    ``Γ vs MI (%)`` (IBU paper Eq. (1), when MI is a candidate), ``equivalent users`` (full-domain MSE
    only: n·MSE_MI/MSE with MI's closed form), ``seconds`` and ``note`` (an error, if the estimator
    failed). ``synthetic`` is the fitted distribution used as ground truth; ``errors`` holds every
    candidate's per-trial errors. For a task where higher is better (top-k precision) the column is
    ``expected score`` and the best has the highest mean.
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
                "table": self.table.to_dict(orient="records")}


def _check_inputs(mechanism: Mechanism, counts: np.ndarray, n: int, trials: int) -> np.ndarray:
    c = np.asarray(counts, dtype=np.float64)
    if c.shape != (mechanism.d,):
        raise ValueError(f"support counts must have length d={mechanism.d}, got shape {c.shape}")
    if not np.all(np.isfinite(c)):
        raise ValueError("support counts must be finite")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    if isinstance(trials, bool) or not isinstance(trials, (int, np.integer)) or trials < 2:
        raise ValueError(f"trials must be an integer ≥ 2 (the standard error needs two), got {trials!r}")
    return c


def _candidates(mechanism: Mechanism, candidates: Sequence[str] | str | None, consistent_only: bool) -> list[str]:
    if candidates is None:
        names = [e.name for e in ESTIMATORS if e.applies_to(mechanism)]
    else:
        names = parse_estimators(list(candidates) if not isinstance(candidates, str) else candidates, mechanism)
    if consistent_only:
        names = [name for name in names if ESTIMATORS.get(name).consistent]
    if not names:
        raise ValueError(f"no candidate estimator applies to {mechanism.name}")
    return names


def _se(x: np.ndarray) -> float:
    return float(np.std(x, ddof=1) / math.sqrt(x.size)) if x.size > 1 else float("nan")


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
    """
    start = time.perf_counter()
    c = _check_inputs(mechanism, counts, n, trials)
    n = int(n)
    spec = get_task(task)
    names = _candidates(mechanism, candidates, consistent_only)
    query_rng = np.random.default_rng([int(seed), STREAM_QUERIES]) if seed is not None else np.random.default_rng()
    bound: BoundTask = spec.bind(mechanism.d, rng=query_rng, labels=labels, **task_params)
    params = estimator_params or {}
    unknown = set(params) - set(names)
    if unknown:
        raise ValueError(f"estimator_params for estimators that are not candidates: {', '.join(sorted(unknown))}")
    estimators = {name: get_estimator(name, **params.get(name, {})) for name in names}

    synthetic = fit_synthetic(mechanism, c, n, fit)
    population = synthetic_counts(synthetic, n)
    truth = population / n
    rng = np.random.default_rng([int(seed), STREAM_COLLECTION]) if seed is not None else np.random.default_rng()
    reports = np.stack([run_fast(mechanism, population, rng).counts for _ in range(int(trials))])

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
            errors[name] = np.full(int(trials), np.nan)
            notes[name] = f"failed: {exc}"
        seconds[name] = time.perf_counter() - t0

    sign = -1.0 if spec.better == "higher" else 1.0
    means = {name: float(np.mean(v)) for name, v in errors.items()}
    ok = [name for name in names if math.isfinite(means[name])]
    if not ok:
        raise ValueError("every candidate estimator failed: " + "; ".join(f"{k}: {v}" for k, v in notes.items()))
    order = sorted(ok, key=lambda name: sign * means[name]) + [name for name in names if name not in ok]
    best = order[0]
    mi_mse = closed_form_mi_mse(mechanism, n, truth) if spec.name == "mse" else None
    value = "expected error" if spec.better == "lower" else "expected score"
    rows = []
    for rank, name in enumerate(order, start=1):
        err = errors[name]
        diff = err - errors[best]
        diff_se = _se(diff) if name != best else 0.0
        mean = means[name]
        row: dict[str, Any] = {
            "rank": rank, "estimator": name, "display name": ESTIMATORS.get(name).display_name,
            "consistent": bool(ESTIMATORS.get(name).consistent), value: mean,
            "standard error": _se(err), "trial SD": float(np.std(err, ddof=1)),
            "vs best": mean / means[best] if means[best] != 0 else (1.0 if mean == 0 else float("inf")),
            "paired diff SE": diff_se,
            "tied with best": bool(name == best or (math.isfinite(mean) and abs(float(np.mean(diff)))
                                                      <= z * diff_se)),
        }
        if "mi" in errors and spec.better == "lower" and math.isfinite(mean) and math.isfinite(means["mi"]):
            row["Γ vs MI (%)"] = utility_gain(means["mi"], mean)
        if mi_mse is not None:
            row["equivalent users"] = n * mi_mse / mean if math.isfinite(mean) and mean > 0 else float("nan")
        row["seconds"] = seconds[name]
        row["note"] = notes[name]
        rows.append(row)
    table = pd.DataFrame(rows)
    return Recommendation(best=best, table=table, synthetic=synthetic, task=spec.name, task_label=bound.label,
                          task_params={k: v for k, v in bound.params.items()}, trials=int(trials),
                          seed=None if seed is None else int(seed), fit=fit, n=n, mechanism=mechanism,
                          errors=errors, better=spec.better, elapsed_s=time.perf_counter() - start)
