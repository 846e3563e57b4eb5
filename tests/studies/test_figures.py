"""The registry of reproducible figures: every entry is well formed, runs at a tiny scale, and splits its grid
over an executor without changing its table."""

from __future__ import annotations

import re

import pandas as pd
import plotly.graph_objects as go
import pytest

import ldp.viz.paper_figures
from ldp.core.errors import InvalidInput
from ldp.studies import paper_figures
from ldp.studies.figures import FIGURES, PAPERS
from ldp.viz.paper_figures import draw

ID = re.compile(r"^(ibu|consistency|convolution|square-wave)-(fig|table)-\d+$")


@pytest.mark.parametrize("figure", FIGURES, ids=FIGURES.names())
def test_every_entry_is_well_formed(figure):
    assert ID.match(figure.name) and figure.paper_name in PAPERS
    assert figure.paper_says == paper_figures.PRINTED[figure.printed]
    assert callable(getattr(ldp.viz.paper_figures, figure.figure)) and callable(figure.function)
    known = figure.parameters()
    for scale in ("lecture", "paper", "tiny"):
        assert set(getattr(figure, scale) if scale != "tiny" else figure.tiny) <= set(known), scale
    assert figure.paper and figure.paper_source  # the paper's settings, and where they come from
    assert figure.settings("paper") != figure.settings("lecture")
    assert figure.estimated_seconds(figure.settings("paper")) > 0


@pytest.mark.parametrize("figure", FIGURES, ids=FIGURES.names())
def test_every_figure_runs_at_a_tiny_scale(figure):
    settings = figure.settings("tiny")
    table = figure.run(settings)
    assert isinstance(table, pd.DataFrame) and len(table) > 0
    finding = figure.finding(table)
    assert isinstance(finding, str) and finding and "\n" not in finding
    fig = draw(figure, table, settings)
    assert isinstance(fig, go.Figure) and len(fig.data) > 0


def test_a_split_study_gives_the_same_table_on_another_executor():
    figure = FIGURES.get("consistency-fig-4")
    settings = figure.settings("tiny", epsilons=(0.5, 2.0))
    serial = figure.run(settings)
    fractions = []
    split = figure.run(settings, executor="processes", workers=2, progress=fractions.append)
    pd.testing.assert_frame_equal(serial, split)
    assert fractions[-1] == 1.0


def test_settings_are_checked():
    post = FIGURES.get("consistency-fig-4")
    assert post.settings("paper", trials=2, epsilons=[1, 2])["epsilons"] == (1.0, 2.0)
    assert post.settings("paper")["d"] == 1024 and post.settings("paper")["trials"] == 30
    with pytest.raises(InvalidInput, match="positive"):
        post.settings(epsilons=[0.0])
    with pytest.raises(InvalidInput, match="no setting"):
        post.settings(bogus=1)
    with pytest.raises(InvalidInput, match="one ε"):
        FIGURES.get("convolution-fig-9").settings(epsilons=[1, 2])
    with pytest.raises(InvalidInput, match="no trials"):
        FIGURES.get("convolution-fig-5").settings(trials=3)
    with pytest.raises(InvalidInput, match="executor"):
        post.compute(post.settings("tiny"), executor="threads")


def test_the_selected_parts_partition_the_set_queries():
    small, large = FIGURES.get("consistency-fig-7"), FIGURES.get("consistency-fig-6")
    settings = small.settings("tiny")
    result = small.compute(settings)
    assert small.select(result, settings)["ρ"].max() <= 0.1 and large.select(result, settings)["ρ"].min() >= 0.1
