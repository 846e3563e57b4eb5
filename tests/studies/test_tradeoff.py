"""Unit tests of ldp.studies.tradeoff: grids, closed forms, crossovers, the inverse question and sweeps."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import ldp
from ldp.evaluation.metrics import DEFAULT_METRICS
from ldp.mechanisms import get_mechanism
from ldp.studies import tradeoff

ZIPF = (1 / np.arange(1, 51) ** 1.2) / np.sum(1 / np.arange(1, 51) ** 1.2)


# --------------------------------------------------------------------------- grids and populations
def test_epsilon_grid_is_log_spaced_with_endpoints():
    grid = tradeoff.epsilon_grid(0.1, 10, 10)
    assert grid.shape == (10,)
    assert grid[0] == pytest.approx(0.1) and grid[-1] == pytest.approx(10)
    ratios = grid[1:] / grid[:-1]
    assert np.allclose(ratios, 100 ** (1 / 9))
    assert tradeoff.epsilon_grid(0.5, 0.5, 1).tolist() == [0.5]


@pytest.mark.parametrize("args", [(0, 10, 5), (-1, 10, 5), (2, 1, 5), (1, 1, 3), (0.1, 10, 0), (0.1, math.inf, 3)])
def test_epsilon_grid_rejects_bad_ranges(args):
    with pytest.raises(ldp.LDPError):
        tradeoff.epsilon_grid(*args)


def test_log_int_grid_unique_integers():
    grid = tradeoff.log_int_grid(2, 2048, 12)
    assert grid[0] == 2 and grid[-1] == 2048 and np.all(np.diff(grid) > 0)
    assert tradeoff.log_int_grid(3, 5, 10).tolist() == [3, 4, 5]
    with pytest.raises(ldp.LDPError):
        tradeoff.log_int_grid(10, 5, 3)


def test_population_counts_sum_and_rounding():
    counts = tradeoff.population_counts(ZIPF, 12_345)
    assert counts.sum() == 12_345
    assert np.all(np.abs(counts - ZIPF * 12_345) < 1)
    assert tradeoff.population_counts([1, 1, 1], 10).tolist() in ([4, 3, 3], [3, 4, 3], [3, 3, 4])
    with pytest.raises(ldp.LDPError):
        tradeoff.population_counts(ZIPF, 0)


def test_rebin_frequencies_preserves_mass():
    f = np.array([0.1, 0.2, 0.3, 0.4])
    assert np.allclose(tradeoff.rebin_frequencies(f, 4), f)
    assert np.allclose(tradeoff.rebin_frequencies(f, 2), [0.3, 0.7])
    assert np.allclose(tradeoff.rebin_frequencies(f, 8), np.repeat(f / 2, 2))
    r = tradeoff.rebin_frequencies(ZIPF, 7)
    assert r.shape == (7,) and r.sum() == pytest.approx(1)


# --------------------------------------------------------------------------- closed forms
@pytest.mark.parametrize("eps", [0.3, 1.0, 4.0])
def test_closed_form_small_frequency_limits(eps):
    d, n, e = 64, 10_000, math.exp(eps)
    grr = tradeoff.closed_form_curve("grr", [eps], d, n)[0]
    oue = tradeoff.closed_form_curve("oue", [eps], d, n)[0]
    assert grr == pytest.approx((d - 2 + e) / (e - 1) ** 2 / n, rel=1e-12)
    assert oue == pytest.approx(4 * e / (e - 1) ** 2 / n, rel=1e-12)


def test_closed_form_metrics():
    mech = get_mechanism("oue", 1.0, ZIPF.size)
    var = mech.variance(ZIPF, 1000)
    assert tradeoff.closed_form_value(mech, ZIPF, 1000, "mse") == pytest.approx(var.mean())
    assert tradeoff.closed_form_value(mech, ZIPF, 1000, "topk_mse", top_k=5) == pytest.approx(var[:5].mean())
    gauss = math.sqrt(2 / math.pi)  # E|X| / sd of a centred Gaussian
    assert tradeoff.closed_form_value(mech, ZIPF, 1000, "mae") == pytest.approx(np.sqrt(var).mean() * gauss)
    assert tradeoff.closed_form_value(mech, ZIPF, 1000, "l1") == pytest.approx(np.sqrt(var).sum() * gauss)
    assert math.isnan(tradeoff.closed_form_value(mech, ZIPF, 1000, "max_abs"))


def test_closed_form_curves_along_users_fall_as_one_over_n():
    table = tradeoff.closed_form_curves(["grr"], "users", [1000, 10_000], ZIPF, epsilon=1.0)
    v = table["value"].to_numpy()
    assert v[0] / v[1] == pytest.approx(10)
    f = tradeoff.closed_form_function("grr", "users", ZIPF, epsilon=1.0)
    assert f(1000) == pytest.approx(v[0]) and f(10_000) == pytest.approx(v[1])


def test_closed_form_curves_along_d_use_the_distribution_function():
    table = tradeoff.closed_form_curves(["oue"], "d", [4, 16, 64], lambda d: np.ones(d) / d, epsilon=1.0, users=1000)
    assert table["d"].tolist() == [4, 16, 64]
    assert np.allclose(table["value"], [get_mechanism("oue", 1.0, d).variance(np.ones(d) / d, 1000).mean()
                                        for d in (4, 16, 64)])


# --------------------------------------------------------------------------- crossovers
def _small_frequency_limit(mech: str, d: int):
    return lambda eps: float(tradeoff.closed_form_curve(mech, [eps], d, 1000)[0])


@pytest.mark.parametrize("d", [8, 30, 100, 1000])
def test_grr_oue_crossover_is_ln_d_minus_2_over_3(d):
    grid = tradeoff.epsilon_grid(0.05, 10, 40)
    curves = {m: tradeoff.closed_form_curve(m, grid, d, 1000) for m in ("grr", "oue")}
    functions = {m: _small_frequency_limit(m, d) for m in curves}
    found = tradeoff.crossovers(curves, grid, functions=functions)
    assert len(found) == 1
    eps, a, b = found[0]
    assert {a, b} == {"grr", "oue"}
    assert eps == pytest.approx(math.log((d - 2) / 3), abs=1e-6)
    assert 3 * math.exp(eps) + 2 == pytest.approx(d, rel=1e-6)
    assert tradeoff.grr_oue_crossover(d) == pytest.approx(eps, abs=1e-6)


def test_crossovers_interpolate_without_functions():
    grid = tradeoff.epsilon_grid(0.1, 10, 200)
    d = 100
    curves = {m: tradeoff.closed_form_curve(m, grid, d, 1000) for m in ("grr", "oue")}
    (eps, _, _), = tradeoff.crossovers(curves, grid)
    # linear interpolation in ln ε of ln(ratio): error far below one grid step (ratio 10^(2/199))
    assert eps == pytest.approx(math.log(98 / 3), rel=1e-3)


def test_crossovers_ignore_ties_ripples_and_parallel_curves():
    x = np.geomspace(1, 100, 50)
    base = 1 / x
    assert tradeoff.crossovers({"a": base, "b": 2 * base}, x) == []
    assert tradeoff.crossovers({"a": base, "b": base}, x) == []
    ripple = base * (1 + 0.05 * np.sin(np.linspace(0.5, 6.5, x.size) * np.pi))  # 6 crossings, net none
    assert tradeoff.crossovers({"a": base, "b": ripple}, x, merge=3.0) == []
    steep = x ** -2.0 * 10  # crosses 1/x once at x = 10
    (xc, a, b), = tradeoff.crossovers({"a": base, "b": steep}, x)
    assert (a, b) == ("a", "b") and xc == pytest.approx(10, rel=1e-9)
    with pytest.raises(ldp.LDPError):
        tradeoff.crossovers({"a": base, "b": base[:-1]}, x)
    with pytest.raises(ldp.LDPError):
        tradeoff.crossovers({"a": base}, x[::-1])


# --------------------------------------------------------------------------- the inverse question
@pytest.mark.parametrize("mech", ["grr", "oue", "olh", "ss", "l-oue"])
@pytest.mark.parametrize("measure,target", [("mse", 1e-6), ("sd", 2e-3)])
def test_users_needed_is_the_smallest_n_meeting_the_target(mech, measure, target):
    n = tradeoff.users_needed(mech, 1.0, ZIPF, target, measure=measure)
    assert tradeoff.closed_form_measure(mech, 1.0, n, ZIPF, measure) <= target * (1 + 1e-12)
    assert tradeoff.closed_form_measure(mech, 1.0, n - 1, ZIPF, measure) > target


def test_users_needed_hand_computed_grr():
    d, eps, e = 10, 1.0, math.exp(1.0)
    f = np.zeros(d)
    f[0] = 1.0
    p, q = e / (e + d - 1), 1 / (e + d - 1)
    v1 = (np.where(f == 1, p * (1 - p), q * (1 - q)) / (p - q) ** 2).mean()  # n = 1
    assert tradeoff.users_needed("grr", eps, f, 1e-4) == math.ceil(v1 / 1e-4)


@pytest.mark.parametrize("mech", ["grr", "oue", "olh", "ss", "she"])
def test_epsilon_needed_round_trip(mech):
    n, target = 50_000, 2e-6
    eps = tradeoff.epsilon_needed(mech, n, ZIPF, target)
    assert eps is not None and tradeoff.EPS_MIN < eps < tradeoff.EPS_MAX
    assert tradeoff.closed_form_measure(mech, eps, n, ZIPF) == pytest.approx(target, rel=1e-8)
    assert tradeoff.closed_form_measure(mech, eps * 0.99, n, ZIPF) > target
    # and back: at that ε, the users needed for the target are (about) n
    assert tradeoff.users_needed(mech, eps, ZIPF, target) == pytest.approx(n, rel=1e-6)


def test_epsilon_needed_unreachable_and_trivial():
    assert tradeoff.epsilon_needed("oue", 1000, ZIPF, 1e-12) is None
    assert tradeoff.epsilon_needed("oue", 10**9, ZIPF, 1.0) == tradeoff.EPS_MIN
    with pytest.raises(ldp.LDPError):
        tradeoff.epsilon_needed("oue", 1000, ZIPF, -1.0)
    with pytest.raises(ldp.LDPError):
        tradeoff.users_needed("oue", 1.0, ZIPF, 1e-6, measure="rmse")


def test_epsilon_needed_is_the_exact_minimum_where_olhs_integer_g_makes_the_error_jump():
    """OLH's g = round(e^ε + 1) is an integer: at ε = ln(52.5) g steps 53 → 54 and P 53 → 59 and the error jumps
    *up*. A target just above the error at the end of the g = 53 piece is met on a short stretch before the jump,
    missed after it, and met again only near ε ≈ 4.03. The answer is the stretch's start, and no ε below it
    (checked on a fine grid and just below) meets the target."""
    d, n = 50, 10_000
    f = np.full(d, 1 / d)
    jump = math.log(52.5)
    before = tradeoff.closed_form_measure("olh", jump, n, f, params={"g": 53})
    after = tradeoff.closed_form_measure("olh", jump * (1 + 1e-9), n, f)
    assert after > before * 1.05 and get_mechanism("olh", jump * (1 + 1e-9), d).params == {"g": 54, "prime": 59}
    target = before * 1.0005
    eps = tradeoff.epsilon_needed("olh", n, f, target)
    assert eps < jump and tradeoff.closed_form_measure("olh", eps, n, f) == pytest.approx(target, rel=1e-9)
    grid = np.linspace(tradeoff.EPS_MIN, eps * (1 - 1e-9), 20_000)
    assert all(tradeoff.closed_form_measure("olh", e, n, f) > target for e in grid)


def test_olhs_closed_form_breakpoints_are_where_its_parameters_change(monkeypatch):
    """The OLH hook (ε = ln(k − ½)) gives exactly the pieces that the generic search finds by comparing
    resolved parameters, and a given g leaves none."""
    from ldp.mechanisms.frequency.local_hashing import OLH

    assert OLH.epsilon_breakpoints(0.01, 4.0, 50, {"g": 8}) == []
    hook = list(tradeoff._parameter_breakpoints("olh", 50, {}, 0.01, 4.0, 200))
    monkeypatch.setattr(OLH, "_epsilon_breakpoints", classmethod(lambda cls, lo, hi, d, params: None))
    generic = list(tradeoff._parameter_breakpoints("olh", 50, {}, 0.01, 4.0, 200))
    assert len(hook) == len(generic) == 55  # g = 2 … 56 = round(e^4 + 1) up to ε = 4
    for (s1, e1, p1), (s2, e2, p2) in zip(hook, generic, strict=True):
        assert p1 == p2 and s1 == pytest.approx(s2, rel=1e-12) and e1 == pytest.approx(e2, rel=1e-12)


@pytest.mark.parametrize("measure", ["mse", "sd"])
def test_check_by_simulation_agrees_with_theory(measure):
    trials = 200
    out = tradeoff.check_by_simulation("oue", 1.0, 20_000, ZIPF, measure=measure, trials=trials, seed=3)
    assert out["closed_form"] == pytest.approx(tradeoff.closed_form_measure("oue", 1.0, 20_000, ZIPF, measure))
    assert out["low"] < out["empirical"] < out["high"]
    if measure == "mse":
        # per-trial MSE of d near-independent Gaussian errors: sd ≈ √(2 Σσ⁴)/d; 5 standard errors
        var = get_mechanism("oue", 1.0, ZIPF.size).variance(tradeoff.population_counts(ZIPF, 20_000) / 20_000, 20_000)
        se = math.sqrt(2 * np.sum(var**2)) / var.size / math.sqrt(trials)
    else:
        se = out["closed_form"] / math.sqrt(2 * trials)  # sd of a sample standard deviation
    assert abs(out["empirical"] - out["closed_form"]) < 5 * se


# --------------------------------------------------------------------------- sweeps
def _sweep(**kw) -> pd.DataFrame:
    args = {"mechanisms": ["grr", "oue"], "estimators": ["mi", "norm-sub"], "grid": tradeoff.epsilon_grid(0.5, 4, 3),
            "trials": 4, "seed": 11, "users": 5000}
    args.update(kw)
    return tradeoff.run_tradeoff_sweep(ZIPF, **args)


def test_sweep_table_shape_and_columns():
    table = _sweep()
    assert list(table.columns) == ["x", *ldp.simulation.SWEEP_COLUMNS]  # the one sweep layout
    assert len(table) == 2 * 3 * 4 * 2 * len(DEFAULT_METRICS["frequency"])
    counts = table.groupby(["mechanism", "estimator", "epsilon", "metric"]).size()
    assert counts.eq(4).all() and len(counts) == 2 * 2 * 3 * len(DEFAULT_METRICS["frequency"])
    mi = table[(table["estimator"] == "mi") & (table["metric"] == "mse")]
    assert mi["closed_form"].notna().all()
    assert table.loc[table["estimator"] == "norm-sub", "closed_form"].isna().all()


def test_sweep_is_reproducible_and_configurations_are_independent():
    a, b = _sweep(), _sweep()
    pd.testing.assert_frame_equal(a, b)
    c = _sweep(seed=12)
    assert not np.allclose(a["value"], c["value"])
    # adding a mechanism does not change the others' numbers
    more = _sweep(mechanisms=["grr", "oue", "olh"])
    pd.testing.assert_frame_equal(more[more["mechanism"] != "olh"].reset_index(drop=True), a)
    # nor does adding a grid point: each configuration's stream is keyed by what it is, not its position
    grid = tradeoff.epsilon_grid(0.5, 4, 3)
    alone = _sweep(grid=grid[1:2])
    part = a[a["epsilon"] == grid[1]].reset_index(drop=True)
    pd.testing.assert_frame_equal(part.drop(columns="x"), alone.drop(columns="x"))


def test_sweep_progress_and_runner():
    calls = []
    seen = []

    def runner(*args, **kw):
        seen.append((args[:3], kw["seed"]))
        return tradeoff.run_configuration(*args, **kw)

    table = _sweep(progress=lambda done, total, label: calls.append((done, total)), runner=runner)
    assert calls == [(i, 6) for i in range(1, 7)]
    # every configuration once, each with the root seed: run_configuration keys its own stream by the configuration
    assert len({config for config, _ in seen}) == 6 and {seed for _, seed in seen} == {11}
    name, eps, n = seen[4][0]
    one = tradeoff.run_configuration(name, eps, n, ZIPF, estimators=("mi", "norm-sub"), trials=4, seed=11)
    rows = table[(table["mechanism"] == name) & (table["epsilon"] == eps)].drop(columns="x").reset_index(drop=True)
    pd.testing.assert_frame_equal(rows, one)


def test_sweep_along_users_and_d():
    t = tradeoff.run_tradeoff_sweep(ZIPF, mechanisms=["oue"], axis="users", grid=[1000, 10_000], epsilon=1.0, trials=2,
                                    seed=0)
    assert sorted(t["users"].unique()) == [1000, 10_000]
    t = tradeoff.run_tradeoff_sweep(lambda d: np.ones(d) / d, mechanisms=["grr"], axis="d", grid=[4, 32], trials=2,
                                    seed=0, users=2000)
    assert sorted(t["d"].unique()) == [4, 32]
    with pytest.raises(ldp.LDPError, match="cannot vary"):
        tradeoff.run_tradeoff_sweep(ZIPF, mechanisms=["grr"], axis="d", grid=[4, 32])
    with pytest.raises(ldp.LDPError):
        tradeoff.run_tradeoff_sweep(ZIPF, mechanisms=[], grid=[1.0])
    with pytest.raises(ldp.LDPError):
        tradeoff.run_tradeoff_sweep(ZIPF, mechanisms=["grr"], estimators=[], grid=[1.0])


def test_summary_mean_matches_closed_form():
    trials = 100
    table = tradeoff.run_tradeoff_sweep(ZIPF, mechanisms=["oue"], estimators=["mi"], grid=[1.0], trials=trials, seed=5,
                                        users=20_000)
    s = tradeoff.summarize_sweep(table, "mse")
    assert len(s) == 1 and s["trials"].iloc[0] == trials
    row = s.iloc[0]
    var = get_mechanism("oue", 1.0, ZIPF.size).variance(tradeoff.population_counts(ZIPF, 20_000) / 20_000, 20_000)
    se = math.sqrt(2 * np.sum(var**2)) / var.size / math.sqrt(trials)
    assert row["closed_form"] == pytest.approx(var.mean())
    assert abs(row["mean"] - row["closed_form"]) < 5 * se
    assert row["ci_low"] < row["mean"] < row["ci_high"]
    assert row["ci_high"] - row["mean"] == pytest.approx(tradeoff.Z95 * row["sd"] / math.sqrt(trials))
    with pytest.raises(ldp.LDPError):
        tradeoff.summarize_sweep(table, "nope")


# --------------------------------------------------------------------------- privacy side and timing
def test_attack_curve():
    eps = tradeoff.epsilon_grid(0.1, 10, 5)
    table = tradeoff.attack_curve(["grr", "she"], eps, ZIPF, 10_000)
    grr = table[table["mechanism"] == "grr"]["attack_success"].to_numpy()
    assert grr[0] == pytest.approx(ZIPF.max(), abs=0.01)  # almost no information at ε = 0.1
    assert np.all(np.diff(grr) >= -1e-12) and grr[-1] > 0.9
    assert table[table["mechanism"] == "she"]["attack_success"].isna().all()
    assert table["closed_form"].notna().all()


# --------------------------------------------------------------------------- what a sweep runs on (pages)
def test_frequency_sources_along_each_axis():
    from ldp.studies import datasets

    categorical = datasets.sample_dataset("flights", "carrier")
    fixed = tradeoff.frequency_source(categorical, "epsilon")
    assert fixed.kind == "fixed" and not fixed.varies_with_d
    np.testing.assert_allclose(fixed(), categorical.frequencies)
    with pytest.raises(ldp.LDPError, match="cannot vary"):
        tradeoff.frequency_source(categorical, "d")
    numerical = datasets.sample_dataset("flights", "dep_time_hours", bins=24)
    rebin = tradeoff.frequency_source(numerical, "d")
    assert rebin.kind == "rebin" and rebin.varies_with_d
    np.testing.assert_allclose(rebin(12), tradeoff.rebin_frequencies(numerical.frequencies, 12))
    zipf = tradeoff.frequency_source(datasets.synthetic_dataset("zipf", 50, 1.2), "d")
    assert zipf.kind == "synthetic"
    np.testing.assert_allclose(zipf(7), ldp.data.true_distribution("zipf:d=7,s=1.2"))
    assert hash(zipf) == hash(tradeoff.FrequencySource("synthetic", family="zipf", exponent=1.2))  # cacheable
    # a mixture keeps its formula along d (it was dropped: "a mixture needs a formula" on the Trade-off page)
    mixture = datasets.synthetic_dataset("mixture", 50, formula=datasets.DEFAULT_MIXTURE)
    along_d = tradeoff.frequency_source(mixture, "d")
    np.testing.assert_allclose(along_d(50), mixture.frequencies / mixture.frequencies.sum(), atol=1e-6)
    np.testing.assert_allclose(along_d(7), ldp.data.true_distribution(
        datasets.synthetic_spec("mixture", 7, formula=datasets.DEFAULT_MIXTURE)))


def test_sweep_grids_and_the_closed_form_study():
    grid, fine = tradeoff.sweep_grids("epsilon", 0.5, 4.0, 4, 30)
    np.testing.assert_allclose(grid, tradeoff.epsilon_grid(0.5, 4.0, 4))
    assert len(fine) == 30
    grid, _ = tradeoff.sweep_grids("d", 4, 64, 3, 10)
    assert list(grid) == [4.0, 16.0, 64.0]
    with pytest.raises(ldp.LDPError):
        tradeoff.sweep_grids("nope", 1, 2, 2, 2)
    source = tradeoff.FrequencySource("fixed", tuple(np.full(32, 1 / 32)))
    table, crossings = tradeoff.closed_form_study(("grr", "oue"), "epsilon", tradeoff.epsilon_grid(0.5, 8, 40), source,
                                                  epsilon=1.0, users=10_000, metric="mse")
    assert set(table["mechanism"]) == {"grr", "oue"}
    # GRR overtakes OUE near d = 3e^ε + 2 (ε ≈ 2.3 for d = 32; f = 1/32 is not small, so a little later),
    # exactly where their closed forms are equal
    assert len(crossings) == 1 and 2.0 < crossings[0][0] < 3.0
    at = crossings[0][0]
    grr, oue = (tradeoff.closed_form_function(m, "epsilon", source(), users=10_000) for m in ("grr", "oue"))
    assert grr(at) == pytest.approx(oue(at), rel=1e-3)


def test_sweep_estimator_seconds_and_simulated_attack_points():
    freqs = np.full(16, 1 / 16)
    seconds = tradeoff.sweep_estimator_seconds(("grr", "she"), freqs, 1000, ("mi", "ibu"), 1.0)
    assert seconds > 0
    summary = pd.DataFrame({"mechanism": ["grr", "grr"], "estimator": ["mi", "norm-sub"], "epsilon": [1.0, 1.0],
                            "mean": [0.1, 0.2]})
    points = pd.DataFrame({"mechanism": ["grr"], "epsilon": [1.0], "attack_success": [0.3], "closed_form": [0.1]})
    merged = tradeoff.simulated_attack_points(summary, points)
    assert merged.to_dict("records") == [{"mechanism": "grr", "epsilon": 1.0, "mean": 0.1, "attack_success": 0.3}]


def test_epsilon_needed_checks_its_search_range():
    with pytest.raises(ldp.LDPError, match="lo < hi"):
        tradeoff.epsilon_needed("olh", 1000, ZIPF, 1e-3, lo=2.0, hi=1.0)
    with pytest.raises(ldp.LDPError, match="scan_points"):
        tradeoff.epsilon_needed("olh", 1000, ZIPF, 1e-3, scan_points=10**9)


def test_the_frequency_sweep_gives_the_same_table_on_every_executor(monkeypatch):
    """Issue 9: the Trade-off page's frequency sweep runs on a process pool too; the seeding is per configuration,
    so the table is identical. The pool is forced (serial_below = 0: these configurations are too quick for
    run_ordered to bother otherwise) and its use is checked."""
    import functools

    from ldp.core import executors

    used: list[str] = []
    real = executors.run_ordered

    def forced(fn, tasks, **kw):
        used.append(kw.get("executor", "serial"))
        return real(fn, tasks, serial_below=0.0, target_seconds=0.0, **kw)

    monkeypatch.setattr(ldp.simulation, "run_ordered", functools.wraps(real)(forced))  # the one sweep driver
    freqs = np.full(8, 1 / 8)
    kwargs = dict(mechanisms=["grr", "oue"], estimators=["mi", "norm-sub"], grid=[0.5, 1.0, 2.0], users=5_000,
                  trials=2, seed=3)
    serial = tradeoff.run_tradeoff_sweep(freqs, executor="serial", **kwargs)
    pooled = tradeoff.run_tradeoff_sweep(freqs, executor="processes", workers=2, **kwargs)
    pd.testing.assert_frame_equal(serial, pooled)
    assert used == ["serial", "processes"]


def test_the_tradeoff_sweep_is_the_one_sweep_driver():
    """Step 1 of "one protocol" item 7: the Trade-off page's sweep is ldp.simulation.sweep on the page's population
    (the distribution scaled to n users): the same table, x aside, and closed forms from the metrics' own hooks."""
    from ldp import simulation

    table = _sweep(metrics=("mse", "topk_mse", "mae", "l1", "max_abs"), top_k=3)
    driver = simulation.sweep(tradeoff.ScaledPopulation(ZIPF), mechanisms=["grr", "oue"],
                              epsilons=list(tradeoff.epsilon_grid(0.5, 4, 3)),
                              users=[5000], domain_sizes=[ZIPF.size], estimators=["mi", "norm-sub"], trials=4, seed=11,
                              metrics=("mse", "topk_mse", "mae", "l1", "max_abs"), top_k=3)
    pd.testing.assert_frame_equal(table.drop(columns="x"), driver)
    mi = table[table["estimator"] == "mi"]
    for (name, eps, metric), rows in mi.groupby(["mechanism", "epsilon", "metric"]):
        mech = get_mechanism(name, eps, ZIPF.size)
        f = tradeoff.population_counts(ZIPF, 5000) / 5000
        assert rows["closed_form"].iloc[0] == tradeoff.closed_form_value(mech, f, 5000, metric, 3) or (
            metric == "max_abs" and rows["closed_form"].isna().all())
    var = get_mechanism("oue", 1.0, ZIPF.size).variance(tradeoff.population_counts(ZIPF, 5000) / 5000, 5000)
    f = tradeoff.population_counts(ZIPF, 5000) / 5000
    formulas = {"mse": var.mean(), "topk_mse": var[np.argsort(-f, kind="stable")[:3]].mean(),
                "mae": np.sqrt(var).mean() * math.sqrt(2 / math.pi), "l1": np.sqrt(var).sum() * math.sqrt(2 / math.pi)}
    mech = get_mechanism("oue", 1.0, ZIPF.size)
    for metric, value in formulas.items():
        assert tradeoff.closed_form_value(mech, f, 5000, metric, 3) == pytest.approx(value)
    assert math.isnan(tradeoff.closed_form_value(mech, f, 5000, "max_abs"))
    assert set(tradeoff.CLOSED_FORM_METRICS) == {"mse", "topk_mse", "mae", "l1"}


def test_the_numerical_sweep_is_one_driver_call():
    """The numerical sweep is the driver with each mechanism's reconstruction: the same rows as sweeping each
    (mechanism, reconstruction) alone, x = ε first, no closed form (numerical estimates have none)."""
    from ldp import simulation
    from ldp.data.synthetic import true_distribution

    counts = np.round(true_distribution("beta:a=5,b=2,d=16") * 2000).astype(np.int64)
    edges = np.linspace(0.0, 5.0, 17)
    table = tradeoff.numerical_sweep(counts, edges, [("sw", "ems"), ("cfo-binning", None)], [1.0, 2.0], users=2000,
                                     trials=2, seed=3, metrics=("wasserstein", "ks"))
    assert list(table.columns) == ["x", *simulation.SWEEP_COLUMNS]
    assert table["closed_form"].isna().all() and (table["x"] == table["epsilon"]).all()
    alone = simulation.sweep(simulation.SweepPopulation({16: counts}), mechanisms=["cfo-binning"], epsilons=[1.0, 2.0],
                             users=[2000], domain_sizes=[16], estimators=[], trials=2, seed=3,
                             metrics=("wasserstein", "ks"), edges=edges)
    mine = table[table["mechanism"] == "cfo-binning"].drop(columns="x").reset_index(drop=True)
    pd.testing.assert_frame_equal(mine, alone)
