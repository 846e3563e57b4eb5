"""A page's cached functions keyed once per compiled function, not again on every rerun.

Streamlit runs a page's script afresh on every rerun, so each ``st.cache_data`` and ``st.cache_resource`` a page
declares is declared again, and each declaration makes its function's cache key from the function's source:
``inspect.getsource`` checks the file, reads its lines and tokenizes the function (0.3-0.6 ms a function; the
Post-processing page declares six, 9 % of the server's CPU in an ε change with ten sessions,
benchmarks/bench_concurrency.py). Streamlit compiles a page once and runs the same code objects on every rerun, so a
function declared again is the same code object, and the key Streamlit made for it the first time is the key it
would make again. An edited page is compiled again: its functions are new code objects, keyed afresh (the key
still follows the source, defaults included, as Streamlit's own does).

Streamlit's key maker is private (``streamlit.runtime.caching.cache_utils._make_function_key``); where it is
missing (another version) nothing is changed, and the tests check that the key is Streamlit's own.
"""

from __future__ import annotations

import functools
import threading
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

    make = getattr(cache_utils, "_make_function_key", None)
    if make is None:
        return False
    cache_utils._make_function_key = _remembering(make)
    return True


def _remembering(make: Callable[[Any, Callable[..., Any]], str]) -> Callable[[Any, Callable[..., Any]], str]:
    """``make`` (cache type, function) → key, remembered per (cache type, code object) by identity: a code object is
    kept alive with its key, so its id is never reused while it is remembered."""
    remembered: dict[tuple[Any, int], tuple[Any, str]] = {}
    lock = threading.Lock()

    def make_key(cache_type: Any, func: Callable[..., Any]) -> str:
        code = getattr(func, "__code__", None)
        if code is None:
            return make(cache_type, func)
        known = remembered.get((cache_type, id(code)))
        if known is not None and known[0] is code:
            return known[1]
        key = make(cache_type, func)
        with lock:
            if len(remembered) >= MAX_REMEMBERED:
                remembered.clear()
            remembered[(cache_type, id(code))] = (code, key)
        return key

    return make_key
