"""Explicit output grids for continuous reports: the defence against floating-point side channels.

Mironov (CCS'12, "On significance of the least significant bits for differential privacy") showed that a
mechanism sampled with floating-point arithmetic releases more than its ideal real-valued output: the set of
floats a textbook sampler can produce depends on the input, so an attacker who looks at the low-order bits
tells inputs apart with certainty. Here, for example, SHE's float32 coordinate of the user's own value is
1 + noise and always lies on the 2⁻²⁴ grid when |y| < ½, while the other coordinates do not (probability 0
under one input, 0.15 under another); most Square Wave and PM outputs could not have been produced under
another input at all.

The remedy used by every continuous client in this package is Mironov's *snapping*: the report is not the
sampled float but the point of an explicit, input-independent grid ``origin + k·step`` (k an integer in a
declared range) nearest to it. Snapping is post-processing of the ideal real-valued report, so the ideal
channel on the grid is exactly ε-LDP; the realised channel differs from it only by the sampler's own
resolution, which is negligible once every grid cell receives many distinct sampler outputs — each cell is
at least 2²⁰ floats wide and every sampler draws the position within a piece of its density from a fresh
uniform, so that the piece's own (possibly tiny) probability does not coarsen the positions within it. The
grid points are computed from k alone, so a report reveals nothing beyond k.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["OutputGrid", "power_of_two_at_most"]


def power_of_two_at_most(x: float) -> float:
    """The largest power of two ≤ x (x > 0).

    Parameters
    ----------
    x : float
        A positive finite number.

    Returns
    -------
    float
        2^⌊log₂ x⌋.
    """
    return 2.0 ** math.floor(math.log2(x))


@dataclass(frozen=True)
class OutputGrid:
    """The points ``origin + k·step`` for integers ``lo_index ≤ k ≤ hi_index``.

    ``snap`` maps real values to the nearest grid point (ties to even k, so a grid symmetric about a value
    keeps a symmetric distribution symmetric), clamping to the ends; ``contains`` tells whether values are
    grid points, bit for bit.

    Parameters
    ----------
    origin : float
        The grid point of index 0 (finite).
    step : float
        The spacing (finite, > 0).
    lo_index, hi_index : int
        The smallest and largest index, ``lo_index ≤ hi_index``.

    Raises
    ------
    ValueError
        For a non-finite origin or step, a step ≤ 0, or ``lo_index > hi_index``.

    References
    ----------
    Mironov, "On significance of the least significant bits for differential privacy", CCS 2012 (snapping).
    """

    origin: float
    step: float
    lo_index: int
    hi_index: int

    def __post_init__(self) -> None:
        if not (math.isfinite(self.origin) and math.isfinite(self.step) and self.step > 0):
            raise ValueError(f"a grid needs a finite origin and a positive step, got {self.origin}, {self.step}")
        if self.lo_index > self.hi_index:
            raise ValueError("a grid needs lo_index ≤ hi_index")

    @property
    def points(self) -> int:
        return self.hi_index - self.lo_index + 1

    def index(self, values: np.ndarray) -> np.ndarray:
        """The index k of the grid point nearest to each value (clamped to the grid)."""
        k = np.rint((np.asarray(values, dtype=np.float64) - self.origin) / self.step)
        np.clip(k, self.lo_index, self.hi_index, out=k)
        return k.astype(np.int64)

    def value(self, index: np.ndarray) -> np.ndarray:
        """The grid points of the indices (float64, computed from k alone)."""
        return self.origin + np.asarray(index, dtype=np.float64) * self.step

    def snap(self, values: np.ndarray) -> np.ndarray:
        """Each value replaced by its nearest grid point (the same floats as ``value(index(values))``)."""
        k = np.asarray(values, dtype=np.float64) - self.origin
        k /= self.step
        np.rint(k, out=k)
        np.clip(k, self.lo_index, self.hi_index, out=k)
        k *= self.step
        k += self.origin
        return k

    def ends(self) -> tuple[float, float]:
        """The smallest and the largest grid point."""
        return float(self.value(self.lo_index)), float(self.value(self.hi_index))

    def contains(self, values: np.ndarray) -> np.ndarray:
        """Whether each value is exactly a grid point."""
        y = np.asarray(values, dtype=np.float64)
        return self.value(self.index(y)) == y

    def describe(self) -> str:
        return (f"{self.points:,} points {self.origin:+.6g} + k·{self.step:.6g} "
                f"(k = {self.lo_index:,} … {self.hi_index:,})")
