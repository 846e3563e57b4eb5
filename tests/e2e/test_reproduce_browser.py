"""The Reproduce page in a real browser: its papers are tabs bound to the URL. Only the open paper's figures are
drawn; a click on another paper writes it into the address (``?rp_paper=…``, what AppTest cannot check: the
frontend writes it), a reload keeps it open, and the copied link opens it in another session."""

from __future__ import annotations

import pytest
from e2e_harness import CHART, new_page, open_page, rerun, wait_for_charts, wait_idle
from test_dashboard import assert_clean

pytestmark = pytest.mark.e2e

#: Each paper's charts with its defaults (tests/app/test_reproduce.py names them; the b sweep's lazy expander, closed
#: by default, holds a sixth Square-wave chart).
CHARTS = {"IBU paper": 3, "Square-wave paper": 5, "Convolution paper": 7, "Consistency paper": 6}


def _open_paper(page) -> str:
    return page.get_by_role("tab", selected=True).inner_text().strip()


def _assert_shows(page, paper: str) -> None:
    wait_for_charts(page, minimum=CHARTS[paper])
    assert _open_paper(page) == paper
    assert page.locator(CHART).count() == CHARTS[paper], f"{paper}: only the open paper's figures are drawn"
    assert_clean(page, f"Reproduce, {paper}")


def test_the_open_paper_is_in_the_url_and_survives_a_reload(page, browser, server):
    open_page(page, server, "reproduce")
    assert [t.inner_text().strip() for t in page.get_by_role("tab").all()] == list(CHARTS)
    _assert_shows(page, "IBU paper")
    rerun(page, lambda: page.get_by_role("tab", name="Convolution paper").click())
    _assert_shows(page, "Convolution paper")
    page.wait_for_function("() => location.search.includes('rp_paper=Convolution')", timeout=10_000)
    link = page.url
    page.reload(wait_until="domcontentloaded")
    wait_idle(page)
    _assert_shows(page, "Convolution paper")
    other = new_page(browser)  # a shared link: a new session
    try:
        other.goto(link, wait_until="domcontentloaded")
        wait_idle(other)
        _assert_shows(other, "Convolution paper")
    finally:
        other.context.close()
