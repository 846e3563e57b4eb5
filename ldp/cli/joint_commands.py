"""The ``ldp joint`` subcommand: the joint distribution of 2 or 3 columns (:mod:`ldp.studies.joint`) and, with
``--queries``, the error of random 2-D range queries (:mod:`ldp.studies.joint_ranges`). Parses the flags and does
I/O only; bad input is one ``error:`` line and exit status 2."""

from __future__ import annotations

import argparse
import math

from ldp.cli.options import UsageError, add_output_args, count, split_list
from ldp.cli.render import Output, fmt, render
from ldp.core.streams import rng_for
from ldp.data.joint import JOINT_SPECS, joint_from_table, joint_synthetic
from ldp.data.loaders import load_table
from ldp.data.samples import load_sample
from ldp.engines import ENGINES
from ldp.studies.joint import (
    DEFAULT_POSTPROCESS,
    JOINT_METHODS,
    SPLIT_BUDGETS,
    advise_joint,
    dependence,
    estimate_joint,
)
from ldp.studies.joint_ranges import with_range_mse

__all__ = ["add_joint_command"]

DEFAULT_SYNTHETIC_USERS = 100_000
EPILOG = f"""\
methods: {'; '.join(f'{m.name}: {m.description}' for m in JOINT_METHODS)}.
Default method: the advisor's (closed-form variances; split is never chosen without an estimate of the dependence,
since it assumes independence). Synthetic specs: {'; '.join(f'{k}: {v}' for k, v in JOINT_SPECS.items())}.
Columns of --data/--sample are categorical (their distinct values) unless --buckets a=B cuts a numerical column into
B equal-width bins over --range a=LO:HI (default its min..max; values outside are clipped). Without --users every
row holding all the columns is a user; --synthetic draws --users users (default {DEFAULT_SYNTHETIC_USERS:,}).
json keys: method, columns, labels, settings, diagnostics, advice (method, reasoning, predicted squared L2 errors),
metrics (tvd, mse, [range_mse] against the users' true joint distribution), estimate and true (lists of
{{column: label, ..., "frequency": f}}), source, seed.
"""


def add_joint_command(sub: argparse._SubParsersAction) -> None:
    """Register ``ldp joint``: the joint distribution of 2 or 3 columns (``--method`` product, split, calm or hdg;
    default the advisor's choice) and, with ``--queries``, the error of random 2-D range queries.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The ``ldp`` subcommands; the ``joint`` parser is added there.
    """
    p = sub.add_parser("joint", help="the joint distribution of 2 or 3 columns (product, split, calm, hdg)",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--method", choices=JOINT_METHODS.names(), help="default: the advisor's choice")
    p.add_argument("--epsilon", "-e", type=float, required=True, metavar="E")
    g = p.add_argument_group("population (one of --data, --sample, --synthetic)")
    g.add_argument("--data", metavar="FILE", help="CSV (.csv/.tsv/.txt, optionally .gz) or Parquet table")
    g.add_argument("--sample", metavar="NAME", help="a bundled sample table, e.g. planes or election")
    g.add_argument("--columns", metavar="A,B[,C]", help="2 or 3 columns of --data/--sample")
    g.add_argument("--synthetic", metavar="SPEC", help="e.g. correlated:d1=10,d2=10,rho=0.8")
    g.add_argument("--buckets", metavar="A=B,...", help="cut numerical columns into B equal-width bins")
    g.add_argument("--range", dest="ranges", metavar="A=LO:HI,...", help="the bins' range per column")
    p.add_argument("--users", "-n", type=count, metavar="N", help="users drawn from the data's joint distribution")
    p.add_argument("--queries", type=int, metavar="K", help="score K random 2-D range queries (range_mse)")
    p.add_argument("--engine", choices=ENGINES, default="fast", help="simulation engine of every oracle (default fast)")
    p.add_argument("--oracle", metavar="NAME", help="frequency oracle of every collection (default: GRR or OLH)")
    p.add_argument("--postprocess", default=DEFAULT_POSTPROCESS, metavar="EST",
                   help=f"estimator of every oracle's estimate (default {DEFAULT_POSTPROCESS}; mi: unbiased)")
    p.add_argument("--budget", choices=SPLIT_BUDGETS, default="users",
                   help="split: users split across the columns (default) or every user reports all at eps/k")
    p.add_argument("--seed", type=int, default=0)
    add_output_args(p, ("json", "table"), "json")
    p.set_defaults(func=cmd_joint)


def _pairs(text: str | None, flag: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in split_list(text or ""):
        key, eq, value = item.partition("=")
        if not eq or not key.strip() or not value.strip():
            raise UsageError(f"{flag} expects COLUMN=VALUE items, got {item!r}")
        out[key.strip()] = value.strip()
    return out


def _buckets(text: str | None) -> dict[str, int]:
    out = {}
    for key, value in _pairs(text, "--buckets").items():
        if not value.isdigit() or int(value) < 2:
            raise UsageError(f"--buckets {key}={value}: the number of bins must be a whole number ≥ 2")
        out[key] = int(value)
    return out


def _ranges(text: str | None) -> dict[str, tuple[float, float]]:
    out = {}
    for key, value in _pairs(text, "--range").items():
        lo, colon, hi = value.partition(":")
        try:
            bounds = (float(lo), float(hi))
        except ValueError:
            bounds = (math.nan, math.nan)
        if not colon or not all(math.isfinite(b) for b in bounds) or bounds[0] >= bounds[1]:
            raise UsageError(f"--range {key}={value}: expected LO:HI with finite LO < HI")
        out[key] = bounds
    return out


def _population(args: argparse.Namespace):
    given = [x is not None for x in (args.data, args.sample, args.synthetic)]
    if sum(given) != 1:
        raise UsageError("give exactly one of --data FILE, --sample NAME or --synthetic SPEC")
    if args.users is not None and args.users < 1:
        raise UsageError(f"--users must be a positive integer, got {args.users}")
    if args.synthetic is not None:
        if args.columns or args.buckets or args.ranges:
            raise UsageError("--columns, --buckets and --range apply to --data/--sample, not --synthetic")
        pop, _ = joint_synthetic(args.synthetic, args.users or DEFAULT_SYNTHETIC_USERS, rng_for(args.seed, "joint",
                                                                                                 "population"))
        return pop, {"synthetic": args.synthetic}
    columns = split_list(args.columns or "")
    if not columns:
        raise UsageError("--columns is required with --data/--sample (2 or 3 columns, comma-separated)")
    table, source = ((load_table(args.data), {"data": str(args.data)}) if args.data is not None
                     else (load_sample(args.sample), {"sample": str(args.sample)}))
    pop = joint_from_table(table, columns, buckets=_buckets(args.buckets), ranges=_ranges(args.ranges),
                           source=args.data or args.sample)
    rows = pop.n  # rows holding every column
    if args.users is not None:
        pop = pop.with_users(args.users, rng_for(args.seed, "joint", "population"))
    return pop, {**source, "rows": rows}


def cmd_joint(args: argparse.Namespace) -> int:
    if args.queries is not None and args.queries < 1:
        raise UsageError(f"--queries must be a positive integer, got {args.queries}")
    if args.budget != "users" and args.method != "split":
        raise UsageError("--budget applies to --method split")
    pop, source = _population(args)
    if args.queries is not None and len(pop.shape) != 2:
        raise UsageError(f"--queries needs 2 columns (2-D range queries), got {len(pop.shape)}")
    advice = advise_joint(pop.shape, pop.n, args.epsilon, oracle=args.oracle)
    options = {"budget": args.budget} if args.method == "split" else {}
    res = estimate_joint(pop, args.epsilon, args.method or advice.method, seed=args.seed, engine=args.engine,
                         oracle=args.oracle, postprocess=args.postprocess, **options)
    if args.queries is not None:
        res = with_range_mse(res, args.queries, rng_for(args.seed, "joint", "queries"))
    data = {"method": res.method, "columns": list(res.columns), "labels": [list(lab) for lab in res.labels],
            "settings": dict(res.settings), "diagnostics": dict(res.diagnostics),
            "advice": {"method": advice.method, "reasoning": advice.reasoning, "predicted": dict(advice.predicted)},
            "metrics": dict(res.metrics), "estimate": res.rows(),
            "true": res.rows(res.truth), "source": {**source, "true_dependence": dependence(res.truth)},
            "seed": args.seed}
    table = [[*cell, fmt(e["frequency"]), fmt(t["frequency"])]
             for e, t, cell in zip(data["estimate"], data["true"], _cells(data["estimate"], res.columns), strict=True)]
    metrics = ", ".join(f"{k} {v:.4g}" for k, v in res.metrics.items())
    preamble = (f"{res.method}, epsilon = {args.epsilon:g}, {pop.n:,} users, domain "
                f"{' x '.join(map(str, pop.shape))}: {metrics}\nadvice: {advice.reasoning}\n"
                + (f"assumes: {res.diagnostics['assumes']}\n" if "assumes" in res.diagnostics else ""))
    render(Output(data, headers=[*(c.upper() for c in res.columns), "ESTIMATE", "TRUE"], table=table,
                  preamble=preamble), args.format, args.output)
    return 0


def _cells(rows: list[dict], columns: tuple[str, ...]) -> list[list[str]]:
    return [[str(row[c]) for c in columns] for row in rows]
