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

Engines: ``exact`` runs the categorical client for every user (:func:`ldp.run_exact` on the bin counts),
``fast`` samples the categorical support counts directly (:func:`ldp.run_fast`, exact in distribution as
documented by each categorical mechanism). A value's bin depends only on its bucket, so both engines see
the same bin populations as real users would.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ldp.core.params import Param
from ldp.core.randomness import RandomSource
from ldp.mechanisms.numerical import BUCKETS, NUMERICAL_MECHANISMS, NumericalMechanism

__all__ = ["CFOBinning", "bin_boundaries", "choose_oracle"]

PAPER = ("Li, Wang, Lopuhaä-Zwakenberg, Li, Škorić — Estimating Numerical Distributions under Local "
         "Differential Privacy, SIGMOD 2020, §4.1")

BINS = Param("bins", int, "number of bins c the CFO reports over (≤ d; remainder merged) (§4.1)", default=32,
             low=2, high=2**24)
ORACLE = Param("oracle", str, "categorical frequency oracle; default: lower closed-form variance of GRR/OLH",
               choices=("grr", "olh"), optional=True)
CANDIDATES = ("grr", "olh")


def bin_boundaries(d: int, c: int) -> np.ndarray:
    """The c + 1 bucket indices round(k·d/c) bounding the bins (bins hold ⌊d/c⌋ or ⌈d/c⌉ buckets)."""
    d, c = int(d), int(c)
    if not 1 <= c <= d:
        raise ValueError(f"the number of bins must lie in [1, d={d}], got {c}")
    return np.round(np.arange(c + 1) * (d / c)).astype(np.int64)


def choose_oracle(epsilon: float, c: int, n: int = 10_000) -> str:
    """"grr" or "olh", whichever has the smaller closed-form variance ``approximate_variance(n)`` at (ε, c)."""
    from ldp.mechanisms import get_mechanism

    variances = {name: get_mechanism(name, epsilon, c).approximate_variance(n) for name in CANDIDATES}
    return min(CANDIDATES, key=lambda name: (variances[name], CANDIDATES.index(name)))


@NUMERICAL_MECHANISMS.register
class CFOBinning(NumericalMechanism):
    """CFO with binning (§4.1): GRR/OLH over c bins, MI + Norm-Sub, uniform spreading within bins."""

    name: ClassVar[str] = "cfo-binning"
    display_name: ClassVar[str] = "CFO with binning"
    family: ClassVar[str] = "binning"
    description: ClassVar[str] = ("reports the value's bin (of c) with GRR or OLH, whichever has the lower "
                                  "variance; Norm-Sub, then uniform within each bin")
    paper: ClassVar[str] = PAPER
    input_kind: ClassVar[str] = "continuous"
    report_format: ClassVar[str] = "the categorical oracle's report of the bin index"
    domain_parameter: ClassVar[Param] = BUCKETS
    extra_parameters: ClassVar[tuple[Param, ...]] = (BINS, ORACLE)
    # Norm-Sub is the paper's (§4.1); Norm-Mul and IBU are the categorical estimators of the same names.
    reconstructions: ClassVar[tuple[str, ...]] = ("norm-sub", "norm-mul", "ibu")

    def _setup(self) -> None:
        from ldp.mechanisms import get_mechanism

        self._params["bins"] = min(int(self._params["bins"]), self._d)
        if self._params["oracle"] is None:
            self._params["oracle"] = choose_oracle(self._epsilon, self._params["bins"])
        self._oracle = get_mechanism(self._params["oracle"], self._epsilon, self._params["bins"])
        self._bounds = bin_boundaries(self._d, self._params["bins"])
        sizes = np.diff(self._bounds)
        self._bin_of_bucket = np.repeat(np.arange(sizes.size), sizes)
        self._sizes = sizes

    @property
    def bins(self) -> int:
        return int(self._params["bins"])

    @property
    def oracle(self) -> Any:
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
        v = np.asarray(values, dtype=np.float64)
        if v.ndim != 1 or not np.all(np.isfinite(v)) or np.any((v < 0) | (v > 1)):
            raise ValueError(f"{self.name}: values must be a 1-D array of numbers in [0, 1]")
        bucket = np.clip(np.floor(v * self._d).astype(np.int64), 0, self._d - 1)
        return self._bin_of_bucket[bucket]

    def perturb(self, values: Any, rng: RandomSource) -> np.ndarray:
        """The categorical oracle's report of each user's bin."""
        return self._oracle.perturb(self.bin_of(values), rng)

    def spread(self, bin_frequencies: Any) -> np.ndarray:
        """Bin frequencies → d bucket frequencies, uniform within each bin."""
        f = np.asarray(bin_frequencies, dtype=np.float64)
        return (f / self._sizes)[self._bin_of_bucket]

    def estimate_bins(self, support_counts: Any, n: int, method: str = "norm-sub") -> np.ndarray:
        """The c bin frequencies: MI followed by Norm-Sub (§4.1, a distribution over the bins), or another
        registered categorical estimator of :data:`reconstructions` ("norm-mul", "ibu") by name."""
        c = np.asarray(support_counts, dtype=np.float64)
        if method == "norm-sub":
            from ldp.estimators.consistency import norm_sub

            return norm_sub(self._oracle.estimate(c, int(n)))
        if method not in self.reconstructions:
            raise ValueError(f"{self.name} offers the reconstructions {', '.join(self.reconstructions)}, "
                             f"not {method!r}")
        from ldp.estimators import get_estimator

        return np.asarray(get_estimator(method).estimate(self._oracle, c, int(n)), dtype=np.float64)

    def estimate(self, support_counts: Any, n: int, method: str = "norm-sub") -> np.ndarray:
        """The d-bucket distribution: :meth:`estimate_bins` spread uniformly within bins."""
        return self.spread(self.estimate_bins(support_counts, n, method))

    def _simulate_population(self, counts: np.ndarray, rng: np.random.Generator, engine: str,
                             method: str | None) -> np.ndarray:
        from ldp.engines import run_exact, run_fast

        binned = self.bin_counts(counts)
        if engine == "fast":
            agg = run_fast(self._oracle, binned, rng)
        else:
            agg = run_exact(self._oracle, rng, true_counts=binned, workers=1)
        return self.estimate(agg.counts, agg.n, method or "norm-sub")
