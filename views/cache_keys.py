"""A page's cached functions keyed once per compiled function, not again on every rerun.

Streamlit runs a page's script afresh on every rerun, so each ``st.cache_data`` and ``st.cache_resource`` a page
declares is declared again, and each declaration makes its function's cache key from the function's source:
``inspect.getsource`` checks the file, reads its lines and tokenizes the function (0.3-0.6 ms a function; the
Post-processing page declares six, 9 % of the server's CPU in an ε change with ten sessions,
benchmarks/bench_concurrency.py). Streamlit compiles a page once and runs the same code objects on every rerun, so a
function declared again is the same code object, and the key Streamlit made for it the first time is the key it
would make again. An edited page is compiled again: its functions are new code objects, keyed afresh (the key
still follows the source, defaults included, as Streamlit's own does).

Each call of a cached function is keyed by its arguments, and Streamlit names every positional argument (to leave
out those whose name starts with "_") from the function's signature, made afresh for each argument of each call:
``inspect.signature`` nine times for one of the Post-processing page's chunks, 3 % of the server's CPU in the same
ε change. The names and kinds of a plain function's parameters follow from its code object alone, so they too are
remembered per code object.

Streamlit's key maker and argument namer are private (``streamlit.runtime.caching.cache_utils._make_function_key``
and ``_get_positional_arg_name``); where one is missing (another version) it is left alone, and the tests check that
the answers are Streamlit's own.
"""

from __future__ import annotations

import functools
import threading
import types
from collections.abc import Callable
from typing import Any

__all__ = ["MAX_REMEMBERED", "remember_function_keys"]

#: Code objects whose keys are kept (a page declares a handful; edits while the server runs add more): past this
#: many the memory is emptied and filled again.
MAX_REMEMBERED = 4096


@functools.cache
def remember_function_keys() -> bool:
    """Make Streamlit's cache keys once per code object, in this process (later calls return the first answer).

    Returns
    -------
    bool
        Whether Streamlit's key maker was found and wrapped.
    """
    from streamlit.runtime.caching import cache_utils

    name = getattr(cache_utils, "_get_positional_arg_name", None)
    if name is not None:
        cache_utils._get_positional_arg_name = _naming(name)
    make = getattr(cache_utils, "_make_function_key", None)
    if make is None:
        return False
    cache_utils._make_function_key = _remembering(make)
    return True


class _ByCode:
    """Answers remembered per (code object, what else the answer depends on), by identity: a code object is kept
    alive with its answer, so its id is never reused while it is remembered; past :data:`MAX_REMEMBERED` answers
    the memory is emptied and filled again."""

    def __init__(self) -> None:
        self._known: dict[tuple[int, Any], tuple[Any, Any]] = {}
        self._lock = threading.Lock()

    def answer(self, code: Any, extra: Any, compute: Callable[[], Any]) -> Any:
        known = self._known.get((id(code), extra))
        if known is not None and known[0] is code:
            return known[1]
        found = compute()
        with self._lock:
            if len(self._known) >= MAX_REMEMBERED:
                self._known.clear()
            self._known[(id(code), extra)] = (code, found)
        return found


def _naming(name: Callable[[Callable[..., Any], int], str | None]) -> Callable[[Callable[..., Any], int], str | None]:
    """``name`` (function, index) → the name of its positional argument there, remembered per (code object, index)
    for a plain function (a ``types.FunctionType`` whose signature is its code's: no ``__wrapped__`` or
    ``__signature__`` to follow); anything else is asked of Streamlit every time."""
    memory = _ByCode()

    def name_of(func: Callable[..., Any], index: int) -> str | None:
        if (type(func) is not types.FunctionType or hasattr(func, "__wrapped__")
                or hasattr(func, "__signature__")):
            return name(func, index)
        return memory.answer(func.__code__, index, lambda: name(func, index))

    return name_of


def _remembering(make: Callable[[Any, Callable[..., Any]], str]) -> Callable[[Any, Callable[..., Any]], str]:
    """``make`` (cache type, function) → key, remembered per (cache type, code object) (:class:`_ByCode`)."""
    memory = _ByCode()

    def make_key(cache_type: Any, func: Callable[..., Any]) -> str:
        code = getattr(func, "__code__", None)
        if code is None:
            return make(cache_type, func)
        return memory.answer(code, cache_type, lambda: make(cache_type, func))

    return make_key
