"""The background precompute (views/long_work.py): it runs at the lowest CPU priority and swallows its errors."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

import pytest

pytest.importorskip("streamlit")
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from views import long_work  # noqa: E402


@pytest.mark.skipif(not hasattr(os, "getpriority"), reason="thread priorities are POSIX")
def test_the_precompute_thread_yields_the_cores_to_pages():
    seen: dict = {}

    def work() -> None:
        seen["nice"] = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    long_work.precompute(work, delay_s=0).join(timeout=10)
    assert seen["nice"] == 19  # the thread alone is niced ...
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) < 19  # ... the caller's thread is not


def test_an_error_in_the_precompute_does_not_escape_the_thread():
    def work() -> None:
        raise RuntimeError("a study failed")

    thread = long_work.precompute(work, delay_s=0)
    thread.join(timeout=10)
    assert not thread.is_alive()


def test_the_precompute_waits_its_delay_before_it_starts():
    """The precompute leaves the first seconds to the browser drawing the first page (PRECOMPUTE_DELAY_S)."""
    started = threading.Event()
    thread = long_work.precompute(started.set, delay_s=0.5)
    assert not started.wait(timeout=0.2)  # still waiting
    thread.join(timeout=10)
    assert started.is_set()


def test_the_reproduce_precompute_starts_whichever_page_is_opened_first(monkeypatch):
    """app.py starts the Reproduce page's background precompute after the first page a visitor opens — also when
    that page ends the run itself: the Classroom's join form ends with st.stop(), which had skipped it (the Reproduce
    page's first visit then took 13 s instead of ≈ 1 s, benchmarks/bench_pages.py). The studies are replaced by a
    marker here."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    from views import reproduce

    started = threading.Event()
    monkeypatch.setenv("LDP_PRECOMPUTE", "1")
    monkeypatch.setattr(long_work, "PRECOMPUTE_DELAY_S", 0.0)
    monkeypatch.setattr(reproduce, "default_studies", started.set)
    st.cache_resource.clear()  # app.py's only cached resource: "started once per server"
    try:
        at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "app.py"), default_timeout=60)
        at.switch_page("views/classroom.py")
        at.run()
        assert not at.exception
        assert started.wait(timeout=10)
    finally:
        st.cache_resource.clear()  # the next test's process-wide state: precompute off again (LDP_PRECOMPUTE=0)


def _ask_at_once(key: str, compute, callers: int = 6) -> tuple[list, list]:
    """``callers`` threads ask cached_with_progress for ``key`` at the same moment; their results and errors."""
    barrier = threading.Barrier(callers)
    results, errors = [], []

    def ask() -> None:
        barrier.wait()
        try:
            results.append(long_work.cached_with_progress(key, "Computing…", compute))
        except RuntimeError as err:
            errors.append(str(err))

    threads = [threading.Thread(target=ask) for _ in range(callers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return results, errors


def test_sessions_asking_for_the_same_study_at_once_compute_it_once():
    """Ten sessions moving to the same ε asked for the same study at the same moment and each computed it (the
    Reproduce page's b sweep, 12 s instead of ≈ 1 s): the callers that arrive while it runs wait for its result."""
    calls = []

    def compute(progress):
        calls.append(1)
        progress(0.5)
        threading.Event().wait(0.3)  # long enough for every other caller to arrive while it runs
        return {"study": len(calls)}

    results, errors = _ask_at_once("test-dedup", compute)
    assert not errors
    assert len(calls) == 1
    assert all(r is results[0] for r in results) and len(results) == 6
    assert long_work.is_cached("test-dedup")


def test_when_the_run_others_wait_for_fails_the_next_caller_computes_it():
    calls = []

    def compute(progress):
        calls.append(1)
        threading.Event().wait(0.2)
        if len(calls) == 1:
            raise RuntimeError("the first run failed")
        return "second"

    results, errors = _ask_at_once("test-dedup-failure", compute)
    assert errors == ["the first run failed"]  # shown to the caller whose run failed, once
    assert len(calls) == 2 and results == ["second"] * 5  # one waiter computed it again; the rest waited for it


def test_a_study_in_use_is_not_evicted_by_newer_ones(monkeypatch):
    """The cache keeps the studies used most recently (ten sessions on their own seeds each reread theirs on every
    rerun: evicting by age of computation recomputed them again and again)."""
    monkeypatch.setattr(long_work, "_STUDIES", {})
    monkeypatch.setattr(long_work, "_STUDIES_MAX", 3)
    calls = []

    def study(name):
        return lambda progress: calls.append(name) or name

    for name in ("a", "b", "c"):
        long_work.cached_with_progress(name, "…", study(name))
    long_work.cached_with_progress("a", "…", study("a"))  # read again: now the most recent
    long_work.cached_with_progress("d", "…", study("d"))  # evicts b, the least recently used
    assert long_work.is_cached("a") and not long_work.is_cached("b")
    assert calls == ["a", "b", "c", "d"]
