"""Frequent items — set-valued data under LDP: every user holds a set of items (a basket); padding and sampling
(PSFO), SVIM, SVSM (itemsets) and LDPMiner find the most frequent items and itemsets.

Wiring and text only: the methods are in ``ldp.studies.itemsets`` (the oracle in ``ldp.mechanisms.set_valued``),
the figures in ``ldp.viz.itemsets``.
"""

from __future__ import annotations

import hashlib
from typing import Any

import streamlit as st

import ldp
from ldp.data import list_samples, text_lines_from_bytes
from ldp.studies import itemsets as study
from ldp.viz import itemsets as viz
from views import common
from views.controls import Control, render

METHODS = {cls.name: cls.display_name for cls in ldp.protocols_of("itemsets")}
#: The bundled basket samples (``ldp.data.list_samples("baskets")``) are listed by their titles; their stand-in
#: labels are shown under the controls.
BASKET_SAMPLES = {s["name"]: s for s in list_samples("baskets")}
SOURCES = {"flights": "Flights: destinations per departure hour (real, 104 airports)",
           **{name: s["title"] for name, s in BASKET_SAMPLES.items()},
           "synthetic": "Synthetic: Zipf items, sets of about 4",
           "upload": "Upload: a basket file (one user per line, items separated by spaces)"}
METHOD = Control("is_method", "selectbox", "Method", "svim", options=list(METHODS), format_func=METHODS.get)
EPS = common.epsilon_control("is_eps", default=2.0)
SOURCE = Control("is_source", "radio", "Data", "flights", options=list(SOURCES), format_func=SOURCES.get)
USERS = Control("is_users", "number_input", "Users n (synthetic)", 100_000, min_value=1_000, max_value=1_000_000,
                step=50_000)
ITEMS = Control("is_items", "slider", "Items d (synthetic)", 200, min_value=4, max_value=200,
                help="The strawman (the set as one of 2^d values) runs only on small domains: "
                     f"at most {ldp.PROTOCOLS.get('strawman').max_items} items.")
TOP_K = Control("is_k", "slider", "k", 8, min_value=2, max_value=20)
LENGTH = Control("is_length", "slider", "PSFO: padding length ℓ", 4, min_value=1, max_value=32)
ENGINE = common.engine_control("is_engine")
SEED = common.seed_control("is_seed")
CONTROLS = (METHOD, EPS, SOURCE, USERS, ITEMS, TOP_K, LENGTH, ENGINE, SEED)
INTRO = ("Every user holds a set of items (a basket). The strawman reports the whole set as one of the 2^d subsets "
         "— hopeless beyond a few items. Padding and sampling: pad the set to ℓ items, report one of them with a "
         "frequency oracle, multiply by ℓ. SVIM chooses ℓ privately; SVSM then mines itemsets.")
LENGTHS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32)


@st.cache_data(show_spinner=False, max_entries=16)
def _sets(source: str, users: int, items: int, seed: int):
    if source in BASKET_SAMPLES:
        return study.sample_baskets(source)
    return study.flight_baskets() if source == "flights" else study.synthetic_sets(users, items, seed=seed)


def _uploaded_baskets():
    """The uploaded basket file as set-valued data (each line one user: its own population) and a key naming it
    (its content's digest), parsed once per session (session_state: one user's upload never reaches another); the
    page stops with a note in the main panel until a file is given."""
    up = st.sidebar.file_uploader(f"Basket file (one user per line, ≤ {common.UPLOAD_LIMIT_MB} MB)",
                                  type=["txt", "dat", "csv"], key="is_upload")
    cache = st.session_state.setdefault("_basket_uploads", {})
    if up is None and not cache:
        common.message_area().info("Upload a basket file in the sidebar: one user per line, the items of the user's "
                                   "set separated by spaces (or commas).", icon=":material/upload_file:")
        st.stop()
    if up is not None:
        raw = up.getvalue()
        if len(raw) > common.UPLOAD_LIMIT_MB * 1024 * 1024:
            raise ldp.LDPError(f"the file is larger than {common.UPLOAD_LIMIT_MB} MB; upload a smaller extract")
        digest = hashlib.sha256(raw).hexdigest()
        if digest not in cache:
            cache.clear()
            cache[digest] = (up.name, study.read_baskets(text_lines_from_bytes(raw, f"file '{up.name}'")))
    digest, (name, sets) = next(iter(cache.items()))
    st.sidebar.caption(f"**{common.plain(name)}**: {sets.users:,} users (lines), {sets.d:,} items.")
    return ("upload", digest), sets


def _population(source: str, users: int, items: int, seed: int):
    """(a key naming the data, its sets). Only synthetic sets depend on n, d and the seed: a bundled sample's key
    names the sample alone, so the sessions on their own seeds share it and every study keyed by it (ten sessions
    on ten seeds made ten keys for the same flights, which thrashed the cache: each ε change rebuilt them)."""
    if source == "upload":
        return _uploaded_baskets()
    key = (source, users, items, seed) if source == "synthetic" else (source, 0, 0, 0)
    return key, _sets(*key)


@st.cache_data(show_spinner=False, max_entries=32)
def _run(method: str, data_key: tuple, _sets_: Any, eps: float, k: int, length: int, engine: str, seed: int):
    """One miner's run on the sets named by ``data_key`` (``_sets_`` is not hashed: the key names it)."""
    miner = ldp.PROTOCOLS.get(method)
    params = {"length": length} if "length" in {p.name for p in miner.declared_parameters} else {}
    return miner.run(_sets_, eps, top_k=k, seed=seed, engine=engine, **params)


@st.cache_data(show_spinner=False, max_entries=16)
def _compare(data_key: tuple, _sets_: Any, eps: float, k: int, seed: int):
    return study.compare_miners(_sets_, eps, top_k=k, seeds=range(seed, seed + 3))


@st.cache_data(show_spinner=False, max_entries=32)
def _padding(data_key: tuple, _sets_: Any, eps: float, k: int):
    """The padding trade-off over ``LENGTHS`` on the sets named by ``data_key`` (computed once per input, not on
    every rerun of every session)."""
    return study.padding_tradeoff(_sets_, eps, LENGTHS, top_k=k)


def compare_panel(data_key: tuple, sets: Any, eps: float, k: int, seed: int) -> None:
    """The lecture's headline: SVIM against LDPMiner on the same data, ε and k (three runs each, fast engine), in
    an expander that runs only while open (six more runs of a miner: most of a rerun's work when ε moves, on every
    session's own seed). Opening it reruns the page; its state is bound to the URL (``is_compare_open``), so it
    stays open while ε moves and a link opens it at once."""
    box = common.lazy_expander("SVIM against LDPMiner: the lecture's headline", "is_compare_open")
    with box:
        if box.open:
            _compare_table(data_key, sets, eps, k, seed)


def _compare_table(data_key: tuple, sets: Any, eps: float, k: int, seed: int) -> None:
    with common.friendly_errors("the comparison"), st.spinner("Both miners run three times…"):
        table = _compare(data_key, sets, eps, k, seed)
    rows = table.set_index("method")
    sv, lm = rows.loc["svim"], rows.loc["ldpminer"]
    shown = table.assign(method=table["method"].map(METHODS)).rename(columns={
        "found": f"found of the true top {k}", "error": "error (MSE of the found items' estimates)",
        "length": "padding ℓ (median)"})
    st.dataframe(shown, hide_index=True, key="is_compare")
    ratio = sv["found"] / lm["found"] if lm["found"] > 0 else float("inf")
    st.markdown(f"The lecture: *SVIM can identify 3× more frequent items, with 3 magnitudes less errors.* Here, at "
                f"ε = {eps:g}, SVIM finds **{sv['found']:.1f}** of the true top {k} on average, LDPMiner "
                f"**{lm['found']:.1f}** ({ratio:.1f}×); the error of their estimates is {sv['error']:.2g} against "
                f"{lm['error']:.2g}. LDPMiner pads its first phase to a privately estimated ℓ (×ℓ² noise), SVIM to 1; "
                "our LDPMiner's 2k padding already uses the amplified GRR of the S&P'18 paper, so its error on the "
                "few (very frequent) items it finds is not larger.")


def main() -> None:
    chart_place = common.page_heading("Frequent items", INTRO)
    with st.sidebar:
        st.header("Frequent items")
        method = render(METHOD)
        eps = float(render(EPS))
        source = render(SOURCE)
        if source in BASKET_SAMPLES:
            st.caption(f"{BASKET_SAMPLES[source]['description']} This is a {BASKET_SAMPLES[source]['stand_in']}.")
        users = int(render(USERS, disabled=source != "synthetic"))
        items = int(render(ITEMS, disabled=source != "synthetic"))
        k = int(render(TOP_K))
        length = int(render(LENGTH, disabled=method != "psfo"))
        engine = render(ENGINE)
        seed = int(render(SEED))
    with common.friendly_errors("this configuration"), st.spinner("Every user reports…"):
        data_key, sets = _population(source, users, items, seed)
        res = _run(method, data_key, sets, eps, k, length, engine, seed)
    s = res.scores
    c1, c2, c3 = st.columns(3)
    c1.metric("Precision", f"{s['precision']:.0%}", help="Share of the found ones in the true top k.")
    c2.metric("NCR", f"{s['ncr']:.0%}", help="The i-th true one weighs k − i + 1: the weight found.")
    c3.metric("Padding ℓ used", str(res.parameters.get("length", "none")), help="SVIM, SVSM and LDPMiner choose it "
              "from a privately estimated length distribution; PSFO takes it from the slider; the strawman reports "
              "the whole set.")
    st.markdown(f"{sets.users:,} users, {sets.d:,} items, {sets.sizes.mean():.1f} per set on average. "
                f"**{METHODS[method]}** at ε = {eps:g} found {round(s['precision'] * len(res.items))} of the true "
                f"top {k}; the estimates' mean squared error is {s['mse']:.2g} (share of users²).")
    common.show_figure(viz.found_items_figure(res, METHODS[method]), "is_found_chart", viz.found_items_table(res),
                       main=True, where=chart_place, description=(
        "Grey bars: the true top k (only a simulation knows it); diamonds: what the method found, at its estimate."))
    st.dataframe(viz.found_items_table(res), hide_index=True, key="is_found")
    compare_panel(data_key, sets, eps, k, seed)
    st.subheader("Why ℓ matters: the lecture's two sources of error")
    table = _padding(data_key, sets, eps, k)
    best = int(table.loc[table["MSE"].idxmin(), "ℓ"])
    # the same for every seed: built once per data, ε and k and handed to every session
    figure = common.cached_figure(("is_padding", data_key, eps, k), lambda: viz.padding_figure(table))
    common.show_figure(figure, "is_padding_chart", table, description=(
        "For the k most frequent items: small ℓ cuts sets short (items of long sets are under-counted: dashed); "
        "large ℓ multiplies the oracle's noise by ℓ² (dotted)."))
    st.markdown(f"On this data at ε = {eps:g}, ℓ = **{best}** balances them; SVIM's privately chosen ℓ is the 90th "
                "percentile of the set lengths among the candidates.")


if __name__ == "__main__":  # Streamlit runs a page as __main__; tests import it for its controls
    main()
