"""The Square Wave (SW) mechanism for numerical values (square-wave paper §5.2–§5.4).

Continuous SW ("randomize before bucketize", §5.4). Input v ∈ [0, 1], output ṽ ∈ [−b, 1 + b] with density
(Eq. (3))

    M_v(ṽ) = p  if |ṽ − v| ≤ b,   q  otherwise,     p = e^ε / (2b e^ε + 1),  q = 1 / (2b e^ε + 1)   (§5.2),

so p/q = e^ε (ε-LDP, Theorem 1) and 2b·p + 1·q = 1. The default b maximizes the upper bound
h(U) − h(Ṽ|V) of the input/output mutual information (§5.3):

    b = (ε e^ε − e^ε + 1) / (2 e^ε (e^ε − 1 − ε))       (→ 1/2 as ε → 0, → 0 as ε → ∞).

The server bucketizes the reports into d̃ equal buckets of [−b, 1 + b] (default d̃ = d) and reconstructs d
equal input buckets of [0, 1] with EM/EMS (:mod:`ldp.estimators.reconstruction`) through the d̃ × d
transition matrix M[j, i] = Pr[ṽ ∈ B̃_j | v uniform in B_i] (§5.5).

Discrete SW ("bucketize before randomize", §5.4). Input code v ∈ {0, …, d−1}, output ṽ ∈ {−b, …, d−1+b}
(reported as ṽ + b ∈ [0, d + 2b)), Pr[ṽ] = p if |ṽ − v| ≤ b else q with p = e^ε / ((2b+1)e^ε + d − 1),
q = 1 / ((2b+1)e^ε + d − 1) and default b = ⌊b_MI · d⌋ (b_MI the continuous choice above); b = 0 is GRR.

The transition matrix in closed form
------------------------------------
Write M_v = q + (p − q)·1[|ṽ − v| ≤ b]. For output bucket [a, c] and input bucket [s, t] (width w),

    M[j, i] = q (c − a) + (p − q)/w · A,   A = area{(y, v) ∈ [a, c] × [s, t] : |y − v| ≤ b} = ∫_{−b}^{b} T(z) dz,

where T(z) = |[a, c] ∩ [s + z, t + z]| is the trapezoid R(z − z₁) − R(z − z₂) − R(z − z₃) + R(z − z₄)
(R(x) = max(x, 0); z₁ = a − t, z₂ = min(a − s, c − t), z₃ = max(a − s, c − t), z₄ = c − s). Each ramp
integrates in closed form, ∫_{−b}^{b} R(z − z_k) dz = 0 (z_k ≥ b), −2b z_k (z_k ≤ −b), (b − z_k)²/2 (else),
with no cancellation even when b is far below the bucket width. Only the band of output buckets that meet
[s − b, t + b] gets the second term, so it is computed on a d × K band (K ≈ (w + 2b)/w̃ + 2).

The channel products in O(d + d̃)
---------------------------------
EM needs M x and Mᵀ r many times; a dense product costs O(d d̃). Summed over input buckets,
Σ_i x_i A_{ji}/w = ∫_{B̃_j} [F(y + b) − F(y − b)] dy = G(c + b) − G(a + b) − G(c − b) + G(a − b), where F is
the CDF of the uniform-within-bucket input histogram x and G = ∫F. G is piecewise quadratic: on bucket k,
G(u) = G_k + F_k δ + x_k δ²/(2w) (δ = u − e_k, F_k and G_k exclusive cumulative sums), plus Σx·(u − 1)
beyond the domain. The evaluation points e_k ± b are fixed, so the map (G, F, x, Σx) → M x is a sparse
matrix with at most 16 entries per row; the transpose is the same construction with the roles of the two
grids swapped. This is exact algebra (no quadrature); :class:`SquareWaveChannel` uses it when the band is
wide and the explicit band otherwise (where b is small and the cumulative sums would cancel).
"""

from __future__ import annotations

import math
from abc import abstractmethod
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ldp.core.errors import InvalidInput
from ldp.core.params import BUCKETS, DOMAIN_SIZE, Param
from ldp.core.randomness import RandomSource, bernoulli
from ldp.core.registry import MECHANISMS
from ldp.core.results import Aggregate, Estimate
from ldp.data.scale import ValueScale
from ldp.maths.em import DEFAULT_MAX_ITER, default_tolerance, expectation_maximization, expectation_maximization_batch
from ldp.maths.grid import OutputGrid
from ldp.mechanisms.base import ceil_log2, check_int_reports
from ldp.mechanisms.frequency.base import MIN_PROBABILITY
from ldp.mechanisms.numerical import NumericalMechanism

if TYPE_CHECKING:
    import scipy.sparse as sp

__all__ = [
    "BoxChannel", "DiscreteSquareWave", "SquareWave", "SquareWaveChannel", "discrete_b", "mutual_information_b",
    "mutual_information_bound", "square_wave_probabilities",
]


def _csr(*args: Any, **kwargs: Any) -> sp.csr_matrix:
    """``scipy.sparse.csr_matrix(*args, **kwargs)``, SciPy imported on the first call: ``import ldp`` (every
    mechanism registers on import) stays without SciPy (ldp.maths.gaussian.normal_quantile says why)."""
    from scipy.sparse import csr_matrix

    return csr_matrix(*args, **kwargs)


PAPER = ("Li, Wang, Lopuhaä-Zwakenberg, Li, Škorić — Estimating Numerical Distributions under Local "
         "Differential Privacy, SIGMOD 2020, §5")

# The explicit sparse band is used for the channel products while it has at most this many entries per
# column; wider bands use the O(d + d̃) antiderivative form.
BAND_LIMIT = 32
# The fast engine draws Σ_i Multinomial(n_i, column i) over a d × K band while it has at most this many
# cells (else it places the in-window users one by one, O(n), equally exact).
FAST_BAND_CELLS = 1 << 22


# ============================================================================================ parameters
SW_B = Param("b", float, "half-width of the wave's plateau; default: the mutual-information choice (§5.3)",
             low=0.0, low_inclusive=False, high=1e6, optional=True)
D_TILDE = Param("d_tilde", int, "number of report buckets d̃ over [−b, 1+b]; default d (§5.4). The paper's "
                "guidance: results are similar so long as d̃ stays near √N (N users)", low=2, high=2**24,
                optional=True)


def mutual_information_b(epsilon: float) -> float:
    """§5.3: b = (ε e^ε − e^ε + 1) / (2 e^ε (e^ε − 1 − ε)), the b maximizing the mutual-information bound.

    For ε < 1 both numerator and e^ε − 1 − ε are summed as power series (Σ_{k≥2} (k−1) ε^k/k! and
    Σ_{k≥2} ε^k/k!), which avoids their cancellation; the limit at ε → 0 is 1/2.

    Parameters
    ----------
    epsilon : float
        The privacy budget ε > 0.

    Returns
    -------
    float
        The half-width b in (0, 1/2), non-increasing in ε (≈ 0.256 at ε = 1, → 0 as ε → ∞).

    Raises
    ------
    InvalidInput
        If ε is not a finite positive number.

    References
    ----------
    Square-wave paper (Li et al., SIGMOD 2020), §5.3 "Choosing b" (the derivative of the bound of Eq. (4) set to 0);
    §6.4, Figure 6, finds this b_SW among the best.
    """
    eps = float(epsilon)
    if not (math.isfinite(eps) and eps > 0):
        raise InvalidInput(f"ε must be a positive number, got {epsilon!r}")
    e = math.exp(eps)
    if eps < 1.0:
        num = den = 0.0
        term = 0.5  # ε^(k−2) / k! at k = 2
        for k in range(2, 40):
            num += (k - 1) * term
            den += term
            term *= eps / (k + 1)
        return num / (2.0 * e * den)
    return (eps * e - e + 1.0) / (2.0 * e * (e - 1.0 - eps))


def mutual_information_bound(epsilon: float, b: Any) -> np.ndarray:
    """§5.3, Eq. (4): the upper bound h(U) − h(Ṽ|V) = log((2b + 1)/(2b e^ε + 1)) + 2bε e^ε/(2b e^ε + 1) (nats) of the
    mutual information between SW's input and output, as a function of b; :func:`mutual_information_b` is its
    maximum.

    Parameters
    ----------
    epsilon : float
        The privacy budget ε > 0.
    b : float or array_like
        The half-width(s) b ≥ 0 of the square wave (b = 0 gives 0).

    Returns
    -------
    numpy.ndarray or numpy.float64
        The bound in nats (≥ 0, as it bounds a mutual information from above), of b's shape; a numpy scalar for
        a scalar b.

    Raises
    ------
    InvalidInput
        If ε is not a finite positive number, or a b is negative or not finite.

    References
    ----------
    Square-wave paper (Li et al., SIGMOD 2020), §5.3, Eq. (4) I(V, Ṽ) ≤ h(U) − h(Ṽ|V), with h(U) = log(2b + 1)
    and h(Ṽ|V) = −(2bp log p + q log q).
    """
    eps = float(epsilon)
    if not (math.isfinite(eps) and eps > 0):
        raise InvalidInput(f"ε must be a positive number, got {epsilon!r}")
    bb = np.asarray(b, dtype=np.float64)
    if not np.all(np.isfinite(bb)) or np.any(bb < 0):
        raise InvalidInput("b must be non-negative and finite")
    e = math.exp(eps)
    return np.log1p(2 * bb) - np.log1p(2 * bb * e) + 2 * bb * eps * e / (2 * bb * e + 1)


def discrete_b(epsilon: float, d: int) -> int:
    """§5.4: the discrete SW's default half-width ⌊b_MI(ε) · d⌋ (an integer ≥ 0).

    Parameters
    ----------
    epsilon : float
        The privacy budget ε > 0.
    d : int
        The size of the discrete input domain (the number of codes; not range-checked here).

    Returns
    -------
    int
        ⌊b_MI(ε)·d⌋, b_MI from :func:`mutual_information_b`; 0 (the discrete SW is then GRR) when b_MI·d < 1.

    Raises
    ------
    InvalidInput
        From :func:`mutual_information_b`, when ε is not a finite positive number.

    References
    ----------
    Square-wave paper (Li et al., SIGMOD 2020), §5.4 "Bucketize before randomize": "one can set b = ⌊b_MI·d⌋"
    (the brackets are garbled in the text we have; we read them as the floor).
    """
    return int(math.floor(mutual_information_b(epsilon) * int(d)))


def square_wave_probabilities(epsilon: float, b: float) -> tuple[float, float]:
    """(p, q) of the continuous SW (§5.2): p = e^ε / (2b e^ε + 1), q = 1 / (2b e^ε + 1).

    Parameters
    ----------
    epsilon : float
        The privacy budget ε (not checked here).
    b : float
        The half-width b ≥ 0 of the wave's plateau (not checked here).

    Returns
    -------
    tuple of float
        (p, q): the output densities within b of the input and elsewhere on [−b, 1 + b]; p/q = e^ε and
        2b·p + q = 1.

    References
    ----------
    Square-wave paper (Li et al., SIGMOD 2020), §5.2, Eq. (3) and the p, q below it; the minimum q of Lemma 2.
    """
    e = math.exp(float(epsilon))
    denom = 2.0 * float(b) * e + 1.0
    return e / denom, 1.0 / denom


# ============================================================================================ band maths
def _ramp_integral(z: np.ndarray, b: float) -> np.ndarray:
    """∫_{−b}^{b} max(t − z, 0) dt for every z (closed form, no cancellation)."""
    inner = 0.5 * (b - z) ** 2
    return np.where(z >= b, 0.0, np.where(z <= -b, -2.0 * b * z, inner))


def _window_band(b: float, d: int, d_tilde: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The band of the wave part: rows j (d × K), validity mask and areas A (d × K).

    Row i lists the output buckets j that can meet [s_i − b, t_i + b]; A[i, k] is the area of
    {(y, v) ∈ B̃_j × B_i : |y − v| ≤ b} (so Σ_k A[i, k] = 2b w), computed with :func:`_ramp_integral`.
    """
    w = 1.0 / d
    wt = (1.0 + 2.0 * b) / d_tilde
    i = np.arange(d)
    s = i * w
    t = (i + 1) * w
    lo = np.maximum(np.floor(s / wt).astype(np.int64) - 1, 0)
    hi = np.minimum(np.floor((t + 2.0 * b) / wt).astype(np.int64) + 1, d_tilde - 1)
    k_width = int((hi - lo).max()) + 1
    rows = lo[:, None] + np.arange(k_width)[None, :]
    valid = rows <= hi[:, None]
    rows = np.minimum(rows, d_tilde - 1)
    a = -b + rows * wt
    c = -b + (rows + 1) * wt
    s2, t2 = s[:, None], t[:, None]
    z2 = np.minimum(a - s2, c - t2)
    z3 = np.maximum(a - s2, c - t2)
    area = (_ramp_integral(a - t2, b) - _ramp_integral(z2, b)) - (_ramp_integral(z3, b) - _ramp_integral(c - s2, b))
    area = np.where(valid, np.maximum(area, 0.0), 0.0)
    return rows, valid, area


def _antiderivative_eval(points: np.ndarray, lo: float, width: float, n: int) -> sp.csr_matrix:
    """Sparse E with E @ [G_e, F_e, m, Σm] = G(points), G = ∫∫ of the histogram m on n buckets of ``width``
    starting at ``lo`` (uniform within a bucket): G(u) = G_k + F_k δ + m_k δ²/(2 width) + Σm·max(u − hi, 0)."""
    k = np.clip(np.floor((points - lo) / width).astype(np.int64), 0, n - 1)
    delta = np.clip(points - (lo + k * width), 0.0, width)
    over = np.maximum(points - (lo + n * width), 0.0)
    count = points.size
    rows = np.repeat(np.arange(count), 4)
    cols = np.stack([k, n + k, 2 * n + k, np.full(count, 3 * n)], axis=1).ravel()
    vals = np.stack([np.ones(count), delta, delta * delta / (2.0 * width), over], axis=1).ravel()
    return _csr((vals, (rows, cols)), shape=(count, 3 * n + 1))


def _second_difference(edges: np.ndarray, b: float, lo: float, width: float, n: int, scale: float) -> sp.csr_matrix:
    """Sparse S with (S @ basis)_j = scale·[G(e_{j+1}+b) − G(e_j+b) − G(e_{j+1}−b) + G(e_j−b)]."""
    m = edges.size - 1
    ev = _antiderivative_eval(np.concatenate([edges + b, edges - b]), lo, width, n)
    j = np.arange(m)
    shift = m + 1
    rows = np.repeat(j, 4)
    cols = np.stack([j + 1, j, shift + j + 1, shift + j], axis=1).ravel()
    vals = np.tile(np.array([scale, -scale, -scale, scale]), m)
    comb = _csr((vals, (rows, cols)), shape=(m, 2 * shift))
    return (comb @ ev).tocsr()


def _basis(m: np.ndarray, width: float, out: np.ndarray) -> np.ndarray:
    """[G_e, F_e, m, Σm] of a histogram m on buckets of ``width``: F_e and G_e exclusive cumulative sums."""
    n = m.shape[-1]  # along the last axis: one histogram, or a block of rows (the same sums, row by row)
    g, f = out[..., :n], out[..., n:2 * n]
    f[..., 0] = 0.0
    np.cumsum(m[..., :-1], axis=-1, out=f[..., 1:])
    out[..., 2 * n:3 * n] = m
    out[..., 3 * n] = f[..., -1] + m[..., -1]
    half = f + 0.5 * m
    g[..., 0] = 0.0
    np.cumsum(half[..., :-1], axis=-1, out=g[..., 1:])
    g *= width
    return out


class SquareWaveChannel:
    """The continuous SW transition matrix as an operator: ``dot(x) = M x``, ``tdot(r) = Mᵀ r``, ``dense()``.

    M = q w̃ 1 1ᵀ + W: the constant part is applied through sums, the wave part W either as an explicit
    sparse band (narrow windows) or through the piecewise-quadratic antiderivatives (wide windows), both
    exact; see the module docstring.

    Parameters
    ----------
    epsilon : float
        The privacy budget ε (p/q = e^ε).
    b : float
        The half-width b > 0 of the wave; the report range is [−b, 1 + b].
    d : int
        The number of equal input buckets of [0, 1] (the columns of M).
    d_tilde : int
        The number of equal report buckets of [−b, 1 + b] (the rows of M).

    The arguments are taken as given (the mechanism validates them); ``form`` records the product used,
    ``"band"`` while ⌈(w + 2b)/w̃⌉ + 3 ≤ :data:`BAND_LIMIT` (32; w = 1/d, w̃ = (1 + 2b)/d̃), else
    ``"antiderivative"``.

    References
    ----------
    Square-wave paper (Li et al., SIGMOD 2020), §5.5: M[j, i] = Pr[ṽ ∈ B̃_j | v uniform in B_i], the matrix EM
    and EMS (Algorithm 1) multiply by.
    """

    def __init__(self, epsilon: float, b: float, d: int, d_tilde: int) -> None:
        self.epsilon, self.b, self.d, self.d_tilde = float(epsilon), float(b), int(d), int(d_tilde)
        self.shape: tuple[int, int] = (self.d_tilde, self.d)
        self.p, self.q = square_wave_probabilities(self.epsilon, self.b)
        self.w = 1.0 / self.d
        self.w_tilde = (1.0 + 2.0 * self.b) / self.d_tilde
        self.background = self.q * self.w_tilde
        band_width = math.ceil((self.w + 2.0 * self.b) / self.w_tilde) + 3
        self.form = "band" if band_width <= BAND_LIMIT else "antiderivative"
        if self.form == "band":
            self._fwd = _band_matrix(self.epsilon, self.b, self.d, self.d_tilde)
            self._bwd = self._fwd.T.tocsr()
        else:
            out_edges = -self.b + np.arange(self.d_tilde + 1) * self.w_tilde
            in_edges = np.arange(self.d + 1) * self.w
            gap = self.p - self.q
            self._fwd = _second_difference(out_edges, self.b, 0.0, self.w, self.d, gap)
            self._bwd = _second_difference(in_edges, self.b, -self.b, self.w_tilde, self.d_tilde,
                                           gap * self.w_tilde / self.w)

    def dot(self, x: np.ndarray) -> np.ndarray:
        """M x: the expected report-bucket mass of an input histogram.

        Parameters
        ----------
        x : array_like
            Mass per input bucket (length d: frequencies or counts).

        Returns
        -------
        numpy.ndarray
            float64, length d̃; it sums to Σx (M is column-stochastic).
        """
        x = np.asarray(x, dtype=np.float64)
        if self.form == "band":
            out = self._fwd @ x
        else:
            out = self._fwd @ _basis(x, self.w, np.empty(3 * self.d + 1))
        out += self.background * x.sum()
        return out

    def tdot(self, r: np.ndarray) -> np.ndarray:
        """Mᵀ r, the product EM's E-step needs (r: report-bucket ratios n_j / (M x̂)_j).

        Parameters
        ----------
        r : array_like
            One number per report bucket (length d̃).

        Returns
        -------
        numpy.ndarray
            float64, length d: Σ_j M[j, i] r_j for each input bucket i.
        """
        r = np.asarray(r, dtype=np.float64)
        if self.form == "band":
            out = self._bwd @ r
        else:
            out = self._bwd @ _basis(r, self.w_tilde, np.empty(3 * self.d_tilde + 1))
        out += self.background * r.sum()
        return out

    def dot_rows(self, x: np.ndarray) -> np.ndarray:
        """:meth:`dot` of every row of ``x`` (T × d → T × d̃, C-ordered), for EM on a block of collections
        (:func:`ldp.maths.em.expectation_maximization_batch`): the sparse block product adds each row's terms in
        the order of one vector's, so every row equals :meth:`dot` of it bit for bit."""
        x = np.asarray(x, dtype=np.float64)
        basis = x if self.form == "band" else _basis(x, self.w, np.empty((x.shape[0], 3 * self.d + 1)))
        out = np.ascontiguousarray((self._fwd @ basis.T).T)
        out += self.background * x.sum(axis=1)[:, None]
        return out

    def tdot_rows(self, r: np.ndarray) -> np.ndarray:
        """:meth:`tdot` of every row of ``r`` (T × d̃ → T × d, C-ordered), bit for bit as :meth:`dot_rows`."""
        r = np.asarray(r, dtype=np.float64)
        basis = r if self.form == "band" else _basis(r, self.w_tilde, np.empty((r.shape[0], 3 * self.d_tilde + 1)))
        out = np.ascontiguousarray((self._bwd @ basis.T).T)
        out += self.background * r.sum(axis=1)[:, None]
        return out

    def dense(self) -> np.ndarray:
        """M itself, a new d̃ × d float64 array (:func:`transition_matrix`)."""
        return transition_matrix(self.epsilon, self.b, self.d, self.d_tilde)

    @classmethod
    def stack_rows(cls, channels: list[SquareWaveChannel]) -> SquareWaveStack:
        """The products of a block whose row t goes through ``channels[t]`` (one shape; e.g. a sweep of b): the
        hook :func:`ldp.maths.em.expectation_maximization_batch` takes a channel per row through."""
        return SquareWaveStack(channels)


def _block_diagonal(blocks: list[sp.csr_matrix]) -> sp.csr_matrix:
    """The block-diagonal CSR matrix of ``blocks``, each row's entries in its block's stored order: its product with
    the blocks' inputs laid end to end adds every row's terms in the order the block alone adds them."""
    nnz = np.cumsum([0] + [b.nnz for b in blocks])
    cols = np.cumsum([0] + [b.shape[1] for b in blocks])
    indptr = np.concatenate([np.zeros(1, dtype=np.int64)] + [b.indptr[1:] + nnz[k] for k, b in enumerate(blocks)])
    indices = np.concatenate([b.indices.astype(np.int64) + cols[k] for k, b in enumerate(blocks)])
    data = np.concatenate([b.data for b in blocks])
    return _csr((data, indices, indptr), shape=(sum(b.shape[0] for b in blocks), int(cols[-1])))


class SquareWaveStack:
    """:class:`SquareWaveChannel` products of a block of rows, each row through its own channel (all of one shape
    (d̃, d): a sweep of ε or b): ``dot_rows(block, rows)``/``tdot_rows(block, rows)``, ``rows`` the block's row
    numbers in the batch (increasing: the rows still iterating). One block-diagonal sparse product does the whole
    block: a band row's block is its channel's band applied to the row, a wide row's its antiderivative form applied
    to the row's basis, each row's sums in its own channel's order — so every row equals its channel's
    :meth:`~SquareWaveChannel.dot` bit for bit — and the interpreter's work of a product is the block's, not each
    channel's.

    Parameters
    ----------
    channels : list of SquareWaveChannel
        Row t's channel (the shapes are checked by the caller).
    """

    def __init__(self, channels: list[SquareWaveChannel]) -> None:
        self.channels = list(channels)
        self.shape = self.channels[0].shape
        self.band = np.array([c.form == "band" for c in self.channels])
        self.background = np.array([c.background for c in self.channels])
        self.w_tilde = np.array([c.w_tilde for c in self.channels])
        self._built: dict[str, dict[str, Any]] = {}

    def _plan(self, name: str, rows: np.ndarray, width: Any) -> dict[str, Any]:
        """How to multiply ``rows`` by their ``name`` matrices (``_fwd``/``_bwd``): built for a superset S of the rows
        (the rows still iterating when it was built), its band rows first (``order``), and rebuilt only once half of
        S has stopped — a few times per batch, not at every row's stop: the stopped rows' products are computed on
        stale inputs and dropped, at most twice the arithmetic, which on these sizes costs less than a rebuild."""
        plan = self._built.get(name)
        if plan is None or 2 * rows.size <= plan["built"].size:
            band = self.band[rows]
            order = np.concatenate([np.flatnonzero(band), np.flatnonzero(~band)])
            mats = [getattr(self.channels[t], name) for t in rows[order]]
            wide_rows = rows[order][int(band.sum()):]
            in_order = bool(np.all(np.diff(order) > 0))  # the band rows already first (a sweep of b upwards)
            plan = self._built[name] = {
                "built": rows.copy(), "order": None if in_order else order, "narrow": int(band.sum()),
                "matrix": _block_diagonal(mats), "width": width if np.isscalar(width) else width[wide_rows][:, None],
                "rows": None}
        if plan["rows"] is None or plan["rows"].size != rows.size or not np.array_equal(plan["rows"], rows):
            every = rows.size == plan["built"].size
            where = np.searchsorted(plan["built"], rows)  # the rows' places in S
            if plan["order"] is None:
                back = None if every else where
            else:
                inverse = np.empty_like(plan["order"])
                inverse[plan["order"]] = np.arange(plan["order"].size)
                back = inverse[where]
            plan.update(rows=rows.copy(), where=None if every else where, back=back,
                        background=self.background[rows][:, None])
        return plan

    def _product(self, name: str, block: np.ndarray, rows: np.ndarray, width: Any, size: int) -> np.ndarray:
        block = np.asarray(block, dtype=np.float64)
        plan = self._plan(name, rows, width)
        if plan["where"] is None:
            full = block
        else:  # the stopped rows of S keep zeros: their outputs are dropped below
            full = np.zeros((plan["built"].size, block.shape[1]))
            full[plan["where"]] = block
        ordered = full if plan["order"] is None else full[plan["order"]]
        narrow = plan["narrow"]
        if narrow == ordered.shape[0]:
            vector = np.ascontiguousarray(ordered).ravel()
        else:
            wide = ordered[narrow:]
            basis = _basis(wide, plan["width"], np.empty((wide.shape[0], 3 * wide.shape[1] + 1)))
            vector = np.concatenate([ordered[:narrow].ravel(), basis.ravel()])
        out = (plan["matrix"] @ vector).reshape(-1, size)
        if plan["back"] is not None:
            out = out[plan["back"]]
        out += plan["background"] * block.sum(axis=1)[:, None]
        return out

    def dot_rows(self, x: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """M_t x_t for every row t of ``x`` (rows × d → rows × d̃), each :meth:`SquareWaveChannel.dot`'s."""
        return self._product("_fwd", x, rows, self.channels[0].w, self.shape[0])

    def tdot_rows(self, r: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """M_tᵀ r_t for every row t of ``r`` (rows × d̃ → rows × d), each :meth:`SquareWaveChannel.tdot`'s."""
        return self._product("_bwd", r, rows, self.w_tilde, self.shape[1])


def _band_matrix(epsilon: float, b: float, d: int, d_tilde: int) -> sp.csr_matrix:
    """The wave part W of M (d̃ × d, sparse): W[j, i] = (p − q)/w · A[j, i]."""
    p, q = square_wave_probabilities(epsilon, b)
    rows, valid, area = _window_band(b, d, d_tilde)
    cols = np.broadcast_to(np.arange(d)[:, None], rows.shape)
    vals = (p - q) * d * area[valid]
    return _csr((vals, (rows[valid], cols[valid])), shape=(d_tilde, d))


def transition_matrix(epsilon: float, b: float, d: int, d_tilde: int) -> np.ndarray:
    """The exact d̃ × d transition matrix of the continuous SW (§5.5), input uniform within its bucket.

    Parameters
    ----------
    epsilon : float
        ε, which with b sets the densities p and q (:func:`square_wave_probabilities`).
    b : float
        The wave's half-width b > 0: reports lie in [−b, 1 + b].
    d : int
        How many equal buckets B_i of [0, 1] the inputs fall in (the columns).
    d_tilde : int
        How many equal buckets B̃_j of [−b, 1 + b] the reports are counted in (the rows).

    Returns
    -------
    numpy.ndarray
        float64, shape (d_tilde, d): M[j, i] = q w̃ + (p − q)·d·A[j, i] (module docstring), columns summing to 1.

    References
    ----------
    Square-wave paper (Li et al., SIGMOD 2020), §5.5 (M[j, i], "assuming the input data fall uniformly at random
    within bucket B_i") for the SW of Eq. (3).
    """
    p, q = square_wave_probabilities(epsilon, b)
    rows, valid, area = _window_band(b, d, d_tilde)
    m = np.full((d_tilde, d), q * (1.0 + 2.0 * b) / d_tilde)
    cols = np.broadcast_to(np.arange(d)[:, None], rows.shape)
    m[rows[valid], cols[valid]] += (p - q) * d * area[valid]
    return m


def channel_reconstruction(histogram: np.ndarray, channel: Any, method: str, epsilon: float, tol: float | None,
                           max_iter: int) -> Estimate:
    """EM or EMS (§5.5) through a transition operator, as an :class:`Estimate` carrying the EM trace.

    Parameters
    ----------
    histogram : numpy.ndarray
        The report counts n_j per report bucket (length d̃).
    channel : Channel or array_like
        The d̃ × d transition matrix M or an operator with ``dot``/``tdot`` (:class:`SquareWaveChannel`,
        :class:`BoxChannel`, a dense channel).
    method : {"em", "ems"}
        EM (Algorithm 1) or EMS (with the binomial smoothing step after every M-step).
    epsilon : float
        The privacy budget ε, used only for EM's default τ = 10⁻³·e^ε.
    tol : float or None
        The stopping threshold τ on the change of the log-likelihood; None takes the paper's τ
        (:func:`ldp.maths.em.default_tolerance`: 10⁻³·e^ε for EM, 10⁻³ for EMS).
    max_iter : int
        The cap on the iterations.

    Returns
    -------
    Estimate
        The d input-bucket frequencies (a probability vector) under the estimator name ``method``, with
        ``converged``, ``iterations``, the log-likelihood trace, a warning when the cap was hit, and the
        diagnostics ``tol``, ``max_iter``, ``final_change``.

    Raises
    ------
    InvalidInput
        For an unknown method, a histogram that does not fit the channel, or a bad ``tol``/``max_iter``
        (:func:`ldp.maths.em.expectation_maximization`).

    References
    ----------
    Square-wave paper (Li et al., SIGMOD 2020), §5.5 (Algorithm 1, the EMS smoothing step) and §6.1 (τ).
    """
    tau = default_tolerance(method, epsilon) if tol is None else tol
    x, trace = expectation_maximization(histogram, channel, smoothing=method == "ems", tol=tau, max_iter=max_iter)
    warnings = (trace.note,) if trace.note else ()
    return Estimate(x, method, converged=trace.converged, iterations=trace.iterations, trace=trace.log_likelihood,
                    warnings=warnings, diagnostics={"tol": trace.tol, "max_iter": trace.max_iter,
                                                    "final_change": trace.final_change})


def _expand(counts: np.ndarray) -> np.ndarray:
    """np.repeat(arange(d), counts) (bucket index of every user, grouped)."""
    return np.repeat(np.arange(counts.size), counts)


# ============================================================================================ continuous SW
class _WindowChannel(NumericalMechanism):
    """What the two square waves share: a band channel M given as an O(d + d̃) operator, EM/EMS through it, and a
    fast engine that splits users into "in the wave" (a window around the input) and "background" (uniform on
    all d̃ report cells). Subclasses give ``transition_operator``, ``_window_mass`` and ``_spread_window``."""

    @property
    def p(self) -> float:
        """Probability (density for the continuous SW) of each report within b of the input (§5.2, §5.4)."""
        return self._p

    def _report_range(self) -> tuple[float, float]:
        return 0.0, 1.0  # the statistic is the reports' histogram over the report cells

    @property
    def q(self) -> float:
        """Probability (density) of each report farther than b from the input; p/q = e^ε."""
        return self._q

    def transition_matrix(self) -> np.ndarray:
        return self.transition_operator().dense()

    @abstractmethod
    def transition_operator(self) -> Any:
        """M as an O(d + d̃) operator (``dot``, ``tdot``, ``dense``) for EM/EMS."""

    def _reconstruct(self, aggregate: Aggregate, method: str, *, tol: float | None = None,
                     max_iter: int = DEFAULT_MAX_ITER) -> Estimate:
        """EM or EMS (§5.5) on the d̃-cell report histogram, with the paper's τ unless ``tol`` is given."""
        return channel_reconstruction(aggregate.counts, self.transition_operator(), method, self._epsilon, tol,
                                      max_iter)

    def _reconstruct_batch(self, counts: np.ndarray, method: str, *, tol: float | None = None,
                           max_iter: int = DEFAULT_MAX_ITER) -> np.ndarray:
        """EM or EMS of every row of ``counts`` (trials × d̃) as one batch
        (:func:`ldp.maths.em.expectation_maximization_batch`: each row's estimate is :meth:`_reconstruct`'s)."""
        tau = default_tolerance(method, self._epsilon) if tol is None else tol
        x, _ = expectation_maximization_batch(counts, self.transition_operator(), smoothing=method == "ems", tol=tau,
                                              max_iter=max_iter)
        return x

    @classmethod
    def _reconstruct_batches(cls, mechanisms: list[_WindowChannel], blocks: list[np.ndarray], method: str, *,
                             tol: float | None = None, max_iter: int = DEFAULT_MAX_ITER) -> list[np.ndarray] | None:
        """EM or EMS of the blocks of several mechanisms (a sweep of b or ε: report histograms of one d̃) as one
        batch, each row through its own mechanism's channel (:func:`ldp.maths.em.expectation_maximization_batch`):
        each block's estimates are :meth:`_reconstruct_batch`'s, bit for bit. None (one batch each) when their τ
        (EM's depends on ε) or their shapes differ."""
        taus = {default_tolerance(method, m._epsilon) if tol is None else tol for m in mechanisms}
        channels = [m.transition_operator() for m in mechanisms]
        if len(taus) > 1 or len({c.shape for c in channels}) > 1:
            return None
        rows = [channel for channel, block in zip(channels, blocks, strict=True) for _ in range(block.shape[0])]
        x, _ = expectation_maximization_batch(np.concatenate(blocks), rows, smoothing=method == "ems", tol=taus.pop(),
                                              max_iter=max_iter)
        return np.split(x, np.cumsum([block.shape[0] for block in blocks])[:-1])

    def _expected_aggregate(self, true_counts: np.ndarray, support: np.ndarray | None) -> np.ndarray:
        return self.transition_operator().dot(true_counts.astype(np.float64))

    def _aggregate_variance(self, true_counts: np.ndarray, support: np.ndarray | None) -> np.ndarray:
        m = self.transition_matrix()  # a sum over input buckets of independent multinomials
        return m @ true_counts - (m * m) @ true_counts

    def _sample_aggregate(self, true_counts: np.ndarray, rng: np.random.Generator,
                          support: np.ndarray | None) -> np.ndarray:
        return self.sample_histogram(true_counts, rng)

    @abstractmethod
    def _window_mass(self) -> float:
        """Probability that a report is drawn from the window rather than from the uniform background."""

    @abstractmethod
    def _spread_window(self, in_window: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Report-cell counts (length d̃) of ``in_window[i]`` window users of each input bucket i."""

    def sample_histogram(self, true_counts: Any, rng: np.random.Generator) -> np.ndarray:
        """The d̃-cell report histogram of a population given by its d input-bucket counts, drawn directly:
        Binomial(n_i, window mass) window users per bucket, spread by ``_spread_window``, plus one uniform
        Multinomial over all d̃ cells for the background users (exact in distribution)."""
        counts = np.asarray(true_counts, dtype=np.int64)
        n = int(counts.sum())
        dt = self.d_tilde
        out = np.zeros(dt, dtype=np.int64)
        if n == 0:
            return out
        in_window = rng.binomial(counts, min(1.0, self._window_mass()))
        m = int(in_window.sum())
        if n - m:
            out += rng.multinomial(n - m, np.full(dt, 1.0 / dt))
        if m:
            out += self._spread_window(in_window, rng)
        return out


@MECHANISMS.register
class SquareWave(_WindowChannel):
    """Square Wave, randomize before bucketize (§5.2–§5.4): real-valued reports in [−b, 1 + b].

    Parameters
    ----------
    epsilon : float
        The privacy budget ε of each user's one report (in [1e-4, 50]).
    d : int
        The number of equal input buckets of [0, 1] reconstructed (2 to 2^24; required).
    b : float, optional
        The half-width of the wave's plateau, in (0, 10^6]; None (default) takes the mutual-information choice
        :func:`mutual_information_b` (§5.3).
    d_tilde : int, optional
        The number of equal report buckets of [−b, 1 + b] the server counts (2 to 2^24); None (default) takes d,
        as the paper's experiments do (§5.4).

    Raises
    ------
    InvalidInput
        If a parameter is outside its range, or if ε and b make the background density q fall below 2⁻⁴⁰ (double
        precision cannot sample it; never with the default b).

    References
    ----------
    Square-wave paper (Li et al., SIGMOD 2020), §5.2, Eq. (3) (the mechanism; Theorem 2: the GW of largest
    Wasserstein distance), §5.3 (b), §5.4 "Randomize before bucketize", §5.5 (EM, Algorithm 1, and EMS).
    """

    name: ClassVar[str] = "sw"
    display_name: ClassVar[str] = "Square Wave (SW)"
    description: ClassVar[str] = ("reports a value uniformly near the input with density p, elsewhere in "
                                  "[−b, 1+b] with density q = p/e^ε; EM/EMS reconstructs the histogram")
    paper: ClassVar[str] = PAPER
    report_format: ClassVar[str] = "one real number in [−b, 1+b] per user"
    domain_parameter: ClassVar[Param] = BUCKETS
    extra_parameters: ClassVar[tuple[Param, ...]] = (SW_B, D_TILDE)
    reconstructions: ClassVar[tuple[str, ...]] = ("ems", "em")
    default_estimator: ClassVar[str] = "ems"
    real_reports: ClassVar[bool] = True

    def _setup(self) -> None:
        if self._params["b"] is None:
            self._params["b"] = mutual_information_b(self._epsilon)
        if self._params["d_tilde"] is None:
            self._params["d_tilde"] = self._d
        self._p, self._q = square_wave_probabilities(self._epsilon, self._params["b"])
        self._check_precision(min(self._q, 1.0 - self.window_probability))

    # ----------------------------------------------------------------- parameters
    @property
    def b(self) -> float:
        """The half-width b of the wave (the mutual-information choice of §5.3 unless given)."""
        return float(self._params["b"])

    @property
    def d_tilde(self) -> int:
        """d̃, the number of equal report buckets of [−b, 1 + b] the aggregate counts (d unless given)."""
        return int(self._params["d_tilde"])

    @property
    def output_range(self) -> tuple[float, float]:
        """(−b, 1 + b): the range of the reports (§5.1)."""
        return -self.b, 1.0 + self.b

    @property
    def window_probability(self) -> float:
        """Pr[|ṽ − v| ≤ b] = 2b p."""
        return 2.0 * self.b * self._p

    def density(self, reports: Any, value: Any) -> np.ndarray:
        """M_v(ṽ), Eq. (3), broadcast over reports and values (0 outside [−b, 1 + b])."""
        y = np.asarray(reports, dtype=np.float64)
        v = np.asarray(value, dtype=np.float64)
        inside = (y >= -self.b) & (y <= 1.0 + self.b)
        return np.where(inside, np.where(np.abs(y - v) <= self.b, self._p, self._q), 0.0)

    def cdf(self, reports: Any, value: Any) -> np.ndarray:
        """Pr[ṽ ≤ y | v] (piecewise linear), broadcast over reports and values."""
        y = np.clip(np.asarray(reports, dtype=np.float64), -self.b, 1.0 + self.b)
        v = np.asarray(value, dtype=np.float64)
        p, q, b = self._p, self._q, self.b
        below = q * (y + b)
        inside = q * v + p * (y - (v - b))
        above = q * v + 2.0 * b * p + q * (y - v - b)
        return np.clip(np.where(y < v - b, below, np.where(y <= v + b, inside, above)), 0.0, 1.0)

    # ----------------------------------------------------------------- client side
    @property
    def output_grid(self) -> OutputGrid:
        """The grid every report lies on (Mironov's snapping, see :mod:`ldp.maths.grid`): the midpoints of
        M = d̃·c equal cells of [−b, 1 + b], c = the power of two with M ≥ 2²⁰ (c = 1 when d̃ ≥ 2²⁰). The cells
        nest in the d̃ report buckets, so a snapped report falls in the bucket its real value fell in and the
        aggregate — and EM/EMS on the exact channel — are unchanged; a server that re-buckets with another d̃′
        sees each report move by at most half a cell, (1 + 2b)/2²¹."""
        return self._cached("grid", self._make_grid)

    def _make_grid(self) -> OutputGrid:
        per_bucket = 1 << max(0, 20 - math.ceil(math.log2(self.d_tilde)))
        cells = self.d_tilde * per_bucket
        step = (1.0 + 2.0 * self.b) / cells
        return OutputGrid(-self.b + 0.5 * step, step, 0, cells - 1)

    def _check_precision(self, smallest: float) -> None:
        """Refuse an ε whose least likely part of the report distribution (probability ``smallest``) uniform
        doubles cannot draw to a relative error of 2⁻¹³ (the frequency oracles' :data:`MIN_PROBABILITY` rule)."""
        if smallest < MIN_PROBABILITY:
            raise InvalidInput(f"{self.name}: ε = {self._epsilon:g} is beyond what double-precision sampling can "
                               f"represent (a report region of probability {smallest:.2g} < 2⁻⁴⁰); use a smaller ε")

    def _perturb(self, v: np.ndarray, rng: RandomSource) -> np.ndarray:
        """One report per user: in the window [v − b, v + b] with probability 2bp, else in the background
        (length 1, density q); the position within the chosen part from a second, independent uniform — so
        that the background's small probability does not coarsen its positions (the one-uniform inverse CDF
        ṽ = −b + u/q left gaps of 2⁻⁵³/q) — then snapped to ``output_grid``."""
        window = rng.random(v.size) < self.window_probability
        pos = rng.random(v.size)
        out = np.where(window, v - self.b + 2.0 * self.b * pos,
                       np.where(pos < v, pos - self.b, pos + self.b))
        return self.output_grid.snap(out)

    # ----------------------------------------------------------------- server side
    def _validate_reports(self, rep: np.ndarray) -> np.ndarray:
        if rep.ndim != 1:
            raise InvalidInput(f"{self.name}: reports must be a 1-D array of real numbers, got shape {rep.shape}")
        if not (np.issubdtype(rep.dtype, np.floating) or np.issubdtype(rep.dtype, np.integer)):
            raise InvalidInput(f"{self.name}: reports must be real numbers, got dtype {rep.dtype}")
        rep = rep.astype(np.float64, copy=False)
        slack = 1e-9 * (1.0 + 2.0 * self.b)
        bad = ~np.isfinite(rep) | (rep < -self.b - slack) | (rep > 1.0 + self.b + slack)
        if bad.any():
            raise InvalidInput(f"{self.name}: report {rep[bad][0]!r} is outside [−b, 1+b] = "
                             f"[{-self.b:.6g}, {1 + self.b:.6g}] — reports of another ε or b?")
        return rep

    def report_histogram(self, reports: Any, d_tilde: int | None = None) -> np.ndarray:
        """Counts of reports in d̃ equal buckets of [−b, 1 + b] (int64; the right end is in the last)."""
        rep = self.validate_reports(reports)
        dt = self.d_tilde if d_tilde is None else D_TILDE.validate(d_tilde, self.name)
        return self._histogram(rep, dt)

    def _histogram(self, rep: np.ndarray, dt: int) -> np.ndarray:
        idx = np.floor((rep + self.b) * (dt / (1.0 + 2.0 * self.b))).astype(np.int64)
        np.clip(idx, 0, dt - 1, out=idx)
        return np.bincount(idx, minlength=dt).astype(np.int64, copy=False)

    def statistic_size(self) -> int:
        return self.d_tilde

    def _aggregate(self, reports: np.ndarray) -> np.ndarray:
        return self._histogram(reports, self.d_tilde)

    def output_edges(self, scale: ValueScale | None = None) -> np.ndarray:
        """The d̃ + 1 report bucket edges of [−b, 1 + b] (mapped to real units by ``scale``)."""
        e = -self.b + np.arange(self.d_tilde + 1) * ((1.0 + 2.0 * self.b) / self.d_tilde)
        return (scale or ValueScale()).from_unit(e)

    def transition_matrix(self) -> np.ndarray:
        """The exact d̃ × d matrix M (dense copy); columns sum to 1."""
        return self._cached("matrix", lambda: transition_matrix(self._epsilon, self.b, self._d, self.d_tilde)).copy()

    def transition_operator(self) -> SquareWaveChannel:
        """M as an O(d + d̃) operator for EM/EMS."""
        return self._cached("channel", lambda: SquareWaveChannel(self._epsilon, self.b, self._d, self.d_tilde))

    def _privacy_loss(self) -> float:
        return math.log(self._p / self._q)  # the density ratio p/q = e^ε (Theorem 1)

    def _log_density(self, reports: np.ndarray, inputs: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.log(self.density(reports[:, None], inputs[None, :]))

    def _report_bits(self) -> int:
        return 64  # one real number, sent as a float64 (as the report files write it)

    def report_bits_formula(self) -> str:
        return "64 (one real number as a float64)"

    # ----------------------------------------------------------------- fast engine
    def _window_mass(self) -> float:
        """2b(p − q): a report is "in the wave" (uniform on [v − b, v + b]) or background (uniform on [−b, 1 + b])."""
        return 2.0 * self.b * (self._p - self._q)

    def _spread_window(self, in_window: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Exact for the discretized model (input uniform within its bucket): one Multinomial over the band of
        each column of M (vectorized), or one draw per window user when the band is too large to tabulate."""
        dt = self.d_tilde
        w_tilde = (1.0 + 2.0 * self.b) / dt
        if self._d * (math.ceil((1.0 / self._d + 2.0 * self.b) / w_tilde) + 3) <= FAST_BAND_CELLS:
            rows, _, area = self._cached("band", lambda: _window_band(self.b, self._d, dt))
            probs = self._cached("band_probs", lambda: area / area.sum(axis=1, keepdims=True))
            drawn = rng.multinomial(in_window, probs)
            return np.bincount(rows.ravel(), weights=drawn.ravel(), minlength=dt).astype(np.int64)
        m = int(in_window.sum())  # v uniform in its bucket, report uniform on [v − b, v + b]
        v = (_expand(in_window) + rng.random(m)) / self._d
        y = v + self.b * (2.0 * rng.random(m) - 1.0)
        pos = np.clip(np.floor((y + self.b) * (dt / (1.0 + 2.0 * self.b))).astype(np.int64), 0, dt - 1)
        return np.bincount(pos, minlength=dt)


# ============================================================================================ discrete SW
class BoxChannel:
    """The discrete SW transition matrix as an operator: M = q 1 1ᵀ + (p − q)·box, the box covering the
    2b + 1 outputs i … i + 2b of input i; products by cumulative sums (wide boxes) or a sparse band.

    Parameters
    ----------
    p : float
        The probability of each of the 2b + 1 report codes within b of the input.
    q : float
        The probability of each other report code (p/q = e^ε; (2b + 1)p + (d − 1)q = 1 for a stochastic M).
    b : int
        The half-width b ≥ 0 of the box in codes.
    d : int
        The number of input codes; M is (d + 2b) × d.

    The arguments are taken as given (the mechanism validates them); ``form`` is ``"band"`` while the box has
    at most 32 codes (:data:`BAND_LIMIT`), else ``"cumsum"``.

    References
    ----------
    Square-wave paper (Li et al., SIGMOD 2020), §5.4 "Bucketize before randomize" (the discrete SW's
    Pr[SW(v) = ṽ]) and §5.5 (the matrix M of EM/EMS).
    """

    def __init__(self, p: float, q: float, b: int, d: int) -> None:
        self.p, self.q, self.b, self.d = float(p), float(q), int(b), int(d)
        self.d_tilde = self.d + 2 * self.b
        self.shape: tuple[int, int] = (self.d_tilde, self.d)
        self.gap = self.p - self.q
        width = 2 * self.b + 1
        self.form = "band" if width <= BAND_LIMIT else "cumsum"
        y = np.arange(self.d_tilde)
        self._lo = np.clip(y - 2 * self.b, 0, self.d)  # inputs i with y − 2b ≤ i ≤ y
        self._hi = np.clip(y + 1, 0, self.d)
        i = np.arange(self.d)
        if self.form == "band":
            rows = (i[:, None] + np.arange(width)[None, :]).ravel()
            cols = np.repeat(i, width)
            self._fwd = _csr((np.full(rows.size, self.gap), (rows, cols)), shape=self.shape)
            self._bwd = self._fwd.T.tocsr()

    def dot(self, x: np.ndarray) -> np.ndarray:
        """The distribution of the d + 2b report codes under the input histogram ``x`` (length d): M x.

        Parameters
        ----------
        x : array_like
            Frequency (or count) of each input code.

        Returns
        -------
        numpy.ndarray
            float64 of length d + 2b, summing to Σx.
        """
        x = np.asarray(x, dtype=np.float64)
        if self.form == "band":
            out = self._fwd @ x
        else:
            cum = np.zeros(self.d + 1)
            np.cumsum(x, out=cum[1:])
            out = self.gap * (cum[self._hi] - cum[self._lo])
        out += self.q * x.sum()
        return out

    def tdot(self, r: np.ndarray) -> np.ndarray:
        """The transposed product Mᵀ r: for input code i, q Σ_y r_y + (p − q) Σ of r over the codes i … i + 2b.

        Parameters
        ----------
        r : array_like
            A value per report code (length d + 2b).

        Returns
        -------
        numpy.ndarray
            float64 of length d.
        """
        r = np.asarray(r, dtype=np.float64)
        if self.form == "band":
            out = self._bwd @ r
        else:
            cum = np.zeros(self.d_tilde + 1)
            np.cumsum(r, out=cum[1:])
            out = self.gap * (cum[2 * self.b + 1:] - cum[:self.d])
        out += self.q * r.sum()
        return out

    def dense(self) -> np.ndarray:
        """M as a (d + 2b) × d float64 array: p where 0 ≤ y − i ≤ 2b, q elsewhere."""
        y = np.arange(self.d_tilde)[:, None]
        i = np.arange(self.d)[None, :]
        return np.where((y >= i) & (y <= i + 2 * self.b), self.p, self.q)


@MECHANISMS.register
class DiscreteSquareWave(_WindowChannel):
    """Square Wave on a discrete domain, bucketize before randomize (§5.4): integer reports in [0, d + 2b).

    Parameters
    ----------
    epsilon : float
        The privacy budget ε of each user's one report (in [1e-4, 50]).
    d : int
        The size of the discrete input domain: inputs are the codes 0 … d − 1 (2 to 2^24; required).
    b : int, optional
        The half-width of the wave in codes (0 to 2^24; 0 is GRR over the d codes); None (default) takes
        ⌊b_MI·d⌋, :func:`discrete_b`.

    Raises
    ------
    InvalidInput
        If a parameter is outside its range.

    References
    ----------
    Square-wave paper (Li et al., SIGMOD 2020), §5.4 "Bucketize before randomize": p = e^ε/((2b + 1)e^ε + d − 1),
    q = 1/((2b + 1)e^ε + d − 1), output domain of d + 2b codes; §5.5 (EM/EMS).
    """

    name: ClassVar[str] = "sw-discrete"
    display_name: ClassVar[str] = "Discrete Square Wave (SW, bucketize first)"
    description: ClassVar[str] = ("reports a code within b of the input's code with probability p each, any "
                                  "other of the d + 2b codes with q = p/e^ε")
    paper: ClassVar[str] = PAPER
    input_kind: ClassVar[str] = "codes"
    report_format: ClassVar[str] = "one integer ṽ + b in [0, d + 2b) per user"
    domain_parameter: ClassVar[Param] = DOMAIN_SIZE
    extra_parameters: ClassVar[tuple[Param, ...]] = (
        Param("b", int, "half-width of the wave in codes (0 = GRR); default ⌊b_MI·d⌋ (§5.4)", low=0, high=2**24,
              optional=True),
    )
    reconstructions: ClassVar[tuple[str, ...]] = ("ems", "em")
    default_estimator: ClassVar[str] = "ems"

    def _setup(self) -> None:
        if self._params["b"] is None:
            self._params["b"] = discrete_b(self._epsilon, self._d)
        b = self._params["b"]
        e = math.exp(self._epsilon)
        denom = (2 * b + 1) * e + self._d - 1
        self._p, self._q = e / denom, 1.0 / denom

    @property
    def b(self) -> int:
        """The half-width b of the wave in codes (⌊b_MI·d⌋ unless given; 0 is GRR)."""
        return int(self._params["b"])

    @property
    def d_tilde(self) -> int:
        """d + 2b, the number of report codes (§5.4)."""
        return self._d + 2 * self.b

    @property
    def window_probability(self) -> float:
        """Pr[|ṽ − v| ≤ b] = (2b + 1) p."""
        return (2 * self.b + 1) * self._p

    def _perturb(self, v: np.ndarray, rng: RandomSource) -> np.ndarray:
        """Report ṽ + b (an integer in [0, d + 2b)): with probability (2b + 1)p uniform on the window
        v … v + 2b, else uniform on the d − 1 other codes."""
        n = v.size
        window = bernoulli(rng, self.window_probability, n)
        inside = rng.integers(0, 2 * self.b + 1, size=n, dtype=np.int64)
        other = rng.integers(0, self._d - 1, size=n, dtype=np.int64)
        outside = np.where(other < v, other, other + 2 * self.b + 1)
        return np.where(window, v + inside, outside)

    def _validate_reports(self, rep: np.ndarray) -> np.ndarray:
        if rep.ndim != 1:
            raise InvalidInput(f"{self.name}: reports must be a 1-D array of integers, got shape {rep.shape}")
        return check_int_reports(self.name, rep, 0, self.d_tilde, "reports")

    def statistic_size(self) -> int:
        return self.d_tilde

    def _aggregate(self, reports: np.ndarray) -> np.ndarray:
        return np.bincount(reports, minlength=self.d_tilde)

    def report_histogram(self, reports: Any) -> np.ndarray:
        """Counts of each of the d + 2b report codes (int64)."""
        return self.aggregate(reports).counts.astype(np.int64)

    def transition_operator(self) -> BoxChannel:
        """M as an O(d + d̃) operator for EM/EMS."""
        return self._cached("channel", lambda: BoxChannel(self._p, self._q, self.b, self._d))

    def _output_count(self) -> int:
        return self.d_tilde

    def _channel(self) -> tuple[np.ndarray, list[str]]:
        return self.transition_matrix().T, [str(y) for y in range(self.d_tilde)]

    def _report_bits(self) -> int:
        return ceil_log2(self.d_tilde)

    def _window_mass(self) -> float:
        """(2b + 1)(p − q): a report uniform on the window codes v … v + 2b, else uniform on all d + 2b codes."""
        return (2 * self.b + 1) * (self._p - self._q)

    def _spread_window(self, in_window: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        dt, width = self.d_tilde, 2 * self.b + 1
        if self._d * width <= FAST_BAND_CELLS:
            drawn = rng.multinomial(in_window, np.full(width, 1.0 / width))
            rows = np.arange(self._d)[:, None] + np.arange(width)[None, :]
            return np.bincount(rows.ravel(), weights=drawn.ravel(), minlength=dt).astype(np.int64)
        idx = _expand(in_window)
        return np.bincount(idx + rng.integers(0, width, size=idx.size), minlength=dt)
