"""Plain verdicts on one collection: can each value be told from zero, how far off is a typical value in users, and
what n or ε would change the verdict — the sentences a lecturer or a stakeholder reads off a chart.

Each value gets a traffic light from its confidence interval (:func:`ldp.evaluation.uncertainty.estimate_intervals`,
exact binomial where counts are small): **green** — the interval excludes zero and its half-width is at most half the
estimate (the value is clearly there, within ±50 %); **amber** — the interval excludes zero but is wider than that;
**red** — the interval includes zero (at this ε and n the value cannot be told from noise). The noise floor σ₀ is the
standard deviation of the matrix-inversion estimate of a value of frequency ≈ 0 (consistency paper Eq. (5)); a value
of frequency f is told from zero at level 1 − α when z·σ₀ ≤ f, which needs n ≥ z² n σ₀² / f² users (σ₀² ∝ 1/n
exactly) or, at this n, the ε that :func:`ldp.studies.tradeoff.epsilon_needed` finds for the least precise value's
standard deviation f / z (conservative: that value's σ is a little above σ₀).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ldp.core.errors import InvalidInput
from ldp.evaluation.uncertainty import FrequencyIntervals, estimate_intervals, z_value
from ldp.mechanisms import mechanisms_of
from ldp.mechanisms.base import Mechanism
from ldp.studies.tradeoff import epsilon_needed

__all__ = ["LIGHTS", "Verdict", "verdict"]

LIGHTS = ("green", "amber", "red")


@dataclass(frozen=True)
class Verdict:
    """The verdict of one collection (see the module docstring).

    Attributes
    ----------
    lights : numpy.ndarray
        Shape (d,), str: per value "green", "amber" or "red" (the traffic light of its confidence interval).
    sigma : float
        The noise floor σ₀, a frequency: the standard deviation of a value of frequency ≈ 0.
    n : int
        The number of users of the collection.
    d : int
        The domain size.
    level : float
        The confidence level of the intervals, in (0, 1).
    typical : float
        The frequency the "n or ε needed" answers are for: the mean frequency 1/d.
    users_needed : int
        Users for a value of frequency ``typical`` to be told from zero at this ε (at least 1).
    epsilon_needed : float or None
        ε for the same at this n; None when no ε up to 10 does it.

    References
    ----------
    Wang, Lopuhaä-Zwakenberg, Li, Skoric, Li, "Locally Differentially Private Frequency Estimation with
    Consistency" (NDSS 2020), Eq. (5) (the noise floor σ² ≈ q(1 − q)/(n(p − q)²)).
    """

    lights: np.ndarray  #: per value: "green", "amber" or "red"
    sigma: float  #: noise floor σ₀ (a frequency)
    n: int
    d: int
    level: float
    typical: float  #: the frequency the "n or ε needed" answers are for: the mean 1/d
    users_needed: int  #: users for a value of frequency ``typical`` to be told from zero at this ε
    epsilon_needed: float | None  #: ε for the same at this n (None: not below ε = 10)

    def count(self, light: str) -> int:
        return int(np.sum(self.lights == light))

    @property
    def swamped(self) -> bool:
        """The noise floor is above the typical frequency: most values cannot be told apart from zero."""
        return self.sigma > self.typical

    def sentence(self, mechanism: str, epsilon: float, epsilon_1: float | None = None) -> str:
        """The plain-language verdict (Markdown); ``epsilon_1``: a longitudinal mechanism's per-report budget."""
        users = self.sigma * self.n
        eps = f"ε = {epsilon:g}" + (f" (ε1 = {epsilon_1:g} per report)" if epsilon_1 is not None else "")
        head = (f"With **{self.n:,} users** at **{eps}**, {mechanism} estimates each value to within about "
                f"**±{_users(users)} of {self.n:,} users** (±{100 * self.sigma:.2g} % of all users, one standard "
                f"deviation). ")
        if self.swamped:
            head += (f"**The noise swamps the signal:** that is more than an average value's share (1/{self.d:,} = "
                     f"{100 * self.typical:.2g} %), so most values cannot be told from zero. ")
        # Words, not coloured emoji: a projector's or a lecture hall's browser without an emoji font shows boxes.
        lights = (f"Clear: **{self.count('green'):,}** values clearly above zero · imprecise: "
                  f"**{self.count('amber'):,}** above zero but imprecise · hidden: **{self.count('red'):,}** cannot be "
                  f"told from zero ({self.level:.0%} intervals).")
        need = (f" To tell an average value (1/{self.d:,}) from zero you would need **{self.users_needed:,} users** "
                "at this ε")
        eps = self.epsilon_needed
        need += (f", or **ε ≥ {eps:.2g}** with these {self.n:,} users." if eps is not None
                 else "; no ε up to 10 does it with these users.")
        if self.users_needed <= self.n:
            need = " An average value is already told from zero at this ε and n."
        return head + lights + need


def _users(x: float) -> str:
    return f"{x:,.0f}" if x >= 10 else f"{x:.2g}"


def verdict(mechanism: Mechanism, mi_estimate: np.ndarray, n: int, level: float = 0.95, *,
            intervals: FrequencyIntervals | None = None) -> Verdict:
    """The verdict of one collection from its matrix-inversion estimate (a frequency oracle). The ε answer uses
    the mechanism's default parameters at each ε (OLH's g follows ε; a longitudinal mechanism's ε1 = ε/2).

    Parameters
    ----------
    mechanism : Mechanism
        The frequency oracle that collected the reports (its ε and d are used).
    mi_estimate : numpy.ndarray
        Shape (d,): the matrix-inversion (unbiased) frequency estimate of each value.
    n : int
        The number of users.
    level : float, default 0.95
        The confidence level of the intervals and of "told from zero" (z = Φ⁻¹(1 − (1 − level)/2)).
    intervals : FrequencyIntervals or None, default None
        Intervals already computed for this estimate; None computes them with
        :func:`ldp.evaluation.uncertainty.estimate_intervals`.

    Returns
    -------
    Verdict
        The lights, the noise floor σ₀ = √(mechanism.approximate_variance(n)), and the n and ε needed for a value
        of frequency 1/d to be told from zero (n ≥ z² n σ₀² d²; ε from :func:`ldp.studies.tradeoff.epsilon_needed`
        with target standard deviation 1/(d z)).

    Raises
    ------
    InvalidInput
        When the mechanism is not a frequency oracle.

    References
    ----------
    Wang, Lopuhaä-Zwakenberg, Li, Skoric, Li, "Locally Differentially Private Frequency Estimation with
    Consistency" (NDSS 2020), Eq. (5) (σ₀); cf. Eq. (7) (Base-Cut's threshold F⁻¹(1 − α/d)·σ; here each value's
    own two-sided z = Φ⁻¹(1 − α/2), without the union bound over d values).
    """
    if type(mechanism) not in mechanisms_of("frequency"):
        raise InvalidInput(f"verdicts are for frequency oracles; {mechanism.name} is a {mechanism.kind} mechanism")
    iv = intervals if intervals is not None else estimate_intervals(mechanism, mi_estimate, n, level)
    est = np.asarray(mi_estimate, dtype=np.float64)
    half = (iv.high - iv.low) / 2
    above = iv.low > 0
    lights = np.where(above & (half <= 0.5 * np.abs(est)), "green", np.where(above, "amber", "red"))
    sigma = math.sqrt(float(mechanism.approximate_variance(n)))
    d = mechanism.d
    typical = 1.0 / d
    z = z_value(level)
    need_n = max(1, math.ceil(z * z * n * sigma * sigma / (typical * typical)))
    need_eps = epsilon_needed(mechanism.name, n, np.full(d, typical), typical / z, measure="sd")
    return Verdict(lights=lights, sigma=sigma, n=int(n), d=d, level=level, typical=typical, users_needed=need_n,
                   epsilon_needed=need_eps)
