"""Presentation mode on a real projector (issue "The lecture hall on a real projector", item 1): every page opened with
``?present=true`` at 1280x720 shows its whole main chart on the first screen — the chart's bounding box lies inside
the viewport (top >= 0, bottom <= 720) without scrolling. The main chart is the one the page declares
(``show_figure(main=True)``: a container keyed ``main_chart…``), or the page's first Plotly chart.

With ``LDP_UPDATE_SCREENSHOTS=1`` each page's first screen is also saved as
``docs/screenshots/present-<page>-1280x720.png`` (the committed screenshots are made this way)."""

from __future__ import annotations

import os

import pytest
from e2e_harness import (
    CHART,
    ROOT,
    errors,
    new_page,
    open_page,
    rerun,
    screenshot,
    wait_for_charts,
    wait_idle,
)
from test_dashboard import PAGES, URL_SAMPLE, assert_clean, assert_title

pytestmark = pytest.mark.e2e

WIDTH, HEIGHT = 1280, 720
MAIN = '[class*="st-key-main_chart"] .js-plotly-plot'
DOCS = ROOT / "docs" / "screenshots"
#: The Story's steps, each a tab with its own chart (steps 2 and 5 lost their x axis before).
STORY_STEPS = ("1 · Your data", "2 · One report", "3 · The histogram", "4 · Post-processing", "5 · Users or ε needed")


@pytest.fixture
def projector(browser):
    pg = new_page(browser, {"width": WIDTH, "height": HEIGHT})
    try:
        yield pg
    finally:
        pg.context.close()


def _main_chart_box(page) -> dict:
    declared = page.locator(MAIN).locator("visible=true")
    chart = declared.first if declared.count() else page.locator(CHART).locator("visible=true").first
    chart.locator(".main-svg").first.wait_for(state="visible")
    box = chart.bounding_box()
    assert box is not None
    return box


def _assert_inside(page, where: str) -> None:
    box = _main_chart_box(page)
    assert page.evaluate("() => window.scrollY") == 0
    assert box["y"] >= 0 and box["y"] + box["height"] <= HEIGHT, (
        f"{where}: the main chart spans y = {box['y']:.0f}…{box['y'] + box['height']:.0f}, outside 0…{HEIGHT}")
    assert box["x"] >= 0 and box["x"] + box["width"] <= WIDTH, f"{where}: the chart is wider than the screen: {box}"


def _save(page, name: str) -> None:
    if os.environ.get("LDP_UPDATE_SCREENSHOTS") == "1":
        DOCS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(DOCS / f"present-{name}-{WIDTH}x{HEIGHT}.png"))
    screenshot(page, f"present_{name}", full_page=False)


#: The pages whose main chart must fit a projector's first screen (the Story has its own test; the Classroom's
#: teacher view, test_classroom_browser.py).
PRESENTED = [p for p in PAGES if p not in ("story", "classroom")]


def test_every_page_opens_from_its_url_here_or_in_the_sample():
    assert set(PAGES) - {"playground"} <= set(PRESENTED) | set(URL_SAMPLE)


@pytest.mark.parametrize("path", PRESENTED)
def test_the_main_chart_fits_the_first_screen(projector, server, path):
    """Also each page's opening from its URL (test_dashboard.py opens only a sample of them again): its heading, its
    path, no exception and no error at its defaults."""
    open_page(projector, server, "" if path == "playground" else path, query="present=true")
    wait_for_charts(projector)
    wait_idle(projector)
    assert_clean(projector, PAGES[path])
    assert_title(projector, PAGES[path])
    assert not errors(projector), f"/{path} shows an error with its default settings: {errors(projector)}"
    assert path in projector.url or path == "playground"
    _assert_inside(projector, PAGES[path])
    _save(projector, path)


def test_every_story_step_fits_the_first_screen(projector, server):
    open_page(projector, server, "story", query="present=true")
    wait_for_charts(projector)
    for number, step in enumerate(STORY_STEPS, start=1):
        # only the open step is drawn: the click reruns the page, which draws this step's chart
        rerun(projector, lambda step=step: projector.get_by_role("tab", name=step).click())
        _assert_inside(projector, f"Story, step {step}")
        _save(projector, f"story-step{number}")
