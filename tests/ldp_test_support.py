"""Helpers shared by test modules (a plain module: ``conftest`` is not importable by name, since
tests/e2e has its own conftest.py).

Every mechanism follows one protocol, but its inputs depend on its kind: frequency oracles and the discrete
square wave take codes in [0, d), numerical mechanisms reals in [0, 1], mean mechanisms reals in [−1, 1]
(and their ``d`` is the dimension, 1). These helpers build a mechanism and valid inputs and populations of
any kind, so conformance tests can run over the whole registry.
"""

from __future__ import annotations

import math

import numpy as np

import ldp

# Statistical checks: a correct sampler fails a 5σ check with probability about 6e-7 (normal approximation).
SIGMAS = 5.0

# Extra parameters that keep exact channels enumerable on small domains (hash prime P ≥ d).
SMALL_DOMAIN_PARAMS: dict[str, dict] = {"blh": {"prime": 5}, "olh": {"prime": 5}, "l-blh": {"prime": 5},
                                        "l-olh": {"prime": 5}}


def kind_of(name: str) -> str:
    return ldp.MECHANISMS.get(name).kind


def domain(name: str, d: int) -> int | None:
    """The ``d`` to pass for a population of ``d`` cells: mean mechanisms take the dimension (default 1)."""
    return None if kind_of(name) == "mean" else d


def build(name: str, epsilon: float, d: int, **extra):
    """The mechanism ``name`` at ε for ``d`` values or buckets (mean mechanisms: dimension 1)."""
    params = dict(SMALL_DOMAIN_PARAMS.get(name, {})) if d <= 5 else {}
    params.update(extra)
    return ldp.get_mechanism(name, epsilon, domain(name, d), **params)


def report_epsilon(mechanism) -> float:
    """The budget one report is meant to spend: ε, or ε1 for longitudinal mechanisms."""
    return mechanism.params["epsilon_1"] if mechanism.collection == "longitudinal" else mechanism.epsilon


def sample_inputs(mechanism, m: int, rng: np.random.Generator) -> np.ndarray:
    """``m`` valid inputs of the mechanism: codes in [0, d), reals in [0, 1] or reals in [−1, 1]."""
    if mechanism.input_kind == "codes":
        return rng.integers(0, mechanism.d, m)
    if mechanism.input_kind == "unit":
        return rng.random(m)
    return 2.0 * rng.random(m) - 1.0


def support_values(mechanism, cells: int) -> np.ndarray | None:
    """The values of a population's cells: None except for mean mechanisms (``cells`` points of [−1, 1])."""
    if mechanism.kind != "mean":
        return None
    return np.linspace(-1.0, 1.0, cells)


def out_of_range_inputs(mechanism) -> list[np.ndarray]:
    """Inputs each holding one value outside the mechanism's input domain."""
    if mechanism.input_kind == "codes":
        return [np.array([0, mechanism.d]), np.array([-1])]
    low = 0.0 if mechanism.input_kind == "unit" else -1.0
    return [np.array([0.5, 1.5]), np.array([low - 0.25]), np.array([np.nan])]


def assert_frequency(hits: float, n: int, p: float, what: str = "") -> None:
    """hits/n within 5 binomial standard deviations of p (exact equality when p is 0 or 1)."""
    freq = hits / n
    tol = SIGMAS * math.sqrt(p * (1 - p) / n)
    assert abs(freq - p) <= tol, f"{what}: frequency {freq:.6g} vs p = {p:.6g} (tolerance {tol:.3g}, n = {n})"
