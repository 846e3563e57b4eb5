"""Benchmarks of the Square Wave mechanism and its EM/EMS reconstruction (plain-text tables on stdout,
progress on stderr).

Run from the repository root::

    .venv/bin/python benchmarks/bench_numerical.py              # all tables, about 1.5 minutes
    .venv/bin/python benchmarks/bench_numerical.py --tables 1   # timings only (a few seconds)
    .venv/bin/python benchmarks/bench_numerical.py --quick      # fewer repeats and trials

Tables
  1. timings (median of ``--repeats``): the exact SW client for 10^6 users (target ≤ 0.5 s), bucketizing
     the reports, the fast engine, the dense d̃ × d transition matrix, the O(d + d̃) channel, and EMS / EM to
     convergence at d = d̃ = 1024 on a Beta(5, 2) population (target: transition matrix + EMS ≤ 0.5 s), and the
     whole numerical pipeline for one (dataset, ε): 10^6 users of flights dep_time_hours, 256 buckets, SW + EMS
     on the fast engine — bucketize + collect + EMS + the §3 metrics (target ≤ 2 s).
  2. accuracy in the paper's synthetic setting (§6.1): Beta(5, 2), 10^5 users, 256 buckets, exact client;
     mean Wasserstein distance of SW + EMS, SW + EM and CFO binning (OUE / GRR on 16, 32, 64 bins with
     Norm-Sub, uniform within a bin) for ε = 0.5, 1, 2.
  3. the choice of b (§6.4, Fig. 6): mean W1 of SW + EMS for b from 0.02 to 0.5 and the mutual-information b.
  4. the unit tests' former timing targets: HH with HH-ADMM at d = 1024 (one fast collection of 10^6 users of
     Beta(5, 2) and the ADMM reconstruction, after a warm-up; target ≤ 1 s, formerly
     tests/mechanisms/numerical/test_hierarchy.py) and, per ε, the fidelity comparison of
     tests/mechanisms/numerical/test_fidelity.py (SW + EMS, CFO-binning with 16/32/64 bins, HH + HH-ADMM and
     HaarHRR × 30 seeds, d = 256, n = 10^5, fast engine, W1; target ≤ 10 s per ε), with the mean W1 of each.

Paper: Li, Wang, Lopuhaä-Zwakenberg, Li, Škorić — Estimating Numerical Distributions under Local
Differential Privacy, SIGMOD 2020. Nothing here asserts: the PASS/FAIL column is for a human to read.
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
from ldp.evaluation.metrics import wasserstein  # noqa: E402
from ldp.mechanisms.numerical.square_wave import SquareWave, mutual_information_b  # noqa: E402


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


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


def load() -> str:
    try:
        return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover - not on every platform
        return "load average n/a"


def timed(fn: Callable[[], object], repeats: int) -> tuple[float, object]:
    """Median wall time of ``repeats`` calls (after none: every call is timed) and the last result."""
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times)), result


def beta_values(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).beta(5, 2, n)


def bucket_counts(values: np.ndarray, d: int) -> np.ndarray:
    return np.bincount(np.minimum((values * d).astype(np.int64), d - 1), minlength=d)


# ============================================================================================ table 1
def table_timings(args: argparse.Namespace) -> None:
    eps, d, seed, reps = args.epsilon, args.d, args.seed, args.repeats
    n_client = args.n_client
    rows: list[list[str]] = []

    def row(case: str, seconds: float, target: float | None, extra: str = "") -> None:
        verdict = "" if target is None else ("PASS" if seconds <= target else "FAIL")
        rows.append([case, f"{seconds * 1e3:.1f}", "" if target is None else f"{target * 1e3:.0f}", verdict, extra])

    sw = SquareWave(eps, d)
    values = beta_values(n_client, seed)
    rng = np.random.default_rng(seed)
    sw.perturb(values[:1000], rng)  # warm-up
    log(f"table 1: exact client, n = {n_client:,}")
    t, reports = timed(lambda: sw.perturb(values, rng), reps)
    row(f"exact client perturb, n={n_client:,}", t, 0.5)
    t, hist = timed(lambda: sw.report_histogram(reports), reps)
    row(f"report_histogram, n={n_client:,}, d̃={d}", t, None)
    counts = bucket_counts(values, d)
    t, _ = timed(lambda: sw.sample_histogram(counts, rng), reps)
    row(f"fast engine sample_histogram, n={n_client:,}", t, None)

    log("table 1: transition matrix and EMS")
    t_dense, _ = timed(lambda: SquareWave(eps, d).transition_matrix(), reps)
    row(f"dense transition matrix {d}×{d}", t_dense, None)
    t_ch, _ = timed(lambda: SquareWave(eps, d).transition_operator(), reps)
    row(f"O(d + d̃) channel build, d=d̃={d}", t_ch, None)
    for n in args.n_ems:
        h = sw.sample_histogram(bucket_counts(beta_values(n, seed + 1), d), np.random.default_rng(seed + 2))
        for method in ("ems", "em"):
            def run(method: str = method, h: np.ndarray = h) -> object:
                mech = SquareWave(eps, d)  # fresh: nothing cached
                mech.transition_matrix()
                return mech.reconstruct(h, int(h.sum()), method=method)

            t, res = timed(run, reps)
            tr = res  # the Estimate carries iterations and converged
            per = t / max(tr.iterations, 1) * 1e6
            target = 0.5 if method == "ems" else None
            row(f"matrix + channel + {method.upper()} to convergence, d=d̃={d}, n={n:,}", t, target,
                f"{tr.iterations} it, {per:.0f} µs/it, converged={tr.converged}")
    log("table 1: whole numerical pipeline, flights dep_time_hours, 10^6 users")
    import pandas as pd

    from ldp.data import bucketize, get_column, load_sample

    column = get_column(load_sample("flights"), "dep_time_hours").dropna().to_numpy()
    users = pd.Series(column[np.random.default_rng(seed).integers(0, column.size, args.n_pipeline)],
                      name="dep_time_hours")  # 10^6 users drawn from the 328k flights

    def pipeline() -> object:
        enc = bucketize(users, 256, (0.0, 24.0))
        mech = ldp.get_mechanism("sw", eps, 256)
        return ldp.simulate(mech, enc.true_counts(), estimators=["ems"], edges=enc.edges, engine="fast", trials=1,
                            seed=seed)

    t, res = timed(pipeline, reps)
    row(f"whole pipeline: flights dep_time_hours, n={args.n_pipeline:,}, 256 buckets, SW+EMS fast "
        "(bucketize + collect + EMS + metrics)", t, 2.0,
        f"W1 = {res.summary()['ems']['wasserstein']:.3f} h")  # type: ignore[attr-defined]
    print_table("Table 1: timings", [f"ε = {eps}, seed {seed}, median of {reps}; {load()}",
                                     f"Python {platform.python_version()}, numpy {np.__version__}"],
                ["case", "ms", "target ms", "", "notes"], rows,
                ["EM/EMS rows include building the dense matrix (not needed by EM) and the channel; the stopping",
                 "rule is the paper's |ΔL| < τ over all reports, τ = 1e-3 (EMS) and 1e-3·e^ε (EM)."])


# ============================================================================================ table 2
def binning(name: str, eps: float, bins: int, counts: np.ndarray, d: int, rng: np.random.Generator) -> np.ndarray:
    mech = ldp.get_mechanism(name, eps, bins)
    agg = ldp.run_fast(mech, counts.reshape(bins, -1).sum(axis=1), rng)
    return np.repeat(ldp.norm_sub(mech.estimate(agg).values) / (d // bins), d // bins)


def table_accuracy(args: argparse.Namespace) -> None:
    d, n, trials = 256, 100_000, args.trials
    edges = np.linspace(0, 1, d + 1)
    methods = ["SW-EMS", "SW-EM"] + [f"{m.upper()}-{c}" for m in ("oue", "grr") for c in (16, 32, 64)]
    rows = []
    for eps in (0.5, 1.0, 2.0):
        log(f"table 2: ε = {eps}")
        rng = np.random.default_rng(args.seed)
        sw = SquareWave(eps, d)
        err: dict[str, list[float]] = {m: [] for m in methods}
        iters: dict[str, list[int]] = {"ems": [], "em": []}
        for _ in range(trials):
            values = rng.beta(5, 2, n)
            counts = bucket_counts(values, d)
            truth = counts / n
            hist = sw.report_histogram(sw.perturb(values, rng))
            for method in ("ems", "em"):
                est = sw.reconstruct(hist, n, method=method)
                iters[method].append(est.iterations)
                err[f"SW-{method.upper()}"].append(wasserstein(truth, est.values, edges, project=True))
            for name in ("oue", "grr"):
                for bins in (16, 32, 64):
                    err[f"{name.upper()}-{bins}"].append(
                        wasserstein(truth, binning(name, eps, bins, counts, d, rng), edges, project=True))
        means = {m: float(np.mean(v)) for m, v in err.items()}
        best = min((m for m in methods[2:]), key=means.__getitem__)
        ratio = means["SW-EMS"] / means[best]
        rows.append([f"{eps:g}"] + [f"{means[m]:.5f}" for m in methods]
                    + [f"{best} {ratio:.2f}", f"{np.mean(iters['ems']):.0f}/{np.mean(iters['em']):.0f}"])
    print_table("Table 2: Wasserstein distance, Beta(5, 2), 10^5 users, 256 buckets (§6.2, Fig. 2)",
                [f"mean over {trials} populations (seed {args.seed}); exact SW client; {load()}"],
                ["ε", *methods, "EMS / best binning", "EMS/EM iters"], rows)


# ============================================================================================ table 3
def table_b(args: argparse.Namespace) -> None:
    d, n, trials = 256, 100_000, args.trials
    edges = np.linspace(0, 1, d + 1)
    rows = []
    for eps in (0.5, 1.0, 2.0, 4.0):
        log(f"table 3: ε = {eps}")
        b_mi = mutual_information_b(eps)
        grid = sorted({0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.38, 0.5, b_mi})
        means = {}
        for b in grid:
            rng = np.random.default_rng(args.seed)
            sw = SquareWave(eps, d, b=b)
            errs = []
            for _ in range(trials):
                counts = bucket_counts(rng.beta(5, 2, n), d)
                errs.append(wasserstein(counts / n, sw.reconstruct(sw.sample_histogram(counts, rng), n).values,
                                        edges, project=True))
            means[b] = float(np.mean(errs))
        best = min(means, key=means.__getitem__)
        cells = " ".join(f"{b:.3g}:{means[b]:.4f}" + ("*" if b == b_mi else "") for b in grid)
        rows.append([f"{eps:g}", f"{b_mi:.4f}", f"{means[b_mi]:.5f}", f"{best:.3g}", f"{means[best]:.5f}",
                     f"{means[b_mi] / means[best]:.2f}", cells])
    print_table("Table 3: W1 of SW + EMS against b (§6.4, Fig. 6)",
                [f"Beta(5, 2), 10^5 users, 256 buckets, fast engine, mean over {trials} populations; * = b_MI"],
                ["ε", "b_MI", "W1(b_MI)", "best b", "W1(best)", "ratio", "b:W1 ..."], rows)


# ============================================================================================ table 4
FIDELITY_METHODS = {  # label → (registry name, parameters, estimator), as tests/mechanisms/numerical/test_fidelity.py
    "SW + EMS": ("sw", {}, "ems"),
    "CFO-16": ("cfo-binning", {"bins": 16}, "norm-sub"),
    "CFO-32": ("cfo-binning", {"bins": 32}, "norm-sub"),
    "CFO-64": ("cfo-binning", {"bins": 64}, "norm-sub"),
    "HH-ADMM": ("hh", {}, "hh-admm"),
    "HaarHRR": ("haar-hrr", {}, "haar"),
}


def fidelity_comparison(epsilon: float, seeds: int) -> dict[str, float]:
    """Mean W1 over ``seeds`` (population, collection) pairs per method: the workload of test_fidelity.py."""
    from ldp.data import sample_counts, true_distribution

    d, users = 256, 100_000
    edges = np.linspace(0.0, 1.0, d + 1)
    freqs = true_distribution(f"beta:a=5,b=2,d={d}")
    populations = [sample_counts(freqs, users, np.random.default_rng(10_000 + s)) for s in range(seeds)]
    out = {}
    for label, (name, params, est) in FIDELITY_METHODS.items():
        mech = ldp.get_mechanism(name, epsilon, d, **params)
        out[label] = float(np.mean([ldp.simulate(mech, counts, estimators=[est], edges=edges, engine="fast", trials=1,
                                                 seed=s, metrics=["wasserstein"]).metrics[est]["wasserstein"][0]
                                    for s, counts in enumerate(populations)]))
    return out


def table_unit_targets(args: argparse.Namespace) -> None:
    from scipy import stats

    from ldp.mechanisms.numerical.hierarchy import HierarchicalHistogram

    rows: list[list[str]] = []
    log("table 4: HH + HH-ADMM at d = 1024")
    hh = HierarchicalHistogram(1.0, 1024)
    f = np.diff(stats.beta(5, 2).cdf(np.linspace(0.0, 1.0, 1025)))
    counts = np.random.default_rng(1).multinomial(1_000_000, f / f.sum())
    rng = np.random.default_rng(2)

    def hh_run() -> object:
        return hh.reconstruct(ldp.collect(hh, counts, rng, "fast"), method="hh-admm")

    hh_run()  # warm-up
    t, est = timed(hh_run, args.repeats)
    rows.append(["HH + HH-ADMM, d = 1024, n = 10^6, fast: collect + reconstruct", f"{t:.3f}", "1", "PASS" if t <= 1.0
                 else "FAIL", f"{est.iterations} ADMM iterations, converged={est.converged}"])  # type: ignore[attr-defined]
    seeds = 5 if args.quick else 30
    for eps in (0.5, 1.0, 2.0):
        log(f"table 4: fidelity comparison, ε = {eps}")
        t, means = timed(lambda eps=eps: fidelity_comparison(eps, seeds), 1)
        shown = ", ".join(f"{k} {v:.4f}" for k, v in means.items())  # type: ignore[union-attr]
        rows.append([f"fidelity comparison, ε = {eps:g}: 6 methods × {seeds} seeds, d = 256, n = 10^5, fast",
                     f"{t:.2f}", "10", ("PASS" if t <= 10.0 else "FAIL") if seeds == 30 else "(quick)",
                     f"mean W1: {shown}"])
    print_table("Table 4: the unit tests' former timing targets", [f"median of {args.repeats} (fidelity: one run); "
                                                                  f"{load()}"],
                ["case", "s", "target s", "", "notes"], rows,
                ["Formerly wall-clock assertions of tests/mechanisms/numerical/test_hierarchy.py (≤ 1 s) and",
                 "test_fidelity.py (< 10 s per ε, 30 seeds); the tests keep their accuracy assertions only."])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default="1,2,3,4", help="comma-separated table numbers (default 1,2,3,4)")
    parser.add_argument("--quick", action="store_true", help="fewer repeats and trials")
    parser.add_argument("--epsilon", type=float, default=1.0, help="ε of table 1 (default 1)")
    parser.add_argument("--d", type=int, default=1024, help="d = d̃ of table 1 (default 1024)")
    parser.add_argument("--n-client", type=float, default=1e6, help="users of the exact client (default 1e6)")
    parser.add_argument("--n-pipeline", type=float, default=1e6, help="users of the whole-pipeline row (default 1e6)")
    parser.add_argument("--n-ems", default="1e5,1e6", help="populations of the EM/EMS rows (default 1e5,1e6)")
    parser.add_argument("--repeats", type=int, default=None, help="timed calls per case (default 5; quick 1)")
    parser.add_argument("--trials", type=int, default=None, help="populations per cell in tables 2, 3 (default 20)")
    parser.add_argument("--seed", type=int, default=2020)
    args = parser.parse_args(argv)
    args.repeats = args.repeats or (1 if args.quick else 5)
    args.trials = args.trials or (3 if args.quick else 20)
    args.n_client = int(args.n_client)
    args.n_pipeline = int(args.n_pipeline)
    args.n_ems = [int(float(x)) for x in args.n_ems.split(",") if x.strip()]
    tables = {int(t) for t in args.tables.split(",") if t.strip()}
    if 1 in tables:
        table_timings(args)
    if 2 in tables:
        table_accuracy(args)
    if 3 in tables:
        table_b(args)
    if 4 in tables:
        table_unit_targets(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
