"""Sources of randomness: seeded numpy ``Generator`` for reproducible simulation, and the operating
system's cryptographic randomness for genuine client-side collection.

Client randomizers only call ``rng.integers(low, high, size, dtype)`` and ``rng.random(size)``, so
any object offering those two methods (a :class:`numpy.random.Generator` or :class:`SecureRandom`)
can drive them. :func:`bernoulli` turns those calls into exact Bernoulli draws quickly.
"""

from __future__ import annotations

import math
import os
from typing import Any, Protocol

import numpy as np

from ldp.core.errors import InvalidInput

__all__ = ["RandomSource", "SecureRandom", "bernoulli", "check_random_source", "discrete_laplace",
           "discrete_laplace_grid", "gaussian", "laplace", "make_rng", "random_bytes", "spawn", "uniforms"]


class RandomSource(Protocol):
    """What a client randomizer needs of its randomness: numpy ``Generator``-style ``integers`` and ``random``.

    A :class:`numpy.random.Generator` or a :class:`SecureRandom` satisfies it (see :func:`check_random_source`).
    """
    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False): ...
    def random(self, size=None, dtype=np.float64): ...


def check_random_source(rng: Any, owner: str = "") -> RandomSource:
    """Return ``rng`` if it can drive a client randomizer.

    Accepted: a :class:`numpy.random.Generator` or an object with the two methods the randomizers call (``integers`` and
    ``random``, e.g. :class:`SecureRandom`); anything else gets a one-line :class:`~ldp.core.errors.InvalidInput` (a
    string, a list, a float, None or NumPy's legacy ``RandomState`` used to fail deep inside with an AttributeError).

    Parameters
    ----------
    rng : object
        The candidate source of randomness.
    owner : str, default ""
        The caller's name, prefixed to the error message when given.

    Returns
    -------
    RandomSource
        ``rng`` itself, unchanged.

    Raises
    ------
    InvalidInput
        If ``rng`` lacks callable ``integers`` and ``random`` methods (with a hint for ``RandomState``).
    """
    if isinstance(rng, np.random.Generator) or (callable(getattr(rng, "integers", None))
                                                 and callable(getattr(rng, "random", None))):
        return rng
    prefix = f"{owner}: " if owner else ""
    hint = " (NumPy's legacy RandomState: use np.random.default_rng(seed))" if isinstance(
        rng, np.random.RandomState) else ""
    raise InvalidInput(f"{prefix}rng must be a numpy Generator (np.random.default_rng(seed)) or ldp.SecureRandom(), "
                       f"got {type(rng).__name__}{hint}")


def make_rng(seed: int | np.random.Generator | None = None) -> np.random.Generator:
    """A PCG64 ``Generator`` for a reproducible simulation.

    Parameters
    ----------
    seed : int or numpy.random.Generator, optional
        A non-negative seed, or an existing generator (passed through). None: fresh OS entropy.

    Returns
    -------
    numpy.random.Generator
        The generator.

    Raises
    ------
    InvalidInput
        For a negative or non-integer seed.
    """
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
        raise InvalidInput(f"seed must be an integer, got {seed!r}")
    if seed is not None and seed < 0:
        raise InvalidInput(f"seed must be non-negative, got {seed}")
    return np.random.default_rng(seed)


def spawn(rng: np.random.Generator, count: int) -> list[np.random.Generator]:
    """``count`` independent child generators, deterministic given ``rng``'s state.

    Parameters
    ----------
    rng : numpy.random.Generator
        The parent generator (its bit generator's seed sequence is advanced).
    count : int
        Number of children (≥ 0).

    Returns
    -------
    list of numpy.random.Generator
        The children, in spawn order.
    """
    return list(rng.spawn(count))


class SecureRandom:
    """Cryptographically secure randomness from ``os.urandom`` behind the two ``Generator`` methods the randomizers use.

    Integers are drawn without modulo bias (rejection sampling below the largest multiple of the span under 2⁶⁴);
    floats are 53-bit uniforms on [0, 1). The constructor takes no parameters.

    Not reproducible by design: use it for real collection (``ldp perturb`` without ``--seed``), never for simulations
    that must be repeatable.

    Examples
    --------
    >>> import numpy as np, ldp
    >>> reports = ldp.get_mechanism("grr", 1.0, 4).perturb(np.array([0, 3]), ldp.SecureRandom())
    """

    @staticmethod
    def _u64(count: int) -> np.ndarray:
        return np.frombuffer(os.urandom(8 * count), dtype=np.uint64).copy()

    def random(self, size=None, dtype=np.float64):
        count = int(np.prod(size)) if size is not None else 1
        out = (self._u64(count) >> np.uint64(11)).astype(np.float64) * (1.0 / 9007199254740992.0)
        out = out.astype(dtype, copy=False)
        return out.reshape(size) if size is not None else float(out[0])

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        if high is None:
            low, high = 0, low
        low_a = np.asarray(low, dtype=np.int64)
        high_a = np.asarray(high, dtype=np.int64) + (1 if endpoint else 0)
        shape = size if size is not None else np.broadcast(low_a, high_a).shape
        low_b = np.broadcast_to(low_a, shape).ravel()
        span = np.broadcast_to(high_a, shape).ravel() - low_b
        if np.any(span <= 0):
            raise InvalidInput("high must be greater than low")
        span_u = span.astype(np.uint64)
        # Accept u < limit where limit is the largest multiple of span below 2**64: no modulo bias.
        limit = np.uint64(2**64 - 1) - (np.uint64(2**64 - 1) % span_u + np.uint64(1)) % span_u
        result = np.empty(span.shape, dtype=np.uint64)
        todo = np.arange(span.size)
        while todo.size:
            draw = self._u64(todo.size)
            ok = draw <= limit[todo]
            result[todo[ok]] = draw[ok] % span_u[todo[ok]]
            todo = todo[~ok]
        out = (result.astype(np.int64) + low_b).astype(dtype)
        if size is None and out.size == 1 and np.ndim(low) == 0 and np.ndim(high) == 0:
            return out[0]
        return out.reshape(shape)


def random_bytes(rng: RandomSource, count: int) -> np.ndarray:
    """``count`` independent uniform bytes (uint8): the eight bytes of full-range uniform 64-bit words from a numpy
    ``Generator`` (each byte of a uniform word is uniform and the eight are independent; half the cost of the two
    bytes of 16-bit words, which numpy draws through a bounded-integer path), or the two bytes of uniform 16-bit
    integers from any other source (``integers`` is all a :class:`RandomSource` offers).

    Parameters
    ----------
    rng : RandomSource
        The randomness.
    count : int
        How many bytes (≥ 0).

    Returns
    -------
    numpy.ndarray
        uint8 of shape (count,).
    """
    if isinstance(rng, np.random.Generator):
        words = rng.integers(0, 2**64 - 1, size=-(-count // 8), dtype=np.uint64, endpoint=True)
    else:
        words = rng.integers(0, 1 << 16, size=-(-count // 2), dtype=np.uint16)
    return words.view(np.uint8)[:count]


def bernoulli(rng: RandomSource, p: float | np.ndarray, size: tuple[int, ...] | int) -> np.ndarray:
    """Exact Bernoulli(p) draws as a ``bool`` array, using one random byte per draw.

    A byte ``B`` is uniform on 0..255; with ``k = floor(256 p)`` the draw is 1 if ``B < k``, 0 if
    ``B > k``, and on the tie ``B == k`` (probability 1/256) it is 1 with probability ``256 p - k``
    (a float64 uniform). The total probability is ``k/256 + (256p - k)/256 = p`` exactly (to float64
    resolution), at about a quarter of the cost of drawing float64 uniforms.

    The bytes come from :func:`random_bytes`, drawn and compared block by block so that the temporaries stay in
    cache; all ties are resolved with one final ``rng.random`` call.

    Parameters
    ----------
    rng : RandomSource
        The randomness (a numpy ``Generator`` or :class:`SecureRandom`).
    p : float or numpy.ndarray
        Success probability in [0, 1]: a scalar, or an array broadcastable to ``size`` (one probability per draw).
    size : int or tuple of int
        Shape of the output.

    Returns
    -------
    numpy.ndarray of bool
        The draws, of shape ``size``.

    Raises
    ------
    InvalidInput
        If any probability lies outside [0, 1].
    """
    p_arr = np.asarray(p, dtype=np.float64)
    if np.any((p_arr < 0) | (p_arr > 1)):
        raise InvalidInput("Bernoulli probability must lie in [0, 1]")
    block = 1 << 18  # draws per block: the temporaries stay small and in cache

    if p_arr.ndim == 0:
        scaled = float(p_arr) * 256.0
        k = int(scaled)  # floor: scaled >= 0
        frac = scaled - k  # exact
        out = np.empty(size, dtype=bool)
        flat = out.reshape(-1)  # a view of the fresh contiguous array
        if k >= 256 or (k == 0 and frac == 0.0):  # p = 1 or p = 0: nothing random to draw
            flat.fill(k >= 256)
            return out
        kb = np.uint8(k)
        ties = []
        n = flat.size
        for start in range(0, n, block):
            stop = min(n, start + block)
            byte = random_bytes(rng, stop - start)
            np.less(byte, kb, out=flat[start:stop])
            if frac > 0.0:  # with frac = 0 a tie is a 0, as B == k is not < k
                hit = np.flatnonzero(byte == kb)
                if hit.size:
                    ties.append(hit + start)
        if ties:
            idx = np.concatenate(ties)
            flat[idx] = rng.random(idx.size) < frac
        return out

    scaled = p_arr * 256.0
    k = np.floor(scaled)
    frac = scaled - k
    k = np.minimum(k, 256.0)
    byte = rng.integers(0, 256, size=size, dtype=np.uint8)
    k_b = np.broadcast_to(k, byte.shape)
    frac_b = np.broadcast_to(frac, byte.shape)
    bits = byte < k_b
    tie_idx = np.flatnonzero(byte == k_b)
    if tie_idx.size:
        bits.flat[tie_idx] = rng.random(tie_idx.size) < frac_b.flat[tie_idx]
    return bits


def bernoulli_select(rng: RandomSource, condition: np.ndarray, p_true: float, p_false: float) -> np.ndarray:
    """Bernoulli draws with probability ``p_true`` where ``condition`` holds and ``p_false`` elsewhere
    (same byte-threshold construction as :func:`bernoulli`, one byte per draw).

    Per block the threshold byte is ``k_false + condition * (k_true - k_false)`` in wrapping uint8
    arithmetic (two cheap passes instead of a ``where``), then one comparison and one tie check.
    """
    cond = np.asarray(condition, dtype=bool)
    scaled = np.array([p_false * 256.0, p_true * 256.0])
    if np.any((scaled < 0) | (scaled > 256)):
        raise InvalidInput("Bernoulli probability must lie in [0, 1]")
    k = np.floor(scaled)
    frac = scaled - k
    out = np.empty(cond.shape, dtype=bool)
    flat = out.reshape(-1)
    cflat = cond.reshape(-1)
    n = flat.size
    if k.max() >= 256:  # a probability of 1 does not fit a uint8 threshold: two plain passes
        flat[:] = bernoulli(rng, float(p_false), n)
        idx = np.flatnonzero(cflat)
        flat[idx] = bernoulli(rng, float(p_true), idx.size)
        return out
    k0 = np.uint8(k[0])
    step = np.uint8((int(k[1]) - int(k[0])) % 256)
    any_frac = bool(frac.max() > 0.0)
    block = 1 << 18
    ties = []
    for start in range(0, n, block):
        stop = min(n, start + block)
        byte = random_bytes(rng, stop - start)
        threshold = np.multiply(cflat[start:stop].view(np.uint8), step)
        np.add(threshold, k0, out=threshold)  # k1 where the condition holds (mod 256 arithmetic), k0 elsewhere
        np.less(byte, threshold, out=flat[start:stop])
        if any_frac:
            hit = np.flatnonzero(byte == threshold)
            if hit.size:
                ties.append(hit + start)
    if ties:
        idx = np.concatenate(ties)
        flat[idx] = rng.random(idx.size) < frac[cflat[idx].astype(np.int64)]
    return out


def laplace(rng: RandomSource, shape: tuple[int, ...], scale: float) -> np.ndarray:
    """Laplace(0, ``scale``) draws (float64) by inversion from two uniforms, resolving the deep tail finely.

    With u1, u2 on the 2⁻⁵³ grid of [0, 1), k2 = u2·2⁵³ (an integer), the sign is k2's
    lowest bit and c = (1 − u1) − 2⁻⁵³·(k2 >> 1)·2⁻⁵² is uniform on (0, 1] with resolution 2⁻¹⁰⁵ near 0, so
    |x| = −b ln c is Exp(1)·b to full relative precision out to |x| ≈ 70b (one uniform alone resolves the tail only
    to e^{-s} ≫ 2⁻⁵³, which would leave cells of a report grid empty under one input; see ``ldp.maths.grid``).

    Parameters
    ----------
    rng : RandomSource
        The randomness (two ``random`` calls of ``shape``).
    shape : tuple of int
        Shape of the output.
    scale : float
        The Laplace scale b > 0 (the density is e^{−|x|/b} / 2b).

    Returns
    -------
    numpy.ndarray
        The draws (float64), of shape ``shape``.
    """
    c, odd = _fine_uniform(rng, shape)
    np.log(c, out=c)
    c *= -float(scale)
    odd *= -2.0  # k2's lowest bit b → the sign 1 − 2b (a multiplication: a masked negation costs 20× more)
    odd += 1.0
    c *= odd
    return c


def _fine_uniform(rng: RandomSource, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(c, b): c = (1 − u1) − 2⁻⁵³·(k2 >> 1)·2⁻⁵² uniform on (0, 1] with resolution 2⁻¹⁰⁵ near 0 (c ≥ 2⁻¹⁰⁵:
    the subtraction is below 2⁻⁵³ ≤ 1 − u1), with k2 = u2·2⁵³, and b the lowest bit of k2 (0.0 or 1.0), left for
    a sign. u2 lies on the 2⁻⁵³ grid (both random sources draw 53-bit uniforms), so in floats, exactly:
    k2 >> 1 = ⌊u2·2⁵²⌋ and b = 2(u2·2⁵² − ⌊u2·2⁵²⌋) — the integers without their conversions."""
    c = rng.random(shape)
    half = rng.random(shape)
    half *= 2.0 ** 52
    low = np.floor(half)
    half -= low
    half *= 2.0  # b
    np.subtract(1.0, c, out=c)
    low *= 2.0 ** -105
    c -= low
    return c, half


def gaussian(rng: RandomSource, shape: tuple[int, ...], scale: float) -> np.ndarray:
    """N(0, ``scale``²) draws (float64) by Box–Muller from three uniforms, the radius's tail resolved finely.

    The radius is √(−2 ln c) with c uniform on (0, 1] built as in :func:`laplace` (resolution 2⁻¹⁰⁵ near 0), so
    draws reach |x| ≈ 12·scale (one uniform alone stops at √(2·53 ln 2) ≈ 8.6·scale); the angle is 2π·u3. A
    report beyond 12σ has probability < 10⁻³² under any input, far below any δ an (ε, δ) mechanism is run at.

    Parameters
    ----------
    rng : RandomSource
        The randomness (three ``random`` calls of ``shape``).
    shape : tuple of int
        Shape of the output.
    scale : float
        The standard deviation σ > 0.

    Returns
    -------
    numpy.ndarray
        The draws (float64), of shape ``shape``.
    """
    c, _ = _fine_uniform(rng, shape)
    np.log(c, out=c)
    c *= -2.0
    np.sqrt(c, out=c)
    c *= np.cos(2.0 * math.pi * rng.random(shape))
    c *= float(scale)
    return c


def discrete_laplace(rng: RandomSource, shape: tuple[int, ...], log_a: float,
                     out: np.ndarray | None = None) -> np.ndarray:
    """Discrete Laplace draws Z (integers, as float64): Pr[Z = z] = (1 − a)/(1 + a) · a^|z| with a = e^log_a < 1.

    One uniform per draw, by inversion of |Z| with the sign taken from the same uniform: u on the 2⁻⁵³ grid of
    [0, 1) gives the sign bit s = ⌊2u⌋ and w = 2u − s, uniform on the 2⁻⁵² grid of [0, 1) and independent of s.
    With c = (1 + a)/2, Pr[|Z| ≥ m] = a^m / c for m ≥ 1, so |Z| = ⌊ln(w·c)/ln a⌋ (Pr[|Z| ≥ m] = Pr[w ≤ a^m/c];
    Pr[Z = 0] = 1 − a/c = (1 − a)/(1 + a); each sign takes half of the rest) and Z = (1 − 2s)·|Z|, computed as
    trunc(ln(w·c)·(1 − 2s)/ln a) (truncation toward zero is the floor of |Z| of either sign).
    Resolution: the cell of w that gives |Z| = m is a^m(1 − a)/c wide; every w below 2⁻¹² (probability 2⁻¹²,
    about one draw in 4,096) is refined with a second uniform to the 2⁻¹⁰⁵ grid (its midpoints, so that w > 0),
    which keeps at least 2²⁰ equally likely uniforms in the cell of every |Z| out to w = 2⁻⁶⁰ when
    1 − a ≥ 2⁻¹⁵ — beyond the ±40 b clamp of the grids that use it (e⁻⁴⁰ ≈ 2⁻⁵⁸) — so every realised
    probability is the ideal one to a relative 2⁻²⁰ and no output the ideal sampler can produce is unreachable
    (see ``ldp.maths.grid``). The logarithm is fdlibm's, compiled, within 1 ulp of the exact one: it moves a
    cell's ends by a relative 2⁻⁵²·|ln w| at most, far below the 2⁻²⁰ above.

    Cost: one float64 uniform per draw, and one compiled pass over them (``ldp.core.compiled``; numpy's own
    passes cost twice the uniforms, numpy's geometric and Laplace samplers 4-7 times).

    Parameters
    ----------
    rng : RandomSource
        The randomness (one ``random`` call of ``shape``, plus one for the refined draws).
    shape : tuple of int
        Shape of the output.
    log_a : float
        ln a, strictly negative (a = e^{−ε/Δ} for a discrete Laplace mechanism of budget ε and sensitivity Δ).
    out : numpy.ndarray, optional
        A float64, C-contiguous array of ``shape`` that receives the draws without a fresh allocation.

    Returns
    -------
    numpy.ndarray
        The draws (integers stored as float64), of shape ``shape``; ``out`` itself when given.

    Raises
    ------
    InvalidInput
        If ``log_a`` is not below 0 (a ≥ 1 is not a distribution).
    """
    if not log_a < 0.0:
        raise InvalidInput(f"the discrete Laplace parameter a = e^{log_a} must be below 1")
    shape = (int(shape),) if isinstance(shape, int | np.integer) else tuple(int(x) for x in shape)
    if out is None:
        out = np.empty(shape, dtype=np.float64)
    elif out.shape != shape or out.dtype != np.float64 or not out.flags.c_contiguous:
        raise InvalidInput(f"out must be a C-contiguous float64 array of shape {shape}")
    if out.size == 0:
        return out
    rows = uniforms(rng, shape).reshape(-1, shape[-1] if shape else 1)
    discrete_laplace_grid(rng, rows, log_a, np.full(rows.shape[0], -1, dtype=np.int64), 0.0, -math.inf, math.inf,
                          out=out.reshape(rows.shape))
    return out


def uniforms(rng: RandomSource, shape: tuple[int, ...], out: np.ndarray | None = None) -> np.ndarray:
    """``rng.random(shape)`` as a float64, C-contiguous array, drawn into ``out`` when given (a ``Generator``
    draws in place; another source's array is copied in).

    Parameters
    ----------
    rng : RandomSource
        The randomness.
    shape : tuple of int
        Shape of the draws.
    out : numpy.ndarray, optional
        A float64, C-contiguous array of ``shape``.

    Returns
    -------
    numpy.ndarray
        The uniforms (``out`` itself when given).
    """
    if out is None:
        out = np.empty(shape, dtype=np.float64)
    if isinstance(rng, np.random.Generator):
        rng.random(shape, out=out)
    else:
        out[...] = rng.random(shape)
    return out


def discrete_laplace_grid(rng: RandomSource, u: np.ndarray, log_a: float, own: np.ndarray, own_steps: float,
                          lo: float, hi: float, *, out: np.ndarray | None = None,
                          total: np.ndarray | None = None) -> None:
    """Grid indices k = clamp(own_steps·1[j = own[i]] + Z_ij, lo, hi) from the uniforms u (rows × cells, just
    drawn from ``rng``), Z the :func:`discrete_laplace` draws (their refined cells take their second uniforms
    from ``rng`` now, in row-major order): written to ``out``, or, with ``total``, summed over the rows less the
    rows' own steps (k − own_steps·1[j = own[i]]: the caller adds the users' own steps as counts). One compiled
    pass (``ldp.core.compiled.discrete_laplace_rows``).

    Parameters
    ----------
    rng : RandomSource
        The source the uniforms came from.
    u : numpy.ndarray
        float64, C-contiguous, rows × cells, on the 2⁻⁵³ grid of [0, 1) (any ``RandomSource``'s ``random``).
    log_a : float
        ln a, strictly negative.
    own : numpy.ndarray
        int64, one per row: the cell that gets ``own_steps`` (−1: none).
    own_steps : float
        The steps added at a row's own cell (1/δ for SHE).
    lo, hi : float
        The grid's ends, in steps (±inf: no clamp).
    out : numpy.ndarray, optional
        float64 of u's shape (not u itself): receives the indices.
    total : numpy.ndarray, optional
        float64 of one row's length: the rows' indices less their own steps are added to it.

    Raises
    ------
    InvalidInput
        If ``log_a`` is not below 0.
    """
    if not log_a < 0.0:
        raise InvalidInput(f"the discrete Laplace parameter a = e^{log_a} must be below 1")
    # the compiled loops read these without bounds checks: shapes, types and layout are checked here
    if u.ndim != 2 or u.dtype != np.float64 or not u.flags.c_contiguous:
        raise InvalidInput(f"u must be a C-contiguous float64 array of rows × cells, got {u.dtype} of shape {u.shape}")
    if (out is None) == (total is None):
        raise InvalidInput("give exactly one of out and total")
    own = np.ascontiguousarray(own, dtype=np.int64)
    if own.shape != (u.shape[0],):
        raise InvalidInput(f"own must hold one cell per row ({u.shape[0]}), got shape {own.shape}")
    if out is not None and (out.shape != u.shape or out.dtype != np.float64 or not out.flags.c_contiguous
                            or np.may_share_memory(out, u)):
        raise InvalidInput(f"out must be a C-contiguous float64 array of shape {u.shape}, apart from u")
    if total is not None and (total.shape != (u.shape[1],) or total.dtype != np.float64):
        raise InvalidInput(f"total must be a float64 array of {u.shape[1]} entries")
    from ldp.core.compiled import discrete_laplace_refine, discrete_laplace_rows  # numba, loaded on first use

    out = np.empty((0, 0)) if out is None else out
    total = np.empty(0) if total is None else total
    flagged = np.empty(u.shape[0], dtype=np.int64)
    listed, left = discrete_laplace_rows(u, float(log_a), own, float(own_steps), float(lo), float(hi), out, total,
                                         flagged)
    if left:  # about one draw in 4,096: their second uniforms, in row-major order
        extra = np.asarray(rng.random(left), dtype=np.float64)
        discrete_laplace_refine(u, flagged[:listed], extra, float(log_a), own, float(own_steps), float(lo),
                                float(hi), out, total)
