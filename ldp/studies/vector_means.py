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
    """One collection of several columns' means (real units)."""

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
    the ranges, notes)."""
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
    ``seed``), or the rows themselves when ``users`` is None or their number — a table is its own population."""
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
    averaged, and mapped back to each column's units."""
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
    a table can give its users' vectors."""
    return [c for c in usable_columns(table) if guess_kind(table[c]) == "numerical"]


def variance_against_d(epsilon: float, dims: Sequence[int], mechanisms: Sequence[str] | None = None
                       ) -> pd.DataFrame:
    """The lecture's comparison in closed form: each mechanism's worst-case variance of one user's contribution
    per coordinate (over x ∈ [−1, 1]^d) against d at one ε; the mean's MSE is that over n."""
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
                       seed: int = 0, values: np.ndarray | None = None) -> dict[str, float]:
    """The mean's per-coordinate MSE over ``trials`` collections of ``users`` users holding uniform vectors in
    [−1, 1]^d — or the given ``values`` (users × d, in [−1, 1], e.g. :func:`unit_vectors` of a table; ``users`` and
    ``d`` are then theirs) — beside the closed form Σ Var/n² (averaged over the coordinates)."""
    rng = rng_for(seed, "vector-means", "check", mechanism, float(epsilon), int(d))
    if values is None:
        x = rng.uniform(-1.0, 1.0, size=(int(users), int(d)))
    else:
        x = np.asarray(values, dtype=np.float64)
        users = x.shape[0]
    mech = vector_mechanism(mechanism, epsilon, x.shape[1])
    errors = np.array([mech.estimate_mean(x, rng) - x.mean(axis=0) for _ in range(int(trials))])
    return {"simulated": float(np.mean(errors ** 2)), "closed form": float(np.mean(mech.mean_variance(x))),
            "trials": int(trials), "users": int(users)}


def simulated_against_d(epsilon: float, dims: Sequence[int], mechanisms: Sequence[str] | None = None, *,
                        users: int = 2_000, trials: int = 20, seed: int = 0) -> pd.DataFrame:
    """Per mechanism and d: n × the simulated MSE of the mean per coordinate (uniform vectors, ``trials``
    collections of ``users``) beside n × its closed form for the same users — the lecture's comparison by
    simulation, in the same units as :func:`variance_against_d`."""
    names = list(mechanisms) if mechanisms is not None else [cls.name for cls in mechanisms_of("vector")]
    rows = []
    for name in names:
        for d in dims:
            check = simulated_variance(name, epsilon, int(d), users=users, trials=trials, seed=seed)
            cls = type(vector_mechanism(name, epsilon, int(d)))
            rows.append({"mechanism": name, "display_name": cls.display_name, "family": cls.family, "d": int(d),
                         "simulated": users * check["simulated"], "closed form": users * check["closed form"]})
    return pd.DataFrame(rows)
