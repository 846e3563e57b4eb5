"""CSV that a spreadsheet opens as data, never as a formula (CSV injection, OWASP's advice).

A text cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return would run as a formula in
Excel, LibreOffice or Google Sheets (``=cmd|' /C calc'!A0``, ``=HYPERLINK(...)``, ``@SUM(1+1)``): it is written
with a leading apostrophe, which spreadsheets show as the plain text. Numbers are written as numbers (a negative
number is data, not a formula), so estimates keep their sign. One helper for every CSV the project writes: the
command line, the dashboard's downloads and the classroom export.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from typing import Any

import pandas as pd

__all__ = ["FORMULA_STARTS", "csv_cell", "safe_frame", "safe_row"]

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """``value`` as a CSV cell: numbers (and None) unchanged, text escaped when a spreadsheet would run it.

    Parameters
    ----------
    value : Any
        A cell's value.

    Returns
    -------
    Any
        ``value`` itself for None, numbers and booleans; otherwise its text, prefixed with an apostrophe when it
        starts with one of :data:`FORMULA_STARTS`.
    """
    if value is None or isinstance(value, (numbers.Number, bool)):
        return value
    text = str(value)
    return "'" + text if text[:1] in FORMULA_STARTS else text


def safe_row(values: Iterable[Any]) -> list[Any]:
    """A CSV row with every cell :func:`csv_cell`-escaped (for :mod:`csv` writers).

    Parameters
    ----------
    values : iterable
        The row's cells.

    Returns
    -------
    list
        The escaped cells, in order.
    """
    return [csv_cell(v) for v in values]


def safe_frame(table: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``table`` whose text cells and column names are :func:`csv_cell`-escaped (numbers untouched).

    Parameters
    ----------
    table : pandas.DataFrame
        The table to write (left unchanged).

    Returns
    -------
    pandas.DataFrame
        The copy: column names as escaped text, object and string columns escaped cell by cell.
    """
    out = table.copy()
    out.columns = [csv_cell(str(c)) for c in out.columns]
    for column in out.columns:
        if out[column].dtype == object or pd.api.types.is_string_dtype(out[column].dtype):
            out[column] = out[column].map(csv_cell)
    return out
