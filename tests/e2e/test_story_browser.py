"""The story for stakeholders in a real browser at a projector's 1280×720: its key controls and first chart on the
first screen, each of the five steps a chart and a sentence (only the open step is drawn: its tabs are bound to the
URL, so opening one reruns the page), and the downloaded HTML report opening offline in Chromium with its five charts
drawn."""

from __future__ import annotations

import pytest
from e2e_harness import (
    CHART,
    RENDER_TIMEOUT_MS,
    epsilon_slider,
    open_page,
    rerun,
    screenshot,
    wait_for_charts,
)
from test_dashboard import assert_clean

pytestmark = pytest.mark.e2e

STEPS = ("1 · Your data", "2 · One report", "3 · The histogram", "4 · Post-processing", "5 · Users or ε needed")
VISIBLE_CHART = '[role="tabpanel"]:not([hidden]) [data-testid="stPlotlyChart"] .js-plotly-plot'


def _open_step(page, number: int) -> None:
    """Open step ``number`` (a click on its tab reruns the page) and check that it shows its chart alone, drawn,
    with its sentence."""
    name = STEPS[number - 1]
    rerun(page, lambda: page.get_by_role("tab", name=name).click())
    wait_for_charts(page)
    panel = page.locator('[role="tabpanel"]:not([hidden])')
    assert panel.locator(".js-plotly-plot .main-svg").first.is_visible(), name
    assert page.locator(CHART).count() == 1, f"{name}: only the open step's chart is drawn"
    title = panel.locator(".gtitle").first.text_content() or ""
    assert title.startswith(f"{number} · "), f"{name}: the chart is {title!r}"
    assert panel.locator("strong").count() >= 1, f"{name}: no sentence"  # each sentence has a bold figure


def test_the_story_walks_five_steps_and_its_report_opens_offline(browser, server, tmp_path):
    context = browser.new_context(viewport={"width": 1280, "height": 720}, locale="en-US", accept_downloads=True)
    page = context.new_page()
    try:
        open_page(page, server, "story", query="present=true")  # the projector layout: sidebar collapsed
        wait_for_charts(page)
        assert_clean(page, "the Story page")
        slider = epsilon_slider(page).bounding_box()
        chart = page.locator(VISIBLE_CHART).first.bounding_box()
        assert slider is not None and 0 <= slider["y"] < 720, slider  # ε in the main panel, on the first screen
        assert chart is not None and chart["y"] < 720, chart
        present = page.locator('[data-testid="stMain"] [data-testid="stMarkdownContainer"] strong').first
        assert present.bounding_box()["y"] < 720  # the step's sentence too
        tabs = page.get_by_role("tab").all()
        assert len(tabs) == 6 and all(t.bounding_box()["x"] + t.bounding_box()["width"] <= 1280 for t in tabs)
        screenshot(page, "story_1280x720", full_page=False)
        for number in range(1, len(STEPS) + 1):
            _open_step(page, number)
        rerun(page, lambda: page.get_by_role("tab", name="The report").click())
        assert page.locator(CHART).count() == 0  # the report's tab draws no chart: the file holds the five
        with page.expect_download(timeout=RENDER_TIMEOUT_MS) as info:  # the report is built on the click
            page.get_by_role("button", name="Download the report (HTML)").click()
        report = tmp_path / "story.html"
        info.value.save_as(report)
        assert report.stat().st_size > 1_000_000  # plotly.js is inside

        offline = context.new_page()
        requests: list[str] = []
        offline.on("request", lambda r: requests.append(r.url))
        offline.goto(report.as_uri())
        offline.wait_for_function("document.querySelectorAll('.js-plotly-plot .main-svg').length >= 5",
                                  timeout=RENDER_TIMEOUT_MS)
        assert offline.locator(".js-plotly-plot").count() == 5
        assert offline.locator("h2").filter(has_text="Settings").count() == 1
        assert not [u for u in requests if not u.startswith(("file:", "data:", "blob:"))], requests
        titles = offline.eval_on_selector_all(".gtitle", "els => els.map((e) => e.textContent)")
        assert any(t.startswith("3 · How wrong the histogram is") for t in titles), titles
        screenshot(offline, "story_report")
    finally:
        context.close()


def test_the_story_page_has_no_exception_after_moving_epsilon(page, server):
    open_page(page, server, "story", query="story_eps=0.5&story_mech=grr")
    wait_for_charts(page)
    for number in range(1, len(STEPS) + 1):  # every step, each opened in turn
        _open_step(page, number)
        assert_clean(page, f"the Story page at ε = 0.5, step {number}")
    page.reload(wait_until="domcontentloaded")  # the open step is in the URL: a reload shows it again
    wait_for_charts(page)
    assert "story_step=" in page.url
    assert (page.locator(".gtitle").first.text_content() or "").startswith("5 · ")
