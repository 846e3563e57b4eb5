"""Repeated collection with memoization (Ding, Kulkarni, Yekhanin, "Collecting Telemetry Data Privately", NeurIPS
2017, §3 — the mechanisms Microsoft deployed in Windows telemetry): 1BitMean for a counter's mean with α-point
rounding, memoization and output perturbation (:func:`memoized_mean_rounds`), and dBitFlip for histograms with
memoized buckets and bits (:func:`memoized_histogram_rounds`).

One-time 1BitMean (:class:`ldp.mechanisms.mean.OneBitMean`, SR with a 0/1 report) spends ε every time it is run:
τ daily reports of the same counter compose to τ·ε. The paper's remedy, on values mapped to [−1, 1]:

1. **α-point rounding** (§3.1). The range is cut into s equal steps, grid points v_k = −1 + 2k/s (k = 0…s). Each
   user draws α ∈ [0, 1) uniformly *once*; a value x with position y = (x + 1)s/2 = L + r (L integer, r ∈ [0, 1))
   is rounded to k = L + 1 if r > α, else k = L. Over α, Pr[up] = r, so E[v_k] = x (unbiased); for a fixed user
   the rounding is deterministic, so a counter that wobbles inside one step mostly keeps its rounded value.
   (The paper draws α from the discrete set of the s-step grid; a continuous α is the same rounding without the
   second discretisation — our choice.)
2. **Memoization** (§3.1). The user's 1BitMean bit for grid point k is drawn once and reused whenever the rounded
   value is k again. The reports are then a function of the memoized bits of the grid points the user visited, so
   a user whose rounded value never changes spends ε over any number of rounds, and in general ε × (the number of
   distinct rounded values reported) — :attr:`RepeatedCollection.epsilon_spent`. That accounting (the paper's)
   compares value sequences that change at the same rounds: *when* the rounded value changes is not covered — two
   sequences that change at different rounds can give report sequences of which one is impossible under the
   other (bits 1, 1, 0, 0 cannot come from "k₁ three rounds, then k₂"), an unbounded ratio. Hence step 3.
3. **Output perturbation** (§3.2). With memoization alone a change of the reported bit proves that the rounded
   value changed. Flipping each report with probability γ < ½ (fresh each round) hides that: a bit change then
   happens with probability 2γ(1 − γ) even when nothing changed (:func:`change_evidence`). The server debiases the
   flip: b' = (b − γ)/(1 − 2γ).

Estimate per round (the paper's mean estimator, on [−1, 1]): μ̂_t = (1/n) Σ_u scale·(2b'_u − 1) with
scale = (e^ε + 1)/(e^ε − 1). Per user, E[Y | k] = v_k and E[Y²] = scale²/(1 − 2γ)² whatever k is, so over α

    Var[Y] = scale²/(1 − 2γ)² − x²,     Var[μ̂_t] = Σ_u Var[Y_u] / n²

— at γ = 0 exactly one-time 1BitMean's (SR's) variance: rounding and memoization cost no accuracy in a round (the
paper's Theorem: "the same accuracy as the single-round mechanism"). What they cost is *independence across
rounds*: a user's errors repeat, so averaging μ̂ over rounds does not shrink the error as 1/τ.

**dBitFlip** (§3, histograms): each user samples her d' buckets j_1 < … < j_{d'} once, and memoizes for every slot
i two bits — the one sent when her value is j_i (1 with probability p = h/(h + 1), h = e^{ε/2}) and the one sent
when it is not (probability q = 1/(h + 1)). A round's report is the slot's "own" bit where j_i = v_t and the
"other" bit elsewhere, each flipped with probability γ. A round's report has exactly one-time dBitFlip's law, so
the round's estimate is unbiased with dBitFlip's variance at γ = 0; with γ the server debiases b' = (b − γ)/(1 − 2γ),
E[b'] = P and E[b'²] = P + γ(1 − γ)/(1 − 2γ)², so a user's term for bucket v has second moment
r(d/d')²[(h + 1)²E[b'²] − 2(h + 1)P + 1]/(h − 1)² with P = p (own) or q (other), r = d'/d. A user reveals one
response per *state* (her value in slot i, or in none of her buckets): moving between values she did not sample
changes nothing she sends — the paper's point — so ε × (distinct states visited) ≤ (d' + 1)ε, with the same
caveat about when the changes happen.

The memoized bits are never stored as an n × (s + 1) table: the uniform behind user u's bit at grid point k is a
counter-based hash (SplitMix64) of a per-user 64-bit key drawn from the seeded generator and k, so memory stays
O(n) per round whatever s is, and the same (user, k) always gives the same bit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ldp.core.errors import InvalidInput
from ldp.core.params import check_positive_int
from ldp.mechanisms.frequency.bitflip import DBitFlip
from ldp.mechanisms.mean import OneBitMean

__all__ = ["RepeatedCollection", "alpha_point_round", "change_evidence", "memoized_histogram_rounds",
           "memoized_mean_rounds", "memoized_round_variance"]

#: Largest users × rounds a repeated collection simulates (memory: a few float64 arrays of that size).
MAX_CELLS = 20_000_000

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _splitmix64(x: np.ndarray) -> np.ndarray:
    """The SplitMix64 finaliser (Steele, Lea, Flood 2014) on uint64 arrays (wrapping arithmetic)."""
    z = x + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _memo_uniforms(keys: np.ndarray, k: np.ndarray) -> np.ndarray:
    """The uniform in [0, 1) behind each user's memoized bit at grid point k (53 high bits of the hash)."""
    with np.errstate(over="ignore"):
        h = _splitmix64(keys ^ (k.astype(np.uint64) * _GOLDEN))
    return (h >> np.uint64(11)).astype(np.float64) * 2.0 ** -53


def alpha_point_round(values: np.ndarray, steps: int, alpha: np.ndarray) -> np.ndarray:
    """Grid index k ∈ [0, steps] of each value in [−1, 1] by α-point rounding (module docstring, step 1).

    With y = (x + 1)·steps/2 = L + r (L integer, r ∈ [0, 1)), the value rounds up to k = L + 1 if r > α, else
    to k = L; x = 1 gives k = steps. Over α uniform on [0, 1), Pr[up] = r, so the grid point v_k = −1 + 2k/steps
    has mean x.

    Parameters
    ----------
    values : array_like
        Values x in [−1, 1] (not checked), any shape.
    steps : int
        s ≥ 1, the number of equal steps the range is cut into (s + 1 grid points).
    alpha : array_like
        Each user's α in [0, 1), drawn once per user; broadcastable with ``values``.

    Returns
    -------
    numpy.ndarray
        The grid indices k (int64, in [0, steps]), of the broadcast shape of ``values`` and ``alpha``.

    References
    ----------
    Ding, Kulkarni, Yekhanin, "Collecting Telemetry Data Privately", NeurIPS 2017, §3.1 (α-point rounding).
    """
    y = (np.asarray(values, dtype=np.float64) + 1.0) * (steps / 2.0)
    low = np.minimum(np.floor(y), steps - 1)
    return (low + (y - low > alpha)).astype(np.int64)


def memoized_round_variance(values: np.ndarray, epsilon: float, gamma: float = 0.0) -> float:
    """Var[μ̂_t] of one round (module docstring): Σ_u (scale²/(1 − 2γ)² − x_u²) / n², for x in [−1, 1].

    Parameters
    ----------
    values : array_like
        The round's values x_u in [−1, 1], one per user (n = ``values.size``).
    epsilon : float
        The budget ε of one 1BitMean report; scale = (e^ε + 1)/(e^ε − 1).
    gamma : float, default 0.0
        The output perturbation's flip probability γ, in [0, 0.5) (not checked here).

    Returns
    -------
    float
        The variance of the round's mean estimate on the [−1, 1] scale; at γ = 0, one-time 1BitMean's (SR's).

    Raises
    ------
    InvalidInput
        When ``epsilon`` lies outside the mechanisms' range (from :class:`~ldp.mechanisms.mean.OneBitMean`).

    References
    ----------
    Ding, Kulkarni, Yekhanin, "Collecting Telemetry Data Privately", NeurIPS 2017,
    §2.1 (1BitMean) and §3.1–3.2 (memoization, output perturbation).
    """
    x = np.asarray(values, dtype=np.float64)
    scale = OneBitMean(epsilon).scale
    return float(np.sum(scale ** 2 / (1.0 - 2.0 * gamma) ** 2 - x * x) / x.size ** 2)


def change_evidence(epsilon: float, gamma: float, steps: int) -> float:
    """How much a change of the reported bit between two rounds says that the rounded value changed.

    The likelihood ratio Pr[bit changed | rounded value moved by one step] / Pr[bit changed | no change],
    averaged over the grid: with memoized bits b_k (independent across k) and flips γ per report,
    Pr[change | same k] = 2γ(1 − γ) and Pr[change | k → k + 1] = c + (1 − 2c)·Pr[b_k ≠ b_{k+1}], c = 2γ(1 − γ).
    Infinite at γ = 0 (a bit change proves a value change); 1 would mean the change says nothing.

    Parameters
    ----------
    epsilon : float
        The budget ε of one 1BitMean report (the memoized bits' probabilities).
    gamma : float
        The output perturbation's flip probability γ, in [0, 0.5) (not checked here).
    steps : int
        s ≥ 1, the α-point rounding's number of steps (the grid the ratio is averaged over).

    Returns
    -------
    float
        The likelihood ratio, ≥ 1 (``math.inf`` at γ = 0).

    Raises
    ------
    InvalidInput
        For an ε outside the mechanisms' range (raised by the 1BitMean the bit probabilities come from).

    References
    ----------
    Ding, Kulkarni, Yekhanin, "Collecting Telemetry Data Privately", NeurIPS 2017, §3.2 (output perturbation).
    """
    mech = OneBitMean(epsilon)
    grid = -1.0 + 2.0 * np.arange(steps + 1) / steps
    plus = mech.plus_probability(grid)
    differ = float(np.mean(plus[:-1] * (1 - plus[1:]) + (1 - plus[:-1]) * plus[1:]))
    c = 2.0 * gamma * (1.0 - gamma)
    return math.inf if c == 0.0 else (c + (1.0 - 2.0 * c) * differ) / c


def _check_rounds(x: np.ndarray, width: int) -> np.ndarray:
    if x.ndim != 2 or x.shape[0] < 1 or x.shape[1] < 1:
        raise InvalidInput(f"values must be a (rounds, users) array, got shape {x.shape}")
    if x.size * width > MAX_CELLS:
        raise InvalidInput(f"{x.shape[0]} rounds × {x.shape[1]} users (× {width} per report) is more than "
                           f"{MAX_CELLS:,} cells: simulate fewer users or rounds")
    return x


def _check_gamma(gamma: float) -> None:
    if not 0.0 <= gamma < 0.5:
        raise InvalidInput(f"the output perturbation γ must lie in [0, 0.5), got {gamma!r}")


def _user_keys(rng: np.random.Generator, users: int) -> np.ndarray:
    """A 64-bit memo key per user (two draws: ``integers`` stops below 2⁶³ for int64-safe bounds)."""
    return (rng.integers(0, 2 ** 63, size=users, dtype=np.uint64) * np.uint64(2)
            + rng.integers(0, 2, size=users, dtype=np.uint64))


def _distinct_per_user(visited: np.ndarray) -> np.ndarray:
    """Per column of a (rounds, users) array: the number of distinct entries."""
    visited = np.sort(visited, axis=0)
    return 1 + np.count_nonzero(np.diff(visited, axis=0), axis=0)


@dataclass(frozen=True)
class RepeatedCollection:
    """τ rounds of a memoized collection over the same users (module docstring), with what they cost.

    ``estimates``, ``truth`` and ``round_std`` (the closed-form standard deviation of the estimate) are per round:
    shape (rounds,) for a mean on [−1, 1], (rounds, d) for a histogram. ``revealed`` is, per user, the number of
    distinct memoized responses her reports revealed (rounded values for 1BitMean, states for dBitFlip), so
    ``epsilon_spent`` = ε × that; ``bit_changes`` counts the rounds whose report differs from the previous one.

    Attributes
    ----------
    mechanism : str
        The registry name of the one-time mechanism: ``"1bitmean"`` or ``"dbitflip"``.
    epsilon : float
        The budget ε of one report (of one memoized response).
    gamma : float
        The output perturbation's flip probability γ, in [0, 0.5).
    rounds : int
        τ, the number of rounds.
    users : int
        n, the number of users (the same in every round).
    estimates : numpy.ndarray
        Per round: the estimated mean on [−1, 1], shape (rounds,), or the estimated frequencies, shape (rounds, d)
        (unbiased, not projected onto the simplex).
    truth : numpy.ndarray
        The true mean or frequencies per round, of the shape of ``estimates``.
    round_std : numpy.ndarray
        The closed-form standard deviation of each entry of ``estimates``, of its shape.
    revealed : numpy.ndarray
        Per user (shape (users,), int): the distinct rounded values (1BitMean: at most min(τ, s + 1)) or states
        (dBitFlip: at most min(τ, d' + 1)) her reports revealed.
    bit_changes : numpy.ndarray
        Per user (shape (users,), int64): the rounds whose report differs from the previous round's (for dBitFlip,
        in any of the d' bits), in [0, τ − 1].

    References
    ----------
    Ding, Kulkarni, Yekhanin, "Collecting Telemetry Data Privately", NeurIPS 2017, §3.
    """

    mechanism: str
    epsilon: float
    gamma: float
    rounds: int
    users: int
    estimates: np.ndarray
    truth: np.ndarray
    round_std: np.ndarray
    revealed: np.ndarray
    bit_changes: np.ndarray

    @property
    def epsilon_spent(self) -> np.ndarray:
        """Per user: ε × the distinct memoized bits revealed (at most ε(s + 1), and never more than τ·ε) — the
        guarantee for the values, between sequences that change at the same rounds (module docstring, step 2)."""
        return self.epsilon * self.revealed

    @property
    def epsilon_fresh(self) -> float:
        """What τ fresh (unmemoized) 1BitMean reports cost each user: τ·ε."""
        return self.rounds * self.epsilon

    @property
    def z_scores(self) -> np.ndarray:
        """(μ̂_t − μ_t)/σ_t per round: standard normal if the estimate is unbiased with the stated variance."""
        return (self.estimates - self.truth) / self.round_std


def memoized_mean_rounds(values: np.ndarray, epsilon: float, rng: np.random.Generator, *, steps: int = 32,
                         gamma: float = 0.0) -> RepeatedCollection:
    """Simulate repeated 1BitMean collection with α-point rounding, memoization and output perturbation.

    ``values`` is a (rounds, users) array of each user's counter per round, mapped to [−1, 1]. The per-user α and
    memo keys are drawn once from ``rng``; the flips of the output perturbation fresh each round.

    Parameters
    ----------
    values : array_like
        Shape (rounds, users): each user's counter per round, mapped to [−1, 1].
    epsilon : float
        The budget ε of one 1BitMean report (one memoized bit).
    rng : numpy.random.Generator
        The randomness: per-user α and memo keys (drawn once), then the flips of every round.
    steps : int, default 32
        s, the number of steps of α-point rounding (s + 1 grid points on [−1, 1]).
    gamma : float, default 0.0
        The output perturbation's flip probability γ, in [0, 0.5), drawn fresh each round; 0 disables it.

    Returns
    -------
    RepeatedCollection
        Mechanism ``"1bitmean"``: per round the mean estimate μ̂_t, the true mean and σ_t (shape (rounds,)), and
        per user the distinct rounded values revealed and the bit changes.

    Raises
    ------
    InvalidInput
        When ``values`` is not a non-empty (rounds, users) array of finite numbers in [−1, 1], rounds × users
        exceeds :data:`MAX_CELLS`, ``steps`` is not a positive integer, γ lies outside [0, 0.5) or ε outside the
        mechanisms' range.

    References
    ----------
    Ding, Kulkarni, Yekhanin, "Collecting Telemetry Data Privately", NeurIPS 2017,
    §3.1 (α-point rounding, memoization) and §3.2 (output perturbation).
    """
    x = _check_rounds(np.asarray(values, dtype=np.float64), 1)
    if not np.all(np.isfinite(x)) or np.any(np.abs(x) > 1.0):
        raise InvalidInput("values must lie in [−1, 1] (map the counter's public range first)")
    steps = check_positive_int(steps, "steps")
    _check_gamma(gamma)
    mech = OneBitMean(epsilon)
    rounds, users = x.shape
    alpha = rng.random(users)
    keys = _user_keys(rng, users)
    estimates, round_std = np.empty(rounds), np.empty(rounds)
    visited = np.empty((rounds, users), dtype=np.int32)
    changes = np.zeros(users, dtype=np.int64)
    previous = None
    for t in range(rounds):  # a loop over rounds, each vectorized over users
        k = visited[t] = alpha_point_round(x[t], steps, alpha)
        bits = _memo_uniforms(keys, k) < mech.plus_probability(-1.0 + 2.0 * k / steps)
        if gamma > 0.0:
            bits ^= rng.random(users) < gamma
        debiased = (bits - gamma) / (1.0 - 2.0 * gamma)
        estimates[t] = float(np.mean(mech.scale * (2.0 * debiased - 1.0)))
        round_std[t] = math.sqrt(memoized_round_variance(x[t], epsilon, gamma))
        if previous is not None:
            changes += bits != previous
        previous = bits
    return RepeatedCollection(mechanism=mech.name, epsilon=float(epsilon), gamma=float(gamma), rounds=rounds,
                              users=users, estimates=estimates, truth=x.mean(axis=1), round_std=round_std,
                              revealed=_distinct_per_user(visited), bit_changes=changes)


def _bitflip_second_moments(mech: DBitFlip, gamma: float) -> tuple[float, float]:
    """E[Y_v²] of one user's term for bucket v, own value and other value (module docstring, dBitFlip)."""
    h, g = mech.h, gamma * (1.0 - gamma) / (1.0 - 2.0 * gamma) ** 2
    scale = (1.0 / mech.rate) / (h - 1.0) ** 2  # r (d/d')² with r = d'/d

    def moment(prob: float) -> float:
        return scale * ((h + 1.0) ** 2 * (prob + g) - 2.0 * (h + 1.0) * prob + 1.0)

    return moment(mech.p_bit), moment(mech.q_bit)


def memoized_histogram_rounds(values: np.ndarray, epsilon: float, d: int, rng: np.random.Generator, *,
                              d_prime: int = 1, gamma: float = 0.0) -> RepeatedCollection:
    """Simulate repeated dBitFlip collection with memoized buckets and bits (module docstring).

    ``values`` is a (rounds, users) array of codes in [0, d). Estimates are per round and value (frequencies).

    Parameters
    ----------
    values : array_like of int
        Shape (rounds, users): each user's value per round, an integer code in [0, d).
    epsilon : float
        The budget ε of one dBitFlip report.
    d : int
        The domain size.
    rng : numpy.random.Generator
        The randomness: per-user buckets and memo keys (drawn once), then the flips of every round.
    d_prime : int, default 1
        d', the buckets each user samples once, in [1, d].
    gamma : float, default 0.0
        The output perturbation's flip probability γ, in [0, 0.5), drawn fresh each round; 0 disables it.

    Returns
    -------
    RepeatedCollection
        Mechanism ``"dbitflip"``: per round the frequency estimates, the true frequencies and their standard
        deviations (shape (rounds, d)), and per user the distinct states revealed and the report changes.

    Raises
    ------
    InvalidInput
        When ``values`` is not a non-empty (rounds, users) array of integer codes in [0, d), rounds × users × d'
        exceeds :data:`MAX_CELLS`, γ lies outside [0, 0.5), or ε, d or d' lie outside dBitFlip's ranges.

    References
    ----------
    Ding, Kulkarni, Yekhanin, "Collecting Telemetry Data Privately", NeurIPS 2017,
    §3 (dBitFlip, memoization) and §3.2 (output perturbation).
    """
    codes = _check_rounds(np.asarray(values), max(int(d_prime), 1))
    if not np.issubdtype(codes.dtype, np.integer) or codes.min() < 0 or codes.max() >= d:
        raise InvalidInput(f"values must be integer codes in [0, {d})")
    _check_gamma(gamma)
    mech = DBitFlip(epsilon, d, d_prime=d_prime)
    rounds, users = codes.shape
    buckets = mech.sample_buckets(users, rng).astype(np.int64)  # (users, d'), memoized
    keys = _user_keys(rng, users)
    slot = np.arange(mech.d_prime, dtype=np.int64)[None, :]
    own_bits = _memo_uniforms(keys[:, None], 2 * slot) < mech.p_bit
    other_bits = _memo_uniforms(keys[:, None], 2 * slot + 1) < mech.q_bit
    own_moment, other_moment = _bitflip_second_moments(mech, gamma)
    sampled = np.bincount(buckets.ravel(), minlength=d).astype(np.float64)
    estimates, truth, round_std = np.empty((rounds, d)), np.empty((rounds, d)), np.empty((rounds, d))
    states = np.empty((rounds, users), dtype=np.int64)
    changes = np.zeros(users, dtype=np.int64)
    previous = None
    for t in range(rounds):  # a loop over rounds, each vectorized over users
        own = buckets == codes[t][:, None]
        states[t] = np.where(own.any(axis=1), own.argmax(axis=1), mech.d_prime)  # slot holding v, or "none"
        bits = np.where(own, own_bits, other_bits)
        if gamma > 0.0:
            bits ^= rng.random(bits.shape) < gamma
        ones = np.bincount(buckets.ravel(), weights=((bits - gamma) / (1.0 - 2.0 * gamma)).ravel(), minlength=d)
        estimates[t] = (ones * mech.one_value + (sampled - ones) * mech.zero_value) / users
        counts = np.bincount(codes[t], minlength=d).astype(np.float64)
        truth[t] = counts / users
        round_std[t] = np.sqrt(counts * (own_moment - 1.0) + (users - counts) * other_moment) / users
        if previous is not None:
            changes += np.any(bits != previous, axis=1)
        previous = bits
    return RepeatedCollection(mechanism=mech.name, epsilon=float(epsilon), gamma=float(gamma), rounds=rounds,
                              users=users, estimates=estimates, truth=truth, round_std=round_std,
                              revealed=_distinct_per_user(states), bit_changes=changes)
