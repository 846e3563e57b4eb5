"""Immutable records that flow between the layers: what the server holds (:class:`Aggregate`) and what an
estimator returns (:class:`Estimate`, with its diagnostics).

Both freeze their arrays (``writeable = False``), so a result handed to a page, a cache or another
estimator cannot be changed behind its owner's back.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

import numpy as np

from ldp.core.errors import ConvergenceWarning, InvalidInput

__all__ = ["SIMULATION_ENGINES", "Aggregate", "Estimate", "frozen_array", "warn_unconverged"]


def frozen_array(values: Any, dtype: Any = np.float64) -> np.ndarray:
    """A read-only copy of ``values``.

    Parameters
    ----------
    values : array_like
        The values to copy.
    dtype : numpy dtype, default float64
        The copy's dtype.

    Returns
    -------
    numpy.ndarray
        A fresh array with ``writeable = False``.
    """
    arr = np.array(values, dtype=dtype)
    arr.setflags(write=False)
    return arr


def _user_count(n: Any) -> int:
    """A number of users: an integral number ≥ 0, not a bool (1000.7 or True are errors, not 1000 or 1)."""
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer, float, np.floating)):
        raise InvalidInput(f"the number of reports n must be a non-negative integer, got {n!r}")
    if isinstance(n, (float, np.floating)) and not (math.isfinite(n) and float(n).is_integer()):
        raise InvalidInput(f"the number of reports n must be a non-negative integer, got {n!r}")
    if n < 0:
        raise InvalidInput(f"the number of reports n must be a non-negative integer, got {n!r}")
    return int(n)


#: The simulation engines (ldp.engines): "fast" draws the aggregate directly, "exact" runs every client.
SIMULATION_ENGINES = ("fast", "exact")


@dataclass(frozen=True)
class Aggregate:
    """What the server holds after a collection: a mechanism's additive statistic of the reports, and n (immutable).

    The statistic is additive over users (support counts for frequency oracles, a report histogram for numerical
    mechanisms, the sum of the reports for mean and vector mechanisms), so aggregates of disjoint groups add up
    (``a + b``).

    Parameters
    ----------
    counts : array_like
        The statistic (see each mechanism's ``aggregate``).
    n : int
        The number of reports.
    engine : str, default "reports"
        How it was obtained: ``"exact"`` (every client ran), ``"fast"`` (drawn directly) or ``"reports"`` (real
        reports, checked by the estimators against the mechanism's configuration). Only the engines' own
        aggregates count as simulated (:attr:`simulated`); one built by hand is checked like reports whatever its
        ``engine`` says.
    """

    counts: np.ndarray
    n: int
    engine: str = "reports"

    @classmethod
    def _from_engine(cls, counts: Any, n: int, engine: str) -> Aggregate:
        """An aggregate an engine has just drawn (:func:`ldp.engines.run_exact`, ``Mechanism.sample_aggregate``):
        marked as such outside the constructor's parameters, so that only the library's own engines make one whose
        statistic is taken as this configuration's without a check (:attr:`simulated`)."""
        agg = cls(counts, n, engine)
        object.__setattr__(agg, "_trusted", True)
        return agg

    @classmethod
    def _checked(cls, counts: Any, n: int) -> Aggregate:
        """A statistic the library has just validated (a row of a checked batch): not checked a second time."""
        agg = cls(counts, n)
        object.__setattr__(agg, "_trusted", True)
        return agg

    @property
    def trusted(self) -> bool:
        """Whether the library drew or already checked it (:meth:`_from_engine`, :meth:`_checked`): a mechanism
        then takes its statistic as given; anything else is checked against the mechanism."""
        return bool(self.__dict__.get("_trusted", False))

    @property
    def finite(self) -> bool:
        """Whether every entry of the statistic is a finite number: computed once per aggregate (its statistic is a
        read-only copy), where every estimator of a chain used to check it again (nine times per collection on the
        Post-processing page)."""
        known = self.__dict__.get("_finite")
        if known is None:
            known = bool(np.isfinite(self.counts).all())
            object.__setattr__(self, "_finite", known)
        return known

    def __post_init__(self) -> None:
        try:
            counts = frozen_array(self.counts)
        except (TypeError, ValueError):
            raise InvalidInput(f"the aggregate's statistic must be numbers, got {type(self.counts).__name__}") from None
        object.__setattr__(self, "counts", counts)
        object.__setattr__(self, "n", _user_count(self.n))

    @property
    def simulated(self) -> bool:
        """Whether one of the library's engines drew it (``"exact"`` or ``"fast"``): its statistic is this
        configuration's by construction, so there is nothing to check it against. Statistics from anywhere else
        — reports, counts given by hand, an ``Aggregate(…, engine="fast")`` built by a caller — are checked."""
        return self.engine in SIMULATION_ENGINES and self.trusted

    def __add__(self, other: Aggregate) -> Aggregate:
        if not isinstance(other, Aggregate) or other.counts.shape != self.counts.shape:
            return NotImplemented
        engine = self.engine if self.engine == other.engine else "mixed"
        if self.simulated and other.simulated and engine != "mixed":
            return Aggregate._from_engine(self.counts + other.counts, self.n + other.n, engine)
        return Aggregate(self.counts + other.counts, self.n + other.n, engine)


@dataclass(frozen=True)
class Estimate:
    """An estimator's answer and everything a reader needs to trust it (immutable).

    Parameters
    ----------
    values : array_like
        The estimated frequencies (length d) or, for mean and vector mechanisms, the estimated mean(s).
    estimator : str
        The registered estimator that produced it.
    converged : bool, default True
        For iterative estimators, whether the stopping rule was met (an :class:`ConvergenceWarning` is issued when not).
    iterations : int, optional
        How many iterations ran.
    trace : array_like, optional
        The per-iteration change (or log-likelihood) the stopping rule watched.
    warnings : tuple of str
        One-line notes a page shows beside the number (e.g. "did not converge", reports from another mechanism).
    diagnostics : mapping
        Further named quantities (the method, IIW-G's validity condition, the smoothness score …).
    """

    values: np.ndarray
    estimator: str
    converged: bool = True
    iterations: int = 0
    trace: np.ndarray | None = field(default=None, repr=False)
    warnings: tuple[str, ...] = ()
    diagnostics: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", frozen_array(self.values))
        if self.trace is not None:
            object.__setattr__(self, "trace", frozen_array(self.trace))
        object.__setattr__(self, "warnings", tuple(str(w) for w in self.warnings))
        object.__setattr__(self, "diagnostics", MappingProxyType(dict(self.diagnostics)))

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # the diagnostics' read-only view cannot be pickled (st.cache_data pickles results): rebuild from a dict
        return (Estimate, (self.values, self.estimator, self.converged, self.iterations, self.trace, self.warnings,
                           dict(self.diagnostics)))

    @property
    def d(self) -> int:
        return int(self.values.shape[0])

    def with_values(self, values: Any, **changes: Any) -> Estimate:
        """The same record with other values (e.g. lifted from bins to buckets) and optional changes."""
        return replace(self, values=values, diagnostics=dict(self.diagnostics), **changes)

    def with_warnings(self, extra: tuple[str, ...]) -> Estimate:
        """The same record with ``extra`` lines added to its warnings."""
        return self.with_values(self.values, warnings=tuple(self.warnings) + tuple(extra))

    def summary(self) -> dict[str, Any]:
        """Diagnostics as plain JSON-able data (no arrays)."""
        out: dict[str, Any] = {"estimator": self.estimator, "converged": self.converged,
                               "iterations": self.iterations, "warnings": list(self.warnings)}
        for key, value in self.diagnostics.items():
            if isinstance(value, (str, int, float, bool)) or value is None:
                out[key] = value
        return out


def warn_unconverged(estimate: Estimate, stacklevel: int = 3) -> Estimate:
    """Warn when an iterative estimate stopped before its stopping rule was met; return the estimate unchanged.

    Issues a :class:`~ldp.core.errors.ConvergenceWarning` when ``estimate.converged`` is False. Called once by the
    public ``estimate``/``reconstruct`` methods, never inside their loops.

    Parameters
    ----------
    estimate : Estimate
        The estimator's result.
    stacklevel : int, default 3
        Passed to :func:`warnings.warn`, so the warning points at the caller of the public method.

    Returns
    -------
    Estimate
        ``estimate`` itself.
    """
    if not estimate.converged:
        detail = "; ".join(estimate.warnings) or f"{estimate.iterations} iterations"
        warnings.warn(f"{estimate.estimator} stopped before converging: {detail}", ConvergenceWarning,
                      stacklevel=stacklevel)
    return estimate
