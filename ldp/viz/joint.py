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
    """One row per method: its errors against the truth and what it assumes.

    Parameters
    ----------
    results : sequence of ldp.studies.joint.JointEstimate
        Estimates of one joint distribution, each by a method registered in :data:`ldp.studies.joint.JOINT_METHODS`.

    Returns
    -------
    pandas.DataFrame
        One row per result, in the given order: ``method``, one float column per metric of the result (``tvd`` and
        ``mse`` when the truth is known, ``range_mse`` when range queries were scored; a metric a result lacks is NaN)
        and ``assumes`` (the method's assumption, or "nothing beyond the oracle").
    """
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
    second across); with three columns the tables are summed over the third (the title says so).

    Parameters
    ----------
    results : sequence of ldp.studies.joint.JointEstimate
        Estimates over the same 2 or 3 columns; the first must carry the truth (its ``truth`` is drawn first).
    title : str, default ""
        The figure's title; with three columns the note of the summed-over column is appended.

    Returns
    -------
    plotly.graph_objects.Figure
        One heat map per table side by side ("true", then each method): rows the first column's labels (top down),
        columns the second's, colour the cell frequency on one shared 0 … max scale (one colour bar, at the right),
        so a reader compares each method's pattern with the truth's cell by cell.

    Raises
    ------
    InvalidInput
        When ``results`` is empty, the first result has no truth, or its estimate has neither 2 nor 3 dimensions.
    """
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
