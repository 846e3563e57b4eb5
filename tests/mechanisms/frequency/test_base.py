"""The frequency-oracle base's hooks for domains too large to enumerate (ldp.mechanisms.frequency.base):
``over_bits``, ``perturb_integers`` and ``estimate_candidates`` — the generic fallbacks agree with the whole-domain
path, and a family that would enumerate a wide domain says so with NotAvailable."""

from __future__ import annotations

import numpy as np
import pytest

import ldp
from ldp.core.errors import NotAvailable


@pytest.mark.parametrize(("name", "params"), [("grr", {}), ("oue", {}), ("olh", {}), ("olh", {"hash": "xxh32"}),
                                              ("olh", {"hash": "mix64"}), ("blh", {})])
def test_candidate_estimates_are_the_whole_domain_estimates_at_the_candidates(name, params):
    """The same reports: f̃ of a candidate list (any order, repeats) equals the matrix-inversion estimate of the
    whole domain read at those candidates (the support counts are the same counts)."""
    mech = ldp.get_mechanism(name, 1.5, 64, **params)
    rng = np.random.default_rng(0)
    reports = mech.perturb(rng.integers(0, 64, 3000), rng)
    cands = np.array([5, 0, 63, 5, 17], dtype=np.uint64)
    whole = mech.invert(mech.support_counts(reports), reports.shape[0])
    np.testing.assert_allclose(mech.estimate_candidates(reports, cands), whole[cands.astype(int)], atol=1e-12)


def test_over_bits_is_the_ordinary_mechanism_within_the_domain_range_and_refused_beyond():
    assert ldp.MECHANISMS.get("grr").over_bits(1.0, 12) == ldp.get_mechanism("grr", 1.0, 4096)
    assert ldp.MECHANISMS.get("olh").over_bits(1.0, 24).hash_family == "cw"
    with pytest.raises(NotAvailable, match="2\\^25"):
        ldp.MECHANISMS.get("grr").over_bits(1.0, 25)
    with pytest.raises(NotAvailable, match="mix64"):
        ldp.MECHANISMS.get("olh").over_bits(1.0, 40, hash="cw")
    wide = ldp.MECHANISMS.get("olh").over_bits(1.0, 64)
    assert wide.hash_family == "mix64" and wide.d == 2**64


def test_integers_outside_the_domain_are_refused():
    mech = ldp.MECHANISMS.get("olh").over_bits(1.0, 40)
    rng = np.random.default_rng(0)
    with pytest.raises(ldp.LDPError, match="outside"):
        mech.perturb_integers(np.array([2**40], dtype=np.uint64), rng)
    reports = mech.perturb_integers(np.array([2**40 - 1, 0], dtype=np.uint64), rng)
    with pytest.raises(ldp.LDPError, match="outside"):
        mech.estimate_candidates(reports, np.array([2**41], dtype=np.uint64))
    with pytest.raises(ldp.LDPError, match="integers"):
        mech.estimate_candidates(reports, np.array([0.5]))
