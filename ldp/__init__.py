"""LDP Explorer's engine: local differential privacy mechanisms, simulation engines, estimators,
metrics and data handling.

>>> import ldp
>>> mech = ldp.get_mechanism("oue", epsilon=1.0, d=100)
>>> result = ldp.simulate(mech, true_counts, estimators=["mi", "norm-sub"], engine="fast", seed=1)
"""

from ldp.core.randomness import SecureRandom, make_rng
from ldp.engines import Aggregate, aggregate_reports, collect, run_exact, run_fast
from ldp.estimators import ESTIMATORS, Estimator, get_estimator, norm_sub
from ldp.evaluation.metrics import METRICS, compute_metrics
from ldp.mechanisms import MECHANISMS, Mechanism, get_mechanism
from ldp.simulation import SimulationResult, simulate, sweep

__version__ = "0.1.0"

__all__ = [
    "ESTIMATORS", "MECHANISMS", "METRICS", "Aggregate", "Estimator", "Mechanism", "SecureRandom",
    "SimulationResult", "aggregate_reports", "collect", "compute_metrics", "get_estimator", "get_mechanism",
    "make_rng", "norm_sub", "run_exact", "run_fast", "simulate", "sweep",
]
