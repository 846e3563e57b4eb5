"""The ``ldp reproduce`` subcommand: a seed paper's figure regenerated from the command line — its tidy table, the
paper's statement and ours — at the lecture's scale (seconds) or the paper's (its d, n, ε grid and trials). The
figures are the registry :data:`ldp.studies.figures.FIGURES`, the one the "Reproduce the papers" page reads.
"""

from __future__ import annotations

import argparse
import difflib
import os
import sys
import time
from typing import Any

import numpy as np
import pandas as pd

from ldp.cli.options import UsageError, number_list
from ldp.cli.render import Output, finite_or_none, fmt, render
from ldp.core.executors import EXECUTORS
from ldp.report_files import atomic_write
from ldp.studies.figures import FIGURES, ReproducibleFigure

__all__ = ["add_reproduce_command", "cmd_reproduce"]

REPRODUCE_EPILOG = """\
ids are {paper}-{fig|table}-{n} with paper ibu, consistency, convolution or square-wave ('ldp reproduce --list').
--scale lecture runs the page's default settings (seconds); --scale paper the paper's d, n, ε grid and trials
(the section they come from is in the JSON's "paper_source"), with its estimated time and a progress bar on
stderr. --trials, --epsilons (the figure's ε axis; one value for a figure drawn at one ε) and --seed replace the
scale's. Executors: studies whose cells seed themselves from what they are run one task per cell on a process
pool or a Dask cluster (the same table as serial); convolution-fig-3 (one random stream), consistency-fig-5/6/7/10
and convolution-fig-6..9 (their parts share collections) run in this process whatever the executor.
Your own data: --data FILE --column C (a CSV or Parquet file) or --sample NAME --column C (a bundled sample) runs
the figure on that column instead of its synthetic population: a categorical column for the frequency studies
(consistency, IBU Table 2), a numerical one for the square-wave figures (cut into --buckets B equal-width buckets,
default the study's d), either for convolution-fig-6/8/9 (a numerical column's buckets in order, like the paper's
Taxi times). A numerical column for a study of categories needs --buckets; a figure that cannot take data says why.
The output then has "data" (source, column, kind, rows, d) and "verdict": does the paper's finding hold on it?
--list gives each figure's "data" (the kinds of column it takes) or "no_data" (why it cannot).
json keys: id, title, scale, settings, paper_source, rows (the tidy table), paper_says, ours (one line from our
rows), verdict (with data), data (with data), estimated_s, elapsed_s. csv: the tidy table. --figure FILE.html (or
FILE.png with the optional kaleido package) writes the Plotly figure; outputs are written atomically.
"""


def add_reproduce_command(sub: argparse._SubParsersAction) -> None:
    """Register ``ldp reproduce``: regenerate a seed paper's figure (``ID``) at the lecture's or the paper's scale,
    or ``--list`` them; optionally on a column of the user's data and with the drawn figure.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The ``ldp`` parser's subcommand collection that gains ``reproduce``.
    """
    p = sub.add_parser("reproduce", help="regenerate a seed paper's figure (its tidy table, the paper's finding and "
                                         "ours)", epilog=REPRODUCE_EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("id", nargs="?", metavar="ID", help="the figure, e.g. consistency-fig-4 (see --list)")
    p.add_argument("--list", action="store_true", help="list the figures (id, title, paper_says)")
    p.add_argument("--scale", choices=("lecture", "paper"), default="lecture",
                   help="the page's settings (default) or the paper's")
    p.add_argument("--trials", "-t", type=int, metavar="T", help="trials per cell (replaces the scale's)")
    p.add_argument("--epsilons", metavar="LIST", help="comma-separated ε values (replaces the scale's)")
    p.add_argument("--seed", "-s", type=int, metavar="S", help="root seed (default 0)")
    p.add_argument("--executor", choices=EXECUTORS, default="serial",
                   help="where a splittable study's cells run (default serial; see below)")
    p.add_argument("--workers", type=int, metavar="W", help="process-pool size (default: the number of cores)")
    p.add_argument("--dask", metavar="ADDRESS", help="scheduler address of an existing Dask cluster (implies "
                   "--executor dask)")
    p.add_argument("--format", "-f", choices=("json", "csv", "table"), default="json",
                   help="output format (default json; --list: json or table)")
    p.add_argument("--output", "-o", metavar="FILE", help="write to FILE (atomically) instead of stdout")
    p.add_argument("--figure", metavar="FILE", help="also write the figure: FILE.html, or FILE.png (needs kaleido)")
    own = p.add_mutually_exclusive_group()
    own.add_argument("--data", metavar="FILE", help="run on a column of your CSV or Parquet file (with --column)")
    own.add_argument("--sample", metavar="NAME", help="run on a column of a bundled sample, e.g. flights (with "
                                                      "--column)")
    p.add_argument("--column", metavar="C", help="the column of --data or --sample the figure runs on")
    p.add_argument("--buckets", type=int, metavar="B",
                   help="without --data/--sample: the study's d (e.g. the square-wave Figs. 2–4 at 1,024 buckets); "
                        "with them: equal-width buckets for a numerical column (default: the study's d)")
    p.set_defaults(func=cmd_reproduce)


def _figure(name: str) -> ReproducibleFigure:
    if name in FIGURES:
        return FIGURES.get(name)
    close = difflib.get_close_matches(name.strip().lower(), FIGURES.names(), n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else "; see 'ldp reproduce --list'"
    raise UsageError(f"unknown figure {name!r}{hint}")


def _check_figure_path(path: str | None, output: str | None) -> str | None:
    """The figure's format from its suffix, refused up front (before any work) when it cannot be written."""
    if path is None:
        return None
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in (".html", ".png"):
        raise UsageError(f"--figure must end in .html or .png, got {path!r}")
    if output not in (None, "-") and os.path.abspath(output) == os.path.abspath(path):
        raise UsageError(f"--output and --figure both name {path}; choose two files")
    if suffix == ".png":
        try:
            import kaleido  # noqa: F401
        except ImportError:
            raise UsageError("--figure FILE.png needs the optional 'kaleido' package (pip install kaleido); "
                             "write FILE.html instead") from None
    return suffix


def _write_figure(fig: Any, path: str, suffix: str) -> None:
    if suffix == ".html":
        with atomic_write(path) as fh:
            fh.write(fig.to_html(include_plotlyjs="cdn"))
        return
    data = fig.to_image(format="png")
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _list(args: argparse.Namespace) -> int:
    if args.id is not None:
        raise UsageError("give either --list or a figure id, not both")
    if args.format == "csv":
        raise UsageError("--list writes json or table")
    items = [f.describe() for f in FIGURES]
    render(Output(items, headers=["ID", "TITLE", "PAPER SAYS"],
                  table=[[i["id"], i["title"], i["paper_says"]] for i in items]), args.format, args.output)
    return 0


def _cell(value: Any) -> Any:
    """A table cell as JSON: numbers as numbers (a non-finite one as null), anything else as text."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return finite_or_none(value)
    return str(value)


def _rows(table: pd.DataFrame) -> list[dict[str, Any]]:
    return [{str(k): _cell(v) for k, v in row.items()} for row in table.to_dict("records")]


def _progress(figure: ReproducibleFigure, estimate: float) -> Any:
    from tqdm import tqdm

    print(f"{figure.name} at the paper's scale: about {estimate:.0f} s of one core (estimated)", file=sys.stderr)
    return tqdm(total=100, desc=figure.name, unit="%", file=sys.stderr, disable=None, leave=False)


def _own_data(figure: ReproducibleFigure, settings: dict[str, Any], args: argparse.Namespace
              ) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """``settings`` on the column of --data or --sample, and the JSON's ``data``; unchanged without either."""
    if args.data is None and args.sample is None:
        if args.column is not None:
            raise UsageError("--column goes with --data FILE or --sample NAME")
        if args.buckets is not None:  # the study's own population at another number of values/buckets
            if "d" not in settings:
                raise UsageError(f"--buckets: {figure.name} has no number of buckets to set (it varies d itself)")
            if args.buckets < 2:
                raise UsageError(f"--buckets must be at least 2, got {args.buckets}")
            settings = {**settings, "d": int(args.buckets)}
        return settings, None
    if args.column is None:
        raise UsageError(f"give the column to run on: --column C with --{'data' if args.data else 'sample'}")
    if not figure.takes_data:
        raise UsageError(f"{figure.name} cannot run on your data: {figure.no_data}")
    if args.sample is not None:
        data = figure.dataset(settings, args.column, sample=args.sample, buckets=args.buckets)
        source = {"sample": args.sample}
    else:
        from ldp.data import load_table

        data = figure.dataset(settings, args.column, table=load_table(args.data), source=os.path.basename(args.data),
                              buckets=args.buckets)
        source = {"file": str(args.data)}
    return figure.on_data(settings, data), {**source, "column": args.column, "kind": data.kind, "rows": data.rows,
                                            "d": data.d}


def cmd_reproduce(args: argparse.Namespace) -> int:
    """``ldp reproduce``: run one registered figure (``FIGURES``) and write its tidy table, the paper's finding and
    ours (and a verdict when run on the user's data); ``--list`` lists the figures instead.

    Parameters
    ----------
    args : argparse.Namespace
        The options of ``ldp reproduce``: ``id``, ``list``, ``scale`` ("lecture" or "paper"), ``trials``,
        ``epsilons``, ``seed``, ``executor``/``workers``/``dask``, ``data``/``sample``/``column``/``buckets``,
        ``figure``, ``format`` and ``output``.

    Returns
    -------
    int
        0 once the table (json, csv or table) and the optional figure file are written.

    Raises
    ------
    UsageError
        No figure id and no ``--list`` (or both), an unknown figure, a ``--figure`` path that is not .html/.png or
        equals ``--output``, a non-positive ``--trials``/``--workers``, or own-data options the figure cannot take.
    """
    if args.list:
        return _list(args)
    if args.id is None:
        raise UsageError("give a figure id (see 'ldp reproduce --list') or --list")
    figure = _figure(args.id)
    suffix = _check_figure_path(args.figure, args.output)
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers must be a positive integer, got {args.workers}")
    if args.trials is not None and args.trials < 1:
        raise UsageError(f"--trials must be a positive integer, got {args.trials}")
    epsilons = None if args.epsilons is None else number_list(args.epsilons, float, "--epsilons")
    settings = figure.settings(args.scale, trials=args.trials, epsilons=epsilons, seed=args.seed)
    settings, own = _own_data(figure, settings, args)
    estimate = figure.estimated_seconds(settings)
    executor = "dask" if args.dask else args.executor
    start = time.perf_counter()
    if args.scale == "paper":
        with _progress(figure, estimate) as bar:
            table = figure.run(settings, executor=executor, workers=args.workers, address=args.dask,
                               progress=lambda f: bar.update(int(round(100 * f)) - bar.n))
    else:
        table = figure.run(settings, executor=executor, workers=args.workers, address=args.dask)
    elapsed = time.perf_counter() - start
    ours = figure.finding(table)
    verdict = None if own is None else figure.verdict(table, settings)
    if suffix is not None:
        from ldp.viz.paper_figures import draw

        _write_figure(draw(figure, table, settings), args.figure, suffix)
    rows = _rows(table)
    shown = {k: v for k, v in settings.items() if k != "population"}  # the data's users per value: "data" says
    data = {"id": figure.name, "title": figure.title, "scale": args.scale, "settings": shown,
            "paper_source": figure.paper_source, "rows": rows, "paper_says": figure.paper_says, "ours": ours,
            "estimated_s": round(estimate, 3), "elapsed_s": round(elapsed, 3)}
    if own is not None:
        data.update(data=own, verdict=verdict)
    columns = [str(c) for c in table.columns]
    on = "" if own is None else f", on {own.get('sample') or own.get('file')}'s {own['column']}"
    preamble = (f"{figure.name}: {figure.title} ({args.scale} scale{on})\nThe paper: {figure.paper_says}\n"
                f"Ours: {ours}\n" + ("" if verdict is None else f"Verdict: {verdict}\n") + "\n")
    render(Output(data, columns=columns, rows=[[r[c] for c in columns] for r in rows], headers=columns,
                  table=[[v if isinstance(v, str) else fmt(v) if isinstance(v, float) else str(v) for v in r.values()]
                         for r in rows], preamble=preamble), args.format, args.output)
    return 0
