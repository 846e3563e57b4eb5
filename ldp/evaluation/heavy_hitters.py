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
    """Score a heavy-hitter answer against the true top k.

    ``found`` values (best first) with their ``estimates``, the true top k ``true_values`` (most frequent first)
    and ``frequency_of(values) -> true frequencies``: precision, recall, F1, NCR and the MSE of the estimates.

    Parameters
    ----------
    found : array_like of int
        The values the protocol reported as heavy, best first (read as uint64; may be empty).
    estimates : array_like of float
        Their estimated frequencies, aligned with ``found``.
    true_values : array_like of int
        The true top k values, most frequent first (k ≥ 1).
    frequency_of : callable
        Maps an array of values to their true frequencies (fractions of n; 0 for values nobody holds).

    Returns
    -------
    dict of str to float
        ``precision`` (share of ``found`` in the true top k; 0 when nothing was found), ``recall`` (share of the top k
        found), ``f1``, ``ncr`` (the i-th true heavy hitter weighs k − i + 1), ``mse`` of the found values' estimates,
        and ``relative_error`` (mean |f̃ − f|/f over found values someone holds; NaN if none).

    Raises
    ------
    InvalidInput
        If ``true_values`` is empty.

    References
    ----------
    The lecture's heavy-hitter metrics (precision/recall/F1); NCR: Wang et al., "Locally differentially private
    heavy hitter identification", TDSC 2021.
    """
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
