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
from ldp.mechanisms import longitudinal  # noqa: F401
from ldp.mechanisms.numerical import square_wave, binning, waves, hierarchy  # noqa: F401
from ldp.mechanisms import mean, vector  # noqa: F401
from ldp.mechanisms import heavy_hitters  # noqa: F401 - the interactive heavy-hitter protocols (PROTOCOLS)
# isort: on
from ldp.mechanisms.base import KINDS, Mechanism, channel_privacy_loss
from ldp.mechanisms.frequency.base import FrequencyOracle
from ldp.mechanisms.mean import MeanMechanism
from ldp.mechanisms.numerical import NumericalMechanism


def get_mechanism(name: str, epsilon: float, d: int | None = None, **params) -> Mechanism:
    """Build the registered mechanism ``name`` with validated parameters (``d`` may be left out where the
    kind has a default, e.g. the dimension 1 of a mean mechanism)."""
    cls = MECHANISMS.get(name)
    if d is None and cls.domain_parameter.default is None:
        raise InvalidInput(f"{cls.name}: give the domain parameter d ({cls.domain_parameter.description})")
    return cls(epsilon, d, **params)


def mechanisms_of(kind: str) -> list[type[Mechanism]]:
    """The registered mechanism classes of one kind, in listing order."""
    if kind not in KINDS:
        raise InvalidInput(f"unknown mechanism kind {kind!r}; choose one of: {', '.join(KINDS)}")
    return MECHANISMS.filter(lambda cls: cls.kind == kind)


__all__ = ["KINDS", "MECHANISMS", "FrequencyOracle", "MeanMechanism", "Mechanism", "NumericalMechanism",
           "channel_privacy_loss", "get_mechanism", "mechanisms_of"]
