"""Post-processing lab — how the estimators compare over many repeated collections: per-value bias
and variance (consistency paper §V.B, Figs. 2–3), frequent-value (top-k) and set-value query errors
(§V.D–E), a per-task summary with the utility gain Γ over MI and the equivalent users n′, and the
advisor (§V.D): which estimator to use for a query, from one collection's reports, checked against the truth.

Wiring only: data from ``views.common``, runs and every number from ``ldp.studies.comparison``, figures from
``ldp.viz.estimator_comparison``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

import ldp
from ldp.data import list_samples
from ldp.data.synthetic import SYNTHETIC
from ldp.evaluation.tasks import GAIN_BASELINE, GAIN_BASELINE_LABEL
from ldp.evaluation.tasks import TASKS as QUERY_TASKS
from ldp.studies import advisor, cost
from ldp.studies import comparison as lab
from ldp.viz import estimator_comparison as viz
from views import common

KEYS = ["pp_data_source", "pp_data_sample", "pp_data_column", "pp_data_bins", "pp_data_lo", "pp_data_hi",
        "pp_data_synthetic", "pp_data_d", "pp_data_zipf_s", "pp_mech", "pp_mech_eps1", "pp_eps", "pp_users", "pp_est",
        "pp_trials", "pp_seed", "pp_engine", "pp_k", "pp_rho", "pp_adv_task", "pp_adv_k", "pp_adv_rho",
        "pp_adv_threshold", "pp_adv_group", "pp_adv_trials"]
DEFAULT_USERS = 1_000_000
MAX_USERS = 10**9
MAX_TRIALS = 2000
RHO_GRID = [1, 2, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90]  # % of the domain per set (paper Figs. 6–7)
SET_QUERIES = 500
K_MAX = 100
LIVE_S = 30.0  # runs estimated below this start by themselves (with a progress bar); longer ones wait for the button
WARN_S = 10.0
BLOCK_S = 600.0
Z = 2.0
MAX_CELLS = 5_000_000  # trials × d × estimators kept in memory (8 bytes each: 40 MB)
ADVISOR_TRIALS = 20  # the advisor's re-simulations by default (consistency paper §V.D)
ADVISOR_MAX_TRIALS = 200
ADVISOR_WARN_S = 5.0  # the advisor should answer within this; slower configurations get a warning
ADVISOR_QUERIES = 200  # random sets of the set-value task
ADVISOR_TASKS = list(QUERY_TASKS)  # every task of ldp.evaluation.tasks (fixed subsets: a group of values picked below)


# --------------------------------------------------------------------------- URL values
def _sanitize() -> None:
    """Coerce values restored from a (possibly hand-edited) URL so the widgets accept them."""
    ss = st.session_state
    coerce = common.coerce_state

    coerce("pp_eps", float, lambda v: v > 0)
    coerce("pp_mech_eps1", float, lambda v: v > 0)
    coerce("pp_users", lambda v: int(min(max(int(float(v)), 10), MAX_USERS)))
    coerce("pp_trials", lambda v: int(min(max(int(float(v)), 2), MAX_TRIALS)))
    coerce("pp_seed", lambda v: int(min(max(int(float(v)), 0), 2**31 - 1)))
    coerce("pp_k", lambda v: int(min(max(int(float(v)), 1), K_MAX)))
    coerce("pp_rho", lambda v: min(RHO_GRID, key=lambda r: abs(r - float(v))))
    coerce("pp_data_bins", lambda v: int(min(max(int(float(v)), 2), 512)))
    coerce("pp_data_d", lambda v: int(min(max(int(float(v)), 2), 2048)))
    coerce("pp_data_zipf_s", lambda v: round(min(max(float(v), 0.1), 3.0), 1))
    coerce("pp_data_lo", float)
    coerce("pp_data_hi", float)
    coerce("pp_engine", str, lambda v: v in ("fast", "exact"))
    coerce("pp_adv_task", str, lambda v: v in ADVISOR_TASKS)
    coerce("pp_adv_k", lambda v: int(min(max(int(float(v)), 1), K_MAX)))
    coerce("pp_adv_rho", lambda v: min(RHO_GRID, key=lambda r: abs(r - float(v))))
    coerce("pp_adv_threshold", lambda v: float(min(max(float(v), 0.0), 1.0)))
    coerce("pp_adv_trials", lambda v: int(min(max(int(float(v)), 2), ADVISOR_MAX_TRIALS)))
    coerce("pp_data_source", str, lambda v: v in ("Sample data", "Synthetic", "Upload"))
    coerce("pp_data_synthetic", str, lambda v: v in SYNTHETIC)
    coerce("pp_data_sample", str, lambda v: v in {s["name"] for s in list_samples()})
    coerce("pp_mech", str, lambda v: v in ldp.MECHANISMS)
    if "pp_est" in ss:  # a one-element list comes back from the URL as a bare string
        value = ss["pp_est"]
        ss["pp_est"] = [value] if isinstance(value, str) else [str(v) for v in value] if isinstance(value, list) \
            else []
    if "pp_adv_group" in ss:
        value = ss["pp_adv_group"]
        ss["pp_adv_group"] = [str(value)] if isinstance(value, (str, int, float)) else [str(v) for v in value] \
            if isinstance(value, list) else []


# --------------------------------------------------------------------------- cached computation
@st.cache_data(show_spinner=False, max_entries=512)
def _chunk(mechanism: str, epsilon: float, params: tuple, counts: np.ndarray, estimators: tuple[str, ...],
           engine: str, seed: int, index: int, trials: int) -> ldp.SimulationResult:
    """Chunk ``index`` (≤ 10 trials) of a run; keyed by every input including the seed."""
    mech = ldp.get_mechanism(mechanism, epsilon, int(counts.shape[0]), **dict(params))
    return lab.run_chunk(mech, counts, estimators, engine=engine, seed=seed, index=index, trials=trials)


@st.cache_data(show_spinner=False, max_entries=128)
def _estimator_seconds(mechanism: str, epsilon: float, params: tuple, counts: np.ndarray,
                       estimators: tuple[str, ...], seed: int) -> dict[str, float]:
    """How long each estimator takes on one collection (iterative ones such as IBU dominate a run)."""
    mech = ldp.get_mechanism(mechanism, epsilon, int(counts.shape[0]), **dict(params))
    return cost.time_estimators(mech, counts, estimators, seed)


@st.cache_data(show_spinner=False, max_entries=128)
def _advise(mechanism: str, epsilon: float, params: tuple, counts: np.ndarray, estimators: tuple[str, ...],
            engine: str, seed: int, task: str, task_params: tuple, trials: int) -> advisor.AdvisorCheck:
    """The advisor on one simulated collection, with every candidate's actual error; keyed by every input
    including the seed (``task_params``: sorted (name, value) pairs, lists as tuples)."""
    mech = ldp.get_mechanism(mechanism, epsilon, int(counts.shape[0]), **dict(params))
    kwargs = {k: (list(v) if isinstance(v, tuple) else v) for k, v in task_params}
    return advisor.advise(mech, counts, task=task, trials=trials, seed=seed, candidates=list(estimators), engine=engine,
                      **kwargs)


def _all_timing(mech: str, eps: float, params: dict[str, Any], counts: np.ndarray, seed: int) -> dict[str, float]:
    """Seconds per collection of every estimator that applies (one cached measurement per configuration)."""
    mechanism = ldp.get_mechanism(mech, eps, int(counts.shape[0]), **params)
    names = tuple(e.name for e in ldp.ESTIMATORS if e.applies_to(mechanism))
    return _estimator_seconds(mech, eps, tuple(sorted(params.items())), counts, names, seed)


def _run(ctl: dict[str, Any], counts: np.ndarray, seconds: float) -> ldp.SimulationResult:
    plan = lab.chunk_plan(ctl["trials"])
    bar = st.progress(0.0, text="Simulating the collections…") if seconds > 1.0 and len(plan) > 1 else None
    parts = []
    done = 0
    for index, size in plan:
        parts.append(_chunk(ctl["mech"], ctl["eps"], tuple(sorted(ctl["params"].items())), counts,
                            tuple(ctl["estimators"]), ctl["engine"], ctl["seed"], index, size))
        done += size
        if bar is not None:
            bar.progress(done / ctl["trials"], text=f"Simulating the collections… {done} of {ctl['trials']} trials")
    if bar is not None:
        bar.empty()
    return lab.merge_results(parts)


# --------------------------------------------------------------------------- sidebar
def _default_estimators(data: common.Dataset, mech: str, eps: float, params: dict[str, Any],
                        users: int) -> tuple[list[str], list[str]]:
    """Every estimator, unless the first run would then take more than ~WARN_S s: the slowest (IBU with
    its paper defaults) are then left out of the preselection (``lab.preselect``). Only computed while
    the picker has no value yet (first visit without a URL)."""
    names = ldp.ESTIMATORS.names()
    if "pp_est" in st.session_state:
        return names, []
    try:
        seed = int(st.session_state.get("pp_seed", 0))
        counts = lab.draw_population(np.asarray(data.counts), users, seed)
        timing = _all_timing(mech, eps, params, counts, seed)
        return cost.preselect(timing, n=users, d=data.d, trials=int(st.session_state.get("pp_trials", 50)),
                             engine=str(st.session_state.get("pp_engine", "fast")), limit=WARN_S)
    except ldp.LDPError:  # reported where the run is validated
        return names, []


def _controls() -> dict[str, Any]:
    with st.sidebar:
        st.header("Data")
        with common.friendly_errors("this dataset"):
            data = common.dataset_picker("pp_data", default_sample="flights", default_column="dest")
        st.caption(f"{data.description} · {data.d:,} values")
        for note in data.notes:
            st.caption(note)
        st.header("Mechanism")
        mech = common.mechanism_picker("pp_mech", default="olh")
        eps = common.epsilon_slider("pp_eps")
        params = common.mechanism_params(mech, eps, key="pp_mech")
        st.header("Experiment")
        st.session_state.setdefault("pp_users", DEFAULT_USERS)
        users = st.number_input("Number of users n", min_value=10, max_value=MAX_USERS, step=100_000, key="pp_users",
                                help="The population: n users drawn once (seeded) from the dataset's distribution; "
                                     "every trial collects this same population again.")
        default, left_out = _default_estimators(data, mech, eps, params, int(users))
        estimators = common.estimator_picker("pp_est", mechanism=mech, default=default)
        if left_out:
            st.session_state["_pp_left_out"] = left_out
        st.session_state.setdefault("pp_trials", 50)
        trials = st.number_input("Trials (repeated collections)", min_value=2, max_value=MAX_TRIALS, step=10,
                                 key="pp_trials",
                                 help="Bias and variance are measured across trials; more trials = smaller standard "
                                      "errors (the paper uses 30 for errors and 5000 for Figs. 2–3).")
        st.session_state.setdefault("pp_engine", "fast")
        engine = st.radio("Engine", ["fast", "exact"], key="pp_engine", horizontal=True,
                          format_func=lambda e: {"fast": "fast (aggregate counts)", "exact": "exact (every user)"}[e],
                          help="fast samples the aggregated support counts directly (cost O(d) per trial whatever "
                               "n); exact randomizes every user's report (cost O(n·d) per trial).")
        st.session_state.setdefault("pp_seed", 0)
        seed = st.number_input("Seed", min_value=0, max_value=2**31 - 1, step=1, key="pp_seed",
                               help="Same seed and settings → same result.")
    return {"data": data, "mech": mech, "eps": float(eps), "params": params, "users": int(users),
            "estimators": list(estimators), "trials": int(trials), "engine": engine, "seed": int(seed)}


# --------------------------------------------------------------------------- bias and variance
def _bias_variance(result: ldp.SimulationResult, table: pd.DataFrame, style: dict[str, dict[str, str]]) -> None:
    mech = result.mechanism
    st.subheader("Bias and variance of every value")
    what = f"{mech.display_name}, ε = {mech.epsilon:g}, n = {result.n:,}, {result.trials} trials"
    summary = lab.bias_summary(table, z=Z)
    within = "; ".join(f"{name}: {s[f'values with |bias| ≤ {Z:g} SE (%)']:.0f}% of values" for name, s in
                       summary.items())
    fig = viz.bias_figure(table, title=f"Empirical bias per value — {what}", z=Z, **style)
    common.show_figure(fig, "pp_bias", table[["estimator", "rank", "value", "true frequency", "mean estimate", "bias",
                                              "bias standard error"]], description=(
        f"Lines: for each value, sorted from the most to the least frequent, the mean of the {result.trials} "
        f"estimates minus the true frequency, per estimator; shaded: ±{Z:g} standard errors of that mean. An "
        f"unbiased estimator stays within the band for about 95% of the values ({within})."))
    fig = viz.variance_figure(table, title=f"Variance per value across trials — {what}", **style)
    ratios = "; ".join(f"{name}: {s['variance / closed-form MI variance']:.2f}×" for name, s in summary.items())
    common.show_figure(fig, "pp_variance", table[["estimator", "rank", "value", "true frequency", "variance",
                                                  "closed-form MI variance"]], description=(
        "Lines (log scale): the variance of each value's estimate across trials, per estimator; dashed: the "
        "closed-form variance of matrix inversion, [f p*(1−p*) + (1−f) q*(1−q*)] / (n (p*−q*)²). Mean variance "
        f"relative to the closed form — {ratios}. Gaps are values whose estimate never changed (variance 0)."))


# --------------------------------------------------------------------------- query errors (fragment)
@st.fragment
def _queries(result: ldp.SimulationResult, table: pd.DataFrame, display: dict[str, str],
             style: dict[str, dict[str, str]], config: dict[str, Any]) -> None:
    """The live part: moving k or ρ reruns only this fragment (the simulation is not repeated)."""
    with common.friendly_errors("the query errors"):
        _queries_body(result, table, display, style, config)


def _queries_body(result: ldp.SimulationResult, table: pd.DataFrame, display: dict[str, str],
                  style: dict[str, dict[str, str]], config: dict[str, Any]) -> None:
    d = result.mechanism.d
    truth = result.true_frequencies
    st.subheader("Frequent values and set-value queries")
    k_max = min(d, K_MAX)
    if st.session_state.get("pp_k", 0) > k_max:
        st.session_state["pp_k"] = k_max
    st.session_state.setdefault("pp_k", min(10, k_max))
    st.session_state.setdefault("pp_rho", 10)
    c1, c2 = st.columns(2)
    k = int(c1.slider("k: the most frequent values queried", 1, k_max, key="pp_k",
                      help="Top-k MSE: the MSE over the k values with the highest true frequency (paper §V.E)."))
    rho = int(c2.select_slider("ρ: share of the domain in each queried set (%)", RHO_GRID, key="pp_rho",
                               format_func=lambda r: f"{r}%",
                               help=f"Set-value query: the summed frequency of a random set of ρ% of the values "
                                    f"(paper §V.D); {SET_QUERIES} random sets, the same for every estimator."))
    common.write_to_url(KEYS)
    m = lab.subset_size(d, rho / 100)
    errors = lab.task_errors(result.estimates, truth, k=k, rho=rho / 100, queries=SET_QUERIES, seed=result.seed or 0)
    what = f"{result.mechanism.display_name}, ε = {result.mechanism.epsilon:g}, {result.trials} trials"

    curve = lab.top_k_curve_table(result.estimates, truth, range(1, k_max + 1), display)
    fig = viz.top_k_figure(curve, k=k, title=f"Top-k MSE against k — {what}", **style)
    at_k = "; ".join(f"{display[e]}: {np.mean(v):.2e}" for e, v in errors["topk"].items())
    common.show_figure(fig, "pp_topk", curve, description=(
        f"Lines (log scale): the MSE over the k most frequent values, averaged over trials (±1 SE), for k = 1 to "
        f"{k_max}; dotted: the chosen k = {k} ({at_k})."))

    expected = lab.set_value_curve_table(result.estimates, truth, RHO_GRID, display, seed=result.seed or 0)
    sampled = pd.DataFrame([{"estimator": display[e], "ρ (%)": float(rho), "set size": m,
                             "MSE": float(np.mean(v)), "SE": float(np.std(v, ddof=1) / np.sqrt(len(v)))}
                            for e, v in errors["set"].items()])
    fig = viz.set_value_figure(expected, sampled, rho=rho, title=f"Set-value query MSE against ρ — {what}",
                               **style)
    at_rho = "; ".join(f"{r['estimator']}: {r['MSE']:.2e}" for _, r in sampled.iterrows())
    common.show_figure(fig, "pp_set", pd.concat([expected.assign(source="average over all sets"),
                                                 sampled.assign(source=f"{SET_QUERIES} random sets")]),
                       description=(
        f"Lines (log scale): the MSE of the summed frequency of a set holding ρ% of the {d} values, averaged over all "
        f"such sets (closed form; for Post-Pos, whose clipped answers have none, over 200 random sets) and over "
        f"trials; diamonds (±1 SE): {SET_QUERIES} random sets of {m} values at the chosen ρ = {rho}% ({at_rho})."))

    st.subheader("Summary: which estimator for which task")
    names = {"full": "Full domain (MSE)", "topk": f"Top-{k} values (MSE)", "set": f"Set-value, ρ = {rho}% (MSE)"}
    extra = {e: lab.bias_summary(table[table["estimator"] == display[e]], z=Z)[display[e]] for e in result.estimates}
    short = {"full": "full domain", "topk": f"top-{k}", "set": f"set ρ = {rho}%"}
    gains = lab.comparison_columns(errors, n=result.n, mechanism=result.mechanism, truth=truth, task_names=short)
    extra = {e: {**gains[e], **extra[e]} for e in result.estimates}
    summary = lab.summary_table(errors, extra=extra, display=display, task_names=names)
    fmt = {c: st.column_config.NumberColumn(format="%.3e") for c in summary.columns
           if c != "estimator" and "(%)" not in c and "/" not in c and "n′" not in c}
    fmt.update({c: st.column_config.NumberColumn(format="%.1f") for c in summary.columns if c.startswith("Γ")})
    fmt["equivalent users n′ (full domain)"] = st.column_config.NumberColumn(format="%.0f")
    st.dataframe(summary, key="pp_summary", hide_index=True, column_config=fmt)
    best = lab.best_per_task(errors, display=display, task_names=names, z=Z)
    st.dataframe(best, key="pp_best", hide_index=True,
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

    per_value = table.copy()
    common.download_buttons(per_value, {**common.config_of(KEYS), **config}, key="pp_download",
                            name="ldp-postprocessing")
    st.download_button("Download the summary (CSV)", summary.to_csv(index=False).encode(),
                       "ldp-postprocessing-summary.csv", "text/csv", key="pp_download_summary")


# --------------------------------------------------------------------------- advisor (fragment)
@st.fragment
def _advisor(ctl: dict[str, Any], counts: np.ndarray, data: common.Dataset, timing: dict[str, float]) -> None:
    """The advisor: changing its task or parameters reruns only this fragment."""
    with common.friendly_errors("the advisor"):
        _advisor_body(ctl, counts, data, timing)


def _task_params(task: str, d: int, data: common.Dataset) -> dict[str, Any]:
    """The chosen task's parameter widgets; returns the parameters for ``ldp.evaluation.tasks``."""
    if task in ("topk", "topk-precision"):
        k_max = min(d, K_MAX)
        if st.session_state.get("pp_adv_k", 0) > k_max:
            st.session_state["pp_adv_k"] = k_max
        st.session_state.setdefault("pp_adv_k", min(10, k_max))
        k = st.slider("k: the most frequent values", 1, k_max, key="pp_adv_k",
                      help="Your query is about the k values with the highest true frequency (paper §V.E).")
        return {"k": int(k)}
    if task == "set":
        st.session_state.setdefault("pp_adv_rho", 10)
        rho = st.select_slider("ρ: share of the domain in each queried set (%)", RHO_GRID, key="pp_adv_rho",
                               format_func=lambda r: f"{r}%",
                               help=f"{ADVISOR_QUERIES} random sets of ρ% of the values, the same for every "
                                    "estimator (paper §V.D).")
        return {"rho": int(rho) / 100, "queries": ADVISOR_QUERIES}
    if task == "threshold":
        st.session_state.setdefault("pp_adv_threshold", round(1.0 / d, 4) if d <= 10_000 else 0.0001)
        thr = st.number_input("Threshold (fraction of users)", min_value=0.0, max_value=1.0, step=0.001,
                              format="%.4f", key="pp_adv_threshold",
                              help="A value is reported when its estimate is above this frequency; the error counts "
                                   "false positives plus missed values.")
        return {"threshold": float(thr)}
    if task == "subsets":
        labels = [str(v) for v in data.labels]
        kept = [v for v in st.session_state.get("pp_adv_group", []) if v in labels]
        st.session_state["pp_adv_group"] = kept or labels[: min(3, len(labels))]
        group = st.multiselect("Values in the group", labels, key="pp_adv_group",
                               help="Your query is the summed frequency of these values (e.g. a category, §V.D "
                                    "Fig. 8).")
        if not group:
            raise ldp.LDPError("pick at least one value for the group")
        position = {v: i for i, v in enumerate(labels)}
        return {"groups": [sorted(position[v] for v in group)]}
    return {}


def _advisor_body(ctl: dict[str, Any], counts: np.ndarray, data: common.Dataset, timing: dict[str, float]) -> None:
    mech = ldp.get_mechanism(ctl["mech"], ctl["eps"], data.d, **ctl["params"])
    st.subheader("Advisor: which estimator for your query?")
    st.caption("In a real collection you only hold the reports. The advisor (consistency paper §V.D) estimates the "
               "distribution from them, makes it consistent with Norm-Sub, uses it as a synthetic ground truth, "
               "re-simulates the collection many times and recommends the estimator with the lowest expected error "
               "for your query. Here the reports come from one simulated collection of the configuration in the "
               "sidebar; the candidates are the estimators chosen there. Because this is a simulator, each "
               "candidate's actual error on those reports against the true distribution is shown next to the "
               "advisor's expectation.")
    st.session_state.setdefault("pp_adv_task", "mse")
    st.session_state.setdefault("pp_adv_trials", ADVISOR_TRIALS)
    c1, c2, c3 = st.columns([2, 2, 1])
    with c1:
        task = st.selectbox("Your query", ADVISOR_TASKS, key="pp_adv_task",
                            format_func=lambda t: QUERY_TASKS[t].display_name,
                            help="What you will ask of the estimate decides which estimator is best (§V).")
        st.caption(QUERY_TASKS[task].description)
    with c2:
        task_params = _task_params(task, data.d, data)
    with c3:
        trials = int(st.number_input("Advisor trials", min_value=2, max_value=ADVISOR_MAX_TRIALS, step=5,
                                     key="pp_adv_trials",
                                     help="Re-simulations of the synthetic dataset; more = smaller standard errors."))
    common.write_to_url(KEYS)
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
                 tuple(candidates), ctl["engine"], ctl["seed"], task, repr(task_params), trials)
    if seconds > LIVE_S and st.session_state.get("_pp_adv_ran") != signature:
        if not st.button(f"Ask the advisor (about {seconds:.0f} s)", key="pp_adv_run"):
            st.info("The advisor takes a while for this configuration, so it runs when you press the button.")
            return
    frozen = tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in task_params.items()))
    frozen = tuple((k, tuple(tuple(g) for g in v) if k == "groups" else v) for k, v in frozen)
    with st.spinner("The advisor is re-simulating the collection…"):
        check = _advise(ctl["mech"], ctl["eps"], tuple(sorted(ctl["params"].items())), counts, tuple(candidates),
                        ctl["engine"], ctl["seed"], task, frozen, trials)
    st.session_state["_pp_adv_ran"] = signature
    _advisor_result(check, mech, trials)


def _advisor_result(check: advisor.AdvisorCheck, mech: Any, trials: int) -> None:
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
    st.markdown(check.verdict())
    label = {"topk-precision": "top-k precision (share of the k values, higher is better)",
             "threshold": "misclassified values (count)"}.get(rec.task, "error (MSE, fraction²)")
    fig = viz.advisor_figure(check.table, title=f"Advisor: expected vs actual — {rec.task_label}, "
                             f"{mech.display_name}, ε = {mech.epsilon:g}", value_label=label)
    shown = check.table.drop(columns=["estimator"]).rename(columns={"display name": "estimator"})
    common.show_figure(fig, "pp_adv_fig", shown[["estimator", "expected", "standard error", "actual"]], description=(
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
    st.download_button("Download the advisor's table (CSV)", shown.to_csv(index=False).encode(),
                       "ldp-advisor.csv", "text/csv", key="pp_adv_download")


# --------------------------------------------------------------------------- page
def main() -> None:
    common.restore_from_url(KEYS)
    _sanitize()
    st.title("Post-processing lab")
    st.caption("Matrix inversion is unbiased but can be negative and need not sum to one; post-processing makes the "
               "estimate a distribution at the price of bias. Repeat the same collection many times and see, value "
               "by value, what each estimator trades — and which one wins for which query (Wang et al., NDSS 2020, "
               "§V).")
    ctl = _controls()
    common.write_to_url(KEYS)
    data: common.Dataset = ctl["data"]
    if not ctl["estimators"]:
        st.error("Choose at least one estimator in the sidebar (under 'Estimators / post-processing').")
        st.stop()
    with common.friendly_errors("this mechanism"):
        ldp.get_mechanism(ctl["mech"], ctl["eps"], data.d, **ctl["params"])  # validates before the run
        counts = lab.draw_population(np.asarray(data.counts), ctl["users"], ctl["seed"])
    cells = ctl["trials"] * data.d * len(ctl["estimators"])
    if cells > MAX_CELLS:
        st.error(f"{ctl['trials']:,} trials × {data.d:,} values × {len(ctl['estimators'])} estimators is more than "
                 f"this page keeps in memory: use at most {MAX_CELLS // (data.d * len(ctl['estimators'])):,} trials, "
                 "or a smaller domain.")
        st.stop()
    with common.friendly_errors("this configuration"):
        all_timing = _all_timing(ctl["mech"], ctl["eps"], ctl["params"], counts, ctl["seed"])
        timing = {e: all_timing.get(e, 0.0) for e in ctl["estimators"]}
    seconds = cost.estimated_seconds(ctl["users"], data.d, ctl["trials"], ctl["engine"], sum(timing.values()))
    left_out = [e for e in st.session_state.get("_pp_left_out", []) if e in all_timing and
                e not in ctl["estimators"]]
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
                 tuple(ctl["estimators"]), ctl["trials"], ctl["engine"], ctl["seed"], hash(counts.tobytes()))
    if seconds > LIVE_S and st.session_state.get("_pp_ran") != signature:
        if not st.button(f"Run {ctl['trials']} trials (about {seconds:.0f} s)", key="pp_run", type="primary"):
            st.info("This configuration takes a while, so it runs when you press the button.")
            st.stop()
    with common.friendly_errors("this configuration"):
        result = _run(ctl, counts, seconds)
    st.session_state["_pp_ran"] = signature

    display = {e: ldp.ESTIMATORS.get(e).display_name for e in result.estimates}
    colors, dashes = viz.style_maps([e.display_name for e in ldp.ESTIMATORS])  # stable look per estimator
    style = {"colors": colors, "dashes": dashes}
    with common.friendly_errors("the bias and variance"):
        table = lab.per_value_table(result, data.labels, display)
        _bias_variance(result, table, style)
    config = {"dataset": data.name, "dataset_description": data.description, "d": data.d, "users_simulated": result.n,
              "mechanism_parameters": dict(result.mechanism.params), "set_value_queries": SET_QUERIES,
              "elapsed_s": result.elapsed_s}
    _queries(result, table, display, style, config)
    _advisor(ctl, counts, data, all_timing)


main()
