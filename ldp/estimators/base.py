"""Estimators: stateless maps from (mechanism, aggregate) to an immutable :class:`~ldp.core.results.Estimate`,
and the estimator chain.

An estimator's constructor only validates and stores its parameters (scikit-learn style); ``estimate`` never
changes the estimator, so one instance can serve every page, thread and trial, and everything an estimator
knows about its run (converged, iterations, trace, warnings) travels in the returned ``Estimate``.

The chain. A post-processor declares ``base = "mi"``: it transforms matrix inversion's estimate rather than
the aggregate. :func:`estimate_all` computes every base estimate once per collection and hands it to each
post-processor that needs it, so eleven post-processors cost one matrix inversion, not eleven.

Composite mechanisms (CFO with binning) expose a ``frequency_view()``: the categorical oracle whose aggregate
theirs is, and the map that lifts that oracle's estimate to the mechanism's domain. Every categorical
estimator then applies to them unchanged — the estimate is computed on the oracle and lifted.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, ClassVar

import numpy as np

from ldp.core.errors import InvalidInput
from ldp.core.params import Param, check_paired, resolve_params
from ldp.core.registry import ESTIMATORS
from ldp.core.results import Aggregate, Estimate, warn_unconverged
from ldp.mechanisms.base import Mechanism

__all__ = ["Estimator", "PostProcessor", "estimate_all", "get_estimator", "parse_estimators", "resolve_estimators"]


class Estimator(ABC):
    """One registered way to turn an aggregate into an estimate (immutable; the constructor only validates).

    Parameters
    ----------
    **params
        The estimator's declared ``parameters`` (e.g. ``max_iter`` for IBU), validated against their ranges.

    Attributes
    ----------
    name, display_name, description, paper : str
        Registry metadata.
    kinds : tuple of str
        The mechanism kinds it applies to.
    base : str or None
        The estimator whose output it post-processes (matrix inversion for the consistency methods).
    consistent : bool
        Whether its output is a distribution (non-negative, summing to one).
    """

    name: ClassVar[str]
    display_name: ClassVar[str]
    description: ClassVar[str]
    paper: ClassVar[str]
    parameters: ClassVar[tuple[Param, ...]] = ()
    #: Mechanism kinds it applies to.
    kinds: ClassVar[tuple[str, ...]] = ("frequency",)
    #: Registered estimator whose estimate this one post-processes (None: works from the aggregate).
    base: ClassVar[str | None] = None
    requires_pure: ClassVar[bool] = False
    #: Promises: the output is non-negative and sums to one.
    consistent: ClassVar[bool] = False
    #: Post-Pos: the vector is left as is and query answers (sums over subsets) are clipped at zero.
    clip_queries: ClassVar[bool] = False
    #: Promise of a post-processor P: its output fed back as the base estimate comes out unchanged, P(P(x)) =
    #: P(x) — the projections and clippings of the consistency paper. A consistent idempotent P also leaves
    #: every distribution unchanged (it maps onto the simplex and fixes its image).
    idempotent: ClassVar[bool] = False
    #: Assumes an ordered domain whose neighbouring values have similar frequencies (the Wiener family and
    #: (1,2,1) smoothing): pages warn when the data have no order (a categorical column).
    assumes_order: ClassVar[bool] = False

    def __init__(self, **params: Any) -> None:
        self.params: Mapping[str, Any] = MappingProxyType(resolve_params(self.name, self.parameters, params))

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{type(self).__name__}({args})"

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and dict(self.params) == dict(other.params)  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(sorted(self.params.items()))))

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # params is a read-only view, which cannot be pickled or deep-copied: rebuild from the constructor
        return (_rebuild_estimator, (type(self), dict(self.params)))

    # ------------------------------------------------------------------ applicability
    @classmethod
    def applies_to(cls, mechanism: Mechanism) -> bool:
        """Whether this estimator can estimate from ``mechanism``'s aggregates."""
        view = mechanism.frequency_view()
        target = view[0] if view is not None else mechanism
        return target.kind in cls.kinds and (target.pure or not cls.requires_pure) and cls._applies(target)

    @classmethod
    def _applies(cls, mechanism: Mechanism) -> bool:
        """Further conditions of a subclass (hook)."""
        return True

    # ------------------------------------------------------------------ estimation
    def estimate(self, mechanism: Mechanism, aggregate: Aggregate | Any, n: int | None = None, *,
                 base: Estimate | None = None) -> Estimate:
        """The estimate from an aggregate (or from the statistic and n); ``base`` is the base estimator's
        estimate of the same aggregate when the caller already has it (the chain)."""
        agg = mechanism.as_aggregate(aggregate, n)
        if not self.applies_to(mechanism):
            ok = ", ".join(e.name for e in ESTIMATORS if e.applies_to(mechanism))
            raise InvalidInput(f"estimator {self.name} does not apply to {mechanism.name}; use one of: {ok}")
        view = mechanism.frequency_view()
        if view is not None:
            oracle, lift = view
            inner = self.estimate(oracle, agg, base=base)  # the oracle checks a statistic not drawn by an engine
            return inner.with_values(lift(inner.values))
        if self.base is not None and base is None:
            base = get_estimator(self.base).estimate(mechanism, agg)
        out = self._estimate(mechanism, agg, base)
        if not isinstance(out, Estimate):
            out = Estimate(np.asarray(out, dtype=np.float64), self.name, warnings=base.warnings if base else ())
        # reports or counts from outside: say where they cannot come from this mechanism
        return warn_unconverged(mechanism.with_consistency_warnings(out, agg))

    @abstractmethod
    def _estimate(self, mechanism: Mechanism, aggregate: Aggregate, base: Estimate | None) -> Estimate | np.ndarray:
        """The estimate (an :class:`Estimate`, or just its values) from a validated aggregate."""

    def estimate_batch(self, mechanism: Mechanism, counts: Aggregate | np.ndarray, n: int | None = None) -> np.ndarray:
        """The estimate's values for every row of ``counts`` (trials × statistic), all from n reports.

        The rows are validated first, as one aggregate given by hand is (``Mechanism.as_aggregates``: the shape,
        finite numbers, n, and the family's conditions such as a pure oracle's counts in [0, n]). A composite
        mechanism's rows go to its frequency view's oracle and are lifted back; hook ``_estimate_batch`` (on a
        mechanism without a view) is the vectorized form, with one :meth:`estimate` per row as the generic fallback.
        """
        return self._checked_batch(mechanism, *mechanism.as_aggregates(counts, n))

    def _checked_batch(self, mechanism: Mechanism, counts: np.ndarray, n: int) -> np.ndarray:
        """:meth:`estimate_batch` of rows already validated."""
        view = mechanism.frequency_view()
        if view is not None and self.applies_to(mechanism):
            oracle, lift = view
            return np.stack([lift(row) for row in self._checked_batch(oracle, counts, n)])
        return self._estimate_batch(mechanism, counts, n)

    def _estimate_batch(self, mechanism: Mechanism, counts: np.ndarray, n: int) -> np.ndarray:
        return np.stack([self.estimate(mechanism, Aggregate._checked(row, n)).values for row in counts])

    def estimate_batches(self, mechanisms: list[Mechanism], counts: list[Aggregate | np.ndarray],
                         n: int) -> list[np.ndarray]:
        """:meth:`estimate_batch` of each mechanism's block (``counts[k]`` for ``mechanisms[k]``, all from n
        reports, each validated as :meth:`estimate_batch` validates one): hook ``_estimate_batches`` where an
        estimator takes the blocks of several mechanisms together (EM/EMS over a sweep of b), the same values as
        one batch per mechanism."""
        check_paired(mechanisms, counts, "block of counts per mechanism")
        blocks = [m.as_aggregates(c, n)[0] for m, c in zip(mechanisms, counts, strict=True)]
        return self._estimate_batches(list(mechanisms), blocks, int(n))

    def _estimate_batches(self, mechanisms: list[Mechanism], counts: list[np.ndarray], n: int) -> list[np.ndarray]:
        return [self._checked_batch(m, c, n) for m, c in zip(mechanisms, counts, strict=True)]


def _rebuild_estimator(cls: type[Estimator], params: dict[str, Any]) -> Estimator:
    return cls(**params)


class PostProcessor(Estimator):
    """An estimator that transforms matrix inversion's estimate (``base = "mi"``); ``_estimate`` gets it.

    Parameters
    ----------
    **params
        The post-processor's declared ``parameters`` (e.g. ``alpha`` for Base-Cut), validated against their ranges.

    References
    ----------
    The consistency post-processing methods of Wang et al. (NDSS'20, §IV), applied to the unbiased estimate of
    matrix inversion (Eq. (2) of Arcolezi et al., IBU vs MI, DBSec'23).
    """

    base: ClassVar[str | None] = "mi"


def get_estimator(name: str | Estimator, **params: Any) -> Estimator:
    """The registered estimator ``name`` with validated parameters.

    Parameters
    ----------
    name : str or Estimator
        A name in :data:`ldp.ESTIMATORS` (an instance is passed through unchanged).
    **params
        The estimator's own parameters, e.g. ``max_iter`` for IBU, ``alpha`` for Base-Cut.

    Returns
    -------
    Estimator
        An immutable estimator.

    Raises
    ------
    InvalidInput
        For an unknown name or a parameter out of range.
    """
    if isinstance(name, Estimator):
        if params:
            raise InvalidInput(f"estimator {name.name}: give parameters either to the instance or here, not both")
        return name
    return ESTIMATORS.get(name)(**params)


def parse_estimators(spec: str | Sequence[str], mechanism: Mechanism | None = None) -> list[str]:
    """Split a comma-separated list, check every name, and (given a mechanism) that each applies.

    Parameters
    ----------
    spec : str or sequence of str
        Estimator names: one comma-separated string or a list; blanks are skipped, case is ignored.
    mechanism : Mechanism, optional
        When given, every name must be an estimator that applies to it.

    Returns
    -------
    list of str
        The lower-cased names in the order given, each once (a repeated name is kept at its first place).

    Raises
    ------
    InvalidInput
        When no name is given, a name is not registered, or an estimator does not apply to ``mechanism``.
    """
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    names = [str(s).strip().lower() for s in items if str(s).strip()]
    if not names:
        raise InvalidInput("no estimator given; choose from: " + ", ".join(ESTIMATORS.names()))
    for name in names:
        cls = ESTIMATORS.get(name)
        if mechanism is not None and not cls.applies_to(mechanism):
            ok = [e.name for e in ESTIMATORS if e.applies_to(mechanism)]
            raise InvalidInput(f"estimator {name} does not apply to {mechanism.name}; use one of: {', '.join(ok)}")
    return list(dict.fromkeys(names))


def resolve_estimators(spec: str | Sequence[str | Estimator], mechanism: Mechanism) -> list[Estimator]:
    """Estimator instances from names (a list or one comma-separated string) or instances, each checked to
    apply to ``mechanism``; a name listed twice is an error.

    Parameters
    ----------
    spec : str or sequence of str or Estimator
        One comma-separated string of names, or a list of names and instances; blank names are skipped.
    mechanism : Mechanism
        The mechanism every estimator must apply to.

    Returns
    -------
    list of Estimator
        The estimators in the order given (names built with their default parameters).

    Raises
    ------
    InvalidInput
        When no estimator is given, a name is not registered, one does not apply to ``mechanism``, or a name
        appears twice.
    """
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    chosen = []
    for item in items:
        if isinstance(item, str) and not item.strip():
            continue
        est = get_estimator(item.strip().lower() if isinstance(item, str) else item)
        if not est.applies_to(mechanism):
            ok = [e.name for e in ESTIMATORS if e.applies_to(mechanism)]
            raise InvalidInput(f"estimator {est.name} does not apply to {mechanism.name}; use one of: {', '.join(ok)}")
        chosen.append(est)
    if not chosen:
        raise InvalidInput("no estimator given; choose from: " + ", ".join(ESTIMATORS.names()))
    names = [e.name for e in chosen]
    if len(set(names)) != len(names):
        raise InvalidInput(f"an estimator is listed twice: {', '.join(names)}")
    return chosen


def estimate_all(mechanism: Mechanism, aggregate: Aggregate | Any, estimators: Sequence[str | Estimator],
                 n: int | None = None) -> dict[str, Estimate]:
    """Every estimator on one aggregate, each base estimate computed once (the estimator chain).

    Parameters
    ----------
    mechanism : Mechanism
        The mechanism the aggregate belongs to.
    aggregate : Aggregate or array_like
        The aggregate, or its statistic (then give ``n``).
    estimators : sequence of str or Estimator
        Registered names (``ldp estimators`` lists them) or instances.
    n : int, optional
        The number of reports, when ``aggregate`` is a bare statistic.

    Returns
    -------
    dict of str to Estimate
        Each estimator's name mapped to its immutable :class:`Estimate` (values and diagnostics), in order.

    References
    ----------
    Matrix inversion, Eq. (2) of Arcolezi et al. (IBU vs MI, DBSec'23); the consistency methods of Wang et al.
    (NDSS'20, §IV); the Wiener family of Fang et al. (the convolution paper, §IV-C).
    """
    agg = mechanism.as_aggregate(aggregate, n)
    chosen = [get_estimator(e) for e in estimators]
    view = mechanism.frequency_view()
    if view is not None:
        oracle, lift = view
        inner = estimate_all(oracle, agg, chosen)
        return {name: est.with_values(lift(est.values)) for name, est in inner.items()}
    bases: dict[str, Estimate] = {}
    out: dict[str, Estimate] = {}
    for est in chosen:
        base = None
        if est.base is not None:
            if est.base not in bases:
                bases[est.base] = get_estimator(est.base).estimate(mechanism, agg)
            base = bases[est.base]
        result = est.estimate(mechanism, agg, base=base)
        if est.base is None and not est.params:
            bases.setdefault(est.name, result)
        out[est.name] = result
    return out
