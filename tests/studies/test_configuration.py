"""A simulation configuration (ldp.studies.configuration): what a page downloads and ``ldp simulate --config``
re-runs — round trip, validation, and the uploaded-table case that needs the file."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import ldp
from ldp.studies.configuration import SimulationConfiguration
from ldp.studies.datasets import dataset_from_source, table_dataset


def test_round_trip_and_run_are_deterministic():
    config = SimulationConfiguration(source={"synthetic": "zipf", "d": 20, "s": 1.2, "users": 1000, "formula": None},
                                     mechanism="grr", epsilon=2.0, users=5000, estimators=(("mi", {}),
                                                                                           ("norm-sub", {})), seed=3)
    again = SimulationConfiguration.from_dict({"simulation": config.to_dict()})
    assert again == config
    a, b = config.run(), again.run()
    np.testing.assert_array_equal(a.estimates["norm-sub"], b.estimates["norm-sub"])
    assert a.n == 5000


def test_an_uploaded_table_needs_its_file_and_rebuilds_the_same_counts():
    table = pd.DataFrame({"city": ["a", "b", "b", "c", "c", "c"] * 10})
    data = table_dataset(table, "city", "categorical", source="my.csv")
    with pytest.raises(ldp.LDPError, match="give that file"):
        dataset_from_source(data.source)
    np.testing.assert_array_equal(dataset_from_source(data.source, table).counts, data.counts)


@pytest.mark.parametrize(("block", "reason"), [
    ({"mechanism": "grr"}, "lacks source, epsilon"),
    ({"source": {"sample": "flights", "column": "dest"}, "mechanism": "grr", "epsilon": 1, "users": -5}, "users"),
    ({"source": {"nothing": 1}, "mechanism": "grr", "epsilon": 1}, "names a sample"),
    ("not an object", "no 'simulation' block"),
])
def test_a_bad_block_is_one_line(block, reason):
    with pytest.raises(ldp.LDPError, match=reason):
        SimulationConfiguration.from_dict(block).dataset()
