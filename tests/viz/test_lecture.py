"""Figures of the Learn page: titles, axis titles, trace counts and the tables behind them."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

import ldp
from ldp.studies.lecture import (
    bound_widths,
    comparison_table,
    composition_table,
    dp_vs_ldp_curves,
    dp_vs_ldp_simulation,
    split_vs_partition_curves,
    warner_expected_table,
    warner_simulate,
)
from ldp.viz import lecture


def _has_titles(fig: go.Figure) -> None:
    assert isinstance(fig, go.Figure)
    assert fig.layout.title.text
    assert fig.layout.xaxis.title.text and fig.layout.yaxis.title.text
    assert fig.layout.font.size >= 14


def test_probability_heatmap_full_and_truncated():
    mech = ldp.get_mechanism("olh", 1.0, 4)
    matrix, labels = mech.channel()
    values = [str(v) for v in range(4)]
    fig = lecture.probability_heatmap(matrix, labels, values, title="OLH", x_title="report", max_columns=64)
    _has_titles(fig)
    assert len(fig.data) == 1 and np.asarray(fig.data[0].z).shape == (4, 64)
    assert "first 64 of 80 outputs" in fig.layout.title.text
    table = lecture.heatmap_table(matrix, labels, values, 64)
    assert table.shape == (4, 64) and table.iloc[0, 0] == pytest.approx(matrix[0, 0])
    small = lecture.probability_heatmap(np.eye(3) * 0.5 + 0.25, values[:3], values[:3], title="t", x_title="u")
    assert "first" not in small.layout.title.text and np.asarray(small.data[0].z).shape == (3, 3)


def test_laplace_figure_and_table():
    fig = lecture.laplace_figure(1.0)
    _has_titles(fig)
    assert len(fig.data) == 2
    table = lecture.laplace_table(1.0)
    assert np.all(np.abs(np.log(table["ratio own / other"])) <= 0.5 + 1e-12)


def test_warner_bars():
    table = warner_expected_table(80, 20, 0.5)
    fig = lecture.warner_bars(table, title="Warner")
    _has_titles(fig)
    assert len(fig.data) == 4 and fig.layout.barmode == "stack"
    assert list(fig.data[0].y) == [40, 0] and list(fig.data[1].y) == [20, 5]


def test_warner_spread():
    sim = warner_simulate(80, 20, 0.5, seed=1, classes=200)
    fig = lecture.warner_spread(sim.estimates, 80, sim.theoretical_sd, title="spread", step=2.0)
    _has_titles(fig)
    assert len(fig.data) == 1 and fig.data[0].xbins.size % 2 == 0
    assert len(fig.layout.shapes) == 3  # truth and ±1 σ


def test_comparison_figure():
    table = comparison_table(1.0, 100)
    fig = lecture.comparison_figure(table, title="comparison")
    _has_titles(fig)
    assert len(fig.data) == 3 and fig.layout.xaxis.type == "log"
    assert list(fig.data[2].y) == table.loc[table["best"], "mechanism"].tolist()


def test_split_vs_partition_figure():
    curves = split_vs_partition_curves(3, 10_000, np.geomspace(0.05, 10, 30))
    fig = lecture.split_vs_partition_figure(curves, epsilon=1.0, questions=3, n=10_000)
    _has_titles(fig)
    assert len(fig.data) == 2 and fig.layout.yaxis.type == "log"
    assert np.allclose(fig.data[0].y, curves["split the budget"])


def test_composition_figure():
    table = composition_table(1.0, 3, 4)
    fig = lecture.composition_figure(table, epsilon=1.0, d=3)
    _has_titles(fig)
    assert len(fig.data) == 4
    assert np.allclose(fig.data[0].y, table["attacker: one report at kε"])
    assert np.allclose(fig.data[1].y, table["attacker: k reports at ε"])
    assert fig.data[1].y[1] < fig.data[0].y[1]  # two reports at ε: below one report at 2ε


def test_dp_vs_ldp_figure_is_log_log_with_simulated_markers():
    ns = np.geomspace(100, 1e6, 9)
    curves = dp_vs_ldp_curves(1.0, 8, ns)
    sim = dp_vs_ldp_simulation(1.0, 8, [1_000], trials=20, seed=1)
    fig = lecture.dp_vs_ldp_figure(curves, sim, epsilon=1.0)
    _has_titles(fig)
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    assert len(fig.data) == 8  # central + 3 LDP lines, then their simulated markers
    central, grr = fig.data[0], fig.data[1]
    assert np.ptp(central.y) == 0 and grr.y[-1] / grr.y[0] == pytest.approx(100.0)  # flat vs slope ½ over 10⁴ × n
    assert all(t.mode == "markers" for t in fig.data[4:])
    assert len(lecture.dp_vs_ldp_figure(curves, epsilon=1.0).data) == 4


def test_bound_width_figure():
    table = bound_widths("grr", 4, [100, 1_000, 10_000], [1.0, 2.0])
    fig = lecture.bound_width_figure(table, epsilon=2.0, mechanism="GRR")
    _has_titles(fig)
    assert len(fig.data) == 3 and fig.layout.xaxis.type == "log"
    assert np.allclose(fig.data[2].y, table.loc[table["ε"] == 2.0, "our interval"])
