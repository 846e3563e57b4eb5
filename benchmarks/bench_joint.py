"""Benchmark of the joint-distribution methods (issue 24 item 2): 10^6 users holding two columns of 100 values each
(a correlated pair, ``correlated:d1=100,d2=100,rho=0.8``), ε = 1, every method on both engines.

Run from the repository root::

    .venv/bin/python benchmarks/bench_joint.py              # every method, both engines, 3 repeats
    .venv/bin/python benchmarks/bench_joint.py --users 100000 --repeats 1

Prints one table: method | engine | n | seconds (median of the repeats) | target | PASS/FAIL | tvd | load average
(the 1-minute load average, from /proc/loadavg, read after each case — the machine is shared). Targets: ≤ 5 s with
the exact engine (every client run), ≤ 0.1 s with the fast engine (each oracle's aggregate drawn directly). The
population is drawn once, outside the timings; HDG also answers 200 random rectangle queries inside its timing.
Nothing here asserts on time: this is not a unit test.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from ldp.core.streams import rng_for  # noqa: E402
from ldp.data.joint import joint_synthetic  # noqa: E402
from ldp.studies.joint import JOINT_METHODS, estimate_joint  # noqa: E402
from ldp.studies.joint_ranges import with_range_mse  # noqa: E402

TARGETS_S = {"exact": 5.0, "fast": 0.1}
SPEC = "correlated:d1=100,d2=100,rho=0.8"


def load_average() -> str:
    try:
        return Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        return f"{os.getloadavg()[0]:.2f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=1_000_000)
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--methods", default=",".join(JOINT_METHODS.names()))
    args = parser.parse_args()
    population, _ = joint_synthetic(SPEC, args.users, rng_for(0, "bench", "population"))
    header = ["method", "engine", "n", "seconds", "target", "ok", "tvd", "load average"]
    rows = []
    for method in args.methods.split(","):
        for engine in ("fast", "exact"):
            times, result = [], None
            for repeat in range(args.repeats):
                start = time.perf_counter()
                result = estimate_joint(population, args.epsilon, method, seed=repeat, engine=engine)
                if method == "hdg":
                    result = with_range_mse(result, 200, rng_for(repeat, "bench", "queries"))
                times.append(time.perf_counter() - start)
            seconds = statistics.median(times)
            rows.append([method, engine, f"{population.n:,}", f"{seconds:.3f}", f"≤ {TARGETS_S[engine]:g}",
                         "PASS" if seconds <= TARGETS_S[engine] else "FAIL", f"{result.metrics['tvd']:.3f}",
                         load_average()])
            print(f"done {method} {engine}: {seconds:.3f} s", file=sys.stderr, flush=True)
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    print(f"joint distribution, {SPEC}, ε = {args.epsilon:g}, median of {args.repeats} runs")
    print(" | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
    print("-+-".join("-" * w for w in widths))
    for r in rows:
        print(" | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
