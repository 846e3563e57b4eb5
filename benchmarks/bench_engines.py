"""Benchmarks of the simulation engines (plain-text tables on stdout, progress on stderr).

Run from the repository root::

    .venv/bin/python benchmarks/bench_engines.py            # full run (~10 min on 2 cores)
    .venv/bin/python benchmarks/bench_engines.py --quick    # tiny smoke run (~1 min, mostly numba JIT)
    .venv/bin/python benchmarks/bench_engines.py --only grr,oue,olh --tables 1,3
    .venv/bin/python benchmarks/bench_engines.py --only grr,oue,she,ss,olh --tables 5 --baseline-root /tmp/base

Tables
  1. exact engine, n = 10^6, d = 1024, ε = 1: wall time of perturb + aggregate and peak memory per mechanism
  2. exact engine peak memory as n grows (10^5, 10^6, 10^7) for a few mechanisms: flat thanks to chunking
  3. fast engine, n = 10^9, d = 1024: median time per mechanism
  4. against multi-freq-ldpy (n = 2·10^4, d = 1024, ε = 1): time and MSE for the mechanisms both libraries have
  5. exact engine against its RNG floor (n = 10^6, d = 1024, ε = 1): the time to draw only the randomness each
     mechanism needs, the ratios time/floor and time/OUE, the load average beside every figure; with
     ``--baseline-root DIR`` (another source tree, e.g. ``git archive <commit> | tar -x -C DIR``) the same cases
     run on that tree's ``ldp`` too, side by side

Exact-engine cases (tables 1 and 2) each run in a fresh child process (this script with ``--child``) so
that the peak RSS of one case is not polluted by another. Nothing here asserts on time: the tables show
targets and a PASS/FAIL column for humans to read; this is not a unit test.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import resource
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
# run as a script: make the working tree's ``ldp`` importable (a child case of --baseline-root imports another tree's)
LDP_ROOT = os.environ.get("LDP_BENCH_ROOT", str(REPO_ROOT))
if LDP_ROOT not in sys.path:
    sys.path.insert(0, LDP_ROOT)

import numpy as np  # noqa: E402

import ldp  # noqa: E402

MiB = 1024 * 1024
GiB = 1024 * MiB

# Targets (seconds / bytes / ratios); see benchmarks/README.md.
EXACT_TARGET_S = 5.0
EXACT_TARGET_S_FAST_MECHS = {"grr": 1.0, "hr": 1.0}
EXACT_TARGET_MEMORY = 1 * GiB
FAST_TARGET_MS = 50.0
HASHING = ("blh", "olh", "l-blh", "l-olh")
HASHING_TARGET_RATIO = 20.0
MEMORY_MECHANISMS = ("grr", "oue", "ss", "olh", "she")


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------- helpers
def population(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    """Uniform-ish population: per-value counts drawn from Multinomial(n, uniform over d values)."""
    return rng.multinomial(n, np.full(d, 1.0 / d)).astype(np.int64)


def current_rss() -> int:
    """Resident set size of this process now (bytes); Linux /proc, else the peak so far."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return peak_rss()


def peak_rss() -> int:
    """Peak resident set size of this process so far (bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak) * (1 if sys.platform == "darwin" else 1024)


def load_average() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def load_now() -> float:
    """The 1-minute load average (/proc/loadavg), NaN where it cannot be read."""
    try:
        with open("/proc/loadavg", encoding="ascii") as fh:
            return float(fh.read().split()[0])
    except (OSError, ValueError, IndexError):
        try:
            return float(os.getloadavg()[0])
        except OSError:
            return float("nan")


def clip_renormalize(est: np.ndarray) -> np.ndarray:
    """multi-freq-ldpy's post-processing of matrix inversion: clip at 0, divide by the sum."""
    out = np.clip(est, 0.0, None)
    total = out.sum()
    return out / total if total > 0 else out


def fmt_s(seconds: float | None) -> str:
    if seconds is None or not math.isfinite(seconds):
        return "-"
    if seconds >= 100:
        return f"{seconds:.0f}"
    if seconds >= 10:
        return f"{seconds:.1f}"
    if seconds >= 1:
        return f"{seconds:.2f}"
    return f"{seconds:.3f}"


def fmt_mib(num_bytes: float | None) -> str:
    return "-" if num_bytes is None else f"{num_bytes / MiB:.0f}"


def fmt_n(n: int) -> str:
    exp = int(round(math.log10(n))) if n > 0 else 0
    if n == 10**exp:
        return f"10^{exp}"
    mant = n / 10**exp
    if float(mant).is_integer():
        return f"{int(mant)}·10^{exp}"
    return f"{n:,}"


def print_table(title: str, lines: Sequence[str], columns: Sequence[str], rows: Sequence[Sequence[str]],
                notes: Sequence[str] = ()) -> None:
    """A plain-text table: first column left-aligned, the others right-aligned."""
    widths = [max(len(str(c)), *(len(str(r[i])) for r in rows)) if rows else len(str(c))
              for i, c in enumerate(columns)]

    def fmt_row(cells: Sequence[str]) -> str:
        parts = [str(cells[0]).ljust(widths[0])] + [str(c).rjust(w) for c, w in zip(cells[1:], widths[1:],
                                                                                     strict=True)]
        return "  ".join(parts).rstrip()

    rule = "-" * len(fmt_row(columns))
    out = ["", title, "=" * len(title), *lines, rule, fmt_row(columns), rule]
    out += [fmt_row(r) for r in rows]
    out.append(rule)
    out += list(notes)
    print("\n".join(out), flush=True)


# ---------------------------------------------------------------------------------------------- child process
def child_main(spec: dict[str, Any]) -> None:
    """One exact-engine case in this (fresh) process; prints a JSON result on stdout."""
    name, n, d, eps, seed = spec["mechanism"], int(spec["n"]), int(spec["d"]), float(spec["epsilon"]), spec["seed"]
    rss_after_imports = current_rss()
    mech = ldp.get_mechanism(name, eps, d)
    counts = population(np.random.default_rng(seed), n, d)
    # Warm-up on a tiny population (lazy imports, first-touch allocations), not measured.
    warm = population(np.random.default_rng(seed + 1), min(n, 2000), d)
    ldp.run_exact(mech, np.random.default_rng(seed + 2), true_counts=warm)
    baseline = current_rss()
    times = []
    agg = None
    for rep in range(int(spec.get("repeats", 1))):
        t0 = time.perf_counter()
        agg = ldp.run_exact(mech, np.random.default_rng(seed + 10 + rep), true_counts=counts)
        times.append(time.perf_counter() - t0)
    peak = peak_rss()
    assert agg is not None
    freqs = counts / n
    est = mech.estimate(agg).values
    mse = float(np.mean((est - freqs) ** 2))
    try:
        theory = float(np.mean(mech.variance(freqs, n)))
    except Exception:  # sanity column only
        theory = float("nan")
    print(json.dumps({
        "mechanism": name, "n": n, "time": float(np.median(times)), "times": times, "load": load_now(),
        "ldp_file": ldp.__file__,
        "peak_increase": max(0, peak - baseline), "peak": peak, "baseline": baseline,
        "rss_after_imports": rss_after_imports, "chunk": mech.chunk_size(), "mse": mse, "theory": theory,
    }))


def run_child(spec: dict[str, Any], timeout: float, root: str | None = None) -> dict[str, Any]:
    env = dict(os.environ)
    root = root or str(REPO_ROOT)
    env["LDP_BENCH_ROOT"] = root
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", json.dumps(spec)]
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {timeout:.0f} s"}
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["?"])[-1]
        return {"error": f"child failed: {tail[:100]}"}
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    result["wall_with_startup"] = time.perf_counter() - t0
    return result


class ExactCases:
    """Runs (and caches) exact-engine child cases keyed by (mechanism, n)."""

    def __init__(self, args: argparse.Namespace, root: str | None = None) -> None:
        self.args = args
        self.root = root
        self.cache: dict[tuple[str, int], dict[str, Any]] = {}

    def get(self, name: str, n: int, tag: str) -> dict[str, Any]:
        key = (name, n)
        if key not in self.cache:
            log(f"[{tag}] exact engine {name:7s} n={fmt_n(n)}{' (baseline ' + self.root + ')' if self.root else ''} …")
            spec = {"mechanism": name, "n": n, "d": self.args.d, "epsilon": self.args.epsilon,
                    "seed": self.args.seed, "repeats": self.args.repeats}
            res = run_child(spec, self.args.child_timeout, self.root)
            self.cache[key] = res
            if "error" in res:
                log(f"[{tag}]   {name}: {res['error']}")
            else:
                log(f"[{tag}]   {name}: {fmt_s(res['time'])} s, peak +{fmt_mib(res['peak_increase'])} MiB")
        return self.cache[key]


# ---------------------------------------------------------------------------------------------- table 1
def table_exact(args: argparse.Namespace, names: list[str], cases: ExactCases) -> None:
    n, d = args.n_exact, args.d
    rows = []
    for name in names:
        res = cases.get(name, n, "table 1")
        target = EXACT_TARGET_S_FAST_MECHS.get(name, EXACT_TARGET_S)
        if "error" in res:
            rows.append([name, "-", f"≤ {target:g}", "-", "-", "-", "-", "-", res["error"]])
            continue
        problems = []
        if res["time"] > target:
            problems.append("time")
        if res["peak_increase"] > EXACT_TARGET_MEMORY:
            problems.append("memory")
        ratio = res["mse"] / res["theory"] if res["theory"] > 0 else float("nan")
        rows.append([name, fmt_s(res["time"]), f"≤ {target:g}", fmt_mib(res["peak_increase"]),
                     fmt_mib(res["peak"]), f"{res['chunk']:,}", f"{res['mse']:.2e}", f"{ratio:.2f}",
                     "PASS" if not problems else "FAIL (" + ", ".join(problems) + ")"])
    rep = "" if args.repeats == 1 else f" (median of {args.repeats} runs)"
    print_table(
        f"Table 1 - exact engine: n = {fmt_n(n)} users, d = {d}, ε = {args.epsilon:g}",
        [f"run_exact (perturb + aggregate, {ldp.engines.default_workers()} threads) on a uniform-ish population "
         "(multinomial counts);",
         f"time = wall time of one call{rep}, after a tiny warm-up call.",
         "Peak memory: fresh child process per mechanism; 'peak +MiB' = ru_maxrss after the run minus VmRSS after",
         "imports and warm-up; 'abs peak' = the child's whole ru_maxrss (Python + numpy + scipy included).",
         f"Targets: time ≤ {EXACT_TARGET_S:g} s (GRR, HR ≤ 1 s); peak increase ≤ 1 GiB.",
         "MSE/Var: empirical MSE of raw matrix inversion / closed-form mean variance (sanity: ≈ 1 ± noise)."],
        ["mechanism", "time s", "target s", "peak +MiB", "abs peak MiB", "chunk users", "MSE", "MSE/Var",
         "result"],
        rows)


# ---------------------------------------------------------------------------------------------- table 2
def table_memory(args: argparse.Namespace, names: list[str], cases: ExactCases) -> None:
    ns = [n for n in args.memory_ns if n <= args.max_n]
    if not ns:
        print(f"\nTable 2 skipped: every n exceeds --max-n {args.max_n}")
        return
    rows = []
    skipped = []
    for name in names:
        cells = []
        peaks = []
        prev: tuple[int, float] | None = None
        for n in ns:
            projected = None if prev is None else prev[1] * n / prev[0]
            if (name, n) not in cases.cache and projected is not None and projected > args.case_budget:
                cells.append(f"skip (~{fmt_s(projected)} s)")
                skipped.append(f"{name} at n={fmt_n(n)}")
                log(f"[table 2] skip {name} n={fmt_n(n)}: projected {fmt_s(projected)} s > {args.case_budget:g} s")
                prev = (n, projected)
                continue
            res = cases.get(name, n, "table 2")
            if "error" in res:
                cells.append(res["error"][:24])
                prev = None
                continue
            cells.append(f"{fmt_mib(res['peak_increase'])} ({fmt_s(res['time'])} s)")
            peaks.append(res["peak_increase"])
            prev = (n, res["time"])
        growth = "-" if len(peaks) < 2 else f"{(max(peaks) - peaks[0]) / MiB:+.0f}"
        verdict = "-" if not peaks else ("PASS" if max(peaks) <= EXACT_TARGET_MEMORY else "FAIL")
        chunk = ldp.get_mechanism(name, args.epsilon, args.d).chunk_size()
        rows.append([name, f"{chunk:,}", *cells, growth, verdict])
    notes = []
    if skipped:
        notes.append(f"skip: projected time (linear in n from the previous size) above --case-budget "
                     f"{args.case_budget:g} s: {', '.join(skipped)}.")
    print_table(
        f"Table 2 - exact engine peak memory as n grows (d = {args.d}, ε = {args.epsilon:g})",
        ["Cell: peak RSS increase in MiB of a fresh child process (same method as table 1), with the run time.",
         "Chunking bounds memory by the chunk (≈ 2^23 report cells per chunk, 2 chunks in flight), not by n:",
         "memory grows with n only until n fills two chunks ('chunk users'), then stays flat.",
         "'growth' is the largest peak minus the peak at the smallest n; target: peak increase ≤ 1 GiB at every n."],
        ["mechanism", "chunk users", *[f"n = {fmt_n(n)}" for n in ns], "growth MiB", "≤ 1 GiB"],
        rows, notes)


# ---------------------------------------------------------------------------------------------- table 3
def table_fast(args: argparse.Namespace, names: list[str]) -> None:
    n, d = args.n_fast, args.d
    counts = population(np.random.default_rng(args.seed), n, d)
    rows = []
    for name in names:
        log(f"[table 3] fast engine {name} n={fmt_n(n)}")
        mech = ldp.get_mechanism(name, args.epsilon, d)
        ldp.run_fast(mech, counts, np.random.default_rng(0))  # warm-up
        times = []
        for rep in range(args.fast_repeats):
            rng = np.random.default_rng(args.seed + rep)
            t0 = time.perf_counter()
            agg = ldp.run_fast(mech, counts, rng)
            times.append((time.perf_counter() - t0) * 1000)
        assert agg.n == n
        med = float(np.median(times))
        rows.append([name, f"{med:.3f}", f"{min(times):.3f}", f"{max(times):.3f}",
                     "exact" if mech.fast_engine_exact else "moments", f"≤ {FAST_TARGET_MS:g}",
                     "PASS" if med <= FAST_TARGET_MS else "FAIL"])
    print_table(
        f"Table 3 - fast engine: n = {fmt_n(n)} users, d = {d}, ε = {args.epsilon:g}",
        [f"run_fast (samples the support-count vector directly, O(d)); median / min / max of {args.fast_repeats} "
         "calls in ms after one warm-up call.",
         "'sampling': exact = exact in distribution; moments = exact mean and covariance (see ldp.engines)."],
        ["mechanism", "median ms", "min ms", "max ms", "sampling", "target ms", "result"],
        rows)


# ---------------------------------------------------------------------------------------------- table 5
def _floor_draws(name: str, mech: Any) -> Callable[[np.random.Generator, int], None] | None:
    """The randomness the client of ``name`` needs for m users, drawn and thrown away (None: no floor defined).

    One float64 uniform stands for one 'noise draw' (SHE's exact discrete Laplace needs one per cell, plus a
    second for one cell in 4,096); a Bernoulli bit likewise counts as one uniform (OUE: n·d uniforms — its byte
    thresholds draw less, so OUE may beat its floor)."""
    d = mech.d
    rows = max(1, (1 << 17) // d)  # SHE's blocks (the fastest size for uniforms alone too)

    def cells(rng: np.random.Generator, m: int) -> None:  # m·d uniforms in 1 MB blocks (no 8 GB arrays)
        buf = np.empty((min(m, rows), d))
        for start in range(0, m, rows):
            rng.random(out=buf[:min(rows, m - start)])

    if name in ("grr", "l-grr"):
        return lambda rng, m: (rng.random(m), rng.integers(0, d - 1, m))
    if name in ("oue", "sue", "the", "she"):
        return cells
    if name == "ss":
        omega = mech.omega
        return lambda rng, m: (rng.random(m), rng.integers(0, d, (m, omega)))
    if name in ("olh", "blh"):
        prime, g = mech.prime, mech.g
        return lambda rng, m: (rng.integers(1, prime, m), rng.integers(0, prime, m), rng.random(m),
                               rng.integers(0, max(1, g - 1), m))
    if name in ("l-olh", "l-blh"):  # the hash, then two GRR steps on [g] (the memoized one and the instant one)
        prime, g = mech.prime, mech.g
        return lambda rng, m: (rng.integers(1, prime, m), rng.integers(0, prime, m), rng.random(m),
                               rng.integers(0, max(1, g - 1), m), rng.random(m), rng.integers(0, max(1, g - 1), m))
    if name == "hr":
        return lambda rng, m: (rng.random(m), rng.integers(0, 2 * d, m))
    return None


def measure_floor(name: str, args: argparse.Namespace, repeats: int = 3) -> tuple[float, float] | None:
    """Wall time (median of ``repeats``) to draw the client's randomness for n users the way the exact engine
    would — the mechanism's chunks, one spawned generator per chunk, the engine's thread pool — and the load."""
    from concurrent.futures import ThreadPoolExecutor

    try:
        mech = ldp.get_mechanism(name, args.epsilon, args.d)
    except ldp.InvalidInput:  # a mechanism that does not take this d (a numerical one): its case says so too
        return None
    draw = _floor_draws(name, mech)
    if draw is None:
        return None
    n, chunk = args.n_exact, mech.chunk_size()
    workers = ldp.engines.default_workers()
    times = []
    for rep in range(repeats + 1):  # the first call is a warm-up
        rng = np.random.default_rng(args.seed + 100 + rep)
        bounds = list(ldp.engines.chunk_bounds(n, chunk))
        jobs = [(stop - start, child) for (start, stop), child in zip(bounds, rng.spawn(len(bounds)), strict=True)]
        t0 = time.perf_counter()
        with ThreadPoolExecutor(max_workers=workers) as pool:
            for _ in pool.map(lambda job: draw(job[1], job[0]), jobs):
                pass
        if rep:
            times.append(time.perf_counter() - t0)
    return float(np.median(times)), load_now()


def table_floor(args: argparse.Namespace, names: list[str], cases: ExactCases,
                baseline: ExactCases | None) -> None:
    n, d = args.n_exact, args.d
    measured: dict[str, tuple[dict[str, Any], tuple[float, float] | None, dict[str, Any] | None]] = {}
    for name in names:
        res = cases.get(name, n, "table 5")
        log(f"[table 5] RNG floor {name} n={fmt_n(n)} …")
        floor = measure_floor(name, args)
        base = baseline.get(name, n, "table 5") if baseline is not None else None
        measured[name] = (res, floor, base)
    oue = measured.get("oue", ({}, None, None))

    def ok(res: dict[str, Any] | None) -> bool:
        return res is not None and "error" not in res

    rows = []
    for name, (res, floor, base) in measured.items():
        t = res["time"] if ok(res) else None
        row = [name, fmt_s(t), f"{res['load']:.2f}" if ok(res) else res.get("error", "-")[:20]]
        row += [fmt_s(floor[0]), f"{floor[1]:.2f}"] if floor else ["-", "-"]
        row.append(f"{t / floor[0]:.2f}" if floor and t else "-")
        row.append(f"{t / oue[0]['time']:.2f}" if t and ok(oue[0]) else "-")
        if baseline is not None:
            bt = base["time"] if ok(base) else None
            row += [fmt_s(bt), f"{base['load']:.2f}" if ok(base) else "-",
                    f"{bt / floor[0]:.2f}" if floor and bt else "-",
                    f"{bt / oue[2]['time']:.2f}" if bt and ok(oue[2]) else "-",
                    f"{bt / t:.2f}" if bt and t else "-"]
        rows.append(row)
    columns = ["mechanism", "time s", "load", "floor s", "load", "time/floor", "time/OUE"]
    lines = [f"time: run_exact (perturb + aggregate, {ldp.engines.default_workers()} threads), the child case of "
             "table 1; load: 1-minute load average (/proc/loadavg) right after that figure was measured.",
             "floor: the time to draw only the randomness the client needs for n users, chunked and threaded as the",
             "engine does (median of 3 after a warm-up): GRR n uniforms + n integers; OUE/SUE/THE n·d uniforms;",
             "SHE n·d noise draws, one float64 uniform each (the minimum of its exact sampler); SS n uniforms + n·ω",
             "integers; OLH/BLH 3 integers + 1 uniform per user (no hashing), L-OLH/L-BLH 4 integers + 2 uniforms;",
             "HR 1 uniform + 1 integer per user. Frequency oracles only (every one unless --only).",
             "Goals (issue 'Fast everywhere'): SHE ≤ 4× OUE and ≤ 2× its floor; SS ≤ 2.5× OUE. Nothing is asserted."]
    if baseline is not None:
        columns += ["base s", "load", "base/floor", "base/OUE", "speed-up"]
        lines.append(f"base: the same child cases on the ldp of --baseline-root {baseline.root} (its own OUE in "
                     "base/OUE); speed-up = base s / time s.")
    print_table(f"Table 5 - exact engine against its RNG floor: n = {fmt_n(n)} users, d = {d}, ε = {args.epsilon:g}",
                lines, columns, rows)


# ---------------------------------------------------------------------------------------------- table 4
def _xxhash_str_shim(modules: Sequence[Any]) -> str | None:
    """multi-freq-ldpy hashes ``str(v)``; xxhash ≥ 4 rejects str. Patch its modules' ``xxhash`` if needed."""
    import xxhash

    try:
        xxhash.xxh32("0", seed=1)
        return None
    except TypeError:
        pass
    raw = xxhash.xxh32

    def xxh32(data: Any, seed: int = 0) -> Any:
        return raw(data.encode() if type(data) is str else data, seed=seed)

    shim = SimpleNamespace(xxh32=xxh32)
    for module in modules:
        module.xxhash = shim
    return xxhash.VERSION


def multi_freq_ldpy_cases(d: int, eps: float, eps1: float) -> tuple[dict[str, tuple[Callable, Callable]], str]:
    """name → (client(value), aggregator(reports)) of multi-freq-ldpy, MI aggregation."""
    from multi_freq_ldpy.long_freq_est import L_GRR, L_LH, L_OSUE, L_OUE, L_SOUE, L_SUE
    from multi_freq_ldpy.pure_frequency_oracles import GRR, HE, LH, SS, UE

    shimmed = _xxhash_str_shim([LH, L_LH])
    note = "" if shimmed is None else (
        f"xxhash {shimmed} rejects str, which multi-freq-ldpy's LH/L-LH code hashes: their xxhash.xxh32 is wrapped "
        "to encode str\nfirst. The wrapper adds ≈ 0.1-0.2 µs per hash call, so their hashing times may be slightly "
        "inflated;\n`pip install 'xxhash<4'` (benchmarks/requirements.txt) runs their code unmodified.")
    cases: dict[str, tuple[Callable, Callable]] = {
        "grr": (lambda v: GRR.GRR_Client(v, d, eps), lambda r: GRR.GRR_Aggregator_MI(r, d, eps)),
        "sue": (lambda v: UE.UE_Client(v, d, eps, False), lambda r: UE.UE_Aggregator_MI(r, eps, False)),
        "oue": (lambda v: UE.UE_Client(v, d, eps, True), lambda r: UE.UE_Aggregator_MI(r, eps, True)),
        "the": (lambda v: HE.HE_Client(v, d, eps), lambda r: HE.HE_Aggregator_MI(r, d, eps, True)),
        "she": (lambda v: HE.HE_Client(v, d, eps), lambda r: HE.HE_Aggregator_MI(r, d, eps, False)),
        "ss": (lambda v: SS.SS_Client(v, d, eps), lambda r: SS.SS_Aggregator_MI(r, d, eps)),
        "blh": (lambda v: LH.LH_Client(v, d, eps, False), lambda r: LH.LH_Aggregator_MI(r, d, eps, False)),
        "olh": (lambda v: LH.LH_Client(v, d, eps, True), lambda r: LH.LH_Aggregator_MI(r, d, eps, True)),
        "l-grr": (lambda v: L_GRR.L_GRR_Client(v, d, eps, eps1), lambda r: L_GRR.L_GRR_Aggregator_MI(r, d, eps, eps1)),
        "l-sue": (lambda v: L_SUE.L_SUE_Client(v, d, eps, eps1), lambda r: L_SUE.L_SUE_Aggregator_MI(r, eps, eps1)),
        "l-oue": (lambda v: L_OUE.L_OUE_Client(v, d, eps, eps1), lambda r: L_OUE.L_OUE_Aggregator_MI(r, eps, eps1)),
        "l-soue": (lambda v: L_SOUE.L_SOUE_Client(v, d, eps, eps1),
                   lambda r: L_SOUE.L_SOUE_Aggregator_MI(r, eps, eps1)),
        "l-osue": (lambda v: L_OSUE.L_OSUE_Client(v, d, eps, eps1),
                   lambda r: L_OSUE.L_OSUE_Aggregator_MI(r, eps, eps1)),
        "l-blh": (lambda v: L_LH.L_LH_Client(v, d, eps, eps1, False),
                  lambda r: L_LH.L_LH_Aggregator_MI(r, d, eps, eps1, False)),
        "l-olh": (lambda v: L_LH.L_LH_Client(v, d, eps, eps1, True),
                  lambda r: L_LH.L_LH_Aggregator_MI(r, d, eps, eps1, True)),
    }
    return cases, note


def table_compare(args: argparse.Namespace, names: list[str]) -> None:
    try:
        import multi_freq_ldpy  # noqa: F401
    except ImportError:
        print("\nTable 4 skipped: multi-freq-ldpy is not installed (pip install -r benchmarks/requirements.txt)")
        return
    n, d, eps = args.compare_n, args.d, args.epsilon
    eps1 = eps / 2
    theirs, shim_note = multi_freq_ldpy_cases(d, eps, eps1)
    shared = [name for name in names if name in theirs]
    missing = [name for name in names if name not in theirs]
    if not shared:
        print("\nTable 4 skipped: none of the selected mechanisms exists in multi-freq-ldpy")
        return
    counts = population(np.random.default_rng(args.seed), n, d)
    freqs = counts / n
    values = np.repeat(np.arange(d), counts)
    np.random.default_rng(args.seed + 1).shuffle(values)
    users = [int(v) for v in values]  # multi-freq-ldpy's clients take one Python int per call

    # Warm-up: compile every numba function on a tiny input with the same argument types (excluded).
    log("[table 4] warming up multi-freq-ldpy (numba JIT) and our engine on tiny inputs …")
    t0 = time.perf_counter()
    for name in shared:
        client, aggregate = theirs[name]
        aggregate([client(v) for v in users[:5]])
        mech = ldp.get_mechanism(name, eps, d)
        warm = ldp.run_exact(mech, np.random.default_rng(0), values=np.asarray(users[:50]))
        mech.estimate(warm.counts, warm.n)
    jit_s = time.perf_counter() - t0
    log(f"[table 4] warm-up took {jit_s:.1f} s")

    rows = []
    for name in shared:
        client, aggregate = theirs[name]
        log(f"[table 4] multi-freq-ldpy {name} n={fmt_n(n)} …")
        t0 = time.perf_counter()
        est_theirs = np.asarray(aggregate([client(v) for v in users]), dtype=np.float64)
        t_theirs = time.perf_counter() - t0
        mech = ldp.get_mechanism(name, eps, d)
        times = []
        for rep in range(args.compare_repeats):
            t0 = time.perf_counter()
            agg = ldp.run_exact(mech, np.random.default_rng(args.seed + rep), true_counts=counts)
            raw = mech.estimate(agg).values
            est_ours = clip_renormalize(raw)
            times.append(time.perf_counter() - t0)
        t_ours = float(np.median(times))
        ratio = t_theirs / t_ours
        need = HASHING_TARGET_RATIO if name in HASHING else 1.0
        ok = ratio >= need if name in HASHING else ratio > need
        log(f"[table 4]   {name}: theirs {fmt_s(t_theirs)} s, ours {fmt_s(t_ours)} s, ×{ratio:.1f}")
        rows.append([name, fmt_s(t_theirs), fmt_s(t_ours), f"{ratio:.1f}", f"≥ {need:g}" if need > 1 else "> 1",
                     "PASS" if ok else "FAIL", f"{np.mean((est_theirs - freqs) ** 2):.2e}",
                     f"{np.mean((est_ours - freqs) ** 2):.2e}", f"{np.mean((raw - freqs) ** 2):.2e}"])
    notes = []
    if missing:
        notes.append(f"not in multi-freq-ldpy: {', '.join(missing)}.")
    if shim_note:
        notes.append(shim_note)
    import multi_freq_ldpy

    version = getattr(multi_freq_ldpy, "__version__", None) or _dist_version("multi-freq-ldpy")
    print_table(
        f"Table 4 - against multi-freq-ldpy {version}: n = {fmt_n(n)} users, d = {d}, ε = {eps:g} "
        f"(longitudinal: ε∞ = {eps:g}, ε1 = {eps1:g})",
        ["theirs: *_Client called once per user (a Python loop: their API is per user) + *_Aggregator_MI, one run;",
         f"numba JIT compilation excluded (every function warmed up on a tiny input first: {jit_s:.1f} s).",
         f"ours: run_exact + matrix inversion + the same clip/renormalize, median of {args.compare_repeats} "
         "run(s) after a warm-up.",
         f"ratio = theirs / ours. Target: ours faster for every shared mechanism, ≥ {HASHING_TARGET_RATIO:g}× for "
         f"hashing ({', '.join(HASHING)}).",
         "Reference (team): GRR 0.04 s, OUE 0.58 s, OLH 18.5 s for multi-freq-ldpy.",
         "MSE vs the true frequencies: 'MSE theirs' = their MI output (clipped at 0 and renormalized);",
         "'MSE ours' = our MI with that same post-processing; 'MSE ours raw' = our unclipped matrix inversion."],
        ["mechanism", "theirs s", "ours s", "ratio", "target", "result", "MSE theirs", "MSE ours", "MSE ours raw"],
        rows, notes)


def _dist_version(dist: str) -> str:
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "?"


# ---------------------------------------------------------------------------------------------- main
def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="tiny smoke run (small n everywhere)")
    parser.add_argument("--only", default=None, help="comma-separated mechanism names (default: all)")
    parser.add_argument("--tables", default="1,2,3,4,5", help="which tables to run, e.g. 1,3 (default: all)")
    parser.add_argument("--baseline-root", default=None,
                        help="table 5: also run the exact cases on the ldp package of this source tree")
    parser.add_argument("--d", type=int, default=1024, help="domain size (default 1024)")
    parser.add_argument("--epsilon", type=float, default=1.0, help="ε (ε∞ for longitudinal mechanisms)")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--n-exact", type=float, default=None, help="users for table 1 (default 1e6)")
    parser.add_argument("--memory-n", default=None, help="comma-separated n for table 2 (default 1e5,1e6,1e7)")
    parser.add_argument("--memory-mechanisms", default=",".join(MEMORY_MECHANISMS),
                        help="mechanisms of table 2 (default: %(default)s)")
    parser.add_argument("--max-n", type=float, default=1e7, help="cap on table 2's n (default 1e7)")
    parser.add_argument("--case-budget", type=float, default=120.0,
                        help="table 2 skips a case whose projected time exceeds this many seconds (default 120)")
    parser.add_argument("--repeats", type=int, default=1, help="timed run_exact calls per exact case (median)")
    parser.add_argument("--n-fast", type=float, default=1e9, help="users for table 3 (default 1e9)")
    parser.add_argument("--fast-repeats", type=int, default=None, help="calls per mechanism in table 3 (default 15)")
    parser.add_argument("--compare-n", type=float, default=None, help="users for table 4 (default 2e4)")
    parser.add_argument("--compare-repeats", type=int, default=3, help="our runs per mechanism in table 4 (median)")
    parser.add_argument("--child-timeout", type=float, default=900.0, help="seconds before a child case is killed")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    q = args.quick
    args.n_exact = int(args.n_exact or (20_000 if q else 1_000_000))
    memory_n = args.memory_n or ("10000,100000" if q else "1e5,1e6,1e7")
    args.memory_ns = sorted(int(float(x)) for x in memory_n.split(",") if x.strip())
    args.max_n = int(args.max_n)
    args.n_fast = int(args.n_fast)
    args.fast_repeats = args.fast_repeats or (3 if q else 15)
    args.compare_n = int(args.compare_n or (300 if q else 20_000))
    if q:
        args.compare_repeats = 1
    args.tables = {int(t) for t in args.tables.split(",") if t.strip()}
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    if args.child is not None:
        child_main(json.loads(args.child))
        return
    all_names = list(ldp.MECHANISMS.names())
    if args.only:
        names = [s.strip().lower() for s in args.only.split(",") if s.strip()]
        unknown = [s for s in names if s not in all_names]
        if unknown:
            sys.exit(f"unknown mechanism(s) {', '.join(unknown)}; choose from: {', '.join(all_names)}")
    else:
        names = all_names
    memory_names = [s.strip().lower() for s in args.memory_mechanisms.split(",") if s.strip()]
    memory_names = [s for s in memory_names if s in names]

    started = time.perf_counter()
    print(f"LDP engine benchmarks{' (QUICK smoke run: sizes are NOT the target sizes)' if args.quick else ''}")
    print(f"ldp {ldp.__version__}, numpy {np.__version__}, Python {platform.python_version()}, "
          f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, {time.strftime('%Y-%m-%d %H:%M')}, "
          f"load average {load_average()} at start")
    print("command: " + " ".join([os.path.relpath(sys.executable), *sys.argv]), flush=True)
    cases = ExactCases(args)
    if 1 in args.tables:
        table_exact(args, names, cases)
    if 2 in args.tables:
        if memory_names:
            table_memory(args, memory_names, cases)
        else:
            print("\nTable 2 skipped: none of its mechanisms is selected")
    if 3 in args.tables:
        table_fast(args, names)
    if 4 in args.tables:
        table_compare(args, names)
    if 5 in args.tables:
        baseline = ExactCases(args, str(Path(args.baseline_root).resolve())) if args.baseline_root else None
        table_floor(args, [n for n in names if ldp.MECHANISMS.get(n).kind == "frequency"], cases, baseline)
    print(f"\ntotal wall time: {time.perf_counter() - started:.0f} s; load average {load_average()} at the end",
          flush=True)


if __name__ == "__main__":
    main()
