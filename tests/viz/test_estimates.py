"""Unit tests for the Playground's pure builders: figures, tables and read-out sentences."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
import pytest

from ldp.viz import estimates

TRUE = np.array([0.5, 0.3, 0.2])
EST = {"MI (Base)": np.array([0.55, 0.32, -0.05]), "Norm-Sub": np.array([0.6, 0.4, 0.0])}


# --------------------------------------------------------------------------- histogram
def test_histogram_categorical_traces_titles_and_intervals():
    mi_est = EST["MI (Base)"]
    intervals = (mi_est - np.array([0.01, 0.02, 0.03]), mi_est + np.array([0.02, 0.02, 0.05]))  # asymmetric
    band = (mi_est - 0.05, mi_est + 0.06)
    fig = estimates.histogram_figure(["a", "b", "c"], TRUE, EST, intervals, band, title="T", x_title="airport",
                                     interval_for="MI (Base)", level=0.9)
    assert isinstance(fig, go.Figure)
    assert fig.layout.title.text == "T"
    assert fig.layout.xaxis.title.text == "airport"
    assert fig.layout.yaxis.title.text == estimates.Y_TITLE
    assert fig.layout.xaxis.type == "category"
    assert fig.layout.template.layout.font is not None and fig.layout.font.size >= 14
    assert len(fig.data) == 1 + 1 + len(EST)  # true bars, band, one series per estimator
    true_bars, band, mi, ns = fig.data
    np.testing.assert_allclose(true_bars.y, TRUE)
    np.testing.assert_allclose(np.asarray(band.base, dtype=float), mi_est - 0.05)  # the band's box, low to high
    np.testing.assert_allclose(band.y, np.full(3, 0.11))
    assert "90%" in band.name and "simultaneous" in band.name
    np.testing.assert_allclose(mi.error_y.array, [0.02, 0.02, 0.05])
    np.testing.assert_allclose(mi.error_y.arrayminus, [0.01, 0.02, 0.03])
    assert mi.error_y.symmetric is False
    assert "MI (Base)" in mi.name and "90% interval" in mi.name
    assert ns.error_y.array is None  # intervals only on the unbiased MI series
    assert mi.marker.color != ns.marker.color and mi.marker.symbol != ns.marker.symbol
    assert min(mi.y) < 0  # negative estimates are plotted as they are
    assert any(s.y0 == 0 and s.y1 == 0 for s in fig.layout.shapes)  # zero line


def test_histogram_numerical_uses_real_units_and_bin_widths():
    edges = np.array([0.0, 2.0, 4.0, 8.0])
    centres = estimates.bin_centres(edges)
    np.testing.assert_allclose(centres, [1.0, 3.0, 6.0])
    fig = estimates.histogram_figure(centres, TRUE, {"MI (Base)": EST["MI (Base)"]}, None, None, title="T",
                                     x_title="time (hours)", widths=np.diff(edges))
    assert len(fig.data) == 2  # no band, no intervals
    assert fig.layout.xaxis.type != "category"
    np.testing.assert_allclose(fig.data[0].x, centres)
    np.testing.assert_allclose(fig.data[0].width, [2.0, 2.0, 4.0])


def test_histogram_rejects_mismatched_lengths():
    with pytest.raises(ValueError):
        estimates.histogram_figure(["a", "b"], TRUE, EST, title="T", x_title="x")
    with pytest.raises(ValueError):
        estimates.histogram_figure(["a", "b", "c"], TRUE, {"bad": np.zeros(2)}, title="T", x_title="x")


def test_display_order():
    f = np.array([0.1, 0.4, 0.2, 0.3])
    np.testing.assert_array_equal(estimates.display_order(f), [0, 1, 2, 3])
    np.testing.assert_array_equal(estimates.display_order(f, sort_by_frequency=True), [1, 3, 2, 0])
    np.testing.assert_array_equal(estimates.display_order(f, top_k=2), [1, 3])  # domain order
    np.testing.assert_array_equal(estimates.display_order(f, top_k=2, sort_by_frequency=True), [1, 3])
    np.testing.assert_array_equal(estimates.display_order(f, top_k=99), [0, 1, 2, 3])  # k capped at d
    with pytest.raises(ValueError):
        estimates.display_order(f, top_k=0)


# --------------------------------------------------------------------------- CDF
def test_cdf_numerical_steps_at_edges_and_unnormalized_note():
    edges = np.array([0.0, 1.0, 2.0, 3.0])
    fig = estimates.cdf_figure(TRUE, EST, title="C", x_title="x (h)", edges=edges, unnormalized=["MI (Base)"])
    assert fig.layout.title.text == "C" and fig.layout.xaxis.title.text == "x (h)"
    assert fig.layout.yaxis.title.text == "cumulative frequency"
    assert len(fig.data) == 1 + len(EST)
    np.testing.assert_allclose(fig.data[0].x, edges)
    np.testing.assert_allclose(fig.data[0].y, [0.0, 0.5, 0.8, 1.0])
    np.testing.assert_allclose(fig.data[1].y, [0.0, 0.55, 0.87, 0.82])  # MI's sum can dip and miss 1
    assert "unnormalized" in fig.data[1].name and "unnormalized" not in fig.data[2].name


def test_cdf_categorical_and_table():
    fig = estimates.cdf_figure(TRUE, EST, title="C", x_title="v", labels=["a", "b", "c"])
    assert fig.layout.xaxis.type == "category"
    assert list(fig.data[0].x) == ["a", "b", "c"]
    np.testing.assert_allclose(fig.data[2].y, [0.6, 1.0, 1.0])
    table = estimates.cdf_table(TRUE, EST, ["a", "b", "c"])
    assert list(table.columns) == ["value", "true CDF", "MI (Base) CDF", "Norm-Sub CDF"]
    np.testing.assert_allclose(table["true CDF"], [0.5, 0.8, 1.0])
    with pytest.raises(ValueError):
        estimates.cdf_figure(TRUE, EST, title="C", x_title="v", edges=np.array([0.0, 1.0]))


# --------------------------------------------------------------------------- tables
def test_results_table_columns_and_values():
    table = estimates.results_table(["a", "b", "c"], TRUE, EST, (np.zeros(3), np.array([0.1, 0.2, 0.3])),
                                    (np.full(3, -0.4), np.full(3, 0.4)), level=0.99, centres=np.array([1.0, 2.0, 3.0]))
    assert list(table.columns) == ["value", "bin centre", "true", "MI (Base)", "Norm-Sub", "99% CI low (MI)",
                                   "99% CI high (MI)", "99% band low", "99% band high"]
    np.testing.assert_allclose(table["Norm-Sub"], EST["Norm-Sub"])
    np.testing.assert_allclose(table["99% CI high (MI)"], [0.1, 0.2, 0.3])
    np.testing.assert_allclose(table["99% band low"], [-0.4, -0.4, -0.4])


def test_metrics_frame_against_hand_computed_values():
    true = np.array([0.5, 0.5])
    est = {"A": np.array([0.6, 0.4])}
    table = estimates.metrics_frame(true, est, k=1, theoretical_variance=0.02)
    row = table.loc["A"]
    assert row["MSE"] == pytest.approx(0.01)
    assert row["MAE"] == pytest.approx(0.1)
    assert row["L1"] == pytest.approx(0.2)
    assert row["Max abs error"] == pytest.approx(0.1)
    assert row["Top-1 MSE"] == pytest.approx(0.01)
    assert row["theoretical MSE of MI (closed form)"] == pytest.approx(0.02)
    if "wasserstein" in estimates.available_metrics():
        # F − G = 0, −0.1, 0 at the edges: two triangles of area 0.05 with unit-width bins.
        assert row["Wasserstein (values)"] == pytest.approx(0.1)
        assert row["KS"] == pytest.approx(0.1)
        wide = estimates.metrics_frame(true, est, edges=np.array([0.0, 2.0, 4.0]), unit="hours")
        assert wide.loc["A", "Wasserstein (hours)"] == pytest.approx(0.2)  # bin width 2 doubles it


# --------------------------------------------------------------------------- text
@pytest.mark.parametrize(("n", "text"), [(10**6, "10^6"), (1000, "10^3"), (999, "999"), (1234567, "1,234,567"),
                                         (328521, "328,521")])
def test_format_users(n, text):
    assert estimates.format_users(n) == text


def test_coverage_text():
    text = estimates.coverage_text(0.95, 100, 0.95)
    assert "**95 of 100**" in text and "95%" in text


def test_privacy_sentences():
    one = estimates.likelihood_ratio_text(1.0)
    assert f"{math.e:.2f}" in one and "e^ε" in one
    two = estimates.likelihood_ratio_text(2.0, epsilon_1=0.5)
    assert f"{math.exp(0.5):.2f}" in two and f"{math.exp(2.0):.2f}" in two and "ε∞" in two and "ε1" in two
    assert "not computed" in estimates.attack_text(None, 0.2)
    sentence = estimates.attack_text(0.305, 0.2)
    assert "30.5%" in sentence and "20.0%" in sentence and "10.5 percentage points" in sentence


def test_domain_preview():
    table = estimates.domain_preview(["a", "b"], np.array([3, 1]))
    assert list(table.columns) == ["value", "rows", "share"]
    np.testing.assert_allclose(table["share"], [0.75, 0.25])
    assert list(estimates.domain_preview(["a", "b"], np.array([3, 1]), share=True).columns) == ["value", "share"]


def test_shown_values_select_and_order_every_series():
    true = np.array([0.1, 0.5, 0.15, 0.25])
    est = {"MI": np.array([0.12, 0.48, 0.1, 0.3])}
    low, high = true - np.array([0.01, 0.02, 0.03, 0.04]), true + 0.05
    shown = estimates.shown_values(["a", "b", "c", "d"], true, est, (low, high), (low - 1, high + 1), top_k=2,
                                   sort_by_frequency=True)
    assert list(shown.index) == [1, 3] and shown.labels == ["b", "d"] and shown.x == ["b", "d"]
    np.testing.assert_allclose(shown.true, [0.5, 0.25])
    np.testing.assert_allclose(shown.estimates["MI"], [0.48, 0.3])
    np.testing.assert_allclose(shown.intervals[0], [0.48, 0.21])
    np.testing.assert_allclose(shown.band[1], [1.55, 1.3])
    assert shown.centres is None and shown.widths is None
    edges = np.array([0.0, 1.0, 2.0, 4.0, 8.0])
    numerical = estimates.shown_values(["a", "b", "c", "d"], true, est, edges=edges)
    assert numerical.intervals is None and numerical.band is None
    np.testing.assert_allclose(numerical.x, [0.5, 1.5, 3.0, 6.0])
    np.testing.assert_allclose(numerical.widths, [1.0, 1.0, 2.0, 4.0])
    assert numerical.labels == ["a", "b", "c", "d"]


def test_plain_metrics_are_percentages_of_users():
    table = estimates.metrics_frame(np.array([0.5, 0.5]), {"A": np.array([0.6, 0.4])}, k=1, theoretical_variance=0.0004,
                                    metrics=["mse", "mae", "ks"])
    plain = estimates.plain_metrics(table)
    assert plain.loc["A", "RMSE (% of users)"] == pytest.approx(10.0)  # √0.01 = 0.1 = 10 % of the users
    assert plain.loc["A", "MAE (% of users)"] == pytest.approx(10.0)
    assert plain.loc["A", "theoretical RMSE of MI (closed form) (% of users)"] == pytest.approx(2.0)
    assert plain.loc["A", "KS (% of users)"] == pytest.approx(10.0)


def test_every_category_is_labelled_up_to_150():
    """Issue 11 item 2: the Playground labelled 52 of the 104 airports."""
    import numpy as np

    from ldp.viz.estimates import histogram_figure

    labels = [f"A{i:03d}" for i in range(104)]
    true = np.full(104, 1 / 104)
    fig = histogram_figure(labels, true, {"MI": true}, title="t", x_title="airport")
    assert fig.layout.xaxis.tickmode == "linear" and fig.layout.xaxis.dtick == 1 and fig.layout.xaxis.tickangle == -90
    many = [f"v{i}" for i in range(400)]
    fig = histogram_figure(many, np.full(400, 1 / 400), {"MI": np.full(400, 1 / 400)}, title="t", x_title="v")
    assert fig.layout.xaxis.tickmode is None  # thinned by Plotly
