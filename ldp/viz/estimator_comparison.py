"""Figures of the Post-processing lab (consistency paper §V): per-value bias and variance (Figs. 2
and 3), frequent-value (top-k) MSE against k (Fig. 10) and set-value query MSE against ρ (Figs. 6–7).

Pure Plotly: every builder takes the tidy tables computed by :mod:`ldp.studies.comparison` and returns a
``go.Figure``; no Streamlit import, so they are testable alone. Each figure is declared whole — its traces and
layout as one dict — rather than grown by ``add_scatter``, ``update_layout`` and ``add_vline`` calls, each of which
validates and merges again (3–4× the time for the same figure; a page builds these on every change of ε).

The dicts are written in the schema's own nested form (``{"font": {"size": 14}}``, never the magic
``font_size``), so they need no validation to mean what they say: :func:`_figure` hands them to ``go.Figure``
unvalidated, which builds a figure in a fifth of the time (bias figure of 7 estimators: 12.8 → 2.8 ms; the
Post-processing lab builds four on every new ε, in every session). The tests validate every figure of this module
against the schema — validated again, it must give the same JSON.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ldp.viz.style import PALETTE, declared_figure

__all__ = ["DASHES", "LAYOUT", "RANK_AXIS", "THEORY_COLOUR", "advisor_figure", "bias_figure", "colour_map", "dash_map",
           "early_stopping_figure", "set_value_figure", "style_maps", "top_k_figure", "variance_figure"]

THEORY_COLOUR = "#444444"
LAYOUT = {"font": {"size": 16}, "height": 460, "legend_title": "estimator",
          "hoverlabel": {"font": {"size": 14}}}
RANK_AXIS = "value, sorted by true frequency (rank; 1 = most frequent)"


DASHES = ("solid", "dash", "dot", "dashdot")


def _figure(data: list[dict[str, object]], layout: Mapping[str, object]) -> go.Figure:
    """The figure of ``data`` (trace dicts) and ``layout``, unvalidated (:func:`~ldp.viz.style.declared_figure`;
    the tests validate every builder's output)."""
    return declared_figure(data, layout)


def colour_map(names: Sequence[str], colors: Mapping[str, str] | None = None) -> dict[str, str]:
    """A colour per series: the given ones, else the Okabe–Ito palette in order of appearance.

    Parameters
    ----------
    names : sequence of str
        The series, in order of appearance.
    colors : mapping of str to str or None, default None
        Fixed colours of some series (kept); the others take the palette's colours not already used, cycling.

    Returns
    -------
    dict of str to str
        Series name → colour, for every name of ``names`` and of ``colors``.
    """
    out = dict(colors or {})
    free = [c for c in PALETTE if c not in out.values()] or PALETTE
    i = 0
    for name in names:
        if name not in out:
            out[name] = free[i % len(free)]
            i += 1
    return out


def dash_map(names: Sequence[str], dashes: Mapping[str, str] | None = None) -> dict[str, str]:
    """A line style per series: the given ones, else solid for the first eight (one palette round),
    dashed for the next eight, and so on, so more series than colours stay distinguishable.

    Parameters
    ----------
    names : sequence of str
        The series, in order of appearance.
    dashes : mapping of str to str or None, default None
        Fixed line styles of some series (kept).

    Returns
    -------
    dict of str to str
        Series name → Plotly dash (one of :data:`DASHES`), for every name of ``names`` and of ``dashes``.
    """
    out = dict(dashes or {})
    for i, name in enumerate(names):
        out.setdefault(name, DASHES[(i // len(PALETTE)) % len(DASHES)])
    return out


def style_maps(names: Sequence[str]) -> tuple[dict[str, str], dict[str, str]]:
    """Colours and dashes for a fixed list of series (e.g. every registered estimator), so a series
    keeps its look whichever subset is shown.

    Parameters
    ----------
    names : sequence of str
        Every series that may be shown, in a fixed order.

    Returns
    -------
    colours : dict of str to str
        :func:`colour_map` of ``names``.
    dashes : dict of str to str
        :func:`dash_map` of ``names``.
    """
    return colour_map(names), dash_map(names)


def _rgba(hex_colour: str, alpha: float) -> str:
    h = hex_colour.lstrip("#")
    r, g, b = (int(h[i:i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


class _Rows:
    """One estimator's rows of a table, read column by column as numpy arrays (``rows["MSE"]``, ``len(rows)``)."""

    __slots__ = ("_columns", "_index")

    def __init__(self, columns: Mapping[str, np.ndarray], index: np.ndarray) -> None:
        self._columns, self._index = columns, index

    def __getitem__(self, column: str) -> np.ndarray:
        return self._columns[column][self._index]

    def __len__(self) -> int:
        return int(self._index.size)

    @classmethod
    def none_of(cls, table: pd.DataFrame) -> _Rows:
        """No rows of ``table`` (its columns, empty)."""
        return cls({column: table[column].to_numpy() for column in table.columns}, np.arange(0))


def _groups(table: pd.DataFrame) -> list[tuple[str, _Rows]]:
    """``table``'s rows per estimator, in order of first appearance (each in the table's order; rows without an
    estimator left out, as ``groupby`` leaves them), every column read once as a numpy array. Iterating a pandas
    ``groupby`` built a frame per estimator and a Series per column read: half of a Post-processing rerun's four
    figures (7 estimators), which the builders only read as arrays."""
    codes, names = pd.factorize(table["estimator"], sort=False)
    every = _Rows.none_of(table)._columns
    return [(str(name), _Rows(every, np.flatnonzero(codes == i))) for i, name in enumerate(names)]


def _labels(values: np.ndarray) -> list[str]:
    """A domain's labels (never missing) as hover text: each as ``str`` gives it, as ``Series.astype(str).tolist()``
    does."""
    return [str(v) for v in values.tolist()]


def _base(title: str, legend: Mapping[str, object] | None = None) -> dict[str, object]:
    """:data:`LAYOUT` and the title as one layout dict (the legend's title, and any ``legend`` settings, in one
    ``legend`` entry)."""
    base = {k: v for k, v in LAYOUT.items() if k != "legend_title"}
    return {**base, "title": {"text": title}, "legend": {"title": {"text": LAYOUT["legend_title"]}, **(legend or {})}}


def _layout(series: int, *, title: str, x_title: str, y_title: str, y_log: bool = False,
            **extra: object) -> dict[str, object]:
    """The common layout; with more series than fit beside the plot, the legend moves below it in
    rows of four and the figure grows so the plot area keeps its height."""
    rows = -(-series // 4)
    below = {"orientation": "h", "yanchor": "top", "y": -0.18 - 0.02 * rows, "x": 0, "entrywidth": 0.25,
             "entrywidthmode": "fraction"}
    layout = {**_base(title, below if series > 8 else None), "xaxis": {"title": {"text": x_title}},
              # 10⁻⁶, not Plotly's SI "1µ" or "100n" on fractions
              "yaxis": {"title": {"text": y_title}, "exponentformat": "power", **({"type": "log"} if y_log else {})},
              **extra}
    if series > 8:
        layout["height"] = LAYOUT["height"] + 30 * rows
    return layout


def _marker_line(x: float, text: str) -> dict[str, list[dict[str, object]]]:
    """A dotted vertical line at ``x`` labelled at its top right (what ``fig.add_vline`` draws)."""
    return {"shapes": [{"type": "line", "x0": x, "x1": x, "xref": "x", "y0": 0, "y1": 1, "yref": "y domain",
                        "line": {"color": THEORY_COLOUR, "dash": "dot"}}],
            "annotations": [{"showarrow": False, "text": text, "x": x, "xanchor": "left", "xref": "x", "y": 1,
                             "yanchor": "top", "yref": "y domain"}]}


def bias_figure(table: pd.DataFrame, *, title: str, z: float = 2.0, colors: Mapping[str, str] | None = None,
                dashes: Mapping[str, str] | None = None) -> go.Figure:
    """Empirical bias (mean estimate − true frequency) per value, values sorted by true frequency, one
    line per estimator with a band of ±z standard errors (consistency paper Fig. 2).

    ``table`` is :func:`ldp.studies.comparison.per_value_table`. Two traces per estimator: the band, then the line.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`ldp.studies.comparison.per_value_table`: per estimator and value, ``rank``, ``value``, ``bias`` and
        ``bias standard error`` (among others).
    title : str
        The figure's title.
    z : float, default 2.0
        Half-width of the band, in standard errors of the bias.
    colors, dashes : mapping of str to str or None, default None
        Fixed colours / line styles per estimator (:func:`style_maps`), so an estimator looks the same in every
        chart; others are assigned in order.

    Returns
    -------
    plotly.graph_objects.Figure
        x: the value's rank by true frequency (1 = most frequent); y: bias (fraction of users), with a line at 0.
        A reader sees which estimators are unbiased (the band covers 0) and which push rare values up and frequent
        ones down (the non-negativity constraints).

    References
    ----------
    Wang, Lopuhaä-Zwakenberg, Li, Skoric, Li, "Locally Differentially Private Frequency Estimation with
    Consistency" (NDSS 2020), §V, Fig. 2.
    """
    groups = _groups(table)
    names = [name for name, _ in groups]
    cmap, dmap = colour_map(names, colors), dash_map(names, dashes)
    data = []
    for name, rows in groups:
        x = rows["rank"]
        bias = rows["bias"]
        half = z * rows["bias standard error"]
        data.append({"type": "scatter", "x": np.concatenate([x, x[::-1]]),
                     "y": np.concatenate([bias + half, (bias - half)[::-1]]), "fill": "toself",
                     "fillcolor": _rgba(cmap[name], 0.18), "line": {"width": 0}, "hoverinfo": "skip",
                     "name": f"{name} ±{z:g} SE", "legendgroup": name, "showlegend": False})
        data.append({"type": "scatter", "x": x, "y": bias, "mode": "lines+markers" if len(x) <= 60 else "lines",
                     "name": name, "legendgroup": name, "line": {"color": cmap[name], "width": 2, "dash": dmap[name]},
                     "marker": {"size": 5}, "hovertext": _labels(rows["value"]), "customdata": half,
                     "hovertemplate": "value %{hovertext} (rank %{x})<br>bias %{y:.3g} ± %{customdata:.2g}"
                                      "<extra>" + name + "</extra>"})
    zero = {"type": "line", "x0": 0, "x1": 1, "xref": "x domain", "y0": 0, "y1": 0, "yref": "y",
            "line": {"color": THEORY_COLOUR, "width": 1}}  # what fig.add_hline(y=0) draws
    return _figure(data, _layout(len(names), title=title, x_title=RANK_AXIS,
                                               y_title="bias: mean estimate − true (fraction of users)",
                                               shapes=[zero]))


def variance_figure(table: pd.DataFrame, *, title: str, colors: Mapping[str, str] | None = None,
                    dashes: Mapping[str, str] | None = None) -> go.Figure:
    """Empirical variance across trials per value (log scale), one line per estimator, with the
    closed-form MI variance as the reference line (consistency paper Fig. 3).

    Values whose estimate never varied (variance 0, e.g. always clipped to 0) leave a gap: a log
    axis cannot show zero. Traces: one per estimator, then the reference.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`ldp.studies.comparison.per_value_table`: per estimator and value, ``rank``, ``value``, ``variance``
        and ``closed-form MI variance`` (the latter read from the first estimator's rows).
    title : str
        The chart's title.
    colors, dashes : mapping of str to str or None, default None
        As for :func:`bias_figure`.

    Returns
    -------
    plotly.graph_objects.Figure
        x: the value's rank by true frequency; y: the variance across trials on a log axis, one line per estimator
        and a long-dashed grey line for matrix inversion's closed-form variance. Estimators below the line trade
        variance for bias.

    References
    ----------
    Consistency paper (Wang et al., NDSS 2020), §V, Fig. 3; the closed form is its Eq. (3),
    σ_v² = [q(1−q) + f_v(p−q)(1−p−q)] / (n(p−q)²) = [f p(1−p) + (1−f) q(1−q)] / (n(p−q)²).
    """
    groups = _groups(table)
    names = [name for name, _ in groups]
    cmap, dmap = colour_map(names, colors), dash_map(names, dashes)
    data = []
    for name, rows in groups:
        var = rows["variance"].astype(float)
        data.append({"type": "scatter", "x": rows["rank"], "y": np.where(var > 0, var, np.nan),
                     "mode": "lines+markers" if len(rows) <= 60 else "lines", "name": name,
                     "line": {"color": cmap[name], "width": 2, "dash": dmap[name]}, "marker": {"size": 5},
                     "hovertext": _labels(rows["value"]),
                     "hovertemplate": "value %{hovertext} (rank %{x})<br>variance %{y:.3g}<extra>" + name
                                      + "</extra>"})
    if groups:
        first = groups[0][1]
        data.append({"type": "scatter", "x": first["rank"], "y": first["closed-form MI variance"], "mode": "lines",
                     "name": "closed-form MI variance",
                     "line": {"color": THEORY_COLOUR, "dash": "longdash", "width": 3},
                     "hovertemplate": "rank %{x}<br>closed form %{y:.3g}<extra></extra>"})
    return _figure(data, _layout(len(names) + 1, title=title, x_title=RANK_AXIS,
                                               y_title="variance across trials (fraction², log scale)", y_log=True))


def top_k_figure(curve: pd.DataFrame, *, k: int, title: str, colors: Mapping[str, str] | None = None,
                 dashes: Mapping[str, str] | None = None) -> go.Figure:
    """Top-k MSE against k (consistency paper Fig. 10), ±1 SE error bars, the chosen k marked.

    ``curve`` columns: estimator, k, MSE, SE. One trace per estimator.

    Parameters
    ----------
    curve : pandas.DataFrame
        :func:`ldp.studies.comparison.top_k_curve_table`: columns ``estimator``, ``k``, ``MSE`` and ``SE``.
    k : int
        The k chosen on the page, marked by a dotted vertical line.
    title : str
        Title of the figure.
    colors, dashes : mapping of str to str or None, default None
        Colour and line style by estimator (e.g. from :func:`style_maps`); an estimator without one is given the
        next free one.

    Returns
    -------
    plotly.graph_objects.Figure
        x: k, the number of most frequent values queried; y: top-k MSE (log axis) with ±1 SE error bars, one line per
        estimator.

    References
    ----------
    Consistency paper (Wang et al., NDSS 2020), §V, Fig. 10.
    """
    groups = _groups(curve)
    names = [name for name, _ in groups]
    cmap, dmap = colour_map(names, colors), dash_map(names, dashes)
    data = [{"type": "scatter", "x": rows["k"], "y": rows["MSE"], "mode": "lines+markers", "name": name,
             "line": {"color": cmap[name], "width": 2, "dash": dmap[name]}, "marker": {"size": 5},
             "error_y": {"type": "data", "array": rows["SE"], "thickness": 1},
             "hovertemplate": "k = %{x}<br>MSE %{y:.3g}<extra>" + name + "</extra>"} for name, rows in groups]
    return _figure(data, _layout(len(names), title=title,
                                               x_title="k (number of most frequent values queried)",
                                               y_title="top-k MSE (fraction², log scale)", y_log=True,
                                               **_marker_line(k, f"k = {k}")))


def set_value_figure(curve: pd.DataFrame, sampled: pd.DataFrame, *, rho: float, title: str,
                     colors: Mapping[str, str] | None = None, dashes: Mapping[str, str] | None = None) -> go.Figure:
    """Set-value query MSE against ρ (consistency paper Figs. 6–7): per estimator, a line with the
    exact average over all subsets of each size and a marker (±1 SE) for the random queries at the
    chosen ρ.

    ``curve`` columns: estimator, ρ (%), MSE; ``sampled``: estimator, ρ (%), MSE, SE. Two traces per
    estimator (line, marker).

    Parameters
    ----------
    curve : pandas.DataFrame
        :func:`ldp.studies.comparison.set_value_curve_table`: columns ``estimator``, ``ρ (%)`` and ``MSE``.
    sampled : pandas.DataFrame
        :func:`ldp.studies.comparison.set_value_sample_table`: columns ``estimator``, ``ρ (%)``, ``MSE`` and ``SE``
        of the random queries at the chosen ρ.
    rho : float
        The chosen ρ in percent, marked by a dotted vertical line.
    title : str
        Shown above the chart.
    colors, dashes : mapping of str to str or None, default None
        Pinned look per estimator, kept across charts; unpinned estimators are assigned in order of appearance.

    Returns
    -------
    plotly.graph_objects.Figure
        x: ρ, the share of the domain in each queried set (%); y: the set-value MSE (log axis). Per estimator a line
        of the expected MSE and a black-edged diamond with ±1 SE for the random queries, which should sit on the line.

    References
    ----------
    Consistency paper (Wang et al., NDSS 2020), §V, Figs. 6–7.
    """
    lines, points = dict(_groups(curve)), dict(_groups(sampled))
    names = list(dict.fromkeys([*lines, *points]))
    cmap, dmap = colour_map(names, colors), dash_map(names, dashes)
    empty_line, empty_point = _Rows.none_of(curve), _Rows.none_of(sampled)
    data = []
    for name in names:
        rows, pts = lines.get(name, empty_line), points.get(name, empty_point)
        data.append({"type": "scatter", "x": rows["ρ (%)"], "y": rows["MSE"], "mode": "lines", "name": name,
                     "legendgroup": name, "line": {"color": cmap[name], "width": 2, "dash": dmap[name]},
                     "hovertemplate": "ρ = %{x}%<br>expected MSE %{y:.3g}<extra>" + name + "</extra>"})
        data.append({"type": "scatter", "x": pts["ρ (%)"], "y": pts["MSE"], "mode": "markers",
                     "name": f"{name} (random queries)", "legendgroup": name, "showlegend": False,
                     "marker": {"color": cmap[name], "size": 11, "symbol": "diamond",
                                "line": {"width": 1, "color": "#000000"}},
                     "error_y": {"type": "data", "array": pts["SE"], "thickness": 1.5},
                     "hovertemplate": "ρ = %{x}%<br>MSE of random queries %{y:.3g}<extra>" + name + "</extra>"})
    return _figure(data, _layout(len(names), title=title,
                                               x_title="ρ: share of the domain in each queried set (%)",
                                               y_title="set-value MSE (fraction², log scale)", y_log=True,
                                               **_marker_line(rho, f"ρ = {rho:g}%")))


def advisor_figure(table: pd.DataFrame, *, title: str, value_label: str, z: float = 2.0,
                   log: bool | None = None) -> go.Figure:
    """The advisor's expectation next to the truth: per candidate (best expected at the top), the
    expected error over the advisor's re-simulations with ±z standard errors, and the actual error of
    the same estimator on the one collection, scored against the true distribution.

    ``table`` is :attr:`ldp.studies.advisor.AdvisorCheck.table` (columns display name, expected, standard error,
    actual). ``log`` defaults to a log axis when every value is positive. Two traces: expected, actual.

    Parameters
    ----------
    table : pandas.DataFrame
        ``AdvisorCheck.table``: columns ``display name``, ``expected``, ``standard error`` and ``actual``, best
        expected first.
    title : str
        The figure's title.
    value_label : str
        The error's name, the x axis title.
    z : float, default 2.0
        Half-width of the expected error's bar, in standard errors.
    log : bool or None, default None
        Log x axis; None chooses it when every finite value is positive.

    Returns
    -------
    plotly.graph_objects.Figure
        One row per candidate estimator (categorical y axis, best expected at the top), the error on x: blue circles
        with ±z SE bars for the advisor's expectation and red diamonds for the actual error on the one collection. A
        reader sees whether the advisor's ranking holds on these reports.
    """
    rows = table.reset_index(drop=True)
    names = [str(n) for n in rows["display name"]]
    expected = rows["expected"].to_numpy(dtype=float)
    actual = rows["actual"].to_numpy(dtype=float)
    half = z * rows["standard error"].to_numpy(dtype=float)
    values = np.concatenate([expected, actual])
    values = values[np.isfinite(values)]
    if log is None:
        log = bool(values.size) and bool(np.all(values > 0))
    data = [{"type": "scatter", "x": expected, "y": names, "mode": "markers", "name": f"expected (advisor, ±{z:g} SE)",
             "marker": {"color": PALETTE[0], "size": 11, "symbol": "circle"},
             "error_x": {"type": "data", "array": half, "thickness": 1.5, "color": PALETTE[0]},
             "hovertemplate": "%{y}<br>expected %{x:.3g}<extra></extra>"},
            {"type": "scatter", "x": actual, "y": names, "mode": "markers",
             "name": "actual on these reports (true distribution)",
             "marker": {"color": PALETTE[3], "size": 11, "symbol": "diamond", "line": {"width": 1, "color": "#000000"}},
             "hovertemplate": "%{y}<br>actual %{x:.3g}<extra></extra>"}]
    height = max(LAYOUT["height"], 200 + 28 * len(names))
    layout = {**_base(title, {"title": {"text": ""}, "orientation": "h", "yanchor": "top", "y": -80 / (height - 160),
                              "x": 0}), "height": height,
              "xaxis": {"title": {"text": value_label + (" (log scale)" if log else "")},
                        "type": "log" if log else "linear"},
              "yaxis": {"title": {"text": "estimator (best expected at the top)"}, "autorange": "reversed",
                        "type": "category"}}
    return _figure(data, layout)


def early_stopping_figure(table: pd.DataFrame, *, title: str) -> go.Figure:
    """The IBU paper's plain iterations stopped early: mean MSE against the number of Eq. (3) iterations (log
    axes; iteration 0 drawn at 0.5), with the converged limit's and MI's mean MSE as lines. Traces: iterates,
    limit, MI.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`ldp.studies.comparison.early_stopping_study`: columns ``iterations``, ``MSE``, ``limit MSE`` and
        ``MI MSE`` (the last two constant; their first row is drawn).
    title : str
        The figure's title.

    Returns
    -------
    plotly.graph_objects.Figure
        Log–log: iterations of Eq. (3) on x (0 drawn at 0.5), mean MSE on y; the plain iterate's line, and
        horizontal lines at the limit's (the MLE, IBU's default) and matrix inversion's MSE. A reader sees where
        stopping early beats both.

    References
    ----------
    Arcolezi, Cerna, Palamidessi, "On the Utility Gain of Iterative Bayesian Update for Locally Differentially
    Private Mechanisms" (DBSec 2023), §2.4, Eq. (3).
    """
    x = np.maximum(table["iterations"].to_numpy(dtype=np.float64), 0.5)
    data = [{"type": "scatter", "x": x, "y": table["MSE"], "mode": "lines+markers",
             "name": "plain Eq. (3), stopped after x iterations", "line": {"color": PALETTE[0], "width": 3},
             "hovertemplate": "%{x:.0f} iterations<br>MSE %{y:.3e}<extra></extra>"}]
    for column, name, colour, dash in (("limit MSE", "the limit (IBU's default: the MLE)", PALETTE[1], "dash"),
                                       ("MI MSE", "matrix inversion (MI)", THEORY_COLOUR, "dot")):
        value = float(table[column].iloc[0])
        data.append({"type": "scatter", "x": [x.min(), x.max()], "y": [value, value], "mode": "lines", "name": name,
                     "line": {"color": colour, "width": 2, "dash": dash},
                     "hovertemplate": f"{name}: %{{y:.3e}}<extra></extra>"})
    layout = {**_base(title),
              "xaxis": {"title": {"text": "iterations of Eq. (3) (log scale; 0 = the uniform start)"}, "type": "log"},
              "yaxis": {"title": {"text": "MSE (mean over collections, log scale)"}, "type": "log",
                        "exponentformat": "power"}}
    return _figure(data, layout)
