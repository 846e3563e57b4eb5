"""The server process's garbage collector: the heap it builds once (imported modules, the precomputed studies)
taken out of its full collections.

CPython's cycle collector scans every tracked object it holds on each full (generation-2) collection, and runs one
whenever the objects that survived since the last reach a quarter of those it kept then. A warm dashboard server
holds the engine, pandas, SciPy and Plotly (whose validators alone are hundreds of thousands of objects) and its
cached studies; a full collection then took 0.12 s of CPU with the interpreter lock held, about once every ten
changes of ε on the Post-processing page — 12 ms of each, a tenth of its rerun, and a 0.12 s stall for every session
in the middle of a burst. :func:`freeze_long_lived`, called once the server's start-up work is done, collects once
and then moves every surviving object to the collector's permanent generation (``gc.freeze``): those are never
scanned again, and later full collections scan only what the reruns have built since. Objects frozen stay until the
process ends, so it is called where what survives is meant to live as long as the server: after the imports and the
precomputed studies, never after a rerun (a rerun's figures hold reference cycles that would then never be
freed). :func:`imports_kept` does the same for a process's start-up imports, and spares them the collections
too. ``LDP_FREEZE_HEAP=0`` leaves the collector as it is (to measure the difference).
"""

from __future__ import annotations

import contextlib
import gc
import os
import threading
from collections.abc import Iterator

__all__ = ["first_imports", "freeze_long_lived", "imports_kept"]

_blocks = threading.Lock()
_depth = 0  # imports_kept blocks running now
_was_enabled = True  # the collector's state before the first of them
_first_done = False  # first_imports has been entered in this process


@contextlib.contextmanager
def imports_kept() -> Iterator[None]:
    """A block of start-up imports, whose modules live as long as the process: the collector is off while it runs,
    and what it built is frozen when it ends.

    Importing a library stack grows the heap by a quarter again and again, and each time CPython runs a full
    collection over all of it: importing the engine and the first page (after Streamlit and Plotly) took 0.81 s, of
    which three full collections were 0.25 s (``gc.callbacks``), on the cold start's way to the first page. Without
    them, 0.59-0.64 s. The block ends with ``gc.freeze()`` and no collection (one would take 0.15 s): the garbage
    the imports leave (2,400 unreachable objects, as ``gc.collect()`` counted them afterwards) is kept for the
    process's life. The collector is off for the whole process meanwhile (another thread's garbage waits, and is
    frozen with the rest), until the last of the blocks running at once ends; it is turned back on only if it was
    on before the first. ``LDP_FREEZE_HEAP=0`` changes nothing.
    """
    global _depth, _was_enabled
    if os.environ.get("LDP_FREEZE_HEAP", "1") == "0":
        yield
        return
    with _blocks:  # blocks in several threads at once: the first turns the collector off, the last back on
        if not _depth:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _blocks:
            _depth -= 1
            if not _depth:
                gc.freeze()
                if _was_enabled:
                    gc.enable()


def first_imports() -> contextlib.AbstractContextManager[None]:
    """:func:`imports_kept` the first time a process asks, and a block that does nothing every later time.

    ``app.py`` imports the dashboard's modules inside it. Streamlit runs that script again on every rerun, where the
    imports are already done and the block's ``gc.freeze()`` would freeze the other sessions' live objects for the
    process's life; only the first run's block is a block of start-up imports. In a cold start it took the first
    page from 3.41 to 3.12 s (medians of seven interleaved starts, benchmarks/bench_dashboard.py's measure).
    """
    global _first_done
    with _blocks:
        first, _first_done = not _first_done, True
    return imports_kept() if first else contextlib.nullcontext()


def freeze_long_lived() -> bool:
    """Collect the garbage there is, then freeze every object still alive out of later collections.

    Returns
    -------
    bool
        Whether the heap was frozen (False with ``LDP_FREEZE_HEAP=0``).
    """
    if os.environ.get("LDP_FREEZE_HEAP", "1") == "0":
        return False
    gc.collect()
    gc.freeze()
    return True
