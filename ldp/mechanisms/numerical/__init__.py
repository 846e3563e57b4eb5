"""Distributions of numerical attributes under LDP (Li, Wang, Lopuhaä-Zwakenberg, Li, Škorić, SIGMOD 2020).

A numerical mechanism takes *real* values, unlike the categorical frequency oracles of
:mod:`ldp.mechanisms`: the Square Wave (SW) client reports a real number ("randomize before bucketize",
§5.4) and the server reconstructs a histogram of ``d`` input buckets from the histogram of ``d̃`` report
buckets with EM or EMS (§5.5, :mod:`ldp.estimators.reconstruction`).

Mechanisms work on the unit interval [0, 1]; :class:`ValueScale` maps a column's real range [lo, hi] to it
and back, so inputs, reports and the bucket edges of every estimate can be kept in the data's own units:

>>> from ldp.mechanisms.numerical import ValueScale, get_numerical_mechanism
>>> scale = ValueScale(0.0, 120.0)                       # e.g. ages
>>> sw = get_numerical_mechanism("sw", epsilon=1.0, d=256)
>>> reports = sw.perturb(scale.to_unit(ages), rng)       # real-valued reports in [−b, 1 + b]
>>> est = sw.estimate(sw.report_histogram(reports), method="ems", edges=scale.edges(256))
>>> ldp.studies.comparison.wasserstein_distance(est.edges, est.frequencies, truth)   # in years

Every numerical mechanism is registered in :data:`NUMERICAL_MECHANISMS` (a :class:`~ldp.core.registry.Registry`,
separate from the categorical ``MECHANISMS``) and derives from :class:`NumericalMechanism`, which validates
ε, ``d`` and the mechanism's own :class:`~ldp.core.params.Param` table exactly as the categorical base class does.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ldp.core.params import EPSILON, Param, resolve_params
from ldp.core.randomness import RandomSource
from ldp.core.registry import Registry

NUMERICAL_MECHANISMS: Registry[Any] = Registry("numerical mechanism")

BUCKETS = Param("d", int, "number of input buckets of the reconstructed histogram (§5.4)", low=2, high=2**24)


@dataclass(frozen=True)
class ValueScale:
    """The affine map between a column's real range [low, high] and the mechanisms' unit interval [0, 1].

    ``to_unit`` checks the range (or clips into it); ``from_unit`` maps anything back, including reports
    outside [0, 1] (an SW report lies in [−b, 1 + b], i.e. [low − b·w, high + b·w] with w = high − low).
    ``edges(d)`` are the same equal-width edges as :func:`ldp.data.domain.bucketize` uses, so an estimate
    and a bucketized column share their bins and the histogram metrics come out in real units.
    """

    low: float = 0.0
    high: float = 1.0

    def __post_init__(self) -> None:
        try:
            lo, hi = float(self.low), float(self.high)
        except (TypeError, ValueError):
            raise ValueError(f"value range must be two numbers, got [{self.low!r}, {self.high!r}]") from None
        if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi and np.isfinite(hi - lo)):
            raise ValueError(f"value range must be finite with low < high, got [{lo}, {hi}]")
        object.__setattr__(self, "low", lo)
        object.__setattr__(self, "high", hi)

    @property
    def width(self) -> float:
        return self.high - self.low

    def to_unit(self, values: Any, *, clip: bool = False) -> np.ndarray:
        """Values in [low, high] as floats in [0, 1]; outside values raise ``ValueError`` unless ``clip``."""
        x = np.asarray(values, dtype=np.float64)
        if x.ndim != 1:
            raise ValueError(f"values must be a 1-D array, got shape {x.shape}")
        if not np.all(np.isfinite(x)):
            raise ValueError("values must be finite (drop missing values first)")
        outside = (x < self.low) | (x > self.high)
        if outside.any():
            if not clip:
                bad = float(x[outside][0])
                raise ValueError(f"{int(outside.sum())} value(s) lie outside [{self.low:g}, {self.high:g}], "
                                 f"e.g. {bad:g}; widen the range or clip them")
            x = np.clip(x, self.low, self.high)
        return np.clip((x - self.low) / self.width, 0.0, 1.0)

    def from_unit(self, values: Any) -> np.ndarray:
        """The inverse map low + u·(high − low) (no range check: reports may lie outside [0, 1])."""
        return self.low + np.asarray(values, dtype=np.float64) * self.width

    def edges(self, d: int) -> np.ndarray:
        """The d + 1 edges of d equal-width buckets over [low, high] (as :func:`~ldp.data.domain.bucketize`)."""
        return np.linspace(self.low, self.high, int(d) + 1)

    @classmethod
    def from_edges(cls, edges: Any) -> ValueScale:
        e = np.asarray(edges, dtype=np.float64)
        if e.ndim != 1 or e.size < 2:
            raise ValueError("edges must be a 1-D array of at least two bin edges")
        return cls(float(e[0]), float(e[-1]))


class NumericalMechanism(ABC):
    """A local randomizer for a numerical attribute plus its server-side reconstruction.

    Construct with ``Mechanism(epsilon, d, **params)``; the constructor validates ε, ``d`` (whose meaning
    is given by ``domain_parameter``) and the declared ``extra_parameters``, then ``_setup`` derives
    defaults. Instances are immutable; derived objects (transition matrices, channels) are cached.
    """

    name: ClassVar[str]
    display_name: ClassVar[str]
    kind: ClassVar[str] = "numerical"
    family: ClassVar[str]
    description: ClassVar[str]
    paper: ClassVar[str]
    input_kind: ClassVar[str] = "continuous"  # "continuous": floats in [0, 1]; "discrete": codes in [0, d)
    report_format: ClassVar[str] = ""
    domain_parameter: ClassVar[Param] = BUCKETS
    extra_parameters: ClassVar[tuple[Param, ...]] = ()
    # Names of the server-side reconstructions this mechanism offers (first = default), e.g. ("ems", "em").
    reconstructions: ClassVar[tuple[str, ...]] = ()

    def __init__(self, epsilon: float, d: int, **params: Any) -> None:
        owner = self.name
        self._epsilon = EPSILON.validate(epsilon, owner)
        self._d = self.domain_parameter.validate(d, owner)
        self._params = resolve_params(owner, self.extra_parameters, params)
        self._cache: dict[str, Any] = {}
        self._setup()

    def simulate_population(self, true_counts: Any, rng: np.random.Generator, *, engine: str = "fast",
                            reconstruction: str | None = None) -> np.ndarray:
        """One collection of the population ``true_counts`` (users per input bucket, length d) and its
        reconstruction: the estimated frequencies over the d input buckets (the pipeline every page and
        the CLI call, whatever the mechanism). ``engine="exact"`` runs the client randomizer for every
        user (values uniform within their bucket); ``"fast"`` samples the report histogram directly."""
        counts = np.asarray(true_counts)
        if counts.shape != (self._d,) or np.any(counts < 0):
            raise ValueError(f"{self.name}: true counts must be {self._d} non-negative integers")
        if engine not in ("fast", "exact"):
            raise ValueError(f"unknown engine {engine!r}; choose one of: fast, exact")
        method = reconstruction or (self.reconstructions[0] if self.reconstructions else None)
        if self.reconstructions and method not in self.reconstructions:
            raise ValueError(f"{self.name} offers the reconstructions {', '.join(self.reconstructions)}, "
                             f"not {method!r}")
        return np.asarray(self._simulate_population(counts.astype(np.int64), rng, engine, method), dtype=float)

    def _simulate_population(self, counts: np.ndarray, rng: np.random.Generator, engine: str,
                             method: str | None) -> np.ndarray:
        raise ValueError(f"{self.name} does not implement population simulation")

    def _setup(self) -> None:
        """Derive defaults of optional parameters (hook); write them back into ``self._params``."""

    # ----------------------------------------------------------------- metadata and parameters
    @classmethod
    def own_parameters(cls) -> tuple[Param, ...]:
        return cls.extra_parameters

    @classmethod
    def parameter_table(cls) -> tuple[Param, ...]:
        return (EPSILON, cls.domain_parameter) + cls.extra_parameters

    @classmethod
    def parameters_info(cls) -> list[dict[str, Any]]:
        return [p.to_dict() for p in cls.parameter_table()]

    @property
    def epsilon(self) -> float:
        return self._epsilon

    @property
    def d(self) -> int:
        return self._d

    @property
    def params(self) -> dict[str, Any]:
        """Resolved mechanism-specific parameters (derived defaults filled in)."""
        return dict(self._params)

    def _cached(self, key: str, build: Callable[[], Any]) -> Any:
        if key not in self._cache:
            self._cache[key] = build()
        return self._cache[key]

    def __repr__(self) -> str:
        extra = "".join(f", {k}={v!r}" for k, v in self._params.items())
        return f"{type(self).__name__}(epsilon={self._epsilon!r}, d={self._d}{extra})"

    def __eq__(self, other: object) -> bool:
        return (type(self) is type(other) and self._epsilon == other._epsilon  # type: ignore[attr-defined]
                and self._d == other._d and self._params == other._params)  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._epsilon, self._d, tuple(sorted(self._params.items()))))

    # ----------------------------------------------------------------- client side
    @abstractmethod
    def perturb(self, values: Any, rng: RandomSource) -> np.ndarray:
        """Randomize each user's value into one report (first axis: the user)."""


def get_numerical_mechanism(name: str, epsilon: float, d: int, **params: Any) -> NumericalMechanism:
    """Build the registered numerical mechanism ``name`` with validated parameters."""
    return NUMERICAL_MECHANISMS.get(name)(epsilon, d, **params)


# Registration: importing the modules runs their ``@NUMERICAL_MECHANISMS.register`` decorators (they import
# the registry and the base class from this package, which are defined above). The order is the listing order
# (square wave first, then the other families), so import sorting is off here.
# isort: off
from ldp.estimators.reconstruction import (  # noqa: E402
    DenseChannel,
    EMTrace,
    Reconstruction,
    default_tolerance,
    em,
    ems,
    expectation_maximization,
    log_likelihood,
    reconstruct,
    smooth_binomial,
)
from ldp.mechanisms.numerical.square_wave import (  # noqa: E402
    DiscreteSquareWave,
    SquareWave,
    discrete_b,
    mutual_information_b,
)
from ldp.mechanisms.numerical.binning import CFOBinning, bin_boundaries, choose_oracle  # noqa: E402
from ldp.mechanisms.numerical.waves import GeneralWave, gw_transition_matrix, parse_shape, wave_probabilities  # noqa: E402
from ldp.mechanisms.mean import MEAN_MECHANISMS, PiecewiseMechanism, StochasticRounding, estimate_variance  # noqa: E402,E501
from ldp.mechanisms.numerical.hierarchy import HaarHRR, HierarchicalHistogram, admm_tree, constrained_inference  # noqa: E402
# isort: on

__all__ = [
    "BUCKETS", "NUMERICAL_MECHANISMS", "DenseChannel", "DiscreteSquareWave", "EMTrace", "NumericalMechanism",
    "Reconstruction", "SquareWave", "ValueScale", "default_tolerance", "discrete_b", "em", "ems",
    "expectation_maximization", "get_numerical_mechanism", "log_likelihood", "mutual_information_b",
    "reconstruct", "smooth_binomial", "HaarHRR", "HierarchicalHistogram", "admm_tree", "constrained_inference",
    "CFOBinning", "bin_boundaries", "choose_oracle", "GeneralWave", "gw_transition_matrix", "parse_shape",
    "wave_probabilities", "MEAN_MECHANISMS", "PiecewiseMechanism", "StochasticRounding", "estimate_variance",
]
