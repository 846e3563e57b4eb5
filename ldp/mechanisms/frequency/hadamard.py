"""Hadamard response (HR): BLH-like with g = 2, the rows of a Sylvester–Hadamard matrix as hash functions
(lecture; Acharya, Sun, Zhang 2018)."""

from __future__ import annotations

import math

import numpy as np

from ldp.core.errors import InvalidInput
from ldp.core.randomness import RandomSource, bernoulli
from ldp.core.registry import MECHANISMS
from ldp.maths.hadamard import fwht
from ldp.mechanisms.base import ceil_log2, check_int_reports
from ldp.mechanisms.frequency.base import LECTURE, FrequencyOracle, first_hit_success
from ldp.mechanisms.frequency.grr import grr_probabilities
from ldp.mechanisms.frequency.sampling import binomial_support_counts

__all__ = ["HR"]


@MECHANISMS.register
class HR(FrequencyOracle):
    """Hadamard response, BLH-like with g = 2 (lecture): each user picks a uniform row j of the
    K × K Sylvester–Hadamard matrix (K = 2^⌈log₂ d⌉), hashes v to the bit parity(j AND v) and
    reports (j, GRR₂(bit)). For v ≠ v' the bits agree for exactly half of the rows, so HR is pure
    with p* = e^ε/(e^ε+1) and q* = 1/2, and the server counts all supports with one fast
    Walsh–Hadamard transform in O(n + K log K)."""

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
