"""Local hashing frequency oracles: BLH and OLH (and the machinery L-BLH and L-OLH share).

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

Option ``hash="xxh32"`` (on BLH, OLH, L-BLH, L-OLH) uses instead the hash of the IBU paper's reference
implementation, multi-freq-ldpy (``LH_Client``, ``L_LH_Client``): H_s(v) = XXH32(str(v), seed s) mod g
with a seed s drawn uniformly from [0, 2^63 − 1) (``np.random.randint(0, sys.maxsize)``; XXH32 uses
s mod 2^32, see :mod:`ldp.mechanisms.frequency.xxh32`), and reports are ``y s`` — the reference's tuple
(sanitized value, seed) — so ``ldp aggregate`` reads reports produced by that library. XXH32 is not
an exactly pairwise-independent family, so the exact q* cannot be derived (nor the channel enumerated:
``channel()`` raises ``ValueError``); we use the ideal-hash value q* = 1/g of the reference
implementation (its server sets q = 1/g), with p* = p of the randomizer on [g]. Support counting
evaluates XXH32 for users × values in bounded chunks (vectorized, O(n d) work).

Option ``hash="mix64"`` (our choice, for domains too large to enumerate: the prefix domains of the heavy-hitter
protocols, up to 2^64 values) hashes the value's 64 bits with a seeded SplitMix64 finalizer,
H_s(v) = mix(v·φ ⊕ s) mod g (φ = 0x9E3779B97F4A7C15, :func:`mix64_hash`), with a fresh seed s uniform on [0, 2^63)
per user; reports are ``y s`` as with XXH32, and q* = 1/g (the ideal-hash value: for a fixed seed the report is
GRR on [g] of the hash, so ε-LDP holds whatever the hash; the hash only affects q*). It is the one family that
works on any 64-bit integer, so it is what :meth:`OLH.over_bits` uses beyond ``DOMAIN_SIZE``; the server counts
supports for a list of candidates (:meth:`~ldp.mechanisms.frequency.base.FrequencyOracle.estimate_candidates`),
never for the whole domain.
"""

from __future__ import annotations

import functools
import math
import warnings
from typing import Any, ClassVar

import numpy as np

from ldp.core.cancellation import checkpoint
from ldp.core.errors import InvalidInput, NotAvailable
from ldp.core.params import Param
from ldp.core.randomness import RandomSource, check_random_source
from ldp.core.registry import MECHANISMS
from ldp.maths.primes import is_prime, next_prime
from ldp.mechanisms.base import ceil_log2, check_int_reports
from ldp.mechanisms.frequency.base import IBU_PAPER, FrequencyOracle, first_hit_success
from ldp.mechanisms.frequency.grr import grr_probabilities, grr_randomize
from ldp.mechanisms.frequency.sampling import binomial_support_counts
from ldp.mechanisms.frequency.xxh32 import seed32, xxh32_decimal

__all__ = ["ATTACK_BATCH_CELLS", "ATTACK_BATCH_FUNCTIONS", "ATTACK_EXACT_CELLS", "ATTACK_EXACT_FUNCTIONS",
           "ATTACK_MAX_CELLS", "ATTACK_TABLE_G", "ATTACK_TOLERANCE", "BLH", "G_CAP", "HASH", "HASH_FAMILIES",
           "MAX_PRIME", "MGA_HASH_CELLS", "MGA_HASH_SEARCH", "MIX64_BLOCK_CELLS", "MIX64_REPORT_FORMAT",
           "MIX64_SEED_HIGH", "OLH", "XXH32_BLOCK_CELLS", "XXH32_REPORT_FORMAT", "XXH32_SEED_HIGH", "LocalHashing",
           "collision_probability", "cw_attack_gain", "cw_candidate_counts", "cw_hash", "lh_support_counts", "mix64",
           "mix64_candidate_counts", "mix64_hash", "residue_class_sizes", "xxh32_hash", "xxh32_support_counts"]


def residue_class_sizes(prime: int, g: int) -> np.ndarray:
    """m_y = #{r in [0, P): r mod g = y} for y in [0, g).

    Parameters
    ----------
    prime : int
        The modulus P of the Carter–Wegman family.
    g : int
        The hash range.

    Returns
    -------
    numpy.ndarray
        The class sizes m_y, int64 of shape (g,): ⌊P/g⌋ + 1 for y < P mod g, ⌊P/g⌋ otherwise (summing to P).
    """
    return prime // g + (np.arange(g) < prime % g).astype(np.int64)


@functools.lru_cache(maxsize=256)
def collision_probability(prime: int, g: int) -> float:
    """c = Σ_y m_y (m_y − 1)/(P (P − 1)): the probability that H_{a,b}(v) = H_{a,b}(v') for v ≠ v' over the
    Carter–Wegman family (the module docstring's derivation; the same for every pair of values).

    Parameters
    ----------
    prime : int
        The prime P of the family (P ≥ 2).
    g : int
        The hash range.

    Returns
    -------
    float
        The collision probability c, below 1/g when P ≥ g (the default prime; it tends to 1/g as P grows) and 0
        when P < g; LH's exact
        q* = p c + q (1 − c).

    References
    ----------
    IBU vs matrix inversion paper, §3.1 "Local Hashing (LH)" (its q* = 1/g is this c's ideal-hash limit; the exact
    c for the Carter–Wegman family is derived in the module docstring).
    """
    m = residue_class_sizes(int(prime), int(g)).astype(np.float64)  # cached: every LH mechanism built asks for it
    return float((m * (m - 1)).sum() / (prime * (prime - 1)))


#: Hash functions the maximal-gain attack searches (exhaustively below this many, else a fixed sample).
MGA_HASH_SEARCH = 1 << 20
#: Most (hash function, target) pairs the search holds at once (fewer functions are sampled for many targets).
MGA_HASH_CELLS = 1 << 23


def cw_hash(a: np.ndarray, b: np.ndarray, v: np.ndarray, prime: int, g: int) -> np.ndarray:
    """H_{a,b}(v) = ((a v + b) mod P) mod g, vectorized (int64; a v < 2^63 for P < 2^31).

    Parameters
    ----------
    a : numpy.ndarray
        Multipliers in [1, P) (int64), broadcast against ``b`` and ``v``.
    b : numpy.ndarray
        Offsets in [0, P) (int64).
    v : numpy.ndarray
        Values, non-negative integers below P (int64).
    prime : int
        The prime P < 2³¹.
    g : int
        The hash range.

    Returns
    -------
    numpy.ndarray
        The hashes in [0, g), int64, of the broadcast shape of ``a``, ``b`` and ``v``.

    References
    ----------
    IBU vs matrix inversion paper, §3.1 "Local Hashing (LH)" (a universal family H : D → [g]; Carter–Wegman is our
    choice, see the module docstring).
    """
    return ((a * v + b) % prime) % g


# Bayes attacker on a Carter–Wegman report: (hash function, value) cells enumerated exactly up to this budget;
# beyond, uniformly sampled functions in batches of about ATTACK_BATCH_CELLS cells until the 95 % half-width is
# below ATTACK_TOLERANCE (or ATTACK_MAX_CELLS cells, with a warning).
ATTACK_EXACT_CELLS = 1 << 25
ATTACK_EXACT_FUNCTIONS = 1 << 20
ATTACK_BATCH_CELLS = 1 << 22
ATTACK_BATCH_FUNCTIONS = 1 << 15
ATTACK_MAX_CELLS = 1 << 28
ATTACK_TOLERANCE = 1e-4
# Up to this g, buckets are tracked in a functions × g table (functions drop out once every bucket is taken);
# above it, each function's hashed values are sorted to find the first value of each bucket.
ATTACK_TABLE_G = 64


def _first_new_gains(a: np.ndarray, b: np.ndarray, values: np.ndarray, weights: np.ndarray, prime: int,
                     g: int) -> np.ndarray:
    """X_f = Σ_j w_j·1[H_f(v_j) ∉ {H_f(v_1), …, H_f(v_{j−1})}] for each hash function f = (a_f, b_f)."""
    if g <= ATTACK_TABLE_G:
        f = a.shape[0]
        seen = np.zeros((f, g), dtype=bool)
        taken = np.zeros(f, dtype=np.int64)
        gains = np.zeros(f)
        active = np.arange(f)
        for v, w in zip(values.tolist(), weights.tolist(), strict=True):
            if active.size == 0:  # every function has all g buckets taken: no later value is first in its bucket
                break
            h = cw_hash(a[active], b[active], np.int64(v), prime, g)
            new = ~seen[active, h]
            rows = active[new]
            gains[rows] += w
            seen[rows, h[new]] = True
            taken[rows] += 1
            active = active[taken[active] < g]
        return gains
    k = values.shape[0]
    keys = cw_hash(a[:, None], b[:, None], values[None, :], prime, g) * k + np.arange(k)[None, :]
    keys.sort(axis=1)
    first = np.ones(keys.shape, dtype=bool)
    first[:, 1:] = keys[:, 1:] // k != keys[:, :-1] // k
    return np.where(first, weights[keys % k], 0.0).sum(axis=1)


def _gains_in_blocks(a: np.ndarray, b: np.ndarray, values: np.ndarray, weights: np.ndarray, prime: int,
                     g: int) -> np.ndarray:
    rows = max(1, ATTACK_BATCH_CELLS // max(1, values.shape[0]))
    return np.concatenate([_first_new_gains(a[s:s + rows], b[s:s + rows], values, weights, prime, g)
                           for s in range(0, a.shape[0], rows)])


def cw_attack_gain(values: np.ndarray, weights: np.ndarray, prime: int, g: int) -> tuple[float, float]:
    """E_f[X_f] over the Carter–Wegman family {H_{a,b} : 1 ≤ a < P, 0 ≤ b < P} (see :func:`_first_new_gains`)
    and its standard error: 0 when all P(P − 1) functions are enumerated (at most ``ATTACK_EXACT_CELLS``
    function × value cells and ``ATTACK_EXACT_FUNCTIONS`` functions), else the Monte Carlo standard error of
    uniformly sampled functions (a fixed stream keyed by P and g, so the answer is reproducible), sampled
    until the 95 % half-width is below ``ATTACK_TOLERANCE``; a warning says so if ``ATTACK_MAX_CELLS``
    cells do not get there.

    Parameters
    ----------
    values : numpy.ndarray
        The candidate values v_1, v_2, … in the attacker's order (int64, shape (k,), below P): a value scores only
        if no earlier value of the list hashes to its bucket.
    weights : numpy.ndarray
        The weight w_j of each value (float, shape (k,)), e.g. the attacker's sorted prior.
    prime : int
        The prime P of the family.
    g : int
        The hash range.

    Returns
    -------
    tuple of float
        ``(mean, standard_error)``: E_f[X_f] with X_f = Σ_j w_j·1[H_f(v_j) is a new bucket], and its standard
        error (0.0 when every function was enumerated).

    Warns
    -----
    UserWarning
        When the Monte Carlo half-width stays above ``ATTACK_TOLERANCE`` after ``ATTACK_MAX_CELLS`` cells.
    """
    functions = prime * (prime - 1)
    k = max(1, values.shape[0])
    if functions * k <= ATTACK_EXACT_CELLS and functions <= ATTACK_EXACT_FUNCTIONS:
        total = 0.0
        chunk = max(1, ATTACK_BATCH_CELLS // k)
        for start in range(0, functions, chunk):
            idx = np.arange(start, min(functions, start + chunk), dtype=np.int64)
            total += float(_gains_in_blocks(1 + idx // prime, idx % prime, values, weights, prime, g).sum())
        return total / functions, 0.0
    rng = np.random.default_rng([prime, g, 0x0A77AC])
    batch = min(ATTACK_BATCH_FUNCTIONS, max(1024, ATTACK_BATCH_CELLS // k))
    parts: list[np.ndarray] = []
    while True:
        parts.append(_gains_in_blocks(rng.integers(1, prime, size=batch), rng.integers(0, prime, size=batch),
                                      values, weights, prime, g))
        x = np.concatenate(parts)
        se = float(np.std(x, ddof=1) / math.sqrt(x.size))
        if 1.96 * se < ATTACK_TOLERANCE:
            return float(x.mean()), se
        if x.size * k >= ATTACK_MAX_CELLS:
            warnings.warn(f"Bayes attacker on Carter–Wegman hashing (P={prime}, g={g}): {x.size:,} sampled hash "
                          f"functions give ±{1.96 * se:.1e} (95 %), not the ±{ATTACK_TOLERANCE:g} aimed at",
                          stacklevel=3)
            return float(x.mean()), se


HASH_FAMILIES = ("cw", "xxh32", "mix64")
HASH = Param("hash", str, "hash family: 'cw' (Carter–Wegman ((a·v + b) mod P) mod g, exact q*), 'xxh32' "
             "(XXH32(str(v), seed) mod g with a 63-bit seed, as the reference implementation multi-freq-ldpy; "
             "reports 'y seed', q* = 1/g) or 'mix64' (a seeded SplitMix64 of the value's 64 bits, for domains too "
             "large to enumerate; reports 'y seed', q* = 1/g)", default="cw", choices=HASH_FAMILIES)
# Seeds of hash="xxh32" are uniform on [0, XXH32_SEED_HIGH): numpy.random.randint(0, sys.maxsize) as the reference.
XXH32_SEED_HIGH = 2**63 - 1
XXH32_REPORT_FORMAT = ("two integers 'y seed': the randomized hash value y and the seed s of the hash "
                       "H(v) = XXH32(str(v), seed=s) mod g (multi-freq-ldpy's (sanitized value, seed) tuple)")
# Cells (users × values) of one block of XXH32 evaluations when counting supports.
XXH32_BLOCK_CELLS = 1 << 20
# Seeds of hash="mix64" are uniform on [0, MIX64_SEED_HIGH) (they fit the int64 report rows).
MIX64_SEED_HIGH = 2**63
MIX64_REPORT_FORMAT = ("two integers 'y seed': the randomized hash value y and the seed s of the hash "
                       "H(v) = SplitMix64(v·φ xor s) mod g over 64-bit integers v")
#: (users × candidates) cells per block of mix64 support counting: small enough for the hash's in-place passes to
#: stay in the CPU cache (about 6x faster than blocks of 2^22 cells out of cache).
MIX64_BLOCK_CELLS = 1 << 16

_MIX1, _MIX2, _GOLDEN = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB), np.uint64(0x9E3779B97F4A7C15)
_MIX_STEPS = ((np.uint64(30), _MIX1), (np.uint64(27), _MIX2), (np.uint64(31), None))


def mix64(x: np.ndarray) -> np.ndarray:
    """SplitMix64's finalizer (a bijection of uint64 with full avalanche), wrapping arithmetic.

    x ^= x >> 30; x *= 0xBF58476D1CE4E5B9; x ^= x >> 27; x *= 0x94D049BB133111EB; x ^= x >> 31.

    Parameters
    ----------
    x : numpy.ndarray
        The 64-bit words to mix, any shape (converted to a uint64 copy; the input is not modified).

    Returns
    -------
    numpy.ndarray
        The mixed words, uint64, same shape as ``x``.
    """
    x = np.array(x, dtype=np.uint64)
    t = np.empty_like(x)
    with np.errstate(over="ignore"):
        for shift, mult in _MIX_STEPS:
            np.right_shift(x, shift, out=t)
            x ^= t
            if mult is not None:
                x *= mult
    return x


def mix64_hash(values: np.ndarray, seeds: np.ndarray, g: int) -> np.ndarray:
    """H_s(v) = mix64(v·φ xor s) mod g (int64) for broadcastable 64-bit integers v (int64 codes or uint64 values,
    read as their 64 bits) and seeds s.

    Parameters
    ----------
    values : numpy.ndarray
        The values v, int64 codes or uint64 integers (any 64-bit pattern), broadcast against ``seeds``.
    seeds : numpy.ndarray
        The seeds s (read as their 64 bits).
    g : int
        The hash range, at least 1.

    Returns
    -------
    numpy.ndarray
        The hashes in [0, g), int64, of the broadcast shape.

    References
    ----------
    IBU vs matrix inversion paper, §3.1 "Local Hashing (LH)" (any hash family H : D → [g]: the report is GRR on
    [g] of the hash, so ε-LDP holds whatever the hash); mix64 itself is our choice (module docstring).
    """
    v = np.asarray(values).astype(np.uint64)
    with np.errstate(over="ignore"):
        mixed = mix64((v * _GOLDEN) ^ np.asarray(seeds).astype(np.uint64))
    return (mixed % np.uint64(g)).astype(np.int64)


def mix64_candidate_counts(y: np.ndarray, seeds: np.ndarray, candidates: np.ndarray, g: int,
                           block_cells: int = MIX64_BLOCK_CELLS) -> np.ndarray:
    """C(c) = #{i : H_{s_i}(c) = y_i} for each candidate c (64-bit integers), a cache-sized block of users ×
    candidates at a time (the hash of :func:`mix64_hash`, computed in place).

    Parameters
    ----------
    y : numpy.ndarray
        The reported (randomized) hash values, one per user, shape (n,).
    seeds : numpy.ndarray
        The users' hash seeds, shape (n,).
    candidates : numpy.ndarray
        The values c to count supports for (int64 codes or uint64 integers; flattened).
    g : int
        The hash range.
    block_cells : int, default ``MIX64_BLOCK_CELLS`` (2¹⁶)
        Users × candidates per block (memory and cache bound; the result does not depend on it).

    Returns
    -------
    numpy.ndarray
        The support counts C(c), int64 of shape (number of candidates,); zeros when there are no users.

    References
    ----------
    IBU vs matrix inversion paper, §3.1 "Local Hashing (LH)": S_LH(⟨H, y⟩) = {v | H(v) = y}, counted for Eq. (2).
    """
    n = int(np.asarray(seeds).shape[0])
    with np.errstate(over="ignore"):
        cands = np.asarray(candidates).astype(np.uint64).ravel() * _GOLDEN
    seeds = np.asarray(seeds).astype(np.uint64)
    yy = np.asarray(y).astype(np.uint64)
    gg = np.uint64(g)
    support = np.zeros(cands.size, dtype=np.int64)
    if n == 0 or cands.size == 0:
        return support
    rows = max(1, block_cells // cands.size)
    buf = np.empty((min(rows, n), cands.size), dtype=np.uint64)
    tmp, hit = np.empty_like(buf), np.empty(buf.shape, dtype=bool)
    with np.errstate(over="ignore"):
        for start in range(0, n, rows):
            if start % (rows * 64) == 0:
                checkpoint()
            stop = min(n, start + rows)
            x, t, eq = buf[: stop - start], tmp[: stop - start], hit[: stop - start]
            np.bitwise_xor(cands[None, :], seeds[start:stop, None], out=x)
            for shift, mult in _MIX_STEPS:
                np.right_shift(x, shift, out=t)
                x ^= t
                if mult is not None:
                    x *= mult
            np.remainder(x, gg, out=x)
            np.equal(x, yy[start:stop, None], out=eq)
            support += np.count_nonzero(eq, axis=0)
    return support


def cw_candidate_counts(a: np.ndarray, b: np.ndarray, y: np.ndarray, candidates: np.ndarray, prime: int, g: int,
                        block_cells: int = MIX64_BLOCK_CELLS) -> np.ndarray:
    """C(c) = #{i : H_{a_i,b_i}(c) = y_i} for each candidate c in [0, P), a block of users × candidates at a time.

    Parameters
    ----------
    a, b : numpy.ndarray
        The users' Carter–Wegman parameters (int64, shape (n,)).
    y : numpy.ndarray
        The users' randomized hash values (shape (n,)).
    candidates : numpy.ndarray
        The values to count supports for, integers in [0, P) (flattened).
    prime : int
        The prime P.
    g : int
        The hash range.
    block_cells : int, default ``MIX64_BLOCK_CELLS`` (2¹⁶)
        Users × candidates per block (bounds the memory; the result does not depend on it).

    Returns
    -------
    numpy.ndarray
        The support counts, int64 of shape (number of candidates,).

    References
    ----------
    IBU vs matrix inversion paper, §3.1 "Local Hashing (LH)" (the support set S_LH counted for Eq. (2)).
    """
    cands = np.asarray(candidates, dtype=np.int64).ravel()
    support = np.zeros(cands.size, dtype=np.int64)
    if cands.size == 0:
        return support
    rows = max(1, block_cells // cands.size)
    # cw_hash cell by cell, with its two remainders as x − ⌊x/m⌋·m: every term is non-negative (a, b, c in [0, P)),
    # so this is the remainder exactly, and NumPy divides an array by one integer through a precomputed reciprocal
    # (libdivide) where ``%`` runs a hardware division per cell. The second stage runs on uint32 (x mod P < 2³¹).
    # The same counts as cw_hash, 2–3× faster: the support counting is most of a PEM run.
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)  # a c + b < 2⁶³ in int64 (a, b, c < P < 2³¹)
    modulus, buckets = np.int64(prime), np.uint32(g) if g < 1 << 32 else None
    for start in range(0, a.shape[0], rows):
        if start % (rows * 64) == 0:
            checkpoint()
        stop = start + rows
        x = a[start:stop, None] * cands[None, :]
        x += b[start:stop, None]
        q = x // modulus
        q *= modulus
        x -= q  # (a c + b) mod P
        if buckets is None:
            h = x % g
        else:
            h = x.astype(np.uint32)
            r = h // buckets
            r *= buckets
            h -= r  # mod g
        support += np.count_nonzero(h == y[start:stop, None], axis=0)
    return support


def xxh32_hash(values: np.ndarray, seeds: np.ndarray, g: int) -> np.ndarray:
    """H_s(v) = XXH32(str(v), seed=s) mod g (int64), broadcasting values against seeds.

    Parameters
    ----------
    values : numpy.ndarray
        The values, integers in [0, 10^15).
    seeds : numpy.ndarray
        The seeds (any integers, reduced modulo 2³² as python-xxhash does).
    g : int
        The hash range, 1 ≤ g < 2³².

    Returns
    -------
    numpy.ndarray
        The hashes in [0, g), int64, of the broadcast shape of ``values`` and ``seeds``.

    Raises
    ------
    InvalidInput
        When values or seeds are not integers, or a value lies outside [0, 10^15) (:func:`xxh32_decimal`).

    References
    ----------
    IBU vs matrix inversion paper, §3.1 "Local Hashing (LH)" (the hash of its reference implementation,
    multi-freq-ldpy's ``LH_Client``).
    """
    return (xxh32_decimal(values, seeds) % np.uint32(g)).astype(np.int64)


def _decimal_length_blocks(d: int, width: int) -> list[tuple[int, int]]:
    """[0, d) split where the number of decimal digits changes, and into pieces of at most ``width``."""
    blocks = []
    lo, edge = 0, 10
    while lo < d:
        hi = min(d, edge)
        blocks += [(s, min(hi, s + width)) for s in range(lo, hi, width)]
        lo, edge = hi, edge * 10
    return blocks


def xxh32_support_counts(y: np.ndarray, seeds: np.ndarray, d: int, g: int,
                         block_cells: int = XXH32_BLOCK_CELLS) -> np.ndarray:
    """C(v) = #{i : XXH32(str(v), seeds_i) mod g = y_i} for v in [0, d), exactly.

    Evaluates every (user, value) hash, vectorized over blocks of about ``block_cells`` pairs (bounded
    memory); each block holds values of one decimal length, so XXH32 runs without per-cell branches.

    Parameters
    ----------
    y : numpy.ndarray
        The users' randomized hash values, shape (n,).
    seeds : numpy.ndarray
        The users' XXH32 seeds, shape (n,) (any integers; reduced modulo 2³²).
    d : int
        The domain size: counts are for v in [0, d), d ≤ 10^15.
    g : int
        The hash range.
    block_cells : int, default ``XXH32_BLOCK_CELLS`` (2²⁰)
        About how many (user, value) hashes a block evaluates (the result does not depend on it).

    Returns
    -------
    numpy.ndarray
        The support counts C(v), float64 of shape (d,).

    References
    ----------
    IBU vs matrix inversion paper, §3.1 "Local Hashing (LH)" (S_LH(⟨H, y⟩) = {v | H(v) = y}, the counts of
    Eq. (2)).
    """
    s32 = seed32(seeds)
    yy = np.asarray(y).astype(np.uint32)
    gg = np.uint32(g)
    counts = np.zeros(d, dtype=np.int64)
    for lo, hi in _decimal_length_blocks(d, max(1, min(d, block_cells // 16))):
        vals = np.arange(lo, hi, dtype=np.int64)[None, :]
        rows = max(1, block_cells // (hi - lo))
        for start in range(0, s32.shape[0], rows):
            h = xxh32_decimal(vals, s32[start:start + rows, None])
            h %= gg
            counts[lo:hi] += np.count_nonzero(h == yy[start:start + rows, None], axis=0)
    return counts.astype(np.float64)


def lh_support_counts(a: np.ndarray, b: np.ndarray, y: np.ndarray, d: int, prime: int, g: int) -> np.ndarray:
    """C(v) = #{i : H_{a_i,b_i}(v) = y_i} for v in [0, d), exactly, by the cheaper of two algorithms.

    :func:`_lh_counts_runs` costs about one memory pass over (distinct multipliers) × P cells, and
    :func:`_lh_counts_enumerate` one over n·⌈P/g⌉ supported values; both were measured at 9–11 ns per cell on
    this project's 2-core machine (benchmarks/bench_engines.py), so the smaller count wins. (An FFT method, whose
    cost P² log P was under-estimated by its own cost model — it picked FFT at d = 4096 where enumeration was 1.7×
    faster — is gone: the runs method does the same work in P² without the log.)

    Parameters
    ----------
    a : numpy.ndarray
        The users' multipliers, integers in [1, P), shape (n,).
    b : numpy.ndarray
        The users' offsets, integers in [0, P), shape (n,).
    y : numpy.ndarray
        The users' randomized hash values in [0, g), shape (n,).
    d : int
        The domain size (d ≤ P): counts are for v in [0, d).
    prime : int
        The Carter–Wegman prime P.
    g : int
        The hash range.

    Returns
    -------
    numpy.ndarray
        C(v) for every v in [0, d) (float64, shape (d,)), exact whichever algorithm ran.

    References
    ----------
    IBU vs matrix inversion paper, §3.1 "Local Hashing (LH)": S_LH(⟨H, y⟩) = {v | H(v) = y}, the counts that
    Eq. (2) inverts.
    """
    n = a.shape[0]
    multipliers = min(n, prime - 1)
    if multipliers * (prime + g) <= n * (-(-prime // g)):
        return _lh_counts_runs(a, b, y, d, prime, g)
    return _lh_counts_enumerate(a, b, y, d, prime, g)


#: Cells per block of :func:`_lh_counts_runs` (multipliers × P): small enough to stay in cache (measured: 2¹⁶ cells
#: 4× faster than 2²² at P = 4099).
RUN_BLOCK_CELLS = 1 << 16
#: Up to this many cells (multipliers × g·(⌈P/g⌉ + 1), 32 MB of counts) :func:`_lh_counts_runs` takes every row in one
#: pass, which spares grouping the reports by row (a sort and three gathers of 2n entries: 0.05 s of 0.12 s at
#: n = 10⁶, d = 1024).
SINGLE_PASS_CELLS = 1 << 22


def _dense_ranks(values: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_inverse=True)`` for integers in [0, size): the distinct values, increasing, and each
    value's rank among them — in O(n + size) instead of a sort while size is at most 4n (a caller's prime P may
    reach 2²⁴ with a few reports: then the sort, whose memory does not grow with P)."""
    if size > 4 * values.size:
        used, rank = np.unique(values, return_inverse=True)
        return used, rank.reshape(-1)
    present = np.bincount(values, minlength=size) > 0
    rank = np.cumsum(present) - 1
    return np.flatnonzero(present), rank[values]


def _lh_counts_runs(a: np.ndarray, b: np.ndarray, y: np.ndarray, d: int, prime: int, g: int) -> np.ndarray:
    """C(v) by difference arrays. For one multiplier a, the u = (a v) mod P that a report (a, b, y) supports are
    those with t = (u + b) mod P ≡ y (mod g): t runs over y, y + g, … below P, so u = t − b (t ≥ b) or t − b + P
    (t < b) — two arithmetic progressions of step g, each a contiguous run within its residue class mod g. Each
    report therefore adds four entries to a difference array over (multiplier, class, position); a cumulative sum
    per class gives C_a(u) for every u, and C(v) = Σ_a C_a(a v mod P). Exact; O(n + (#multipliers)·P)."""
    P = int(prime)
    length = -(-P // g)  # positions per residue class
    a, b, y = (np.asarray(x, dtype=np.int64) for x in (a, b, y))
    last = (P - 1 - y) // g  # t = y + k g for k = 0 … last
    k_a = np.maximum(0, -((y - b) // g))  # first k with t ≥ b: ⌈(b − y)/g⌉, at least 0
    k_b = np.where(b - 1 >= y, (b - 1 - y) // g, -1)  # last k with t < b
    starts = np.concatenate([y + k_a * g - b, y - b + P])
    counts = np.concatenate([np.maximum(0, last - k_a + 1), np.maximum(0, np.minimum(k_b, last) + 1)])
    mult = np.concatenate([a, a])
    keep = counts > 0
    starts, counts, mult = starts[keep], counts[keep], mult[keep]
    used, rows = _dense_ranks(mult, P)
    width = g * (length + 1)
    position, residue = np.divmod(starts, g)
    cell = residue * (length + 1) + position  # the run's first cell within its row
    if used.size * width <= SINGLE_PASS_CELLS:  # every row at once: no grouping of the reports by row
        block, order, sorted_rows = used.size, None, None
    else:  # rows a cache-sized block at a time, the reports grouped by row (a stable sort: radix for 16-bit keys)
        block = max(1, RUN_BLOCK_CELLS // width)
        order = np.argsort(rows.astype(np.uint16) if used.size <= 1 << 16 else rows, kind="stable")
        sorted_rows = rows[order]
    v = np.arange(d, dtype=np.int64)
    total = np.zeros(d)
    for r0 in range(0, used.size, block):
        checkpoint()
        r1 = min(used.size, r0 + block)
        if order is None:
            first, run = rows * width + cell, counts
        else:
            lo, hi = np.searchsorted(sorted_rows, [r0, r1])
            idx = order[lo:hi]
            first, run = (rows[idx] - r0) * width + cell[idx], counts[idx]
        size = (r1 - r0) * width
        diff = np.bincount(first, minlength=size) - np.bincount(first + run, minlength=size + 1)[:size]
        runs = np.cumsum(diff.reshape(r1 - r0, g, length + 1), axis=2)[:, :, :length]
        by_u = runs.transpose(0, 2, 1).reshape(r1 - r0, length * g)[:, :P]  # u = position·g + class
        total += by_u[np.arange(r1 - r0)[:, None], (used[r0:r1, None] * v[None, :]) % P].sum(axis=0)
    return total


def _lh_counts_enumerate(a: np.ndarray, b: np.ndarray, y: np.ndarray, d: int, prime: int, g: int) -> np.ndarray:
    # a⁻¹ mod P only for the multipliers that occur (at most n of them, not all P − 1)
    used, where = _dense_ranks(np.asarray(a, dtype=np.int64), prime)
    a_inverse = np.array([pow(int(x), -1, prime) for x in used], dtype=np.int64)[where]
    width = -(-prime // g)
    steps = np.arange(width, dtype=np.int64) * g
    counts = np.zeros(max(d, prime), dtype=np.int64)
    chunk = max(1, (1 << 22) // width)
    for s in range(0, a.shape[0], chunk):
        r = y[s:s + chunk, None] + steps[None, :]
        ok = r < prime
        v = (a_inverse[s:s + chunk][:, None] * (r - b[s:s + chunk, None])) % prime
        counts += np.bincount(v[ok], minlength=counts.shape[0])
    return counts[:d].astype(np.float64)


#: The largest prime P a caller may choose beyond the default (the smallest prime ≥ max(d, g)): support counting
#: enumerates P/g values per report and holds P counts (P = 2³¹ − 19 allocated 4.2 GB per report before failing).
MAX_PRIME = 1 << 24

#: The largest hash range OLH derives from ε (see ``OLH._default_g``).
G_CAP = 2 ** 16


class LocalHashing(FrequencyOracle):
    """Shared machinery of BLH, OLH and the longitudinal L-BLH, L-OLH.

    Reports are rows (a, b, y): the hash function's parameters and the randomized hash value.
    Subclasses set ``g`` and how the hashed value is randomized (one or two GRR steps on [g]).

    With ``hash="xxh32"`` reports are rows (y, s): the randomized hash value and the seed of
    XXH32(str(v), s) mod g (see the module docstring); ``prime`` does not apply and is not among the
    resolved parameters. With the default ``hash="cw"`` the resolved parameters leave ``hash`` out, so
    Carter–Wegman report files and their headers are unchanged.

    Parameters
    ----------
    epsilon : float
        The privacy budget ε of one report (ε∞ for the longitudinal subclasses).
    d : int
        The domain size (inputs are codes in [0, d)).
    **params
        ``g`` (the hash range; None: the subclass's default), ``prime`` (the Carter–Wegman P, a prime in
        [d, 2³¹); None: the smallest prime ≥ max(d, g, 3); only with ``hash="cw"``), ``hash`` (one of
        :data:`HASH_FAMILIES`, default "cw") and, for the longitudinal subclasses, ``epsilon_1``.

    Raises
    ------
    InvalidInput
        When ``prime`` is given with a seeded hash, is not a prime in [d, 2³¹), or g ≥ 2³² with ``hash="xxh32"``.

    References
    ----------
    IBU vs matrix inversion paper, §3.1 "Local Hashing (LH)" (encode ⟨H, H(v)⟩, GRR of Eq. (4) on [g], support set
    S_LH, p* = p and q* = 1/g for an ideal hash).
    """

    report_format = "three integers 'a b y': hash H(v) = ((a·v + b) mod P) mod g and the randomized value y"
    communication = "O(log d)"  # a, b < P with P the smallest prime ≥ max(d, g); the lecture's O(log n) counts seeds
    fast_engine_exact = False
    fast_engine_note = ("independent binomial support counts: exact marginals, but not the cross-covariances — "
                        "Carter–Wegman hashing with P ≈ d makes the counts negatively correlated (about P/g values "
                        "hash to each y, so Σ_v C(v) is nearly fixed), so sums over many values vary more than on "
                        "the exact engine")

    @property
    def g(self) -> int:
        return self._params["g"]

    @classmethod
    def own_parameters(cls) -> tuple[Param, ...]:
        return super().own_parameters() + (HASH,)

    @property
    def prime(self) -> int | None:
        """P of the Carter–Wegman family; None with a seeded hash (``hash="xxh32"`` or ``"mix64"``)."""
        return self._params.get("prime")

    @property
    def hash_family(self) -> str:
        """'cw' (Carter–Wegman, the default), 'xxh32' (the reference implementation's hash) or 'mix64'."""
        return self._params.get("hash", "cw")

    @property
    def seeded(self) -> bool:
        """Whether reports are 'y seed' (a seeded hash: XXH32 or mix64) rather than 'a b y' (Carter–Wegman)."""
        return self.hash_family != "cw"

    def _seeded_hash(self, values: np.ndarray, seeds: np.ndarray) -> np.ndarray:
        """H_s(v) mod g of the seeded family in use (broadcasting values against seeds)."""
        if self.hash_family == "xxh32":
            return xxh32_hash(values, seeds, self.g)
        return mix64_hash(values, seeds, self.g)

    def _setup(self) -> None:
        if self._params.get("hash", "cw") == "cw":
            self._params.pop("hash", None)  # the default: parameters (and report headers) as without the option
        if self._params.get("g") is None:
            self._params["g"] = self._default_g()
        if self.seeded:
            family = self.hash_family
            if self._params.pop("prime", None) is not None:
                raise InvalidInput(f"{self.name}: parameter prime applies to hash='cw' only, not hash='{family}'")
            if family == "xxh32" and self.g >= 2**32:
                raise InvalidInput(f"{self.name}: with hash='xxh32' g must be below 2^32 (XXH32 digests are 32-bit), "
                                 f"got {self.g}")
            self.report_format = XXH32_REPORT_FORMAT if family == "xxh32" else MIX64_REPORT_FORMAT
            return
        if self._params.get("prime") is None:
            self._params["prime"] = next_prime(max(self.d, self.g, 3))
        prime = self._params["prime"]
        if prime < self.d or not is_prime(prime) or prime >= 2**31:
            raise InvalidInput(f"{self.name}: prime must be a prime in [d, 2^31), got {prime}")

    def check_countable(self) -> None:
        """Refuse a prime so large that support counting would enumerate P/g values per report and hold P counts
        (P = 2³¹ − 19 allocated 4.2 GB per report before failing); a large prime is fine for the closed forms."""
        if self.prime is None:
            return
        needed = max(self.d, self.g, 3)
        if self.prime > max(MAX_PRIME, needed):
            raise InvalidInput(f"{self.name}: prime {self.prime:,} would make the server enumerate P/g ≈ "
                               f"{self.prime / self.g:.2g} values per report (memory ≈ 8·P bytes); use a prime of at "
                               f"most {MAX_PRIME:,} (the default is the smallest prime ≥ max(d, g))")

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
        if self.seeded:
            return keep, 1.0 / self.g  # ideal hash: another value's hash is uniform on [g] (the reference's q)
        c = collision_probability(self.prime, self.g)
        return keep, keep * c + other * (1 - c)

    def report_width(self) -> int:
        return 4

    def _perturb(self, values: np.ndarray, rng: RandomSource) -> np.ndarray:
        m = values.shape[0]
        if self.seeded:
            high = XXH32_SEED_HIGH if self.hash_family == "xxh32" else MIX64_SEED_HIGH
            seeds = np.asarray(rng.integers(0, high, size=m), dtype=np.int64)
            y = self._randomize_hashed(self._seeded_hash(values, seeds), rng)
            return np.stack([y, seeds], axis=1)
        a = rng.integers(1, self.prime, size=m)
        b = rng.integers(0, self.prime, size=m)
        y = self._randomize_hashed(cw_hash(a, b, values, self.prime, self.g), rng)
        return np.stack([a, b, y], axis=1)

    def _validate_reports(self, reports: np.ndarray) -> np.ndarray:
        if self.seeded:
            return self._validate_seeded_reports(reports)
        if reports.ndim != 2 or reports.shape[1] != 3:
            raise InvalidInput(f"{self.name}: each report must be 'a b y', got shape {reports.shape}")
        reports = check_int_reports(self.name, reports, 0, max(self.prime, self.g), "report fields")
        if np.any(reports[:, 0] < 1) or np.any(reports[:, 0] >= self.prime) or np.any(reports[:, 1] >= self.prime):
            raise InvalidInput(f"{self.name}: hash parameters must satisfy 1 ≤ a < P={self.prime}, 0 ≤ b < P")
        if np.any(reports[:, 2] >= self.g):
            raise InvalidInput(f"{self.name}: hashed values must lie in [0, g={self.g})")
        return reports

    def _validate_seeded_reports(self, reports: np.ndarray) -> np.ndarray:
        if reports.ndim != 2 or reports.shape[1] != 2:
            raise InvalidInput(f"{self.name}: each report must be 'y seed' (hash={self.hash_family}), got shape "
                               f"{reports.shape}")
        reports = check_int_reports(self.name, reports, 0, 2**63, "report fields")
        if np.any(reports[:, 0] >= self.g):
            raise InvalidInput(f"{self.name}: hashed values must lie in [0, g={self.g})")
        return reports.astype(np.int64, copy=False)

    def _parse_line(self, line: str) -> list[int]:
        if self.seeded:  # also "y, seed" and "(y, seed)", as Python prints the reference's tuple
            if (line[0], line[-1]) in (("(", ")"), ("[", "]")):
                line = line[1:-1]
            line = line.replace(",", " ")
        return super()._parse_line(line)

    def _support_counts(self, reports: np.ndarray) -> np.ndarray:
        if self.hash_family == "xxh32":
            return xxh32_support_counts(reports[:, 0], reports[:, 1], self.d, self.g)
        if self.seeded:
            return self._candidate_support_counts(reports, np.arange(self.d, dtype=np.uint64)).astype(np.float64)
        self.check_countable()
        return lh_support_counts(reports[:, 0], reports[:, 1], reports[:, 2], self.d, self.prime, self.g)

    def _perturb_integers(self, values: np.ndarray, rng: Any) -> np.ndarray:
        if self.hash_family == "mix64":  # the hash reads the 64 bits: no int64 codes (values ≥ 2^63 included)
            return self._perturb(values, check_random_source(rng, self.name))
        return super()._perturb_integers(values, rng)

    def _candidate_support_counts(self, reports: np.ndarray, candidates: np.ndarray) -> np.ndarray:
        """C(c) for the candidates only: n × (number of candidates) hash evaluations, never the whole domain."""
        if self.hash_family == "mix64":
            return mix64_candidate_counts(reports[:, 0], reports[:, 1], candidates, self.g)
        if self.hash_family == "xxh32":
            return super()._candidate_support_counts(reports, candidates)
        return cw_candidate_counts(reports[:, 0], reports[:, 1], reports[:, 2], candidates, self.prime, self.g)

    def _sample_counts(self, true_counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return binomial_support_counts(true_counts, self.p_star, self.q_star, rng)

    def _output_count(self) -> int:
        if self.hash_family == "mix64":
            raise NotAvailable(f"{self.name}: with hash='mix64' the exact channel cannot be enumerated (2^63 seeds); "
                               "for a fixed seed a report is GRR on [g] of the hash, so it is ε-LDP whatever the "
                               "seed; use hash='cw' for the exact channel")
        if self.hash_family == "xxh32":
            raise NotAvailable(f"{self.name}: with hash='xxh32' the exact channel cannot be enumerated — "
                               f"XXH32 is not an "
                             "exactly pairwise-independent family (2^32 seeds), so p*, q* = 1/g are the ideal-hash "
                             "values of the reference implementation; use hash='cw' for the exact channel")
        return self.prime * (self.prime - 1) * self.g

    def report_columns(self) -> int:
        return 2 if self.seeded else 3

    def _privacy_loss(self) -> float:
        # reached only with a seeded hash (the Carter–Wegman channel is enumerated): say why it cannot be
        self._output_count()
        return super()._privacy_loss()

    def _attack_success(self, prior: np.ndarray) -> float:
        """Σ_{(a,b,y)} max_v π_v Pr[(a, b, y) | v] for the hash family in use.

        With π sorted decreasingly (π_1 the top value) and c = π_1·other/keep, the attacker's best guess
        for the reported y is the top value when H(v_1) = y, else the first value hashed to y if its
        π·keep beats π_1·other. Hence S = keep·π_1 + (g − 1)·other·π_1 + keep·Σ_{j≥2} (π_j − c)⁺·q_j with
        q_j = Pr_H[H(v_j) ∉ {H(v_1), …, H(v_{j−1})}] — (1 − 1/g)^{j−1} for the ideal hash (hash="xxh32", as
        the reference implementation assumes), and for Carter–Wegman computed over the family itself
        (:func:`cw_attack_gain`: exact enumeration, or sampled within ±1e-4 for large P): there the
        residues mod g are unequal classes, so collisions are rarer or likelier than 1/g.
        """
        keep, other = self._hashed_probabilities()
        if self.seeded:
            return self.g * first_hit_success(np.sort(prior)[::-1], 1.0 / self.g, keep, other)
        order = np.argsort(-prior, kind="stable")
        top = float(prior[order[0]])
        cut = top * other / keep
        rest = order[1:][prior[order[1:]] > cut]
        values = np.concatenate([order[:1], rest]).astype(np.int64)
        weights = np.concatenate([[0.0], prior[rest] - cut])
        gain, _ = cw_attack_gain(values, weights, self.prime, self.g)
        return float(keep * top + (self.g - 1) * other * top + keep * gain)

    def _report_bits(self) -> int:
        if self.prime is None:  # a seeded hash: a 63-bit seed and the hashed value
            return 63 + ceil_log2(self.g)
        return 2 * ceil_log2(self.prime) + ceil_log2(self.g)

    def report_bits_formula(self) -> str:
        if self.prime is None:
            return "63 + ⌈log₂ g⌉ (the hash's seed and the value y)"
        return "2⌈log₂ P⌉ + ⌈log₂ g⌉ (hash a, b and the value y)"

    def mga_hashes(self, targets: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        """Hash functions (a, b) and value y maximising the number of targets with H(t) = y, and that number: the
        Carter–Wegman family searched exhaustively up to ``MGA_HASH_SEARCH`` functions (and ``MGA_HASH_CELLS``
        function × target pairs in memory), else a fixed sample. Cached per set of targets (one search per
        simulation, not per trial)."""
        if self.seeded:
            raise NotAvailable(f"{self.name}: the maximal-gain attack searches the Carter–Wegman family (hash='cw')")
        targets = np.asarray(targets, dtype=np.int64)
        return self._cached(f"mga:{targets.tobytes().hex()}", lambda: self._search_hashes(targets))

    def _search_hashes(self, targets: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        prime, g = self.prime, self.g
        total = prime * (prime - 1)
        budget = max(1024, MGA_HASH_CELLS // targets.size)  # memory: functions × targets stays bounded
        if total <= min(MGA_HASH_SEARCH, budget):
            idx = np.arange(total, dtype=np.int64)
        else:
            idx = np.random.default_rng(0).choice(total, size=min(MGA_HASH_SEARCH, budget), replace=False)
        a, b = 1 + idx // prime, idx % prime
        hashed = np.sort(cw_hash(a[:, None], b[:, None], targets[None, :], prime, g), axis=1)  # functions × targets
        # the most frequent hash value of each function's row: the longest run of the sorted row (the smallest
        # value among equally long runs) — without a functions × g table (185 GB at ε = 10)
        pos = np.arange(targets.size)
        new = np.ones(hashed.shape, dtype=bool)
        new[:, 1:] = hashed[:, 1:] != hashed[:, :-1]
        run = pos - np.maximum.accumulate(np.where(new, pos, 0), axis=1) + 1
        at = run.argmax(axis=1)
        rows = np.arange(idx.size)
        y, best = hashed[rows, at], run[rows, at]
        s = int(best.max())
        keep = best == s
        return a[keep], b[keep], y[keep], s

    def _randomizer_parameters(self) -> dict[str, Any] | None:
        out = super()._randomizer_parameters()
        if out is None:
            return None
        keep, other = self._hashed_probabilities()
        return {**out, "g": self.g, "prime": self.prime, "keep": keep, "other": other}

    def _mga_support(self, targets: np.ndarray) -> int:
        return self.mga_hashes(targets)[3]

    def _mga_reports(self, targets: np.ndarray, m: int, rng: np.random.Generator) -> np.ndarray:
        a, b, y, _ = self.mga_hashes(targets)
        j = rng.integers(0, a.size, size=m)
        return np.stack([a[j], b[j], y[j]], axis=1)

    def _report_supports(self, reports: np.ndarray, v: int) -> np.ndarray:
        if self.seeded:
            return self._seeded_hash(np.full(reports.shape[0], v), reports[:, 1]) == reports[:, 0]
        return cw_hash(reports[:, 0], reports[:, 1], v, self.prime, self.g) == reports[:, 2]

    def _explain_report(self, report_text: str) -> str:
        if self.prime is None:
            y, seed = report_text.replace(",", " ").strip("()[] ").split()
            what = f"XXH32(str(v), seed={seed})" if self.hash_family == "xxh32" else f"SplitMix64(v·φ xor {seed})"
            return (f"Hash H(v) = {what} mod {self.g} and a randomized hashed value y = {y}: "
                    "the report supports every v with H(v) = y.")
        a, b, y = report_text.split()
        return (f"Hash H(v) = (({a}·v + {b}) mod {self.prime}) mod {self.g} and a randomized hashed value y = {y}: "
                "the report supports every v with H(v) = y.")

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
    """Binary local hashing (Bassily & Smith 2015): hash to g = 2 values, then GRR.

    Parameters
    ----------
    epsilon : float
        The privacy budget ε of one report (GRR on the hashed bit).
    d : int
        The domain size (inputs are codes in [0, d)).
    g : int, default 2
        The hash range; BLH accepts only 2.
    prime : int, optional
        The prime P of the Carter–Wegman family, in [d, 2³¹); None: the smallest prime ≥ max(d, 3).
    hash : {"cw", "xxh32", "mix64"}, default "cw"
        The hash family (see :class:`LocalHashing`).

    References
    ----------
    IBU vs matrix inversion paper, §3.1 "Local Hashing (LH)" (BLH: g = 2); lecture, "Binary Local Hash" and
    Table 1 (BLH column: Var[c̃(i)]/n = (e^ε + 1)²/(e^ε − 1)²).
    """

    name = "blh"
    display_name = "BLH"
    description = "Binary local hashing: hash the value to one bit with a random hash, then randomized response"
    paper = IBU_PAPER + ", §3.1 (LH, g = 2)"
    lecture_formula = "(e^ε + 1)² / (e^ε − 1)²"
    extra_parameters = (Param("g", int, "hash range (always 2 for BLH)", default=2, choices=(2,)),
                        Param("prime", int, "prime P of the hash family (default: smallest prime ≥ d)",
                              low=3, optional=True))

    def lecture_variance(self) -> float:
        e = math.exp(self.epsilon)
        return (e + 1) ** 2 / (e - 1) ** 2


@MECHANISMS.register
class OLH(LocalHashing):
    """Optimized local hashing (Wang et al. 2017): g = round(e^ε + 1), then GRR on [g].

    Parameters
    ----------
    epsilon : float
        The privacy budget ε of one report (GRR on [g]).
    d : int
        The domain size (inputs are codes in [0, d)).
    g : int, optional
        The hash range, at least 2; None: round(e^ε + 1) capped at :data:`G_CAP` = 2¹⁶.
    prime : int, optional
        The Carter–Wegman prime P in [d, 2³¹); None: the smallest prime ≥ max(d, g, 3).
    hash : {"cw", "xxh32", "mix64"}, default "cw"
        The hash family (see :class:`LocalHashing`; :meth:`over_bits` beyond the domain parameter's range uses
        "mix64").

    References
    ----------
    IBU vs matrix inversion paper, §3.1 "Local Hashing (LH)" (OLH); consistency paper, §III-B, Eq. (2) (the OLH
    estimate) and g = e^ε + 1; lecture, "Optimized Local Hash (OLH)" and Table 1 (OLH column:
    Var[c̃(i)]/n = 4e^ε/(e^ε − 1)²).
    """
    mga_studied: ClassVar[bool] = True
    browser_client: ClassVar[bool] = True

    name = "olh"
    display_name = "OLH"
    description = "Optimized local hashing: hash to g = round(e^ε+1) values, then randomized response"
    paper = IBU_PAPER + ", §3.1 (LH); g = round(e^ε + 1) as in Wang et al. 2017"
    lecture_formula = "4e^ε / (e^ε − 1)²"
    extra_parameters = (
        Param("g", int, "hash range g (default round(e^ε + 1))", low=2, optional=True),
        Param("prime", int, "prime P of the hash family (default: smallest prime ≥ max(d, g))", low=3,
              optional=True),
    )

    @classmethod
    def _over_wide_domain(cls, epsilon: float, bits: int, params: dict[str, Any]) -> FrequencyOracle:
        """Beyond ``DOMAIN_SIZE`` the seeded 64-bit hash (``hash="mix64"``, the default here): the only family of
        ours defined on every 64-bit integer (Carter–Wegman needs a prime P ≥ 2^bits < 2^31, XXH32 values < 10^15)."""
        family = params.setdefault("hash", "mix64")
        if family != "mix64":
            raise NotAvailable(f"{cls.name}: hash='{family}' cannot hash a domain of 2^{bits} values; use "
                               "hash='mix64' (64-bit integers)")
        oracle = cls(epsilon, 2, **params)
        oracle._d = 1 << bits  # the hash and the candidate counting never enumerate the domain
        return oracle

    def _default_g(self) -> int:
        """round(e^ε + 1) (Wang et al. 2017), capped at :data:`G_CAP` = 2¹⁶ (reached at ε ≈ 11.1): g grows as e^ε,
        and the hash range, the prime P ≥ g and the server's work grow with it (ε = 20 asked for g ≈ 4.9·10⁸ and
        7.7 GB). Any g is still ε-LDP (GRR on [g] at ε); with e^ε ≫ g the variance tends to 1/(n(g − 1)) instead
        of 4e^ε/(n(e^ε − 1)²) — at most 1.5·10⁻⁵/n, far below what such an ε is chosen for. A g given by the user
        is used as given."""
        return max(2, min(G_CAP, int(round(math.exp(min(self.epsilon, 60.0)) + 1))))

    @classmethod
    def _epsilon_breakpoints(cls, lo: float, hi: float, d: int | None, params: dict[str, Any]) -> list[float] | None:
        """g = round(e^ε + 1) steps from k to k + 1 at e^ε + 1 = k + ½, i.e. ε = ln(k − ½) (k ≥ 2); the default
        prime P = next_prime(max(d, g)) only changes with g. A given g fixes both."""
        if params.get("g") is not None:
            return []
        first = max(2, math.floor(math.exp(lo) + 0.5))
        points = []
        k = first
        while math.log(k - 0.5) < hi and k <= G_CAP:  # g stops growing at the cap
            if math.log(k - 0.5) > lo:
                points.append(math.log(k - 0.5))
            k += 1
        return points

    def lecture_variance(self) -> float:
        e = math.exp(self.epsilon)
        return 4 * e / (e - 1) ** 2
