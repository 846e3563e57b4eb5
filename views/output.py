"""What a page shows: the estimators' diagnostics, the heading and the main chart slot (presentation mode), figures
with their data and description, downloads and the configuration loader.

Streamlit only: every computation is a call into ``ldp``."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
import streamlit as st

import ldp
from ldp.data.loaders import load_json_object
from ldp.data.spreadsheet import safe_frame
from ldp.studies.choices import SMOOTHNESS_WARN, smoothness
from ldp.studies.datasets import Dataset
from ldp.viz.style import figure_spec, figure_spec_on, for_projector, label_log_axes
from views import offload
from views.controls import (
    Control,
    load_configuration,
    presenting,
)
from views.messages import friendly_errors  # noqa: F401

__all__ = ["CONTEXT_KEYS", "MAIN_CHART_KEY", "PRESENT_HEIGHT", "built_elsewhere", "cached_figure",
           "csv_bytes", "download_buttons", "estimator_notes", "lazy_expander", "main_chart_slot", "page_heading",
           "share_figure", "show_figure", "with_context"]

# --------------------------------------------------------------------------- output
def lazy_expander(title: str, key: str, container: Any = st, *, in_url: bool = True) -> Any:
    """A section computed on demand: an expander, closed by default, whose content the caller draws only while it
    is open (``if box.open:``; opening it reruns the page, or the fragment it is in). Its state is bound to the URL
    under ``key`` (by convention ``<page>_<section>_open``), so it stays open while ε moves and a link opens it at
    once. For the secondary studies — a comparison, a check by simulation, an advisor, a sweep — that would cost a
    rerun most of its work when ε moves on every session's own seed (ten sessions share the server's one
    interpreter lock: a rerun has about 0.1 s of CPU). ``container`` is where it goes (default: the page's current
    place); ``in_url=False`` keeps its state in the session only (a chart's plotted values: one per chart, not worth
    a URL parameter each)."""
    return container.expander(title, key=key, on_change="rerun", bind="query-params" if in_url else None)


def estimator_notes(result: Any, data: Dataset, chosen: Sequence[str], container: Any = st) -> None:
    """Every diagnostic of the chosen estimators beside their numbers: did not converge / validity condition /
    rough data (from the estimates), an order-assuming estimator on a domain without order, and the data's
    smoothness along the domain's order when such an estimator is chosen."""
    names = {e: ldp.ESTIMATORS.get(e).display_name for e in chosen}
    for line in result.warnings:  # "<estimator>: <note>" or "<estimator> did not converge …"
        name = line.split(" ", 1)[0].rstrip(":")
        if name in names:
            container.warning(f"**{names[name]}** — {line[len(name):].lstrip(': ')}")
    ordered = [names[e] for e in chosen if ldp.ESTIMATORS.get(e).assumes_order]
    if not ordered:
        return
    if not data.ordered:
        container.warning(f"{', '.join(ordered)} assume(s) that neighbouring values have similar frequencies, but "
                          f"'{data.name}' has no natural order (its values are categories in alphabetical order): "
                          "expect it to be worse than MI or Norm-Sub here (convolution paper §V).")
    mech = result.mechanism
    if not getattr(mech, "pure", False) or mech.d < 3 or "mi" not in result.estimates:
        return
    sm = smoothness(result.estimates["mi"][0], float(mech.approximate_variance(result.n)))
    verdict = ("the noise hides the data's shape: no verdict" if sm.score is None else
               f"**{sm.score:.2f}** (1 = smooth, 0 = like a random order)")
    container.caption(f"Smoothness of the data along the domain's order, judged from the MI estimate alone: "
                      f"{verdict}. The order-assuming estimators ({', '.join(ordered)}) help on smooth data and warn "
                      f"below {SMOOTHNESS_WARN:g}.")


#: Height (px) of a page's main chart on a projector: with the compact heading and one row of controls above it,
#: it fits a 1280×720 screen (tests/e2e/test_presentation.py measures it on every page).
PRESENT_HEIGHT = 440
#: The key prefix of the container that holds a page's main chart (its element gets the class
#: ``st-key-main_chart_<chart key>``; a page with tabs may declare one per tab).
MAIN_CHART_KEY = "main_chart"


def page_heading(title: str, intro: str) -> Any:
    """A page's title and its one-paragraph introduction (left out on a projector, where the chart needs the room).
    Returns the place of the page's main chart on a projector — an empty container right under the heading, handed
    to :func:`show_figure` as ``where`` — so that the chart comes first and the explanations follow it."""
    st.title(title)
    if not presenting():
        st.caption(intro)
    return main_chart_slot()


def main_chart_slot() -> Any:
    """An empty container here, which :func:`show_figure` (``where=``) fills with the page's main chart when
    presenting; elsewhere the chart stays where the page draws it."""
    return st.container()


#: The mark of a figure every session is handed (:func:`share_figure`), which :func:`show_figure` never changes.
_SHARED = "_ldp_shared"


def share_figure(fig: Any) -> Any:
    """Ready ``fig`` to be handed to every session — built once per distinct input by :func:`cached_figure` or a
    page's own ``st.cache_resource`` builder — and return it: its log axes labelled as :func:`show_figure` would,
    its ``to_dict()`` computed once and returned as it is afterwards (``st.plotly_chart`` calls it: a deep copy of
    the figure, its template included, with every array encoded in base64, a third of the CPU of a rerun that finds
    its figures built), and marked, so that :func:`show_figure` never changes it (a projector restyles a copy).
    The figure must not be changed afterwards."""
    fig = label_log_axes(fig)
    return _frozen(fig, fig.to_dict())


def _frozen(fig: Any, spec: dict[str, Any]) -> Any:
    """``fig`` with ``spec`` as its ``to_dict()`` from now on, marked as shared."""
    fig.to_dict = lambda: spec
    setattr(fig, _SHARED, True)
    return fig


def _shell() -> go.Figure:
    """An empty figure to hold a spec (:func:`_frozen`): without the default template, which ``go.Figure()`` deep-
    copies into every new figure (0.56 ms against 0.12 ms; the spec has its own)."""
    return go.Figure(layout={"template": {}}, _validate=False)


#: Plotly's own templates: every process knows them by name.
_PLOTLY_TEMPLATES = frozenset(("ggplot2", "seaborn", "simple_white", "plotly", "plotly_white", "plotly_dark",
                               "presentation", "xgridoff", "ygridoff", "gridon", "none"))


def built_elsewhere(build: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """The figure ``build(*args, **kwargs)``, built by a worker process when there is one (:mod:`views.offload`:
    building a figure and encoding its arrays is a sixth of a Post-processing rerun's CPU), shared as
    :func:`share_figure` does: a figure that only holds its spec (:func:`ldp.viz.style.figure_spec`, log axes
    labelled), which ``st.plotly_chart`` sends as it is and :func:`show_figure` never changes. ``build`` must be a
    module-level builder and its arguments picklable."""
    if not offload.ready():
        return _frozen(_shell(), figure_spec(build, *args, **kwargs))
    # the default template by name when it is one of Plotly's own (the dashboard's plotly_white: a Template sent
    # would be validated again there), else itself: the worker may not know its name (Streamlit registers its own)
    template = pio.templates.default
    if isinstance(template, str) and template not in _PLOTLY_TEMPLATES:
        template = pio.templates[template]
    return _frozen(_shell(), offload.call(figure_spec_on, template, build, *args, **kwargs))


@st.cache_resource(show_spinner=False, max_entries=128)  # ≈ 0.3 MB each (the figure and its frozen spec)
def _built_figure(key: Any, _build: Callable[..., Any], _args: tuple, _kwargs: dict[str, Any]) -> Any:
    if _args or _kwargs:
        return built_elsewhere(_build, *_args, **_kwargs)
    return share_figure(_build())


def cached_figure(key: Any, build: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``build(*args, **kwargs)`` once per ``key`` for the whole server, the same object handed to every session
    (:func:`share_figure`). ``key`` names the chart and every input the figure depends on (e.g.
    ``("pp_bias", run key)``). With arguments, ``build`` is a module-level builder and the figure is built by a
    worker process when there is one (:func:`built_elsewhere`); without, ``build`` may be any callable and runs here.

    Not ``st.cache_data``: it rebuilds — revalidates — a Plotly figure from its pickle on every hit, slower than
    building it afresh (50 ms for 14 lines against 17 ms)."""
    return _built_figure(key, build, args, kwargs)


def show_figure(fig: Any, key: str, data: pd.DataFrame | Callable[[], pd.DataFrame] | None = None,
                description: str = "", *, main: bool = False, where: Any = None,
                present_height: int = PRESENT_HEIGHT) -> None:
    """A chart with an accessible text description and its plotted values as a table (under "Plotted values", drawn
    while that expander is open: opening it reruns the page or fragment; closed, no table is converted to Arrow and
    sent, a sixth of a Post-processing rerun's server time; ``data`` may be a function making the table, called only
    then). The figure keeps its own template (theme=None): Streamlit's chart theme drew 12 px grey tick labels at
    3.7:1 contrast, below WCAG AA's 4.5:1; the figures' dark text at 14–16 px is well above it. The PNG download is
    named after the chart (ASCII).

    On a projector (:func:`presenting`) every figure gets larger type; the page's ``main`` chart is also sized to
    ``present_height`` and drawn in ``where`` (the slot :func:`page_heading` returned, right under the heading).

    A figure of :func:`share_figure`, which other sessions show too, is left unchanged (a projector restyles a
    copy)."""
    on_projector = presenting()
    shared = getattr(fig, _SHARED, False)
    if not shared:
        label_log_axes(fig)  # decades, not bare mantissas, on every log axis
    elif on_projector:
        fig = go.Figure(fig.to_dict())  # a copy of its frozen spec, which it changes
    if on_projector:
        for_projector(fig, present_height if main else None)
    place = where if (on_projector and where is not None) else contextlib.nullcontext()
    with place, (st.container(key=f"{MAIN_CHART_KEY}_{key}") if main else contextlib.nullcontext()):
        st.plotly_chart(fig, key=key, theme=None, config={
            "displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2, "filename": f"ldp-{key}"}})
    with place:
        if description:
            st.caption(description)
        if data is not None:
            box = lazy_expander("Plotted values (table)", f"{key}_values", in_url=False)
            if box.open:
                box.dataframe(data() if callable(data) else data, key=f"{key}_table")


#: Settings that travel with every downloaded results table (matched by a control key's last part).
CONTEXT_KEYS = ("mech", "eps", "eps1", "users", "trials", "engine", "seed")


def csv_bytes(table: pd.DataFrame) -> bytes:
    """A downloadable CSV: UTF-8 with a BOM (a spreadsheet then reads ε and accents right) and every text cell
    that a spreadsheet would run as a formula escaped (``ldp.data.spreadsheet``)."""
    return safe_frame(table).to_csv(index=False).encode("utf-8-sig")


def _context(config: dict[str, Any]) -> dict[str, Any]:
    context: dict[str, Any] = {"dataset": config.get("dataset")}
    for k, v in config.items():
        short = k.rsplit("_", 1)[-1]
        if short in CONTEXT_KEYS and isinstance(v, (str, int, float)) and short not in context:
            context[short] = v
    return context


def with_context(table: pd.DataFrame, config: dict[str, Any]) -> pd.DataFrame:
    """``table`` with the dataset and the settings of :data:`CONTEXT_KEYS` (from a page's control values, keys
    such as ``pp_eps`` → ``eps``) as leading constant columns."""
    context = _context(config)
    lead = pd.DataFrame({k: [v] * len(table) for k, v in context.items() if v is not None}, index=table.index)
    return pd.concat([lead, table.drop(columns=[c for c in lead.columns if c in table.columns])], axis=1)


def download_buttons(table: pd.DataFrame, config: dict[str, Any], key: str, name: str = "ldp-explorer",
                     controls: Sequence[Control] = ()) -> None:
    """The results as CSV — with the dataset and the settings that made them (mechanism, ε, n, seed, …) as leading
    columns, so a file found later says what it is — and the whole configuration as JSON, which the section below
    (given the page's ``controls``; an uploader drawn once it is opened) loads back. Both are written when their
    button is clicked (a deferred download), not on every rerun that draws the button: a results table of a few
    thousand rows took ~7 ms of a rerun's ~0.1 s of CPU, and the configuration's bytes were stored (and hashed) in
    Streamlit's media store on every rerun."""
    c1, c2 = st.columns(2)
    c1.download_button("Download results (CSV)", lambda: csv_bytes(with_context(table, config)),
                       f"{name}-results.csv", "text/csv", key=f"{key}_csv")
    c2.download_button("Download configuration (JSON)", lambda: json.dumps(config, indent=2, default=str).encode(),
                       f"{name}-config.json", "application/json", key=f"{key}_json")
    if controls:
        _configuration_loader(controls, key)


def _configuration_loader(controls: Sequence[Control], key: str) -> None:
    refused = st.session_state.pop("_config_refused", None)
    if refused:
        st.warning("Loaded, except settings whose saved value this page cannot take (left at their current value): "
                   + ", ".join(refused) + ".")
    # a lazy section: an uploader on every page's first view cost the browser 0.12 s of a cold start (its code
    # loaded and started; 2.88 -> 2.76 s, median of 7 interleaved, benchmarks/bench_dashboard.py)
    box = lazy_expander("Load a configuration (JSON)", f"{key}_load_open")
    if not box.open:
        return
    up = box.file_uploader("A configuration file downloaded from this page", type=["json"], key=f"{key}_load")
    if up is None:
        return
    raw = up.getvalue()
    done = f"_{key}_loaded"
    if st.session_state.get(done) == hash(raw):
        return
    st.session_state[done] = hash(raw)
    with friendly_errors("this configuration file"):
        config = load_json_object(raw, up.name)
    restored, refused = load_configuration(controls, config)
    if not restored:
        st.error(f"{up.name} names none of this page's settings: load it on the page it was downloaded from")
        return
    if refused:
        st.session_state["_config_refused"] = refused
    st.rerun()
