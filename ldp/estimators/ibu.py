"""Iterative Bayesian Update (IBU): the EM estimator of Arcolezi, Cerna and Palamidessi (DBSec 2023).

Notation of the IBU paper (§2.1, §2.4): the observed distribution f̃ on the outputs, the channel
matrix A (A_vy = probability of output y from input v) and the estimate f̂. Starting from the
uniform distribution f̂⁰, Eq. (3) iterates

    f̂ᵗ⁺¹ = f̃ · (f̂ᵗ * A) / (f̂ᵗ · A),   i.e.   f̂ᵗ⁺¹_v = f̂ᵗ_v Σ_y f̃_y A_vy / (f̂ᵗ·A)_y.

For a pure mechanism (Def. 2) the channel is structured: p* on the diagonal and q* elsewhere,
A = q*·J + (p* − q*)·I, so (f·A)_y = q*·Σf + (p* − q*)·f_y and one iteration costs O(d) instead
of the O(d²) of a dense matrix product. With a = p* − q*, k = q*/a and s = Σ f̂ᵗ,

    w_y = f̃_y / (f̂ᵗ_y + k s),   f̂ᵗ⁺¹_y = f̂ᵗ_y (w_y + k Σ_x w_x).

**Observed distribution.** f̃ = C / Σ_y C(y), the support counts normalized to sum to one. For
GRR-like mechanisms (GRR, L-GRR) every report supports exactly one value, so Σ C = n and this is
the paper's f̃ = C/n. For reports that support several values (unary encoding, THE, SS, local
hashing, HR and their longitudinal versions) Σ C ≠ n; we follow the paper's reference
implementation (multi-freq-ldpy, ``*_Aggregator_IBU``): f̃ = C / Σ C with the same p*, q* channel.
Since Eq. (3) is unchanged when A is multiplied by a constant, this is IBU on the row-normalized
channel A / (p* + (d−1) q*), whose output distribution is E[C] / E[Σ C]: the distribution of one
supported value drawn from a random report.

**Stopping.** The iteration stops at the first t with ‖f̂ᵗ⁺¹ − f̂ᵗ‖ < tol and returns f̂ᵗ⁺¹; otherwise after
``max_iter`` iterations it returns the last iterate and records that it did not converge (§4.1 defaults: 10,000
iterations, tolerance 10⁻¹²). The change is measured by ``stop``, one of the reference implementation's four
``err_func`` rules (multi-freq-ldpy 0.2.5, ``estimators.Histogram_estimator.IBU``, which the paper's experiments
ran, §5 Listing 1.1):

- ``max_abs`` — max_y |f̂ᵗ⁺¹_y − f̂ᵗ_y| (the reference default, and ours);
- ``mse`` — mean_y (f̂ᵗ⁺¹_y − f̂ᵗ_y)²;
- ``mae`` — mean_y |f̂ᵗ⁺¹_y − f̂ᵗ_y|;
- ``max_squared`` — max_y (f̂ᵗ⁺¹_y − f̂ᵗ_y)²;

or ours, ``l1`` — Σ_y |f̂ᵗ⁺¹_y − f̂ᵗ_y| (= d·mae). With the same tol, the squared rules stop much earlier (a
change of 10⁻⁶ already meets 10⁻¹²) and ``mae`` earlier than ``max_abs``; the reference returns f̂ᵗ⁺¹ at the
first t below tol, as we do, and the last iterate after nb_iter iterations. The paper (§4.1) fixed 10,000
iterations and tol = 10⁻¹² with the default ``max_abs``.

**Limit.** Eq. (3) is EM for the likelihood Σ_y f̃_y ln (f·A)_y, which is concave, so from any
full-support start it converges to the maximum-likelihood estimate (Vardi, Shepp & Kaufman 1985).
With the structured channel the maximizer has a closed form (KKT, water-filling):
f̂_y = max(c·f̃_y − k, 0) with c chosen so that Σ f̂ = 1 (:func:`ibu_mle`, O(d log d)); it is unique
(the objective is strictly concave in every f_y with f̃_y > 0, and f̃_y = 0 forces f_y = 0).

**Methods.** The paper's plain iterations (``method="em"``, 10,000 iterations, tolerance 10⁻¹², §4.1) stop far
from that limit when the channel is noisy: at d = 1024 and ε = 1, OUE, OLH, SS, HR, THE and the longitudinal
chains are still 0.37–0.39 away (max |iterate − limit|, with frequencies ≤ 0.39), because the likelihood is
nearly flat and each iteration changes the iterate by less than the tolerance. The default ``method="mle"``
therefore returns the limit itself (exact to rounding, well under a millisecond at d = 4096); ``"squarem"``
accelerates Eq. (3) with SQUAREM (Varadhan & Roland 2008) — a generic alternative, whose fixed-point residual
meets 10⁻¹² in a few hundred cycles but whose iterate can still differ from the limit by ~10⁻⁴ where the
likelihood is flattest. Every estimate reports its ``distance_to_limit`` so that a page can show how far the
plain iterations stopped (early stopping regularises towards the uniform start: for GRR at low ε it can beat
the limit).
"""

from __future__ import annotations

import numpy as np

from ldp.core.cancellation import checkpoint
from ldp.core.errors import InvalidInput
from ldp.core.params import Param
from ldp.core.registry import ESTIMATORS
from ldp.core.results import Aggregate, Estimate
from ldp.estimators.base import Estimator
from ldp.maths.em import CHANGE_MEASURES, EMTrace, change_measure, squarem
from ldp.mechanisms.base import Mechanism

__all__ = ["IBU", "IBU_PAPER", "METHODS", "REFERENCE_STOP_RULES", "STOP_RULES", "IBUTrace", "ibu_em_batch",
           "ibu_iterates", "ibu_log_likelihood", "ibu_mle", "ibu_observed", "ibu_squarem", "ibu_step",
           "iterative_bayesian_update", "run_ibu"]

IBU_PAPER = "Arcolezi, Cerna, Palamidessi — On the Utility Gain of Iterative Bayesian Update (DBSec 2023)"
STOP_RULES = CHANGE_MEASURES
#: The four stopping rules of the reference implementation (multi-freq-ldpy's ``err_func``), its default first.
REFERENCE_STOP_RULES = ("max_abs", "mse", "mae", "max_squared")
METHODS = ("mle", "squarem", "em")
# Iterates kept per block: the changes of a block are computed in one vectorized pass (the stopping
# iteration is still the first one below tol, exactly as in the reference implementation).
_BLOCK_CELLS = 1 << 16


IBUTrace = EMTrace  # one trace record for every EM-type run (ldp.maths.em)


def ibu_observed(counts: np.ndarray) -> np.ndarray:
    """The observed distribution f̃ = C / Σ C (= C / n for GRR-like mechanisms); see the module docstring.

    Parameters
    ----------
    counts : numpy.ndarray
        The support counts C (d,): finite and non-negative.

    Returns
    -------
    numpy.ndarray
        f̃ (d,), non-negative and summing to one.

    Raises
    ------
    InvalidInput
        When ``counts`` is not a 1-D array of finite non-negative numbers, or all of them are zero.
    """
    c = np.asarray(counts, dtype=np.float64)
    if c.ndim != 1 or not np.all(np.isfinite(c)) or np.any(c < 0):
        raise InvalidInput("IBU: support counts must be a 1-D array of finite non-negative numbers")
    total = c.sum()
    if total <= 0:
        raise InvalidInput("IBU: the support counts are all zero; there is nothing to estimate")
    return c / total


def _check_channel(observed: np.ndarray, p_star: float, q_star: float) -> tuple[np.ndarray, float, float]:
    obs = np.asarray(observed, dtype=np.float64)
    if obs.ndim != 1 or obs.size < 1:
        raise InvalidInput("IBU: the observed distribution must be a non-empty 1-D array")
    if not np.all(np.isfinite(obs)) or np.any(obs < 0) or obs.sum() <= 0:
        raise InvalidInput("IBU: the observed distribution must be finite, non-negative and not all zero")
    p, q = float(p_star), float(q_star)
    if not (0.0 <= q < p):
        raise InvalidInput(f"IBU: needs 0 ≤ q* < p*, got p*={p!r}, q*={q!r}")
    return obs, p, q


def ibu_step(estimate: np.ndarray, observed: np.ndarray, p_star: float, q_star: float) -> np.ndarray:
    """One iteration of Eq. (3) with the structured channel (O(d)); reference for tests and certificates.

    Parameters
    ----------
    estimate : numpy.ndarray
        The current iterate f̂ᵗ (d,), non-negative.
    observed : numpy.ndarray
        The observed distribution f̃ (d,): finite, non-negative, not all zero (:func:`ibu_observed`).
    p_star, q_star : float
        The channel's probabilities p* (a report supports the true value) and q* (it supports another value),
        0 ≤ q* < p* (Def. 2 of the IBU paper).

    Returns
    -------
    numpy.ndarray
        The next iterate f̂ᵗ⁺¹ (d,); it sums to Σ f̃ (coordinates whose (f̂ᵗ·A)_y is 0 contribute nothing).

    Raises
    ------
    InvalidInput
        When ``observed`` is not a non-empty 1-D finite non-negative array with a positive sum, or unless
        0 ≤ q* < p*.

    References
    ----------
    Arcolezi, Cerna & Palamidessi, On the Utility Gain of Iterative Bayesian Update (DBSec 2023), Eq. (3).
    """
    f = np.asarray(estimate, dtype=np.float64)
    obs, p, q = _check_channel(observed, p_star, q_star)
    a = p - q
    denom = q * f.sum() + a * f  # (f·A)_y
    ratio = np.divide(obs, denom, out=np.zeros_like(obs), where=denom > 0)
    return f * (q * ratio.sum() + a * ratio)  # f * (A·ratio)


def _change(diff: np.ndarray, stop: str) -> np.ndarray:
    """Per-row change of a (rows, d) block of iterate differences under the stopping rule ``stop``."""
    return change_measure(diff, stop)


def iterative_bayesian_update(observed: np.ndarray, p_star: float, q_star: float, *, max_iter: int = 10_000,
                              tol: float = 1e-12, stop: str = "max_abs") -> tuple[np.ndarray, IBUTrace]:
    """Run Eq. (3) from the uniform distribution with the structured pure-LDP channel.

    Returns the estimate and an :class:`IBUTrace`. The estimate is the first iterate whose change is
    below ``tol`` or, if there is none within ``max_iter`` iterations, the last iterate
    (``trace.converged`` is then False). Every iterate is non-negative and sums to Σ f̃.

    Parameters
    ----------
    observed : numpy.ndarray
        The observed distribution f̃ (d,): finite, non-negative, not all zero (:func:`ibu_observed`).
    p_star, q_star : float
        The channel's probabilities p* (a report supports the true value) and q* (it supports another value),
        0 ≤ q* < p* (Def. 2 of the IBU paper).
    max_iter : int, default 10,000
        The largest number of iterations (≥ 1; the paper's §4.1 value is the default).
    tol : float, default 1e-12
        Stop at the first iteration whose change is below ``tol`` (finite, ≥ 0; §4.1).
    stop : str, default "max_abs"
        The change measure, one of :data:`STOP_RULES` (see the module docstring).

    Returns
    -------
    tuple of (numpy.ndarray, IBUTrace)
        The estimate (d,) and the trace of the run (iterations, converged, change per iteration, note).

    Raises
    ------
    InvalidInput
        For an invalid observed distribution or channel (see :func:`ibu_step`), an unknown ``stop``, a
        ``max_iter`` that is not a positive integer, or a negative or non-finite ``tol``.
    Cancelled
        When the surrounding :mod:`ldp.core.cancellation` watch asks to stop (checked once per block).

    References
    ----------
    Arcolezi, Cerna & Palamidessi, On the Utility Gain of Iterative Bayesian Update (DBSec 2023), Eq. (3).
    """
    obs, p, q = _check_channel(observed, p_star, q_star)
    if stop not in STOP_RULES:
        raise InvalidInput(f"IBU: stop must be one of {list(STOP_RULES)}, got {stop!r}")
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise InvalidInput(f"IBU: max_iter must be a positive integer, got {max_iter!r}")
    if not np.isfinite(tol) or tol < 0:
        raise InvalidInput(f"IBU: tol must be a finite number ≥ 0, got {tol!r}")
    d = obs.size
    k = q / (p - q)
    k_next = k * float(obs.sum())  # k·Σf̂ᵗ: Σf̂⁰ = 1 (uniform) and Σf̂ᵗ = Σf̃ for t ≥ 1
    block = max(1, min(64, _BLOCK_CELLS // d))
    iterates = np.empty((block + 1, d))
    iterates[0] = 1.0 / d
    w = np.empty(d)
    pieces: list[np.ndarray] = []
    done, converged, note = 0, False, ""
    ks = k
    while done < max_iter:
        checkpoint()
        m = min(block, max_iter - done)
        for i in range(m):
            f = iterates[i]
            if ks > 0:
                np.add(f, ks, out=w)
                np.divide(obs, w, out=w)
            else:  # q* = 0: f̃_y / f_y, and 0 where f_y = 0 (that coordinate stays 0)
                w.fill(0.0)
                np.divide(obs, f, out=w, where=f > 0)
            total = w.sum()
            w += k * total
            np.multiply(f, w, out=iterates[i + 1])
            ks = k_next
        changes = _change(np.subtract(iterates[1:m + 1], iterates[:m]), stop)
        bad = ~np.isfinite(changes)
        below = np.flatnonzero((changes < tol) | bad)
        if below.size:
            j = int(below[0])
            if bad[j]:  # cannot happen for valid input; never loop on NaN
                pieces.append(changes[:j])
                done += j
                note = "stopped: a non-finite value appeared"
                result = iterates[j].copy()
                break
            pieces.append(changes[:j + 1])
            done += j + 1
            converged = True
            result = iterates[j + 1].copy()
            break
        pieces.append(changes)
        done += m
        iterates[0] = iterates[m]
    else:
        result = iterates[0].copy()
        note = f"did not reach tol={tol:g} within max_iter={max_iter}; returned the last iterate"
    trace = IBUTrace(method="em", stop=stop, tol=float(tol), max_iter=int(max_iter), iterations=done,
                     converged=converged, changes=np.concatenate(pieces) if pieces else np.empty(0), note=note)
    return result, trace


def ibu_mle(observed: np.ndarray, p_star: float, q_star: float) -> np.ndarray:
    """The limit of Eq. (3): argmax of Σ_y f̃_y ln (f·A)_y over the probability simplex, in closed form.

    With (f·A)_y ∝ f_y + k (k = q*/(p*−q*), Σf = 1) the KKT conditions give
    f_y = max(c·f̃_y − k, 0), with c = (1 + m k) / (sum of the m largest f̃) for the largest m whose
    m-th largest value stays positive (water-filling; O(d log d)). The result sums to Σ f̃.

    Parameters
    ----------
    observed : numpy.ndarray
        The observed distribution f̃ (d,): finite, non-negative, not all zero (:func:`ibu_observed`).
    p_star, q_star : float
        The channel's probabilities p* (a report supports the true value) and q* (it supports another value),
        0 ≤ q* < p* (Def. 2 of the IBU paper).

    Returns
    -------
    numpy.ndarray
        The maximum-likelihood estimate (d,), non-negative and summing to Σ f̃.

    Raises
    ------
    InvalidInput
        When ``observed`` is not a non-empty 1-D finite non-negative array with a positive sum, or unless
        0 ≤ q* < p*.

    References
    ----------
    Eq. (3) of Arcolezi, Cerna & Palamidessi (DBSec 2023) is EM for this likelihood; its convergence to the
    maximizer follows Vardi, Shepp & Kaufman (JASA 1985).
    """
    obs, p, q = _check_channel(observed, p_star, q_star)
    k = q / (p - q)
    mass = obs.sum()
    srt = np.sort(obs)[::-1]
    cums = np.cumsum(srt)
    m_all = np.arange(1, obs.size + 1)
    scale = (mass + m_all * k) / cums  # c for each candidate support size (cums > 0 since srt[0] > 0)
    ok = scale * srt - k > 0
    m = int(np.flatnonzero(ok)[-1])
    return np.maximum(scale[m] * obs - k, 0.0)


def ibu_iterates(observed: np.ndarray, p_star: float, q_star: float, checkpoints: np.ndarray | list[int]
                 ) -> np.ndarray:
    """The plain Eq. (3) iterates after each number of iterations in ``checkpoints`` (from the uniform start, no
    stopping rule), e.g. to show how early stopping behaves: a (len(checkpoints), d) array for one observed
    distribution, or (len(checkpoints), rows, d) for a (rows, d) batch run together (one O(rows·d) step each).

    Parameters
    ----------
    observed : numpy.ndarray
        One observed distribution f̃ (d,) or a batch (rows, d), each row finite, non-negative, not all zero.
    p_star, q_star : float
        The channel's probabilities p* (a report supports the true value) and q* (it supports another value),
        0 ≤ q* < p* (Def. 2 of the IBU paper).
    checkpoints : array_like of int
        Strictly increasing non-negative iteration counts, the last at most 10,000,000 (0 gives the uniform start).

    Returns
    -------
    numpy.ndarray
        The iterates: (len(checkpoints), d) for one distribution, (len(checkpoints), rows, d) for a batch.

    Raises
    ------
    InvalidInput
        For an invalid row or channel (see :func:`ibu_step`), checkpoints that are not increasing non-negative
        counts or exceed 10,000,000, or ``observed`` with more than two dimensions.

    References
    ----------
    Arcolezi, Cerna & Palamidessi, On the Utility Gain of Iterative Bayesian Update (DBSec 2023), Eq. (3).
    """
    obs_in = np.asarray(observed, dtype=np.float64)
    rows = np.atleast_2d(obs_in)
    for row in rows:
        _check_channel(row, p_star, q_star)
    p, q = float(p_star), float(q_star)
    marks = np.asarray(checkpoints, dtype=np.int64)
    if marks.ndim != 1 or marks.size == 0 or np.any(marks < 0) or np.any(np.diff(marks) <= 0):
        raise InvalidInput("checkpoints must be increasing non-negative iteration counts")
    if marks[-1] > 10_000_000:
        raise InvalidInput(f"at most 10,000,000 iterations, got {int(marks[-1])}")
    if obs_in.ndim > 2:
        raise InvalidInput("IBU: the observed distributions must be a 1-D array or a (rows, d) batch")
    out = np.empty((marks.size, *rows.shape))
    f = np.full(rows.shape, 1.0 / rows.shape[1])
    step = _plain_steps if q > 0 else _plain_steps_masked
    done = 0
    for i, target in enumerate(marks):
        f = step(f, rows, p, q, int(target) - done)
        done = int(target)
        out[i] = f
    return out if obs_in.ndim == 2 else out[:, 0, :]


def _plain_steps(f: np.ndarray, rows: np.ndarray, p: float, q: float, steps: int) -> np.ndarray:
    """``steps`` iterations of Eq. (3) on the (rows, d) batch ``f`` (changed in place and returned) when q* > 0:
    the same operations as :func:`_plain_steps_masked`, in preallocated buffers and without its guard, since every
    denominator q·Σf + (p−q)·f_v ≥ q·Σf is then positive (the iterates stay positive from the uniform start: each
    factor q·Σr + (p−q)·r_v is). The iterates are the guarded loop's to the last bit (IEEE products and sums are
    commutative); one iteration is 8 numpy calls instead of 13, which the 10,000 iterations of the early-stopping
    study spend most of their time on."""
    a = p - q
    ratio, buf = np.empty_like(f), np.empty_like(f)
    col = np.empty((f.shape[0], 1))
    add, multiply, divide, total = np.add, np.multiply, np.divide, np.add.reduce  # total: what ndarray.sum calls
    for _ in range(steps):
        total(f, axis=1, keepdims=True, out=col)
        multiply(col, q, out=col)
        multiply(f, a, out=buf)
        add(buf, col, out=buf)  # the denominators q·Σf + a·f
        divide(rows, buf, out=ratio)
        total(ratio, axis=1, keepdims=True, out=col)
        multiply(col, q, out=col)
        multiply(ratio, a, out=buf)
        add(buf, col, out=buf)
        multiply(f, buf, out=f)  # f · (q·Σr + a·r)
    return f


def _plain_steps_masked(f: np.ndarray, rows: np.ndarray, p: float, q: float, steps: int) -> np.ndarray:
    """``steps`` iterations of Eq. (3), as :func:`ibu_step`, batched over the rows; a zero denominator (possible
    when q* = 0) gives a zero ratio."""
    a = p - q
    ratio = np.empty_like(f)
    for _ in range(steps):
        denom = q * f.sum(axis=1, keepdims=True) + a * f
        np.divide(rows, denom, out=ratio, where=denom > 0)
        ratio[denom <= 0] = 0.0
        f = f * (q * ratio.sum(axis=1, keepdims=True) + a * ratio)
    return f


def ibu_log_likelihood(estimate: np.ndarray, observed: np.ndarray, p_star: float, q_star: float) -> float:
    """Σ_y f̃_y ln (f·A)_y with the structured channel: the objective Eq. (3) climbs (−∞ where a supported
    output has probability 0).

    Parameters
    ----------
    estimate : numpy.ndarray
        The distribution f (d,) at which to evaluate.
    observed : numpy.ndarray
        The observed distribution f̃ (d,), a numpy array (not validated here).
    p_star, q_star : float
        The channel's probabilities p* (a report supports the true value) and q* (it supports another value),
        0 ≤ q* < p* (Def. 2 of the IBU paper).

    Returns
    -------
    float
        The log-likelihood, or −∞ when an output with f̃_y > 0 has (f·A)_y ≤ 0.

    References
    ----------
    Arcolezi, Cerna & Palamidessi, On the Utility Gain of Iterative Bayesian Update (DBSec 2023), Eq. (3).
    """
    f = np.asarray(estimate, dtype=np.float64)
    denom = q_star * f.sum() + (p_star - q_star) * f
    pos = observed > 0
    if np.any(denom[pos] <= 0):
        return -np.inf
    return float(observed[pos] @ np.log(denom[pos]))


def ibu_squarem(observed: np.ndarray, p_star: float, q_star: float, *, max_iter: int = 10_000, tol: float = 1e-12,
                stop: str = "max_abs") -> tuple[np.ndarray, IBUTrace]:
    """Eq. (3) accelerated by SQUAREM (:func:`ldp.maths.em.squarem`) from the uniform start, with the
    log-likelihood as the monotonicity safeguard: the same limit as plain IBU, in far fewer iterations.

    Parameters
    ----------
    observed : numpy.ndarray
        The observed distribution f̃ (d,): finite, non-negative, not all zero (:func:`ibu_observed`).
    p_star, q_star : float
        The channel's probabilities p* (a report supports the true value) and q* (it supports another value),
        0 ≤ q* < p* (Def. 2 of the IBU paper).
    max_iter : int, default 10,000
        The largest number of SQUAREM cycles.
    tol : float, default 1e-12
        Stop when the fixed-point residual, measured by ``stop``, is below ``tol``.
    stop : str, default "max_abs"
        The residual measure, one of :data:`STOP_RULES`.

    Returns
    -------
    tuple of (numpy.ndarray, IBUTrace)
        The estimate (d,) and the trace of the run.

    Raises
    ------
    InvalidInput
        For an invalid observed distribution or channel (see :func:`ibu_step`), an unknown ``stop``, a bad
        ``max_iter`` or ``tol``.

    References
    ----------
    Eq. (3) of Arcolezi, Cerna & Palamidessi (DBSec 2023), accelerated by Varadhan & Roland (Scand. J. Statist.
    2008).
    """
    obs, p, q = _check_channel(observed, p_star, q_star)
    d = obs.size
    return squarem(lambda f: ibu_step(f, obs, p, q), np.full(d, 1.0 / d),
                   objective=lambda f: ibu_log_likelihood(f, obs, p, q), tol=tol, max_iter=max_iter, residual=stop)


def run_ibu(observed: np.ndarray, p_star: float, q_star: float, *, max_iter: int = 10_000, tol: float = 1e-12,
            stop: str = "max_abs", method: str = "mle") -> tuple[np.ndarray, IBUTrace]:
    """IBU on an observed distribution: its limit in closed form (``mle``, the default), Eq. (3) accelerated by
    SQUAREM (``squarem``), or the paper's plain Eq. (3) iterations (``em``, for teaching: with early stopping
    they regularise towards the uniform start).

    Parameters
    ----------
    observed : numpy.ndarray
        The observed distribution f̃ (d,): finite, non-negative, not all zero (:func:`ibu_observed`).
    p_star, q_star : float
        The channel's probabilities p* (a report supports the true value) and q* (it supports another value),
        0 ≤ q* < p* (Def. 2 of the IBU paper).
    max_iter : int, default 10,000
        Iterative methods: the largest number of iterations (cycles for ``squarem``).
    tol : float, default 1e-12
        Iterative methods: the stopping tolerance.
    stop : str, default "max_abs"
        The change measure, one of :data:`STOP_RULES`; for ``mle`` it measures the one Eq. (3) step from the
        limit recorded in ``trace.changes``.
    method : str, default "mle"
        One of :data:`METHODS`: ``"mle"``, ``"squarem"`` or ``"em"``.

    Returns
    -------
    tuple of (numpy.ndarray, IBUTrace)
        The estimate (d,) and the trace (for ``mle``: 0 iterations, converged, one change).

    Raises
    ------
    InvalidInput
        For an unknown ``stop`` or ``method``, an invalid observed distribution or channel, or (iterative
        methods) a bad ``max_iter`` or ``tol``.

    References
    ----------
    Arcolezi, Cerna & Palamidessi, On the Utility Gain of Iterative Bayesian Update (DBSec 2023), Eq. (3).
    """
    if stop not in STOP_RULES:
        raise InvalidInput(f"IBU: stop must be one of {list(STOP_RULES)}, got {stop!r}")
    if method == "em":
        return iterative_bayesian_update(observed, p_star, q_star, max_iter=max_iter, tol=tol, stop=stop)
    if method == "squarem":
        return ibu_squarem(observed, p_star, q_star, max_iter=max_iter, tol=tol, stop=stop)
    if method != "mle":
        raise InvalidInput(f"IBU: method must be one of {list(METHODS)}, got {method!r}")
    est = ibu_mle(observed, p_star, q_star)
    diff = (ibu_step(est, observed, p_star, q_star) - est)[None, :]
    return est, IBUTrace(method="mle", stop=stop, tol=float(tol), max_iter=int(max_iter), iterations=0,
                         converged=True, changes=_change(diff, stop),
                         note="closed-form limit of Eq. (3); changes[0] is one Eq. (3) step from it")


def ibu_em_batch(observed: np.ndarray, p_star: float, q_star: float, *, max_iter: int = 10_000,
                 tol: float = 1e-12, stop: str = "max_abs") -> np.ndarray:
    """IBU's Eq. (3) iteration (:func:`iterative_bayesian_update`) on every row of
    ``observed`` (trials, d) at once: each row starts from the uniform distribution and stops at its
    own first iteration whose change is below ``tol`` (returning that next iterate), or returns its last
    iterate after ``max_iter``. Rows that stop leave the batch.

    Parameters
    ----------
    observed : numpy.ndarray
        The observed distributions (trials, d), each row finite, non-negative, not all zero (not validated here:
        :meth:`IBU.estimate_batch` checks them first).
    p_star, q_star : float
        The channel's probabilities p* (a report supports the true value) and q* (it supports another value),
        0 ≤ q* < p* (Def. 2 of the IBU paper).
    max_iter : int, default 10,000
        The largest number of iterations per row.
    tol : float, default 1e-12
        A row stops at its first iteration whose change is below ``tol``.
    stop : str, default "max_abs"
        The change measure, one of :data:`STOP_RULES`.

    Returns
    -------
    numpy.ndarray
        The estimates (trials, d), row by row equal to :func:`iterative_bayesian_update`'s.

    References
    ----------
    Arcolezi, Cerna & Palamidessi, On the Utility Gain of Iterative Bayesian Update (DBSec 2023), Eq. (3).
    """
    obs = np.ascontiguousarray(observed, dtype=np.float64)
    rows, d = obs.shape
    p, q = float(p_star), float(q_star)
    k = q / (p - q)
    k_next = k * obs.sum(axis=1)
    result = np.empty_like(obs)
    active = np.arange(rows)
    f = np.full((rows, d), 1.0 / d)
    ks = np.full(rows, k)
    w = np.empty_like(f)
    nxt = np.empty_like(f)
    diff = np.empty_like(f)
    for it in range(int(max_iter)):
        if k > 0:
            np.add(f, ks[:, None], out=w)
            np.divide(obs, w, out=w)
        else:
            w.fill(0.0)
            np.divide(obs, f, out=w, where=f > 0)
        total = w.sum(axis=1)
        w += (k * total)[:, None]
        np.multiply(f, w, out=nxt)
        change = _change(np.subtract(nxt, f, out=diff), stop)
        bad = ~np.isfinite(change)
        done = (change < tol) | bad
        last = it == int(max_iter) - 1
        if done.any() or last:
            finished = np.ones(active.size, dtype=bool) if last else done
            src = np.where(bad[:, None], f, nxt)
            result[active[finished]] = src[finished]
            keep = ~finished
            if not keep.any():
                break
            active, f, obs = active[keep], nxt[keep], obs[keep]
            ks = k_next[active]
            w, nxt, diff = np.empty_like(f), np.empty_like(f), np.empty_like(f)
            continue
        f, nxt = nxt, f
        if it == 0:
            ks = k_next[active]
    return result



@ESTIMATORS.register
class IBU(Estimator):
    """Iterative Bayesian update (EM) for every pure mechanism, one-time and longitudinal.

    The returned :class:`Estimate` carries the run: ``iterations``, ``converged`` (the stopping rule was met),
    ``trace`` (the change per iteration), ``diagnostics["distance_to_limit"]`` (max |estimate − the limit of
    Eq. (3)|, 0 for the default ``method="mle"``) and a warning when an iterative method stopped on ``max_iter``
    or away from the limit.

    Parameters
    ----------
    max_iter : int, default 10,000
        Iterative methods: the largest number of Eq. (3) iterations (1 to 10⁸; the paper's §4.1 value).
    tol : float, default 1e-12
        Iterative methods: stop when the change between iterates is below ``tol`` (≥ 0; §4.1).
    stop : str, default "max_abs"
        The change measure of the stopping rule, one of :data:`STOP_RULES`.
    method : str, default "mle"
        ``"mle"`` (the closed-form limit), ``"squarem"`` (accelerated Eq. (3)) or ``"em"`` (plain Eq. (3)).

    Raises
    ------
    InvalidInput
        For a parameter out of its range or choices (at construction); from ``estimate``, for a mechanism that is
        not pure.

    References
    ----------
    Arcolezi, Cerna & Palamidessi, On the Utility Gain of Iterative Bayesian Update (DBSec 2023), Eq. (3).
    """

    name = "ibu"
    display_name = "IBU"
    description = ("Iterative Bayesian update (EM, Eq. 3): its limit, the maximum-likelihood distribution "
                   "(non-negative, sums to one)")
    paper = IBU_PAPER + ", Eq. (3), §2.4; iteration defaults §4.1"
    parameters = (
        Param("max_iter", int, "iterative methods: largest number of Eq. (3) iterations (paper: 10,000)",
              default=10_000, low=1, high=100_000_000),
        Param("tol", float, "iterative methods: stop when the change between iterates is below tol (paper: 1e-12)",
              default=1e-12, low=0.0),
        Param("stop", str, "change measure of the stopping rule: the reference implementation's four — 'max_abs' "
              "(largest absolute change, its default), 'mse' (mean squared), 'mae' (mean absolute), 'max_squared' "
              "(largest squared) — or 'l1' (sum of absolute changes)",
              default="max_abs", choices=STOP_RULES),
        Param("method", str, "'mle' returns the limit of Eq. (3) (the maximum-likelihood estimate) in closed "
              "form; 'squarem' iterates Eq. (3) accelerated by SQUAREM to the same limit; 'em' runs the paper's "
              "plain Eq. (3) iterations (max_iter, tol), which may stop before the limit",
              default="mle", choices=METHODS),
    )
    requires_pure = True
    consistent = True

    def _estimate(self, mechanism: Mechanism, aggregate: Aggregate, base: Estimate | None) -> Estimate:
        counts = aggregate.counts
        clipped = []
        if np.any(counts < 0):  # only moment-matched fast engines (SS's Gaussian) draw negative support counts
            clipped.append(f"{int(np.sum(counts < 0))} negative support count(s) (possible only from an approximate "
                           "fast engine) were set to 0 before IBU")
            counts = np.maximum(counts, 0.0)
        if counts.sum() <= 0:  # nothing observed (possible for tiny n with bit-vector reports): the prior
            d = mechanism.d
            return Estimate(np.full(d, 1.0 / d), self.name, converged=False,
                            warnings=("all support counts are zero; returned the uniform start",),
                            diagnostics=dict(self.params))
        observed = ibu_observed(counts)
        est, trace = run_ibu(observed, mechanism.p_star, mechanism.q_star, **self.params)
        gap = 0.0 if trace.method == "mle" else float(
            np.max(np.abs(est - ibu_mle(observed, mechanism.p_star, mechanism.q_star))))
        warnings = list(clipped)
        if not trace.converged:
            warnings.append(f"IBU did not converge: {trace.note}")
        if gap > 1e-6:
            warnings.append(f"IBU ({trace.method}, {trace.iterations} iterations) stopped {gap:.2g} away from its "
                            "limit (max absolute difference); method='mle' returns the limit")
        return Estimate(est, self.name, converged=trace.converged, iterations=trace.iterations, trace=trace.changes,
                        warnings=tuple(warnings), diagnostics={**self.params, "final_change": trace.final_change,
                                                               "distance_to_limit": gap, "note": trace.note})

    def _estimate_batch(self, mechanism: Mechanism, c: np.ndarray, n: int) -> np.ndarray:
        """All rows at once: the closed-form limit row by row (``"mle"``, O(d log d) each), the batched Eq. (3)
        iteration (``"em"``, valid counts), else one :meth:`estimate` per row."""
        if (self.params["method"] == "em" and np.all(np.isfinite(c)) and np.all(c >= 0)
                and np.all(c.sum(axis=1) > 0) and self.applies_to(mechanism)):
            obs = c / c.sum(axis=1, keepdims=True)
            return ibu_em_batch(obs, mechanism.p_star, mechanism.q_star, max_iter=self.params["max_iter"],
                                tol=self.params["tol"], stop=self.params["stop"])
        if (self.params["method"] == "mle" and np.all(np.isfinite(c)) and np.all(c >= 0)
                and np.all(c.sum(axis=1) > 0) and self.applies_to(mechanism)):
            return np.stack([ibu_mle(row / row.sum(), mechanism.p_star, mechanism.q_star) for row in c])
        return super()._estimate_batch(mechanism, c, n)
