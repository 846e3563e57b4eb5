"""``ldp perturb`` and ``ldp aggregate``: report files for every non-interactive kind of mechanism, through one
adapter per kind (:data:`FILE_KINDS`) — what options the kind takes, how a table becomes its inputs, and how an
aggregate becomes its answer. The commands themselves never switch on a kind.

=========== ============================================ ===============================================
kind        inputs (perturb)                             answer (aggregate)
=========== ============================================ ===============================================
frequency   ``--column`` of codes or labels (``-d``/     ``estimates``: a frequency per value
            ``--domain``)
numerical   ``--column`` of numbers, ``--range``,         ``estimates`` per bucket, with the bucket edges
            ``--buckets``
mean        ``--column`` of numbers, ``--range``          ``mean`` in the column's units
vector      ``--columns a,b,c`` of numbers, ``--range``   ``mean`` and ``variance`` per column, in units
=========== ============================================ ===============================================

Interactive protocols (heavy hitters, itemset miners) have no single report file: the command says so in one
line and names the command that runs them.
"""

from __future__ import annotations

import argparse
import sys
import time
from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ldp.cli.options import UsageError, build_mechanism, estimator_params, mechanism_class, parse_range, split_list
from ldp.cli.render import Output, render
from ldp.core.randomness import SecureRandom, make_rng
from ldp.core.registry import PROTOCOLS
from ldp.data import ValueScale, domain_from_file, encode_categorical, encode_integer, get_column, load_table
from ldp.engines import aggregate_reports
from ldp.estimators import estimate_all, get_estimator, parse_estimators
from ldp.mechanisms import Mechanism
from ldp.report_files import check_report_size, load_reports, perturb_to_file
from ldp.studies.mean_variance import mean_values

__all__ = ["AGGREGATE_CSV_COLUMNS", "FILE_KINDS", "NUMERICAL_DEFAULT_BUCKETS", "cmd_aggregate", "cmd_perturb",
           "domain_of", "estimators_of", "file_kind", "mechanism_header", "warn"]

AGGREGATE_CSV_COLUMNS = ("estimator", "value", "estimate")
NUMERICAL_DEFAULT_BUCKETS = 32


def warn(message: str) -> None:
    """Print one ``warning: <message>`` line on stderr (the commands' warnings never go to stdout).

    Parameters
    ----------
    message : str
        The warning, one line.
    """
    print(f"warning: {message}", file=sys.stderr)


def estimators_of(args: argparse.Namespace, mech: Mechanism) -> list[Any]:
    """The estimators named by ``--estimators`` (default: the mechanism's own) with their ``--estimator-param``s.

    Parameters
    ----------
    args : argparse.Namespace
        Reads ``estimators`` (a comma-separated list, or None) and ``estimator_param``.
    mech : Mechanism
        The mechanism whose aggregate they estimate from (it decides which estimators apply).

    Returns
    -------
    list
        The constructed estimators, in the order named.

    Raises
    ------
    LDPError
        An unknown estimator or one that does not apply to the mechanism (:class:`InvalidInput`), or a bad
        ``--estimator-param`` (:class:`UsageError`).
    """
    names = parse_estimators(args.estimators if args.estimators is not None else mech.default_estimator, mech)
    params = estimator_params(args.estimator_param, names)
    return [get_estimator(name, **params.get(name, {})) for name in names]


def domain_of(args: argparse.Namespace, labels: bool = True) -> tuple[int, list[str]]:
    """The categorical domain from ``--domain FILE`` or ``--domain-size D``: its size and labels (the codes' own
    when there is no file; not built with ``labels`` False: d strings for d = 10⁹ took a minute before anything
    was checked).

    Parameters
    ----------
    args : argparse.Namespace
        Reads ``domain`` (a file of labels, one per line) and ``domain_size``.
    labels : bool, default True
        Whether to build the labels ``"0"`` … ``"d−1"`` when there is no file.

    Returns
    -------
    d : int
        The domain size (at least 2).
    labels : list of str
        The file's labels, the codes as strings, or ``[]`` when ``labels`` is False and there is no file.

    Raises
    ------
    UsageError
        Neither option given, or a domain size below 2.
    InvalidInput
        An unreadable domain file.
    """
    if args.domain is not None:
        names = domain_from_file(args.domain)
        return len(names), names
    if args.domain_size is None:
        raise UsageError("give the domain: --domain-size D or --domain FILE")
    if args.domain_size < 2:
        raise UsageError(f"domain size must be at least 2, got {args.domain_size}")
    return args.domain_size, [str(v) for v in range(args.domain_size)] if labels else []


def mechanism_header(mech: Mechanism) -> dict[str, Any]:
    """The mechanism part of a command's JSON: name, kind, ε (and ε1), resolved parameters and d.

    Parameters
    ----------
    mech : Mechanism
        The configured mechanism.

    Returns
    -------
    dict
        ``mechanism``, ``kind``, ``epsilon``, ``epsilon_1`` (longitudinal mechanisms only, then left out of
        ``parameters``), ``parameters`` (the resolved own parameters) and ``d``.
    """
    params = mech.params
    out: dict[str, Any] = {"mechanism": mech.name, "kind": mech.kind, "epsilon": mech.epsilon}
    if mech.collection == "longitudinal":
        out["epsilon_1"] = params.pop("epsilon_1")
    out.update({"parameters": params, "d": mech.d})
    return out


def _given(args: argparse.Namespace, *flags: str) -> list[str]:
    dest = {"--range": "value_range", "--buckets": "buckets", "--domain-size": "domain_size", "--domain": "domain",
            "--column": "column", "--columns": "columns", "--clip": "clip"}
    return [f for f in flags if getattr(args, dest[f], None) not in (None, False)]


def _public_scale(args: argparse.Namespace, name: str, header: dict[str, Any] | None = None) -> ValueScale:
    """The public value range: ``--range`` and/or the report file's header (they must agree)."""
    given = parse_range(args.value_range)
    recorded = tuple(header["range"]) if header is not None and "range" in header else None
    if given is None and recorded is None:
        raise UsageError(f"give the public value range of {name}'s inputs with --range LO,HI (never derived "
                         "from the data: the range is part of the mechanism every user runs)")
    if given is not None and recorded is not None and not np.allclose(given, recorded, rtol=1e-12, atol=0):
        raise UsageError(f"--range {given[0]:g},{given[1]:g} disagrees with the report file's range "
                         f"{recorded[0]:g},{recorded[1]:g}")
    lo, hi = given or recorded
    return ValueScale(lo, hi)


class FileKind(ABC):
    """How one kind of mechanism reads a table into inputs and turns an aggregate into its answer."""

    kind: ClassVar[str]
    #: Options this kind refuses (they belong to other kinds), and a hint of what it takes instead.
    refuses: ClassVar[tuple[str, ...]] = ()
    takes: ClassVar[str] = ""

    def check_options(self, args: argparse.Namespace, cls: type[Mechanism], perturb: bool) -> None:
        bad = _given(args, *self.refuses)
        if bad:
            raise UsageError(f"{', '.join(bad)} cannot be used with the {cls.kind} mechanism {cls.name} ({self.takes})")
        if perturb and self.column_flag() == "--column" and args.column is None:
            raise UsageError(f"give the column holding each user's value with --column C ({self.takes})")

    def column_flag(self) -> str:
        return "--column"

    @abstractmethod
    def mechanism(self, args: argparse.Namespace, labels: bool = True) -> tuple[Mechanism, list[str]]:
        """The configured mechanism and (with ``labels``) the labels of its estimate's entries."""

    def inputs(self, args: argparse.Namespace, mech: Mechanism, labels: list[str], table: pd.DataFrame
               ) -> tuple[np.ndarray, int, str, dict[str, Any]]:
        """(inputs as the mechanism takes them, rows left out, source name, header fields): the hook of the default
        :meth:`perturb_plan` (a kind that reads its data otherwise, as the set-valued one, overrides that instead)."""
        raise TypeError(f"{type(self).__name__} defines neither inputs() nor its own perturb_plan()")

    def perturb_plan(self, args: argparse.Namespace, rng: Any) -> tuple[Mechanism, np.ndarray, int, str,
                                                                         dict[str, Any]]:
        """(the client's mechanism, its inputs, rows left out, source name, header fields) for ``ldp perturb``:
        the mechanism and the table's column(s) by default."""
        mech, labels = self.mechanism(args, labels=False)
        check_report_size(mech, 1)  # a report too wide is refused before the data is read
        values, dropped, name, extra = self.inputs(args, mech, labels, load_table(args.data))
        return mech, values, dropped, name, extra

    def answer(self, args: argparse.Namespace, mech: Mechanism, labels: list[str], reports: np.ndarray,
               header: dict[str, Any] | None, agg: Any, estimates: dict[str, Any], out: dict[str, Any]
               ) -> tuple[dict[str, Any], list[tuple[str, str, str]]]:
        """The JSON answer (``out`` completed) and its CSV rows (estimator, entry, value)."""
        out["domain"] = labels
        out["estimates"] = {name: est.values.tolist() for name, est in estimates.items()}
        out["diagnostics"] = {name: est.summary() for name, est in estimates.items()}
        rows = [(name, label, repr(float(est.values[v]))) for name, est in estimates.items()
                for v, label in enumerate(labels)]
        return out, rows


class FrequencyFiles(FileKind):
    kind = "frequency"
    refuses = ("--range", "--buckets", "--columns", "--clip")
    takes = "give --domain-size D or --domain FILE and --column C"

    def mechanism(self, args: argparse.Namespace, labels: bool = True) -> tuple[Mechanism, list[str]]:
        d, names = domain_of(args, labels)
        return build_mechanism(args, d), names

    def inputs(self, args, mech, labels, table):
        series = get_column(table, args.column)
        enc = encode_integer(series, mech.d) if args.domain is None else encode_categorical(series, domain=labels)
        return enc.values, enc.dropped, enc.name, {}


class NumericalFiles(FileKind):
    kind = "numerical"
    refuses = ("--domain-size", "--domain", "--columns")
    takes = "give the public value range with --range LO,HI, --buckets D and --column C"

    def mechanism(self, args: argparse.Namespace, labels: bool = True) -> tuple[Mechanism, list[str]]:
        d = args.buckets or NUMERICAL_DEFAULT_BUCKETS
        return build_mechanism(args, d), [str(v) for v in range(d)]

    def inputs(self, args, mech, labels, table):
        scale = _public_scale(args, mech.name)
        series = get_column(table, args.column)
        x, _, _, dropped = mean_values(series, (scale.low, scale.high), args.clip)
        unit = scale.to_unit(x)
        values = unit if mech.input_kind == "unit" else mech.bucket_of(unit)
        return values, dropped, str(series.name), {"range": [scale.low, scale.high]}

    def answer(self, args, mech, labels, reports, header, agg, estimates, out):
        scale = _public_scale(args, mech.name, header)
        out["range"] = [scale.low, scale.high]
        out["edges"] = mech.input_edges(scale).tolist()
        labels = [f"[{a:.6g}, {b:.6g})" for a, b in zip(out["edges"][:-1], out["edges"][1:], strict=True)]
        return super().answer(args, mech, labels, reports, header, agg, estimates, out)


class MeanFiles(FileKind):
    kind = "mean"
    refuses = ("--domain-size", "--domain", "--buckets", "--columns")
    takes = "give the public value range with --range LO,HI and --column C"

    def mechanism(self, args: argparse.Namespace, labels: bool = True) -> tuple[Mechanism, list[str]]:
        return build_mechanism(args, None), ["mean"]

    def inputs(self, args, mech, labels, table):
        scale = _public_scale(args, mech.name)
        series = get_column(table, args.column)
        x, _, _, dropped = mean_values(series, (scale.low, scale.high), args.clip)
        return 2.0 * scale.to_unit(x) - 1.0, dropped, str(series.name), {"range": [scale.low, scale.high]}

    def answer(self, args, mech, labels, reports, header, agg, estimates, out):
        scale = _public_scale(args, mech.name, header)
        half = scale.width / 2.0
        mean = {name: scale.low + (float(est.values[0]) + 1.0) * half for name, est in estimates.items()}
        # Var[μ̂] ≤ max Var[ṽ]/n, in real units (the values themselves are unknown to the server)
        sd = half * (mech.worst_case_variance() / agg.n) ** 0.5
        out.update({"range": [scale.low, scale.high], "mean": next(iter(mean.values())), "estimates": mean,
                    "standard_error_bound": sd})
        return out, [(name, "mean", repr(v)) for name, v in mean.items()]


class VectorFiles(FileKind):
    """Several numerical columns, every row a user holding all of them (a vector), one public range for every
    column mapped to [−1, 1]. The answer has each column's mean in its units and ``variance``: the unbiased
    estimate s²_j/n of the mean's variance from the reports themselves (users are independent, so the sample
    variance of the contributions estimates their average variance), beside ``variance_bound``, the worst case
    over the inputs, max Var/n (what the server knows without looking at the reports)."""

    kind = "vector"
    refuses = ("--domain-size", "--domain", "--buckets", "--column")
    takes = "give the numerical columns with --columns A,B,... and their public range with --range LO,HI"

    def column_flag(self) -> str:
        return "--columns"

    def _columns(self, args: argparse.Namespace, header: dict[str, Any] | None = None) -> list[str]:
        given = split_list(args.columns) if args.columns else None
        recorded = list(header["columns"]) if header is not None and "columns" in header else None
        if given is None and recorded is None:
            raise UsageError(f"give the columns with --columns A,B,... ({self.takes})")
        if given is not None and recorded is not None and given != recorded:
            raise UsageError(f"--columns {','.join(given)} disagrees with the report file's columns "
                             f"{','.join(recorded)}")
        cols = given or recorded
        if len(set(cols)) != len(cols):
            raise UsageError("a column is named twice in --columns")
        return cols

    def mechanism(self, args: argparse.Namespace, labels: bool = True) -> tuple[Mechanism, list[str]]:
        cols = self._columns(args)
        return build_mechanism(args, len(cols)), cols

    def inputs(self, args, mech, labels, table):
        scale = _public_scale(args, mech.name)
        missing = [c for c in labels if c not in table.columns]
        if missing:
            raise UsageError(f"no column {missing[0]!r}; the table has: {', '.join(map(str, table.columns[:20]))}")
        numeric = table[labels].apply(pd.to_numeric, errors="coerce").to_numpy(dtype=np.float64)
        keep = np.isfinite(numeric).all(axis=1)
        x = numeric[keep]
        if x.shape[0] == 0:
            raise UsageError("no row holds a number in every column")
        outside = (x < scale.low) | (x > scale.high)
        if outside.any() and not args.clip:
            raise UsageError(f"{int(outside.any(axis=1).sum()):,} rows hold values outside --range "
                             f"{scale.low:g},{scale.high:g}; widen the range or pass --clip")
        x = np.clip(x, scale.low, scale.high)
        unit = np.column_stack([scale.to_unit(col) for col in x.T])
        return 2.0 * unit - 1.0, int((~keep).sum()), ",".join(labels), {
            "range": [scale.low, scale.high], "columns": labels}

    def answer(self, args, mech, labels, reports, header, agg, estimates, out):
        cols = self._columns(args, header)
        scale = _public_scale(args, mech.name, header)
        half = scale.width / 2.0
        centre = scale.low + half
        est = next(iter(estimates.values())).values
        n = agg.n
        spread = np.var(np.asarray(reports, dtype=np.float64).reshape(n, -1), axis=0, ddof=1) if n > 1 else \
            np.full(len(cols), np.nan)
        out.update({"columns": cols, "range": [scale.low, scale.high], "mean": (centre + half * est).tolist(),
                    "variance": (half ** 2 * spread / n).tolist(),
                    "variance_bound": half ** 2 * mech.worst_case_variance() / n})
        return out, [(next(iter(estimates)), c, repr(float(centre + half * v))) for c, v in zip(cols, est,
                                                                                             strict=True)]


class SetFiles(FileKind):
    """Set-valued data by padding and sampling (the one-round protocol ``psfo``): ``--data`` is a basket file (one
    user per line, items separated by spaces or commas), ``--param length=L`` the padding length ℓ. Each user's
    set is padded to ℓ, one of the ℓ values sampled (``PaddingSampling.sample``), and the registered oracle over
    the d + ℓ padded values (GRR at ε′ = ln(ℓ(e^ε − 1) + 1) or OLH at ε) randomizes it: the report file is that
    oracle's, its header naming the protocol, ℓ and the item domain (public: every client needs it). The answer's
    ``estimates`` map each item to ℓ·f̃, the fraction of users holding it (unbiased where no set is longer than
    ℓ)."""

    kind = "itemsets"
    refuses = ("--range", "--buckets", "--columns", "--column", "--domain-size", "--clip")
    takes = "give a basket file (one user per line) with --data and the padding length with --param length=L"

    def column_flag(self) -> str:
        return ""

    def _length(self, args: argparse.Namespace, header: dict[str, Any] | None = None) -> int:
        from ldp.mechanisms.set_valued import PAD

        given = None
        for item in args.param:
            key, sep, value = item.partition("=")
            if not sep or key.strip() != "length":
                raise UsageError(f"psfo takes --param length=L, got {item!r}")
            given = PAD.validate(PAD.parse(value.strip()), "psfo")
        recorded = header.get("length") if header else None
        if given is not None and recorded is not None and given != recorded:
            raise UsageError(f"--param length={given} disagrees with the report file's length {recorded}")
        return int(given or recorded or 1)

    def _protocol(self, args: argparse.Namespace, items: list[str], length: int) -> Any:
        from ldp.mechanisms.set_valued import PaddingSampling

        if args.epsilon_1 is not None:
            raise UsageError("--epsilon-1 applies to longitudinal mechanisms, not to psfo")
        return PaddingSampling(args.epsilon, len(items), length)

    def perturb_plan(self, args, rng):
        from ldp.data.loaders import read_text_lines
        from ldp.studies.itemsets import read_baskets

        sets = read_baskets(read_text_lines(args.data))
        if args.domain is not None:
            raise UsageError("psfo reads its item domain from the basket file (every item that occurs)")
        length = self._length(args)
        psfo = self._protocol(args, list(sets.labels), length)
        extra = {"protocol": "psfo", "protocol_epsilon": float(args.epsilon), "length": length,
                 "items": list(sets.labels)}
        return psfo.mechanism, psfo.sample(sets, rng), 0, str(args.data), extra

    def mechanism(self, args: argparse.Namespace, labels: bool = True) -> tuple[Mechanism, list[str]]:
        from ldp.report_files import read_header

        header = read_header(args.reports) or {}
        if header.get("protocol") != "psfo" or "items" not in header:
            raise UsageError(f"report file '{args.reports}' was not written by 'ldp perturb --mechanism psfo' (its "
                             "header names no psfo item domain)")
        if not np.isclose(float(header.get("protocol_epsilon", args.epsilon)), args.epsilon, rtol=1e-12, atol=0):
            raise UsageError(f"--epsilon {args.epsilon:g} disagrees with the report file's ε "
                             f"{header['protocol_epsilon']:g}")
        items = [str(i) for i in header["items"]]
        self._psfo = self._protocol(args, items, self._length(args, header))
        return self._psfo.mechanism, items

    def answer(self, args, mech, labels, reports, header, agg, estimates, out):
        name, est = next(iter(estimates.items()))
        freq = self._psfo.item_estimates(est.values)
        sd = np.sqrt(self._psfo.item_variance(agg.n, np.clip(freq, 0.0, 1.0)))
        out.update({"protocol": "psfo", "length": self._psfo.length, "oracle": self._psfo.oracle,
                    "estimates": dict(zip(labels, freq.tolist(), strict=True)),
                    "standard_errors": dict(zip(labels, sd.tolist(), strict=True)), "estimator": name})
        return out, [(name, item, repr(float(f))) for item, f in zip(labels, freq, strict=True)]


#: One adapter per kind that has report files (the CLI's only dispatch on a kind).
FILE_KINDS: dict[str, FileKind] = {k.kind: k for k in (FrequencyFiles(), NumericalFiles(), MeanFiles(),
                                                          VectorFiles(), SetFiles())}


def _file_mechanism(args: argparse.Namespace) -> Any:
    """``--mechanism``'s class (a mechanism, or a one-round protocol); an interactive protocol is refused in one
    line that says how to run it."""
    if args.mechanism in PROTOCOLS:
        cls = PROTOCOLS.get(args.mechanism)
        note = cls.no_report_files()
        if note is not None:
            raise UsageError(note)
        return cls
    return mechanism_class(args)


def file_kind(cls: type[Mechanism]) -> FileKind:
    """The report-file adapter of a mechanism's kind (``FILE_KINDS``): the only dispatch on a kind in the CLI.

    Parameters
    ----------
    cls : type of Mechanism
        A mechanism class, or a one-round protocol (PSFO), with a ``kind``.

    Returns
    -------
    FileKind
        The adapter: which options the kind takes, how a table becomes inputs and an aggregate an answer.

    Raises
    ------
    UsageError
        A kind without report files.
    """
    adapter = FILE_KINDS.get(cls.kind)
    if adapter is None:
        raise UsageError(f"{cls.name} ({cls.kind}) has no report files")
    return adapter


def cmd_perturb(args: argparse.Namespace) -> int:
    """``ldp perturb``: every user's report of a table's column(s), written to a report file with its header.

    Without ``--seed`` the randomness is the operating system's CSPRNG (a genuine collection); with it, the file is
    reproducible, marked simulated, and a warning says that the seed reveals every true value.

    Parameters
    ----------
    args : argparse.Namespace
        The options of ``ldp perturb``: the mechanism (or ``psfo``), the data and column(s), the kind's options
        (domain, ``--range``, ``--buckets``, ``--clip``), ``seed`` and ``output`` (the report file).

    Returns
    -------
    int
        0 once the file is written (a one-line summary goes to stderr).

    Raises
    ------
    UsageError
        An interactive protocol (it has no report file), options of another kind, or a missing column.
    InvalidInput
        A bad mechanism, table, column or value.
    """
    cls = _file_mechanism(args)
    adapter = file_kind(cls)
    adapter.check_options(args, cls, perturb=True)
    seeded = args.seed is not None
    rng = make_rng(args.seed) if seeded else SecureRandom()
    mech, values, dropped, name, extra = adapter.perturb_plan(args, rng)
    if seeded:
        extra["simulated"] = True
    start = time.perf_counter()
    written = perturb_to_file(args.output, mech, values, rng, header_extra=extra,
                              comments=[f"source column {name!r}; randomness: "
                                        + ("seeded (a simulation: reproducible and invertible)" if seeded
                                           else "operating system CSPRNG")])
    elapsed = time.perf_counter() - start
    note = f", {dropped} missing value(s) skipped" if dropped else ""
    print(f"wrote {written} {mech.name} reports to {args.output} in {elapsed:.2f} s{note}", file=sys.stderr)
    if seeded:  # a seeded file's true values were recovered by brute-forcing its seed in 15 s
        warn(f"--seed {args.seed}: the reports are reproducible, and anyone who guesses the seed can recover every "
             "true value; use it for simulations only (the file is marked simulated). Without --seed, perturb uses "
             "the operating system's secure randomness.")
    return 0


def cmd_aggregate(args: argparse.Namespace) -> int:
    """``ldp aggregate``: the server side — read a report file, aggregate it and write the estimators' answers.

    The answer depends on the kind (frequencies, bucket frequencies with edges, a mean, a mean vector: see the
    module docstring); the aggregate's consistency warnings and the estimators' warnings go to stderr.

    Parameters
    ----------
    args : argparse.Namespace
        The options of ``ldp aggregate``: the mechanism, ``reports`` (the file), the kind's options (domain,
        ``--range``, ``--buckets``), ``estimators``/``estimator_param``, ``format`` ("json" or "csv") and
        ``output``.

    Returns
    -------
    int
        0 after writing the answer.

    Raises
    ------
    UsageError
        An interactive protocol, options of another kind, or a ``--range`` that disagrees with the file's header.
    InvalidInput
        A report file that does not match the mechanism (bad lines, another ε or domain), or a bad estimator.
    """
    cls = _file_mechanism(args)
    adapter = file_kind(cls)
    adapter.check_options(args, cls, perturb=False)
    mech, labels = adapter.mechanism(args)
    chosen = estimators_of(args, mech)
    reports, header = load_reports(args.reports, mech)
    agg = aggregate_reports(mech, reports)
    consistency = mech.consistency_warnings(agg)
    for line in consistency:
        warn(line)
    estimates = estimate_all(mech, agg, chosen)
    for name, est in estimates.items():
        for warning in est.warnings:
            warn(f"{name}: {warning}")
    out = mechanism_header(mech)
    out.update({"users": agg.n, "header": header is not None, "counts": agg.counts.tolist(),
                "consistency_warnings": consistency})
    out, rows = adapter.answer(args, mech, labels, reports, header, agg, estimates, out)
    if args.format == "csv":
        render(Output(columns=AGGREGATE_CSV_COLUMNS, rows=rows), "csv", args.output)
    else:
        render(Output(out), "json", args.output)
    return 0
