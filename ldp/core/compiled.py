"""The engine's compiled loops (numba): imported on first use only (``import ldp`` and the dashboard's start do not
load numba), their machine code cached on disk after the first compilation.

The engine is numpy; a loop is compiled only where numpy's passes cost several times the random draws they
process (docs/design.md, "Compiled code"):

* :func:`fix_subset_rows`: subset selection's exact fix-up, sequential by nature (one accepted or rejected cell at
  a time);
* :func:`discrete_laplace_rows`: SHE's discrete Laplace noise on its grid, one fused pass per row instead of a
  dozen numpy passes, with its own logarithm (numba calls libm's scalar ``log``, five times numpy's AVX-512 one;
  fdlibm's algorithm below, branch-free, vectorizes). ``error_model="numpy"`` everywhere: Python's division
  check is a branch that stops a loop from vectorizing.

Every loop consumes random numbers that numpy drew (the caller's ``Generator`` or ``SecureRandom``): seeding and
streams stay numpy's. The loops run without bounds checks: their callers (``ldp.core.randomness.discrete_laplace_grid``,
``ldp.mechanisms.frequency.subset_selection.subset_bits``) check every array's shape, type and range first.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba import types
from numba.extending import intrinsic

__all__ = ["REFINE_BELOW", "discrete_laplace_refine", "discrete_laplace_rows", "fix_subset_rows"]

# ------------------------------------------------------------------------------------------ subset selection


@numba.njit(nogil=True, error_model="numpy", cache=True)
def fix_subset_rows(bits: np.ndarray, skip: np.ndarray, target: np.ndarray, count: np.ndarray, cells: np.ndarray,
                    row: int) -> int:  # pragma: no cover - compiled (run by the tests through sample_subsets)
    """Bring rows ``row``, ``row + 1``, … of the 0/1 matrix ``bits`` from ``count`` set cells to ``target``, one
    uniform cell at a time: each candidate of ``cells`` (uniform on [0, universe), taken in order) is accepted
    when it is a set cell of a row that clears or a free cell (other than the row's ``skip``) of a row that sets,
    and rejected otherwise (``ldp.mechanisms.frequency.subset_selection.sample_subsets`` gives the argument).

    Parameters
    ----------
    bits : numpy.ndarray
        uint8 0/1, rows × universe, C-contiguous: the rows' cells, updated in place.
    skip : numpy.ndarray
        int64, one per row: the cell a row never sets (−1: none).
    target : numpy.ndarray
        int64, one per row: the set cells the row must end with.
    count : numpy.ndarray
        int64, one per row: the set cells now (updated).
    cells : numpy.ndarray
        Integer candidates, uniform on [0, universe), taken in order.
    row : int
        The first row to bring to its target.

    Returns
    -------
    int
        The first row not brought to its target when ``cells`` ran out (``count`` holds its progress), or the
        number of rows.
    """
    m = bits.shape[0]
    used = 0
    available = cells.shape[0]
    while row < m:
        k = count[row]
        t = target[row]
        if k != t:
            own = bits[row]
            if k > t:
                while k > t and used < available:
                    c = cells[used]
                    used += 1
                    if own[c] == 1:
                        own[c] = 0
                        k -= 1
            else:
                leave = skip[row]
                while k < t and used < available:
                    c = cells[used]
                    used += 1
                    if own[c] == 0 and c != leave:
                        own[c] = 1
                        k += 1
            count[row] = k
            if k != t:
                return row
        row += 1
    return row


# ------------------------------------------------------------------------------------------ discrete Laplace

#: A uniform's w (below) under this is refined with a second uniform: 2⁻¹².
REFINE_BELOW = 2.0**-12
_MANTISSA = (1 << 52) - 1
_ONE = 1023 << 52
# fdlibm's e_log.c: ln 2 split in two, and the minimax coefficients of its log on [√½, √2) (error < 1 ulp)
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_LG1 = 6.666666666666735130e-01
_LG2 = 3.999999999940941908e-01
_LG3 = 2.857142874366239149e-01
_LG4 = 2.222219843214978396e-01
_LG5 = 1.818357216161805012e-01
_LG6 = 1.531383769920937332e-01
_LG7 = 1.479819860511658591e-01
_SQRT2 = math.sqrt(2.0)


@intrinsic
def _bits(typingctx, x):  # noqa: ANN001, ANN202 - numba's intrinsic protocol
    """The IEEE-754 bits of a float64, as an int64 (a bit cast: no conversion, vectorizable)."""
    def codegen(context, builder, signature, args):  # noqa: ANN001, ANN202, ARG001
        return builder.bitcast(args[0], context.get_value_type(types.int64))
    return types.int64(types.float64), codegen


@intrinsic
def _from_bits(typingctx, x):  # noqa: ANN001, ANN202 - numba's intrinsic protocol
    """The float64 whose IEEE-754 bits are the int64 x (a bit cast)."""
    def codegen(context, builder, signature, args):  # noqa: ANN001, ANN202, ARG001
        return builder.bitcast(args[0], context.get_value_type(types.float64))
    return types.float64(types.int64), codegen


@numba.njit(inline="always", error_model="numpy", cache=True)
def _ln(x: float) -> float:  # pragma: no cover - compiled
    """ln x for a positive normal float64, to within fdlibm's 1 ulp: x = 2^e·m with m ∈ [1, 2) read from its bits,
    m moved into [√½, √2), then fdlibm's ln m = f − ½f² + s(½f² + R(s²)), s = f/(2 + f), f = m − 1, and e·ln 2
    in two parts. Branch-free, so a loop of it vectorizes (libm's scalar log, which numba calls, does not)."""
    hx = _bits(x)
    m = _from_bits((hx & _MANTISSA) | _ONE)
    big = m > _SQRT2
    m = m * 0.5 if big else m
    k = np.float64((hx >> 52) - 1023) + (1.0 if big else 0.0)
    f = m - 1.0
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    r = z * (_LG1 + w * (_LG3 + w * (_LG5 + w * _LG7))) + w * (_LG2 + w * (_LG4 + w * _LG6))
    hfsq = 0.5 * f * f
    return k * _LN2_HI - ((hfsq - (s * (hfsq + r) + k * _LN2_LO)) - f)


@numba.njit(inline="always", error_model="numpy", cache=True)
def _constants(log_a: float) -> tuple[float, float, float]:  # pragma: no cover - compiled
    """(ln c, 1/ln a, −1/ln a) for a = e^log_a, c = (1 + a)/2: the factors (1 − 2s)/ln a at s = 0 and s = 1 (the
    latter as −2/ln a + 1/ln a, exactly −1/ln a)."""
    ln_c = math.log1p(-math.expm1(log_a) / (2.0 * math.exp(log_a))) + log_a
    plus = 1.0 / log_a
    return ln_c, plus, -2.0 / log_a + plus


@numba.njit(inline="always", error_model="numpy", cache=True)
def _grid_index(w: float, s: float, ln_c: float, plus: float, minus: float, mine: float, lo: float,
                hi: float) -> float:  # pragma: no cover - compiled
    """clamp(mine + Z, lo, hi) with Z = trunc(ln(w·c)·(1 − 2s)/ln a) (``plus`` = 1/ln a, ``minus`` = −1/ln a)."""
    z = np.trunc((_ln(w) + ln_c) * (minus if s > 0.0 else plus))
    k = mine + z
    k = k if k > lo else lo
    return k if k < hi else hi


@numba.njit(nogil=True, error_model="numpy", cache=True)
def discrete_laplace_rows(u: np.ndarray, log_a: float, own: np.ndarray, own_steps: float, lo: float, hi: float,
                          out: np.ndarray, total: np.ndarray,
                          flagged: np.ndarray) -> tuple[int, int]:  # pragma: no cover - compiled
    """Discrete Laplace noise on a grid, one row (a user) of ``u`` at a time: cell (i, j) gets the index
    k = clamp(own_steps·1[j = own[i]] + Z, lo, hi), Z drawn from the uniform u[i, j] as
    ``ldp.core.randomness.discrete_laplace`` describes. With ``out`` of u's shape (not empty) the indices are
    written there; otherwise the rows' k − own_steps·1[j = own[i]] are added to ``total`` (one row's length: the
    users' own steps are then the caller's, as counts). ``own[i] < 0``: no own value in row i.

    Cells whose w falls below ``REFINE_BELOW`` are left out: the rows holding them are listed in ``flagged``, for
    :func:`discrete_laplace_refine` once their second uniforms are drawn.

    Parameters
    ----------
    u : numpy.ndarray
        float64 uniforms on the 2⁻⁵³ grid of [0, 1), rows × cells, C-contiguous.
    log_a : float
        ln a < 0.
    own : numpy.ndarray
        int64, one per row: the cell that gets ``own_steps`` (−1: none).
    own_steps : float
        The steps added at a row's own cell.
    lo, hi : float
        The grid's ends, in steps (±inf: no clamp).
    out : numpy.ndarray
        float64 of u's shape, or empty (then ``total``).
    total : numpy.ndarray
        float64 of one row's length (used when ``out`` is empty).
    flagged : numpy.ndarray
        int64, one per row: receives the rows that hold cells left out.

    Returns
    -------
    tuple of (int, int)
        The rows listed in ``flagged`` and the cells left out (the second uniforms to draw).
    """
    rows, d = u.shape
    ln_c, plus, minus = _constants(log_a)
    write = out.shape[0] > 0
    listed = 0
    left = 0
    for i in range(rows):
        row = u[i]
        v = own[i]
        low = 0
        if write:
            dest = out[i]
            for j in range(d):
                x = row[j] * 2.0
                s = math.floor(x)
                w = x - s
                low += 1 if w < REFINE_BELOW else 0
                dest[j] = _grid_index(max(w, REFINE_BELOW), s, ln_c, plus, minus, own_steps if j == v else 0.0,
                                      lo, hi)
        else:
            for j in range(d):
                x = row[j] * 2.0
                s = math.floor(x)
                w = x - s
                mine = own_steps if j == v else 0.0
                k = _grid_index(max(w, REFINE_BELOW), s, ln_c, plus, minus, mine, lo, hi)
                low += 1 if w < REFINE_BELOW else 0
                total[j] += k - mine if w >= REFINE_BELOW else 0.0
        if low:
            flagged[listed] = i
            listed += 1
            left += low
    return listed, left


@numba.njit(nogil=True, error_model="numpy", cache=True)
def discrete_laplace_refine(u: np.ndarray, flagged: np.ndarray, extra: np.ndarray, log_a: float, own: np.ndarray,
                            own_steps: float, lo: float, hi: float, out: np.ndarray,
                            total: np.ndarray) -> None:  # pragma: no cover - compiled
    """The cells :func:`discrete_laplace_rows` left out, in the rows ``flagged`` (in order): each w below
    ``REFINE_BELOW`` becomes w + (e + 2⁻⁵⁴)·2⁻⁵² with e the next of ``extra`` (row-major order), and its index is
    written to ``out`` or added to ``total`` as there.

    Parameters
    ----------
    u, log_a, own, own_steps, lo, hi, out, total : as for :func:`discrete_laplace_rows`
        The same arguments as the call that left the cells out.
    flagged : numpy.ndarray
        int64: the rows it listed.
    extra : numpy.ndarray
        float64 uniforms, one per cell left out, in row-major order.
    """
    d = u.shape[1]
    ln_c, plus, minus = _constants(log_a)
    write = out.shape[0] > 0
    used = 0
    for i in flagged:
        v = own[i]
        for j in range(d):
            x = u[i, j] * 2.0
            s = math.floor(x)
            w = x - s
            if w < REFINE_BELOW:
                w += (extra[used] + 2.0**-54) * 2.0**-52
                used += 1
                mine = own_steps if j == v else 0.0
                k = _grid_index(w, s, ln_c, plus, minus, mine, lo, hi)
                if write:
                    out[i, j] = k
                else:
                    total[j] += k - mine
