"""Work handed to worker processes (views/offload.py): the same numbers as in this process, its errors raised here,
a broken pool replaced by a call here, and no worker re-running the server's page script."""

from __future__ import annotations

import os
import signal
import sys
import time
from multiprocessing import spawn

import numpy as np
import plotly.io as pio
import pytest

import ldp
from ldp.core.errors import InvalidInput
from ldp.studies import comparison
from ldp.viz import estimator_comparison
from ldp.viz.style import figure_spec
from views import offload, output


@pytest.fixture
def pool(monkeypatch):
    """A real pool of one worker, ready."""
    monkeypatch.setenv("LDP_OFFLOAD", "1")
    monkeypatch.setattr(offload, "WORKERS", 1)
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


def test_switched_off_everything_runs_here(monkeypatch):
    monkeypatch.setenv("LDP_OFFLOAD", "0")
    assert not offload.start() and not offload.ready()
    assert offload.call(os.getpid) == os.getpid()


def test_while_workers_start_main_names_no_script(monkeypatch):
    """A spawned worker re-imports its parent's __main__ — in a server, app.py: while workers start, spawn finds
    none to import, and the page's own __main__ is back afterwards."""
    page = type(sys)("__main__")
    page.__file__ = "/somewhere/app.py"
    monkeypatch.setitem(sys.modules, "__main__", page)
    assert "init_main_from_path" in spawn.get_preparation_data("x")  # what a worker would otherwise run
    with offload._no_main_script():
        data = spawn.get_preparation_data("x")
        assert "init_main_from_path" not in data and data["init_main_from_name"].endswith(".__main__")
    assert sys.modules["__main__"] is page


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
    assert sent[0] == sent[1] == sent[2]
    assert getattr(there, output._SHARED)  # never changed by show_figure
    assert ('"template":{"data"' in sent[0]) is (default is not None)  # built with this process's default
