"""Figures of the deployed mechanisms (ldp.viz.deployments)."""

from __future__ import annotations

import numpy as np

from ldp.studies.deployments import deployed_vs_textbook
from ldp.viz.deployments import deployed_figure, memoization_figure


def test_deployed_figure_draws_one_bar_per_oracle_and_names_the_deployers():
    table = deployed_vs_textbook(np.full(16, 1 / 16), 10_000, 2.0)
    fig = deployed_figure(table)
    bar = fig.data[0]
    assert len(bar.y) == len(table)
    assert any("Apple" in label for label in bar.y) and any("Microsoft" in label for label in bar.y)
    assert np.allclose(bar.x, table["× best textbook"])


def test_memoization_figure_shows_the_fresh_line_and_both_memoized_points():
    fig = memoization_figure(1.0, 30, 1.6, 19.7)
    fresh, moving, steady = fig.data
    assert fresh.y[-1] == 30.0 and moving.y[0] == 19.7 and steady.y[0] == 1.6
