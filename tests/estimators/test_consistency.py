"""Matrix inversion, the estimator protocol (stateless estimators, immutable Estimates) and the estimator chain.
(Norm-Sub's simplex projection is tested in tests/maths/test_simplex.py; the other post-processors in
test_consistency_methods.py.)"""

from __future__ import annotations

import numpy as np
import pytest

import ldp
from ldp.estimators import parse_estimators, resolve_estimators
from ldp.estimators.base import PostProcessor


def test_mi_is_unclipped_and_unbiased_form():
    mech = ldp.get_mechanism("grr", 1.0, 4)
    counts = np.array([10.0, 0.0, 0.0, 90.0])
    est = ldp.get_estimator("mi").estimate(mech, counts, 100)
    assert isinstance(est, ldp.Estimate) and est.estimator == "mi"
    assert est.values.min() < 0
    np.testing.assert_allclose(est.values, (counts - 100 * mech.q_star) / (100 * (mech.p_star - mech.q_star)))
    np.testing.assert_allclose(mech.invert(counts, 100), est.values)  # plain matrix inversion on arrays
    assert est.values.sum() == pytest.approx(1.0)  # GRR counts sum to n, so MI sums to one
    # the mechanism's own estimate is MI, from an aggregate or from (counts, n)
    np.testing.assert_array_equal(mech.estimate(counts, 100).values, est.values)
    np.testing.assert_array_equal(mech.estimate(ldp.Aggregate(counts, 100)).values, est.values)
    # invert works row-wise on a (trials, d) stack
    np.testing.assert_allclose(mech.invert(np.stack([counts, counts]), 100), np.stack([est.values, est.values]))


def test_estimator_errors():
    mech = ldp.get_mechanism("oue", 1.0, 4)
    with pytest.raises(ldp.LDPError, match="unknown estimator"):
        parse_estimators("mi,nope")
    with pytest.raises(ldp.LDPError, match="no estimator"):
        parse_estimators(" , ")
    with pytest.raises(ldp.LDPError, match="4 entries"):
        ldp.get_estimator("mi").estimate(mech, np.zeros(3), 10)
    with pytest.raises(ldp.LDPError, match="positive"):
        ldp.get_estimator("norm-sub").estimate(mech, np.zeros(4), 0)
    with pytest.raises(ldp.LDPError, match="disagrees"):
        ldp.get_estimator("mi").estimate(mech, ldp.Aggregate(np.zeros(4), 10), 11)
    assert parse_estimators("MI, norm-sub,mi", mech) == ["mi", "norm-sub"]
    with pytest.raises(ldp.LDPError, match="does not apply"):
        parse_estimators("ems", mech)
    with pytest.raises(ldp.LDPError, match="does not apply"):
        ldp.get_estimator("ems").estimate(mech, np.zeros(4), 10)
    with pytest.raises(ldp.LDPError, match="listed twice"):
        resolve_estimators(["mi", "mi"], mech)
    with pytest.raises(ldp.LDPError, match="either to the instance"):
        ldp.get_estimator(ldp.get_estimator("ibu"), max_iter=3)


def _example(kind_name: str):
    """A mechanism of the given name and one fast-engine aggregate of a skewed population."""
    mech = ldp.get_mechanism(kind_name, 1.0, None if ldp.MECHANISMS.get(kind_name).kind == "mean" else 32)
    support = np.linspace(-1, 1, 32) if mech.kind == "mean" else None
    counts = np.arange(1, 33) * 20
    return mech, ldp.run_fast(mech, counts, np.random.default_rng(0), support)


@pytest.mark.parametrize("mech_name", ["oue", "she", "l-grr", "sw", "sw-discrete", "cfo-binning", "gw", "hh",
                                       "haar-hrr", "sr", "pm"])
def test_estimator_conformance_over_registry(mech_name):
    """Every registered estimator that applies to a mechanism gives a finite estimate of the right size,
    a distribution when it promises consistency; estimators that do not apply say so."""
    mech, agg = _example(mech_name)
    size = 1 if mech.kind == "mean" else 32
    applied = 0
    for cls in ldp.ESTIMATORS:
        for attr in ("name", "display_name", "description", "paper"):
            assert getattr(cls, attr)
        assert set(cls.kinds) <= set(ldp.KINDS)
        if not cls.applies_to(mech):
            with pytest.raises(ldp.LDPError, match="does not apply"):
                cls().estimate(mech, agg)
            continue
        applied += 1
        est = cls().estimate(mech, agg)
        assert isinstance(est, ldp.Estimate) and est.estimator == cls.name
        assert est.values.shape == (size,) and np.all(np.isfinite(est.values))
        if cls.consistent:
            assert np.all(est.values >= -1e-12) and est.values.sum() == pytest.approx(1.0)
    assert applied >= 1
    assert ldp.ESTIMATORS.get(mech.default_estimator).applies_to(mech)


def test_every_categorical_estimator_applies_to_cfo_binning():
    """CFO with binning exposes its oracle (frequency_view): each categorical estimator runs on the bins and its
    estimate is spread uniformly within the bins."""
    mech, agg = _example("cfo-binning")
    oracle, spread = mech.frequency_view()
    assert oracle is mech.oracle and oracle.d == mech.bins
    for cls in ldp.ESTIMATORS:
        if not cls.applies_to(oracle):
            continue
        assert cls.applies_to(mech)
        inner = cls().estimate(oracle, ldp.Aggregate(agg.counts, agg.n))
        np.testing.assert_allclose(cls().estimate(mech, agg).values, spread(inner.values))
    # the mechanism's own estimate is MI + Norm-Sub on the bins (§4.1)
    np.testing.assert_allclose(mech.estimate(agg).values, spread(ldp.norm_sub(oracle.invert(agg.counts, agg.n))))


def test_estimates_are_immutable_and_estimators_stateless():
    mech, agg = _example("oue")
    ibu = ldp.get_estimator("ibu", max_iter=500, method="em")
    first = ibu.estimate(mech, agg)
    with pytest.raises(ValueError):
        first.values[0] = 1.0  # read-only array
    with pytest.raises(AttributeError):
        first.converged = False  # type: ignore[misc]
    assert not hasattr(ibu, "last_trace")
    again = ibu.estimate(mech, agg)
    np.testing.assert_array_equal(first.values, again.values)
    assert ibu == ldp.get_estimator("ibu", max_iter=500, method="em") and ibu != ldp.get_estimator("ibu")
    assert first.iterations > 0 and first.trace.shape == (first.iterations,)
    assert first.converged == (not first.warnings)


def test_estimate_all_runs_each_base_once(monkeypatch):
    mech, agg = _example("oue")
    names = ["mi", "norm-sub", "base-pos", "norm-mul", "ibu", "power-ns"]
    calls = []
    original = type(mech)._estimate

    def spy(self, aggregate):
        calls.append(aggregate.n)
        return original(self, aggregate)

    monkeypatch.setattr(type(mech), "_estimate", spy)
    out = ldp.estimate_all(mech, agg, names)
    assert list(out) == names
    assert len(calls) == 1  # MI once, handed to every post-processor
    for name in names:
        alone = ldp.get_estimator(name).estimate(mech, agg)
        np.testing.assert_array_equal(out[name].values, alone.values)
        assert issubclass(ldp.ESTIMATORS.get(name), PostProcessor) == (ldp.ESTIMATORS.get(name).base == "mi")
    # a post-processor given a base estimate uses it instead of computing one
    base = ldp.Estimate(np.full(32, 1 / 32), "mi")
    np.testing.assert_array_equal(ldp.get_estimator("norm-sub").estimate(mech, agg, base=base).values, base.values)


def test_estimate_batch_is_row_by_row():
    mech = ldp.get_mechanism("grr", 1.0, 8)
    rng = np.random.default_rng(4)
    rows = np.stack([ldp.run_fast(mech, np.full(8, 100), rng).counts for _ in range(3)])
    for name in ("mi", "norm-sub", "ibu", "power"):
        est = ldp.get_estimator(name)
        batch = est.estimate_batch(mech, rows, 800)
        assert batch.shape == (3, 8)
        for row, out in zip(rows, batch, strict=True):
            np.testing.assert_allclose(out, est.estimate(mech, row, 800).values, rtol=1e-10, atol=1e-12)


def test_norm_cut_when_the_sum_passes_one_only_in_one_summation_order():
    """Issue 10 item 6: Norm-Cut raised IndexError (`ldp simulate -m grr -e 12 --synthetic uniform:d=279 …`) when
    the positives summed to just above one in NumPy's order but to ≤ 1 in the sorted order it cuts in."""
    from ldp.estimators.consistency import norm_cut

    rng = np.random.default_rng(0)
    for _ in range(1000):
        x = rng.random(279)
        x = x / x.sum() * (1 + 1e-16)
        if x.sum() > 1.0 and np.cumsum(np.sort(x)[::-1])[-1] <= 1.0:
            break
    else:  # pragma: no cover - the search above finds one within a few draws for this seed
        pytest.fail("no rounding case found")
    out = norm_cut(x)
    np.testing.assert_array_equal(out, x)  # nothing to cut: every value kept
