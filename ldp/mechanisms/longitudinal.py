"""Longitudinal (memoization-based) mechanisms: L-GRR, L-SUE, L-OUE, L-SOUE, L-OSUE, L-BLH, L-OLH.

IBU paper §3.2 (Algorithm 2): a first obfuscation step with ε∞ is memoized, and every report is a
second obfuscation of the memoized value so that a single report is ε1-LDP (ε1 < ε∞). We simulate
τ = 1 as the paper does: each user runs both steps once.

Second-step parameters are *derived* from the privacy requirement rather than copied: given the
first step's (p1, q1) and the second step's family, the free second-step parameter is the one for
which the chained channel's privacy ratio equals e^{ε1} exactly — a linear equation for GRR/LH, a
monotone 1-D root for UE. Tests check these against the paper's closed forms (L-GRR p2, L-OSUE p2).

Aggregation (our derivation of the chained channel): a report supports the user's own value with
p* = p1 p2 + (1 − p1) q2 and another value with q* = q1 p2 + (1 − q1) q2 (UE, and GRR where q1, q2
are per-other-value probabilities, since q1 p2 + (1 − q1) q2 = p1 q2 + q1 p2 + (k − 2) q1 q2).
The paper prints p* = p1 p2 + q1 q2 for L-GRR and L-LH, which does not sum to one with q*; we use
the exact composition, which is also what its reference implementation computes for p*.
"""

from __future__ import annotations

import math

import numpy as np

from ldp.core.errors import InvalidInput
from ldp.core.params import Param
from ldp.core.randomness import RandomSource, bernoulli, bernoulli_select
from ldp.core.registry import MECHANISMS
from ldp.maths.roots import brentq
from ldp.mechanisms.frequency.base import IBU_PAPER
from ldp.mechanisms.frequency.grr import GRR, grr_probabilities, grr_randomize
from ldp.mechanisms.frequency.local_hashing import G_CAP, LocalHashing
from ldp.mechanisms.frequency.unary import BitVectorMechanism, oue_probabilities, sue_probabilities, ue_ratio


def chained_grr_second_step(p1: float, q1: float, k: int, epsilon_1: float) -> float:
    """p2 of the second GRR step on a domain of size k such that p*/q* = e^{ε1} exactly.

    With q2 = (1 − p2)/(k − 1), both p* and q* are affine in p2, so the condition is linear.
    For k = 2 this equals the IBU paper's closed form (e^{ε∞+ε1} − 1)/(−k e^{ε1} + (k−1)e^{ε∞} + e^{ε1}
    + e^{ε∞+ε1} − 1). For k > 2 the paper's form solves (p1p2 + q1q2)/(p1q2 + q1p2) = e^{ε1}, which
    leaves out the k − 2 paths through third values, so the exact chained channel would spend less
    than ε1 (e.g. ln ratio 0.70 for ε∞ = 2, ε1 = 1, k = 10); we spend exactly ε1 (a documented
    deviation, tested in tests/mechanisms/test_parameters.py).

    Parameters
    ----------
    p1, q1 : float
        The memoized first GRR step's probabilities of reporting the value itself and one given other value.
    k : int
        The domain size (at least 2): the values, or L-LH's hash range g.
    epsilon_1 : float
        The budget ε1 of one report (below the first step's ε∞).

    Returns
    -------
    float
        p2, the second step's probability of keeping the memoized value (each other value gets (1 − p2)/(k − 1)).

    References
    ----------
    IBU vs matrix inversion paper, §3.2, "L-GRR Parameters" (second obfuscation step).
    """
    e1 = math.exp(epsilon_1)
    other_p, other_q = (1 - p1) / (k - 1), (1 - q1) / (k - 1)
    slope = (p1 - other_p) - e1 * (q1 - other_q)
    return (e1 * other_q - other_p) / slope


def chained_ue_second_step(p1: float, q1: float, second: str, epsilon_1: float, owner: str) -> tuple[float, float]:
    """(p2, q2) of the second UE step ('sue': q2 = 1 − p2; 'oue': p2 = 1/2) giving ratio e^{ε1}.

    A report's bit is 1 with p* = p1 p2 + (1 − p1) q2 at the user's own value and with q* = q1 p2 + (1 − q1) q2 at
    any other value; the free parameter is the root (Brent's method) of ln(UE ratio of p*, q*) = ε1.

    Parameters
    ----------
    p1, q1 : float
        The memoized first UE step: Pr[bit 1] for the user's own value and for any other value.
    second : {"sue", "oue"}
        The second step's family: symmetric (q2 = 1 − p2) or optimized (p2 = 1/2).
    epsilon_1 : float
        The budget ε1 of one report.
    owner : str
        The mechanism's name, the start of the error message.

    Returns
    -------
    tuple of float
        (p2, q2): the probabilities that a memoized 1, resp. a memoized 0, is reported as 1.

    Raises
    ------
    InvalidInput
        ε1 is not reachable with this first step (the chained ratio stays below e^{ε1} at the family's extreme).

    References
    ----------
    IBU vs matrix inversion paper, §3.2, "L-OSUE Parameters" (the closed form for 'oue' then 'sue').
    """
    target = math.exp(epsilon_1)

    def chain(t: float) -> tuple[float, float]:
        p2, q2 = (t, 1 - t) if second == "sue" else (0.5, t)
        return p1 * p2 + (1 - p1) * q2, q1 * p2 + (1 - q1) * q2

    lo, hi = (0.5, 1.0) if second == "sue" else (0.0, 0.5)
    def gap(t: float) -> float:
        return math.log(ue_ratio(*chain(t))) - epsilon_1

    far = hi if second == "sue" else lo
    if ue_ratio(*chain(far)) < target * (1 - 1e-12):
        best = math.log(ue_ratio(*chain(far)))
        raise InvalidInput(f"{owner}: ε1 = {epsilon_1:g} is not reachable with this first step; "
                         f"ε1 must be below {best:.4g} for this ε∞")
    root = brentq(gap, lo + 1e-15, hi - 1e-15, xtol=1e-15, rtol=1e-15, maxiter=500)
    return (root, 1 - root) if second == "sue" else (0.5, root)


class LongitudinalMixin:
    """ε (the constructor's ``epsilon``) is ε∞, the memoized step's budget; ``epsilon_1`` is ε1."""

    collection = "longitudinal"
    lecture_formula = ""

    def lecture_variance(self) -> None:
        """The lecture's comparison table has no longitudinal entries."""
        return None

    @property
    def epsilon_inf(self) -> float:
        return self.epsilon  # type: ignore[attr-defined]

    @property
    def epsilon_1(self) -> float:
        return self._params["epsilon_1"]  # type: ignore[attr-defined]

    def _setup_epsilon_1(self) -> None:
        params = self._params  # type: ignore[attr-defined]
        if params["epsilon_1"] is None:
            params["epsilon_1"] = self.epsilon / 2  # type: ignore[attr-defined]
        if params["epsilon_1"] >= self.epsilon:  # type: ignore[attr-defined]
            raise InvalidInput(f"{self.name}: epsilon_1 (one report) must be smaller than epsilon "  # type: ignore[attr-defined]
                             f"(ε∞, the memoized value), got ε1={params['epsilon_1']:g} ≥ ε∞={self.epsilon:g}")  # type: ignore[attr-defined]


@MECHANISMS.register
class LGRR(LongitudinalMixin, GRR):
    """L-GRR: GRR(ε∞) memoized, then GRR with p2 chosen so that one report is ε1-LDP.

    Parameters
    ----------
    epsilon : float
        ε∞, the memoized first step's budget (what any number of reports of the same value spend together).
    d : int
        The domain size k (values are codes in [0, d)).
    epsilon_1 : float, optional
        ε1 < ε∞, one report's budget; None: ε∞/2.

    References
    ----------
    IBU vs matrix inversion paper, §3.2, Algorithm 2 and "L-GRR Parameters" (p2 from
    :func:`chained_grr_second_step`, exact for every k).
    """

    name = "l-grr"
    display_name = "L-GRR"
    description = "Longitudinal GRR: memoized GRR(ε∞), then a second GRR so each report is ε1-LDP"
    paper = IBU_PAPER + ", §3.2 (L-GRR)"

    def _setup(self) -> None:
        self._setup_epsilon_1()
        self.p1, self.q1 = grr_probabilities(self.epsilon, self.d)
        self.p2 = chained_grr_second_step(self.p1, self.q1, self.d, self.epsilon_1)
        self.q2 = (1 - self.p2) / (self.d - 1)

    def _probabilities(self) -> tuple[float, float]:
        return (self.p1 * self.p2 + (1 - self.p1) * self.q2, self.q1 * self.p2 + (1 - self.q1) * self.q2)

    def _perturb(self, values: np.ndarray, rng: RandomSource) -> np.ndarray:
        memoized = grr_randomize(values, self.p1, self.d, rng)
        return grr_randomize(memoized, self.p2, self.d, rng)

    def _channel(self) -> tuple[np.ndarray, list[str]]:
        first = np.full((self.d, self.d), self.q1)
        np.fill_diagonal(first, self.p1)
        second = np.full((self.d, self.d), self.q2)
        np.fill_diagonal(second, self.p2)
        return first @ second, [str(y) for y in range(self.d)]

    def first_step_privacy_loss(self) -> float:
        return math.log(self.p1 / self.q1)


class LongitudinalUE(LongitudinalMixin, BitVectorMechanism):
    """Two unary-encoding steps: memoized bits B1 ~ UE(p1, q1), then each bit of B1 is re-drawn:
    a 1 stays 1 w.p. p2, a 0 becomes 1 w.p. q2."""

    first: str
    second: str

    def _setup(self) -> None:
        self._setup_epsilon_1()
        first = sue_probabilities if self.first == "sue" else oue_probabilities
        self.p1, self.q1 = first(self.epsilon)
        self.p2, self.q2 = chained_ue_second_step(self.p1, self.q1, self.second, self.epsilon_1, self.name)

    def _probabilities(self) -> tuple[float, float]:
        return (self.p1 * self.p2 + (1 - self.p1) * self.q2, self.q1 * self.p2 + (1 - self.q1) * self.q2)

    def _perturb(self, values: np.ndarray, rng: RandomSource) -> np.ndarray:
        # Both steps run for every user, a block of users at a time so that the memoized bits of a block
        # are still in cache when they are re-randomized (and the full memoized matrix is never built).
        m, d = values.shape[0], self.d
        reports = np.empty((m, d), dtype=bool)
        own = bernoulli(rng, self.p1, m)  # first step, the user's own bit
        rows = max(1, (1 << 18) // d)
        for start in range(0, m, rows):
            stop = min(m, start + rows)
            memoized = bernoulli(rng, self.q1, (stop - start, d))  # first step B1 ~ UE(p1, q1), memoized
            memoized[np.arange(stop - start), values[start:stop]] = own[start:stop]
            reports[start:stop] = bernoulli_select(rng, memoized, self.p2, self.q2)  # the report: B1 re-drawn
        return reports

    def first_step_privacy_loss(self) -> float:
        return math.log(ue_ratio(self.p1, self.q1))


def _lue(name: str, first: str, second: str, label: str) -> type[LongitudinalUE]:
    doc = (f"{label}: {first.upper()}(ε∞) memoized, then {second.upper()} re-randomization of every bit "
           "so that one report is ε1-LDP.\n\n"
           "Parameters\n----------\n"
           f"epsilon : float\n    ε∞, the budget of the memoized {first.upper()} bit vector.\n"
           "d : int\n    The domain size (the length of the bit vector).\n"
           "epsilon_1 : float, optional\n    ε1 < ε∞, one report's budget; None: ε∞/2.\n\n"
           "References\n----------\n"
           f"IBU vs matrix inversion paper, §3.2, Algorithm 2 and \"L-UE mechanisms\" ({second.upper()} step from "
           ":func:`chained_ue_second_step`).\n")
    cls = type(name.replace("-", "").upper(), (LongitudinalUE,), {
        "__module__": __name__, "name": name, "display_name": label, "first": first, "second": second, "__doc__": doc,
        "description": f"Longitudinal unary encoding: {first.upper()} memoized, {second.upper()} per report",
        "paper": IBU_PAPER + f", §3.2 ({label})",
    })
    return MECHANISMS.register(cls)


LSUE = _lue("l-sue", "sue", "sue", "L-SUE (basic RAPPOR)")
LOUE = _lue("l-oue", "oue", "oue", "L-OUE")
LSOUE = _lue("l-soue", "sue", "oue", "L-SOUE")
LOSUE = _lue("l-osue", "oue", "sue", "L-OSUE")


def l_olh_g(epsilon_inf: float, epsilon_1: float) -> int:
    """L-OLH's g (IBU paper §3.2): with a = e^{ε∞}, b = e^{ε1},
    g = 1 + max(1, ⌊(1 − a² + √(a⁴ − 14a² + 12ab(1 − ab) + 12a³b + 1)) / (6(a − b))⌋).

    A negative discriminant is read as 0 (then g = 2).

    Parameters
    ----------
    epsilon_inf : float
        ε∞, the memoized step's budget.
    epsilon_1 : float
        ε1 < ε∞, one report's budget.

    Returns
    -------
    int
        The hash range g (at least 2; not capped here — :class:`LOLH` caps its default at ``G_CAP``).

    References
    ----------
    IBU vs matrix inversion paper, §3.2, "Longitudinal LH (L-LH)", the L-OLH choice of g.
    """
    a, b = math.exp(epsilon_inf), math.exp(epsilon_1)
    disc = a**4 - 14 * a**2 + 12 * a * b * (1 - a * b) + 12 * a**3 * b + 1
    inner = (1 - a**2 + math.sqrt(max(disc, 0.0))) / (6 * (a - b))
    return 1 + max(1, int(math.floor(inner)))


class LongitudinalLH(LongitudinalMixin, LocalHashing):
    """L-LH: hash as LH, then L-GRR on the hashed domain [g] (memoized GRR(ε∞), then GRR(p2))."""

    def _setup(self) -> None:
        self._setup_epsilon_1()
        super()._setup()
        self.p1, self.q1 = grr_probabilities(self.epsilon, self.g)
        self.p2 = chained_grr_second_step(self.p1, self.q1, self.g, self.epsilon_1)
        self.q2 = (1 - self.p2) / (self.g - 1)

    def _hashed_probabilities(self) -> tuple[float, float]:
        keep = self.p1 * self.p2 + (1 - self.p1) * self.q2
        return keep, (1 - keep) / (self.g - 1)

    def _randomize_hashed(self, hashed: np.ndarray, rng: RandomSource) -> np.ndarray:
        return grr_randomize(grr_randomize(hashed, self.p1, self.g, rng), self.p2, self.g, rng)

    def first_step_privacy_loss(self) -> float:
        return math.log(self.p1 / self.q1)


@MECHANISMS.register
class LBLH(LongitudinalLH):
    """L-BLH: each user hashes her value to one bit (g = 2), then runs L-GRR on that bit.

    Parameters
    ----------
    epsilon : float
        ε∞ of the memoized GRR step on the hashed bit.
    d : int
        The domain size (values are codes in [0, d)).
    epsilon_1 : float, optional
        One report's budget ε1 < ε∞; None: ε∞/2.
    g : int, default 2
        The hash range; L-BLH accepts only 2.
    prime : int, optional
        The prime P of the Carter–Wegman family; None: the smallest prime ≥ d.
    hash : {"cw", "xxh32", "mix64"}, default "cw"
        The hash family (see :class:`~ldp.mechanisms.frequency.local_hashing.LocalHashing`).

    References
    ----------
    IBU vs matrix inversion paper, §3.2, "Longitudinal LH (L-LH)" (L-BLH: g = 2).
    """

    name = "l-blh"
    display_name = "L-BLH"
    description = "Longitudinal binary local hashing: hash to one bit, then L-GRR on it"
    paper = IBU_PAPER + ", §3.2 (L-LH, g = 2)"
    extra_parameters = (Param("g", int, "hash range (always 2 for L-BLH)", default=2, choices=(2,)),
                        Param("prime", int, "prime P of the hash family (default: smallest prime ≥ d)",
                              low=3, optional=True))


@MECHANISMS.register
class LOLH(LongitudinalLH):
    """L-OLH: each user hashes her value into [g] with the L-OLH optimal g, then runs L-GRR on the hash.

    Parameters
    ----------
    epsilon : float
        ε∞, the memoized step's budget.
    d : int
        The number of values (codes in [0, d)).
    epsilon_1 : float, optional
        ε1 < ε∞ of a single report; None: ε∞/2.
    g : int, optional
        The hash range (at least 2); None: :func:`l_olh_g` capped at ``G_CAP``.
    prime : int, optional
        The Carter–Wegman prime; None: the smallest prime ≥ max(d, g).
    hash : {"cw", "xxh32", "mix64"}, default "cw"
        The hash family, as for OLH.

    References
    ----------
    IBU vs matrix inversion paper, §3.2, "Longitudinal LH (L-LH)" (the L-OLH formula for g).
    """

    name = "l-olh"
    display_name = "L-OLH"
    description = "Longitudinal optimized local hashing: g from the L-OLH formula, then L-GRR"
    paper = IBU_PAPER + ", §3.2 (L-OLH optimal g)"
    extra_parameters = (
        Param("g", int, "hash range g (default: the L-OLH optimal g)", low=2, optional=True),
        Param("prime", int, "prime P of the hash family (default: smallest prime ≥ max(d, g))", low=3,
              optional=True),
    )

    def _default_g(self) -> int:
        """The L-OLH optimal g, capped like OLH's at ``G_CAP`` (the hash range and the server's work grow with g)."""
        return min(G_CAP, l_olh_g(self.epsilon, self.epsilon_1))


__all__ = ["LBLH", "LGRR", "LOLH", "LOSUE", "LOUE", "LSOUE", "LSUE", "chained_grr_second_step",
           "chained_ue_second_step", "l_olh_g"]
