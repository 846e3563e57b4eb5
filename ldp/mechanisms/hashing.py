"""Hash-based frequency oracles: BLH and OLH (local hashing) and HR (Hadamard response).

Hash family (our choice; the IBU paper §3.1 only asks for a universal family): Carter–Wegman
H_{a,b}(v) = ((a v + b) mod P) mod g with a ∈ [1, P), b ∈ [0, P) and P a prime ≥ max(d, g). For
v ≠ v' the pair ((a v + b) mod P, (a v' + b) mod P) is uniform over ordered pairs of distinct
residues, so the collision probability c = Σ_y m_y (m_y − 1) / (P (P − 1)), with m_y = #{r < P :
r mod g = y}, is the same for every pair. Hence LH is pure with p* = p and the *exact*
q* = p c + q (1 − c), which tends to the paper's 1/g as P grows; matrix inversion is exactly
unbiased for this family.

Server-side support counting never evaluates n × d hashes. With a small prime P it groups users
by a: for a fixed a, user i supports v iff ((z + b_i) mod P) mod g = y_i with z = a v mod P, a
cyclic cross-correlation over Z_P computed by FFT (cost independent of n), or, when g is large,
it enumerates each report's support set {a⁻¹(r − b) : r ≡ y (mod g)} (P/g candidates per report).
"""

from __future__ import annotations

import math

import numpy as np

from ldp.mechanisms.base import Mechanism, check_int_reports
from ldp.mechanisms.categorical import IBU_PAPER, LECTURE, grr_probabilities, grr_randomize
from ldp.mechanisms.sampling import binomial_support_counts
from ldp.params import Param
from ldp.randomness import RandomSource, bernoulli
from ldp.registry import MECHANISMS


def next_prime(n: int) -> int:
    """Smallest prime ≥ n (n small enough for trial division)."""
    n = max(2, int(n))
    while True:
        if n < 4 or all(n % f for f in range(2, math.isqrt(n) + 1)):
            if n >= 2:
                return n
        n += 1


def residue_class_sizes(prime: int, g: int) -> np.ndarray:
    """m_y = #{r in [0, P): r mod g = y} for y in [0, g)."""
    return prime // g + (np.arange(g) < prime % g).astype(np.int64)


def collision_probability(prime: int, g: int) -> float:
    m = residue_class_sizes(prime, g).astype(np.float64)
    return float((m * (m - 1)).sum() / (prime * (prime - 1)))


def cw_hash(a: np.ndarray, b: np.ndarray, v: np.ndarray, prime: int, g: int) -> np.ndarray:
    """H_{a,b}(v) = ((a v + b) mod P) mod g, vectorized (int64; a v < 2^63 for P < 2^31)."""
    return ((a * v + b) % prime) % g


def lh_support_counts(a: np.ndarray, b: np.ndarray, y: np.ndarray, d: int, prime: int, g: int) -> np.ndarray:
    """C(v) = #{i : H_{a_i,b_i}(v) = y_i} for v in [0, d), exactly, choosing the cheaper algorithm."""
    n = a.shape[0]
    fft_cost = (prime - 1) * g * prime * max(1.0, math.log2(prime)) * 1.5
    enum_cost = n * (prime / g + 1) * 6.0
    if fft_cost <= enum_cost:
        return _lh_counts_fft(a, b, y, d, prime, g)
    return _lh_counts_enumerate(a, b, y, d, prime, g)


def _lh_counts_fft(a: np.ndarray, b: np.ndarray, y: np.ndarray, d: int, prime: int, g: int) -> np.ndarray:
    # G_a(z) = Σ_y Σ_b C[a, y, b] M_y[(z + b) mod P] with M_y[t] = 1[t mod g = y]: a cyclic
    # cross-correlation, i.e. irfft(conj(F C) · F M). Then C(v) = Σ_a G_a(a v mod P).
    freq_m = np.fft.rfft((np.arange(prime)[None, :] % g) == np.arange(g)[:, None], axis=-1)
    total = np.zeros(d)
    v = np.arange(d)
    block = max(1, (1 << 24) // max(1, g * prime))
    key_all = ((a - 1) * g + y) * prime + b
    order = np.argsort(a, kind="stable")
    sorted_a = a[order]
    for start in range(1, prime, block):
        stop = min(prime, start + block)
        lo, hi = np.searchsorted(sorted_a, [start, stop])
        if lo == hi:
            continue
        keys = key_all[order[lo:hi]] - (start - 1) * g * prime
        cube = np.bincount(keys, minlength=(stop - start) * g * prime).reshape(stop - start, g, prime)
        spec = (np.conj(np.fft.rfft(cube, axis=-1)) * freq_m[None]).sum(axis=1)
        corr = np.fft.irfft(spec, n=prime, axis=-1)
        aa = np.arange(start, stop)
        total += corr[np.arange(stop - start)[:, None], (aa[:, None] * v[None, :]) % prime].sum(axis=0)
    return np.rint(total)


def _lh_counts_enumerate(a: np.ndarray, b: np.ndarray, y: np.ndarray, d: int, prime: int, g: int) -> np.ndarray:
    inverse = np.array([0] + [pow(int(x), prime - 2, prime) for x in range(1, prime)], dtype=np.int64)
    width = -(-prime // g)
    steps = np.arange(width, dtype=np.int64) * g
    counts = np.zeros(max(d, prime), dtype=np.int64)
    chunk = max(1, (1 << 22) // width)
    for s in range(0, a.shape[0], chunk):
        r = y[s:s + chunk, None] + steps[None, :]
        ok = r < prime
        v = (inverse[a[s:s + chunk]][:, None] * (r - b[s:s + chunk, None])) % prime
        counts += np.bincount(v[ok], minlength=counts.shape[0])
    return counts[:d].astype(np.float64)


class LocalHashing(Mechanism):
    """Shared machinery of BLH, OLH and the longitudinal L-BLH, L-OLH.

    Reports are rows (a, b, y): the hash function's parameters and the randomized hash value.
    Subclasses set ``g`` and how the hashed value is randomized (one or two GRR steps on [g]).
    """

    family = "lh"
    report_format = "three integers 'a b y': hash H(v) = ((a·v + b) mod P) mod g and the randomized value y"
    communication = "O(log d)"
    fast_engine_exact = False

    @property
    def g(self) -> int:
        return self._params["g"]

    @property
    def prime(self) -> int:
        return self._params["prime"]

    def _setup(self) -> None:
        if self._params.get("g") is None:
            self._params["g"] = self._default_g()
        if self._params.get("prime") is None:
            self._params["prime"] = next_prime(max(self.d, self.g, 3))
        prime = self._params["prime"]
        if prime < self.d or next_prime(prime) != prime or prime >= 2**31:
            raise ValueError(f"{self.name}: prime must be a prime in [d, 2^31), got {prime}")

    def _default_g(self) -> int:
        """g when not given: 2 (binary hashing); OLH and L-OLH derive it from ε."""
        return 2

    def _hashed_probabilities(self) -> tuple[float, float]:
        """(keep, other) probabilities of the randomizer on the hashed domain [g]."""
        return grr_probabilities(self.epsilon, self.g)

    def _randomize_hashed(self, hashed: np.ndarray, rng: RandomSource) -> np.ndarray:
        return grr_randomize(hashed, self._hashed_probabilities()[0], self.g, rng)

    def _probabilities(self) -> tuple[float, float]:
        keep, other = self._hashed_probabilities()
        c = collision_probability(self.prime, self.g)
        return keep, keep * c + other * (1 - c)

    def report_width(self) -> int:
        return 4

    def _perturb(self, values: np.ndarray, rng: RandomSource) -> np.ndarray:
        m = values.shape[0]
        a = rng.integers(1, self.prime, size=m)
        b = rng.integers(0, self.prime, size=m)
        y = self._randomize_hashed(cw_hash(a, b, values, self.prime, self.g), rng)
        return np.stack([a, b, y], axis=1)

    def _validate_reports(self, reports: np.ndarray) -> np.ndarray:
        if reports.ndim != 2 or reports.shape[1] != 3:
            raise ValueError(f"{self.name}: each report must be 'a b y', got shape {reports.shape}")
        reports = check_int_reports(self.name, reports, 0, max(self.prime, self.g), "report fields")
        if np.any(reports[:, 0] < 1) or np.any(reports[:, 0] >= self.prime) or np.any(reports[:, 1] >= self.prime):
            raise ValueError(f"{self.name}: hash parameters must satisfy 1 ≤ a < P={self.prime}, 0 ≤ b < P")
        if np.any(reports[:, 2] >= self.g):
            raise ValueError(f"{self.name}: hashed values must lie in [0, g={self.g})")
        return reports

    def _support_counts(self, reports: np.ndarray) -> np.ndarray:
        return lh_support_counts(reports[:, 0], reports[:, 1], reports[:, 2], self.d, self.prime, self.g)

    def _sample_counts(self, true_counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return binomial_support_counts(true_counts, self.p_star, self.q_star, rng)

    def _output_count(self) -> int:
        return self.prime * (self.prime - 1) * self.g

    def _channel(self) -> tuple[np.ndarray, list[str]]:
        keep, other = self._hashed_probabilities()
        aa, bb = np.meshgrid(np.arange(1, self.prime), np.arange(self.prime), indexing="ij")
        aa, bb = aa.ravel(), bb.ravel()
        weight = 1.0 / aa.size
        m = np.empty((self.d, aa.size * self.g))
        for v in range(self.d):
            h = cw_hash(aa, bb, np.int64(v), self.prime, self.g)
            probs = np.where(h[:, None] == np.arange(self.g)[None, :], keep, other)
            m[v] = (weight * probs).ravel()
        labels = [f"{a} {b} {y}" for a, b in zip(aa, bb, strict=True) for y in range(self.g)]
        return m, labels


@MECHANISMS.register
class BLH(LocalHashing):
    """Binary local hashing (Bassily & Smith 2015): hash to g = 2 values, then GRR."""

    name = "blh"
    display_name = "BLH"
    description = "Binary local hashing: hash the value to one bit with a random hash, then randomized response"
    paper = IBU_PAPER + ", §3.1 (LH, g = 2)"
    extra_parameters = (Param("g", int, "hash range (always 2 for BLH)", default=2, choices=(2,)),
                        Param("prime", int, "prime P of the hash family (default: smallest prime ≥ d)",
                              low=3, optional=True))



@MECHANISMS.register
class OLH(LocalHashing):
    """Optimized local hashing (Wang et al. 2017): g = round(e^ε + 1), then GRR on [g]."""

    name = "olh"
    display_name = "OLH"
    description = "Optimized local hashing: hash to g = round(e^ε+1) values, then randomized response"
    paper = IBU_PAPER + ", §3.1 (LH); g = round(e^ε + 1) as in Wang et al. 2017"
    extra_parameters = (
        Param("g", int, "hash range g (default round(e^ε + 1))", low=2, optional=True),
        Param("prime", int, "prime P of the hash family (default: smallest prime ≥ max(d, g))", low=3,
              optional=True),
    )

    def _default_g(self) -> int:
        return max(2, int(round(math.exp(self.epsilon) + 1)))


def fwht(x: np.ndarray) -> np.ndarray:
    """Fast Walsh–Hadamard transform (unnormalized, Sylvester order) of a length-2^m vector."""
    y = np.array(x, dtype=np.float64)
    h = 1
    size = y.shape[0]
    while h < size:
        y = y.reshape(-1, 2, h)
        y = np.stack([y[:, 0] + y[:, 1], y[:, 0] - y[:, 1]], axis=1).reshape(size)
        h *= 2
    return y


@MECHANISMS.register
class HR(Mechanism):
    """Hadamard response, BLH-like with g = 2 (lecture): each user picks a uniform row j of the
    K × K Sylvester–Hadamard matrix (K = 2^⌈log₂ d⌉), hashes v to the bit parity(j AND v) and
    reports (j, GRR₂(bit)). For v ≠ v' the bits agree for exactly half of the rows, so HR is pure
    with p* = e^ε/(e^ε+1) and q* = 1/2, and the server counts all supports with one fast
    Walsh–Hadamard transform in O(n + K log K)."""

    name = "hr"
    display_name = "HR (Hadamard response)"
    family = "hr"
    description = "Hadamard response: a random Hadamard row as the hash, one randomized bit (BLH-like, g = 2)"
    paper = LECTURE + " (Hadamard response, Acharya–Sun–Zhang 2018)"
    report_format = "two integers 'j y': Hadamard row j in [0, K) and the randomized bit y"
    communication = "O(log d)"
    fast_engine_exact = False

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
            raise ValueError(f"{self.name}: each report must be 'j y', got shape {reports.shape}")
        reports = check_int_reports(self.name, reports, 0, self.rows, "report fields")
        if np.any(reports[:, 1] > 1):
            raise ValueError(f"{self.name}: the reported bit must be 0 or 1")
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
