"""Shared fixtures (scipy.stats style: one parametrized fixture over the whole mechanism registry, every kind;
``ldp_test_support`` builds each with valid inputs and populations of its kind)."""

from __future__ import annotations

import os

import pytest

import ldp

# no background precomputation of the Reproduce page's studies while tests run the app (app.py)
os.environ.setdefault("LDP_PRECOMPUTE", "0")
# pages compute in this process (views/offload.py; tests/app/test_offload.py and tests/e2e/test_offload_browser.py
# start real worker processes)
os.environ.setdefault("LDP_OFFLOAD", "0")


@pytest.fixture(params=ldp.MECHANISMS.names())
def mechanism_name(request) -> str:
    """Every registered mechanism, of every kind."""
    return request.param


def pytest_collection_modifyitems(config, items) -> None:
    """Tiers (docs/design.md): every test under tests/app is marked ``app`` (Streamlit AppTest) and every test under
    tests/e2e ``e2e`` (a browser), so ``./dev test --fast`` can leave them out with ``-m "not app and not e2e and not
    slow"``; the README's command runs everything."""
    for item in items:
        parts = item.path.parts
        if "tests" in parts:
            tier = parts[parts.index("tests") + 1] if parts.index("tests") + 1 < len(parts) else ""
            if tier == "app":
                item.add_marker(pytest.mark.app)
            elif tier == "e2e":
                item.add_marker(pytest.mark.e2e)
