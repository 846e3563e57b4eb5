"""Metrics (ldp.evaluation.metrics): one registry for every kind. Frequency vectors (IBU paper §2.1) and
distributions of a numerical attribute in real units (square-wave paper §3), against hand-computed values,
numerical integration and theory."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ldp
from ldp.evaluation.histograms import DECILES, cdf_at, quantile_values
from ldp.evaluation.metrics import (
    DEFAULT_METRICS,
    METRICS,
    check_k,
    compute_metrics,
    get_metric,
    ks_distance,
    mean_error,
    metrics_over_trials,
    quantile_error,
    range_query_mae,
    top_k_indices,
    top_k_mse,
    variance_error,
    wasserstein,
)
from ldp.maths.simplex import norm_sub, to_distribution

FREQUENCY = list(DEFAULT_METRICS["frequency"])
NUMERICAL = list(DEFAULT_METRICS["numerical"])


# --------------------------------------------------------------------------- registry
def test_registry_and_defaults_per_kind():
    assert set(DEFAULT_METRICS) == set(ldp.KINDS)
    assert FREQUENCY == ["mse", "mae", "l1", "max_abs", "topk_mse"]
    assert NUMERICAL == ["wasserstein", "ks", "range_mae", "range_mae_0.4", "mean_error", "variance_error",
                         "quantile_error"]
    assert list(DEFAULT_METRICS["mean"]) == ["abs_error", "squared_error"]
    for kind, names in DEFAULT_METRICS.items():
        for name in names:
            metric = get_metric(name)
            assert kind in metric.kinds and metric.display_name and metric.description and metric.unit
    assert ldp.METRICS is METRICS and "range_mae_0.4" not in METRICS  # derived on demand
    derived = get_metric("range_mae_0.4")
    assert derived.parameters == {"alpha": 0.4} and derived.name == "range_mae_0.4"
    with pytest.raises(ldp.LDPError, match="unknown metric"):
        METRICS.get("nope")
    with pytest.raises(ldp.LDPError, match="α"):
        get_metric("range_mae_1.5")


# --------------------------------------------------------------------------- frequency vectors
def test_values():
    true = np.array([0.5, 0.3, 0.2, 0.0])
    est = np.array([0.4, 0.4, 0.2, -0.1])
    m = compute_metrics(true, est, FREQUENCY, k=2)
    assert m["mse"] == pytest.approx((0.01 + 0.01 + 0 + 0.01) / 4)
    assert m["mae"] == pytest.approx(0.3 / 4)
    assert m["l1"] == pytest.approx(0.3)
    assert m["max_abs"] == pytest.approx(0.1)
    assert m["topk_mse"] == pytest.approx(0.01)
    assert top_k_mse(true, est, k=2) == m["topk_mse"]
    np.testing.assert_array_equal(top_k_indices(np.array([0.1, 0.4, 0.1, 0.4]), 3), [1, 3, 0])  # ties by index


def test_mean_metrics():
    m = compute_metrics(np.array([0.25]), np.array([0.1]), DEFAULT_METRICS["mean"])
    assert m == pytest.approx({"abs_error": 0.15, "squared_error": 0.0225})


def test_errors():
    with pytest.raises(ldp.LDPError, match="shapes"):
        compute_metrics(np.zeros(3), np.zeros(4), ["mse"])
    with pytest.raises(ldp.LDPError, match="NaN"):
        compute_metrics(np.zeros(3), np.array([0.0, np.nan, 0.0]), ["mse"])
    with pytest.raises(ldp.LDPError, match="k must be"):
        top_k_indices(np.zeros(3), 5)
    # a k larger than the domain is an error, never silently capped
    with pytest.raises(ldp.LDPError, match="domain size 3"):
        top_k_mse(np.zeros(3), np.zeros(3), k=4)
    with pytest.raises(ldp.LDPError, match="domain size 3"):
        compute_metrics(np.zeros(3), np.zeros(3), ["topk_mse"], k=10)
    assert check_k(3, 3) == 3
    for bad in (0, 2.5, True):
        with pytest.raises(ldp.LDPError, match="k must be"):
            check_k(bad, 3)
    with pytest.raises(ldp.LDPError, match="unknown metric"):
        compute_metrics(np.zeros(3), np.zeros(3), ["nope"])


# --------------------------------------------------------------------------- Wasserstein and KS
def point_mass(d: int, i: int) -> np.ndarray:
    out = np.zeros(d)
    out[i] = 1.0
    return out


def _integral_of_cdf_gap(edges, p, q, points: int) -> float:
    x = np.linspace(edges[0], edges[-1], points)
    diff = np.abs(cdf_at(edges, p, x) - cdf_at(edges, q, x))
    return float(np.sum((diff[1:] + diff[:-1]) / 2) * (x[1] - x[0]))


def test_wasserstein_and_ks_by_hand():
    p = np.array([1.0, 0.0, 0.0])
    q = np.array([0.0, 0.0, 1.0])
    # uniform-within-bin masses on [0,1) and [2,3): W1 = 2 (shift by two bins)
    assert wasserstein(p, q, edges=np.array([0.0, 1, 2, 3])) == pytest.approx(2.0)
    assert wasserstein(p, q, edges=np.array([0.0, 10, 20, 30])) == pytest.approx(20.0)
    assert ks_distance(p, q) == pytest.approx(1.0)
    assert wasserstein(p, p) == 0.0 and ks_distance(p, p) == 0.0
    # neighbouring bins: W1 = 1 bin width (unit-width bins in the domain's order without edges)
    assert wasserstein(np.array([1.0, 0]), np.array([0.0, 1])) == pytest.approx(1.0)
    # a crossing inside a bin: F−G goes 0 → 0.5 → −0.5 → 0 on unit bins: 0.25 + 0.25 + 0.25
    assert wasserstein(np.array([0.5, 0.0, 0.5]), np.array([0.0, 1.0, 0.0])) == pytest.approx(0.75)


@pytest.mark.parametrize(("width", "i", "j"), [(1.0, 1, 3), (2.5, 0, 4), (0.5, 2, 2)])
def test_wasserstein_of_point_masses_is_the_distance_between_bin_centres(width, i, j):
    # Uniform on bin i vs uniform on bin j (same width): one is the other shifted, W1 = the shift.
    edges = np.arange(6) * width
    assert wasserstein(point_mass(5, i), point_mass(5, j), edges) == pytest.approx(abs(i - j) * width)


def test_wasserstein_uniform_on_one_vs_two():
    # U[0,1] vs U[0,2]: ∫0^1 (x − x/2) dx + ∫1^2 (1 − x/2) dx = 1/4 + 1/4.
    assert wasserstein([1, 0], [0.5, 0.5], [0, 1, 2]) == pytest.approx(0.5)


def test_wasserstein_when_the_cdfs_cross_inside_a_bin():
    # D = F_p − F_q at the edges: 0, 0.6, −0.4, 0. Bin 0: 0.6/2; bin 1 crosses zero: (0.36 + 0.16) / 2;
    # bin 2: 0.4/2. Total 0.3 + 0.26 + 0.2.
    edges, p, q = [0, 1, 2, 3], [0.6, 0, 0.4], [0, 1, 0]
    assert wasserstein(p, q, edges) == pytest.approx(0.76)
    # Cross-check by numerical integration of |F_p − F_q| on a fine grid.
    assert wasserstein(p, q, edges) == pytest.approx(_integral_of_cdf_gap(edges, p, q, 300_001), abs=1e-9)


def test_wasserstein_is_a_symmetric_distance_with_unequal_widths():
    rng = np.random.default_rng(3)
    edges = np.concatenate([[0.0], np.cumsum(rng.uniform(0.1, 2.0, 20))])
    p, q = rng.dirichlet(np.ones(20)), rng.dirichlet(np.ones(20))
    assert wasserstein(p, p, edges) == pytest.approx(0.0, abs=1e-15)
    assert wasserstein(p, q, edges) == pytest.approx(wasserstein(q, p, edges))
    assert wasserstein(p, q, edges) == pytest.approx(_integral_of_cdf_gap(edges, p, q, 400_001), rel=1e-6)


def test_ks_distance():
    edges = np.linspace(0, 10, 11)
    p = np.full(10, 0.1)
    assert ks_distance(p, p, edges) == 0.0
    assert ks_distance(point_mass(10, 0), point_mass(10, 1), edges) == pytest.approx(1.0)
    assert ks_distance([1, 0], [0.5, 0.5], [0, 1, 2]) == pytest.approx(0.5)  # at x = 1


# --------------------------------------------------------------------------- mean, variance, quantiles, ranges
def test_mean_and_variance_errors():
    # Point masses in [0,1) and [1,2): means 0.5 and 1.5.
    assert mean_error(np.array([1.0, 0]), np.array([0.0, 1]), [0, 1, 2]) == pytest.approx(1.0)
    # U[0,1] has variance 1/12, U[0,2] has 4/12.
    assert variance_error(np.array([1.0, 0]), np.array([0.5, 0.5]), [0, 1, 2]) == pytest.approx(0.25)


def test_quantile_error():
    edges = np.linspace(0, 10, 11)
    uniform = np.full(10, 0.1)
    shifted = np.concatenate([[0.0], np.full(9, 1 / 9)])  # uniform on [1, 10]
    per_decile = np.abs(quantile_values(edges, uniform) - quantile_values(edges, shifted))
    # Q_p(β) = 10β, Q_q(β) = 1 + 9β → |1 − β|; the metric is their mean over the deciles
    np.testing.assert_allclose(per_decile, 1 - np.array(DECILES), atol=1e-9)
    assert quantile_error(uniform, shifted, edges) == pytest.approx(np.mean(1 - np.array(DECILES)))
    assert quantile_error(uniform, shifted, edges, quantiles=[0.5]) == pytest.approx(0.5)


def test_range_query_mae():
    edges = np.linspace(0, 20, 11)
    uniform = np.full(10, 0.1)
    rng = np.random.default_rng(0)
    assert range_query_mae(uniform, uniform, edges, 0.1, rng, 100) == 0.0
    # Full-width ranges hold everyone in both histograms.
    assert range_query_mae(np.array([1.0, 0]), np.array([0.0, 1]), [0, 1, 2], 1.0, rng, 50) == pytest.approx(0.0)
    # α = 1/2 on [0, 2]: the range [i, i + 1] holds 1 − i of p (all in [0,1)) and i of q, so the error
    # |1 − 2i| with i ~ U[0, 1] is uniform on [0, 1]: mean 1/2, variance 1/12.
    queries = 20_000
    mae = range_query_mae(np.array([1.0, 0]), np.array([0.0, 1]), [0, 1, 2], 0.5, np.random.default_rng(1), queries)
    assert abs(mae - 0.5) < 5 * math.sqrt(1 / 12 / queries)
    # the registered range_mae is α = 0.1, range_mae_<α> any other width, with the same random left ends
    p, q = np.array([1.0, 0]), np.array([0.0, 1])
    assert get_metric("range_mae_0.5")(p, q, edges=[0, 1, 2], rng=np.random.default_rng(1), queries=queries) == mae
    assert get_metric("range_mae")(p, q, edges=[0, 1, 2], rng=np.random.default_rng(2)) == pytest.approx(
        range_query_mae(p, q, [0, 1, 2], 0.1, np.random.default_rng(2)))


def test_unnormalized_estimates_are_projected_with_norm_sub_when_asked():
    """``project=True`` scores the Norm-Sub projection of an estimate that is not a distribution (what the old
    lab distances always did); by default the raw estimate is scored. Quantiles always need a distribution."""
    edges = np.linspace(0, 4, 5)
    truth = np.array([0.1, 0.4, 0.4, 0.1])
    raw = np.array([0.3, 0.5, 0.4, -0.3])  # sums to 0.9, one negative entry
    proj = norm_sub(raw)
    assert np.all(proj >= 0) and proj.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(to_distribution(raw), proj)
    np.testing.assert_array_equal(to_distribution(truth), truth)  # valid distributions are left alone
    projected = compute_metrics(truth, raw, NUMERICAL, edges=edges, project=True, rng=lambda: np.random.default_rng(5))
    of_proj = compute_metrics(truth, proj, NUMERICAL, edges=edges, rng=lambda: np.random.default_rng(5))
    assert projected == of_proj
    unprojected = compute_metrics(truth, raw, NUMERICAL, edges=edges, rng=lambda: np.random.default_rng(5))
    assert unprojected["wasserstein"] != pytest.approx(projected["wasserstein"])
    assert unprojected["quantile_error"] == projected["quantile_error"]  # always projected
    assert wasserstein(truth, raw, edges, project=True) == projected["wasserstein"]


@pytest.mark.parametrize(("call", "message"), [
    (lambda: wasserstein([0.5, 0.5], [0.5, 0.5], [0, 1]), "needs 3 edges"),
    (lambda: ks_distance([0.5, 0.5], [0.5, 0.5], [0, 2, 1]), "strictly increasing"),
    (lambda: range_query_mae([1, 0], [0, 1], [0, 1, 2], 0.0, np.random.default_rng(0)), "α"),
    (lambda: range_query_mae([1, 0], [0, 1], [0, 1, 2], 0.5, np.random.default_rng(0), queries=0), "queries"),
    (lambda: quantile_error([1, 0], [0, 1], [0, 1, 2], [0.5, 1.0]), "between 0 and 1"),
    (lambda: compute_metrics([1, 0], [0.2, 0.3, 0.5], ["mean_error"], edges=[0, 1, 2]), "different shapes"),
    (lambda: mean_error([1, 0], [0.2, 0.3, 0.5], [0, 1, 2]), "different shapes"),
    (lambda: wasserstein([1, 0], [0.2, 0.3, 0.5]), "different shapes"),
])
def test_numerical_validation(call, message):
    with pytest.raises(ldp.LDPError, match=message):
        call()


def test_compute_metrics_draws_the_same_ranges_for_every_metric():
    """A generator factory in the context gives each metric a fresh generator: range_mae and range_mae_0.4 see
    ranges from the same stream, as simulate does for every trial and estimator."""
    edges = np.linspace(0, 24, 25)
    truth = np.full(24, 1 / 24)
    est = truth + np.random.default_rng(2).normal(0, 0.005, 24)
    out = compute_metrics(truth, est, NUMERICAL, edges=edges, project=True, rng=lambda: np.random.default_rng(9))
    assert set(out) == set(NUMERICAL) and all(np.isfinite(v) and v >= 0 for v in out.values())
    again = compute_metrics(truth, est, ["range_mae"], edges=edges, project=True, rng=lambda: np.random.default_rng(9))
    assert again["range_mae"] == out["range_mae"]
    assert out["wasserstein"] == pytest.approx(wasserstein(truth, est, edges, project=True))


def test_metrics_over_trials_is_compute_metrics_per_row():
    edges = np.linspace(0, 24, 25)
    truth = np.full(24, 1 / 24)
    est = truth + np.random.default_rng(2).normal(0, 0.005, (4, 24))
    per = metrics_over_trials(truth, est, NUMERICAL, edges=edges, project=True, queries=200,
                              rng=lambda: np.random.default_rng(0))
    assert set(per) == set(NUMERICAL) and all(v.shape == (4,) for v in per.values())
    for t, row in enumerate(est):
        one = compute_metrics(truth, row, NUMERICAL, edges=edges, project=True, queries=200,
                              rng=lambda: np.random.default_rng(0))
        assert {m: float(v[t]) for m, v in per.items()} == one
    single = metrics_over_trials(truth, est[0], ["wasserstein"], edges=edges)
    assert single["wasserstein"].shape == (1,)


def test_range_queries_over_trials_are_one_call_per_row():
    """metrics_over_trials scores the range queries of all rows at once (the ranges and the truth's answers
    drawn once): the values of one call per row, with a generator factory, None, or Norm-Sub projection; a shared
    generator (consumed row after row) keeps the row-by-row calls."""
    from ldp.evaluation.metrics import metrics_over_trials, range_query_mae_rows

    rng = np.random.default_rng(3)
    edges = np.sort(rng.uniform(0.0, 10.0, 17))
    truth = rng.dirichlet(np.ones(16))
    rows = rng.dirichlet(np.ones(16), size=4)
    rows[1, 2] = -0.05  # not a distribution: projected when asked
    metric = get_metric("range_mae_0.3")
    assert metric.rows is range_query_mae_rows and get_metric("range_mae").rows is range_query_mae_rows
    for project in (False, True):
        for factory in (lambda: np.random.default_rng(8), None):
            got = metrics_over_trials(truth, rows, ["range_mae_0.3", "ks"], edges=edges, project=project,
                                      rng=factory)
            want = [metric(truth, row, edges=edges, project=project,
                           rng=factory() if factory else None) for row in rows]
            np.testing.assert_array_equal(got["range_mae_0.3"], want)
    shared, replay = np.random.default_rng(8), np.random.default_rng(8)
    got = metrics_over_trials(truth, rows, ["range_mae_0.3"], edges=edges, rng=shared)["range_mae_0.3"]
    np.testing.assert_array_equal(got, [metric(truth, row, edges=edges, rng=replay) for row in rows])
    assert len(set(got)) == len(got)  # each row its own ranges there
    with pytest.raises(ldp.LDPError, match="different shapes"):
        metric.over_rows(truth, rows[:, :-1], edges=edges)
    bad = rows.copy()
    bad[2, 0] = np.nan  # a later row: the rows form checks every row, not only the first it projects
    with pytest.raises(ldp.LDPError, match="finite rows"):
        range_query_mae_rows(truth, bad, edges=edges)
    with pytest.raises(ldp.LDPError, match="NaN"):
        metric.over_rows(truth, np.vstack([rows, np.full(16, np.nan)]), edges=edges)
    with pytest.raises(ldp.LDPError, match="fraction"):
        metric.over_rows(truth, rows, edges=edges, alpha=1.5)


@pytest.mark.parametrize("project", [False, True])
def test_histogram_metrics_over_trials_are_one_call_per_row(project):
    """The histogram metrics' rows forms (the edges checked and the truth projected once): the values of one call
    per row, with and without the Norm-Sub projection (the deciles always project)."""
    from ldp.evaluation.metrics import metrics_over_trials

    rng = np.random.default_rng(6)
    edges = np.sort(rng.uniform(-2.0, 9.0, 13))
    truth = rng.dirichlet(np.ones(12))
    rows = rng.dirichlet(np.ones(12), size=5)
    rows[0, 3], rows[2] = -0.08, rows[2] * 1.1  # not distributions
    names = ["wasserstein", "ks", "mean_error", "variance_error", "quantile_error"]
    assert all(get_metric(n).rows is not None for n in names)
    got = metrics_over_trials(truth, rows, names, edges=edges, project=project)
    for name in names:
        want = [get_metric(name)(truth, row, edges=edges, project=project) for row in rows]
        np.testing.assert_array_equal(got[name], want)
    assert got["wasserstein"][0] != metrics_over_trials(truth, rows, ["wasserstein"], edges=edges,
                                                        project=not project)["wasserstein"][0]


@pytest.mark.parametrize("d", [1, 7, 8, 10, 104, 1000])
def test_the_elementwise_errors_over_trials_are_one_call_per_row_bit_for_bit(d):
    """simulate scores every trial of an estimator at once (issue 21 item 7): MSE, MAE, L1, max and top-k MSE over
    rows give exactly one call's value per row — also for a stack in Fortran order and for Post-Pos's clipping
    (a top-k stack indexed by value comes out in Fortran order; reduced that way its sums round differently)."""
    rng = np.random.default_rng(d)
    truth = rng.dirichlet(np.ones(d))
    rows = truth + rng.normal(0.0, 0.01, (6, d)) * rng.uniform(0.1, 10.0, (6, 1))
    for block in (rows, np.asfortranarray(rows)):
        for name, context in (("mse", {}), ("mae", {}), ("l1", {}), ("max_abs", {}),
                              ("topk_mse", {"k": min(10, d)}), ("topk_mse", {"k": d, "clip": True})):
            metric = get_metric(name)
            assert metric.rows is not None
            want = [metric(truth, row, **context) for row in block]
            np.testing.assert_array_equal(metric.over_rows(truth, block, **context), want)
            np.testing.assert_array_equal(metrics_over_trials(truth, block, [name], **context)[name], want)
    with pytest.raises(ldp.LDPError, match="NaN"):
        get_metric("mse").over_rows(truth, np.vstack([rows, np.full(d, np.nan)]))
