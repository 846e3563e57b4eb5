"""LDP Explorer — minimal dashboard: one simulation on the bundled sample data or synthetic data.

Run with ``./dev app``. The page only wires widgets to the ``ldp`` package: data encoding, the
simulation and the figures are library calls (``ldp.data``, ``ldp.simulate``, ``ldp.viz``).
The full multi-page dashboard (trade-off curves, numerical distributions, post-processing lab,
Learn) is tracked in its own issue; this page says so rather than pretending.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

import ldp
from ldp.data import bucketize, encode_categorical, get_column, list_samples, load_sample, sample_counts
from ldp.data.synthetic import SYNTHETIC, generate, true_distribution
from ldp.viz import histogram_overlay, metrics_table

st.set_page_config(page_title="LDP Explorer", page_icon="🔒", layout="wide")


@st.cache_data(show_spinner=False)
def _encoded_sample(sample: str, column: str, buckets: int):
    df = load_sample(sample)
    meta = next(c for s in list_samples() if s["name"] == sample for c in s["columns"] if c["name"] == column)
    series = get_column(df, column)
    if meta["kind"] == "numerical":
        rng = tuple(meta["range"]) if "range" in meta else None
        enc = bucketize(series, buckets, value_range=rng, out_of_range="clip", name=column)
    else:
        enc = encode_categorical(series, name=column)
    return enc.true_counts(), list(enc.labels)


@st.cache_data(show_spinner=False)
def _run(mechanism: str, epsilon: float, d: int, counts: tuple[int, ...], estimators: tuple[str, ...],
         engine: str, seed: int):
    mech = ldp.get_mechanism(mechanism, epsilon, d)
    return ldp.simulate(mech, np.asarray(counts), estimators=list(estimators), engine=engine, seed=seed)


def main() -> None:
    st.title("LDP Explorer")
    st.caption("How wrong is a histogram collected under local differential privacy? Pick data, a mechanism "
               "and ε; the server's estimate is compared with the truth. Smaller ε = more private = noisier.")
    with st.sidebar:
        st.header("Data")
        source = st.radio("Source", ["Sample data", "Synthetic"], key="source", horizontal=True)
        if source == "Sample data":
            samples = list_samples()
            sample = st.selectbox("Dataset", [s["name"] for s in samples], key="sample",
                                  format_func=lambda s: next(x["title"] for x in samples if x["name"] == s))
            info = next(s for s in samples if s["name"] == sample)
            cols = [c["name"] for c in info["columns"]]
            default = cols.index(info.get("default_column", cols[0])) if info.get("default_column") in cols else 0
            column = st.selectbox("Column", cols, index=default, key="column")
            kind = next(c["kind"] for c in info["columns"] if c["name"] == column)
            buckets = st.slider("Bins (numerical columns)", 4, 256, 48, key="buckets", disabled=kind != "numerical")
        else:
            spec_name = st.selectbox("Distribution", list(SYNTHETIC), key="synthetic")
            d_syn = st.slider("Domain size d", 2, 1024, 100, key="d_syn")
        st.header("Mechanism")
        mechanisms = ldp.MECHANISMS.names()
        mechanism = st.selectbox("Mechanism", mechanisms, index=mechanisms.index("oue"), key="mechanism",
                                 format_func=lambda m: ldp.MECHANISMS.get(m).display_name)
        st.caption(ldp.MECHANISMS.get(mechanism).description)
        epsilon = st.slider("ε (left: more private, right: more accurate)", 0.05, 10.0, 1.0, 0.05, key="epsilon")
        users = st.number_input("Users n", 100, 10**9, 200_000, step=10_000, key="users")
        estimators = st.multiselect("Estimators", ldp.ESTIMATORS.names(), default=["mi", "norm-sub"],
                                    key="estimators")
        engine = st.radio("Engine", ["fast", "exact"], key="engine", horizontal=True,
                          help="fast samples the aggregate counts (O(d)); exact randomizes every user")
        seed = st.number_input("Seed", 0, 2**31 - 1, 0, key="seed")

    try:
        rng = np.random.default_rng(int(seed))
        if source == "Sample data":
            data_counts, labels = _encoded_sample(sample, column, int(buckets))
            freqs = data_counts / data_counts.sum()
        else:
            spec = f"{spec_name}:d={d_syn}"
            freqs = true_distribution(spec)
            labels = list(generate(spec, 10, rng).labels)
        counts = sample_counts(freqs, int(users), rng)
        if not estimators:
            st.error("Choose at least one estimator in the sidebar.")
            return
        if engine == "exact" and int(users) * len(labels) > 2 * 10**8:
            st.warning("The exact engine randomizes every user; this size may take a while.")
        result = _run(mechanism, float(epsilon), len(labels), tuple(int(c) for c in counts), tuple(estimators),
                      engine, int(seed))
    except (ValueError, TypeError) as exc:
        st.error(f"Cannot run this configuration: {exc}")
        return

    sd = float(np.sqrt(result.theoretical_variance))
    st.markdown(f"With **{result.n:,} users** at **ε = {epsilon:g}**, {result.mechanism.display_name}'s "
                f"matrix-inversion estimate of each value is typically off by **±{sd:.2g}** "
                f"(closed-form standard deviation, averaged over the domain).")
    st.plotly_chart(histogram_overlay(result, labels), width="stretch", key="histogram")
    st.dataframe(metrics_table(result), key="metrics")
    st.info("Coming with the dashboard issue: CDF overlays, confidence bands, trade-off curves, numerical "
            "distributions (square wave + EMS), the post-processing lab and the Learn page.")


main()
