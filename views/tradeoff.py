"""Trade-off curves: error against ε (or n, d) for several mechanisms and estimators, where one
mechanism overtakes another, what ε or n a target error needs, and utility against attack success.

Wiring and text only: the controls are declared below; the maths is in ``ldp.studies.tradeoff`` (sources, grids,
closed forms, sweeps, the inverse question), run-time estimates in ``ldp.studies.cost`` and the figures in
``ldp.viz.tradeoff``.
"""

from __future__ import annotations

import hashlib
import time
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

import ldp
from ldp.evaluation.metrics import DEFAULT_METRICS
from ldp.studies import choices, cost
from ldp.studies import tradeoff as study
from ldp.studies.attacks import baseline_success
from ldp.viz import tradeoff as viz
from views import common, controls
from views.controls import Control, render

CHECK_TRIALS = 40
MAX_CHECK_USERS = 10**13
CONFIRM_SECONDS = 10.0
FINE_POINTS = {"epsilon": 120, "users": 60, "d": 80}  # closed-form curves are cheap: draw them smoothly
AXIS_LABELS = {"epsilon": "ε (privacy budget)", "users": "n (users)", "d": "d (domain size)"}
MEASURE_LABELS = {"mse": "MSE over the values", "sd": "SD of the least precise value"}
TARGETS = {
    "mse": [float(f"{m}e{e}") for e in range(-10, -1) for m in (1, 2, 5)],
    "sd": [float(f"{m}e{e}") for e in range(-5, 0) for m in (1, 2, 5)],
}

# --------------------------------------------------------------------------- controls (each stated once)
DATA = common.data_controls("to_data")
MECHANISMS = Control("to_mechs", "multiselect", "Mechanisms", ["grr", "oue", "olh", "ss"],
                     options=choices.frequency_oracles(), format_func=lambda m: ldp.MECHANISMS.get(m).display_name,
                     help="One colour per mechanism. Parameters take their defaults at every ε (OLH's g = "
                          "round(e^ε + 1), SS's ω, THE's θ); longitudinal mechanisms use ε1 = ε/2.")
ESTIMATORS = common.estimator_control("to_est")
AXIS = Control("to_axis", "radio", "Sweep over", "epsilon", options=list(AXIS_LABELS), format_func=AXIS_LABELS.get,
               help="n and d are swept at the fixed ε below.")
EPS_LO = Control("to_eps_lo", "number_input", "smallest ε", 0.1, min_value=0.01, max_value=20.0, step=0.05,
                 format="%.3g")
EPS_HI = Control("to_eps_hi", "number_input", "largest ε", 10.0, min_value=0.01, max_value=20.0, step=0.5,
                 format="%.3g")
EPS_POINTS = Control("to_eps_points", "slider", "ε values (log-spaced)", 10, min_value=2, max_value=40)
EPS_FIXED = common.epsilon_control("to_eps_fixed", "Fixed ε")
N_LO = Control("to_n_lo", "number_input", "smallest n", 1_000, min_value=100, max_value=10**9, step=1)
N_HI = Control("to_n_hi", "number_input", "largest n", 1_000_000, min_value=100, max_value=10**9, step=1)
N_POINTS = Control("to_n_points", "slider", "n values (log-spaced)", 8, min_value=2, max_value=30)
D_LO = Control("to_d_lo", "number_input", "smallest d", 4, min_value=2, max_value=2048, step=1)
D_HI = Control("to_d_hi", "number_input", "largest d", 512, min_value=2, max_value=2048, step=1)
D_POINTS = Control("to_d_points", "slider", "d values (log-spaced)", 8, min_value=2, max_value=30)
USERS = Control("to_users", "number_input", "Users n", 100_000, min_value=100, max_value=10**9, step=10_000,
                help="The dataset's distribution is scaled to exactly n users.")
TRIALS = Control("to_trials", "number_input", "Trials per point", 20, min_value=1, max_value=500, step=1,
                 help="Independent collections per configuration; the band is the mean ± 1.96·sd/√trials.")
METRIC = Control("to_metric", "selectbox", "Error metric", "mse",
                 options=[m.name for m in ldp.METRICS if "frequency" in m.kinds],
                 format_func=lambda m: ldp.METRICS.get(m).display_name)
ENGINE = common.engine_control("to_engine")
SEED = common.seed_control("to_seed")
INV_MECH = Control("to_inv_mech", "selectbox", "Mechanism", format_func=lambda m: ldp.MECHANISMS.get(m).display_name,
                   depends=lambda mechanisms: {"options": mechanisms, "default": mechanisms[0]})
INV_MEASURE = Control("to_inv_measure", "radio", "Target", "mse", options=list(MEASURE_LABELS),
                      format_func=MEASURE_LABELS.get, help="The MSE over all values, or the standard deviation of "
                                                           "the value estimated least precisely.")
INV_TARGET = {measure: Control(f"to_inv_target_{measure}", "select_slider", "Largest acceptable error x", default,
                               options=TARGETS[measure], format_func=lambda v: f"{v:.0e}")
              for measure, default in (("mse", 1e-6), ("sd", 0.002))}
INV_EPS = common.epsilon_control("to_inv_eps", "At ε (for the number of users)")
INV_N = Control("to_inv_n", "number_input", "With n users (for ε)", 100_000, min_value=10, max_value=10**12,
                step=10_000)
NUM_METHODS = Control("to_num_methods", "multiselect", "Numerical mechanisms (each with its own reconstruction)",
                      ["sw", "cfo-binning"], options=[c.name for c in ldp.mechanisms_of("numerical")],
                      format_func=lambda m: ldp.MECHANISMS.get(m).display_name,
                      help="Square Wave with EMS, CFO-binning with MI + Norm-Sub, hierarchies with their own "
                           "reconstruction; the ε grid is the sweep's (or 0.1 to 10 when the sweep is over n or d).")
NUM_METRIC = Control("to_num_metric", "selectbox", "Numerical metric", "wasserstein",
                     options=list(study.NUMERICAL_SWEEP_METRICS), format_func=lambda m: ldp.METRICS.get(m).display_name)
EXECUTOR = Control("to_executor", "radio", "Run sweeps on", "processes",
                   options=["serial", "processes", "dask"], horizontal=True,
                   format_func={"serial": "this process", "processes": "a local process pool",
                                "dask": "a Dask cluster"}.get,
                   help="Same seed, same numbers on each. A process pool uses every core; Dask needs an existing "
                        "cluster's scheduler address (and the optional 'distributed' package).")
DASK_ADDRESS = Control("to_dask", "text_input", "Dask scheduler address (e.g. tcp://10.0.0.5:8786)", "")
RANGES = {"epsilon": (EPS_LO, EPS_HI, EPS_POINTS), "users": (N_LO, N_HI, N_POINTS), "d": (D_LO, D_HI, D_POINTS)}
CONTROLS = (*DATA, MECHANISMS, ESTIMATORS, AXIS, EPS_LO, EPS_HI, EPS_POINTS, EPS_FIXED, N_LO, N_HI, N_POINTS, D_LO,
            D_HI, D_POINTS, USERS, TRIALS, METRIC, ENGINE, SEED, INV_MECH, INV_MEASURE, *INV_TARGET.values(), INV_EPS,
            INV_N, NUM_METHODS, NUM_METRIC, EXECUTOR, DASK_ADDRESS)


# --------------------------------------------------------------------------- cached computations
@st.cache_data(show_spinner=False, max_entries=2048)
def _run_config(mechanism_name: str, epsilon: float, n: int, freqs: np.ndarray, *, estimators: tuple[str, ...],
                trials: int, engine: str, seed: int | None, metrics: tuple[str, ...], params: dict[str, Any],
                top_k: int) -> pd.DataFrame:
    return study.run_configuration(mechanism_name, epsilon, n, freqs, estimators=estimators, trials=trials,
                               engine=engine, seed=seed, metrics=metrics, params=params, top_k=top_k)


@st.cache_data(show_spinner=False, max_entries=64)
def _closed_form(mechanisms: tuple[str, ...], axis: str, grid: tuple[float, ...], source: study.FrequencySource,
                 epsilon: float, users: int, metric: str) -> tuple[pd.DataFrame, list[tuple[float, str, str]]]:
    return study.closed_form_study(mechanisms, axis, grid, source, epsilon=epsilon, users=users, metric=metric)


@st.cache_data(show_spinner=False, max_entries=64)
def _attack(mechanisms: tuple[str, ...], epsilons: tuple[float, ...], freqs: np.ndarray, users: int,
            metric: str) -> pd.DataFrame:
    return study.attack_curve(mechanisms, epsilons, freqs, users, metric=metric)


@st.cache_data(show_spinner=False, max_entries=64)
def _estimator_seconds(mechanisms: tuple[str, ...], freqs: np.ndarray, users: int, estimators: tuple[str, ...],
                       epsilon: float) -> float:
    return study.sweep_estimator_seconds(mechanisms, freqs, users, estimators, epsilon)


@st.cache_data(show_spinner=False, max_entries=256)
def _check(mechanism_name: str, epsilon: float, n: int, freqs: np.ndarray, measure: str, seed: int) -> dict:
    return study.check_by_simulation(mechanism_name, epsilon, n, freqs, measure=measure, trials=CHECK_TRIALS, seed=seed)


def _fmt_seconds(s: float) -> str:
    if s < 1:
        return "under a second"
    if s < 90:
        return f"about {s:.0f} s"
    return f"about {s / 60:.1f} minutes"


# --------------------------------------------------------------------------- sidebar
def _controls() -> dict[str, Any]:
    with st.sidebar:
        data = common.data_section(DATA)
        st.header("Mechanisms and estimators")
        mechanisms = list(render(MECHANISMS))
        estimators = list(render(ESTIMATORS))
        st.header("Sweep")
        axis = render(AXIS)
        lo_control, hi_control, points_control = RANGES[axis]
        eps_fixed = 1.0 if axis == "epsilon" else float(render(EPS_FIXED))
        c1, c2 = st.columns(2)
        lo, hi = render(lo_control, c1), render(hi_control, c2)
        points = int(render(points_control))
        users = int(render(USERS)) if axis != "users" else int(USERS.default)
        trials = int(render(TRIALS))
        metric = render(METRIC)
        st.caption(ldp.METRICS.get(metric).description)
        engine = render(ENGINE)
        seed = int(render(SEED))
        executor = render(EXECUTOR)
        address = str(render(DASK_ADDRESS)).strip() if executor == "dask" else None
    return {"data": data, "mechanisms": mechanisms, "estimators": estimators, "axis": axis, "lo": lo, "hi": hi,
            "points": points, "eps": eps_fixed, "users": users, "trials": trials, "metric": metric, "engine": engine,
            "seed": seed, "executor": executor, "address": address}


# --------------------------------------------------------------------------- the inverse question
@st.fragment
def inverse_question(freqs: np.ndarray, mechanisms: list[str], seed: int) -> None:
    st.header("Which ε, or how many users, for a target error?")
    st.markdown("Pick a mechanism and the largest error you accept. The answers come from the closed-form "
                "variance of MI (it falls exactly as 1/n, and monotonically with ε) and are then **checked by "
                f"simulation**: {CHECK_TRIALS} trials at the answer with the fast engine, on this data.")
    c1, c2, c3 = st.columns(3)
    mech = render(INV_MECH, c1, mechanisms=mechanisms)
    measure = render(INV_MEASURE, c2)
    target = float(render(INV_TARGET[measure], c3))
    c4, c5 = st.columns(2)
    eps = float(render(INV_EPS, c4))
    n = int(render(INV_N, c5))
    what = "MSE" if measure == "mse" else "standard deviation of the least precise value"
    left, right = st.columns(2)
    with common.friendly_errors("the inverse question"):
        need_n = study.users_needed(mech, eps, freqs, target, measure=measure)
        need_eps = study.epsilon_needed(mech, n, freqs, target, measure=measure)
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
            at10 = study.closed_form_measure(mech, study.EPS_MAX, n, freqs, measure)
            users_at_10 = study.users_needed(mech, study.EPS_MAX, freqs, target, measure=measure)
            name = ldp.MECHANISMS.get(mech).display_name
            st.warning(f"Unreachable: even at ε = {study.EPS_MAX:g} the {what} of {name} "
                       f"with {n:,} users is {at10:.3g}, above the target {target:.0e}. Raise n to at least "
                       f"{users_at_10:,}, relax the target, or pick another mechanism.")
        else:
            at_lo = need_eps <= study.EPS_MIN
            st.metric("ε", f"{need_eps:.3g}" if not at_lo else f"≤ {study.EPS_MIN:g}")
            st.caption(f"Smallest ε with closed-form {what} ≤ {target:.0e} (Brent's root finder on the closed form)"
                       + (": the target is met even at the smallest ε considered." if at_lo else "."))
            chk = _check(mech, max(need_eps, study.EPS_MIN), n, freqs, measure, seed)
            st.markdown(f"**Checked by simulation:** {what} = {chk['empirical']:.3g} "
                        f"(95 % interval {chk['low']:.3g} – {chk['high']:.3g}) vs target {target:.3g}.")


# --------------------------------------------------------------------------- numerical mechanisms
@st.fragment
def numerical_sweep(data: common.Dataset, grid: np.ndarray, users: int, trials: int, engine: str, seed: int,
                    executor: str, address: str | None) -> None:
    """The numerical column's own mechanisms against ε (square-wave paper Figs. 2–5): simulated only."""
    st.header("Numerical mechanisms against ε")
    c1, c2 = st.columns(2)
    methods = list(render(NUM_METHODS, c1))
    metric = render(NUM_METRIC, c2)
    if not methods:
        st.info("Choose one or more numerical mechanisms above to sweep them over ε on this column.")
        return
    counts = np.asarray(data.counts, dtype=np.int64)
    edges = np.asarray(data.edges, dtype=np.float64)
    signature = hashlib.sha256(repr((data.name, counts.tobytes(), edges.tobytes(), methods, [float(g) for g in grid],
                                     users, trials, engine, seed)).encode()).hexdigest()
    st.markdown(f"{len(methods)} mechanism(s) × {len(grid)} ε values × {trials} trials on {data.name} "
                f"({data.d} bins, n = {users:,}); every metric in the column's units. Pressing **Stop** (or changing "
                "any setting) while it runs cancels the sweep.")
    go, stop = st.columns([1, 1])
    if go.button("Run numerical sweep", key="to_num_run", type="primary"):
        stop.button("Stop", key="to_num_stop")  # a click reruns the page, which stops this run and its workers
        bar = st.progress(0.0, text="Starting the numerical sweep…")
        start = time.perf_counter()
        with common.friendly_errors("the numerical sweep"):
            table = study.numerical_sweep(counts, edges, [(m, None) for m in methods], grid, users=users, trials=trials,
                                      engine=engine, seed=seed, executor=executor, address=address,
                                      progress=lambda done, total: bar.progress(
                                          done / total, text=f"{done}/{total} configurations"))
        bar.empty()
        st.session_state["to_num_sweep"] = {"signature": signature, "table": table,
                                            "elapsed": time.perf_counter() - start}
    result = st.session_state.get("to_num_sweep")
    if result is None or result["signature"] != signature:
        st.info("Press **Run numerical sweep** to simulate these mechanisms over ε.")
        return
    with common.friendly_errors("the numerical sweep summary"):
        summary = study.summarize_sweep(result["table"], metric)
    unit = {"wasserstein": data.unit, "mean_error": data.unit}.get(metric) or ""
    fig = viz.error_curves_figure(methods, summary=summary, axis="epsilon", metric=metric,
                                title=f"{viz.metric_label(metric)}{f' ({unit})' if unit else ''} against ε — "
                                      f"numerical mechanisms on {data.name}")
    common.show_figure(fig, "to_num_fig", summary[["mechanism", "estimator", "epsilon", "mean", "ci_low", "ci_high",
                                                   "trials"]],
                       f"Mean over {trials} trials with 95 % bands; one colour per mechanism, each with its own "
                       f"reconstruction. Last run: {result['elapsed']:.1f} s.")


# --------------------------------------------------------------------------- page
def _intro() -> None:
    st.title("Trade-off curves")
    if not common.presenting():  # a projector shows the chart first; the introduction is for reading
        st.markdown(
            "How fast does each mechanism's error fall as the privacy budget ε grows, and where does one "
            "mechanism overtake another? The dotted curves are the closed-form error of matrix inversion (MI), "
            "available at once; **Run sweep** adds simulated curves — the mean over repeated trials with a 95 % "
            "confidence band — for every mechanism × estimator. Below: the ε or number of users a target error "
            "needs, and the error against the success of an attacker who guesses a user's value from their report.")


def _grids(ctl: dict[str, Any], data: common.Dataset, axis: str) -> tuple[np.ndarray, np.ndarray, Any]:
    """The sweep's grid, the closed form's finer grid and the frequency source (re-bucketized or regenerated for d)."""
    with common.friendly_errors("this sweep range"):
        grid, fine = study.sweep_grids(axis, ctl["lo"], ctl["hi"], ctl["points"], FINE_POINTS[axis])
    with common.friendly_errors("a sweep over d"):
        source = study.frequency_source(data, axis)
    if source.kind == "synthetic":
        st.caption(f"Varying d: the synthetic {data.name} distribution is regenerated with each domain size.")
    elif source.kind == "rebin":
        st.caption(f"Varying d: the numerical column {data.name} is re-bucketized into d equal-width bins over "
                   "the same range (values spread evenly inside each of the current bins).")
    scaled = "each n of the sweep" if axis == "users" else f"n = {ctl['users']:,} users"
    st.caption(f"Data: {data.description or data.name} — d = {data.d:,} values, scaled to {scaled}. "
               + " ".join(data.notes))
    return grid, fine, source


def _closed_form_section(mechanisms: list[str], axis: str, fine: np.ndarray, source: Any, eps_fixed: float,
                         users: int, metric: str) -> tuple[pd.DataFrame, list]:
    """The chart's heading, the closed-form curves of MI and what the chosen metric's closed form is."""
    st.header("Error against " + {"epsilon": "ε", "users": "the number of users", "d": "the domain size"}[axis])
    with common.friendly_errors("the closed-form curves"):
        closed, crossings = _closed_form(tuple(mechanisms), axis, tuple(float(x) for x in fine), source, eps_fixed,
                                         users, metric)
    if metric == "wasserstein":
        st.caption("Wasserstein distances here are measured in bins (positions in the value order): the simulated "
                   "estimates carry no bin edges.")
    if metric not in study.CLOSED_FORM_METRICS:
        st.info(f"{viz.metric_label(metric)} has no closed form for matrix inversion: the chart shows simulated "
                "curves only (run the sweep).")
    elif study.CLOSED_FORM_METRICS[metric] != "exact":
        st.caption(f"The closed form of {viz.metric_label(metric)} uses the normal approximation E|f̂ − f| = "
                   "σ·√(2/π).")

    return closed, crossings


def _sweep_section(ctl: dict[str, Any], data: common.Dataset, grid: np.ndarray, source: Any, signature: str,
                   sim_metrics: tuple[str, ...]) -> int:
    """The time estimate, the confirmation of a long sweep and the Run button (or a link that reruns a short one);
    returns the number of configurations."""
    mechanisms, estimators, axis = ctl["mechanisms"], ctl["estimators"], ctl["axis"]
    users, trials, engine, seed, eps_fixed = ctl["users"], ctl["trials"], ctl["engine"], ctl["seed"], ctl["eps"]
    with common.friendly_errors("the time estimate"):
        largest = source(int(grid.max())) if axis == "d" else data.frequencies
        per_collection = _estimator_seconds(tuple(mechanisms), np.asarray(largest), users, tuple(estimators),
                                            eps_fixed)
        seconds = cost.sweep_seconds(axis, grid, users=users, d=data.d, mechanisms=len(mechanisms), trials=trials,
                                     engine=engine, estimator_seconds=per_collection)
    configs = len(mechanisms) * len(grid)
    st.markdown(f"**Run sweep** simulates {len(mechanisms)} mechanism(s) × {len(grid)} "
                f"{'ε' if axis == 'epsilon' else ('n' if axis == 'users' else 'd')} values × {trials} trials "
                f"({configs * trials:,} collections, every estimator on the same reports) with the {engine} engine: "
                f"{_fmt_seconds(seconds)}, estimated from the estimators' measured time. Sweeps do not rerun on "
                "every change.")
    confirmed = True
    if seconds > CONFIRM_SECONDS:
        st.warning(f"This sweep would take {_fmt_seconds(seconds)}. Reduce the trials, the grid points, n (exact "
                   "engine) or use the fast engine — or confirm below to run it anyway.")
        # an action, not a setting (so not in the URL): keyed by the configuration, it covers this sweep only
        confirmed = st.checkbox(f"Yes, run the long sweep ({_fmt_seconds(seconds)})",
                                key=f"to_confirm_{signature[:12]}")
    # A link to a page that showed a sweep shows it again: the sweep's settings are in the URL
    # already; "to_sweep=<its signature>" says these settings' results were on screen, so opening the link reruns
    # it — same seed, same table — provided it is short (a link never starts a long run). Changing a setting
    # changes the signature, so the page does not start sweeping on every change.
    previous = st.session_state.get("to_sweep")
    from_link = (st.query_params.get("to_sweep") == signature[:16] and seconds <= CONFIRM_SECONDS
                 and not (previous and previous["signature"] == signature))
    if st.button("Run sweep", key="to_run", type="primary", disabled=not confirmed) or from_link:
        bar = st.progress(0.0, text="Starting the sweep…")

        def _progress(done: int, total: int, label: str) -> None:
            bar.progress(done / total, text=f"{done}/{total} configurations — {label}")

        start = time.perf_counter()
        with common.friendly_errors("this sweep"):
            table = study.run_tradeoff_sweep(
                source if axis == "d" else source(), mechanisms=mechanisms, estimators=estimators, axis=axis,
                grid=grid, epsilon=eps_fixed, users=users, trials=trials, engine=engine, seed=seed,
                metrics=sim_metrics, progress=_progress, runner=_run_config, executor=ctl["executor"],
                address=ctl["address"])
        bar.empty()
        st.session_state["to_sweep"] = {"signature": signature, "table": table,
                                        "elapsed": time.perf_counter() - start}
        st.query_params["to_sweep"] = signature[:16]

    return configs


def _last_sweep(signature: str, metric: str, configs: int, trials: int) -> tuple[pd.DataFrame | None, Any]:
    """The last sweep's table and its summary when it is of these settings (else a line saying what to do)."""
    table = None
    result = st.session_state.get("to_sweep")
    summary = None
    if result is not None and result["signature"] == signature:
        table = result["table"]
        with common.friendly_errors("the sweep summary"):
            summary = study.summarize_sweep(table, metric)
        st.caption(f"Last sweep: {configs} configurations × {trials} trials in {result['elapsed']:.1f} s "
                   "(repeated configurations come from the cache).")
    elif result is not None:
        st.info("The settings changed since the last sweep: press **Run sweep** to simulate them "
                "(the closed form below is already up to date).")
    else:
        st.info("No sweep yet: the chart shows the closed-form curves. Press **Run sweep** to add simulated "
                "curves with confidence bands.")
    return summary, table


def _curves_chart(mechanisms: list[str], summary: Any, closed: pd.DataFrame, crossings: list, axis: str, metric: str,
                  data: common.Dataset, chart_place: Any) -> None:
    """The error curves (closed form, and the sweep's means with bands when there is one) and the crossovers."""
    fig = viz.error_curves_figure(mechanisms, summary=summary, closed_form=closed if not closed["value"].isna().all()
                                else None, crossings=crossings, axis=axis, metric=metric)
    plotted = closed.rename(columns={"value": "closed form"}).drop(columns=["x"])
    if summary is not None:
        plotted = summary[["mechanism", "estimator", "epsilon", "users", "d", "mean", "ci_low", "ci_high", "trials",
                           "closed_form"]]
    n_words = "Along n every error falls as 1/n (MSE), so the ranking of mechanisms does not change."
    sim_words = ("Solid and dashed lines are the simulated means over trials with shaded 95 % bands; "
                 if summary is not None else "")
    common.show_figure(
        fig, "to_fig_curves", plotted, main=True, where=chart_place, description=(
            f"{sim_words}dotted lines are the closed-form {viz.metric_label(metric)} of MI on log–log axes, one colour "
            f"per mechanism. {viz.describe_crossings(crossings, axis) if axis != 'users' else n_words}"))
    if crossings:
        with st.expander("Crossovers (closed form)"):
            st.dataframe(viz.crossings_table(crossings, axis), hide_index=True, key="to_crossings")
            if axis == "epsilon" and {"grr", "oue"} <= set(mechanisms):
                ref = study.grr_oue_crossover(data.d)
                if ref is not None:
                    st.caption(f"For small frequencies GRR and OUE cross where d = 3e^ε + 2, i.e. ε = ln((d − 2)/3) "
                               f"= {ref:.3g} for d = {data.d}; with this data's frequencies the crossing moves "
                               "slightly.")


def _results(summary: Any, table: Any, metric: str, grid: np.ndarray, data: common.Dataset,
             sim_metrics: tuple[str, ...]) -> None:
    """The sweep's table and its downloads (with the configuration that made it)."""
    if summary is not None:
        st.subheader("Results")
        show = summary.rename(columns={"mean": f"mean {viz.metric_label(metric)}", "ci_low": "95 % low",
                                       "ci_high": "95 % high", "closed_form": "closed form (MI)"})
        st.dataframe(show.drop(columns=["x"]), hide_index=True, key="to_results")
        config = controls.values(CONTROLS) | {"grid": [float(g) for g in grid], "dataset": data.name, "d": data.d,
                                              "metrics": list(sim_metrics)}
        common.download_buttons(table, config, key="to_dl", name="ldp-tradeoff", controls=CONTROLS)


def main() -> None:
    _intro()
    chart_place = common.main_chart_slot()  # on a projector the curves come right under the title
    ctl = _controls()
    data: common.Dataset = ctl["data"]
    mechanisms, estimators, axis, metric = ctl["mechanisms"], ctl["estimators"], ctl["axis"], ctl["metric"]
    users, trials, engine, seed, eps_fixed = ctl["users"], ctl["trials"], ctl["engine"], ctl["seed"], ctl["eps"]
    if not mechanisms:
        st.error("Choose at least one mechanism in the sidebar (e.g. GRR and OUE) to draw trade-off curves.")
        st.stop()
    if not estimators:
        st.error("Choose at least one estimator in the sidebar (e.g. MI) to run the sweep.")
        st.stop()
    grid, fine, source = _grids(ctl, data, axis)
    sim_metrics = tuple(dict.fromkeys([*DEFAULT_METRICS["frequency"], metric]))
    signature = hashlib.sha256(repr((source, mechanisms, estimators, axis, [float(g) for g in grid], eps_fixed, users,
                                     trials, engine, seed, sim_metrics)).encode()).hexdigest()
    closed, crossings = _closed_form_section(mechanisms, axis, fine, source, eps_fixed, users, metric)
    configs = _sweep_section(ctl, data, grid, source, signature, sim_metrics)
    summary, table = _last_sweep(signature, metric, configs, trials)
    _curves_chart(mechanisms, summary, closed, crossings, axis, metric, data, chart_place)
    _results(summary, table, metric, grid, data, sim_metrics)
    if data.numerical:
        numerical_sweep(data, grid if axis == "epsilon" else study.epsilon_grid(0.1, 10.0, 8), users, trials, engine,
                        seed, ctl["executor"], ctl["address"])

    freqs = np.asarray(data.frequencies)
    inverse_question(freqs, mechanisms, seed)

    # ------------------------------------------------------------- Chart 2: utility vs attack success
    st.header("Utility against privacy: error vs the attacker's success")
    eps_grid = grid if axis == "epsilon" else study.epsilon_grid(0.1, 10.0, 10)
    with common.friendly_errors("the attack-success curves"):
        points = _attack(tuple(mechanisms), tuple(float(e) for e in eps_grid), freqs, users, metric)
    base = baseline_success(freqs)
    sim_points = None
    if summary is not None and axis == "epsilon" and "mi" in estimators:
        sim_points = study.simulated_attack_points(summary, points)
    if points["closed_form"].isna().all():
        st.info(f"{viz.metric_label(metric)} has no closed form; choose MSE, top-k MSE, MAE or L1 for this chart.")
        return
    fig2 = viz.utility_privacy_figure(points, mechanisms, baseline=base, metric=metric, simulated=sim_points)
    skipped = sorted(set(points.loc[points["attack_success"].isna(), "mechanism"]))
    note = (f" {', '.join(ldp.MECHANISMS.get(m).display_name for m in skipped)} is left out: its reports are "
            "continuous, so the attacker's success is not computed." if skipped else "")
    common.show_figure(
        fig2, "to_fig_attack", points,
        f"For each mechanism over ε from {eps_grid.min():.3g} to {eps_grid.max():.3g}: x is the probability that "
        "the Bayes-optimal attacker, knowing the data distribution, guesses a user's value from one report; y is "
        f"the closed-form {viz.metric_label(metric)} with {users:,} users. The dashed line is the no-report baseline "
        f"(guess the most common value: {base:.3f}); curves further down and to the left are better." + note)


if __name__ == "__main__":  # Streamlit runs a page as __main__; tests import it for its controls
    main()
