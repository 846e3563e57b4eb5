"""Real units ↔ the unit interval: the affine map numerical mechanisms work through."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ldp.core.errors import InvalidInput

__all__ = ["ValueScale"]


@dataclass(frozen=True)
class ValueScale:
    """The affine map between a column's real range [low, high] and the mechanisms' unit interval [0, 1].

    ``to_unit`` checks the range (or clips into it); ``from_unit`` maps anything back, including reports
    outside [0, 1] (an SW report lies in [−b, 1 + b], i.e. [low − b·w, high + b·w] with w = high − low).
    ``edges(d)`` are the same equal-width edges as :func:`ldp.data.domain.bucketize` uses, so an estimate
    and a bucketized column share their bins and the histogram metrics come out in real units.

    Parameters
    ----------
    low : float, default 0.0
        The lower end of the column's range.
    high : float, default 1.0
        The upper end; low < high, both finite and with a finite width.

    Raises
    ------
    InvalidInput
        When the ends are not numbers, not finite, or not low < high.
    """

    low: float = 0.0
    high: float = 1.0

    def __post_init__(self) -> None:
        try:
            lo, hi = float(self.low), float(self.high)
        except (TypeError, ValueError):
            raise InvalidInput(f"value range must be two numbers, got [{self.low!r}, {self.high!r}]") from None
        if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi and np.isfinite(hi - lo)):
            raise InvalidInput(f"value range must be finite with low < high, got [{lo}, {hi}]")
        object.__setattr__(self, "low", lo)
        object.__setattr__(self, "high", hi)

    @property
    def width(self) -> float:
        return self.high - self.low

    def to_unit(self, values: Any, *, clip: bool = False) -> np.ndarray:
        """Values in [low, high] as floats in [0, 1]; outside values raise ``ValueError`` unless ``clip``."""
        x = np.asarray(values, dtype=np.float64)
        if x.ndim != 1:
            raise InvalidInput(f"values must be a 1-D array, got shape {x.shape}")
        if not np.all(np.isfinite(x)):
            raise InvalidInput("values must be finite (drop missing values first)")
        outside = (x < self.low) | (x > self.high)
        if outside.any():
            if not clip:
                bad = float(x[outside][0])
                raise InvalidInput(f"{int(outside.sum())} value(s) lie outside [{self.low:g}, {self.high:g}], "
                                 f"e.g. {bad:g}; widen the range or clip them")
            x = np.clip(x, self.low, self.high)
        return np.clip((x - self.low) / self.width, 0.0, 1.0)

    def from_unit(self, values: Any) -> np.ndarray:
        """The inverse map low + u·(high − low) (no range check: reports may lie outside [0, 1])."""
        return self.low + np.asarray(values, dtype=np.float64) * self.width

    def edges(self, d: int) -> np.ndarray:
        """The d + 1 edges of d equal-width buckets over [low, high] (as :func:`~ldp.data.domain.bucketize`)."""
        return np.linspace(self.low, self.high, int(d) + 1)

    @classmethod
    def from_edges(cls, edges: Any) -> ValueScale:
        e = np.asarray(edges, dtype=np.float64)
        if e.ndim != 1 or e.size < 2:
            raise InvalidInput("edges must be a 1-D array of at least two bin edges")
        return cls(float(e[0]), float(e[-1]))
