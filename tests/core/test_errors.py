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


@pytest.mark.parametrize("rng", ["abc", [1, 2], 1.5, None, np.random.RandomState(0)])
def test_a_wrong_random_source_is_one_line(rng):
    """Issue 22 item 20: five wrong rng types raised AttributeError deep inside perturb."""
    for name in ("grr", "oue", "sw", "pm", "duchi"):
        mech = ldp.get_mechanism(name, 1.0, 4 if name not in ("pm", "duchi") else None)
        values = np.zeros(2) if name in ("sw", "pm", "duchi") else np.zeros(2, dtype=int)
        with pytest.raises(InvalidInput, match="rng must be a numpy Generator"):
            mech.perturb(values, rng)


def test_a_tiny_epsilon_1_is_refused_at_the_boundary():
    """L-OUE at ε1 = 1e-300 raised SciPy's root-finder error; ε1 has ε's range."""
    with pytest.raises(InvalidInput, match="epsilon_1 must be >= 0.0001"):
        ldp.get_mechanism("l-oue", 1.0, 8, epsilon_1=1e-300)


@pytest.mark.parametrize("name", ["mi", "norm-sub", "base-pos", "power", "mle-apx", "dw", "iiw", "gf", "smooth",
                                  "ibu"])
def test_impossible_counts_from_outside_are_flagged_by_every_estimator(name):
    """All-zero support counts with n = 1,000 cannot come from OUE (each report supports ≈ 2.4 values of 8): every
    estimator says so in its warnings (13 were silent); a simulated aggregate is not re-checked."""
    mech = ldp.get_mechanism("oue", 1.0, 8)
    est = ldp.get_estimator(name).estimate(mech, ldp.Aggregate(np.zeros(8), 1000))
    assert any("another mechanism" in w for w in est.warnings), est.warnings
    fine = mech.sample_aggregate(np.full(8, 125), np.random.default_rng(0))
    assert not any("another mechanism" in w for w in ldp.get_estimator(name).estimate(mech, fine).warnings)
