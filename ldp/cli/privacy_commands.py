"""The privacy subcommands of ``ldp``: ``shuffle``, ``audit``, ``longitudinal`` and ``poison``.

Each parses nothing itself, calls :mod:`ldp.privacy` and hands an :class:`~ldp.cli.render.Output` to the one
renderer (JSON by default, or a text table); bad input is an :class:`~ldp.core.errors.LDPError` that the entry
point turns into one ``error:`` line and exit status 2.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

import numpy as np

from ldp.cli.options import UsageError, add_output_args, count, number_list, parse_params, split_list
from ldp.cli.render import Output, fmt, render
from ldp.core.registry import MECHANISMS
from ldp.privacy.audit import TEACHING_MECHANISMS, audit, make_audited
from ldp.privacy.longitudinal import longitudinal_study
from ldp.privacy.poisoning import ATTACKED, attacked_mechanism, check_attack, simulate_attack
from ldp.privacy.shuffle import DEFAULT_STEP, MAX_INTERVALS, fine_step, largest_local_epsilon, shuffle_bounds

__all__ = ["add_privacy_commands"]

SHUFFLE_EPILOG = """\
json keys: users, epsilon0, delta, closed_form (Feldman-McMillan-Talwar Theorem 3.1; null where its condition
epsilon0 <= log(n / (16 log(2/delta))) fails), valid, lower and upper (their numerical analysis, intervals of
--step clone counts and the authors' early stop; with --tight every interval at a fine step; null beyond 1e9
expected clones, where only the closed form is given; a step whose grid exceeds 20,000 intervals is refused and
the default step grows instead), early_stop,
blanket and domain_size (--mechanism grr --domain-size D: Balle et al.'s privacy blanket,
null where it exceeds 1), step; with --target-epsilon E also largest_epsilon0: the largest local epsilon0 whose
shuffled upper bound is at most E.
"""

AUDIT_EPILOG = f"""\
Runs the client randomizer --samples times on each of two inputs (default the values 0 and 1, or the ends of the
input range), chooses the most distinguishing output event on separate held-out reports, and reports a
Clopper-Pearson lower bound on epsilon at --confidence. json keys: mechanism, epsilon (claimed for one report:
epsilon, or epsilon_1 of a longitudinal mechanism), epsilon_lower_bound, confidence, samples, selection_samples,
inputs, event, counts, probabilities, channel_epsilon (from the exact channel, where known), seed.
--mechanism also takes the teaching example {', '.join(TEACHING_MECHANISMS)} (an OLH with a known bug; not a usable
mechanism).
"""

POISON_EPILOG = """\
Maximal-gain attack (Cao, Jia, Gong, USENIX Security 2021) on grr, oue or olh: fake users make up a fraction beta
of all users and send reports that support the --targets. The genuine users hold a Zipf(--zipf) distribution over
--domain-size values. json keys: mechanism, epsilon, d, targets, users, results (per beta: fake_users, beta,
target_frequency, targets_supported, expected_gain (closed form), simulated_gain and simulated_sd per estimator,
trials).
"""

LONGITUDINAL_EPILOG = """\
One user's GRR reports over tau rounds: fresh reports each round (the budget composes to tau * epsilon_1) vs the
memoized L-GRR (epsilon_inf = --epsilon bounds all rounds together). json keys: d, epsilon_1, epsilon_inf, rounds,
users, composed_epsilon, memoized_epsilon, posterior_fresh, posterior_memoized (the attacker's mean posterior on
the true value, simulated), bound_fresh, bound_memoized (the DP worst case), accuracy_fresh, accuracy_memoized (the
MAP attacker), memoized_limit (closed form as tau -> infinity), prior_max.
"""


def _positive(value: float | None, flag: str) -> None:
    if value is not None and not (math.isfinite(value) and value > 0):
        raise UsageError(f"{flag} must be a positive finite number, got {value}")


def cmd_shuffle(args: argparse.Namespace) -> int:
    k = None
    if args.mechanism is not None:
        if args.mechanism.strip().lower() != "grr":
            raise UsageError(f"--mechanism: the privacy blanket bound is computed for grr only, got {args.mechanism!r}")
        if args.domain_size is None:
            raise UsageError("--mechanism grr needs --domain-size D")
        k = args.domain_size
    elif args.domain_size is not None:
        raise UsageError("--domain-size goes with --mechanism grr")
    if args.tight:
        bounds = shuffle_bounds(args.users, args.epsilon0, args.delta, k, fine_step(args.users, args.epsilon0),
                                early_stop=False)
    else:
        bounds = shuffle_bounds(args.users, args.epsilon0, args.delta, k, args.step)
    data: dict[str, Any] = bounds.to_dict()
    if args.target_epsilon is not None:
        _positive(args.target_epsilon, "--target-epsilon")
        data["target_epsilon"] = args.target_epsilon
        data["largest_epsilon0"] = largest_local_epsilon(args.target_epsilon, args.users, args.delta, args.step,
                                                         tight=args.tight)
    rows = [[key, "-" if data[key] is None else (fmt(data[key]) if isinstance(data[key], float) else str(data[key]))]
            for key in data]
    render(Output(data, headers=["QUANTITY", "VALUE"], table=rows), args.format, args.output)
    return 0


def _inputs(text: str | None, mech: Any) -> tuple[Any, Any] | None:
    if text is None:
        return None
    parts = split_list(text)
    if len(parts) != 2:
        raise UsageError(f"--inputs expects two values V0,V1, got {text!r}")
    kind = int if mech.input_kind == "codes" else float
    try:
        return kind(parts[0]), kind(parts[1])
    except ValueError:
        raise UsageError(f"--inputs: {text!r} are not {'integer codes' if kind is int else 'numbers'}") from None


def cmd_audit(args: argparse.Namespace) -> int:
    name = args.mechanism.strip().lower()
    cls = TEACHING_MECHANISMS.get(name) or MECHANISMS.get(name)
    d = args.domain_size
    note = None
    domain_param = getattr(cls, "domain_parameter", None)
    if d is None and domain_param is not None and domain_param.default is None:
        # the audit compares two inputs: the smallest domain that holds them (ε does not depend on d here)
        d = max(2, int(domain_param.low or 2))
        note = f"audited on a domain of d = {d} values (the audit compares two inputs); pass -d to audit another"
    mech = make_audited(name, args.epsilon, d, **parse_params(cls, args.param, args.epsilon_1))
    res = audit(mech, samples=args.samples, seed=args.seed, inputs=_inputs(args.inputs, mech),
                confidence=args.confidence)
    data = res.to_dict()
    if note:
        data["note"] = note
    rows = [[k, fmt(v) if isinstance(v, float) else str(v)] for k, v in data.items()]
    render(Output(data, headers=["QUANTITY", "VALUE"], table=rows), args.format, args.output)
    return 0


def cmd_longitudinal(args: argparse.Namespace) -> int:
    rounds = number_list(args.rounds, int, "--rounds")
    res = longitudinal_study(args.domain_size, args.epsilon, args.epsilon_1, rounds, users=args.users, seed=args.seed)
    table = [[str(r["rounds"]), fmt(r["composed_epsilon"]), fmt(r["memoized_epsilon"]), fmt(r["posterior_fresh"]),
              fmt(r["posterior_memoized"]), fmt(r["bound_fresh"]), fmt(r["bound_memoized"])] for r in res.rows()]
    render(Output(res.to_dict(), headers=["ROUNDS", "EPS_FRESH", "EPS_MEMO", "POST_FRESH", "POST_MEMO", "BOUND_FRESH",
                                          "BOUND_MEMO"], table=table), args.format, args.output)
    return 0


def cmd_poison(args: argparse.Namespace) -> int:
    mech = attacked_mechanism(args.mechanism, args.epsilon, args.domain_size)
    targets = number_list(args.targets, int, "--targets")
    betas = number_list(args.betas, float, "--betas")
    if not betas:
        raise UsageError("--betas needs at least one fraction")
    if args.users < 100 or args.users > 10**9:
        raise UsageError(f"--users must be between 100 and 1e9, got {args.users}")
    if not (math.isfinite(args.zipf) and args.zipf >= 0):
        raise UsageError(f"--zipf must be a non-negative exponent, got {args.zipf}")
    check_attack(mech, args.users, betas, args.trials)  # time and memory bounded before any work
    weights = 1.0 / np.arange(1, mech.d + 1) ** args.zipf
    counts = np.floor(weights / weights.sum() * args.users).astype(np.int64)
    counts[0] += args.users - int(counts.sum())
    estimators = tuple(split_list(args.estimators))
    results = [simulate_attack(mech, counts, targets, b, trials=args.trials, seed=args.seed, estimators=estimators)
               for b in betas]
    data = {"mechanism": mech.name, "epsilon": mech.epsilon, "d": mech.d, "targets": results[0].targets,
            "users": args.users, "results": [r.to_dict() for r in results]}
    table = [[fmt(r.beta), str(r.fake_users), fmt(r.expected_gain)] + [fmt(r.simulated_gain[e]) for e in estimators]
             for r in results]
    render(Output(data, headers=["BETA", "FAKE_USERS", "EXPECTED_GAIN"] + [f"GAIN_{e.upper()}" for e in estimators],
                  table=table), args.format, args.output)
    return 0


def add_privacy_commands(sub: Any) -> None:
    """Register ``shuffle``, ``audit``, ``longitudinal`` and ``poison`` on the ``ldp`` subparsers.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The ``ldp`` parser's subparsers (:func:`ldp.cli.build_parser`); the four commands are added to it.
    """
    fmt_class = argparse.RawDescriptionHelpFormatter
    p = sub.add_parser("shuffle", help="central (epsilon, delta) of n shuffled epsilon0-LDP reports",
                       epilog=SHUFFLE_EPILOG, formatter_class=fmt_class)
    p.add_argument("--epsilon0", "-e", required=True, type=float, metavar="E0", help="local ε₀ of each report")
    p.add_argument("--users", "-n", required=True, type=count, metavar="N",
                   help="number of shuffled reports (1e15 notation accepted)")
    p.add_argument("--delta", type=float, default=1e-6, metavar="D", help="central δ (default 1e-6)")
    p.add_argument("--mechanism", "-m", metavar="grr", help="grr: add the privacy-blanket bound")
    p.add_argument("--domain-size", "-d", dest="domain_size", type=int, metavar="D", help="GRR's domain size")
    p.add_argument("--step", type=int, default=None, metavar="K",
                   help=f"clone counts per interval of the numerical bound (default {DEFAULT_STEP}, coarser where "
                        f"n is so large that the bound would sum more than {MAX_INTERVALS:,} intervals)")
    p.add_argument("--tight", action="store_true",
                   help="sum every interval at a step of about a tenth of the clone count's sd (tighter than the "
                        "authors' algorithm; --step is then ignored)")
    p.add_argument("--target-epsilon", dest="target_epsilon", type=float, metavar="E",
                   help="also report the largest ε₀ whose shuffled ε is at most E")
    add_output_args(p, ("json", "table"), "json")
    p.set_defaults(func=cmd_shuffle)

    p = sub.add_parser("audit", help="empirical lower bound on a mechanism's epsilon from its randomizer",
                       epilog=AUDIT_EPILOG, formatter_class=fmt_class)
    p.add_argument("--mechanism", "-m", required=True, metavar="M", help="mechanism name (or broken-olh)")
    p.add_argument("--epsilon", "-e", required=True, type=float, metavar="E", help="the claimed ε (ε∞ if longitudinal)")
    p.add_argument("--epsilon-1", dest="epsilon_1", type=float, metavar="E1", help="longitudinal mechanisms: ε1")
    p.add_argument("--domain-size", "-d", dest="domain_size", type=int, metavar="D",
                   help="domain size or buckets (default: the mechanism's)")
    p.add_argument("--param", "-p", action="append", default=[], metavar="KEY=VALUE", help="mechanism parameter")
    p.add_argument("--samples", "-S", type=int, default=100_000, metavar="S", help="reports per input (default 1e5)")
    p.add_argument("--seed", "-s", type=int, default=0, metavar="S", help="random seed (default 0)")
    p.add_argument("--inputs", metavar="V0,V1", help="the two inputs (default 0,1 or the input range's ends)")
    p.add_argument("--confidence", type=float, default=0.95, metavar="C", help="confidence (default 0.95)")
    add_output_args(p, ("json", "table"), "json")
    p.set_defaults(func=cmd_audit)

    p = sub.add_parser("longitudinal", help="what an attacker learns over repeated GRR reports",
                       epilog=LONGITUDINAL_EPILOG, formatter_class=fmt_class)
    p.add_argument("--domain-size", "-d", dest="domain_size", type=int, required=True, metavar="D")
    p.add_argument("--epsilon", "-e", type=float, required=True, metavar="EINF", help="ε∞ of the memoized value")
    p.add_argument("--epsilon-1", dest="epsilon_1", type=float, required=True, metavar="E1", help="ε1 of one report")
    p.add_argument("--rounds", default="1,2,5,10,20,50,100", metavar="LIST", help="numbers of rounds")
    p.add_argument("--users", "-n", type=int, default=20_000, metavar="N", help="simulated users (default 20000)")
    p.add_argument("--seed", "-s", type=int, default=0, metavar="S", help="random seed (default 0)")
    add_output_args(p, ("json", "table"), "json")
    p.set_defaults(func=cmd_longitudinal)

    p = sub.add_parser("poison", help="fake users promoting target items (maximal-gain attack)",
                       epilog=POISON_EPILOG, formatter_class=fmt_class)
    p.add_argument("--mechanism", "-m", required=True, metavar="M", help=f"one of {', '.join(ATTACKED)}")
    p.add_argument("--epsilon", "-e", required=True, type=float, metavar="E")
    p.add_argument("--domain-size", "-d", dest="domain_size", type=int, required=True, metavar="D")
    p.add_argument("--targets", required=True, metavar="LIST", help="comma-separated target values")
    p.add_argument("--betas", default="0.01,0.02,0.05,0.1", metavar="LIST", help="fractions of fake users")
    p.add_argument("--users", "-n", type=count, default=100_000, metavar="N", help="genuine users (default 1e5)")
    p.add_argument("--zipf", type=float, default=1.0, metavar="S", help="genuine distribution exponent (default 1)")
    p.add_argument("--estimators", default="mi,norm-sub", metavar="LIST", help="default mi,norm-sub")
    p.add_argument("--trials", "-t", type=count, default=10, metavar="T", help="simulated collections (default 10)")
    p.add_argument("--seed", "-s", type=int, default=0, metavar="S", help="random seed (default 0)")
    add_output_args(p, ("json", "table"), "json")
    p.set_defaults(func=cmd_poison)


