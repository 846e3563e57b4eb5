"""Frequency-oracle mechanisms; importing this package registers every one in ``MECHANISMS``."""

from ldp.core.registry import MECHANISMS
from ldp.mechanisms import longitudinal  # noqa: F401  (registration)
from ldp.mechanisms.base import Mechanism, channel_privacy_loss
from ldp.mechanisms.frequency import categorical, hashing  # noqa: F401  (registration)


def get_mechanism(name: str, epsilon: float, d: int, **params) -> Mechanism:
    """Build the registered mechanism ``name`` with validated parameters."""
    return MECHANISMS.get(name)(epsilon, d, **params)


__all__ = ["MECHANISMS", "Mechanism", "channel_privacy_loss", "get_mechanism"]
