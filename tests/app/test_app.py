"""AppTest: the minimal dashboard runs with defaults and after changing its main widgets."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest  # noqa: E402

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def _run(**changes) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    for key, value in changes.items():
        widget = next(w for kind in ("selectbox", "slider", "radio", "number_input", "multiselect")
                      for w in getattr(at, kind) if w.key == key)
        widget.set_value(value)
        at.run()
    return at


def test_defaults_render_chart_and_metrics():
    at = _run()
    assert not at.exception
    assert len(at.get("plotly_chart")) == 1
    assert len(at.dataframe) == 1
    assert "typically off by" in at.markdown[0].value


@pytest.mark.parametrize("changes", [
    {"epsilon": 0.3}, {"mechanism": "olh"}, {"mechanism": "l-sue"}, {"engine": "exact", "users": 5000},
    {"source": "Synthetic"}, {"column": "dest"}, {"estimators": ["norm-sub"]},
])
def test_changes_rerun_without_exception(changes):
    at = _run(**changes)
    assert not at.exception
    assert len(at.get("plotly_chart")) == 1


def test_no_estimator_is_a_friendly_error():
    at = _run(estimators=[])
    assert not at.exception
    assert "at least one estimator" in at.error[0].value
