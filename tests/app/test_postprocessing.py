"""AppTest: the Post-processing lab renders with defaults and after changing its main widgets; the
advisor is announced, never faked; invalid inputs get a friendly error."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest  # noqa: E402

import ldp  # noqa: E402

APP = str(Path(__file__).resolve().parents[2] / "app.py")
PAGE = "pages/postprocessing.py"
KINDS = ("selectbox", "slider", "select_slider", "radio", "number_input", "multiselect")
ADVISOR = "The advisor (consistency paper §V.D) arrives with the estimators issue"
# The change tests start from two fast estimators (set through the URL) so that they do not re-run
# the iterative ones (IBU) on every change; the defaults test runs every registered estimator.
FAST = {"pp_est": ['"mi"', '"norm-sub"']}


def widget(at: AppTest, key: str):
    for kind in KINDS:
        for w in getattr(at, kind):
            if w.key == key:
                return w
    raise KeyError(key)


def open_page(query: dict[str, object] | None = None, **changes) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    at.switch_page(PAGE)
    at.run()
    for key, value in changes.items():
        widget(at, key).set_value(value)
        at.run()
    return at


def assert_full_page(at: AppTest) -> None:
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    assert len(at.get("plotly_chart")) == 4  # bias, variance, top-k, set-value
    assert any(ADVISOR in i.value for i in at.info)
    assert len(at.dataframe) >= 6  # four plotted-value tables, the summary and the best-per-task table


def test_defaults_render_every_section():
    at = open_page()
    assert_full_page(at)
    assert widget(at, "pp_data_column").value == "dest"
    names = ldp.ESTIMATORS.names()  # OLH is pure: every registered estimator applies
    assert widget(at, "pp_est").value == names  # every registered estimator by default
    assert widget(at, "pp_trials").value == 50
    assert widget(at, "pp_engine").value == "fast"
    shown = [ldp.ESTIMATORS.get(e).display_name for e in names]
    summary = at.dataframe[-2].value
    assert list(summary["estimator"]) == shown
    best = at.dataframe[-1].value
    assert len(best) == 3 and set(best["best"]) <= set(shown)
    assert len(at.get("download_button")) == 3
    assert '"olh"' in str(at.query_params["pp_mech"])  # the URL mirrors the widgets


@pytest.mark.parametrize("changes", [
    {"pp_mech": "grr", "pp_eps": 0.5},
    {"pp_mech": "l-osue"},
    {"pp_mech": "she"},
    {"pp_est": ["norm-sub"], "pp_trials": 10},
    {"pp_k": 3, "pp_rho": 50},
    {"pp_data_source": "Synthetic"},
    {"pp_engine": "exact", "pp_users": 2000, "pp_trials": 5},
])
def test_changes_rerun_without_exception(changes):
    assert_full_page(open_page(FAST, **changes))


def test_single_estimator_has_no_runner_up():
    at = open_page(FAST, pp_est=["mi"])
    assert_full_page(at)
    assert set(at.dataframe[-1].value["runner-up"]) == {"—"}


def test_no_estimator_is_a_friendly_error():
    at = open_page(FAST, pp_est=[])
    assert not at.exception
    assert "at least one estimator" in at.error[0].value
    assert len(at.get("plotly_chart")) == 0


def test_a_long_run_warns_and_waits_for_the_button():
    at = open_page(FAST, pp_engine="exact")  # 50 trials of 10^6 users on the exact engine
    assert not at.exception
    assert "may take about" in at.warning[0].value
    assert any(b.key == "pp_run" for b in at.button)
    assert len(at.get("plotly_chart")) == 0


def test_url_state_is_restored():
    at = open_page(query={"pp_mech": '"grr"', "pp_k": "4", "pp_rho": "30", "pp_est": '"norm-sub"'})
    assert_full_page(at)
    assert widget(at, "pp_mech").value == "grr"
    assert widget(at, "pp_k").value == 4
    assert widget(at, "pp_rho").value == 30
    assert widget(at, "pp_est").value == ["norm-sub"]


def test_a_newly_registered_estimator_appears_automatically(monkeypatch):
    from ldp.estimators.base import Estimator

    class BasePos(Estimator):
        name = "test-base-pos"
        display_name = "Base-Pos (test)"
        description = "MI with negative estimates set to 0 (test only)"
        paper = "consistency paper §IV-A"

        def _estimate(self, mechanism, counts, n):
            return np.maximum(mechanism.estimate(counts, n), 0.0)

    monkeypatch.setitem(ldp.ESTIMATORS._items, BasePos.name, BasePos)
    at = open_page({"pp_trials": "4"})
    assert_full_page(at)
    assert widget(at, "pp_est").value[-1] == "test-base-pos"
    assert list(at.dataframe[-2].value["estimator"])[-1] == "Base-Pos (test)"


def test_too_many_trials_for_the_domain_is_a_friendly_error():
    at = open_page({**FAST, "pp_data_source": '"Synthetic"', "pp_data_d": "2048", "pp_trials": "2000"})
    assert not at.exception
    assert "trials" in at.error[0].value and "at most" in at.error[0].value
