"""ldp.studies.comparison: the post-processing lab's aggregations (consistency paper §V) and the numerical
histogram metrics (square-wave paper §3), against hand-computed values and theory."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import ldp
from ldp.evaluation.metrics import top_k_mse
from ldp.studies import comparison as lab

# --------------------------------------------------------------------------- numerical metrics


def point_mass(d: int, i: int) -> np.ndarray:
    out = np.zeros(d)
    out[i] = 1.0
    return out


@pytest.mark.parametrize(("width", "i", "j"), [(1.0, 1, 3), (2.5, 0, 4), (0.5, 2, 2)])
def test_wasserstein_of_point_masses_is_the_distance_between_bin_centres(width, i, j):
    # Uniform on bin i vs uniform on bin j (same width): one is the other shifted, W1 = the shift.
    edges = np.arange(6) * width
    assert lab.wasserstein_distance(edges, point_mass(5, i), point_mass(5, j)) == pytest.approx(abs(i - j) * width)


def test_wasserstein_uniform_on_one_vs_two():
    # U[0,1] vs U[0,2]: ∫0^1 (x − x/2) dx + ∫1^2 (1 − x/2) dx = 1/4 + 1/4.
    assert lab.wasserstein_distance([0, 1, 2], [1, 0], [0.5, 0.5]) == pytest.approx(0.5)


def test_wasserstein_when_the_cdfs_cross_inside_a_bin():
    # D = F_p − F_q at the edges: 0, 0.6, −0.4, 0. Bin 0: 0.6/2; bin 1 crosses zero: (0.36 + 0.16) / 2;
    # bin 2: 0.4/2. Total 0.3 + 0.26 + 0.2.
    edges, p, q = [0, 1, 2, 3], [0.6, 0, 0.4], [0, 1, 0]
    assert lab.wasserstein_distance(edges, p, q) == pytest.approx(0.76)
    # Cross-check by numerical integration of |F_p − F_q| on a fine grid.
    x = np.linspace(0, 3, 300_001)
    diff = np.abs(lab.cdf_at(edges, p, x) - lab.cdf_at(edges, q, x))
    assert lab.wasserstein_distance(edges, p, q) == pytest.approx(float(np.sum((diff[1:] + diff[:-1]) / 2)
                                                                        * (x[1] - x[0])), abs=1e-9)


def test_wasserstein_is_a_symmetric_distance_with_unequal_widths():
    rng = np.random.default_rng(3)
    edges = np.concatenate([[0.0], np.cumsum(rng.uniform(0.1, 2.0, 20))])
    p, q = rng.dirichlet(np.ones(20)), rng.dirichlet(np.ones(20))
    assert lab.wasserstein_distance(edges, p, p) == pytest.approx(0.0, abs=1e-15)
    assert lab.wasserstein_distance(edges, p, q) == pytest.approx(lab.wasserstein_distance(edges, q, p))
    x = np.linspace(edges[0], edges[-1], 400_001)
    diff = np.abs(lab.cdf_at(edges, p, x) - lab.cdf_at(edges, q, x))
    assert lab.wasserstein_distance(edges, p, q) == pytest.approx(
        float(np.sum((diff[1:] + diff[:-1]) / 2) * (x[1] - x[0])), rel=1e-6)


def test_ks_distance():
    edges = np.linspace(0, 10, 11)
    p = np.full(10, 0.1)
    assert lab.ks_distance(edges, p, p) == 0.0
    assert lab.ks_distance(edges, point_mass(10, 0), point_mass(10, 1)) == pytest.approx(1.0)
    assert lab.ks_distance([0, 1, 2], [1, 0], [0.5, 0.5]) == pytest.approx(0.5)  # at x = 1


def test_mean_and_variance_errors():
    # Point masses in [0,1) and [1,2): means 0.5 and 1.5.
    assert lab.mean_error([0, 1, 2], [1, 0], [0, 1]) == pytest.approx(1.0)
    # U[0,1] has variance 1/12, U[0,2] has 4/12.
    assert lab.histogram_variance([0, 1, 2], [1, 0]) == pytest.approx(1 / 12)
    assert lab.histogram_variance([0, 1, 2], [0.5, 0.5]) == pytest.approx(1 / 3)
    assert lab.variance_error([0, 1, 2], [1, 0], [0.5, 0.5]) == pytest.approx(0.25)
    assert lab.histogram_mean([0, 1, 3], [0.5, 0.5]) == pytest.approx(0.5 * 0.5 + 0.5 * 2)


def test_deciles_of_a_uniform_histogram():
    edges = np.linspace(0, 10, 11)
    np.testing.assert_allclose(lab.quantile_values(edges, np.full(10, 0.1)), np.arange(1, 10), atol=1e-12)
    # Real units: 24 bins over a day.
    np.testing.assert_allclose(lab.quantile_values(np.linspace(0, 24, 25), np.full(24, 1 / 24)),
                               2.4 * np.arange(1, 10), atol=1e-9)


def test_quantiles_with_unequal_widths_and_empty_bins():
    assert lab.quantile_values([0, 1, 3], [0.5, 0.5], [0.25, 0.5, 0.75]) == pytest.approx([0.5, 1.0, 2.0])
    # An empty middle bin: the median is the smallest x with F(x) ≥ 0.5, the end of the first bin.
    assert lab.quantile_values([0, 1, 2, 3], [0.5, 0, 0.5], [0.5, 0.75]) == pytest.approx([1.0, 2.5])


def test_quantile_errors():
    edges = np.linspace(0, 10, 11)
    shifted = np.concatenate([[0.0], np.full(9, 1 / 9)])  # uniform on [1, 10]
    errs = lab.quantile_errors(edges, np.full(10, 0.1), shifted)
    assert errs.shape == (9,)
    # Q_p(β) = 10β, Q_q(β) = 1 + 9β → |1 − β|.
    np.testing.assert_allclose(errs, 1 - np.array(lab.DECILES), atol=1e-9)


def test_range_query_answers_and_mae():
    edges = np.linspace(0, 20, 11)
    uniform = np.full(10, 0.1)
    lefts = np.array([0.0, 3.3, 12.0])
    np.testing.assert_allclose(lab.range_query_answers(edges, uniform, lefts, 4.0), 0.2)
    rng = np.random.default_rng(0)
    assert lab.range_query_mae(edges, uniform, uniform, 0.1, rng, 100) == 0.0
    # Full-width ranges hold everyone in both histograms.
    assert lab.range_query_mae([0, 1, 2], [1, 0], [0, 1], 1.0, rng, 50) == pytest.approx(0.0)
    # α = 1/2 on [0, 2]: the range [i, i + 1] holds 1 − i of p (all in [0,1)) and i of q, so the error
    # |1 − 2i| with i ~ U[0, 1] is uniform on [0, 1]: mean 1/2, variance 1/12.
    queries = 20_000
    mae = lab.range_query_mae([0, 1, 2], [1, 0], [0, 1], 0.5, np.random.default_rng(1), queries)
    assert abs(mae - 0.5) < 5 * math.sqrt(1 / 12 / queries)


def test_unnormalized_estimates_are_projected_with_norm_sub():
    edges = np.linspace(0, 4, 5)
    truth = np.array([0.1, 0.4, 0.4, 0.1])
    raw = np.array([0.3, 0.5, 0.4, -0.3])  # sums to 0.9, one negative entry
    proj = ldp.norm_sub(raw)
    assert np.all(proj >= 0) and proj.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(lab.to_distribution(raw), proj)
    np.testing.assert_array_equal(lab.to_distribution(truth), truth)  # valid distributions are left alone
    rng_a, rng_b = np.random.default_rng(5), np.random.default_rng(5)
    assert lab.numerical_metrics(edges, truth, raw, rng=rng_a) == lab.numerical_metrics(edges, truth, proj, rng=rng_b)


def test_density_and_cdf():
    edges = np.array([0.0, 1.0, 3.0])
    np.testing.assert_allclose(lab.density(edges, [0.5, 0.5]), [0.5, 0.25])
    np.testing.assert_allclose(lab.cdf_at(edges, [0.5, 0.5], [0.5, 1.0, 2.0, 3.0]), [0.25, 0.5, 0.75, 1.0])
    np.testing.assert_allclose(lab.cdf_at_edges([0.2, 0.3, 0.5]), [0, 0.2, 0.5, 1.0])


@pytest.mark.parametrize(("call", "message"), [
    (lambda: lab.wasserstein_distance([0, 1], [0.5, 0.5], [0.5, 0.5]), "needs 3 edges"),
    (lambda: lab.ks_distance([0, 2, 1], [0.5, 0.5], [0.5, 0.5]), "strictly increasing"),
    (lambda: lab.range_query_mae([0, 1, 2], [1, 0], [0, 1], 0.0, np.random.default_rng(0)), "α"),
    (lambda: lab.quantile_errors([0, 1, 2], [1, 0], [0, 1], [0.5, 1.0]), "between 0 and 1"),
    (lambda: lab.mean_error([0, 1, 2], [1, 0], [0.2, 0.3, 0.5]), "different lengths"),
])
def test_numerical_validation(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_numerical_metrics_over_trials_and_tables():
    edges = np.linspace(0, 24, 25)
    truth = np.full(24, 1 / 24)
    rng = np.random.default_rng(2)
    est = truth + rng.normal(0, 0.005, (4, 24))
    per = lab.numerical_metrics_over_trials(edges, truth, est, alphas=(0.1, 0.4), seed=0, queries=200)
    assert set(per) == {"wasserstein", "ks", "mean", "variance", "quantiles", "range_0.1", "range_0.4"}
    assert all(v.shape == (4,) for v in per.values())
    assert per["wasserstein"][0] == pytest.approx(lab.wasserstein_distance(edges, truth, est[0]))
    table = lab.numerical_summary(per, "hours")
    assert list(table["unit"]) == ["hours", "fraction of users", "hours", "hours²", "hours", "fraction of users",
                                   "fraction of users"]
    q = lab.quantile_table(edges, truth, est)
    assert q.shape == (9, 4)
    np.testing.assert_allclose(q["true"], 2.4 * np.arange(1, 10), atol=1e-9)


# --------------------------------------------------------------------------- post-processing lab

def test_bias_variance_by_hand():
    bv = lab.bias_variance(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([1.0, 1.0]))
    np.testing.assert_allclose(bv.mean, [2, 3])
    np.testing.assert_allclose(bv.bias, [1, 2])
    np.testing.assert_allclose(bv.variance, [2, 2])  # ddof = 1
    np.testing.assert_allclose(bv.bias_se, [1, 1])  # √(2 / 2)
    np.testing.assert_array_equal(lab.bias_variance(np.zeros((3, 3)), np.array([0.2, 0.5, 0.3])).order, [1, 2, 0])
    with pytest.raises(ValueError, match="at least 2 trials"):
        lab.bias_variance(np.zeros((1, 2)), np.zeros(2))


@pytest.fixture(scope="module")
def zipf_run():
    from ldp.data.synthetic import true_distribution

    freqs = true_distribution("zipf:d=100,s=1.5")
    counts = lab.draw_population(np.round(freqs * 1e6).astype(np.int64), 200_000, seed=7)
    mech = ldp.get_mechanism("oue", 1.0, 100)
    parts = [lab.run_chunk(mech, counts, ["mi", "norm-sub"], engine="fast", seed=7, index=i, trials=t)
             for i, t in lab.chunk_plan(200)]
    return lab.merge_results(parts)


def test_per_value_table_shapes_and_mi_matches_theory(zipf_run):
    labels = [f"v{i}" for i in range(100)]
    table = lab.per_value_table(zipf_run, labels, {"mi": "MI", "norm-sub": "NS"})
    assert len(table) == 200 and list(dict.fromkeys(table["estimator"])) == ["MI", "NS"]
    mi = table[table["estimator"] == "MI"]
    assert np.all(np.diff(mi["true frequency"]) <= 0)  # sorted by true frequency
    np.testing.assert_allclose(mi["closed-form MI variance"],
                               zipf_run.mechanism.variance(mi["true frequency"].to_numpy(), zipf_run.n))
    summary = lab.bias_summary(table)
    # MI is unbiased: bias / SE ≈ N(0, 1), so ≈ 95.4% of 100 values lie within ±2 SE (binomial sd ≈ 2.1).
    assert summary["MI"]["values with |bias| ≤ 2 SE (%)"] >= 95.4 - 5 * 2.1
    # Sample variance over T = 200 trials: relative sd √(2/(T−1)) per value, ÷ √d averaged over d = 100 values.
    assert summary["MI"]["variance / closed-form MI variance"] == pytest.approx(1.0, abs=5 * math.sqrt(2 / 199 / 100))
    # Norm-Sub trades bias for variance: biased (negative on the top values), less variance (paper Figs. 2-3).
    assert summary["NS"]["values with |bias| ≤ 2 SE (%)"] < summary["MI"]["values with |bias| ≤ 2 SE (%)"]
    assert summary["NS"]["mean variance"] < summary["MI"]["mean variance"]
    assert mi["bias"].shape == (100,)


def test_query_errors_match_the_metrics(zipf_run):
    truth = zipf_run.true_frequencies
    est = zipf_run.estimates["mi"]
    np.testing.assert_allclose(lab.full_domain_mse(est, truth), zipf_run.metrics["mi"]["mse"])
    per_trial = lab.top_k_mse_per_trial(est, truth, 10)
    np.testing.assert_allclose(per_trial, [top_k_mse(truth, row, k=10) for row in est])
    np.testing.assert_allclose(per_trial, zipf_run.metrics["mi"]["topk_mse"])
    curve = lab.top_k_curve(est, truth, [1, 10, 100])
    assert curve.shape == (3, 200)
    np.testing.assert_allclose(curve[1], per_trial)
    np.testing.assert_allclose(curve[2], lab.full_domain_mse(est, truth))


def test_random_subsets_and_set_value_answers_are_sums():
    rng = np.random.default_rng(0)
    masks = lab.random_subsets(50, 0.1, 30, rng)
    assert masks.shape == (30, 50) and np.all(masks.sum(axis=1) == 5)
    np.testing.assert_array_equal(masks, lab.random_subsets(50, 0.1, 30, np.random.default_rng(0)))
    est = rng.normal(size=(4, 50))
    answers = lab.set_value_answers(est, masks)
    for t in range(4):
        for q in range(30):
            assert answers[t, q] == pytest.approx(sum(est[t, v] for v in range(50) if masks[q, v]))
    assert lab.subset_size(1000, 0.1) == 100 and lab.subset_size(5, 0.01) == 1


def test_set_value_mse_expected_is_the_average_over_all_subsets():
    rng = np.random.default_rng(4)
    truth = rng.dirichlet(np.ones(6))
    est = truth + rng.normal(0, 0.05, (3, 6))
    for m in (1, 2, 3, 6):
        subsets = list(itertools.combinations(range(6), m))
        masks = np.zeros((len(subsets), 6), dtype=bool)
        for i, s in enumerate(subsets):
            masks[i, list(s)] = True
        np.testing.assert_allclose(lab.set_value_mse(est, truth, masks), lab.set_value_mse_expected(est, truth, m))


def test_task_errors_summary_and_best(zipf_run):
    errors = lab.task_errors(zipf_run.estimates, zipf_run.true_frequencies, k=10, rho=0.1, queries=100, seed=0)
    assert set(errors) == set(lab.TASKS)
    assert all(v.shape == (200,) for per in errors.values() for v in per.values())
    summary = lab.summary_table(errors, display={"mi": "MI", "norm-sub": "NS"})
    assert list(summary["estimator"]) == ["MI", "NS"]
    assert lab.TASKS["set"] in summary.columns and f"{lab.TASKS['set']} ± SE" in summary.columns
    best = lab.best_per_task(errors)
    assert list(best["task"]) == list(lab.TASKS.values())
    # Norm-Sub's full-domain MSE on a Zipf population is several times lower (paper §V.C).
    assert best.iloc[0]["best"] == "norm-sub" and best.iloc[0]["clear lead"]


def test_best_per_task_detects_ties():
    rng = np.random.default_rng(0)
    noise = rng.normal(1.0, 0.1, 50)
    errors = {"full": {"a": noise, "b": noise + rng.normal(0, 0.001, 50)},
              "set": {"a": noise, "b": noise * 3}}
    best = lab.best_per_task(errors)
    assert not best.iloc[0]["clear lead"]
    assert best.iloc[1]["best"] == "a" and best.iloc[1]["clear lead"]
    assert best.iloc[1]["runner-up / best"] == pytest.approx(3.0)


def test_chunks_are_reproducible_and_extend():
    mech = ldp.get_mechanism("grr", 2.0, 8)
    counts = np.array([100, 50, 20, 10, 5, 5, 5, 5])
    assert lab.chunk_plan(25) == [(0, 10), (1, 10), (2, 5)]

    def run(trials: int) -> ldp.SimulationResult:
        return lab.merge_results([lab.run_chunk(mech, counts, ["mi"], engine="fast", seed=3, index=i, trials=t)
                                  for i, t in lab.chunk_plan(trials)])

    a, b = run(20), run(25)
    assert b.trials == 25 and b.seed == 3
    np.testing.assert_array_equal(a.estimates["mi"], b.estimates["mi"][:20])
    np.testing.assert_array_equal(a.metrics["mi"]["mse"], b.metrics["mi"]["mse"][:20])
    with pytest.raises(ValueError, match="same configuration"):
        lab.merge_results([a, lab.run_chunk(mech, counts, ["norm-sub"], engine="fast", seed=3, index=0, trials=2)])


def test_draw_population():
    counts = np.array([5, 3, 2])
    np.testing.assert_array_equal(lab.draw_population(counts, 10, seed=0), counts)
    drawn = lab.draw_population(counts, 1000, seed=1)
    assert drawn.sum() == 1000 and drawn.dtype == np.int64
    np.testing.assert_array_equal(drawn, lab.draw_population(counts, 1000, seed=1))
    with pytest.raises(ValueError, match="positive integer"):
        lab.draw_population(counts, 0, seed=0)


def test_estimated_seconds_grows_with_the_work():
    assert lab.estimated_seconds(10**6, 100, 50, "fast") < 1
    assert lab.estimated_seconds(10**6, 100, 50, "exact") > 10
    assert lab.estimated_seconds(10**6, 1000, 50, "exact") > lab.estimated_seconds(10**6, 100, 50, "exact")


def test_time_estimators_feeds_the_estimate():
    mech = ldp.get_mechanism("oue", 1.0, 16)
    timing = lab.time_estimators(mech, np.full(16, 100), ["mi", "norm-sub"], seed=0)
    assert set(timing) == {"mi", "norm-sub"} and all(t >= 0 for t in timing.values())
    base = lab.estimated_seconds(1000, 16, 50, "fast")
    assert lab.estimated_seconds(1000, 16, 50, "fast", estimator_seconds=0.2) == pytest.approx(base + 50 * 1.25 * 0.2)


# --------------------------------------------------------------------------- Post-Pos answers clipped at 0 (§IV-A)

def test_clipped_answers_by_hand():
    truth = np.array([0.5, 0.1, 0.4])
    est = np.array([[0.5, -0.1, 0.6]])
    np.testing.assert_allclose(lab.full_domain_mse(est, truth), [(0 + 0.04 + 0.04) / 3])
    np.testing.assert_allclose(lab.full_domain_mse(est, truth, clip=True), [(0 + 0.01 + 0.04) / 3])
    np.testing.assert_allclose(lab.top_k_mse_per_trial(est, truth, 3, clip=True), [(0.01 + 0.04) / 3])
    np.testing.assert_allclose(lab.top_k_curve(est, truth, [1, 2, 3], clip=True)[:, 0],
                               [0.0, 0.04 / 2, 0.05 / 3])  # ranking by truth: values 0, 2, 1
    masks = np.array([[False, True, False], [True, True, False]])
    np.testing.assert_allclose(lab.set_value_answers(est, masks), [[-0.1, 0.4]])
    np.testing.assert_allclose(lab.set_value_answers(est, masks, clip=True), [[0.0, 0.4]])
    # true sums 0.1 and 0.6: clipped errors 0.1 and 0.2
    np.testing.assert_allclose(lab.set_value_mse(est, truth, masks, clip=True), [(0.01 + 0.04) / 2])
    assert lab.clip_for("post-pos") and not lab.clip_for("mi") and not lab.clip_for("not-registered")


@pytest.fixture(scope="module")
def tail_run():
    """OUE on a long-tailed Zipf population: many tail values get negative MI estimates."""
    from ldp.data.synthetic import true_distribution

    counts = np.round(true_distribution("zipf:d=100,s=1.5") * 20_000).astype(np.int64)
    mech = ldp.get_mechanism("oue", 1.0, 100)
    return lab.merge_results([lab.run_chunk(mech, counts, ["mi", "base-pos", "post-pos"], engine="fast", seed=5,
                                            index=i, trials=t) for i, t in lab.chunk_plan(20)])


def test_post_pos_differs_from_mi_where_the_paper_says(tail_run):
    # Post-Pos keeps MI's vector and clips each answer at 0 (consistency paper §IV-A, §V.C–D).
    np.testing.assert_array_equal(tail_run.estimates["post-pos"], tail_run.estimates["mi"])
    truth = tail_run.true_frequencies
    small = lab.task_errors(tail_run.estimates, truth, k=10, rho=0.02, queries=300, seed=1)
    # On single values (full domain, top-k) Post-Pos equals Base-Pos, and beats MI on the full domain.
    np.testing.assert_allclose(small["full"]["post-pos"], small["full"]["base-pos"])
    np.testing.assert_allclose(small["topk"]["post-pos"], small["topk"]["base-pos"])
    assert np.all(small["full"]["post-pos"] < small["full"]["mi"])
    # Clipping a sum at 0 never moves it away from a non-negative truth: Post-Pos ≤ MI on every trial,
    # and strictly lower on small sets of this long tail (sums of 2 values are often negative).
    assert np.all(small["set"]["post-pos"] <= small["set"]["mi"] + 1e-18)
    assert np.mean(small["set"]["post-pos"]) < 0.9 * np.mean(small["set"]["mi"])
    # Large sets are never negative: Post-Pos answers exactly as MI.
    large = lab.task_errors(tail_run.estimates, truth, k=10, rho=0.9, queries=50, seed=1)
    np.testing.assert_allclose(large["set"]["post-pos"], large["set"]["mi"])


def test_curve_tables_clip_post_pos(tail_run):
    truth = tail_run.true_frequencies
    names = {"mi": "MI", "base-pos": "BP", "post-pos": "PP"}
    curve = lab.top_k_curve_table(tail_run.estimates, truth, [1, 50, 100], names)
    pp, bp = curve[curve["estimator"] == "PP"], curve[curve["estimator"] == "BP"]
    np.testing.assert_allclose(pp["MSE"], bp["MSE"])
    sets = lab.set_value_curve_table(tail_run.estimates, truth, [2, 50, 100], names, queries=100, seed=0)
    assert set(sets[sets["estimator"] == "PP"]["averaged over"]) == {"100 random sets"}
    assert set(sets[sets["estimator"] == "MI"]["averaged over"]) == {"all sets"}
    mi, pp = sets[sets["estimator"] == "MI"], sets[sets["estimator"] == "PP"]
    # ρ = 100%: one set (the whole domain), never negative, so the sampled Post-Pos equals MI's closed form.
    assert pp["MSE"].iloc[-1] == pytest.approx(mi["MSE"].iloc[-1], rel=1e-9)
    assert pp["MSE"].iloc[0] < mi["MSE"].iloc[0]


# --------------------------------------------------------------------------- Γ and n′

def test_comparison_columns_by_hand():
    mech = ldp.get_mechanism("grr", 1.0, 4)
    truth = np.full(4, 0.25)
    errors = {"full": {"mi": np.array([2.0, 2.0]), "a": np.array([1.0, 1.0])},
              "topk": {"mi": np.array([1.0, 3.0]), "a": np.array([4.0, 4.0])}}
    out = lab.comparison_columns(errors, n=100, mechanism=mech, truth=truth, task_names={"full": "F", "topk": "T"})
    closed = float(np.mean(mech.variance(truth, 100)))
    assert out["a"]["Γ vs MI, F (%)"] == pytest.approx(50.0)  # 100·(2 − 1)/2
    assert out["a"]["Γ vs MI, T (%)"] == 0.0  # worse than MI: no gain
    assert out["mi"]["Γ vs MI, F (%)"] == 0.0
    assert out["a"]["equivalent users n′ (full domain)"] == pytest.approx(100 * closed / 1.0)
    assert out["mi"]["equivalent users n′ (full domain)"] == pytest.approx(100 * closed / 2.0)
    without = lab.comparison_columns({"full": {"a": np.array([1.0])}}, n=100, mechanism=mech, truth=truth)
    assert math.isnan(without["a"]["Γ vs MI, Full domain (MSE) (%)"])
    assert without["a"]["equivalent users n′ (full domain)"] == pytest.approx(100 * closed)


def test_equivalent_users_of_mi_is_about_n(zipf_run):
    errors = lab.task_errors(zipf_run.estimates, zipf_run.true_frequencies, k=10, rho=0.1, queries=10, seed=0)
    out = lab.comparison_columns(errors, n=zipf_run.n, mechanism=zipf_run.mechanism, truth=zipf_run.true_frequencies)
    # MI's empirical MSE over 200 trials estimates its closed form: relative sd ≈ √(2/(d·T)) per value-average,
    # generously 5% here, so n′_MI ≈ n.
    assert out["mi"]["equivalent users n′ (full domain)"] == pytest.approx(zipf_run.n, rel=0.05)
    assert out["norm-sub"]["equivalent users n′ (full domain)"] > 1.5 * zipf_run.n  # §V.C: Norm-Sub saves users
    assert out["norm-sub"]["Γ vs MI, Full domain (MSE) (%)"] > 50


# --------------------------------------------------------------------------- default estimators and timing

def test_preselect_leaves_out_the_slowest():
    timing = {"mi": 0.0, "ibu": 1.0, "power": 0.1}
    kept, left = lab.preselect(timing, n=1000, d=10, trials=50, engine="fast", limit=10.0)
    assert kept == ["mi", "power"] and left == ["ibu"]
    assert lab.estimated_seconds(1000, 10, 50, "fast", 0.1) <= 10.0
    assert lab.preselect(timing, n=1000, d=10, trials=50, engine="fast", limit=100.0) == (list(timing), [])
    # Too slow even without estimators (the exact engine): leaving estimators out would not help.
    assert lab.preselect(timing, n=10**7, d=1000, trials=50, engine="exact", limit=10.0) == (list(timing), [])
    assert lab.preselect({"a": 5.0, "b": 9.0}, n=10, d=2, trials=50, engine="fast", limit=1.0) == (["a"], ["b"])


def test_advisor_seconds_grows_with_the_work():
    timing = {"mi": 0.001, "ibu": 0.05}
    base = lab.advisor_seconds(timing, n=10**5, d=100, trials=20, engine="fast")
    assert base == pytest.approx(lab.estimated_seconds(10**5, 100, 1, "fast") + lab.estimated_seconds(
        10**5, 100, 20, "fast") + 1.25 * 21 * 0.051)
    assert lab.advisor_seconds(timing, n=10**5, d=100, trials=40, engine="fast") > base
    assert lab.advisor_seconds(timing, n=10**5, d=100, trials=20, engine="exact") > base


# --------------------------------------------------------------------------- the advisor, checked against the truth

@pytest.fixture(scope="module")
def population():
    from ldp.data.synthetic import true_distribution

    return np.round(true_distribution("zipf:d=20,s=1.2") * 5000).astype(np.int64)


def test_advise_matches_the_advisor_and_scores_the_truth(population):
    from ldp.estimators import get_estimator
    from ldp.evaluation import tasks
    from ldp.studies.advisor import recommend

    mech = ldp.get_mechanism("grr", 1.0, 20)
    names = ["mi", "norm-sub", "base-pos", "post-pos"]
    check = lab.advise(mech, population, task="mse", trials=5, seed=3, candidates=names)
    agg = lab.advisor_collection(mech, population, engine="fast", seed=3)
    rec = recommend(mech, agg.counts, agg.n, task="mse", trials=5, seed=3, candidates=names)
    assert check.best == rec.best and check.n == agg.n == population.sum()
    np.testing.assert_allclose(check.table["expected"], rec.table["expected error"])
    truth = population / population.sum()
    for name in names:
        est = get_estimator(name).estimate(mech, agg.counts, agg.n)
        expected = tasks.full_domain_error(truth, est, clip=tasks.clip_for(name))
        assert check.actual[name] == pytest.approx(expected, rel=1e-12)
    table = check.table
    assert list(table["estimator"]) == rec.ranking and set(table["actual rank"]) <= set(range(1, 5))
    assert table.loc[table["estimator"] == "post-pos", "actual"].item() == pytest.approx(
        table.loc[table["estimator"] == "base-pos", "actual"].item())  # single values: Post-Pos = Base-Pos
    row = table[table["estimator"] == "mi"].iloc[0]
    assert row["actual − expected (trial SDs)"] == pytest.approx((row["actual"] - row["expected"]) / row["trial SD"])
    assert {"Γ vs MI (%)", "equivalent users"} <= set(table.columns)
    assert check.row(check.best)["display name"] in check.verdict()
    again = lab.advise(mech, population, task="mse", trials=5, seed=3, candidates=names)
    assert again.table.equals(table)  # deterministic given the seed


def test_advise_uses_the_advisors_random_sets(population):
    from ldp.estimators import get_estimator
    from ldp.evaluation import tasks
    from ldp.studies import advisor

    mech = ldp.get_mechanism("oue", 0.5, 20)
    check = lab.advise(mech, population, task="set", trials=3, seed=8, candidates=["mi", "post-pos"], rho=0.1,
                       queries=40)
    agg = lab.advisor_collection(mech, population, engine="fast", seed=8)
    masks = lab.random_subsets(20, 0.1, 40, np.random.default_rng([8, advisor.STREAM_QUERIES]))
    truth = population / population.sum()
    est = get_estimator("mi").estimate(mech, agg.counts, agg.n)
    assert check.actual["mi"] == pytest.approx(tasks.set_query_error(truth, est, masks))
    assert check.actual["post-pos"] == pytest.approx(tasks.set_query_error(truth, est, masks, clip=True))
    assert check.actual["post-pos"] <= check.actual["mi"]
    assert "equivalent users" not in check.table.columns  # defined for the full-domain MSE only
    precision = lab.advise(mech, population, task="topk-precision", trials=3, seed=8, candidates=["mi", "norm-sub"],
                           k=3)
    assert precision.better == "higher" and precision.table["expected"].is_monotonic_decreasing


def test_advise_rejects_bad_parameters(population):
    mech = ldp.get_mechanism("grr", 1.0, 20)
    with pytest.raises(ValueError, match="domain size 20"):
        lab.advise(mech, population, task="topk", trials=3, k=21)
    with pytest.raises(ValueError, match="unknown task"):
        lab.advise(mech, population, task="median", trials=3)


def test_advisor_figure(population):
    from ldp.viz import lab as vl
    from ldp.viz.figures import PALETTE

    mech = ldp.get_mechanism("grr", 1.0, 20)
    check = lab.advise(mech, population, task="mse", trials=3, seed=0, candidates=["mi", "norm-sub"])
    fig = vl.advisor_figure(check.table, title="Advisor", value_label="error (MSE, fraction²)")
    assert fig.layout.title.text == "Advisor" and fig.layout.font.size >= 14
    assert "MSE" in fig.layout.xaxis.title.text and fig.layout.yaxis.title.text
    assert len(fig.data) == 2 and fig.layout.xaxis.type == "log"
    assert {fig.data[0].marker.color, fig.data[1].marker.color} <= set(PALETTE)
    np.testing.assert_allclose(fig.data[0].x, check.table["expected"])
    np.testing.assert_allclose(fig.data[1].x, check.table["actual"])
    assert list(fig.data[0].y) == list(check.table["display name"])
    zero = check.table.assign(actual=0.0)
    assert vl.advisor_figure(zero, title="t", value_label="misclassified values").layout.xaxis.type == "linear"
