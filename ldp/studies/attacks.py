"""What ε means for one user: plausible deniability and the Bayes-optimal attacker.

The attacker sees one report y and knows the prior π (the data distribution) and the mechanism; guessing
argmax_v π_v Pr[y | v] is optimal, with success probability S = Σ_y max_v π_v Pr[y | v], to compare with the
no-report baseline max_v π_v. Each mechanism computes S (``Mechanism.attack_success``): exactly from its
channel when that is small enough to enumerate, else from its family's closed form (a hook of the class).
"""

from __future__ import annotations

import math

import numpy as np

from ldp.core.errors import InvalidInput
from ldp.mechanisms.base import Mechanism

__all__ = ["attack_success", "baseline_success", "channel_success", "plausible_deniability_ratio"]


def plausible_deniability_ratio(epsilon: float) -> float:
    """e^ε: the most any report can favour one value over another."""
    return math.exp(epsilon)


def baseline_success(prior: np.ndarray) -> float:
    """Success of guessing the most common value without seeing any report."""
    pi = np.asarray(prior, dtype=np.float64)
    if pi.ndim != 1 or pi.size < 1 or not np.all(np.isfinite(pi)) or np.any(pi < 0) or pi.sum() <= 0:
        raise InvalidInput("the prior must be a non-empty vector of non-negative numbers with a positive sum")
    return float(pi.max() / pi.sum())


def channel_success(channel: np.ndarray, prior: np.ndarray) -> float:
    """Σ_y max_v π_v C[v, y] for an explicit channel matrix (inputs × outputs)."""
    return float((np.asarray(prior)[:, None] * np.asarray(channel)).max(axis=0).sum())


def attack_success(mechanism: Mechanism, prior: np.ndarray) -> float | None:
    """Success probability of the Bayes-optimal attacker from one report (None where not computed, e.g. SHE's
    continuous reports)."""
    return mechanism.attack_success(prior)
