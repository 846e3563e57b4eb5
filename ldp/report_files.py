"""Report files: the text files exchanged between clients (``ldp perturb``) and the server (``ldp aggregate``).

Layout (UTF-8 text)::

    # ldp-reports {"format": 1, "mechanism": "olh", "epsilon": 1.0, "epsilon_1": null, "d": 8,
    #              "params": {"g": 4, "prime": 11}, "users": 300}          (one line in the file)
    # report: three integers 'a b y': ...                                   (free comment)
    3 7 1
    ...

Every line starting with ``#`` before the first report is a comment; the one starting with
``# ldp-reports `` holds the JSON header (mechanism, ε, ε1, d, the resolved mechanism parameters —
e.g. the hash prime P of local hashing — and the number of reports). After the header there is one
report per line in the mechanism's own format (``Mechanism.format_reports``). Files without a header
are accepted; then only the per-line validation of ``Mechanism.parse_reports`` applies.

All files are written atomically: to a temporary file in the target directory, then ``os.replace``,
so an interrupted or failed write never leaves a partial file behind.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import os
import secrets
import warnings
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, Any

import numpy as np

from ldp.core.errors import InvalidInput, LDPError
from ldp.core.randomness import RandomSource
from ldp.mechanisms.base import Mechanism

__all__ = [
    "FORMAT_VERSION",
    "HEADER_TAG",
    "atomic_write",
    "check_header",
    "load_reports",
    "perturb_to_file",
    "read_header",
    "report_header",
    "write_report_file",
]

HEADER_TAG = "# ldp-reports "
FORMAT_VERSION = 1
# Lines written per ``write`` call when streaming reports to disk.
WRITE_BLOCK = 8192


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


# --------------------------------------------------------------------------- atomic writes
@contextlib.contextmanager
def atomic_write(path: str | os.PathLike[str], *, encoding: str = "utf-8") -> Iterator[IO[str]]:
    r"""Open a temporary text file next to ``path``; on success it replaces ``path`` atomically.

    On any exception the temporary file is removed (``path`` is then left untouched). The temporary file is created
    with ``O_EXCL`` under a random name, written, flushed and fsynced before ``os.replace``.

    Parameters
    ----------
    path : str or os.PathLike
        The file to write (not a directory).
    encoding : str, default "utf-8"
        The text encoding (newlines are written as ``\n``).

    Yields
    ------
    IO[str]
        The temporary file, open for writing.

    Raises
    ------
    InvalidInput
        If ``path`` is a directory.
    OSError
        If the temporary file cannot be created or the replacement fails.
    """
    target = Path(path)
    if target.is_dir():
        raise InvalidInput(f"output '{target}' is a directory")
    parent = target.parent
    tmp = parent / f".{target.name}.{secrets.token_hex(6)}.tmp"
    # O_EXCL on a random name; mode 0o666 lets the umask decide the final permissions, like open().
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "w", encoding=encoding, newline="\n") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


# --------------------------------------------------------------------------- header
def report_header(mechanism: Mechanism, users: int | None = None, extra: dict[str, Any] | None = None,
                  ) -> dict[str, Any]:
    """The JSON header describing the reports of ``mechanism`` (resolved parameters included).

    Parameters
    ----------
    mechanism : Mechanism
        The mechanism that wrote (or will write) the reports.
    users : int, optional
        The number of reports, when known.
    extra : dict, optional
        Further keys, such as the public value ``range`` of a numerical or mean mechanism.

    Returns
    -------
    dict
        ``format``, ``mechanism``, ``epsilon``, ``epsilon_1``, ``d``, ``params`` (without ``epsilon_1``), the
        ``extra`` keys and ``users`` when given.
    """
    params = mechanism.params
    epsilon_1 = params.pop("epsilon_1", None)
    header: dict[str, Any] = {
        "format": FORMAT_VERSION,
        "mechanism": mechanism.name,
        "epsilon": mechanism.epsilon,
        "epsilon_1": epsilon_1,
        "d": mechanism.d,
        "params": params,
    }
    header.update(extra or {})
    if users is not None:
        header["users"] = int(users)
    return header


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(float(a), float(b), rel_tol=1e-12, abs_tol=0.0)
    return a == b


def check_header(header: dict[str, Any], mechanism: Mechanism, label: str = "report file") -> None:
    """Raise a one-line error naming every field where ``header`` disagrees with ``mechanism``.

    Fields absent from the header (a hand-written one) are not checked; ``params``, when present, must
    match all of the mechanism's resolved parameters (numbers compared to a relative 10⁻¹²).

    Parameters
    ----------
    header : dict
        The file's parsed header.
    mechanism : Mechanism
        The mechanism the reader expects.
    label : str, default "report file"
        How the file is named in the message.

    Raises
    ------
    InvalidInput
        If the mechanism, ε, ε1, d or a parameter differs, or ``params`` is not an object.
    """
    expected = report_header(mechanism)
    diffs: list[str] = []
    if header.get("mechanism") != expected["mechanism"]:
        diffs.append(f"mechanism {header.get('mechanism')!r} in the file, {expected['mechanism']!r} here")
    else:
        for key in ("epsilon", "epsilon_1", "d"):
            if key in header and not _same(header[key], expected[key]):
                diffs.append(f"{key} {header[key]!r} in the file, {expected[key]!r} here")
        got = header.get("params", expected["params"])
        if not isinstance(got, dict):
            raise InvalidInput(f"{label}: malformed ldp-reports header (params is not an object)")
        for key in sorted(set(got) | set(expected["params"])):
            if not _same(got.get(key), expected["params"].get(key)):
                diffs.append(f"parameter {key} {got.get(key)!r} in the file, {expected['params'].get(key)!r} here")
    if diffs:
        raise InvalidInput(f"{label} was written with other settings: " + "; ".join(diffs))


def _parse_header_line(line: str, label: str, number: int) -> dict[str, Any]:
    try:
        header = json.loads(line[len(HEADER_TAG):])
    except RecursionError:  # a header of thousands of nested brackets
        raise InvalidInput(f"{label} line {number}: malformed ldp-reports header (nested too deeply)") from None
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{label} line {number}: malformed ldp-reports header ({exc.msg})") from None
    if not isinstance(header, dict) or "mechanism" not in header:
        raise InvalidInput(f"{label} line {number}: malformed ldp-reports header (expected a JSON object "
                         "with a 'mechanism' key)")
    version = header.get("format", FORMAT_VERSION)
    if version != FORMAT_VERSION:
        raise InvalidInput(f"{label}: unsupported report file format {version!r} (this version reads {FORMAT_VERSION})")
    for key, (fits, what) in _HEADER_FIELDS.items():
        if key in header and not fits(header[key]):
            raise InvalidInput(f"{label} line {number}: malformed ldp-reports header ({key} must be {what}, got "
                               f"{json.dumps(header[key])[:60]})")
    return header


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _whole(x: Any, low: int) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= low


def _names(x: Any) -> bool:
    return (isinstance(x, list) and all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in x)
            and len({str(v) for v in x}) == len(x))


#: The optional header fields other writers' readers (the CLI's) use, with what each must be: a hand-edited header
#: with a malformed one is refused here, in one line, instead of failing later with a traceback.
_HEADER_FIELDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "users": (lambda x: _whole(x, 0), "a whole number ≥ 0"),
    "range": (lambda x: isinstance(x, list) and len(x) == 2 and all(map(_number, x)) and x[0] < x[1],
              "two finite numbers [lo, hi] with lo < hi"),
    "columns": (lambda x: _names(x) and all(isinstance(v, str) for v in x), "a list of distinct column names"),
    "items": (_names, "a list of distinct items"),
    "length": (lambda x: _whole(x, 1), "a whole number ≥ 1"),
    "protocol_epsilon": (lambda x: _number(x) and x > 0, "a positive number"),
}


def read_header(path: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The JSON header of a report file, or ``None`` when it has none.

    Parameters
    ----------
    path : str or os.PathLike
        The report file.

    Returns
    -------
    dict or None
        The header (only the comment lines before the first report are read).

    Raises
    ------
    InvalidInput
        If the file does not exist or is not a regular file, or its header is malformed or of another format version.
    """
    label = f"report file '{path}'"
    with _open_text(path) as fh:
        for number, line in enumerate(fh, start=1):
            if not line.startswith("#"):
                break
            if line.startswith(HEADER_TAG):
                return _parse_header_line(line.rstrip("\n"), label, number)
    return None


# --------------------------------------------------------------------------- writing
def write_report_file(path: str | os.PathLike[str], mechanism: Mechanism, chunks: Iterable[np.ndarray],
                      users: int | None = None, comments: Iterable[str] = (),
                      header_extra: dict[str, Any] | None = None) -> int:
    """Write the header then every report of ``chunks``, one per line, streaming in blocks; atomic.

    Parameters
    ----------
    path : str or os.PathLike
        The report file to write.
    mechanism : Mechanism
        The mechanism whose reports they are (formats each line, fills the header).
    chunks : iterable of numpy.ndarray
        Reports as returned by ``perturb``, chunk by chunk.
    users : int, optional
        The number of reports announced in the header (checked against what was written).
    comments : iterable of str, default ()
        Comment lines written after the header (each folded to one line).
    header_extra : dict, optional
        Further header keys (see :func:`report_header`).

    Returns
    -------
    int
        The number of reports written.

    Raises
    ------
    InvalidInput
        If ``path`` is a directory, or fewer or more reports than ``users`` were written (the file is then not
        created).
    """
    written = 0
    with atomic_write(path) as fh:
        fh.write(HEADER_TAG + json.dumps(report_header(mechanism, users, header_extra), allow_nan=False) + "\n")
        fh.write(_one_line(f"# report: {mechanism.report_format}") + "\n")
        for comment in comments:
            fh.write("# " + _one_line(comment) + "\n")
        for chunk in chunks:
            lines = mechanism.format_reports(chunk)
            while block := list(itertools.islice(lines, WRITE_BLOCK)):
                fh.write("\n".join(block))
                fh.write("\n")
                written += len(block)
        if users is not None and written != users:  # pragma: no cover - guards against caller bugs
            raise InvalidInput(f"wrote {written} reports but the header announces {users}")
    return written


#: Most cells (bits, numbers) of one report, and of all the reports of one file: a report file is written in bounded
#: time and memory (OUE at d = 10⁹ wrote for a minute a gigabyte per user).
MAX_REPORT_WIDTH = 1 << 24
MAX_REPORT_CELLS = 1 << 30


def check_report_size(mechanism: Mechanism, users: int) -> None:
    """Refuse, before any work, reports too wide or too many: users × the mechanism's report width (its cells)."""
    width = int(mechanism.report_width())
    if width > MAX_REPORT_WIDTH:
        raise InvalidInput(f"{mechanism.name}: one report holds {width:,} cells (at most {MAX_REPORT_WIDTH:,}); use a "
                           "smaller domain or a mechanism with short reports (grr, olh, hr)")
    if users * width > MAX_REPORT_CELLS:
        raise InvalidInput(f"{mechanism.name}: {users:,} reports × {width:,} cells = {users * width:.3g} cells "
                           f"(at most {MAX_REPORT_CELLS:,}); use fewer users, a smaller domain or a mechanism with "
                           "short reports (grr, olh, hr)")


def perturb_to_file(path: str | os.PathLike[str], mechanism: Mechanism, values: np.ndarray, rng: RandomSource,
                    chunk_size: int | None = None, comments: Iterable[str] = (),
                    header_extra: dict[str, Any] | None = None) -> int:
    """Client side in bulk: perturb ``values`` and write the reports to ``path`` (atomic, streamed).

    Users are perturbed in chunks of ``mechanism.chunk_size()`` (bounded memory) drawing from ``rng``
    in order, so when everybody fits in one chunk the reports equal ``mechanism.perturb(values, rng)``.

    Parameters
    ----------
    path : str or os.PathLike
        The report file to write.
    mechanism : Mechanism
        The client randomizer.
    values : array_like
        The users' true values (validated by the mechanism).
    rng : RandomSource
        The randomness (a seeded ``Generator`` for simulation, :class:`~ldp.core.randomness.SecureRandom` for real
        collection).
    chunk_size : int, optional
        Users per chunk (default ``mechanism.chunk_size()``).
    comments, header_extra
        Passed to :func:`write_report_file`.

    Returns
    -------
    int
        The number of reports written: one per user.

    Raises
    ------
    InvalidInput
        For invalid values, no users, reports too wide or too many (``check_report_size``), or an output path that is
        a directory.
    """
    arr = mechanism.validate_values(values)
    if arr.shape[0] < 1:
        raise InvalidInput("there are no users to perturb")
    check_report_size(mechanism, arr.shape[0])
    step = int(chunk_size or mechanism.chunk_size())
    chunks = (mechanism.perturb(arr[s:s + step], rng) for s in range(0, arr.shape[0], step))
    return write_report_file(path, mechanism, chunks, users=arr.shape[0], comments=comments,
                             header_extra=header_extra)


# --------------------------------------------------------------------------- reading
def _open_text(path: str | os.PathLike[str]) -> IO[str]:
    p = Path(path)
    if not p.exists():
        raise InvalidInput(f"report file '{p}' not found")
    if not p.is_file():
        raise InvalidInput(f"report file '{p}' is not a regular file")
    return open(p, encoding="utf-8-sig")


def load_reports(path: str | os.PathLike[str], mechanism: Mechanism) -> tuple[np.ndarray, dict[str, Any] | None]:
    """Read a report file for ``mechanism``: check its header (if any), parse and validate every line.

    Without a header a warning says that only the support counts' consistency can be checked.

    Parameters
    ----------
    path : str or os.PathLike
        The report file.
    mechanism : Mechanism
        The mechanism the reports must come from.

    Returns
    -------
    tuple of (numpy.ndarray, dict or None)
        ``(reports, header)``, the header None when the file has none.

    Raises
    ------
    InvalidInput
        One line naming the file (and the line) on a missing or non-UTF-8 file, a header of other settings or a
        second header, a malformed or out-of-range line, a truncated file, or no reports.
    """
    label = f"report file '{path}'"
    header: dict[str, Any] | None = None
    try:
        with _open_text(path) as fh:
            first: list[str] = []
            for number, line in enumerate(fh, start=1):
                if not line.startswith("#"):
                    first.append(line)
                    break
                if line.startswith(HEADER_TAG):
                    if header is not None:
                        raise InvalidInput(f"{label} line {number}: a second ldp-reports header")
                    header = _parse_header_line(line.rstrip("\n"), label, number)
                first.append("")  # keep parse_reports' line numbers equal to the file's
            if header is not None:
                check_header(header, mechanism, label)
            try:
                reports = mechanism.parse_reports(itertools.chain(first, fh))
            except UnicodeDecodeError:
                raise
            except OverflowError:  # an integer beyond int64 in a line (Mechanism.parse_reports)
                raise InvalidInput(f"{label}: a report entry is out of range (too large) — is this a report file "
                                 "of another mechanism or domain?") from None
            except LDPError as exc:
                msg = _one_line(exc)
                if "holds no reports" in msg:
                    raise InvalidInput(f"{label} holds no reports") from None
                raise InvalidInput(f"{label}: {msg}") from None
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"{label} is not UTF-8 text (invalid byte 0x{exc.object[exc.start]:02x})") from None
    n = int(np.asarray(reports).shape[0])
    if header is None:
        warnings.warn(f"{label} has no ldp-reports header, so its mechanism, ε and domain cannot be checked against "
                      "this command's; the support counts are checked for consistency instead", stacklevel=2)
    else:
        unchecked = [key for key in ("epsilon", "d", "params") if key not in header]
        if unchecked:  # a hand-written header that names only the mechanism checks nothing else
            warnings.warn(f"{label}'s ldp-reports header has no {', '.join(unchecked)}, so those cannot be checked "
                          "against this command's; the support counts are checked for consistency instead",
                          stacklevel=2)
    if header is not None and "users" in header and header["users"] != n:
        raise InvalidInput(f"{label} holds {n} reports but its header announces {header['users']} "
                         "(truncated or edited?)")
    return reports, header
