"""Generalized randomized response (GRR, k-RR, direct encoding): IBU paper §3.1 Eq. (4)."""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np

from ldp.core.errors import InvalidInput
from ldp.core.randomness import RandomSource, bernoulli
from ldp.core.registry import MECHANISMS
from ldp.mechanisms.base import ceil_log2, check_int_reports
from ldp.mechanisms.frequency.base import IBU_PAPER, FrequencyOracle

__all__ = ["GRR", "grr_probabilities", "grr_randomize", "grr_sample_counts"]


def grr_probabilities(epsilon: float, k: int) -> tuple[float, float]:
    """Eq. (4) of the IBU paper: p = e^ε/(e^ε + k − 1), q = 1/(e^ε + k − 1).

    Parameters
    ----------
    epsilon : float
        The privacy budget ε (not validated here; the callers validate it).
    k : int
        The size of the domain GRR runs on (d for GRR, the hash range g for local hashing), k ≥ 2.

    Returns
    -------
    tuple of float
        ``(p, q)``: the probability of reporting the true value and of reporting one given other value
        (p + (k − 1) q = 1, p/q = e^ε).

    References
    ----------
    IBU vs matrix inversion paper, §3.1 "Generalized Randomized Response (GRR)", Eq. (4); the lecture's
    "Generalized Random Response (Direct Encoding)".
    """
    e = math.exp(epsilon)
    return e / (e + k - 1), 1.0 / (e + k - 1)


def grr_randomize(values: np.ndarray, p: float, k: int, rng: RandomSource) -> np.ndarray:
    """Keep each value with probability p, else replace it by a uniform *other* value of [0, k).

    Parameters
    ----------
    values : numpy.ndarray
        The inputs, integer codes in [0, k), shape (n,) (not validated here).
    p : float
        The probability of keeping a value; each other value is then reported with (1 − p)/(k − 1).
    k : int
        The domain size.
    rng : RandomSource
        A numpy ``Generator`` or :class:`~ldp.core.randomness.SecureRandom`.

    Returns
    -------
    numpy.ndarray
        The reports, integers in [0, k), same shape as ``values``.

    References
    ----------
    IBU vs matrix inversion paper, §3.1 Eq. (4) (the GRR obfuscation).
    """
    keep = bernoulli(rng, p, values.shape[0])
    shift = rng.integers(1, k, size=values.shape[0]) if k > 1 else np.zeros_like(values)
    return np.where(keep, values, (values + shift) % k)


def grr_sample_counts(true_counts: np.ndarray, p: float, q: float, rng: np.random.Generator) -> np.ndarray:
    """Exact GRR output histogram in O(d).

    Row v of the GRR channel is (p − q)·δ_v + (k q)·Uniform(D) with k q + p − q = 1: each user tells
    the truth with probability λ = p − q and otherwise reports a uniform value (possibly its own).
    So the counts are Binomial(n_v, λ) truth-tellers plus one Multinomial(n − Σ, uniform).

    Parameters
    ----------
    true_counts : numpy.ndarray
        n_v, the number of users holding each value, non-negative integers, shape (k,).
    p, q : float
        GRR's probabilities of reporting the true value and one given other value (:func:`grr_probabilities`).
    rng : numpy.random.Generator
        The generator the binomial and multinomial draws come from.

    Returns
    -------
    numpy.ndarray
        The reported-value histogram C (float64, shape (k,), summing to n), distributed exactly as the counts
        of n users' GRR reports.

    References
    ----------
    IBU vs matrix inversion paper, §3.1 Eq. (4) (the channel sampled here).
    """
    c = np.asarray(true_counts, dtype=np.int64)
    k = c.shape[0]
    truthful = rng.binomial(c, p - q)
    rest = int(c.sum() - truthful.sum())
    return (truthful + rng.multinomial(rest, np.full(k, 1.0 / k))).astype(np.float64)



@MECHANISMS.register
class GRR(FrequencyOracle):
    """Generalized randomized response (direct encoding, k-RR): report the true value with
    probability p, otherwise a uniformly random other value.

    Parameters
    ----------
    epsilon : float
        The privacy budget ε of one report.
    d : int
        The domain size k (inputs and reports are codes in [0, d)).

    References
    ----------
    IBU vs matrix inversion paper, §3.1 Eq. (4) (p = p*, q = q*, S(y) = {y}); lecture, Table 1 (DE column:
    Var[c̃(i)]/n = (d − 2 + e^ε)/(e^ε − 1)²).
    """
    mga_studied: ClassVar[bool] = True
    browser_client: ClassVar[bool] = True

    name = "grr"
    display_name = "GRR (k-RR)"
    description = "Generalized randomized response: report the true value w.p. p, else another value"
    paper = IBU_PAPER + ", §3.1 Eq. (4)"
    report_format = "an integer index in [0, d)"
    communication = "O(log d)"
    lecture_formula = "(d − 2 + e^ε) / (e^ε − 1)²"

    def _probabilities(self) -> tuple[float, float]:
        return grr_probabilities(self.epsilon, self.d)

    def _perturb(self, values: np.ndarray, rng: RandomSource) -> np.ndarray:
        return grr_randomize(values, self.p_star, self.d, rng)

    def _validate_reports(self, reports: np.ndarray) -> np.ndarray:
        if reports.ndim != 1:
            raise InvalidInput(f"{self.name}: expected one integer per report, got shape {reports.shape}")
        return check_int_reports(self.name, reports, 0, self.d, "reports")

    def _scalar_reports(self) -> bool:
        return True

    def _support_counts(self, reports: np.ndarray) -> np.ndarray:
        return np.bincount(reports, minlength=self.d)

    def _sample_counts(self, true_counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return grr_sample_counts(true_counts, self.p_star, self.q_star, rng)

    def report_columns(self) -> int:
        return 1

    def support_size(self) -> int | None:
        return 1

    def _output_count(self) -> int:
        return self.d

    def _channel(self) -> tuple[np.ndarray, list[str]]:
        m = np.full((self.d, self.d), self.q_star)
        np.fill_diagonal(m, self.p_star)
        return m, [str(y) for y in range(self.d)]


    # ------------------------------------------------------------------ one report, for people
    def _attack_success(self, prior: np.ndarray) -> float:
        # output y: max(π_y p, q·max_{v≠y} π_v); max_{v≠y} π_v = π_(1) unless y is the top value.
        srt = np.sort(prior)[::-1]
        top = int(np.argmax(prior))
        best_other = np.where(np.arange(prior.size) == top, srt[1] if prior.size > 1 else 0.0, srt[0])
        return float(np.maximum(prior * self.p_star, best_other * self.q_star).sum())

    def _report_bits(self) -> int:
        return ceil_log2(self.d)

    def report_bits_formula(self) -> str:
        return "⌈log₂ d⌉ (one value index)"

    def _mga_support(self, targets: np.ndarray) -> int:
        return 1  # a fake user reports one target

    def _mga_reports(self, targets: np.ndarray, m: int, rng: np.random.Generator) -> np.ndarray:
        return targets[rng.integers(0, targets.size, size=m)]

    def _explain_report(self, report_text: str) -> str:
        return f"The report is the value {report_text}: the true value with probability p = {self.p_star:.3g}."

    def lecture_variance(self) -> float:
        e = math.exp(self.epsilon)
        return (self.d - 2 + e) / (e - 1) ** 2
