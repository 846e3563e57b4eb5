"""Turning a table column into integer codes over a finite domain, and drawing users from it.

LDP frequency oracles work on values ``0 .. d-1``. :class:`EncodedColumn` holds those codes together
with a human-readable label per code, so estimates can be shown in the units of the data:

* :func:`encode_categorical` — one code per distinct value (or per entry of a given domain);
* :func:`encode_integer` — the column already holds integers in ``[0, D)``;
* :func:`bucketize` — a numerical column cut into ``d`` equal-width bins with real-unit edges.

Missing values (NaN, None, empty or blank strings) are dropped and counted; nothing is imputed.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ldp.core.errors import InvalidInput, LDPError
from ldp.core.params import check_positive_int
from ldp.core.streams import rng_for

__all__ = [
    "COLUMN_KINDS",
    "POPULATION_STREAM",
    "EncodedColumn",
    "bin_labels",
    "bucketize",
    "domain_from_file",
    "draw_population",
    "population_rng",
    "encode_categorical",
    "encode_integer",
    "sample_counts",
    "sample_users",
]

#: What a column holds once encoded: categories, or buckets of a numerical range.
COLUMN_KINDS = ("categorical", "numerical")
OUT_OF_RANGE = ("reject", "clip")


@dataclass(frozen=True, eq=False)
class EncodedColumn:
    """A column encoded as integer codes in ``[0, d)`` with one label per code.

    ``edges`` (numerical columns only) are the ``d + 1`` bin edges in the data's own units: code
    ``k`` stands for ``[edges[k], edges[k+1])`` (the last bin also contains its right edge).
    ``dropped`` counts rows removed as missing and ``clipped`` values moved into the range.

    Attributes
    ----------
    values : numpy.ndarray
        The codes (n,), int64 in ``[0, d)``, read-only.
    labels : list of str
        One label per code; ``d = len(labels)`` is at least 2.
    kind : {"categorical", "numerical"}, default "categorical"
        What the codes stand for (:data:`COLUMN_KINDS`).
    edges : numpy.ndarray, optional
        Numerical columns only: the (d + 1,) finite, strictly increasing bin edges, read-only.
    name : str, default "value"
        The column's name.
    dropped : int, default 0
        Rows removed as missing.
    clipped : int, default 0
        Values moved into the range (``bucketize(..., out_of_range="clip")``).

    Raises
    ------
    InvalidInput
        When the codes are not a 1-D integer array within ``[0, d)``, d < 2, ``kind`` is unknown, edges are given
        for a categorical column or are not d + 1 finite increasing numbers, or a count is not a non-negative
        integer.
    """

    values: np.ndarray
    labels: list[str]
    kind: str = "categorical"
    edges: np.ndarray | None = None
    name: str = "value"
    dropped: int = 0
    clipped: int = 0

    def __post_init__(self) -> None:
        values = np.asarray(self.values)
        if values.ndim != 1:
            raise InvalidInput(f"values must be one-dimensional, got shape {values.shape}")
        if values.size and not np.issubdtype(values.dtype, np.integer):
            raise InvalidInput(f"values must be integer codes, got dtype {values.dtype}")
        values = values.astype(np.int64, copy=False).view()
        values.flags.writeable = False
        labels = [str(label) for label in self.labels]
        d = len(labels)
        if d < 2:
            raise InvalidInput(f"domain size must be at least 2, got {d}")
        if values.size and (values.min() < 0 or values.max() >= d):
            raise InvalidInput(f"codes must lie in [0, {d}), got values in [{values.min()}, {values.max()}]")
        if self.kind not in COLUMN_KINDS:
            raise InvalidInput(f"kind must be one of {', '.join(COLUMN_KINDS)}, got {self.kind!r}")
        edges = self.edges
        if edges is not None:
            if self.kind != "numerical":
                raise InvalidInput("only numerical columns have bin edges")
            edges = np.asarray(edges, dtype=np.float64).view()
            if edges.shape != (d + 1,):
                raise InvalidInput(f"a numerical column with d={d} needs {d + 1} edges, "
                                 f"got shape {edges.shape}")
            if not (np.all(np.isfinite(edges)) and np.all(np.diff(edges) > 0)):
                raise InvalidInput("bin edges must be finite and strictly increasing")
            edges.flags.writeable = False
        for field in ("dropped", "clipped"):
            count = getattr(self, field)
            if isinstance(count, bool) or not isinstance(count, int | np.integer) or count < 0:
                raise InvalidInput(f"{field} must be a non-negative integer, got {count!r}")
            object.__setattr__(self, field, int(count))
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "labels", labels)
        object.__setattr__(self, "edges", edges)
        object.__setattr__(self, "name", str(self.name))

    @property
    def d(self) -> int:
        """Domain size: the number of codes (labels)."""
        return len(self.labels)

    @property
    def n(self) -> int:
        """Number of users (encoded rows)."""
        return int(self.values.size)

    @property
    def centers(self) -> np.ndarray | None:
        """Bin midpoints in real units (numerical columns with edges), else ``None``."""
        if self.edges is None:
            return None
        return (self.edges[:-1] + self.edges[1:]) / 2.0

    def true_counts(self) -> np.ndarray:
        """Number of users holding each code (int64, length ``d``)."""
        return np.bincount(self.values, minlength=self.d).astype(np.int64, copy=False)

    def true_frequencies(self) -> np.ndarray:
        """Share of users holding each code (float64, sums to 1)."""
        if self.n == 0:
            raise InvalidInput(f"column {self.name!r} has no values")
        return self.true_counts() / float(self.n)

    def __repr__(self) -> str:
        return (f"EncodedColumn(name={self.name!r}, kind={self.kind!r}, d={self.d}, n={self.n}, "
                f"dropped={self.dropped}, clipped={self.clipped})")


# --------------------------------------------------------------------------------------------- helpers
def _as_series(data: Any) -> pd.Series:
    if isinstance(data, pd.Series):
        return data.reset_index(drop=True)
    if isinstance(data, pd.DataFrame):
        raise InvalidInput("expected a single column, got a table")
    return pd.Series(np.asarray(data) if not isinstance(data, list | tuple) else list(data))


def _column_name(series: pd.Series, name: str | None) -> str:
    if name is not None:
        return str(name)
    return str(series.name) if series.name is not None else "value"


def _is_text(series: pd.Series) -> bool:
    return series.dtype == object or pd.api.types.is_string_dtype(series.dtype)


def _missing_mask(series: pd.Series) -> np.ndarray:
    """NaN / None / NA, plus empty or all-blank strings."""
    mask = series.isna().to_numpy(dtype=bool)
    if _is_text(series):
        blank = series.astype("string").str.strip().eq("").fillna(False).to_numpy(dtype=bool)
        mask = mask | blank
    return mask


def _decategorize(series: pd.Series) -> pd.Series:
    """A categorical series as a plain series of its categories' values (object columns of numbers
    become numeric)."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        if series.isna().any():
            return series.astype(object).infer_objects()
        return series.astype(series.cat.categories.dtype)
    if series.dtype == object:
        return series.infer_objects()
    return series


def _check_int(value: Any, what: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        if isinstance(value, float | np.floating) and float(value).is_integer():
            value = int(value)
        else:
            raise InvalidInput(f"{what} must be an integer, got {value!r}")
    value = int(value)
    if value < low:
        raise InvalidInput(f"{what} must be at least {low}, got {value}")
    return value


def _number_label(value: Any) -> str:
    """A compact label for a number: integers without ``.0``, other floats as their shortest repr."""
    if isinstance(value, bool | np.bool_):
        return str(bool(value))
    if isinstance(value, int | np.integer):
        return str(int(value))
    x = float(value)
    if x.is_integer() and abs(x) < 2.0**53:
        return str(int(x))
    return repr(x)


def _label(value: Any) -> str:
    if isinstance(value, bool | np.bool_ | int | np.integer | float | np.floating):
        return _number_label(value)
    return str(value).strip()


def _show(value: Any) -> str:
    text = _label(value)
    return repr(text if len(text) <= 40 else text[:37] + "...")


def _sorted_labels(kept: pd.Series) -> tuple[list[str], np.ndarray]:
    """Distinct labels (numbers sorted numerically, text lexicographically) and each row's code."""
    if pd.api.types.is_bool_dtype(kept.dtype):
        arr = kept.to_numpy(dtype=bool)
    elif pd.api.types.is_integer_dtype(kept.dtype):
        arr = kept.to_numpy(dtype=np.int64)
    elif pd.api.types.is_numeric_dtype(kept.dtype):
        arr = kept.to_numpy(dtype=np.float64)
    else:
        # Text (or mixed objects): compare the trimmed strings, so "1" and 1 or "a" and " a" coincide.
        # Factorize the raw text first, then trim and merge the (few) distinct values.
        codes, uniques = pd.factorize(kept.astype("string"), sort=False)
        trimmed = np.array([str(u).strip() for u in uniques], dtype=object)
        merged_codes, merged = pd.factorize(trimmed, sort=False)
        names = np.asarray(merged, dtype=object)
        order = np.argsort(names.astype(str), kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        return [str(u) for u in names[order]], rank[merged_codes][codes].astype(np.int64)
    # Distinct numbers always get distinct labels (-0.0 and 0.0 are one value for np.unique).
    uniques, codes = np.unique(arr, return_inverse=True)
    return [_number_label(u) for u in uniques], np.asarray(codes, dtype=np.int64).ravel()


# --------------------------------------------------------------------------------------------- encoders
def encode_categorical(series: Any, domain: Sequence[Any] | None = None,
                       name: str | None = None) -> EncodedColumn:
    """One code per distinct value (numbers sorted numerically, text lexicographically), or per
    entry of ``domain`` in its given order. Missing values are dropped and counted.

    Parameters
    ----------
    series : pandas.Series or array_like
        One column (not a table). An ordered pandas categorical declares its own domain and order.
    domain : sequence, optional
        The values of the domain in their order (compared by their trimmed text labels); every value of the
        column must be one of them.
    name : str, optional
        The column's name (default: the series' name, else ``"value"``).

    Returns
    -------
    EncodedColumn
        A categorical column with one code per distinct value or domain entry.

    Raises
    ------
    InvalidInput
        For a table instead of a column, a domain of fewer than 2 values or listing one twice, a column with no
        non-missing value or (without a domain) a single distinct value, or a value outside the given domain.
    """
    series = _as_series(series)
    name = _column_name(series, name)
    if domain is None and isinstance(series.dtype, pd.CategoricalDtype) and series.dtype.ordered:
        domain = list(series.cat.categories)  # an ordered categorical declares its domain and order
    series = _decategorize(series)
    dom_labels: list[str] | None = None
    if domain is not None:
        dom_labels = [_label(v) for v in domain]
        if len(dom_labels) < 2:
            raise InvalidInput(f"domain size must be at least 2, got {len(dom_labels)}")
        seen: set[str] = set()
        for lab in dom_labels:
            if lab in seen:
                raise InvalidInput(f"the domain lists {lab!r} twice")
            seen.add(lab)
    missing = _missing_mask(series)
    kept = series[~missing]
    if kept.empty:
        raise InvalidInput(f"column {name!r} has no non-missing values")
    labels, codes = _sorted_labels(kept)
    if dom_labels is None:
        if len(labels) < 2:
            raise InvalidInput(f"domain size must be at least 2: column {name!r} has a single distinct value "
                             f"{labels[0]!r}")
        return EncodedColumn(codes, labels, "categorical", None, name, int(missing.sum()), 0)
    index = {lab: i for i, lab in enumerate(dom_labels)}
    mapping = np.array([index.get(lab, -1) for lab in labels], dtype=np.int64)
    values = mapping[codes]
    bad = values < 0
    if bad.any():
        example = labels[codes[int(np.argmax(bad))]]
        n_bad, n_distinct = int(bad.sum()), int((mapping < 0).sum())
        raise InvalidInput(f"{n_bad} value(s) of column {name!r} ({n_distinct} distinct) are not in the given "
                         f"domain, e.g. {example!r}")
    return EncodedColumn(values, dom_labels, "categorical", None, name, int(missing.sum()), 0)


def _first_bad(kept: pd.Series, bad: np.ndarray, name: str, what: str) -> LDPError:
    first = kept.iloc[int(np.argmax(bad))]
    return InvalidInput(f"column {name!r} {what}: {_show(first)} ({int(bad.sum())} such value(s))")


def encode_integer(series: Any, domain_size: int, name: str | None = None) -> EncodedColumn:
    """A column already holding integer codes in ``[0, domain_size)``; labels are ``"0" .. "D-1"``.
    Missing values are dropped and counted; anything else that is not such an integer is an error.

    Parameters
    ----------
    series : pandas.Series or array_like
        One column of integers (numbers, booleans or integer text).
    domain_size : int
        D ≥ 2 (an integral float is accepted).
    name : str, optional
        The column's name (default: the series' name, else ``"value"``).

    Returns
    -------
    EncodedColumn
        A categorical column whose codes are the values themselves.

    Raises
    ------
    InvalidInput
        For a domain size that is not an integer ≥ 2, a column with no non-missing value, or a value that is
        not an integer in ``[0, D)``.
    """
    series = _as_series(series)
    name = _column_name(series, name)
    d = _check_int(domain_size, "domain size", 2)
    series = _decategorize(series)
    missing = _missing_mask(series)
    kept = series[~missing].reset_index(drop=True)
    if kept.empty:
        raise InvalidInput(f"column {name!r} has no non-missing values")
    if pd.api.types.is_bool_dtype(kept.dtype):
        numbers = kept.to_numpy(dtype=np.int64)
    elif pd.api.types.is_integer_dtype(kept.dtype):
        numbers = kept.to_numpy(dtype=getattr(kept.dtype, "numpy_dtype", kept.dtype))  # Int64 -> int64
    else:
        if pd.api.types.is_numeric_dtype(kept.dtype):
            numbers = kept.to_numpy(dtype=np.float64)
        elif _is_text(kept):
            numbers = pd.to_numeric(kept.astype("string").str.strip(), errors="coerce").to_numpy(
                dtype=np.float64, na_value=np.nan)
        else:
            raise InvalidInput(f"column {name!r} does not hold integers (dtype {kept.dtype})")
        with np.errstate(invalid="ignore"):
            bad = ~(np.isfinite(numbers) & (numbers == np.floor(numbers)))
        if bad.any():
            raise _first_bad(kept, bad, name, "holds a value that is not an integer")
    out = (numbers < 0) | (numbers >= d)
    if out.any():
        raise _first_bad(kept, out, name, f"holds a value outside [0, {d})")
    values = numbers.astype(np.int64)
    labels = [str(k) for k in range(d)]
    return EncodedColumn(values, labels, "categorical", None, name, int(missing.sum()), 0)


def numeric_values(series: pd.Series, name: str) -> tuple[np.ndarray, int]:
    """The non-missing values of a numerical column as float64, and how many were missing."""
    series = _decategorize(series)
    missing = _missing_mask(series)
    kept = series[~missing].reset_index(drop=True)
    if pd.api.types.is_bool_dtype(kept.dtype) or pd.api.types.is_numeric_dtype(kept.dtype):
        return kept.to_numpy(dtype=np.float64, na_value=np.nan), int(missing.sum())
    if _is_text(kept):
        numbers = pd.to_numeric(kept.astype("string").str.strip(), errors="coerce").to_numpy(
            dtype=np.float64, na_value=np.nan)
        bad = np.isnan(numbers)
        if bad.any():
            raise InvalidInput(f"column {name!r} is not numeric (e.g. {_show(kept.iloc[int(np.argmax(bad))])})")
        return numbers, int(missing.sum())
    raise InvalidInput(f"column {name!r} is not numeric (dtype {series.dtype})")


def _fmt(x: float, precision: int) -> str:
    return format(float(x), f".{precision}g")


def bin_labels(edges: np.ndarray) -> list[str]:
    """``"[lo, hi)"`` labels for consecutive bins (the last one closed), with 4 significant digits
    or more when needed to tell the edges apart.

    Parameters
    ----------
    edges : numpy.ndarray
        The (d + 1,) bin edges, increasing.

    Returns
    -------
    list of str
        d labels such as ``"[0, 2.5)"``, the last ending in ``"]"``.
    """
    edges = np.asarray(edges, dtype=np.float64)
    for precision in range(4, 18):
        text = [_fmt(e, precision) for e in edges]
        if len(set(text)) == len(text):
            break
    labels = [f"[{a}, {b})" for a, b in zip(text[:-1], text[1:], strict=True)]
    labels[-1] = labels[-1][:-1] + "]"
    return labels


def bucketize(series: Any, buckets: int, value_range: tuple[float, float] | None = None,
              out_of_range: str = "reject", name: str | None = None) -> EncodedColumn:
    """Cut a numerical column into ``buckets`` equal-width bins over ``value_range`` (default: the
    column's [min, max]); the right end of the range belongs to the last bin. Values outside an
    explicit range are rejected (``out_of_range="reject"``) or moved to the nearest end (``"clip"``).

    More buckets than the column has distinct values (in the range) is allowed but warned: a
    :class:`UserWarning` is issued (``warnings`` module; callers surface it, e.g. the CLI as
    ``warning: …`` on stderr), since at least ``buckets − distinct`` buckets must stay empty.

    Parameters
    ----------
    series : pandas.Series or array_like
        One numerical column (numbers or numeric text); missing values are dropped and counted.
    buckets : int
        The number of bins d ≥ 2.
    value_range : tuple of (float, float), optional
        Finite (low, high) with low < high; default: the column's finite [min, max].
    out_of_range : {"reject", "clip"}, default "reject"
        What to do with values outside an explicit range.
    name : str, optional
        The column's name (default: the series' name, else ``"value"``).

    Returns
    -------
    EncodedColumn
        A numerical column with d codes, its ``edges`` and ``"[lo, hi)"`` labels (:func:`bin_labels`).

    Raises
    ------
    InvalidInput
        For ``buckets`` not an integer ≥ 2, an unknown ``out_of_range``, a non-numeric column, one with no
        (finite) values or constant without a range, a range that is not two finite numbers low < high or
        cannot be cut into d distinct bins, or (``"reject"``) values outside the range.

    Warns
    -----
    UserWarning
        When more buckets are asked for than the column has distinct values in the range.
    """
    import warnings

    series = _as_series(series)
    name = _column_name(series, name)
    d = _check_int(buckets, "buckets", 2)
    if out_of_range not in OUT_OF_RANGE:
        raise InvalidInput(f"out_of_range must be one of {', '.join(OUT_OF_RANGE)}, got {out_of_range!r}")
    x, dropped = numeric_values(series, name)
    if x.size == 0:
        raise InvalidInput(f"column {name!r} has no non-missing values")
    if value_range is None:
        finite = x[np.isfinite(x)]
        if finite.size == 0:
            raise InvalidInput(f"column {name!r} has no finite values")
        lo, hi = float(finite.min()), float(finite.max())
        if lo == hi:
            raise InvalidInput(f"column {name!r} is constant ({_number_label(lo)}); "
                             "give an explicit value range")
    else:
        try:
            lo, hi = (float(v) for v in value_range)
        except (TypeError, ValueError):
            raise InvalidInput(f"value range must be two numbers (low, high), got {value_range!r}") from None
        if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
            raise InvalidInput(f"value range must be finite with low < high, got [{lo}, {hi}]")
    with np.errstate(over="ignore", invalid="ignore"):
        edges = np.linspace(lo, hi, d + 1)
    if not (np.all(np.isfinite(edges)) and np.all(np.diff(edges) > 0)):
        raise InvalidInput(f"cannot cut the range [{lo:.6g}, {hi:.6g}] into {d} distinct bins")
    outside = (x < lo) | (x > hi)
    clipped = int(outside.sum())
    if clipped:
        if out_of_range == "reject":
            raise InvalidInput(f"{clipped} of {x.size} values of column {name!r} are outside the range "
                             f"[{_fmt(lo, 6)}, {_fmt(hi, 6)}]; widen the range or clip them")
        x = np.clip(x, lo, hi)
    distinct = int(np.unique(x).size)
    if d > distinct:
        warnings.warn(f"column {name!r} has {distinct} distinct value{'s' if distinct != 1 else ''} in the range "
                      f"but {d} buckets were asked for: at least {d - distinct} buckets stay empty (use at most "
                      f"{distinct} buckets for no forced empty bucket)", UserWarning, stacklevel=2)
    codes = np.searchsorted(edges, x, side="right") - 1
    np.clip(codes, 0, d - 1, out=codes)
    return EncodedColumn(codes.astype(np.int64, copy=False), bin_labels(edges), "numerical", edges, name,
                         dropped, clipped)


def domain_from_file(path: str | os.PathLike[str]) -> list[str]:
    """Domain labels from a UTF-8 text file, one per line (blank lines ignored, spaces trimmed).

    Parameters
    ----------
    path : str or os.PathLike
        The text file (a UTF-8 byte-order mark is accepted).

    Returns
    -------
    list of str
        The labels in the file's order, at least two, each once.

    Raises
    ------
    InvalidInput
        When the file is missing, unreadable or not UTF-8, lists a label twice, or lists fewer than two.
    """
    p = Path(path)
    if not p.is_file():
        raise InvalidInput(f"domain file '{p}' not found")
    try:
        text = p.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InvalidInput(f"domain file '{p}' is not UTF-8 text") from None
    except OSError as exc:
        raise InvalidInput(f"cannot read domain file '{p}': {exc.strerror or exc}") from None
    labels = [line.strip() for line in text.splitlines() if line.strip()]
    seen: set[str] = set()
    for label in labels:
        if label in seen:
            raise InvalidInput(f"domain file '{p}' lists {label!r} twice")
        seen.add(label)
    if len(labels) < 2:
        raise InvalidInput(f"domain size must be at least 2: domain file '{p}' lists {len(labels)} value(s)")
    return labels


# --------------------------------------------------------------------------------------------- sampling
def _check_n(n: Any) -> int:
    return _check_int(n, "number of users n", 0)


def _weights(frequencies: Any) -> np.ndarray:
    if isinstance(frequencies, EncodedColumn):
        frequencies = frequencies.true_counts()
    p = np.asarray(frequencies, dtype=np.float64)
    if p.ndim != 1 or p.size == 0:
        raise InvalidInput(f"frequencies must be a non-empty 1-D array, got shape {p.shape}")
    if not np.all(np.isfinite(p)) or np.any(p < 0):
        raise InvalidInput("frequencies must be finite and non-negative")
    total = p.sum()
    if total <= 0:
        raise InvalidInput("frequencies must not all be zero")
    return p / total


def _expand(counts: np.ndarray) -> np.ndarray:
    """``np.repeat(arange(d), counts)`` (codes grouped in order), computed as a cumulative sum of
    boundary marks: O(n + d) and fast even when a few codes hold most users."""
    counts = np.asarray(counts, dtype=np.int64)
    n = int(counts.sum())
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    ends = np.cumsum(counts)[:-1]
    marks = np.bincount(ends, minlength=n + 1)[:n]
    return np.cumsum(marks, dtype=np.int64)


def sample_counts(frequencies: Any, n: int, rng: np.random.Generator) -> np.ndarray:
    """Multinomial(n, frequencies) counts (int64); ``frequencies`` is normalised, so counts work too.
    Costs O(d) whatever ``n`` (fine for n = 10^9).

    Parameters
    ----------
    frequencies : array_like or EncodedColumn
        The (d,) weights (frequencies or counts: finite, non-negative, not all zero), or a column (its counts).
    n : int
        The number of users, ≥ 0.
    rng : numpy.random.Generator
        The generator to draw from.

    Returns
    -------
    numpy.ndarray
        Users per value (d,), int64, summing to n.

    Raises
    ------
    InvalidInput
        For weights that are not a non-empty 1-D finite non-negative array with a positive sum, or a negative or
        non-integer n.
    """
    n = _check_n(n)
    return rng.multinomial(n, _weights(frequencies)).astype(np.int64, copy=False)


#: The one named stream every population is drawn from (pages, CLI, sweeps, studies): the same seed gives the same
#: users everywhere, whatever else a run draws (the collections draw from their own streams).
POPULATION_STREAM = ("population",)


def population_rng(seed: int | None) -> np.random.Generator:
    """The generator a population of the root ``seed`` is drawn from (:data:`POPULATION_STREAM`).

    Parameters
    ----------
    seed : int or None
        The root seed (None: fresh entropy).

    Returns
    -------
    numpy.random.Generator
        ``rng_for(seed, "population")``.
    """
    return rng_for(seed, *POPULATION_STREAM)


def draw_population(weights: Any, n: int, seed: int | np.random.Generator | None, *,
                    rows: int | None = None) -> np.ndarray:
    """Users per value for a population of ``n`` users following ``weights`` (counts or frequencies).

    The one function that draws populations. When the weights are a table's own counts and ``n`` is its number of
    rows (integral weights summing to ``n``, or ``rows == n``), the counts are returned as they are; otherwise ``n``
    users are drawn i.i.d. — one Multinomial(n, weights/Σweights) — from :func:`population_rng` of ``seed`` (or
    from the generator given instead of a seed). A configuration downloaded from a page therefore re-runs on the
    command line to the same users.

    Parameters
    ----------
    weights : array_like
        The (d,) counts or frequencies, d ≥ 2: finite, non-negative, not all zero.
    n : int
        The number of users, a positive integer.
    seed : int, numpy.random.Generator or None
        The root seed of :func:`population_rng`, or a generator to draw from directly.
    rows : int, optional
        The table's own number of rows: ``n == rows`` returns the weights as they are (as integers).

    Returns
    -------
    numpy.ndarray
        Users per value (d,), int64, summing to n.

    Raises
    ------
    InvalidInput
        For fewer than two values, invalid weights, or an n that is not a positive integer.
    """
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 1 or w.size < 2:
        raise InvalidInput("the data needs at least two values")
    p = _weights(w)
    n = check_positive_int(n, "the number of users")
    if rows == n or (rows is None and np.all(w == np.floor(w)) and float(w.sum()) == n):
        return w.astype(np.int64)
    rng = seed if isinstance(seed, np.random.Generator) else population_rng(seed)
    return rng.multinomial(n, p).astype(np.int64, copy=False)


def sample_users(encoded_or_counts: EncodedColumn | np.ndarray | Sequence[float], n: int,
                 rng: np.random.Generator, *, shuffle: bool = False) -> np.ndarray:
    """Codes of ``n`` users (int64).

    When ``n`` equals the number of rows, the data's own values are returned (a copy); otherwise ``n``
    users are drawn i.i.d. from the empirical distribution via one multinomial draw, returned grouped
    by code (sorted). Users are exchangeable for the mechanisms, so order rarely matters; pass
    ``shuffle=True`` for a random order (an extra O(n) permutation drawn from ``rng``).

    Parameters
    ----------
    encoded_or_counts : EncodedColumn or array_like
        A column (its rows are the users), or (d,) weights: integral counts summing to n are expanded as they are.
    n : int
        The number of users, ≥ 0.
    rng : numpy.random.Generator
        The generator of the multinomial draw and of the shuffle.
    shuffle : bool, default False
        Return the users in a random order instead of grouped by code.

    Returns
    -------
    numpy.ndarray
        The (n,) codes, int64.

    Raises
    ------
    InvalidInput
        For a negative or non-integer n, or invalid weights.
    """
    n = _check_n(n)
    if isinstance(encoded_or_counts, EncodedColumn):
        if n == encoded_or_counts.n:
            out = np.array(encoded_or_counts.values, dtype=np.int64)  # a writable copy
        else:
            out = _expand(sample_counts(encoded_or_counts, n, rng))
    else:
        weights = np.asarray(encoded_or_counts, dtype=np.float64)
        _weights(weights)  # validation only: 1-D, finite, non-negative, not all zero
        if np.all(weights == np.floor(weights)) and n == int(weights.sum()):
            out = _expand(weights.astype(np.int64))
        else:
            out = _expand(sample_counts(weights, n, rng))
    return rng.permutation(out) if shuffle else out
