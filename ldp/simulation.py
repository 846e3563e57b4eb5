"""The simulation layer: population → collection (either engine) → estimators → metrics.

``simulate`` runs repeated trials of one configuration; ``sweep`` runs a grid of configurations and
returns a tidy table (one row per configuration, trial, estimator and metric).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ldp.core.randomness import make_rng
from ldp.core.registry import MECHANISMS
from ldp.engines import check_engine, collect
from ldp.estimators import get_estimator, parse_estimators
from ldp.evaluation.metrics import DEFAULT_METRICS, compute_metrics
from ldp.mechanisms import get_mechanism
from ldp.mechanisms.base import Mechanism


@dataclass
class SimulationResult:
    """Estimates and errors of ``trials`` independent collections of the same population."""

    mechanism: Mechanism
    true_counts: np.ndarray
    engine: str
    estimates: dict[str, np.ndarray]  # estimator → (trials, d)
    metrics: dict[str, dict[str, np.ndarray]]  # estimator → metric → (trials,)
    elapsed_s: float
    seed: int | None = None
    extras: dict[str, Any] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return int(self.true_counts.sum())

    @property
    def true_frequencies(self) -> np.ndarray:
        return self.true_counts / self.n

    @property
    def trials(self) -> int:
        return next(iter(self.estimates.values())).shape[0]

    def variance_per_value(self) -> np.ndarray:
        """Closed-form variance of matrix inversion for every value of this population."""
        return self.mechanism.variance(self.true_frequencies, self.n)

    @property
    def theoretical_variance(self) -> float:
        """Closed-form MI variance averaged over the domain (= the expected MSE of MI)."""
        return float(np.mean(self.variance_per_value()))

    def summary(self) -> dict[str, dict[str, float]]:
        """Each estimator → its metrics averaged over trials."""
        return {est: {m: float(np.mean(v)) for m, v in per.items()} for est, per in self.metrics.items()}

    def to_dict(self, labels: Sequence[str] | None = None) -> dict[str, Any]:
        d = self.mechanism.d
        return {
            "mechanism": self.mechanism.name,
            "epsilon": self.mechanism.epsilon,
            **({"epsilon_1": self.mechanism.params["epsilon_1"]} if self.mechanism.kind == "longitudinal" else {}),
            "parameters": {k: v for k, v in self.mechanism.params.items() if k != "epsilon_1"},
            "users": self.n,
            "engine": self.engine,
            "seed": self.seed if isinstance(self.seed, (int, type(None))) else None,
            "domain": list(labels) if labels is not None else [str(v) for v in range(d)],
            "true": self.true_frequencies.tolist(),
            "theoretical_variance": self.theoretical_variance,
            "summary": self.summary(),
            "trials": [
                {"trial": t, "estimates": {est: arr[t].tolist() for est, arr in self.estimates.items()},
                 "metrics": {est: {m: float(v[t]) for m, v in per.items()} for est, per in self.metrics.items()}}
                for t in range(self.trials)
            ],
            "elapsed_s": self.elapsed_s,
            "warnings": list(self.extras.get("warnings", [])),
        }


def simulate(mechanism: Mechanism, true_counts: np.ndarray, *, estimators: Sequence[str] | str = ("mi",),
             engine: str = "fast", trials: int = 1, seed: int | None = None,
             metrics: Sequence[str] = DEFAULT_METRICS, top_k: int = 10, workers: int | None = None) -> SimulationResult:
    """Collect the population ``true_counts`` (users per value) ``trials`` times and estimate.

    Every estimator runs on the same simulated reports, so their errors compare like for like.
    The same seed gives the same result, on either engine.
    """
    counts = np.asarray(true_counts)
    if counts.shape != (mechanism.d,):
        raise ValueError(f"true counts must have length d={mechanism.d}, got shape {counts.shape}")
    if counts.size and (np.any(counts < 0) or not np.all(np.equal(np.mod(counts, 1), 0))):
        raise ValueError("true counts must be non-negative integers")
    counts = counts.astype(np.int64)
    n = int(counts.sum())
    if n < 1:
        raise ValueError("need at least one user (n ≥ 1)")
    if isinstance(trials, bool) or not isinstance(trials, (int, np.integer)) or trials < 1:
        raise ValueError(f"trials must be a positive integer, got {trials!r}")
    check_engine(engine)
    names = parse_estimators(list(estimators) if not isinstance(estimators, str) else estimators, mechanism)
    fitted = {name: get_estimator(name) for name in names}
    rng = make_rng(seed)
    truth = counts / n
    k = min(top_k, mechanism.d)
    est_out = {name: np.empty((trials, mechanism.d)) for name in names}
    met_out: dict[str, dict[str, np.ndarray]] = {name: {m: np.empty(trials) for m in metrics} for name in names}
    not_converged: dict[str, int] = {}
    start = time.perf_counter()
    for t in range(trials):
        agg = collect(mechanism, counts, rng, engine, workers=workers)
        for name, estimator in fitted.items():
            est = estimator.estimate(mechanism, agg.counts, agg.n)
            trace = getattr(estimator, "last_trace", None)
            if trace is not None and not trace.converged:
                not_converged[name] = not_converged.get(name, 0) + 1
            est_out[name][t] = est
            for m, value in compute_metrics(truth, est, metrics, k=k).items():
                met_out[name][m][t] = value
    elapsed = time.perf_counter() - start
    warnings = [f"{name} did not converge in {count} of {trials} trial(s); the last iterate is used"
                for name, count in not_converged.items()]
    return SimulationResult(mechanism=mechanism, true_counts=counts, engine=engine, estimates=est_out,
                            metrics=met_out, elapsed_s=elapsed, seed=seed, extras={"warnings": warnings})


def sweep(population: Callable[[int, int, np.random.Generator], np.ndarray], *, mechanisms: Sequence[str],
          epsilons: Sequence[float], users: Sequence[int], domain_sizes: Sequence[int],
          estimators: Sequence[str] = ("mi",), trials: int = 1, engine: str = "fast", seed: int | None = 0,
          metrics: Sequence[str] = DEFAULT_METRICS, params: dict[str, dict[str, Any]] | None = None,
          epsilon_1: float | None = None,
          progress: Callable[[int, int], None] | None = None) -> pd.DataFrame:
    """Run every (mechanism, ε, n, d) configuration and return a tidy table.

    ``population(d, n, rng)`` returns the users-per-value counts for domain size d and n users.
    Columns: mechanism, epsilon, users, d, engine, trial, estimator, metric, value,
    theoretical_variance. Each configuration has its own child seed, so adding a configuration does
    not change the others' numbers.
    """
    grid = list(itertools.product(mechanisms, epsilons, users, domain_sizes))
    if not grid:
        raise ValueError("the sweep is empty: give at least one mechanism, ε, n and d")
    root = np.random.SeedSequence(seed)
    children = root.spawn(len(grid))
    rows: list[dict[str, Any]] = []
    for i, ((mech_name, eps, n, d), child) in enumerate(zip(grid, children, strict=True)):
        extra = dict((params or {}).get(mech_name, {}))
        if epsilon_1 is not None and "epsilon_1" not in extra and MECHANISMS.get(mech_name).kind == "longitudinal":
            extra["epsilon_1"] = float(epsilon_1)
        mechanism = get_mechanism(mech_name, eps, d, **extra)
        rng = np.random.default_rng(child)
        counts = population(d, n, rng)
        result = simulate(mechanism, counts, estimators=estimators, engine=engine, trials=trials,
                          seed=int(rng.integers(2**63 - 1)), metrics=metrics)
        tv = result.theoretical_variance
        for est, per in result.metrics.items():
            for metric, values in per.items():
                for t, value in enumerate(values):
                    rows.append({"mechanism": mech_name, "epsilon": eps, "users": n, "d": d, "engine": engine,
                                 "trial": t, "estimator": est, "metric": metric, "value": float(value),
                                 "theoretical_variance": tv})
        if progress is not None:
            progress(i + 1, len(grid))
    return pd.DataFrame(rows)
