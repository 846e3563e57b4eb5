"""Numerical distributions — a numerical column collected under LDP, shown and scored in its own
units. The page leads with the square-wave paper's own method: Square Wave reports + EMS, with the b it
uses and the mutual-information curve that chose it (§5.3). Next to it: CFO-binning (the column cut into
equal-width bins, a categorical frequency oracle collecting every user's bin, MI + Norm-Sub) and any other
registered numerical mechanism (``ldp.mechanisms_of("numerical")``: hierarchical histograms, HaarHRR, …)
at the same ε, n and seed.

Wiring and text only: the controls are declared below; data from ``ldp.studies.datasets`` (through
``views.common.dataset_picker``), runs, metrics and summaries from ``ldp.studies.comparison``, the mean from
``ldp.studies.mean_variance``, run-time estimates from ``ldp.studies.cost``, figures from
``ldp.viz.distributions``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

import ldp
from ldp.studies import choices, cost
from ldp.studies import comparison as study
from ldp.studies.choices import mutual_information_b, mutual_information_bound
from ldp.studies.mean_variance import engine_note, lower_variance_mechanism, simulate_histogram_mean, split_note
from ldp.viz import distributions as viz
from ldp.viz.style import PALETTE
from views import common, controls, offload
from views.controls import Control, render

NUMERICAL = [cls.name for cls in ldp.mechanisms_of("numerical")]
MEAN = [cls.name for cls in ldp.mechanisms_of("mean")]
ALPHAS = [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.75]
RANGE_QUERIES = 1000
WARN_S = 10.0
BLOCK_S = 180.0  # longer runs are refused: the server is shared
MEAN_BLOCK_S = 120.0
ESTIMATORS = ("mi", "norm-sub")
COLOURS = {"MI (raw)": PALETTE[1], "MI + Norm-Sub": PALETTE[0]}


def _display(name: str) -> str:
    return ldp.MECHANISMS.get(name).display_name


# --------------------------------------------------------------------------- controls (each stated once)
DATA = common.data_controls("num_data", default_column="dep_time_hours")
MECH = common.mechanism_controls("num_mech", eps_key="num_eps", collections=("one-time",))
LEAD = ("sw", "ems")  # the square-wave paper's own method leads the page
LEAD_PARAMS = common.parameter_controls("num_lead", [ldp.MECHANISMS.get("sw"), ldp.ESTIMATORS.get("ems")])
OTHER_PARAMS = common.parameter_controls("num_p", [c for c in ldp.mechanisms_of("numerical") if c.name != "sw"])
RECONSTRUCTION_PARAMS = common.parameter_controls(
    "num_r", [e for e in ldp.ESTIMATORS if "numerical" in e.kinds and e.name != "norm-sub"])
METHODS = Control("num_nmechs", "multiselect", "Also compare with", [], options=NUMERICAL, format_func=_display,
                  help="Other registered numerical mechanisms (or SW with another reconstruction), run on the same "
                       "column, ε, n, seed and trials: "
                       + "; ".join(f"{c.display_name}: {c.description}" for c in ldp.mechanisms_of("numerical")))
RECONSTRUCTIONS = {
    cls.name: Control(f"num_rec_{cls.name}", "multiselect", f"{cls.display_name}: reconstruction",
                      list(cls.reconstructions)[:1], options=list(cls.reconstructions), format_func=str.upper,
                      help=f"Server-side reconstruction of {cls.display_name} (first = default). Every "
                           "reconstruction sees the same collections.")
    for cls in ldp.mechanisms_of("numerical") if cls.reconstructions}
USERS = Control("num_users", "number_input", "Number of users n", 100_000, min_value=10, max_value=10**9,
                step=10_000, help="n users are drawn once (seeded) from the column's binned distribution.")
TRIALS = Control("num_trials", "number_input", "Trials (repeated collections)", 20, min_value=1, max_value=500,
                 step=5, help="The metrics are averaged over the trials; the figures show the first one.")
ENGINE = common.engine_control("num_engine")
SEED = common.seed_control("num_seed")
RANGE_WIDTHS = Control("num_alpha", "multiselect", "Range-query widths α (share of the domain)", [0.1, 0.4],
                       options=ALPHAS, format_func=lambda a: f"{a:g}",
                       help=f"{RANGE_QUERIES} random ranges [i, i + α·(hi − lo)] per width, i uniform; error = "
                            "|true − estimated fraction of users in the range|.")
MEAN_MECH = Control("num_mean_mech", "radio", "Mean mechanism", "pm", options=MEAN, horizontal=True,
                    format_func=_display,
                    help="Each user maps her value to [−1, 1] (the column's range) and reports it once with ε; the "
                         "server averages. The variance uses the 50/50 split of §6.3: half the users report their "
                         "value, the other half their squared distance to that half's mean.")
CONTROLS = (*DATA, *MECH, METHODS, *RECONSTRUCTIONS.values(), USERS, TRIALS, ENGINE, SEED, RANGE_WIDTHS, MEAN_MECH,
            *(c for group in (LEAD_PARAMS, OTHER_PARAMS, RECONSTRUCTION_PARAMS) for pairs in group.values()
              for _, c in pairs))


# --------------------------------------------------------------------------- cached computation
@st.cache_data(show_spinner=False, max_entries=64)
def _simulate(mechanism: str, epsilon: float, counts: np.ndarray, engine: str, trials: int,
              seed: int, params: tuple = ()) -> ldp.SimulationResult:
    """``trials`` collections of the bucketized column by CFO-binning's oracle; keyed by every input."""
    mech = ldp.get_mechanism(mechanism, epsilon, int(counts.shape[0]), **dict(params))
    return offload.for_engine(engine)(study.run_trials, mech, counts, ESTIMATORS, engine=engine, seed=seed,
                                      trials=trials)


@st.cache_data(show_spinner=False, max_entries=128)
def _simulate_numerical(name: str, reconstruction: str | None, epsilon: float, counts: np.ndarray, edges: np.ndarray,
                        engine: str, trials: int, seed: int, params: tuple = (),
                        reconstruction_params: tuple = ()) -> np.ndarray:
    return offload.for_engine(engine)(study.simulate_numerical, name, reconstruction, epsilon, counts, edges,
                                      engine=engine, trials=trials, seed=seed, params=dict(params),
                                      reconstruction_params=dict(reconstruction_params))


@st.cache_data(show_spinner=False, max_entries=64)
def _metrics(edges: np.ndarray, truth: np.ndarray, estimates: np.ndarray, alphas: tuple[float, ...],
             seed: int) -> dict[str, np.ndarray]:
    return offload.call(study.numerical_metrics, edges, truth, estimates, alphas, seed=seed, queries=RANGE_QUERIES)


@st.cache_data(show_spinner=False, max_entries=64)
def _simulate_mean(mechanism: str, epsilon: float, counts: np.ndarray, edges: np.ndarray, engine: str, trials: int,
                   seed: int) -> Any:
    return simulate_histogram_mean(mechanism, epsilon, counts, edges, engine=engine, trials=trials, seed=seed)


@st.cache_resource(show_spinner=False, max_entries=96)
def _figure(builder: str, *args: Any, **kwargs: Any) -> Any:
    """``ldp.viz.distributions.<builder>(*args, **kwargs)``, built once per distinct input for every session (the
    sessions that change ε to a value another one already drew pay no figure construction), by a worker process
    when there is one; shared, so never changed (``common.built_elsewhere``)."""
    return common.built_elsewhere(getattr(viz, builder), *args, **kwargs)


# --------------------------------------------------------------------------- sidebar
def _controls() -> dict[str, Any]:
    with st.sidebar:
        data = common.data_section(DATA, "this column")
        st.header("Square Wave + EMS")
        eps = float(render(MECH.epsilon))
        st.caption("◀ more private · · · more accurate ▶")
        lead = common.render_parameters(LEAD_PARAMS["sw"], "Advanced: Square Wave parameters (b, d̃)")
        lead_rec = common.render_parameters(LEAD_PARAMS["ems"], "Advanced: EMS parameters (tolerance, iterations)")
        st.header("Compared with")
        mech = render(MECH.mechanism)
        cls = ldp.MECHANISMS.get(mech)
        st.caption(f"CFO-binning's frequency oracle: {cls.description}. _{cls.paper}_")
        cfo_params = (common.render_parameters(MECH.parameters[mech], f"Advanced: {cls.display_name} parameters")
                      if mech in MECH.parameters else {})
        chosen = render(METHODS)
        picked = {name: render(RECONSTRUCTIONS[name]) for name in chosen if name in RECONSTRUCTIONS}
        methods = choices.numerical_methods(chosen, picked)
        params = {name: common.render_parameters(OTHER_PARAMS[name], f"Advanced: {_display(name)} parameters")
                  for name in chosen if name in OTHER_PARAMS}
        recs = {rec for _, rec in methods if rec in RECONSTRUCTION_PARAMS}
        rec_params = {rec: common.render_parameters(RECONSTRUCTION_PARAMS[rec], f"Advanced: {rec.upper()} parameters")
                      for rec in sorted(recs)}
        st.header("Experiment")
        users = int(render(USERS))
        trials = int(render(TRIALS))
        engine = render(ENGINE)
        seed = int(render(SEED))
    return {"data": data, "mech": mech, "cfo_params": cfo_params, "eps": eps, "users": users, "trials": trials,
            "engine": engine, "seed": seed, "methods": methods, "lead": lead, "lead_rec": lead_rec, "params": params,
            "rec_params": rec_params}


# --------------------------------------------------------------------------- metrics (fragment)
@st.fragment
def _metrics_section(data: common.Dataset, truth: np.ndarray, per_method: dict[str, np.ndarray], trials: int,
                     seed: int) -> None:
    """The live part: changing the range-query widths reruns only this fragment. ``per_method``: label →
    estimates (trials, d), the lead method first."""
    with common.friendly_errors("the metrics"):
        _metrics_body(data, truth, per_method, trials, seed)


def _metrics_body(data: common.Dataset, truth: np.ndarray, per_method: dict[str, np.ndarray], trials: int,
                  seed: int) -> None:
    st.subheader("Numerical metrics")
    alphas = tuple(sorted(float(a) for a in render(RANGE_WIDTHS)))
    edges = np.asarray(data.edges, dtype=np.float64)
    lead_label, lead = next(iter(per_method.items()))
    per_trial = {label: _metrics(edges, truth, est, alphas, seed) for label, est in per_method.items()}
    table = study.numerical_summary(per_trial[lead_label], data.unit)
    st.dataframe(table, key="num_metrics", hide_index=True,
                 column_config={c: st.column_config.NumberColumn(format="%.4g") for c in ("mean over trials", "± SE")})
    unit = data.unit or "the data's units"
    st.caption(f"{lead_label}: mean over {trials} trial(s) against the true histogram (square-wave paper §3). "
               f"Wasserstein-1 and the errors of the mean and the deciles are in {unit}, the variance error in "
               f"{unit} squared, KS and range queries in fractions of users. " + study.NUMERICAL_PROJECTION)
    if not alphas:
        st.caption("No range-query width chosen: pick one or more α above to add range queries.")
    st.markdown(f"**Deciles** (in real units) — {lead_label}")
    deciles = study.quantile_table(edges, truth, lead)
    st.dataframe(deciles, key="num_deciles", hide_index=True,
                 column_config={c: st.column_config.NumberColumn(format="%.4g")
                                for c in ("true", "estimated (trial 1)", "mean absolute error")})
    st.caption("Both the truth and the estimate are histograms over the same bins, read as uniform within each "
               "bin: these numbers measure the noise of the LDP collection at this binning, not the binning error "
               "itself (the real values are not uniform within a bin). More bins: less binning error, more noise "
               "per bin.")
    st.subheader("Methods compared")
    compared = viz.comparison_table(per_trial, data.unit)
    st.dataframe(compared, key="num_compare", hide_index=True,
                 column_config={c: st.column_config.NumberColumn(format="%.4g") for c in per_trial})
    st.caption(f"Mean over {trials} trial(s) of each method on the same population (same ε, n, seed and "
               "random range queries); lower is better everywhere. Units as in the table above. Each column is the "
               "method's own output after the reconstruction its name gives (CFO-binning: MI + Norm-Sub). "
               + study.NUMERICAL_PROJECTION)


# --------------------------------------------------------------------------- page
def main() -> None:
    chart_place = common.page_heading("Numerical distributions", (
        "A numerical column (time of day, temperature, …) collected under local differential privacy, shown "
        "and scored in its own units, with the square-wave paper's own method: every user reports a value "
        "drawn near her own (the Square Wave), and the server reconstructs the histogram with EMS (EM with a "
        "smoothing step). CFO-binning (equal-width bins collected by a categorical frequency oracle) and the "
        "numerical mechanisms chosen in the sidebar collect the same column for comparison."))
    ctl = _controls()
    data: common.Dataset = ctl["data"]
    if not data.numerical:
        st.error(f"'{data.name}' is categorical: pick a numerical column in the sidebar (e.g. dep_time_hours or "
                 "distance in the flights sample, temp in the weather sample) or a numerical synthetic "
                 "distribution (uniform, gaussian, exponential, beta, …).")
        st.stop()
    eps = ctl["eps"]
    with common.friendly_errors("this configuration"):  # validates before any run
        sw = ldp.get_mechanism(LEAD[0], eps, data.d, **ctl["lead"])
        ldp.get_estimator(LEAD[1], **ctl["lead_rec"])
        ldp.get_mechanism(ctl["mech"], eps, data.d, **ctl["cfo_params"])
        counts = study.draw_population(np.asarray(data.counts), ctl["users"], ctl["seed"])
    seconds = cost.numerical_seconds(ctl["users"], data.d, ctl["trials"], ctl["engine"], len(ctl["methods"]) + 1)
    if seconds > BLOCK_S:
        st.error(f"This run would take about {seconds / 60:.0f} minutes: use the fast engine, fewer trials or fewer "
                 "users.")
        st.stop()
    if seconds > WARN_S:
        st.warning(f"This run may take about {seconds:.0f} s ({ctl['trials']} trials on the {ctl['engine']} engine). "
                   "The fast engine gives the same distribution of results in a fraction of a second.")
        signature = repr((data.name, data.d, ctl["users"], ctl["trials"], ctl["engine"], ctl["seed"], eps,
                          ctl["methods"], ctl["lead"], ctl["lead_rec"], ctl["mech"], ctl["cfo_params"]))
        common.wait_for_button(seconds, WARN_S, signature, "num_run", "Run it")
    edges = np.asarray(data.edges, dtype=np.float64)
    with common.friendly_errors("this configuration"), st.spinner("Simulating the collections…"):
        lead = _simulate_numerical(*LEAD, eps, counts, edges, ctl["engine"], ctl["trials"], ctl["seed"],
                                   tuple(sorted(ctl["lead"].items())), tuple(sorted(ctl["lead_rec"].items())))
        result = _simulate(ctl["mech"], eps, counts, ctl["engine"], ctl["trials"], ctl["seed"],
                           tuple(sorted(ctl["cfo_params"].items())))
    cls = ldp.MECHANISMS.get(ctl["mech"])
    truth = result.true_frequencies
    unit = data.unit
    width = float(np.mean(np.diff(edges)))
    span = float(edges[-1] - edges[0])
    lead_label = viz.method_label(sw.display_name, LEAD[1])
    b_note = "the paper's choice" if "b" not in ctl["lead"] else "set under Advanced"
    st.markdown(f"**Method:** {lead_label} — b = {sw.b:.4g} of the range ({sw.b * span:.4g}{' ' + unit if unit else ''}"
                f" in the column's units; {b_note}), reports bucketized into d̃ = {sw.d_tilde} buckets, the histogram "
                f"reconstructed on {data.d} bins of width {width:.4g}{' ' + unit if unit else ''} over "
                f"[{edges[0]:.4g}, {edges[-1]:.4g}] · ε = {eps:g} · n = {result.n:,}.")
    what = f"ε = {eps:g}, n = {result.n:,}, {data.d} bins"
    with common.friendly_errors("the figures"):
        first = {lead_label: lead[0]}
        fig = _figure("density_figure", edges, truth, first, name=data.name, unit=unit, colors={lead_label: PALETTE[0]},
                      title=f"True vs estimated density — {lead_label}, {what}")
        table = viz.density_table(edges, truth, first, unit=unit)
        common.show_figure(fig, "num_density", table, main=True, where=chart_place, description=(
            f"Grey bars: the true density of {data.name} (fraction of users per {unit or 'unit'}, bar width = bin "
            f"width); line: the first trial's {lead_label} estimate (non-negative and summing to one: EMS keeps it a "
            "distribution)."))
        fig = _figure("cdf_figure", edges, truth, first, name=data.name, unit=unit, colors={lead_label: PALETTE[0]},
                      title=f"True vs estimated CDF — {lead_label}, {what}")
        common.show_figure(fig, "num_cdf", table[[c for c in table.columns if "CDF" in c or c.startswith(("from",
                                                                                                        "to"))]],
                           description=(f"Lines: the fraction of users below each value of {data.name}, truth "
                                        f"(black) and the first trial's {lead_label} estimate (dashed), linear "
                                        "within each bin. Wasserstein-1 is the area between them, KS their largest "
                                        "vertical gap."))
        _b_section(sw, eps)
    cfo_label = f"CFO-binning ({cls.display_name}) · MI + Norm-Sub"
    reference = {lead_label: lead, cfo_label: result.estimates["norm-sub"]}
    numerical = _numerical_section(ctl, data, counts, edges, truth, reference, what)
    _metrics_section(data, truth, {**reference, **numerical}, result.trials, result.seed or 0)
    _mean_section(data, counts, edges, ctl)
    config = {"dataset": data.name, "dataset_description": data.description, "bins": data.d,
              "range": [float(edges[0]), float(edges[-1])], "unit": unit, "users_simulated": result.n,
              "method": f"{lead_label} (b = {sw.b:.6g}, d̃ = {sw.d_tilde})", "compared_with": [cfo_label, *numerical],
              "range_queries": RANGE_QUERIES}
    table = viz.density_table(edges, truth, {k: v[0] for k, v in {**reference, **numerical}.items()}, unit=unit)
    common.download_buttons(table, {**controls.values(CONTROLS), **config}, key="num_download", name="ldp-numerical",
                            controls=CONTROLS)


def _b_section(sw: Any, eps: float) -> None:
    """The b in use on the mutual-information curve that chose the paper's b (§5.3)."""
    b_mi = mutual_information_b(eps)
    grid = np.geomspace(min(b_mi, sw.b) / 30, max(b_mi, sw.b) * 30, 200)
    fig = _figure("mutual_information_figure", grid, mutual_information_bound(eps, grid), b_mi=b_mi, b_used=sw.b,
                  bound_used=float(mutual_information_bound(eps, sw.b)), epsilon=eps)
    common.show_figure(fig, "num_b", pd.DataFrame({"b": grid, "bound (nats)": mutual_information_bound(eps, grid)}),
                       description=(
        "Line: the upper bound h(U) − h(Ṽ|V) of the mutual information between a user's value and her report, as a "
        "function of the wave's half-width b (Eq. (4)); dotted line: its maximum, the paper's b; diamond: the b in "
        "use. A wider wave (larger b) hides the value better but blurs the histogram; a narrower one concentrates "
        "the reports but leaves most of the probability in the flat background. The paper's Fig. 6 finds this b "
        "among the best for the reconstruction error too."))


@st.fragment
def _mean_section(data: common.Dataset, counts: np.ndarray, edges: np.ndarray, ctl: dict[str, Any]) -> None:
    """Mean and variance with SR or PM (§2.2, §6.3), in a lazy expander (``num_mean_open``: its own simulation, SR
    or PM on every user, runs only while open); choosing the mechanism reruns only this fragment."""
    st.header("Mean and variance")
    box = common.lazy_expander("Mean and variance of the column with SR or PM (its own collection)", "num_mean_open")
    with box:
        if box.open:
            _mean_body(data, counts, edges, ctl)


def _mean_body(data: common.Dataset, counts: np.ndarray, edges: np.ndarray, ctl: dict[str, Any]) -> None:
    name = render(MEAN_MECH)
    n, trials, eps = int(counts.sum()), ctl["trials"], ctl["eps"]
    if n < 2:
        st.info("The mean and variance need at least two users.")
        return
    seconds = cost.mean_seconds(n, trials, ctl["engine"])
    if seconds > MEAN_BLOCK_S:
        st.info(f"Skipped: {n:,} users × {trials} trials would take about {seconds / 60:.0f} minutes here (the "
                "exact engine runs every client). Use the fast engine, fewer users or trials.")
        return
    if seconds > WARN_S:
        st.warning(f"The mean and variance may take about {seconds:.0f} s ({n:,} users × {trials} trials).")
    with common.friendly_errors("the mean and variance"), st.spinner("Estimating the mean and variance…"):
        res = _simulate_mean(name, eps, counts, edges, ctl["engine"], trials, ctl["seed"])
    unit = data.unit
    se = res.theoretical_std_error
    chosen = ldp.get_mechanism(name, eps)
    better = lower_variance_mechanism(eps)
    worst = max(ldp.get_mechanism(m, eps).worst_case_variance() for m in ("sr", "pm"))
    with common.friendly_errors("the mean figure"):
        fig = _figure("mean_trials_figure", res.estimated_mean, res.true_mean, se, name=data.name, unit=unit,
                      title=f"Estimated mean per trial — {chosen.display_name}, ε = {eps:g}, n = {n:,}")
        table = viz.mean_variance_table(res.true_mean, res.true_variance, res.estimated_mean,
                                        res.estimated_variance, se, unit)
        common.show_figure(fig, "num_mean_fig", table, description=(
            f"Dots: the mean of {data.name} estimated by {chosen.display_name} in each of {trials} trial(s); "
            "black line: the true mean; dashed lines: the true mean ± 1.96 closed-form standard errors, where about "
            "95 % of the dots should fall."))
    st.dataframe(table, key="num_mean_table", hide_index=True,
                 column_config={c: st.column_config.NumberColumn(format="%.4g")
                                for c in ("true", "average estimate", "mean absolute error", "RMSE",
                                          "closed-form SE")})
    note = engine_note(chosen, ctl["engine"])
    st.caption(f"Users sit at the centre of their bin; true values are the population's. Mean: {note}. Variance: "
               f"the 50/50 split of §6.3 on the same engine, {split_note(ctl['engine'])}. Closed-form SE of the "
               f"mean = √(Σ Var[ṽ | v])/n mapped to {unit or 'the data’s units'}: {se:.4g}.")
    mechanisms = [ldp.get_mechanism(m, eps) for m in MEAN]
    pure = [m for m in mechanisms if m.delta == 0]
    approximate = [m for m in mechanisms if m.delta > 0]
    worst_pure = max(pure, key=lambda m: m.worst_case_variance())
    st.info(f"**SR or PM?** Their worst-case variances cross at ε ≈ 1.29: Stochastic Rounding is better below, the "
            f"Piecewise Mechanism above (Wang et al.; square-wave paper §2.2). At ε = {eps:g} the lower worst-case "
            f"variance is {better.display_name}'s ({better.worst_case_variance():.4g} vs {worst:.4g} on [−1, 1]). "
            "The Hybrid Mechanism mixes them and is never worse than either (Wang et al., ICDE'19). Worst-case "
            f"variances (the highest of the ε-LDP ones here: {worst_pure.display_name}): "
            + ", ".join(f"{m.display_name} {m.worst_case_variance():.3g}" for m in pure) + "."
            + (" The Gaussian ones are only (ε, δ)-LDP, and the lecture's \"noise is too much\" shows: "
               + ", ".join(f"{m.display_name} {m.worst_case_variance():.3g} (δ = {m.delta:g})" for m in approximate)
               + "." if approximate else ""))


def _numerical_section(ctl: dict[str, Any], data: common.Dataset, counts: np.ndarray, edges: np.ndarray,
                       truth: np.ndarray, reference: dict[str, np.ndarray], what: str) -> dict[str, np.ndarray]:
    """Run every chosen (numerical mechanism, reconstruction) on the same population and overlay their first
    trial with CFO-binning's; returns label → estimates (trials, d) of the methods that ran."""
    st.header("Compared with CFO-binning" + (" and other numerical mechanisms" if ctl["methods"] else ""))
    if not ctl["methods"]:
        st.caption("Add hierarchical histograms, HaarHRR or SW with plain EM under 'Also compare with' in the "
                   "sidebar to see them here too.")

    def run(name: str, reconstruction: str | None) -> np.ndarray:
        return _simulate_numerical(name, reconstruction, ctl["eps"], counts, edges, ctl["engine"], ctl["trials"],
                                   ctl["seed"], tuple(sorted(ctl["params"].get(name, {}).items())),
                                   tuple(sorted(ctl["rec_params"].get(reconstruction, {}).items())))

    with st.spinner("Simulating the numerical mechanisms…"):
        done, failed = study.run_methods(ctl["methods"], run)
    for (name, rec), reason in failed.items():
        st.warning(f"{viz.method_label(_display(name), rec)} cannot run on this configuration and is left out: "
                   f"{reason}")
    out = {viz.method_label(_display(name), rec): estimates for (name, rec), estimates in done.items()}
    first = {label: est[0] for label, est in out.items()}
    series = {**{label: est[0] for label, est in reference.items()}, **first}
    colours = {label: PALETTE[i] for i, label in enumerate(reference)}
    st.markdown("**Methods:** " + "; ".join(series) + f" · same population, ε = {ctl['eps']:g}, n = "
                f"{int(counts.sum()):,}, seed {ctl['seed']} and {ctl['trials']} trial(s); the figures show the "
                "first trial.")
    papers = sorted({ldp.MECHANISMS.get(n).paper for n in ["sw", ctl["mech"], *(n for n, _ in ctl["methods"])]})
    st.caption("Numerical mechanisms from: " + "; ".join(papers) + ".")
    box = common.lazy_expander("Methods compared: density and CDF of every method (first trial)", "num_cmp_open")
    with box, common.friendly_errors("the figures"):
        if box.open:
            _overlays(data, edges, truth, series, colours, what)
    return out


def _overlays(data: common.Dataset, edges: np.ndarray, truth: np.ndarray, series: dict[str, np.ndarray],
              colours: dict[str, str], what: str) -> None:
    """Every method's first trial over the truth: density and CDF."""
    unit = data.unit
    table = viz.density_table(edges, truth, series, unit=unit)
    fig = _figure("density_figure", edges, truth, series, name=data.name, unit=unit, colors=colours,
                  title=f"Methods compared: density — {what}")
    common.show_figure(fig, "num_cmp_density", table, description=(
        f"Grey bars: the true density of {data.name}; one coloured step line per method (first trial), "
        "Square Wave + EMS, CFO-binning's MI + Norm-Sub estimate and each chosen numerical mechanism with its "
        "reconstruction."))
    fig = _figure("cdf_figure", edges, truth, series, name=data.name, unit=unit, colors=colours,
                  title=f"Methods compared: CDF — {what}")
    common.show_figure(fig, "num_cmp_cdf", table[[c for c in table.columns if "CDF" in c
                                                  or c.startswith(("from", "to"))]],
                       description=(f"Black: the true CDF of {data.name}; one dashed line per method (first "
                                    "trial); the closer a line to the black one, the smaller its Wasserstein "
                                    "and KS distances."))


if __name__ == "__main__":  # Streamlit runs a page as __main__; tests import it for its controls
    main()
