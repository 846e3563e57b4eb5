"""Work handed to worker processes (views/offload.py): the same numbers as in this process, its errors raised here,
a broken pool replaced by a call here, and no worker re-running the server's page script."""

from __future__ import annotations

import json
import os
import runpy
import signal
import threading
import time
from pathlib import Path

import numpy as np
import plotly.io as pio
import pytest

import ldp
from ldp.core.errors import InvalidInput
from ldp.studies import comparison
from ldp.studies.heavy_hitters import zipf_values
from ldp.viz import estimator_comparison
from ldp.viz.style import figure_spec
from views import offload, output


@pytest.fixture
def pool(monkeypatch):
    """A real pool of one worker, ready."""
    monkeypatch.setenv("LDP_OFFLOAD", "1")
    monkeypatch.setenv("LDP_OFFLOAD_WORKERS", "1")
    monkeypatch.setattr(offload, "START_DELAY_S", 0.0)
    assert offload.start()
    deadline = time.monotonic() + 120
    while not offload.ready() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert offload.ready(), "the worker did not start"
    yield
    offload.stop()


def test_a_call_runs_in_a_worker_and_gives_the_numbers_of_a_call_here(pool):
    assert offload.call(os.getpid) != os.getpid()
    mech = ldp.get_mechanism("oue", 1.0, 16)
    counts = np.arange(1, 17) * 100
    there = offload.call(comparison.run_trials, mech, counts, ("mi", "norm-sub"), engine="fast", seed=7, trials=3)
    here = comparison.run_trials(mech, counts, ("mi", "norm-sub"), engine="fast", seed=7, trials=3)
    assert there.estimates.keys() == here.estimates.keys()
    for name in here.estimates:
        np.testing.assert_array_equal(there.estimates[name], here.estimates[name])  # bit for bit: same seeds


def test_a_worker_ignores_ctrl_c_and_leaves_it_to_the_server(pool):
    """Ctrl+C in the terminal of ./dev app reaches the server and its workers: the workers ignore it (each printed a
    KeyboardInterrupt traceback) and exit with the server instead (_exit_with_parent's watcher)."""
    assert offload.call(signal.getsignal, signal.SIGINT) == signal.SIG_IGN
    assert signal.getsignal(signal.SIGINT) != signal.SIG_IGN  # the server's own handling is left as it was


def test_an_error_in_the_worker_is_raised_here(pool):
    with pytest.raises(InvalidInput, match="no_such_mechanism"):
        offload.call(ldp.get_mechanism, "no_such_mechanism", 1.0, 4)
    assert offload.ready()  # an error of the work leaves the pool as it was


def test_a_killed_worker_is_dropped_and_the_call_made_here(pool):
    worker = offload.call(os.getpid)
    os.kill(worker, signal.SIGKILL)
    time.sleep(0.5)
    assert offload.call(os.getpid) == os.getpid()  # made here
    assert not offload.ready()


def test_the_exact_engine_stays_here_where_closing_its_tab_stops_it(pool):
    assert offload.for_engine("fast")(os.getpid) != os.getpid()
    assert offload.for_engine("exact")(os.getpid) == os.getpid()


@pytest.mark.parametrize("raw", ["0", "-1", "two", "1.5", "100000"])
def test_a_bad_worker_count_is_refused_in_one_line_before_any_process_starts(monkeypatch, raw):
    monkeypatch.setenv("LDP_OFFLOAD", "1")
    monkeypatch.setenv("LDP_OFFLOAD_WORKERS", raw)
    with pytest.raises(InvalidInput, match=r"^LDP_OFFLOAD_WORKERS must be a whole number from 1 to \d+ .*got") as err:
        offload.start()
    assert "\n" not in str(err.value) and offload._pool is None


def test_switched_off_everything_runs_here(monkeypatch):
    monkeypatch.setenv("LDP_OFFLOAD", "0")
    assert not offload.start() and not offload.ready()
    assert offload.call(os.getpid) == os.getpid()


def test_a_worker_re_importing_app_py_draws_nothing_and_starts_nothing(monkeypatch):
    """A process multiprocessing starts from the server (spawn, forkserver) first re-imports the server's __main__,
    app.py, as __mp_main__: it defines the app and draws nothing — no page, no precompute, no worker pool of its
    own (a first version started one in every worker, and their workers theirs)."""
    monkeypatch.setenv("LDP_PRECOMPUTE", "1")  # what a server would start, were the script drawn
    monkeypatch.setenv("LDP_OFFLOAD", "1")
    before = {t.name for t in threading.enumerate()}
    namespace = runpy.run_path(str(Path(__file__).resolve().parents[2] / "app.py"), run_name="__mp_main__")
    assert callable(namespace["main"]) and namespace["PAGES"]
    assert {t.name for t in threading.enumerate()} - before == set()
    assert offload._pool is None


def test_a_worker_logs_only_streamlits_errors(monkeypatch):
    """A worker re-importing app.py as __mp_main__ turns Streamlit's log down to errors: its imports of the pages'
    modules, outside any run, each logged a warning ("No runtime found", "missing ScriptRunContext"), 26-34 lines in
    the terminal of every ./dev app."""
    import logging

    from streamlit import logger as streamlit_logger

    monkeypatch.setattr(streamlit_logger, "_global_log_level", streamlit_logger._global_log_level)
    for log in streamlit_logger._loggers.values():
        monkeypatch.setattr(log, "level", log.level)
    app = str(Path(__file__).resolve().parents[2] / "app.py")
    runpy.run_path(app, run_name="__mp_main__")
    assert streamlit_logger.get_logger("streamlit.runtime.caching.cache_data_api").level == logging.ERROR
    assert streamlit_logger._global_log_level == logging.ERROR


@pytest.mark.parametrize("default", ["plotly_white", "streamlit", None])  # Plotly's own (sent by name), another
def test_a_figure_built_elsewhere_sends_the_spec_a_figure_built_here_sends(pool, default, monkeypatch):
    import streamlit  # noqa: F401 - registers its "streamlit" template here (not in the worker)

    monkeypatch.setattr(pio.templates, "default", default)
    run = comparison.run_trials(ldp.get_mechanism("grr", 2.0, 6), np.array([50, 40, 30, 20, 10, 5]), ("mi", "norm-sub"),
                           engine="fast", seed=3, trials=4)
    table = comparison.per_value_table(run, list("abcdef"), {"mi": "MI", "norm-sub": "Norm-Sub"})
    there = output.built_elsewhere(estimator_comparison.variance_figure, table, title="variance")
    here = output.share_figure(estimator_comparison.variance_figure(table, title="variance"))
    spec = figure_spec(estimator_comparison.variance_figure, table, title="variance")
    sent = [pio.to_json(s, validate=False) for s in (there.to_dict(), here.to_dict(), spec)]  # what plotly_chart sends
    # the same JSON object: the declared specs (worker and here) keep the builder's key order, a go.Figure its own
    assert json.loads(sent[0]) == json.loads(sent[1]) == json.loads(sent[2]) and sent[0] == sent[2]
    assert getattr(there, output._SHARED)  # never changed by show_figure
    assert ('"template":{"data"' in sent[0]) is (default is not None)  # built with this process's default


def test_the_heavy_hitters_page_sends_a_short_run_to_the_pool_and_keeps_a_long_one_here(pool, monkeypatch):
    """views/heavy_hitters.py: a run of at most OFFLOAD_USER_BITS user-bits (n·m) is made by a worker, a longer one
    here (its bar advancing each round); both give the same run for the same seed."""
    from views import heavy_hitters as page

    values = zipf_values(2_000, 16, seed=3)
    made: list[int] = []
    real = offload.call
    monkeypatch.setattr(offload, "call", lambda fn, *a, **k: made.append(real(os.getpid)) or real(fn, *a, **k))
    monkeypatch.setattr(page, "OFFLOAD_USER_BITS", 2_000 * 16)
    there = page._run(("test-offload", 1), values, 16, 2_000, 4, 5, "pem", 2.0, ())
    assert made and made[0] != os.getpid()  # the call went to the worker
    monkeypatch.setattr(page, "OFFLOAD_USER_BITS", 2_000 * 16 - 1)
    here = page._run(("test-offload", 2), values, 16, 2_000, 4, 5, "pem", 2.0, ())
    assert len(made) == 1  # not offloaded
    assert np.array_equal(there.result.values, here.result.values) and there.scores == here.scores
