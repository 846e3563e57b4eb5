"""The dashboard with its worker process (views/offload.py) on a real server: the pool starts after the first page,
the Numerical and Post-processing pages redraw when ε moves while their simulations, metrics and figures are
computed by the worker, and no worker outlives the server, shut down or killed."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Iterator

import pytest
from e2e_harness import (
    Server,
    chart_signatures,
    epsilon_slider,
    errors,
    exceptions,
    open_page,
    rerun,
    slider_text,
    start_server,
    stop_server,
    wait_for_chart_change,
    wait_for_charts,
    wait_idle,
)

pytestmark = pytest.mark.e2e


def _workers(pid: int) -> list[str]:
    found = subprocess.run(["pgrep", "-P", str(pid), "-f", "multiprocessing.spawn"], capture_output=True, text=True)
    return found.stdout.split()


@contextlib.contextmanager
def _server_with_workers(page, monkeypatch, count: int) -> Iterator[tuple[Server, list[str]]]:
    """A server with ``count`` workers, its first page opened (the pool starts after it) and its workers started;
    the server and their process ids. The server is stopped afterwards."""
    monkeypatch.setenv("LDP_OFFLOAD", "1")
    monkeypatch.setenv("LDP_OFFLOAD_WORKERS", str(count))
    server = start_server()
    try:
        open_page(page, server)
        wait_for_charts(page)
        deadline = time.monotonic() + 120
        while len(workers := _workers(server.process.pid)) < count and time.monotonic() < deadline:
            time.sleep(0.2)
        assert len(workers) == count, "the workers did not start after the first page"
        yield server, workers
    finally:
        stop_server(server)


def test_pages_redraw_with_their_work_in_the_worker_and_no_worker_outlives_the_server(page, monkeypatch):
    with _server_with_workers(page, monkeypatch, 1) as (server, workers):
        time.sleep(5)  # its warm-up imports (the engine, SciPy's signal and optimize): then work goes there
        cpu = _cpu_seconds(int(workers[0]))
        for path in ("numerical", "postprocessing"):
            open_page(page, server, path)
            wait_for_charts(page, minimum=2)
            before, eps = chart_signatures(page), slider_text(epsilon_slider(page))

            def step() -> None:
                slider = epsilon_slider(page)
                slider.focus()
                page.keyboard.press("ArrowLeft")

            rerun(page, step)
            wait_for_chart_change(page, before)
            wait_idle(page)
            assert slider_text(epsilon_slider(page)) != eps
            assert not exceptions(page) and not errors(page), f"{path}: {exceptions(page) + errors(page)}"
        assert _cpu_seconds(int(workers[0])) - cpu > 0.05, "no work reached the worker"
    time.sleep(2)
    assert not any(_alive(int(pid)) for pid in workers), "a worker outlived its server"


def test_no_worker_outlives_a_killed_server(page, monkeypatch):
    """A server killed outright (no shutdown) takes its workers with it: each watches its parent."""
    with _server_with_workers(page, monkeypatch, 2) as (server, workers):
        server.process.send_signal(signal.SIGKILL)
        server.process.wait(timeout=10)
        deadline = time.monotonic() + 10
        while any(_alive(int(pid)) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(int(pid)) for pid in workers), "a worker outlived its killed server"


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
