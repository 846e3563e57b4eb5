"""Mironov's floating-point attack (CCS'12) on every continuous client, and the grid that defeats it.

An attacker who sees a report chooses an event E from its exact bits and compares Pr[E | A] with Pr[E | B]
for two inputs; ε-LDP requires Pr[E | A] ≤ e^ε Pr[E | B] for *every* event, including events about the low
bits that the ideal real-valued analysis never sees. The events below are the ones the issue reported:

* SHE (float32 coordinates): "coordinate j is below ½ in magnitude and off the 2⁻²⁴ grid". With the noise
  added to 1.0 in float32, the user's own coordinate always lies on that grid (Pr = 0 when j is the input),
  the others mostly do not (Pr ≈ 0.15).
* PM and SW: "the report lies in input B's high-density window but could not have been produced by a textbook
  sampler run on B" (``lo + u·width`` or ``v − b + (u − t)/p`` with u on the 2⁻⁵³ grid). Under B this never
  happens; under a nearby input A it happens for most window reports.

Statistics: N reports per input; the empirical frequencies are binomial, so the check
P̂_A − e^ε P̂_B ≤ 5·√(P̂_A(1 − P̂_A)/N + e^{2ε} P̂_B(1 − P̂_B)/N) + 1/N fails on a true violation of
the size seen (0.15 vs 0, 0.5 vs 0) by more than 30 standard errors and holds under ε-LDP except with
probability below 10⁻⁶ (a 5σ one-sided normal tail; fixed seeds make it deterministic anyway).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from ldp.core.registry import MECHANISMS

N = 20_000


def _make(name, epsilon, **params):
    cls = MECHANISMS.get(name)
    d = None if cls.domain_parameter.default is not None else 64
    return cls(epsilon, d, **params)
ULP53 = 2.0 ** -53


def _bound_holds(hits_a: np.ndarray, hits_b: np.ndarray, epsilon: float) -> tuple[bool, float, float]:
    pa, pb = float(hits_a.mean()), float(hits_b.mean())
    e = math.exp(epsilon)
    slack = 5.0 * math.sqrt(pa * (1 - pa) / hits_a.size + e * e * pb * (1 - pb) / hits_b.size) + 1.0 / hits_a.size
    return pa - e * pb <= slack, pa, pb


def _producible(y: np.ndarray, forward, u_guess: np.ndarray) -> np.ndarray:
    """Whether forward(u) == y (bit for bit) for some u on the 2⁻⁵³ grid of [0, 1) near ``u_guess``."""
    k0 = np.rint(u_guess / ULP53)
    ok = np.zeros(y.shape, dtype=bool)
    for dk in range(-4, 5):
        u = np.clip((k0 + dk) * ULP53, 0.0, 1.0 - ULP53)
        ok |= forward(u) == y
    return ok


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_she_low_bits_do_not_tell_the_users_value(epsilon):
    mech = MECHANISMS.get("she")(epsilon, 4)
    rng = np.random.default_rng(11)
    own = mech.perturb(np.zeros(N, dtype=np.int64), rng)[:, 0].astype(np.float64)  # input 0: coordinate 0 = 1 + noise
    other = mech.perturb(np.ones(N, dtype=np.int64), rng)[:, 0].astype(np.float64)  # input 1: coordinate 0 = noise

    def event(y):
        return (np.abs(y) < 0.5) & (np.rint(y * 2.0 ** 24) != y * 2.0 ** 24)

    for a, b in ((own, other), (other, own)):
        holds, pa, pb = _bound_holds(event(a), event(b), epsilon)
        assert holds, f"ε={epsilon}: Pr[off the 2^-24 grid] = {pa:.4f} under one input, {pb:.4f} under the other"


def _pm_event(mech, value_b):
    lo, hi = (float(x) for x in mech.interval(value_b))
    width = hi - lo

    def event(y):
        inside = (y >= lo) & (y <= hi)
        return inside & ~_producible(y, lambda u: lo + u * width, (y - lo) / width)
    return event


def _sw_event(mech, value_b):
    p, q, b = mech.p, mech.q, mech.b
    t1 = q * value_b

    def event(y):
        inside = (y >= value_b - b) & (y <= value_b + b)
        return inside & ~_producible(y, lambda u: value_b - b + (u - t1) / p, t1 + (y - (value_b - b)) * p)
    return event


@pytest.mark.parametrize("name, make_event, value_a, value_b", [
    ("pm", _pm_event, 0.3, 0.2),
    ("sw", _sw_event, 0.45, 0.5),
])
@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_continuous_reports_are_not_distinguishable_by_their_bits(name, make_event, value_a, value_b, epsilon):
    mech = _make(name, epsilon)
    rng = np.random.default_rng(5)
    rep_a = np.asarray(mech.perturb(np.full(N, value_a), rng), dtype=np.float64)
    rep_b = np.asarray(mech.perturb(np.full(N, value_b), rng), dtype=np.float64)
    event = make_event(mech, value_b)
    holds, pa, pb = _bound_holds(event(rep_a), event(rep_b), epsilon)
    assert holds, f"{name} ε={epsilon}: Pr[E | A] = {pa:.4f}, Pr[E | B] = {pb:.4f}, beyond e^ε"


CONTINUOUS = [("she", {}), ("pm", {}), ("sw", {}), ("gw", {}), ("sw", {"d_tilde": 100}),
              ("gw", {"shape": "trapezoid:0.5"}), ("gw", {"shape": "square"})]


@pytest.mark.parametrize("name, params", CONTINUOUS)
@pytest.mark.parametrize("epsilon", [1e-4, 0.1, 1.0, 8.0])
def test_every_report_is_a_point_of_the_declared_grid(name, params, epsilon):
    mech = _make(name, epsilon, **params)
    grid = mech.output_grid
    rng = np.random.default_rng(3)
    if mech.input_kind == "codes":
        values = rng.integers(0, mech.d, 2_000)
    else:
        low = 0.0 if mech.input_kind == "unit" else -1.0
        values = rng.uniform(low, 1.0, 2_000)
    rep = np.asarray(mech.perturb(values, rng), dtype=np.float64)
    assert grid.contains(rep.ravel()).all()
    lo, hi = mech.output_range if hasattr(mech, "output_range") else (-np.inf, np.inf)
    assert grid.value(grid.lo_index) >= lo - 1e-12 and grid.value(grid.hi_index) <= hi + 1e-12
