"""The ``ldp itemsets`` subcommand: frequent items of set-valued data (a basket file: one user per line, items
separated by spaces or commas) by SVIM or PSFO (:mod:`ldp.studies.itemsets`). Bad input is one ``error:`` line and
exit status 2."""

from __future__ import annotations

import argparse

from ldp.cli.options import UsageError, add_output_args
from ldp.cli.population import sample_source
from ldp.cli.render import Output, fmt, render
from ldp.core.registry import PROTOCOLS
from ldp.core.streams import rng_for
from ldp.data.loaders import read_text_lines
from ldp.data.samples import list_samples, load_baskets
from ldp.mechanisms.protocol import protocols_of
from ldp.studies.itemsets import COMPARED_MINERS, compare_miners, read_baskets

__all__ = ["add_itemset_command"]

METHODS = tuple(cls.name for cls in protocols_of("itemsets"))
EPILOG = """\
svim (Wang, Li, Jha, S&P 2018): half the users find 2k candidates with PSFO at l = 1, a tenth report how many
candidates they hold (l = its 90th percentile), the rest estimate the candidates' frequencies with PSFO at that l
(GRR amplified to ln(l(e^eps - 1) + 1), or OLH, whichever has the smaller variance), corrected for sets longer than
l. svsm: half the users run svim; the other half report which of the 2k likeliest itemsets (of 2 or 3 of those
items) their set contains. ldpminer (Qin et al., CCS 2016): l from a privately estimated length distribution, then
2k candidates, then padding to 2k. psfo: padding and sampling with --length L for every user. strawman (the
lecture's): every user reports the whole set as one of the 2^d subsets (GRR or OLH over them), an item sums the
estimates of the 2^(d-1) subsets holding it; refused beyond 20 items. Frequencies are
fractions of the users. --compare: svim against ldpminer, --seeds runs each (the lecture's headline: items found
of the true top k and the error of their estimates); json keys: epsilon, top_k, users, seeds, engine, source,
methods (method, found, precision, error = MSE of the found items' estimates, length = median l, runs). Otherwise
json keys: method, epsilon, users, parameters, items (best first: items, estimate),
[itemsets (svsm)], true_top_k, scores (precision, recall, f1, ncr, mse), source (data or sample and its
stand_in), seed. --sample plane_destinations: the airports each NYC aircraft flew to in a month of 2013 (37,876
sets of 104 airports), a stand-in for the Kosarak click-stream.
"""


def add_itemset_command(sub: argparse._SubParsersAction) -> None:
    """Register ``ldp itemsets``: frequent items of a basket file or sample by one miner (``--method``) or the
    lecture's comparison of miners over several seeds (``--compare``).

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers action of ``ldp`` to which the ``itemsets`` parser is added.
    """
    p = sub.add_parser("itemsets", help="frequent items of set-valued data (one user per line)", epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("--method", choices=METHODS)
    how.add_argument("--compare", action="store_true",
                     help="the lecture's headline: " + " against ".join(COMPARED_MINERS) + " over --seeds runs "
                          "(json: per method found, precision, error)")
    p.add_argument("--epsilon", "-e", type=float, required=True, metavar="E")
    p.add_argument("--top-k", "-k", dest="top_k", type=int, required=True, metavar="K")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--data", metavar="FILE", help="basket file: one user per line")
    g.add_argument("--sample", metavar="NAME", help="a bundled basket sample: " + ", ".join(
        s["name"] for s in list_samples("baskets")))
    p.add_argument("--length", type=int, help="psfo: the padding length l (default 1)")
    p.add_argument("--users", "-n", type=int, metavar="N", help="users drawn from the lines (default: every line)")
    p.add_argument("--engine", choices=("exact", "fast"), default="exact",
                   help="exact: every user's report made by the client (default); fast: the oracle's support counts "
                        "drawn directly (exact in distribution for GRR, exact marginals for OLH)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--seeds", type=int, default=3, metavar="R", help="--compare: runs per method (seeds S … S+R−1)")
    add_output_args(p, ("json", "table"), "json")
    p.set_defaults(func=cmd_itemsets)


def _sets(args: argparse.Namespace):
    sets = read_baskets(read_text_lines(args.data) if args.data is not None else load_baskets(args.sample))
    if args.users is not None:
        if args.users < 1:
            raise UsageError(f"--users must be a positive integer, got {args.users}")
        sets = sets.subset(rng_for(args.seed, "cli", "users").integers(0, sets.users, size=args.users))
    return sets


def cmd_compare(args: argparse.Namespace) -> int:
    """``--compare``: SVIM against LDPMiner (:func:`ldp.studies.itemsets.compare_miners`) on the same sets."""
    if args.length is not None:
        raise UsageError("--length applies to --method psfo, not to --compare (both miners choose their own)")
    if args.seeds < 1:
        raise UsageError(f"--seeds must be a positive integer, got {args.seeds}")
    sets = _sets(args)
    table = compare_miners(sets, args.epsilon, top_k=args.top_k, seeds=range(args.seed, args.seed + args.seeds),
                           engine=args.engine)
    source = {"data": args.data} if args.data is not None else sample_source(args.sample)
    data = {"epsilon": args.epsilon, "top_k": args.top_k, "users": sets.users, "seeds": args.seeds,
            "engine": args.engine, "source": {**source, "items_in_domain": sets.d},
            "methods": table.to_dict(orient="records")}
    rows = [[r["method"], f"{r['found']:.1f}", f"{r['precision']:.2f}", fmt(r["error"]), f"{r['length']:g}"]
            for r in data["methods"]]
    render(Output(data, headers=["METHOD", "FOUND", "PRECISION", "ERROR (MSE)", "LENGTH"], table=rows,
                  preamble=f"top {args.top_k} at epsilon = {args.epsilon:g}, {sets.users:,} users, {args.seeds} "
                           "run(s) each\n"), args.format, args.output)
    return 0


def cmd_itemsets(args: argparse.Namespace) -> int:
    if args.top_k < 1:
        raise UsageError(f"--top-k must be a positive integer, got {args.top_k}")
    if args.length is not None and args.length < 1:  # was silently run with l = 1
        raise UsageError(f"--length must be a positive integer (the padding length), got {args.length}")
    if args.compare:
        return cmd_compare(args)
    miner = PROTOCOLS.get(args.method)
    params = {} if args.length is None else {"length": args.length}
    if params and "length" not in {p.name for p in miner.declared_parameters}:
        raise UsageError(f"--length applies to --method psfo ({args.method} chooses its own)")
    sets = _sets(args)
    res = miner.run(sets, args.epsilon, top_k=args.top_k, seed=args.seed, engine=args.engine, **params)
    source = {"data": args.data} if args.data is not None else sample_source(args.sample)
    data = {**res.to_dict(), "source": {**source, "items_in_domain": sets.d}, "seed": args.seed,
            "engine": args.engine}
    if miner.finds == "itemsets":  # the frequent items (its first half) and the itemsets
        data["itemsets"] = data["items"]
        data["items"] = data["parameters"].pop("items")
    rows = [[str(i + 1), " ".join(item), fmt(float(e))]
            for i, (item, e) in enumerate(zip(res.items, res.estimates, strict=True))]
    preamble = (f"{args.method}, epsilon = {args.epsilon:g}, {res.users:,} users: precision "
                f"{res.scores['precision']:.2f}, NCR {res.scores['ncr']:.2f}\n")
    render(Output(data, headers=["RANK", "ITEM", "ESTIMATE"], table=rows, preamble=preamble), args.format,
           args.output)
    return 0
