"""Vector means (ldp.mechanisms.vector): Duchi et al.'s mechanism is unbiased for every d = 1…8 and ε-LDP at the
boundary; every registered vector mechanism matches its closed-form variance; Wang et al.'s k rule."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import ldp
from ldp.mechanisms.vector import DuchiMechanism, duchi_constant, vector_mechanism, wang_k


@pytest.mark.parametrize("d", range(1, 9))
def test_duchi_constant_makes_the_sampler_unbiased(d):
    """E[t | v] = B(2p − 1)κ·v with κ from the sampler's own tables: unbiased iff that factor is 1. For odd d the
    constant is the paper's; for even d the paper's is larger (its reading with ties on both sides leaks, below)."""
    mech = DuchiMechanism(1.0, d)
    assert mech.B * (2 * mech.p - 1) * mech.agreement_gain() == pytest.approx(1.0, rel=1e-12)
    assert 1 / mech.agreement_gain() == pytest.approx(duchi_constant(d), rel=1e-12)
    if d % 2:
        assert duchi_constant(d) == duchi_constant(d, "paper")
    else:
        assert duchi_constant(d) < duchi_constant(d, "paper")


@pytest.mark.parametrize(("d", "epsilon"), [(2, 1.0), (4, 0.5), (6, 2.0)])
def test_the_papers_even_d_reading_is_not_epsilon_ldp(d, epsilon):
    """The reading under which the paper's even-d C_d is unbiased — ties t·v = 0 in both T⁺ and T⁻ — gives a tie
    probability p/|T| + (1 − p)/|T| = 1/|T| under one rounding v and (1 − p)/|T| for a far-side corner under the
    opposite v: the loss is ln(1 + e^ε) > ε (why DuchiMechanism splits the ties)."""
    p = math.exp(epsilon) / (math.exp(epsilon) + 1)
    size = 2 ** (d - 1) + math.comb(d, d // 2) / 2  # |T±| with the ties on both sides
    corners = list(itertools.product((-1.0, 1.0), repeat=d))  # the inputs x = v at the vertices round exactly
    worst = 0.0
    for t in corners:
        dots = [float(np.dot(t, v)) for v in corners]
        prob = [(p / size if dot >= 0 else 0) + ((1 - p) / size if dot <= 0 else 0) for dot in dots]
        worst = max(worst, math.log(max(prob) / min(prob)))
    assert worst == pytest.approx(math.log1p(math.exp(epsilon)), rel=1e-12) and worst > epsilon


@pytest.mark.parametrize("d", range(1, 9))
def test_duchi_reports_are_unbiased_by_simulation(d):
    """400,000 users holding the same x: each coordinate's average is within 4.5 SD of x, SD = √((B² − x_j²)/n).
    Not vacuous: the paper's even-d constant with our sampler (or the ties left out of T⁺) shifts the mean by a
    factor C_paper/C_d, which the assertion below shows is beyond the tolerance for every even d here."""
    n = 400_000
    mech = DuchiMechanism(1.0, d)
    x = np.linspace(-0.8, 0.9, d)
    est = mech.estimate_mean(np.tile(x, (n, 1)), np.random.default_rng(100 + d))
    sd = np.sqrt((mech.B ** 2 - x ** 2) / n)
    assert np.all(np.abs(est - x) < 4.5 * sd), (est, x)
    if d % 2 == 0:
        wrong = duchi_constant(d, "paper")
        assert np.max(np.abs((wrong / duchi_constant(d) - 1) * x)) > 4.5 * sd.max()


@pytest.mark.parametrize(("d", "epsilon"), [(1, 0.5), (2, 1.0), (3, 2.0), (4, 1.0), (4, 3.0)])
def test_duchi_is_epsilon_ldp_at_the_boundary(d, epsilon):
    """Exact report probabilities (enumerating the 2^d roundings) over every corner t and inputs x on a grid
    {−1, 0, 1}^d: the largest ln Pr[t | x] − ln Pr[t | x'] is exactly ε (reached at opposite vertices), never more.
    Tolerance 2⁻⁴⁰ for sums of at most 2^d = 16 products of d + 1 factors."""
    mech = DuchiMechanism(epsilon, d)
    corners = [np.array(c) * mech.B for c in itertools.product((-1.0, 1.0), repeat=d)]
    inputs = [np.array(x) for x in itertools.product((-1.0, 0.0, 1.0), repeat=d)]
    probs = np.array([[mech.report_probability(t, x) for x in inputs] for t in corners])
    np.testing.assert_allclose(probs.sum(axis=0), 1.0, atol=1e-12)
    loss = float(np.max(np.log(probs.max(axis=1)) - np.log(probs.min(axis=1))))
    assert loss <= epsilon + 2.0 ** -40
    assert loss > epsilon * (1 - 1e-6)


def test_wang_k_rule():
    assert [wang_k(e, 16) for e in (0.5, 2.4, 2.5, 5.0, 10.0)] == [1, 1, 1, 2, 4]
    assert wang_k(10.0, 3) == 3 and wang_k(100.0, 1) == 1
    assert vector_mechanism("kd-pm", 7.5, 16).k == 3 and vector_mechanism("harmony", 7.5, 16).k == 1
    assert vector_mechanism("pm", 7.5, 16).name == "kd-pm"  # a mean mechanism's own form for vectors


@pytest.mark.parametrize("name", [cls.name for cls in ldp.mechanisms_of("vector")])
def test_every_vector_mechanism_matches_its_closed_form_variance(name):
    """300 repetitions of 2,000 users with d = 3 (ε = 3, so k = 1 for pm/hm): each coordinate's mean estimate has
    mean x̄ (4.5 SD) and variance Σ Var_ij/n² (the sample variance's relative SD is √(2/299) ≈ 8.2 %; ±35 % is
    4.3 SD for a Gaussian, and the heavier-tailed sampled estimates' kurtosis over 2,000 users is close to 3)."""
    mech = vector_mechanism(name, 3.0, 3)
    rng = np.random.default_rng(7)
    x = np.clip(rng.normal([0.5, -0.2, 0.0], 0.3, (2_000, 3)), -1, 1)
    est = np.array([mech.estimate_mean(x, rng) for _ in range(300)])
    var = mech.mean_variance(x)
    assert np.all(np.abs(est.mean(axis=0) - x.mean(axis=0)) < 4.5 * np.sqrt(var / 300))
    np.testing.assert_allclose(est.var(axis=0, ddof=1), var, rtol=0.35)


def test_closed_forms_of_the_lectures_families():
    x = np.array([[0.3, -0.6, 1.0, 0.0]])
    e = math.exp(2.0)
    sr_scale = (e + 1) / (e - 1)
    np.testing.assert_allclose(vector_mechanism("harmony", 2.0, 4).variance(x), 4 * sr_scale ** 2 - x ** 2)
    np.testing.assert_allclose(vector_mechanism("split-laplace", 2.0, 4).variance(x), 8 * 4 ** 2 / 2.0 ** 2)
    split = vector_mechanism("split-sr", 2.0, 4)
    inner = ldp.get_mechanism("sr", 0.5)
    np.testing.assert_allclose(split.variance(x), inner.variance(x))
    duchi = vector_mechanism("duchi", 2.0, 4)
    np.testing.assert_allclose(duchi.variance(x), duchi.B ** 2 - x ** 2)
    # one column: the vector mechanisms are the scalar ones
    for name in ("laplace", "sr", "pm", "hm"):
        np.testing.assert_allclose(vector_mechanism(name, 1.0, 1).variance(x[:, :1]),
                                   ldp.get_mechanism(name, 1.0).variance(x[:, :1]))


def test_streaming_keeps_the_answer_and_bad_input_is_refused():
    mech = vector_mechanism("kd-hm", 4.0, 5)
    x = np.random.default_rng(0).uniform(-1, 1, (10_000, 5))
    a = mech.estimate_mean(x, np.random.default_rng(3), chunk_users=10_000)
    b = mech.estimate_mean(x, np.random.default_rng(3), chunk_users=10_000)
    np.testing.assert_array_equal(a, b)
    for bad, reason in ((x[:, :4], "shape"), (x * 2, r"\[−1, 1\]"), (x[:0], "at least one user")):
        with pytest.raises(ldp.LDPError, match=reason):
            mech.estimate_mean(bad, np.random.default_rng(0))
    for args, reason in (((0.0, 3), "epsilon"), ((1.0, 0), "d"), ((1.0, 5000), "<= 1024")):
        with pytest.raises(ldp.LDPError, match=reason):
            vector_mechanism("duchi", *args)
    with pytest.raises(ldp.LDPError, match="grr is a frequency mechanism, not one for means of vectors"):
        vector_mechanism("grr", 1.0, 2)
    with pytest.raises(ldp.LDPError, match="unknown mechanism"):
        vector_mechanism("nope", 1.0, 2)


def test_gaussian_vector_pays_sqrt_d_not_d():
    """The whole-vector Gaussian is calibrated to the L2 sensitivity 2√d: its per-coordinate variance grows like d
    (σ²(2√d) ≈ d·σ²(2) for small ε), while splitting ε over d coordinates grows like d² (the Laplace split: 8d²/ε²)."""
    base = ldp.get_mechanism("gaussian", 0.5)
    for d in (4, 16):
        vec = ldp.get_mechanism("gaussian-vector", 0.5, d)
        ratio = vec.variance(np.zeros((1, d)))[0, 0] / base.sigma ** 2
        assert 0.8 * d < ratio < 1.05 * d
        assert vec.privacy_profile(0.5) == pytest.approx(1e-5, rel=1e-9)
    assert vector_mechanism("gaussian", 0.5, 3).name == "gaussian-vector"
    with pytest.raises(ldp.LDPError, match="not one for means of vectors"):
        vector_mechanism("gaussian-bits", 0.5, 3)


@pytest.mark.parametrize("name", [cls.name for cls in ldp.mechanisms_of("vector")])
def test_simulated_collections_are_successive_estimates(name):
    """simulate_means checks the users' vectors once and runs the collections in turn: row t is the t-th of
    successive estimate_mean calls on the same generator, bit for bit (chunks of users included)."""
    mech = vector_mechanism(name, 1.5, 6)
    x = np.random.default_rng(0).uniform(-1, 1, size=(500, 6))
    rng = np.random.default_rng(9)
    want = np.array([mech.estimate_mean(x, rng, chunk_users=170) for _ in range(3)])
    assert np.array_equal(mech.simulate_means(x, np.random.default_rng(9), 3, chunk_users=170), want)
    with pytest.raises(ldp.InvalidInput, match="positive integer"):
        mech.simulate_means(x, rng, 0)


def test_duchi_picks_the_agreeing_coordinates_by_random_ranks():
    """Which a coordinates agree is drawn by random keys: those of the a smallest keys (one sort and a threshold).
    The same draws through ranks by a double argsort — the plain reading of "random ranks" — give the same
    corners."""
    mech = DuchiMechanism(1.0, 7)
    x = np.random.default_rng(4).uniform(-1, 1, size=(3000, 7))

    def by_ranks(rng):
        m, d = x.shape
        v = np.where(rng.random((m, d)) < (1.0 + x) / 2.0, 1.0, -1.0)
        upper = rng.random(m) < mech.p
        u = rng.random(m)
        a = np.where(upper, np.searchsorted(mech._cdf_plus, u, side="right"),
                     np.searchsorted(mech._cdf_minus, u, side="right"))
        a = np.minimum(a, d)
        ranks = np.argsort(np.argsort(rng.random((m, d)), axis=1), axis=1)
        return np.where(ranks < a[:, None], v, -v) * mech.B

    assert np.array_equal(mech.perturb(x, np.random.default_rng(5)), by_ranks(np.random.default_rng(5)))
