"""Summation with histogram encoding (SHE): the one-hot vector plus Laplace(2/ε) noise on every coordinate,
summed by the server (lecture; IBU paper §3.1). Not pure: the sum of noisy vectors is already unbiased.

The client draws the noise directly on its output grid — the discrete Laplace (two-sided geometric) at the
grid step, the exact ε-LDP counterpart of Laplace(2/ε) there (see :class:`SHE`) — rather than continuous
Laplace noise snapped to the grid: as safe against floating-point side channels, at a quarter of the cost."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from ldp.core.errors import InvalidInput
from ldp.core.randomness import RandomSource, discrete_laplace_grid, uniforms
from ldp.core.registry import MECHANISMS
from ldp.maths.grid import OutputGrid, power_of_two_at_most
from ldp.mechanisms.frequency.base import IBU_PAPER, LECTURE, FrequencyOracle

__all__ = ["SHE"]


@MECHANISMS.register
class SHE(FrequencyOracle):
    """Summation with histogram encoding: the client sends its one-hot vector plus Laplace(2/ε)
    noise on every coordinate; the server sums. Not pure: the estimate is the sum divided by n,
    with variance 2(2/ε)²/n = 8/(ε² n) (lecture's table).

    The noise is the Laplace mechanism's exact counterpart on the report grid y = k·δ (``output_grid``,
    step δ, 1/δ an integer): the discrete Laplace (two-sided geometric) in grid units,

        Pr[Z = z] = (1 − a)/(1 + a) · a^|z|,  z ∈ ℤ,  a = exp(−ε·δ/Δ),  Δ = 2,

    on every coordinate: k_j = 1[j = v]/δ + Z_j, clamped to the grid's ends. Δ = 2 is the L1 sensitivity
    of the one-hot vector (‖e_v − e_v'‖₁ = 2, i.e. 2/δ grid units). ε-LDP: for inputs v, v' and every
    report index vector k (before the clamp),

        Pr[k | v] / Pr[k | v'] = Π_j a^(|k_j − e_v,j/δ| − |k_j − e_v',j/δ|) ≤ a^(−‖e_v − e_v'‖₁/δ)
                               = a^(−2/δ) = exp(ε·δ/2 · 2/δ) = e^ε

    by the triangle inequality (equality where k_v ≤ 0 and k_v' ≥ 1/δ); the clamp is post-processing. The
    report is computed from k alone, so the floating-point side channel stays closed; the sampler
    (``ldp.core.randomness.discrete_laplace``) realises every probability to a relative 2⁻²⁰.
    Each coordinate's noise has variance 2a/(1 − a)²·δ² (``noise_variance``) = 8/ε² − δ²/6 + O(δ⁴ε²), the
    exact value every variance method uses (the lecture's 8/ε² stays ``lecture_variance``).

    Parameters
    ----------
    epsilon : float
        The privacy budget ε of one report (the Laplace scale is b = 2/ε).
    d : int
        The domain size: inputs are codes in [0, d) and a report is a vector of d grid values.

    References
    ----------
    Lecture, "Laplacian (Gaussian)" (histogram encoding, sensitivity 2) and Table 1 (SHE column:
    Var[c̃(i)]/n = 8/ε²); IBU vs matrix inversion paper, §3.1 "Thresholding with Histogram Encoding (THE)"
    (HE: y_i = v_i + Lap(2/ε), summed: SHE, not pure).
    """

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
        """b = Δ/ε = 2/ε: the scale of the lecture's Laplace noise (the discrete noise's continuous counterpart)."""
        return 2.0 / self.epsilon

    @property
    def noise_log_parameter(self) -> float:
        """ln a = −ε·δ/Δ (Δ = 2, δ the grid step) of the discrete Laplace noise, in grid units."""
        return -self.epsilon * self.output_grid.step / 2.0

    @property
    def noise_parameter(self) -> float:
        """a = exp(−ε·δ/2): Pr[Z = z] = (1 − a)/(1 + a)·a^|z| for the noise Z of a coordinate, in grid steps."""
        return math.exp(self.noise_log_parameter)

    @property
    def noise_variance(self) -> float:
        """Exact variance of one coordinate's noise: 2a/(1 − a)²·δ² (≈ 2b² − δ²/6; the clamp at ±40b, reached with
        probability < e⁻⁴⁰, is ignored)."""
        a = self.noise_parameter
        one_minus_a = -math.expm1(self.noise_log_parameter)
        return 2.0 * a / one_minus_a**2 * self.output_grid.step**2

    def _probabilities(self) -> tuple[float, float]:
        return 1.0, 0.0  # the sum of noisy vectors is already unbiased: f̂ = C / n

    def report_width(self) -> int:
        return 2 * self.d  # float32 noise plus temporaries

    @property
    def output_grid(self) -> OutputGrid:
        """The grid every coordinate of a report lies on (see :mod:`ldp.maths.grid`).

        Step δ = the power of two ≤ b·2⁻¹² (at most 1, so that 0 and 1 are grid points), points k·δ for
        −K ≤ k ≤ K + 1/δ with K = ⌈40b/δ⌉: the coordinate's index 1[j = v]/δ + Z (Z the discrete Laplace noise,
        symmetric, so the sum is unbiased) is clamped to [−K, K + 1/δ] (a clamp reached with probability
        about e⁻⁴⁰/2; the bound is symmetric about ½, so the two inputs of a coordinate reach each end with
        probabilities e^{±ε/2} apart). Every point is a float32 (|k| < 2²⁴). The discrete noise's variance
        2a/(1 − a)²·δ² differs from the continuous 2b² by about δ²/6 ≤ b²·2⁻²⁴/6.
        """
        return self._cached("grid", self._make_grid)

    def _make_grid(self) -> OutputGrid:
        step = min(1.0, power_of_two_at_most(self.scale) * 2.0 ** -12)
        k = math.ceil(40.0 * self.scale / step)
        return OutputGrid(0.0, step, -k, k + int(round(1.0 / step)))

    def _uniform_blocks(self, m: int, rng: RandomSource) -> Iterator[tuple[int, int, np.ndarray]]:
        """The uniforms of m clients' noise, a block of users at a time: (start, stop, block), the block (reused)
        rows × d. Blocks of 2¹⁷ cells (1 MB): numpy's per-call cost and the threads' turns at the GIL stay small,
        and nothing is allocated per block."""
        d = self.d
        rows = max(1, (1 << 17) // d)
        buffer = np.empty(min(m, rows) * d, dtype=np.float64)
        for start in range(0, m, rows):
            stop = min(m, start + rows)
            yield start, stop, uniforms(rng, (stop - start, d), out=buffer[:(stop - start) * d].reshape(-1, d))

    def _grid_noise(self, rng: RandomSource, u: np.ndarray, values: np.ndarray, **into: np.ndarray) -> None:
        """The clients' grid indices k = 1[j = v]/δ + Z, clamped to the grid (see the class docstring), from the
        uniforms ``u`` of the users ``values``: written ``out=`` or summed into ``total=`` less the own steps
        (``ldp.core.randomness.discrete_laplace_grid``)."""
        grid = self.output_grid
        discrete_laplace_grid(rng, u, self.noise_log_parameter, values, round(1.0 / grid.step),
                              float(grid.lo_index), float(grid.hi_index), **into)

    def _perturb(self, values: np.ndarray, rng: RandomSource) -> np.ndarray:
        # a report is a function of its grid indices alone: k·δ (never −0.0: k = own steps + Z, and 0 + (−0) = +0)
        reports = np.empty((values.shape[0], self.d), dtype=np.float32)
        step = self.output_grid.step
        own = np.asarray(values, dtype=np.int64)
        index = None
        for start, stop, u in self._uniform_blocks(values.shape[0], rng):
            if index is None or index.shape != u.shape:
                index = np.empty_like(u)
            self._grid_noise(rng, u, own[start:stop], out=index)
            index *= step
            reports[start:stop] = index
        return reports

    def _perturb_aggregate(self, values: np.ndarray, rng: RandomSource) -> np.ndarray:
        # Σ_users k·δ = δ·(Σ_users (k − own steps) + (1/δ)·counts), without the float32 report matrix: the
        # indices are integers below 2^24 in magnitude and δ a power of two, so every partial sum (fewer than 2^29
        # users per call) is exact in float64 in any order — the same statistic, to the bit, as the reports'
        # column sums (_support_counts)
        total = np.zeros(self.d)
        own = np.asarray(values, dtype=np.int64)
        for start, stop, u in self._uniform_blocks(values.shape[0], rng):
            self._grid_noise(rng, u, own[start:stop], total=total)
        total += round(1.0 / self.output_grid.step) * np.bincount(values, minlength=self.d)
        return total * self.output_grid.step

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

    def _report_range(self) -> tuple[float, float]:
        return -self.report_bound, self.report_bound  # every coordinate of a report lies on the clamped grid

    def _sample_counts(self, true_counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        # A discrete Laplace(a) variable is G − G' for i.i.d. geometric G, G' (Pr[G = g] = (1 − a)a^g), so the
        # sum of n users' noise is δ(N − N') with N, N' i.i.d. negative binomial (n, 1 − a), each drawn as the
        # Poisson–Gamma mixture Poisson(Gamma(n)·a/(1 − a)): exact in distribution (the ±40b clamp aside).
        c = np.asarray(true_counts, dtype=np.float64)
        n = float(c.sum())
        odds = self.noise_parameter / -math.expm1(self.noise_log_parameter)  # a/(1 − a)
        first = _poisson(rng, rng.standard_gamma(n, c.shape[0]) * odds)
        second = _poisson(rng, rng.standard_gamma(n, c.shape[0]) * odds)
        return c + self.output_grid.step * (first - second)

    def variance(self, freqs: np.ndarray | float, n: int) -> np.ndarray:
        f = np.asarray(freqs, dtype=np.float64)
        return np.full(f.shape, self.noise_variance / n)

    def laplace_log_density(self, y: np.ndarray, v: int) -> np.ndarray:
        """ln of the lecture's continuous report density (Laplace(2/ε) noise) at y (rows) for input v: the object of
        the lecture's ε-LDP check. Its ratios between inputs are those of the exact grid probabilities
        (``log_density``): both are −‖y − e_v‖₁/b up to a term that does not depend on v."""
        shifted = np.asarray(y, dtype=np.float64).copy()
        shifted[..., v] -= 1.0
        return -np.abs(shifted).sum(axis=-1) / self.scale - shifted.shape[-1] * math.log(2 * self.scale)

    def _expected_aggregate(self, true_counts: np.ndarray, support: np.ndarray | None) -> np.ndarray:
        return true_counts.astype(np.float64)

    def _aggregate_variance(self, true_counts: np.ndarray, support: np.ndarray | None) -> np.ndarray:
        return np.full(true_counts.shape, self.noise_variance * float(true_counts.sum()))

    def _log_density(self, reports: np.ndarray, inputs: np.ndarray) -> np.ndarray:
        # the exact log-probability of the grid report: Σ_j ln Pr[Z = k_j − 1[j = v]/δ], the clamped ends
        # holding their tails (Pr[Z ≥ z] = a^z/(1 + a) for z > 0)
        grid = self.output_grid
        k = grid.index(reports.astype(np.float64)).astype(np.float64)
        one = float(round(1.0 / grid.step))
        log_a, a = self.noise_log_parameter, self.noise_parameter
        ends = (k == grid.lo_index) | (k == grid.hi_index)
        base = np.where(ends, -math.log1p(a), math.log(-math.expm1(log_a)) - math.log1p(a)).sum(axis=1)
        out = np.empty((k.shape[0], inputs.shape[0]))
        dist = np.abs(k).sum(axis=1)
        for i, v in enumerate(inputs):
            own = k[:, int(v)]
            out[:, i] = base + log_a * (dist - np.abs(own) + np.abs(own - one))
        return out

    def _privacy_loss(self) -> float:
        # probabilities of k under v and v' differ in two coordinates by at most a^(−1/δ) each:
        # ratio ≤ a^(−2/δ) = e^ε (class docstring)
        return -2.0 * self.noise_log_parameter / self.output_grid.step

    def _report_bits(self) -> int:
        return 32 * self.d

    def report_bits_formula(self) -> str:
        return "32·d (one float32 per value)"

    def _output_events(self, reports: np.ndarray, v0: Any, v1: Any) -> tuple[str, np.ndarray]:
        return "real", reports[:, int(v0)] - reports[:, int(v1)]

    def output_event_label(self, names: tuple[str, str]) -> str:
        return f"y[{names[0]}] − y[{names[1]}]"

    def _explain_report(self, report_text: str) -> str:
        return ("A noisy copy of the one-hot vector: each coordinate has Laplace(2/ε) noise added (discrete Laplace "
                "on the report grid).")

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


def _poisson(rng: np.random.Generator, lam: np.ndarray) -> np.ndarray:
    """Poisson(λ) draws as float64; beyond numpy's limit (λ > 2⁶⁰, from about 10¹⁴ users) the normal
    approximation λ + √λ·N(0, 1), rounded, whose law differs from Poisson's by O(λ^−½) < 10⁻⁹."""
    big = lam > 2.0**60
    out = rng.poisson(np.where(big, 0.0, lam)).astype(np.float64)
    if big.any():
        out[big] = np.rint(lam[big] + np.sqrt(lam[big]) * rng.standard_normal(int(big.sum())))
    return out
