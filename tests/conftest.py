"""Shared fixtures (scipy.stats style: one parametrized fixture over the whole mechanism registry, every kind;
``ldp_test_support`` builds each with valid inputs and populations of its kind)."""

from __future__ import annotations

import pytest

import ldp


@pytest.fixture(params=ldp.MECHANISMS.names())
def mechanism_name(request) -> str:
    """Every registered mechanism, of every kind."""
    return request.param
