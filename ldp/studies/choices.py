"""What a user may choose for a configuration, from the registries: the frequency oracles of a collection, the
estimators that apply to a mechanism, the ε1 a longitudinal mechanism can reach below its ε∞, and the (numerical
mechanism, reconstruction) pairs to compare. A page offers exactly these, so a choice it offers always runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ldp.core.errors import InvalidInput, LDPError
from ldp.core.params import Param
from ldp.core.registry import ESTIMATORS, MECHANISMS
from ldp.estimators.wiener import SMOOTHNESS_WARN, smoothness
from ldp.mechanisms import get_mechanism, mechanisms_of
from ldp.mechanisms.numerical.square_wave import mutual_information_b, mutual_information_bound

#: What a page needs to choose among the library's components, re-exported here so pages never reach into the engine's
#: packages (an import-linter contract): the parameter tables (``Param``), the smoothness diagnostic that says whether
#: an order-assuming estimator fits the data (convolution paper §V.E), and the square wave's b (SW paper §5.3).
__all__ = ["SMOOTHNESS_WARN", "Param", "mutual_information_b", "mutual_information_bound", "smoothness",
           "PROBE_D", "closest", "estimators_for", "frequency_oracles", "mechanism_parameters", "numerical_methods",
           "reachable_epsilon_1"]

PROBE_D = 8  # the domain size at which a mechanism is built to probe what applies to it or what it can reach


def frequency_oracles(collections: Sequence[str] = ("one-time", "longitudinal"), *, pure_only: bool = False,
                      ) -> list[str]:
    """The registered frequency oracles of these collections, grouped by collection in that order.

    Parameters
    ----------
    collections : Sequence[str], default ("one-time", "longitudinal")
        The collections to list, in the order wanted; an unknown name lists nothing.
    pure_only : bool, default False
        Keep only pure mechanisms (those with a support set, which some estimators need).

    Returns
    -------
    list of str
        The mechanisms' registered names, in registry order within each collection.
    """
    return [cls.name for collection in collections for cls in mechanisms_of("frequency")
            if cls.collection == collection and (cls.pure or not pure_only)]


def estimators_for(mechanism: str | None = None, kind: str = "frequency") -> list[str]:
    """The registered estimators of a mechanism kind, in registry order; with a mechanism, those that apply to
    it (e.g. an estimator that needs a pure mechanism does not apply to SHE).

    Parameters
    ----------
    mechanism : str or None, default None
        A registered mechanism's name; it is built at ε = 1 and d = :data:`PROBE_D` to ask each estimator's
        ``applies_to``. None lists every estimator of ``kind``.
    kind : str, default "frequency"
        The mechanism kind whose estimators are listed when ``mechanism`` is None (ignored otherwise).

    Returns
    -------
    list of str
        The estimators' registered names, in registry order.
    """
    if mechanism is None:
        return [e.name for e in ESTIMATORS if kind in e.kinds]
    probe = get_mechanism(mechanism, 1.0, PROBE_D)
    return [e.name for e in ESTIMATORS if e.applies_to(probe)]


def reachable_epsilon_1(mechanism: str, epsilon: float, grid: Sequence[float]) -> list[float]:
    """The ε1 of ``grid`` below ε∞ = ``epsilon`` that the longitudinal mechanism can reach (its second step
    must exist for them); ε∞/2 is tried when no grid value is below ε∞. Empty for a one-time mechanism.

    Parameters
    ----------
    mechanism : str
        A registered mechanism's name.
    epsilon : float
        ε∞, the budget of the memoized (permanent) response.
    grid : Sequence[float]
        Candidate ε1 values; those ≥ ε∞ are skipped.

    Returns
    -------
    list of float
        The candidates (or ε∞/2) with which the mechanism builds at d = :data:`PROBE_D`, in grid order.
    """
    if MECHANISMS.get(mechanism).collection != "longitudinal":
        return []
    out = []
    for e1 in [float(e) for e in grid if e < epsilon] or [epsilon / 2]:
        try:
            get_mechanism(mechanism, epsilon, PROBE_D, epsilon_1=e1)
        except LDPError:  # this ε1 is out of the mechanism's reach at this ε∞
            continue
        out.append(e1)
    return out


def closest(options: Sequence[float], target: float) -> float:
    """The option nearest to ``target``.

    Parameters
    ----------
    options : Sequence[float]
        The choices (non-empty).
    target : float
        The wanted value.

    Returns
    -------
    float
        The option with the smallest |option − target| (the first one on a tie), as given (not converted).

    Raises
    ------
    InvalidInput
        If ``options`` is empty.
    """
    if not options:
        raise InvalidInput("there is nothing to choose from")
    return min(options, key=lambda o: abs(float(o) - float(target)))


def mechanism_parameters(mechanism: str, epsilon: float, epsilon_1: float | None) -> dict[str, Any]:
    """The parameters a page passes with (mechanism, ε): ε1 for a longitudinal mechanism (ε∞/2 when none is
    chosen), none for a one-time one.

    Parameters
    ----------
    mechanism : str
        A registered mechanism's name.
    epsilon : float
        ε (ε∞ for a longitudinal mechanism).
    epsilon_1 : float or None
        The chosen ε1 of a longitudinal mechanism; None means ε∞/2. Ignored for a one-time mechanism.

    Returns
    -------
    dict of str to Any
        ``{"epsilon_1": ε1}`` for a longitudinal mechanism, ``{}`` otherwise.
    """
    if MECHANISMS.get(mechanism).collection != "longitudinal":
        return {}
    return {"epsilon_1": float(epsilon / 2 if epsilon_1 is None else epsilon_1)}


def numerical_methods(chosen: Sequence[str], reconstructions: Mapping[str, Sequence[str]]
                      ) -> list[tuple[str, str | None]]:
    """(numerical mechanism, reconstruction) pairs to run: each chosen mechanism with each of its chosen
    reconstructions, or with its default one (None) when it has none to choose from.

    Parameters
    ----------
    chosen : Sequence[str]
        Registered numerical mechanisms' names.
    reconstructions : Mapping[str, Sequence[str]]
        Per mechanism, the chosen reconstruction names; a mechanism that offers reconstructions but is missing
        here gets no pair.

    Returns
    -------
    list of tuple of (str, str or None)
        The (mechanism, reconstruction) pairs, in the order of ``chosen``.
    """
    out: list[tuple[str, str | None]] = []
    for name in chosen:
        if MECHANISMS.get(name).reconstructions:
            out += [(name, r) for r in reconstructions.get(name, ())]
        else:
            out.append((name, None))
    return out
