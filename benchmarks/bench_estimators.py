"""Benchmarks of the estimators: IBU and the consistency post-processors (plain-text tables on stdout).

Run from the repository root::

    .venv/bin/python benchmarks/bench_estimators.py              # full run (a few minutes; table 2 is slow)
    .venv/bin/python benchmarks/bench_estimators.py --quick      # smoke run (small sizes, not the targets)
    .venv/bin/python benchmarks/bench_estimators.py --tables 1,3 --repeats 7

Tables
  1. IBU at d = 1024 (n = 10^6, Zipf s = 1.5): Eq. (3) iterations — µs per iteration, iterations and
     wall time to tol = 1e-10 within the paper's 10,000 iterations (target ≤ 100 ms) — and the
     closed-form limit of Eq. (3) (``method="mle"``): its time, its fixed-point certificate, and how far
     the capped iterations are from it
  2. IBU against multi-freq-ldpy's ``IBU(k, A, obs_freq, nb_iter, tol, err_func)`` on the same counts,
     tolerance and iteration cap at d = 1024: max |difference| and speed ratio (their numba compilation
     excluded)
  3. every consistency post-processor at d = 10^5 (n = 10^7, Zipf s = 1.5, ε = 1): wall time of
     ``estimate`` (matrix inversion + post-processing), target ≤ 50 ms

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
from ldp.estimators import ibu_mle, iterative_bayesian_update  # noqa: E402
from ldp.estimators.ibu import ibu_observed, ibu_step  # noqa: E402

IBU_TARGET_MS = 100.0
POST_TARGET_MS = 50.0
IBU_TOL = 1e-10
POST_PROCESSORS = ("mi", "base-pos", "post-pos", "base-cut", "norm", "norm-mul", "norm-cut", "norm-sub", "mle-apx",
                   "power", "power-ns")


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def load_average() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def zipf_population(rng: np.random.Generator, n: int, d: int, s: float = 1.5) -> np.ndarray:
    pr = 1.0 / np.arange(1, d + 1) ** s
    return rng.multinomial(n, pr / pr.sum())


def median_time(fn: Callable[[], object], repeats: int) -> float:
    """Median wall time of ``fn()`` in seconds, after one warm-up call."""
    fn()
    times = []
    for _ in range(max(1, repeats)):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def fmt_ms(seconds: float) -> str:
    ms = seconds * 1e3
    return f"{ms:.0f}" if ms >= 100 else f"{ms:.1f}" if ms >= 1 else f"{ms:.3f}"


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
    print("\n".join([*out, *notes]), flush=True)


def ibu_cases(args: argparse.Namespace) -> list[tuple[str, float]]:
    return [(name, eps) for eps in (1.0, 8.0) for name in ("grr", "oue", "olh")]


def observed(args: argparse.Namespace, name: str, eps: float, d: int) -> tuple[ldp.Mechanism, np.ndarray]:
    mech = ldp.get_mechanism(name, eps, d)
    rng = np.random.default_rng([args.seed, d, int(eps * 100)])
    counts = ldp.run_fast(mech, zipf_population(rng, args.ibu_n, d), rng).counts
    return mech, ibu_observed(counts)


# ---------------------------------------------------------------------------------------------- table 1
def table_ibu(args: argparse.Namespace) -> None:
    d = args.ibu_d
    rows = []
    for name, eps in ibu_cases(args):
        log(f"table 1: {name} ε={eps:g}")
        mech, obs = observed(args, name, eps, d)
        p, q = mech.p_star, mech.q_star
        per_iter = median_time(lambda p=p, q=q, obs=obs: iterative_bayesian_update(
            obs, p, q, max_iter=2000, tol=0.0), args.repeats) / 2000

        def em(p=p, q=q, obs=obs):
            return iterative_bayesian_update(obs, p, q, max_iter=args.em_max_iter, tol=IBU_TOL)

        em_time = median_time(em, args.repeats)
        est, trace = em()
        mle_time = median_time(lambda p=p, q=q, obs=obs: ibu_mle(obs, p, q), max(args.repeats, 21))
        limit = ibu_mle(obs, p, q)
        certificate = float(np.abs(ibu_step(limit, obs, p, q) - limit).max())
        ok = trace.converged and em_time * 1e3 <= IBU_TARGET_MS
        rows.append([f"{name} ε={eps:g}", f"{per_iter * 1e6:.1f}", f"{trace.iterations:,}",
                     "yes" if trace.converged else "no", f"{trace.final_change:.1e}", fmt_ms(em_time),
                     "PASS" if ok else "FAIL", fmt_ms(mle_time), f"{certificate:.0e}",
                     f"{np.abs(est - limit).max():.1e}"])
    print_table(
        f"Table 1: IBU at d = {d}, n = {args.ibu_n:,}, Zipf s = 1.5 (fast engine counts)",
        [f"Eq. (3) from uniform, stop when max |change| < {IBU_TOL:g}, at most {args.em_max_iter:,} iterations "
         f"(paper: 10,000); target ≤ {IBU_TARGET_MS:g} ms *and* converged.",
         "closed form = the limit of Eq. (3) (ibu_mle, method='mle'); certificate = max |one Eq. (3) step − it|; "
         "|EM − limit| = max abs distance of the EM result from the limit."],
        ["case", "µs/iter", "iterations", "conv.", "last change", "EM ms", f"≤{IBU_TARGET_MS:g} ms",
         "closed form ms", "certificate", "|EM − limit|"], rows,
        ["EM's speed is set by the channel's noise, not by the implementation: at ε = 1 it moves by O(1/d) per",
         "iteration (for bit vectors the row-normalized channel is GRR-like with e^ε' = p*/q*), so no Eq. (3)",
         "implementation reaches 1e-10 within 10,000 iterations there; the closed form gives that limit directly."])


# ---------------------------------------------------------------------------------------------- table 2
def table_compare(args: argparse.Namespace) -> None:
    try:
        from multi_freq_ldpy.estimators.Histogram_estimator import IBU as their_ibu
    except ImportError:
        print("\nTable 2 skipped: multi-freq-ldpy is not installed (pip install -r benchmarks/requirements.txt)")
        return
    d = args.ibu_d
    log("table 2: compiling multi-freq-ldpy's IBU (numba)")
    start = time.perf_counter()
    tiny = np.full((3, 3), 0.25) + np.eye(3) * 0.25
    their_ibu(3, tiny, np.array([0.5, 0.3, 0.2]), 5, 1e-12, "max_abs")
    compile_s = time.perf_counter() - start
    rows = []
    cases = [("grr", 8.0), ("oue", 8.0), ("olh", 8.0), ("oue", 1.0)] if not args.quick else [("grr", 8.0), ("oue", 1.0)]
    for name, eps in cases:
        log(f"table 2: {name} ε={eps:g}")
        mech, obs = observed(args, name, eps, d)
        a = np.full((d, d), mech.q_star)
        np.fill_diagonal(a, mech.p_star)
        t0 = time.perf_counter()
        theirs = their_ibu(d, a, obs, args.em_max_iter, IBU_TOL, "max_abs")
        their_s = time.perf_counter() - t0
        ours, trace = iterative_bayesian_update(obs, mech.p_star, mech.q_star, max_iter=args.em_max_iter, tol=IBU_TOL)
        our_s = median_time(lambda m=mech, o=obs: iterative_bayesian_update(
            o, m.p_star, m.q_star, max_iter=args.em_max_iter, tol=IBU_TOL), args.repeats)
        rows.append([f"{name} ε={eps:g}", f"{trace.iterations:,}", "yes" if trace.converged else "no",
                     fmt_ms(their_s), fmt_ms(our_s), f"{their_s / our_s:.0f}×", f"{np.abs(ours - theirs).max():.1e}"])
    print_table(
        f"Table 2: IBU against multi-freq-ldpy at d = {d} (same counts, tol = {IBU_TOL:g}, max_iter = "
        f"{args.em_max_iter:,}, max_abs)",
        ["theirs: Histogram_estimator.IBU with the dense d × d channel (two O(d²) products per iteration), one run;",
         "ours: iterative_bayesian_update with the structured channel (O(d) per iteration), median of runs."],
        ["case", "iterations (ours)", "conv.", "theirs ms", "ours ms", "ratio", "max |ours − theirs|"], rows,
        [f"their numba compilation ({compile_s:.1f} s) is excluded."])


# ---------------------------------------------------------------------------------------------- table 3
def table_post(args: argparse.Namespace) -> None:
    d, n = args.post_d, args.post_n
    rows = []
    for name in ("olh", "oue"):
        log(f"table 3: {name}")
        mech = ldp.get_mechanism(name, 1.0, d)
        rng = np.random.default_rng([args.seed, 3])
        counts = ldp.run_fast(mech, zipf_population(rng, n, d), rng).counts
        for est_name in POST_PROCESSORS:
            est = ldp.get_estimator(est_name)
            seconds = median_time(lambda e=est, m=mech, c=counts: e.estimate(m, c, n), args.repeats * 5)
            ok = seconds * 1e3 <= POST_TARGET_MS
            rows.append([f"{est_name} ({name})", fmt_ms(seconds), "PASS" if ok else "FAIL"])
    print_table(
        f"Table 3: consistency post-processors at d = {d:,}, n = {n:,}, ε = 1, Zipf s = 1.5",
        [f"wall time of Estimator.estimate (matrix inversion + post-processing), median of {args.repeats * 5} runs"],
        ["estimator (mechanism)", "ms", f"≤{POST_TARGET_MS:g} ms"], rows)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes: checks that everything runs, not the targets")
    ap.add_argument("--tables", default="1,2,3", help="comma-separated table numbers (default 1,2,3)")
    ap.add_argument("--repeats", type=int, default=3, help="timed runs per case (median; table 3 uses 5×)")
    ap.add_argument("--seed", type=int, default=2023)
    ap.add_argument("--ibu-d", type=int, default=1024, help="domain size of tables 1 and 2")
    ap.add_argument("--ibu-n", type=int, default=1_000_000, help="users of tables 1 and 2")
    ap.add_argument("--em-max-iter", type=int, default=10_000, help="iteration cap of Eq. (3) (paper: 10,000)")
    ap.add_argument("--post-d", type=int, default=100_000, help="domain size of table 3")
    ap.add_argument("--post-n", type=int, default=10_000_000, help="users of table 3")
    args = ap.parse_args(argv)
    args.tables = {int(t) for t in args.tables.split(",") if t.strip()}
    if args.quick:
        args.ibu_d, args.ibu_n, args.em_max_iter = 128, 100_000, 1000
        args.post_d, args.post_n, args.repeats = 10_000, 1_000_000, 1
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    started = time.perf_counter()
    print(f"LDP estimator benchmarks{' (QUICK smoke run: sizes are NOT the target sizes)' if args.quick else ''}")
    print(f"ldp {ldp.__version__}, numpy {np.__version__}, Python {platform.python_version()}, "
          f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, {time.strftime('%Y-%m-%d %H:%M')}, "
          f"load average {load_average()} at start")
    print("command: " + " ".join([os.path.relpath(sys.executable), *sys.argv]), flush=True)
    if 1 in args.tables:
        table_ibu(args)
    if 2 in args.tables:
        table_compare(args)
    if 3 in args.tables:
        table_post(args)
    print(f"\ntotal wall time: {time.perf_counter() - started:.0f} s; load average {load_average()} at the end",
          flush=True)


if __name__ == "__main__":
    main()
