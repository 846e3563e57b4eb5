"""Figures of the Numerical distributions page: true vs estimated density and CDF in the data's
own units (square-wave paper §3: a histogram is read as uniform within each bin).

Pure Plotly; no Streamlit import.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ldp.evaluation.histograms import cdf_at_edges, density
from ldp.maths.simplex import to_distribution
from ldp.studies.comparison import numerical_summary
from ldp.viz.style import PALETTE, declared_figure

__all__ = ["LAYOUT", "TRUE_COLOUR", "cdf_figure", "comparison_table", "density_figure", "density_table",
           "mean_trials_figure", "mean_variance_table", "method_label", "mutual_information_figure"]

TRUE_COLOUR = "#BBBBBB"
# Written in Plotly's nested form: an unvalidated figure (declared_figure) takes values as they are, so
# ``legend_title="series"`` would reach the browser as a bare string instead of ``{"text": "series"}``.
LAYOUT = {"font": {"size": 16}, "height": 460, "legend": {"title": {"text": "series"}},
          "hoverlabel": {"font": {"size": 14}}}


def _figure(data: list[dict], title: str, x_title: str, y_title: str, *, xaxis: Mapping | None = None,
            yaxis: Mapping | None = None, **extra: object) -> go.Figure:
    """The figure declared whole — its traces and the layout (:data:`LAYOUT`, the title and axis titles, ``extra``)
    built unvalidated by :func:`~ldp.viz.style.declared_figure` — rather than grown by ``add_scatter``,
    ``update_layout`` and ``add_hline`` calls, each of which validates and merges again (the Numerical page builds
    four of these on every change of ε, in every session; its tests compare each with the validated figure Plotly
    grows)."""
    layout = {"title": {"text": title}, "xaxis": {"title": {"text": x_title}, **(xaxis or {})},
              "yaxis": {"title": {"text": y_title}, **(yaxis or {})}, **extra, **LAYOUT}
    return declared_figure(data, layout)


def _unit_per(unit: str, name: str) -> str:
    return f"/ {unit}" if unit else f"per unit of {name}"


def _colours(names: list[str], colors: Mapping[str, str] | None) -> dict[str, str]:
    out = dict(colors or {})
    free = [c for c in PALETTE if c not in out.values()]
    for i, n in enumerate(x for x in names if x not in out):
        out[n] = free[i % len(free)]
    return out


def density_figure(edges: np.ndarray, truth: np.ndarray, estimates: Mapping[str, np.ndarray], *, name: str,
                   unit: str = "", title: str, colors: Mapping[str, str] | None = None) -> go.Figure:
    """True density as bars (width = bin width) and each estimate as a step line, density =
    frequency / bin width in users per unit. Estimates are drawn as given (raw MI may dip below zero).
    Traces: the truth, then one per estimate.

    Parameters
    ----------
    edges : numpy.ndarray
        The d + 1 increasing bin edges, in the data's unit.
    truth : numpy.ndarray
        The true frequency of each of the d bins (a distribution).
    estimates : mapping of str to numpy.ndarray
        Legend label → estimated frequencies of the d bins (drawn as given, not projected).
    name : str
        The attribute's name, for the x axis title.
    unit : str, default ""
        The data's unit ("" when it has none: the density is then "per unit of <name>").
    title : str
        The figure's title.
    colors : mapping of str to str or None, default None
        Fixed colours of some labels; the others get the palette's free colours in order.

    Returns
    -------
    plotly.graph_objects.Figure
        x: the value in the data's unit; y: density (fraction of users per unit). Grey bars one bin wide for the
        truth, a step line per estimate and a line at 0, so a reader sees where an estimate is too high, too low or
        (raw matrix inversion) negative.

    References
    ----------
    Li et al., "Estimating Numerical Distributions under Local Differential Privacy" (SIGMOD 2020; the square-wave
    paper), §4.1 (CFO with binning: the density of a histogram "assuming uniform distribution within each bin").
    """
    e = np.asarray(edges, dtype=np.float64)
    centres, widths = (e[:-1] + e[1:]) / 2, np.diff(e)
    cmap = _colours(list(estimates), colors)
    data = [{"type": "bar", "x": centres, "y": density(e, truth), "width": widths, "name": "true",
             "marker": {"color": TRUE_COLOUR, "line": {"width": 0}},
             "hovertemplate": "%{x:.4g}<br>density %{y:.4g}<extra>true</extra>"}]
    for label, est in estimates.items():
        dens = density(e, est)
        data.append({"type": "scatter", "x": e, "y": np.append(dens, dens[-1]), "mode": "lines", "name": label,
                     "line": {"color": cmap[label], "width": 2.5, "shape": "hv"},
                     "hovertemplate": "from %{x:.4g}<br>density %{y:.4g}<extra>" + label + "</extra>"})
    zero = {"type": "line", "x0": 0, "x1": 1, "xref": "x domain", "y0": 0, "y1": 0, "yref": "y",
            "line": {"color": "#666666", "width": 1}}  # what fig.add_hline(y=0) draws
    return _figure(data, title, f"{name} ({unit})" if unit else name,
                   f"density (fraction of users {_unit_per(unit, name)})", bargap=0, shapes=[zero])


def cdf_figure(edges: np.ndarray, truth: np.ndarray, estimates: Mapping[str, np.ndarray], *, name: str,
               unit: str = "", title: str, colors: Mapping[str, str] | None = None) -> go.Figure:
    """CDFs in real units, linear within each bin. Estimates that are not distributions are first
    projected with Norm-Sub (as the metrics do). Traces: the truth, then one per estimate.

    Parameters
    ----------
    edges : numpy.ndarray
        The d + 1 increasing bin edges, in the data's unit.
    truth : numpy.ndarray
        The true frequency of each of the d bins.
    estimates : mapping of str to numpy.ndarray
        Legend label → estimated frequencies of the d bins; one that is not a distribution is projected with Norm-Sub
        (:func:`ldp.maths.simplex.to_distribution`) before its CDF is taken.
    name, title : str
        The attribute's name (the x axis title) and the figure's title.
    unit : str, default ""
        The data's unit, appended to the x axis title in parentheses.
    colors : mapping of str to str or None, default None
        Label → colour, as for :func:`density_figure` (pass the same to both figures for matching colours).

    Returns
    -------
    plotly.graph_objects.Figure
        x: the value at each bin edge; y: the cumulative fraction of users (−0.02 … 1.02). A thick black line for the
        truth and a dashed line per estimate, linear within each bin: the gaps between them are what the KS
        (largest gap) and Wasserstein (area between) distances measure.

    References
    ----------
    Square-wave paper (Li et al., SIGMOD 2020), §3.1 (Wasserstein and KS distances on the cumulative function P).
    """
    e = np.asarray(edges, dtype=np.float64)
    cmap = _colours(list(estimates), colors)
    data = [{"type": "scatter", "x": e, "y": cdf_at_edges(to_distribution(truth)), "mode": "lines", "name": "true",
             "line": {"color": "#000000", "width": 3}, "hovertemplate": "%{x:.4g}<br>CDF %{y:.3f}<extra>true</extra>"}]
    for label, est in estimates.items():
        data.append({"type": "scatter", "x": e, "y": cdf_at_edges(to_distribution(est)), "mode": "lines",
                     "name": label, "line": {"color": cmap[label], "width": 2, "dash": "dash"},
                     "hovertemplate": "%{x:.4g}<br>CDF %{y:.3f}<extra>" + label + "</extra>"})
    return _figure(data, title, f"{name} ({unit})" if unit else name, "cumulative fraction of users (CDF)",
                   yaxis={"range": [-0.02, 1.02]})


def density_table(edges: np.ndarray, truth: np.ndarray, estimates: Mapping[str, np.ndarray],
                  unit: str = "") -> pd.DataFrame:
    """The values behind both figures: per bin, its edges, and each series' frequency, density and CDF
    at the bin's right edge.

    Parameters
    ----------
    edges : numpy.ndarray
        The d + 1 bin edges, in the data's unit.
    truth : numpy.ndarray
        The true frequency of each of the d bins.
    estimates : mapping of str to numpy.ndarray
        Label → estimated frequencies of the d bins.
    unit : str, default ""
        The data's unit, appended to the edge columns' names in parentheses.

    Returns
    -------
    pandas.DataFrame
        One row per bin: ``from (<unit>)``, ``to (<unit>)``, ``true frequency``, ``true density``, ``true CDF``, then
        ``<label> frequency``, ``<label> density`` and ``<label> CDF`` per estimate. Frequencies and densities are the
        raw values; the CDFs (at the bin's right edge) are those of the Norm-Sub projection, as drawn.
    """
    e = np.asarray(edges, dtype=np.float64)
    suffix = f" ({unit})" if unit else ""
    out = pd.DataFrame({f"from{suffix}": e[:-1], f"to{suffix}": e[1:], "true frequency": np.asarray(truth),
                        "true density": density(e, truth), "true CDF": cdf_at_edges(to_distribution(truth))[1:]})
    for label, est in estimates.items():
        out[f"{label} frequency"] = np.asarray(est)
        out[f"{label} density"] = density(e, est)
        out[f"{label} CDF"] = cdf_at_edges(to_distribution(est))[1:]
    return out


def mutual_information_figure(b_grid: np.ndarray, bound: np.ndarray, *, b_mi: float, b_used: float,
                              bound_used: float, epsilon: float) -> go.Figure:
    """SW's mutual-information bound against b (§5.3, log b axis), with the paper's b (its maximum) and the b in use
    marked. Traces: the curve, the b in use.

    Parameters
    ----------
    b_grid : numpy.ndarray
        The half-widths b at which the bound is drawn (positive, increasing).
    bound : numpy.ndarray
        The upper bound of I(V; Ṽ) in nats at each b of ``b_grid``.
    b_mi : float
        The paper's b, the maximiser of the bound at ``epsilon``.
    b_used : float
        The b the mechanism in use has.
    bound_used : float
        The bound at ``b_used``.
    epsilon : float
        ε, for the title.

    Returns
    -------
    plotly.graph_objects.Figure
        Log b on x, the bound (nats) on y: the curve, a diamond at the b in use and a dotted vertical line at the
        paper's b, so a reader sees how much information a different b gives up.

    References
    ----------
    Square-wave paper (Li et al., SIGMOD 2020), §5.3 "Choosing b": the bound log((2b + 1)/(2be^ε + 1)) +
    2bεe^ε/(2be^ε + 1) of Eq. (4) and its maximiser b = (εe^ε − e^ε + 1)/(2e^ε(e^ε − 1 − ε)).
    """
    data = [{"type": "scatter", "x": b_grid, "y": bound, "mode": "lines", "name": "upper bound of I(V; Ṽ) (nats)",
             "line": {"color": PALETTE[0], "width": 3},
             "hovertemplate": "b = %{x:.3g}<br>%{y:.4f} nats<extra></extra>"},
            {"type": "scatter", "x": [b_used], "y": [bound_used], "mode": "markers",
             "name": f"b in use = {b_used:.3g}", "marker": {"color": PALETTE[1], "size": 13, "symbol": "diamond"}}]
    # what fig.add_vline(x=b_mi, annotation_position="top") draws: a dotted line, its label centred above it
    line = {"type": "line", "x0": b_mi, "x1": b_mi, "xref": "x", "y0": 0, "y1": 1, "yref": "y domain",
            "line": {"color": "#444444", "dash": "dot"}}
    label = {"showarrow": False, "text": f"paper's b = {b_mi:.3g}", "x": b_mi, "xanchor": "center", "xref": "x",
             "y": 1, "yanchor": "bottom", "yref": "y domain"}
    return _figure(data, f"Why this b: SW's mutual-information bound at ε = {epsilon:g} (square-wave paper §5.3)",
                   "half-width b of the wave (log scale)", "bound on I(V; Ṽ) (nats)", xaxis={"type": "log"},
                   shapes=[line], annotations=[label])


def method_label(display_name: str, reconstruction: str | None) -> str:
    """Legend label of a numerical mechanism with its reconstruction, e.g. "Square Wave (SW) · EMS".

    Parameters
    ----------
    display_name : str
        The mechanism's display name.
    reconstruction : str or None
        The reconstruction's name (e.g. ``"ems"``); None or "" leaves the display name alone.

    Returns
    -------
    str
        ``"<display_name> · <RECONSTRUCTION>"`` (the reconstruction in capitals), or ``display_name``.
    """
    return f"{display_name} · {reconstruction.upper()}" if reconstruction else display_name


def comparison_table(per_method: Mapping[str, Mapping[str, np.ndarray]], unit: str = "") -> pd.DataFrame:
    """One row per numerical metric (square-wave paper §3), its unit, and one column per method holding
    the mean over trials (``per_method``: method label → metric → per-trial values, as returned by
    :func:`ldp.evaluation.metrics.metrics_over_trials`).

    Parameters
    ----------
    per_method : mapping of str to mapping of str to numpy.ndarray
        Method label → metric key → per-trial values. Every method is expected to carry the same metrics in the same
        order (the rows are those of the first method).
    unit : str, default ""
        The data's unit, for the ``unit`` column (:func:`ldp.studies.comparison.numerical_summary`).

    Returns
    -------
    pandas.DataFrame
        Columns ``metric`` (its title), ``unit`` and one per method (the mean over trials); empty with the columns
        ``metric`` and ``unit`` when ``per_method`` is empty.

    References
    ----------
    Square-wave paper (Li et al., SIGMOD 2020), §3.1–3.2 (the metrics: Wasserstein, KS, range queries, mean,
    variance, quantiles).
    """
    out: pd.DataFrame | None = None
    for label, per_trial in per_method.items():
        table = numerical_summary(per_trial, unit)
        if out is None:
            out = table[["metric", "unit"]].copy()
        out[label] = table["mean over trials"].to_numpy()
    return out if out is not None else pd.DataFrame(columns=["metric", "unit"])


# --------------------------------------------------------------------------- mean and variance (SR / PM, §2.2, §6.3)
def mean_trials_figure(estimated_mean: np.ndarray, true_mean: float, std_error: float, *, name: str, unit: str = "",
                       title: str, color: str | None = None) -> go.Figure:
    """The mean estimate of every trial (markers) against the true mean (line) and the band true ± 1.96·SE of
    the closed-form standard error. Traces: estimates, truth, band.

    Parameters
    ----------
    estimated_mean : numpy.ndarray
        The estimated mean of each trial, in the data's unit.
    true_mean : float
        The population's true mean.
    std_error : float
        The closed-form standard error of the mean estimate.
    name : str
        The attribute's name, for the y axis title.
    unit : str, default ""
        The data's unit, appended to the y axis title in parentheses.
    title : str
        The figure's title.
    color : str or None, default None
        The markers' colour; None uses the palette's first.

    Returns
    -------
    plotly.graph_objects.Figure
        Trial number on x, the mean on y: one marker per trial's estimate, a black line at the true mean and dashed
        lines at true ± 1.96·SE. About 95 % of the markers should fall between the dashed lines when the closed-form
        SE is right.

    References
    ----------
    Square-wave paper (Li et al., SIGMOD 2020), §2.2 (Stochastic Rounding and the Piecewise Mechanism, both
    unbiased) and §6.3 (mean and variance).
    """
    est = np.asarray(estimated_mean, dtype=np.float64)
    trials = np.arange(1, est.size + 1)
    ends = [0.5, est.size + 0.5]
    lo, hi = true_mean - 1.96 * std_error, true_mean + 1.96 * std_error
    data = [{"type": "scatter", "x": trials, "y": est, "mode": "markers", "name": "estimated mean",
             "marker": {"color": color or PALETTE[0], "size": 9},
             "hovertemplate": "trial %{x}<br>%{y:.5g}<extra>estimated mean</extra>"},
            {"type": "scatter", "x": ends, "y": [true_mean] * 2, "mode": "lines", "name": "true mean",
             "line": {"color": "#000000", "width": 2}, "hovertemplate": "%{y:.5g}<extra>true mean</extra>"},
            {"type": "scatter", "x": [*ends, None, *ends], "y": [lo, lo, None, hi, hi], "mode": "lines",
             "name": "true ± 1.96 SE (theory)", "line": {"color": PALETTE[1], "width": 2, "dash": "dash"},
             "hoverinfo": "skip"}]
    return _figure(data, title, "trial", f"mean of {name} ({unit})" if unit else f"mean of {name}")


def mean_variance_table(true_mean: float, true_variance: float, estimated_mean: np.ndarray,
                        estimated_variance: np.ndarray, std_error: float, unit: str = "") -> pd.DataFrame:
    """Truth, average estimate, mean absolute error, RMSE over the trials and the closed-form SE (mean only).

    Parameters
    ----------
    true_mean, true_variance : float
        The population's true mean and variance.
    estimated_mean, estimated_variance : numpy.ndarray
        The estimates of every trial.
    std_error : float
        The closed-form standard error of the mean estimate.
    unit : str, default ""
        The data's unit (the variance's unit is its square).

    Returns
    -------
    pandas.DataFrame
        Two rows, ``mean`` and ``variance``, with columns ``quantity``, ``unit``, ``true``, ``average estimate``,
        ``mean absolute error``, ``RMSE`` (over the trials) and ``closed-form SE`` (NaN for the variance).
    """
    rows = []
    for label, truth, est, se, u in (("mean", true_mean, estimated_mean, std_error, unit),
                                     ("variance", true_variance, estimated_variance, np.nan,
                                      f"{unit}²" if unit else "")):
        e = np.asarray(est, dtype=np.float64)
        rows.append({"quantity": label, "unit": u, "true": float(truth), "average estimate": float(e.mean()),
                     "mean absolute error": float(np.mean(np.abs(e - truth))),
                     "RMSE": float(np.sqrt(np.mean((e - truth) ** 2))), "closed-form SE": float(se)})
    return pd.DataFrame(rows)
