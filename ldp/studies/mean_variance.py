"""Mean and variance of a numerical column in real units with a mean mechanism (square-wave paper §2.2, §6.3).

The mean comes from the unified engine (every user once, with the full ε); the variance from the paper's 50/50
split (:func:`ldp.mechanisms.mean.estimate_variance`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ldp.core.errors import InvalidInput
from ldp.core.params import check_positive_int
from ldp.core.registry import MECHANISMS
from ldp.core.streams import rng_for
from ldp.data.domain import numeric_values
from ldp.mechanisms import mechanisms_of
from ldp.mechanisms.mean import MeanMechanism, estimate_variance
from ldp.simulation import simulate

__all__ = ["MeanResult", "binned_mean_pitfall", "engine_note", "lower_variance_mechanism", "mean_values",
           "simulate_histogram_mean", "simulate_mean"]


@dataclass
class MeanResult:
    """``trials`` mean (and 50/50-split variance) estimates of one column by SR or PM, in real units."""

    mechanism: str
    epsilon: float
    engine: str
    value_range: tuple[float, float]
    true_mean: float
    true_variance: float
    estimated_mean: np.ndarray  # (trials,)
    estimated_variance: np.ndarray  # (trials,)
    theoretical_variance: float  # Var[μ̂] (real units², all n users report their value)
    users: int
    clipped: int = 0
    dropped: int = 0
    delta: float = 0.0  #: δ of an (ε, δ) mechanism (the Gaussian ones); 0 for pure ε-LDP

    @property
    def theoretical_std_error(self) -> float:
        return math.sqrt(self.theoretical_variance)

    def summary(self) -> dict[str, float]:
        return {"mean_error": float(np.mean(np.abs(self.estimated_mean - self.true_mean))),
                "variance_error": float(np.mean(np.abs(self.estimated_variance - self.true_variance))),
                "mean_rmse": float(np.sqrt(np.mean((self.estimated_mean - self.true_mean) ** 2))),
                "theoretical_std_error": self.theoretical_std_error}


def mean_values(series: Any, value_range: tuple[float, float] | None = None, clip: bool = False,
                ) -> tuple[np.ndarray, tuple[float, float], int, int]:
    """A numerical column → (values in real units, (lo, hi), clipped, dropped): missing values dropped, range
    from ``value_range`` or the data's min/max; values outside an explicit range rejected or clipped."""
    series = pd.Series(series)
    x, dropped = numeric_values(series, str(series.name))  # one-line error for a non-numeric column
    keep = np.isfinite(x)
    dropped += int((~keep).sum())
    x = x[keep]
    if x.size < 2:
        raise InvalidInput("the column needs at least two numerical values")
    if value_range is None:
        lo, hi = float(x.min()), float(x.max())
        if lo == hi:
            raise InvalidInput(f"the column is constant ({lo:g}); give --range LO,HI")
    else:
        lo, hi = (float(v) for v in value_range)
    outside = int(((x < lo) | (x > hi)).sum())
    if outside and not clip:
        raise InvalidInput(f"{outside} of {x.size} values are outside the range [{lo:g}, {hi:g}]; widen --range "
                         "or add --clip")
    return np.clip(x, lo, hi), (lo, hi), outside, dropped


def engine_note(mechanism: MeanMechanism, engine: str) -> str:
    """How the engine draws a mean mechanism's reports, from the mechanism's own metadata."""
    if engine == "exact":
        return f"exact: every user's report drawn by the client ({type(mechanism).__name__}.perturb)"
    if mechanism.fast_engine_exact:
        return "fast, exact in distribution: the aggregate of the reports is drawn directly"
    return f"fast, approximate: {mechanism.fast_engine_note}"


def simulate_mean(mechanism: str, epsilon: float, values: Any, value_range: tuple[float, float], *,
                  engine: str = "exact", trials: int = 1, seed: int | None = None) -> MeanResult:
    """Estimate the mean and variance of ``values`` (real units in ``value_range``) ``trials`` times with a mean
    mechanism (§2.2): map to [−1, 1] by v = 2(x − lo)/(hi − lo) − 1, collect every user's report (either engine,
    :func:`ldp.simulate`; the population is the distinct values with their multiplicities) and average, and run
    the 50/50 split of §6.3 (exact clients) for the variance; map both back (mean affinely, variance
    × ((hi − lo)/2)²)."""
    cls = MECHANISMS.get(mechanism)
    means = mechanisms_of("mean")
    if cls not in means:  # before building it: other kinds need parameters a mean mechanism does not take
        raise InvalidInput(f"{mechanism} is not a mean mechanism; choose one of: {', '.join(c.name for c in means)}")
    mech = cls(epsilon)
    trials = check_positive_int(trials, "trials")
    lo, hi = (float(v) for v in value_range)
    x = np.asarray(values, dtype=np.float64)
    half = (hi - lo) / 2.0
    v = mech.validate_values(np.clip((x - lo) / half - 1.0, -1.0, 1.0))
    support, counts = np.unique(v, return_counts=True)
    result = simulate(mech, counts, support=support, engine=engine, trials=trials,
                      seed=rng_for(seed, "mean", "collections"))
    means = lo + (result.estimates["average"][:, 0] + 1.0) * half
    var_rng = rng_for(seed, "mean", "50/50 split")
    variances = np.array([estimate_variance(mech, v, var_rng)["variance"] * half * half for _ in range(trials)])
    return MeanResult(mechanism, mech.epsilon, engine, (lo, hi), float(x.mean()), float(x.var()), means, variances,
                      mech.mean_variance(v) * half * half, int(v.size), delta=mech.delta)


def simulate_histogram_mean(mechanism: str, epsilon: float, counts: np.ndarray, edges: np.ndarray, *,
                            engine: str = "exact", trials: int = 1, seed: int | None = None) -> MeanResult:
    """:func:`simulate_mean` of a bucketized population: ``counts[k]`` users at the centre of bin k (``edges``
    in real units), over the range of the edges."""
    edges = np.asarray(edges, dtype=np.float64)
    counts = np.asarray(counts, dtype=np.int64)
    if edges.shape != (counts.shape[0] + 1,):
        raise InvalidInput(f"{counts.shape[0]} bins need {counts.shape[0] + 1} edges, got {edges.shape[0]}")
    centres = (edges[:-1] + edges[1:]) / 2.0
    return simulate_mean(mechanism, epsilon, np.repeat(centres, counts), (float(edges[0]), float(edges[-1])),
                         engine=engine, trials=trials, seed=seed)


def lower_variance_mechanism(epsilon: float, candidates: tuple[str, ...] = ("sr", "pm")) -> MeanMechanism:
    """Of the mean mechanisms ``candidates`` (default the square-wave paper's pair), the one with the lowest
    worst-case variance at ``epsilon`` (SR below ε ≈ 1.29, PM above; with ``"hm"`` among them, HM at every ε)."""
    mechanisms = [MECHANISMS.get(name)(epsilon) for name in candidates]
    return min(mechanisms, key=lambda m: m.worst_case_variance())


def binned_mean_pitfall(value: float = 0.01, epsilon: float = 1.0, users: int = 10_000,
                        bins: tuple[int, ...] = (2, 4, 8, 16, 64), oracle: str = "oue") -> pd.DataFrame:
    """The lecture's pitfall of a mean through a frequency oracle ("Using Existing Methods": partition [−1, 1] into
    bins, estimate the histogram, read the mean off the bin centres — "all values are 0.01; with two bins [−1, 0),
    [0, +1], estimation will be far from truth"), computed exactly against Stochastic Rounding ("The Method").

    Every one of ``users`` users holds ``value``. With k equal bins (the last one closed) the user falls in one bin,
    whose centre c_J the oracle's unbiased histogram puts the mean at in expectation: E[μ̂] = c_J, a bias c_J − value
    that no number of users removes (two bins: E = 0.5 against 0.01). The noise is Σ_j c_j² Var[f̂_j] (OUE's bits are
    independent, so the bins' estimates are uncorrelated; ``oracle`` must be such a unary-encoding oracle), which
    grows with k: more bins cut the bias and add variance — no partition is optimal. SR is unbiased with variance
    (((e^ε + 1)/(e^ε − 1))² − value²)/n. Columns: method, bins, expected estimate, bias, standard deviation, RMSE."""
    n = check_positive_int(users, "users")
    v = float(value)
    if not (math.isfinite(v) and -1.0 <= v <= 1.0):
        raise InvalidInput(f"the value must lie in [−1, 1], got {value!r}")
    rows = []
    for k in bins:
        k = check_positive_int(k, "bins")
        if k < 2:
            raise InvalidInput("a partition needs at least 2 bins")
        edges = np.linspace(-1.0, 1.0, k + 1)
        centres = (edges[:-1] + edges[1:]) / 2.0
        j = min(int(np.searchsorted(edges, v, side="right")) - 1, k - 1)
        freqs = np.zeros(k)
        freqs[j] = 1.0
        mech = MECHANISMS.get(oracle)(epsilon, k)
        var = float(centres ** 2 @ mech.variance(freqs, n))
        rows.append({"method": f"{mech.display_name}, {k} bins", "bins": k, "expected estimate": float(centres[j]),
                     "bias": float(centres[j] - v), "standard deviation": math.sqrt(var),
                     "RMSE": math.sqrt((centres[j] - v) ** 2 + var)})
    sr = MECHANISMS.get("sr")(epsilon)
    sd = math.sqrt(float(sr.variance(np.array([v]))[0]) / n)
    rows.append({"method": sr.display_name, "bins": None, "expected estimate": v, "bias": 0.0,
                 "standard deviation": sd, "RMSE": sd})
    out = pd.DataFrame(rows)
    out["bins"] = out["bins"].astype("Int64")
    return out
