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
freed). ``LDP_FREEZE_HEAP=0`` leaves the collector as it is (to measure the difference).
"""

from __future__ import annotations

import gc
import os

__all__ = ["freeze_long_lived"]


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
