"""Real units ↔ the unit interval (ldp.data.scale.ValueScale), the map numerical mechanisms work through."""

from __future__ import annotations

import numpy as np
import pytest

import ldp
from ldp.data import ValueScale, bucketize
from ldp.mechanisms.numerical.square_wave import SquareWave


def test_value_scale_round_trip_and_edges_match_bucketize():
    scale = ValueScale(20.0, 80.0)
    x = np.array([20.0, 35.5, 80.0])
    np.testing.assert_allclose(scale.from_unit(scale.to_unit(x)), x)
    np.testing.assert_allclose(scale.edges(6), bucketize(x, 6, value_range=(20, 80)).edges)
    with pytest.raises(ldp.LDPError, match="outside"):
        scale.to_unit([10.0])
    assert scale.to_unit([10.0, 90.0], clip=True).tolist() == [0.0, 1.0]
    with pytest.raises(ldp.LDPError, match="low < high"):
        ValueScale(1.0, 1.0)
    assert ValueScale.from_edges(scale.edges(4)) == scale
    sw = SquareWave(1.0, 6, b=0.25)
    np.testing.assert_allclose(sw.output_edges(scale)[[0, -1]], [20 - 15, 80 + 15])
    assert ldp.data.scale.ValueScale is ValueScale is ldp.mechanisms.numerical.ValueScale  # one class, re-exported


def test_value_scale_validation():
    scale = ValueScale(0.0, 10.0)
    assert scale.width == 10.0 and ValueScale() == ValueScale(0.0, 1.0)
    with pytest.raises(ldp.LDPError, match="two numbers"):
        ValueScale("a", 1.0)
    with pytest.raises(ldp.LDPError, match="finite"):
        ValueScale(0.0, np.inf)
    with pytest.raises(ldp.LDPError, match="1-D"):
        scale.to_unit(np.zeros((2, 2)))
    with pytest.raises(ldp.LDPError, match="finite"):
        scale.to_unit([np.nan])
    with pytest.raises(ldp.LDPError, match="two bin edges"):
        ValueScale.from_edges([1.0])
    np.testing.assert_allclose(scale.from_unit([-0.1, 1.2]), [-1.0, 12.0])  # reports may lie outside [0, 1]
