"""AppTest: the Trade-off curves page renders with defaults, runs a small sweep, answers the inverse
question, and turns impossible requests into friendly messages."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

pytest.importorskip("streamlit")
from apptest_tabs import open_plotted_values  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

APP = str(Path(__file__).resolve().parents[2] / "app.py")
PAGE = "views/tradeoff.py"
KINDS = ("selectbox", "select_slider", "slider", "radio", "number_input", "multiselect", "toggle", "checkbox")


def _page(query: dict[str, str | list[str]] | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    if query:  # a shared link opens this page directly
        at.switch_page(PAGE)
        at.query_params.update(query)
        at.run()
    else:
        at.run()
        at.switch_page(PAGE)
        at.run()
    assert not at.exception, at.exception
    return at


def _widget(at: AppTest, key: str):
    return next(w for kind in KINDS for w in getattr(at, kind) if w.key == key)


def _set(at: AppTest, **changes) -> AppTest:
    """Change widgets that are all on screen, then rerun once."""
    for key, value in changes.items():
        _widget(at, key).set_value(value)
    at.run()
    assert not at.exception, f"{changes}: {at.exception}"
    return at


def _run_sweep(at: AppTest) -> AppTest:
    at.button(key="to_run").click()
    at.run()
    assert not at.exception, at.exception
    return at


def _text(at: AppTest) -> str:
    return " ".join([m.value for m in at.markdown] + [c.value for c in at.caption] + [i.value for i in at.info]
                    + [w.value for w in at.warning])


@pytest.fixture(scope="module")
def shared() -> AppTest:
    """One session walked through several changes (each step checked), to keep the file fast."""
    return _page()


def test_defaults_show_closed_form_and_explain_the_button(shared):
    at = shared
    assert not at.error, [e.value for e in at.error]
    assert len(at.get("plotly_chart")) == 2  # error curves (closed form) + utility vs attack success
    text = _text(at)
    assert "Run sweep" in text and "No sweep yet" in text
    assert "crossovers" in text.lower() or "cross" in text
    assert _widget(at, "to_mechs").value == ["grr", "oue", "olh", "ss"]
    assert _widget(at, "to_trials").value == 20 and _widget(at, "to_users").value == 100_000
    assert _widget(at, "to_eps_points").value == 10
    assert not at.get("download_button")  # nothing to download before a sweep
    for key in ("to_mechs", "to_est", "to_axis", "to_eps_lo", "to_eps_hi", "to_eps_points", "to_trials", "to_users"):
        assert _widget(at, key).proto.query_param_key == key  # every control is bound to the URL


def test_small_sweep_shows_curves_table_and_downloads(shared):
    at = _set(shared, to_eps_points=3, to_trials=2)
    _run_sweep(at)
    assert not at.error, [e.value for e in at.error]
    assert len(at.get("plotly_chart")) == 2
    assert any("mean MSE" in df.value.columns for df in at.dataframe)
    results = next(df.value for df in at.dataframe if "mean MSE" in df.value.columns)
    assert len(results) == 4 * 2 * 3  # mechanisms × estimators × ε
    assert len(at.get("download_button")) == 2
    assert "No sweep yet" not in _text(at)
    # changing the metric re-plots the same sweep without running it again
    _set(at, to_metric="mae")  # (other widgets unchanged)
    assert any("mean MAE" in df.value.columns for df in at.dataframe)
    # changing the configuration invalidates the shown sweep until the next run
    _set(at, to_seed=5)
    assert "settings changed" in _text(at)


@pytest.mark.parametrize("changes", [
    {"to_inv_mech": "grr"},
    {"to_inv_measure": "sd"},
    {"to_inv_eps": 2.0},
    {"to_inv_n": 1_000_000},
])
def test_inverse_question_widgets(shared, changes):
    at = _set(shared, **changes)
    assert not at.error, [e.value for e in at.error]
    text = _text(at)
    assert "Checked by simulation" in text
    assert "Users needed" in " ".join(h.value for h in at.subheader)


def test_impossible_target_is_a_friendly_message(shared):
    at = _set(shared, to_inv_measure="mse", to_inv_n=1000)
    _set(at, to_inv_target_mse=1e-10)
    assert not at.error
    assert any("Unreachable" in w.value and "ε = 10" in w.value for w in at.warning)


def test_no_mechanism_is_an_error():
    at = _set(_page(), to_mechs=[])
    assert any("at least one mechanism" in e.value for e in at.error)
    assert not at.get("plotly_chart")


def test_sweep_along_users_with_exact_engine():
    at = _set(_page(), to_axis="users", to_trials=2, to_engine="exact", to_mechs=["grr", "oue"])
    _set(at, to_n_lo=1000, to_n_hi=5000, to_n_points=2)
    _run_sweep(at)
    assert not at.error, [e.value for e in at.error]
    assert len(at.get("plotly_chart")) == 2
    assert "falls as 1/n" in _text(at)


def test_domain_axis_needs_synthetic_or_numerical_data():
    at = _set(_page(), to_axis="d")
    assert any("cannot vary" in e.value for e in at.error)  # the default column (flights dest) is categorical
    _set(at, to_data_source="Synthetic", to_d_lo=4, to_d_hi=64, to_d_points=3, to_trials=2)
    _set(at, to_data_d=50)
    assert not at.error, [e.value for e in at.error]
    _run_sweep(at)
    assert len(at.get("plotly_chart")) == 2
    assert "regenerated" in _text(at)
    _set(at, to_data_synthetic="mixture")  # its formula travels along d too (it was dropped: an error, no sweep)
    assert not at.error, [e.value for e in at.error]
    _run_sweep(at)
    assert not at.error and len(at.get("plotly_chart")) == 2 and "regenerated" in _text(at)
    _set(at, to_data_source="Sample data")
    _set(at, to_data_column="distance")  # a numerical column is re-bucketized for each d
    assert not at.error, [e.value for e in at.error]
    assert "re-bucketized" in _text(at) and len(at.get("plotly_chart")) == 2


def test_long_sweep_needs_confirmation():
    at = _set(_page(), to_engine="exact", to_users=10**8, to_trials=500)
    assert any("would take" in w.value for w in at.warning)
    assert at.button(key="to_run").disabled
    confirm = next(c for c in at.checkbox if c.key.startswith("to_confirm"))
    confirm.check()
    at.run()
    assert not at.button(key="to_run").disabled
    _set(at, to_seed=3)  # another configuration needs its own confirmation
    assert at.button(key="to_run").disabled


def test_url_restores_controls():
    at = _page({"to_trials": "3", "to_mechs": ["GRR (k-RR)", "OUE"]})  # selections carry their labels
    assert _widget(at, "to_trials").value == 3
    assert _widget(at, "to_mechs").value == ["grr", "oue"]


def test_numerical_mechanisms_swept_over_epsilon_on_a_numerical_column():
    """Issue 9: numerical ε sweeps on the Trade-off page — SW + EMS and CFO-binning on dep_time_hours, each
    configuration seeded by what it is, summarised with bands, in the column's units."""
    at = _page()
    _set(at, to_data_column="dep_time_hours", to_eps_points=3, to_trials=2)
    assert any(h.value == "Numerical mechanisms against ε" for h in at.header)
    assert _widget(at, "to_num_methods").value == ["sw", "cfo-binning"]
    _set(at, to_executor="serial")
    next(b for b in at.button if b.key == "to_num_run").click()
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    open_plotted_values(at)
    table = next(df.value for df in at.dataframe if "ci_low" in df.value.columns and "trials" in df.value.columns
                 and set(df.value["mechanism"]) == {"sw", "cfo-binning"})
    assert len(table) == 2 * 3 and (table["mean"] > 0).all()
    assert table["ci_low"].le(table["mean"]).all() and table["mean"].le(table["ci_high"]).all()
    assert any(c.key == "to_num_fig" for c in at.get("plotly_chart"))
    _set(at, to_num_metric="ks")  # another metric of the same sweep: no rerun needed
    assert any(c.key == "to_num_fig" for c in at.get("plotly_chart"))


def test_a_link_to_a_shown_sweep_shows_it_again():
    """Issue 11 item 7: after a sweep, the URL carries its signature; a new session opened from that URL (with the
    same settings, which the URL carries too) reruns it without a click — same seed, the same table — and does
    not once a setting differs."""
    at = _set(_page(), to_eps_points=3, to_trials=2)
    _run_sweep(at)
    shown = next(df.value for df in at.dataframe if "mean MSE" in df.value.columns)
    flag = at.query_params["to_sweep"]
    again = _set(_page({"to_sweep": flag}), to_eps_points=3, to_trials=2)
    assert not again.exception
    reopened = next(df.value for df in again.dataframe if "mean MSE" in df.value.columns)
    pd.testing.assert_frame_equal(shown.reset_index(drop=True), reopened.reset_index(drop=True))
    other = _set(_page({"to_sweep": flag}), to_eps_points=3, to_trials=2, to_seed=99)
    assert "No sweep yet" in _text(other)
