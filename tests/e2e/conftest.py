"""Fixtures for the end-to-end browser tests: one ``streamlit run app.py`` server and one headless Debian
Chromium per test session, a fresh browser context (own Streamlit session) per test, and a screenshot of
each test's final state in ``test-artifacts/screenshots/``. Helpers live in ``e2e_harness.py``."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator

import pytest
from e2e_harness import (
    ARTIFACTS,
    SCREENSHOTS,
    Server,
    find_chromium,
    launch_chromium,
    new_page,
    open_page,
    screenshot,
    start_server,
    stop_server,
)


@pytest.fixture(scope="session")
def chromium_path() -> str:
    pytest.importorskip("playwright.sync_api",
                        reason="Playwright is not installed: pip install -r requirements-dev.txt")
    path = find_chromium()
    if path is None:
        pytest.skip("Chromium not found (/usr/bin/chromium, $LDP_CHROMIUM or PATH): install the Debian package "
                    "'chromium' (./dev test does this when run as root with apt-get)")
    return path


@pytest.fixture(scope="session")
def server(browser) -> Iterator[Server]:
    """One server for the session, opened once at "/" so that app.py's ``st.navigation`` has run: until it
    has, Streamlit serves deep links in its legacy pages/-directory mode (``test_deep_link_on_a_fresh_server``
    checks that case on a server of its own). Every test then gets the same, ordinary server state."""
    srv = start_server(log_path=ARTIFACTS / "streamlit-e2e.log")
    try:
        warm = new_page(browser)
        try:
            open_page(warm, srv)
        finally:
            warm.context.close()
        yield srv
    finally:
        stop_server(srv)


@pytest.fixture(scope="session")
def browser(chromium_path) -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = launch_chromium(pw, chromium_path)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser, server, request) -> Iterator[object]:
    """A fresh browser context per test (own Streamlit session); its final state is kept as a screenshot."""
    pg = new_page(browser)
    console: list[str] = []
    pg.on("pageerror", lambda exc: console.append(f"pageerror: {exc}"))
    try:
        yield pg
    finally:
        with contextlib.suppress(Exception):
            screenshot(pg, request.node.name, full_page=False)  # the final state, quickly (long pages)
        if console:
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            (SCREENSHOTS / (re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name) + ".console.txt")).write_text(
                "\n".join(console))
        pg.context.close()
