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

    long_work.precompute(work).join(timeout=10)
    assert seen["nice"] == 19  # the thread alone is niced ...
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) < 19  # ... the caller's thread is not


def test_an_error_in_the_precompute_does_not_escape_the_thread():
    def work() -> None:
        raise RuntimeError("a study failed")

    thread = long_work.precompute(work)
    thread.join(timeout=10)
    assert not thread.is_alive()
