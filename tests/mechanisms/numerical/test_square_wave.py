"""Square Wave (square-wave paper §5.2–§5.4): parameters, exact client, transition matrix, fast engine, privacy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import ldp
from ldp.core.randomness import SecureRandom
from ldp.data import ValueScale
from ldp.data.domain import bucketize
from ldp.evaluation.histograms import moments
from ldp.evaluation.metrics import wasserstein
from ldp.mechanisms.numerical.square_wave import (
    BAND_LIMIT,
    DiscreteSquareWave,
    SquareWave,
    SquareWaveChannel,
    discrete_b,
    mutual_information_b,
    transition_matrix,
)


# ------------------------------------------------------------------------------------------- parameters
@pytest.mark.parametrize("eps", [0.01, 0.5, 0.999, 1.0, 1.5, 3.0, 8.0, 30.0])
def test_mutual_information_b_matches_section_5_3(eps):
    e = math.exp(eps)
    closed = (eps * e - e + 1) / (2 * e * (e - 1 - eps))
    assert mutual_information_b(eps) == pytest.approx(closed, rel=1e-7 if eps < 0.1 else 1e-12)


def test_mutual_information_b_maximizes_the_bound_and_has_the_stated_limits():
    for eps in (0.3, 1.0, 2.0, 5.0):
        e = math.exp(eps)

        def bound(b: float, e: float = e, eps: float = eps) -> float:  # §5.3, the function of b to maximize
            return math.log((2 * b + 1) / (2 * b * e + 1)) + 2 * b * eps * e / (2 * b * e + 1)

        b0 = mutual_information_b(eps)
        grid = np.linspace(b0 / 50, 3 * b0, 3001)
        assert abs(grid[np.argmax([bound(b) for b in grid])] - b0) < 2e-3 * b0 + (grid[1] - grid[0])
    assert mutual_information_b(1e-8) == pytest.approx(0.5, abs=1e-7)  # ε → 0: b → 1/2
    bs = [mutual_information_b(e) for e in (0.1, 0.5, 1, 2, 4, 8, 16, 50)]
    assert all(x > y for x, y in zip(bs, bs[1:], strict=False)) and 0 < bs[-1] < 1e-19  # non-increasing → 0


@pytest.mark.parametrize("eps", [0.5, 1.0, 4.0])
def test_p_q_are_the_papers_and_the_wave_is_a_density(eps):
    sw = SquareWave(eps, 64)
    b, e = sw.b, math.exp(eps)
    assert sw.b == mutual_information_b(eps)
    assert sw.p == pytest.approx(e / (2 * b * e + 1), rel=1e-15)
    assert sw.q == pytest.approx(1 / (2 * b * e + 1), rel=1e-15)
    assert 2 * b * sw.p + sw.q == pytest.approx(1.0, abs=1e-15)  # window 2b at p, the rest (length 1) at q
    assert sw.d_tilde == 64 and sw.output_range == (-b, 1 + b)


def test_parameter_validation():
    with pytest.raises(ldp.LDPError, match="b must be > 0"):
        SquareWave(1.0, 64, b=0.0)
    with pytest.raises(ldp.LDPError, match="b must be > 0"):
        SquareWave(1.0, 64, b=-0.1)
    with pytest.raises(ldp.LDPError, match="d_tilde"):
        SquareWave(1.0, 64, d_tilde=1)
    with pytest.raises(ldp.LDPError, match="epsilon"):
        SquareWave(0.0, 64)
    with pytest.raises(ldp.LDPError, match="unknown parameter"):
        SquareWave(1.0, 64, g=3)
    with pytest.raises(ldp.LDPError, match="b must be >= 0"):
        DiscreteSquareWave(1.0, 16, b=-1)
    sw = SquareWave(1.0, 64, b=0.2, d_tilde=100)
    assert (sw.b, sw.d_tilde) == (0.2, 100)
    assert sw == SquareWave(1.0, 64, b=0.2, d_tilde=100) and hash(sw) == hash(SquareWave(1, 64, b=0.2, d_tilde=100))
    assert "b=0.2" in repr(sw)
    names = [p["name"] for p in SquareWave.parameters_info()]
    assert names == ["epsilon", "d", "b", "d_tilde"]


def test_registered_in_the_one_registry():
    """One registry for every kind (formerly a separate numerical registry)."""
    assert [cls.name for cls in ldp.mechanisms_of("numerical")][:2] == ["sw", "sw-discrete"]
    assert "sw" in ldp.MECHANISMS and ldp.MECHANISMS.get("sw").kind == "numerical"
    assert isinstance(ldp.get_mechanism("SW", 1.0, 32), SquareWave)
    with pytest.raises(ldp.LDPError, match="unknown mechanism"):
        ldp.get_mechanism("nope", 1.0, 32)


# ------------------------------------------------------------------------------------------- privacy
@pytest.mark.parametrize("eps", [0.5, 1.0, 3.0])
def test_wave_density_ratio_is_exactly_e_eps(eps):
    sw = SquareWave(eps, 32)
    y = np.linspace(-sw.b, 1 + sw.b, 2001)[:, None]
    v = np.linspace(0, 1, 201)[None, :]
    dens = sw.density(y, v)
    assert dens.min() > 0
    assert np.log((dens.max(axis=1) / dens.min(axis=1)).max()) == pytest.approx(eps, abs=1e-12)
    assert sw.p / sw.q == pytest.approx(math.exp(eps), rel=1e-14)
    # the bucketized channel is post-processing: its ratio never exceeds e^ε
    m = sw.transition_matrix()
    assert np.log((m.max(axis=1) / m.min(axis=1)).max()) <= eps + 1e-12


@pytest.mark.parametrize("eps,d,b", [(1.0, 20, None), (2.0, 10, 3), (0.5, 8, 0)])
def test_discrete_channel_is_exactly_eps_ldp(eps, d, b):
    dsw = DiscreteSquareWave(eps, d, b=b)
    assert dsw.privacy_loss() == pytest.approx(eps, abs=1e-12)


# ------------------------------------------------------------------------------------------- exact client
@pytest.mark.parametrize("eps,v", [(0.5, 0.0), (1.0, 0.3), (2.0, 1.0), (4.0, 0.7)])
def test_exact_client_reports_follow_the_sw_density(eps, v):
    sw = SquareWave(eps, 16)
    rng = np.random.default_rng(17)
    reports = sw.perturb(np.full(20_000, v), rng)
    assert reports.min() >= -sw.b and reports.max() <= 1 + sw.b
    result = stats.kstest(reports, lambda y: sw.cdf(y, v))
    assert result.pvalue > 1e-3
    in_window = np.mean(np.abs(reports - v) <= sw.b)
    assert in_window == pytest.approx(sw.window_probability, abs=5 * math.sqrt(0.25 / reports.size))


def test_exact_client_validation_and_secure_randomness():
    sw = SquareWave(1.0, 16)
    with pytest.raises(ldp.LDPError, match="outside \\[0, 1\\]"):
        sw.perturb([0.2, 1.5], np.random.default_rng(0))
    with pytest.raises(ldp.LDPError, match="outside \\[0, 1\\]"):
        sw.perturb([np.nan], np.random.default_rng(0))
    with pytest.raises(ldp.LDPError, match="1-D"):
        sw.perturb(np.zeros((2, 2)), np.random.default_rng(0))
    reports = sw.perturb(np.linspace(0, 1, 1000), SecureRandom())
    assert reports.shape == (1000,) and np.all((reports >= -sw.b) & (reports <= 1 + sw.b))
    with pytest.raises(ldp.LDPError, match="outside \\[−b, 1\\+b\\]"):
        sw.report_histogram(np.array([0.5, 2.0]))


def test_report_histogram_buckets_the_output_domain():
    sw = SquareWave(1.0, 4, b=0.5)  # output [−0.5, 1.5], 4 buckets of width 0.5
    h = sw.report_histogram(np.array([-0.5, -0.01, 0.0, 0.49, 0.5, 0.99, 1.4999, 1.5]))
    assert h.tolist() == [2, 2, 2, 2]
    assert sw.report_histogram(np.array([-0.5, 1.5]), d_tilde=10).tolist() == [1] + [0] * 8 + [1]
    np.testing.assert_allclose(sw.output_edges(), np.linspace(-0.5, 1.5, 5))


# ------------------------------------------------------------------------------------------- transition matrix
@pytest.mark.parametrize("eps,d,d_tilde,b", [(1.0, 16, 16, None), (0.5, 10, 23, None), (3.0, 12, 7, 0.05),
                                             (1.0, 8, 40, 0.01), (30.0, 16, 16, None)])
def test_transition_matrix_columns_sum_to_one(eps, d, d_tilde, b):
    m = SquareWave(eps, d, b=b, d_tilde=d_tilde).transition_matrix()
    assert m.shape == (d_tilde, d) and np.all(m > 0)
    np.testing.assert_allclose(m.sum(axis=0), 1.0, atol=1e-13)


def _reference_entry(eps: float, b: float, d: int, d_tilde: int, j: int, i: int, grid: int = 4001) -> float:
    """M[j, i] by brute force: the exact interval mass of M_v over bucket j, averaged over v (midpoint rule)."""
    p = math.exp(eps) / (2 * b * math.exp(eps) + 1)
    q = p / math.exp(eps)
    wt = (1 + 2 * b) / d_tilde
    a, c = -b + j * wt, -b + (j + 1) * wt
    v = (i + (np.arange(grid) + 0.5) / grid) / d
    overlap = np.clip(np.minimum(c, v + b) - np.maximum(a, v - b), 0, None)
    return float(np.mean(q * (c - a) + (p - q) * overlap))


def test_transition_matrix_matches_a_brute_force_average_over_the_input_bucket():
    for eps, d, d_tilde in ((1.0, 6, 9), (2.5, 5, 5)):
        sw = SquareWave(eps, d, d_tilde=d_tilde)
        m = sw.transition_matrix()
        for j in range(d_tilde):
            for i in range(d):
                assert m[j, i] == pytest.approx(_reference_entry(eps, sw.b, d, d_tilde, j, i), abs=2e-7)


def test_transition_matrix_matches_a_monte_carlo_histogram_of_the_exact_client():
    sw = SquareWave(1.0, 8, d_tilde=12)
    m = sw.transition_matrix()
    rng = np.random.default_rng(3)
    per_bucket = 40_000
    worst = 0.0
    for i in range(sw.d):
        v = (i + rng.random(per_bucket)) / sw.d  # uniform within input bucket i
        freq = sw.report_histogram(sw.perturb(v, rng)) / per_bucket
        sigma = np.sqrt(m[:, i] * (1 - m[:, i]) / per_bucket)
        worst = max(worst, float(np.max(np.abs(freq - m[:, i]) / sigma)))
    assert worst < 4.5  # 96 cells: max |z| beyond 4.5 has probability ~ 6e-4


@pytest.mark.parametrize("eps,d,d_tilde", [(0.1, 64, 64), (1.0, 256, 256), (1.0, 100, 37), (3.0, 300, 1024),
                                           (8.0, 128, 128), (50.0, 64, 64), (1.0, 1024, 1024)])
def test_channel_operator_matches_the_dense_matrix(eps, d, d_tilde):
    sw = SquareWave(eps, d, d_tilde=d_tilde)
    ch, m = sw.transition_operator(), sw.transition_matrix()
    assert ch.shape == (d_tilde, d)
    rng = np.random.default_rng(0)
    x, r = rng.random(d), rng.random(d_tilde)
    np.testing.assert_allclose(ch.dot(x), m @ x, rtol=1e-10)
    np.testing.assert_allclose(ch.tdot(r), m.T @ r, rtol=1e-10)


def test_both_channel_forms_are_exercised_and_agree():
    wide = SquareWaveChannel(1.0, 0.25, 256, 200)
    narrow = SquareWaveChannel(1.0, 0.01, 64, 64)
    assert (wide.form, narrow.form) == ("antiderivative", "band")
    assert math.ceil((1 / 64 + 0.02) / (1.02 / 64)) + 3 <= BAND_LIMIT
    for ch in (wide, narrow):
        m = transition_matrix(ch.epsilon, ch.b, ch.d, ch.d_tilde)
        x = np.random.default_rng(1).dirichlet(np.ones(ch.d))
        np.testing.assert_allclose(ch.dot(x), m @ x, rtol=1e-11)
        np.testing.assert_allclose(ch.dense(), m)


# ------------------------------------------------------------------------------------------- fast engine
def test_fast_engine_matches_the_multinomial_mean_and_variance():
    sw = SquareWave(1.0, 16, d_tilde=20)
    m = sw.transition_matrix()
    counts = np.random.default_rng(5).multinomial(5000, np.linspace(1, 3, 16) / np.linspace(1, 3, 16).sum())
    rng = np.random.default_rng(6)
    draws = np.array([sw.sample_histogram(counts, rng) for _ in range(3000)])
    assert np.all(draws.sum(axis=1) == counts.sum())
    mean = m @ counts
    var = (m * (1 - m)) @ counts  # Σ_i n_i M_ji (1 − M_ji): the sum of independent multinomials
    z = (draws.mean(axis=0) - mean) / np.sqrt(var / draws.shape[0])
    assert np.max(np.abs(z)) < 4.5
    np.testing.assert_allclose(draws.var(axis=0, ddof=1), var, rtol=0.12)
    # covariance of two buckets: −Σ_i n_i M_ji M_ki
    cov = -(m[3] * m[4]) @ counts
    assert np.cov(draws[:, 3], draws[:, 4])[0, 1] == pytest.approx(cov, rel=0.3)


def test_fast_engine_per_user_path_agrees(monkeypatch):
    from ldp.mechanisms.numerical import square_wave

    sw = SquareWave(0.5, 32)
    counts = np.full(32, 300)
    m = sw.transition_matrix()
    monkeypatch.setattr(square_wave, "FAST_BAND_CELLS", 0)  # force the one-draw-per-user branch
    rng = np.random.default_rng(8)
    draws = np.array([sw.sample_histogram(counts, rng) for _ in range(1500)])
    z = (draws.mean(axis=0) - m @ counts) / np.sqrt((m * (1 - m)) @ counts / draws.shape[0])
    assert np.max(np.abs(z)) < 4.5


def test_fast_engine_validation():
    sw = SquareWave(1.0, 8)
    with pytest.raises(ldp.LDPError, match="length 8"):
        sw.sample_aggregate(np.ones(7, dtype=int), np.random.default_rng(0))
    with pytest.raises(ldp.LDPError, match="non-negative integers"):
        sw.sample_aggregate(np.full(8, -1), np.random.default_rng(0))
    with pytest.raises(ldp.LDPError, match="at least one user"):
        sw.sample_aggregate(np.zeros(8, dtype=int), np.random.default_rng(0))
    assert sw.sample_histogram(np.zeros(8, dtype=int), np.random.default_rng(0)).sum() == 0
    # the fast engine's aggregate is the histogram, drawn from the same generator
    agg = sw.sample_aggregate(np.full(8, 10), np.random.default_rng(3))
    np.testing.assert_array_equal(agg.counts, sw.sample_histogram(np.full(8, 10), np.random.default_rng(3)))
    assert agg.n == 80 and agg.engine == "fast"


# ------------------------------------------------------------------------------------------- discrete SW
def test_discrete_parameters_follow_section_5_4():
    eps, d = 1.0, 50
    dsw = DiscreteSquareWave(eps, d)
    assert dsw.b == discrete_b(eps, d) == math.floor(mutual_information_b(eps) * d) == 12
    e = math.exp(eps)
    assert dsw.p == pytest.approx(e / ((2 * dsw.b + 1) * e + d - 1))
    assert dsw.q == pytest.approx(1 / ((2 * dsw.b + 1) * e + d - 1))
    assert dsw.d_tilde == d + 2 * dsw.b
    m = dsw.transition_matrix()
    np.testing.assert_allclose(m.sum(axis=0), 1.0, atol=1e-14)
    grr = DiscreteSquareWave(eps, 10, b=0)  # b = 0 is GRR
    assert grr.p == pytest.approx(e / (e + 9)) and grr.d_tilde == 10
    assert DiscreteSquareWave(40.0, 8).b == 0


@pytest.mark.parametrize("b", [2, 20])  # band form and cumulative-sum form
def test_discrete_channel_operator_matches_dense(b):
    dsw = DiscreteSquareWave(1.0, 30, b=b)
    ch, m = dsw.transition_operator(), dsw.transition_matrix()
    assert ch.form == ("band" if b == 2 else "cumsum")
    # the mechanism's exact channel (inputs × outputs, for privacy and attacks) is the same matrix, transposed
    matrix, labels = dsw.channel()
    np.testing.assert_array_equal(matrix, m.T)
    assert labels == [str(y) for y in range(dsw.d_tilde)]
    rng = np.random.default_rng(2)
    x, r = rng.random(30), rng.random(dsw.d_tilde)
    np.testing.assert_allclose(ch.dot(x), m @ x, rtol=1e-12)
    np.testing.assert_allclose(ch.tdot(r), m.T @ r, rtol=1e-12)


def test_discrete_exact_client_and_fast_engine_match_the_matrix():
    dsw = DiscreteSquareWave(1.0, 6, b=2)
    m = dsw.transition_matrix()
    rng = np.random.default_rng(4)
    for v in (0, 3, 5):
        reports = dsw.perturb(np.full(60_000, v), rng)
        freq = dsw.report_histogram(reports) / reports.size
        z = (freq - m[:, v]) / np.sqrt(m[:, v] * (1 - m[:, v]) / reports.size)
        assert np.max(np.abs(z)) < 4.5
    counts = np.array([100, 0, 400, 50, 0, 250])
    draws = np.array([dsw.sample_histogram(counts, rng) for _ in range(2000)])
    z = (draws.mean(axis=0) - m @ counts) / np.sqrt((m * (1 - m)) @ counts / draws.shape[0])
    assert np.max(np.abs(z)) < 4.5
    with pytest.raises(ldp.LDPError, match="outside the domain"):
        dsw.perturb([6], rng)
    with pytest.raises(ldp.LDPError, match="out of range"):
        dsw.report_histogram(np.array([0, dsw.d_tilde]))
    assert dsw.perturb(np.arange(6), SecureRandom()).max() < dsw.d_tilde


def test_discrete_sw_reconstructs_a_bucketized_column():
    rng = np.random.default_rng(9)
    col = bucketize(rng.beta(5, 2, 50_000), 64, value_range=(0.0, 1.0))
    dsw = DiscreteSquareWave(2.0, col.d)
    reports = dsw.perturb(col.values, rng)
    agg = dsw.aggregate(reports)
    np.testing.assert_array_equal(agg.counts, dsw.report_histogram(reports))  # the aggregate is the histogram
    est = dsw.estimate(agg)
    assert est.converged and est.estimator == "ems"
    assert wasserstein(col.true_frequencies(), est.values, col.edges, project=True) < 0.01


# ------------------------------------------------------------------------------------------- real units
def test_real_units_end_to_end():
    rng = np.random.default_rng(11)
    scale = ValueScale(20.0, 80.0)
    ages = scale.from_unit(rng.beta(2, 3, 100_000))
    sw = SquareWave(2.0, 64)
    reports = sw.perturb(scale.to_unit(ages), rng)
    agg = sw.aggregate(reports)
    np.testing.assert_array_equal(agg.counts, sw.report_histogram(reports))
    est = sw.estimate(agg).values
    edges = sw.input_edges(scale)
    np.testing.assert_allclose(edges, scale.edges(64))
    truth = bucketize(ages, 64, value_range=(20, 80)).true_frequencies()
    w_real = wasserstein(truth, est, edges, project=True)
    w_unit = wasserstein(truth, est, sw.input_edges(), project=True)
    assert w_real == pytest.approx(60 * w_unit, rel=1e-9) and w_real < 0.5  # years
    assert abs(moments(edges, est)[0] - ages.mean()) < 0.5


@pytest.mark.parametrize("eps", [0.25, 1.0, 2.0, 5.0])
def test_mutual_information_bound_is_eq4_and_peaks_at_the_papers_b(eps):
    """§5.3 Eq. (4): h(U) − h(Ṽ|V) with h(U) = log(2b + 1) and h(Ṽ|V) = −(2b p log p + q log q) (the q region
    has length 1); the paper's closed-form b is its maximiser (checked against neighbours 1 % away)."""
    from ldp.mechanisms.numerical.square_wave import (
        mutual_information_b,
        mutual_information_bound,
        square_wave_probabilities,
    )
    for b in (0.05, 0.3, 1.0):
        p, q = square_wave_probabilities(eps, b)
        direct = math.log(2 * b + 1) + (2 * b * p * math.log(p) + q * math.log(q))
        assert float(mutual_information_bound(eps, b)) == pytest.approx(direct, rel=1e-12)
    best = mutual_information_b(eps)
    at_best = float(mutual_information_bound(eps, best))
    assert at_best > float(mutual_information_bound(eps, best * 0.99))
    assert at_best > float(mutual_information_bound(eps, best * 1.01))
    assert float(mutual_information_bound(eps, 0.0)) == 0.0
    with pytest.raises(ldp.LDPError):
        mutual_information_bound(eps, -1.0)
