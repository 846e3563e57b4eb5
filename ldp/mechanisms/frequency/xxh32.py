"""XXH32 of the decimal strings of integers, vectorized with numpy (the hash of multi-freq-ldpy's LH).

The IBU paper's reference implementation (multi-freq-ldpy, ``LH_Client`` / ``L_LH_Client``) hashes a
user's value v with ``xxhash.xxh32(str(v), seed=s).intdigest() % g`` for a random 63-bit seed s. This
module computes the same digests for whole arrays at once — users × values when the server counts
supports — without calling the ``xxhash`` package once per pair.

XXH32 (https://github.com/Cyan4973/xxHash, doc/xxhash_spec.md) of an input shorter than 16 bytes:

    acc = seed + PRIME32_5 + len
    for every whole 4-byte lane (little-endian):  acc = rotl(acc + lane · PRIME32_3, 17) · PRIME32_4
    for every remaining byte:                     acc = rotl(acc + byte · PRIME32_5, 11) · PRIME32_1
    avalanche: acc ^= acc >> 15; acc ·= PRIME32_2; acc ^= acc >> 13; acc ·= PRIME32_3; acc ^= acc >> 16

all modulo 2^32 (numpy's uint32 array arithmetic wraps). The input is the ASCII decimal string of v
(``str(v).encode()``: what python-xxhash 3.x hashed for ``str(v)``; xxhash ≥ 4 rejects str), so any
v in [0, 10^15) fits the short-input path.

Seeds: XXH32 takes a 32-bit seed. python-xxhash (checked with xxhash 4.1.0) keeps the low 32 bits of
any Python integer seed — ``xxh32(b, seed=s)`` equals ``xxh32(b, seed=s mod 2^32)`` for s ≥ 2^32 and
for negative s — so the reference's 63-bit seeds are reduced modulo 2^32 here as well.
"""

from __future__ import annotations

import numpy as np

from ldp.core.errors import InvalidInput

__all__ = ["MAX_VALUE", "PRIME32_1", "PRIME32_2", "PRIME32_3", "PRIME32_4", "PRIME32_5", "seed32", "xxh32_decimal"]

PRIME32_1 = np.uint32(0x9E3779B1)
PRIME32_2 = np.uint32(0x85EBCA77)
PRIME32_3 = np.uint32(0xC2B2AE3D)
PRIME32_4 = np.uint32(0x27D4EB2F)
PRIME32_5 = np.uint32(0x165667B1)

# Values must have fewer than 16 decimal digits (the short-input path of XXH32).
MAX_VALUE = 10**15 - 1
_MASK32 = 0xFFFFFFFF


def seed32(seeds: np.ndarray | int) -> np.ndarray:
    """Seeds reduced modulo 2^32 (as python-xxhash does), as uint32. Accepts any integers, Python's too.

    Parameters
    ----------
    seeds : numpy.ndarray or int
        Integer seeds of any shape: numpy integers (negative ones keep their two's-complement low 32 bits) or
        Python integers beyond 64 bits (an object array).

    Returns
    -------
    numpy.ndarray
        ``seeds mod 2^32`` as uint32, same shape as ``seeds`` (0-d for a scalar).

    Raises
    ------
    InvalidInput
        When the seeds are not integers (e.g. a float array).

    References
    ----------
    XXH32 specification (xxHash, doc/xxhash_spec.md): the 32-bit seed; python-xxhash's reduction of wider
    seeds is described in this module's docstring.
    """
    s = np.asarray(seeds)
    if s.dtype == object:  # Python integers beyond the 64-bit range
        flat = [int(x) & _MASK32 for x in s.ravel()]
        return np.asarray(flat, dtype=np.uint32).reshape(s.shape)
    if s.size and not np.issubdtype(s.dtype, np.integer):
        raise InvalidInput(f"xxh32: seeds must be integers, got dtype {s.dtype}")
    # int64 → uint64 is two's complement, so negative seeds also keep their low 32 bits (as xxhash does).
    return (s.astype(np.uint64) & np.uint64(_MASK32)).astype(np.uint32)


def _decimal_layout(v: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Length, 4-byte little-endian lanes (3 × shape) and tail bytes (3 × shape) of str(v) in ASCII."""
    length = np.ones(v.shape, dtype=np.int64)
    power = np.full(v.shape, 10, dtype=np.int64)
    while np.any(big := v >= power):
        length += big
        power = np.where(big, power * 10, power)
    # byte i (0 = most significant digit) of each string; positions beyond the length are unused
    positions = np.arange(15, dtype=np.int64)
    shift = length[..., None] - 1 - positions  # the digit at position i is the (length-1-i)-th from the right
    digits = (v[..., None] // np.power(10, np.clip(shift, 0, 14), dtype=np.int64)) % 10
    code = np.where(shift >= 0, digits + ord("0"), 0).astype(np.uint32)  # shape (..., 15)
    lanes = np.zeros((3,) + v.shape, dtype=np.uint32)
    for j in range(3):
        for b in range(4):
            lanes[j] |= code[..., 4 * j + b] << np.uint32(8 * b)
    tails = np.zeros((3,) + v.shape, dtype=np.uint32)
    nlanes = length // 4
    for k in range(3):
        idx = np.clip(4 * nlanes + k, 0, 14)
        tails[k] = np.take_along_axis(code, idx[..., None], axis=-1)[..., 0]
    return length, lanes, tails


def xxh32_decimal(values: np.ndarray | int, seeds: np.ndarray | int) -> np.ndarray:
    """XXH32 digests of the ASCII decimal strings of ``values`` under ``seeds``, broadcast together.

    ``xxh32_decimal(v, s)[i] == xxhash.xxh32(str(v[i]).encode(), seed=int(s[i])).intdigest()``; pass
    ``values[None, :]`` and ``seeds[:, None]`` for the users × values table. Values must be integers in
    [0, 10^15); seeds any integers (reduced modulo 2^32, see :func:`seed32`). Returns uint32.

    Parameters
    ----------
    values : numpy.ndarray or int
        The integers whose decimal strings are hashed, in [0, 10^15) (:data:`MAX_VALUE` at most).
    seeds : numpy.ndarray or int
        The hash seeds, broadcast against ``values`` (one per user for a users × values table).

    Returns
    -------
    numpy.ndarray
        The uint32 digests, of the broadcast shape of ``values`` and ``seeds`` (0-d for two scalars).

    Raises
    ------
    InvalidInput
        When the values are not integers or lie outside [0, 10^15), or the seeds are not integers.

    References
    ----------
    XXH32 specification (xxHash, doc/xxhash_spec.md), the short-input path (< 16 bytes) spelled out in the
    module docstring; IBU vs matrix inversion paper, §3.1 "Local Hashing (LH)" (its reference implementation,
    multi-freq-ldpy, hashes ``str(v)`` with XXH32).
    """
    v = np.asarray(values)
    if v.size and not np.issubdtype(v.dtype, np.integer):
        raise InvalidInput(f"xxh32: values must be integers, got dtype {v.dtype}")
    v = v.astype(np.int64)
    if v.size and (v.min() < 0 or v.max() > MAX_VALUE):
        raise InvalidInput(f"xxh32: values must lie in [0, {MAX_VALUE}]")
    s = seed32(seeds)
    length, lanes, tails = _decimal_layout(v)
    nlanes, ntail = length // 4, length % 4
    with np.errstate(over="ignore"):
        acc = np.empty(np.broadcast_shapes(s.shape, v.shape), dtype=np.uint32)  # 0-d stays an array
        np.add(s, length.astype(np.uint32) + PRIME32_5, out=acc)
        tmp = np.empty_like(acc)
        for rounds, words, prime_in, rot, prime_out in ((nlanes, lanes, PRIME32_3, 17, PRIME32_4),
                                                        (ntail, tails, PRIME32_5, 11, PRIME32_1)):
            for j in range(3):
                present = rounds > j
                if not present.any():
                    break
                if present.all():
                    _round(acc, words[j] * prime_in, rot, prime_out, tmp)
                else:
                    step = acc.copy()
                    _round(step, words[j] * prime_in, rot, prime_out, tmp)
                    np.copyto(acc, step, where=np.broadcast_to(present, acc.shape))
        # avalanche
        np.right_shift(acc, np.uint32(15), out=tmp)
        acc ^= tmp
        acc *= PRIME32_2
        np.right_shift(acc, np.uint32(13), out=tmp)
        acc ^= tmp
        acc *= PRIME32_3
        np.right_shift(acc, np.uint32(16), out=tmp)
        acc ^= tmp
    return acc


def _round(acc: np.ndarray, addend: np.ndarray, rot: int, prime: np.uint32, tmp: np.ndarray) -> None:
    """acc = rotl(acc + addend, rot) · prime, in place (uint32, wrapping)."""
    acc += addend
    np.right_shift(acc, np.uint32(32 - rot), out=tmp)
    acc <<= np.uint32(rot)
    acc |= tmp
    acc *= prime
