"""Playground — the landing page: one LDP collection of a dataset, the estimates against the truth,
their errors, and what ε means for one user.

Wiring and text only: the controls are declared below; data from ``ldp.studies.datasets`` (through
``views.common.dataset_picker``), the collection from ``ldp.studies.configuration.simulate_population`` (what
``ldp simulate --config`` re-runs), run-time estimates from ``ldp.studies.cost``, intervals from
``ldp.evaluation.uncertainty``, the attacker from ``ldp.studies.attacks`` and every figure, table and sentence from
``ldp.viz.estimates``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import streamlit as st

import ldp
from ldp.evaluation.uncertainty import estimate_intervals
from ldp.studies import cost
from ldp.studies.attacks import attack_success, baseline_success, plausible_deniability_ratio
from ldp.studies.configuration import SimulationConfiguration, simulate_population
from ldp.studies.verdicts import verdict
from ldp.viz import estimates as viz
from views import common, controls
from views.controls import Control, render

# --------------------------------------------------------------------------- controls (each stated once)
DATA = common.data_controls("data")
MECH = common.mechanism_controls("mech", eps_key="eps")
WHOLE = Control("whole", "toggle", "Users = the data's own rows", depends=lambda origin: {"default": origin == "table"},
                help="On: every row of the data is one user, so the accuracy is that of these data as they are (the "
                     "default for an uploaded file). Off: simulate n users drawn from the data's distribution. Not "
                     "available for synthetic data, which is a distribution, not a table.")
USERS = Control("users", "number_input", "Number of users n", 1_000_000, min_value=10, max_value=10**9,
                step=100_000, help="Users are drawn from the dataset's distribution.")
ESTIMATORS = common.estimator_controls("est")
ENGINE = common.engine_control("engine")
SEED = common.seed_control("seed")
LEVEL = Control("conf", "radio", "Confidence level", 0.95, options=[0.90, 0.95, 0.99], horizontal=True,
                format_func=lambda c: f"{c:.0%}",
                help="For the per-value intervals (error bars) and the simultaneous band.")
TOPK = Control("topk", "number_input", "k (top values)", min_value=1, step=1,
               depends=lambda d: {"max_value": d, "default": min(10, d)},
               help="Used by the top-k MSE and by 'Top-k values only'.")
TOPK_ONLY = Control("topk_only", "checkbox", "Top-k values only", depends=lambda d: {"default": d > 200},
                    help="Large domains: plot only the k most frequent values (zoom also works).")
SORT = Control("sort_freq", "checkbox", "Sort by frequency", False,
               help="Categorical data: order the values by true frequency, most common first.")
CONTROLS = (*DATA, *MECH, WHOLE, USERS, *ESTIMATORS, ENGINE, SEED, LEVEL, TOPK, TOPK_ONLY, SORT)

# The exact engine randomizes every user (ldp.studies.cost): warn above ~10 s, refuse above ~5 minutes.
EXACT_WARN_S = 10.0
EXACT_BLOCK_S = 300.0


def simulation_block(data: common.Dataset, ctl: dict[str, Any], params: tuple, users: int | None,
                     estimators: tuple[Any, ...]) -> dict[str, Any]:
    """The downloaded configuration's ``simulation`` block: what ``ldp simulate --config FILE`` re-runs."""
    specs = [(e, {}) if isinstance(e, str) else (e[0], dict(e[1])) for e in estimators]
    return SimulationConfiguration(source=data.source, mechanism=ctl["mech"], epsilon=float(ctl["eps"]),
                                   params=dict(params), users=users, estimators=tuple(specs), engine=ctl["engine"],
                                   seed=int(ctl["seed"])).to_dict()


# --------------------------------------------------------------------------- cached computations
@st.cache_data(show_spinner=False, max_entries=48)
def _simulate(mechanism: str, epsilon: float, params: tuple, data_counts: np.ndarray, users: int | None,
              estimators: tuple[Any, ...], engine: str, seed: int) -> ldp.SimulationResult:
    """One collection; keyed by every input including the seed. ``users=None``: the data's own counts. The library
    function ``ldp simulate --config`` runs too, so a downloaded configuration re-runs to these numbers."""
    return simulate_population(mechanism, epsilon, dict(params), data_counts, users,
                               common.build_estimators(estimators), engine=engine, seed=seed, metrics=("mse",))


@st.cache_data(show_spinner=False, max_entries=64)
def _attack(mechanism: str, epsilon: float, params: tuple, prior: np.ndarray) -> tuple[float | None, float]:
    mech = ldp.get_mechanism(mechanism, epsilon, int(prior.shape[0]), **dict(params))
    return attack_success(mech, prior), baseline_success(prior)


# --------------------------------------------------------------------------- sidebar
def _controls() -> dict[str, Any]:
    presenting = common.presenting()
    if presenting:  # the key controls in one row of the main panel, right above the chart
        row = st.columns([1.2, 1.6, 1])
    with st.sidebar:
        data = common.data_section(DATA)
        synthetic = data.origin == "synthetic"
        if data.kind == "categorical" and data.origin != "table":  # the upload picker shows its own
            # drawn only while open: a table in the sidebar made the browser load and start its table code on
            # the first page's way (cold start 2.91 -> 2.77 s, median of 7, benchmarks/bench_dashboard.py)
            preview = common.lazy_expander(f"Domain preview ({data.d:,} values)", "pg_domain_open")
            if preview.open:
                preview.dataframe(viz.domain_preview(data.labels, data.counts, share=synthetic), hide_index=True,
                                  key="pg_domain")
        if not presenting:
            st.header("Mechanism")
            mech, eps, params = common.mechanism_picker(MECH)
        st.header("Collection")
        whole = bool(render(WHOLE, disabled=synthetic, origin=data.origin)) and not synthetic
        if not presenting:
            users = int(render(USERS, disabled=whole))
    if presenting:
        mech = render(MECH.mechanism, row[0])
        eps = float(render(MECH.epsilon, row[1]))
        users = int(render(USERS, row[2], disabled=whole))
        with st.sidebar:
            params = common.mechanism_extras(MECH, mech, eps)
    with st.sidebar:
        estimators, estimator_params = common.estimator_picker(ESTIMATORS, mechanism=mech)
        engine = render(ENGINE)
        seed = int(render(SEED))
    return {"data": data, "mech": mech, "eps": eps, "params": params, "whole": whole, "users": users,
            "estimators": estimators, "estimator_params": estimator_params, "engine": engine, "seed": seed}


# --------------------------------------------------------------------------- results (fragment)
@st.fragment
def _results(result: ldp.SimulationResult, data: common.Dataset, chosen: list[str], config: dict) -> None:
    """The live part: moving a display control (level, k, top-k, sort) reruns only this fragment."""
    with common.friendly_errors("the results"):
        _results_body(result, data, chosen, config)


def _results_body(result: ldp.SimulationResult, data: common.Dataset, chosen: list[str], config: dict) -> None:
    numerical = data.numerical
    d = data.d
    chart_place = common.main_chart_slot()  # on a projector the chart comes first, right under the key controls
    c1, c2, c3, c4 = st.columns([1.3, 1, 1.1, 1.1])
    level = float(render(LEVEL, c1))
    k = int(render(TOPK, c2, d=d))
    only_top = bool(render(TOPK_ONLY, c3, d=d))
    sort = bool(render(SORT, c4, disabled=numerical)) and not numerical

    mech = result.mechanism
    true = result.true_frequencies
    mi_first = result.estimates["mi"][0]
    per_value = estimate_intervals(mech, mi_first, result.n, level)
    simultaneous = estimate_intervals(mech, mi_first, result.n, level, simultaneous=True)
    intervals, band = (per_value.low, per_value.high), (simultaneous.low, simultaneous.high)
    covered = float(np.mean(per_value.covers(true)))
    eps1 = mech.params.get("epsilon_1") if mech.collection == "longitudinal" else None
    with common.friendly_errors("the verdict"):
        plain = verdict(mech, mi_first, result.n, level, intervals=per_value)  # the intervals drawn above
    presenting = common.presenting()
    readout = st.container()  # above the chart, or below it on a projector (the chart first, its verdict under it)

    _parameters_in_use(mech)
    full, mi_name = _histogram(result, data, chosen, level, (k, only_top, sort), (intervals, band, simultaneous),
                               chart_place)
    target = st.container() if presenting else readout
    (target.warning if plain.swamped else target.markdown)(plain.sentence(mech.display_name, mech.epsilon, eps1))
    target.caption(viz.population_text(data.rows, result.n, simulated=not config["users_are_rows"],
                                       synthetic=data.origin == "synthetic", toggle=WHOLE.label))
    target.markdown(viz.coverage_text(covered, d, level))
    common.estimator_notes(result, data, chosen)
    if "mi" not in chosen:
        st.caption(f"Add {mi_name} to the estimators to see the per-value intervals (they hold for the unbiased "
                   "matrix-inversion estimate).")

    _cumulative(result, data, chosen, full)
    _errors(result, data, full, k)
    csv = viz.results_table(data.labels, true, {f"{n} estimate": v for n, v in full.items()}, intervals, band,
                            level=level, centres=viz.bin_centres(data.edges) if numerical else None)
    common.download_buttons(csv, {**controls.values(CONTROLS), **config}, key="pg_download", name="ldp-playground",
                            controls=CONTROLS)


def _parameters_in_use(mech: ldp.Mechanism) -> None:
    used = {k: v for k, v in mech.params.items() if v is not None}
    if used:
        st.caption(f"{mech.display_name} parameters in use: "
                   + ", ".join(f"{k} = {v:g}" if isinstance(v, float) else f"{k} = {v}" for k, v in used.items())
                   + " (change them under 'Advanced' in the sidebar).")


def _histogram(result: ldp.SimulationResult, data: common.Dataset, chosen: list[str], level: float,
               view: tuple[int, bool, bool], bands: tuple, chart_place: Any) -> tuple[dict, str]:
    """The main chart: true vs estimated frequencies with MI's intervals and the simultaneous band; returns each
    chosen estimator's estimate by display name, and MI's display name."""
    k, only_top, sort = view
    intervals, band, simultaneous = bands
    mech, true, numerical, d = result.mechanism, result.true_frequencies, data.numerical, data.d
    names = {e: ldp.ESTIMATORS.get(e).display_name for e in chosen}
    mi_name = ldp.ESTIMATORS.get("mi").display_name
    full = {names[e]: result.estimates[e][0] for e in chosen}
    shown = viz.shown_values(data.labels, true, full, intervals, band, edges=data.edges if numerical else None,
                             top_k=k if only_top else None, sort_by_frequency=sort)
    pct = f"{level:.0%}"
    x_title = (f"{data.axis_title()} — bin centre" if numerical else data.axis_title())
    fig = viz.histogram_figure(
        shown.x, shown.true, shown.estimates, shown.intervals, shown.band,
        title=(f"True vs estimated frequencies — {mech.display_name}, ε = {mech.epsilon:g}, "
               f"n = {viz.format_users(result.n)}" + (f" (top {min(k, d)} values)" if only_top else "")),
        x_title=x_title, interval_for=mi_name, level=level, widths=shown.widths, hover_labels=shown.labels)
    table = viz.results_table(shown.labels, shown.true, {f"{n} estimate": v for n, v in shown.estimates.items()},
                              shown.intervals, shown.band, level=level, centres=shown.centres)
    bars = (f" error bars on the {mi_name} markers: {pct} intervals for each value;" if "mi" in chosen else "")
    common.show_figure(fig, "pg_hist", table, main=True, where=chart_place, description=(
        f"Bars: the true frequency of each of the {len(shown.index):,} values shown; markers: each estimator's "
        f"estimate;{bars} shaded boxes: the {pct} simultaneous band from the {mi_name} estimate, which holds every "
        f"true frequency at once with probability ≥ {pct}. " + " ".join(simultaneous.notes)))
    return full, mi_name


def _cumulative(result: ldp.SimulationResult, data: common.Dataset, chosen: list[str], full: dict) -> None:
    """The cumulative distributions, true and estimated (ordered values only)."""
    mech, true, numerical = result.mechanism, result.true_frequencies, data.numerical
    names = {e: ldp.ESTIMATORS.get(e).display_name for e in chosen}
    unnormalized = [names[e] for e in chosen if not ldp.ESTIMATORS.get(e).consistent]
    if data.ordered:
        cdf = viz.cdf_figure(true, full, title=f"Cumulative distribution — true vs estimated ({mech.display_name}, "
                                               f"ε = {mech.epsilon:g})",
                             x_title=data.axis_title() if numerical else f"{data.axis_title()} (domain order)",
                             labels=data.labels, edges=data.edges if numerical else None, unnormalized=unnormalized)
        order = "" if numerical else " Values are taken in the domain's order, whatever the histogram's sort."
        note = (f" {', '.join(unnormalized)}: cumulative sums of unnormalized estimates, which can dip (negative "
                "estimates) or end away from 1." if unnormalized else "")
        common.show_figure(cdf, "pg_cdf", viz.cdf_table(true, full, data.labels), description=(
            f"Lines: cumulative frequency up to each value, the truth (thick grey) and each estimator; the whole "
            f"domain is shown.{order}{note}"))
    else:
        st.caption(f"No cumulative distribution, Wasserstein or KS here: the values of '{data.name}' are categories "
                   "without an order (alphabetical), so those would depend on an arbitrary order.")



def _errors(result: ldp.SimulationResult, data: common.Dataset, full: dict, k: int) -> None:
    """This run's errors, as percentages of the users."""
    true, numerical = result.true_frequencies, data.numerical
    st.subheader("Errors of this run")
    metrics = viz.metrics_frame(true, full, k=k, theoretical_variance=result.theoretical_variance,
                                edges=data.edges if numerical else None, unit=data.unit,
                                metrics=[m for m in viz.available_metrics()
                                         if data.ordered or m not in ("wasserstein", "ks")])
    plain = viz.plain_metrics(metrics)
    # a static table (two or three rows: every column in view on a projector, no scrolling grid), whose code the
    # browser loads far faster than the interactive grid's on the first page (cold start 2.77 -> 2.68 s, median of 7)
    st.table(plain.style.format("{:.3g}"))
    st.caption("One collection (one trial), so errors vary from seed to seed. Errors are percentages of all users "
               "(a squared error as its root, RMSE): '0.19' means about 0.19 % of the users, 1,900 of 1,000,000. The "
               "theoretical RMSE of MI is the root of the closed-form variance averaged over the values.")


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
    st.title("Playground")
    if not common.presenting():  # a projector shows the controls and the chart, not the introduction
        st.caption("How wrong is a histogram collected under local differential privacy? Pick data, a mechanism "
                   "and ε in the sidebar: every user randomizes their value, the server estimates the histogram, and "
                   "the estimates are compared with the truth. Smaller ε = more private = noisier.")
        st.page_link("views/learn.py", label="New to local differential privacy? A class starts on Learn: Warner's "
                     "question on a real election survey, then one step at a time.", icon=":material/school:")
    ctl = _controls()
    data: common.Dataset = ctl["data"]
    if not ctl["estimators"]:
        st.error("Choose at least one estimator in the sidebar (under 'Estimators / post-processing').")
        st.stop()
    users = None if ctl["whole"] else ctl["users"]
    n = data.rows if users is None else users
    if ctl["engine"] == "exact":
        seconds = cost.estimated_seconds(n, data.d, 1, "exact")
        if seconds > EXACT_BLOCK_S:
            st.error(f"The exact engine would randomize {n:,} users over {data.d:,} values (about "
                     f"{seconds / 60:.0f} minutes or more): use the fast engine, or fewer users or values.")
            st.stop()
        if seconds > EXACT_WARN_S:
            st.warning(f"The exact engine randomizes every user: this run may take about {seconds:.0f} s. The fast "
                       "engine gives the same distribution of results in milliseconds.")
        common.wait_for_button(seconds, EXACT_WARN_S, repr((ctl, data.name, data.d)), "pg_run", "Randomize them")
    cls = ldp.MECHANISMS.get(ctl["mech"])
    if ctl["engine"] == "fast" and not cls.fast_engine_exact:
        st.caption(f"The fast engine for {cls.display_name} draws the support counts with the exact mean and "
                   "covariance (a Gaussian approximation); choose exact to randomize every user.")
    params = tuple(sorted(ctl["params"].items()))
    # MI always runs: intervals and coverage
    estimators = common.estimator_specs(list(dict.fromkeys(["mi", *ctl["estimators"]])), ctl["estimator_params"])
    with common.friendly_errors("this configuration"), st.spinner("Simulating the collection…"):
        result = _simulate(ctl["mech"], ctl["eps"], params, np.asarray(data.counts, dtype=np.int64), users,
                           estimators, ctl["engine"], ctl["seed"])
    config = {"dataset": data.name, "dataset_description": data.description, "d": data.d, "users_simulated":
              result.n, "users_are_rows": users is None, "mechanism_parameters": dict(result.mechanism.params),
              "estimator_parameters": ctl["estimator_params"],
              "simulation": simulation_block(data, ctl, params, users, estimators)}
    _results(result, data, ctl["estimators"], config)
    _privacy(result.mechanism, params, data.frequencies)


if __name__ == "__main__":  # Streamlit runs a page as __main__; tests import it for its controls
    main()
