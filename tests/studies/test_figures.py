"""The registry of reproducible figures: every entry is well formed, runs at a tiny scale, and splits its grid
over an executor without changing its table."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

import ldp.viz.paper_figures
from ldp.core.errors import InvalidInput
from ldp.studies import paper_figures
from ldp.studies.figures import DATA_KINDS, FIGURES, PAPERS
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
    if figure.verdict_of is not None:
        assert VERDICT.match(figure.verdict(table, settings))
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


# --------------------------------------------------------------------------- the user's own data
#: A small table of one categorical column (6 values) and one numerical column (2,000 rows): seconds for all.
OWN = pd.DataFrame({"city": np.repeat(list("abcdef"), [800, 500, 300, 200, 150, 50]),
                    "hours": np.random.default_rng(3).beta(5, 2, 2_000) * 24})
VERDICT = re.compile(r"^(holds|does not hold|cannot tell): \S")


@pytest.mark.parametrize("figure", [f for f in FIGURES if f.takes_data], ids=lambda f: f.name)
def test_every_figure_that_takes_data_runs_on_a_column(figure):
    settings = figure.settings("tiny")
    column = "city" if figure.data[0] == "categorical" else "hours"
    data = figure.dataset(settings, column, table=OWN, source="own.csv")
    assert data.kind == figure.data[0] and data.rows == len(OWN)
    on = figure.on_data(settings, data)
    assert on["population"] == tuple(data.counts) and on.get("n", data.rows) == data.rows
    table = figure.run(on)
    assert len(table) > 0
    verdict = figure.verdict(table, on)
    assert VERDICT.match(verdict) and "\n" not in verdict


def test_figures_that_cannot_take_data_say_why_and_kinds_are_checked():
    refused = [f for f in FIGURES if not f.takes_data]
    assert {f.name for f in refused} >= {"convolution-fig-3", "convolution-fig-4", "ibu-fig-1", "consistency-fig-8"}
    for figure in refused:
        assert figure.no_data
        with pytest.raises(InvalidInput, match=f"{figure.name} cannot run on your data: {re.escape(figure.no_data)}"):
            figure.dataset(figure.settings("tiny"), "city", table=OWN)
    assert all(set(f.data) <= set(DATA_KINDS) for f in FIGURES)
    post, waves = FIGURES.get("consistency-fig-4"), FIGURES.get("square-wave-fig-2")
    with pytest.raises(InvalidInput, match="takes a categorical column; 'hours' is numerical: give the number of"):
        post.dataset(post.settings("tiny"), "hours", table=OWN)
    with pytest.raises(InvalidInput, match="takes a numerical column; 'city' is categorical"):
        waves.dataset(waves.settings("tiny"), "city", table=OWN)
    binned = post.dataset(post.settings("tiny"), "hours", table=OWN, buckets=12)  # cut into bins on request
    assert binned.kind == "numerical" and binned.d == 12
    assert waves.dataset(waves.settings("tiny"), "hours", table=OWN).d == waves.settings("tiny")["d"]


def _post(mse: dict[str, float]) -> pd.DataFrame:
    return pd.DataFrame([{"epsilon": e, "estimator": k, "MSE": v * e} for e in (1.0, 2.0) for k, v in mse.items()])


def test_the_verdict_reads_the_paper_s_finding_both_ways():
    post = FIGURES.get("consistency-fig-4")
    holds = post.verdict(_post({"mi": 9, "base-cut": 2, "norm-sub": 3, "mle-apx": 3.03, "power-ns": 2.5}), {})
    assert holds == "holds: Norm-Sub and MLE-Apx within 1%, Base-Cut best"
    fails = post.verdict(_post({"mi": 9, "base-cut": 4, "norm-sub": 3, "mle-apx": 3.03, "power-ns": 2.5}), {})
    assert fails.startswith("does not hold: Norm-Sub and MLE-Apx within 1%, on this data PowerNS beats Base-Cut")
    apart = post.verdict(_post({"mi": 9, "base-cut": 2, "norm-sub": 3, "mle-apx": 4, "power-ns": 2.5}), {})
    assert apart.startswith("does not hold: Norm-Sub and MLE-Apx differ by 25%")
    methods = FIGURES.get("square-wave-fig-2")
    rows = [("sw", "ems", 0.5, 1.0), ("hh", "hh-admm", 0.5, 2.0), ("sw", "ems", 4.0, 3.0), ("hh", "hh-admm", 4.0, 1.0)]
    table = pd.DataFrame(rows, columns=["mechanism", "estimator", "epsilon", "mean"])
    assert methods.verdict(table, {}) == "holds: SW + EMS is best at 1 of 2 ε (hh+hh-admm at ε = 4)"
    table.loc[0, "mean"] = 5.0
    assert methods.verdict(table, {}).startswith("does not hold: SW + EMS is best at 0 of 2 ε")
    top = FIGURES.get("consistency-fig-10")
    ranks = pd.DataFrame({"k": 2, "estimator": ["mi", "base-cut", "power-ns", "norm-mul"], "MSE": [4.0, 1.0, 2.0, 3.0]})
    assert top.verdict(ranks, {}).startswith("holds: by mean top-k MSE Base-Cut ranks 1 and PowerNS 2 of 4")
    ranks["MSE"] = [1.0, 2.0, 4.0, 3.0]
    assert top.verdict(ranks, {}).startswith("does not hold: by mean top-k MSE Base-Cut ranks 2 and PowerNS 4")


def test_a_verdict_without_the_rows_it_needs_cannot_tell():
    post = FIGURES.get("consistency-fig-4")
    assert post.verdict(_post({"mi": 9, "base-cut": 2}), {}) == "cannot tell: the rows have no norm-sub, mle-apx"
    wiener = FIGURES.get("convolution-fig-6")
    rough = pd.DataFrame({"epsilon": 4.0, "method": ["GRR-MI", "GRR-DW"], "MSE": [2.0, 1.0]})
    assert wiener.verdict(rough, {}).startswith("cannot tell: the rows have no GRR-IIW")
    with pytest.raises(InvalidInput, match="no verdict"):
        FIGURES.get("consistency-fig-8").verdict(rough, {})
