"""``ldp simulate`` with a numerical mechanism (square-wave paper): real-unit metrics per reconstruction in
the JSON summary, seeded determinism, and one-line errors (exit 2) for impossible combinations."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest

import ldp
from ldp.cli import SIMULATE_METRICS_CSV_COLUMNS, main

NUMERICAL = [cls.name for cls in ldp.mechanisms_of("numerical")]

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
    assert list(a["summary"]) == [ldp.MECHANISMS.get("sw").default_estimator]


def test_param_and_synthetic_spec(capsys):
    out = run_json(capsys, "simulate", "-m", "sw", "-e", "1", "--synthetic", "gaussian:mu=0,sigma=1,d=40",
                   "--users", "8000", "--seed", "1", "--param", "b=0.2")
    assert out["parameters"]["b"] == 0.2 and len(out["domain"]) == 40
    assert set(out["summary"]["ems"]) == METRICS


@pytest.mark.parametrize("name", NUMERICAL)
def test_every_registered_numerical_mechanism_runs(capsys, name):
    rec = ldp.MECHANISMS.get(name).reconstructions
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
    ((*FLIGHTS, "--estimators", "mi"), "estimator mi does not apply to sw"),
    ((*FLIGHTS, "--estimators", "ems,nope"), "unknown estimator 'nope'"),
    ((*FLIGHTS, "--param", "g=3"), "no parameter 'g'"),
    ((*FLIGHTS, "--epsilon-1", "0.5"), "longitudinal"),
])
def test_bad_combinations_are_one_line_errors(capsys, argv, needle):
    line = assert_bad(capsys, "simulate", "-m", "sw", "-e", "1", *argv)
    assert needle in line


# --------------------------------------------------------------------------- mean mechanisms (sr, pm)
MEAN_KEYS = {"mechanism", "epsilon", "users", "true_mean", "estimated_mean", "summary", "theoretical_variance"}


@pytest.fixture()
def mean_csv(tmp_path):
    rng = np.random.default_rng(5)
    x = 10.0 + 20.0 * rng.beta(5, 2, size=4000)  # values in [10, 30]
    path = tmp_path / "values.csv"
    path.write_text("x,name\n" + "".join(f"{float(v)!r},a\n" for v in x))
    return path, x


@pytest.mark.parametrize("mech", ["sr", "pm"])
@pytest.mark.parametrize("engine", ["exact", "fast"])
def test_mean_mechanism_errors_match_the_closed_form_standard_error(capsys, mean_csv, mech, engine):
    path, x = mean_csv
    out = run_json(capsys, "simulate", "-m", mech, "-e", "1", "--data", path, "--column", "x", "--range", "10,30",
                   "--trials", "60", "--seed", "7", "--engine", engine)
    assert MEAN_KEYS <= set(out) and out["mechanism"] == mech and out["users"] == 4000 and out["epsilon"] == 1.0
    assert out["true_mean"] == pytest.approx(x.mean()) and len(out["estimated_mean"]) == 60
    est = np.asarray(out["estimated_mean"])
    se = out["theoretical_variance"] ** 0.5
    # Var[μ̂] in real units: ((30 − 10)/2)² · Σ Var[ṽ|v]/n² — SR at ε = 1: ≈ 10·2.16/√4000 ≈ 0.34
    unit = (x - 10.0) / 10.0 - 1.0
    scale = 2.1639534137386525  # (e + 1)/(e − 1)
    t = np.exp(0.5)
    per = scale ** 2 - unit ** 2 if mech == "sr" else unit ** 2 / (t - 1) + (t + 3) / (3 * (t - 1) ** 2)
    assert se == pytest.approx(10.0 * np.sqrt(per.sum()) / 4000, rel=1e-9)
    # unbiased: the average of 60 trials is within 4 SE/√60 of the truth; the RMSE is the SE within a
    # chi-square(60) band (±40 %, far beyond 4σ of √(2/60) ≈ 18 % relative on the variance → 9 % on the SD)
    assert abs(est.mean() - out["true_mean"]) < 4 * se / np.sqrt(60)
    rmse = np.sqrt(np.mean((est - out["true_mean"]) ** 2))
    assert 0.6 * se < rmse < 1.4 * se
    summ = out["summary"]
    assert summ["mean_error"] == pytest.approx(np.mean(np.abs(est - out["true_mean"])))
    # the variance (50/50 split, §6.3): σ̂² = 2(z̄ + 1) over 2000 users, so in real units its SD is at most
    # 10²·2·√(worst Var[ṽ]/2000) (≈ 9.7 for SR, ≈ 10.3 for PM at ε = 1); E|error| ≈ 0.8·SD, and the average of
    # 60 trials is within ±8 % (1σ) of that — the bounds 0.3·SD … 1.2·SD are > 5σ away
    assert out["true_variance"] == pytest.approx(x.var())
    sd_max = 100.0 * 2.0 * np.sqrt(ldp.get_mechanism(mech, 1.0).worst_case_variance() / 2000)
    assert 0.3 * sd_max < summ["variance_error"] < 1.2 * sd_max
    assert out["engine"] == engine and out["engine_note"]


def test_mean_mechanism_is_seeded_and_uses_the_data_range_by_default(capsys, mean_csv):
    path, x = mean_csv
    argv = ("simulate", "-m", "sr", "-e", "2", "--data", path, "-c", "x", "--trials", "3", "--seed", "1",
            "--engine", "exact", "--users", "1000")
    a, b = run_json(capsys, *argv), run_json(capsys, *argv)
    assert a["estimated_mean"] == b["estimated_mean"] and a["users"] == 1000
    assert a["range"] == [pytest.approx(x.min()), pytest.approx(x.max())]


def test_pm_fast_engine_says_it_is_gaussian(capsys, mean_csv):
    path, _ = mean_csv
    code, out, err = run(capsys, "simulate", "-m", "pm", "-e", "1", "--data", path, "-c", "x", "--seed", "1")
    assert code == 0 and "Gaussian" in json.loads(out)["engine_note"] and err.startswith("warning: ")


@pytest.mark.parametrize("extra, needle", [
    (("-c", "name"), "not numeric"),
    (("-c", "x", "--range", "12,20"), "outside the range"),
    (("-c", "x", "--range", "20,12"), "LO < HI"),
    (("-c", "x", "--buckets", "8"), "--buckets"),
    (("-c", "x", "--users", "1"), "at least 2"),
    (("-c", "x", "--format", "csv"), "JSON only"),
    (("-c", "nope"), "nope"),
])
def test_mean_mechanism_bad_input_is_one_line(capsys, mean_csv, extra, needle):
    path, _ = mean_csv
    line = assert_bad(capsys, "simulate", "-m", "pm", "-e", "1", "--data", path, *extra)
    assert needle in line


def test_mean_mechanism_bad_epsilon_is_one_line(capsys, mean_csv):
    path, _ = mean_csv
    assert_bad(capsys, "simulate", "-m", "sr", "-e", "-1", "--data", path, "-c", "x")


def test_more_buckets_than_distinct_values_is_warned_on_stderr(capsys):
    code, out, err = run(capsys, "simulate", "-m", "sw", "-e", "1", "--sample", "flights", "--column", "dep_hour",
                         "--buckets", "32", "--users", "2000", "--seed", "1")
    assert code == 0
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("warning: ") and "32 buckets" in lines[0]
    assert "24 distinct values" in lines[0] and json.loads(out)["warnings"] == [lines[0][len("warning: "):]]
    code, out, err = run(capsys, "simulate", "-m", "sw", "-e", "1", "--sample", "flights", "--column", "dep_hour",
                         "--buckets", "16", "--users", "2000", "--seed", "1")
    assert code == 0 and err == "" and json.loads(out)["warnings"] == []
