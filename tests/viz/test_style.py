"""ldp/viz/style.py: a figure's spec made without Plotly's own conversions is the spec Plotly makes."""

from __future__ import annotations

import copy
import json

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
import pytest
from _plotly_utils.utils import convert_to_base64

from ldp.viz import distributions
from ldp.viz.style import declared_figure, encode_arrays, figure_spec, label_log_axes

#: Values of every kind a figure's dicts hold: numbers of every dtype (64-bit integers that narrow, and ones that do
#: not), 2-D and strided arrays, empty ones, float16 and booleans (which Plotly leaves as arrays), text Series,
#: lists, and arrays under the keys Plotly skips.
VALUES = {
    "f8": np.linspace(0.0, 1.0, 7), "f4": np.arange(5, dtype=np.float32), "i8 small": np.array([-3, 100]),
    "i8 mid": np.array([-40_000, 7]), "i8 wide": np.array([0, 2**40]), "i8 int32": np.array([-(2**31), 2**31 - 1]),
    "u8": np.array([0, 70_000], dtype=np.uint64), "u8 wide": np.array([2**63], dtype=np.uint64),
    "i4": np.array([1, 2], dtype=np.int32), "u1": np.array([255], dtype=np.uint8),
    "2-d": np.arange(12.0).reshape(3, 4), "strided": np.arange(20.0)[::3], "transposed": np.arange(6.0).reshape(2, 3).T,
    "empty": np.array([]), "f2": np.array([1.5], dtype=np.float16), "bool": np.array([True, False]),
    "text": pd.Series(["a", "b"]), "numbers series": pd.Series([1.0, 2.0]), "list": [1, 2, 3],
    "range": np.array([0.0, 1.0]), "nested": {"x": np.array([1.0, 2.0]), "deeper": [{"y": np.array([3, 4])}]},
}


def test_encode_arrays_is_plotlys_conversion():
    ours, theirs = {"data": [copy.deepcopy(VALUES)]}, {"data": [copy.deepcopy(VALUES)]}
    encode_arrays(ours)
    convert_to_base64(theirs)
    ours_values, theirs_values = ours["data"][0], theirs["data"][0]
    for key in VALUES:
        a, b = ours_values[key], theirs_values[key]
        if key == "range":  # a key Plotly skips: left as it was, by both
            assert a.flags.writeable and b.flags.writeable and np.array_equal(a, b)
        elif isinstance(b, np.ndarray):  # left as an array (empty, float16, booleans): a read-only copy alike
            assert isinstance(a, np.ndarray) and a.dtype == b.dtype and not a.flags.writeable, key
            np.testing.assert_array_equal(a, b)
        else:
            assert json.dumps(a, default=list) == json.dumps(b, default=list), key
    assert ours_values["f8"]["dtype"] == "f8" and ours_values["i8 small"]["dtype"] == "i1"  # encoded, not left


BUILDERS = {
    "density": (distributions.density_figure, (np.linspace(0, 24, 7), np.full(6, 1 / 6),
                                               {"SW · EMS": np.full(6, 1 / 6) + 0.01}),
                {"name": "t", "unit": "h", "title": "Density"}),
    "mutual information": (distributions.mutual_information_figure, (np.array([0.1, 0.5, 1.0]),
                                                                     np.array([0.2, 0.3, 0.25])),
                           {"b_mi": 0.5, "b_used": 1.0, "bound_used": 0.25, "epsilon": 1.0}),
    "mean per trial": (distributions.mean_trials_figure, (np.array([1.0, 2.0, 1.5]), 1.5, 0.1),
                       {"name": "x", "unit": "h", "title": "Mean"}),
}


@pytest.mark.parametrize("template", [None, "plotly_white"])
@pytest.mark.parametrize("name", list(BUILDERS))
def test_a_declared_figures_spec_is_its_figures(name, template, monkeypatch):
    """figure_spec makes a declared builder's spec from its declaration, never building the figure: the JSON a
    browser gets is the figure's own ``to_dict()`` after label_log_axes, with the default template or without one
    (the estimator-comparison builders are checked in tests/viz/test_estimator_comparison.py)."""
    build, args, kwargs = BUILDERS[name]
    before = pio.templates.default
    pio.templates.default = template
    try:
        expected = json.loads(pio.to_json(label_log_axes(build(*args, **kwargs)).to_dict(), validate=False))
        with monkeypatch.context() as patch:  # no figure is built on the way
            patch.setattr(go, "Figure", lambda *a, **k: pytest.fail("figure_spec built a go.Figure"))
            spec = figure_spec(build, *args, **kwargs)
    finally:
        pio.templates.default = before
    assert isinstance(spec, dict) and json.loads(pio.to_json(spec, validate=False)) == expected
    assert ("template" in spec["layout"]) == (template is not None)


def test_log_axes_of_a_declaration_are_labelled_as_a_figures():
    """Both log-axis rules (decades; 1-2-5 values on a narrow axis, here a second x axis) on a declaration's dicts
    give the figure's labels, and an existing ``minor`` setting is kept beside the added ones."""
    data = [{"type": "scatter", "x": np.array([1.0, 2.0, 3.0]), "y": np.array([1e-6, 1e-4, 1e-2])},
            {"type": "scatter", "x": np.array([0.5, 1.0, 2.0, 4.0]), "y": np.array([3.0, 2.0, 1.0, 0.5]),
             "xaxis": "x2"}]
    layout = {"yaxis": {"type": "log", "minor": {"tickcolor": "#888888"}}, "xaxis2": {"type": "log"}}

    def build():
        return declared_figure(data, layout)

    expected = json.loads(pio.to_json(label_log_axes(build()).to_dict(), validate=False))
    spec = json.loads(pio.to_json(figure_spec(build), validate=False))
    assert spec == expected
    assert spec["layout"]["yaxis"]["minor"] == {"tickcolor": "#888888", "ticks": "outside", "ticklen": 3,
                                                "showgrid": True}
    assert spec["layout"]["xaxis2"]["ticktext"] == ["0.5", "1", "2"]
    assert "minor" not in layout["xaxis2"] and isinstance(data[0]["x"], np.ndarray)  # the builder's dicts untouched


def test_outside_figure_spec_a_declared_figure_is_a_figure():
    fig = declared_figure([{"type": "bar", "x": pd.Series([1.0, 2.0]), "y": [3, 4]}], {"title": {"text": "t"}})
    assert isinstance(fig, go.Figure) and fig.layout.title.text == "t"
    assert isinstance(fig.data[0].x, np.ndarray)  # a numeric Series handed over as its array
