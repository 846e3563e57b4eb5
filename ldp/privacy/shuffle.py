"""The shuffle model: the central (ε, δ) of n shuffled ε₀-LDP reports.

Feldman, McMillan, Talwar, *Hiding Among the Clones* (FOCS 2021):

- :func:`fmt_closed_form` — Theorem 3.1: for ε₀ ≤ log(n / (16 log(2/δ))), shuffling n reports of ε₀-LDP
  randomizers is (ε, δ)-DP with ε = log(1 + (1 − e^{−ε₀}) / (1 + e^{−ε₀−ε'}) · (a + c)), a = 8 √(e^{ε₀} log(4/δ)/n),
  c = 8 e^{ε₀}/n and ε' = log(1 + a + c). This is the tighter form of the theorem's final expression that the
  authors' reference implementation evaluates (its coarser simplification (e^{ε₀} − 1)/(e^{ε₀} + 1)·(a + c) is
  :func:`fmt_closed_form_simple`); outside the validity condition the theorem says nothing, and so do we
  (``None``, never a number).
- :func:`fmt_numerical` — the numerical bound of §4.3 ("Computing the bound numerically"): the shuffled output
  is a post-processing of the pair (A, C + 1 − A) where C ~ Bin(n − 1, e^{−ε₀}) counts the clones, A | C ~
  Bin(C, ½) plus the target user's own report, which lands on the first side w.p. α = e^{ε₀}/(e^{ε₀} + 1) under
  one dataset and 1 − α under the other. δ(ε) is the hockey-stick divergence of these two distributions, a sum
  over c of Pr[C = c] · δ_c(ε) with δ_c in closed form (binomial cdfs). Grouping c into intervals of ``step``
  values and using the monotonicity of δ_c in c, the largest δ_c at an interval's end points gives an upper
  bound on δ(ε) and the smallest a lower bound; the mass of C beyond 20 standard deviations of its mean is added to
  the upper bound. ε is then the smallest value with δ(ε) ≤ δ (bisection; δ(ε) decreases in ε).

  The widely copied reference implementation takes, for the D(Q‖P) direction, ``max(δ_q(upper), δ_q(upper))``
  — the same end point twice — so its "upper" bound can fall below the true curve (n = 10⁵, ε₀ = 4, δ = 10⁻⁶: it
  prints 0.1725, between the correct lower 0.1675 and upper 0.1751). We take both end points in both directions.

Balle, Bell, Gascón, Nissim, *The Privacy Blanket of the Shuffle Model* (CRYPTO 2019), Theorem 3.1 for k-ary
randomized response: with γ the probability that a user answers uniformly at random (GRR with ε₀ on k values:
γ = k / (e^{ε₀} + k − 1)), the shuffled protocol is (ε, δ)-DP whenever γ ≥ max{14 k log(2/δ) / ((n − 1) ε²),
27 k / ((n − 1) ε)}; :func:`blanket_grr` returns the smallest such ε, and ``None`` where it exceeds 1 (the
theorem is stated for ε ≤ 1). The paper's text is not among the project's papers; the statement is taken as recalled
(γ = max{14 k log(2/δ)/((n − 1)ε²), 27k/((n − 1)ε)}, ε ≤ 1) and should be checked against it.
"""

from __future__ import annotations

import functools
import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ldp.core.errors import InvalidInput

__all__ = ["ShuffleBounds", "blanket_grr", "error_bought", "fmt_closed_form", "fmt_closed_form_simple", "fmt_delta",
           "fmt_numerical", "fmt_valid", "largest_local_epsilon", "fine_step", "shuffle_bounds", "shuffle_curve",
           "MAX_CLONES", "MAX_INTERVALS", "auto_step", "grid_intervals", "numerical_feasible", "smallest_step"]

#: Interval width of the grouped sum over the clone count (the reference implementation's example uses 100).
DEFAULT_STEP = 100
#: Most intervals of clone counts one evaluation of the numerical bound may sum (a few seconds for a whole bisection;
#: n = 10¹⁵ at ε₀ = 2 and step 100 would need 4.3 million, minutes of binomial cdfs that no signal interrupts).
MAX_INTERVALS = 20_000
#: Largest clone count the numerical bound evaluates binomial cdfs at. SciPy's ``bdtr`` takes the count as a C int
#: (garbage beyond 2³¹) and its absolute error grows to ~10⁻⁷ near 10⁹ (measured against ``betainc``) — the order
#: of the δ being bounded. Beyond it (n ≳ 7·10⁹ at ε₀ = 2) only the closed form is given: it applies there anyway.
MAX_CLONES = 10**9


def _check(n: int, epsilon0: float, delta: float) -> tuple[int, float, float]:
    if isinstance(n, bool) or not float(n).is_integer() or n < 2:
        raise InvalidInput(f"shuffle: the number of users must be an integer ≥ 2, got {n!r}")
    if not (math.isfinite(epsilon0) and epsilon0 > 0):
        raise InvalidInput(f"shuffle: ε₀ must be a positive finite number, got {epsilon0!r}")
    if epsilon0 > 50:
        raise InvalidInput(f"shuffle: ε₀ must be at most 50 (e^ε₀ overflows the bounds' arithmetic), got {epsilon0!r}")
    if not (0 < delta < 1):
        raise InvalidInput(f"shuffle: δ must lie strictly between 0 and 1, got {delta!r}")
    return int(n), float(epsilon0), float(delta)


def fmt_valid(n: int, epsilon0: float, delta: float) -> bool:
    """The validity condition of FMT Theorem 3.1: ε₀ ≤ log(n / (16 log(2/δ))).

    Parameters
    ----------
    n : int
        The number of shuffled users (≥ 2).
    epsilon0 : float
        The local budget ε₀ of each report, in (0, 50].
    delta : float
        The central δ, in (0, 1).

    Returns
    -------
    bool
        Whether the closed form applies.

    Raises
    ------
    InvalidInput
        For n < 2 or not an integer, ε₀ not in (0, 50], or δ not in (0, 1).

    References
    ----------
    Feldman, McMillan, Talwar, "Hiding Among the Clones", FOCS 2021, Theorem 3.1.
    """
    n, epsilon0, delta = _check(n, epsilon0, delta)
    return epsilon0 <= math.log(n / (16 * math.log(2 / delta)))


def fmt_closed_form(n: int, epsilon0: float, delta: float) -> float | None:
    """Central ε of FMT Theorem 3.1 (the reference implementation's tighter form); None where ε₀ is too large.

    ε = log(1 + (1 − e^{−ε₀}) / (1 + e^{−ε₀−ε'}) · (a + c)), a = 8 √(e^{ε₀} log(4/δ)/n), c = 8 e^{ε₀}/n,
    ε' = log(1 + a + c).

    Parameters
    ----------
    n, epsilon0, delta
        As for :func:`fmt_valid`.

    Returns
    -------
    float or None
        The central ε, or None outside the validity condition.

    Raises
    ------
    InvalidInput
        For bad n, ε₀ or δ.

    References
    ----------
    Feldman, McMillan, Talwar, FOCS 2021, Theorem 3.1 (and the authors' reference implementation).
    """
    if not fmt_valid(n, epsilon0, delta):
        return None
    a = 8 * math.sqrt(math.exp(epsilon0) * math.log(4 / delta) / n)
    c = 8 * math.exp(epsilon0) / n
    e = math.log(1 + a + c)
    return math.log(1 + (1 - math.exp(-epsilon0)) / (1 + math.exp(-epsilon0 - e)) * (a + c))


def fmt_closed_form_simple(n: int, epsilon0: float, delta: float) -> float | None:
    """FMT Theorem 3.1 as printed: log(1 + (e^ε₀ − 1)/(e^ε₀ + 1) · (a + c)); None where ε₀ is too large.

    Parameters
    ----------
    n, epsilon0, delta
        As for :func:`fmt_valid` (users, local ε₀, central δ).

    Returns
    -------
    float or None
        The central ε (coarser than :func:`fmt_closed_form`), or None outside the validity condition.

    Raises
    ------
    InvalidInput
        For an n, ε₀ or δ out of range.

    References
    ----------
    Feldman, McMillan, Talwar, FOCS 2021, Theorem 3.1 (final expression).
    """
    if not fmt_valid(n, epsilon0, delta):
        return None
    a = 8 * math.sqrt(math.exp(epsilon0) * math.log(4 / delta) / n)
    c = 8 * math.exp(epsilon0) / n
    return math.log(1 + (math.exp(epsilon0) - 1) / (math.exp(epsilon0) + 1) * (a + c))


def _half_cdf(k: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Pr[Bin(c, ½) ≤ k] for real k (floored) and integer c, vectorised; 0 below 0, 1 from c on."""
    from scipy import special

    kk = np.floor(k)
    out = special.bdtr(np.clip(kk, 0, c).astype(np.int64), c, 0.5)
    return np.where(kk < 0, 0.0, np.where(kk >= c, 1.0, out))


def _half_pmf(k: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Pr[Bin(c, ½) = k] for real k (floored) and integer c, vectorised; 0 outside [0, c]."""
    from scipy import special

    kk = np.floor(k)
    inside = (kk >= 0) & (kk <= c)
    k_in = np.clip(kk, 0, c)
    log_pmf = special.gammaln(c + 1.0) - special.gammaln(k_in + 1.0) - special.gammaln(c - k_in + 1.0) - c * math.log(2)
    return np.where(inside, np.exp(log_pmf), 0.0)


def _cut_floors(c: np.ndarray, epsilon: float, epsilon0: float) -> tuple[np.ndarray, np.ndarray]:
    """⌊(c + 1)/(R + 1)⌋ and ⌊(c + 1)/(1/R + 1)⌋: the counts a at which P/Q and Q/P cross e^ε (see :func:`_delta_c`)."""
    alpha = math.exp(epsilon0) / (math.exp(epsilon0) + 1)
    ee = math.exp(epsilon)
    ratio = ((ee + 1) * alpha - 1) / ((1 + ee) * alpha - ee)
    return np.floor((c + 1) / (ratio + 1)), np.floor((c + 1) / (1 / ratio + 1))


def _cut_terms(kk: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(Pr[Bin(c, ½) ≤ k], Pr[Bin(c, ½) ≤ k − 1]) at integer-valued k."""
    f1 = _half_cdf(kk, c)
    return f1, np.maximum(f1 - _half_pmf(kk, c), 0.0)  # Pr[≤ k − 1] = Pr[≤ k] − Pr[= k]: one cdf instead of two


def _combine(terms: list[tuple[np.ndarray, np.ndarray]], epsilon: float, epsilon0: float
             ) -> tuple[np.ndarray, np.ndarray]:
    """δ_c(ε) in both directions from the binomial terms of :func:`_cut_terms` at the two cuts."""
    alpha = math.exp(epsilon0) / (math.exp(epsilon0) + 1)
    ee = math.exp(epsilon)
    (p_low, q_low), (p_hi, q_hi) = [(alpha * f1 + (1 - alpha) * f0, (1 - alpha) * f1 + alpha * f0)
                                    for f1, f0 in terms]
    dp = p_low - ee * q_low
    dq = (1 - q_hi) - ee * (1 - p_hi)
    return np.maximum(dp, 0.0), np.maximum(dq, 0.0)


def _delta_c(c: np.ndarray, epsilon: float, epsilon0: float) -> tuple[np.ndarray, np.ndarray]:
    """δ_c(ε) in both directions (D(P‖Q), D(Q‖P)) for clone counts c (vectorised over c).

    Given c clones, the count a of reports equal to the first clone's output has P(a) = α b(a) + (1 − α) b(a − 1)
    and Q(a) = (1 − α) b(a) + α b(a − 1), b the Bin(c, ½) pmf. P(a)/Q(a) = (α r + 1 − α)/((1 − α) r + α) with
    r = (c − a + 1)/a decreasing in a, so P > e^ε Q exactly for a < (c + 1)/(R + 1), R = ((e^ε + 1)α − 1) /
    ((e^ε + 1)α − e^ε), and Q > e^ε P for a > (c + 1)/(1/R + 1): each divergence is two binomial cdfs."""
    c = np.asarray(c, dtype=np.int64)
    return _combine([_cut_terms(kk, c) for kk in _cut_floors(c, epsilon, epsilon0)], epsilon, epsilon0)


class _DeltaCurve:
    """:func:`fmt_delta` at one (n, ε₀, step) for the many ε of a bisection, the same floats for less work.

    The binomial cdfs of a clone count c depend on ε only through the integer ⌊cut⌋ (:func:`_cut_floors`); they are
    kept from the last ε evaluated and recomputed only where ⌊cut⌋ moved (a bisection's late steps move ε by
    ε₀·2⁻ᵏ and few cuts with it), and each ε's δ_c are kept, so the lower and the upper bisection, which start at
    the same points, share their common first steps. Each element is computed by the same scalar functions as in
    :func:`_delta_c`, so every δ(ε) is bit for bit :func:`fmt_delta`'s.
    """

    def __init__(self, n: int, epsilon0: float, step: int) -> None:
        self.epsilon0 = epsilon0
        self.lo, self.hi, self.mass, self.rest = _clone_grid(n, epsilon0, step)
        self.grids = [np.asarray(g, dtype=np.int64) for g in (self.lo, self.hi)]
        self.last: list[list[tuple[np.ndarray, np.ndarray, np.ndarray]] | None] = [None, None]
        self.seen: dict[float, tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]] = {}

    def _terms(self, g: int, epsilon: float) -> list[tuple[np.ndarray, np.ndarray]]:
        c = self.grids[g]
        floors = _cut_floors(c, epsilon, self.epsilon0)
        last = self.last[g]
        kept = []
        for j, kk in enumerate(floors):
            if last is None:
                f1, f0 = _cut_terms(kk, c)
            else:
                old_kk, f1, f0 = last[j]
                moved = np.flatnonzero(kk != old_kk)
                if moved.size:
                    f1, f0 = f1.copy(), f0.copy()
                    f1[moved], f0[moved] = _cut_terms(kk[moved], c[moved])
            kept.append((kk, f1, f0))
        self.last[g] = kept
        return [(f1, f0) for _, f1, f0 in kept]

    def delta(self, epsilon: float, upper: bool, early_stop: bool) -> float:
        """:func:`fmt_delta` (n, ε₀, ε, step, upper, early_stop)."""
        if epsilon >= self.epsilon0:
            return 0.0
        if epsilon not in self.seen:
            self.seen[epsilon] = tuple(_combine(self._terms(g, epsilon), epsilon, self.epsilon0) for g in (0, 1))
        at_lo, at_hi = self.seen[epsilon]
        return _summed_delta(at_lo, at_hi, self.mass, self.rest, upper, early_stop)


def _clone_spread(n: int, epsilon0: float) -> float:
    """20 standard deviations (+ 60) of the clone count C ~ Bin(n − 1, e^{−ε₀}): the half-width the grid covers."""
    p = math.exp(-epsilon0)
    return 20 * math.sqrt((n - 1) * p * (1 - p)) + 60


def numerical_feasible(n: int, epsilon0: float) -> bool:
    """Whether the clone counts of the numerical bound's grid stay within :data:`MAX_CLONES`.

    Parameters
    ----------
    n, epsilon0 : int, float
        Users and local budget ε₀: the clone count is Bin(n − 1, e^{−ε₀}).

    Returns
    -------
    bool
        True when E[C] plus 20 standard deviations (+ 60) is at most :data:`MAX_CLONES`.
    """
    return (n - 1) * math.exp(-epsilon0) + _clone_spread(n, epsilon0) <= MAX_CLONES


def _check_feasible(n: int, epsilon0: float) -> None:
    if not numerical_feasible(n, epsilon0):
        raise InvalidInput(f"shuffle: the numerical bound is computed for at most {MAX_CLONES:.0e} clones; {n:,} users "
                           f"at ε₀ = {epsilon0:g} expect {(n - 1) * math.exp(-epsilon0):.3g} (use fewer users, or "
                           "the closed form, which applies at this n)")


def grid_intervals(n: int, epsilon0: float, step: int) -> int:
    """How many intervals of ``step`` clone counts one evaluation of the numerical bound sums (its cost).

    Parameters
    ----------
    n : int
        The number of users.
    epsilon0 : float
        The local budget ε₀.
    step : int
        The interval width, in clone counts.

    Returns
    -------
    int
        The number of intervals (both sides of the mean).
    """
    return 2 * (int(math.ceil(_clone_spread(n, epsilon0) / step)) + 1)


def smallest_step(n: int, epsilon0: float) -> int:
    """The smallest interval width whose grid has at most :data:`MAX_INTERVALS` intervals.

    Parameters
    ----------
    n, epsilon0
        As for :func:`grid_intervals`.

    Returns
    -------
    int
        The width, ≥ 1.
    """
    return max(1, int(math.ceil(_clone_spread(n, epsilon0) / (MAX_INTERVALS // 2 - 1))))


def auto_step(n: int, epsilon0: float) -> int:
    """:data:`DEFAULT_STEP`, or the :func:`smallest_step` where n is so large that step 100 costs too much.

    The bounds stay bounds at any step; a step of a ten-thousandth of the clone count's spread loses nothing visible.

    Parameters
    ----------
    n, epsilon0
        Users and local budget ε₀, which set the clone count's spread.

    Returns
    -------
    int
        max(100, :func:`smallest_step`).
    """
    return max(DEFAULT_STEP, smallest_step(n, epsilon0))


def _check_step(n: int, epsilon0: float, step: int) -> None:
    """Refuse, before any work, a grid of more than :data:`MAX_INTERVALS` intervals."""
    if grid_intervals(n, epsilon0, step) > MAX_INTERVALS:
        raise InvalidInput(f"shuffle: {n:,} users at ε₀ = {epsilon0:g} need {grid_intervals(n, epsilon0, step):,} "
                           f"intervals of {step:,} clone counts (at most {MAX_INTERVALS:,}); use a step of at least "
                           f"{smallest_step(n, epsilon0):,} (--step) or fewer users")


@functools.lru_cache(maxsize=256)
def _clone_grid(n: int, epsilon0: float, step: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Intervals [lo, hi] of clone counts in the order the authors' implementation visits them — centred on
    E = (n − 1)e^{−ε₀}: [⌈E⌉, ⌈E + step⌉], [⌈E − step⌉, ⌈E⌉ − 1], then alternately the next ``step`` values above
    and below — up to 20 standard deviations (+ 60) from E; their masses under C ~ Bin(n − 1, e^{−ε₀}); and the
    mass beyond the last intervals."""
    from scipy import special  # scipy.stats.binom's own cdf and sf, without importing scipy.stats (seconds)

    _check_feasible(n, epsilon0)
    _check_step(n, epsilon0, step)
    p = math.exp(-epsilon0)

    def cdf(k: Any) -> Any:
        k = np.asarray(k, dtype=np.int64)
        return np.where(k < 0, 0.0, np.where(k >= n - 1, 1.0, special.bdtr(np.clip(k, 0, n - 1), n - 1, p)))

    mean, sd = (n - 1) * p, math.sqrt((n - 1) * p * (1 - p))
    rounds = int(math.ceil((20 * sd + 60) / step)) + 1
    b = np.arange(1, rounds + 1)
    up_hi = np.ceil(mean + b * step).astype(np.int64)
    up_lo = up_hi - step + 1
    up_lo[0] -= 1
    dn_lo = np.ceil(mean - b * step).astype(np.int64)
    dn_hi = dn_lo + step - 1
    lo = np.stack([up_lo, dn_lo], axis=1).ravel()
    hi = np.stack([up_hi, dn_hi], axis=1).ravel()
    keep = (lo <= n - 1) & (hi >= 0)
    lo, hi = np.maximum(lo[keep], 0), np.minimum(hi[keep], n - 1)
    mass = cdf(hi) - cdf(lo - 1)
    rest = float(cdf(lo.min() - 1) + (0.0 if hi.max() >= n - 1 else special.bdtrc(int(hi.max()), n - 1, p)))
    for arr in (lo, hi, mass):  # cached and shared by every caller: read-only
        arr.setflags(write=False)
    return lo, hi, mass, rest


def fmt_delta(n: int, epsilon0: float, epsilon: float, step: int = DEFAULT_STEP, upper: bool = True,
              early_stop: bool = True) -> float:
    """Upper (or lower) bound on δ(ε) of FMT's numerical analysis for n shuffled ε₀-LDP reports.

    With ``early_stop`` (the authors' rule, the default) the intervals are summed in the order of
    :func:`_clone_grid` and the sum stops as soon as the mass not yet visited is below both partial sums
    (D(P‖Q) and D(Q‖P)); the upper bound then adds that whole unvisited mass (each δ_c ≤ 1), the lower bound
    drops it. Without it every interval is summed, which gives a tighter upper bound (n = 10⁵, ε₀ = 4,
    δ = 10⁻⁶, step 100: ε 0.1751 with the rule, 0.1724 without; the exact value, step 1, is 0.1698).

    Parameters
    ----------
    n : int
        The number of users (≥ 2).
    epsilon0 : float
        The local budget ε₀.
    epsilon : float
        The central ε at which δ is bounded (δ = 0 when ε ≥ ε₀).
    step : int, default 100
        The interval width, in clone counts.
    upper : bool, default True
        Upper bound (True) or lower bound (False).
    early_stop : bool, default True
        Use the authors' stopping rule.

    Returns
    -------
    float
        The bound on δ(ε).

    Raises
    ------
    InvalidInput
        If the clone counts exceed :data:`MAX_CLONES` or the grid exceeds :data:`MAX_INTERVALS`.

    References
    ----------
    Feldman, McMillan, Talwar, FOCS 2021, §4.3 ("Computing the bound numerically").
    """
    if epsilon >= epsilon0:  # the pair's likelihood ratio never exceeds e^ε₀: δ(ε) = 0 exactly
        return 0.0
    lo, hi, mass, rest = _clone_grid(n, epsilon0, step)
    return _summed_delta(_delta_c(lo, epsilon, epsilon0), _delta_c(hi, epsilon, epsilon0), mass, rest, upper,
                         early_stop)


def _summed_delta(at_lo: tuple[np.ndarray, np.ndarray], at_hi: tuple[np.ndarray, np.ndarray], mass: np.ndarray,
                  rest: float, upper: bool, early_stop: bool) -> float:
    """The bound on δ(ε) from δ_c at the intervals' ends (:func:`fmt_delta`'s sum, with or without early stop)."""
    (dp_lo, dq_lo), (dp_hi, dq_hi) = at_lo, at_hi
    pick = np.maximum if upper else np.minimum
    dp_i, dq_i = mass * pick(dp_lo, dp_hi), mass * pick(dq_lo, dq_hi)
    if not early_stop:
        return max(float(dp_i.sum()), float(dq_i.sum())) + (rest if upper else 0.0)
    used = np.concatenate([[0.0], np.cumsum(mass)])
    dp = np.concatenate([[0.0], np.cumsum(dp_i)])
    dq = np.concatenate([[0.0], np.cumsum(dq_i)])
    stop = np.flatnonzero((1 - used[:-1] < dp[:-1]) & (1 - used[:-1] < dq[:-1]))
    if stop.size:
        i = int(stop[0])
        return float(max(dp[i], dq[i]) + (1 - used[i] if upper else 0.0))
    return max(float(dp[-1]), float(dq[-1])) + (rest if upper else 0.0)


def _valid_step(step: Any) -> int:
    if isinstance(step, bool) or not isinstance(step, (int, float, np.integer, np.floating)) \
            or not math.isfinite(step) or not float(step).is_integer() or step < 1:
        raise InvalidInput(f"shuffle: step must be a positive integer, got {step!r}")
    return int(step)


def fmt_numerical(n: int, epsilon0: float, delta: float, step: int | None = DEFAULT_STEP,
                  iterations: int = 24, early_stop: bool = True) -> tuple[float, float]:
    """(lower, upper): FMT's numerical bounds on the central ε at δ for n shuffled ε₀-LDP reports.

    Each is the smallest ε in [0, ε₀] with bound-δ(ε) ≤ δ, by bisection to ε₀·2^−iterations (the upper rounded up,
    the lower rounded down, so both stay bounds). ``step`` None: :func:`auto_step`. A step whose grid exceeds
    :data:`MAX_INTERVALS` is refused before any work (InvalidInput naming the smallest step that fits).

    Parameters
    ----------
    n, epsilon0, delta
        As for :func:`fmt_valid`.
    step : int or None, default 100
        The interval width in clone counts (None: :func:`auto_step`).
    iterations : int, default 24
        Bisection steps.
    early_stop : bool, default True
        Use the authors' stopping rule in :func:`fmt_delta`.

    Returns
    -------
    tuple of float
        ``(lower, upper)`` on the central ε.

    Raises
    ------
    InvalidInput
        For bad n, ε₀, δ or step, too many clones, or a grid over :data:`MAX_INTERVALS`.

    References
    ----------
    Feldman, McMillan, Talwar, FOCS 2021, §4.3.
    """
    n, epsilon0, delta = _check(n, epsilon0, delta)
    step = auto_step(n, epsilon0) if step is None else _valid_step(step)
    _check_feasible(n, epsilon0)
    _check_step(n, epsilon0, step)
    curve = _DeltaCurve(n, epsilon0, int(step))  # fmt_delta's numbers, each ε's binomial cdfs computed once
    out = []
    for upper in (False, True):
        lo, hi = 0.0, epsilon0
        if curve.delta(0.0, upper, early_stop) <= delta:
            out.append(0.0)
            continue
        for _ in range(iterations):
            mid = (lo + hi) / 2
            if curve.delta(mid, upper, early_stop) <= delta:
                hi = mid
            else:
                lo = mid
        out.append(hi if upper else lo)
    return out[0], out[1]


def blanket_grr(n: int, epsilon0: float, delta: float, k: int) -> float | None:
    """Central ε of shuffled GRR(ε₀) on k values by the privacy blanket (BBGN Theorem 3.1); None if > 1.

    ε = max{√(14 k log(2/δ) / ((n − 1) γ)), 27 k / ((n − 1) γ)} with γ = k / (e^{ε₀} + k − 1) (statement as recalled:
    the paper is not among the project's papers).

    Parameters
    ----------
    n, epsilon0, delta
        As for :func:`fmt_valid`.
    k : int
        The domain size of GRR (≥ 2).

    Returns
    -------
    float or None
        The smallest ε the theorem allows, or None where it exceeds 1 (the theorem is stated for ε ≤ 1).

    Raises
    ------
    InvalidInput
        For bad n, ε₀, δ or k.

    References
    ----------
    Balle, Bell, Gascón, Nissim, "The Privacy Blanket of the Shuffle Model", CRYPTO 2019, Theorem 3.1.
    """
    n, epsilon0, delta = _check(n, epsilon0, delta)
    if isinstance(k, bool) or not float(k).is_integer() or k < 2:
        raise InvalidInput(f"shuffle: the domain size must be an integer ≥ 2, got {k!r}")
    gamma = k / (math.exp(epsilon0) + k - 1)
    eps = max(math.sqrt(14 * k * math.log(2 / delta) / ((n - 1) * gamma)), 27 * k / ((n - 1) * gamma))
    return eps if eps <= 1 else None


@dataclass(frozen=True)
class ShuffleBounds:
    """Central ε of n shuffled ε₀-LDP reports at δ by every bound (None where a bound does not apply).

    Parameters
    ----------
    users : int
        n.
    epsilon0 : float
        The local budget ε₀.
    delta : float
        The central δ.
    closed_form : float or None
        FMT Theorem 3.1 (:func:`fmt_closed_form`).
    lower, upper : float or None
        FMT's numerical bounds (:func:`fmt_numerical`); None where n is beyond the numerical analysis.
    valid : bool
        Whether FMT's validity condition holds.
    blanket : float, optional
        The privacy blanket bound for GRR on ``domain_size`` values.
    domain_size : int, optional
        k, when the blanket bound was asked for.
    step : int, default 100
        The numerical bound's interval width.
    early_stop : bool, default True
        Whether the authors' stopping rule was used.
    """

    users: int
    epsilon0: float
    delta: float
    closed_form: float | None
    lower: float | None  #: None where n is beyond the numerical analysis (:data:`MAX_CLONES`)
    upper: float | None
    valid: bool
    blanket: float | None = None
    domain_size: int | None = None
    step: int = DEFAULT_STEP
    early_stop: bool = True

    def to_dict(self) -> dict:
        return asdict(self)


def shuffle_bounds(n: int, epsilon0: float, delta: float, k: int | None = None,
                   step: int | None = DEFAULT_STEP, early_stop: bool = True) -> ShuffleBounds:
    """Every bound at one (n, ε₀, δ): FMT closed form and numerical (lower, upper); blanket for GRR on k values.

    The defaults (step 100, the authors' early stop) reproduce the reference implementation's numbers; ``step``
    None is :func:`auto_step` (100 unless n is huge). Where n is beyond the numerical analysis
    (:func:`numerical_feasible`) ``lower`` and ``upper`` are None and the closed form is the answer.

    Parameters
    ----------
    n, epsilon0, delta
        As for :func:`fmt_valid`.
    k : int, optional
        GRR's domain size, for the blanket bound.
    step : int or None, default 100
        The numerical bound's interval width (None: :func:`auto_step`).
    early_stop : bool, default True
        Use the authors' stopping rule.

    Returns
    -------
    ShuffleBounds
        All the bounds.

    Raises
    ------
    InvalidInput
        For bad n, ε₀, δ, k or step, or a grid over :data:`MAX_INTERVALS`.
    """
    n, epsilon0, delta = _check(n, epsilon0, delta)
    step = auto_step(n, epsilon0) if step is None else _valid_step(step)
    lower: float | None = None
    upper: float | None = None
    if numerical_feasible(n, epsilon0):
        lower, upper = fmt_numerical(n, epsilon0, delta, step, early_stop=early_stop)
    return ShuffleBounds(int(n), float(epsilon0), float(delta), fmt_closed_form(n, epsilon0, delta), lower, upper,
                         fmt_valid(n, epsilon0, delta), None if k is None else blanket_grr(n, epsilon0, delta, k),
                         None if k is None else int(k), int(step), bool(early_stop))


def _within(n: int, epsilon0: float, delta: float, target: float, step: int | None, tight: bool) -> bool:
    """Whether the numerical upper bound on the central ε is at most ``target``: since the bound's δ(ε) decreases
    in ε, that is δ_upper(target) ≤ δ — one evaluation instead of a bisection."""
    if tight:
        return fmt_delta(n, epsilon0, target, fine_step(n, epsilon0), True, early_stop=False) <= delta
    return fmt_delta(n, epsilon0, target, auto_step(n, epsilon0) if step is None else step, True,
                     early_stop=True) <= delta


def largest_local_epsilon(target: float, n: int, delta: float, step: int | None = DEFAULT_STEP,
                          iterations: int = 30, hi: float = 20.0, tight: bool = False) -> float:
    """The largest ε₀ whose shuffled central ε (FMT numerical upper bound) is at most ``target``.

    Bisection; the upper bound increases with ε₀. Returns ``target`` itself at least (shuffling never hurts: ε ≤ ε₀).
    ``tight``: the upper bound with every interval summed at :func:`fine_step` (else the authors' algorithm);
    ``step`` None: :func:`auto_step` at each ε₀ tried. A fixed step too fine for n is refused before any work.

    Parameters
    ----------
    target : float
        The central ε wanted (> 0).
    n : int
        The number of users (≥ 2).
    delta : float
        The central δ, in (0, 1).
    step : int or None, default 100
        The interval width (ignored when ``tight``).
    iterations : int, default 30
        Bisection steps.
    hi : float, default 20.0
        The largest ε₀ considered.
    tight : bool, default False
        Use the tight upper bound (every interval, :func:`fine_step`).

    Returns
    -------
    float
        ε₀, in [target, hi].

    Raises
    ------
    InvalidInput
        For a bad target, n, δ or step, too many clones, or a grid over :data:`MAX_INTERVALS`.

    References
    ----------
    Feldman, McMillan, Talwar, FOCS 2021, §4.3.
    """
    if not (math.isfinite(target) and target > 0):
        raise InvalidInput(f"shuffle: the target central ε must be a positive finite number, got {target!r}")
    n, _, delta = _check(n, target, delta)
    _check_feasible(n, target)  # the most clones are expected at the smallest ε₀ tried
    if step is not None and not tight:
        step = _valid_step(step)
        # the grid is widest where p(1 − p) is largest, p = e^{−ε₀}, ε₀ in [target, hi]
        widest = math.log(2) if target <= math.log(2) <= hi else target
        _check_step(n, widest, step)
    lo = float(target)
    if _within(n, hi, delta, target, step, tight):
        return hi
    top = hi
    for _ in range(iterations):
        mid = (lo + top) / 2
        if _within(n, mid, delta, target, step, tight):
            lo = mid
        else:
            top = mid
    return lo


def fine_step(n: int, epsilon0: float) -> int:
    """An interval width fine enough for the clone count's spread: about a tenth of its standard deviation.

    At most :data:`DEFAULT_STEP` (the fixed 100 of the reference is coarse when few clones are expected) — unless
    n is so large that the grid would exceed :data:`MAX_INTERVALS`, then :func:`smallest_step`.

    Parameters
    ----------
    n, epsilon0
        As for :func:`numerical_feasible`.

    Returns
    -------
    int
        The width, ≥ 1.
    """
    p = math.exp(-epsilon0)
    fine = int(min(DEFAULT_STEP, max(1, math.floor(math.sqrt((n - 1) * p * (1 - p)) / 10))))
    return max(fine, smallest_step(n, epsilon0))


def shuffle_curve(users: Any, epsilon0: float, delta: float, k: int | None = None,
                  step: int | None = None) -> list[ShuffleBounds]:
    """:func:`shuffle_bounds` at each number of users (for a curve of central ε vs n), the tightest way.

    Every interval is summed (no early stop) and, with ``step`` None, the :func:`fine_step` of each n is used.

    Parameters
    ----------
    users : int or array_like of int
        The numbers of users (deduplicated, sorted).
    epsilon0 : float
        The local budget ε₀.
    delta : float
        The central δ.
    k : int, optional
        GRR's domain size, for the blanket bound.
    step : int, optional
        A fixed interval width (None: :func:`fine_step` per n).

    Returns
    -------
    list of ShuffleBounds
        One per number of users, increasing.

    Raises
    ------
    InvalidInput
        As :func:`shuffle_bounds`.
    """
    ns = sorted({int(n) for n in np.atleast_1d(np.asarray(users))})
    return [shuffle_bounds(n, epsilon0, delta, k, fine_step(n, epsilon0) if step is None else step, early_stop=False)
            for n in ns]


def error_bought(target: float, n: int, delta: float, d: int,
                 mechanisms: tuple[str, ...] = ("grr", "oue", "olh"), tight: bool = True) -> list[dict[str, Any]]:
    """What shuffling buys in accuracy at a target central ε, per mechanism.

    Each mechanism's closed-form variance of one frequency estimate (matrix inversion, value of negligible frequency,
    Wang et al. 2017 Eq. (2)) when run locally at ε = target versus at the largest ε₀ whose shuffled central ε is at
    most the target (by default the tight numerical upper bound).

    Parameters
    ----------
    target : float
        The central ε.
    n : int
        The number of users.
    delta : float
        The central δ.
    d : int
        The domain size.
    mechanisms : tuple of str, default ("grr", "oue", "olh")
        Registered frequency oracles compared.
    tight : bool, default True
        Use the tight upper bound in :func:`largest_local_epsilon`.

    Returns
    -------
    list of dict
        One row per mechanism: ``epsilon_local``, ``epsilon0_shuffled``, ``variance_local``, ``variance_shuffled`` and
        ``error_ratio`` (the ratio of standard deviations, local over shuffled).

    Raises
    ------
    InvalidInput
        For bad inputs (see :func:`largest_local_epsilon`) or an unknown mechanism.

    References
    ----------
    Wang, Blocki, Li, Jha, "Locally Differentially Private Protocols for Frequency Estimation", USENIX Security 2017,
    Eq. (2); Feldman, McMillan, Talwar, FOCS 2021.
    """
    from ldp.mechanisms import get_mechanism

    epsilon0 = largest_local_epsilon(target, n, delta, tight=tight)
    rows = []
    for name in mechanisms:
        local = get_mechanism(name, epsilon=target, d=d).approximate_variance(n)
        shuffled = get_mechanism(name, epsilon=epsilon0, d=d).approximate_variance(n)
        rows.append({"mechanism": name, "epsilon_local": float(target), "epsilon0_shuffled": epsilon0,
                     "variance_local": float(local), "variance_shuffled": float(shuffled),
                     "error_ratio": float(math.sqrt(local / shuffled))})
    return rows
