"""The conformance suite over the joint-distribution methods (``ldp.studies.joint.JOINT_METHODS``), generated like
the mechanisms' and estimators': a method registered there is checked here without a line of its own.

Checks: seeded determinism (same seed, same estimate; another seed, another), validation (a number of columns the
method does not take, a bad ε and an unknown post-processor are refused with the library's InvalidInput before any
work), a distribution out (non-negative, summing to 1, over the population's shape), and consistency: on independent
columns — which every method may assume — the total variation distance to the truth falls as n grows. Tolerance of
the last: the estimate's error scales like 1/√n, so 100× the users should cut the TVD about 10×; we ask for a
factor 2 (the methods' post-processing and grids bias it at small n, never upwards with n)."""

from __future__ import annotations

import numpy as np
import pytest

from ldp.core.errors import InvalidInput
from ldp.core.streams import rng_for
from ldp.data.joint import joint_synthetic
from ldp.studies.joint import JOINT_METHODS, estimate_joint

METHODS = [m.name for m in JOINT_METHODS]
SPEC = "independent:d1=4,d2=3"


def _population(n: int, spec: str = SPEC):
    population, _ = joint_synthetic(spec, n, rng_for(0, "conformance", "joint", spec, n))
    return population


@pytest.mark.parametrize("name", METHODS)
def test_seeded_determinism(name):
    population = _population(20_000)
    one = estimate_joint(population, 1.0, name, seed=3).estimate
    again = estimate_joint(population, 1.0, name, seed=3).estimate
    other = estimate_joint(population, 1.0, name, seed=4).estimate
    assert np.array_equal(one, again)
    assert not np.array_equal(one, other)


@pytest.mark.parametrize("name", METHODS)
def test_validation(name):
    cls = JOINT_METHODS.get(name)
    refused = [k for k in (2, 3) if k not in cls.columns]
    for k in refused:
        spec = "independent:d1=3,d2=3" + (",d3=2" if k == 3 else "")
        with pytest.raises(InvalidInput):
            estimate_joint(_population(5_000, spec), 1.0, name)
    population = _population(5_000)
    for bad in (0.0, -1.0, float("nan")):
        with pytest.raises(InvalidInput):
            estimate_joint(population, bad, name)
    with pytest.raises(InvalidInput):
        estimate_joint(population, 1.0, name, postprocess="no-such-estimator")


@pytest.mark.parametrize("name", METHODS)
def test_a_distribution_over_the_population_shape(name):
    population = _population(20_000)
    result = estimate_joint(population, 1.0, name, seed=1)
    assert result.estimate.shape == population.shape
    assert np.all(result.estimate >= -1e-12) and result.estimate.sum() == pytest.approx(1.0, abs=1e-9)
    assert set(result.metrics) >= {"tvd", "mse"}


@pytest.mark.parametrize("name", METHODS)
def test_the_error_falls_with_n_on_independent_columns(name):
    small = np.mean([estimate_joint(_population(10_000), 1.0, name, seed=s).metrics["tvd"] for s in range(3)])
    large = np.mean([estimate_joint(_population(1_000_000), 1.0, name, seed=s).metrics["tvd"] for s in range(3)])
    assert large < small / 2, (small, large)
