"""How long will it take? Generous run-time estimates for simulations, estimator sets and sweeps, so a page
can warn or refuse before it starts, and pick a default set of estimators that stays fast.

Estimates come in two forms, from one model: per collection, an engine cost (fast: ≈ 0.1 ms + 1 µs·d; exact:
≈ 0.1 µs per user plus 20 ns per user and value, the slowest mechanisms) plus the measured time of each
estimator on one collection (:func:`time_estimators`), with a margin. Numerical reconstructions add about a
millisecond per bucket and trial (:func:`numerical_seconds`), the mean mechanisms' clients 0.2 µs per user and
trial (:func:`mean_seconds`); a sweep sums its configurations (:func:`sweep_seconds`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ldp.core.errors import InvalidInput
from ldp.core.streams import rng_for
from ldp.engines import collect
from ldp.estimators import get_estimator
from ldp.mechanisms import get_mechanism
from ldp.mechanisms.base import Mechanism

__all__ = ["advisor_seconds", "collection_seconds", "estimate_sweep_seconds", "estimated_seconds", "mean_seconds",
           "numerical_seconds", "preselect", "sweep_seconds", "time_estimators", "timing_epsilon"]

SECONDS_PER_BUCKET_TRIAL = 1e-3  # a numerical reconstruction (EM at d = 256 ≈ 0.15 s a trial on one core; EMS a third)
SECONDS_PER_MEAN_USER_TRIAL = 2e-7  # SR/PM clients (the mean and the 50/50 variance split) per user and trial
SECONDS_PER_FAST_MEAN_TRIAL = 1e-3  # the fast engine's mean and split, whatever n (≈ 1.5·10⁻⁴ s measured)


def collection_seconds(n: int, d: int, engine: str) -> float:
    """Generous wall time of one collection of n users over d values (measured on the registry, 1 core).

    Parameters
    ----------
    n : int
        Users (only the exact engine's cost depends on it).
    d : int
        Domain size.
    engine : str
        ``"fast"`` (2e-4 + 2e-6·d s, twice the measured ≈ 0.1 ms + 1 µs·d); any other name is costed as the exact
        engine: n·(1e-7 + 2e-8·d) + 2e-4 s.

    Returns
    -------
    float
        Seconds.
    """
    if engine == "fast":
        return 2e-4 + 2e-6 * d
    return n * (1e-7 + 2e-8 * d) + 2e-4


def estimated_seconds(n: int, d: int, trials: int, engine: str, estimator_seconds: float = 0.0) -> float:
    """A generous estimate of a run's wall time, for the "this will take a while" warning.

    Measured on the registry (1 core): the fast engine costs ≈ 0.1 ms + 1 µs·d per trial; the exact
    engine up to ≈ 0.1 µs per user plus 20 ns per user and domain value (SHE and SS, the slowest).
    ``estimator_seconds`` is the time all estimators take on one collection (:func:`time_estimators`;
    iterative ones such as IBU dominate), counted once per trial with a 25% margin.

    Parameters
    ----------
    n : int
        Users per collection.
    d : int
        Domain size.
    trials : int
        Collections.
    engine : str
        The engine's name, as in :func:`collection_seconds`.
    estimator_seconds : float, default 0.0
        Seconds of all estimators on one collection (negative values count as 0).

    Returns
    -------
    float
        trials × (:func:`collection_seconds` + 1.25 × estimator_seconds), in seconds.
    """
    per_trial = collection_seconds(n, d, engine)
    return float(trials * (per_trial + 1.25 * max(0.0, float(estimator_seconds))))


def time_estimators(mechanism: Mechanism, counts: np.ndarray, estimators: Sequence[Any],
                    seed: int = 0) -> dict[str, float]:
    """Seconds each estimator (a name or an ``Estimator``) takes on one (fast-engine) collection of this
    configuration, by name.

    Parameters
    ----------
    mechanism : Mechanism
        The built mechanism (ε, d and its other parameters fixed).
    counts : numpy.ndarray
        The population's users per value, shape (d,); collected once with the fast engine.
    estimators : Sequence[Any]
        Registered names or Estimator objects (anything :func:`ldp.estimators.get_estimator` accepts).
    seed : int, default 0
        Seed of the timing collection's stream (``rng_for(seed, "timing")``).

    Returns
    -------
    dict of str to float
        Wall seconds of one ``estimate`` call, keyed by the estimator's name (one measurement, so noisy on a
        loaded machine).
    """
    agg = collect(mechanism, np.asarray(counts, dtype=np.int64), rng_for(int(seed), "timing"),
                  "fast")
    out: dict[str, float] = {}
    for spec in estimators:
        estimator = get_estimator(spec)
        start = time.perf_counter()
        estimator.estimate(mechanism, agg)
        out[estimator.name] = time.perf_counter() - start
    return out


def timing_epsilon(mechanism: str, epsilon: float, d: int, params: Mapping[str, Any] | None = None) -> float:
    """The ε at which to time the estimators (:func:`time_estimators`) of a configuration at ``epsilon``: the power of
    two nearest to it on a log scale (0.71 ≤ ε < 1.41 gives 1), if the mechanism can be built there with ``params``
    (a longitudinal ε1 must stay below it), else ``epsilon`` itself.

    An estimator's cost changes slowly with ε (IBU's iterations, the clipping of Base-Pos); the timing only feeds
    the run-time estimate and the default choice of estimators, which need its order of magnitude, not its value
    at every ε. Timed once per octave of ε, a page that caches the timing by this ε does not time every estimator
    again at every step of its ε slider (on the Post-processing lab: 4-11 ms of a rerun's CPU at d = 104-1024, and
    a round trip to a worker process, measured under the load of other sessions).

    Parameters
    ----------
    mechanism : str
        The mechanism's registry name.
    epsilon : float
        The configuration's ε (> 0).
    d : int
        Domain size.
    params : mapping, optional
        The mechanism's other parameters, as given to :func:`ldp.get_mechanism`.

    Returns
    -------
    float
        The ε to time at.
    """
    if not (math.isfinite(epsilon) and epsilon > 0):
        return epsilon
    nearest = 2.0 ** round(math.log2(epsilon))
    if nearest == epsilon:
        return epsilon
    try:
        get_mechanism(mechanism, nearest, d, **dict(params or {}))
    except InvalidInput:
        return epsilon
    return nearest


def preselect(timing: Mapping[str, float], *, n: int, d: int, trials: int, engine: str,
              limit: float = 10.0) -> tuple[list[str], list[str]]:
    """A default set of estimators whose run stays under ``limit`` seconds (:func:`estimated_seconds`).

    Starts from every estimator of ``timing`` (name → seconds per collection, :func:`time_estimators`)
    and leaves out the slowest ones (IBU with its paper defaults, first) until the estimate fits, keeping
    at least the fastest. When the run is too long even without estimators (the exact engine, many trials)
    leaving some out would not help, so all are kept. Returns ``(kept, left_out)``, both in the order of
    ``timing``.

    Parameters
    ----------
    timing : Mapping[str, float]
        Estimator name → seconds per collection.
    n : int
        Users per collection.
    d : int
        Domain size.
    trials : int
        Collections of the run.
    engine : str
        The engine's name.
    limit : float, default 10.0
        The wall-time budget, in seconds.

    Returns
    -------
    tuple of (list of str, list of str)
        ``(kept, left_out)``, each in the order of ``timing``.
    """
    names = list(timing)
    kept = set(names)
    if estimated_seconds(n, d, trials, engine) > limit:
        return names, []
    for name in sorted(names, key=lambda e: -timing[e]):
        total = sum(timing[e] for e in kept)
        if len(kept) <= 1 or estimated_seconds(n, d, trials, engine, total) <= limit:
            break
        kept.discard(name)
    return [e for e in names if e in kept], [e for e in names if e not in kept]


def advisor_seconds(timing: Mapping[str, float], *, n: int, d: int, trials: int, engine: str) -> float:
    """A generous estimate of :func:`advise`'s wall time: one collection, ``trials`` fast re-simulations and
    every candidate on each of them plus once on the collection (``timing`` from :func:`time_estimators`).

    Parameters
    ----------
    timing : Mapping[str, float]
        Candidate estimator name → seconds on one collection.
    n : int
        Users.
    d : int
        Domain size.
    trials : int
        The advisor's fast re-simulations.
    engine : str
        The engine of the one real collection.

    Returns
    -------
    float
        Seconds: one collection on ``engine``, ``trials`` fast ones, and 1.25 × (trials + 1) × Σ timing.
    """
    per = float(sum(max(0.0, float(t)) for t in timing.values()))
    return estimated_seconds(n, d, 1, engine) + estimated_seconds(n, d, trials, "fast") + 1.25 * (trials + 1) * per


def estimate_sweep_seconds(configurations: Sequence[tuple[int, int]], *, trials: int, engine: str,
                           estimator_seconds: float = 0.0, overhead: float = 2e-3) -> float:
    """A generous estimate of a sweep's wall time: Σ over its (n, d) configurations of
    :func:`estimated_seconds` plus a per-configuration ``overhead`` (building the mechanism, tidying rows).
    ``estimator_seconds`` is what the chosen estimators take on one collection (:func:`time_estimators` at the
    sweep's largest d).

    Parameters
    ----------
    configurations : Sequence[tuple[int, int]]
        The sweep's (n, d) pairs, one per configuration run.
    trials : int
        Collections per configuration.
    engine : str
        The engine's name.
    estimator_seconds : float, default 0.0
        Seconds of the chosen estimators on one collection.
    overhead : float, default 2e-3
        Seconds added per configuration.

    Returns
    -------
    float
        Seconds, summed over the configurations.
    """
    return float(sum(estimated_seconds(int(n), int(d), int(trials), engine, estimator_seconds) + overhead
                     for n, d in configurations))


def numerical_seconds(n: int, d: int, trials: int, engine: str, methods: int = 0) -> float:
    """A generous estimate of CFO-binning's run plus ``methods`` numerical mechanisms on the same population:
    one collection each per trial, and each numerical reconstruction's iterations over the ``d`` buckets.

    Parameters
    ----------
    n : int
        Users.
    d : int
        Buckets (the binned domain's size).
    trials : int
        Collections per method.
    engine : str
        The engine's name.
    methods : int, default 0
        Numerical mechanisms run beside CFO-binning; each costs a run plus
        :data:`SECONDS_PER_BUCKET_TRIAL` per bucket and trial.

    Returns
    -------
    float
        Seconds.
    """
    per_run = estimated_seconds(n, d, trials, engine)
    return float(per_run * (1 + methods) + SECONDS_PER_BUCKET_TRIAL * d * trials * methods)


def mean_seconds(n: int, trials: int, engine: str = "exact") -> float:
    """A generous estimate of a mean mechanism's mean and 50/50-split variance
    (:func:`ldp.studies.mean_variance.simulate_histogram_mean`).

    Parameters
    ----------
    n : int
        Users (only the exact engine's cost depends on it: every client runs).
    trials : int
        Repetitions.
    engine : str, default "exact"
        "exact" (every client, both halves of the split) or "fast" (aggregates and a hypergeometric split drawn
        directly, O(bins) a trial).

    Returns
    -------
    float
        :data:`SECONDS_PER_MEAN_USER_TRIAL` × n × trials on the exact engine, :data:`SECONDS_PER_FAST_MEAN_TRIAL`
        × trials on the fast one, in seconds.
    """
    if engine == "exact":
        return float(SECONDS_PER_MEAN_USER_TRIAL * n * trials)
    return float(SECONDS_PER_FAST_MEAN_TRIAL * trials)


def sweep_seconds(axis: str, grid: Sequence[float], *, users: int, d: int, mechanisms: int, trials: int, engine: str,
                  estimator_seconds: float = 0.0) -> float:
    """:func:`estimate_sweep_seconds` of a sweep along ``axis`` ("epsilon", "users" or "d") over ``grid`` for
    ``mechanisms`` mechanisms: n and d are the grid's values on their own axis, ``users`` and ``d`` elsewhere.

    Parameters
    ----------
    axis : str
        ``"epsilon"``, ``"users"`` or ``"d"`` (any other name leaves n and d fixed, like ``"epsilon"``).
    grid : Sequence[float]
        The values swept along ``axis``.
    users : int
        n off the ``"users"`` axis.
    d : int
        Domain size off the ``"d"`` axis.
    mechanisms : int
        Mechanisms run at each grid point.
    trials : int
        Collections per configuration and mechanism.
    engine : str
        The engine's name, as in :func:`collection_seconds`.
    estimator_seconds : float, default 0.0
        Seconds of the chosen estimators on one collection (passed on).

    Returns
    -------
    float
        Seconds (:func:`estimate_sweep_seconds` of grid × mechanisms configurations).
    """
    sizes = [(int(x) if axis == "users" else int(users), int(x) if axis == "d" else int(d)) for x in grid]
    return estimate_sweep_seconds(sizes * int(mechanisms), trials=trials, engine=engine,
                                  estimator_seconds=estimator_seconds)
