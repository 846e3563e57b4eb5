"""PEM and TreeHist before/after a change of their rounds' frequency oracle (issue 20): found-of-true-top-k
(recall), precision and the found values' estimation error (MSE of the estimated frequencies), averaged over 5
seeds on fixed Zipf populations. Usage: python benchmarks/bench_heavy_hitter_oracles.py [label]."""

from __future__ import annotations

import sys
import time

import numpy as np

from ldp.studies.heavy_hitters import find_heavy_hitters, zipf_values

SETTINGS = (  # (method, ε, bits, k, users, params)
    ("pem", 2.0, 16, 8, 200_000, {}),
    ("pem", 2.0, 32, 16, 400_000, {}),
    ("pem", 1.0, 48, 8, 400_000, {}),
    ("treehist", 4.0, 16, 8, 200_000, {}),
    ("treehist", 4.0, 32, 8, 400_000, {}),
)
SEEDS = range(5)


def main(label: str) -> None:
    for method, eps, bits, k, users, params in SETTINGS:
        values = zipf_values(users, bits, seed=0)
        t0 = time.perf_counter()
        runs = [find_heavy_hitters(method, eps, values, bits=bits, top_k=k, seed=s, **params) for s in SEEDS]
        took = (time.perf_counter() - t0) / len(runs)
        mean = {key: float(np.mean([r.scores[key] for r in runs])) for key in ("recall", "precision", "mse")}
        print(f"{label:8s} {method:9s} ε={eps:g} m={bits} k={k} n={users:,}: recall {mean['recall']:.3f} "
              f"precision {mean['precision']:.3f} rmse {mean['mse'] ** 0.5:.5f}  ({took:.2f} s/run)", flush=True)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "")
