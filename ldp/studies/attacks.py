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
    """e^ε: the most any report can favour one value over another.

    Parameters
    ----------
    epsilon : float
        The privacy budget ε (natural-log units; not checked).

    Returns
    -------
    float
        e^ε, the largest ratio Pr[y | v] / Pr[y | v'] an ε-LDP mechanism allows for any report y and values v, v'.

    References
    ----------
    The LDP lecture (ldp-lecture-frequency-oracles-heavy-hitters-itemsets), "From DP to LDP: Formal Definition":
    Pr[A(x) = y] ≤ exp(ε)·Pr[A(x') = y].
    """
    return math.exp(epsilon)


def baseline_success(prior: np.ndarray) -> float:
    """Success of guessing the most common value without seeing any report.

    Parameters
    ----------
    prior : numpy.ndarray
        The attacker's prior π over the d values, shape (d,): non-negative weights (counts or probabilities; they
        are normalized here).

    Returns
    -------
    float
        max_v π_v / Σ_v π_v, in (0, 1].

    Raises
    ------
    InvalidInput
        If the prior is not a non-empty 1-d vector of finite non-negative numbers with a positive sum.
    """
    pi = np.asarray(prior, dtype=np.float64)
    if pi.ndim != 1 or pi.size < 1 or not np.all(np.isfinite(pi)) or np.any(pi < 0) or pi.sum() <= 0:
        raise InvalidInput("the prior must be a non-empty vector of non-negative numbers with a positive sum")
    return float(pi.max() / pi.sum())


def channel_success(channel: np.ndarray, prior: np.ndarray) -> float:
    """Σ_y max_v π_v C[v, y] for an explicit channel matrix (inputs × outputs).

    Parameters
    ----------
    channel : numpy.ndarray
        The channel C, shape (d, m): C[v, y] = Pr[report y | value v], each row summing to 1 (not checked).
    prior : numpy.ndarray
        The prior π over the d values, shape (d,), summing to 1 (not normalized here, unlike
        :func:`baseline_success`).

    Returns
    -------
    float
        The success probability of the Bayes-optimal (maximum a posteriori) guess from one report.
    """
    return float((np.asarray(prior)[:, None] * np.asarray(channel)).max(axis=0).sum())


def attack_success(mechanism: Mechanism, prior: np.ndarray) -> float | None:
    """Success probability of the Bayes-optimal attacker from one report (None where not computed, e.g. SHE's
    continuous reports).

    Parameters
    ----------
    mechanism : Mechanism
        A built mechanism (its ε and domain size d fixed); its ``attack_success`` hook computes S.
    prior : numpy.ndarray
        The prior π over the mechanism's d values, shape (d,): non-negative weights, normalized to sum 1.

    Returns
    -------
    float or None
        S = Σ_y max_v π_v Pr[y | v], exactly from the channel when it is small enough to enumerate, else from the
        family's closed form; None where the mechanism does not compute it.

    Raises
    ------
    InvalidInput
        If the prior does not have shape (d,) or is not finite and non-negative with a positive sum.
    """
    return mechanism.attack_success(prior)
