"""Figures and read-outs of the live classroom's projector view, from a class summary (the JSON of
``GET /api/classes/{code}/summary``: plain dicts, so this module needs nothing of ``ldp.classroom``)."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from ldp.viz.style import PALETTE

__all__ = ["estimate_figure", "histogram_figure", "readout"]


def estimate_figure(summary: dict[str, Any]) -> go.Figure:
    """The class's estimated distribution: MI bars with their 95 % intervals, the consistent estimate as markers
    and, once revealed, the show of hands. A numeric question shows its mean with its interval."""
    fig = go.Figure()
    est = summary.get("estimate") or {}
    iv = summary.get("intervals") or {}
    names = list(est)
    if names:
        vals = [est[k] for k in names]
        lo = [v - iv[k][0] for k, v in zip(names, vals, strict=True)]
        hi = [iv[k][1] - v for k, v in zip(names, vals, strict=True)]
        fig.add_bar(x=names, y=vals, name="estimate (MI)", marker_color=PALETTE[0],
                    error_y={"type": "data", "array": hi, "arrayminus": lo, "visible": True, "color": "#444"})
        for i, (name, values) in enumerate((summary.get("estimates") or {}).items()):
            if name in ("mi", "average"):
                continue
            fig.add_scatter(x=list(values), y=list(values.values()), mode="markers", name=name,
                            marker={"size": 14, "symbol": "diamond", "color": PALETTE[1 + i]})
    truth = summary.get("truth")
    if isinstance(truth, dict):
        fig.add_scatter(x=list(truth), y=list(truth.values()), mode="markers", name="show of hands",
                        marker={"size": 18, "symbol": "line-ew-open", "line": {"width": 4}, "color": PALETTE[3]})
    elif isinstance(truth, (int, float)) and names:
        fig.add_scatter(x=names, y=[truth], mode="markers", name="true mean",
                        marker={"size": 18, "symbol": "line-ew-open", "line": {"width": 4}, "color": PALETTE[3]})
    numeric = summary.get("kind") == "numeric"
    fig.update_layout(title="Estimated mean" if numeric else "Estimated share of the class",
                      yaxis_title="mean" if numeric else "frequency", height=420, bargap=0.35,
                      margin={"l": 40, "r": 20, "t": 50, "b": 40}, legend={"orientation": "h", "y": -0.15})
    if not numeric:
        fig.update_yaxes(range=[min(-0.1, *(v[0] for v in iv.values())) if iv else -0.1,
                                max(1.0, *(v[1] for v in iv.values())) if iv else 1.0])
    return fig


def histogram_figure(summary: dict[str, Any]) -> go.Figure:
    """What the server actually received: how many reports support each answer (GRR: the raw report counts)."""
    hist = summary.get("histogram") or {}
    fig = go.Figure(go.Bar(x=list(hist), y=list(hist.values()), marker_color=PALETTE[5]))
    title = ("Reports received (binned)" if summary.get("kind") == "numeric"
             else "Reports supporting each answer" if summary.get("mechanism") != "grr" else "Reports received")
    fig.update_layout(title=title, yaxis_title="reports", height=420, margin={"l": 40, "r": 20, "t": 50, "b": 40})
    return fig


def readout(summary: dict[str, Any]) -> str:
    """One sentence: with n students the error is ±x (95 %)."""
    n = summary.get("reports", 0)
    if not n or summary.get("error") is None:
        return "No reports yet: the estimate appears with the first one."
    err = summary["error"]
    if summary.get("kind") == "numeric":
        return f"With {n} students the class mean is known to ±{err:.3g} (95 %)."
    return (f"With {n} students the error is ±{100 * err:.0f} percentage points per answer (95 %, for a rare "
            f"answer); it shrinks as 1/√n — four times the class halves it.")
