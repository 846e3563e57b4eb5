"""The ``ldp`` subcommands. Each parses nothing itself (the parser did), calls the library, and hands an
:class:`~ldp.cli.render.Output` to the one renderer. Commands work for every mechanism kind where they make
sense; what differs by kind comes from the registries' metadata, never from a list of names here."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ldp.cli.options import (
    UsageError,
    build_mechanism,
    mechanism_class,
    number_list,
    parse_params,
    split_list,
)
from ldp.cli.population import load_numbers, load_population, sweep_population, users_counts, users_rng
from ldp.cli.render import Output, finite_or_none, fmt, render
from ldp.cli.report_commands import (  # noqa: F401 - cmd_perturb, cmd_aggregate and the constants are re-exported
    AGGREGATE_CSV_COLUMNS,
    NUMERICAL_DEFAULT_BUCKETS,
    cmd_aggregate,
    cmd_perturb,
    domain_of,
    estimators_of,
    mechanism_header,
    warn,
)
from ldp.core.registry import ESTIMATORS, MECHANISMS, PROTOCOLS, describe
from ldp.data.loaders import load_json_object, load_table, read_text_lines
from ldp.data.samples import list_samples
from ldp.engines import aggregate_reports
from ldp.estimators import parse_estimators
from ldp.evaluation.tasks import TASKS, get_task
from ldp.mechanisms import Mechanism, get_mechanism, mechanisms_of
from ldp.mechanisms.protocol import Protocol
from ldp.report_files import load_reports
from ldp.simulation import SWEEP_COLUMNS, simulate, sweep_rows
from ldp.studies.configuration import SimulationConfiguration
from ldp.studies.mean_variance import engine_note, simulate_mean

__all__ = ["MAX_USERS", "SIMULATE_CSV_COLUMNS", "SIMULATE_METRICS_CSV_COLUMNS", "cmd_advise", "cmd_estimators",
           "cmd_mechanisms", "cmd_simulate", "cmd_sweep", "cmd_tasks", "estimator_info", "mechanism_info",
           "progress_bar", "protocol_info", "task_info"]

SIMULATE_CSV_COLUMNS = ("trial", "estimator", "value", "true", "estimate")
SIMULATE_METRICS_CSV_COLUMNS = ("trial", "estimator", "metric", "value")


def progress_bar(total: int, label: str) -> Any:
    """A tqdm progress bar on stderr (silent when stderr is not a terminal, e.g. in scripts and tests).

    Parameters
    ----------
    total : int
        The number of steps (configurations) the bar counts to.
    label : str
        The bar's label (e.g. "sweep").

    Returns
    -------
    tqdm.tqdm
        The bar, a context manager; ``update(k)`` advances it by k configurations.
    """
    from tqdm import tqdm

    return tqdm(total=total, desc=label, unit="config", file=sys.stderr, disable=None, leave=False)


# --------------------------------------------------------------------------- listings
def mechanism_info(cls: type[Mechanism]) -> dict[str, Any]:
    """Registry metadata of a mechanism class as JSON-able data.

    Parameters
    ----------
    cls : type of Mechanism
        A registered mechanism class.

    Returns
    -------
    dict
        :func:`~ldp.core.registry.describe`'s keys, ``parameters`` (``parameters_info()``: every parameter with its
        range and default, ε and the domain parameter first) and the class's ``kind``, ``collection``,
        ``input_kind``, ``report_format``, ``communication``, ``pure``, ``fast_engine_exact``, ``fast_engine_note``,
        ``spends_full_budget`` and ``default_estimator``.
    """
    info = describe(cls)
    info["parameters"] = cls.parameters_info()
    for key in ("kind", "collection", "input_kind", "report_format", "communication", "pure", "fast_engine_exact",
                "fast_engine_note", "spends_full_budget", "default_estimator"):
        info[key] = getattr(cls, key)
    return info


def estimator_info(cls: Any) -> dict[str, Any]:
    """Registry metadata of an estimator as JSON-able data (one entry of ``ldp estimators --format json``).

    Parameters
    ----------
    cls : type
        A registered estimator class (``ESTIMATORS``).

    Returns
    -------
    dict
        :func:`~ldp.core.registry.describe`'s keys plus ``kinds`` (list of the mechanism kinds it serves),
        ``base`` (the registered estimator whose estimate it post-processes; None: it works from the aggregate),
        and the flags ``consistent`` (its estimates are non-negative and sum to one),
        ``requires_pure`` and ``clip_queries``.
    """
    info = describe(cls)
    info.update({"kinds": list(cls.kinds), "base": cls.base, "consistent": bool(cls.consistent),
                 "requires_pure": bool(cls.requires_pure), "clip_queries": bool(cls.clip_queries)})
    return info


def protocol_info(cls: type[Protocol]) -> dict[str, Any]:
    """Registry metadata of an interactive protocol as JSON-able data.

    Parameters
    ----------
    cls : type of Protocol
        A registered protocol (heavy hitters, itemset mining).

    Returns
    -------
    dict
        :func:`~ldp.core.registry.describe`'s keys, ``parameters`` (its declared parameters with ranges and
        defaults) and the protocol's ``kind``, ``collection``, ``client`` and ``cli_command``.
    """
    info = describe(cls)
    info["parameters"] = cls.parameters_info()
    for key in ("kind", "collection", "client", "cli_command"):
        info[key] = getattr(cls, key)
    return info


def cmd_mechanisms(args: argparse.Namespace) -> int:
    """Every mechanism and every interactive protocol (heavy hitters, itemset miners), with its kind.

    Parameters
    ----------
    args : argparse.Namespace
        ``ldp mechanisms``'s options: ``kind`` (a mechanism kind, a protocol kind or a collection — "one-time",
        "longitudinal", "interactive" — or None for all) and ``format`` (table or JSON).

    Returns
    -------
    int
        The exit status, 0 (the listing is written to stdout).
    """
    mechanisms, protocols = ([c for c in registry if args.kind is None or args.kind in (c.kind, c.collection)]
                             for registry in (MECHANISMS, PROTOCOLS))
    classes = [*mechanisms, *protocols]
    rows = [[c.name, c.kind, c.collection if c.collection != "one-time" else "-",
             ", ".join(p.name for p in c.own_parameters()) or "-", c.description] for c in classes]
    info = [*map(mechanism_info, mechanisms), *map(protocol_info, protocols)]
    render(Output(info, headers=["NAME", "KIND", "COLLECTION", "PARAMETERS", "DESCRIPTION"], table=rows), args.format)
    return 0


def cmd_estimators(args: argparse.Namespace) -> int:
    """``ldp estimators``: the registered estimators (name, kinds, consistent or not, description).

    Parameters
    ----------
    args : argparse.Namespace
        ``kind`` (list only the estimators serving this mechanism kind; None: all) and ``format``.

    Returns
    -------
    int
        0, after writing the table (or JSON, one :func:`estimator_info` per estimator) to stdout.
    """
    classes = [c for c in ESTIMATORS if args.kind is None or args.kind in c.kinds]
    rows = [[c.name, ",".join(c.kinds), "yes" if c.consistent else "no", c.description] for c in classes]
    render(Output([estimator_info(c) for c in classes], headers=["NAME", "KINDS", "CONSISTENT", "DESCRIPTION"],
                  table=rows), args.format)
    return 0


def task_info(name: str) -> dict[str, Any]:
    """A registered query task (:data:`ldp.core.registry.TASKS`) as JSON-able data.

    Parameters
    ----------
    name : str
        The task's registered name.

    Returns
    -------
    dict
        ``name``, ``display_name``, ``description``, ``parameters`` (parameter → default, None where the task
        needs it given), ``better`` ("lower" or "higher") and ``paper``.

    Raises
    ------
    InvalidInput
        An unknown task name.
    """
    task = TASKS.get(name)
    return {"name": task.name, "display_name": task.display_name, "description": task.description,
            "parameters": dict(task.parameters), "better": task.better, "paper": task.paper}


def cmd_tasks(args: argparse.Namespace) -> int:
    """``ldp tasks``: the query tasks the advisor can optimise for, with their parameters and direction.

    Parameters
    ----------
    args : argparse.Namespace
        Reads ``format`` only (the listing has no filter).

    Returns
    -------
    int
        0 once the listing is written.
    """
    rows = [[t.name, ", ".join(f"{k}={v}" if v is not None else k for k, v in t.parameters.items()) or "-",
             t.better, t.description] for t in TASKS]
    render(Output([task_info(name) for name in TASKS.names()], headers=["NAME", "PARAMETERS", "BETTER", "DESCRIPTION"],
                  table=rows), args.format)
    return 0


def _short(label: str) -> str:
    """A stand-in label's first clause ("stand-in for the Income data of the SW paper")."""
    return label.split(" (")[0].split(":")[0]


def cmd_samples(args: argparse.Namespace) -> int:
    samples = list_samples(args.kind)
    rows = []
    for s in samples:
        labels = [f"{c['name']}: {_short(c['stand_in'])}" for c in s["columns"] if c.get("stand_in")]
        if not labels and s.get("stand_in"):
            labels = [_short(s["stand_in"])]
        rows.append([s["name"], s["kind"], f"{s['rows']:,}", s["title"], "; ".join(labels) or "-"])
    render(Output(samples, headers=["NAME", "KIND", "ROWS", "TITLE", "STAND-IN"], table=rows), args.format)
    return 0


# --------------------------------------------------------------------------- simulate
MAX_USERS = 10**12


def _check_users(n: int | None, least: int = 1) -> None:
    if n is not None and n < least:
        raise UsageError(f"--users must be at least {least}, got {n}")
    if n is not None and n > MAX_USERS:
        raise UsageError(f"--users must be at most {MAX_USERS:.0e} (a population larger than any real one), got {n}")


def _check_trials(trials: int) -> None:
    if trials < 1:
        raise UsageError(f"--trials must be at least 1, got {trials}")


def cmd_simulate(args: argparse.Namespace) -> int:
    """``ldp simulate``: simulate a collection on a population and score the estimators.

    Three paths: ``--config FILE`` re-runs a configuration downloaded from the Playground; a mean mechanism
    estimates the mean and variance of a numerical column in real units; any other mechanism simulates the
    population's histogram and writes the estimates and metrics (JSON, or CSV of estimates or of metrics).

    Parameters
    ----------
    args : argparse.Namespace
        The options of ``ldp simulate`` (mechanism, population, ``users``, estimators, engine, ``trials``,
        ``seed``, ``config``/``data``, ``format``, ``output``).

    Returns
    -------
    int
        0 after writing the result (the data's notes and the simulation's warnings go to stderr).

    Raises
    ------
    UsageError
        A missing ``--mechanism``/``--epsilon`` without ``--config``, options given beside ``--config``, fewer than
        one trial, users below 1 (2 for a mean) or above 10¹², or a format the path does not write.
    InvalidInput
        A bad mechanism, population, estimator or file.
    """
    if args.config is not None:
        return _simulate_configuration(args)
    missing = [flag for flag, value in (("--mechanism/-m", args.mechanism), ("--epsilon/-e", args.epsilon))
               if value is None]
    if missing:
        raise UsageError(f"the following arguments are required: {', '.join(missing)} (or --config FILE)")
    _check_trials(args.trials)
    cls = mechanism_class(args)
    if cls.population_of_numbers:
        return _simulate_mean(args)
    _check_users(args.users)
    pop = load_population(args, bucketed=cls.bucketed)
    for note in pop.notes:
        warn(note)
    mech = build_mechanism(args, pop.d)
    estimators = estimators_of(args, mech)
    counts = users_counts(pop, args.users, args.seed)
    result = simulate(mech, counts, estimators=estimators, engine=args.engine, trials=args.trials, seed=args.seed,
                      edges=pop.edges if cls.bucketed else None)
    for warning in result.warnings:
        warn(warning)
    if args.format == "csv":
        truth = result.true_values
        rows = ((t, est, label, repr(float(truth[v])), repr(float(arr[t, v])))
                for t in range(result.trials) for est, arr in result.estimates.items()
                for v, label in enumerate(pop.labels))
        render(Output(columns=SIMULATE_CSV_COLUMNS, rows=rows), "csv", args.output)
        return 0
    if args.format == "metrics-csv":
        rows = ((t, est, metric, repr(float(values[t])))
                for t in range(result.trials) for est, per in result.metrics.items() for metric, values in per.items())
        render(Output(columns=SIMULATE_METRICS_CSV_COLUMNS, rows=rows), "csv", args.output)
        return 0
    out = result.to_dict(labels=pop.labels)
    out["estimators"] = [e.name for e in estimators]
    out["estimator_parameters"] = {e.name: dict(e.params) for e in estimators if e.params}
    out["warnings"] = [*pop.notes, *out["warnings"]]
    out["source"] = pop.source
    render(Output(out), "json", args.output)
    return 0


#: simulate's options that a --config file replaces (it holds them all).
_CONFIG_REPLACES = ("mechanism", "epsilon", "epsilon_1", "sample", "column", "synthetic", "domain_size", "domain",
                    "buckets", "value_range", "users", "estimators", "seed")


def _simulate_configuration(args: argparse.Namespace) -> int:
    """``simulate --config FILE``: the configuration a page downloaded, re-run by the library function the page
    uses (:class:`ldp.studies.configuration.SimulationConfiguration`), so the numbers are the page's."""
    given = [name for name in _CONFIG_REPLACES if getattr(args, name, None) not in (None, [], False)]
    given += ["param"] if args.param else []
    if given:
        raise UsageError(f"--config holds the whole configuration; leave out --{given[0].replace('_', '-')}")
    config = SimulationConfiguration.from_dict(load_json_object("\n".join(read_text_lines(args.config)).encode(),
                                                                str(args.config)))
    table = load_table(args.data) if args.data is not None else None
    data = config.dataset(table)
    result = config.run(data)
    for warning in result.warnings:
        warn(warning)
    if args.format != "json":
        raise UsageError("--config writes JSON (--format json)")
    out = result.to_dict(labels=data.labels)
    out["estimators"] = [name for name, _ in config.estimators]
    out["estimator_parameters"] = {name: p for name, p in config.estimators if p}
    out["source"] = config.source
    out["configuration"] = config.to_dict()
    render(Output(out), "json", args.output)
    return 0


def _simulate_mean(args: argparse.Namespace) -> int:
    """``simulate`` with a mean mechanism on a numerical column: mean and variance in real units."""
    if args.estimators is not None or args.estimator_param:
        raise UsageError(f"--estimators cannot be used with the mean mechanism {args.mechanism} (its estimate is "
                         "the average of the reports)")
    if args.epsilon_1 is not None or args.param:
        parse_params(MECHANISMS.get(args.mechanism), args.param, args.epsilon_1)
    if args.format != "json":
        raise UsageError(f"the mean mechanism {args.mechanism} writes JSON only (--format json)")
    x, value_range, source = load_numbers(args)
    _check_users(args.users, least=2)
    if args.users is not None and args.users != x.size:
        x = x[users_rng(args.seed).integers(0, x.size, size=args.users)]  # users drawn from the rows
    res = simulate_mean(args.mechanism, args.epsilon, x, value_range, engine=args.engine, trials=args.trials,
                        seed=args.seed)
    mech = get_mechanism(args.mechanism, args.epsilon)
    note = engine_note(mech, args.engine)
    if not mech.fast_engine_exact and args.engine == "fast":
        warn(note)
    out = {"mechanism": args.mechanism, "kind": "mean", "epsilon": res.epsilon, "users": res.users,
           "engine": args.engine, "engine_note": note, "seed": args.seed, "range": list(value_range),
           "true_mean": res.true_mean, "true_variance": res.true_variance,
           "estimated_mean": res.estimated_mean.tolist(), "estimated_variance": res.estimated_variance.tolist(),
           "theoretical_variance": res.theoretical_variance, "summary": res.summary(), "source": source}
    render(Output(out), "json", args.output)
    return 0


# --------------------------------------------------------------------------- sweep
def _sweep_params(mechanisms: list[type[Mechanism]], items: list[str]) -> dict[str, dict[str, Any]]:
    """``[MECH.]KEY=VALUE`` → mechanism name → its parameters."""
    out: dict[str, dict[str, Any]] = {m.name: {} for m in mechanisms}
    for item in items:
        key, sep, value = item.partition("=")
        target, dot, key = key.rpartition(".")
        if dot:
            cls = MECHANISMS.get(target)
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


def cmd_sweep(args: argparse.Namespace) -> int:
    """``ldp sweep``: simulate a grid of configurations (mechanisms × ε × users × domain sizes) into a tidy CSV.

    Every configuration and estimator is validated before any work; the rows (columns ``SWEEP_COLUMNS``) are
    written as they come, with a progress bar on a terminal's stderr.

    Parameters
    ----------
    args : argparse.Namespace
        The options of ``ldp sweep``: ``mechanisms``, ``epsilons``, ``users``, ``domain_sizes``, ``param``,
        ``epsilon_1``, the population, ``estimators``, ``trials``, ``engine``, ``seed``, ``executor``/``workers``/
        ``dask`` and ``output``.

    Returns
    -------
    int
        0 when every row is written.

    Raises
    ------
    UsageError
        An empty list, mechanisms of different kinds or of the mean kind, ``--epsilon-1`` without a longitudinal
        mechanism, ``--synthetic`` without ``--users``, or fewer than one trial or worker.
    InvalidInput
        A configuration a mechanism or an estimator refuses.
    """
    _check_trials(args.trials)
    classes = [MECHANISMS.get(name) for name in dict.fromkeys(split_list(args.mechanisms))]
    if not classes:
        raise UsageError("--mechanisms is empty")
    kinds = {c.kind for c in classes}
    if len(kinds) != 1:
        raise UsageError(f"the mechanisms of one sweep must be of one kind, got {', '.join(sorted(kinds))}")
    if classes[0].population_of_numbers:
        raise UsageError("sweeps of mean mechanisms are not offered: use 'ldp simulate' per ε "
                         "(their population is a column of numbers, not a histogram)")
    epsilons = number_list(args.epsilons, float, "--epsilons")
    users = number_list(args.users, int, "--users") if args.users is not None else None
    domain_sizes = number_list(args.domain_sizes, int, "--domain-sizes") if args.domain_sizes is not None else None
    for n in users or []:
        _check_users(n)
    if args.epsilon_1 is not None and all(c.collection != "longitudinal" for c in classes):
        raise UsageError("--epsilon-1 applies only to longitudinal mechanisms and none is in --mechanisms")
    params = _sweep_params(classes, args.param)
    population, sizes, rows, notes = sweep_population(args, domain_sizes, numerical=classes[0].bucketed)
    for note in dict.fromkeys(notes):
        warn(note)
    if users is None:
        if rows is None:
            raise UsageError("--users is required with --synthetic")
        users = [rows]
    names = args.estimators.split(",") if args.estimators is not None else None
    # Validate every configuration and estimator up front (cheap), so errors come before any work.
    for cls in classes:
        extra = dict(params[cls.name])
        if args.epsilon_1 is not None and cls.collection == "longitudinal":
            extra.setdefault("epsilon_1", args.epsilon_1)
        for eps in epsilons:
            for d in sizes:
                mech = get_mechanism(cls.name, eps, d, **extra)
                parse_estimators(names or [mech.default_estimator], mech)
    estimators = names or [classes[0].default_estimator]
    total = len(classes) * len(epsilons) * len(users) * len(sizes)
    executor = "dask" if args.dask else args.executor
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers must be a positive integer, got {args.workers}")
    with progress_bar(total, "sweep") as bar:
        table = sweep_rows(population, mechanisms=[c.name for c in classes], epsilons=epsilons, users=users,
                           domain_sizes=sizes, estimators=estimators, trials=args.trials, engine=args.engine,
                           seed=args.seed, params=params, epsilon_1=args.epsilon_1, executor=executor,
                           workers=args.workers, address=args.dask,
                           progress=lambda done, _total: bar.update(done - bar.n))
        rows_out = ([row[c] for c in SWEEP_COLUMNS] for row in table)
        render(Output(columns=SWEEP_COLUMNS, rows=rows_out), "csv", args.output)
    return 0


# --------------------------------------------------------------------------- advise
def _parse_groups(items: list[str]) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {}
    for item in items:
        name, sep, members = item.partition("=")
        values = split_list(members)
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
    """``ldp advise``: which frequency estimator to use for a query task, from a file of real reports.

    The advisor (:func:`ldp.studies.advisor.recommend`) simulates the candidates on a population fitted to the
    reports and ranks them by the task's expected error (or score); the consistency paper's fixed guideline
    (§V.F) is shown beside it where the task has one.

    Parameters
    ----------
    args : argparse.Namespace
        The options of ``ldp advise``: the mechanism, the domain, ``reports`` (the file), ``task`` and its
        parameters (``k``, ``rho``, ``queries``, ``threshold``, ``group``), ``candidates``, ``trials``, ``seed``,
        ``format`` and ``output``.

    Returns
    -------
    int
        0 after writing the ranking (table or JSON); candidates' notes go to stderr as warnings.

    Raises
    ------
    UsageError
        A mechanism that is not a frequency oracle, fewer than 2 trials, a task parameter the task does not take,
        ``--rho`` outside (0, 1], or a malformed ``--group``.
    InvalidInput
        A bad report file, domain or estimator name.

    References
    ----------
    Frequency-estimation-with-consistency paper, §V.F (the guideline: which estimator for which task).
    """
    from ldp.studies.advisor import GAIN_COLUMN, recommend  # imports every estimator: only this command needs it

    cls = mechanism_class(args)
    if cls not in mechanisms_of("frequency"):
        raise UsageError(f"the advisor chooses among frequency estimators; {cls.name} is a {cls.kind} mechanism")
    task = get_task(args.task)
    task_params = _advise_task_params(args)
    if args.trials < 2:
        raise UsageError(f"--trials must be at least 2 (the standard error needs two), got {args.trials}")
    d, labels = domain_of(args)
    mech = build_mechanism(args, d)
    task.bind(d, labels=labels, **task_params)  # k ≤ d, ρ in (0, 1], known labels: before the file is read
    candidates = parse_estimators(args.candidates, mech) if args.candidates is not None else None
    reports, _ = load_reports(args.reports, mech)
    agg = aggregate_reports(mech, reports)
    rec = recommend(mech, agg.counts, agg.n, task=task.name, trials=args.trials, seed=args.seed,
                    candidates=candidates, labels=labels, **task_params)
    for _, row in rec.table.iterrows():
        if row["note"]:
            warn(f"{row['estimator']}: {row['note']}")
    value_key = "expected_error" if rec.better == "lower" else "expected_score"
    candidates_out = []
    for _, row in rec.table.iterrows():
        item: dict[str, Any] = {"rank": int(row["rank"]), "estimator": row["estimator"],
                                "display_name": row["display name"], "consistent": bool(row["consistent"]),
                                value_key: finite_or_none(row[rec.value_column]),
                                "standard_error": finite_or_none(row["standard error"]),
                                "trial_sd": finite_or_none(row["trial SD"]),
                                "tied_with_best": bool(row["tied with best"])}
        if GAIN_COLUMN in rec.table.columns:
            item["gain_percent"] = finite_or_none(row[GAIN_COLUMN])
        if "equivalent users" in rec.table.columns:
            item["equivalent_users"] = finite_or_none(row["equivalent users"])
        item["seconds"] = float(row["seconds"])
        item["note"] = str(row["note"])
        candidates_out.append(item)
    out: dict[str, Any] = {"best": rec.best, "task": rec.task, "task_label": rec.task_label,
                           "task_params": rec.to_dict()["task_params"], "better": rec.better,
                           "trials": rec.trials, "seed": rec.seed, "users": rec.n}
    out.update(mechanism_header(mech))
    out.pop("kind")
    out.update({"fit": rec.fit, "summary": rec.summary(), "elapsed_s": rec.elapsed_s, "candidates": candidates_out})
    if rec.guideline is not None:  # the consistency paper's fixed choice (§V.F), beside the data-driven one
        out["guideline"] = {"estimator": rec.guideline, value_key: finite_or_none(rec.expected_error(rec.guideline))}
    headers = ["RANK", "ESTIMATOR", value_key.upper().replace("_", " "), "SE", "TIED", "GAIN %",
               "EQUIVALENT USERS", "NOTE"]
    rows = [[str(c["rank"]), c["estimator"], fmt(c[value_key]), fmt(c["standard_error"]),
             "yes" if c["tied_with_best"] else "no", fmt(c.get("gain_percent"), ".1f"),
             fmt(c.get("equivalent_users"), ",.0f"), c["note"] or "-"] for c in candidates_out]
    guide = f"paper's guideline (§V.F): {rec.guideline}\n" if rec.guideline else ""
    preamble = f"best: {rec.best}\n{guide}{rec.summary()}\n\n"
    render(Output(out, headers=headers, table=rows, preamble=preamble), args.format, args.output)
    return 0
