"""Server-side latency of a page rerun against the number of sessions rerunning at once (issue 10 item 4).

Each session is a Streamlit ``AppTest`` running ``app.py`` in its own script thread of this one process —
the same runtime, the same process-wide ``st.cache_data`` caches, the same GIL and 2 cores a server has —
without a browser, so the numbers are the server's share of a rerun (what a browser adds — websocket
transfer, Plotly drawing — runs on the audience's machines, not on the server). Every session opens the
Playground at its defaults (n = 10⁶ on the fast engine, the flights' 104 airports), then moves ε to five new
values, all sessions at the same moment (a barrier), and the time of each rerun is recorded.

Two scenarios:

* **same**: every session asks for the same ε values with the same seed (a class following the lecturer):
  the collection and the figures' inputs are computed once and served from the shared cache.
* **distinct**: each session has its own seed, so nothing is shared; this is the worst case.

Run from the repository root::

    .venv/bin/python benchmarks/bench_concurrency.py            # sessions 1, 2, 5, 10
    .venv/bin/python benchmarks/bench_concurrency.py --quick    # sessions 1, 5

Nothing asserts; the table is for a human to read. Not run by pytest.
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time
from pathlib import Path

from streamlit.runtime.scriptrunner import script_cache
from streamlit.testing.v1 import AppTest

# A server compiles each page once, in its one ScriptCache (behind a lock), and every later run of every session
# reuses that bytecode; an AppTest compiles the scripts again on every run (0.17 s of CPU per Playground rerun,
# most of it Streamlit's "magic" AST pass), and CPython 3.11's ast.parse is not safe to run in two threads at once
# ("AST constructor recursion depth mismatch"). One process-wide cache behind one lock makes the harness behave
# like the server.
_COMPILE = threading.Lock()
_BYTECODE: dict[str, object] = {}
_get_bytecode = script_cache.ScriptCache.get_bytecode


def _server_get_bytecode(self, script_path):  # noqa: ANN001, ANN202
    with _COMPILE:
        if script_path not in _BYTECODE:
            _BYTECODE[script_path] = _get_bytecode(self, script_path)
        return _BYTECODE[script_path]


script_cache.ScriptCache.get_bytecode = _server_get_bytecode

APP = str(Path(__file__).resolve().parent.parent / "app.py")
EPSILONS = (1.2, 1.4, 1.6, 1.8, 2.0)
TARGET_S = 1.0


def _session(seed: int) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=600)
    at.query_params.update({"seed": str(seed)})
    at.run()
    at.switch_page("views/playground.py")
    at.run()
    return at


def _eps(at: AppTest):
    return next(w for kind in ("slider", "select_slider") for w in getattr(at, kind) if w.key == "eps")


def run(sessions: int, scenario: str, offset: float) -> list[float]:
    apps = [_session(7 if scenario == "same" else 1000 + i) for i in range(sessions)]
    barrier = threading.Barrier(sessions)
    times: list[float] = []
    lock = threading.Lock()

    def drive(at: AppTest) -> None:
        for eps in EPSILONS:
            _eps(at).set_value(round(eps + offset, 2))
            barrier.wait()
            t = time.perf_counter()
            at.run()
            with lock:
                times.append(time.perf_counter() - t)
            assert not at.exception, at.exception

    threads = [threading.Thread(target=drive, args=(at,)) for at in apps]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    counts = (1, 5) if args.quick else (1, 2, 5, 10)
    print(f"{'sessions':>8}  {'scenario':>8}  {'reruns':>6}  {'median s':>9}  {'p95 s':>7}  {'max s':>6}  "
          f"target p95 ≤ {TARGET_S:g} s")
    offset = 0.0
    for scenario in ("same", "distinct"):
        for k in counts:
            offset += 0.01  # new ε values each row: no row is served from an earlier row's cache
            times = sorted(run(k, scenario, offset))
            p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
            print(f"{k:>8}  {scenario:>8}  {len(times):>6}  {statistics.median(times):>9.3f}  {p95:>7.3f}  "
                  f"{times[-1]:>6.3f}  {'PASS' if p95 <= TARGET_S else 'FAIL'}", flush=True)


if __name__ == "__main__":
    main()
