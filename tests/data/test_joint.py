"""Joint populations: tables and synthetic specs → users per cell of the product domain; bad input refused."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ldp.core.errors import InvalidInput
from ldp.core.streams import rng_for
from ldp.data.joint import (
    MAX_PRODUCT_CELLS,
    check_product_domain,
    joint_from_table,
    joint_synthetic,
    parse_joint_spec,
    spec_distribution,
)


def test_a_table_becomes_counts_over_the_mixed_radix_product_domain() -> None:
    df = pd.DataFrame({"a": ["x", "y", "x", "y", None], "b": [1, 2, 2, 2, 1], "c": [0.5, 0.5, 1.5, 0.5, 0.5]})
    pop = joint_from_table(df, ["a", "b"])
    assert pop.columns == ("a", "b") and pop.labels == (("x", "y"), ("1", "2")) and pop.n == 4  # the None row left out
    np.testing.assert_array_equal(pop.counts, [[1, 1], [0, 2]])
    assert np.ravel_multi_index((1, 1), pop.shape) == 3 and pop.counts.ravel()[3] == 2  # index = code_a·d_b + code_b
    three = joint_from_table(df, ["a", "b", "c"], buckets={"c": 2}, ranges={"c": (0.0, 2.0)})
    assert three.shape == (2, 2, 2) and three.edges[2] is not None and three.n == 4
    assert three.with_users(1000, rng_for(0, "t")).n == 1000


@pytest.mark.parametrize(("columns", "options", "phrase"), [
    (["a"], {}, "2 or 3 columns"),
    (["a", "b", "c", "d"], {}, "2 or 3 columns"),
    (["a", "zzz"], {}, "not found"),
    (["a", "a"], {}, "different"),
    (["a", "x"], {}, "buckets"),  # a numerical column without buckets
    (["a", "b"], {"buckets": {"q": 3}}, "not one of the columns"),
])
def test_bad_tables_are_refused_in_one_line(columns, options, phrase) -> None:
    df = pd.DataFrame({"a": list("xyzxy") * 20, "b": [1, 2] * 50, "c": [3] * 100, "d": [4] * 100,
                       "x": np.linspace(0, 1, 100)})
    with pytest.raises(InvalidInput, match=phrase) as err:
        joint_from_table(df, columns, **options)
    assert "\n" not in str(err.value)


def test_the_product_domain_is_bounded_before_any_allocation() -> None:
    assert check_product_domain([2048, 2048]) == MAX_PRODUCT_CELLS
    with pytest.raises(InvalidInput, match="exceeds"):
        check_product_domain([2048, 2049])
    with pytest.raises(InvalidInput, match="exceeds"):
        joint_synthetic("correlated:d1=300,d2=300,d3=300", 10, rng_for(0, "t"))


def test_the_correlated_spec_is_a_chain_of_copies() -> None:
    name, params = parse_joint_spec("correlated:d1=4,d2=2,d3=3,rho=0.5,s=0")
    assert name == "correlated" and params["rho"] == 0.5
    p = spec_distribution(params)
    assert p.shape == (4, 2, 3) and p.sum() == pytest.approx(1.0)
    # x1 uniform (s = 0); x2 copies ⌊x1·2/4⌋ with probability 1/2, else uniform: P(x2 = 0 | x1 = 0) = 0.5 + 0.25
    assert p[0].sum(axis=1)[0] / p[0].sum() == pytest.approx(0.75)
    independent = spec_distribution(parse_joint_spec("independent:d1=3,d2=4")[1])
    np.testing.assert_allclose(independent, np.outer(independent.sum(1), independent.sum(0)))
    pop, truth = joint_synthetic("correlated:d1=3,d2=3", 500, rng_for(0, "t"))
    assert pop.n == 500 and truth.shape == pop.shape == (3, 3)


@pytest.mark.parametrize("spec", ["gaussian:d1=3", "correlated:d1=1", "correlated:rho=1.5", "correlated:d1",
                                  "independent:rho=0.5", "correlated:d1=2.5", "correlated:s=x"])
def test_bad_specs_are_refused(spec) -> None:
    with pytest.raises(InvalidInput):
        parse_joint_spec(spec)
