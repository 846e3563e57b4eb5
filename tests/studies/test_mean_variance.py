"""Mean and variance of a numerical column in real units (ldp.studies.mean_variance): the mean from ldp.simulate,
the variance from the 50/50 split (square-wave paper §2.2, §6.3), both mapped back to the column's units."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import ldp
from ldp.studies.mean_variance import (
    MeanResult,
    binned_mean_pitfall,
    engine_note,
    mean_values,
    simulate_histogram_mean,
    simulate_mean,
    split_note,
)


def hours(n: int = 20_000, seed: int = 0) -> np.ndarray:
    return np.clip(np.random.default_rng(seed).normal(14.0, 3.0, n), 0.0, 24.0)


@pytest.mark.parametrize("name", ["sr", "pm", "gaussian"])
@pytest.mark.parametrize("engine", ["fast", "exact"])
def test_mean_is_unbiased_in_real_units_with_the_closed_form_error(name, engine):
    x = hours()
    trials = 40
    res = simulate_mean(name, 2.0, x, (0.0, 24.0), engine=engine, trials=trials, seed=3)
    assert isinstance(res, MeanResult) and res.mechanism == name and res.engine == engine
    assert res.estimated_mean.shape == res.estimated_variance.shape == (trials,) and res.users == x.size
    assert res.true_mean == pytest.approx(x.mean()) and res.true_variance == pytest.approx(x.var())
    assert res.delta == (1e-5 if name == "gaussian" else 0.0)  # the (ε, δ) mechanism says its δ
    # Var[μ̂] in real units: the mechanism's closed form on [−1, 1] scaled by ((hi − lo)/2)²
    mech = ldp.get_mechanism(name, 2.0)
    v = x / 12.0 - 1.0
    assert res.theoretical_variance == pytest.approx(mech.mean_variance(v) * 144.0, rel=1e-12)
    se = res.theoretical_std_error
    assert abs(res.estimated_mean.mean() - x.mean()) < 5 * se / math.sqrt(trials)
    # the sample sd of 40 means: relative standard error ≈ 1/√(2(T − 1)) (the fast engines draw the sum with its
    # exact variance, SR exactly and PM as a Gaussian)
    assert abs(res.estimated_mean.std(ddof=1) / se - 1) < 5 * math.sqrt(1 / (2 * (trials - 1)))
    summary = res.summary()
    assert set(summary) == {"mean_error", "variance_error", "mean_rmse", "theoretical_std_error"}
    assert summary["mean_error"] == pytest.approx(np.mean(np.abs(res.estimated_mean - x.mean())))


def test_seeded_and_the_variance_is_the_fifty_fifty_split():
    x = hours(8000, seed=1)
    a = simulate_mean("pm", 3.0, x, (0.0, 24.0), trials=30, seed=5)
    b = simulate_mean("pm", 3.0, x, (0.0, 24.0), trials=30, seed=5)
    np.testing.assert_array_equal(a.estimated_mean, b.estimated_mean)
    np.testing.assert_array_equal(a.estimated_variance, b.estimated_variance)
    c = simulate_mean("pm", 3.0, x, (0.0, 24.0), trials=30, seed=6)
    assert not np.array_equal(a.estimated_mean, c.estimated_mean)
    # the 50/50 split estimates σ² + O(1/n); 30 trials: within 5 standard errors of their mean (+ the O(1/n) bias
    # Var[μ̂] of the half of the users that estimate the mean: twice the all-users Var[μ̂], in real units)
    est = a.estimated_variance
    bias = 2 * a.theoretical_variance
    assert abs(est.mean() - x.var()) < 5 * est.std(ddof=1) / math.sqrt(est.size) + bias


def test_engine_note_reads_the_mechanism():
    sr, pm = ldp.get_mechanism("sr", 1.0), ldp.get_mechanism("pm", 1.0)
    assert engine_note(sr, "exact").startswith("exact") and "StochasticRounding" in engine_note(sr, "exact")
    assert "exact in distribution" in engine_note(sr, "fast")
    assert engine_note(pm, "fast") == f"fast, approximate: {pm.fast_engine_note}"


def test_fast_histogram_mean_collects_the_users_simulate_mean_would():
    """The fast engine builds no per-user array: the same mean draws as simulate_mean on the users' values, the
    true values as count-weighted sums, the variance from the fast split; the exact engine is simulate_mean's."""
    edges = np.linspace(0.0, 24.0, 9)
    counts = np.array([0, 40, 300, 900, 700, 250, 0, 10])
    users = np.repeat((edges[:-1] + edges[1:]) / 2, counts)
    variances = {}
    for engine in ("fast", "exact"):
        got = simulate_histogram_mean("sr", 1.0, counts, edges, engine=engine, trials=5, seed=4)
        ref = simulate_mean("sr", 1.0, users, (0.0, 24.0), engine=engine, trials=5, seed=4)
        np.testing.assert_array_equal(got.estimated_mean, ref.estimated_mean)
        assert got.users == ref.users == counts.sum() and got.engine == engine
        assert got.true_mean == pytest.approx(ref.true_mean, rel=1e-12)
        assert got.true_variance == pytest.approx(ref.true_variance, rel=1e-12)
        assert got.theoretical_variance == pytest.approx(ref.theoretical_variance, rel=1e-12)
        np.testing.assert_array_equal(got.estimated_variance, ref.estimated_variance)  # the engine's own split
        variances[engine] = got.estimated_variance
    assert not np.array_equal(variances["fast"], variances["exact"])  # the fast split runs no client
    with pytest.raises(ldp.LDPError, match="two users"):
        simulate_histogram_mean("sr", 1.0, np.array([1, 0]), np.array([0.0, 1.0, 2.0]), engine="fast")
    with pytest.raises(ldp.LDPError, match="non-negative"):
        simulate_histogram_mean("sr", 1.0, np.array([5, -1]), np.array([0.0, 1.0, 2.0]), engine="fast")
    assert split_note("exact") == "every client simulated" and "hypergeometric" in split_note("fast")


def test_mean_values_of_a_column():
    s = pd.Series([1.0, 2.0, None, 4.0, 10.0], name="t")
    x, (lo, hi), clipped, dropped = mean_values(s)
    assert (lo, hi) == (1.0, 10.0) and clipped == 0 and dropped == 1 and x.tolist() == [1.0, 2.0, 4.0, 10.0]
    x, rng, clipped, _ = mean_values(s, (0.0, 5.0), clip=True)
    assert rng == (0.0, 5.0) and clipped == 1 and x.max() == 5.0
    with pytest.raises(ldp.LDPError, match="outside the range"):
        mean_values(s, (0.0, 5.0))
    with pytest.raises(ldp.LDPError, match="constant"):
        mean_values(pd.Series([3.0, 3.0], name="c"))
    with pytest.raises(ldp.LDPError, match="at least two"):
        mean_values(pd.Series([3.0, None], name="c"))


def test_bad_inputs():
    x = hours(100)
    with pytest.raises(ldp.LDPError, match="not a mean mechanism"):
        simulate_mean("oue", 1.0, x, (0.0, 24.0))
    with pytest.raises(ldp.LDPError, match="trials"):
        simulate_mean("sr", 1.0, x, (0.0, 24.0), trials=0)
    with pytest.raises(ldp.LDPError, match="unknown mechanism"):
        simulate_mean("nope", 1.0, x, (0.0, 24.0))


def test_the_mean_of_a_bucketized_population_and_the_better_mechanism():
    from ldp.studies.mean_variance import lower_variance_mechanism, simulate_histogram_mean

    edges = np.array([0.0, 10.0, 20.0])
    res = simulate_histogram_mean("pm", 2.0, np.array([300, 100]), edges, engine="fast", trials=3, seed=1)
    assert res.true_mean == pytest.approx((300 * 5 + 100 * 15) / 400) and res.value_range == (0.0, 20.0)
    assert res.estimated_mean.shape == (3,)
    with pytest.raises(ldp.LDPError, match="edges"):
        simulate_histogram_mean("pm", 1.0, np.array([1, 2]), np.array([0.0, 1.0]))
    assert lower_variance_mechanism(0.5).name == "sr" and lower_variance_mechanism(2.0).name == "pm"
    every = ("laplace", "sr", "pm", "hm")
    assert {lower_variance_mechanism(e, every).name for e in (2.0, 8.0)} == {"hm"}  # below ε* = 0.61 HM is SR


def test_the_lectures_two_bin_pitfall_exactly():
    """All 10,000 users hold 0.01; bins [−1, 0), [0, 1] with OUE at ε = 1: the histogram puts everyone in [0, 1],
    whose centre 0.5 is the expected estimate (bias 0.49, 49 times the truth), whatever n; its noise is
    0.5²·(Var[f̂_0] + Var[f̂_1]) with OUE's closed form (by hand below). SR is unbiased. Among 2…64 bins the RMSE
    is smallest at an interior k (bias falls, noise grows: no partition is optimal)."""
    table = binned_mean_pitfall(0.01, 1.0, 10_000).set_index("method")
    two = table.loc["OUE, 2 bins"]
    assert two["expected estimate"] == 0.5 and two["bias"] == pytest.approx(0.49, abs=1e-15)
    p, q = 0.5, 1 / (math.e + 1)
    var = 0.25 * (p * (1 - p) + q * (1 - q)) / (10_000 * (p - q) ** 2)  # one bin holds everyone, the other no one
    assert two["standard deviation"] == pytest.approx(math.sqrt(var), rel=1e-12)
    assert table.loc["OUE, 4 bins", "expected estimate"] == 0.25  # [0, 0.5)
    sr = table.loc["Stochastic Rounding (SR)"]
    scale = (math.e + 1) / (math.e - 1)
    assert sr["bias"] == 0.0 and sr["RMSE"] == pytest.approx(math.sqrt((scale ** 2 - 0.01 ** 2) / 10_000))
    binned = table.dropna(subset=["bins"])
    best = binned["RMSE"].idxmin()
    assert best not in (binned.index[0], binned.index[-1]) and sr["RMSE"] < binned["RMSE"].min()
    with pytest.raises(ldp.LDPError):
        binned_mean_pitfall(1.5)
