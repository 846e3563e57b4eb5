"""Conformance of the lecture's second half, generated over its registries: every heavy-hitter method, every vector
mechanism and every set-valued miner gives the same answer for the same seed, another for another seed, and
validates its input (the ε-LDP boundary and unbiasedness checks of each family are in tests/mechanisms/
test_heavy_hitters.py, test_vector.py and test_set_valued.py)."""

from __future__ import annotations

import numpy as np
import pytest

import ldp
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
