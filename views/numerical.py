"""Numerical distributions — a numerical column collected under LDP, shown and scored in its own
units. CFO-binning: the column is cut into equal-width bins, a categorical frequency oracle collects
the bin of every user, and MI + Norm-Sub estimates the histogram, read as uniform within each bin. Next
to it, the registered numerical mechanisms (``ldp.mechanisms_of("numerical")``: Square Wave with EM/EMS,
hierarchical histograms, …) collect the same column at the same ε, n and seed.

Wiring only: data from ``views.common``, runs from ``ldp.simulate``, metrics from ``ldp.evaluation``,
summaries from ``ldp.studies.comparison``, figures from ``ldp.viz.distributions``.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import streamlit as st

import ldp
from ldp.core.streams import rng_for
from ldp.data import bucketize, get_column, list_samples, load_sample
from ldp.data.synthetic import SYNTHETIC
from ldp.evaluation.metrics import metrics_over_trials
from ldp.studies import comparison as lab
from ldp.studies import cost
from ldp.studies.mean_variance import engine_note, simulate_mean
from ldp.viz import distributions as viz
from ldp.viz.style import PALETTE
from views import common

NUMERICAL = [cls.name for cls in ldp.mechanisms_of("numerical")]
MEAN = [cls.name for cls in ldp.mechanisms_of("mean")]
KEYS = ["num_data_source", "num_data_sample", "num_data_column", "num_data_bins", "num_data_lo", "num_data_hi",
        "num_data_synthetic", "num_data_d", "num_mech", "num_eps", "num_users", "num_trials", "num_seed", "num_engine",
        "num_alpha", "num_nmechs", "num_mean_mech", *(f"num_rec_{name}" for name in NUMERICAL)]
DEFAULT_NUMERICAL = ("sw",)
SECONDS_PER_BUCKET_TRIAL = 1e-3  # EM at d = 256 takes ≈ 0.15 s a trial on one core; EMS a third of it
ALPHAS = [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.75]
DEFAULT_ALPHAS = [0.1, 0.4]
RANGE_QUERIES = 1000
DEFAULT_USERS = 100_000
MAX_USERS = 10**9
MAX_TRIALS = 500
WARN_S = 10.0
BLOCK_S = 600.0
ESTIMATORS = ("mi", "norm-sub")
COLOURS = {"MI (raw)": PALETTE[1], "MI + Norm-Sub": PALETTE[0]}
SECONDS_PER_MEAN_USER_TRIAL = 2e-7  # SR/PM clients (mean + the 50/50 variance split) per user and trial
MEAN_BLOCK_S = 120.0


# --------------------------------------------------------------------------- URL values
def _sanitize() -> None:
    """Coerce values restored from a (possibly hand-edited) URL so the widgets accept them."""
    ss = st.session_state
    coerce = common.coerce_state

    coerce("num_eps", float, lambda v: v > 0)
    coerce("num_users", lambda v: int(min(max(int(float(v)), 10), MAX_USERS)))
    coerce("num_trials", lambda v: int(min(max(int(float(v)), 1), MAX_TRIALS)))
    coerce("num_seed", lambda v: int(min(max(int(float(v)), 0), 2**31 - 1)))
    coerce("num_data_bins", lambda v: int(min(max(int(float(v)), 2), 512)))
    coerce("num_data_d", lambda v: int(min(max(int(float(v)), 2), 2048)))
    coerce("num_engine", str, lambda v: v in ("fast", "exact"))
    coerce("num_data_source", str, lambda v: v in ("Sample data", "Synthetic", "Upload"))
    coerce("num_data_synthetic", str, lambda v: v in SYNTHETIC)
    coerce("num_data_sample", str, lambda v: v in {s["name"] for s in list_samples()})
    coerce("num_mech", str, lambda v: v in ldp.MECHANISMS)
    coerce("num_mean_mech", str, lambda v: v in MEAN)
    coerce("num_data_lo", float)
    coerce("num_data_hi", float)
    _list_of("num_nmechs", NUMERICAL)
    for name in NUMERICAL:
        _list_of(f"num_rec_{name}", list(ldp.MECHANISMS.get(name).reconstructions))
    if "num_alpha" in ss:  # a one-element list comes back from the URL as a bare value
        value = ss["num_alpha"]
        values = value if isinstance(value, list) else [value]
        try:
            ss["num_alpha"] = [min(ALPHAS, key=lambda a: abs(a - float(v))) for v in values]
        except (TypeError, ValueError):
            del ss["num_alpha"]


def _list_of(key: str, allowed: list[str]) -> None:
    """A restored multiselect value: keep only known options (a bare value from the URL becomes a list)."""
    ss = st.session_state
    if key not in ss:
        return
    value = ss[key]
    values = value if isinstance(value, list) else [value]
    kept = [v for v in values if isinstance(v, str) and v in allowed]
    if kept != value:
        ss[key] = kept


# --------------------------------------------------------------------------- cached computation
@st.cache_data(show_spinner=False, max_entries=64)
def _simulate(mechanism: str, epsilon: float, counts: np.ndarray, engine: str, trials: int,
              seed: int) -> ldp.SimulationResult:
    """``trials`` collections of the bucketized column; keyed by every input including the seed."""
    mech = ldp.get_mechanism(mechanism, epsilon, int(counts.shape[0]))
    parts = [lab.run_chunk(mech, counts, ESTIMATORS, engine=engine, seed=seed, index=i, trials=size)
             for i, size in lab.chunk_plan(trials)]
    return lab.merge_results(parts)


@st.cache_data(show_spinner=False, max_entries=128)
def _simulate_numerical(name: str, reconstruction: str | None, epsilon: float, counts: np.ndarray, edges: np.ndarray,
                        engine: str, trials: int, seed: int) -> np.ndarray:
    """``trials`` collections by a registered numerical mechanism: estimates (trials, d); keyed by every
    input including the seed (same seed → the same collections for every reconstruction)."""
    mech = ldp.get_mechanism(name, epsilon, int(counts.shape[0]))
    method = reconstruction or mech.default_estimator
    result = ldp.simulate(mech, counts, estimators=[method], engine=engine, trials=trials, seed=seed, edges=edges)
    return result.estimates[method]


@st.cache_data(show_spinner=False, max_entries=64)
def _metrics(edges: np.ndarray, truth: np.ndarray, estimates: np.ndarray, alphas: tuple[float, ...],
             seed: int) -> dict[str, np.ndarray]:
    names = ["wasserstein", "ks", "mean_error", "variance_error", "quantile_error",
             *(f"range_mae_{a:g}" for a in alphas)]
    return metrics_over_trials(truth, estimates, names, edges=edges, project=True, queries=RANGE_QUERIES,
                               rng=lambda: rng_for(seed, "range-queries"))


@st.cache_data(show_spinner=False, max_entries=64)
def _simulate_mean(mechanism: str, epsilon: float, counts: np.ndarray, edges: np.ndarray, engine: str, trials: int,
                   seed: int) -> Any:
    """SR/PM mean and variance of the population (every user at her bin's centre); keyed by every input."""
    centres = (edges[:-1] + edges[1:]) / 2.0
    values = np.repeat(centres, counts)
    return simulate_mean(mechanism, epsilon, values, (float(edges[0]), float(edges[-1])), engine=engine,
                         trials=trials, seed=seed)


@st.cache_data(show_spinner=False, max_entries=64)
def _bucket_warnings(sample: str, column: str, bins: int, lo: float | None, hi: float | None) -> list[str]:
    """The warnings ``bucketize`` issues for this sample column (e.g. more bins than distinct values)."""
    series = get_column(load_sample(sample), column)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        bucketize(series, bins, value_range=(lo, hi) if lo is not None and hi is not None else None,
                  out_of_range="clip", name=column)
    return [str(w.message) for w in caught if issubclass(w.category, UserWarning)]


def _show_bucket_warnings(data: common.Dataset) -> None:
    """st.warning for every bucketization warning of the chosen sample column (uploads and synthetic data have
    none to show here)."""
    ss = st.session_state
    if data.kind != "numerical" or ss.get("num_data_source", "Sample data") != "Sample data":
        return
    sample, column = ss.get("num_data_sample"), ss.get("num_data_column")
    if not sample or not column:
        return
    try:
        lo, hi = ss.get("num_data_lo"), ss.get("num_data_hi")
        messages = _bucket_warnings(sample, column, int(data.d), None if lo is None else float(lo),
                                    None if hi is None else float(hi))
    except ldp.LDPError:
        return  # the picker has already reported a bad column or range
    for message in messages:
        st.warning(f"Bins: {message}.")


# --------------------------------------------------------------------------- sidebar
def _controls() -> dict[str, Any]:
    with st.sidebar:
        st.header("Data")
        with common.friendly_errors("this column"):
            data = common.dataset_picker("num_data", default_sample="flights", default_column="dep_time_hours")
        st.caption(f"{data.description} · {data.d:,} bins")
        for note in data.notes:
            st.caption(note)
        st.header("Mechanism (CFO-binning)")
        mech = common.mechanism_picker("num_mech", default="oue", collections=("one-time",))
        st.header("Numerical mechanisms")
        names = NUMERICAL
        st.session_state.setdefault("num_nmechs", [n for n in DEFAULT_NUMERICAL if n in names])
        chosen = st.multiselect("Compare with", names, key="num_nmechs",
                                format_func=lambda n: ldp.MECHANISMS.get(n).display_name,
                                help="Registered numerical mechanisms, run on the same column, ε, n, seed and "
                                     "trials: " + "; ".join(f"{c.display_name}: {c.description}"
                                                            for c in ldp.mechanisms_of("numerical")))
        methods: list[tuple[str, str | None]] = []
        for name in chosen:
            cls = ldp.MECHANISMS.get(name)
            recs = list(cls.reconstructions)
            if not recs:
                methods.append((name, None))
                continue
            key = f"num_rec_{name}"
            st.session_state.setdefault(key, recs[:1])
            picked = st.multiselect(f"{cls.display_name}: reconstruction", recs, key=key,
                                    format_func=lambda r: r.upper(),
                                    help=f"Server-side reconstruction of {cls.display_name} (first = default). "
                                         "Every reconstruction sees the same collections.")
            methods += [(name, r) for r in picked]
        st.header("Privacy")
        eps = common.epsilon_slider("num_eps")
        st.header("Experiment")
        st.session_state.setdefault("num_users", DEFAULT_USERS)
        users = st.number_input("Number of users n", min_value=10, max_value=MAX_USERS, step=10_000, key="num_users",
                                help="n users are drawn once (seeded) from the column's binned distribution.")
        st.session_state.setdefault("num_trials", 20)
        trials = st.number_input("Trials (repeated collections)", min_value=1, max_value=MAX_TRIALS, step=5,
                                 key="num_trials", help="The metrics are averaged over the trials; the figures show "
                                                        "the first one.")
        st.session_state.setdefault("num_engine", "fast")
        engine = st.radio("Engine", ["fast", "exact"], key="num_engine", horizontal=True,
                          format_func=lambda e: {"fast": "fast (aggregate counts)", "exact": "exact (every user)"}[e])
        st.session_state.setdefault("num_seed", 0)
        seed = st.number_input("Seed", min_value=0, max_value=2**31 - 1, step=1, key="num_seed",
                               help="Same seed and settings → same result.")
    return {"data": data, "mech": mech, "eps": float(eps), "users": int(users), "trials": int(trials),
            "engine": engine, "seed": int(seed), "methods": methods}


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
    st.session_state.setdefault("num_alpha", list(DEFAULT_ALPHAS))
    alphas = st.multiselect("Range-query widths α (share of the domain)", ALPHAS, key="num_alpha",
                            format_func=lambda a: f"{a:g}",
                            help=f"{RANGE_QUERIES} random ranges [i, i + α·(hi − lo)] per width, i uniform; error = "
                                 "|true − estimated fraction of users in the range|.")
    common.write_to_url(KEYS)
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
               f"{unit} squared, KS and range queries in fractions of users. Every metric first projects an estimate "
               "that is negative or does not sum to one onto the probability simplex with Norm-Sub (raw MI would "
               "give the same numbers as MI + Norm-Sub).")
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
                   "random range queries); lower is better everywhere. Units as in the table above.")


# --------------------------------------------------------------------------- page
def main() -> None:
    common.restore_from_url(KEYS)
    _sanitize()
    st.title("Numerical distributions")
    st.caption("A numerical column (time of day, temperature, …) collected under local differential privacy, shown "
               "and scored in its own units. Today's method is CFO-binning: cut the range into equal-width bins, "
               "collect every user's bin with a categorical frequency oracle, estimate the histogram with matrix "
               "inversion + Norm-Sub, and read it as uniform within each bin.")
    ctl = _controls()
    common.write_to_url(KEYS)
    data: common.Dataset = ctl["data"]
    _show_bucket_warnings(data)
    if data.kind != "numerical" or data.edges is None:
        st.error(f"'{data.name}' is categorical: pick a numerical column in the sidebar (e.g. dep_time_hours or "
                 "distance in the flights sample, temp in the weather sample) or a numerical synthetic "
                 "distribution (uniform, gaussian, exponential, beta, …).")
        st.stop()
    cls = ldp.MECHANISMS.get(ctl["mech"])
    if cls.collection != "one-time":
        st.error(f"{cls.display_name} is a longitudinal mechanism: this page compares one-time collections. Pick a "
                 "one-time mechanism (GRR, OUE, OLH, …) in the sidebar.")
        st.stop()
    with common.friendly_errors("this configuration"):
        ldp.get_mechanism(ctl["mech"], ctl["eps"], data.d)  # validates before the run
        counts = lab.draw_population(np.asarray(data.counts), ctl["users"], ctl["seed"])
    methods = ctl["methods"]
    seconds = cost.estimated_seconds(ctl["users"], data.d, ctl["trials"], ctl["engine"]) * (1 + len(methods))
    seconds += SECONDS_PER_BUCKET_TRIAL * data.d * ctl["trials"] * len(methods)
    if seconds > BLOCK_S:
        st.error(f"This run would take about {seconds / 60:.0f} minutes: use the fast engine, fewer trials or fewer "
                 "users.")
        st.stop()
    if seconds > WARN_S:
        st.warning(f"This run may take about {seconds:.0f} s ({ctl['trials']} trials on the {ctl['engine']} engine). "
                   "The fast engine gives the same distribution of results in a fraction of a second.")
    with common.friendly_errors("this configuration"), st.spinner("Simulating the collections…"):
        result = _simulate(ctl["mech"], ctl["eps"], counts, ctl["engine"], ctl["trials"], ctl["seed"])

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
    common.download_buttons(table, {**common.config_of(KEYS), **config}, key="num_download", name="ldp-numerical")


@st.fragment
def _mean_section(data: common.Dataset, counts: np.ndarray, edges: np.ndarray, ctl: dict[str, Any]) -> None:
    """Mean and variance with SR or PM (§2.2, §6.3); choosing the mechanism reruns only this fragment."""
    st.header("Mean and variance")
    st.session_state.setdefault("num_mean_mech", "pm")
    name = st.radio("Mean mechanism", MEAN, key="num_mean_mech", horizontal=True,
                    format_func=lambda m: ldp.MECHANISMS.get(m).display_name,
                    help="Each user maps her value to [−1, 1] (the column's range) and reports it once with ε; "
                         "the server averages. The variance uses the 50/50 split of §6.3: half the users report "
                         "their value, the other half their squared distance to that half's mean.")
    common.write_to_url(KEYS)
    n, trials, eps = int(counts.sum()), ctl["trials"], ctl["eps"]
    if n < 2:
        st.info("The mean and variance need at least two users.")
        return
    seconds = SECONDS_PER_MEAN_USER_TRIAL * n * trials
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
    mechs = {m: ldp.get_mechanism(m, eps) for m in MEAN}
    better = min(mechs, key=lambda m: mechs[m].worst_case_variance())
    with common.friendly_errors("the mean figure"):
        fig = viz.mean_trials_figure(res.estimated_mean, res.true_mean, se, name=data.name, unit=unit,
                                     title=f"Estimated mean per trial — {mechs[name].display_name}, ε = {eps:g}, "
                                           f"n = {n:,}")
        table = viz.mean_variance_table(res.true_mean, res.true_variance, res.estimated_mean,
                                        res.estimated_variance, se, unit)
        common.show_figure(fig, "num_mean_fig", table, description=(
            f"Dots: the mean of {data.name} estimated by {mechs[name].display_name} in each of {trials} trial(s); "
            "black line: the true mean; dashed lines: the true mean ± 1.96 closed-form standard errors, where about "
            "95 % of the dots should fall."))
    st.dataframe(table, key="num_mean_table", hide_index=True,
                 column_config={c: st.column_config.NumberColumn(format="%.4g")
                                for c in ("true", "average estimate", "mean absolute error", "RMSE",
                                          "closed-form SE")})
    note = engine_note(mechs[name], ctl["engine"])
    st.caption(f"Users sit at the centre of their bin; true values are the population's. Mean: {note}. Variance: "
               "the 50/50 split of §6.3 with every client simulated. Closed-form SE of the mean = "
               f"√(Σ Var[ṽ | v])/n mapped to {unit or 'the data’s units'}: {se:.4g}.")
    st.info(f"**SR or PM?** Their worst-case variances cross at ε ≈ 1.29: Stochastic Rounding is better below, the "
            f"Piecewise Mechanism above (Wang et al.; square-wave paper §2.2). At ε = {eps:g} the lower worst-case "
            f"variance is {mechs[better].display_name}'s ({mechs[better].worst_case_variance():.4g} vs "
            f"{max(m.worst_case_variance() for m in mechs.values()):.4g} on [−1, 1]).")


def _numerical_section(ctl: dict[str, Any], data: common.Dataset, counts: np.ndarray, edges: np.ndarray,
                       truth: np.ndarray, reference: dict[str, np.ndarray], what: str) -> dict[str, np.ndarray]:
    """Run every chosen (numerical mechanism, reconstruction) on the same population and overlay their first
    trial with CFO-binning's; returns label → estimates (trials, d) of the methods that ran."""
    st.header("Numerical mechanisms")
    if not ctl["methods"]:
        st.caption("No numerical mechanism chosen: pick one or more in the sidebar (e.g. Square Wave with EMS) "
                   "to compare them with CFO-binning on this column.")
        return {}
    out: dict[str, np.ndarray] = {}
    with st.spinner("Simulating the numerical mechanisms…"):
        for name, rec in ctl["methods"]:
            cls = ldp.MECHANISMS.get(name)
            label = viz.method_label(cls.display_name, rec)
            try:
                out[label] = _simulate_numerical(name, rec, ctl["eps"], counts, edges, ctl["engine"], ctl["trials"],
                                                 ctl["seed"])
            except ldp.LDPError as exc:
                st.warning(f"{label} cannot run on this configuration and is left out: {exc}")
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


main()
