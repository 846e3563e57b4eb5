"""The conformance suite's generator itself (``parametrize_with_checks`` in ``tests/ldp_test_support.py``): every
registered component has a test configuration, a new one gets its checks automatically, and one without a
configuration fails the suite instead of being skipped."""

from __future__ import annotations

import pytest
from ldp_test_support import CASES, Case, generate_checks, missing_test_configuration

import ldp
from ldp.core.registry import Registry

REGISTRIES = {"mechanism": ldp.MECHANISMS, "estimator": ldp.ESTIMATORS, "metric": ldp.METRICS}


@pytest.mark.parametrize("kind", list(REGISTRIES))
def test_tables_cover_exactly_the_registries(kind):
    registry = REGISTRIES[kind]
    assert registry.kind == kind
    table = CASES[kind]
    assert set(table) == set(registry.names()), (
        f"missing: {sorted(set(registry.names()) - set(table))}, stale: {sorted(set(table) - set(registry.names()))}")
    for name, cases in table.items():
        assert cases, name
        assert all(isinstance(c, Case) and c.registry == kind and c.name == name for c in cases)
        ids = [c.id for c in cases]
        assert len(set(ids)) == len(ids), f"{name}: two configurations with the same id"


def test_a_registered_component_without_configuration_fails_the_suite():
    registry: Registry = Registry("mechanism")

    class Newcomer:
        name = "newcomer"

    registry.register(ldp.MECHANISMS.get("grr"))
    registry.register(Newcomer)
    pairs = generate_checks(registry, lambda case: [lambda c: None])
    ids = [p.id for p in pairs]
    assert ids == ["grr-<lambda>", "newcomer-missing_test_configuration"]
    case, check = pairs[1].values
    assert check is missing_test_configuration and case.name == "newcomer"
    with pytest.raises(pytest.fail.Exception, match="newcomer.*no test configuration.*MECHANISM_CASES"):
        check(case)


def test_registering_a_configured_component_adds_its_checks():
    registry: Registry = Registry("estimator")
    registry.register(ldp.ESTIMATORS.get("smooth"))

    def check_a(case):
        pass

    def check_b(case):
        pass

    pairs = generate_checks(registry, lambda case: [check_a, pytest.param(check_b, marks=pytest.mark.slow)])
    assert [p.id for p in pairs] == ["smooth-check_a", "smooth-check_b", "smooth(boundary=wrap)-check_a",
                                     "smooth(boundary=wrap)-check_b"]
    assert [m.name for m in pairs[1].marks] == ["slow"] and not pairs[0].marks


def test_generated_ids_are_unique_and_readable():
    def checks(case):
        yield lambda c: None

    with pytest.raises(RuntimeError, match="not unique"):
        generate_checks(ldp.METRICS, lambda case: [checks, checks])
