"""Registries (ldp.core.registry), the parameter tables (ldp.core.params) and the one error type."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ldp
from ldp.core.errors import LDPError
from ldp.core.params import Param, check_positive_int, resolve_params, validate_codes
from ldp.core.registry import Registry, describe


def test_ldp_error_is_a_value_error():
    assert issubclass(LDPError, ValueError) and ldp.LDPError is LDPError
    with pytest.raises(ValueError):
        ldp.get_mechanism("oue", -1.0, 4)


def test_registry_keeps_order_and_explains_unknown_names():
    reg: Registry = Registry("gadget")

    @reg.register
    class B:
        name = "b"

    @reg.register
    class A:
        name = "a"

    assert reg.names() == ["b", "a"] and list(reg) == [B, A] and len(reg) == 2
    assert reg.get(" A ") is A and "a" in reg and "c" not in reg and 3 not in reg
    assert reg.filter(lambda item: item.name == "a") == [A] and reg.items() == [("b", B), ("a", A)]
    with pytest.raises(LDPError, match="unknown gadget 'c'; choose one of: b, a"):
        reg.get("c")
    with pytest.raises(LDPError, match="must be a string"):
        reg.get(3)
    with pytest.raises(RuntimeError, match="twice"):  # a programming error, not a user error
        reg.register(A)
    with pytest.raises(TypeError):
        reg.register(object())


def test_describe_lists_metadata_and_parameters():
    info = describe(ldp.MECHANISMS.get("ss"))
    assert info["name"] == "ss" and info["kind"] == "frequency" and info["paper"]
    assert [p["name"] for p in info["parameters"]] == ["epsilon", "d", "omega"]
    assert describe(ldp.ESTIMATORS.get("base-cut"))["parameters"] == [
        {"name": "alpha", "type": "float", "description": ldp.ESTIMATORS.get("base-cut").parameters[0].description,
         "default": 2.0, "min": 0.0}]


def test_param_validation():
    p = Param("k", int, "a count", default=3, low=1, high=10)
    assert p.validate(4, "x") == 4 and p.validate(np.int64(4), "x") == 4 and p.validate(5.0, "x") == 5
    for bad, message in [(0, ">= 1"), (11, "<= 10"), (2.5, "integer"), (True, "integer"), ("3", "integer"),
                         (None, "required")]:
        with pytest.raises(LDPError, match=message):
            p.validate(bad, "x")
    f = Param("eps", float, "budget", low=0.0, low_inclusive=False)
    assert f.validate(1, "x") == 1.0 and isinstance(f.validate(1, "x"), float)
    for bad, message in [(0.0, "> 0.0"), (math.inf, "finite"), (math.nan, "finite"), ("1", "number")]:
        with pytest.raises(LDPError, match=message):
            f.validate(bad, "x")
    c = Param("mode", str, "a choice", choices=("a", "b"), optional=True)
    assert c.validate(None, "x") is None and c.validate("a", "x") == "a"
    with pytest.raises(LDPError, match="one of"):
        c.validate("z", "x")
    assert Param("on", bool, "a flag").parse("Yes") is True and Param("on", bool, "a flag").parse("0") is False
    assert p.parse("7") == 7
    with pytest.raises(LDPError, match="expects type int"):
        p.parse("seven")
    assert p.to_dict() == {"name": "k", "type": "int", "description": "a count", "default": 3, "min": 1, "max": 10}


def test_resolve_params_and_codes():
    table = (Param("k", int, "a count", default=3), Param("m", float, "a size", optional=True))
    assert resolve_params("x", table, {"k": 5}) == {"k": 5, "m": None}
    with pytest.raises(LDPError, match="unknown parameter.*bogus.*it accepts: k, m"):
        resolve_params("x", table, {"bogus": 1})
    np.testing.assert_array_equal(validate_codes("x", np.array([0.0, 2.0]), 3), [0, 2])
    assert validate_codes("x", [], 3).dtype == np.int64
    for bad, message in [(np.array([3]), "outside the domain"), (np.array([0.5]), "integers"),
                         (np.zeros((1, 1)), "1-D")]:
        with pytest.raises(LDPError, match=message):
            validate_codes("x", bad, 3)
    assert check_positive_int(np.int64(4), "n") == 4 and check_positive_int(2.0, "n") == 2
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(LDPError, match="positive integer"):
            check_positive_int(bad, "n", "owner")
