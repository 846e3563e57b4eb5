"""The server call of the README, ``mech.estimate(counts, n)``, and the engines validate what they are given
(issue 10 item 5): the library's own error with the reason, never NaN, a wrong-length vector or a wrapped total."""

from __future__ import annotations

import numpy as np
import pytest

import ldp
from ldp.engines import run_exact, run_fast


@pytest.mark.parametrize(("counts", "n", "reason"), [
    (np.array([1, 2, np.nan, 3.0]), 10, "NaN"),
    (np.array([1, 2, 3]), 10, "4 entries"),
    (np.ones((2, 4)), 10, "4 entries"),
    (np.ones(4), 0, "positive integer"),
    (np.ones(4), -1000, "positive integer"),
    (np.ones(4), 1000.7, "positive integer"),
    (np.ones(4), True, "positive integer"),
    (np.array([1, 2, 3, 40]), 10, "between 0 and n"),
    (np.array([-1, 2, 3, 4]), 10, "between 0 and n"),
])
def test_estimate_refuses_what_no_collection_produces(counts, n, reason):
    mech = ldp.get_mechanism("oue", 1.0, 4)
    with pytest.raises(ldp.LDPError, match=reason):
        mech.estimate(counts, n)


def test_engines_refuse_fractional_negative_and_overflowing_populations():
    mech = ldp.get_mechanism("oue", 1.0, 4)
    rng = np.random.default_rng(0)
    for counts, reason in (([1.5, 2, 3, 4], "non-negative integers"), ([-1, 2, 3, 4], "non-negative integers"),
                           ([2**61] * 4, "at most"), ([2**51] * 10 + [0] * 0, "length")):
        with pytest.raises(ldp.LDPError, match=reason):
            run_fast(mech, np.array(counts), rng)
    with pytest.raises(ldp.LDPError, match="at most"):  # ten counts of 2⁶¹ wrapped the int64 total before
        run_fast(ldp.get_mechanism("oue", 1.0, 10), np.full(10, 2**61), rng)
    with pytest.raises(ldp.LDPError, match="chunk_size"):
        run_exact(mech, rng, true_counts=np.array([1, 2, 3, 4]), chunk_size=-5)


def test_the_population_total_is_checked_exactly_at_the_limit():
    """Σ counts ≤ 2⁵³ is decided by the float64 sum unless it is within its rounding error of the limit, then by
    Python integers: 2⁵³ − 1 + 1 is accepted, 2⁵³ − 1 + 1 + 1 refused (its float64 sum rounds to 2⁵³), and four
    counts of 2⁵¹ (exactly 2⁵³) accepted while five are refused."""
    from ldp.mechanisms.base import MAX_USERS, _total_at_most

    assert _total_at_most(np.array([MAX_USERS - 1, 1]), MAX_USERS)
    assert not _total_at_most(np.array([MAX_USERS - 1, 1, 1]), MAX_USERS)
    assert float(np.array([MAX_USERS - 1, 1, 1]).sum(dtype=np.float64)) == MAX_USERS  # why the exact path is needed
    assert _total_at_most(np.full(4, 2**51), MAX_USERS) and not _total_at_most(np.full(5, 2**51), MAX_USERS)
    assert _total_at_most(np.ones(100_000, dtype=np.int64), MAX_USERS) and _total_at_most(np.zeros(3), MAX_USERS)
    with pytest.raises(ldp.LDPError, match="at most"):
        run_fast(ldp.get_mechanism("oue", 1.0, 3), np.array([MAX_USERS - 1, 1, 1]), np.random.default_rng(0))


def test_reports_must_be_real_numbers():
    she = ldp.get_mechanism("she", 1.0, 4)
    with pytest.raises(ldp.LDPError, match="real numbers"):
        she.aggregate(np.ones((3, 4)) * (1 + 1j))


def test_an_aggregate_built_by_hand_is_checked_whatever_its_engine_says():
    """``Aggregate([-5, 200, 3], 10)`` gave GRR frequencies of −1.95 and 54.3 without a word, and labelling it
    ``engine="fast"`` also silenced the estimators' consistency warnings: only the engines' own aggregates skip the
    checks (``Aggregate.simulated``)."""
    grr = ldp.get_mechanism("grr", 1.0, 3)
    for engine in ("reports", "exact", "fast"):
        hand = ldp.Aggregate([-5, 200, 3], 10, engine)
        with pytest.raises(ldp.LDPError, match="between 0 and n"):
            grr.estimate(hand)
        with pytest.raises(ldp.LDPError, match="between 0 and n"):
            ldp.estimate_all(grr, hand, ["mi", "norm-sub"])
    # in range but not GRR-like: the estimators say so for a hand-made aggregate, whatever its label
    odd = ldp.Aggregate([1000, 0, 0], 1000, "fast")  # value 0 supported by every report: GRR keeps 58%
    assert ldp.get_estimator("mi").estimate(grr, odd).warnings
    made = run_fast(grr, np.array([5, 3, 2]), np.random.default_rng(0))
    assert made.simulated and grr.estimate(made).values.shape == (3,)


def test_a_composite_mechanism_checks_its_oracle_statistic():
    """CFO with binning hands its statistic to its categorical oracle: counts outside [0, n] were refused by GRR
    itself but not through the binning (it returned [0, 1, 0, …] without a warning)."""
    mech = ldp.get_mechanism("cfo-binning", 1.0, 8, oracle="grr")
    bad = np.zeros(mech.statistic_size())
    bad[0], bad[1] = -5, 30
    for call in (lambda: mech.estimate(bad, 3), lambda: mech.reconstruct(bad, 3),
                 lambda: ldp.estimate_all(mech, bad, ["mi"], n=3),
                 lambda: ldp.get_estimator("mi").estimate_batch(mech, bad[None, :], 3)):
        with pytest.raises(ldp.LDPError, match="between 0 and n"):
            call()


@pytest.mark.parametrize(("rows", "n", "reason"), [
    ([[50, 0, 0, 1]], 3, "between 0 and n"),
    ([[1, 0, 0, 1, 2, 2]], 3, "4 entries"),
    ([[1, 0, 0, 1]], -7, "positive integer"),
    ([[1, 0, np.nan, 1]], 3, "NaN"),
])
@pytest.mark.parametrize("estimator", ["mi", "ibu", "norm-sub"])
def test_a_batch_of_statistics_is_checked_as_one_is(rows, n, reason, estimator):
    """``estimate_batch`` is public: IBU's vectorized batch took a count of 50 from 3 reports, a 6-entry row for
    d = 4 (a 6-entry estimate) and n = −7; every estimator now checks the rows as ``estimate`` checks one."""
    grr = ldp.get_mechanism("grr", 1.0, 4)
    with pytest.raises(ldp.LDPError, match=reason):
        ldp.get_estimator(estimator).estimate_batch(grr, np.array(rows, dtype=float), n)


def test_the_mechanisms_own_estimate_says_where_counts_cannot_be_its_own():
    """``mech.estimate(counts, n)`` (the README's server call) now carries the consistency warnings an estimator
    adds for a statistic no engine drew: GRR counts where one value is supported by every report."""
    grr = ldp.get_mechanism("grr", 1.0, 3)
    odd = grr.estimate([1000, 0, 0], 1000)
    assert any("cannot produce" in w or "outside" in w for w in odd.warnings), odd.warnings
    assert odd.warnings == ldp.get_estimator("mi").estimate(grr, [1000, 0, 0], 1000).warnings
    drawn = run_fast(grr, np.array([500, 300, 200]), np.random.default_rng(1))
    assert grr.estimate(drawn).warnings == ()


def test_a_batch_of_the_wrong_shape_is_refused_before_it_is_converted():
    """``as_aggregates`` reads the shape first (no float64 copy of a wrong-shaped batch) and refuses a ragged list,
    text and a 3-D array in one line each."""
    grr = ldp.get_mechanism("grr", 1.0, 4)
    for bad, reason in (([[1, 2], [1, 2, 3]], "one length"), ([["a", "b", "c", "d"]], "numbers"),
                        (np.zeros((2, 2, 4)), "4 entries"), (np.zeros(5), "4 entries")):
        with pytest.raises(ldp.LDPError, match=reason):
            grr.as_aggregates(bad, 3)
    rows, n = grr.as_aggregates([1, 0, 1, 1], 3)
    assert rows.shape == (1, 4) and n == 3
