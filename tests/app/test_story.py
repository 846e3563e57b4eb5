"""AppTest: the Story page tells five steps (a chart and a sentence each) on the bundled flights, follows the
mechanism, ε and n set in its main-panel row, names a bad setting in the main panel, and offers the HTML report.
The steps are tabs bound to the URL (switching reruns the page) and only the open one is drawn: a test reads the
step it opens (``_step``) or every step in turn (``AllTabs``)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("streamlit")
from apptest_tabs import AllTabs, open_tab  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

APP = str(Path(__file__).resolve().parents[2] / "app.py")
CHARTS = [f"story_chart_{i}" for i in range(1, 6)]
TAB_KEY = "story_step"
REPORT_TAB = 5  # after the five steps
#: "What the deployments do" (an expander in step 3): the deployed oracles vs the textbook ones, memoization.
DEPLOYED_CHARTS = ["story_deployed_deployed", "story_deployed_memo"]


def _page(query: dict | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=90)
    at.query_params.update(query or {})
    at.switch_page("views/story.py")
    at.run()
    assert not at.exception, at.exception
    return at


def _sentences(at: AppTest) -> list[str]:
    return [m.value for m in at.main.markdown if "**" in m.value]


def _step(at: AppTest, number: int) -> AppTest:
    """Open step ``number`` (1 to 5; 6 is the report's tab), as a click on its tab does."""
    return open_tab(at, TAB_KEY, number - 1)


def _keys(elements) -> list[str]:
    return [e.key for e in elements]


def test_five_steps_each_a_chart_and_a_sentence():
    at = _page()
    assert not at.error, [e.value for e in at.error]
    assert _keys(at.get("plotly_chart")) == CHARTS[:1]  # only the open step (the first) is drawn
    every = AllTabs(at, TAB_KEY, part="main")
    assert len(every.runs) == 6  # the five steps and the report
    for number, run in enumerate(every.runs[:5], start=1):  # each step: its own chart and its sentence, alone
        assert _keys(run["plotly_chart"]) == [f"story_chart_{number}"], number
        assert len([m for m in run["markdown"] if "**" in m.value]) == 1, number
    assert not every.runs[REPORT_TAB]["plotly_chart"]
    assert _keys(every.get("plotly_chart")) == CHARTS  # the deployments' expander computes only when open
    sentences = [m.value for m in every.markdown if "**" in m.value]
    assert len(sentences) == 5
    assert "200,000 users" in sentences[0] and "guesses that user's value" in sentences[1]
    assert "±" in sentences[2] and "users" in sentences[4]
    assert [b.proto.label for b in every.get("download_button")] == ["Download the report (HTML)"]
    assert [b.proto.label for b in every.runs[REPORT_TAB]["download_button"]] == ["Download the report (HTML)"]
    _step(at, 3)
    at.session_state["story_deployed_open"] = True
    at.run()
    assert _keys(at.get("plotly_chart")) == CHARTS[2:3] + DEPLOYED_CHARTS
    deployments = next(e for e in at.main.expander if e.label.startswith("What the deployments do"))
    text = " ".join(m.value for m in deployments.markdown)
    assert "The best textbook oracle here is" in text and "200,000 users" in text
    assert "Fresh reports would cost 30" in text
    assert {"Apple", "Google", "Microsoft"} <= set(deployments.dataframe[0].value["company"])
    # the key controls sit in the main panel, above the steps (a projector shows them with the chart)
    assert {w.key for w in at.main.selectbox} >= {"story_mech"}
    assert {w.key for w in at.main.number_input} >= {"story_users"}
    assert _keys(_step(at, 1).get("plotly_chart")) == CHARTS[:1]  # the expander is not drawn on another step…
    assert _keys(_step(at, 3).get("plotly_chart")) == CHARTS[2:3] + DEPLOYED_CHARTS  # …and is still open on its own


def test_the_story_follows_its_controls_and_the_url():
    at = _page({"story_mech": "grr", "story_users": "5000"})
    assert "5,000 users" in _sentences(at)[0]
    at = _page({"story_mech": "grr", "story_users": "5000", "story_step": "2 · One report"})  # a link to step 2
    first = _sentences(at)
    assert len(first) == 1 and "guesses that user's value" in first[0]
    assert _keys(at.get("plotly_chart")) == ["story_chart_2"]
    next(w for w in at.main.select_slider if w.key == "story_eps").set_value(4.0)
    at.run()
    assert not at.exception
    assert "ε = 4" in _sentences(at)[0] and _sentences(at)[0] != first[0]  # the open step follows ε
    assert at.query_params["story_step"] in ("2 · One report", ["2 · One report"])  # and stays in the URL


def test_a_bad_setting_is_explained_in_the_main_panel():
    at = _page({"story_data_source": "Synthetic", "story_data_synthetic": "mixture",
                "story_data_mix": "0.5*nonsense(1)"})
    assert at.main.error, "the refusal belongs in the main panel"
    assert not at.get("plotly_chart")


def test_an_uploaded_file_is_its_own_population():
    """Issue "lecture hall" item 2 on the Story: an upload's rows are the users until n is changed (it used to tell
    the story of 200,000 users whatever the file held)."""
    at = _page({"story_data_source": "Upload"})
    rows = 800
    raw = ("dest\n" + "".join(f"{['BOS', 'ATL', 'ORD', 'LAX'][i % 4]}\n" for i in range(rows))).encode()
    next(u for u in at.file_uploader if u.key == "story_data_upload").set_value(("survey.csv", raw, "text/csv"))
    at.run()
    assert not at.exception, at.exception
    assert next(w for w in at.number_input if w.key == "story_users").value == rows
    assert any("800" in s for s in _sentences(at)), _sentences(at)[:2]


@pytest.mark.slow  # a page run, about 3 s
def test_a_stand_in_sample_says_what_it_stands_in_for():
    """Issue 23: the data picker offers the income sample; its caption says it stands in for the SW paper's Income."""
    at = _page({"story_data_sample": "income"})
    assert not at.error, [e.value for e in at.error]
    assert next(w for w in at.selectbox if w.key == "story_data_column").value == "husband_income"
    assert any("22,272 rows" in c.value and "a stand-in for the Income data of the SW paper" in c.value
               for c in at.caption)
