"""A bracketed root of a scalar function: Brent's method, without importing ``scipy.optimize``.

``scipy.optimize`` costs 0.1 s to import on an idle core and 0.2 s on the dashboard's busy cold start, where the
first page needs one root (the verdict's "ε needed"); every root the engine solves goes through :func:`brentq`
here instead, with the same contract as ``scipy.optimize.brentq`` (the tests check the two agree).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ldp.core.errors import InvalidInput

#: The smallest relative tolerance accepted (as SciPy's: four times the float64 machine epsilon).
RTOL_MIN = 4 * 2.220446049250313e-16


def brentq(f: Callable[[float], float], a: float, b: float, *, xtol: float = 2e-12, rtol: float = RTOL_MIN,
           maxiter: int = 100) -> float:
    """A root of ``f`` in [a, b], where f(a) and f(b) differ in sign, by Brent's method (Brent 1973, ch. 4, the
    procedure *zero*): each step takes inverse quadratic interpolation through the last three points (the secant
    through two), or bisects when that step would leave the bracket or shrink it too slowly, so it converges at
    least as surely as bisection and superlinearly near a simple root.

    The bracket [b, c] always holds a sign change; the search stops when its half-width is at most
    (xtol + rtol·|b|)/2 — SciPy's criterion — or f(b) = 0, and returns b.

    Parameters
    ----------
    f : callable
        A continuous function of one float, returning a float.
    a, b : float
        The bracket's ends (finite), with f(a)·f(b) ≤ 0.
    xtol : float, default 2e-12
        Absolute tolerance on the root (positive).
    rtol : float, default 4·2⁻⁵²
        Relative tolerance on the root (at least :data:`RTOL_MIN`).
    maxiter : int, default 100
        The most steps taken.

    Returns
    -------
    float
        The root found.

    Raises
    ------
    InvalidInput
        If f(a) and f(b) have the same sign (or either is NaN), an end is not finite, a tolerance is out of range, or
        no root is found within ``maxiter`` steps.
    """
    if not (math.isfinite(a) and math.isfinite(b)):
        raise InvalidInput(f"the bracket [{a}, {b}] must be finite")
    if not (xtol > 0 and rtol >= RTOL_MIN and maxiter >= 1):
        raise InvalidInput(f"need xtol > 0, rtol ≥ {RTOL_MIN:.3g} and maxiter ≥ 1, got {xtol}, {rtol}, {maxiter}")
    fa, fb = float(f(a)), float(f(b))
    if fa == 0.0:
        return float(a)
    if fb == 0.0:
        return float(b)
    if not (fa < 0.0 < fb or fb < 0.0 < fa):
        raise InvalidInput(f"f(a) = {fa:g} and f(b) = {fb:g} must differ in sign for a root in [{a}, {b}]")
    a, b = float(a), float(b)
    c, fc = b, fb
    d = e = b - a
    for _ in range(maxiter):
        if (fb > 0.0) == (fc > 0.0):  # the sign change is between a and b: c takes a's place
            c, fc = a, fa
            d = e = b - a
        if abs(fc) < abs(fb):  # b is the best point so far
            a, b, c = b, c, b
            fa, fb, fc = fb, fc, fb
        tol = 0.5 * (xtol + rtol * abs(b))
        m = 0.5 * (c - b)
        if abs(m) <= tol or fb == 0.0:
            return b
        if abs(e) >= tol and abs(fa) > abs(fb):
            s = fb / fa
            if a == c:  # two points: the secant
                p, q = 2.0 * m * s, 1.0 - s
            else:  # three points: inverse quadratic interpolation
                q, r = fa / fc, fb / fc
                p = s * (2.0 * m * q * (q - r) - (b - a) * (r - 1.0))
                q = (q - 1.0) * (r - 1.0) * (s - 1.0)
            if p > 0.0:
                q = -q
            p = abs(p)
            if 2.0 * p < min(3.0 * m * q - abs(tol * q), abs(e * q)):  # inside the bracket, and shrinking fast
                e, d = d, p / q
            else:
                d = e = m
        else:
            d = e = m
        a, fa = b, fb
        b += d if abs(d) > tol else math.copysign(tol, m)
        fb = float(f(b))
        if math.isnan(fb):
            raise InvalidInput(f"f({b}) is NaN: no root can be bracketed there")
    if fb == 0.0:  # the last step landed on a root
        return b
    raise InvalidInput(f"no root found within {maxiter} steps (the bracket was narrowed to [{min(b, c)}, "
                       f"{max(b, c)}])")
