"""Figures and tables of joint distributions."""

from __future__ import annotations

import pytest

from ldp.core.errors import InvalidInput
from ldp.studies.joint import compare_methods
from ldp.viz.joint import heatmaps_figure, metrics_table


def test_heatmaps_and_table_of_a_comparison() -> None:
    results, advice = compare_methods("correlated:d1=4,d2=3,rho=0.8", 20_000, 1.0, queries=20)
    table = metrics_table(results)
    assert list(table["method"]) == ["product", "split", "calm", "hdg"]
    assert {"tvd", "mse", "range_mse", "assumes"} <= set(table.columns)
    assert table.set_index("method").loc["split", "assumes"].startswith("independence")
    fig = heatmaps_figure(results, "t")
    assert len(fig.data) == 5 and fig.data[0].z.shape == (4, 3)  # the truth and four estimates
    assert [a.text for a in fig.layout.annotations] == ["true", "product", "split", "calm", "hdg"]
    assert advice.method == "product"
    three, _ = compare_methods("correlated:d1=3,d2=3,d3=2", 5_000, 1.0)
    assert [r.method for r in three] == ["product", "split", "calm"] and "range_mse" not in three[0].metrics
    fig3 = heatmaps_figure(three, "t")  # three columns: the first two, summed over the third
    assert fig3.data[0].z.shape == (3, 3) and "summed over" in fig3.layout.title.text
    assert fig3.data[0].z.sum() == pytest.approx(1.0)
    with pytest.raises(InvalidInput):
        heatmaps_figure([])
