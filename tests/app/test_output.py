"""Figures shared by every session (views/output.py ``cached_figure``): built once per key, their log axes
labelled as ``show_figure`` labels any figure, and never changed by showing them — not even on a projector, which
restyles a copy."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest  # noqa: E402


def _script() -> None:
    import plotly.graph_objects as go
    import plotly.io
    import streamlit as st

    from views import output

    output._built_figure.clear()
    calls = []

    def build() -> go.Figure:
        calls.append(1)
        return go.Figure(go.Scatter(x=[1, 2, 3], y=[1e-4, 1e-2, 1.0]), layout={"yaxis_type": "log"})

    first = output.cached_figure(("test_output", 1), build)
    again = output.cached_figure(("test_output", 1), build)
    other = output.cached_figure(("test_output", 2), build)
    before = go.Figure(first).to_json()  # from its traces and layout
    output.show_figure(first, "shared_chart")
    st.session_state["facts"] = {"same": first is again, "other": other is not first, "builds": len(calls),
                                 "unchanged": go.Figure(first).to_json() == before, "dtick": first.layout.yaxis.dtick,
                                 "frozen": plotly.io.to_json(first.to_dict()) == before}


@pytest.mark.parametrize("present", [False, True])
def test_a_cached_figure_is_built_once_labelled_and_never_changed(present):
    from ldp.viz.style import PROJECTOR_FONT

    at = AppTest.from_function(_script, default_timeout=30)
    if present:
        at.query_params["present"] = "true"
    at.run()
    assert not at.exception
    facts = at.session_state["facts"]
    assert facts["same"] and facts["other"] and facts["builds"] == 2  # one build per key
    assert facts["dtick"] == 1  # four decades: one labelled tick per power of ten, as show_figure labels
    assert facts["unchanged"]  # showing it (on a projector too) left the shared figure as it was
    assert facts["frozen"]  # its to_dict, computed once, is the figure's
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert spec["layout"]["yaxis"]["dtick"] == 1
    assert spec["layout"].get("font", {}).get("size") == (PROJECTOR_FONT["body"] if present else None)


def test_a_cached_csv_is_the_tables_csv_made_once_per_key_and_settings():
    import pandas as pd

    from views import output

    output._csv_once.clear()
    table = pd.DataFrame({"value": ["=1+1", "JFK"], "estimate": [-0.1, 0.2]})
    config = {"dataset": "dest", "pp_eps": 0.5, "pp_seed": 3}
    assert output.cached_csv(("test_output", 1), table, config) == output.csv_bytes(output.with_context(table, config))
    assert output.cached_csv(("test_output", 1), table) == output.csv_bytes(table)
    # the key stands for the table: the same key is not written again, other settings are
    assert output.cached_csv(("test_output", 1), table.iloc[:1], config) == output.cached_csv(("test_output", 1), table,
                                                                                             config)
    assert b"0.25" in output.cached_csv(("test_output", 1), table, {**config, "pp_eps": 0.25})


def test_the_results_csv_is_written_on_the_click_with_its_settings(monkeypatch):
    """Issue 21 item 7: a rerun that draws the download buttons no longer writes the results CSV (≈ 7 ms of a
    0.1 s budget for a few thousand rows): the button gets a callable, which writes the same CSV — the settings as
    leading columns, formulas escaped — when it is clicked."""
    import pandas as pd

    from views import output

    given = []

    class Column:
        def download_button(self, label, data, *args, **kwargs):
            given.append((label, data))

    monkeypatch.setattr(output.st, "columns", lambda n: (Column(), Column()))
    table = pd.DataFrame({"value": ["a", "=1+1"], "estimate": [0.25, 0.75]})
    config = {"dataset": "flights", "pp_eps": 0.5, "pp_seed": 3}
    output.download_buttons(table, config, key="t")
    (label, results), (_, configuration) = given
    assert label == "Download results (CSV)" and callable(results) and not callable(configuration)
    written = results()
    assert written == output.csv_bytes(output.with_context(table, config))
    assert b"eps" in written and b"0.5" in written and b"'=1+1" in written
