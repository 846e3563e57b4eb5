"""Summation with histogram encoding (SHE): the one-hot vector plus Laplace(2/ε) noise on every coordinate,
summed by the server (lecture; IBU paper §3.1). Not pure: the sum of noisy vectors is already unbiased."""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from ldp.core.errors import LDPError
from ldp.core.randomness import RandomSource
from ldp.core.registry import MECHANISMS
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

    def _perturb(self, values: np.ndarray, rng: RandomSource) -> np.ndarray:
        # Laplace by inversion, in float64: with u uniform on the grid k·2^-53 of [0, 1),
        # v = u − (½ − 2^-54) is exact and symmetric about 0 on (−½, ½) (odd multiples of 2^-54), so
        # c = 1 − 2|v| is exact and uniform on (0, 1) (odd multiples of 2^-53; never 0) and
        # x = −b sgn(v) ln(c) is Laplace(b): |x|/b = −ln(c) is Exp(1), the sign is independent.
        # A block of users at a time, in place, so that the float64 temporaries stay in cache; the
        # report is the float32 rounding of x.
        m, d = values.shape[0], self.d
        noise = np.empty((m, d), dtype=np.float32)
        sign_bit = np.uint64(1 << 63)
        rows = max(1, (1 << 16) // d)
        for start in range(0, m, rows):
            stop = min(m, start + rows)
            v = rng.random((stop - start, d))
            np.subtract(v, 0.5 - 2.0**-54, out=v)
            c = np.abs(v)
            np.multiply(c, -2.0, out=c)
            np.add(c, 1.0, out=c)  # c = 1 − 2|v|
            np.log(c, out=c)
            np.multiply(c, -self.scale, out=c)  # |x| = −b ln(c) > 0
            bits = v.view(np.uint64)
            np.bitwise_and(bits, sign_bit, out=bits)
            np.bitwise_xor(c.view(np.uint64), bits, out=c.view(np.uint64))  # x = sgn(v)·|x|
            noise[start:stop] = c
        noise[np.arange(m), values] += 1.0
        return noise

    def _validate_reports(self, reports: np.ndarray) -> np.ndarray:
        if reports.ndim != 2 or reports.shape[1] != self.d:
            raise LDPError(f"{self.name}: each report must have d={self.d} numbers, got shape {reports.shape}")
        if not np.issubdtype(reports.dtype, np.number) or not np.all(np.isfinite(reports)):
            raise LDPError(f"{self.name}: reports must be finite numbers")
        bound = self.report_bound
        if np.any(np.abs(reports) > bound):
            raise LDPError(f"{self.name}: a report holds {float(np.abs(reports).max()):.3g}, beyond the ±{bound:.3g} "
                           "this mechanism can produce at this ε (two such reports made every estimate infinite)")
        return reports

    @property
    def report_bound(self) -> float:
        """The largest |coordinate| the client can send: 1 + b·53 ln 2 (its Laplace noise is −b ln c with c ≥ 2⁻⁵³),
        rounded up to 1 + 40b."""
        return 1.0 + 40.0 * self.scale

    def _support_counts(self, reports: np.ndarray) -> np.ndarray:
        return reports.sum(axis=0, dtype=np.float64)

    def _sample_counts(self, true_counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        # Σ of n Laplace(b) = b (Gamma(n, 1) − Gamma(n, 1)): exact in distribution.
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

    def _explain_report(self, report_text: str) -> str:
        return "A noisy copy of the one-hot vector: each coordinate has Laplace(2/ε) noise added."

    def lecture_variance(self) -> float:
        return 8 / self.epsilon**2

    def _format_reports(self, reports: np.ndarray) -> Iterator[str]:
        return (" ".join(f"{x:.6g}" for x in row) for row in reports)

    def _report_dtype(self) -> type:
        return np.float64

    def _parse_line(self, line: str) -> list[float]:
        try:
            return [float(t) for t in line.split()]
        except ValueError:
            raise LDPError(f"not a {self.name} report ({self.report_format}): {line[:60]!r}") from None
