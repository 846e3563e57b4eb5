"""The fast client samplers are exact: statistical checks with fixed seeds.

Covers ``sample_subsets`` and SS (uniform subsets by exchangeable bits plus a uniform fix-up), SHE (discrete
Laplace on the report grid, by inversion) and the longitudinal UE chains (memoized bits, then re-randomized),
each also driven by SecureRandom.
(``bernoulli`` / ``bernoulli_select``, the byte thresholds with tie refinement, are tested in
tests/core/test_randomness.py.)

Tolerances come from theory, never from tuning:

- a frequency of n Bernoulli(p) draws must lie within 5 standard deviations, 5·sqrt(p(1−p)/n), of p
  (a correct sampler fails with probability about 6e-7 per check, normal approximation);
- Pearson chi-square statistics against the exact channel must stay below the chi-square quantile
  of upper tail 1e-6 for their degrees of freedom;
- Kolmogorov–Smirnov tests must have p-value above 1e-6.

The seeds are fixed, so the tests are deterministic; the bounds say how unlikely a failure would be
for an exact sampler.
"""

from __future__ import annotations

import itertools
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from ldp_test_support import SIGMAS, FixedUniforms, assert_frequency
from scipy import stats

import ldp
from ldp.core.randomness import SecureRandom, bernoulli, bernoulli_select
from ldp.mechanisms.frequency.subset_selection import sample_subsets

TAIL = 1e-6  # upper-tail probability for chi-square and KS checks


def assert_chi_square(observed: np.ndarray, expected: np.ndarray, what: str = "") -> None:
    """Pearson chi-square of observed counts against expected counts, df = cells − 1."""
    observed = np.asarray(observed, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    assert observed.sum() == pytest.approx(expected.sum())
    chi2 = float(((observed - expected) ** 2 / expected).sum())
    limit = stats.chi2.isf(TAIL, observed.size - 1)
    assert chi2 < limit, f"{what}: chi-square {chi2:.1f} above {limit:.1f} (df {observed.size - 1})"


def subset_codes(subsets: np.ndarray) -> np.ndarray:
    """Each row (a set of small integers) as a bit mask."""
    return (np.int64(1) << subsets.astype(np.int64)).sum(axis=1)


def subset_histogram(subsets: np.ndarray, universe: int, size: int) -> tuple[np.ndarray, list[tuple[int, ...]]]:
    """Counts of every size-subset of [0, universe), in itertools.combinations order."""
    combos = list(itertools.combinations(range(universe), size))
    index = np.full(1 << universe, -1)
    for i, combo in enumerate(combos):
        index[sum(1 << x for x in combo)] = i
    idx = index[subset_codes(subsets)]
    assert np.all(idx >= 0), "a row is not a subset of the right size"
    return np.bincount(idx, minlength=len(combos)), combos


def assert_valid_subsets(reports: np.ndarray, m: int, size: int, universe: int) -> None:
    """Shape (m, size), integer entries in [0, universe), strictly increasing along each row."""
    assert reports.shape == (m, size)
    assert np.issubdtype(reports.dtype, np.integer)
    assert reports.min(initial=0) >= 0 and reports.max(initial=0) < universe
    assert np.all(np.diff(reports, axis=1) > 0), "rows must be sorted with distinct entries"


# --------------------------------------------------------------------------- bernoulli


# --------------------------------------------------------------------------- subsets


@pytest.mark.parametrize(("universe", "size"), [(5, 2), (7, 3), (6, 1), (6, 5), (8, 4)])
def test_sample_subsets_uniform(universe: int, size: int) -> None:
    n = 60_000
    subsets = sample_subsets(universe, size, n, np.random.default_rng(21))
    assert_valid_subsets(subsets, n, size, universe)
    counts, combos = subset_histogram(subsets, universe, size)
    assert_chi_square(counts, np.full(len(combos), n / len(combos)), f"{size}-subsets of {universe}")


def test_sample_subsets_edges() -> None:
    rng = np.random.default_rng(22)
    assert sample_subsets(10, 0, 4, rng).shape == (4, 0)
    assert sample_subsets(10, 3, 0, rng).shape == (0, 3)
    full = sample_subsets(9, 9, 5, rng)
    assert np.array_equal(full, np.tile(np.arange(9), (5, 1)))
    with pytest.raises(ldp.LDPError):
        sample_subsets(4, 5, 2, rng)


@pytest.mark.parametrize(("exclude", "include", "reason"), [
    (np.array([0, 10]), None, "exclude must hold one value in"),  # beyond the universe
    (np.array([0, -1]), None, "exclude must hold one value in"),  # numpy would wrap it to the last value
    (np.array([0, 1, 2]), None, "exclude must hold one value in"),  # one per subset
    (np.array([0.0, 1.0]), None, "exclude must hold one value in"),
    (np.array([0, 1]), np.array([True]), "include must hold one bool per subset"),
    (np.array([0, 1]), np.array([1, 0]), "include must hold one bool per subset"),
])
def test_sample_subsets_refuses_what_the_compiled_fix_up_would_misread(exclude, include, reason) -> None:
    """The compiled fix-up reads ``exclude`` without bounds checks: a value outside the universe, or arrays of the
    wrong length or type, end in one line before anything is drawn."""
    with pytest.raises(ldp.LDPError, match=reason):
        sample_subsets(10, 3, 2, np.random.default_rng(25), exclude=exclude, include=include)


def test_sample_subsets_exclude_and_include() -> None:
    """exclude: uniform over the other values; include: exclude[i] plus a uniform (size−1)-subset."""
    universe, size, n = 6, 3, 60_000
    rng = np.random.default_rng(23)
    exclude = rng.integers(0, universe, n)
    include = rng.random(n) < 0.4
    subsets = sample_subsets(universe, size, n, rng, exclude=exclude, include=include)
    assert_valid_subsets(subsets, n, size, universe)
    has = (subsets == exclude[:, None]).any(axis=1)
    assert np.array_equal(has, include)
    for v in range(universe):
        for inc in (False, True):
            rows = (exclude == v) & (include == inc)
            counts, combos = subset_histogram(subsets[rows], universe, size)
            allowed = np.array([(v in c) == inc for c in combos])
            assert counts[~allowed].sum() == 0
            expected = np.where(allowed, rows.sum() / allowed.sum(), 0.0)
            assert_chi_square(counts[allowed], expected[allowed], f"v={v}, include={inc}")


def test_the_compiled_fix_up_is_loaded_on_first_use_only() -> None:
    """numba (SS's fix-up) is imported when a subset is first drawn, not by ``import ldp``: the dashboard's cold
    start does not pay for it."""
    script = ("import sys, numpy as np, ldp\n"
              "assert 'numba' not in sys.modules, 'import ldp imported numba'\n"
              "ldp.get_mechanism('ss', 1.0, 8).perturb(np.arange(8), np.random.default_rng(0))\n"
              "assert 'numba' in sys.modules\n")
    root = str(Path(ldp.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (root, os.environ.get("PYTHONPATH"))))}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


def test_sample_subsets_large_rows_are_uniform() -> None:
    """The SS shape (d = 1024, ω = 275): every value is drawn equally often, and adjacent values
    appear together as often as in uniform subsets."""
    universe, size, n = 1024, 275, 4096
    subsets = sample_subsets(universe, size, n, np.random.default_rng(24))
    assert_valid_subsets(subsets, n, size, universe)
    # The indicator vector of a uniform size-subset has covariance π(1−π)·U/(U−1)·(I − J/U) with
    # π = size/U, so Σ_v (c_v − nπ)² / (nπ(1−π)) · (U−1)/U is asymptotically chi-square, U − 1 df.
    pi = size / universe
    counts = np.bincount(subsets.ravel(), minlength=universe)
    chi2 = float(((counts - n * pi) ** 2).sum() / (n * pi * (1 - pi)) * (universe - 1) / universe)
    assert chi2 < stats.chi2.isf(TAIL, universe - 1)
    # Adjacent pairs (v, v+1) both present: per row the mean is (U−1)·size(size−1)/(U(U−1)); the
    # rows are independent, so the sample mean is within 5 standard errors (CLT, n = 4096 rows).
    member = np.zeros((n, universe), dtype=bool)
    member[np.arange(n)[:, None], subsets] = True
    pairs = np.count_nonzero(member[:, 1:] & member[:, :-1], axis=1)
    mean = size * (size - 1) / universe
    assert abs(pairs.mean() - mean) < SIGMAS * pairs.std() / math.sqrt(n)


# --------------------------------------------------------------------------- SS


@pytest.mark.parametrize("omega", [1, 2, 3, 4])
def test_ss_channel_small_domain(omega: int) -> None:
    """d = 5: every input's report histogram over all C(5, ω) subsets matches the exact channel
    (ω = 1 and ω = 4 = d − 1 exercise empty and full fix-up targets)."""
    d, n_per_value = 5, 40_000
    mech = ldp.get_mechanism("ss", 1.0, d, omega=omega)
    channel, _ = mech.channel()
    values = np.repeat(np.arange(d), n_per_value)
    reports = mech.perturb(values, np.random.default_rng(31 + omega))
    assert_valid_subsets(reports, values.size, omega, d)
    for v in range(d):
        counts, _ = subset_histogram(reports[values == v], d, omega)
        assert_chi_square(counts, channel[v] * n_per_value, f"SS ω={omega}, v={v}")


def test_ss_inclusion_probability_and_layout() -> None:
    mech = ldp.get_mechanism("ss", 1.0, 1024)
    assert mech.omega == 275
    n = 16_384
    values = np.random.default_rng(41).integers(0, 1024, n)
    reports = mech.perturb(values, np.random.default_rng(42))
    assert reports.dtype == np.int64
    assert_valid_subsets(reports, n, mech.omega, 1024)
    assert_frequency(int((reports == values[:, None]).any(axis=1).sum()), n, mech.p_star, "Pr[v reported]")
    # another value w ≠ v is reported with probability q*
    other = (values + 1 + np.random.default_rng(43).integers(0, 1023, n)) % 1024
    assert_frequency(int((reports == other[:, None]).any(axis=1).sum()), n, mech.q_star, "Pr[w reported]")


# --------------------------------------------------------------------------- SHE


def test_she_noise_is_laplace() -> None:
    mech = ldp.get_mechanism("she", 1.0, 64)
    b = mech.scale
    n = 8192
    values = np.random.default_rng(51).integers(0, 64, n)
    reports = mech.perturb(values, np.random.default_rng(52))
    assert reports.dtype == np.float32 and reports.shape == (n, 64)
    assert np.all(np.isfinite(reports))
    own = np.zeros(reports.shape, dtype=bool)
    own[np.arange(n), values] = True
    noise = reports.astype(np.float64) - own
    x = noise.ravel()  # 524288 Laplace(b) draws
    # mean 0, sd b√2; sample variance has variance (E X⁴ − (E X²)²)/N = (24 − 4) b⁴ / N
    assert abs(x.mean()) < SIGMAS * b * math.sqrt(2 / x.size)
    assert abs(x.var() - 2 * b * b) < SIGMAS * math.sqrt(20 * b**4 / x.size)
    assert stats.kstest(x, stats.laplace(scale=b).cdf).pvalue > TAIL
    # the user's own coordinate is 1 + Laplace(b)
    assert stats.kstest(noise[own], stats.laplace(scale=b).cdf).pvalue > TAIL
    # tails: Pr[|X| > t b] = e^{-t}
    for t in (3.0, 8.0):
        assert_frequency(int(np.count_nonzero(np.abs(x) > t * b)), x.size, math.exp(-t), f"tail beyond {t}b")


def test_she_inversion_endpoints() -> None:
    """One uniform u per coordinate: sign s = ⌊2u⌋, w = 2u − s, |Z| = ⌈ln(w·c)/ln a⌉ − 1 grid steps (c = (1 + a)/2),
    i.e. the m with a^(m+1)/c ≤ w < a^m/c; w below 2⁻¹² is refined by a second uniform (to the midpoints of the
    2⁻¹⁰⁵ grid), so that w = 0 is finite and clamped, the refined draws reach beyond one uniform's tail (w = 2⁻⁵²,
    52·b·ln 2), zero noise of either sign is +0.0, and every report is a grid point.
    (Replaces the endpoint test of the continuous two-uniform Laplace inversion, which SHE no longer uses.)"""
    mech = ldp.get_mechanism("she", 1.0, 4)
    b, grid = mech.scale, mech.output_grid
    log_a, a = mech.noise_log_parameter, mech.noise_parameter
    c = (1 + a) / 2
    one = round(1 / grid.step)
    ulp = 2.0**-53
    u = np.array([0.5, 0.25, 1 - ulp, 0.0, 0.75, 0.5 + ulp, 2.0**-13, 0.5])  # cells (user 0: 0..3, user 1: 4..7)
    refine = np.array([0.0, 1 - ulp, 0.0, 0.5])  # cells 0, 3, 5, 7 (w = 0, 0, 2⁻⁵², 0); cell 6's w = 2⁻¹² is not
    source = FixedUniforms(np.concatenate([u, refine]))
    x = mech._perturb(np.array([0, 0]), source).astype(np.float64).ravel()
    assert source.used == 12
    sign = np.array([-1, 1, -1, 1, -1, -1, 1, -1])
    w = np.array([2.0**-106, 0.5, 1 - 2 * ulp, (1 - ulp / 2) * 2.0**-52, 0.5, 2.0**-52 * (1 + 2.0**-54),
                  2.0**-12, (0.5 + 2.0**-54) * 2.0**-52])
    m = np.array([math.ceil(math.log(wi * c) / log_a) - 1 for wi in w])
    for wi, mi in zip(w[1:], m[1:], strict=True):  # the defining inequalities (cell 0 is far beyond the grid)
        assert a ** (mi + 1) / c <= wi < (a**mi / c if mi else 2.0)
    own = np.array([1, 0, 0, 0, 1, 0, 0, 0]) * one
    expected = grid.value(np.clip(own + sign * m, grid.lo_index, grid.hi_index))
    np.testing.assert_array_equal(x, expected)
    assert x[0] == grid.value(grid.lo_index)  # w = 2⁻¹⁰⁶: |Z| = 73.5·b, clamped to the grid's end
    assert m[2] == 0 and not np.signbit(x[2])  # zero noise with a negative sign is +0.0
    assert abs(x[7]) > b * 52 * math.log(2) + grid.step  # beyond what w ≥ 2⁻⁵² can give: the refinement's reach
    assert abs(abs(x[7]) - b * 53 * math.log(2)) < 2 * grid.step
    assert grid.contains(x).all()


def test_ss_fused_sum_counts_past_a_uint16_block() -> None:
    """SS's fused sum (``perturb_aggregate``) counts the subsets' bit matrix in uint16 blocks of 65,535 rows: with
    70,000 users, all with the same value, that value's count passes 65,535 and still equals, exactly, the count of
    the reports ``perturb`` makes from the same seed (a wrapped uint16 would be off by 65,536)."""
    mech = ldp.get_mechanism("ss", 8.0, 4)  # ω = 1: p* = e^8/(e^8 + 3), so nearly every report names the value
    values = np.zeros(70_000, dtype=np.int64)
    fused = mech.perturb_aggregate(values, np.random.default_rng(5))
    plain = mech.aggregate(mech.perturb(values, np.random.default_rng(5)))
    np.testing.assert_array_equal(fused.counts, plain.counts)
    assert fused.counts[0] > 65_535


def test_she_clamped_reports_aggregate_to_the_fused_statistic() -> None:
    """The exact engine's fused sum (``perturb_aggregate``) adds the users' own steps as counts and sums the clamped
    indices less them: where the clamp bites (w = 2⁻¹⁰⁶ at a user's own value, of either sign, and elsewhere) it
    still gives, to the bit, the column sums of the reports ``perturb`` makes from the same uniforms."""
    mech = ldp.get_mechanism("she", 1.0, 4)
    u = np.array([0.0, 0.25, 0.7, 0.5, 0.6, 0.5, 0.3, 0.5, 0.4, 0.2, 0.8, 0.1])  # 3 users × 4 cells
    refine = np.zeros(4)  # cells 0 (u = 0: +), 3, 5, 7 (u = ½: −): w = 0 → 2⁻¹⁰⁶, far beyond either grid end
    values = np.array([0, 3, 1])
    reports = mech._perturb(values, FixedUniforms(np.concatenate([u, refine])))
    grid = mech.output_grid
    lo, hi = grid.value(grid.lo_index), grid.value(grid.hi_index)
    assert (reports[0, 0], reports[0, 3], reports[1, 1], reports[1, 3]) == (hi, lo, lo, lo)  # own values: 0 and 3
    fused = mech.perturb_aggregate(values, FixedUniforms(np.concatenate([u, refine])))
    np.testing.assert_array_equal(fused.counts, mech.aggregate(reports).counts)


def test_she_noise_is_discrete_laplace_on_the_grid() -> None:
    """In grid steps, a coordinate's noise Z has Pr[Z = z] = (1 − a)/(1 + a)·a^|z| (a = e^(−ε·δ/2)) for z near 0
    and in tails, and variance 2a/(1 − a)² (the exact value ``noise_variance`` and ``variance`` use); both
    kinds of grid step: b·2⁻¹² rounded down to a power of two (ε = 1) and 1 (ε = 10⁻⁴, b = 20,000)."""
    for epsilon, d, n in ((1.0, 64, 8192), (1e-4, 16, 32768)):
        mech = ldp.get_mechanism("she", epsilon, d)
        grid = mech.output_grid
        a = mech.noise_parameter
        values = np.random.default_rng(71).integers(0, d, n)
        reports = mech.perturb(values, np.random.default_rng(72)).astype(np.float64)
        own = np.zeros(reports.shape, dtype=bool)
        own[np.arange(n), values] = True
        z = np.rint((reports - own) / grid.step).ravel()
        assert np.all(z * grid.step == (reports - own).ravel())  # whole grid steps
        pmf = (1 - a) / (1 + a)
        for k in (0, 1, -1, 7, -7):
            assert_frequency(int(np.count_nonzero(z == k)), z.size, pmf * a ** abs(k), f"ε={epsilon}: Pr[Z = {k}]")
        scale = 1 / (epsilon * grid.step / 2)  # b in grid steps
        for t in (1.0, 3.0, 8.0):
            m = math.ceil(t * scale)
            assert_frequency(int(np.count_nonzero(np.abs(z) >= m)), z.size, 2 * a**m / (1 + a), f"Pr[|Z| ≥ {m}]")
        var = 2 * a / math.expm1(-epsilon * grid.step / 2) ** 2  # 2a/(1 − a)², without cancellation in 1 − a
        assert mech.noise_variance == pytest.approx(var * grid.step**2, rel=1e-12)
        assert mech.variance(0.1, 10)[()] == pytest.approx(var * grid.step**2 / 10, rel=1e-12)
        # sample variance: Var[Z²] ≤ E[Z⁴] ≈ 24 (b/δ)⁴ for a Laplace-like law
        assert abs(z.var() - var) < SIGMAS * math.sqrt(24 * scale**4 / z.size)
        assert abs(z.mean()) < SIGMAS * math.sqrt(var / z.size)


# --------------------------------------------------------------------------- longitudinal UE


@pytest.mark.parametrize("name", ["l-sue", "l-oue", "l-soue", "l-osue"])
def test_longitudinal_ue_bit_frequencies(name: str) -> None:
    """A τ = 1 report has bits Bernoulli(p*) at the own value and Bernoulli(q*) elsewhere, with
    p* = p1 p2 + (1 − p1) q2 and q* = q1 p2 + (1 − q1) q2 (both steps run)."""
    d, n = 16, 65_536
    mech = ldp.get_mechanism(name, 2.0, d)
    values = np.random.default_rng(61).integers(0, d, n)
    reports = mech.perturb(values, np.random.default_rng(62))
    assert reports.shape == (n, d) and reports.dtype == np.bool_
    own = np.zeros((n, d), dtype=bool)
    own[np.arange(n), values] = True
    p_star = mech.p1 * mech.p2 + (1 - mech.p1) * mech.q2
    q_star = mech.q1 * mech.p2 + (1 - mech.q1) * mech.q2
    assert p_star == pytest.approx(mech.p_star) and q_star == pytest.approx(mech.q_star)
    assert_frequency(int(reports[own].sum()), n, mech.p_star, f"{name} own bit")
    assert_frequency(int(reports[~own].sum()), n * (d - 1), mech.q_star, f"{name} other bits")
    # bits of one report are independent: two fixed other positions are both set w.p. q*²
    a, c = (values + 1) % d, (values + 2) % d
    both = reports[np.arange(n), a] & reports[np.arange(n), c]
    assert_frequency(int(both.sum()), n, mech.q_star**2, f"{name} pairs")


# --------------------------------------------------------------------------- SecureRandom


def test_secure_random_drives_every_sampler() -> None:
    """The samplers only use integers(…, dtype) and random(size): SecureRandom drives them all."""
    rng = SecureRandom()
    n = 1 << 15
    assert_frequency(int(bernoulli(rng, 0.3 + 1e-4, n).sum()), n, 0.3 + 1e-4, "secure bernoulli")
    assert_frequency(int(bernoulli(rng, 1.5 / 256, n).sum()), n, 1.5 / 256, "secure bernoulli, ties only")
    cond = np.arange(n) % 3 == 0
    sel = bernoulli_select(rng, cond, 0.8, 0.1 + 1e-5)
    assert_frequency(int(sel[cond].sum()), int(cond.sum()), 0.8, "secure select, condition")
    assert_frequency(int(sel[~cond].sum()), int((~cond).sum()), 0.1 + 1e-5, "secure select, elsewhere")

    subsets = sample_subsets(64, 17, 512, rng)
    assert_valid_subsets(subsets, 512, 17, 64)

    ss = ldp.get_mechanism("ss", 1.0, 256)
    values = np.arange(2048) % 256
    reports = ss.perturb(values, rng)
    assert_valid_subsets(reports, values.size, ss.omega, 256)
    assert_frequency(int((reports == values[:, None]).any(axis=1).sum()), values.size, ss.p_star, "secure SS")

    she = ldp.get_mechanism("she", 1.0, 32)
    noisy = she.perturb(np.zeros(2048, dtype=np.int64), rng)
    assert noisy.dtype == np.float32 and np.all(np.isfinite(noisy))
    assert stats.kstest(noisy[:, 1:].ravel().astype(np.float64), stats.laplace(scale=she.scale).cdf).pvalue > TAIL

    lue = ldp.get_mechanism("l-osue", 2.0, 32)
    bits = lue.perturb(np.zeros(4096, dtype=np.int64), rng)
    assert_frequency(int(bits[:, 0].sum()), 4096, lue.p_star, "secure L-OSUE own bit")
    assert_frequency(int(bits[:, 1:].sum()), 4096 * 31, lue.q_star, "secure L-OSUE other bits")

    agg = ldp.run_exact(ss, rng, true_counts=np.full(256, 4))
    assert agg.counts.sum() == 1024 * ss.omega
