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


def _download_script() -> None:
    import json

    import pandas as pd
    import streamlit as st
    from streamlit import runtime

    from views import output

    table = pd.DataFrame({"value": ["=1+1", "JFK"], "estimate": [-0.1, 0.2]})
    config = {"dataset": "dest", "pp_mech": "oue", "pp_eps": 0.5, "pp_seed": 3}
    made = []
    real = output.csv_bytes
    output.csv_bytes = lambda t: made.append(1) or real(t)
    try:
        output.download_buttons(table, config, key="t")
        written = len(made)
        manager = runtime.get_instance().media_file_mgr
        stored = len(manager._storage._files_by_id)  # nothing put in the media store by the rerun
        clicked = []
        for file_id in list(manager._deferred_callables):  # the CSV and the JSON, registered for the click
            url = manager.execute_deferred(file_id)  # what a click does
            clicked.append(manager._storage.get_file(url.rsplit("/", 1)[-1].split(".")[0]).content)
    finally:
        output.csv_bytes = real
    st.session_state["facts"] = {"written on the rerun": written, "stored on the rerun": stored,
                                 "clicked": sorted(clicked),
                                 "expected": sorted([real(output.with_context(table, config)),
                                                     json.dumps(config, indent=2).encode()])}


def test_the_results_csv_is_written_when_the_button_is_clicked():
    """A rerun that draws the download buttons writes no CSV and stores no JSON (a change of ε made both, for nobody
    to download); a click runs the deferred callable, which writes the table with its settings, or the
    configuration, as before."""
    at = AppTest.from_function(_download_script, default_timeout=30)
    at.run()
    assert not at.exception, at.exception
    facts = at.session_state["facts"]
    assert facts["written on the rerun"] == 0 and facts["stored on the rerun"] == 0
    assert facts["clicked"] == facts["expected"] and any(b"'=1+1" in c for c in facts["clicked"])
    assert [b.proto.label for b in at.get("download_button")] == ["Download results (CSV)",
                                                                 "Download configuration (JSON)"]
