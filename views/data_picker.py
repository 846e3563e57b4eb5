"""The dataset a page works on: its controls (sample, synthetic family or upload), the picker that draws them,
and uploads read as their own population.

Streamlit only: every computation is a call into ``ldp``."""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd
import streamlit as st

import ldp
from ldp.data import (
    DEFAULT_TABLE,
    EXCEL_EXTENSIONS,
    SUPPORTED_EXTENSIONS,
    get_column,
    list_samples,
    load_table_bytes,
)
from ldp.data.synthetic import SYNTHETIC
from ldp.studies import datasets
from ldp.studies.datasets import Dataset
from views.component_controls import SOURCES, UPLOAD_KINDS, UPLOAD_LIMIT_MB, _controls_of  # noqa: F401
from views.controls import (
    Control,
    message_area,
    render,
)
from views.messages import friendly_errors, plain, section  # noqa: F401
from views.output import lazy_expander

__all__ = ["DataControls", "data_controls", "data_section", "dataset_picker", "uploaded_table"]

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


def data_controls(prefix: str, *, default_sample: str = DEFAULT_TABLE, default_column: str = "dest",
                  upload: bool = True) -> DataControls:
    """The dataset controls with keys ``prefix_source``, ``prefix_sample``, …"""
    return DataControls(
        source=Control(f"{prefix}_source", "radio", "Dataset", "Sample data",
                       options=SOURCES if upload else SOURCES[:2], horizontal=True),
        sample=Control(f"{prefix}_sample", "selectbox", "Sample", default_sample,
                       options=[s["name"] for s in list_samples()],
                       help="Bundled real data: NYC flights 2013 (departures, weather, planes), the 1996 US election "
                            "survey, and 1993 US incomes (a stand-in for the SW paper's Income data)."),
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
        upload_kind=Control(f"{prefix}_upkind", "radio", "Treat as", options=UPLOAD_KINDS, horizontal=True,
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


def uploaded_table(c: DataControls, container: Any) -> tuple[str, pd.DataFrame]:
    """The uploader and the table it holds (this session's last upload while none is given): (file name, table).
    A page without a file yet stops here with the main panel's uploader."""
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
    return name, table


def _upload_picker(c: DataControls, container: Any) -> Dataset:
    name, table = uploaded_table(c, container)
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
    # drawn only while open, as the Playground's preview of a bundled sample
    preview = lazy_expander(f"Domain preview ({data.d} values)", f"{c.upload_key}_preview_open", container)
    if preview.open:
        preview.dataframe(pd.DataFrame({"value": data.labels, "rows": data.counts}), hide_index=True)
    return data
