"""Every registered metric satisfies its identities (generated over the registry, ``METRIC_CASES``):

- m(x, x) = 0, and m ≥ 0 on any pair (distributions, and unclipped estimates that go negative);
- symmetry m(a, b) = m(b, a) where it holds (not the top-k MSE: its k values are the truth's most frequent);
- the triangle inequality where the metric is a distance (L1, MAE, max, W1, KS, the moment and decile gaps, range
  queries; not the squared errors);
- its bound between two distributions (or two means in [−1, 1]): the table's ``bound``, divided by d for the per-value
  averages (MSE, MAE); the extreme pairs (point masses at the two ends) are among the pairs tried;
- validation: a shape mismatch, NaN or infinity is refused with a one-line LDPError, as ``metric(…)`` and through
  ``compute_metrics``.

Ids read ``<metric>-<check>``, e.g. ``ks-check_bounded_on_distributions``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from ldp_test_support import METRIC_EDGES, Case, assert_ldp_error, parametrize_with_checks

import ldp
from ldp.evaluation.metrics import DEFAULT_METRICS, get_metric

D = 8
PAIRS = 20
SLACK = 1e-12  # rounding of sums of at most D terms of size ≤ 1 (≤ D·2⁻⁵³·bound), with room to spare


def metric(case: Case):
    return ldp.METRICS.get(case.name)


def call(case: Case, a: np.ndarray, b: np.ndarray) -> float:
    """The metric with its case's context (k; real-unit edges for the numerical ones)."""
    context = dict(case.facts["context"])
    context.pop("per_d", None)
    if context.pop("edges", False):
        context["edges"] = np.linspace(*METRIC_EDGES, a.size + 1)
    return metric(case)(a, b, **context)


def is_mean_metric(case: Case) -> bool:
    return metric(case).kinds == ("mean",)


def distributions(case: Case, count: int, seed: int) -> list[np.ndarray]:
    """Random distributions over D values (or means in [−1, 1]), the extremes first."""
    rng = np.random.default_rng(seed)
    if is_mean_metric(case):
        return [np.array([-1.0]), np.array([1.0])] + [rng.uniform(-1, 1, 1) for _ in range(count)]
    extremes = [np.eye(D)[0], np.eye(D)[-1], np.full(D, 1.0 / D)]
    return extremes + [rng.dirichlet(np.full(D, alpha)) for alpha in np.geomspace(0.1, 10, count)]


def estimates(case: Case, count: int, seed: int) -> list[np.ndarray]:
    """Distributions and unclipped estimates (negative entries, sums off one), as metrics are fed both."""
    rng = np.random.default_rng(seed + 1)
    shape = (1,) if is_mean_metric(case) else (D,)
    noisy = [x + rng.normal(0, 0.1, shape) for x in distributions(case, count, seed)]
    return distributions(case, count, seed) + noisy


def check_zero_on_identical_inputs(case: Case) -> None:
    for x in estimates(case, PAIRS, 1):
        assert call(case, x, x) == 0.0, f"{case.name}(x, x) = {call(case, x, x)!r}"


def check_non_negative(case: Case) -> None:
    xs, ys = estimates(case, PAIRS, 2), estimates(case, PAIRS, 3)
    for a in xs[:10]:
        for b in ys:
            assert call(case, a, b) >= 0.0


def check_symmetric(case: Case) -> None:
    xs, ys = estimates(case, PAIRS, 4), estimates(case, PAIRS, 5)
    for a, b in zip(xs, ys, strict=True):
        assert call(case, a, b) == pytest.approx(call(case, b, a), rel=1e-12, abs=SLACK)


def check_not_symmetric_as_declared(case: Case) -> None:
    """The table says symmetry does not hold: it must actually fail somewhere (or the table is wrong)."""
    xs, ys = estimates(case, PAIRS, 4), estimates(case, PAIRS, 5)
    assert any(abs(call(case, a, b) - call(case, b, a)) > 1e-9 for a, b in zip(xs, ys, strict=True))


def check_triangle_inequality(case: Case) -> None:
    xs, ys, zs = (estimates(case, PAIRS, s) for s in (6, 7, 8))
    for a, b, c in zip(xs, ys, zs, strict=True):
        assert call(case, a, c) <= call(case, a, b) + call(case, b, c) + SLACK


def check_bounded_on_distributions(case: Case) -> None:
    bound = case.facts["bound"] / (D if case.facts["context"].get("per_d") else 1)
    xs = distributions(case, PAIRS, 9)
    largest = max(call(case, a, b) for a in xs for b in xs)
    assert largest <= bound + SLACK, f"{case.name}: {largest!r} > bound {bound!r}"
    assert largest > 0.0, f"{case.name}: zero on every pair of distributions"


def check_validates_inputs(case: Case) -> None:
    shape = 1 if is_mean_metric(case) else D
    good = np.full(shape, 1.0 / shape)
    for a, b, match in [(good, np.full(shape + 1, 0.1), "different shapes"), (good, np.full(shape, np.nan), "NaN"),
                        (np.full(shape, np.inf), good, "NaN or infinity"), (good, np.full((2, shape), 0.1), "shapes")]:
        assert_ldp_error(lambda a=a, b=b: call(case, a, b), match)
        assert_ldp_error(lambda a=a, b=b: ldp.compute_metrics(a, b, [case.name], k=1))


def check_metadata(case: Case) -> None:
    m = metric(case)
    assert m.name == case.name and m.display_name and m.description and m.title and m.unit
    assert m.kinds and set(m.kinds) <= set(ldp.KINDS)
    assert get_metric(case.name) is m


def yield_metric_checks(case: Case) -> Iterator[Any]:
    yield check_metadata
    yield check_zero_on_identical_inputs
    yield check_non_negative
    yield check_symmetric if case.facts["symmetric"] else check_not_symmetric_as_declared
    if case.facts["triangle"]:
        yield check_triangle_inequality
    yield check_bounded_on_distributions
    yield check_validates_inputs


@parametrize_with_checks(ldp.METRICS, yield_metric_checks)
def test_metric(case, check):
    check(case)


def test_default_metrics_are_registered_for_their_kind():
    for kind, names in DEFAULT_METRICS.items():
        assert kind in ldp.KINDS
        for name in names:
            assert kind in get_metric(name).kinds, (kind, name)
