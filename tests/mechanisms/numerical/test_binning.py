"""CFO with binning (§4.1): oracle choice, binning, distribution output, error against the closed form."""

import math

import numpy as np
import pytest

import ldp
from ldp.engines import collect, run_fast
from ldp.mechanisms import get_mechanism
from ldp.mechanisms.numerical.binning import CFOBinning, bin_boundaries, choose_oracle


@pytest.mark.parametrize(("eps", "c", "expected"), [
    (4.0, 16, "grr"), (2.0, 8, "grr"), (1.0, 4, "grr"), (0.5, 4, "grr"),      # c − 2 ≪ 3e^ε
    (1.0, 64, "olh"), (0.5, 32, "olh"), (2.0, 128, "olh"), (4.0, 1024, "olh"),  # c − 2 ≫ 3e^ε
])
def test_oracle_follows_the_3e_eps_rule(eps, c, expected):
    assert (c - 2 < 3 * math.exp(eps)) == (expected == "grr")
    assert choose_oracle(eps, c) == expected
    assert CFOBinning(eps, max(c, 256), bins=c).oracle.name == expected


@pytest.mark.parametrize(("eps", "c"), [(0.5, 8), (1.0, 8), (2.0, 32), (3.0, 64)])
def test_choice_minimizes_closed_form_variance(eps, c):
    v = {name: get_mechanism(name, eps, c).approximate_variance(1000) for name in ("grr", "olh")}
    assert v[choose_oracle(eps, c)] == min(v.values())


def test_bins_merge_the_remainder():
    b = bin_boundaries(100, 32)
    sizes = np.diff(b)
    assert b[0] == 0 and b[-1] == 100 and set(sizes) == {3, 4}
    m = CFOBinning(1.0, 100, bins=32)
    assert m.bin_sizes.sum() == 100
    assert CFOBinning(1.0, 16, bins=32).bins == 16  # c is capped at d
    counts = np.arange(100)
    assert m.bin_counts(counts).sum() == counts.sum()
    np.testing.assert_allclose(m.spread(np.full(32, 1 / 32)).sum(), 1.0)


@pytest.mark.parametrize("engine", ["fast", "exact"])
def test_output_is_a_distribution_uniform_within_bins(engine):
    rng = np.random.default_rng(1)
    m = CFOBinning(1.0, 128, bins=16)
    counts = rng.multinomial(20_000, np.linspace(1, 3, 128) / np.linspace(1, 3, 128).sum())
    agg = collect(m, counts, rng, engine)
    assert agg.counts.shape == (16,) and m.statistic_size() == 16  # the bins oracle's support counts
    f = m.estimate(agg).values
    assert f.shape == (128,) and np.all(f >= 0) and abs(f.sum() - 1) < 1e-12
    assert np.all(f.reshape(16, 8) == f.reshape(16, 8)[:, :1])  # uniform within each bin of 8 buckets
    with pytest.raises(ldp.LDPError, match="offers the reconstructions"):
        m.reconstruct(agg, method="ems")
    with pytest.raises(ldp.LDPError, match="does not apply"):
        ldp.get_estimator("ems").estimate(m, agg)
    # every categorical estimator applies through the bins oracle (formerly the reconstructions norm-mul, ibu)
    for name in ("norm-mul", "ibu"):
        g = ldp.get_estimator(name).estimate(m, agg).values
        assert g.shape == (128,) and np.all(g >= 0) and abs(g.sum() - 1) < 1e-9
        assert np.all(g.reshape(16, 8) == g.reshape(16, 8)[:, :1])


@pytest.mark.parametrize(("eps", "c"), [(1.0, 32), (4.0, 8)])
def test_error_matches_theory(eps, c):
    """MI's mean squared error over bins equals the closed-form variance (unbiased); Norm-Sub, the projection
    onto the simplex (which holds the truth), never increases the L2 error."""
    rng = np.random.default_rng(7)
    d, n, trials = 256, 20_000, 60
    m = CFOBinning(eps, d, bins=c)
    probs = np.exp(-((np.arange(d) + 0.5) / d - 0.6) ** 2 / 0.05)
    counts = rng.multinomial(n, probs / probs.sum())
    truth = m.bin_counts(counts) / n
    errs = []
    for _ in range(trials):
        agg = run_fast(m.oracle, m.bin_counts(counts), rng)
        raw = m.oracle.estimate(agg).values
        ns = m.estimate_bins(agg.counts, n)
        assert np.sum((ns - truth) ** 2) <= np.sum((raw - truth) ** 2) + 1e-15
        errs.append(np.mean((raw - truth) ** 2))
    theory = float(np.mean(m.oracle.variance(truth, n)))
    # mean of trials·c squared standardized errors: relative s.e. ≈ sqrt(2/(trials·c)), 5σ
    tol = 5 * math.sqrt(2.0 / (trials * c)) * 1.5
    assert abs(np.mean(errs) / theory - 1) < tol


def test_exact_and_fast_engines_agree():
    """Same population, many trials: the mean squared error of the final estimate is the same for both engines
    (5 standard errors of the difference of the two trial means)."""
    m = CFOBinning(2.0, 64, bins=16)  # GRR
    counts = np.random.default_rng(0).multinomial(4000, np.linspace(1, 2, 64) / np.linspace(1, 2, 64).sum())
    truth = counts / counts.sum()
    errs = {}
    for engine in ("fast", "exact"):
        rng = np.random.default_rng(9)
        errs[engine] = np.array([np.sum((m.estimate(collect(m, counts, rng, engine)).values - truth) ** 2)
                                 for _ in range(150)])
    diff = errs["fast"].mean() - errs["exact"].mean()
    se = math.sqrt(errs["fast"].var(ddof=1) / 150 + errs["exact"].var(ddof=1) / 150)
    assert abs(diff) < 5 * se
