"""The immutable records between the layers (ldp.core.results): Aggregate and Estimate."""

from __future__ import annotations

import dataclasses
import pickle

import numpy as np
import pytest

import ldp
from ldp.core.results import Aggregate, Estimate, frozen_array


def test_frozen_array_is_a_read_only_copy():
    src = np.array([1.0, 2.0])
    out = frozen_array(src)
    assert not out.flags.writeable and out.dtype == np.float64
    src[0] = 9.0
    assert out[0] == 1.0
    with pytest.raises(ValueError):
        out[0] = 3.0


def test_aggregate_is_immutable_and_additive():
    counts = np.array([3, 4, 5])
    a = Aggregate(counts, 12, "exact")
    counts[0] = 100
    assert a.counts.tolist() == [3.0, 4.0, 5.0] and a.counts.dtype == np.float64 and a.n == 12
    with pytest.raises(ValueError):
        a.counts[0] = 1.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.n = 3  # type: ignore[misc]
    b = Aggregate(np.array([1.0, 1.0, 1.0]), 3, "exact")
    total = a + b
    assert total.counts.tolist() == [4.0, 5.0, 6.0] and total.n == 15 and total.engine == "exact"
    assert (a + Aggregate(np.zeros(3), 1, "fast")).engine == "mixed"
    assert Aggregate(np.zeros(3), 1).engine == "reports"
    with pytest.raises(TypeError):
        a + Aggregate(np.zeros(2), 1)  # different layouts do not add
    assert pickle.loads(pickle.dumps(a)).counts.tolist() == a.counts.tolist()


def test_only_the_engines_make_a_simulated_aggregate():
    """An aggregate built by hand is checked like reports whatever its ``engine`` says (issue 21 item 1: the
    trusted path is the engines' own); the engines' mark survives pickling (a worker process) and addition."""
    made = Aggregate._from_engine(np.array([1.0, 2.0]), 3, "fast")
    assert made.simulated and pickle.loads(pickle.dumps(made)).simulated
    assert (made + Aggregate._from_engine(np.array([1.0, 0.0]), 1, "fast")).simulated
    for other in (Aggregate(np.array([1.0, 0.0]), 1, "fast"), Aggregate._from_engine(np.array([1.0, 0.0]), 1, "exact")):
        assert not (made + other).simulated
    assert not Aggregate(np.array([1.0, 2.0]), 3, "fast").simulated
    assert not Aggregate(np.array([1.0, 2.0]), 3, "exact").simulated
    assert not Aggregate._from_engine(np.array([1.0, 2.0]), 3, "reports").simulated


def test_chunk_aggregates_add_up_to_the_whole():
    """Aggregates are additive over users: the exact engine's chunks add up to aggregating everyone at once."""
    mech = ldp.get_mechanism("oue", 1.0, 6)
    reports = mech.perturb(np.arange(600) % 6, np.random.default_rng(0))
    whole = mech.aggregate(reports)
    parts = mech.aggregate(reports[:250]) + mech.aggregate(reports[250:])
    np.testing.assert_array_equal(parts.counts, whole.counts)
    assert parts.n == whole.n == 600


def test_estimate_is_immutable_and_summarizes():
    trace = np.array([0.5, 0.1])
    est = Estimate(np.array([0.25, 0.75]), "ibu", converged=False, iterations=2, trace=trace,
                   warnings=["did not converge"], diagnostics={"tol": 1e-12, "note": "x", "array": np.ones(2)})
    assert est.d == 2 and est.values.tolist() == [0.25, 0.75]
    for arr in (est.values, est.trace):
        with pytest.raises(ValueError):
            arr[0] = 1.0
    with pytest.raises(TypeError):
        est.diagnostics["tol"] = 1.0  # a read-only mapping
    with pytest.raises(dataclasses.FrozenInstanceError):
        est.converged = True  # type: ignore[misc]
    trace[0] = 9.0
    assert est.trace[0] == 0.5  # a copy
    assert est.warnings == ("did not converge",)
    summary = est.summary()
    assert summary == {"estimator": "ibu", "converged": False, "iterations": 2, "warnings": ["did not converge"],
                       "tol": 1e-12, "note": "x"}  # arrays are left out
    lifted = est.with_values(np.array([0.1, 0.2, 0.7]), estimator="ibu on bins")
    assert lifted.d == 3 and lifted.estimator == "ibu on bins" and lifted.iterations == 2
    assert dict(lifted.diagnostics) == {"tol": 1e-12, "note": "x", "array": est.diagnostics["array"]}
    assert est.d == 2  # the original is unchanged
    assert Estimate(np.zeros(2), "mi").trace is None and Estimate(np.zeros(2), "mi").converged


def test_estimates_and_estimators_pickle_and_copy():
    """st.cache_data pickles what it caches: Estimates (their read-only diagnostics too) and estimators."""
    import copy

    est = Estimate(np.array([0.25, 0.75]), "ibu", converged=False, iterations=2, trace=np.ones(2),
                   warnings=["w"], diagnostics={"tol": 1e-12})
    for again in (pickle.loads(pickle.dumps(est)), copy.deepcopy(est)):
        assert again.values.tolist() == [0.25, 0.75] and not again.values.flags.writeable
        assert (again.estimator, again.converged, again.iterations, again.warnings) == ("ibu", False, 2, ("w",))
        assert dict(again.diagnostics) == {"tol": 1e-12} and again.trace.tolist() == [1.0, 1.0]
    estimator = ldp.get_estimator("base-cut", alpha=0.5)
    assert pickle.loads(pickle.dumps(estimator)) == estimator == copy.deepcopy(estimator)


def test_aggregate_n_is_a_count():
    for bad in (1000.7, True, -1, "10", float("nan"), None):
        with pytest.raises(ldp.LDPError, match="non-negative integer"):
            Aggregate(np.zeros(3), bad)
    with pytest.raises(ldp.LDPError, match="numbers"):
        Aggregate(np.array(["a", "b"]), 3)
    assert Aggregate(np.zeros(3), 12.0).n == 12 and Aggregate(np.zeros(3), np.int64(0)).n == 0


def test_an_aggregate_is_checked_for_finite_numbers_once_and_refused_every_time():
    """Every estimator of a chain asks whether the statistic is finite: the answer is computed once per aggregate (its
    statistic is a read-only copy), and a non-finite one is refused by every estimator that is given it."""
    from ldp.core.errors import InvalidInput

    good, bad = Aggregate(np.ones(4), 4), Aggregate(np.array([1.0, np.inf, 0.0, 1.0]), 4)
    assert good.finite and not bad.finite
    assert good.__dict__["_finite"] is True and bad.__dict__["_finite"] is False  # remembered
    mech = ldp.get_mechanism("grr", 1.0, 4)
    for name in ("mi", "norm-sub", "ibu"):
        with pytest.raises(InvalidInput, match="NaN or infinite"):
            ldp.ESTIMATORS.get(name)().estimate(mech, bad)
    assert np.isfinite(ldp.ESTIMATORS.get("mi")().estimate(mech, good).values).all()
