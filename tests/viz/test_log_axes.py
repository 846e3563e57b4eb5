"""Log axes are labelled by their values (issue 11): decades when the data span them, 1-2-5 values otherwise."""

import plotly.graph_objects as go

from ldp.viz.style import label_log_axes


def test_wide_log_axes_get_one_label_per_decade():
    fig = go.Figure(go.Scatter(x=[1, 2, 3], y=[1e-6, 1e-4, 1e-2]))
    fig.update_yaxes(type="log")
    label_log_axes(fig)
    assert fig.layout.yaxis.dtick == 1 and fig.layout.yaxis.exponentformat == "power"
    assert fig.layout.xaxis.dtick is None  # a linear axis is left alone


def test_narrow_log_axes_get_values_written_out():
    fig = go.Figure(go.Scatter(x=[0.5, 1, 2, 4], y=[3, 2, 1, 0.5], xaxis="x2"))
    fig.update_layout(xaxis2={"type": "log"})
    label_log_axes(fig)
    assert list(fig.layout.xaxis2.ticktext) == ["0.5", "1", "2"]
    assert list(fig.layout.xaxis2.tickvals) == [0.5, 1.0, 2.0]
