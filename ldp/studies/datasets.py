"""The population a study works on, from any source: a bundled sample's column, a synthetic distribution, or a
column of the user's own table — as users per value, with what it takes to show those values (labels, real-unit
bin edges, unit, a description and notes on what the encoding did).

Everything a page needs to decide about a dataset is here too: the numerical columns' natural ranges, which
columns of an uploaded table hold values, whether a column looks numerical, the synthetic spec of a family at
a domain size, and the bucketization warnings (more bins than distinct values) as text.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ldp.core.errors import InvalidInput
from ldp.data import (
    SYNTHETIC,
    EncodedColumn,
    bucketize,
    encode_categorical,
    generate,
    get_column,
    list_samples,
    load_sample_column,
    true_distribution,
)

__all__ = ["DEFAULT_MIXTURE", "MAX_CATEGORIES", "OTHER", "SYNTHETIC_USERS", "TOP_CATEGORIES", "Dataset",
           "column_range", "data_range", "empty_columns", "guess_kind", "sample_column_info", "sample_dataset",
           "dataset_from_source", "synthetic_dataset", "synthetic_spec", "table_dataset", "top_categories",
           "usable_columns"]

MAX_CATEGORIES = 5000  # a categorical column with more distinct values keeps its top TOP_CATEGORIES + "(other)"
SYNTHETIC_USERS = 1_000_000  # a synthetic distribution is shown as this many users (its exact shares, rounded)
NUMERICAL_MIN_DISTINCT = 21  # a numeric column with more distinct values than this looks numerical


@dataclass(frozen=True)
class Dataset:
    """Users per value plus how to show the values.

    Attributes
    ----------
    counts : numpy.ndarray
        Users per value, shape (d,), integers.
    labels : list of str
        One label per value (d of them): the category, or a numerical bin's label.
    name : str
        The column's (or synthetic family's) identifier.
    kind : str, default "categorical"
        ``"categorical"`` or ``"numerical"``.
    edges : numpy.ndarray or None, default None
        A numerical column's real-unit bin edges, shape (d + 1,); None otherwise.
    unit : str, default ""
        The values' unit ("" when none).
    description : str, default ""
        What the data are, one line.
    notes : tuple of str, default ()
        What the encoding did (rows with a missing value left out, values clipped into the end bins …).
    warnings : tuple of str, default ()
        The bucketization's warnings (e.g. more bins than distinct values) or the note that rare categories were
        grouped as :data:`OTHER`.
    origin : str, default "sample"
        ``"sample"`` (bundled), ``"synthetic"`` or ``"table"`` (the user's own).
    synthetic : tuple of (str, float or None, str or None) or None, default None
        (family, Zipf exponent or None, mixture formula or None) of a synthetic distribution: what regenerates it
        over another domain size; None otherwise.
    title : str, default ""
        What the data is, as people read it (a report's title).
    source : dict of str to Any, default {}
        How to build it again with :func:`dataset_from_source` (``{"sample", "column", "bins", "range"}``,
        ``{"synthetic", "d", "s", "users", "formula"}`` or ``{"table", "column", "kind", "bins", "range"}``).
    """

    counts: np.ndarray
    labels: list[str]
    name: str
    kind: str = "categorical"  # or "numerical"
    edges: np.ndarray | None = None
    unit: str = ""
    description: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)
    warnings: tuple[str, ...] = field(default_factory=tuple)
    origin: str = "sample"  # "sample" (bundled), "synthetic" or "table" (the user's own)
    synthetic: tuple[str, float | None, str | None] | None = None  # (family, Zipf exponent, mixture formula)
    title: str = ""  # what the data is, as people read it (a report's title): the column's description and source
    #: How to build it again (:func:`dataset_from_source`): the sample and column, the synthetic family, or the
    #: user's table's column — what a downloaded configuration records so the command line re-runs it.
    source: dict[str, Any] = field(default_factory=dict)

    @property
    def readable_name(self) -> str:
        """The data as a title names it ("Destination airport FAA code (104 airports) · NYC flights 2013 —
        departures"), not a column's identifier ("dest")."""
        return self.title or self.name

    @property
    def d(self) -> int:
        return len(self.labels)

    @property
    def rows(self) -> int:
        return int(self.counts.sum())

    @property
    def frequencies(self) -> np.ndarray:
        return self.counts / self.counts.sum()

    @property
    def ordered(self) -> bool:
        """Whether the domain's order means something (neighbouring values are alike): numerical bins, a
        synthetic distribution over 0…d−1, or labels that are all numbers (months, hours, engine counts) —
        not alphabetical categories such as airport codes."""
        if self.kind == "numerical" or self.origin == "synthetic":
            return True
        try:
            [float(label) for label in self.labels]
        except (TypeError, ValueError):
            return False
        return True

    @property
    def numerical(self) -> bool:
        """A numerical column with real-unit bin edges."""
        return self.kind == "numerical" and self.edges is not None

    def axis_title(self) -> str:
        return f"{self.name} ({self.unit})" if self.unit else self.name


def _notes(enc: EncodedColumn) -> tuple[str, ...]:
    notes = []
    if enc.dropped:
        notes.append(f"{enc.dropped:,} rows with a missing value were left out.")
    if enc.clipped:
        notes.append(f"{enc.clipped:,} values outside the range were clipped into the end bins.")
    return tuple(notes)


def _bucketize(series: pd.Series, bins: int, value_range: tuple[float, float] | None,
               name: str) -> tuple[EncodedColumn, tuple[str, ...]]:
    """Equal-width bins over the range (values outside clipped in), with the warnings ``bucketize`` issued."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        enc = bucketize(series, bins, value_range=value_range, out_of_range="clip", name=name)
    return enc, tuple(str(w.message) for w in caught if issubclass(w.category, UserWarning))


# --------------------------------------------------------------------------- bundled samples
def sample_column_info(sample: str, column: str) -> dict:
    """The catalogue entry of a bundled sample's column (name, kind, unit, description, range when known).

    Parameters
    ----------
    sample : str
        A bundled sample's name (:func:`ldp.data.list_samples`).
    column : str
        One of its catalogued columns.

    Returns
    -------
    dict
        The catalogue's entry: ``name``, ``kind`` and, when known, ``unit``, ``description``, ``range``,
        ``stand_in``.

    Raises
    ------
    InvalidInput
        If the sample or the column is unknown (the message lists the choices).
    """
    info = next((s for s in list_samples() if s["name"] == sample), None)
    if info is None:
        raise InvalidInput(f"unknown sample {sample!r}; one of {', '.join(s['name'] for s in list_samples())}")
    col = next((c for c in info["columns"] if c["name"] == column), None)
    if col is None:
        raise InvalidInput(f"sample {sample!r} has no column {column!r}; one of "
                           f"{', '.join(c['name'] for c in info['columns'])}")
    return col


def column_range(sample: str, column: str) -> tuple[float, float]:
    """The natural range of a bundled numerical column: the catalogue's, else the data's min and max.

    Parameters
    ----------
    sample : str
        A bundled sample's name (:func:`ldp.data.list_samples`).
    column : str
        One of its numerical columns (without a catalogued range, the range is read from the column's values
        that parse as numbers).

    Returns
    -------
    tuple of (float, float)
        (low, high), in the column's unit.

    Raises
    ------
    InvalidInput
        If the sample or column is unknown, or (without a catalogued range) the column has no numerical value.
    """
    col = sample_column_info(sample, column)
    if "range" in col:
        return float(col["range"][0]), float(col["range"][1])
    values = pd.to_numeric(load_sample_column(sample, column), errors="coerce").dropna()
    if values.empty:
        raise InvalidInput(f"column {column!r} of {sample!r} has no numerical values")
    return float(values.min()), float(values.max())


def sample_dataset(sample: str, column: str, bins: int = 48,
                   value_range: tuple[float, float] | None = None) -> Dataset:
    """A bundled sample's column: categorical values as they are, a numerical column cut into ``bins``
    equal-width bins over ``value_range`` (default: its natural range; values outside are clipped in).

    Parameters
    ----------
    sample : str
        A bundled sample's name.
    column : str
        One of its columns.
    bins : int, default 48
        Equal-width bins of a numerical column (ignored for a categorical one).
    value_range : tuple of (float, float) or None, default None
        The range the bins cover; None uses :func:`column_range`.

    Returns
    -------
    Dataset
        With ``origin`` "sample" and ``source`` recording (sample, column, bins, range).

    Raises
    ------
    InvalidInput
        If the sample or column is unknown (the encoders raise too on a bad ``bins`` or range).
    """
    col = sample_column_info(sample, column)
    title = next(s["title"] for s in list_samples() if s["name"] == sample)
    series = load_sample_column(sample, column)
    found: tuple[str, ...] = ()
    if col["kind"] == "numerical":
        enc, found = _bucketize(series, bins, value_range or column_range(sample, column), column)
    else:
        enc = encode_categorical(series, name=column)
    return Dataset(counts=enc.true_counts(), labels=list(enc.labels), name=column, kind=enc.kind, edges=enc.edges,
                   unit=col.get("unit", ""), description=f"{title}: {col.get('description', '')}"
                   + (f" — a {col['stand_in']}" if col.get("stand_in") else ""),
                   notes=_notes(enc), warnings=found,
                   title=f"{col.get('description') or column} · {title}",
                   source={"sample": sample, "column": column, "bins": int(bins),
                           "range": None if value_range is None else [float(v) for v in value_range]})


# --------------------------------------------------------------------------- synthetic distributions
#: The mixture a page starts from (its formula field): a narrow peak on a flat background.
DEFAULT_MIXTURE = "0.3*gaussian(mu=0.3,sigma=0.05)+0.7*uniform"


def synthetic_spec(name: str, d: int, s: float | None = None, formula: str | None = None) -> str:
    """The spec of synthetic family ``name`` over ``d`` values (Zipf with exponent ``s``, a mixture with its
    ``formula`` such as :data:`DEFAULT_MIXTURE`, else the family's defaults).

    Parameters
    ----------
    name : str
        A synthetic family of :data:`ldp.data.SYNTHETIC` (e.g. ``"zipf"``, ``"mixture"``).
    d : int
        Domain size.
    s : float or None, default None
        Zipf's exponent (used for ``"zipf"`` only); None keeps the family's default.
    formula : str or None, default None
        A mixture's formula (required for ``"mixture"``, ignored otherwise).

    Returns
    -------
    str
        The spec :func:`ldp.data.true_distribution` reads, e.g. ``"zipf:d=64,s=1.1"`` or ``"mix:d=64,<formula>"``.

    Raises
    ------
    InvalidInput
        If the family is unknown or a mixture has no formula.
    """
    if name not in SYNTHETIC:
        raise InvalidInput(f"unknown synthetic distribution {name!r}; one of {', '.join(SYNTHETIC)}")
    if name == "mixture":
        text = (formula or "").strip()
        if not text:
            raise InvalidInput(f"a mixture needs a formula, such as {DEFAULT_MIXTURE}")
        return f"mix:d={int(d)},{text}"
    extra = f",s={s:g}" if name == "zipf" and s is not None else ""
    return f"{name}:d={int(d)}{extra}"


def synthetic_dataset(name: str, d: int, s: float | None = None, users: int = SYNTHETIC_USERS,
                      formula: str | None = None) -> Dataset:
    """A synthetic family's exact distribution over ``d`` values, shown as ``users`` users (rounded shares).

    Parameters
    ----------
    name : str
        A synthetic family of :data:`ldp.data.SYNTHETIC`.
    d : int
        Domain size.
    s : float or None, default None
        Zipf's exponent (``"zipf"`` only).
    users : int, default SYNTHETIC_USERS
        The total the shares are scaled to before rounding (so ``counts`` sums to about ``users``).
    formula : str or None, default None
        A mixture's formula.

    Returns
    -------
    Dataset
        With ``origin`` "synthetic", ``synthetic`` (family, exponent) and ``source`` recording the arguments.

    Raises
    ------
    InvalidInput
        As :func:`synthetic_spec`.
    """
    spec = synthetic_spec(name, d, s, formula)
    freqs = true_distribution(spec)
    shape = generate(spec, 2, np.random.default_rng(0))  # labels, kind and edges of the spec
    counts = np.maximum(np.round(freqs * users), 0).astype(np.int64)
    return Dataset(counts=counts, labels=list(shape.labels), name=name, kind=shape.kind, edges=shape.edges,
                   description=SYNTHETIC[name][0] if name != "mixture" else f"Mixture {formula}",
                   notes=("Synthetic data: the population follows the exact distribution; users are drawn from it.",),
                   origin="synthetic",
                   synthetic=(name, s if name == "zipf" else None, formula if name == "mixture" else None),
                   title=f"a synthetic {name} distribution over {d:,} values",
                   source={"synthetic": name, "d": int(d), "s": s, "users": int(users), "formula": formula})


# --------------------------------------------------------------------------- the user's own table
def usable_columns(table: pd.DataFrame) -> list[str]:
    """The columns that hold at least one value (:func:`empty_columns` names the others, for a note).

    Parameters
    ----------
    table : pandas.DataFrame
        The user's table, as read from the uploaded file.

    Returns
    -------
    list of str
        The names (as strings) of the columns with a value, in the table's order.

    Raises
    ------
    InvalidInput
        If no column holds a value.
    """
    columns = [str(c) for c in table.columns if table[c].notna().sum() > 0]
    if not columns:
        raise InvalidInput("the file has no column with values; check that it has a header row and data")
    return columns


def empty_columns(table: pd.DataFrame) -> list[str]:
    """The columns without a single value (all missing): left out of the column picker, and said so.

    Parameters
    ----------
    table : pandas.DataFrame
        The user's table.

    Returns
    -------
    list of str
        The all-missing columns' names, in the table's order (empty when none).
    """
    return [str(c) for c in table.columns if table[c].notna().sum() == 0]


#: A categorical column with more than MAX_CATEGORIES distinct values keeps its TOP_CATEGORIES most frequent ones
#: and groups the rest as "(other)" (an ID-like column is then one big "(other)": the note says so).
TOP_CATEGORIES = 1000
OTHER = "(other)"


def top_categories(series: pd.Series, keep: int = TOP_CATEGORIES, limit: int = MAX_CATEGORIES,
                   ) -> tuple[pd.Series, str | None]:
    """The column with all but its ``keep`` most frequent values replaced by :data:`OTHER` when it has more than
    ``limit`` distinct values, and a note saying so (None when the column is left as it is).

    Parameters
    ----------
    series : pandas.Series
        A categorical column.
    keep : int, default TOP_CATEGORIES
        The most frequent values kept.
    limit : int, default MAX_CATEGORIES
        The distinct values a column may have before the rest are grouped.

    Returns
    -------
    tuple of (pandas.Series, str or None)
        The column (missing values stay missing) and the note, or the column unchanged and None.
    """
    counts = series.value_counts()
    if len(counts) <= limit:
        return series, None
    kept = counts.index[:keep]
    other_rows = int(counts.iloc[keep:].sum())
    out = series.where(series.isin(kept) | series.isna(), OTHER)
    note = (f"'{series.name}' has {len(counts):,} distinct values: the {keep:,} most frequent are kept and the other "
            f"{len(counts) - keep:,} ({other_rows:,} rows, {other_rows / max(int(counts.sum()), 1):.1%}) are grouped "
            f"as '{OTHER}'")
    return out, note


def guess_kind(series: pd.Series) -> str:
    """"numerical" for a column of numbers with many distinct values, else "categorical".

    Parameters
    ----------
    series : pandas.Series
        A column.

    Returns
    -------
    str
        ``"numerical"`` when every non-missing value parses as a number and there are at least 21 distinct values
        (``NUMERICAL_MIN_DISTINCT``), else ``"categorical"``.
    """
    numeric = pd.to_numeric(series, errors="coerce")
    many = series.nunique() >= NUMERICAL_MIN_DISTINCT
    return "numerical" if numeric.notna().sum() == series.notna().sum() and many else "categorical"


def data_range(series: pd.Series) -> tuple[float, float]:
    """The min and max of a column's numerical values.

    Parameters
    ----------
    series : pandas.Series
        A column; values that do not parse as numbers are ignored.

    Returns
    -------
    tuple of (float, float)
        (min, max).

    Raises
    ------
    InvalidInput
        If no value parses as a number.
    """
    values = pd.to_numeric(series, errors="coerce").dropna()
    if values.empty:
        raise InvalidInput(f"column {series.name!r} has no numerical values")
    return float(values.min()), float(values.max())


def table_dataset(table: pd.DataFrame, column: str, kind: str, *, bins: int = 48,
                  value_range: tuple[float, float] | None = None, source: str = "your table") -> Dataset:
    """A column of the user's table, treated as ``kind``: numerical (``bins`` equal-width bins over
    ``value_range``, default its min and max) or categorical (beyond :data:`MAX_CATEGORIES` values, the most frequent
    :data:`TOP_CATEGORIES` and "(other)").

    Parameters
    ----------
    table : pandas.DataFrame
        The user's table.
    column : str
        The column to use (surrounding spaces and letter case forgiven when unambiguous, as
        :func:`ldp.data.get_column`).
    kind : str
        ``"numerical"`` or ``"categorical"``.
    bins : int, default 48
        Equal-width bins of a numerical column.
    value_range : tuple of (float, float) or None, default None
        The range the bins cover (values outside are clipped into the end bins); None: the column's min and max.
    source : str, default "your table"
        The table's name, for the description, title and ``source``.

    Returns
    -------
    Dataset
        With ``origin`` "table" and ``source`` recording (table, column, kind, bins, range).

    Raises
    ------
    InvalidInput
        If the column is missing, ``kind`` is neither kind, or a column treated as numerical holds non-numbers.
    """
    series = get_column(table, column)
    if kind == "numerical":
        if pd.to_numeric(series, errors="coerce").notna().sum() < series.notna().sum():
            raise InvalidInput(f"column '{column}' is not numeric; treat it as categorical or pick another column")
        enc, found = _bucketize(series, bins, value_range, column)
    elif kind == "categorical":
        series, note = top_categories(series)
        enc, found = encode_categorical(series, name=column), ((note,) if note else ())
    else:
        raise InvalidInput(f"kind must be numerical or categorical, got {kind!r}")
    return Dataset(counts=enc.true_counts(), labels=list(enc.labels), name=column, kind=enc.kind, edges=enc.edges,
                   description=source, notes=_notes(enc), warnings=found, origin="table",
                   title=f"{column} · {source}",
                   source={"table": source, "column": column, "kind": kind, "bins": int(bins),
                           "range": None if value_range is None else [float(v) for v in value_range]})


def dataset_from_source(source: dict[str, Any], table: pd.DataFrame | None = None) -> Dataset:
    """The dataset a :attr:`Dataset.source` describes, built by the same function that built it (a bundled sample's
    column, a synthetic family, or — with ``table`` given — a column of the user's own table). One-line
    :class:`~ldp.core.errors.InvalidInput` for anything else.

    Parameters
    ----------
    source : dict of str to Any
        A :attr:`Dataset.source`: with key ``"sample"``, ``"synthetic"`` or ``"table"`` and the arguments of the
        function that built it.
    table : pandas.DataFrame or None, default None
        The user's table, needed (only) for a ``"table"`` source.

    Returns
    -------
    Dataset
        The same dataset as the one the source was recorded from.

    Raises
    ------
    InvalidInput
        If ``source`` is not a dict or names no known kind, a ``"table"`` source comes without ``table``, or the
        builder refuses its arguments.
    """
    if not isinstance(source, dict):
        raise InvalidInput("a data source must be an object such as {\"sample\": \"flights\", \"column\": \"dest\"}")
    if "sample" in source:
        rng = source.get("range")
        return sample_dataset(str(source["sample"]), str(source["column"]), int(source.get("bins") or 48),
                              None if rng is None else (float(rng[0]), float(rng[1])))
    if "synthetic" in source:
        return synthetic_dataset(str(source["synthetic"]), int(source["d"]), source.get("s"),
                                 int(source.get("users") or SYNTHETIC_USERS), source.get("formula"))
    if "table" in source:
        if table is None:
            raise InvalidInput(f"this configuration ran on the uploaded file {source['table']!r}: give that file "
                               "(ldp simulate --config FILE --data YOUR_FILE)")
        rng = source.get("range")
        return table_dataset(table, str(source["column"]), str(source.get("kind", "categorical")),
                             bins=int(source.get("bins") or 48),
                             value_range=None if rng is None else (float(rng[0]), float(rng[1])),
                             source=str(source["table"]))
    raise InvalidInput("a data source names a sample, a synthetic distribution or a table")

