"""Pure builders for the Playground page: histogram and CDF overlays, the results and metrics tables,
and the plain-language read-outs. No Streamlit import, so everything here is testable alone.

Conventions: ``estimates`` maps a display name (e.g. ``"MI (Base)"``) to one estimate per value;
``x`` is either the categorical labels or, for numerical data, the bin centres in real units.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ldp.evaluation.metrics import METRICS, compute_metrics
from ldp.viz.style import PALETTE, plain_text

__all__ = ["BAND_COLOUR", "ESTIMATOR_PALETTE", "FONT", "LABEL_EVERY_CATEGORY", "SYMBOLS", "TABLE_METRICS",
           "TRUE_COLOUR", "Y_TITLE", "Bounds", "Shown", "attack_text", "available_metrics", "bin_centres", "cdf_figure",
           "cdf_table", "coverage_text", "display_order", "domain_preview", "format_users", "histogram_figure",
           "likelihood_ratio_text", "metrics_frame", "plain_metrics", "population_text", "results_table",
           "shown_values"]

# Estimator colours: the Okabe–Ito palette without sky blue (kept for the band) and yellow (too light
# on white for markers).
ESTIMATOR_PALETTE: list[str] = [c for c in PALETTE if c not in ("#56B4E9", "#F0E442")]
TRUE_COLOUR = "#BBBBBB"
BAND_COLOUR = "#56B4E9"
SYMBOLS = ["circle", "diamond", "square", "x", "triangle-up", "star", "cross", "triangle-down"]
FONT = {"size": 16}
Y_TITLE = "frequency (fraction of users)"
# Metrics shown in the table, in this order, when registered (Wasserstein and KS may be absent).
TABLE_METRICS = ("mse", "mae", "l1", "max_abs", "topk_mse", "wasserstein", "ks")


# --------------------------------------------------------------------------- selection of values
def display_order(true: np.ndarray, *, top_k: int | None = None, sort_by_frequency: bool = False) -> np.ndarray:
    """Indices of the values to plot: all of them in domain order, or sorted by true frequency
    (descending, ties by index), or only the ``top_k`` most frequent (kept in domain order unless sorted).

    Parameters
    ----------
    true : numpy.ndarray
        The true frequency of every value of the domain, in domain order, shape (d,).
    top_k : int or None, default None
        Keep only the ``top_k`` most frequent values (all when ``top_k`` ≥ d); None keeps every value.
    sort_by_frequency : bool, default False
        Order by true frequency, most frequent first (ties in domain order); otherwise keep domain order.

    Returns
    -------
    numpy.ndarray of int
        Indices into the domain, in display order.

    Raises
    ------
    ValueError
        When ``top_k`` is below 1.
    """
    f = np.asarray(true, dtype=np.float64)
    by_freq = np.argsort(-f, kind="stable")
    if top_k is not None:
        if top_k < 1:
            raise ValueError(f"k must be at least 1, got {top_k}")
        chosen = by_freq[: min(int(top_k), f.size)]
        return chosen if sort_by_frequency else np.sort(chosen)
    return by_freq if sort_by_frequency else np.arange(f.size)


def bin_centres(edges: Sequence[float] | np.ndarray) -> np.ndarray:
    """The midpoints of consecutive bin edges.

    Parameters
    ----------
    edges : sequence of float or numpy.ndarray
        The d + 1 bin edges.

    Returns
    -------
    numpy.ndarray
        The d bin centres, (e_i + e_{i+1}) / 2.
    """
    e = np.asarray(edges, dtype=np.float64)
    return (e[:-1] + e[1:]) / 2


@dataclass(frozen=True)
class Shown:
    """The values a histogram shows (a selection of the domain, in display order) and everything drawn at them:
    ``x`` is the labels, or the bin centres of numerical data (``widths`` then the bin widths).

    Attributes
    ----------
    index : numpy.ndarray of int
        The shown values' indices into the domain, in display order (:func:`display_order`).
    labels : list of str
        Their labels.
    x : list
        Their x positions: the labels, or the bin centres for numerical data.
    true : numpy.ndarray
        Their true frequencies.
    estimates : dict of str to numpy.ndarray
        Display name → the estimator's estimates at the shown values.
    intervals : (numpy.ndarray, numpy.ndarray) or None
        Per-value interval (low, high) at the shown values, or None.
    band : (numpy.ndarray, numpy.ndarray) or None
        Simultaneous band (low, high) at the shown values, or None.
    centres : numpy.ndarray or None, default None
        The bin centres of numerical data (None for categorical data).
    widths : numpy.ndarray or None, default None
        The bin widths of numerical data (None for categorical data).
    """

    index: np.ndarray
    labels: list[str]
    x: list
    true: np.ndarray
    estimates: dict[str, np.ndarray]
    intervals: tuple[np.ndarray, np.ndarray] | None
    band: tuple[np.ndarray, np.ndarray] | None
    centres: np.ndarray | None = None
    widths: np.ndarray | None = None


Bounds = tuple[np.ndarray, np.ndarray]


def _take(bounds: Bounds | None, idx: np.ndarray) -> Bounds | None:
    if bounds is None:
        return None
    low, high = (np.asarray(b, dtype=np.float64) for b in bounds)
    return low[idx], high[idx]


def shown_values(labels: Sequence[str], true: np.ndarray, estimates: Mapping[str, np.ndarray],
                 intervals: Bounds | None = None, band: Bounds | None = None, *, edges: np.ndarray | None = None,
                 top_k: int | None = None, sort_by_frequency: bool = False) -> Shown:
    """Select and order the values to show (:func:`display_order`) and take every per-value series at them
    (``intervals`` and ``band`` are (low, high) arrays over the whole domain).

    Parameters
    ----------
    labels : sequence of str
        The label of every value of the domain, in domain order.
    true : numpy.ndarray
        The true frequency of every value, shape (d,).
    estimates : mapping of str to numpy.ndarray
        Display name → estimate over the whole domain, shape (d,).
    intervals : (numpy.ndarray, numpy.ndarray) or None, default None
        Per-value interval (low, high) over the whole domain.
    band : (numpy.ndarray, numpy.ndarray) or None, default None
        Simultaneous confidence band (low, high) over the whole domain.
    edges : numpy.ndarray or None, default None
        The d + 1 bin edges of numerical data; None for categorical data.
    top_k : int or None, default None
        Show only the ``top_k`` most frequent values (:func:`display_order`).
    sort_by_frequency : bool, default False
        Show the values by true frequency, most frequent first.

    Returns
    -------
    Shown
        The selected values with every series taken at them; ``x`` holds the bin centres when ``edges`` is given,
        else the labels.

    Raises
    ------
    ValueError
        When ``top_k`` is below 1.
    """
    idx = display_order(true, top_k=top_k, sort_by_frequency=sort_by_frequency)
    names = [str(v) for v in np.asarray(list(labels), dtype=object)[idx]]
    centres = bin_centres(edges)[idx] if edges is not None else None
    return Shown(index=idx, labels=names, x=list(centres) if centres is not None else names,
                 true=np.asarray(true, dtype=np.float64)[idx],
                 estimates={name: np.asarray(est, dtype=np.float64)[idx] for name, est in estimates.items()},
                 intervals=_take(intervals, idx), band=_take(band, idx), centres=centres,
                 widths=np.diff(np.asarray(edges, dtype=np.float64))[idx] if edges is not None else None)


#: Up to this many categories every one gets its tick label (vertical, smaller beyond 40); more are thinned by Plotly.
LABEL_EVERY_CATEGORY = 150


def _layout(fig: go.Figure, *, title: str, x_title: str, y_title: str, categorical: bool) -> go.Figure:
    fig.update_layout(title=title, xaxis_title=x_title, yaxis_title=y_title, font=FONT,
                      legend={"title": {"text": "series"}, "orientation": "h", "yanchor": "top", "y": -0.22,
                              "x": 0}, height=520, margin={"t": 70, "b": 10}, hovermode="closest")
    if categorical:
        fig.update_xaxes(type="category")
        n = len(fig.data[0].x) if fig.data and fig.data[0].x is not None else 0
        if n <= LABEL_EVERY_CATEGORY:  # every value named (Plotly's auto ticks named 52 of the 104 airports)
            fig.update_xaxes(tickmode="linear", dtick=1, tickangle=-90, tickfont={"size": 11 if n > 40 else 14})
    return fig


# --------------------------------------------------------------------------- histogram
def histogram_figure(x: Sequence[str] | Sequence[float] | np.ndarray, true: np.ndarray,
                     estimates: Mapping[str, np.ndarray], intervals: Bounds | None = None,
                     band: Bounds | None = None, *, title: str, x_title: str,
                     y_title: str = Y_TITLE, palette: Sequence[str] = ESTIMATOR_PALETTE,
                     interval_for: str | None = None, level: float = 0.95,
                     widths: np.ndarray | None = None, hover_labels: Sequence[str] | None = None) -> go.Figure:
    """True frequencies as bars and one marker series per estimator (distinct colour and symbol).

    ``intervals`` = (low, high) per value are drawn as (possibly asymmetric) error bars on the series named
    ``interval_for`` (the matrix-inversion estimate they are computed from). ``band`` = (low, high) per value
    is the simultaneous confidence band, drawn as a translucent box at every value: every true frequency lies
    inside its box at once with probability ≥ ``level``.
    Numerical data: pass bin centres as ``x`` and the bin ``widths``; the y axis keeps negative
    estimates visible and a zero line is drawn.

    Parameters
    ----------
    x : sequence of str or of float, or numpy.ndarray
        One position per shown value: the labels (categorical axis) or the bin centres (numerical data).
    true : numpy.ndarray
        The true frequencies at ``x``.
    estimates : mapping of str to numpy.ndarray
        Display name → estimates at ``x`` (each of the same shape as ``true``); one marker series each.
    intervals : (numpy.ndarray, numpy.ndarray) or None, default None
        Per-value interval (low, high), drawn as error bars on the series ``interval_for``.
    band : (numpy.ndarray, numpy.ndarray) or None, default None
        Simultaneous confidence band (low, high), drawn as translucent boxes.
    title : str
        The figure's title.
    x_title : str
        The x axis title.
    y_title : str, default :data:`Y_TITLE`
        The y axis title.
    palette : sequence of str, default :data:`ESTIMATOR_PALETTE`
        The estimators' colours, in order (cycled).
    interval_for : str or None, default None
        The display name of the series carrying the error bars (the estimate the intervals come from).
    level : float, default 0.95
        The intervals' and band's confidence level, written in the legend.
    widths : numpy.ndarray or None, default None
        Bin widths of numerical data (the bars then span their bins); None for categorical data.
    hover_labels : sequence of str or None, default None
        Text shown on hover per value; None uses ``x``.

    Returns
    -------
    plotly.graph_objects.Figure
        Grey bars of the true frequency per value, the band as translucent sky-blue boxes, one marker series per
        estimator (its own colour and symbol; error bars on ``interval_for``) and a line at 0. A reader sees how far
        each estimate lands from its bar, which estimates go negative, and whether the truth stays within the band.

    Raises
    ------
    ValueError
        When ``x`` and ``true`` differ in length, or an estimate's shape differs from ``true``'s.
    """
    true = np.asarray(true, dtype=np.float64)
    xs = list(x)
    if len(xs) != true.size:
        raise ValueError(f"x has {len(xs)} entries but there are {true.size} true frequencies")
    categorical = widths is None and not np.issubdtype(np.asarray(xs).dtype, np.number)
    if categorical:
        xs = [plain_text(v) for v in xs]
    text = [plain_text(v) for v in (hover_labels if hover_labels is not None else xs)]
    pct = f"{level:.0%}"
    fig = go.Figure()
    bar_kw = {"width": np.asarray(widths, dtype=np.float64)} if widths is not None else {}
    fig.add_bar(x=xs, y=true, name="true frequency (bars)", marker_color=TRUE_COLOUR, hovertext=text,
                hovertemplate="%{hovertext}<br>true: %{y:.4g}<extra></extra>", **bar_kw)
    if band is not None:
        lo, hi = (np.asarray(b, dtype=np.float64) for b in band)
        fig.add_bar(x=xs, y=hi - lo, base=lo, name=f"{pct} simultaneous band (holds every true value at once)",
                    marker={"color": BAND_COLOUR, "opacity": 0.3, "line": {"width": 0}}, hovertext=text,
                    customdata=np.stack([lo, hi], axis=-1),
                    hovertemplate="%{hovertext}<br>band: %{customdata[0]:.3g} to %{customdata[1]:.3g}<extra></extra>",
                    **bar_kw)
    for i, (name, est) in enumerate(estimates.items()):
        est = np.asarray(est, dtype=np.float64)
        if est.shape != true.shape:
            raise ValueError(f"estimate {name!r} has shape {est.shape}, expected {true.shape}")
        with_ci = intervals is not None and name == interval_for
        label = f"{name} estimate" + (f" with {pct} interval" if with_ci else "")
        error = None
        if with_ci:
            lo, hi = (np.asarray(b, dtype=np.float64) for b in intervals)
            error = {"type": "data", "symmetric": False, "array": np.maximum(hi - est, 0.0),
                     "arrayminus": np.maximum(est - lo, 0.0), "visible": True, "thickness": 1.2, "width": 3}
        fig.add_scatter(x=xs, y=est, mode="markers", name=label, error_y=error, hovertext=text,
                        marker={"color": palette[i % len(palette)], "symbol": SYMBOLS[i % len(SYMBOLS)], "size": 8,
                                "line": {"width": 0.5, "color": "#FFFFFF"}},
                        hovertemplate=f"%{{hovertext}}<br>{name}: %{{y:.4g}}<extra></extra>")
    fig.add_hline(y=0, line_width=1, line_color="#444444")
    fig.update_layout(barmode="overlay", bargap=0.15 if categorical else 0.0)
    return _layout(fig, title=title, x_title=x_title, y_title=y_title, categorical=categorical)


# --------------------------------------------------------------------------- CDF
def cdf_figure(true: np.ndarray, estimates: Mapping[str, np.ndarray], *, title: str, x_title: str,
               labels: Sequence[str] | None = None, edges: np.ndarray | None = None,
               unnormalized: Sequence[str] = (), palette: Sequence[str] = ESTIMATOR_PALETTE) -> go.Figure:
    """Cumulative sums over the ordered domain: true vs each estimator.

    Numerical data (``edges`` given): steps at the bins' right edges in real units, starting at 0 at
    the left edge. Categorical data: one point per label in domain order. Series named in
    ``unnormalized`` are cumulative sums of estimates that need not be non-negative or sum to one,
    and the legend says so.

    Parameters
    ----------
    true : numpy.ndarray
        The true frequencies, in domain order, shape (d,).
    estimates : mapping of str to numpy.ndarray
        Display name → estimate of shape (d,).
    title : str
        The figure's title.
    x_title : str
        The x axis title.
    labels : sequence of str or None, default None
        The values' labels for categorical data; None numbers them 0 … d − 1. Ignored when ``edges`` is given.
    edges : numpy.ndarray or None, default None
        The d + 1 bin edges of numerical data (real units).
    unnormalized : sequence of str, default ()
        Display names whose estimates may be negative or not sum to 1; the legend says so.
    palette : sequence of str, default :data:`ESTIMATOR_PALETTE`
        The estimators' colours, in order (cycled).

    Returns
    -------
    plotly.graph_objects.Figure
        x: the values (categorical, step lines) or the bin edges (numerical, linear between edges from 0 at the left
        edge); y: the cumulative frequency. A thick grey line for the truth, one dashed style per estimator, and
        reference lines at 0 and 1: an unnormalized CDF may dip or pass 1.

    Raises
    ------
    ValueError
        When ``edges`` does not hold d + 1 values, or ``labels`` does not hold d.
    """
    true = np.asarray(true, dtype=np.float64)
    if edges is not None:
        e = np.asarray(edges, dtype=np.float64)
        if e.size != true.size + 1:
            raise ValueError(f"{e.size} edges do not fit {true.size} bins")
        xs: list = list(e)

        def cum(v: np.ndarray) -> np.ndarray:
            return np.concatenate([[0.0], np.cumsum(v)])
        shape = "linear"
    else:
        xs = [plain_text(v) for v in labels] if labels is not None else [str(i) for i in range(true.size)]
        if len(xs) != true.size:
            raise ValueError(f"{len(xs)} labels for {true.size} values")

        def cum(v: np.ndarray) -> np.ndarray:
            return np.cumsum(v)
        shape = "hv"
    fig = go.Figure()
    fig.add_scatter(x=xs, y=cum(true), mode="lines", name="true CDF", line={"color": "#555555", "width": 4,
                                                                             "shape": shape})
    dashes = ["solid", "dash", "dot", "dashdot", "longdash", "longdashdot"]
    for i, (name, est) in enumerate(estimates.items()):
        est = np.asarray(est, dtype=np.float64)
        note = " (unnormalized: may dip or pass 1)" if name in unnormalized else ""
        fig.add_scatter(x=xs, y=cum(est), mode="lines", name=f"{name}{note}",
                        line={"color": palette[i % len(palette)], "width": 2, "shape": shape,
                              "dash": dashes[i % len(dashes)]})
    fig.add_hline(y=1, line_width=1, line_dash="dot", line_color="#888888")
    fig.add_hline(y=0, line_width=1, line_color="#444444")
    return _layout(fig, title=title, x_title=x_title, y_title="cumulative frequency",
                   categorical=edges is None)


def cdf_table(true: np.ndarray, estimates: Mapping[str, np.ndarray], labels: Sequence[str]) -> pd.DataFrame:
    """The CDF figure's values: cumulative sums up to and including each value.

    Parameters
    ----------
    true : numpy.ndarray
        The true frequencies, in domain order.
    estimates : mapping of str to numpy.ndarray
        Display name → estimate, same length.
    labels : sequence of str
        The values' labels.

    Returns
    -------
    pandas.DataFrame
        Columns ``value``, ``true CDF`` and ``<name> CDF`` per estimator: the running sums (raw, not projected).
    """
    out = pd.DataFrame({"value": list(labels), "true CDF": np.cumsum(np.asarray(true, dtype=np.float64))})
    for name, est in estimates.items():
        out[f"{name} CDF"] = np.cumsum(np.asarray(est, dtype=np.float64))
    return out


# --------------------------------------------------------------------------- tables
def results_table(labels: Sequence[str], true: np.ndarray, estimates: Mapping[str, np.ndarray],
                  intervals: Bounds | None = None, band: Bounds | None = None, *,
                  level: float = 0.95, centres: np.ndarray | None = None) -> pd.DataFrame:
    """One row per value: label (and bin centre), true frequency, each estimator's estimate, the
    per-value interval and the simultaneous band (low and high) — the downloadable results.

    Parameters
    ----------
    labels : sequence of str
        The values' labels.
    true : numpy.ndarray
        The true frequencies.
    estimates : mapping of str to numpy.ndarray
        Display name → estimate, same length.
    intervals : (numpy.ndarray, numpy.ndarray) or None, default None
        Matrix inversion's per-value interval (low, high).
    band : (numpy.ndarray, numpy.ndarray) or None, default None
        The simultaneous band (low, high).
    level : float, default 0.95
        The confidence level, written into the column names.
    centres : numpy.ndarray or None, default None
        The bin centres of numerical data (adds a ``bin centre`` column).

    Returns
    -------
    pandas.DataFrame
        One row per value: ``value``, [``bin centre``], ``true``, one column per estimator, then ``95% CI low (MI)``,
        ``95% CI high (MI)``, ``95% band low`` and ``95% band high`` when given (the percentage is ``level``).
    """
    true = np.asarray(true, dtype=np.float64)
    out = pd.DataFrame({"value": list(labels)})
    if centres is not None:
        out["bin centre"] = np.asarray(centres, dtype=np.float64)
    out["true"] = true
    for name, est in estimates.items():
        out[name] = np.asarray(est, dtype=np.float64)
    pct = f"{level:.0%}"
    if intervals is not None:
        out[f"{pct} CI low (MI)"], out[f"{pct} CI high (MI)"] = (np.asarray(b, dtype=np.float64) for b in intervals)
    if band is not None:
        out[f"{pct} band low"], out[f"{pct} band high"] = (np.asarray(b, dtype=np.float64) for b in band)
    return out


def domain_preview(labels: Sequence[str], counts: np.ndarray, *, share: bool = False) -> pd.DataFrame:
    """The domain's values with their rows (or, for synthetic data, only their share of users).

    Parameters
    ----------
    labels : sequence of str
        The domain's values.
    counts : numpy.ndarray
        Rows (users) per value.
    share : bool, default False
        Show only each value's share (synthetic data, whose counts are not rows).

    Returns
    -------
    pandas.DataFrame
        Columns ``value``, ``rows`` (int; omitted when ``share``) and ``share`` (count / total; 0 when the total is 0).
    """
    c = np.asarray(counts, dtype=np.float64)
    out = pd.DataFrame({"value": list(labels)})
    if not share:
        out["rows"] = np.asarray(counts).astype(np.int64)
    out["share"] = c / c.sum() if c.sum() > 0 else 0.0
    return out


def available_metrics() -> list[str]:
    """The metrics of :data:`TABLE_METRICS` that are registered, in that order.

    Returns
    -------
    list of str
        Metric names for :func:`metrics_frame` (Wasserstein and KS may be absent).
    """
    registered = set(METRICS.names())
    return [m for m in TABLE_METRICS if m in registered]


def metrics_frame(true: np.ndarray, estimates: Mapping[str, np.ndarray], *, k: int = 10,
                  theoretical_variance: float | None = None, edges: np.ndarray | None = None,
                  metrics: Sequence[str] | None = None, unit: str = "") -> pd.DataFrame:
    """Each estimator's errors on this run (rows) by metric (columns, display names), next to the
    closed-form MI variance averaged over the domain (the expected MSE of MI).

    Parameters
    ----------
    true : numpy.ndarray
        The true frequencies.
    estimates : mapping of str to numpy.ndarray
        Display name → estimate, same shape.
    k : int, default 10
        The k of the top-k MSE (clipped to 1 … d), written into its column title.
    theoretical_variance : float or None, default None
        Matrix inversion's closed-form variance averaged over the domain; when given it is added as the column
        ``theoretical MSE of MI (closed form)``.
    edges : numpy.ndarray or None, default None
        Bin edges of numerical data (the Wasserstein distance is then in the data's unit).
    metrics : sequence of str or None, default None
        Metric names; None uses :func:`available_metrics`.
    unit : str, default ""
        The data's unit, for the Wasserstein column's title (numerical data only).

    Returns
    -------
    pandas.DataFrame
        Indexed by estimator (display name), one column per metric titled by its display name.

    Raises
    ------
    InvalidInput
        For an unknown metric or an estimate that does not fit the truth
        (:func:`ldp.evaluation.metrics.compute_metrics`).
    """
    true = np.asarray(true, dtype=np.float64)
    names = list(metrics) if metrics is not None else available_metrics()
    context: dict = {"k": max(1, min(int(k), true.size))}
    if edges is not None:
        context["edges"] = np.asarray(edges, dtype=np.float64)
    rows = []
    for est_name, est in estimates.items():
        values = compute_metrics(true, np.asarray(est, dtype=np.float64), names, **context)
        rows.append({"estimator": est_name,
                     **{_metric_title(m, context["k"], unit if edges is not None else ""): v
                        for m, v in values.items()}})
    table = pd.DataFrame(rows).set_index("estimator")
    if theoretical_variance is not None:
        table["theoretical MSE of MI (closed form)"] = float(theoretical_variance)
    return table


def plain_metrics(table: pd.DataFrame) -> pd.DataFrame:
    """:func:`metrics_frame` in plain units for a projector: errors as percentages of all users (a squared error
    as its square root, RMSE), so "0.19 %" replaces "3.6e-06"; Wasserstein stays in the data's unit.

    Parameters
    ----------
    table : pandas.DataFrame
        A table of :func:`metrics_frame`.

    Returns
    -------
    pandas.DataFrame
        Same index; each MSE column becomes ``… RMSE … (% of users)`` (100·√MSE, negatives clipped to 0), each other
        column except Wasserstein's is multiplied by 100 and suffixed ``(% of users)``; Wasserstein is kept as is.
    """
    out = pd.DataFrame(index=table.index)
    for column in table.columns:
        values = table[column].astype(float)
        if "MSE" in column:
            out[column.replace("MSE", "RMSE") + " (% of users)"] = 100 * np.sqrt(values.clip(lower=0))
        elif column.startswith("Wasserstein"):
            out[column] = values
        else:
            out[f"{column} (% of users)"] = 100 * values
    return out


def _metric_title(name: str, k: int, unit: str = "") -> str:
    title = METRICS.get(name).display_name
    if name == "topk_mse":
        return title.replace("Top-k", f"Top-{k}")
    if name == "wasserstein":
        return f"{title} ({unit})" if unit else f"{title} (values)"
    return title


# --------------------------------------------------------------------------- text
def format_users(n: int) -> str:
    """10^6 for exact powers of ten ≥ 1000, else 1,234,567.

    Parameters
    ----------
    n : int
        A number of users.

    Returns
    -------
    str
        ``"10^e"`` for an exact power of ten of at least 1,000, else the number with thousands separators.
    """
    n = int(n)
    if n >= 1000:
        e = round(math.log10(n))
        if 10**e == n:
            return f"10^{e}"
    return f"{n:,}"


def population_text(rows: int, n: int, *, simulated: bool, synthetic: bool = False, toggle: str = "") -> str:
    """Who the users of a run are, beside its read-out (Markdown): the data's own rows, or ``n`` users simulated
    from the distribution of its ``rows`` rows (said with the ratio, so 1,000,000 simulated users are never read
    as a 500-row file's accuracy); ``toggle`` names the control that switches between the two.

    Parameters
    ----------
    rows : int
        The data's number of rows (≥ 1 unless ``synthetic``).
    n : int
        The number of users of the run.
    simulated : bool
        Whether the run simulated ``n`` users from the rows' distribution (else the rows are the users).
    synthetic : bool, default False
        The data is a synthetic distribution without rows (then ``rows`` and ``simulated`` are not read).
    toggle : str, default ""
        The control's label that switches between rows and simulated users; "" omits the hint.

    Returns
    -------
    str
        Markdown: one or two sentences naming who the users are, with the ratio n / rows when simulated.
    """
    if synthetic:
        return f"Users: **{n:,}** drawn from the synthetic distribution (a distribution, not a table of rows)."
    if not simulated:
        return (f"The data's **{rows:,} rows** are the users (n = {rows:,}): the accuracy above is that of these data "
                "as they are.")
    ratio = n / rows
    times = f"{ratio:,.0f}× as many" if ratio >= 1.5 else (f"{ratio:.2g}× as many" if ratio >= 1 else
                                                          f"{ratio:.2g}× the rows")
    back = f" Turn on “{toggle}” to read the accuracy of the rows themselves." if toggle else ""
    return (f"The data has **{rows:,} rows**; this run **simulated {n:,} users** drawn from their distribution "
            f"({times}).{back}")


def coverage_text(covered: float, d: int, level: float = 0.95) -> str:
    """How many true frequencies this run's intervals hold (a simulator can check it; Markdown).

    Parameters
    ----------
    covered : float
        The share of the d true frequencies inside their intervals, in [0, 1].
    d : int
        The number of values.
    level : float, default 0.95
        The intervals' confidence level.

    Returns
    -------
    str
        Markdown: "In this run, **c of d** true frequencies (x %) lie inside their 95 % intervals — …".
    """
    inside = round(covered * d)
    return (f"In this run, **{inside:,} of {d:,}** true frequencies ({covered:.0%}) lie inside their {level:.0%} "
            f"intervals — at least about {level:.0%} is expected.")


def likelihood_ratio_text(epsilon: float, *, epsilon_1: float | None = None) -> str:
    """What ε means for one user, as plausible deniability.

    Parameters
    ----------
    epsilon : float
        ε of one report; for a longitudinal mechanism, ε∞ (the memoized budget).
    epsilon_1 : float or None, default None
        ε1 of one report of a longitudinal mechanism; None for a one-time collection.

    Returns
    -------
    str
        Markdown: the largest likelihood ratio e^ε of one report (and, with ``epsilon_1``, e^ε1 per report and e^ε∞
        over all of them).

    References
    ----------
    The lecture (ldp-lecture-frequency-oracles-heavy-hitters-itemsets), the definition of ε-LDP: Pr[A(x) = y] ≤
    exp(ε) · Pr[A(x′) = y].
    """
    if epsilon_1 is None:
        return (f"Any report is at most e^ε = **{math.exp(epsilon):.2f}** times more likely under one true value "
                "than under another, so a single report never pins a user down.")
    return (f"One report is at most e^ε1 = **{math.exp(epsilon_1):.2f}** times more likely under one true value "
            f"than another (ε1 = {epsilon_1:g}); however many reports a user sends about the same value, "
            f"everything together stays within e^ε∞ = **{math.exp(epsilon):.2f}** (ε∞ = {epsilon:g}), because the "
            "first, memoized randomization is reused instead of re-drawn.")


def attack_text(success: float | None, baseline: float) -> str:
    """One sentence comparing the Bayes-optimal attacker with guessing without a report.

    Parameters
    ----------
    success : float or None
        The Bayes-optimal attacker's probability of guessing a user's value from one report, in [0, 1]; None where it
        is not computed (SHE's continuous reports).
    baseline : float
        The probability of guessing right without a report (the most common value's frequency).

    Returns
    -------
    str
        One sentence with both probabilities (as %) and their difference in percentage points, or, for None, why no
        attack is computed.
    """
    if success is None:
        return ("The attack figure is not computed for SHE: its reports are continuous (Laplace noise on every "
                "coordinate), so there is no finite report table to optimise over. The no-report baseline is "
                f"{baseline:.1%}.")
    gain = success - baseline
    return (f"An attacker who knows the data distribution and sees one report guesses the user's true value "
            f"right {success:.1%} of the time, against {baseline:.1%} by always guessing the most common value "
            f"without any report — the report adds {gain * 100:.1f} percentage points.")
