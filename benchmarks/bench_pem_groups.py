"""PEM with equal groups against the solved allocation (groups="optimised", ldp.mechanisms.prefix_allocation): mean
found-of-true-top-k (recall) and its standard error over seeds, with the model's expected numbers found, on Zipf
populations. Usage: python benchmarks/bench_pem_groups.py [seeds]."""

from __future__ import annotations

import sys
import time

import numpy as np

from ldp.studies.heavy_hitters import find_heavy_hitters, zipf_values

SETTINGS = (  # (ε, bits, k, users, η)
    (2.0, 16, 8, 200_000, 4),
    (2.0, 16, 8, 100_000, 6),
    (1.0, 12, 4, 50_000, 4),
    (2.0, 32, 16, 200_000, 4),
    (4.0, 24, 8, 50_000, 5),
    (2.0, 10, 4, 30_000, 6),
)


def main(seeds: int) -> None:
    for eps, bits, k, users, eta in SETTINGS:
        values = zipf_values(users, bits, seed=0)
        line = f"ε={eps:g} m={bits} k={k} n={users:,} η≤{eta}:"
        for groups in ("uniform", "optimised"):
            t0 = time.perf_counter()
            runs = [find_heavy_hitters("pem", eps, values, bits=bits, top_k=k, seed=s, eta=eta, groups=groups)
                    for s in range(seeds)]
            recall = np.array([r.scores["recall"] for r in runs])
            p = runs[0].result.parameters
            line += (f"  {groups}: recall {recall.mean():.3f} ± {recall.std(ddof=1) / np.sqrt(seeds):.3f} "
                     f"lengths {p['prefix_lengths']}")
            if groups == "optimised":
                line += (f" shares {[round(x, 3) for x in p['shares']]} model {p['expected_found']:.2f} vs "
                         f"{p['uniform_expected_found']:.2f}")
            line += f" ({(time.perf_counter() - t0) / seeds:.2f} s/run)"
        print(line, flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
