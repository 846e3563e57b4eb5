"""Fast local hashing (FLH): OLH whose hash functions come from a small fixed public pool (Cormode, Maddock, Maple,
"Frequency Estimation under Local Differential Privacy", VLDB 2021, §4.3; the pure-LDP library's ``FastLH``).

Client: pick j uniformly in [0, k'), hash H_j(v) = XXH32(str(v), seed=j) mod g — the pure-LDP library's pool
(``FastLHServer`` builds exactly this k' × d hash matrix; the library's reports are the tuple (y, j)) — and report
(y, j) with y = GRR_g(H_j(v)) at ε. For any fixed hash the report is GRR on [g] at ε, so FLH is ε-LDP whatever the
pool (the ratio p/q = e^ε is reached by the j where H_j(v) ≠ H_j(v')).

Server: the k' × d hash matrix is computed once, so counting supports C(u) = #{i : H_{j_i}(u) = y_i} costs
O(k'·d) from the (j, y) histogram, whatever n — the point of the paper.

The finite pool's exact channel. Unlike OLH's Carter–Wegman family, a fixed pool of k' functions does not collide
every pair of values equally often: with K[v, u] = (1/k')·#{j : H_j(v) = H_j(u)} (K[v, v] = 1) a user holding v
supports u with probability S[v, u] = q + (p − q)·K[v, u] (p, q of GRR on [g]). The paper's estimate, matrix
inversion with q* = 1/g, assumes K[v, u] = 1/g and is biased by (p − q)/(p − 1/g)·Σ_v f_v (K[v, u] − 1/g) —
about 0.004 at k' = 10⁴, ten times the standard error of 1000 collections of 20,000 users. Our estimate inverts the
pool's exact channel instead: f̂ = K⁻¹(C/n − q·1)/(p − q), unbiased for any pool (the server knows it); its exact
variance needs the pool's pair structure (O(k'·d²) once per population, as computing K). As k' → ∞, K → (1 − 1/g)I +
(1/g)11ᵀ and both tend to OLH's matrix inversion and its variance [f p(1 − p) + (1 − f) q*(1 − q*)]/(n (p − q*)²)
with q* = 1/g — the paper's "variance is OLH's" (:meth:`FLH.ideal_variance`). The mechanism is therefore not
*pure* in the IBU paper's sense (off-diagonal support probabilities differ): estimators that need p*, q* (IBU, the
Wiener family, MLE-Apx) do not apply; matrix inversion and its post-processings do.
"""

from __future__ import annotations

import functools
import math
from typing import Any, ClassVar

import numpy as np

from ldp.core.errors import InvalidInput
from ldp.core.params import Param
from ldp.core.randomness import RandomSource
from ldp.core.registry import MECHANISMS
from ldp.mechanisms.base import ceil_log2, check_int_reports
from ldp.mechanisms.frequency.base import FrequencyOracle
from ldp.mechanisms.frequency.grr import grr_probabilities, grr_randomize
from ldp.mechanisms.frequency.local_hashing import OLH, xxh32_hash

__all__ = ["FLH", "FLH_PAPER", "inverse_collisions", "pool_collisions", "pool_hash_matrix"]

FLH_PAPER = ("Cormode, Maddock, Maple — Frequency Estimation under Local Differential Privacy (VLDB 2021), §4.3 "
             "(FLH; the pure-LDP library)")

#: Cells (pool functions × value pairs) of one block when the pool's pair structure is computed.
PAIR_BLOCK_CELLS = 1 << 22
#: The largest condition number of K accepted (a pool too small for d leaves values nearly indistinguishable).
MAX_CONDITION = 1e8


@functools.lru_cache(maxsize=8)
def pool_hash_matrix(pool: int, d: int, g: int) -> np.ndarray:
    """H[j, v] = XXH32(str(v), seed=j) mod g for the pool's k' functions (read-only k' × d array).

    Cached (the 8 most recent pools); computed in blocks of about 2²² cells.

    Parameters
    ----------
    pool : int
        k', the number of hash functions (XXH32 seeds 0 … k' − 1).
    d : int
        The domain size (values 0 … d − 1 are hashed).
    g : int
        The hash range, 2 ≤ g < 2³².

    Returns
    -------
    numpy.ndarray
        The read-only int64 array H of shape (k', d), entries in [0, g).

    References
    ----------
    Cormode, Maddock, Maple (VLDB 2021), §4.3 (FLH's precomputed hash matrix).
    """
    rows = max(1, (1 << 22) // max(1, d))
    out = np.empty((pool, d), dtype=np.int64)
    values = np.arange(d, dtype=np.int64)[None, :]
    for start in range(0, pool, rows):
        seeds = np.arange(start, min(pool, start + rows), dtype=np.int64)[:, None]
        out[start:start + rows] = xxh32_hash(values, seeds, g)
    out.flags.writeable = False
    return out


def _pair_blocks(hashes: np.ndarray):
    """Blocks of the pool's equality tensor E[j, u, w] = 1[H_j(u) = H_j(w)] (bounded memory)."""
    pool, d = hashes.shape
    rows = max(1, PAIR_BLOCK_CELLS // max(1, d * d))
    for start in range(0, pool, rows):
        h = hashes[start:start + rows]
        yield h[:, :, None] == h[:, None, :]


@functools.lru_cache(maxsize=8)
def pool_collisions(pool: int, d: int, g: int) -> np.ndarray:
    """K[u, w] = (1/k')·#{j : H_j(u) = H_j(w)} (read-only d × d; K[u, u] = 1).

    Cached like :func:`pool_hash_matrix`; costs O(k'·d²) once, in blocks of ``PAIR_BLOCK_CELLS`` cells.

    Parameters
    ----------
    pool : int
        k', the number of hash functions in the pool.
    d : int
        The domain size.
    g : int
        The hash range.

    Returns
    -------
    numpy.ndarray
        The read-only symmetric float64 collision matrix K, shape (d, d), entries in [0, 1] with a unit
        diagonal; a user holding v supports u with probability q + (p − q)·K[v, u] (module docstring).

    References
    ----------
    Cormode, Maddock, Maple (VLDB 2021), §4.3 (FLH); the exact-channel derivation is this module's docstring
    (the paper assumes K[v, u] = 1/g off the diagonal).
    """
    total = np.zeros((d, d))
    for eq in _pair_blocks(pool_hash_matrix(pool, d, g)):
        total += eq.sum(axis=0)
    total /= pool
    total.flags.writeable = False
    return total


def inverse_collisions(collisions: np.ndarray, name: str, what: str, remedy: str) -> np.ndarray:
    """K⁻¹, refusing a collision matrix too ill-conditioned to tell the values apart (``what`` cannot …; ``remedy``).

    Parameters
    ----------
    collisions : numpy.ndarray
        The square collision matrix K, shape (d, d) (FLH's :func:`pool_collisions`, CMS's sketch collisions).
    name : str
        The mechanism's name, which starts the error message.
    what : str
        What cannot tell the values apart, for the message (e.g. "a pool of 10 hash functions").
    remedy : str
        What the user can do about it, for the message (e.g. a larger pool).

    Returns
    -------
    numpy.ndarray
        K⁻¹, float64 of shape (d, d).

    Raises
    ------
    InvalidInput
        When the condition number of K exceeds ``MAX_CONDITION`` = 10⁸.
    """
    if np.linalg.cond(collisions) > MAX_CONDITION:
        raise InvalidInput(f"{name}: {what} cannot tell {collisions.shape[0]} values apart (the collision matrix is "
                           f"singular); {remedy}")
    return np.linalg.inv(collisions)


@MECHANISMS.register
class FLH(FrequencyOracle):
    """Fast local hashing: OLH with the hash drawn from a fixed public pool of k' XXH32 functions (see the module
    docstring): reports 'y j', counting in O(k'·d), the pool's exact channel inverted by the server.

    Parameters
    ----------
    epsilon : float
        The privacy budget ε of one report (GRR on [g] of the pool hash H_j(v)).
    d : int
        The number of values (codes in [0, d)); the server's hash matrix is k' × d.
    g : int, optional
        The hash range, 2 ≤ g < 2³²; None: OLH's default round(e^ε + 1), capped at 2¹⁶.
    pool : int, default 10000
        k', the number of hash functions in the public pool (XXH32 seeds 0 … k' − 1), in [1, 2²⁰].

    Raises
    ------
    InvalidInput
        When g ≥ 2³² (XXH32 digests are 32-bit).

    References
    ----------
    Cormode, Maddock, Maple, "Frequency Estimation under Local Differential Privacy" (VLDB 2021), §4.3 (FLH);
    consistency paper, §III-B, Eq. (2) (OLH's estimate, which FLH's tends to as k' → ∞).
    """

    name = "flh"
    display_name = "FLH (fast local hashing)"
    description = "Fast local hashing: OLH with hash functions from a fixed public pool of k' functions"
    paper = FLH_PAPER
    report_format = ("two integers 'y j': the randomized hash value y and the pool index j of the hash "
                     "H_j(v) = XXH32(str(v), seed=j) mod g (pure-LDP's FastLH (value, seed) tuple)")
    communication = "O(log k' + log g)"
    lecture_formula = "4e^ε / (e^ε − 1)²  (OLH's, as k' → ∞)"
    pure = False
    fast_engine_exact = False
    fast_engine_note = ("independent binomial support counts C(u) = Σ_v Binomial(n_v, S[v, u]) with the pool's exact "
                        "support probabilities: exact marginals, but not the cross-covariances (a report supports "
                        "the about d/g values of its hash bucket together)")
    extra_parameters = (
        Param("g", int, "hash range g (default round(e^ε + 1), as OLH)", low=2, optional=True),
        Param("pool", int, "k': number of hash functions in the public pool (XXH32 seeds 0 … k' − 1)",
              default=10_000, low=1, high=1 << 20),
    )
    mga_studied: ClassVar[bool] = False

    _default_g = OLH._default_g
    _epsilon_breakpoints = OLH.__dict__["_epsilon_breakpoints"]

    def _setup(self) -> None:
        if self._params.get("g") is None:
            self._params["g"] = self._default_g()
        if self.g >= 2**32:
            raise InvalidInput(f"{self.name}: g must be below 2^32 (XXH32 digests are 32-bit), got {self.g}")

    @property
    def g(self) -> int:
        return self._params["g"]

    @property
    def pool(self) -> int:
        """k': the number of hash functions in the public pool."""
        return self._params["pool"]

    def hash_matrix(self) -> np.ndarray:
        """The server's precomputed k' × d matrix H[j, v] = XXH32(str(v), seed=j) mod g."""
        return pool_hash_matrix(self.pool, self.d, self.g)

    def collisions(self) -> np.ndarray:
        """K[u, w]: the fraction of the pool's functions that hash u and w together."""
        return pool_collisions(self.pool, self.d, self.g)

    def _hashed_probabilities(self) -> tuple[float, float]:
        return grr_probabilities(self.epsilon, self.g)

    def _probabilities(self) -> tuple[float, float]:
        # p* of the user's own value; q* = 1/g the ideal (k' → ∞) probability for another value (the paper's)
        return self._hashed_probabilities()[0], 1.0 / self.g

    def support_matrix(self) -> np.ndarray:
        """S[v, u] = Pr[a report of v supports u] = q + (p − q)·K[v, u] for this pool."""
        p, q = self._hashed_probabilities()
        return q + (p - q) * self.collisions()

    def _inverse_collisions(self) -> np.ndarray:
        return self._cached("kinv", lambda: inverse_collisions(self.collisions(), self.name, f"a pool of {self.pool} "
                                                              "hash functions", "use a larger pool"))

    # ------------------------------------------------------------------ client
    def report_width(self) -> int:
        return 3

    def _perturb(self, values: np.ndarray, rng: RandomSource) -> np.ndarray:
        j = rng.integers(0, self.pool, size=values.shape[0])
        hashed = self.hash_matrix()[j, values]
        y = grr_randomize(hashed, self._hashed_probabilities()[0], self.g, rng)
        return np.stack([y, j], axis=1)

    # ------------------------------------------------------------------ server
    def _validate_reports(self, reports: np.ndarray) -> np.ndarray:
        if reports.ndim != 2 or reports.shape[1] != 2:
            raise InvalidInput(f"{self.name}: each report must be 'y j', got shape {reports.shape}")
        reports = check_int_reports(self.name, reports, 0, max(self.pool, self.g), "report fields")
        if np.any(reports[:, 0] >= self.g):
            raise InvalidInput(f"{self.name}: hashed values must lie in [0, g={self.g})")
        if np.any(reports[:, 1] >= self.pool):
            raise InvalidInput(f"{self.name}: pool indices must lie in [0, k'={self.pool})")
        return reports

    def _parse_line(self, line: str) -> list[int]:
        if (line[0], line[-1]) in (("(", ")"), ("[", "]")):  # the library's tuple, as Python prints it
            line = line[1:-1]
        return super()._parse_line(line.replace(",", " "))

    def report_columns(self) -> int:
        return 2

    def _report_range(self) -> tuple[float, float]:
        return 0.0, 1.0  # support counts: a report supports a value or not

    def _support_counts(self, reports: np.ndarray) -> np.ndarray:
        hashes = self.hash_matrix()
        y, j = reports[:, 0], reports[:, 1]
        if self.pool * self.g <= max(1 << 20, 4 * reports.shape[0]):
            hist = np.bincount(j * self.g + y, minlength=self.pool * self.g).reshape(self.pool, self.g)
            return np.take_along_axis(hist, hashes, axis=1).sum(axis=0).astype(np.float64)
        keys, counts = np.unique(j * self.g + y, return_counts=True)  # at most n distinct (j, y)
        jj, yy = keys // self.g, keys % self.g
        total = np.zeros(self.d)
        rows = max(1, (1 << 22) // self.d)
        for s in range(0, keys.shape[0], rows):
            hit = hashes[jj[s:s + rows]] == yy[s:s + rows, None]
            total += counts[s:s + rows] @ hit
        return total

    def _sample_counts(self, true_counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        c = np.asarray(true_counts, dtype=np.int64)
        live = np.flatnonzero(c)
        return rng.binomial(c[live, None], self.support_matrix()[live]).sum(axis=0).astype(np.float64)

    def _expected_aggregate(self, true_counts: np.ndarray, support: np.ndarray | None) -> np.ndarray:
        return true_counts.astype(np.float64) @ self.support_matrix()

    def _aggregate_variance(self, true_counts: np.ndarray, support: np.ndarray | None) -> np.ndarray:
        s = self.support_matrix()
        return true_counts.astype(np.float64) @ (s * (1 - s))

    # ------------------------------------------------------------------ estimation
    def invert(self, counts: np.ndarray, n: int) -> np.ndarray:
        """The pool's exact matrix inversion f̂ = K⁻¹(C/n − q)/(p − q) (row-wise on a (trials, d) array); unbiased
        for this pool, where the paper's (C − n/g)/(n(p − 1/g)) is not (module docstring)."""
        p, q = self._hashed_probabilities()
        c = np.asarray(counts, dtype=np.float64)
        return ((c / n - q) @ self._inverse_collisions()) / (p - q)

    def paper_estimate(self, counts: np.ndarray, n: int) -> np.ndarray:
        """The paper's (and pure-LDP's) estimate (C − n/g)/(n(p − 1/g)): exact as k' → ∞, biased for a finite pool."""
        p = self._hashed_probabilities()[0]
        return (np.asarray(counts, dtype=np.float64) - n / self.g) / (n * (p - 1.0 / self.g))

    def ideal_variance(self, freqs: np.ndarray | float, n: int) -> np.ndarray:
        """OLH's variance with q* = 1/g, [f p(1 − p) + (1 − f) q*(1 − q*)]/(n (p − q*)²): FLH's as k' → ∞."""
        return super().variance(freqs, n)

    def variance(self, freqs: np.ndarray | float, n: int) -> np.ndarray:
        """Variance of this pool's matrix-inversion estimate for the population with frequencies ``freqs`` (a vector
        of d frequencies): exact, from the pool's pair structure (O(k'·d²)). Given anything else (one frequency,
        other shapes) the population is unknown and the answer is :meth:`ideal_variance`, the k' → ∞ limit. Inverting
        the whole collision matrix also uses Σ_v f_v = 1 and removes about 1/d of the collision noise: for large k' the
        exact variance is OLH's times about (1 − 1/d) (6 % below it at d = 16, 1.4 % at d = 64)."""
        f = np.asarray(freqs, dtype=np.float64)
        ideal = self.ideal_variance(freqs, n)  # validates f and n
        if f.shape != (self.d,):
            return ideal
        p, q = self._hashed_probabilities()
        s = self.support_matrix()
        # Σ_v f_v Pr[supports u and w | v] = (1/k') Σ_j 1[H_j(u) = H_j(w)] (q + (p − q) Σ_v f_v 1[H_j(v) = H_j(u)])
        second = np.zeros((self.d, self.d))
        for eq in _pair_blocks(self.hash_matrix()):
            weight = q + (p - q) * (eq @ f)  # (block, d): the weight of u's bucket under each function
            second += (eq * weight[:, :, None]).sum(axis=0)
        second /= self.pool
        cov = second - s.T @ (f[:, None] * s)  # per-user covariance of the support indicators, averaged over f
        kinv = self._inverse_collisions()
        return np.einsum("ij,jk,ki->i", kinv, cov, kinv) / (n * (p - q) ** 2)

    # ------------------------------------------------------------------ privacy and reports
    def _output_count(self) -> int:
        return self.pool * self.g

    def _channel(self) -> tuple[np.ndarray, list[str]]:
        p, q = self._hashed_probabilities()
        hashes = self.hash_matrix()
        m = np.where(hashes.T[:, :, None] == np.arange(self.g)[None, None, :], p, q) / self.pool
        labels = [f"{y} {j}" for j in range(self.pool) for y in range(self.g)]
        return m.reshape(self.d, -1), labels

    def _attack_success(self, prior: np.ndarray) -> float | None:
        if self.d * self.output_count() > 1 << 22:  # no closed form for a finite pool: enumerate small channels only
            return None
        return float((prior[:, None] * self.channel(max_outputs=1 << 22)[0]).max(axis=0).sum())

    def _report_bits(self) -> int:
        return ceil_log2(self.pool) + ceil_log2(self.g)

    def report_bits_formula(self) -> str:
        return "⌈log₂ k'⌉ + ⌈log₂ g⌉ (the pool index j and the value y)"

    def _report_supports(self, reports: np.ndarray, v: int) -> np.ndarray:
        return self.hash_matrix()[reports[:, 1], v] == reports[:, 0]

    def _explain_report(self, report_text: str) -> str:
        y, j = report_text.replace(",", " ").strip("()[] ").split()
        return (f"Hash number {j} of the public pool, H(v) = XXH32(str(v), seed={j}) mod {self.g}, and a randomized "
                f"hashed value y = {y}: the report supports every v with H(v) = y.")

    def lecture_variance(self) -> float:
        e = math.exp(self.epsilon)
        return 4 * e / (e - 1) ** 2

    def _randomizer_parameters(self) -> dict[str, Any] | None:
        return None
