"""Helpers shared by test modules (a plain module: ``conftest`` is not importable by name, since
tests/e2e has its own conftest.py)."""

from __future__ import annotations

import ldp

# Extra parameters that keep exact channels enumerable on small domains (hash prime P ≥ d).
SMALL_DOMAIN_PARAMS: dict[str, dict] = {"blh": {"prime": 5}, "olh": {"prime": 5}, "l-blh": {"prime": 5},
                                        "l-olh": {"prime": 5}}


def build(name: str, epsilon: float, d: int, **extra):
    params = dict(SMALL_DOMAIN_PARAMS.get(name, {})) if d <= 5 else {}
    params.update(extra)
    return ldp.get_mechanism(name, epsilon, d, **params)


def report_epsilon(mechanism) -> float:
    """The budget one report is meant to spend: ε, or ε1 for longitudinal mechanisms."""
    return mechanism.params["epsilon_1"] if mechanism.kind == "longitudinal" else mechanism.epsilon
