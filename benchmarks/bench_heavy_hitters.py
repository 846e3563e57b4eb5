"""Benchmarks of the heavy-hitter protocols (ldp.mechanisms.heavy_hitters): plain-text tables on stdout.

Run from the repository root::

    .venv/bin/python benchmarks/bench_heavy_hitters.py          # about a minute
    .venv/bin/python benchmarks/bench_heavy_hitters.py --quick  # 10^5 users

Tables
  1. PEM with n = 10^6 users, m = 32 bits, η = 4, k = 16: every user's report made by the client and the server's
     rounds (issue 12 target ≤ 10 s on 2 cores), with peak traced memory; TreeHist and the segment product beside it.
  2. precision / NCR against ε for every registered method side by side (m = 16, the teaching baselines' classroom
     scale, k = 16, 2·10^5 users of a Zipf(1.1) over 1,000 values at random positions; mean of 3 seeds).
  3. the lecture's "more bits or fewer bits per phase?": PEM's η from 1 to 8 at ε = 2 (groups, candidates probed,
     seconds, precision, NCR).

Nothing here asserts: the PASS/FAIL column is for a human to read.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

from ldp.mechanisms.protocol import protocols_of
from ldp.studies.heavy_hitters import find_heavy_hitters, precision_against_epsilon, zipf_values

METHODS = [c.name for c in protocols_of("heavy-hitters")]


def table_speed(n: int) -> None:
    print(f"\n1. n = {n:,} users, m = 32 bits, k = 16, ε = 2 (target: PEM ≤ 10 s at n = 10^6)")
    print(f"{'method':<10}{'seconds':>9}{'peak MB':>9}{'groups':>8}{'probed':>8}{'precision':>11}  PASS/FAIL")
    values = zipf_values(n, 32, seed=0)
    for name, params in (("pem", {"eta": 4}), ("treehist", {}), ("segments", {})):
        tracemalloc.start()
        t0 = time.perf_counter()
        run = find_heavy_hitters(name, 2.0, values, bits=32, top_k=16, seed=1, **params)
        dt = time.perf_counter() - t0
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        ok = "PASS" if name != "pem" or dt <= 10 else "FAIL"
        print(f"{name:<10}{dt:>9.2f}{peak:>9.0f}{len(run.result.rounds):>8}{run.result.candidates_probed:>8}"
              f"{run.scores['precision']:>11.2f}  {ok}")


def table_accuracy(n: int) -> None:
    values = zipf_values(n, 16, seed=2)
    t = precision_against_epsilon(METHODS, [0.5, 1.0, 2.0, 4.0, 8.0], values, bits=16, top_k=16,
                                  trials=3, params={"multiple-channel": {"channels": 1024}})
    print(f"\n2. precision / NCR against ε, every method side by side, n = {n:,}, m = 16 (the teaching baselines' "
          "classroom scale), k = 16, mean of 3 seeds; multiple-channel with 1,024 channels")
    wide = t.pivot(index="epsilon", columns="method", values=["precision", "ncr"])
    print(wide.to_string(float_format=lambda v: f"{v:.2f}"))
    for note in t.attrs.get("skipped", []):
        print(f"   left out: {note}")


def table_eta(n: int) -> None:
    values = zipf_values(n, 32, seed=3)
    print(f"\n3. PEM's bits per round η, ε = 2, n = {n:,}, m = 32, k = 16")
    print(f"{'eta':>4}{'groups':>8}{'probed':>8}{'seconds':>9}{'precision':>11}{'NCR':>7}")
    for eta in (1, 2, 3, 4, 6, 8):
        t0 = time.perf_counter()
        run = find_heavy_hitters("pem", 2.0, values, bits=32, top_k=16, seed=4, eta=eta)
        dt = time.perf_counter() - t0
        print(f"{eta:>4}{len(run.result.rounds):>8}{run.result.candidates_probed:>8}{dt:>9.2f}"
              f"{run.scores['precision']:>11.2f}{run.scores['ncr']:>7.2f}")


if __name__ == "__main__":
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--quick", action="store_true", help="10^5 users instead of 10^6")
    users = 100_000 if options.parse_args().quick else 1_000_000
    for table, size in ((table_speed, users), (table_accuracy, users // 5), (table_eta, users // 5)):
        table(size)
