"""ldp.simulate and ldp.sweep: shapes, seeded determinism, shared collections across estimators, immutable
results; numerical mechanisms scored in real units (square-wave paper §3 metrics), with SW-EMS far better than
the uninformed uniform estimate; sweep configurations keyed by what they are."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

import ldp
from ldp.data import ValueScale
from ldp.evaluation.metrics import DEFAULT_METRICS, compute_metrics, get_metric
from ldp.studies import comparison

D = 64
EDGES = ValueScale(0.0, 24.0).edges(D)  # hours
SUMMARY = {"wasserstein", "ks", "range_mae", "range_mae_0.4", "mean_error", "variance_error", "quantile_error"}


def population(n: int = 50_000, seed: int = 3) -> np.ndarray:
    x = np.clip(np.random.default_rng(seed).normal(0.4, 0.12, n), 0, 1)
    return np.bincount(np.minimum((x * D).astype(int), D - 1), minlength=D)


COUNTS = population()


# =========================================================================== numerical mechanisms
def test_shapes_and_summary_keys():
    sw = ldp.get_mechanism("sw", 1.0, D)
    res = ldp.simulate(sw, COUNTS, edges=EDGES, trials=3, seed=1)
    assert isinstance(res, ldp.SimulationResult)
    assert list(res.estimates) == ["ems"]  # the mechanism's default
    assert res.estimates["ems"].shape == (3, D) and res.trials == 3 and res.n == COUNTS.sum()
    assert set(DEFAULT_METRICS["numerical"]) == SUMMARY
    assert all(v.shape == (3,) for v in res.metrics["ems"].values())
    summary = res.summary()["ems"]
    assert set(summary) == SUMMARY
    assert all(np.isfinite(v) and v >= 0 for v in summary.values())
    assert summary["wasserstein"] == pytest.approx(np.mean(res.metrics["ems"]["wasserstein"]))
    first = res.to_dict()["trials"][0]["metrics"]["ems"]
    assert set(first) == SUMMARY and first["ks"] == res.metrics["ems"]["ks"][0]
    assert len(comparison.numerical_summary(res.metrics["ems"], "hours")) == 7
    np.testing.assert_allclose(res.estimates["ems"].sum(axis=1), 1.0, atol=1e-9)
    np.testing.assert_array_equal(res.true_values, COUNTS / COUNTS.sum())
    assert res.theoretical_variance is None  # EMS has no closed-form variance
    # EM-type estimators report their iterations
    assert res.converged["ems"].shape == (3,) and np.all(res.iterations["ems"] > 0)
    assert res.diagnostics()["ems"]["trials"] == 3


def test_same_seed_same_result_and_different_seed_differs():
    sw = ldp.get_mechanism("sw", 1.0, D)
    a = ldp.simulate(sw, COUNTS, edges=EDGES, trials=2, seed=7)
    b = ldp.simulate(sw, COUNTS, edges=EDGES, trials=2, seed=7)
    c = ldp.simulate(sw, COUNTS, edges=EDGES, trials=2, seed=8)
    np.testing.assert_array_equal(a.estimates["ems"], b.estimates["ems"])
    assert a.summary() == b.summary()
    assert not np.array_equal(a.estimates["ems"], c.estimates["ems"])
    assert not np.array_equal(a.estimates["ems"][0], a.estimates["ems"][1])  # fresh randomness per trial


def test_exact_engine_runs_and_agrees_in_scale():
    sw = ldp.get_mechanism("sw", 2.0, D)
    small = population(5_000, seed=4)
    exact = ldp.simulate(sw, small, edges=EDGES, engine="exact", trials=2, seed=0).summary()["ems"]
    fast = ldp.simulate(sw, small, edges=EDGES, engine="fast", trials=2, seed=0).summary()["ems"]
    # same distribution of results: KS within a factor 3 of each other (noise of two trials)
    assert exact["ks"] < 3 * fast["ks"] + 0.02 and fast["ks"] < 3 * exact["ks"] + 0.02


@pytest.mark.parametrize("name", ["sw", "sw-discrete"])
def test_every_reconstruction_beats_uniform_by_a_wide_margin(name):
    mech = ldp.get_mechanism(name, 1.0, D)
    truth = COUNTS / COUNTS.sum()
    uniform = compute_metrics(truth, np.full(D, 1.0 / D), ["wasserstein", "ks", "range_mae"], edges=EDGES,
                              project=True, rng=np.random.default_rng(0))
    result = ldp.simulate(mech, COUNTS, edges=EDGES, estimators=list(mech.reconstructions), trials=2, seed=0)
    for rec in mech.reconstructions:
        s = result.summary()[rec]
        # the uniform estimate misses a N(0.4, 0.12) population by W1 ≈ 4 h; SW-EMS at ε = 1, n = 50k is within
        # a fraction of an hour (§6: W1 ≈ 0.01 of the domain), over 10 times better; the discrete variant and
        # unsmoothed EM (which overfits the noise, §5.5) get a looser bound
        assert s["wasserstein"] < uniform["wasserstein"] / (10 if (name, rec) == ("sw", "ems") else 5)
        assert s["ks"] < uniform["ks"] / 5
        assert s["range_mae"] < uniform["range_mae"] / 5


def test_reconstructions_share_the_collections():
    sw = ldp.get_mechanism("sw", 1.0, D)
    both = ldp.simulate(sw, COUNTS, edges=EDGES, estimators=["ems", "em"], trials=2, seed=5)
    em = ldp.simulate(sw, COUNTS, edges=EDGES, estimators=["em"], trials=2, seed=5)
    np.testing.assert_array_equal(both.estimates["em"], em.estimates["em"])
    # trial 0 is the mechanism's fast-engine aggregate drawn from the seed's generator, then reconstructed
    agg = ldp.run_fast(sw, COUNTS, np.random.default_rng(5))
    np.testing.assert_allclose(em.estimates["em"][0], sw.reconstruct(agg, method="em").values)
    np.testing.assert_array_equal(agg.counts, sw.sample_histogram(COUNTS, np.random.default_rng(5)))


def test_bad_inputs_raise_value_error():
    sw = ldp.get_mechanism("sw", 1.0, D)
    with pytest.raises(ldp.LDPError, match="does not apply"):
        ldp.simulate(sw, COUNTS, edges=EDGES, estimators=["mi"])
    with pytest.raises(ldp.LDPError, match="edges"):
        ldp.simulate(sw, COUNTS, edges=EDGES[:-1])
    with pytest.raises(ldp.LDPError, match="length"):
        ldp.simulate(sw, COUNTS[:-1], edges=EDGES)
    with pytest.raises(ldp.LDPError, match="trials"):
        ldp.simulate(sw, COUNTS, edges=EDGES, trials=0)
    with pytest.raises(ldp.LDPError, match="α"):
        ldp.simulate(sw, COUNTS, edges=EDGES, metrics=["range_mae_1.5"])
    with pytest.raises(ldp.LDPError, match="engine"):
        ldp.simulate(sw, COUNTS, edges=EDGES, engine="slow")


def test_comparison_table_has_one_column_per_method_and_units():
    from ldp.viz.distributions import comparison_table, method_label

    sw = ldp.get_mechanism("sw", 1.0, D)
    res = ldp.simulate(sw, COUNTS, edges=EDGES, estimators=["ems", "em"], trials=1, seed=0)
    per = {method_label(sw.display_name, rec): res.metrics[rec] for rec in ("ems", "em")}
    table = comparison_table(per, "hours")
    assert list(table.columns) == ["metric", "unit", "Square Wave (SW) · EMS", "Square Wave (SW) · EM"]
    assert len(table) == 7 and table.loc[0, "unit"] == "hours"
    units = dict(zip(table["metric"], table["unit"], strict=True))
    assert units[get_metric("variance_error").title] == "hours²"
    assert units[get_metric("range_mae").title] == "fraction of users"
    assert table.loc[0, "Square Wave (SW) · EM"] == pytest.approx(res.metrics["em"]["wasserstein"][0])


# =========================================================================== every kind, one result type
def test_results_are_immutable():
    mech = ldp.get_mechanism("oue", 1.0, 8)
    res = ldp.simulate(mech, np.full(8, 100), estimators=["mi", "ibu"], trials=2, seed=0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.engine = "exact"  # type: ignore[misc]
    assert res.warnings == () or all(isinstance(w, str) for w in res.warnings)
    assert res.theoretical_variance == pytest.approx(float(np.mean(mech.variance(np.full(8, 1 / 8), 800))))
    out = res.to_dict()
    assert out["kind"] == "frequency" and out["users"] == 800 and set(out["summary"]) == {"mi", "ibu"}
    # the metrics, and Γ over the IBU paper's baseline (MI clipped and renormalised) for the MSE and the MAE
    assert set(out["summary"]["mi"]) == set(DEFAULT_METRICS["frequency"]) | {"gain", "gain_mae"}


def test_unconverged_estimators_warn():
    mech = ldp.get_mechanism("grr", 0.5, 32)
    plain = ldp.get_estimator("ibu", max_iter=2, method="em")
    res = ldp.simulate(mech, np.arange(1, 33) * 20, estimators=[plain], trials=3, seed=1)
    assert not res.converged["ibu"].any() and np.all(res.iterations["ibu"] == 2)
    assert res.warnings == ("ibu did not converge in 3 of 3 trial(s); the last iterate is used",)


def test_mean_mechanisms_simulate_their_mean():
    mech = ldp.get_mechanism("sr", 1.0)
    support = np.array([-0.5, 0.0, 0.75])
    counts = np.array([1000, 2000, 3000])
    res = ldp.simulate(mech, counts, support=support, trials=4, seed=2)
    assert list(res.estimates) == ["average"] and res.estimates["average"].shape == (4, 1)
    assert set(res.metrics["average"]) == set(DEFAULT_METRICS["mean"])
    np.testing.assert_allclose(res.true_values, [(counts @ support) / counts.sum()])
    assert res.theoretical_variance == pytest.approx(float(counts @ mech.variance(support)) / counts.sum() ** 2)
    with pytest.raises(ldp.LDPError, match="support"):
        ldp.simulate(mech, counts)


# =========================================================================== sweeps
def _uniform_population(d, n, rng):
    return rng.multinomial(n, np.full(d, 1 / d))


def test_sweep_is_tidy_and_reproducible():
    kwargs = dict(mechanisms=["grr", "l-oue"], epsilons=[0.5, 2.0], users=[1000], domain_sizes=[8, 16],
                  estimators=["mi", "norm-sub"], trials=2, seed=3, epsilon_1=0.25)
    table = ldp.sweep(_uniform_population, **kwargs)
    assert len(table) == 2 * 2 * 1 * 2 * 2 * 2 * 5
    assert list(table.columns) == list(ldp.simulation.SWEEP_COLUMNS)
    again = ldp.sweep(_uniform_population, **kwargs)
    np.testing.assert_array_equal(table["value"].to_numpy(), again["value"].to_numpy())


def test_adding_a_configuration_never_changes_another():
    """Each configuration draws from a stream named by what it is (configuration_key), not by its position in
    the grid: the ε = 1 rows are the same whether or not ε = 0.5 is swept too (this was a bug before)."""
    kwargs = dict(mechanisms=["oue", "grr"], users=[2000], domain_sizes=[16], estimators=["mi", "ibu"], trials=2,
                  seed=11)
    alone = ldp.sweep(_uniform_population, epsilons=[1], **kwargs)
    more = ldp.sweep(_uniform_population, epsilons=[0.5, 1], **kwargs)
    rows = more[more["epsilon"] == 1].reset_index(drop=True)
    assert len(rows) == len(alone) > 0
    np.testing.assert_array_equal(rows["value"].to_numpy(), alone["value"].to_numpy())
    assert rows[["mechanism", "estimator", "metric", "trial"]].equals(alone[["mechanism", "estimator", "metric",
                                                                             "trial"]])
    # and a different ε is a different stream
    other = more[more["epsilon"] == 0.5]["value"].to_numpy()
    assert not np.array_equal(other, alone["value"].to_numpy())
    # the key is what the configuration is: 1 and 1.0 are the same ε
    assert ldp.simulation.configuration_key("oue", 1, 10, 4, {}) == ldp.simulation.configuration_key(
        "oue", 1.0, 10, 4, {})


def test_configuration_key_is_stable():
    """Formerly ``configuration_seed``: a configuration's stream is named by what it is."""
    key = ldp.simulation.configuration_key
    assert key("grr", 1.0, 100, 10, {}) == key("grr", 1.0, 100, 10, {})
    assert key("grr", 1.0, 100, 10, {}) != key("oue", 1.0, 100, 10, {})
    assert key("olh", 1.0, 100, 10, {"g": 3}) != key("olh", 1.0, 100, 10, {"g": 4})
    assert key("olh", 1.0, 100, 10, {"g": 3, "prime": 11}) == key("olh", 1.0, 100, 10, {"prime": 11, "g": 3})

    def run(seed):
        return ldp.simulation.simulate_configuration("grr", 1.0, 500, 8, _uniform_population, seed=seed, trials=2)

    a, b = run(1), run(1)
    np.testing.assert_array_equal(a.true_counts, b.true_counts)
    np.testing.assert_array_equal(a.estimates["mi"], b.estimates["mi"])
    assert not np.array_equal(a.estimates["mi"], run(2).estimates["mi"])


def test_sweep_rows_stream_with_progress():
    seen = []
    rows = list(ldp.simulation.sweep_rows(_uniform_population, mechanisms=["grr"], epsilons=[1.0, 2.0], users=[500],
                                          domain_sizes=[4], progress=lambda i, total: seen.append((i, total))))
    assert seen == [(1, 2), (2, 2)]
    assert len(rows) == 2 * len(DEFAULT_METRICS["frequency"])
    with pytest.raises(ldp.LDPError, match="empty"):
        ldp.sweep(_uniform_population, mechanisms=[], epsilons=[1.0], users=[10], domain_sizes=[4])


def test_sweep_tables_are_identical_on_every_executor(monkeypatch):
    """Issue 9: the same seed gives the same table serially, on a local process pool and on a (in-process) Dask
    cluster — each configuration seeds itself from what it is, and run_ordered yields in grid order."""
    import functools

    from ldp.core import executors
    from ldp.data.synthetic import true_distribution
    from ldp.simulation import SweepPopulation, sweep

    monkeypatch.setattr(ldp.simulation, "run_ordered", functools.partial(executors.run_ordered, serial_below=0.0))
    population = SweepPopulation({d: true_distribution(f"zipf:d={d},s=1.1") for d in (16, 32)})
    grid = {"mechanisms": ["grr", "oue", "olh"], "epsilons": [0.5, 1.0, 2.0], "users": [5000], "domain_sizes": [16, 32],
            "estimators": ["mi", "norm-sub"], "trials": 2, "seed": 7}
    serial = sweep(population, **grid)
    pooled = sweep(population, executor="processes", workers=2, **grid)
    pd.testing.assert_frame_equal(serial, pooled)
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None) as cl:
        on_dask = sweep(population, executor="dask", address=cl.scheduler_address, **grid)
    pd.testing.assert_frame_equal(serial, on_dask)
    # configurations × estimators × trials × metrics
    assert len(serial) == 18 * 2 * 2 * len(DEFAULT_METRICS["frequency"])


def test_a_sweep_configuration_draws_the_one_population():
    """A sweep's configuration draws its users with ``draw_population`` from the one population stream of the seed
    (not a stream keyed by the configuration): the same users as a page or the CLI with that seed and n."""
    from ldp.data.domain import draw_population
    from ldp.simulation import SweepPopulation, simulate_configuration

    weights = np.array([5.0, 3.0, 1.0, 1.0])
    seen = {}

    def population(d, n, rng):
        seen["counts"] = SweepPopulation({4: weights})(d, n, rng)
        return seen["counts"]

    simulate_configuration("grr", 1.0, 1_000, 4, population, seed=11, estimators=["mi"], trials=1)
    np.testing.assert_array_equal(seen["counts"], draw_population(weights, 1_000, 11))


def test_the_sweep_driver_serves_mean_mechanisms():
    """One driver for every kind: a mean mechanism's population is counts and the cells' values (SweepPopulation's
    ``support``); the table has the one layout, with the closed forms of the mean's error."""
    from ldp.simulation import SWEEP_COLUMNS, SweepPopulation, sweep

    population = SweepPopulation({1: np.array([3.0, 1.0, 2.0])}, support={1: np.array([-0.5, 0.0, 0.9])})
    kwargs = dict(mechanisms=["pm", "laplace"], epsilons=[0.5, 2.0], users=[4000], domain_sizes=[1], estimators=[],
                  trials=3, seed=1)
    table = sweep(population, **kwargs)
    assert list(table.columns) == list(SWEEP_COLUMNS)
    assert len(table) == 2 * 2 * 3 * len(DEFAULT_METRICS["mean"]) and set(table["estimator"]) == {"average"}
    squared = table[table["metric"] == "squared_error"]
    np.testing.assert_allclose(squared["closed_form"], squared["theoretical_variance"])
    pd.testing.assert_frame_equal(table, sweep(population, **kwargs))
    # the same users as ldp.simulate on the one population stream, the collections on the configuration's stream
    from ldp.core.streams import rng_for
    from ldp.data.domain import draw_population

    counts = draw_population(np.array([3.0, 1.0, 2.0]), 4000, 1)
    key = ldp.simulation.configuration_key("pm", 0.5, 4000, 1, {})
    res = ldp.simulate(ldp.get_mechanism("pm", 0.5, 1), counts, support=[-0.5, 0.0, 0.9], trials=3,
                       seed=rng_for(1, "sweep", "collection", *key))
    mine = table[(table["mechanism"] == "pm") & (table["epsilon"] == 0.5) & (table["metric"] == "abs_error")]
    np.testing.assert_array_equal(mine["value"].to_numpy(), res.metrics["average"]["abs_error"])


def test_sweep_estimators_per_mechanism_and_applicable_only():
    """``estimators`` may name each mechanism's own; ``applicable_only`` leaves out those that do not apply."""
    table = ldp.sweep(_uniform_population, mechanisms=["grr", "oue"], epsilons=[1.0], users=[500], domain_sizes=[4],
                      estimators={"grr": ["norm-sub"], "oue": []}, metrics=["mse"], seed=0)
    assert list(zip(table["mechanism"], table["estimator"], strict=True)) == [("grr", "norm-sub"), ("oue", "mi")]
    assert table["closed_form"].isna().tolist() == [True, False]  # the closed form is the mechanism's own estimate's
    kept = ldp.sweep(_uniform_population, mechanisms=["grr"], epsilons=[1.0], users=[500], domain_sizes=[4],
                     estimators=["mi", "ems"], applicable_only=True, metrics=["mse"], seed=0)
    assert list(kept["estimator"]) == ["mi"]


@pytest.mark.parametrize(("name", "d", "estimator"), [("sw", 24, "ems"), ("hh", 16, "hh-admm"), ("oue", 8, "ibu")])
@pytest.mark.parametrize("engine", ["fast", "exact"])
def test_simulate_estimates_are_simulates_estimates(name, d, estimator, engine):
    """The estimates alone, batched (EM/EMS iterate every collection together; HH has no batched form and runs
    one reconstruction per collection): simulate's numbers for the same seed, bit for bit."""
    from ldp.simulation import simulate_estimates

    mech = ldp.get_mechanism(name, 1.0, d)
    counts = np.random.default_rng(4).multinomial(3000, np.full(d, 1 / d))
    want = ldp.simulate(mech, counts, estimators=[estimator], engine=engine, trials=3, seed=8).estimates[estimator]
    got = simulate_estimates(mech, counts, estimator, engine=engine, trials=3, seed=8)
    np.testing.assert_array_equal(got, want)
    with pytest.raises(ldp.LDPError, match="trials"):
        simulate_estimates(mech, counts, estimator, trials=0)


def test_reconstruct_batch_is_reconstruct_row_by_row():
    sw = ldp.get_mechanism("sw", 1.0, 16)
    rng = np.random.default_rng(1)
    rows = np.stack([sw.sample_aggregate(rng.multinomial(500, np.full(16, 1 / 16)), rng).counts for _ in range(3)])
    for method in ("ems", "em"):
        np.testing.assert_array_equal(sw.reconstruct_batch(rows, 500, method=method, tol=1e-2),
                                      np.stack([sw.reconstruct(r, 500, method=method, tol=1e-2).values for r in rows]))
    with pytest.raises(ldp.LDPError, match="reconstructions"):
        sw.reconstruct_batch(rows, 500, method="haar")
    with pytest.raises(ldp.LDPError, match="entries"):
        sw.reconstruct_batch(rows[:, :-1], 500)


def test_simulate_estimates_many_is_simulate_estimates_per_mechanism():
    """A sweep of b estimated as one EMS batch (each collection through its own mechanism's channel): each
    mechanism's block is simulate_estimates' for its seed, bit for bit; EM's τ depends on ε, so a sweep of ε under
    EM falls back to one batch per mechanism — the same numbers too."""
    from ldp.simulation import simulate_estimates, simulate_estimates_many

    counts = np.random.default_rng(4).multinomial(4000, np.full(16, 1 / 16))
    for estimator, mechs in (("ems", [ldp.get_mechanism("sw", 1.0, 16, b=b) for b in (0.05, 0.2, 0.9)]),
                             ("em", [ldp.get_mechanism("sw", e, 16) for e in (0.5, 2.0)])):
        seeds = [10 + k for k in range(len(mechs))]
        got = simulate_estimates_many(mechs, counts, estimator, trials=2, seeds=seeds)
        for mech, seed, block in zip(mechs, seeds, got, strict=True):
            np.testing.assert_array_equal(block, simulate_estimates(mech, counts, estimator, trials=2, seed=seed))
    with pytest.raises(ldp.LDPError, match="one seed per mechanism"):
        simulate_estimates_many(mechs, counts, "em", seeds=[1])
