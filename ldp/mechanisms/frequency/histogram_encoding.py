"""Summation with histogram encoding (SHE): the one-hot vector plus Laplace(2/ε) noise on every coordinate,
summed by the server (lecture; IBU paper §3.1). Not pure: the sum of noisy vectors is already unbiased."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from ldp.core.errors import InvalidInput
from ldp.core.randomness import RandomSource, laplace
from ldp.core.registry import MECHANISMS
from ldp.maths.grid import OutputGrid, power_of_two_at_most
from ldp.mechanisms.frequency.base import IBU_PAPER, LECTURE, FrequencyOracle

__all__ = ["SHE"]


@MECHANISMS.register
class SHE(FrequencyOracle):
    """Summation with histogram encoding: the client sends its one-hot vector plus Laplace(2/ε)
    noise on every coordinate; the server sums. Not pure: the estimate is the sum divided by n,
    with variance 2(2/ε)²/n = 8/(ε² n) (lecture's table)."""

    name = "she"
    display_name = "SHE"
    description = "Summation histogram encoding: one-hot vector + Laplace(2/ε) noise, summed by the server"
    paper = LECTURE + " (SHE); " + IBU_PAPER + ", §3.1"
    report_format = "d space-separated real numbers (the noisy one-hot vector)"
    communication = "O(d)"
    lecture_formula = "8 / ε²"
    pure = False

    @property
    def scale(self) -> float:
        return 2.0 / self.epsilon

    def _probabilities(self) -> tuple[float, float]:
        return 1.0, 0.0  # the sum of noisy vectors is already unbiased: f̂ = C / n

    def report_width(self) -> int:
        return 2 * self.d  # float32 noise plus temporaries

    @property
    def output_grid(self) -> OutputGrid:
        """The grid every coordinate of a report lies on (see :mod:`ldp.maths.grid`).

        Step Δ = the power of two ≤ b·2⁻¹² (at most 1, so that 0 and 1 are grid points), points k·Δ for
        −K ≤ k ≤ K + 1/Δ with K = ⌈40b/Δ⌉: the noisy coordinate x + Laplace(b) is rounded to the nearest point
        (ties to even, so the rounded noise stays symmetric and the sum unbiased) and clamped to
        [−40b, 1 + 40b] (a clamp reached with probability e⁻⁴⁰/2; the bound is symmetric about ½, so the two
        inputs of a coordinate reach each end with probabilities e^{±ε/2} apart). Every point is a float32
        (|k| < 2²⁴). Rounding adds less than Δ²/12 ≤ b²·2⁻²⁸ to each coordinate's variance 2b².
        """
        return self._cached("grid", self._make_grid)

    def _make_grid(self) -> OutputGrid:
        step = min(1.0, power_of_two_at_most(self.scale) * 2.0 ** -12)
        k = math.ceil(40.0 * self.scale / step)
        return OutputGrid(0.0, step, -k, k + int(round(1.0 / step)))

    def _perturb(self, values: np.ndarray, rng: RandomSource) -> np.ndarray:
        # Laplace noise resolved in its deep tail (``ldp.core.randomness.laplace``), then x + onehot snapped to
        # the output grid (Mironov's remedy; see ``output_grid``). A block of users at a time, so that the
        # float64 temporaries stay in cache.
        m, d = values.shape[0], self.d
        grid = self.output_grid
        reports = np.empty((m, d), dtype=np.float32)
        rows = max(1, (1 << 15) // d)
        inv_step = 1.0 / grid.step
        lo, hi = float(grid.lo_index), float(grid.hi_index)
        for start in range(0, m, rows):
            stop = min(m, start + rows)
            shape = (stop - start, d)
            c = laplace(rng, shape, self.scale)
            c[np.arange(stop - start), values[start:stop]] += 1.0
            c *= inv_step
            np.rint(c, out=c)
            np.clip(c, lo, hi, out=c)
            c *= grid.step
            c += 0.0  # −0.0 → +0.0: a report is a function of k alone, not of the sign of its rounded noise
            reports[start:stop] = c
        return reports

    def _validate_reports(self, reports: np.ndarray) -> np.ndarray:
        if reports.ndim != 2 or reports.shape[1] != self.d:
            raise InvalidInput(f"{self.name}: each report must have d={self.d} numbers, got shape {reports.shape}")
        if not np.issubdtype(reports.dtype, np.number) or not np.all(np.isfinite(reports)):
            raise InvalidInput(f"{self.name}: reports must be finite numbers")
        bound = self.report_bound
        if np.any(np.abs(reports) > bound):
            raise InvalidInput(f"{self.name}: a report holds {float(np.abs(reports).max()):.3g}, beyond the "
                               f"±{bound:.3g} "
                               "this mechanism can produce at this ε (two such reports made every estimate infinite)")
        return reports

    @property
    def report_bound(self) -> float:
        """The largest |coordinate| the client can send: the output grid's end, 1 + 40b rounded up to the grid."""
        return float(self.output_grid.value(self.output_grid.hi_index))

    def _support_counts(self, reports: np.ndarray) -> np.ndarray:
        return reports.sum(axis=0, dtype=np.float64)

    def _sample_counts(self, true_counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        # Σ of n Laplace(b) = b (Gamma(n, 1) − Gamma(n, 1)): exact in distribution for the real-valued reports;
        # the client's grid rounding (``output_grid``) adds < Δ²/12 ≤ b²·2⁻²⁸ per report to the variance.
        c = np.asarray(true_counts, dtype=np.float64)
        n = float(c.sum())
        return c + self.scale * (rng.standard_gamma(n, c.shape[0]) - rng.standard_gamma(n, c.shape[0]))

    def variance(self, freqs: np.ndarray | float, n: int) -> np.ndarray:
        f = np.asarray(freqs, dtype=np.float64)
        return np.full(f.shape, 2 * self.scale**2 / n)

    def laplace_log_density(self, y: np.ndarray, v: int) -> np.ndarray:
        """ln of the report density at y (rows) for input v: the object of SHE's ε-LDP check."""
        shifted = np.asarray(y, dtype=np.float64).copy()
        shifted[..., v] -= 1.0
        return -np.abs(shifted).sum(axis=-1) / self.scale - shifted.shape[-1] * math.log(2 * self.scale)

    def _expected_aggregate(self, true_counts: np.ndarray, support: np.ndarray | None) -> np.ndarray:
        return true_counts.astype(np.float64)

    def _aggregate_variance(self, true_counts: np.ndarray, support: np.ndarray | None) -> np.ndarray:
        return np.full(true_counts.shape, 2 * self.scale**2 * float(true_counts.sum()))

    def _log_density(self, reports: np.ndarray, inputs: np.ndarray) -> np.ndarray:
        y = reports.astype(np.float64)
        return np.stack([self.laplace_log_density(y, int(v)) for v in inputs], axis=1)

    def _privacy_loss(self) -> float:
        # densities of y under v and v' differ in two coordinates by at most 1 each: ratio ≤ e^{2/b} = e^ε
        return 2.0 / self.scale

    def _report_bits(self) -> int:
        return 32 * self.d

    def report_bits_formula(self) -> str:
        return "32·d (one float32 per value)"

    def _output_events(self, reports: np.ndarray, v0: Any, v1: Any) -> tuple[str, np.ndarray]:
        return "real", reports[:, int(v0)] - reports[:, int(v1)]

    def output_event_label(self, names: tuple[str, str]) -> str:
        return f"y[{names[0]}] − y[{names[1]}]"

    def _explain_report(self, report_text: str) -> str:
        return "A noisy copy of the one-hot vector: each coordinate has Laplace(2/ε) noise added."

    def lecture_variance(self) -> float:
        return 8 / self.epsilon**2

    def _format_reports(self, reports: np.ndarray) -> Iterator[str]:
        # the exact grid point (shortest round-trip text of k·Δ): a rounded text (e.g. 6 significant digits)
        # would be a function of the unsnapped value again, and readers would see values off the grid
        return (" ".join(map(repr, row.tolist())) for row in np.asarray(reports, dtype=np.float64))

    def _report_dtype(self) -> type:
        return np.float64

    def _parse_line(self, line: str) -> list[float]:
        try:
            return [float(t) for t in line.split()]
        except ValueError:
            raise InvalidInput(f"not a {self.name} report ({self.report_format}): {line[:60]!r}") from None
