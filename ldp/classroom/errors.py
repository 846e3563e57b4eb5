"""Errors of the live classroom, each an :class:`~ldp.core.errors.LDPError` (one-line reason) with the HTTP status
the API answers with. A plain ``LDPError`` (a malformed report, a bad question) is a 400."""

from __future__ import annotations

from ldp.core.errors import LDPError

__all__ = ["ClassClosed", "ClassroomError", "CrossSite", "DuplicateNonce", "Forbidden", "ImpossibleReport",
           "NotFound", "RateLimited",
           "StorageUnavailable", "TooLarge", "Unauthorized", "UnsupportedMediaType", "retry_after_of", "status_of"]


class ClassroomError(LDPError):
    """An error of the live classroom: a one-line reason and the HTTP ``status`` the API answers with (400 here)."""
    status = 400


class NotFound(ClassroomError):
    """No class with this code (or no such resource): HTTP 404."""
    status = 404


class Unauthorized(ClassroomError):
    """No teacher token given."""

    status = 401


class Forbidden(ClassroomError):
    """A teacher token was given, but not this class's."""

    status = 403


class DuplicateNonce(ClassroomError):
    """A report whose nonce was already received (a resent or replayed report): HTTP 409."""
    status = 409


class ClassClosed(ClassroomError):
    """The question is closed, or the report answers another question than the open one."""

    status = 409


class ImpossibleReport(ClassroomError):
    """A well-formed report the question's mechanism can never produce (a PM report beyond ±s or off its output
    grid): made by hand, not by a phone's randomizer."""

    status = 422


class TooLarge(ClassroomError):
    """A request body over the size limit: HTTP 413."""
    status = 413


class RateLimited(ClassroomError):
    """Too many requests from one device or address: HTTP 429 with a ``Retry-After``.

    Parameters
    ----------
    message : str
        The one-line reason.
    retry_after : int, default 1
        Seconds the client should wait before retrying (at least 1).

    Attributes
    ----------
    retry_after : int
        As given, clamped to ≥ 1.
    """
    status = 429
    retry_after = 1

    def __init__(self, message: str, retry_after: int = 1) -> None:
        super().__init__(message)
        self.retry_after = max(1, int(retry_after))


class StorageUnavailable(ClassroomError):
    """The store cannot be read or written right now (disk full, read-only file, database down): retry later."""

    status = 503
    retry_after = 5


class CrossSite(ClassroomError):
    """A state-changing request sent by a page of another origin (``Origin`` differs from ``Host``)."""

    status = 403


class UnsupportedMediaType(ClassroomError):
    """A body that is not declared ``application/json``."""

    status = 415


def status_of(error: LDPError) -> int:
    """The HTTP status an error maps to: its ``status`` attribute, or 400 for any other ``LDPError``.

    Parameters
    ----------
    error : LDPError
        The error raised while handling a request.

    Returns
    -------
    int
        The HTTP status code.
    """
    return getattr(error, "status", 400)


def retry_after_of(error: LDPError) -> int | None:
    """Seconds a client should wait before retrying (the ``Retry-After`` header), or None.

    Parameters
    ----------
    error : LDPError
        The error a request ended with.

    Returns
    -------
    int or None
        Its ``retry_after`` attribute (rate limits, unavailable storage), or None.
    """
    return getattr(error, "retry_after", None)
