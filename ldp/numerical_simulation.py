"""Simulate a numerical mechanism end to end and score it in the data's own units.

:func:`simulate_numerical` is the numerical counterpart of :func:`ldp.simulation.simulate`: it collects a
population given by its users per input bucket ``trials`` times with any registered numerical mechanism
(``mechanism.simulate_population``: randomize, aggregate, reconstruct with the chosen EM/EMS/… method) and
scores every estimate against the truth with the square-wave paper's §3 metrics from :mod:`ldp.studies.comparison`:
Wasserstein-1 and Kolmogorov–Smirnov distances (§3.1), the mean absolute error of random range queries of
width α of the domain, and the absolute errors of the mean, the variance and the deciles (§3.2). Distances,
means and quantiles are in the unit of ``edges`` (the variance in its square), KS and range queries in
fractions of users.

Randomness: trial ``t`` uses the ``t``-th child of ``SeedSequence(seed)``, so the same seed gives the same
result, and two runs with the same seed but different reconstructions of the same mechanism see the *same*
collections (the mechanisms draw their reports before a deterministic reconstruction) — their errors compare
like for like. The random range queries come from their own stream (the same ranges for every trial and every
method, as in :func:`ldp.studies.comparison.numerical_metrics_over_trials`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ldp.core.randomness import make_rng
from ldp.studies import comparison as lab

DEFAULT_ALPHAS = (0.1, 0.4)
RANGE_QUERIES = 1000

#: Summary key → (lab metric key, display name, unit kind: "unit", "unit²" or "fraction").
SUMMARY_KEYS: dict[str, tuple[str, str, str]] = {
    "wasserstein": ("wasserstein", "Wasserstein-1 distance", "unit"),
    "ks": ("ks", "Kolmogorov–Smirnov distance", "fraction"),
    "mean_error": ("mean", "Absolute error of the mean", "unit"),
    "variance_error": ("variance", "Absolute error of the variance", "unit²"),
    "quantile_error": ("quantiles", "Mean absolute error of the deciles", "unit"),
}


@dataclass
class NumericalResult:
    """Estimates and §3 errors of ``trials`` collections of one population by one numerical mechanism
    with one reconstruction."""

    mechanism: Any  # a NumericalMechanism
    true_counts: np.ndarray
    edges: np.ndarray
    engine: str
    reconstruction: str | None
    estimates: np.ndarray  # (trials, d) estimated frequencies over the input buckets
    metrics: dict[str, np.ndarray]  # lab metric key (wasserstein, ks, mean, variance, quantiles, range_<α>) → (trials,)
    alphas: tuple[float, ...]
    elapsed_s: float
    seed: int | None = None
    extras: dict[str, Any] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return int(self.true_counts.sum())

    @property
    def trials(self) -> int:
        return int(self.estimates.shape[0])

    @property
    def true_frequencies(self) -> np.ndarray:
        return self.true_counts / self.n

    def summary(self) -> dict[str, float]:
        """Metrics averaged over the trials: ``wasserstein``, ``ks``, ``range_mae`` (α = the first width,
        0.1 by default), ``range_mae_<α>`` for every other width (e.g. ``range_mae_0.4``), ``mean_error``,
        ``variance_error``, ``quantile_error`` (mean over the deciles)."""
        out = {key: float(np.mean(self.metrics[src])) for key, (src, _, _) in SUMMARY_KEYS.items()
               if key in ("wasserstein", "ks")}
        for i, alpha in enumerate(self.alphas):
            out["range_mae" if i == 0 else f"range_mae_{alpha:g}"] = float(np.mean(self.metrics[f"range_{alpha:g}"]))
        out.update({key: float(np.mean(self.metrics[src])) for key, (src, _, _) in SUMMARY_KEYS.items()
                    if key not in ("wasserstein", "ks")})
        return out

    def per_trial(self, t: int) -> dict[str, float]:
        """The summary's metrics of trial ``t`` alone."""
        out = {"wasserstein": float(self.metrics["wasserstein"][t]), "ks": float(self.metrics["ks"][t])}
        for i, alpha in enumerate(self.alphas):
            out["range_mae" if i == 0 else f"range_mae_{alpha:g}"] = float(self.metrics[f"range_{alpha:g}"][t])
        out.update({key: float(self.metrics[src][t]) for key, (src, _, _) in SUMMARY_KEYS.items()
                    if key not in ("wasserstein", "ks")})
        return out

    def summary_table(self, unit: str = "") -> Any:
        """Display table (metric, mean over trials, ± SE, unit) as :func:`ldp.studies.comparison.numerical_summary`."""
        return lab.numerical_summary(self.metrics, unit)


def _check_alphas(alphas: Sequence[float]) -> tuple[float, ...]:
    out = tuple(float(a) for a in alphas)
    if any(not 0 < a <= 1 for a in out):
        raise ValueError(f"range-query widths α must be fractions in (0, 1], got {list(alphas)}")
    return out


def simulate_numerical(mechanism: Any, true_counts: Any, *, edges: Any, engine: str = "fast",
                       reconstruction: str | None = None, trials: int = 1, seed: int | None = None,
                       alphas: Sequence[float] = DEFAULT_ALPHAS, queries: int = RANGE_QUERIES) -> NumericalResult:
    """Collect the population ``true_counts`` (users per input bucket, length ``mechanism.d``) ``trials``
    times with ``mechanism`` and reconstruction ``reconstruction`` (None: the mechanism's default), and
    score each estimate in real units against the bucket ``edges`` (length d + 1, e.g. the column's
    bucketization edges or ``ValueScale.edges(d)``)."""
    counts = np.asarray(true_counts)
    d = int(mechanism.d)
    if counts.shape != (d,):
        raise ValueError(f"true counts must have length d={d} (the mechanism's buckets), got shape {counts.shape}")
    if np.any(counts < 0) or not np.all(np.equal(np.mod(counts, 1), 0)):
        raise ValueError("true counts must be non-negative integers")
    counts = counts.astype(np.int64)
    if counts.sum() < 1:
        raise ValueError("need at least one user (n ≥ 1)")
    e = np.asarray(edges, dtype=np.float64)
    if e.shape != (d + 1,) or not np.all(np.isfinite(e)) or np.any(np.diff(e) <= 0):
        raise ValueError(f"edges must be {d + 1} increasing finite numbers (d = {d} buckets)")
    if isinstance(trials, bool) or not isinstance(trials, (int, np.integer)) or trials < 1:
        raise ValueError(f"trials must be a positive integer, got {trials!r}")
    make_rng(seed)  # validates the seed
    widths = _check_alphas(alphas)
    offered = tuple(getattr(mechanism, "reconstructions", ()) or ())
    method = reconstruction or (offered[0] if offered else None)
    if offered and method not in offered:
        raise ValueError(f"{mechanism.name} offers the reconstructions {', '.join(offered)}, not {method!r}")
    start = time.perf_counter()
    children = np.random.SeedSequence(seed).spawn(int(trials))
    estimates = np.empty((int(trials), d), dtype=np.float64)
    for t, child in enumerate(children):
        estimates[t] = mechanism.simulate_population(counts, np.random.default_rng(child), engine=engine,
                                                     reconstruction=method)
    truth = counts / counts.sum()
    metrics = lab.numerical_metrics_over_trials(e, truth, estimates, alphas=widths, seed=0 if seed is None else seed,
                                                queries=queries)
    return NumericalResult(mechanism=mechanism, true_counts=counts, edges=e, engine=engine, reconstruction=method,
                           estimates=estimates, metrics=metrics, alphas=widths,
                           elapsed_s=time.perf_counter() - start, seed=seed)


def uniform_estimate(d: int) -> np.ndarray:
    """The uninformed baseline: the same frequency 1/d in every bucket."""
    return np.full(int(d), 1.0 / int(d))


#: The parts of the numerical issue (square-wave paper and related work) that are registered as numerical
#: mechanisms when done: label → (registry names or families that provide it).
PLANNED: dict[str, tuple[str, ...]] = {
    "hierarchical histograms with HH-ADMM (§4.2–§4.3)": ("hh", "haar-hrr", "hierarchical"),
    "general wave shapes (§6.4)": ("gw", "general-wave"),
    "CFO-binning as a numerical mechanism (§4.1)": ("cfo-binning", "binning"),
    "mean-estimation mechanisms: Piecewise Mechanism, stochastic rounding (§2.2)": ("pm", "sr", "piecewise",
                                                                                   "stochastic-rounding", "mean"),
}


def numerical_coverage(classes: Sequence[Any] | None = None) -> tuple[list[str], list[str]]:
    """What of the numerical issue is present: (registered mechanisms as "display name (reconstructions)",
    planned parts no registered mechanism provides yet). ``classes`` defaults to the registry."""
    if classes is None:
        from ldp.mechanisms.numerical import NUMERICAL_MECHANISMS
        classes = list(NUMERICAL_MECHANISMS)
    present = []
    for cls in classes:
        recs = ", ".join(r.upper() for r in getattr(cls, "reconstructions", ()) or ())
        present.append(f"{cls.display_name}" + (f" ({recs})" if recs else ""))
    provided = {c.name for c in classes} | {getattr(c, "family", "") for c in classes}
    missing = [label for label, names in PLANNED.items() if not provided.intersection(names)]
    return present, missing
