"""Reading user tables (CSV or Parquet) into pandas, with one-line error messages.

Every failure — a missing file, an unsupported extension, an empty or malformed file, text that is
not UTF-8, a table without rows or columns — raises :class:`ValueError` whose message is a single
line that can be shown as is by the command line or the dashboard.
"""

from __future__ import annotations

import gzip
import io
import os
import zlib
from pathlib import Path

import pandas as pd

from ldp.core.errors import LDPError

__all__ = [
    "CSV_EXTENSIONS",
    "PARQUET_EXTENSIONS",
    "SUPPORTED_EXTENSIONS",
    "get_column",
    "load_table",
    "load_table_bytes",
]

CSV_EXTENSIONS = (".csv", ".txt", ".tsv", ".csv.gz", ".txt.gz", ".tsv.gz")
PARQUET_EXTENSIONS = (".parquet", ".pq")
SUPPORTED_EXTENSIONS = CSV_EXTENSIONS + PARQUET_EXTENSIONS

# How many bytes of a CSV file are inspected to guess its delimiter.
_SNIFF_BYTES = 64 * 1024
# How many column names an error message lists before summarising the rest.
_MAX_LISTED_COLUMNS = 12


def _one_line(text: object) -> str:
    """Collapse whitespace (including newlines) so a message fits on one line."""
    return " ".join(str(text).split())


def _kind_of(name: str) -> tuple[str, bool]:
    """("csv" | "parquet", gzip-compressed?) from a file name; ValueError if unsupported."""
    lower = name.lower()
    for ext in sorted(SUPPORTED_EXTENSIONS, key=len, reverse=True):
        if lower.endswith(ext):
            return ("parquet" if ext in PARQUET_EXTENSIONS else "csv"), ext.endswith(".gz")
    suffix = Path(name).suffix
    what = f"extension {suffix!r}" if suffix else "no extension"
    raise LDPError(
        f"unsupported file type for {name!r} ({what}); "
        f"supported extensions: {', '.join(SUPPORTED_EXTENSIONS)}"
    )


def _sniff_separator(head: bytes) -> str:
    """The delimiter of a CSV from its first line: tab or semicolon when no comma appears, else comma."""
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff")
    first = next((line for line in text.splitlines() if line.strip()), "")
    if "," in first:
        return ","
    if "\t" in first:
        return "\t"
    if ";" in first:
        return ";"
    return ","


def _read_csv(source: str | io.BytesIO, head: bytes, label: str, compressed: bool = False) -> pd.DataFrame:
    try:
        return pd.read_csv(source, sep=_sniff_separator(head), encoding="utf-8-sig", low_memory=False,
                           compression="gzip" if compressed else None)
    except pd.errors.EmptyDataError:
        raise LDPError(f"{label} is empty") from None
    except pd.errors.ParserError as exc:
        raise LDPError(f"{label} is not a well-formed CSV file: {_one_line(exc)}") from None
    except UnicodeDecodeError as exc:
        raise LDPError(
            f"{label} is not UTF-8 text (invalid byte 0x{exc.object[exc.start]:02x}); "
            "re-save it with UTF-8 encoding"
        ) from None
    except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
        raise LDPError(f"{label} is not a valid gzip file: {_one_line(exc)}") from None
    except OSError as exc:
        raise LDPError(f"cannot read {label}: {_one_line(exc.strerror or exc)}") from None
    except Exception as exc:  # anything else pandas raises becomes one readable line
        raise LDPError(f"could not read {label} as CSV: {_one_line(exc)}") from None


def _read_parquet(source: str | io.BytesIO, label: str) -> pd.DataFrame:
    try:
        return pd.read_parquet(source)
    except OSError as exc:
        if isinstance(exc, FileNotFoundError | PermissionError | IsADirectoryError):
            raise LDPError(f"cannot read {label}: {_one_line(exc.strerror or exc)}") from None
        raise LDPError(f"{label} is not a valid Parquet file: {_one_line(exc)}") from None
    except Exception as exc:  # pyarrow errors (ArrowInvalid, ...)
        raise LDPError(f"{label} is not a valid Parquet file: {_one_line(exc)}") from None


def _check_shape(df: pd.DataFrame, label: str) -> pd.DataFrame:
    if df.shape[1] == 0:
        raise LDPError(f"{label} has no columns")
    if df.shape[0] == 0:
        raise LDPError(f"{label} has no rows")
    df.columns = [str(c) for c in df.columns]
    return df


def _gz_head(raw: bytes) -> bytes:
    """The first decompressed bytes of a gzip stream (best effort: b"" if it is not gzip)."""
    try:
        decomp = zlib.decompressobj(wbits=zlib.MAX_WBITS | 16)
        return decomp.decompress(raw, _SNIFF_BYTES)
    except zlib.error:
        return b""


def load_table(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a CSV (``.csv``, ``.txt``, ``.tsv``, optionally ``.gz``) or Parquet (``.parquet``, ``.pq``)
    file chosen by its extension. Raises a one-line ``ValueError`` on any failure."""
    p = Path(path)
    label = f"file '{p}'"
    kind, compressed = _kind_of(p.name)
    if not p.exists():
        raise LDPError(f"{label} not found")
    if not p.is_file():
        raise LDPError(f"{label} is not a regular file")
    try:
        size = p.stat().st_size
        with open(p, "rb") as fh:
            head = fh.read(_SNIFF_BYTES)
    except OSError as exc:
        raise LDPError(f"cannot read {label}: {_one_line(exc.strerror or exc)}") from None
    if size == 0:
        raise LDPError(f"{label} is empty")
    if kind == "parquet":
        df = _read_parquet(str(p), label)
    else:
        if compressed:
            head = _gz_head(head)
        df = _read_csv(str(p), head, label, compressed)
    return _check_shape(df, label)


def load_table_bytes(data: bytes, filename: str) -> pd.DataFrame:
    """Like :func:`load_table` for an uploaded file's content; ``filename`` gives the format."""
    label = f"file '{filename}'"
    kind, compressed = _kind_of(filename)
    if not isinstance(data, bytes | bytearray | memoryview):
        raise LDPError(f"{label}: expected bytes, got {type(data).__name__}")
    data = bytes(data)
    if len(data) == 0:
        raise LDPError(f"{label} is empty")
    if kind == "parquet":
        df = _read_parquet(io.BytesIO(data), label)
    else:
        if compressed:
            try:
                data = gzip.decompress(data)
            except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
                raise LDPError(f"{label} is not a valid gzip file: {_one_line(exc)}") from None
            if not data.strip():
                raise LDPError(f"{label} is empty")
        df = _read_csv(io.BytesIO(data), data[:_SNIFF_BYTES], label)
    return _check_shape(df, label)


def _available(columns: list[str]) -> str:
    shown = ", ".join(columns[:_MAX_LISTED_COLUMNS])
    if len(columns) > _MAX_LISTED_COLUMNS:
        shown += f", … ({len(columns) - _MAX_LISTED_COLUMNS} more)"
    return shown or "(none)"


def get_column(df: pd.DataFrame, column: str) -> pd.Series:
    """The column called ``column``; surrounding spaces and letter case are forgiven when that is
    unambiguous. ``ValueError`` lists the available columns otherwise."""
    names = [str(c) for c in df.columns]
    if column in df.columns:
        return df[column]
    for normalise in (str.strip, lambda s: s.strip().casefold()):
        matches = [i for i, c in enumerate(names) if normalise(c) == normalise(str(column))]
        if len(matches) == 1:
            return df.iloc[:, matches[0]].rename(names[matches[0]])
    raise LDPError(f"column {column!r} not found; available: {_available(names)}")
