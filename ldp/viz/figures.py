"""Figures for simulation results: true vs estimated histogram overlay and a metrics table."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ldp.simulation import SimulationResult

# Okabe–Ito colour-blind-safe palette.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]


def histogram_overlay(result: SimulationResult, labels: Sequence[str], *, trial: int = 0,
                      confidence: float = 0.95, title: str | None = None) -> go.Figure:
    """Bars of the true frequencies, one marker series per estimator, and per-value intervals
    ±z·σ from the closed-form MI variance (z for the two-sided ``confidence`` level)."""
    from scipy.stats import norm

    x = list(labels)
    fig = go.Figure()
    fig.add_bar(x=x, y=result.true_frequencies, name="true", marker_color="#BBBBBB")
    z = float(norm.ppf(0.5 + confidence / 2))
    half = z * np.sqrt(result.variance_per_value())
    for i, (name, est) in enumerate(result.estimates.items()):
        fig.add_scatter(
            x=x, y=est[trial], mode="markers", name=name, marker={"color": PALETTE[i % len(PALETTE)], "size": 7},
            error_y={"type": "data", "array": half, "visible": name == "mi", "thickness": 1},
        )
    fig.add_hline(y=0, line_width=1, line_color="#666666")
    mech = result.mechanism
    fig.update_layout(
        title=title or f"True vs estimated frequencies — {mech.display_name}, ε = {mech.epsilon:g}, n = {result.n:,}",
        xaxis_title="value", yaxis_title="frequency (fraction of users)", barmode="overlay",
        legend_title="series", template="plotly_white", font={"size": 16}, height=480,
    )
    return fig


def metrics_table(result: SimulationResult) -> pd.DataFrame:
    """Each estimator's metrics averaged over trials, next to the closed-form MI variance."""
    rows = []
    for name, metrics in result.summary().items():
        rows.append({"estimator": name, **metrics})
    table = pd.DataFrame(rows).set_index("estimator")
    table["theoretical MSE of MI"] = result.theoretical_variance
    return table
