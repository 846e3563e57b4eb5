"""Every mechanism, of every kind, validates its parameters, its inputs, its reports, its aggregates and its
populations the same way: one :class:`ldp.LDPError` (a ``ValueError``) with a one-line reason. Also its metadata,
its parameters (immutable, rebuildable) and determinism under a seed on both engines.

Generated over the registry by ``parametrize_with_checks`` (``tests/ldp_test_support.py``): ids read
``<mechanism>(<params>)-<check>``, e.g. ``hh(oracle=grr,branching=2)-check_rejects_bad_parameter_values``.
"""

from __future__ import annotations

import functools
import math
import pickle
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from ldp_test_support import (
    Case,
    assert_ldp_error,
    bad_aggregates,
    build,
    domain,
    out_of_range_inputs,
    parametrize_with_checks,
    sample_inputs,
    support_values,
)

import ldp
from ldp.core.params import Param


# --------------------------------------------------------------------------------------------- parameters
def check_rejects_bad_epsilon(case: Case) -> None:
    for bad in (0.0, -1.0, math.nan, math.inf, -math.inf, 51.0, "1", None, True):
        assert_ldp_error(lambda bad=bad: case.mechanism(bad, 8), "epsilon")


def check_rejects_bad_domain_parameter(case: Case) -> None:
    cls = ldp.MECHANISMS.get(case.name)
    table = cls.domain_parameter
    bad: list[Any] = [2.5, "8", True]
    if table.low is not None:
        bad.append(table.low - 1)
    if table.high is not None:
        bad.append(table.high + 1)
    for d in bad:
        assert_ldp_error(lambda d=d: ldp.get_mechanism(case.name, 1.0, d, **case.params), "d must be")


def check_rejects_unknown_parameter(case: Case) -> None:
    assert_ldp_error(lambda: case.mechanism(1.0, 8, bogus=3), "unknown parameter")


def bad_parameter_values(param: Param) -> Iterator[Any]:
    """Values the declared constraints of ``param`` rule out: wrong types, out of range, not a choice."""
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


def check_rejects_bad_parameter_values(case: Case) -> None:
    """Generated from the mechanism's own parameter table: every value its constraints rule out is refused."""
    cls = ldp.MECHANISMS.get(case.name)
    for param in cls.own_parameters():
        for bad in bad_parameter_values(param):
            assert_ldp_error(lambda bad=bad, name=param.name: case.mechanism(1.0, 8, **{name: bad}), param.name)


def check_parameters_rebuild_and_are_immutable(case: Case) -> None:
    mech = case.mechanism(1.0, 8)
    assert ldp.get_mechanism(case.name, 1.0, domain(case.name, 8), **mech.params) == mech
    copy = mech.params  # a copy: changing it leaves the mechanism as it was
    for key in list(copy):
        copy[key] = "changed"
    copy["injected"] = 1
    assert mech.params != copy and ldp.get_mechanism(case.name, 1.0, domain(case.name, 8), **mech.params) == mech
    assert hash(mech) == hash(case.mechanism(1.0, 8))
    assert pickle.loads(pickle.dumps(mech)) == mech


def check_metadata_for_listing(case: Case) -> None:
    cls = ldp.MECHANISMS.get(case.name)
    for attr in ("name", "display_name", "description", "paper", "report_format", "kind", "collection",
                 "input_kind", "default_estimator"):
        assert isinstance(getattr(cls, attr), str) and getattr(cls, attr), attr
    assert cls.kind in ldp.KINDS
    assert cls.collection in ("one-time", "longitudinal")
    assert cls.collection == "one-time" or cls.kind == "frequency"
    assert cls.input_kind in ("codes", "unit", "signed", "vector")
    assert cls.default_estimator in ldp.ESTIMATORS
    # the old family attribute is gone (kind and collection say it all), but for the vector kind's own families
    assert not hasattr(cls, "family") or (cls.kind == "vector" and cls.family in ("split", "sample", "joint"))
    names = [p["name"] for p in cls.parameters_info()]
    assert names[:2] == ["epsilon", "d"]
    assert ("epsilon_1" in names) == (cls.collection == "longitudinal")
    assert ldp.get_estimator(cls.default_estimator).applies_to(case.mechanism(1.0, 8))
    # the fast engine says what it promises (tests/conformance/test_accuracy.py tests that promise)
    assert isinstance(cls.fast_engine_exact, bool)
    if not cls.fast_engine_exact:
        assert cls.fast_engine_note, f"{case.name}: a fast engine that is not exact must say what it matches"
    assert case.facts["fast"] in ("distribution", "marginals", "moments"), (
        f"{case.name}: declare what its fast engine promises in MECHANISM_CASES (fast=...)")


# --------------------------------------------------------------------------------------------- inputs
def check_rejects_values_outside_domain(case: Case) -> None:
    mech = case.mechanism(1.0, 8)
    rng = np.random.default_rng(0)
    where = "outside the domain" if mech.input_kind == "codes" else "outside"
    for values in out_of_range_inputs(mech):
        assert_ldp_error(lambda values=values: mech.perturb(values, rng), where)
    if mech.input_kind == "codes":  # a fraction is not a code (formerly a TypeError; a user error now)
        assert_ldp_error(lambda: mech.perturb(np.array([0.5]), rng), "integers")
    if mech.input_kind == "vector":  # rows of d numbers
        assert_ldp_error(lambda: mech.perturb(np.zeros((2, mech.d + 1)), rng), "shape")
        assert_ldp_error(lambda: mech.perturb(np.zeros(2), rng), "shape")
    else:
        assert_ldp_error(lambda: mech.perturb(np.zeros((2, 2)), rng), "1-D")
    assert_ldp_error(lambda: mech.perturb(np.array(["a"]), rng))


def check_rejects_malformed_reports(case: Case) -> None:
    mech = case.mechanism(1.0, 8)
    assert_ldp_error(lambda: mech.aggregate(np.zeros((0,))), "no reports")
    assert_ldp_error(lambda: mech.aggregate(np.full((3, 17), 99)))
    assert_ldp_error(lambda: mech.aggregate(np.array(["a", "b"])))
    assert_ldp_error(lambda: mech.parse_reports(["not a report at all"]))
    assert_ldp_error(lambda: mech.parse_reports(["", "  "]), "no reports")


def check_validates_aggregates(case: Case) -> None:
    """NaN/inf statistics, a wrong length, 2-D statistics, a missing n, and n = 0, −1, 1000.7, True are refused,
    given as (statistic, n) or as an :class:`ldp.Aggregate`."""
    mech = case.mechanism(1.0, 8)
    size = mech.statistic_size()
    for counts, n, match in bad_aggregates(size):
        assert_ldp_error(lambda counts=counts, n=n: mech.estimate(counts, n), match)
        assert_ldp_error(lambda counts=counts, n=n: mech.estimate(ldp.Aggregate(counts, n)))
    assert_ldp_error(lambda: mech.estimate(np.zeros(size)), "number of reports n")
    assert_ldp_error(lambda: mech.estimate(ldp.Aggregate(np.zeros(size), 10), 11), "disagrees")


#: Mechanisms whose statistic has no per-entry bound in report_range: the hierarchies' layered statistics, checked
#: layer by layer against the users each layer reports (their own ``_check_statistics``).
LAYERED_STATISTICS = frozenset({"hh", "haar-hrr"})


def check_statistic_stays_in_report_range(case: Case) -> None:
    """``report_range`` (what one report adds to each entry of the statistic) holds for what the engines draw —
    the exact engine always, the fast engine where it is exact in distribution — and is enforced on statistics
    from anywhere else: one entry just beyond n·most is refused as (statistic, n), as a hand-built ``Aggregate``
    whatever its engine label and in a batch, while the engines' own aggregates are taken as they are (issue 21
    item 1: PM took a sum of 10⁹ from one user and answered a mean of 10⁹ on [−1, 1])."""
    mech = case.mechanism(1.0, 8)
    bounds = mech.report_range()
    support = support_values(mech, 8)
    counts = np.array([40, 25, 10, 5, 5, 5, 5, 5])
    engines = ("exact", "fast") if mech.fast_engine_exact else ("exact",)
    drawn = [ldp.collect(mech, counts, np.random.default_rng(k), engine, support=support)
             for k, engine in enumerate(engines)]
    for agg in drawn:  # the same statistic given by hand passes every check
        mech.as_aggregate(ldp.Aggregate(agg.counts, agg.n))
    n = drawn[0].n
    if bounds is None:
        assert case.name in LAYERED_STATISTICS, f"{case.name} declares no report_range"
        beyond = drawn[0].counts.copy()
        beyond[-1] += 1  # one more user in the last layer than the n reports hold
    else:
        least, most = bounds
        assert least.shape == most.shape == (mech.statistic_size(),) and np.all(least <= most)
        for agg, engine in zip(drawn, engines, strict=True):
            slack = 1e-9 * np.maximum(np.abs(n * least), np.abs(n * most))
            assert np.all(agg.counts >= n * least - slack) and np.all(agg.counts <= n * most + slack), engine
        if not np.isfinite(most[0]):
            return
        beyond = np.clip(np.zeros(mech.statistic_size()), n * least, n * most)
        beyond[0] = n * most[0] + max(1.0, 1e-3 * abs(n * most[0]))
    assert_ldp_error(lambda: mech.as_aggregate(beyond, n))
    for label in ("reports", "exact", "fast"):
        assert_ldp_error(lambda label=label: mech.as_aggregate(ldp.Aggregate(beyond, n, label)))
    assert_ldp_error(lambda: mech.as_aggregates(np.stack([beyond, beyond]), n))
    mech.as_aggregate(ldp.Aggregate._from_engine(beyond, n, "fast"))  # an engine's own: not re-checked


def check_validates_populations(case: Case) -> None:
    mech = case.mechanism(1.0, 8)
    support = support_values(mech, 8)
    rng = np.random.default_rng(0)
    for engine in ldp.engines.ENGINES:
        def collect(counts: Any, sup: Any = support, engine: str = engine) -> Any:
            return ldp.collect(mech, counts, rng, engine, support=sup)

        assert_ldp_error(lambda: collect(np.array([1, -1, 0, 0, 0, 0, 0, 0])), "non-negative integers")
        assert_ldp_error(lambda: collect(np.full(8, 0.5)), "non-negative integers")
        assert_ldp_error(lambda: collect(np.zeros(8, dtype=int)), "at least one user")
        assert_ldp_error(lambda: collect(np.ones((2, 8), dtype=int)), "1-D")
        if mech.population_by_support:  # mean and vector mechanisms: the cells' values, any number of cells
            bad_shape = np.zeros((7,) + np.shape(support)[1:])
            assert_ldp_error(lambda: collect(np.ones(8, dtype=int), None), "support")
            assert_ldp_error(lambda: collect(np.ones(8, dtype=int), np.full(np.shape(support), 2.0)), r"\[−1, 1\]")
            assert_ldp_error(lambda b=bad_shape: collect(np.ones(8, dtype=int), b), "per cell")
        else:
            assert_ldp_error(lambda: collect(np.ones(9, dtype=int)), "length 8")
            assert_ldp_error(lambda: collect(np.ones(8, dtype=int), np.zeros(8)), "no support")


# --------------------------------------------------------------------------------------------- determinism
def check_perturb_is_determined_by_the_seed(case: Case) -> None:
    mech = case.mechanism(1.0, 8)
    values = sample_inputs(mech, 300, np.random.default_rng(1))
    a = mech.perturb(values, np.random.default_rng(7))
    b = mech.perturb(values, np.random.default_rng(7))
    c = mech.perturb(values, np.random.default_rng(8))
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    assert a.shape[0] == 300


def check_perturb_aggregate_is_aggregate_of_perturb(case: Case) -> None:
    """The exact engine's path (``perturb_aggregate``, which a family may fuse) draws the same randomness and gives,
    to the bit, the statistic of the reports ``perturb`` makes from the same seed."""
    mech = case.mechanism(1.0, 8)
    values = sample_inputs(mech, 300, np.random.default_rng(1))
    fused = mech.perturb_aggregate(values, np.random.default_rng(7))
    plain = mech.aggregate(mech.perturb(values, np.random.default_rng(7)))
    np.testing.assert_array_equal(fused.counts, plain.counts)
    assert fused.n == plain.n == 300


def check_engine_is_determined_by_the_seed(case: Case, engine: str) -> None:
    mech = case.mechanism(1.0, 8)
    counts = np.arange(1, 9) * 50
    support = support_values(mech, 8)
    a = ldp.collect(mech, counts, np.random.default_rng(11), engine, support=support)
    b = ldp.collect(mech, counts, np.random.default_rng(11), engine, support=support)
    c = ldp.collect(mech, counts, np.random.default_rng(12), engine, support=support)
    np.testing.assert_array_equal(a.counts, b.counts)
    assert a.n == b.n == counts.sum() and a.engine == engine
    assert not np.array_equal(a.counts, c.counts)


def check_exact_engine_is_independent_of_the_worker_count(case: Case) -> None:
    mech = case.mechanism(1.0, 16)
    counts = np.arange(1, 17) * 40
    support = support_values(mech, 16)
    one = ldp.run_exact(mech, np.random.default_rng(3), true_counts=counts, support=support, chunk_size=1024,
                        workers=1)
    two = ldp.run_exact(mech, np.random.default_rng(3), true_counts=counts, support=support, chunk_size=1024,
                        workers=2)
    np.testing.assert_array_equal(one.counts, two.counts)
    assert one.n == two.n == counts.sum()


def check_simulate_is_determined_by_the_seed(case: Case) -> None:
    mech = case.mechanism(1.0, 8)
    counts = np.arange(1, 9) * 50
    support = support_values(mech, 8)
    names = [e.name for e in ldp.ESTIMATORS if e.applies_to(mech)][:2]
    runs = [ldp.simulate(mech, counts, support=support, estimators=names, engine=engine, trials=2, seed=seed)
            for engine in ("fast", "exact") for seed in (5, 5, 6)]
    for same, other in ((runs[0], runs[2]), (runs[3], runs[5])):
        assert not np.array_equal(same.estimates[names[0]], other.estimates[names[0]])
    for a, b in ((runs[0], runs[1]), (runs[3], runs[4])):
        for name in names:
            np.testing.assert_array_equal(a.estimates[name], b.estimates[name])
    again = pickle.loads(pickle.dumps(runs[0]))  # results are cached by the dashboard (st.cache_data pickles)
    np.testing.assert_array_equal(again.estimates[names[0]], runs[0].estimates[names[0]])


# --------------------------------------------------------------------------------------------- reports
def check_reports_round_trip_through_text(case: Case) -> None:
    mech = case.mechanism(1.0, 8)
    values = sample_inputs(mech, 300, np.random.default_rng(1))
    reports = mech.perturb(values, np.random.default_rng(2))
    parsed = mech.parse_reports(list(mech.format_reports(reports)))
    np.testing.assert_allclose(mech.aggregate(parsed).counts, mech.aggregate(reports).counts, rtol=1e-5, atol=1e-3)


def check_secure_randomness_drives_every_client(case: Case) -> None:
    mech = case.mechanism(1.0, 8)
    values = sample_inputs(mech, 200, np.random.default_rng(0))
    agg = mech.aggregate(mech.perturb(values, ldp.SecureRandom()))
    assert agg.counts.shape == (mech.statistic_size(),) and np.all(np.isfinite(agg.counts)) and agg.n == 200


def yield_validation_checks(case: Case) -> Iterator[Any]:
    yield check_metadata_for_listing
    yield check_rejects_bad_epsilon
    yield check_rejects_bad_domain_parameter
    yield check_rejects_unknown_parameter
    yield check_rejects_bad_parameter_values
    yield check_parameters_rebuild_and_are_immutable
    yield check_rejects_values_outside_domain
    yield check_rejects_malformed_reports
    yield check_validates_aggregates
    yield check_statistic_stays_in_report_range
    yield check_validates_populations
    yield check_perturb_is_determined_by_the_seed
    yield check_perturb_aggregate_is_aggregate_of_perturb
    for engine in ldp.engines.ENGINES:
        yield functools.partial(check_engine_is_determined_by_the_seed, engine=engine)
    yield check_exact_engine_is_independent_of_the_worker_count
    yield check_simulate_is_determined_by_the_seed
    yield check_reports_round_trip_through_text
    yield check_secure_randomness_drives_every_client


@parametrize_with_checks(ldp.MECHANISMS, yield_validation_checks)
def test_mechanism(case, check):
    check(case)


# --------------------------------------------------------------------------------------------- registry-wide
def test_registry_has_every_required_mechanism():
    assert {kind: [cls.name for cls in ldp.mechanisms_of(kind)] for kind in ldp.KINDS} == {
        "frequency": ["grr", "sue", "oue", "the", "she", "ss", "blh", "olh", "hr", "hadamard", "flh", "cms", "hcms",
                      "dbitflip", "l-grr", "l-sue", "l-oue", "l-soue", "l-osue", "l-blh", "l-olh", "rappor"],
        "numerical": ["sw", "sw-discrete", "cfo-binning", "gw", "hh", "haar-hrr"],
        "mean": ["laplace", "sr", "pm", "hm", "1bitmean", "gaussian", "gaussian-bits"],
        "vector": ["split-laplace", "split-sr", "split-pm", "split-hm", "harmony", "sample-pm", "kd-pm", "kd-hm",
                   "duchi", "gaussian-vector"],
    }
    assert len(ldp.MECHANISMS) == 45
    with pytest.raises(ldp.LDPError, match="unknown mechanism kind"):
        ldp.mechanisms_of("one-time")


def test_mean_mechanisms_default_to_dimension_one():
    for cls in ldp.mechanisms_of("mean"):
        assert ldp.get_mechanism(cls.name, 1.0).d == 1
    with pytest.raises(ldp.LDPError, match="give the domain parameter d"):
        ldp.get_mechanism("oue", 1.0)


def test_reports_of_another_mechanism_are_rejected():
    values = np.arange(40) % 8
    rng = np.random.default_rng(0)
    for made_by, read_by in [("oue", "grr"), ("grr", "oue"), ("olh", "hr"), ("ss", "sue"), ("hr", "olh"),
                             ("sw", "hh"), ("hh", "haar-hrr"), ("haar-hrr", "sw-discrete"), ("pm", "grr")]:
        maker = build(made_by, 1.0, 8)
        inputs = values if maker.input_kind == "codes" else (values / 8.0 if maker.input_kind == "unit"
                                                             else values / 8.0 - 0.5)
        lines = list(maker.format_reports(maker.perturb(inputs, rng)))
        with pytest.raises(ldp.LDPError):
            build(read_by, 1.0, 8).parse_reports(lines)


def test_oversized_report_entries_are_a_value_error():
    with pytest.raises(ldp.LDPError, match="out of range"):
        build("grr", 1.0, 8).parse_reports(["99999999999999999999"])
