"""The ``ldp lecture`` subcommand: the Learn page's lecture items (:mod:`ldp.studies.lecture`) from the command line —
GRR's p and q beside the lecture's printed table, the unary-encoding worked example in exact fractions, sequential
composition on GRR's exact channel, central DP vs LDP noise on a count and Hoeffding/Bernstein bounds beside the exact
intervals. Parses the flags and does I/O only; bad input is one ``error:`` line and exit status 2."""

from __future__ import annotations

import argparse
import inspect
import math
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd

from ldp.cli.commands import MAX_USERS
from ldp.cli.options import UsageError, add_output_args, count, number_list, split_list
from ldp.cli.render import Output, finite_or_none, fmt, render, text_table
from ldp.core.registry import MECHANISMS
from ldp.studies.lecture import (
    DP_VS_LDP_MECHANISMS,
    LECTURE_GRR_DOMAINS,
    LECTURE_GRR_EPSILONS,
    LECTURE_UE_P,
    LOSS_RTOL,
    bound_widths,
    composition_table,
    dp_vs_ldp_curves,
    dp_vs_ldp_simulation,
    grr_probability_table,
    unary_example,
)
from ldp.studies.mean_variance import binned_mean_pitfall

__all__ = ["ITEMS", "add_lecture_command"]

#: The Learn page's defaults where the study function has none: its sidebar's ε and d, the users of its central-DP
#: vs LDP simulation and the (n, ε) grid of its bounds section (views/learn.py).
DEFAULT_EPSILON, DEFAULT_D = 1.0, 4
DEFAULT_DP_USERS = (1_000, 100_000)
DEFAULT_BOUND_USERS, DEFAULT_BOUND_EPSILONS = (100, 1_000, 10_000, 100_000), (0.5, 1.0, 2.0, 4.0)
DEFAULT_BOUND_MECHANISM = "grr"

#: Bounds on the work of one command, checked before it starts ("every command bounded"). ``bound_widths`` computes
#: intervals for all d values at each (ε, n): ~13 µs per value, so 2^20 values take ~15 s; the simulation draws
#: trials × n-values × (mechanisms + 1) aggregates of d counts, ~0.15 µs per count, so 10^8 take ~15 s.
MAX_LIST = 1_000
MAX_GRR_CELLS = 10_000
MAX_BOUND_WORK = 2**20
MAX_SIMULATION_WORK = 10**8
MAX_TRIALS = 100_000


def _default(func: Callable[..., Any], name: str) -> Any:
    """A study function's own default for ``name`` (one source of truth for the defaults the CLI reports)."""
    return inspect.signature(func).parameters[name].default


@dataclass(frozen=True)
class LectureItem:
    """One item of the Learn page: its name on the command line, what it shows, the options it reads and the function
    computing its output from the parsed arguments."""

    name: str
    help: str
    options: tuple[str, ...]  # argparse dests the item reads; any other given option is refused
    run: Callable[[argparse.Namespace], Output]


# --------------------------------------------------------------------------- parsing
def _epsilons(args: argparse.Namespace, default: Sequence[float]) -> list[float]:
    if args.epsilon is None:
        return [float(e) for e in default]
    values = _bounded(number_list(args.epsilon, float, "--epsilon"), "--epsilon")
    bad = [e for e in values if not e > 0]
    if bad:
        raise UsageError(f"--epsilon must be positive, got {bad[0]:g}")
    return values


def _domains(args: argparse.Namespace, default: Sequence[int]) -> list[int]:
    if args.d is None:
        return [int(d) for d in default]
    values = _bounded(number_list(args.d, int, "--d"), "--d")
    bad = [d for d in values if d < 2]
    if bad:
        raise UsageError(f"--d (the domain size) must be at least 2, got {bad[0]}")
    return values


def _users(args: argparse.Namespace, default: Sequence[int]) -> list[int]:
    if args.users is None:
        return list(default)
    try:
        values = [count(x) for x in split_list(args.users)]
    except argparse.ArgumentTypeError:
        raise UsageError(f"--users expects a comma-separated list of whole numbers, got {args.users!r}") from None
    values = _bounded(values, "--users")
    bad = [n for n in values if not 1 <= n <= MAX_USERS]
    if bad:
        raise UsageError(f"--users must lie in [1, {MAX_USERS:.0e}], got {bad[0]}")
    return values


def _bounded(values: list[Any], flag: str) -> list[Any]:
    if not values:
        raise UsageError(f"{flag} is empty")
    if len(values) > MAX_LIST:
        raise UsageError(f"{flag} lists {len(values):,} values; at most {MAX_LIST:,}")
    twice = next((v for i, v in enumerate(values) if v in values[:i]), None)
    if twice is not None:
        raise UsageError(f"{flag} lists {twice:g} twice" if isinstance(twice, float) else f"{flag} lists {twice} twice")
    return values


def _one(values: list[Any], flag: str, item: str) -> Any:
    if len(values) != 1:
        raise UsageError(f"{flag} takes one value for {item}, got {len(values)}")
    return values[0]


def _fraction(text: str) -> Fraction:
    try:
        return Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        raise UsageError(f"--p expects a fraction such as 4/5 (or a decimal), got {text!r}") from None


def _pure_oracles(text: str | None, default: Sequence[str]) -> list[str]:
    names = list(default) if text is None else _bounded(split_list(text), "--mechanism")
    for name in names:
        if not getattr(MECHANISMS.get(name), "pure", False):  # unknown names raise the registry's one line
            pure = ", ".join(m.name for m in MECHANISMS if getattr(m, "pure", False))
            raise UsageError(f"--mechanism {name}: not a pure frequency oracle (these are: {pure})")
    return _bounded([MECHANISMS.get(name).name for name in names], "--mechanism")


# --------------------------------------------------------------------------- rendering
def _plain(value: Any) -> Any:
    """A table cell as JSON: numpy scalars as Python numbers, NaN and infinities as null."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float):
        return finite_or_none(value)
    return value


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    return [{k: _plain(v) for k, v in row.items()} for row in frame.to_dict("records")]


def _cell(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return fmt(value)
    return str(value)


def _output(item: str, settings: dict[str, Any], frame: pd.DataFrame, preamble: str = "",
            **extra: Any) -> Output:
    rows = _records(frame)
    return Output({"item": item, "settings": settings, **extra, "rows": rows}, headers=list(frame.columns),
                  table=[[_cell(v) for v in row.values()] for row in rows], preamble=preamble)


# --------------------------------------------------------------------------- the items
def _grr_table(args: argparse.Namespace) -> Output:
    epsilons, domains = _epsilons(args, LECTURE_GRR_EPSILONS), _domains(args, LECTURE_GRR_DOMAINS)
    if len(epsilons) * len(domains) > MAX_GRR_CELLS:
        raise UsageError(f"{len(epsilons)} ε × {len(domains)} d = {len(epsilons) * len(domains):,} cells; at most "
                         f"{MAX_GRR_CELLS:,}")
    table = grr_probability_table(epsilons, domains)
    printed = table[table["lecture p"] != ""]
    off = printed[printed["agrees"] == False]  # noqa: E712 (None: no printed value)
    note = (f"{len(off)} of the lecture's {len(printed)} printed values do not follow from the formula: "
            + "; ".join(f"ε = {r['ε']:g}, d = {r['d']:,}: {r['p']:.4g}, printed {r['lecture p']}"
                        for _, r in off.iterrows())
            if len(off) else f"all {len(printed)} of the lecture's printed values agree with the formula")
    preamble = (f"GRR: p = e^ε/(e^ε + d − 1), q = 1/(e^ε + d − 1); 'agrees': our p cut to the printed digits reads the "
                f"lecture's value (the slide truncates). {note}.\n")
    return _output("grr-table", {"epsilons": epsilons, "domains": domains}, table, preamble)


def _ue_example(args: argparse.Namespace) -> Output:
    ex = unary_example(p=LECTURE_UE_P if args.p is None else _fraction(args.p))
    rows = [{"v": v + 1, "true count": n_v, "observed I_v": i_v, "I_v - n q": str(m), "I_v - n q (value)": float(m),
             "estimate c(v)": str(c), "estimate c(v) (value)": float(c), "SUE mechanism's estimate": float(e)}
            for v, (n_v, i_v, m, c, e) in enumerate(zip(ex.truth, ex.observed, ex.minus_nq, ex.estimate,
                                                        ex.engine_estimate, strict=True))]
    users = [{"user": u + 1, "value": v + 1, "encoding": [int(b) for b in x], "report": [int(b) for b in y]}
             for u, (v, x, y) in enumerate(zip(ex.values, ex.encoded, ex.reports, strict=True))]
    settings = {"p": str(ex.p), "q": str(ex.q), "p (value)": float(ex.p), "q (value)": float(ex.q),
                "epsilon": ex.epsilon, "users": ex.n, "d": len(ex.truth)}
    user_table = text_table([[str(u["user"]), str(u["value"]), str(u["encoding"]), str(u["report"])] for u in users],
                            ["USER", "VALUE v", "ENCODING x", "REPORT y"])
    preamble = (f"symmetric unary encoding: p = {ex.p}, q = {ex.q}, ε = 2 ln(p/q) = {ex.epsilon:.4g}; "
                f"c(v) = (I_v − n q)/(p − q) with n q = {ex.n * ex.q}, p − q = {ex.p - ex.q}\n{user_table}\n")
    return _output("ue-example", settings, pd.DataFrame(rows), preamble, users=users,
                   estimate=[str(c) for c in ex.estimate], estimate_values=[float(c) for c in ex.estimate])


def _composition(args: argparse.Namespace) -> Output:
    eps = _one(_epsilons(args, [DEFAULT_EPSILON]), "--epsilon", "composition")
    d = _one(_domains(args, [DEFAULT_D]), "--d", "composition")
    max_reports = _default(composition_table, "max_reports") if args.max_reports is None else args.max_reports
    if max_reports < 1:
        raise UsageError(f"--max-reports must be a positive integer, got {max_reports}")
    table = composition_table(eps, d, max_reports)
    equal = bool(np.allclose(table["loss: k reports at ε"], table["loss: one report at kε"], rtol=LOSS_RTOL, atol=0))
    preamble = (f"GRR, ε = {eps:g} per report, d = {d}: k reports at ε against one report at kε, k = 1 … "
                f"{int(table['reports k'].max())}"
                + (f" (of {max_reports} asked: d^k or kε grew beyond what the exact channel allows)"
                   if len(table) < max_reports else "")
                + f"; privacy losses {'equal (kε)' if equal else 'DIFFER'}; the attacker's success need not be.\n")
    return _output("composition", {"epsilon": eps, "d": d, "max_reports": max_reports}, table, preamble,
                   equal_losses=equal)


def _dp_vs_ldp(args: argparse.Namespace) -> Output:
    eps = _one(_epsilons(args, [DEFAULT_EPSILON]), "--epsilon", "dp-vs-ldp")
    d = _one(_domains(args, [DEFAULT_D]), "--d", "dp-vs-ldp")
    users = _users(args, DEFAULT_DP_USERS)
    names = _pure_oracles(args.mechanism, DP_VS_LDP_MECHANISMS)
    trials = _default(dp_vs_ldp_simulation, "trials") if args.trials is None else args.trials
    seed = _default(dp_vs_ldp_simulation, "seed") if args.seed is None else args.seed
    if not (trials == 0 or 2 <= trials <= MAX_TRIALS):
        raise UsageError(f"--trials must be 0 (closed forms only) or lie in [2, {MAX_TRIALS:,}], got {trials}")
    work = trials * len(users) * (len(names) + 1) * d
    if work > MAX_SIMULATION_WORK:
        raise UsageError(f"the simulation would draw {work:,} counts (trials × users values × (mechanisms + 1) "
                         f"× d), more than {MAX_SIMULATION_WORK:,}: lower --trials or --d, or --trials 0 for the "
                         "closed forms")
    table = dp_vs_ldp_curves(eps, d, users, names)
    table["n"] = table["n"].astype("int64")
    if trials:
        sim = dp_vs_ldp_simulation(eps, d, users, names, trials=trials, seed=seed)
        table = table.merge(sim[["n", "method", "simulated σ", "simulated / closed form", "relative SE"]],
                            on=["n", "method"], how="left", validate="one_to_one")
    preamble = (f"σ of a count at ε = {eps:g}, d = {d}: central Laplace √2/ε = Θ(1), LDP √(n Var) = Θ(√n)"
                + (f"; simulated: {trials} collections per n, seed {seed} (the count of a value nobody holds)"
                   if trials else "") + ".\n")
    return _output("dp-vs-ldp", {"epsilon": eps, "d": d, "users": users, "mechanisms": names, "trials": trials,
                                 "seed": seed}, table, preamble)


def _bounds(args: argparse.Namespace) -> Output:
    name = _one(_pure_oracles(args.mechanism, [DEFAULT_BOUND_MECHANISM]), "--mechanism", "bounds")
    d = _one(_domains(args, [DEFAULT_D]), "--d", "bounds")
    epsilons, users = _epsilons(args, DEFAULT_BOUND_EPSILONS), _users(args, DEFAULT_BOUND_USERS)
    level = _default(bound_widths, "level") if args.level is None else args.level
    if not 0 < level < 1:
        raise UsageError(f"--level must lie strictly between 0 and 1, got {level:g}")
    work = len(epsilons) * len(users) * d
    if work > MAX_BOUND_WORK:
        raise UsageError(f"{len(epsilons)} ε × {len(users)} n × d = {d:,} is {work:,} interval computations, more than "
                         f"{MAX_BOUND_WORK:,}: lower --d or list fewer values")
    table = bound_widths(name, d, users, epsilons, level)
    preamble = (f"{level:.0%} interval widths for one value's frequency ({name}, d = {d}, n users spread evenly): "
                "Hoeffding and Bernstein hold for any frequency, ours are the package's intervals.\n")
    return _output("bounds", {"mechanism": name, "d": d, "epsilons": epsilons, "users": users, "level": level},
                   table, preamble)


def _two_bins(args: argparse.Namespace) -> Output:
    eps = _one(_epsilons(args, [DEFAULT_EPSILON]), "--epsilon", "two-bins")
    users = _one(_users(args, [_default(binned_mean_pitfall, "users")]), "--users", "two-bins")
    value = _default(binned_mean_pitfall, "value")
    table = binned_mean_pitfall(value=value, epsilon=eps, users=users)
    preamble = (f"every one of {users:,} users holds {value:g}; the mean read off an OUE histogram of k bins over "
                f"[−1, 1] at ε = {eps:g} against Stochastic Rounding (the lecture's pitfall: two bins put it at "
                "0.5).\n")
    return _output("two-bins", {"epsilon": eps, "users": users, "value": value}, table, preamble)


ITEMS: dict[str, LectureItem] = {item.name: item for item in (
    LectureItem("grr-table", "GRR's p and q for every (ε, d) beside the lecture's printed table",
                ("epsilon", "d"), _grr_table),
    LectureItem("ue-example", "the unary-encoding worked example in exact fractions", ("p",), _ue_example),
    LectureItem("composition", "k reports at ε against one at kε: privacy loss and attacker accuracy",
                ("epsilon", "d", "max_reports"), _composition),
    LectureItem("dp-vs-ldp", "central DP vs LDP noise on a count (closed forms and a simulation)",
                ("epsilon", "d", "users", "mechanism", "trials", "seed"), _dp_vs_ldp),
    LectureItem("bounds", "Hoeffding and Bernstein interval widths beside the exact intervals",
                ("epsilon", "d", "users", "mechanism", "level"), _bounds),
    LectureItem("two-bins", "the mean through a histogram of k bins (the lecture's two-bin pitfall) against SR",
                ("epsilon", "users"), _two_bins),
)}

#: Every item option: argparse dest → its flag (to name a refused one).
FLAGS = {"epsilon": "--epsilon", "d": "--d", "users": "--users", "max_reports": "--max-reports",
         "mechanism": "--mechanism", "p": "--p", "trials": "--trials", "seed": "--seed", "level": "--level"}

_DEFAULTS = (
    f"Defaults: grr-table the lecture's ε ∈ {{{', '.join(f'{e:g}' for e in LECTURE_GRR_EPSILONS)}}} × d ∈ "
    f"{{{', '.join(map(str, LECTURE_GRR_DOMAINS))}}} (--epsilon and --d take lists); ue-example p = {LECTURE_UE_P} "
    "(--p a fraction such as 4/5, on the lecture's five reports); composition, dp-vs-ldp and bounds "
    f"ε = {DEFAULT_EPSILON:g}, d = {DEFAULT_D} (the Learn page's sidebar); composition --max-reports "
    f"{_default(composition_table, 'max_reports')}; dp-vs-ldp --users {','.join(map(str, DEFAULT_DP_USERS))}, "
    f"--mechanism {','.join(DP_VS_LDP_MECHANISMS)}, --trials {_default(dp_vs_ldp_simulation, 'trials')} (0: closed "
    f"forms only), --seed {_default(dp_vs_ldp_simulation, 'seed')}; bounds --mechanism {DEFAULT_BOUND_MECHANISM}, "
    f"--epsilon {','.join(f'{e:g}' for e in DEFAULT_BOUND_EPSILONS)}, "
    f"--users {','.join(map(str, DEFAULT_BOUND_USERS))}, "
    f"--level {_default(bound_widths, 'level')}.")
_KEYS = ("json keys: item, settings, rows (the table's rows, keyed by its column names); ue-example also users (value, "
         "encoding, report), estimate (the exact fractions as strings, e.g. \"10/3\") and estimate_values (floats), "
         "its rows giving each fraction as a string beside its float \"(value)\"; composition also equal_losses.")
EPILOG = "items:\n" + "".join(
    textwrap.fill(f"{item.name:<12} {item.help}; options: {', '.join(FLAGS[o] for o in item.options)}", 110,
                  initial_indent="  ", subsequent_indent=" " * 15) + "\n" for item in ITEMS.values()
) + "\n" + textwrap.fill(_DEFAULTS, 110) + "\n" + textwrap.fill(_KEYS, 110) + "\n"


def add_lecture_command(sub: argparse._SubParsersAction) -> None:
    """Register ``ldp lecture ITEM`` on the subcommands ``sub``.

    Parameters
    ----------
    sub
        The ``ldp`` parser's subparsers.
    """
    p = sub.add_parser("lecture", help="the lecture's items: grr-table, ue-example, composition, dp-vs-ldp, bounds, "
                                       "two-bins", epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("item", choices=list(ITEMS), metavar="ITEM", help=f"one of {', '.join(ITEMS)}")
    p.add_argument("--epsilon", "-e", metavar="E[,E...]", help="privacy budget ε > 0 (a list for grr-table, bounds)")
    p.add_argument("--d", "-d", dest="d", metavar="D[,D...]", help="domain size d ≥ 2 (a list for grr-table)")
    p.add_argument("--users", "--ns", "-n", dest="users", metavar="N[,N...]", help="numbers of users n")
    p.add_argument("--max-reports", dest="max_reports", type=int, metavar="K", help="composition: largest k")
    p.add_argument("--mechanism", "-m", metavar="M", help="a pure frequency oracle (a list for dp-vs-ldp)")
    p.add_argument("--p", dest="p", metavar="FRACTION", help="ue-example: keep probability p, e.g. 4/5")
    p.add_argument("--trials", "-t", type=int, metavar="T", help="dp-vs-ldp: simulated collections per n")
    p.add_argument("--seed", "-s", type=int, metavar="S", help="dp-vs-ldp: seed of the simulation")
    p.add_argument("--level", type=float, metavar="L", help="bounds: confidence level (default 0.95)")
    add_output_args(p, ("json", "table"), "json")
    p.set_defaults(func=cmd_lecture)


def cmd_lecture(args: argparse.Namespace) -> int:
    """Compute one lecture item and write it as JSON or a text table.

    Parameters
    ----------
    args
        The parsed ``ldp lecture`` arguments.

    Returns
    -------
    int
        The exit status, 0.
    """
    item = ITEMS[args.item]
    refused = [FLAGS[o] for o in FLAGS if o not in item.options and getattr(args, o) is not None]
    if refused:
        raise UsageError(f"{', '.join(refused)} does not apply to {item.name} (its options: "
                         f"{', '.join(FLAGS[o] for o in item.options)})")
    render(item.run(args), args.format, args.output)
    return 0
