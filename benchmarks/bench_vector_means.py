"""Benchmarks of the vector-mean mechanisms (ldp.mechanisms.vector): plain-text tables on stdout.

Run from the repository root::

    .venv/bin/python benchmarks/bench_vector_means.py          # about half a minute
    .venv/bin/python benchmarks/bench_vector_means.py --quick  # n = 10^5

Tables
  1. time and peak memory of ``estimate_mean`` for n = 10^6 users and d = 16 (issue 12 target: ≤ 2 s), every
     registered vector mechanism at ε = 2, with the largest error across coordinates in standard errors.
  2. the lecture's comparison: worst-case variance of one user's contribution per coordinate against d, at ε = 1
     and ε = 8 (closed form), and the simulated MSE of the mean (n = 10^5, d in {2, 8, 32}) against the closed form.

Nothing here asserts: the PASS/FAIL column is for a human to read.
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc

import numpy as np

import ldp
from ldp.mechanisms.vector import vector_mechanism
from ldp.studies.vector_means import variance_against_d


def table_speed(n: int) -> None:
    print(f"\n1. estimate_mean, n = {n:,}, d = 16, ε = 2 (target ≤ 2 s at n = 10^6)")
    print(f"{'mechanism':<11}{'seconds':>9}{'peak MB':>9}{'max |err|/se':>14}  PASS/FAIL")
    x = np.clip(np.random.default_rng(0).normal(0.2, 0.4, (n, 16)), -1, 1)
    for name in [cls.name for cls in ldp.mechanisms_of("vector")]:
        mech = vector_mechanism(name, 2.0, 16)
        rng = np.random.default_rng(1)
        tracemalloc.start()
        t0 = time.perf_counter()
        est = mech.estimate_mean(x, rng)
        dt = time.perf_counter() - t0
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        z = np.max(np.abs(est - x.mean(axis=0)) / np.sqrt(mech.mean_variance(x)))
        print(f"{name:<11}{dt:>9.2f}{peak:>9.0f}{z:>14.2f}  {'PASS' if dt <= 2.0 else 'FAIL'}")
        print(f"  {name} done", file=sys.stderr)


def table_lecture(n: int) -> None:
    dims = [1, 2, 4, 8, 16, 32, 64]
    for eps in (1.0, 8.0):
        t = variance_against_d(eps, dims).pivot(index="mechanism", columns="d", values="worst-case variance")
        print(f"\n2. worst-case variance per coordinate against d, ε = {eps:g} (closed form; the mean's MSE is /n)")
        print(t.reindex([cls.name for cls in ldp.mechanisms_of("vector")]).to_string(float_format=lambda v: f"{v:.3g}"))
    print(f"\n   simulated MSE of the mean vs closed form, n = {n:,}, ε = 1, x uniform on [−1, 1]^d (5 trials)")
    print(f"{'mechanism':<11}{'d':>4}{'simulated':>12}{'closed form':>13}{'ratio':>8}")
    rng = np.random.default_rng(3)
    for d in (2, 8, 32):
        x = rng.uniform(-1, 1, (n, d))
        for name in [cls.name for cls in ldp.mechanisms_of("vector")]:
            mech = vector_mechanism(name, 1.0, d)
            mse = np.mean([np.mean((mech.estimate_mean(x, rng) - x.mean(axis=0)) ** 2) for _ in range(5)])
            closed = float(np.mean(mech.mean_variance(x)))
            print(f"{name:<11}{d:>4}{mse:>12.3g}{closed:>13.3g}{mse / closed:>8.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    n = 100_000 if args.quick else 1_000_000
    table_speed(n)
    table_lecture(n // 10)


if __name__ == "__main__":
    main()
