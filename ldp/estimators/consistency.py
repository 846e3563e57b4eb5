"""Matrix inversion and the consistency post-processors (Wang et al., "Locally Differentially
Private Frequency Estimation with Consistency", NDSS 2020, §IV)."""

from __future__ import annotations

import numpy as np

from ldp.estimators.base import Estimator
from ldp.mechanisms.base import Mechanism
from ldp.registry import ESTIMATORS

CONSISTENCY_PAPER = "Wang, Lopuhaä-Zwakenberg, Li, Škorić, Li — Frequency Estimation with Consistency (NDSS 2020)"


def norm_sub(estimate: np.ndarray) -> np.ndarray:
    """Norm-Sub (§IV-C): max(f̂_v − δ, 0) with δ chosen so the result sums to one.

    This is the exact constrained-least-squares solution (projection onto the probability simplex),
    computed by sorting in O(d log d).
    """
    x = np.asarray(estimate, dtype=np.float64)
    srt = np.sort(x)[::-1]
    cums = np.cumsum(srt) - 1.0
    idx = np.arange(1, x.shape[0] + 1)
    ok = srt - cums / idx > 0
    rho = int(np.nonzero(ok)[0][-1]) + 1
    delta = cums[rho - 1] / rho
    return np.maximum(x - delta, 0.0)


@ESTIMATORS.register
class MatrixInversion(Estimator):
    """Raw matrix inversion (Base): Eq. (2) of the IBU paper, unbiased and unclipped."""

    name = "mi"
    display_name = "MI (Base)"
    description = "Matrix inversion: unbiased, may be negative and not sum to one"
    paper = "IBU paper Eq. (2); " + CONSISTENCY_PAPER + " (Base)"

    def _estimate(self, mechanism: Mechanism, counts: np.ndarray, n: int) -> np.ndarray:
        return mechanism.estimate(counts, n)


@ESTIMATORS.register
class NormSub(Estimator):
    """Matrix inversion followed by Norm-Sub (consistent: non-negative, sums to one)."""

    name = "norm-sub"
    display_name = "Norm-Sub"
    description = "Subtract a common δ and clip at zero so the estimate is a distribution (exact CLS)"
    paper = CONSISTENCY_PAPER + ", §IV (Norm-Sub)"
    consistent = True

    def _estimate(self, mechanism: Mechanism, counts: np.ndarray, n: int) -> np.ndarray:
        return norm_sub(mechanism.estimate(counts, n))
