"""AppTest: the Numerical distributions page renders CFO-binning in real units with the numerical
metrics, compares it with the registered numerical mechanisms (Square Wave with EMS by default), says
which parts of the numerical issue are present and which are to come, and turns invalid inputs into
friendly errors."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest  # noqa: E402

from ldp.numerical import NUMERICAL_MECHANISMS  # noqa: E402

APP = str(Path(__file__).resolve().parents[2] / "app.py")
PAGE = "views/numerical.py"
KINDS = ("selectbox", "slider", "select_slider", "radio", "number_input", "multiselect")
RANGE = ("num_data_lo", "num_data_hi")


def widget(at: AppTest, key: str):
    for kind in KINDS:
        for w in getattr(at, kind):
            if w.key == key:
                return w
    raise KeyError(key)


def open_page(**changes) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page(PAGE)
    at.run()
    for key, value in changes.items():
        widget(at, key).set_value(value)
        at.run()
    return at


def metrics_table(at: AppTest):
    return next(df.value for df in at.dataframe if "metric" in getattr(df.value, "columns", []))


def compare_table(at: AppTest):
    return next(df.value for df in at.dataframe if "metric" in getattr(df.value, "columns", [])
                and "mean over trials" not in df.value.columns)


def assert_full_page(at: AppTest, charts: int = 4) -> None:
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    assert len(at.get("plotly_chart")) == charts  # CFO density and CDF, then the numerical overlays
    info = " ".join(i.value for i in at.info)
    assert "Available now" in info and "Square Wave (SW) (EMS, EM)" in info
    if "hh" not in NUMERICAL_MECHANISMS:
        assert "HH-ADMM" in info.split("Still to come")[1]


def test_defaults_render_in_real_units():
    at = open_page()
    assert_full_page(at)
    assert widget(at, "num_data_column").value == "dep_time_hours"
    assert (widget(at, RANGE[0]).value, widget(at, RANGE[1]).value) == (0.0, 24.0)
    table = metrics_table(at)
    assert list(table["metric"])[:5] == ["Wasserstein-1 distance", "Kolmogorov–Smirnov distance",
                                         "Absolute error of the mean", "Absolute error of the variance",
                                         "Mean absolute error of the deciles"]
    assert sum("Range queries" in m for m in table["metric"]) == 2  # α = 0.1 and 0.4
    assert table.loc[0, "unit"] == "hours" and table.loc[3, "unit"] == "hours²"
    assert "CFO-binning" in " ".join(m.value for m in at.markdown)
    assert len(at.get("download_button")) == 2


def test_numerical_mechanisms_compared_by_default():
    at = open_page()
    assert_full_page(at)
    assert widget(at, "num_nmechs").value == ["sw"] and widget(at, "num_rec_sw").value == ["ems"]
    table = compare_table(at)
    assert list(table.columns) == ["metric", "unit", "CFO-binning (OUE) · MI + Norm-Sub", "Square Wave (SW) · EMS"]
    assert table.loc[0, "unit"] == "hours" and (table.iloc[:, 2:] >= 0).all().all()
    overlay = at.dataframe[2].value  # the numerical density overlay's plotted values
    assert "Square Wave (SW) · EMS density" in overlay.columns and len(overlay) == 48


def test_change_mechanisms_reconstructions_and_epsilon():
    at = open_page(num_nmechs=["sw", "sw-discrete"], num_rec_sw=["ems", "em"], num_eps=2.0, num_trials=3)
    assert_full_page(at)
    assert widget(at, "num_rec_sw-discrete").value == ["ems"]
    assert list(compare_table(at).columns)[2:] == ["CFO-binning (OUE) · MI + Norm-Sub", "Square Wave (SW) · EMS",
                                                   "Square Wave (SW) · EM",
                                                   "Discrete Square Wave (SW, bucketize first) · EMS"]
    widget(at, "num_rec_sw-discrete").set_value(["em"])
    at.run()
    assert_full_page(at)
    assert "Discrete Square Wave (SW, bucketize first) · EM" in compare_table(at).columns


def test_no_numerical_mechanism_keeps_cfo_binning_only():
    at = open_page(num_nmechs=[])
    assert_full_page(at, charts=2)
    assert any("No numerical mechanism chosen" in c.value for c in at.caption)


@pytest.mark.parametrize("changes", [
    {"num_mech": "grr", "num_eps": 0.5},
    {"num_mech": "olh"},
    {"num_data_bins": 16},
    {RANGE[0]: 5.0, RANGE[1]: 22.0},
    {"num_alpha": [0.05, 0.2, 0.5]},
    {"num_users": 5000, "num_trials": 3, "num_seed": 9},
    {"num_engine": "exact", "num_users": 3000, "num_trials": 2, "num_rec_sw": ["em"]},
    {"num_data_sample": "weather"},
    {"num_data_source": "Synthetic", "num_data_synthetic": "gaussian"},
])
def test_changes_rerun_without_exception(changes):
    at = open_page(**changes)
    assert_full_page(at)
    if "num_alpha" in changes:
        assert sum("Range queries" in m for m in metrics_table(at)["metric"]) == 3


def test_bins_and_range_set_the_real_unit_edges():
    at = open_page(num_data_bins=16, **{RANGE[0]: 5.0, RANGE[1]: 21.0})
    assert_full_page(at)
    density = at.dataframe[0].value  # the density figure's plotted values
    assert len(density) == 16
    assert density["from (hours)"].iloc[0] == 5.0 and density["to (hours)"].iloc[-1] == 21.0
    assert density["to (hours)"].iloc[0] == 6.0


def test_url_state_is_restored():
    at = AppTest.from_file(APP, default_timeout=60)
    for key, value in {"num_mech": '"grr"', "num_data_bins": "24", "num_alpha": "0.2", "num_data_lo": "2.0",
                       "num_data_hi": "20.0", "num_nmechs": '["sw", "nope"]', "num_rec_sw": '"em"'}.items():
        at.query_params[key] = value
    at.switch_page(PAGE)
    at.run()
    assert_full_page(at)
    assert widget(at, "num_mech").value == "grr"
    assert widget(at, "num_data_bins").value == 24
    assert widget(at, "num_alpha").value == [0.2]
    assert widget(at, "num_nmechs").value == ["sw"] and widget(at, "num_rec_sw").value == ["em"]
    assert (widget(at, RANGE[0]).value, widget(at, RANGE[1]).value) == (2.0, 20.0)


def test_weather_temperature_is_in_fahrenheit():
    at = open_page(num_data_sample="weather")
    assert widget(at, "num_data_column").value == "temp"
    assert metrics_table(at).loc[0, "unit"] == "°F"


def test_no_alpha_drops_the_range_queries():
    at = open_page(num_alpha=[])
    assert_full_page(at)
    assert not any("Range queries" in m for m in metrics_table(at)["metric"])


def test_range_to_not_above_from_is_a_friendly_error():
    at = open_page(**{RANGE[1]: 0.0})
    assert not at.exception
    assert "'to' > 'from'" in at.error[0].value
    assert len(at.get("plotly_chart")) == 0


def test_categorical_column_is_a_friendly_error():
    at = open_page(num_data_column="carrier")
    assert not at.exception
    assert "categorical" in at.error[0].value and "numerical column" in at.error[0].value


def test_only_one_time_mechanisms_are_offered():
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["num_mech"] = '"l-grr"'  # a hand-edited URL falls back to the default one-time mechanism
    at.switch_page(PAGE)
    at.run()
    assert not at.exception
    picker = next(w for w in at.selectbox if w.key == "num_mech")
    assert picker.value == "oue"
    assert all(not o.startswith("Longitudinal") for o in picker.options)
