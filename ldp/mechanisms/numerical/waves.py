"""General Wave (GW) mechanisms with trapezoid and triangle waves (square-wave paper §5.1 Definition 2, §6.4).

A GW reports ṽ ∈ [−b, 1 + b] with density M_v(ṽ) = W(ṽ − v), W(z) = q for |z| > b and q ≤ W ≤ e^ε q
(Definition 2; Theorem 1: ε-LDP). Here the wave is

    W(z) = q + (e^ε − 1) q · h(z / b),     h(u) = 1 for |u| ≤ r,  (1 − |u|)/(1 − r) for r < |u| ≤ 1,  0 beyond,

a trapezoid whose top/bottom width ratio is r (``shape="trapezoid:<r>"``); r = 0 is the triangle
(``"triangle"``) and r = 1 the square wave of §5.2 (``"square"``, identical to SW). The peak density is
P = e^ε q and the floor q, so max/min density = e^ε exactly. Normalizing over [−b, 1 + b] with
∫h = 1 + r gives

    q = 1 / ((1 + 2b) + (e^ε − 1)·b·(1 + r)),      P = e^ε q        (r = 1: q = 1/(2b e^ε + 1), as SW).

b defaults to SW's mutual-information choice (§5.3) for every shape, so shapes are compared at equal b.

Transition matrix (exact, no quadrature). With g(z) = h(z/b), input uniform on B_i = [s, t] (width w) and
output bucket B̃_j = [a, c] (width w̃),

    M[j, i] = q w̃ + (P − q)/w · [Φ(c − s) − Φ(a − s) − Φ(c − t) + Φ(a − t)],      Φ'' = g, Φ(−∞) = 0,

because ∫_s^t ∫_a^c g(y − v) dy dv is that second difference of Φ. g is a sum of steps α_k·1[z ≥ z_k] and
ramps β_k·max(z − z_k, 0) at the knots ±b, ±rb, so Φ = Σ α_k R(z − z_k)²/2 + β_k R(z − z_k)³/6 (R(x) =
max(x, 0)); beyond the wave Φ is exactly 0 (z ≤ −b) or b(1 + r)·z (z ≥ b: mass times distance to the wave's
centre 0), which keeps the far entries free of cancellation.

Client (exact): inverse-CDF sampling of the piecewise-linear density with one uniform per user: the five
pieces [−b, v−b], [v−b, v−rb], [v−rb, v+rb], [v+rb, v+b], [v+b, 1+b] have linear densities, so the CDF is
piecewise quadratic and each piece inverts in closed form (t = 2m / (f₀ + √(f₀² + 2σm)) for mass m into a
piece with start density f₀ and slope σ, stable for either sign of σ).

Fast engine: the report histogram drawn as Σ_i Multinomial(n_i, column i of M) — exact in distribution for
the discretized model (input uniform within its bucket). Reconstruction: EM/EMS (§5.5) through
:func:`ldp.estimators.reconstruction.reconstruct` with a dense channel.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from ldp.core.errors import InvalidInput
from ldp.core.params import Param
from ldp.core.randomness import RandomSource
from ldp.core.registry import MECHANISMS
from ldp.maths.em import DenseChannel
from ldp.mechanisms.numerical.square_wave import SquareWave, mutual_information_b

__all__ = ["GeneralWave", "gw_transition_matrix", "lemma1_wasserstein", "output_wasserstein", "parse_shape",
           "wave_probabilities"]

PAPER = ("Li, Wang, Lopuhaä-Zwakenberg, Li, Škorić — Estimating Numerical Distributions under Local "
         "Differential Privacy, SIGMOD 2020, §5.1 (Definition 2) and §6.4")

# The channel is a dense d̃ × d matrix; larger products are refused (memory ≈ 8 bytes per cell, twice).
DENSE_LIMIT = 1 << 24

SHAPE = Param("shape", str, "wave shape: 'square', 'triangle' or 'trapezoid:<top/bottom width ratio in [0, 1]>' "
              "(§6.4)", default="triangle")


def parse_shape(shape: str) -> tuple[str, float]:
    """Canonical shape name and its top/bottom width ratio r ∈ [0, 1] (square = 1, triangle = 0).

    Parameters
    ----------
    shape : str
        ``"square"``, ``"triangle"`` or ``"trapezoid:<r>"`` with r a number in [0, 1]; case and surrounding blanks
        are ignored.

    Returns
    -------
    tuple of (str, float)
        The canonical name (``"square"``, ``"triangle"``, or ``"trapezoid:<r>"`` with r written by ``%g``, so
        ``"trapezoid:0.50"`` becomes ``"trapezoid:0.5"``) and r; ``"trapezoid:1"`` and ``"trapezoid:0"`` keep
        their trapezoid names.

    Raises
    ------
    InvalidInput
        If the shape is none of these, or r is not a finite number in [0, 1].

    References
    ----------
    Square-wave paper (Li et al., SIGMOD 2020), §6.4 "Different shapes of wave in GW" (trapezoids of ratios 0.2,
    0.4, 0.6, 0.8 and the triangle).
    """
    text = str(shape).strip().lower()
    if text == "square":
        return "square", 1.0
    if text == "triangle":
        return "triangle", 0.0
    if text.startswith("trapezoid:"):
        try:
            r = float(text.split(":", 1)[1])
        except ValueError:
            r = float("nan")
        if math.isfinite(r) and 0.0 <= r <= 1.0:
            return f"trapezoid:{r:g}", r
    raise InvalidInput(f"wave shape must be 'square', 'triangle' or 'trapezoid:<ratio in [0, 1]>', got {shape!r}")


def wave_probabilities(epsilon: float, b: float, ratio: float) -> tuple[float, float]:
    """(P, q): peak and floor densities, q = 1/((1 + 2b) + (e^ε − 1) b (1 + r)), P = e^ε q.

    Parameters
    ----------
    epsilon : float
        The privacy budget ε (P/q = e^ε; not checked here).
    b : float
        The wave's half-width b > 0 (the output range is [−b, 1 + b]).
    ratio : float
        The top/bottom width ratio r ∈ [0, 1] (1: the square wave, 0: the triangle).

    Returns
    -------
    tuple of float
        (P, q): the density on the wave's top |ṽ − v| ≤ rb and the density farther than b from v, normalized so
        the density integrates to 1 over [−b, 1 + b]; r = 1 gives SW's (p, q).

    References
    ----------
    Square-wave paper (Li et al., SIGMOD 2020), §5.1, Definition 2 (W(z) = q beyond b, q ≤ W ≤ e^ε q) and
    Theorem 1 (ε-LDP); §5.2 for r = 1.
    """
    e = math.exp(float(epsilon))
    q = 1.0 / ((1.0 + 2.0 * b) + (e - 1.0) * b * (1.0 + ratio))
    return e * q, q


def lemma1_wasserstein(epsilon: float, b: float, delta: float, ratio: float = 1.0) -> float:
    """Square-wave paper Lemma 1: the Wasserstein distance between a General Wave's output distributions for two
    inputs Δ apart is Δ·(1 − (2b + 1)·q), with q the wave's floor density (:func:`wave_probabilities`; the square
    wave, ratio 1: q = 1/(2b e^ε + 1)). 1 − (2b + 1)q is the wave's mass above its floor, which moves by Δ while the
    floor stays; it is largest for the square wave at a given b (Theorem 2).

    Parameters
    ----------
    epsilon : float
        The privacy budget ε > 0 of the wave.
    b : float
        The wave's half-width b > 0 (sets q with ε and r).
    delta : float
        The distance Δ = v₂ − v₁ ≥ 0 between the two inputs.
    ratio : float, default 1.0
        The wave's top/bottom width ratio r ∈ [0, 1] (1: the square wave).

    Returns
    -------
    float
        Δ·(1 − (2b + 1)q), in the units of the value (the domain [0, 1]).

    Raises
    ------
    InvalidInput
        If Δ is negative (or NaN).

    References
    ----------
    Square-wave paper (Li et al., SIGMOD 2020), §5.2, Lemma 1 (with Lemma 2 and Theorem 2).
    """
    if not delta >= 0:
        raise InvalidInput(f"Lemma 1: Δ must be ≥ 0, got {delta!r}")
    _, q = wave_probabilities(float(epsilon), float(b), float(ratio))
    return float(delta) * (1.0 - (2.0 * float(b) + 1.0) * q)


def output_wasserstein(mechanism: Any, v1: float, v2: float, points: int = 20_001) -> float:
    """W1 between a wave mechanism's output distributions for inputs ``v1`` and ``v2``, computed on its exact
    channel: ∫ |F_{v1}(y) − F_{v2}(y)| dy over [−b, 1 + b] from the mechanism's own ``cdf``, by the trapezoid rule
    on a grid that contains every breakpoint v ± b, v ± r b (exact for the square wave's piecewise-linear CDFs;
    for the trapezoid's and triangle's piecewise-quadratic ones the error is O(grid²), at most ≈ 10⁻⁹ here;
    measured 5·10⁻¹³ for the triangle at ε = 1, b_MI, inputs 0.2 and 0.5, against :func:`lemma1_wasserstein`).

    Parameters
    ----------
    mechanism : SquareWave or GeneralWave
        The wave mechanism: its ``b``, its ``cdf(reports, value)`` and (a General Wave) its ratio r are used.
    v1, v2 : float
        The two inputs in [0, 1].
    points : int, default 20001
        The number of equally spaced grid points on [−b, 1 + b], to which the breakpoints are added.

    Returns
    -------
    float
        W1 = ∫ |F_{v1} − F_{v2}| over [−b, 1 + b], ≥ 0; Lemma 1 predicts |v2 − v1|·(1 − (2b + 1)q).

    References
    ----------
    Square-wave paper (Li et al., SIGMOD 2020), §3.1 (W1 as the L1 distance between the cumulative functions) and
    §5.2, Lemma 1.
    """
    b, r = float(mechanism.b), float(getattr(mechanism, "_ratio", 1.0))
    breaks = [v + s for v in (v1, v2) for s in (-b, b, -r * b, r * b)]
    y = np.unique(np.clip(np.concatenate([np.linspace(-b, 1.0 + b, int(points)), breaks]), -b, 1.0 + b))
    gap = np.abs(mechanism.cdf(y, float(v1)) - mechanism.cdf(y, float(v2)))
    return float(np.sum((gap[1:] + gap[:-1]) * np.diff(y)) / 2.0)


def _phi(z: np.ndarray, b: float, ratio: float) -> np.ndarray:
    """Φ with Φ'' = h(·/b), Φ(z) = 0 for z ≤ −b and b(1 + r) z for z ≥ b (closed form, see module doc)."""
    z = np.asarray(z, dtype=np.float64)
    out = np.zeros_like(z)
    inside = (z > -b) & (z < b)
    zi = z[inside]
    acc = np.zeros_like(zi)
    if ratio >= 1.0:  # steps +1 at −b, −1 at b (only the first is active inside)
        acc += 0.5 * (zi + b) ** 2
    else:
        slope = 1.0 / ((1.0 - ratio) * b)
        for knot, beta in ((-b, slope), (-ratio * b, -slope), (ratio * b, -slope)):
            rz = np.maximum(zi - knot, 0.0)
            acc += beta * rz ** 3 / 6.0
    out[inside] = acc
    upper = z >= b
    out[upper] = b * (1.0 + ratio) * z[upper]
    return out


def gw_transition_matrix(epsilon: float, b: float, ratio: float, d: int, d_tilde: int) -> np.ndarray:
    """The exact d̃ × d matrix of the GW (input uniform within its bucket); columns sum to 1.

    Parameters
    ----------
    epsilon : float
        The privacy budget ε.
    b : float
        The wave's half-width b > 0.
    ratio : float
        The top/bottom width ratio r ∈ [0, 1].
    d : int
        The number of equal input buckets of [0, 1] (columns).
    d_tilde : int
        The number of equal report buckets of [−b, 1 + b] (rows).

    Returns
    -------
    numpy.ndarray
        float64, shape (d_tilde, d): M[j, i] = Pr[ṽ ∈ B̃_j | v uniform in B_i], from the closed-form second
        difference of Φ (module docstring); the columns are renormalized to remove rounding only.

    References
    ----------
    Square-wave paper (Li et al., SIGMOD 2020), §5.5 (the matrix M "assuming the input data fall uniformly at
    random within bucket B_i"), for the waves of §5.1, Definition 2.
    """
    big_p, q = wave_probabilities(epsilon, b, ratio)
    w = 1.0 / d
    wt = (1.0 + 2.0 * b) / d_tilde
    out_e = -b + np.arange(d_tilde + 1) * wt
    in_e = np.arange(d + 1) * w
    a, c = out_e[:-1, None], out_e[1:, None]
    s, t = in_e[None, :-1], in_e[None, 1:]
    area = (_phi(c - s, b, ratio) - _phi(a - s, b, ratio)) - (_phi(c - t, b, ratio) - _phi(a - t, b, ratio))
    m = q * wt + (big_p - q) / w * np.maximum(area, 0.0)
    return m / m.sum(axis=0, keepdims=True)  # removes rounding only (sums are 1 to ~1e-13)


@MECHANISMS.register
class GeneralWave(SquareWave):
    """General Wave (Definition 2) with a trapezoid/triangle wave (§6.4); shape "square" is SW itself.

    Parameters
    ----------
    epsilon : float
        Each user's privacy budget ε (in [1e-4, 50]): the peak density is e^ε times the floor.
    d : int
        How many equal buckets of [0, 1] the server reconstructs (2 to 2^24; required).
    b : float, optional
        The wave's half-width, in (0, 10^6]; None (default) takes SW's mutual-information choice (§5.3) whatever
        the shape, so shapes are compared at equal b.
    d_tilde : int, optional
        The number of equal report buckets of [−b, 1 + b] (2 to 2^24); None (default) takes d.
    shape : str, default "triangle"
        ``"square"``, ``"triangle"`` or ``"trapezoid:<r>"``, r ∈ [0, 1] the top/bottom width ratio
        (:func:`parse_shape`).

    Raises
    ------
    InvalidInput
        If a parameter is outside its range, the shape is not understood, d·d̃ exceeds the dense channel's 2^24
        cells, or ε and b make q fall below 2⁻⁴⁰.

    References
    ----------
    Square-wave paper (Li et al., SIGMOD 2020), §5.1, Definition 2 and Theorem 1; §6.4 "Different shapes of wave
    in GW" (Figure 5: SW best at ε = 1); EM/EMS of §5.5.
    """

    name: ClassVar[str] = "gw"
    display_name: ClassVar[str] = "General Wave (GW: trapezoid / triangle)"
    description: ClassVar[str] = ("reports a value in [−b, 1+b] with a piecewise-linear wave of peak e^ε·q "
                                  "around the input; EM/EMS reconstructs the histogram")
    paper: ClassVar[str] = PAPER
    extra_parameters: ClassVar[tuple[Param, ...]] = SquareWave.extra_parameters + (SHAPE,)

    def _setup(self) -> None:
        if self._params["b"] is None:
            self._params["b"] = mutual_information_b(self._epsilon)
        if self._params["d_tilde"] is None:
            self._params["d_tilde"] = self._d
        self._params["shape"], self._ratio = parse_shape(self._params["shape"])
        if self._d * self._params["d_tilde"] > DENSE_LIMIT:
            raise InvalidInput(f"{self.name}: d × d̃ = {self._d * self._params['d_tilde']} exceeds the dense channel's "
                             f"limit of {DENSE_LIMIT} cells; use fewer buckets")
        self._p, self._q = wave_probabilities(self._epsilon, self._params["b"], self._ratio)
        self._check_precision(min(self._q, 1.0 - self.window_probability))

    @property
    def shape(self) -> str:
        """The canonical shape name (:func:`parse_shape`): "square", "triangle" or "trapezoid:<r>"."""
        return str(self._params["shape"])

    @property
    def ratio(self) -> float:
        """Top/bottom width ratio r of the trapezoid (0 triangle, 1 square)."""
        return self._ratio

    @property
    def p(self) -> float:
        """Peak density e^ε q (on |ṽ − v| ≤ r b)."""
        return self._p

    @property
    def window_probability(self) -> float:
        """Pr[|ṽ − v| ≤ b] = 2bq + (P − q) b (1 + r)."""
        return 2.0 * self.b * self._q + (self._p - self._q) * self.b * (1.0 + self._ratio)

    def _wave(self, z: np.ndarray) -> np.ndarray:
        u = np.abs(z) / self.b
        r = self._ratio
        if r >= 1.0:
            return (u <= 1.0).astype(np.float64)
        return np.clip((1.0 - u) / (1.0 - r), 0.0, 1.0)

    def density(self, reports: Any, value: Any) -> np.ndarray:
        """M_v(ṽ) = q + (P − q) h((ṽ − v)/b) on [−b, 1 + b], 0 outside."""
        y = np.asarray(reports, dtype=np.float64)
        v = np.asarray(value, dtype=np.float64)
        inside = (y >= -self.b) & (y <= 1.0 + self.b)
        return np.where(inside, self._q + (self._p - self._q) * self._wave(y - v), 0.0)

    def _pieces(self, v: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Start points, start densities, slopes and masses of the five linear pieces (shape (n, 5))."""
        b, r, big_p, q = self.b, self._ratio, self._p, self._q
        starts = np.stack([np.full_like(v, -b), v - b, v - r * b, v + r * b, v + b], axis=1)
        ends = np.concatenate([starts[:, 1:], np.full((v.size, 1), 1.0 + b)], axis=1)
        widths = ends - starts
        f0 = np.broadcast_to(np.array([q, q, big_p, big_p, q]), starts.shape)
        ramp = (big_p - q) / ((1.0 - r) * b) if r < 1.0 else 0.0
        slope = np.broadcast_to(np.array([0.0, ramp, 0.0, -ramp, 0.0]), starts.shape)
        mass = f0 * widths + 0.5 * slope * widths ** 2
        return starts, f0, slope, mass

    def cdf(self, reports: Any, value: Any) -> np.ndarray:
        """Pr[ṽ ≤ y | v] (piecewise quadratic) for 1-D reports and one value or one value per report."""
        y = np.clip(np.asarray(reports, dtype=np.float64).ravel(), -self.b, 1.0 + self.b)
        v = np.broadcast_to(np.asarray(value, dtype=np.float64), y.shape).astype(np.float64)
        starts, f0, slope, mass = self._pieces(v)
        ends = np.concatenate([starts[:, 1:], np.full((v.size, 1), 1.0 + self.b)], axis=1)
        t = np.clip(y[:, None] - starts, 0.0, ends - starts)
        return np.clip((f0 * t + 0.5 * slope * t * t).sum(axis=1), 0.0, 1.0)

    def _perturb(self, v: np.ndarray, rng: RandomSource) -> np.ndarray:
        """One report per user: the linear piece by its mass (one uniform), the position within the piece by
        inverting the piece's quadratic CDF with a second, independent uniform (exact; the piece's small mass
        does not coarsen its positions), then snapped to ``output_grid``."""
        u = rng.random(v.size)
        starts, f0, slope, mass = self._pieces(v)
        cum = np.cumsum(mass, axis=1)
        total = cum[:, -1]
        u = u * total  # total is 1 up to rounding
        k = np.minimum((u[:, None] >= cum).sum(axis=1), 4)
        rows = np.arange(v.size)
        m = rng.random(v.size) * mass[rows, k]  # uniform on [0, mass_k): the CDF offset within piece k
        f, sl = f0[rows, k], slope[rows, k]
        disc = np.maximum(f * f + 2.0 * sl * m, 0.0)
        t = 2.0 * m / (f + np.sqrt(disc))
        out = starts[rows, k] + t
        return self.output_grid.snap(out)

    def transition_matrix(self) -> np.ndarray:
        """The exact d̃ × d matrix M (dense copy); columns sum to 1."""
        return self._cached("matrix", lambda: gw_transition_matrix(self._epsilon, self.b, self._ratio, self._d,
                                                                   self.d_tilde)).copy()

    def transition_operator(self) -> DenseChannel:  # type: ignore[override]
        """M as a dense channel for EM/EMS."""
        return self._cached("channel", lambda: DenseChannel(self.transition_matrix()))

    def _privacy_loss(self) -> float:
        """ln(max density / min density) over the output domain and all inputs (= ε)."""
        return math.log(self._p / self._q)

    def sample_histogram(self, true_counts: Any, rng: np.random.Generator) -> np.ndarray:
        """Σ_i Multinomial(n_i, column i of M): the d̃-bucket report histogram, exact in distribution for
        the discretized model (input uniform within its bucket)."""
        counts = np.asarray(true_counts, dtype=np.int64)
        m = self.transition_operator().matrix
        drawn = rng.multinomial(counts, m.T)
        return drawn.sum(axis=0).astype(np.int64)
