"""What the pages share: the controls every page declares with its own key prefix (the dataset, the mechanism
and ε, the estimators, the engine, the seed), the dataset picker that draws the dataset's controls, error
handling and output. Streamlit only: every computation is a call into ``ldp``."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import re
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st
from streamlit import runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

import ldp
from ldp.core.params import Param
from ldp.data import EXCEL_EXTENSIONS, SUPPORTED_EXTENSIONS, get_column, list_samples, load_table_bytes
from ldp.data.loaders import load_json_object
from ldp.data.spreadsheet import safe_frame
from ldp.data.synthetic import SYNTHETIC
from ldp.estimators.wiener import SMOOTHNESS_WARN, smoothness
from ldp.studies import choices, datasets
from ldp.studies.datasets import Dataset
from ldp.viz.style import for_projector, label_log_axes
from views.controls import (
    PRESENT,
    Control,
    apply_pending_configuration,
    load_configuration,
    message_area,
    open_message_area,
    presenting,
    render,
)

__all__ = [
    "EPS_GRID", "PRESENT", "DataControls", "Dataset", "EstimatorControls", "MechanismControls",
    "apply_pending_configuration", "build_estimators", "presenting", "render", "csv_bytes", "with_context",
    "data_controls", "data_section", "dataset_picker", "download_buttons", "engine_control", "epsilon_control",
    "estimator_control", "estimator_controls", "estimator_notes", "estimator_picker", "estimator_specs",
    "friendly_errors", "mechanism_controls", "mechanism_picker", "param_control", "parameter_controls",
    "message_area", "open_message_area", "render_parameters", "render_row", "section", "seed_control", "session_gone",
    "show_figure", "main_chart_slot", "wait_for_button", "cached_with_progress", "is_cached", "precompute",
    "accessibility",
]

# ε values offered by the ε controls: log-spaced, so small ε gets fine steps (0.05, 0.06, …, 10).
EPS_GRID: list[float] = sorted({float(f"{x:.2g}") for x in np.geomspace(0.05, 10, 60)} | {0.5, 1.0, 2.0, 4.0})
UPLOAD_LIMIT_MB = 50
SOURCES = ["Sample data", "Synthetic", "Upload"]
KINDS = ["numerical", "categorical"]
ENGINE_HELP = ("fast samples the aggregated support counts directly (cost O(d) per collection whatever n); exact "
               "randomizes every user's report (cost O(n·d)). Same seed, same distribution of results.")


# --------------------------------------------------------------------------- shared controls
def _controls_of(group: Any) -> Iterator[Control]:
    """The controls of a group of controls, in declaration order."""
    return (value for f in fields(group) if isinstance(value := getattr(group, f.name), Control))


def engine_control(key: str) -> Control:
    return Control(key, "radio", "Engine", "fast", options=["fast", "exact"], horizontal=True, help=ENGINE_HELP)


def seed_control(key: str) -> Control:
    return Control(key, "number_input", "Seed", 0, min_value=0, max_value=2**31 - 1, step=1,
                   help="Same seed and settings → same result.")


def epsilon_control(key: str, label: str = "Privacy budget ε", default: float = 1.0) -> Control:
    """ε from 0.05 to 10 on a log grid (finer steps at small ε)."""
    return Control(key, "select_slider", label, default, options=EPS_GRID,
                   help="Smaller ε = stronger privacy (more noise); larger ε = more accuracy. Steps are finer at "
                        "small ε.")


def _estimator_fields(default: Sequence[str]) -> Any:
    def fields(mechanism: str | None = None, preselected: Sequence[str] | None = None) -> dict[str, Any]:
        options = choices.estimators_for(mechanism)
        return {"options": options, "default": [e for e in (preselected or default) if e in options]}
    return fields


def estimator_control(key: str, default: Sequence[str] = ("mi", "norm-sub")) -> Control:
    """The frequency estimators to compare; with ``mechanism=`` at render, those that apply to it, and with
    ``preselected=`` a computed default."""
    return Control(key, "multiselect", "Estimators / post-processing",
                   format_func=lambda e: ldp.ESTIMATORS.get(e).display_name, depends=_estimator_fields(default),
                   help="Every estimator runs on the same simulated reports, so their errors compare like for like.")


# --------------------------------------------------------------------------- parameters from Param tables
def param_control(key: str, param: Param) -> Control:
    """The control of one library parameter, from its Param table entry: a choice → selectbox, a number with a
    fixed default → number input within its bounds, a default derived from the other parameters (``optional``)
    → a text field left blank for the paper's default. The help names the paper's default."""
    paper = "derived from ε and the domain (leave blank)" if param.default is None else f"{param.default}"
    help_text = f"{param.description}. Paper's default: {paper}."
    label = f"{param.name} (default: {'derived' if param.default is None else param.default})"
    if param.choices is not None:
        options = list(param.choices) if param.default is not None else ["", *param.choices]
        return Control(key, "selectbox", label, param.default if param.default is not None else "", options=options,
                       format_func=lambda v: "default (derived)" if v == "" else str(v), help=help_text)
    if param.type is bool:
        return Control(key, "checkbox", label, bool(param.default), help=help_text)
    if param.default is None or param.type not in (int, float):
        return Control(key, "text_input", label, "" if param.default is None else str(param.default),
                       help=help_text)
    return _number_control(key, param, label, help_text)


def _number_control(key: str, param: Param, label: str, help_text: str) -> Control:
    """A number input within the parameter's bounds (an exclusive integer bound moved by one; an exclusive real
    bound left to the library's validation, which names it)."""
    cast = param.type
    low = param.low if param.low is None or param.low_inclusive else (param.low + 1 if cast is int else None)
    high = param.high if param.high is None or param.high_inclusive else (param.high - 1 if cast is int else None)
    extra = {"step": 1} if cast is int else {"format": "%g"}
    return Control(key, "number_input", label, cast(param.default), min_value=None if low is None else cast(low),
                   max_value=None if high is None else cast(high), help=help_text, **extra)


#: Keys of the controls generated from Param tables (tests exercise them by kind, not one by one).
GENERATED_KEYS: set[str] = set()


def parameter_controls(prefix: str, owners: Sequence[Any], *, skip: Sequence[str] = ("epsilon_1",),
                       ) -> dict[str, tuple[tuple[Param, Control], ...]]:
    """Owner name → its parameters with their controls (keys ``prefix_owner_param``), for the registered
    mechanisms or estimators ``owners`` (``own_parameters()`` or ``parameters``)."""
    out = {}
    for owner in owners:
        table = owner.own_parameters() if hasattr(owner, "own_parameters") else owner.parameters
        pairs = tuple((p, param_control(f"{prefix}_{owner.name}_{p.name}".replace("-", "_"), p))
                      for p in table if p.name not in skip)
        if pairs:
            out[owner.name] = pairs
            GENERATED_KEYS.update(control.key for _, control in pairs)
    return out


def _parameter_value(param: Param, value: Any) -> Any:
    """A widget's value as the library parameter; a blank text or choice means "the paper's default" (omitted),
    unparsable text is passed on as it is so that the library's own error names it in the main panel."""
    if isinstance(value, str):
        text = value.strip()
        if text == "":
            return None
        if param.type in (int, float):
            try:
                return param.parse(text)
            except ldp.LDPError:
                return text
        return text
    return value


def render_parameters(pairs: Sequence[tuple[Param, Control]], title: str, container: Any = st) -> dict[str, Any]:
    """Draw the controls of one owner's parameters in an expander; the values given (blank = paper's default)."""
    out: dict[str, Any] = {}
    with container.expander(title):
        for param, control in pairs:
            value = _parameter_value(param, render(control))
            if value is not None:
                out[param.name] = value
    return out


MECHANISM_PARAMETERS_HELP = "Advanced: {name} parameters (blank or default = the paper's choice)"


@dataclass(frozen=True)
class MechanismControls:
    """A frequency oracle, its ε, for a longitudinal one ε1 (one report) below ε = ε∞, and every mechanism's own
    parameters (advanced; keys ``prefix_<mechanism>_<parameter>``)."""

    mechanism: Control
    epsilon: Control
    epsilon_1: Control | None
    parameters: dict[str, tuple[tuple[Param, Control], ...]]

    def __iter__(self) -> Iterator[Control]:
        yield self.mechanism
        yield self.epsilon
        if self.epsilon_1 is not None:
            yield self.epsilon_1
        for pairs in self.parameters.values():
            yield from (control for _, control in pairs)


@dataclass(frozen=True)
class EstimatorControls:
    """The estimators to compare and every estimator's parameters (advanced; keys ``prefix_<est>_<param>``)."""

    estimators: Control
    parameters: dict[str, tuple[tuple[Param, Control], ...]]

    def __iter__(self) -> Iterator[Control]:
        yield self.estimators
        for pairs in self.parameters.values():
            yield from (control for _, control in pairs)


def estimator_controls(key: str, default: Sequence[str] = ("mi", "norm-sub"), kind: str = "frequency",
                       ) -> EstimatorControls:
    owners = [e for e in ldp.ESTIMATORS if kind in e.kinds]
    return EstimatorControls(estimator_control(key, default), parameter_controls(key, owners))


def estimator_picker(c: EstimatorControls, container: Any = st, **data: Any,
                     ) -> tuple[list[str], dict[str, dict[str, Any]]]:
    """Draw the estimator choice and, for each chosen estimator with parameters, an advanced expander: the chosen
    names and, for those given non-default parameters, name → parameters (for ``ldp.get_estimator``)."""
    names = list(render(c.estimators, container, **data))
    params: dict[str, dict[str, Any]] = {}
    for name in names:
        if name in c.parameters:
            cls = ldp.ESTIMATORS.get(name)
            given = render_parameters(c.parameters[name], f"Advanced: {cls.display_name} parameters", container)
            defaults = {p.name: p.default for p, _ in c.parameters[name]}
            given = {k: v for k, v in given.items() if v != defaults.get(k)}
            if given:
                params[name] = given
    return names, params


def estimator_specs(names: Sequence[str], params: dict[str, dict[str, Any]]) -> tuple[Any, ...]:
    """Hashable (cache-key) form of the chosen estimators: a name, or (name, sorted parameters)."""
    return tuple((n, tuple(sorted(params[n].items()))) if n in params else n for n in names)


def build_estimators(specs: Sequence[Any]) -> list[Any]:
    """The estimators of :func:`estimator_specs` (names stay names; parameters make an ``Estimator``)."""
    return [spec if isinstance(spec, str) else ldp.get_estimator(spec[0], **dict(spec[1])) for spec in specs]


@st.cache_data(show_spinner=False)
def _reachable_epsilon_1(mechanism: str, epsilon: float) -> list[float]:
    return choices.reachable_epsilon_1(mechanism, epsilon, EPS_GRID)


def _epsilon_1_fields(mechanism: str, epsilon: float) -> dict[str, Any]:
    options = _reachable_epsilon_1(mechanism, epsilon)
    return {"options": options, "default": choices.closest(options, epsilon / 2)}


def mechanism_controls(prefix: str, *, eps_key: str, default: str = "oue",
                       collections: Sequence[str] = ("one-time", "longitudinal")) -> MechanismControls:
    """Keys ``prefix`` (the mechanism), ``eps_key`` (ε) and ``prefix_eps1`` (ε1 of longitudinal mechanisms)."""
    names = choices.frequency_oracles(collections)
    mechanism = Control(prefix, "selectbox", "Mechanism", default, options=names,
                        format_func=lambda m: ldp.MECHANISMS.get(m).display_name,
                        help="One-time mechanisms first, then longitudinal ones (memoized, for repeated reports).")
    epsilon_1 = None
    if "longitudinal" in collections:
        epsilon_1 = Control(f"{prefix}_eps1", "select_slider", "ε1 (one report; ε above is ε∞ of the memoized "
                            "value)", depends=_epsilon_1_fields)
    owners = [ldp.MECHANISMS.get(name) for name in names]
    return MechanismControls(mechanism, epsilon_control(eps_key), epsilon_1, parameter_controls(prefix, owners))


def mechanism_picker(c: MechanismControls, container: Any = st) -> tuple[str, float, dict[str, Any]]:
    """Draw the mechanism, ε and (longitudinal mechanisms) ε1 controls: (mechanism, ε, its parameters)."""
    name = render(c.mechanism, container)
    cls = ldp.MECHANISMS.get(name)
    container.caption(f"{cls.collection.capitalize()} · {cls.description}. _{cls.paper}_")
    epsilon = float(render(c.epsilon, container))
    container.caption("◀ more private · · · more accurate ▶")
    return name, epsilon, mechanism_extras(c, name, epsilon, container)


def mechanism_extras(c: MechanismControls, name: str, epsilon: float, container: Any = st) -> dict[str, Any]:
    """Draw what a mechanism takes beyond its name and ε — ε1 of a longitudinal mechanism and its own parameters
    (advanced) — and return its parameters."""
    epsilon_1 = None
    if c.epsilon_1 is not None and _reachable_epsilon_1(name, epsilon):
        epsilon_1 = float(render(c.epsilon_1, container, mechanism=name, epsilon=epsilon))
    # no reachable ε1: the library's own message explains it where the mechanism is built
    params = choices.mechanism_parameters(name, epsilon, epsilon_1)
    if name in c.parameters:
        cls = ldp.MECHANISMS.get(name)
        params.update(render_parameters(c.parameters[name], MECHANISM_PARAMETERS_HELP.format(name=cls.display_name),
                                        container))
    return params


# --------------------------------------------------------------------------- the dataset
@dataclass(frozen=True)
class DataControls:
    """The dataset picker's controls: the source, then a bundled sample's column (numerical columns: bins and
    range), a synthetic family (d, Zipf's exponent), or an uploaded file's column and how to treat it."""

    source: Control
    sample: Control
    column: Control
    bins: Control
    lo: Control
    hi: Control
    synthetic: Control
    d: Control
    zipf_s: Control
    mixture: Control
    upload_column: Control
    upload_kind: Control
    upload_key: str

    def __iter__(self) -> Iterator[Control]:
        return _controls_of(self)


def _column_fields(default_column: str) -> Any:
    def fields(sample: str) -> dict[str, Any]:
        info = next(s for s in list_samples() if s["name"] == sample)
        columns = [c["name"] for c in info["columns"]]
        return {"options": columns, "default": default_column if default_column in columns else info["default_column"]}
    return fields


def _range_fields(end: int) -> Any:
    def fields(natural: tuple[float, float]) -> dict[str, Any]:
        lo, hi = (float(v) for v in natural)
        span = hi - lo or 1.0  # from and to may go one span beyond the data's own range
        return {"default": (lo, hi)[end], "min_value": lo - span, "max_value": hi + span}
    return fields


def data_controls(prefix: str, *, default_sample: str = "flights", default_column: str = "dest",
                  upload: bool = True) -> DataControls:
    """The dataset controls with keys ``prefix_source``, ``prefix_sample``, …"""
    return DataControls(
        source=Control(f"{prefix}_source", "radio", "Dataset", "Sample data",
                       options=SOURCES if upload else SOURCES[:2], horizontal=True),
        sample=Control(f"{prefix}_sample", "selectbox", "Sample", default_sample,
                       options=[s["name"] for s in list_samples()], help="Bundled real data (NYC flights 2013)."),
        column=Control(f"{prefix}_column", "selectbox", "Column", depends=_column_fields(default_column)),
        bins=Control(f"{prefix}_bins", "slider", "Bins", 48, min_value=2, max_value=512,
                     help="The numerical column is bucketized into this many equal-width bins."),
        lo=Control(f"{prefix}_lo", "number_input", "from", format="%.4g", depends=_range_fields(0),
                   follows_data=True),
        hi=Control(f"{prefix}_hi", "number_input", "to", format="%.4g", depends=_range_fields(1),
                   follows_data=True),
        synthetic=Control(f"{prefix}_synthetic", "selectbox", "Distribution", "zipf", options=list(SYNTHETIC)),
        d=Control(f"{prefix}_d", "slider", "Domain size d", 100, min_value=2, max_value=2048),
        zipf_s=Control(f"{prefix}_zipf_s", "slider", "Zipf exponent s", 1.5, min_value=0.1, max_value=3.0,
                       step=0.1),
        mixture=Control(f"{prefix}_mix", "text_input", "Mixture formula", datasets.DEFAULT_MIXTURE,
                        help="Weights times numerical families, joined by +, e.g. "
                             f"`{datasets.DEFAULT_MIXTURE}` (families: uniform, gaussian(mu, sigma), exponential(lam), "
                             "triangular(left, mode, right), beta(a, b)); the range is the union of theirs."),
        upload_column=Control(f"{prefix}_upcol", "selectbox", "Column",
                              depends=lambda columns: {"options": columns, "default": columns[0]}),
        upload_kind=Control(f"{prefix}_upkind", "radio", "Treat as", options=KINDS, horizontal=True,
                            depends=lambda guess: {"default": guess}, follows_data=True),
        upload_key=f"{prefix}_upload",
    )


@st.cache_data(show_spinner=False, max_entries=64)
def _sample_dataset(sample: str, column: str, bins: int, value_range: tuple[float, float] | None) -> Dataset:
    return datasets.sample_dataset(sample, column, bins, value_range)


@st.cache_data(show_spinner=False, max_entries=64)
def _column_range(sample: str, column: str) -> tuple[float, float]:
    return datasets.column_range(sample, column)


@st.cache_data(show_spinner=False, max_entries=64)
def _synthetic_dataset(name: str, d: int, s: float | None, formula: str | None = None) -> Dataset:
    return datasets.synthetic_dataset(name, d, s, formula=formula)


def _bins_and_range(c: DataControls, container: Any, natural: tuple[float, float]) -> tuple[int, tuple[float, float]]:
    bins = int(render(c.bins, container))
    c1, c2 = container.columns(2)
    lo = float(render(c.lo, c1, natural=natural))
    hi = float(render(c.hi, c2, natural=natural))
    if hi <= lo:
        raise ldp.LDPError(f"the range must have 'to' > 'from' (got {lo:g} to {hi:g}); widen the range")
    return bins, (lo, hi)


def dataset_picker(c: DataControls, container: Any = st) -> Dataset:
    """Bundled sample data, a synthetic distribution, or an upload (CSV or Parquet) with a column picker; the
    bucketization's warnings (more bins than distinct values) are shown under it."""
    source = render(c.source, container)
    if source == "Sample data":
        sample = render(c.sample, container)
        column = render(c.column, container, sample=sample)
        if datasets.sample_column_info(sample, column)["kind"] == "numerical":
            bins, value_range = _bins_and_range(c, container, _column_range(sample, column))
            data = _sample_dataset(sample, column, bins, value_range)
        else:
            data = _sample_dataset(sample, column, 0, None)
    elif source == "Synthetic":
        name = render(c.synthetic, container)
        d = int(render(c.d, container))
        s = float(render(c.zipf_s, container)) if name == "zipf" else None
        formula = str(render(c.mixture, container)) if name == "mixture" else None
        data = _synthetic_dataset(name, d, s, formula)
    else:
        data = _upload_picker(c, container)
    for warning in data.warnings:
        container.warning(plain(f"{warning}." if data.kind == "categorical" else f"Bins: {warning}."))
    return data


def data_section(c: DataControls, what: str = "this dataset") -> Dataset:
    """The sidebar's "Data" section: the dataset picker, what the data is and what its encoding did."""
    st.header("Data")
    with friendly_errors(what):
        data = dataset_picker(c)
    size = f"{data.d:,} {'bins' if data.numerical else 'values'}"
    st.caption(f"{data.description} · {size}" + ("" if data.origin == "synthetic" else f" · {data.rows:,} rows"))
    for note in data.notes:
        st.caption(note)
    return data


def _main_panel_uploader(c: DataControls, exts: Sequence[str]) -> Any:
    """No file yet (a shared link to an upload view opens in a new session, where no file is): say in the main
    panel what to do and offer the uploader there too — the sidebar's is below the fold on a projector. Stops the
    page until a file is given."""
    area = message_area()
    area.info("This view works on an uploaded file, and none is loaded in this session yet (a shared link carries the "
              "settings, never the file). Upload the CSV or Parquet file here or in the sidebar — or pick sample "
              "data in the sidebar.", icon=":material/upload_file:")
    up = area.file_uploader(f"Upload the file here (CSV or Parquet, ≤ {UPLOAD_LIMIT_MB} MB)", type=list(exts),
                            key=f"{c.upload_key}_main")
    if up is None:
        st.stop()
    return up


def _upload_picker(c: DataControls, container: Any) -> Dataset:
    # Workbooks are accepted too, so that their own message (save it as CSV) is shown: a browser refuses a type
    # the uploader does not list, and the main panel then kept showing the previous file's error.
    exts = sorted({e.split(".")[-1] for e in SUPPORTED_EXTENSIONS + EXCEL_EXTENSIONS})
    up = container.file_uploader(f"CSV or Parquet file (≤ {UPLOAD_LIMIT_MB} MB)", type=exts, key=c.upload_key)
    # Parsed per session only (session_state, not a shared cache): one user's upload never reaches another. The
    # last file uploaded in this session stays in use on every page (a file uploader forgets its file when the
    # page changes) until another is uploaded.
    cache = st.session_state.setdefault("_uploads", {})
    if up is None and not cache:
        up = _main_panel_uploader(c, exts)
    if up is None:
        (name, _, _), table = next(iter(cache.items()))
        container.caption(f"Using **{plain(name)}**, uploaded earlier in this session; upload another file to "
                          "replace it.")
    else:
        raw = up.getvalue()
        if len(raw) > UPLOAD_LIMIT_MB * 1024 * 1024:
            raise ldp.LDPError(f"the file is larger than {UPLOAD_LIMIT_MB} MB; upload a smaller extract")
        name = up.name
        signature = (name, len(raw), hash(raw))
        if signature not in cache:
            cache.clear()
            with warnings.catch_warnings():  # the encoding note is shown below, from the table itself
                warnings.simplefilter("ignore")
                cache[signature] = load_table_bytes(raw, name)
        table = cache[signature]
    if table.attrs.get("encoding"):
        container.caption(f"**{plain(name)}** is not UTF-8: read as {table.attrs['encoding']} (detected). If "
                          "letters look wrong, re-save it with UTF-8 encoding.")
    column = render(c.upload_column, container, columns=datasets.usable_columns(table))
    empty = datasets.empty_columns(table)
    if empty:
        container.caption("Left out (no values at all): " + ", ".join(f"`{e}`" for e in empty[:10])
                          + (f" and {len(empty) - 10} more" if len(empty) > 10 else "") + ".")
    series = get_column(table, column)
    kind = render(c.upload_kind, container, guess=datasets.guess_kind(series))
    source = f"uploaded file {plain(name)}"
    if kind == "numerical":
        bins, value_range = _bins_and_range(c, container, datasets.data_range(series))
        data = datasets.table_dataset(table, column, kind, bins=bins, value_range=value_range, source=source)
        return dataclasses.replace(data, name=plain(data.name))  # the column's name is shown as typed
    data = dataclasses.replace(datasets.table_dataset(table, column, kind, source=source), name=plain(column))
    with container.expander(f"Domain preview ({data.d} values)"):
        st.dataframe(pd.DataFrame({"value": data.labels, "rows": data.counts}), hide_index=True)
    return data


# --------------------------------------------------------------------------- errors
@contextlib.contextmanager
def friendly_errors(what: str = "this configuration") -> Iterator[None]:
    """Turn library errors into an ``st.error`` that says what to change, in the main panel even when raised while
    drawing the sidebar (the narrow sidebar hid them while the main panel stayed blank); never a
    traceback."""
    try:
        yield
    except ldp.LDPError as exc:  # a user error; a TypeError or KeyError is a bug and surfaces as one
        message_area().error(f"Cannot run {what}: {plain(str(exc))}")
        st.stop()
    except MemoryError:
        message_area().error("This configuration needs more memory than the server has: use the fast engine, "
                             "fewer users or a smaller domain.")
        st.stop()


_MARKDOWN = re.compile(r"([\[\]<])")


def plain(text: str) -> str:
    """User-provided text (a column or file name, a message quoting one) for a Markdown element: the brackets that
    make links and images, and the ``<`` of autolinks and tags, are escaped, so ``![x](http://…)`` is not fetched as
    an image and ``[here](…)`` is not a link; everything else reads as typed."""
    return _MARKDOWN.sub(r"\\\1", str(text))


def section(func: Callable[..., None]) -> Callable[..., None]:
    """A page section: a library error becomes an ``st.error`` inside the section, and the other sections still
    render (``friendly_errors`` would stop the whole page)."""
    @functools.wraps(func)
    def run(*args: Any, **kwargs: Any) -> None:
        try:
            func(*args, **kwargs)
        except ldp.LDPError as exc:
            st.error(f"Cannot show this section: {exc}")
    return run


def render_row(row: Sequence[Control]) -> list[Any]:
    """Draw controls side by side in one row of equal columns; their values in order."""
    return [render(control, column) for control, column in zip(row, st.columns(len(row)), strict=True)]


# --------------------------------------------------------------------------- output
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


def show_figure(fig: Any, key: str, data: pd.DataFrame | None = None, description: str = "", *,
                main: bool = False, where: Any = None, present_height: int = PRESENT_HEIGHT) -> None:
    """A chart with an accessible text description and its plotted values as a table. The figure keeps its own
    template (theme=None): Streamlit's chart theme drew 12 px grey tick labels at 3.7:1 contrast, below WCAG AA's
    4.5:1; the figures' dark text at 14–16 px is well above it. The PNG download is named after the
    chart (ASCII).

    On a projector (:func:`presenting`) every figure gets larger type; the page's ``main`` chart is also sized to
    ``present_height`` and drawn in ``where`` (the slot :func:`page_heading` returned, right under the heading)."""
    label_log_axes(fig)  # decades, not bare mantissas, on every log axis
    on_projector = presenting()
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
            with st.expander("Plotted values (table)"):
                st.dataframe(data, key=f"{key}_table")


#: Settings that travel with every downloaded results table (matched by a control key's last part).
CONTEXT_KEYS = ("mech", "eps", "eps1", "users", "trials", "engine", "seed")


def csv_bytes(table: pd.DataFrame) -> bytes:
    """A downloadable CSV: UTF-8 with a BOM (a spreadsheet then reads ε and accents right) and every text cell
    that a spreadsheet would run as a formula escaped (``ldp.data.spreadsheet``)."""
    return safe_frame(table).to_csv(index=False).encode("utf-8-sig")


def with_context(table: pd.DataFrame, config: dict[str, Any]) -> pd.DataFrame:
    """``table`` with the dataset and the settings of :data:`CONTEXT_KEYS` (from a page's control values, keys
    such as ``pp_eps`` → ``eps``) as leading constant columns."""
    context: dict[str, Any] = {"dataset": config.get("dataset")}
    for k, v in config.items():
        short = k.rsplit("_", 1)[-1]
        if short in CONTEXT_KEYS and isinstance(v, (str, int, float)) and short not in context:
            context[short] = v
    lead = pd.DataFrame({k: [v] * len(table) for k, v in context.items() if v is not None}, index=table.index)
    return pd.concat([lead, table.drop(columns=[c for c in lead.columns if c in table.columns])], axis=1)


def download_buttons(table: pd.DataFrame, config: dict[str, Any], key: str, name: str = "ldp-explorer",
                     controls: Sequence[Control] = ()) -> None:
    """The results as CSV — with the dataset and the settings that made them (mechanism, ε, n, seed, …) as leading
    columns, so a file found later says what it is — and the whole configuration as JSON, which the uploader
    below (given the page's ``controls``) loads back."""
    c1, c2 = st.columns(2)
    c1.download_button("Download results (CSV)", csv_bytes(with_context(table, config)), f"{name}-results.csv",
                       "text/csv", key=f"{key}_csv")
    c2.download_button("Download configuration (JSON)", json.dumps(config, indent=2, default=str).encode(),
                       f"{name}-config.json", "application/json", key=f"{key}_json")
    if controls:
        _configuration_loader(controls, key)


def _configuration_loader(controls: Sequence[Control], key: str) -> None:
    refused = st.session_state.pop("_config_refused", None)
    if refused:
        st.warning("Loaded, except settings whose saved value this page cannot take (left at their current value): "
                   + ", ".join(refused) + ".")
    up = st.file_uploader("Load a configuration (JSON) downloaded from this page", type=["json"], key=f"{key}_load")
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


def session_gone() -> bool:
    """Whether the browser session this run draws for has disconnected (its tab closed or navigated away).

    Installed by ``app.py`` as the cancellation predicate (:func:`ldp.core.cancellation.cancel_when`): the
    library's long loops stop within ~0.2 s of the tab closing instead of computing for nobody (issue 10: three
    closed tabs kept the server busy for 100 s). Outside a running server (AppTest, bare mode) nothing is gone.
    """
    ctx = get_script_run_ctx()
    if ctx is None or not runtime.exists():
        return False
    return not runtime.get_instance().is_active_session(ctx.session_id)


def wait_for_button(seconds: float, above: float, signature: Any, key: str, label: str) -> None:
    """A link alone never starts a long run: above ``above`` seconds (estimated), the page stops here until the
    button ``label`` is pressed, once per configuration (``signature``); later reruns of the same configuration
    (the charts' own interactions) go straight on."""
    if seconds <= above or st.session_state.get(f"_{key}_ran") == signature:
        return
    if not st.button(f"{label} (about {seconds:.0f} s)", key=key, type="primary"):
        st.info("This configuration takes a while, so it runs when you press the button.")
        st.stop()
    st.session_state[f"_{key}_ran"] = signature


_STUDIES: dict[Any, Any] = {}  # process-wide results of cached_with_progress, oldest first
_STUDIES_MAX = 32


def is_cached(key: Any) -> bool:
    """Whether :func:`cached_with_progress` holds a result for ``key`` (shown at once, without asking)."""
    return key in _STUDIES


def cached_with_progress(key: Any, label: str, compute: Callable[[Callable[[float], None]], Any]) -> Any:
    """``compute(progress)`` once per ``key`` for the whole server (like ``st.cache_data``, shared by every session),
    drawing its own progress bar while it runs. ``st.cache_data`` cannot do this: it records the bar's updates
    made inside the cached function and fails to replay them on a block that no longer exists. Results are
    treated as read-only; the least recently computed are evicted beyond 32 entries. A key that
    :func:`precompute` is computing in the background is waited for (its progress drawn), not computed twice;
    inside :func:`precompute` (no page to draw on) nothing is drawn."""
    if key in _STUDIES:
        return _STUDIES[key]
    background = getattr(_BACKGROUND, "active", False)
    pending = _PENDING.get(key)
    if pending is not None and not background:
        bar = st.progress(0.0, text=label)
        try:
            while not pending["done"].wait(0.2):
                bar.progress(min(max(pending["fraction"], 0.0), 1.0), text=f"{label} {pending['fraction']:.0%}")
        finally:
            bar.empty()
        if key in _STUDIES:
            return _STUDIES[key]  # otherwise the background run failed: compute it here, the error shown here
    if background:
        state = _PENDING.setdefault(key, {"done": threading.Event(), "fraction": 0.0})
        try:
            result = compute(lambda f: state.__setitem__("fraction", float(f)))
            _store(key, result)
        finally:
            state["done"].set()
            _PENDING.pop(key, None)
        return result
    bar = st.progress(0.0, text=label)
    try:
        result = compute(lambda f: bar.progress(min(max(float(f), 0.0), 1.0), text=f"{label} {f:.0%}"))
    finally:
        bar.empty()
    _store(key, result)
    return result


def _store(key: Any, result: Any) -> None:
    _STUDIES[key] = result
    while len(_STUDIES) > _STUDIES_MAX:
        _STUDIES.pop(next(iter(_STUDIES)))


_PENDING: dict[Any, dict[str, Any]] = {}  # keys computed in the background now: their event and progress
_BACKGROUND = threading.local()


def precompute(work: Callable[[], None]) -> threading.Thread:
    """Run ``work`` (calls of page helpers that go through :func:`cached_with_progress`) in a background thread:
    their results land in the server-wide cache, and a page that asks for one meanwhile waits for it. Errors are
    swallowed (the page computes that study again and shows the error itself)."""
    def run() -> None:
        _BACKGROUND.active = True
        with contextlib.suppress(Exception):
            work()

    thread = threading.Thread(target=run, name="ldp-precompute", daemon=True)
    thread.start()
    return thread


_A11Y_JS = """
export default function () {
    // Accessible names the page's HTML lacks (issue 11 item 8): each Plotly chart becomes an image named by its
    // title (screen readers otherwise announce an unnamed graphic), and Material icon ligatures
    // ("keyboard_arrow_right") are hidden from the accessibility tree so they stop prefixing expanders' names.
    // Installed once per browser tab; a MutationObserver keeps it true as Streamlit redraws.
    if (window.__ldpA11y) return;
    window.__ldpA11y = true;
    const apply = () => {
        document.querySelectorAll('[data-testid="stPlotlyChart"] .js-plotly-plot').forEach((plot) => {
            const title = plot.querySelector('.gtitle');
            const name = title ? title.textContent.trim() : '';
            if (name && plot.getAttribute('aria-label') !== 'Chart: ' + name) {
                plot.setAttribute('role', 'img');
                plot.setAttribute('aria-label', 'Chart: ' + name);
            }
        });
        document.querySelectorAll('[data-testid="stIconMaterial"]:not([aria-hidden])').forEach((icon) => {
            icon.setAttribute('aria-hidden', 'true');
        });
    };
    apply();
    new MutationObserver(apply).observe(document.body, {childList: true, subtree: true});
}
"""
_a11y_component = None


def accessibility() -> None:
    """Mount the accessibility fixes of :data:`_A11Y_JS` (a JavaScript-only ``st.components.v2`` component: it runs in
    the page itself, not in an iframe, so it can name the charts)."""
    global _a11y_component
    if _a11y_component is None:
        _a11y_component = st.components.v2.component("ldp_accessibility", js=_A11Y_JS)
    _a11y_component(key="ldp_accessibility")
