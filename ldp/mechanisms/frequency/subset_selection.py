"""Subset selection (SS): report ω values, the true one among them with probability ωe^ε/(ωe^ε + d − ω)
(Wang et al. 2016; Ye & Barg 2018; IBU paper §3.1)."""

from __future__ import annotations

import itertools
import math

import numpy as np

from ldp.core.errors import InvalidInput
from ldp.core.params import Param
from ldp.core.randomness import RandomSource, bernoulli
from ldp.core.registry import MECHANISMS
from ldp.mechanisms.base import ceil_log2, check_int_reports
from ldp.mechanisms.frequency.base import IBU_PAPER, FrequencyOracle
from ldp.mechanisms.frequency.sampling import structured_gaussian_counts

__all__ = ["SS", "sample_subsets", "ss_default_omega", "subset_bits"]


def ss_default_omega(epsilon: float, d: int) -> int:
    """ω = ⌊k/(e^ε + 1)⌋ (IBU paper §3.1), at least 1.

    Parameters
    ----------
    epsilon : float
        The privacy budget ε.
    d : int
        The domain size k.

    Returns
    -------
    int
        The MSE-optimal subset size ω = max(1, ⌊d/(e^ε + 1)⌋) (below d for every ε > 0 and d ≥ 2).

    References
    ----------
    IBU vs matrix inversion paper, §3.1 "Subset Selection (SS)" (the optimal subset size).
    """
    return max(1, int(math.floor(d / (math.exp(epsilon) + 1))))


def sample_subsets(universe: int, size: int, m: int, rng: RandomSource, *, exclude: np.ndarray | None = None,
                   include: np.ndarray | None = None) -> np.ndarray:
    """m independent uniform size-subsets of [0, universe), as a sorted (m, size) int64 array.

    With ``exclude`` (one value per row) row i is a uniform subset of [0, universe) ∖ {exclude[i]}; with
    ``include`` as well (one bool per row), the rows where it holds are {exclude[i]} plus a uniform
    (size − 1)-subset of the other values instead (subset selection's report).

    Method (exact): every free cell of an (m, universe) bit matrix is set independently with the same
    probability, so a row's set S is exchangeable — given |S| = K it is a uniform K-subset. A row with
    K above its target t then clears K − t of its set cells and a row below sets t − K of its free cells,
    chosen uniformly without replacement; by symmetry the result is a uniform t-subset for every K.
    The uniform choice is sequential rejection sampling, one cell at a time, row after row, in compiled code
    (numba, without the interpreter lock): candidate cells are drawn uniformly from [0, universe) in one array,
    and a row takes each in turn when it is still in the row's source set (a set cell to clear, or a free cell
    other than the excluded one to set) and skips it otherwise, so each accepted cell is uniform over the cells
    still available. Where the next row starts reading the array is a stopping time of these i.i.d. draws, so
    the draws it reads are again i.i.d. uniform; draws left over at the end are discarded, and a row that runs
    out resumes from a fresh array. Reading each row's set bits in order gives sorted subsets.

    Parameters
    ----------
    universe : int
        The number of values to draw from, [0, universe).
    size : int
        The size of every subset (≥ 0).
    m : int
        The number of subsets (rows) to draw.
    rng : RandomSource
        A numpy ``Generator`` or :class:`~ldp.core.randomness.SecureRandom`.
    exclude : numpy.ndarray, optional
        One value per row, shape (m,), left out of that row's subset; None: nothing excluded.
    include : numpy.ndarray, optional
        One bool per row, shape (m,) (needs ``exclude``): where true, the row is {exclude[i]} plus a uniform
        (size − 1)-subset of the others; None: no row includes its excluded value.

    Returns
    -------
    numpy.ndarray
        The subsets, int64 of shape (m, size), each row sorted increasingly and without repeats.

    Raises
    ------
    InvalidInput
        When ``include`` comes without ``exclude``, or a row's target size is negative or exceeds the number of
        values available to it.

    References
    ----------
    IBU vs matrix inversion paper, §3.1 "Subset Selection (SS)" (the Obfuscate step these subsets implement).
    """
    m, universe, size = int(m), int(universe), int(size)
    chosen = subset_bits(universe, size, m, rng, exclude=exclude, include=include)
    out = np.empty((m, size), dtype=np.int64)
    block = max(1, (1 << 18) // universe)
    for start in range(0, m, block):
        stop = min(m, start + block)
        pos = np.flatnonzero(chosen[start:stop]).reshape(stop - start, size)
        np.subtract(pos, (np.arange(stop - start) * universe)[:, None], out=out[start:stop])
    return out


def subset_bits(universe: int, size: int, m: int, rng: RandomSource, *, exclude: np.ndarray | None = None,
                include: np.ndarray | None = None) -> np.ndarray:
    """:func:`sample_subsets`'s subsets (the same ones, from the same randomness) as an (m, universe) bool matrix,
    row i marking the values of subset i: what a caller that only counts the values needs (SS's fused sum), without
    listing them.

    Parameters
    ----------
    universe, size, m, rng, exclude, include : as for :func:`sample_subsets`
        The same arguments.

    Returns
    -------
    numpy.ndarray
        bool of shape (m, universe), every row with exactly ``size`` values set.

    Raises
    ------
    InvalidInput
        As :func:`sample_subsets`.
    """
    m, universe, size = int(m), int(universe), int(size)
    if m < 0 or universe < 0:
        raise InvalidInput(f"need m ≥ 0 subsets of a universe ≥ 0, got m={m}, universe={universe}")
    free = universe - (exclude is not None)
    if include is not None and exclude is None:
        raise InvalidInput("include needs exclude")
    if exclude is not None:  # read by the compiled fix-up without bounds checks: checked here
        exclude = np.ascontiguousarray(exclude)
        if (exclude.shape != (m,) or not np.issubdtype(exclude.dtype, np.integer)
                or (m and not 0 <= int(exclude.min()) <= int(exclude.max()) < universe)):
            raise InvalidInput(f"exclude must hold one value in [0, {universe}) per subset ({m})")
        exclude = exclude.astype(np.int64, copy=False)
    target = np.full(m, size, dtype=np.int64)
    if include is not None:
        include = np.asarray(include)
        if include.shape != (m,) or include.dtype != bool:
            raise InvalidInput(f"include must hold one bool per subset ({m})")
        target -= include
    if size < 0 or np.any(target > free) or np.any(target < 0):
        raise InvalidInput(f"cannot draw {size} distinct values out of {free}")
    if size == 0 or m == 0:
        return np.zeros((m, universe), dtype=bool)
    rows = np.arange(m)
    # Any common probability works; a multiple of 1/256 near the mean target needs no tie-breaking.
    rate = min(256, round(256 * float(target.mean()) / free)) / 256 if free else 0.0
    chosen = bernoulli(rng, rate, (m, universe))
    skip = np.full(m, -1, dtype=np.int64) if exclude is None else exclude  # the value each row leaves out (−1: none)
    if exclude is not None:
        chosen[rows, skip] = False
    count = np.add.reduce(chosen.view(np.uint8), axis=1, dtype=np.uint16 if universe < 2**16 else np.int64)
    count = count.astype(np.int64)
    gap = count - target
    # draws a row needs on average: |gap| accepted cells at universe/source candidates each
    expect = np.abs(gap) * (universe / np.maximum(np.where(gap > 0, count, free - count), 1))
    from ldp.core.compiled import fix_subset_rows  # numba, loaded on the first subset drawn

    itype = np.int32 if universe < 2**31 else np.int64
    row = int(np.argmax(gap != 0)) if np.any(gap != 0) else m
    while row < m:
        # candidates for the rows still to fix, with a margin; a row that runs out resumes with fresh draws
        want = float(expect[row:].sum())
        cells = rng.integers(0, universe, size=int(1.1 * want + 4.0 * math.sqrt(want)) + 16, dtype=itype)
        row = fix_subset_rows(chosen.view(np.uint8), skip, target, count, cells, row)
    if exclude is not None:
        chosen[rows, exclude] = False if include is None else include
    return chosen


def _repeats_a_value(reports: np.ndarray, d: int) -> bool:
    """Whether some row of an (m, ω) array of values in [0, d) holds a value twice: each row's values are
    marked in a (rows, d) byte map, a block of rows at a time (memory bounded by the block, whatever m), and a
    row without repeats marks exactly ω cells — about 3 times cheaper than sorting every row at ω = 275,
    d = 1024."""
    m, omega = reports.shape
    rows = max(1, (1 << 20) // d)
    marks = np.zeros(min(m, rows) * d, dtype=np.uint8)
    for start in range(0, m, rows):
        stop = min(m, start + rows)
        used = marks[:(stop - start) * d]
        used[:] = 0
        cells = reports[start:stop] + (np.arange(stop - start) * d)[:, None]
        used[cells.ravel()] = 1
        if np.count_nonzero(used) != (stop - start) * omega:
            return True
    return False


@MECHANISMS.register
class SS(FrequencyOracle):
    """Subset selection (Wang et al. 2016; Ye & Barg 2018): report a subset Ω of size ω that
    contains the true value with probability p = ω e^ε/(ω e^ε + k − ω), filled with uniform other
    values. Fast engine: Gaussian with the exact mean and covariance of the counts.

    Pure with p* = p and q* = (ω e^ε (ω − 1) + (k − ω) ω)/((k − 1)(ω e^ε + k − ω)); a report supports the ω
    values it lists.

    Parameters
    ----------
    epsilon : float
        The privacy budget ε of one report.
    d : int
        The domain size k (inputs and subset entries are codes in [0, d)).
    omega : int, optional
        The subset size ω, in [1, d); None: :func:`ss_default_omega` = max(1, ⌊d/(e^ε + 1)⌋).

    Raises
    ------
    InvalidInput
        When ω ≥ d.

    References
    ----------
    IBU vs matrix inversion paper, §3.1 "Subset Selection (SS)" (p, ω and q*); lecture, "Subset Selection";
    consistency paper, §III-C.
    """

    name = "ss"
    display_name = "SS (subset selection)"
    description = "Subset selection: report ω values, including the true one w.p. ωe^ε/(ωe^ε+d−ω)"
    paper = IBU_PAPER + ", §3.1 (SS)"
    report_format = "ω space-separated value indices"
    communication = "O(ω log d)"
    fast_engine_exact = False
    fast_engine_note = "a Gaussian with the exact mean and covariance of the support counts"
    extra_parameters = (Param("omega", int, "subset size ω (default ⌊d/(e^ε+1)⌋)", low=1, optional=True),)

    def _setup(self) -> None:
        if self._params["omega"] is None:
            self._params["omega"] = ss_default_omega(self.epsilon, self.d)
        if self._params["omega"] >= self.d:
            raise InvalidInput(f"{self.name}: omega must be smaller than d={self.d}, got {self._params['omega']}")

    @property
    def omega(self) -> int:
        return self._params["omega"]

    def _probabilities(self) -> tuple[float, float]:
        w, k, e = self.omega, self.d, math.exp(self.epsilon)
        p = w * e / (w * e + k - w)
        q = (w * e * (w - 1) + (k - w) * w) / ((k - 1) * (w * e + k - w))
        return p, q

    def report_width(self) -> int:
        return self.d

    def _perturb(self, values: np.ndarray, rng: RandomSource) -> np.ndarray:
        # A uniform ω-subset of D ∖ {v}; with probability p* a uniformly chosen element is replaced by v.
        # Dropping a uniformly chosen element of a uniform ω-subset leaves a uniform (ω−1)-subset, so
        # those users report v plus a uniform (ω−1)-subset of D ∖ {v}: sample_subsets draws that directly.
        include = bernoulli(rng, self.p_star, values.shape[0])
        return sample_subsets(self.d, self.omega, values.shape[0], rng, exclude=values, include=include)

    def _perturb_aggregate(self, values: np.ndarray, rng: RandomSource) -> np.ndarray:
        # the same draws as _perturb; the reports' value counts are the column sums of the subsets' bit matrix,
        # summed in uint16 a block of at most 65,535 rows at a time (exact), without listing any subset
        include = bernoulli(rng, self.p_star, values.shape[0])
        bits = subset_bits(self.d, self.omega, values.shape[0], rng, exclude=values, include=include).view(np.uint8)
        total = np.zeros(self.d, dtype=np.int64)
        for start in range(0, bits.shape[0], 65535):
            total += np.add.reduce(bits[start:start + 65535], axis=0, dtype=np.uint16)
        return total

    def _validate_reports(self, reports: np.ndarray) -> np.ndarray:
        if reports.ndim != 2 or reports.shape[1] != self.omega:
            raise InvalidInput(f"{self.name}: each report must list ω={self.omega} values, got shape {reports.shape}")
        reports = check_int_reports(self.name, reports, 0, self.d, "subset entries")
        if self.omega > 1 and _repeats_a_value(reports, self.d):
            raise InvalidInput(f"{self.name}: a subset report repeats a value")
        return reports

    def _support_counts(self, reports: np.ndarray) -> np.ndarray:
        return np.bincount(reports.ravel(), minlength=self.d)

    def _sample_counts(self, true_counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        p, q, w, m = self.p_star, self.q_star, self.omega, self.d - 1
        both_other = (p * (w - 1) * (w - 2) + (1 - p) * w * (w - 1)) / (m * (m - 1)) if m > 1 else 0.0
        return structured_gaussian_counts(
            true_counts, p, q, var_t=p * (1 - p), var_o=q * (1 - q),
            cov_to=p * (w - 1) / m - p * q, cov_oo=both_other - q * q, rng=rng)

    def _output_count(self) -> int:
        return math.comb(self.d, self.omega)

    def _channel(self) -> tuple[np.ndarray, list[str]]:
        subsets = list(itertools.combinations(range(self.d), self.omega))
        w, k = self.omega, self.d
        p_in = self.p_star / math.comb(k - 1, w - 1)
        p_out = (1 - self.p_star) / math.comb(k - 1, w)
        m = np.array([[p_in if v in s else p_out for s in subsets] for v in range(k)])
        return m, [" ".join(map(str, s)) for s in subsets]

    def report_columns(self) -> int:
        return self.omega

    def support_size(self) -> int | None:
        return self.omega

    # ------------------------------------------------------------------ one report, for people
    def _attack_success(self, prior: np.ndarray) -> float:
        # Σ_Ω max(p_in max_{Ω} π, p_out max_{∉Ω} π), p_in/p_out = e^ε; grouping subsets by their first sorted
        # member J = j: #{Ω} = C(d−j, ω−1), weight relative to C(d−1, ω−1) is w_j.
        from scipy.special import gammaln  # on first use (ldp.maths.gaussian.normal_quantile says why)

        w, d, p = self.omega, self.d, self.p_star
        srt = np.sort(prior)[::-1]
        j = np.arange(1, d + 1)
        with np.errstate(invalid="ignore"):
            log_w = (gammaln(d - j + 1) - gammaln(w) - gammaln(d - j - w + 2)) - (
                gammaln(d) - gammaln(w) - gammaln(d - w + 1))
        weights = np.where(d - j >= w - 1, np.exp(log_w), 0.0)
        values = np.maximum(p * srt, (1 - p) * w / (d - w) * srt[0])
        values[0] = p * srt[0]
        return float((weights * values).sum())

    def _report_bits(self) -> int:
        return self.omega * ceil_log2(self.d)

    def report_bits_formula(self) -> str:
        return "ω·⌈log₂ d⌉ (ω value indices)"

    def _report_supports(self, reports: np.ndarray, v: int) -> np.ndarray:
        return (reports == v).any(axis=1)

    def _explain_report(self, report_text: str) -> str:
        return (f"A subset of ω = {self.omega} values that contains the true one with probability "
                f"{self.p_star:.3g}.")
