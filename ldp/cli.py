"""The ``ldp`` command line: list components, simulate, sweep, and run a real collection end to end.

Subcommands::

    ldp mechanisms  [--kind K] [--format json|table]
    ldp estimators  [--format json|table]
    ldp simulate    --mechanism M --epsilon E [--epsilon-1 E1] [--param KEY=VALUE ...]
                    (--data FILE --column C | --sample NAME --column C | --synthetic SPEC)
                    [--domain-size D | --domain FILE | --buckets D [--range LO,HI] [--clip]]
                    [--users N] [--estimators LIST] [--engine fast|exact] [--trials T] [--seed S]
                    [--format json|csv|metrics-csv] [--output FILE]
                    (a numerical mechanism, e.g. sw, on a numerical column or synthetic spec; --estimators
                    then names its reconstructions, e.g. ems,em)
    ldp simulate    --mechanism sr|pm --epsilon E (--data FILE | --sample NAME) --column C [--range LO,HI]
                    [--clip] [--users N] [--engine exact|fast] [--trials T] [--seed S]
                    (mean and variance of a numerical column, §2.2/§6.3, JSON in the column's units)
    ldp sweep       --mechanisms LIST --epsilons LIST [--users LIST] [--domain-sizes LIST] ...
    ldp perturb     --mechanism M --epsilon E ... (--domain-size D | --domain FILE) --data FILE --column C
                    (--seed S | --secure) --output REPORTS
    ldp aggregate   --mechanism M --epsilon E ... (--domain-size D | --domain FILE) --reports REPORTS
                    [--estimators LIST] [--format json|csv] [--output FILE]
    ldp tasks       [--format json|table]
    ldp advise      --mechanism M --epsilon E ... (--domain-size D | --domain FILE) --reports REPORTS
                    [--task mse|topk|topk-precision|set|subsets|threshold] [--k K] [--rho R] [--queries Q]
                    [--threshold X] [--group NAME=V1,V2 ...] [--trials T] [--seed S] [--candidates LIST]
                    [--format json|table] [--output FILE]

The CLI only parses arguments and does I/O; every computation is a library call. Any bad input ends
with one line ``error: <reason>`` on stderr and exit status 2; output files are written atomically,
so a failed run never leaves a partial file.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import math
import os
import re
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn

import numpy as np
import pandas as pd

from ldp import __version__
from ldp.core.randomness import SecureRandom, make_rng
from ldp.core.registry import describe
from ldp.data import (
    bucketize,
    domain_from_file,
    encode_categorical,
    encode_integer,
    generate,
    get_column,
    load_sample,
    load_table,
    parse_spec,
    sample_counts,
    true_distribution,
)
from ldp.engines import ENGINES, aggregate_reports
from ldp.estimators import ESTIMATORS, get_estimator, parse_estimators
from ldp.evaluation.tasks import TASKS, get_task
from ldp.mechanisms import MECHANISMS, Mechanism, get_mechanism
from ldp.mechanisms.mean import MEAN_ENGINE_NOTES, MEAN_MECHANISMS, mean_values, simulate_mean
from ldp.mechanisms.numerical import NUMERICAL_MECHANISMS, get_numerical_mechanism
from ldp.numerical_simulation import simulate_numerical
from ldp.report_files import atomic_write, load_reports, perturb_to_file
from ldp.simulation import simulate, sweep

EXIT_USAGE = 2
MEAN_MECHANISM_NAMES = tuple(MEAN_MECHANISMS)  # sr, pm: mean (and variance) estimation, §2.2

SIMULATE_CSV_COLUMNS = ("trial", "estimator", "value", "true", "estimate")
SIMULATE_METRICS_CSV_COLUMNS = ("trial", "estimator", "metric", "value")
SWEEP_CSV_COLUMNS = ("mechanism", "epsilon", "users", "d", "engine", "trial", "estimator", "metric", "value",
                     "theoretical_variance")
AGGREGATE_CSV_COLUMNS = ("estimator", "value", "estimate")


class UsageError(ValueError):
    """A bad combination of options (reported like any other bad input)."""


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


# --------------------------------------------------------------------------- parser
class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (``error: ...``) and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"error: {_one_line(message)} (see '{self.prog} --help')\n")


def _int_list(text: str) -> list[int]:
    return [int(x) for x in _split_list(text)]


def _split_list(text: str) -> list[str]:
    return [s.strip() for s in str(text).split(",") if s.strip()]


def _add_mechanism_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("mechanism")
    g.add_argument("--mechanism", "-m", required=True, metavar="M",
                   help="mechanism name (see 'ldp mechanisms'), e.g. grr, oue, olh, l-osue")
    g.add_argument("--epsilon", "-e", required=True, type=float, metavar="E",
                   help="privacy budget ε > 0 (ε∞, the memoized step, for longitudinal mechanisms)")
    g.add_argument("--epsilon-1", dest="epsilon_1", type=float, metavar="E1",
                   help="longitudinal mechanisms only: ε1 of a single report, 0 < ε1 < ε (default ε/2)")
    g.add_argument("--param", "-p", action="append", default=[], metavar="KEY=VALUE",
                   help="a mechanism's own parameter, e.g. g=5 (OLH), omega=3 (SS), theta=0.7 (THE), "
                        "prime=11 (LH); repeatable")


def _add_domain_args(p: argparse.ArgumentParser, required: bool, size_help: str) -> None:
    g = p.add_mutually_exclusive_group(required=required)
    g.add_argument("--domain-size", "-d", dest="domain_size", type=int, metavar="D", help=size_help)
    g.add_argument("--domain", metavar="FILE",
                   help="text file listing the domain, one label per line (code = position in the file)")


def _add_population_args(p: argparse.ArgumentParser, *, sweep_mode: bool) -> None:
    g = p.add_argument_group("population (one of --data, --sample, --synthetic)")
    g.add_argument("--data", metavar="FILE", help="CSV (.csv/.tsv/.txt, optionally .gz) or Parquet table")
    g.add_argument("--sample", metavar="NAME", help="a bundled sample table: flights, weather or planes")
    g.add_argument("--column", "-c", metavar="C", help="column of --data/--sample to collect")
    g.add_argument("--synthetic", metavar="SPEC",
                   help="synthetic population, e.g. zipf:s=1.5,d=100 or gaussian:mu=0,sigma=1,d=50")
    if not sweep_mode:
        _add_domain_args(p, False, "the column holds integer codes in [0, D) (with --synthetic: sets the spec's d)")
    g.add_argument("--buckets", type=int, metavar="D",
                   help="bucketize a numerical column into D equal-width bins"
                        + (" (the sweep's d when --domain-sizes is not given)" if sweep_mode else ""))
    g.add_argument("--range", dest="value_range", metavar="LO,HI",
                   help="value range of the bins (default: the column's min,max)")
    g.add_argument("--clip", action="store_true", help="clip values outside --range instead of failing")
    if sweep_mode:
        g.add_argument("--categorical", action="store_true",
                       help="treat a numerical column as categorical (its distinct values; d then fixed)")


def _add_output_args(p: argparse.ArgumentParser, formats: Sequence[str], default: str) -> None:
    p.add_argument("--format", "-f", choices=formats, default=default, help=f"output format (default {default})")
    p.add_argument("--output", "-o", metavar="FILE", help="write to FILE (atomically) instead of stdout")


SIMULATE_EPILOG = f"""\
output formats:
  json         keys mechanism, epsilon, [epsilon_1], parameters, users, engine, seed, domain (labels),
               true (frequencies), theoretical_variance, summary (estimator -> metric -> mean over trials:
               mse, mae, l1, max_abs, topk_mse), trials (per trial: estimates and metrics), elapsed_s
               (seconds spent simulating and estimating only), estimators, source.
  csv          tidy estimates, one row per (trial, estimator, domain value): {','.join(SIMULATE_CSV_COLUMNS)}
               ('value' is the domain label, 'true' its true frequency).
  metrics-csv  tidy errors, one row per (trial, estimator, metric): {','.join(SIMULATE_METRICS_CSV_COLUMNS)}

numerical mechanisms ({', '.join(NUMERICAL_MECHANISMS.names())}) run on a numerical
column bucketized with --buckets D [--range LO,HI] or a numerical synthetic spec (e.g. gaussian:...,d=256);
--estimators then names their reconstructions (default: the mechanism's first, e.g. ems) and summary holds,
per reconstruction, the square-wave paper's metrics in the data's units: wasserstein, ks, range_mae (alpha =
0.1), range_mae_0.4, mean_error, variance_error (units squared), quantile_error (mean over the deciles).

the column is encoded as integer codes in [0, D) with --domain-size D, as the labels of --domain FILE,
as D equal-width bins with --buckets D [--range LO,HI] [--clip], and otherwise as categorical (one code per
distinct value). With --users N different from the number of rows, N users are drawn from the data's
distribution (multinomial, seeded by --seed); without --users every row is a user (--synthetic needs --users).
"""

SWEEP_EPILOG = f"""\
output: tidy CSV, one row per (configuration, trial, estimator, metric), columns
  {','.join(SWEEP_CSV_COLUMNS)}
  i.e. len(mechanisms) x len(epsilons) x len(users) x len(domain sizes) x trials x len(estimators) x 5 rows.

--param KEY=VALUE applies to every listed mechanism that has the parameter; MECH.KEY=VALUE to one mechanism.
--domain-sizes: with --synthetic the spec's d is replaced; with data, a numerical column (numeric dtype, or
--buckets/--range given) is re-bucketized into d bins; a categorical column keeps its own d.
"""

REPORTS_EPILOG = """\
report file: UTF-8 text; '#' comment lines first, one of them the JSON header
  # ldp-reports {"format": 1, "mechanism": ..., "epsilon": ..., "epsilon_1": ..., "d": ..., "params": {...},
  "users": N}
then one report per line in the mechanism's format: GRR an integer in [0, d); UE, L-UE and THE d characters
'0'/'1'; SS the omega chosen indices; BLH/OLH/L-BLH/L-OLH 'a b y' (with --param hash=xxh32: 'y seed',
as multi-freq-ldpy writes them); HR 'j y'; SHE d real numbers.
The file is written atomically (no partial file on failure). Missing values of the column are skipped.
"""

AGGREGATE_EPILOG = f"""\
The mechanism options must match the header of the report file (mechanism, ε, ε1, d and every parameter,
e.g. the hash prime of local hashing); a file without header is checked line by line only.
json keys: mechanism, epsilon, [epsilon_1], parameters, d, users, header, domain, counts (support counts),
estimates (estimator -> frequency per value).  csv: {','.join(AGGREGATE_CSV_COLUMNS)}
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
tied_with_best, [gain_vs_mi_percent], [equivalent_users], seconds, note).
"""


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="ldp", description="LDP Explorer: local differential privacy frequency estimation.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser("mechanisms", help="list the mechanisms (frequency oracles)")
    p.add_argument("--kind", choices=("one-time", "longitudinal"), help="only mechanisms of this kind")
    p.add_argument("--format", "-f", choices=("json", "table"), default="json", help="output format (default json)")
    p.set_defaults(func=cmd_mechanisms)

    p = sub.add_parser("estimators", help="list the estimators")
    p.add_argument("--format", "-f", choices=("json", "table"), default="json", help="output format (default json)")
    p.set_defaults(func=cmd_estimators)

    fmt = argparse.RawDescriptionHelpFormatter
    p = sub.add_parser("simulate", help="simulate a collection and score the estimators", epilog=SIMULATE_EPILOG,
                       formatter_class=fmt)
    _add_mechanism_args(p)
    _add_population_args(p, sweep_mode=False)
    p.add_argument("--users", "-n", type=int, metavar="N", help="number of users (default: every row)")
    p.add_argument("--estimators", default=None, metavar="LIST",
                   help="comma-separated estimators (see 'ldp estimators'; default mi); for a numerical "
                        "mechanism its reconstructions, e.g. ems,em (default: its first)")
    p.add_argument("--engine", choices=ENGINES, default="fast", help="fast (sample counts, O(d)) or exact "
                   "(run every client); default fast")
    p.add_argument("--trials", "-t", type=int, default=1, metavar="T", help="independent repetitions (default 1)")
    p.add_argument("--seed", "-s", type=int, metavar="S", help="random seed (default: fresh randomness)")
    _add_output_args(p, ("json", "csv", "metrics-csv"), "json")
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser("sweep", help="simulate a grid of configurations into a tidy CSV", epilog=SWEEP_EPILOG,
                       formatter_class=fmt)
    p.add_argument("--mechanisms", required=True, metavar="LIST", help="comma-separated mechanism names")
    p.add_argument("--epsilons", required=True, metavar="LIST", help="comma-separated ε values")
    p.add_argument("--epsilon-1", dest="epsilon_1", type=float, metavar="E1",
                   help="ε1 for the longitudinal mechanisms of the sweep (default ε/2)")
    p.add_argument("--param", "-p", action="append", default=[], metavar="[MECH.]KEY=VALUE",
                   help="mechanism parameter (repeatable)")
    _add_population_args(p, sweep_mode=True)
    p.add_argument("--users", "-n", metavar="LIST", help="comma-separated numbers of users (default: every row)")
    p.add_argument("--domain-sizes", dest="domain_sizes", metavar="LIST", help="comma-separated domain sizes")
    p.add_argument("--estimators", default="mi", metavar="LIST", help="comma-separated estimators (default mi)")
    p.add_argument("--engine", choices=ENGINES, default="fast", help="simulation engine (default fast)")
    p.add_argument("--trials", "-t", type=int, default=1, metavar="T", help="trials per configuration (default 1)")
    p.add_argument("--seed", "-s", type=int, default=0, metavar="S", help="root seed (default 0)")
    _add_output_args(p, ("csv",), "csv")
    p.set_defaults(func=cmd_sweep)

    p = sub.add_parser("perturb", help="client side: randomize a column into a report file",
                       epilog=REPORTS_EPILOG, formatter_class=fmt)
    _add_mechanism_args(p)
    _add_domain_args(p, True, "the column holds integer codes in [0, D)")
    p.add_argument("--data", required=True, metavar="FILE", help="CSV or Parquet table")
    p.add_argument("--column", "-c", required=True, metavar="C", help="column holding each user's value")
    rnd = p.add_mutually_exclusive_group(required=True)
    rnd.add_argument("--seed", "-s", type=int, metavar="S", help="seeded (reproducible) randomness, for testing")
    rnd.add_argument("--secure", action="store_true", help="the operating system's CSPRNG (real collection)")
    p.add_argument("--output", "-o", required=True, metavar="REPORTS", help="report file to write")
    p.set_defaults(func=cmd_perturb)

    p = sub.add_parser("aggregate", help="server side: estimate frequencies from a report file",
                       epilog=AGGREGATE_EPILOG, formatter_class=fmt)
    _add_mechanism_args(p)
    _add_domain_args(p, True, "domain size D (values 0 .. D-1)")
    p.add_argument("--reports", "-r", required=True, metavar="REPORTS", help="report file written by 'ldp perturb'")
    p.add_argument("--estimators", default="mi", metavar="LIST", help="comma-separated estimators (default mi)")
    _add_output_args(p, ("json", "csv"), "json")
    p.set_defaults(func=cmd_aggregate)

    p = sub.add_parser("tasks", help="list the query tasks the advisor can optimise for")
    p.add_argument("--format", "-f", choices=("json", "table"), default="json", help="output format (default json)")
    p.set_defaults(func=cmd_tasks)

    p = sub.add_parser("advise", help="server side: which estimator to use for a query, from a report file",
                       epilog=ADVISE_EPILOG, formatter_class=fmt)
    _add_mechanism_args(p)
    _add_domain_args(p, True, "domain size D (values 0 .. D-1)")
    p.add_argument("--reports", "-r", required=True, metavar="REPORTS", help="report file written by 'ldp perturb'")
    p.add_argument("--task", default="mse", metavar="TASK",
                   help=f"query task: {', '.join(TASKS)} (default mse; see 'ldp tasks')")
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
    _add_output_args(p, ("json", "table"), "json")
    p.set_defaults(func=cmd_advise)
    return parser


# --------------------------------------------------------------------------- helpers: mechanisms
def _mechanism_class(name: str) -> type[Mechanism]:
    return MECHANISMS.get(name)


def parse_params(cls: type[Mechanism], items: Sequence[str], epsilon_1: float | None = None) -> dict[str, Any]:
    """``KEY=VALUE`` strings → the mechanism's own parameters, typed by its Param table."""
    table = {p.name: p for p in cls.own_parameters()}
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip().lower().replace("-", "_")
        if not sep or not key or not value.strip():
            raise UsageError(f"--param expects KEY=VALUE, got {item!r}")
        if key in ("epsilon", "eps", "d"):
            raise UsageError(f"set {key} with --epsilon / --domain-size, not --param")
        if key not in table:
            raise UsageError(f"{cls.name} has no parameter {key!r}; its parameters: {', '.join(table) or 'none'}")
        if key in out:
            raise UsageError(f"parameter {key} given twice")
        out[key] = table[key].parse(value.strip())
    if epsilon_1 is not None:
        if cls.kind != "longitudinal":
            longitudinal = [m.name for m in MECHANISMS if m.kind == "longitudinal"]
            raise UsageError(f"--epsilon-1 applies only to longitudinal mechanisms ({', '.join(longitudinal)}); "
                             f"{cls.name} is one-time")
        if "epsilon_1" in out:
            raise UsageError("give ε1 once: --epsilon-1 or --param epsilon_1=..., not both")
        out["epsilon_1"] = epsilon_1
    return out


def build_mechanism(args: argparse.Namespace, d: int) -> Mechanism:
    """The mechanism of ``--mechanism/--epsilon/--epsilon-1/--param`` on a domain of size ``d``."""
    cls = _mechanism_class(args.mechanism)
    params = parse_params(cls, args.param, args.epsilon_1)
    return get_mechanism(cls.name, args.epsilon, d, **params)


def mechanism_info(cls: type[Mechanism]) -> dict[str, Any]:
    """Registry metadata of a mechanism class as JSON-able data."""
    info = describe(cls)
    info["parameters"] = cls.parameters_info()
    for key in ("family", "report_format", "communication", "pure", "fast_engine_exact", "spends_full_budget"):
        info[key] = getattr(cls, key, None)
    return info


def estimator_info(cls: Any) -> dict[str, Any]:
    info = describe(cls)
    info["consistent"] = bool(getattr(cls, "consistent", False))
    info["requires_pure"] = bool(getattr(cls, "requires_pure", False))
    return info


# --------------------------------------------------------------------------- helpers: output
def _json_default(obj: Any) -> Any:
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"cannot write {type(obj).__name__} as JSON")


def to_json(obj: Any) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=False, default=_json_default) + "\n"


def emit(text: str, output: str | None) -> None:
    """Write ``text`` to ``output`` atomically, or to stdout."""
    if output is None or output == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    with atomic_write(output) as fh:
        fh.write(text)


def emit_rows(columns: Sequence[str], rows: Any, output: str | None) -> None:
    """A CSV with a header row (``rows``: iterable of sequences)."""
    if output is None or output == "-":
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(rows)
        sys.stdout.flush()
        return
    with atomic_write(output) as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(rows)


def _table(rows: list[list[str]], headers: list[str]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- helpers: populations
@dataclass
class Population:
    """What simulate/sweep need from ``--data``/``--sample``/``--synthetic``."""

    labels: list[str]
    frequencies: np.ndarray
    counts: np.ndarray | None  # users per code of the data's rows (None for synthetic)
    source: dict[str, Any] = field(default_factory=dict)

    @property
    def d(self) -> int:
        return len(self.labels)

    @property
    def rows(self) -> int | None:
        return None if self.counts is None else int(self.counts.sum())


def _parse_range(text: str | None) -> tuple[float, float] | None:
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


def with_domain_size(spec: str, d: int) -> str:
    """The synthetic ``spec`` with its domain size set to ``d`` (replacing a top-level ``d=``)."""
    text = spec.strip()
    call = re.fullmatch(r"\s*([A-Za-z_]\w*)\s*\((.*)\)\s*", text, flags=re.S)
    if call:
        name, body, opener, closer = call.group(1), call.group(2), "(", ")"
    elif ":" in text:
        name, body = text.split(":", 1)
        opener, closer = ":", ""
    else:
        name, body, opener, closer = text, "", ":", ""
    pieces, depth, start = [], 0, 0
    for i, ch in enumerate(body):
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            pieces.append(body[start:i])
            start = i + 1
    pieces.append(body[start:])
    kept = [p for p in pieces if p.strip() and not re.match(r"\s*d\s*=", p)]
    return f"{name}{opener}{','.join([*kept, f'd={int(d)}'])}{closer}"


def _synthetic_population(spec: str, d: int | None = None) -> Population:
    if d is not None:
        spec = with_domain_size(spec, d)
    freqs = true_distribution(spec)
    labels = generate(spec, 1, np.random.default_rng(0)).labels  # the spec's labels (one throwaway draw)
    return Population(labels, freqs, None, {"synthetic": spec})


def _load_series(args: argparse.Namespace) -> tuple[Any, dict[str, Any]]:
    if args.column is None:
        raise UsageError("--column is required with --data/--sample")
    if args.data is not None:
        df, source = load_table(args.data), {"data": str(args.data)}
    else:
        df, source = load_sample(args.sample), {"sample": str(args.sample)}
    series = get_column(df, args.column)
    source["column"] = str(series.name)
    return series, source


def _check_population_choice(args: argparse.Namespace, sweep_mode: bool = False) -> str:
    chosen = [flag for flag, value in (("--data", args.data), ("--sample", args.sample),
                                       ("--synthetic", args.synthetic)) if value is not None]
    if len(chosen) != 1:
        raise UsageError("give exactly one of --data FILE, --sample NAME or --synthetic SPEC"
                         + (f" (got {', '.join(chosen)})" if chosen else ""))
    if args.synthetic is not None:
        bad = [flag for flag, value in (("--column", args.column), ("--buckets", args.buckets),
                                        ("--range", args.value_range), ("--domain", getattr(args, "domain", None)))
               if value is not None] + (["--clip"] if args.clip else [])
        if bad:
            raise UsageError(f"{', '.join(bad)} cannot be used with --synthetic (set d in the spec)")
    if args.buckets is None and (args.value_range is not None or args.clip) and not sweep_mode:
        raise UsageError("--range and --clip need --buckets")
    return chosen[0]


def _encoded_population(enc: Any, source: dict[str, Any]) -> Population:
    counts = enc.true_counts()
    info = dict(source, encoding=enc.kind, rows=enc.n, dropped=enc.dropped, clipped=enc.clipped)
    if enc.edges is not None:
        info["edges"] = [float(x) for x in enc.edges]
    return Population(list(enc.labels), enc.true_frequencies(), counts, info)


def load_population(args: argparse.Namespace) -> Population:
    """The population of ``simulate``: encoded column (or synthetic distribution) with its labels."""
    kind = _check_population_choice(args)
    if kind == "--synthetic":
        return _synthetic_population(args.synthetic, args.domain_size)
    if args.buckets is not None and (args.domain_size is not None or args.domain is not None):
        raise UsageError("--buckets cannot be combined with --domain-size/--domain")
    series, source = _load_series(args)
    if args.buckets is not None:
        enc = bucketize(series, args.buckets, _parse_range(args.value_range), "clip" if args.clip else "reject")
        source["encoding"] = "buckets"
    elif args.domain_size is not None:
        enc = encode_integer(series, args.domain_size)
    elif args.domain is not None:
        enc = encode_categorical(series, domain=domain_from_file(args.domain))
    else:
        enc = encode_categorical(series)
    return _encoded_population(enc, source)


def _check_users(n: int | None) -> None:
    if n is not None and n < 1:
        raise UsageError(f"--users must be at least 1, got {n}")


def _population_rng(seed: int | None) -> np.random.Generator:
    """Generator drawing the users (independent of the simulation's own stream from the same seed)."""
    make_rng(seed)  # validates the seed
    return np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])


def _users_counts(pop: Population, n: int | None, rng: np.random.Generator) -> np.ndarray:
    """Users per code: the data's own rows when ``n`` is None or equals the row count, else a multinomial."""
    if n is None:
        if pop.counts is None:
            raise UsageError("--users is required with --synthetic")
        return pop.counts
    if pop.counts is not None and n == pop.rows:
        return pop.counts
    return sample_counts(pop.frequencies, n, rng)


# --------------------------------------------------------------------------- commands
def cmd_mechanisms(args: argparse.Namespace) -> int:
    classes = [c for c in MECHANISMS if args.kind is None or c.kind == args.kind]
    if args.format == "json":
        emit(to_json([mechanism_info(c) for c in classes]), None)
        return 0
    rows = [[c.name, c.kind, ", ".join(p.name for p in c.own_parameters()) or "-", c.description] for c in classes]
    emit(_table(rows, ["NAME", "KIND", "PARAMETERS", "DESCRIPTION"]), None)
    return 0


def cmd_estimators(args: argparse.Namespace) -> int:
    classes = list(ESTIMATORS)
    if args.format == "json":
        emit(to_json([estimator_info(c) for c in classes]), None)
        return 0
    rows = [[c.name, "yes" if c.consistent else "no", c.description] for c in classes]
    emit(_table(rows, ["NAME", "CONSISTENT", "DESCRIPTION"]), None)
    return 0


def _check_trials(trials: int) -> None:
    if trials < 1:
        raise UsageError(f"--trials must be at least 1, got {trials}")


def _numerical_edges(args: argparse.Namespace, pop: Population) -> np.ndarray:
    """Bucket edges (real units) of a numerical population; a one-line error for a categorical one."""
    edges = pop.source.get("edges")
    if edges is None and args.synthetic is not None:
        spec = args.synthetic if args.domain_size is None else with_domain_size(args.synthetic, args.domain_size)
        edges = generate(spec, 1, np.random.default_rng(0)).edges
    if edges is None:
        what = f"synthetic spec {args.synthetic!r}" if args.synthetic is not None else "the column"
        raise UsageError(f"{args.mechanism} is a numerical mechanism but {what} is categorical: bucketize a "
                         "numerical column with --buckets D [--range LO,HI], or use a numerical synthetic spec "
                         "(e.g. gaussian:mu=0,sigma=1,d=256)")
    return np.asarray(edges, dtype=np.float64)


def _reconstructions(cls: Any, spec: str | None) -> list[str]:
    offered = list(cls.reconstructions) or ["default"]  # a mechanism without named reconstructions: its own
    names = [s.strip().lower() for s in spec.split(",") if s.strip()] if spec is not None else offered[:1]
    if not names:
        raise UsageError(f"no reconstruction given; {cls.name} offers: {', '.join(offered)}")
    bad = [n for n in names if n not in offered]
    if bad:
        raise UsageError(f"{cls.name} has no reconstruction {bad[0]!r} (--estimators names a numerical "
                         f"mechanism's reconstructions); it offers: {', '.join(offered)}")
    return list(dict.fromkeys(names))


def cmd_simulate_numerical(args: argparse.Namespace) -> int:
    """``simulate`` with a registered numerical mechanism: one run per reconstruction on the same collections
    (same seed), scored with the square-wave paper's §3 metrics in the data's units."""
    cls = NUMERICAL_MECHANISMS.get(args.mechanism)
    parse_params(cls, args.param, args.epsilon_1)  # option errors before any file is read
    names = _reconstructions(cls, args.estimators)
    with warnings.catch_warnings(record=True) as caught:  # bucketize: more buckets than distinct values
        warnings.simplefilter("always", UserWarning)
        pop = load_population(args)
    notes = [_one_line(w.message) for w in caught if issubclass(w.category, UserWarning)]
    for note in notes:
        print(f"warning: {note}", file=sys.stderr)
    edges = _numerical_edges(args, pop)
    mech = get_numerical_mechanism(cls.name, args.epsilon, pop.d, **parse_params(cls, args.param, args.epsilon_1))
    counts = _users_counts(pop, args.users, _population_rng(args.seed))
    seed = args.seed if args.seed is not None else int(np.random.SeedSequence().entropy % 2**63)
    results = {rec: simulate_numerical(mech, counts, edges=edges, engine=args.engine,
                                       reconstruction=rec if cls.reconstructions else None, trials=args.trials,
                                       seed=seed) for rec in names}
    first = next(iter(results.values()))
    if args.format == "csv":
        truth = first.true_frequencies
        rows = ((t, rec, label, repr(float(truth[v])), repr(float(res.estimates[t, v])))
                for t in range(args.trials) for rec, res in results.items() for v, label in enumerate(pop.labels))
        emit_rows(SIMULATE_CSV_COLUMNS, rows, args.output)
        return 0
    if args.format == "metrics-csv":
        rows = ((t, rec, metric, repr(value)) for t in range(args.trials) for rec, res in results.items()
                for metric, value in res.per_trial(t).items())
        emit_rows(SIMULATE_METRICS_CSV_COLUMNS, rows, args.output)
        return 0
    out = {
        "mechanism": cls.name,
        "epsilon": mech.epsilon,
        "parameters": mech.params,
        "users": first.n,
        "engine": args.engine,
        "seed": args.seed,
        "domain": list(pop.labels),
        "edges": edges.tolist(),
        "true": first.true_frequencies.tolist(),
        "summary": {rec: res.summary() for rec, res in results.items()},
        "trials": [{"trial": t, "estimates": {rec: res.estimates[t].tolist() for rec, res in results.items()},
                    "metrics": {rec: res.per_trial(t) for rec, res in results.items()}} for t in range(args.trials)],
        "elapsed_s": sum(res.elapsed_s for res in results.values()),
        "warnings": notes,
        "estimators": names,
        "source": pop.source,
    }
    emit(to_json(out), args.output)
    return 0


# --------------------------------------------------------------------------- mean mechanisms (sr, pm)
def cmd_simulate_mean(args: argparse.Namespace) -> int:
    """``simulate`` with a mean mechanism (sr, pm) on a numerical column: mean and variance in real units."""
    bad = [flag for flag, value in (("--synthetic", args.synthetic), ("--buckets", args.buckets),
                                    ("--domain-size", args.domain_size), ("--domain", args.domain),
                                    ("--estimators", args.estimators), ("--epsilon-1", args.epsilon_1))
           if value is not None] + (["--param"] if args.param else [])
    if bad:
        raise UsageError(f"{', '.join(bad)} cannot be used with the mean mechanism {args.mechanism} "
                         "(give --data FILE or --sample NAME, --column C and optionally --range LO,HI)")
    if args.format != "json":
        raise UsageError(f"the mean mechanism {args.mechanism} writes JSON only (--format json)")
    if (args.data is None) == (args.sample is None):
        raise UsageError("give exactly one of --data FILE or --sample NAME")
    series, source = _load_series(args)
    x, value_range, clipped, dropped = mean_values(series, _parse_range(args.value_range), args.clip)
    if args.users is not None and args.users < 2:
        raise UsageError(f"--users must be at least 2 for a mean mechanism (the 50/50 split), got {args.users}")
    if args.users is not None and args.users != x.size:
        x = x[_population_rng(args.seed).integers(0, x.size, size=args.users)]  # users drawn from the rows
    res = simulate_mean(args.mechanism, args.epsilon, x, value_range, engine=args.engine, trials=args.trials,
                        seed=args.seed)
    if args.engine == "fast" and args.mechanism == "pm":
        print(f"warning: {MEAN_ENGINE_NOTES[('pm', 'fast')]}", file=sys.stderr)
    out = {
        "mechanism": args.mechanism,
        "epsilon": res.epsilon,
        "users": res.users,
        "engine": args.engine,
        "engine_note": MEAN_ENGINE_NOTES[(args.mechanism, args.engine)],
        "seed": args.seed,
        "range": list(value_range),
        "true_mean": res.true_mean,
        "true_variance": res.true_variance,
        "estimated_mean": res.estimated_mean.tolist(),
        "estimated_variance": res.estimated_variance.tolist(),
        "theoretical_variance": res.theoretical_variance,
        "summary": res.summary(),
        "source": dict(source, rows=int(series.size), dropped=dropped, clipped=clipped),
    }
    emit(to_json(out), args.output)
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    _check_users(args.users)
    _check_trials(args.trials)
    if args.mechanism not in MECHANISMS and args.mechanism in NUMERICAL_MECHANISMS:
        return cmd_simulate_numerical(args)
    if args.mechanism not in MECHANISMS and args.mechanism in MEAN_MECHANISM_NAMES:
        return cmd_simulate_mean(args)
    cls = _mechanism_class(args.mechanism)
    parse_params(cls, args.param, args.epsilon_1)  # option errors before any file is read
    pop = load_population(args)
    mech = build_mechanism(args, pop.d)
    names = parse_estimators(args.estimators if args.estimators is not None else "mi", mech)
    counts = _users_counts(pop, args.users, _population_rng(args.seed))
    result = simulate(mech, counts, estimators=names, engine=args.engine, trials=args.trials, seed=args.seed)
    for warning in result.extras.get("warnings", []):
        print(f"warning: {warning}", file=sys.stderr)
    if args.format == "csv":
        truth = result.true_frequencies
        rows = ((t, est, label, repr(float(truth[v])), repr(float(arr[t, v])))
                for t in range(result.trials) for est, arr in result.estimates.items()
                for v, label in enumerate(pop.labels))
        emit_rows(SIMULATE_CSV_COLUMNS, rows, args.output)
        return 0
    if args.format == "metrics-csv":
        rows = ((t, est, metric, repr(float(values[t])))
                for t in range(result.trials) for est, per in result.metrics.items() for metric, values in per.items())
        emit_rows(SIMULATE_METRICS_CSV_COLUMNS, rows, args.output)
        return 0
    out = result.to_dict(labels=pop.labels)
    out["estimators"] = names
    out["source"] = pop.source
    emit(to_json(out), args.output)
    return 0


def _sweep_params(mechanisms: list[type[Mechanism]], items: Sequence[str]) -> dict[str, dict[str, Any]]:
    """``[MECH.]KEY=VALUE`` → mechanism name → its parameters."""
    out: dict[str, dict[str, Any]] = {m.name: {} for m in mechanisms}
    for item in items:
        key, sep, value = item.partition("=")
        target, dot, key = key.rpartition(".")
        if dot:
            cls = _mechanism_class(target)
            if cls.name not in out:
                raise UsageError(f"--param {item!r}: mechanism {cls.name} is not in --mechanisms")
            targets = [cls]
        else:
            name = key.strip().lower().replace("-", "_")
            targets = [m for m in mechanisms if name in {p.name for p in m.own_parameters()}]
            if not targets:
                raise UsageError(f"--param {item!r}: none of the mechanisms has a parameter {key.strip()!r}")
        for cls in targets:
            parsed = parse_params(cls, [f"{key}{sep}{value}"])
            clash = set(parsed) & set(out[cls.name])
            if clash:
                raise UsageError(f"parameter {', '.join(clash)} of {cls.name} given twice")
            out[cls.name].update(parsed)
    return out


def _sweep_population(args: argparse.Namespace, domain_sizes: list[int] | None) -> tuple[
        Callable[[int, int, np.random.Generator], np.ndarray], list[int], int | None]:
    """``population(d, n, rng)`` for ``sweep``, the domain sizes and the number of rows (data only)."""
    kind = _check_population_choice(args, sweep_mode=True)
    if kind == "--synthetic":
        sizes = domain_sizes or [int(parse_spec(args.synthetic)[1]["d"])]
        freqs = {d: _synthetic_population(args.synthetic, d).frequencies for d in sizes}
        return (lambda d, n, rng: sample_counts(freqs[d], n, rng)), sizes, None

    series, _ = _load_series(args)
    numeric = pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series.dtype)
    numerical = args.buckets is not None or args.value_range is not None or (
        numeric and domain_sizes is not None and not args.categorical)
    if args.categorical and (args.buckets is not None or args.value_range is not None or args.clip):
        raise UsageError("--categorical cannot be combined with --buckets/--range/--clip")
    if not numerical:
        if args.clip:
            raise UsageError("--clip needs a numerical column (--buckets or --range)")
        enc = encode_categorical(series)
        sizes = domain_sizes or [enc.d]
        if any(d != enc.d for d in sizes):
            raise UsageError(f"column {series.name!r} is categorical with d={enc.d} distinct values; "
                             f"--domain-sizes cannot change it (got {','.join(map(str, sizes))})")
        encoded = {enc.d: enc}
    else:
        if domain_sizes is None and args.buckets is None:
            raise UsageError("give --buckets D or --domain-sizes for a numerical column")
        sizes = domain_sizes or [args.buckets]
        value_range = _parse_range(args.value_range)
        mode = "clip" if args.clip else "reject"
        encoded = {d: bucketize(series, d, value_range, mode) for d in dict.fromkeys(sizes)}
    rows = next(iter(encoded.values())).n

    def population(d: int, n: int, rng: np.random.Generator) -> np.ndarray:
        enc = encoded[d]
        return enc.true_counts() if n == enc.n else sample_counts(enc.true_counts(), n, rng)

    return population, sizes, rows


def cmd_sweep(args: argparse.Namespace) -> int:
    _check_trials(args.trials)
    classes = [_mechanism_class(name) for name in dict.fromkeys(_split_list(args.mechanisms))]
    if not classes:
        raise UsageError("--mechanisms is empty")
    try:
        epsilons = [float(x) for x in _split_list(args.epsilons)]
        users = _int_list(args.users) if args.users is not None else None
        domain_sizes = _int_list(args.domain_sizes) if args.domain_sizes is not None else None
    except ValueError as exc:
        raise UsageError(f"bad list of numbers: {exc}") from None
    if not epsilons:
        raise UsageError("--epsilons is empty")
    for n in users or []:
        _check_users(n)
    if users == [] or domain_sizes == []:
        raise UsageError("--users and --domain-sizes need at least one value")
    if args.epsilon_1 is not None and all(c.kind != "longitudinal" for c in classes):
        raise UsageError("--epsilon-1 applies only to longitudinal mechanisms and none is in --mechanisms")
    params = _sweep_params(classes, args.param)
    population, sizes, rows = _sweep_population(args, domain_sizes)
    if users is None:
        if rows is None:
            raise UsageError("--users is required with --synthetic")
        users = [rows]
    # Validate every configuration and estimator up front (cheap), so errors come before any work.
    for cls in classes:
        extra = dict(params[cls.name])
        if args.epsilon_1 is not None and cls.kind == "longitudinal":
            extra.setdefault("epsilon_1", args.epsilon_1)
        for eps in epsilons:
            for d in sizes:
                parse_estimators(args.estimators, get_mechanism(cls.name, eps, d, **extra))
    table = sweep(population, mechanisms=[c.name for c in classes], epsilons=epsilons, users=users,
                  domain_sizes=sizes, estimators=parse_estimators(args.estimators), trials=args.trials,
                  engine=args.engine, seed=args.seed, params=params, epsilon_1=args.epsilon_1)
    table = table.reindex(columns=list(SWEEP_CSV_COLUMNS))
    emit_rows(SWEEP_CSV_COLUMNS, table.itertuples(index=False, name=None), args.output)
    return 0


def _domain(args: argparse.Namespace) -> tuple[int, list[str]]:
    if args.domain is not None:
        labels = domain_from_file(args.domain)
        return len(labels), labels
    if args.domain_size < 2:
        raise UsageError(f"domain size must be at least 2, got {args.domain_size}")
    return args.domain_size, [str(v) for v in range(args.domain_size)]


def cmd_perturb(args: argparse.Namespace) -> int:
    cls = _mechanism_class(args.mechanism)
    parse_params(cls, args.param, args.epsilon_1)
    d, labels = _domain(args)
    mech = build_mechanism(args, d)
    rng = SecureRandom() if args.secure else make_rng(args.seed)
    series = get_column(load_table(args.data), args.column)
    enc = encode_integer(series, d) if args.domain is None else encode_categorical(series, domain=labels)
    start = time.perf_counter()
    written = perturb_to_file(args.output, mech, enc.values, rng,
                              comments=[f"source column {enc.name!r}; randomness: "
                                        + ("os CSPRNG" if args.secure else "seeded")])
    elapsed = time.perf_counter() - start
    note = f", {enc.dropped} missing value(s) skipped" if enc.dropped else ""
    print(f"wrote {written} {mech.name} reports to {args.output} in {elapsed:.2f} s{note}", file=sys.stderr)
    return 0


def cmd_aggregate(args: argparse.Namespace) -> int:
    cls = _mechanism_class(args.mechanism)
    parse_params(cls, args.param, args.epsilon_1)
    d, labels = _domain(args)
    mech = build_mechanism(args, d)
    names = parse_estimators(args.estimators, mech)
    reports, header = load_reports(args.reports, mech)
    agg = aggregate_reports(mech, reports)
    estimates = {}
    for name in names:
        estimator = get_estimator(name)
        estimates[name] = estimator.estimate(mech, agg.counts, agg.n)
        trace = getattr(estimator, "last_trace", None)
        if trace is not None and not trace.converged:
            print(f"warning: {name} did not converge in {trace.iterations} iterations; the last iterate is used",
                  file=sys.stderr)
    if args.format == "csv":
        rows = ((name, label, repr(float(est[v]))) for name, est in estimates.items() for v, label in enumerate(labels))
        emit_rows(AGGREGATE_CSV_COLUMNS, rows, args.output)
        return 0
    params = mech.params
    out: dict[str, Any] = {"mechanism": mech.name, "epsilon": mech.epsilon}
    if mech.kind == "longitudinal":
        out["epsilon_1"] = params.pop("epsilon_1")
    out.update({"parameters": params, "d": mech.d, "users": agg.n, "header": header is not None,
                "domain": labels, "counts": agg.counts.tolist(),
                "estimates": {name: est.tolist() for name, est in estimates.items()}})
    emit(to_json(out), args.output)
    return 0


def task_info(name: str) -> dict[str, Any]:
    """A query task of :data:`ldp.evaluation.tasks.TASKS` as JSON-able data."""
    task = TASKS[name]
    return {"name": task.name, "display_name": task.display_name, "description": task.description,
            "parameters": dict(task.parameters), "better": task.better, "paper": task.paper}


def cmd_tasks(args: argparse.Namespace) -> int:
    if args.format == "json":
        emit(to_json([task_info(name) for name in TASKS]), None)
        return 0
    rows = [[t.name, ", ".join(f"{k}={v}" if v is not None else k for k, v in t.parameters.items()) or "-",
             t.better, t.description] for t in TASKS.values()]
    emit(_table(rows, ["NAME", "PARAMETERS", "BETTER", "DESCRIPTION"]), None)
    return 0


def _parse_groups(items: Sequence[str]) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {}
    for item in items:
        name, sep, members = item.partition("=")
        values = _split_list(members)
        if not sep or not name.strip() or not values:
            raise UsageError(f"--group expects NAME=V1,V2,..., got {item!r}")
        if name.strip() in groups:
            raise UsageError(f"group {name.strip()!r} given twice")
        groups[name.strip()] = values
    return groups


def _advise_task_params(args: argparse.Namespace) -> dict[str, Any]:
    """The task parameters given on the command line (only those; the task checks they are its own)."""
    given = {"k": args.k, "rho": args.rho, "queries": args.queries, "threshold": args.threshold,
             "groups": _parse_groups(args.group) if args.group is not None else None}
    params = {key: value for key, value in given.items() if value is not None}
    if args.rho is not None and not 0 < args.rho <= 1:
        raise UsageError(f"--rho is a fraction of the domain, 0 < R <= 1 (e.g. 0.1 for 10%), got {args.rho:g}")
    task = get_task(args.task)
    unknown = [key for key in params if key not in task.parameters]
    if unknown:
        flags = ", ".join("--group" if key == "groups" else f"--{key}" for key in unknown)
        valid = ", ".join("--group" if key == "groups" else f"--{key}" for key in task.parameters) or "none"
        raise UsageError(f"{flags} does not apply to task {task.name} (its options: {valid})")
    return params


def cmd_advise(args: argparse.Namespace) -> int:
    from ldp.studies.advisor import recommend  # the advisor imports every estimator: only this command needs it

    cls = _mechanism_class(args.mechanism)
    parse_params(cls, args.param, args.epsilon_1)
    task = get_task(args.task)
    task_params = _advise_task_params(args)
    if args.trials < 2:
        raise UsageError(f"--trials must be at least 2 (the standard error needs two), got {args.trials}")
    d, labels = _domain(args)
    mech = build_mechanism(args, d)
    task.bind(d, labels=labels, **task_params)  # k ≤ d, ρ in (0, 1], known labels: before the file is read
    candidates = parse_estimators(args.candidates, mech) if args.candidates is not None else None
    reports, _ = load_reports(args.reports, mech)
    agg = aggregate_reports(mech, reports)
    rec = recommend(mech, agg.counts, agg.n, task=task.name, trials=args.trials, seed=args.seed,
                    candidates=candidates, labels=labels, **task_params)
    for _, row in rec.table.iterrows():
        if row["note"]:
            print(f"warning: {row['estimator']}: {row['note']}", file=sys.stderr)
    value_key = "expected_error" if rec.better == "lower" else "expected_score"
    candidates_out = []
    for _, row in rec.table.iterrows():
        item: dict[str, Any] = {"rank": int(row["rank"]), "estimator": row["estimator"],
                                "display_name": row["display name"], "consistent": bool(row["consistent"]),
                                value_key: _finite_or_none(row[rec.value_column]),
                                "standard_error": _finite_or_none(row["standard error"]),
                                "trial_sd": _finite_or_none(row["trial SD"]),
                                "tied_with_best": bool(row["tied with best"])}
        if "Γ vs MI (%)" in rec.table.columns:
            item["gain_vs_mi_percent"] = _finite_or_none(row["Γ vs MI (%)"])
        if "equivalent users" in rec.table.columns:
            item["equivalent_users"] = _finite_or_none(row["equivalent users"])
        item["seconds"] = float(row["seconds"])
        item["note"] = str(row["note"])
        candidates_out.append(item)
    if args.format == "table":
        headers = ["RANK", "ESTIMATOR", value_key.upper().replace("_", " "), "SE", "TIED", "GAIN VS MI %",
                   "EQUIVALENT USERS", "NOTE"]
        rows = [[str(c["rank"]), c["estimator"], _fmt(c[value_key]), _fmt(c["standard_error"]),
                 "yes" if c["tied_with_best"] else "no", _fmt(c.get("gain_vs_mi_percent"), ".1f"),
                 _fmt(c.get("equivalent_users"), ",.0f"), c["note"] or "-"] for c in candidates_out]
        emit(f"best: {rec.best}\n{rec.summary()}\n\n" + _table(rows, headers), args.output)
        return 0
    params = mech.params
    out: dict[str, Any] = {"best": rec.best, "task": rec.task, "task_label": rec.task_label,
                           "task_params": rec.to_dict()["task_params"], "better": rec.better,
                           "trials": rec.trials, "seed": rec.seed, "users": rec.n, "mechanism": mech.name,
                           "epsilon": mech.epsilon}
    if mech.kind == "longitudinal":
        out["epsilon_1"] = params.pop("epsilon_1")
    out.update({"parameters": params, "d": mech.d, "fit": rec.fit, "summary": rec.summary(),
                "elapsed_s": rec.elapsed_s, "candidates": candidates_out})
    emit(to_json(out), args.output)
    return 0


def _finite_or_none(value: Any) -> float | None:
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def _fmt(value: float | None, spec: str = ".4g") -> str:
    return "-" if value is None else format(value, spec)


# --------------------------------------------------------------------------- entry point
def _describe_error(exc: BaseException) -> str:
    if isinstance(exc, OSError):
        reason = exc.strerror or str(exc)
        return f"{reason}: '{exc.filename}'" if exc.filename else _one_line(reason)
    if isinstance(exc, KeyError):
        return f"missing key {exc.args[0]!r}" if exc.args else "missing key"
    if isinstance(exc, OverflowError):
        return f"a number is too large ({_one_line(exc)})"
    if isinstance(exc, MemoryError):
        return "out of memory (use fewer users, a smaller domain or the fast engine)"
    return _one_line(exc) or type(exc).__name__


def _one_line_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                      file: Any = None, line: str | None = None) -> None:
    print(f"warning: {message}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``ldp`` command line; returns the exit status (0 ok, 2 bad input)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version and usage errors
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else EXIT_USAGE)
    try:
        with warnings.catch_warnings():  # library warnings (e.g. empty buckets) as one 'warning:' line each
            warnings.showwarning = _one_line_warning
            return int(args.func(args))
    except BrokenPipeError:  # e.g. `ldp sweep ... | head`: stop quietly like other command-line tools
        with contextlib.suppress(OSError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return 141
    except (ValueError, TypeError, OSError, KeyError, OverflowError, MemoryError) as exc:
        print(f"error: {_describe_error(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
