"""``ldp mean``: the mean of one or more columns in their own units with the closed-form variance of each, from the
library (ldp.studies.vector_means); bad input is one line and exit status 2."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

import ldp
from ldp.cli import main
from ldp.core.streams import rng_for
from ldp.mechanisms.vector import vector_mechanism


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def table(tmp_path):
    rng = np.random.default_rng(5)
    df = pd.DataFrame({"age": rng.uniform(20, 60, 20_000).round(), "income": rng.uniform(0, 100, 20_000),
                       "city": "x"})
    df.loc[3, "age"] = np.nan  # one row left out
    path = tmp_path / "people.csv"
    df.to_csv(path, index=False)
    return path, df


@pytest.mark.parametrize("mechanism", [cls.name for cls in ldp.mechanisms_of("vector")])
def test_every_mechanism_gives_each_columns_mean_and_variance(capsys, table, mechanism):
    path, df = table
    code, out, err = run(capsys, "mean", "--mechanism", mechanism, "--epsilon", 2, "--data", path,
                         "--columns", "age,income", "--range", "0,100", "--seed", 3)
    assert code == 0, err
    data = json.loads(out)
    assert data["columns"] == ["age", "income"] and data["d"] == 2 and data["users"] == 19_999
    keep = df.dropna(subset=["age"])
    np.testing.assert_allclose(data["true_mean"], keep[["age", "income"]].mean(), rtol=1e-12)
    # the library's numbers: the same stream of the seed, unit values mapped back with half-width 50
    mech = vector_mechanism(mechanism, 2.0, 2)
    unit = keep[["age", "income"]].to_numpy() / 50.0 - 1.0
    np.testing.assert_allclose(data["variance"], 2500 * mech.mean_variance(unit), rtol=1e-12)
    assert data.get("delta", 0.0) == mech.delta  # an (ε, δ) mechanism (gaussian-vector) says its δ
    est = mech.estimate_mean(unit, rng_for(3, "vector-means", mech.name))
    np.testing.assert_allclose(data["mean"], 50 * (est + 1), rtol=1e-12)
    # and an honest answer: within 5 standard errors of the truth
    assert all(abs(m - t) < 5 * math.sqrt(v) for m, t, v in zip(data["mean"], data["true_mean"], data["variance"],
                                                                  strict=True))
    assert data["notes"] == ["1 rows with a missing or non-numeric value left out"]


def test_one_column_with_a_scalar_mechanism_and_the_table_format(capsys, table):
    path, _ = table
    code, out, err = run(capsys, "mean", "-m", "hm", "-e", 1, "--data", path, "--columns", "income", "--format",
                         "table")
    assert code == 0, err
    assert out.splitlines()[0].startswith("HM, k of d, epsilon = 1, 20,000 users, 1 column(s)")
    assert "income" in out and "STD_ERROR" in out


@pytest.mark.parametrize(("argv", "phrase"), [
    (["-m", "nope", "-e", 1, "--columns", "age"], "unknown mechanism"),
    (["-m", "pm", "-e", 1, "--columns", "salary"], "no column 'salary'"),
    (["-m", "pm", "-e", 1, "--columns", "city"], "numer"),
    (["-m", "pm", "-e", -1, "--columns", "age"], "epsilon"),
    (["-m", "pm", "-e", 1, "--columns", "age,age"], "named twice"),
    (["-m", "pm", "-e", 1, "--columns", "age", "--range", "0,30"], "outside the range"),
    (["-m", "pm", "-e", 1, "--columns", ","], "empty"),
    (["-m", "gaussian-bits", "-e", 1, "--columns", "age"], "not one for means of vectors"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, table, argv, phrase):
    path, _ = table
    code, out, err = run(capsys, "mean", "--data", path, *argv)
    assert code == 2 and out == "" and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and phrase in err, err


@pytest.mark.parametrize("mechanism", [cls.name for cls in ldp.mechanisms_of("vector")])
def test_report_files_for_every_vector_mechanism(capsys, tmp_path, table, mechanism):
    """Issue 20: ``ldp perturb --columns a,b --range=LO,HI`` then ``ldp aggregate`` gives each column's mean in its
    units and the variance of each mean estimated from the reports. The mean is the library's own (the same
    reports aggregated by the mechanism) and within 5 of its standard errors of the truth; the estimated variance
    is within 25 % of the closed form Σ Var/n² (its relative SD is about √(2/n)·kurtosis ≪ 5 % at n ≈ 20,000)."""
    path, df = table
    reports = tmp_path / "r.txt"
    code, _, err = run(capsys, "perturb", "-m", mechanism, "-e", 2, "--data", path, "--columns", "age,income",
                       "--range=0,100", "--seed", 4, "--output", reports)
    assert code == 0, err
    code, out, err = run(capsys, "aggregate", "-m", mechanism, "-e", 2, "--columns", "age,income", "--range=0,100",
                         "--reports", reports, "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    keep = df.dropna(subset=["age"])[["age", "income"]]
    assert data["columns"] == ["age", "income"] and data["users"] == len(keep) and data["kind"] == "vector"
    mech = vector_mechanism(mechanism, 2.0, 2)
    closed = 2500 * mech.mean_variance(keep.to_numpy() / 50.0 - 1.0)
    np.testing.assert_allclose(data["variance"], closed, rtol=0.25)
    assert all(abs(m - t) < 5 * math.sqrt(v) for m, t, v in zip(data["mean"], keep.mean(), closed, strict=True))
    assert all(v <= data["variance_bound"] * (1 + 1e-9) for v in closed)
    # the columns are remembered in the file's header; a different list is refused in one line
    code, _, err = run(capsys, "aggregate", "-m", mechanism, "-e", 2, "--columns", "income,age", "--range=0,100",
                       "--reports", reports)
    assert code == 2 and "disagrees with the report file's columns" in err and len(err.strip().splitlines()) == 1


def test_vector_report_files_refuse_what_does_not_fit(capsys, tmp_path, table):
    path, _ = table
    out = tmp_path / "r.txt"
    for argv, phrase in (
            (["--column", "age", "--range=0,100"], "--column cannot be used with the vector mechanism duchi"),
            (["--columns", "age,income"], "public value range"),
            (["--columns", "age,income", "--range=0,10"], "outside --range"),
            (["--columns", "age,age", "--range=0,100"], "named twice"),
            (["--columns", "age,nope", "--range=0,100"], "no column 'nope'")):
        code, _, err = run(capsys, "perturb", "-m", "duchi", "-e", 1, "--data", path, "--output", out, *argv)
        assert code == 2 and phrase in err and len(err.strip().splitlines()) == 1, (argv, err)
        assert not out.exists()


def test_a_stand_in_sample_is_labelled_per_column(capsys):
    """Issue 23: ``--sample income`` — the JSON source names the column that stands in for the SW paper's Income
    data (the wife's hours are not one)."""
    code, out, err = run(capsys, "mean", "--mechanism", "pm", "--epsilon", "1", "--sample", "income", "--columns",
                         "husband_income,wife_hours", "--seed", "1")
    assert code == 0, err
    source = json.loads(out)["source"]
    assert source["sample"] == "income" and list(source["stand_in"]) == ["husband_income"]
    assert source["stand_in"]["husband_income"].startswith("stand-in for the Income data of the SW paper")
