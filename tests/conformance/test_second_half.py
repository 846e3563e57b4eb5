"""Conformance of the lecture's second half, generated over its registries: every heavy-hitter method, every vector
mechanism and every set-valued miner gives the same answer for the same seed, another for another seed, and
validates its input; every registered protocol's clients are ε-LDP at the boundary on their exact channels
(``Protocol.client_channels``). The vector mechanisms' boundary is the mechanism suite's (tests/conformance/
test_privacy.py, Duchi's exact sign channel in tests/mechanisms/test_vector.py); unbiasedness of each family is in
tests/mechanisms/test_heavy_hitters.py, test_vector.py and test_set_valued.py."""

from __future__ import annotations

import numpy as np
import pytest

import ldp
from ldp.mechanisms.base import channel_privacy_loss
from ldp.mechanisms.protocol import protocols_of
from ldp.mechanisms.vector import vector_mechanism
from ldp.studies import itemsets
from ldp.studies.heavy_hitters import find_heavy_hitters, zipf_values


@pytest.mark.parametrize("name", [c.name for c in protocols_of("heavy-hitters")])
def test_heavy_hitter_methods_are_seeded(name):
    values = zipf_values(20_000, 12, distinct=200, seed=0)
    a, b, c = (find_heavy_hitters(name, 1.0, values, bits=12, top_k=4, seed=s) for s in (1, 1, 2))
    assert a.result.found() == b.result.found()
    assert [r.estimates.tolist() for r in a.result.rounds] != [r.estimates.tolist() for r in c.result.rounds]
    with pytest.raises(ldp.LDPError):
        find_heavy_hitters(name, 1.0, np.array([-1, 2]), bits=12, top_k=4)


@pytest.mark.parametrize("name", [cls.name for cls in ldp.mechanisms_of("vector")])
def test_vector_mechanisms_are_seeded(name):
    mech = vector_mechanism(name, 1.0, 3)
    x = np.random.default_rng(0).uniform(-1, 1, (2_000, 3))
    a, b, c = (mech.estimate_mean(x, np.random.default_rng(s)) for s in (5, 5, 6))
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    assert mech.worst_case_variance() >= float(np.max(mech.variance(x)))
    with pytest.raises(ldp.LDPError):
        mech.estimate_mean(x * 3, np.random.default_rng(0))


@pytest.mark.parametrize("method", [cls.name for cls in protocols_of("itemsets")])
@pytest.mark.parametrize("engine", ["exact", "fast"])
def test_set_valued_miners_are_seeded_on_both_engines(method, engine):
    """Every registered itemset miner (PROTOCOLS, kind itemsets), through its one ``run`` interface."""
    miner = ldp.PROTOCOLS.get(method)
    sets = itemsets.synthetic_sets(20_000, 50 if miner.max_items is None else min(10, miner.max_items), seed=0)
    extra = {"length": 2} if "length" in {p.name for p in miner.declared_parameters} else {}
    a, b, c = (miner.run(sets, 2.0, top_k=4, seed=s, engine=engine, **extra) for s in (1, 1, 2))
    assert a.items == b.items and np.array_equal(a.estimates, b.estimates)
    assert not np.array_equal(a.estimates, c.estimates)
    with pytest.raises(ldp.LDPError, match="unknown parameter"):
        miner.run(sets, 2.0, top_k=4, nonsense=1)
    with pytest.raises(ldp.LDPError):
        miner.run(sets, -1.0, top_k=4)


@pytest.mark.parametrize("kind", list(ldp.PROTOCOL_KINDS))
def test_every_protocol_declares_what_the_listing_needs(kind):
    for cls in protocols_of(kind):
        assert cls.kind == kind and cls.collection in ("interactive", "one-time")
        for attr in ("name", "display_name", "description", "paper", "client", "cli_command"):
            assert isinstance(getattr(cls, attr), str) and getattr(cls, attr), (cls.name, attr)
        assert [p["name"] for p in cls.parameters_info()][0] == "epsilon"
        assert cls.name not in ldp.MECHANISMS  # one name, one component


EPSILONS = (0.3, 1.0, 2.5)
BOUNDARY = 1e-6  # the claim must fail at ε·(1 − BOUNDARY), as the mechanism suite's


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("name", [cls.name for kind in ldp.PROTOCOL_KINDS for cls in protocols_of(kind)])
def test_every_protocol_client_is_epsilon_ldp_at_the_boundary(name, epsilon):
    """OpenDP-style, over every registered protocol: each round's exact client channel (one matrix per public choice
    the server makes independently of the user's value: her round, the node or bit position asked, the padding
    length) has rows summing to 1 and a privacy loss of at most ε, and the protocol spends its budget — some channel
    reaches ε·(1 − 10⁻⁶), so a claim just below ε would be violated. A user reports in one round only (the groups
    are disjoint), so the largest loss over the channels is the protocol's.
    Tolerance: the entries are products and sums of a few float64 probabilities ≥ 10⁻⁶ (small instances), so a log
    ratio carries an error of a few ulps of its magnitude, |δ| ≤ 2⁻⁴⁶·max(1, max |ln Pr|) as in test_privacy.py,
    < 10⁻¹² here — far below the 10⁻⁶·ε that keeps the boundary decidable."""
    check_client_channels(name, ldp.PROTOCOLS.get(name).client_channels(epsilon), epsilon)


def check_client_channels(name: str, channels: list[tuple[str, np.ndarray]], epsilon: float) -> None:
    assert channels, f"{name} declares no client channel"
    losses = []
    for label, matrix in channels:
        assert matrix.ndim == 2 and matrix.shape[0] >= 2 and np.all(matrix >= 0), (name, label)
        np.testing.assert_allclose(matrix.sum(axis=1), 1.0, atol=1e-12, err_msg=f"{name}: {label}")
        tol = 2.0 ** -46 * max(1.0, float(np.abs(np.log(matrix[matrix > 0])).max()))
        loss = channel_privacy_loss(matrix)
        assert loss <= epsilon + tol, f"{name} leaks in {label}: loss {loss!r} > ε = {epsilon}"
        losses.append(loss)
    assert max(losses) > epsilon * (1 - BOUNDARY), f"{name} wastes budget: largest loss {max(losses)!r} < ε(1 − 1e-6)"


def test_the_check_catches_a_leak_and_a_waste():
    """The check can fail both ways: PSFO's GRR at the amplified ε′ without the sampling (ℓ = 3, every user reporting
    her first item) leaks ε′ = ln(3(e − 1) + 1) ≈ 1.85 > ε = 1; PSFO at ε = 1 claimed as ε = 1.01 wastes budget."""
    from ldp.mechanisms.set_valued import PaddingSampling

    psfo = PaddingSampling(1.0, 4, 3, "grr")
    with pytest.raises(AssertionError, match="leaks"):
        check_client_channels("unsampled", [("GRR at ε′", psfo.mechanism.channel()[0])], 1.0)
    check_client_channels("psfo", [("ℓ = 3", psfo.channel()[0])], 1.0)
    with pytest.raises(AssertionError, match="wastes budget"):
        check_client_channels("psfo", [("ℓ = 3", psfo.channel()[0])], 1.01)
