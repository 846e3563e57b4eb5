"""Widgets and layout helpers shared by the pages. Streamlit only: every computation is a call
into ``ldp`` (maths) or ``ldp.viz`` (figures)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

import ldp
from ldp.data import (
    SUPPORTED_EXTENSIONS,
    bucketize,
    encode_categorical,
    get_column,
    list_samples,
    load_sample,
    load_table_bytes,
)
from ldp.data.synthetic import SYNTHETIC, generate, true_distribution

# ε values offered by the ε control: log-spaced, so small ε gets fine steps (0.05, 0.06, …, 10).
EPS_GRID: list[float] = sorted({float(f"{x:.2g}") for x in np.geomspace(0.05, 10, 60)} | {0.5, 1.0, 2.0, 4.0})
UPLOAD_LIMIT_MB = 50
MAX_CATEGORIES = 5000


@dataclass(frozen=True)
class Dataset:
    """The population a page works on: users per value plus how to show the values."""

    counts: np.ndarray
    labels: list[str]
    name: str
    kind: str = "categorical"  # or "numerical"
    edges: np.ndarray | None = None
    unit: str = ""
    description: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def d(self) -> int:
        return len(self.labels)

    @property
    def rows(self) -> int:
        return int(self.counts.sum())

    @property
    def frequencies(self) -> np.ndarray:
        return self.counts / self.counts.sum()

    def axis_title(self) -> str:
        return f"{self.name} ({self.unit})" if self.unit else self.name


# --------------------------------------------------------------------------- query parameters
def restore_from_url(keys: Sequence[str]) -> None:
    """Once per session, seed widget state from the URL's query parameters (shareable links)."""
    flag = "_restored_" + ",".join(keys)
    # Re-assigning keeps widget values alive across a run in which their widgets were not drawn (e.g. while
    # the upload picker waits for a file and stops the script): otherwise Streamlit forgets them and the
    # browser sends back the widgets' defaults.
    for key in keys:
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]
    if st.session_state.get(flag):
        return
    st.session_state[flag] = True
    for key in keys:
        if key in st.query_params and key not in st.session_state:
            raw = st.query_params.get_all(key)
            try:
                value = json.loads(raw[0]) if len(raw) == 1 else [json.loads(r) for r in raw]
            except (ValueError, TypeError):
                value = raw[0] if len(raw) == 1 else raw
            st.session_state[key] = value


def write_to_url(keys: Sequence[str]) -> None:
    """Mirror the current widget values into the URL so a copied link reopens the same view."""
    params: dict[str, Any] = {}
    for key in keys:
        if key in st.session_state:
            value = st.session_state[key]
            if isinstance(value, (list, tuple)):
                params[key] = json.dumps(list(value))  # one JSON array, so one-element lists stay lists
            elif isinstance(value, (str, int, float, bool)) or value is None:
                params[key] = json.dumps(value)
    if params:
        st.query_params.from_dict(params)


def coerce_state(key: str, cast: Any, ok: Any = lambda v: True) -> None:
    """Make a value restored from a (possibly hand-edited) URL acceptable to its widget: cast it, and drop
    it (so the widget's default applies) when it cannot be cast or fails ``ok``."""
    ss = st.session_state
    if key not in ss:
        return
    try:
        value = cast(ss[key])
        if not ok(value):
            raise ValueError
    except (TypeError, ValueError):
        del ss[key]
        return
    if value != ss[key] or type(value) is not type(ss[key]):
        ss[key] = value


def config_of(keys: Sequence[str]) -> dict[str, Any]:
    """The page's configuration as plain JSON data (for the 'download configuration' button)."""
    out = {}
    for key in keys:
        value = st.session_state.get(key)
        if isinstance(value, (str, int, float, bool, list)) or value is None:
            out[key] = value
    return out


# --------------------------------------------------------------------------- errors
@contextlib.contextmanager
def friendly_errors(what: str = "this configuration") -> Iterator[None]:
    """Turn library errors into an ``st.error`` that says what to change; never a traceback."""
    try:
        yield
    except ldp.LDPError as exc:  # a user error; a TypeError or KeyError is a bug and surfaces as one
        st.error(f"Cannot run {what}: {exc}")
        st.stop()
    except MemoryError:
        st.error("This configuration needs more memory than the server has: use the fast engine, "
                 "fewer users or a smaller domain.")
        st.stop()


# --------------------------------------------------------------------------- controls
def epsilon_slider(key: str = "eps", *, label: str = "Privacy budget ε", default: float = 1.0,
                   container: Any = st) -> float:
    """ε from 0.05 to 10 on a log grid; says which end is more private."""
    if key in st.session_state and st.session_state[key] not in EPS_GRID:
        st.session_state[key] = min(EPS_GRID, key=lambda e: abs(e - float(st.session_state[key])))
    st.session_state.setdefault(key, default)
    value = container.select_slider(
        label, options=EPS_GRID, key=key,
        help="Smaller ε = stronger privacy (more noise); larger ε = more accuracy. Steps are finer at small ε.")
    container.caption("◀ more private · · · more accurate ▶")
    return float(value)


def mechanism_picker(key: str = "mech", *, container: Any = st, default: str = "oue",
                     allow_she: bool = True, collections: Sequence[str] = ("one-time", "longitudinal")) -> str:
    """A frequency oracle from the registry, grouped by collection (one-time, longitudinal), with its one-line
    explanation."""
    options = [cls.name for collection in collections for cls in ldp.mechanisms_of("frequency")
               if cls.collection == collection and (cls.pure or allow_she)]
    if key in st.session_state and st.session_state[key] not in options:
        del st.session_state[key]

    def fmt(name: str) -> str:
        cls = ldp.MECHANISMS.get(name)
        return f"{cls.collection.capitalize()} · {cls.display_name}"

    st.session_state.setdefault(key, default)
    name = container.selectbox("Mechanism", options, key=key, format_func=fmt)
    cls = ldp.MECHANISMS.get(name)
    container.caption(f"{cls.description}. _{cls.paper}_")
    return name


def mechanism_params(name: str, epsilon: float, key: str = "mech", container: Any = st) -> dict[str, Any]:
    """Widgets for a mechanism's own parameters (ε1 for longitudinal ones; g, ω, θ are derived)."""
    cls = ldp.MECHANISMS.get(name)
    params: dict[str, Any] = {}
    if cls.collection == "longitudinal":
        options = _reachable_epsilon_1(name, epsilon)
        if not options:  # nothing reachable: the library's own message explains it where the mechanism is built
            return {"epsilon_1": epsilon / 2}
        k = f"{key}_eps1"
        if k in st.session_state and st.session_state[k] not in options:
            st.session_state[k] = min(options, key=lambda e: abs(e - float(st.session_state[k])))
        st.session_state.setdefault(k, min(options, key=lambda e: abs(e - epsilon / 2)))
        params["epsilon_1"] = float(container.select_slider(
            "ε1 (one report; ε above is ε∞ of the memoized value)", options=options, key=k))
    return params


@st.cache_data(show_spinner=False)
def _reachable_epsilon_1(name: str, epsilon: float) -> list[float]:
    """The ε1 values of the grid below ε∞ that this longitudinal mechanism can actually reach."""
    out = []
    for e1 in [e for e in EPS_GRID if e < epsilon] or [epsilon / 2]:
        try:
            ldp.get_mechanism(name, epsilon, 8, epsilon_1=e1)
        except ldp.LDPError:
            continue
        out.append(e1)
    return out


def estimator_picker(key: str = "est", *, container: Any = st, default: Sequence[str] = ("mi", "norm-sub"),
                     mechanism: str | None = None) -> list[str]:
    names = [e.name for e in ldp.ESTIMATORS if "frequency" in e.kinds]
    if mechanism is not None:
        cls = ldp.MECHANISMS.get(mechanism)
        names = [e.name for e in ldp.ESTIMATORS if "frequency" in e.kinds and (cls.pure or not e.requires_pure)]
    if key in st.session_state:
        st.session_state[key] = [e for e in st.session_state[key] if e in names]
    st.session_state.setdefault(key, [e for e in default if e in names])
    chosen = container.multiselect(
        "Estimators / post-processing", names, key=key,
        format_func=lambda e: ldp.ESTIMATORS.get(e).display_name,
        help="Every estimator runs on the same simulated reports, so their errors compare like for like.")
    return list(chosen)


# --------------------------------------------------------------------------- data
@st.cache_data(show_spinner=False, max_entries=64)
def _sample_column(sample: str, column: str, buckets: int, lo: float | None, hi: float | None) -> dict:
    meta = next(s for s in list_samples() if s["name"] == sample)
    col = next(c for c in meta["columns"] if c["name"] == column)
    series = get_column(load_sample(sample), column)
    if col["kind"] == "numerical":
        rng = (lo, hi) if lo is not None and hi is not None else (tuple(col["range"]) if "range" in col else None)
        enc = bucketize(series, buckets, value_range=rng, out_of_range="clip", name=column)
    else:
        enc = encode_categorical(series, name=column)
    return {"counts": enc.true_counts(), "labels": list(enc.labels), "kind": enc.kind, "edges": enc.edges,
            "unit": col.get("unit", ""), "description": col.get("description", ""), "dropped": enc.dropped,
            "clipped": enc.clipped}


def _numeric_controls(key: str, container: Any, series: pd.Series | None, default_bins: int = 48,
                      natural: tuple[float, float] | None = None,
                      range_key: str = "") -> tuple[int, float | None, float | None]:
    st.session_state.setdefault(f"{key}_bins", default_bins)
    bins = container.slider("Bins", 2, 512, key=f"{key}_bins",
                            help="The numerical column is bucketized into this many equal-width bins.")
    lo_hi = natural
    if series is not None:
        vals = pd.to_numeric(series, errors="coerce").dropna()
        if len(vals):
            lo_hi = (float(vals.min()), float(vals.max()))
    if lo_hi is None:
        return bins, None, None
    c1, c2 = container.columns(2)
    rk = key  # fixed keys (shareable in the URL); reset to the natural range when the column changes
    owner = f"{key}_range_of"
    if st.session_state.get(owner) not in (None, range_key) or f"{rk}_lo" not in st.session_state:
        st.session_state[f"{rk}_lo"] = float(lo_hi[0])
        st.session_state[f"{rk}_hi"] = float(lo_hi[1])
    st.session_state[owner] = range_key
    lo = c1.number_input("from", key=f"{rk}_lo", format="%.4g")
    hi = c2.number_input("to", key=f"{rk}_hi", format="%.4g")
    if hi <= lo:
        raise ldp.LDPError(f"the range must have 'to' > 'from' (got {lo:g} to {hi:g}); widen the range")
    return bins, float(lo), float(hi)


def dataset_picker(key: str = "data", *, container: Any = st, allow_upload: bool = True,
                   default_sample: str = "flights", default_column: str = "dest") -> Dataset:
    """Bundled sample data, a synthetic generator, or an upload (CSV or Parquet) with a column picker."""
    sources = ["Sample data", "Synthetic", "Upload"] if allow_upload else ["Sample data", "Synthetic"]
    source = container.radio("Dataset", sources, key=f"{key}_source", horizontal=True)
    if source == "Sample data":
        samples = list_samples()
        names = [s["name"] for s in samples]
        st.session_state.setdefault(f"{key}_sample", default_sample)
        sample = container.selectbox("Sample", names, key=f"{key}_sample",
                                     format_func=lambda s: next(x["title"] for x in samples if x["name"] == s))
        info = next(s for s in samples if s["name"] == sample)
        cols = [c["name"] for c in info["columns"]]
        ck = f"{key}_column"
        if ck in st.session_state and st.session_state[ck] not in cols:
            del st.session_state[ck]
        st.session_state.setdefault(ck, default_column if default_column in cols else info["default_column"])
        kinds = {c["name"]: c["kind"] for c in info["columns"]}
        column = container.selectbox("Column", cols, key=ck, format_func=lambda c: f"{c} ({kinds[c]})")
        col = next(c for c in info["columns"] if c["name"] == column)
        if col["kind"] == "numerical":
            bins, lo, hi = _numeric_controls(key, container, None, natural=tuple(col["range"]) if "range" in col
                                             else _natural_range(sample, column), range_key=f"{sample}_{column}")
        else:
            bins, lo, hi = 0, None, None
        data = _sample_column(sample, column, bins or 2, lo, hi)
        notes = []
        if data["dropped"]:
            notes.append(f"{data['dropped']:,} rows with a missing value were left out.")
        if data["clipped"]:
            notes.append(f"{data['clipped']:,} values outside the range were clipped into the end bins.")
        return Dataset(counts=data["counts"], labels=data["labels"], name=column, kind=data["kind"],
                       edges=data["edges"], unit=data["unit"], description=f"{info['title']}: {data['description']}",
                       notes=tuple(notes))
    if source == "Synthetic":
        names = list(SYNTHETIC)
        spec_name = container.selectbox("Distribution", names, key=f"{key}_synthetic",
                                        format_func=lambda s: f"{s} — {SYNTHETIC[s][0]}")
        st.session_state.setdefault(f"{key}_d", int(SYNTHETIC[spec_name][1].get("d", 100)))
        d = container.slider("Domain size d", 2, 2048, key=f"{key}_d")
        extra = ""
        if spec_name == "zipf":
            st.session_state.setdefault(f"{key}_zipf_s", 1.5)
            s = container.slider("Zipf exponent s", 0.1, 3.0, step=0.1, key=f"{key}_zipf_s")
            extra = f",s={s}"
        spec = f"{spec_name}:d={d}{extra}"
        freqs = true_distribution(spec)
        enc = generate(spec, 2, np.random.default_rng(0))
        counts = np.round(freqs * 1_000_000).astype(np.int64)
        return Dataset(counts=np.maximum(counts, 0), labels=list(enc.labels), name=spec_name,
                       kind=enc.kind, edges=enc.edges, description=SYNTHETIC[spec_name][0],
                       notes=("Synthetic data: the population follows the exact distribution; users are drawn "
                              "from it.",))
    return _upload_picker(key, container)


@st.cache_data(show_spinner=False)
def _natural_range(sample: str, column: str) -> tuple[float, float]:
    vals = pd.to_numeric(get_column(load_sample(sample), column), errors="coerce").dropna()
    return float(vals.min()), float(vals.max())


def _upload_picker(key: str, container: Any) -> Dataset:
    exts = sorted({e.split(".")[-1] for e in SUPPORTED_EXTENSIONS})
    up = container.file_uploader(f"CSV or Parquet file (≤ {UPLOAD_LIMIT_MB} MB)", type=exts, key=f"{key}_upload")
    if up is None:
        container.info("Upload a file to use it, or pick sample data.")
        st.stop()
    raw = up.getvalue()
    if len(raw) > UPLOAD_LIMIT_MB * 1024 * 1024:
        raise ldp.LDPError(f"the file is larger than {UPLOAD_LIMIT_MB} MB; upload a smaller extract")
    # Parsed per session only (session_state, not a shared cache): one user's upload never reaches another.
    cache = st.session_state.setdefault("_uploads", {})
    sig = (up.name, len(raw), hash(raw))
    if sig not in cache:
        cache.clear()
        cache[sig] = load_table_bytes(raw, up.name)
    df = cache[sig]
    usable = [c for c in df.columns if df[c].notna().sum() > 0]
    if not usable:
        raise ldp.LDPError("the file has no column with values; check that it has a header row and data")
    column = container.selectbox("Column", usable, key=f"{key}_upcol")
    series = get_column(df, column)
    numeric = pd.to_numeric(series, errors="coerce")
    is_num = numeric.notna().sum() == series.notna().sum() and series.nunique() > 20
    kind = container.radio("Treat as", ["numerical", "categorical"], index=0 if is_num else 1,
                           key=f"{key}_upkind_{column}", horizontal=True)
    if kind == "numerical":
        if numeric.notna().sum() < series.notna().sum():
            raise ldp.LDPError(f"column '{column}' is not numeric; treat it as categorical or pick another column")
        bins, lo, hi = _numeric_controls(key, container, series, range_key=f"up_{column}")
        enc = bucketize(series, bins, value_range=(lo, hi) if lo is not None else None, out_of_range="clip",
                        name=column)
    else:
        if series.nunique() > MAX_CATEGORIES:
            raise ldp.LDPError(f"column '{column}' has {series.nunique():,} distinct values (more than "
                             f"{MAX_CATEGORIES:,}); treat it as numerical or pick another column")
        enc = encode_categorical(series, name=column)
        with container.expander(f"Domain preview ({enc.d} values)"):
            st.dataframe(pd.DataFrame({"value": enc.labels, "rows": enc.true_counts()}), hide_index=True)
    notes = []
    if enc.dropped:
        notes.append(f"{enc.dropped:,} rows with a missing value were left out.")
    if enc.clipped:
        notes.append(f"{enc.clipped:,} values outside the range were clipped into the end bins.")
    return Dataset(counts=enc.true_counts(), labels=list(enc.labels), name=column, kind=enc.kind, edges=enc.edges,
                   description=f"uploaded file {up.name}", notes=tuple(notes))


# --------------------------------------------------------------------------- output
def show_figure(fig: Any, key: str, data: pd.DataFrame | None = None, description: str = "") -> None:
    """A chart with an accessible text description and its plotted values as a table."""
    st.plotly_chart(fig, key=key, config={"displaylogo": False, "toImageButtonOptions": {"format": "png",
                                                                                         "scale": 2}})
    if description:
        st.caption(description)
    if data is not None:
        with st.expander("Plotted values (table)"):
            st.dataframe(data, key=f"{key}_table")


def download_buttons(table: pd.DataFrame, config: dict[str, Any], key: str, name: str = "ldp-explorer") -> None:
    c1, c2 = st.columns(2)
    c1.download_button("Download results (CSV)", table.to_csv(index=False).encode(), f"{name}-results.csv",
                       "text/csv", key=f"{key}_csv")
    c2.download_button("Download configuration (JSON)", json.dumps(config, indent=2, default=str).encode(),
                       f"{name}-config.json", "application/json", key=f"{key}_json")
