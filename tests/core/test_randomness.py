"""Sources of randomness (ldp.core.randomness): the byte-threshold Bernoulli samplers are exact, SecureRandom
offers the two Generator methods the clients use, make_rng validates seeds.

Tolerances come from theory (see tests/mechanisms/frequency/test_client_sampling.py): a frequency of n
Bernoulli(p) draws must lie within 5 binomial standard deviations of p. The sample sizes make the bounds tighter
than the error of a broken step (e.g. a tie refinement that always answered 0 would move bernoulli(1.5/256) by
0.5/256 ≈ 0.002, about 50 standard deviations with 2^22 draws, and bernoulli(0.3 + 1e-4) by 0.0032, about 14).
"""

from __future__ import annotations

import numpy as np
import pytest
from ldp_test_support import FixedUniforms, assert_frequency

import ldp
from ldp.core.randomness import SecureRandom, bernoulli, bernoulli_select, make_rng, spawn

# p chosen to exercise: p = 0 and 1 (no randomness), exact multiples of 1/256 (no ties), fractional
# parts of 256p in (0, 1) (the tie refinement), tiny p (k = 0: only ties can give a 1), p near 1.
BERNOULLI_PS = [0.0, 1.0, 0.5, 69 / 256, 1.5 / 256, 1e-3, 0.3 + 1e-4, 0.73105857863, 1 - 0.7 / 256, 1 - 1e-9]


@pytest.mark.parametrize("p", BERNOULLI_PS)
def test_bernoulli_frequency(p: float) -> None:
    n = 1 << 22  # several blocks of the sampler, σ ≤ 2.5e-4
    bits = bernoulli(np.random.default_rng(11), p, n)
    assert bits.dtype == np.bool_ and bits.shape == (n,)
    if p in (0.0, 1.0):
        assert bits.sum() == n * p
    assert_frequency(int(bits.sum()), n, p, f"bernoulli({p})")


def test_bernoulli_shapes_and_independence() -> None:
    rng = np.random.default_rng(12)
    bits = bernoulli(rng, 0.3 + 1e-4, (300, 1024))
    assert bits.shape == (300, 1024) and bits.dtype == np.bool_
    assert bernoulli(rng, 0.4, 0).shape == (0,)
    # neighbouring draws come from the two bytes of one 16-bit word: they must be independent.
    # P(both set) = p², checked over the 153600 disjoint (even, odd) pairs.
    flat = bits.reshape(-1)
    p = 0.3 + 1e-4
    assert_frequency(int(np.count_nonzero(flat[0::2] & flat[1::2])), flat.size // 2, p * p, "pairs")
    with pytest.raises(ldp.LDPError):
        bernoulli(rng, 1.5, 3)


def test_bernoulli_array_probabilities() -> None:
    p = np.array([0.0, 1.5 / 256, 0.25, 0.61, 1.0])
    n = 1 << 18
    bits = bernoulli(np.random.default_rng(13), np.broadcast_to(p, (n, p.size)), (n, p.size))
    for j, pj in enumerate(p):
        assert_frequency(int(bits[:, j].sum()), n, float(pj), f"column {j}")


@pytest.mark.parametrize(("p_true", "p_false"), [
    (0.62245933, 0.37754067),  # SUE-like, both with ties
    (0.5, 0.26894142),  # OUE-like: p_true a multiple of 1/256
    (0.2, 0.7 + 1e-5),  # p_true below p_false (the uint8 threshold wraps)
    (1.0, 0.1 + 1e-6),  # a probability of one
    (0.3 + 1e-7, 1.0),
    (0.0, 0.9),
])
def test_bernoulli_select_frequency(p_true: float, p_false: float) -> None:
    rng = np.random.default_rng(14)
    n = 1 << 21
    cond = rng.random(n) < 0.35
    bits = bernoulli_select(rng, cond, p_true, p_false)
    assert bits.shape == cond.shape and bits.dtype == np.bool_
    assert_frequency(int(bits[cond].sum()), int(cond.sum()), p_true, "where the condition holds")
    assert_frequency(int(bits[~cond].sum()), int((~cond).sum()), p_false, "elsewhere")


def test_bernoulli_select_keeps_shape() -> None:
    cond = np.random.default_rng(15).random((70, 33)) < 0.5
    out = bernoulli_select(np.random.default_rng(16), cond.T, 0.9, 0.1)  # non-contiguous condition
    assert out.shape == (33, 70)
    assert_frequency(int(out[cond.T].sum()), int(cond.sum()), 0.9, "transposed condition")


def test_bernoulli_select_rejects_bad_probabilities() -> None:
    with pytest.raises(ldp.LDPError, match=r"\[0, 1\]"):
        bernoulli_select(np.random.default_rng(0), np.ones(3, dtype=bool), 1.2, 0.1)


def test_secure_random_integers_and_uniforms() -> None:
    rng = SecureRandom()
    x = rng.integers(0, 6, size=60_000)
    assert x.dtype == np.int64 and x.min() == 0 and x.max() == 5
    for v in range(6):
        assert_frequency(int(np.count_nonzero(x == v)), x.size, 1 / 6, f"secure integers == {v}")
    y = rng.integers(3, 5, size=(4, 5), dtype=np.uint8)
    assert y.shape == (4, 5) and y.dtype == np.uint8 and set(np.unique(y)) <= {3, 4}
    assert 0 <= rng.integers(7) < 7 and isinstance(rng.random(), float)
    assert rng.integers(1, 2, endpoint=True) in (1, 2)
    u = rng.random(50_000)
    assert u.shape == (50_000,) and np.all((u >= 0) & (u < 1))
    assert_frequency(int(np.count_nonzero(u < 0.25)), u.size, 0.25, "secure uniforms below 1/4")
    with pytest.raises(ldp.LDPError, match="greater than low"):
        rng.integers(5, 5, size=3)


def test_make_rng_and_spawn() -> None:
    a, b = make_rng(3), make_rng(3)
    assert a.random() == b.random()
    g = np.random.default_rng(0)
    assert make_rng(g) is g
    for bad in (-1, 1.5, "3", True):
        with pytest.raises(ldp.LDPError, match="seed"):
            make_rng(bad)
    children = spawn(np.random.default_rng(4), 3)
    again = spawn(np.random.default_rng(4), 3)
    assert len(children) == 3
    assert [c.random() for c in children] == [c.random() for c in again]
    assert len({c.random() for c in spawn(np.random.default_rng(4), 3)}) == 3  # independent children


class _Fixed:
    """A random source returning given uniforms, one array per ``random`` call."""

    def __init__(self, *arrays):
        self.arrays = list(arrays)

    def random(self, size=None, dtype=np.float64):
        return np.array(self.arrays.pop(0), dtype=np.float64).reshape(size)  # a copy: samplers work in place


def test_fine_uniform_in_floats_is_the_integer_construction_bit_for_bit():
    """laplace and gaussian build c = (1 − u1) − (k2 >> 1)·2⁻¹⁰⁵ and the sign bit k2 & 1 of k2 = u2·2⁵³ in floats
    (exact on the 2⁻⁵³ grid both sources draw on): the same bits as the integer route, signed zeros included, at
    the edges (u1 = 0: c = 1 and a zero draw; u2 = 0, 2⁻⁵³, 1 − 2⁻⁵³) and on a seeded sample."""
    from ldp.core.randomness import gaussian, laplace

    def by_integers(u1, u2, scale):
        k2 = (u2 * 2.0 ** 53).astype(np.int64)
        c = (1.0 - u1) - (k2 >> 1).astype(np.float64) * 2.0 ** -105
        x = np.log(c) * -scale
        return np.negative(x, out=x, where=(k2 & 1).astype(bool)), c

    u1 = np.concatenate([[0.0, 0.0, 0.0, 0.5, 1 - 2.0 ** -53], np.random.default_rng(1).random(10_000)])
    u2 = np.concatenate([[0.0, 2.0 ** -53, 1 - 2.0 ** -53, 3 * 2.0 ** -53, 1 - 2.0 ** -53],
                         np.random.default_rng(2).random(10_000)])
    u3 = np.random.default_rng(3).random(u1.size)
    want, c = by_integers(u1, u2, 0.7)
    got = laplace(_Fixed(u1, u2), u1.shape, 0.7)
    assert np.array_equal(got.view(np.int64), want.view(np.int64))
    radius = np.sqrt(np.log(c) * -2.0) * np.cos(2.0 * np.pi * u3) * 1.3
    assert np.array_equal(gaussian(_Fixed(u1, u2, u3), u1.shape, 1.3).view(np.int64), radius.view(np.int64))


# --------------------------------------------------------------------------- discrete Laplace (compiled)


def _discrete_laplace_reference(u: np.ndarray, extra: np.ndarray, log_a: float) -> tuple[np.ndarray, np.ndarray]:
    """The sampler's formula in numpy passes (the implementation before the compiled one): sign s = ⌊2u⌋,
    w = 2u − s, w below 2⁻¹² refined by the next extra uniform in row-major order, Z = trunc((ln w + ln c)·g).
    Also returns the distance of each (ln w + ln c)·g to its nearest integer (where a 1-ulp log could differ)."""
    x = u * 2.0
    s = np.floor(x)
    w = x - s
    low = np.flatnonzero(w.ravel() < 2.0**-12)
    flat = w.reshape(-1)
    flat[low] += (extra[:low.size] + 2.0**-54) * 2.0**-52
    a = np.exp(log_a)
    ln_c = np.log1p(-np.expm1(log_a) / (2.0 * a)) + log_a
    y = (np.log(w) + ln_c) * np.where(s > 0, -2.0 / log_a + 1.0 / log_a, 1.0 / log_a)
    return np.trunc(y), np.abs(y - np.rint(y))


@pytest.mark.parametrize("log_a", [-2.0**-12, -0.5, -3.0])
def test_compiled_discrete_laplace_matches_its_formula(log_a: float) -> None:
    """The compiled sampler (one fused pass, fdlibm's logarithm) gives the draws its formula gives with numpy's
    logarithm, cell for cell — refined cells with their second uniforms in row-major order included — except
    where a value lies within a 1-ulp logarithm's reach of an integer (none in these draws)."""
    rng = np.random.default_rng(31)
    u = rng.random((64, 1024))
    u[3, 5], u[7, 0], u[9, 1023] = 0.0, 0.5, 2.0**-13 * 0.5  # w = 0 (twice) and w = 2⁻¹³: refined
    extra = rng.random(4096)
    got = ldp.core.randomness.discrete_laplace(FixedUniforms(u, extra), u.shape, log_a)
    want, margin = _discrete_laplace_reference(u, extra, log_a)
    assert int((u * 2.0 - np.floor(u * 2.0) < 2.0**-12).sum()) >= 3
    near = margin < 1e-9
    np.testing.assert_array_equal(got[~near], want[~near])


def test_compiled_logarithm_is_within_one_ulp() -> None:
    """The vectorizable logarithm (fdlibm's algorithm on the float's bits) is within 1 ulp of libm's over the
    range the sampler uses: the 2⁻⁵² grid of (0, 1), and the refined draws down to 2⁻¹⁰⁶."""
    import numba

    from ldp.core import compiled

    @numba.njit(error_model="numpy")
    def logs(x: np.ndarray) -> np.ndarray:
        out = np.empty_like(x)
        for i in range(x.shape[0]):
            out[i] = compiled._ln(x[i])
        return out

    rng = np.random.default_rng(32)
    x = np.concatenate([rng.integers(1, 2**52, 200_000) * 2.0**-52, np.exp2(-rng.uniform(0, 106, 200_000)),
                        [2.0**-106, 2.0**-52, 0.5, 1 - 2.0**-52, np.sqrt(0.5), np.sqrt(2) / 2 + 2.0**-53]])
    got, want = logs(x), np.log(x)
    assert np.all(np.abs(got - want) <= np.spacing(np.abs(want)))


def test_discrete_laplace_shapes_and_out() -> None:
    rng = np.random.default_rng(33)
    assert ldp.core.randomness.discrete_laplace(rng, (3, 0), -0.5).shape == (3, 0)
    assert ldp.core.randomness.discrete_laplace(rng, 5, -0.5).shape == (5,)
    out = np.empty((4, 4))
    assert ldp.core.randomness.discrete_laplace(rng, (4, 4), -0.5, out=out) is out
    for bad in (np.empty((4, 4), dtype=np.float32), np.empty((4, 8))[:, ::2], np.empty((2, 8))):
        with pytest.raises(ldp.LDPError, match="C-contiguous float64"):
            ldp.core.randomness.discrete_laplace(rng, (4, 4), -0.5, out=bad)
    with pytest.raises(ldp.LDPError, match="below 1"):
        ldp.core.randomness.discrete_laplace(rng, (4, 4), 0.0)


def test_discrete_laplace_grid_checks_what_the_compiled_loop_reads() -> None:
    """The compiled loop runs without bounds checks: every array it reads or writes is checked first, in one line."""
    grid = ldp.core.randomness.discrete_laplace_grid
    rng = np.random.default_rng(34)
    u, own = rng.random((4, 8)), np.zeros(4, dtype=np.int64)
    cases = [
        (dict(u=u[:, ::2], own=own, total=np.zeros(4)), "C-contiguous float64"),
        (dict(u=u.ravel(), own=own, total=np.zeros(8)), "C-contiguous float64"),
        (dict(u=u.astype(np.float32), own=own, total=np.zeros(8)), "C-contiguous float64"),
        (dict(u=u, own=own[:3], total=np.zeros(8)), "own must hold one cell per row"),
        (dict(u=u, own=own, total=np.zeros(7)), "total must be a float64 array of 8"),
        (dict(u=u, own=own, out=np.empty((4, 7))), "out must be a C-contiguous float64 array of shape"),
        (dict(u=u, own=own, out=u), "apart from u"),
        (dict(u=u, own=own), "exactly one of out and total"),
        (dict(u=u, own=own, out=np.empty((4, 8)), total=np.zeros(8)), "exactly one of out and total"),
    ]
    kept = u.copy()
    for kwargs, reason in cases:
        with pytest.raises(ldp.LDPError, match=reason):
            grid(rng, kwargs.pop("u"), -0.5, kwargs.pop("own"), 2.0, -10.0, 10.0, **kwargs)
    np.testing.assert_array_equal(u, kept)  # nothing written before the checks refused
