"""Blind deconvolution (convolution paper, Appendix B): Wiener deconvolution when the aggregator does not know ε,
so the h-vector (p*, q*) must be recovered from the reports themselves.

Appendix B gives two ways:

1. **Probing** — an adversary who can run the client locally feeds it one input many times and counts, over the
   outputs, how often the input and how often each other value is supported: p̂* and q̂* directly
   (:func:`probe_channel`).
2. **Support size** — for a pure protocol whose report supports several values, each report supports
   p* + (d − 1)q* values on average (Appendix A, Eq. (26) summed over i), and the aggregator knows the reports, so
   the observed mean support size S/n (S = Σ_i C(i), the support counts summed) pins ε once the protocol type is
   known (:func:`estimate_epsilon`): we solve p*(ε) + (d − 1)q*(ε) = S/n by bisection on ε, the protocol's other
   public parameters (OLH's g, SS's ω, THE's θ) held at their reported values. Where the support size does not
   depend on ε — GRR and SS support exactly 1 and ω values whatever ε is — ε is not identifiable this way, and
   :class:`BlindWiener` does not apply (NotAvailable). Our choice: we also refuse protocols where ε moves less
   than :data:`MIN_EPSILON_SHARE` (5 %) of the support size. For the local-hashing family with g fixed only p*
   moves (at most 1 of (d − 1)/g supported values) while the finite hash family ((a·v + b) mod P) mod g gives
   some hash values probability ⌈P/g⌉/P instead of 1/g — a bias of the same order: measured at ε = 2, d = 200,
   n = 2·10⁵, ε̂ = 1.86 for OLH and the range's end for BLH, against 2.001 (OUE), 1.999 (SUE), 1.999 (THE).

:class:`BlindWiener` ("dw-blind") is DW (:func:`ldp.estimators.wiener.direct_wiener`) with the matrix inversion
and the h-vector built from the estimated ε̂ instead of the true one; the estimate carries ε̂ and the support size
as diagnostics. The ε̂ it finds is an estimate: S/n has variance Σ_i Var[C(i)]/n² (independent users), so ε̂ is
consistent as n grows, and at small n its error shows in the diagnostics.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ldp.core.errors import InvalidInput, NotAvailable
from ldp.core.registry import ESTIMATORS
from ldp.core.results import Aggregate, Estimate
from ldp.estimators.base import Estimator
from ldp.estimators.wiener import WIENER_PAPER, direct_wiener, has_fixed_support
from ldp.mechanisms import get_mechanism
from ldp.mechanisms.frequency.base import FrequencyOracle

__all__ = ["BlindEpsilon", "BlindWiener", "estimate_epsilon", "probe_channel", "support_size"]

#: The interval ε̂ is searched in (the registry's own bounds are wider; beyond 20 every protocol is exact).
EPSILON_RANGE = (1e-3, 20.0)
#: Bisection steps (the interval shrinks 2⁶⁰-fold: far below the statistical error of S/n).
BISECTION_STEPS = 60


def _with_epsilon(mechanism: FrequencyOracle, epsilon: float) -> FrequencyOracle:
    """The same protocol (same public parameters) at another ε."""
    return get_mechanism(mechanism.name, float(epsilon), mechanism.d, **mechanism.params)


def support_size(mechanism: FrequencyOracle) -> float:
    """Expected number of values one report supports: p* + (d − 1)q* (Appendix A, Eq. (26)).

    Parameters
    ----------
    mechanism : FrequencyOracle
        A pure frequency oracle (its ``p_star``, ``q_star`` and ``d``).

    Returns
    -------
    float
        p* + (d − 1)q*, the mean number of the d values one report supports (1 for GRR, ω for SS).

    References
    ----------
    Fang, Chen, Liu, Gao, convolution framework paper, Appendix A, Eq. (26) summed over the d values i, and
    Appendix B (way 2).
    """
    return float(mechanism.p_star + (mechanism.d - 1) * mechanism.q_star)


#: Smallest share of the support size that ε moves (over ε from 10⁻³ to 8) for ε to count as identifiable.
MIN_EPSILON_SHARE = 0.05


def _epsilon_share(mechanism: FrequencyOracle) -> float:
    lo, hi = EPSILON_RANGE
    a, b = support_size(_with_epsilon(mechanism, lo)), support_size(_with_epsilon(mechanism, min(hi, 8.0)))
    return abs(a - b) / max(abs(a), abs(b))


@dataclass(frozen=True)
class BlindEpsilon:
    """ε recovered from the reports' mean support size (module docstring, way 2).

    Attributes
    ----------
    epsilon : float
        ε̂, in :data:`EPSILON_RANGE`: the ε at which the protocol's expected support size equals ``mean_support``.
    mean_support : float
        The observed mean support size S/n: the support counts summed over the d values, over the n reports.
    clipped : bool
        Whether ``mean_support`` lay outside what any ε in :data:`EPSILON_RANGE` gives (``epsilon`` is then the
        range's nearer end).

    References
    ----------
    Fang, Chen, Liu, Gao, convolution framework paper, Appendix B (way 2).
    """

    epsilon: float
    mean_support: float
    #: Whether the observed support size lay outside what any ε in :data:`EPSILON_RANGE` gives (ε̂ is then the
    #: nearest end of the range).
    clipped: bool


def estimate_epsilon(mechanism: FrequencyOracle, aggregate: Aggregate) -> BlindEpsilon:
    """ε̂ such that the protocol's expected support size equals the observed S/n (bisection on ε).

    The equation p*(ε) + (d − 1)q*(ε) = S/n is solved by :data:`BISECTION_STEPS` bisections of log ε over
    :data:`EPSILON_RANGE`; where S/n lies outside what the range gives, ε̂ is the range's nearer end (``clipped``).

    Parameters
    ----------
    mechanism : FrequencyOracle
        The one-time pure frequency oracle the reports came from. Only its name, d and other public parameters
        (OLH's g, SS's ω, THE's θ) are used: its own ε is not (ε is what is searched for).
    aggregate : Aggregate
        The reports' support counts C(i) (length d) and their number n.

    Returns
    -------
    BlindEpsilon
        ε̂, the observed S/n and whether ε̂ was clipped to the range.

    Raises
    ------
    NotAvailable
        When the protocol is not pure (no p*, q*), is memoized (two budgets ε∞ and ε1, which one support size
        cannot separate), or its support size moves less than :data:`MIN_EPSILON_SHARE` with ε: GRR and SS (whose
        support size does not depend on ε) always, OLH, BLH and HR except at small d.

    References
    ----------
    Fang, Chen, Liu, Gao, convolution framework paper, Appendix B (way 2), with Appendix A, Eq. (26).
    """
    if not getattr(mechanism, "pure", False):
        raise NotAvailable(f"{mechanism.name}: blind deconvolution needs a pure frequency oracle (p*, q*)")
    if mechanism.collection != "one-time":
        raise NotAvailable(f"{mechanism.name}: a memoized protocol has two budgets (ε∞, ε1) that one support size "
                           "cannot separate")
    share = _epsilon_share(mechanism)
    if share < MIN_EPSILON_SHARE:
        raise NotAvailable(f"{mechanism.name}: ε moves only {share:.1%} of the {support_size(mechanism):.3g} values "
                           "a report supports, so it cannot be recovered from the reports (convolution paper, "
                           "Appendix B)")
    observed = float(np.sum(aggregate.counts)) / aggregate.n
    lo, hi = EPSILON_RANGE
    f_lo = support_size(_with_epsilon(mechanism, lo)) - observed
    f_hi = support_size(_with_epsilon(mechanism, hi)) - observed
    if f_lo * f_hi > 0:  # outside the range: the nearest end
        end = lo if abs(f_lo) < abs(f_hi) else hi
        return BlindEpsilon(end, observed, True)
    for _ in range(BISECTION_STEPS):
        mid = math.sqrt(lo * hi)  # bisection on log ε: the range spans four decades
        f_mid = support_size(_with_epsilon(mechanism, mid)) - observed
        if f_mid * f_lo <= 0:
            hi = mid
        else:
            lo, f_lo = mid, f_mid
    return BlindEpsilon(math.sqrt(lo * hi), observed, False)


def probe_channel(mechanism: FrequencyOracle, value: int, probes: int, rng: np.random.Generator
                  ) -> tuple[float, float]:
    """(p̂*, q̂*) from ``probes`` reports of one input ``value`` run through the client (module docstring, way 1):
    the share of reports supporting ``value``, and the mean share supporting each other value.

    Parameters
    ----------
    mechanism : FrequencyOracle
        The client's frequency oracle (its ``perturb`` and ``support_counts``).
    value : int
        The probed input, in [0, d).
    probes : int
        How many times the input is run through the client (≥ 1).
    rng : numpy.random.Generator
        The client's randomness.

    Returns
    -------
    tuple of float
        (p̂*, q̂*), both in [0, 1]: the share of the ``probes`` reports that support ``value``, and the share
        supporting each of the d − 1 other values, averaged over them. For a pure oracle, unbiased estimates of
        p* and q*.

    Raises
    ------
    InvalidInput
        When ``value`` lies outside [0, d) or ``probes`` is smaller than 1.

    References
    ----------
    Fang, Chen, Liu, Gao, convolution framework paper, Appendix B (way 1).
    """
    if not 0 <= int(value) < mechanism.d:
        raise InvalidInput(f"the probed value must lie in [0, {mechanism.d}), got {value!r}")
    if int(probes) < 1:
        raise InvalidInput(f"probes must be a positive integer, got {probes!r}")
    reports = mechanism.perturb(np.full(int(probes), int(value), dtype=np.int64), rng)
    counts = np.asarray(mechanism.support_counts(reports), dtype=np.float64)
    others = (counts.sum() - counts[int(value)]) / (mechanism.d - 1)
    return float(counts[int(value)] / probes), float(others / probes)


@ESTIMATORS.register
class BlindWiener(Estimator):
    """DW-blind (Appendix B): DW with ε recovered from the reports' mean support size (module docstring).

    The matrix inversion and the h-vector are those of the protocol at ε̂ (:func:`estimate_epsilon`); the estimate
    carries ``epsilon_hat``, ``mean_support`` and ``epsilon_true`` (the mechanism's own ε) as diagnostics, and a
    warning when ε̂ was clipped to :data:`EPSILON_RANGE`. It applies to one-time pure oracles whose support size ε
    moves by at least :data:`MIN_EPSILON_SHARE` (SUE, OUE, THE; OLH, BLH and HR only at small d).

    Parameters
    ----------
    **params
        None: DW-blind takes no parameters (an unknown name is an ``InvalidInput``).

    References
    ----------
    Fang, Chen, Liu, Gao, convolution framework paper, §IV-C (DW, Eqs. (16)–(21)) and Appendix B (blind
    deconvolution, way 2).
    """

    name = "dw-blind"
    display_name = "DW-blind (ε from the reports)"
    description = ("Direct Wiener deconvolution without knowing ε: ε̂ solves p*(ε) + (d − 1)q*(ε) = the reports' "
                   "mean support size")
    paper = WIENER_PAPER + ", Appendix B (blind deconvolution)"
    requires_pure = True
    assumes_order = True

    @classmethod
    def _applies(cls, mechanism: Any) -> bool:
        # the family's declaration, not the share at this d: applicability must not change with the domain size
        return bool(getattr(mechanism, "support_size_reveals_epsilon", False)) and mechanism.collection == "one-time"

    def _estimate(self, mechanism: Any, aggregate: Aggregate, base: Estimate | None) -> Estimate:
        found = estimate_epsilon(mechanism, aggregate)
        guess = _with_epsilon(mechanism, found.epsilon)
        mi = guess.invert(aggregate.counts, aggregate.n)
        values = direct_wiener(mi, guess.p_star, guess.q_star, aggregate.n, zero_dc=has_fixed_support(guess))
        warnings = (f"the reports' support size lies outside what any ε in [{EPSILON_RANGE[0]:g}, "
                    f"{EPSILON_RANGE[1]:g}] gives: ε̂ = {found.epsilon:g} is the nearest end",) if found.clipped else ()
        return Estimate(values, self.name, warnings=warnings,
                        diagnostics={"epsilon_hat": found.epsilon, "mean_support": found.mean_support,
                                     "epsilon_true": float(mechanism.epsilon)})
