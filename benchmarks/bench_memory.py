"""Peak memory of the inputs that used to be unbounded (issue 10 items 1–2), each in a fresh subprocess.

Each row runs one formerly exploding case in its own Python process and prints the process's peak resident
memory (``ru_maxrss``) and what happened (refused with the library's one-line reason, or completed), beside
what the issue measured before the fixes. The first row is the cost of starting Python and importing ldp, which
every other row includes.

Run from the repository root::

    .venv/bin/python benchmarks/bench_memory.py           # every case (about a minute)
    .venv/bin/python benchmarks/bench_memory.py --quick   # skips the large sparse CSV and the sweeps

Nothing asserts; the memory-capped unit tests (tests/data/test_resources.py) keep the bounds. Not run by pytest.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

PRELUDE = """
import json, resource, sys, numpy as np, ldp
def report(outcome):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"outcome": outcome, "peak_mb": peak}))
def attempt(fn):
    try:
        out = fn()
    except ldp.LDPError as exc:
        report("refused: " + str(exc)[:90])
    except SystemExit as exc:
        report(f"CLI exit {exc.code}")
    else:
        if isinstance(out, int):  # a CLI main's exit code
            report(f"CLI exit {out}")
        else:
            report("completed" + (": " + out if isinstance(out, str) else ""))
"""

CASES: list[tuple[str, str, str, bool]] = [
    ("python + import ldp (baseline)", "—", "report('completed')", False),
    ("gzip upload: 1 MB expanding to 1 GB", "7.6–8.3 GB, out of memory", """
        import zlib
        from ldp.data import load_table_bytes
        comp = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
        bomb = comp.compress(b"a,b\\n") + b"".join(comp.compress(b"1,2\\n" * 2**18) for _ in range(1024)) + comp.flush()
        attempt(lambda: load_table_bytes(bomb, "bomb.csv.gz"))
    """, False),
    ("CLI simulate with d = 10⁹", "4.8–5.8 GB before the check", """
        from ldp.cli import main
        attempt(lambda: main(["simulate", "-m", "grr", "-e", "1", "--synthetic", "uniform:d=1000000000",
                              "--users", "1000"]))
    """, False),
    ("OLH ε = 20, 1,000 users, exact", "7.7 GB (g ≈ e^ε)", """
        mech = ldp.get_mechanism("olh", 20.0, 1000)
        attempt(lambda: f"g = {mech.g}, {mech.aggregate(mech.perturb(np.arange(1000), np.random.default_rng(0))).n} "
                        "users")
    """, False),
    ("OLH ε = 45", "hangs (trial-division primality)", """
        attempt(lambda: f"g = {ldp.get_mechanism('olh', 45.0, 1000).g}")
    """, False),
    ("OLH with prime = 2147483629 given", "minutes", """
        def run():
            mech = ldp.get_mechanism("olh", 1.0, 1000, prime=2147483629)
            reports = mech.perturb(np.arange(1000), np.random.default_rng(0))
            return f"prime {mech.prime} accepted, {reports.shape[0]} reports"
        attempt(run)
    """, False),
    ("OUE d = 2²², 2,000 users, exact engine", "9 GB", """
        from ldp.engines import run_exact
        mech = ldp.get_mechanism("oue", 1.0, 2**22)
        counts = np.zeros(2**22, dtype=np.int64); counts[:2000] = 1
        attempt(lambda: f"n = {run_exact(mech, true_counts=counts, rng=np.random.default_rng(0)).n}")
    """, False),
    ("n = 10¹³ users, fast engine", "grows despite the chunk", """
        from ldp.engines import run_fast
        mech = ldp.get_mechanism("grr", 1.0, 16)
        attempt(lambda: f"n = {run_fast(mech, np.full(16, 10**13 // 16), np.random.default_rng(0)).n:,}")
    """, False),
    ("n = 10¹⁵ users, exact engine, stopped after 5 s", "grows despite the chunk", """
        import time
        from ldp.core.cancellation import Cancelled, cancel_when
        from ldp.engines import run_exact
        mech = ldp.get_mechanism("grr", 1.0, 16)
        deadline = time.monotonic() + 5.0
        def run():
            try:
                with cancel_when(lambda: time.monotonic() > deadline):
                    run_exact(mech, true_counts=np.full(16, 10**15 // 16), rng=np.random.default_rng(0))
            except Cancelled:
                return "ran 5 s in chunks, then cancelled"
        attempt(run)
    """, False),
    ("sweep of 10⁵ configurations, streamed to a file", "4M rows held in memory", """
        from ldp.cli import main
        import tempfile, os
        out = os.path.join(tempfile.mkdtemp(), "sweep.csv")
        eps = ",".join(f"{e:.4f}" for e in np.linspace(0.1, 5, 1000))
        users = ",".join(str(1000 + i) for i in range(100))
        attempt(lambda: main(["sweep", "--mechanisms", "grr", "--epsilons", eps, "--users", users, "--synthetic",
                              "zipf:d=8", "--executor", "serial", "--output", out]))
    """, True),
    ("sparse CSV of 400 MB (one column of 10⁶)", "6.3 GB for 2 GB", """
        from ldp.data import load_table
        attempt(lambda: f"{len(load_table(sys.argv[1])):,} rows")
    """, True),
]


def _sparse_csv(path: Path) -> None:
    """400 MB: 10⁶ rows of a header of 200 columns, almost all empty (commas), one value column."""
    empty = "," * 199
    with open(path, "w") as fh:
        fh.write(",".join(f"c{i}" for i in range(200)) + "\n")
        line = "7" + empty + "\n"
        block = line * 10_000
        for _ in range(200):
            fh.write(block)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    tmp = Path(tempfile.mkdtemp())
    sparse = tmp / "sparse.csv"
    print(f"{'case':<48}  {'before (issue 10)':<34}  {'peak MB':>8}  outcome")
    for name, before, code, slow in CASES:
        if slow and args.quick:
            continue
        argv = []
        if "sparse" in name:
            _sparse_csv(sparse)
            argv = [str(sparse)]
        done = subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(code), *argv], capture_output=True,
                              text=True, env=env, timeout=1800, check=False)
        try:
            row = json.loads(done.stdout.strip().splitlines()[-1])
            outcome, peak = row["outcome"], f"{row['peak_mb']:8.0f}"
        except (IndexError, ValueError, KeyError):
            outcome, peak = f"crashed (exit {done.returncode}): {done.stderr.strip()[-120:]}", "       —"
        print(f"{name:<48}  {before:<34}  {peak}  {outcome}", flush=True)


if __name__ == "__main__":
    main()
