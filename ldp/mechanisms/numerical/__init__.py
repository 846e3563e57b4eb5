"""Distributions of numerical attributes under LDP (Li, Wang, Lopuhaä-Zwakenberg, Li, Škorić, SIGMOD 2020).

A numerical mechanism takes values in the unit interval [0, 1] (map real units with
:class:`ldp.data.scale.ValueScale`) and the server reconstructs a histogram of ``d`` equal input buckets.
Users of a population given per bucket are placed uniformly within their bucket by the exact engine.
The mechanisms live in :mod:`.square_wave` (SW, continuous and discrete), :mod:`.waves` (general waves),
:mod:`.binning` (CFO with binning) and :mod:`.hierarchy` (hierarchical histograms and HaarHRR); each offers
named reconstructions (``reconstructions``, the first is the default) that the registered estimators of the
same names call.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, ClassVar

import numpy as np

from ldp.core.errors import InvalidInput
from ldp.core.params import BUCKETS, Param, check_paired
from ldp.core.randomness import RandomSource
from ldp.core.results import Aggregate, Estimate, warn_unconverged
from ldp.data.scale import ValueScale
from ldp.mechanisms.base import Mechanism

__all__ = ["NumericalMechanism", "ValueScale"]

NUMERICAL_PAPER = ("Li, Wang, Lopuhaä-Zwakenberg, Li, Škorić — Estimating Numerical Distributions under Local "
                   "Differential Privacy, SIGMOD 2020")


class NumericalMechanism(Mechanism):
    """A local randomizer for a numerical attribute plus its server-side reconstructions.

    ``d`` is the number of equal input buckets of [0, 1] the server reconstructs. Subclasses implement the
    client (``_perturb``), the aggregate (``_aggregate``, ``_sample_aggregate``) and ``_reconstruct(aggregate,
    method, **options) → Estimate`` for each name in ``reconstructions``.

    Parameters
    ----------
    epsilon : float
        The privacy budget ε of each user's one report (in [1e-4, 50]).
    d : int
        The number of equal input buckets of [0, 1] the server reconstructs (2 to 2^24; the subclass's default
        where it declares one).
    **params
        The subclass's declared ``extra_parameters`` (e.g. the square wave's half-width ``b``, binning's ``bins``).

    References
    ----------
    Square-wave paper (Li et al., SIGMOD 2020), §4 (CFO with binning, hierarchy-based methods) and §5 (the wave
    mechanisms, bucketizing §5.4, the reconstruction §5.5).
    """

    kind: ClassVar[str] = "numerical"
    domain_parameter: ClassVar[Param] = BUCKETS
    input_kind: ClassVar[str] = "unit"
    bucketed: ClassVar[bool] = True
    paper: ClassVar[str] = NUMERICAL_PAPER
    #: Names of the server-side reconstructions (first = default); each is a registered estimator too.
    reconstructions: ClassVar[tuple[str, ...]] = ()
    #: Whether a report is one real number (else integers on one line).
    real_reports: ClassVar[bool] = False

    def _cell_inputs(self, cells: np.ndarray, rng: RandomSource, support: np.ndarray | None) -> np.ndarray:
        if self.input_kind == "codes":
            return cells
        return np.minimum((cells + rng.random(cells.size)) / self._d, 1.0)  # uniform within the bucket

    def bucket_of(self, values: np.ndarray) -> np.ndarray:
        """The input bucket ⌊v·d⌋ of each value in [0, 1] (the right end in the last bucket)."""
        return np.minimum((np.asarray(values, dtype=np.float64) * self._d).astype(np.int64), self._d - 1)

    def input_edges(self, scale: ValueScale | None = None) -> np.ndarray:
        """The d + 1 input bucket edges: of [0, 1], or of [lo, hi] in real units."""
        return (scale or ValueScale()).edges(self._d)

    # ------------------------------------------------------------------ estimation
    def reconstruct(self, aggregate: Aggregate | Any, n: int | None = None, *, method: str | None = None,
                    **options: Any) -> Estimate:
        """The d-bucket frequencies by the named reconstruction (default: the first of ``reconstructions``)."""
        name = method or self.reconstructions[0]
        if name not in self.reconstructions:
            raise InvalidInput(f"{self.name} offers the reconstructions {', '.join(self.reconstructions)}, "
                               f"not {name!r}")
        return warn_unconverged(self._reconstruct(self.as_aggregate(aggregate, n), name, **options))

    @abstractmethod
    def _reconstruct(self, aggregate: Aggregate, method: str, **options: Any) -> Estimate:
        """The reconstruction ``method`` (one of ``reconstructions``) from a validated aggregate."""

    def reconstruct_batch(self, counts: Any, n: int, *, method: str | None = None, **options: Any) -> np.ndarray:
        """The values of :meth:`reconstruct` for every row of ``counts`` (trials × statistic, each from n reports),
        shape (trials, d): the hook ``_reconstruct_batch`` where a family batches its reconstruction (the same
        values, row by row), else one :meth:`reconstruct` per row."""
        name = method or self.reconstructions[0]
        aggregates = self._batch_aggregates(counts, n)
        if name in self.reconstructions:
            batch = self._reconstruct_batch(np.stack([agg.counts for agg in aggregates]), name, **options)
            if batch is not None:
                return batch
        return np.stack([self.reconstruct(agg, method=name, **options).values for agg in aggregates])

    def _batch_aggregates(self, counts: Any, n: int) -> list[Aggregate]:
        """The rows of ``counts`` as aggregates of n reports, validated as :meth:`reconstruct` validates them
        (:meth:`as_aggregates`)."""
        rows, n = self.as_aggregates(counts, n)
        return [Aggregate._checked(row, n) for row in rows]

    def _reconstruct_batch(self, counts: np.ndarray, method: str, **options: Any) -> np.ndarray | None:
        """The batched form of ``method`` on validated rows (hook; None: no batched form, one run per row)."""
        return None

    @classmethod
    def reconstruct_batches(cls, mechanisms: list[NumericalMechanism], counts: list[Any], n: int, *,
                            method: str | None = None, **options: Any) -> list[np.ndarray]:
        """:meth:`reconstruct_batch` of each mechanism's block (``counts[k]`` for ``mechanisms[k]``, each from n
        reports): the hook ``_reconstruct_batches`` where a family iterates the blocks of several mechanisms
        together (a sweep of a parameter; the same values, row by row), else one batch per mechanism. Bad rows are
        refused as :meth:`reconstruct_batch` refuses them, blocks that do not pair up with the mechanisms too.
        """
        check_paired(mechanisms, counts, "block of counts per mechanism")
        names = {method or m.reconstructions[0] for m in mechanisms}
        if mechanisms and len(names) == 1 and all(type(m) is cls for m in mechanisms):
            name = names.pop()
            blocks = [np.stack([agg.counts for agg in m._batch_aggregates(c, n)])
                      for m, c in zip(mechanisms, counts, strict=True)]
            if all(name in m.reconstructions for m in mechanisms):
                found = cls._reconstruct_batches(mechanisms, blocks, name, **options)
                if found is not None:
                    return found
        return [m.reconstruct_batch(c, n, method=method, **options) for m, c in zip(mechanisms, counts, strict=True)]

    @classmethod
    def _reconstruct_batches(cls, mechanisms: list[NumericalMechanism], blocks: list[np.ndarray], method: str,
                             **options: Any) -> list[np.ndarray] | None:
        """The blocks of several mechanisms of this class reconstructed together (hook; None: one batch each)."""
        return None

    def _estimate(self, aggregate: Aggregate) -> Estimate:
        return self._reconstruct(aggregate, self.reconstructions[0])

    # ------------------------------------------------------------------ reports: real numbers by default
    def _report_dtype(self) -> Any:
        return np.float64 if self.real_reports else np.int64

    def _scalar_reports(self) -> bool:
        return self.real_reports or self.input_kind == "codes"

    def _format_reports(self, reports: np.ndarray):
        if np.issubdtype(reports.dtype, np.floating):
            return (repr(float(x)) for x in reports)
        return super()._format_reports(reports)

    def _parse_line(self, line: str) -> list[Any]:
        if self._report_dtype() is np.int64:
            return super()._parse_line(line)
        try:
            return [float(tok) for tok in line.split()]
        except ValueError:
            raise InvalidInput(f"not a {self.name} report ({self.report_format}): {line[:60]!r}") from None
