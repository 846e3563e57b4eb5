"""Estimators and post-processors; importing this package registers them in ``ESTIMATORS``."""

from ldp.core.registry import ESTIMATORS
from ldp.estimators import (
    consistency,  # noqa: F401  (registration)
    ibu,  # noqa: F401  (registration)
    wiener,  # noqa: F401  (registration)
)
from ldp.estimators.base import Estimator
from ldp.estimators.consistency import (
    answer_query,
    base_cut,
    base_cut_threshold,
    base_pos,
    mle_apx,
    norm,
    norm_cut,
    norm_mul,
    norm_sub,
    power,
    power_ns,
)
from ldp.estimators.ibu import IBUTrace, ibu_mle, ibu_trace, iterative_bayesian_update
from ldp.mechanisms.base import Mechanism


def get_estimator(name: str, **params) -> Estimator:
    return ESTIMATORS.get(name)(**params)


def parse_estimators(spec: str | list[str], mechanism: Mechanism | None = None) -> list[str]:
    """Split a comma-separated list, check every name, and (given a mechanism) that each applies."""
    names = [s.strip().lower() for s in (spec.split(",") if isinstance(spec, str) else spec) if s.strip()]
    if not names:
        raise ValueError("no estimator given; choose from: " + ", ".join(ESTIMATORS.names()))
    for name in names:
        cls = ESTIMATORS.get(name)
        if mechanism is not None and not cls.applies_to(mechanism):
            ok = [e.name for e in ESTIMATORS if e.applies_to(mechanism)]
            raise ValueError(f"estimator {name} does not apply to {mechanism.name}; use one of: {', '.join(ok)}")
    return list(dict.fromkeys(names))


__all__ = [
    "ESTIMATORS", "Estimator", "IBUTrace", "answer_query", "base_cut", "base_cut_threshold", "base_pos",
    "get_estimator", "ibu_mle", "ibu_trace", "iterative_bayesian_update", "mle_apx", "norm", "norm_cut", "norm_mul",
    "norm_sub", "parse_estimators", "power", "power_ns",
]
