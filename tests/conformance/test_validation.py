"""Every mechanism, of every kind, validates its parameters, its inputs and its reports the same way: one
:class:`ldp.LDPError` (a ``ValueError``) with a one-line reason."""

from __future__ import annotations

import math

import numpy as np
import pytest
from ldp_test_support import build, domain, kind_of, out_of_range_inputs, support_values

import ldp


@pytest.mark.parametrize("bad", [0.0, -1.0, math.nan, math.inf, -math.inf])
def test_bad_epsilon(mechanism_name, bad):
    with pytest.raises(ldp.LDPError, match="epsilon"):
        ldp.get_mechanism(mechanism_name, bad, domain(mechanism_name, 8))


@pytest.mark.parametrize("bad", ["1", None, True])
def test_epsilon_type(mechanism_name, bad):
    with pytest.raises(ldp.LDPError, match="epsilon"):
        ldp.get_mechanism(mechanism_name, bad, domain(mechanism_name, 8))


def test_bad_domain_size(mechanism_name):
    # the domain parameter: values or buckets (at least 2), or a mean mechanism's dimension (1)
    bad = [0, -3, 2] if kind_of(mechanism_name) == "mean" else [1, 0, -3]
    for d in bad:
        with pytest.raises(ldp.LDPError, match="d must be"):
            ldp.get_mechanism(mechanism_name, 1.0, d)
    with pytest.raises(ldp.LDPError, match="d must be an integer"):
        ldp.get_mechanism(mechanism_name, 1.0, 2.5)


def test_mean_mechanisms_default_to_dimension_one():
    for cls in ldp.mechanisms_of("mean"):
        assert ldp.get_mechanism(cls.name, 1.0).d == 1
    with pytest.raises(ldp.LDPError, match="give the domain parameter d"):
        ldp.get_mechanism("oue", 1.0)


def test_unknown_parameter(mechanism_name):
    with pytest.raises(ldp.LDPError, match="unknown parameter"):
        ldp.get_mechanism(mechanism_name, 1.0, domain(mechanism_name, 8), bogus=3)


def test_values_outside_domain(mechanism_name):
    mech = build(mechanism_name, 1.0, 8)
    rng = np.random.default_rng(0)
    where = "outside the domain" if mech.input_kind == "codes" else "outside"
    for values in out_of_range_inputs(mech):
        with pytest.raises(ldp.LDPError, match=where):
            mech.perturb(values, rng)
    if mech.input_kind == "codes":  # a fraction is not a code (formerly a TypeError; a user error now)
        with pytest.raises(ldp.LDPError, match="integers"):
            mech.perturb(np.array([0.5]), rng)
    with pytest.raises(ldp.LDPError, match="1-D"):
        mech.perturb(np.zeros((2, 2)), rng)
    with pytest.raises(ldp.LDPError):
        mech.perturb(np.array(["a"]), rng)


def test_reports_of_wrong_shape_or_range(mechanism_name):
    mech = build(mechanism_name, 1.0, 8)
    with pytest.raises(ldp.LDPError, match="no reports"):
        mech.aggregate(np.zeros((0,)))
    with pytest.raises(ldp.LDPError):
        mech.aggregate(np.full((3, 17), 99))
    with pytest.raises(ldp.LDPError):
        mech.parse_reports(["not a report at all"])
    with pytest.raises(ldp.LDPError, match="no reports"):
        mech.parse_reports(["", "  "])


def test_aggregates_are_validated(mechanism_name):
    mech = build(mechanism_name, 1.0, 8)
    size = mech.statistic_size()
    with pytest.raises(ldp.LDPError, match="entries"):
        mech.estimate(np.zeros(size + 1), 10)
    with pytest.raises(ldp.LDPError, match="number of reports n"):
        mech.estimate(np.zeros(size))
    with pytest.raises(ldp.LDPError, match="NaN"):
        mech.estimate(np.full(size, np.nan), 10)
    with pytest.raises(ldp.LDPError, match="n must be a positive integer"):
        mech.estimate(np.zeros(size), 0)


def test_populations_are_validated(mechanism_name):
    mech = build(mechanism_name, 1.0, 8)
    support = support_values(mech, 8)
    rng = np.random.default_rng(0)
    with pytest.raises(ldp.LDPError, match="non-negative integers"):
        mech.sample_aggregate(np.array([1, -1, 0, 0, 0, 0, 0, 0]), rng, support)
    with pytest.raises(ldp.LDPError, match="non-negative integers"):
        mech.sample_aggregate(np.full(8, 0.5), rng, support)
    with pytest.raises(ldp.LDPError, match="at least one user"):
        mech.sample_aggregate(np.zeros(8, dtype=int), rng, support)
    if mech.kind == "mean":
        with pytest.raises(ldp.LDPError, match="support"):
            mech.sample_aggregate(np.ones(8, dtype=int), rng)
        with pytest.raises(ldp.LDPError, match=r"\[−1, 1\]"):
            mech.sample_aggregate(np.ones(8, dtype=int), rng, np.full(8, 2.0))
    else:
        with pytest.raises(ldp.LDPError, match="length 8"):
            mech.sample_aggregate(np.ones(9, dtype=int), rng)
        with pytest.raises(ldp.LDPError, match="no support"):
            mech.sample_aggregate(np.ones(8, dtype=int), rng, np.zeros(8))


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


def test_metadata_for_listing(mechanism_name):
    cls = ldp.MECHANISMS.get(mechanism_name)
    for attr in ("name", "display_name", "description", "paper", "report_format", "kind", "collection",
                 "input_kind", "default_estimator"):
        assert isinstance(getattr(cls, attr), str) and getattr(cls, attr), attr
    assert cls.kind in ldp.KINDS
    assert cls.collection in ("one-time", "longitudinal")
    assert cls.collection == "one-time" or cls.kind == "frequency"
    assert cls.input_kind in ("codes", "unit", "signed")
    assert cls.default_estimator in ldp.ESTIMATORS
    assert not hasattr(cls, "family")  # the old family attribute is gone: kind and collection say it all
    names = [p["name"] for p in cls.parameters_info()]
    assert names[:2] == ["epsilon", "d"]
    assert ("epsilon_1" in names) == (cls.collection == "longitudinal")
    assert ldp.get_estimator(cls.default_estimator).applies_to(build(mechanism_name, 1.0, 8))


def test_registry_has_every_required_mechanism():
    assert {kind: [cls.name for cls in ldp.mechanisms_of(kind)] for kind in ldp.KINDS} == {
        "frequency": ["grr", "sue", "oue", "the", "she", "ss", "blh", "olh", "hr",
                      "l-grr", "l-sue", "l-oue", "l-soue", "l-osue", "l-blh", "l-olh"],
        "numerical": ["sw", "sw-discrete", "cfo-binning", "gw", "hh", "haar-hrr"],
        "mean": ["sr", "pm"],
    }
    assert len(ldp.MECHANISMS) == 24
    with pytest.raises(ldp.LDPError, match="unknown mechanism kind"):
        ldp.mechanisms_of("one-time")


def test_mechanisms_and_results_pickle(mechanism_name):
    """Results are cached by the dashboard (st.cache_data pickles them)."""
    import pickle

    mech = build(mechanism_name, 1.0, 8)
    assert pickle.loads(pickle.dumps(mech)) == mech
    result = ldp.simulate(mech, np.full(8, 10), support=support_values(mech, 8), seed=1)
    again = pickle.loads(pickle.dumps(result))
    name = mech.default_estimator
    np.testing.assert_array_equal(again.estimates[name], result.estimates[name])


def test_resolved_parameters_rebuild_the_same_mechanism(mechanism_name):
    mech = build(mechanism_name, 1.0, 8)
    assert ldp.get_mechanism(mechanism_name, 1.0, domain(mechanism_name, 8), **mech.params) == mech


def test_oversized_report_entries_are_a_value_error():
    with pytest.raises(ldp.LDPError, match="out of range"):
        build("grr", 1.0, 8).parse_reports(["99999999999999999999"])
