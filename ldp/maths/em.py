"""EM and EMS: maximum-likelihood reconstruction of a d-bucket input histogram from d̃ report buckets.

Square-wave paper §5.5. The channel is the d̃ × d transition matrix M, M[j, i] = Pr[report in B̃_j | input
in B_i] with the input uniform within B_i; every column sums to one. With n_j reports in bucket j, the
log-likelihood of all n reports is L(x) = Σ_j n_j ln (M x)_j (up to a constant that does not depend on x),
and one iteration of Algorithm 1 is

    E-step   P_i = x_i Σ_j n_j M[j, i] / (M x)_j
    M-step   x_i = P_i / Σ_k P_k
    S-step   x_i = ½ x_i + ¼ (x_{i−1} + x_{i+1})          (EMS only: binomial (1, 2, 1) smoothing)

Stopping rule (§5.5 and §6.1): stop at the first iterate with |L(x̂ᵗ⁺¹) − L(x̂ᵗ)| < τ, where L sums over all
n reports (so τ is an absolute change, not a relative or per-report one); the paper's defaults are
τ = 10⁻³·e^ε for EM and τ = 10⁻³ for EMS. ``max_iter`` is only a safety cap: when it is hit the last
iterate is returned and the trace says ``converged=False``.

Smoothing at the two ends: the paper does not say. We repeat the end values (x_{−1} = x_0, x_d = x_{d−1}),
as the (1,2,1) smoothing estimator does: no wrap-around between the smallest and largest value, and
the step preserves the total mass (every iterate stays a probability vector).

The channel is anything with ``shape == (d̃, d)``, ``dot(x) = M x`` and ``tdot(r) = Mᵀ r``: a dense matrix
(:class:`DenseChannel`, or a plain array), or a structured operator such as
the square wave's channel operator, whose products cost O(d + d̃) instead of O(d d̃).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from ldp.core.errors import LDPError

__all__ = [
    "Channel", "DenseChannel", "EMTrace", "METHODS", "as_channel", "default_tolerance", "em", "ems",
    "expectation_maximization", "log_likelihood", "smooth_binomial",
]

METHODS = ("em", "ems")
DEFAULT_MAX_ITER = 10_000
EM_TOL_FACTOR = 1e-3  # τ = 10⁻³·e^ε for EM (§6.1)
EMS_TOL = 1e-3  # τ = 10⁻³ for EMS (§6.1)


class Channel(Protocol):
    shape: tuple[int, int]

    def dot(self, x: np.ndarray) -> np.ndarray: ...
    def tdot(self, r: np.ndarray) -> np.ndarray: ...


class DenseChannel:
    """A channel given by an explicit d̃ × d matrix (columns sum to one)."""

    def __init__(self, matrix: Any) -> None:
        m = np.asarray(matrix, dtype=np.float64)
        if m.ndim != 2 or m.shape[0] < 1 or m.shape[1] < 1:
            raise LDPError(f"a transition matrix must be 2-D (d̃ × d), got shape {m.shape}")
        if not np.all(np.isfinite(m)) or np.any(m < 0):
            raise LDPError("a transition matrix must hold finite non-negative probabilities")
        sums = m.sum(axis=0)
        if np.any(np.abs(sums - 1.0) > 1e-9):
            bad = int(np.argmax(np.abs(sums - 1.0)))
            raise LDPError(f"every column of a transition matrix must sum to 1; column {bad} sums to "
                             f"{sums[bad]:.12g}")
        self.matrix = m
        self._mt = np.ascontiguousarray(m.T)
        self.shape: tuple[int, int] = (int(m.shape[0]), int(m.shape[1]))

    def dot(self, x: np.ndarray) -> np.ndarray:
        return self.matrix @ x

    def tdot(self, r: np.ndarray) -> np.ndarray:
        return self._mt @ r

    def dense(self) -> np.ndarray:
        return self.matrix.copy()


def as_channel(channel: Any) -> Channel:
    """A channel object as is, or a matrix wrapped in :class:`DenseChannel`."""
    if hasattr(channel, "dot") and hasattr(channel, "tdot") and hasattr(channel, "shape"):
        return channel
    return DenseChannel(channel)


def default_tolerance(method: str, epsilon: float | None) -> float:
    """The paper's τ (§6.1): 10⁻³·e^ε for EM, 10⁻³ for EMS (absolute change of the total log-likelihood)."""
    method = _check_method(method)
    if method == "ems":
        return EMS_TOL
    if epsilon is None:
        raise LDPError("EM: the default tolerance τ = 10⁻³·e^ε needs ε; pass epsilon or tol")
    eps = float(epsilon)
    if not (math.isfinite(eps) and eps > 0):
        raise LDPError(f"EM: ε must be a positive number, got {epsilon!r}")
    return EM_TOL_FACTOR * math.exp(eps)


def _check_method(method: str) -> str:
    if not isinstance(method, str) or method.strip().lower() not in METHODS:
        raise LDPError(f"method must be one of {list(METHODS)}, got {method!r}")
    return method.strip().lower()


def smooth_binomial(x: np.ndarray) -> np.ndarray:
    """The S-step: x_i ← ½ x_i + ¼ (x_{i−1} + x_{i+1}), end values repeated (sum-preserving)."""
    v = np.asarray(x, dtype=np.float64)
    if v.ndim != 1 or v.size < 2:
        raise LDPError(f"smoothing needs a 1-D histogram of at least 2 buckets, got shape {v.shape}")
    out = np.empty_like(v)
    _smooth_into(v, out)
    return out


def _smooth_into(v: np.ndarray, out: np.ndarray) -> None:
    np.add(v[:-2], v[2:], out=out[1:-1])
    out[1:-1] *= 0.25
    out[1:-1] += 0.5 * v[1:-1]
    out[0] = 0.75 * v[0] + 0.25 * v[1]
    out[-1] = 0.75 * v[-1] + 0.25 * v[-2]


def _check_histogram(histogram: Any, channel: Channel) -> np.ndarray:
    h = np.asarray(histogram, dtype=np.float64)
    d_tilde = channel.shape[0]
    if h.ndim != 1:
        raise LDPError(f"the report histogram must be 1-D, got shape {h.shape}")
    if h.size != d_tilde:
        raise LDPError(f"the report histogram has {h.size} buckets but the channel expects d̃={d_tilde}")
    if not np.all(np.isfinite(h)) or np.any(h < 0):
        raise LDPError("the report histogram must hold finite non-negative counts")
    if h.sum() <= 0:
        raise LDPError("the report histogram is empty; there is nothing to estimate")
    return h


def log_likelihood(histogram: Any, channel: Any, x: Any) -> float:
    """L(x) = Σ_j n_j ln (M x)_j: the log-likelihood of all reports (bucketized), up to a constant."""
    ch = as_channel(channel)
    h = _check_histogram(histogram, ch)
    mx = ch.dot(np.asarray(x, dtype=np.float64))
    pos = h > 0
    if np.any(mx[pos] <= 0):
        return -math.inf
    return float(h[pos] @ np.log(mx[pos]))


@dataclass(frozen=True)
class EMTrace:
    """What one EM/EMS run did.

    ``log_likelihood[t]`` is L(x̂ᵗ) for t = 0 … ``iterations`` (x̂⁰ is uniform), so ``changes`` (the
    |L(x̂ᵗ⁺¹) − L(x̂ᵗ)| the stopping rule compares with ``tol``) has ``iterations`` entries.
    """

    method: str
    tol: float
    max_iter: int
    iterations: int
    converged: bool
    log_likelihood: np.ndarray = field(repr=False)
    note: str = ""

    @property
    def changes(self) -> np.ndarray:
        return np.abs(np.diff(self.log_likelihood))

    @property
    def final_change(self) -> float:
        ch = self.changes
        return float(ch[-1]) if ch.size else float("nan")

    def to_dict(self) -> dict[str, object]:
        return {"method": self.method, "tol": self.tol, "max_iter": self.max_iter, "iterations": self.iterations,
                "converged": self.converged, "final_change": self.final_change,
                "final_log_likelihood": float(self.log_likelihood[-1]), "note": self.note}


def expectation_maximization(histogram: Any, channel: Any, *, smoothing: bool = False, tol: float,
                             max_iter: int = DEFAULT_MAX_ITER, init: Any = None) -> tuple[np.ndarray, EMTrace]:
    """Algorithm 1 (EM), with the S-step after every M-step when ``smoothing`` (EMS).

    ``histogram`` holds the report counts n_j (not frequencies: τ is an absolute change of the
    log-likelihood of all n reports). Starts from the uniform histogram unless ``init`` is given.
    Returns the estimate (a probability vector of length d) and an :class:`EMTrace`.
    """
    ch = as_channel(channel)
    h = _check_histogram(histogram, ch)
    d = ch.shape[1]
    if smoothing and d < 2:
        raise LDPError("EMS: smoothing needs at least 2 input buckets")
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise LDPError(f"max_iter must be a positive integer, got {max_iter!r}")
    tol = float(tol)
    if not (math.isfinite(tol) and tol >= 0):
        raise LDPError(f"tol must be a finite number ≥ 0, got {tol!r}")
    if init is None:
        x = np.full(d, 1.0 / d)
    else:
        x = np.array(init, dtype=np.float64)
        if x.shape != (d,) or not np.all(np.isfinite(x)) or np.any(x < 0) or x.sum() <= 0:
            raise LDPError(f"init must be a non-negative vector of length d={d} with a positive sum")
        x /= x.sum()
    pos = h > 0
    dense_support = bool(np.all(pos))
    hp = h if dense_support else h[pos]
    ratio = np.zeros_like(h)
    logs = np.empty(hp.size)
    smoothed = np.empty(d)

    def loglik(mx: np.ndarray) -> float:
        m = mx if dense_support else mx[pos]
        if np.any(m <= 0):
            return -math.inf
        np.log(m, out=logs)
        return float(hp @ logs)

    mx = ch.dot(x)
    lls = [loglik(mx)]
    converged = False
    degenerate = False
    iterations = 0
    for _ in range(int(max_iter)):
        np.divide(h, mx, out=ratio, where=pos)  # n_j / (M x)_j; 0 where no report fell
        p = ch.tdot(ratio)
        p *= x  # E-step: P_i = x_i Σ_j n_j M[j, i] / (M x)_j
        total = p.sum()
        if not (total > 0 and math.isfinite(total)):  # cannot happen with a valid channel; keep x
            degenerate = True
            break
        p /= total  # M-step
        if smoothing:
            _smooth_into(p, smoothed)
            x, smoothed = smoothed, x
        else:
            x = p
        mx = ch.dot(x)
        lls.append(loglik(mx))
        iterations += 1
        if abs(lls[-1] - lls[-2]) < tol:
            converged = True
            break
    method = "ems" if smoothing else "em"
    note = ""
    if degenerate:
        note = f"the E-step degenerated after {iterations} iterations; returning the last valid iterate"
    elif not converged:
        last = abs(lls[-1] - lls[-2]) if len(lls) > 1 else float("nan")
        note = (f"stopped after {iterations} of max_iter={max_iter} iterations without meeting |ΔL| < {tol:g} "
                f"(last change {last:.3g}); returning the last iterate")
    trace = EMTrace(method=method, tol=tol, max_iter=int(max_iter), iterations=iterations, converged=converged,
                    log_likelihood=np.asarray(lls), note=note)
    return x.copy(), trace


def em(histogram: Any, channel: Any, *, epsilon: float | None = None, tol: float | None = None,
       max_iter: int = DEFAULT_MAX_ITER, init: Any = None) -> tuple[np.ndarray, EMTrace]:
    """Plain EM (Algorithm 1) with the paper's τ = 10⁻³·e^ε unless ``tol`` is given."""
    tau = default_tolerance("em", epsilon) if tol is None else tol
    return expectation_maximization(histogram, channel, smoothing=False, tol=tau, max_iter=max_iter, init=init)


def ems(histogram: Any, channel: Any, *, tol: float | None = None, max_iter: int = DEFAULT_MAX_ITER,
        init: Any = None) -> tuple[np.ndarray, EMTrace]:
    """EM with the binomial (1, 2, 1) smoothing step (EMS), τ = 10⁻³ unless ``tol`` is given."""
    tau = EMS_TOL if tol is None else tol
    return expectation_maximization(histogram, channel, smoothing=True, tol=tau, max_iter=max_iter, init=init)
