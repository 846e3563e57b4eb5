"""Post-processing lab — how the estimators compare over many repeated collections: per-value bias
and variance (consistency paper §V.B, Figs. 2–3), frequent-value (top-k) and set-value query errors
(§V.D–E), a per-task summary with the utility gain Γ over MI and the equivalent users n′, and the
advisor (§V.D): which estimator to use for a query, from one collection's reports, checked against the truth.

Wiring and text only: the controls are declared below; data from ``ldp.studies.datasets`` (through
``views.common.dataset_picker``), runs and every number from ``ldp.studies.comparison``, the advisor from
``ldp.studies.advisor``, run-time estimates from ``ldp.studies.cost``, figures from ``ldp.viz.estimator_comparison``.
Every table, figure and CSV is made once per distinct input for the whole server (keyed by a digest of the run and
the query's k and ρ): a session that asks for what another already asked only draws it. The advisor and the
early-stopping study are computed on demand: each sits in an expander, closed by default and bound to the URL, that
runs only while open (a new ε on a new seed then answers within ~0.15 s of CPU).
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

import ldp
from ldp.evaluation.tasks import GAIN_BASELINE, GAIN_BASELINE_LABEL, QUERY_TASKS
from ldp.studies import advisor, choices, cost
from ldp.studies import comparison as study
from ldp.viz import estimator_comparison as viz
from views import common, controls, offload
from views.controls import Control, render

RHO_GRID = [1, 2, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90]  # % of the domain per set (paper Figs. 6–7)
SET_QUERIES = 500
K_MAX = 100
LIVE_S = 30.0  # runs estimated below this start by themselves (with a progress bar); longer ones wait for the button
WARN_S = 10.0
BLOCK_S = 600.0
Z = 2.0
MAX_CELLS = 5_000_000  # trials × d × estimators kept in memory (8 bytes each: 40 MB)
# Preselected (a lecture's handful; every other applicable estimator is one click away in the sidebar): MI, the
# consistency paper's Norm-Sub and its guideline methods (Norm, Base-Cut, PowerNS), Γ's baseline Norm-Mul, IBU.
DEFAULT_ESTIMATORS = ("mi", "norm-sub", "norm-mul", "norm", "base-cut", "power-ns", "ibu")
EARLY_STOPPING_TRIALS = 10  # collections averaged by the early-stopping study
#: The seed of the population and the collection the estimators are timed on (:func:`_timing`), whatever the
#: page's seed. A timing feeds only the run-time estimate and the preselection, which need its order of magnitude,
#: the same on every seed; keyed by the page's seed, ten sessions with their own seeds each timed every applicable
#: estimator (0.1-0.2 s of CPU) when ε crossed an octave, all in the same burst (benchmarks/bench_concurrency.py).
TIMING_SEED = 0
ADVISOR_MISS = 1.5  # the advisor's choice is flagged when its actual error is this many times the best's
ADVISOR_WARN_S = 5.0  # the advisor should answer within this; slower configurations get a warning
ADVISOR_QUERIES = 200  # random sets of the set-value task


def _top_k_fields(d: int) -> dict[str, Any]:
    k_max = min(d, K_MAX)
    return {"max_value": k_max, "default": min(10, k_max)}


# --------------------------------------------------------------------------- controls (each stated once)
DATA = common.data_controls("pp_data")
MECH = common.mechanism_controls("pp_mech", eps_key="pp_eps", default="olh")
USERS = Control("pp_users", "number_input", "Number of users n", 1_000_000, min_value=10, max_value=10**9,
                step=100_000, help="The population: n users drawn once (seeded) from the dataset's distribution; every "
                                   "trial collects this same population again.")
TRIALS = Control("pp_trials", "number_input", "Trials (repeated collections)", 50, min_value=2, max_value=2000,
                 step=10, help="Bias and variance are measured across trials; more trials = smaller standard errors "
                               "(the paper uses 30 for errors and 5000 for Figs. 2–3).")
ENGINE = common.engine_control("pp_engine")
SEED = common.seed_control("pp_seed")
ESTIMATORS = common.estimator_controls("pp_est")
TOP_K = Control("pp_k", "slider", "k: the most frequent values queried", min_value=1, depends=_top_k_fields,
                help="Top-k MSE: the MSE over the k values with the highest true frequency (paper §V.E).")
RHO = Control("pp_rho", "select_slider", "ρ: share of the domain in each queried set (%)", 10, options=RHO_GRID,
              format_func=lambda r: f"{r}%", help=f"Set-value query: the summed frequency of a random set of ρ% of "
                                                  f"the values (paper §V.D); {SET_QUERIES} random sets, the same for "
                                                  "every estimator.")
TASK = Control("pp_adv_task", "selectbox", "Your query", "mse", options=list(QUERY_TASKS),
               format_func=lambda t: QUERY_TASKS[t].display_name,
               help="What you will ask of the estimate decides which estimator is best (§V).")
ADV_K = Control("pp_adv_k", "slider", "k: the most frequent values", min_value=1, depends=_top_k_fields,
                help="Your query is about the k values with the highest true frequency (paper §V.E).")
ADV_RHO = Control("pp_adv_rho", "select_slider", "ρ: share of the domain in each queried set (%)", 10,
                  options=RHO_GRID, format_func=lambda r: f"{r}%",
                  help=f"{ADVISOR_QUERIES} random sets of ρ% of the values, the same for every estimator (paper "
                       "§V.D).")
THRESHOLD = Control("pp_adv_threshold", "number_input", "Threshold (fraction of users)", min_value=0.0,
                    max_value=1.0, step=0.001, format="%.4f",
                    depends=lambda d: {"default": round(1.0 / d, 4) if d <= 10_000 else 0.0001},
                    help="A value is reported when its estimate is above this frequency; the error counts false "
                         "positives plus missed values.")
GROUP = Control("pp_adv_group", "multiselect", "Values in the group", follows_data=True,
                depends=lambda labels: {"options": labels, "default": labels[:3]},
                help="Your query is the summed frequency of these values (e.g. a category, §V.D Fig. 8).")
ADV_TRIALS = Control("pp_adv_trials", "number_input", "Advisor trials", 20, min_value=2, max_value=200, step=5,
                     help="Re-simulations of the synthetic dataset; more = smaller standard errors.")
CONTROLS = (*DATA, *MECH, USERS, TRIALS, ENGINE, SEED, *ESTIMATORS, TOP_K, RHO, TASK, ADV_K, ADV_RHO, THRESHOLD,
            GROUP, ADV_TRIALS)


# --------------------------------------------------------------------------- cached computation
@st.cache_data(show_spinner=False, max_entries=512)
def _chunk(mechanism: str, epsilon: float, params: tuple, counts: np.ndarray, estimators: tuple[Any, ...],
           engine: str, seed: int, index: int, trials: int) -> ldp.SimulationResult:
    """Chunk ``index`` (≤ 10 trials) of a run; keyed by every input including the seed. No per-trial metrics: the page
    scores the estimates its own way (per value, per query)."""
    mech = ldp.get_mechanism(mechanism, epsilon, int(counts.shape[0]), **dict(params))
    return offload.for_engine(engine)(study.run_chunk, mech, counts, common.build_estimators(estimators),
                                      engine=engine, seed=seed, index=index, trials=trials, metrics=())


@st.cache_data(show_spinner=False, max_entries=128)
def _timing(mechanism: str, epsilon: float, params: tuple, weights: np.ndarray, users: int,
            estimators: tuple[Any, ...]) -> dict[str, float]:
    """Seconds per collection of each estimator (iterative ones such as IBU dominate a run), on ``users`` drawn
    from ``weights`` with :data:`TIMING_SEED`, whatever the page's seed."""
    mech = ldp.get_mechanism(mechanism, epsilon, int(weights.shape[0]), **dict(params))
    counts = study.draw_population(weights, users, TIMING_SEED)
    return offload.call(cost.time_estimators, mech, counts, common.build_estimators(estimators), TIMING_SEED)


@st.cache_data(show_spinner=False, max_entries=128)
def _advise(mechanism: str, epsilon: float, params: tuple, counts: np.ndarray, estimators: tuple[Any, ...],
            engine: str, seed: int, task: str, task_params: dict[str, Any], trials: int) -> advisor.AdvisorCheck:
    """The advisor on one simulated collection, with every candidate's actual error; keyed by every input
    including the seed."""
    mech = ldp.get_mechanism(mechanism, epsilon, int(counts.shape[0]), **dict(params))
    names = [e if isinstance(e, str) else e[0] for e in estimators]
    eparams = {e[0]: dict(e[1]) for e in estimators if not isinstance(e, str)}
    return advisor.advise(mech, counts, task=task, trials=trials, seed=seed, candidates=names, engine=engine,
                          estimator_params=eparams,
                          **task_params)


@st.cache_data(show_spinner=False, max_entries=64)
def _per_value(run: str, _result: ldp.SimulationResult, _labels: Any,
               _display: dict[str, str]) -> tuple[pd.DataFrame, dict[str, dict[str, float]]]:
    """The per-value bias/variance table and its summary, once per run (``run``: a digest of every input of the run
    and of the values' labels; the other arguments follow from it)."""
    table = offload.call(study.per_value_table, _result, _labels, _display)
    return table, study.bias_summary(table, z=Z)


@st.cache_data(show_spinner=False, max_entries=128)
def _query_comparison(run: str, k: int, rho: int, names: dict[str, str], short: dict[str, str],
                      _result: ldp.SimulationResult, _table: pd.DataFrame,
                      _display: dict[str, str]) -> study.QueryComparison:
    """The query errors and their tables, once per run and (k, ρ) (``run`` as for :func:`_per_value`)."""
    d = _result.mechanism.d
    return offload.call(study.query_comparison, _result, _table, _display, k=k, rho_percent=rho, queries=SET_QUERIES,
                        ks=range(1, min(d, K_MAX) + 1), rhos_percent=RHO_GRID, task_names=names, gain_names=short,
                        z=Z)


def _run(ctl: dict[str, Any], counts: np.ndarray, seconds: float) -> ldp.SimulationResult:
    params = tuple(sorted(ctl["params"].items()))
    specs = common.estimator_specs(ctl["estimators"], ctl["estimator_params"])

    def chunk(index: int, size: int) -> ldp.SimulationResult:
        return _chunk(ctl["mech"], ctl["eps"], params, counts, specs, ctl["engine"], ctl["seed"], index, size)

    chunked = ctl["trials"] > study.CHUNK_TRIALS
    bar = st.progress(0.0, text="Simulating the collections…") if seconds > 1.0 and chunked else None

    def progress(done: int, total: int) -> None:
        if bar is not None:
            bar.progress(done / total, text=f"Simulating the collections… {done} of {total} trials")

    mechanism = ldp.get_mechanism(ctl["mech"], ctl["eps"], int(counts.shape[0]), **ctl["params"])
    result = study.run_trials(mechanism, counts, common.build_estimators(specs), engine=ctl["engine"], seed=ctl["seed"],
                            trials=ctl["trials"], chunk=chunk, progress=progress)
    if bar is not None:
        bar.empty()
    return result


# --------------------------------------------------------------------------- sidebar
def _controls() -> dict[str, Any]:
    with st.sidebar:
        data = common.data_section(DATA)
        st.header("Mechanism")
        mech, eps, params = common.mechanism_picker(MECH)
        st.header("Experiment")
        users = int(render(USERS))
        trials = int(render(TRIALS))
        engine = render(ENGINE)
        seed = int(render(SEED))
        estimators_slot = st.container()
    with common.friendly_errors("this mechanism"):  # in the main area
        ldp.get_mechanism(mech, eps, data.d, **params)  # validates before the timing and the run
        counts = study.draw_population(np.asarray(data.counts), users, seed)
        applicable = tuple(choices.estimators_for(mech))
        # timed at one ε per octave (cost.timing_epsilon): an ε step does not time every estimator again; and on
        # TIMING_SEED's population, whatever the page's seed: sessions on other seeds share one timing
        timing = _timing(mech, cost.timing_epsilon(mech, eps, data.d, params), tuple(sorted(params.items())),
                         np.asarray(data.counts), users, applicable)
    # A handful by default (the baseline, the consistency paper's guideline methods, IBU), unless the first run
    # would then take more than ~WARN_S s: the slowest are then left out too (the page says so).
    handful = {e: timing[e] for e in DEFAULT_ESTIMATORS if e in timing} or timing
    kept, left_out = cost.preselect(handful, n=users, d=data.d, trials=trials, engine=engine, limit=WARN_S)
    # the default applies on the widget's first render only: keep what was left out then (a later timing may differ)
    if "pp_est" not in st.session_state:
        st.session_state["_pp_left_out"] = left_out
    left_out = st.session_state.get("_pp_left_out", left_out)
    with estimators_slot:
        estimators, estimator_params = common.estimator_picker(ESTIMATORS, mechanism=mech, preselected=kept)
    return {"data": data, "mech": mech, "eps": eps, "params": params, "users": users, "estimators": estimators,
            "estimator_params": estimator_params,
            "trials": trials, "engine": engine, "seed": seed, "counts": counts, "timing": timing,
            "left_out": left_out}


# --------------------------------------------------------------------------- bias and variance
def _bias_variance(result: ldp.SimulationResult, table: pd.DataFrame, summary: dict[str, dict[str, float]],
                   style: dict[str, dict[str, str]], run: str, chart_place: Any = None) -> None:
    mech = result.mechanism
    st.subheader("Bias and variance of every value")
    what = f"{mech.display_name}, ε = {mech.epsilon:g}, n = {result.n:,}, {result.trials} trials"
    within = "; ".join(f"{name}: {s[f'values with |bias| ≤ {Z:g} SE (%)']:.0f}% of values" for name, s in
                       summary.items())
    fig = common.cached_figure(("pp_bias", run), viz.bias_figure, table, title=f"Empirical bias per value — {what}",
                               z=Z, **style)
    # the plotted values' tables are made only while their expander is open
    plotted = ["estimator", "rank", "value", "true frequency", "mean estimate", "bias", "bias standard error"]
    common.show_figure(fig, "pp_bias", lambda: table[plotted], main=True, where=chart_place, description=(
        f"Lines: for each value, sorted from the most to the least frequent, the mean of the {result.trials} "
        f"estimates minus the true frequency, per estimator; shaded: ±{Z:g} standard errors of that mean. An "
        f"unbiased estimator stays within the band for about 95% of the values ({within})."))
    fig = common.cached_figure(("pp_variance", run), viz.variance_figure, table,
                               title=f"Variance per value across trials — {what}", **style)
    ratios = "; ".join(f"{name}: {s['variance / closed-form MI variance']:.2f}×" for name, s in summary.items())
    common.show_figure(fig, "pp_variance", lambda: table[["estimator", "rank", "value", "true frequency", "variance",
                                                          "closed-form MI variance"]], description=(
        "Lines (log scale): the variance of each value's estimate across trials, per estimator; dashed: the "
        "closed-form variance of matrix inversion, [f p*(1−p*) + (1−f) q*(1−q*)] / (n (p*−q*)²). Mean variance "
        f"relative to the closed form — {ratios}. Gaps are values whose estimate never changed (variance 0)."))


# --------------------------------------------------------------------------- query errors (fragment)
@st.fragment
def _queries(result: ldp.SimulationResult, table: pd.DataFrame, display: dict[str, str],
             style: dict[str, dict[str, str]], config: dict[str, Any], run: str) -> None:
    """The live part: moving k or ρ reruns only this fragment (the simulation is not repeated)."""
    with common.friendly_errors("the query errors"):
        _queries_body(result, table, display, style, config, run)


def _queries_body(result: ldp.SimulationResult, table: pd.DataFrame, display: dict[str, str],
                  style: dict[str, dict[str, str]], config: dict[str, Any], run: str) -> None:
    d = result.mechanism.d
    st.subheader("Frequent values and set-value queries")
    k_max = min(d, K_MAX)
    c1, c2 = st.columns(2)
    k = int(render(TOP_K, c1, d=d))
    rho = int(render(RHO, c2))
    names = {"full": "Full domain (MSE)", "topk": f"Top-{k} values (MSE)", "set": f"Set-value, ρ = {rho}% (MSE)"}
    short = {"full": "full domain", "topk": f"top-{k}", "set": f"set ρ = {rho}%"}
    queries = _query_comparison(run, k, rho, names, short, result, table, display)
    errors = queries.errors
    what = f"{result.mechanism.display_name}, ε = {result.mechanism.epsilon:g}, {result.trials} trials"

    curve = queries.top_k_curve
    fig = common.cached_figure(("pp_topk", run, k), viz.top_k_figure, curve, k=k,
                               title=f"Top-k MSE against k — {what}", **style)
    at_k = "; ".join(f"{display[e]}: {np.mean(v):.2e}" for e, v in errors["topk"].items())
    common.show_figure(fig, "pp_topk", curve, description=(
        f"Lines (log scale): the MSE over the k most frequent values, averaged over trials (±1 SE), for k = 1 to "
        f"{k_max}; dotted: the chosen k = {k} ({at_k})."))

    expected, sampled = queries.set_curve, queries.set_sample
    m = int(sampled["set size"].iloc[0])
    fig = common.cached_figure(("pp_set", run, rho), viz.set_value_figure, expected, sampled, rho=rho,
                               title=f"Set-value query MSE against ρ — {what}", **style)
    at_rho = "; ".join(f"{r['estimator']}: {r['MSE']:.2e}" for _, r in sampled.iterrows())
    common.show_figure(fig, "pp_set", lambda: pd.concat([expected.assign(source="average over all sets"),
                                                         sampled.assign(source=f"{SET_QUERIES} random sets")]),
                       description=(
        f"Lines (log scale): the MSE of the summed frequency of a set holding ρ% of the {d} values, averaged over all "
        f"such sets (closed form; for Post-Pos, whose clipped answers have none, over 200 random sets) and over "
        f"trials; diamonds (±1 SE): {SET_QUERIES} random sets of {m} values at the chosen ρ = {rho}% ({at_rho})."))

    st.subheader("Summary: which estimator for which task")
    summary = queries.summary
    fmt = {c: st.column_config.NumberColumn(format="%.3e") for c in summary.columns
           if c != "estimator" and "(%)" not in c and "/" not in c and "n′" not in c}
    fmt.update({c: st.column_config.NumberColumn(format="%.1f") for c in summary.columns if c.startswith("Γ")})
    fmt["equivalent users n′ (full domain)"] = st.column_config.NumberColumn(format="%.0f")
    st.dataframe(summary, key="pp_summary", hide_index=True, column_config=fmt)
    st.dataframe(queries.best, key="pp_best", hide_index=True,
                 column_config={"mean error": st.column_config.NumberColumn(format="%.3e"),
                                "runner-up / best": st.column_config.NumberColumn(format="%.2f×")})
    base = ldp.ESTIMATORS.get(GAIN_BASELINE).display_name
    gain_note = "" if GAIN_BASELINE in result.estimates else f" Add {base} to the estimators to see Γ."
    st.caption(f"Mean over {result.trials} trials (± its standard error). Γ (%) = 100·max((M_base − M)/M_base, 0), the "
               f"utility gain for each task over the IBU paper's baseline, {GAIN_BASELINE_LABEL}: {base} (Eq. (1); "
               "0 = no gain)." + gain_note
               + f" Equivalent users n′ = n·MSE_MI/MSE: matrix inversion would need n′ users for the full-domain MSE "
               f"this estimator has with n = {result.n:,} (consistency paper §V.C, Fig. 5; MI's closed-form MSE). "
               "Post-Pos answers every query clipped at 0, so it equals Base-Pos on single values and differs from MI "
               f"on small sets. 'Clear lead': the best estimator's error is lower than the runner-up's by more than "
               f"{Z:g} standard errors of the paired difference (same collections, same sets). The winner depends on "
               "the task, as in the paper's §V.F.")

    common.download_buttons(table, {**controls.values(CONTROLS), **config}, key="pp_download",
                            name="ldp-postprocessing", controls=CONTROLS)
    st.download_button("Download the summary (CSV)", lambda: common.csv_bytes(summary),  # written when clicked
                       "ldp-postprocessing-summary.csv", "text/csv", key="pp_download_summary")


# --------------------------------------------------------------------------- on demand (lazy expanders)
ADVISOR_KEY = "pp_advisor_open"  # the advisor's expander: open in the URL as ?pp_advisor_open=true
EARLY_KEY = "pp_early_open"  # the early-stopping study's expander


# --------------------------------------------------------------------------- advisor (fragment)
@st.fragment
def _advisor(ctl: dict[str, Any], counts: np.ndarray, data: common.Dataset, timing: dict[str, float]) -> None:
    """The advisor, on demand: changing its task or parameters (or opening it) reruns only this fragment."""
    box = common.lazy_expander("Advisor: which estimator for your query?", ADVISOR_KEY)
    with box:
        if box.open:
            with common.friendly_errors("the advisor"):
                _advisor_body(ctl, counts, data, timing)


def _task_params(task: str, data: common.Dataset) -> dict[str, Any]:
    """The chosen task's parameter widgets; returns the parameters for ``ldp.evaluation.tasks``."""
    if task in ("topk", "topk-precision"):
        return {"k": int(render(ADV_K, d=data.d))}
    if task == "set":
        return {"rho": int(render(ADV_RHO)) / 100, "queries": ADVISOR_QUERIES}
    if task == "threshold":
        return {"threshold": float(render(THRESHOLD, d=data.d))}
    if task == "subsets":
        labels = [str(v) for v in data.labels]
        group = render(GROUP, labels=labels)
        if not group:
            raise ldp.LDPError("pick at least one value for the group")
        position = {v: i for i, v in enumerate(labels)}
        return {"groups": [sorted(position[v] for v in group)]}
    return {}


def _advisor_body(ctl: dict[str, Any], counts: np.ndarray, data: common.Dataset, timing: dict[str, float]) -> None:
    mech = ldp.get_mechanism(ctl["mech"], ctl["eps"], data.d, **ctl["params"])
    st.caption("In a real collection you only hold the reports. The advisor (consistency paper §V.D) estimates the "
               "distribution from them, makes it consistent with Norm-Sub, uses it as a synthetic ground truth, "
               "re-simulates the collection many times and recommends the estimator with the lowest expected error "
               "for your query. Here the reports come from one simulated collection of the configuration in the "
               "sidebar; the candidates are the estimators chosen there. Because this is a simulator, each "
               "candidate's actual error on those reports against the true distribution is shown next to the "
               "advisor's expectation.")
    c1, c2, c3 = st.columns([2, 2, 1])
    with c1:
        task = render(TASK)
        st.caption(QUERY_TASKS[task].description)
    with c2:
        task_params = _task_params(task, data)
    with c3:
        trials = int(render(ADV_TRIALS))
    candidates = [e for e in ctl["estimators"] if e in timing]
    if not candidates:
        raise ldp.LDPError("none of the chosen estimators applies to this mechanism; choose others in the sidebar")
    seconds = cost.advisor_seconds({e: timing[e] for e in candidates}, n=ctl["users"], d=data.d, trials=trials,
                                  engine=ctl["engine"])
    if seconds > ADVISOR_WARN_S:
        slow = max(candidates, key=lambda e: timing[e])
        st.warning(f"The advisor may take about {seconds:.0f} s here ({trials} re-simulations × {len(candidates)} "
                   f"estimators over {data.d:,} values; {ldp.ESTIMATORS.get(slow).display_name} is the slowest). "
                   "Fewer advisor trials or fewer estimators make it faster.")
    signature = (ctl["mech"], ctl["eps"], tuple(sorted(ctl["params"].items())), data.name, data.d, ctl["users"],
                 common.estimator_specs(candidates, ctl["estimator_params"]), ctl["engine"], ctl["seed"], task,
                 repr(task_params), trials)
    if seconds > LIVE_S and st.session_state.get("_pp_adv_ran") != signature:
        if not st.button(f"Ask the advisor (about {seconds:.0f} s)", key="pp_adv_run"):
            st.info("The advisor takes a while for this configuration, so it runs when you press the button.")
            return
    with st.spinner("The advisor is re-simulating the collection…"):
        check = _advise(ctl["mech"], ctl["eps"], tuple(sorted(ctl["params"].items())), counts,
                        common.estimator_specs(candidates, ctl["estimator_params"]), ctl["engine"], ctl["seed"], task,
                        task_params, trials)
    st.session_state["_pp_adv_ran"] = signature
    _advisor_result(check, mech, trials, (*signature, hash(counts.tobytes())))


def _advisor_result(check: advisor.AdvisorCheck, mech: Any, trials: int, key: tuple) -> None:
    """``key``: every input of the advisor's run (its chart is built once per key)."""
    rec = check.recommendation
    best = check.row(check.best)
    value = "expected score" if check.better == "higher" else "expected error"
    st.success(f"**Recommended: {best['display name']}** for {rec.task_label} — {value} {best['expected']:.3g} "
               f"± {best['standard error']:.2g} (standard error over {trials} re-simulations).")
    cols = st.columns(4)
    cols[0].metric("Recommended estimator", str(best["display name"]))
    cols[1].metric(value.capitalize(), f"{best['expected']:.3g}", help="Mean over the advisor's re-simulations of "
                   "the synthetic dataset; lower is better" + (" (here higher is better)." if check.better == "higher"
                                                                else "."))
    gain = best.get("Γ vs MI (%)", float("nan"))
    cols[2].metric("Utility gain Γ vs MI", f"{gain:.1f}%" if gain == gain else "—",
                   help="100·max((M_MI − M)/M_MI, 0) on the expected errors (IBU paper Eq. (1)); defined for error "
                        "tasks when MI (Base) is among the candidates.")
    users = best.get("equivalent users", float("nan"))
    cols[3].metric("Equivalent users n′", f"{users:,.0f}" if users == users else "—",
                   help=f"Users matrix inversion would need for this full-domain MSE (n = {check.n:,}; consistency "
                        "paper Fig. 5). Defined for the full-domain MSE task.")
    tied = [str(r["display name"]) for _, r in check.table.iloc[1:].iterrows() if r["tied with best"]]
    if tied:
        st.caption(f"Statistically tied with the recommendation (paired difference within 2 standard errors): "
                   f"{', '.join(tied)}.")
    st.markdown("**Check: expected vs actual on these reports** (only a simulator can do this)")
    ratio = check.actual_ratio
    (st.warning if ratio == ratio and ratio > ADVISOR_MISS else st.info)(
        check.verdict() + (f" Its actual error is **{ratio:.2f}×** the best candidate's here." if ratio == ratio
                           and ratio > 1 else ""))
    guide = check.guideline()
    left, right = st.columns(2)
    left.metric("Data-driven choice (advisor)", str(best["display name"]),
                help="Chosen from these reports: the candidate with the lowest expected error on a synthetic "
                     "dataset fitted to them (consistency paper §V.D).")
    left.caption(f"expected {best['expected']:.3g} · actual {best['actual']:.3g}")
    if guide is None:
        right.metric("Paper's fixed guideline (§V.F)", "none for this task")
    else:
        right.metric("Paper's fixed guideline (§V.F)", str(guide["display name"]),
                     help="The consistency paper's summary: single values → Base-Cut, frequent values → Norm, "
                          "set-value queries → PowerNS; scored on the same re-simulations and reports.")
        right.caption(f"expected {guide['expected']:.3g} · actual {guide['actual']:.3g}"
                      + (" · the same as the advisor's choice" if guide["is recommended"] else ""))
    label = {"topk-precision": "top-k precision (share of the k values, higher is better)",
             "threshold": "misclassified values (count)"}.get(rec.task, "error (MSE, fraction²)")
    fig = common.cached_figure(("pp_adv_fig", key), lambda: viz.advisor_figure(
        check.table, title=f"Advisor: expected vs actual — {rec.task_label}, {mech.display_name}, "
                           f"ε = {mech.epsilon:g}", value_label=label))
    shown = check.table.drop(columns=["estimator"]).rename(columns={"display name": "estimator"})
    common.show_figure(fig, "pp_adv_fig", shown[["estimator", "expected", "standard error", "actual"]],
                       description=(
        f"Dots: each candidate's expected {label.split(' (')[0]} according to the advisor (mean over {trials} "
        "re-simulations of the synthetic dataset, ±2 standard errors), best at the top; diamonds: the same "
        "estimator's actual value on the one simulated collection, against the true distribution. "
        + check.verdict()))
    fmt = {c: st.column_config.NumberColumn(format="%.3e") for c in ("expected", "standard error", "trial SD",
                                                                     "actual")}
    fmt.update({"Γ vs MI (%)": st.column_config.NumberColumn(format="%.1f"),
                "equivalent users": st.column_config.NumberColumn(format="%.0f"),
                "actual rank": st.column_config.NumberColumn(format="%d"),
                "actual − expected (trial SDs)": st.column_config.NumberColumn(format="%.2f")})
    st.dataframe(shown, key="pp_adv_table", hide_index=True, column_config=fmt)
    note = f" It took {rec.elapsed_s:.1f} s." if rec.elapsed_s > ADVISOR_WARN_S else ""
    st.caption(f"'expected' ± 'standard error': the advisor's estimate from the reports alone; 'trial SD': how much "
               f"one collection's error spreads; 'actual': the error on these reports against the truth, which only a "
               f"simulator knows; 'actual − expected' in trial SDs (within about ±2 when the synthetic dataset "
               f"resembles the truth). Post-Pos is scored on clipped answers.{note}")
    st.download_button("Download the advisor's table (CSV)", lambda: common.csv_bytes(shown),  # written when clicked
                       "ldp-advisor.csv", "text/csv", key="pp_adv_download")


@st.cache_data(show_spinner=False, max_entries=32)
def _early_stopping_table(mechanism: str, epsilon: float, params: tuple, counts: np.ndarray, engine: str,
                          seed: int, trials: int) -> pd.DataFrame:
    mech = ldp.get_mechanism(mechanism, epsilon, int(counts.shape[0]), **dict(params))
    return study.early_stopping_study(mech, counts, trials=trials, seed=seed, engine=engine)


@st.fragment
def _early_stopping(ctl: dict[str, Any], counts: np.ndarray) -> None:
    """IBU paper §4.1 stops the plain Eq. (3) iterations at 10,000; IBU here returns their limit (the MLE). What
    stopping early does, on collections of this configuration — on demand (opening it reruns only this fragment)."""
    mech = ldp.get_mechanism(ctl["mech"], ctl["eps"], int(counts.shape[0]), **ctl["params"])
    if not ldp.ESTIMATORS.get("ibu").applies_to(mech):
        st.subheader("IBU stopped early")
        st.caption(f"IBU does not apply to {mech.display_name}.")
        return
    box = common.lazy_expander("IBU stopped early: the plain iterations against their limit", EARLY_KEY)
    with box:
        if box.open:
            _early_stopping_body(ctl, counts, mech)


def _early_stopping_body(ctl: dict[str, Any], counts: np.ndarray, mech: Any) -> None:
    key = (ctl["mech"], ctl["eps"], tuple(sorted(ctl["params"].items())), ctl["engine"], ctl["seed"])
    with common.friendly_errors("the early-stopping study"), st.spinner("Running the plain IBU iterations…"):
        table = _early_stopping_table(*key[:3], counts, *key[3:], EARLY_STOPPING_TRIALS)
    fig = common.cached_figure(("pp_early", *key, hash(counts.tobytes())), lambda: viz.early_stopping_figure(
        table, title=f"Plain IBU iterations vs their limit — {mech.display_name}, ε = {mech.epsilon:g}, d = {mech.d}"))
    best = table.loc[table["MSE"].idxmin()]
    last = table.iloc[-1]
    common.show_figure(fig, "pp_early", table, description=(
        f"Line: the mean MSE over {EARLY_STOPPING_TRIALS} collections of the paper's plain Eq. (3) iterate after x "
        "iterations from the uniform start; dashed: its limit, the maximum-likelihood estimate that IBU returns by "
        "default; dotted: matrix inversion."))
    ratio = float(best["MSE / limit's MSE"])
    verdict = (f"Stopping after **{int(best['iterations']):,}** iterations gives **{ratio:.2f}×** the limit's MSE: "
               "early stopping pulls the estimate towards the uniform start, which helps when the distribution is "
               "close to uniform or the noise is large (GRR at low ε)." if ratio < 0.99 else
               "No early stop beats the limit here: the data are far from uniform enough that shrinking towards the "
               "uniform start only adds bias.")
    gap = float(last["distance to the limit"])
    st.markdown(verdict + f" After the paper's 10,000 iterations the iterate is still {gap:.2g} from the limit "
                "(largest per-value gap). The IBU paper's finding that Γ grows as ε falls comes partly "
                "from this early stopping: the converged MLE does not always show it.")


# --------------------------------------------------------------------------- page
def main() -> None:
    chart_place = common.page_heading("Post-processing lab", (
        "Matrix inversion is unbiased but can be negative and need not sum to one; post-processing makes the "
        "estimate a distribution at the price of bias. Repeat the same collection many times and see, value "
        "by value, what each estimator trades — and which one wins for which query (Wang et al., NDSS 2020, "
        "§V)."))
    ctl = _controls()
    data: common.Dataset = ctl["data"]
    counts, all_timing = ctl["counts"], ctl["timing"]
    if not ctl["estimators"]:
        st.error("Choose at least one estimator in the sidebar (under 'Estimators / post-processing').")
        st.stop()
    most = study.max_trials(data.d, len(ctl["estimators"]), MAX_CELLS)
    if ctl["trials"] > most:
        st.error(f"{ctl['trials']:,} trials × {data.d:,} values × {len(ctl['estimators'])} estimators is more than "
                 f"this page keeps in memory: use at most {most:,} trials, or a smaller domain.")
        st.stop()
    timing = {e: all_timing.get(e, 0.0) for e in ctl["estimators"]}
    seconds = cost.estimated_seconds(ctl["users"], data.d, ctl["trials"], ctl["engine"], sum(timing.values()))
    left_out = [e for e in ctl["left_out"] if e not in ctl["estimators"]]
    if left_out:
        names = ", ".join(ldp.ESTIMATORS.get(e).display_name for e in left_out)
        extra = sum(all_timing[e] for e in left_out)
        with_all = cost.estimated_seconds(ctl["users"], data.d, ctl["trials"], ctl["engine"],
                                         sum(timing.values()) + extra)
        st.info(f"To keep the first run under about {WARN_S:.0f} s, {names} ({extra:.2g} s per collection) is not "
                "preselected. Add it in the sidebar under 'Estimators / post-processing' to compare it too (the run "
                f"then takes about {with_all:.0f} s), or run fewer trials.")
    slowest = max(timing, key=timing.get)
    if seconds > BLOCK_S:
        st.error(f"This run would take about {seconds / 60:.0f} minutes ({ctl['trials']} trials of {ctl['users']:,} "
                 f"users over {data.d:,} values on the {ctl['engine']} engine): use the fast engine, fewer trials or "
                 "fewer users.")
        st.stop()
    if seconds > WARN_S:
        share = ctl["trials"] * timing[slowest] / seconds
        hint = (f"{ldp.ESTIMATORS.get(slowest).display_name} takes {timing[slowest]:.2g} s per trial; leave it out "
                "or run fewer trials to go faster." if share > 0.5 else
                "The fast engine gives the same distribution of results in a fraction of the time."
                if ctl["engine"] == "exact" else "Run fewer trials to go faster.")
        st.warning(f"This run may take about {seconds:.0f} s ({ctl['trials']} trials on the {ctl['engine']} engine). "
                   + hint)
    cls = ldp.MECHANISMS.get(ctl["mech"])
    if ctl["engine"] == "fast" and not cls.fast_engine_exact:
        st.caption(f"The fast engine for {cls.display_name} draws the support counts with the exact mean and "
                   "covariance (a Gaussian approximation); choose exact to randomize every user.")
    signature = (ctl["mech"], ctl["eps"], tuple(sorted(ctl["params"].items())), data.name, data.d, ctl["users"],
                 common.estimator_specs(ctl["estimators"], ctl["estimator_params"]), ctl["trials"], ctl["engine"],
                 ctl["seed"], hash(counts.tobytes()))
    common.wait_for_button(seconds, LIVE_S, signature, "pp_run", f"Run {ctl['trials']} trials")
    with common.friendly_errors("this configuration"):
        result = _run(ctl, counts, seconds)

    display = {e: ldp.ESTIMATORS.get(e).display_name for e in result.estimates}
    colors, dashes = viz.style_maps([e.display_name for e in ldp.ESTIMATORS])  # stable look per estimator
    style = {"colors": colors, "dashes": dashes}
    # every input of the tables and figures below, in one short key (hashed once here, not by every cached call)
    run = hashlib.sha256(repr((*signature, tuple(str(v) for v in data.labels), display, style)).encode()).hexdigest()
    with common.friendly_errors("the bias and variance"):
        table, summary = _per_value(run, result, data.labels, display)
        _bias_variance(result, table, summary, style, run, chart_place)
    common.estimator_notes(result, data, list(result.estimates))
    config = {"dataset": data.name, "dataset_description": data.description, "d": data.d, "users_simulated": result.n,
              "mechanism_parameters": dict(result.mechanism.params), "set_value_queries": SET_QUERIES,
              "elapsed_s": result.elapsed_s}
    _queries(result, table, display, style, config, run)
    _advisor(ctl, counts, data, all_timing)
    _early_stopping(ctl, counts)


if __name__ == "__main__":  # Streamlit runs a page as __main__; tests import it for its controls
    main()
