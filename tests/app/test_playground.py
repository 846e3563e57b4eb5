"""AppTest: the Playground page renders with defaults and after changing each main widget."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest  # noqa: E402

APP = str(Path(__file__).resolve().parents[2] / "app.py")
PAGE = "views/playground.py"
KINDS = ("selectbox", "select_slider", "slider", "radio", "number_input", "multiselect", "toggle", "checkbox")


def _page(query: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    if query:
        at.query_params.update(query)
    at.run()
    at.switch_page(PAGE)
    at.run()
    return at


def _widget(at: AppTest, key: str):
    return next(w for kind in KINDS for w in getattr(at, kind) if w.key == key)


def _set(at: AppTest, **changes) -> AppTest:
    for key, value in changes.items():
        _widget(at, key).set_value(value)
        at.run()
        assert not at.exception, f"{key}={value!r}: {at.exception}"
    return at


def _assert_results(at: AppTest) -> None:
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    # the histogram, and a CDF only where the values have an order (not alphabetical categories such as airports)
    ordered = not any("have no order" in c.value or "without an order" in c.value for c in at.caption)
    assert len(at.get("plotly_chart")) == 1 + ordered
    assert any("RMSE (% of users)" in t.value.columns for t in at.table)  # the metrics table
    assert any("estimates each value to within about" in m.value for m in [*at.markdown, *at.warning])
    assert len(at.metric) == 3


@pytest.fixture(scope="module")
def shared() -> AppTest:
    """One session walked through several widget changes (each step checked), to keep the file fast."""
    return _page()


def test_defaults_render_charts_metrics_readout_and_privacy(shared):
    at = shared
    _assert_results(at)
    readout = next(m.value for m in at.markdown if "estimates each value to within about" in m.value)
    assert "1,000,000 users" in readout and "ε = 1" in readout and "OUE" in readout and "Clear:" in readout
    labels = [m.label for m in at.metric]
    assert any("e^ε" in label for label in labels) and any("attacker" in label.lower() for label in labels)
    assert any(m.value == "2.72×" for m in at.metric)
    assert len(at.get("download_button")) == 2
    # every control is bound to the URL query parameter named by its key (Streamlit writes it once it differs
    # from the default; tests/app/test_controls.py reopens every page from such a URL)
    for key in ("eps", "mech", "users", "est", "engine", "seed", "conf", "topk", "data_source", "data_column"):
        assert _widget(at, key).proto.query_param_key == key


@pytest.mark.parametrize("changes", [
    {"eps": 0.3},
    {"mech": "grr"},
    {"mech": "olh"},
    {"mech": "l-oue", "mech_eps1": 0.3},
    {"est": ["norm-sub"]},
    {"users": 5000},
    {"whole": True},
    {"whole": False, "engine": "exact", "users": 20_000},
    {"engine": "fast", "users": 1_000_000},
    {"conf": 0.99},
    {"topk_only": True, "topk": 5},
    {"sort_freq": True},
    {"seed": 7},
])
def test_changes_rerun_without_exception(shared, changes):
    at = _set(shared, **changes)
    _assert_results(at)


def test_longitudinal_explains_eps_inf_and_eps1(shared):
    at = _set(shared, mech="l-sue")
    _assert_results(at)
    assert _widget(at, "mech_eps1") is not None
    text = " ".join(m.value for m in at.markdown) + " ".join(c.value for c in at.caption)
    assert "ε∞" in text and "ε1" in text


def test_she_says_attack_not_computed(shared):
    at = _set(shared, mech="she")
    _assert_results(at)
    assert any(m.value == "not computed" for m in at.metric)
    assert any("not computed for SHE" in m.value for m in at.markdown)


def test_synthetic_source_disables_whole_dataset():
    at = _page()
    _set(at, data_source="Synthetic")
    _assert_results(at)
    assert _widget(at, "whole").disabled
    _set(at, data_d=64)
    _assert_results(at)


def test_numerical_sample_column_with_bins_and_range():
    at = _page()
    _set(at, data_column="dep_time_hours", data_bins=24)
    _assert_results(at)
    assert any("Wasserstein (hours)" in t.value.columns for t in at.table)
    _set(at, data_lo=5.0, data_hi=22.0)
    _assert_results(at)
    # an empty range (to ≤ from) is a friendly error, not an exception
    _set(at, data_hi=5.0)
    assert not at.exception
    assert any("range" in e.value for e in at.error)


def test_no_estimator_is_a_friendly_error():
    at = _page()
    _set(at, est=[])
    assert not at.exception
    assert any("at least one estimator" in e.value for e in at.error)


def test_absurd_exact_run_is_blocked():
    at = _page()
    _set(at, users=10**9)
    _set(at, engine="exact")
    assert not at.exception
    assert any("fast engine" in e.value for e in at.error)
    assert not at.get("plotly_chart")


def test_url_restores_epsilon():
    at = _page({"eps": "0.5", "mech": "GRR (k-RR)"})  # a selection's URL value is the label it shows
    _assert_results(at)
    assert _widget(at, "eps").value == 0.5
    assert _widget(at, "mech").value == "grr"
    assert any("ε = 0.5" in m.value for m in [*at.markdown, *at.warning])


def test_upload_source_without_file_asks_for_one():
    at = _page()
    _set(at, data_source="Upload")
    assert not at.exception
    assert any("Upload the CSV or Parquet file here or in the sidebar" in i.value for i in at.main.info)


def test_order_assuming_estimator_on_categories_is_flagged_beside_the_numbers():
    """Issue 9 item 6: DW on airport codes (alphabetical, no order) gets a warning in the main panel and the
    smoothness diagnostic; on an ordered synthetic domain only the diagnostic is shown."""
    at = _page({"mech": "GRR (k-RR)", "eps": "4"})  # a selection's URL value is the label it shows
    assert _widget(at, "mech").value == "grr"
    _set(at, est=["mi", "dw"])
    _assert_results(at)
    warnings = " ".join(w.value for w in at.warning)
    assert "no natural order" in warnings and "DW" in warnings
    assert any("Smoothness of the data" in c.value for c in at.caption)
    _set(at, data_source="Synthetic")
    assert "no natural order" not in " ".join(w.value for w in at.warning)
    assert any("Smoothness of the data" in c.value for c in at.caption)


def test_advanced_parameters_reach_the_mechanism_and_the_estimators_and_the_url():
    """Issue 9, every parameter in reach: OLH's g (blank = the paper's e^ε + 1) and IBU's method from the
    advanced expanders reach the library, are bound to the URL, and a bad value is refused in the main panel."""
    at = _page()
    _set(at, mech="olh", eps=2.0, est=["mi", "ibu"])
    g = next(t for t in at.text_input if t.key == "mech_olh_g")
    assert g.value == "" and g.proto.query_param_key == "mech_olh_g"
    method = _widget(at, "est_ibu_method")
    assert method.value == "mle" and method.proto.query_param_key == "est_ibu_method"
    assert any("Advanced: OLH" in e.label for e in at.expander) and any("Advanced: IBU" in e.label
                                                                          for e in at.expander)
    assert any("parameters in use: g = 8" in c.value for c in at.caption)  # ⌊e² + 1⌉ = 8 (Wang et al.)
    g.set_value("5")
    at.run()
    _assert_results(at)
    assert any("parameters in use: g = 5" in c.value for c in at.caption)
    _set(at, est_ibu_method="em")
    _assert_results(at)
    assert at.session_state["mech_olh_g"] == "5" and at.session_state["est_ibu_method"] == "em"
    next(t for t in at.text_input if t.key == "mech_olh_g").set_value("five")
    at.run()
    assert not at.exception
    assert any("g" in e.value and "int" in e.value for e in at.error), [e.value for e in at.error]


def test_mixture_has_its_formula_field_and_a_bad_formula_is_said_in_the_main_panel():
    """Issue 11 item 3: "mixture" was offered without a field for its formula (it always failed), and errors landed
    in the narrow sidebar while the main panel stayed blank."""
    at = _page()
    _set(at, data_source="Synthetic", data_synthetic="mixture")
    _assert_results(at)
    formula = next(t for t in at.text_input if t.key == "data_mix")
    assert formula.value == "0.3*gaussian(mu=0.3,sigma=0.05)+0.7*uniform"
    formula.set_value("0.5*nope+0.5*uniform")
    at.run()
    assert not at.exception
    assert [e.value for e in at.main.error] and not [e.value for e in at.sidebar.error]
    assert "nope" in at.main.error[0].value


def test_metrics_fit_the_data_and_read_in_plain_units():
    """Issue 11 item 4: no CDF, Wasserstein or KS over alphabetical airport codes; errors as % of users, not 4e-6."""
    at = _page()
    assert [c.key for c in at.get("plotly_chart")] == ["pg_hist"]
    table = next(t.value for t in at.table if "RMSE (% of users)" in t.value.columns)
    assert not any(c.startswith(("KS", "Wasserstein")) for c in table.columns)
    assert (table["RMSE (% of users)"] < 5).all()  # 10⁶ users at ε = 1: a fraction of a percent
    _set(at, data_source="Synthetic")
    assert [c.key for c in at.get("plotly_chart")] == ["pg_hist", "pg_cdf"]
    table = next(t.value for t in at.table if "RMSE (% of users)" in t.value.columns)
    assert any(c.startswith("KS") for c in table.columns)


def test_presentation_mode_puts_mechanism_epsilon_and_n_above_the_chart():
    """Issue 11: a projector needs ε and the chart together; ?present=true opens with the key controls in one row of
    the main panel (the sidebar collapsed on load) and larger type."""
    at = _page({"present": "true"})
    _assert_results(at)
    main_keys = {w.key for kind in KINDS for w in getattr(at.main, kind)}
    side_keys = {w.key for kind in KINDS for w in getattr(at.sidebar, kind)}
    assert {"mech", "eps", "users"} <= main_keys and not {"mech", "eps", "users"} & side_keys
    assert "present" in side_keys and _widget(at, "present").value is True
    _set(at, eps=0.5)
    _assert_results(at)
    assert any("ε = 0.5" in m.value for m in [*at.markdown, *at.warning])
    _set(at, present=False)
    side_keys = {w.key for kind in KINDS for w in getattr(at.sidebar, kind)}
    assert {"mech", "eps", "users"} <= side_keys


def _csv(rows: int = 500) -> bytes:
    values = ["BOS", "ATL", "ORD", "LAX", "SFO", "MIA", "DEN", "SEA"]
    return ("dest,delay\n" + "".join(f"{values[i * 7 % 8]},{i % 50}\n" for i in range(rows))).encode()


def _upload(at: AppTest, name: str, raw: bytes, mime: str = "text/csv") -> AppTest:
    next(u for u in at.file_uploader if u.key == "data_upload").set_value((name, raw, mime))
    at.run()
    assert not at.exception, at.exception
    return at


def test_an_upload_is_its_own_population_and_its_row_count_is_beside_the_readout():
    """Issue "lecture hall" item 1: a 500-row CSV was simulated as 1,000,000 users ("to within about ±687 of
    1,000,000 users") and the row count was nowhere on screen. Its rows are the users by default; simulating more
    users stays an explicit choice, said beside the read-out."""
    at = _page()
    _set(at, data_source="Upload")
    _upload(at, "survey.csv", _csv(500))
    _assert_results(at)
    readout = next(m.value for m in [*at.markdown, *at.warning] if "estimates each value to within about" in m.value)
    assert "500 users" in readout and "1,000,000" not in readout
    assert _widget(at, "whole").value is True and _widget(at, "users").disabled
    shown = " ".join(x.value for x in [*at.main.markdown, *at.main.caption])
    assert "500 rows" in shown
    _set(at, whole=False)  # simulate more users: the explicit choice, said next to the read-out
    _assert_results(at)
    readout = next(m.value for m in [*at.markdown, *at.warning] if "estimates each value to within about" in m.value)
    assert "1,000,000 users" in readout
    shown = " ".join(x.value for x in [*at.main.markdown, *at.main.caption])
    assert "500 rows" in shown and "simulated" in shown.lower()
    _set(at, data_source="Sample data")  # back to sample data: simulated users again, as before
    _assert_results(at)
    assert _widget(at, "whole").value is False


def test_a_link_to_an_upload_view_says_in_the_main_panel_what_to_do_and_takes_the_file_there():
    """Issue "lecture hall" item 2: ?data_source=Upload opened with an empty main panel (the prompt was in the sidebar,
    below the fold). The main panel says to upload the file and holds an uploader; a file given there is used."""
    at = _page({"data_source": "Upload"})
    assert not at.exception
    said = " ".join(i.value for i in at.main.info)
    assert "Upload" in said and "sidebar" in said
    main = [u for u in at.file_uploader if u.key == "data_upload_main"]
    assert main, [u.key for u in at.file_uploader]
    main[0].set_value(("survey.csv", _csv(400), "text/csv"))
    at.run()
    _assert_results(at)
    assert any("400 rows" in c.value for c in at.main.caption)


def test_a_workbook_after_a_bad_csv_shows_its_own_message():
    """Issue "lecture hall" item 4: after a bad CSV, dropping an .xlsx left the CSV's error in the main panel (the
    browser refused the type, so the page never saw the new file). The workbook's own message replaces it."""
    at = _page()
    _set(at, data_source="Upload")
    _upload(at, "broken.csv", b"\x00\x01\x02")
    first = [e.value for e in at.main.error]
    assert first and "broken.csv" in first[0]
    _upload(at, "grades.xlsx", b"PK\x03\x04 not really a workbook",
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
    now = [e.value for e in at.main.error]
    assert now and not any("broken.csv" in e for e in now)
    assert "grades.xlsx" in now[0] and ("save it as CSV" in now[0] or "Excel workbook" in now[0])


def test_back_from_an_upload_no_default_of_the_upload_lingers_in_the_url():
    """Issue "lecture hall" item 5: from an 8-value upload back to sample data, k stayed 8 — the upload's default,
    never set by the user — and so went into the shared URL (topk=8). A value the user never set follows the data's
    default (and stays out of the URL); a value the user set stays."""
    at = _page()
    _set(at, data_source="Upload")
    _upload(at, "survey.csv", _csv(500))
    assert _widget(at, "topk").value == 8  # min(10, d) for d = 8
    _set(at, data_source="Sample data")
    _assert_results(at)
    topk = _widget(at, "topk")
    assert topk.value == 10 and topk.value == topk.proto.default  # the default: Streamlit leaves it out of the URL
    _set(at, topk=5, data_source="Upload")  # set by the user: kept through the data's changes
    assert _widget(at, "topk").value == 5
    _set(at, data_source="Sample data")
    assert _widget(at, "topk").value == 5


@pytest.mark.parametrize("source", ["sample", "synthetic"])
def test_a_downloaded_configuration_reruns_on_the_command_line_to_the_same_numbers(tmp_path, capsys, source):
    """Issue 20: the Playground's downloaded configuration carries a ``simulation`` block (its data source, mechanism,
    users, estimators, engine and seed); ``ldp simulate --config FILE --format json`` re-runs it through the same
    library function the page uses, so every estimate equals the page's to 1e-12 — here on a bundled sample's column
    (200,000 users drawn from it) and on a synthetic Zipf."""
    import json

    import numpy as np

    from ldp.cli import main
    from ldp.studies import datasets
    from views import playground

    data = (datasets.sample_dataset("flights", "dest", 0, None) if source == "sample"
            else datasets.synthetic_dataset("zipf", 64, 1.5))
    ctl = {"mech": "olh", "eps": 1.5, "engine": "fast", "seed": 7}
    estimators = ("mi", ("ibu", (("max_iter", 500),)), "norm-sub")
    params = (("g", 4),)
    page = playground._simulate("olh", 1.5, params, np.asarray(data.counts, dtype=np.int64), 200_000, estimators,
                                "fast", 7)
    path = tmp_path / "ldp-playground-config.json"
    path.write_text(json.dumps({"mech": "olh", "simulation": playground.simulation_block(data, ctl, params, 200_000,
                                                                                         estimators)}))
    assert main(["simulate", "--config", str(path), "--format", "json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert cli["users"] == page.n == 200_000 and cli["parameters"]["g"] == 4
    for name in ("mi", "ibu", "norm-sub"):
        np.testing.assert_allclose(cli["trials"][0]["estimates"][name], page.estimates[name][0], rtol=0, atol=1e-12)
    # the whole configuration replaces the other options: given beside it, one is refused in one line
    assert main(["simulate", "--config", str(path), "--epsilon", "2"]) == 2
    assert "leave out --epsilon" in capsys.readouterr().err


def test_the_domain_preview_is_drawn_only_when_opened():
    """The sidebar's domain preview is a lazy section: no table until its expander is opened (a table on the first
    page made the browser load its table code at a cold start), then every value with its rows."""
    def previews(at: AppTest) -> list:
        return [df.value for df in at.dataframe if list(df.value.columns)[:2] == ["value", "rows"]]

    at = _page()
    assert any(e.label.startswith("Domain preview (104 values)") for e in at.expander)
    assert previews(at) == []
    at.session_state["pg_domain_open"] = True
    at.run()
    assert not at.exception
    [preview] = previews(at)
    assert len(preview) == 104 and preview["rows"].sum() > 300_000


def test_the_configuration_loader_is_drawn_when_opened_and_loads_a_file():
    """Loading a saved configuration is a lazy section (an uploader on the first view cost a cold start 0.12 s in
    the browser): no uploader until it is opened; then a file sets the page's controls."""
    import json

    at = _page()
    assert any(e.label == "Load a configuration (JSON)" for e in at.expander)
    assert not [u for u in at.file_uploader if u.key == "pg_download_load"]
    at.session_state["pg_download_load_open"] = True
    at.run()
    [loader] = [u for u in at.file_uploader if u.key == "pg_download_load"]
    eps = float(_widget(at, "eps").options[-3])  # a value of the slider's grid, not the default
    loader.set_value(("ldp-playground-config.json", json.dumps({"eps": eps}).encode(), "application/json"))
    at.run()
    assert not at.exception
    assert float(_widget(at, "eps").value) == eps != 1.0


def test_an_uploads_domain_preview_is_drawn_only_when_opened():
    at = _page()
    _set(at, data_source="Upload")
    _upload(at, "survey.csv", _csv(500))
    assert any(e.label == "Domain preview (8 values)" for e in at.expander)
    assert not [df for df in at.dataframe if list(df.value.columns) == ["value", "rows"]]
    at.session_state["data_upload_preview_open"] = True
    at.run()
    assert not at.exception
    [preview] = [df.value for df in at.dataframe if list(df.value.columns) == ["value", "rows"]]
    assert len(preview) == 8 and preview["rows"].sum() == 500
