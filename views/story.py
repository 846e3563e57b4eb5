"""Story — for stakeholders: five steps from "your data" to "how many users or what ε you need", each one chart and
one sentence, ending in a standalone HTML report to send after the meeting.

Wiring and text only: the steps are computed by ``ldp.studies.briefing``, drawn by ``ldp.viz.briefing`` and written
into the report by ``ldp.viz.report``.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from ldp.studies.briefing import Story, tell_story
from ldp.viz.briefing import step_figure
from ldp.viz.report import story_report
from ldp.viz.style import label_log_axes
from views import common
from views.controls import Control, render
from views.deployment_panel import show_deployments

DATA = common.data_controls("story_data")
MECH = common.mechanism_controls("story_mech", eps_key="story_eps")
USERS = Control("story_users", "number_input", "Users n", min_value=100, max_value=10**9, step=50_000,
                depends=lambda origin, rows: {"default": max(100, int(rows)) if origin == "table" else 200_000},
                help="How many people would send a report (an uploaded file: its rows, until you change it).")
SEED = common.seed_control("story_seed")
CONTROLS = (*DATA, *MECH, USERS, SEED)
#: Short tab labels, so all six fit one row at 1280 px (the steps' full titles head their charts and the report).
TABS = ("1 · Your data", "2 · One report", "3 · The histogram", "4 · Post-processing", "5 · Users or ε needed",
        "The report")
CHART_HEIGHT = 400
#: On a projector (larger type): with the controls row, the tabs and a step's sentence above it, the chart ends on a
#: 1280×720 screen (tests/e2e/test_presentation.py measures every step).
PRESENT_HEIGHT = 340


@st.cache_data(show_spinner=False, max_entries=32)
def _story(counts: np.ndarray, labels: tuple[str, ...], name: str, source: str, rows: int | None, ordered: bool,
           mechanism: str, epsilon: float, params: tuple, n: int, seed: int, title: str = "") -> Story:
    return tell_story(counts, list(labels), name=name, source=source, rows=rows, ordered=ordered, mechanism=mechanism,
                      epsilon=epsilon, params=dict(params), n=n, seed=seed, title=title)


def _chart(story: Story, number: int) -> go.Figure:
    """Step ``number``'s chart at the page's height (the open tab's, or one of the report's five)."""
    return step_figure(story, number).update_layout(height=CHART_HEIGHT, margin={"t": 50, "b": 40})


def _report(story: Story) -> bytes:
    """The HTML report, with the five charts built now: only when it is downloaded (the page draws one step)."""
    figures = [label_log_axes(_chart(story, step.number)) for step in story.steps]
    return story_report(story, figures, extra_versions={"streamlit": st.__version__}).encode("utf-8")


def main() -> None:
    if not common.presenting():  # on a projector the tabs name the steps: the title's height goes to the chart
        st.title("Story for stakeholders")
        st.caption("What local differential privacy does to your data, in five steps, each one sentence and one "
                   "chart; the data is picked in the sidebar, and the report at the end holds it all in one file.")
    row = st.columns([1.2, 1.6, 1])
    with st.sidebar:
        data = common.data_section(DATA)
        st.header("More settings")
        mech = render(MECH.mechanism, row[0])
        eps = float(render(MECH.epsilon, row[1]))
        n = int(render(USERS, row[2], origin=data.origin, rows=data.rows))
        params = common.mechanism_extras(MECH, mech, eps)
        seed = int(render(SEED))
    with common.friendly_errors("the story"), st.spinner("Simulating the collections…"):
        story = _story(np.asarray(data.counts, dtype=np.int64), tuple(map(str, data.labels)), data.name,
                       data.description or data.name, None if data.origin == "synthetic" else data.rows,
                       data.ordered, mech, eps, tuple(sorted(params.items())), n, seed, data.readable_name)
    tabs = st.tabs(list(TABS), key="story_step", bind="query-params")
    # Bound to the URL, the tabs rerun the page when a step is opened: only the open step is drawn (drawing all five
    # on every rerun cost five charts where one is seen, paid by every session that moves ε).
    for tab, step in zip(tabs, story.steps, strict=False):
        if not tab.open:
            continue
        with tab:
            st.markdown(step.sentence)
            common.show_figure(_chart(story, step.number), f"story_chart_{step.number}", step.table, main=True,
                               present_height=PRESENT_HEIGHT)
            if step.number == 4:
                for warning in story.warnings:
                    st.warning(common.plain(warning))
            if step.number == 3:  # computed only while open (opening it reruns the page); bound to the URL, like
                # the steps, it stays open while another step (where it is not drawn) is shown, and a link reopens it
                box = common.lazy_expander("What the deployments do: Apple's, Google's and Microsoft's mechanisms "
                                           "on this data", "story_deployed_open")
                with box:
                    if box.open:
                        counts = np.asarray(data.counts, dtype=np.float64)
                        show_deployments(counts / counts.sum(), n, eps, "story_deployed", data.readable_name)
    if tabs[-1].open:
        with tabs[-1]:
            st.markdown("One HTML file with the five charts and sentences, the settings and the versions: it opens "
                        "in any browser, offline, and can be sent after the meeting.")
            st.download_button("Download the report (HTML)", data=lambda: _report(story),
                               file_name="ldp-story-report.html", mime="text/html", key="story_report",
                               on_click="ignore", type="primary", icon=":material/download:")
            st.dataframe({"setting": list(story.settings), "value": [str(v) for v in story.settings.values()]},
                         hide_index=True, key="story_settings")


if __name__ == "__main__":  # Streamlit runs a page as __main__; tests import it for its controls
    main()
