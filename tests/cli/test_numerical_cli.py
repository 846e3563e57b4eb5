"""``ldp simulate`` with a numerical mechanism (square-wave paper): real-unit metrics per reconstruction in
the JSON summary, seeded determinism, and one-line errors (exit 2) for impossible combinations."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest

from ldp.cli import SIMULATE_METRICS_CSV_COLUMNS, main
from ldp.numerical import NUMERICAL_MECHANISMS

METRICS = {"wasserstein", "ks", "range_mae", "range_mae_0.4", "mean_error", "variance_error", "quantile_error"}
FLIGHTS = ("--sample", "flights", "--column", "dep_time_hours", "--buckets", "32", "--range", "0,24")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    return json.loads(out)


def assert_bad(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code, out, err = run(capsys, *argv)
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err
    return lines[0]


def test_sw_on_a_bucketized_column_reports_real_unit_metrics(capsys):
    out = run_json(capsys, "simulate", "-m", "sw", "-e", "1", *FLIGHTS, "--users", "20000", "--seed", "3",
                   "--estimators", "ems,em", "--trials", "2")
    for key in ("mechanism", "epsilon", "users", "engine", "domain", "true", "summary", "trials", "elapsed_s"):
        assert key in out
    assert out["mechanism"] == "sw" and out["epsilon"] == 1.0 and out["users"] == 20000 and out["engine"] == "fast"
    assert len(out["domain"]) == 32 and len(out["true"]) == 32 and out["edges"][0] == 0 and out["edges"][-1] == 24
    assert out["estimators"] == ["ems", "em"]
    assert set(out["summary"]) == {"ems", "em"}
    for per in out["summary"].values():
        assert set(per) == METRICS
        # a day is 24 h wide: at ε = 1 and n = 20k SW is within about an hour in W1 (uniform would be ≈ 3 h off)
        assert 0 < per["wasserstein"] < 1.5 and 0 < per["ks"] < 0.2
    assert len(out["trials"]) == 2
    assert set(out["trials"][0]["estimates"]) == {"ems", "em"} and len(out["trials"][0]["estimates"]["ems"]) == 32
    assert set(out["trials"][1]["metrics"]["em"]) == METRICS
    np.testing.assert_allclose(sum(out["trials"][0]["estimates"]["ems"]), 1.0, atol=1e-9)


def test_seeded_runs_are_identical_and_default_reconstruction_is_the_first(capsys):
    argv = ("simulate", "-m", "sw", "-e", "2", *FLIGHTS, "--users", "5000", "--seed", "11")
    a, b = run_json(capsys, *argv), run_json(capsys, *argv)
    assert a["summary"] == b["summary"] and a["trials"] == b["trials"]
    assert list(a["summary"]) == [NUMERICAL_MECHANISMS.get("sw").reconstructions[0]]


def test_param_and_synthetic_spec(capsys):
    out = run_json(capsys, "simulate", "-m", "sw", "-e", "1", "--synthetic", "gaussian:mu=0,sigma=1,d=40",
                   "--users", "8000", "--seed", "1", "--param", "b=0.2")
    assert out["parameters"]["b"] == 0.2 and len(out["domain"]) == 40
    assert set(out["summary"]["ems"]) == METRICS


@pytest.mark.parametrize("name", NUMERICAL_MECHANISMS.names())
def test_every_registered_numerical_mechanism_runs(capsys, name):
    rec = NUMERICAL_MECHANISMS.get(name).reconstructions
    out = run_json(capsys, "simulate", "-m", name, "-e", "1", *FLIGHTS, "--users", "3000", "--seed", "0",
                   "--estimators", ",".join(rec))
    assert list(out["summary"]) == list(rec)


def test_metrics_csv(capsys):
    code, out, err = run(capsys, "simulate", "-m", "sw", "-e", "1", *FLIGHTS, "--users", "3000", "--seed", "0",
                         "--format", "metrics-csv", "--trials", "2")
    assert code == 0, err
    rows = list(csv.reader(io.StringIO(out)))
    assert tuple(rows[0]) == SIMULATE_METRICS_CSV_COLUMNS
    assert len(rows) == 1 + 2 * len(METRICS) and {r[2] for r in rows[1:]} == METRICS


def test_categorical_mechanisms_are_unchanged(capsys):
    out = run_json(capsys, "simulate", "-m", "oue", "-e", "1", *FLIGHTS, "--users", "3000", "--seed", "0")
    assert out["estimators"] == ["mi"] and "mse" in out["summary"]["mi"]


@pytest.mark.parametrize(("argv", "needle"), [
    (("--sample", "flights", "--column", "carrier", "--users", "1000"), "categorical"),
    (("--synthetic", "zipf:s=1.5,d=20", "--users", "1000"), "categorical"),
    ((*FLIGHTS, "--estimators", "mi"), "reconstruction 'mi'"),
    ((*FLIGHTS, "--estimators", "ems,nope"), "reconstruction 'nope'"),
    ((*FLIGHTS, "--param", "g=3"), "no parameter 'g'"),
    ((*FLIGHTS, "--epsilon-1", "0.5"), "longitudinal"),
])
def test_bad_combinations_are_one_line_errors(capsys, argv, needle):
    line = assert_bad(capsys, "simulate", "-m", "sw", "-e", "1", *argv)
    assert needle in line
