"""Heavy hitters — the lecture's second half: finding the k most frequent values of a domain of 2^m values with a
frequency oracle that cannot be asked about every value (every registered protocol: PEM, TreeHist, PrivTrie, the
segment product and the teaching baselines).

Wiring and text only: the protocols are in ``ldp.mechanisms.heavy_hitters``, the population and scores in
``ldp.studies.heavy_hitters``, the figures in ``ldp.viz.heavy_hitters``.
"""

from __future__ import annotations

import hashlib

import numpy as np
import streamlit as st

import ldp
from ldp.data import get_column
from ldp.data.samples import load_sample
from ldp.studies.heavy_hitters import (
    column_values,
    find_heavy_hitters,
    precision_against_epsilon,
    precision_against_users,
    zipf_values,
)
from ldp.viz import heavy_hitters as viz
from views import common, offload
from views.controls import Control, render

SOURCES = {"zipf": "Synthetic Zipf over 2^m (heavy values at random positions)",
           "flight": "Flights: flight numbers (real, 3,844 distinct, 14 bits)",
           "upload": "Upload: a column of non-negative integers (one row per user)"}
METHODS = [c.name for c in ldp.protocols_of("heavy-hitters")]
METHOD = Control("hh_method", "selectbox", "Method", "pem", options=METHODS,
                 format_func=lambda m: ldp.PROTOCOLS.get(m).display_name)
EPS = common.epsilon_control("hh_eps", default=2.0)
SOURCE = Control("hh_source", "radio", "Data", "zipf", options=list(SOURCES), format_func=SOURCES.get)
BITS = Control("hh_bits", "slider", "Bits m (domain 2^m)", 24, min_value=8, max_value=64,
               help="Synthetic data and uploads; the flight numbers need 14 bits.")
USERS = Control("hh_users", "number_input", "Users n", 100_000, min_value=1_000, max_value=2_000_000, step=50_000)
TOP_K = Control("hh_k", "slider", "k (heavy hitters to find)", 8, min_value=1, max_value=32)
ETA = Control("hh_eta", "slider", "PEM: bits per round η (the paper's default: 4)", 4, min_value=1, max_value=8,
              help="The lecture's question: more bits per phase (fewer groups, more users each, more candidates) or "
                   "fewer (more rounds, fewer candidates)?")
THRESHOLD = Control("hh_threshold", "number_input", "PEM: keep prefixes above this frequency (0: the top k)", 0.0,
                    min_value=0.0, max_value=0.5, step=0.005, format="%.3f",
                    help="PEM's threshold variant: every prefix whose estimate is above it survives a round.")
SEGMENTS = Control("hh_segments", "slider", "Segments", 4, min_value=2, max_value=8)
CHANNELS = Control("hh_channels", "select_slider", "Channels", 64, options=[16, 64, 256, 1024],
                   help="More channels: fewer heavy hitters collide, more bits per user.")
ROUND = Control("hh_round", "slider", "Round shown", min_value=1,
                depends=lambda rounds: {"max_value": max(2, rounds), "default": rounds}, follows_data=True,
                help="Another configuration has other rounds: the last one (the answer) is shown first.")
SEED = common.seed_control("hh_seed")
DATA = common.data_controls("hh_data")  # only its uploader key is used (uploads are shared across pages)
UPLOAD_COLUMN = Control("hh_upcol", "selectbox", "Column", depends=lambda columns: {"options": columns,
                                                                                   "default": columns[0]})
AXIS = Control("hh_axis", "radio", "Compare the methods against", "epsilon", options=["epsilon", "users"],
               format_func={"epsilon": "ε", "users": "the number of users n (at this ε)"}.get, horizontal=True)
#: Each protocol's declared parameters without a control of their own above (PEM's start, oracle and groups,
#: PrivTrie's keep, the oracle of TreeHist and the segment methods), generated from its Param table.
PROTOCOL_PARAMS = common.parameter_controls("hh_p", [ldp.PROTOCOLS.get(m) for m in METHODS],
                                            skip=("bits", "top_k", "eta", "threshold", "segments", "channels"))
CONTROLS = (METHOD, EPS, SOURCE, UPLOAD_COLUMN, BITS, USERS, TOP_K, ETA, THRESHOLD, SEGMENTS, CHANNELS, ROUND, SEED,
            AXIS, *(control for pairs in PROTOCOL_PARAMS.values() for _, control in pairs))
INTRO = ("Find the k most frequent values when there are 2^m possible ones — too many to ask a frequency "
         "oracle about each. Users are split into groups; each group reports a prefix of its value, and "
         "the server extends only the prefixes that look frequent.")
CURVE_EPS = (0.5, 1.0, 2.0, 4.0, 8.0)
CURVE_USERS = 20_000  # the comparison runs every method at every ε: on at most this many of the users
#: Runs up to this many user-bits (n·m) go to a worker process (see _run): the largest default-sized runs.
OFFLOAD_USER_BITS = 8_000_000
USER_GRID = (2_000, 5_000, 10_000, 20_000)


@st.cache_data(show_spinner=False, max_entries=16)
def _values(source: str, bits: int, users: int, seed: int) -> np.ndarray:
    if source == "zipf":
        return zipf_values(users, bits, seed=seed)
    values, _ = column_values(load_sample("flights")["flight"], bits)
    return values


def _population(source: str, bits: int, users: int, seed: int) -> tuple[tuple, np.ndarray]:
    """(a key naming the data, every user's value): a sample or synthetic population, or — an upload, its own
    population — one user per row of the chosen column (drawn in the sidebar; keyed by the values' digest, so a
    configuration's cached run is only ever found again from the same values)."""
    if source != "upload":
        return (source,), _values(source, bits, users, seed)
    name, table = common.uploaded_table(DATA, st.sidebar)
    column = render(UPLOAD_COLUMN, st.sidebar, columns=[str(c) for c in table.columns])
    values, dropped = column_values(get_column(table, column), bits)
    st.sidebar.caption(f"{values.size:,} users (rows) of **{common.plain(name)}**"
                       + (f"; {dropped:,} rows without a value left out" if dropped else "") + ".")
    return ("upload", hashlib.sha256(values.tobytes()).hexdigest()), values


def _run(data_key: tuple, values: np.ndarray, bits: int, users: int, k: int, seed: int, method: str, eps: float,
         params: tuple):
    """The protocol's run, once per configuration for the whole server, with a progress bar (one step a round).

    A run of at most :data:`OFFLOAD_USER_BITS` user-bits (n·m; the defaults' 100,000 × 24 take 20-90 ms) goes to
    a worker process (views/offload.py), off the server's interpreter lock: it was most of the server process's
    CPU in an ε change (0.11 → 0.03 s per rerun), and ten sessions moving ε at once queued behind each other's runs
    (benchmarks/bench_concurrency.py, heavy hitters, distinct seeds, burst: p95 1.17-1.37 s → 0.48-0.59 s). A
    longer run stays here, where its bar advances each round and closing the tab stops it."""
    key = ("hh-run", data_key, bits, users, k, seed, method, eps, params)

    def compute(progress):  # noqa: ANN001, ANN202 - the progress callback of common.cached_with_progress
        settings = {"bits": bits, "top_k": k, "seed": seed, **dict(params)}
        if values.size * bits <= OFFLOAD_USER_BITS:
            return offload.call(find_heavy_hitters, method, eps, values, **settings)
        return find_heavy_hitters(method, eps, values, progress=progress, **settings)

    return common.cached_with_progress(key, "Every user reports; the server runs its rounds…", compute)


def _curves_key(source: tuple, bits: int, users: int, k: int, seed: int, eta: int, segments: int, channels: int,
                axis: str, eps: float) -> tuple:
    """The comparison's configuration: ε only when the curve is against n (against ε it runs every ε anyway)."""
    return ("hh-curves", source, bits, users, k, seed, eta, segments, channels, axis, eps if axis == "users" else None)


def _curves(key: tuple, values: np.ndarray, progress):
    _, _, bits, _, k, seed, eta, segments, channels, axis, eps = key
    params = {"pem": {"eta": eta}, "segments": {"segments": segments}, "segment-pair": {"segments": segments},
              "multiple-channel": {"channels": channels}}
    if axis == "users":
        return precision_against_users(METHODS, USER_GRID, values, epsilon=eps, bits=bits, top_k=k,
                                       seed=seed, params=params, progress=progress)
    if values.size > CURVE_USERS:
        values = np.random.default_rng(seed).choice(values, size=CURVE_USERS, replace=False)
    return precision_against_epsilon(METHODS, CURVE_EPS, values, bits=bits, top_k=k, seed=seed,
                                     params=params, progress=progress)


@st.fragment
def comparison(source: tuple, values: np.ndarray, bits: int, users: int, k: int, seed: int, params: dict,
               eps: float) -> None:
    """The methods side by side: a fragment (its own controls rerun only it), computed when asked for (every method
    at every ε takes seconds), then shown at once for this configuration to every visitor of the server."""
    st.subheader("The methods side by side")
    axis = render(AXIS)
    key = _curves_key(source, bits, users, k, seed, int(params.get("eta", 4)), int(params.get("segments", 4)),
                      int(params.get("channels", 64)), axis, eps)
    n = int(values.size)
    if not common.is_cached(key) and not st.button("Compare every method", key="hh_compare", type="primary",
                                                   help="Runs every method on the same users; a few seconds."):
        st.caption("Every method on the same users " + ("at ε = " + ", ".join(f"{e:g}" for e in CURVE_EPS)
                                                          if axis == "epsilon" else f"at ε = {eps:g} and several n")
                   + ": press the button to run them (a few seconds), once per configuration.")
        return
    with common.friendly_errors("the comparison"):
        curves = common.cached_with_progress(key, "Running every method…",
                                             lambda progress: _curves(key, values, progress))
    for note in curves.attrs.get("skipped", []):
        st.caption(f"Left out of the comparison: {common.plain(note)}")
    if axis == "epsilon":
        description = (f"Each method on the same {min(n, CURVE_USERS):,} users"
                       + (f" (a random {CURVE_USERS:,} of the {n:,}, to keep the page quick)"
                          if n > CURVE_USERS else "") + " at ε = " + ", ".join(f"{e:g}" for e in CURVE_EPS)
                       + ".")
    else:
        description = (f"Each method at ε = {eps:g} with n = " + ", ".join(f"{n:,}" for n in USER_GRID)
                       + " users drawn from the data (the same users for every method): the detection limit falls "
                         "as 1/√n.")
    common.show_figure(viz.precision_figure(curves, axis), "hh_precision_chart", curves, description=description)


def main() -> None:
    chart_place = common.page_heading("Heavy hitters", INTRO)
    with st.sidebar:
        st.header("Heavy hitters")
        method = render(METHOD)
        st.caption(f"{ldp.PROTOCOLS.get(method).description}. _{ldp.PROTOCOLS.get(method).paper}_")
        eps = float(render(EPS))
        source = render(SOURCE)
        bits = int(render(BITS)) if source != "flight" else 14
        users = int(render(USERS, disabled=source != "zipf"))
        k = int(render(TOP_K))
        params: dict = {}
        if method == "pem":
            params["eta"] = int(render(ETA))
            threshold = float(render(THRESHOLD))
            if threshold > 0:
                params["threshold"] = threshold
        if method in ("segments", "segment-pair"):
            params["segments"] = int(render(SEGMENTS))
        if method == "multiple-channel":
            params["channels"] = int(render(CHANNELS))
        if method in PROTOCOL_PARAMS:
            params.update(common.render_parameters(
                PROTOCOL_PARAMS[method], f"Advanced: {ldp.PROTOCOLS.get(method).display_name} parameters "
                                         "(blank or default = the paper's choice)"))
        seed = int(render(SEED))
    with common.friendly_errors("this configuration"):
        data_key, values = _population(source, bits, users, seed)
        run = _run(data_key, values, bits, users, k, seed, method, eps, tuple(sorted(params.items())))
    res = run.result
    s = run.scores
    c1, c2, c3, c4 = st.columns(4)
    c1.metric("Precision", f"{s['precision']:.0%}", help="Share of the found values that are in the true top k.")
    c2.metric("NCR", f"{s['ncr']:.0%}", help="The i-th true heavy hitter weighs k − i + 1: the weight found.")
    c3.metric("Candidates probed", f"{res.candidates_probed:,}", help="Prefixes the server asked the oracle about.")
    c4.metric("Rounds (groups)", f"{len(res.rounds)}", help="Each group of users answers one round.")
    found = set(res.values.tolist())
    missed = [int(v) for v in run.true_values if int(v) not in found]
    what = "flight" if source == "flight" else "value"
    verdict = (f"With {res.users:,} users at ε = {eps:g}, {ldp.PROTOCOLS.get(method).display_name} found "
               f"{len(found & set(run.true_values.tolist()))} of the true top {k}"
               + (f"; missed {viz.value_names(missed[:5], what)}" if missed else "") + ". ")
    limit = res.rounds[-1].detection_limit
    weakest = float(run.true_frequencies[-1])
    verdict += (f"The last round can tell apart frequencies above about {limit:.2%} (3σ); the k-th true heavy "
                f"hitter has {weakest:.2%}" + (" — below the limit, so expect misses." if weakest < limit else "."))
    st.markdown(verdict)
    for note in res.notes:
        st.caption(common.plain(note))
    index = int(render(ROUND, rounds=len(res.rounds))) - 1 if len(res.rounds) > 1 else 0
    index = min(index, len(res.rounds) - 1)
    table = viz.round_table(res, index, values)
    common.show_figure(viz.round_figure(res, index, table, params.get("threshold")), "hh_round_chart", table,
                       main=True, where=chart_place, description=(
        "Bars: the oracle's estimate of each candidate prefix among this round's users (blue: kept for the next "
        "round); diamonds: the true frequency of the prefix among all users (only a simulation knows it); dashed: "
        "the detection limit — below it an estimate is indistinguishable from noise."))
    st.dataframe(viz.found_table(run, what), hide_index=True, key="hh_found")
    comparison(data_key, values, bits, users, k, seed, params, eps)

if __name__ == "__main__":  # Streamlit runs a page as __main__; tests import it for its controls
    main()
