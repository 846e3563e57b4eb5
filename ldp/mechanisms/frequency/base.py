"""Categorical frequency oracles: the shared base of GRR, unary encodings, SHE, SS, local hashing, HR and their
longitudinal versions.

Notation follows the IBU paper (Arcolezi et al., DBSec 2023): a mechanism is *pure* (Def. 2) when a report
supports the user's own value with probability p* and any other value with probability q* < p*; the server
counts C(v), the number of reports supporting v, and matrix inversion is Eq. (2):
f̂(v) = (C(v) − n q*) / (n (p* − q*)).
"""

from __future__ import annotations

import math
from abc import abstractmethod
from typing import Any, ClassVar

import numpy as np

from ldp.core.errors import InvalidInput, NotAvailable
from ldp.core.params import Param, check_positive_int
from ldp.core.results import Aggregate, Estimate
from ldp.mechanisms.base import Mechanism

__all__ = ["EPSILON_1", "FrequencyOracle", "IBU_PAPER", "LECTURE", "first_hit_success"]

IBU_PAPER = "Arcolezi, Cerna, Palamidessi — On the Utility Gain of Iterative Bayesian Update (DBSec 2023)"
LECTURE = "Wang, Blocki, Li, Jha — LDP Protocols for Frequency Estimation (USENIX Security 2017), lecture"

#: ε1's range starts where ε's does (ldp.core.params.EPSILON: below 10⁻⁴ no channel carries usable information, and
#: the longitudinal second steps are not computable in doubles — ε1 = 1e-300 made SciPy's root finder fail).
EPSILON_1 = Param("epsilon_1", float, "ε1: privacy of a single report (second step); default ε∞/2",
                  low=1e-4, optional=True)


def first_hit_success(pi_sorted: np.ndarray, hit: float, high: float, low: float) -> float:
    """E[max over a random support set S] for the Bayes attacker when each value is in S independently with
    probability ``hit``: the best candidate is π_(J)·high for the first sorted value J in S, or π_(1)·low when
    value 1 is not in S. Returns Σ_j Pr[J=j] max(·) + Pr[S empty]·low·π_(1).

    Parameters
    ----------
    pi_sorted : numpy.ndarray
        The attacker's prior π over the d values, sorted in decreasing order (π_(1) ≥ π_(2) ≥ …), shape (d,).
    hit : float
        The probability, in [0, 1], that a value is in the support set S (independently of the others).
    high : float
        The likelihood factor of a candidate inside S (the attacker's guess scores π·high there).
    low : float
        The likelihood factor of a value outside S (used for π_(1) when the top value is not in S).

    Returns
    -------
    float
        The expected maximum posterior weight, Σ_j (1 − hit)^(j−1) hit · max(high π_(j), low π_(1)) (with
        high π_(1) for j = 1) + (1 − hit)^d · low · π_(1): the Bayes attacker's success probability of one
        unary-encoding report as it is; HR and seeded-hash LH multiply it by their hash range (2, g).
    """
    d = pi_sorted.shape[0]
    j = np.arange(1, d + 1)
    prob_first = (1 - hit) ** (j - 1) * hit
    values = np.maximum(high * pi_sorted, low * pi_sorted[0])
    values[0] = high * pi_sorted[0]
    return float((prob_first * values).sum() + (1 - hit) ** d * low * pi_sorted[0])


#: The smallest event probability a frequency oracle's channel may have (see ``_check_representable``).
MIN_PROBABILITY = 2.0 ** -40


class FrequencyOracle(Mechanism):
    """A categorical frequency oracle: inputs are codes in [0, d), the aggregate is the support-count
    vector C (length d), and the mechanism's own estimate is matrix inversion (Eq. (2)).

    A subclass implements ``_probabilities`` (p*, q*), ``_perturb``, ``_validate_reports``,
    ``_support_counts`` and ``_sample_counts`` (the fast engine), and for small domains ``_output_count`` and
    ``_channel``.

    Parameters
    ----------
    epsilon : float
        The privacy budget ε > 0 of one report (ε∞, the memoized step's, for a longitudinal oracle).
    d : int, optional
        The domain size (inputs are codes in [0, d)); None: the domain parameter's default.
    **params
        The subclass's ``extra_parameters`` (and ``epsilon_1`` for a longitudinal oracle), validated against their
        declared ranges.

    Raises
    ------
    InvalidInput
        When the parameters give p* ≤ q* (no information), or an ε whose report probabilities fall below 2⁻⁴⁰
        (not representable by double-precision sampling).

    References
    ----------
    IBU vs matrix inversion paper, §2.2 Definition 2 (pure LDP: p*, q*) and §2.3 Eq. (2) (matrix inversion).
    """

    kind: ClassVar[str] = "frequency"
    pure: ClassVar[bool] = True
    default_estimator: ClassVar[str] = "mi"
    #: The lecture's closed form of Var[c̃(i)]/n (= n·Var[f̂(i)] for a value of negligible frequency), if any.
    lecture_formula: ClassVar[str] = ""
    #: Whether the reports' mean support size p* + (d − 1)q* moves with ε enough to recover ε from the reports
    #: (convolution paper, Appendix B; :mod:`ldp.estimators.blind`): true of the bit-vector family, whose every bit
    #: depends on ε; GRR and SS support a fixed number of values, and in the hashing family ε moves only p*.
    support_size_reveals_epsilon: ClassVar[bool] = False

    def __init__(self, epsilon: float, d: int | None = None, **params: Any) -> None:
        super().__init__(epsilon, d, **params)
        p_star, q_star = self._probabilities()
        self._p_star, self._q_star = float(p_star), float(q_star)
        if self.pure and not (0.0 <= self._q_star < self._p_star <= 1.0):
            raise InvalidInput(f"{self.name}: parameters give p*={self._p_star:.6g} ≤ q*={self._q_star:.6g}; the "
                               "mechanism would carry no information")
        if self.pure:
            self._check_representable()

    def _check_representable(self) -> None:
        """Refuse an ε whose channel double precision cannot sample: the sampler draws events
        of probability p*, 1 − p*, q*, 1 − q* from uniform doubles (multiples of 2⁻⁵³), so one below
        :data:`MIN_PROBABILITY` = 2⁻⁴⁰ is realised with a relative error above 2⁻¹³ — and at GRR's ε ≥ 37, p*
        rounds to exactly 1 and no report is ever randomized while ε still claims a finite loss."""
        tiny = min(self._p_star, 1.0 - self._p_star, self._q_star, 1.0 - self._q_star)
        if tiny < MIN_PROBABILITY:
            raise InvalidInput(f"{self.name}: ε = {self._epsilon:g} is beyond what double-precision sampling can "
                               f"represent (a report probability of {tiny:.2g} < 2⁻⁴⁰); use a smaller ε")

    def _report_range(self) -> tuple[Any, Any] | None:
        """A pure oracle's statistic counts supporting reports: each adds 0 or 1 to a value's count. Other
        families say what their report adds."""
        return (0.0, 1.0) if self.pure else None

    def _check_statistics(self, counts: np.ndarray, n: int) -> None:
        if not self.pure:
            super()._check_statistics(counts, n)
        elif np.any(counts < 0) or np.any(counts > n):  # the generic check at [0, 1] per report, said as counts
            low, high = float(counts.min()), float(counts.max())
            raise InvalidInput(f"{self.name}: support counts must lie between 0 and n = {n:,} (each counts "
                               f"reports), got values from {low:g} to {high:g}")

    def consistency_warnings(self, aggregate: Aggregate, z: float = 5.0) -> list[str]:
        """Whether support counts look like this configuration's (OUE reports read as SUE once gave an
        estimate summing to −9.7, GRR reports read with a larger d errors of 0.42, silently). For a pure oracle
        C_v ~ Bin(n_v, p*) + Bin(n − n_v, q*), so C_v/n lies in [q*, p*] up to ``z`` binomial standard deviations,
        and Σ_v C_v has mean n(p* + (d − 1)q*) and variance at most n[p*(1 − p*) + (d − 1)q*(1 − q*)] (exact when
        a report's supports are independent, an upper bound when they are negatively correlated, as GRR's and SS's
        fixed number of supports make them). Returns one line per check beyond ``z`` σ; none when all agree."""
        if not self.pure:
            return []
        n, c = aggregate.n, aggregate.counts
        p, q, d = self._p_star, self._q_star, self.d
        out = []
        expected = n * (p + (d - 1) * q)
        sd = max(math.sqrt(n * (p * (1 - p) + (d - 1) * q * (1 - q))), 1.0)
        if abs(c.sum() - expected) > z * sd:
            out.append(f"the reports support {c.sum():,.0f} values in all where this configuration expects "
                       f"{expected:,.0f} ± {sd:,.0f}: were they made with another mechanism, ε or domain?")
        low = n * q - z * max(math.sqrt(n * q * (1 - q)), 1.0)
        high = n * p + z * max(math.sqrt(n * p * (1 - p)), 1.0)
        bad = int(np.sum((c < low) | (c > high)))
        if bad:
            out.append(f"{bad} value(s) have support counts outside what this configuration can produce "
                       f"([{max(low, 0):,.0f}, {high:,.0f}] of {n:,} reports): another mechanism, ε or domain?")
        return out

    @classmethod
    def own_parameters(cls) -> tuple[Param, ...]:
        extra = (EPSILON_1,) if cls.collection == "longitudinal" else ()
        return extra + cls.extra_parameters

    # ------------------------------------------------------------------ pure-LDP parameters
    @property
    def p_star(self) -> float:
        """Probability that a report supports the user's own value (Def. 2 of the IBU paper)."""
        return self._p_star

    @property
    def q_star(self) -> float:
        """Probability that a report supports a given other value (Def. 2 of the IBU paper)."""
        return self._q_star

    @abstractmethod
    def _probabilities(self) -> tuple[float, float]: ...

    # ------------------------------------------------------------------ server side
    def support_counts(self, reports: np.ndarray) -> np.ndarray:
        """C(v) = number of reports that support v, for every v (float64, length d)."""
        return self.aggregate(reports).counts.copy()

    def _aggregate(self, reports: np.ndarray) -> np.ndarray:
        return self._support_counts(reports)

    @abstractmethod
    def _support_counts(self, reports: np.ndarray) -> np.ndarray: ...

    def _sample_aggregate(self, true_counts: np.ndarray, rng: np.random.Generator,
                          support: np.ndarray | None) -> np.ndarray:
        return self._sample_counts(true_counts, rng)

    @abstractmethod
    def _sample_counts(self, true_counts: np.ndarray, rng: np.random.Generator) -> np.ndarray: ...

    def _expected_aggregate(self, true_counts: np.ndarray, support: np.ndarray | None) -> np.ndarray:
        n = float(true_counts.sum())
        return true_counts * self._p_star + (n - true_counts) * self._q_star

    def _aggregate_variance(self, true_counts: np.ndarray, support: np.ndarray | None) -> np.ndarray:
        # users' support indicators for v are independent Bernoulli(p*) (own value) or Bernoulli(q*)
        p, q, n = self._p_star, self._q_star, float(true_counts.sum())
        return true_counts * p * (1 - p) + (n - true_counts) * q * (1 - q)

    # ------------------------------------------------------------------ domains too large to enumerate
    @classmethod
    def over_bits(cls, epsilon: float, bits: int, **params: Any) -> FrequencyOracle:
        """The oracle over the 2^bits integers [0, 2^bits) (a heavy-hitter round's prefix domain, bits ≤ 64).

        Generic: the ordinary domain d = 2^bits while it is within the domain parameter's range (2^24); beyond,
        hook ``_over_wide_domain`` (a family whose reports and support counting never enumerate the domain, e.g.
        OLH's 64-bit hash), and :class:`NotAvailable` for the others."""
        bits = int(bits)
        if not 1 <= bits <= 64:
            raise InvalidInput(f"{cls.name}: a domain of 2^{bits} values: bits must lie in [1, 64]")
        high = cls.domain_parameter.high
        if high is not None and (1 << bits) <= high:
            return cls(epsilon, 1 << bits, **params)
        return cls._over_wide_domain(epsilon, bits, dict(params))

    @classmethod
    def _over_wide_domain(cls, epsilon: float, bits: int, params: dict[str, Any]) -> FrequencyOracle:
        raise NotAvailable(f"{cls.name} cannot serve a domain of 2^{bits} values: its reports or its support counts "
                           f"enumerate the domain (at most {cls.domain_parameter.high:,} values); use a hashing "
                           "oracle such as olh")

    def perturb_integers(self, values: np.ndarray, rng: Any) -> np.ndarray:
        """Reports for unsigned 64-bit integers in [0, d) (values at or above 2^63 included, where d = 2^64), the
        client side of :meth:`over_bits` oracles. Generic: :meth:`perturb` of the values as int64 codes (a domain
        within the domain parameter's range); a wide-domain family overrides ``_perturb_integers``."""
        v = np.asarray(values)
        if v.ndim != 1 or (v.size and v.dtype.kind not in "iu"):
            raise InvalidInput(f"{self.name}: values must be a 1-D array of integers")
        if v.dtype.kind == "i" and v.size and v.min() < 0:
            raise InvalidInput(f"{self.name}: values must be non-negative integers")
        v = v.astype(np.uint64)
        if self._d < 2**64 and v.size and int(v.max()) >= self._d:
            raise InvalidInput(f"{self.name}: value {int(v.max())} is outside [0, {self._d})")
        return self._perturb_integers(v, rng)

    def _perturb_integers(self, values: np.ndarray, rng: Any) -> np.ndarray:
        return self.perturb(values.astype(np.int64), rng)

    def estimate_candidates(self, reports: Any, candidates: Any) -> np.ndarray:
        """Matrix inversion f̃(c) = (C(c) − n q*)/(n (p* − q*)) (Eq. (2)) for the given candidate values only: the
        server's side of a domain too large to enumerate. Support counts come from hook
        ``_candidate_support_counts`` — generic: the whole-domain counts, read at the candidates; a hashing family
        counts n × (number of candidates) hashes instead."""
        reports = self.validate_reports(reports)
        n = int(reports.shape[0])
        if n == 0:
            raise InvalidInput(f"{self.name}: no reports to estimate candidates from")
        cands = np.asarray(candidates)
        if cands.ndim != 1 or (cands.size and cands.dtype.kind not in "iu"):
            raise InvalidInput(f"{self.name}: candidates must be a 1-D array of integers")
        cands = cands.astype(np.uint64)
        if self._d < 2**64 and cands.size and int(cands.max()) >= self._d:
            raise InvalidInput(f"{self.name}: candidate {int(cands.max())} is outside [0, {self._d})")
        counts = np.asarray(self._candidate_support_counts(reports, cands), dtype=np.float64)
        return self.invert(counts, n)

    def _candidate_support_counts(self, reports: np.ndarray, candidates: np.ndarray) -> np.ndarray:
        high = self.domain_parameter.high
        if high is not None and self._d > high:
            raise NotAvailable(f"{self.name}: support counts of the whole domain of {self._d:,} values")
        return self._support_counts(reports)[candidates.astype(np.int64)]

    # ------------------------------------------------------------------ estimation and theory
    def invert(self, counts: np.ndarray, n: int) -> np.ndarray:
        """Matrix inversion, Eq. (2) of the IBU paper: (C − n q*) / (n (p* − q*)), unbiased and unclipped
        (works row-wise on a (trials, d) array of counts)."""
        c = np.asarray(counts, dtype=np.float64)
        return (c - n * self._q_star) / (n * (self._p_star - self._q_star))

    def _estimate(self, aggregate: Aggregate) -> Estimate:
        return Estimate(self.invert(aggregate.counts, aggregate.n), "mi")

    def variance(self, freqs: np.ndarray | float, n: int) -> np.ndarray:
        """Closed-form variance of the matrix-inversion estimate f̂(v) for true frequency f(v).

        Each user's support indicator for v is Bernoulli(p*) if they hold v and Bernoulli(q*) otherwise,
        independently across users, so Var[f̂(v)] = [f p*(1−p*) + (1−f) q*(1−q*)] / (n (p*−q*)²)
        (Wang et al. 2017, Eq. (2); its f → 0 limit is the lecture's comparison table).
        """
        try:
            f = np.asarray(freqs, dtype=np.float64)
        except (TypeError, ValueError):
            raise InvalidInput(f"{self.name}: frequencies must be numbers in [0, 1], got {freqs!r}") from None
        if not np.all(np.isfinite(f)) or np.any(f < 0) or np.any(f > 1):
            raise InvalidInput(f"{self.name}: frequencies must lie in [0, 1], got {freqs!r}")
        n = check_positive_int(n, "n", self.name)
        p, q = self._p_star, self._q_star
        return (f * p * (1 - p) + (1 - f) * q * (1 - q)) / (n * (p - q) ** 2)

    def approximate_variance(self, n: int) -> float:
        """Var of f̂(v) for a value of negligible frequency (the lecture's table entry divided by n)."""
        return float(self.variance(0.0, n))

    def _estimate_variance(self, true_counts: np.ndarray, support: np.ndarray | None) -> np.ndarray:
        n = int(true_counts.sum())
        return self.variance(true_counts / n, n)

    def report_columns(self) -> int:
        """Numbers on one line of a report file (1 for a scalar report)."""
        return self._d

    def support_size(self) -> int | None:
        """How many values every report supports, when that number is fixed (GRR: 1, SS: ω), else None."""
        return None

    def lecture_variance(self) -> float | None:
        """The lecture's closed form of Var[c̃(i)]/n at this ε and d (None where the lecture gives none)."""
        return None

    def _randomizer_parameters(self) -> dict[str, Any] | None:
        if not self.browser_client:
            return None
        return {"d": self.d, "p": self.p_star, "q": self.q_star}

    # ------------------------------------------------------------------ poisoning: the maximal-gain attack
    def mga_support(self, targets: np.ndarray) -> int:
        """s: how many of the (distinct, validated) ``targets`` one crafted report of the maximal-gain attack
        supports (Cao, Jia, Gong, USENIX Security 2021; hook ``_mga_support``)."""
        s = self._mga_support(np.asarray(targets, dtype=np.int64))
        if s is None:
            raise NotAvailable(f"{self.name}: the maximal-gain attack is not defined for its reports")
        return int(s)

    def mga_reports(self, targets: np.ndarray, m: int, rng: np.random.Generator) -> np.ndarray:
        """``m`` crafted reports of maximal-gain fake users, in the mechanism's own report format (hook
        ``_mga_reports``)."""
        out = self._mga_reports(np.asarray(targets, dtype=np.int64), int(m), rng)
        if out is None:
            raise NotAvailable(f"{self.name}: the maximal-gain attack is not defined for its reports")
        return out

    def _mga_support(self, targets: np.ndarray) -> int | None:
        return None

    #: Whether the maximal-gain attack paper studies this mechanism (its kRR, OUE and OLH): the attack's page and
    #: command offer exactly these.
    mga_studied: ClassVar[bool] = False

    def _mga_reports(self, targets: np.ndarray, m: int, rng: np.random.Generator) -> np.ndarray | None:
        return None

    # ------------------------------------------------------------------ one report, for people
    def report_supports(self, reports: np.ndarray, v: int) -> np.ndarray | None:
        """Whether each report supports value ``v`` (a boolean per report), or None where this family's reports are
        read as they are (hook ``_report_supports``; the privacy audit's "support" events)."""
        return self._report_supports(reports, int(v))

    def _report_supports(self, reports: np.ndarray, v: int) -> np.ndarray | None:
        return None

    def _output_events(self, reports: np.ndarray, v0: Any, v1: Any) -> tuple[str, np.ndarray] | None:
        s0 = self.report_supports(reports, v0)
        if s0 is None:
            return None
        return "support", 2 * s0.astype(np.int64) + self.report_supports(reports, v1).astype(np.int64)

    def support_set(self, report: np.ndarray) -> list[int] | None:
        """The values a single report supports (C(v) counts it), or None when reports do not support values."""
        if not self.pure:
            return None
        rep = np.asarray(report)
        if rep.ndim == 0 or (rep.ndim == 1 and not self._scalar_reports()):
            rep = rep[None]
        if rep.shape[0] != 1:
            raise InvalidInput(f"{self.name}: support_set takes exactly one report, got {rep.shape[0]}")
        return [int(v) for v in np.flatnonzero(self.support_counts(rep) > 0.5)]

    def _explain_report(self, report_text: str) -> str:
        support = self.support_set(self.parse_reports([report_text]))
        shown = ", ".join(map(str, support[:12])) + (", …" if support and len(support) > 12 else "")
        return (f"The report supports the values {{{shown}}}: the user's own value is among them with probability "
                f"p* = {self.p_star:.3g}, any other value with q* = {self.q_star:.3g}.")

    def support_probabilities(self, matrix: np.ndarray | None = None, labels: list[str] | None = None) -> np.ndarray:
        """d × d matrix Pr[report supports u | input v]: p* on the diagonal, q* elsewhere.

        From the enumerated channel when given (Σ_y Pr[y|v] 1[u ∈ S(y)], which checks p* and q*), otherwise
        from p* and q* directly.
        """
        if not self.pure:
            raise InvalidInput(f"{self.name}: not pure, reports do not support values")
        d = self._d
        if matrix is None or labels is None:
            return np.full((d, d), self._q_star) + (self._p_star - self._q_star) * np.eye(d)
        reports = self.parse_reports(labels)
        supports = np.zeros((len(labels), d))
        for i in range(len(labels)):
            supports[i] = self.support_counts(reports[i:i + 1]) > 0.5
        return np.asarray(matrix, dtype=np.float64) @ supports

