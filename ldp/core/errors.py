"""The library's one error type.

Every bad input a user can give (a parameter out of range, a malformed report, a domain that does not
fit) raises :class:`LDPError` with a one-line reason saying what to change. It subclasses ``ValueError``
so ``except ValueError`` keeps working; ``TypeError``, ``KeyError`` and the like are programming errors
and are never caught as user errors by the CLI or the pages.
"""

from __future__ import annotations


class LDPError(ValueError):
    """A user-facing error: the message is one line that says what was wrong and what to change."""


__all__ = ["LDPError"]
