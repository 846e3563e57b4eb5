"""The privacy questions' headline tables (ldp.privacy), with timings: plain-text tables on stdout.

Run from the repository root::

    .venv/bin/python benchmarks/bench_privacy.py

Tables
  1. shuffle: central ε at δ = 1e-6 for a few (n, ε₀) — FMT closed form (None where its condition fails), the
     numerical lower/upper bounds of the authors' algorithm (step 100, early stop) and with every interval
     summed at a fine step (tight), the privacy blanket of GRR on d = 10, and the seconds of one evaluation
  2. audit: empirical lower bound on ε per mechanism (ε = 1, d = 8, 10^6 reports per input; broken OLH at
     ε = 0.5), with the exact channel's ε
  3. longitudinal: the attacker's mean posterior on the true value vs rounds (GRR, d = 4, ε1 = 0.5, ε∞ = 2)
  4. poisoning: MGA gain of 3 targets per mechanism vs β (ε = 1, d = 32, Zipf genuine data, n = 10^5): closed
     form, simulated with MI and after Norm-Sub

Nothing here asserts; this is not a unit test.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ldp.privacy.audit import audit, make_audited  # noqa: E402
from ldp.privacy.longitudinal import longitudinal_study  # noqa: E402
from ldp.privacy.poisoning import attacked_mechanism, simulate_attack  # noqa: E402
from ldp.privacy.shuffle import fine_step, shuffle_bounds  # noqa: E402


def fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.4f}"


def shuffle_table() -> None:
    print("1. shuffle (δ = 1e-6)")
    print(f"{'n':>9} {'ε₀':>4} {'closed':>8} {'lower':>8} {'upper':>8} {'tight lo':>8} {'tight up':>8} "
          f"{'blanket':>8} {'s':>6}")
    for n in (10_000, 100_000, 1_000_000):
        for e0 in (1.0, 2.0, 4.0, 6.0):
            t = time.perf_counter()
            ref = shuffle_bounds(n, e0, 1e-6, 10)
            seconds = time.perf_counter() - t
            tight = shuffle_bounds(n, e0, 1e-6, 10, fine_step(n, e0), early_stop=False)
            print(f"{n:>9} {e0:>4g} {fmt(ref.closed_form):>8} {fmt(ref.lower):>8} {fmt(ref.upper):>8} "
                  f"{fmt(tight.lower):>8} {fmt(tight.upper):>8} {fmt(ref.blanket):>8} {seconds:>6.2f}")


def audit_table() -> None:
    print("\n2. audit (10^6 reports per input, 95 % confidence)")
    print(f"{'mechanism':>11} {'claimed':>8} {'channel':>8} {'audit ≥':>8} {'s':>6}")
    for name, eps, d in (("grr", 1.0, 8), ("oue", 1.0, 8), ("olh", 1.0, 8), ("ss", 1.0, 8), ("hr", 1.0, 8),
                         ("the", 1.0, 8), ("she", 1.0, 8), ("l-grr", 2.0, 8), ("sw", 1.0, 16), ("pm", 1.0, None),
                         ("broken-olh", 0.5, 8)):
        t = time.perf_counter()
        r = audit(make_audited(name, eps, d), samples=1_000_000, seed=0)
        print(f"{name:>11} {r.epsilon:>8g} {fmt(r.channel_epsilon):>8} {r.epsilon_lower_bound:>8.4f} "
              f"{time.perf_counter() - t:>6.2f}")


def longitudinal_table() -> None:
    print("\n3. longitudinal (GRR d = 4, ε1 = 0.5, ε∞ = 2, 20000 users)")
    res = longitudinal_study(4, 2.0, 0.5, [1, 2, 5, 10, 20, 50, 100, 200], users=20_000, seed=0)
    print(f"{'rounds':>6} {'ε fresh':>8} {'ε memo':>7} {'post fresh':>10} {'post memo':>9} {'bound fresh':>11} "
          f"{'bound memo':>10}")
    for row in res.rows():
        print(f"{row['rounds']:>6} {row['composed_epsilon']:>8g} {row['memoized_epsilon']:>7g} "
              f"{row['posterior_fresh']:>10.4f} {row['posterior_memoized']:>9.4f} {row['bound_fresh']:>11.4f} "
              f"{row['bound_memoized']:>10.4f}")
    print(f"memoized limit (τ → ∞, closed form): {res.memoized_limit:.4f}; prior max {res.prior_max:.2f}")


def poisoning_table() -> None:
    print("\n4. poisoning (MGA, ε = 1, d = 32, targets 29,30,31, n = 10^5, 10 trials)")
    d, n = 32, 100_000
    w = 1 / np.arange(1, d + 1)
    counts = np.floor(w / w.sum() * n).astype(np.int64)
    counts[0] += n - counts.sum()
    print(f"{'mech':>5} {'β':>5} {'closed':>8} {'sim MI':>8} {'Norm-Sub':>8}")
    for name in ("grr", "oue", "olh"):
        for beta in (0.01, 0.05, 0.1):
            r = simulate_attack(attacked_mechanism(name, 1.0, d), counts, [29, 30, 31], beta, trials=10, seed=0)
            print(f"{name:>5} {beta:>5g} {r.expected_gain:>8.4f} {r.simulated_gain['mi']:>8.4f} "
                  f"{r.simulated_gain['norm-sub']:>8.4f}")


if __name__ == "__main__":
    shuffle_table()
    audit_table()
    longitudinal_table()
    poisoning_table()
