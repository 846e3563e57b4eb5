"""Range queries over two ordinal (numerical, bucketized) columns: HDG and the range-query error of any joint
estimate.

HDG — the Hybrid-Dimensional Grids of Yang, Wang, Li, Cheng, Su ("Answering Multi-Dimensional Range Queries under
Local Differential Privacy", PVLDB 14(3), 2020, also cited as ICDE'20). With two attributes of fine
domains [d₁] and [d₂]:

1. The users are split uniformly into G = m + C(m, 2) = 3 groups: the 1-D grid of each attribute (g₁ equal-width
   cells of its fine domain) and the 2-D grid (g₂ × g₂ cells). Each group reports its grid cell with the full ε
   through a frequency oracle (OLH, or GRR when its variance is smaller — :func:`ldp.studies.joint.oracle_for`).
2. Every grid is made non-negative and summing to one (the registered post-processor, Norm-Sub by default), then
   the grids are made consistent on each attribute: g₁ is rounded to a multiple of g₂, so t = g₁/g₂ consecutive
   1-D cells form one interval of the 2-D grid; the two estimates of each interval's frequency (the 1-D cells'
   sum, variance t·V₁, and the 2-D row or column sum, variance g₂·V₂) are replaced by their inverse-variance
   weighted average and the difference spread evenly over the cells (the paper's consistency step, as in CALM);
   non-negativity and consistency alternate a few rounds, ending with consistency.
3. The response matrix: a d₁ × d₂ table over the fine domain, started uniform (the uniformity assumption within a
   cell) and updated until it agrees with the 2-D grid's cells and both 1-D grids' cells — the paper's iterative
   weighted update, which is iterative proportional fitting onto the three grids' block sums
   (:func:`ldp.maths.ipf.ipf`, the maximum-entropy table): the 1-D grids refine the 2-D cells in which the query
   boundary falls.
4. A rectangle query is answered by summing the response matrix over the rectangle (2-D prefix sums).

Simplifications (documented choices): the paper's response matrix is built per pair of attributes at the
granularity g₁ × g₁; we build it at the fine domain d₁ × d₂ (the same answers for queries aligned to g₁ cells, and
uniform spreading within a 1-D cell otherwise); the rounds of step 2 are fixed (5) instead of run to convergence.

Granularity guideline (our derivation, following the paper's analysis of the two errors, since the paper's text is
not among the bundled specifications; α₁ = 0.7 and α₂ = 0.03 are the paper's constants). With n/G users per grid
and OLH, the variance of one cell is V = 4G·e^ε / (n (e^ε − 1)²). A 1-D query adds the noise of up to g₁ cells and
a non-uniformity error ≈ α₁/g₁ from its two partially covered cells: g₁·V + (α₁/g₁)² is smallest at ::

    g₁ = ( n (e^ε − 1)² α₁² / (2 G e^ε) )^(1/3)                                   (H1)

A 2-D query adds the noise of up to g₂² cells and a non-uniformity error ≈ α₂/g₂ from the ≈ g₂ partially covered
cells of mass 1/g₂² along its border: g₂²·V + (α₂/g₂)² is smallest at ::

    g₂ = ( α₂ (e^ε − 1) / 2 · sqrt(n / (G e^ε)) )^(1/2)                            (H2)

both rounded, g₂ clamped to [2, min(d₁, d₂)] and g₁ to a multiple of g₂ within [g₂, min(d₁, d₂)].
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from ldp.core.errors import InvalidInput
from ldp.core.params import check_positive_int
from ldp.maths.ipf import BlockConstraint, block_sums, ipf
from ldp.maths.simplex import norm_sub
from ldp.mechanisms.numerical.binning import bin_boundaries
from ldp.studies.joint_estimates import (
    CALM_ROUNDS,
    JOINT_METHODS,
    JointEstimate,
    JointJob,
    JointMethod,
    check_group,
    oracle_for,
    run_oracle,
    split_users,
)

__all__ = ["ALPHA1", "ALPHA2", "HDG_PAPER", "HDGMethod", "hdg_granularities", "random_rectangles", "range_answers",
           "range_mse", "with_range_mse"]

HDG_PAPER = ("Yang, Wang, Li, Cheng, Su — Answering Multi-Dimensional Range Queries under Local Differential "
             "Privacy (HDG)")
ALPHA1 = 0.7
ALPHA2 = 0.03
GROUPS = 3  # two 1-D grids and one 2-D grid


def hdg_granularities(n: int, epsilon: float, d1: int, d2: int) -> tuple[int, int]:
    """(g₁, g₂) of the guideline (H1), (H2) of the module docstring, clamped to the fine domains.

    Parameters
    ----------
    n : int
        All users (split over the G = 3 grids).
    epsilon : float
        Each user's budget ε.
    d1 : int
        The first column's fine domain size.
    d2 : int
        The second column's fine domain size.

    Returns
    -------
    tuple of (int, int)
        (g₁, g₂): g₂ rounded and clamped to [2, min(d₁, d₂)], g₁ a multiple of g₂ no larger than min(d₁, d₂).

    Raises
    ------
    InvalidInput
        If n is not a positive integer.

    References
    ----------
    Yang, Wang, Li, Cheng, Su, "Answering Multi-Dimensional Range Queries under Local Differential Privacy"
    (PVLDB 14(3), 2020): the constants α₁ = 0.7, α₂ = 0.03; (H1) and (H2) are our derivation from its error
    analysis (the paper is not among the bundled specifications).
    """
    n = check_positive_int(n, "n")
    e = math.exp(epsilon)
    g1 = (n * (e - 1) ** 2 * ALPHA1 ** 2 / (2 * GROUPS * e)) ** (1 / 3)
    g2 = (ALPHA2 * (e - 1) / 2 * math.sqrt(n / (GROUPS * e))) ** 0.5
    top = min(int(d1), int(d2))
    g2i = int(min(max(round(g2), 2), top))
    g1i = int(min(max(round(g1 / g2i), 1) * g2i, top // g2i * g2i))
    return g1i, g2i


def _consistent_axis(one_d: np.ndarray, two_d: np.ndarray, axis: int, t: int, v1: float, v2: float
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Make a 1-D grid (g₁ = t·g₂ cells) and the 2-D grid (g₂ × g₂) agree on the g₂ intervals of ``axis``."""
    g2 = two_d.shape[0]
    p1 = one_d.reshape(g2, t).sum(axis=1)
    p2 = two_d.sum(axis=1 - axis)
    w1, w2 = 1.0 / (t * v1), 1.0 / (g2 * v2)
    target = (w1 * p1 + w2 * p2) / (w1 + w2)
    one_d = one_d + np.repeat((target - p1) / t, t)
    two_d = two_d + np.expand_dims((target - p2) / g2, 1 - axis)
    return one_d, two_d


@JOINT_METHODS.register
class HDGMethod(JointMethod):
    name = "hdg"
    description = ("HDG (range queries over 2 ordinal columns): 1-D grids and a 2-D grid, consistency, a response "
                   "matrix fitted to all three")
    assumes = "uniformity within the grids' cells (refined by the 1-D grids)"
    columns: ClassVar[tuple[int, ...]] = (2,)

    @classmethod
    def run(cls, job: JointJob, g1: int | None = None, g2: int | None = None, **options: Any
            ) -> tuple[np.ndarray, dict[str, Any], dict[str, Any]]:
        pop = job.population
        d1, d2 = pop.shape
        auto1, auto2 = hdg_granularities(pop.n, job.epsilon, d1, d2)
        g2 = auto2 if g2 is None else int(g2)
        g1 = auto1 if g1 is None else int(g1)
        if not (2 <= g2 <= min(d1, d2) and g1 % g2 == 0 and g1 <= min(d1, d2)):
            raise InvalidInput(f"hdg: need 2 ≤ g2 ≤ {min(d1, d2)} and g1 a multiple of g2 up to {min(d1, d2)}, "
                               f"got g1={g1}, g2={g2}")
        t = g1 // g2
        b1 = [bin_boundaries(d, g1) for d in (d1, d2)]
        b2 = [bin_boundaries(d, g2) for d in (d1, d2)]
        groups = split_users(pop.counts, GROUPS, job.rng("hdg", "groups"))
        grids, variances, users, oracles = [], [], {}, {}
        populations = [block_sums(groups[..., 0], (b1[0], None)), block_sums(groups[..., 1], (None, b1[1])),
                       block_sums(groups[..., 2], (b2[0], b2[1]))]
        names = [f"{pop.columns[0]} 1-D ({g1})", f"{pop.columns[1]} 1-D ({g1})", f"2-D ({g2}×{g2})"]
        for name, counts in zip(names, populations, strict=True):
            n_g = int(counts.sum())
            check_group(n_g, name)
            mechanism = oracle_for(job.epsilon, counts.size, n_g, job.oracle)
            grids.append(run_oracle(mechanism, counts.ravel(), job.rng("hdg", name, mechanism.name), job.engine,
                                    job.postprocess).reshape(counts.shape))
            variances.append(float(mechanism.approximate_variance(n_g)))
            users[name], oracles[name] = n_g, mechanism.name
        one_a, one_b, two = grids
        for last in [False] * CALM_ROUNDS + [True]:
            one_a, two = _consistent_axis(one_a, two, 0, t, variances[0], variances[2])
            one_b, two = _consistent_axis(one_b, two, 1, t, variances[1], variances[2])
            if not last:
                one_a, one_b = norm_sub(one_a), norm_sub(one_b)
                two = norm_sub(two.ravel()).reshape(two.shape)
        constraints = [BlockConstraint((b2[0], b2[1]), np.maximum(two, 0.0)),
                       BlockConstraint((b1[0], None), np.maximum(one_a, 0.0)),
                       BlockConstraint((None, b1[1]), np.maximum(one_b, 0.0))]
        matrix, iterations, residual = ipf(pop.shape, constraints, max_iter=100, tol=1e-9)
        return (matrix, {"oracle": oracles, "g1": g1, "g2": g2, "alpha1": ALPHA1, "alpha2": ALPHA2},
                {"users_per_group": users, "cell_variance": dict(zip(names, variances, strict=True)),
                 "ipf_iterations": iterations, "ipf_residual": residual, "assumes": cls.assumes})


# =========================================================================== range queries
def random_rectangles(shape: tuple[int, int], k: int, rng: np.random.Generator) -> np.ndarray:
    """``k`` random rectangles [lo₁, hi₁) × [lo₂, hi₂) of the fine domain, shape (k, 2, 2) as (axis, (lo, hi)):
    per axis lo uniform in [0, d) and hi uniform in (lo, d].

    Parameters
    ----------
    shape : tuple of (int, int)
        (d₁, d₂), the fine domain.
    k : int
        The number of rectangles (positive).
    rng : numpy.random.Generator
        The random stream.

    Returns
    -------
    numpy.ndarray
        int64, shape (k, 2, 2): ``out[i, axis] = (lo, hi)``, half-open, never empty.

    Raises
    ------
    InvalidInput
        If k is not a positive integer.
    """
    k = check_positive_int(k, "the number of queries")
    out = np.empty((k, 2, 2), dtype=np.int64)
    for axis, d in enumerate(shape):
        lo = rng.integers(0, d, size=k)
        hi = lo + 1 + np.floor(rng.random(k) * (d - lo)).astype(np.int64)
        out[:, axis, 0], out[:, axis, 1] = lo, hi
    return out


def range_answers(table: np.ndarray, rectangles: np.ndarray) -> np.ndarray:
    """The mass of a 2-D table in every rectangle (by 2-D prefix sums, vectorized over the rectangles).

    Parameters
    ----------
    table : numpy.ndarray
        A joint distribution (or counts), shape (d₁, d₂).
    rectangles : numpy.ndarray
        Integer rectangles, shape (k, 2, 2) as from :func:`random_rectangles`.

    Returns
    -------
    numpy.ndarray
        The k sums, shape (k,).

    Raises
    ------
    InvalidInput
        If the table is not 2-dimensional.
    """
    t = np.asarray(table, dtype=np.float64)
    if t.ndim != 2:
        raise InvalidInput(f"range queries need a 2-column joint table, got {t.ndim} columns")
    s = np.zeros((t.shape[0] + 1, t.shape[1] + 1))
    s[1:, 1:] = t.cumsum(axis=0).cumsum(axis=1)
    lo1, hi1, lo2, hi2 = rectangles[:, 0, 0], rectangles[:, 0, 1], rectangles[:, 1, 0], rectangles[:, 1, 1]
    return s[hi1, hi2] - s[lo1, hi2] - s[hi1, lo2] + s[lo1, lo2]


def range_mse(estimate: np.ndarray, truth: np.ndarray, rectangles: np.ndarray) -> float:
    """Mean squared error of the rectangles' answers.

    Parameters
    ----------
    estimate : numpy.ndarray
        The estimated joint distribution, shape (d₁, d₂).
    truth : numpy.ndarray
        The true joint distribution, same shape.
    rectangles : numpy.ndarray
        The queries, shape (k, 2, 2).

    Returns
    -------
    float
        The mean over the k queries of (estimated mass − true mass)².

    Raises
    ------
    InvalidInput
        If a table is not 2-dimensional.
    """
    return float(np.mean((range_answers(estimate, rectangles) - range_answers(truth, rectangles)) ** 2))


def with_range_mse(result: JointEstimate, queries: int, rng: np.random.Generator) -> JointEstimate:
    """The result with ``range_mse`` over ``queries`` random rectangles (needs 2 columns and the truth).

    Parameters
    ----------
    result : JointEstimate
        A joint estimate that carries its truth.
    queries : int
        Random rectangles to average over.
    rng : numpy.random.Generator
        The stream the rectangles are drawn from.

    Returns
    -------
    JointEstimate
        A copy with ``metrics["range_mse"]`` added.

    Raises
    ------
    InvalidInput
        If the result has no truth, is not over 2 columns, or ``queries`` is not a positive integer.
    """
    if result.truth is None:
        raise InvalidInput("range_mse needs the true distribution")
    if result.estimate.ndim != 2:
        raise InvalidInput(f"range queries need 2 columns, got {result.estimate.ndim}")
    rects = random_rectangles(result.estimate.shape, queries, rng)
    return result.with_metrics(range_mse=range_mse(result.estimate, result.truth, rects))
