"""Precision, recall, F1, NCR and MSE of a heavy-hitter answer (ldp.evaluation.heavy_hitters)."""

from __future__ import annotations

import numpy as np
import pytest

from ldp.evaluation.heavy_hitters import heavy_hitter_scores


def test_ncr_weighs_the_true_ranks():
    truth = np.array([10, 20, 30, 40], dtype=np.uint64)  # weights 4, 3, 2, 1
    freq = {10: 0.4, 20: 0.3, 30: 0.2, 40: 0.1}
    found = np.array([10, 40, 99], dtype=np.uint64)
    s = heavy_hitter_scores(found, np.array([0.5, 0.1, 0.05]), truth, lambda vs: [freq.get(int(v), 0.0) for v in vs])
    assert s["precision"] == pytest.approx(2 / 3) and s["recall"] == pytest.approx(0.5)
    assert s["ncr"] == pytest.approx((4 + 1) / 10)
    assert s["f1"] == pytest.approx(2 * (2 / 3) * 0.5 / (2 / 3 + 0.5))
    assert s["mse"] == pytest.approx(((0.5 - 0.4) ** 2 + 0 + 0.05 ** 2) / 3)
    assert s["relative_error"] == pytest.approx((0.1 / 0.4 + 0.0) / 2)  # value 99 is held by nobody: left out
    perfect = heavy_hitter_scores(truth, np.array([0.4, 0.3, 0.2, 0.1]), truth, lambda vs: [freq[int(v)] for v in vs])
    assert perfect == {"precision": 1.0, "recall": 1.0, "f1": 1.0, "ncr": 1.0, "mse": 0.0, "relative_error": 0.0}
