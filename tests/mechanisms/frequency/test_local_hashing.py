"""Local hashing's seeded 64-bit hash (hash="mix64", ldp.mechanisms.frequency.local_hashing): the family OLH uses
over domains too large to enumerate (the heavy-hitter rounds' prefixes beyond 2^24 values)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ldp
from ldp.mechanisms.frequency.local_hashing import cw_candidate_counts, cw_hash, mix64_hash


@pytest.mark.parametrize("epsilon", [0.1, math.log(2) - 0.01, 1.0, 3.0])
def test_mix64_reports_are_epsilon_ldp_at_the_boundary(epsilon):
    """The seed is drawn independently of the value, so the channel is a mixture over seeds of GRR on [g] of the
    hash: for a fixed seed a report y has probability p* or (1 − p*)/(g − 1) under any value, and the largest
    ratio over values and reports is exactly e^ε (reached where two 64-bit values hash apart; g = round(e^ε + 1) ≥
    2, so below ε = ln 2 it is GRR over 2 values, not a forced g = 3). Conformance checks the Carter–Wegman
    default on its exact channel; this family's 2^63 seeds cannot be enumerated, so 40 seeds are checked here."""
    mech = ldp.MECHANISMS.get("olh").over_bits(epsilon, 64)
    g, p = mech.g, mech.p_star
    assert g == max(2, round(math.exp(epsilon) + 1))
    other = (1 - p) / (g - 1)
    values = np.array([0, 1, 2**63, 2**64 - 1, *range(3, 60)], dtype=np.uint64)
    worst = 0.0
    for seed in np.random.default_rng(0).integers(0, 2**63, size=40):
        h = mix64_hash(values, np.int64(seed), g)
        probs = np.where(h[None, :] == np.arange(g)[:, None], p, other)  # Pr[y | v, seed], y × v
        np.testing.assert_allclose(probs.sum(axis=0), 1.0, rtol=1e-12)
        worst = max(worst, float(np.max(np.log(probs.max(axis=1) / probs.min(axis=1)))))
    assert epsilon * (1 - 1e-9) < worst <= epsilon + 1e-12


def test_mix64_reports_follow_the_hash_and_grr():
    """Each report's y is the hash of the value with probability p*, another of the g − 1 values otherwise
    (within 5 binomial SDs), for 64-bit values at and beyond 2^63."""
    mech = ldp.MECHANISMS.get("olh").over_bits(2.0, 64)
    rng = np.random.default_rng(1)
    values = rng.integers(0, 2**64, size=40_000, dtype=np.uint64)
    reports = mech.perturb_integers(values, rng)
    kept = np.mean(mix64_hash(values, reports[:, 1], mech.g) == reports[:, 0])
    assert abs(kept - mech.p_star) < 5 * math.sqrt(mech.p_star * (1 - mech.p_star) / values.size)
    assert reports[:, 1].min() >= 0 and np.all(reports[:, 0] < mech.g)


@pytest.mark.parametrize("prime, g", [(2_147_483_647, 11), (2_147_483_629, 2), (1_000_003, 50), (101, (1 << 32) + 5)])
def test_cw_candidate_counts_equal_the_hash_cell_by_cell(prime, g):
    """The support counts (remainders taken as x − ⌊x/m⌋·m, the second on uint32 when g < 2³²) equal counting
    cw_hash's cells one by one, at the extremes of a, b and the candidates (a·c + b just below 2⁶²) and across
    blocks (a block size that does not divide the users)."""
    rng = np.random.default_rng(7)
    n = 500
    a = rng.integers(1, prime, n)
    b = rng.integers(0, prime, n)
    a[:2], b[:2] = prime - 1, prime - 1
    candidates = np.concatenate([[0, 1, prime - 1], rng.integers(0, prime, 37)])
    y = cw_hash(a, b, np.full(n, candidates[5]), prime, g)  # every user's hash of one candidate: counts ≥ n there
    y[::3] = rng.integers(0, min(g, 1 << 20), y[::3].size)
    expected = np.array([np.count_nonzero(cw_hash(a, b, np.full(n, c), prime, g) == y) for c in candidates])
    counts = cw_candidate_counts(a, b, y, candidates, prime, g, block_cells=999)
    assert counts.tolist() == expected.tolist()
    assert counts[5] >= n - y[::3].size
