"""Benchmarks of frequent-item mining on set-valued data (ldp.studies.itemsets): plain-text tables on stdout.

Run from the repository root::

    .venv/bin/python benchmarks/bench_itemsets.py          # about a minute
    .venv/bin/python benchmarks/bench_itemsets.py --quick  # 10^5 users

Tables
  1. SVIM with n = 10^6 users over 10^4 items (mean set size 4), k = 16, ε = 2, on the exact engine (every user's
     report made by the client; issue 12 target ≤ 10 s) and the fast one, with peak traced memory.
  2. precision / NCR against ε for SVIM, LDPMiner and PSFO with ℓ = 1 and 4 side by side (10^5 users, 200 items,
     k = 10), and SVSM's itemsets (k = 8).

Nothing here asserts: the PASS/FAIL column is for a human to read.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

from ldp.studies.itemsets import items_against_epsilon, ldpminer, svim, svsm, synthetic_sets


def table_speed(n: int) -> None:
    sets = synthetic_sets(n, 10_000, seed=0)
    print(f"\n1. SVIM, n = {n:,} users, 10,000 items, k = 16, ε = 2 (target ≤ 10 s at n = 10^6 on the exact engine)")
    print(f"{'engine':<8}{'seconds':>9}{'peak MB':>9}{'precision':>11}  PASS/FAIL")
    for engine in ("exact", "fast"):
        tracemalloc.start()
        t0 = time.perf_counter()
        run = svim(sets, 2.0, top_k=16, seed=1, engine=engine)
        dt = time.perf_counter() - t0
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        print(f"{engine:<8}{dt:>9.2f}{peak:>9.0f}{run.scores['precision']:>11.2f}  {'PASS' if dt <= 10 else 'FAIL'}")


def table_accuracy(n: int) -> None:
    sets = synthetic_sets(n, 200, seed=2)
    epsilons = (0.5, 1.0, 2.0, 4.0)
    table = items_against_epsilon(sets, epsilons, top_k=10)
    extra = [{"method": "ldpminer", "epsilon": e, **ldpminer(sets, e, top_k=10).scores} for e in epsilons]
    extra += [{"method": "svsm (itemsets, k = 8)", "epsilon": e, **svsm(sets, e, top_k=8).scores} for e in epsilons]
    import pandas as pd

    table = pd.concat([table, pd.DataFrame(extra)], ignore_index=True)
    print(f"\n2. precision and NCR against ε, n = {n:,}, 200 items, k = 10 (items) / 8 (itemsets)")
    print(table.pivot(index="method", columns="epsilon", values=["precision", "ncr"])
          .to_string(float_format=lambda v: f"{v:.2f}"))


if __name__ == "__main__":
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--quick", action="store_true", help="10^5 users instead of 10^6")
    users = 100_000 if options.parse_args().quick else 1_000_000
    table_speed(users)
    table_accuracy(users // 10)
