"""The Sylvester–Hadamard matrix and its fast transform (ldp.maths.hadamard)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import hadamard

from ldp.maths.hadamard import fwht, hadamard_sign


@pytest.mark.parametrize("m", [1, 2, 16, 64])
def test_fwht_matches_hadamard_matrix(m):
    x = np.random.default_rng(m).normal(size=m)
    np.testing.assert_allclose(fwht(x), hadamard(m) @ x, atol=1e-10)
    np.testing.assert_allclose(fwht(fwht(x)), m * x, atol=1e-10)  # H² = m I
    assert fwht(x) is not x


def test_hadamard_sign_is_the_matrix_entry():
    idx = np.arange(32)
    np.testing.assert_array_equal(hadamard_sign(idx[:, None], idx[None, :]), hadamard(32))
    assert hadamard_sign(np.int64(6), np.int64(3)) == -1  # 6 & 3 = 2: one common bit
    assert hadamard_sign(np.int64(5), np.int64(2)) == 1
