"""What ``simulate``, ``sweep`` and ``perturb`` collect from: a column of a table, a bundled sample or a synthetic
distribution, encoded for the mechanism's kind (categories, buckets with real-unit edges, or raw numbers)."""

from __future__ import annotations

import argparse
import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ldp.cli.options import UsageError, one_line, parse_range
from ldp.data import (
    bucketize,
    domain_from_file,
    encode_categorical,
    encode_integer,
    generate,
    get_column,
    list_samples,
    load_sample,
    load_table,
    parse_spec,
    stand_in_of,
    true_distribution,
)
from ldp.data.domain import draw_population, population_rng
from ldp.simulation import SweepPopulation
from ldp.studies.mean_variance import mean_values

__all__ = ["Population", "add_population_args", "check_population_choice", "load_numbers", "load_population",
           "load_series", "sample_source", "sweep_population", "synthetic_population", "users_counts", "users_rng",
           "with_domain_size"]


@dataclass
class Population:
    """A population for one mechanism kind.

    Attributes
    ----------
    labels : list of str
        The label of each code (category, integer code or bucket), d of them.
    frequencies : numpy.ndarray, shape (d,)
        The true frequency of each code (sums to 1).
    counts : numpy.ndarray or None
        Users per code of the data's rows; None for a synthetic population (it has frequencies only).
    source : dict
        Where it comes from, for the command's JSON (``data``/``sample``/``synthetic``, ``column``, the encoding,
        ``rows``, ``dropped``, ``clipped``, ``edges``).
    edges : numpy.ndarray or None
        The d + 1 real-unit bucket edges of a numerical population; None for a categorical one.
    notes : list of str
        One-line warnings about the encoding (e.g. more buckets than distinct values).
    """

    labels: list[str]
    frequencies: np.ndarray
    counts: np.ndarray | None  # users per code of the data's rows (None for synthetic)
    source: dict[str, Any] = field(default_factory=dict)
    edges: np.ndarray | None = None  # numerical: real-unit bucket edges
    notes: list[str] = field(default_factory=list)  # one-line warnings about the encoding

    @property
    def d(self) -> int:
        return len(self.labels)

    @property
    def rows(self) -> int | None:
        return None if self.counts is None else int(self.counts.sum())


def add_population_args(p: argparse.ArgumentParser, *, sweep_mode: bool) -> None:
    """Add the "population" option group: ``--data``/``--sample``/``--synthetic``, ``--column``, ``--buckets``,
    ``--range`` and ``--clip`` (read by :func:`load_population`, :func:`load_numbers` and
    :func:`sweep_population`).

    Parameters
    ----------
    p : argparse.ArgumentParser
        The subcommand's parser.
    sweep_mode : bool
        For ``ldp sweep``: without ``--domain-size``/``--domain`` (the sweep's ``--domain-sizes`` replaces them)
        and with ``--categorical``.
    """
    g = p.add_argument_group("population (one of --data, --sample, --synthetic)")
    g.add_argument("--data", metavar="FILE", help="CSV (.csv/.tsv/.txt, optionally .gz) or Parquet table")
    g.add_argument("--sample", metavar="NAME", help="a bundled sample table: " + ", ".join(
        s["name"] for s in list_samples()))
    g.add_argument("--column", "-c", metavar="C", help="column of --data/--sample to collect")
    g.add_argument("--synthetic", metavar="SPEC",
                   help="synthetic population, e.g. zipf:s=1.5,d=100 or gaussian:mu=0,sigma=1,d=50")
    if not sweep_mode:
        g.add_argument("--domain-size", "-d", dest="domain_size", type=int, metavar="D",
                       help="the column holds integer codes in [0, D) (with --synthetic: sets the spec's d)")
        g.add_argument("--domain", metavar="FILE",
                       help="text file listing the domain, one label per line (code = position in the file)")
    g.add_argument("--buckets", type=int, metavar="D",
                   help="bucketize a numerical column into D equal-width bins"
                        + (" (the sweep's d when --domain-sizes is not given)" if sweep_mode else ""))
    g.add_argument("--range", dest="value_range", metavar="LO,HI",
                   help="value range of the bins or of a mean mechanism's values (default: the column's min,max)")
    g.add_argument("--clip", action="store_true", help="clip values outside --range instead of failing")
    if sweep_mode:
        g.add_argument("--categorical", action="store_true",
                       help="treat a numerical column as categorical (its distinct values; d then fixed)")


def with_domain_size(spec: str, d: int) -> str:
    """The synthetic ``spec`` with its domain size set to ``d`` (replacing a top-level ``d=``).

    Both spellings are understood: ``name:k=v,...`` and ``name(k=v,...)``; a ``d=`` inside nested parentheses
    is left alone (only the top-level parameters are split).

    Parameters
    ----------
    spec : str
        A synthetic population spec, e.g. ``"zipf:s=1.5,d=100"``.
    d : int
        The domain size to set.

    Returns
    -------
    str
        The spec with ``d=<d>`` as its last top-level parameter (e.g. ``"zipf:s=1.5,d=20"``).
    """
    text = spec.strip()
    call = re.fullmatch(r"\s*([A-Za-z_]\w*)\s*\((.*)\)\s*", text, flags=re.S)
    if call:
        name, body, opener, closer = call.group(1), call.group(2), "(", ")"
    elif ":" in text:
        name, body = text.split(":", 1)
        opener, closer = ":", ""
    else:
        name, body, opener, closer = text, "", ":", ""
    pieces, depth, start = [], 0, 0
    for i, ch in enumerate(body):
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            pieces.append(body[start:i])
            start = i + 1
    pieces.append(body[start:])
    kept = [p for p in pieces if p.strip() and not re.match(r"\s*d\s*=", p)]
    return f"{name}{opener}{','.join([*kept, f'd={int(d)}'])}{closer}"


def synthetic_population(spec: str, d: int | None = None) -> Population:
    """The population of a synthetic spec: its exact frequencies, labels and (numerical specs) bucket edges.

    Parameters
    ----------
    spec : str
        A synthetic population spec (see :func:`ldp.data.parse_spec`).
    d : int, optional
        Replace the spec's domain size (:func:`with_domain_size`); None: the spec's own.

    Returns
    -------
    Population
        With ``counts`` None and ``source`` ``{"synthetic": spec}``.

    Raises
    ------
    InvalidInput
        A spec the synthetic generators do not accept.
    """
    if d is not None:
        spec = with_domain_size(spec, d)
    freqs = true_distribution(spec)
    enc = generate(spec, 1, np.random.default_rng(0))  # the spec's labels and edges (one throwaway draw)
    return Population(list(enc.labels), freqs, None, {"synthetic": spec}, edges=enc.edges)


def load_series(args: argparse.Namespace) -> tuple[pd.Series, dict[str, Any]]:
    """The ``--column`` of ``--data FILE`` or ``--sample NAME``, and where it comes from.

    Parameters
    ----------
    args : argparse.Namespace
        Reads ``column``, ``data`` and ``sample`` (one of the last two is set).

    Returns
    -------
    series : pandas.Series
        The column as read.
    source : dict
        ``{"data": path}`` or :func:`sample_source`'s, with ``column``.

    Raises
    ------
    UsageError
        No ``--column``.
    InvalidInput
        An unreadable file, an unknown sample or column.
    """
    if args.column is None:
        raise UsageError("--column is required with --data/--sample")
    if args.data is not None:
        df, source = load_table(args.data), {"data": str(args.data)}
    else:
        df = load_sample(args.sample)
    series = get_column(df, args.column)
    if args.sample is not None:
        source = sample_source(args.sample, [str(series.name)])
    source["column"] = str(series.name)
    return series, source


def sample_source(name: str, columns: Sequence[str] = ()) -> dict[str, Any]:
    """The ``source`` of a command's JSON for a bundled sample: its name and, where the sample or one of the
    ``columns`` stands in for a dataset of the papers, that label (``stand_in``: one string for one column or a
    sample-wide label, else column -> label).

    Parameters
    ----------
    name : str
        The bundled sample's name.
    columns : sequence of str, default ()
        The columns the command reads.

    Returns
    -------
    dict
        ``{"sample": name}``, plus ``stand_in`` when a label applies (a str, or a dict column → label).
    """
    labels = {c: stand_in_of(name, c) for c in columns if stand_in_of(name, c)}
    source: dict[str, Any] = {"sample": str(name)}
    if len(labels) == 1 and len(columns) == 1:
        source["stand_in"] = next(iter(labels.values()))
    elif labels:
        source["stand_in"] = labels
    elif not columns and stand_in_of(name):
        source["stand_in"] = stand_in_of(name)
    return source


def check_population_choice(args: argparse.Namespace, sweep_mode: bool = False) -> str:
    """Which population source the options name, checked for options that do not go with it.

    Parameters
    ----------
    args : argparse.Namespace
        The population options (``data``, ``sample``, ``synthetic``, ``column``, ``buckets``, ``value_range``,
        ``clip``, ``domain``).
    sweep_mode : bool, default False
        ``ldp sweep``: ``--range``/``--clip`` may come without ``--buckets`` (``--domain-sizes`` gives them).

    Returns
    -------
    str
        "--data", "--sample" or "--synthetic".

    Raises
    ------
    UsageError
        Not exactly one source, column or bucketing options with ``--synthetic``, or ``--range``/``--clip``
        without ``--buckets`` (outside sweeps).
    """
    chosen = [flag for flag, value in (("--data", args.data), ("--sample", args.sample),
                                       ("--synthetic", args.synthetic)) if value is not None]
    if len(chosen) != 1:
        raise UsageError("give exactly one of --data FILE, --sample NAME or --synthetic SPEC"
                         + (f" (got {', '.join(chosen)})" if chosen else ""))
    if args.synthetic is not None:
        bad = [flag for flag, value in (("--column", args.column), ("--buckets", args.buckets),
                                        ("--range", args.value_range), ("--domain", getattr(args, "domain", None)))
               if value is not None] + (["--clip"] if args.clip else [])
        if bad:
            raise UsageError(f"{', '.join(bad)} cannot be used with --synthetic (set d in the spec)")
    if args.buckets is None and (args.value_range is not None or args.clip) and not sweep_mode:
        raise UsageError("--range and --clip need --buckets")
    return chosen[0]


def _encoded(enc: Any, source: dict[str, Any], notes: list[str]) -> Population:
    info = dict(source, encoding=enc.kind, rows=enc.n, dropped=enc.dropped, clipped=enc.clipped)
    if enc.edges is not None:
        info["edges"] = [float(x) for x in enc.edges]
    return Population(list(enc.labels), enc.true_frequencies(), enc.true_counts(), info, edges=enc.edges,
                      notes=notes)


def _bucketize(series: pd.Series, buckets: int, value_range: Any, mode: str) -> tuple[Any, list[str]]:
    with warnings.catch_warnings(record=True) as caught:  # e.g. more buckets than distinct values
        warnings.simplefilter("always", UserWarning)
        enc = bucketize(series, buckets, value_range, mode)
    return enc, [one_line(w.message) for w in caught if issubclass(w.category, UserWarning)]


def load_population(args: argparse.Namespace, *, bucketed: bool = False) -> Population:
    """The population of ``simulate``: an encoded column (or synthetic distribution) with its labels; a
    numerical mechanism needs real-unit bucket edges (a bucketized column or a numerical synthetic spec).

    A column is encoded by ``--buckets`` (equal-width bins over ``--range``), ``--domain-size`` (integer codes),
    ``--domain`` (labels from a file) or, by default, its distinct values.

    Parameters
    ----------
    args : argparse.Namespace
        The population options of ``simulate``/``perturb`` (and ``mechanism`` for the error message).
    bucketed : bool, default False
        Whether the mechanism is numerical (``Mechanism.bucketed``): then the population must have edges.

    Returns
    -------
    Population
        The encoded population.

    Raises
    ------
    UsageError
        A bad combination of options, or a categorical population for a numerical mechanism.
    InvalidInput
        An unreadable file, an unknown column or sample, values outside the range without ``--clip``.
    """
    choice = check_population_choice(args)
    if choice == "--synthetic":
        pop = synthetic_population(args.synthetic, args.domain_size)
    else:
        if args.buckets is not None and (args.domain_size is not None or args.domain is not None):
            raise UsageError("--buckets cannot be combined with --domain-size/--domain")
        series, source = load_series(args)
        notes: list[str] = []
        if args.buckets is not None:
            enc, notes = _bucketize(series, args.buckets, parse_range(args.value_range),
                                    "clip" if args.clip else "reject")
            source["encoding"] = "buckets"
        elif args.domain_size is not None:
            enc = encode_integer(series, args.domain_size)
        elif args.domain is not None:
            enc = encode_categorical(series, domain=domain_from_file(args.domain))
        else:
            enc = encode_categorical(series)
        pop = _encoded(enc, source, notes)
    if bucketed and pop.edges is None:
        what = f"synthetic spec {args.synthetic!r}" if args.synthetic is not None else "the column"
        raise UsageError(f"{args.mechanism} is a numerical mechanism but {what} is categorical: bucketize a "
                         "numerical column with --buckets D [--range LO,HI], or use a numerical synthetic spec "
                         "(e.g. gaussian:mu=0,sigma=1,d=256)")
    return pop


def load_numbers(args: argparse.Namespace) -> tuple[np.ndarray, tuple[float, float], dict[str, Any]]:
    """A mean mechanism's population: the column's numbers in real units, their range, and where they come from.

    Parameters
    ----------
    args : argparse.Namespace
        ``data`` or ``sample``, ``column``, ``value_range`` (``--range``; default the column's min and max) and
        ``clip`` (and ``mechanism`` for the messages).

    Returns
    -------
    x : numpy.ndarray
        One number per user (missing values dropped; clipped to the range with ``--clip``).
    value_range : tuple of float
        The public range (lo, hi) the mechanism maps to [−1, 1].
    source : dict
        Where the numbers come from, with ``rows``, ``dropped`` and ``clipped``.

    Raises
    ------
    UsageError
        ``--synthetic``, ``--buckets``, ``--domain-size`` or ``--domain`` given, or not exactly one of
        ``--data``/``--sample``.
    InvalidInput
        An unreadable column, or values outside ``--range`` without ``--clip``.
    """
    bad = [flag for flag, value in (("--synthetic", args.synthetic), ("--buckets", args.buckets),
                                    ("--domain-size", getattr(args, "domain_size", None)),
                                    ("--domain", getattr(args, "domain", None)))
           if value is not None]
    if bad:
        raise UsageError(f"{', '.join(bad)} cannot be used with the mean mechanism {args.mechanism} "
                         "(give --data FILE or --sample NAME, --column C and optionally --range LO,HI)")
    if (args.data is None) == (args.sample is None):
        raise UsageError("give exactly one of --data FILE or --sample NAME")
    series, source = load_series(args)
    x, value_range, clipped, dropped = mean_values(series, parse_range(args.value_range), args.clip)
    return x, value_range, dict(source, rows=int(series.size), dropped=dropped, clipped=clipped)


def users_rng(seed: int | None) -> np.random.Generator:
    """The stream drawing users from the data: the one population stream (``ldp.data.domain.population_rng``), so
    the command line draws the same users as the pages for the same seed.

    Parameters
    ----------
    seed : int, optional
        The command's ``--seed``; None: fresh randomness.

    Returns
    -------
    numpy.random.Generator
        The generator keyed by the seed and the population stream's name.
    """
    return population_rng(seed)


def users_counts(pop: Population, n: int | None, seed: int | None) -> np.ndarray:
    """Users per code: the data's own rows when ``n`` is None or equals the row count, else ``draw_population``.

    Parameters
    ----------
    pop : Population
        The population (a column's counts, or a synthetic distribution's frequencies).
    n : int, optional
        ``--users``; None: the data's rows.
    seed : int, optional
        The seed of the draw (see :func:`users_rng`).

    Returns
    -------
    numpy.ndarray of int, shape (d,)
        Users per code, summing to n (or to the data's rows).

    Raises
    ------
    UsageError
        ``n`` None for a synthetic population (it has no rows).
    """
    if n is None:
        if pop.counts is None:
            raise UsageError("--users is required with --synthetic")
        return pop.counts
    return draw_population(pop.counts if pop.counts is not None else pop.frequencies, n, seed, rows=pop.rows)


def sweep_population(args: argparse.Namespace, domain_sizes: list[int] | None, numerical: bool) -> tuple[
        Callable[[int, int, np.random.Generator], np.ndarray], list[int], int | None, list[str]]:
    """``population(d, n, rng)`` for a sweep, the domain sizes, the number of rows (data only) and notes.

    A numerical column is bucketized once per domain size (when the mechanisms are numerical, ``--buckets`` or
    ``--range`` is given, or ``--domain-sizes`` is given without ``--categorical``); otherwise its distinct values
    are the categories and d is fixed.

    Parameters
    ----------
    args : argparse.Namespace
        The sweep's population options.
    domain_sizes : list of int, optional
        ``--domain-sizes``; None: the spec's d, the column's distinct values or ``--buckets``.
    numerical : bool
        Whether the swept mechanisms are numerical (they need bucket edges).

    Returns
    -------
    population : SweepPopulation
        Callable ``population(d, n, rng)`` → users per code for each domain size.
    sizes : list of int
        The domain sizes swept.
    rows : int or None
        The data's number of rows (None for a synthetic spec).
    notes : list of str
        One-line warnings of the bucketizing.

    Raises
    ------
    UsageError
        A bad combination of options (see the checks), a categorical column with other domain sizes than its own,
        or a categorical synthetic spec for numerical mechanisms.
    """
    if check_population_choice(args, sweep_mode=True) == "--synthetic":
        sizes = domain_sizes or [int(parse_spec(args.synthetic)[1]["d"])]
        pops = {d: synthetic_population(args.synthetic, d) for d in sizes}
        if numerical and any(p.edges is None for p in pops.values()):
            raise UsageError(f"numerical mechanisms need a numerical synthetic spec, not {args.synthetic!r}")
        return SweepPopulation({d: p.frequencies for d, p in pops.items()}), sizes, None, []
    series, _ = load_series(args)
    numeric = pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series.dtype)
    bucketed = numerical or args.buckets is not None or args.value_range is not None or (
        numeric and domain_sizes is not None and not args.categorical)
    if args.categorical and (numerical or args.buckets is not None or args.value_range is not None or args.clip):
        raise UsageError("--categorical cannot be combined with --buckets/--range/--clip or numerical mechanisms")
    notes: list[str] = []
    if not bucketed:
        if args.clip:
            raise UsageError("--clip needs a numerical column (--buckets or --range)")
        enc = encode_categorical(series)
        sizes = domain_sizes or [enc.d]
        if any(d != enc.d for d in sizes):
            raise UsageError(f"column {series.name!r} is categorical with d={enc.d} distinct values; "
                             f"--domain-sizes cannot change it (got {','.join(map(str, sizes))})")
        encoded = {enc.d: enc}
    else:
        if domain_sizes is None and args.buckets is None:
            raise UsageError("give --buckets D or --domain-sizes for a numerical column")
        sizes = domain_sizes or [args.buckets]
        value_range = parse_range(args.value_range)
        encoded = {}
        for d in dict.fromkeys(sizes):
            encoded[d], found = _bucketize(series, d, value_range, "clip" if args.clip else "reject")
            notes += found
    rows = next(iter(encoded.values())).n
    population = SweepPopulation({d: enc.true_counts() for d, enc in encoded.items()},
                                 {d: enc.n for d, enc in encoded.items()})
    return population, sizes, rows, notes
