"""Numerical distributions — a numerical column collected under LDP, shown and scored in its own
units. CFO-binning: the column is cut into equal-width bins, a categorical frequency oracle collects
the bin of every user, and MI + Norm-Sub estimates the histogram, read as uniform within each bin. Next
to it, the registered numerical mechanisms (``ldp.mechanisms_of("numerical")``: Square Wave with EM/EMS,
hierarchical histograms, …) collect the same column at the same ε, n and seed.

Wiring and text only: the controls are declared below; data from ``ldp.studies.datasets`` (through
``views.common.dataset_picker``), runs, metrics and summaries from ``ldp.studies.comparison``, the mean from
``ldp.studies.mean_variance``, run-time estimates from ``ldp.studies.cost``, figures from
``ldp.viz.distributions``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import streamlit as st

import ldp
from ldp.studies import choices, cost
from ldp.studies import comparison as lab
from ldp.studies.mean_variance import engine_note, lower_variance_mechanism, simulate_histogram_mean
from ldp.viz import distributions as viz
from ldp.viz.style import PALETTE
from views import common, controls
from views.controls import Control, render

NUMERICAL = [cls.name for cls in ldp.mechanisms_of("numerical")]
MEAN = [cls.name for cls in ldp.mechanisms_of("mean")]
ALPHAS = [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.75]
RANGE_QUERIES = 1000
WARN_S = 10.0
BLOCK_S = 600.0
MEAN_BLOCK_S = 120.0
ESTIMATORS = ("mi", "norm-sub")
COLOURS = {"MI (raw)": PALETTE[1], "MI + Norm-Sub": PALETTE[0]}


def _display(name: str) -> str:
    return ldp.MECHANISMS.get(name).display_name


# --------------------------------------------------------------------------- controls (each stated once)
DATA = common.data_controls("num_data", default_column="dep_time_hours")
MECH = common.mechanism_controls("num_mech", eps_key="num_eps", collections=("one-time",))
METHODS = Control("num_nmechs", "multiselect", "Compare with", ["sw"], options=NUMERICAL, format_func=_display,
                  help="Registered numerical mechanisms, run on the same column, ε, n, seed and trials: "
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
CONTROLS = (*DATA, *MECH, METHODS, *RECONSTRUCTIONS.values(), USERS, TRIALS, ENGINE, SEED, RANGE_WIDTHS, MEAN_MECH)


# --------------------------------------------------------------------------- cached computation
@st.cache_data(show_spinner=False, max_entries=64)
def _simulate(mechanism: str, epsilon: float, counts: np.ndarray, engine: str, trials: int,
              seed: int) -> ldp.SimulationResult:
    """``trials`` collections of the bucketized column; keyed by every input including the seed."""
    mech = ldp.get_mechanism(mechanism, epsilon, int(counts.shape[0]))
    return lab.run_trials(mech, counts, ESTIMATORS, engine=engine, seed=seed, trials=trials)


@st.cache_data(show_spinner=False, max_entries=128)
def _simulate_numerical(name: str, reconstruction: str | None, epsilon: float, counts: np.ndarray, edges: np.ndarray,
                        engine: str, trials: int, seed: int) -> np.ndarray:
    return lab.simulate_numerical(name, reconstruction, epsilon, counts, edges, engine=engine, trials=trials,
                                  seed=seed)


@st.cache_data(show_spinner=False, max_entries=64)
def _metrics(edges: np.ndarray, truth: np.ndarray, estimates: np.ndarray, alphas: tuple[float, ...],
             seed: int) -> dict[str, np.ndarray]:
    return lab.numerical_metrics(edges, truth, estimates, alphas, seed=seed, queries=RANGE_QUERIES)


@st.cache_data(show_spinner=False, max_entries=64)
def _simulate_mean(mechanism: str, epsilon: float, counts: np.ndarray, edges: np.ndarray, engine: str, trials: int,
                   seed: int) -> Any:
    return simulate_histogram_mean(mechanism, epsilon, counts, edges, engine=engine, trials=trials, seed=seed)


# --------------------------------------------------------------------------- sidebar
def _controls() -> dict[str, Any]:
    with st.sidebar:
        data = common.data_section(DATA, "this column")
        st.header("Mechanism (CFO-binning)")
        mech, eps, _ = common.mechanism_picker(MECH)
        st.header("Numerical mechanisms")
        chosen = render(METHODS)
        picked = {name: render(RECONSTRUCTIONS[name]) for name in chosen if name in RECONSTRUCTIONS}
        methods = choices.numerical_methods(chosen, picked)
        st.header("Experiment")
        users = int(render(USERS))
        trials = int(render(TRIALS))
        engine = render(ENGINE)
        seed = int(render(SEED))
    return {"data": data, "mech": mech, "eps": eps, "users": users, "trials": trials, "engine": engine,
            "seed": seed, "methods": methods}


# --------------------------------------------------------------------------- metrics (fragment)
@st.fragment
def _metrics_section(data: common.Dataset, result: ldp.SimulationResult,
                     numerical: dict[str, np.ndarray], cfo_label: str) -> None:
    """The live part: changing the range-query widths reruns only this fragment."""
    with common.friendly_errors("the metrics"):
        _metrics_body(data, result, numerical, cfo_label)


def _metrics_body(data: common.Dataset, result: ldp.SimulationResult, numerical: dict[str, np.ndarray],
                  cfo_label: str) -> None:
    st.subheader("Numerical metrics")
    alphas = render(RANGE_WIDTHS)
    edges = np.asarray(data.edges, dtype=np.float64)
    truth = result.true_frequencies
    estimates = result.estimates["norm-sub"]
    per_trial = _metrics(edges, truth, estimates, tuple(sorted(float(a) for a in alphas)), result.seed or 0)
    table = lab.numerical_summary(per_trial, data.unit)
    st.dataframe(table, key="num_metrics", hide_index=True,
                 column_config={c: st.column_config.NumberColumn(format="%.4g") for c in ("mean over trials", "± SE")})
    unit = data.unit or "the data's units"
    st.caption(f"Mean over {result.trials} trial(s) of MI + Norm-Sub against the true histogram (square-wave paper "
               f"§3). Wasserstein-1 and the errors of the mean and the deciles are in {unit}, the variance error in "
               f"{unit} squared, KS and range queries in fractions of users. " + lab.NUMERICAL_PROJECTION)
    if not alphas:
        st.caption("No range-query width chosen: pick one or more α above to add range queries.")
    st.markdown("**Deciles** (in real units)")
    deciles = lab.quantile_table(edges, truth, estimates)
    st.dataframe(deciles, key="num_deciles", hide_index=True,
                 column_config={c: st.column_config.NumberColumn(format="%.4g")
                                for c in ("true", "estimated (trial 1)", "mean absolute error")})
    st.caption("Both the truth and the estimate are histograms over the same bins, read as uniform within each "
               "bin: these numbers measure the noise of the LDP collection at this binning, not the binning error "
               "itself (the real values are not uniform within a bin). More bins: less binning error, more noise "
               "per bin.")
    if numerical:
        st.subheader("Numerical mechanisms compared")
        key_alphas = tuple(sorted(float(a) for a in alphas))
        per_method = {cfo_label: per_trial}
        per_method.update({label: _metrics(edges, truth, est, key_alphas, result.seed or 0)
                           for label, est in numerical.items()})
        compared = viz.comparison_table(per_method, data.unit)
        st.dataframe(compared, key="num_compare", hide_index=True,
                     column_config={c: st.column_config.NumberColumn(format="%.4g") for c in per_method})
        st.caption(f"Mean over {result.trials} trial(s) of each method on the same population (same ε, n, seed and "
                   "random range queries); lower is better everywhere. Units as in the table above. Each column is the "
                   "method's own output after the reconstruction its name gives (CFO-binning: MI + Norm-Sub). "
                   + lab.NUMERICAL_PROJECTION)


# --------------------------------------------------------------------------- page
def main() -> None:
    st.title("Numerical distributions")
    st.caption("A numerical column (time of day, temperature, …) collected under local differential privacy, shown "
               "and scored in its own units. CFO-binning cuts the range into equal-width bins, collects every "
               "user's bin with a categorical frequency oracle, estimates the histogram with matrix inversion + "
               "Norm-Sub and reads it as uniform within each bin; the numerical mechanisms chosen in the sidebar "
               "collect the same column for comparison.")
    ctl = _controls()
    data: common.Dataset = ctl["data"]
    if not data.numerical:
        st.error(f"'{data.name}' is categorical: pick a numerical column in the sidebar (e.g. dep_time_hours or "
                 "distance in the flights sample, temp in the weather sample) or a numerical synthetic "
                 "distribution (uniform, gaussian, exponential, beta, …).")
        st.stop()
    with common.friendly_errors("this configuration"):
        ldp.get_mechanism(ctl["mech"], ctl["eps"], data.d)  # validates before the run
        counts = lab.draw_population(np.asarray(data.counts), ctl["users"], ctl["seed"])
    seconds = cost.numerical_seconds(ctl["users"], data.d, ctl["trials"], ctl["engine"], len(ctl["methods"]))
    if seconds > BLOCK_S:
        st.error(f"This run would take about {seconds / 60:.0f} minutes: use the fast engine, fewer trials or fewer "
                 "users.")
        st.stop()
    if seconds > WARN_S:
        st.warning(f"This run may take about {seconds:.0f} s ({ctl['trials']} trials on the {ctl['engine']} engine). "
                   "The fast engine gives the same distribution of results in a fraction of a second.")
    with common.friendly_errors("this configuration"), st.spinner("Simulating the collections…"):
        result = _simulate(ctl["mech"], ctl["eps"], counts, ctl["engine"], ctl["trials"], ctl["seed"])
    cls = ldp.MECHANISMS.get(ctl["mech"])

    edges = np.asarray(data.edges, dtype=np.float64)
    truth = result.true_frequencies
    mi, ns = result.estimates["mi"][0], result.estimates["norm-sub"][0]
    width = float(np.mean(np.diff(edges)))
    unit = data.unit
    st.markdown(f"**Method:** CFO-binning — {cls.display_name} on {data.d} bins of width {width:.4g}"
                f"{' ' + unit if unit else ''} over [{edges[0]:.4g}, {edges[-1]:.4g}], matrix inversion (MI) + "
                f"Norm-Sub, uniform within each bin · ε = {ctl['eps']:g} · n = {result.n:,}.")
    what = f"{cls.display_name}, ε = {ctl['eps']:g}, n = {result.n:,}, {data.d} bins"
    estimates = {"MI (raw)": mi, "MI + Norm-Sub": ns}
    with common.friendly_errors("the figures"):
        fig = viz.density_figure(edges, truth, estimates, name=data.name, unit=unit, colors=COLOURS,
                                 title=f"True vs estimated density — {what}")
        table = viz.density_table(edges, truth, estimates, unit=unit)
        common.show_figure(fig, "num_density", table, description=(
            f"Grey bars: the true density of {data.name} (fraction of users per {unit or 'unit'}, bar width = bin "
            "width); lines: the first trial's estimates, raw matrix inversion (can dip below zero) and after "
            "Norm-Sub (non-negative, sums to one)."))
        fig = viz.cdf_figure(edges, truth, {"MI + Norm-Sub": ns}, name=data.name, unit=unit, colors=COLOURS,
                             title=f"True vs estimated CDF — {what}")
        common.show_figure(fig, "num_cdf", table[[c for c in table.columns if "CDF" in c or c.startswith(("from",
                                                                                                        "to"))]],
                           description=(f"Lines: the fraction of users below each value of {data.name}, truth "
                                        "(black) and the first trial's MI + Norm-Sub estimate (dashed), linear "
                                        "within each bin. Wasserstein-1 is the area between them, KS their largest "
                                        "vertical gap."))
    cfo_label = f"CFO-binning ({cls.display_name}) · MI + Norm-Sub"
    numerical = _numerical_section(ctl, data, counts, edges, truth, {cfo_label: ns}, what)
    _metrics_section(data, result, numerical, cfo_label)
    _mean_section(data, counts, edges, ctl)
    config = {"dataset": data.name, "dataset_description": data.description, "bins": data.d,
              "range": [float(edges[0]), float(edges[-1])], "unit": unit, "users_simulated": result.n,
              "method": "CFO-binning, MI + Norm-Sub, uniform within bins", "range_queries": RANGE_QUERIES,
              "numerical_methods": list(numerical)}
    if numerical:
        table = viz.density_table(edges, truth, {**estimates, **{k: v[0] for k, v in numerical.items()}}, unit=unit)
    common.download_buttons(table, {**controls.values(CONTROLS), **config}, key="num_download", name="ldp-numerical")


@st.fragment
def _mean_section(data: common.Dataset, counts: np.ndarray, edges: np.ndarray, ctl: dict[str, Any]) -> None:
    """Mean and variance with SR or PM (§2.2, §6.3); choosing the mechanism reruns only this fragment."""
    st.header("Mean and variance")
    name = render(MEAN_MECH)
    n, trials, eps = int(counts.sum()), ctl["trials"], ctl["eps"]
    if n < 2:
        st.info("The mean and variance need at least two users.")
        return
    seconds = cost.mean_seconds(n, trials)
    if seconds > MEAN_BLOCK_S:
        st.info(f"Skipped: {n:,} users × {trials} trials would take about {seconds / 60:.0f} minutes here (the "
                "variance split runs every client). Use fewer users or trials.")
        return
    if seconds > WARN_S:
        st.warning(f"The mean and variance may take about {seconds:.0f} s ({n:,} users × {trials} trials).")
    with common.friendly_errors("the mean and variance"), st.spinner("Estimating the mean and variance…"):
        res = _simulate_mean(name, eps, counts, edges, ctl["engine"], trials, ctl["seed"])
    unit = data.unit
    se = res.theoretical_std_error
    chosen = ldp.get_mechanism(name, eps)
    better = lower_variance_mechanism(eps)
    worst = max(ldp.get_mechanism(m, eps).worst_case_variance() for m in MEAN)
    with common.friendly_errors("the mean figure"):
        fig = viz.mean_trials_figure(res.estimated_mean, res.true_mean, se, name=data.name, unit=unit,
                                     title=f"Estimated mean per trial — {chosen.display_name}, ε = {eps:g}, "
                                           f"n = {n:,}")
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
               "the 50/50 split of §6.3 with every client simulated. Closed-form SE of the mean = "
               f"√(Σ Var[ṽ | v])/n mapped to {unit or 'the data’s units'}: {se:.4g}.")
    st.info(f"**SR or PM?** Their worst-case variances cross at ε ≈ 1.29: Stochastic Rounding is better below, the "
            f"Piecewise Mechanism above (Wang et al.; square-wave paper §2.2). At ε = {eps:g} the lower worst-case "
            f"variance is {better.display_name}'s ({better.worst_case_variance():.4g} vs {worst:.4g} on [−1, 1]).")


def _numerical_section(ctl: dict[str, Any], data: common.Dataset, counts: np.ndarray, edges: np.ndarray,
                       truth: np.ndarray, reference: dict[str, np.ndarray], what: str) -> dict[str, np.ndarray]:
    """Run every chosen (numerical mechanism, reconstruction) on the same population and overlay their first
    trial with CFO-binning's; returns label → estimates (trials, d) of the methods that ran."""
    st.header("Numerical mechanisms")
    if not ctl["methods"]:
        st.caption("No numerical mechanism chosen: pick one or more in the sidebar (e.g. Square Wave with EMS) "
                   "to compare them with CFO-binning on this column.")
        return {}
    def run(name: str, reconstruction: str | None) -> np.ndarray:
        return _simulate_numerical(name, reconstruction, ctl["eps"], counts, edges, ctl["engine"], ctl["trials"],
                                   ctl["seed"])

    with st.spinner("Simulating the numerical mechanisms…"):
        done, failed = lab.run_methods(ctl["methods"], run)
    for (name, rec), reason in failed.items():
        st.warning(f"{viz.method_label(_display(name), rec)} cannot run on this configuration and is left out: "
                   f"{reason}")
    out = {viz.method_label(_display(name), rec): estimates for (name, rec), estimates in done.items()}
    if not out:
        return out
    unit = data.unit
    first = {label: est[0] for label, est in out.items()}
    series = {**reference, **first}
    colours = {next(iter(reference)): PALETTE[0]}
    st.markdown("**Methods:** " + "; ".join(series) + f" · same population, ε = {ctl['eps']:g}, n = "
                f"{int(counts.sum()):,}, seed {ctl['seed']} and {ctl['trials']} trial(s); the figures show the "
                "first trial.")
    papers = sorted({ldp.MECHANISMS.get(n).paper for n, _ in ctl["methods"]})
    st.caption("Numerical mechanisms from: " + "; ".join(papers) + ".")
    with common.friendly_errors("the figures"):
        table = viz.density_table(edges, truth, series, unit=unit)
        fig = viz.density_figure(edges, truth, series, name=data.name, unit=unit, colors=colours,
                                 title=f"Numerical mechanisms vs CFO-binning: density — {what}")
        common.show_figure(fig, "num_cmp_density", table, description=(
            f"Grey bars: the true density of {data.name}; one coloured step line per method (first trial), "
            "CFO-binning's MI + Norm-Sub estimate and each chosen numerical mechanism with its reconstruction."))
        fig = viz.cdf_figure(edges, truth, series, name=data.name, unit=unit, colors=colours,
                             title=f"Numerical mechanisms vs CFO-binning: CDF — {what}")
        common.show_figure(fig, "num_cmp_cdf", table[[c for c in table.columns if "CDF" in c
                                                      or c.startswith(("from", "to"))]],
                           description=(f"Black: the true CDF of {data.name}; one dashed line per method (first "
                                        "trial); the closer a line to the black one, the smaller its Wasserstein "
                                        "and KS distances."))
    return out


if __name__ == "__main__":  # Streamlit runs a page as __main__; tests import it for its controls
    main()
