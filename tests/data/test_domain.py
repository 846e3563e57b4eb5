"""Tests of ldp.data.domain: encoding columns into finite domains and drawing users."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ldp
from ldp.data import (
    EncodedColumn,
    bin_labels,
    bucketize,
    domain_from_file,
    encode_categorical,
    encode_integer,
    sample_counts,
    sample_users,
)


def five_sigma(n: int, p: np.ndarray) -> np.ndarray:
    """5 standard deviations of Binomial(n, p) counts. A multinomial count is Binomial(n, p_k), so a
    bin falls outside these bounds with probability < 6e-7; the seeds are fixed anyway."""
    return 5.0 * np.sqrt(n * p * (1.0 - p)) + 1e-9


# ------------------------------------------------------------------------------------------ EncodedColumn
def test_encoded_column_basics():
    col = EncodedColumn(np.array([0, 1, 1, 2, 1]), ["a", "b", "c"], name="x")
    assert col.d == 3 and col.n == 5
    assert col.true_counts().tolist() == [1, 3, 1]
    assert col.true_counts().dtype == np.int64
    np.testing.assert_allclose(col.true_frequencies(), [0.2, 0.6, 0.2])
    assert col.kind == "categorical" and col.edges is None and col.centers is None
    assert col.values.dtype == np.int64
    with pytest.raises(ValueError, match="read-only"):  # numpy's own error, not a library input error
        col.values[0] = 2  # read-only: the dataclass is frozen
    with pytest.raises(AttributeError):
        col.name = "y"  # type: ignore[misc]


def test_encoded_column_counts_include_empty_codes():
    col = EncodedColumn(np.array([0, 0]), ["a", "b", "c", "d"])
    assert col.true_counts().tolist() == [2, 0, 0, 0]


def test_encoded_column_numerical_edges_and_centers():
    col = EncodedColumn(np.array([0, 1]), ["lo", "hi"], "numerical", np.array([0.0, 1.0, 3.0]))
    np.testing.assert_allclose(col.centers, [0.5, 2.0])


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"values": np.array([0, 3]), "labels": ["a", "b"]}, "codes must lie in"),
        ({"values": np.array([-1]), "labels": ["a", "b"]}, "codes must lie in"),
        ({"values": np.array([0.5]), "labels": ["a", "b"]}, "integer codes"),
        ({"values": np.zeros((2, 2), dtype=int), "labels": ["a", "b"]}, "one-dimensional"),
        ({"values": np.array([0]), "labels": ["a"]}, "domain size must be at least 2"),
        ({"values": np.array([0]), "labels": ["a", "b"], "kind": "ordinal"}, "kind must be one of"),
        ({"values": np.array([0]), "labels": ["a", "b"], "edges": np.array([0, 1, 2])}, "only numerical"),
        ({"values": np.array([0]), "labels": ["a", "b"], "kind": "numerical", "edges": np.array([0, 1])},
         "needs 3 edges"),
        ({"values": np.array([0]), "labels": ["a", "b"], "kind": "numerical", "edges": np.array([0, 2, 1])},
         "strictly increasing"),
        ({"values": np.array([0]), "labels": ["a", "b"], "dropped": -1}, "dropped must be"),
    ],
)
def test_encoded_column_validation(kwargs, fragment):
    with pytest.raises(ldp.LDPError, match=fragment):
        EncodedColumn(**kwargs)


def test_true_frequencies_of_empty_column():
    with pytest.raises(ldp.LDPError, match="no values"):
        EncodedColumn(np.array([], dtype=np.int64), ["a", "b"]).true_frequencies()


# ------------------------------------------------------------------------------------------ categorical
def test_categorical_strings_sorted_lexicographically():
    col = encode_categorical(pd.Series(["b", "a", "c", "a"], name="letters"))
    assert col.labels == ["a", "b", "c"]
    assert col.values.tolist() == [1, 0, 2, 0]
    assert col.name == "letters" and col.kind == "categorical" and col.edges is None


def test_categorical_numbers_sorted_numerically_with_compact_labels():
    col = encode_categorical(pd.Series([10, 9, 2, 10]))
    assert col.labels == ["2", "9", "10"]
    assert col.values.tolist() == [2, 1, 0, 2]
    floats = encode_categorical(pd.Series([1.0, 2.5, np.nan, 1.0]))
    assert floats.labels == ["1", "2.5"]
    assert floats.dropped == 1


def test_categorical_missing_values_dropped_and_counted():
    col = encode_categorical(pd.Series(["x", None, "", "  ", np.nan, "y", "x"]), name="c")
    assert col.labels == ["x", "y"]
    assert col.dropped == 4
    assert col.n == 3
    assert col.true_counts().tolist() == [2, 1]


def test_categorical_plain_lists_and_arrays():
    assert encode_categorical(["u", "v", "u"]).labels == ["u", "v"]
    assert encode_categorical(np.array([3, 1, 3])).labels == ["1", "3"]
    assert encode_categorical(["u", "v"]).name == "value"
    assert encode_categorical(["u", "v"], name="given").name == "given"


def test_categorical_given_domain_order_and_unobserved_values():
    col = encode_categorical(pd.Series(["b", "a", "b"]), domain=["b", "a", "z"])
    assert col.labels == ["b", "a", "z"]
    assert col.values.tolist() == [0, 1, 0]
    assert col.true_counts().tolist() == [2, 1, 0]


def test_categorical_numeric_column_with_text_domain():
    col = encode_categorical(pd.Series([1, 2, 2, 12]), domain=[str(m) for m in range(1, 13)])
    assert col.d == 12
    assert col.true_counts()[[0, 1, 11]].tolist() == [1, 2, 1]


def test_categorical_ordered_categorical_keeps_its_order():
    levels = ["low", "mid", "high"]
    series = pd.Series(pd.Categorical(["low", "high", "mid"], categories=levels, ordered=True))
    col = encode_categorical(series)
    assert col.labels == ["low", "mid", "high"]
    assert col.values.tolist() == [0, 2, 1]
    unordered = encode_categorical(pd.Series(pd.Categorical(["b", "a", None])))
    assert unordered.labels == ["a", "b"] and unordered.dropped == 1


def test_categorical_values_outside_domain():
    expected = r"3 value\(s\) of column 'c' \(2 distinct\) are not in the given domain, e.g. 'q'"
    with pytest.raises(ldp.LDPError, match=expected):
        encode_categorical(pd.Series(["a", "q", "r", "q"], name="c"), domain=["a", "b"])


def test_categorical_domain_errors():
    with pytest.raises(ldp.LDPError, match="domain size must be at least 2"):
        encode_categorical(pd.Series(["a", "a"]), domain=["a"])
    with pytest.raises(ldp.LDPError, match="lists 'a' twice"):
        encode_categorical(pd.Series(["a"]), domain=["a", "b", "a"])


def test_categorical_single_value_and_all_missing():
    with pytest.raises(ldp.LDPError, match="domain size must be at least 2"):
        encode_categorical(pd.Series(["same", "same", None]))
    with pytest.raises(ldp.LDPError, match="no non-missing values"):
        encode_categorical(pd.Series([None, np.nan, ""], name="e"))


def test_categorical_rejects_a_table():
    with pytest.raises(ldp.LDPError, match="single column"):
        encode_categorical(pd.DataFrame({"a": [1, 2]}))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c", " d ", "é", "", None]), min_size=1, max_size=50))
def test_categorical_codes_map_back_to_labels(values):
    present = [v.strip() for v in values if v is not None and v.strip()]
    if len(set(present)) < 2:
        with pytest.raises(ldp.LDPError):
            encode_categorical(pd.Series(values, dtype=object))
        return
    col = encode_categorical(pd.Series(values, dtype=object))
    assert [col.labels[k] for k in col.values] == present
    assert col.labels == sorted(set(present))
    assert col.dropped == len(values) - len(present)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-1000, 1000) | st.floats(-1e6, 1e6, allow_nan=False), min_size=2, max_size=50))
def test_categorical_numbers_round_trip(values):
    series = pd.Series(values, dtype=float)
    if series.nunique() < 2:
        return
    col = encode_categorical(series)
    decoded = np.array([float(col.labels[k]) for k in col.values])
    np.testing.assert_array_equal(decoded, series.to_numpy())
    assert [float(x) for x in col.labels] == sorted(float(x) for x in col.labels)


# ------------------------------------------------------------------------------------------ integer
def test_integer_codes():
    col = encode_integer(pd.Series([0, 3, 3, 1], name="k"), 5)
    assert col.values.tolist() == [0, 3, 3, 1]
    assert col.labels == ["0", "1", "2", "3", "4"]
    assert col.true_counts().tolist() == [1, 1, 0, 2, 0]


def test_integer_from_floats_text_and_missing():
    assert encode_integer(pd.Series([1.0, np.nan, 2.0]), 3).values.tolist() == [1, 2]
    col = encode_integer(pd.Series(["1", " 2", "", None], dtype=object), 3)
    assert col.values.tolist() == [1, 2] and col.dropped == 2


@pytest.mark.parametrize(
    ("values", "fragment"),
    [
        ([0, 1.5, 2.5], r"not an integer: '1.5' \(2 such value"),
        (["0", "x", "1"], r"not an integer: 'x'"),
        ([0, 7, 9, 2], r"outside \[0, 5\): '7' \(2 such value"),
        ([0, -1], r"outside \[0, 5\): '-1'"),
    ],
)
def test_integer_errors_name_first_offender(values, fragment):
    with pytest.raises(ldp.LDPError, match=fragment):
        dtype = object if any(isinstance(v, str) for v in values) else None
        encode_integer(pd.Series(values, dtype=dtype), 5)


def test_integer_domain_size_checked():
    with pytest.raises(ldp.LDPError, match="at least 2"):
        encode_integer(pd.Series([0]), 1)
    with pytest.raises(ldp.LDPError, match="must be an integer"):
        encode_integer(pd.Series([0]), 2.5)
    with pytest.raises(ldp.LDPError, match="no non-missing"):
        encode_integer(pd.Series([np.nan]), 3)


# ------------------------------------------------------------------------------------------ bucketize
def test_bucketize_default_range_and_labels():
    col = bucketize(pd.Series([0.0, 0.1, 0.5, 0.99, 1.0], name="x"), 4)
    np.testing.assert_allclose(col.edges, [0, 0.25, 0.5, 0.75, 1.0])
    assert col.values.tolist() == [0, 0, 2, 3, 3]  # the maximum goes to the last bin
    assert col.labels == ["[0, 0.25)", "[0.25, 0.5)", "[0.5, 0.75)", "[0.75, 1]"]
    assert col.kind == "numerical" and col.d == 4 and col.clipped == 0 and col.dropped == 0


def test_bucketize_explicit_range_and_integer_column():
    col = bucketize(pd.Series([0, 6, 12, 23, 24]), 24, value_range=(0, 24))
    assert col.values.tolist() == [0, 6, 12, 23, 23]
    assert col.labels[0] == "[0, 1)" and col.labels[-1] == "[23, 24]"


def test_bucketize_reject_outside_range():
    with pytest.raises(ldp.LDPError, match=r"2 of 4 values of column 't' are outside the range \[0, 10\]"):
        bucketize(pd.Series([-1.0, 5.0, 11.0, 3.0], name="t"), 5, value_range=(0, 10))


def test_bucketize_clip_counts_clipped():
    col = bucketize(pd.Series([-1.0, 5.0, 11.0, 3.0, np.inf]), 5, value_range=(0, 10), out_of_range="clip")
    assert col.clipped == 3
    assert col.values.tolist() == [0, 2, 4, 1, 4]


def test_bucketize_nan_dropped_and_numeric_text_accepted():
    col = bucketize(pd.Series([1.0, np.nan, 3.0, None]), 2)
    assert col.dropped == 2 and col.n == 2
    text = bucketize(pd.Series(["1", " 2.5", "", "4"], dtype=object), 3)
    assert text.dropped == 1 and text.values.tolist() == [0, 1, 2]


@pytest.mark.parametrize(
    ("series", "kwargs", "fragment"),
    [
        (pd.Series(["a", "b"], name="s"), {}, "column 's' is not numeric"),
        (pd.Series(["1", "x"], name="s"), {}, r"column 's' is not numeric \(e.g. 'x'\)"),
        (pd.Series(pd.to_datetime(["2020-01-01", "2021-01-01"]), name="t"), {}, "column 't' is not numeric"),
        (pd.Series([2.0, 2.0, np.nan], name="k"), {}, r"column 'k' is constant \(2\)"),
        (pd.Series([1.0, 2.0]), {"buckets": 1}, "buckets must be at least 2"),
        (pd.Series([1.0, 2.0]), {"buckets": 2.5}, "buckets must be an integer"),
        (pd.Series([1.0, 2.0]), {"out_of_range": "wrap"}, "out_of_range must be one of"),
        (pd.Series([1.0, 2.0]), {"value_range": (3, 1)}, "low < high"),
        (pd.Series([1.0, 2.0]), {"value_range": (0, np.inf)}, "finite"),
        (pd.Series([1.0, 2.0]), {"value_range": "ab"}, "two numbers"),
        (pd.Series([np.nan, None], dtype=float, name="n"), {}, "no non-missing values"),
        (pd.Series([np.inf, -np.inf]), {}, "no finite values"),
        (pd.Series([1.0, 1.0 + 1e-15]), {"buckets": 100}, "distinct bins"),
        (pd.Series([0.0, 1.0, np.inf]), {}, "outside the range"),
    ],
)
def test_bucketize_errors(series, kwargs, fragment):
    kwargs = {"buckets": 4, **kwargs}
    with pytest.raises(ldp.LDPError, match=fragment):
        bucketize(series, **kwargs)


def test_bucketize_constant_column_with_explicit_range():
    col = bucketize(pd.Series([2.0, 2.0]), 4, value_range=(0, 4))
    assert col.values.tolist() == [2, 2]


def test_bin_labels_gain_precision_when_needed():
    labels = bin_labels(np.linspace(1000.0, 1000.5, 6))
    assert len(set(labels)) == 6 - 1
    assert labels[0] == "[1000, 1000.1)"
    assert bin_labels(np.array([0.0, 1e-5, 2e-5]))[0] == "[0, 1e-05)"


@settings(max_examples=100, deadline=None)
@given(
    values=st.lists(st.floats(-1e6, 1e6, allow_nan=False) | st.just(float("nan")), min_size=2, max_size=60),
    buckets=st.integers(2, 50),
    explicit=st.booleans(),
)
def test_bucketize_round_trip(values, buckets, explicit):
    series = pd.Series(values, dtype=float)
    finite = series.dropna().to_numpy()
    value_range = (float(finite.min()) - 1.0, float(finite.max()) + 1.0) if explicit and finite.size else None
    try:
        col = bucketize(series, buckets, value_range=value_range)
    except ValueError as exc:  # only legitimate refusals
        assert finite.size == 0 or np.ptp(finite) == 0 or "distinct bins" in str(exc)
        return
    assert col.dropped == int(series.isna().sum())
    assert col.true_counts().sum() == len(values) - col.dropped
    assert col.edges[0] == (value_range[0] if explicit else finite.min())
    assert col.edges[-1] == (value_range[1] if explicit else finite.max())
    lo_edge, hi_edge = col.edges[col.values], col.edges[col.values + 1]
    last = col.values == buckets - 1
    assert np.all(lo_edge <= finite)
    assert np.all((finite < hi_edge) | (last & (finite <= hi_edge)))


# ------------------------------------------------------------------------------------------ domain file
def test_domain_from_file(tmp_path):
    path = tmp_path / "domain.txt"
    path.write_bytes("\ufeffJFK\n\n  LGA  \r\nEWR\n   \n".encode())
    assert domain_from_file(path) == ["JFK", "LGA", "EWR"]


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (b"a\nb\na\n", "lists 'a' twice"),
        (b"only\n\n", "domain size must be at least 2"),
        (b"", "domain size must be at least 2"),
        (b"caf\xe9\nb\n", "not UTF-8 text"),
    ],
)
def test_domain_file_errors(tmp_path, content, fragment):
    path = tmp_path / "d.txt"
    path.write_bytes(content)
    with pytest.raises(ldp.LDPError, match=fragment):
        domain_from_file(path)


def test_domain_file_missing(tmp_path):
    with pytest.raises(ldp.LDPError, match="not found"):
        domain_from_file(tmp_path / "none.txt")


def test_domain_file_feeds_encode_categorical(tmp_path):
    path = tmp_path / "d.txt"
    path.write_text("x\ny\nz\n")
    col = encode_categorical(pd.Series(["z", "x"]), domain=domain_from_file(path))
    assert col.values.tolist() == [2, 0]


# ------------------------------------------------------------------------------------------ sampling
def test_sample_users_same_size_returns_the_data():
    col = EncodedColumn(np.array([2, 0, 1, 1]), ["a", "b", "c"])
    out = sample_users(col, 4, np.random.default_rng(0))
    assert out.tolist() == [2, 0, 1, 1]
    out[0] = 0  # a writable copy
    assert col.values[0] == 2
    shuffled = sample_users(col, 4, np.random.default_rng(0), shuffle=True)
    assert sorted(shuffled.tolist()) == [0, 1, 1, 2]


def test_sample_users_from_counts_same_size():
    out = sample_users(np.array([2, 0, 3]), 5, np.random.default_rng(0))
    assert out.tolist() == [0, 0, 2, 2, 2]


def test_sample_users_deterministic_under_seed():
    col = EncodedColumn(np.arange(10) % 4, ["a", "b", "c", "d"])
    a = sample_users(col, 1000, np.random.default_rng(7), shuffle=True)
    b = sample_users(col, 1000, np.random.default_rng(7), shuffle=True)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, sample_users(col, 1000, np.random.default_rng(8), shuffle=True))


def test_sample_users_iid_matches_empirical_distribution():
    counts = np.array([500, 300, 150, 50, 0])
    p = counts / counts.sum()
    n = 10**7
    out = sample_users(counts, n, np.random.default_rng(2024))
    assert out.shape == (n,) and out.dtype == np.int64
    drawn = np.bincount(out, minlength=5)
    assert drawn[4] == 0
    assert np.all(np.abs(drawn - n * p) <= five_sigma(n, p))  # 5-sigma multinomial bound, see five_sigma


def test_sample_users_from_weights_and_encoded_column():
    out = sample_users([0.25, 0.75], 1000, np.random.default_rng(1))
    assert out.size == 1000 and set(np.unique(out)) <= {0, 1}
    col = EncodedColumn(np.array([0, 1, 1, 1]), ["a", "b"])
    n = 40_000
    drawn = np.bincount(sample_users(col, n, np.random.default_rng(3)), minlength=2)
    p = np.array([0.25, 0.75])
    assert np.all(np.abs(drawn - n * p) <= five_sigma(n, p))  # 5-sigma multinomial bound
    assert sample_users(col, 0, np.random.default_rng(0)).size == 0


@pytest.mark.parametrize(
    ("source", "n", "fragment"),
    [
        (np.array([1, 2]), -1, "at least 0"),
        (np.array([1, 2]), 2.5, "must be an integer"),
        (np.array([-1, 2]), 3, "non-negative"),
        (np.array([0, 0]), 3, "not all be zero"),
        (np.array([[1, 2]]), 3, "1-D"),
        (np.array([np.nan, 1.0]), 3, "finite"),
    ],
)
def test_sample_users_and_counts_validation(source, n, fragment):
    with pytest.raises(ldp.LDPError, match=fragment):
        sample_users(source, n, np.random.default_rng(0))
    with pytest.raises(ldp.LDPError, match=fragment):
        sample_counts(source, n, np.random.default_rng(0))


def test_sample_counts_large_n():
    p = np.array([0.5, 0.3, 0.2])
    n = 10**9
    counts = sample_counts(p, n, np.random.default_rng(11))
    assert counts.dtype == np.int64 and counts.sum() == n
    assert np.all(np.abs(counts - n * p) <= five_sigma(n, p))  # 5-sigma multinomial bound


def test_sample_counts_accepts_counts_and_encoded_columns():
    col = EncodedColumn(np.array([0, 1, 1]), ["a", "b"])
    assert sample_counts(col, 10, np.random.default_rng(0)).sum() == 10
    assert sample_counts([3, 0, 1], 10, np.random.default_rng(0))[1] == 0


@settings(max_examples=100, deadline=None)
@given(
    weights=st.lists(st.floats(0, 1e6, allow_nan=False), min_size=1, max_size=30).filter(
        lambda w: sum(w) > 0),
    n=st.integers(0, 10**12),
    seed=st.integers(0, 2**32 - 1),
)
def test_sample_counts_sum_to_n(weights, n, seed):
    counts = sample_counts(np.array(weights), n, np.random.default_rng(seed))
    assert counts.sum() == n
    assert np.all(counts >= 0)
    assert np.all(counts[np.array(weights) == 0] == 0)


# --------------------------------------------------------------------------- more buckets than distinct values
def test_bucketize_warns_when_buckets_exceed_distinct_values():
    import warnings

    series = pd.Series([1.0, 2.0, 2.0, 3.0, 3.0, 3.0], name="x")
    with pytest.warns(UserWarning, match=r"3 distinct values .* 8 buckets .* at least 5 buckets stay empty"):
        enc = bucketize(series, 8)
    assert enc.d == 8 and int((enc.true_counts() > 0).sum()) == 3  # still allowed: same result as before
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning at or below the number of distinct values
        assert bucketize(series, 3).d == 3
        assert bucketize(series, 2).d == 2


def test_bucketize_counts_distinct_values_after_clipping():
    series = pd.Series([-5.0, 0.0, 1.0, 2.0, 50.0], name="x")  # clipped into [0, 2]: 3 distinct values
    with pytest.warns(UserWarning, match="3 distinct values"):
        bucketize(series, 4, (0.0, 2.0), "clip")
