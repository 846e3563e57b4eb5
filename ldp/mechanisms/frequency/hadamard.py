"""Hadamard response (HR): BLH-like with g = 2, the rows of a Sylvester–Hadamard matrix as hash functions
(lecture; Acharya, Sun, Zhang 2018)."""

from __future__ import annotations

import itertools
import math

import numpy as np

from ldp.core.errors import InvalidInput
from ldp.core.params import Param
from ldp.core.randomness import RandomSource, bernoulli
from ldp.core.registry import MECHANISMS
from ldp.maths.hadamard import fwht
from ldp.mechanisms.base import ceil_log2, check_int_reports
from ldp.mechanisms.frequency.base import LECTURE, FrequencyOracle, first_hit_success
from ldp.mechanisms.frequency.grr import grr_probabilities
from ldp.mechanisms.frequency.sampling import binomial_support_counts

__all__ = ["HR", "HadamardMechanism"]


@MECHANISMS.register
class HR(FrequencyOracle):
    """Hadamard response, BLH-like with g = 2 (lecture): each user picks a uniform row j of the
    K × K Sylvester–Hadamard matrix (K = 2^⌈log₂ d⌉), hashes v to the bit parity(j AND v) and
    reports (j, GRR₂(bit)). For v ≠ v' the bits agree for exactly half of the rows, so HR is pure
    with p* = e^ε/(e^ε+1) and q* = 1/2, and the server counts all supports with one fast
    Walsh–Hadamard transform in O(n + K log K).

    Parameters
    ----------
    epsilon : float
        The privacy budget ε of one report (GRR on the hashed bit).
    d : int
        The domain size (inputs are codes in [0, d)); the row index j ranges over [0, K), K = 2^⌈log₂ d⌉ (at
        least 2).

    References
    ----------
    Lecture, "Hadamard Response" (BLH with Hadamard rows as hash functions) and Table 1 (BLH column:
    Var[c̃(i)]/n = (e^ε + 1)²/(e^ε − 1)²); consistency paper, §III-C ("Hadamard Response … similar to OLH with
    g = 2"); Acharya, Sun, Zhang, "Hadamard Response" (AISTATS 2019).
    """

    name = "hr"
    display_name = "HR (Hadamard response)"
    description = "Hadamard response: a random Hadamard row as the hash, one randomized bit (BLH-like, g = 2)"
    paper = LECTURE + " (Hadamard response, Acharya–Sun–Zhang 2018)"
    report_format = "two integers 'j y': Hadamard row j in [0, K) and the randomized bit y"
    communication = "O(log d)"
    lecture_formula = "(e^ε + 1)² / (e^ε − 1)²  (as BLH)"
    fast_engine_exact = False
    fast_engine_note = ("independent binomial support counts: exact marginals and the exact (zero) cross-covariances "
                        "of Hadamard rows")

    @property
    def rows(self) -> int:
        return 1 << max(1, math.ceil(math.log2(self.d)))

    def _probabilities(self) -> tuple[float, float]:
        return grr_probabilities(self.epsilon, 2)[0], 0.5

    def report_width(self) -> int:
        return 3

    def _perturb(self, values: np.ndarray, rng: RandomSource) -> np.ndarray:
        m = values.shape[0]
        j = rng.integers(0, self.rows, size=m)
        bit = np.bitwise_count(j & values).astype(np.int64) & 1
        flip = ~bernoulli(rng, self.p_star, m)
        return np.stack([j, bit ^ flip], axis=1)

    def _validate_reports(self, reports: np.ndarray) -> np.ndarray:
        if reports.ndim != 2 or reports.shape[1] != 2:
            raise InvalidInput(f"{self.name}: each report must be 'j y', got shape {reports.shape}")
        reports = check_int_reports(self.name, reports, 0, self.rows, "report fields")
        if np.any(reports[:, 1] > 1):
            raise InvalidInput(f"{self.name}: the reported bit must be 0 or 1")
        return reports

    def _support_counts(self, reports: np.ndarray) -> np.ndarray:
        sign = 1 - 2 * reports[:, 1]
        s = np.bincount(reports[:, 0], weights=sign, minlength=self.rows)
        w = fwht(s)
        return (reports.shape[0] + w[: self.d]) / 2

    def _sample_counts(self, true_counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return binomial_support_counts(true_counts, self.p_star, self.q_star, rng)

    def _output_count(self) -> int:
        return 2 * self.rows

    def _channel(self) -> tuple[np.ndarray, list[str]]:
        j = np.arange(self.rows)
        m = np.empty((self.d, 2 * self.rows))
        for v in range(self.d):
            bit = np.bitwise_count(j & v) & 1
            probs = np.where(bit[:, None] == np.array([0, 1])[None, :], self.p_star, 1 - self.p_star)
            m[v] = (probs / self.rows).ravel()
        return m, [f"{jj} {yy}" for jj in j for yy in (0, 1)]

    def report_columns(self) -> int:
        return 2

    def _attack_success(self, prior: np.ndarray) -> float:
        p = self.p_star
        return 2 * first_hit_success(np.sort(prior)[::-1], 0.5, p, 1 - p)

    def _report_bits(self) -> int:
        return ceil_log2(self.rows) + 1

    def report_bits_formula(self) -> str:
        return "⌈log₂ K⌉ + 1 (Hadamard row j and one bit)"

    def _report_supports(self, reports: np.ndarray, v: int) -> np.ndarray:
        return (np.bitwise_count(reports[:, 0] & v).astype(np.int64) & 1) == reports[:, 1]

    def _explain_report(self, report_text: str) -> str:
        j, y = report_text.split()
        return (f"Hadamard row j = {j} and a randomized bit y = {y}: the report supports every v whose bits share an "
                f"even (y = 0) or odd (y = 1) number of ones with j.")

    def lecture_variance(self) -> float:
        e = math.exp(self.epsilon)
        return (e + 1) ** 2 / (e - 1) ** 2  # HR is one way to implement BLH (lecture)


def hadamard_mechanism_keep(epsilon: float, t: int) -> float:
    """p = e^ε/(e^ε + 2^t − 1): the probability that the t Hadamard coefficients are sent as they are (GRR over the
    2^t sign patterns)."""
    e = math.exp(epsilon)
    return e / (e + 2**t - 1)


def hadamard_mechanism_paper_variance(epsilon: float, t: int) -> float:
    """Cormode–Maddock–Maple (VLDB 2021) §4.4: n·Var[f̂(v)] = (e^ε + 2^t − 1)² / (t (e^ε − 1)²) (f → 0)."""
    e = math.exp(epsilon)
    return (e + 2**t - 1) ** 2 / (t * (e - 1) ** 2)


#: The largest t the default search considers (the paper's variance is minimal near t ≈ log₂(e^ε + 1)).
T_MAX = 16


@MECHANISMS.register
class HadamardMechanism(HR):
    """The Hadamard mechanism (HM) of Cormode, Maddock, Maple (VLDB 2021) §4.4 and the pure-LDP library
    (``HadamardMechClient``): each user samples t Hadamard rows j_1 … j_t uniformly (K = 2^⌈log₂ d⌉ rows) and the
    coefficients x_i = (−1)^popcount(j_i AND v); the pattern x ∈ {±1}^t is sent as is with probability
    p = e^ε/(e^ε + 2^t − 1), else as a uniform other pattern (GRR over the 2^t patterns: ε-LDP, the ratio p/q = e^ε
    reached at the true pattern). Each bit survives with probability p_b = (e^ε + 2^{t−1} − 1)/(e^ε + 2^t − 1).

    Our bits are y_i = (1 − x_i)/2 (0 for +1), reports 'j₁ y₁ … j_t y_t'. The server counts agreements
    C(v) = Σ_i 1[y_i = parity(j_i AND v)] (one fast Walsh–Hadamard transform of the n·t (j, y) pairs, as HR) and
    inverts f̂ = (C − n t/2)/(n t (p_b − ½)) — the library's FWHT(Σ signed coefficients)/(t(2p_b − 1)), divided by
    n. With ρ = 2p_b − 1 = (e^ε − 1)/(e^ε + 2^t − 1) a user's agreements with v have variance
    [t + t(t − 1)ρ − t²ρ²]/4 if v is theirs, t/4 otherwise (bits agree with another value's independently with
    probability ½), and no covariance between values (Hadamard rows are orthogonal), so
    Var[f̂(v)] = [f(t + t(t − 1)ρ − t²ρ²) + (1 − f)t] / (n t²ρ²), whose f → 0 limit is the paper's
    (e^ε + 2^t − 1)²/(n t (e^ε − 1)²).

    With t = 1 the mechanism *is* HR (one row, one bit through GRR₂, p_b = e^ε/(e^ε + 1)): reports, perturbation
    (the same random stream), counting, channel and attacker are HR's code, inherited; only t > 1 adds code. The
    default t minimises the paper's variance (t = 1 up to ε = ln((3 − √2)/(√2 − 1)) ≈ 1.34; the library's
    ``use_optimal_t`` takes ⌈log₂(e^ε + 1)⌉ instead, which is 2 at ε = 1, where t = 2 has an 18 % larger variance).
    For t > 1 a report supports values with up to t agreeing bits, so the mechanism is not pure (IBU and the Wiener
    family need t = 1).

    Parameters
    ----------
    epsilon : float
        The privacy budget ε of one report (GRR over the 2^t sign patterns).
    d : int
        The domain size (inputs are codes in [0, d)); rows are drawn from [0, K), K = 2^⌈log₂ d⌉.
    t : int, optional
        The number of Hadamard coefficients per report, in [1, ``T_MAX`` = 16]; None: the t minimising the
        paper's variance (e^ε + 2^t − 1)²/t (computed at min(ε, 30)).

    References
    ----------
    Cormode, Maddock, Maple, "Frequency Estimation under Local Differential Privacy" (VLDB 2021), §4.4 (the
    Hadamard mechanism and its variance (e^ε + 2^t − 1)²/(t (e^ε − 1)²)); the exact variance at any f is
    derived above.
    """

    name = "hadamard"
    display_name = "Hadamard mechanism (t coefficients)"
    description = "Hadamard mechanism: t Hadamard coefficients of the value through randomized response on 2^t patterns"
    paper = ("Cormode, Maddock, Maple — Frequency Estimation under Local Differential Privacy (VLDB 2021), §4.4 "
             "(the pure-LDP library's Hadamard mechanism)")
    report_format = "2t integers 'j₁ y₁ … j_t y_t': Hadamard rows j_i in [0, K) and the randomized bits y_i"
    lecture_formula = "(e^ε + 2^t − 1)² / (t (e^ε − 1)²)"
    pure = False
    fast_engine_note = ("per value, the user's own agreements (kept pattern or a uniform other one) and Binomial(t, ½) "
                        "agreements of the others, independently over values: exact marginals and the exact (zero) "
                        "cross-covariances of Hadamard rows")
    extra_parameters = (Param("t", int, "t: Hadamard coefficients per report (default: the t minimising the paper's "
                              "variance (e^ε + 2^t − 1)²/t)", low=1, high=T_MAX, optional=True),)

    def _setup(self) -> None:
        if self._params.get("t") is None:
            self._params["t"] = min(range(1, T_MAX + 1),
                                    key=lambda t: hadamard_mechanism_paper_variance(min(self.epsilon, 30.0), t))
        self.pure = self.t == 1  # type: ignore[misc]  # t = 1 is HR, pure with p*, q* = p_b, ½

    @property
    def t(self) -> int:
        return self._params["t"]

    @property
    def keep(self) -> float:
        """p = e^ε/(e^ε + 2^t − 1): the whole pattern is kept."""
        return hadamard_mechanism_keep(self.epsilon, self.t)

    @property
    def rho(self) -> float:
        """ρ = 2p_b − 1 = (e^ε − 1)/(e^ε + 2^t − 1): E[agreement sign] of a user's own value, per bit."""
        return 2.0 * self.p_star - 1.0

    def _probabilities(self) -> tuple[float, float]:
        if self.t == 1:
            return super()._probabilities()
        e = math.exp(self.epsilon)
        return (e + 2 ** (self.t - 1) - 1) / (e + 2**self.t - 1), 0.5  # per bit

    def report_width(self) -> int:
        return 3 * self.t

    def report_columns(self) -> int:
        return 2 * self.t

    def _perturb(self, values: np.ndarray, rng: RandomSource) -> np.ndarray:
        if self.t == 1:
            return super()._perturb(values, rng)
        m, t = values.shape[0], self.t
        j = rng.integers(0, self.rows, size=(m, t))
        bits = np.bitwise_count(j & values[:, None]).astype(np.int64) & 1
        keep = bernoulli(rng, self.keep, m)
        mask = rng.integers(1, 2**t, size=m)
        mask = np.where(keep, 0, mask)
        bits ^= (mask[:, None] >> np.arange(t)[None, :]) & 1
        out = np.empty((m, 2 * t), dtype=np.int64)
        out[:, 0::2], out[:, 1::2] = j, bits
        return out

    def _validate_reports(self, reports: np.ndarray) -> np.ndarray:
        if self.t == 1:
            return super()._validate_reports(reports)
        if reports.ndim != 2 or reports.shape[1] != 2 * self.t:
            raise InvalidInput(f"{self.name}: each report must be 2t = {2 * self.t} integers 'j₁ y₁ … j_t y_t', got "
                               f"shape {reports.shape}")
        reports = check_int_reports(self.name, reports, 0, self.rows, "report fields")
        if np.any(reports[:, 1::2] > 1):
            raise InvalidInput(f"{self.name}: the reported bits must be 0 or 1")
        return reports

    def _pairs(self, reports: np.ndarray) -> np.ndarray:
        """The n·t (row, bit) pairs of the reports, as HR's reports."""
        return reports.reshape(-1, 2)

    def _support_counts(self, reports: np.ndarray) -> np.ndarray:
        return super()._support_counts(self._pairs(reports))  # t = 1: the pairs are the reports

    def _report_range(self) -> tuple[float, float]:
        return 0.0, float(self.t)  # a report's t pairs each support a value or not

    def _sample_counts(self, true_counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        if self.t == 1:
            return super()._sample_counts(true_counts, rng)
        t = self.t
        c = np.asarray(true_counts, dtype=np.int64)
        n = int(c.sum())
        kept = rng.binomial(c, self.keep)
        # a uniform other pattern flips k of the t bits with probability C(t, k)/(2^t − 1)
        flips = np.array([math.comb(t, k) for k in range(1, t + 1)], dtype=np.float64) / (2**t - 1)
        spread = rng.multinomial(c - kept, flips)
        own = t * kept + spread @ (t - np.arange(1, t + 1))
        return (own + rng.binomial((n - c) * t, 0.5)).astype(np.float64)

    def _expected_aggregate(self, true_counts: np.ndarray, support: np.ndarray | None) -> np.ndarray:
        return self.t * super()._expected_aggregate(true_counts, support)

    def _aggregate_variance(self, true_counts: np.ndarray, support: np.ndarray | None) -> np.ndarray:
        t, rho = self.t, self.rho
        n = float(true_counts.sum())
        return (true_counts * (t + t * (t - 1) * rho - t * t * rho * rho) + (n - true_counts) * t) / 4.0

    def invert(self, counts: np.ndarray, n: int) -> np.ndarray:
        """(C − n t/2)/(n t (p_b − ½)): HR's matrix inversion for t = 1."""
        return super().invert(np.asarray(counts, dtype=np.float64) / self.t, n)

    def variance(self, freqs: np.ndarray | float, n: int) -> np.ndarray:
        """[f(t + t(t − 1)ρ − t²ρ²) + (1 − f)t]/(n t²ρ²) (class docstring); HR's for t = 1."""
        base = super().variance(freqs, n)  # validates; [f·4p_b(1 − p_b) + (1 − f)]/(n ρ²) in this notation
        if self.t == 1:
            return base
        f = np.asarray(freqs, dtype=np.float64)
        t, rho = self.t, self.rho
        return (f * (t + t * (t - 1) * rho - t * t * rho * rho) + (1 - f) * t) / (n * t * t * rho * rho)

    def lecture_variance(self) -> float:
        return hadamard_mechanism_paper_variance(self.epsilon, self.t)

    def _output_count(self) -> int:
        return (2 * self.rows) ** self.t

    def _channel(self) -> tuple[np.ndarray, list[str]]:
        if self.t == 1:
            return super()._channel()
        t = self.t
        rows = np.array(list(itertools.product(range(self.rows), repeat=t)), dtype=np.int64)  # K^t × t
        patterns = np.arange(2**t)
        other = (1.0 - self.keep) / (2**t - 1)
        m = np.empty((self.d, rows.shape[0] * 2**t))
        weights = 1 << np.arange(t)
        for v in range(self.d):
            truth = ((np.bitwise_count(rows & v).astype(np.int64) & 1) * weights).sum(axis=1)
            m[v] = (np.where(truth[:, None] == patterns[None, :], self.keep, other) / rows.shape[0]).ravel()
        labels = [" ".join(f"{jj} {(pat >> i) & 1}" for i, jj in enumerate(row)) for row in rows.tolist()
                  for pat in range(2**t)]
        return m, labels

    def _attack_success(self, prior: np.ndarray) -> float | None:
        if self.t == 1:
            return super()._attack_success(prior)
        if self.d * self.output_count() > 1 << 22:  # no closed form for t > 1: enumerate small channels only
            return None
        return float((prior[:, None] * self.channel(max_outputs=1 << 22)[0]).max(axis=0).sum())

    def _report_bits(self) -> int:
        return self.t * super()._report_bits()

    def report_bits_formula(self) -> str:
        return "t(⌈log₂ K⌉ + 1) (t Hadamard rows and t bits)"

    def _report_supports(self, reports: np.ndarray, v: int) -> np.ndarray | None:
        return super()._report_supports(reports, v) if self.t == 1 else None

    def _explain_report(self, report_text: str) -> str:
        if self.t == 1:
            return super()._explain_report(report_text)
        fields = report_text.split()
        pairs = ", ".join(f"(j = {fields[i]}, y = {fields[i + 1]})" for i in range(0, len(fields), 2))
        return (f"{self.t} Hadamard rows with their randomized bits {pairs}: each bit says whether the value shares an "
                "even (0) or odd (1) number of ones with its row; all t bits are true with probability "
                f"{self.keep:.3g}.")
