"""Data with more than one column — the joint distribution of two correlated columns under LDP: one oracle over the
product domain, the marginals multiplied (which assumes independence), CALM's marginals, HDG's grids for range
queries.

Wiring and text only: the methods are in ``ldp.studies.joint`` and ``ldp.studies.joint_ranges``, the figure and
table in ``ldp.viz.joint``.
"""

from __future__ import annotations

import streamlit as st

import ldp
from ldp.data import list_samples, load_sample
from ldp.data.joint import joint_from_table
from ldp.studies import joint as study
from ldp.studies.datasets import guess_kind, usable_columns
from ldp.viz import joint as viz
from views import common
from views.controls import Control, render

SOURCES = ("Correlated pair (synthetic)", "Sample data", "Upload")
SOURCE = Control("jt_source", "radio", "Data", SOURCES[0], options=list(SOURCES), horizontal=True,
                 help="A synthetic pair whose correlation you set, or two or three columns of a table (each row is "
                      "one user: the table is its own population).")
SAMPLE = Control("jt_sample", "selectbox", "Sample", "flights", options=[s["name"] for s in list_samples()])
#: The sample's columns picked first (carriers fly from their hubs: a strong dependence split cannot see).
DEFAULT_COLUMNS = {"flights": ["origin", "carrier"], "election": ["party", "votes_dole"],
                   "planes": ["engine", "engines"], "weather": ["origin", "month"]}
COLUMNS = Control("jt_columns", "multiselect", "Columns (2 or 3)",
                  depends=lambda columns, default: {"options": columns, "default": default},
                  help="Two columns draw their joint; three are estimated together and drawn summed over the third.")
BUCKETS = Control("jt_buckets", "slider", "Bins per numerical column", 10, min_value=2, max_value=64,
                  help="A numerical column is cut into this many equal-width bins over its own range.")
EPS = common.epsilon_control("jt_eps", default=1.0)
USERS = Control("jt_users", "select_slider", "Users n", 100_000, options=[10_000, 100_000, 1_000_000],
                format_func=lambda n: f"{n:,}")
SIZE = Control("jt_d", "select_slider", "Values per column", 10, options=[4, 10, 20, 50])
RHO = Control("jt_rho", "slider", "Correlation ρ (share of users whose second value copies the first)", 0.8,
              min_value=0.0, max_value=1.0, step=0.1)
SEED = common.seed_control("jt_seed")
DATA = common.data_controls("jt_data")  # only its uploader key is used (uploads are shared across pages)
CONTROLS = (SOURCE, SAMPLE, COLUMNS, BUCKETS, EPS, USERS, SIZE, RHO, SEED)
INTRO = ("Every user holds two (or three) values. Estimate how often each combination occurs: one frequency oracle "
         "over all of them (product), each column from its share of the users then multiplied (split — right only "
         "if the columns are independent), CALM's marginals, or HDG's grids (built for range queries).")


@st.cache_data(show_spinner=False, max_entries=16)
def _compare(d: int, rho: float, n: int, eps: float, seed: int):
    return study.compare_methods(f"correlated:d1={d},d2={d},rho={rho:g}", n, eps, seed=seed)


@st.cache_data(show_spinner=False, max_entries=16)
def _compare_sample(sample: str, columns: tuple[str, ...], buckets: int, eps: float, seed: int):
    return study.compare_on(_table_population(load_sample(sample), columns, buckets, f"sample {sample}"), eps,
                            seed=seed)


def _table_population(table, columns: tuple[str, ...], buckets: int, source: str):
    numerical = {c: buckets for c in columns if guess_kind(table[c]) == "numerical"}
    return joint_from_table(table, columns, buckets=numerical, source=source)


def _columns(options: list[str], default: list[str]) -> tuple[str, ...]:
    picked = tuple(render(COLUMNS, columns=options, default=[c for c in default if c in options] or options[:2]))
    if not 2 <= len(picked) <= 3:
        raise ldp.InvalidInput(f"pick two or three columns (picked {len(picked)}) in the sidebar's “Columns”")
    return picked


def _title(results, eps: float) -> str:
    shape = " × ".join(str(len(lab)) for lab in results[0].labels)
    return f"{shape} combinations, ε = {eps:g}, n = {results[0].settings['users']:,}"


def main() -> None:
    chart_place = common.page_heading("Data with more than one column", INTRO)
    with st.sidebar:
        st.header("Joint distribution")
        source = render(SOURCE)
        eps = float(render(EPS))
    with common.friendly_errors("this configuration"), st.spinner("Every user reports…"):
        with st.sidebar:
            if source == SOURCES[0]:
                n, d, rho = int(render(USERS)), int(render(SIZE)), float(render(RHO))
                seed = int(render(SEED))
                results, advice = _compare(d, rho, n, eps, seed)
                title = f"{d} × {d} pairs, ρ = {rho:g}, ε = {eps:g}, n = {n:,}"
            elif source == SOURCES[1]:
                sample = render(SAMPLE)
                table = load_sample(sample)
                columns = _columns(usable_columns(table), DEFAULT_COLUMNS.get(sample, []))
                buckets, seed = int(render(BUCKETS)), int(render(SEED))
                results, advice = _compare_sample(sample, columns, buckets, eps, seed)
                title = _title(results, eps)
            else:
                name, table = common.uploaded_table(DATA, st.sidebar)
                columns = _columns(usable_columns(table), [])
                buckets, seed = int(render(BUCKETS)), int(render(SEED))
                population = _table_population(table, columns, buckets, f"uploaded file {common.plain(name)}")
                results, advice = study.compare_on(population, eps, seed=seed)  # per session: never cached
                title = _title(results, eps)
            if source != SOURCES[0]:
                st.caption(f"Each of the table's {results[0].settings['users']:,} rows with all the columns is one "
                           "user: the table is its own population.")
    table = viz.metrics_table(results)
    by_method = table.set_index("method")
    limit = study.independence_tvd(results[0].truth)
    common.show_figure(viz.heatmaps_figure(results, title), "jt_chart", table, main=True, where=chart_place,
                       description=(
        "Heat maps of the frequency of every combination: the truth (only a simulation knows it), then each "
        "method's estimate on the same colour scale. Dependent columns concentrate their mass; split spreads it "
        "as if the columns were independent."))
    st.dataframe(table, hide_index=True, key="jt_metrics")
    st.markdown(f"Total variation distance to the truth: product **{by_method.loc['product', 'tvd']:.3f}**, split "
                f"**{by_method.loc['split', 'tvd']:.3f}** — split multiplies the marginals, so however many "
                f"users report, it converges to the independent table, {limit:.3f} away from the truth "
                "here. The advisor, from closed-form variances: " + advice.reasoning)
    st.caption("From the command line: `ldp joint --epsilon 1 --synthetic correlated:d1=10,d2=10,rho=0.8 --users "
               "100000 --queries 200` (or `--data FILE --columns a,b[,c]`) prints every cell's estimate and truth.")


if __name__ == "__main__":  # Streamlit runs a page as __main__; tests import it for its controls
    main()
