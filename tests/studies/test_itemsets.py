"""SVIM and PSFO on sets with known frequent items (ldp.studies.itemsets)."""

from __future__ import annotations

import numpy as np
import pytest

import ldp
from ldp.studies.itemsets import psfo_items, read_baskets, svim, synthetic_sets, tail_correction


@pytest.fixture(scope="module")
def sets():
    return synthetic_sets(100_000, 200, seed=0)


def test_svim_finds_the_frequent_items_at_large_epsilon(sets):
    """ε = 4, 10⁵ users: the top 10 items (shares 0.62 … 0.06) are far above PSFO's SD at the chosen ℓ, so SVIM
    finds them all (precision 1) and its estimates are within a few SD."""
    res = svim(sets, 4.0, top_k=10, seed=1)
    assert res.scores["precision"] >= 0.9 and res.scores["ncr"] >= 0.95
    assert res.parameters["candidates"] == 20 and 1 <= res.parameters["length"] <= 20


def test_svim_estimates_better_than_psfo_with_l_1(sets):
    """ℓ = 1 divides every item's share by the mean set size (≈ 4) before the ℓ factor: PSFO ℓ=1's estimates are
    far too low; SVIM's ℓ and tail correction remove most of it (MSE at least 5× smaller)."""
    one = psfo_items(sets, 4.0, length=1, top_k=10, seed=1)
    sv = svim(sets, 4.0, top_k=10, seed=1)
    assert sv.scores["mse"] * 5 < one.scores["mse"]


def test_tail_correction_is_one_when_no_set_is_longer_than_l():
    theta = np.array([0.1, 0.5, 0.4, 0.0, 0.0])
    assert tail_correction(theta, 2) == 1.0
    assert tail_correction(theta, 1) == pytest.approx((0.5 + 0.8) / (0.5 + 0.4))


def test_read_baskets():
    sets = read_baskets(["milk bread", "bread,eggs , milk", "", "eggs"])
    assert sets.users == 4 and sets.labels == ("bread", "eggs", "milk") and sets.sizes.tolist() == [2, 3, 0, 1]
    with pytest.raises(ldp.LDPError, match="no users"):
        read_baskets([])
