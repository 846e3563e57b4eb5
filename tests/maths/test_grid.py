"""The explicit output grid (Mironov's snapping) that every continuous client reports on."""

import numpy as np
import pytest

from ldp.maths.grid import OutputGrid, power_of_two_at_most


def test_snap_is_the_nearest_point_and_a_function_of_the_index_alone():
    grid = OutputGrid(0.0, 2.0 ** -10, -2048, 3072)
    y = np.random.default_rng(0).uniform(-3, 4, 10_000)
    snapped = grid.snap(y)
    assert np.array_equal(snapped, grid.value(grid.index(y)))  # bit for bit
    inside = (y > -2) & (y < 3)
    assert np.all(np.abs(snapped[inside] - y[inside]) <= grid.step / 2)
    assert snapped.min() == -2.0 and snapped.max() == 3.0  # clamped to the ends
    assert grid.contains(snapped).all() and not grid.contains(np.array([2.0 ** -11])).any()
    assert not np.signbit(grid.snap(np.array([-1e-9, -0.0]))).any()  # no −0.0 escapes


def test_ties_go_to_even_indices_so_symmetric_noise_stays_symmetric():
    grid = OutputGrid(0.0, 1.0, -5, 5)
    assert grid.snap(np.array([0.5, -0.5, 1.5, -1.5])).tolist() == [0.0, 0.0, 2.0, -2.0]


def test_bad_grids_are_refused():
    with pytest.raises(ValueError):
        OutputGrid(0.0, 0.0, 0, 1)
    with pytest.raises(ValueError):
        OutputGrid(0.0, 1.0, 2, 1)
    assert power_of_two_at_most(3.0) == 2.0 and power_of_two_at_most(0.3) == 0.25
