"""ldp.studies.heavy_hitters: trials are keyed streams, never neighbouring seeds."""

from __future__ import annotations

import numpy as np
import pytest

import ldp
from ldp.studies.heavy_hitters import find_heavy_hitters, zipf_values


def test_a_trial_is_its_own_stream_not_the_next_seed():
    """Trial 1 of seed 0 used to be seed 1 (``seed + t``), so two seeds' averages shared runs; now trial t > 0 is the
    stream (…, "trial", t): it differs from seed 1's run, while trial 0 is the single run's stream."""
    values = zipf_values(20_000, 10, distinct=100, seed=0)

    def estimates(**kw):
        run = find_heavy_hitters("pem", 1.0, values, bits=10, top_k=4, **kw)
        return np.concatenate([r.estimates for r in run.result.rounds])

    np.testing.assert_array_equal(estimates(seed=0, trial=0), estimates(seed=0))
    assert not np.array_equal(estimates(seed=0, trial=1), estimates(seed=1))
    assert not np.array_equal(estimates(seed=0, trial=1), estimates(seed=0))


@pytest.mark.parametrize("trial", [-1, 1.5, "2", True])
def test_a_trial_that_is_not_a_count_is_refused(trial):
    values = zipf_values(1_000, 8, distinct=20, seed=0)
    with pytest.raises(ldp.InvalidInput, match="trial"):
        find_heavy_hitters("pem", 1.0, values, bits=8, top_k=2, trial=trial)
