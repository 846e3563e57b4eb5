"""Unary encodings: one bit per value, drawn independently — SUE (basic one-time RAPPOR), OUE and THE
(thresholding with histogram encoding). IBU paper §3.1 Eq. (5); the lecture's comparison table."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from typing import ClassVar

import numpy as np

from ldp.core.errors import InvalidInput
from ldp.core.params import Param
from ldp.core.randomness import RandomSource, bernoulli
from ldp.core.registry import MECHANISMS
from ldp.mechanisms.base import check_int_reports
from ldp.mechanisms.frequency.base import IBU_PAPER, FrequencyOracle, first_hit_success
from ldp.mechanisms.frequency.sampling import binomial_support_counts

__all__ = ["OUE", "SUE", "THE", "BitVectorMechanism", "oue_probabilities", "sue_probabilities",
           "the_optimal_theta", "the_probabilities", "ue_ratio"]


def sue_probabilities(epsilon: float) -> tuple[float, float]:
    """SUE: p = e^{ε/2}/(e^{ε/2}+1), q = 1 − p.

    Parameters
    ----------
    epsilon : float
        The privacy budget ε of the whole bit vector (each bit spends ε/2; not validated here).

    Returns
    -------
    tuple of float
        ``(p, q)``: the probabilities that the user's own bit, resp. any other bit, is reported as 1.

    References
    ----------
    IBU vs matrix inversion paper, §3.1, Eq. (5) with the SUE choice of p and q; lecture, "Unary Encoding
    (Basic RAPPOR)".
    """
    h = math.exp(epsilon / 2)
    return h / (h + 1), 1 / (h + 1)


def oue_probabilities(epsilon: float) -> tuple[float, float]:
    """OUE: p = 1/2, q = 1/(e^ε + 1) (Wang et al. 2017).

    Parameters
    ----------
    epsilon : float
        The privacy budget ε of the bit vector (not validated here).

    Returns
    -------
    tuple of float
        ``(p, q)`` = (1/2, 1/(e^ε + 1)): the probabilities that the own bit, resp. another bit, is reported as 1.

    References
    ----------
    IBU vs matrix inversion paper, §3.1, Eq. (5) with the OUE choice; lecture, "Optimized Unary Encoding (UE)"
    (p₁→₁ = 1/2, p₀→₁ = 1/(e^ε + 1)).
    """
    return 0.5, 1 / (math.exp(epsilon) + 1)


def ue_ratio(p: float, q: float) -> float:
    """Privacy ratio of a unary encoding with bit probabilities p, q: p(1−q) / (q(1−p)).

    Two inputs' one-hot vectors differ in two bits, so the largest likelihood ratio of a report is
    (p/q)·((1−q)/(1−p)); the encoding is ε-LDP for ε = ln of this ratio.

    Parameters
    ----------
    p : float
        Probability that the own bit is reported as 1, in (0, 1).
    q : float
        Probability that another bit is reported as 1, in (0, 1).

    Returns
    -------
    float
        The ratio e^ε the encoding spends (e^ε for SUE and OUE; below e^ε for THE).

    References
    ----------
    Lecture, "Unary Encoding (Basic RAPPOR)" (x and x' differ in two locations); IBU vs matrix inversion paper,
    §3.1, Eq. (5).
    """
    return p * (1 - q) / (q * (1 - p))


class BitVectorMechanism(FrequencyOracle):
    """Reports are d bits, one per value, drawn independently: Bernoulli(p*) for the user's own
    value and Bernoulli(q*) elsewhere (UE, THE, and the longitudinal UE chains).

    A report supports v when its bit v is set (S(y) = {i | y_i = 1}); a subclass gives p* and q*.

    Parameters
    ----------
    epsilon : float
        The privacy budget ε of one bit vector (ε∞ for the longitudinal chains).
    d : int
        The domain size: inputs are codes in [0, d), reports are d bits.
    **params
        The subclass's extra parameters (THE's θ, the longitudinal chains' ε1).

    References
    ----------
    IBU vs matrix inversion paper, §3.1 "Unary Encoding (UE)", Eq. (5) and the UE support set.
    """

    report_format = "a string of d characters '0'/'1' (bit v set = supports v)"
    communication = "O(d)"
    support_size_reveals_epsilon = True

    def report_width(self) -> int:
        return self.d

    def _perturb(self, values: np.ndarray, rng: RandomSource) -> np.ndarray:
        m = values.shape[0]
        bits = bernoulli(rng, self.q_star, (m, self.d))
        bits[np.arange(m), values] = bernoulli(rng, self.p_star, m)
        return bits

    def _validate_reports(self, reports: np.ndarray) -> np.ndarray:
        if reports.ndim != 2 or reports.shape[1] != self.d:
            raise InvalidInput(f"{self.name}: each report must have d={self.d} bits, got shape {reports.shape}")
        if reports.dtype != np.bool_:
            reports = check_int_reports(self.name, reports, 0, 2, "report bits")
            reports = reports.astype(bool)
        return reports

    def _support_counts(self, reports: np.ndarray) -> np.ndarray:
        return np.count_nonzero(reports, axis=0)

    def _sample_counts(self, true_counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return binomial_support_counts(true_counts, self.p_star, self.q_star, rng)

    def _output_count(self) -> int:
        return 2**self.d

    def _channel(self) -> tuple[np.ndarray, list[str]]:
        outs = np.array(list(itertools.product([0, 1], repeat=self.d)), dtype=bool)  # (2^d, d)
        p, q = self.p_star, self.q_star
        base = np.where(outs, q, 1 - q).prod(axis=1)  # all bits "other"
        m = np.empty((self.d, outs.shape[0]))
        for v in range(self.d):
            own = np.where(outs[:, v], p, 1 - p) / np.where(outs[:, v], q, 1 - q)
            m[v] = base * own
        return m, ["".join("1" if b else "0" for b in row) for row in outs]

    def _attack_success(self, prior: np.ndarray) -> float | None:
        # Pr[y|v] = Q(y)·ρ_v(y) with Q the all-bits-Bernoulli(q) law, ρ = p/q on bit v set, (1−p)/(1−q)
        # unset; S = E_Q[max_v π_v ρ_v(y)], and under Q each bit is set independently w.p. q.
        p, q = self.p_star, self.q_star
        if not 0 < q < 1:
            return None
        return first_hit_success(np.sort(prior)[::-1], q, p / q, (1 - p) / (1 - q))

    def _report_bits(self) -> int:
        return self.d

    def report_bits_formula(self) -> str:
        return "d (one bit per value)"

    def _mga_support(self, targets: np.ndarray) -> int:
        return int(targets.size)  # every target bit set

    def _mga_reports(self, targets: np.ndarray, m: int, rng: np.random.Generator) -> np.ndarray:
        """Every target bit set, plus l = max(0, round(p + (d − 1)q) − r) random other bits so that the number of
        ones looks ordinary (those bits do not touch the targets)."""
        d, p, q = self.d, self.p_star, self.q_star
        extra = max(0, int(round(p + (d - 1) * q)) - targets.size)
        reports = np.zeros((m, d), dtype=bool)
        reports[:, targets] = True
        if extra and m:
            others = np.setdiff1d(np.arange(d), targets)
            keys = rng.random((m, others.size))
            pick = np.argpartition(keys, min(extra, others.size) - 1, axis=1)[:, :min(extra, others.size)]
            reports[np.arange(m)[:, None], others[pick]] = True
        return reports

    def _report_supports(self, reports: np.ndarray, v: int) -> np.ndarray:
        return reports[:, v].astype(bool)

    def _explain_report(self, report_text: str) -> str:
        return ("Bit v is 1 when the report supports v: the own bit is 1 with probability "
                f"p* = {self.p_star:.3g}, every other bit with q* = {self.q_star:.3g}.")

    def _format_reports(self, reports: np.ndarray) -> Iterator[str]:
        table = np.array([ord("0"), ord("1")], dtype=np.uint8)
        for start in range(0, reports.shape[0], 4096):
            block = table[reports[start:start + 4096].astype(np.uint8)]
            for row in block:
                yield row.tobytes().decode("ascii")

    def _parse_line(self, line: str) -> list[int]:
        if len(line) != self.d or set(line) - {"0", "1"}:
            raise InvalidInput(f"expected {self.d} characters '0'/'1' ({self.name}), got {line[:40]!r}"
                             + (f" of length {len(line)}" if len(line) != self.d else ""))
        return [1 if ch == "1" else 0 for ch in line]


@MECHANISMS.register
class SUE(BitVectorMechanism):
    """Symmetric unary encoding (basic one-time RAPPOR): p = e^{ε/2}/(e^{ε/2}+1), q = 1 − p.

    Parameters
    ----------
    epsilon : float
        The privacy budget ε of one report (ε/2 per bit; two bits differ between any two inputs).
    d : int
        The domain size (inputs are codes in [0, d), reports d bits).

    References
    ----------
    IBU vs matrix inversion paper, §3.1, Eq. (5) (SUE); lecture, Table 1 (SUE column:
    Var[c̃(i)]/n = e^{ε/2}/(e^{ε/2} − 1)²).
    """

    name = "sue"
    display_name = "SUE (basic RAPPOR)"
    description = "Symmetric unary encoding: one-hot vector, each bit kept w.p. e^{ε/2}/(e^{ε/2}+1)"
    paper = IBU_PAPER + ", §3.1 Eq. (5)"

    lecture_formula = "e^{ε/2} / (e^{ε/2} − 1)²"

    def _probabilities(self) -> tuple[float, float]:
        return sue_probabilities(self.epsilon)

    def lecture_variance(self) -> float:
        h = math.exp(self.epsilon / 2)
        return h / (h - 1) ** 2


@MECHANISMS.register
class OUE(BitVectorMechanism):
    """Optimized unary encoding: p = 1/2, q = 1/(e^ε + 1) (Wang et al. 2017).

    Parameters
    ----------
    epsilon : float
        The privacy budget ε of one report.
    d : int
        The domain size (inputs are codes in [0, d), reports d bits).

    References
    ----------
    IBU vs matrix inversion paper, §3.1, Eq. (5) (OUE); lecture, "Optimized Unary Encoding (UE)" and Table 1
    (OUE column: Var[c̃(i)]/n = 4e^ε/(e^ε − 1)²).
    """
    mga_studied: ClassVar[bool] = True
    browser_client: ClassVar[bool] = True

    name = "oue"
    display_name = "OUE"
    description = "Optimized unary encoding: the 1-bit kept w.p. 1/2, 0-bits flipped w.p. 1/(e^ε+1)"
    paper = IBU_PAPER + ", §3.1 Eq. (5)"

    lecture_formula = "4e^ε / (e^ε − 1)²"

    def _probabilities(self) -> tuple[float, float]:
        return oue_probabilities(self.epsilon)

    def lecture_variance(self) -> float:
        e = math.exp(self.epsilon)
        return 4 * e / (e - 1) ** 2


def the_probabilities(epsilon: float, theta: float) -> tuple[float, float]:
    """THE (IBU paper §3.1): p* = 1 − ½ e^{ε(θ−1)/2}, q* = ½ e^{−εθ/2}.

    These are Pr[1 + Lap(2/ε) > θ] and Pr[Lap(2/ε) > θ] for a threshold θ in [0, 1].

    Parameters
    ----------
    epsilon : float
        The privacy budget ε of the Laplace release (noise scale 2/ε).
    theta : float
        The threshold θ, in [0, 1] (the formulas assume 0 ≤ θ ≤ 1).

    Returns
    -------
    tuple of float
        ``(p_star, q_star)``: the probabilities that the own bit, resp. another bit, exceeds θ.

    References
    ----------
    IBU vs matrix inversion paper, §3.1 "Thresholding with Histogram Encoding (THE)" (its p* and q*).
    """
    return 1 - 0.5 * math.exp(epsilon * (theta - 1) / 2), 0.5 * math.exp(-epsilon * theta / 2)


def the_optimal_theta(epsilon: float) -> float:
    """θ in [1/2, 1] minimizing (2e^{εθ/2} − 1)/(1 + e^{ε(θ−1/2)} − 2e^{εθ/2})² (IBU paper §3.1).

    Bounded scalar minimisation (SciPy's ``minimize_scalar``, absolute tolerance 10⁻¹⁰ on θ).

    Parameters
    ----------
    epsilon : float
        The privacy budget ε.

    Returns
    -------
    float
        The variance-minimising threshold θ, in [0.5, 1].

    References
    ----------
    IBU vs matrix inversion paper, §3.1 "Thresholding with Histogram Encoding (THE)" (the MSE to minimise,
    optimum within (0.5, 1)).
    """
    def var(theta: float) -> float:
        x = math.exp(epsilon * theta / 2)
        return (2 * x - 1) / (1 + math.exp(epsilon * (theta - 0.5)) - 2 * x) ** 2

    from scipy import optimize  # imported on use: keeps `import ldp` (and app start-up) light

    res = optimize.minimize_scalar(var, bounds=(0.5, 1.0), method="bounded", options={"xatol": 1e-10})
    return float(res.x)


@MECHANISMS.register
class THE(BitVectorMechanism):
    """Thresholding with histogram encoding.

    The client adds Laplace(2/ε) noise to its one-hot vector (histogram encoding, sensitivity 2)
    and reports the support set S(y) = {v | y_v > θ} as d bits. Coordinates are independent, so the
    bit for the user's own value is Bernoulli(Pr[1 + Lap > θ] = p*) and every other bit is
    Bernoulli(Pr[Lap > θ] = q*); the client draws these events directly (same distribution, no
    floats sent). θ defaults to the variance-optimal value in (1/2, 1).

    Budget: the Laplace release is exactly ε-LDP; the thresholded bits are a post-processing of it,
    so their channel ratio p*(1−q*)/(q*(1−p*)) is below e^ε — THE knowingly spends less than ε.

    Parameters
    ----------
    epsilon : float
        The privacy budget ε of the Laplace release (noise Lap(2/ε)).
    d : int
        The domain size (inputs are codes in [0, d), reports d bits).
    theta : float, optional
        The threshold θ, in the open interval (0, 1); None: :func:`the_optimal_theta` (ε).

    References
    ----------
    IBU vs matrix inversion paper, §3.1 "Thresholding with Histogram Encoding (THE)"; lecture, Table 1 (THE
    column at θ = 1: Var[c̃(i)]/n = (2e^{ε/2} − 1)/(e^{ε/2} − 1)²).
    """

    name = "the"
    display_name = "THE"
    description = "Thresholding histogram encoding: Laplace noise on a one-hot vector, report bits above θ"
    paper = IBU_PAPER + ", §3.1 (THE)"
    extra_parameters = (Param("theta", float, "threshold θ (default: variance-optimal in (0.5, 1))",
                              low=0.0, low_inclusive=False, high=1.0, high_inclusive=False, optional=True),)
    spends_full_budget = False

    def _setup(self) -> None:
        if self._params["theta"] is None:
            self._params["theta"] = the_optimal_theta(self.epsilon)

    @property
    def theta(self) -> float:
        return self._params["theta"]

    lecture_formula = "(2e^{ε/2} − 1) / (e^{ε/2} − 1)²  (θ = 1)"

    def _probabilities(self) -> tuple[float, float]:
        return the_probabilities(self.epsilon, self.theta)

    def lecture_variance(self) -> float:
        h = math.exp(self.epsilon / 2)
        return (2 * h - 1) / (h - 1) ** 2  # the lecture's θ = 1
