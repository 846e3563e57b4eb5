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
    return json.dumps(obj, indent=2, ensure_ascii=False, default=_json_default) + "\n"


def text_table(rows: Sequence[Sequence[str]], headers: Sequence[str]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    return "\n".join(lines) + "\n"


def finite_or_none(value: Any) -> float | None:
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def fmt(value: float | None, spec: str = ".4g") -> str:
    return "-" if value is None else format(value, spec)


@dataclass
class Output:
    """What a command produces: ``data`` for JSON; ``columns``/``rows`` for CSV; ``headers``/``table`` (and a
    ``preamble``) for a text table."""

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
    """Write ``out`` as ``format`` ("json", "table" or any CSV flavour) to ``output`` (stdout when None)."""
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
