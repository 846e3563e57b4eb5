"""Malicious users: the maximal-gain attack (MGA) of Cao, Jia & Gong, *Data Poisoning Attacks to Local
Differential Privacy Protocols* (USENIX Security 2021), on GRR, OUE and OLH.

m fake users join n genuine ones (β = m / (n + m)) and send crafted reports that support as many of the r target
items T as possible; the server estimates with matrix inversion over all n + m reports. With p*, q* the support
probabilities and s the number of targets one crafted report supports, linearity of the estimator gives the
expected frequency gain of the targets (our derivation from linearity; it gives the closed forms the paper states
for MGA — the theorem numbers below are as we recall them: the paper's text is not among /work/shared/papers, so
the formulas are derived and tested here, the numbering is to be checked against the paper):

    G = Σ_{t∈T} E[f̃_t(after) − f̃_t(before)] = β [ (s − r q*) / (p* − q*) − f_T ],   f_T = Σ_{t∈T} f_t.

- GRR (the paper's kRR, its Theorem 1 for MGA): a fake user reports one target (s = 1):
  G = β(1 − f_T) + β(d − r) q / (p − q).
- OUE (Theorem 2): a fake user sets every target bit (s = r), plus l = max(0, round(p + (d − 1)q) − r) random
  other bits so that its number of ones looks ordinary (those bits do not touch the targets):
  G = β(2r − f_T) + 2βr / (e^ε − 1).
- OLH (Theorem 3): a fake user searches for a hash function that maps all targets to one value and reports it
  (s = r when found; we search the Carter–Wegman family exhaustively up to 2²⁰ functions, else a random
  sample, and use the best s found). With the paper's q* = 1/g and g = e^ε + 1 this is OUE's gain; with our
  exact Carter–Wegman q* (collision probability of the family) the formula above is used as is.

Post-processing: :func:`simulate_attack` also reports the gain after a consistency estimator (Norm-Sub by
default, Wang et al. NDSS 2020), which has no closed form here: clipping the negative estimates and shifting
the rest to sum to one takes mass from the promoted targets too.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from ldp.core.cancellation import checkpoint
from ldp.core.errors import InvalidInput
from ldp.core.registry import MECHANISMS
from ldp.core.results import Aggregate
from ldp.core.streams import rng_for
from ldp.estimators import estimate_all
from ldp.mechanisms import Mechanism, get_mechanism

__all__ = ["ATTACKED", "MAX_ATTACK_WORK", "MAX_CRAFTED_CELLS", "PoisonResult", "attack_work", "attacked_mechanism",
           "check_attack", "crafted_reports", "expected_gain", "fake_users", "gain_curves", "simulate_attack",
           "targets_supported"]

#: Mechanisms the maximal-gain attack is defined for.
ATTACKED = tuple(cls.name for cls in MECHANISMS if getattr(cls, "mga_studied", False))
#: Cost of one simulated collection besides the fake reports (estimators, the genuine aggregate), in the element
#: operations of :func:`attack_work` (≈ 1 ms); a whole simulation may cost at most MAX_ATTACK_WORK (≈ half a minute).
TRIAL_OVERHEAD = 100_000
MAX_ATTACK_WORK = 3e9
#: Most cells (fake users × report width) of the crafted reports of one collection (memory: ~9 bytes each).
MAX_CRAFTED_CELLS = 20_000_000


def _check(mech: Mechanism, targets: Any) -> np.ndarray:
    if mech.name not in ATTACKED:
        raise InvalidInput(f"poison: the maximal-gain attack is defined for {', '.join(ATTACKED)}, not {mech.name}")
    given = np.asarray(targets, dtype=np.int64).ravel()
    t, times = np.unique(given, return_counts=True)
    if t.size < 1 or t.min() < 0 or t.max() >= mech.d:
        raise InvalidInput(f"poison: targets must be distinct values in [0, {mech.d}), got {given.tolist()}")
    if times.max() > 1:  # not silently deduplicated: the user meant something else
        raise InvalidInput(f"poison: target {int(t[times.argmax()])} is given {int(times.max())} times; give each "
                           "target once")
    if t.size >= mech.d:
        raise InvalidInput("poison: the targets must leave at least one value that is not a target")
    return t


def _check_beta(beta: float) -> float:
    if not (math.isfinite(beta) and 0 <= beta < 1):
        raise InvalidInput(f"poison: the fraction of fake users β must lie in [0, 1), got {beta!r}")
    return float(beta)


def targets_supported(mechanism: Mechanism, targets: Any) -> int:
    """s: how many targets one crafted report supports (GRR 1; OUE r; OLH the best hash function found).

    Parameters
    ----------
    mechanism : Mechanism
        One of :data:`ATTACKED` (its ``mga_support`` hook answers).
    targets : array_like of int
        The r target values: distinct, in [0, d), leaving at least one value that is not a target.

    Returns
    -------
    int
        s, in [1, r].

    Raises
    ------
    InvalidInput
        For a mechanism the attack is not defined for, or bad targets.
    """
    return mechanism.mga_support(_check(mechanism, targets))  # the family's hook


def expected_gain(mechanism: Mechanism, targets: Any, beta: float | np.ndarray,
                  target_frequency: float = 0.0) -> np.ndarray:
    """Closed-form expected frequency gain G of the targets under MGA at fake-user fraction(s) β.

    G = β [(s − r q*)/(p* − q*) − f_T] (see the module docstring); ``target_frequency`` is f_T, the targets' true
    total frequency among genuine users.

    Parameters
    ----------
    mechanism : Mechanism
        One of :data:`ATTACKED`.
    targets : array_like of int
        The r distinct target values in [0, d) (not the whole domain).
    beta : float or array_like
        The fraction(s) β = m/(n + m) of fake users, each in [0, 1).
    target_frequency : float, default 0.0
        f_T, in [0, 1].

    Returns
    -------
    numpy.ndarray
        G for each β, of β's shape (a NumPy scalar for a scalar β).

    Raises
    ------
    InvalidInput
        For an unattacked mechanism, bad targets, β outside [0, 1) or f_T outside [0, 1].

    References
    ----------
    Cao, Jia & Gong, "Data Poisoning Attacks to Local Differential Privacy Protocols", USENIX Security 2021 (MGA on
    kRR, OUE, OLH); the formula is derived here from the estimator's linearity (see the module docstring).
    """
    t = _check(mechanism, targets)
    b = np.asarray(beta, dtype=np.float64)
    if np.any(~np.isfinite(b)) or np.any(b < 0) or np.any(b >= 1):
        raise InvalidInput("poison: the fraction of fake users β must lie in [0, 1)")
    if not (0 <= target_frequency <= 1):
        raise InvalidInput(f"poison: f_T must lie in [0, 1], got {target_frequency!r}")
    s = targets_supported(mechanism, t)
    p, q = mechanism.p_star, mechanism.q_star
    return b * ((s - t.size * q) / (p - q) - target_frequency)


def fake_users(n: int, beta: float) -> int:
    """m = round(β n / (1 − β)) fake users among n genuine ones, so that m / (n + m) ≈ β.

    Parameters
    ----------
    n : int
        The number of genuine users.
    beta : float
        The fraction of fake users, in [0, 1).

    Returns
    -------
    int
        m.

    Raises
    ------
    InvalidInput
        If β is not in [0, 1).
    """
    beta = _check_beta(beta)
    return int(round(beta * n / (1 - beta)))


def _report_width(mechanism: Mechanism) -> int:
    """Cells of one crafted report, for the cost estimate (the mechanism's own report width: OUE d bits, OLH 3)."""
    return int(mechanism.report_width())


def attack_work(mechanism: Mechanism, n: int, betas: Any, trials: int) -> float:
    """The cost of :func:`simulate_attack` over the fractions ``betas`` in element operations (≈ 10 ns each).

    Per trial and β: :data:`TRIAL_OVERHEAD` plus the crafted reports' cells plus 4d.

    Parameters
    ----------
    mechanism : Mechanism
        The attacked mechanism (its ``report_width()`` and d).
    n : int
        Genuine users.
    betas : float or array_like
        The fractions of fake users.
    trials : int
        Simulated collections per β.

    Returns
    -------
    float
        The estimated number of element operations.

    Raises
    ------
    InvalidInput
        If a β is not in [0, 1).
    """
    width = _report_width(mechanism)
    per_trial = sum(TRIAL_OVERHEAD + fake_users(n, b) * width + 4 * mechanism.d for b in np.atleast_1d(betas))
    return float(trials) * per_trial


def check_attack(mechanism: Mechanism, n: int, betas: Any, trials: int) -> None:
    """Refuse, before any work, a simulation that is too slow or too large.

    The bounds are :data:`MAX_ATTACK_WORK` (time) and :data:`MAX_CRAFTED_CELLS` (the crafted reports' memory); the
    one-line reason says what to lower.

    Parameters
    ----------
    mechanism : Mechanism
        The attacked mechanism.
    n : int
        Genuine users.
    betas : float or array_like
        The fractions of fake users, each in [0, 1).
    trials : int
        Simulated collections per β (≥ 1).

    Raises
    ------
    InvalidInput
        For a bad ``trials`` or β, or a simulation over either bound.
    """
    if isinstance(trials, bool) or not isinstance(trials, (int, np.integer)) or trials < 1:
        raise InvalidInput(f"poison: trials must be a positive integer, got {trials!r}")
    betas = [_check_beta(float(b)) for b in np.atleast_1d(betas)]
    width = _report_width(mechanism)
    m = max(fake_users(n, b) for b in betas)
    if m * width > MAX_CRAFTED_CELLS:
        raise InvalidInput(f"poison: {m:,} fake users × {width} cells per report exceed {MAX_CRAFTED_CELLS:,} cells "
                           "of crafted reports; use fewer users or smaller fractions of fake users")
    work = attack_work(mechanism, n, betas, int(trials))
    if work > MAX_ATTACK_WORK:
        most = int(MAX_ATTACK_WORK // (work / int(trials)))
        hint = f"lower --trials to at most {most:,}" if most >= 1 else "use fewer users or fractions of fake users"
        raise InvalidInput(f"poison: {int(trials):,} trials × {len(betas)} fractions of fake users would take about "
                           f"{work:.2g} operations (at most {MAX_ATTACK_WORK:.0e}); {hint}")


def crafted_reports(mechanism: Mechanism, targets: Any, m: int, rng: np.random.Generator) -> np.ndarray:
    """m reports of MGA fake users in the mechanism's own report format.

    Parameters
    ----------
    mechanism : Mechanism
        One of :data:`ATTACKED` (its ``mga_reports`` hook crafts them).
    targets : array_like of int
        The target values (distinct, in [0, d), not all of the domain).
    m : int
        The number of fake users.
    rng : numpy.random.Generator
        Randomness of the crafted reports (OUE's filler bits, OLH's hash search).

    Returns
    -------
    numpy.ndarray
        m reports, as ``mechanism.perturb`` would return them.

    Raises
    ------
    InvalidInput
        For an unattacked mechanism or bad targets.
    """
    return mechanism.mga_reports(_check(mechanism, targets), m, rng)  # the family's hook


@dataclass(frozen=True)
class PoisonResult:
    """Gain of the targets' estimated total frequency under MGA, by closed form and by simulation.

    Parameters
    ----------
    mechanism : str
        The attacked mechanism's name.
    epsilon : float
        Its privacy budget.
    d : int
        The domain size.
    targets : list of int
        The target values.
    genuine_users, fake_users : int
        n and m.
    beta : float
        The realised fraction m/(n + m).
    target_frequency : float
        f_T among genuine users.
    targets_supported : int
        s, targets one crafted report supports.
    expected_gain : float
        The closed-form G (:func:`expected_gain`).
    simulated_gain, simulated_sd : dict of str to float
        Per estimator, the mean gain over the trials and its standard deviation.
    trials : int, default 0
        Simulated collections.
    """

    mechanism: str
    epsilon: float
    d: int
    targets: list[int]
    genuine_users: int
    fake_users: int
    beta: float
    target_frequency: float
    targets_supported: int
    expected_gain: float
    simulated_gain: dict[str, float] = field(default_factory=dict)
    simulated_sd: dict[str, float] = field(default_factory=dict)
    trials: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def simulate_attack(mechanism: Mechanism, true_counts: Any, targets: Any, beta: float, trials: int = 20,
                    seed: int | None = 0, estimators: tuple[str, ...] = ("mi", "norm-sub")) -> PoisonResult:
    """Simulate MGA and measure the targets' gain per estimator.

    Genuine support counts come from the fast engine (exact in distribution for GRR and OUE, exact marginals for OLH),
    fake users' crafted reports are aggregated for real; the gain per estimator is the targets' estimated total after
    the attack minus before it (same genuine collection), averaged over ``trials``.

    Parameters
    ----------
    mechanism : Mechanism
        One of :data:`ATTACKED`.
    true_counts : array_like
        The genuine users' counts per value (length d; n is their sum).
    targets : array_like of int
        The target values.
    beta : float
        The fraction of fake users, in [0, 1).
    trials : int, default 20
        Simulated collections (each from its own named stream).
    seed : int or None, default 0
        Root seed of the streams.
    estimators : tuple of str, default ("mi", "norm-sub")
        Registered estimators whose gain is measured.

    Returns
    -------
    PoisonResult
        The closed form and the simulated gains.

    Raises
    ------
    InvalidInput
        For an unattacked mechanism, bad targets, counts or β, or a simulation over the cost bounds.

    References
    ----------
    Cao, Jia & Gong, USENIX Security 2021 (MGA); Norm-Sub: consistency paper (Wang et al., NDSS'20), §IV-C.
    """
    t = _check(mechanism, targets)
    beta = _check_beta(beta)
    counts, _ = mechanism.check_population(true_counts)
    n = int(counts.sum())
    check_attack(mechanism, n, [beta], trials)
    m = fake_users(n, beta)
    f_t = float(counts[t].sum() / n)
    gains: dict[str, list[float]] = {e: [] for e in estimators}
    for trial in range(int(trials)):
        checkpoint()
        rng = rng_for(seed, "poison", mechanism.name, mechanism.epsilon, mechanism.d, n, beta, trial)
        genuine = mechanism.sample_aggregate(counts, rng)
        before = estimate_all(mechanism, genuine, list(estimators))
        after_agg = genuine + mechanism.aggregate(mechanism.mga_reports(t, m, rng)) if m else genuine
        after = estimate_all(mechanism, Aggregate(after_agg.counts, after_agg.n), list(estimators))
        for e in estimators:
            gains[e].append(float(after[e].values[t].sum() - before[e].values[t].sum()))
    beta_real = m / (n + m)
    return PoisonResult(mechanism.name, mechanism.epsilon, mechanism.d, [int(x) for x in t], n, m, beta_real, f_t,
                        targets_supported(mechanism, t), float(expected_gain(mechanism, t, beta_real, f_t)),
                        {e: float(np.mean(v)) for e, v in gains.items()},
                        {e: float(np.std(v, ddof=1)) if len(v) > 1 else 0.0 for e, v in gains.items()}, int(trials))


def attacked_mechanism(name: str, epsilon: float, d: int) -> Mechanism:
    """One of :data:`ATTACKED` by name (a one-line error otherwise).

    Parameters
    ----------
    name : str
        The mechanism's name (case-insensitive).
    epsilon : float
        The privacy budget.
    d : int
        The domain size.

    Returns
    -------
    Mechanism
        The mechanism, configured for the attack.

    Raises
    ------
    InvalidInput
        For a name outside :data:`ATTACKED` or invalid parameters.
    """
    if str(name).strip().lower() not in ATTACKED:
        raise InvalidInput(f"poison: the maximal-gain attack is defined for {', '.join(ATTACKED)}, not {name!r}")
    return get_mechanism(str(name).strip().lower(), epsilon=epsilon, d=d)


def gain_curves(epsilon: float, d: int, targets: Any, betas: Any, target_frequency: float = 0.0,
                mechanisms: tuple[str, ...] = ATTACKED) -> list[dict[str, Any]]:
    """Closed-form MGA gain per mechanism and β (rows for a table or a chart).

    Parameters
    ----------
    epsilon : float
        The privacy budget.
    d : int
        The domain size.
    targets : array_like of int
        The target values.
    betas : float or array_like
        The fractions of fake users, each in [0, 1).
    target_frequency : float, default 0.0
        f_T, the targets' true total frequency.
    mechanisms : tuple of str, default ATTACKED
        The mechanisms compared.

    Returns
    -------
    list of dict
        One row ``{"mechanism", "beta", "expected_gain"}`` per mechanism and β.

    Raises
    ------
    InvalidInput
        As :func:`attacked_mechanism` and :func:`expected_gain`.
    """
    rows = []
    for name in mechanisms:
        mech = attacked_mechanism(name, epsilon, d)
        gains = expected_gain(mech, targets, np.asarray(betas, dtype=np.float64), target_frequency)
        rows += [{"mechanism": name, "beta": float(b), "expected_gain": float(g)}
                 for b, g in zip(np.atleast_1d(betas), np.atleast_1d(gains), strict=True)]
    return rows
