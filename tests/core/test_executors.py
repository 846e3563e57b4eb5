"""run_ordered: results in task order on every executor, batching from the first task's time, progress, cancel,
and one-line errors for bad settings."""

from __future__ import annotations

import time

import pytest

from ldp.core.errors import LDPError
from ldp.core.executors import Cancelled, run_ordered


def square(x: int) -> int:
    return x * x


def slow_square(x: int) -> int:
    time.sleep(0.002)
    return x * x


def test_serial_yields_in_order_with_progress():
    seen = []
    out = list(run_ordered(square, range(10), progress=lambda done, total: seen.append((done, total))))
    assert out == [x * x for x in range(10)]
    assert seen[-1] == (10, 10) and [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_process_pool_keeps_the_order_and_batches_by_the_first_tasks_time():
    """2 ms per task and a 50 ms target: batches of 25 tasks; 200 tasks on 2 workers, results in task order."""
    progress = []
    out = list(run_ordered(slow_square, range(200), executor="processes", workers=2, serial_below=0.0,
                           progress=lambda done, total: progress.append(done)))
    assert out == [x * x for x in range(200)]
    assert progress[0] == 1 and progress[-1] == 200
    assert len(progress) < 40  # one call per batch after the first task, not per task


def test_cancel_stops_between_batches():
    calls = {"n": 0}

    def cancel() -> bool:
        calls["n"] += 1
        return calls["n"] > 3

    got = []
    with pytest.raises(Cancelled):
        for value in run_ordered(slow_square, range(100), cancel=cancel):
            got.append(value)
    assert got == [x * x for x in range(len(got))] and 0 < len(got) < 100


def test_bad_settings_are_one_line_errors():
    with pytest.raises(LDPError, match="unknown executor"):
        list(run_ordered(square, [1], executor="threads"))
    with pytest.raises(LDPError, match="scheduler address"):
        list(run_ordered(square, [1], executor="dask"))
    with pytest.raises(LDPError, match="workers"):
        list(run_ordered(square, [1], executor="processes", workers=0))
    assert list(run_ordered(square, [])) == []
