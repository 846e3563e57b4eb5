"""Benchmark of the estimator advisor (:func:`ldp.studies.advisor.recommend`): plain-text tables on stdout.

Run from the repository root::

    .venv/bin/python benchmarks/bench_advisor.py                    # every mechanism, d = 1024, 20 trials
    .venv/bin/python benchmarks/bench_advisor.py --only grr,oue,olh
    .venv/bin/python benchmarks/bench_advisor.py --quick            # smoke run (d = 128, 5 trials)

Tables
  1. per mechanism: wall time of one ``recommend`` call (Zipf s = 1.5, n = 10^5, ε = 1, full-domain MSE,
     every registered estimator that applies, 20 trials each; target ≤ 5 s), the number of candidates,
     the slowest candidate and the recommendation
  2. per candidate, for the mechanism of ``--detail`` (OLH): seconds for all trials, the expected MSE,
     its standard error and the equivalent users n′ (consistency paper Fig. 5)
  3. the vectorization: IBU on all trials at once (:func:`ldp.studies.advisor.ibu_em_batch`) against one
     ``estimate`` call per trial, same output (max |difference|)

Timings depend on the machine's load (printed at the start and end). Nothing here asserts: the PASS/FAIL
column is for a human to read; this is not a unit test.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Sequence
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:  # run as a script: make the working tree's ``ldp`` importable
    sys.path.insert(0, str(REPO_ROOT))

import numpy as np  # noqa: E402

import ldp  # noqa: E402
from ldp.studies.advisor import estimate_trials, recommend  # noqa: E402

TARGET_S = 5.0


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def load_average() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def print_table(title: str, lines: Sequence[str], columns: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    widths = [max(len(str(c)), *(len(str(r[i])) for r in rows)) if rows else len(str(c))
              for i, c in enumerate(columns)]

    def fmt_row(cells: Sequence[str]) -> str:
        parts = [str(cells[0]).ljust(widths[0])]
        parts += [str(c).rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True)]
        return "  ".join(parts).rstrip()

    rule = "-" * len(fmt_row(columns))
    print("\n".join(["", title, "=" * len(title), *lines, rule, fmt_row(columns), rule,
                     *(fmt_row(r) for r in rows), rule]), flush=True)


def reports(name: str, args: argparse.Namespace) -> tuple[ldp.Mechanism, np.ndarray, int]:
    """One set of (fast-engine) reports of a Zipf population, as the advisor would receive them."""
    mech = ldp.get_mechanism(name, args.epsilon, args.d)
    rng = np.random.default_rng([args.seed, args.d])
    pr = 1.0 / np.arange(1, args.d + 1) ** 1.5
    population = rng.multinomial(args.n, pr / pr.sum())
    return mech, ldp.run_fast(mech, population, rng).counts, args.n


def table_mechanisms(args: argparse.Namespace, names: list[str]) -> None:
    rows = []
    for name in names:
        log(f"table 1: {name}")
        mech, counts, n = reports(name, args)
        start = time.perf_counter()
        rec = recommend(mech, counts, n, trials=args.trials, seed=args.seed)
        wall = time.perf_counter() - start
        slow = rec.table.sort_values("seconds", ascending=False).iloc[0]
        rows.append([name, str(len(rec.table)), f"{wall:.2f}", f"{slow['estimator']} {slow['seconds']:.2f}",
                     rec.best, f"{rec.table.iloc[0]['expected error']:.3g}",
                     "PASS" if wall <= TARGET_S else "FAIL"])
    print_table(f"1. recommend(): d = {args.d}, n = {args.n:,}, ε = {args.epsilon:g}, Zipf s = 1.5, "
                f"{args.trials} trials per candidate, full-domain MSE",
                [f"target: ≤ {TARGET_S:g} s per call with every applicable estimator"],
                ["mechanism", "candidates", "seconds", "slowest (s)", "best", "best MSE", "target"], rows)


def table_detail(args: argparse.Namespace) -> None:
    log(f"table 2: {args.detail}")
    mech, counts, n = reports(args.detail, args)
    rec = recommend(mech, counts, n, trials=args.trials, seed=args.seed)
    rows = [[r["estimator"], f"{r['seconds']:.3f}", f"{r['expected error']:.3e}", f"{r['standard error']:.1e}",
             f"{r['equivalent users']:.3g}", "yes" if r["tied with best"] else ""]
            for _, r in rec.table.iterrows()]
    print_table(f"2. candidates for {args.detail} (d = {args.d}, n = {n:,}, {args.trials} trials), best first",
                [f"total {rec.elapsed_s:.2f} s; synthetic truth: Norm-Sub fit of the reports (§V.D)"],
                ["estimator", "seconds", "expected MSE", "SE", "n′", "tied w/ best"], rows)


def table_ibu(args: argparse.Namespace) -> None:
    log("table 3: IBU batch")
    mech, counts, n = reports(args.detail, args)
    rng = np.random.default_rng(args.seed)
    pr = 1.0 / np.arange(1, args.d + 1) ** 1.5
    population = rng.multinomial(n, pr / pr.sum())
    stack = np.stack([ldp.run_fast(mech, population, rng).counts for _ in range(args.trials)])
    est = ldp.get_estimator("ibu")
    start = time.perf_counter()
    batch = estimate_trials(est, mech, stack, n)
    t_batch = time.perf_counter() - start
    start = time.perf_counter()
    loop = np.stack([est.estimate(mech, row, n).values for row in stack])
    t_loop = time.perf_counter() - start
    print_table(f"3. IBU (10,000 iterations max) on {args.trials} trials of {args.detail}, d = {args.d}", [],
                ["method", "seconds", "max |batch − loop|"],
                [["one call per trial", f"{t_loop:.2f}", ""],
                 ["all trials at once", f"{t_batch:.2f}", f"{float(np.max(np.abs(batch - loop))):.1e}"]])


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", help="comma-separated mechanisms for table 1 (default: every registered one)")
    parser.add_argument("--tables", default="1,2,3", help="tables to run, e.g. 1,3")
    parser.add_argument("--d", type=int, default=1024)
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--detail", default="olh", help="mechanism of tables 2 and 3")
    parser.add_argument("--quick", action="store_true", help="d = 128, 5 trials, GRR/OUE/OLH only")
    args = parser.parse_args(argv)
    if args.quick:
        args.d, args.trials = 128, 5
        args.only = args.only or "grr,oue,olh"
    names = [s.strip() for s in args.only.split(",")] if args.only else ldp.MECHANISMS.names()
    tables = {s.strip() for s in args.tables.split(",")}
    print(f"LDP Explorer advisor benchmark — {platform.platform()}, Python {platform.python_version()}, "
          f"numpy {np.__version__}, {os.cpu_count()} CPUs, load average {load_average()}")
    if "1" in tables:
        table_mechanisms(args, names)
    if "2" in tables:
        table_detail(args)
    if "3" in tables:
        table_ibu(args)
    print(f"\nload average at the end: {load_average()}")


if __name__ == "__main__":
    main()
