"""ldp.studies.comparison: the post-processing lab's aggregations (consistency paper §V) and the numerical
summary tables, against hand-computed values and theory. (The histogram metrics are tested in
tests/evaluation/test_metrics.py, the query tasks in tests/evaluation/test_tasks.py, run-time estimates in
test_cost.py and the advisor in test_advisor.py.)"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import ldp
from ldp.core.streams import rng_for
from ldp.evaluation import tasks
from ldp.evaluation.metrics import DEFAULT_METRICS, get_metric, metrics_over_trials, top_k_mse, wasserstein
from ldp.studies import comparison

# --------------------------------------------------------------------------- numerical tables

def test_numerical_summary_and_quantile_tables():
    edges = np.linspace(0, 24, 25)
    truth = np.full(24, 1 / 24)
    rng = np.random.default_rng(2)
    est = truth + rng.normal(0, 0.005, (4, 24))
    names = DEFAULT_METRICS["numerical"]
    per = metrics_over_trials(truth, est, names, edges=edges, project=True, queries=200,
                              rng=lambda: np.random.default_rng(0))  # as SimulationResult.metrics[estimator]
    assert all(v.shape == (4,) for v in per.values())
    assert per["wasserstein"][0] == pytest.approx(wasserstein(truth, est[0], edges, project=True))
    table = comparison.numerical_summary(per, "hours")
    assert list(table["unit"]) == ["hours", "fraction of users", "fraction of users", "fraction of users", "hours",
                                   "hours²", "hours"]
    assert list(table["metric"]) == [get_metric(m).title for m in names]
    np.testing.assert_allclose(table["mean over trials"], [per[m].mean() for m in names])
    assert list(comparison.numerical_summary(per)["unit"])[5] == "data units squared"
    q = comparison.quantile_table(edges, truth, est)
    assert q.shape == (9, 4)
    np.testing.assert_allclose(q["true"], 2.4 * np.arange(1, 10), atol=1e-9)


def test_the_quantile_table_reads_an_estimate_that_is_no_distribution_through_norm_sub():
    """A raw estimate with negative entries (as matrix inversion gives) has a CDF that falls; its deciles are read
    off its Norm-Sub projection, as the page's caption (NUMERICAL_PROJECTION) says — the same numbers as for the
    projection given directly, and the deciles of the raw row would differ."""
    from ldp.evaluation.histograms import quantile_values
    from ldp.maths.simplex import norm_sub

    edges = np.linspace(0, 10, 11)
    truth = np.full(10, 0.1)
    raw = np.array([0.3, -0.1, 0.2, 0.1, -0.05, 0.2, 0.1, 0.1, 0.05, 0.1])
    table = comparison.quantile_table(edges, truth, raw)
    np.testing.assert_allclose(table["estimated (trial 1)"], quantile_values(edges, norm_sub(raw)), atol=1e-12)
    assert not np.allclose(table["estimated (trial 1)"], quantile_values(edges, raw))


# --------------------------------------------------------------------------- post-processing lab

@pytest.fixture(scope="module")
def zipf_run():
    from ldp.data.synthetic import true_distribution

    freqs = true_distribution("zipf:d=100,s=1.5")
    counts = comparison.draw_population(np.round(freqs * 1e6).astype(np.int64), 200_000, seed=7)
    mech = ldp.get_mechanism("oue", 1.0, 100)
    parts = [comparison.run_chunk(mech, counts, ["mi", "norm-sub", "norm-mul"], engine="fast", seed=7, index=i,
                                  trials=t)
             for i, t in comparison.chunk_plan(200)]
    return comparison.merge_results(parts)


def test_per_value_table_shapes_and_mi_matches_theory(zipf_run):
    labels = [f"v{i}" for i in range(100)]
    table = comparison.per_value_table(zipf_run, labels, {"mi": "MI", "norm-sub": "NS"})
    assert len(table) == 300 and list(dict.fromkeys(table["estimator"])) == ["MI", "NS", "norm-mul"]
    mi = table[table["estimator"] == "MI"]
    assert np.all(np.diff(mi["true frequency"]) <= 0)  # sorted by true frequency
    np.testing.assert_allclose(mi["closed-form MI variance"],
                               zipf_run.mechanism.variance(mi["true frequency"].to_numpy(), zipf_run.n))
    summary = comparison.bias_summary(table)
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
    np.testing.assert_allclose(tasks.full_domain_error(truth, est), zipf_run.metrics["mi"]["mse"])
    per_trial = top_k_mse(truth, est, 10)
    np.testing.assert_allclose(per_trial, [top_k_mse(truth, row, k=10) for row in est])
    np.testing.assert_allclose(per_trial, zipf_run.metrics["mi"]["topk_mse"])
    assert zipf_run.top_k == 10
    curve = tasks.top_k_curve(est, truth, [1, 10, 100])
    assert curve.shape == (3, 200)
    np.testing.assert_allclose(curve[1], per_trial)
    np.testing.assert_allclose(curve[2], tasks.full_domain_error(truth, est))
    # task_errors is these functions per estimator (Post-Pos clipped)
    errors = comparison.task_errors(zipf_run.estimates, truth, k=10, rho=0.1, queries=20, seed=0)
    np.testing.assert_allclose(errors["mse"]["mi"], zipf_run.metrics["mi"]["mse"])
    np.testing.assert_allclose(errors["topk"]["mi"], per_trial)
    masks = tasks.random_subsets(100, 0.1, 20, rng_for(0, "set-value queries"))
    np.testing.assert_allclose(errors["set"]["norm-sub"], tasks.set_query_error(truth, zipf_run.estimates["norm-sub"],
                                                                               masks))


def test_task_errors_summary_and_best(zipf_run):
    errors = comparison.task_errors(zipf_run.estimates, zipf_run.true_frequencies, k=10, rho=0.1, queries=100, seed=0)
    assert list(errors) == list(comparison.COMPARISON_TASKS) == ["mse", "topk", "set"]  # the registered tasks' names
    assert all(v.shape == (200,) for per in errors.values() for v in per.values())
    summary = comparison.summary_table(errors, display={"mi": "MI", "norm-sub": "NS", "norm-mul": "NM"})
    assert list(summary["estimator"]) == ["MI", "NS", "NM"]
    label = comparison.task_labels()["set"]
    assert label in summary.columns and f"{label} ± SE" in summary.columns
    best = comparison.best_per_task(errors)
    assert list(best["task"]) == [comparison.task_labels()[t] for t in comparison.COMPARISON_TASKS]
    # labels may be keyed by any name of a task (the page's "full")
    assert list(comparison.best_per_task(errors, task_names={"full": "F"})["task"])[0] == "F"
    # Norm-Sub's full-domain MSE on a Zipf population is several times lower (paper §V.C).
    assert best.iloc[0]["best"] == "norm-sub" and best.iloc[0]["clear lead"]


def test_query_comparison_is_the_tables_of_one_k_and_rho(zipf_run):
    """The lab's query section in one call: the same numbers as each table built on its own."""
    truth, display = zipf_run.true_frequencies, {"mi": "MI", "norm-sub": "NS", "norm-mul": "NM"}
    table = comparison.per_value_table(zipf_run, [f"v{i}" for i in range(100)], display)
    names, short = {"full": "F", "topk": "Top-5", "set": "Set 20%"}, {"full": "f", "topk": "t", "set": "s"}
    got = comparison.query_comparison(zipf_run, table, display, k=5, rho_percent=20, queries=50, ks=[1, 5, 50],
                                      rhos_percent=[10, 20], task_names=names, gain_names=short)
    errors = comparison.task_errors(zipf_run.estimates, truth, k=5, rho=0.2, queries=50, seed=zipf_run.seed or 0)
    for task, per in errors.items():
        for name, values in per.items():
            np.testing.assert_array_equal(got.errors[task][name], values)
    pd.testing.assert_frame_equal(got.top_k_curve, comparison.top_k_curve_table(zipf_run.estimates, truth,
                                                                                [1, 5, 50], display))
    pd.testing.assert_frame_equal(got.set_curve, comparison.set_value_curve_table(
        zipf_run.estimates, truth, [10, 20], display, seed=zipf_run.seed or 0))
    pd.testing.assert_frame_equal(got.set_sample, comparison.set_value_sample_table(errors["set"], truth, 20, display))
    pd.testing.assert_frame_equal(got.best, comparison.best_per_task(errors, display=display, task_names=names))
    assert list(got.summary["estimator"]) == ["MI", "NS", "NM"] and "Top-5" in got.summary.columns
    bias = comparison.bias_summary(table)
    gains = comparison.comparison_columns(errors, n=zipf_run.n, mechanism=zipf_run.mechanism, truth=truth,
                                          task_names=short)
    row = got.summary.set_index("estimator").loc["NS"]
    assert row["mean |bias|"] == bias["NS"]["mean |bias|"]
    assert row["equivalent users n′ (full domain)"] == gains["norm-sub"]["equivalent users n′ (full domain)"]
    assert row["Γ vs MI clipped + renormalised, t (%)"] == gains["norm-sub"]["Γ vs MI clipped + renormalised, t (%)"]
    with pytest.raises(ldp.InvalidInput):
        comparison.query_comparison(zipf_run, table, display, k=500, rho_percent=20, queries=50, ks=[1],
                                    rhos_percent=[20], task_names=names, gain_names=short)


def test_best_per_task_detects_ties():
    rng = np.random.default_rng(0)
    noise = rng.normal(1.0, 0.1, 50)
    errors = {"full": {"a": noise, "b": noise + rng.normal(0, 0.001, 50)},
              "set": {"a": noise, "b": noise * 3}}
    best = comparison.best_per_task(errors)
    assert not best.iloc[0]["clear lead"]
    assert best.iloc[1]["best"] == "a" and best.iloc[1]["clear lead"]
    assert best.iloc[1]["runner-up / best"] == pytest.approx(3.0)


def test_chunks_are_reproducible_and_extend():
    mech = ldp.get_mechanism("grr", 2.0, 8)
    counts = np.array([100, 50, 20, 10, 5, 5, 5, 5])
    assert comparison.chunk_plan(25) == [(0, 10), (1, 10), (2, 5)]

    def run(trials: int) -> ldp.SimulationResult:
        return comparison.merge_results([comparison.run_chunk(mech, counts, ["mi"], engine="fast", seed=3, index=i,
                                                              trials=t)
                                         for i, t in comparison.chunk_plan(trials)])

    a, b = run(20), run(25)
    assert b.trials == 25 and b.seed == 3
    np.testing.assert_array_equal(a.estimates["mi"], b.estimates["mi"][:20])
    np.testing.assert_array_equal(a.metrics["mi"]["mse"], b.metrics["mi"]["mse"][:20])
    with pytest.raises(ldp.LDPError, match="same configuration"):
        comparison.merge_results([a, comparison.run_chunk(mech, counts, ["norm-sub"], engine="fast", seed=3, index=0,
                                                          trials=2)])


def test_merged_runs_keep_the_diagnostics():
    """Chunks of a run merge into one result with every trial's convergence and iterations (and top_k)."""
    mech = ldp.get_mechanism("grr", 0.5, 16)
    counts = np.arange(1, 17) * 10
    ibu = ldp.get_estimator("ibu", max_iter=3, method="em")
    merged = comparison.merge_results([comparison.run_chunk(mech, counts, ["mi", ibu], engine="fast", seed=1, index=i,
                                                            trials=t)
                                       for i, t in comparison.chunk_plan(15)])
    assert merged.trials == 15 and merged.top_k == 10 and merged.seed == 1
    assert merged.converged["ibu"].shape == (15,) and not merged.converged["ibu"].any()
    np.testing.assert_array_equal(merged.iterations["ibu"], 3)
    assert "mi" not in merged.converged  # not iterative
    assert merged.diagnostics()["ibu"] == {"converged_trials": 0, "trials": 15, "mean_iterations": 3.0}
    assert merged.warnings and all("ibu did not converge" in w for w in merged.warnings)


def test_draw_population():
    counts = np.array([5, 3, 2])
    np.testing.assert_array_equal(comparison.draw_population(counts, 10, seed=0), counts)
    drawn = comparison.draw_population(counts, 1000, seed=1)
    assert drawn.sum() == 1000 and drawn.dtype == np.int64
    np.testing.assert_array_equal(drawn, comparison.draw_population(counts, 1000, seed=1))
    with pytest.raises(ldp.LDPError, match="positive integer"):
        comparison.draw_population(counts, 0, seed=0)
    with pytest.raises(ldp.LDPError, match="at least two values"):
        comparison.draw_population(np.array([5]), 10, seed=0)


# --------------------------------------------------------------------------- Post-Pos answers clipped at 0 (§IV-A)

@pytest.fixture(scope="module")
def tail_run():
    """OUE on a long-tailed Zipf population: many tail values get negative MI estimates."""
    from ldp.data.synthetic import true_distribution

    counts = np.round(true_distribution("zipf:d=100,s=1.5") * 20_000).astype(np.int64)
    mech = ldp.get_mechanism("oue", 1.0, 100)
    return comparison.merge_results([comparison.run_chunk(mech, counts, ["mi", "base-pos", "post-pos"], engine="fast",
                                                          seed=5, index=i, trials=t)
                                     for i, t in comparison.chunk_plan(20)])


def test_post_pos_differs_from_mi_where_the_paper_says(tail_run):
    # Post-Pos keeps MI's vector and clips each answer at 0 (consistency paper §IV-A, §V.C–D).
    np.testing.assert_array_equal(tail_run.estimates["post-pos"], tail_run.estimates["mi"])
    truth = tail_run.true_frequencies
    small = comparison.task_errors(tail_run.estimates, truth, k=10, rho=0.02, queries=300, seed=1)
    # On single values (full domain, top-k) Post-Pos equals Base-Pos, and beats MI on the full domain.
    np.testing.assert_allclose(small["mse"]["post-pos"], small["mse"]["base-pos"])
    np.testing.assert_allclose(small["topk"]["post-pos"], small["topk"]["base-pos"])
    assert np.all(small["mse"]["post-pos"] < small["mse"]["mi"])
    # Clipping a sum at 0 never moves it away from a non-negative truth: Post-Pos ≤ MI on every trial,
    # and strictly lower on small sets of this long tail (sums of 2 values are often negative).
    assert np.all(small["set"]["post-pos"] <= small["set"]["mi"] + 1e-18)
    assert np.mean(small["set"]["post-pos"]) < 0.9 * np.mean(small["set"]["mi"])
    # Large sets are never negative: Post-Pos answers exactly as MI.
    large = comparison.task_errors(tail_run.estimates, truth, k=10, rho=0.9, queries=50, seed=1)
    np.testing.assert_allclose(large["set"]["post-pos"], large["set"]["mi"])


def test_curve_tables_clip_post_pos(tail_run):
    truth = tail_run.true_frequencies
    names = {"mi": "MI", "base-pos": "BP", "post-pos": "PP"}
    curve = comparison.top_k_curve_table(tail_run.estimates, truth, [1, 50, 100], names)
    pp, bp = curve[curve["estimator"] == "PP"], curve[curve["estimator"] == "BP"]
    np.testing.assert_allclose(pp["MSE"], bp["MSE"])
    sets = comparison.set_value_curve_table(tail_run.estimates, truth, [2, 50, 100], names, queries=100, seed=0)
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
    errors = {"full": {"norm-mul": np.array([2.0, 2.0]), "a": np.array([1.0, 1.0])},
              "topk": {"norm-mul": np.array([1.0, 3.0]), "a": np.array([4.0, 4.0])}}
    out = comparison.comparison_columns(errors, n=100, mechanism=mech, truth=truth,
                                        task_names={"full": "F", "topk": "T"})
    closed = float(np.mean(mech.variance(truth, 100)))
    # the IBU paper's Γ (Eq. (1)) over its §2.3 baseline: MI clipped at 0 and renormalised (norm-mul)
    assert out["a"]["Γ vs MI clipped + renormalised, F (%)"] == pytest.approx(50.0)  # 100·(2 − 1)/2
    assert out["a"]["Γ vs MI clipped + renormalised, T (%)"] == 0.0  # worse than the baseline: no gain
    assert out["norm-mul"]["Γ vs MI clipped + renormalised, F (%)"] == 0.0
    assert out["a"]["equivalent users n′ (full domain)"] == pytest.approx(100 * closed / 1.0)
    assert out["norm-mul"]["equivalent users n′ (full domain)"] == pytest.approx(100 * closed / 2.0)
    without = comparison.comparison_columns({"full": {"a": np.array([1.0])}}, n=100, mechanism=mech, truth=truth)
    assert math.isnan(without["a"]["Γ vs MI clipped + renormalised, Full domain (MSE) (%)"])
    # another baseline is labelled with its name
    raw = comparison.comparison_columns({"full": {"mi": np.array([2.0]), "a": np.array([1.0])}}, n=100, mechanism=mech,
                                        truth=truth, baseline="mi")
    assert raw["a"]["Γ vs mi, Full domain (MSE) (%)"] == pytest.approx(50.0)
    assert without["a"]["equivalent users n′ (full domain)"] == pytest.approx(100 * closed)


def test_equivalent_users_of_mi_is_about_n(zipf_run):
    errors = comparison.task_errors(zipf_run.estimates, zipf_run.true_frequencies, k=10, rho=0.1, queries=10, seed=0)
    out = comparison.comparison_columns(errors, n=zipf_run.n, mechanism=zipf_run.mechanism,
                                        truth=zipf_run.true_frequencies)
    # MI's empirical MSE over 200 trials estimates its closed form: relative sd ≈ √(2/(d·T)) per value-average,
    # generously 5% here, so n′_MI ≈ n.
    assert out["mi"]["equivalent users n′ (full domain)"] == pytest.approx(zipf_run.n, rel=0.05)
    assert out["norm-sub"]["equivalent users n′ (full domain)"] > 1.5 * zipf_run.n  # §V.C: Norm-Sub saves users
    # Γ over the paper's baseline (Norm-Mul, MI clipped and renormalised): Norm-Sub gains most of the error (the
    # consistency paper: Norm-Mul is worse than Norm-Sub, even worse than MI, on skewed data); the baseline's own Γ is 0
    gain = "Γ vs MI clipped + renormalised, Full domain (MSE) (%)"
    assert out["norm-sub"][gain] > 50 and out["mi"][gain] > 10 and out["norm-mul"][gain] == 0.0


# --------------------------------------------------------------------------- runs for the pages
def test_run_trials_merges_the_chunks_and_reports_progress():
    mech = ldp.get_mechanism("oue", 1.0, 8)
    counts = np.full(8, 500)
    seen = []
    result = comparison.run_trials(mech, counts, ("mi",), engine="fast", seed=3, trials=25,
                                   progress=lambda done, total: seen.append((done, total)))
    assert result.trials == 25 and seen == [(10, 25), (20, 25), (25, 25)]
    parts = [comparison.run_chunk(mech, counts, ("mi",), engine="fast", seed=3, index=i, trials=size)
             for i, size in comparison.chunk_plan(25)]
    np.testing.assert_array_equal(result.estimates["mi"], comparison.merge_results(parts).estimates["mi"])
    calls = []
    comparison.run_trials(mech, counts, ("mi",), engine="fast", seed=3, trials=12,
                          chunk=lambda i, size: calls.append((i, size)) or parts[i])
    assert calls == [(0, 10), (1, 2)]
    assert comparison.max_trials(100, 4, 5_000_000) == 12_500
    # a chunk without per-trial metrics (the Post-processing page scores the estimates its own way): the same
    # collections and estimates, no metric scored, and chunks of it merge
    bare = [comparison.run_chunk(mech, counts, ("mi", "norm-sub"), engine="fast", seed=3, index=i, trials=size,
                                 metrics=()) for i, size in comparison.chunk_plan(25)]
    merged = comparison.merge_results(bare)
    np.testing.assert_array_equal(merged.estimates["mi"], result.estimates["mi"])
    assert merged.metrics == {"mi": {}, "norm-sub": {}} and result.metrics["mi"]


def test_set_value_sample_table():
    errors = {"mi": np.array([1e-4, 3e-4]), "norm-sub": np.array([2e-4, 2e-4])}
    table = comparison.set_value_sample_table(errors, np.full(20, 0.05), 10, {"mi": "MI (Base)"})
    assert list(table["estimator"]) == ["MI (Base)", "norm-sub"]
    assert list(table["set size"]) == [2, 2] and table.loc[0, "MSE"] == pytest.approx(2e-4)
    assert table.loc[1, "SE"] == 0.0 and table.loc[0, "ρ (%)"] == 10.0


def test_numerical_methods_run_or_say_why_not():
    edges = np.linspace(0.0, 1.0, 17)
    counts = np.full(16, 1000)
    sw = comparison.simulate_numerical("sw", "ems", 1.0, counts, edges, engine="fast", trials=2, seed=0)
    assert sw.shape == (2, 16)
    np.testing.assert_allclose(sw.sum(axis=1), 1.0, atol=1e-6)

    def run(name, reconstruction):
        if name == "bad":
            raise ldp.LDPError("cannot run here")
        return comparison.simulate_numerical(name, reconstruction, 1.0, counts, edges, engine="fast", trials=1, seed=0)

    done, failed = comparison.run_methods([("sw", "em"), ("bad", None)], run)
    assert list(done) == [("sw", "em")] and failed == {("bad", None): "cannot run here"}
    metrics = comparison.numerical_metrics(edges, counts / counts.sum(), sw, (0.1,), seed=0, queries=50)
    assert set(metrics) == {*comparison.NUMERICAL_METRICS, "range_mae_0.1"}
    assert all(values.shape == (2,) for values in metrics.values())


def test_range_queries_score_the_raw_estimate_as_the_square_wave_paper_does():
    """Issue 9 item 4: HH-CI/HaarHRR range answers are compared raw in the SW paper (§6.1); projecting them onto
    the simplex first inflated their error 2–3×. A raw estimate with negative cells must be scored as it is,
    while the distribution metrics still see its Norm-Sub projection."""
    edges = np.linspace(0.0, 1.0, 9)
    truth = np.full(8, 1 / 8)
    raw = truth + np.array([-0.4, 0.4, -0.3, 0.3, -0.2, 0.2, -0.1, 0.1])  # negative cells, sums to 1
    metrics = comparison.numerical_metrics(edges, truth, raw[None, :], (0.25,), seed=3, queries=200)
    from ldp.evaluation.metrics import range_query_mae
    expect_raw = range_query_mae(truth, raw, edges, alpha=0.25, rng=rng_for(3, "range-queries"), queries=200)
    expect_proj = range_query_mae(truth, raw, edges, alpha=0.25, rng=rng_for(3, "range-queries"), queries=200,
                                  project=True)
    assert metrics["range_mae_0.25"][0] == pytest.approx(expect_raw, rel=1e-12)
    assert abs(expect_raw - expect_proj) > 1e-3  # the projection changes the answer: the test can tell them apart
    assert metrics["wasserstein"][0] == pytest.approx(wasserstein(truth, raw, edges, project=True), rel=1e-12)
    assert "no projection" in comparison.NUMERICAL_PROJECTION


def test_early_stopping_regularises_towards_uniform_and_reaches_the_limit():
    """IBU paper Eq. (3) from the uniform start: iteration 0 is the uniform vector (its MSE is Σ(1/d − f)²/d), and
    on a near-uniform population with GRR at low ε an early iterate beats the converged MLE (early stopping
    shrinks towards uniform); on a peaked population at high ε the plain iterations converge within 10⁴ steps."""
    mech = ldp.get_mechanism("grr", 0.5, 20)
    population = np.random.default_rng(0).multinomial(20_000, np.full(20, 1 / 20) + np.linspace(-0.01, 0.01, 20))
    table = comparison.early_stopping_study(mech, population, trials=6, seed=2)
    truth = population / population.sum()
    assert table.loc[0, "MSE"] == pytest.approx(float(np.mean((1 / 20 - truth) ** 2)), rel=1e-9)
    assert table["MSE / limit's MSE"].min() < 0.5  # an early iterate is much better than the limit here
    assert list(table["iterations"]) == [0, 1, 3, 10, 30, 100, 300, 1_000, 3_000, 10_000]
    peaked = np.round(np.array([0.5, 0.2, 0.1] + [0.2 / 17] * 17) * 20_000).astype(np.int64)
    far = comparison.early_stopping_study(ldp.get_mechanism("grr", 4.0, 20), peaked, trials=2, seed=2)
    assert far["distance to the limit"].iloc[-1] < 1e-6
    assert far["MSE / limit's MSE"].iloc[-1] == pytest.approx(1.0, rel=1e-4)
