"""The Privacy questions page in a real browser: its charts draw, the audit button runs with its progress bar
and flags the broken teaching example opened from a link."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from e2e_harness import CHART, errors, exceptions, open_page, rerun, screenshot, wait_for_charts, wait_idle

pytestmark = pytest.mark.e2e


def test_privacy_page_charts_and_audit(page, server):
    query = urlencode({"priv_audit_mech": "Broken OLH (teaching example)", "priv_audit_eps": "0.5",
                       "priv_audit_d": "8"})
    open_page(page, server, "privacy", query=query)
    wait_for_charts(page, minimum=3)
    assert not exceptions(page) and not errors(page)
    heading = page.locator('[data-testid="stMain"] h1').first
    assert "Privacy questions" in heading.inner_text()
    charts = page.locator(CHART).count()
    rerun(page, lambda: page.get_by_role("button", name="Run the audit").click())
    wait_for_charts(page, minimum=charts + 1)
    wait_idle(page)
    assert not exceptions(page) and not errors(page)
    assert page.get_by_text("does not keep its promise").count() > 0
    screenshot(page, "privacy_audit")
