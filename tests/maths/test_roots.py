"""ldp.maths.roots.brentq against its definition and against scipy.optimize.brentq (the contract it replaces)."""

from __future__ import annotations

import math

import pytest
from scipy import optimize

from ldp.core.errors import InvalidInput
from ldp.maths.roots import RTOL_MIN, brentq

# (f, a, b): simple roots, a root at a bracket end, a flat function, a steep one, a kink, a discontinuity
CASES = [
    (lambda x: x * x - 2.0, 0.0, 2.0),
    (lambda x: math.cos(x) - x, 0.0, 1.0),
    (lambda x: math.exp(x) - 1e6, 0.0, 20.0),
    (lambda x: (x - 0.3) ** 3, -1.0, 1.0),  # a triple root: f is flat near it
    (lambda x: math.log(x) + 30.0, 1e-20, 1.0),  # the root 9.4e-14 is tiny against the bracket
    (lambda x: abs(x - 0.7) * (1 if x > 0.7 else -1) ** 3, 0.0, 1.0),
    (lambda x: -1.0 if x < 1 / 3 else 1.0, 0.0, 1.0),  # a jump: the sign change is still found
    (lambda x: x**9 - 1e-9 * x, 0.01, 2.0),
]


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("xtol, rtol", [(2e-12, RTOL_MIN), (1e-15, 1e-15), (1e-6, 1e-6)])
def test_the_root_is_within_the_tolerance_of_scipys(case, xtol, rtol):
    """Both stop once the sign change is bracketed within (xtol + rtol·|x|): the roots they return (not
    necessarily the same float) are then within twice that of each other, and each brackets a sign change."""
    f, a, b = CASES[case]
    ours = brentq(f, a, b, xtol=xtol, rtol=rtol, maxiter=500)
    theirs = optimize.brentq(f, a, b, xtol=xtol, rtol=rtol, maxiter=500)
    assert a <= ours <= b
    assert abs(ours - theirs) <= 2 * (xtol + rtol * abs(theirs)) + 1e-300
    step = xtol + rtol * abs(ours)
    lo, hi = f(max(a, ours - step)), f(min(b, ours + step))
    assert f(ours) == 0 or lo * hi <= 0 or lo == 0 or hi == 0  # a sign change within one tolerance of it


def test_a_root_at_a_bracket_end_is_returned_as_is():
    assert brentq(lambda x: x - 1.0, 1.0, 3.0) == 1.0
    assert brentq(lambda x: x - 3.0, 1.0, 3.0) == 3.0


def test_the_steps_are_few_on_a_smooth_root():
    """Superlinear convergence: √2 to 1e-15 in at most 12 evaluations (bisection needs 51)."""
    calls = []

    def f(x: float) -> float:
        calls.append(x)
        return x * x - 2.0

    root = brentq(f, 0.0, 2.0, xtol=1e-15, rtol=1e-15)
    assert abs(root - math.sqrt(2)) <= 4e-15
    assert len(calls) <= 12


@pytest.mark.parametrize("kwargs, reason", [
    ({"f": lambda x: x * x + 1.0, "a": -1.0, "b": 1.0}, "differ in sign"),
    ({"f": lambda x: float("nan"), "a": -1.0, "b": 1.0}, "differ in sign"),
    ({"f": lambda x: x, "a": -math.inf, "b": 1.0}, "finite"),
    ({"f": lambda x: x, "a": -1.0, "b": 1.0, "rtol": 1e-17}, "rtol"),
    ({"f": lambda x: x, "a": -1.0, "b": 1.0, "xtol": 0.0}, "xtol"),
    ({"f": lambda x: x - 0.3, "a": -1.0, "b": 1.0, "maxiter": 1}, "no root found within 1 steps"),
    ({"f": lambda x: -1.0 if x < 0 else (float("nan") if x < 0.9 else 1.0), "a": -1.0, "b": 1.0}, "NaN"),
])
def test_bad_input_gets_one_clear_reason(kwargs, reason):
    with pytest.raises(InvalidInput, match=reason):
        brentq(**kwargs)
