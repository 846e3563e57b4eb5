"""Error measures between a true frequency vector and an estimate, named as the UI shows them.

Each metric is registered in ``METRICS`` with a display name; ``compute_metrics`` evaluates a list.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ldp.core.registry import METRICS


@dataclass(frozen=True)
class Metric:
    name: str
    display_name: str
    description: str
    function: Callable[..., float] = field(repr=False)

    def __call__(self, true: np.ndarray, estimate: np.ndarray, **context: object) -> float:
        return float(self.function(np.asarray(true, dtype=np.float64), np.asarray(estimate, dtype=np.float64),
                                   **context))


def _check(true: np.ndarray, estimate: np.ndarray) -> None:
    if true.shape != estimate.shape:
        raise ValueError(f"true and estimate have different shapes {true.shape} and {estimate.shape}")


def mse(true: np.ndarray, estimate: np.ndarray, **_: object) -> float:
    """Mean squared error over the domain, (1/d) Σ (f − f̂)² (IBU paper §2.1)."""
    _check(true, estimate)
    return float(np.mean((true - estimate) ** 2))


def mae(true: np.ndarray, estimate: np.ndarray, **_: object) -> float:
    """Mean absolute error over the domain, (1/d) Σ |f − f̂| (IBU paper §2.1)."""
    _check(true, estimate)
    return float(np.mean(np.abs(true - estimate)))


def l1_distance(true: np.ndarray, estimate: np.ndarray, **_: object) -> float:
    _check(true, estimate)
    return float(np.sum(np.abs(true - estimate)))


def max_abs_error(true: np.ndarray, estimate: np.ndarray, **_: object) -> float:
    _check(true, estimate)
    return float(np.max(np.abs(true - estimate)))


def top_k_indices(true: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k most frequent true values (ties broken by index)."""
    if k < 1 or k > true.shape[0]:
        raise ValueError(f"k must be between 1 and the domain size {true.shape[0]}, got {k}")
    return np.argsort(-true, kind="stable")[:k]


def top_k_mse(true: np.ndarray, estimate: np.ndarray, k: int = 10, **_: object) -> float:
    """MSE restricted to the k most frequent true values (k is capped at d)."""
    _check(true, estimate)
    idx = top_k_indices(true, min(int(k), true.shape[0]))
    return float(np.mean((true[idx] - estimate[idx]) ** 2))


for _metric in (
    Metric("mse", "MSE", "mean squared error over all values", mse),
    Metric("mae", "MAE", "mean absolute error over all values", mae),
    Metric("l1", "L1", "sum of absolute errors (twice the total-variation distance for distributions)",
           l1_distance),
    Metric("max_abs", "Max abs error", "largest absolute error of any single value", max_abs_error),
    Metric("topk_mse", "Top-k MSE", "mean squared error over the k most frequent values", top_k_mse),
):
    METRICS.register(_metric)

DEFAULT_METRICS = ("mse", "mae", "l1", "max_abs", "topk_mse")


def compute_metrics(true: np.ndarray, estimate: np.ndarray, names: tuple[str, ...] | list[str] = DEFAULT_METRICS,
                    **context: object) -> dict[str, float]:
    """Evaluate the named metrics (``context`` passes e.g. ``k`` for top-k)."""
    return {name: METRICS.get(name)(true, estimate, **context) for name in names}


def _edge_differences(true: np.ndarray, estimate: np.ndarray, edges: np.ndarray | None) -> tuple[np.ndarray,
                                                                                                  np.ndarray]:
    widths = np.ones(true.shape[0]) if edges is None else np.diff(np.asarray(edges, dtype=np.float64))
    if widths.shape != true.shape:
        raise ValueError(f"edges must have d + 1 = {true.shape[0] + 1} entries")
    diff = np.concatenate([[0.0], np.cumsum(true - estimate)])
    return diff, widths


def wasserstein(true: np.ndarray, estimate: np.ndarray, edges: np.ndarray | None = None, **_: object) -> float:
    """Wasserstein-1 distance ∫|F − G| between the two histograms, mass uniform within each bin
    (bins of width 1 over the value order when no real-unit ``edges`` are given). F − G is linear in
    each bin, so each bin contributes w(|a|+|b|)/2, or w(a²+b²)/(2(|a|+|b|)) when it changes sign."""
    _check(true, estimate)
    diff, widths = _edge_differences(true, estimate, edges)
    a, b = diff[:-1], diff[1:]
    same = a * b >= 0
    denom = np.abs(a) + np.abs(b)
    crossing = np.divide(a * a + b * b, 2 * denom, out=np.zeros_like(a), where=denom > 0)
    return float(np.sum(widths * np.where(same, (np.abs(a) + np.abs(b)) / 2, crossing)))


def ks_distance(true: np.ndarray, estimate: np.ndarray, edges: np.ndarray | None = None, **_: object) -> float:
    """Kolmogorov–Smirnov distance max |F − G| of the cumulative distributions (attained at bin edges)."""
    _check(true, estimate)
    diff, _ = _edge_differences(true, estimate, edges)
    return float(np.max(np.abs(diff)))


METRICS.register(Metric("wasserstein", "Wasserstein", "earth mover's distance between the distributions "
                        "(in the data's unit for numerical data)", wasserstein))
METRICS.register(Metric("ks", "KS", "largest gap between the cumulative distributions", ks_distance))
