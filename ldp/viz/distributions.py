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
from ldp.viz.style import PALETTE

__all__ = ["LAYOUT", "TRUE_COLOUR", "cdf_figure", "comparison_table", "density_figure", "density_table",
           "mean_trials_figure", "mean_variance_table", "method_label", "mutual_information_figure"]

TRUE_COLOUR = "#BBBBBB"
LAYOUT = {"font": {"size": 16}, "height": 460, "legend_title": "series",
          "hoverlabel": {"font_size": 14}}


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
    Traces: the truth, then one per estimate."""
    e = np.asarray(edges, dtype=np.float64)
    centres, widths = (e[:-1] + e[1:]) / 2, np.diff(e)
    cmap = _colours(list(estimates), colors)
    fig = go.Figure()
    fig.add_bar(x=centres, y=density(e, truth), width=widths, name="true", marker_color=TRUE_COLOUR,
                marker_line_width=0, hovertemplate="%{x:.4g}<br>density %{y:.4g}<extra>true</extra>")
    for label, est in estimates.items():
        dens = density(e, est)
        fig.add_scatter(x=e, y=np.append(dens, dens[-1]), mode="lines", line_shape="hv", name=label,
                        line={"color": cmap[label], "width": 2.5},
                        hovertemplate="from %{x:.4g}<br>density %{y:.4g}<extra>" + label + "</extra>")
    fig.add_hline(y=0, line_width=1, line_color="#666666")
    axis = f"{name} ({unit})" if unit else name
    fig.update_layout(title=title, xaxis_title=axis, bargap=0,
                      yaxis_title=f"density (fraction of users {_unit_per(unit, name)})", **LAYOUT)
    return fig


def cdf_figure(edges: np.ndarray, truth: np.ndarray, estimates: Mapping[str, np.ndarray], *, name: str,
               unit: str = "", title: str, colors: Mapping[str, str] | None = None) -> go.Figure:
    """CDFs in real units, linear within each bin. Estimates that are not distributions are first
    projected with Norm-Sub (as the metrics do). Traces: the truth, then one per estimate."""
    e = np.asarray(edges, dtype=np.float64)
    cmap = _colours(list(estimates), colors)
    fig = go.Figure()
    fig.add_scatter(x=e, y=cdf_at_edges(to_distribution(truth)), mode="lines", name="true",
                    line={"color": "#000000", "width": 3},
                    hovertemplate="%{x:.4g}<br>CDF %{y:.3f}<extra>true</extra>")
    for label, est in estimates.items():
        fig.add_scatter(x=e, y=cdf_at_edges(to_distribution(est)), mode="lines", name=label,
                        line={"color": cmap[label], "width": 2, "dash": "dash"},
                        hovertemplate="%{x:.4g}<br>CDF %{y:.3f}<extra>" + label + "</extra>")
    axis = f"{name} ({unit})" if unit else name
    fig.update_layout(title=title, xaxis_title=axis, yaxis_title="cumulative fraction of users (CDF)",
                      yaxis_range=[-0.02, 1.02], **LAYOUT)
    return fig


def density_table(edges: np.ndarray, truth: np.ndarray, estimates: Mapping[str, np.ndarray],
                  unit: str = "") -> pd.DataFrame:
    """The values behind both figures: per bin, its edges, and each series' frequency, density and CDF
    at the bin's right edge."""
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
    marked. Traces: the curve, the b in use."""
    fig = go.Figure()
    fig.add_scatter(x=b_grid, y=bound, mode="lines", name="upper bound of I(V; Ṽ) (nats)",
                    line={"color": PALETTE[0], "width": 3},
                    hovertemplate="b = %{x:.3g}<br>%{y:.4f} nats<extra></extra>")
    fig.add_scatter(x=[b_used], y=[bound_used], mode="markers", name=f"b in use = {b_used:.3g}",
                    marker={"color": PALETTE[1], "size": 13, "symbol": "diamond"})
    fig.add_vline(x=b_mi, line_dash="dot", line_color="#444444",
                  annotation_text=f"paper's b = {b_mi:.3g}", annotation_position="top")
    fig.update_layout(title=f"Why this b: SW's mutual-information bound at ε = {epsilon:g} (square-wave paper §5.3)",
                      xaxis_title="half-width b of the wave (log scale)", yaxis_title="bound on I(V; Ṽ) (nats)",
                      **LAYOUT)
    fig.update_xaxes(type="log")
    return fig


def method_label(display_name: str, reconstruction: str | None) -> str:
    """Legend label of a numerical mechanism with its reconstruction, e.g. "Square Wave (SW) · EMS"."""
    return f"{display_name} · {reconstruction.upper()}" if reconstruction else display_name


def comparison_table(per_method: Mapping[str, Mapping[str, np.ndarray]], unit: str = "") -> pd.DataFrame:
    """One row per numerical metric (square-wave paper §3), its unit, and one column per method holding
    the mean over trials (``per_method``: method label → metric → per-trial values, as returned by
    :func:`ldp.evaluation.metrics.metrics_over_trials`)."""
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
    the closed-form standard error. Traces: estimates, truth, band."""
    est = np.asarray(estimated_mean, dtype=np.float64)
    trials = np.arange(1, est.size + 1)
    ends = [0.5, est.size + 0.5]
    fig = go.Figure()
    fig.add_scatter(x=trials, y=est, mode="markers", name="estimated mean", marker={"color": color or PALETTE[0],
                                                                                  "size": 9},
                    hovertemplate="trial %{x}<br>%{y:.5g}<extra>estimated mean</extra>")
    fig.add_scatter(x=ends, y=[true_mean] * 2, mode="lines", name="true mean", line={"color": "#000000", "width": 2},
                    hovertemplate="%{y:.5g}<extra>true mean</extra>")
    lo, hi = true_mean - 1.96 * std_error, true_mean + 1.96 * std_error
    fig.add_scatter(x=[*ends, None, *ends], y=[lo, lo, None, hi, hi], mode="lines", name="true ± 1.96 SE (theory)",
                    line={"color": PALETTE[1], "width": 2, "dash": "dash"}, hoverinfo="skip")
    axis = f"mean of {name} ({unit})" if unit else f"mean of {name}"
    fig.update_layout(title=title, xaxis_title="trial", yaxis_title=axis, **LAYOUT)
    return fig


def mean_variance_table(true_mean: float, true_variance: float, estimated_mean: np.ndarray,
                        estimated_variance: np.ndarray, std_error: float, unit: str = "") -> pd.DataFrame:
    """Truth, average estimate, mean absolute error, RMSE over the trials and the closed-form SE (mean only)."""
    rows = []
    for label, truth, est, se, u in (("mean", true_mean, estimated_mean, std_error, unit),
                                     ("variance", true_variance, estimated_variance, np.nan,
                                      f"{unit}²" if unit else "")):
        e = np.asarray(est, dtype=np.float64)
        rows.append({"quantity": label, "unit": u, "true": float(truth), "average estimate": float(e.mean()),
                     "mean absolute error": float(np.mean(np.abs(e - truth))),
                     "RMSE": float(np.sqrt(np.mean((e - truth) ** 2))), "closed-form SE": float(se)})
    return pd.DataFrame(rows)
