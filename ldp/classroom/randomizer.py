"""The student's randomizer, driven by a stream of random bytes — the same function as the browser's.

The student page (``static/randomizer.js``) and this module randomize with the *mechanisms' own* client code
(:meth:`~ldp.mechanisms.base.Mechanism.perturb` for one user), fed by :class:`ByteStreamRandom`, a
:class:`~ldp.core.randomness.RandomSource` whose two methods consume bytes in a fixed, documented way:

- ``integers(low, high)``: span = high − low ≤ 2^32; read 4 bytes as a little-endian uint32 u, reject while
  u ≥ 2^32 − (2^32 mod span) (rejection sampling: no modulo bias), return low + u mod span;
- ``random()``: read 8 bytes as little-endian uint32 words lo, hi; return ((hi >> 11)·2^32 + lo) / 2^53
  (53 uniform bits, exactly representable in a double in Python and JavaScript alike).

The JavaScript file replays, call for call, what the mechanisms' ``_perturb`` does for one user (GRR:
:func:`~ldp.core.randomness.bernoulli` of one byte — the low byte of one uint16 draw — and, on a tie, one
``random()``; then the shift ``integers(1, d)``; OUE: d bytes from ⌈d/2⌉ uint16 draws, ties resolved in index
order, then the own bit; OLH: ``a``, ``b``, then GRR on [g]; PM: two ``random()``). ``tests/classroom``
feeds both the same bytes and compares the reports, so a change to either side is caught.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np

from ldp.classroom.model import QuestionSpec, mechanism_of
from ldp.core.errors import InvalidInput

__all__ = ["ByteStreamRandom", "randomize"]

_TWO32 = 1 << 32


class ByteStreamRandom:
    """A RandomSource reading bytes from ``source(n) -> bytes`` (default ``os.urandom``) or from a fixed buffer.

    ``integers`` reads 4 bytes per draw (little-endian uint32, rejection sampling: no modulo bias) and ``random`` 8
    bytes (53 bits), exactly as ``static/randomizer.js`` does (see the module docstring).

    Parameters
    ----------
    source : bytes or callable (int) -> bytes, optional
        A fixed buffer (an ``InvalidInput`` when it runs out) or a function returning n random bytes; ``os.urandom``
        when None.

    Attributes
    ----------
    consumed : int
        Bytes read so far.
    """

    def __init__(self, source: bytes | Callable[[int], bytes] | None = None) -> None:
        if source is None:
            self._read = os.urandom
        elif isinstance(source, (bytes, bytearray)):
            buf, pos = bytes(source), [0]

            def read(n: int) -> bytes:
                if pos[0] + n > len(buf):
                    raise InvalidInput(f"the random byte buffer ran out after {pos[0]} bytes")
                out = buf[pos[0]:pos[0] + n]
                pos[0] += n
                return out

            self._read = read
        else:
            self._read = source
        self.consumed = 0

    def _u32(self) -> int:
        self.consumed += 4
        return int.from_bytes(self._read(4), "little")

    def _uniform(self, span: int) -> int:
        limit = _TWO32 - _TWO32 % span
        while True:
            u = self._u32()
            if u < limit:
                return u % span

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        if high is None:
            low, high = 0, low
        if np.ndim(low) or np.ndim(high):
            raise InvalidInput("ByteStreamRandom.integers takes scalar bounds")
        low, high = int(low), int(high) + (1 if endpoint else 0)
        span = high - low
        if not 0 < span <= _TWO32:
            raise InvalidInput(f"ByteStreamRandom.integers: span must lie in (0, 2^32], got {span}")
        count = 1 if size is None else int(np.prod(size))
        out = np.array([low + self._uniform(span) for _ in range(count)], dtype=dtype)
        return out[0] if size is None else out.reshape(size)

    def random(self, size=None, dtype=np.float64):
        count = 1 if size is None else int(np.prod(size))
        vals = []
        for _ in range(count):
            lo, hi = self._u32(), self._u32()
            vals.append(((hi >> 11) * _TWO32 + lo) / 9007199254740992.0)
        out = np.array(vals, dtype=dtype)
        return float(out[0]) if size is None else out.reshape(size)


def randomize(spec: QuestionSpec, answer: Any, rng: Any | None = None) -> str:
    """One student's report for ``answer``, as the one line the API takes.

    The question's mechanism perturbs the answer with its own client code (:meth:`Mechanism.perturb` for one user).

    Parameters
    ----------
    spec : QuestionSpec
        The question (its mechanism, ε, labels or range).
    answer : str, int or float
        A label or its index (categorical questions); a number in the question's range (numeric ones).
    rng : RandomSource, optional
        The randomness (default a :class:`ByteStreamRandom` on ``os.urandom``).

    Returns
    -------
    str
        The report line.

    Raises
    ------
    InvalidInput
        For an answer that is not one of the question's labels or outside its range.
    """
    mech = mechanism_of(spec)
    value = spec.to_input(answer)
    reports = mech.perturb(np.array([value]), rng if rng is not None else ByteStreamRandom())
    return next(iter(mech.format_reports(reports)))
