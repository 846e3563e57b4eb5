"""Fidelity to the square-wave paper's main finding (Li et al., SIGMOD 2020, §7, Figure 4 family): on a
smooth, skewed distribution, Square Wave with EMS reconstructs the distribution better in Wasserstein-1
distance than CFO-binning (at any of the paper's bin counts), hierarchical histograms with HH-ADMM and
HaarHRR.

Setup: Beta(5, 2) cut into d = 256 buckets of [0, 1], n = 10^5 users, fast engines, ε ∈ {0.5, 1, 2},
SEEDS independent (population, collection) pairs per method; every method sees the same populations
(paired comparison).

Measured with these seeds (mean W1 over the 30 seeds, in units of the [0, 1] domain; in brackets the paired
mean difference competitor − SW in standard errors of that paired mean):

    ε     SW+EMS    CFO-16          CFO-32          CFO-64          HH-ADMM         HaarHRR
    0.5   0.0091    0.0142 (3.6)    0.0232 (6.5)    0.0464 (12.2)   0.0181 (8.8)    0.157 (28)
    1     0.0051    0.0071 (3.0)    0.0111 (6.7)    0.0216 (10.9)   0.0096 (8.9)    0.120 (37)
    2     0.0021    0.0033 (5.3)    0.0045 (6.4)    0.0086 (11.4)   0.0049 (11.2)   0.086 (45)

The closest competitor is CFO-binning with 16 bins at ε ≤ 1 (≈ 38–56 % worse than SW, at 3.0–3.6 SE with
30 seeds: significant at the 1 % level one-sided, but not by a huge margin — 16 bins happen to suit a
smooth unimodal Beta(5, 2) at these n). Every other competitor is ≥ 6 SE and ≥ 80 % worse. The test
asserts, per ε and competitor, that the paired mean difference exceeds 2 SE and that the competitor's mean
W1 is at least 15 % above SW's. Its wall time (target 10 s per ε) is a row of ``benchmarks/bench_numerical.py``
(table 4), not an assertion here. (W1 is scored on the Norm-Sub
projection of estimates that are not distributions — HaarHRR's — as ``ldp.simulate`` does for numerical
mechanisms; the streams of random numbers are ``ldp.simulate``'s, so the table was re-measured when the
library moved to named streams.)
"""

from __future__ import annotations

import numpy as np
import pytest

import ldp
from ldp.data import sample_counts, true_distribution

D = 256
USERS = 100_000
SEEDS = 30
EPSILONS = (0.5, 1.0, 2.0)
EDGES = np.linspace(0.0, 1.0, D + 1)
METHODS = {  # label → (registry name, parameters, estimator; None: the mechanism's own)
    "SW + EMS": ("sw", {}, "ems"),
    "CFO-binning, 16 bins": ("cfo-binning", {"bins": 16}, None),
    "CFO-binning, 32 bins": ("cfo-binning", {"bins": 32}, None),
    "CFO-binning, 64 bins": ("cfo-binning", {"bins": 64}, None),
    "HH + HH-ADMM": ("hh", {}, "hh-admm"),
    "HaarHRR": ("haar-hrr", {}, None),
}


def wasserstein_per_seed(epsilon: float) -> dict[str, np.ndarray]:
    freqs = true_distribution(f"beta:a=5,b=2,d={D}")
    populations = [sample_counts(freqs, USERS, np.random.default_rng(10_000 + s)) for s in range(SEEDS)]
    out = {}
    for label, (name, params, rec) in METHODS.items():
        mech = ldp.get_mechanism(name, epsilon, D, **params)
        est = rec or mech.default_estimator
        out[label] = np.array([ldp.simulate(mech, counts, estimators=[est], edges=EDGES, engine="fast", trials=1,
                                            seed=s, metrics=["wasserstein"]).metrics[est]["wasserstein"][0]
                               for s, counts in enumerate(populations)])
    return out


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_square_wave_with_ems_beats_binning_and_hierarchies_in_wasserstein(epsilon):
    w1 = wasserstein_per_seed(epsilon)
    sw = w1["SW + EMS"]
    for label, other in w1.items():
        if label == "SW + EMS":
            continue
        diff = other - sw
        se = diff.std(ddof=1) / np.sqrt(SEEDS)
        assert diff.mean() > 2 * se, (epsilon, label, sw.mean(), other.mean(), se)
        assert other.mean() > 1.15 * sw.mean(), (epsilon, label, sw.mean(), other.mean())
