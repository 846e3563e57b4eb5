"""Datasets for the pages (ldp.studies.datasets): a bundled sample's column, a synthetic distribution and the
user's own table, each as users per value with labels, real-unit edges, notes and bucketization warnings."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import ldp
from ldp.data import get_column, load_sample, true_distribution
from ldp.studies import datasets


def test_a_categorical_sample_column_keeps_every_row():
    data = datasets.sample_dataset("flights", "dest")
    rows = get_column(load_sample("flights"), "dest").notna().sum()
    assert data.kind == "categorical" and data.edges is None and not data.numerical
    assert data.rows == rows and data.d == len(data.labels) > 50
    assert data.origin == "sample" and data.synthetic is None
    assert data.description.startswith("NYC flights 2013")
    np.testing.assert_allclose(data.frequencies.sum(), 1.0)


def test_a_numerical_sample_column_is_bucketized_over_its_range_in_real_units():
    data = datasets.sample_dataset("flights", "dep_time_hours", bins=24)
    assert data.numerical and data.d == 24 and data.unit == "hours"
    assert (data.edges[0], data.edges[-1]) == datasets.column_range("flights", "dep_time_hours") == (0.0, 24.0)
    narrow = datasets.sample_dataset("flights", "dep_time_hours", bins=16, value_range=(5.0, 21.0))
    assert narrow.edges[0] == 5.0 and narrow.edges[-1] == 21.0 and narrow.edges[1] == 6.0
    assert narrow.rows == data.rows  # values outside the range are clipped into the end bins, and said so
    assert any("clipped" in note for note in narrow.notes)
    assert data.axis_title() == "dep_time_hours (hours)"


def test_the_natural_range_without_a_catalogue_range_is_the_data_min_and_max():
    values = pd.to_numeric(get_column(load_sample("flights"), "distance"), errors="coerce").dropna()
    assert datasets.column_range("flights", "distance") == (float(values.min()), float(values.max()))


def test_more_bins_than_distinct_values_is_a_warning_in_the_dataset():
    data = datasets.sample_dataset("flights", "distance", bins=256)
    assert len(data.warnings) == 1 and "213 distinct values" in data.warnings[0]
    assert not datasets.sample_dataset("flights", "distance", bins=48).warnings


def test_unknown_samples_and_columns_are_library_errors():
    with pytest.raises(ldp.LDPError, match="unknown sample"):
        datasets.sample_dataset("nope", "dest")
    with pytest.raises(ldp.LDPError, match="no column"):
        datasets.sample_dataset("flights", "nope")


def test_a_synthetic_dataset_is_its_exact_distribution_over_a_million_users():
    data = datasets.synthetic_dataset("zipf", 10, 1.5)
    assert datasets.synthetic_spec("zipf", 10, 1.5) == "zipf:d=10,s=1.5"
    np.testing.assert_allclose(data.frequencies, true_distribution("zipf:d=10,s=1.5"), atol=1e-6)
    assert data.rows == pytest.approx(datasets.SYNTHETIC_USERS, abs=10)
    assert data.origin == "synthetic" and data.synthetic == ("zipf", 1.5, None)
    beta = datasets.synthetic_dataset("beta", 20, 1.5)  # the exponent is Zipf's only
    assert beta.numerical and beta.synthetic == ("beta", None, None)
    assert datasets.synthetic_spec("beta", 20) == "beta:d=20"
    with pytest.raises(ldp.LDPError, match="unknown synthetic"):
        datasets.synthetic_spec("nope", 10)


def test_a_table_column_as_numerical_or_categorical():
    table = pd.DataFrame({"city": ["Lyon", "Paris", "Lyon", None] * 10, "age": list(range(40)), "empty": [None] * 40})
    assert datasets.usable_columns(table) == ["city", "age"]
    assert datasets.guess_kind(table["age"]) == "numerical" and datasets.guess_kind(table["city"]) == "categorical"
    assert datasets.guess_kind(pd.Series(range(5))) == "categorical"  # few distinct numbers: categories
    assert datasets.data_range(table["age"]) == (0.0, 39.0)
    ages = datasets.table_dataset(table, "age", "numerical", bins=4, source="people.csv")
    assert ages.d == 4 and list(ages.counts) == [10, 10, 10, 10] and ages.origin == "table"
    cities = datasets.table_dataset(table, "city", "categorical")
    assert cities.labels == ["Lyon", "Paris"] and any("missing" in note for note in cities.notes)
    with pytest.raises(ldp.LDPError, match="not numeric"):
        datasets.table_dataset(table, "city", "numerical")
    with pytest.raises(ldp.LDPError, match="no column with values"):
        datasets.usable_columns(table[["empty"]])
    with pytest.raises(ldp.LDPError, match="numerical or categorical"):
        datasets.table_dataset(table, "age", "ordinal")


def test_a_high_cardinality_column_keeps_its_top_values_and_groups_the_rest():
    """Issue 11: a 100k-distinct string column was refused with circular advice ("treat it as numerical" → "not
    numeric; treat it as categorical"); now it keeps its TOP_CATEGORIES most frequent values plus "(other)"."""
    rng = np.random.default_rng(0)
    common = [f"c{i}" for i in range(50)]
    values = list(rng.choice(common, 60_000)) + [f"u{i}" for i in range(100_000)]
    data = datasets.table_dataset(pd.DataFrame({"id": values}), "id", "categorical")
    assert data.d == datasets.TOP_CATEGORIES + 1 and datasets.OTHER in data.labels
    assert data.rows == len(values)
    other = data.counts[data.labels.index(datasets.OTHER)]
    assert other == 100_000 - (datasets.TOP_CATEGORIES - 50)  # the 950 singletons kept are among the ties
    assert any("100,050 distinct values" in w for w in data.warnings)
    small = datasets.table_dataset(pd.DataFrame({"x": list("abcab")}), "x", "categorical")
    assert datasets.OTHER not in small.labels and not small.warnings


def test_mixture_needs_its_formula_and_empty_columns_are_named():
    assert datasets.synthetic_spec("mixture", 40, formula=datasets.DEFAULT_MIXTURE).startswith("mix:d=40,")
    mix = datasets.synthetic_dataset("mixture", 40, formula=datasets.DEFAULT_MIXTURE)
    assert mix.d == 40 and mix.counts.sum() > 0 and datasets.DEFAULT_MIXTURE in mix.description
    with pytest.raises(ldp.LDPError, match="needs a formula"):
        datasets.synthetic_spec("mixture", 40)
    table = pd.DataFrame({"a": [1, 2], "empty": [np.nan, np.nan]})
    assert datasets.usable_columns(table) == ["a"] and datasets.empty_columns(table) == ["empty"]
