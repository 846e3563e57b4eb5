"""Benchmarks of the studies (ldp.studies): the trade-off sweep and the run-cost model (plain-text tables on stdout,
progress on stderr).

Run from the repository root::

    .venv/bin/python benchmarks/bench_studies.py              # both tables, about 10 seconds
    .venv/bin/python benchmarks/bench_studies.py --quick      # one repeat
    .venv/bin/python benchmarks/bench_studies.py --tables 2

Tables
  1. the trade-off sweep behind the Trade-off page's default (``ldp.studies.tradeoff.run_tradeoff_sweep``):
     10 log-spaced ε from 0.1 to 10 × GRR, OUE, OLH, SS × 20 trials, MI, n = 10^5 users on a Zipf(1) domain of
     100 values, fast engine — wall time (target ≤ 10 s; formerly an assertion of tests/studies/test_tradeoff.py)
     and the number of table rows (10 × 4 × 20 × the frequency metrics)
  2. the run-cost model (``ldp.studies.cost.estimate_sweep_seconds``) against the measured wall time of two sweeps
     (the small one formerly timed by tests/studies/test_cost.py — GRR, OUE × 4 ε from 0.5 to 5 × 10 trials,
     n = 10^4, uniform over d = 100 — and table 1's): target "the right order of magnitude", actual/10 < predicted <
     10·actual + 0.5 s, as that test asserted

Timings are medians over ``--repeats`` runs and depend on the machine's load (printed at the start and end).
Nothing here asserts: PASS/FAIL columns are for a human to read; this is not a unit test.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:  # run as a script: make the working tree's ``ldp`` importable
    sys.path.insert(0, str(REPO_ROOT))

import numpy as np  # noqa: E402

import ldp  # noqa: E402
from ldp.evaluation.metrics import DEFAULT_METRICS  # noqa: E402
from ldp.studies import cost, tradeoff  # noqa: E402

SWEEP_TARGET_S = 10.0


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def load() -> str:
    try:
        return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover - not on every platform
        return "load average n/a"


def print_table(title: str, lines: Sequence[str], columns: Sequence[str], rows: Sequence[Sequence[str]],
                notes: Sequence[str] = ()) -> None:
    """A plain-text table: first column left-aligned, the others right-aligned."""
    widths = [max(len(str(c)), *(len(str(r[i])) for r in rows)) if rows else len(str(c))
              for i, c in enumerate(columns)]

    def fmt_row(cells: Sequence[str]) -> str:
        parts = [str(cells[0]).ljust(widths[0])]
        parts += [str(c).rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True)]
        return "  ".join(parts).rstrip()

    rule = "-" * len(fmt_row(columns))
    out = ["", title, "=" * len(title), *lines, rule, fmt_row(columns), rule, *(fmt_row(r) for r in rows), rule]
    out += list(notes)
    print("\n".join(out), flush=True)


def timed(fn: Callable[[], object], repeats: int) -> tuple[float, object]:
    """Median wall time of ``repeats`` calls and the last result."""
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times)), result


def zipf(d: int) -> np.ndarray:
    weights = 1.0 / np.arange(1, d + 1)
    return weights / weights.sum()


PAGE_SWEEP = {"mechanisms": ["grr", "oue", "olh", "ss"], "grid": tradeoff.epsilon_grid(0.1, 10, 10), "users": 100_000,
              "trials": 20, "freqs": zipf(100)}
SMALL_SWEEP = {"mechanisms": ["grr", "oue"], "grid": tradeoff.epsilon_grid(0.5, 5, 4), "users": 10_000, "trials": 10,
               "freqs": np.full(100, 1 / 100)}


def run_sweep(spec: dict, seed: int) -> object:
    return tradeoff.run_tradeoff_sweep(spec["freqs"], mechanisms=spec["mechanisms"], estimators=["mi"],
                                       grid=spec["grid"], users=spec["users"], trials=spec["trials"], seed=seed)


# ============================================================================================ table 1
def table_sweep(args: argparse.Namespace) -> None:
    log("table 1: the Trade-off page's default sweep")
    run_sweep(SMALL_SWEEP, args.seed)  # warm-up: imports, caches
    seconds, table = timed(lambda: run_sweep(PAGE_SWEEP, args.seed), args.repeats)
    expected_rows = len(PAGE_SWEEP["grid"]) * len(PAGE_SWEEP["mechanisms"]) * PAGE_SWEEP["trials"] * len(
        DEFAULT_METRICS["frequency"])
    rows = [["10 ε × GRR, OUE, OLH, SS × 20 trials, MI, n = 10^5, d = 100, fast", f"{seconds:.2f}",
             f"{SWEEP_TARGET_S:.0f}", "PASS" if seconds <= SWEEP_TARGET_S else "FAIL",
             f"{len(table)} (expected {expected_rows})"]]  # type: ignore[arg-type]
    print_table("Table 1: trade-off sweep (ldp.studies.tradeoff.run_tradeoff_sweep)",
                [f"seed {args.seed}, median of {args.repeats}; {load()}",
                 f"Python {platform.python_version()}, numpy {np.__version__}"],
                ["sweep", "s", "target s", "", "rows"], rows,
                ["Formerly the wall-clock assertion of tests/studies/test_tradeoff.py "
                 "(test_benchmark_sweep_10_eps_4_mechanisms_20_trials_under_10_s)."])


# ============================================================================================ table 2
def table_cost(args: argparse.Namespace) -> None:
    rows = []
    for label, spec in (("GRR, OUE × 4 ε × 10 trials, n = 10^4", SMALL_SWEEP),
                        ("GRR, OUE, OLH, SS × 10 ε × 20 trials, n = 10^5", PAGE_SWEEP)):
        log(f"table 2: {label}")
        d = spec["freqs"].size
        mech = ldp.get_mechanism("oue", 1.0, d)
        timing = cost.time_estimators(mech, np.full(d, 100), ["mi"])
        configs = [(n, d) for _, _, _, n, _ in tradeoff.sweep_configurations(spec["mechanisms"], "epsilon",
                                                                             spec["grid"], users=spec["users"])]
        predicted = cost.estimate_sweep_seconds(configs, trials=spec["trials"], engine="fast",
                                                estimator_seconds=sum(timing.values()))
        actual, _ = timed(lambda spec=spec: run_sweep(spec, args.seed), args.repeats)
        ok = actual / 10 < predicted < actual * 10 + 0.5
        rows.append([label, f"{predicted:.2f}", f"{actual:.2f}", f"{predicted / actual:.2f}", "PASS" if ok else "FAIL"])
    print_table("Table 2: run-cost model against measured sweeps (ldp.studies.cost)",
                [f"seed {args.seed}, median of {args.repeats}; {load()}"],
                ["sweep", "predicted s", "actual s", "ratio", "actual/10 < predicted < 10·actual + 0.5"], rows,
                ["Formerly tests/studies/test_cost.py::test_the_estimate_predicts_the_sweep_time (the small sweep).",
                 "ratio = predicted / actual; the model feeds a \"this will take a while\" warning, so only its order "
                 "of magnitude matters."])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default="1,2", help="comma-separated table numbers (default 1,2)")
    parser.add_argument("--quick", action="store_true", help="one repeat per case")
    parser.add_argument("--repeats", type=int, default=None, help="timed runs per case (default 3; quick 1)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    args.repeats = args.repeats or (1 if args.quick else 3)
    tables = {int(t) for t in args.tables.split(",") if t.strip()}
    log(f"start: {load()}")
    if 1 in tables:
        table_sweep(args)
    if 2 in tables:
        table_cost(args)
    log(f"end: {load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
