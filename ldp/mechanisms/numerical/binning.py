"""CFO with binning (square-wave paper §4.1): a categorical frequency oracle on c bins of the value range.

The d equal input buckets of [0, 1] are grouped into c ≤ d contiguous bins (parameter ``bins``, default 32).
When c does not divide d the remainder is spread by merging: the bin boundaries are the buckets
round(k·d/c), k = 0…c, so the bins hold ⌊d/c⌋ or ⌈d/c⌉ buckets each. Every user reports the index of her
bin with the categorical frequency oracle that has the lower closed-form variance at (ε, c) — GRR or OLH,
compared through ``ldp.get_mechanism(name, ε, c).approximate_variance(n)`` (§2.1: Var_GRR ∝ (c − 2 + e^ε),
Var_OLH ∝ 4e^ε, so GRR wins roughly while c − 2 < 3e^ε). The server takes the unbiased matrix-inversion
(MI) estimate of each bin, makes it a distribution with Norm-Sub [38] (or, by name, the categorical
estimators Norm-Mul or IBU of :mod:`ldp.estimators`), and spreads each bin's frequency
uniformly over its buckets ("assuming uniform distribution within each bin", §4.1), which, the buckets
having equal width, gives every bucket of a bin the bin's frequency divided by its number of buckets.

The aggregate is the categorical oracle's support-count vector over the c bins, so the fast engine samples it
with the oracle's own sampler (exact in distribution as documented by each categorical mechanism), and every
categorical estimator applies through :meth:`CFOBinning.frequency_view` (the oracle, and the spreading map).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ldp.core.errors import InvalidInput
from ldp.core.params import BUCKETS, Param
from ldp.core.randomness import RandomSource
from ldp.core.registry import MECHANISMS
from ldp.core.results import Aggregate, Estimate
from ldp.maths.simplex import norm_sub
from ldp.mechanisms.frequency.base import FrequencyOracle
from ldp.mechanisms.numerical import NumericalMechanism

__all__ = ["CFOBinning", "bin_boundaries", "choose_oracle"]

PAPER = ("Li, Wang, Lopuhaä-Zwakenberg, Li, Škorić — Estimating Numerical Distributions under Local "
         "Differential Privacy, SIGMOD 2020, §4.1")

BINS = Param("bins", int, "number of bins c the CFO reports over (≤ d; remainder merged) (§4.1)", default=32,
             low=2, high=2**24)
ORACLE = Param("oracle", str, "categorical frequency oracle; default: lower closed-form variance of GRR/OLH",
               choices=("grr", "olh"), optional=True)
CANDIDATES = ("grr", "olh")


def bin_boundaries(d: int, c: int) -> np.ndarray:
    """The c + 1 bucket indices round(k·d/c) bounding the bins (bins hold ⌊d/c⌋ or ⌈d/c⌉ buckets).

    Parameters
    ----------
    d : int
        The number of equal input buckets of [0, 1].
    c : int
        The number of bins, in [1, d].

    Returns
    -------
    numpy.ndarray
        int64, shape (c + 1,): 0 = b_0 < b_1 < … < b_c = d; bin k holds the buckets b_k … b_{k+1} − 1 (every bin
        at least one bucket, since c ≤ d).

    Raises
    ------
    InvalidInput
        If c is not in [1, d].

    References
    ----------
    Square-wave paper (Li et al., SIGMOD 2020), §4.1 "CFO with Binning" and §6.1 (the domain partitioned "into c
    consecutive, non-overlapping chunks"); the paper does not say how a remainder of d/c is spread — merging by
    rounding is our choice.
    """
    d, c = int(d), int(c)
    if not 1 <= c <= d:
        raise InvalidInput(f"the number of bins must lie in [1, d={d}], got {c}")
    return np.round(np.arange(c + 1) * (d / c)).astype(np.int64)


def choose_oracle(epsilon: float, c: int, n: int = 10_000) -> str:
    """"grr" or "olh", whichever has the smaller closed-form variance ``approximate_variance(n)`` at (ε, c).

    The variances are the library's closed forms for a value of negligible frequency (OLH with its integer hash
    range g), so the switch can come a little earlier than §2.1's idealized rule c − 2 < 3e^ε (at ε = 1 OLH is
    already chosen at c = 8, where 8 − 2 < 3e ≈ 8.2). Ties go to GRR.

    Parameters
    ----------
    epsilon : float
        The privacy budget ε of the one report (in [1e-4, 50]).
    c : int
        The number of categories the oracle reports over (the bins, ≥ 2).
    n : int, default 10000
        The number of users the variances are evaluated at; both scale as 1/n, so it hardly changes the choice.

    Returns
    -------
    str
        ``"grr"`` or ``"olh"``.

    Raises
    ------
    InvalidInput
        If ε or c is outside the oracles' ranges (c < 2, say).

    References
    ----------
    Square-wave paper (Li et al., SIGMOD 2020), §4.1 ("one chooses either OLH or GRR, based on which one gives
    lower estimation variance"); the variances of §2.1, Eq. (1) for GRR and 4e^ε/((e^ε − 1)² n) for OLH.
    """
    variances = {name: MECHANISMS.get(name)(epsilon, c).approximate_variance(n) for name in CANDIDATES}
    return min(CANDIDATES, key=lambda name: (variances[name], CANDIDATES.index(name)))


@MECHANISMS.register
class CFOBinning(NumericalMechanism):
    """CFO with binning (§4.1): GRR/OLH over c bins, MI + Norm-Sub, uniform spreading within bins.

    Parameters
    ----------
    epsilon : float
        The privacy budget ε of each user's one report (in [1e-4, 50]); the bin's oracle uses all of it.
    d : int
        The number of equal input buckets of [0, 1] reconstructed (2 to 2^24; required).
    bins : int, default 32
        The number of bins c (2 to 2^24); a value above d is lowered to d.
    oracle : {"grr", "olh"}, optional
        The categorical frequency oracle over the bins; None (default) takes the one of lower variance at
        (ε, c), :func:`choose_oracle`.

    Raises
    ------
    InvalidInput
        If ε, d or ``bins`` is outside its range, or ``oracle`` names neither GRR nor OLH.

    References
    ----------
    Square-wave paper (Li et al., SIGMOD 2020), §4.1 "CFO with Binning" (the oracle of lower variance, Norm-Sub
    [38], uniform within each bin); §6.1 evaluates c = 16, 32, 64.
    """

    name: ClassVar[str] = "cfo-binning"
    display_name: ClassVar[str] = "CFO with binning"
    description: ClassVar[str] = ("reports the value's bin (of c) with GRR or OLH, whichever has the lower "
                                  "variance; Norm-Sub, then uniform within each bin")
    paper: ClassVar[str] = PAPER
    report_format: ClassVar[str] = "the categorical oracle's report of the bin index"
    domain_parameter: ClassVar[Param] = BUCKETS
    extra_parameters: ClassVar[tuple[Param, ...]] = (BINS, ORACLE)
    # Norm-Sub is the paper's (§4.1); every categorical estimator applies through frequency_view().
    fast_engine_exact: ClassVar[bool] = False
    fast_engine_note: ClassVar[str] = ("the bins' oracle's own sampler: exact in distribution with GRR; exact "
                                       "marginals but not the cross-covariances with OLH")
    reconstructions: ClassVar[tuple[str, ...]] = ("norm-sub",)
    default_estimator: ClassVar[str] = "norm-sub"

    def _setup(self) -> None:
        self._params["bins"] = min(int(self._params["bins"]), self._d)
        if self._params["oracle"] is None:
            self._params["oracle"] = choose_oracle(self._epsilon, self._params["bins"])
        self._oracle: FrequencyOracle = MECHANISMS.get(self._params["oracle"])(self._epsilon, self._params["bins"])
        self._bounds = bin_boundaries(self._d, self._params["bins"])
        sizes = np.diff(self._bounds)
        self._bin_of_bucket = np.repeat(np.arange(sizes.size), sizes)
        self._sizes = sizes

    @property
    def bins(self) -> int:
        """c, the number of bins (the ``bins`` parameter, lowered to d when larger)."""
        return int(self._params["bins"])

    @property
    def oracle(self) -> FrequencyOracle:
        """The categorical mechanism on the c bins (GRR or OLH)."""
        return self._oracle

    @property
    def bin_sizes(self) -> np.ndarray:
        """Number of input buckets in each bin."""
        return self._sizes.copy()

    def bin_counts(self, bucket_counts: Any) -> np.ndarray:
        """Users per bin from users per input bucket."""
        return np.add.reduceat(np.asarray(bucket_counts, dtype=np.int64), self._bounds[:-1])

    def bin_of(self, values: Any) -> np.ndarray:
        """Bin index of each value in [0, 1] (through its bucket ⌊v·d⌋, the right end in the last)."""
        return self._bin_of_bucket[self.bucket_of(self.validate_values(values))]

    def _perturb(self, values: np.ndarray, rng: RandomSource) -> np.ndarray:
        """The categorical oracle's report of each user's bin."""
        return self._oracle.perturb(self._bin_of_bucket[self.bucket_of(values)], rng)

    def spread(self, bin_frequencies: Any) -> np.ndarray:
        """Bin frequencies → d bucket frequencies, uniform within each bin."""
        f = np.asarray(bin_frequencies, dtype=np.float64)
        return (f / self._sizes)[self._bin_of_bucket]

    def frequency_view(self) -> tuple[FrequencyOracle, Any]:
        """The categorical oracle whose aggregate this is, and the map from its estimate to the d buckets."""
        return self._oracle, self.spread

    # ------------------------------------------------------------------ server side
    def _validate_reports(self, reports: np.ndarray) -> np.ndarray:
        return self._oracle.validate_reports(reports)

    def statistic_size(self) -> int:
        return self.bins

    def _check_statistics(self, counts: np.ndarray, n: int) -> None:
        self._oracle._check_statistics(counts, n)  # the statistic is the oracle's, over the bins

    def _report_range(self) -> tuple[Any, Any] | None:
        return self._oracle.report_range()

    def _aggregate(self, reports: np.ndarray) -> np.ndarray:
        return self._oracle.aggregate(reports, trusted=True).counts  # validated by _validate_reports

    def _sample_aggregate(self, true_counts: np.ndarray, rng: np.random.Generator,
                          support: np.ndarray | None) -> np.ndarray:
        return self._oracle.sample_aggregate(self.bin_counts(true_counts), rng).counts

    def _expected_aggregate(self, true_counts: np.ndarray, support: np.ndarray | None) -> np.ndarray:
        return self._oracle.expected_aggregate(self.bin_counts(true_counts))

    def _aggregate_variance(self, true_counts: np.ndarray, support: np.ndarray | None) -> np.ndarray:
        return self._oracle.aggregate_variance(self.bin_counts(true_counts))

    def estimate_bins(self, aggregate: Aggregate | Any, n: int | None = None) -> np.ndarray:
        """The c bin frequencies: MI followed by Norm-Sub (§4.1, a distribution over the bins)."""
        agg = self.as_aggregate(aggregate, n)
        return norm_sub(self._oracle.invert(agg.counts, agg.n))

    def _reconstruct(self, aggregate: Aggregate, method: str, **options: Any) -> Estimate:
        return Estimate(self.spread(self.estimate_bins(aggregate)), method)

    # ------------------------------------------------------------------ privacy and reports
    def _output_count(self) -> int:
        return self._oracle.output_count()

    def _channel(self) -> tuple[np.ndarray, list[str]]:
        matrix, labels = self._oracle.channel(max_outputs=self._oracle.output_count())
        return matrix[self._bin_of_bucket], labels

    def _report_bits(self) -> int:
        return self._oracle.report_bits()

    def _format_reports(self, reports: np.ndarray):
        return self._oracle.format_reports(reports)

    def parse_reports(self, lines: Any) -> np.ndarray:
        return self._oracle.parse_reports(lines)
