"""The ``ldp`` command line: list components, simulate, sweep, and run a real collection end to end.

Subcommands (``ldp COMMAND --help`` for each)::

    ldp mechanisms  [--kind frequency|numerical|mean|one-time|longitudinal] [--format json|table]
    ldp estimators  [--kind K] [--format json|table]
    ldp tasks       [--format json|table]
    ldp samples     [--kind table|baskets] [--format json|table]
    ldp simulate    --mechanism M --epsilon E [--epsilon-1 E1] [--param KEY=VALUE ...]
                    (--data FILE --column C | --sample NAME --column C | --synthetic SPEC)
                    [--domain-size D | --domain FILE | --buckets D [--range LO,HI] [--clip]]
                    [--users N] [--estimators LIST] [--estimator-param EST.KEY=VALUE ...]
                    [--engine fast|exact] [--trials T] [--seed S] [--format json|csv|metrics-csv] [--output FILE]
    ldp sweep       --mechanisms LIST --epsilons LIST [--users LIST] [--domain-sizes LIST] ...
    ldp perturb     --mechanism M --epsilon E ... (--domain-size D | --domain FILE | --range LO,HI [--buckets D])
                    --data FILE --column C [--seed S] --output REPORTS
    ldp aggregate   --mechanism M --epsilon E ... (--domain-size D | --domain FILE | --range LO,HI [--buckets D])
                    --reports REPORTS [--estimators LIST] [--format json|csv] [--output FILE]
    ldp advise      --mechanism M --epsilon E ... (--domain-size D | --domain FILE) --reports REPORTS [--task T] ...
    ldp shuffle     --epsilon0 E0 --users N [--delta D] [--mechanism grr --domain-size D] [--target-epsilon E]
    ldp audit       --mechanism M --epsilon E [--samples S] [--seed S] [--inputs V0,V1]
    ldp longitudinal --domain-size D --epsilon EINF --epsilon-1 E1 [--rounds LIST]
    ldp poison      --mechanism grr|oue|olh --epsilon E --domain-size D --targets LIST [--betas LIST]
    ldp joint       [--method product|split|calm|hdg] --epsilon E (--data FILE --columns A,B[,C] | --synthetic SPEC)
                    [--users N] [--buckets A=B,...] [--range A=LO:HI,...] [--queries K] [--seed S] [--format json|table]
    ldp deployments [--epsilon E] [(--data FILE | --sample NAME) --column C | --synthetic SPEC] [--users N]
                    [--rounds T] [--steps S] [--gamma G] [--seed S] [--format json|table]
    ldp lecture     grr-table|ue-example|composition|dp-vs-ldp|bounds [--epsilon E[,E...]] [--d D[,D...]]
                    [--users LIST] [--max-reports K] [--mechanism M] [--p FRACTION] [--trials T] [--seed S]
                    [--level L] [--format json|table] [--output FILE]
    ldp reproduce   --list | ID [--scale lecture|paper] [--trials T] [--epsilons LIST] [--seed S]
                    [--executor serial|processes|dask] [--format json|csv|table] [--output FILE] [--figure FILE]

Every mechanism kind works where the command makes sense: frequency oracles on categories, numerical
mechanisms on bucketized numbers (real-unit metrics), mean mechanisms on a column of numbers. The CLI only
parses arguments and does I/O; every computation is a library call. Any bad input ends with one line
``error: <reason>`` on stderr and exit status 2; output files are written atomically, so a failed run never
leaves a partial file.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import signal
import sys
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

from ldp import __version__
from ldp.cli import commands
from ldp.cli.commands import AGGREGATE_CSV_COLUMNS, SIMULATE_CSV_COLUMNS, SIMULATE_METRICS_CSV_COLUMNS
from ldp.cli.deployment_commands import add_deployment_command
from ldp.cli.heavy_hitter_commands import add_heavy_hitter_command
from ldp.cli.itemset_commands import add_itemset_command
from ldp.cli.joint_commands import add_joint_command
from ldp.cli.lecture_commands import add_lecture_command
from ldp.cli.mean_commands import add_mean_command
from ldp.cli.options import (
    EXIT_USAGE,
    Parser,
    UsageError,
    add_domain_args,
    add_engine_args,
    add_estimator_args,
    add_mechanism_args,
    add_output_args,
    one_line,
)
from ldp.cli.population import add_population_args
from ldp.cli.privacy_commands import add_privacy_commands
from ldp.cli.reproduce_commands import add_reproduce_command
from ldp.core.errors import LDPError
from ldp.data.samples import SAMPLE_KINDS
from ldp.evaluation.tasks import TASKS
from ldp.mechanisms import KINDS
from ldp.mechanisms.protocol import PROTOCOL_KINDS
from ldp.simulation import SWEEP_COLUMNS

__all__ = ["AGGREGATE_CSV_COLUMNS", "SIMULATE_CSV_COLUMNS", "SIMULATE_METRICS_CSV_COLUMNS", "SWEEP_COLUMNS",
           "UsageError", "build_parser", "main"]

SIMULATE_EPILOG = f"""\
output formats:
  json         keys mechanism, kind, epsilon, [epsilon_1], parameters, users, engine, seed, domain (labels),
               [edges], true, theoretical_variance, summary (estimator -> metric -> mean over trials; frequency
               oracles also gain and gain_mae: Γ of IBU paper Eq. (1) over its baseline, MI clipped at 0 and
               renormalised, on the same collections),
               diagnostics (iterative estimators: converged trials, mean iterations), trials (per trial:
               estimates and metrics), elapsed_s, warnings, estimators, source.
  csv          tidy estimates, one row per (trial, estimator, domain value): {','.join(SIMULATE_CSV_COLUMNS)}
  metrics-csv  tidy errors, one row per (trial, estimator, metric): {','.join(SIMULATE_METRICS_CSV_COLUMNS)}

metrics by kind: frequency oracles mse, mae, l1, max_abs, topk_mse; numerical mechanisms (on a column
bucketized with --buckets D [--range LO,HI] or a numerical synthetic spec) the square-wave paper's metrics in
the data's units: wasserstein, ks, range_mae (alpha = 0.1), range_mae_0.4, mean_error, variance_error,
quantile_error. --estimators defaults to the mechanism's own (mi, ems, hh-admm, ...).

mean mechanisms (sr, pm) take a numerical column (--data/--sample, --column, optional --range LO,HI
[--clip]) and write JSON only: true_mean, estimated_mean (per trial), theoretical_variance, the 50/50-split
variance (§6.3), summary, range, engine_note.

the column is encoded as integer codes in [0, D) with --domain-size D, as the labels of --domain FILE,
as D equal-width bins with --buckets D [--range LO,HI] [--clip], and otherwise as categorical (one code per
distinct value). With --users N different from the number of rows, N users are drawn from the data's
distribution (multinomial, seeded by --seed); without --users every row is a user (--synthetic needs --users).
"""

SWEEP_EPILOG = f"""\
output: tidy CSV, one row per (configuration, trial, estimator, metric), columns
  {','.join(SWEEP_COLUMNS)}
The mechanisms of one sweep are of one kind (frequency or numerical). Each configuration draws from its own
random stream named by what it is (mechanism, ε, n, d, parameters), so adding a configuration never changes
another's rows. --param KEY=VALUE applies to every listed mechanism that has the parameter; MECH.KEY=VALUE to
one mechanism. --domain-sizes: with --synthetic the spec's d is replaced; with data, a numerical column is
re-bucketized into d bins; a categorical column keeps its own d.
"""

REPORTS_EPILOG = """\
report file: UTF-8 text; '#' comment lines first, one of them the JSON header
  # ldp-reports {"format": 1, "mechanism": ..., "epsilon": ..., "epsilon_1": ..., "d": ..., "params": {...},
  ["range": [lo, hi],] "users": N}
then one report per line in the mechanism's format (see 'ldp mechanisms', report_format): GRR an integer in
[0, d); UE, L-UE and THE d characters '0'/'1'; SS the omega chosen indices; BLH/OLH/L-BLH/L-OLH 'a b y' (with
--param hash=xxh32: 'y seed', as multi-freq-ldpy writes them); HR 'j y'; SHE d real numbers; SW, GW, SR, PM one
real number; HH 'k' plus its layer oracle's report; HaarHRR 'l j y'.
Numerical and mean mechanisms map the column's values through the public range --range LO,HI (recorded in the
header); numerical ones reconstruct --buckets D buckets (default 32). The file is written atomically.
"""

AGGREGATE_EPILOG = f"""\
The mechanism options must match the header of the report file (mechanism, ε, ε1, d, range and every
parameter, e.g. the hash prime of local hashing); a file without header is checked line by line only.
json keys: mechanism, kind, epsilon, [epsilon_1], parameters, d, users, header, counts (the aggregate),
domain, [edges, range], estimates (estimator -> frequency per value), diagnostics; mean mechanisms: mean (in
real units), estimates, standard_error_bound.  csv: {','.join(AGGREGATE_CSV_COLUMNS)}
"""

ADVISE_EPILOG = """\
The advisor (Wang et al., NDSS 2020, §V.D) estimates the distribution from the reports, makes it consistent
with Norm-Sub, takes it as a synthetic ground truth with the same number of users, re-simulates the collection
--trials times and scores every candidate estimator on the task; the one with the lowest expected error wins.
Task parameters (see 'ldp tasks'): --k for topk/topk-precision, --rho (a fraction, 0.1 = 10% of the domain)
and --queries for set, --threshold (a frequency) for threshold, --group NAME=V1,V2 (domain labels, repeatable)
for subsets. json keys: best, task, task_label, task_params, better, trials, seed, users, mechanism, epsilon,
[epsilon_1], parameters, d, fit, summary, elapsed_s, candidates (best first: rank, estimator, display_name,
consistent, expected_error (expected_score for a higher-is-better task), standard_error, trial_sd,
tied_with_best, [gain_percent: Γ of IBU paper Eq. (1) over MI clipped and renormalised, §2.3],
[equivalent_users], seconds, note).
"""


def _listing(sub: Any, name: str, help_text: str, func: Any, kinds: Sequence[str] | None) -> None:
    p = sub.add_parser(name, help=help_text)
    if kinds is not None:
        p.add_argument("--kind", choices=kinds, help="only those of this kind")
    p.add_argument("--format", "-f", choices=("json", "table"), default="json", help="output format (default json)")
    p.set_defaults(func=func)


def build_parser() -> argparse.ArgumentParser:
    """The ``ldp`` argument parser with every subcommand (listings, simulate, sweep, perturb, aggregate, advise,
    the privacy, mean, heavy-hitter, itemset, joint, deployment, lecture and reproduce commands).

    Each subcommand's parser stores the function that runs it as ``func`` (``args.func(args)`` → exit status).

    Returns
    -------
    argparse.ArgumentParser
        The parser (a :class:`~ldp.cli.options.Parser`: usage errors exit with status 2 and one line).
    """
    parser = Parser(prog="ldp", description="LDP Explorer: local differential privacy — frequency oracles, "
                                            "numerical distributions and means.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _listing(sub, "mechanisms", "list the mechanisms of every kind", commands.cmd_mechanisms,
             [*KINDS, *PROTOCOL_KINDS, "one-time", "longitudinal", "interactive"])
    _listing(sub, "estimators", "list the estimators", commands.cmd_estimators, list(KINDS))
    _listing(sub, "tasks", "list the query tasks the advisor can optimise for", commands.cmd_tasks, None)
    _listing(sub, "samples", "list the bundled real samples (tables and basket files) and what they stand in for",
             commands.cmd_samples, list(SAMPLE_KINDS))

    fmt = argparse.RawDescriptionHelpFormatter
    p = sub.add_parser("simulate", help="simulate a collection and score the estimators", epilog=SIMULATE_EPILOG,
                       formatter_class=fmt)
    add_mechanism_args(p, required=False)  # required unless --config gives them
    p.add_argument("--config", metavar="FILE",
                   help="a configuration downloaded from the Playground (JSON): re-run it to the same numbers (with "
                        "--data FILE when it ran on an uploaded file); the other options may not be given with it")
    add_population_args(p, sweep_mode=False)
    p.add_argument("--users", "-n", type=int, metavar="N", help="number of users (default: every row)")
    add_estimator_args(p, None, "default: the mechanism's own")
    add_engine_args(p)
    p.add_argument("--trials", "-t", type=int, default=1, metavar="T", help="independent repetitions (default 1)")
    p.add_argument("--seed", "-s", type=int, metavar="S", help="random seed (default: fresh randomness)")
    add_output_args(p, ("json", "csv", "metrics-csv"), "json")
    p.set_defaults(func=commands.cmd_simulate)

    p = sub.add_parser("sweep", help="simulate a grid of configurations into a tidy CSV", epilog=SWEEP_EPILOG,
                       formatter_class=fmt)
    p.add_argument("--mechanisms", required=True, metavar="LIST", help="comma-separated mechanism names")
    p.add_argument("--epsilons", required=True, metavar="LIST", help="comma-separated ε values")
    p.add_argument("--epsilon-1", dest="epsilon_1", type=float, metavar="E1",
                   help="ε1 for the longitudinal mechanisms of the sweep (default ε/2)")
    p.add_argument("--param", "-p", action="append", default=[], metavar="[MECH.]KEY=VALUE",
                   help="mechanism parameter (repeatable)")
    add_population_args(p, sweep_mode=True)
    p.add_argument("--users", "-n", metavar="LIST", help="comma-separated numbers of users (default: every row)")
    p.add_argument("--domain-sizes", dest="domain_sizes", metavar="LIST", help="comma-separated domain sizes")
    p.add_argument("--estimators", default=None, metavar="LIST",
                   help="comma-separated estimators (default: the mechanisms' own)")
    add_engine_args(p)
    p.add_argument("--trials", "-t", type=int, default=1, metavar="T", help="trials per configuration (default 1)")
    p.add_argument("--seed", "-s", type=int, default=0, metavar="S", help="root seed (default 0)")
    p.add_argument("--executor", choices=("processes", "serial", "dask"), default="processes",
                   help="where configurations run: a local process pool (default; small sweeps stay in this "
                        "process), this process only, or a Dask cluster (--dask); same seed, same table on each")
    p.add_argument("--workers", type=int, metavar="W", help="process-pool size (default: the number of cores)")
    p.add_argument("--dask", metavar="ADDRESS", help="scheduler address of an existing Dask cluster (implies "
                   "--executor dask; needs the optional 'distributed' package)")
    add_output_args(p, ("csv",), "csv")
    p.set_defaults(func=commands.cmd_sweep)

    for name, help_text, epilog in (
            ("perturb", "client side: randomize a column into a report file", REPORTS_EPILOG),
            ("aggregate", "server side: estimate from a report file", AGGREGATE_EPILOG)):
        p = sub.add_parser(name, help=help_text, epilog=epilog, formatter_class=fmt)
        add_mechanism_args(p)
        add_domain_args(p, False, "frequency oracles: the column holds integer codes in [0, D)")
        p.add_argument("--range", dest="value_range", metavar="LO,HI",
                       help="numerical and mean mechanisms: the public range of the values")
        p.add_argument("--columns", metavar="A,B,...", help="vector mechanisms (e.g. duchi, kd-pm): the numerical "
                       "columns each user holds, one coordinate each")
        p.add_argument("--buckets", type=int, metavar="D",
                       help="numerical mechanisms: buckets of the estimate "
                            f"(default {commands.NUMERICAL_DEFAULT_BUCKETS})")
        if name == "perturb":
            p.add_argument("--data", required=True, metavar="FILE", help="CSV or Parquet table")
            p.add_argument("--column", "-c", metavar="C", help="column holding each user's value (every kind but "
                                                                   "vector mechanisms)")
            p.add_argument("--clip", action="store_true", help="clip values outside --range instead of failing")
            rnd = p.add_mutually_exclusive_group()
            rnd.add_argument("--seed", "-s", type=int, metavar="S",
                             help="seeded, reproducible randomness — for simulations only: anyone who guesses the "
                                  "seed can invert the reports (a warning is printed and the file is marked simulated)")
            rnd.add_argument("--secure", action="store_true",
                             help="the operating system's CSPRNG (the default: a genuine collection)")
            p.add_argument("--output", "-o", required=True, metavar="REPORTS", help="report file to write")
            p.set_defaults(func=commands.cmd_perturb)
        else:
            p.add_argument("--reports", "-r", required=True, metavar="REPORTS",
                           help="report file written by 'ldp perturb'")
            add_estimator_args(p, None, "default: the mechanism's own")
            add_output_args(p, ("json", "csv"), "json")
            p.set_defaults(func=commands.cmd_aggregate)

    p = sub.add_parser("advise", help="server side: which estimator to use for a query, from a report file",
                       epilog=ADVISE_EPILOG, formatter_class=fmt)
    add_mechanism_args(p)
    add_domain_args(p, True, "domain size D (values 0 .. D-1)")
    p.add_argument("--reports", "-r", required=True, metavar="REPORTS", help="report file written by 'ldp perturb'")
    p.add_argument("--task", default="mse", metavar="TASK",
                   help=f"query task: {', '.join(TASKS.names())} (default mse; see 'ldp tasks')")
    p.add_argument("--k", type=int, metavar="K", help="topk / topk-precision: the k most frequent values (default 10)")
    p.add_argument("--rho", type=float, metavar="R",
                   help="set: fraction of the domain in each random set, 0 < R <= 1 (default 0.1)")
    p.add_argument("--queries", type=int, metavar="Q", help="set: number of random sets (default 200)")
    p.add_argument("--threshold", type=float, metavar="X", help="threshold: frequency threshold (required)")
    p.add_argument("--group", action="append", default=None, metavar="NAME=V1,V2",
                   help="subsets: a group of domain values (labels); repeatable (required)")
    p.add_argument("--trials", "-t", type=int, default=20, metavar="T",
                   help="re-simulations of the synthetic dataset (default 20, at least 2)")
    p.add_argument("--seed", "-s", type=int, default=0, metavar="S", help="random seed (default 0)")
    p.add_argument("--candidates", metavar="LIST",
                   help="comma-separated candidate estimators (default: every estimator that applies)")
    add_output_args(p, ("json", "table"), "json")
    p.set_defaults(func=commands.cmd_advise)
    add_privacy_commands(sub)
    add_mean_command(sub)
    add_heavy_hitter_command(sub)
    add_itemset_command(sub)
    add_joint_command(sub)
    add_deployment_command(sub)
    add_lecture_command(sub)
    add_reproduce_command(sub)
    return parser


def _describe_error(exc: BaseException) -> str:
    if isinstance(exc, OSError):
        reason = exc.strerror or str(exc)
        return f"{reason}: '{exc.filename}'" if exc.filename else one_line(reason)
    if isinstance(exc, MemoryError):
        return "out of memory (use fewer users, a smaller domain or the fast engine)"
    return one_line(exc) or type(exc).__name__


def _one_line_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                      file: Any = None, line: str | None = None) -> None:
    print(f"warning: {one_line(message)}", file=sys.stderr)


INPUT_OPTIONS = ("data", "reports", "domain")  # the file arguments a command reads


def _check_output_is_not_an_input(args: argparse.Namespace) -> None:
    """Refuse ``--output`` naming a file the command reads (also through a link): it would be replaced by the
    output and the input lost."""
    output = getattr(args, "output", None)
    if output in (None, "-") or not os.path.exists(output):
        return
    for option in INPUT_OPTIONS:
        source = getattr(args, option, None)
        if source is not None and os.path.exists(source) and os.path.samefile(source, output):
            raise UsageError(f"--output {output} is the --{option} file; refusing to overwrite an input "
                             "(choose another output file)")


@contextlib.contextmanager
def _terminate_as_exit() -> Iterator[None]:
    """SIGTERM (e.g. a job scheduler's stop) ends the command like Ctrl-C: as an exception, so an output being
    written is removed instead of left as a hidden partial temporary file."""
    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, stop)
    except ValueError:  # not the main thread (e.g. called from a test runner thread): nothing to install
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


NEGATIVE_VALUE_OPTIONS = ("--range", "--inputs")  # values that may start with a minus sign: -5,5


def _keep_negative_values(argv: Sequence[str]) -> list[str]:
    """``--range -5,5`` → ``--range=-5,5``: argparse takes a value that starts with '-' for an option, so the
    natural spelling of a range below zero could not be typed (``--range=-5,5`` always worked, and still does)."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        token = argv[i]
        if token in NEGATIVE_VALUE_OPTIONS and i + 1 < len(argv) and re.match(r"-\.?\d", argv[i + 1]):
            out.append(f"{token}={argv[i + 1]}")
            i += 2
            continue
        if token == "--":
            out.extend(argv[i:])
            break
        out.append(token)
        i += 1
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``ldp`` command line; returns the exit status (0 ok, 2 bad input).

    Bad input (an :class:`~ldp.core.errors.LDPError`, an ``OSError`` or a ``MemoryError``) prints one
    ``error: …`` line on stderr, without a traceback; warnings print as one ``warning: …`` line each.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments after the program name; None: ``sys.argv[1:]``.

    Returns
    -------
    int
        The exit status: 0 on success, 2 on bad input or a usage error (``--help`` and ``--version``: 0), 130 when
        interrupted (Ctrl-C or SIGTERM), 141 when the output pipe closed (e.g. ``| head``); a command may return
        another status of its own.
    """
    parser = build_parser()
    try:
        args = parser.parse_args(_keep_negative_values(sys.argv[1:] if argv is None else list(argv)))
    except SystemExit as exc:  # --help, --version and usage errors
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else EXIT_USAGE)
    try:
        _check_output_is_not_an_input(args)
        with warnings.catch_warnings(), _terminate_as_exit():  # warnings as one 'warning:' line each
            warnings.showwarning = _one_line_warning
            return int(args.func(args))
    except BrokenPipeError:  # e.g. `ldp sweep ... | head`: stop quietly like other command-line tools
        with contextlib.suppress(OSError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return 141
    except (LDPError, OSError, MemoryError) as exc:  # user errors only: a TypeError or KeyError is a bug
        print(f"error: {_describe_error(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
