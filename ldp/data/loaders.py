"""Reading user tables (CSV or Parquet) into pandas, with one-line error messages.

Text that is not UTF-8 is read in the encoding charset-normalizer detects (recorded in ``df.attrs["encoding"]``).
Every failure — a missing file, an unsupported extension, an empty or malformed file, text whose encoding cannot
be detected, a table without rows or columns — raises :class:`ValueError` whose message is a single
line that can be shown as is by the command line or the dashboard.
"""

from __future__ import annotations

import gzip
import importlib.util
import io
import os
import warnings
import zlib
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from ldp.core.errors import InvalidInput

__all__ = [
    "CSV_EXTENSIONS",
    "MAX_ROWS",
    "MAX_TEXT_BYTES",
    "EXCEL_EXTENSIONS",
    "PARQUET_EXTENSIONS",
    "SUPPORTED_EXTENSIONS",
    "get_column",
    "load_json_object",
    "load_table",
    "load_table_bytes",
    "text_lines_from_bytes",
]

CSV_EXTENSIONS = (".csv", ".txt", ".tsv", ".csv.gz", ".txt.gz", ".tsv.gz")
PARQUET_EXTENSIONS = (".parquet", ".pq")
SUPPORTED_EXTENSIONS = CSV_EXTENSIONS + PARQUET_EXTENSIONS
#: Spreadsheets: read when pandas' optional reader is installed (openpyxl for .xlsx, xlrd for .xls; neither is a
#: dependency), otherwise refused with what to do (save as CSV) rather than a bare "unsupported file type".
EXCEL_EXTENSIONS = (".xlsx", ".xls")
_EXCEL_READERS = {".xlsx": "openpyxl", ".xls": "xlrd"}

# How many bytes of a CSV file are inspected to guess its delimiter.
_SNIFF_BYTES = 64 * 1024
#: The most text a table may hold once decompressed (a 261 KB gzip upload expanded to 7.6 GB before): larger files
#: are refused before they are read, gzip streams as soon as they pass it.
MAX_TEXT_BYTES = 256 * 2**20
#: The most rows read; a longer table is cut there, and a warning says so.
MAX_ROWS = 5_000_000
# How many column names an error message lists before summarising the rest.
_MAX_LISTED_COLUMNS = 12


def _one_line(text: object) -> str:
    """Collapse whitespace (including newlines) so a message fits on one line."""
    return " ".join(str(text).split())


def _kind_of(name: str) -> tuple[str, bool]:
    """("csv" | "parquet" | "excel", gzip-compressed?) from a file name; ValueError if unsupported (a workbook
    whose optional reader is not installed: with what to do instead)."""
    lower = name.lower()
    for ext in sorted(SUPPORTED_EXTENSIONS, key=len, reverse=True):
        if lower.endswith(ext):
            return ("parquet" if ext in PARQUET_EXTENSIONS else "csv"), ext.endswith(".gz")
    suffix = Path(name).suffix
    if suffix.lower() in EXCEL_EXTENSIONS:
        if importlib.util.find_spec(_EXCEL_READERS[suffix.lower()]) is not None:
            return "excel", False
        raise InvalidInput(
            f"{name!r} is an Excel workbook, an unsupported file type here: save it as CSV (in Excel: File → Save "
            f"As → 'CSV UTF-8') and upload the CSV; supported extensions: {', '.join(SUPPORTED_EXTENSIONS)}"
        )
    what = f"extension {suffix!r}" if suffix else "no extension"
    raise InvalidInput(
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


_DETECT_BYTES = 1024 * 1024  # how much of a file that is not UTF-8 the charset detector reads
# The encodings tried for a CSV that is not UTF-8, in order of preference when they decode it equally cleanly:
# UTF-16 (with its BOM), the Western, Central-European and Cyrillic Windows code pages, Mac Roman.
_ENCODINGS = ("utf_16", "cp1252", "cp1250", "cp1251", "mac_roman")


def _detect_encoding(source: str | io.BytesIO, compressed: bool) -> str | None:
    """The most likely text encoding of a CSV that is not UTF-8 (charset-normalizer on its first MB), or None."""
    from charset_normalizer import from_bytes

    try:
        if isinstance(source, io.BytesIO):
            source.seek(0)
            raw = source.read(_DETECT_BYTES) if not compressed else gzip.GzipFile(fileobj=source).read(_DETECT_BYTES)
            source.seek(0)
        else:
            with (gzip.open(source, "rb") if compressed else open(source, "rb")) as fh:
                raw = fh.read(_DETECT_BYTES)
    except (OSError, EOFError, zlib.error):
        return None
    found = {m.encoding: m.chaos for m in from_bytes(raw, cp_isolation=list(_ENCODINGS))}
    if not found:
        return None
    least = min(found.values())
    # short Western text decodes cleanly in several code pages: among the cleanest, the usual spreadsheet
    # export (Windows-1252, a superset of Latin-1's printable range) wins over its neighbours
    return next(e for e in _ENCODINGS if e in found and found[e] <= least + 0.01)


def _read_csv(source: str | io.BytesIO, head: bytes, label: str, compressed: bool = False) -> pd.DataFrame:
    """A CSV as UTF-8 (with or without BOM); a file that is not UTF-8 (a spreadsheet's Latin-1/cp1252 export) is
    read in the encoding charset-normalizer detects, recorded in ``df.attrs["encoding"]`` so it can be said."""
    try:
        return _parse_csv(source, head, label, compressed, "utf-8-sig")
    except UnicodeDecodeError as exc:
        encoding = _detect_encoding(source, compressed)
        if encoding is not None:
            try:
                df = _parse_csv(source, head, label, compressed, encoding)
            except UnicodeDecodeError:
                pass
            else:
                df.attrs["encoding"] = encoding
                warnings.warn(f"{label} is not UTF-8: read as {encoding} (detected); if letters look wrong, re-save it "
                              "with UTF-8 encoding", stacklevel=3)
                return df
        raise InvalidInput(
            f"{label} is not UTF-8 text (invalid byte 0x{exc.object[exc.start]:02x}) and its encoding could not be "
            "detected; re-save it with UTF-8 encoding"
        ) from None


def _parse_csv(source: str | io.BytesIO, head: bytes, label: str, compressed: bool, encoding: str) -> pd.DataFrame:
    if isinstance(source, io.BytesIO):
        source.seek(0)
    try:
        return pd.read_csv(source, sep=_sniff_separator(head), encoding=encoding, low_memory=False,
                           compression="gzip" if compressed else None, nrows=MAX_ROWS + 1)
    except UnicodeDecodeError:
        raise
    except pd.errors.EmptyDataError:
        raise InvalidInput(f"{label} is empty") from None
    except pd.errors.ParserError as exc:
        raise InvalidInput(f"{label} is not a well-formed CSV file: {_one_line(exc)}") from None
    except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
        raise InvalidInput(f"{label} is not a valid gzip file: {_one_line(exc)}") from None
    except OSError as exc:
        raise InvalidInput(f"cannot read {label}: {_one_line(exc.strerror or exc)}") from None
    except Exception as exc:  # anything else pandas raises becomes one readable line
        raise InvalidInput(f"could not read {label} as CSV: {_one_line(exc)}") from None


def _read_excel(source: str | io.BytesIO, label: str) -> pd.DataFrame:
    """The first sheet of a workbook (only reached when its optional reader is installed: see ``_kind_of``)."""
    try:
        return pd.read_excel(source, sheet_name=0)
    except Exception as exc:  # the reader's own errors (zip, XML, ...) become one readable line
        raise InvalidInput(f"could not read {label} as an Excel workbook: {_one_line(exc)}; save it as CSV and "
                           "upload that") from None


def _read_parquet(source: str | io.BytesIO, label: str) -> pd.DataFrame:
    try:
        return pd.read_parquet(source)
    except OSError as exc:
        if isinstance(exc, FileNotFoundError | PermissionError | IsADirectoryError):
            raise InvalidInput(f"cannot read {label}: {_one_line(exc.strerror or exc)}") from None
        raise InvalidInput(f"{label} is not a valid Parquet file: {_one_line(exc)}") from None
    except Exception as exc:  # pyarrow errors (ArrowInvalid, ...)
        raise InvalidInput(f"{label} is not a valid Parquet file: {_one_line(exc)}") from None


def _check_shape(df: pd.DataFrame, label: str) -> pd.DataFrame:
    if df.shape[1] == 0:
        raise InvalidInput(f"{label} has no columns")
    if df.shape[0] == 0:
        raise InvalidInput(f"{label} has no rows")
    df.columns = [str(c) for c in df.columns]
    return df


def _gunzip_bounded(source: str | bytes, label: str) -> bytes:
    """The decompressed content of a gzip file or of gzip bytes, refused as soon as it passes MAX_TEXT_BYTES (the
    decompressor never produces more than that, so a compression bomb costs nothing)."""
    decomp = zlib.decompressobj(wbits=zlib.MAX_WBITS | 16)
    out = bytearray()
    try:
        chunks: Iterable[bytes]
        if isinstance(source, bytes):
            chunks = [source]
        else:
            fh = open(source, "rb")  # noqa: SIM115 - closed below
            chunks = iter(lambda: fh.read(1 << 20), b"")
        try:
            for chunk in chunks:
                data = chunk
                while data:
                    out += decomp.decompress(data, MAX_TEXT_BYTES + 1 - len(out))
                    if len(out) > MAX_TEXT_BYTES:
                        raise InvalidInput(f"{label} decompresses to more than {MAX_TEXT_BYTES // 2**20} "
                                           f"MB; use a smaller "
                                           "extract (at most that much text)")
                    data = decomp.unconsumed_tail
                if decomp.eof and decomp.unused_data:  # a second gzip member follows
                    rest = decomp.unused_data
                    decomp = zlib.decompressobj(wbits=zlib.MAX_WBITS | 16)
                    out += decomp.decompress(rest, MAX_TEXT_BYTES + 1 - len(out))
                    if len(out) > MAX_TEXT_BYTES:
                        raise InvalidInput(f"{label} decompresses to more than {MAX_TEXT_BYTES // 2**20} MB; use a "
                                           "smaller extract (at most that much text)")
        finally:
            if not isinstance(source, bytes):
                fh.close()
    except (zlib.error, EOFError) as exc:
        raise InvalidInput(f"{label} is not a valid gzip file: {_one_line(exc)}") from None
    except OSError as exc:
        raise InvalidInput(f"cannot read {label}: {_one_line(exc.strerror or exc)}") from None
    return bytes(out)


def _cap_rows(df: pd.DataFrame, label: str) -> pd.DataFrame:
    if len(df) > MAX_ROWS:
        warnings.warn(f"{label} has more than {MAX_ROWS:,} rows: only the first {MAX_ROWS:,} are used", stacklevel=3)
        df = df.iloc[:MAX_ROWS]
    return df


def _regular_file(path: str | os.PathLike[str]) -> tuple[Path, str, int]:
    """(path, its label for messages, its size) of an existing, non-empty regular file of at most MAX_TEXT_BYTES,
    else a one-line LDPError saying which of these it is not."""
    p = Path(path)
    label = f"file '{p}'"
    if not p.exists():
        raise InvalidInput(f"{label} not found")
    if not p.is_file():
        raise InvalidInput(f"{label} is not a regular file")
    try:
        size = p.stat().st_size
    except OSError as exc:
        raise InvalidInput(f"cannot read {label}: {_one_line(exc.strerror or exc)}") from None
    if size == 0:
        raise InvalidInput(f"{label} is empty")
    if size > MAX_TEXT_BYTES:
        raise InvalidInput(f"{label} is larger than {MAX_TEXT_BYTES // 2**20} MB; use a smaller extract")
    return p, label, size


def load_table(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a CSV (``.csv``, ``.txt``, ``.tsv``, optionally ``.gz``) or Parquet (``.parquet``, ``.pq``)
    file chosen by its extension. Raises a one-line ``ValueError`` on any failure.

    Excel workbooks (:data:`EXCEL_EXTENSIONS`) are read too (their first sheet) when pandas' optional reader is
    installed.

    Parameters
    ----------
    path : str or os.PathLike
        A non-empty regular file of at most :data:`MAX_TEXT_BYTES` (gzip: once decompressed too).

    Returns
    -------
    pandas.DataFrame
        The table, at least one row and one column, column names as strings, at most :data:`MAX_ROWS` rows.

    Raises
    ------
    InvalidInput
        (a ``ValueError``) One line, when the file is missing, not a regular file, empty, too large, of an
        unsupported type, not well-formed, in an undetectable encoding, or without rows or columns.

    Warns
    -----
    UserWarning
        When the text is not UTF-8 and is read in a detected encoding (``df.attrs["encoding"]``), or the table has
        more than :data:`MAX_ROWS` rows (only the first are kept).
    """
    p, label, size = _regular_file(path)
    kind, compressed = _kind_of(p.name)
    try:
        with open(p, "rb") as fh:
            head = fh.read(_SNIFF_BYTES)
    except OSError as exc:
        raise InvalidInput(f"cannot read {label}: {_one_line(exc.strerror or exc)}") from None
    if kind == "parquet":
        df = _read_parquet(str(p), label)
    elif kind == "excel":
        df = _read_excel(str(p), label)
    elif compressed:
        text = _gunzip_bounded(str(p), label)
        if not text.strip():
            raise InvalidInput(f"{label} is empty")
        df = _read_csv(io.BytesIO(text), text[:_SNIFF_BYTES], label)
    else:
        df = _read_csv(str(p), head, label, compressed)
    return _cap_rows(_check_shape(df, label), label)


def read_text_lines(path: str | os.PathLike[str]) -> list[str]:
    """The lines of a UTF-8 text file (optionally ``.gz``, decompressed within the same bound), refused with one
    line when missing, empty, larger than MAX_TEXT_BYTES or not UTF-8 — e.g. a basket file, one user per line."""
    p, label, _ = _regular_file(path)
    try:
        data = _gunzip_bounded(str(p), label) if p.name.lower().endswith(".gz") else p.read_bytes()
    except OSError as exc:
        raise InvalidInput(f"cannot read {label}: {_one_line(exc.strerror or exc)}") from None
    return text_lines_from_bytes(data, label)


def text_lines_from_bytes(data: bytes, label: str) -> list[str]:
    """The lines of UTF-8 text held in memory (e.g. an uploaded basket file, one user per line).

    Parameters
    ----------
    data : bytes
        The file's content.
    label : str
        How messages name it, e.g. ``"file 'baskets.txt'"``.

    Returns
    -------
    list of str
        Its lines, without line ends (a byte-order mark dropped).

    Raises
    ------
    InvalidInput
        One line, when it is empty, larger than ``MAX_TEXT_BYTES`` or not UTF-8.
    """
    if len(data) > MAX_TEXT_BYTES:
        raise InvalidInput(f"{label} is larger than {MAX_TEXT_BYTES // 2**20} MB")
    if not data.strip():
        raise InvalidInput(f"{label} is empty")
    try:
        text = bytes(data).decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InvalidInput(f"{label} is not UTF-8 text; re-save it with UTF-8 encoding") from None
    return text.splitlines()


def load_json_object(data: bytes, filename: str) -> dict:
    """A JSON object (e.g. a dashboard configuration) from an uploaded file's bytes, or a one-line LDPError.

    Parameters
    ----------
    data : bytes
        The file's content, UTF-8 (a byte-order mark is accepted), at most 1 MB.
    filename : str
        The file's name, for messages.

    Returns
    -------
    dict
        The decoded JSON object.

    Raises
    ------
    InvalidInput
        When the content is larger than 1 MB, not UTF-8 JSON, or JSON other than an object.
    """
    import json

    label = f"file '{filename}'"
    if len(data) > 1 << 20:
        raise InvalidInput(f"{label} is larger than 1 MB: not a configuration file")
    try:
        value = json.loads(bytes(data).decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidInput(f"{label} is not a JSON file: {_one_line(exc)}") from None
    if not isinstance(value, dict):
        raise InvalidInput(f"{label} holds {type(value).__name__}, not a JSON object of settings")
    return value


def load_table_bytes(data: bytes, filename: str) -> pd.DataFrame:
    """Like :func:`load_table` for an uploaded file's content; ``filename`` gives the format.

    Parameters
    ----------
    data : bytes
        The file's content (bytes, bytearray or memoryview), non-empty, at most :data:`MAX_TEXT_BYTES`.
    filename : str
        The uploaded file's name: its extension selects the format (:data:`SUPPORTED_EXTENSIONS`).

    Returns
    -------
    pandas.DataFrame
        The table, as :func:`load_table` returns it.

    Raises
    ------
    InvalidInput
        One line, for an unsupported extension, content that is not bytes, empty or too large, or any failure
        :func:`load_table` reports.

    Warns
    -----
    UserWarning
        When the text is not UTF-8 and is read in a detected encoding (``df.attrs["encoding"]``), or the table has
        more than :data:`MAX_ROWS` rows (only the first are kept).
    """
    label = f"file '{filename}'"
    kind, compressed = _kind_of(filename)
    if not isinstance(data, bytes | bytearray | memoryview):
        raise InvalidInput(f"{label}: expected bytes, got {type(data).__name__}")
    data = bytes(data)
    if len(data) == 0:
        raise InvalidInput(f"{label} is empty")
    if len(data) > MAX_TEXT_BYTES:
        raise InvalidInput(f"{label} is larger than {MAX_TEXT_BYTES // 2**20} MB; use a smaller extract")
    if kind == "parquet":
        df = _read_parquet(io.BytesIO(data), label)
    elif kind == "excel":
        df = _read_excel(io.BytesIO(data), label)
    else:
        if compressed:
            data = _gunzip_bounded(data, label)
            if not data.strip():
                raise InvalidInput(f"{label} is empty")
        df = _read_csv(io.BytesIO(data), data[:_SNIFF_BYTES], label)
    return _cap_rows(_check_shape(df, label), label)


def _available(columns: list[str]) -> str:
    shown = ", ".join(columns[:_MAX_LISTED_COLUMNS])
    if len(columns) > _MAX_LISTED_COLUMNS:
        shown += f", … ({len(columns) - _MAX_LISTED_COLUMNS} more)"
    return shown or "(none)"


def get_column(df: pd.DataFrame, column: str) -> pd.Series:
    """The column called ``column``; surrounding spaces and letter case are forgiven when that is
    unambiguous. ``ValueError`` lists the available columns otherwise.

    Parameters
    ----------
    df : pandas.DataFrame
        The table.
    column : str
        The column's name: exact, else matching exactly one column once spaces are stripped, else exactly one
        once case is ignored too.

    Returns
    -------
    pandas.Series
        The column, named as in the table.

    Raises
    ------
    InvalidInput
        (a ``ValueError``) When no column (or more than one) matches; the message lists the available columns.
    """
    names = [str(c) for c in df.columns]
    if column in df.columns:
        return df[column]
    for normalise in (str.strip, lambda s: s.strip().casefold()):
        matches = [i for i, c in enumerate(names) if normalise(c) == normalise(str(column))]
        if len(matches) == 1:
            return df.iloc[:, matches[0]].rename(names[matches[0]])
    raise InvalidInput(f"column {column!r} not found; available: {_available(names)}")
