"""A simulation configuration as one object: where the data come from, the mechanism, the users, the estimators, the
engine and the seed — what the Playground runs and what its downloaded configuration records, so that
``ldp simulate --config FILE`` re-runs it to the same numbers (the same data source built by the same function, the
same users drawn by :func:`ldp.data.domain.draw_population` from the seed's population stream, the same collections
from the seed's collection streams)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ldp.core.errors import InvalidInput
from ldp.core.params import check_positive_int
from ldp.data.domain import draw_population
from ldp.estimators import get_estimator
from ldp.mechanisms import get_mechanism
from ldp.simulation import SimulationResult, simulate
from ldp.studies.datasets import Dataset, dataset_from_source

__all__ = ["SimulationConfiguration", "simulate_population"]


def simulate_population(mechanism: str, epsilon: float, params: dict[str, Any], counts: np.ndarray,
                        users: int | None, estimators: Sequence[Any], *, engine: str, seed: int, trials: int = 1,
                        metrics: Sequence[str] | None = None) -> SimulationResult:
    """One configuration's run on a population given by its users per value: ``users`` None keeps the data's own
    rows, otherwise ``users`` users are drawn with :func:`draw_population` from the seed; the mechanism's
    collections then draw from the seed's streams (:func:`ldp.simulate`). ``estimators``: names or
    ``(name, params)`` pairs or :class:`~ldp.estimators.Estimator` objects.

    Parameters
    ----------
    mechanism : str
        A registered mechanism's name; it is built with d = ``len(counts)``.
    epsilon : float
        The privacy budget ε.
    params : dict of str to Any
        The mechanism's other parameters (e.g. ``epsilon_1``).
    counts : numpy.ndarray
        The data's users per value, shape (d,), integers.
    users : int or None
        The number of users to draw from ``counts``; None keeps ``counts`` as the population.
    estimators : Sequence[Any]
        Names, ``(name, params)`` pairs or Estimator objects.
    engine : str
        The simulation engine's registered name (e.g. ``"fast"``).
    seed : int
        The seed of the population and collection streams.
    trials : int, default 1
        Independent collections.
    metrics : Sequence[str] or None, default None
        The metrics to compute; None for :func:`ldp.simulate`'s default.

    Returns
    -------
    SimulationResult
        :func:`ldp.simulate`'s result (estimates per estimator and trial, metrics, diagnostics).
    """
    counts = np.asarray(counts, dtype=np.int64)
    mech = get_mechanism(mechanism, epsilon, int(counts.shape[0]), **dict(params))
    population = counts if users is None else draw_population(counts, users, seed)
    chosen = [e if not isinstance(e, (tuple, list)) else get_estimator(e[0], **dict(e[1])) for e in estimators]
    return simulate(mech, population, estimators=chosen, engine=engine, seed=seed, trials=trials,
                    **({} if metrics is None else {"metrics": tuple(metrics)}))


@dataclass(frozen=True)
class SimulationConfiguration:
    """What one simulation is (see the module docstring); :meth:`to_dict`/:meth:`from_dict` are the JSON block a
    page's downloaded configuration carries under ``"simulation"``.

    Attributes
    ----------
    source : dict of str to Any
        Where the data come from, as :func:`ldp.studies.datasets.dataset_from_source` reads it.
    mechanism : str
        A registered mechanism's name.
    epsilon : float
        The privacy budget ε.
    params : dict of str to Any, default {}
        The mechanism's other parameters.
    users : int or None, default None
        Users drawn from the data; None keeps the data's own rows.
    estimators : tuple of (str, dict), default (("mi", {}),)
        The estimators, as (name, parameters) pairs.
    engine : str, default "fast"
        The simulation engine's registered name.
    seed : int, default 0
        The seed.
    trials : int, default 1
        Independent collections.
    """

    source: dict[str, Any]
    mechanism: str
    epsilon: float
    params: dict[str, Any] = field(default_factory=dict)
    users: int | None = None
    estimators: tuple[tuple[str, dict[str, Any]], ...] = (("mi", {}),)
    engine: str = "fast"
    seed: int = 0
    trials: int = 1

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "mechanism": self.mechanism, "epsilon": self.epsilon, "params": self.params,
                "users": self.users, "estimators": [{"name": n, "params": p} for n, p in self.estimators],
                "engine": self.engine, "seed": self.seed, "trials": self.trials}

    @classmethod
    def from_dict(cls, data: Any) -> SimulationConfiguration:
        """From a page's configuration JSON (its ``"simulation"`` block, or the block itself); one-line errors."""
        if isinstance(data, dict) and "simulation" in data:
            data = data["simulation"]
        if not isinstance(data, dict):
            raise InvalidInput("the configuration has no 'simulation' block: download it from the Playground")
        missing = [k for k in ("source", "mechanism", "epsilon") if k not in data]
        if missing:
            raise InvalidInput(f"the configuration's simulation block lacks {', '.join(missing)}")
        ests = data.get("estimators") or [{"name": "mi", "params": {}}]
        try:
            estimators = tuple((str(e["name"]), dict(e.get("params") or {})) if isinstance(e, dict) else (str(e), {})
                               for e in ests)
            users = data.get("users")
            return cls(source=dict(data["source"]), mechanism=str(data["mechanism"]), epsilon=float(data["epsilon"]),
                       params=dict(data.get("params") or {}),
                       users=None if users is None else check_positive_int(users, "users"),
                       estimators=estimators, engine=str(data.get("engine", "fast")), seed=int(data.get("seed", 0)),
                       trials=check_positive_int(data.get("trials", 1), "trials"))
        except (TypeError, KeyError, ValueError) as exc:
            if isinstance(exc, InvalidInput):
                raise
            raise InvalidInput(f"the configuration's simulation block is malformed: {exc}") from None

    @classmethod
    def from_json(cls, text: str) -> SimulationConfiguration:
        try:
            return cls.from_dict(json.loads(text))
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"the configuration is not JSON: {exc.msg} at line {exc.lineno}") from None

    def dataset(self, table: pd.DataFrame | None = None) -> Dataset:
        return dataset_from_source(self.source, table)

    def run(self, dataset: Dataset | None = None, *, table: pd.DataFrame | None = None,
            metrics: Sequence[str] | None = None) -> SimulationResult:
        data = self.dataset(table) if dataset is None else dataset
        return simulate_population(self.mechanism, self.epsilon, self.params, data.counts, self.users,
                                   list(self.estimators), engine=self.engine, seed=self.seed, trials=self.trials,
                                   metrics=metrics)
