"""Estimator base class: an estimator maps (mechanism, support counts, n) to a frequency vector.

Subclasses implement ``_estimate``; the base class validates inputs and declares which mechanisms
the estimator applies to. Estimators are registered in ``ESTIMATORS`` under their command-line name.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np

from ldp.core.params import Param, resolve_params
from ldp.mechanisms.base import Mechanism


class Estimator(ABC):
    name: ClassVar[str]
    display_name: ClassVar[str]
    description: ClassVar[str]
    paper: ClassVar[str]
    parameters: ClassVar[tuple[Param, ...]] = ()
    requires_pure: ClassVar[bool] = False
    # promises: output sums to one and is non-negative
    consistent: ClassVar[bool] = False
    # Post-Pos: the vector is left as is and query answers (sums over subsets) are clipped at zero
    clip_queries: ClassVar[bool] = False

    def __init__(self, **params: Any) -> None:
        self.params = resolve_params(self.name, self.parameters, params)

    @classmethod
    def applies_to(cls, mechanism: Mechanism) -> bool:
        return mechanism.pure or not cls.requires_pure

    def estimate(self, mechanism: Mechanism, counts: np.ndarray, n: int) -> np.ndarray:
        c = np.asarray(counts, dtype=np.float64)
        if c.shape != (mechanism.d,):
            raise ValueError(f"{self.name}: counts must have length d={mechanism.d}, got {c.shape}")
        if not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"{self.name}: n must be a positive integer, got {n!r}")
        if not self.applies_to(mechanism):
            raise ValueError(f"estimator {self.name} does not apply to {mechanism.name}")
        return self._estimate(mechanism, c, int(n))

    @abstractmethod
    def _estimate(self, mechanism: Mechanism, counts: np.ndarray, n: int) -> np.ndarray: ...
