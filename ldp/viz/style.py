"""The shared look of every figure: the colour-blind-safe palette, and log axes labelled by their values."""

from __future__ import annotations

import base64
import contextvars
import functools
import math
import multiprocessing
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

# Okabe–Ito colour-blind-safe palette.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]

__all__ = ["PALETTE", "PROJECTOR_FONT", "declared_figure", "disposable_spec", "figure_spec", "figure_spec_on",
           "for_projector", "label_log_axes", "paired_lines"]

#: Set while :func:`figure_spec` calls a builder: :func:`declared_figure` then hands back the declaration itself.
_DECLARING: contextvars.ContextVar[bool] = contextvars.ContextVar("ldp_declaring", default=False)


class _Declaration:
    """What :func:`declared_figure` was given — traces and layout, plain dicts — when only the figure's spec is wanted
    (:func:`figure_spec`): the spec is made from it directly, without a ``go.Figure`` in between."""

    __slots__ = ("data", "layout")

    def __init__(self, data: list[dict[str, Any]], layout: dict[str, Any]) -> None:
        self.data, self.layout = data, layout


def declared_figure(data: list[dict[str, Any]], layout: Any) -> go.Figure:
    """The figure of ``data`` (trace dicts) and ``layout`` declared whole and built without Plotly's value validation
    (a fifth of the time: a page builds several on every change of ε, in every session).

    The builders that use it write only schema-valid properties; their tests validate every figure again against
    Plotly's schema and compare the JSON, so a misspelt property fails there (it would otherwise reach the browser
    unchecked). Uses Plotly's private ``_validate`` argument of ``go.Figure``.

    A builder returns what this returns, unchanged: inside :func:`figure_spec` it is the declaration itself, from
    which the spec is made without building the figure (40 % of a Post-processing figure's cost, in every session on
    every change of ε).

    Parameters
    ----------
    data : list of dict
        The traces, each a dict with its ``type``.
    layout : mapping
        The layout.

    Returns
    -------
    plotly.graph_objects.Figure
        The figure.
    """
    traces = [_plain_arrays(trace) for trace in data]
    if _DECLARING.get():
        return _Declaration(traces, _plain_arrays(dict(layout)))  # type: ignore[return-value]  # figure_spec's
    return go.Figure(data=traces, layout=layout, _validate=False)


#: What :func:`_plain_arrays` looks inside or converts.
_NESTED = (dict, list, pd.Series, pd.Index)


def _plain_arrays(entry: Any) -> Any:
    """``entry`` with every numeric pandas Series or Index in it (at any depth of dicts and lists) as a numpy array:
    Plotly encodes a Series through narwhals, a tenth of a figure's encoding time at the Post-processing page's
    sizes, for the same typed array. Other Series (text, dates) are left to Plotly. Its dicts and lists are new ones,
    so a spec made from it (:func:`figure_spec`, which encodes its arrays in place) never changes a builder's
    constants."""
    if isinstance(entry, dict):
        return {key: _plain_arrays(value) for key, value in entry.items()}
    if isinstance(entry, list):  # a call only for what may hold arrays: a hover text list holds only strings
        return [_plain_arrays(value) if isinstance(value, _NESTED) else value for value in entry]
    if isinstance(entry, (pd.Series, pd.Index)) and entry.dtype.kind in "biuf":
        return entry.to_numpy()
    return entry


#: Type sizes (px) of a figure shown on a projector: body and ticks, axis titles, the figure's title.
PROJECTOR_FONT = {"body": 17, "axis": 18, "title": 21}


def plain_text(value: object) -> str:
    """A user-provided string (a category, a column name) as text in a Plotly figure: HTML escaped, since Plotly
    renders tags such as ``<a href=…>`` in tick labels and hover text as live markup.

    Parameters
    ----------
    value : object
        Any value; it is converted with ``str`` first.

    Returns
    -------
    str
        The text with ``&``, ``<`` and ``>`` escaped (quotes kept).
    """
    import html

    return html.escape(str(value), quote=False)


def _axis_values(traces: Iterable[Any], letter: str, name: str, get: Callable[[Any, str], Any]) -> np.ndarray:
    """The positive finite data values the traces draw on axis ``name`` (e.g. "xaxis2" for letter "x"); ``get`` reads
    a trace's property (``getattr`` for a figure's traces, ``dict.get`` for a spec's)."""
    suffix = name[len(letter) + 4:]  # "" for the first axis, "2" for xaxis2, …
    out = []
    for trace in traces:
        if (get(trace, f"{letter}axis") or letter) != letter + suffix:
            continue
        values = get(trace, letter)
        if values is None:
            continue
        try:
            arr = np.asarray(values, dtype=np.float64).ravel()
        except (TypeError, ValueError):
            continue
        out.append(arr[np.isfinite(arr) & (arr > 0)])
    return np.concatenate(out) if out else np.array([])


def _nice_ticks(lo: float, hi: float) -> list[float]:
    """1-2-5 values × 10^k within [lo, hi] (at least the two ends' neighbours)."""
    ticks = []
    for k in range(math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1):
        ticks += [m * 10.0 ** k for m in (1, 2, 5) if lo / 1.0001 <= m * 10.0 ** k <= hi * 1.0001]
    return ticks


def figure_spec(build: Callable[..., go.Figure], *args: Any, **kwargs: Any) -> dict[str, Any]:
    """The figure ``build(*args, **kwargs)`` with its log axes labelled (:func:`label_log_axes`), as the dict Plotly
    hands a browser: ``to_dict()``, every array encoded in base64 — all a process that only shows the figure needs
    (the dashboard builds some in a worker process and sends this back). A builder of :func:`declared_figure` hands
    over its declaration, which becomes the spec without a figure built (the default template added, as the figure
    would add it); the tests compare the two specs for every such builder.

    Parameters
    ----------
    build : callable
        A figure builder (module-level, so that it can be sent to another process).
    *args, **kwargs
        Its arguments.

    Returns
    -------
    dict
        The figure's ``to_dict()``.
    """
    token = _DECLARING.set(True)
    try:
        fig = build(*args, **kwargs)
    finally:
        _DECLARING.reset(token)
    if not isinstance(fig, _Declaration):
        return disposable_spec(label_log_axes(fig))
    layout = fig.layout
    spec = {"data": fig.data, "layout": layout}
    for name, axis in layout.items():
        if name.startswith(("xaxis", "yaxis")) and isinstance(axis, dict) and axis.get("type") == "log":
            update = _log_axis_update(_axis_values(fig.data, name[0], name, dict.get))
            if update:
                layout[name] = {**axis, **update, **({"minor": {**axis.get("minor", {}), **update["minor"]}}
                                                      if "minor" in update else {})}
    encode_arrays(spec)  # before the template is in: its thousands of entries hold no array
    if "template" not in layout and pio.templates.default is not None:  # what go.Figure's layout takes on
        layout["template"] = _template_of(pio.templates.default)
    return spec


def disposable_spec(fig: go.Figure) -> dict[str, Any]:
    """``fig.to_dict()`` of a figure that nothing else holds (one just built to be sent): the figure's own data and
    layout, their arrays encoded in base64 as ``to_dict`` encodes them, without the deep copy ``to_dict`` makes to
    protect a figure that lives on (a fifth of a figure's encoding time). ``fig`` must not be used afterwards. A
    figure with frames goes through ``to_dict``. The tests check that the two agree on every estimator-comparison
    figure.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        A figure about to be dropped.

    Returns
    -------
    dict
        What ``fig.to_dict()`` returns.
    """
    if fig._frame_objs:
        return fig.to_dict()
    spec = {"data": fig._data, "layout": fig._layout}
    encode_arrays(spec)
    return spec


#: numpy's dtypes that Plotly.js reads as typed arrays, by Plotly's short names.
_TYPED = {"int8": "i1", "uint8": "u1", "int16": "i2", "uint16": "u2", "int32": "i4", "uint32": "u4",
          "float32": "f4", "float64": "f8"}
_NARROW = {"int64": (np.int8, np.int16, np.int32), "uint64": (np.uint8, np.uint16, np.uint32)}


def encode_arrays(spec: Any) -> None:
    """Plotly's ``convert_to_base64`` (what ``to_dict`` does to a figure's arrays), in place: every array of numbers
    in the dicts and lists of ``spec`` becomes Plotly.js's typed-array spec (``{"dtype", "bdata"[, "shape"]}``,
    64-bit integers narrowed to the smallest type that holds them, as Plotly narrows them), except under the keys
    Plotly skips. A non-empty numeric numpy array is encoded here directly; anything else array-like (a pandas
    Series of text, an empty array, float16) goes to Plotly's own conversion. Plotly's passes every array through
    narwhals first — a third of a Post-processing figure's cost, for the same bytes (the tests compare the two)."""
    from _plotly_utils.utils import is_homogeneous_array, is_skipped_key, to_typed_array_spec

    if isinstance(spec, dict):
        for key, value in spec.items():
            if isinstance(value, _SCALARS) or is_skipped_key(key):  # a scalar: nothing to encode (most entries)
                continue
            if isinstance(value, np.ndarray) and value.size and value.dtype.kind in "iuf":
                spec[key] = _typed_array(value)
            elif isinstance(value, (dict, list, tuple)):
                encode_arrays(value)
            elif is_homogeneous_array(value):
                spec[key] = to_typed_array_spec(value)
    elif isinstance(spec, (list, tuple)):
        for value in spec:
            if not isinstance(value, _SCALARS):
                encode_arrays(value)


_SCALARS = (str, int, float, bool, type(None))


def _typed_array(v: np.ndarray) -> Any:
    """Plotly's ``to_typed_array_spec`` of a non-empty numeric array (a read-only copy where Plotly returns one)."""
    name = str(v.dtype)
    if name in _NARROW:
        lo, hi = v.min(), v.max()
        kind = next((t for t in _NARROW[name] if np.iinfo(t).min <= lo and hi <= np.iinfo(t).max), None)
        v = v if kind is None else v.astype(kind)
        name = str(v.dtype)
    if name not in _TYPED:
        out = np.ascontiguousarray(v.copy())
        out.flags["WRITEABLE"] = False
        return out
    out = {"dtype": _TYPED[name], "bdata": base64.b64encode(np.ascontiguousarray(v)).decode("ascii")}
    if v.ndim > 1:
        out["shape"] = str(v.shape)[1:-1]
    return out


def figure_spec_on(template: Any, build: Callable[..., go.Figure], *args: Any, **kwargs: Any) -> dict[str, Any]:
    """:func:`figure_spec` with Plotly's default template ``template`` (a name or a template) in force: what another
    process builds looks as it would here, whatever that process's default (Streamlit's import sets its own).

    In a worker process (one with a ``multiprocessing`` parent, which builds one figure at a time) the figure is
    built without a template and the template's JSON — made once per name — is put in its spec afterwards: the
    same spec, without deep-copying and walking the template (thousands of objects) for every figure, a fifth of
    a figure's cost. Anywhere else (a call made in the server when its pool has broken) the process's own default
    is left alone, as other threads build figures with it.

    Parameters
    ----------
    template : str or plotly.graph_objects.layout.Template or None
        The default template the figure is built with (``plotly.io.templates.default`` of the asking process).
    build : callable
        A figure builder (module-level).
    *args, **kwargs
        Its arguments.

    Returns
    -------
    dict
        The figure's ``to_dict()``.
    """
    if multiprocessing.parent_process() is None:  # not a worker: never change this process's default
        return figure_spec(build, *args, **kwargs)
    pio.templates.default = None
    spec = figure_spec(build, *args, **kwargs)
    if template is not None:
        spec.setdefault("layout", {})["template"] = _template_of(template)
    return spec


def _template_of(template: Any) -> dict[str, Any]:
    """The JSON of ``template`` (a registered name: made once per process, :func:`_template_json`; or a Template)."""
    return _template_json(template) if isinstance(template, str) else template.to_plotly_json()


@functools.lru_cache(maxsize=16)
def _template_json(name: str) -> dict[str, Any]:
    """A registered template's JSON, made once per process (shared by the specs: never changed)."""
    return pio.templates[name].to_plotly_json()


def label_log_axes(fig: Any) -> Any:
    """Label every log axis by decades, never by bare mantissas (Plotly's default labels minor ticks
    "2 3 … 9" with no decade, reading "8 9 0.1 2"). An axis whose data span two decades or more gets one labelled
    tick per power of ten (10⁻³ style) and unlabelled minor ticks; a narrower one gets 1-2-5 values written out in
    full (0.5, 1, 2). Returns ``fig``, changed in place.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        Any figure; only its axes of ``type="log"`` (``xaxis``, ``yaxis2``, …) are touched, each labelled from the
        positive finite values its own traces draw on it (an axis with no such value is left as it is).

    Returns
    -------
    plotly.graph_objects.Figure
        The same ``fig`` object, its log axes relabelled (returned for chaining).
    """
    # the layout's property names (its subplots' axes included), not its to_plotly_json(): that deep-copies the
    # whole layout, template included, for its keys (0.4 ms a figure, paid again by every figure a page builds)
    for name in [k for k in fig.layout if k.startswith(("xaxis", "yaxis"))]:
        axis = fig.layout[name]
        if axis.type != "log":
            continue
        update = _log_axis_update(_axis_values(fig.data, name[0], name, lambda trace, key: getattr(trace, key, None)))
        if update:
            axis.update(**update)
    return fig


def _log_axis_update(values: np.ndarray) -> dict[str, Any] | None:
    """The properties :func:`label_log_axes` sets on a log axis drawing ``values`` (positive, finite; None: none)."""
    if values.size == 0:
        return None
    lo, hi = float(values.min()), float(values.max())
    if hi / lo >= 100:
        return {"dtick": 1, "exponentformat": "power", "minor": {"ticks": "outside", "ticklen": 3, "showgrid": True}}
    ticks = _nice_ticks(lo, hi)
    if len(ticks) < 2:
        return None
    return {"tickmode": "array", "tickvals": ticks, "ticktext": [f"{t:g}" for t in ticks]}


def paired_lines(table: pd.DataFrame, by: str, x: str, columns: tuple[str, str], *, title: str, x_title: str,
                  y_title: str, log_y: bool = False) -> go.Figure:
    """Two lines per group of ``table`` against ``x``: ``columns[0]`` solid, ``columns[1]`` dotted, one colour
    per group.

    Parameters
    ----------
    table : pandas.DataFrame
        Long table with columns ``by``, ``x`` and both of ``columns``.
    by : str
        Column whose groups become the line pairs (in order of first appearance; colours cycle through
        :data:`PALETTE`).
    x : str
        Column drawn on the x axis.
    columns : tuple of (str, str)
        The two y columns: the first drawn solid, the second dotted.
    title, x_title, y_title : str
        The figure's title and axis titles.
    log_y : bool, default False
        Draw the y axis on a log scale.

    Returns
    -------
    plotly.graph_objects.Figure
        Two ``lines+markers`` traces per group, named ``"<group> · <column>"`` and sharing a legend group, so a
        reader compares the solid and dotted line of one colour (e.g. measured against predicted).
    """
    fig = go.Figure()
    for i, (key, part) in enumerate(table.groupby(by, sort=False)):
        colour = PALETTE[i % len(PALETTE)]
        for column, dash in zip(columns, ("solid", "dot"), strict=True):
            fig.add_scatter(x=part[x], y=part[column], mode="lines+markers", name=f"{key} · {column}",
                            legendgroup=str(key), line={"color": colour, "width": 2.5, "dash": dash})
    fig.update_layout(title=title, xaxis_title=x_title, yaxis_title=y_title)
    if log_y:
        fig.update_yaxes(type="log")
    return fig


def for_projector(fig: Any, height: int | None = None) -> Any:
    """``fig`` restyled for a projector: larger type (:data:`PROJECTOR_FONT`), tighter margins and, when given,
    a fixed ``height`` in pixels (so the chart fits the screen under the page's heading and controls).

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure to restyle (changed in place).
    height : int or None, default None
        Fixed figure height in pixels; None keeps the figure's own height.

    Returns
    -------
    plotly.graph_objects.Figure
        The same ``fig`` object (returned for chaining).
    """
    fig.update_layout(font={"size": PROJECTOR_FONT["body"]}, title_font_size=PROJECTOR_FONT["title"],
                      margin={"t": 60, "b": 10, "l": 10, "r": 10})
    fig.update_xaxes(title_font_size=PROJECTOR_FONT["axis"], tickfont_size=PROJECTOR_FONT["body"])
    fig.update_yaxes(title_font_size=PROJECTOR_FONT["axis"], tickfont_size=PROJECTOR_FONT["body"])
    if height is not None:
        fig.update_layout(height=height)
    return fig
