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
  unbiased with Var_j = B² − x_j²;
- **the Gaussian mechanism on the whole vector** (``gaussian-vector``, (ε, δ)-LDP, not pure) — x + N(0, σ² I), σ
  calibrated to the L2 sensitivity 2√d, so Var_j = σ² grows like d.

Every class is a :class:`~ldp.mechanisms.base.Mechanism` of kind ``vector`` in the one registry: a report is the
user's unbiased contribution (a row of d numbers; the server's statistic is their sum per coordinate and the
estimate their average), with the closed-form per-coordinate variance, a log density for the density-ratio privacy
check (``log_density``; Duchi's corners are discrete, the others compose the scalar mechanism's), report files (one
line of d numbers per user), and both engines. The scalar mechanisms inside are the registered mean mechanisms
(``laplace``, ``sr``, ``pm``, ``hm``, ``gaussian``); each names its own d-dimensional form (``vector_form``), which
``ldp mean`` uses for several columns.
"""

from __future__ import annotations

import math
from abc import abstractmethod
from itertools import combinations
from typing import Any, ClassVar

import numpy as np

from ldp.core.errors import InvalidInput
from ldp.core.params import Param
from ldp.core.randomness import RandomSource, gaussian
from ldp.core.registry import MECHANISMS
from ldp.core.results import Aggregate, Estimate
from ldp.maths.gaussian import gaussian_delta, gaussian_sigma
from ldp.mechanisms.base import Mechanism
from ldp.mechanisms.mean import DELTA, GAUSS_PAPER, MeanMechanism, gaussian_grid

__all__ = ["DuchiMechanism", "GaussianVector", "MAX_DIMENSION", "SampleCoordinates", "SplitBudget", "VectorMechanism",
           "duchi_constant", "vector_mechanism", "wang_k"]

WANG = ("Wang, Xiao, Yang, Zhao, Hu, Shin, Shin, Yu — Collecting and Analyzing Multidimensional Data with Local "
        "Differential Privacy, ICDE 2019, §IV")
DUCHI = "Duchi, Jordan, Wainwright — Minimax Optimal Procedures for Locally Private Estimation, JASA 2018"
HARMONY = "Nguyên, Xiao, Yang, Liu, Chen, Ngo — Collecting and Analyzing Data from Smart Device Users with LDP, 2016"
#: Largest dimension accepted (Duchi's sampler works with d-bit corners; sampling keeps d moderate anyway).
MAX_DIMENSION = 1024
VECTOR_DIMENSION = Param("d", int, "number of coordinates of each user's vector", default=1, low=1,
                         high=MAX_DIMENSION)
#: Largest d for which a log density enumerates (Duchi's roundings, or the ambiguous coordinate sets of a sample).
EXACT_DENSITY_DIMENSION = 12


def wang_k(epsilon: float, d: int) -> int:
    """Wang et al.'s number of sampled coordinates (Alg. 4): k = max(1, min(d, ⌊ε/2.5⌋)).

    Parameters
    ----------
    epsilon : float
        The whole report's budget ε.
    d : int
        The dimension of the vectors.

    Returns
    -------
    int
        k, the coordinates each user reports (each at ε/k), between 1 and d.

    References
    ----------
    Wang et al., ICDE 2019, Algorithm 4 (not among the papers in the repository); the LDP lecture, slide
    "Complicated Numerical Settings" ("report only one dimension").
    """
    return max(1, min(int(d), int(math.floor(float(epsilon) / 2.5))))


class VectorMechanism(Mechanism):
    """A randomizer of x ∈ [−1, 1]^d whose report is an unbiased contribution for x (base class of kind ``vector``).

    ``d`` is the dimension. A population is given by users per distinct vector (``true_counts``) and the vectors
    (``support``, shape (cells, d)); the aggregate is the sum of the reports per coordinate, the estimate their
    average (estimator ``average``). Hooks: ``_perturb``, ``variance`` (closed form per coordinate),
    ``report_bound`` (largest |coordinate| of a report), ``_privacy_loss`` and ``_log_density``.

    Parameters
    ----------
    epsilon : float
        The budget ε of each user's whole report (all d coordinates together).
    d : int, default 1
        The dimension of a user's vector (1 to ``MAX_DIMENSION``).
    **params
        The subclass's declared ``extra_parameters`` (``gaussian-vector``'s ``delta``).

    References
    ----------
    The LDP lecture, slide "Complicated Numerical Settings" (D = [−1, +1]^d: split the budget, or report only one
    dimension).
    """

    kind: ClassVar[str] = "vector"
    input_kind: ClassVar[str] = "vector"
    domain_parameter: ClassVar[Param] = VECTOR_DIMENSION
    default_estimator: ClassVar[str] = "average"
    population_by_support: ClassVar[bool] = True
    report_format: ClassVar[str] = "one line per user: d real numbers, the user's unbiased contribution per coordinate"
    communication: ClassVar[str] = "d real numbers"
    #: The lecture's family: "split", "sample" or "joint" (all coordinates in one randomizer).
    family: ClassVar[str]
    fast_engine_exact: ClassVar[bool] = False
    fast_engine_note: ClassVar[str] = (
        "each coordinate's sum drawn from a Gaussian with its exact mean and variance, the coordinates "
        "independently — exact covariances too where a user's coordinates are randomized independently (splitting "
        "the budget)")

    # ------------------------------------------------------------------ client
    def validate_values(self, values: Any) -> np.ndarray:
        """Users' vectors as a (users, d) float array in [−1, 1]^d (a 1-D array is accepted when d = 1)."""
        x = np.asarray(values)
        if x.size and not (np.issubdtype(x.dtype, np.floating) or np.issubdtype(x.dtype, np.integer)):
            raise InvalidInput(f"{self.name}: values must be real numbers in [−1, 1], got dtype {x.dtype}")
        x = x.astype(np.float64)
        if x.ndim == 1 and self._d == 1:
            x = x[:, None]
        if x.ndim != 2 or x.shape[1] != self._d:
            raise InvalidInput(f"{self.name}: values must be an array of shape (users, {self._d}), got {x.shape}")
        bad = ~np.isfinite(x) | (np.abs(x) > 1.0)
        if bad.any():
            raise InvalidInput(f"{self.name}: value {x[bad][0]!r} is outside [−1, 1]; map each column from its "
                               "public range [lo, hi] first (2(x − lo)/(hi − lo) − 1)")
        return x

    def _check_support(self, support: Any, cells: int) -> np.ndarray:
        if support is None:
            raise InvalidInput(f"{self.name}: a vector mechanism needs the vectors of the population's cells "
                               "(support=…)")
        sup = np.asarray(support, dtype=np.float64)
        if sup.ndim == 1 and self._d == 1:
            sup = sup[:, None]
        if sup.shape != (cells, self._d):
            raise InvalidInput(f"{self.name}: support must hold one vector of {self._d} per cell ({cells}), got "
                               f"shape {sup.shape}")
        if not np.all(np.isfinite(sup)) or np.any(np.abs(sup) > 1.0):
            raise InvalidInput(f"{self.name}: support vectors must lie in [−1, 1]^{self._d}")
        return sup

    def _cell_inputs(self, cells: np.ndarray, rng: RandomSource, support: np.ndarray | None) -> np.ndarray:
        return np.asarray(support)[cells]

    def report_width(self) -> int:
        return self._d

    def audit_inputs(self) -> tuple[Any, Any]:
        return -np.ones(self._d), np.ones(self._d)

    def _output_events(self, reports: np.ndarray, v0: Any, v1: Any) -> tuple[str, np.ndarray]:
        """The projection of each report on v1 − v0 (the direction in which the two inputs' reports differ)."""
        return "real", reports @ (np.asarray(v1, dtype=np.float64) - np.asarray(v0, dtype=np.float64))

    def output_event_label(self, names: tuple[str, str]) -> str:
        return f"report · ({names[1]} − {names[0]})"

    # ------------------------------------------------------------------ theory
    @abstractmethod
    def variance(self, values: Any) -> np.ndarray:
        """Var of one user's contribution per coordinate, for each user's vector (closed form): shape of values."""

    @abstractmethod
    def report_bound(self) -> float:
        """The largest |coordinate| a report can have (hook)."""

    def mean_variance(self, values: Any) -> np.ndarray:
        """Var of the mean estimate per coordinate: Σ_i Var_ij / n² (shape (d,))."""
        x = self.validate_values(values)
        return self.variance(x).sum(axis=0) / x.shape[0] ** 2

    def worst_case_variance(self) -> float:
        """max over coordinates and x ∈ [−1, 1]^d of one user's per-coordinate variance (at x = 0 or the corners,
        since each closed form is a quadratic in x_j)."""
        return float(max(self.variance(np.full((1, self._d), c)).max() for c in (-1.0, 0.0, 1.0)))

    def true_values(self, true_counts: Any, support: Any = None) -> np.ndarray:
        counts, sup = self.check_population(true_counts, support)
        return (counts @ sup) / counts.sum()

    def _expected_aggregate(self, true_counts: np.ndarray, support: np.ndarray | None) -> np.ndarray:
        return true_counts @ support

    def _aggregate_variance(self, true_counts: np.ndarray, support: np.ndarray | None) -> np.ndarray:
        return true_counts @ self.variance(support)

    def _estimate_variance(self, true_counts: np.ndarray, support: np.ndarray | None) -> np.ndarray:
        return self._aggregate_variance(true_counts, support) / float(true_counts.sum()) ** 2

    def _sample_aggregate(self, true_counts: np.ndarray, rng: np.random.Generator,
                          support: np.ndarray | None) -> np.ndarray:
        """Each coordinate's sum as a Gaussian with its exact mean and variance (``fast_engine_note``)."""
        return true_counts @ support + np.sqrt(true_counts @ self.variance(support)) * rng.standard_normal(self._d)

    # ------------------------------------------------------------------ server
    def _validate_reports(self, rep: np.ndarray) -> np.ndarray:
        if rep.ndim == 1 and self._d == 1:
            rep = rep[:, None]
        if rep.ndim != 2 or rep.shape[1] != self._d:
            raise InvalidInput(f"{self.name}: reports must have {self._d} numbers per user, got shape {rep.shape}")
        if not (np.issubdtype(rep.dtype, np.floating) or np.issubdtype(rep.dtype, np.integer)):
            raise InvalidInput(f"{self.name}: reports must be real numbers, got dtype {rep.dtype}")
        rep = rep.astype(np.float64)
        bound = self.report_bound() * (1.0 + 1e-9)
        bad = ~np.isfinite(rep) | (np.abs(rep) > bound)
        if bad.any():
            raise InvalidInput(f"{self.name}: report entry {rep[bad][0]!r} is beyond ±{self.report_bound():.6g}, "
                               "what this mechanism can produce at this ε and d — reports of another ε or d?")
        return rep

    def statistic_size(self) -> int:
        return self._d

    def _aggregate(self, reports: np.ndarray) -> np.ndarray:
        return reports.sum(axis=0)

    def _report_range(self) -> tuple[float, float]:
        bound = self.report_bound()  # the statistic is the coordinates' sums of the reports
        return -bound, bound

    def _estimate(self, aggregate: Aggregate) -> Estimate:
        return Estimate(aggregate.counts / aggregate.n, "average")

    def estimate_mean(self, values: Any, rng: RandomSource, *, chunk_users: int | None = None) -> np.ndarray:
        """Simulate every user's report and return the mean estimate (d,), a chunk of users at a time (memory
        bounded by the chunk: about ``chunk_size()`` users)."""
        return self.simulate_means(values, rng, 1, chunk_users=chunk_users)[0]

    def simulate_means(self, values: Any, rng: RandomSource, trials: int, *,
                       chunk_users: int | None = None) -> np.ndarray:
        """``trials`` collections from the same users, one after the other: each row is the mean estimate of one
        (shape (trials, d)), the t-th what the t-th of ``trials`` calls of :meth:`estimate_mean` with ``rng`` would
        return; the values are checked once, not once per collection.

        Parameters
        ----------
        values : array_like
            The users' vectors, shape (users, d), in [−1, 1].
        rng : RandomSource
            The randomness of every collection, used in turn.
        trials : int
            The number of collections (≥ 1).
        chunk_users : int or None, default None
            Users randomized at a time (None: ``chunk_size()``).

        Returns
        -------
        numpy.ndarray
            Shape (trials, d): each collection's mean estimate.

        Raises
        ------
        InvalidInput
            Values outside [−1, 1]^d or of the wrong shape, no user, or fewer than one trial.
        """
        x = self.validate_values(values)
        if x.shape[0] == 0:
            raise InvalidInput(f"{self.name}: give at least one user")
        if isinstance(trials, bool) or not float(trials).is_integer() or trials < 1:
            raise InvalidInput(f"{self.name}: the number of collections must be a positive integer, got {trials!r}")
        step = chunk_users or self.chunk_size()
        out = np.empty((int(trials), self._d))
        for t in range(int(trials)):
            total = np.zeros(self._d)
            for start in range(0, x.shape[0], step):
                total += self._perturb(x[start:start + step], rng).sum(axis=0)
            out[t] = total / x.shape[0]
        return out

    # ------------------------------------------------------------------ reports are rows of real numbers
    def _report_dtype(self) -> Any:
        return np.float64

    def _scalar_reports(self) -> bool:
        return False

    def _format_reports(self, reports: np.ndarray):
        return (" ".join(repr(float(v)) for v in row) for row in reports)

    def _parse_line(self, line: str) -> list[Any]:
        try:
            return [float(tok) for tok in line.split()]
        except ValueError:
            raise InvalidInput(f"not a {self.name} report ({self.report_format}): {line[:60]!r}") from None

    def _report_bits(self) -> int:
        return 64 * self._d

    def report_bits_formula(self) -> str:
        return "64·d (d real numbers as float64)"


def _scalar(name: str, epsilon: float) -> MeanMechanism:
    cls = MECHANISMS.get(name)
    if cls.kind != "mean":
        raise InvalidInput(f"{name} is not a mean mechanism; choose one of: laplace, sr, pm, hm")
    return cls(epsilon)


class SplitBudget(VectorMechanism):
    """Every coordinate with the scalar mechanism at ε/d (sequential composition): Var_j = Var_{ε/d}(x_j), and
    ln f(y | x) = Σ_j ln f_{ε/d}(y_j | x_j), so the privacy loss is d·(ε/d) = ε (attained between the corners).

    Parameters
    ----------
    epsilon : float
        ε of the whole report; each coordinate gets ε/d.
    d : int, default 1
        The number of coordinates, each reported by the class's scalar mechanism (``scalar``).

    References
    ----------
    The LDP lecture, slide "Complicated Numerical Settings" ("split privacy budget into each dimension").
    """

    family: ClassVar[str] = "split"
    scalar: ClassVar[str]
    paper: ClassVar[str] = WANG

    def _setup(self) -> None:
        self.inner = _scalar(self.scalar, self._epsilon / self._d)

    def _perturb(self, x: np.ndarray, rng: RandomSource) -> np.ndarray:
        return self.inner._perturb(x.ravel(), rng).reshape(x.shape)  # x is checked: in [−1, 1], the scalar's domain

    def variance(self, values: Any) -> np.ndarray:
        return self.inner.variance(np.asarray(values, dtype=np.float64))

    def report_bound(self) -> float:
        return float(max(abs(v) for v in self.inner.output_range))

    def _privacy_loss(self) -> float:
        return self._d * self.inner.privacy_loss()

    def _log_density(self, reports: np.ndarray, inputs: np.ndarray) -> np.ndarray:
        return sum(self.inner.log_density(reports[:, j], inputs[:, j]) for j in range(self._d))


class SampleCoordinates(VectorMechanism):
    """Each user reports k coordinates chosen uniformly without replacement, each with the scalar mechanism at
    ε/k, scaled by d/k: E = x and Var_j = (d/k)(Var_{ε/k}(x_j) + x_j²) − x_j². ``k = None``: Wang et al.'s rule
    (:func:`wang_k`). The chosen set does not depend on x, so a report's density is the average over the C(d, k)
    sets of Π_{j ∈ S} f_{ε/k}(y_j k/d | x_j)·(k/d) with y_j = 0 off S, and the privacy loss is k·(ε/k) = ε.

    Parameters
    ----------
    epsilon : float
        ε of one report, shared by the k sampled coordinates (ε/k each).
    d : int, default 1
        The vector's dimension; k is the class's ``fixed_k`` (capped at d) or, where it has none, :func:`wang_k`.

    References
    ----------
    The LDP lecture, slide "Complicated Numerical Settings" ("report only one dimension"); Wang et al., ICDE 2019,
    Algorithm 4.
    """

    family: ClassVar[str] = "sample"
    scalar: ClassVar[str]
    fixed_k: ClassVar[int | None] = None
    paper: ClassVar[str] = WANG
    fast_engine_note: ClassVar[str] = (
        "each coordinate's sum drawn from a Gaussian with its exact mean and variance, independently: not the "
        "cross-covariances (one user's coordinates are correlated, Cov = ((d/k)·(k − 1)/(d − 1) − 1)·x_i x_j); use "
        "the exact engine for sums across coordinates")

    def _setup(self) -> None:
        k = self.fixed_k if self.fixed_k is not None else wang_k(self._epsilon, self._d)
        self.k = min(k, self._d)
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
        out[rows, cols] = self.inner._perturb(x[rows, cols], rng) * (d / k)  # x is checked: the scalar's domain
        return out

    def variance(self, values: Any) -> np.ndarray:
        x = np.asarray(values, dtype=np.float64)
        ratio = self._d / self.k
        return ratio * (self.inner.variance(x) + x * x) - x * x

    def report_bound(self) -> float:
        return float(max(abs(v) for v in self.inner.output_range)) * self._d / self.k

    def _privacy_loss(self) -> float:
        return self.k * self.inner.privacy_loss()

    def _log_density(self, reports: np.ndarray, inputs: np.ndarray) -> np.ndarray:
        """ln of the mixture over the coordinate sets a report is consistent with: every set holding its non-zero
        coordinates (a scalar report can itself be 0, so a zero coordinate may or may not have been chosen)."""
        d, k = self._d, self.k
        scaled = reports * (k / d)
        out = np.empty((reports.shape[0], inputs.shape[0]))
        log_sets = math.log(math.comb(d, k))
        for i, row in enumerate(scaled):
            nonzero = np.flatnonzero(row != 0.0)
            if nonzero.size > k:
                out[i] = -np.inf
                continue
            zeros = np.flatnonzero(row == 0.0)
            if zeros.size > EXACT_DENSITY_DIMENSION:
                raise InvalidInput(f"{self.name}: the density enumerates coordinate sets: d ≤ "
                                   f"{EXACT_DENSITY_DIMENSION + k}")
            terms = []
            for extra in combinations(zeros.tolist(), k - nonzero.size):
                chosen = np.concatenate([nonzero, np.array(extra, dtype=np.int64)])
                terms.append(sum(self.inner.log_density(np.array([row[j]]), inputs[:, j])[0] for j in chosen))
            out[i] = np.logaddexp.reduce(np.stack(terms), axis=0) - log_sets + k * math.log(k / d)
        return out


def duchi_constant(d: int, form: str = "used") -> float:
    """C_d of Duchi et al.'s mechanism. ``form="paper"``: as Wang et al. (ICDE'19, Alg. 3) print it,
    2^{d−1}/C(d−1, (d−1)/2) for odd d and (2^{d−1} + C(d, d/2)/2)/C(d−1, d/2) for even d. ``form="used"``: the
    constant of :class:`DuchiMechanism`, 2^{d−1}/C(d−1, ⌊(d−1)/2⌋) for every d (the same for odd d).

    Parameters
    ----------
    d : int
        The dimension (≥ 1).
    form : {"used", "paper"}, default "used"
        Which constant (see above; they differ for even d only).

    Returns
    -------
    float
        C_d (the corner magnitude is B = C_d (e^ε + 1)/(e^ε − 1)).

    Raises
    ------
    InvalidInput
        An unknown ``form``.

    References
    ----------
    Wang et al., ICDE 2019, Algorithm 3 (Duchi et al.'s mechanism); not among the papers in the repository.
    """
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
    halved at a = d/2), then which coordinates agree by random ranks (the a smallest of d uniform keys) — O(d log d)
    per user, vectorized.

    Parameters
    ----------
    epsilon : float
        ε of the corner report: p = e^ε/(e^ε + 1).
    d : int, default 1
        The dimension (the corners have d signs).

    References
    ----------
    Duchi, Jordan, Wainwright, JASA 2018, as Wang et al., ICDE 2019, Algorithm 3 print it (neither among the papers
    in the repository).
    """

    name: ClassVar[str] = "duchi"
    display_name: ClassVar[str] = "Duchi et al. (d-dimensional)"
    description: ClassVar[str] = "reports one random corner of the cube {−B, B}^d on the side of a rounded x"
    paper: ClassVar[str] = DUCHI + "; as in " + WANG + " (Alg. 3)"
    family: ClassVar[str] = "joint"
    fast_engine_note: ClassVar[str] = (
        "each coordinate's sum drawn from a Gaussian with its exact mean and variance, independently: not the "
        "cross-covariances (one corner carries every coordinate, so a user's coordinates are correlated); use the "
        "exact engine for sums across coordinates")

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
        v = 2.0 * (rng.random((m, d)) < (1.0 + x) / 2.0) - 1.0  # ±1 (arithmetic: a select costs 8× more)
        upper = rng.random(m) < self.p
        u = rng.random(m)
        a = np.where(upper, np.searchsorted(self._cdf_plus, u, side="right"),
                     np.searchsorted(self._cdf_minus, u, side="right"))
        a = np.minimum(a, d)  # u within rounding of the last cumulative weight
        # the a coordinates of smallest random key agree: rank < a ⟺ key below the row's a-th smallest key (0-based),
        # one sort instead of two argsorts (the keys are distinct but with probability ≈ d²·2⁻⁵⁴ per user)
        keys = rng.random((m, d))
        cut = np.take_along_axis(np.sort(keys, axis=1), np.minimum(a, d - 1)[:, None], axis=1)
        agree = (keys < cut) | (a[:, None] >= d)
        v *= 2.0 * agree - 1.0  # ±1 · ±1: exactly v where it agrees, −v elsewhere
        v *= self.B
        return v

    def variance(self, values: Any) -> np.ndarray:
        x = np.asarray(values, dtype=np.float64)
        return self.B ** 2 - x * x

    def report_bound(self) -> float:
        return float(self.B)

    def _report_bits(self) -> int:
        return self._d

    def report_bits_formula(self) -> str:
        return "d (the signs of the corner; its magnitude B is public)"

    def _privacy_loss(self) -> float:
        """Every corner's probability lies between (1 − p)/2^{d−1} and p/2^{d−1}, and both are reached (the
        corner t under x = t and under x = −t): ln(p/(1 − p)) = ε."""
        return math.log(self.p / (1.0 - self.p))

    def _log_density(self, reports: np.ndarray, inputs: np.ndarray) -> np.ndarray:
        """ln Pr[t | x] for corners t and inputs x, exactly: the coordinates of the rounding v agree with sign(t)
        independently with probability (1 + sign(t_j) x_j)/2, so the number a of agreements has a Poisson-binomial
        law (a dynamic programme over the coordinates, vectorized over the pairs), and Pr[t | v] depends on v
        only through a: p/|T⁺| above d/2, (1 − p)/|T⁻| below, half of each at a tie."""
        d = self._d
        signs = np.sign(reports)
        if np.any(signs == 0) or not np.allclose(np.abs(reports), self.B, rtol=1e-12, atol=0.0):
            raise InvalidInput(f"{self.name}: a report is a corner of {{−B, B}}^d with B = {self.B:.6g}")
        agree = (1.0 + signs[:, None, :] * inputs[None, :, :]) / 2.0  # (reports, inputs, d)
        law = np.zeros(agree.shape[:2] + (d + 1,))
        law[..., 0] = 1.0
        for j in range(d):
            pj = agree[..., j:j + 1]
            law[..., 1:] = law[..., 1:] * (1.0 - pj) + law[..., :-1] * pj
            law[..., 0] = law[..., 0] * (1.0 - pj[..., 0])
        plus, minus = self.side_sizes
        a = np.arange(d + 1)
        weight = np.where(2 * a > d, self.p / plus, 0.0) + np.where(2 * a < d, (1.0 - self.p) / minus, 0.0)
        weight = weight + np.where(2 * a == d, 0.5 * (self.p / plus + (1.0 - self.p) / minus), 0.0)
        with np.errstate(divide="ignore"):
            return np.log(law @ weight)

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


@MECHANISMS.register
class SplitLaplace(SplitBudget):
    """Every coordinate plus Laplace noise of scale 2d/ε (the Laplace mean mechanism at ε/d)."""
    name: ClassVar[str] = "split-laplace"
    display_name: ClassVar[str] = "Laplace, budget split"
    description: ClassVar[str] = "every coordinate plus Laplace noise of scale 2d/ε"
    scalar: ClassVar[str] = "laplace"


@MECHANISMS.register
class SplitSR(SplitBudget):
    """Every coordinate by Stochastic Rounding at ε/d."""
    name: ClassVar[str] = "split-sr"
    display_name: ClassVar[str] = "SR, budget split"
    description: ClassVar[str] = "every coordinate by Stochastic Rounding at ε/d"
    scalar: ClassVar[str] = "sr"


@MECHANISMS.register
class SplitPM(SplitBudget):
    """Every coordinate by the Piecewise Mechanism at ε/d."""
    name: ClassVar[str] = "split-pm"
    display_name: ClassVar[str] = "PM, budget split"
    description: ClassVar[str] = "every coordinate by the Piecewise Mechanism at ε/d"
    scalar: ClassVar[str] = "pm"


@MECHANISMS.register
class SplitHM(SplitBudget):
    """Every coordinate by the Hybrid Mechanism at ε/d."""
    name: ClassVar[str] = "split-hm"
    display_name: ClassVar[str] = "HM, budget split"
    description: ClassVar[str] = "every coordinate by the Hybrid Mechanism at ε/d"
    scalar: ClassVar[str] = "hm"


@MECHANISMS.register
class Harmony(SampleCoordinates):
    """Harmony (Nguyên et al. 2016): one coordinate by Stochastic Rounding at ε, scaled by d (one bit)."""
    name: ClassVar[str] = "harmony"
    display_name: ClassVar[str] = "Harmony"
    description: ClassVar[str] = "one coordinate by Stochastic Rounding at ε, scaled by d"
    scalar: ClassVar[str] = "sr"
    fixed_k: ClassVar[int | None] = 1
    paper: ClassVar[str] = HARMONY


@MECHANISMS.register
class SamplePM(SampleCoordinates):
    """One coordinate by the Piecewise Mechanism at ε, scaled by d."""
    name: ClassVar[str] = "sample-pm"
    display_name: ClassVar[str] = "PM, one coordinate"
    description: ClassVar[str] = "one coordinate by PM at ε, scaled by d"
    scalar: ClassVar[str] = "pm"
    fixed_k: ClassVar[int | None] = 1


@MECHANISMS.register
class KOfDPM(SampleCoordinates):
    """Wang et al.'s PM for vectors (ICDE'19 Alg. 4): k = max(1, min(d, ⌊ε/2.5⌋)) coordinates by PM at ε/k."""
    name: ClassVar[str] = "kd-pm"
    display_name: ClassVar[str] = "PM, k of d"
    description: ClassVar[str] = "k = max(1, min(d, ⌊ε/2.5⌋)) coordinates by PM at ε/k, scaled by d/k"
    scalar: ClassVar[str] = "pm"


@MECHANISMS.register
class KOfDHM(SampleCoordinates):
    """Wang et al.'s HM for vectors (ICDE'19 Alg. 4): k = max(1, min(d, ⌊ε/2.5⌋)) coordinates by HM at ε/k."""
    name: ClassVar[str] = "kd-hm"
    display_name: ClassVar[str] = "HM, k of d"
    description: ClassVar[str] = "k = max(1, min(d, ⌊ε/2.5⌋)) coordinates by HM at ε/k, scaled by d/k"
    scalar: ClassVar[str] = "hm"


MECHANISMS.register(DuchiMechanism)  # listed after the split and sampled families


@MECHANISMS.register
class GaussianVector(VectorMechanism):
    """The Gaussian mechanism on the whole vector: y = x + N(0, σ² I_d), (ε, δ)-LDP with σ calibrated (analytic
    Gaussian mechanism, :func:`ldp.maths.gaussian.gaussian_sigma`) for the L2 sensitivity of [−1, 1]^d, Δ = 2√d
    (opposite corners). Var_j = σ², which grows like d — not d² as when the budget is split (the Gaussian's
    advantage: noise is calibrated to the L2 norm, and composition of d scalar releases would pay ε/d each).
    ``privacy_profile(ε')`` is the Gaussian's δ(ε') at Δ = 2√d, attained between opposite corners; the density
    ratio is unbounded (``privacy_loss()`` = ∞). Reports are snapped to the scalar Gaussian's grid.

    Parameters
    ----------
    epsilon : float
        ε of the (ε, δ)-LDP guarantee of the whole vector.
    d : int, default 1
        The dimension; the L2 sensitivity is 2√d.
    delta : float, default 1e-5
        δ of the guarantee, in (0, ½).

    References
    ----------
    The LDP lecture, slide "Using Existing Methods" (apply Gaussian noise); σ by Balle & Wang, ICML 2018,
    Theorem 8 (not among the papers in the repository).
    """

    name: ClassVar[str] = "gaussian-vector"
    display_name: ClassVar[str] = "Gaussian (ε, δ), whole vector"
    description: ClassVar[str] = "every coordinate plus Gaussian noise, σ calibrated for (ε, δ) at L2 sensitivity 2√d"
    paper: ClassVar[str] = GAUSS_PAPER
    family: ClassVar[str] = "joint"
    extra_parameters: ClassVar[tuple[Param, ...]] = (DELTA,)
    fast_engine_exact: ClassVar[bool] = True  # independent Gaussian noise: each coordinate's sum is exactly Gaussian

    def _setup(self) -> None:
        self.sensitivity = 2.0 * math.sqrt(self._d)
        self.sigma = gaussian_sigma(self._epsilon, self._params["delta"], self.sensitivity)
        self.grid = gaussian_grid(self.sigma)

    @property
    def delta(self) -> float:
        return float(self._params["delta"])

    def _perturb(self, x: np.ndarray, rng: RandomSource) -> np.ndarray:
        return self.grid.snap(x + gaussian(rng, x.shape, self.sigma))

    def variance(self, values: Any) -> np.ndarray:
        return np.full(np.shape(np.asarray(values, dtype=np.float64)), self.sigma ** 2)

    def report_bound(self) -> float:
        return self.grid.ends()[1]

    def _privacy_loss(self) -> float:
        """The Gaussian density ratio is unbounded: no pure ε holds (see ``privacy_profile``)."""
        return math.inf

    def _privacy_profile(self, epsilon: float) -> float:
        return gaussian_delta(epsilon, self.sigma, self.sensitivity)

    def _log_density(self, reports: np.ndarray, inputs: np.ndarray) -> np.ndarray:
        z = (reports[:, None, :] - inputs[None, :, :]) / self.sigma
        return -0.5 * (z * z).sum(axis=2) - self._d * math.log(self.sigma * math.sqrt(2.0 * math.pi))


def vector_mechanism(name: str, epsilon: float, d: int) -> VectorMechanism:
    """The registered mechanism ``name`` for vectors of d coordinates: a vector mechanism, or a mean mechanism's
    own d-dimensional form (its ``vector_form``: ``pm`` → ``kd-pm``, ``laplace`` → ``split-laplace`` …), so
    ``ldp mean -m pm`` works for one column or several. Other kinds are refused in one line.

    Parameters
    ----------
    name : str
        A registered vector mechanism, or a mean mechanism (replaced by its ``vector_form``).
    epsilon : float
        The budget ε of each user's whole report.
    d : int
        The number of coordinates.

    Returns
    -------
    VectorMechanism
        The mechanism at ε for d coordinates (its other parameters at their defaults).

    Raises
    ------
    InvalidInput
        An unknown name, a mechanism of another kind, or ε or d out of range.
    """
    cls = MECHANISMS.get(name)
    form = getattr(cls, "vector_form", None)
    if form is not None:
        cls = MECHANISMS.get(form)
    if not issubclass(cls, VectorMechanism):
        names = [c.name for c in MECHANISMS if c.kind == "vector" or getattr(c, "vector_form", None)]
        raise InvalidInput(f"{cls.name} is a {cls.kind} mechanism, not one for means of vectors; choose one of: "
                           f"{', '.join(names)}")
    return cls(epsilon, int(d))
