"""AppTest: the Numerical distributions page leads with the square-wave paper's method (SW + EMS, with the b it
uses on the mutual-information curve), in real units with the numerical metrics, compares it with CFO-binning and
any chosen numerical mechanism, reaches every parameter, and turns invalid inputs into friendly errors."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("streamlit")
from apptest_tabs import open_plotted_values  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

APP = str(Path(__file__).resolve().parents[2] / "app.py")
PAGE = "views/numerical.py"
KINDS = ("selectbox", "slider", "select_slider", "radio", "number_input", "multiselect")
RANGE = ("num_data_lo", "num_data_hi")
#: The lazy sections (the methods' overlays, the mean and variance) opened through the URL, as a link does: closed,
#: they compute nothing (test_lazy_sections_are_closed_by_default); the other tests read the whole page.
OPEN = {"num_cmp_open": "true", "num_mean_open": "true"}


def widget(at: AppTest, key: str):
    for kind in KINDS:
        for w in getattr(at, kind):
            if w.key == key:
                return w
    raise KeyError(key)


def open_page(**changes) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update(OPEN)
    at.switch_page(PAGE)
    at.run()
    for key, value in changes.items():
        widget(at, key).set_value(value)
        at.run()
    return at


def table_with(at: AppTest, column: str):
    """The dataframe (as pandas) that has ``column``."""
    return next(df.value for df in at.dataframe if column in getattr(df.value, "columns", []))


def metrics_table(at: AppTest):
    return next(df.value for df in at.dataframe if "metric" in getattr(df.value, "columns", []))


def compare_table(at: AppTest):
    return next(df.value for df in at.dataframe if "metric" in getattr(df.value, "columns", [])
                and "mean over trials" not in df.value.columns)


def assert_full_page(at: AppTest, charts: int = 6) -> None:
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    # SW + EMS density and CDF, the b curve, the comparison overlays (density, CDF), the mean
    assert len(at.get("plotly_chart")) == charts
    shown = " ".join(str(x.value) for x in [*at.info, *at.caption, *at.markdown])
    for roadmap in ("Still to come", "still to come", "Available now", "arrive with", "numerical issue"):
        assert roadmap not in shown  # no roadmap text reaches a user


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
    shown = " ".join(m.value for m in at.markdown)
    assert shown.index("Square Wave (SW) · EMS — b = 0.2561") < shown.index("CFO-binning")  # SW + EMS leads
    assert len(at.get("download_button")) == 2


def test_sw_ems_leads_and_cfo_binning_is_compared_by_default():
    at = open_page()
    assert_full_page(at)
    assert widget(at, "num_nmechs").value == []
    table = compare_table(at)
    assert list(table.columns) == ["metric", "unit", "Square Wave (SW) · EMS", "CFO-binning (OUE) · MI + Norm-Sub"]
    assert table.loc[0, "unit"] == "hours" and (table.iloc[:, 2:] >= 0).all().all()
    open_plotted_values(at)
    curve = table_with(at, "bound (nats)")  # the mutual-information curve's plotted values
    assert list(curve.columns) == ["b", "bound (nats)"]
    assert curve["b"].iloc[int(curve["bound (nats)"].idxmax())] == pytest.approx(0.2561, rel=0.03)  # the paper's b
    overlay = table_with(at, "Square Wave (SW) · EMS density")  # the comparison's density overlay
    assert "Square Wave (SW) · EMS density" in overlay.columns and len(overlay) == 48


def test_lazy_sections_are_closed_by_default():
    """The methods' density and CDF overlays and the mean and variance (its own SR or PM collection) sit in lazy
    expanders, closed by default: an ε change computes neither; opened (as a click does) they draw."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page(PAGE)
    at.run()
    assert_full_page(at, charts=3)  # SW + EMS density and CDF, the b curve
    assert [c.key for c in at.get("plotly_chart")] == ["num_density", "num_cdf", "num_b"]
    labels = [e.label for e in at.main.expander]
    assert any(label.startswith("Methods compared: density and CDF") for label in labels)
    assert any(label.startswith("Mean and variance of the column") for label in labels)
    assert not any(w.key == "num_mean_mech" for w in at.radio)  # the mean's control is drawn only while open
    assert list(compare_table(at).columns)[2:] == ["Square Wave (SW) · EMS", "CFO-binning (OUE) · MI + Norm-Sub"]
    at.session_state["num_cmp_open"] = True
    at.session_state["num_mean_open"] = True
    at.run()
    assert_full_page(at)
    assert [c.key for c in at.get("plotly_chart")][3:] == ["num_cmp_density", "num_cmp_cdf", "num_mean_fig"]


def test_sw_b_from_the_advanced_section_reaches_the_run_and_the_curve():
    at = open_page()
    b = next(t for t in at.text_input if t.key == "num_lead_sw_b")
    assert b.proto.query_param_key == "num_lead_sw_b"
    b.set_value("0.05")
    at.run()
    assert_full_page(at)
    assert any("b = 0.05 of the range" in m.value and "set under Advanced" in m.value for m in at.markdown)
    next(t for t in at.text_input if t.key == "num_lead_sw_b").set_value("-1")
    at.run()
    assert not at.exception
    assert any("b must be" in e.value for e in at.error), [e.value for e in at.error]


def test_change_mechanisms_reconstructions_and_epsilon():
    at = open_page(num_nmechs=["sw", "sw-discrete"], num_rec_sw=["em"], num_eps=2.0, num_trials=3)
    assert_full_page(at)
    assert widget(at, "num_rec_sw-discrete").value == ["ems"]
    assert list(compare_table(at).columns)[2:] == ["Square Wave (SW) · EMS", "CFO-binning (OUE) · MI + Norm-Sub",
                                                   "Square Wave (SW) · EM",
                                                   "Discrete Square Wave (SW, bucketize first) · EMS"]
    widget(at, "num_rec_sw-discrete").set_value(["em"])
    at.run()
    assert_full_page(at)
    assert "Discrete Square Wave (SW, bucketize first) · EM" in compare_table(at).columns


def test_hierarchy_with_its_parameters_joins_the_comparison():
    at = open_page(num_nmechs=["hh"], num_trials=2)
    assert_full_page(at)
    assert widget(at, "num_p_hh_branching").value == 4
    widget(at, "num_p_hh_branching").set_value(2)
    at.run()
    assert_full_page(at)
    assert any(c.startswith("Hierarchical") for c in compare_table(at).columns)


@pytest.mark.parametrize("changes", [
    {"num_mech": "grr", "num_eps": 0.5},
    {"num_mech": "olh"},
    {"num_data_bins": 16},
    {RANGE[0]: 5.0, RANGE[1]: 22.0},
    {"num_alpha": [0.05, 0.2, 0.5]},
    {"num_users": 5000, "num_trials": 3, "num_seed": 9},
    {"num_engine": "exact", "num_users": 3000, "num_trials": 2, "num_nmechs": ["sw"], "num_rec_sw": ["em"]},
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
    density = table_with(open_plotted_values(at), "from (hours)")  # the density figure's plotted values
    assert len(density) == 16
    assert density["from (hours)"].iloc[0] == 5.0 and density["to (hours)"].iloc[-1] == 21.0
    assert density["to (hours)"].iloc[0] == 6.0


def test_url_state_is_restored():
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update(OPEN)
    # a selection's URL value is the label it shows; an unknown one ("nope") is dropped
    for key, value in {"num_mech": "GRR (k-RR)", "num_data_bins": "24", "num_alpha": "0.2", "num_data_lo": "2.0",
                       "num_data_hi": "20.0", "num_nmechs": ["Square Wave (SW)", "nope"], "num_rec_sw": "EM"}.items():
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
    at.query_params["num_mech"] = "L-GRR"  # a hand-edited URL falls back to the default one-time mechanism
    at.switch_page(PAGE)
    at.run()
    assert not at.exception
    picker = next(w for w in at.selectbox if w.key == "num_mech")
    assert picker.value == "oue"
    import ldp

    one_time = [cls.display_name for cls in ldp.mechanisms_of("frequency") if cls.collection == "one-time"]
    assert picker.options == one_time


def mean_table(at: AppTest):
    return next(df.value for df in at.dataframe if "closed-form SE" in getattr(df.value, "columns", []))


@pytest.mark.parametrize("mech", ["pm", "sr", "gaussian-bits"])  # the last: (ε, δ), k noisy bits per report
def test_mean_and_variance_section(mech):
    import numpy as np

    import ldp

    at = open_page(num_trials=10, num_mean_mech=mech) if mech != "pm" else open_page(num_trials=10)
    assert_full_page(at)
    assert widget(at, "num_mean_mech").value == mech
    table = mean_table(at)
    assert list(table["quantity"]) == ["mean", "variance"] and list(table["unit"]) == ["hours", "hours²"]
    mean, var = table.iloc[0], table.iloc[1]
    # closed-form SE of the mean: 12 h · √(worst-case Var[ṽ])/√n is an upper bound, the smallest (v = 0 or
    # |v| = 1) a lower one (n = 100 000 users, range 0–24 h); the average of 10 trials is within 4·SE/√10 of the truth
    eps = float(widget(at, "num_eps").value)
    cls = ldp.get_mechanism(mech, eps)
    per_user = cls.variance(np.array([-1.0, 0.0, 1.0]))  # Var[ṽ | v] is monotone in v² for SR, PM and the bits
    lo, hi = 12 * np.sqrt(per_user.min() / 1e5), 12 * np.sqrt(per_user.max() / 1e5)
    assert lo <= mean["closed-form SE"] <= hi
    assert abs(mean["average estimate"] - mean["true"]) < 4 * mean["closed-form SE"] / np.sqrt(10)
    assert 12 < mean["true"] < 16 and 0 < var["true"] < 50  # departures: mean ≈ 13.7 h
    # the variance's split estimate: SD ≤ 12²·2·√(worst Var/50 000) (≈ 4 h² at ε = 1); allow 5 SD
    assert abs(var["average estimate"] - var["true"]) < 5 * 144 * 2 * np.sqrt(cls.worst_case_variance() / 5e4)
    info = " ".join(i.value for i in at.info)
    assert "ε ≈ 1.29" in info and "Stochastic Rounding is better below" in info
    assert "only (ε, δ)-LDP" in info and "Gaussian (ε, δ) 55.7 (δ = 1e-05)" in info  # σ² = 7.4613² at ε = 1
    figure_values = next(df.value for df in at.dataframe if "closed-form SE" in df.value.columns)
    assert len(figure_values) == 2


def test_mean_section_names_the_better_mechanism_for_epsilon():
    at = open_page(num_eps=0.5, num_trials=3)
    assert_full_page(at)
    info = " ".join(i.value for i in at.info)
    assert "variance is Stochastic Rounding (SR)'s" in info
    widget(at, "num_eps").set_value(2.0)
    at.run()
    info = " ".join(i.value for i in at.info)
    assert "variance is Piecewise Mechanism (PM)'s" in info and "Hybrid Mechanism (HM) 1.04" in info


def test_more_bins_than_distinct_values_is_warned():
    at = open_page(num_data_column="distance", num_data_bins=256, num_trials=2)  # 213 distinct distances
    assert not at.exception and not at.error
    warned = [w.value for w in at.warning if "distinct values" in w.value]
    assert len(warned) == 1 and "256 buckets" in warned[0] and "213 distinct values" in warned[0]
    widget(at, "num_data_bins").set_value(48)
    at.run()
    assert not at.exception and not any("distinct values" in w.value for w in at.warning)


def test_mean_figure_and_table_are_pure():
    import numpy as np

    from ldp.viz.distributions import mean_trials_figure, mean_variance_table

    fig = mean_trials_figure(np.array([1.0, 1.2, 0.9]), 1.0, 0.1, name="x", unit="h", title="t")
    assert len(fig.data) == 3 and fig.layout.title.text == "t"
    assert fig.layout.xaxis.title.text == "trial" and fig.layout.yaxis.title.text == "mean of x (h)"
    assert fig.data[2].y[0] == pytest.approx(1.0 - 0.196)
    table = mean_variance_table(1.0, 4.0, np.array([1.0, 1.2, 0.9]), np.array([3.0, 5.0, 4.5]), 0.1, "h")
    assert table.loc[0, "mean absolute error"] == pytest.approx(0.1)
    assert table.loc[0, "RMSE"] == pytest.approx(np.sqrt(0.05 / 3))
    assert table.loc[1, "average estimate"] == pytest.approx(12.5 / 3) and table.loc[1, "unit"] == "h²"
    assert np.isnan(table.loc[1, "closed-form SE"])


def test_a_link_cannot_start_a_long_run():
    """Issue 10 item 3: a URL could start a 600-second run (num_users=1e12&num_trials=1e9). Now a run estimated
    above 10 s waits for a button, and one above 3 minutes is refused."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"num_users": "1000000000", "num_trials": "500", "num_engine": "exact"})
    at.switch_page(PAGE)
    at.run()
    assert not at.exception
    assert at.error and "minutes" in at.error[0].value and not at.get("plotly_chart")
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"num_users": "2000000", "num_trials": "5", "num_engine": "exact"})  # ≈ 20 s
    at.switch_page(PAGE)
    at.run()
    assert not at.exception and not at.get("plotly_chart")
    assert any(b.key == "num_run" for b in at.button)  # waits for the button


def test_shared_figures_are_not_restyled_by_a_projector_session():
    """The page's figures are built once per distinct input for every session (views.output.share_figure): a
    session on a projector restyles its own copy, so the next plain session's charts keep the normal type and the
    same spec as the first one's."""
    import json

    from ldp.viz.style import PROJECTOR_FONT

    def specs(at: AppTest) -> list[dict]:
        return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]

    first = specs(open_page())
    projector = AppTest.from_file(APP, default_timeout=60)
    projector.query_params.update({**OPEN, "present": "true"})
    projector.switch_page(PAGE)
    projector.run()
    assert not projector.exception
    big = specs(projector)
    assert len(big) == len(first) == 6
    assert all(s["layout"]["font"]["size"] == PROJECTOR_FONT["body"] for s in big)
    again = specs(open_page())
    assert all(s["layout"].get("font", {}).get("size") != PROJECTOR_FONT["body"] for s in again)
    assert again == first
