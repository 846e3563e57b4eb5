"""Set-valued data (ldp.mechanisms.set_valued): padding and sampling with GRR amplified to ε′ = ln(ℓ(e^ε − 1) + 1)
is exactly ε-LDP; ℓ·f̃ is unbiased where no set is longer than ℓ and under-counts where sets are longer; the
adaptive oracle picks the smaller variance."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ldp
from ldp.mechanisms.set_valued import PaddingSampling, SetValues, amplified_epsilon
from ldp.studies.itemsets import collect_padded


@pytest.mark.parametrize(("epsilon", "d", "length"), [(0.5, 3, 2), (1.0, 4, 3), (2.0, 3, 1), (3.0, 4, 2)])
def test_psfo_with_grr_is_epsilon_ldp_at_the_boundary(epsilon, d, length):
    """The exact report distribution of every set of up to ℓ + 1 items (padded, or ℓ of them kept; a larger set's
    report distribution is a mixture of these rows): the largest ratio over reports and pairs of sets is e^ε exactly —
    a set holding the reported item against one that does not — never more, so the amplification spends the
    budget exactly. Tolerance: a handful of float64 operations on probabilities ≥ 1e-3, far below 1e-9·ε."""
    psfo = PaddingSampling(epsilon, d, length, "grr")
    matrix, labels = psfo.channel()
    assert matrix.shape == (len(psfo.input_sets()), psfo.size) == (len(psfo.input_sets()), len(labels))
    np.testing.assert_allclose(matrix.sum(axis=1), 1.0, atol=1e-12)
    loss = ldp.mechanisms.channel_privacy_loss(matrix)
    assert epsilon * (1 - 1e-9) < loss <= epsilon + 1e-12
    assert amplified_epsilon(epsilon, length) >= epsilon and amplified_epsilon(epsilon, 1) == pytest.approx(epsilon)


@pytest.mark.parametrize("length", [1, 3])
def test_the_channel_s_sampling_matrix_is_what_sample_draws(length):
    """Every set of up to ℓ + 1 of 4 items, 4,000 users each: the frequency of each sampled padded value is within
    5 binomial standard errors √(π(1 − π)/4000) (+ 1e-9 for π ∈ {0, 1}) of :meth:`sampling_matrix` — so the exact
    channel the ε-LDP checks enumerate is the one the simulation runs."""
    psfo = PaddingSampling(1.0, 4, length, "grr")
    sets = psfo.input_sets()
    repeats = 4_000
    values = SetValues.from_lists([[f"i{v}" for v in items] for items in sets for _ in range(repeats)])
    order = np.array([int(label[1:]) for label in values.labels])  # from_lists codes labels by first appearance
    drawn = psfo.sample(values, np.random.default_rng(3)).reshape(len(sets), repeats)
    real = drawn < psfo.d
    drawn[real] = order[drawn[real]]
    freq = np.stack([np.bincount(row, minlength=psfo.size) for row in drawn]) / repeats
    pi = psfo.sampling_matrix(sets)
    assert np.all(np.abs(freq - pi) <= 5 * np.sqrt(pi * (1 - pi) / repeats) + 1e-9)


def _sets(rows):
    return SetValues.from_lists([[f"i{v}" for v in row] for row in rows])


@pytest.mark.parametrize("oracle", ["grr", "olh"])
def test_l_times_f_is_unbiased_where_no_set_is_longer_than_l(oracle):
    """20,000 users with sets of 1–3 of 6 items, ℓ = 3: over 60 collections the mean of ℓ·f̃ is within 4.5 SE of
    each item's true share (SE from the spread of the 60 estimates)."""
    rng = np.random.default_rng(4)
    rows = [rng.choice(6, size=rng.integers(1, 4), replace=False, p=[0.3, 0.25, 0.2, 0.1, 0.1, 0.05]).tolist()
            for _ in range(20_000)]
    sets = _sets(rows)
    psfo = PaddingSampling(1.5, sets.d, 3, oracle)
    est = np.array([collect_padded(psfo, sets, rng) for _ in range(60)])
    se = est.std(axis=0, ddof=1) / math.sqrt(60)
    assert np.all(np.abs(est.mean(axis=0) - sets.frequencies()) < 4.5 * se)


def test_sets_longer_than_l_are_under_counted():
    """Every user holds 4 of 4 items and ℓ = 1: each item is reported with probability 1/4, so ℓ·f̃ ≈ 1/4 although
    every user holds it (the lecture's "under estimation")."""
    sets = _sets([[0, 1, 2, 3]] * 20_000)
    est = collect_padded(PaddingSampling(4.0, 4, 1, "grr"), sets, np.random.default_rng(0))
    assert np.all(np.abs(est - 0.25) < 0.05)


def test_adaptive_oracle_takes_the_smaller_variance():
    small = PaddingSampling(2.0, 10, 4, "adaptive")   # GRR over 14 values at ε′ = ln(4(e² − 1) + 1)
    large = PaddingSampling(1.0, 5000, 1, "adaptive")  # GRR over 5,001 values at ε = 1: OLH wins
    assert small.oracle == "grr" and small.grr_variance() < small.olh_variance()
    assert large.oracle == "olh" and large.olh_variance() < large.grr_variance()


def test_set_values_validation_and_views():
    sets = SetValues.from_lists([["b", "a", "a"], [], ["c"]])
    assert sets.labels == ("a", "b", "c") and sets.sizes.tolist() == [2, 0, 1]
    sub = sets.subset(np.array([2, 0]))
    assert [sub.labels[i] for i in sub.items] == ["c", "b", "a"]
    kept = sets.restrict(np.array([True, False, True]))
    assert kept.sizes.tolist() == [1, 0, 1]
    with pytest.raises(ldp.LDPError, match="no items"):
        SetValues.from_lists([[], []])
    with pytest.raises(ldp.LDPError, match="oracle"):
        PaddingSampling(1.0, 3, 2, "oue")


def test_the_strawman_encodes_sets_as_subsets_and_refuses_large_domains():
    """The lecture's strawman: a set is its bit mask (one of 2^d values); an item's estimate sums the subsets that
    hold it; beyond STRAWMAN_MAX_ITEMS items it is refused in one line."""
    from ldp.mechanisms.set_valued import STRAWMAN_MAX_ITEMS, WholeSetOracle

    sets = SetValues.from_lists([["a", "c"], ["b"], [], ["a", "b", "c"]])
    whole = WholeSetOracle(1.0, sets.d)
    assert whole.size == 8 and whole.encode(sets).tolist() == [0b101, 0b010, 0, 0b111]
    exact = np.bincount(whole.encode(sets), minlength=8) / sets.users  # the subsets' true frequencies
    assert whole.item_estimates(exact).tolist() == pytest.approx(sets.frequencies().tolist())
    assert WholeSetOracle(2.0, 4).oracle == "grr" and WholeSetOracle(2.0, 12).oracle == "olh"
    with pytest.raises(ldp.LDPError, match=f"at most {STRAWMAN_MAX_ITEMS} items") as err:
        WholeSetOracle(1.0, STRAWMAN_MAX_ITEMS + 1)
    assert "\n" not in str(err.value)


def test_the_strawmans_grr_variance_is_exact():
    """GRR over the 2^4 subsets (fast engine: exact in distribution): an item's estimate sums 8 subsets' estimates,
    whose variance is π(1 − π)/(n(p − q)²) with π the chance a report falls among them. 300 draws: the sample
    variance's relative SD is √(2/299) ≈ 0.082, so the ratio must be 1 ± 0.3 (> 3.5 SD)."""
    from ldp.engines import collect
    from ldp.mechanisms.set_valued import WholeSetOracle

    whole = WholeSetOracle(1.0, 4, "grr")
    users = 10_000
    counts = np.full(whole.size, users // whole.size)  # every subset equally often: item 0 held by half the users
    mech, rng = whole.mechanism, np.random.default_rng(3)
    draws = [whole.item_estimates(mech.estimate(collect(mech, counts, rng, "fast")).values)[0] for _ in range(300)]
    assert np.mean(draws) == pytest.approx(0.5, abs=4 * math.sqrt(whole.item_variance(users, 0.5) / 300))
    assert np.var(draws, ddof=1) / whole.item_variance(users, 0.5) == pytest.approx(1.0, abs=0.3)


def test_the_channel_refuses_bad_sets_and_counts_its_size_before_enumerating():
    """A set with a code outside [0, d), a repeated or non-integer item gets one line (a negative code would
    otherwise index from the end silently); 200 items padded to ℓ = 5 would make Σ_{s ≤ 6} C(200, s) ≈ 8·10¹⁰ sets,
    refused from the count, before any is built."""
    psfo = PaddingSampling(1.0, 4, 2, "grr")
    for bad in ([[0, 4]], [[-1]], [[1, 1]], [[0.5]], [[True]]):
        with pytest.raises(ldp.InvalidInput, match="distinct item codes"):
            psfo.sampling_matrix(bad)
    with pytest.raises(ldp.InvalidInput, match="sets of up to 6 of 200 items"):
        PaddingSampling(1.0, 200, 5, "grr").channel()
