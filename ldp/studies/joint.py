"""The joint distribution of two or three categorical columns under LDP.

Three methods (:data:`JOINT_METHODS`), each a class with ``run``:

- ``product`` — one frequency oracle over the product domain: a user reports the mixed-radix index of their codes
  (:mod:`ldp.data.joint`) with the full ε. Unbiased (before post-processing), but the oracle's variance grows with
  the product domain d₁·d₂[·d₃] (OLH: 4e^ε/(n(e^ε − 1)²) per cell whatever the domain, GRR: (d − 2 + e^ε)/…).
- ``split`` — the users are split into one group per column; each reports its own column with the full ε (or,
  ``budget="epsilon"``, every user reports every column at ε/k); the marginals are estimated and the joint is their
  product. This **assumes independence**: on correlated columns it converges to the wrong answer
  (the product of the marginals), whatever n — the result says so (``diagnostics["assumes"]``).
- ``calm`` — CALM (Zhang, Wang, Li, He, Chen, CCS 2018, "CALM: Consistent Adaptive Local Marginal for Marginal
  Release under Local Differential Privacy"): the users are partitioned into one group per pair of columns; each
  group reports its pair through a frequency oracle over the pair's product domain (§4.1–4.2, the marginals to
  collect: here every 2-way marginal); every marginal is made non-negative with the registered post-processor
  (Norm-Sub by default, the consistency paper's; CALM §4.3 uses Norm-Sub-like "ripple" non-negativity), then the
  marginals are made mutually consistent (§4.3, the consistency step after Qardaji et al.'s PriView: the marginals
  sharing an attribute agree on it, see :func:`make_consistent`), alternating non-negativity and consistency a few
  rounds and ending with consistency. With three columns the joint is reconstructed from the three pairwise
  marginals by maximum entropy (§4.4 answers a marginal not collected by maximum entropy given the collected ones),
  computed by iterative proportional fitting (:func:`ldp.maths.ipf.ipf`) — exact when the data has no three-way
  interaction (e.g. a Markov chain x₁ → x₂ → x₃), biased otherwise. With two columns the one 2-way marginal *is*
  the joint, collected from all users: CALM is then the product method (the result says so).

Results are :class:`JointEstimate` (frozen) with the estimate over the product domain, the columns' labels, the
settings, diagnostics (users per group, per-marginal variance, the assumption made) and, when the truth is known,
the metrics ``tvd`` and ``mse``. :func:`advise_joint` picks a method from closed-form variances
(:func:`predicted_errors`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

from ldp.core.errors import InvalidInput
from ldp.core.params import EPSILON, check_positive_int
from ldp.core.streams import rng_for
from ldp.data.joint import JointPopulation, check_product_domain, joint_synthetic
from ldp.engines import check_engine
from ldp.estimators import get_estimator
from ldp.maths.ipf import ipf, marginal_constraint
from ldp.maths.simplex import norm_sub
from ldp.studies.joint_estimates import (
    CALM_PAPER,
    CALM_ROUNDS,
    DEFAULT_POSTPROCESS,
    JOINT_METHODS,
    SPLIT_BUDGETS,
    JointEstimate,
    JointJob,
    JointMethod,
    check_group,
    dependence,
    independence_tvd,
    make_consistent,
    oracle_for,
    pair_disagreement,
    run_oracle,
    split_users,
)

__all__ = ["CALM_PAPER", "DEFAULT_POSTPROCESS", "JOINT_METHODS", "JointAdvice", "JointEstimate", "SPLIT_BUDGETS",
           "advise_joint", "compare_methods", "compare_on", "dependence", "estimate_joint", "independence_tvd",
           "make_consistent", "predicted_errors"]

def _product(job: JointJob) -> tuple[np.ndarray, dict[str, Any], dict[str, Any]]:
    pop = job.population
    counts = pop.counts.ravel()
    mechanism = oracle_for(job.epsilon, counts.size, pop.n, job.oracle)
    values = run_oracle(mechanism, counts, job.rng("product", mechanism.name), job.engine, job.postprocess)
    variance = float(mechanism.approximate_variance(pop.n))
    return (values.reshape(pop.shape), {"oracle": mechanism.name},
            {"users_per_group": {"all": pop.n}, "cell_variance": variance,
             "expected_sq_error": float(mechanism.variance(np.full(counts.size, 1.0 / counts.size), pop.n).sum())})


@JOINT_METHODS.register
class ProductMethod(JointMethod):
    name = "product"
    description = "one frequency oracle over the product domain (mixed-radix index of the codes), full ε"

    @classmethod
    def run(cls, job: JointJob, **options: Any) -> tuple[np.ndarray, dict[str, Any], dict[str, Any]]:
        return _product(job)


@JOINT_METHODS.register
class SplitMethod(JointMethod):
    name = "split"
    description = ("users split across the columns, each group reports one column; joint = product of the "
                   "marginals (assumes independence)")
    assumes = "independence: the joint is the product of the marginals (wrong when the columns are correlated)"
    assumes_independence = True

    @classmethod
    def run(cls, job: JointJob, budget: str = "users", **options: Any) -> tuple[np.ndarray, dict[str, Any],
                                                                            dict[str, Any]]:
        if budget not in SPLIT_BUDGETS:
            raise InvalidInput(f"split budget must be one of {', '.join(SPLIT_BUDGETS)}, got {budget!r}")
        pop = job.population
        k = len(pop.shape)
        axes = range(k)
        if budget == "users":
            groups = split_users(pop.counts, k, job.rng("split", "groups"))
            populations = [groups[..., j].sum(axis=tuple(a for a in axes if a != j)) for j in axes]
            eps = job.epsilon
        else:  # every user reports every column at ε/k (sequential composition)
            populations = [pop.counts.sum(axis=tuple(a for a in axes if a != j)) for j in axes]
            eps = job.epsilon / k
        marginals, oracles, variances, users = [], [], {}, {}
        for j, counts in enumerate(populations):
            n_j = int(counts.sum())
            check_group(n_j, f"column {pop.columns[j]!r}")
            mechanism = oracle_for(eps, counts.size, n_j, job.oracle)
            marginals.append(run_oracle(mechanism, counts, job.rng("split", budget, j, mechanism.name), job.engine,
                                        job.postprocess))
            oracles.append(mechanism.name)
            variances[pop.columns[j]] = float(mechanism.approximate_variance(n_j))
            users[pop.columns[j]] = n_j
        joint = marginals[0]
        for m in marginals[1:]:
            joint = np.multiply.outer(joint, m)
        return (joint, {"oracle": oracles, "budget": budget, "epsilon_per_report": eps},
                {"users_per_group": users, "marginal_cell_variance": variances, "assumes": cls.assumes})


@JOINT_METHODS.register
class CalmMethod(JointMethod):
    name = "calm"
    description = ("CALM (CCS'18): one group per pair of columns reports that 2-way marginal; non-negativity, "
                   "consistency, maximum entropy (IPF) for 3 columns")
    assumes = "no three-way interaction (3 columns: the joint of maximum entropy given the pairwise marginals)"

    @classmethod
    def run(cls, job: JointJob, **options: Any) -> tuple[np.ndarray, dict[str, Any], dict[str, Any]]:
        pop = job.population
        if len(pop.shape) == 2:
            estimate, settings, diagnostics = _product(job)
            diagnostics["note"] = ("with two columns CALM's one 2-way marginal is the joint itself, collected from "
                                   "all users: CALM is the product method")
            return estimate, settings, diagnostics
        pairs = list(itertools.combinations(range(len(pop.shape)), 2))
        groups = split_users(pop.counts, len(pairs), job.rng("calm", "groups"))
        marginals, variances, users, oracles = {}, {}, {}, {}
        for g, pair in enumerate(pairs):
            other = tuple(a for a in range(len(pop.shape)) if a not in pair)
            counts = groups[..., g].sum(axis=other)
            n_g = int(counts.sum())
            label = "×".join(pop.columns[a] for a in pair)
            check_group(n_g, label)
            mechanism = oracle_for(job.epsilon, counts.size, n_g, job.oracle)
            raw = run_oracle(mechanism, counts.ravel(), job.rng("calm", pair, mechanism.name), job.engine,
                             job.postprocess)
            marginals[pair] = raw.reshape(counts.shape)
            variances[pair] = float(mechanism.approximate_variance(n_g))
            users[label], oracles[label] = n_g, mechanism.name
        before = pair_disagreement(marginals)
        rounds = CALM_ROUNDS if get_estimator(job.postprocess).consistent else 0
        for _ in range(rounds):
            marginals = make_consistent(marginals, variances)
            # the registered post-processors need an aggregate; between rounds the marginal is already a
            # post-processed table, so non-negativity is re-imposed by Norm-Sub (the simplex projection)
            marginals = {k: norm_sub(v.ravel()).reshape(v.shape) for k, v in marginals.items()}
        marginals = make_consistent(marginals, variances)
        targets = [marginal_constraint(pop.shape, pair, np.maximum(m, 0.0)) for pair, m in marginals.items()]
        joint, iterations, residual = ipf(pop.shape, targets)
        return (joint, {"oracle": oracles, "marginals": ["×".join(pop.columns[a] for a in p) for p in pairs]},
                {"users_per_group": users,
                 "marginal_cell_variance": {"×".join(pop.columns[a] for a in p): v for p, v in variances.items()},
                 "disagreement_before_consistency": before, "disagreement_after_consistency":
                 pair_disagreement(marginals), "min_marginal_cell": min(float(m.min()) for m in marginals.values()),
                 "ipf_iterations": iterations, "ipf_residual": residual, "assumes": cls.assumes})


# =========================================================================== the entry point
def estimate_joint(population: JointPopulation, epsilon: float, method: str | None = None, *, seed: int | None = 0,
                   engine: str = "fast", oracle: str | None = None, postprocess: str = DEFAULT_POSTPROCESS,
                   truth: np.ndarray | None = None, **options: Any) -> JointEstimate:
    """Estimate the joint distribution of a population's 2 or 3 columns with one method.

    Parameters
    ----------
    population : JointPopulation
        Users per cell of the product domain (:mod:`ldp.data.joint`).
    epsilon : float
        Every user's budget.
    method : str, optional
        A name of :data:`JOINT_METHODS`; default the advisor's choice (:func:`advise_joint`).
    seed : int, optional
        Root seed; every group and oracle draws from its own named stream.
    engine : {"fast", "exact"}
        The simulation engine of every oracle (:func:`ldp.engines.collect`).
    oracle : str, optional
        A registered one-time frequency oracle for every collection (default: GRR or OLH by variance).
    postprocess : str, default "norm-sub"
        The registered estimator applied to every oracle's estimate ("mi" keeps the unbiased estimate).
    truth : array, optional
        The distribution to score against (default: the population's own joint frequencies).
    **options
        Method options (``budget`` of ``split``: "users" or "epsilon").

    Returns
    -------
    JointEstimate
        The estimate over the product domain, its settings (method, ε, users, engine, post-processor, seed, domain
        and the method's own), diagnostics (with ``estimated_dependence`` unless the method assumes independence)
        and the metrics ``tvd`` and ``mse`` against the truth.

    Raises
    ------
    InvalidInput
        If the engine, ε, post-processor, method or oracle is unknown or invalid, the method does not take this
        number of columns, a method option is refused, or a group of users is empty.

    References
    ----------
    Zhang, Wang, Li, He, Chen, "CALM: Consistent Adaptive Local Marginal for Marginal Release under Local
    Differential Privacy" (CCS 2018), §4.1–4.4 (the ``calm`` method).
    """
    check_engine(engine)
    epsilon = EPSILON.validate(epsilon, "joint distribution")  # before any method's arithmetic sees it
    get_estimator(postprocess)  # an unknown name fails before any work
    if method is None:
        method = advise_joint(population.shape, population.n, epsilon).method
    cls = JOINT_METHODS.get(method)
    if len(population.shape) not in cls.columns:
        raise InvalidInput(f"{cls.name} takes {' or '.join(map(str, cls.columns))} columns, got "
                           f"{len(population.shape)}")
    job = JointJob(population, float(epsilon), seed, engine, oracle, postprocess)
    estimate, settings, diagnostics = cls.run(job, **options)
    if not cls.assumes_independence:
        # the squared L2 distance of the estimate to the product of its own marginals: what split would lose on
        # these columns (biased upwards by the estimate's noise, about diagnostics["expected_sq_error"])
        diagnostics["estimated_dependence"] = dependence(estimate)
    settings = {"method": cls.name, "epsilon": float(epsilon), "users": population.n, "engine": engine,
                "postprocess": postprocess, "seed": seed, "domain": list(population.shape), **settings}
    return JointEstimate(cls.name, population.columns, population.labels, estimate, settings, diagnostics,
                         population.frequencies() if truth is None else truth)


# =========================================================================== the advisor
def _sum_of_variances(epsilon: float, d: int, n: int, oracle: str | None) -> float:
    """Σ_v Var[f̂(v)] of the matrix-inversion estimate over d values from n users: [p*(1 − p*) + (d − 1)q*(1 − q*)]
    / (n (p* − q*)²), the same for every distribution (each Var is linear in f and Σ f = 1)."""
    mechanism = oracle_for(epsilon, d, n, oracle)
    return float(mechanism.variance(np.full(d, 1.0 / d), max(int(n), 1)).sum())


def predicted_errors(sizes: Sequence[int], n: int, epsilon: float, *, oracle: str | None = None,
                     dependence_sq: float | None = None) -> dict[str, float]:
    """Expected squared L2 error Σ_cells E(f̂ − f)² of each method, from closed-form variances (before
    post-processing).

    - product: Σ_v Var over D = ∏d_j cells from n users (:func:`_sum_of_variances`).
    - split: marginal j from n/k users, S_j = its Σ_v Var; for a product of independent unbiased estimates
      Σ_cells Var = ∏_j (Σ_a f_j(a)² + S_j) − ∏_j Σ_a f_j(a)², evaluated at uniform marginals (Σ f_j² = 1/d_j, the
      smallest, so a lower bound), plus the squared bias ``dependence_sq`` when given (:func:`dependence`).
    - calm (3 columns): pair (a, b) from n/3 users over d_a·d_b cells, S_ab; the max-entropy joint spreads each
      pairwise cell over the d_c cells of the third column, so Σ_cells Var ≈ Σ_pairs S_ab/d_c (a first-order
      approximation that ignores the averaging of the consistency step). 2 columns: the product method's.

    Parameters
    ----------
    sizes : Sequence[int]
        The columns' domain sizes d₁, d₂[, d₃] (the product domain is checked by
        :func:`ldp.data.joint.check_product_domain`).
    n : int
        All users (positive).
    epsilon : float
        Each user's budget ε.
    oracle : str or None, default None
        The frequency oracle of every collection; None chooses GRR or OLH per domain (:func:`oracle_for`).
    dependence_sq : float or None, default None
        The squared L2 distance of the joint to the product of its marginals (split's squared bias); None adds
        no bias to split's prediction.

    Returns
    -------
    dict of str to float
        ``product``, ``split`` and ``calm``: each method's predicted Σ_cells E(f̂ − f)².

    Raises
    ------
    InvalidInput
        If the product domain is refused or n is not a positive integer.
    """
    sizes = [int(d) for d in sizes]
    cells = check_product_domain(sizes)
    n = check_positive_int(n, "n")
    k = len(sizes)
    out = {"product": _sum_of_variances(epsilon, cells, n, oracle)}
    spread = [_sum_of_variances(epsilon, d, max(n // k, 1), oracle) for d in sizes]
    var_split = math.prod(1.0 / d + s for d, s in zip(sizes, spread, strict=True)) - math.prod(1.0 / d for d in sizes)
    out["split"] = var_split + (dependence_sq or 0.0)
    if k == 2:
        out["calm"] = out["product"]
    else:
        out["calm"] = sum(_sum_of_variances(epsilon, sizes[a] * sizes[b], max(n // 3, 1), oracle) / sizes[3 - a - b]
                          for a, b in itertools.combinations(range(3), 2))
    return out


@dataclass(frozen=True)
class JointAdvice:
    """Which joint method wins, the predicted squared L2 errors, and why (one paragraph).

    Attributes
    ----------
    method : str
        The recommended method (``product``, ``calm`` or, given a dependence estimate, ``split``).
    predicted : Mapping[str, float]
        :func:`predicted_errors` of every method (read-only).
    reasoning : str
        One paragraph: the predicted errors, split's assumption, CALM's, and the choice.
    split_wins_below : float or None
        The dependence (squared L2 distance to the product of the marginals) under which split would win; None
        when it loses even unbiased.
    """

    method: str
    predicted: Mapping[str, float]
    reasoning: str
    split_wins_below: float | None  # the dependence (squared L2) under which split would win

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:  # the read-only mapping cannot be pickled
        return (JointAdvice, (self.method, dict(self.predicted), self.reasoning, self.split_wins_below))


def advise_joint(sizes: Sequence[int], n: int, epsilon: float, *, oracle: str | None = None,
                 dependence_sq: float | None = None) -> JointAdvice:
    """The method of smallest predicted error (:func:`predicted_errors`) for these domain sizes, n and ε.

    ``split`` is biased by the columns' dependence; without an estimate of it (``dependence_sq``, the squared L2
    distance of the joint to the product of its marginals) it is never recommended, and the reasoning says below
    which dependence it would win. ``calm`` with 3 columns assumes no three-way interaction. Ties go to ``product``
    (with 2 columns CALM is the product method).

    Parameters
    ----------
    sizes : Sequence[int]
        The columns' domain sizes (2 or 3 of them).
    n : int
        All users.
    epsilon : float
        Each user's budget ε.
    oracle : str or None, default None
        The frequency oracle; None chooses GRR or OLH per domain.
    dependence_sq : float or None, default None
        An estimate of the joint's squared L2 distance to the product of its marginals; None keeps split out of
        the candidates.

    Returns
    -------
    JointAdvice
        The method, the predictions, the reasoning and split's break-even dependence.

    Raises
    ------
    InvalidInput
        As :func:`predicted_errors`.
    """
    predicted = predicted_errors(sizes, n, epsilon, oracle=oracle, dependence_sq=dependence_sq)
    candidates = ["product", "calm"] + (["split"] if dependence_sq is not None else [])
    best = min(candidates, key=lambda m: (predicted[m], m != "product"))
    rival = min(predicted["product"], predicted["calm"])
    variance_split = predicted["split"] - (dependence_sq or 0.0)
    threshold = rival - variance_split if variance_split < rival else None
    shown = " × ".join(str(int(d)) for d in sizes)
    parts = [f"domain {shown} = {math.prod(int(d) for d in sizes):,} cells, n = {int(n):,}, ε = {epsilon:g}: "
             f"expected squared L2 error product {predicted['product']:.3g}, calm {predicted['calm']:.3g}, "
             f"split {variance_split:.3g} from noise"]
    if dependence_sq is None:
        parts.append("split assumes independence and its bias is unknown, so it is not recommended"
                     + (f" (it would win if the squared L2 distance of the joint to the product of its marginals "
                        f"were below {threshold:.3g})" if threshold is not None else " (it loses even unbiased)"))
    else:
        parts.append(f"plus {dependence_sq:.3g} squared bias from assuming independence")
    if len(sizes) == 2:
        parts.append("with 2 columns calm is the product method")
    else:
        parts.append("calm assumes no three-way interaction (maximum entropy from the pairwise marginals)")
    parts.append(f"→ {best}")
    return JointAdvice(best, MappingProxyType(predicted), "; ".join(parts) + ".", threshold)



# the range-query method (HDG) registers itself after the three above, so the registry lists it last
from ldp.studies import joint_ranges  # noqa: E402


# =========================================================================== a comparison (the page's table)
def compare_methods(spec: str, n: int, epsilon: float, *, seed: int = 0, queries: int = 200,
                    methods: Sequence[str] | None = None) -> tuple[list[JointEstimate], JointAdvice]:
    """Every method (or ``methods``) on one synthetic population of ``n`` users (:func:`joint_synthetic`); see
    :func:`compare_on`.

    Parameters
    ----------
    spec : str
        A synthetic joint distribution's spec (:func:`ldp.data.joint.joint_synthetic`).
    n : int
        Users drawn from it (stream ``rng_for(seed, "joint", "population")``).
    epsilon : float
        Each user's budget ε.
    seed : int, default 0
        The seed of the population, every method's collections and the random rectangles.
    queries : int, default 200
        Random rectangles scored with 2 columns (0: none).
    methods : Sequence[str] or None, default None
        The methods to run; None: every one that takes the spec's number of columns.

    Returns
    -------
    tuple of (list of JointEstimate, JointAdvice)
        One result per method, in registry order (or the order of ``methods``), and the advisor's choice.
    """
    population, _ = joint_synthetic(spec, n, rng_for(seed, "joint", "population"))
    return compare_on(population, epsilon, seed=seed, queries=queries, methods=methods)


def compare_on(population: JointPopulation, epsilon: float, *, seed: int = 0, queries: int = 200,
               methods: Sequence[str] | None = None) -> tuple[list[JointEstimate], JointAdvice]:
    """Every method that takes the population's number of columns (or ``methods``) on ``population`` — a synthetic
    one or a table's rows, each row a user — each scored against the users' joint distribution (``tvd``, ``mse``)
    and, with 2 columns, on the same ``queries`` random rectangles (``range_mse``); with the advisor's choice for
    the population's shape.

    Parameters
    ----------
    population : JointPopulation
        The users per cell of 2 or 3 columns.
    epsilon : float
        Each user's budget ε.
    seed : int, default 0
        The seed of every method's collections and of the rectangles (the same rectangles for every method).
    queries : int, default 200
        Random rectangles for ``range_mse`` with 2 columns (0: none).
    methods : Sequence[str] or None, default None
        The methods to run; None: every registered one that takes the population's number of columns.

    Returns
    -------
    tuple of (list of JointEstimate, JointAdvice)
        The scored results, in the order run, and :func:`advise_joint` for the population's shape and n (without
        a dependence estimate).

    Raises
    ------
    InvalidInput
        As :func:`estimate_joint` for any method.
    """
    names = [m.name for m in JOINT_METHODS if len(population.shape) in m.columns] if methods is None else methods
    results = []
    for name in names:
        res = estimate_joint(population, epsilon, name, seed=seed)
        if queries and len(population.shape) == 2:
            res = joint_ranges.with_range_mse(res, queries, rng_for(seed, "joint", "queries"))
        results.append(res)
    return results, advise_joint(population.shape, population.n, epsilon)
