"""Command-line options shared by the subcommands, and turning them into library objects."""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from typing import Any, NoReturn

from ldp.core.errors import LDPError
from ldp.core.registry import ESTIMATORS, MECHANISMS
from ldp.engines import ENGINES
from ldp.mechanisms import Mechanism, get_mechanism

__all__ = ["EXIT_USAGE", "Parser", "UsageError", "add_domain_args", "add_engine_args", "add_estimator_args",
           "add_mechanism_args", "add_output_args", "build_mechanism", "count", "estimator_params", "mechanism_class",
           "number_list", "one_line", "parse_params", "parse_range", "split_list"]

EXIT_USAGE = 2


class UsageError(LDPError):
    """A bad combination of options (reported like any other bad input: one line, exit status 2)."""


def one_line(text: object) -> str:
    """``text`` on one line: every run of whitespace (newlines included) becomes one space.

    Parameters
    ----------
    text : object
        Anything; its ``str`` is taken (e.g. an exception or an argparse message).

    Returns
    -------
    str
        The words of ``str(text)`` joined by single spaces, without leading or trailing space.
    """
    return " ".join(str(text).split())


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (``error: ...``) and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"error: {one_line(message)} (see '{self.prog} --help')\n")


def count(text: str) -> int:
    """argparse type of a whole number that may be written in scientific notation (``1e15``, ``2.5e6``).

    Parameters
    ----------
    text : str
        The option's value as typed.

    Returns
    -------
    int
        The whole number (negative numbers are accepted; the caller checks the range).

    Raises
    ------
    argparse.ArgumentTypeError
        Not a number, not a whole number (``2.5``), not finite, or in scientific notation with a magnitude of 2⁶³
        or more (argparse turns it into a one-line usage error).
    """
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if not (math.isfinite(value) and value.is_integer()) or abs(value) >= 2.0 ** 63:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}")
    return int(value)


def split_list(text: str) -> list[str]:
    """The items of a comma-separated option value.

    Parameters
    ----------
    text : str
        E.g. ``"grr, oue,olh"``.

    Returns
    -------
    list of str
        The items, stripped of surrounding whitespace, empty items dropped (``"a,,b,"`` → ``["a", "b"]``).
    """
    return [s.strip() for s in str(text).split(",") if s.strip()]


def number_list(text: str, kind: type, flag: str) -> list[Any]:
    """A comma-separated list of numbers, e.g. ``--epsilons 0.5,1,2``.

    Parameters
    ----------
    text : str
        The option's value.
    kind : type
        ``int`` or ``float``: how each item is read.
    flag : str
        The option's name, for the error message (e.g. ``"--epsilons"``).

    Returns
    -------
    list
        The numbers in the given order (at least one; floats are finite).

    Raises
    ------
    UsageError
        An item that is not a number of the kind, an empty list, or a float that is not finite.
    """
    try:
        values = [kind(x) for x in split_list(text)]
    except ValueError:
        raise UsageError(f"{flag} expects a comma-separated list of numbers, got {text!r}") from None
    if not values:
        raise UsageError(f"{flag} is empty")
    if kind is float and not all(math.isfinite(v) for v in values):
        raise UsageError(f"{flag} values must be finite, got {text!r}")
    return values


def parse_range(text: str | None) -> tuple[float, float] | None:
    """The public range ``--range LO,HI`` of a numerical column, in the column's units.

    Parameters
    ----------
    text : str, optional
        The option's value, ``"LO,HI"``; None when the option is not given.

    Returns
    -------
    tuple of float or None
        (lo, hi) with finite lo < hi; None when ``text`` is None.

    Raises
    ------
    UsageError
        Not two numbers separated by a comma, or not finite with lo < hi.
    """
    if text is None:
        return None
    parts = [s.strip() for s in text.split(",")]
    if len(parts) != 2:
        raise UsageError(f"--range expects LO,HI, got {text!r}")
    try:
        lo, hi = float(parts[0]), float(parts[1])
    except ValueError:
        raise UsageError(f"--range expects two numbers LO,HI, got {text!r}") from None
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise UsageError(f"--range needs finite LO < HI, got {text!r}")
    return lo, hi


# --------------------------------------------------------------------------- option groups
def add_mechanism_args(p: argparse.ArgumentParser, required: bool = True) -> None:
    """Add the "mechanism" option group: ``--mechanism/-m``, ``--epsilon/-e``, ``--epsilon-1`` and repeatable
    ``--param/-p KEY=VALUE`` (read back by :func:`mechanism_class` and :func:`build_mechanism`).

    Parameters
    ----------
    p : argparse.ArgumentParser
        The subcommand's parser.
    required : bool, default True
        Whether ``--mechanism`` and ``--epsilon`` are required (``simulate`` makes them optional: ``--config``
        may give them).
    """
    g = p.add_argument_group("mechanism")
    g.add_argument("--mechanism", "-m", required=required, metavar="M",
                   help="mechanism name (see 'ldp mechanisms'), e.g. grr, oue, olh, l-osue, sw, hh, pm")
    g.add_argument("--epsilon", "-e", required=required, type=float, metavar="E",
                   help="privacy budget ε > 0 (ε∞, the memoized step, for longitudinal mechanisms)")
    g.add_argument("--epsilon-1", dest="epsilon_1", type=float, metavar="E1",
                   help="longitudinal mechanisms only: ε1 of a single report, 0 < ε1 < ε (default ε/2)")
    g.add_argument("--param", "-p", action="append", default=[], metavar="KEY=VALUE",
                   help="a mechanism's own parameter, e.g. g=5 (OLH), omega=3 (SS), theta=0.7 (THE), prime=11 "
                        "(LH), b=0.2 (SW), bins=16 (CFO-binning), branching=2 (HH); repeatable")


def add_estimator_args(p: argparse.ArgumentParser, default: str | None, help_default: str) -> None:
    """Add ``--estimators LIST`` and repeatable ``--estimator-param EST.KEY=VALUE`` (see :func:`estimator_params`).

    Parameters
    ----------
    p : argparse.ArgumentParser
        The subcommand's parser.
    default : str, optional
        The default of ``--estimators`` (a comma-separated list); None: the command decides.
    help_default : str
        What the default is, in words, for the help text.
    """
    p.add_argument("--estimators", default=default, metavar="LIST",
                   help=f"comma-separated estimators (see 'ldp estimators'; {help_default})")
    p.add_argument("--estimator-param", dest="estimator_param", action="append", default=[],
                   metavar="EST.KEY=VALUE", help="an estimator's parameter, e.g. ibu.max_iter=100, "
                                                 "base-cut.alpha=1, ems.tol=1e-4; repeatable")


def add_domain_args(p: argparse.ArgumentParser, required: bool, size_help: str) -> None:
    """Add the mutually exclusive ``--domain-size/-d D`` and ``--domain FILE`` (one label per line).

    Parameters
    ----------
    p : argparse.ArgumentParser
        The subcommand's parser.
    required : bool
        Whether one of the two must be given.
    size_help : str
        The help text of ``--domain-size`` (what D means for the command).
    """
    g = p.add_mutually_exclusive_group(required=required)
    g.add_argument("--domain-size", "-d", dest="domain_size", type=int, metavar="D", help=size_help)
    g.add_argument("--domain", metavar="FILE",
                   help="text file listing the domain, one label per line (code = position in the file)")


def add_engine_args(p: argparse.ArgumentParser) -> None:
    """Add ``--engine {fast, exact}`` (default fast: draw the aggregate directly; exact: run every client).

    Parameters
    ----------
    p : argparse.ArgumentParser
        The subcommand's parser.
    """
    p.add_argument("--engine", choices=ENGINES, default="fast",
                   help="fast (draw the aggregate directly) or exact (run every client); default fast")


def add_output_args(p: argparse.ArgumentParser, formats: Sequence[str], default: str) -> None:
    """Add ``--format/-f`` (one of ``formats``) and ``--output/-o FILE`` (written atomically instead of stdout).

    Parameters
    ----------
    p : argparse.ArgumentParser
        The subcommand's parser.
    formats : sequence of str
        The formats the command writes (e.g. ``("json", "csv")``).
    default : str
        The default format (one of ``formats``).
    """
    p.add_argument("--format", "-f", choices=formats, default=default, help=f"output format (default {default})")
    p.add_argument("--output", "-o", metavar="FILE", help="write to FILE (atomically) instead of stdout")


# --------------------------------------------------------------------------- mechanisms and estimators
def parse_params(cls: type[Mechanism], items: Sequence[str], epsilon_1: float | None = None) -> dict[str, Any]:
    """``KEY=VALUE`` strings → the mechanism's own parameters, typed by its Param table.

    Keys are case-insensitive and ``-`` reads as ``_``; the values are parsed (not range-checked: the mechanism's
    constructor checks them).

    Parameters
    ----------
    cls : type of Mechanism
        The mechanism class whose ``own_parameters()`` the keys must name.
    items : sequence of str
        The ``--param`` values, e.g. ``["g=5"]``.
    epsilon_1 : float, optional
        ``--epsilon-1``: added as ``epsilon_1`` (longitudinal mechanisms only); None: not given.

    Returns
    -------
    dict
        Parameter name → typed value.

    Raises
    ------
    UsageError
        An item that is not KEY=VALUE, ε or d given as a parameter, an unknown or repeated key, ``--epsilon-1`` for
        a mechanism that is not longitudinal or given twice.
    InvalidInput
        A value that does not parse as the parameter's type.
    """
    table = {p.name: p for p in cls.own_parameters()}
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip().lower().replace("-", "_")
        if not sep or not key or not value.strip():
            raise UsageError(f"--param expects KEY=VALUE, got {item!r}")
        if key in ("epsilon", "eps", "d"):
            raise UsageError(f"set {key} with --epsilon / --domain-size / --buckets, not --param")
        if key not in table:
            raise UsageError(f"{cls.name} has no parameter {key!r}; its parameters: {', '.join(table) or 'none'}")
        if key in out:
            raise UsageError(f"parameter {key} given twice")
        out[key] = table[key].parse(value.strip())
    if epsilon_1 is not None:
        if cls.collection != "longitudinal":
            longitudinal = [m.name for m in MECHANISMS if m.collection == "longitudinal"]
            raise UsageError(f"--epsilon-1 applies only to longitudinal mechanisms ({', '.join(longitudinal)}); "
                             f"{cls.name} is not one")
        if "epsilon_1" in out:
            raise UsageError("give ε1 once: --epsilon-1 or --param epsilon_1=..., not both")
        out["epsilon_1"] = epsilon_1
    return out


def mechanism_class(args: argparse.Namespace) -> type[Mechanism]:
    """The mechanism class of ``--mechanism``, its parameters checked before any file is read.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options; reads ``mechanism``, ``param`` and ``epsilon_1``.

    Returns
    -------
    type of Mechanism
        The registered class.

    Raises
    ------
    InvalidInput
        An unknown mechanism name, or a ``--param`` value of the wrong type.
    UsageError
        Bad ``--param``/``--epsilon-1`` (see :func:`parse_params`).
    """
    cls = MECHANISMS.get(args.mechanism)
    parse_params(cls, args.param, args.epsilon_1)
    return cls


def build_mechanism(args: argparse.Namespace, d: int | None) -> Mechanism:
    """The mechanism of ``--mechanism/--epsilon/--epsilon-1/--param`` with domain parameter ``d``.

    A local-hashing mechanism also checks up front that its prime is small enough to count with.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options; reads ``mechanism``, ``epsilon``, ``param`` and ``epsilon_1``.
    d : int, optional
        The domain parameter (values, buckets or dimension); None: the mechanism's default.

    Returns
    -------
    Mechanism
        The constructed mechanism.

    Raises
    ------
    LDPError
        An unknown mechanism or a parameter (ε, d, ``--param``) the mechanism refuses (:class:`InvalidInput`), a
        bad ``--param``/``--epsilon-1`` (:class:`UsageError`).
    """
    cls = MECHANISMS.get(args.mechanism)
    mech = get_mechanism(cls.name, args.epsilon, d, **parse_params(cls, args.param, args.epsilon_1))
    check = getattr(mech, "check_countable", None)  # local hashing: a prime too large to count with, up front
    if check is not None:
        check()
    return mech


def estimator_params(items: Sequence[str], names: Sequence[str]) -> dict[str, dict[str, Any]]:
    """``EST.KEY=VALUE`` strings → estimator name → its parameters (typed by its Param table).

    Parameters
    ----------
    items : sequence of str
        The ``--estimator-param`` values, e.g. ``["ibu.max_iter=100"]``.
    names : sequence of str
        The estimators the command runs (``--estimators``); every EST must be one of them.

    Returns
    -------
    dict
        Estimator name → {parameter name → typed value} (only the estimators that got a parameter).

    Raises
    ------
    UsageError
        An item not of the form EST.KEY=VALUE, an estimator not among ``names``, an unknown or repeated key.
    InvalidInput
        An unknown estimator name, or a value that does not parse as the parameter's type.
    """
    out: dict[str, dict[str, Any]] = {}
    for item in items:
        target, sep, value = item.partition("=")
        name, dot, key = target.rpartition(".")
        name, key = name.strip().lower(), key.strip().lower().replace("-", "_")
        if not sep or not dot or not name or not key or not value.strip():
            raise UsageError(f"--estimator-param expects EST.KEY=VALUE, got {item!r}")
        cls = ESTIMATORS.get(name)
        if name not in names:
            raise UsageError(f"--estimator-param {item!r}: estimator {name} is not among --estimators")
        table = {p.name: p for p in cls.parameters}
        if key not in table:
            raise UsageError(f"estimator {name} has no parameter {key!r}; its parameters: "
                             f"{', '.join(table) or 'none'}")
        if key in out.setdefault(name, {}):
            raise UsageError(f"estimator parameter {name}.{key} given twice")
        out[name][key] = table[key].parse(value.strip())
    return out

