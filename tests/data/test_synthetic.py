"""Tests of ldp.data.synthetic: spec parsing, exact distributions and sampling."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import ldp
from ldp.data import (
    SYNTHETIC,
    EncodedColumn,
    bucketize,
    generate,
    generate_values,
    parse_spec,
    true_distribution,
)

MIX = "mix:0.3*gaussian(mu=0.3,sigma=0.05)+0.7*uniform"


def within_five_sigma(counts: np.ndarray, p: np.ndarray) -> bool:
    """Each multinomial count is Binomial(n, p_k): |count - n p_k| <= 5 sd fails with probability
    < 6e-7 per bin (the seeds are fixed, so the tests are deterministic)."""
    n = counts.sum()
    return bool(np.all(np.abs(counts - n * p) <= 5.0 * np.sqrt(n * p * (1.0 - p)) + 1e-9))


# ------------------------------------------------------------------------------------------ parse_spec
def test_parse_plain_names_fill_defaults():
    assert parse_spec("zipf") == ("zipf", {"s": 1.5, "d": 100})
    assert parse_spec(" Gaussian ") == ("gaussian", {"mu": 1000.0, "sigma": 10.0, "d": 100})
    assert parse_spec("triangular")[1] == {"left": 100.0, "mode": 4500.0, "right": 10000.0, "d": 100}
    assert parse_spec("beta")[1] == {"a": 5.0, "b": 2.0, "d": 100}
    assert parse_spec("poisson")[1] == {"lam": 5.0, "d": 100}
    assert parse_spec("exponential")[1] == {"lam": 1.0, "d": 100}


def test_parse_key_values_and_call_syntax():
    assert parse_spec("zipf:s=1.1,d=20") == ("zipf", {"s": 1.1, "d": 20})
    assert parse_spec("gaussian(mu=0, sigma=2, d=1e1)") == ("gaussian", {"mu": 0.0, "sigma": 2.0, "d": 10})
    assert parse_spec("normal:lo=-1,hi=1")[1]["lo"] == -1.0
    assert parse_spec("exp")[0] == "exponential"


def test_parse_mixture():
    name, params = parse_spec(MIX + ",d=50")
    assert name == "mixture" and params["d"] == 50
    (w1, f1, p1), (w2, f2, p2) = params["components"]
    assert (w1, f1, p1) == (0.3, "gaussian", {"mu": 0.3, "sigma": 0.05})
    assert (w2, f2, p2) == (0.7, "uniform", {"lo": 0.0, "hi": 1.0})
    assert parse_spec("mixture:d=8,gaussian+uniform")[1]["components"][0][0] == 0.5
    weights = [w for w, _, _ in parse_spec("mix:0.2*beta+uniform+exponential")[1]["components"]]
    np.testing.assert_allclose(weights, [0.2, 0.4, 0.4])
    relative = [w for w, _, _ in parse_spec("mix:2*beta+6*uniform")[1]["components"]]
    np.testing.assert_allclose(relative, [0.25, 0.75])


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("", "empty synthetic spec"),
        ("pareto", "unknown synthetic distribution 'pareto'; valid names: zipf, uniform, gaussian"),
        ("3zipf", "valid names"),
        ("zipf:q=1", "unknown parameter 'q' for zipf; valid: s, d"),
        ("zipf:s", "expected key=value"),
        ("zipf:s=abc", "parameter s must be a number"),
        ("zipf:s=inf", "must be finite"),
        ("zipf:s=1,s=2", "given twice"),
        ("zipf:s=-1", "s must be non-negative"),
        ("zipf:d=1", "d must lie in"),
        ("zipf:d=2.5", "d must be an integer"),
        ("gaussian:sigma=0", "sigma must be positive"),
        ("gaussian:lo=2,hi=1", "need lo < hi"),
        ("exponential:lam=-1", "lam must be positive"),
        ("triangular:mode=0", "left <= mode <= right"),
        ("beta:a=0", "must be positive"),
        ("mix:", "needs one formula"),
        ("mix:gaussian,uniform", "needs one formula"),
        ("mix:0.5*zipf+0.5*uniform", "zipf cannot be a mixture component"),
        ("mix:0.5*gaussian(d=3)+uniform", "unknown parameter 'd' for gaussian"),
        ("mix:0.5*gaussian(mu=1+uniform", "unbalanced parentheses"),
        ("mix:0.7*beta+0.5*uniform+gaussian", "not positive"),
        ("mix:0*beta+uniform", "weights must be positive"),
        ("mix:0.5*beta*uniform", r"expected '\+'"),
        ("mix:0.5*pareto+uniform", "unknown synthetic distribution 'pareto'"),
    ],
)
def test_parse_errors(spec, fragment):
    with pytest.raises(ldp.LDPError, match=fragment):
        parse_spec(spec)


def test_registry_lists_every_family():
    assert set(SYNTHETIC) == {"zipf", "uniform", "gaussian", "exponential", "poisson", "triangular", "beta",
                              "mixture"}
    for name, (description, defaults) in SYNTHETIC.items():
        assert description and defaults["d"] == 100
        if name != "mixture":
            assert parse_spec(name) == (name, defaults)


# ------------------------------------------------------------------------------------------ true_distribution
@pytest.mark.parametrize("spec", [*[n for n in SYNTHETIC if n != "mixture"], MIX, "gaussian:d=7", "zipf:d=3"])
def test_true_distribution_is_a_distribution(spec):
    p = true_distribution(spec)
    d = parse_spec(spec)[1]["d"]
    assert p.shape == (d,)
    assert np.all(p >= 0)
    assert p.sum() == pytest.approx(1.0, abs=1e-12)


def test_zipf_is_the_exact_finite_law():
    p = true_distribution("zipf:s=2,d=4")
    w = 1.0 / np.arange(1, 5) ** 2
    np.testing.assert_allclose(p, w / w.sum(), rtol=1e-14)
    np.testing.assert_allclose(true_distribution("zipf:s=0,d=5"), np.full(5, 0.2))


def test_uniform_and_gaussian_match_cdf_differences():
    np.testing.assert_allclose(true_distribution("uniform:d=8"), np.full(8, 1 / 8), rtol=1e-12)
    p = true_distribution("gaussian:mu=1000,sigma=10,d=80")
    edges = np.linspace(960, 1040, 81)
    mass = np.diff(stats.norm(1000, 10).cdf(edges))
    np.testing.assert_allclose(p, mass / mass.sum(), rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(p, p[::-1], rtol=1e-9, atol=1e-15)  # symmetric about mu


def test_gaussian_far_tail_range_is_accurate():
    p = true_distribution("gaussian:mu=0,sigma=1,lo=10,hi=12,d=4")  # uses survival functions
    edges = np.linspace(10, 12, 5)
    mass = -np.diff(stats.norm.sf(edges))
    np.testing.assert_allclose(p, mass / mass.sum(), rtol=1e-9)


def test_poisson_one_bin_per_integer():
    p = true_distribution("poisson:lam=3,d=12")
    pmf = stats.poisson(3).pmf(np.arange(12))
    np.testing.assert_allclose(p, pmf / pmf.sum(), rtol=1e-12)
    col = generate("poisson:lam=3,d=12", 10, np.random.default_rng(0))
    assert col.labels[:3] == ["0", "1", "2"]
    np.testing.assert_allclose(col.edges, np.arange(13) - 0.5)


def test_exponential_triangular_beta_shapes():
    expo = true_distribution("exponential:lam=2,d=10")
    edges = np.linspace(0, 5, 11)
    mass = np.diff(stats.expon(scale=0.5).cdf(edges))
    np.testing.assert_allclose(expo, mass / mass.sum(), rtol=1e-9)
    tri = true_distribution("triangular")
    assert int(np.argmax(tri)) == int((4500 - 100) // 99)  # the bin holding the mode
    beta = true_distribution("beta")
    centers = (np.arange(100) + 0.5) / 100
    assert float(beta @ centers) == pytest.approx(5 / 7, abs=1e-3)  # Beta(5, 2) mean, up to binning


def test_mixture_is_the_weighted_sum_of_components():
    mix = true_distribution("mix:0.25*uniform(lo=0,hi=1)+0.75*uniform(lo=1,hi=2),d=4")
    np.testing.assert_allclose(mix, [0.125, 0.125, 0.375, 0.375], rtol=1e-12)
    p = true_distribution(MIX + ",d=20")
    # Each component is truncated to the mixture's range [0, 1] (the union of the components' windows).
    gauss = np.diff(stats.norm(0.3, 0.05).cdf(np.linspace(0, 1, 21)))
    np.testing.assert_allclose(p, 0.3 * gauss / gauss.sum() + 0.7 / 20, rtol=1e-9)


def test_mixture_range_override_truncates_components():
    p = true_distribution("mix:0.5*uniform(lo=0,hi=4)+0.5*uniform(lo=0,hi=4),lo=0,hi=2,d=2")
    np.testing.assert_allclose(p, [0.5, 0.5])
    with pytest.raises(ldp.LDPError, match="no probability mass"):
        true_distribution("mix:0.5*uniform(lo=0,hi=1)+0.5*uniform(lo=5,hi=6),lo=0,hi=2,d=2")


# ------------------------------------------------------------------------------------------ generate
@pytest.mark.parametrize("spec", ["zipf", "uniform:d=10", "gaussian:d=30", "poisson:d=20", "beta:d=25", MIX])
def test_generate_matches_true_distribution(spec):
    n = 200_000
    col = generate(spec, n, np.random.default_rng(123))
    assert isinstance(col, EncodedColumn) and col.n == n
    p = true_distribution(spec)
    assert col.d == p.size == len(col.labels)
    assert within_five_sigma(col.true_counts(), p)  # 5-sigma multinomial bound per bin


def test_generate_metadata_and_determinism():
    col = generate("gaussian:mu=0,sigma=1,d=8", 1000, np.random.default_rng(5))
    assert col.kind == "numerical" and col.name == "gaussian:mu=0,sigma=1,d=8"
    np.testing.assert_allclose(col.edges, np.linspace(-4, 4, 9))
    assert col.labels[0] == "[-4, -3)" and col.labels[-1] == "[3, 4]"
    again = generate("gaussian:mu=0,sigma=1,d=8", 1000, np.random.default_rng(5))
    np.testing.assert_array_equal(col.values, again.values)
    zipf = generate("zipf:d=5", 100, np.random.default_rng(0))
    assert zipf.kind == "categorical" and zipf.edges is None and zipf.labels == ["1", "2", "3", "4", "5"]


@pytest.mark.parametrize("n", [0, -3, 2.5, True])
def test_generate_rejects_bad_n(n):
    with pytest.raises(ldp.LDPError, match="positive integer"):
        generate("zipf", n, np.random.default_rng(0))
    with pytest.raises(ldp.LDPError, match="positive integer"):
        generate_values("zipf", n, np.random.default_rng(0))


@pytest.mark.parametrize(
    ("spec", "lo", "hi"),
    [("gaussian:d=40", 960, 1040), ("exponential:d=20", 0, 10), ("triangular:d=30", 100, 10000),
     ("beta:d=20", 0, 1), (MIX + ",d=25", 0, 1), ("gaussian:mu=0,sigma=1,lo=3,hi=5,d=10", 3, 5)],
)
def test_generate_values_bucketize_to_true_distribution(spec, lo, hi):
    n = 100_000
    values = generate_values(spec, n, np.random.default_rng(99))
    assert values.shape == (n,) and values.min() >= lo and values.max() <= hi
    d = parse_spec(spec)[1]["d"]
    col = bucketize(values, d, value_range=(lo, hi))
    assert within_five_sigma(col.true_counts(), true_distribution(spec))  # 5-sigma multinomial bound


def test_generate_values_discrete_and_zipf():
    values = generate_values("poisson:lam=4,d=15", 50_000, np.random.default_rng(1))
    assert np.all(values == np.round(values)) and values.min() >= 0 and values.max() <= 14
    counts = np.bincount(values.astype(int), minlength=15)
    assert within_five_sigma(counts, true_distribution("poisson:lam=4,d=15"))
    ranks = generate_values("zipf:d=6", 1000, np.random.default_rng(1))
    assert set(np.unique(ranks)) <= set(range(1, 7))


def test_mixture_with_poisson_component():
    spec = "mix:0.5*poisson(lam=2)+0.5*uniform(lo=0,hi=10),d=10"
    p = true_distribution(spec)
    assert p.sum() == pytest.approx(1.0)
    edges = generate(spec, 1, np.random.default_rng(0)).edges
    assert edges[0] == -0.5 and edges[-1] >= 10
    values = generate_values(spec, 50_000, np.random.default_rng(4))
    col = bucketize(values, 10, value_range=(edges[0], edges[-1]))
    np.testing.assert_array_equal(col.edges, edges)
    assert within_five_sigma(col.true_counts(), p)  # 5-sigma multinomial bound per bin


def test_mixture_components_keep_their_tails_inside_the_range():
    # gaussian(mu=0.3, sigma=0.05) alone spans mu ± 4 sigma; in a mixture over [0, 1] its tails remain.
    cut = "gaussian(mu=0.3,sigma=0.05,lo=0.25)"
    p = true_distribution(f"mix:0.5*gaussian(mu=0.3,sigma=0.05)+0.5*{cut},lo=0,hi=1,d=20")
    assert np.all(p[:5] > 0)
    assert p[4] < p[5]  # the second component is cut at 0.25: all its mass sits from bin 5 on


def test_generate_large_n_is_fast_enough():
    col = generate("zipf", 10**7, np.random.default_rng(0))
    assert col.n == 10**7
