"""Property-based fuzzing of every frequency estimator over valid aggregates (issue 10 item 6): any support counts a
collection can produce give a finite estimate of the right shape, consistent ones on the simplex — never a crash."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ldp

MECHANISMS = {"grr": 3.0, "oue": 1.0, "olh": 2.0, "ss": 1.0}
ESTIMATORS = [e.name for e in ldp.ESTIMATORS if "frequency" in e.kinds]


@st.composite
def aggregates(draw, mechanism_name: str):
    d = draw(st.integers(min_value=2, max_value=40))
    n = draw(st.integers(min_value=1, max_value=10**7))
    mech = ldp.get_mechanism(mechanism_name, MECHANISMS[mechanism_name], d)
    # a population anywhere on the simplex (including point masses and empty values), then its exact aggregate
    weights = np.array(draw(st.lists(st.floats(min_value=0, max_value=1), min_size=d, max_size=d)))
    weights = weights if weights.sum() > 0 else np.ones(d)
    seed = draw(st.integers(min_value=0, max_value=2**32 - 1))
    counts = np.random.default_rng(seed).multinomial(n, weights / weights.sum())
    return mech, mech.sample_aggregate(counts, np.random.default_rng(seed + 1))


@pytest.mark.parametrize("mechanism_name", list(MECHANISMS))
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_estimator_survives_any_valid_aggregate(mechanism_name, data):
    mech, agg = data.draw(aggregates(mechanism_name))
    for name in ESTIMATORS:
        cls = ldp.ESTIMATORS.get(name)
        if not cls.applies_to(mech):
            continue
        out = ldp.get_estimator(name).estimate(mech, agg).values
        assert out.shape == (mech.d,) and np.all(np.isfinite(out)), name
        if cls.consistent:
            assert np.all(out >= -1e-12) and abs(out.sum() - 1) < 1e-9, name
