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

The Gaussian mechanisms (the lecture's "apply Laplace/Gaussian noise" and "add noise to each bit") are
(ε, δ)-LDP, not pure: ``gaussian`` reports v + N(0, σ²) (Δ = 2), ``gaussian-bits`` the noisy one-hot bits of an
unbiased rounding of v (Δ₂ = √2), σ the analytic Gaussian mechanism's (:mod:`ldp.maths.gaussian`); ``delta`` (default
10⁻⁵) is their parameter and ``privacy_profile(ε')`` their closed-form δ(ε').

Variance with the 50/50 split (§6.3). A uniformly random half of the users (⌊n/2⌋) report their value and the
server computes μ̂ (clipped to [−1, 1]) and broadcasts it; each remaining user reports z = (v − μ̂)²/2 − 1 ∈
[−1, 1] with the same mechanism, and σ̂² = 2(z̄ + 1) estimates E[(v − μ̂)²] = σ² + (μ − μ̂)² over that half
(``method="centered"``, the paper's). ``method="moment"`` has the second half report 2v² − 1 instead and
returns (z̄ + 1)/2 − μ̂², E = σ² − Var[μ̂] (the sign of the O(1/n) bias flips). :func:`estimate_variance` runs every
user's client; :func:`sample_variance_split` draws the same split for a population given as counts of distinct
values (the fast engine: a hypergeometric half and each half's sum of reports drawn directly).
"""

from __future__ import annotations

import math
from abc import abstractmethod
from typing import Any, ClassVar

import numpy as np

from ldp.core.errors import InvalidInput
from ldp.core.params import DIMENSION, Param
from ldp.core.randomness import RandomSource, gaussian, laplace
from ldp.core.registry import MECHANISMS
from ldp.core.results import Aggregate, Estimate
from ldp.maths.gaussian import gaussian_delta, gaussian_sigma
from ldp.maths.grid import OutputGrid, power_of_two_at_most
from ldp.mechanisms.base import Mechanism, check_int_reports

__all__ = ["DELTA", "GaussianBits", "GaussianMean", "HM_EPSILON_STAR", "HybridMechanism", "LaplaceMean",
           "MeanMechanism", "OneBitMean", "PiecewiseMechanism", "StochasticRounding", "VarianceEstimate",
           "estimate_variance", "gaussian_grid", "sample_variance_split"]

PAPER = ("Li, Wang, Lopuhaä-Zwakenberg, Li, Škorić — Estimating Numerical Distributions under Local "
         "Differential Privacy, SIGMOD 2020, §2.2 and §6.3")
HM_PAPER = ("Wang, Xiao, Yang, Zhao, Hu, Shin, Shin, Yu — Collecting and Analyzing Multidimensional Data with Local "
            "Differential Privacy, ICDE 2019, §III (Hybrid Mechanism)")
DKY_PAPER = ("Ding, Kulkarni, Yekhanin — Collecting Telemetry Data Privately, NeurIPS 2017, §2.1 (1BitMean, "
             "Lemma 1)")
LECTURE = "LDP lecture, \"Means of numbers and vectors\" (the Laplace baseline)"
GAUSS_PAPER = ("LDP lecture, \"Using Existing Methods: apply Laplace/Gaussian noise\" and \"Laplacian (Gaussian): add "
               "noise to each bit\"; σ by the analytic Gaussian mechanism of Balle & Wang, ICML 2018, Thm. 8")
#: δ of the (ε, δ)-LDP Gaussian mechanisms (default 10⁻⁵; open interval (0, ½)).
DELTA = Param("delta", float, "δ of the (ε, δ)-LDP guarantee (the probability mass allowed beyond e^ε)",
              default=1e-5, low=0.0, high=0.5, low_inclusive=False, high_inclusive=False)
#: How far (in σ) the Gaussian reports' grid reaches: the sampler's draws stop at ≈ 12.06σ
#: (:func:`ldp.core.randomness.gaussian`), so the clamp is never reached.
GAUSS_REACH = 13.0


class MeanMechanism(Mechanism):
    """An LDP randomizer on [−1, 1] whose reports are unbiased for the inputs; the mean is the average report.

    ``d`` is the dimension of a user's value (1 for these scalar mechanisms). A population is given by users
    per distinct value (``true_counts``) and the values themselves (``support``). The aggregate is the sum of
    the reports; the estimate is the average (estimator ``average``).

    Parameters
    ----------
    epsilon : float
        The privacy budget ε of each user's one report (in [1e-4, 50]).
    d : int, default 1
        The dimension of a user's value; these scalar mechanisms accept only 1 (see ``vector_form`` for d > 1).
    **params
        The subclass's declared ``extra_parameters`` (e.g. the Gaussian mechanisms' ``delta``).

    References
    ----------
    Square-wave paper (Li et al., SIGMOD 2020), §2.2 "Handling Numerical Attributes".
    """

    kind: ClassVar[str] = "mean"
    input_kind: ClassVar[str] = "signed"
    population_by_support: ClassVar[bool] = True
    population_of_numbers: ClassVar[bool] = True
    #: The registered vector mechanism that extends this one to d coordinates (``ldp mean`` with several columns).
    vector_form: ClassVar[str]
    domain_parameter: ClassVar[Param] = DIMENSION
    paper: ClassVar[str] = PAPER
    default_estimator: ClassVar[str] = "average"

    # ------------------------------------------------------------------ population: distinct values
    def _check_support(self, support: Any, cells: int) -> np.ndarray:
        if support is None:
            raise InvalidInput(f"{self.name}: a mean mechanism needs the values of the population's cells (support=…)")
        sup = np.asarray(support, dtype=np.float64)
        if sup.shape != (cells,):
            raise InvalidInput(f"{self.name}: support must hold one value per cell ({cells}), got shape {sup.shape}")
        if not np.all(np.isfinite(sup)) or np.any(np.abs(sup) > 1.0):
            raise InvalidInput(f"{self.name}: support values must lie in [−1, 1]")
        return sup

    def _cell_inputs(self, cells: np.ndarray, rng: RandomSource, support: np.ndarray | None) -> np.ndarray:
        return np.asarray(support)[cells]

    # ------------------------------------------------------------------ theory
    @property
    @abstractmethod
    def output_range(self) -> tuple[float, float]:
        """The interval the reports lie in."""

    def variance(self, values: Any) -> np.ndarray:
        """Var[ṽ | v] for each value v in [−1, 1] (closed form); other values are refused (InvalidInput)."""
        try:
            v = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError):
            raise InvalidInput(f"{self.name}: values must be numbers in [−1, 1], got {values!r}") from None
        if not np.all(np.isfinite(v)) or np.any(np.abs(v) > 1.0):
            raise InvalidInput(f"{self.name}: values must lie in [−1, 1] (map them with the public range first), "
                               f"got {values!r}")
        return self._variance(v)

    @abstractmethod
    def _variance(self, v: np.ndarray) -> np.ndarray:
        """Var[ṽ | v] for each (checked) value."""

    def mean_variance(self, values: Any) -> float:
        """Var[μ̂] = Σ_i Var[ṽ_i | v_i] / n² for the population ``values``."""
        v = self.validate_values(values)
        return float(np.sum(self.variance(v)) / v.size ** 2)

    def worst_case_variance(self) -> float:
        """max over v ∈ [−1, 1] of Var[ṽ | v]."""
        return float(np.max(self.variance(np.array([-1.0, 0.0, 1.0]))))

    def true_values(self, true_counts: Any, support: Any = None) -> np.ndarray:
        counts, sup = self.check_population(true_counts, support)
        return np.array([float(counts @ sup) / counts.sum()])

    def _expected_aggregate(self, true_counts: np.ndarray, support: np.ndarray | None) -> np.ndarray:
        return np.array([float(true_counts @ support)])

    def _aggregate_variance(self, true_counts: np.ndarray, support: np.ndarray | None) -> np.ndarray:
        return np.array([float(true_counts @ self.variance(support))])

    def _estimate_variance(self, true_counts: np.ndarray, support: np.ndarray | None) -> np.ndarray:
        return self._aggregate_variance(true_counts, support) / float(true_counts.sum()) ** 2

    def _sample_aggregate(self, true_counts: np.ndarray, rng: np.random.Generator,
                          support: np.ndarray | None) -> np.ndarray:
        """Generic fallback of the fast engine: the sum of n independent reports as a Gaussian with its exact mean
        and variance (CLT; ``fast_engine_exact = False`` says so). Mechanisms with an exact law override it."""
        mean = float(true_counts @ support)
        var = float(true_counts @ self.variance(support))
        return np.array([mean + math.sqrt(var) * rng.standard_normal()])

    # ------------------------------------------------------------------ server side
    def _validate_reports(self, rep: np.ndarray) -> np.ndarray:
        if rep.ndim != 1:
            raise InvalidInput(f"{self.name}: reports must be a 1-D array of numbers, got shape {rep.shape}")
        if not (np.issubdtype(rep.dtype, np.floating) or np.issubdtype(rep.dtype, np.integer)):
            raise InvalidInput(f"{self.name}: reports must be real numbers, got dtype {rep.dtype}")
        rep = rep.astype(np.float64)
        lo, hi = self.output_range
        slack = 1e-9 * (hi - lo)
        bad = ~np.isfinite(rep) | (rep < lo - slack) | (rep > hi + slack)
        if bad.any():
            raise InvalidInput(f"{self.name}: report {rep[bad][0]!r} is outside [{lo:.6g}, {hi:.6g}] — reports of "
                               "another ε?")
        return rep

    def statistic_size(self) -> int:
        return self._d

    def _aggregate(self, reports: np.ndarray) -> np.ndarray:
        return np.array([reports.sum()])

    def _report_range(self) -> tuple[float, float]:
        return self.output_range  # the statistic is the sum of the reports

    def _estimate(self, aggregate: Aggregate) -> Estimate:
        return Estimate(aggregate.counts / aggregate.n, "average")

    def estimate_mean(self, reports: Any) -> float:
        """The unbiased mean estimate of real reports: their average."""
        return float(self.estimate(self.aggregate(reports)).values[0])

    # ------------------------------------------------------------------ reports are real numbers
    def _report_dtype(self) -> Any:
        return np.float64

    def _scalar_reports(self) -> bool:
        return True

    def _format_reports(self, reports: np.ndarray):
        return (repr(float(x)) for x in reports)

    def _parse_line(self, line: str) -> list[Any]:
        try:
            return [float(tok) for tok in line.split()]
        except ValueError:
            raise InvalidInput(f"not a {self.name} report ({self.report_format}): {line[:60]!r}") from None

    def _report_bits(self) -> int:
        return 64

    def report_bits_formula(self) -> str:
        return "64 (one real number as a float64)"


@MECHANISMS.register
class LaplaceMean(MeanMechanism):
    """The Laplace baseline: ṽ = v + Laplace(b), b = 2/ε (the sensitivity of v ∈ [−1, 1] is 2), so
    Var[ṽ | v] = 2b² = 8/ε² for every v.

    Reports lie on an explicit grid (Mironov's snapping, :mod:`ldp.maths.grid`): k·Δ with Δ the power of two
    ≤ b·2⁻¹², clamped to ±(1 + 40b) — a clamp reached with probability ≤ e⁻⁴⁰/2, and symmetric, so the two inputs
    ±1 reach an end with probabilities e^{±ε} apart and the mean moves by < 40b·e⁻⁴⁰ (far below any estimate's
    resolution). Rounding adds < Δ²/12 ≤ b²·2⁻²⁸ to the variance. The noise is drawn with the tail-resolved
    sampler :func:`ldp.core.randomness.laplace`.

    Parameters
    ----------
    epsilon : float
        The budget ε; it sets the noise scale b = 2/ε.
    d : int, default 1
        One number per user (the only dimension accepted).

    References
    ----------
    The LDP lecture, slide "Using Existing Methods" ("apply Laplace/Gaussian noise — noise is too much").
    """

    name: ClassVar[str] = "laplace"
    vector_form: ClassVar[str] = "split-laplace"
    display_name: ClassVar[str] = "Laplace (baseline)"
    description: ClassVar[str] = "reports the value plus Laplace noise of scale 2/ε"
    report_format: ClassVar[str] = "one real number per user (the value plus noise)"
    communication: ClassVar[str] = "one real number"
    paper: ClassVar[str] = LECTURE

    def _setup(self) -> None:
        self.b = 2.0 / self._epsilon

    @property
    def output_grid(self) -> OutputGrid:
        def make() -> OutputGrid:
            step = power_of_two_at_most(self.b) * 2.0 ** -12
            k = math.ceil((1.0 + 40.0 * self.b) / step)
            return OutputGrid(0.0, step, -k, k)
        return self._cached("grid", make)

    @property
    def output_range(self) -> tuple[float, float]:
        return self.output_grid.ends()

    def _perturb(self, v: np.ndarray, rng: RandomSource) -> np.ndarray:
        return self.output_grid.snap(v + laplace(rng, v.shape, self.b))

    def _variance(self, v: np.ndarray) -> np.ndarray:
        return np.full(np.shape(v), 2.0 * self.b ** 2)

    def _sample_aggregate(self, true_counts: np.ndarray, rng: np.random.Generator,
                          support: np.ndarray | None) -> np.ndarray:
        # Σ of n Laplace(b) = b (Gamma(n, 1) − Gamma(n, 1)): exact in distribution (before the grid's rounding)
        n = float(true_counts.sum())
        return np.array([float(true_counts @ support) + self.b * (rng.standard_gamma(n) - rng.standard_gamma(n))])

    def _privacy_loss(self) -> float:
        """The densities under v and v' differ by at most e^{|v − v'|/b} ≤ e^{2/b} = e^ε."""
        return 2.0 / self.b

    def _log_density(self, reports: np.ndarray, inputs: np.ndarray) -> np.ndarray:
        return -np.abs(reports[:, None] - inputs[None, :]) / self.b - math.log(2.0 * self.b)


@MECHANISMS.register
class StochasticRounding(MeanMechanism):
    """Stochastic Rounding (§2.2): reports ±1/(p − q).

    Parameters
    ----------
    epsilon : float
        The budget ε: p = e^ε/(e^ε + 1), q = 1 − p.
    d : int, default 1
        The value's dimension (1 only: one number per user).

    References
    ----------
    Square-wave paper, §2.2 "Stochastic Rounding (SR)" (Pr[v' = 1] = q + (p − q)(1 + v)/2, E[v'] = (p − q)v);
    the LDP lecture, slide "The Method" (the unbiased encoding into a bit).
    """

    name: ClassVar[str] = "sr"
    vector_form: ClassVar[str] = "split-sr"
    display_name: ClassVar[str] = "Stochastic Rounding (SR)"
    description: ClassVar[str] = "reports ±(e^ε+1)/(e^ε−1), +1 with probability growing linearly in the value"
    report_format: ClassVar[str] = "one real number ±(e^ε+1)/(e^ε−1) per user"
    communication: ClassVar[str] = "1 bit"

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

    def _perturb(self, v: np.ndarray, rng: RandomSource) -> np.ndarray:
        plus = rng.random(v.size) < self.plus_probability(v)
        return (2.0 * plus - 1.0) * self.scale  # ±1 · scale: exactly ±scale, without a select

    def _variance(self, v: np.ndarray) -> np.ndarray:
        return self.scale ** 2 - v * v

    def _sample_aggregate(self, true_counts: np.ndarray, rng: np.random.Generator,
                          support: np.ndarray | None) -> np.ndarray:
        # exact: the number of +1 reports of the users holding each distinct value is binomial
        plus = rng.binomial(true_counts, self.plus_probability(support)).sum()
        return np.array([self.scale * (2.0 * plus - true_counts.sum())])

    def _report_bits(self) -> int:
        return 1

    def report_bits_formula(self) -> str:
        return "1 (the sign of the report ±(e^ε+1)/(e^ε−1))"

    def _privacy_loss(self) -> float:
        """ln of the largest ratio of the report probabilities over inputs (= ε)."""
        hi, lo = self.plus_probability(1.0), self.plus_probability(-1.0)
        return float(math.log(max(hi / lo, (1 - lo) / (1 - hi))))

    def _log_density(self, reports: np.ndarray, inputs: np.ndarray) -> np.ndarray:
        """ln Pr[report | v]: the two reports ±scale have probabilities Pr[+ | v] and 1 − Pr[+ | v]."""
        plus = self.plus_probability(inputs)[None, :]
        return np.log(np.where(reports[:, None] > 0, plus, 1.0 - plus))


@MECHANISMS.register
class PiecewiseMechanism(MeanMechanism):
    """Piecewise Mechanism (§2.2): reports in [−s, s], high density on [ℓ(v), r(v)].

    Parameters
    ----------
    epsilon : float
        The budget ε, through t = e^{ε/2}: s = (t + 1)/(t − 1), p_hi = t(t − 1)/(2(t + 1)), p_lo = p_hi/e^ε.
    d : int, default 1
        The dimension (only 1; the multidimensional form is ``kd-pm``).

    References
    ----------
    Square-wave paper, §2.2 "Piecewise Mechanism (PM)" (the two densities of Pr[PM(v) = ṽ]).
    """

    name: ClassVar[str] = "pm"
    vector_form: ClassVar[str] = "kd-pm"
    display_name: ClassVar[str] = "Piecewise Mechanism (PM)"
    description: ClassVar[str] = ("reports a real number in [−s, s], uniformly near the value with probability "
                                  "e^{ε/2}/(e^{ε/2}+1)")
    report_format: ClassVar[str] = "one real number in [−s, s] per user, s = (e^{ε/2}+1)/(e^{ε/2}−1)"
    communication: ClassVar[str] = "one real number"
    fast_engine_exact: ClassVar[bool] = False
    fast_engine_note: ClassVar[str] = ("the sum of the reports drawn from a Gaussian with its exact mean and variance "
                                       "Σ Var[ṽ | v] (reports are continuous; the CLT makes this accurate for large n)")

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

    @property
    def output_grid(self) -> OutputGrid:
        """The grid every report lies on (Mironov's snapping, see :mod:`ldp.maths.grid`): k·Δ with Δ the power
        of two ≤ s·2⁻²⁰ and |k| ≤ ⌊s/Δ⌋ (at least 2²⁰ points in [−s, s]). A real-valued report is rounded to the
        nearest point; the grid is symmetric and the density piecewise constant, so the rounding moves the
        report's mean only in the two cells that contain ℓ(v) and r(v): |bias| ≤ (p_hi − p_lo)·Δ²/4 < s²·2⁻⁴⁰,
        below the float64 resolution of any mean estimate, and the variance by < Δ²/12."""
        return self._cached("grid", lambda: _symmetric_grid(self.s))

    def _perturb(self, v: np.ndarray, rng: RandomSource) -> np.ndarray:
        """With probability t/(t + 1) uniform on [ℓ, r]; else uniform on [−s, ℓ) ∪ (r, s] (exact), the choice
        and the position drawn from separate uniforms; then snapped to ``output_grid``."""
        lo, hi = self.interval(v)
        center = rng.random(v.size) < self.center_probability
        u = rng.random(v.size)
        left_len = lo + self.s
        out_len = left_len + (self.s - hi)
        pos = u * out_len
        outside = _select(pos < left_len, -self.s + pos, hi + (pos - left_len))
        out = _select(center, lo + u * (hi - lo), outside)
        return self.output_grid.snap(out)

    def _variance(self, v: np.ndarray) -> np.ndarray:
        t = self.t
        return v * v / (t - 1.0) + (t + 3.0) / (3.0 * (t - 1.0) ** 2)

    browser_client: ClassVar[bool] = True

    def _randomizer_parameters(self) -> dict[str, Any]:
        grid = self.output_grid  # reports are snapped to it (Mironov's remedy; ldp.maths.grid)
        return {"t": self.t, "s": self.s, "center_probability": self.center_probability, "step": grid.step,
                "k_max": grid.hi_index}

    def impossible_report(self, text: str) -> str | None:
        """A report beyond [−s, s], or not a point of the output grid bit for bit (every client snaps to it)."""
        try:
            y = float(text.strip())
        except ValueError:
            return None  # not a number: the parser says why
        if not math.isfinite(y):
            return None
        if abs(y) > self.s:
            return (f"report {y:g} is outside [−{self.s:.6g}, {self.s:.6g}]: the Piecewise Mechanism at this ε never "
                    "reports it")
        if not bool(self.output_grid.contains(np.array([y]))[0]):
            return (f"report {text.strip()[:24]} is not a point of the mechanism's output grid "
                    f"({self.output_grid.step:.6g} apart): no client's randomizer produces it")
        return None

    def _privacy_loss(self) -> float:
        """ln(p_high / p_low) (= ε)."""
        return math.log(self.p_high / self.p_low)

    def _log_density(self, reports: np.ndarray, inputs: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.log(self.density(reports[:, None], inputs[None, :]))


def _select(condition: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.where(condition, a, b)`` for float64 arrays of one shape, bit for bit, without branches: the bits of b
    with those differing from a flipped where the condition holds (b ^ ((a ^ b) & −condition)). ``np.where``
    mispredicts a branch on every other element of a random mask (≈ 6 ns each, five times this)."""
    bits = np.bitwise_xor(a.view(np.int64), b.view(np.int64))
    mask = condition.astype(np.int64)
    np.negative(mask, out=mask)  # 0 or all ones
    bits &= mask
    bits ^= b.view(np.int64)
    return bits.view(np.float64)


def _symmetric_grid(s: float) -> OutputGrid:
    step = power_of_two_at_most(s) * 2.0 ** -20
    k = math.floor(s / step)
    return OutputGrid(0.0, step, -k, k)


#: The Hybrid Mechanism's switch (Wang et al., ICDE 2019, §III-C): below ε* ≈ 0.61 it is pure SR.
HM_EPSILON_STAR = 0.61


@MECHANISMS.register
class HybridMechanism(MeanMechanism):
    """Hybrid Mechanism (Wang et al., ICDE 2019, §III-C): with probability α the user runs PM at ε, otherwise SR
    at ε; α = 1 − e^{−ε/2} for ε > ε* ≈ 0.61 and α = 0 (pure SR) below. Both branches are unbiased, so is the mix,
    and Var[ṽ | v] = α·Var_PM(v) + (1 − α)·Var_SR(v); for ε > ε* the v² terms cancel (α/(t − 1) = 1 − α with
    t = e^{ε/2}), leaving the constant (t + 3)/(3t(t − 1)) + ((e^ε + 1)/(e^ε − 1))²/t — the paper's worst case,
    below both PM's and SR's for every ε. The branch is drawn independently of the value, so a mix of two
    ε-LDP reports is ε-LDP; a report is a number, either ±(e^ε + 1)/(e^ε − 1) (SR) or a point of PM's grid.

    Parameters
    ----------
    epsilon : float
        The budget ε of both branches; it also sets α (0 at ε ≤ ``HM_EPSILON_STAR``).
    d : int, default 1
        Only scalar values (1); ``kd-hm`` is the vector form.

    References
    ----------
    Wang et al., "Collecting and Analyzing Multidimensional Data with Local Differential Privacy", ICDE 2019,
    §III-C (not among the papers in the repository; the SR and PM branches follow the square-wave paper, §2.2).
    """

    name: ClassVar[str] = "hm"
    vector_form: ClassVar[str] = "kd-hm"
    display_name: ClassVar[str] = "Hybrid Mechanism (HM)"
    description: ClassVar[str] = "PM with probability 1 − e^{−ε/2} (above ε* ≈ 0.61), otherwise Stochastic Rounding"
    report_format: ClassVar[str] = "one real number per user (an SR report or a PM report)"
    communication: ClassVar[str] = "one real number"
    paper: ClassVar[str] = HM_PAPER
    fast_engine_exact: ClassVar[bool] = False
    fast_engine_note: ClassVar[str] = ("the sum of the reports drawn from a Gaussian with its exact mean and variance "
                                       "(its PM branch is continuous; the CLT makes this accurate for large n)")

    def _setup(self) -> None:
        self.sr = StochasticRounding(self._epsilon)
        self.pm = PiecewiseMechanism(self._epsilon)
        self.alpha = 1.0 - math.exp(-self._epsilon / 2.0) if self._epsilon > HM_EPSILON_STAR else 0.0

    @property
    def output_range(self) -> tuple[float, float]:
        hi = max(self.sr.scale, self.pm.s)
        return -hi, hi

    def _perturb(self, v: np.ndarray, rng: RandomSource) -> np.ndarray:
        use_pm = rng.random(v.size) < self.alpha
        out = self.sr._perturb(v, rng)  # v is checked: in [−1, 1], both branches' domain
        if use_pm.any():
            out[use_pm] = self.pm._perturb(v[use_pm], rng)
        return out

    def _variance(self, v: np.ndarray) -> np.ndarray:
        return self.alpha * self.pm.variance(v) + (1.0 - self.alpha) * self.sr.variance(v)

    def _privacy_loss(self) -> float:
        """Each branch's ratio is at most e^ε and the branch does not depend on the value (= ε)."""
        return self.pm.privacy_loss() if self.alpha > 0 else self.sr.privacy_loss()

    def _log_density(self, reports: np.ndarray, inputs: np.ndarray) -> np.ndarray:
        """ln of the report's probability (SR's two atoms) or density (PM's branch), each times its branch's
        weight: a report equal to ±(e^ε + 1)/(e^ε − 1) is SR's (a PM report lands there with probability 0)."""
        atom = np.isclose(np.abs(reports), self.sr.scale, rtol=0.0, atol=1e-12 * self.sr.scale)
        out = np.full((reports.size, inputs.size), -np.inf)
        if atom.any():
            out[atom] = math.log1p(-self.alpha) + self.sr.log_density(reports[atom], inputs)
        if (~atom).any() and self.alpha > 0:
            out[~atom] = math.log(self.alpha) + self.pm.log_density(reports[~atom], inputs)
        return out


@MECHANISMS.register
class OneBitMean(StochasticRounding):
    """1BitMean (Ding, Kulkarni, Yekhanin, NeurIPS 2017, §2.1): Stochastic Rounding with the report sent as a bit.

    The paper's user holds x ∈ [0, m] and sends b = 1 with probability 1/(e^ε + 1) + (x/m)(e^ε − 1)/(e^ε + 1);
    the server estimates the mean by (m/n) Σ (b(e^ε + 1) − 1)/(e^ε − 1). With v = 2x/m − 1 ∈ [−1, 1] this is
    Pr[b = 1 | v] = q + (p − q)(1 + v)/2 with p = e^ε/(e^ε + 1), q = 1 − p — exactly SR's Pr[+1 | v] — and the
    estimate mapped to [−1, 1] is the average of (2b − 1)(e^ε + 1)/(e^ε − 1), SR's report. So 1BitMean *is* SR up
    to the encoding of the report (the bit b instead of ±(e^ε + 1)/(e^ε − 1)); this class reuses SR's code
    (probabilities, closed-form variance ((e^ε + 1)/(e^ε − 1))² − v², the exact binomial fast engine, the report
    probabilities behind the ε-LDP check) and only changes the report: an integer 0 or 1. The aggregate is still
    the sum of the unbiased per-user estimates (2b − 1)(e^ε + 1)/(e^ε − 1), so the theory is SR's. The paper's
    Var over [0, m] (Lemma 1's bound m²/(4n)·((e^ε + 1)/(e^ε − 1))²) is this variance times (m/2)².

    Parameters
    ----------
    epsilon : float
        The budget ε of the one bit.
    d : int, default 1
        A single number per user (1 is the only dimension).

    References
    ----------
    Ding, Kulkarni, Yekhanin, "Collecting Telemetry Data Privately", NeurIPS 2017, §2.1 (cited by the LDP lecture,
    slide "Numerical Mean Oracle Proposals"); square-wave paper, §2.2 (SR).
    """

    name: ClassVar[str] = "1bitmean"
    vector_form: ClassVar[str] = "split-sr"
    display_name: ClassVar[str] = "1BitMean (Microsoft telemetry)"
    description: ClassVar[str] = ("sends one bit, 1 with probability 1/(e^ε+1) + ((1+v)/2)(e^ε−1)/(e^ε+1) "
                                  "(Stochastic Rounding with a 0/1 report)")
    report_format: ClassVar[str] = "one bit 0/1 per user (1 stands for +(e^ε+1)/(e^ε−1), 0 for −(e^ε+1)/(e^ε−1))"
    communication: ClassVar[str] = "1 bit"
    paper: ClassVar[str] = DKY_PAPER

    @property
    def output_range(self) -> tuple[float, float]:
        return 0.0, 1.0

    def _perturb(self, v: np.ndarray, rng: RandomSource) -> np.ndarray:
        return (rng.random(v.size) < self.plus_probability(v)).astype(np.int64)

    def _validate_reports(self, rep: np.ndarray) -> np.ndarray:
        if rep.ndim != 1:
            raise InvalidInput(f"{self.name}: reports must be a 1-D array of bits 0/1, got shape {rep.shape}")
        return check_int_reports(self.name, rep, 0, 2, "report bits")

    def _aggregate(self, reports: np.ndarray) -> np.ndarray:
        ones = float(np.count_nonzero(reports))
        return np.array([self.scale * (2.0 * ones - reports.shape[0])])

    def _report_range(self) -> tuple[float, float]:
        return -self.scale, self.scale  # the statistic reads each bit as ±(e^ε + 1)/(e^ε − 1), not as the bit

    def _report_dtype(self) -> Any:
        return np.int64

    def _format_reports(self, reports: np.ndarray):
        return (str(int(x)) for x in reports)

    def _parse_line(self, line: str) -> list[Any]:
        if line not in ("0", "1"):
            raise InvalidInput(f"not a {self.name} report ({self.report_format}): {line[:60]!r}")
        return [int(line)]

    def report_bits_formula(self) -> str:
        return "1 (the bit b)"

    def _explain_report(self, report_text: str) -> str:
        return (f"The bit b is 1 with probability {self.q:.3g} + {self.p - self.q:.3g}·(1 + v)/2; the server reads it "
                f"as (2b − 1)·{self.scale:.4g}, an unbiased estimate of v.")

    def _log_density(self, reports: np.ndarray, inputs: np.ndarray) -> np.ndarray:
        """ln Pr[b | v]: b = 1 with probability Pr[+ | v], b = 0 otherwise."""
        plus = self.plus_probability(inputs)[None, :]
        return np.log(np.where(reports[:, None] > 0, plus, 1.0 - plus))


def gaussian_grid(sigma: float) -> OutputGrid:
    """The report grid of Gaussian noise σ on numbers in [−1, 1]: k·Δg, Δg the power of two ≤ σ·2⁻¹², clamped to
    ±(1 + 13σ).

    Parameters
    ----------
    sigma : float
        The noise's standard deviation σ (> 0).

    Returns
    -------
    OutputGrid
        The symmetric grid k·Δg, k from −⌈(1 + 13σ)/Δg⌉ to +⌈(1 + 13σ)/Δg⌉ (Mironov's snapping,
        :mod:`ldp.maths.grid`).
    """
    step = power_of_two_at_most(sigma) * 2.0 ** -12
    k = math.ceil((1.0 + GAUSS_REACH * sigma) / step)
    return OutputGrid(0.0, step, -k, k)


class GaussianNoise(MeanMechanism):
    """Gaussian noise N(0, σ²) on a release of L2 sensitivity Δ (``sensitivity``, a class hook), σ calibrated by
    the analytic Gaussian mechanism (:func:`ldp.maths.gaussian.gaussian_sigma`: the smallest σ whose privacy
    profile at ε is δ) — an (ε, δ)-LDP mechanism: ``delta`` is its parameter, ``privacy_profile(ε')`` the closed
    form δ(ε') = Φ(Δ/2σ − ε'σ/Δ) − e^{ε'} Φ(−Δ/2σ − ε'σ/Δ) (the pair of inputs at distance Δ is the worst), and
    ``privacy_loss()`` is ∞ (the density ratio is unbounded: no pure ε holds).

    Every noisy number is snapped to an explicit grid (Mironov's remedy, :mod:`ldp.maths.grid`): k·Δg with Δg the
    power of two ≤ σ·2⁻¹², clamped to ±(1 + 13σ), beyond the sampler's reach (≈ 12.06σ), so the clamp is never
    hit; rounding adds < Δg²/12 ≤ σ²·2⁻²⁸ to a variance."""

    extra_parameters: ClassVar[tuple[Param, ...]] = (DELTA,)
    #: The L2 sensitivity of the noised release.
    sensitivity: ClassVar[float]
    communication: ClassVar[str] = "one real number"
    paper: ClassVar[str] = GAUSS_PAPER

    def _setup(self) -> None:
        self.sigma = gaussian_sigma(self._epsilon, self._params["delta"], self.sensitivity)

    @property
    def delta(self) -> float:
        return float(self._params["delta"])

    @property
    def output_grid(self) -> OutputGrid:
        return self._cached("grid", lambda: gaussian_grid(self.sigma))

    @property
    def output_range(self) -> tuple[float, float]:
        return self.output_grid.ends()

    def noisy(self, x: np.ndarray, rng: RandomSource) -> np.ndarray:
        """x + N(0, σ²), snapped to the output grid."""
        return self.output_grid.snap(x + gaussian(rng, x.shape, self.sigma))

    def _privacy_loss(self) -> float:
        """The Gaussian density ratio is unbounded: no pure ε holds (see ``privacy_profile``)."""
        return math.inf

    def _privacy_profile(self, epsilon: float) -> float:
        return gaussian_delta(epsilon, self.sigma, self.sensitivity)

    def _gauss_log_pdf(self, z: np.ndarray) -> np.ndarray:
        return -0.5 * (z / self.sigma) ** 2 - math.log(self.sigma * math.sqrt(2.0 * math.pi))


@MECHANISMS.register
class GaussianMean(GaussianNoise):
    """The Gaussian baseline (lecture: "apply Laplace/Gaussian noise — noise is too much"): ṽ = v + N(0, σ²), the
    sensitivity of v ∈ [−1, 1] being Δ = 2, so Var[ṽ | v] = σ² for every v (σ ≈ 7.46 at ε = 1, δ = 10⁻⁵: a
    variance of 55.7, against 8/ε² = 8 for Laplace — the price of δ-calibrated tails at Δ = 2).

    Parameters
    ----------
    epsilon : float
        ε of the (ε, δ)-LDP guarantee σ is calibrated for.
    d : int, default 1
        Scalar values only (1); ``gaussian-vector`` is the vector form.
    delta : float, default 1e-5
        δ of the guarantee, in the open interval (0, ½).

    References
    ----------
    The LDP lecture, slide "Using Existing Methods"; σ by the analytic Gaussian mechanism of Balle & Wang,
    ICML 2018, Theorem 8 (not among the papers in the repository).
    """

    name: ClassVar[str] = "gaussian"
    vector_form: ClassVar[str] = "gaussian-vector"
    display_name: ClassVar[str] = "Gaussian (ε, δ)"
    description: ClassVar[str] = "reports the value plus Gaussian noise, σ calibrated for (ε, δ) (analytic)"
    report_format: ClassVar[str] = "one real number per user (the value plus noise)"
    sensitivity: ClassVar[float] = 2.0

    def _perturb(self, v: np.ndarray, rng: RandomSource) -> np.ndarray:
        return self.noisy(v, rng)

    def _variance(self, v: np.ndarray) -> np.ndarray:
        return np.full(np.shape(v), self.sigma ** 2)

    def _sample_aggregate(self, true_counts: np.ndarray, rng: np.random.Generator,
                          support: np.ndarray | None) -> np.ndarray:
        # Σ of n N(0, σ²) = N(0, nσ²): exact in distribution (before the grid's rounding)
        n = float(true_counts.sum())
        return np.array([float(true_counts @ support) + self.sigma * math.sqrt(n) * rng.standard_normal()])

    def _log_density(self, reports: np.ndarray, inputs: np.ndarray) -> np.ndarray:
        return self._gauss_log_pdf(reports[:, None] - inputs[None, :])


#: Largest number of one-hot positions of :class:`GaussianBits`.
MAX_BITS = 64


@MECHANISMS.register
class GaussianBits(GaussianNoise):
    """Gaussian noise on bits (lecture, "Laplacian (Gaussian)": instead of randomized response on each bit of the
    unary encoding, add noise to each bit; the server aggregates the noisy vectors).

    The lecture's slide is about a categorical value; for a mean we choose the encoding of its "The Method" slide
    — discretize *without bias*: ``bins`` = k grid points g_j = −1 + 2j/(k − 1), and the value v ∈ [g_i, g_{i+1}]
    is rounded to g_{i+1} with probability (v − g_i)/(g_{i+1} − g_i), else to g_i (E[g_J] = v). The user one-hot
    encodes J in k bits and adds N(0, σ²) to each bit; the report is the k noisy bits y and the server's unbiased
    contribution is ṽ = Σ_j y_j g_j. Two one-hot vectors differ in two bits: L1 sensitivity 2 (the lecture's figure,
    for Laplace), L2 sensitivity √2 (the Gaussian's), so σ is calibrated at Δ = √2 and

        Var[ṽ | v] = (g_{i+1} − v)(v − g_i) + σ² Σ_j g_j²

    (the rounding's variance plus the noise of every bit). With k = 2 (default) this is 1 − v² + 2σ²(√2), equal to
    rounding v to ±1 and noising that single bit at Δ = 2 — always above the plain Gaussian's σ²(2) by 1 − v²:
    "worse than UE", and more bins only add noise (Σ g_j² grows like k/3). The privacy profile is the Gaussian's at
    Δ = √2: a report's law is a mixture over the rounding, and the hockey-stick divergence is jointly convex, so no
    pair beats two distinct one-hot vectors — the pair v = −1, v' = +1 (deterministic roundings) attains it.

    Parameters
    ----------
    epsilon : float
        ε of the (ε, δ)-LDP guarantee (σ calibrated at L2 sensitivity √2).
    d : int, default 1
        The input's dimension: 1 only.
    delta : float, default 1e-5
        δ in (0, ½).
    bins : int, default 2
        k, the grid points −1 … 1 the value is rounded to, one noisy bit each (2 to 64).

    References
    ----------
    The LDP lecture, slides "Laplacian (Gaussian)" (noise on each bit) and "The Method" (unbiased rounding).
    """

    name: ClassVar[str] = "gaussian-bits"
    display_name: ClassVar[str] = "Gaussian noise on bits (ε, δ)"
    description: ClassVar[str] = ("rounds the value to one of k grid points without bias, one-hot encodes it and adds "
                                  "Gaussian noise to each bit")
    report_format: ClassVar[str] = "one line per user: k real numbers (the noisy one-hot bits)"
    communication: ClassVar[str] = "k real numbers"
    extra_parameters: ClassVar[tuple[Param, ...]] = (
        DELTA, Param("bins", int, "k: grid points −1 … 1 the value is rounded to (one bit each)", default=2, low=2,
                     high=MAX_BITS))
    sensitivity: ClassVar[float] = math.sqrt(2.0)

    def _setup(self) -> None:
        super()._setup()
        self.k = int(self._params["bins"])
        self.points = np.linspace(-1.0, 1.0, self.k)
        self.width = 2.0 / (self.k - 1)

    def rounding(self, values: Any) -> tuple[np.ndarray, np.ndarray]:
        """(i, Pr[J = i + 1 | v]): the lower grid point's index and the probability of rounding up."""
        v = np.asarray(values, dtype=np.float64)
        i = np.minimum(np.floor((v + 1.0) / self.width), self.k - 2).astype(np.int64)
        return i, np.clip((v - self.points[i]) / self.width, 0.0, 1.0)

    def _perturb(self, v: np.ndarray, rng: RandomSource) -> np.ndarray:
        i, up = self.rounding(v)
        j = i + (rng.random(v.size) < up)
        onehot = np.zeros((v.size, self.k))
        onehot[np.arange(v.size), j] = 1.0
        return self.noisy(onehot, rng)

    def _variance(self, v: np.ndarray) -> np.ndarray:
        i, _ = self.rounding(v)
        return (self.points[i + 1] - v) * (v - self.points[i]) + self.sigma ** 2 * float(self.points @ self.points)

    def _sample_aggregate(self, true_counts: np.ndarray, rng: np.random.Generator,
                          support: np.ndarray | None) -> np.ndarray:
        # exact: the users of each distinct value round up binomially; the bits' noise sums to a Gaussian
        i, up = self.rounding(support)
        ups = rng.binomial(true_counts, up)
        n = float(true_counts.sum())
        noise = self.sigma * math.sqrt(n * float(self.points @ self.points)) * rng.standard_normal()
        return np.array([float(true_counts @ self.points[i]) + self.width * float(ups.sum()) + noise])

    # ------------------------------------------------------------------ reports: k noisy bits per user
    def report_width(self) -> int:
        return self.k

    def _validate_reports(self, rep: np.ndarray) -> np.ndarray:
        if rep.ndim != 2 or rep.shape[1] != self.k:
            raise InvalidInput(f"{self.name}: reports must have {self.k} numbers (noisy bits) per user, got shape "
                               f"{rep.shape}")
        if not (np.issubdtype(rep.dtype, np.floating) or np.issubdtype(rep.dtype, np.integer)):
            raise InvalidInput(f"{self.name}: reports must be real numbers, got dtype {rep.dtype}")
        rep = rep.astype(np.float64)
        lo, hi = self.output_range
        bad = ~np.isfinite(rep) | (rep < lo) | (rep > hi)
        if bad.any():
            raise InvalidInput(f"{self.name}: report entry {rep[bad][0]!r} is outside [{lo:.6g}, {hi:.6g}] — reports "
                               "of another ε or δ?")
        return rep

    def _aggregate(self, reports: np.ndarray) -> np.ndarray:
        return np.array([float((reports @ self.points).sum())])

    def _scalar_reports(self) -> bool:
        return False

    def _format_reports(self, reports: np.ndarray):
        return (" ".join(repr(float(x)) for x in row) for row in reports)

    def _output_events(self, reports: np.ndarray, v0: Any, v1: Any) -> tuple[str, np.ndarray]:
        """The privacy audit reads the server's contribution ṽ = Σ_j y_j g_j (one real number per report)."""
        return "real", reports @ self.points

    def output_event_label(self, names: tuple[str, str]) -> str:
        return "Σ_j y_j g_j (the noisy bits read as a value)"

    def _report_bits(self) -> int:
        return 64 * self.k

    def report_bits_formula(self) -> str:
        return "64·k (k real numbers as float64)"

    def _log_density(self, reports: np.ndarray, inputs: np.ndarray) -> np.ndarray:
        """ln f(y | v) = Σ_j ln φ_σ(y_j) + ln Σ_J Pr[J | v] e^{(y_J − ½)/σ²} (the one-hot bit J shifts y_J's mean
        to 1), the mixture over the two roundings of v."""
        i, up = self.rounding(inputs)
        weights = np.zeros((inputs.size, self.k))
        rows = np.arange(inputs.size)
        weights[rows, i] += 1.0 - up
        weights[rows, i + 1] += up
        base = self._gauss_log_pdf(reports).sum(axis=1)
        shift = (reports - 0.5) / self.sigma ** 2
        with np.errstate(divide="ignore"):
            log_w = np.log(weights)
        mix = np.logaddexp.reduce(log_w[None, :, :] + shift[:, None, :], axis=2)
        return base[:, None] + mix


class VarianceEstimate(dict):
    """Result of :func:`estimate_variance`: keys ``variance``, ``mean``, ``n_mean``, ``n_variance``."""


def estimate_variance(mech: MeanMechanism, values: Any, rng: np.random.Generator, *,
                      method: str = "centered") -> VarianceEstimate:
    """Mean and variance of ``values`` ∈ [−1, 1] with the 50/50 user split of §6.3 (every user reports once,
    with the full ε).

    The split is a uniformly random half (⌊n/2⌋ users) for the mean; the mean μ̂ is clipped to [−1, 1] before the
    second half uses it (see the module docstring for the two methods).

    Parameters
    ----------
    mech : MeanMechanism
        The mechanism every user reports through (both halves, at its ε).
    values : array_like
        One number in [−1, 1] per user (at least two users).
    rng : numpy.random.Generator
        Draws the split and every report.
    method : {"centered", "moment"}, default "centered"
        "centered": the second half reports (v − μ̂)²/2 − 1 and σ̂² = 2(z̄ + 1) (the paper's); "moment": it
        reports 2v² − 1 and σ̂² = (z̄ + 1)/2 − μ̂².

    Returns
    -------
    VarianceEstimate
        A dict with ``variance`` (float, σ̂²; may be negative by noise), ``mean`` (float, μ̂), ``n_mean`` and
        ``n_variance`` (int, the two halves' sizes).

    Raises
    ------
    InvalidInput
        An unknown method, fewer than two users, or values outside [−1, 1].

    References
    ----------
    Square-wave paper, §6.3 "Variance Estimation" (50% of the users estimate the mean, which is broadcast to the
    others).
    """
    _check_split_method(method)
    v = mech.validate_values(values)
    if v.size < 2:
        raise InvalidInput("need at least two users for the 50/50 split")
    order = np.argsort(rng.random(v.size), kind="stable")
    half = v.size // 2
    first, second = v[order[:half]], v[order[half:]]
    mu = float(np.clip(mech.estimate_mean(mech.perturb(first, rng)), -1.0, 1.0))
    z = mech.estimate_mean(mech.perturb(_second_half_inputs(second, mu, method), rng))
    return VarianceEstimate(variance=_split_variance(z, mu, method), mean=mu, n_mean=int(half),
                            n_variance=int(v.size - half))


#: numpy's hypergeometric draws need fewer than this many users in all (``Generator.multivariate_hypergeometric``).
HYPERGEOMETRIC_LIMIT = 10**9


def sample_variance_split(mech: MeanMechanism, true_counts: Any, support: Any, rng: np.random.Generator, *,
                          method: str = "centered") -> VarianceEstimate:
    """The 50/50 split of :func:`estimate_variance` on the fast engine: the population is ``true_counts[k]``
    users holding ``support[k]`` ∈ [−1, 1], and no client is run.

    Only the users' values matter, so a uniformly random half of ⌊n/2⌋ users is a multivariate hypergeometric
    draw of the counts (how many of each value's users fall in the first half); the first half's sum of reports
    is the fast engine's aggregate of that sub-population (:meth:`Mechanism.sample_aggregate`), μ̂ its average
    clipped to [−1, 1]; every user of the second half holding v reports the same function of v and μ̂
    (((v − μ̂)²/2 − 1 clipped, or 2v² − 1), so that half is again a histogram over a support and its sum is one
    more fast aggregate. Given the split, the reports are independent of it and of each other, so the result has
    the law of :func:`estimate_variance`'s exactly where the mechanism's fast engine is exact in distribution
    (``fast_engine_exact``: SR, Laplace, the Gaussians), and where it is not (PM, HM) the two sums carry that
    engine's approximation (a Gaussian with the exact mean and variance). Choice beyond the paper (§6.3 does not
    simulate): from n ≥ :data:`HYPERGEOMETRIC_LIMIT` users (numpy's limit for hypergeometric draws) each user
    joins the first half with probability ½ independently — a half of random size n/2 ± √n/2, i.e. relative
    deviations ≤ 3·10⁻⁵ there — which is then the one departure from the exact split's law.

    Parameters
    ----------
    mech : MeanMechanism
        The mechanism every user reports through (both halves, at its ε).
    true_counts : array_like of int
        Users per distinct value (at least two users in all).
    support : array_like
        The values, one per cell, in [−1, 1].
    rng : numpy.random.Generator
        Draws the split and both aggregates.
    method : {"centered", "moment"}, default "centered"
        As for :func:`estimate_variance`.

    Returns
    -------
    VarianceEstimate
        As :func:`estimate_variance`.

    Raises
    ------
    InvalidInput
        An unknown method, fewer than two users, or a population the mechanism refuses (counts not non-negative
        integers, values outside [−1, 1]).

    References
    ----------
    Square-wave paper, §6.3 "Variance Estimation".
    """
    _check_split_method(method)
    counts, sup = mech.check_population(true_counts, support)
    n = int(counts.sum())
    if n < 2:
        raise InvalidInput("need at least two users for the 50/50 split")
    if n < HYPERGEOMETRIC_LIMIT:
        first = rng.multivariate_hypergeometric(counts, n // 2)
    else:
        first = rng.binomial(counts, 0.5)
    second = counts - first
    mu = float(np.clip(_fast_mean(mech, first, sup, rng), -1.0, 1.0))
    z = _fast_mean(mech, second, _second_half_inputs(sup, mu, method), rng)
    return VarianceEstimate(variance=_split_variance(z, mu, method), mean=mu, n_mean=int(first.sum()),
                            n_variance=int(second.sum()))


def _fast_mean(mech: MeanMechanism, counts: np.ndarray, support: np.ndarray, rng: np.random.Generator) -> float:
    """The average report of a sub-population, its aggregate drawn by the fast engine."""
    return float(mech.estimate(mech.sample_aggregate(counts, rng, support)).values[0])


def _check_split_method(method: str) -> None:
    if method not in ("centered", "moment"):
        raise InvalidInput(f"method must be 'centered' or 'moment', got {method!r}")


def _second_half_inputs(v: np.ndarray, mu: float, method: str) -> np.ndarray:
    """What a second-half user holding v reports through the mechanism: (v − μ̂)²/2 − 1 clipped to [−1, 1]
    ("centered") or 2v² − 1 ("moment")."""
    if method == "centered":
        return np.clip((v - mu) ** 2 / 2.0 - 1.0, -1.0, 1.0)
    return 2.0 * v * v - 1.0


def _split_variance(z: float, mu: float, method: str) -> float:
    """σ̂² from the second half's mean report z̄: 2(z̄ + 1) ("centered") or (z̄ + 1)/2 − μ̂² ("moment")."""
    return float(2.0 * (z + 1.0) if method == "centered" else (z + 1.0) / 2.0 - mu * mu)
