"""Every mechanism, of every kind, in one registry (``MECHANISMS``); importing this package registers them.

Kinds (``Mechanism.kind``): categorical frequency oracles (one-time in :mod:`.frequency`, memoized in
:mod:`.longitudinal`), numerical-distribution mechanisms (:mod:`.numerical`), mean mechanisms (:mod:`.mean`) and
vector mechanisms (:mod:`.vector`, means of d coordinates). The import order below is the listing order.
"""

from ldp.core.errors import InvalidInput
from ldp.core.registry import MECHANISMS

# isort: off
from ldp.mechanisms.frequency import grr, unary, histogram_encoding, subset_selection  # noqa: F401
from ldp.mechanisms.frequency import local_hashing, hadamard  # noqa: F401
from ldp.mechanisms.frequency import fast_local_hashing, count_mean_sketch  # noqa: F401
from ldp.mechanisms.frequency import bitflip  # noqa: F401
from ldp.mechanisms import longitudinal  # noqa: F401
from ldp.mechanisms.frequency import rappor  # noqa: F401 - after longitudinal (its mixin)
from ldp.mechanisms.numerical import square_wave, binning, waves, hierarchy  # noqa: F401
from ldp.mechanisms import mean, vector  # noqa: F401
from ldp.mechanisms import heavy_hitters  # noqa: F401 - the interactive heavy-hitter protocols (PROTOCOLS)
# isort: on
from ldp.mechanisms.base import KINDS, Mechanism, channel_privacy_loss
from ldp.mechanisms.frequency.base import FrequencyOracle
from ldp.mechanisms.mean import MeanMechanism
from ldp.mechanisms.numerical import NumericalMechanism


def get_mechanism(name: str, epsilon: float, d: int | None = None, **params) -> Mechanism:
    """Build a registered mechanism with validated parameters.

    Parameters
    ----------
    name : str
        A name in :data:`ldp.MECHANISMS` (``ldp mechanisms`` lists them), e.g. ``"grr"``, ``"oue"``, ``"sw"``, ``"pm"``.
    epsilon : float
        The privacy budget ε (ε∞ of the memoized step for longitudinal mechanisms), in [10⁻⁴, 50].
    d : int, optional
        The kind's domain parameter: values (frequency oracles), buckets (numerical distributions) or dimension (mean
        and vector mechanisms). May be left out where the kind has a default (the dimension 1 of a mean mechanism).
    **params
        The mechanism's own parameters (``ldp mechanisms`` lists them), e.g. ``g`` for OLH, ``epsilon_1`` for the
        longitudinal ones.

    Returns
    -------
    Mechanism
        An immutable, hashable mechanism; its constructor only validates and stores the parameters.

    Raises
    ------
    InvalidInput
        A one-line reason for an unknown name, a parameter out of range or a missing ``d``.
    """
    cls = MECHANISMS.get(name)
    if d is None and cls.domain_parameter.default is None:
        raise InvalidInput(f"{cls.name}: give the domain parameter d ({cls.domain_parameter.description})")
    return cls(epsilon, d, **params)


def mechanisms_of(kind: str) -> list[type[Mechanism]]:
    """The registered mechanism classes of one kind, in listing order.

    Parameters
    ----------
    kind : str
        One of :data:`ldp.KINDS`: ``"frequency"``, ``"numerical"``, ``"mean"`` or ``"vector"``.

    Returns
    -------
    list of type
        The :class:`Mechanism` subclasses of that kind.

    Raises
    ------
    InvalidInput
        For an unknown kind.
    """
    if kind not in KINDS:
        raise InvalidInput(f"unknown mechanism kind {kind!r}; choose one of: {', '.join(KINDS)}")
    return MECHANISMS.filter(lambda cls: cls.kind == kind)


__all__ = ["KINDS", "MECHANISMS", "FrequencyOracle", "MeanMechanism", "Mechanism", "NumericalMechanism",
           "channel_privacy_loss", "get_mechanism", "mechanisms_of"]
