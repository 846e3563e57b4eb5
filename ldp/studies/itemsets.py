"""Frequent items from set-valued data under LDP: the padding-and-sampling oracle on its own (PSFO with a given ℓ)
and SVIM (Wang, Li, Jha, S&P 2018), scored against the truth; a generator of sets with known frequent items and a
reader of basket files (one user per line, items separated by spaces or commas).

SVIM's three phases, each on its own group of users (parallel composition; the split is our choice, stated in
``SVIM_SPLIT``): (1) candidates — PSFO with ℓ = 1, the 2k items with the highest estimates; (2) the length
distribution — each user reports |x ∩ C| (capped at 2k) by GRR over 2k + 1 values, and ℓ is its 90th percentile;
(3) frequencies — PSFO with that ℓ on x ∩ C (the oracle chosen adaptively), then the **tail correction**: items of
sets longer than ℓ are under-counted, and if holding an item is independent of the set's length the PSFO estimate
is f(v)·Σᵢ θᵢ min(i, ℓ)/Σᵢ θᵢ i (θ the length distribution), so it is divided by that factor — which is exactly 1
when no set is longer than ℓ, keeping the estimate unbiased there (public code multiplies by a percentile constant
instead).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ldp.core.errors import LDPError
from ldp.core.streams import rng_for
from ldp.mechanisms.set_valued import PaddingSampling, SetValues

__all__ = ["ItemsetResult", "SVIM_SPLIT", "items_against_epsilon", "psfo_items", "read_baskets", "svim",
           "synthetic_sets", "tail_correction"]

#: Shares of the users in SVIM's three phases (candidates, length distribution, frequencies).
SVIM_SPLIT = (0.5, 0.1, 0.4)
LENGTH_PERCENTILE = 0.9
MAX_LINE_ITEMS = 10_000


@dataclass(frozen=True)
class ItemsetResult:
    """Found items (best first) with their estimated frequencies, the truth and the scores."""

    method: str
    epsilon: float
    users: int
    items: tuple[str, ...]
    estimates: np.ndarray
    parameters: dict[str, Any]
    true_items: tuple[str, ...]
    true_frequencies: np.ndarray
    scores: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"method": self.method, "epsilon": self.epsilon, "users": self.users, "parameters": self.parameters,
                "items": [{"items": [i], "estimate": float(e)} for i, e in zip(self.items, self.estimates,
                                                                               strict=True)],
                "true_top_k": [{"items": [i], "frequency": float(f)}
                               for i, f in zip(self.true_items, self.true_frequencies, strict=True)],
                "scores": self.scores}


def synthetic_sets(users: int, items: int = 200, *, s: float = 1.0, mean_size: float = 4.0, seed: int = 0
                   ) -> SetValues:
    """Sets whose sizes are 1 + Poisson(mean_size − 1) and whose items are drawn without repeats from a Zipf(s)
    over ``items`` items: the frequent items are the small codes, named "i0", "i1", …"""
    rng = rng_for(seed, "itemsets", "synthetic", items, s, mean_size)
    sizes = np.minimum(1 + rng.poisson(max(0.0, mean_size - 1), size=users), items)
    w = 1.0 / np.arange(1, items + 1) ** s
    w /= w.sum()
    draws = rng.choice(items, size=(users, int(sizes.max()) * 3), p=w)
    rows = []
    for r in range(users):  # per-user de-duplication of a short row: O(users · size), not per item of the domain
        uniq = list(dict.fromkeys(draws[r].tolist()))[: sizes[r]]
        rows.append(uniq)
    labels = tuple(f"i{k}" for k in range(items))
    flat = np.fromiter((v for row in rows for v in row), dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum([len(row) for row in rows])]).astype(np.int64)
    return SetValues(flat, offsets, labels)


def read_baskets(lines: Sequence[str]) -> SetValues:
    """One user per line, items separated by spaces or commas (blank lines: users with an empty set)."""
    sets = []
    for number, line in enumerate(lines, start=1):
        tokens = [t for t in line.replace(",", " ").split() if t]
        if len(tokens) > MAX_LINE_ITEMS:
            raise LDPError(f"line {number} holds {len(tokens):,} items (at most {MAX_LINE_ITEMS:,} per user)")
        sets.append(tokens)
    if not sets:
        raise LDPError("the basket file has no users")
    return SetValues.from_lists(sets)


def _scores(found: np.ndarray, estimates: np.ndarray, truth: np.ndarray, freqs: np.ndarray) -> dict[str, float]:
    from ldp.evaluation.heavy_hitters import heavy_hitter_scores

    return heavy_hitter_scores(found.astype(np.uint64), estimates, truth.astype(np.uint64),
                               lambda vs: freqs[np.asarray(vs, dtype=np.int64)])


def _result(method: str, epsilon: float, sets: SetValues, found: np.ndarray, est: np.ndarray, k: int,
            parameters: dict[str, Any]) -> ItemsetResult:
    freqs = sets.frequencies()
    truth = np.lexsort((np.arange(sets.d), -freqs))[:k]
    return ItemsetResult(method, float(epsilon), sets.users, tuple(sets.labels[i] for i in found), est, parameters,
                         tuple(sets.labels[i] for i in truth), freqs[truth], _scores(found, est, truth, freqs))


def psfo_items(sets: SetValues, epsilon: float, *, length: int, top_k: int, oracle: str = "adaptive",
               seed: int = 0) -> ItemsetResult:
    """PSFO with a given ℓ on every user: the k items with the highest ℓ·f̃."""
    psfo = PaddingSampling(epsilon, sets.d, length, oracle)
    est = psfo.collect(sets, rng_for(seed, "itemsets", "psfo", length))
    found = np.lexsort((np.arange(sets.d), -est))[:top_k]
    return _result("psfo", epsilon, sets, found, est[found], top_k,
                   {"length": length, "oracle": psfo.oracle, "item_sd": float(np.sqrt(psfo.item_variance(
                       sets.users)))})


def svim(sets: SetValues, epsilon: float, *, top_k: int, seed: int = 0) -> ItemsetResult:
    """SVIM's three phases (module docstring) on disjoint random groups of the users."""
    rng = rng_for(seed, "itemsets", "svim")
    order = rng.permutation(sets.users)
    cut1 = int(SVIM_SPLIT[0] * sets.users)
    cut2 = cut1 + int(SVIM_SPLIT[1] * sets.users)
    groups = [sets.subset(order[:cut1]), sets.subset(order[cut1:cut2]), sets.subset(order[cut2:])]
    if min(g.users for g in groups) < 1:
        raise LDPError(f"svim needs users in each of its three phases; got {sets.users}")
    # phase 1: candidates
    first = PaddingSampling(epsilon, sets.d, 1, "adaptive").collect(groups[0], rng)
    size = min(sets.d, 2 * top_k)
    candidates = np.lexsort((np.arange(sets.d), -first))[:size]
    keep = np.zeros(sets.d, dtype=bool)
    keep[candidates] = True
    # phase 2: length distribution of x ∩ C, by GRR over 0 … 2k
    lengths = np.minimum(groups[1].restrict(keep).sizes, size)
    e = np.exp(epsilon)
    p, q = e / (e + size), 1.0 / (e + size)
    other = rng.integers(0, size, size=lengths.size)
    reported = np.where(rng.random(lengths.size) < p, lengths, other + (other >= lengths))
    theta = (np.bincount(reported, minlength=size + 1) / lengths.size - q) / (p - q)
    theta = np.clip(theta, 0, None)
    theta = theta / theta.sum() if theta.sum() > 0 else np.full(size + 1, 1.0 / (size + 1))
    cdf = np.cumsum(theta[1:]) / max(theta[1:].sum(), 1e-12)  # among users holding at least one candidate
    length = int(np.searchsorted(cdf, LENGTH_PERCENTILE) + 1)
    # phase 3: frequencies with the chosen ℓ over the candidates only (recoded 0 … 2k − 1), then the tail correction
    restricted = groups[2].restrict(keep)
    code = np.full(sets.d, -1, dtype=np.int64)
    code[candidates] = np.arange(size)
    recoded = SetValues(code[restricted.items], restricted.offsets, tuple(sets.labels[c] for c in candidates))
    psfo = PaddingSampling(epsilon, size, length, "adaptive")
    correction = tail_correction(theta, length)
    est = psfo.collect(recoded, rng) * correction
    order_c = np.lexsort((candidates, -est))[:top_k]
    return _result("svim", epsilon, sets, candidates[order_c], est[order_c], top_k,
                   {"length": length, "oracle": psfo.oracle, "candidates": int(size), "tail_correction": correction,
                    "split": list(SVIM_SPLIT)})


def tail_correction(theta: np.ndarray, length: int) -> float:
    """Σᵢ θᵢ i / Σᵢ θᵢ min(i, ℓ) for a length distribution θ over 0, 1, …: the factor by which PSFO with ℓ
    under-counts an item whose holding is independent of the set's length (module docstring); exactly 1 when θ has
    no mass above ℓ."""
    theta = np.asarray(theta, dtype=np.float64)
    i = np.arange(theta.size)
    below = float((theta * np.minimum(i, int(length))).sum())
    return float((theta * i).sum() / below) if below > 0 else 1.0


def items_against_epsilon(sets: SetValues, epsilons: Sequence[float], *, top_k: int, seed: int = 0,
                          lengths: Sequence[int] = (1, 4)) -> pd.DataFrame:
    """Precision / NCR of SVIM and PSFO at fixed ℓ against ε (the side-by-side table)."""
    rows = []
    for eps in epsilons:
        runs = [svim(sets, eps, top_k=top_k, seed=seed)] + [psfo_items(sets, eps, length=ell, top_k=top_k, seed=seed)
                                                           for ell in lengths]
        for run in runs:
            label = run.method if run.method == "svim" else f"psfo ℓ={run.parameters['length']}"
            rows.append({"method": label, "epsilon": float(eps), **run.scores})
    return pd.DataFrame(rows)
