"""The server process's memory allocator: keep the buffers numpy frees for its next arrays instead of handing
them back to the operating system.

glibc's malloc serves a request above its mmap threshold (128 KiB at start, raised on frees, up to 32 MiB) with
fresh pages from the kernel and unmaps them on free, and gives back the free top of its heap beyond the trim
threshold (128 KiB). A numpy computation on arrays of about a megabyte that keeps a few temporaries alive at once
then faults every page of each in again: three 1 MB temporaries cost ≈ 470 page faults, about 1 ms, for 0.1 ms of
arithmetic, and the Means of vectors check by simulation spent half its CPU so (0.49 → 0.24 s once the buffers
are kept). With the mmap threshold at 32 MiB and the trim threshold at 64 MiB, freed buffers stay in the heap and
are reused; the process keeps at most 64 MiB of free memory it could have returned.

Where the C library has no ``mallopt`` (not glibc: macOS, musl) nothing is changed. ``LDP_KEEP_BUFFERS=0`` leaves
the allocator as it is (to measure the difference).
"""

from __future__ import annotations

import ctypes
import functools
import os

__all__ = ["MMAP_THRESHOLD", "TRIM_THRESHOLD", "keep_freed_buffers"]

#: Requests below this are served from the heap (glibc's largest allowed value on 64-bit, 32 MiB).
MMAP_THRESHOLD = 32 << 20
#: Free memory at the heap's top kept for reuse rather than returned to the kernel.
TRIM_THRESHOLD = 64 << 20
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's <malloc.h>


@functools.cache
def keep_freed_buffers() -> bool:
    """Set the process's malloc thresholds (once per process; later calls return the first answer).

    Returns
    -------
    bool
        Whether the thresholds were set (False without glibc's ``mallopt`` or with ``LDP_KEEP_BUFFERS=0``).
    """
    if os.environ.get("LDP_KEEP_BUFFERS", "1") == "0":
        return False
    if os.name != "posix":
        return False
    # the symbols of the process itself (dlopen(NULL)), where glibc's mallopt is when the C library is glibc
    mallopt = getattr(ctypes.CDLL(None), "mallopt", None)
    if mallopt is None:
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))
