"""Mean (and variance) estimation of a numerical attribute under LDP (square-wave paper §2.2 and §6.3).

These are not distribution estimators: every user's report is an unbiased estimate of her own value in
[−1, 1], and the server averages. Map real values to [−1, 1] first (e.g. 2·ValueScale(lo, hi).to_unit(x) − 1).

Stochastic Rounding (SR, Duchi et al. [10], §2.2). p = e^ε/(e^ε + 1), q = 1 − p. The user sends v' = +1 with
probability q + (p − q)(1 + v)/2, else −1; E[v'] = (p − q) v, so ṽ = v'/(p − q) is unbiased and

    Var[ṽ | v] = 1/(p − q)² − v² = ((e^ε + 1)/(e^ε − 1))² − v².

Piecewise Mechanism (PM, Wang et al. [33], §2.2). With t = e^{ε/2}, s = (t + 1)/(t − 1), ℓ(v) = (t v − 1)/(t − 1),
r(v) = (t v + 1)/(t − 1): ṽ has density p_hi = t(t − 1)/(2(t + 1)) on [ℓ(v), r(v)] and p_lo = p_hi/e^ε on the
rest of [−s, s]. So ṽ lies in [ℓ, r] with probability t/(t + 1) (uniformly), else uniformly on
[−s, ℓ) ∪ (r, s]. ṽ is unbiased and ([33], Lemma 1)

    Var[ṽ | v] = v²/(t − 1) + (t + 3)/(3 (t − 1)²).

ε-LDP: p_hi/p_lo = e^ε for PM; for SR the two report probabilities are at most p/q = e^ε apart.

Variance with the 50/50 split (§6.3). A uniformly random half of the users (⌊n/2⌋) report their value and the
server computes μ̂ (clipped to [−1, 1]) and broadcasts it; each remaining user reports z = (v − μ̂)²/2 − 1 ∈
[−1, 1] with the same mechanism, and σ̂² = 2(z̄ + 1) estimates E[(v − μ̂)²] = σ² + (μ − μ̂)² over that half
(``method="centered"``, the paper's). ``method="moment"`` has the second half report 2v² − 1 instead and
returns (z̄ + 1)/2 − μ̂², E = σ² − Var[μ̂] (the sign of the O(1/n) bias flips).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ldp.core.params import EPSILON
from ldp.core.randomness import RandomSource, make_rng

__all__ = ["MEAN_MECHANISMS", "MeanMechanism", "PiecewiseMechanism", "StochasticRounding", "VarianceEstimate",
           "estimate_variance"]

PAPER = ("Li, Wang, Lopuhaä-Zwakenberg, Li, Škorić — Estimating Numerical Distributions under Local "
         "Differential Privacy, SIGMOD 2020, §2.2 and §6.3")


class MeanMechanism(ABC):
    """An LDP randomizer on [−1, 1] whose reports are unbiased for the inputs; mean = average of reports."""

    name: ClassVar[str]
    display_name: ClassVar[str]
    paper: ClassVar[str] = PAPER

    def __init__(self, epsilon: float) -> None:
        self._epsilon = EPSILON.validate(epsilon, self.name)
        self._setup()

    def _setup(self) -> None:
        """Derive the constants."""

    @property
    def epsilon(self) -> float:
        return self._epsilon

    def __repr__(self) -> str:
        return f"{type(self).__name__}(epsilon={self._epsilon!r})"

    def validate_values(self, values: Any) -> np.ndarray:
        v = np.asarray(values, dtype=np.float64)
        if v.ndim != 1 or not np.all(np.isfinite(v)) or np.any((v < -1.0) | (v > 1.0)):
            raise ValueError(f"{self.name}: values must be a 1-D array of numbers in [−1, 1]")
        return v

    @abstractmethod
    def perturb(self, values: Any, rng: RandomSource) -> np.ndarray:
        """One report per value (the client randomizer)."""

    @property
    @abstractmethod
    def output_range(self) -> tuple[float, float]:
        """The interval the reports lie in."""

    @abstractmethod
    def variance(self, values: Any) -> np.ndarray:
        """Var[ṽ | v] for each value (closed form)."""

    def estimate_mean(self, reports: Any) -> float:
        """The unbiased mean estimate: the average report."""
        rep = np.asarray(reports, dtype=np.float64)
        if rep.ndim != 1 or rep.size == 0:
            raise ValueError(f"{self.name}: reports must be a non-empty 1-D array")
        return float(rep.mean())

    def mean_variance(self, values: Any) -> float:
        """Var[μ̂] = Σ_i Var[ṽ_i | v_i] / n² for the population ``values``."""
        v = self.validate_values(values)
        return float(np.sum(self.variance(v)) / v.size ** 2)

    def worst_case_variance(self) -> float:
        """max over v ∈ [−1, 1] of Var[ṽ | v]."""
        return float(np.max(self.variance(np.array([-1.0, 0.0, 1.0]))))


class StochasticRounding(MeanMechanism):
    """Stochastic Rounding (§2.2): reports ±1/(p − q)."""

    name: ClassVar[str] = "sr"
    display_name: ClassVar[str] = "Stochastic Rounding (SR)"

    def _setup(self) -> None:
        e = math.exp(self._epsilon)
        self.p, self.q = e / (e + 1.0), 1.0 / (e + 1.0)
        self.scale = (e + 1.0) / (e - 1.0)  # 1/(p − q)

    @property
    def output_range(self) -> tuple[float, float]:
        return -self.scale, self.scale

    def plus_probability(self, values: Any) -> np.ndarray:
        """Pr[v' = +1 | v] = q + (p − q)(1 + v)/2."""
        v = np.asarray(values, dtype=np.float64)
        return self.q + (self.p - self.q) * (1.0 + v) / 2.0

    def perturb(self, values: Any, rng: RandomSource) -> np.ndarray:
        v = self.validate_values(values)
        plus = rng.random(v.size) < self.plus_probability(v)
        return np.where(plus, self.scale, -self.scale)

    def variance(self, values: Any) -> np.ndarray:
        v = np.asarray(values, dtype=np.float64)
        return self.scale ** 2 - v * v

    def privacy_loss(self) -> float:
        """ln of the largest ratio of the report probabilities over inputs (= ε)."""
        hi, lo = self.plus_probability(1.0), self.plus_probability(-1.0)
        return float(math.log(max(hi / lo, (1 - lo) / (1 - hi))))


class PiecewiseMechanism(MeanMechanism):
    """Piecewise Mechanism (§2.2): reports in [−s, s], high density on [ℓ(v), r(v)]."""

    name: ClassVar[str] = "pm"
    display_name: ClassVar[str] = "Piecewise Mechanism (PM)"

    def _setup(self) -> None:
        t = math.exp(self._epsilon / 2.0)
        self.t = t
        self.s = (t + 1.0) / (t - 1.0)
        self.p_high = t * (t - 1.0) / (2.0 * (t + 1.0))
        self.p_low = (t - 1.0) / (2.0 * t * (t + 1.0))
        self.center_probability = t / (t + 1.0)

    @property
    def output_range(self) -> tuple[float, float]:
        return -self.s, self.s

    def interval(self, values: Any) -> tuple[np.ndarray, np.ndarray]:
        """(ℓ(v), r(v)) = ((t v − 1)/(t − 1), (t v + 1)/(t − 1))."""
        v = np.asarray(values, dtype=np.float64)
        return (self.t * v - 1.0) / (self.t - 1.0), (self.t * v + 1.0) / (self.t - 1.0)

    def density(self, reports: Any, value: Any) -> np.ndarray:
        """Density of ṽ given v (0 outside [−s, s])."""
        y = np.asarray(reports, dtype=np.float64)
        lo, hi = self.interval(value)
        inside = (y >= -self.s) & (y <= self.s)
        return np.where(inside, np.where((y >= lo) & (y <= hi), self.p_high, self.p_low), 0.0)

    def perturb(self, values: Any, rng: RandomSource) -> np.ndarray:
        """With probability t/(t + 1) uniform on [ℓ, r]; else uniform on [−s, ℓ) ∪ (r, s] (exact)."""
        v = self.validate_values(values)
        lo, hi = self.interval(v)
        center = rng.random(v.size) < self.center_probability
        u = rng.random(v.size)
        left_len = lo + self.s
        out_len = left_len + (self.s - hi)
        pos = u * out_len
        outside = np.where(pos < left_len, -self.s + pos, hi + (pos - left_len))
        out = np.where(center, lo + u * (hi - lo), outside)
        return np.clip(out, -self.s, self.s)

    def variance(self, values: Any) -> np.ndarray:
        v = np.asarray(values, dtype=np.float64)
        t = self.t
        return v * v / (t - 1.0) + (t + 3.0) / (3.0 * (t - 1.0) ** 2)

    def privacy_loss(self) -> float:
        """ln(p_high / p_low) (= ε)."""
        return math.log(self.p_high / self.p_low)


MEAN_MECHANISMS: dict[str, type[MeanMechanism]] = {"sr": StochasticRounding, "pm": PiecewiseMechanism}


class VarianceEstimate(dict):
    """Result of :func:`estimate_variance`: keys ``variance``, ``mean``, ``n_mean``, ``n_variance``."""


def estimate_variance(mechanism: MeanMechanism | str, epsilon: float | None, values: Any, rng: np.random.Generator,
                      *, method: str = "centered") -> VarianceEstimate:
    """Mean and variance of ``values`` ∈ [−1, 1] with the 50/50 user split of §6.3 (every user reports once,
    with the full ε). ``mechanism`` is a :class:`MeanMechanism` or a name in :data:`MEAN_MECHANISMS`."""
    if isinstance(mechanism, str):
        if mechanism not in MEAN_MECHANISMS:
            raise ValueError(f"unknown mean mechanism {mechanism!r}; choose one of: {', '.join(MEAN_MECHANISMS)}")
        if epsilon is None:
            raise ValueError("give ε with a mechanism name")
        mech = MEAN_MECHANISMS[mechanism](epsilon)
    else:
        mech = mechanism
    if method not in ("centered", "moment"):
        raise ValueError(f"method must be 'centered' or 'moment', got {method!r}")
    v = mech.validate_values(values)
    if v.size < 2:
        raise ValueError("need at least two users for the 50/50 split")
    order = np.argsort(rng.random(v.size), kind="stable")
    half = v.size // 2
    first, second = v[order[:half]], v[order[half:]]
    mu = float(np.clip(mech.estimate_mean(mech.perturb(first, rng)), -1.0, 1.0))
    if method == "centered":
        z = mech.estimate_mean(mech.perturb(np.clip((second - mu) ** 2 / 2.0 - 1.0, -1.0, 1.0), rng))
        var = 2.0 * (z + 1.0)
    else:
        z = mech.estimate_mean(mech.perturb(2.0 * second * second - 1.0, rng))
        var = (z + 1.0) / 2.0 - mu * mu
    return VarianceEstimate(variance=float(var), mean=mu, n_mean=int(half), n_variance=int(v.size - half))


# --------------------------------------------------------------------------- simulation on a column
MEAN_ENGINE_NOTES = {
    ("sr", "exact"): "exact: every user's report drawn by the client (StochasticRounding.perturb)",
    ("pm", "exact"): "exact: every user's report drawn by the client (PiecewiseMechanism.perturb)",
    ("sr", "fast"): "fast, exact in distribution: the number of +1 reports per distinct value is binomial",
    ("pm", "fast"): "fast, approximate: the mean estimate is drawn from a Gaussian with the closed-form variance "
                    "Σ Var[ṽ | v]/n² (PM reports are continuous; the CLT makes this accurate for large n)",
}


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
    from ldp.data.domain import _numeric_values

    series = pd.Series(series)
    x, dropped = _numeric_values(series, str(series.name))  # one-line error for a non-numeric column
    keep = np.isfinite(x)
    dropped += int((~keep).sum())
    x = x[keep]
    if x.size < 2:
        raise ValueError("the column needs at least two numerical values")
    if value_range is None:
        lo, hi = float(x.min()), float(x.max())
        if lo == hi:
            raise ValueError(f"the column is constant ({lo:g}); give --range LO,HI")
    else:
        lo, hi = (float(v) for v in value_range)
    outside = int(((x < lo) | (x > hi)).sum())
    if outside and not clip:
        raise ValueError(f"{outside} of {x.size} values are outside the range [{lo:g}, {hi:g}]; widen --range "
                         "or add --clip")
    return np.clip(x, lo, hi), (lo, hi), outside, dropped


def simulate_mean(mechanism: str, epsilon: float, values: Any, value_range: tuple[float, float], *,
                  engine: str = "exact", trials: int = 1, seed: int | None = None) -> MeanResult:
    """Estimate the mean and variance of ``values`` (real units in ``value_range``) ``trials`` times with SR or
    PM (§2.2): map to [−1, 1] by v = 2(x − lo)/(hi − lo) − 1, average the reports (engine exact: every client
    runs; fast: see :data:`MEAN_ENGINE_NOTES`), and run the 50/50 split of §6.3 (exact clients) for the
    variance; map both back (mean affinely, variance × ((hi − lo)/2)²)."""
    if mechanism not in MEAN_MECHANISMS:
        raise ValueError(f"unknown mean mechanism {mechanism!r}; choose one of: {', '.join(MEAN_MECHANISMS)}")
    if engine not in ("exact", "fast"):
        raise ValueError(f"engine must be 'exact' or 'fast', got {engine!r}")
    if isinstance(trials, bool) or not isinstance(trials, (int, np.integer)) or trials < 1:
        raise ValueError(f"trials must be a positive integer, got {trials!r}")
    mech = MEAN_MECHANISMS[mechanism](epsilon)
    lo, hi = (float(v) for v in value_range)
    x = np.asarray(values, dtype=np.float64)
    half = (hi - lo) / 2.0
    v = mech.validate_values(np.clip((x - lo) / half - 1.0, -1.0, 1.0))
    n = v.size
    var_unit = mech.mean_variance(v)
    uniq, mult = np.unique(v, return_counts=True) if engine == "fast" and mechanism == "sr" else (None, None)
    means, variances = np.empty(trials), np.empty(trials)
    make_rng(seed)  # validates the seed
    for t, child in enumerate(np.random.SeedSequence(seed).spawn(int(trials))):
        rng = np.random.default_rng(child)
        if engine == "exact":
            mu = mech.estimate_mean(mech.perturb(v, rng))
        elif mechanism == "sr":
            plus = rng.binomial(mult, mech.plus_probability(uniq)).sum()
            mu = float(mech.scale * (2.0 * plus - n) / n)
        else:
            mu = float(v.mean() + math.sqrt(var_unit) * rng.standard_normal())
        means[t] = lo + (mu + 1.0) * half
        variances[t] = estimate_variance(mech, None, v, rng)["variance"] * half * half
    return MeanResult(mechanism, mech.epsilon, engine, (lo, hi), float(x.mean()), float(x.var()), means, variances,
                      var_unit * half * half, n)
