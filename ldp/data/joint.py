"""Populations of users holding two or three columns at once: the joint table of users per combination of codes.

A :class:`JointPopulation` holds ``counts``, an int64 array of shape (d₁, d₂[, d₃]) — users per cell of the product
domain — with each column's name, labels and (numerical columns) bucket edges. A cell's index in the flat product
domain is the mixed-radix number of its codes, ``((c₁·d₂) + c₂)·d₃ + c₃`` (C order, :func:`numpy.ravel_multi_index`).

Sources: a table's columns (:func:`joint_from_table`; categorical columns as their distinct values, numerical ones
bucketized with ``buckets``), or a synthetic spec (:func:`joint_synthetic`)::

    correlated:d1=10,d2=10,rho=0.8[,d3=10][,s=1.1]     a Markov chain of copies (exact joint known)
    independent:d1=10,d2=10[,d3=10][,s=1.1]             the same with rho = 0

Column 1 follows Zipf(s) over its d₁ codes; column j + 1 copies column j's code (rescaled to its own domain,
⌊c·d_{j+1}/d_j⌋) with probability ρ and is uniform otherwise. The exact joint is
P(c₁, c₂, c₃) = Zipf(c₁)·K₁₂(c₁, c₂)·K₂₃(c₂, c₃) with K(a, b) = ρ·[b = ⌊a·d'/d⌋] + (1 − ρ)/d'.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ldp.core.errors import InvalidInput
from ldp.core.results import frozen_array
from ldp.data.domain import EncodedColumn, bucketize, draw_population, encode_categorical
from ldp.data.loaders import get_column

__all__ = ["JOINT_SPECS", "MAX_COLUMNS", "MAX_PRODUCT_CELLS", "JointPopulation", "check_product_domain",
           "joint_from_table", "joint_synthetic", "parse_joint_spec", "spec_distribution"]

MAX_COLUMNS = 3
#: The largest product domain d₁·d₂·d₃ handled: every method holds a few float64 tables of this size (and the
#: product oracle's support counts), so 2²² cells is about 32 MiB per table.
MAX_PRODUCT_CELLS = 1 << 22
#: Distinct values above which a numerical column is not taken as categorical without --buckets.
MAX_NUMERIC_CATEGORIES = 64

JOINT_SPECS = {
    "correlated": "column 1 Zipf(s); each next column copies the previous one's (rescaled) code with probability rho, "
                  "else uniform: correlated:d1=10,d2=10,rho=0.8[,d3=10][,s=1.1]",
    "independent": "the same with rho = 0: independent:d1=10,d2=10[,d3=10][,s=1.1]",
}
_SPEC_KEYS = ("d1", "d2", "d3", "rho", "s")


def check_product_domain(sizes: Sequence[int]) -> int:
    """The product domain's size, refused (before any allocation) beyond :data:`MAX_PRODUCT_CELLS`.

    Parameters
    ----------
    sizes : sequence of int
        The columns' domain sizes d₁, d₂[, d₃].

    Returns
    -------
    int
        d₁·d₂[·d₃].

    Raises
    ------
    InvalidInput
        For fewer than 2 or more than :data:`MAX_COLUMNS` sizes, or a product above :data:`MAX_PRODUCT_CELLS`.
    """
    if not 2 <= len(sizes) <= MAX_COLUMNS:
        raise InvalidInput(f"a joint distribution needs 2 or {MAX_COLUMNS} columns, got {len(sizes)}")
    cells = math.prod(int(d) for d in sizes)
    if cells > MAX_PRODUCT_CELLS:
        shown = " x ".join(str(int(d)) for d in sizes)
        raise InvalidInput(f"the product domain {shown} = {cells:,} cells exceeds {MAX_PRODUCT_CELLS:,}; use fewer "
                           "buckets or values per column")
    return cells


@dataclass(frozen=True, eq=False)
class JointPopulation:
    """Users per cell of the product domain of 2 or 3 columns (read-only), with the columns' names and labels.

    Attributes
    ----------
    columns : tuple of str
        The columns' names, 2 or 3.
    labels : tuple of tuple of str
        Per column, one label per code (their lengths are the shape of ``counts``).
    counts : numpy.ndarray
        Users per cell, int64 of shape (d₁, d₂[, d₃]), non-negative with at least one user; read-only.
    edges : tuple of (numpy.ndarray or None)
        Per column, its bucket edges (numerical columns) or None; default: None for every column.
    source : str, default ""
        Where the users come from (a file or a synthetic spec), for display.

    Raises
    ------
    InvalidInput
        When ``counts`` does not match the labels' lengths, the product domain is refused by
        :func:`check_product_domain`, or the counts are negative or hold no user.
    """

    columns: tuple[str, ...]
    labels: tuple[tuple[str, ...], ...]
    counts: np.ndarray
    edges: tuple[np.ndarray | None, ...] = ()
    source: str = ""

    def __post_init__(self) -> None:
        counts = np.asarray(self.counts)
        if counts.ndim != len(self.columns) or counts.shape != tuple(len(lab) for lab in self.labels):
            raise InvalidInput(f"counts of shape {counts.shape} do not match the columns' domains")
        check_product_domain(counts.shape)
        if counts.size and (counts.min() < 0 or counts.sum() < 1):
            raise InvalidInput("a joint population needs non-negative counts and at least one user")
        object.__setattr__(self, "counts", frozen_array(counts, np.int64))
        object.__setattr__(self, "edges", tuple(self.edges) or (None,) * len(self.columns))

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(int(d) for d in self.counts.shape)

    @property
    def n(self) -> int:
        return int(self.counts.sum())

    def frequencies(self) -> np.ndarray:
        """The users' joint distribution (sums to one)."""
        return self.counts / float(self.n)

    def with_users(self, n: int, rng: np.random.Generator) -> JointPopulation:
        """``n`` users drawn i.i.d. from this population's joint distribution (itself when n is its size)."""
        flat = draw_population(self.counts.ravel(), n, rng, rows=self.n)
        return JointPopulation(self.columns, self.labels, flat.reshape(self.shape), self.edges, self.source)


def _encode(series: pd.Series, name: str, buckets: int | None, value_range: tuple[float, float] | None
            ) -> EncodedColumn:
    if buckets is not None:
        return bucketize(series, buckets, value_range, "clip", name=name)
    if value_range is not None:
        raise InvalidInput(f"column {name!r}: a range needs buckets (give {name}=B in the buckets)")
    if pd.api.types.is_float_dtype(series):
        x = series.dropna().to_numpy(dtype=np.float64)
        if not np.all(x == np.floor(x)) and np.unique(x).size > MAX_NUMERIC_CATEGORIES:
            raise InvalidInput(f"column {name!r} is numerical ({np.unique(x).size:,} distinct values): give it "
                               f"buckets ({name}=B) to cut it into B equal-width bins")
    return encode_categorical(series, name=name)


def joint_from_table(df: pd.DataFrame, columns: Sequence[str], *, buckets: Mapping[str, int] | None = None,
                     ranges: Mapping[str, tuple[float, float]] | None = None, source: str = "") -> JointPopulation:
    """The joint population of ``columns`` of a table: one user per row with none of the columns missing.

    Categorical columns (text, integers, or numbers with at most :data:`MAX_NUMERIC_CATEGORIES` distinct values)
    keep their distinct values; a column named in ``buckets`` is cut into that many equal-width bins over its
    ``ranges`` entry (default its own min..max; values outside are clipped).

    Parameters
    ----------
    df : pandas.DataFrame
        The table.
    columns : sequence of str
        2 or 3 different column names of ``df``.
    buckets : mapping of str to int, optional
        Per numerical column, its number of equal-width bins.
    ranges : mapping of str to tuple of (float, float), optional
        Per bucketized column, the (low, high) range of its bins.
    source : str, default ""
        Where the table comes from, kept on the population.

    Returns
    -------
    JointPopulation
        Users per combination of the columns' codes.

    Raises
    ------
    InvalidInput
        For fewer than 2 or more than 3 columns, a repeated or unknown column, buckets or a range for a column
        not listed (or a range without buckets), no row holding every column, a numerical column with many
        distinct values and no buckets, or a product domain above :data:`MAX_PRODUCT_CELLS`.
    """
    columns = [str(c) for c in columns]
    if not 2 <= len(columns) <= MAX_COLUMNS:
        raise InvalidInput(f"a joint distribution needs 2 or {MAX_COLUMNS} columns, got {len(columns)}")
    if len(set(columns)) != len(columns):
        raise InvalidInput(f"the columns must be different, got {', '.join(columns)}")
    buckets, ranges = dict(buckets or {}), dict(ranges or {})
    for name in (*buckets, *ranges):
        if name not in columns:
            raise InvalidInput(f"buckets/range given for {name!r}, not one of the columns {', '.join(columns)}")
    series = [get_column(df, c) for c in columns]
    frame = pd.concat([s.reset_index(drop=True) for s in series], axis=1, keys=range(len(columns))).dropna()
    if frame.empty:
        raise InvalidInput(f"no row holds all of the columns {', '.join(columns)}")
    encoded = [_encode(frame[i], columns[i], buckets.get(columns[i]), ranges.get(columns[i]))
               for i in range(len(columns))]
    shape = tuple(e.d for e in encoded)
    check_product_domain(shape)
    flat = np.ravel_multi_index(tuple(e.values for e in encoded), shape)
    counts = np.bincount(flat, minlength=math.prod(shape)).reshape(shape)
    return JointPopulation(tuple(columns), tuple(tuple(e.labels) for e in encoded), counts,
                           tuple(e.edges for e in encoded), source)


def parse_joint_spec(spec: str) -> tuple[str, dict[str, float]]:
    """``name:key=value,...`` of :data:`JOINT_SPECS` → (name, parameters with defaults).

    Parameters
    ----------
    spec : str
        E.g. ``"correlated:d1=10,d2=10,rho=0.8"``; keys d1, d2, d3, rho (not for ``independent``) and s.

    Returns
    -------
    tuple of (str, dict of str to float)
        The lower-cased spec name, and its parameters: d1 = d2 = 10, rho = 0.8 (``correlated``) or 0, s = 1.1
        unless given; d3 only when given.

    Raises
    ------
    InvalidInput
        For an unknown name, an item that is not ``key=number`` with a known key, a domain size that is not a
        whole number ≥ 2, rho outside [0, 1], or s not a finite number ≥ 0.
    """
    name, _, args = str(spec).strip().partition(":")
    name = name.strip().lower()
    if name not in JOINT_SPECS:
        raise InvalidInput(f"unknown joint synthetic spec {name!r}; choose one of: {', '.join(JOINT_SPECS)}")
    params: dict[str, float] = {"d1": 10, "d2": 10, "rho": 0.8 if name == "correlated" else 0.0, "s": 1.1}
    for item in filter(None, (a.strip() for a in args.split(","))):
        key, eq, value = item.partition("=")
        key = key.strip().lower()
        if not eq or key not in _SPEC_KEYS or (name == "independent" and key == "rho"):
            allowed = [k for k in _SPEC_KEYS if not (name == "independent" and k == "rho")]
            raise InvalidInput(f"{name}: expected key=value with keys {', '.join(allowed)}, got {item!r}")
        try:
            params[key] = float(value)
        except ValueError:
            raise InvalidInput(f"{name}: {key} must be a number, got {value.strip()!r}") from None
    for key in ("d1", "d2", "d3"):
        if key in params and not (params[key] >= 2 and float(params[key]).is_integer()):
            raise InvalidInput(f"{name}: {key} must be a whole number ≥ 2, got {params[key]:g}")
    if not 0.0 <= params["rho"] <= 1.0:
        raise InvalidInput(f"{name}: rho must lie in [0, 1], got {params['rho']:g}")
    if not (math.isfinite(params["s"]) and params["s"] >= 0):
        raise InvalidInput(f"{name}: s must be a finite number ≥ 0, got {params['s']:g}")
    return name, params


def _copy_kernel(d_from: int, d_to: int, rho: float) -> np.ndarray:
    """K(a, b) = ρ·[b = ⌊a·d_to/d_from⌋] + (1 − ρ)/d_to (rows sum to one)."""
    kernel = np.full((d_from, d_to), (1.0 - rho) / d_to)
    kernel[np.arange(d_from), (np.arange(d_from) * d_to) // d_from] += rho
    return kernel


def spec_distribution(params: Mapping[str, float]) -> np.ndarray:
    """The exact joint distribution of a :func:`parse_joint_spec` spec (a Markov chain of copy kernels).

    Parameters
    ----------
    params : mapping of str to float
        d1, d2[, d3], rho and s, as returned by :func:`parse_joint_spec`.

    Returns
    -------
    numpy.ndarray
        P(c₁, c₂[, c₃]) = Zipf_s(c₁)·K₁₂(c₁, c₂)[·K₂₃(c₂, c₃)], of shape (d₁, d₂[, d₃]), summing to one
        (the module docstring defines the copy kernel K).

    Raises
    ------
    InvalidInput
        When the product domain exceeds :data:`MAX_PRODUCT_CELLS`.
    """
    sizes = [int(params[k]) for k in ("d1", "d2", "d3") if k in params]
    check_product_domain(sizes)
    first = 1.0 / np.arange(1, sizes[0] + 1) ** params["s"]
    joint = first / first.sum()
    for j in range(1, len(sizes)):
        kernel = _copy_kernel(sizes[j - 1], sizes[j], params["rho"])
        joint = joint[..., None] * kernel.reshape((1,) * (j - 1) + kernel.shape)
    return joint


def joint_synthetic(spec: str, n: int, rng: np.random.Generator) -> tuple[JointPopulation, np.ndarray]:
    """``n`` users drawn from a synthetic spec, and the spec's exact joint distribution.

    Parameters
    ----------
    spec : str
        A spec of :data:`JOINT_SPECS` (:func:`parse_joint_spec`).
    n : int
        The number of users, a positive integer.
    rng : numpy.random.Generator
        The generator of the one multinomial draw.

    Returns
    -------
    tuple of (JointPopulation, numpy.ndarray)
        The users (columns ``x1``, ``x2``[, ``x3``], labels the codes, ``source`` the spec) and the exact joint
        distribution (:func:`spec_distribution`).

    Raises
    ------
    InvalidInput
        For an invalid spec, a product domain that is too large, or an n that is not a positive integer.
    """
    _, params = parse_joint_spec(spec)
    truth = spec_distribution(params)
    counts = draw_population(truth.ravel(), n, rng).reshape(truth.shape)
    names = tuple(f"x{j + 1}" for j in range(truth.ndim))
    labels = tuple(tuple(str(v) for v in range(d)) for d in truth.shape)
    return JointPopulation(names, labels, counts, (), str(spec)), truth
