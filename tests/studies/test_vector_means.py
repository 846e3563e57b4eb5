"""The lecture's comparison of ways to spend one ε on d numbers, in closed form (ldp.studies.vector_means)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import ldp
from ldp.studies.vector_means import (
    collect_means,
    numeric_columns,
    simulated_variance,
    unit_vectors,
    variance_against_d,
)


def test_splitting_the_budget_grows_like_d_squared_sampling_like_d():
    """Split: Var_{ε/d} ≈ c·d²/ε² once ε/d is small (Laplace exactly 8d²/ε²); sampling one coordinate multiplies a
    fixed variance by d. So from d = 8 to 32 the split Laplace grows 16× and Harmony (SR, one coordinate) about 4×."""
    t = variance_against_d(1.0, [8, 32]).pivot(index="mechanism", columns="d", values="worst-case variance")
    assert t.loc["split-laplace", 32] / t.loc["split-laplace", 8] == pytest.approx(16.0)
    assert t.loc["harmony", 32] / t.loc["harmony", 8] == pytest.approx(4.0, rel=0.01)
    assert t.loc["split-sr", 32] / t.loc["split-sr", 8] > 10


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0])
def test_sampling_beats_splitting_for_several_coordinates(epsilon):
    """The lecture's (and Wang et al.'s) finding: for d ≥ 4 at moderate ε, reporting one coordinate with the whole
    budget beats splitting it over all d."""
    t = variance_against_d(epsilon, [4, 16]).pivot(index="mechanism", columns="d", values="worst-case variance")
    for d in (4, 16):
        assert t.loc["harmony", d] < t.loc["split-sr", d]
        assert t.loc["sample-pm", d] < t.loc["split-pm", d]
        assert t.loc["kd-pm", d] < t.loc["split-laplace", d]


def test_wang_k_of_d_helps_at_large_epsilon():
    """At ε = 10 and d = 16 Wang et al.'s k = 4 coordinates at ε/4 each beat one coordinate at ε (sample-pm)."""
    t = variance_against_d(10.0, [16]).set_index("mechanism")["worst-case variance"]
    assert t["kd-pm"] < t["sample-pm"]


def test_collect_means_maps_each_column_from_its_range_and_back():
    df = pd.DataFrame({"a": np.linspace(0, 10, 5_000), "b": np.linspace(-5, 5, 5_000)})
    res = collect_means("duchi", 4.0, df, ["a", "b"], seed=1)
    assert res.ranges == ((0.0, 10.0), (-5.0, 5.0))
    np.testing.assert_allclose(res.true_mean, [5.0, 0.0], atol=1e-12)
    assert np.all(np.abs(res.mean - res.true_mean) < 5 * res.standard_error)
    with pytest.raises(ldp.LDPError, match="at least one column"):
        collect_means("duchi", 1.0, df, [])


def test_simulated_against_d_matches_the_closed_form():
    """20 collections × d coordinates per point: the ratio simulated / closed form has a relative SD of about
    √(2/(20·d)) (32 % at d = 1, 4 % at d = 64); over all mechanisms and d its mean is within 0.1 of 1 and no point is
    off by more than 4 SD."""
    from ldp.studies.vector_means import simulated_against_d

    table = simulated_against_d(1.0, (1, 16, 64))
    ratio = table["simulated"] / table["closed form"]
    assert abs(ratio.mean() - 1) < 0.1
    assert np.all(np.abs(ratio - 1) < 4 * np.sqrt(2 / (20 * table["d"])))


def test_a_sample_tables_columns_are_the_users_vectors():
    """The weather sample's temp, dewp and humid: each mapped from its own range (min → −1, max → 1); the rows are the
    users, or n of them drawn with replacement (seeded); the check by simulation runs on those vectors (30 trials
    × 3 coordinates: the ratio's relative SD ≈ √(2/90) ≈ 0.15, so 0.55–1.45 is 3 SD)."""
    table = ldp.data.load_sample("weather")
    assert {"temp", "dewp", "humid"} <= set(numeric_columns(table)) and "origin" not in numeric_columns(table)
    x, ranges, notes = unit_vectors(table, ["temp", "dewp", "humid"])
    assert x.shape[1] == 3 and x.min(axis=0).tolist() == [-1.0] * 3 and x.max(axis=0).tolist() == [1.0] * 3
    assert ranges[0] == (float(table["temp"].min()), float(table["temp"].max())) and notes  # a few missing values
    res = collect_means("gaussian", 1.0, table, ["temp", "dewp", "humid"], users=4000, seed=2)
    assert res.users == 4000 and res.mechanism.name == "gaussian-vector" and "drawn with replacement" in res.notes[-1]
    assert res.to_dict()["delta"] == 1e-5
    assert collect_means("kd-pm", 1.0, table, ["temp"], users=4000, seed=2).mean.tolist() == collect_means(
        "kd-pm", 1.0, table, ["temp"], users=4000, seed=2).mean.tolist()
    check = simulated_variance("kd-pm", 1.0, 3, trials=30, values=x[:3000])
    assert check["users"] == 3000 and 0.55 < check["simulated"] / check["closed form"] < 1.45


def test_the_fast_draw_of_the_gaussians_sums_has_the_right_mean_and_variance():
    """fast=True draws each collection's sums of the Gaussian vector mechanism from its exact law N(Σx, nσ²) per
    coordinate (d numbers instead of n·d reports). Over T = 40 collections × d = 16 coordinates the errors e of the
    mean are iid N(0, σ²/n): n·mean(e²)/σ² is χ²₆₄₀/640, relative SD √(2/640) ≈ 0.056, so the ratio simulated /
    closed form lies within 4 SD (±0.22) of 1; and the mean error over the 640 (their sum's sd is σ√(640/n)) is
    checked through the sums themselves: |Σ e|/(σ√(640/n)) < 4. Mechanisms whose fast engine is not exact simulate
    every user as without fast: the same numbers."""
    fast = simulated_variance("gaussian-vector", 1.0, 16, users=2_000, trials=40, seed=5, fast=True)
    assert fast["users"] == 2_000 and fast["trials"] == 40
    assert abs(fast["simulated"] / fast["closed form"] - 1) < 4 * np.sqrt(2 / 640)
    mech = ldp.mechanisms.vector.vector_mechanism("gaussian-vector", 1.0, 16)
    x = np.random.default_rng(6).uniform(-1, 1, size=(2_000, 16))
    rng = np.random.default_rng(7)
    errors = np.array([mech.sample_aggregate(np.ones(2_000, dtype=np.int64), rng, x).counts / 2_000 - x.mean(axis=0)
                       for _ in range(40)])
    assert abs(errors.sum()) / (mech.sigma * np.sqrt(640 / 2_000)) < 4
    for name in ("kd-pm", "duchi", "split-laplace"):
        assert simulated_variance(name, 1.0, 4, users=500, trials=3, seed=2, fast=True) == simulated_variance(
            name, 1.0, 4, users=500, trials=3, seed=2)
