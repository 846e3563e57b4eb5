"""The error and warning types (ldp.core.errors): bad input vs a missing capability, one version."""

from __future__ import annotations

import tomllib
import warnings
from pathlib import Path

import numpy as np
import pytest

import ldp
from ldp.core.errors import ConvergenceWarning, InvalidInput, LDPError, NotAvailable


def test_bad_input_is_invalid_input_and_still_a_value_error():
    with pytest.raises(InvalidInput, match="epsilon"):
        ldp.get_mechanism("grr", epsilon=-1.0, d=4)
    assert issubclass(InvalidInput, LDPError) and issubclass(LDPError, ValueError)
    assert not issubclass(InvalidInput, NotAvailable)


def test_a_missing_capability_is_not_available():
    """A continuous mechanism has no discrete channel: NotAvailable, which the capability probes catch; bad input
    passed to the same mechanism is still InvalidInput."""
    sw = ldp.get_mechanism("sw", epsilon=1.0, d=16)
    with pytest.raises(NotAvailable, match="continuous"):
        sw.channel()
    assert not sw.has_discrete_channel()
    with pytest.raises(InvalidInput):
        sw.perturb(np.array([2.0]), np.random.default_rng(0))


def test_an_estimator_that_stops_early_warns():
    mech = ldp.get_mechanism("oue", epsilon=0.5, d=64)
    agg = mech.sample_aggregate(np.arange(64) * 10 + 1, np.random.default_rng(0))
    with pytest.warns(ConvergenceWarning, match="stopped before converging"):
        est = ldp.get_estimator("ibu", method="em", max_iter=2).estimate(mech, agg)
    assert not est.converged
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ldp.get_estimator("ibu").estimate(mech, agg).converged


def test_one_version():
    project = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "ldp.__version__"}
