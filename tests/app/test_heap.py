"""The server's heap built at start is frozen out of full collections (views/heap.py), and the collector still
frees what is built afterwards."""

from __future__ import annotations

import gc
import weakref

import pytest

from views import heap
from views.heap import first_imports, freeze_long_lived, imports_kept


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


def test_start_up_imports_run_without_collections_and_are_frozen_after(unfrozen):
    collections = []

    def count(phase, info):  # noqa: ANN001, ARG001
        if phase == "start":
            collections.append(info["generation"])

    gc.collect()
    gc.callbacks.append(count)
    try:
        with imports_kept():
            assert not gc.isenabled()
            built = [_Node() for _ in range(50_000)]  # would trigger young collections with the collector on
            assert not collections
        assert gc.isenabled()
    finally:
        gc.callbacks.remove(count)
    assert not any(obj is built[0] for obj in gc.get_objects())  # frozen: no generation scans it any more
    assert gc.get_freeze_count() >= len(built)


def test_start_up_imports_leave_a_collector_that_was_off_off(unfrozen):
    gc.disable()
    try:
        with imports_kept():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_blocks_running_at_once_turn_the_collector_back_on_when_the_last_ends(unfrozen):
    first, second = imports_kept(), imports_kept()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)
    assert not gc.isenabled()  # the second block still runs
    second.__exit__(None, None, None)
    assert gc.isenabled()


def test_start_up_imports_switch_leaves_the_collector_alone(monkeypatch, unfrozen):
    monkeypatch.setenv("LDP_FREEZE_HEAP", "0")
    before = gc.get_freeze_count()
    with imports_kept():
        assert gc.isenabled()
    assert gc.get_freeze_count() == before


def test_only_a_process_first_imports_block_is_kept(monkeypatch, unfrozen):
    """app.py runs again on every rerun: only its first block turns the collector off and freezes; a later one (a
    rerun, whose other sessions' objects must stay collectable) changes nothing."""
    monkeypatch.setattr(heap, "_first_done", False)
    with first_imports():
        assert not gc.isenabled()
    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    with first_imports():
        assert gc.isenabled()
        kept = [_Node() for _ in range(1_000)]
    assert gc.get_freeze_count() == frozen and kept
