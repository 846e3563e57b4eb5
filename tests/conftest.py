"""Shared fixtures (scipy.stats style: one parametrized fixture over the whole mechanism registry)."""

from __future__ import annotations

import pytest

import ldp


@pytest.fixture(params=ldp.MECHANISMS.names())
def mechanism_name(request) -> str:
    return request.param
