"""Matrix inversion and the consistency post-processors (Wang et al., "Locally Differentially
Private Frequency Estimation with Consistency", NDSS 2020, §IV).

Every post-processor starts from the unbiased matrix-inversion estimate f̃ (the paper's "Base",
Eq. (2) of the IBU paper) and uses the prior knowledge that frequencies are non-negative and sum to
one (Definition 2, consistency). Table I of the paper:

=========  ===========================================================  ========  ========
method     what it does                                                 non-neg.  sums to 1
=========  ===========================================================  ========  ========
base-pos   negative estimates → 0                                       yes       no
post-pos   Base; a negative *query answer* → 0 (:func:`answer_query`)   answers   no
base-cut   estimates below T = Φ⁻¹(1 − α/d)·σ (Eq. 7) → 0               yes       no
norm       add δ = (1 − Σ f̃)/d to every estimate (unbiased)             no        yes
norm-mul   negatives → 0, then multiply by γ so the sum is 1            yes       yes
norm-cut   negatives and the smallest positives → 0 so the sum is ≤ 1   yes       almost
norm-sub   max(f̃ − δ, 0) summing to 1 (= CLS, Appendix A)               yes       yes
mle-apx    Gaussian-approximation MLE (Appendix B, Eq. (10))            yes       yes
power      posterior mean under a fitted power-law prior (Eq. (11))     yes       no
power-ns   Norm-Sub after Power                                         yes       yes
=========  ===========================================================  ========  ========

σ is the standard deviation of f̃ for a value of frequency ≈ 0, Eq. (5):
σ² = q(1 − q) / (n (p − q)²) (``Mechanism.approximate_variance``).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from ldp.core.errors import InvalidInput
from ldp.core.params import Param
from ldp.core.registry import ESTIMATORS
from ldp.core.results import Aggregate, Estimate
from ldp.estimators.base import Estimator, PostProcessor
from ldp.maths.gaussian import normal_quantile
from ldp.maths.roots import brentq
from ldp.maths.simplex import norm_sub
from ldp.mechanisms.base import Mechanism

__all__ = ["CONSISTENCY_PAPER", "BaseCut", "BasePos", "MLEApx", "MatrixInversion", "Norm", "NormCut", "NormMul",
           "NormSub", "PostPos", "Power", "PowerNS", "answer_query", "base_cut", "base_cut_threshold", "base_pos",
           "mle_apx", "norm", "norm_cut", "norm_mul", "power", "power_law_alpha", "power_ns"]

CONSISTENCY_PAPER = "Wang, Lopuhaä-Zwakenberg, Li, Škorić, Li — Frequency Estimation with Consistency (NDSS 2020)"


@ESTIMATORS.register
class MatrixInversion(Estimator):
    """Raw matrix inversion (Base): Eq. (2) of the IBU paper, unbiased and unclipped.

    Parameters
    ----------
    **params
        None: matrix inversion takes no parameters (an unknown name is an ``InvalidInput``).

    References
    ----------
    Arcolezi et al., IBU vs matrix inversion (DBSec'23), Eq. (2); the consistency paper's "Base" (NDSS'20, §IV).
    """

    name = "mi"
    display_name = "MI (Base)"
    description = "Matrix inversion: unbiased, may be negative and not sum to one"
    paper = "IBU paper Eq. (2); " + CONSISTENCY_PAPER + " (Base)"

    kinds = ("frequency",)

    def _estimate(self, mechanism: Mechanism, aggregate: Aggregate, base: Estimate | None) -> Estimate:
        return mechanism.estimate(aggregate)


@ESTIMATORS.register
class NormSub(PostProcessor):
    """Matrix inversion followed by Norm-Sub (consistent: non-negative, sums to one).

    Parameters
    ----------
    **params
        None: Norm-Sub takes no parameters.

    References
    ----------
    Consistency paper (Wang et al., NDSS'20), §IV-C (Norm-Sub, equal to CLS, Appendix A).
    """

    name = "norm-sub"
    display_name = "Norm-Sub"
    description = "Subtract a common δ and clip at zero so the estimate is a distribution (exact CLS)"
    paper = CONSISTENCY_PAPER + ", §IV (Norm-Sub)"
    consistent = True
    idempotent = True  # the Euclidean projection onto the simplex (CLS, §IV-C): projecting twice changes nothing

    def _estimate(self, mechanism: Mechanism, aggregate: Aggregate, base: Estimate | None) -> np.ndarray:
        return norm_sub(base.values)


# ============================================================================ the post-processors
def _vector(estimate: np.ndarray) -> np.ndarray:
    x = np.asarray(estimate, dtype=np.float64)
    if x.ndim != 1 or x.size < 1:
        raise InvalidInput(f"the estimate must be a non-empty 1-D array, got shape {x.shape}")
    return x


def base_pos(estimate: np.ndarray) -> np.ndarray:
    """Base-Pos (§IV-A): every negative estimate becomes 0.

    Parameters
    ----------
    estimate : array_like
        The matrix-inversion estimate f̃, a non-empty 1-D array.

    Returns
    -------
    numpy.ndarray
        max(f̃, 0).

    Raises
    ------
    InvalidInput
        If ``estimate`` is not a non-empty 1-D array.

    References
    ----------
    Consistency paper (Wang et al., NDSS'20), §IV-A, Table I.
    """
    return np.maximum(_vector(estimate), 0.0)


def base_cut_threshold(d: int, sigma: float, alpha: float = 2.0) -> float:
    """Eq. (7): T = Φ⁻¹(1 − α/d)·σ, Φ the standard normal CDF.

    A value of true frequency 0 is estimated above T with probability about α/d, so about α of the
    d values are false positives. Returns −∞ when α ≥ d (then nothing is cut except negatives).

    Parameters
    ----------
    d : int
        The domain size (≥ 1).
    sigma : float
        The standard deviation σ of f̃ for a value of frequency ≈ 0 (Eq. (5)), ≥ 0.
    alpha : float, default 2.0
        The expected number of false positives among d values of frequency 0 (> 0; the paper uses 2).

    Returns
    -------
    float
        The threshold T (−∞ when α ≥ d).

    Raises
    ------
    InvalidInput
        For d < 1, a negative or non-finite σ, or α ≤ 0.

    References
    ----------
    Consistency paper (Wang et al., NDSS'20), §IV-A, Eq. (7).
    """
    if d < 1 or not np.isfinite(sigma) or sigma < 0 or not alpha > 0:
        raise InvalidInput(f"base-cut threshold needs d ≥ 1, σ ≥ 0 and α > 0, got d={d}, σ={sigma}, α={alpha}")
    tail = alpha / d
    if tail >= 1.0:
        return float("-inf")
    return -normal_quantile(tail) * sigma  # Φ⁻¹(1 − t) = −Φ⁻¹(t), without the rounding of 1 − t


def base_cut(estimate: np.ndarray, threshold: float) -> np.ndarray:
    """Base-Cut (§IV-A): estimates below the threshold become 0; the others are kept as they are.

    The cut is at max(T, 0): Table I promises non-negative output, and with α < d/2 (the paper's
    α = 2 and any d ≥ 5) T > 0 already, so this only matters for tiny domains.

    Parameters
    ----------
    estimate : array_like
        The matrix-inversion estimate f̃, a non-empty 1-D array.
    threshold : float
        T, from :func:`base_cut_threshold`.

    Returns
    -------
    numpy.ndarray
        f̃_v where f̃_v ≥ max(T, 0), else 0.

    Raises
    ------
    InvalidInput
        For an estimate that is not one non-empty vector.

    References
    ----------
    Consistency paper (Wang et al., NDSS'20), §IV-A, Eq. (7), Table I.
    """
    x = _vector(estimate)
    return np.where(x >= max(float(threshold), 0.0), x, 0.0)


def norm(estimate: np.ndarray) -> np.ndarray:
    """Norm (§IV-B): f̃ + δ with δ = (1 − Σ f̃)/d, so the sum is one. Unbiased (Lemma 3); may be negative.

    Parameters
    ----------
    estimate : array_like
        The matrix-inversion estimate f̃ (non-empty, 1-D).

    Returns
    -------
    numpy.ndarray
        f̃ + δ, summing to one.

    Raises
    ------
    InvalidInput
        If the estimate is not 1-D or is empty.

    References
    ----------
    Consistency paper (Wang et al., NDSS'20), §IV-B, Lemma 3.
    """
    x = _vector(estimate)
    return x + (1.0 - x.sum()) / x.size


def norm_mul(estimate: np.ndarray) -> np.ndarray:
    """Norm-Mul (§IV-B): max(γ f̃, 0) with γ > 0 such that the sum is one.

    If no estimate is positive no such γ exists; the uniform distribution is returned then.

    Parameters
    ----------
    estimate : array_like
        The matrix-inversion estimate f̃; must be 1-D and not empty.

    Returns
    -------
    numpy.ndarray
        A distribution (non-negative, summing to one).

    Raises
    ------
    InvalidInput
        Unless the estimate is a non-empty 1-D array.

    References
    ----------
    Consistency paper (Wang et al., NDSS'20), §IV-B; the IBU paper's MI baseline (DBSec'23, §2.3).
    """
    pos = np.maximum(_vector(estimate), 0.0)
    total = pos.sum()
    if not total > 0:
        return np.full(pos.size, 1.0 / pos.size)
    return pos / total


def norm_cut(estimate: np.ndarray) -> np.ndarray:
    """Norm-Cut (§IV-B): negatives → 0; if the positives sum to more than one, the smallest ones → 0 too.

    With θ the smallest threshold such that Σ_{f̃_v > θ} f̃_v ≤ 1, every f̃_v ≤ θ becomes 0 and the
    others are kept unchanged, so the sum is at most one (and typically just below it). The paper
    writes "f̃_v if f̃_v ≥ θ", but keeping a value equal to θ would break its own Σ ≤ 1; we keep
    values strictly above θ, which defines θ. (The authors' code instead keeps the value that
    crosses one and rescales; that is not the method described in the paper.)

    Parameters
    ----------
    estimate : array_like
        The 1-D matrix-inversion estimate f̃ (at least one value).

    Returns
    -------
    numpy.ndarray
        Non-negative values summing to at most one.

    Raises
    ------
    InvalidInput
        For an empty or multi-dimensional estimate.

    References
    ----------
    Consistency paper (Wang et al., NDSS'20), §IV-B (Norm-Cut), Table I.
    """
    x = _vector(estimate)
    pos = np.maximum(x, 0.0)
    if pos.sum() <= 1.0:
        return pos
    positives = pos[pos > 0]
    take = min(positives.size, 256)
    while True:  # the kept values are few: sort only the top `take` positives (partial selection, O(d))
        top = np.sort(np.partition(positives, positives.size - take)[positives.size - take:])[::-1]
        cums = np.cumsum(top)
        if cums[-1] > 1.0 or take == positives.size:
            break
        take = min(positives.size, 4 * take)
    kept = int(np.searchsorted(cums, 1.0, side="right"))  # largest m with (sum of the top m) ≤ 1
    if kept >= top.size:  # Σ > 1 in one summation order, ≤ 1 in the sorted one (rounding): nothing to cut
        return pos
    theta = top[kept]  # the (m+1)-th largest, > 0 because the sum passes one there
    return np.where(x > theta, x, 0.0)


def mle_apx(estimate: np.ndarray, p: float, q: float) -> np.ndarray:
    """MLE-Apx (§IV-D, Appendix B): the consistent f′ that maximizes the Gaussian approximation (9).

    Minimizes Σ_v (f′_v − f̃_v)² / σ′²_v with σ′²_v ∝ q(1−q) + f′_v (p−q)(1−p−q) (Eq. (3)) subject to
    f′ ≥ 0, Σ f′ = 1. KKT (Appendix B): with a = p−q, b = 1−p−q, Q = q(1−q) and D₁ the m largest
    estimates (S = their sum), a common x = a(1 − S)/(mQ + ab) gives Eq. (12),
    f′_v = (Q x + a f̃_v) / (a − ab x) = (f̃_v − θ)·γ with θ = −xQ/a and γ = 1/(1 − bx), and
    f′_v = 0 off D₁; D₁ = {f̃_v > θ} (the paper's printed x has the sign of its (p−q)(1−p−q)
    term flipped relative to Eq. (12); this x is the one for which Σ f′ = 1, as in the authors' code).
    With p + q = 1 (b = 0) it is exactly Norm-Sub. D₁ is found from the whole domain by shrinking
    (unlike the authors' loop, which starts from the positive estimates and so misses values that
    δ lifts above 0). This is the minimizer whenever every f̃_v > −q(1−q)/(2|(p−q)(1−p−q)|) (tested);
    further out the Gaussian objective is not monotone in f̃ — a far negative f̃ is "explained" by a
    large f′ whose variance is large — and if no support satisfies Appendix B's conditions at all,
    Norm-Sub (the CLS solution, which MLE-Apx approximates) is returned.

    Parameters
    ----------
    estimate : array_like
        The matrix-inversion estimate f̃ (non-empty, 1-D).
    p, q : float
        The pure mechanism's support probabilities p* and q*, 0 ≤ q < p < 1.

    Returns
    -------
    numpy.ndarray
        A distribution f′ (non-negative, summing to one).

    Raises
    ------
    InvalidInput
        For a bad estimate or p, q outside 0 ≤ q < p < 1.

    References
    ----------
    Consistency paper (Wang et al., NDSS'20), §IV-D, Eqs. (9), (10), (12), Appendix B.
    """
    x = _vector(estimate)
    p, q = float(p), float(q)
    if not (0.0 <= q < p < 1.0):
        raise InvalidInput(f"mle-apx needs 0 ≤ q < p < 1, got p={p!r}, q={q!r}")
    a, b, big_q = p - q, 1.0 - p - q, q * (1.0 - q)
    ab = a * b

    def threshold(m: float, total: float) -> float:  # θ = Q(S − 1)/(mQ + ab), mQ + ab ≥ p(1−p) > 0
        return big_q * (total - 1.0) / (m * big_q + ab)

    # Support D₁ = {f̃ > θ(D₁)}: start from the whole domain and shrink (Michelot's algorithm for the
    # simplex projection; a handful of O(d) passes), then check the KKT conditions.
    support = np.ones(x.size, dtype=bool)
    m, total = float(x.size), float(x.sum())
    theta = threshold(m, total)
    for _ in range(64):
        new = x > theta
        m_new = float(np.count_nonzero(new))
        if m_new == m or m_new == 0:
            break
        support, m, total = new, m_new, float(x[new].sum())
        theta = threshold(m, total)
    if not (m >= 1 and np.all(x[support] > theta) and np.all(x[~support] <= theta)):
        srt = np.sort(x)[::-1]  # fallback: every support size at once, O(d log d)
        cums = np.cumsum(srt)
        sizes = np.arange(1, x.size + 1, dtype=np.float64)
        thetas = big_q * (cums - 1.0) / (sizes * big_q + ab)
        above = srt > thetas
        valid = np.flatnonzero(above & np.append(thetas[:-1] >= srt[1:], True))
        if not valid.size:  # outside the Gaussian model's range (see the docstring): the CLS solution
            return norm_sub(x)
        k = int(valid[-1])
        m, total, theta = sizes[k], float(cums[k]), float(thetas[k])
    gamma = (m * big_q + ab) / (m * big_q + ab * total)  # 1/(1 − b x)
    return np.maximum(x - theta, 0.0) * gamma


# ------------------------------------------------------------------------------------------ Power
_HEAD = 2048  # exact power sums up to this count; beyond it, the midpoint integral with its 1/24 correction
_J_HEAD = np.arange(1, _HEAD + 1, dtype=np.float64)
_LOG_HEAD = np.log(_J_HEAD)


def _prior_sums(alpha: float, upto: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The power-law prior's sums up to every integer J ≥ 0 in ``upto``: (Σ_{j=1}^{J} j^(−α), Σ_{j=1}^{J} j^(1−α)),
    its mass and its first moment (times n).

    Up to 2048 the terms are added; beyond, the tail is :func:`_tail_sums`. One exp gives both sums' terms
    (j^(1−α) = j·j^(−α)): the two sums had cost two exps and two powers each, a quarter of a PowerNS estimate."""
    upto = np.asarray(upto, dtype=np.int64)
    top = int(min(_HEAD, max(int(upto.max(initial=0)), 1)))
    terms = np.exp(-alpha * _LOG_HEAD[:top])
    at = np.minimum(upto, top)
    mass = np.concatenate(([0.0], np.cumsum(terms)))[at]
    moment = np.concatenate(([0.0], np.cumsum(terms * _J_HEAD[:top])))[at]
    tail = upto > top
    if tail.any():
        extra_mass, extra_moment = _tail_sums(alpha, top + 0.5, upto[tail] + 0.5, np)
        mass[tail] += extra_mass
        moment[tail] += extra_moment
    return mass, moment


def _tail_sums(alpha: float, lo: float, hi: Any, xp: Any) -> tuple[Any, Any]:
    """Σ j^(−s) over the integers j in (lo, hi) — lo and hi half-integers, lo ≥ 2048.5 — for s = α and s = α − 1:
    the midpoint integral ∫_lo^hi x^(−s) dx = lo^u·expm1(u·log(hi/lo))/u (u = 1 − s; stable near u = 0) plus the
    Euler–Maclaurin correction −(f′(hi) − f′(lo))/24 = (s/24)·(hi^(−s−1) − lo^(−s−1)), whose error, O(f‴), is below
    10⁻¹⁵ of the sum this far out. One log and one exp over ``hi`` serve both s (hi^(−α−1) = hi^(−α)/hi). ``hi`` is
    an array with ``xp`` = numpy, or one float with ``xp`` = math (the α fit's one count n, without numpy's
    per-call cost)."""
    span = xp.log(hi / lo)
    log_lo = math.log(lo)
    hi_power = xp.exp(-alpha * (log_lo + span))  # hi^(−α)
    out = []
    for s, hi_slope in ((alpha, hi_power / hi), (alpha - 1.0, hi_power)):
        u = 1.0 - s
        base = math.exp(u * log_lo)
        integral = base * span if abs(u) < 1e-12 else base * xp.expm1(u * span) / u
        out.append(integral + (s / 24.0) * (hi_slope - math.exp((-s - 1.0) * log_lo)))
    return out[0], out[1]


@functools.lru_cache(maxsize=4096)
def _prior_mean(alpha: float, n: int) -> float:
    """The mean count of the prior Pr[count = j] ∝ j^(−α), j = 1..n: the ratio of :func:`_prior_sums` at the one
    count n, to within a few units in the last place (the same terms; the head added by ``numpy.sum`` and a dot
    product, the tail in scalar arithmetic: 8 µs where the two array sums took 25). Cached: the α fit's root finder
    starts every estimate at the ends of a cell of :data:`_ALPHA_NODES`, and Power and PowerNS fit the same estimate
    alike."""
    top = min(_HEAD, n)
    terms = np.exp(-alpha * _LOG_HEAD[:top])
    mass, moment = float(terms.sum()), float(terms @ _J_HEAD[:top])
    if n > top:
        extra_mass, extra_moment = _tail_sums(alpha, top + 0.5, n + 0.5, math)
        mass, moment = mass + extra_mass, moment + extra_moment
    return moment / mass


def power_law_alpha(estimate: np.ndarray, n: int) -> float:
    """Exponent α of the power-law prior Pr[count = j] ∝ j^(−α), j = 1..n, fitted to the estimate.

    As in the authors' implementation the mean count of the prior is matched to the mean estimated
    count n·mean(f̃) (bisection; the prior mean decreases with α), and α = 1.01 when that mean is below
    one user.

    Parameters
    ----------
    estimate : array_like
        The matrix-inversion estimate f̃ (non-empty, 1-D).
    n : int
        The number of users (the prior's largest count).

    Returns
    -------
    float
        α in [0, 64] (0 when even the flat prior's mean is at most the target; 1.01 when the target is below one
        user).

    Raises
    ------
    InvalidInput
        If the estimate is not a vector with at least one value, or n is not a positive integer.

    References
    ----------
    Consistency paper (Wang et al., NDSS'20), §IV-E; Jia & Gong, INFOCOM 2019.
    """
    x = _vector(estimate)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise InvalidInput(f"power_law_alpha: n must be a positive integer, got {n!r}")
    n = int(n)
    target = n * float(x.mean())
    if target < 1.0:
        return 1.01

    def gap(alpha: float) -> float:  # log(prior mean / target), decreasing in α
        return math.log(_prior_mean(float(alpha), n) / target)

    if gap(0.0) <= 0:
        return 0.0
    # the root's cell of the grid of _ALPHA_NODES (whose prior means are cached), found from the table of their
    # log prior means; the root is then solved on that cell with the exact gap (5 evaluations, not 13 on [0, 64]).
    # A cell whose ends do not straddle the root in the exact gap (a rounding hair at a node) falls back to [0, 64]
    levels = _alpha_levels(n)
    i = int(np.searchsorted(-levels, -np.log(target)))
    lo, hi = (_ALPHA_NODES[i - 1], _ALPHA_NODES[i]) if 0 < i < _ALPHA_NODES.size else (0.0, 64.0)
    if gap(lo) <= 0 or gap(hi) > 0:
        lo, hi = 0.0, 64.0
    return float(brentq(gap, lo, hi, xtol=1e-12, rtol=1e-12))


#: The grid on which :func:`power_law_alpha` first places its root: α = 0, 1/4, …, 64.
_ALPHA_NODES = np.arange(257) / 4.0


@functools.lru_cache(maxsize=64)
def _alpha_levels(n: int) -> np.ndarray:
    """log of the prior's mean count at every α of :data:`_ALPHA_NODES` (decreasing): 514 power sums, once per n
    (≈ 8 ms; a Post-processing rerun fits α for each of its 50 trials, all with the same n)."""
    levels = np.array([np.log(_prior_mean(float(a), n)) for a in _ALPHA_NODES])
    levels.setflags(write=False)
    return levels


def power(estimate: np.ndarray, sigma: float, n: int, alpha: float | None = None) -> np.ndarray:
    """Power (§IV-E, Eq. (11), Jia & Gong 2019): the posterior mean of each frequency.

    f̃_v is modelled as x + N(0, σ²) (Eq. (6)) with x drawn from a power law fitted to the estimate
    (:func:`power_law_alpha`) on the frequencies j/n, j = 1..n (the authors' discrete prior), and

        f′_v = Σ_x N(f̃_v − x; σ) Pr[x] x / Σ_y N(f̃_v − y; σ) Pr[y].

    f′_v depends on f̃_v only, so it is computed once on a grid of step h = σ/32 and interpolated:
    the prior mass (and first moment) of each h-wide cell of frequencies is summed exactly
    (Euler–Maclaurin beyond 2048 users), spread to the two nearest grid nodes at the cell's centroid,
    and both sums of Eq. (11) become one convolution with the Gaussian truncated at ±8σ. Cost
    O(M log M + d) with M = (max f̃ + 8σ)/h, instead of the paper's O(√n·d).

    Parameters
    ----------
    estimate : array_like
        The matrix-inversion estimate f̃ (non-empty, 1-D).
    sigma : float
        The noise standard deviation σ of Eq. (6) (> 0; Eq. (5) for a pure mechanism).
    n : int
        The number of users (≥ 1).
    alpha : float, optional
        The power-law exponent (fitted with :func:`power_law_alpha` when None).

    Returns
    -------
    numpy.ndarray
        The posterior means f′_v, each in [1/n, 1] (their sum need not be one).

    Raises
    ------
    InvalidInput
        For a bad estimate, n that is not a positive integer, or σ that is not positive.

    References
    ----------
    Consistency paper (Wang et al., NDSS'20), §IV-E, Eqs. (6) and (11); Jia & Gong, "Calibrate: Frequency Estimation
    and Heavy Hitter Identification with Local Differential Privacy via Incorporating Prior Knowledge", INFOCOM 2019.
    """
    x = _vector(estimate)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise InvalidInput(f"power: n must be a positive integer, got {n!r}")
    n = int(n)
    if not np.isfinite(sigma) or sigma <= 0:
        raise InvalidInput(f"power: σ must be positive, got {sigma!r}")
    a = power_law_alpha(x, n) if alpha is None else float(alpha)
    reach = 8.0 * sigma
    top = min(1.0, max(float(x.max()), 0.0) + reach)
    h = max(sigma / 32.0, top / (1 << 21))
    cells = max(1, int(np.ceil(top / h)))
    bounds = np.floor(np.minimum(np.arange(cells + 1) * h, 1.0) * n).astype(np.int64)
    bounds[-1] = min(n, max(bounds[-1], int(np.floor(top * n))))
    mass, moment = _prior_sums(a, bounds)
    mass0 = np.diff(mass)  # Σ j^(−α) over the cell
    mass1 = np.diff(moment) / n  # Σ (j/n) j^(−α)
    mid = (np.arange(cells) + 0.5) * h
    centroid = np.divide(mass1, mass0, out=mid.copy(), where=mass0 > 0)
    pos = centroid / h
    # bounds by np.minimum(np.maximum(·)), elementwise what np.clip computes: np.clip's own per-call overhead was a
    # tenth of Power's time at d ≈ 100
    node = np.minimum(np.maximum(np.floor(pos).astype(np.int64), 0), cells - 1)
    frac = pos - node
    # both moments' masses spread to the two nearest nodes, in one count: row 0 (mass) and row 1 (moment)
    where = np.concatenate((node, node + 1, node + (cells + 1), node + (cells + 2)))
    spread = np.concatenate((mass0 * (1 - frac), mass0 * frac, mass1 * (1 - frac), mass1 * frac))
    nodes = np.bincount(where, spread, 2 * (cells + 1)).reshape(2, cells + 1)
    radius = int(np.ceil(reach / h))
    den, num = _smooth_rows(nodes, radius, h / sigma)
    # Eq. (11) at t_j = (j − radius)·h, j = 0 … cells + 2·radius (every t has prior mass within 8σ)
    posterior = np.minimum(np.maximum(num / np.maximum(den, 1e-300), 1.0 / n), 1.0)
    pos = (np.minimum(np.maximum(x, -radius * h), (cells + radius) * h) / h) + radius
    j = np.minimum(np.floor(pos).astype(np.int64), posterior.size - 2)
    frac = pos - j
    return posterior[j] * (1.0 - frac) + posterior[j + 1] * frac


def _smooth_rows(rows: np.ndarray, radius: int, step: float) -> np.ndarray:
    """The full linear convolution of every row with the Gaussian exp(−(k·step)²/2), k = −radius … radius, by one real
    FFT of SciPy's fast length (what ``scipy.signal.fftconvolve(rows, kernel[None, :], axes=1)`` computes, bit for
    bit on Power's inputs, without its per-call checks and backend dispatch or the import of ``scipy.signal``). The
    kernel's spectrum is made once per (radius, step, length): every estimate of a run has the same σ, so the same
    kernel."""
    from scipy import fft  # on first use, as every SciPy import of the engine (ldp.maths.gaussian.normal_quantile)

    size = rows.shape[1] + 2 * radius
    nfft = fft.next_fast_len(size, real=True)
    spectrum = np.fft.rfft(rows, nfft, axis=1)
    spectrum *= _gaussian_spectrum(radius, step, nfft)
    return np.fft.irfft(spectrum, nfft, axis=1)[:, :size]


@functools.lru_cache(maxsize=64)
def _gaussian_spectrum(radius: int, step: float, nfft: int) -> np.ndarray:
    """``numpy.fft.rfft`` of the kernel of :func:`_smooth_rows` at length ``nfft`` (read-only)."""
    kernel = np.exp(-0.5 * (np.arange(-radius, radius + 1) * step) ** 2)
    spectrum = np.fft.rfft(kernel, nfft)
    spectrum.setflags(write=False)
    return spectrum


def power_ns(estimate: np.ndarray, sigma: float, n: int) -> np.ndarray:
    """PowerNS (§IV-E): Norm-Sub after Power.

    Parameters
    ----------
    estimate : array_like
        The matrix-inversion estimate f̃ (non-empty, 1-D).
    sigma : float
        The noise standard deviation σ (> 0), as for :func:`power`.
    n : int
        The number of users (≥ 1).

    Returns
    -------
    numpy.ndarray
        Norm-Sub of Power's output: a distribution.

    Raises
    ------
    InvalidInput
        As :func:`power` does.

    References
    ----------
    Consistency paper (Wang et al., NDSS'20), §IV-E (PowerNS).
    """
    return norm_sub(power(estimate, sigma, n))


# ------------------------------------------------------------------------------------------ queries
def answer_query(estimator: str | Estimator | type[Estimator], estimate: np.ndarray,
                 subset: Sequence[int] | np.ndarray | slice) -> float:
    """Frequency of a set of values: Σ_{v ∈ subset} f′_v, clipped at 0 for Post-Pos.

    ``subset`` is a list/array of value indices, a boolean mask of length d, or a slice. Post-Pos
    (``clip_queries``) post-processes the answer, not the vector: for a single value it equals
    Base-Pos, for larger sets it is close to Base (§IV-A).

    Parameters
    ----------
    estimator : str, Estimator or Estimator subclass
        The estimator that produced ``estimate`` (by registry name, instance or class); only its ``clip_queries``
        flag matters.
    estimate : array_like
        The estimate f′, a non-empty 1-D array of length d.
    subset : sequence of int, numpy.ndarray or slice
        Value indices in [0, d), a boolean mask of length d, or a slice.

    Returns
    -------
    float
        The answer (clipped at 0 when the estimator clips queries).

    Raises
    ------
    InvalidInput
        For an unknown estimator name, a bad estimate, a mask of the wrong length or indices outside [0, d).

    References
    ----------
    Consistency paper (Wang et al., NDSS'20), §IV-A (Post-Pos).
    """
    if isinstance(estimator, str):
        cls = ESTIMATORS.get(estimator)
    else:
        cls = estimator if isinstance(estimator, type) else type(estimator)
    x = _vector(estimate)
    if isinstance(subset, slice):
        picked = x[subset]
    else:
        idx = np.asarray(subset)
        if idx.dtype == bool:
            if idx.shape != x.shape:
                raise InvalidInput(f"a boolean subset must have length d={x.size}, got shape {idx.shape}")
            picked = x[idx]
        else:
            if idx.size and (not np.issubdtype(idx.dtype, np.integer) or idx.min() < 0 or idx.max() >= x.size):
                raise InvalidInput(f"subset indices must be integers in [0, {x.size})")
            picked = x[idx.astype(np.int64)]
    total = float(picked.sum())
    return max(total, 0.0) if getattr(cls, "clip_queries", False) else total


# ============================================================================ registered estimators
def _sigma(mechanism: Mechanism, n: int) -> float:
    """Eq. (5): standard deviation of f̃ for a value of frequency ≈ 0. Cached per (mechanism, n) — mechanisms are
    immutable and compare by their parameters: every trial of a run asks again for the same σ (Base-Cut and PowerNS
    each, 30-40 µs a time through the variance's validation); a mechanism with a parameter that cannot be hashed is
    computed each time."""
    try:
        return _cached_sigma(mechanism, n)  # hashes the key once; an unhashable one raises before the call
    except TypeError:
        return _sigma_of(mechanism, n)


def _sigma_of(mechanism: Mechanism, n: int) -> float:
    return float(np.sqrt(mechanism.approximate_variance(n)))


_cached_sigma = functools.lru_cache(maxsize=256)(_sigma_of)


@ESTIMATORS.register
class BasePos(PostProcessor):
    """Base-Pos: matrix inversion with negative estimates set to 0 (positively biased; the sum may exceed one).

    Parameters
    ----------
    **params
        None: Base-Pos takes no parameters.

    References
    ----------
    Consistency paper (Wang et al., NDSS'20), §IV-A, Table I; :func:`base_pos`.
    """
    name = "base-pos"
    display_name = "Base-Pos"
    description = "Matrix inversion with negative estimates set to 0 (positively biased; sum may exceed one)"
    paper = CONSISTENCY_PAPER + ", §IV-A (Base-Pos)"
    idempotent = True  # max(max(x, 0), 0) = max(x, 0)

    def _estimate(self, mechanism: Mechanism, aggregate: Aggregate, base: Estimate | None) -> np.ndarray:
        return base_pos(base.values)


@ESTIMATORS.register
class PostPos(PostProcessor):
    """Base for the vector; only query answers are clipped at 0 (``clip_queries``; see :func:`answer_query`).

    Parameters
    ----------
    **params
        None: Post-Pos takes no parameters.

    References
    ----------
    Consistency paper (Wang et al., NDSS'20), §IV-A (Post-Pos), Table I.
    """

    name = "post-pos"
    display_name = "Post-Pos"
    description = "Matrix inversion; a negative query answer (sum over a set of values) is reported as 0"
    paper = CONSISTENCY_PAPER + ", §IV-A (Post-Pos)"
    clip_queries: ClassVar[bool] = True
    idempotent = True  # the identity on the vector

    def _estimate(self, mechanism: Mechanism, aggregate: Aggregate, base: Estimate | None) -> np.ndarray:
        return base.values


@ESTIMATORS.register
class BaseCut(PostProcessor):
    """Base-Cut: matrix inversion with the estimates below T = Φ⁻¹(1 − α/d)·σ (Eq. (7)) set to 0.

    σ is Eq. (5)'s standard deviation at frequency ≈ 0 for the mechanism and n (``approximate_variance``).

    Parameters
    ----------
    alpha : float, default 2.0
        The expected number of false positives among d values of frequency 0 (> 0; RAPPOR's 0.05 cuts too much).

    References
    ----------
    Consistency paper (Wang et al., NDSS'20), §IV-A, Eqs. (5) and (7); :func:`base_cut_threshold`, :func:`base_cut`.
    """
    name = "base-cut"
    display_name = "Base-Cut"
    description = "Matrix inversion with estimates below the significance threshold T = Φ⁻¹(1−α/d)·σ set to 0"
    paper = CONSISTENCY_PAPER + ", §IV-A (Base-Cut, Eq. (7))"
    parameters = (Param("alpha", float, "expected number of false positives among d values of frequency 0 "
                        "(Eq. 7; the paper uses 2, RAPPOR's 0.05 cuts too much)", default=2.0, low=0.0,
                        low_inclusive=False),)
    idempotent = True  # kept values stay ≥ max(T, 0) and zeros stay zero (same T: same mechanism and n)

    def threshold(self, mechanism: Mechanism, n: int) -> float:
        return base_cut_threshold(mechanism.d, _sigma(mechanism, n), self.params["alpha"])

    def _estimate(self, mechanism: Mechanism, aggregate: Aggregate, base: Estimate | None) -> np.ndarray:
        return base_cut(base.values, self.threshold(mechanism, aggregate.n))


@ESTIMATORS.register
class BaseCutTopK(PostProcessor):
    """Base-Cut when the number k of values of interest is known in advance (§V, top-k queries): "if the desired k
    is known in advance, one can set T to be the kth highest estimated value" — every estimate below the k-th
    highest becomes 0 (ties with it are kept). Choice: T = max(the k-th highest, 0), so that, like Base-Cut, no
    negative estimate survives when fewer than k estimates are positive (which also makes it idempotent). The paper
    finds Base-Cut's fixed T costs the top-k MSE as k grows; this threshold moves with k."""

    name = "base-cut-k"
    display_name = "Base-Cut (top k)"
    description = "Matrix inversion with every estimate below the k-th highest set to 0 (k known in advance)"
    paper = CONSISTENCY_PAPER + ", §V (top-k queries: T = the k-th highest estimate)"
    parameters = (Param("k", int, "the number of values of interest, known in advance", default=10, low=1),)
    idempotent = True  # the k-th highest estimate is unchanged, so the same values are kept

    def _estimate(self, mechanism: Mechanism, aggregate: Aggregate, base: Estimate | None) -> np.ndarray:
        x = np.asarray(base.values, dtype=np.float64)
        k = min(int(self.params["k"]), x.shape[-1])
        kth = np.partition(x, x.shape[-1] - k, axis=-1)[..., x.shape[-1] - k, None]
        return np.where(x >= np.maximum(kth, 0.0), x, 0.0)  # T ≥ 0, as Base-Cut's: no negative estimate survives


@ESTIMATORS.register
class Norm(PostProcessor):
    """Norm: add the same δ = (1 − Σ f̃)/d to every estimate so they sum to one (unbiased; may be negative).

    Parameters
    ----------
    **params
        None: Norm takes no parameters.

    References
    ----------
    Consistency paper (Wang et al., NDSS'20), §IV-B, Lemma 3; :func:`norm`.
    """
    name = "norm"
    display_name = "Norm"
    description = "Add the same δ to every estimate so they sum to one (unbiased; may be negative)"
    paper = CONSISTENCY_PAPER + ", §IV-B (Norm, Lemma 3)"
    idempotent = True  # the output sums to one, so the second δ = (1 − Σ)/d is 0

    def _estimate(self, mechanism: Mechanism, aggregate: Aggregate, base: Estimate | None) -> np.ndarray:
        return norm(base.values)


@ESTIMATORS.register
class NormMul(PostProcessor):
    """Norm-Mul: clip negatives to 0, then scale so the estimates sum to one.

    Parameters
    ----------
    **params
        None: Norm-Mul takes no parameters.

    References
    ----------
    Consistency paper (Wang et al., NDSS'20), §IV-B; :func:`norm_mul`. It is the IBU paper's MI baseline (§2.3).
    """
    name = "norm-mul"
    display_name = "Norm-Mul"
    description = "Clip negatives to 0, then scale so the estimates sum to one"
    paper = CONSISTENCY_PAPER + ", §IV-B (Norm-Mul)"
    consistent = True
    idempotent = True  # a distribution is rescaled by γ = 1

    def _estimate(self, mechanism: Mechanism, aggregate: Aggregate, base: Estimate | None) -> np.ndarray:
        return norm_mul(base.values)


@ESTIMATORS.register
class NormCut(PostProcessor):
    """Norm-Cut: clip negatives and the smallest positives to 0 so the estimates sum to at most one.

    Parameters
    ----------
    **params
        None: Norm-Cut takes no parameters.

    References
    ----------
    Consistency paper (Wang et al., NDSS'20), §IV-B; :func:`norm_cut` (with the choice made at θ).
    """
    name = "norm-cut"
    display_name = "Norm-Cut"
    description = "Clip negatives and the smallest positives to 0 so the estimates sum to at most one"
    paper = CONSISTENCY_PAPER + ", §IV-B (Norm-Cut)"
    idempotent = True  # the output is ≥ 0 and sums to at most one, which Norm-Cut leaves as is

    def _estimate(self, mechanism: Mechanism, aggregate: Aggregate, base: Estimate | None) -> np.ndarray:
        return norm_cut(base.values)


@ESTIMATORS.register
class MLEApx(PostProcessor):
    """MLE-Apx: the approximate (Gaussian) maximum-likelihood consistent estimate, close to Norm-Sub.

    Needs a pure mechanism (its p* and q*).

    Parameters
    ----------
    **params
        None: MLE-Apx takes no parameters.

    References
    ----------
    Consistency paper (Wang et al., NDSS'20), §IV-D, Eq. (10), Appendix B; :func:`mle_apx`.
    """
    name = "mle-apx"
    display_name = "MLE-Apx"
    description = "Approximate (Gaussian) maximum likelihood under consistency: close to Norm-Sub"
    paper = CONSISTENCY_PAPER + ", §IV-D (MLE-Apx, Eq. (10), Appendix B)"
    requires_pure = True
    consistent = True
    idempotent = True  # a distribution is its own Gaussian-approximation MLE (objective 0): θ = 0, γ = 1

    def _estimate(self, mechanism: Mechanism, aggregate: Aggregate, base: Estimate | None) -> np.ndarray:
        return mle_apx(base.values, mechanism.p_star, mechanism.q_star)


@ESTIMATORS.register
class Power(PostProcessor):
    """Power: the posterior mean under a power-law prior fitted to the estimate (non-negative; the sum is not one).

    Parameters
    ----------
    **params
        None: Power takes no parameters (α is fitted, σ is Eq. (5)'s).

    References
    ----------
    Consistency paper (Wang et al., NDSS'20), §IV-E, Eq. (11); Jia & Gong, INFOCOM 2019; :func:`power`.
    """
    name = "power"
    display_name = "Power"
    description = "Posterior mean under a power-law prior fitted to the estimate (non-negative; sum not one)"
    paper = CONSISTENCY_PAPER + ", §IV-E (Power, Eq. (11)); Jia & Gong, INFOCOM 2019"

    def _estimate(self, mechanism: Mechanism, aggregate: Aggregate, base: Estimate | None) -> np.ndarray:
        return power(base.values, _sigma(mechanism, aggregate.n), aggregate.n)


@ESTIMATORS.register
class PowerNS(PostProcessor):
    """PowerNS: Power followed by Norm-Sub, a consistent estimate close to a power law.

    Parameters
    ----------
    **params
        None: PowerNS takes no parameters.

    References
    ----------
    Consistency paper (Wang et al., NDSS'20), §IV-E; :func:`power_ns`.
    """
    name = "power-ns"
    display_name = "PowerNS"
    description = "Power followed by Norm-Sub: a consistent estimate close to a power law"
    paper = CONSISTENCY_PAPER + ", §IV-E (PowerNS)"
    consistent = True

    def _estimate(self, mechanism: Mechanism, aggregate: Aggregate, base: Estimate | None) -> np.ndarray:
        return power_ns(base.values, _sigma(mechanism, aggregate.n), aggregate.n)
