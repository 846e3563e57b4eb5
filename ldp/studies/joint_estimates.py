"""What every joint-distribution method shares (:mod:`ldp.studies.joint`, :mod:`ldp.studies.joint_ranges`): the
result record :class:`JointEstimate`, the registry :data:`JOINT_METHODS` with its base class, and the steps of a
collection from groups of users — the frequency oracle of a domain, one collection through it, splitting the users
into groups, CALM's consistency step between marginals that share attributes.
"""

from __future__ import annotations

import itertools
import math
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar

import numpy as np

from ldp.core.errors import InvalidInput
from ldp.core.registry import MECHANISMS, Registry
from ldp.core.results import frozen_array
from ldp.core.streams import rng_for
from ldp.data.joint import JointPopulation
from ldp.engines import collect
from ldp.estimators import get_estimator
from ldp.mechanisms import get_mechanism, mechanisms_of
from ldp.mechanisms.frequency.base import FrequencyOracle
from ldp.mechanisms.numerical.binning import choose_oracle

__all__ = ["CALM_PAPER", "CALM_ROUNDS", "DEFAULT_POSTPROCESS", "JOINT_METHODS", "SPLIT_BUDGETS", "JointEstimate",
           "JointJob", "JointMethod", "check_group", "dependence", "independence_tvd", "make_consistent", "oracle_for",
           "pair_disagreement", "run_oracle", "split_users"]

CALM_PAPER = ("Zhang, Wang, Li, He, Chen — CALM: Consistent Adaptive Local Marginal for Marginal Release under "
              "Local Differential Privacy (CCS 2018)")
DEFAULT_POSTPROCESS = "norm-sub"
#: Rounds of (consistency, non-negativity) of CALM's post-processing before the final consistency step.
CALM_ROUNDS = 5
SPLIT_BUDGETS = ("users", "epsilon")


# =========================================================================== the result
@dataclass(frozen=True, eq=False)
class JointEstimate:
    """An estimated joint distribution over the product domain of 2 or 3 columns (read-only).

    ``estimate`` has shape (d₁, d₂[, d₃]); ``truth`` (when known) the same; ``metrics`` holds ``tvd`` (half the L1
    distance) and ``mse`` (mean squared error over the cells) against it, and ``range_mse`` when range queries were
    scored (:mod:`ldp.studies.joint_ranges`).

    Attributes
    ----------
    method : str
        The joint method's registered name (:data:`JOINT_METHODS`).
    columns : tuple of str
        The 2 or 3 columns' names.
    labels : tuple of tuple of str
        Per column, one label per value.
    estimate : numpy.ndarray
        The estimated joint distribution, shape (d₁, d₂[, d₃]); stored read-only.
    settings : Mapping[str, Any]
        The method's settings (oracle per group, granularities …); stored read-only.
    diagnostics : Mapping[str, Any]
        What the run reports (users per group, variances, iterations …); stored read-only.
    truth : numpy.ndarray or None, default None
        The true joint distribution, same shape as ``estimate``; None when unknown.
    metrics : Mapping[str, float], default {}
        Further metrics; with a truth, ``tvd`` and ``mse`` are computed and added.

    Raises
    ------
    InvalidInput
        If ``truth`` does not have the estimate's shape.
    """

    method: str
    columns: tuple[str, ...]
    labels: tuple[tuple[str, ...], ...]
    estimate: np.ndarray
    settings: Mapping[str, Any]
    diagnostics: Mapping[str, Any]
    truth: np.ndarray | None = None
    metrics: Mapping[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "estimate", frozen_array(self.estimate))
        if self.truth is not None:
            truth = frozen_array(self.truth)
            if truth.shape != self.estimate.shape:
                raise InvalidInput(f"the truth's shape {truth.shape} differs from the estimate's {self.estimate.shape}")
            object.__setattr__(self, "truth", truth)
            scores = {"tvd": 0.5 * float(np.abs(self.estimate - truth).sum()),
                      "mse": float(np.mean((self.estimate - truth) ** 2)), **dict(self.metrics)}
            object.__setattr__(self, "metrics", scores)
        for name in ("settings", "diagnostics", "metrics"):
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # the read-only mappings cannot be pickled (st.cache_data pickles results): rebuild from dicts
        return (JointEstimate, (self.method, self.columns, self.labels, self.estimate, dict(self.settings),
                                dict(self.diagnostics), self.truth, dict(self.metrics)))

    def with_metrics(self, **extra: float) -> JointEstimate:
        """The same estimate with further metrics (e.g. ``range_mse``)."""
        return JointEstimate(self.method, self.columns, self.labels, self.estimate, self.settings, self.diagnostics,
                             self.truth, {**self.metrics, **extra})

    def rows(self, values: np.ndarray | None = None) -> list[dict[str, Any]]:
        """One row per cell of the product domain: each column's label and ``frequency``."""
        table = self.estimate if values is None else np.asarray(values)
        cells = itertools.product(*self.labels)
        return [{**dict(zip(self.columns, cell, strict=True)), "frequency": float(f)}
                for cell, f in zip(cells, table.ravel(), strict=True)]


# =========================================================================== shared steps
def oracle_for(epsilon: float, d: int, n: int, oracle: str | None = None) -> FrequencyOracle:
    """The frequency oracle over d values: ``oracle`` (any registered one-time frequency oracle) or, by default,
    GRR or OLH, whichever has the smaller closed-form variance at (ε, d, n) — the d < 3e^ε + 2 rule of the lecture
    (:func:`ldp.mechanisms.numerical.binning.choose_oracle`).

    Parameters
    ----------
    epsilon : float
        The budget ε each user spends on the report.
    d : int
        The domain size (cells of the grid or marginal).
    n : int
        The users reporting through it (below 1 is taken as 1), for the variance comparison.
    oracle : str or None, default None
        A registered one-time frequency oracle; None chooses GRR or OLH.

    Returns
    -------
    FrequencyOracle
        The mechanism built at (ε, d).

    Raises
    ------
    InvalidInput
        If ``oracle`` is unknown or not a one-time frequency oracle.

    References
    ----------
    The LDP lecture, Table 1 and the rule below it (direct encoding if d < 3e^ε + 2, else OLH when
    communication matters — OUE otherwise; here OLH, by the closed-form variances).
    """
    name = choose_oracle(epsilon, d, max(int(n), 1)) if oracle is None else oracle
    cls = MECHANISMS.get(name)  # an unknown name: the registry's own message, with the valid names
    if cls not in mechanisms_of("frequency") or cls.collection != "one-time":
        raise InvalidInput(f"{name} is not a one-time frequency oracle; the joint methods need one")
    return get_mechanism(name, epsilon, d)


def run_oracle(mechanism: FrequencyOracle, counts: np.ndarray, rng: np.random.Generator, engine: str,
               postprocess: str) -> np.ndarray:
    """One collection of users per cell ``counts`` (flat) through ``mechanism`` and its post-processed estimate.

    Parameters
    ----------
    mechanism : FrequencyOracle
        The oracle, over ``counts.size`` values.
    counts : numpy.ndarray
        Users per value, flat, shape (d,).
    rng : numpy.random.Generator
        The collection's stream.
    engine : str
        The simulation engine (``"fast"`` or ``"exact"``).
    postprocess : str
        A registered estimator's name (e.g. :data:`DEFAULT_POSTPROCESS`).

    Returns
    -------
    numpy.ndarray
        The estimated frequencies, shape (d,).
    """
    aggregate = collect(mechanism, counts, rng, engine)
    return get_estimator(postprocess).estimate(mechanism, aggregate).values


def split_users(counts: np.ndarray, groups: int, rng: np.random.Generator) -> np.ndarray:
    """Every user assigned to one of ``groups`` groups uniformly at random: users per (cell, group), shape
    counts.shape + (groups,). One multinomial per cell, vectorized.

    Parameters
    ----------
    counts : numpy.ndarray
        Users per cell, any shape, non-negative integers.
    groups : int
        The number of groups (positive).
    rng : numpy.random.Generator
        The stream of the split.

    Returns
    -------
    numpy.ndarray
        int64 users per (cell, group), shape ``counts.shape + (groups,)``; summing over the last axis gives
        ``counts``.
    """
    flat = np.asarray(counts, dtype=np.int64).ravel()
    out = rng.multinomial(flat, np.full(groups, 1.0 / groups))
    return out.reshape((*np.shape(counts), groups))


def check_group(n: int, what: str) -> None:
    """Refuse a group of users that is empty (a split left no user to report one grid or marginal).

    Parameters
    ----------
    n : int
        The group's users.
    what : str
        The group's name, for the message.

    Raises
    ------
    InvalidInput
        If n < 1.
    """
    if n < 1:
        raise InvalidInput(f"no user fell in the group of {what}; use more users")


def product_of_marginals(joint: np.ndarray) -> np.ndarray:
    """The table of independent columns with the same marginals as ``joint`` (what ``split`` converges to)."""
    p = np.asarray(joint, dtype=np.float64)
    product = np.ones(1)
    for axis in range(p.ndim):
        marginal = p.sum(axis=tuple(a for a in range(p.ndim) if a != axis))
        product = np.multiply.outer(product, marginal) if axis else marginal
    return product


def dependence(joint: np.ndarray) -> float:
    """Squared L2 distance between a joint distribution and the product of its marginals (0 iff independent):
    the squared bias of ``split`` on that joint.

    Parameters
    ----------
    joint : numpy.ndarray
        A joint distribution over 2 or more columns, shape (d₁, d₂, …).

    Returns
    -------
    float
        Σ (p − ∏ marginals)² over the cells.
    """
    return float(np.sum((np.asarray(joint, dtype=np.float64) - product_of_marginals(joint)) ** 2))


def independence_tvd(joint: np.ndarray) -> float:
    """Total variation distance between a joint distribution and the product of its marginals: split's TVD in the
    limit of many users.

    Parameters
    ----------
    joint : numpy.ndarray
        A joint distribution, shape (d₁, d₂, …).

    Returns
    -------
    float
        ½ Σ |p − ∏ marginals| over the cells, in [0, 1].
    """
    return 0.5 * float(np.abs(np.asarray(joint, dtype=np.float64) - product_of_marginals(joint)).sum())


def make_consistent(marginals: dict[tuple[int, ...], np.ndarray], variances: Mapping[tuple[int, ...], float]
                    ) -> dict[tuple[int, ...], np.ndarray]:
    """CALM §4.3's consistency step (after PriView, Qardaji et al. SIGMOD'14): for every attribute set A shared by
    two or more marginals, in order of size (∅ first, then single attributes, …), replace each marginal's
    projection onto A by the weighted average of all their projections and spread the difference evenly over the
    marginal's cells that project onto each cell of A.

    The weights are the inverse variances of the projections: marginal M's projection onto A sums
    C_M = ∏_{i ∈ M∖A} d_i cells of per-cell variance V_M, so w_M ∝ 1/(C_M·V_M) (CALM §4.3 weights by the number of
    users and cells alike). The update adds (T_A(a) − P_M(a))/C_M to each cell of M over a, which leaves every
    smaller shared set consistent (its change sums to zero). ``marginals`` maps a sorted tuple of axes to its
    table (axes in that order); returns new tables.

    Parameters
    ----------
    marginals : dict of tuple of int to numpy.ndarray
        Each marginal's table, keyed by its sorted attribute indices (one table axis per attribute).
    variances : Mapping[tuple of int, float]
        Each marginal's per-cell variance V_M (positive), same keys.

    Returns
    -------
    dict of tuple of int to numpy.ndarray
        New tables, same keys and shapes, consistent on every shared attribute set (the inputs are not changed).

    References
    ----------
    Zhang, Wang, Li, He, Chen, "CALM: Consistent Adaptive Local Marginal for Marginal Release under Local
    Differential Privacy" (CCS 2018), §4.3 (not among the bundled specifications).
    Qardaji, Yang, Li, "PriView: Practical Differentially Private Release of Marginal Contingency Tables"
    (SIGMOD 2014).
    """
    out = {k: np.array(v, dtype=np.float64) for k, v in marginals.items()}
    attrs = sorted({a for key in out for a in key})
    for size in range(0, max(len(k) for k in out)):
        for shared in itertools.combinations(attrs, size):
            owners = [k for k in out if set(shared) <= set(k) and len(k) > size]
            if len(owners) < 2:
                continue
            projections, weights = {}, {}
            for key in owners:
                summed = tuple(i for i, a in enumerate(key) if a not in shared)
                projections[key] = out[key].sum(axis=summed)
                cells = math.prod(out[key].shape[i] for i in summed)
                weights[key] = 1.0 / (cells * variances[key])
            total = sum(weights.values())
            target = sum(weights[k] * projections[k] for k in owners) / total
            for key in owners:
                summed = tuple(i for i, a in enumerate(key) if a not in shared)
                cells = math.prod(out[key].shape[i] for i in summed)
                out[key] = out[key] + np.expand_dims((target - projections[key]) / cells, summed)
    return out


def pair_disagreement(marginals: Mapping[tuple[int, ...], np.ndarray]) -> float:
    """The largest gap between two marginals' projections onto an attribute they share.

    Parameters
    ----------
    marginals : Mapping[tuple of int, numpy.ndarray]
        Marginal tables keyed by their sorted attribute indices, as for :func:`make_consistent`.

    Returns
    -------
    float
        The largest absolute difference between two marginals' one-attribute projections (0 when consistent or
        when no two share an attribute).
    """
    worst = 0.0
    for a, b in itertools.combinations(marginals, 2):
        for attr in set(a) & set(b):
            pa = marginals[a].sum(axis=tuple(i for i, x in enumerate(a) if x != attr))
            pb = marginals[b].sum(axis=tuple(i for i, x in enumerate(b) if x != attr))
            worst = max(worst, float(np.max(np.abs(pa - pb))))
    return worst


@dataclass(frozen=True)
class JointJob:
    """What every method is given.

    Attributes
    ----------
    population : JointPopulation
        The users per cell of the product domain.
    epsilon : float
        Each user's budget ε.
    rng_seed : int or None
        The seed every stream is keyed from (:meth:`rng`); None for fresh randomness.
    engine : str
        The simulation engine (``"fast"`` or ``"exact"``).
    oracle : str or None
        The frequency oracle of every group; None lets :func:`oracle_for` choose GRR or OLH per domain.
    postprocess : str
        The estimator applied to every collection (e.g. :data:`DEFAULT_POSTPROCESS`).
    """

    population: JointPopulation
    epsilon: float
    rng_seed: int | None
    engine: str
    oracle: str | None
    postprocess: str

    def rng(self, *names: Any) -> np.random.Generator:
        return rng_for(self.rng_seed, "joint", *names)


class JointMethod(ABC):
    """A way to estimate the joint distribution (a registered class; ``run`` returns a :class:`JointEstimate`)."""

    name: ClassVar[str]
    description: ClassVar[str]
    #: What the method assumes of the data beyond the collected statistics ("" when nothing).
    assumes: ClassVar[str] = ""
    columns: ClassVar[tuple[int, ...]] = (2, 3)
    #: Whether the estimate is the product of the marginals (then the columns' dependence cannot be estimated).
    assumes_independence: ClassVar[bool] = False

    @classmethod
    @abstractmethod
    def run(cls, job: JointJob, **options: Any) -> tuple[np.ndarray, dict[str, Any], dict[str, Any]]:
        """The method's estimate from the job's collections, its diagnostics and its parameters."""


JOINT_METHODS: Registry[type[JointMethod]] = Registry("joint method")
