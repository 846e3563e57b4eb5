"""Figures and read-outs of the live classroom's projector view, from a class summary (the JSON of
``GET /api/classes/{code}/summary``: plain dicts, so this module needs nothing of ``ldp.classroom``)."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from ldp.viz.style import PALETTE

__all__ = ["estimate_figure", "histogram_figure", "readout"]


def estimate_figure(summary: dict[str, Any]) -> go.Figure:
    """The class's estimated distribution: MI bars with their 95 % intervals, the consistent estimate as markers
    and, once revealed, the show of hands. A numeric question shows its mean with its interval.

    Parameters
    ----------
    summary : dict
        A class summary as served by ``GET /api/classes/{code}/summary``. Read keys: ``estimate`` (answer → MI
        estimate), ``intervals`` (answer → [low, high] of its 95 % interval), ``estimates`` (other methods' name →
        answer → value; ``mi`` and ``average`` are skipped), ``truth`` (answer → share once revealed, or a number for
        a numeric question's true mean), ``kind`` (``"numeric"`` or not). Missing keys draw nothing.

    Returns
    -------
    plotly.graph_objects.Figure
        Answers on the x axis, frequency (or the mean, for a numeric question) on the y axis: MI estimates as bars with
        asymmetric 95 % error bars, each other estimate as diamonds, the revealed truth as horizontal ticks. A
        categorical question's y axis spans at least [−0.1, 1] (wider when an interval reaches out), so a reader sees
        where the noise lets an estimate leave the [0, 1] range.
    """
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
    """What the server actually received: how many reports support each answer (GRR: the raw report counts).

    Parameters
    ----------
    summary : dict
        A class summary (``GET /api/classes/{code}/summary``); reads ``histogram`` (answer or bin → report count),
        ``kind`` and ``mechanism``.

    Returns
    -------
    plotly.graph_objects.Figure
        One bar per answer (or bin, for a numeric question) with the number of reports supporting it — the raw,
        still-noisy counts before any estimation; the title names what the counts are (for GRR, the reports received).
    """
    hist = summary.get("histogram") or {}
    fig = go.Figure(go.Bar(x=list(hist), y=list(hist.values()), marker_color=PALETTE[5]))
    title = ("Reports received (binned)" if summary.get("kind") == "numeric"
             else "Reports supporting each answer" if summary.get("mechanism") != "grr" else "Reports received")
    fig.update_layout(title=title, yaxis_title="reports", height=420, margin={"l": 40, "r": 20, "t": 50, "b": 40})
    return fig


def readout(summary: dict[str, Any]) -> str:
    """One sentence: with n students the error is ±x (95 %).

    Parameters
    ----------
    summary : dict
        A class summary (``GET /api/classes/{code}/summary``); reads ``reports`` (the number n of students who
        answered), ``error`` (the 95 % half-width: a frequency for categorical questions, in the answer's units for
        numeric ones; None before any report) and ``kind``.

    Returns
    -------
    str
        The sentence for the projector: the half-width in percentage points (categorical) or in the mean's units
        (numeric), or a "no reports yet" line when there is no report or no error yet.
    """
    n = summary.get("reports", 0)
    if not n or summary.get("error") is None:
        return "No reports yet: the estimate appears with the first one."
    err = summary["error"]
    if summary.get("kind") == "numeric":
        return f"With {n} students the class mean is known to ±{err:.3g} (95 %)."
    return (f"With {n} students the error is ±{100 * err:.0f} percentage points per answer (95 %, for a rare "
            f"answer); it shrinks as 1/√n — four times the class halves it.")
