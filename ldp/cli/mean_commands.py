"""The ``ldp mean`` subcommand: the means of one or more numerical columns, every row a user holding all of them
(a vector), randomized by a vector mechanism (:mod:`ldp.mechanisms.vector`) — the lecture's "means of numbers and
vectors". Parses nothing itself beyond the flags; bad input is one ``error:`` line and exit status 2.
"""

from __future__ import annotations

import argparse

from ldp.cli.options import UsageError, add_output_args, parse_range, split_list
from ldp.cli.population import sample_source
from ldp.cli.render import Output, fmt, render
from ldp.data.loaders import load_table
from ldp.data.samples import load_sample
from ldp.mechanisms import mechanisms_of
from ldp.mechanisms.vector import vector_mechanism
from ldp.studies.vector_means import collect_means

__all__ = ["add_mean_command"]

MEAN_EPILOG = f"""\
Every row of the table is a user holding the --columns (a row with a missing value is left out). Each column is
mapped from --range LO,HI (one public range for every column; default: each column's own min and max) to [-1, 1].
Mechanisms: {', '.join(c.name for c in mechanisms_of("vector"))} — split-laplace, split-sr, split-pm and
split-hm split the budget over the columns (epsilon/d each), kd-pm and kd-hm report k = max(1, min(d,
floor(epsilon/2.5))) columns at epsilon/k (Wang et al., ICDE 2019), harmony and sample-pm one column at epsilon,
duchi all columns in one corner of the cube (Duchi et al.), gaussian-vector Gaussian noise on every column,
calibrated for (epsilon, delta) at the L2 sensitivity 2*sqrt(d) (not pure epsilon-LDP; delta = 1e-5). The mean
mechanisms laplace, sr, pm, hm and gaussian name their own form for several columns (split-laplace, split-sr, kd-pm,
kd-hm, gaussian-vector). Simulated with a numpy Generator from --seed.
json keys: mechanism, display_name, family, epsilon, d, users, columns, range (per column), mean (per column, in
its units), variance (the closed-form variance of each mean estimate, from the users' values), standard_error,
true_mean, [k], [delta], notes, source, seed.
"""


def add_mean_command(sub: argparse._SubParsersAction) -> None:
    """Register ``ldp mean``: the means of one or more numerical columns, each row a user's vector randomized by a
    vector mechanism (or a mean mechanism's vector form).

    Parameters
    ----------
    sub : argparse._SubParsersAction
        Subparsers of the ``ldp`` parser; the ``mean`` parser joins them.
    """
    p = sub.add_parser("mean", help="the mean of one or more numerical columns (a vector per user)",
                       epilog=MEAN_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--mechanism", "-m", required=True, metavar="NAME",
                   help="a vector mechanism (or laplace, sr, pm, hm, gaussian: their form for several columns)")
    p.add_argument("--epsilon", "-e", type=float, required=True, metavar="E", help="the budget of one user's row")
    g = p.add_argument_group("data (one of --data, --sample)")
    g.add_argument("--data", metavar="FILE", help="CSV (.csv/.tsv/.txt, optionally .gz) or Parquet table")
    g.add_argument("--sample", metavar="NAME", help="a bundled sample table, e.g. flights")
    g.add_argument("--columns", required=True, metavar="A,B,...", help="the numerical columns, comma-separated")
    g.add_argument("--range", dest="value_range", metavar="LO,HI", help="public range of every column")
    g.add_argument("--clip", action="store_true", help="clip values outside --range instead of failing")
    p.add_argument("--seed", type=int, default=0, help="seed of the simulation (default 0)")
    add_output_args(p, ("json", "table"), "json")
    p.set_defaults(func=cmd_mean)


def cmd_mean(args: argparse.Namespace) -> int:
    vector_mechanism(args.mechanism, args.epsilon, 1)  # an unknown or wrong-kind name is refused before any read
    if (args.data is None) == (args.sample is None):
        raise UsageError("give exactly one of --data FILE or --sample NAME")
    columns = split_list(args.columns)
    if not columns:
        raise UsageError("--columns is empty")
    table, source = ((load_table(args.data), {"data": str(args.data)}) if args.data is not None
                     else (load_sample(args.sample), sample_source(args.sample, columns)))
    res = collect_means(args.mechanism, args.epsilon, table, columns, value_range=parse_range(args.value_range),
                        clip=args.clip, seed=args.seed)
    data = {**res.to_dict(), "source": source, "seed": args.seed}
    rows = [[c, fmt(m), fmt(se), fmt(t), f"[{fmt(lo)}, {fmt(hi)}]"]
            for c, m, se, t, (lo, hi) in zip(res.columns, res.mean, res.standard_error, res.true_mean, res.ranges,
                                             strict=True)]
    preamble = (f"{res.mechanism.display_name}, epsilon = {res.mechanism.epsilon:g}, {res.users:,} users, "
                f"{res.mechanism.d} column(s)\n")
    render(Output(data, headers=["COLUMN", "MEAN", "STD_ERROR", "TRUE_MEAN", "RANGE"], table=rows,
                  preamble=preamble), args.format, args.output)
    return 0
