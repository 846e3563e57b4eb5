"""Server time of every dashboard page (Streamlit's AppTest, no browser): the first visit on a warm server and one
ε change (plain-text table on stdout, progress on stderr).

Run from the repository root::

    .venv/bin/python benchmarks/bench_pages.py                          # every page
    .venv/bin/python benchmarks/bench_pages.py --pages heavy_hitters privacy
    .venv/bin/python benchmarks/bench_pages.py --compare /tmp/old-tree  # another checkout, side by side

Each page runs in a fresh Python process (empty ``st.cache_data`` / ``st.cache_resource``, like a server that has
not shown that page yet) that has already imported Streamlit, the ``ldp`` package and ``views.common`` ("a warm
server": the imports of the first page any visitor opened are done) and has run the app once on its lightest page
(the Learn page is not chosen for that: it is measured too; the warm-up runs the Classroom page, which computes
nothing). Then:

  1. first visit: ``AppTest`` switches to the page and runs the script once (every section drawn, caches empty).
     Target ≤ 2 s (Reproduce ≤ 4 s: its default studies are precomputed once per server in a background thread
     started by app.py; its row waits for that thread before the visit, as on a server up for a minute, and says
     how long it took. The other rows run with LDP_PRECOMPUTE=0 so that thread does not load them).
  2. one ε change: the page's main ε control moved to the next value of the grid (never computed before), then
     one rerun. Target ≤ 1 s.

Times are server time only (the script's run, not the browser's drawing); they vary 3–5x with the machine's load,
so the load average is printed beside every row. Nothing here asserts: PASS/FAIL are for a human to read.
Not run by pytest.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent

#: page script → (the key of its main ε control, first-visit target in seconds)
PAGES: dict[str, tuple[str | None, float]] = {
    "playground": ("eps", 2.0),
    "tradeoff": (None, 2.0),  # ε is an axis here: the sweep runs on a click (measured by bench_dashboard.py)
    "numerical": ("num_eps", 2.0),
    "postprocessing": ("pp_eps", 2.0),
    "heavy_hitters": ("hh_eps", 2.0),
    "itemsets": ("is_eps", 2.0),
    "vector_means": ("vm_eps", 2.0),
    "learn": ("learn_eps", 2.0),
    "story": ("story_eps", 2.0),
    "privacy": ("priv_eps0", 2.0),  # the shuffle section's ε₀: the costliest ε of the page
    "classroom": (None, 2.0),
    "reproduce": ("rp_b_eps", 4.0),
}
EPS_TARGET_S = 1.0
#: page → the URL query parameters that open the view holding its ε control (Reproduce's is on its Square-wave tab;
#: its first visit is measured on that tab)
VIEWS: dict[str, dict[str, str]] = {
    "reproduce": {"rp_paper": "Square-wave paper"},
}

CHILD = r"""
import json, os, sys, time
root, page, key, view = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
os.chdir(root)
sys.path.insert(0, root)
import streamlit  # noqa: F401  (the warm server's imports)
from streamlit.testing.v1 import AppTest
import ldp  # noqa: F401
import views.common  # noqa: F401

def load():
    return open("/proc/loadavg").read().split()[0]

warm = AppTest.from_file(os.path.join(root, "app.py"), default_timeout=600)
warm.switch_page("views/classroom.py")
t = time.perf_counter()
warm.run()
import threading
for thread in threading.enumerate():  # the server's background precomputation (Reproduce only), if any
    if thread.name == "ldp-precompute":
        thread.join()
out = {"load_first": load(), "precompute": time.perf_counter() - t}
at = AppTest.from_file(os.path.join(root, "app.py"), default_timeout=600)
at.query_params.update(view)
at.switch_page(f"views/{page}.py")
t = time.perf_counter()
at.run()
out["first"] = time.perf_counter() - t
out["error"] = [str(e.value)[:200] for e in at.exception]
if key != "-":
    widgets = [w for kind in ("select_slider", "slider", "selectbox", "number_input") for w in getattr(at, kind)
               if w.key == key]
    if widgets:
        w = widgets[0]
        options = list(w.options) if hasattr(w, "options") else []
        grid = [float(o) for o in options] if options else []
        now = float(w.value)
        nxt = next((g for g in grid if g > now), None) or max(g for g in grid if g < now)
        w.set_value(nxt)
        out["load_eps"] = load()
        t = time.perf_counter()
        at.run()
        out["eps"] = time.perf_counter() - t
        out["eps_values"] = f"{now:g} -> {nxt:g}"
        out["error"] += [str(e.value)[:200] for e in at.exception]
    else:
        out["eps_values"] = f"no widget {key}"
print("RESULT " + json.dumps(out))
"""


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def measure(root: Path, page: str, key: str | None) -> dict:
    # the Reproduce page's background precomputation runs in its own row only (it would load the others' rows)
    env = {**os.environ, "PYTHONPATH": str(root), "LDP_PRECOMPUTE": "1" if page == "reproduce" else "0",
           "OPENBLAS_NUM_THREADS": "1"}  # as app.py sets for the server (numpy is imported before app.py runs)
    proc = subprocess.run([sys.executable, "-c", CHILD, str(root), page, key or "-",
                           json.dumps(VIEWS.get(page, {}))], capture_output=True, text=True,
                          cwd=root, env=env, timeout=1800)
    line = next((x for x in proc.stdout.splitlines() if x.startswith("RESULT ")), None)
    if line is None:
        return {"error": [proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "no result"]}
    return json.loads(line[len("RESULT "):])


def fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:6.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", nargs="*", default=list(PAGES), choices=list(PAGES))
    parser.add_argument("--compare", type=Path, help="another checkout (e.g. `git archive` of an older commit), "
                                                     "measured right before this one, page by page")
    args = parser.parse_args()
    trees = ([("before", args.compare.resolve())] if args.compare else []) + [("now", REPO_ROOT)]
    print(f"{'page':16} {'tree':7} {'first (s)':>9} {'target':>6} {'':4} {'ε change (s)':>12} {'':4} "
          f"{'ε':13} {'load avg':>13}  errors")
    for page in args.pages:
        key, target = PAGES[page]
        for name, root in trees:
            log(f"{page} on {name} ({root}) …")
            r = measure(root, page, key)
            first, eps = r.get("first"), r.get("eps")
            print(f"{page:16} {name:7} {fmt(first):>9} {target:6.1f} "
                  f"{'' if first is None else ('PASS' if first <= target else 'FAIL'):4} {fmt(eps):>12} "
                  f"{'' if eps is None else ('PASS' if eps <= EPS_TARGET_S else 'FAIL'):4} "
                  f"{r.get('eps_values', '-'):13} {r.get('load_first', '-'):>6} {r.get('load_eps', '-'):>6}  "
                  f"{'; '.join(r.get('error', [])) or ''}"
                  + (f"  (background precomputation before the visit: {r['precompute']:.1f} s)"
                     if page == "reproduce" and "precompute" in r else ""), flush=True)


if __name__ == "__main__":
    main()
