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
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from ldp.core.cancellation import checkpoint
from ldp.core.errors import InvalidInput

__all__ = [
    "CHANGE_MEASURES", "Channel", "DenseChannel", "EMTrace", "METHODS", "as_channel", "change_measure",
    "default_tolerance", "em", "ems",
    "expectation_maximization", "expectation_maximization_batch", "log_likelihood", "smooth_binomial", "squarem",
]

METHODS = ("em", "ems")
DEFAULT_MAX_ITER = 10_000
EM_TOL_FACTOR = 1e-3  # τ = 10⁻³·e^ε for EM (§6.1)
EMS_TOL = 1e-3  # τ = 10⁻³ for EMS (§6.1)


class Channel(Protocol):
    """What EM needs of a channel: its ``shape`` (d̃, d), ``dot(x) = M x`` and ``tdot(r) = Mᵀ r``.

    A :class:`DenseChannel` (or a plain matrix, through :func:`as_channel`) or a structured operator such as the square
    wave's, whose products cost O(d + d̃).
    """
    shape: tuple[int, int]

    def dot(self, x: np.ndarray) -> np.ndarray: ...
    def tdot(self, r: np.ndarray) -> np.ndarray: ...


class DenseChannel:
    """A channel given by an explicit d̃ × d matrix (columns sum to one).

    Parameters
    ----------
    matrix : array_like
        The transition matrix M, M[j, i] = Pr[report in bucket j | input in bucket i]: 2-D, finite, non-negative,
        every column summing to 1 (within 10⁻⁹).

    Attributes
    ----------
    matrix : numpy.ndarray
        M as float64.
    shape : tuple of int
        (d̃, d).

    Raises
    ------
    InvalidInput
        If the matrix is not 2-D and non-empty, holds negative or non-finite entries, or a column does not sum to 1.
    """

    def __init__(self, matrix: Any) -> None:
        m = np.asarray(matrix, dtype=np.float64)
        if m.ndim != 2 or m.shape[0] < 1 or m.shape[1] < 1:
            raise InvalidInput(f"a transition matrix must be 2-D (d̃ × d), got shape {m.shape}")
        if not np.all(np.isfinite(m)) or np.any(m < 0):
            raise InvalidInput("a transition matrix must hold finite non-negative probabilities")
        sums = m.sum(axis=0)
        if np.any(np.abs(sums - 1.0) > 1e-9):
            bad = int(np.argmax(np.abs(sums - 1.0)))
            raise InvalidInput(f"every column of a transition matrix must sum to 1; column {bad} sums to "
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
    """A channel object as is, or a matrix wrapped in :class:`DenseChannel`.

    Parameters
    ----------
    channel : Channel or array_like
        An object with ``dot``, ``tdot`` and ``shape``, or a transition matrix.

    Returns
    -------
    Channel
        ``channel`` itself, or ``DenseChannel(channel)``.

    Raises
    ------
    InvalidInput
        For a matrix that is not a valid transition matrix (see :class:`DenseChannel`).
    """
    if hasattr(channel, "dot") and hasattr(channel, "tdot") and hasattr(channel, "shape"):
        return channel
    return DenseChannel(channel)


def default_tolerance(method: str, epsilon: float | None) -> float:
    """The paper's τ (§6.1): 10⁻³·e^ε for EM, 10⁻³ for EMS (absolute change of the total log-likelihood).

    Parameters
    ----------
    method : {"em", "ems"}
        The reconstruction (case-insensitive).
    epsilon : float or None
        The privacy budget ε > 0 (needed for EM only).

    Returns
    -------
    float
        τ.

    Raises
    ------
    InvalidInput
        For an unknown method, or EM without a positive finite ε.

    References
    ----------
    Square-wave paper (Li et al., SIGMOD'20), §5.5 and §6.1.
    """
    method = _check_method(method)
    if method == "ems":
        return EMS_TOL
    if epsilon is None:
        raise InvalidInput("EM: the default tolerance τ = 10⁻³·e^ε needs ε; pass epsilon or tol")
    eps = float(epsilon)
    if not (math.isfinite(eps) and eps > 0):
        raise InvalidInput(f"EM: ε must be a positive number, got {epsilon!r}")
    return EM_TOL_FACTOR * math.exp(eps)


def _check_method(method: str) -> str:
    if not isinstance(method, str) or method.strip().lower() not in METHODS:
        raise InvalidInput(f"method must be one of {list(METHODS)}, got {method!r}")
    return method.strip().lower()


def smooth_binomial(x: np.ndarray) -> np.ndarray:
    """The S-step: x_i ← ½ x_i + ¼ (x_{i−1} + x_{i+1}), end values repeated (sum-preserving).

    Parameters
    ----------
    x : array_like
        A 1-D histogram of at least 2 buckets.

    Returns
    -------
    numpy.ndarray
        The smoothed histogram (a new array).

    Raises
    ------
    InvalidInput
        If ``x`` is not 1-D with at least 2 buckets.

    References
    ----------
    Square-wave paper (Li et al., SIGMOD'20), §5.5 (EMS's smoothing step; the ends are this module's choice).
    """
    v = np.asarray(x, dtype=np.float64)
    if v.ndim != 1 or v.size < 2:
        raise InvalidInput(f"smoothing needs a 1-D histogram of at least 2 buckets, got shape {v.shape}")
    out = np.empty_like(v)
    _smooth_into(v, out)
    return out


def _smooth_into(v: np.ndarray, out: np.ndarray) -> None:
    """The S-step of ``v`` into ``out`` along the last axis (one histogram, or a block of rows)."""
    np.add(v[..., :-2], v[..., 2:], out=out[..., 1:-1])
    out[..., 1:-1] *= 0.25
    out[..., 1:-1] += 0.5 * v[..., 1:-1]
    out[..., 0] = 0.75 * v[..., 0] + 0.25 * v[..., 1]
    out[..., -1] = 0.75 * v[..., -1] + 0.25 * v[..., -2]


def _check_histogram(histogram: Any, channel: Channel) -> np.ndarray:
    h = np.asarray(histogram, dtype=np.float64)
    d_tilde = channel.shape[0]
    if h.ndim != 1:
        raise InvalidInput(f"the report histogram must be 1-D, got shape {h.shape}")
    if h.size != d_tilde:
        raise InvalidInput(f"the report histogram has {h.size} buckets but the channel expects d̃={d_tilde}")
    if not np.all(np.isfinite(h)) or np.any(h < 0):
        raise InvalidInput("the report histogram must hold finite non-negative counts")
    if h.sum() <= 0:
        raise InvalidInput("the report histogram is empty; there is nothing to estimate")
    return h


def log_likelihood(histogram: Any, channel: Any, x: Any) -> float:
    """L(x) = Σ_j n_j ln (M x)_j: the log-likelihood of all reports (bucketized), up to a constant.

    Parameters
    ----------
    histogram : array_like
        The report counts n_j, length d̃ (finite, non-negative, not all zero).
    channel : Channel or array_like
        The transition matrix M (d̃ × d) or an operator (see :func:`as_channel`).
    x : array_like
        The input histogram, length d.

    Returns
    -------
    float
        L(x); −∞ when a bucket holding reports has (M x)_j ≤ 0.

    Raises
    ------
    InvalidInput
        For a histogram that does not fit the channel or is empty, or an invalid matrix.

    References
    ----------
    Square-wave paper (Li et al., SIGMOD'20), §5.5.
    """
    ch = as_channel(channel)
    h = _check_histogram(histogram, ch)
    mx = ch.dot(np.asarray(x, dtype=np.float64))
    pos = h > 0
    if np.any(mx[pos] <= 0):
        return -math.inf
    return float(h[pos] @ np.log(mx[pos]))


@dataclass(frozen=True)
class EMTrace:
    """What one EM-type run did (EM and EMS on a transition matrix, IBU's Eq. (3), SQUAREM).

    ``changes[t]`` is the quantity the stopping rule compared with ``tol`` after iteration t + 1 (so it has
    ``iterations`` entries): the change of the total log-likelihood for EM/EMS (``stop="loglik"``), the largest
    (``"max_abs"``) or summed (``"l1"``) absolute change of the iterate for IBU, or SQUAREM's fixed-point
    residual. ``log_likelihood[t]`` is L(x̂ᵗ) for t = 0 … iterations where it was tracked.

    Parameters
    ----------
    method : str
        The algorithm (``"em"``, ``"ems"``, ``"ibu"``, ``"squarem"`` ...).
    tol : float
        The stopping tolerance.
    max_iter : int
        The iteration cap.
    iterations : int
        The iterations run.
    converged : bool
        Whether the stopping rule was met before the cap.
    changes : numpy.ndarray
        The stopping rule's quantity after each iteration.
    stop : str, default "loglik"
        Which quantity: ``"loglik"``, ``"max_abs"`` or ``"l1"``.
    log_likelihood : numpy.ndarray, optional
        L(x̂ᵗ) per iterate, where tracked.
    evaluations : int, default 0
        Evaluations of the EM map (SQUAREM makes up to three per iteration).
    note : str, default ""
        Why the run stopped early, if it did.
    """

    method: str
    tol: float
    max_iter: int
    iterations: int
    converged: bool
    changes: np.ndarray = field(repr=False)
    stop: str = "loglik"
    log_likelihood: np.ndarray | None = field(default=None, repr=False)
    evaluations: int = 0  # evaluations of the EM map (SQUAREM makes up to three per iteration)
    note: str = ""

    @property
    def final_change(self) -> float:
        return float(self.changes[-1]) if self.changes.size else float("nan")

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"method": self.method, "stop": self.stop, "tol": self.tol,
                                  "max_iter": self.max_iter, "iterations": self.iterations,
                                  "converged": self.converged, "final_change": self.final_change, "note": self.note}
        if self.evaluations:
            out["evaluations"] = self.evaluations
        if self.log_likelihood is not None and self.log_likelihood.size:
            out["final_log_likelihood"] = float(self.log_likelihood[-1])
        return out


def expectation_maximization(histogram: Any, channel: Any, *, smoothing: bool = False, tol: float,
                             max_iter: int = DEFAULT_MAX_ITER, init: Any = None) -> tuple[np.ndarray, EMTrace]:
    """Algorithm 1 (EM), with the S-step after every M-step when ``smoothing`` (EMS).

    ``histogram`` holds the report counts n_j (not frequencies: τ is an absolute change of the
    log-likelihood of all n reports). Starts from the uniform histogram unless ``init`` is given.
    The loop calls :func:`~ldp.core.cancellation.checkpoint` every iteration.

    Parameters
    ----------
    histogram : array_like
        The report counts n_j, length d̃ (finite, non-negative, not all zero).
    channel : Channel or array_like
        The transition matrix M (d̃ × d) or an operator.
    smoothing : bool, default False
        Apply the binomial S-step after every M-step (EMS; needs d ≥ 2).
    tol : float
        τ, the absolute change of L below which the run stops (finite, ≥ 0).
    max_iter : int, default 10000
        Safety cap on the iterations (≥ 1).
    init : array_like, optional
        The starting histogram (non-negative, length d, positive sum; normalised); uniform when None.

    Returns
    -------
    tuple of (numpy.ndarray, EMTrace)
        The estimate (a probability vector of length d) and the trace (``converged=False`` when the cap was hit).

    Raises
    ------
    InvalidInput
        For a histogram that does not fit the channel, a bad ``max_iter``, ``tol`` or ``init``, or EMS with d < 2.

    References
    ----------
    Square-wave paper (Li et al., SIGMOD'20), §5.5, Algorithm 1, and §6.1 (stopping rule).
    """
    ch = as_channel(channel)
    h = _check_histogram(histogram, ch)
    tol = _check_options(ch, smoothing, tol, max_iter)
    d = ch.shape[1]
    if init is None:
        x = np.full(d, 1.0 / d)
    else:
        x = np.array(init, dtype=np.float64)
        if x.shape != (d,) or not np.all(np.isfinite(x)) or np.any(x < 0) or x.sum() <= 0:
            raise InvalidInput(f"init must be a non-negative vector of length d={d} with a positive sum")
        x /= x.sum()
    run = _em_one(h, ch, smoothing, tol, int(max_iter), x)
    return run.x, run.trace(smoothing, tol, int(max_iter))


def expectation_maximization_batch(histograms: Any, channel: Any, *, smoothing: bool = False, tol: float,
                                   max_iter: int = DEFAULT_MAX_ITER) -> tuple[np.ndarray, list[EMTrace]]:
    """:func:`expectation_maximization` of every row of ``histograms`` (one collection each) through one channel,
    or through its own channel per row, the rows iterated together: each row's products, E-, M- and S-steps are
    the elementwise operations of its own run, and a row leaves the batch at its own stopping point, so every row's
    estimate and trace are those of :func:`expectation_maximization` on it through its channel, bit for bit (the
    structured channels multiply a block of rows with the same sums in the same order as one row; other channels
    multiply row by row). Only the Python overhead of an iteration is shared: T collections cost about one run's
    interpreter time instead of T — with a channel per row, collections of different mechanisms (a sweep of a
    parameter) share it too.

    Parameters
    ----------
    histograms : array_like
        The report counts, shape (T, d̃): one histogram per row (each finite, non-negative, not all zero).
    channel : Channel, array_like, or list of Channel
        The transition matrix M (d̃ × d) or an operator; ``dot_rows``/``tdot_rows`` (a block of rows at once) are
        used when it has them. A list (T channels of one shape): row t's channel; channels of one class with a
        ``stack_rows`` hook (the square wave's) multiply the block at once, others row by row.
    smoothing : bool, default False
        EMS (the binomial S-step after every M-step).
    tol : float
        τ, as for :func:`expectation_maximization`.
    max_iter : int, default 10000
        The cap on every row's iterations.

    Returns
    -------
    tuple of (numpy.ndarray, list of EMTrace)
        The estimates, shape (T, d), and one trace per row.

    Raises
    ------
    InvalidInput
        As :func:`expectation_maximization`, or for histograms that are not 2-D.

    References
    ----------
    Square-wave paper (Li et al., SIGMOD'20), §5.5, Algorithm 1, and §6.1 (stopping rule).
    """
    hs = np.asarray(histograms, dtype=np.float64)
    if hs.ndim != 2 or hs.shape[0] < 1:
        raise InvalidInput(f"the report histograms must be a 2-D block (trials × d̃), got shape {hs.shape}")
    per_row = isinstance(channel, (list, tuple)) and len(channel) > 0 and (hasattr(channel[0], "dot")
                                                                         or np.ndim(channel[0]) == 2)
    channels = [as_channel(c) for c in channel] if per_row else None
    if channels is not None and len(channels) != hs.shape[0]:
        raise InvalidInput(f"one channel per histogram: got {len(channels)} channels for {hs.shape[0]} rows")
    if channels is not None and len({c.shape for c in channels}) > 1:
        raise InvalidInput(f"the channels of a batch must share one shape, got {sorted({c.shape for c in channels})}")
    ch = channels[0] if channels is not None else as_channel(channel)
    h = np.stack([_check_histogram(row, ch) for row in hs])
    tol = _check_options(ch, smoothing, tol, max_iter)
    d = ch.shape[1]
    x0 = np.full((h.shape[0], d), 1.0 / d)
    if h.shape[0] == 1:
        runs = [_em_one(h[0], ch, smoothing, tol, int(max_iter), x0[0])]
    else:
        runs = _em_rows(h, _RowProducts(ch) if channels is None else _stacked(channels), smoothing, tol,
                        int(max_iter), x0)
    return np.stack([r.x for r in runs]), [r.trace(smoothing, tol, int(max_iter)) for r in runs]


class _RowProducts:
    """One channel's products of a block of rows (``dot_rows(block, rows)``: ``rows`` are the block's row numbers
    in the batch, which one channel for all does not need): the channel's block product when it has one, else row
    by row (a dense matrix product of a block would sum in another order than one row's)."""

    def __init__(self, channel: Channel) -> None:
        self.channel = channel
        self._dot = getattr(channel, "dot_rows", None)
        self._tdot = getattr(channel, "tdot_rows", None)

    def dot_rows(self, block: np.ndarray, rows: np.ndarray) -> np.ndarray:
        if self._dot is not None:
            return self._dot(block)
        return np.stack([self.channel.dot(row) for row in block])

    def tdot_rows(self, block: np.ndarray, rows: np.ndarray) -> np.ndarray:
        if self._tdot is not None:
            return self._tdot(block)
        return np.stack([self.channel.tdot(row) for row in block])


class _EachRow:
    """A channel per row, multiplied row by row (each row's product is its channel's, bit for bit)."""

    def __init__(self, channels: list[Channel]) -> None:
        self.channels = channels

    def dot_rows(self, block: np.ndarray, rows: np.ndarray) -> np.ndarray:
        return np.stack([self.channels[t].dot(row) for t, row in zip(rows, block, strict=True)])

    def tdot_rows(self, block: np.ndarray, rows: np.ndarray) -> np.ndarray:
        return np.stack([self.channels[t].tdot(row) for t, row in zip(rows, block, strict=True)])


def _stacked(channels: list[Channel]) -> Any:
    """The products of a block whose row t goes through ``channels[t]``: the channels' class hook ``stack_rows``
    (one block product, each row's sums as its channel's) when they are all of one class that has it, else row by
    row."""
    kind = type(channels[0])
    hook = getattr(kind, "stack_rows", None)
    if hook is not None and all(type(c) is kind for c in channels):
        return hook(channels)
    return _EachRow(channels)


def _check_options(ch: Channel, smoothing: bool, tol: Any, max_iter: Any) -> float:
    """τ as a float, after checking EMS's d ≥ 2, ``max_iter`` and τ (InvalidInput otherwise)."""
    if smoothing and ch.shape[1] < 2:
        raise InvalidInput("EMS: smoothing needs at least 2 input buckets")
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise InvalidInput(f"max_iter must be a positive integer, got {max_iter!r}")
    tol = float(tol)
    if not (math.isfinite(tol) and tol >= 0):
        raise InvalidInput(f"tol must be a finite number ≥ 0, got {tol!r}")
    return tol


class _Row:
    """One histogram's run inside :func:`_em_rows`: its reports, its log-likelihood trace and its end."""

    def __init__(self, h: np.ndarray) -> None:
        self.pos = h > 0
        self.dense = bool(np.all(self.pos))
        self.hp = h if self.dense else h[self.pos]
        self.logs = np.empty(self.hp.size)
        self.lls = np.empty(0)
        self.x = np.empty(0)
        self.iterations = 0
        self.converged = False
        self.degenerate = False

    def loglik(self, mx: np.ndarray) -> float:
        m = mx if self.dense else mx[self.pos]
        if np.any(m <= 0):
            return -math.inf
        np.log(m, out=self.logs)
        return float(self.hp @ self.logs)

    def trace(self, smoothing: bool, tol: float, max_iter: int) -> EMTrace:
        lls, iterations = self.lls, self.iterations
        note = ""
        if self.degenerate:
            note = f"the E-step degenerated after {iterations} iterations; returning the last valid iterate"
        elif not self.converged:
            last = abs(float(lls[-1]) - float(lls[-2])) if len(lls) > 1 else float("nan")
            note = (f"stopped after {iterations} of max_iter={max_iter} iterations without meeting |ΔL| < {tol:g} "
                    f"(last change {last:.3g}); returning the last iterate")
        return EMTrace(method="ems" if smoothing else "em", tol=tol, max_iter=max_iter, iterations=iterations,
                       converged=self.converged, changes=np.abs(np.diff(lls)), stop="loglik", log_likelihood=lls,
                       note=note)


def _logliks(runs: list[_Row], active: np.ndarray, h: np.ndarray, mx: np.ndarray) -> np.ndarray:
    """L of every active row (reports ``h``) at its (M x) row, each as :meth:`_Row.loglik` computes it: the
    logarithms elementwise on the block, and for the rows with reports in every bucket the sums Σ_j n_j ln (M x)_j
    as a stack of vector products (numpy takes a stacked (1 × d̃)(d̃ × 1) product as the dot product of one row,
    the same sum); −∞ where a bucket with reports has (M x)_j ≤ 0; the other rows one at a time."""
    dense = np.array([runs[t].dense for t in active])
    if dense.all():  # the usual block: every bucket has reports (no masks to apply; the same operations)
        with np.errstate(divide="ignore", invalid="ignore"):
            sums = np.matmul(h[:, None, :], np.log(mx)[:, :, None])[:, 0, 0]
        return np.where((mx <= 0).any(axis=1), -math.inf, sums)
    out = np.empty(active.size)
    if dense.any():
        with np.errstate(divide="ignore", invalid="ignore"):
            logs = np.log(mx[dense])
            sums = np.matmul(h[dense][:, None, :], logs[:, :, None])[:, 0, 0]
        out[dense] = np.where((mx[dense] <= 0).any(axis=1), -math.inf, sums)
    for i in np.flatnonzero(~dense):
        out[i] = runs[active[i]].loglik(mx[i])
    return out


def _em_one(h: np.ndarray, ch: Channel, smoothing: bool, tol: float, max_iter: int, x: np.ndarray) -> _Row:
    """Algorithm 1 on one histogram from ``x``: :func:`_em_rows`'s iteration for a single row without its block
    bookkeeping (a row alone through it cost twice the interpreter time: the Reproduce page's studies, which
    estimate one collection at a time, took 27 s instead of 17); the same operations, so the same estimate and
    trace, bit for bit."""
    run = _Row(h)
    ratio = np.zeros_like(h)
    smoothed = np.empty_like(x)
    mx = ch.dot(x)
    lls = [run.loglik(mx)]
    for _ in range(max_iter):
        checkpoint()
        np.divide(h, mx, out=ratio, where=run.pos)  # n_j / (M x)_j; 0 where no report fell
        p = ch.tdot(ratio)
        p *= x  # E-step: P_i = x_i Σ_j n_j M[j, i] / (M x)_j
        total = p.sum()
        if not (total > 0 and math.isfinite(total)):  # cannot happen with a valid channel; keep x
            run.degenerate = True
            break
        p /= total  # M-step
        if smoothing:
            _smooth_into(p, smoothed)
            x, smoothed = smoothed, x
        else:
            x = p
        mx = ch.dot(x)
        lls.append(run.loglik(mx))
        run.iterations += 1
        if abs(lls[-1] - lls[-2]) < tol:
            run.converged = True
            break
    run.x, run.lls = x.copy(), np.asarray(lls)
    return run


def _em_rows(h: np.ndarray, ch: Any, smoothing: bool, tol: float, max_iter: int, x0: np.ndarray) -> list[_Row]:
    """Algorithm 1 on every row of ``h`` (T × d̃) from the rows of ``x0``, the active rows as one block (see
    :func:`expectation_maximization_batch`) multiplied by ``ch.dot_rows``/``ch.tdot_rows`` (block, the block's row
    numbers); returns each row's run, its ``x`` the estimate."""
    runs = [_Row(row) for row in h]
    active = np.arange(h.shape[0])
    pos = h > 0
    x = x0.copy()
    ratio = np.zeros_like(h)
    smoothed = np.empty_like(x)
    mx = ch.dot_rows(x, active)
    last = _logliks(runs, active, h, mx)
    history = [last.copy()]  # L of every row after each iteration (NaN once a row has stopped)
    iterations = np.zeros(h.shape[0], dtype=np.int64)
    for _ in range(max_iter):
        checkpoint()
        np.divide(h, mx, out=ratio, where=pos)  # n_j / (M x)_j; 0 where no report fell
        p = ch.tdot_rows(ratio, active)
        p *= x  # E-step: P_i = x_i Σ_j n_j M[j, i] / (M x)_j
        total = p.sum(axis=1)
        done = ~((total > 0) & np.isfinite(total))  # cannot happen with a valid channel; keep x
        if done.any():
            for i in np.flatnonzero(done):
                runs[active[i]].degenerate = True
                runs[active[i]].x = x[i].copy()
            keep = ~done
            active, h, pos, x, p, ratio, total, last = (a[keep] for a in (active, h, pos, x, p, ratio, total, last))
            smoothed = smoothed[keep]
            if active.size == 0:
                break
        p /= total[:, None]  # M-step
        if smoothing:
            _smooth_into(p, smoothed)
            x, smoothed = smoothed, x
        else:
            x = p
        mx = ch.dot_rows(x, active)
        now = _logliks(runs, active, h, mx)
        iterations[active] += 1
        step = np.full(len(runs), np.nan)
        step[active] = now
        history.append(step)
        with np.errstate(invalid="ignore"):
            done = np.abs(now - last) < tol  # a NaN change (−∞ twice) never stops the run
        last = now
        if done.any():
            for i in np.flatnonzero(done):
                runs[active[i]].converged = True
                runs[active[i]].x = x[i].copy()
            keep = ~done
            active, h, pos, x, mx, ratio, smoothed, last = (a[keep] for a in (active, h, pos, x, mx, ratio, smoothed,
                                                                              last))
            if active.size == 0:
                break
    for i, t in enumerate(active):  # the cap was hit
        runs[t].x = x[i].copy()
    table = np.array(history)
    for t, run in enumerate(runs):
        run.iterations = int(iterations[t])
        run.lls = table[:run.iterations + 1, t].copy()
    return runs


def em(histogram: Any, channel: Any, *, epsilon: float | None = None, tol: float | None = None,
       max_iter: int = DEFAULT_MAX_ITER, init: Any = None) -> tuple[np.ndarray, EMTrace]:
    """Plain EM (Algorithm 1) with the paper's τ = 10⁻³·e^ε unless ``tol`` is given.

    Parameters
    ----------
    histogram, channel, max_iter, init
        As for :func:`expectation_maximization`.
    epsilon : float, optional
        ε, for the default τ (required when ``tol`` is None).
    tol : float, optional
        τ, overriding the default.

    Returns
    -------
    tuple of (numpy.ndarray, EMTrace)
        The estimate and the run's trace.

    Raises
    ------
    InvalidInput
        As :func:`expectation_maximization`, or without ε and ``tol``.

    References
    ----------
    Square-wave paper (Li et al., SIGMOD'20), §5.5 (Algorithm 1), §6.1 (τ = 10⁻³·e^ε).
    """
    tau = default_tolerance("em", epsilon) if tol is None else tol
    return expectation_maximization(histogram, channel, smoothing=False, tol=tau, max_iter=max_iter, init=init)


def ems(histogram: Any, channel: Any, *, tol: float | None = None, max_iter: int = DEFAULT_MAX_ITER,
        init: Any = None) -> tuple[np.ndarray, EMTrace]:
    """EM with the binomial (1, 2, 1) smoothing step (EMS), τ = 10⁻³ unless ``tol`` is given.

    Parameters
    ----------
    histogram, channel, max_iter, init
        As for :func:`expectation_maximization`.
    tol : float, optional
        τ (10⁻³ when None).

    Returns
    -------
    tuple of (numpy.ndarray, EMTrace)
        The smoothed maximum-likelihood estimate and the run's trace.

    Raises
    ------
    InvalidInput
        As :func:`expectation_maximization`.

    References
    ----------
    Square-wave paper (Li et al., SIGMOD'20), §5.5 (EMS), §6.1 (τ = 10⁻³).
    """
    tau = EMS_TOL if tol is None else tol
    return expectation_maximization(histogram, channel, smoothing=True, tol=tau, max_iter=max_iter, init=init)


# ============================================================================================ SQUAREM
#: How the change between two iterates is measured by the stopping rules: the four ``err_func`` rules of the IBU
#: paper's reference implementation (multi-freq-ldpy 0.2.5, ``estimators.Histogram_estimator.IBU``: the largest
#: absolute change ``max_abs`` — its default —, the mean squared change ``mse``, the mean absolute change ``mae``
#: and the largest squared change ``max_squared``), and the L1 change ``l1`` (Σ |change|, = d·mae).
CHANGE_MEASURES = ("max_abs", "mse", "mae", "max_squared", "l1")


def change_measure(diff: np.ndarray, rule: str) -> np.ndarray:
    """Per-row change of a (rows, d) block of iterate differences under ``rule``; overwrites ``diff``.

    Parameters
    ----------
    diff : numpy.ndarray
        Differences of successive iterates, shape (rows, d), float64; replaced by their absolute values.
    rule : str
        One of :data:`CHANGE_MEASURES`: ``"max_abs"`` (max |Δ|), ``"mse"`` (mean Δ²), ``"mae"`` (mean |Δ|),
        ``"max_squared"`` (max Δ²) — the four stopping rules of the IBU paper's reference implementation
        (multi-freq-ldpy) — or ``"l1"`` (Σ |Δ|, ours).

    Returns
    -------
    numpy.ndarray
        One change per row.

    Raises
    ------
    InvalidInput
        For an unknown rule.

    References
    ----------
    Arcolezi, Cerna, Palamidessi, "On the Utility Gain of Iterative Bayesian Update", DBSec 2023, Eq. (3) (the
    iteration these rules stop).
    """
    np.abs(diff, out=diff)
    if rule == "max_abs":
        return diff.max(axis=1)
    if rule == "mae":
        return diff.mean(axis=1)
    if rule == "l1":
        return diff.sum(axis=1)
    if rule not in ("mse", "max_squared"):
        raise InvalidInput(f"the change measure must be one of {list(CHANGE_MEASURES)}, got {rule!r}")
    np.square(diff, out=diff)
    return diff.max(axis=1) if rule == "max_squared" else diff.mean(axis=1)


def squarem(step: Callable[[np.ndarray], np.ndarray], x0: np.ndarray, *,
            objective: Callable[[np.ndarray], float] | None = None, tol: float = 1e-12, max_iter: int = 10_000,
            residual: str = "max_abs", method: str = "squarem") -> tuple[np.ndarray, EMTrace]:
    """Accelerate the fixed-point iteration x ← F(x) of an EM map with SQUAREM (Varadhan & Roland 2008).

    One cycle, the SqS3 scheme of the reference implementation: x₁ = F(x), x₂ = F(x₁), r = x₁ − x,
    v = x₂ − x₁ − r, α = ‖r‖/‖v‖ clamped to [1, α_max], x' = F(x + 2αr + α²v) (the stabilisation step). The
    cycle falls back to the plain double step x₂ — which EM's monotonicity makes safe — whenever the
    extrapolation leaves the feasible set (a negative entry, or a non-finite value) or lowers the
    ``objective`` (the log-likelihood, when given); α_max grows fourfold after every accepted full step and is
    reset after a fall-back, as in the reference. The run stops at the first iterate whose fixed-point residual
    ‖F(x) − x‖ (a :data:`CHANGE_MEASURES` rule) is below ``tol`` and returns F(x); iterates are non-negative.

    Parameters
    ----------
    step : callable
        The EM map F (array → array of the same shape).
    x0 : array_like
        The starting iterate.
    objective : callable, optional
        The log-likelihood to keep monotone (None: only feasibility is checked).
    tol : float, default 1e-12
        The residual below which the run stops (finite, ≥ 0).
    max_iter : int, default 10000
        Cap on the SQUAREM cycles (≥ 1).
    residual : str, default "max_abs"
        The norm of the fixed-point residual, a key of :data:`CHANGE_MEASURES`.
    method : str, default "squarem"
        The name recorded in the trace.

    Returns
    -------
    tuple of (numpy.ndarray, EMTrace)
        F(x) at the last iterate, and the trace (residual per cycle, evaluations of F).

    Raises
    ------
    InvalidInput
        For an unknown residual, a bad ``max_iter`` or ``tol``.

    References
    ----------
    Varadhan & Roland, "Simple and globally convergent methods for accelerating the convergence of any EM
    algorithm", Scand. J. Statist. 2008; the IBU paper's Eq. (3) is the EM map it accelerates there.
    """
    x = np.array(x0, dtype=np.float64)
    if residual not in CHANGE_MEASURES:
        raise InvalidInput(f"residual must be one of {list(CHANGE_MEASURES)}, got {residual!r}")
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise InvalidInput(f"max_iter must be a positive integer, got {max_iter!r}")
    if not (math.isfinite(tol) and tol >= 0):
        raise InvalidInput(f"tol must be a finite number ≥ 0, got {tol!r}")

    def norm(z: np.ndarray) -> float:
        return float(change_measure(np.array(z, dtype=np.float64)[None, :], residual)[0])

    step_max, step_max0, mstep = 1.0, 1.0, 4.0
    changes: list[float] = []
    lls: list[float] = [objective(x)] if objective is not None else []
    evaluations, converged, note = 0, False, ""
    x1 = step(x)
    evaluations += 1
    for _ in range(int(max_iter)):
        checkpoint()
        r = x1 - x
        res = norm(r)
        changes.append(res)
        if not math.isfinite(res):
            note = "stopped: a non-finite value appeared"
            x1 = x
            break
        if res < tol:
            converged = True
            break
        x2 = step(x1)
        evaluations += 1
        v = x2 - x1 - r
        sv = float(np.sqrt(np.sum(v * v)))
        alpha = float(np.sqrt(np.sum(r * r))) / sv if sv > 0 else 1.0
        alpha = min(max(alpha, 1.0), step_max)
        if alpha > 1.0 + 1e-12:
            candidate = x + 2.0 * alpha * r + alpha * alpha * v
            ok = bool(np.all(np.isfinite(candidate)) and np.all(candidate >= 0))
            if ok:
                candidate = step(candidate)  # the stabilisation step
                evaluations += 1
                ok = bool(np.all(np.isfinite(candidate)) and np.all(candidate >= 0))
            if ok and objective is not None:
                ok = objective(candidate) >= lls[-1] - 1e-12 * max(1.0, abs(lls[-1]))
        else:  # α = 1: the extrapolation is the double step itself
            candidate, ok = x2, True
        if ok:
            x = candidate
        else:  # fall back to the plain double step, which EM's monotonicity makes safe
            x = x2
            if alpha == step_max:
                step_max = max(step_max0, step_max / mstep)
            alpha = 1.0
        if alpha == step_max:
            step_max *= mstep
        if objective is not None:
            lls.append(objective(x))
        x1 = step(x)
        evaluations += 1
    else:
        note = f"did not reach tol={tol:g} within max_iter={max_iter} SQUAREM cycles; returned the last iterate"
    trace = EMTrace(method=method, tol=float(tol), max_iter=int(max_iter), iterations=len(changes),
                    converged=converged, changes=np.asarray(changes), stop=residual,
                    log_likelihood=np.asarray(lls) if lls else None, evaluations=evaluations, note=note)
    return np.asarray(x1, dtype=np.float64), trace
