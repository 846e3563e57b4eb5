"""Metrics on frequency vectors."""

from __future__ import annotations

import numpy as np
import pytest

from ldp.evaluation.metrics import METRICS, compute_metrics, top_k_indices


def test_values():
    true = np.array([0.5, 0.3, 0.2, 0.0])
    est = np.array([0.4, 0.4, 0.2, -0.1])
    m = compute_metrics(true, est, k=2)
    assert m["mse"] == pytest.approx((0.01 + 0.01 + 0 + 0.01) / 4)
    assert m["mae"] == pytest.approx(0.3 / 4)
    assert m["l1"] == pytest.approx(0.3)
    assert m["max_abs"] == pytest.approx(0.1)
    assert m["topk_mse"] == pytest.approx(0.01)


def test_errors():
    with pytest.raises(ValueError, match="shapes"):
        compute_metrics(np.zeros(3), np.zeros(4))
    with pytest.raises(ValueError, match="k must be"):
        top_k_indices(np.zeros(3), 5)
    with pytest.raises(ValueError, match="unknown metric"):
        METRICS.get("nope")
