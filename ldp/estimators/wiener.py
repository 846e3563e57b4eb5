"""Wiener deconvolution post-processors for pure LDP frequency oracles (convolution framework).

Paper: Fang, Chen, Liu, Gao — "Locally Differentially Private Frequency Estimation Based on
Convolution Framework" (equation numbers below are the paper's).

Model (§III, Theorem 1, Eq. (7)): for a pure mechanism the normalised support counts g = C/n are a
circular convolution of the true frequencies with the transfer vector h = [p*, q*, …, q*] plus noise,
g = f ∗ h + n, i.e. G = F·H + N in the Fourier domain (Eq. (15)), with H_0 = p* + (d−1)q* and
H_k = p* − q* for k ≠ 0. Matrix inversion (Eq. (1)) is the inverse filter G/H (up to the k = 0 term);
the Wiener filter W = H*/(|H|² + P_n/P_f) (Eq. (16)) trades deconvolution against noise.

Pipeline of every Wiener estimator here (exactly):

1. f̂ = mechanism.estimate(counts, n) — the unbiased matrix-inversion (MI) estimate, Eq. (1);
2. g = q* + (p* − q*)·f̂ — Eq. (1) inverted (Eq. (10)); this is C/n exactly;
3. G = rfft(g); H as above (the FFT of h, computed in closed form);
4. P̃_n from Theorem 3 (Eqs. (19)–(20)) with P_0 = 0 when every report supports a fixed number of
   values (the paper's KRR exception, see :func:`noise_power_spectrum`);
5. P̃_f from the chosen algorithm (DW: |G/H|²; IIW: Algorithm 1; IIW-G: Algorithm 1 started at |G|²);
6. F̃ = W·G (Eq. (17)), f̃ = irfft(F̃) (Eq. (18)).

Outputs are not clipped or renormalised (``consistent = False``): combine with Norm-Sub if a
distribution is needed (the paper, §V.A, notes the consistency post-processors can be stacked on top).

Also here, for §V.E (distinguishing true counts from noise): :func:`threshold_detection` (true and
false positives at a threshold) and :func:`significance_threshold` (Eq. (6)).
"""

from __future__ import annotations

import math
from abc import abstractmethod
from typing import NamedTuple

import numpy as np

from ldp.core.errors import InvalidInput
from ldp.core.params import Param
from ldp.core.registry import ESTIMATORS
from ldp.core.results import Aggregate, Estimate
from ldp.estimators.base import PostProcessor
from ldp.maths.gaussian import normal_quantile
from ldp.mechanisms.frequency.base import FrequencyOracle as Mechanism

__all__ = [
    "SMOOTHNESS_WARN", "Detection", "Smoothness", "amrp", "direct_wiener", "gaussian_smooth", "gaussian_wiener",
    "has_fixed_support", "iterative_wiener",
    "mechanism_noise_power_spectrum", "noise_power_spectrum", "random_permutations", "significance_threshold",
    "smooth_121", "smoothness", "threshold_detection", "transfer_spectrum", "wiener_filter",
]

WIENER_PAPER = ("Fang, Chen, Liu, Gao — Locally Differentially Private Frequency Estimation Based on "
                "Convolution Framework")

#: Mechanism families whose every report supports the same number of values (GRR and L-GRR: one,
#: SS: ω), so Σ_v C(v) is deterministic, N_0 = 0 and the noise spectrum has P_0 = 0.


# ---------------------------------------------------------------------------------------- spectra
def transfer_spectrum(p_star: float, q_star: float, d: int) -> np.ndarray:
    """rfft of the transfer vector h = [p*, q*, …, q*] (Theorem 1), in closed form (length d//2 + 1).

    H_0 = p* + (d − 1) q* and H_k = p* − q* for k ≠ 0; H is real and positive for a pure mechanism.

    Parameters
    ----------
    p_star, q_star : float
        The pure mechanism's support probabilities p* > q*.
    d : int
        The domain size.

    Returns
    -------
    numpy.ndarray
        H_0 … H_{d//2} (float64).

    References
    ----------
    Fang, Chen, Liu, Gao, convolution framework paper, Theorem 1 and Eq. (15).
    """
    h = np.full(d // 2 + 1, float(p_star) - float(q_star))
    h[0] = float(p_star) + (d - 1) * float(q_star)
    return h


def noise_power_spectrum(p_star: float, q_star: float, n: int, d: int, *, zero_dc: bool = False) -> np.ndarray:
    """Expected power spectrum E|FFT(n)|² of the additive noise n = g − f ∗ h (Theorem 3), length d.

    Eq. (20): every entry equals Σ_i σ_i² = [d q*(1 − q*) + (p* − q*)(1 − p* − q*)] / n, the sum of the
    per-value variances of Eq. (9) with Σ f = 1 (independent noise, so the spectrum is flat, Eq. (19)).

    ``zero_dc=True`` sets P_0 = 0: the paper's exception for KRR (GRR), where every report supports
    exactly one value, so Σ_i g_i = 1 is deterministic and N_0 = Σ_i n_i = 0. The same holds for any
    mechanism whose reports support a fixed number of values (SS). For k ≠ 0 such mechanisms have
    slightly negatively correlated counts, and the exact value is a little below Eq. (20) (for GRR it
    is (1 − (p* − q*)²)/n, about 0.1 % lower at d = 1024); like the paper we keep Eq. (20).

    The spectrum of the noise of the MI estimate, f̂ − f = n/(p* − q*) (Eq. (11)), is this divided by
    (p* − q*)².

    Parameters
    ----------
    p_star, q_star : float
        The pure mechanism's support probabilities.
    n : int
        The number of users.
    d : int
        The domain size.
    zero_dc : bool, default False
        Set P_0 = 0 (mechanisms whose reports support a fixed number of values).

    Returns
    -------
    numpy.ndarray
        P_n, length d, in (normalised count)² units.

    References
    ----------
    Convolution framework paper, Theorem 3, Eqs. (9), (19), (20).
    """
    total = (d * q_star * (1.0 - q_star) + (p_star - q_star) * (1.0 - p_star - q_star)) / n
    out = np.full(d, total)
    if zero_dc:
        out[0] = 0.0
    return out


def has_fixed_support(mechanism: Mechanism) -> bool:
    """Whether Σ_v C(v) is deterministic (each report supports a fixed number of values): P_0 = 0.

    Parameters
    ----------
    mechanism : FrequencyOracle
        The frequency oracle (its ``support_size()`` is not None for GRR, L-GRR and SS).

    Returns
    -------
    bool
        True when every report supports the same number of values.
    """
    return mechanism.support_size() is not None


def mechanism_noise_power_spectrum(mechanism: Mechanism, n: int) -> np.ndarray:
    """Theorem 3 for ``mechanism`` and n users (length d), with P_0 = 0 for GRR-like mechanisms.

    Parameters
    ----------
    mechanism : FrequencyOracle
        A pure frequency oracle (its ``p_star``, ``q_star``, ``d``).
    n : int
        The number of users.

    Returns
    -------
    numpy.ndarray
        The noise power spectrum (see :func:`noise_power_spectrum`).

    References
    ----------
    Convolution framework paper, Theorem 3, Eq. (20).
    """
    return noise_power_spectrum(mechanism.p_star, mechanism.q_star, n, mechanism.d,
                                zero_dc=has_fixed_support(mechanism))


# ---------------------------------------------------------------------------------------- Wiener core
def wiener_filter(h: np.ndarray, p_noise: np.ndarray, p_signal: np.ndarray) -> np.ndarray:
    """Eq. (16), W = H*/(|H|² + P_n/P_f), for real H, evaluated as H P_f / (H² P_f + P_n).

    The second form needs no division by P_f: where P_f = 0 (and P_n > 0) W = 0; where both vanish
    (no signal and no noise) W is the inverse filter 1/H.

    Parameters
    ----------
    h : numpy.ndarray
        The real, positive transfer spectrum H.
    p_noise : numpy.ndarray
        The noise power spectrum P_n (broadcastable with ``h``).
    p_signal : numpy.ndarray
        The signal power spectrum estimate P̃_f (broadcastable; may carry leading batch axes).

    Returns
    -------
    numpy.ndarray
        The real filter W, of the broadcast shape.

    References
    ----------
    Convolution framework paper, Eq. (16).
    """
    den = h * h * p_signal + p_noise
    out = np.broadcast_to(1.0 / h, den.shape).copy()
    np.divide(h * p_signal, den, out=out, where=den > 0)
    return out


def _observation(mi_estimate: np.ndarray, p_star: float, q_star: float) -> np.ndarray:
    """g = q* + (p* − q*) f̂ (Eq. (1) inverted): the normalised support counts C/n."""
    return q_star + (p_star - q_star) * np.asarray(mi_estimate, dtype=np.float64)


def _deconvolve(g: np.ndarray, p_star: float, q_star: float, n: int, *, iterations: int, init: str,
                zero_dc: bool, signal: np.ndarray | None = None) -> np.ndarray:
    """Algorithm 1 on the last axis of g (any leading batch shape). ``iterations`` counts Wiener
    filterings: 1 is DW (F̃(0) of Algorithm 1), each further one is one pass of its while-loop.

    H is real and positive, so W is real and |F̃|² = W²|G|²; with D = |H|² P̃_f + P_n the correction
    P_n/(|H|² + P_n/P̃_f) = P_n P̃_f / D = P_n W / H. The loop therefore runs on real arrays only, and
    the complex product F̃ = W G is formed once at the end.
    """
    if init not in ("g/h", "g", "signal"):
        raise InvalidInput(f"init must be 'g/h' (IIW), 'g' (IIW-G) or 'signal', got {init!r}")
    if iterations < 1:
        raise InvalidInput(f"iterations must be at least 1, got {iterations}")
    d = g.shape[-1]
    h = transfer_spectrum(p_star, q_star, d)
    p_n = noise_power_spectrum(p_star, q_star, n, d, zero_dc=zero_dc)[: d // 2 + 1]
    big_g = np.fft.rfft(g, axis=-1)
    g2 = big_g.real ** 2 + big_g.imag ** 2
    # P̃_f(0): |G/H|² (= |FFT of the MI estimate|² for k ≠ 0; IIW, DW), |G|² (IIW-G), or the power spectrum of
    # a given estimate of the signal (Appendix C: the Gaussian filter's output, GF-DW).
    if init == "signal":
        s = np.fft.rfft(np.asarray(signal, dtype=np.float64), axis=-1)
        p_f = s.real ** 2 + s.imag ** 2
    else:
        p_f = g2 / (h * h) if init == "g/h" else g2
    w = wiener_filter(h, p_n, p_f)
    for _ in range(iterations - 1):
        p_f = w * w * g2 + p_n * w / h  # |F̃(i−1)|² + correction (Algorithm 1)
        w = wiener_filter(h, p_n, p_f)
    return np.fft.irfft(w * big_g, n=d, axis=-1)


def _check_inputs(mi_estimate: np.ndarray, p_star: float, q_star: float, n: int) -> np.ndarray:
    x = np.asarray(mi_estimate, dtype=np.float64)
    if x.ndim < 1 or x.shape[-1] < 2:
        raise InvalidInput(f"the estimate must have a last axis of length d ≥ 2, got shape {x.shape}")
    if not (0.0 <= q_star < p_star <= 1.0):
        raise InvalidInput(f"need 0 ≤ q* < p* ≤ 1, got p*={p_star}, q*={q_star}")
    if n < 1:
        raise InvalidInput(f"n must be a positive integer, got {n}")
    return x


def direct_wiener(mi_estimate: np.ndarray, p_star: float, q_star: float, n: int, *,
                  zero_dc: bool = False) -> np.ndarray:
    """Direct Wiener (DW, §IV-C): one Wiener filtering with P̃_f = |G/H|² (Eq. (21) applied to the MI estimate).

    Works on the last axis (a batch of estimates is filtered independently).

    Parameters
    ----------
    mi_estimate : array_like
        The matrix-inversion estimate f̂, shape (..., d) with d ≥ 2.
    p_star, q_star : float
        The pure mechanism's support probabilities, 0 ≤ q* < p* ≤ 1.
    n : int
        The number of users (≥ 1).
    zero_dc : bool, default False
        Use P_0 = 0 in the noise spectrum (see :func:`noise_power_spectrum`).

    Returns
    -------
    numpy.ndarray
        The filtered estimate, same shape (not clipped, not renormalised).

    Raises
    ------
    InvalidInput
        For d < 2, p*/q* outside 0 ≤ q* < p* ≤ 1, or n < 1.

    References
    ----------
    Convolution framework paper, §IV-C, Eqs. (16)–(18), (21), Theorem 3.
    """
    x = _check_inputs(mi_estimate, p_star, q_star, n)
    return _deconvolve(_observation(x, p_star, q_star), p_star, q_star, n, iterations=1, init="g/h",
                       zero_dc=zero_dc)


def iterative_wiener(mi_estimate: np.ndarray, p_star: float, q_star: float, n: int, *, iterations: int = 30,
                     init: str = "g/h", zero_dc: bool = False) -> np.ndarray:
    """Improved Iterative Wiener (IIW, Algorithm 1) with the correction factor; fixed points Eq. (23).

    ``init="g/h"`` starts from P̃_f(0) = |G/H|² (IIW), ``init="g"`` from |G|² (IIW-G). ``iterations``
    counts Wiener filterings including the first (which is DW, as in the paper's Fig. 4), so
    ``iterations=1`` returns :func:`direct_wiener`.

    Parameters
    ----------
    mi_estimate, p_star, q_star, n, zero_dc
        As for :func:`direct_wiener`.
    iterations : int, default 30
        Wiener filterings, ≥ 1 (the paper stops IIW after 30).
    init : {"g/h", "g"}, default "g/h"
        The starting signal power: |G/H|² (IIW) or |G|² (IIW-G).

    Returns
    -------
    numpy.ndarray
        The filtered estimate, same shape as ``mi_estimate``.

    Raises
    ------
    InvalidInput
        For bad inputs (as :func:`direct_wiener`), an unknown ``init`` or ``iterations`` < 1.

    References
    ----------
    Convolution framework paper, §IV-C, Algorithm 1, Eqs. (22)–(24).
    """
    x = _check_inputs(mi_estimate, p_star, q_star, n)
    return _deconvolve(_observation(x, p_star, q_star), p_star, q_star, n, iterations=int(iterations), init=init,
                       zero_dc=zero_dc)


def random_permutations(d: int, count: int, seed: int) -> np.ndarray:
    """``count`` random permutations of range(d) (rows), a deterministic function of ``seed``.

    Parameters
    ----------
    d : int
        The domain size.
    count : int
        The number of permutations.
    seed : int
        The seed (non-negative).

    Returns
    -------
    numpy.ndarray
        Shape (count, d), each row a permutation of 0 … d − 1.
    """
    rng = np.random.default_rng(np.random.SeedSequence(int(seed)))
    return np.argsort(rng.random((count, d)), axis=1, kind="stable")


def amrp(mi_estimate: np.ndarray, p_star: float, q_star: float, n: int, *, permutations: int = 100, seed: int = 0,
         iterations: int = 1, init: str = "g/h", zero_dc: bool = False) -> np.ndarray:
    """Average of Multiple Random Permutations (AMRP, §IV-C).

    Permute the observation g, Wiener-filter it, undo the permutation, and average over ``permutations`` random
    orders (drawn from ``seed``).

    The model survives permutation: the circulant M = (p* − q*)I + q*·11ᵀ of Theorem 1 commutes with
    every permutation, so π(g) = π(f) ∗ h + π(n), and Theorem 3's P_n is permutation invariant. The
    inner filter is DW by default (the paper's DW-AMRP); ``iterations``/``init`` select IIW or IIW-G.
    All permutations are filtered in one batched rfft. ``mi_estimate`` must be one vector (length d).

    Parameters
    ----------
    mi_estimate : array_like
        One matrix-inversion estimate, shape (d,), d ≥ 2.
    p_star, q_star, n, zero_dc
        As for :func:`direct_wiener`.
    permutations : int, default 100
        The number of random orders averaged (≥ 1).
    seed : int, default 0
        Seed of the permutations (:func:`random_permutations`).
    iterations : int, default 1
        Wiener filterings per order (1: DW).
    init : {"g/h", "g"}, default "g/h"
        The inner filter's starting signal power, as for :func:`iterative_wiener`.

    Returns
    -------
    numpy.ndarray
        The averaged estimate, shape (d,).

    Raises
    ------
    InvalidInput
        For bad inputs (as :func:`direct_wiener`), an estimate that is not one vector, or ``permutations`` < 1.

    References
    ----------
    Convolution framework paper, §IV-C (AMRP), Theorems 1 and 3.
    """
    x = _check_inputs(mi_estimate, p_star, q_star, n)
    if x.ndim != 1:
        raise InvalidInput(f"amrp filters one estimate (a vector of length d), got shape {x.shape}")
    if permutations < 1:
        raise InvalidInput(f"permutations must be at least 1, got {permutations}")
    d = x.shape[0]
    perms = random_permutations(d, int(permutations), seed)
    g = _observation(x, p_star, q_star)[perms]  # row r is g permuted by perms[r]
    filtered = _deconvolve(g, p_star, q_star, n, iterations=int(iterations), init=init, zero_dc=zero_dc)
    restored = np.empty_like(filtered)
    np.put_along_axis(restored, perms, filtered, axis=1)  # restored[r, perms[r, j]] = filtered[r, j]
    return restored.mean(axis=0)


def gaussian_smooth(estimate: np.ndarray, sigma: float, boundary: str = "edge") -> np.ndarray:
    """The smoothing baseline with a larger width (Appendix C): the estimate convolved with a Gaussian.

    The Gaussian has standard deviation ``sigma`` values (GF1: σ = 1, GF3: σ = 3), by SciPy's ``gaussian_filter1d``
    (truncated at 4σ, normalised, so the sum is preserved). ``boundary`` as for :func:`smooth_121` ("edge" repeats the
    end values: SciPy's mode "nearest"; "wrap" is circular). The paper does not say how the ends are treated; we choose
    the same default as the (1, 2, 1)/4 baseline. Works on the last axis.

    Parameters
    ----------
    estimate : array_like
        The estimate, shape (..., d) with d ≥ 2.
    sigma : float
        The Gaussian's standard deviation, in values (> 0).
    boundary : {"edge", "wrap"}, default "edge"
        How the ends of the domain are treated.

    Returns
    -------
    numpy.ndarray
        The smoothed estimate, same shape.

    Raises
    ------
    InvalidInput
        For d < 2, an unknown boundary or a σ that is not a positive number.

    References
    ----------
    Convolution framework paper, Appendix C (GF1, GF3).
    """
    from scipy.ndimage import gaussian_filter1d

    x = np.asarray(estimate, dtype=np.float64)
    if x.ndim < 1 or x.shape[-1] < 2:
        raise InvalidInput(f"the estimate must have a last axis of length d ≥ 2, got shape {x.shape}")
    if boundary not in ("edge", "wrap"):
        raise InvalidInput(f"boundary must be 'edge' or 'wrap', got {boundary!r}")
    if not (math.isfinite(sigma) and sigma > 0):
        raise InvalidInput(f"sigma must be a positive number of values, got {sigma!r}")
    return gaussian_filter1d(x, float(sigma), axis=-1, mode="nearest" if boundary == "edge" else "wrap")


def gaussian_wiener(mi_estimate: np.ndarray, p_star: float, q_star: float, n: int, *, sigma: float = 3.0,
                    boundary: str = "edge", zero_dc: bool = False) -> np.ndarray:
    """GF-DW (Appendix C): one Wiener filtering whose signal power P̃_f comes from the Gaussian filter's output.

    P̃_f is the power spectrum of :func:`gaussian_smooth`'s output instead of |G/H|² — "using the output of the
    Gaussian filter as the initial estimate can significantly improve the denoising ability of Wiener deconvolution for
    smooth datasets" (GF3-DW, σ = 3, the paper's best method on the smooth taxi data). Last axis.

    Parameters
    ----------
    mi_estimate, p_star, q_star, n, zero_dc
        As for :func:`direct_wiener`.
    sigma : float, default 3.0
        The Gaussian's standard deviation, in values (> 0).
    boundary : {"edge", "wrap"}, default "edge"
        How the Gaussian filter treats the ends of the domain.

    Returns
    -------
    numpy.ndarray
        The GF-DW estimate, same shape as ``mi_estimate`` (not clipped).

    Raises
    ------
    InvalidInput
        For bad inputs (as :func:`direct_wiener` and :func:`gaussian_smooth`).

    References
    ----------
    Convolution framework paper, Appendix C (GF1-DW, GF3-DW), Eq. (16).
    """
    x = _check_inputs(mi_estimate, p_star, q_star, n)
    smoothed = gaussian_smooth(x, sigma, boundary)
    return _deconvolve(_observation(x, p_star, q_star), p_star, q_star, n, iterations=1, init="signal",
                       zero_dc=zero_dc, signal=smoothed)


def smooth_121(estimate: np.ndarray, boundary: str = "edge") -> np.ndarray:
    """The smoothing baseline of §V.A, Eq. (25): f̃_i = ½ f̂_i + ¼ (f̂_{i−1} + f̂_{i+1}).

    The paper does not say what happens at the two ends. ``boundary="edge"`` (default) repeats the end
    values (f̂_{−1} = f̂_0, f̂_d = f̂_{d−1}): no wrap-around between the smallest and the largest value of an
    ordinal domain, and the sum is preserved. ``boundary="wrap"`` is circular (the convolution framework's
    own boundary), which also preserves the sum. Works on the last axis.

    Parameters
    ----------
    estimate : array_like
        The estimate, shape (..., d) with d ≥ 2.
    boundary : {"edge", "wrap"}, default "edge"
        How the two ends are treated.

    Returns
    -------
    numpy.ndarray
        f̃, same shape as ``estimate`` (its sum preserved).

    Raises
    ------
    InvalidInput
        For d < 2 or an unknown boundary.

    References
    ----------
    Convolution framework paper, §V.A, Eq. (25) (Nychka 1990, via the EMS paper).
    """
    x = np.asarray(estimate, dtype=np.float64)
    if x.ndim < 1 or x.shape[-1] < 2:
        raise InvalidInput(f"the estimate must have a last axis of length d ≥ 2, got shape {x.shape}")
    if boundary not in ("edge", "wrap"):
        raise InvalidInput(f"boundary must be 'edge' or 'wrap', got {boundary!r}")
    pad = [(0, 0)] * (x.ndim - 1) + [(1, 1)]
    y = np.pad(x, pad, mode=boundary)
    return 0.5 * y[..., 1:-1] + 0.25 * (y[..., :-2] + y[..., 2:])


# ---------------------------------------------------------------------------------------- §V.E helpers
class Smoothness(NamedTuple):
    """How smooth the frequencies look along the domain's order, judged from the MI estimate alone.

    Parameters
    ----------
    score : float or None
        1 − R̂ in [0, 1] (1: smooth; about 0: like a random order); None when noise hides the signal.
    signal_share : float
        The share of the MI estimate's spread that is signal rather than noise, in [0, 1].
    """

    score: float | None  #: 1 − R̂ (1: smooth; about 0: like a random order); None when noise hides the signal
    signal_share: float  #: share of the MI estimate's spread that is signal rather than noise, in [0, 1]


def smoothness(mi_estimate: np.ndarray, noise_variance: float) -> Smoothness:
    """A diagnostic for the order-assuming estimators: do neighbouring values have similar frequencies?

    The Wiener family and (1,2,1) smoothing assume they do (convolution paper §V: "smooth" Taxi vs "non-smooth"
    RP-Taxi/Kosarak).

    With f̂ = f + e and independent noise of variance σ² per value (Eq. (5) of the consistency paper, Var* of the
    convolution paper), E Σ(f̂ᵢ₊₁ − f̂ᵢ)² = Σ(Δf)² + 2(d − 1)σ² and E Σ(f̂ᵢ − mean)² = Σ(fᵢ − 1/d)² + (d − 1)σ². The
    noise-corrected roughness R̂ = [Σ(Δf̂)² − 2(d − 1)σ²] / (2 [Σ(f̂ − mean)² − (d − 1)σ²]) is about 0 for a smooth
    histogram and about 1 when the values are in random order (then E(Δf)² = 2 Var f); the score is 1 − R̂ clipped
    to [0, 1]. Uses only the published estimate, so it is a fair diagnostic on real data. The noise part of the
    spread, Σe² ≈ σ² χ²_{d−1}, has standard deviation √(2(d − 1))·σ²; when the corrected spread is below three of
    those, the noise hides the signal and the score is None.

    Parameters
    ----------
    mi_estimate : array_like
        The matrix-inversion estimate f̂ (finite; fewer than 3 values give no score).
    noise_variance : float
        σ², the per-value variance of f̂ (≥ 0; e.g. ``mechanism.approximate_variance(n)``).

    Returns
    -------
    Smoothness
        The score (or None) and the signal share.

    Raises
    ------
    InvalidInput
        For a non-finite estimate or a negative or non-finite noise variance.

    References
    ----------
    Convolution framework paper, §V; consistency paper (NDSS'20), Eq. (5).
    """
    f = np.asarray(mi_estimate, dtype=np.float64)
    d = f.size
    if not np.all(np.isfinite(f)) or not np.isfinite(noise_variance) or noise_variance < 0:
        raise InvalidInput("smoothness needs a finite estimate and a non-negative noise variance")
    if d < 3:  # two values have one neighbour pair: no order to judge
        return Smoothness(None, 0.0)
    spread = float(np.sum((f - f.mean()) ** 2))
    signal = spread - (d - 1) * noise_variance
    share = 0.0 if spread <= 0 else float(np.clip(signal / spread, 0.0, 1.0))
    if signal <= 3.0 * math.sqrt(2.0 * (d - 1)) * noise_variance or signal <= 0:
        return Smoothness(None, share)
    rough = (float(np.sum(np.diff(f) ** 2)) - 2 * (d - 1) * noise_variance) / (2 * signal)
    return Smoothness(float(np.clip(1.0 - rough, 0.0, 1.0)), share)


#: Below this smoothness score the order-assuming estimators warn (halfway between smooth and random order).
SMOOTHNESS_WARN = 0.5


def _smoothness_estimate(name: str, values: np.ndarray, mechanism: Mechanism, base: Estimate, n: int,
                         extra: tuple[str, ...] = (), diagnostics: dict | None = None, *, warn: bool = True,
                         ) -> Estimate:
    """An estimate with the smoothness diagnostic of its MI base (and, with ``warn``, a warning when low)."""
    sm = smoothness(base.values, float(mechanism.approximate_variance(n)))
    warnings = list(base.warnings) + list(extra)
    if warn and sm.score is not None and sm.score < SMOOTHNESS_WARN:
        warnings.append(f"the data look rough along the domain's order (smoothness {sm.score:.2f} on a 0–1 scale, "
                        "0 = random order): this estimator assumes neighbouring values have similar frequencies "
                        "and can be worse than MI here (convolution paper §V); prefer MI/Norm-Sub or DW-AMRP")
    return Estimate(np.asarray(values, dtype=np.float64), name, warnings=tuple(warnings),
                    diagnostics={"smoothness": sm.score, "signal_share": sm.signal_share, **(diagnostics or {})})


class Detection(NamedTuple):
    """True and false positives at one or more thresholds (arrays broadcast like the inputs).

    Parameters
    ----------
    true_positives : numpy.ndarray or int
        Values truly above the threshold whose estimate is above it.
    false_positives : numpy.ndarray or int
        Values not truly above the threshold whose estimate is above it.
    """

    true_positives: np.ndarray | int
    false_positives: np.ndarray | int


def threshold_detection(estimate: np.ndarray, true: np.ndarray, threshold: float | np.ndarray) -> Detection:
    """§V.E: true and false positives of the values whose estimate is above a threshold.

    A *true (false) positive* is a value whose true frequency is above (not above) the threshold
    and whose estimate is above it; "above" is strict, so a value exactly at the threshold is negative.

    ``estimate`` has shape (..., d) (e.g. one row per trial), ``true`` shape (d,) or broadcastable;
    ``threshold`` is a scalar or a 1-D array (a sweep, as in Fig. 9), in the same unit as the inputs
    (frequencies, or counts c = n f as in the paper).

    Parameters
    ----------
    estimate : array_like
        The estimates, shape (..., d).
    true : array_like
        The true frequencies, broadcastable to ``estimate``.
    threshold : float or array_like
        A scalar or a 1-D sweep of thresholds.

    Returns
    -------
    Detection
        Counts of shape (...) for a scalar threshold (ints for a single estimate) and (..., len(threshold)) for an
        array.

    Raises
    ------
    InvalidInput
        If ``threshold`` has more than one dimension.

    References
    ----------
    Convolution framework paper, §V.E, Fig. 9.
    """
    est = np.asarray(estimate, dtype=np.float64)
    tru = np.broadcast_to(np.asarray(true, dtype=np.float64), est.shape)
    thr = np.asarray(threshold, dtype=np.float64)
    if thr.ndim > 1:
        raise InvalidInput(f"threshold must be a scalar or a 1-D array, got shape {thr.shape}")
    if thr.ndim == 1:
        est, tru = est[..., None, :], tru[..., None, :]
        thr = thr[:, None]
    positive = est > thr
    actual = tru > thr
    tp = np.count_nonzero(positive & actual, axis=-1)
    fp = np.count_nonzero(positive & ~actual, axis=-1)
    if tp.ndim == 0:
        return Detection(int(tp), int(fp))
    return Detection(tp, fp)


def significance_threshold(mechanism: Mechanism, n: int, alpha: float = 0.05, *, bonferroni: bool = True) -> float:
    """Significance threshold of Eq. (6), ST = Φ⁻¹(1 − α/d)·√Var*, as a frequency (multiply by n for counts).

    Var* = q*(1−q*)/(n(p*−q*)²) (Eq. (3)). ``bonferroni=False`` uses Φ⁻¹(1 − α) instead: that is what reproduces
    the paper's §V.E numbers (n·ST_OUE = 763 and n·ST_KRR = 1676 for n = 2,834,264, d = 1000, ε = 4, α = 0.05); with
    α/d they would be 1,806 and 3,965.

    Parameters
    ----------
    mechanism : FrequencyOracle
        A pure frequency oracle (``p_star``, ``q_star``, ``d``).
    n : int
        The number of users.
    alpha : float, default 0.05
        The significance level, in (0, 1).
    bonferroni : bool, default True
        Divide α by d (Eq. (6)); False reproduces the paper's printed numbers.

    Returns
    -------
    float
        The threshold, as a frequency.

    Raises
    ------
    InvalidInput
        If α is not in (0, 1).

    References
    ----------
    Convolution framework paper, Eqs. (3) and (6), §V.E.
    """
    if not 0.0 < alpha < 1.0:
        raise InvalidInput(f"alpha must lie in (0, 1), got {alpha}")
    p, q = mechanism.p_star, mechanism.q_star
    var_star = q * (1.0 - q) / (n * (p - q) ** 2)
    tail = alpha / mechanism.d if bonferroni else alpha
    return float(-normal_quantile(tail) * np.sqrt(var_star))


# ---------------------------------------------------------------------------------------- estimators
ITERATIONS = Param("iterations", int, "Wiener filterings (1 = DW); the paper stops IIW after 30", default=30,
                   low=1, high=10_000)


class _OrderedPostProcessor(PostProcessor):
    """A post-processor whose result depends on the domain's order (``_filter`` gives the values): its estimate
    carries the :func:`smoothness` diagnostic, and warns when the data look rough if it ``assumes_order`` (that
    neighbouring values have similar frequencies)."""

    assumes_order = True

    def _estimate(self, mechanism: Mechanism, aggregate: Aggregate, base: Estimate | None) -> Estimate:
        return _smoothness_estimate(self.name, self._filter(mechanism, aggregate, base), mechanism, base,
                                    aggregate.n, *self._validity(mechanism, aggregate.n), warn=self.assumes_order)

    @abstractmethod
    def _filter(self, mechanism: Mechanism, aggregate: Aggregate, base: Estimate) -> np.ndarray:
        """The filtered values from the MI estimate ``base``."""

    def _validity(self, mechanism: Mechanism, n: int) -> tuple[tuple[str, ...], dict]:
        """Warnings and diagnostics of the estimator's own validity condition (hook; none by default)."""
        return (), {}


class _WienerEstimator(_OrderedPostProcessor):
    """Shared parts: pure mechanisms only (the model needs p*, q*), output not clipped."""

    requires_pure = True
    consistent = False


@ESTIMATORS.register
class DirectWiener(_WienerEstimator):
    """DW (§IV-C): the MI estimate Wiener-filtered once, Eqs. (16)–(18), with P̃_f = |G/H|² (Eq. (21)) and
    P̃_n from Theorem 3 (Eqs. (19)–(20); P_0 = 0 for GRR/L-GRR/SS)."""

    name = "dw"
    display_name = "DW (direct Wiener)"
    description = "Direct Wiener deconvolution of the MI estimate: one Wiener filter with P_f = |G/H|²"
    paper = WIENER_PAPER + ", §IV-C (DW), Eqs. (16)–(21), Theorem 3"

    def _filter(self, mechanism: Mechanism, aggregate: Aggregate, base: Estimate) -> np.ndarray:
        return direct_wiener(base.values, mechanism.p_star, mechanism.q_star, aggregate.n,
                             zero_dc=has_fixed_support(mechanism))


@ESTIMATORS.register
class IterativeWiener(_WienerEstimator):
    """IIW (Algorithm 1): iterative Wiener filtering with the correction factor
    P_n/(|H|² + P_n/P̃_f), whose non-zero fixed point is (|G|² − P_n)/|H|² (Eqs. (22)–(24)); P̃_f(0) =
    |G/H|², 30 filterings (the paper's stopping rule; the first is DW)."""

    name = "iiw"
    display_name = "IIW (iterative Wiener)"
    description = "Improved iterative Wiener deconvolution (correction factor), 30 iterations from |G/H|²"
    paper = WIENER_PAPER + ", §IV-C (IIW), Algorithm 1, Eqs. (22)–(24)"
    parameters = (ITERATIONS,)
    init = "g/h"

    def _filter(self, mechanism: Mechanism, aggregate: Aggregate, base: Estimate) -> np.ndarray:
        return iterative_wiener(base.values, mechanism.p_star, mechanism.q_star, aggregate.n,
                                iterations=self.params["iterations"], init=self.init,
                                zero_dc=has_fixed_support(mechanism))


@ESTIMATORS.register
class IterativeWienerG(IterativeWiener):
    """IIW-G (§IV-C, §V.B): Algorithm 1 started from P̃_f(0) = |G|² instead of |G/H|².

    The paper finds it much better than IIW for KRR on smooth data, but only when d·√Var* < 1 and when
    stopped early: it recommends "about 10" iterations (§V.B), our default. At low ε it stays stuck
    at its over-smoothed start (Fig. 5); for other mechanisms the paper calls the gain unstable.
    """

    name = "iiw-g"
    display_name = "IIW-G"
    description = "Iterative Wiener started from |G|² (KRR on smooth data when d·√Var* < 1); 10 iterations"
    paper = WIENER_PAPER + ", §IV-C and §V.B (IIW-G), Algorithm 1"
    parameters = (Param("iterations", int, "Wiener filterings (1 = one filter with P_f = |G|²); the paper "
                        "suggests about 10", default=10, low=1, high=10_000),)
    init = "g"

    def _validity(self, mechanism: Mechanism, n: int) -> tuple[tuple[str, ...], dict]:
        """§V.B: IIW-G is valid only when the noise-to-mean-signal ratio d·√Var* < 1 (Var* the MI estimate's
        variance, Eq. (5)); the paper's KRR ratios are 10.93, 2.95, 0.99, 0.36 at ε = 1, 2, 3, 4."""
        ratio = mechanism.d * math.sqrt(float(mechanism.approximate_variance(n)))
        warn = () if ratio < 1 else (
            f"IIW-G's validity condition d·√Var* < 1 fails (d·√Var* = {ratio:.3g}): it can stay stuck at its "
            "over-smoothed start (convolution paper §V.B); use IIW, or more users or a larger ε",)
        return warn, {"validity_ratio": ratio}


@ESTIMATORS.register
class AverageRandomPermutations(_WienerEstimator):
    """AMRP (§IV-C): DW on ``permutations`` random re-orderings of the observation, each restored to the
    original order, then averaged (the paper's DW-AMRP, 100 permutations). The permutations come from
    ``seed`` alone, so the same input always gives the same output."""

    name = "amrp"
    display_name = "DW-AMRP"
    description = "Average of DW over 100 random permutations of the domain (for non-smooth data)"
    paper = WIENER_PAPER + ", §IV-C (AMRP)"
    parameters = (
        Param("permutations", int, "number of random permutations averaged", default=100, low=1, high=100_000),
        Param("seed", int, "seed of the permutations (results are reproducible)", default=0, low=0),
    )

    assumes_order = False  # it averages over random orders: meant for non-smooth data

    def _filter(self, mechanism: Mechanism, aggregate: Aggregate, base: Estimate) -> np.ndarray:
        return amrp(base.values, mechanism.p_star, mechanism.q_star, aggregate.n,
                    permutations=self.params["permutations"], seed=self.params["seed"],
                    zero_dc=has_fixed_support(mechanism))


SIGMA = Param("sigma", float, "standard deviation of the Gaussian filter, in values (the paper: 1 and 3)", default=3.0,
              low=0.0, low_inclusive=False, high=1e6)
BOUNDARY = Param("boundary", str, "ends of the domain: 'edge' repeats the end value, 'wrap' is circular",
                 default="edge", choices=("edge", "wrap"))


@ESTIMATORS.register
class GaussianFilter(_OrderedPostProcessor):
    """GF (Appendix C): the MI estimate smoothed by a Gaussian of width σ (GF1: σ = 1, GF3: σ = 3) — the
    smoothing baseline with a larger width. Applies to every mechanism (it only needs MI)."""

    name = "gf"
    display_name = "Gaussian filter (GF)"
    description = "MI estimate smoothed by a Gaussian of width σ values (GF1: σ = 1, GF3: σ = 3; smooth domains)"
    paper = WIENER_PAPER + ", Appendix C (GF1, GF3)"
    parameters = (Param("sigma", float, "standard deviation of the Gaussian filter, in values (GF1: 1, GF3: 3)",
                        default=1.0, low=0.0, low_inclusive=False, high=1e6), BOUNDARY)

    def _filter(self, mechanism: Mechanism, aggregate: Aggregate, base: Estimate) -> np.ndarray:
        return gaussian_smooth(base.values, self.params["sigma"], self.params["boundary"])


@ESTIMATORS.register
class GaussianWiener(_WienerEstimator):
    """GF-DW (Appendix C): Wiener deconvolution whose signal power comes from the Gaussian filter's output
    (GF3-DW with the default σ = 3: the paper's best method on smooth data)."""

    name = "gf-dw"
    display_name = "GF-DW (Gaussian filter + Wiener)"
    description = "Wiener deconvolution with the signal power of a Gaussian-filtered estimate (GF3-DW: σ = 3)"
    paper = WIENER_PAPER + ", Appendix C (GF1-DW, GF3-DW)"
    parameters = (SIGMA, BOUNDARY)

    def _filter(self, mechanism: Mechanism, aggregate: Aggregate, base: Estimate) -> np.ndarray:
        return gaussian_wiener(base.values, mechanism.p_star, mechanism.q_star, aggregate.n,
                               sigma=self.params["sigma"], boundary=self.params["boundary"],
                               zero_dc=has_fixed_support(mechanism))


@ESTIMATORS.register
class Smoothing(_OrderedPostProcessor):
    """The smoothing baseline of §V.A (from Nychka 1990 via the EMS paper): the MI estimate smoothed once
    with the binomial kernel (1, 2, 1)/4, Eq. (25). Applies to every mechanism (it only needs MI)."""

    name = "smooth"
    display_name = "Smoothing (1,2,1)/4"
    description = "MI estimate averaged with its neighbours by (1, 2, 1)/4 (assumes a smooth ordinal domain)"
    paper = WIENER_PAPER + ", §V.A Eq. (25) (smoothing of Nychka 1990)"
    parameters = (Param("boundary", str, "ends of the domain: 'edge' repeats the end value, 'wrap' is circular",
                        default="edge", choices=("edge", "wrap")),)

    def _filter(self, mechanism: Mechanism, aggregate: Aggregate, base: Estimate) -> np.ndarray:
        return smooth_121(base.values, self.params["boundary"])
