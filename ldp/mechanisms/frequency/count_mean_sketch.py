"""Apple's count-mean sketch (CMS) and Hadamard count-mean sketch (HCMS) (Apple Differential Privacy Team,
"Learning with Privacy at Scale", 2017, Algorithms 1–4).

Public: k hash functions h_j : [d] → [m] (here h_j(v) = XXH32(str(v), seed=j) mod m, the pure-LDP library's choice
with XXH32 for its XXH64) and the sketch width m.

- CMS client: j uniform in [k]; the vector −1 everywhere but +1 at h_j(v) (length m), each entry flipped with
  probability 1/(1 + e^{ε/2}); report (j, bits). Two inputs' vectors differ in at most two entries, each costing
  e^{ε/2}: ε-LDP. Server: x̃ = k((c_ε/2)·ṽ + ½·1), c_ε = (e^{ε/2} + 1)/(e^{ε/2} − 1), added to row j of M.
- HCMS client: j uniform in [k], l uniform in [m], the l-th entry w = H[l, h_j(v)] of the Hadamard transform of
  the one-hot vector, sent as w with probability e^ε/(e^ε + 1), else −w; report (j, l, bit). Server:
  x̃ = k·c'_ε·w̃, c'_ε = (e^ε + 1)/(e^ε − 1), added at M_H[j, l]; the sketch is M = M_H Hᵀ.

The aggregate is the sketch (M for CMS, M_H for HCMS; k·m entries, additive over users). The paper's estimate of
the count of v is (m/(m − 1))·((1/k)Σ_j M[j, h_j(v)] − n/m) (:meth:`CountMeanSketch.paper_estimate`): unbiased
over the random choice of the hash functions. For the *fixed* public hashes a simulation uses it is biased by the
realised collisions, (m/(m − 1))·Σ_{u≠v} n_u (κ(u, v) − 1/m) with κ(u, v) the fraction of the k hashes colliding
u and v — the paper's "collision term", a variance over hash draws and a bias for one draw. The mechanism's own
estimate inverts the collision matrix K (K[u, v] = κ(u, v)) instead: with r(v) = (1/k)Σ_j M[j, h_j(v)],
E[r] = Kᵀ n exactly, so f̂ = K⁻¹ r / n is unbiased for these hashes, with an exact closed-form variance.

Per user holding u, Y(v) = (1/k)·x̃[h_j(v)] has mean κ(u, v) and variance (c_ε² − 1)/4 + κ(1 − κ) (CMS) or
c'_ε² − κ² (HCMS). Averaged over random hashes (κ ~ Binomial(k, 1/m)/k, independent over u) the paper's estimate
has, in counts,

    CMS:  Var = (m/(m−1))² [ n(c_ε² − 1)/4 + (n − n_v)(1/m)(1 − 1/m)(1 − 1/k) + Σ_{u≠v} n_u² (1/m)(1 − 1/m)/k ]
    HCMS: Var = (m/(m−1))² [ n c'_ε² − n_v − (n − n_v)(1/m² + (1/m)(1 − 1/m)/k) + Σ_{u≠v} n_u² (1/m)(1 − 1/m)/k ]

— the noise term, the per-user collision term and the shared-hash collision term (:func:`sketch_tradeoff`).
"""

from __future__ import annotations

import itertools
import math
from abc import abstractmethod
from typing import Any, ClassVar

import numpy as np

from ldp.core.errors import InvalidInput
from ldp.core.params import Param
from ldp.core.randomness import RandomSource, bernoulli
from ldp.core.registry import MECHANISMS
from ldp.core.results import Aggregate, Estimate
from ldp.maths.hadamard import hadamard_sign
from ldp.mechanisms.base import ceil_log2, check_int_reports
from ldp.mechanisms.frequency.base import FrequencyOracle
from ldp.mechanisms.frequency.fast_local_hashing import (
    _pair_blocks,
    inverse_collisions,
    pool_collisions,
    pool_hash_matrix,
)

__all__ = ["APPLE_PAPER", "CMS", "HCMS", "CountMeanSketch", "sketch_tradeoff"]

APPLE_PAPER = "Apple Differential Privacy Team — Learning with Privacy at Scale (2017), Algorithms 1–4"


class CountMeanSketch(FrequencyOracle):
    """Shared parts of CMS and HCMS (module docstring): k public hashes into m cells, a k × m sketch as the aggregate,
    the collision matrix inverted by the mechanism's own estimate.

    Parameters
    ----------
    epsilon : float
        The privacy budget ε of one report.
    d : int
        The domain size (inputs are codes in [0, d)); the collision matrix is d × d.
    k : int, default 16
        The number of public hash functions h_j(v) = XXH32(str(v), seed=j) mod m (sketch rows), in [1, 2¹⁶].
    m : int, default 64
        The sketch width (hash range), in [2, 2¹⁶].

    The estimate (not the constructor) raises :class:`InvalidInput` when the k hashes into m cells leave the
    collision matrix too ill-conditioned (condition number above 10⁸) to tell the d values apart.

    References
    ----------
    Apple Differential Privacy Team, "Learning with Privacy at Scale" (2017), Algorithms 1–4 (client and sketch
    construction); the collision-inverting estimate and its variance are derived in the module docstring.
    """

    pure = False
    report_format = ""
    extra_parameters = (Param("k", int, "k: number of public hash functions (sketch rows)", default=16, low=1,
                              high=1 << 16),
                        Param("m", int, "m: sketch width (hash range)", default=64, low=2, high=1 << 16))
    default_estimator: ClassVar[str] = "mi"

    @property
    def k(self) -> int:
        return self._params["k"]

    @property
    def m(self) -> int:
        return self._params["m"]

    def hash_matrix(self) -> np.ndarray:
        """H[j, v] = h_j(v) = XXH32(str(v), seed=j) mod m (k × d)."""
        return pool_hash_matrix(self.k, self.d, self.m)

    def collisions(self) -> np.ndarray:
        """K[u, v] = κ(u, v): the fraction of the k hashes with h_j(u) = h_j(v)."""
        return pool_collisions(self.k, self.d, self.m)

    def _inverse_collisions(self) -> np.ndarray:
        what = f"{self.k} hashes into m = {self.m} cells"
        return self._cached("kinv", lambda: inverse_collisions(self.collisions(), self.name, what,
                                                              "use more hashes or a wider sketch"))

    def _probabilities(self) -> tuple[float, float]:
        return 1.0, 0.0  # not pure: the estimate reads the sketch (module docstring)

    def statistic_size(self) -> int:
        return self.k * self.m

    def sketch(self, aggregate: Aggregate) -> np.ndarray:
        """The paper's debiased sketch M (k × m) of an aggregate."""
        return self._sketch(np.asarray(aggregate.counts, dtype=np.float64))

    def _sketch(self, stat: np.ndarray) -> np.ndarray:
        return stat.reshape(stat.shape[:-1] + (self.k, self.m))

    def row_means(self, stat: np.ndarray) -> np.ndarray:
        """r(v) = (1/k) Σ_j M[j, h_j(v)] (row-wise on a (trials, k·m) array)."""
        sk = self._sketch(np.asarray(stat, dtype=np.float64))
        rows = np.arange(self.k)[:, None]
        return sk[..., rows, self.hash_matrix()].sum(axis=-2) / self.k

    def paper_estimate(self, stat: np.ndarray, n: int) -> np.ndarray:
        """The paper's frequency estimate (m/(m − 1))·(r(v) − n/m)/n (biased by the fixed hashes' collisions)."""
        return self.m / (self.m - 1) * (self.row_means(stat) - n / self.m) / n

    def invert(self, counts: np.ndarray, n: int) -> np.ndarray:
        """f̂ = K⁻¹ r / n: unbiased for these hashes (module docstring)."""
        return (self.row_means(counts) / n) @ self._inverse_collisions()

    def _estimate(self, aggregate: Aggregate) -> Estimate:
        return Estimate(self.invert(aggregate.counts, aggregate.n), "mi")

    def variance(self, freqs: np.ndarray | float, n: int) -> np.ndarray:
        """Exact variance of the mechanism's estimate for the population with frequencies ``freqs`` (d of them);
        anything else: the random-hash variance of the paper's estimate (:func:`sketch_tradeoff`'s), in frequency."""
        f = np.asarray(freqs, dtype=np.float64)
        ideal = super().variance(freqs, n)  # validates f and n
        del ideal
        if f.shape != (self.d,):
            return np.asarray(paper_variance(self.name, self.epsilon, self.k, self.m, n, f * n, None)) / n**2
        kinv = self._inverse_collisions()
        cov = self._user_covariance(f)
        return np.einsum("ij,jk,ki->i", kinv, cov, kinv) / n

    @abstractmethod
    def _user_covariance(self, f: np.ndarray) -> np.ndarray:
        """Cov of one user's sketch-row debiased contributions for the frequencies ``f`` (each sketch's form)."""

    def consistency_warnings(self, aggregate: Aggregate, z: float = 5.0) -> list[str]:
        return []

    def _attack_success(self, prior: np.ndarray) -> float | None:
        return enumerated_attack_success(self, prior)


#: The largest channel (inputs × outputs) the attacker hooks of FLH, CMS, HCMS and the Hadamard mechanism enumerate
#: when the generic enumeration is switched off (they have no closed form).
ATTACK_ENUMERATION_CELLS = 1 << 22


def enumerated_attack_success(mech: FrequencyOracle, prior: np.ndarray) -> float | None:
    """Σ_y max_v π_v Pr[y | v] from the exact channel when it has at most ``ATTACK_ENUMERATION_CELLS`` entries, else
    None (no closed form)."""
    if mech.d * mech.output_count() > ATTACK_ENUMERATION_CELLS:
        return None
    matrix = mech.channel(max_outputs=ATTACK_ENUMERATION_CELLS)[0]
    return float((prior[:, None] * matrix).max(axis=0).sum())


def paper_variance(name: str, epsilon: float, k: int, m: int, n: int, counts_v: np.ndarray,
                   counts: np.ndarray | None) -> np.ndarray:
    """The random-hash variance of the paper's count estimate of values with counts ``counts_v`` (module docstring);
    ``counts`` (the whole population) gives the shared-hash term Σ_{u≠v} n_u², else it is left out (unknown)."""
    nv = np.asarray(counts_v, dtype=np.float64)
    scale = (m / (m - 1)) ** 2
    spread = (1 / m) * (1 - 1 / m)
    shared = 0.0 if counts is None else (np.sum(np.asarray(counts, dtype=np.float64) ** 2) - nv**2) * spread / k
    if name == "cms":
        e = math.exp(epsilon / 2)
        c = (e + 1) / (e - 1)
        return scale * (n * (c * c - 1) / 4 + (n - nv) * spread * (1 - 1 / k) + shared)
    e = math.exp(epsilon)
    c = (e + 1) / (e - 1)
    return scale * (n * c * c - nv - (n - nv) * (1 / m**2 + spread / k) + shared)


def sketch_tradeoff(name: str, epsilon: float, counts: Any, widths: Any, k: int = 16) -> np.ndarray:
    """The paper's mean squared error of the frequency estimates (averaged over values and over random hashes) of
    ``counts`` (users per value) for each sketch width m in ``widths``: collisions (terms in 1/m) against the
    (m/(m − 1))² inflation and, for HCMS, the noise of one Hadamard coefficient. ``name`` is "cms" or "hcms".

    Parameters
    ----------
    name : {"cms", "hcms"}
        Which sketch.
    epsilon : float
        The privacy budget ε (not validated here).
    counts : array_like
        Users per value, a non-empty 1-D vector of non-negative numbers with a positive sum n.
    widths : array_like
        The sketch widths m to evaluate, integers ≥ 2 (HCMS's need not be powers of 2 here: the formula is
        evaluated as it stands).
    k : int, default 16
        The number of hash functions.

    Returns
    -------
    numpy.ndarray
        One mean squared error per width (float64, shape (len(widths),)), in frequency units: the module
        docstring's random-hash variance (including the shared-hash term Σ_{u≠v} n_u²) averaged over the d
        values, divided by n².

    Raises
    ------
    InvalidInput
        When ``name`` is neither "cms" nor "hcms", ``counts`` is not such a vector, or a width is below 2.

    References
    ----------
    Apple Differential Privacy Team, "Learning with Privacy at Scale" (2017), Algorithms 1–4 (the sketches and the
    paper's count estimate); the variance formulas are derived in the module docstring.
    """
    if name not in ("cms", "hcms"):
        raise InvalidInput(f"sketch_tradeoff: name must be 'cms' or 'hcms', got {name!r}")
    c = np.asarray(counts, dtype=np.float64)
    if c.ndim != 1 or c.size == 0 or np.any(c < 0) or c.sum() <= 0:
        raise InvalidInput("sketch_tradeoff: counts must be a non-empty vector of non-negative user counts")
    n = float(c.sum())
    out = []
    for m in np.asarray(widths, dtype=np.int64).tolist():
        if m < 2:
            raise InvalidInput(f"sketch_tradeoff: widths must be at least 2, got {m}")
        out.append(float(np.mean(paper_variance(name, epsilon, k, m, int(n), c, c))) / n**2)
    return np.asarray(out)


def _c_cms(epsilon: float) -> tuple[float, float]:
    """(keep probability e^{ε/2}/(1 + e^{ε/2}) of one entry, c_ε)."""
    e = math.exp(epsilon / 2)
    return e / (1 + e), (e + 1) / (e - 1)


@MECHANISMS.register
class CMS(CountMeanSketch):
    """Apple's count-mean sketch (module docstring): reports 'j b₁ … b_m' (b = 1 for +1).

    Parameters
    ----------
    epsilon : float
        The privacy budget ε; each of the m ±1 entries is flipped with probability 1/(1 + e^{ε/2}).
    d : int
        The domain size (inputs are codes in [0, d)).
    k : int, default 16
        The number of public hashes, in [1, 2¹⁶]; a report names one of them.
    m : int, default 64
        The sketch width and report length, in [2, 2¹⁶].

    References
    ----------
    Apple Differential Privacy Team, "Learning with Privacy at Scale" (2017), Algorithms 1–4 (CMS client and
    sketch, c_ε = (e^{ε/2} + 1)/(e^{ε/2} − 1)).
    """

    name = "cms"
    display_name = "CMS (Apple count-mean sketch)"
    description = "Apple's count-mean sketch: one of k hashes, an m-entry ±1 vector with every entry flipped"
    paper = APPLE_PAPER + " (CMS)"
    report_format = "m + 1 integers 'j b₁ … b_m': the hash index j and the m randomized entries (1 for +1, 0 for −1)"
    communication = "O(m + log k)"
    lecture_formula = "(c_ε² − 1)/4 + collisions, c_ε = (e^{ε/2} + 1)/(e^{ε/2} − 1)"

    def report_width(self) -> int:
        return self.m + 1

    def report_columns(self) -> int:
        return self.m + 1

    def _perturb(self, values: np.ndarray, rng: RandomSource) -> np.ndarray:
        count = values.shape[0]
        keep, _ = _c_cms(self.epsilon)
        j = rng.integers(0, self.k, size=count)
        hot = self.hash_matrix()[j, values]
        truth = np.zeros((count, self.m), dtype=bool)
        truth[np.arange(count), hot] = True
        bits = truth == bernoulli(rng, keep, (count, self.m))  # kept entries equal the truth
        return np.concatenate([j[:, None], bits.astype(np.int64)], axis=1)

    def _validate_reports(self, reports: np.ndarray) -> np.ndarray:
        if reports.ndim != 2 or reports.shape[1] != self.m + 1:
            raise InvalidInput(f"{self.name}: each report must be m + 1 = {self.m + 1} integers 'j b₁ … b_m', got "
                               f"shape {reports.shape}")
        reports = check_int_reports(self.name, reports, 0, max(self.k, 2), "report fields")
        if np.any(reports[:, 0] >= self.k) or np.any(reports[:, 1:] > 1):
            raise InvalidInput(f"{self.name}: reports need a hash row 0 ≤ j < k={self.k} and entries b of 0 or 1")
        return reports

    def _report_range(self) -> tuple[float, float]:
        # a report adds k(c·(±1) + 1)/2 to each entry of its row j of the sketch, nothing to the other rows
        _, c = _c_cms(self.epsilon)
        low, high = sorted((self.k * (1.0 - c) / 2.0, self.k * (1.0 + c) / 2.0))
        return min(0.0, low), max(0.0, high)

    def _support_counts(self, reports: np.ndarray) -> np.ndarray:
        _, c = _c_cms(self.epsilon)
        signs = 2.0 * reports[:, 1:] - 1.0
        x = self.k * (c * signs + 1.0) / 2.0
        sk = np.zeros((self.k, self.m))
        np.add.at(sk, reports[:, 0], x)
        return sk.ravel()

    def _sample_counts(self, true_counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        # users of each value split uniformly over the k rows; in row j an entry is +1 with probability `keep` for
        # the users hashed there and 1 − keep for the others, independently: exact in distribution
        keep, c = _c_cms(self.epsilon)
        counts = np.asarray(true_counts, dtype=np.int64)
        split = rng.multinomial(counts, np.full(self.k, 1.0 / self.k))  # d × k
        rows = split.sum(axis=0)
        hot = np.zeros((self.k, self.m), dtype=np.int64)
        np.add.at(hot, (np.broadcast_to(np.arange(self.k), split.shape), self.hash_matrix().T), split)
        plus = rng.binomial(hot, keep) + rng.binomial(rows[:, None] - hot, 1 - keep)
        return (self.k * (c * (2.0 * plus - rows[:, None]) + rows[:, None]) / 2.0).ravel()

    def _expected_aggregate(self, true_counts: np.ndarray, support: np.ndarray | None) -> np.ndarray:
        hot = np.zeros((self.k, self.m))
        np.add.at(hot, (np.broadcast_to(np.arange(self.k)[:, None], (self.k, self.d)), self.hash_matrix()),
                  np.broadcast_to(true_counts.astype(np.float64), (self.k, self.d)))
        return hot.ravel()

    def _aggregate_variance(self, true_counts: np.ndarray, support: np.ndarray | None) -> np.ndarray:
        _, c = _c_cms(self.epsilon)
        n = float(true_counts.sum())
        return n * self.k * (c * c - 1) / 4 + (self.k - 1) * self._expected_aggregate(true_counts, support)

    def _user_covariance(self, f: np.ndarray) -> np.ndarray:
        _, c = _c_cms(self.epsilon)
        kk = self.collisions()
        shared = np.zeros((self.d, self.d))
        for eq in _pair_blocks(self.hash_matrix()):
            shared += (eq * (eq @ f)[:, :, None]).sum(axis=0)
        shared /= self.k
        return (c * c - 1) / 4 * kk + shared - kk.T @ (f[:, None] * kk)

    def _output_count(self) -> int:
        return self.k * 2**self.m

    def _channel(self) -> tuple[np.ndarray, list[str]]:
        keep, _ = _c_cms(self.epsilon)
        patterns = np.array(list(itertools.product((0, 1), repeat=self.m)), dtype=np.int64)  # 2^m × m
        hashes = self.hash_matrix()
        out = np.empty((self.d, self.k, patterns.shape[0]))
        for v in range(self.d):
            for j in range(self.k):
                truth = (np.arange(self.m) == hashes[j, v]).astype(np.int64)
                agree = (patterns == truth[None, :]).sum(axis=1)
                out[v, j] = keep**agree * (1 - keep) ** (self.m - agree) / self.k
        labels = [f"{j} " + " ".join(map(str, p)) for j in range(self.k) for p in patterns.tolist()]
        return out.reshape(self.d, -1), labels

    def _report_supports(self, reports: np.ndarray, v: int) -> np.ndarray:
        """Whether the entry at h_j(v) of each report is +1 (the privacy audit's events)."""
        return reports[np.arange(reports.shape[0]), 1 + self.hash_matrix()[reports[:, 0], v]] == 1

    def _explain_report(self, report_text: str) -> str:
        fields = report_text.split()
        plus = [i for i, b in enumerate(fields[1:]) if b == "1"]
        shown = ", ".join(map(str, plus[:12])) + (", …" if len(plus) > 12 else "")
        return (f"Hash number {fields[0]} and a randomized ±1 vector of m = {self.m} entries, +1 at cells {{{shown}}}: "
                f"the user's cell h_{fields[0]}(v) is +1 with probability {_c_cms(self.epsilon)[0]:.3g}, any other "
                "cell with one minus that.")

    def _report_bits(self) -> int:
        return ceil_log2(self.k) + self.m

    def report_bits_formula(self) -> str:
        return "⌈log₂ k⌉ + m (the hash index and m bits)"


@MECHANISMS.register
class HCMS(CountMeanSketch):
    """Apple's Hadamard count-mean sketch (module docstring): reports 'j l y' (y = 1 for −1); m a power of 2.

    Parameters
    ----------
    epsilon : float
        The privacy budget ε; the one Hadamard coefficient is sent as it is with probability e^ε/(e^ε + 1).
    d : int
        The number of values (codes in [0, d)).
    k : int, default 16
        How many public hash functions there are (sketch rows), 1 to 2¹⁶.
    m : int, default 64
        The sketch width, a power of 2 in [2, 2¹⁶] (the Hadamard transform's size).

    Raises
    ------
    InvalidInput
        When m is not a power of 2.

    References
    ----------
    Apple Differential Privacy Team, "Learning with Privacy at Scale" (2017), Algorithms 1–4 (HCMS client and
    sketch, c'_ε = (e^ε + 1)/(e^ε − 1)).
    """

    name = "hcms"
    display_name = "HCMS (Apple Hadamard count-mean sketch)"
    description = "Apple's Hadamard count-mean sketch: one randomized Hadamard coefficient of the hashed one-hot vector"
    paper = APPLE_PAPER + " (HCMS)"
    report_format = "three integers 'j l y': hash index j, Hadamard row l and the randomized bit y (1 for −1)"
    communication = "O(log k + log m)"
    lecture_formula = "c'_ε² + collisions, c'_ε = (e^ε + 1)/(e^ε − 1)"

    def _setup(self) -> None:
        if self.m & (self.m - 1):
            raise InvalidInput(f"{self.name}: the sketch width m must be a power of 2 (Hadamard), got {self.m}")

    def _keep(self) -> tuple[float, float]:
        e = math.exp(self.epsilon)
        return e / (e + 1), (e + 1) / (e - 1)

    def report_width(self) -> int:
        return 3

    def report_columns(self) -> int:
        return 3

    def _perturb(self, values: np.ndarray, rng: RandomSource) -> np.ndarray:
        count = values.shape[0]
        keep, _ = self._keep()
        j = rng.integers(0, self.k, size=count)
        l = rng.integers(0, self.m, size=count)  # noqa: E741 - the paper's name
        negative = np.bitwise_count(l & self.hash_matrix()[j, values]).astype(np.int64) & 1
        y = negative ^ ~bernoulli(rng, keep, count)
        return np.stack([j, l, y.astype(np.int64)], axis=1)

    def _validate_reports(self, reports: np.ndarray) -> np.ndarray:
        if reports.ndim != 2 or reports.shape[1] != 3:
            raise InvalidInput(f"{self.name}: each report must be 'j l y', got shape {reports.shape}")
        reports = check_int_reports(self.name, reports, 0, max(self.k, self.m), "report fields")
        if np.any(reports[:, 0] >= self.k) or np.any(reports[:, 1] >= self.m) or np.any(reports[:, 2] > 1):
            raise InvalidInput(f"{self.name}: reports need 0 ≤ j < k={self.k}, 0 ≤ l < m={self.m}, y in {{0, 1}}")
        return reports

    def _report_range(self) -> tuple[float, float]:
        _, c = self._keep()  # a report adds ±k·c to one entry (j, l) of the sketch
        return -abs(self.k * c), abs(self.k * c)

    def _support_counts(self, reports: np.ndarray) -> np.ndarray:
        _, c = self._keep()
        cell = reports[:, 0] * self.m + reports[:, 1]
        return np.bincount(cell, weights=self.k * c * (1.0 - 2.0 * reports[:, 2]), minlength=self.k * self.m)

    def _sketch(self, stat: np.ndarray) -> np.ndarray:
        rows = np.arange(self.m)
        h = hadamard_sign(rows[:, None], rows[None, :]).astype(np.float64)
        return super()._sketch(stat) @ h  # M = M_H Hᵀ (H symmetric)

    def _sample_counts(self, true_counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        # users of each value split uniformly over the k·m cells (j, l); a cell's user sends +1 with probability
        # `keep` if its coefficient is +1, 1 − keep otherwise: exact in distribution
        keep, c = self._keep()
        counts = np.asarray(true_counts, dtype=np.int64)
        split = rng.multinomial(counts, np.full(self.k * self.m, 1.0 / (self.k * self.m))).reshape(self.d, self.k,
                                                                                                    self.m)
        sign = self._coefficients()  # d × k × m: H[l, h_j(v)]
        pos = (split * (sign > 0)).sum(axis=0)
        cells = split.sum(axis=0)
        plus = rng.binomial(pos, keep) + rng.binomial(cells - pos, 1 - keep)
        return (self.k * c * (2.0 * plus - cells)).ravel()

    def _coefficients(self) -> np.ndarray:
        def build() -> np.ndarray:
            return hadamard_sign(np.arange(self.m)[None, None, :], self.hash_matrix().T[:, :, None])
        return self._cached("coef", build)

    def _expected_aggregate(self, true_counts: np.ndarray, support: np.ndarray | None) -> np.ndarray:
        return (np.tensordot(true_counts.astype(np.float64), self._coefficients(), axes=1) / self.m).ravel()

    def _aggregate_variance(self, true_counts: np.ndarray, support: np.ndarray | None) -> np.ndarray:
        _, c = self._keep()
        n = float(true_counts.sum())
        return np.full(self.k * self.m, n * self.k * c * c / self.m - n / self.m**2)

    def _user_covariance(self, f: np.ndarray) -> np.ndarray:
        _, c = self._keep()
        kk = self.collisions()
        return c * c * kk - kk.T @ (f[:, None] * kk)

    def _output_count(self) -> int:
        return self.k * self.m * 2

    def _channel(self) -> tuple[np.ndarray, list[str]]:
        keep, _ = self._keep()
        negative = self._coefficients() < 0  # d × k × m
        prob_one = np.where(negative, keep, 1 - keep) / (self.k * self.m)
        out = np.stack([1.0 / (self.k * self.m) - prob_one, prob_one], axis=-1)
        labels = [f"{j} {ll} {y}" for j in range(self.k) for ll in range(self.m) for y in (0, 1)]
        return out.reshape(self.d, -1), labels

    def _report_supports(self, reports: np.ndarray, v: int) -> np.ndarray:
        """Whether each report's bit is v's Hadamard coefficient (the privacy audit's events)."""
        coef = np.bitwise_count(reports[:, 1] & self.hash_matrix()[reports[:, 0], v]).astype(np.int64) & 1
        return coef == reports[:, 2]

    def _explain_report(self, report_text: str) -> str:
        j, row, y = report_text.split()
        return (f"Hash number {j}, Hadamard row l = {row} and a randomized bit y = {y}: y is the sign of coefficient "
                f"l of the one-hot vector at h_{j}(v) (0 for +1) with probability {self._keep()[0]:.3g}.")

    def _report_bits(self) -> int:
        return ceil_log2(self.k) + ceil_log2(self.m) + 1

    def report_bits_formula(self) -> str:
        return "⌈log₂ k⌉ + ⌈log₂ m⌉ + 1 (hash index, Hadamard row, one bit)"
