"""Every mechanism validates its parameters, its inputs and its reports the same way."""

from __future__ import annotations

import math

import numpy as np
import pytest
from ldp_test_support import build

import ldp


@pytest.mark.parametrize("bad", [0.0, -1.0, math.nan, math.inf, -math.inf])
def test_bad_epsilon(mechanism_name, bad):
    with pytest.raises(ValueError, match="epsilon"):
        ldp.get_mechanism(mechanism_name, bad, 8)


@pytest.mark.parametrize("bad", ["1", None, True])
def test_epsilon_type(mechanism_name, bad):
    with pytest.raises((TypeError, ValueError)):
        ldp.get_mechanism(mechanism_name, bad, 8)


@pytest.mark.parametrize("d", [1, 0, -3])
def test_bad_domain_size(mechanism_name, d):
    with pytest.raises(ValueError, match="d must be"):
        ldp.get_mechanism(mechanism_name, 1.0, d)


def test_unknown_parameter(mechanism_name):
    with pytest.raises(ValueError, match="unknown parameter"):
        ldp.get_mechanism(mechanism_name, 1.0, 8, bogus=3)


def test_values_outside_domain(mechanism_name):
    mech = build(mechanism_name, 1.0, 8)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="outside the domain"):
        mech.perturb(np.array([0, 8]), rng)
    with pytest.raises(ValueError, match="outside the domain"):
        mech.perturb(np.array([-1]), rng)
    with pytest.raises(TypeError):
        mech.perturb(np.array([0.5]), rng)


def test_reports_of_wrong_shape_or_range(mechanism_name):
    mech = build(mechanism_name, 1.0, 8)
    with pytest.raises(ValueError):
        mech.support_counts(np.zeros((0,)))
    with pytest.raises(ValueError):
        mech.support_counts(np.full((3, 17), 99))
    with pytest.raises(ValueError):
        mech.parse_reports(["not a report at all"])


def test_reports_of_another_mechanism_are_rejected():
    values = np.arange(40) % 8
    rng = np.random.default_rng(0)
    for made_by, read_by in [("oue", "grr"), ("grr", "oue"), ("olh", "hr"), ("ss", "sue"), ("hr", "olh")]:
        reports = build(made_by, 1.0, 8).perturb(values, rng)
        lines = list(build(made_by, 1.0, 8).format_reports(reports))
        with pytest.raises(ValueError):
            build(read_by, 1.0, 8).parse_reports(lines)


def test_metadata_for_listing(mechanism_name):
    cls = ldp.MECHANISMS.get(mechanism_name)
    for attr in ("name", "display_name", "description", "paper", "report_format", "kind", "family"):
        assert isinstance(getattr(cls, attr), str) and getattr(cls, attr)
    assert cls.kind in ("one-time", "longitudinal")
    names = [p["name"] for p in cls.parameters_info()]
    assert names[:2] == ["epsilon", "d"]
    assert ("epsilon_1" in names) == (cls.kind == "longitudinal")


def test_registry_has_every_required_mechanism():
    assert set(ldp.MECHANISMS.names()) == {
        "grr", "sue", "oue", "blh", "olh", "ss", "hr", "the", "she",
        "l-grr", "l-sue", "l-oue", "l-soue", "l-osue", "l-blh", "l-olh"}


def test_mechanisms_and_results_pickle(mechanism_name):
    """Results are cached by the dashboard (st.cache_data pickles them)."""
    import pickle

    mech = build(mechanism_name, 1.0, 8)
    assert pickle.loads(pickle.dumps(mech)) == mech
    result = ldp.simulate(mech, np.full(8, 10), estimators=["mi"], seed=1)
    again = pickle.loads(pickle.dumps(result))
    np.testing.assert_array_equal(again.estimates["mi"], result.estimates["mi"])


def test_resolved_parameters_rebuild_the_same_mechanism(mechanism_name):
    mech = build(mechanism_name, 1.0, 8)
    assert ldp.get_mechanism(mechanism_name, 1.0, 8, **mech.params) == mech


def test_oversized_report_entries_are_a_value_error():
    with pytest.raises(ValueError, match="out of range"):
        build("grr", 1.0, 8).parse_reports(["99999999999999999999"])
