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
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from ldp.core.errors import InvalidInput
from ldp.core.params import Param
from ldp.core.registry import MECHANISMS, PROTOCOLS
from ldp.core.streams import rng_for
from ldp.engines import collect
from ldp.evaluation.heavy_hitters import heavy_hitter_scores
from ldp.maths.simplex import norm_sub
from ldp.mechanisms.base import Mechanism
from ldp.mechanisms.protocol import Protocol
from ldp.mechanisms.set_valued import PAD, STRAWMAN_MAX_ITEMS, PaddingSampling, SetValues, WholeSetOracle

__all__ = ["COMPARED_MINERS", "ItemsetMiner", "ItemsetResult", "LDPMINER_SPLIT", "SVIM_SPLIT", "collect_padded",
           "compare_miners", "estimate_padded",
           "flight_baskets", "items_against_epsilon", "ldpminer", "length_oracle", "padding_tradeoff",
           "private_lengths", "psfo_items",
           "read_baskets", "sample_baskets", "strawman_items", "svim", "svsm", "synthetic_sets", "tail_correction",
           "true_itemsets"]

#: Shares of the users in SVIM's three phases (candidates, length distribution, frequencies).
SVIM_SPLIT = (0.5, 0.1, 0.4)
LENGTH_PERCENTILE = 0.9
MAX_LINE_ITEMS = 10_000
#: Most hash evaluations (users × padded items) one OLH collection may cost on the exact engine, where the server
#: checks every report against every item (≈ 10 s; 200,000 users × 200,000 items would be 4·10¹⁰, minutes).
MAX_EXACT_HASHES = 4e9


@dataclass(frozen=True)
class ItemsetResult:
    """Found items (best first) with their estimated frequencies, the truth and the scores.

    Attributes
    ----------
    method : str
        The miner's registered name (``psfo``, ``strawman``, ``svim``, ``ldpminer``, ``svsm``).
    epsilon : float
        Each user's budget ε.
    users : int
        All users n.
    items : tuple of tuple of str
        Each found item (a 1-tuple of its label) or itemset (its items' labels), best first.
    estimates : numpy.ndarray
        Their estimated frequencies (fractions of the users in the estimating group), aligned with ``items``.
    parameters : dict of str to Any
        What the run chose (ℓ, oracle, candidates, tail correction, split …).
    true_items : tuple of tuple of str
        The true top k items or itemsets, most frequent first.
    true_frequencies : numpy.ndarray
        Their frequencies (fractions of n).
    scores : dict of str to float, default {}
        :func:`ldp.evaluation.heavy_hitters.heavy_hitter_scores` of the answer: ``precision``, ``recall``,
        ``f1``, ``ncr``, ``mse`` and ``relative_error``.
    """

    method: str
    epsilon: float
    users: int
    items: tuple[tuple[str, ...], ...]  #: each found item (a 1-tuple) or itemset, best first
    estimates: np.ndarray
    parameters: dict[str, Any]
    true_items: tuple[tuple[str, ...], ...]
    true_frequencies: np.ndarray
    scores: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"method": self.method, "epsilon": self.epsilon, "users": self.users, "parameters": self.parameters,
                "items": [{"items": list(i), "estimate": float(e)} for i, e in zip(self.items, self.estimates,
                                                                                   strict=True)],
                "true_top_k": [{"items": list(i), "frequency": float(f)}
                               for i, f in zip(self.true_items, self.true_frequencies, strict=True)],
                "scores": self.scores}


def synthetic_sets(users: int, items: int = 200, *, s: float = 1.0, mean_size: float = 4.0, seed: int = 0,
                   chunk: int = 100_000, patterns: Sequence[tuple[Sequence[int], float]] = ()) -> SetValues:
    """Sets whose sizes are 1 + Poisson(mean_size − 1) (at most ``items``) and whose items are the first distinct
    draws of a Zipf(s) over ``items`` items (sampling without replacement, in draw order): the frequent items are the
    small codes, named "i0", "i1", … ``patterns``: known frequent itemsets — (items, probability) pairs; each user's
    set also holds each pattern's items with its probability, independently. Vectorized a chunk of users at a time
    (rows of draws, the first occurrence of each item in a row found by a stable sort).

    Parameters
    ----------
    users : int
        Users (at least 1).
    items : int, default 200
        The item domain's size d (at least 1).
    s : float, default 1.0
        Zipf's exponent of the item draws.
    mean_size : float, default 4.0
        The mean set size before the cap at ``items`` (sizes are 1 + Poisson(mean_size − 1)).
    seed : int, default 0
        The seed; the stream is keyed by (items, s, mean_size).
    chunk : int, default 100000
        Users generated per vectorized block (bounds the memory; the draws are made block by block, so another
        ``chunk`` gives other sets for the same seed once ``users`` exceeds it).
    patterns : Sequence[tuple[Sequence[int], float]], default ()
        Planted itemsets: (item codes in [0, items), probability in [0, 1]).

    Returns
    -------
    SetValues
        The users' sets, items labelled "i0" … "i{items − 1}".

    Raises
    ------
    InvalidInput
        If ``users`` or ``items`` is below 1, or a pattern is empty, has an item outside [0, items) or a
        probability outside [0, 1].
    """
    planted = [(np.asarray(items_, dtype=np.int64), float(prob)) for items_, prob in patterns]
    for items_, prob in planted:
        if items_.size == 0 or items_.min() < 0 or items_.max() >= items or not 0 <= prob <= 1:
            raise InvalidInput(f"a planted pattern needs items in [0, {items}) and a probability in [0, 1]")
    if users < 1 or items < 1:
        raise InvalidInput(f"need at least one user and one item, got {users} and {items}")
    rng = rng_for(seed, "itemsets", "synthetic", items, s, mean_size)
    w = 1.0 / np.arange(1, items + 1) ** s
    w /= w.sum()
    parts, offsets, total = [], [np.zeros(1, dtype=np.int64)], 0
    for start in range(0, int(users), chunk):
        m = min(chunk, int(users) - start)
        sizes = np.minimum(1 + rng.poisson(max(0.0, mean_size - 1), size=m), items)
        width = int(sizes.max()) * 4 + 8
        draws = rng.choice(items, size=(m, width), p=w)
        order = np.argsort(draws, axis=1, kind="stable")
        ranked = np.take_along_axis(draws, order, axis=1)
        first_sorted = np.ones_like(ranked, dtype=bool)
        first_sorted[:, 1:] = ranked[:, 1:] != ranked[:, :-1]
        first = np.zeros_like(first_sorted)
        np.put_along_axis(first, order, first_sorted, axis=1)  # first occurrence, in draw order
        keep = first & (np.cumsum(first, axis=1) <= sizes[:, None])
        if planted:  # add each pattern's items where it is drawn, then drop repeats again
            extra = [np.where((rng.random(m) < prob)[:, None], pat[None, :], -1) for pat, prob in planted]
            draws = np.concatenate([np.where(keep, draws, -1), *extra], axis=1)
            order = np.argsort(draws, axis=1, kind="stable")
            ranked = np.take_along_axis(draws, order, axis=1)
            first_sorted = np.ones_like(ranked, dtype=bool)
            first_sorted[:, 1:] = ranked[:, 1:] != ranked[:, :-1]
            keep = np.zeros_like(first_sorted)
            np.put_along_axis(keep, order, first_sorted, axis=1)
            keep &= draws >= 0
        parts.append(draws[keep])
        offsets.append(total + np.cumsum(keep.sum(axis=1)))
        total += int(keep.sum())
    labels = tuple(f"i{k}" for k in range(items))
    return SetValues(np.concatenate(parts).astype(np.int64), np.concatenate(offsets).astype(np.int64), labels)


def read_baskets(lines: Sequence[str]) -> SetValues:
    """One user per line, items separated by spaces or commas (blank lines: users with an empty set).

    Parameters
    ----------
    lines : Sequence[str]
        The file's lines.

    Returns
    -------
    SetValues
        One set per line (repeats within a line dropped), items coded in the order of their sorted labels.

    Raises
    ------
    InvalidInput
        If there is no line, or a line holds more than ``MAX_LINE_ITEMS`` items.
    """
    sets = []
    for number, line in enumerate(lines, start=1):
        tokens = [t for t in line.replace(",", " ").split() if t]
        if len(tokens) > MAX_LINE_ITEMS:
            raise InvalidInput(f"line {number} holds {len(tokens):,} items (at most {MAX_LINE_ITEMS:,} per user)")
        sets.append(tokens)
    if not sets:
        raise InvalidInput("the basket file has no users")
    return SetValues.from_lists(sets)


def _scores(found: np.ndarray, estimates: np.ndarray, truth: np.ndarray, freqs: np.ndarray) -> dict[str, float]:
    return heavy_hitter_scores(found.astype(np.uint64), estimates, truth.astype(np.uint64),
                               lambda vs: freqs[np.asarray(vs, dtype=np.int64)])


def _result(method: str, epsilon: float, sets: SetValues, found: np.ndarray, est: np.ndarray, k: int,
            parameters: dict[str, Any]) -> ItemsetResult:
    freqs = sets.frequencies()
    truth = np.lexsort((np.arange(sets.d), -freqs))[:k]
    return ItemsetResult(method, float(epsilon), sets.users, tuple((sets.labels[i],) for i in found), est,
                         parameters, tuple((sets.labels[i],) for i in truth), freqs[truth],
                         _scores(found, est, truth, freqs))


def psfo_items(sets: SetValues, epsilon: float, *, length: int = 1, top_k: int, oracle: str = "adaptive",
               seed: int = 0, engine: str = "exact") -> ItemsetResult:
    """PSFO with a given ℓ on every user: the k items with the highest ℓ·f̃.

    Parameters
    ----------
    sets : SetValues
        The users' sets (CSR: items coded 0 … d − 1, ``labels`` naming them); every user reports.
    epsilon : float
        Each user's budget ε.
    length : int, default 1
        The padding length ℓ.
    top_k : int
        The k items returned.
    oracle : str, default "adaptive"
        ``"grr"``, ``"olh"`` or ``"adaptive"`` (the one of smaller variance).
    seed : int, default 0
        The seed; the stream is keyed by ℓ.
    engine : str, default "exact"
        The simulation engine.

    Returns
    -------
    ItemsetResult
        Method ``psfo``; ``parameters`` holds ``length``, ``oracle``, ``item_sd`` (a rare item's standard
        deviation) and ``found_sd`` (each found item's, at its clipped estimate).

    Raises
    ------
    InvalidInput
        As :func:`collect_padded` (no users, or too many OLH hashes on the exact engine), or if PSFO refuses ε or
        ℓ.

    References
    ----------
    The LDP lecture (ldp-lecture-frequency-oracles-heavy-hitters-itemsets), Frequent Itemset Mining, "Pad and Sample
    Frequency Oracle" and "Privacy Amplification" (ε′ = ln(ℓ(e^ε − 1) + 1));
    Wang, Li, Jha, "Locally Differentially Private Frequent Itemset Mining" (IEEE S&P 2018).
    """
    psfo = PaddingSampling(epsilon, sets.d, length, oracle)
    est = collect_padded(psfo, sets, rng_for(seed, "itemsets", "psfo", length), engine)
    found = np.lexsort((np.arange(sets.d), -est))[:top_k]
    top_sd = np.sqrt(psfo.item_variance(sets.users, np.clip(est[found], 0.0, 1.0)))
    return _result("psfo", epsilon, sets, found, est[found], top_k,
                   {"length": length, "oracle": psfo.oracle,
                    "item_sd": float(np.sqrt(psfo.item_variance(sets.users))),  # a rare item's
                    "found_sd": [float(x) for x in top_sd]})  # each found item's, at its (clipped) estimate


def strawman_items(sets: SetValues, epsilon: float, *, top_k: int, seed: int = 0, engine: str = "exact"
                   ) -> ItemsetResult:
    """The lecture's strawman (:class:`~ldp.mechanisms.set_valued.WholeSetOracle`): every user reports the whole set
    as one of the 2^d subsets with the adaptive oracle; each item's estimate sums its 2^(d−1) subsets' estimates,
    and the k highest are the answer. Refused (one line) beyond ``STRAWMAN_MAX_ITEMS`` items.

    Parameters
    ----------
    sets : SetValues
        The users' sets; d must not exceed ``STRAWMAN_MAX_ITEMS``.
    epsilon : float
        Each user's budget ε.
    top_k : int
        The k items returned.
    seed : int, default 0
        The seed of the one collection (``rng_for(seed, "itemsets", "strawman")``).
    engine : str, default "exact"
        ``"exact"`` (every report, refused beyond ``MAX_EXACT_HASHES`` OLH hashes) or ``"fast"``.

    Returns
    -------
    ItemsetResult
        Method ``strawman``; ``parameters`` holds ``subsets`` (2^d), ``oracle``, ``item_sd`` and ``max_items``.

    Raises
    ------
    InvalidInput
        Beyond ``STRAWMAN_MAX_ITEMS`` items, or when the exact engine would check more than ``MAX_EXACT_HASHES``
        OLH hashes.

    References
    ----------
    The LDP lecture (ldp-lecture-frequency-oracles-heavy-hitters-itemsets), Frequent Itemset Mining, "Strawman Method".
    """
    whole = WholeSetOracle(epsilon, sets.d)
    mech = whole.mechanism
    rng = rng_for(seed, "itemsets", "strawman")
    if engine == "exact" and whole.oracle == "olh" and sets.users * whole.size > MAX_EXACT_HASHES:
        raise InvalidInput(f"strawman: the exact engine would check {sets.users:,} OLH reports against "
                           f"{whole.size:,} subsets ({sets.users * whole.size:.2g} hashes, at most "
                           f"{MAX_EXACT_HASHES:.0e}); use the fast engine (--engine fast) or fewer users")
    counts = np.bincount(whole.encode(sets), minlength=whole.size)
    est = whole.item_estimates(mech.estimate(collect(mech, counts, rng, engine)).values)
    found = np.lexsort((np.arange(sets.d), -est))[:top_k]
    return _result("strawman", epsilon, sets, found, est[found], top_k,
                   {"subsets": whole.size, "oracle": whole.oracle,
                    "item_sd": float(np.sqrt(whole.item_variance(sets.users))),  # a rare item's
                    "max_items": STRAWMAN_MAX_ITEMS})


def collect_padded(psfo: PaddingSampling, sets: SetValues, rng: np.random.Generator, engine: str = "exact"
                   ) -> np.ndarray:
    """PSFO on these users: each samples one padded value (the client's first step, vectorized), the registered
    oracle (GRR at ε′ or OLH) randomizes it — every user's report on the exact engine, the support counts drawn
    directly on the fast one (exact in distribution for GRR, exact marginals for OLH) — and ℓ·f̃ per item.

    Parameters
    ----------
    psfo : PaddingSampling
        The padding-and-sampling oracle (ε, d, ℓ and the chosen oracle fixed).
    sets : SetValues
        The reporting users' sets (items coded 0 … d − 1).
    rng : numpy.random.Generator
        The stream of the sampling and the oracle's randomization.
    engine : str, default "exact"
        The simulation engine.

    Returns
    -------
    numpy.ndarray
        ℓ·f̃ per item, shape (d,) (unbiased for items of sets at most ℓ long; may be negative).

    Raises
    ------
    InvalidInput
        If there are no users, or the exact engine would check more than ``MAX_EXACT_HASHES`` OLH hashes.

    References
    ----------
    The LDP lecture (ldp-lecture-frequency-oracles-heavy-hitters-itemsets), Frequent Itemset Mining, "Pad and Sample
    Frequency Oracle".
    """
    if sets.users == 0:
        raise InvalidInput("psfo: no users in this group; use more users")
    if engine == "exact" and psfo.oracle == "olh" and sets.users * psfo.size > MAX_EXACT_HASHES:
        raise InvalidInput(f"itemsets: the exact engine would check {sets.users:,} OLH reports against {psfo.size:,} "
                           f"padded items ({sets.users * psfo.size:.2g} hashes, at most {MAX_EXACT_HASHES:.0e}); use "
                           "the fast engine (--engine fast), fewer users or fewer distinct items")
    counts = np.bincount(psfo.sample(sets, rng), minlength=psfo.size)
    mech = psfo.mechanism
    return psfo.item_estimates(mech.estimate(collect(mech, counts, rng, engine)).values)


def _split(sets: SetValues, shares: Sequence[float], rng: np.random.Generator) -> list[SetValues]:
    """Disjoint random groups of the users with the given shares (the last takes the rest)."""
    order = rng.permutation(sets.users)
    cuts = np.cumsum([int(share * sets.users) for share in shares[:-1]])
    groups = [sets.subset(part) for part in np.split(order, cuts)]
    if min(g.users for g in groups) < 1:
        raise InvalidInput(f"need users in each of the {len(shares)} phases; got {sets.users}")
    return groups


def length_oracle(epsilon: float, cap: int) -> Mechanism:
    """The registered GRR at ε over the lengths 0 … cap: the client of the rounds that estimate θ.

    Parameters
    ----------
    epsilon : float
        The privacy budget.
    cap : int
        The largest length reported (longer sets report ``cap``).

    Returns
    -------
    Mechanism
        GRR over cap + 1 values.
    """
    return MECHANISMS.get("grr")(epsilon, int(cap) + 1)


def private_lengths(lengths: np.ndarray, cap: int, epsilon: float, rng: np.random.Generator
                    ) -> tuple[np.ndarray, int, np.ndarray]:
    """The distribution θ of the users' set lengths (capped at ``cap``), estimated from GRR reports over 0 … cap
    (ε-LDP: one report of one number): ``(theta, length, raw)`` — θ made a distribution by Norm-Sub, its 90th
    percentile among users with a non-empty set (the ℓ to pad to), and the raw matrix-inversion estimate θ̂
    (unbiased, may be negative), which the tail correction needs (:func:`tail_correction`).
    Not the true lengths: public code computes ℓ from them, which leaks.

    Parameters
    ----------
    lengths : numpy.ndarray
        Each reporting user's set length (non-negative integers).
    cap : int
        The largest length reported (longer sets report ``cap``); GRR runs over cap + 1 values.
    epsilon : float
        Each user's budget ε.
    rng : numpy.random.Generator
        The stream of the GRR reports.

    Returns
    -------
    tuple of (numpy.ndarray, int, numpy.ndarray)
        θ (shape (cap + 1,), a distribution), ℓ (in 1 … cap) and θ̂ (shape (cap + 1,), unbiased).

    References
    ----------
    The LDP lecture (ldp-lecture-frequency-oracles-heavy-hitters-itemsets), Frequent Itemset Mining, "LDPMiner" and
    "SVIM" (ℓ is the 90th percentile of the size distribution).
    """
    lengths = np.minimum(np.asarray(lengths, dtype=np.int64), int(cap))
    grr = length_oracle(epsilon, cap)
    raw = grr.invert(np.bincount(grr.perturb(lengths, rng), minlength=cap + 1), max(1, lengths.size))
    theta = norm_sub(raw)  # the consistency paper's Norm-Sub: clipping alone leaves the noise's mass in the tail
    cdf = np.cumsum(theta[1:]) / max(theta[1:].sum(), 1e-12)
    return theta, int(min(cap, np.searchsorted(cdf, LENGTH_PERCENTILE) + 1)), raw


def _recode(sets: SetValues, candidates: np.ndarray, labels: Sequence[str]) -> SetValues:
    """Each set intersected with the candidates and recoded 0 … |C| − 1 in the candidates' order."""
    keep = np.zeros(sets.d, dtype=bool)
    keep[candidates] = True
    restricted = sets.restrict(keep)
    code = np.full(sets.d, -1, dtype=np.int64)
    code[candidates] = np.arange(candidates.size)
    return SetValues(code[restricted.items], restricted.offsets, tuple(labels))


def estimate_padded(sets: SetValues, epsilon: float, length: int, theta: np.ndarray | None,
                    rng: np.random.Generator, engine: str = "exact") -> tuple[np.ndarray, PaddingSampling, float]:
    """PSFO at ``length`` on these (already restricted) sets, tail-corrected by θ when given.

    Parameters
    ----------
    sets : SetValues
        The reporting group's sets, restricted to the candidates (d = the number of candidates).
    epsilon : float
        Each user's budget ε.
    length : int
        The padding length ℓ.
    theta : numpy.ndarray or None
        An unbiased estimate of the length distribution for :func:`tail_correction`; None: no correction.
    rng : numpy.random.Generator
        The collection's stream.
    engine : str, default "exact"
        The simulation engine.

    Returns
    -------
    tuple of (numpy.ndarray, PaddingSampling, float)
        The corrected estimates (shape (d,)), the oracle used (adaptive choice) and the correction factor (1.0
        without θ).

    Raises
    ------
    InvalidInput
        As :func:`collect_padded`.
    """
    psfo = PaddingSampling(epsilon, sets.d, length, "adaptive")
    correction = 1.0 if theta is None else tail_correction(theta, length)
    return collect_padded(psfo, sets, rng, engine) * correction, psfo, correction


def svim(sets: SetValues, epsilon: float, *, top_k: int, seed: int = 0, engine: str = "exact") -> ItemsetResult:
    """SVIM's three phases (module docstring) on disjoint random groups of the users.

    Parameters
    ----------
    sets : SetValues
        All users' sets; split into three disjoint groups (:data:`SVIM_SPLIT`).
    epsilon : float
        The ε of every report; by parallel composition each user spends ε once, whatever the phase.
    top_k : int
        The k items returned (2k candidates, at most d).
    seed : int, default 0
        The seed of the split and every phase (``rng_for(seed, "itemsets", "svim")``).
    engine : str, default "exact"
        The simulation engine of the candidate and frequency phases.

    Returns
    -------
    ItemsetResult
        Method ``svim``; ``parameters`` holds ``length`` (the private ℓ), ``oracle``, ``candidates``,
        ``tail_correction`` and ``split`` (:data:`SVIM_SPLIT`).

    Raises
    ------
    InvalidInput
        If a phase gets no user, or as :func:`collect_padded`.

    References
    ----------
    The LDP lecture (ldp-lecture-frequency-oracles-heavy-hitters-itemsets), Frequent Itemset Mining, "SVIM:
    Set-Value Item Mining"; Wang, Li, Jha, "Locally Differentially Private Frequent Itemset Mining" (IEEE S&P 2018).
    """
    rng = rng_for(seed, "itemsets", "svim")
    groups = _split(sets, SVIM_SPLIT, rng)
    first = collect_padded(PaddingSampling(epsilon, sets.d, 1, "adaptive"), groups[0], rng, engine)
    size = min(sets.d, 2 * top_k)
    candidates = np.lexsort((np.arange(sets.d), -first))[:size]
    keep = np.zeros(sets.d, dtype=bool)
    keep[candidates] = True
    _, length, raw = private_lengths(groups[1].restrict(keep).sizes, size, epsilon, rng)
    recoded = _recode(groups[2], candidates, [sets.labels[c] for c in candidates])
    est, psfo, correction = estimate_padded(recoded, epsilon, length, raw, rng, engine)
    order_c = np.lexsort((candidates, -est))[:top_k]
    return _result("svim", epsilon, sets, candidates[order_c], est[order_c], top_k,
                   {"length": length, "oracle": psfo.oracle, "candidates": int(size), "tail_correction": correction,
                    "split": list(SVIM_SPLIT)})


#: LDPMiner's phases: the private length distribution, candidates, frequencies.
LDPMINER_SPLIT = (0.1, 0.45, 0.45)
#: Longest set length a user reports for the length distribution (longer sets count as this).
LENGTH_CAP = 64


def ldpminer(sets: SetValues, epsilon: float, *, top_k: int, seed: int = 0, engine: str = "exact") -> ItemsetResult:
    """LDPMiner (Qin et al., CCS 2016) as the lecture describes it: phase 1 pads every set to ℓ — the 90th
    percentile of the set lengths, estimated privately from a tenth of the users (``LDPMINER_SPLIT``) rather than
    from the true lengths as public code does — samples one item and reports it, and keeps the 2k items with the
    highest estimates; phase 2 intersects each set with them, pads to 2k (so nothing is cut) and reports one.
    Its estimates are unbiased (ℓ = 2k covers every intersection) but carry the (2k)² factor of the variance.

    Parameters
    ----------
    sets : SetValues
        All users' sets; split into three disjoint groups (:data:`LDPMINER_SPLIT`).
    epsilon : float
        Each user's budget ε (each user reports once, in one phase).
    top_k : int
        The k items returned (phase 1 keeps 2k candidates, at most d).
    seed : int, default 0
        Seeds the three groups (:data:`LDPMINER_SPLIT`) and each phase's reports.
    engine : str, default "exact"
        The engine of every collection (``"fast"`` draws the support counts directly).

    Returns
    -------
    ItemsetResult
        Method ``ldpminer``; ``parameters`` holds ``length`` (phase 1's private ℓ), ``second_length`` (2k),
        ``oracle``, ``candidates`` and ``split`` (:data:`LDPMINER_SPLIT`).

    Raises
    ------
    InvalidInput
        If one of the three groups is empty (too few users), or as :func:`collect_padded`.

    References
    ----------
    The LDP lecture (ldp-lecture-frequency-oracles-heavy-hitters-itemsets), Frequent Itemset Mining, "LDPMiner";
    Qin, Yang, Yu, Khalil, Xiao, Ren, "Heavy Hitter Estimation over Set-Valued Data
    with Local Differential Privacy" (CCS 2016).
    """
    rng = rng_for(seed, "itemsets", "ldpminer")
    groups = _split(sets, LDPMINER_SPLIT, rng)
    _, length, _ = private_lengths(groups[0].sizes, LENGTH_CAP, epsilon, rng)
    first = collect_padded(PaddingSampling(epsilon, sets.d, length, "adaptive"), groups[1], rng, engine)
    size = min(sets.d, 2 * top_k)
    candidates = np.lexsort((np.arange(sets.d), -first))[:size]
    recoded = _recode(groups[2], candidates, [sets.labels[c] for c in candidates])
    est, psfo, _ = estimate_padded(recoded, epsilon, size, None, rng, engine)
    order_c = np.lexsort((candidates, -est))[:top_k]
    return _result("ldpminer", epsilon, sets, candidates[order_c], est[order_c], top_k,
                   {"length": length, "second_length": int(size), "oracle": psfo.oracle, "candidates": int(size),
                    "split": list(LDPMINER_SPLIT)})


def _incidence(sets: SetValues, items: np.ndarray) -> np.ndarray:
    """(users, len(items)) booleans: whether each user holds each of ``items``."""
    col = np.full(sets.d, -1, dtype=np.int64)
    col[items] = np.arange(items.size)
    users = np.repeat(np.arange(sets.users), sets.sizes)
    hit = col[sets.items] >= 0
    out = np.zeros((sets.users, items.size), dtype=bool)
    out[users[hit], col[sets.items[hit]]] = True
    return out


def true_itemsets(sets: SetValues, k: int, *, sizes: Sequence[int] = (2, 3), among: int = 30
                  ) -> tuple[list[tuple[int, ...]], np.ndarray]:
    """The k most frequent itemsets of the given sizes (ties by items), counted exactly among the ``among`` most
    frequent items (an itemset is at most as frequent as each of its items, so the top itemsets are made of
    frequent items whenever the k-th itemset is more frequent than the ``among``-th item).

    Parameters
    ----------
    sets : SetValues
        The users' sets whose true itemsets are counted.
    k : int
        The itemsets returned.
    sizes : Sequence[int], default (2, 3)
        The itemset sizes counted.
    among : int, default 30
        The most frequent items whose combinations are counted.

    Returns
    -------
    tuple of (list of tuple of int, numpy.ndarray)
        The itemsets (item codes, ascending within an itemset), most frequent first, and their frequencies
        (fractions of the users).
    """
    top = np.lexsort((np.arange(sets.d), -sets.frequencies()))[:among]
    inc = _incidence(sets, top)
    combos = [c for size in sizes for c in combinations(range(top.size), size)]
    counts = np.array([np.all(inc[:, list(c)], axis=1).sum() for c in combos], dtype=np.float64)
    order = sorted(range(len(combos)), key=lambda j: (-counts[j], combos[j]))[:k]
    return [tuple(int(top[i]) for i in combos[j]) for j in order], counts[order] / sets.users


def _likely_itemsets(top: np.ndarray, estimates: np.ndarray, max_size: int, count: int) -> list[tuple[int, ...]]:
    """SVSM's candidates: the ``count`` itemsets of 2 … ``max_size`` of the ``top`` items with the largest product of
    the items' estimates (ties by items)."""
    guess = dict(zip(top.tolist(), np.clip(estimates, 1e-12, None).tolist(), strict=True))
    combos = [c for size in range(2, max_size + 1) for c in combinations(sorted(top.tolist()), size)]
    if not combos:
        raise InvalidInput("svsm needs at least two frequent items; raise --top-k")
    combos.sort(key=lambda c: (-float(np.prod([guess[i] for i in c])), c))
    return combos[:count]


def _held_itemsets(sets: SetValues, top: np.ndarray, candidates: list[tuple[int, ...]]) -> SetValues:
    """Each user's set of the candidate itemsets it contains (codes = the candidates' positions)."""
    inc = _incidence(sets, top)
    position = {item: j for j, item in enumerate(top.tolist())}
    contained = np.column_stack([np.all(inc[:, [position[i] for i in c]], axis=1) for c in candidates])
    users, which = np.nonzero(contained)
    offsets = np.concatenate([[0], np.cumsum(np.bincount(users, minlength=sets.users))]).astype(np.int64)
    labels = ["+".join(sets.labels[i] for i in c) for c in candidates]
    return SetValues(which.astype(np.int64), offsets, tuple(labels))


def _itemset_scores(sets: SetValues, found: list[tuple[int, ...]], estimates: np.ndarray,
                    truth: list[tuple[int, ...]]) -> dict[str, float]:
    """Precision, recall, NCR … of the found itemsets against the true top ones, with exact itemset counts."""
    everything = list(dict.fromkeys([*found, *truth]))
    ids = {c: n for n, c in enumerate(everything)}
    needed = np.unique(np.concatenate([np.array(c) for c in everything]))
    inc_all = _incidence(sets, needed)
    cols = {item: j for j, item in enumerate(needed.tolist())}
    freq = np.array([np.all(inc_all[:, [cols[i] for i in c]], axis=1).mean() for c in everything])
    return heavy_hitter_scores(np.array([ids[c] for c in found], dtype=np.uint64), estimates,
                               np.array([ids[c] for c in truth], dtype=np.uint64),
                               lambda vs: freq[np.asarray(vs, dtype=np.int64)])


def svsm(sets: SetValues, epsilon: float, *, top_k: int, seed: int = 0, max_size: int = 3,
         engine: str = "exact") -> ItemsetResult:
    """SVSM (Wang, Li, Jha, S&P 2018) for itemsets of 2 … ``max_size`` items: half the users run SVIM for the top 2k
    items; candidate itemsets are their subsets, the 2k with the highest guessed frequency kept — the guess is the
    *product* of the items' estimates (what the itemset's frequency would be if its items were held independently;
    S&P'18 §6), not the a-priori bound, which is the *minimum* (an itemset is no more frequent than its rarest item).
    Its blind spot: an itemset of mid-frequency items that always go together has a small product and can lose its
    candidate place to pairs of the most frequent items (tests/studies/test_itemsets.py, the planted triple). The
    other half report which candidates their set contains, a tenth of them the number (the private ℓ), the rest by
    PSFO at ℓ with the tail correction.

    Parameters
    ----------
    sets : SetValues
        All users' sets; split in halves, then the second half 20/80.
    epsilon : float
        Each user's budget ε (each user reports once).
    top_k : int
        The k itemsets returned (SVIM is asked for 2k items, 2k candidate itemsets are kept).
    seed : int, default 0
        Seeds the halves, SVIM's run on the first and the reports of the second.
    max_size : int, default 3
        The largest itemset size considered (2 … max_size).
    engine : str, default "exact"
        The simulation engine.

    Returns
    -------
    ItemsetResult
        Method ``svsm``, itemsets as tuples of labels; ``parameters`` holds ``items`` (SVIM's top k items),
        ``candidate_items``, ``candidates``, ``length``, ``oracle`` and ``tail_correction``; the scores use
        exact itemset counts.

    Raises
    ------
    InvalidInput
        If SVIM finds fewer than two items, a group gets no user, or as :func:`collect_padded`.

    References
    ----------
    The LDP lecture (ldp-lecture-frequency-oracles-heavy-hitters-itemsets), Frequent Itemset Mining, "SVIM/SVSM";
    Wang, Li, Jha, "Locally Differentially Private Frequent Itemset Mining" (IEEE S&P 2018).
    """
    rng = rng_for(seed, "itemsets", "svsm")
    halves = _split(sets, (0.5, 0.5), rng)
    # 2k items: room for k itemsets
    items = svim(halves[0], epsilon, top_k=min(sets.d, 2 * top_k), seed=seed, engine=engine)
    code = {label: i for i, label in enumerate(sets.labels)}
    top = np.array([code[i[0]] for i in items.items], dtype=np.int64)
    candidates = _likely_itemsets(top, items.estimates, max_size, 2 * top_k)
    parts = _split(_held_itemsets(halves[1], top, candidates), (0.2, 0.8), rng)
    _, length, raw = private_lengths(parts[0].sizes, len(candidates), epsilon, rng)
    est, psfo, correction = estimate_padded(parts[1], epsilon, length, raw, rng, engine)
    order = np.lexsort((np.arange(len(candidates)), -est))[:top_k]
    found = [candidates[j] for j in order]
    truth, true_freq = true_itemsets(sets, top_k, sizes=range(2, max_size + 1))
    scores = _itemset_scores(sets, found, est[order], truth)
    return ItemsetResult("svsm", float(epsilon), sets.users, tuple(tuple(sets.labels[i] for i in c) for c in found),
                         est[order], {"items": items.to_dict()["items"][:top_k], "candidate_items": len(top),
                                      "candidates": len(candidates),
                                      "length": length, "oracle": psfo.oracle, "tail_correction": correction},
                         tuple(tuple(sets.labels[i] for i in c) for c in truth), true_freq, scores)


def padding_tradeoff(sets: SetValues, epsilon: float, lengths: Sequence[int], *, top_k: int = 10) -> pd.DataFrame:
    """The lecture's two error sources of PSFO as ℓ moves, in closed form for the k most frequent items: the squared
    under-estimation (E[ℓ·f̃(v)] = (1/n) Σ over v's holders of min(1, ℓ/|x|), exact from the sets) and the oracle's
    variance ℓ²·Var/n (the adaptive oracle's), averaged over the k items, and their sum (the MSE).

    Parameters
    ----------
    sets : SetValues
        The users' sets (their true lengths give the under-estimation exactly).
    epsilon : float
        Each user's budget ε.
    lengths : Sequence[int]
        The ℓ values.
    top_k : int, default 10
        The most frequent items averaged over.

    Returns
    -------
    pandas.DataFrame
        One row per ℓ: ``ℓ``, ``squared under-estimation``, ``oracle variance`` (the rare-item form of
        :meth:`~ldp.mechanisms.set_valued.PaddingSampling.item_variance`), ``MSE`` (their sum) and ``oracle``.

    References
    ----------
    The LDP lecture (ldp-lecture-frequency-oracles-heavy-hitters-itemsets), Frequent Itemset Mining, "Sources of
    error" (FO variance grows with ℓ quadratically; under-estimation decreases as ℓ
    grows).
    """
    freqs = sets.frequencies()
    top = np.lexsort((np.arange(sets.d), -freqs))[:top_k]
    # One pass over the items: how many holders of each top item have a set of each size (a k × (max size + 1)
    # table), then every ℓ at once — E[ℓ·f̃(v)]·n = Σ_s holders(v, s)·min(1, ℓ/s), a small matrix product.
    rank = np.full(sets.d, -1, dtype=np.int64)
    rank[top] = np.arange(top.size)
    size_of = np.repeat(sets.sizes, sets.sizes)  # each held item's set size (≥ 1)
    held = rank[sets.items]
    is_top = held >= 0
    width = int(size_of.max(initial=0)) + 1
    holders = np.bincount(held[is_top] * width + size_of[is_top], minlength=top.size * width
                          ).reshape(top.size, width).astype(np.float64)
    ells = np.array([int(length) for length in lengths], dtype=np.float64)
    weight = np.minimum(1.0, ells[:, None] / np.maximum(np.arange(width), 1)[None, :])  # (ℓ values, sizes)
    expected = holders @ weight.T / sets.users  # (k, ℓ values)
    bias2s = np.mean((freqs[top][:, None] - expected) ** 2, axis=0)
    rows = []
    for length, bias2 in zip(lengths, bias2s.tolist(), strict=True):
        psfo = PaddingSampling(epsilon, sets.d, int(length), "adaptive")
        var = psfo.item_variance(sets.users)
        rows.append({"ℓ": int(length), "squared under-estimation": bias2, "oracle variance": var,
                     "MSE": bias2 + var, "oracle": psfo.oracle})
    return pd.DataFrame(rows)


def flight_baskets() -> SetValues:
    """A set-valued sample derived from the bundled flights (NYC 2013, see sample_data/README.md): one "user" per
    departure hour of a day at one of the three airports, holding the set of destinations flown in that hour —
    about 20,000 sets of a few of 104 airports, whose frequent items are the hubs.

    Returns
    -------
    SetValues
        One set per (month, day, origin, departure hour) group, destinations labelled by their FAA codes.
    """
    from ldp.data.samples import load_sample

    flights = load_sample("flights")[["month", "day", "origin", "dep_hour", "dest"]].dropna()
    keys = flights.groupby(["month", "day", "origin", "dep_hour"], sort=True).ngroup().to_numpy()
    dest = flights["dest"].astype(str).to_numpy()
    labels, codes = np.unique(dest, return_inverse=True)
    pairs = np.unique(np.column_stack([keys, codes]), axis=0)  # each destination once per set
    offsets = np.concatenate([[0], np.cumsum(np.bincount(pairs[:, 0], minlength=int(keys.max()) + 1))])
    return SetValues(pairs[:, 1].astype(np.int64), offsets.astype(np.int64), tuple(labels.tolist()))


def sample_baskets(name: str) -> SetValues:
    """A bundled basket sample (``ldp.data.list_samples("baskets")``, e.g. ``plane_destinations``: the airports each
    NYC aircraft flew to in a month of 2013, a stand-in for the Kosarak click-stream) as set-valued data.

    Parameters
    ----------
    name : str
        A basket sample's name.

    Returns
    -------
    SetValues
        Its lines read by :func:`read_baskets`.

    Raises
    ------
    InvalidInput
        For an unknown basket sample or an unreadable file (:func:`ldp.data.samples.load_baskets`).
    """
    from ldp.data.samples import load_baskets

    return read_baskets(load_baskets(name))


def tail_correction(theta: np.ndarray, length: int) -> float:
    """The factor by which PSFO with ℓ under-counts an item whose holding is independent of the set's length
    (module docstring), from an *unbiased* estimate θ̂ of the length distribution over 0, 1, …:

        c = Σᵢ θ̂ᵢ i / Σᵢ θ̂ᵢ min(i, ℓ) = 1 + Σ_{i>ℓ} θ̂ᵢ (i − ℓ) / Σᵢ θ̂ᵢ min(i, ℓ).

    Choice (S&P'18 §5.2 states the correction for the true θ only): θ̂ is the raw matrix-inversion estimate, not a
    Norm-Sub'd one. When no set is longer than ℓ the tail term's numerator has expectation exactly 0 (each θ̂ᵢ is
    unbiased), so c is 1 in expectation to first order (a ratio of unbiased estimates; its denominator, the mean
    clipped length, is at least 1 for non-empty sets and estimated from many users). Norm-Sub instead zeroes the
    negative noise and keeps the positive noise above ℓ, which biased c upward by 20–45 % on all-pairs data.
    ``c`` is not clipped at 1 for the same reason (max(1, c) has mean above 1); it is floored at ½ only to keep
    a degenerate estimate from flipping or exploding the result, and is 1 when the denominator is not positive.

    Parameters
    ----------
    theta : numpy.ndarray
        θ̂ over lengths 0, 1, …, shape (L + 1,) (:func:`private_lengths`' raw estimate).
    length : int
        The padding length ℓ.

    Returns
    -------
    float
        c ≥ ½, the factor the PSFO estimates are multiplied by.

    References
    ----------
    Wang, Li, Jha, "Locally Differentially Private Frequent Itemset Mining" (IEEE S&P 2018), §5.2 (the correction
    for the true θ).
    """
    theta = np.asarray(theta, dtype=np.float64)
    i = np.arange(theta.size)
    below = float((theta * np.minimum(i, int(length))).sum())
    if below <= 0:
        return 1.0
    return max(0.5, 1.0 + float((theta * np.maximum(i - int(length), 0)).sum()) / below)


def items_against_epsilon(sets: SetValues, epsilons: Sequence[float], *, top_k: int, seed: int = 0,
                          lengths: Sequence[int] = (1, 4)) -> pd.DataFrame:
    """Precision / NCR of SVIM and PSFO at fixed ℓ against ε (the side-by-side table).

    Parameters
    ----------
    sets : SetValues
        The users' sets every run mines.
    epsilons : Sequence[float]
        The ε values.
    top_k : int
        The k items sought.
    seed : int, default 0
        The seed of every run (the same for every ε).
    lengths : Sequence[int], default (1, 4)
        The fixed ℓ of the PSFO rows.

    Returns
    -------
    pandas.DataFrame
        One row per (method, ε): ``method`` (``svim`` or ``psfo ℓ=<ℓ>``), ``epsilon`` and the scores
        (``precision``, ``recall``, ``f1``, ``ncr``, ``mse``, ``relative_error``); every run on the exact engine.
    """
    rows = []
    for eps in epsilons:
        runs = [svim(sets, eps, top_k=top_k, seed=seed)] + [psfo_items(sets, eps, length=ell, top_k=top_k, seed=seed)
                                                           for ell in lengths]
        for run in runs:
            label = run.method if run.method == "svim" else f"psfo ℓ={run.parameters['length']}"
            rows.append({"method": label, "epsilon": float(eps), **run.scores})
    return pd.DataFrame(rows)


#: The lecture's headline comparison: SVIM against LDPMiner.
COMPARED_MINERS = ("svim", "ldpminer")


def compare_miners(sets: SetValues, epsilon: float, *, top_k: int, methods: Sequence[str] = COMPARED_MINERS,
                   seeds: Sequence[int] = (0, 1, 2), engine: str = "fast") -> pd.DataFrame:
    """The lecture's headline ("SVIM can identify 3× more frequent items, with 3 magnitudes less errors") on these
    sets: each registered miner run once per seed at the same ε and k; per method the mean number of the true top k
    it found, its precision, and the error — the mean squared error of its found items' estimated frequencies
    (``scores["mse"]``) — averaged over the seeds, with the median ℓ it padded to.

    Parameters
    ----------
    sets : SetValues
        The users' sets each miner runs on.
    epsilon : float
        Each user's budget ε.
    top_k : int
        The k items sought.
    methods : Sequence[str], default COMPARED_MINERS
        Registered itemset miners (``PROTOCOLS``).
    seeds : Sequence[int], default (0, 1, 2)
        One run per seed (at least one).
    engine : str, default "fast"
        The simulation engine.

    Raises
    ------
    InvalidInput
        If ``seeds`` is empty, a method is unknown, or a miner refuses the configuration.

    References
    ----------
    The LDP lecture (ldp-lecture-frequency-oracles-heavy-hitters-itemsets), Frequent Itemset Mining, "SVIM:
    Set-Value Item Mining" (the headline: 3× more frequent items, 3 magnitudes less
    error).

    Returns
    -------
    pandas.DataFrame
        One row per method: ``method``, ``found``, ``precision``, ``error``, ``length``, ``runs``.
    """
    if not seeds:
        raise InvalidInput("compare: give at least one seed")
    rows = []
    for name in methods:
        runs = [PROTOCOLS.get(name).run(sets, epsilon, top_k=top_k, seed=int(s), engine=engine) for s in seeds]
        rows.append({"method": name,
                     "found": float(np.mean([r.scores["precision"] * len(r.items) for r in runs])),
                     "precision": float(np.mean([r.scores["precision"] for r in runs])),
                     "error": float(np.mean([r.scores["mse"] for r in runs])),
                     "length": float(np.median([r.parameters["length"] for r in runs])),
                     "runs": len(runs)})
    return pd.DataFrame(rows)


# =========================================================================== the registered protocols
PSFO_CLIENT = ("padding and sampling (PSFO): the set padded to ℓ, one of the ℓ sampled, reported with the registered "
               "GRR at ε′ = ln(ℓ(e^ε − 1) + 1) or OLH at ε over the d + ℓ padded values (the smaller variance)")


#: The small instance whose clients' exact channels the ε-LDP check enumerates: 4 items, k = 2 (so SVIM's and
#: LDPMiner's 2k candidates are all 4 items).
SMALL_ITEMS, SMALL_K = 4, 2


def _psfo_clients(epsilon: float, d: int, lengths: Sequence[int]) -> list[tuple[str, PaddingSampling]]:
    """PSFO over d items at each padding length, with each oracle the adaptive choice may pick."""
    return [(f"PSFO over {d} items, ℓ = {length}, {oracle}", PaddingSampling(epsilon, d, length, oracle))
            for length in lengths for oracle in ("grr", "olh")]


class ItemsetMiner(Protocol):
    """A registered miner of set-valued data (registry ``PROTOCOLS``, kind ``itemsets``): ``run(sets, ε, top_k=…,
    seed=…, engine=…, **parameters)`` simulates every user's report and the server's rounds and scores the answer
    against the truth (:class:`ItemsetResult`)."""

    kind = "itemsets"
    cli_command = "itemsets"
    client = PSFO_CLIENT
    #: What the answer holds: frequent "items" or "itemsets".
    finds: str = "items"
    #: The largest item domain the miner accepts (None: any).
    max_items: int | None = None

    @classmethod
    def run(cls, sets: SetValues, epsilon: float, *, top_k: int, seed: int = 0, engine: str = "exact",
            **params: Any) -> ItemsetResult:
        known = {p.name for p in cls.declared_parameters}
        unknown = set(params) - known
        if unknown:
            raise InvalidInput(f"{cls.name}: unknown parameter(s) {', '.join(sorted(unknown))}; it accepts: "
                               f"{', '.join(sorted(known)) or 'none'}")
        return cls._run(sets, epsilon, top_k=top_k, seed=seed, engine=engine, **params)

    @classmethod
    def _run(cls, sets: SetValues, epsilon: float, **options: Any) -> ItemsetResult:
        return cls.runner(sets, epsilon, **options)

    #: The study function that simulates the protocol (set by each registered miner).
    runner: Any = None


@PROTOCOLS.register
class SVIM(ItemsetMiner):
    """SVIM (Wang, Li, Jha, S&P 2018): candidates, a private length ℓ, then tail-corrected PSFO at ℓ."""

    name = "svim"
    display_name = "SVIM (items)"
    description = "candidates by PSFO at ℓ = 1, a private ℓ, then PSFO at ℓ with the tail correction"
    paper = "Wang, Li, Jha — Locally Differentially Private Frequent Itemset Mining, S&P 2018"
    runner = staticmethod(svim)

    @classmethod
    def round_clients(cls, epsilon: float) -> list[tuple[str, Any]]:
        """Phase 1's PSFO at ℓ = 1 over the items, phase 2's GRR over the lengths 0 … 2k, phase 3's PSFO over the 2k
        candidates at every ℓ the private length may take (4 items, k = 2)."""
        size = min(SMALL_ITEMS, 2 * SMALL_K)
        return [*_psfo_clients(epsilon, SMALL_ITEMS, [1]), (f"GRR over the lengths 0 … {size}",
                                                             length_oracle(epsilon, size)),
                *_psfo_clients(epsilon, size, range(1, size + 1))]


@PROTOCOLS.register
class SVSM(ItemsetMiner):
    """SVSM (Wang, Li, Jha, S&P 2018): half the users run SVIM; the other half report which candidate itemsets
    (of 2–3 of SVIM's items) their set holds."""

    name = "svsm"
    display_name = "SVSM (itemsets)"
    description = "half the users run SVIM; the other half report which likely itemsets their set holds"
    paper = "Wang, Li, Jha — Locally Differentially Private Frequent Itemset Mining, S&P 2018"
    finds = "itemsets"
    runner = staticmethod(svsm)

    @classmethod
    def round_clients(cls, epsilon: float) -> list[tuple[str, Any]]:
        """SVIM's rounds (half the users), then the same two rounds over the 2k candidate itemsets: their number of
        held candidates by GRR, one held candidate by PSFO — with k = 2 the candidates are 4, as SVIM's items."""
        return SVIM.round_clients(epsilon)


@PROTOCOLS.register
class LDPMiner(ItemsetMiner):
    """LDPMiner (Qin et al., CCS 2016) as the lecture describes it: a private ℓ, 2k candidates, padding to 2k."""

    name = "ldpminer"
    display_name = "LDPMiner (baseline)"
    description = "a private ℓ, 2k candidates, then every set padded to 2k"
    paper = "Qin, Yang, Yu, Khalil, Xiao, Ren — Heavy Hitter Estimation over Set-Valued Data with LDP, CCS 2016"
    runner = staticmethod(ldpminer)

    @classmethod
    def round_clients(cls, epsilon: float) -> list[tuple[str, Any]]:
        """GRR over the lengths 0 … ``LENGTH_CAP``, PSFO over the items at the private ℓ (every ℓ up to the d + 1
        that covers any set of the 4 items), PSFO over the 2k candidates at ℓ = 2k."""
        size = min(SMALL_ITEMS, 2 * SMALL_K)
        return [(f"GRR over the lengths 0 … {LENGTH_CAP}", length_oracle(epsilon, LENGTH_CAP)),
                *_psfo_clients(epsilon, SMALL_ITEMS, range(1, SMALL_ITEMS + 2)), *_psfo_clients(epsilon, size, [size])]


@PROTOCOLS.register
class Strawman(ItemsetMiner):
    """The lecture's strawman: the whole set as one value of the 2^d subsets, one frequency oracle over them."""

    name = "strawman"
    display_name = "Strawman: the set as one of 2^d values"
    description = ("every user reports the whole set as one of the 2^d subsets; an item sums its 2^(d-1) subsets' "
                   f"estimates (at most {STRAWMAN_MAX_ITEMS} items)")
    paper = "The LDP lecture (frequency oracles, heavy hitters, itemsets): Frequent Itemset Mining, Strawman Method"
    client = ("the set encoded as its bit mask, one of the 2^d subsets, reported with the registered GRR or OLH at ε "
              "over them (the smaller variance)")
    collection = "one-time"
    max_items = STRAWMAN_MAX_ITEMS
    runner = staticmethod(strawman_items)

    @classmethod
    def round_clients(cls, epsilon: float) -> list[tuple[str, Any]]:
        """The whole set as one of the 2^4 masks, through each oracle the adaptive choice may pick."""
        return [(f"the set as one of 2^{SMALL_ITEMS} masks, {oracle}", WholeSetOracle(epsilon, SMALL_ITEMS, oracle))
                for oracle in ("grr", "olh")]

    @classmethod
    def no_report_files(cls) -> str | None:
        return ("strawman has no report files (its reports are one of 2^d subsets, read back only by the simulation); "
                "run it with 'ldp itemsets --method strawman'")


@PROTOCOLS.register
class PSFO(ItemsetMiner):
    """Padding and sampling with a fixed ℓ for every user (one round: the lecture's building block)."""

    name = "psfo"
    display_name = "PSFO with a fixed ℓ"
    description = "every set padded to ℓ, one item sampled and reported, estimates multiplied by ℓ"
    paper = "Wang, Li, Jha — Locally Differentially Private Frequent Itemset Mining, S&P 2018, §4"
    declared_parameters: tuple[Param, ...] = (PAD,)
    collection = "one-time"  # one round: ldp perturb / ldp aggregate --mechanism psfo write and read its reports
    runner = staticmethod(psfo_items)

    @classmethod
    def round_clients(cls, epsilon: float) -> list[tuple[str, Any]]:
        """Padding and sampling over 4 items at ℓ = 1, 2, 3, through each oracle the adaptive choice may pick."""
        return _psfo_clients(epsilon, SMALL_ITEMS, (1, 2, 3))

