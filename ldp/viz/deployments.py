"""Figures of "what the deployments do": the deployed frequency oracles' error against the textbook ones at the
same ε, and the privacy a repeated collection spends with and without memoization. Pure Plotly; no Streamlit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ldp.viz.style import PALETTE

__all__ = ["deployed_figure", "memoization_figure"]

FONT = {"size": 15}


def deployed_figure(table: pd.DataFrame) -> go.Figure:
    """Horizontal bars: each oracle's MSE as a multiple of the best textbook one (deployed ones coloured and
    labelled with who runs them), from :func:`ldp.studies.deployments.deployed_vs_textbook`.

    Parameters
    ----------
    table : pandas.DataFrame
        The table of :func:`ldp.studies.deployments.deployed_vs_textbook`; reads the columns ``mechanism``,
        ``deployed by`` ("" for a textbook oracle), ``× best textbook`` and ``best textbook``.

    Returns
    -------
    plotly.graph_objects.Figure
        One horizontal bar per oracle, in the table's order from the top (sorted by MSE, so the best first), its length
        and label the MSE ratio to the best textbook oracle (1× for that one); deployed oracles are orange and named
        with their deployer, textbook ones black. A reader sees how much error each deployed design costs (or saves)
        at the same ε.
    """
    deployed = table["deployed by"] != ""
    labels = [f"{m} — {who}" if who else m for m, who in zip(table["mechanism"], table["deployed by"], strict=True)]
    fig = go.Figure(go.Bar(x=table["× best textbook"], y=labels, orientation="h",
                           marker_color=np.where(deployed, PALETTE[1], PALETTE[7]).tolist(),
                           text=[f"{v:.2f}×" for v in table["× best textbook"]], textposition="auto"))
    fig.update_layout(xaxis={"title": f"MSE ÷ MSE of the best textbook oracle ({table['best textbook'].iloc[0]})"},
                      yaxis={"autorange": "reversed"}, font=FONT, margin={"t": 30},
                      height=max(260, 34 * len(table) + 90))
    return fig


def memoization_figure(epsilon: float, rounds: int, steady_spent: float, moving_spent: float) -> go.Figure:
    """ε spent by one user against the rounds: fresh reports (τ·ε), memoized for a steady counter and for one that
    moves every round (means measured by :func:`ldp.studies.deployments.memoization_rows` at the last round).

    Parameters
    ----------
    epsilon : float
        ε of one report.
    rounds : int
        τ, the number of rounds of collection (the x axis runs 1 … τ).
    steady_spent : float
        Mean ε spent per user after ``rounds`` rounds when the memoized value stays steady (measured).
    moving_spent : float
        Mean ε spent per user after ``rounds`` rounds when the value moves every round (measured).

    Returns
    -------
    plotly.graph_objects.Figure
        x: rounds τ; y: ε spent by one user. A line τ·ε for fresh reports every round, and two labelled markers at the
        last round for the memoized steady and moving counters — a reader sees that memoization keeps a steady user's
        spend near one report's ε, while a value that moves spends nearly as much as fresh reports.

    References
    ----------
    Ding, Kulkarni, Yekhanin, "Collecting Telemetry Data Privately" (NeurIPS 2017): memoization, as simulated by
    :func:`ldp.studies.deployments.memoization_rows`.
    """
    tau = np.arange(1, rounds + 1)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=tau, y=tau * epsilon, mode="lines", name="fresh report every round (τ·ε)",
                             line={"color": PALETTE[3]}))
    fig.add_trace(go.Scatter(x=[rounds], y=[moving_spent], mode="markers+text", name="memoized, value moves",
                             marker={"color": PALETTE[5], "size": 12}, text=[f"{moving_spent:.3g}"],
                             textposition="middle left"))
    fig.add_trace(go.Scatter(x=[rounds], y=[steady_spent], mode="markers+text", name="memoized, value steady",
                             marker={"color": PALETTE[2], "size": 12}, text=[f"{steady_spent:.3g}"],
                             textposition="middle left"))
    fig.update_layout(xaxis={"title": "rounds of collection τ"}, yaxis={"title": "ε spent by one user (mean)"},
                      font=FONT, margin={"t": 30}, legend={"orientation": "h", "y": -0.25})
    return fig
