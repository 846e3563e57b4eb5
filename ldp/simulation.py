"""The simulation layer: population → collection (either engine) → estimator chain → metrics, for every kind.

``simulate`` runs repeated trials of one configuration and returns an immutable :class:`SimulationResult`
carrying every estimate, every metric and every estimator diagnostic; ``sweep`` runs a grid of configurations
and returns (or streams) a tidy table, each configuration with its own named random stream so that adding a
configuration never changes another's numbers.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from ldp.core.cancellation import checkpoint
from ldp.core.errors import InvalidInput
from ldp.core.executors import run_ordered
from ldp.core.params import check_paired, check_positive_int
from ldp.core.randomness import make_rng
from ldp.core.registry import ESTIMATORS, MECHANISMS
from ldp.core.streams import rng_for
from ldp.data.domain import draw_population, population_rng
from ldp.engines import check_engine, collect, stack_aggregates
from ldp.estimators import estimate_all, resolve_estimators
from ldp.evaluation.metrics import DEFAULT_METRICS, get_metric, metrics_over_trials
from ldp.evaluation.tasks import GAIN_BASELINE, utility_gain
from ldp.mechanisms import get_mechanism
from ldp.mechanisms.base import Mechanism

__all__ = ["SWEEP_COLUMNS", "ConfigurationTable", "Population", "SimulationResult", "SweepConfiguration",
           "SweepPopulation", "configuration_key", "result_table", "simulate", "simulate_configuration",
           "simulate_estimates", "simulate_estimates_many", "sweep",
           "sweep_configurations", "sweep_rows", "sweep_tables"]

#: The one layout of a sweep's tidy table (``ldp sweep``, the Trade-off page, the numerical sweep): one row per
#: configuration, trial, estimator and metric; ``theoretical_variance`` is the mean closed-form variance of the
#: mechanism's own estimate, ``closed_form`` the metric's closed form on that estimator's rows (NaN elsewhere).
SWEEP_COLUMNS = ("mechanism", "epsilon", "users", "d", "engine", "trial", "estimator", "metric", "value",
                 "theoretical_variance", "closed_form")


@dataclass(frozen=True)
class SimulationResult:
    """Estimates, errors and diagnostics of ``trials`` independent collections of the same population (immutable).

    Attributes
    ----------
    mechanism : Mechanism
        The mechanism simulated.
    true_counts : numpy.ndarray
        Users per cell of the population.
    estimates : dict of str to numpy.ndarray
        Per estimator, a (trials, d) array of estimates.
    metrics : dict of str to dict of str to numpy.ndarray
        Per estimator and metric, one value per trial.
    converged, iterations : dict of str to numpy.ndarray
        Per iterative estimator and trial: whether the stopping rule was met, and the iterations run.
    notes : dict of str to tuple of str
        One-line warnings per estimator, to show beside its numbers.
    """

    mechanism: Mechanism
    true_counts: np.ndarray
    engine: str
    estimates: Mapping[str, np.ndarray]  # estimator → (trials, size of the estimate)
    metrics: Mapping[str, Mapping[str, np.ndarray]]  # estimator → metric → (trials,)
    elapsed_s: float
    seed: int | None = None
    support: np.ndarray | None = None
    edges: np.ndarray | None = None
    top_k: int | None = None
    converged: Mapping[str, np.ndarray] = field(default_factory=dict)  # estimator → (trials,) bool
    iterations: Mapping[str, np.ndarray] = field(default_factory=dict)  # estimator → (trials,) int
    notes: Mapping[str, str] = field(default_factory=dict)  # estimator → the first warning one of its trials gave
    #: The IBU paper's Γ baseline (MI clipped and renormalised, §2.3) on the same collections: metric → (trials,).
    baseline: Mapping[str, np.ndarray] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return int(self.true_counts.sum())

    @property
    def warnings(self) -> tuple[str, ...]:
        """One line per estimator that did not converge in some trials, or that warned."""
        out = []
        for name in self.estimates:
            conv = self.converged.get(name)
            bad = 0 if conv is None else int(conv.size - np.sum(conv))
            if bad:
                out.append(f"{name} did not converge in {bad} of {conv.size} trial(s); the last iterate is used")
            elif name in self.notes:
                out.append(f"{name}: {self.notes[name]}")
        return tuple(out)

    @property
    def true_values(self) -> np.ndarray:
        """What the estimates estimate: the population's frequencies (mean mechanisms: its mean)."""
        return self.mechanism.true_values(self.true_counts, self.support)

    @property
    def true_frequencies(self) -> np.ndarray:
        return self.true_counts / self.n

    @property
    def trials(self) -> int:
        return int(next(iter(self.estimates.values())).shape[0])

    def variance_per_value(self) -> np.ndarray | None:
        """Closed-form variance of the mechanism's own estimate for every entry (None where there is none)."""
        return self.mechanism.estimate_variance(self.true_counts, self.support)

    @property
    def theoretical_variance(self) -> float | None:
        """The closed-form variance averaged over the entries (= the expected MSE of MI for frequency oracles)."""
        var = self.variance_per_value()
        return None if var is None else float(np.mean(var))

    def summary(self) -> dict[str, dict[str, float]]:
        """Each estimator → its metrics averaged over trials, and for frequency oracles ``gain``: the utility gain Γ
        (%) of its MSE over the IBU paper's baseline, MI clipped and renormalised (Eq. (1), §2.3), on the same
        collections (``gain_mae`` likewise for the MAE). Γ is computed on the mean errors over the trials."""
        out = {est: {m: float(np.mean(v)) for m, v in per.items()} for est, per in self.metrics.items()}
        for row in out.values():
            for metric, key in (("mse", "gain"), ("mae", "gain_mae")):
                if metric in self.baseline and metric in row:
                    row[key] = float(utility_gain(float(np.mean(self.baseline[metric])), row[metric]))
        return out

    def diagnostics(self) -> dict[str, dict[str, Any]]:
        """Each estimator → trials converged and the mean number of iterations (iterative estimators)."""
        return {name: {"converged_trials": int(np.sum(self.converged[name])), "trials": self.trials,
                       "mean_iterations": float(np.mean(self.iterations[name]))} for name in self.converged}

    def to_dict(self, labels: Sequence[str] | None = None) -> dict[str, Any]:
        mech = self.mechanism
        size = next(iter(self.estimates.values())).shape[1]
        out: dict[str, Any] = {
            "mechanism": mech.name,
            "kind": mech.kind,
            "epsilon": mech.epsilon,
            **({"epsilon_1": mech.params["epsilon_1"]} if mech.collection == "longitudinal" else {}),
            "parameters": {k: v for k, v in mech.params.items() if k != "epsilon_1"},
            "users": self.n,
            "engine": self.engine,
            "seed": self.seed,
            "domain": list(labels) if labels is not None else [str(v) for v in range(size)],
            "true": self.true_values.tolist(),
            "theoretical_variance": self.theoretical_variance,
            "summary": self.summary(),
            "diagnostics": self.diagnostics(),
            "trials": [
                {"trial": t, "estimates": {est: arr[t].tolist() for est, arr in self.estimates.items()},
                 "metrics": {est: {m: float(v[t]) for m, v in per.items()} for est, per in self.metrics.items()}}
                for t in range(self.trials)
            ],
            "elapsed_s": self.elapsed_s,
            "warnings": list(self.warnings),
        }
        if self.edges is not None:
            out["edges"] = np.asarray(self.edges).tolist()
        return out


def _check_trials(trials: Any) -> int:
    return check_positive_int(trials, "trials")


def simulate(mechanism: Mechanism, true_counts: Any, *, estimators: Sequence[Any] | str | None = None,
             engine: str = "fast", trials: int = 1, seed: int | np.random.Generator | None = None,
             metrics: Sequence[str] | None = None, top_k: int = 10, support: Any = None, edges: Any = None,
             metric_seed: int | None = None, workers: int | None = None) -> SimulationResult:
    """Collect one population ``trials`` times and estimate with every estimator.

    Every estimator runs on the same simulated collections (one chain per collection: base estimates once), so their
    errors compare like for like. The same seed gives the same result; each trial draws from its own named stream.

    Parameters
    ----------
    mechanism : Mechanism
        The mechanism every user runs.
    true_counts : array_like of int
        Users per input cell (mean and vector mechanisms: per distinct value given in ``support``).
    estimators : sequence of str or Estimator, or str, optional
        Registered names (comma-separated in a string) or instances; default: the mechanism's own.
    engine : {"fast", "exact"}, default "fast"
        Draw the aggregate directly, or run every client.
    trials : int, default 1
        Independent collections.
    seed : int or numpy.random.Generator, optional
        The root seed of the collections' streams (None: fresh entropy).
    metrics : sequence of str, optional
        Registered metrics; default: the kind's (:data:`~ldp.evaluation.metrics.DEFAULT_METRICS`).
    top_k : int, default 10
        k of the top-k MSE (k = min(top_k, d), recorded in the result).
    support : array_like, optional
        The cells' values (mean and vector mechanisms).
    edges : array_like, optional
        Real-unit bin edges for numerical metrics.
    metric_seed : int, optional
        Seed of metrics that draw (random range queries); default: from ``seed``.
    workers : int, optional
        Threads of the exact engine.

    Returns
    -------
    SimulationResult
        Per-trial estimates, metrics and diagnostics, the truth and the closed-form variance where there is one.

    References
    ----------
    The closed forms are those of Wang et al. (USENIX Security 2017, Eq. (2)) as tabulated by the IBU paper (DBSec'23).
    """
    counts, sup = mechanism.check_population(true_counts, support)
    trials = _check_trials(trials)
    check_engine(engine)
    chosen = resolve_estimators([mechanism.default_estimator] if estimators is None else estimators, mechanism)
    names = [e.name for e in chosen]
    metric_names = tuple(DEFAULT_METRICS[mechanism.kind] if metrics is None else metrics)
    rng = make_rng(seed)
    truth = mechanism.true_values(counts, sup)
    k = min(int(top_k), truth.shape[0])
    context = _metric_context(mechanism, k, edges, seed, metric_seed)
    gain_base = _gain_baseline(mechanism)
    runs = _Trials(names, metric_names, trials, truth.shape[0], gain_base is not None)
    extra = [gain_base] if gain_base and GAIN_BASELINE not in names else []
    start = time.perf_counter()
    for t in range(trials):
        checkpoint()
        agg = collect(mechanism, counts, rng, engine, support=sup, workers=workers)
        runs.record(t, estimate_all(mechanism, agg, chosen + extra))
    runs.score(truth, context)
    elapsed = time.perf_counter() - start
    iterative = {name for name in names if runs.iters[name].any() or not runs.conv[name].all()}
    return SimulationResult(
        mechanism=mechanism, true_counts=counts, engine=engine, estimates=runs.estimates, metrics=runs.metrics,
        elapsed_s=elapsed, seed=seed if isinstance(seed, (int, np.integer)) or seed is None else None, support=sup,
        edges=None if edges is None else np.asarray(edges, dtype=np.float64), top_k=k,
        converged={n: runs.conv[n] for n in iterative}, iterations={n: runs.iters[n] for n in iterative},
        notes=runs.notes, baseline=runs.baseline)


def simulate_estimates(mechanism: Mechanism, true_counts: Any, estimator: Any, *, engine: str = "fast",
                       trials: int = 1, seed: int | np.random.Generator | None = None, support: Any = None,
                       workers: int | None = None) -> np.ndarray:
    """The estimates :func:`simulate` gives one estimator, without its metrics and diagnostics: the ``trials``
    collections drawn in the same order from the same stream, then estimated as one batch
    (:meth:`~ldp.estimators.base.Estimator.estimate_batch`, e.g. EM/EMS iterating every collection together), so
    the same seed gives the numbers of ``simulate(...).estimates[name]`` wherever the estimator's batched form is
    its estimate row by row (EM/EMS's is, bit for bit; an estimator without one runs its estimate per row).

    Parameters
    ----------
    mechanism, true_counts, engine, trials, seed, support, workers
        As for :func:`simulate`.
    estimator : str or Estimator
        A registered name or an instance.

    Returns
    -------
    numpy.ndarray
        Shape (trials, size of the estimate): one row per collection.

    Raises
    ------
    InvalidInput
        As :func:`simulate`.
    """
    return simulate_estimates_many([mechanism], true_counts, estimator, engine=engine, trials=trials, seeds=[seed],
                                   support=support, workers=workers)[0]


def simulate_estimates_many(mechanisms: Sequence[Mechanism], true_counts: Any, estimator: Any, *,
                            engine: str = "fast", trials: int = 1, seeds: Sequence[Any], support: Any = None,
                            workers: int | None = None) -> list[np.ndarray]:
    """:func:`simulate_estimates` of each mechanism with its own seed (a sweep of a parameter over one population):
    each mechanism's ``trials`` collections drawn as :func:`simulate_estimates` draws them, then every block
    estimated together (:meth:`~ldp.estimators.base.Estimator.estimate_batches`: EM/EMS iterate the collections of
    all the mechanisms at once), so each entry is the array :func:`simulate_estimates` returns for that mechanism
    and seed.

    Parameters
    ----------
    mechanisms : sequence of Mechanism
        The mechanisms (one estimator applies to all).
    true_counts, estimator, engine, trials, support, workers
        As for :func:`simulate_estimates`.
    seeds : sequence of int or numpy.random.Generator
        One seed or stream per mechanism.

    Returns
    -------
    list of numpy.ndarray
        One (trials, size of the estimate) array per mechanism.

    Raises
    ------
    InvalidInput
        As :func:`simulate`, or when the seeds do not pair up with the mechanisms.
    """
    check_paired(mechanisms, seeds, "seed per mechanism")
    trials = _check_trials(trials)
    check_engine(engine)
    blocks, chosen, n = [], None, 0
    for mechanism, seed in zip(mechanisms, seeds, strict=True):
        counts, sup = mechanism.check_population(true_counts, support)
        (chosen,) = resolve_estimators([estimator], mechanism)
        rng = make_rng(seed)
        aggregates = []
        for _ in range(trials):
            checkpoint()
            aggregates.append(collect(mechanism, counts, rng, engine, support=sup, workers=workers))
        blocks.append(stack_aggregates(aggregates))
        n = aggregates[0].n
    if chosen is None:
        return []
    return chosen.estimate_batches(list(mechanisms), blocks, n)


def _metric_context(mechanism: Mechanism, k: int, edges: Any, seed: Any, metric_seed: int | None) -> dict[str, Any]:
    """What the metrics need besides truth and estimate: k, the bucket edges, and for bucketed mechanisms the
    projection and the range queries' stream (the same ranges for every trial and estimator)."""
    context: dict[str, Any] = {"k": k}
    if edges is not None:
        context["edges"] = edges
    if mechanism.bucketed:
        context["project"] = True
        root = metric_seed if metric_seed is not None else (seed if isinstance(seed, (int, np.integer)) else 0)
        context["rng"] = lambda: rng_for(root, "range-queries")
    return context


def _gain_baseline(mechanism: Mechanism) -> Any:
    """The estimator the gain is measured over, for the kinds it is declared for (None otherwise)."""
    baseline = ESTIMATORS.get(GAIN_BASELINE)
    if mechanism.kind in baseline.kinds and baseline.applies_to(mechanism):
        return resolve_estimators([GAIN_BASELINE], mechanism)[0]
    return None


class _Trials:
    """The per-trial outputs of :func:`simulate`, filled one collection at a time; the metrics are scored at the end,
    every trial of an estimator at once (:func:`~ldp.evaluation.metrics.metrics_over_trials`: each value is one
    call's on that trial, bit for bit)."""

    def __init__(self, names: list[str], metric_names: tuple[str, ...], trials: int, size: int, gain: bool) -> None:
        self.names, self.metric_names = names, metric_names
        self.gain_metrics = [m for m in metric_names if gain and m in ("mse", "mae")]
        self.gain_estimates = np.empty((trials, size)) if self.gain_metrics else None
        self.estimates = {name: np.empty((trials, size)) for name in names}
        self.metrics: dict[str, dict[str, np.ndarray]] = {}
        self.baseline: dict[str, np.ndarray] = {}
        self.conv = {name: np.ones(trials, dtype=bool) for name in names}
        self.iters = {name: np.zeros(trials, dtype=np.int64) for name in names}
        self.notes: dict[str, str] = {}

    def record(self, t: int, chain: Mapping[str, Any]) -> None:
        if self.gain_estimates is not None:
            self.gain_estimates[t] = chain[GAIN_BASELINE].values
        for name in self.names:
            est = chain[name]
            self.estimates[name][t] = est.values
            self.conv[name][t] = est.converged
            self.iters[name][t] = est.iterations
            if est.warnings and name not in self.notes:
                self.notes[name] = est.warnings[0]

    def score(self, truth: np.ndarray, context: dict[str, Any]) -> None:
        """Every recorded trial's metrics (and the gain baseline's), against ``truth``."""
        if self.gain_estimates is not None:
            self.baseline = metrics_over_trials(truth, self.gain_estimates, self.gain_metrics, **context)
        self.metrics = {name: metrics_over_trials(truth, self.estimates[name], self.metric_names, **context)
                        for name in self.names}


def configuration_key(mechanism: str, epsilon: float, n: int, d: int, params: Mapping[str, Any]) -> tuple:
    """What a sweep configuration *is*: its stream of random numbers is keyed by this, never by its position.

    Parameters
    ----------
    mechanism : str
        The registered mechanism name.
    epsilon : float
        The privacy budget ε.
    n : int
        The number of users.
    d : int
        The domain size (mean mechanisms: the dimension).
    params : mapping of str to Any
        The mechanism's extra parameters.

    Returns
    -------
    tuple
        ``(mechanism, float(epsilon), int(n), int(d), params sorted by name)``, the key given to
        :func:`~ldp.core.streams.rng_for`.
    """
    return (mechanism, float(epsilon), int(n), int(d), dict(sorted(params.items())))


#: ``population(d, n, rng)``: users per cell for domain size (mean mechanisms: dimension) d and n users, or a pair
#: (those counts, the cells' values) for mean mechanisms, whose population is a column of numbers.
Population = Callable[[int, int, np.random.Generator], "np.ndarray | tuple[np.ndarray, np.ndarray]"]


def simulate_configuration(mechanism_name: str, epsilon: float, n: int, d: int, population: Population, *,
                           params: Mapping[str, Any] | None = None, seed: int | None = 0, **options: Any,
                           ) -> SimulationResult:
    """One configuration of a sweep: its users come from the one population stream of the seed (the same users as a
    page) and its collections from a stream named by the configuration (:func:`configuration_key`), so its numbers
    never depend on what else is swept. ``options`` go to :func:`simulate` (estimators, trials, engine, metrics,
    top_k, edges).

    Parameters
    ----------
    mechanism_name : str
        The registered mechanism name.
    epsilon : float
        The privacy budget ε.
    n : int
        The number of users.
    d : int
        The domain size (mean mechanisms: the dimension).
    population : Population
        ``population(d, n, rng)`` → users per cell, or (counts, the cells' values) for mean mechanisms.
    params : mapping of str to Any, optional
        The mechanism's extra parameters.
    seed : int or None, default 0
        The root seed of both the population stream and the configuration's collection stream.
    **options
        Passed to :func:`simulate`.

    Returns
    -------
    SimulationResult
        The configuration's trials.

    Raises
    ------
    InvalidInput
        For an unknown mechanism or a parameter out of range, or any invalid option of :func:`simulate`.
    """
    extra = dict(params or {})
    mechanism = get_mechanism(mechanism_name, epsilon, d, **extra)
    key = configuration_key(mechanism_name, epsilon, n, d, extra)
    drawn = population(int(d), int(n), population_rng(seed))  # the one population stream: same users as a page
    counts, support = drawn if isinstance(drawn, tuple) else (drawn, None)
    return simulate(mechanism, counts, support=support, seed=rng_for(seed, "sweep", "collection", *key), **options)


@dataclass(frozen=True)
class SweepPopulation:
    """A sweep's population, picklable (so configurations can run in other processes): per domain size d, the
    weights of the values (frequencies or counts); n users are drawn from them with the configuration's stream,
    except that n equal to ``rows[d]`` (a data file's own size) takes the counts as they are. Mean mechanisms also
    need the cells' values: ``support[d]`` (then a call gives the pair counts, values).

    Attributes
    ----------
    weights : mapping of int to numpy.ndarray
        Per domain size d, the (d,) weights of the values (frequencies or counts).
    rows : mapping of int to int, optional
        Per domain size, the data file's own number of rows: a call with that n takes the counts as they are.
    support : mapping of int to numpy.ndarray, optional
        Per domain size, the cells' values (mean mechanisms).
    """

    weights: Mapping[int, np.ndarray]
    rows: Mapping[int, int] | None = None
    support: Mapping[int, np.ndarray] | None = None

    def __call__(self, d: int, n: int, rng: np.random.Generator) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
        if d not in self.weights:
            raise InvalidInput(f"no population for domain size {d}; have {', '.join(map(str, self.weights))}")
        counts = draw_population(self.weights[d], n, rng, rows=None if self.rows is None else self.rows.get(d))
        return counts if self.support is None else (counts, np.asarray(self.support[d], dtype=np.float64))


class SweepConfiguration(NamedTuple):
    """One point of a sweep's grid: a mechanism with its parameters at ε, n users and domain size d.

    Attributes
    ----------
    mechanism : str
        The registered mechanism name.
    epsilon : float
        The privacy budget ε.
    users : int
        The number of users n.
    d : int
        The domain size (mean mechanisms: the dimension).
    params : dict of str to Any
        The mechanism's extra parameters (``epsilon_1`` for a longitudinal one).
    """

    mechanism: str
    epsilon: float
    users: int
    d: int
    params: dict[str, Any]


def sweep_configurations(mechanisms: Sequence[str], epsilons: Sequence[float], users: Sequence[int],
                         domain_sizes: Sequence[int], *, params: Mapping[str, Mapping[str, Any]] | None = None,
                         epsilon_1: float | None = None) -> list[SweepConfiguration]:
    """Every (mechanism, ε, n, d) of the grid, in this order, each with its mechanism's ``params`` (and, for a
    longitudinal mechanism, ``epsilon_1`` unless its parameters give one).

    Parameters
    ----------
    mechanisms : sequence of str
        Registered mechanism names.
    epsilons : sequence of float
        Privacy budgets ε.
    users : sequence of int
        Numbers of users n.
    domain_sizes : sequence of int
        Domain sizes d.
    params : mapping of str to mapping, optional
        Per mechanism name, its extra parameters.
    epsilon_1 : float, optional
        The first-round budget given to every longitudinal mechanism whose parameters have none.

    Returns
    -------
    list of SweepConfiguration
        The grid, mechanisms outermost and domain sizes innermost.

    Raises
    ------
    InvalidInput
        When the grid is empty, or a mechanism name is not registered.
    """
    grid = list(itertools.product(mechanisms, epsilons, users, domain_sizes))
    if not grid:
        raise InvalidInput("the sweep is empty: give at least one mechanism, ε, n and d")
    configs = []
    for mech_name, eps, n, d in grid:
        extra = dict((params or {}).get(mech_name, {}))
        longitudinal = MECHANISMS.get(mech_name).collection == "longitudinal"
        if epsilon_1 is not None and "epsilon_1" not in extra and longitudinal:
            extra["epsilon_1"] = float(epsilon_1)
        configs.append(SweepConfiguration(mech_name, float(eps), int(n), int(d), extra))
    return configs


def _closed_forms(result: SimulationResult, metrics: Sequence[str]) -> dict[str, float]:
    """metric → its closed-form expected value for the mechanism's own (unbiased) estimate; NaN without one."""
    variance = result.variance_per_value()
    truth = result.true_values
    return {m: get_metric(m).expected(variance, truth, k=result.top_k) for m in metrics}


def result_table(config: SweepConfiguration, result: SimulationResult) -> pd.DataFrame:
    """A configuration's simulation as tidy rows (columns :data:`SWEEP_COLUMNS`): one row per estimator, metric and
    trial; ``closed_form`` is the metric's closed form on the mechanism's own estimator's rows (NaN elsewhere).

    Parameters
    ----------
    config : SweepConfiguration
        The configuration simulated (its mechanism, ε, users and d fill the leading columns).
    result : SimulationResult
        Its simulation.

    Returns
    -------
    pandas.DataFrame
        One row per (estimator, metric, trial), columns :data:`SWEEP_COLUMNS`; empty (those columns) when the
        result has no metrics.
    """
    names = [(est, metric) for est, per in result.metrics.items() for metric in per]
    if not names:
        return pd.DataFrame(columns=list(SWEEP_COLUMNS))
    t = result.trials
    closed = _closed_forms(result, list(dict.fromkeys(metric for _, metric in names)))
    own = result.mechanism.default_estimator
    return pd.DataFrame({
        "mechanism": config.mechanism, "epsilon": config.epsilon, "users": config.users, "d": config.d,
        "engine": result.engine,
        "trial": np.tile(np.arange(t), len(names)),
        "estimator": np.repeat([est for est, _ in names], t),
        "metric": np.repeat([metric for _, metric in names], t),
        "value": np.concatenate([np.asarray(result.metrics[est][metric], dtype=np.float64) for est, metric in names]),
        "theoretical_variance": result.theoretical_variance,
        "closed_form": np.repeat([closed[metric] if est == own else math.nan for est, metric in names], t),
    }, columns=list(SWEEP_COLUMNS))


@dataclass(frozen=True)
class ConfigurationTable:
    """One configuration's tidy table (module level and frozen: picklable for a process pool or Dask).

    ``estimators``: the same for every mechanism, or mechanism → its own; empty: the mechanism's own estimator.
    ``applicable_only`` drops the estimators that do not apply to a mechanism (none left: no rows) instead of
    refusing them.

    Attributes
    ----------
    population : Population
        ``population(d, n, rng)``, picklable when the table runs in another process.
    seed : int or None
        The root seed of the population and collection streams.
    estimators : tuple of str, or mapping of str to tuple of str
        Estimator names for every mechanism, or per mechanism name.
    trials : int
        Independent collections per configuration.
    engine : str
        ``"fast"`` or ``"exact"``.
    metrics : tuple of str or None
        Registered metrics (None: the kind's defaults).
    edges : tuple of float, optional
        Real-unit bin edges for the numerical metrics.
    top_k : int, default 10
        k of the top-k MSE.
    applicable_only : bool, default False
        Drop inapplicable estimators instead of raising.
    """

    population: Population
    seed: int | None
    estimators: tuple[str, ...] | Mapping[str, tuple[str, ...]]
    trials: int
    engine: str
    metrics: tuple[str, ...] | None
    edges: tuple[float, ...] | None = None
    top_k: int = 10
    applicable_only: bool = False

    def estimators_for(self, config: SweepConfiguration) -> list[str] | None:
        names = self.estimators.get(config.mechanism, ()) if isinstance(self.estimators, Mapping) else self.estimators
        if not self.applicable_only:
            return list(names) or None
        mechanism = get_mechanism(config.mechanism, config.epsilon, config.d, **config.params)
        return [e for e in names or [mechanism.default_estimator] if ESTIMATORS.get(e).applies_to(mechanism)]

    def __call__(self, config: SweepConfiguration) -> pd.DataFrame:
        estimators = self.estimators_for(config)
        if estimators == []:
            return pd.DataFrame(columns=list(SWEEP_COLUMNS))
        result = simulate_configuration(config.mechanism, config.epsilon, config.users, config.d, self.population,
                                        params=config.params, seed=self.seed, estimators=estimators,
                                        engine=self.engine, trials=self.trials,
                                        metrics=None if self.metrics is None else list(self.metrics), top_k=self.top_k,
                                        edges=None if self.edges is None else np.asarray(self.edges))
        return result_table(config, result)


def sweep_tables(population: Population, *, mechanisms: Sequence[str], epsilons: Sequence[float],
                 users: Sequence[int], domain_sizes: Sequence[int],
                 estimators: Sequence[str] | Mapping[str, Sequence[str]] = ("mi",), trials: int = 1,
                 engine: str = "fast", seed: int | None = 0, metrics: Sequence[str] | None = None,
                 params: Mapping[str, Mapping[str, Any]] | None = None, epsilon_1: float | None = None,
                 edges: Sequence[float] | None = None, top_k: int = 10, applicable_only: bool = False,
                 executor: str = "serial", workers: int | None = None, address: str | None = None,
                 progress: Callable[[int, int], None] | None = None, cancel: Callable[[], bool] | None = None,
                 runner: Callable[[SweepConfiguration], pd.DataFrame] | None = None) -> Iterator[pd.DataFrame]:
    """The sweep driver: every (mechanism, ε, n, d) configuration (:func:`sweep_configurations`) as its tidy table
    (:class:`ConfigurationTable`, columns :data:`SWEEP_COLUMNS`), one configuration after another, for every kind
    of mechanism (frequency, numerical, mean: ``population`` gives the counts, or counts and values).

    ``population(d, n, rng)`` draws from the one population stream of the seed and each collection from the
    configuration's own stream, so every ``executor`` (``serial``, ``processes`` with ``workers``, ``dask`` at
    scheduler ``address``; :func:`ldp.core.executors.run_ordered`) yields the same tables in the same order. A pool
    or a cluster needs a picklable ``population`` (e.g. :class:`SweepPopulation`). ``progress(done, total)`` counts
    configurations; ``cancel()`` stops the sweep (``Cancelled``). ``edges`` (real-unit bin edges) feed the
    numerical metrics, ``top_k`` the top-k MSE. ``runner(config)`` replaces the configuration's own computation on
    the serial executor (e.g. a cache of it; it must give the same table).

    Parameters
    ----------
    population : Population
        ``population(d, n, rng)`` → users per cell, or (counts, values) for mean mechanisms.
    mechanisms, epsilons, users, domain_sizes : sequence
        The grid's axes (:func:`sweep_configurations`).
    estimators : sequence of str, or mapping of str to sequence of str, default ("mi",)
        Estimator names for every mechanism, or per mechanism name; empty: the mechanism's own.
    trials : int, default 1
        Independent collections per configuration (a positive integer).
    engine : {"fast", "exact"}, default "fast"
        The collection engine.
    seed : int or None, default 0
        The root seed.
    metrics : sequence of str, optional
        Registered metrics; default: the kind's.
    params : mapping of str to mapping, optional
        Per mechanism name, its extra parameters.
    epsilon_1 : float, optional
        First-round budget of the longitudinal mechanisms.
    edges : sequence of float, optional
        Real-unit bin edges for the numerical metrics.
    top_k : int, default 10
        k of the top-k MSE.
    applicable_only : bool, default False
        Drop the estimators that do not apply to a mechanism instead of raising.
    executor : {"serial", "processes", "dask"}, default "serial"
        Where the configurations run (:func:`ldp.core.executors.run_ordered`).
    workers : int, optional
        Processes of the ``processes`` executor.
    address : str, optional
        The Dask scheduler's address.
    progress : callable, optional
        ``progress(done, total)``, called as configurations finish.
    cancel : callable, optional
        ``cancel()`` → True stops the sweep.
    runner : callable, optional
        ``runner(config)`` → the configuration's table, replacing :class:`ConfigurationTable` on the serial
        executor.

    Yields
    ------
    pandas.DataFrame
        Each configuration's tidy table (columns :data:`SWEEP_COLUMNS`), in grid order.

    Raises
    ------
    InvalidInput
        For a bad ``trials``, an empty grid or an unknown mechanism (before the first table), or any invalid
        configuration (when its table is computed).
    Cancelled
        When ``cancel()`` returns True.
    """
    trials = _check_trials(trials)
    configs = sweep_configurations(mechanisms, epsilons, users, domain_sizes, params=params, epsilon_1=epsilon_1)
    per = ({k: tuple(v) for k, v in estimators.items()} if isinstance(estimators, Mapping) else tuple(estimators))
    task: Callable[[SweepConfiguration], pd.DataFrame] = ConfigurationTable(
        population, seed, per, trials, engine, None if metrics is None else tuple(metrics),
        None if edges is None else tuple(float(e) for e in edges), int(top_k), applicable_only)
    if runner is not None and executor == "serial":
        task = runner
    yield from run_ordered(task, configs, executor=executor, workers=workers, address=address, progress=progress,
                           cancel=cancel)


def sweep_rows(population: Population, **kwargs: Any) -> Iterator[dict[str, Any]]:
    """The rows of :func:`sweep` (dicts keyed by :data:`SWEEP_COLUMNS`), configuration by configuration: memory
    bounded by a few configurations. Arguments as for :func:`sweep_tables`.

    Parameters
    ----------
    population : Population
        ``population(d, n, rng)`` → users per cell.
    **kwargs
        As for :func:`sweep_tables`.

    Yields
    ------
    dict of str to Any
        One row, keyed by :data:`SWEEP_COLUMNS`.

    Raises
    ------
    InvalidInput
        As :func:`sweep_tables`.
    """
    for table in sweep_tables(population, **kwargs):
        yield from table.to_dict("records")


def sweep(population: Population, **kwargs: Any) -> pd.DataFrame:
    """Run every (mechanism, ε, n, d) configuration and return one tidy table.

    Each configuration draws its collections from its own named stream (:func:`configuration_key`), so adding a
    configuration never changes another's numbers; its users are drawn from the one population stream of the seed.

    Parameters
    ----------
    population : callable
        ``population(d, n, rng)`` → users per value (e.g. :class:`SweepPopulation`).
    **kwargs
        As for :func:`sweep_tables`: ``mechanisms``, ``epsilons``, ``users``, ``domain_sizes``, ``estimators``,
        ``trials``, ``engine``, ``seed``, ``metrics``, ``executor`` ("serial", "processes" or "dask") …

    Returns
    -------
    pandas.DataFrame
        One row per (configuration, estimator, trial, metric), columns :data:`SWEEP_COLUMNS`; for very large grids
        iterate :func:`sweep_rows` instead.
    """
    tables = [t for t in sweep_tables(population, **kwargs) if len(t)]
    if not tables:
        return pd.DataFrame(columns=list(SWEEP_COLUMNS))
    return pd.concat(tables, ignore_index=True)
