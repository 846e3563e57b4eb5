"""Server-side latency of a page rerun against the number of sessions rerunning at once (issue 10 item 4; issue
"Fast everywhere" item 7: ε change p95 ≤ 1 s on every page with ten sessions).

Two harnesses:

* **server** (the default): a real server (``streamlit run app.py`` on a free port, started and stopped here, as
  the end-to-end tests start it) and one websocket client per session speaking Streamlit's own protocol, as a
  browser tab does: it sends the ``BackMsg`` a tab sends (the page and its URL query on opening; the ε widget's new
  value on a change) and times from sending until the server's ``script_finished`` — the server's whole rerun,
  the websocket transfer of every element included, without a browser's drawing (which runs on the audience's
  machines). The clients run in this process (one asyncio loop, protobuf parsing in C), the server in its own.
* **apptest**: each session is a Streamlit ``AppTest`` in a script thread of this one process (the same runtime
  and caches, the same GIL). It overstates a rerun: AppTest also builds its element tree (a browser's share) in
  the server's process, and it can model only the burst (an AppTest that ends its run tears down the runtime
  another session's run is still using — "Runtime hasn't been created!").

Every session opens a page at its defaults (the Playground: n = 10⁶ on the fast engine, the flights' 104
airports), then moves the page's main ε control to new values, and the time of each rerun is recorded. Measuring
starts once the server's background precomputation (the Reproduce page's default studies, started by the first
visit) has finished — the server's CPU idle for a second — as on a server that has been up for a minute.

Arrivals (server harness):

* **burst**: all sessions change ε at the same moment, five times (each round waits for every session), the
  worst case: every rerun queues behind the others on the server's one GIL.
* **poisson**: each session changes ε five times after its own think time (exponential, mean ``--think`` s,
  seeded), as people exploring at their own pace: reruns overlap only when their moments happen to.

Scenarios:

* **same**: every session asks for the same ε values with the same seed (a class following the lecturer):
  the collection and the figures' inputs are computed once and served from the shared cache.
* **distinct**: each session has its own seed (the page's seed control, set through the URL), so nothing is
  shared; this is the worst case.

Besides the latencies the server harness prints the server's CPU per rerun (the user + system time of its process
and of its offload workers, views/offload.py, over the row, divided by the reruns): what a rerun costs, whatever
the arrivals and wherever it runs.

Run from the repository root::

    .venv/bin/python benchmarks/bench_concurrency.py                  # the Playground, sessions 1, 2, 5, 10
    .venv/bin/python benchmarks/bench_concurrency.py --quick          # the Playground, sessions 1, 5
    .venv/bin/python benchmarks/bench_concurrency.py --pages all --sessions 10 --scenarios distinct
    .venv/bin/python benchmarks/bench_concurrency.py --harness apptest --pages postprocessing --sessions 10

Nothing asserts; the table is for a human to read. Not run by pytest.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as app.py sets for the server, before numpy is imported

import argparse
import asyncio
import statistics
import sys
import threading
import time
import urllib.parse
from pathlib import Path

import numpy as np
from bench_pages import VIEWS  # the URL that opens the view holding a page's ε control

REPO_ROOT = Path(__file__).resolve().parent.parent
APP = str(REPO_ROOT / "app.py")
ROUNDS = 5
TARGET_S = 1.0
EXTRA: list[str] = []  # extra `streamlit run` options (a comparison run)
#: page → (its main ε control, its seed control); the pages bench_pages.py measures, those with an ε control
PAGES = {
    "playground": ("eps", "seed"),
    "numerical": ("num_eps", "num_seed"),
    "postprocessing": ("pp_eps", "pp_seed"),
    "heavy_hitters": ("hh_eps", "hh_seed"),
    "itemsets": ("is_eps", "is_seed"),
    "vector_means": ("vm_eps", "vm_seed"),
    "learn": ("learn_eps", "learn_w_seed"),
    "story": ("story_eps", "story_seed"),
    "privacy": ("priv_eps0", "priv_audit_seed"),
    "reproduce": ("rp_b_eps", "rp_seed"),
}


def _seed(scenario: str, session: int) -> int:
    return 7 if scenario == "same" else 1000 + session


def _query(page: str, seed: int) -> dict[str, str]:
    return {**VIEWS.get(page, {}), PAGES[page][1]: str(seed)}


def _fresh(options: list, now, used: set) -> list:
    """``ROUNDS`` values never asked before in this run: those above the current one first, then those below."""
    fresh = [o for o in options if o > now and o not in used] + [o for o in options if o < now and o not in used]
    picked = fresh[:ROUNDS]
    used.update(picked)
    return picked


def next_values(widget, used: set[float]) -> list[float]:
    """``ROUNDS`` ε values of an AppTest widget never asked before in this run (its grid's, or steps of its slider)."""
    options = [float(o) for o in getattr(widget, "options", None) or []]
    now = float(widget.value)
    if not options:
        step = float(getattr(widget, "step", None) or 0.01)
        options = [round(now + k * step, 6) for k in range(1, 4 * ROUNDS)]
    return _fresh(options, now, used)


# --- the apptest harness ---------------------------------------------------------------------------------------

def _apptest():
    """AppTest, with one process-wide bytecode cache behind one lock, as a server has.

    A server compiles each page once, in its one ScriptCache (behind a lock), and every later run of every session
    reuses that bytecode; an AppTest compiles the scripts again on every run (0.17 s of CPU per Playground rerun,
    most of it Streamlit's "magic" AST pass), and CPython 3.11's ast.parse is not safe to run in two threads at
    once ("AST constructor recursion depth mismatch")."""
    from streamlit.runtime.scriptrunner import script_cache
    from streamlit.testing.v1 import AppTest

    if not getattr(script_cache.ScriptCache, "_bench_shared", False):
        lock, bytecode, original = threading.Lock(), {}, script_cache.ScriptCache.get_bytecode

        def get_bytecode(self, script_path):  # noqa: ANN001, ANN202
            with lock:
                if script_path not in bytecode:
                    bytecode[script_path] = original(self, script_path)
                return bytecode[script_path]

        script_cache.ScriptCache.get_bytecode = get_bytecode
        script_cache.ScriptCache._bench_shared = True
    return AppTest


def _session(page: str, seed: int):
    at = _apptest().from_file(APP, default_timeout=600)
    at.query_params.update(_query(page, seed))
    at.run()
    at.switch_page(f"views/{page}.py")
    at.run()
    return at


def _eps(at, key: str):
    return next(w for kind in ("slider", "select_slider") for w in getattr(at, kind) if w.key == key)


def _wait_for_precompute() -> None:
    """Join the server's background precomputation (started by the first visit), so it does not load a row."""
    for thread in threading.enumerate():
        if thread.name == "ldp-precompute":
            thread.join()


def run_apptest(page: str, sessions: int, scenario: str, used: set[float]) -> tuple[list[float], float]:
    apps = [_session(page, _seed(scenario, i)) for i in range(sessions)]
    _wait_for_precompute()
    values = next_values(_eps(apps[0], PAGES[page][0]), used)
    barrier = threading.Barrier(sessions)
    times: list[float] = []
    lock = threading.Lock()

    def drive(at) -> None:  # noqa: ANN001
        for eps in values:
            _eps(at, PAGES[page][0]).set_value(eps)
            barrier.wait()
            t = time.perf_counter()
            at.run()
            with lock:
                times.append(time.perf_counter() - t)
            assert not at.exception, at.exception

    threads = [threading.Thread(target=drive, args=(at,)) for at in apps]
    cpu = time.process_time()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return times, (time.process_time() - cpu) / max(1, len(times))


# --- the server harness ----------------------------------------------------------------------------------------

class Tab:
    """One browser tab's conversation with the server, without the browser: Streamlit's websocket protocol."""

    def __init__(self, url: str, page: str, query: dict[str, str], key: str) -> None:
        self.url, self.page, self.key = url, page, key
        self.query = urllib.parse.urlencode(query)
        self.page_hash = ""
        self.widget = None  # the ε control's proto (a Slider: a slider or a select_slider)

    async def open(self) -> float:
        import websockets

        ws_url = self.url.replace("http://", "ws://") + "/_stcore/stream"
        self.ws = await websockets.connect(ws_url, subprotocols=["streamlit"], max_size=None)
        return await self._rerun()

    async def close(self) -> None:
        await self.ws.close()

    def values(self, used: set) -> list:
        from streamlit.proto.Slider_pb2 import Slider

        w = self.widget
        current = (w.value or w.default)[0]
        if w.type == Slider.SELECT_SLIDER:  # options are the labels it shows; its value is the index
            options = [float(o) for o in w.options]
            return _fresh(options, options[int(current)], used)
        now = float(current)
        return _fresh([round(now + k * w.step, 6) for k in range(1, 4 * ROUNDS) if now + k * w.step <= w.max]
                      + [round(now - k * w.step, 6) for k in range(1, 4 * ROUNDS) if now - k * w.step >= w.min],
                      now, used)

    async def set_eps(self, value: float) -> float:
        from streamlit.proto.Slider_pb2 import Slider
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        state = WidgetState(id=self.widget.id)
        if self.widget.type == Slider.SELECT_SLIDER:
            label = next(o for o in self.widget.options if float(o) == value)
            state.string_array_value.data.append(label)
        else:
            state.double_array_value.data.append(value)
        return await self._rerun([state])

    async def _rerun(self, widgets: list | None = None) -> float:
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        msg = BackMsg()
        msg.rerun_script.query_string = self.query
        msg.rerun_script.page_name = self.page
        msg.rerun_script.page_script_hash = self.page_hash
        msg.rerun_script.widget_states.widgets.extend(widgets or [])
        t = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        while True:
            fm = ForwardMsg()
            fm.ParseFromString(await self.ws.recv())
            kind = fm.WhichOneof("type")
            if kind == "navigation":  # the page the server ran: later reruns name it, as a tab does
                self.page_hash = fm.navigation.page_script_hash
            elif kind == "delta" and fm.delta.WhichOneof("type") == "new_element":
                element = fm.delta.new_element
                which = element.WhichOneof("type")
                if which == "exception":
                    raise RuntimeError(f"{self.page}: {element.exception.type}: {element.exception.message}")
                if which == "slider" and element.slider.id.endswith(f"-{self.key}"):
                    self.widget = element.slider
            elif kind == "script_finished" and fm.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                if fm.script_finished != ForwardMsg.FINISHED_SUCCESSFULLY:
                    raise RuntimeError(f"{self.page}: the run ended with status {fm.script_finished}")
                return time.perf_counter() - t


def _server_cpu(pid: int) -> float:
    """The server process's user + system CPU seconds so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _tree_cpu(pid: int) -> float:
    """:func:`_server_cpu` of the server and of its child processes (the offload workers)."""
    total = _server_cpu(pid)
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == pid:
                total += _server_cpu(int(stat.parent.name))
        except (OSError, ValueError, IndexError):  # a process gone meanwhile
            continue
    return total


_background_started = False


def _wait_idle(pid: int, timeout_s: float = 180.0) -> None:
    """Until the server and its workers spend under 5 % of a core for a second: its background work done. The
    first time, not before that work has started: the Reproduce precompute and the offload workers start some
    seconds after the first page (views/long_work.py, views/offload.py), and a quiet second before them had let
    the first row be measured while they ran."""
    global _background_started
    if not _background_started:
        sys.path.insert(0, str(REPO_ROOT))
        from views.long_work import PRECOMPUTE_DELAY_S
        from views.offload import START_DELAY_S

        time.sleep(max(PRECOMPUTE_DELAY_S, START_DELAY_S) + 1.0)
        _background_started = True
    deadline = time.perf_counter() + timeout_s
    while time.perf_counter() < deadline:
        before = _tree_cpu(pid)
        time.sleep(1.0)
        if _tree_cpu(pid) - before < 0.05:
            return


async def _drive(url: str, pid: int, page: str, sessions: int, scenario: str, arrivals: str, think: float,
                 used: set) -> tuple[list[float], float, list[float]]:
    key = PAGES[page][0]
    tabs = [Tab(url, page, _query(page, _seed(scenario, i)), key) for i in range(sessions)]
    first = await asyncio.gather(*(tab.open() for tab in tabs))
    await asyncio.to_thread(_wait_idle, pid)
    values = tabs[0].values(used)
    times: list[float] = []
    cpu = _tree_cpu(pid)
    if arrivals == "burst":
        for value in values:
            times += await asyncio.gather(*(tab.set_eps(value) for tab in tabs))
    else:
        async def explore(i: int, tab: Tab) -> None:
            rng = np.random.default_rng([sessions, i, int(think * 1000)])  # keyed by the session, not by order
            for value in values:
                await asyncio.sleep(rng.exponential(think))
                times.append(await tab.set_eps(value))

        await asyncio.gather(*(explore(i, tab) for i, tab in enumerate(tabs)))
    per_rerun = (_tree_cpu(pid) - cpu) / max(1, len(times))
    await asyncio.gather(*(tab.close() for tab in tabs))
    return times, per_rerun, list(first)


def _start_server():
    sys.path.insert(0, str(REPO_ROOT / "tests" / "e2e"))
    import e2e_harness as h

    return h, h.start_server(REPO_ROOT, log_path=h.ARTIFACTS / "bench-concurrency-server.log", extra_args=tuple(EXTRA))


def _p95(times: list[float]) -> float:
    times = sorted(times)
    return times[min(len(times) - 1, int(0.95 * len(times)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="sessions 1 and 5")
    parser.add_argument("--pages", default="playground", help="comma-separated pages, or 'all' (default playground)")
    parser.add_argument("--sessions", default=None, help="comma-separated session counts (default 1,2,5,10)")
    parser.add_argument("--scenarios", default="same,distinct",
                        help="comma-separated: same (one seed for all sessions), distinct (a seed each); default: both")
    parser.add_argument("--harness", choices=("server", "apptest"), default="server")
    parser.add_argument("--arrivals", default="burst,poisson",
                        help="comma-separated: burst, poisson (server harness; default: both)")
    parser.add_argument("--think", type=float, default=5.0, help="mean think time between a session's changes, s")
    parser.add_argument("--streamlit-option", action="append", default=[], metavar="NAME=VALUE",
                        help="a `streamlit run` option for the server harness, e.g. runner.postScriptGC=true "
                             "(repeatable; to compare a setting against .streamlit/config.toml)")
    args = parser.parse_args()
    for option in args.streamlit_option:
        name, _, value = option.partition("=")
        EXTRA.extend([f"--{name}", value])
    pages = list(PAGES) if args.pages == "all" else [p.strip() for p in args.pages.split(",")]
    default = (1, 5) if args.quick else (1, 2, 5, 10)
    counts = [int(x) for x in args.sessions.split(",")] if args.sessions else default
    arrivals = args.arrivals.split(",") if args.harness == "server" else ["burst"]
    scenarios = args.scenarios.split(",")
    for given, known in ((scenarios, ("same", "distinct")), (arrivals, ("burst", "poisson"))):
        if not set(given) <= set(known):  # "both" once measured one wrong row without a word
            parser.error(f"unknown value(s) {sorted(set(given) - set(known))}: choose from {', '.join(known)}")
    h = server = None
    if args.harness == "server":
        h, server = _start_server()
    print(f"harness: {args.harness} {' '.join(EXTRA)}; {ROUNDS} ε changes per session; "
          f"poisson think time mean {args.think:g} s")
    print(f"{'page':>15}  {'sessions':>8}  {'scenario':>8}  {'arrivals':>8}  {'reruns':>6}  {'median s':>9}  "
          f"{'p95 s':>7}  {'max s':>6}  {'CPU/rerun s':>11}  {'open p95 s':>10}  {'load':>5}  "
          f"target p95 ≤ {TARGET_S:g} s", flush=True)
    try:
        for page in pages:
            used: set[float] = set()  # new ε values each row: no row is served from an earlier row's cache
            for scenario in scenarios:
                for arrival in arrivals:
                    for k in counts:
                        if server is not None:
                            times, cpu, first = asyncio.run(_drive(server.url, server.process.pid, page, k, scenario,
                                                                   arrival, args.think, used))
                            opened = f"{_p95(first):>10.3f}"
                        else:
                            (times, cpu), opened = run_apptest(page, k, scenario, used), f"{'—':>10}"
                        p95 = _p95(times)
                        print(f"{page:>15}  {k:>8}  {scenario:>8}  {arrival:>8}  {len(times):>6}  "
                              f"{statistics.median(times):>9.3f}  {p95:>7.3f}  {max(times):>6.3f}  {cpu:>11.3f}  "
                              f"{opened}  {os.getloadavg()[0]:>5.2f}  {'PASS' if p95 <= TARGET_S else 'FAIL'}",
                              flush=True)
    finally:
        if server is not None:
            h.stop_server(server)


if __name__ == "__main__":
    main()
