"""What the deployments do: the LDP mechanisms Apple, Google and Microsoft run, their published privacy budgets,
what the same ε buys on a given dataset against the best textbook oracle, and what memoization protects.

Published budgets (:data:`DEPLOYMENTS`; each record cites its source):

- **Apple** — "Learning with Privacy at Scale" (Apple Differential Privacy Team, Machine Learning Journal, 2017)
  describes CMS/HCMS; Apple's "Differential Privacy Overview" (2017) lists the per-donation ε of each use case:
  QuickType suggestions 8, Emoji suggestions 4, Lookup Hints 4, Safari Energy Draining Domains 4, Safari Crashing
  Domains 8, Health Type Usage 2, and says the number of donations per use case per day is limited. Tang, Korolova,
  Bai, Wang, Wang, "Privacy Loss in Apple's Implementation of Differential Privacy on MacOS 10.12"
  (arXiv:1709.02753, 2017) measured a per-datum ε of 1 or 2 and a daily loss allowed up to 16 for two data types.
- **Google** — Erlingsson, Pihur, Korolova, "RAPPOR" (CCS 2014), Chrome's parameters h = 2, f = ½, p = ½, q = ¾
  (§5): ε∞ = 2h·ln((1 − f/2)/(f/2)) = 4 ln 3 ≈ 4.39 for the memoized (permanent) response and ε₁ ≈ 1.07 for one
  report (§3.2's formula with q* = ½f(p + q) + (1 − f)q, p* = ½f(p + q) + (1 − f)p).
- **Microsoft** — Ding, Kulkarni, Yekhanin, "Collecting Telemetry Data Privately" (NeurIPS 2017): 1BitMean with
  α-point rounding and memoization collected app-usage counters in Windows 10 (Fall Creators Update) at ε = 1
  (§5 and the Microsoft Research blog of 8 December 2017); dBitFlip for histograms.

:func:`deployed_vs_textbook` compares, in closed form (each mechanism's ``variance``), the full-domain MSE of the
deployed frequency oracles and the textbook ones on the user's own frequencies, n and ε. :func:`memoization_rows`
says, with numbers from :mod:`ldp.mechanisms.memoization`, what memoization protects (a counter that stays put
costs ε once, whatever the number of rounds) and what it does not (every new rounded value costs ε again; without
output perturbation a change of the reported bit proves the value changed).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ldp.core.errors import InvalidInput
from ldp.core.params import check_positive_int
from ldp.core.streams import rng_for
from ldp.mechanisms import get_mechanism, mechanisms_of
from ldp.mechanisms.memoization import MAX_CELLS, change_evidence, memoized_histogram_rounds, memoized_mean_rounds

__all__ = ["DEPLOYMENTS", "MAX_COMPARED_VALUES", "TEXTBOOK", "Deployment", "deployed_vs_textbook", "memoization_rows",
           "rappor_chrome_epsilons"]

APPLE_OVERVIEW = "Apple, Differential Privacy Overview (2017)"
APPLE_PAPER = "Apple Differential Privacy Team, Learning with Privacy at Scale (2017)"
TANG = "Tang et al., Privacy Loss in Apple's Implementation of Differential Privacy on MacOS 10.12 (2017)"
RAPPOR_PAPER = "Erlingsson, Pihur, Korolova, RAPPOR (CCS 2014), §3.1 and §5"
DKY = "Ding, Kulkarni, Yekhanin, Collecting Telemetry Data Privately (NeurIPS 2017), §3 and §5"


def rappor_chrome_epsilons(h: int = 2, f: float = 0.5, p: float = 0.5, q: float = 0.75) -> tuple[float, float]:
    """(ε₁ of one report, ε∞ of the memoized response) for RAPPOR's parameters (RAPPOR paper §3.1–3.2).

    ε∞ = 2h·ln((1 − f/2)/(f/2)) and ε₁ = h·ln(q*(1 − p*)/(p*(1 − q*))) with q* = ½f(p + q) + (1 − f)q and
    p* = ½f(p + q) + (1 − f)p; at Chrome's parameters (the defaults) ε₁ ≈ 1.07 and ε∞ = 4 ln 3 ≈ 4.39.

    Parameters
    ----------
    h : int, default 2
        The number of hash functions (Bloom filter bits set per value).
    f : float, default 0.5
        The permanent randomized response's parameter: each Bloom filter bit is replaced by a fair coin with
        probability f, in (0, 1) (not checked).
    p : float, default 0.5
        The instantaneous randomized response's probability of reporting 1 for a 0 bit of the permanent response.
    q : float, default 0.75
        Its probability of reporting 1 for a 1 bit (q > p; not checked).

    Returns
    -------
    tuple of float
        (ε₁, ε∞), natural-log units.

    References
    ----------
    Erlingsson, Pihur, Korolova, "RAPPOR: Randomized Aggregatable Privacy-Preserving Ordinal Response" (CCS 2014),
    §3.1 (ε∞, the PRR), §3.2 (q*, p* and ε₁, one IRR) and §5 (Chrome's parameters h = 2, f = ½, p = ½, q = ¾).
    """
    q_star = 0.5 * f * (p + q) + (1 - f) * q
    p_star = 0.5 * f * (p + q) + (1 - f) * p
    eps_1 = h * math.log(q_star * (1 - p_star) / (p_star * (1 - q_star)))
    eps_inf = 2 * h * math.log((1 - f / 2) / (f / 2))
    return eps_1, eps_inf


@dataclass(frozen=True)
class Deployment:
    """One published deployment: who runs what, for which data, at which ε (per report and per day).

    Attributes
    ----------
    company : str
        Who runs it ("Apple", "Google", "Microsoft").
    use : str
        The data collected.
    mechanism : str
        The registry name of the mechanism (:func:`ldp.mechanisms.get_mechanism`).
    epsilon_report : float
        ε of one report (Apple: per donation; RAPPOR: ε₁ of one report).
    epsilon_day : float or None
        The daily budget, None where it is not published.
    memoized : bool
        Whether the client memoizes its response (RAPPOR's permanent response, Microsoft's memoized bits).
    source : str
        The publication the numbers come from.
    note : str, default ""
        Caveats shown with the record.
    params : Mapping[str, Any], default {}
        The mechanism's own parameters for :func:`ldp.mechanisms.get_mechanism` (e.g. dBitFlip's ``d_prime``,
        capped at d by :func:`deployed_vs_textbook`).

    References
    ----------
    Apple Differential Privacy Team, "Learning with Privacy at Scale" (2017) and Apple's "Differential Privacy
    Overview" (2017); Tang, Korolova, Bai, Wang, Wang, arXiv:1709.02753 (2017); Erlingsson, Pihur, Korolova, RAPPOR
    (CCS 2014), §3.1–3.2 and §5; Ding, Kulkarni, Yekhanin, "Collecting Telemetry Data Privately" (NeurIPS 2017), §3
    and §5.
    """

    company: str
    use: str
    mechanism: str  # a registry name
    epsilon_report: float
    epsilon_day: float | None  # None: not published
    memoized: bool
    source: str
    note: str = ""
    params: Mapping[str, Any] = field(default_factory=dict)


_RAPPOR_EPS_1, _RAPPOR_EPS_INF = rappor_chrome_epsilons()
#: The sketch the comparison gives CMS/HCMS: m = 1,024 cells (the width Apple's paper describes; our default 64 cannot
#: tell a few hundred values apart — the collision matrix turns singular), k = 16 hashes (our default).
APPLE_SKETCH = {"m": 1024}
#: Largest domain :func:`deployed_vs_textbook` compares: CMS/HCMS's exact variance inverts a d × d collision matrix
#: (about 1 s each at d = 512, 6.5 s at d = 1,024 on the development machine).
MAX_COMPARED_VALUES = 512

#: The deployments the dashboard shows (module docstring for the sources).
DEPLOYMENTS: tuple[Deployment, ...] = (
    Deployment("Apple", "Emoji suggestions (iOS, macOS)", "hcms", 4.0, None, False, APPLE_OVERVIEW,
               "donations per day are capped by Apple; the cap is not published per use case", APPLE_SKETCH),
    Deployment("Apple", "QuickType new words", "hcms", 8.0, None, False, APPLE_OVERVIEW, "", APPLE_SKETCH),
    Deployment("Apple", "Health type usage", "cms", 2.0, None, False, APPLE_OVERVIEW, "", APPLE_SKETCH),
    Deployment("Apple", "macOS 10.12 data types, as measured", "cms", 2.0, 16.0, False, TANG,
               "per-datum ε of 1 or 2; daily loss up to 16 for two types (measured, not published by Apple)"),
    Deployment("Google", "Chrome settings (homepage, search engine)", "rappor", _RAPPOR_EPS_1, None, True,
               RAPPOR_PAPER, f"h = 2, f = ½, p = ½, q = ¾: any number of reports of one value cost at most "
                             f"ε∞ = {_RAPPOR_EPS_INF:.2f}"),
    Deployment("Microsoft", "Windows app usage time (counters)", "1bitmean", 1.0, None, True, DKY,
               "α-point rounding + memoization: a counter that stays in its bucket costs ε = 1 over all rounds"),
    Deployment("Microsoft", "Histograms of telemetry counters", "dbitflip", 1.0, None, True, DKY,
               "d' buckets per user; our choice d' = min(d, 16)", {"d_prime": 16}),
)

#: The memoized dBitFlip of :func:`memoization_rows`: values and buckets per user.
HISTOGRAM_D, HISTOGRAM_D_PRIME = 64, 4

#: Textbook frequency oracles the deployed ones are compared with.
TEXTBOOK = ("grr", "oue", "olh", "sue", "ss", "the")


def _oracle(name: str, epsilon: float, d: int, params: Mapping[str, Any]):
    own = dict(params)
    if "d_prime" in own:
        own["d_prime"] = min(int(own["d_prime"]), d)
    return get_mechanism(name, epsilon, d, **own)


def deployed_vs_textbook(freqs: Sequence[float] | np.ndarray, n: int, epsilon: float, *,
                         textbook: Sequence[str] = TEXTBOOK) -> pd.DataFrame:
    """Closed-form full-domain MSE, mean over values of Var[f̂(v)], of each deployed frequency oracle (one row per
    registered mechanism of :data:`DEPLOYMENTS`) and each textbook one on frequencies ``freqs`` with ``n`` users at
    ``epsilon`` — the same ε for all, so the question is what the deployed design costs or saves at equal privacy.

    Columns: ``mechanism`` (display name), ``name``, ``deployed by`` ("" for textbook), ``MSE``, ``× best textbook``
    (MSE over the best textbook oracle's), ``best textbook`` (its display name). Sorted by MSE.

    Parameters
    ----------
    freqs : array_like of float
        The true frequencies: a vector of d ≥ 2 non-negative numbers summing to 1 (within 10⁻⁶).
    n : int
        The number of users (≥ 1).
    epsilon : float
        The budget of one report, the same for every oracle.
    textbook : sequence of str, default :data:`TEXTBOOK`
        Registry names of the textbook frequency oracles to compare with (each at its default parameters).

    Returns
    -------
    pandas.DataFrame
        One row per textbook oracle and per distinct frequency oracle of :data:`DEPLOYMENTS` (the mean mechanism
        1BitMean is left out; an oracle both deployed and named in ``textbook`` appears once, as deployed), with the
        columns above, sorted by ``MSE`` (ascending, stable) and indexed from 0.

    Raises
    ------
    InvalidInput
        When ``freqs`` is not such a vector, ``n`` is not a positive integer, ε lies outside the mechanisms' range,
        or a name in ``textbook`` is not a registered mechanism.

    References
    ----------
    Apple Differential Privacy Team (2017), CMS and HCMS; Erlingsson, Pihur, Korolova, RAPPOR (CCS 2014); Ding,
    Kulkarni, Yekhanin (NeurIPS 2017), dBitFlip — each mechanism's closed-form ``variance``.
    """
    f = np.asarray(freqs, dtype=np.float64)
    if f.ndim != 1 or f.size < 2 or np.any(f < 0) or not np.isclose(f.sum(), 1.0, atol=1e-6):
        raise InvalidInput("frequencies must be a vector of at least two non-negative numbers summing to 1")
    n = check_positive_int(n, "n")
    d = f.size
    if d > MAX_COMPARED_VALUES:
        raise InvalidInput(f"the comparison takes at most {MAX_COMPARED_VALUES:,} values (CMS/HCMS invert a d × d "
                           f"collision matrix), got {d:,}: bucketize or keep the most frequent values")
    companies: dict[str, list[str]] = {}
    params: dict[str, Mapping[str, Any]] = {}
    oracles = {c.name for c in mechanisms_of("frequency")}
    for dep in DEPLOYMENTS:
        if dep.mechanism in oracles:
            names = companies.setdefault(dep.mechanism, [])
            names += [dep.company] if dep.company not in names else []
            params.setdefault(dep.mechanism, dep.params)
    deployed = {name: (", ".join(names), params[name]) for name, names in companies.items()}
    rows = []
    for name, (company, params) in {**{t: ("", {}) for t in textbook}, **deployed}.items():
        mech = _oracle(name, float(epsilon), d, params)
        rows.append({"mechanism": mech.display_name, "name": name, "deployed by": company,
                     "MSE": float(np.mean(mech.variance(f, n)))})
    table = pd.DataFrame(rows)
    books = table[table["deployed by"] == ""]
    best = books.loc[books["MSE"].idxmin()]
    table["× best textbook"] = table["MSE"] / float(best["MSE"])
    table["best textbook"] = str(best["mechanism"])
    return table.sort_values("MSE", kind="stable").reset_index(drop=True)


def memoization_rows(*, epsilon: float = 1.0, rounds: int = 30, users: int = 20_000, steps: int = 32,
                     gamma: float = 0.1, drift: float = 0.01, seed: int = 0) -> pd.DataFrame:
    """What memoization protects and what it does not, measured on simulated counters (users' values on [−1, 1],
    each wobbling by ``drift`` (standard deviation) around its own level every round; a second population moves
    to a new level every round). One row per claim with the number that supports it.

    Parameters
    ----------
    epsilon : float, default 1.0
        The budget ε of one report (Microsoft's deployed value).
    rounds : int, default 30
        τ, the number of rounds (≥ 1).
    users : int, default 20000
        The number of users of each simulated population (≥ 1).
    steps : int, default 32
        s, the α-point rounding's number of steps (≥ 1).
    gamma : float, default 0.1
        The output perturbation γ ∈ [0, 0.5) of the change-evidence row only (the simulations run at γ = 0).
    drift : float, default 0.01
        The standard deviation of a steady counter's per-round wobble around its level (levels uniform on
        [−0.9, 0.9], values clipped to [−1, 1]).
    seed : int, default 0
        The root seed; every stream is keyed by name under it (:func:`ldp.core.streams.rng_for`).

    Returns
    -------
    pandas.DataFrame
        Seven rows with the columns ``claim`` (str), ``protected`` (bool), ``number`` (float: a mean ε spent per
        user, the first round's standard deviation of the mean estimate on [−1, 1], the change likelihood ratio
        of :func:`ldp.mechanisms.memoization.change_evidence` — ``inf`` at γ = 0 — or the share of rounds in which
        a steady user's bit changed) and ``detail`` (str, the sentence with the numbers).

    Raises
    ------
    InvalidInput
        When ``rounds``, ``users`` or ``steps`` is not a positive integer, ε lies outside the mechanisms' range, or
        rounds × users × :data:`HISTOGRAM_D_PRIME` exceeds :data:`ldp.mechanisms.memoization.MAX_CELLS`.

    References
    ----------
    Ding, Kulkarni, Yekhanin, "Collecting Telemetry Data Privately" (NeurIPS 2017), §3 (α-point rounding,
    memoization, output perturbation, dBitFlip).
    """
    rounds = check_positive_int(rounds, "rounds")
    users = check_positive_int(users, "users")
    if rounds * users * HISTOGRAM_D_PRIME > MAX_CELLS:  # before the (rounds, users) arrays are drawn
        raise InvalidInput(f"{rounds:,} rounds × {users:,} users is more than the {MAX_CELLS:,} reports a repeated "
                           "collection simulates: fewer rounds or users")
    rng = rng_for(int(seed), "deployments", "memoization", "levels")
    level = rng.uniform(-0.9, 0.9, users)
    steady = np.clip(level[None, :] + rng.normal(0.0, drift, (rounds, users)), -1.0, 1.0)
    moving = rng.uniform(-1.0, 1.0, (rounds, users))
    kept = memoized_mean_rounds(steady, epsilon, rng_for(int(seed), "deployments", "memoization", "steady"),
                                steps=steps)
    moved = memoized_mean_rounds(moving, epsilon, rng_for(int(seed), "deployments", "memoization", "moving"),
                                 steps=steps)
    walk = rng.integers(0, HISTOGRAM_D, (rounds, users))
    histogram = memoized_histogram_rounds(walk, epsilon, HISTOGRAM_D,
                                          rng_for(int(seed), "deployments", "memoization", "dbitflip"),
                                          d_prime=HISTOGRAM_D_PRIME)
    fresh = rounds * epsilon
    evidence = change_evidence(epsilon, gamma, steps)
    return pd.DataFrame([
        {"claim": "protects: a steady counter reported every round", "protected": True,
         "number": float(np.mean(kept.epsilon_spent)),
         "detail": f"mean ε spent over {rounds} rounds with memoization {np.mean(kept.epsilon_spent):.3g} "
                   f"(at most {np.max(kept.epsilon_spent):.3g}) vs {fresh:g} for fresh reports"},
        {"claim": "protects: the round's accuracy", "protected": True,
         "number": float(kept.round_std[0]),
         "detail": f"each round's mean estimate has the one-time 1BitMean standard deviation "
                   f"{kept.round_std[0]:.3g} (rounding and memoization cost nothing per round)"},
        {"claim": "does not protect: a value that keeps changing", "protected": False,
         "number": float(np.mean(moved.epsilon_spent)),
         "detail": f"a counter that moves every round reveals a new memoized bit each time: mean ε spent "
                   f"{np.mean(moved.epsilon_spent):.3g} of at most {min(fresh, epsilon * (steps + 1)):g}"},
        {"claim": "protects (dBitFlip): values the user did not sample", "protected": True,
         "number": float(np.mean(histogram.epsilon_spent)),
         "detail": f"a histogram value drawn afresh every round over {HISTOGRAM_D} values, d' = "
                   f"{HISTOGRAM_D_PRIME}: mean ε spent {np.mean(histogram.epsilon_spent):.3g} (at most "
                   f"{(HISTOGRAM_D_PRIME + 1) * epsilon:g}) — moving between unsampled values changes nothing sent"},
        {"claim": "does not protect (without output perturbation): the fact of a change", "protected": False,
         "number": math.inf,
         "detail": "with γ = 0 the reported bit changes only if the rounded value changed: a change is proof, "
                   "and the ε accounted above holds only between histories that change at the same rounds"},
        {"claim": f"output perturbation γ = {gamma:g} blurs the fact of a change", "protected": True,
         "number": float(evidence),
         "detail": f"a bit change is then only {evidence:.3g}× likelier after a one-step change than after none"},
        {"claim": "protects: an attacker averaging one user's reports", "protected": True,
         "number": float(np.mean(kept.bit_changes) / max(rounds - 1, 1)),
         "detail": f"a steady user's reported bit changes in {np.mean(kept.bit_changes) / max(rounds - 1, 1):.1%} "
                   "of the rounds (γ = 0): the reports repeat the same memoized bits, so averaging them removes "
                   "no noise"},
    ])
