"""LDP Explorer's engine: local differential privacy mechanisms of every kind, simulation engines, estimators,
metrics and data handling. Data flows one way (see ``docs/design.md``):

>>> import ldp
>>> mech = ldp.get_mechanism("oue", epsilon=1.0, d=100)
>>> result = ldp.simulate(mech, true_counts, estimators=["mi", "norm-sub"], engine="fast", seed=1)
"""

from ldp.core.errors import ConvergenceWarning, InvalidInput, LDPError, NotAvailable
from ldp.core.randomness import SecureRandom, make_rng
from ldp.core.registry import ESTIMATORS, MECHANISMS, METRICS, PROTOCOLS, TASKS
from ldp.core.results import Aggregate, Estimate
from ldp.engines import aggregate_reports, collect, run_exact, run_fast
from ldp.estimators import Estimator, estimate_all, get_estimator, norm_sub
from ldp.evaluation.metrics import compute_metrics
from ldp.mechanisms import KINDS, Mechanism, get_mechanism, mechanisms_of
from ldp.mechanisms.protocol import PROTOCOL_KINDS, Protocol, protocols_of
from ldp.simulation import SimulationResult, simulate, sweep
from ldp.studies import itemsets as _itemsets  # noqa: F401 - registers the itemset miners in PROTOCOLS

__version__ = "0.2.0"

__all__ = [
    "ESTIMATORS", "KINDS", "MECHANISMS", "METRICS", "PROTOCOLS", "PROTOCOL_KINDS", "TASKS", "Protocol",
    "protocols_of", "Aggregate", "ConvergenceWarning", "Estimate", "Estimator",
    "InvalidInput", "LDPError", "Mechanism", "NotAvailable",
    "SecureRandom", "SimulationResult", "aggregate_reports", "collect", "compute_metrics", "estimate_all",
    "get_estimator", "get_mechanism", "make_rng", "mechanisms_of", "norm_sub", "run_exact", "run_fast", "simulate",
    "sweep",
]
