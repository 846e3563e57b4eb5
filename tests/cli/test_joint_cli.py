"""``ldp joint``: the JSON shape (estimate and true as lists of cells, metrics), the advisor's default method, the
bundled sample data, and one error line with exit status 2 on bad input."""

from __future__ import annotations

import json

import pytest

from ldp.cli import main
from ldp.data.samples import sample_path


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_shape_on_a_correlated_synthetic_pair(capsys) -> None:
    code, out, err = run(capsys, "joint", "--epsilon", 2, "--synthetic", "correlated:d1=4,d2=3,rho=0.8",
                         "--users", 20_000, "--queries", 50, "--seed", 3)
    assert code == 0, err
    data = json.loads(out)
    assert data["method"] == data["advice"]["method"] == "product"  # the advisor's choice by default
    assert data["columns"] == ["x1", "x2"] and len(data["estimate"]) == len(data["true"]) == 12
    assert data["estimate"][4] == {"x1": "1", "x2": "1", "frequency": pytest.approx(data["estimate"][4]["frequency"])}
    assert sum(r["frequency"] for r in data["true"]) == pytest.approx(1.0)
    assert set(data["metrics"]) == {"tvd", "mse", "range_mse"}
    assert data["settings"]["users"] == 20_000 and data["settings"]["epsilon"] == 2.0
    assert data["source"]["true_dependence"] > 0.01


def test_split_says_it_assumes_independence(capsys) -> None:
    code, out, err = run(capsys, "joint", "--method", "split", "--epsilon", 2, "--synthetic",
                         "correlated:d1=4,d2=4,rho=0.9", "--users", 50_000, "--format", "table")
    assert code == 0, err
    assert "assumes: independence" in out and "X1  X2  ESTIMATE  TRUE" in out


def test_bundled_sample_file_as_data(capsys) -> None:
    code, out, err = run(capsys, "joint", "--method", "calm", "--epsilon", 1, "--data", sample_path("planes"),
                         "--columns", "type,engines,seats", "--buckets", "seats=4", "--range", "seats=0:500")
    assert code == 0, err
    data = json.loads(out)
    assert data["columns"] == ["type", "engines", "seats"] and len(data["labels"][2]) == 4
    assert data["settings"]["users"] == 3322 and len(data["estimate"]) == 3 * 4 * 4
    assert data["diagnostics"]["disagreement_after_consistency"] < 1e-12


@pytest.mark.parametrize(("argv", "phrase"), [
    (["--synthetic", "correlated:d1=4,d2=3,rho=2"], "rho"),
    (["--sample", "planes", "--columns", "type,engine,model,seats"], "2 or 3 columns"),
    (["--sample", "planes", "--columns", "type,nope"], "not found"),
    (["--sample", "weather", "--columns", "temp,humid"], "buckets"),
    (["--sample", "planes", "--columns", "type,seats", "--buckets", "seats=x"], "--buckets"),
    (["--sample", "planes", "--columns", "type,seats", "--buckets", "seats=4", "--range", "seats=9:1"], "--range"),
    (["--synthetic", "correlated:d1=3000,d2=3000"], "exceeds"),
    (["--synthetic", "correlated:d3=3", "--queries", 5], "2 columns"),
    (["--synthetic", "correlated:d3=3", "--method", "hdg"], "hdg takes 2"),
    (["--synthetic", "correlated", "--users", 0], "--users"),
    (["--synthetic", "correlated", "--budget", "epsilon"], "--budget"),
    (["--sample", "planes"], "--columns"),
    ([], "exactly one"),
    (["--synthetic", "correlated", "--method", "nope"], "invalid choice"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, phrase) -> None:
    code, out, err = run(capsys, "joint", "--epsilon", 1, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error:") and phrase in err
