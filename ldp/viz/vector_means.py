"""Figure of the vector-mean mechanisms: worst-case variance per coordinate against d (the lecture's comparison)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from ldp.viz.style import PALETTE, label_log_axes

__all__ = ["variance_against_d_figure"]

DASH = {"split": "dot", "sample": "solid", "joint": "dash"}


def variance_against_d_figure(table: pd.DataFrame, epsilon: float) -> go.Figure:
    """One line per mechanism (dotted: split the budget, solid: sample coordinates, dashed: Duchi's joint
    mechanism), log–log."""
    fig = go.Figure()
    for i, (_, part) in enumerate(table.groupby("mechanism", sort=False)):
        fig.add_scatter(x=part["d"], y=part["worst-case variance"], mode="lines+markers",
                        name=f"{part['display_name'].iloc[0]} ({part['family'].iloc[0]})",
                        line={"color": PALETTE[i % len(PALETTE)], "width": 2.5,
                              "dash": DASH.get(part["family"].iloc[0], "solid")})
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log")
    fig.update_layout(title=f"Means of vectors in [−1, 1]^d at ε = {epsilon:g}: worst-case variance per coordinate",
                      xaxis_title="dimension d (log scale)", yaxis_title="n × Var per coordinate (log scale)")
    return label_log_axes(fig)
