"""A computation of seconds shows that it runs (issue "The lecture hall on a real projector", item 2): the Heavy
hitters page's comparison of every method (about 4 s on a 2-core machine) draws a labelled progress bar in the
main panel while it runs, and removes it when done."""

from __future__ import annotations

import random

import pytest
from e2e_harness import open_page, wait_for_charts, wait_idle
from test_dashboard import assert_clean

pytestmark = pytest.mark.e2e

# Records every progress bar that appears in the main panel, with its label, however briefly it is shown.
_WATCH_PROGRESS_JS = """
(() => {
  window.__ldpProgress = [];
  new MutationObserver(() => {
    document.querySelectorAll('[data-testid="stMain"] [data-testid="stProgress"]').forEach((bar) => {
      const text = (bar.closest('[data-testid="stElementContainer"]') || bar).innerText.trim();
      if (text && !window.__ldpProgress.includes(text)) window.__ldpProgress.push(text);
    });
  }).observe(document, {subtree: true, childList: true, characterData: true});
})();
"""


def test_the_heavy_hitter_comparison_shows_a_progress_bar(page, server):
    page.context.add_init_script(_WATCH_PROGRESS_JS)
    seed = random.randint(10_000, 10**9)  # a configuration this server has not computed yet (results are cached)
    open_page(page, server, "heavy_hitters", query=f"hh_seed={seed}")
    wait_for_charts(page, minimum=1)
    wait_idle(page)
    page.get_by_role("button", name="Compare every method").click()  # computed on demand (seconds)
    wait_for_charts(page, minimum=2)
    wait_idle(page)
    assert_clean(page, "Heavy hitters")
    seen = page.evaluate("() => window.__ldpProgress")
    assert any("Running every method" in text for text in seen), f"no labelled progress bar in the main panel: {seen}"
    assert page.locator('[data-testid="stMain"] [data-testid="stProgress"]').count() == 0  # gone once done
