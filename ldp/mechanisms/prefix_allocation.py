"""PEM's "optimise expected utility" (the LDP lecture, "More Bits or Fewer Bits?"): the bits each round adds and the
share of the users each round gets, chosen to maximise the expected number of heavy hitters identified.

The lecture gives the goal and the assumptions, not the formulas ("Goal: maximize expected number of heavy hitters
that can be identified"; "each group should take as many bits as possible"; "a reasonable distribution (the more
close the better)"; "probabilistic approximations"; "the constraint will be the computational power"). Our model,
written here because the lecture leaves it open:

- **Distribution (the assumption).** The server does not know the data; it assumes a Zipf(s) law over ``distinct``
  values placed at random positions of the 2^m domain (:data:`PRIOR_S`, :data:`PRIOR_DISTINCT`: the population of
  :func:`ldp.studies.heavy_hitters.zipf_values`). The k heavy hitters have frequencies f_1 ≥ … ≥ f_k and the other
  values form a background of second moment S₂ = Σ_{v>k} f_v².
- **One round.** Round j reports prefixes of L_j bits, with a share w_j of the n users; its oracle's estimate of a
  rare candidate has variance σ_j² = V_j/(w_j n) (V_j = the oracle's ``approximate_variance(1)``: 4e^ε/(e^ε − 1)² for
  OLH). A heavy hitter's prefix competes with N_j = K_j − k other candidates (K_j = 2^{L_1} in the first round,
  k·2^{η_j} after), whose true frequencies are background sums that vary from prefix to prefix with variance
  τ_j² = S₂·2^{−L_j}(1 − 2^{−L_j}) (each background value falls under a given prefix with probability 2^{−L_j}).
- **Probabilistic approximation.** The largest competitor's estimate is taken at its typical value
  b_j + a_j·√(σ_j² + τ_j²), with a_j = Φ⁻¹(1 − 1/(N_j + 1)) the typical maximum of N_j standard normals, and heavy
  hitter i survives the round when its estimate, f_i + b_j + σ_j Z, exceeds it and also beats the (k+1)-th value
  (frequency f_{k+1}, the nearest rival, whose prefix competes in every round; the two events taken as independent):
  P_ij = Φ((f_i − a_j √(σ_j² + τ_j²))/σ_j) · Φ((f_i − f_{k+1})/(√2 σ_j)). Rounds use disjoint users, so they are
  independent, and the expected number found is U(w, L) = Σ_i Π_j P_ij.
- **Solver.** For each number of bits per round η = 1 … η_max (after the first round's γ + η bits; the computational
  constraint: η_max is PEM's ``eta``, so no round probes more candidates than the uniform protocol would), the
  shares w maximise U over the simplex (softmax parametrisation, SciPy's L-BFGS-B started from the uniform shares,
  kept only if it improves on them under the model); the (η, w) with the largest U wins.

**What it finds (measured by benchmarks/bench_pem_groups.py).** Under this model the solver does *not* put fewer
users at the top, as the lecture says PEM proposes: the rounds that probe the most candidates (the first, with
2^{γ+η} of them, and every full η-bit extension) need the most users to keep a heavy prefix above the largest of
their rivals, and a short last round (k·2 candidates when η does not divide m − γ − η) gets the fewest. The gain over
equal groups is small (a few hundredths of a heavy hitter in the model, within the seed-to-seed noise in simulation);
PEM's own default keeps equal groups.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ldp.core.errors import InvalidInput

__all__ = ["PRIOR_DISTINCT", "PRIOR_S", "Allocation", "expected_found", "optimise_allocation", "prefix_lengths",
           "uniform_expected_found", "zipf_prior"]

#: The distribution the server assumes (the lecture: "a reasonable distribution"): Zipf(1.1) over 1000 values.
PRIOR_S = 1.1
PRIOR_DISTINCT = 1000


@dataclass(frozen=True)
class Allocation:
    """Prefix lengths of the rounds, each round's share of the users, and the model's expected number found.

    Attributes
    ----------
    lengths : tuple of int
        The prefix length L_j of each round, increasing, the last one m.
    shares : tuple of float
        The share w_j of the users each round gets (they sum to 1).
    expected_found : float
        U(w, L): the model's expected number of heavy hitters found (between 0 and k).
    """

    lengths: tuple[int, ...]
    shares: tuple[float, ...]
    expected_found: float


def zipf_prior(k: int, s: float = PRIOR_S, distinct: int = PRIOR_DISTINCT) -> tuple[np.ndarray, float, float]:
    """The assumed top-k frequencies, the (k+1)-th frequency and the background's second moment
    S₂ = Σ_{v>k} f_v².

    The law is Zipf(s) over max(distinct, k + 1) values: f_r ∝ r^{−s}.

    Parameters
    ----------
    k : int
        The number of heavy hitters.
    s : float, default PRIOR_S (1.1)
        The Zipf exponent.
    distinct : int, default PRIOR_DISTINCT (1000)
        The number of distinct values (raised to k + 1 when smaller).

    Returns
    -------
    top : numpy.ndarray, shape (k,)
        The frequencies f_1 ≥ … ≥ f_k.
    next_one : float
        f_{k+1}, the nearest rival.
    background : float
        S₂ = Σ_{v>k} f_v² (this sum includes f_{k+1}²).

    References
    ----------
    The LDP lecture, slide "Optimize expected utility" ("a reasonable distribution"); the Zipf law is our choice.
    """
    weights = 1.0 / np.arange(1, max(distinct, k + 1) + 1) ** float(s)
    f = weights / weights.sum()
    return f[:k], float(f[k]), float(np.sum(f[k:] ** 2))


def prefix_lengths(bits: int, first: int, eta: int) -> list[int]:
    """first, first + η, … up to ``bits`` (the last round reports all the bits).

    Parameters
    ----------
    bits : int
        m, the bits of a value (the last length).
    first : int
        The first round's prefix length (γ + η for PEM); capped at ``bits``.
    eta : int
        The bits η each later round adds (≥ 1); the last step is shorter when η does not divide the rest.

    Returns
    -------
    list of int
        The increasing prefix lengths, ending at ``bits``.
    """
    out = [min(bits, first)]
    while out[-1] < bits:
        out.append(min(bits, out[-1] + eta))
    return out


def _round_terms(lengths: Sequence[int], k: int, background: float) -> tuple[np.ndarray, np.ndarray]:
    """a_j (the typical maximum of the competitors' standard normals) and τ_j² per round."""
    from scipy.special import ndtri  # on first use (ldp.maths.gaussian.normal_quantile says why)

    lengths = np.asarray(lengths, dtype=float)
    candidates = np.concatenate([[2.0 ** lengths[0]], k * 2.0 ** np.diff(lengths)])
    rivals = np.maximum(candidates - k, 1.0)
    a = ndtri(1.0 - 1.0 / (rivals + 1.0))
    spread = 2.0 ** -lengths
    return a, background * spread * (1.0 - spread)


def expected_found(shares: Sequence[float], lengths: Sequence[int], users: int, variances: Sequence[float],
                   prior: tuple[np.ndarray, float, float]) -> float:
    """U = Σ_i Π_j P_ij with σ_j² = V_j/(w_j n) (see the module docstring).

    Parameters
    ----------
    shares : sequence of float
        Each round's share w_j of the users (a share below 10⁻¹² is read as 10⁻¹²).
    lengths : sequence of int
        Each round's prefix length L_j (as :func:`prefix_lengths` gives them).
    users : int
        n, the number of users.
    variances : sequence of float
        V_j per round: the variance of a rare candidate's estimate from one user.
    prior : tuple
        The assumed law, as :func:`zipf_prior` returns it.

    Returns
    -------
    float
        The model's expected number of heavy hitters found, in [0, k].

    References
    ----------
    The LDP lecture, slides "More Bits or Fewer Bits?" and "Optimize expected utility" (the goal); the formula is
    our model (module docstring).
    """
    return float(np.exp(_log_survival(np.asarray(shares, dtype=float), lengths, users, variances, prior)).sum())


def _log_survival(shares: np.ndarray, lengths: Sequence[int], users: int, variances: Sequence[float],
                  prior: tuple[np.ndarray, float, float]) -> np.ndarray:
    from scipy.special import log_ndtr  # on first use (as in _round_terms)

    top, next_one, background = prior
    a, tau2 = _round_terms(lengths, top.size, background)
    sigma = np.sqrt(np.asarray(variances, dtype=float) / (np.maximum(shares, 1e-12) * users))[None, :]
    rivals = (top[:, None] - a[None, :] * np.sqrt(sigma ** 2 + tau2[None, :])) / sigma
    runner_up = (top[:, None] - next_one) / (math.sqrt(2.0) * sigma)
    return (log_ndtr(rivals) + log_ndtr(runner_up)).sum(axis=1)


def optimise_allocation(bits: int, top_k: int, gamma: int, eta_max: int, users: int,
                        variance_of: Callable[[int], float], s: float = PRIOR_S,
                        distinct: int = PRIOR_DISTINCT) -> Allocation:
    """The (η, shares) maximising the model's expected number of heavy hitters found (module docstring).

    Parameters
    ----------
    bits, top_k, gamma : int
        m, k and the first round's extra bits γ (the first round reports γ + η bits).
    eta_max : int
        The most bits a round may add (the computational constraint).
    users : int
        n, the number of users.
    variance_of : callable
        ``variance_of(length)`` → V: the variance of a rare candidate's estimate from one user of a round of
        ``length``-bit prefixes (the round's oracle's ``approximate_variance(1)``).
    s, distinct : float, int
        The assumed Zipf law (see :func:`zipf_prior`).

    Returns
    -------
    Allocation
        The best (prefix lengths, shares, expected number found) over η = 1 … ``eta_max``; first rounds of more
        than 20 bits are skipped.

    Raises
    ------
    InvalidInput
        Every η would make the first round enumerate more than 2^20 prefixes.

    References
    ----------
    The LDP lecture, slide "Optimize expected utility" (goal: maximize the expected number of heavy hitters
    identified; constraint: computational power).
    """
    prior = zipf_prior(top_k, s, distinct)
    best: Allocation | None = None
    for eta in range(1, eta_max + 1):
        lengths = prefix_lengths(bits, gamma + eta, eta)
        if lengths[0] > 20:
            continue
        variances = [variance_of(length) for length in lengths]
        r = len(lengths)

        def loss(theta: np.ndarray, lengths: list[int] = lengths, variances: list[float] = variances) -> float:
            w = np.exp(theta - theta.max())
            w /= w.sum()
            return -float(np.exp(_log_survival(w, lengths, users, variances, prior)).sum())

        if r == 1:
            shares = np.ones(1)
        else:
            from scipy.optimize import minimize  # on use: scipy.optimize costs 0.2 s of `import ldp`

            found = minimize(loss, np.zeros(r), method="L-BFGS-B")
            theta = found.x if found.fun <= loss(np.zeros(r)) else np.zeros(r)
            shares = np.exp(theta - theta.max())
            shares /= shares.sum()
        value = expected_found(shares, lengths, users, variances, prior)
        if best is None or value > best.expected_found + 1e-12:
            best = Allocation(tuple(lengths), tuple(float(x) for x in shares), value)
    if best is None:
        raise InvalidInput("no allocation: every first round would enumerate more than 2^20 prefixes; use a smaller "
                           "start")
    return best


def uniform_expected_found(lengths: Sequence[int], users: int, variance_of: Callable[[int], float], top_k: int,
                           s: float = PRIOR_S, distinct: int = PRIOR_DISTINCT) -> float:
    """The model's expected number found with equal shares (uniform groups), for the comparison.

    Parameters
    ----------
    lengths : sequence of int
        The rounds' prefix lengths.
    users : int
        n, the number of users.
    variance_of : callable
        ``variance_of(length)`` → V, as for :func:`optimise_allocation`.
    top_k : int
        k, the number of heavy hitters.
    s, distinct : float, int
        The assumed Zipf law (see :func:`zipf_prior`).

    Returns
    -------
    float
        :func:`expected_found` with every share 1/(number of rounds).
    """
    r = len(lengths)
    return expected_found(np.full(r, 1.0 / r), lengths, users, [variance_of(x) for x in lengths],
                          zipf_prior(top_k, s, distinct))

