"""The server's heap built at start is frozen out of full collections (views/heap.py), and the collector still
frees what is built afterwards."""

from __future__ import annotations

import gc
import weakref

import pytest

from views.heap import freeze_long_lived


class _Node:
    def __init__(self) -> None:
        self.me = self  # a reference cycle: only the cycle collector frees it


@pytest.fixture
def unfrozen():
    """Give the test process its collector back as it was (the suite is not a server)."""
    yield
    gc.unfreeze()


def test_freezing_moves_the_survivors_out_and_leaves_new_cycles_collectable(unfrozen):
    kept = _Node()
    assert freeze_long_lived()
    frozen = gc.get_freeze_count()
    assert frozen > 0
    assert not any(obj is kept for obj in gc.get_objects())  # no generation scans it any more
    garbage = _Node()
    ref = weakref.ref(garbage)
    del garbage
    gc.collect()
    assert ref() is None  # garbage built after the freeze is still found and freed
    assert gc.get_freeze_count() == frozen


def test_garbage_alive_at_the_freeze_is_collected_first_not_frozen(unfrozen):
    garbage = _Node()
    ref = weakref.ref(garbage)
    del garbage  # unreachable, but in a cycle: only a collection frees it
    assert freeze_long_lived()
    assert ref() is None


def test_switch_leaves_the_collector_alone(monkeypatch, unfrozen):
    monkeypatch.setenv("LDP_FREEZE_HEAP", "0")
    before = gc.get_freeze_count()
    assert not freeze_long_lived()
    assert gc.get_freeze_count() == before
