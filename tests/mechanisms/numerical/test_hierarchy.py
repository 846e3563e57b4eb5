"""Hierarchical histograms and HaarHRR (square-wave paper §4.2–§4.3): the mechanisms, their aggregates and
reconstructions (constrained inference, HH-ADMM, inverse Haar), on both engines. (The tree algorithms themselves
are tested in tests/maths/test_trees.py.)"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import ldp
from ldp.evaluation.metrics import wasserstein
from ldp.maths.hadamard import hadamard_sign
from ldp.maths.trees import constrained_inference
from ldp.mechanisms.numerical import hierarchy
from ldp.mechanisms.numerical.hierarchy import HaarHRR, HierarchicalHistogram


def run(m, counts: np.ndarray, rng: np.random.Generator, engine: str = "fast", method: str | None = None) -> np.ndarray:
    """One collection of the population on an engine, reconstructed (formerly ``simulate_population``)."""
    return m.reconstruct(ldp.collect(m, counts, rng, engine), method=method).values


def w1(edges: np.ndarray, p: np.ndarray, q: np.ndarray) -> float:
    """Wasserstein-1 of both projected onto the simplex (as the lab's distance did)."""
    return wasserstein(p, q, edges, project=True)


def beta_counts(d: int, n: int, rng: np.random.Generator, a: float = 5.0, b: float = 2.0) -> np.ndarray:
    edges = np.linspace(0.0, 1.0, d + 1)
    f = np.diff(stats.beta(a, b).cdf(edges))
    return rng.multinomial(n, f / f.sum())


# ------------------------------------------------------------------------------------------- structure
def test_registry_parameters_and_oracle_choice():
    assert ldp.MECHANISMS.get("hh") is HierarchicalHistogram
    m = HierarchicalHistogram(1.0, 1024)
    assert m.branching == 4 and m.height == 5 and m.leaves == 1024
    assert HierarchicalHistogram.reconstructions == ("hh-admm", "hh-ci")
    # §4.1 variance rule: GRR iff β^k < 3e^ε + 2 (3e + 2 ≈ 10.2: only the 4-node layer uses GRR)
    assert [m.oracle(k).name for k in range(1, 6)] == ["grr", "olh", "olh", "olh", "olh"]
    for k in range(1, 6):
        g = m.oracle(k)
        assert g.approximate_variance(1000) <= min(
            HierarchicalHistogram(1.0, 1024, oracle=o).oracle(k).approximate_variance(1000) for o in ("grr", "olh")
        ) * (1 + 1e-12)
    assert HierarchicalHistogram(1.0, 100, branching=2).leaves == 128
    with pytest.raises(ldp.LDPError, match="branching"):
        HierarchicalHistogram(1.0, 64, branching=1)
    with pytest.raises(ldp.LDPError, match="oracle"):
        HierarchicalHistogram(1.0, 64, oracle="oue")
    with pytest.raises(ldp.LDPError, match="offers the reconstructions"):
        run(m, np.ones(1024, dtype=int), np.random.default_rng(0), method="ems")
    # the aggregate: per-layer support counts (4 + 16 + … + 1024 entries), then the users of each of the 5 layers
    assert m.statistic_size() == sum(4**k for k in range(1, 6)) + 5


# ------------------------------------------------------------------------------------ constrained inference
def test_ci_reduces_leaf_variance_by_the_predicted_factor_on_uniform_data():
    """GRR in every layer, uniform population: each layer's estimates have covariance
    V_k m/(m − 1) (I − J/m) (they sum to one exactly), V_k = [f p*(1−p*) + (1−f) q*(1−q*)]/(n_k (p*−q*)²)
    plus the split's sampling term f(1−f)(1 − 1/h)/n_k; CI is affine, so its leaf variance is
    Σ_k diag(L_k Σ_k L_kᵀ) with L_k the columns of the map (computed on unit vectors)."""
    eps, d, beta, n, trials = 2.0, 64, 4, 60_000, 300
    m = HierarchicalHistogram(eps, d, branching=beta, oracle="grr")
    h = m.height
    counts = np.full(d, n // d)
    rng = np.random.default_rng(7)
    sizes = np.full(h, counts.sum() / h)
    var_w = m.noise_variances(sizes)
    raw, ci = [], []
    for _ in range(trials):
        split = m.split_users(counts, rng)
        sup = [m.oracle(k).sample_aggregate(m.layer_counts(split[k - 1])[k].astype(np.int64), rng).counts
               for k in range(1, h + 1)]
        agg = ldp.Aggregate(np.concatenate([*sup, split.sum(axis=1)]), int(split.sum()))
        levels, _ = m.layer_estimates(agg)
        raw.append(levels[-1])
        ci.append(constrained_inference(levels, var_w, beta)[-1])
    raw_var = float(np.var(np.array(raw), axis=0, ddof=1).mean())
    ci_var = float(np.var(np.array(ci), axis=0, ddof=1).mean())
    # theory
    zero = [np.ones(1)] + [np.zeros(beta ** k) for k in range(1, h + 1)]
    base = constrained_inference(zero, var_w, beta)[-1]
    pred_raw, pred_ci = 0.0, np.zeros(d)
    for k in range(1, h + 1):
        size, g = beta ** k, m.oracle(k)
        f = 1.0 / size
        p, q = g.p_star, g.q_star
        vk = (f * p * (1 - p) + (1 - f) * q * (1 - q)) / (sizes[k - 1] * (p - q) ** 2)
        vk += f * (1 - f) * (1 - 1 / h) / sizes[k - 1]
        cov = vk * size / (size - 1) * (np.eye(size) - 1.0 / size)
        cols = np.empty((d, size))
        for j in range(size):
            unit = [lv.copy() for lv in zero]
            unit[k][j] = 1.0
            cols[:, j] = constrained_inference(unit, var_w, beta)[-1] - base
        pred_ci += np.einsum("ij,jk,ik->i", cols, cov, cols)
        if k == h:
            pred_raw = vk
    pred_ci_mean = float(pred_ci.mean())
    assert raw_var == pytest.approx(pred_raw, rel=0.08)
    assert ci_var == pytest.approx(pred_ci_mean, rel=0.08)
    assert ci_var / raw_var == pytest.approx(pred_ci_mean / pred_raw, rel=0.1)
    assert ci_var < 0.8 * raw_var


# ------------------------------------------------------------------------------------------- HH-ADMM
def test_hh_admm_is_a_distribution_and_beats_ci_on_beta_5_2():
    eps, d, n, trials = 1.0, 256, 100_000, 12
    m = HierarchicalHistogram(eps, d)
    rng = np.random.default_rng(11)
    counts = beta_counts(d, n, rng)
    truth = counts / counts.sum()
    edges = m.input_edges()
    w_admm, w_ci = [], []
    for t in range(trials):
        a = run(m, counts, np.random.default_rng(100 + t), method="hh-admm")
        c = run(m, counts, np.random.default_rng(100 + t), method="hh-ci")
        assert a.shape == (d,) and np.all(a >= 0) and a.sum() == pytest.approx(1.0, abs=1e-9)
        assert c.sum() == pytest.approx(1.0, abs=1e-9)
        w_admm.append(w1(edges, a, truth))
        w_ci.append(w1(edges, np.clip(c, 0, None) / np.clip(c, 0, None).sum(), truth))
    assert np.mean(w_admm) <= np.mean(w_ci)
    assert np.mean(w_admm) < 0.03


def test_padding_for_d_not_a_power_of_the_branching():
    m = HierarchicalHistogram(2.0, 100)
    assert m.leaves == 256
    rng = np.random.default_rng(5)
    counts = beta_counts(100, 50_000, rng)
    est = run(m, counts, rng)
    assert est.shape == (100,) and np.all(est >= 0) and est.sum() == pytest.approx(1.0)
    assert w1(m.input_edges(), est, counts / counts.sum()) < 0.03


# ------------------------------------------------------------------------------------------- engines, client
def test_fast_and_exact_engines_give_similar_errors():
    eps, d, n, trials = 1.0, 64, 20_000, 8
    m = HierarchicalHistogram(eps, d)
    counts = beta_counts(d, n, np.random.default_rng(2))
    truth = counts / n
    edges = m.input_edges()
    err = {}
    for engine in ("fast", "exact"):
        err[engine] = [w1(edges, run(m, counts, np.random.default_rng(50 + t), engine), truth)
                       for t in range(trials)]
    fast, exact = np.mean(err["fast"]), np.mean(err["exact"])
    assert 0.6 < fast / exact < 1.6, (fast, exact)


def test_exact_client_reports_and_server_estimates():
    m = HierarchicalHistogram(2.0, 64)
    rng = np.random.default_rng(4)
    values = stats.beta(5, 2).rvs(40_000, random_state=rng)
    rep = m.perturb(values, rng)
    assert rep.shape == (40_000, 4) and set(np.unique(rep[:, 0])) == {1, 2, 3}
    agg = m.aggregate(rep)
    levels, sizes = m.layer_estimates(agg)
    assert sizes.sum() == 40_000 and np.all(np.abs(sizes - 40_000 / 3) < 600)
    assert [lv.size for lv in levels] == [1, 4, 16, 64]
    est = m.estimate(agg).values
    truth = np.histogram(values, bins=m.input_edges())[0] / values.size
    assert w1(m.input_edges(), est, truth) < 0.02
    with pytest.raises(ldp.LDPError, match="outside"):
        m.perturb(np.array([1.5]), rng)


def test_determinism_with_a_seed():
    m = HierarchicalHistogram(1.0, 256)
    counts = beta_counts(256, 30_000, np.random.default_rng(0))
    for engine in ("fast", "exact"):
        for method in HierarchicalHistogram.reconstructions:
            a = run(m, counts, np.random.default_rng(9), engine, method)
            b = run(m, counts, np.random.default_rng(9), engine, method)
            np.testing.assert_array_equal(a, b)


def test_hh_admm_at_d_1024_is_a_distribution():
    """(Its wall time, target ≤ 1 s, is a row of benchmarks/bench_numerical.py, table 4.)"""
    m = HierarchicalHistogram(1.0, 1024)
    counts = beta_counts(1024, 1_000_000, np.random.default_rng(1))
    est = run(m, counts, np.random.default_rng(2))
    assert np.all(est >= 0) and est.sum() == pytest.approx(1.0)


# ------------------------------------------------------------------------------------------- HaarHRR
def test_haar_registry_and_aggregate_layout():
    assert ldp.MECHANISMS.get("haar-hrr") is HaarHRR
    assert HaarHRR.reconstructions == ("haar", "haar-ns")
    m = HaarHRR(1.0, 16)
    assert m.height == 4 and m.leaves == 16
    # per height ℓ = 1..4 the Hadamard sums over 2^(4−ℓ) rows, then the users of each height
    assert m.statistic_size() == 8 + 4 + 2 + 1 + 4
    rep = m.perturb(np.random.default_rng(0).random(1000), np.random.default_rng(1))
    sums, sizes = m.layer_sums(m.aggregate(rep))
    assert [s.size for s in sums] == [8, 4, 2, 1] and sizes.sum() == 1000
    for ell in range(1, 5):
        part = rep[rep[:, 0] == ell]
        assert sizes[ell - 1] == part.shape[0]
        np.testing.assert_array_equal(sums[ell - 1], np.bincount(part[:, 1], weights=part[:, 2], minlength=sums[
            ell - 1].size))


def test_haar_client_is_eps_ldp_and_reports_are_well_formed():
    m = HaarHRR(1.5, 16)
    rng = np.random.default_rng(1)
    rep = m.perturb(rng.random(50_000), rng)
    assert rep.shape == (50_000, 3) and set(np.unique(rep[:, 2])) == {-1, 1}
    assert np.all(rep[:, 1] < 2 ** (m.height - rep[:, 0]))
    # given (ℓ, j), y is the input's ±1 kept with probability e^ε/(e^ε+1): ratio exactly e^ε
    assert m._keep / (1 - m._keep) == pytest.approx(math.exp(1.5))
    same = np.full(20_000, 0.03)
    r = m.perturb(same, np.random.default_rng(2))
    lay1 = r[r[:, 0] == 1]
    truth = hadamard_sign(lay1[:, 1], np.zeros_like(lay1[:, 1]))  # bucket 0 is a left child at height 1
    assert np.mean(lay1[:, 2] == truth) == pytest.approx(m._keep, abs=0.02)


@pytest.mark.parametrize("engine,cells", [("fast", None), ("fast", 1), ("exact", None)])
def test_haar_is_unbiased_on_every_engine_path(engine, cells, monkeypatch):
    if cells is not None:  # force the one-index-per-user fast path
        monkeypatch.setattr(hierarchy, "HAAR_FAST_CELLS", cells)
    m = HaarHRR(2.0, 8)
    counts = np.array([100, 0, 300, 50, 0, 0, 500, 50]) * 10
    trials = 150
    est = np.array([run(m, counts, np.random.default_rng(t), engine) for t in range(trials)])
    se = est.std(axis=0, ddof=1) / math.sqrt(trials)
    assert np.all(np.abs(est.mean(axis=0) - counts / counts.sum()) < 4.5 * se + 1e-12)
    np.testing.assert_allclose(est.sum(axis=1), 1.0)


def test_haar_engines_agree_and_norm_sub_gives_a_distribution():
    d, n, trials = 64, 50_000, 8
    m = HaarHRR(1.0, d)
    counts = beta_counts(d, n, np.random.default_rng(3))
    truth = counts / n
    edges = m.input_edges()
    err = {}
    for engine in ("fast", "exact"):
        vals = []
        for t in range(trials):
            est = run(m, counts, np.random.default_rng(t), engine, "haar-ns")
            assert np.all(est >= 0) and est.sum() == pytest.approx(1.0)
            vals.append(w1(edges, est, truth))
        err[engine] = np.mean(vals)
    assert 0.6 < err["fast"] / err["exact"] < 1.6, err
    a = run(m, counts, np.random.default_rng(5), "exact")
    b = run(m, counts, np.random.default_rng(5), "exact")
    np.testing.assert_array_equal(a, b)


# ------------------------------------------------------------------------- dividing the budget (§4.2)
def test_dividing_the_budget_reports_every_layer_at_eps_over_h():
    """split='budget': every user reports in each of the h layers with ε/h; the product channel is exactly ε-LDP
    (basic composition is tight for these independent reports), the users per layer are all n, and the engines
    and the closed forms agree."""
    from ldp.mechanisms.base import channel_privacy_loss

    m = HierarchicalHistogram(1.5, 16, split="budget")
    assert m.split == "budget" and m.height == 2
    assert all(m.oracle(k).epsilon == pytest.approx(0.75) for k in (1, 2))
    matrix, labels = m.channel()
    assert matrix.shape[1] == len(labels) == m.oracle(1).output_count() * m.oracle(2).output_count()
    np.testing.assert_allclose(matrix.sum(axis=1), 1.0)
    assert channel_privacy_loss(matrix) == pytest.approx(1.5)
    rng = np.random.default_rng(5)
    values = stats.beta(5, 2).rvs(20_000, random_state=rng)
    rep = m.perturb(values, rng)
    assert rep.shape == (20_000, 8) and np.all(rep[:, 0::4] == [1, 2])
    _, sizes = m.layer_estimates(m.aggregate(rep))
    assert list(sizes) == [20_000, 20_000]
    with pytest.raises(ldp.LDPError, match="layer k"):
        m.aggregate(rep[:, [4, 5, 6, 7, 0, 1, 2, 3]])
    with pytest.raises(ldp.LDPError, match=r"\(n, 8\)"):
        m.aggregate(rep[:, :4])
    counts = np.bincount(m.bucket_of(values), minlength=16)
    # fast engine: mean and variance of the aggregate over 400 draws against the closed forms (each entry's
    # mean within 5 standard errors; the variance ratio within ±25 %, a χ² with 399 degrees of freedom)
    draws = np.stack([ldp.collect(m, counts, np.random.default_rng(t)).counts for t in range(400)])
    expected, variance = m._expected_aggregate(counts, None), m._aggregate_variance(counts, None)
    layer = slice(0, -m.height)
    assert np.all(np.abs(draws.mean(axis=0)[layer] - expected[layer]) <= 5 * np.sqrt(variance[layer] / 400) + 1e-9)
    ratio = draws.var(axis=0, ddof=1)[layer] / variance[layer]
    assert 0.75 < np.median(ratio) < 1.25
    exact = m.aggregate(m.perturb(values, np.random.default_rng(9))).counts
    assert np.all(np.abs(exact[layer] - expected[layer]) <= 5 * np.sqrt(variance[layer]))


def test_dividing_the_population_has_the_smaller_variance_in_ldp():
    """§4.2: in LDP dividing the population beats dividing the budget. Per-node variance at ε = 1, d = 64 (h = 3):
    OLH/GRR with n/3 users at ε against n users at ε/3 — about 3× smaller for the population split at every depth;
    and the HH-ADMM leaves' W1 on Beta(5, 2) (n = 20,000, 4 trials) is smaller too."""
    pop, bud = HierarchicalHistogram(1.0, 64), HierarchicalHistogram(1.0, 64, split="budget")
    v_pop, v_bud = pop.split_variances(20_000)[1:], bud.split_variances(20_000)[1:]
    assert np.all(v_bud > 2.0 * v_pop), (v_pop, v_bud)
    counts = beta_counts(64, 20_000, np.random.default_rng(3))
    truth, edges = counts / counts.sum(), pop.input_edges()
    err = {m.split: np.mean([w1(edges, run(m, counts, np.random.default_rng(70 + t)), truth) for t in range(4)])
           for m in (pop, bud)}
    assert err["population"] < err["budget"], err


def test_a_layered_statistic_from_outside_is_checked_layer_by_layer():
    """HH took layer sizes −3 and 2.5 (cast to −3 and 2) or 100 + 100 users from n = 2, and Haar-HRR a layer sum of
    10⁶ from one user (frequencies ±10⁶): the users per layer must account for the n users, and each layer's
    statistic must be one its users can produce (HH: the layer oracle's check; Haar-HRR: |sums| ≤ users)."""
    hh = ldp.get_mechanism("hh", 1.0, 8, oracle="grr")
    good = ldp.collect(hh, np.array([3, 2, 1, 0, 0, 1, 2, 1]), np.random.default_rng(0), "exact")
    assert hh.reconstruct(ldp.Aggregate(good.counts, good.n)).values.shape == (8,)
    h = hh.statistic_size() - int(hh._offsets[-1])
    for sizes, n, reason in ((np.array([-3.0] + [2.5] * (h - 1)), 10, "whole numbers"),
                             (np.full(h, 100.0), 2, "add up to n")):
        stat = good.counts.copy()
        stat[-h:] = sizes
        with pytest.raises(ldp.LDPError, match=reason):
            hh.estimate(stat, n)
    stat = good.counts.copy()
    stat[0] = 1e6  # a GRR support count far beyond its layer's users
    with pytest.raises(ldp.LDPError, match="between 0 and n"):
        hh.estimate(stat, good.n)
    haar = ldp.get_mechanism("haar-hrr", 1.0, 8)
    drawn = ldp.collect(haar, np.array([3, 2, 1, 0, 0, 1, 2, 1]), np.random.default_rng(1), "exact")
    assert haar.reconstruct(ldp.Aggregate(drawn.counts, drawn.n)).values.shape == (8,)
    stat = drawn.counts.copy()
    stat[0] = 1e6
    with pytest.raises(ldp.LDPError, match="more .in absolute value. than its users"):
        haar.estimate(stat, drawn.n)
