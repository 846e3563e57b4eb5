"""Scores of a heavy-hitter answer against the truth (the lecture's and PEM's metrics): precision and recall of
the found set against the true top k, F1, NCR (normalized cumulative rank: the i-th true heavy hitter weighs
k − i + 1, the score is the weight found over the total; Wang et al., TDSC 2021), the mean squared error of the
found values' estimated frequencies and their mean relative error |f̃ − f|/f (over the found values someone holds;
the itemset papers' measure)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ldp.core.errors import InvalidInput

__all__ = ["heavy_hitter_scores"]


def heavy_hitter_scores(found: np.ndarray, estimates: np.ndarray, true_values: np.ndarray,
                        frequency_of: Any) -> dict[str, float]:
    """``found`` values (best first) with their ``estimates``, the true top k ``true_values`` (most frequent first)
    and ``frequency_of(values) -> true frequencies``: precision, recall, F1, NCR and the MSE of the estimates."""
    found = np.asarray(found, dtype=np.uint64)
    truth = np.asarray(true_values, dtype=np.uint64)
    if truth.size == 0:
        raise InvalidInput("the true top k is empty")
    k = truth.size
    hits = np.isin(found, truth)
    precision = float(hits.mean()) if found.size else 0.0
    recall = float(np.isin(truth, found).mean())
    f1 = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
    weights = k - np.arange(k)  # the i-th true heavy hitter (1-based) weighs k − i + 1
    ncr = float(weights[np.isin(truth, found)].sum() / weights.sum())
    est = np.asarray(estimates, dtype=np.float64)
    true = np.asarray(frequency_of(found), dtype=np.float64) if found.size else np.zeros(0)
    mse = float(np.mean((est - true) ** 2)) if found.size else 0.0
    held = true > 0  # values nobody holds have no relative error
    relative = float(np.mean(np.abs(est[held] - true[held]) / true[held])) if held.any() else float("nan")
    return {"precision": precision, "recall": recall, "f1": f1, "ncr": ncr, "mse": mse, "relative_error": relative}
