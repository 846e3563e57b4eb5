"""The ``ldp deployments`` subcommand: the deployed mechanisms' published budgets (:mod:`ldp.studies.deployments`),
what the same ε gives with each deployed frequency oracle on a population against the best textbook one (closed
form), and what memoization protects in repeated collection (:mod:`ldp.mechanisms.memoization`). Parses the flags
and does I/O only; bad input is one ``error:`` line and exit status 2."""

from __future__ import annotations

import argparse
import math

from ldp.cli.options import UsageError, add_output_args, count
from ldp.cli.population import add_population_args, load_population
from ldp.cli.render import Output, fmt, render
from ldp.studies.deployments import DEPLOYMENTS, MAX_COMPARED_VALUES, deployed_vs_textbook, memoization_rows

__all__ = ["add_deployment_command"]

DEFAULT_USERS = 100_000
EPILOG = """\
The population (--data/--sample with --column, or --synthetic) gives the frequencies the deployed and textbook
oracles are compared on, each with its closed-form variance at the same --epsilon (RAPPOR, memoized, takes it as
epsilon-infinity). Without a population: --synthetic uniform:d=100. --users defaults to the data's rows (else
100,000). The memoization rows simulate --rounds daily reports of memoized 1BitMean (a steady and a moving counter,
--steps rounding points, output perturbation --gamma) and memoized dBitFlip.
json keys: budgets (company, use, mechanism, epsilon_report, epsilon_day, memoized, source, note), comparison
(mechanism, name, deployed by, MSE, x best textbook, best textbook), memoization (claim, protected, number, detail),
settings.
"""


def add_deployment_command(sub: argparse._SubParsersAction) -> None:
    """Register ``ldp deployments``: the deployed budgets, the deployed oracles against the best textbook one at
    the same ε, and what memoization protects (``--epsilon``, a population, ``--users``, ``--rounds``,
    ``--steps``, ``--gamma``, ``--seed``, ``--format json|table``, ``--output``).

    Parameters
    ----------
    sub : argparse._SubParsersAction
        Where the command is added: the subcommands of the ``ldp`` parser (:func:`ldp.cli.build_parser`).
    """
    p = sub.add_parser("deployments", help="what Apple, Google and Microsoft run: budgets, accuracy, memoization",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--epsilon", "-e", type=float, default=1.0, metavar="E", help="the same budget for every oracle")
    add_population_args(p, sweep_mode=False)
    p.add_argument("--users", "-n", type=count, metavar="N", help="users (default: the data's rows, else 100,000)")
    p.add_argument("--rounds", type=int, default=30, metavar="T", help="rounds of repeated collection (default 30)")
    p.add_argument("--steps", type=int, default=32, metavar="S", help="α-point rounding steps of 1BitMean")
    p.add_argument("--gamma", type=float, default=0.1, metavar="G", help="output perturbation in [0, 0.5)")
    p.add_argument("--seed", type=int, default=0)
    add_output_args(p, ("json", "table"), "json")
    p.set_defaults(func=cmd_deployments)


def cmd_deployments(args: argparse.Namespace) -> int:
    if not (math.isfinite(args.epsilon) and args.epsilon > 0):
        raise UsageError(f"--epsilon must be a positive number, got {args.epsilon}")
    if args.rounds < 1 or args.steps < 1:
        raise UsageError("--rounds and --steps must be positive integers")
    if not 0.0 <= args.gamma < 0.5:
        raise UsageError(f"--gamma must lie in [0, 0.5), got {args.gamma}")
    if args.data is None and args.sample is None and args.synthetic is None:
        args.synthetic = "uniform:d=100"
    pop = load_population(args)
    if pop.d > MAX_COMPARED_VALUES:
        raise UsageError(f"the population has {pop.d:,} values; the comparison takes at most {MAX_COMPARED_VALUES:,} "
                         "(bucketize a numerical column with --buckets)")
    users = args.users or (int(pop.counts.sum()) if pop.counts is not None else DEFAULT_USERS)
    comparison = deployed_vs_textbook(pop.frequencies, users, args.epsilon)
    memo = memoization_rows(epsilon=args.epsilon, rounds=args.rounds, steps=args.steps, gamma=args.gamma,
                            seed=args.seed)
    budgets = [{"company": d.company, "use": d.use, "mechanism": d.mechanism, "epsilon_report": d.epsilon_report,
                "epsilon_day": d.epsilon_day, "memoized": d.memoized, "source": d.source, "note": d.note}
               for d in DEPLOYMENTS]
    data = {"budgets": budgets, "comparison": comparison.to_dict("records"),
            "memoization": memo.to_dict("records"),
            "settings": {"epsilon": args.epsilon, "users": users, "d": pop.d, "source": pop.source,
                         "rounds": args.rounds, "steps": args.steps, "gamma": args.gamma, "seed": args.seed}}
    table = [[r["mechanism"], r["deployed by"] or "-", fmt(r["MSE"]), f"{r['× best textbook']:.2f}"]
             for r in data["comparison"]]
    preamble = ("budgets: " + "; ".join(f"{b['company']} {b['use']}: epsilon {b['epsilon_report']:.3g} per report"
                                        for b in budgets)
                + "\nmemoization:\n" + "\n".join(f"- {r['claim']}: {r['detail']}" for r in data["memoization"])
                + f"\nsame epsilon = {args.epsilon:g}, {users:,} users, d = {pop.d}:\n")
    render(Output(data, headers=["MECHANISM", "DEPLOYED BY", "MSE", "x BEST TEXTBOOK"], table=table,
                  preamble=preamble), args.format, args.output)
    return 0
