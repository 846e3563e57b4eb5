"""Figure of the vector-mean mechanisms: worst-case variance per coordinate against d (the lecture's comparison)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from ldp.viz.style import PALETTE, label_log_axes

__all__ = ["simulated_against_d_figure", "variance_against_d_figure"]

DASH = {"split": "dot", "sample": "solid", "joint": "dash"}
FAMILY = {"split": "budget split", "sample": "coordinates sampled", "joint": "joint"}


def _legend_name(display_name: str, family: str) -> str:
    """The mechanism's display name, with its family when the name does not already say it (not "Laplace,
    budget split (split)")."""
    words = FAMILY.get(family, family)
    said = words in display_name or family in display_name.lower()
    return display_name if said else f"{display_name} — {words}"


def variance_against_d_figure(table: pd.DataFrame, epsilon: float) -> go.Figure:
    """One line per mechanism (dotted: split the budget, solid: sample coordinates, dashed: Duchi's joint
    mechanism), log–log.

    Parameters
    ----------
    table : pandas.DataFrame
        The table of :func:`ldp.studies.vector_means.variance_against_d`: columns ``mechanism``, ``display_name``,
        ``family`` (``split``, ``sample`` or ``joint``), ``d`` and ``worst-case variance`` (one user's worst-case
        variance per coordinate over x ∈ [−1, 1]^d, i.e. n × the mean's variance).
    epsilon : float
        ε of the table, shown in the title.

    Returns
    -------
    plotly.graph_objects.Figure
        Log–log: d on x, n × Var per coordinate on y, one line per mechanism (dotted for split budgets, solid for
        sampled coordinates, dashed for the joint mechanism). A reader sees splitting the budget grow like d² and
        sampling coordinates like d.

    References
    ----------
    The lecture (ldp-lecture-frequency-oracles-heavy-hitters-itemsets), "Complicated Numerical Settings" (split the
    budget, or report one dimension) and "Summary so far".
    """
    fig = go.Figure()
    for i, (_, part) in enumerate(table.groupby("mechanism", sort=False)):
        fig.add_scatter(x=part["d"], y=part["worst-case variance"], mode="lines+markers",
                        name=_legend_name(part["display_name"].iloc[0], part["family"].iloc[0]),
                        line={"color": PALETTE[i % len(PALETTE)], "width": 2.5,
                              "dash": DASH.get(part["family"].iloc[0], "solid")})
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log")
    fig.update_layout(title=f"Means of vectors in [−1, 1]^d at ε = {epsilon:g}: worst-case variance per coordinate",
                      xaxis_title="dimension d (log scale)", yaxis_title="n × Var per coordinate (log scale)")
    return label_log_axes(fig)


def simulated_against_d_figure(table: pd.DataFrame, epsilon: float) -> go.Figure:
    """Simulated n × MSE per coordinate (markers) on its closed form for the same users (lines), against d.

    Parameters
    ----------
    table : pandas.DataFrame
        The table of :func:`ldp.studies.vector_means.simulated_against_d`: columns ``mechanism``, ``display_name``,
        ``family``, ``d``, ``simulated`` and ``closed form`` (both n × the mean's MSE per coordinate).
    epsilon : float
        ε of the table, shown in the title.

    Returns
    -------
    plotly.graph_objects.Figure
        Log–log against d: per mechanism (one colour) a line of the closed form and markers of the simulated value;
        markers on their line confirm the closed-form variances.
    """
    fig = go.Figure()
    for i, (_, part) in enumerate(table.groupby("mechanism", sort=False)):
        colour = PALETTE[i % len(PALETTE)]
        label = part["display_name"].iloc[0]
        fig.add_scatter(x=part["d"], y=part["closed form"], mode="lines", name=f"{label} · closed form",
                        legendgroup=label, line={"color": colour, "width": 2,
                                                 "dash": DASH.get(part["family"].iloc[0], "solid")})
        fig.add_scatter(x=part["d"], y=part["simulated"], mode="markers", name=f"{label} · simulated",
                        legendgroup=label, marker={"color": colour, "size": 9})
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log")
    fig.update_layout(title=f"By simulation at ε = {epsilon:g} (uniform vectors): simulated MSE on its closed form",
                      xaxis_title="dimension d (log scale)", yaxis_title="n × MSE per coordinate (log scale)")
    return label_log_axes(fig)
