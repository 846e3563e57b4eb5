"""Shuffle-model bounds: published numbers, bound ordering, monotonicity, validity and the inverse."""

import math

import numpy as np
import pytest

from ldp.core.errors import LDPError
from ldp.privacy.shuffle import (
    blanket_grr,
    error_bought,
    fmt_closed_form,
    fmt_closed_form_simple,
    fmt_delta,
    fmt_numerical,
    fmt_valid,
    largest_local_epsilon,
    shuffle_bounds,
    shuffle_curve,
)


def test_published_example_n1e5_eps4():
    # The numbers (authors' example: n = 1e5, ε₀ = 4, δ = 1e-6, step 100). The authors' script bisects
    # with 10 steps from the closed form 0.538, i.e. to 0.538/2^10 ≈ 5e-4; we bisect further, hence ± 1e-3.
    b = shuffle_bounds(100_000, 4.0, 1e-6)
    assert b.closed_form == pytest.approx(0.538, abs=1e-3)
    assert b.upper == pytest.approx(0.1751, abs=1e-3)
    assert b.lower == pytest.approx(0.1675, abs=1e-3)
    # the copied implementation's upper bound (0.1725, from max(δ_q(hi), δ_q(hi))) is not what we return
    assert b.upper > 0.1725 + 1e-3
    assert fmt_closed_form_simple(100_000, 4.0, 1e-6) == pytest.approx(0.5346, abs=1e-3)


def test_bounds_bracket_the_exact_value():
    # step = 1 with every interval summed is the exact δ(ε) of the clone reduction (up to the 20-sd tails)
    for n, e0 in ((10_000, 1.0), (10_000, 3.0), (100_000, 4.0)):
        lo, hi = fmt_numerical(n, e0, 1e-6)
        exact_lo, exact_hi = fmt_numerical(n, e0, 1e-6, step=1, early_stop=False)
        assert exact_hi - exact_lo < 1e-4  # one interval of the grid has width 2
        assert lo <= exact_lo + 1e-7 and exact_hi <= hi + 1e-7
        tight = fmt_numerical(n, e0, 1e-6, early_stop=False)[1]
        assert exact_hi <= tight + 1e-7 <= hi + 2e-7


def test_upper_at_least_lower_everywhere_and_below_closed_form():
    for n in (1_000, 10_000, 1_000_000):
        for e0 in (0.1, 0.5, 1.0, 2.0, 4.0, 6.0):
            lo, hi = fmt_numerical(n, e0, 1e-6)
            assert 0 <= lo <= hi <= e0
            closed = fmt_closed_form(n, e0, 1e-6)
            if closed is not None:
                assert hi <= closed + 1e-9


def test_monotone_in_users_and_local_epsilon():
    ns = [1_000, 10_000, 100_000, 1_000_000]
    for bound in (0, 1):
        by_n = [fmt_numerical(n, 2.0, 1e-6)[bound] for n in ns]
        assert np.all(np.diff(by_n) < 0)
        by_e = [fmt_numerical(10_000, e, 1e-6)[bound] for e in (0.25, 0.5, 1.0, 2.0, 3.0, 4.0)]
        assert np.all(np.diff(by_e) > 0)


def test_delta_decreases_in_epsilon_and_vanishes_at_epsilon0():
    ds = [fmt_delta(10_000, 2.0, e) for e in (0.05, 0.1, 0.2, 0.4)]
    assert np.all(np.diff(ds) < 0)
    # the pair (P, Q) has likelihood ratio at most e^ε₀, so δ(ε₀) = 0 up to the tails left out
    assert fmt_delta(10_000, 2.0, 2.0) == 0.0 and fmt_delta(10_000, 2.0, 1.999) < 1e-12


def test_a_bisections_memoised_delta_is_fmt_delta_bit_for_bit():
    """fmt_numerical evaluates δ(ε) through _DeltaCurve, which recomputes a clone count's binomial cdfs only where
    ⌊cut⌋ moved since the last ε and keeps each ε's δ_c: every value must be fmt_delta's float exactly, along a
    bisection's path (halving steps, a repeated ε, a jump back to the start, ε ≥ ε₀)."""
    from ldp.privacy.shuffle import _DeltaCurve

    for n, eps0, step in ((3_000, 2.0, 1), (100_000, 1.0, 15), (100_000, 4.0, 100)):
        curve = _DeltaCurve(n, eps0, step)
        path = [eps0 / 2, eps0 / 4, 3 * eps0 / 8, 5 * eps0 / 16, 5 * eps0 / 16 + eps0 / 2**20, eps0 / 4, 0.0,
                eps0 / 2, eps0, 1.5 * eps0]
        for eps in path:
            for upper in (False, True):
                for early in (False, True):
                    assert curve.delta(eps, upper, early) == fmt_delta(n, eps0, eps, step, upper, early)


def test_closed_form_says_nothing_outside_its_validity_condition():
    n, delta = 10_000, 1e-6
    limit = math.log(n / (16 * math.log(2 / delta)))
    assert fmt_valid(n, limit - 1e-6, delta) and not fmt_valid(n, limit + 1e-6, delta)
    assert fmt_closed_form(n, limit + 0.01, delta) is None
    assert shuffle_bounds(n, limit + 0.01, delta).closed_form is None
    assert fmt_closed_form(n, limit - 0.01, delta) is not None


def test_blanket_grr_matches_theorem():
    n, e0, delta, k = 1_000_000, 1.0, 1e-6, 10
    gamma = k / (math.exp(e0) + k - 1)
    expected = max(math.sqrt(14 * k * math.log(2 / delta) / ((n - 1) * gamma)), 27 * k / ((n - 1) * gamma))
    assert blanket_grr(n, e0, delta, k) == pytest.approx(expected)
    assert blanket_grr(100, 4.0, delta, k) is None  # the theorem's ε would exceed 1
    # larger domains keep more users in the blanket only through γ; ε grows with k at fixed ε₀
    assert blanket_grr(n, e0, delta, 4) < blanket_grr(n, e0, delta, 100)


def test_inverse_is_the_largest_local_epsilon():
    target, n, delta = 0.5, 100_000, 1e-6
    e0 = largest_local_epsilon(target, n, delta)
    assert e0 > target
    assert fmt_numerical(n, e0, delta)[1] <= target
    assert fmt_numerical(n, e0 + 0.01, delta)[1] > target


@pytest.mark.parametrize("args", [(1, 1.0, 1e-6), (100, -1.0, 1e-6), (100, 1.0, 0.0), (100, 1.0, 1.0),
                                  (100, math.inf, 1e-6), (100.5, 1.0, 1e-6)])
def test_bad_input_is_one_line_error(args):
    with pytest.raises(LDPError) as err:
        fmt_numerical(*args)
    assert "\n" not in str(err.value)


def test_tight_inverse_and_the_error_it_buys():
    target, n, delta = 0.5, 100_000, 1e-6
    tight = largest_local_epsilon(target, n, delta, tight=True)
    assert tight >= largest_local_epsilon(target, n, delta) - 1e-6  # a tighter bound allows more local ε₀
    rows = error_bought(target, n, delta, 32)
    assert [r["mechanism"] for r in rows] == ["grr", "oue", "olh"]
    for r in rows:
        assert r["epsilon0_shuffled"] == pytest.approx(tight)
        assert r["variance_shuffled"] < r["variance_local"] and r["error_ratio"] > 1


def test_shuffle_curve_is_tight_and_sorted():
    curve = shuffle_curve([100_000, 10_000], 4.0, 1e-6)
    assert [b.users for b in curve] == [10_000, 100_000]
    assert all(not b.early_stop and b.upper - b.lower < 1e-3 for b in curve)
    assert curve[1].upper == pytest.approx(0.1698, abs=5e-4)  # the exact value at n = 1e5, ε₀ = 4 (step 1: 0.16977)
