"""Means of vectors: every user holds x ∈ [−1, 1]^d and the server wants the mean vector (the LDP lecture's
"Means of numbers and vectors"; Wang et al., ICDE 2019, §IV; Duchi, Jordan, Wainwright, JASA 2018).

Three ways to spend one budget ε on d numbers:

- **split the budget** — every coordinate reported with a scalar mechanism at ε/d (sequential composition):
  Var_j = Var_{ε/d}(x_j), which grows like d² for small ε/d;
- **sample coordinates** — each user reports k of the d coordinates, chosen uniformly without replacement, each
  with the scalar mechanism at ε/k, scaled by d/k so the estimate stays unbiased:
  Var_j = (d/k)(Var_{ε/k}(x_j) + x_j²) − x_j² (Wang et al. Alg. 4, whose rule is k = max(1, min(d, ⌊ε/2.5⌋)));
  with k = 1 and Stochastic Rounding this is **Harmony** (Nguyên et al. 2016): one coordinate, one bit;
- **Duchi et al.'s d-dimensional mechanism** — a random corner t ∈ {−B, B}^d on the side of a rounded copy of x,
  unbiased with Var_j = B² − x_j².

Every class answers with per-user unbiased contributions (a (users, d) array; the server's mean is their average),
the closed-form per-coordinate variance, and a streamed :meth:`VectorMechanism.estimate_mean` whose memory is
bounded by its chunk, not by n. The scalar mechanisms are the registered mean mechanisms (``laplace``, ``sr``,
``pm``, ``hm``), so their ε-LDP checks carry over; Duchi's channel is checked at the boundary in the tests.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np

from ldp.core.errors import InvalidInput
from ldp.core.params import EPSILON, Param
from ldp.core.randomness import RandomSource
from ldp.core.registry import MECHANISMS, VECTOR_MECHANISMS
from ldp.mechanisms.mean import MeanMechanism

__all__ = ["DuchiMechanism", "MAX_DIMENSION", "SampleCoordinates", "SplitBudget", "VectorMechanism",
           "duchi_constant", "get_vector_mechanism", "wang_k"]

WANG = ("Wang, Xiao, Yang, Zhao, Hu, Shin, Shin, Yu — Collecting and Analyzing Multidimensional Data with Local "
        "Differential Privacy, ICDE 2019, §IV")
DUCHI = "Duchi, Jordan, Wainwright — Minimax Optimal Procedures for Locally Private Estimation, JASA 2018"
HARMONY = "Nguyên, Xiao, Yang, Liu, Chen, Ngo — Collecting and Analyzing Data from Smart Device Users with LDP, 2016"
#: Largest dimension accepted (Duchi's sampler works with d-bit corners; sampling keeps d moderate anyway).
MAX_DIMENSION = 1024
VECTOR_DIMENSION = Param("d", int, "number of coordinates of each user's vector", default=1, low=1,
                         high=MAX_DIMENSION)
#: Users per chunk of :meth:`VectorMechanism.estimate_mean` (times d floats of temporaries).
CHUNK_CELLS = 1 << 21


def wang_k(epsilon: float, d: int) -> int:
    """Wang et al.'s number of sampled coordinates (Alg. 4): k = max(1, min(d, ⌊ε/2.5⌋))."""
    return max(1, min(int(d), int(math.floor(float(epsilon) / 2.5))))


class VectorMechanism(ABC):
    """A randomizer of x ∈ [−1, 1]^d whose per-user contributions are unbiased for x (base class)."""

    name: ClassVar[str]
    display_name: ClassVar[str]
    description: ClassVar[str]
    paper: ClassVar[str]
    #: The lecture's family: "split", "sample" or "joint" (all coordinates in one randomizer).
    family: ClassVar[str]

    def __init__(self, epsilon: float, d: int) -> None:
        self._epsilon = EPSILON.validate(epsilon, self.name)
        self._d = VECTOR_DIMENSION.validate(d, self.name)
        self._setup()

    def _setup(self) -> None:  # noqa: B027 - optional hook
        """Derived constants (hook)."""

    epsilon = property(lambda self: self._epsilon, doc="the budget of one user's vector")
    d = property(lambda self: self._d, doc="the number of coordinates")

    def __repr__(self) -> str:
        return f"{type(self).__name__}(epsilon={self._epsilon:g}, d={self._d})"

    # ------------------------------------------------------------------ client
    def validate_values(self, values: Any) -> np.ndarray:
        x = np.asarray(values, dtype=np.float64)
        if x.ndim == 1 and self._d == 1:
            x = x[:, None]
        if x.ndim != 2 or x.shape[1] != self._d:
            raise InvalidInput(f"{self.name}: values must be an array of shape (users, {self._d}), got {x.shape}")
        if not np.all(np.isfinite(x)) or np.any(np.abs(x) > 1.0):
            raise InvalidInput(f"{self.name}: every coordinate must lie in [−1, 1] (map [lo, hi] there first)")
        return x

    def perturb(self, values: Any, rng: RandomSource) -> np.ndarray:
        """Each user's report as the server uses it: an unbiased (users, d) contribution."""
        return self._perturb(self.validate_values(values), rng)

    @abstractmethod
    def _perturb(self, x: np.ndarray, rng: RandomSource) -> np.ndarray: ...

    # ------------------------------------------------------------------ theory
    @abstractmethod
    def variance(self, values: Any) -> np.ndarray:
        """Var of one user's contribution per coordinate, for each user's vector (closed form): shape of values."""

    def mean_variance(self, values: Any) -> np.ndarray:
        """Var of the mean estimate per coordinate: Σ_i Var_ij / n² (shape (d,))."""
        x = self.validate_values(values)
        return self.variance(x).sum(axis=0) / x.shape[0] ** 2

    def worst_case_variance(self) -> float:
        """max over coordinates and x ∈ [−1, 1]^d of one user's per-coordinate variance (at x = 0 or the corners,
        since each closed form is a quadratic in x_j)."""
        return float(max(self.variance(np.full((1, self._d), c)).max() for c in (-1.0, 0.0, 1.0)))

    # ------------------------------------------------------------------ server
    def estimate_mean(self, values: Any, rng: RandomSource, *, chunk_users: int | None = None) -> np.ndarray:
        """Simulate every user's report and return the mean estimate (d,), a chunk of users at a time (memory
        bounded by the chunk: about CHUNK_CELLS/d users)."""
        x = self.validate_values(values)
        if x.shape[0] == 0:
            raise InvalidInput(f"{self.name}: give at least one user")
        step = chunk_users or max(1, CHUNK_CELLS // self._d)
        total = np.zeros(self._d)
        for start in range(0, x.shape[0], step):
            total += self._perturb(x[start:start + step], rng).sum(axis=0)
        return total / x.shape[0]


def _scalar(name: str, epsilon: float) -> MeanMechanism:
    cls = MECHANISMS.get(name)
    if cls.kind != "mean":
        raise InvalidInput(f"{name} is not a mean mechanism; choose one of: laplace, sr, pm, hm")
    return cls(epsilon)


class SplitBudget(VectorMechanism):
    """Every coordinate with the scalar mechanism at ε/d (sequential composition): Var_j = Var_{ε/d}(x_j)."""

    family: ClassVar[str] = "split"
    scalar: ClassVar[str]
    paper: ClassVar[str] = WANG

    def _setup(self) -> None:
        self.inner = _scalar(self.scalar, self._epsilon / self._d)

    def _perturb(self, x: np.ndarray, rng: RandomSource) -> np.ndarray:
        return self.inner.perturb(x.ravel(), rng).reshape(x.shape)

    def variance(self, values: Any) -> np.ndarray:
        return self.inner.variance(np.asarray(values, dtype=np.float64))


class SampleCoordinates(VectorMechanism):
    """Each user reports k coordinates chosen uniformly without replacement, each with the scalar mechanism at
    ε/k, scaled by d/k: E = x and Var_j = (d/k)(Var_{ε/k}(x_j) + x_j²) − x_j². ``k = None``: Wang et al.'s rule
    (:func:`wang_k`)."""

    family: ClassVar[str] = "sample"
    scalar: ClassVar[str]
    fixed_k: ClassVar[int | None] = None
    paper: ClassVar[str] = WANG

    def _setup(self) -> None:
        self.k = self.fixed_k if self.fixed_k is not None else wang_k(self._epsilon, self._d)
        self.k = min(self.k, self._d)
        self.inner = _scalar(self.scalar, self._epsilon / self.k)

    def _perturb(self, x: np.ndarray, rng: RandomSource) -> np.ndarray:
        m, d, k = x.shape[0], self._d, self.k
        if k == d:
            chosen = np.broadcast_to(np.arange(d), (m, d))
        elif k == 1:
            chosen = rng.integers(0, d, size=(m, 1))
        else:
            chosen = np.argpartition(rng.random((m, d)), k - 1, axis=1)[:, :k]
        rows = np.repeat(np.arange(m), k)
        cols = np.asarray(chosen).ravel()
        out = np.zeros((m, d))
        out[rows, cols] = self.inner.perturb(x[rows, cols], rng) * (d / k)
        return out

    def variance(self, values: Any) -> np.ndarray:
        x = np.asarray(values, dtype=np.float64)
        ratio = self._d / self.k
        return ratio * (self.inner.variance(x) + x * x) - x * x


def duchi_constant(d: int, form: str = "used") -> float:
    """C_d of Duchi et al.'s mechanism. ``form="paper"``: as Wang et al. (ICDE'19, Alg. 3) print it,
    2^{d−1}/C(d−1, (d−1)/2) for odd d and (2^{d−1} + C(d, d/2)/2)/C(d−1, d/2) for even d. ``form="used"``: the
    constant of :class:`DuchiMechanism`, 2^{d−1}/C(d−1, ⌊(d−1)/2⌋) for every d (the same for odd d)."""
    d = int(d)
    if form == "paper" and d % 2 == 0:
        return (2.0 ** (d - 1) + math.comb(d, d // 2) / 2.0) / math.comb(d - 1, d // 2)
    if form not in ("paper", "used"):
        raise InvalidInput(f"form must be 'paper' or 'used', got {form!r}")
    return 2.0 ** (d - 1) / math.comb(d - 1, (d - 1) // 2)


class DuchiMechanism(VectorMechanism):
    """Duchi et al.'s d-dimensional mechanism (Wang et al., ICDE 2019, Alg. 3).

    The user rounds x to v ∈ {−1, 1}^d (v_j = 1 with probability (1 + x_j)/2, so E v = x), draws u ~ Bernoulli(p),
    p = e^ε/(e^ε + 1), and reports a corner t ∈ {−B, B}^d drawn uniformly from the side T⁺ = {t : t·v > 0} if u = 1,
    else from T⁻ = {t : t·v < 0}. A corner agreeing with v on a coordinates has t·v ∝ 2a − d.

    **Even d: the ties t·v = 0** (a = d/2). The paper's even-d constant (:func:`duchi_constant` with
    ``form="paper"``) makes the report unbiased only when the ties belong to both sides; but then a tie has
    probability p/|T⁺| + (1 − p)/|T⁻| under one v and (1 − p)/|T⁻| for a corner on the far side under another,
    a ratio of 1/(1 − p) = e^ε + 1: the mechanism is ln(1 + e^ε)-LDP, not ε-LDP (tests/mechanisms/test_vector.py
    shows it). Leaving the ties out of T⁺ instead keeps ε but biases the mean. We choose: each tie belongs to each
    side with weight ½ (|T±| = 2^{d−1} for every d), which is ε-LDP (any corner's probability lies between
    (1 − p)/2^{d−1} and p/2^{d−1}) and unbiased with C_d = 2^{d−1}/C(d−1, ⌊(d−1)/2⌋), the odd-d formula, for every
    d (E[t | v] = B(2p − 1)v/C_d, since Σ_{a>d/2} C(d, a)(2a − d) = d·C(d−1, ⌊(d−1)/2⌋)). It is also the smaller
    constant (C_2 = 2 instead of 3), so the variance is lower. With B = C_d (e^ε + 1)/(e^ε − 1), E t = x and, every
    coordinate being ±B, Var_j = B² − x_j².

    Sampling: the number a of agreeing coordinates is drawn from its law on the chosen side (weights C(d, a),
    halved at a = d/2), then which coordinates agree by random ranks — O(d log d) per user, vectorized.
    """

    name: ClassVar[str] = "duchi"
    display_name: ClassVar[str] = "Duchi et al. (d-dimensional)"
    description: ClassVar[str] = "reports one random corner of the cube {−B, B}^d on the side of a rounded x"
    paper: ClassVar[str] = DUCHI + "; as in " + WANG + " (Alg. 3)"
    family: ClassVar[str] = "joint"

    def _setup(self) -> None:
        d = self._d
        e = math.exp(self._epsilon)
        self.p = e / (e + 1.0)
        self.B = duchi_constant(d) * (e + 1.0) / (e - 1.0)
        a = np.arange(d + 1)
        weights = np.array([math.comb(d, int(i)) for i in a], dtype=np.float64)
        weights[2 * a == d] /= 2.0  # a tie belongs to each side with weight ½
        plus = np.where(2 * a >= d, weights, 0.0)
        minus = np.where(2 * a <= d, weights, 0.0)
        self.side_sizes = (float(plus.sum()), float(minus.sum()))
        self._cdf_plus = np.cumsum(plus / plus.sum())
        self._cdf_minus = np.cumsum(minus / minus.sum())

    def agreement_gain(self) -> float:
        """κ = E[(2a − d)/d | T⁺] from the sampler's own tables: E[t | v] = B(2p − 1)κ·v (unbiased iff
        B(2p − 1)κ = 1, i.e. κ = 1/C_d)."""
        d = self._d
        a = np.arange(d + 1)
        pmf = np.diff(np.concatenate([[0.0], self._cdf_plus]))
        return float(pmf @ ((2 * a - d) / d))

    def _perturb(self, x: np.ndarray, rng: RandomSource) -> np.ndarray:
        m, d = x.shape
        v = np.where(rng.random((m, d)) < (1.0 + x) / 2.0, 1.0, -1.0)
        upper = rng.random(m) < self.p
        u = rng.random(m)
        a = np.where(upper, np.searchsorted(self._cdf_plus, u, side="right"),
                     np.searchsorted(self._cdf_minus, u, side="right"))
        a = np.minimum(a, d)  # u within rounding of the last cumulative weight
        ranks = np.argsort(np.argsort(rng.random((m, d)), axis=1), axis=1)
        agree = ranks < a[:, None]
        return np.where(agree, v, -v) * self.B

    def variance(self, values: Any) -> np.ndarray:
        x = np.asarray(values, dtype=np.float64)
        return self.B ** 2 - x * x

    def report_probability(self, t: np.ndarray, x: np.ndarray) -> float:
        """Pr[report = t | x] exactly, by enumerating the 2^d roundings v (small d; the object of the ε-LDP
        check): t a corner in {−B, B}^d, x ∈ [−1, 1]^d."""
        d = self._d
        if d > 12:
            raise InvalidInput("the exact report probability enumerates 2^d roundings: d ≤ 12")
        signs = np.sign(np.asarray(t, dtype=np.float64))
        xs = np.asarray(x, dtype=np.float64)
        total = 0.0
        plus_size, minus_size = self.side_sizes
        for bits in range(1 << d):
            v = np.array([1.0 if bits >> j & 1 else -1.0 for j in range(d)])
            pv = float(np.prod(np.where(v > 0, (1 + xs) / 2, (1 - xs) / 2)))
            dot = float(signs @ v)
            side = 0.5 if dot == 0 else 1.0  # a tie: half in each side
            pt = side * ((self.p / plus_size if dot >= 0 else 0.0) + ((1 - self.p) / minus_size if dot <= 0 else 0.0))
            total += pv * pt
        return total


def _register(name: str, base: type, scalar: str, display: str, description: str, paper: str | None = None,
              k: int | None = None) -> type:
    attrs: dict[str, Any] = {"name": name, "display_name": display, "description": description, "scalar": scalar}
    if paper:
        attrs["paper"] = paper
    if k is not None:
        attrs["fixed_k"] = k
    return VECTOR_MECHANISMS.register(type(f"Vector_{name.replace('-', '_')}", (base,), attrs))


_register("laplace", SplitBudget, "laplace", "Laplace, budget split", "every coordinate plus Laplace noise of "
          "scale 2d/ε")
_register("sr", SplitBudget, "sr", "SR, budget split", "every coordinate by Stochastic Rounding at ε/d")
_register("split-pm", SplitBudget, "pm", "PM, budget split", "every coordinate by the Piecewise Mechanism at ε/d")
_register("split-hm", SplitBudget, "hm", "HM, budget split", "every coordinate by the Hybrid Mechanism at ε/d")
_register("harmony", SampleCoordinates, "sr", "Harmony", "one coordinate by Stochastic Rounding at ε, scaled by d",
          paper=HARMONY, k=1)
_register("sample-pm", SampleCoordinates, "pm", "PM, one coordinate", "one coordinate by PM at ε, scaled by d",
          k=1)
_register("pm", SampleCoordinates, "pm", "PM, k of d", "k = max(1, min(d, ⌊ε/2.5⌋)) coordinates by PM at ε/k, "
          "scaled by d/k")
_register("hm", SampleCoordinates, "hm", "HM, k of d", "k = max(1, min(d, ⌊ε/2.5⌋)) coordinates by HM at ε/k, "
          "scaled by d/k")

VECTOR_MECHANISMS.register(DuchiMechanism)


def get_vector_mechanism(name: str, epsilon: float, d: int) -> VectorMechanism:
    """The registered vector mechanism ``name`` at ε for d coordinates."""
    return VECTOR_MECHANISMS.get(name)(epsilon, d)
