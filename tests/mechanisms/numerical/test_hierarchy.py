"""Hierarchical histograms (square-wave paper §4.2–§4.3): tree, constrained inference, HH-ADMM, engines."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
from scipy import optimize, stats
from scipy.linalg import hadamard

import ldp.mechanisms.numerical.hierarchy as hierarchy_module
from ldp.mechanisms.numerical import NUMERICAL_MECHANISMS
from ldp.mechanisms.numerical.hierarchy import (
    HaarHRR,
    HierarchicalHistogram,
    admm_tree,
    aggregate_tree,
    constrained_inference,
    fast_walsh_hadamard,
    hadamard_sign,
    tree_height,
)
from ldp.studies.comparison import wasserstein_distance


def beta_counts(d: int, n: int, rng: np.random.Generator, a: float = 5.0, b: float = 2.0) -> np.ndarray:
    edges = np.linspace(0.0, 1.0, d + 1)
    f = np.diff(stats.beta(a, b).cdf(edges))
    return rng.multinomial(n, f / f.sum())


def noisy_levels(beta: int, h: int, rng: np.random.Generator, scale: float = 0.05) -> tuple[list, np.ndarray]:
    leaves = rng.dirichlet(np.ones(beta ** h))
    true = aggregate_tree(leaves, beta)
    var = np.array([0.0] + [scale ** 2 * (1 + k) for k in range(1, h + 1)])
    noisy = [np.ones(1)] + [true[k] + rng.normal(0, math.sqrt(var[k]), true[k].size) for k in range(1, h + 1)]
    return noisy, var


def tree_matrix(beta: int, h: int) -> np.ndarray:
    """Rows: nodes of depths 1..h; columns: leaves; entry 1 if the leaf is under the node."""
    rows = []
    for k in range(1, h + 1):
        span = beta ** (h - k)
        rows.append(np.kron(np.eye(beta ** k), np.ones((1, span))))
    return np.vstack(rows)


# ------------------------------------------------------------------------------------------- structure
def test_tree_height_and_aggregation():
    assert tree_height(64, 4) == 3 and tree_height(65, 4) == 4 and tree_height(2, 4) == 1 and tree_height(1024, 2) == 10
    levels = aggregate_tree(np.arange(16.0), 4)
    assert [lv.size for lv in levels] == [1, 4, 16]
    assert levels[1].tolist() == [6.0, 22.0, 38.0, 54.0] and levels[0][0] == 120.0
    with pytest.raises(ValueError):
        aggregate_tree(np.ones(10), 4)


def test_registry_parameters_and_oracle_choice():
    assert NUMERICAL_MECHANISMS.get("hh") is HierarchicalHistogram
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
    with pytest.raises(ValueError):
        HierarchicalHistogram(1.0, 64, branching=1)
    with pytest.raises(ValueError):
        HierarchicalHistogram(1.0, 64, oracle="oue")
    with pytest.raises(ValueError):
        m.simulate_population(np.ones(1024, dtype=int), np.random.default_rng(0), reconstruction="ems")


# ------------------------------------------------------------------------------------ constrained inference
@pytest.mark.parametrize("beta,h", [(4, 3), (2, 4), (3, 2)])
def test_ci_is_consistent_and_is_the_weighted_least_squares_tree(beta, h):
    rng = np.random.default_rng(beta * 10 + h)
    noisy, var = noisy_levels(beta, h, rng)
    out = constrained_inference(noisy, var, beta)
    assert out[0][0] == 1.0
    for k in range(h):  # parent = sum of children
        np.testing.assert_allclose(out[k], out[k + 1].reshape(-1, beta).sum(axis=1), atol=1e-12)
    # GLS over consistent trees with root 1: min Σ (T y − x̃)²/σ² s.t. Σ y = 1 (KKT system)
    t = tree_matrix(beta, h)
    w = np.repeat(1.0 / var[1:], [beta ** k for k in range(1, h + 1)])
    x = np.concatenate(noisy[1:])
    n = t.shape[1]
    kkt = np.block([[t.T @ (w[:, None] * t), np.ones((n, 1))], [np.ones((1, n)), np.zeros((1, 1))]])
    sol = np.linalg.solve(kkt, np.concatenate([t.T @ (w * x), [1.0]]))
    np.testing.assert_allclose(out[-1], sol[:n], atol=1e-10)


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
        sup = [m.oracle(k).sample_support_counts(m.layer_counts(split[k - 1])[k].astype(np.int64), rng)
               for k in range(1, h + 1)]
        levels = m._estimates(sup, split.sum(axis=1))
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
@pytest.mark.parametrize("beta,h", [(4, 2), (2, 4)])
def test_admm_solves_the_constrained_least_squares_problem(beta, h):
    rng = np.random.default_rng(3 + beta)
    noisy, var = noisy_levels(beta, h, rng, scale=0.15)
    leaves, trace = admm_tree(noisy, var, beta)
    assert trace.converged
    assert np.all(leaves >= 0) and leaves.sum() == pytest.approx(1.0, abs=1e-12)
    # reference: the same QP in the leaves (x ≥ 0 on a consistent tree ⇔ leaves ≥ 0) by SLSQP
    t = tree_matrix(beta, h)
    w = np.repeat(1.0 / var[1:], [beta ** k for k in range(1, h + 1)])
    x = np.concatenate(noisy[1:])

    def obj(y):
        r = t @ y - x
        return 0.5 * float(np.sum(w * r * r)), t.T @ (w * r)

    n = t.shape[1]
    ref = optimize.minimize(obj, np.full(n, 1.0 / n), jac=True, method="SLSQP", bounds=[(0, None)] * n,
                            constraints=[{"type": "eq", "fun": lambda y: y.sum() - 1.0, "jac": lambda y: np.ones(n)}],
                            options={"ftol": 1e-14, "maxiter": 500})
    assert ref.success
    np.testing.assert_allclose(leaves, ref.x, atol=2e-5)
    assert obj(leaves)[0] <= ref.fun + 1e-7


def test_hh_admm_is_a_distribution_and_beats_ci_on_beta_5_2():
    eps, d, n, trials = 1.0, 256, 100_000, 12
    m = HierarchicalHistogram(eps, d)
    rng = np.random.default_rng(11)
    counts = beta_counts(d, n, rng)
    truth = counts / counts.sum()
    edges = m.input_edges()
    w_admm, w_ci = [], []
    for t in range(trials):
        a = m.simulate_population(counts, np.random.default_rng(100 + t), reconstruction="hh-admm")
        c = m.simulate_population(counts, np.random.default_rng(100 + t), reconstruction="hh-ci")
        assert a.shape == (d,) and np.all(a >= 0) and a.sum() == pytest.approx(1.0, abs=1e-9)
        assert c.sum() == pytest.approx(1.0, abs=1e-9)
        w_admm.append(wasserstein_distance(edges, a, truth))
        w_ci.append(wasserstein_distance(edges, np.clip(c, 0, None) / np.clip(c, 0, None).sum(), truth))
    assert np.mean(w_admm) <= np.mean(w_ci)
    assert np.mean(w_admm) < 0.03


def test_padding_for_d_not_a_power_of_the_branching():
    m = HierarchicalHistogram(2.0, 100)
    assert m.leaves == 256
    rng = np.random.default_rng(5)
    counts = beta_counts(100, 50_000, rng)
    est = m.simulate_population(counts, rng)
    assert est.shape == (100,) and np.all(est >= 0) and est.sum() == pytest.approx(1.0)
    assert wasserstein_distance(m.input_edges(), est, counts / counts.sum()) < 0.03


# ------------------------------------------------------------------------------------------- engines, client
def test_fast_and_exact_engines_give_similar_errors():
    eps, d, n, trials = 1.0, 64, 20_000, 8
    m = HierarchicalHistogram(eps, d)
    counts = beta_counts(d, n, np.random.default_rng(2))
    truth = counts / n
    edges = m.input_edges()
    err = {}
    for engine in ("fast", "exact"):
        err[engine] = [wasserstein_distance(edges, m.simulate_population(counts, np.random.default_rng(50 + t),
                                                                         engine=engine), truth)
                       for t in range(trials)]
    fast, exact = np.mean(err["fast"]), np.mean(err["exact"])
    assert 0.6 < fast / exact < 1.6, (fast, exact)


def test_exact_client_reports_and_server_estimates():
    m = HierarchicalHistogram(2.0, 64)
    rng = np.random.default_rng(4)
    values = stats.beta(5, 2).rvs(40_000, random_state=rng)
    rep = m.perturb(values, rng)
    assert rep.shape == (40_000, 4) and set(np.unique(rep[:, 0])) == {1, 2, 3}
    levels, sizes = m.layer_estimates(rep)
    assert sizes.sum() == 40_000 and np.all(np.abs(sizes - 40_000 / 3) < 600)
    est = m.estimate(levels, sizes)
    truth = np.histogram(values, bins=m.input_edges())[0] / values.size
    assert wasserstein_distance(m.input_edges(), est, truth) < 0.02
    with pytest.raises(ValueError):
        m.perturb(np.array([1.5]), rng)


def test_determinism_with_a_seed():
    m = HierarchicalHistogram(1.0, 256)
    counts = beta_counts(256, 30_000, np.random.default_rng(0))
    for engine in ("fast", "exact"):
        for method in HierarchicalHistogram.reconstructions:
            a = m.simulate_population(counts, np.random.default_rng(9), engine=engine, reconstruction=method)
            b = m.simulate_population(counts, np.random.default_rng(9), engine=engine, reconstruction=method)
            np.testing.assert_array_equal(a, b)


def test_hh_admm_at_d_1024_takes_under_a_second():
    m = HierarchicalHistogram(1.0, 1024)
    counts = beta_counts(1024, 1_000_000, np.random.default_rng(1))
    rng = np.random.default_rng(2)
    m.simulate_population(counts, rng)  # warm-up
    start = time.perf_counter()
    est = m.simulate_population(counts, rng)
    elapsed = time.perf_counter() - start
    assert elapsed <= 1.0, elapsed
    assert np.all(est >= 0) and est.sum() == pytest.approx(1.0)


# ------------------------------------------------------------------------------------------- HaarHRR
def test_hadamard_helpers_match_sylvester():
    h = hadamard(32)
    idx = np.arange(32)
    np.testing.assert_array_equal(hadamard_sign(idx[:, None], idx[None, :]), h)
    x = np.random.default_rng(0).normal(size=32)
    np.testing.assert_allclose(fast_walsh_hadamard(x), h @ x, atol=1e-12)
    assert NUMERICAL_MECHANISMS.get("haar-hrr") is HaarHRR
    assert HaarHRR.reconstructions == ("haar", "haar-ns")


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
        monkeypatch.setattr(hierarchy_module, "HAAR_FAST_CELLS", cells)
    m = HaarHRR(2.0, 8)
    counts = np.array([100, 0, 300, 50, 0, 0, 500, 50]) * 10
    trials = 150
    est = np.array([m.simulate_population(counts, np.random.default_rng(t), engine=engine) for t in range(trials)])
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
            est = m.simulate_population(counts, np.random.default_rng(t), engine=engine, reconstruction="haar-ns")
            assert np.all(est >= 0) and est.sum() == pytest.approx(1.0)
            vals.append(wasserstein_distance(edges, est, truth))
        err[engine] = np.mean(vals)
    assert 0.6 < err["fast"] / err["exact"] < 1.6, err
    a = m.simulate_population(counts, np.random.default_rng(5), engine="exact")
    b = m.simulate_population(counts, np.random.default_rng(5), engine="exact")
    np.testing.assert_array_equal(a, b)
