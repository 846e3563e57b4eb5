"""The one output renderer of the ``ldp`` command: every command builds an :class:`Output` (JSON-able data,
and optionally CSV rows or a text table) and :func:`render` writes the chosen format to stdout or, atomically,
to a file."""

from __future__ import annotations

import csv
import io
import json
import math
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ldp.data.spreadsheet import safe_row
from ldp.report_files import atomic_write

__all__ = ["Output", "finite_or_none", "fmt", "render", "text_table", "to_json"]


def _json_default(obj: Any) -> Any:
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"cannot write {type(obj).__name__} as JSON")


def to_json(obj: Any) -> str:
    """``obj`` as indented JSON text (2 spaces, non-ASCII kept), numpy scalars and arrays converted, with a final
    newline.

    Parameters
    ----------
    obj : object
        JSON-able data; numpy integers, floats and arrays are written as numbers and lists.

    Returns
    -------
    str
        The JSON document, ending in a newline.

    Raises
    ------
    TypeError
        An object of another type JSON cannot write (a bug of the command, not bad input).
    """
    return json.dumps(obj, indent=2, ensure_ascii=False, default=_json_default) + "\n"


def text_table(rows: Sequence[Sequence[str]], headers: Sequence[str]) -> str:
    """A plain-text table: columns left-aligned to their widest cell, two spaces apart, no trailing spaces.

    Parameters
    ----------
    rows : sequence of sequence of str
        The table's rows, each with one cell per header (already formatted).
    headers : sequence of str
        The column titles (the first line).

    Returns
    -------
    str
        The header line and one line per row, each ending in a newline.
    """
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    return "\n".join(lines) + "\n"


def finite_or_none(value: Any) -> float | None:
    """A finite float, or None for what JSON cannot hold as a number (NaN, ±inf) or is not a number.

    Parameters
    ----------
    value : object
        A number, numpy scalar or anything else.

    Returns
    -------
    float or None
        ``float(value)`` when it converts to a finite float, else None (written as JSON ``null``).
    """
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def fmt(value: float | None, spec: str = ".4g") -> str:
    """A number for a text table: formatted by ``spec``, or "-" for None.

    Parameters
    ----------
    value : float or None
        The number (None: missing).
    spec : str, default ".4g"
        A format specification (e.g. ``",.0f"``, ``".1f"``).

    Returns
    -------
    str
        ``format(value, spec)``, or "-" when ``value`` is None.
    """
    return "-" if value is None else format(value, spec)


@dataclass
class Output:
    """What a command produces: ``data`` for JSON; ``columns``/``rows`` for CSV; ``headers``/``table`` (and a
    ``preamble``) for a text table.

    Attributes
    ----------
    data : object, optional
        The JSON-able result (``--format json``).
    columns : sequence of str, optional
        The CSV header.
    rows : iterable of sequence, optional
        The CSV rows (may be a generator: written as they come).
    headers : sequence of str, optional
        The text table's column titles.
    table : sequence of sequence of str, optional
        The text table's formatted cells.
    preamble : str, default ""
        Text written before the table (e.g. a summary line).
    """

    data: Any = None
    columns: Sequence[str] | None = None
    rows: Iterable[Sequence[Any]] | None = None
    headers: Sequence[str] | None = None
    table: Sequence[Sequence[str]] | None = None
    preamble: str = ""


def _write(text_or_writer: Any, output: str | None) -> None:
    if output is None or output == "-":
        text_or_writer(sys.stdout)
        sys.stdout.flush()
        return
    with atomic_write(output) as fh:
        text_or_writer(fh)


def render(out: Output, format: str, output: str | None = None) -> None:
    """Write ``out`` as ``format`` ("json", "table" or any CSV flavour) to ``output`` (stdout when None).

    CSV cells are escaped against spreadsheet formulas (:func:`ldp.data.spreadsheet.safe_row`); a file is written
    atomically (it appears whole or not at all).

    Parameters
    ----------
    out : Output
        What the command produced.
    format : str
        "json" (``out.data``), "table" (``out.preamble`` and ``out.headers``/``out.table``), or any other name for
        CSV (``out.columns``/``out.rows``: e.g. "csv", "metrics-csv").
    output : str, optional
        The file to write; None or "-": stdout.
    """
    if format == "json":
        _write(lambda fh: fh.write(to_json(out.data)), output)
    elif format == "table":
        _write(lambda fh: fh.write(out.preamble + text_table(out.table or [], out.headers or [])), output)
    else:
        def write_csv(fh: io.TextIOBase) -> None:
            writer = csv.writer(fh, lineterminator="\n")
            writer.writerow(safe_row(out.columns or []))
            writer.writerows(safe_row(row) for row in out.rows or [])
        _write(write_csv, output)
