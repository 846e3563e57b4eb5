"""Cooperative cancellation: long computations stop when whoever asked for them is gone.

A caller (the dashboard: "is this browser session still connected?"; the CLI: nothing) installs a predicate
with :func:`cancel_when`; the library's long loops — trials of a simulation, chunks of users of the exact
engine, EM/IBU iterations, configurations of a sweep — call :func:`checkpoint`, which raises
:class:`Cancelled` once the predicate says so. The predicate is evaluated at most every
``interval`` seconds (0.2 s by default), so a checkpoint costs a clock read. The predicate lives in a
:class:`~contextvars.ContextVar`, so two dashboard sessions (two script threads) never see each other's.

Partial work is simply dropped: a cancelled computation returns nothing and caches nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

__all__ = ["Cancelled", "cancel_when", "cancelled", "checkpoint"]


class Cancelled(Exception):
    """The run was asked to stop (its ``cancel()`` or the installed predicate said so); partial work is dropped."""


@dataclass
class _Watch:
    predicate: Callable[[], bool]
    interval: float
    next_check: float = field(default=0.0)


_WATCH: ContextVar[_Watch | None] = ContextVar("ldp_cancellation", default=None)


@contextmanager
def cancel_when(predicate: Callable[[], bool], interval: float = 0.2) -> Iterator[None]:
    """Install a cancellation predicate for the duration of a ``with`` block.

    Within the block, :func:`checkpoint` raises :class:`Cancelled` once ``predicate()`` is true. The predicate lives in
    a :class:`~contextvars.ContextVar`, so it is private to this thread/context; the previous one is restored on exit.

    Parameters
    ----------
    predicate : callable () -> bool
        Says whether the run should stop (e.g. "the browser session is gone").
    interval : float, default 0.2
        Minimum number of seconds between two evaluations of ``predicate`` (a checkpoint in between costs a clock
        read).

    Yields
    ------
    None
        Control to the body of the ``with`` block.
    """
    token = _WATCH.set(_Watch(predicate, float(interval)))
    try:
        yield
    finally:
        _WATCH.reset(token)


def cancelled() -> bool:
    """Whether the installed predicate (if any) says the run should stop.

    The predicate is evaluated at most every ``interval`` seconds (see :func:`cancel_when`); between evaluations, and
    when no predicate is installed, the answer is False.

    Returns
    -------
    bool
        True when the run should stop.
    """
    watch = _WATCH.get()
    if watch is None:
        return False
    now = time.monotonic()
    if now < watch.next_check:
        return False
    watch.next_check = now + watch.interval
    return bool(watch.predicate())


def checkpoint() -> None:
    """Raise :class:`Cancelled` if the installed predicate (if any) says the run should stop."""
    if cancelled():
        raise Cancelled("the run was cancelled: whoever asked for it is gone")
