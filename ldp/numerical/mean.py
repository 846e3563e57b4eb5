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
from typing import Any, ClassVar

import numpy as np

from ldp.params import EPSILON
from ldp.randomness import RandomSource

__all__ = ["MEAN_MECHANISMS", "MeanMechanism", "PiecewiseMechanism", "StochasticRounding", "VarianceEstimate",
           "estimate_variance"]

PAPER = ("Li, Wang, Lopuhaä-Zwakenberg, Li, Škorić — Estimating Numerical Distributions under Local "
         "Differential Privacy, SIGMOD 2020, §2.2 and §6.3")


class MeanMechanism:
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

    def perturb(self, values: Any, rng: RandomSource) -> np.ndarray:  # pragma: no cover - overridden
        raise NotImplementedError

    @property
    def output_range(self) -> tuple[float, float]:  # pragma: no cover - overridden
        raise NotImplementedError

    def variance(self, values: Any) -> np.ndarray:  # pragma: no cover - overridden
        """Var[ṽ | v] for each value (closed form)."""
        raise NotImplementedError

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
