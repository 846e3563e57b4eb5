"""Errors and text in the main panel: library errors as one line that says what to change, user text made plain,
sections that fail alone, and a row of controls.

Streamlit only: every computation is a call into ``ldp``."""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import streamlit as st

import ldp
from views.controls import (
    Control,
    message_area,
    render,
)

__all__ = ["friendly_errors", "plain", "render_row", "section"]

# --------------------------------------------------------------------------- errors
@contextlib.contextmanager
def friendly_errors(what: str = "this configuration") -> Iterator[None]:
    """Turn library errors into an ``st.error`` that says what to change, in the main panel even when raised while
    drawing the sidebar (the narrow sidebar hid them while the main panel stayed blank); never a
    traceback."""
    try:
        yield
    except ldp.LDPError as exc:  # a user error; a TypeError or KeyError is a bug and surfaces as one
        message_area().error(f"Cannot run {what}: {plain(str(exc))}")
        st.stop()
    except MemoryError:
        message_area().error("This configuration needs more memory than the server has: use the fast engine, "
                             "fewer users or a smaller domain.")
        st.stop()


_MARKDOWN = re.compile(r"([\[\]<])")


def plain(text: str) -> str:
    """User-provided text (a column or file name, a message quoting one) for a Markdown element: the brackets that
    make links and images, and the ``<`` of autolinks and tags, are escaped, so ``![x](http://…)`` is not fetched as
    an image and ``[here](…)`` is not a link; everything else reads as typed."""
    return _MARKDOWN.sub(r"\\\1", str(text))


def section(func: Callable[..., None]) -> Callable[..., None]:
    """A page section: a library error becomes an ``st.error`` inside the section, and the other sections still
    render (``friendly_errors`` would stop the whole page)."""
    @functools.wraps(func)
    def run(*args: Any, **kwargs: Any) -> None:
        try:
            func(*args, **kwargs)
        except ldp.LDPError as exc:
            st.error(f"Cannot show this section: {exc}")
    return run


def render_row(row: Sequence[Control]) -> list[Any]:
    """Draw controls side by side in one row of equal columns; their values in order."""
    return [render(control, column) for control, column in zip(row, st.columns(len(row)), strict=True)]
