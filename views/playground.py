"""Playground — the landing page: one LDP collection of a dataset, the estimates against the truth,
their errors, and what ε means for one user.

Wiring only: data from ``views.common.dataset_picker``, the simulation from ``ldp.simulate``, intervals
from ``ldp.evaluation.uncertainty``, the attacker from ``ldp.studies.attacks`` and every figure, table and sentence from
``ldp.viz.estimates``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import streamlit as st

import ldp
from ldp.data import list_samples
from ldp.data.synthetic import SYNTHETIC
from ldp.evaluation.uncertainty import coverage, simultaneous_halfwidth, value_intervals
from ldp.studies.attacks import attack_success, baseline_success, plausible_deniability_ratio
from ldp.studies.comparison import draw_population
from ldp.viz import estimates as viz
from views import common

# Widget keys mirrored into the URL (shareable links); dataset_picker's keys start with "data_".
KEYS = ["data_source", "data_sample", "data_column", "data_bins", "data_lo", "data_hi", "data_synthetic", "data_d",
        "data_zipf_s",
        "mech", "mech_eps1", "eps", "users", "whole", "est", "engine", "seed", "conf", "topk", "topk_only",
        "sort_freq"]
CONF_LEVELS = [0.90, 0.95, 0.99]
MAX_USERS = 10**9
DEFAULT_USERS = 1_000_000
# The exact engine randomizes every user: about 5 ns per (user × value) on the slowest mechanisms
# (measured: SHE, n = 10^6, d = 1024 → 4 s on 2 cores). Warn above ~10 s, refuse above ~5 minutes.
EXACT_SECONDS_PER_CELL = 5e-9
EXACT_WARN_S = 10.0
EXACT_BLOCK_S = 300.0


# --------------------------------------------------------------------------- URL values
def _sanitize() -> None:
    """Coerce values restored from a (possibly hand-edited) URL so the widgets accept them."""
    ss = st.session_state
    coerce = common.coerce_state

    coerce("eps", float, lambda v: v > 0)
    coerce("mech_eps1", float, lambda v: v > 0)
    coerce("users", lambda v: int(min(max(int(float(v)), 10), MAX_USERS)))
    coerce("seed", lambda v: int(min(max(int(float(v)), 0), 2**31 - 1)))
    coerce("topk", lambda v: max(int(float(v)), 1))
    coerce("data_bins", lambda v: int(min(max(int(float(v)), 2), 512)))
    coerce("data_d", lambda v: int(min(max(int(float(v)), 2), 2048)))
    coerce("data_zipf_s", lambda v: round(min(max(float(v), 0.1), 3.0), 1))
    coerce("engine", str, lambda v: v in ("fast", "exact"))
    coerce("data_source", str, lambda v: v in ("Sample data", "Synthetic", "Upload"))
    coerce("data_synthetic", str, lambda v: v in SYNTHETIC)
    coerce("data_sample", str, lambda v: v in {s["name"] for s in list_samples()})
    coerce("mech", str)
    coerce("conf", lambda v: min(CONF_LEVELS, key=lambda c: abs(c - float(v))))
    for key in ("whole", "topk_only", "sort_freq"):
        coerce(key, lambda v: v if isinstance(v, bool) else str(v).lower() in ("true", "1"))
    if "est" in ss:  # a one-element list comes back from the URL as a bare string
        value = ss["est"]
        ss["est"] = [value] if isinstance(value, str) else [str(v) for v in value] if isinstance(value, list) else []


# --------------------------------------------------------------------------- cached computations
@st.cache_data(show_spinner=False, max_entries=48)
def _simulate(mechanism: str, epsilon: float, params: tuple, data_counts: np.ndarray, users: int | None,
              estimators: tuple[str, ...], engine: str, seed: int) -> ldp.SimulationResult:
    """One collection; keyed by every input including the seed. ``users=None``: the data's own counts."""
    mech = ldp.get_mechanism(mechanism, epsilon, int(data_counts.shape[0]), **dict(params))
    counts = data_counts if users is None else draw_population(data_counts, users, seed)
    return ldp.simulate(mech, counts, estimators=list(estimators), engine=engine, seed=seed, metrics=("mse",))


@st.cache_data(show_spinner=False, max_entries=64)
def _attack(mechanism: str, epsilon: float, params: tuple, prior: np.ndarray) -> tuple[float | None, float]:
    mech = ldp.get_mechanism(mechanism, epsilon, int(prior.shape[0]), **dict(params))
    return attack_success(mech, prior), baseline_success(prior)


# --------------------------------------------------------------------------- sidebar
def _controls() -> dict[str, Any]:
    with st.sidebar:
        st.header("Data")
        with common.friendly_errors("this dataset"):
            data = common.dataset_picker("data")
        source = st.session_state.get("data_source")
        synthetic = source == "Synthetic"
        st.caption(f"{data.description} · {data.d:,} values"
                   + ("" if synthetic else f" · {data.rows:,} rows"))
        for note in data.notes:
            st.caption(note)
        if data.kind == "categorical" and source != "Upload":  # uploads get their preview from the picker
            with st.expander(f"Domain preview ({data.d:,} values)"):
                st.dataframe(viz.domain_preview(data.labels, data.counts, share=synthetic), hide_index=True,
                             key="pg_domain")
        st.header("Mechanism")
        mech = common.mechanism_picker("mech")
        eps = common.epsilon_slider("eps")
        params = common.mechanism_params(mech, eps, key="mech")
        st.header("Collection")
        if synthetic and st.session_state.get("whole"):
            st.session_state["whole"] = False
        st.session_state.setdefault("whole", False)
        whole = st.toggle("Whole dataset (its real counts)", key="whole", disabled=synthetic,
                          help="Collect exactly the dataset's rows instead of sampling users from its distribution. "
                               "Not available for synthetic data, which is a distribution, not a table.")
        whole = bool(whole) and not synthetic
        st.session_state.setdefault("users", DEFAULT_USERS)
        users = st.number_input("Number of users n", min_value=10, max_value=MAX_USERS, step=100_000, key="users",
                                disabled=whole, help="Users are drawn from the dataset's distribution.")
        estimators = common.estimator_picker("est", mechanism=mech)
        st.session_state.setdefault("engine", "fast")
        engine = st.radio("Engine", ["fast", "exact"], key="engine", horizontal=True,
                          format_func=lambda e: {"fast": "fast (aggregate counts)", "exact": "exact (every user)"}[e],
                          help="fast samples the aggregated support counts directly (cost O(d) whatever n); "
                               "exact randomizes every user's report (cost O(n·d)). Same seed, same distribution.")
        st.session_state.setdefault("seed", 0)
        seed = st.number_input("Seed", min_value=0, max_value=2**31 - 1, step=1, key="seed",
                               help="Same seed and settings → same result.")
    return {"data": data, "mech": mech, "eps": float(eps), "params": params, "whole": whole,
            "users": int(users), "estimators": estimators, "engine": engine, "seed": int(seed),
            "synthetic": synthetic}


# --------------------------------------------------------------------------- results (fragment)
@st.fragment
def _results(result: ldp.SimulationResult, data: common.Dataset, chosen: list[str], config: dict) -> None:
    """The live part: moving a display control (level, k, top-k, sort) reruns only this fragment."""
    with common.friendly_errors("the results"):
        _results_body(result, data, chosen, config)


def _results_body(result: ldp.SimulationResult, data: common.Dataset, chosen: list[str], config: dict) -> None:
    numerical = data.kind == "numerical" and data.edges is not None
    d = data.d
    c1, c2, c3, c4 = st.columns([1.3, 1, 1.1, 1.1])
    st.session_state.setdefault("conf", 0.95)
    level = float(c1.radio("Confidence level", CONF_LEVELS, key="conf", horizontal=True,
                           format_func=lambda c: f"{c:.0%}",
                           help="For the per-value intervals (error bars) and the simultaneous band."))
    if st.session_state.get("topk", 0) > d:
        st.session_state["topk"] = d
    st.session_state.setdefault("topk", min(10, d))
    k = int(c2.number_input("k (top values)", min_value=1, max_value=d, step=1, key="topk",
                            help="Used by the top-k MSE and by 'Top-k values only'."))
    st.session_state.setdefault("topk_only", d > 200)
    only_top = c3.checkbox("Top-k values only", key="topk_only",
                           help="Large domains: plot only the k most frequent values (zoom also works).")
    st.session_state.setdefault("sort_freq", False)
    sort = c4.checkbox("Sort by frequency", key="sort_freq", disabled=numerical,
                       help="Categorical data: order the values by true frequency, most common first.")
    sort = bool(sort) and not numerical
    common.write_to_url(KEYS)

    mech = result.mechanism
    true = result.true_frequencies
    variances = result.variance_per_value()
    half = value_intervals(variances, level)
    band = simultaneous_halfwidth(variances, level)
    mi = result.estimates["mi"][0]
    covered = coverage(true, mi, half)
    eps1 = mech.params.get("epsilon_1") if mech.collection == "longitudinal" else None
    st.markdown(viz.readout_text(mech.display_name, result.n, mech.epsilon, math.sqrt(float(np.mean(variances))), d,
                                 covered=covered, level=level, epsilon_1=eps1))

    names = {e: ldp.ESTIMATORS.get(e).display_name for e in chosen}
    mi_name = ldp.ESTIMATORS.get("mi").display_name
    idx = viz.display_order(true, top_k=k if only_top else None, sort_by_frequency=sort)
    labels = np.asarray(data.labels, dtype=object)
    centres = viz.bin_centres(data.edges) if numerical else None
    shown = {names[e]: result.estimates[e][0][idx] for e in chosen}
    pct = f"{level:.0%}"
    n_text = viz.format_users(result.n)
    x_title = (f"{data.axis_title()} — bin centre" if numerical else data.axis_title())
    fig = viz.histogram_figure(
        centres[idx] if numerical else list(labels[idx]), true[idx], shown, half[idx], band[idx],
        title=(f"True vs estimated frequencies — {mech.display_name}, ε = {mech.epsilon:g}, n = {n_text}"
               + (f" (top {min(k, d)} values)" if only_top else "")),
        x_title=x_title, interval_for=mi_name, level=level,
        widths=np.diff(data.edges)[idx] if numerical else None, hover_labels=list(labels[idx]))
    table = viz.results_table(labels[idx], true[idx], {f"{n} estimate": v for n, v in shown.items()}, half[idx],
                              band[idx], level=level, centres=centres[idx] if centres is not None else None)
    bars = (f" error bars on the {mi_name} markers: {pct} intervals from the closed-form variance;"
            if "mi" in chosen else "")
    common.show_figure(fig, "pg_hist", table, description=(
        f"Bars: the true frequency of each of the {len(idx):,} values shown; markers: each estimator's estimate;"
        f"{bars} shaded boxes: the {pct} simultaneous band, inside which every {mi_name} estimate falls at once "
        f"with probability ≥ {pct}."))
    if "mi" not in chosen:
        st.caption(f"Add {mi_name} to the estimators to see the per-value intervals (they hold for the unbiased "
                   "matrix-inversion estimate).")

    full = {names[e]: result.estimates[e][0] for e in chosen}
    unnormalized = [names[e] for e in chosen if not ldp.ESTIMATORS.get(e).consistent]
    cdf = viz.cdf_figure(true, full, title=f"Cumulative distribution — true vs estimated ({mech.display_name}, "
                                           f"ε = {mech.epsilon:g})",
                         x_title=data.axis_title() if numerical else f"{data.axis_title()} (domain order)",
                         labels=data.labels, edges=data.edges if numerical else None, unnormalized=unnormalized)
    order = "" if numerical else " Categorical values are taken in the domain's order, whatever the histogram's sort."
    note = (f" {', '.join(unnormalized)}: cumulative sums of unnormalized estimates, which can dip (negative "
            "estimates) or end away from 1." if unnormalized else "")
    common.show_figure(cdf, "pg_cdf", viz.cdf_table(true, full, data.labels), description=(
        f"Lines: cumulative frequency up to each value, the truth (thick grey) and each estimator; the whole domain "
        f"is shown.{order}{note}"))

    st.subheader("Errors of this run")
    metrics = viz.metrics_frame(true, full, k=k, theoretical_variance=result.theoretical_variance,
                                edges=data.edges if numerical else None, unit=data.unit)
    st.dataframe(metrics, key="pg_metrics", column_config={c: st.column_config.NumberColumn(format="%.3e")
                                                           for c in metrics.columns})
    st.caption("One collection (one trial), so errors vary from seed to seed; the theoretical MSE of MI is the "
               "closed-form variance averaged over the values, i.e. the MSE that MI's error averages to.")

    csv = viz.results_table(data.labels, true, {f"{n} estimate": v for n, v in full.items()}, half, band,
                            level=level, centres=centres)
    common.download_buttons(csv, {**common.config_of(KEYS), **config}, key="pg_download", name="ldp-playground")


# --------------------------------------------------------------------------- privacy side
def _privacy(mechanism: ldp.Mechanism, params: tuple, prior: np.ndarray) -> None:
    st.subheader("What ε means for one user")
    longitudinal = mechanism.collection == "longitudinal"
    eps1 = mechanism.params.get("epsilon_1") if longitudinal else None
    with common.friendly_errors("the attack computation"):
        success, baseline = _attack(mechanism.name, mechanism.epsilon, params, prior)
    c1, c2, c3 = st.columns(3)
    if longitudinal:
        c1.metric("Ratio per report e^ε1", f"{plausible_deniability_ratio(eps1):.2f}×",
                  help=f"Over all reports of the same value the bound is e^ε∞ = {math.exp(mechanism.epsilon):.2f}×.")
    else:
        c1.metric("Plausible-deniability ratio e^ε", f"{plausible_deniability_ratio(mechanism.epsilon):.2f}×",
                  help="The most any report can favour one true value over another.")
    if success is None:
        c2.metric("Bayes attacker guesses right", "not computed", help="SHE's reports are continuous.")
    else:
        c2.metric("Bayes attacker guesses right", f"{success:.1%}", delta=f"{(success - baseline) * 100:+.1f} points",
                  delta_color="off", help="Best possible guess of a user's true value from one report, knowing the "
                                          "data distribution.")
    c3.metric("Guessing without any report", f"{baseline:.1%}", help="Always guessing the most common value.")
    st.markdown(viz.likelihood_ratio_text(mechanism.epsilon, epsilon_1=eps1) + " " + viz.attack_text(success, baseline))
    if longitudinal:
        st.caption("Longitudinal mechanisms: ε∞ bounds what all of a user's reports about the same value reveal "
                   "together (the memoized first step); ε1 bounds one report. The attacker above sees one report.")


# --------------------------------------------------------------------------- page
def main() -> None:
    common.restore_from_url(KEYS)
    _sanitize()
    st.title("Playground")
    st.caption("How wrong is a histogram collected under local differential privacy? Pick data, a mechanism and "
               "ε in the sidebar: every user randomizes their value, the server estimates the histogram, and the "
               "estimates are compared with the truth. Smaller ε = more private = noisier.")
    ctl = _controls()
    common.write_to_url(KEYS)
    data: common.Dataset = ctl["data"]
    if not ctl["estimators"]:
        st.error("Choose at least one estimator in the sidebar (under 'Estimators / post-processing').")
        st.stop()
    users = None if ctl["whole"] else ctl["users"]
    n = data.rows if users is None else users
    if ctl["engine"] == "exact":
        seconds = n * data.d * EXACT_SECONDS_PER_CELL
        if seconds > EXACT_BLOCK_S:
            st.error(f"The exact engine would randomize {n:,} users over {data.d:,} values (about "
                     f"{seconds / 60:.0f} minutes or more): use the fast engine, or fewer users or values.")
            st.stop()
        if seconds > EXACT_WARN_S:
            st.warning(f"The exact engine randomizes every user: this run may take about {seconds:.0f} s. The fast "
                       "engine gives the same distribution of results in milliseconds.")
    cls = ldp.MECHANISMS.get(ctl["mech"])
    if ctl["engine"] == "fast" and not cls.fast_engine_exact:
        st.caption(f"The fast engine for {cls.display_name} draws the support counts with the exact mean and "
                   "covariance (a Gaussian approximation); choose exact to randomize every user.")
    params = tuple(sorted(ctl["params"].items()))
    estimators = tuple(dict.fromkeys(["mi", *ctl["estimators"]]))  # MI always runs: intervals and coverage
    with common.friendly_errors("this configuration"), st.spinner("Simulating the collection…"):
        result = _simulate(ctl["mech"], ctl["eps"], params, np.asarray(data.counts, dtype=np.int64), users,
                           estimators, ctl["engine"], ctl["seed"])
    config = {"dataset": data.name, "dataset_description": data.description, "d": data.d, "users_simulated":
              result.n, "mechanism_parameters": {k: v for k, v in result.mechanism.params.items()}}
    _results(result, data, ctl["estimators"], config)
    _privacy(result.mechanism, params, data.frequencies)


main()
