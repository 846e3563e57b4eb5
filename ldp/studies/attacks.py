"""What ε means for one user: plausible deniability and the Bayes-optimal attacker.

The attacker sees one report y and knows the prior π (the data distribution) and the mechanism;
guessing argmax_v π_v Pr[y | v] is optimal, with success probability

    S = Σ_y max_v π_v Pr[y | v],

to compare with the no-report baseline max_v π_v. With the values sorted so that π_(1) ≥ π_(2) ≥ …,
the sum has O(d) closed forms for every pure family (derivations in each function); small channels
are enumerated exactly instead (``Mechanism.channel``).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import gammaln

from ldp.mechanisms.base import Mechanism

EXACT_CELLS = 2_000_000


def plausible_deniability_ratio(epsilon: float) -> float:
    """e^ε: the most any report can favour one value over another."""
    return math.exp(epsilon)


def _prior(prior: np.ndarray, d: int) -> np.ndarray:
    pi = np.asarray(prior, dtype=np.float64)
    if pi.shape != (d,):
        raise ValueError(f"the prior must have one probability per value (d={d}), got shape {pi.shape}")
    if np.any(pi < 0) or not np.isfinite(pi).all() or pi.sum() <= 0:
        raise ValueError("the prior must be non-negative with a positive sum")
    return pi / pi.sum()


def baseline_success(prior: np.ndarray) -> float:
    """Success of guessing the most common value without seeing any report."""
    pi = np.asarray(prior, dtype=np.float64)
    return float(pi.max() / pi.sum())


def channel_success(channel: np.ndarray, prior: np.ndarray) -> float:
    """Σ_y max_v π_v C[v, y] for an explicit channel matrix (d × |Y|)."""
    return float((np.asarray(prior)[:, None] * np.asarray(channel)).max(axis=0).sum())


def _first_hit_success(pi_sorted: np.ndarray, hit: float, high: float, low: float) -> float:
    """E[max over a random 'support set' S] when each value is in S independently with probability
    ``hit``: the best candidate is π_(J)·high for the first sorted value J in S, or π_(1)·low when
    value 1 is not in S. Returns Σ_j Pr[J=j] max(·) + Pr[S empty]·low·π_(1)."""
    d = pi_sorted.shape[0]
    j = np.arange(1, d + 1)
    prob_first = (1 - hit) ** (j - 1) * hit
    values = np.maximum(high * pi_sorted, low * pi_sorted[0])
    values[0] = high * pi_sorted[0]
    return float((prob_first * values).sum() + (1 - hit) ** d * low * pi_sorted[0])


def attack_success(mechanism: Mechanism, prior: np.ndarray, *, exact_cells: int = EXACT_CELLS) -> float | None:
    """Success probability of the Bayes-optimal attacker from one report (None for SHE's continuous
    reports). Exact by channel enumeration when the channel has at most ``exact_cells`` entries;
    otherwise the family's closed form (exact for GRR, UE, THE, SS and their longitudinal chains;
    for LH/HR it is the fully-random-hash value, which our pairwise-independent families approach)."""
    pi = _prior(prior, mechanism.d)
    if not mechanism.pure:
        return None
    try:
        if mechanism.d * mechanism._output_count() <= exact_cells:
            return channel_success(mechanism.channel(max_outputs=exact_cells)[0], pi)
    except ValueError:
        pass
    srt = np.sort(pi)[::-1]
    p, q = mechanism.p_star, mechanism.q_star
    family = mechanism.family
    if family == "grr":
        # output y: max(π_y p, q·max_{v≠y} π_v); max_{v≠y} π_v = π_(1) unless y is the top value.
        best_other = np.where(np.arange(pi.size) == int(np.argmax(pi)), srt[1] if pi.size > 1 else 0.0, srt[0])
        return float(np.maximum(pi * p, best_other * q).sum())
    if family == "ue":
        # Pr[y|v] = Q(y)·ρ_v(y) with Q the all-bits-Bernoulli(q) law, ρ = p/q on bit v set, (1−p)/(1−q)
        # unset; S = E_Q[max_v π_v ρ_v(y)], and under Q each bit is set independently w.p. q.
        return _first_hit_success(srt, q, p / q, (1 - p) / (1 - q)) if 0 < q < 1 else None
    if family in ("lh", "hr"):
        g = getattr(mechanism, "g", 2)
        keep, other = mechanism._hashed_probabilities() if family == "lh" else (p, 1 - p)
        # Σ over the g reported values; each value hashes to a given y independently w.p. 1/g.
        return g * _first_hit_success(srt, 1.0 / g, keep, other)
    if family == "ss":
        w, d = mechanism.omega, mechanism.d
        # Σ_Ω max(p_in max_{Ω} π, p_out max_{∉Ω} π), p_in/p_out = e^ε; grouping subsets by their first
        # sorted member J = j: #{Ω} = C(d−j, ω−1), weight relative to C(d−1, ω−1) is w_j.
        j = np.arange(1, d + 1)
        with np.errstate(invalid="ignore"):
            log_w = (gammaln(d - j + 1) - gammaln(w) - gammaln(d - j - w + 2)) - (
                gammaln(d) - gammaln(w) - gammaln(d - w + 1))
        weights = np.where(d - j >= w - 1, np.exp(log_w), 0.0)
        values = np.maximum(p * srt, (1 - p) * w / (d - w) * srt[0])
        values[0] = p * srt[0]
        return float((weights * values).sum())
    return None
