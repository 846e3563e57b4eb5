"""Figures of the Post-processing lab (ldp.viz.estimator_comparison) and the Numerical distributions page
(ldp.viz.distributions): titles, axis titles with units, trace counts, palette and legible fonts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

import ldp
from ldp.studies import comparison
from ldp.viz import distributions, estimator_comparison
from ldp.viz.style import PALETTE


def check_layout(fig: go.Figure, title: str) -> None:
    assert isinstance(fig, go.Figure)
    assert fig.layout.title.text == title
    assert fig.layout.xaxis.title.text and fig.layout.yaxis.title.text
    assert fig.layout.font.size >= 14
    assert fig.layout.template.layout.paper_bgcolor in ("white", "#fff", "#ffffff", "rgb(255,255,255)")


@pytest.fixture(scope="module")
def run():
    counts = np.array([4000, 2000, 1000, 500, 300, 100, 60, 40])
    mech = ldp.get_mechanism("grr", 1.0, 8)
    result = comparison.merge_results([comparison.run_chunk(mech, counts, ["mi", "norm-sub"], engine="fast", seed=0,
                                                            index=i, trials=t)
                                       for i, t in comparison.chunk_plan(20)])
    display = {"mi": "MI (Base)", "norm-sub": "Norm-Sub"}
    return result, display, comparison.per_value_table(result, list("abcdefgh"), display)


def test_bias_figure(run):
    _, _, table = run
    fig = estimator_comparison.bias_figure(table, title="Bias",
                                           colors={"MI (Base)": PALETTE[0], "Norm-Sub": PALETTE[1]})
    check_layout(fig, "Bias")
    assert len(fig.data) == 4  # band + line per estimator
    assert "bias" in fig.layout.yaxis.title.text and "fraction of users" in fig.layout.yaxis.title.text
    assert "true frequency" in fig.layout.xaxis.title.text
    lines = [t for t in fig.data if t.fill != "toself"]
    assert [t.name for t in lines] == ["MI (Base)", "Norm-Sub"]
    assert lines[0].line.color == PALETTE[0] and lines[1].line.color == PALETTE[1]
    np.testing.assert_allclose(lines[0].y, table[table["estimator"] == "MI (Base)"]["bias"])
    band = fig.data[0]
    assert len(band.x) == 16  # the polygon runs along the values and back


def test_variance_figure_has_the_closed_form_reference(run):
    _, _, table = run
    fig = estimator_comparison.variance_figure(table, title="Variance")
    check_layout(fig, "Variance")
    assert len(fig.data) == 3
    assert fig.layout.yaxis.type == "log"
    assert fig.data[-1].name == "closed-form MI variance"
    assert {t.line.color for t in fig.data[:2]} <= set(PALETTE)


def test_top_k_and_set_value_figures(run):
    result, display, _ = run
    truth = result.true_frequencies
    curve = comparison.top_k_curve_table(result.estimates, truth, range(1, 9), display)
    assert len(curve) == 16 and list(curve.columns) == ["estimator", "k", "MSE", "SE"]
    fig = estimator_comparison.top_k_figure(curve, k=3, title="Top-k")
    check_layout(fig, "Top-k")
    assert len(fig.data) == 2 and fig.layout.yaxis.type == "log"
    expected = comparison.set_value_curve_table(result.estimates, truth, [10, 50, 90], display)
    sampled = pd.DataFrame({"estimator": ["MI (Base)", "Norm-Sub"], "ρ (%)": [50.0, 50.0], "MSE": [1e-4, 5e-5],
                            "SE": [1e-5, 1e-5]})
    fig = estimator_comparison.set_value_figure(expected, sampled, rho=50, title="Set-value")
    check_layout(fig, "Set-value")
    assert len(fig.data) == 4  # line + random-query marker per estimator
    assert "ρ" in fig.layout.xaxis.title.text and "%" in fig.layout.xaxis.title.text


def test_colour_map_is_stable_and_colour_blind_safe():
    cmap = estimator_comparison.colour_map(["a", "b", "c"], {"b": PALETTE[0]})
    assert cmap["b"] == PALETTE[0] and cmap["a"] != PALETTE[0] and set(cmap.values()) <= set(PALETTE)


def test_density_and_cdf_figures_in_real_units():
    edges = np.linspace(0, 24, 7)
    truth = np.array([0.05, 0.1, 0.3, 0.3, 0.2, 0.05])
    raw = truth + np.array([0.02, -0.08, 0.01, 0.0, 0.03, -0.07])
    ests = {"MI (raw)": raw, "MI + Norm-Sub": ldp.norm_sub(raw)}
    fig = distributions.density_figure(edges, truth, ests, name="dep_time_hours", unit="hours", title="Density")
    check_layout(fig, "Density")
    assert len(fig.data) == 3
    assert fig.layout.xaxis.title.text == "dep_time_hours (hours)"
    assert "hours" in fig.layout.yaxis.title.text
    np.testing.assert_allclose(fig.data[0].y, truth / 4)  # density = frequency / bin width
    np.testing.assert_allclose(fig.data[0].width, 4.0)
    assert min(fig.data[1].y) < 0  # raw MI is drawn as it is
    fig = distributions.cdf_figure(edges, truth, {"MI + Norm-Sub": ldp.norm_sub(raw)}, name="temp", unit="°F",
                                   title="CDF")
    check_layout(fig, "CDF")
    assert len(fig.data) == 2
    np.testing.assert_allclose(fig.data[0].y, np.concatenate([[0], np.cumsum(truth)]))
    assert fig.data[1].y[-1] == pytest.approx(1.0)
    table = distributions.density_table(edges, truth, ests, unit="hours")
    assert len(table) == 6 and "from (hours)" in table.columns and "MI (raw) density" in table.columns


def test_many_estimators_get_dashes_and_a_legend_below():
    names = [f"e{i}" for i in range(17)]
    colours, dashes = estimator_comparison.style_maps(names)
    assert [dashes[n] for n in names[:8]] == ["solid"] * 8 and dashes["e8"] == "dash" and dashes["e16"] == "dot"
    assert len({(colours[n], dashes[n]) for n in names}) == 17  # every series looks different
    curve = pd.DataFrame({"estimator": np.repeat(names, 3), "k": np.tile([1, 2, 3], 17), "MSE": 1e-4, "SE": 1e-6})
    fig = estimator_comparison.top_k_figure(curve, k=2, title="Top-k", colors=colours, dashes=dashes)
    assert len(fig.data) == 17
    assert fig.layout.legend.orientation == "h" and fig.layout.height > estimator_comparison.LAYOUT["height"]
    assert fig.data[16].line.dash == "dot"


def test_declared_marker_lines_are_what_plotly_draws_for_them(run):
    """The figures are declared whole (one dict) rather than grown call by call: their marker lines, legend and axes
    are still what add_vline / add_hline / update_layout gave."""
    result, display, table = run
    curve = comparison.top_k_curve_table(result.estimates, result.true_frequencies, range(1, 9), display)
    fig = estimator_comparison.top_k_figure(curve, k=3, title="Top-k")
    ref = go.Figure()
    ref.add_vline(x=3, line_dash="dot", line_color=estimator_comparison.THEORY_COLOUR, annotation_text="k = 3",
                  annotation_position="top right")
    assert fig.layout.shapes == ref.layout.shapes and fig.layout.annotations == ref.layout.annotations
    assert fig.layout.legend.title.text == "estimator" and fig.layout.yaxis.exponentformat == "power"
    fig = estimator_comparison.bias_figure(table, title="Bias")
    ref = go.Figure()
    ref.add_hline(y=0, line_width=1, line_color=estimator_comparison.THEORY_COLOUR)
    assert fig.layout.shapes == ref.layout.shapes and fig.layout.yaxis.type is None
    check = pd.DataFrame({"display name": ["A", "B"], "expected": [1e-3, 2e-3], "standard error": [1e-4, 1e-4],
                          "actual": [1.5e-3, 1e-3]})
    fig = estimator_comparison.advisor_figure(check, title="Advisor", value_label="MSE")
    assert fig.layout.legend.title.text == "" and fig.layout.legend.orientation == "h"
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.autorange == "reversed"


def test_declared_distribution_figures_are_what_plotly_grew():
    """The Numerical page's figures are declared whole too: each equals, spec for spec, the figure grown by
    add_bar / add_scatter / add_hline / add_vline / update_layout that it replaces."""
    edges, truth = np.linspace(0.0, 24.0, 7), np.array([0.1, 0.2, 0.3, 0.2, 0.1, 0.1])
    est = {"SW · EMS": truth + 0.01}
    fig = distributions.density_figure(edges, truth, est, name="dep_time_hours", unit="hours", title="Density")
    ref = go.Figure()
    ref.add_bar(x=(edges[:-1] + edges[1:]) / 2, y=truth / 4, width=np.diff(edges), name="true",
                marker_color=distributions.TRUE_COLOUR, marker_line_width=0,
                hovertemplate="%{x:.4g}<br>density %{y:.4g}<extra>true</extra>")
    ref.add_scatter(x=edges, y=np.append((truth + 0.01) / 4, (truth[-1] + 0.01) / 4), mode="lines", line_shape="hv",
                    name="SW · EMS", line={"color": PALETTE[0], "width": 2.5},
                    hovertemplate="from %{x:.4g}<br>density %{y:.4g}<extra>SW · EMS</extra>")
    ref.add_hline(y=0, line_width=1, line_color="#666666")
    ref.update_layout(title="Density", xaxis_title="dep_time_hours (hours)", bargap=0,
                      yaxis_title="density (fraction of users / hours)", **distributions.LAYOUT)
    assert fig.to_plotly_json() == ref.to_plotly_json()
    fig = distributions.mutual_information_figure(np.array([0.1, 1.0]), np.array([0.2, 0.3]), b_mi=0.5, b_used=1.0,
                                                  bound_used=0.3, epsilon=1.0)
    ref = go.Figure()
    ref.add_vline(x=0.5, line_dash="dot", line_color="#444444", annotation_text="paper's b = 0.5",
                  annotation_position="top")
    ref.update_xaxes(type="log")
    assert fig.layout.shapes == ref.layout.shapes and fig.layout.annotations == ref.layout.annotations
    assert fig.layout.xaxis.type == "log" and fig.layout.legend.title.text == "series"
    fig = distributions.mean_trials_figure(np.array([1.0, 2.0]), 1.5, 0.1, name="x", title="Mean")
    assert [t.name for t in fig.data] == ["estimated mean", "true mean", "true ± 1.96 SE (theory)"]
    assert fig.layout.yaxis.title.text == "mean of x" and fig.layout.xaxis.title.text == "trial"


def test_every_figure_is_what_the_schema_validates_it_to(run):
    """The builders hand their dicts to go.Figure unvalidated (a fifth of the time, issue 21 item 7), so this test is
    their validation: every figure of the module, validated again against Plotly's schema (any unknown or misspelt
    property raises), gives the same JSON spec — also once share_figure's log-axis labels are added."""
    import json

    import plotly.io as pio

    from ldp.viz.style import disposable_spec, figure_spec, label_log_axes

    result, display, table = run
    curve = comparison.top_k_curve_table(result.estimates, result.true_frequencies, range(1, 9), display)
    errors = comparison.task_errors(result.estimates, result.true_frequencies, k=3, rho=0.25, queries=50, seed=0)
    sampled = comparison.set_value_sample_table(errors["set"], result.true_frequencies, 25, display)
    sets = comparison.set_value_curve_table(result.estimates, result.true_frequencies, [25, 50], display)
    check = pd.DataFrame({"display name": ["A", "B"], "expected": [1e-3, 2e-3], "standard error": [1e-4, 1e-4],
                          "actual": [1.5e-3, 1e-3]})
    stopping = comparison.early_stopping_study(ldp.get_mechanism("grr", 1.0, 8), result.true_counts, trials=2,
                                               checkpoints=(0, 1, 10))
    figures = [estimator_comparison.bias_figure(table, title="Bias"),
               estimator_comparison.variance_figure(table, title="Variance"),
               estimator_comparison.top_k_figure(curve, k=3, title="Top-k"),
               estimator_comparison.set_value_figure(sets, sampled, rho=25, title="Sets"),
               estimator_comparison.advisor_figure(check, title="Advisor", value_label="MSE"),
               estimator_comparison.early_stopping_figure(stopping, title="Stopping")]
    for fig in figures:
        for labelled in (False, True):
            if labelled:
                label_log_axes(fig)
            validated = go.Figure(fig.to_plotly_json())  # validates every property (raises on an invalid one)
            spec = json.loads(pio.to_json(fig.to_dict(), validate=False))  # what the browser is sent
            assert spec == json.loads(pio.to_json(validated.to_dict(), validate=False))  # (keys in any order)
            # the worker's encoding without to_dict's deep copy (disposable_spec, on a copy: it consumes the figure)
            fast = disposable_spec(go.Figure(fig.to_dict(), skip_invalid=False))
            assert json.loads(pio.to_json(fast, validate=False)) == spec
    assert figures[0].layout.hoverlabel.font.size == 14  # the nested form, as validation writes it
    # and on the figures as the builders hand them over (pandas columns become plain arrays; same spec)
    for build, args in ((estimator_comparison.bias_figure, (table,)), (estimator_comparison.variance_figure, (table,)),
                        (estimator_comparison.top_k_figure, (curve,)), (estimator_comparison.set_value_figure,
                                                                         (sets, sampled))):
        kwargs = {"title": "t", **({"k": 3} if build is estimator_comparison.top_k_figure else {}),
                  **({"rho": 25} if build is estimator_comparison.set_value_figure else {})}
        expected = json.loads(pio.to_json(label_log_axes(build(*args, **kwargs)).to_dict(), validate=False))
        assert json.loads(pio.to_json(figure_spec(build, *args, **kwargs), validate=False)) == expected


def test_groups_are_what_groupby_gives_and_labels_what_astype_str_gives():
    """The builders read each estimator's rows as numpy arrays (estimator_comparison._groups): the same groups, in
    the same order and with the same rows as ``groupby("estimator", sort=False)`` (rows without an estimator left
    out), and hover labels as ``Series.astype(str).tolist()`` writes them, for text, integers and floats (a domain's
    labels: never missing)."""
    import pandas as pd

    from ldp.viz.estimator_comparison import _groups, _labels

    table = pd.DataFrame({"estimator": pd.array(["b", "a", "b", None, "c", "a"], dtype="string"),
                          "rank": [1, 2, 3, 4, 5, 6], "MSE": [0.5, 0.25, 1e-5, 2.0, 1 / 3, 7.0],
                          "value": pd.array(["x", "y", "z", "w", "<v>", "u"], dtype="string")})
    ours = _groups(table)
    theirs = list(table.groupby("estimator", sort=False))
    assert [name for name, _ in ours] == [str(name) for name, _ in theirs] == ["b", "a", "c"]
    for (_, rows), (_, frame) in zip(ours, theirs, strict=True):
        assert len(rows) == len(frame)
        for column in ("rank", "MSE"):
            np.testing.assert_array_equal(rows[column], frame[column].to_numpy())
        assert _labels(rows["value"]) == frame["value"].astype(str).tolist()
    for column in ("rank", "MSE"):
        assert _labels(table[column].to_numpy()) == table[column].astype(str).tolist()
