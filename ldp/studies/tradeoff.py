"""Trade-off curves: estimation error against ε (or the number of users n, or the domain size d).

Pure functions behind the Trade-off page:

* ``epsilon_grid`` / ``log_int_grid``: log-spaced sweep grids;
* ``closed_form_curve`` / ``closed_form_curves``: the closed-form error of matrix inversion (MI) from
  ``Mechanism.variance`` (exact for MSE and top-k MSE; normal approximation for MAE and L1);
* ``crossovers``: where one mechanism's curve overtakes another's (bracketing root finder);
* ``users_needed`` / ``epsilon_needed``: the inverse question, "how many users / which ε for an
  error of at most x?", and ``check_by_simulation`` to verify an answer empirically;
* ``run_tradeoff_sweep``: the one sweep driver (:func:`ldp.simulation.sweep`) on the page's population, with a
  progress callback; ``summarize_sweep`` (mean and confidence band per curve point);
* ``frequency_source``: what a sweep runs on (along d: a synthetic family regenerated, a numerical column
  re-bucketized); ``sweep_grids`` and ``closed_form_study`` (curves and their crossings) for the page;
* how long a sweep will take: :mod:`ldp.studies.cost` and ``sweep_estimator_seconds``.

The population of a configuration is the dataset's distribution scaled to n users by largest-remainder
rounding (``population_counts``): it is fixed, so all the randomness is the mechanism's, and the
closed form uses exactly the frequencies that are simulated.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from ldp.core.errors import InvalidInput
from ldp.core.params import check_positive_int
from ldp.core.registry import ESTIMATORS, MECHANISMS, METRICS
from ldp.data import true_distribution
from ldp.evaluation.metrics import DEFAULT_METRICS, get_metric
from ldp.maths.roots import brentq
from ldp.maths.rounding import largest_remainder
from ldp.mechanisms import get_mechanism
from ldp.mechanisms.base import Mechanism
from ldp.simulation import SweepConfiguration, SweepPopulation, simulate, sweep
from ldp.studies.attacks import attack_success
from ldp.studies.cost import time_estimators
from ldp.studies.datasets import Dataset, synthetic_spec

__all__ = ["AXES", "CLOSED_FORM_METRICS", "FREQUENCY_METRICS", "NUMERICAL_SWEEP_METRICS", "TARGET_MEASURES", "Z95",
           "FreqSource", "FrequencySource", "ScaledPopulation", "attack_curve", "build_mechanism",
           "check_by_simulation", "closed_form_curve", "closed_form_curves", "closed_form_function",
           "closed_form_measure", "closed_form_study", "closed_form_value", "crossovers", "epsilon_grid",
           "epsilon_needed", "frequency_source", "grr_oue_crossover", "log_int_grid", "numerical_sweep",
           "population_counts", "rebin_frequencies", "run_configuration", "run_tradeoff_sweep",
           "simulated_attack_points", "summarize_sweep", "sweep_configurations", "sweep_estimator_seconds",
           "sweep_grids", "users_needed"]

FREQUENCY_METRICS = DEFAULT_METRICS["frequency"]
AXES = {"epsilon": "privacy budget ε", "users": "users n", "d": "domain size d"}
# Metrics of frequencies with a closed form for matrix inversion, and how good it is (the metrics' own hooks).
CLOSED_FORM_METRICS = {m.name: m.closed_form_quality for m in METRICS
                       if m.closed_form is not None and "frequency" in m.kinds}
# Target measures of the inverse question: both scale as 1/n in variance.
TARGET_MEASURES = {"mse": "MSE (mean squared error over the values)",
                   "sd": "per-value standard deviation (of the least precise value)"}
EPS_MIN, EPS_MAX = 0.01, 10.0
Z95 = 1.959963984540054


# --------------------------------------------------------------------------- grids and populations
def epsilon_grid(lo: float = 0.1, hi: float = 10.0, points: int = 10) -> np.ndarray:
    """``points`` log-spaced ε values from ``lo`` to ``hi`` (both included).

    Parameters
    ----------
    lo : float, default 0.1
        The smallest ε (positive, finite).
    hi : float, default 10.0
        The largest ε (at least ``lo``; equal only for one point).
    points : int, default 10
        How many values (a positive integer, not a bool).

    Returns
    -------
    numpy.ndarray
        Shape (points,), float64, geometrically spaced; ``[lo]`` when ``points`` is 1.

    Raises
    ------
    InvalidInput
        When ``points`` is not a positive integer, ``lo`` is not positive and finite, ``hi`` is not finite, or
        ``hi`` is below ``lo`` (equal only with one point).
    """
    if isinstance(points, bool) or not isinstance(points, (int, np.integer)) or points < 1:
        raise InvalidInput(f"the number of ε points must be a positive integer, got {points!r}")
    lo, hi = float(lo), float(hi)
    if not (math.isfinite(lo) and math.isfinite(hi)) or lo <= 0:
        raise InvalidInput(f"ε must be positive and finite; got a range from {lo:g} to {hi:g}")
    if hi < lo or (hi == lo and points > 1):
        raise InvalidInput(f"the largest ε ({hi:g}) must be above the smallest ({lo:g}); widen the range")
    if points == 1:
        return np.array([lo])
    return np.geomspace(lo, hi, int(points))


def log_int_grid(lo: int, hi: int, points: int) -> np.ndarray:
    """Up to ``points`` distinct log-spaced integers from ``lo`` to ``hi`` (for n or d).

    Parameters
    ----------
    lo : int
        The first integer (at least 1).
    hi : int
        The last one (at least ``lo``).
    points : int
        The number of log-spaced points before rounding (a positive integer).

    Returns
    -------
    numpy.ndarray
        int64, sorted and distinct: the rounded log-spaced points, so possibly fewer than ``points`` where the
        rounding merges neighbours; ``[lo]`` when ``points`` is 1 or ``hi == lo``.

    Raises
    ------
    InvalidInput
        When ``points`` is not a positive integer, or not 1 ≤ ``lo`` ≤ ``hi``.
    """
    if isinstance(points, bool) or not isinstance(points, (int, np.integer)) or points < 1:
        raise InvalidInput(f"the number of points must be a positive integer, got {points!r}")
    lo, hi = int(lo), int(hi)
    if lo < 1 or hi < lo:
        raise InvalidInput(f"the range must satisfy 1 ≤ from ≤ to, got {lo} to {hi}")
    if points == 1 or hi == lo:
        return np.array([lo], dtype=np.int64)
    return np.unique(np.round(np.geomspace(lo, hi, int(points))).astype(np.int64))


def _normalise(freqs: np.ndarray | Sequence[float]) -> np.ndarray:
    f = np.asarray(freqs, dtype=np.float64)
    if f.ndim != 1 or f.size < 2:
        raise InvalidInput("the distribution needs at least two values")
    if not np.all(np.isfinite(f)) or np.any(f < 0) or f.sum() <= 0:
        raise InvalidInput("frequencies must be finite, non-negative and not all zero")
    return f / f.sum()


def population_counts(freqs: np.ndarray | Sequence[float], n: int) -> np.ndarray:
    """Users per value: ``freqs`` scaled to exactly ``n`` users (largest-remainder rounding).

    Parameters
    ----------
    freqs : array-like of float
        A distribution over d ≥ 2 values (finite, non-negative, not all zero; normalised here).
    n : int
        The number of users (positive).

    Returns
    -------
    numpy.ndarray
        Shape (d,), integers summing to exactly n: n·f rounded by the largest-remainder method.

    Raises
    ------
    InvalidInput
        When the distribution is malformed or ``n`` is not a positive integer.
    """
    return largest_remainder(_normalise(freqs), check_positive_int(n, "the number of users"))


def rebin_frequencies(freqs: np.ndarray | Sequence[float], d: int) -> np.ndarray:
    """Re-bucketize a histogram over equal-width bins into ``d`` equal-width bins over the same range,
    assuming values spread uniformly inside each original bin (mass-preserving).

    Parameters
    ----------
    freqs : array-like of float
        A histogram over equal-width bins of some range (at least two bins; normalised here).
    d : int
        The new number of equal-width bins (an integer ≥ 2).

    Returns
    -------
    numpy.ndarray
        Shape (d,), the re-bucketized frequencies (non-negative, summing to 1), read off the piecewise-linear CDF.

    Raises
    ------
    InvalidInput
        When the histogram is malformed or ``d`` is not an integer ≥ 2.
    """
    f = _normalise(freqs)
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 2:
        raise InvalidInput(f"the domain size must be an integer ≥ 2, got {d!r}")
    cdf = np.concatenate([[0.0], np.cumsum(f)])
    old = np.linspace(0.0, 1.0, f.size + 1)
    new = np.linspace(0.0, 1.0, int(d) + 1)
    out = np.diff(np.interp(new, old, cdf))
    return _normalise(np.maximum(out, 0.0))


# --------------------------------------------------------------------------- closed forms
def build_mechanism(name: str, epsilon: float, d: int, params: Mapping[str, Any] | None = None) -> Mechanism:
    """The registered mechanism at ε with its own parameters (derived defaults where not given).

    Parameters
    ----------
    name : str
        The mechanism's registry name (or alias).
    epsilon : float
        Its privacy budget.
    d : int
        The domain size.
    params : mapping or None, default None
        The mechanism's own parameters (e.g. OLH's ``g``); None or missing keys take the defaults derived from ε
        and d.

    Returns
    -------
    Mechanism
        A fresh instance (constructors only store validated parameters).

    Raises
    ------
    InvalidInput
        When the name is unknown or a parameter is invalid for it.
    """
    return get_mechanism(name, float(epsilon), int(d), **dict(params or {}))


def closed_form_value(mechanism: Mechanism, freqs: np.ndarray, n: int, metric: str = "mse",
                      top_k: int = 10) -> float:
    """The expected error of matrix inversion from the closed-form variance; NaN without a closed form
    (each metric's own :meth:`~ldp.evaluation.metrics.Metric.expected`: MSE and top-k MSE exact, MAE and L1 by
    the normal approximation).

    Parameters
    ----------
    mechanism : Mechanism
        The mechanism (its ``variance(freqs, n)`` gives each value's Var[f̂_v]).
    freqs : numpy.ndarray
        The true frequencies, shape (d,).
    n : int
        The number of users.
    metric : str, default "mse"
        A registered metric name (``ldp.METRICS``) whose ``expected`` hook is used.
    top_k : int, default 10
        The number of most frequent values a top-k metric looks at.

    Returns
    -------
    float
        The metric's expected value for the unbiased MI estimate, NaN when the metric has no closed form.

    References
    ----------
    Wang, Lopuhaä-Zwakenberg, Li, Skoric, Li, "Locally Differentially Private Frequency Estimation with Consistency"
    (NDSS 2020), Eq. (3) (σ_v² of MI) and Eq. (4) (the normal approximation).
    """
    var = np.asarray(mechanism.variance(freqs, int(n)), dtype=np.float64)
    return get_metric(metric).expected(var, np.asarray(freqs), k=top_k)


def closed_form_curve(mechanism_name: str, epsilons: Sequence[float] | np.ndarray, d: int, n: int,
                      freqs: np.ndarray | Sequence[float] | None = None, params: Mapping[str, Any] | None = None,
                      *, metric: str = "mse", top_k: int = 10) -> np.ndarray:
    """Closed-form error of MI at every ε of ``epsilons`` (``freqs=None``: the small-frequency limit
    f → 0, the comparison table's variance).

    Parameters
    ----------
    mechanism_name : str
        The mechanism's registry name.
    epsilons : sequence of float or numpy.ndarray
        The ε values.
    d : int
        The domain size.
    n : int
        The number of users.
    freqs : array-like of float or None, default None
        The true distribution over the d values; None: all frequencies 0 (the limit f → 0).
    params : mapping or None, default None
        The mechanism's own parameters, as in :func:`build_mechanism`.
    metric : str, default "mse"
        The metric whose expectation is computed.
    top_k : int, default 10
        Passed to :func:`closed_form_value`.

    Returns
    -------
    numpy.ndarray
        Shape (len(epsilons),): the closed-form error at each ε (NaN where the metric has none).

    Raises
    ------
    InvalidInput
        When ``freqs`` does not have d values or is malformed, or the mechanism cannot be built.

    References
    ----------
    Wang, Lopuhaä-Zwakenberg, Li, Skoric, Li (NDSS 2020), Eq. (3) and Eq. (5) (its f → 0 limit); the lecture "Local
    Differential Privacy (Part 1)", slide "Comparison of Mechanisms" (Var[c̃(i)]/n per protocol).
    """
    f = np.zeros(int(d)) if freqs is None else _normalise(freqs)
    if f.size != int(d):
        raise InvalidInput(f"the distribution has {f.size} values but d = {d}")
    return np.array([closed_form_value(build_mechanism(mechanism_name, e, d, params), f, n, metric, top_k)
                     for e in np.asarray(epsilons, dtype=np.float64)])


FreqSource = np.ndarray | Sequence[float] | Callable[[int], np.ndarray]


def _freqs_at(freqs: FreqSource, d: int | None) -> np.ndarray:
    if callable(freqs):
        if d is None:
            raise InvalidInput("a domain size is needed")
        return _normalise(freqs(int(d)))
    return _normalise(freqs)


def _configuration(axis: str, x: float, epsilon: float, users: int) -> tuple[float, int, int | None]:
    """(ε, n, d) of the grid point x along ``axis`` (d is None unless d is the axis)."""
    if axis == "epsilon":
        return float(x), int(users), None
    if axis == "users":
        return float(epsilon), int(round(x)), None
    if axis == "d":
        return float(epsilon), int(users), int(round(x))
    raise InvalidInput(f"unknown sweep axis {axis!r}; choose one of: {', '.join(AXES)}")


def closed_form_function(mechanism_name: str, axis: str, freqs: FreqSource, *, epsilon: float = 1.0,
                         users: int = 100_000, metric: str = "mse", params: Mapping[str, Any] | None = None,
                         top_k: int = 10) -> Callable[[float], float]:
    """x ↦ closed-form error of MI along ``axis`` (ε or n; d is integer-valued and has none).

    Parameters
    ----------
    mechanism_name : str
        The mechanism's registry name.
    axis : str
        "epsilon" or "users" ("d" is refused).
    freqs : array-like of float or callable
        The true distribution (a callable d ↦ distribution is refused, there being no d to call it with).
    epsilon : float, default 1.0
        The fixed ε along the "users" axis.
    users : int, default 100_000
        The fixed n along the "epsilon" axis.
    metric : str, default "mse"
        A registered metric name; MSE and top-k MSE scale as 1/n, the others as 1/√n.
    params : mapping or None, default None
        The mechanism's own parameters, held fixed along the axis.
    top_k : int, default 10
        k of a top-k metric.

    Returns
    -------
    callable
        x ↦ float: the closed-form error at ε = x, or at n = x users (computed at n = 1 and scaled by x^−1 or
        x^−½). An unknown ``axis`` is refused when the function is called.

    Raises
    ------
    InvalidInput
        When ``axis`` is "d", or ``freqs`` is a callable or malformed.
    """
    if axis == "d":
        raise InvalidInput("the domain size is an integer: there is no continuous closed-form function of d")

    f = _freqs_at(freqs, None)
    power = 1.0 if metric in ("mse", "topk_mse") else 0.5  # every closed form here is ∝ n^-power

    def value(x: float) -> float:
        if axis == "epsilon":
            return closed_form_value(build_mechanism(mechanism_name, x, f.size, params), f, users, metric, top_k)
        if axis == "users":
            mech = build_mechanism(mechanism_name, epsilon, f.size, params)
            return closed_form_value(mech, f, 1, metric, top_k) / float(x) ** power
        raise InvalidInput(f"unknown sweep axis {axis!r}; choose one of: {', '.join(AXES)}")

    return value


def closed_form_curves(mechanisms: Sequence[str], axis: str, grid: Sequence[float] | np.ndarray,
                       freqs: FreqSource, *, epsilon: float = 1.0, users: int = 100_000, metric: str = "mse",
                       params: Mapping[str, Mapping[str, Any]] | None = None, top_k: int = 10) -> pd.DataFrame:
    """Tidy table (mechanism, x, epsilon, users, d, value) of the closed-form MI error on ``grid``.

    Parameters
    ----------
    mechanisms : sequence of str
        Registry names.
    axis : str
        "epsilon", "users" or "d" (:data:`AXES`).
    grid : sequence of float or numpy.ndarray
        The points along the axis (ε, or n and d rounded to integers).
    freqs : array-like of float or callable
        The distribution, or for the d axis a function d ↦ distribution.
    epsilon : float, default 1.0
        The privacy budget used off the ε axis.
    users : int, default 100_000
        The number of users used off the users axis.
    metric : str, default "mse"
        A registered metric name (the "value" column).
    params : mapping of str to mapping or None, default None
        Each mechanism's own parameters, by name.
    top_k : int, default 10
        The k of the top-k metrics.

    Returns
    -------
    pandas.DataFrame
        One row per (mechanism, point): "mechanism", "x", "epsilon", "users", "d", "value" (NaN without a closed
        form).

    Raises
    ------
    InvalidInput
        On an unknown axis, a malformed distribution, or a mechanism that cannot be built.
    """
    rows = []
    for name in mechanisms:
        for x in np.asarray(grid, dtype=np.float64):
            eps, n, d = _configuration(axis, x, epsilon, users)
            f = _freqs_at(freqs, d)
            mech = build_mechanism(name, eps, f.size, (params or {}).get(name))
            rows.append({"mechanism": name, "x": float(x), "epsilon": eps, "users": n, "d": f.size,
                         "value": closed_form_value(mech, f, n, metric, top_k)})
    return pd.DataFrame(rows, columns=["mechanism", "x", "epsilon", "users", "d", "value"])


# --------------------------------------------------------------------------- crossovers
def crossovers(curves: Mapping[str, np.ndarray | Sequence[float]], epsilons: Sequence[float] | np.ndarray, *,
               functions: Mapping[str, Callable[[float], float]] | None = None, tolerance: float = 0.02,
               merge: float = 0.25) -> list[tuple[float, str, str]]:
    """Where one curve overtakes another: ``[(x, a, b), …]`` sorted by x.

    ``curves`` maps a name to its values on the grid ``epsilons`` (any increasing positive grid).
    A crossing is a change of sign of ln(a/b) between grid points where the curves differ by more
    than ``tolerance`` (relative). Given ``functions`` (name → exact curve), it is solved with Brent's
    bracketing root finder on ln(a(x)/b(x)); otherwise ln(a/b) is interpolated linearly in ln x.
    Crossings of one pair closer than ``merge`` in ln x are ripples (e.g. OLH's integer g around
    another curve): an even number of them cancels out, an odd number counts as one overtaking,
    reported at the middle one.

    Parameters
    ----------
    curves : mapping of str to array-like
        Each curve's positive values, one per grid point.
    epsilons : sequence of float or numpy.ndarray
        The grid (positive, strictly increasing; ε or any other axis).
    functions : mapping of str to callable or None, default None
        Exact curves x ↦ value by name, for Brent's method; a pair missing from it is interpolated.
    tolerance : float, default 0.02
        Relative difference below which two curves count as touching, not crossing.
    merge : float, default 0.25
        Distance in ln x within which crossings of one pair form one cluster.

    Returns
    -------
    list of (float, str, str)
        (x, a, b) per overtaking of curves a and b (a before b in ``curves``' order), sorted by x.

    Raises
    ------
    InvalidInput
        When the grid is not positive and strictly increasing, or a curve has not one value per point.
    """
    x = np.asarray(epsilons, dtype=np.float64)
    if x.ndim != 1 or np.any(np.diff(x) <= 0) or np.any(x <= 0):
        raise InvalidInput("the grid must be positive and strictly increasing")
    names = list(curves)
    tol = math.log1p(tolerance)
    out: list[tuple[float, str, str]] = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            va, vb = np.asarray(curves[a], dtype=np.float64), np.asarray(curves[b], dtype=np.float64)
            if va.shape != x.shape or vb.shape != x.shape:
                raise InvalidInput(f"curves {a} and {b} must have one value per grid point")
            with np.errstate(divide="ignore", invalid="ignore"):
                diff = np.log(va) - np.log(vb)
            clear = [k for k in range(x.size) if np.isfinite(diff[k]) and abs(diff[k]) > tol]
            roots = [_root(x, diff, k0, k1, a, b, functions) for k0, k1 in zip(clear, clear[1:], strict=False)
                     if np.sign(diff[k0]) != np.sign(diff[k1])]
            cluster: list[float] = []
            for r in [*roots, math.inf]:
                if cluster and (r == math.inf or math.log(r) - math.log(cluster[-1]) >= merge):
                    if len(cluster) % 2 == 1:
                        out.append((cluster[len(cluster) // 2], a, b))
                    cluster = []
                cluster.append(r)
    return sorted(out, key=lambda t: t[0])


def _root(x: np.ndarray, diff: np.ndarray, k0: int, k1: int, a: str, b: str,
          functions: Mapping[str, Callable[[float], float]] | None) -> float:
    if functions is not None and a in functions and b in functions:
        fa, fb = functions[a], functions[b]

        def g(t: float) -> float:
            return math.log(fa(t)) - math.log(fb(t))

        return float(brentq(g, x[k0], x[k1], xtol=1e-12, rtol=1e-12))
    # the first raw sign change inside the bracket, interpolated in ln x
    for k in range(k0, k1):
        if diff[k] == 0:
            return float(x[k])
        if np.sign(diff[k]) != np.sign(diff[k + 1]) and np.isfinite(diff[k + 1]):
            t = diff[k] / (diff[k] - diff[k + 1])
            return float(math.exp(math.log(x[k]) + t * (math.log(x[k + 1]) - math.log(x[k]))))
    return float(x[k1])  # pragma: no cover - a sign change always exists inside the bracket


def grr_oue_crossover(d: int) -> float | None:
    """ε at which GRR and OUE have equal small-frequency variance: d = 3e^ε + 2, i.e. ε = ln((d − 2)/3).

    Parameters
    ----------
    d : int
        The domain size.

    Returns
    -------
    float or None
        ln((d − 2)/3); None for d ≤ 5, where GRR is better at every ε > 0.

    References
    ----------
    The lecture "Local Differential Privacy (Part 1)", slide "Comparison of Mechanisms" ("if d < 3e^ε + 2 use DE");
    Wang, Blocki, Li, Jha, "Locally Differentially Private Protocols for Frequency Estimation" (USENIX Security 2017).
    """
    return math.log((d - 2) / 3) if d > 5 else None


# --------------------------------------------------------------------------- the inverse question
def _measure(mechanism: Mechanism, freqs: np.ndarray, n: int, measure: str) -> float:
    """Variance-like quantity ∝ 1/n: MSE (mean variance) or the largest per-value variance."""
    var = mechanism.variance(freqs, n)
    if measure == "mse":
        return float(np.mean(var))
    if measure == "sd":
        return float(np.max(var))
    raise InvalidInput(f"unknown target measure {measure!r}; choose one of: {', '.join(TARGET_MEASURES)}")


def _target_variance(target: float, measure: str) -> float:
    if not (isinstance(target, (int, float, np.floating)) and math.isfinite(target) and target > 0):
        raise InvalidInput(f"the target error must be a positive number, got {target!r}")
    return float(target) if measure == "mse" else float(target) ** 2


def closed_form_measure(mechanism_name: str, epsilon: float, n: int, freqs: np.ndarray | Sequence[float],
                        measure: str = "mse", params: Mapping[str, Any] | None = None) -> float:
    """The closed-form MSE (or the least precise value's standard deviation) at (ε, n).

    Parameters
    ----------
    mechanism_name : str
        The mechanism's registry name.
    epsilon : float
        Its privacy budget.
    n : int
        The number of users.
    freqs : array-like of float
        The true distribution (normalised here).
    measure : str, default "mse"
        "mse" (the mean of the values' variances) or "sd" (the square root of the largest one), :data:`TARGET_MEASURES`.
    params : mapping or None, default None
        The mechanism's own parameters.

    Returns
    -------
    float
        The MSE (a squared frequency) or the standard deviation (a frequency).

    Raises
    ------
    InvalidInput
        For an unknown measure, a malformed distribution, or a mechanism that cannot be built.

    References
    ----------
    Wang, Lopuhaä-Zwakenberg, Li, Skoric, Li (NDSS 2020), Eq. (3).
    """
    f = _normalise(freqs)
    v = _measure(build_mechanism(mechanism_name, epsilon, f.size, params), f, int(n), measure)
    return v if measure == "mse" else math.sqrt(v)


def users_needed(mechanism_name: str, epsilon: float, freqs: np.ndarray | Sequence[float], target: float, *,
                 measure: str = "mse", params: Mapping[str, Any] | None = None, n0: int = 100_000) -> int:
    """Smallest n whose closed-form error is at most ``target`` at ε.

    The variance is exactly ∝ 1/n, so n = ⌈n0 · V(n0) / x⌉ with x the target variance (the target
    MSE, or the squared target standard deviation).

    Parameters
    ----------
    mechanism_name : str
        The mechanism asked about.
    epsilon : float
        Its fixed privacy budget.
    freqs : array-like of float
        The distribution whose values are estimated.
    target : float
        The largest acceptable error: an MSE for ``measure`` "mse", a standard deviation for "sd" (positive).
    measure : str, default "mse"
        What ``target`` bounds (:data:`TARGET_MEASURES`).
    params : mapping or None, default None
        Parameters of the mechanism, as in :func:`build_mechanism`.
    n0 : int, default 100_000
        The n at which the variance is evaluated before scaling (any positive value gives the same answer).

    Returns
    -------
    int
        The smallest n ≥ 1 meeting the target.

    Raises
    ------
    InvalidInput
        When ``target`` is not a positive finite number, the measure is unknown, or the mechanism cannot be built.

    References
    ----------
    Wang, Lopuhaä-Zwakenberg, Li, Skoric, Li (NDSS 2020), Eq. (3) (σ_v² ∝ 1/n).
    """
    f = _normalise(freqs)
    xv = _target_variance(target, measure)
    v0 = _measure(build_mechanism(mechanism_name, epsilon, f.size, params), f, int(n0), measure)
    ratio = int(n0) * v0 / xv
    n = max(1, math.ceil(ratio * (1 - 1e-12)))
    return int(n)


def _integer_parameters(mechanism: Mechanism) -> tuple[tuple[str, int], ...]:
    """The mechanism's resolved integer parameters (e.g. OLH's g and P): ε-dependent choices that make its
    error jump, while every real-valued one (ε₁ = ε/2, SW's b) moves continuously with ε."""
    return tuple(sorted((k, int(v)) for k, v in mechanism.params.items()
                        if isinstance(v, (int, np.integer)) and not isinstance(v, bool)))


def _parameter_breakpoints(name: str, d: int, params: Mapping[str, Any], lo: float, hi: float,
                           scan_points: int) -> Iterator[tuple[float, float, dict[str, int]]]:
    """[lo, hi] cut into pieces on which the derived integer parameters are constant: (start, end, parameters)
    per piece, in order. The cuts are the mechanism's own (``epsilon_breakpoints``, closed form) or, where it does not
    know them, located generically: a scan, then bisection (to 1e-13 relative) on every change between scan
    points — repeated within an interval until its two ends agree, so several changes between two scan
    points are all found (a parameter that changes and changes back between them would be missed; the
    derived integer parameters we have are monotone in ε)."""
    def signature(eps: float) -> tuple[tuple[str, int], ...]:
        return _integer_parameters(build_mechanism(name, eps, d, params))

    cuts = MECHANISMS.get(name).epsilon_breakpoints(lo, hi, d, dict(params))
    if cuts is None:
        grid = np.geomspace(lo, hi, scan_points)
        cuts = []
        for k in range(1, len(grid)):
            a, right = float(grid[k - 1]), signature(float(grid[k]))
            while signature(a) != right:
                left, b = signature(a), float(grid[k])
                while b - a > 1e-13 * b:  # invariant: signature(a) == left != signature(b)
                    mid = 0.5 * (a + b)
                    if signature(mid) == left:
                        a = mid
                    else:
                        b = mid
                cuts.append(b)
                a = b
    edges = [float(lo), *[c for c in cuts if lo < c < hi], float(hi)]
    for start, end in zip(edges[:-1], edges[1:], strict=True):  # lazily: the caller stops at the first piece it needs
        fixed = dict(signature(math.sqrt(start * end)))  # inside the piece, clear of rounding at its ends
        yield start, end, {k: v for k, v in fixed.items() if k not in params}


def epsilon_needed(mechanism_name: str, n: int, freqs: np.ndarray | Sequence[float], target: float, *,
                   measure: str = "mse", params: Mapping[str, Any] | None = None, lo: float = EPS_MIN,
                   hi: float = EPS_MAX, scan_points: int = 200) -> float | None:
    """Smallest ε in [lo, hi] whose closed-form error at n users is at most ``target`` (the infimum where
    the set is open at a jump), or None when no ε in [lo, hi] reaches it.

    With every parameter fixed, the error decreases continuously in ε (p* − q* grows). But parameters a
    mechanism derives from ε as integers (OLH's g = round(e^ε + 1), the hash prime P) make it jump, so the
    error is not monotone in ε: a target can be met just before a jump in g and missed again after it.
    [lo, hi] is therefore cut where those integer parameters change (found by bisection), and each piece —
    on which the error is continuous and decreasing — is solved exactly (Brent's method) in order; the
    first piece that reaches the target holds the minimum.

    Parameters
    ----------
    mechanism_name : str
        Registry name of the mechanism whose ε is sought.
    n : int
        The fixed number of users.
    freqs : array-like of float
        The distribution estimated.
    target : float
        The error to reach: an MSE, or a standard deviation with ``measure`` "sd" (positive).
    measure : str, default "mse"
        "mse" or "sd" (:data:`TARGET_MEASURES`).
    params : mapping or None, default None
        Parameters fixed by the caller; the integer ones not given are derived from ε on each piece.
    lo : float, default 0.01
        The smallest ε searched.
    hi : float, default 10.0
        The largest ε searched.
    scan_points : int, default 200
        Scan points for locating parameter changes where the mechanism does not give them (3 to 10,000).

    Returns
    -------
    float or None
        The smallest ε in [lo, hi] meeting the target, or None.

    Raises
    ------
    InvalidInput
        When ``target`` is not positive and finite, the measure is unknown, or not 0 < lo < hi (finite) with
        3 ≤ scan_points ≤ 10,000.

    References
    ----------
    Wang, Lopuhaä-Zwakenberg, Li, Skoric, Li (NDSS 2020), Eq. (3) and §III.B (OLH's g).
    """
    f = _normalise(freqs)
    xv = _target_variance(target, measure)
    if not (math.isfinite(lo) and math.isfinite(hi) and 0 < lo < hi and 3 <= scan_points <= 10_000):
        raise InvalidInput(f"need 0 < lo < hi (finite) and 3 ≤ scan_points ≤ 10,000, got lo={lo}, hi={hi}, "
                           f"scan_points={scan_points}")
    user = dict(params or {})
    for start, end, fixed in _parameter_breakpoints(mechanism_name, f.size, user, lo, hi, scan_points):

        def excess(eps: float, fixed: dict[str, int] = fixed) -> float:
            mech = build_mechanism(mechanism_name, eps, f.size, {**user, **fixed})
            return math.log(_measure(mech, f, int(n), measure) / xv)

        if excess(end) > 0:  # decreasing on the piece: its best is at its end
            continue
        if excess(start) <= 0:
            return float(start)
        return float(brentq(excess, start, end, xtol=1e-12, rtol=1e-12))
    return None


def check_by_simulation(mechanism_name: str, epsilon: float, n: int, freqs: np.ndarray | Sequence[float], *,
                        measure: str = "mse", trials: int = 40, seed: int | None = 0, engine: str = "fast",
                        params: Mapping[str, Any] | None = None) -> dict[str, float]:
    """Run ``trials`` collections at (ε, n) and measure the error empirically, with a 95 % interval.

    ``mse``: mean MSE of MI over trials ± 1.96 sd/√trials. ``sd``: root-mean-square error of the value
    with the largest closed-form variance, with a χ² interval.

    Parameters
    ----------
    mechanism_name : str
        The mechanism checked.
    epsilon : float
        Its privacy budget.
    n : int
        Users per collection (the distribution scaled by :func:`population_counts`).
    freqs : array-like of float
        The distribution.
    measure : str, default "mse"
        "mse" or "sd".
    trials : int, default 40
        The number of collections.
    seed : int or None, default 0
        The root seed of the simulation (:func:`ldp.simulate`).
    engine : str, default "fast"
        "fast" or "exact".
    params : mapping or None, default None
        The mechanism's own parameters.

    Returns
    -------
    dict
        "empirical", "low", "high" (the 95 % interval; NaN bounds for "mse" with one trial), "closed_form" (at the
        simulated frequencies) and "trials"; for "sd" also "value_index", the value checked.

    Raises
    ------
    InvalidInput
        For an unknown measure, a malformed distribution, or bad simulation arguments.
    """
    f = _normalise(freqs)
    mech = build_mechanism(mechanism_name, epsilon, f.size, params)
    counts = population_counts(f, int(n))
    res = simulate(mech, counts, estimators=["mi"], engine=engine, trials=int(trials), seed=seed,
                   metrics=("mse",))
    truth = res.true_frequencies
    if measure == "mse":
        vals = res.metrics["mi"]["mse"]
        mean = float(vals.mean())
        half = Z95 * float(vals.std(ddof=1)) / math.sqrt(trials) if trials > 1 else math.nan
        closed = float(np.mean(mech.variance(truth, res.n)))
        return {"empirical": mean, "low": mean - half, "high": mean + half, "closed_form": closed,
                "trials": int(trials)}
    if measure == "sd":
        var = mech.variance(truth, res.n)
        v = int(np.argmax(var))
        err = res.estimates["mi"][:, v] - truth[v]
        ss = float(np.sum(err**2))
        emp = math.sqrt(ss / trials)
        # χ²_trials quantiles: scipy.special.chdtri(df, 1 − q) = scipy.stats.chi2.ppf(q, df) to a few ulps,
        # without importing scipy.stats (0.4 s of the dashboard's start); SciPy itself on first use, off
        # `import ldp`'s way (ldp.maths.gaussian.normal_quantile)
        from scipy.special import chdtri

        low = math.sqrt(ss / chdtri(trials, 0.025))
        high = math.sqrt(ss / chdtri(trials, 0.975))
        return {"empirical": emp, "low": low, "high": high, "closed_form": math.sqrt(float(var[v])),
                "trials": int(trials), "value_index": v}
    raise InvalidInput(f"unknown target measure {measure!r}; choose one of: {', '.join(TARGET_MEASURES)}")


# --------------------------------------------------------------------------- sweeps
@dataclass(frozen=True)
class ScaledPopulation:
    """A trade-off sweep's population (picklable): the distribution (or, along d, a function d ↦ distribution)
    scaled to n users by largest-remainder rounding (:func:`population_counts`): fixed, so all the randomness is
    the mechanism's and the closed form uses exactly the frequencies that are simulated.

    Attributes
    ----------
    freqs : array-like of float or callable
        The distribution, or a function d ↦ distribution (the d axis); called as ``population(d, n, rng)`` it
        returns the users per value (``rng`` unused).
    """

    freqs: FreqSource

    def __call__(self, d: int, n: int, rng: np.random.Generator) -> np.ndarray:
        return population_counts(_freqs_at(self.freqs, d), n)


def run_configuration(mechanism_name: str, epsilon: float, n: int, freqs: np.ndarray, *,
                      estimators: Sequence[str], trials: int, engine: str = "fast", seed: int | None = None,
                      metrics: Sequence[str] = FREQUENCY_METRICS, params: Mapping[str, Any] | None = None,
                      top_k: int = 10) -> pd.DataFrame:
    """One configuration of :func:`run_tradeoff_sweep` (the sweep driver :func:`ldp.simulation.sweep` on one point,
    columns :data:`ldp.simulation.SWEEP_COLUMNS`), with the estimators that apply to the mechanism; its random
    numbers are keyed by the configuration under the root ``seed``.

    Parameters
    ----------
    mechanism_name : str
        The configuration's mechanism (registry name).
    epsilon : float
        The configuration's ε.
    n : int
        Users (the distribution scaled by :func:`population_counts`).
    freqs : numpy.ndarray
        The distribution; its size is d.
    estimators : sequence of str
        Estimator names; those that do not apply to the mechanism are skipped.
    trials : int
        Collections.
    engine : str, default "fast"
        The simulation engine, "fast" (aggregates drawn directly) or "exact" (every report drawn).
    seed : int or None, default None
        The root seed of the sweep; None draws fresh entropy.
    metrics : sequence of str, default FREQUENCY_METRICS
        Metric names computed per trial.
    params : mapping or None, default None
        The mechanism's own parameters.
    top_k : int, default 10
        The k of the top-k metrics.

    Returns
    -------
    pandas.DataFrame
        One row per (trial, estimator, metric), columns :data:`ldp.simulation.SWEEP_COLUMNS`.
    """
    f = _normalise(freqs)
    return sweep(ScaledPopulation(f), mechanisms=[mechanism_name], epsilons=[float(epsilon)], users=[int(n)],
                 domain_sizes=[f.size], estimators=tuple(estimators), applicable_only=True, trials=int(trials),
                 engine=engine, seed=seed, metrics=tuple(metrics), params={mechanism_name: dict(params or {})},
                 top_k=top_k)


def sweep_configurations(mechanisms: Sequence[str], axis: str, grid: Sequence[float] | np.ndarray, *,
                         epsilon: float = 1.0, users: int = 100_000) -> list[tuple[str, float, float, int, int | None]]:
    """(mechanism, x, ε, n, d) for every point of the sweep (d is None unless the axis is d).

    Parameters
    ----------
    mechanisms : sequence of str
        Registry names (at least one).
    axis : str
        "epsilon", "users" or "d".
    grid : sequence of float or numpy.ndarray
        The points along the axis (not empty).
    epsilon : float, default 1.0
        ε off the ε axis.
    users : int, default 100_000
        n off the users axis.

    Returns
    -------
    list of (str, float, float, int, int or None)
        (mechanism, x, ε, n, d) per mechanism and point, mechanisms outermost.

    Raises
    ------
    InvalidInput
        When no mechanism is given, the grid is empty, or the axis is unknown.
    """
    if not mechanisms:
        raise InvalidInput("choose at least one mechanism")
    if len(grid) == 0:
        raise InvalidInput("the sweep grid is empty")
    out = []
    for name in mechanisms:
        for x in np.asarray(grid, dtype=np.float64):
            eps, n, d = _configuration(axis, x, epsilon, users)
            out.append((name, float(x), eps, n, d))
    return out


def _cached_configuration(config: SweepConfiguration, *, runner: Callable[..., pd.DataFrame], freqs: FreqSource,
                          **options: Any) -> pd.DataFrame:
    """A configuration of the sweep driver computed by ``runner`` (:func:`run_configuration`'s signature)."""
    return runner(config.mechanism, config.epsilon, config.users, _freqs_at(freqs, config.d),
                  params=dict(config.params), **options)


def run_tradeoff_sweep(freqs: FreqSource, *, mechanisms: Sequence[str], estimators: Sequence[str] = ("mi",),
                       axis: str = "epsilon", grid: Sequence[float] | np.ndarray | None = None,
                       epsilon: float = 1.0, users: int = 100_000, trials: int = 20, engine: str = "fast",
                       seed: int | None = 0, metrics: Sequence[str] = FREQUENCY_METRICS,
                       params: Mapping[str, Mapping[str, Any]] | None = None, top_k: int = 10,
                       progress: Callable[[int, int, str], None] | None = None,
                       runner: Callable[..., pd.DataFrame] | None = None, executor: str = "serial",
                       workers: int | None = None, address: str | None = None) -> pd.DataFrame:
    """Every (mechanism, grid point) configuration, ``trials`` times, by the sweep driver
    (:func:`ldp.simulation.sweep`): its tidy table (columns :data:`ldp.simulation.SWEEP_COLUMNS`) with ``x``, the
    grid point, first; the estimators that do not apply to a mechanism are left out for it.

    ``freqs`` is the distribution (or, for the d axis, a function d ↦ distribution), scaled to n users
    (:class:`ScaledPopulation`). Each configuration's random numbers depend only on the configuration and
    ``seed`` (:func:`ldp.simulation.configuration_key`), so the same seed reproduces the table and adding a
    mechanism leaves the others' numbers alone.
    ``progress(done, total, label)`` is called after each configuration; ``runner`` replaces
    :func:`run_configuration` (same signature), e.g. by a cached version, on the serial executor only: ``executor``
    "processes" or "dask" (``address``) run the configurations in worker processes
    (:func:`ldp.core.executors.run_ordered`, batched; the seeding makes the table identical on every executor).

    Parameters
    ----------
    freqs : array-like of float or callable
        The distribution, or (needed for the d axis) a function d ↦ distribution.
    mechanisms : sequence of str
        Registry names.
    estimators : sequence of str, default ("mi",)
        Estimator names (at least one).
    axis : str, default "epsilon"
        "epsilon", "users" or "d".
    grid : sequence of float, numpy.ndarray or None, default None
        The points; None: :func:`epsilon_grid`'s default.
    epsilon : float, default 1.0
        ε off the ε axis.
    users : int, default 100_000
        n off the users axis.
    trials : int, default 20
        Collections per configuration.
    engine : str, default "fast"
        "fast" or "exact".
    seed : int or None, default 0
        The root seed.
    metrics : sequence of str, default FREQUENCY_METRICS
        Metric names.
    params : mapping of str to mapping or None, default None
        Each mechanism's own parameters, by name.
    top_k : int, default 10
        The k of the top-k metrics.
    progress : callable or None, default None
        ``progress(done, total, label)``.
    runner : callable or None, default None
        A replacement for :func:`run_configuration` (serial executor only).
    executor : str, default "serial"
        "serial", "processes" or "dask".
    workers : int or None, default None
        Worker processes.
    address : str or None, default None
        The dask scheduler's address.

    Returns
    -------
    pandas.DataFrame
        Columns "x" then :data:`ldp.simulation.SWEEP_COLUMNS`, one row per (configuration, trial, estimator,
        metric).

    Raises
    ------
    InvalidInput
        When no estimator is given, the d axis has fixed frequencies, or the sweep's arguments are invalid.
    """
    if not estimators:
        raise InvalidInput("choose at least one estimator")
    if axis == "d" and not callable(freqs):
        raise InvalidInput("the domain size cannot vary for this data: give a function d ↦ distribution "
                         "(synthetic data or a numerical column to re-bucketize)")
    grid = epsilon_grid() if grid is None else grid
    configs = sweep_configurations(mechanisms, axis, grid, epsilon=epsilon, users=users)
    # the grid's points as (ε, n, d), in order: only ``axis`` varies, so the driver's product grid is this one
    points = list(dict.fromkeys((eps, n, _freqs_at(freqs, d).size) for _, _, eps, n, d in configs))
    at = list(AXES).index(axis)
    label = AXES[axis].split()[-1]
    names = list(dict.fromkeys(mechanisms))

    def tick(done: int, total: int) -> None:
        if progress is not None:
            progress(done, total, f"{names[(done - 1) // len(points)]} at {label} = "
                                  f"{points[(done - 1) % len(points)][at]:.3g}")

    options = dict(estimators=tuple(estimators), trials=int(trials), engine=engine, seed=seed,
                   metrics=tuple(metrics), top_k=top_k)
    table = sweep(ScaledPopulation(freqs), mechanisms=names,
                  epsilons=list(dict.fromkeys(p[0] for p in points)), users=list(dict.fromkeys(p[1] for p in points)),
                  domain_sizes=list(dict.fromkeys(p[2] for p in points)), applicable_only=True,
                  params={k: dict(v) for k, v in (params or {}).items()}, executor=executor, workers=workers,
                  address=address, progress=tick,
                  runner=None if runner is None else partial(_cached_configuration, runner=runner, freqs=freqs,
                                                             **options),
                  **options)
    table.insert(0, "x", table[axis].astype(np.float64))
    return table


def summarize_sweep(table: pd.DataFrame, metric: str = "mse", level_z: float = Z95) -> pd.DataFrame:
    """Mean over trials per (mechanism, estimator, x) with the band mean ± z·sd/√trials.

    Parameters
    ----------
    table : pandas.DataFrame
        A sweep table (:func:`run_tradeoff_sweep`, :func:`numerical_sweep`) with "x", "metric" and "value".
    metric : str, default "mse"
        The metric summarised.
    level_z : float, default Z95
        The normal quantile z of the band (1.96: 95 %).

    Returns
    -------
    pandas.DataFrame
        Per (mechanism, estimator, x): "epsilon", "users", "d", "mean", "sd" (0 for one trial), "trials",
        "closed_form", "ci_low", "ci_high".

    Raises
    ------
    InvalidInput
        When the table has no row for ``metric``.
    """
    sub = table[table["metric"] == metric]
    if sub.empty:
        raise InvalidInput(f"the sweep table has no rows for metric {metric!r}")
    g = sub.groupby(["mechanism", "estimator", "x"], sort=False)
    out = g.agg(epsilon=("epsilon", "first"), users=("users", "first"), d=("d", "first"),
                mean=("value", "mean"), sd=("value", "std"), trials=("value", "size"),
                closed_form=("closed_form", "first")).reset_index()
    out["sd"] = out["sd"].fillna(0.0)
    half = level_z * out["sd"] / np.sqrt(out["trials"])
    out["ci_low"] = out["mean"] - half
    out["ci_high"] = out["mean"] + half
    return out


# --------------------------------------------------------------------------- numerical mechanisms against ε
NUMERICAL_SWEEP_METRICS = ("wasserstein", "ks", "range_mae", "mean_error")


def numerical_sweep(counts: np.ndarray, edges: np.ndarray, methods: Sequence[tuple[str, str | None]],
                    epsilons: Sequence[float] | np.ndarray, *, users: int, trials: int = 5, engine: str = "fast",
                    seed: int | None = 0, metrics: Sequence[str] = NUMERICAL_SWEEP_METRICS,
                    executor: str = "serial", workers: int | None = None, address: str | None = None,
                    progress: Callable[[int, int], None] | None = None,
                    cancel: Callable[[], bool] | None = None,
                    params: Mapping[str, Mapping[str, Any]] | None = None) -> pd.DataFrame:
    """Numerical mechanisms (each with its reconstruction, None = its own) against ε on one bucketized column:
    the sweep driver's tidy table (:func:`ldp.simulation.sweep`, same seeding: identical on every executor) with
    ``x`` = ε first, ready for :func:`summarize_sweep`. ``progress(done, total)`` counts configurations;
    ``params`` gives a mechanism's parameters by its name (e.g. CFO-binning's ``bins``).

    Parameters
    ----------
    counts : numpy.ndarray
        Users per bucket of the column, shape (d,).
    edges : numpy.ndarray
        The d + 1 bucket edges (for the distance metrics).
    methods : sequence of (str, str or None)
        (numerical mechanism, reconstruction); None: the mechanism's default estimator.
    epsilons : sequence of float or numpy.ndarray
        The ε axis.
    users : int
        The number of users n: ``counts`` as they are when they sum to n, else n users drawn i.i.d. from them.
    trials : int, default 5
        Collections per (mechanism, ε).
    engine : str, default "fast"
        The simulation engine of :func:`ldp.simulation.sweep`.
    seed : int or None, default 0
        The root seed; each configuration's numbers are keyed by it and the configuration.
    metrics : sequence of str, default NUMERICAL_SWEEP_METRICS
        Distance, range-query or mean metrics to compute per trial.
    executor : str, default "serial"
        Where the configurations run (:func:`ldp.core.executors.run_ordered`); the table is the same on every one.
    workers : int or None, default None
        Worker processes of a parallel executor (None: its default).
    address : str or None, default None
        A dask scheduler to connect to.
    progress : callable or None, default None
        ``progress(done, total)``.
    cancel : callable or None, default None
        Returns True to stop the sweep.
    params : mapping of str to mapping or None, default None
        Parameters by mechanism name.

    Returns
    -------
    pandas.DataFrame
        Columns "x" (= ε) then :data:`ldp.simulation.SWEEP_COLUMNS`.

    Raises
    ------
    InvalidInput
        When no method or no ε is given, or a name is unknown.

    References
    ----------
    Li, Wang, Lopuhaä-Zwakenberg, Li, Škorić, "Estimating Numerical Distributions under Local Differential Privacy"
    (SIGMOD 2020), §6.1–6.3.
    """
    c = np.asarray(counts, dtype=np.int64)
    d = int(c.size)
    eps = [float(e) for e in epsilons]
    if not methods or not eps:
        raise InvalidInput("choose at least one numerical mechanism and one ε")
    reconstructions: dict[str, list[str]] = {}
    for name, reconstruction in methods:
        chosen = reconstructions.setdefault(name, [])
        rec = reconstruction or MECHANISMS.get(name).default_estimator
        if rec not in chosen:
            chosen.append(rec)
    table = sweep(SweepPopulation({d: c}), mechanisms=list(reconstructions), epsilons=eps, users=[int(users)],
                  domain_sizes=[d], estimators=reconstructions, trials=trials, engine=engine, seed=seed,
                  metrics=list(metrics), edges=edges, params=params, executor=executor, workers=workers,
                  address=address, progress=progress, cancel=cancel)
    table.insert(0, "x", table["epsilon"].astype(np.float64))
    return table


# --------------------------------------------------------------------------- privacy side
def attack_curve(mechanisms: Sequence[str], epsilons: Sequence[float] | np.ndarray, freqs: np.ndarray, n: int, *,
                 metric: str = "mse", params: Mapping[str, Mapping[str, Any]] | None = None,
                 top_k: int = 10) -> pd.DataFrame:
    """Per mechanism and ε: the Bayes-optimal attacker's success (prior = the data distribution) and
    the closed-form error of MI. ``attack_success`` is NaN where it is not defined (SHE).

    Parameters
    ----------
    mechanisms : sequence of str
        Registry names.
    epsilons : sequence of float or numpy.ndarray
        The ε values.
    freqs : numpy.ndarray
        The data distribution: the attacker's prior and the frequencies of the closed form.
    n : int
        The number of users of the closed form.
    metric : str, default "mse"
        The error metric of the "closed_form" column.
    params : mapping of str to mapping or None, default None
        Parameters per mechanism name; a mechanism absent from it gets its defaults at each ε.
    top_k : int, default 10
        k when ``metric`` is a top-k one.

    Returns
    -------
    pandas.DataFrame
        "mechanism", "epsilon", "attack_success" (a probability, NaN where undefined), "closed_form".
    """
    f = _normalise(freqs)
    rows = []
    for name in mechanisms:
        for eps in np.asarray(epsilons, dtype=np.float64):
            mech = build_mechanism(name, eps, f.size, (params or {}).get(name))
            s = attack_success(mech, f)
            rows.append({"mechanism": name, "epsilon": float(eps),
                         "attack_success": math.nan if s is None else float(s),
                         "closed_form": closed_form_value(mech, f, int(n), metric, top_k)})
    return pd.DataFrame(rows, columns=["mechanism", "epsilon", "attack_success", "closed_form"])



def simulated_attack_points(summary: pd.DataFrame, points: pd.DataFrame, estimator: str = "mi") -> pd.DataFrame:
    """The simulated error of ``estimator`` (a :func:`summarize_sweep` over ε) beside the attacker's success at
    the same (mechanism, ε) of :func:`attack_curve`: columns mechanism, epsilon, mean, attack_success.

    Parameters
    ----------
    summary : pandas.DataFrame
        A :func:`summarize_sweep` table along ε.
    points : pandas.DataFrame
        An :func:`attack_curve` table.
    estimator : str, default "mi"
        The estimator whose simulated error is kept.

    Returns
    -------
    pandas.DataFrame
        The inner join on (mechanism, epsilon): "mechanism", "epsilon", "mean", "attack_success".
    """
    mine = summary[summary["estimator"] == estimator][["mechanism", "epsilon", "mean"]]
    return mine.merge(points[["mechanism", "epsilon", "attack_success"]], on=["mechanism", "epsilon"])


# --------------------------------------------------------------------------- what a sweep runs on
@dataclass(frozen=True)
class FrequencySource:
    """The distribution a sweep runs on, as a function of the domain size for the d axis: ``"fixed"`` (the
    frequencies as they are), ``"rebin"`` (a numerical histogram re-bucketized into d equal-width bins over the
    same range) or ``"synthetic"`` (a synthetic family regenerated with d values). Hashable, so a page can
    cache what is computed from it.

    Attributes
    ----------
    kind : str
        "fixed", "rebin" or "synthetic".
    frequencies : tuple of float, default ()
        The frequencies ("fixed" and "rebin").
    family : str, default ""
        The synthetic family's name ("synthetic").
    exponent : float or None, default None
        The synthetic family's exponent (Zipf's s), None for its default.
    formula : str or None, default None
        A synthetic mixture's formula (its components, regenerated over every d).
    """

    kind: str
    frequencies: tuple[float, ...] = ()
    family: str = ""
    exponent: float | None = None
    formula: str | None = None

    def __call__(self, d: int | None = None) -> np.ndarray:
        if self.kind == "synthetic":
            if d is None:
                raise InvalidInput("a synthetic source needs a domain size")
            return true_distribution(synthetic_spec(self.family, int(d), self.exponent, self.formula))
        if self.kind == "rebin" and d is not None:
            return rebin_frequencies(self.frequencies, int(d))
        if self.kind in ("fixed", "rebin"):
            return _normalise(self.frequencies)
        raise InvalidInput(f"unknown frequency source {self.kind!r}; one of fixed, rebin, synthetic")

    @property
    def varies_with_d(self) -> bool:
        return self.kind != "fixed"


def frequency_source(data: Dataset, axis: str) -> FrequencySource:
    """What a sweep along ``axis`` runs on for this dataset. Along d: a synthetic dataset is regenerated with
    each domain size and a numerical column re-bucketized; a categorical column's values are fixed (LDPError).

    Parameters
    ----------
    data : Dataset
        The dataset (its frequencies, ``synthetic`` and ``numerical`` are read).
    axis : str
        The sweep axis; anything but "d" gives the fixed frequencies.

    Returns
    -------
    FrequencySource
        "fixed" off the d axis; along d "synthetic" or "rebin".

    Raises
    ------
    InvalidInput
        Along d for a categorical column, whose categories are fixed (InvalidInput is the LDPError named above).
    """
    freqs = tuple(float(f) for f in data.frequencies)
    if axis != "d":
        return FrequencySource("fixed", freqs)
    if data.synthetic is not None:
        family, exponent, formula = data.synthetic
        return FrequencySource("synthetic", family=family, exponent=exponent, formula=formula)
    if data.numerical:
        return FrequencySource("rebin", freqs)
    raise InvalidInput(f"the domain size cannot vary for the categorical column {data.name}: its {data.d} categories "
                       "are fixed. Pick synthetic data or a numerical column (which can be re-bucketized), or sweep "
                       "over ε or n instead")


def sweep_grids(axis: str, lo: float, hi: float, points: int, fine: int) -> tuple[np.ndarray, np.ndarray]:
    """The sweep's grid of ``points`` log-spaced values from ``lo`` to ``hi`` along ``axis`` and a ``fine`` one
    for smooth closed-form curves (ε: reals; n and d: distinct integers).

    Parameters
    ----------
    axis : str
        "epsilon", "users" or "d".
    lo : float
        The first grid value.
    hi : float
        The last grid value.
    points : int
        Points of the sweep grid.
    fine : int
        Points of the closed-form grid.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        (sweep grid, fine grid), float64 (whole numbers along n and d).

    Raises
    ------
    InvalidInput
        On an unknown axis, or bounds or point counts the grids refuse.
    """
    if axis == "epsilon":
        return epsilon_grid(lo, hi, points), epsilon_grid(lo, hi, fine)
    if axis in ("users", "d"):
        return (log_int_grid(int(lo), int(hi), points).astype(float),
                log_int_grid(int(lo), int(hi), fine).astype(float))
    raise InvalidInput(f"unknown sweep axis {axis!r}; choose one of: {', '.join(AXES)}")


def closed_form_study(mechanisms: Sequence[str], axis: str, grid: Sequence[float] | np.ndarray,
                      source: FrequencySource, *, epsilon: float, users: int,
                      metric: str) -> tuple[pd.DataFrame, list[tuple[float, str, str]]]:
    """The closed-form curves of every mechanism on ``grid`` (:func:`closed_form_curves`) and where they cross
    (:func:`crossovers`, refined on the closed-form functions along ε and n); no crossings when the metric has
    no closed form.

    Parameters
    ----------
    mechanisms : sequence of str
        Registry names.
    axis : str
        "epsilon", "users" or "d".
    grid : sequence of float or numpy.ndarray
        The fine grid of the curves (positive, increasing).
    source : FrequencySource
        The distribution (called with d when it varies with d).
    epsilon : float
        ε off the ε axis.
    users : int
        n off the users axis.
    metric : str
        A registered metric name.

    Returns
    -------
    (pandas.DataFrame, list of (float, str, str))
        The :func:`closed_form_curves` table and the :func:`crossovers` found on it (empty without a closed form).
    """
    freqs = source if source.varies_with_d else source()
    table = closed_form_curves(mechanisms, axis, grid, freqs, epsilon=epsilon, users=users, metric=metric)
    if table["value"].isna().all():
        return table, []
    curves = {m: table.loc[table["mechanism"] == m, "value"].to_numpy() for m in mechanisms}
    functions = None
    if axis != "d":
        functions = {m: closed_form_function(m, axis, freqs, epsilon=epsilon, users=users, metric=metric)
                     for m in mechanisms}
    return table, crossovers(curves, np.asarray(grid), functions=functions)


def sweep_estimator_seconds(mechanisms: Sequence[str], freqs: np.ndarray, users: int, estimators: Sequence[str],
                            epsilon: float, seed: int = 0) -> float:
    """Seconds the chosen estimators take on one collection of ``users`` users following ``freqs`` for the
    slowest of the mechanisms (each at ``epsilon``, with the estimators that apply to it).

    Parameters
    ----------
    mechanisms : sequence of str
        Registry names.
    freqs : numpy.ndarray
        The distribution.
    users : int
        Users of the timed collection.
    estimators : sequence of str
        Estimator names (those that do not apply to a mechanism are skipped for it).
    epsilon : float
        The privacy budget.
    seed : int, default 0
        The root seed of the timed collection.

    Returns
    -------
    float
        Wall-clock seconds, the largest over the mechanisms of the sum over their estimators.
    """
    counts = population_counts(freqs, users)
    worst = 0.0
    for name in mechanisms:
        mech = build_mechanism(name, epsilon, counts.size)
        names = [e for e in estimators if ESTIMATORS.get(e).applies_to(mech)]
        worst = max(worst, sum(time_estimators(mech, counts, names, seed).values()))
    return worst
