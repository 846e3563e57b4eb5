"""Figures of the Trade-off page: titles, axes, palette and the number of traces."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from ldp.studies.tradeoff import (
    attack_curve,
    closed_form_curves,
    crossovers,
    epsilon_grid,
    run_tradeoff_sweep,
    summarize_sweep,
)
from ldp.viz import tradeoff
from ldp.viz.style import PALETTE

FREQS = np.ones(20) / 20
MECHS = ["grr", "oue"]


@pytest.fixture(scope="module")
def sweep():
    table = run_tradeoff_sweep(FREQS, mechanisms=MECHS, estimators=["mi", "norm-sub"],
                               grid=epsilon_grid(0.5, 8, 4), trials=3, seed=0, users=2000)
    return summarize_sweep(table, "mse")


@pytest.fixture(scope="module")
def closed():
    grid = epsilon_grid(0.5, 8, 30)
    table = closed_form_curves(MECHS, "epsilon", grid, FREQS, users=2000)
    curves = {m: table.loc[table["mechanism"] == m, "value"].to_numpy() for m in MECHS}
    return table, crossovers(curves, grid)


def _check_layout(fig: go.Figure) -> None:
    assert isinstance(fig, go.Figure)
    assert fig.layout.title.text
    assert fig.layout.xaxis.title.text and fig.layout.yaxis.title.text
    assert fig.layout.font.size >= 14
    assert fig.layout.template.layout.paper_bgcolor in ("white", "#fff", "#ffffff", "rgb(255,255,255)")


def test_closed_form_only(closed):
    table, crossings = closed
    assert len(crossings) == 1  # GRR and OUE cross once (near ln((20 − 2)/3) ≈ 1.79; f = 1/20 moves it)
    fig = tradeoff.error_curves_figure(MECHS, closed_form=table, crossings=crossings)
    _check_layout(fig)
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    names = [t.name for t in fig.data]
    assert sum("· closed form" in n for n in names) == 2
    assert "crossover (closed form)" in names
    assert len(fig.data) == 2 + 2  # two dotted curves, the marker lines and their labels
    dotted = [t for t in fig.data if "· closed form" in t.name]
    assert all(t.line.dash == "dot" for t in dotted)
    assert [t.line.color for t in dotted] == PALETTE[:2]
    assert "ε" in fig.layout.xaxis.title.text and "MSE" in fig.layout.yaxis.title.text


def test_with_simulated_bands(sweep, closed):
    table, crossings = closed
    fig = tradeoff.error_curves_figure(MECHS, summary=sweep, closed_form=table, crossings=crossings)
    _check_layout(fig)
    # per mechanism × estimator: band + mean line; per mechanism: closed form; crossovers: 2
    assert len(fig.data) == 2 * 2 * 2 + 2 + 2
    lines = [t for t in fig.data if t.mode == "lines+markers"]
    assert {t.line.dash for t in lines} == {"solid", "dash"}  # dash per estimator
    assert {t.line.color for t in lines} == set(PALETTE[:2])  # colour per mechanism
    bands = [t for t in fig.data if t.fill == "toself"]
    assert len(bands) == 4 and all(min(t.y) > 0 for t in bands)  # positive on the log axis


def test_other_axes_and_metrics(sweep):
    fig = tradeoff.error_curves_figure(MECHS, summary=sweep, axis="users", metric="mae")
    assert "users n" in fig.layout.xaxis.title.text and "MAE" in fig.layout.yaxis.title.text
    fig = tradeoff.error_curves_figure(MECHS, axis="d")
    assert "domain size" in fig.layout.xaxis.title.text and len(fig.data) == 0


def test_utility_privacy_figure(sweep):
    eps = epsilon_grid(0.5, 8, 4)
    prior = np.linspace(1, 2, 20) / np.linspace(1, 2, 20).sum()
    points = attack_curve([*MECHS, "she"], eps, prior, 2000)
    sim = sweep[sweep["estimator"] == "mi"].merge(points[["mechanism", "epsilon", "attack_success"]],
                                                  on=["mechanism", "epsilon"])
    fig = tradeoff.utility_privacy_figure(points, [*MECHS, "she"], baseline=float(prior.max()), simulated=sim)
    _check_layout(fig)
    assert fig.layout.yaxis.type == "log"
    assert "attacker" in fig.layout.xaxis.title.text
    # GRR and OUE: closed-form line + simulated markers; SHE has no attack success; + the baseline line
    assert len(fig.data) == 2 * 2 + 1
    baseline = fig.data[-1]
    assert list(baseline.x) == [prior.max(), prior.max()] and "no report" in baseline.name


def test_describe_and_table():
    assert "No mechanism" in tradeoff.describe_crossings([])
    text = tradeoff.describe_crossings([(1.79, "grr", "oue")])
    assert "GRR" in text and "OUE" in text and "1.79" in text
    table = tradeoff.crossings_table([(1.79, "grr", "oue")])
    assert list(table.columns) == ["ε", "mechanism A", "mechanism B"] and len(table) == 1
