"""Every registered estimator keeps its contract on every registered mechanism (generated over the registries).

For each estimator configuration (``ESTIMATOR_CASES``) and each mechanism (the default configuration of every
registered mechanism, so every kind an estimator applies to is covered):

- applicable (``applies_to``): it returns an :class:`ldp.Estimate` named after it, of the shape of the truth
  (``Mechanism.true_values``: d frequencies, d buckets, one mean), with finite read-only values, on a typical
  collection, a tiny one (where matrix inversion goes negative) and one from the exact engine; ``consistent = True``
  ⇒ non-negative and summing to one; the chain (``ldp.estimate_all``) and a vectorized ``estimate_batch`` give the
  same values; it is stateless (the same call twice gives the same Estimate, estimate() leaves the estimator, the
  mechanism and the aggregate as they were, its params are read-only, estimates pickle); ``idempotent = True`` ⇒
  its output fed back as the base estimate comes out unchanged (and, if consistent, so does any distribution);
  on every mechanism it applies to it refuses malformed aggregates with one-line LDPErrors;
- not applicable: ``estimate``, ``estimate_all``, ``resolve_estimators`` and ``parse_estimators`` refuse it with an
  LDPError.

Ids read ``<estimator>(<params>)-<check>(mechanism=<mechanism>)``, e.g.
``ibu(method=mle)-check_contract(mechanism=olh)``.
"""

from __future__ import annotations

import copy
import functools
import math
import pickle
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from ldp_test_support import (
    MECHANISM_CASES,
    Case,
    assert_ldp_error,
    bad_aggregates,
    parametrize_with_checks,
    support_values,
)

import ldp
from ldp.core.params import Param
from ldp.core.streams import rng_for
from ldp.estimators.base import Estimator

D = 8
EPSILON = 1.0
#: One configuration per registered mechanism (its default): every kind, every family.
MECHANISMS = [cases[0] for cases in MECHANISM_CASES.values()]
SIZES = {"typical": 5000, "tiny": 20, "exact": 5000}  # "exact": the typical population on the exact engine


@functools.cache
def collection(mechanism_case: Case, size: str) -> tuple[Any, ldp.Aggregate, np.ndarray]:
    """(mechanism, aggregate of a Zipf population of SIZES[size] users on D cells, the truth), cached."""
    mech = mechanism_case.mechanism(EPSILON, D)
    weights = 1.0 / np.arange(1, D + 1) ** 1.3
    counts = np.random.default_rng(5).multinomial(SIZES[size], weights / weights.sum())
    support = support_values(mech, D)
    rng = rng_for(20261124, "estimators", mechanism_case.id, size)
    engine = "exact" if size == "exact" else "fast"
    return mech, ldp.collect(mech, counts, rng, engine, support=support), mech.true_values(counts, support)


@functools.cache
def estimate_of(case: Case, mechanism_case: Case, size: str) -> ldp.Estimate:
    """The estimator's estimate of a cached collection (computed once: IBU runs its 10,000 iterations)."""
    mech, agg, _ = collection(mechanism_case, size)
    return case.estimator().estimate(mech, agg)


def same_estimate(a: ldp.Estimate, b: ldp.Estimate) -> None:
    np.testing.assert_array_equal(a.values, b.values)
    assert (a.estimator, a.converged, a.iterations, a.warnings) == (b.estimator, b.converged, b.iterations,
                                                                     b.warnings)
    assert (a.trace is None) == (b.trace is None)
    if a.trace is not None:
        np.testing.assert_array_equal(a.trace, b.trace)
    assert set(a.diagnostics) == set(b.diagnostics)


# --------------------------------------------------------------------------------------------- per estimator
def check_metadata(case: Case) -> None:
    cls = ldp.ESTIMATORS.get(case.name)
    for attr in ("name", "display_name", "description", "paper"):
        assert isinstance(getattr(cls, attr), str) and getattr(cls, attr), attr
    assert cls.kinds and set(cls.kinds) <= set(ldp.KINDS)
    for attr in ("consistent", "idempotent", "requires_pure", "clip_queries"):
        assert isinstance(getattr(cls, attr), bool), attr
    assert cls.base is None or cls.base in ldp.ESTIMATORS
    if cls.idempotent:
        assert cls.base is not None, "idempotence is a promise of a post-processor (fed its own output as base)"
    applicable = {m.kind for m in (c.mechanism(EPSILON, D) for c in MECHANISMS) if cls.applies_to(m)}
    assert applicable, f"{case.name} applies to no registered mechanism"
    est = case.estimator()
    assert est == ldp.get_estimator(case.name, **case.params) and hash(est) == hash(case.estimator())
    assert pickle.loads(pickle.dumps(est)) == est == copy.deepcopy(est)
    with pytest.raises(TypeError):
        est.params["injected"] = 1  # type: ignore[index]
    for value in est.params.values():
        hash(value)  # parameter values are immutable


def bad_parameter_values(param: Param) -> Iterator[Any]:
    if param.type is int:
        yield from ("3", 2.5, True)
    elif param.type is float:
        yield from ("0.5", math.nan, math.inf, True)
    else:
        yield 3
    if param.choices is not None:
        yield max(param.choices) + 1 if param.type is int else "no-such-choice"
    if param.low is not None:
        yield param.low - 1 if param.low_inclusive else param.low
    if param.high is not None:
        yield param.high + 1 if param.high_inclusive else param.high


def check_rejects_bad_parameters(case: Case) -> None:
    """Generated from the estimator's parameter table; unknown names are refused too."""
    cls = ldp.ESTIMATORS.get(case.name)
    assert_ldp_error(lambda: ldp.get_estimator(case.name, bogus=1), "unknown parameter")
    for param in cls.parameters:
        for bad in bad_parameter_values(param):
            assert_ldp_error(lambda bad=bad, name=param.name: ldp.get_estimator(case.name, **{name: bad}), param.name)


# ------------------------------------------------------------------------------------ per (estimator, mechanism)
def check_contract(case: Case, mechanism: Case) -> None:
    est = case.estimator()
    for size in SIZES:
        mech, agg, truth = collection(mechanism, size)
        out = estimate_of(case, mechanism, size)
        assert isinstance(out, ldp.Estimate) and out.estimator == case.name
        assert out.values.shape == truth.shape, f"{size}: shape {out.values.shape}, expected {truth.shape}"
        assert np.all(np.isfinite(out.values)) and not out.values.flags.writeable
        assert isinstance(out.converged, bool) and isinstance(out.iterations, int) and out.iterations >= 0
        assert all(isinstance(w, str) and "\n" not in w for w in out.warnings)
        if est.consistent:
            assert out.values.min() >= 0.0, f"{size}: a consistent estimator returned {out.values.min()!r} < 0"
            assert out.values.sum() == pytest.approx(1.0, abs=1e-9), f"{size}: sums to {out.values.sum()!r}"
        if size != "typical":
            continue
        chained = ldp.estimate_all(mech, agg, [est])[case.name]
        np.testing.assert_allclose(chained.values, out.values, rtol=1e-12, atol=1e-15)
        if est.base is not None:  # handing over the base estimate (the chain) changes nothing
            view = mech.frequency_view()  # a composite mechanism: the base lives on its categorical oracle
            inner, inner_agg = (mech, agg) if view is None else (view[0], ldp.Aggregate(agg.counts, agg.n))
            base = ldp.get_estimator(est.base).estimate(inner, inner_agg)
            np.testing.assert_array_equal(est.estimate(inner, inner_agg, base=base).values,
                                          est.estimate(inner, inner_agg).values)


def check_batch_matches_estimate(case: Case, mechanism: Case) -> None:
    """``estimate_batch`` (the simulations' vectorized path) gives every row's ``estimate``."""
    est = case.estimator()
    mech, agg, truth = collection(mechanism, "typical")
    other = collection(mechanism, "exact")[1]  # the same n, another collection
    batch = est.estimate_batch(mech, np.stack([agg.counts, other.counts]), agg.n)
    assert batch.shape == (2, truth.size)
    for size, values in zip(("typical", "exact"), batch, strict=True):
        np.testing.assert_allclose(values, estimate_of(case, mechanism, size).values, rtol=1e-9, atol=1e-12)


def check_batches_match_batch(case: Case, mechanism: Case) -> None:
    """``estimate_batches`` (blocks of several mechanisms estimated together, e.g. EMS over a sweep of b) gives each
    block's ``estimate_batch``; blocks that do not pair up with the mechanisms are refused with one line."""
    est = case.estimator()
    mech, agg, _ = collection(mechanism, "typical")
    other = collection(mechanism, "exact")[1]
    twin = mechanism.mechanism(EPSILON, D)  # an equal instance: its channel is stacked beside the first's
    blocks = [np.stack([agg.counts, other.counts]), other.counts[None, :]]
    together = est.estimate_batches([mech, twin], blocks, agg.n)
    assert len(together) == 2
    for m, block, got in zip((mech, twin), blocks, together, strict=True):
        np.testing.assert_allclose(got, est.estimate_batch(m, block, agg.n), rtol=1e-9, atol=1e-12)
    assert_ldp_error(lambda: est.estimate_batches([mech, twin], blocks[:1], agg.n), "block of counts")


def check_stateless(case: Case, mechanism: Case) -> None:
    """The same call twice (on one instance, and on an equal one) gives the same Estimate; estimate() changes
    neither the estimator nor the mechanism nor the aggregate; params are read-only (check_metadata)."""
    est = case.estimator()
    attributes, params = set(vars(est)), copy.deepcopy(dict(est.params))
    mech, agg, _ = collection(mechanism, "typical")
    mech_params, counts = mech.params, agg.counts.copy()
    first = est.estimate(mech, agg)
    same_estimate(first, est.estimate(mech, agg))
    same_estimate(first, estimate_of(case, mechanism, "typical"))
    same_estimate(pickle.loads(pickle.dumps(first)), first)  # st.cache_data pickles estimates
    assert set(vars(est)) == attributes and dict(est.params) == params  # estimate() stored nothing
    assert est == case.estimator()
    assert mech == mechanism.mechanism(EPSILON, D) and mech.params == mech_params
    np.testing.assert_array_equal(agg.counts, counts)


def check_validates_aggregates(case: Case) -> None:
    """On every mechanism it applies to: NaN/inf statistics, a wrong length, 2-D statistics, a missing n and n = 0,
    −1, 1000.7, True, "10", NaN are refused with one-line LDPErrors, given as (statistic, n), as an Aggregate or
    to the chain."""
    est = case.estimator()
    for mechanism in MECHANISMS:
        mech = collection(mechanism, "typical")[0]
        if not est.applies_to(mech):
            continue
        size = mech.statistic_size()
        for counts, n, match in bad_aggregates(size):
            assert_ldp_error(lambda m=mech, counts=counts, n=n: est.estimate(m, counts, n), match)
            assert_ldp_error(lambda m=mech, counts=counts, n=n: est.estimate(m, ldp.Aggregate(counts, n)))
            assert_ldp_error(lambda m=mech, counts=counts, n=n: ldp.estimate_all(m, counts, [est], n))
        assert_ldp_error(lambda m=mech, size=size: est.estimate(m, np.zeros(size)), "number of reports n")


def check_idempotent(case: Case, mechanism: Case) -> None:
    """P(P(x)) = P(x) on the mechanism's own collection; consistent P: P(f) = f for random distributions f."""
    est = case.estimator()
    mech, agg, _ = collection(mechanism, "typical")
    view = mech.frequency_view()
    if view is not None:  # the post-processor runs on the categorical oracle's estimate, then lifts
        mech, agg = view[0], ldp.Aggregate(agg.counts, agg.n)
    tiny = collection(mechanism, "tiny")[1]
    for size_agg in (agg, ldp.Aggregate(tiny.counts, tiny.n)):
        once = est.estimate(mech, size_agg)
        twice = est.estimate(mech, size_agg, base=ldp.Estimate(once.values, est.base))
        np.testing.assert_allclose(twice.values, once.values, rtol=1e-12, atol=1e-15)
    if est.consistent:
        rng = np.random.default_rng(3)
        d = agg.counts.size
        for f in (rng.dirichlet(np.ones(d)), rng.dirichlet(np.full(d, 0.2)), np.eye(d)[0]):
            out = est.estimate(mech, agg, base=ldp.Estimate(f, est.base))
            np.testing.assert_allclose(out.values, f, rtol=1e-12, atol=1e-15)


def check_refuses_the_mechanisms_it_does_not_apply_to(case: Case) -> None:
    """applies_to agrees with estimate: on every registered mechanism it does not apply to, estimate, the chain,
    resolve_estimators and parse_estimators refuse it with an LDPError."""
    est = case.estimator()
    for mechanism in MECHANISMS:
        mech, agg, _ = collection(mechanism, "typical")
        if est.applies_to(mech):
            continue
        assert_ldp_error(lambda mech=mech, agg=agg: est.estimate(mech, agg), "does not apply")
        assert_ldp_error(lambda mech=mech, agg=agg: ldp.estimate_all(mech, agg, [est]))
        assert_ldp_error(lambda mech=mech: ldp.estimators.resolve_estimators([case.name], mech), "does not apply")
        assert_ldp_error(lambda mech=mech: ldp.estimators.parse_estimators(case.name, mech), "does not apply")
        assert case.name not in [e.name for e in ldp.ESTIMATORS if e.applies_to(mech)]


def yield_estimator_checks(case: Case) -> Iterator[Any]:
    yield check_metadata
    yield check_rejects_bad_parameters
    yield check_validates_aggregates
    yield check_refuses_the_mechanisms_it_does_not_apply_to
    cls = ldp.ESTIMATORS.get(case.name)
    for mechanism in MECHANISMS:
        if not cls.applies_to(mechanism.mechanism(EPSILON, D)):
            continue
        yield functools.partial(check_contract, mechanism=mechanism)
        if cls._estimate_batch is not Estimator._estimate_batch:  # vectorized (the fallback is estimate per row)
            yield functools.partial(check_batch_matches_estimate, mechanism=mechanism)
        if cls._estimate_batches is not Estimator._estimate_batches:  # blocks of several mechanisms together
            yield functools.partial(check_batches_match_batch, mechanism=mechanism)
        yield functools.partial(check_stateless, mechanism=mechanism)
        if cls.idempotent:
            yield functools.partial(check_idempotent, mechanism=mechanism)


@parametrize_with_checks(ldp.ESTIMATORS, yield_estimator_checks)
def test_estimator(case, check):
    check(case)


def test_every_kind_has_an_estimator_and_every_mechanism_its_default():
    for mechanism in MECHANISMS:
        mech = mechanism.mechanism(EPSILON, D)
        names = [e.name for e in ldp.ESTIMATORS if e.applies_to(mech)]
        assert mech.default_estimator in names, mechanism.id


def test_idempotent_estimators_are_the_consistency_papers_projections_and_clippings():
    assert {e.name for e in ldp.ESTIMATORS if e.idempotent} == {
        "norm-sub", "norm-mul", "mle-apx", "norm", "norm-cut", "base-pos", "post-pos", "base-cut", "base-cut-k"}
