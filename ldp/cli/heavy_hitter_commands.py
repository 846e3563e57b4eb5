"""The ``ldp heavy-hitters`` subcommand: the k most frequent values of a large domain (2^m values) found by a
registered protocol (:mod:`ldp.mechanisms.heavy_hitters`), scored against the truth the simulation knows. Bad input
is one ``error:`` line and exit status 2."""

from __future__ import annotations

import argparse

from ldp.cli.options import UsageError, add_output_args
from ldp.cli.population import sample_source
from ldp.cli.render import Output, fmt, render
from ldp.core.registry import PROTOCOLS
from ldp.data.loaders import get_column, load_table
from ldp.data.samples import load_sample
from ldp.data.synthetic import parse_spec
from ldp.mechanisms.heavy_hitters import get_heavy_hitter_method
from ldp.mechanisms.protocol import protocols_of
from ldp.studies.heavy_hitters import column_values, find_heavy_hitters, zipf_values

__all__ = ["add_heavy_hitter_command"]

METHODS = [c.name for c in protocols_of("heavy-hitters")]

EPILOG = f"""\
Methods: {', '.join(METHODS)}. With --data/--sample the values are the column's non-negative integers
below 2^M (missing values dropped; --users N draws N users from the rows); with --synthetic zipf:s=S,d=D the users
hold a Zipf(S) over D values placed at random positions of [0, 2^M). PEM takes --eta (bits per round; the lecture's
"more bits or fewer bits per phase?") and --threshold (keep candidates above a frequency instead of the top k);
segments and segment-pair take --segments, multiple-channel --channels. json keys: method, epsilon, bits, top_k,
users, parameters, found (best first: value, estimate), candidates_probed, rounds (prefix_bits, users, candidates,
survivors, detection_limit = 3 sd of a rare candidate's estimate), true_top_k, scores (precision, recall, f1, ncr,
mse, relative_error), notes, source, seed.
"""


def add_heavy_hitter_command(sub: argparse._SubParsersAction) -> None:
    """Register ``ldp heavy-hitters``: run a registered heavy-hitter protocol (``--method``, ``--epsilon``,
    ``--bits``, ``--top-k`` and the protocol's own flags) on a column or a synthetic Zipf population and score it
    against the true top k.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The ``ldp`` parser's subparsers, which receive the ``heavy-hitters`` parser.
    """
    p = sub.add_parser("heavy-hitters", help="find the k most frequent values of a 2^m domain",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--method", required=True, metavar="NAME", help=f"one of: {', '.join(METHODS)}")
    p.add_argument("--epsilon", "-e", type=float, required=True, metavar="E")
    p.add_argument("--bits", type=int, required=True, metavar="M", help="bits of each value (domain 2^M, M ≤ 64)")
    p.add_argument("--top-k", "-k", dest="top_k", type=int, required=True, metavar="K")
    g = p.add_argument_group("population (one of --data, --sample, --synthetic)")
    g.add_argument("--data", metavar="FILE", help="CSV or Parquet table")
    g.add_argument("--sample", metavar="NAME", help="a bundled sample table, e.g. flights (column flight)")
    g.add_argument("--column", "-c", metavar="C")
    g.add_argument("--synthetic", metavar="SPEC", help="zipf:s=1.1,d=1000 (D distinct values at random positions)")
    p.add_argument("--users", "-n", type=int, metavar="N", help="users (default: every row; required with --synthetic)")
    p.add_argument("--eta", type=int, help="PEM: bits added per round (default 4)")
    p.add_argument("--threshold", type=float, help="PEM: keep candidates above this frequency")
    p.add_argument("--segments", type=int, help="segments, segment-pair: number of segments (default 4)")
    p.add_argument("--channels", type=int, help="multiple-channel: number of channels (default 64)")
    p.add_argument("--groups", choices=("uniform", "optimised"),
                   help="PEM: equal groups (default) or the solved bits per round and group sizes")
    p.add_argument("--oracle", metavar="NAME",
                   help="pem, treehist, segments, segment-pair: each round's frequency oracle (default olh)")
    p.add_argument("--keep", type=int, help="privtrie: nodes kept per level (default 2k)")
    p.add_argument("--seed", type=int, default=0)
    add_output_args(p, ("json", "table"), "json")
    p.set_defaults(func=cmd_heavy_hitters)


def _params(args: argparse.Namespace) -> dict:
    flags = ("eta", "threshold", "segments", "channels", "groups", "oracle", "keep")
    given = {k: getattr(args, k) for k in flags if getattr(args, k) is not None}
    allowed = {p.name for p in PROTOCOLS.get(args.method).declared_parameters} - {"bits", "top_k", "start"}
    extra = set(given) - allowed
    if extra:
        raise UsageError(" and ".join(f"--{e}" for e in sorted(extra)) + f" does not apply to --method {args.method}")
    return given


def _values(args: argparse.Namespace):
    chosen = [f for f, v in (("--data", args.data), ("--sample", args.sample), ("--synthetic", args.synthetic)) if v]
    if len(chosen) != 1:
        raise UsageError("give exactly one of --data FILE, --sample NAME or --synthetic SPEC")
    if args.users is not None and args.users < 1:
        raise UsageError(f"--users must be a positive integer, got {args.users}")
    if args.synthetic:
        family, spec = parse_spec(args.synthetic)
        if family != "zipf" or set(spec) - {"s", "d"}:
            raise UsageError(f"--synthetic for heavy hitters is zipf:s=S,d=D, got {args.synthetic!r}")
        if args.users is None:
            raise UsageError("--users is required with --synthetic")
        return zipf_values(args.users, args.bits, distinct=int(spec.get("d", 1000)), s=float(spec.get("s", 1.1)),
                           seed=args.seed), {"synthetic": args.synthetic}
    if args.column is None:
        raise UsageError("--column is required with --data/--sample")
    table, source = ((load_table(args.data), {"data": args.data}) if args.data
                     else (load_sample(args.sample), sample_source(args.sample, [args.column])))
    values, dropped = column_values(get_column(table, args.column), args.bits)
    if args.users is not None and args.users != values.size:
        from ldp.core.streams import rng_for

        values = values[rng_for(args.seed, "cli", "users").integers(0, values.size, size=args.users)]
    return values, {**source, "column": args.column, "dropped": dropped}


def cmd_heavy_hitters(args: argparse.Namespace) -> int:
    params = _params(args)  # an unknown method or parameter is refused before any file is read
    get_heavy_hitter_method(args.method, args.epsilon, args.bits, args.top_k, **params)
    values, source = _values(args)
    run = find_heavy_hitters(args.method, args.epsilon, values, bits=args.bits, top_k=args.top_k, seed=args.seed,
                             **params)
    data = {**run.to_dict(), "source": source, "seed": args.seed}
    rows = [[str(i + 1), str(f["value"]), fmt(f["estimate"])] for i, f in enumerate(data["found"])]
    s = run.scores
    preamble = (f"{args.method}, epsilon = {args.epsilon:g}, {run.result.users:,} users, {args.bits} bits: precision "
                f"{s['precision']:.2f}, recall {s['recall']:.2f}, NCR {s['ncr']:.2f}\n")
    render(Output(data, headers=["RANK", "VALUE", "ESTIMATE"], table=rows, preamble=preamble), args.format,
           args.output)
    return 0
