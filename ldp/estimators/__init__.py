"""Every estimator in one registry (``ESTIMATORS``); importing this package registers them.

Matrix inversion and the consistency post-processors (:mod:`.consistency`), IBU (:mod:`.ibu`), Wiener
deconvolution (:mod:`.wiener`; without knowing ε: :mod:`.blind`), the numerical reconstructions and the mean
(:mod:`.reconstruction`). Use :func:`estimate_all` to run several on one collection (each base estimate computed once).
"""

from ldp.core.registry import ESTIMATORS

# isort: off
from ldp.estimators import consistency, ibu, wiener, blind, reconstruction  # noqa: F401  (registration, listing order)
# isort: on
from ldp.estimators.base import (
    Estimator,
    PostProcessor,
    estimate_all,
    get_estimator,
    parse_estimators,
    resolve_estimators,
)
from ldp.estimators.consistency import answer_query
from ldp.estimators.ibu import ibu_mle, iterative_bayesian_update
from ldp.maths.simplex import norm_sub

__all__ = ["ESTIMATORS", "Estimator", "PostProcessor", "answer_query", "estimate_all", "get_estimator",
           "ibu_mle", "iterative_bayesian_update", "norm_sub", "parse_estimators",
           "resolve_estimators"]
