"""Means of several numerical columns under LDP: one user's row is a vector, mapped column by column from its
public range [lo, hi] to [−1, 1], randomized by a vector mechanism (:mod:`ldp.mechanisms.vector`), averaged, and
mapped back — the mean of each column in its own units, with the closed-form variance of that estimate — plus
the lecture's comparison of the ways to spend one ε on d numbers (worst-case variance against d)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ldp.core.errors import InvalidInput
from ldp.core.params import check_positive_int
from ldp.core.streams import rng_for
from ldp.mechanisms import mechanisms_of
from ldp.mechanisms.vector import VectorMechanism, vector_mechanism
from ldp.studies.datasets import guess_kind, usable_columns
from ldp.studies.mean_variance import mean_values

__all__ = ["LECTURE_SUMMARY", "VectorMeanResult", "collect_means", "draw_users", "numeric_columns",
           "simulated_against_d", "simulated_variance", "unit_vectors", "variance_against_d"]



@dataclass(frozen=True)
class VectorMeanResult:
    """One collection of several columns' means (real units).

    Attributes
    ----------
    mechanism : VectorMechanism
        The vector mechanism that randomized the users' vectors (its ε and d = the number of columns).
    columns : tuple of str
        The columns, in coordinate order.
    ranges : tuple of (float, float)
        Each column's public range (lo, hi) in its own units, mapped onto [−1, 1].
    users : int
        The number of users n (the complete rows, or the users drawn from them).
    mean : numpy.ndarray
        Shape (d,): the estimated mean of each column, in its units.
    variance : numpy.ndarray
        Shape (d,): the closed-form variance of each estimate (units²), from the users' true values.
    true_mean : numpy.ndarray
        Shape (d,): the users' true mean of each column (after clipping), in its units.
    notes : tuple of str, default ()
        What was left out, clipped or drawn, one sentence each.

    References
    ----------
    The lecture "Local Differential Privacy (Part 1)", slides "Complicated Numerical Settings" (D = [a, b]: convert
    to [−1, +1] and back; D = [−1, +1]^d: split the budget or report one dimension) and "Summary so far".
    """

    mechanism: VectorMechanism
    columns: tuple[str, ...]
    ranges: tuple[tuple[float, float], ...]
    users: int
    mean: np.ndarray  #: estimated mean per column
    variance: np.ndarray  #: closed-form variance of each estimate (real units²), from the users' true values
    true_mean: np.ndarray
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def standard_error(self) -> np.ndarray:
        return np.sqrt(self.variance)

    def to_dict(self) -> dict[str, Any]:
        mech = self.mechanism
        out: dict[str, Any] = {
            "mechanism": mech.name, "display_name": mech.display_name, "family": mech.family,
            "epsilon": mech.epsilon, "d": mech.d, "users": self.users, "columns": list(self.columns),
            "range": [list(r) for r in self.ranges], "mean": self.mean.tolist(), "variance": self.variance.tolist(),
            "standard_error": self.standard_error.tolist(), "true_mean": self.true_mean.tolist(),
            "notes": list(self.notes)}
        if hasattr(mech, "k"):
            out["k"] = int(mech.k)
        if mech.delta > 0:  # an (ε, δ) mechanism (the Gaussian ones)
            out["delta"] = mech.delta
        return out


def unit_vectors(table: pd.DataFrame, columns: Sequence[str], *, value_range: tuple[float, float] | None = None,
                 clip: bool = False) -> tuple[np.ndarray, tuple[tuple[float, float], ...], tuple[str, ...]]:
    """The users' vectors of ``table``: every row holding all ``columns`` (rows with a missing, non-numeric or
    non-finite value in any of them are left out, and counted in the notes), each column mapped from ``value_range``
    (or its own min and max, taken as public) to [−1, 1] by 2(x − lo)/(hi − lo) − 1. Returns (vectors (rows, d),
    the ranges, notes).

    Parameters
    ----------
    table : pandas.DataFrame
        One row per user.
    columns : sequence of str
        The columns making the vector (at least one, each once).
    value_range : tuple of float or None, default None
        One (lo, hi) for every column; None takes each column's own min and max.
    clip : bool, default False
        Clip values outside an explicit ``value_range`` instead of refusing them.

    Returns
    -------
    vectors : numpy.ndarray
        Shape (rows, d), float64 in [−1, 1]: the complete rows, column by column.
    ranges : tuple of (float, float)
        Each column's (lo, hi).
    notes : tuple of str
        Rows left out and values clipped, one sentence each.

    Raises
    ------
    InvalidInput
        When no column is given, a column is absent or named twice, or a column fails :func:`mean_values`
        (fewer than two values, constant without a range, values outside an explicit range without ``clip``).

    References
    ----------
    The lecture "Local Differential Privacy (Part 1)", slides "Complicated Numerical Settings" (D = [a, b]: convert
    to [−1, +1] and back; D = [−1, +1]^d: split the budget or report one dimension) and "Summary so far".
    """
    cols = [str(c) for c in columns]
    if not cols:
        raise InvalidInput("give at least one column")
    missing = [c for c in cols if c not in table.columns]
    if missing:
        raise InvalidInput(f"no column {missing[0]!r}; the table has: {', '.join(map(str, table.columns[:20]))}")
    if len(set(cols)) != len(cols):
        raise InvalidInput("a column is named twice")
    numeric = table[cols].apply(pd.to_numeric, errors="coerce")
    arr = numeric.to_numpy(dtype=np.float64)
    present = ~np.isnan(arr).any(axis=1)
    complete = np.isfinite(arr).all(axis=1)  # a row with inf in any chosen column is no user's vector either
    notes = []
    if not present.all():
        notes.append(f"{int((~present).sum()):,} rows with a missing or non-numeric value left out")
    if (present & ~complete).any():
        notes.append(f"{int((present & ~complete).sum()):,} rows with a non-finite value (inf) left out")
    unit, ranges = [], []
    for c in cols:
        x, (lo, hi), clipped, _ = mean_values(numeric[c][complete], value_range, clip)
        if clipped:
            notes.append(f"{c}: {clipped:,} values clipped into [{lo:g}, {hi:g}]")
        unit.append(2.0 * (x - lo) / (hi - lo) - 1.0)
        ranges.append((lo, hi))
    return np.column_stack(unit), tuple(ranges), tuple(notes)


def draw_users(values: np.ndarray, users: int | None, seed: int | None) -> tuple[np.ndarray, tuple[str, ...]]:
    """``users`` users drawn with replacement from the rows of ``values`` (stream "vector-means"/"users" of
    ``seed``), or the rows themselves when ``users`` is None or their number — a table is its own population.

    Parameters
    ----------
    values : numpy.ndarray
        Shape (rows, d): the users' vectors.
    users : int or None
        How many users to draw (positive); None keeps the rows.
    seed : int or None
        The root seed of the draw (:func:`ldp.core.streams.rng_for`); None draws fresh entropy.

    Returns
    -------
    values : numpy.ndarray
        Shape (users, d): the drawn vectors (``values`` itself when nothing is drawn).
    notes : tuple of str
        One sentence saying how many users were drawn, or empty.

    Raises
    ------
    InvalidInput
        When ``users`` is not a positive integer.
    """
    if users is None or int(users) == values.shape[0]:
        return values, ()
    n = check_positive_int(users, "users")
    picked = rng_for(seed, "vector-means", "users").integers(0, values.shape[0], n)
    return values[picked], (f"{n:,} users drawn with replacement from the {values.shape[0]:,} complete rows",)


def collect_means(mechanism: str, epsilon: float, table: pd.DataFrame, columns: Sequence[str], *,
                  value_range: tuple[float, float] | None = None, clip: bool = False, seed: int | None = 0,
                  users: int | None = None) -> VectorMeanResult:
    """Every row of ``table`` is a user holding the ``columns`` (:func:`unit_vectors`: incomplete rows left out,
    columns mapped from ``value_range`` or their own min and max to [−1, 1]); with ``users``, that many users drawn
    from the rows instead (:func:`draw_users`). The users' reports are simulated from the stream of ``seed`` and
    averaged, and mapped back to each column's units.

    Parameters
    ----------
    mechanism : str
        The registry name of a vector mechanism, or of a mean mechanism with a d-dimensional form
        (:func:`ldp.mechanisms.vector.vector_mechanism`: ``pm`` → ``kd-pm`` …).
    epsilon : float
        The privacy budget of each user's one report (the whole vector).
    table : pandas.DataFrame
        One row per user.
    columns : sequence of str
        The columns making the vector.
    value_range : tuple of float or None, default None
        One public (lo, hi) for every column; None takes each column's min and max.
    clip : bool, default False
        Clip values outside an explicit range instead of refusing them.
    seed : int or None, default 0
        The root seed: streams "vector-means"/"users" (the draw) and "vector-means"/<mechanism> (the reports).
    users : int or None, default None
        Draw this many users with replacement from the complete rows; None: the rows are the users.

    Returns
    -------
    VectorMeanResult
        The estimated and true means per column in its units, the closed-form variance of each estimate
        (((hi − lo)/2)² × the mechanism's ``mean_variance``) and the notes.

    Raises
    ------
    InvalidInput
        As :func:`unit_vectors` and :func:`draw_users`, or when ``mechanism`` is not a mechanism for vectors.

    References
    ----------
    The lecture "Local Differential Privacy (Part 1)", slides "Complicated Numerical Settings" (D = [a, b]: convert
    to [−1, +1] and back; D = [−1, +1]^d: split the budget or report one dimension) and "Summary so far".
    """
    values, ranges, notes = unit_vectors(table, columns, value_range=value_range, clip=clip)
    values, drawn = draw_users(values, users, seed)
    mech = vector_mechanism(mechanism, epsilon, values.shape[1])
    estimate = mech.estimate_mean(values, rng_for(seed, "vector-means", mech.name))
    half = np.array([(hi - lo) / 2.0 for lo, hi in ranges])
    centre = np.array([(hi + lo) / 2.0 for lo, hi in ranges])
    return VectorMeanResult(mechanism=mech, columns=tuple(str(c) for c in columns), ranges=ranges,
                            users=int(values.shape[0]), mean=centre + half * estimate,
                            variance=half ** 2 * mech.mean_variance(values),
                            true_mean=centre + half * values.mean(axis=0), notes=notes + drawn)


def numeric_columns(table: pd.DataFrame) -> list[str]:
    """The columns of numbers with many distinct values (:func:`ldp.studies.datasets.guess_kind`): the coordinates
    a table can give its users' vectors.

    Parameters
    ----------
    table : pandas.DataFrame
        The table.

    Returns
    -------
    list of str
        The names of its usable columns guessed "numerical", in table order.
    """
    return [c for c in usable_columns(table) if guess_kind(table[c]) == "numerical"]


def variance_against_d(epsilon: float, dims: Sequence[int], mechanisms: Sequence[str] | None = None
                       ) -> pd.DataFrame:
    """The lecture's comparison in closed form: each mechanism's worst-case variance of one user's contribution
    per coordinate (over x ∈ [−1, 1]^d) against d at one ε; the mean's MSE is that over n.

    Parameters
    ----------
    epsilon : float
        The privacy budget of one user's vector.
    dims : sequence of int
        The dimensions d to evaluate.
    mechanisms : sequence of str or None, default None
        Registry names (vector mechanisms or mean mechanisms with a vector form); None: every vector mechanism.

    Returns
    -------
    pandas.DataFrame
        One row per (mechanism, d): columns "mechanism", "display_name", "family", "d" and "worst-case variance"
        (the mechanism's ``worst_case_variance()``, for one user, in the units of [−1, 1]²).

    Raises
    ------
    InvalidInput
        When a name is unknown or not a mechanism for vectors.

    References
    ----------
    The lecture "Local Differential Privacy (Part 1)", slide "Complicated Numerical Settings" (D = [−1, +1]^d:
    split the privacy budget into each dimension, or report only one dimension).
    """
    names = list(mechanisms) if mechanisms is not None else [cls.name for cls in mechanisms_of("vector")]
    rows = []
    for name in names:
        for d in dims:
            mech = vector_mechanism(name, epsilon, int(d))
            rows.append({"mechanism": name, "display_name": mech.display_name, "family": mech.family,
                         "d": int(d), "worst-case variance": mech.worst_case_variance()})
    return pd.DataFrame(rows)


#: The lecture's summary table ("Summary so far"): what to use for each kind of value, and where it lives here.
LECTURE_SUMMARY = pd.DataFrame({
    "": ["scalar", "vector"],
    "categorical": ["a frequency oracle (GRR, OUE, OLH, … — Playground)",
                    "split the users: each reports one attribute (K of Q questions, Learn)"],
    "numerical": ["probability assignment + RR: Stochastic Rounding, PM, HM (ldp mean)",
                  "split the users: each reports one (or k) coordinates — Harmony, PM/HM k of d"],
})


def simulated_variance(mechanism: str, epsilon: float, d: int, *, users: int = 20_000, trials: int = 50,
                       seed: int = 0, values: np.ndarray | None = None, fast: bool = False) -> dict[str, float]:
    """The mean's per-coordinate MSE over ``trials`` collections of ``users`` users holding uniform vectors in
    [−1, 1]^d — or the given ``values`` (users × d, in [−1, 1], e.g. :func:`unit_vectors` of a table; ``users`` and
    ``d`` are then theirs) — beside the closed form Σ Var/n² (averaged over the coordinates).

    Parameters
    ----------
    mechanism : str
        The registry name of a mechanism for vectors.
    epsilon : float
        The privacy budget of one user's vector.
    d : int
        The dimension of the uniform vectors (ignored when ``values`` is given; the stream is still keyed by it).
    users : int, default 20_000
        The number of users of the uniform vectors (ignored with ``values``).
    trials : int, default 50
        The number of collections.
    seed : int, default 0
        The root seed; stream "vector-means"/"check"/<mechanism>/<ε>/<d> draws the vectors and the reports.
    values : numpy.ndarray or None, default None
        Shape (users, d), in [−1, 1]: the users' vectors; None draws uniform ones.
    fast : bool, default False
        Draw each collection's sums per coordinate with the mechanism's fast engine where that is exact in
        distribution (``fast_engine_exact``: the Gaussian's, a sum of independent Gaussian noises being Gaussian —
        d numbers per collection instead of every user's report); every other mechanism simulates every user as
        without it. Where it applies, the numbers for a seed are another draw of the same law than the per-user
        simulation's.

    Returns
    -------
    dict
        "simulated" (float, the mean squared error of the mean estimate, over coordinates and trials),
        "closed form" (float, the mechanism's ``mean_variance`` averaged over the coordinates), "trials" and
        "users" (int).

    Raises
    ------
    InvalidInput
        When ``mechanism`` is not a mechanism for vectors.
    """
    rng = rng_for(seed, "vector-means", "check", mechanism, float(epsilon), int(d))
    if values is None:
        x = rng.uniform(-1.0, 1.0, size=(int(users), int(d)))
    else:
        x = np.asarray(values, dtype=np.float64)
        users = x.shape[0]
    mech = vector_mechanism(mechanism, epsilon, x.shape[1])
    if fast and mech.fast_engine_exact:
        ones = np.ones(x.shape[0], dtype=np.int64)
        means = np.array([mech.sample_aggregate(ones, rng, x).counts for _ in range(int(trials))]) / x.shape[0]
    else:
        means = mech.simulate_means(x, rng, int(trials))
    errors = means - x.mean(axis=0)
    return {"simulated": float(np.mean(errors ** 2)), "closed form": float(np.mean(mech.mean_variance(x))),
            "trials": int(trials), "users": int(users)}


def simulated_against_d(epsilon: float, dims: Sequence[int], mechanisms: Sequence[str] | None = None, *,
                        users: int = 2_000, trials: int = 20, seed: int = 0, fast: bool = False) -> pd.DataFrame:
    """Per mechanism and d: n × the simulated MSE of the mean per coordinate (uniform vectors, ``trials``
    collections of ``users``) beside n × its closed form for the same users — the lecture's comparison by
    simulation, in the same units as :func:`variance_against_d`.

    Parameters
    ----------
    epsilon : float
        The privacy budget each simulated user spends on its whole vector.
    dims : sequence of int
        The dimensions d simulated, one row each per mechanism.
    mechanisms : sequence of str or None, default None
        Registry names, as in :func:`variance_against_d`; None: every vector mechanism.
    users : int, default 2_000
        Users per collection n.
    trials : int, default 20
        Collections per (mechanism, d).
    seed : int, default 0
        The root seed, passed to :func:`simulated_variance`.
    fast : bool, default False
        Passed to :func:`simulated_variance`: the sums drawn by the fast engine where it is exact in distribution.

    Returns
    -------
    pandas.DataFrame
        One row per (mechanism, d): columns "mechanism", "display_name", "family", "d", "simulated" and
        "closed form" (n × the per-coordinate MSE of the mean, comparable to the worst-case variance of one user).

    Raises
    ------
    InvalidInput
        When a name is unknown or not a mechanism for vectors.
    """
    names = list(mechanisms) if mechanisms is not None else [cls.name for cls in mechanisms_of("vector")]
    rows = []
    for name in names:
        for d in dims:
            check = simulated_variance(name, epsilon, int(d), users=users, trials=trials, seed=seed, fast=fast)
            cls = type(vector_mechanism(name, epsilon, int(d)))
            rows.append({"mechanism": name, "display_name": cls.display_name, "family": cls.family, "d": int(d),
                         "simulated": users * check["simulated"], "closed form": users * check["closed form"]})
    return pd.DataFrame(rows)
