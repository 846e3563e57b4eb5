"""Helpers shared by test modules (a plain module: ``conftest`` is not importable by name, since
tests/e2e has its own conftest.py).

Every mechanism follows one protocol, but its inputs depend on its kind: frequency oracles and the discrete
square wave take codes in [0, d), numerical mechanisms reals in [0, 1], mean mechanisms reals in [−1, 1]
(and their ``d`` is the dimension, 1). These helpers build a mechanism and valid inputs and populations of
any kind, so conformance tests can run over the whole registry; the tables at the end (``MECHANISM_CASES``,
``ESTIMATOR_CASES``, ``METRIC_CASES``) and :func:`parametrize_with_checks` generate the conformance suite.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

import ldp

# Statistical checks: a correct sampler fails a 5σ check with probability about 6e-7 (normal approximation).
SIGMAS = 5.0

# Extra parameters that keep exact channels enumerable on small domains (hash prime P ≥ d).
SMALL_DOMAIN_PARAMS: dict[str, dict] = {"blh": {"prime": 5}, "olh": {"prime": 5}, "l-blh": {"prime": 5},
                                        "l-olh": {"prime": 5},
                                        # FLH: k' · g outputs; CMS: k · 2^m
                                        "flh": {"pool": 64}, "cms": {"k": 4, "m": 4}, "hcms": {"k": 4, "m": 4},
                                        # RAPPOR: m · 2^k outputs; at k = 6, m = 4 values 0 and 1 have disjoint
                                        # Bloom bits in some cohort, so the exact channel attains ε1
                                        "rappor": {"k": 6, "m": 4}}


def kind_of(name: str) -> str:
    return ldp.MECHANISMS.get(name).kind


#: The dimension vector mechanisms are tested at (a population of d cells is d distinct vectors of this many
#: coordinates): 3 keeps their exact densities enumerable and the even/odd corners of Duchi's mechanism apart.
VECTOR_D = 3


def domain(name: str, d: int) -> int | None:
    """The ``d`` to pass for a population of ``d`` cells: mean mechanisms take the dimension (default 1), vector
    mechanisms ``VECTOR_D``."""
    kind = kind_of(name)
    return None if kind == "mean" else VECTOR_D if kind == "vector" else d


def build(name: str, epsilon: float, d: int, **extra):
    """The mechanism ``name`` at ε for ``d`` values or buckets (mean mechanisms: dimension 1)."""
    params = dict(SMALL_DOMAIN_PARAMS.get(name, {})) if d <= 5 else {}
    params.update(extra)
    return ldp.get_mechanism(name, epsilon, domain(name, d), **params)


def report_epsilon(mechanism) -> float:
    """The budget one report is meant to spend: ε, or ε1 for longitudinal mechanisms."""
    return mechanism.params["epsilon_1"] if mechanism.collection == "longitudinal" else mechanism.epsilon


def sample_inputs(mechanism, m: int, rng: np.random.Generator) -> np.ndarray:
    """``m`` valid inputs of the mechanism: codes in [0, d), reals in [0, 1] or reals in [−1, 1]."""
    if mechanism.input_kind == "codes":
        return rng.integers(0, mechanism.d, m)
    if mechanism.input_kind == "unit":
        return rng.random(m)
    if mechanism.input_kind == "vector":
        return 2.0 * rng.random((m, mechanism.d)) - 1.0
    return 2.0 * rng.random(m) - 1.0


def support_values(mechanism, cells: int) -> np.ndarray | None:
    """The values of a population's cells: None except for mechanisms whose population is given by its values —
    mean mechanisms (``cells`` points of [−1, 1]) and vector mechanisms (``cells`` vectors: coordinate j runs from
    −1 to 1 shifted by j/d and wrapped, so the coordinates differ and the corners ±1 occur)."""
    if not mechanism.population_by_support:
        return None
    line = np.linspace(-1.0, 1.0, cells)
    if mechanism.input_kind != "vector":
        return line
    shifts = np.arange(mechanism.d) * (cells // max(1, mechanism.d))
    return np.stack([np.roll(line, int(s)) for s in shifts], axis=1)


def out_of_range_inputs(mechanism) -> list[np.ndarray]:
    """Inputs each holding one value outside the mechanism's input domain."""
    if mechanism.input_kind == "codes":
        return [np.array([0, mechanism.d]), np.array([-1])]
    if mechanism.input_kind == "vector":
        ok = np.zeros((2, mechanism.d))
        return [np.where(np.arange(mechanism.d) == 0, 1.5, 0.0)[None, :], ok - 1.25, np.full((1, mechanism.d), np.nan)]
    low = 0.0 if mechanism.input_kind == "unit" else -1.0
    return [np.array([0.5, 1.5]), np.array([low - 0.25]), np.array([np.nan])]


class FixedUniforms:
    """A random source whose ``random`` returns given uniforms, in order (to check a sampler's formula exactly:
    its main draws, then its second draws)."""

    def __init__(self, *blocks: np.ndarray) -> None:
        self.u = np.concatenate([np.ravel(np.asarray(b, dtype=np.float64)) for b in blocks])
        self.used = 0

    def random(self, size=None):  # noqa: ANN001, ANN201
        count = int(np.prod(size))
        out = self.u[self.used:self.used + count].reshape(size).copy()
        self.used += count
        return out

    def integers(self, *args, **kwargs):  # noqa: ANN002, ANN003, ANN201
        raise AssertionError("this source gives uniforms only")


def assert_frequency(hits: float, n: int, p: float, what: str = "") -> None:
    """hits/n within 5 binomial standard deviations of p (exact equality when p is 0 or 1)."""
    freq = hits / n
    tol = SIGMAS * math.sqrt(p * (1 - p) / n)
    assert abs(freq - p) <= tol, f"{what}: frequency {freq:.6g} vs p = {p:.6g} (tolerance {tol:.3g}, n = {n})"


def assert_ldp_error(action: Callable[[], Any], match: str | None = None) -> ldp.LDPError:
    """``action()`` raises :class:`ldp.LDPError` whose message is one non-empty line (matching ``match``)."""
    with pytest.raises(ldp.LDPError, match=match) as info:
        action()
    message = str(info.value)
    assert message.strip() and "\n" not in message, f"not a one-line message: {message!r}"
    return info.value


def bad_aggregates(size: int) -> list[tuple[Any, Any, str]]:
    """(statistic, n, message pattern) triples that no mechanism with a statistic of ``size`` entries accepts."""
    zeros = np.zeros(size)
    return [(np.full(size, np.nan), 10, "NaN"), (np.full(size, np.inf), 10, "NaN or infinite"),
            (np.zeros(size + 1), 10, "entries"), (np.zeros((2, size)), 10, "entries"),
            (np.array(["a"] * size), 10, "numbers"),
            (zeros, 0, "n must be a positive integer"), (zeros, -1, "n must be a positive integer"),
            (zeros, 1000.7, "n must be a positive integer"), (zeros, True, "n must be a positive integer"),
            (zeros, "10", "n must be a positive integer"), (zeros, math.nan, "n must be a positive integer")]


# =====================================================================================================================
# The conformance suite's tables and generator (tests/conformance/): scikit-learn's ``parametrize_with_checks`` over
# every registry, with a table of sane parameters per component in the style of scipy.stats' ``distcont``.
# =====================================================================================================================
@dataclass(frozen=True, eq=False)
class Case:
    """One test configuration of a registered component: its registry (``"mechanism"``, ``"estimator"`` or
    ``"metric"``), its ``name``, the constructor ``params`` and the ``facts`` the checks need to know about it
    (what the component promises beyond its class metadata). Compared and hashed by identity: the tables hold
    each configuration once, so caches of draws can be keyed by the case."""

    registry: str
    name: str
    params: Mapping[str, Any] = field(default_factory=dict)
    facts: Mapping[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        """``name`` or ``name(key=value,…)``: the first part of a generated check's id."""
        if not self.params:
            return self.name
        return f"{self.name}({','.join(f'{k}={v}' for k, v in self.params.items())})"

    def __repr__(self) -> str:
        return f"Case({self.registry} {self.id})"

    # ------------------------------------------------------------------ mechanisms
    def mechanism(self, epsilon: float = 1.0, d: int = 16, **extra: Any):
        """The configured mechanism at ε for a population of ``d`` cells (small-domain primes for d ≤ 5)."""
        return build(self.name, epsilon, d, **{**self.params, **extra})

    # ------------------------------------------------------------------ estimators
    def estimator(self):
        return ldp.get_estimator(self.name, **self.params)


def mechanism_case(name: str, fast: str | None = None, covariance: bool = True, estimate_variance: bool | None = None,
                   **params: Any) -> Case:
    """A mechanism's test configuration.

    ``fast`` — what its fast engine promises where the class does not say "exact in distribution"
    (``fast_engine_exact = False``, see its ``fast_engine_note``): ``"distribution"`` (exact after all, for these
    parameters), ``"marginals"`` (every entry's distribution exact) or ``"moments"`` (the exact mean and variance).
    ``covariance`` — whether it also promises the exact covariance between entries (not Carter–Wegman local
    hashing: its note says so). ``estimate_variance`` — whether its own estimate has a closed-form variance
    (default: every kind but numerical distributions, whose reconstructions are biased).
    """
    cls = ldp.MECHANISMS.get(name) if name in ldp.MECHANISMS else None  # a stale entry fails test_suite.py
    promise = "distribution" if cls is not None and cls.fast_engine_exact else fast
    if estimate_variance is None:
        estimate_variance = cls is not None and cls.kind != "numerical"
    return Case("mechanism", name, params, {"fast": promise, "covariance": covariance,
                                            "estimate_variance": estimate_variance})


#: Every registered mechanism's test configurations: the first is its default (the estimator suite runs on it),
#: further ones exercise distinct code paths; every configuration gets every mechanism check. A registered
#: mechanism missing here fails the suite.
MECHANISM_CASES: dict[str, list[Case]] = {
    "grr": [mechanism_case("grr")],
    "sue": [mechanism_case("sue")],
    "oue": [mechanism_case("oue")],
    "the": [mechanism_case("the"), mechanism_case("the", theta=0.75)],
    "she": [mechanism_case("she")],
    "ss": [mechanism_case("ss", fast="moments")],
    "blh": [mechanism_case("blh", fast="marginals", covariance=False)],
    "olh": [mechanism_case("olh", fast="marginals", covariance=False),
            mechanism_case("olh", fast="marginals", covariance=False, g=3)],
    "hr": [mechanism_case("hr", fast="marginals")],
    "hadamard": [mechanism_case("hadamard", fast="marginals"), mechanism_case("hadamard", fast="marginals", t=2),
                 mechanism_case("hadamard", fast="marginals", t=3)],
    "cms": [mechanism_case("cms")],
    "hcms": [mechanism_case("hcms"), mechanism_case("hcms", k=4, m=8)],
    "flh": [mechanism_case("flh", fast="marginals", covariance=False),
            mechanism_case("flh", fast="marginals", covariance=False, pool=200, g=3)],
    # d' = 1 (1BitFlip): exact in distribution (multinomial buckets); d' > 1: exact marginals, no covariance
    "dbitflip": [mechanism_case("dbitflip", fast="distribution"),
                 mechanism_case("dbitflip", fast="marginals", covariance=False, d_prime=2)],
    "l-grr": [mechanism_case("l-grr")],
    "l-sue": [mechanism_case("l-sue")],
    "l-oue": [mechanism_case("l-oue")],
    "l-soue": [mechanism_case("l-soue")],
    "l-osue": [mechanism_case("l-osue")],
    "l-blh": [mechanism_case("l-blh", fast="marginals", covariance=False)],
    "l-olh": [mechanism_case("l-olh", fast="marginals", covariance=False)],
    "rappor": [mechanism_case("rappor"), mechanism_case("rappor", h=1, m=8, p=0.25, q=0.9)],
    "sw": [mechanism_case("sw"), mechanism_case("sw", d_tilde=24)],
    "sw-discrete": [mechanism_case("sw-discrete"), mechanism_case("sw-discrete", b=1)],
    "cfo-binning": [mechanism_case("cfo-binning", fast="marginals", covariance=False, oracle="olh"),
                    mechanism_case("cfo-binning", fast="distribution", oracle="grr", bins=4)],
    "gw": [mechanism_case("gw"), mechanism_case("gw", shape="trapezoid:0.5")],
    "hh": [mechanism_case("hh", fast="marginals", covariance=False),  # GRR and OLH layers at d = 16
           mechanism_case("hh", fast="distribution", oracle="grr", branching=2)],
    "haar-hrr": [mechanism_case("haar-hrr")],
    "sr": [mechanism_case("sr")],
    "pm": [mechanism_case("pm", fast="moments")],
    "laplace": [mechanism_case("laplace")],
    "hm": [mechanism_case("hm", fast="moments")],
    "1bitmean": [mechanism_case("1bitmean")],
    # (ε, δ): the privacy suite checks their closed-form privacy profile instead of a bounded density ratio
    "gaussian": [mechanism_case("gaussian"), mechanism_case("gaussian", delta=1e-3)],
    "gaussian-bits": [mechanism_case("gaussian-bits"), mechanism_case("gaussian-bits", bins=5)],
    # vectors (d = VECTOR_D): each coordinate's sum is a moment-matched Gaussian on the fast engine, independently of
    # the others (the sampled families correlate coordinates within a user: no covariance promise)
    "split-laplace": [mechanism_case("split-laplace", fast="moments")],
    "split-sr": [mechanism_case("split-sr", fast="moments")],
    "split-pm": [mechanism_case("split-pm", fast="moments")],
    "split-hm": [mechanism_case("split-hm", fast="moments")],
    "harmony": [mechanism_case("harmony", fast="moments", covariance=False)],
    "sample-pm": [mechanism_case("sample-pm", fast="moments", covariance=False)],
    "kd-pm": [mechanism_case("kd-pm", fast="moments", covariance=False)],
    "kd-hm": [mechanism_case("kd-hm", fast="moments", covariance=False)],
    "duchi": [mechanism_case("duchi", fast="moments", covariance=False)],
    "gaussian-vector": [mechanism_case("gaussian-vector")],
}


def estimator_case(name: str, **params: Any) -> Case:
    return Case("estimator", name, params)


#: Every registered estimator's test configurations (parameters that keep the suite fast where the default is
#: heavy, and the variants with distinct code paths). A registered estimator missing here fails the suite.
ESTIMATOR_CASES: dict[str, list[Case]] = {
    "mi": [estimator_case("mi")],
    "norm-sub": [estimator_case("norm-sub")],
    "base-pos": [estimator_case("base-pos")],
    "post-pos": [estimator_case("post-pos")],
    "base-cut": [estimator_case("base-cut"), estimator_case("base-cut", alpha=0.5)],
    "base-cut-k": [estimator_case("base-cut-k"), estimator_case("base-cut-k", k=3)],
    "norm": [estimator_case("norm")],
    "norm-mul": [estimator_case("norm-mul")],
    "norm-cut": [estimator_case("norm-cut")],
    "mle-apx": [estimator_case("mle-apx")],
    "power": [estimator_case("power")],
    "power-ns": [estimator_case("power-ns")],
    # the contract does not depend on the iteration cap; 2000 instead of 10,000 keeps 24 mechanisms × 5 checks quick
    "ibu": [estimator_case("ibu", max_iter=2000), estimator_case("ibu", method="mle")],
    "dw": [estimator_case("dw")],
    "iiw": [estimator_case("iiw")],
    "iiw-g": [estimator_case("iiw-g")],
    "amrp": [estimator_case("amrp", permutations=20)],
    "dw-blind": [estimator_case("dw-blind")],
    "smooth": [estimator_case("smooth"), estimator_case("smooth", boundary="wrap")],
    "gf": [estimator_case("gf"), estimator_case("gf", sigma=3.0, boundary="wrap")],
    "gf-dw": [estimator_case("gf-dw")],
    "ems": [estimator_case("ems")],
    "em": [estimator_case("em")],
    "hh-admm": [estimator_case("hh-admm")],
    "hh-ci": [estimator_case("hh-ci")],
    "haar": [estimator_case("haar")],
    "haar-ns": [estimator_case("haar-ns")],
    "average": [estimator_case("average")],
}


def metric_case(name: str, *, symmetric: bool, bound: float, triangle: bool = False, **context: Any) -> Case:
    """A metric's test configuration: whether m(a, b) = m(b, a), its largest value between two distributions
    (on the unit-width domain of :data:`METRIC_EDGES` for numerical metrics, between means in [−1, 1] for mean
    metrics), whether it obeys the triangle inequality, and the context it is called with."""
    return Case("metric", name, {}, {"symmetric": symmetric, "bound": bound, "triangle": triangle,
                                      "context": context})


#: Real-unit edges the numerical metrics are evaluated on: a domain of length L = 2 (so the bounds below are
#: L for distances, L²/4 for the variance error).
METRIC_EDGES = (-0.5, 1.5)

#: Every registered metric with the identities it must satisfy. Bounds on two distributions p, q over d values:
#: MSE ≤ 2/d (Σ(p − q)² ≤ Σ|p − q| ≤ 2), MAE = L1/d ≤ 2/d, L1 ≤ 2 (twice the total variation), max abs ≤ 1,
#: top-k MSE ≤ 1, KS ≤ 1, W1 ≤ L, |Δmean| ≤ L, |Δvariance| ≤ L²/4 (Popoviciu), deciles' gap ≤ L, range answers
#: are fractions (≤ 1); means in [−1, 1]: |Δ| ≤ 2, Δ² ≤ 4. A registered metric missing here fails the suite.
METRIC_CASES: dict[str, list[Case]] = {
    "mse": [metric_case("mse", symmetric=True, bound=2.0, per_d=True)],
    "mae": [metric_case("mae", symmetric=True, bound=2.0, per_d=True, triangle=True)],
    "l1": [metric_case("l1", symmetric=True, bound=2.0, triangle=True)],
    "max_abs": [metric_case("max_abs", symmetric=True, bound=1.0, triangle=True)],
    "topk_mse": [metric_case("topk_mse", symmetric=False, bound=1.0, k=3)],
    "wasserstein": [metric_case("wasserstein", symmetric=True, bound=2.0, triangle=True, edges=True)],
    "ks": [metric_case("ks", symmetric=True, bound=1.0, triangle=True, edges=True)],
    "mean_error": [metric_case("mean_error", symmetric=True, bound=2.0, triangle=True, edges=True)],
    "variance_error": [metric_case("variance_error", symmetric=True, bound=1.0, triangle=True, edges=True)],
    "quantile_error": [metric_case("quantile_error", symmetric=True, bound=2.0, triangle=True, edges=True)],
    "range_mae": [metric_case("range_mae", symmetric=True, bound=1.0, triangle=True, edges=True)],
    "abs_error": [metric_case("abs_error", symmetric=True, bound=2.0, triangle=True)],
    "squared_error": [metric_case("squared_error", symmetric=True, bound=4.0)],
}

CASES: dict[str, dict[str, list[Case]]] = {"mechanism": MECHANISM_CASES, "estimator": ESTIMATOR_CASES,
                                          "metric": METRIC_CASES}


def check_id(check: Callable[..., Any]) -> str:
    """``check_name`` or ``check_name(key=value,…)`` for a check given as a function or a partial."""
    if isinstance(check, functools.partial):
        args = ",".join(f"{k}={getattr(v, 'id', v)}" for k, v in check.keywords.items())
        return f"{check.func.__name__}({args})" if args else check.func.__name__
    return check.__name__


def missing_test_configuration(case: Case) -> None:
    pytest.fail(f"{case.registry} {case.name!r} is registered but has no test configuration: add it to "
                f"{case.registry.upper()}_CASES in tests/ldp_test_support.py (its sane parameters and the facts the "
                "conformance checks need)")


def generate_checks(registry: Any, yield_checks: Callable[[Case], Iterable[Any]]) -> list[Any]:
    """The (case, check) pairs of every component of ``registry`` as ``pytest.param``s with readable ids
    (``<component>(<params>)-<check>(<arguments>)``). ``yield_checks(case)`` yields checks — callables taking the
    case, or ``pytest.param(check, marks=…)`` to mark one. A component without a configuration in :data:`CASES`
    gets the failing check :func:`missing_test_configuration`, never a silent skip."""
    table = CASES[registry.kind]
    pairs = []
    for name in registry.names():
        cases = table.get(name)
        if not cases:
            case = Case(registry.kind, name)
            pairs.append(pytest.param(case, missing_test_configuration, id=f"{name}-missing_test_configuration"))
            continue
        for case in cases:
            for item in yield_checks(case):
                marks: Any = ()
                if hasattr(item, "marks") and hasattr(item, "values"):  # a pytest.param(check, marks=…)
                    (item, ), marks = item.values, item.marks
                pairs.append(pytest.param(case, item, id=f"{case.id}-{check_id(item)}", marks=marks))
    ids = [p.id for p in pairs]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise RuntimeError(f"generated check ids are not unique: {duplicates[:5]}")
    return pairs


def parametrize_with_checks(registry: Any, yield_checks: Callable[[Case], Iterable[Any]]) -> Any:
    """``@parametrize_with_checks(ldp.MECHANISMS, yield_privacy_checks)`` over ``def test_…(case, check)``:
    scikit-learn's ``parametrize_with_checks`` for one of the library's registries. Registering a component adds
    its checks; registering one without a test configuration adds a failing check."""
    return pytest.mark.parametrize("case, check", generate_checks(registry, yield_checks))
