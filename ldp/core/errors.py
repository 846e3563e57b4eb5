"""The library's error and warning types.

:class:`LDPError` is the base of every error a user can cause or meet; it subclasses ``ValueError`` so
``except ValueError`` keeps working. Two kinds derive from it:

- :class:`InvalidInput` — bad input (a parameter out of range, a malformed report, a domain that does not fit):
  the message is one line that says what was wrong and what to change;
- :class:`NotAvailable` — a capability a component lacks (a continuous mechanism has no discrete channel, a
  mechanism has no density to check): callers probe with ``except NotAvailable``, so a genuine input error is
  never mistaken for "not supported".

``TypeError``, ``KeyError`` and the like are programming errors and are never caught as user errors by the CLI
or the pages. :class:`ConvergenceWarning` is issued by estimators that stop at their iteration cap before their
tolerance (their :class:`~ldp.core.results.Estimate` says so in its diagnostics too).
"""

from __future__ import annotations


class LDPError(ValueError):
    """A user-facing error: the message is one line that says what was wrong and what to change."""


class InvalidInput(LDPError):
    """Bad input from a caller, a file, a URL or an HTTP body (one-line reason)."""


class NotAvailable(LDPError):
    """A capability this component does not have (e.g. a discrete channel of a continuous mechanism)."""


class ConvergenceWarning(UserWarning):
    """An iterative estimator stopped at its iteration cap before reaching its tolerance."""


__all__ = ["ConvergenceWarning", "InvalidInput", "LDPError", "NotAvailable"]
