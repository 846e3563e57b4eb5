"""Figures of the Heavy hitters page (ldp.viz.heavy_hitters): the round figure declared whole draws what Plotly's
add_hline calls drew."""

from __future__ import annotations

import plotly.graph_objects as go

from ldp.studies.heavy_hitters import find_heavy_hitters, zipf_values
from ldp.viz import heavy_hitters


def test_round_figure_lines_are_what_add_hline_draws():
    values = zipf_values(5_000, 12, seed=2)
    run = find_heavy_hitters("pem", 2.0, values, bits=12, top_k=4, seed=1, threshold=0.01)
    res = run.result
    table = heavy_hitters.round_table(res, 0, values)
    fig = heavy_hitters.round_figure(res, 0, table, 0.01)
    limit = res.rounds[0].detection_limit
    ref = go.Figure()
    ref.add_hline(y=limit, line={"dash": "dash", "color": "#444"}, annotation_text=f"detection limit {limit:.3g}")
    ref.add_hline(y=0.01, line={"dash": "dot", "color": fig.data[1].marker.color},
                  annotation_text="threshold 0.01", annotation_position="bottom right")
    assert fig.layout.shapes == ref.layout.shapes and fig.layout.annotations == ref.layout.annotations
    assert [t.name for t in fig.data] == ["estimate (blue: kept)", "true frequency"]
    assert fig.layout.xaxis.type == "category" and fig.layout.xaxis.tickangle == -60
    final = len(res.rounds) - 1
    last = heavy_hitters.round_figure(res, final, heavy_hitters.round_table(res, final, values), 0.01)
    assert len(last.layout.shapes) == 1 and last.layout.title.text.endswith("(the answer)")  # no threshold line
