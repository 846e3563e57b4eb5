"""Trade-off curves: error against ε (or n, d) for several mechanisms and estimators, where one
mechanism overtakes another, what ε or n a target error needs, and utility against attack success.

Widgets only: the maths is in ``ldp.studies.tradeoff`` and the figures in ``ldp.viz.tradeoff``.
"""

from __future__ import annotations

import hashlib
import json
import time
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

import ldp
from ldp.data.synthetic import true_distribution
from ldp.evaluation.metrics import DEFAULT_METRICS
from ldp.studies import cost
from ldp.studies import tradeoff as T
from ldp.studies.attacks import baseline_success
from ldp.viz import tradeoff as V
from views import common

DEFAULT_MECHANISMS = ["grr", "oue", "olh", "ss"]
AXIS_OPTIONS = {"epsilon": "ε (privacy budget)", "users": "n (users) at a fixed ε", "d": "d (domain size) at a fixed ε"}
CONFIRM_SECONDS = 10.0
FINE_POINTS = 120  # closed-form curves are cheap: draw them smoothly
CHECK_TRIALS = 40
MAX_CHECK_USERS = 10**13
TARGETS = {
    "mse": [float(f"{m}e{e}") for e in range(-10, -1) for m in (1, 2, 5)],
    "sd": [float(f"{m}e{e}") for e in range(-5, 0) for m in (1, 2, 5)],
}
KEYS = ["to_data_source", "to_data_sample", "to_data_column", "to_data_bins", "to_data_synthetic", "to_data_d",
        "to_data_zipf_s", "to_mechs",
        "to_est", "to_axis", "to_eps_lo", "to_eps_hi", "to_eps_points", "to_eps_fixed", "to_x_lo", "to_x_hi",
        "to_x_points", "to_users", "to_trials", "to_metric", "to_engine", "to_seed"]


# --------------------------------------------------------------------------- cached computations
@st.cache_data(show_spinner=False, max_entries=2048)
def _run_config(mechanism_name: str, epsilon: float, n: int, freqs: np.ndarray, *, estimators: tuple[str, ...],
                trials: int, engine: str, seed: int | None, metrics: tuple[str, ...], params: dict[str, Any],
                top_k: int) -> pd.DataFrame:
    return T.run_configuration(mechanism_name, epsilon, n, freqs, estimators=estimators, trials=trials,
                               engine=engine, seed=seed, metrics=metrics, params=params, top_k=top_k)


def _freq_source(source: tuple) -> Any:
    """The distribution, or for the d axis a function d ↦ distribution (rebuilt from a hashable spec)."""
    kind = source[0]
    if kind == "fixed":
        return np.asarray(source[1])
    if kind == "synthetic":
        spec = source[1]
        return lambda d: true_distribution(spec.format(d=int(d)))
    if kind == "rebin":
        base = np.asarray(source[1])
        return lambda d: T.rebin_frequencies(base, int(d))
    raise ldp.LDPError(f"unknown data source {kind!r}")


@st.cache_data(show_spinner=False, max_entries=64)
def _closed_form(mechanisms: tuple[str, ...], axis: str, grid: tuple[float, ...], source: tuple, epsilon: float,
                 users: int, metric: str) -> tuple[pd.DataFrame, list[tuple[float, str, str]]]:
    freqs = _freq_source(source)
    table = T.closed_form_curves(mechanisms, axis, grid, freqs, epsilon=epsilon, users=users, metric=metric)
    if table["value"].isna().all():
        return table, []
    curves = {m: table.loc[table["mechanism"] == m, "value"].to_numpy() for m in mechanisms}
    functions = None
    if axis != "d":
        functions = {m: T.closed_form_function(m, axis, freqs, epsilon=epsilon, users=users, metric=metric)
                     for m in mechanisms}
    return table, T.crossovers(curves, np.asarray(grid), functions=functions)


@st.cache_data(show_spinner=False, max_entries=64)
def _attack(mechanisms: tuple[str, ...], epsilons: tuple[float, ...], freqs: np.ndarray, users: int,
            metric: str) -> pd.DataFrame:
    return T.attack_curve(mechanisms, epsilons, freqs, users, metric=metric)


@st.cache_data(show_spinner=False, max_entries=64)
def _estimator_seconds(mechanisms: tuple[str, ...], freqs: np.ndarray, users: int, estimators: tuple[str, ...],
                       epsilon: float) -> float:
    """Seconds the chosen estimators take on one collection, the slowest mechanism's (a cached measurement)."""
    counts = T.population_counts(freqs, users)
    worst = 0.0
    for name in mechanisms:
        mech = ldp.get_mechanism(name, epsilon, int(freqs.shape[0]))
        names = [e for e in estimators if ldp.ESTIMATORS.get(e).applies_to(mech)]
        worst = max(worst, sum(cost.time_estimators(mech, counts, names).values()))
    return worst


@st.cache_data(show_spinner=False, max_entries=256)
def _check(mechanism_name: str, epsilon: float, n: int, freqs: np.ndarray, measure: str, seed: int) -> dict:
    return T.check_by_simulation(mechanism_name, epsilon, n, freqs, measure=measure, trials=CHECK_TRIALS, seed=seed)


def _fmt_seconds(s: float) -> str:
    if s < 1:
        return "under a second"
    if s < 90:
        return f"about {s:.0f} s"
    return f"about {s / 60:.1f} minutes"


def _fmt_x(x: float, axis: str) -> str:
    return f"{x:.3g}" if axis == "epsilon" else f"{int(round(x)):,}"


# --------------------------------------------------------------------------- page
common.restore_from_url(KEYS)
st.title("📉 Trade-off curves")
st.markdown(
    "How fast does each mechanism's error fall as the privacy budget ε grows, and where does one "
    "mechanism overtake another? The dotted curves are the closed-form error of matrix inversion (MI), "
    "available at once; **Run sweep** adds simulated curves — the mean over repeated trials with a 95 % "
    "confidence band — for every mechanism × estimator. Below: the ε or number of users a target error "
    "needs, and the error against the success of an attacker who guesses a user's value from their report.")

sb = st.sidebar
with sb:
    st.header("Data")
    with common.friendly_errors("this dataset"):
        data = common.dataset_picker("to_data", container=sb)
    st.header("Mechanisms and estimators")
    names = ldp.MECHANISMS.names()
    if "to_mechs" in st.session_state:
        st.session_state["to_mechs"] = [m for m in st.session_state["to_mechs"] if m in names]
    st.session_state.setdefault("to_mechs", DEFAULT_MECHANISMS)
    mechanisms = st.multiselect(
        "Mechanisms", names, key="to_mechs", format_func=lambda m: ldp.MECHANISMS.get(m).display_name,
        help="One colour per mechanism. Parameters take their defaults at every ε (OLH's g = round(e^ε + 1), "
             "SS's ω, THE's θ); longitudinal mechanisms use ε1 = ε/2.")
    estimators = common.estimator_picker("to_est", container=sb)
    st.header("Sweep")
    st.session_state.setdefault("to_axis", "epsilon")
    axis = st.radio("Sweep over", list(AXIS_OPTIONS), key="to_axis", format_func=AXIS_OPTIONS.get)
    if axis == "epsilon":
        st.session_state.setdefault("to_eps_lo", 0.1)
        st.session_state.setdefault("to_eps_hi", 10.0)
        c1, c2 = st.columns(2)
        eps_lo = c1.number_input("smallest ε", 0.01, 20.0, key="to_eps_lo", step=0.05, format="%.3g")
        eps_hi = c2.number_input("largest ε", 0.01, 20.0, key="to_eps_hi", step=0.5, format="%.3g")
        st.session_state.setdefault("to_eps_points", 10)
        points = st.slider("ε values (log-spaced)", 2, 40, key="to_eps_points")
        eps_fixed = 1.0
    else:
        eps_fixed = common.epsilon_slider("to_eps_fixed", label="Fixed ε", container=sb)
        lo_default, hi_default, lo_min, hi_max = ((1_000, 1_000_000, 100, 10**9) if axis == "users"
                                                  else (4, 512, 2, 2048))
        previous = st.session_state.get("_to_x_axis")
        st.session_state["_to_x_axis"] = axis
        for k, default in (("to_x_lo", lo_default), ("to_x_hi", hi_default)):
            value = st.session_state.get(k)
            # a switch of axis, or a value (e.g. from the URL) outside this axis's range: its own default
            if (previous is not None and previous != axis) or not isinstance(value, (int, float)) \
                    or not lo_min <= value <= hi_max:
                st.session_state[k] = default
            else:
                st.session_state[k] = int(value)
        c1, c2 = st.columns(2)
        what = "n" if axis == "users" else "d"
        x_lo = c1.number_input(f"smallest {what}", lo_min, hi_max, key="to_x_lo", step=1)
        x_hi = c2.number_input(f"largest {what}", lo_min, hi_max, key="to_x_hi", step=1)
        st.session_state.setdefault("to_x_points", 8)
        points = st.slider(f"{what} values (log-spaced)", 2, 30, key="to_x_points")
    if axis != "users":
        st.session_state.setdefault("to_users", 100_000)
        users = int(st.number_input("Users n", 100, 10**9, key="to_users", step=10_000,
                                    help="The dataset's distribution is scaled to exactly n users."))
    else:
        users = 100_000
    st.session_state.setdefault("to_trials", 20)
    trials = int(st.number_input("Trials per point", 1, 500, key="to_trials", step=1,
                                 help="Independent collections per configuration; the band is the mean "
                                      "± 1.96·sd/√trials."))
    metrics_all = ldp.METRICS.names()
    st.session_state.setdefault("to_metric", "mse")
    metric = st.selectbox("Error metric", metrics_all, key="to_metric",
                          format_func=lambda m: f"{ldp.METRICS.get(m).display_name} — {ldp.METRICS.get(m).description}")
    st.session_state.setdefault("to_engine", "fast")
    engine = st.radio("Engine", ["fast", "exact"], key="to_engine", horizontal=True,
                      help="fast: samples the aggregate counts directly (same distribution); "
                           "exact: randomizes every user's report (slower, grows with n).")
    st.session_state.setdefault("to_seed", 0)
    seed = int(st.number_input("Seed", 0, 2**31 - 1, key="to_seed", step=1,
                               help="The same seed reproduces the same sweep."))
common.write_to_url(KEYS)

if not mechanisms:
    st.error("Choose at least one mechanism in the sidebar (e.g. GRR and OUE) to draw trade-off curves.")
    st.stop()
if not estimators:
    st.error("Choose at least one estimator in the sidebar (e.g. MI) to run the sweep.")
    st.stop()

# ----------------------------------------------------------------- grid and data source
with common.friendly_errors("this sweep range"):
    if axis == "epsilon":
        grid = T.epsilon_grid(eps_lo, eps_hi, points)
        fine = T.epsilon_grid(eps_lo, eps_hi, FINE_POINTS)
    elif axis == "users":
        grid = T.log_int_grid(int(x_lo), int(x_hi), points).astype(float)
        fine = T.log_int_grid(int(x_lo), int(x_hi), 60).astype(float)
    else:
        grid = T.log_int_grid(int(x_lo), int(x_hi), points).astype(float)
        fine = T.log_int_grid(int(x_lo), int(x_hi), 80).astype(float)

freqs = data.frequencies
if axis == "d":
    if st.session_state.get("to_data_source") == "Synthetic":
        spec_name = st.session_state.get("to_data_synthetic", data.name)
        extra = f",s={st.session_state['to_data_zipf_s']}" if spec_name == "zipf" else ""
        source: tuple = ("synthetic", f"{spec_name}:d={{d}}{extra}")
        st.caption(f"Varying d: the synthetic {spec_name} distribution is regenerated with each domain size.")
    elif data.kind == "numerical" and data.edges is not None:
        source = ("rebin", tuple(freqs))
        st.caption(f"Varying d: the numerical column {data.name} is re-bucketized into d equal-width bins over "
                   "the same range (values spread evenly inside each of the current bins).")
    else:
        st.error(f"The domain size cannot vary for the categorical column **{data.name}**: its {data.d} "
                 "categories are fixed. Pick synthetic data or a numerical column (which can be re-bucketized), "
                 "or sweep over ε or n instead.")
        st.stop()
else:
    source = ("fixed", tuple(freqs))
freq_source = _freq_source(source)

st.caption(f"Data: {data.description or data.name} — d = {data.d:,} values, scaled to "
           f"{'each n of the sweep' if axis == 'users' else f'n = {users:,} users'}. " + " ".join(data.notes))

sim_metrics = tuple(dict.fromkeys([*DEFAULT_METRICS["frequency"], metric]))
signature = hashlib.sha256(json.dumps({
    "source": [source[0], source[1] if isinstance(source[1], str) else list(source[1])],
    "mechanisms": mechanisms, "estimators": estimators, "axis": axis, "grid": [float(g) for g in grid],
    "eps": eps_fixed, "users": users, "trials": trials, "engine": engine, "seed": seed, "metrics": sim_metrics,
}, default=float).encode()).hexdigest()

# ----------------------------------------------------------------- Chart 1: error curves
st.header("Error against " + {"epsilon": "ε", "users": "the number of users", "d": "the domain size"}[axis])
with common.friendly_errors("the closed-form curves"):
    closed, crossings = _closed_form(tuple(mechanisms), axis, tuple(float(x) for x in fine), source, eps_fixed,
                                     users, metric)
if metric == "wasserstein":
    st.caption("Wasserstein distances here are measured in bins (positions in the value order): the simulated "
               "estimates carry no bin edges.")
if metric not in T.CLOSED_FORM_METRICS:
    st.info(f"{V.metric_label(metric)} has no closed form for matrix inversion: the chart shows simulated curves "
            "only (run the sweep).")
elif T.CLOSED_FORM_METRICS[metric] != "exact":
    st.caption(f"The closed form of {V.metric_label(metric)} uses the normal approximation E|f̂ − f| = σ·√(2/π).")

# Time estimate and the Run button
d_max = int(grid.max()) if axis == "d" else data.d
cal_freqs = freq_source(d_max) if axis == "d" else freqs
with common.friendly_errors("the time estimate"):
    per_collection = _estimator_seconds(tuple(mechanisms), np.asarray(cal_freqs), users, tuple(estimators), eps_fixed)
    sizes = [(int(x) if axis == "users" else users, int(x) if axis == "d" else data.d) for x in grid]
    seconds = cost.estimate_sweep_seconds(sizes * len(mechanisms), trials=trials, engine=engine,
                                          estimator_seconds=per_collection)
configs = len(mechanisms) * len(grid)
st.markdown(f"**Run sweep** simulates {len(mechanisms)} mechanism(s) × {len(grid)} "
            f"{'ε' if axis == 'epsilon' else ('n' if axis == 'users' else 'd')} values × {trials} trials "
            f"({configs * trials:,} collections, every estimator on the same reports) with the {engine} engine: "
            f"{_fmt_seconds(seconds)}, estimated from the estimators' measured time. Sweeps do not rerun on every "
            "change.")
confirmed = True
if seconds > CONFIRM_SECONDS:
    st.warning(f"This sweep would take {_fmt_seconds(seconds)}. Reduce the trials, the grid points, n (exact "
               "engine) or use the fast engine — or confirm below to run it anyway.")
    # keyed by the configuration: a confirmation covers this sweep only
    confirmed = st.checkbox(f"Yes, run the long sweep ({_fmt_seconds(seconds)})", key=f"to_confirm_{signature[:12]}")
run = st.button("Run sweep", key="to_run", type="primary", disabled=not confirmed)

if run:
    bar = st.progress(0.0, text="Starting the sweep…")

    def _progress(done: int, total: int, label: str) -> None:
        bar.progress(done / total, text=f"{done}/{total} configurations — {label}")

    start = time.perf_counter()
    with common.friendly_errors("this sweep"):
        table = T.run_tradeoff_sweep(
            freq_source, mechanisms=mechanisms, estimators=estimators, axis=axis, grid=grid, epsilon=eps_fixed,
            users=users, trials=trials, engine=engine, seed=seed, metrics=sim_metrics, progress=_progress,
            runner=_run_config)
    bar.empty()
    st.session_state["to_sweep"] = {"signature": signature, "table": table,
                                    "elapsed": time.perf_counter() - start}

result = st.session_state.get("to_sweep")
summary = None
if result is not None and result["signature"] == signature:
    table = result["table"]
    with common.friendly_errors("the sweep summary"):
        summary = T.summarize_sweep(table, metric)
    st.caption(f"Last sweep: {configs} configurations × {trials} trials in {result['elapsed']:.1f} s "
               "(repeated configurations come from the cache).")
elif result is not None:
    st.info("The settings changed since the last sweep: press **Run sweep** to simulate them "
            "(the closed form below is already up to date).")
else:
    st.info("No sweep yet: the chart shows the closed-form curves. Press **Run sweep** to add simulated "
            "curves with confidence bands.")

fig = V.error_curves_figure(mechanisms, summary=summary, closed_form=closed if not closed["value"].isna().all()
                            else None, crossings=crossings, axis=axis, metric=metric)
plotted = closed.rename(columns={"value": "closed form"}).drop(columns=["x"])
if summary is not None:
    plotted = summary[["mechanism", "estimator", "epsilon", "users", "d", "mean", "ci_low", "ci_high", "trials",
                       "closed_form"]]
n_words = "Along n every error falls as 1/n (MSE), so the ranking of mechanisms does not change."
sim_words = ("Solid and dashed lines are the simulated means over trials with shaded 95 % bands; "
             if summary is not None else "")
common.show_figure(
    fig, "to_fig_curves", plotted,
    f"{sim_words}dotted lines are the closed-form {V.metric_label(metric)} of MI on log–log axes, one colour per "
    f"mechanism. {V.describe_crossings(crossings, axis) if axis != 'users' else n_words}")
if crossings:
    with st.expander("Crossovers (closed form)"):
        st.dataframe(V.crossings_table(crossings, axis), hide_index=True, key="to_crossings")
        if axis == "epsilon" and {"grr", "oue"} <= set(mechanisms):
            ref = T.grr_oue_crossover(data.d)
            if ref is not None:
                st.caption(f"For small frequencies GRR and OUE cross where d = 3e^ε + 2, i.e. ε = ln((d − 2)/3) = "
                           f"{ref:.3g} for d = {data.d}; with this data's frequencies the crossing moves slightly.")

if summary is not None:
    st.subheader("Results")
    show = summary.rename(columns={"mean": f"mean {V.metric_label(metric)}", "ci_low": "95 % low",
                                   "ci_high": "95 % high", "closed_form": "closed form (MI)"})
    st.dataframe(show.drop(columns=["x"]), hide_index=True, key="to_results")
    config = common.config_of(KEYS) | {"grid": [float(g) for g in grid], "dataset": data.name, "d": data.d,
                                       "metrics": list(sim_metrics)}
    common.download_buttons(table, config, key="to_dl", name="ldp-tradeoff")

# ----------------------------------------------------------------- the inverse question


@st.fragment
def inverse_question(freqs: np.ndarray, mechanisms: list[str], users: int, seed: int) -> None:
    st.header("Which ε, or how many users, for a target error?")
    st.markdown("Pick a mechanism and the largest error you accept. The answers come from the closed-form "
                "variance of MI (it falls exactly as 1/n, and monotonically with ε) and are then **checked by "
                f"simulation**: {CHECK_TRIALS} trials at the answer with the fast engine, on this data.")
    c1, c2, c3 = st.columns(3)
    if st.session_state.get("to_inv_mech") not in mechanisms:
        st.session_state["to_inv_mech"] = mechanisms[0]
    mech = c1.selectbox("Mechanism", mechanisms, key="to_inv_mech",
                        format_func=lambda m: ldp.MECHANISMS.get(m).display_name)
    st.session_state.setdefault("to_inv_measure", "mse")
    measure = c2.radio("Target", list(T.TARGET_MEASURES), key="to_inv_measure",
                       format_func=lambda m: T.TARGET_MEASURES[m])
    tkey = f"to_inv_target_{measure}"
    st.session_state.setdefault(tkey, 1e-6 if measure == "mse" else 0.002)
    target = float(c3.select_slider("Largest acceptable error x", TARGETS[measure], key=tkey,
                                    format_func=lambda v: f"{v:.0e}"))
    c4, c5 = st.columns(2)
    eps = common.epsilon_slider("to_inv_eps", label="At ε (for the number of users)", container=c4)
    st.session_state.setdefault("to_inv_n", int(users))
    n = int(c5.number_input("With n users (for ε)", 10, 10**12, key="to_inv_n", step=10_000))
    what = "MSE" if measure == "mse" else "standard deviation of the least precise value"
    left, right = st.columns(2)
    with common.friendly_errors("the inverse question"):
        need_n = T.users_needed(mech, eps, freqs, target, measure=measure)
        need_eps = T.epsilon_needed(mech, n, freqs, target, measure=measure)
    with left:
        st.subheader(f"Users needed at ε = {eps:g}")
        st.metric("users n", f"{need_n:,}")
        st.caption(f"Smallest n with closed-form {what} ≤ {target:.0e}: n = ⌈n0·V(n0)/x⌉ since the variance is "
                   "∝ 1/n.")
        if need_n <= MAX_CHECK_USERS:
            chk = _check(mech, eps, need_n, freqs, measure, seed)
            st.markdown(f"**Checked by simulation:** {what} = {chk['empirical']:.3g} "
                        f"(95 % interval {chk['low']:.3g} – {chk['high']:.3g}) vs target {target:.3g}.")
        else:
            st.caption("Too many users to check by simulation here.")
    with right:
        st.subheader(f"ε needed with n = {n:,}")
        if need_eps is None:
            at10 = T.closed_form_measure(mech, T.EPS_MAX, n, freqs, measure)
            users_at_10 = T.users_needed(mech, T.EPS_MAX, freqs, target, measure=measure)
            st.warning(f"Unreachable: even at ε = {T.EPS_MAX:g} the {what} of {ldp.MECHANISMS.get(mech).display_name} "
                       f"with {n:,} users is {at10:.3g}, above the target {target:.0e}. Raise n to at least "
                       f"{users_at_10:,}, relax the target, or pick another mechanism.")
        else:
            at_lo = need_eps <= T.EPS_MIN
            st.metric("ε", f"{need_eps:.3g}" if not at_lo else f"≤ {T.EPS_MIN:g}")
            st.caption(f"Smallest ε with closed-form {what} ≤ {target:.0e} (Brent's root finder on the closed form)"
                       + (": the target is met even at the smallest ε considered." if at_lo else "."))
            chk = _check(mech, max(need_eps, T.EPS_MIN), n, freqs, measure, seed)
            st.markdown(f"**Checked by simulation:** {what} = {chk['empirical']:.3g} "
                        f"(95 % interval {chk['low']:.3g} – {chk['high']:.3g}) vs target {target:.3g}.")


inverse_question(np.asarray(freq_source(data.d) if axis == "d" else freqs), mechanisms, users, seed)

# ----------------------------------------------------------------- Chart 2: utility vs attack success
st.header("Utility against privacy: error vs the attacker's success")
eps_grid = grid if axis == "epsilon" else T.epsilon_grid(0.1, 10.0, 10)
prior = np.asarray(freq_source(data.d) if axis == "d" else freqs)
with common.friendly_errors("the attack-success curves"):
    points = _attack(tuple(mechanisms), tuple(float(e) for e in eps_grid), prior, users, metric)
base = baseline_success(prior)
sim_points = None
if summary is not None and axis == "epsilon" and "mi" in estimators:
    mi = summary[summary["estimator"] == "mi"][["mechanism", "epsilon", "mean"]]
    sim_points = mi.merge(points[["mechanism", "epsilon", "attack_success"]], on=["mechanism", "epsilon"])
if points["closed_form"].isna().all():
    st.info(f"{V.metric_label(metric)} has no closed form; choose MSE, top-k MSE, MAE or L1 for this chart.")
else:
    fig2 = V.utility_privacy_figure(points, mechanisms, baseline=base, metric=metric, simulated=sim_points)
    skipped = sorted(set(points.loc[points["attack_success"].isna(), "mechanism"]))
    note = (f" {', '.join(ldp.MECHANISMS.get(m).display_name for m in skipped)} is left out: its reports are "
            "continuous, so the attacker's success is not computed." if skipped else "")
    common.show_figure(
        fig2, "to_fig_attack", points,
        f"For each mechanism over ε from {eps_grid.min():.3g} to {eps_grid.max():.3g}: x is the probability that "
        "the Bayes-optimal attacker, knowing the data distribution, guesses a user's value from one report; y is "
        f"the closed-form {V.metric_label(metric)} with {users:,} users. The dashed line is the no-report baseline "
        f"(guess the most common value: {base:.3f}); curves further down and to the left are better." + note)
