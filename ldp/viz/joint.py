"""Figures and tables of joint distributions (:mod:`ldp.studies.joint`): the true joint beside each method's
estimate as heat maps, and the methods' errors as a table."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ldp.core.errors import InvalidInput
from ldp.studies.joint import JOINT_METHODS, JointEstimate
from ldp.viz.style import plain_text

__all__ = ["heatmaps_figure", "metrics_table"]


def metrics_table(results: Sequence[JointEstimate]) -> pd.DataFrame:
    """One row per method: its errors against the truth and what it assumes."""
    rows = []
    for res in results:
        row = {"method": res.method, **{k: float(v) for k, v in res.metrics.items()}}
        row["assumes"] = JOINT_METHODS.get(res.method).assumes or "nothing beyond the oracle"
        rows.append(row)
    return pd.DataFrame(rows)


def _first_two(table: np.ndarray) -> np.ndarray:
    """A 2- or 3-column joint as the joint of its first two columns (summed over the third)."""
    return table if table.ndim == 2 else table.sum(axis=tuple(range(2, table.ndim)))


def heatmaps_figure(results: Sequence[JointEstimate], title: str = "") -> go.Figure:
    """The true joint of the first two columns, then each result's estimate, on one colour scale (first column down,
    second across); with three columns the tables are summed over the third (the title says so)."""
    if not results or results[0].truth is None or results[0].estimate.ndim not in (2, 3):
        raise InvalidInput("heat maps need estimates of two or three columns with their truth")
    tables = [("true", _first_two(results[0].truth))] + [(res.method, _first_two(res.estimate)) for res in results]
    if results[0].estimate.ndim == 3:
        title = f"{title} — {plain_text(results[0].columns[0])} × {plain_text(results[0].columns[1])}, summed " \
                f"over {plain_text(results[0].columns[2])}"
    top = max(float(t.max()) for _, t in tables)
    fig = make_subplots(rows=1, cols=len(tables), subplot_titles=[name for name, _ in tables],
                        horizontal_spacing=0.03)
    first, second = results[0].columns[:2]
    labels = [[plain_text(v) for v in lab] for lab in results[0].labels[:2]]
    for i, (_, table) in enumerate(tables, start=1):
        fig.add_trace(go.Heatmap(z=table, x=labels[1], y=labels[0], zmin=0, zmax=top, colorscale="Blues",
                                 showscale=i == len(tables), colorbar={"title": "frequency"},
                                 hovertemplate=f"{plain_text(first)} %{{y}}, {plain_text(second)} %{{x}}: "
                                               "%{z:.4f}<extra></extra>"), row=1, col=i)
        fig.update_yaxes(autorange="reversed", showticklabels=i == 1, row=1, col=i)
    fig.update_xaxes(title_text=plain_text(second))
    fig.update_yaxes(title_text=plain_text(first), row=1, col=1)
    fig.update_layout(title=title, height=380)
    return fig
