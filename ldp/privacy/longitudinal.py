"""Collecting every day: what an attacker learns about one user's value over τ rounds.

Two ways to report the same value v every round, each report ε1-LDP (GRR on d values):

- **no memoization** — a fresh GRR(ε1) report each round. The rounds compose: after τ reports the guarantee is
  τ·ε1, and the attacker's posterior on v tends to 1 (it averages the noise away).
- **memoization** (L-GRR, IBU paper §3.2, :class:`ldp.mechanisms.longitudinal.LGRR`) — GRR(ε∞) is drawn once
  and memoized, and each round re-randomizes the memoized value with the second step GRR(p2). One report costs
  ε1; any number of reports together cost at most ε∞ (they are a post-processing of the memoized value), and
  the attacker learns at most the memoized value.

Closed forms (prior π on the d values, π_v the true value's prior): the worst-case posterior on v after τ
reports is π_v e^{L} / (π_v e^{L} + 1 − π_v) with L = τ ε1 (no memoization) or L = min(τ ε1, ε∞) (memoization),
averaged over v ~ π for the ``bound_*`` curves (an upper bound on the mean posterior);
with memoization and τ → ∞ the attacker holds the memoized value exactly, so its expected posterior on the true
value tends to Σ_y Pr[y|v] π_v Pr[y|v] / Σ_u π_u Pr[y|u] for the first step's channel (averaged over v ~ π).
The expected posterior at finite τ is simulated: users are drawn from π, their τ reports generated with the
mechanisms' own randomizers, and the attacker's exact Bayes posterior computed from the counts of each reported
value (memoized case: the likelihood is a mixture over the memoized value).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ldp.core.errors import InvalidInput
from ldp.core.streams import rng_for
from ldp.mechanisms.frequency.grr import grr_probabilities, grr_randomize
from ldp.mechanisms.longitudinal import LGRR

__all__ = ["LongitudinalResult", "longitudinal_study", "posterior_bound", "memoized_limit"]


def _grr_matrix(p: float, d: int) -> np.ndarray:
    m = np.full((d, d), (1 - p) / (d - 1))
    np.fill_diagonal(m, p)
    return m


def posterior_bound(prior_v: float | np.ndarray, epsilon_total: float | np.ndarray) -> np.ndarray:
    """Largest posterior on the true value an ε-DP view allows: π e^ε / (π e^ε + 1 − π).

    Parameters
    ----------
    prior_v : float or array_like
        The prior π_v of the true value, in [0, 1].
    epsilon_total : float or array_like
        The total privacy loss of the attacker's view (clamped at 700 to avoid overflow); broadcastable.

    Returns
    -------
    numpy.ndarray
        The bound, in [π_v, 1].
    """
    pi = np.asarray(prior_v, dtype=np.float64)
    odds = np.exp(np.minimum(np.asarray(epsilon_total, dtype=np.float64), 700.0))
    return pi * odds / (pi * odds + 1 - pi)


def memoized_limit(prior: np.ndarray, epsilon_inf: float) -> float:
    """Expected posterior on the true value once the memoized GRR(ε∞) value is known exactly (τ → ∞).

    Σ_y Σ_v π_v Pr[y|v] · Pr[v|y], with Pr[y|v] GRR(ε∞)'s channel on the d values.

    Parameters
    ----------
    prior : array_like
        The prior π on the d values (summing to one).
    epsilon_inf : float
        ε∞, the budget of the memoized first step.

    Returns
    -------
    float
        The expected posterior on the true value, averaged over v ~ π.

    References
    ----------
    Arcolezi et al., IBU vs matrix inversion (DBSec'23), §3.2 (L-GRR: GRR ∘ GRR, Algorithm 2).
    """
    pi = np.asarray(prior, dtype=np.float64)
    first = _grr_matrix(grr_probabilities(epsilon_inf, pi.size)[0], pi.size)  # Pr[memo y | v]
    joint = pi[:, None] * first
    post = joint / joint.sum(axis=0, keepdims=True)  # Pr[v | y]
    return float((joint * post).sum())


@dataclass(frozen=True)
class LongitudinalResult:
    """What :func:`longitudinal_study` found: one entry per number of rounds τ in ``rounds``.

    Parameters
    ----------
    d : int
        The domain size.
    epsilon_1, epsilon_inf : float
        The per-report budget ε1 and the memoized budget ε∞.
    rounds : list of int
        The numbers of rounds τ, increasing.
    users : int
        Simulated users.
    composed_epsilon, memoized_epsilon : list of float
        The guarantee after τ reports: τ·ε1 without memoization, min(τ·ε1, ε∞) with it.
    posterior_fresh, posterior_memoized : list of float
        The attacker's simulated mean posterior on the true value.
    bound_fresh, bound_memoized : list of float
        The closed-form upper bounds on that mean (:func:`posterior_bound` averaged over v ~ π).
    accuracy_fresh, accuracy_memoized : list of float
        The MAP attacker's share of correct guesses.
    memoized_limit : float
        The τ → ∞ limit with memoization (:func:`memoized_limit`).
    prior_max : float
        The largest prior probability (the attacker's accuracy with no reports).
    """
    d: int
    epsilon_1: float
    epsilon_inf: float
    rounds: list[int]
    users: int
    composed_epsilon: list[float]
    memoized_epsilon: list[float]
    posterior_fresh: list[float]
    posterior_memoized: list[float]
    bound_fresh: list[float]
    bound_memoized: list[float]
    accuracy_fresh: list[float]
    accuracy_memoized: list[float]
    memoized_limit: float
    prior_max: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def rows(self) -> list[dict[str, float]]:
        keys = ("composed_epsilon", "memoized_epsilon", "posterior_fresh", "posterior_memoized", "bound_fresh",
                "bound_memoized", "accuracy_fresh", "accuracy_memoized")
        return [{"rounds": r, **{k: getattr(self, k)[i] for k in keys}} for i, r in enumerate(self.rounds)]


def _posteriors(log_lik: np.ndarray, prior: np.ndarray, truth: np.ndarray) -> tuple[float, float]:
    """Mean posterior on the true value, and the MAP attacker's accuracy, from per-user log-likelihoods."""
    logpost = log_lik + np.log(prior)[None, :]
    logpost -= logpost.max(axis=1, keepdims=True)
    post = np.exp(logpost)
    post /= post.sum(axis=1, keepdims=True)
    idx = np.arange(truth.size)
    return float(post[idx, truth].mean()), float((post.argmax(axis=1) == truth).mean())


def longitudinal_study(d: int, epsilon_inf: float, epsilon_1: float, rounds: Any, users: int = 20_000,
                       prior: Any = None, seed: int | None = 0) -> LongitudinalResult:
    """The attacker's posterior on one user's value vs the number of rounds, without and with memoization.

    Users are drawn from the prior; each round both ways report (fresh GRR(ε1), and L-GRR's second step on the value
    memoized once by GRR(ε∞)), and the attacker's exact Bayes posterior is computed from the report counts.

    Parameters
    ----------
    d : int
        The domain size.
    epsilon_inf : float
        ε∞ of the memoized first step (> ε1).
    epsilon_1 : float
        ε1 of one report.
    rounds : int or array_like of int
        The numbers of rounds τ to evaluate, each in [1, 10000] (deduplicated, sorted).
    users : int, default 20000
        Simulated users, in [100, 10⁶].
    prior : array_like, optional
        The prior on the d values (non-negative, positive sum; normalised); uniform when None.
    seed : int or None, default 0
        Root seed of the simulation's stream.

    Returns
    -------
    LongitudinalResult
        One entry per τ.

    Raises
    ------
    InvalidInput
        For invalid L-GRR parameters (d, ε∞ ≤ ε1), bad rounds, users or prior.

    References
    ----------
    Arcolezi et al., IBU vs matrix inversion (DBSec'23), §3.2 (L-GRR, Algorithm 2).
    """
    mech = LGRR(epsilon_inf, d, epsilon_1=epsilon_1)  # validates d, ε∞ > ε1
    taus = sorted({int(t) for t in np.atleast_1d(np.asarray(rounds))})
    if not taus or taus[0] < 1 or taus[-1] > 10_000:
        raise InvalidInput("longitudinal: rounds must be integers between 1 and 10000")
    if isinstance(users, bool) or not isinstance(users, (int, np.integer)) or not 100 <= users <= 10**6:
        raise InvalidInput(f"longitudinal: users must be an integer between 100 and 1e6, got {users!r}")
    pi = np.full(d, 1.0 / d) if prior is None else np.asarray(prior, dtype=np.float64)
    if pi.shape != (d,) or np.any(~np.isfinite(pi)) or np.any(pi < 0) or pi.sum() <= 0:
        raise InvalidInput(f"longitudinal: the prior must be {d} non-negative numbers with a positive sum")
    pi = pi / pi.sum()
    rng = rng_for(seed, "longitudinal", d, epsilon_inf, epsilon_1, users)
    truth = rng.choice(d, size=users, p=pi)
    p_fresh = grr_probabilities(epsilon_1, d)[0]
    log_fresh = np.log(_grr_matrix(p_fresh, d))
    log_first = np.log(_grr_matrix(mech.p1, d))
    log_second = np.log(_grr_matrix(mech.p2, d))
    memo = grr_randomize(truth, mech.p1, d, rng)
    seen_fresh = np.zeros((users, d))
    seen_memo = np.zeros((users, d))
    rows = np.arange(users)
    out: dict[str, list[float]] = {k: [] for k in ("pf", "pm", "af", "am")}
    done = 0
    for tau in taus:
        for _ in range(tau - done):
            np.add.at(seen_fresh, (rows, grr_randomize(truth, p_fresh, d, rng)), 1)
            np.add.at(seen_memo, (rows, grr_randomize(memo, mech.p2, d, rng)), 1)
        done = tau
        pf, af = _posteriors(seen_fresh @ log_fresh.T, pi, truth)  # Σ_y k_y log Pr[y | u]
        lm = seen_memo @ log_second.T  # log Pr[reports | memo = m], users × m
        mix = lm[:, None, :] + log_first[None, :, :]  # users × u × m
        top = mix.max(axis=2, keepdims=True)
        ll_memo = (top[..., 0] + np.log(np.exp(mix - top).sum(axis=2)))
        pm, am = _posteriors(ll_memo, pi, truth)
        out["pf"].append(pf)
        out["pm"].append(pm)
        out["af"].append(af)
        out["am"].append(am)
    taus_arr = np.asarray(taus, dtype=np.float64)
    composed = taus_arr * epsilon_1
    memoized = np.minimum(composed, epsilon_inf)

    def bound(total: np.ndarray) -> list[float]:  # E_{v~π}[worst-case posterior on v]: bounds the mean posterior
        return (pi[None, :] * posterior_bound(pi[None, :], total[:, None])).sum(axis=1).tolist()

    return LongitudinalResult(d, float(epsilon_1), float(epsilon_inf), taus, int(users), composed.tolist(),
                              memoized.tolist(), out["pf"], out["pm"],
                              bound(composed), bound(memoized),
                              out["af"], out["am"], memoized_limit(pi, epsilon_inf), float(pi.max()))


