"""dBitFlip (Ding, Kulkarni, Yekhanin, "Collecting Telemetry Data Privately", NeurIPS 2017, §3): histograms of
a value in [0, k) (here k = d) from d' sampled buckets, one randomized bit each.

Each user samples d' distinct buckets j_1 < … < j_{d'} uniformly (independently of her value v) and sends, for
each, a bit b_i that is 1 with probability p = h/(h + 1) if j_i = v, else q = 1/(h + 1), h = e^{ε/2}. The server
estimates f̂(v) = (d/(d' n)) Σ_{users who sampled v} (b(h + 1) − 1)/(h − 1). With r = d'/d the chance that a user
samples v, a user's term Y_v = (d/d')·1[sampled v]·(b(h + 1) − 1)/(h − 1) has mean 1[v own] (p(h + 1) − 1 = h − 1,
q(h + 1) − 1 = 0): unbiased. Its second moment is (1/r)(h² − h + 1)/(h − 1)² for the own value and
(1/r) h/(h − 1)² for any other, so, with f the true frequency of v,

    Var[f̂(v)] = [f ((h² − h + 1)/(r (h − 1)²) − 1) + (1 − f) h/(r (h − 1)²)] / n,

whose f → 0 term is the paper's (d/d')·e^{ε/2}/(e^{ε/2} − 1)²/n; at d' = d (r = 1) it is SUE's exactly.

Privacy: the buckets do not depend on v; between inputs v and v' only the bits at v and v' change law, each by at
most a factor p/q = h. With d' ≥ 2 both can be sampled, so the channel's ratio is h² = e^ε, the paper's ε. With
d' = 1 (1BitFlip) a report holds one bucket: the ratio is h = e^{ε/2}, so 1BitFlip spends only ε/2
(``spends_full_budget`` is False there; the exact channel confirms both).

Not pure: the estimator uses the number of users who actually sampled v (not its expectation n·r), so it is not
matrix inversion of support counts with fixed p*, q*. The aggregate is therefore the additive statistic
A(v) = Σ_users Y_v (so f̂ = A/n: ``_probabilities`` is (1, 0) as SHE's).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ldp.core.errors import InvalidInput
from ldp.core.params import Param
from ldp.core.randomness import RandomSource, bernoulli_select
from ldp.core.registry import MECHANISMS
from ldp.mechanisms.base import ceil_log2, check_int_reports
from ldp.mechanisms.frequency.base import FrequencyOracle

__all__ = ["DBitFlip"]

#: Largest d for which the fast engine draws 1BitFlip's (value × bucket) table exactly (d² cells in memory).
EXACT_TABLE_D = 2048

DKY_PAPER = "Ding, Kulkarni, Yekhanin — Collecting Telemetry Data Privately, NeurIPS 2017, §3 (dBitFlip)"


@MECHANISMS.register
class DBitFlip(FrequencyOracle):
    """dBitFlip (module docstring): d' sampled buckets with one randomized bit each; d' = 1 is 1BitFlip.

    Parameters
    ----------
    epsilon : float
        The privacy budget ε: each bit is randomized with h = e^{ε/2}; with d' = 1 a report spends only ε/2.
    d : int
        The number of buckets k = d (inputs are codes in [0, d)).
    d_prime : int, optional
        d', the number of distinct buckets each user samples, in [1, d]; None: 1 (1BitFlip).

    Raises
    ------
    InvalidInput
        When d' exceeds d.

    References
    ----------
    Ding, Kulkarni, Yekhanin, "Collecting Telemetry Data Privately" (NeurIPS 2017), §3 (dBitFlip and its
    estimator); the exact variance is derived in the module docstring.
    """

    name = "dbitflip"
    display_name = "dBitFlip (Microsoft telemetry)"
    description = ("samples d' buckets and sends a bit for each, 1 w.p. e^{ε/2}/(e^{ε/2}+1) for the own bucket, "
                   "1/(e^{ε/2}+1) otherwise")
    paper = DKY_PAPER
    report_format = "2d' integers 'j₁ b₁ … j_{d'} b_{d'}': increasing distinct buckets j_i in [0, d) and their bits"
    communication = "d'(⌈log₂ d⌉ + 1) bits"
    lecture_formula = "(d/d') e^{ε/2} / (e^{ε/2} − 1)²"
    pure = False
    fast_engine_exact = False
    fast_engine_note = ("per bucket, the users of each value who sampled it (multinomial for d' = 1 and d ≤ 2048, "
                        "else Bin(n_u, d'/d)) and their 1-bits (binomial): exact in distribution for d' = 1 and "
                        "d ≤ 2048; otherwise exact marginals, not the cross-covariances (buckets are drawn "
                        "independently; a user's distinct buckets make them negative)")
    extra_parameters = (Param("d_prime", int, "d': buckets sampled per user (1 = 1BitFlip; at most d)", low=1,
                              optional=True),)

    def _setup(self) -> None:
        if self._params.get("d_prime") is None:
            self._params["d_prime"] = 1
        if self.d_prime > self._d:
            raise InvalidInput(f"{self.name}: d' = {self.d_prime} exceeds the domain size d = {self._d}")
        h = math.exp(self._epsilon / 2.0)
        self.h = h
        self.p_bit, self.q_bit = h / (h + 1.0), 1.0 / (h + 1.0)
        self.rate = self.d_prime / self._d  # r: Pr[a user samples a given bucket]
        # one user's term for a sampled bucket: (d/d')·(b(h + 1) − 1)/(h − 1)
        self.one_value = (self._d / self.d_prime) * h / (h - 1.0)
        self.zero_value = -(self._d / self.d_prime) / (h - 1.0)
        self.spends_full_budget = self.d_prime >= 2  # type: ignore[misc]  # 1BitFlip's channel ratio is e^{ε/2}
        self.fast_engine_exact = self.d_prime == 1 and self._d <= EXACT_TABLE_D  # type: ignore[misc]

    @property
    def d_prime(self) -> int:
        return self._params["d_prime"]

    def _probabilities(self) -> tuple[float, float]:
        return 1.0, 0.0  # the aggregate is already unbiased: f̂ = A / n

    def report_width(self) -> int:
        return max(2 * self.d_prime, self._d if self.d_prime > 1 else 1)

    def report_columns(self) -> int:
        return 2 * self.d_prime

    # ------------------------------------------------------------------ client
    def sample_buckets(self, m: int, rng: RandomSource) -> np.ndarray:
        """d' distinct buckets for each of ``m`` users, increasing along a row (uniform over the d'-subsets)."""
        if self.d_prime == 1:
            return rng.integers(0, self._d, size=(m, 1))
        keys = rng.random((m, self._d))
        return np.sort(np.argpartition(keys, self.d_prime - 1, axis=1)[:, :self.d_prime], axis=1)

    def _perturb(self, values: np.ndarray, rng: RandomSource) -> np.ndarray:
        m = values.shape[0]
        j = self.sample_buckets(m, rng).astype(np.int64)
        own = j == values[:, None]
        bits = bernoulli_select(rng, own, self.p_bit, self.q_bit).reshape(j.shape)
        out = np.empty((m, 2 * self.d_prime), dtype=np.int64)
        out[:, 0::2], out[:, 1::2] = j, bits
        return out

    def _validate_reports(self, reports: np.ndarray) -> np.ndarray:
        if reports.ndim != 2 or reports.shape[1] != 2 * self.d_prime:
            raise InvalidInput(f"{self.name}: each report must be 2d' = {2 * self.d_prime} integers "
                               f"'j₁ b₁ … j_d' b_d'', got shape {reports.shape}")
        reports = check_int_reports(self.name, reports, 0, self._d, "report fields")
        if np.any(reports[:, 1::2] > 1):
            raise InvalidInput(f"{self.name}: the reported bits must be 0 or 1")
        if self.d_prime > 1 and np.any(np.diff(reports[:, 0::2], axis=1) <= 0):
            raise InvalidInput(f"{self.name}: a report's buckets must be distinct and increasing")
        return reports

    # ------------------------------------------------------------------ server
    def _report_range(self) -> tuple[float, float]:
        # a report samples each bucket at most once (distinct j's) and adds one_value or zero_value to it
        return min(0.0, self.zero_value, self.one_value), max(0.0, self.zero_value, self.one_value)

    def _support_counts(self, reports: np.ndarray) -> np.ndarray:
        j = reports[:, 0::2].ravel()
        b = reports[:, 1::2].ravel()
        sampled = np.bincount(j, minlength=self._d).astype(np.float64)
        ones = np.bincount(j, weights=b.astype(np.float64), minlength=self._d)
        return ones * self.one_value + (sampled - ones) * self.zero_value

    def _sample_counts(self, true_counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        c = np.asarray(true_counts, dtype=np.int64)
        d = self._d
        if self.fast_engine_exact:
            # exact: each user samples one bucket uniformly, so the users of value u per bucket are multinomial
            spread = rng.multinomial(c, np.full(d, 1.0 / d))  # (value u, bucket)
            own = np.diag(spread)
            others = spread.sum(axis=0) - own
        else:
            own = rng.binomial(c, self.rate)
            others = rng.binomial(int(c.sum()) - c, self.rate)
        sampled = own + others
        ones = rng.binomial(own, self.p_bit) + rng.binomial(others, self.q_bit)
        return ones * self.one_value + (sampled - ones) * self.zero_value

    def _expected_aggregate(self, true_counts: np.ndarray, support: np.ndarray | None) -> np.ndarray:
        return true_counts.astype(np.float64)

    def _user_second_moments(self) -> tuple[float, float]:
        """E[Y_v²] of one user for her own value and for another (module docstring)."""
        h, r = self.h, self.rate
        return (h * h - h + 1.0) / (r * (h - 1.0) ** 2), h / (r * (h - 1.0) ** 2)

    def _aggregate_variance(self, true_counts: np.ndarray, support: np.ndarray | None) -> np.ndarray:
        own, other = self._user_second_moments()
        n = float(true_counts.sum())
        return true_counts * (own - 1.0) + (n - true_counts) * other

    def variance(self, freqs: np.ndarray | float, n: int) -> np.ndarray:
        """[f ((h² − h + 1)/(r(h − 1)²) − 1) + (1 − f) h/(r(h − 1)²)]/n (module docstring)."""
        super().variance(freqs, n)  # validates
        f = np.asarray(freqs, dtype=np.float64)
        own, other = self._user_second_moments()
        return (f * (own - 1.0) + (1.0 - f) * other) / n

    def lecture_variance(self) -> float:
        h = self.h
        return (self._d / self.d_prime) * h / (h - 1.0) ** 2

    # ------------------------------------------------------------------ channel
    def _output_count(self) -> int:
        return math.comb(self._d, self.d_prime) * 2 ** self.d_prime

    def _channel(self) -> tuple[np.ndarray, list[str]]:
        subsets = list(itertools.combinations(range(self._d), self.d_prime))
        patterns = list(itertools.product([0, 1], repeat=self.d_prime))
        m = np.empty((self._d, len(subsets) * len(patterns)))
        pick = 1.0 / len(subsets)
        for v in range(self._d):
            col = 0
            for sub in subsets:
                for pat in patterns:
                    prob = pick
                    for j, b in zip(sub, pat, strict=True):
                        pb = self.p_bit if j == v else self.q_bit
                        prob *= pb if b else 1.0 - pb
                    m[v, col] = prob
                    col += 1
        labels = [" ".join(f"{j} {b}" for j, b in zip(sub, pat, strict=True)) for sub in subsets for pat in patterns]
        return m, labels

    def _report_bits(self) -> int:
        return self.d_prime * (ceil_log2(self._d) + 1)

    def report_bits_formula(self) -> str:
        return "d'(⌈log₂ d⌉ + 1) (d' buckets and their bits)"

    def _explain_report(self, report_text: str) -> str:
        fields = report_text.split()
        pairs = ", ".join(f"(bucket {fields[i]}, bit {fields[i + 1]})" for i in range(0, len(fields), 2))
        return (f"{pairs}: each bit is 1 with probability {self.p_bit:.3g} if the bucket is the user's own, "
                f"{self.q_bit:.3g} otherwise.")
