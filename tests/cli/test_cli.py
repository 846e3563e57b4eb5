"""The ``ldp`` command line, run in-process through ``main([...])`` and a few times as ``python -m ldp``."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ldp
from ldp.cli import SIMULATE_CSV_COLUMNS, SIMULATE_METRICS_CSV_COLUMNS, main
from ldp.cli.population import with_domain_size
from ldp.data import encode_integer, load_table
from ldp.simulation import SWEEP_COLUMNS

REPO = Path(__file__).resolve().parents[2]
FREQUENCY_ORACLES = {"grr", "sue", "oue", "blh", "olh", "ss", "hr", "the", "she", "l-grr", "l-sue", "l-oue",
                     "l-soue", "l-osue", "l-blh", "l-olh", "flh", "hadamard", "cms", "hcms", "dbitflip", "rappor"}
# every mechanism of every kind is listed: the frequency oracles, the numerical and the mean mechanisms
VECTOR_MECHANISMS = {"split-laplace", "split-sr", "split-pm", "split-hm", "harmony", "sample-pm", "kd-pm", "kd-hm",
                     "duchi", "gaussian-vector"}
ALL_MECHANISMS = FREQUENCY_ORACLES | {"sw", "sw-discrete", "cfo-binning", "gw", "hh", "haar-hrr", "laplace", "sr", "pm",
                                      "hm", "1bitmean", "gaussian", "gaussian-bits"} | VECTOR_MECHANISMS
PROTOCOL_NAMES = {"pem", "treehist", "privtrie", "segments", "segment-pair", "multiple-channel", "svim", "svsm",
                  "ldpminer", "psfo", "strawman"}
D = 8
ROWS = 300


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


@pytest.fixture
def people(tmp_path: Path) -> Path:
    """A small CSV: categorical 'color', numerical 'age', integer codes 'code' in [0, 8), text 'name'."""
    rng = np.random.default_rng(7)
    colors = np.array(["red", "green", "blue", "cyan"])[rng.integers(0, 4, ROWS)]
    ages = np.round(rng.uniform(18, 90, ROWS), 1)
    codes = rng.integers(0, D, ROWS)
    path = tmp_path / "people.csv"
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["color", "age", "code", "name"])
        for i in range(ROWS):
            w.writerow([colors[i], ages[i], codes[i], f"user{i}"])
    return path


@pytest.fixture
def domain_file(tmp_path: Path) -> Path:
    path = tmp_path / "colors.txt"
    path.write_text("red\ngreen\nblue\ncyan\nmagenta\n")
    return path


def files_in(directory: Path) -> set[str]:
    return {p.name for p in directory.iterdir()}


# --------------------------------------------------------------------------- listings
def test_mechanisms_json(capsys: pytest.CaptureFixture[str]) -> None:
    listed = run_json(capsys, "mechanisms", "--format", "json")
    assert {m["name"] for m in listed} == ALL_MECHANISMS | PROTOCOL_NAMES
    # the interactive protocols are listed with their kind and the command that runs them (issue 20)
    protocols = {m["name"]: m for m in listed if m["collection"] == "interactive"}
    assert set(protocols) <= PROTOCOL_NAMES and {"pem", "svim"} <= set(protocols)
    assert {m["kind"] for m in protocols.values()} == {"heavy-hitters", "itemsets"}
    assert all(m["cli_command"] in ("heavy-hitters", "itemsets") and m["client"] for m in protocols.values())
    items = [m for m in listed if m["name"] in ALL_MECHANISMS]
    for m in items:
        assert {"name", "kind", "parameters", "description", "paper"} <= set(m)
        assert m["name"] == m["name"].lower()
        assert m["kind"] in ("frequency", "numerical", "mean", "vector")
        assert (m["kind"] == "vector") == (m["name"] in VECTOR_MECHANISMS)
        assert m["collection"] in ("one-time", "longitudinal")
        names = [p["name"] for p in m["parameters"]]
        assert names[:2] == ["epsilon", "d"]
        assert ("epsilon_1" in names) == (m["collection"] == "longitudinal")
        assert m["default_estimator"] in ldp.ESTIMATORS
    olh = next(m for m in items if m["name"] == "olh")
    assert {"g", "prime"} <= {p["name"] for p in olh["parameters"]}
    assert run_json(capsys, "mechanisms") == listed  # json is the default


def test_mechanisms_table_and_filter(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "mechanisms", "--format", "table")
    assert code == 0 and out.splitlines()[0].split()[:4] == ["NAME", "KIND", "COLLECTION", "PARAMETERS"]
    assert all(name in out for name in ALL_MECHANISMS)
    items = run_json(capsys, "mechanisms", "--kind", "longitudinal")
    assert {m["name"] for m in items} == {n for n in ALL_MECHANISMS if n.startswith("l-")} | {"rappor"}  # memoized
    for kind in ("frequency", "numerical", "mean"):
        items = run_json(capsys, "mechanisms", "--kind", kind)
        assert items and {m["name"] for m in items} == {c.name for c in ldp.mechanisms_of(kind)}


def test_estimators(capsys: pytest.CaptureFixture[str]) -> None:
    items = run_json(capsys, "estimators", "--format", "json")
    assert {e["name"] for e in items} == set(ldp.ESTIMATORS.names())
    assert all({"name", "description", "paper", "parameters"} <= set(e) for e in items)
    code, out, _ = run(capsys, "estimators", "--format", "table")
    assert code == 0 and "norm-sub" in out


def test_help_and_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "simulate", "--help")
    assert code == 0 and "metrics-csv" in out and "--epsilon-1" in out
    code, out, _ = run(capsys, "--version")
    assert code == 0 and ldp.__version__ in out


# --------------------------------------------------------------------------- simulate
SIM_KEYS = {"mechanism", "epsilon", "users", "engine", "domain", "true", "theoretical_variance", "summary", "trials",
            "elapsed_s"}


def check_shapes(out: dict, d: int, trials: int, estimators: list[str]) -> None:
    assert SIM_KEYS <= set(out)
    assert len(out["domain"]) == d and len(out["true"]) == d
    assert abs(sum(out["true"]) - 1) < 1e-9
    assert set(out["summary"]) == set(estimators)
    for metrics in out["summary"].values():
        assert {"mse", "mae"} <= set(metrics)
    assert len(out["trials"]) == trials
    for trial in out["trials"]:
        assert set(trial["estimates"]) == set(estimators)
        assert all(len(v) == d for v in trial["estimates"].values())
    assert isinstance(out["elapsed_s"], float) and out["elapsed_s"] >= 0
    assert out["theoretical_variance"] > 0


def test_simulate_synthetic(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "simulate", "--mechanism", "OUE", "--epsilon", "1", "--synthetic", "zipf:s=1.5,d=12",
                   "--users", "2000", "--estimators", "mi,norm-sub", "--trials", "3", "--seed", "5")
    check_shapes(out, 12, 3, ["mi", "norm-sub"])
    assert out["mechanism"] == "oue" and out["epsilon"] == 1.0 and out["users"] == 2000 and out["engine"] == "fast"
    assert out["domain"][0] == "1" and out["true"][0] > out["true"][-1]
    assert out["source"] == {"synthetic": "zipf:s=1.5,d=12"}
    ns = out["trials"][0]["estimates"]["norm-sub"]
    assert abs(sum(ns) - 1) < 1e-9 and min(ns) >= 0


def test_simulate_synthetic_domain_size_override(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "simulate", "-m", "grr", "-e", "2", "--synthetic", "gaussian(mu=0,sigma=1)",
                   "--domain-size", "6", "-n", "500", "-s", "1")
    check_shapes(out, 6, 1, ["mi"])


def test_simulate_categorical_csv(capsys: pytest.CaptureFixture[str], people: Path) -> None:
    out = run_json(capsys, "simulate", "-m", "grr", "-e", "1", "--data", people, "--column", "color", "-s", "1",
                   "--engine", "exact", "--trials", "2")
    check_shapes(out, 4, 2, ["mi"])
    assert out["domain"] == ["blue", "cyan", "green", "red"]
    assert out["users"] == ROWS and out["engine"] == "exact"
    assert out["source"]["rows"] == ROWS and out["source"]["column"] == "color"


def test_simulate_integer_column(capsys: pytest.CaptureFixture[str], people: Path) -> None:
    out = run_json(capsys, "simulate", "-m", "olh", "-e", "1", "--param", "g=5", "--data", people, "--column",
                   "code", "--domain-size", "10", "-s", "2")
    check_shapes(out, 10, 1, ["mi"])
    assert out["parameters"]["g"] == 5
    assert out["true"][8] == 0 and out["true"][9] == 0  # codes 8, 9 never occur
    counts = encode_integer(load_table(people)["code"], 10).true_counts()
    assert np.allclose(np.array(out["true"]) * ROWS, counts)


def test_simulate_domain_file(capsys: pytest.CaptureFixture[str], people: Path, domain_file: Path) -> None:
    out = run_json(capsys, "simulate", "-m", "sue", "-e", "1", "--data", people, "-c", "color", "--domain",
                   domain_file, "-s", "2")
    assert out["domain"] == ["red", "green", "blue", "cyan", "magenta"] and out["true"][4] == 0


def test_simulate_buckets(capsys: pytest.CaptureFixture[str], people: Path) -> None:
    out = run_json(capsys, "simulate", "-m", "hr", "-e", "1", "--data", people, "-c", "age", "--buckets", "6",
                   "--range", "0,120", "-s", "3")
    check_shapes(out, 6, 1, ["mi"])
    assert out["domain"][0] == "[0, 20)" and out["source"]["edges"][-1] == 120.0
    assert out["true"][-1] == 0 and out["true"][-2] > 0  # ages are in [18, 90]
    out = run_json(capsys, "simulate", "-m", "hr", "-e", "1", "--data", people, "-c", "age", "--buckets", "4",
                   "-s", "3")  # default range: min, max
    assert all(f > 0 for f in out["true"])
    out = run_json(capsys, "simulate", "-m", "hr", "-e", "1", "--data", people, "-c", "age", "--buckets", "4",
                   "--range", "20,50", "--clip", "-s", "3")
    assert out["source"]["clipped"] > 0


def test_simulate_bundled_sample(capsys: pytest.CaptureFixture[str]) -> None:
    from ldp.data.samples import sample_path

    if not sample_path("planes").is_file():
        pytest.skip("bundled sample not built")
    out = run_json(capsys, "simulate", "-m", "grr", "-e", "2", "--sample", "planes", "-c", "engines", "-n", "1000",
                   "-s", "1")
    assert out["users"] == 1000 and out["source"]["sample"] == "planes"
    assert "stand_in" not in out["source"]


def test_samples_lists_the_bundled_data_and_their_stand_ins(capsys: pytest.CaptureFixture[str]) -> None:
    """``ldp samples``: every bundled sample (tables, then basket files) with what it stands in for; ``--kind``."""
    listed = run_json(capsys, "samples")
    assert [s["name"] for s in listed] == ["flights", "weather", "planes", "election", "income", "plane_destinations"]
    assert [s["name"] for s in run_json(capsys, "samples", "--kind", "baskets")] == ["plane_destinations"]
    code, out, _ = run(capsys, "samples", "--kind", "table", "--format", "table")
    lines = {line.split()[0]: line for line in out.splitlines()[1:]}
    assert code == 0 and set(lines) == {"flights", "weather", "planes", "election", "income"}
    assert lines["income"].endswith("husband_income: stand-in for the Income data of the SW paper")
    assert lines["flights"].endswith("dep_time_hours: stand-in for the Taxi pick-up time data of the SW paper")
    assert lines["weather"].endswith(" -")
    assert "invalid choice: 'sets'" in assert_bad(capsys, "samples", "--kind", "sets")


def test_simulate_on_a_stand_in_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 23: the income sample's husband_income stands in for the SW paper's Income data; the JSON source says
    so; without --range the buckets span the data's own range, $0 to $183,719."""
    out = run_json(capsys, "simulate", "-m", "sw", "-e", "2", "--sample", "income", "-c", "husband_income",
                   "--buckets", "20", "-n", "2000", "-s", "1")
    assert out["source"]["stand_in"].startswith("stand-in for the Income data of the SW paper")
    assert out["source"]["edges"][0] == 0 and out["source"]["edges"][-1] == 183_719 and out["users"] == 2000


def test_perturb_parquet(capsys: pytest.CaptureFixture[str], tmp_path: Path, people: Path) -> None:
    table = tmp_path / "people.parquet"
    load_table(people).to_parquet(table)
    reports = tmp_path / "r.txt"
    assert run(capsys, "perturb", "-m", "hr", "-e", "1", "-d", D, "--data", table, "-c", "code", "-s", "1",
               "-o", reports)[0] == 0
    assert run_json(capsys, "aggregate", "-m", "hr", "-e", "1", "-d", D, "-r", reports)["users"] == ROWS


def test_simulate_resamples_users(capsys: pytest.CaptureFixture[str], people: Path) -> None:
    out = run_json(capsys, "simulate", "-m", "grr", "-e", "1", "--data", people, "-c", "color", "-n", "5000",
                   "-s", "4")
    assert out["users"] == 5000
    again = run_json(capsys, "simulate", "-m", "grr", "-e", "1", "--data", people, "-c", "color", "-n", "5000",
                     "-s", "4")
    assert again["true"] == out["true"]


def test_simulate_matches_library(capsys: pytest.CaptureFixture[str], people: Path) -> None:
    out = run_json(capsys, "simulate", "-m", "ss", "-e", "1", "--param", "omega=3", "--data", people, "-c", "code",
                   "-d", str(D), "--estimators", "mi,norm-sub", "-t", "2", "-s", "11")
    mech = ldp.get_mechanism("ss", 1.0, D, omega=3)
    counts = encode_integer(load_table(people)["code"], D).true_counts()
    lib = ldp.simulate(mech, counts, estimators=["mi", "norm-sub"], trials=2, seed=11)
    for t in range(2):
        for est in ("mi", "norm-sub"):
            assert out["trials"][t]["estimates"][est] == lib.estimates[est][t].tolist()
    assert out["parameters"] == {"omega": 3}


def test_simulate_is_reproducible(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["simulate", "-m", "olh", "-e", "1.5", "--synthetic", "zipf:d=20", "-n", "3000", "-t", "2",
            "--estimators", "mi,norm-sub"]
    a = run_json(capsys, *argv, "--seed", "9")
    b = run_json(capsys, *argv, "--seed", "9")
    c = run_json(capsys, *argv, "--seed", "10")
    assert [t["estimates"] for t in a["trials"]] == [t["estimates"] for t in b["trials"]]
    assert a["true"] == b["true"]
    assert [t["estimates"] for t in a["trials"]] != [t["estimates"] for t in c["trials"]]


def test_simulate_longitudinal(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "simulate", "-m", "l-osue", "-e", "2", "--epsilon-1", "0.5", "--synthetic", "zipf:d=5",
                   "-n", "1000", "-s", "1")
    assert out["epsilon"] == 2.0 and out["epsilon_1"] == 0.5
    out = run_json(capsys, "simulate", "-m", "l-grr", "-e", "2", "--synthetic", "zipf:d=5", "-n", "1000", "-s", "1")
    assert out["epsilon_1"] == 1.0  # default ε/2


def test_simulate_csv_formats(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    base = ["simulate", "-m", "grr", "-e", "1", "--synthetic", "zipf:d=5", "-n", "400", "-t", "2", "-s", "1",
            "--estimators", "mi,norm-sub"]
    code, out, _ = run(capsys, *base, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and tuple(rows[0]) == SIMULATE_CSV_COLUMNS
    assert len(rows) == 2 * 2 * 5
    assert {r["value"] for r in rows} == {"1", "2", "3", "4", "5"}
    reference = run_json(capsys, *base)
    first = [float(r["estimate"]) for r in rows if r["trial"] == "0" and r["estimator"] == "mi"]
    assert first == reference["trials"][0]["estimates"]["mi"]
    target = tmp_path / "m.csv"
    code, out, _ = run(capsys, *base, "--format", "metrics-csv", "--output", target)
    assert code == 0 and out == ""
    rows = list(csv.DictReader(target.open()))
    assert tuple(rows[0]) == SIMULATE_METRICS_CSV_COLUMNS and len(rows) == 2 * 2 * 5
    assert not any(name.endswith(".tmp") for name in files_in(tmp_path))


def test_simulate_json_output_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    target = tmp_path / "sim.json"
    code, out, _ = run(capsys, "simulate", "-m", "the", "-e", "1", "--synthetic", "zipf:d=4", "-n", "100", "-s", "1",
                       "-o", target)
    assert code == 0 and out == ""
    assert json.loads(target.read_text())["mechanism"] == "the"


# --------------------------------------------------------------------------- perturb → aggregate
ROUND_TRIP = [(name, []) for name in sorted(FREQUENCY_ORACLES)] + [
    ("olh", ["g=5"]), ("ss", ["omega=3"]), ("the", ["theta=0.7"]), ("l-olh", ["g=3", "prime=13"]),
    ("blh", ["prime=17"]),
]


@pytest.mark.parametrize(("name", "params"), ROUND_TRIP, ids=[f"{n}{'-' + '-'.join(p) if p else ''}"
                                                              for n, p in ROUND_TRIP])
def test_perturb_aggregate_round_trip(capsys: pytest.CaptureFixture[str], tmp_path: Path, people: Path, name: str,
                                      params: list[str]) -> None:
    opts = [a for p in params for a in ("--param", p)]
    eps1 = ["--epsilon-1", "0.7"] if name.startswith("l-") else []
    reports = tmp_path / "reports.txt"
    code, _, err = run(capsys, "perturb", "-m", name, "-e", "1.5", *eps1, *opts, "-d", D, "--data", people,
                       "-c", "code", "--seed", "3", "--output", reports)
    assert code == 0, err
    out = run_json(capsys, "aggregate", "-m", name, "-e", "1.5", *eps1, *opts, "-d", D, "--reports", reports,
                   "--estimators", "mi,norm-sub")
    assert out["users"] == ROWS and out["domain"] == [str(v) for v in range(D)] and out["header"] is True
    # the library on the same reports gives exactly the same numbers
    table = {p.name: p for p in ldp.MECHANISMS.get(name).own_parameters()}
    kwargs = {k: table[k].parse(v) for k, v in (p.split("=") for p in params)}
    if eps1:
        kwargs["epsilon_1"] = 0.7
    mech = ldp.get_mechanism(name, 1.5, D, **kwargs)
    lines = [line for line in reports.read_text().splitlines() if not line.startswith("#")]
    parsed = mech.parse_reports(lines)
    mi = mech.estimate(mech.support_counts(parsed), ROWS).values
    assert out["estimates"]["mi"] == mi.tolist()
    assert out["estimates"]["norm-sub"] == ldp.norm_sub(mi).tolist()
    # ... and the file holds the library's own perturbation of the column with that seed
    values = encode_integer(load_table(people)["code"], D).values
    direct = mech.perturb(values, ldp.make_rng(3))
    if name == "she":
        np.testing.assert_allclose(parsed, direct, rtol=1e-5, atol=1e-5)
    else:
        assert np.array_equal(np.asarray(parsed, dtype=np.int64), np.asarray(direct, dtype=np.int64))
    assert out["parameters"] == {k: v for k, v in mech.params.items() if k != "epsilon_1"}


def test_perturb_with_domain_file(capsys: pytest.CaptureFixture[str], tmp_path: Path, people: Path,
                                  domain_file: Path) -> None:
    reports = tmp_path / "r.txt"
    assert run(capsys, "perturb", "-m", "grr", "-e", "2", "--domain", domain_file, "--data", people, "-c", "color",
               "-s", "1", "-o", reports)[0] == 0
    out = run_json(capsys, "aggregate", "-m", "grr", "-e", "2", "--domain", domain_file, "--reports", reports)
    assert out["domain"] == ["red", "green", "blue", "cyan", "magenta"] and len(out["estimates"]["mi"]) == 5
    code, text, _ = run(capsys, "aggregate", "-m", "grr", "-e", "2", "--domain", domain_file, "--reports", reports,
                        "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert code == 0 and len(rows) == 5 and rows[0]["value"] == "red"


def test_perturb_secure(capsys: pytest.CaptureFixture[str], tmp_path: Path, people: Path) -> None:
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    for target in (first, second):
        code, _, err = run(capsys, "perturb", "-m", "oue", "-e", "1", "-d", D, "--data", people, "-c", "code",
                           "--secure", "-o", target)
        assert code == 0, err
    assert "seeded" not in first.read_text().splitlines()[2]
    assert first.read_text() != second.read_text()
    out = run_json(capsys, "aggregate", "-m", "oue", "-e", "1", "-d", D, "--reports", first)
    assert out["users"] == ROWS and len(out["estimates"]["mi"]) == D
    # issue 10 item 11: without --seed a genuine collection (OS randomness), never reproducible; with --seed a
    # simulation, said on stderr and in the file's header
    third = tmp_path / "c.txt"
    code, _, err = run(capsys, "perturb", "-m", "oue", "-e", "1", "-d", D, "--data", people, "-c", "code", "-o", third)
    assert code == 0 and "warning" not in err and third.read_text() != first.read_text()
    assert '"simulated"' not in third.read_text().splitlines()[0]
    seeded = tmp_path / "d.txt"
    code, _, err = run(capsys, "perturb", "-m", "oue", "-e", "1", "-d", D, "--data", people, "-c", "code", "--seed",
                       "7", "-o", seeded)
    assert code == 0 and "warning: --seed 7" in err and "recover every true value" in err
    assert '"simulated": true' in seeded.read_text()
    # seed and secure are exclusive
    assert_bad(capsys, "perturb", "-m", "oue", "-e", "1", "-d", D, "--data", people, "-c", "code", "--secure",
               "--seed", "1", "-o", first)


@pytest.fixture
def olh_reports(capsys: pytest.CaptureFixture[str], tmp_path: Path, people: Path) -> Path:
    path = tmp_path / "olh.txt"
    assert run(capsys, "perturb", "-m", "olh", "-e", "1", "-d", D, "--data", people, "-c", "code", "-s", "1",
               "-o", path)[0] == 0
    return path


@pytest.mark.parametrize(("argv", "needle"), [
    (["-m", "grr", "-e", "1", "-d", D], "mechanism 'olh' in the file, 'grr' here"),
    (["-m", "olh", "-e", "2", "-d", D], "epsilon 1.0 in the file, 2.0 here"),
    (["-m", "olh", "-e", "1", "-d", 9], "d 8 in the file, 9 here"),
    (["-m", "olh", "-e", "1", "-d", D, "--param", "prime=13"], "parameter prime 11 in the file, 13 here"),
    (["-m", "olh", "-e", "1", "-d", D, "--param", "g=3"], "parameter g"),
])
def test_aggregate_rejects_other_settings(capsys: pytest.CaptureFixture[str], olh_reports: Path, argv: list,
                                          needle: str) -> None:
    line = assert_bad(capsys, "aggregate", *argv, "--reports", olh_reports)
    assert needle in line


@pytest.mark.parametrize(("mechanism", "text", "needle"), [
    ("sue", "0101\n0101\n", "expected 8 characters"),  # wrong length
    ("sue", "01010101\n0101010\n", "report line 2"),
    ("sue", "01010101\n01210101\n", "report line 2"),  # not a bit
    ("grr", "1\n8\n", "out of range"),  # out-of-range entry
    ("grr", "1\nabc\n", "report line 2"),
    ("grr", "1\n99999999999999999999\n", "out of range"),
    ("olh", "1 2 3\n0 2 1\n", "hash parameters"),
    ("ss", "0 1\n3 3\n", ""),
    ("hr", "0 1\n3 2\n", "bit"),
    ("she", "1 2\n", ""),
    ("grr", "", "holds no reports"),  # empty file
    ("grr", "# only a comment\n", "holds no reports"),
])
def test_aggregate_rejects_bad_files(capsys: pytest.CaptureFixture[str], tmp_path: Path, mechanism: str, text: str,
                                     needle: str) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(text)
    line = assert_bad(capsys, "aggregate", "-m", mechanism, "-e", "1", "-d", D, "--reports", path)
    assert needle in line


def test_aggregate_rejects_truncated_file(capsys: pytest.CaptureFixture[str], olh_reports: Path) -> None:
    lines = olh_reports.read_text().splitlines(keepends=True)
    olh_reports.write_text("".join(lines[:-1]))
    line = assert_bad(capsys, "aggregate", "-m", "olh", "-e", "1", "-d", D, "--reports", olh_reports)
    assert "header announces" in line


def test_aggregate_accepts_file_without_header(capsys: pytest.CaptureFixture[str], olh_reports: Path) -> None:
    with_header = run_json(capsys, "aggregate", "-m", "olh", "-e", "1", "-d", D, "--reports", olh_reports)
    olh_reports.write_text("".join(ln for ln in olh_reports.read_text().splitlines(keepends=True)
                                   if not ln.startswith("#")))
    without = run_json(capsys, "aggregate", "-m", "olh", "-e", "1", "-d", D, "--reports", olh_reports)
    assert without["header"] is False and without["estimates"] == with_header["estimates"]


# --------------------------------------------------------------------------- sweep
def test_sweep_synthetic(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    target = tmp_path / "sweep.csv"
    code, out, err = run(capsys, "sweep", "--mechanisms", "grr,olh,l-grr", "--epsilons", "0.5,2", "--users",
                         "100,1000", "--domain-sizes", "4,8", "--estimators", "mi,norm-sub", "--trials", "2", "--seed",
                         "3", "--synthetic", "zipf:s=1.2,d=50", "--param", "g=3", "--param", "l-grr.epsilon_1=0.2",
                         "--output", target)
    assert code == 0, err
    rows = list(csv.DictReader(target.open()))
    assert tuple(rows[0]) == SWEEP_COLUMNS
    assert len(rows) == 3 * 2 * 2 * 2 * 2 * 2 * 5
    assert {r["d"] for r in rows} == {"4", "8"} and {r["users"] for r in rows} == {"100", "1000"}
    assert {r["metric"] for r in rows} >= {"mse", "mae"}
    assert files_in(tmp_path) == {"sweep.csv"}
    # reproducible
    code, again, _ = run(capsys, "sweep", "--mechanisms", "grr,olh,l-grr", "--epsilons", "0.5,2", "--users",
                         "100,1000", "--domain-sizes", "4,8", "--estimators", "mi,norm-sub", "--trials", "2", "--seed",
                         "3", "--synthetic", "zipf:s=1.2,d=50", "--param", "g=3", "--param", "l-grr.epsilon_1=0.2")
    assert again == target.read_text()
    # and the same on this process only (the default is a process pool; tests/test_simulation.py forces one)
    code, serial, _ = run(capsys, "sweep", "--mechanisms", "grr,olh,l-grr", "--epsilons", "0.5,2", "--users",
                          "100,1000", "--domain-sizes", "4,8", "--estimators", "mi,norm-sub", "--trials", "2", "--seed",
                          "3", "--synthetic", "zipf:s=1.2,d=50", "--param", "g=3", "--param", "l-grr.epsilon_1=0.2",
                          "--executor", "serial")
    assert serial == again


def test_sweep_real_data(capsys: pytest.CaptureFixture[str], people: Path) -> None:
    code, out, err = run(capsys, "sweep", "--mechanisms", "oue", "--epsilons", "1", "--data", people, "--column",
                         "age", "--domain-sizes", "4,8,16")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0, err
    assert len(rows) == 3 * 5 and {r["d"] for r in rows} == {"4", "8", "16"}
    assert {r["users"] for r in rows} == {str(ROWS)}
    code, out, _ = run(capsys, "sweep", "--mechanisms", "grr", "--epsilons", "1,2", "--data", people, "--column",
                       "color", "--users", "50,500")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and len(rows) == 2 * 2 * 5 and {r["d"] for r in rows} == {"4"}
    line = assert_bad(capsys, "sweep", "--mechanisms", "grr", "--epsilons", "1", "--data", people, "--column",
                      "color", "--domain-sizes", "4,8")
    assert "categorical" in line


def test_with_domain_size() -> None:
    assert with_domain_size("zipf", 7) == "zipf:d=7"
    assert with_domain_size("zipf:s=1.5,d=100", 7) == "zipf:s=1.5,d=7"
    assert with_domain_size("beta(a=2,b=2)", 7) == "beta(a=2,b=2,d=7)"
    mix = with_domain_size("mix:0.3*gaussian(mu=0.3,sigma=0.05)+0.7*uniform,d=64", 9)
    assert mix == "mix:0.3*gaussian(mu=0.3,sigma=0.05)+0.7*uniform,d=9"
    from ldp.data import parse_spec
    assert parse_spec(mix)[1]["d"] == 9


# --------------------------------------------------------------------------- bad input
@pytest.fixture
def bad_files(tmp_path: Path) -> dict[str, Path]:
    files = {"empty": tmp_path / "empty.csv", "malformed": tmp_path / "malformed.csv",
             "garbage": tmp_path / "garbage.parquet", "headeronly": tmp_path / "headeronly.csv"}
    files["empty"].write_text("")
    files["malformed"].write_bytes(b'a,b\n1,"unterminated\n\xff\xfe')
    files["garbage"].write_bytes(b"this is not parquet")
    files["headeronly"].write_text("color,age\n")
    return files


BAD_SIMULATE = {
    "epsilon zero": ["-e", "0"],
    "epsilon negative": ["-e", "-1"],
    "epsilon nan": ["-e", "nan"],
    "epsilon inf": ["-e", "inf"],
    "epsilon not a number": ["-e", "abc"],
    "users zero": ["-n", "0"],
    "users huge": ["-n", str(10**30)],
    "trials zero": ["-t", "0"],
    "domain size one": ["-d", "1", "-c", "code"],
    "value outside domain": ["-d", "4", "-c", "code"],
    "not integers": ["-d", "4", "-c", "age"],
    "missing column": ["-c", "nope"],
    "non-numeric buckets": ["-c", "color", "--buckets", "4"],
    "buckets one": ["-c", "age", "--buckets", "1"],
    "values outside range": ["-c", "age", "--buckets", "4", "--range", "20,50"],
    "bad range": ["-c", "age", "--buckets", "4", "--range", "5"],
    "reversed range": ["-c", "age", "--buckets", "4", "--range", "9,5"],
    "range without buckets": ["-c", "age", "--range", "0,5"],
    "unknown mechanism": ["-m", "nope"],
    "unknown estimator": ["--estimators", "mi,nope"],
    "no estimator": ["--estimators", ","],
    "unknown param": ["-p", "g=3"],
    "param without value": ["-m", "olh", "-p", "g"],
    "param wrong type": ["-m", "olh", "-p", "g=abc"],
    "param out of range": ["-m", "ss", "-p", "omega=20"],
    "epsilon_1 on one-time": ["--epsilon-1", "0.5"],
    "epsilon_1 too large": ["-m", "l-grr", "--epsilon-1", "3"],
    "unknown engine": ["--engine", "slow"],
    "negative seed": ["-s", "-1"],
    "unknown format": ["--format", "xml"],
}


@pytest.mark.parametrize("case", list(BAD_SIMULATE))
def test_simulate_bad_input(capsys: pytest.CaptureFixture[str], tmp_path: Path, people: Path, case: str) -> None:
    argv = {"-m": "grr", "-e": "1", "-c": "color"}
    extra = list(BAD_SIMULATE[case])
    for flag in list(argv):
        if flag in extra:
            i = extra.index(flag)
            argv[flag] = extra[i + 1]
            del extra[i:i + 2]
    target = tmp_path / "out.json"
    before = files_in(tmp_path)
    assert_bad(capsys, "simulate", *[x for kv in argv.items() for x in kv], "--data", people, "-s", "1", *extra,
               "-o", target)
    assert files_in(tmp_path) == before


@pytest.mark.parametrize("which", ["empty", "malformed", "garbage", "headeronly", "missing", "directory"])
def test_bad_data_files(capsys: pytest.CaptureFixture[str], tmp_path: Path, bad_files: dict[str, Path],
                        which: str) -> None:
    path = {"missing": tmp_path / "missing.csv", "directory": tmp_path}.get(which) or bad_files[which]
    target = tmp_path / "out.json"
    assert_bad(capsys, "simulate", "-m", "grr", "-e", "1", "--data", path, "-c", "a", "-s", "1", "-o", target)
    assert_bad(capsys, "perturb", "-m", "grr", "-e", "1", "-d", 4, "--data", path, "-c", "a", "-s", "1",
               "-o", target)
    assert not target.exists()


@pytest.mark.parametrize("argv", [
    ["--synthetic", "zipf:d=5"],  # no --users
    ["--synthetic", "nope:d=5", "-n", "10"],
    ["--synthetic", "zipf:d=1", "-n", "10"],
    ["--synthetic", "zipf:d=5", "-n", "10", "--column", "x"],
    ["--synthetic", "zipf:d=5", "-n", "10", "--data", "x.csv"],
    [],  # no population
])
def test_simulate_bad_population(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    assert_bad(capsys, "simulate", "-m", "grr", "-e", "1", *argv)


def test_bad_domain_and_output(capsys: pytest.CaptureFixture[str], tmp_path: Path, people: Path) -> None:
    one = tmp_path / "one.txt"
    one.write_text("red\n")
    assert_bad(capsys, "perturb", "-m", "grr", "-e", "1", "--domain", one, "--data", people, "-c", "color", "-s", "1",
               "-o", tmp_path / "r.txt")
    small = tmp_path / "small.txt"
    small.write_text("red\ngreen\n")
    line = assert_bad(capsys, "perturb", "-m", "grr", "-e", "1", "--domain", small, "--data", people, "-c", "color",
                      "-s", "1", "-o", tmp_path / "r.txt")
    assert "not in the given domain" in line
    assert_bad(capsys, "perturb", "-m", "grr", "-e", "1", "-d", "1", "--data", people, "-c", "code", "-s", "1",
               "-o", tmp_path / "r.txt")
    assert_bad(capsys, "perturb", "-m", "grr", "-e", "1", "-d", D, "--data", people, "-c", "code", "-s", "1",
               "-o", tmp_path / "no" / "dir" / "r.txt")
    assert_bad(capsys, "perturb", "-m", "grr", "-e", "1", "-d", D, "--data", people, "-c", "code", "-s", "1",
               "-o", tmp_path)
    assert not (tmp_path / "r.txt").exists()
    assert_bad(capsys, "aggregate", "-m", "grr", "-e", "1", "-d", D, "--reports", tmp_path / "missing.txt")
    assert not any(p.name.endswith(".tmp") for p in tmp_path.iterdir())


@pytest.mark.parametrize("argv", [
    ["--mechanisms", "grr,nope", "--epsilons", "1"],
    ["--mechanisms", "grr", "--epsilons", "1,x"],
    ["--mechanisms", "grr", "--epsilons", "0"],
    ["--mechanisms", "grr", "--epsilons", "1", "--users", "0"],
    ["--mechanisms", "grr", "--epsilons", "1", "--domain-sizes", "1"],
    ["--mechanisms", "grr", "--epsilons", "1", "--estimators", "nope"],
    ["--mechanisms", "grr", "--epsilons", "1", "--param", "g=3"],
    ["--mechanisms", "grr", "--epsilons", "1", "--param", "olh.g=3"],
    ["--mechanisms", "grr", "--epsilons", "1", "--epsilon-1", "0.5"],
    ["--mechanisms", "grr", "--epsilons", "1", "--trials", "0"],
    ["--mechanisms", "grr", "--epsilons", "1", "--workers", "0"],
    ["--mechanisms", "grr", "--epsilons", "1", "--executor", "threads"],
])
def test_sweep_bad_input(capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str]) -> None:
    target = tmp_path / "s.csv"
    users = [] if "--users" in argv else ["--users", "100"]
    assert_bad(capsys, "sweep", *argv, "--synthetic", "zipf:d=5", *users, "-o", target)
    assert files_in(tmp_path) == set()


# --------------------------------------------------------------------------- as a program
def _program(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "ldp", *map(str, argv)], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=120, check=False)


def test_program_ok(tmp_path: Path) -> None:
    done = _program("mechanisms", "--format", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert {m["name"] for m in json.loads(done.stdout)} == ALL_MECHANISMS | PROTOCOL_NAMES


@pytest.mark.parametrize("argv", [
    ["simulate", "-m", "grr", "-e", "0", "--synthetic", "zipf:d=5", "-n", "10", "-o", "out.json"],
    ["aggregate", "-m", "grr", "-e", "1", "-d", "4", "--reports", "reports.txt", "-o", "out.json"],
    ["simulate", "--epsilon", "1"],  # argparse usage error
])
def test_program_bad_input(tmp_path: Path, argv: list[str]) -> None:
    (tmp_path / "reports.txt").write_text("0\n1\n7\n")
    done = _program(*argv, cwd=tmp_path)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and done.stderr.startswith("error: ")
    assert done.stdout == ""
    assert not (tmp_path / "out.json").exists()


def test_ibu_non_convergence_is_reported_not_hidden(capsys):
    """At ε = 1, d = 200, n = 5000 the paper's plain IBU iterations do not reach their tolerance (1e-12) within
    10,000 iterations: the CLI warns on stderr and still returns the last iterate. (The default, the closed-form
    limit, has nothing to warn about.)"""
    import json

    code = main(["simulate", "--mechanism", "oue", "--epsilon", "1", "--synthetic", "zipf:d=200", "--users", "5000",
                 "--estimators", "mi,ibu", "--estimator-param", "ibu.method=em", "--trials", "2", "--seed", "1",
                 "--format", "json"])
    out = capsys.readouterr()
    assert code == 0
    data = json.loads(out.out)
    assert len(data["trials"][0]["estimates"]["ibu"]) == 200
    assert "ibu did not converge" in out.err and data["warnings"]


# --------------------------------------------------------------------------- numerical and mean round trips
@pytest.fixture()
def hours(tmp_path: Path) -> tuple[Path, np.ndarray]:
    x = np.random.default_rng(11).beta(5, 2, size=3000) * 24.0  # departure hours in [0, 24]
    path = tmp_path / "hours.csv"
    path.write_text("hour\n" + "".join(f"{float(v)!r}\n" for v in x))
    return path, x


@pytest.mark.parametrize("name", sorted(c.name for c in ldp.mechanisms_of("numerical")))
def test_numerical_perturb_aggregate_round_trip(capsys, tmp_path, hours, name):
    """The issue's example: perturb with the public range, aggregate the file; the JSON holds the users and the
    estimated distribution over the buckets, equal to the library's own estimate of the same reports."""
    path, x = hours
    reports = tmp_path / "reports.txt"
    code, _, err = run(capsys, "perturb", "--mechanism", name, "--epsilon", "1", "--data", path, "--column", "hour",
                       "--range", "0,24", "--buckets", "16", "--seed", "5", "--output", reports)
    assert code == 0, err
    header = json.loads(reports.read_text().splitlines()[0][len("# ldp-reports "):])
    assert header["range"] == [0.0, 24.0] and header["d"] == 16 and header["users"] == x.size
    out = run_json(capsys, "aggregate", "--mechanism", name, "--epsilon", "1", "--range", "0,24", "--buckets", "16",
                   "--reports", reports, "--format", "json")
    mech = ldp.get_mechanism(name, 1.0, 16)
    assert out["users"] == x.size and out["kind"] == "numerical" and len(out["edges"]) == 17
    estimate = out["estimates"][mech.default_estimator]
    assert len(estimate) == 16
    lines = [line for line in reports.read_text().splitlines() if not line.startswith("#")]
    assert estimate == mech.estimate(mech.aggregate(mech.parse_reports(lines))).values.tolist()
    # the range comes from the header when --range is left out; a different range is refused
    again = run_json(capsys, "aggregate", "-m", name, "-e", "1", "--buckets", "16", "--reports", reports)
    assert again["estimates"] == out["estimates"]
    line = assert_bad(capsys, "aggregate", "-m", name, "-e", "1", "--range", "0,12", "--buckets", "16",
                      "--reports", reports)
    assert "disagrees" in line


def test_numerical_aggregate_default_buckets_and_distribution(capsys, tmp_path, hours):
    path, x = hours
    reports = tmp_path / "sw.txt"
    assert run(capsys, "perturb", "--mechanism", "sw", "--epsilon", "2", "--data", path, "--column", "hour",
               "--range", "0,24", "--output", reports, "--seed", "1")[0] == 0
    out = run_json(capsys, "aggregate", "--mechanism", "sw", "--epsilon", "2", "--range", "0,24", "--reports",
                   reports, "--format", "json")
    est = np.asarray(out["estimates"]["ems"])
    assert out["d"] == 32 and est.size == 32 and abs(est.sum() - 1) < 1e-9 and np.all(est >= 0)
    # the estimate is a histogram of the hours: its mean is within 1.5 h of the data's (a Beta(5, 2) × 24 column)
    centres = (np.asarray(out["edges"][:-1]) + np.asarray(out["edges"][1:])) / 2
    assert abs(float(centres @ est) - x.mean()) < 1.5


@pytest.mark.parametrize("name", sorted(c.name for c in ldp.mechanisms_of("mean")))
def test_mean_perturb_aggregate_round_trip(capsys, tmp_path, hours, name):
    path, x = hours
    reports = tmp_path / "reports.txt"
    assert run(capsys, "perturb", "-m", name, "-e", "1", "--data", path, "-c", "hour", "--range", "0,24",
               "--seed", "2", "-o", reports)[0] == 0
    out = run_json(capsys, "aggregate", "-m", name, "-e", "1", "--range", "0,24", "--reports", reports)
    mech = ldp.get_mechanism(name, 1.0)
    # the mean in real units: 12·(average report + 1); its SD is at most 12·√(max Var[ṽ]/n), so 5 of them hold it
    assert out["users"] == x.size and out["kind"] == "mean"
    bound = 12 * np.sqrt(mech.worst_case_variance() / x.size)
    assert out["standard_error_bound"] == pytest.approx(bound)
    assert abs(out["mean"] - x.mean()) < 5 * bound
    lines = [line for line in reports.read_text().splitlines() if not line.startswith("#")]
    assert out["mean"] == pytest.approx(12 * (mech.estimate_mean(mech.parse_reports(lines)) + 1))


@pytest.mark.parametrize(("argv", "needle"), [
    (["-m", "sw", "-e", "1", "--buckets", "8"], "--range LO,HI"),
    (["-m", "sw", "-e", "1", "-d", "8", "--range", "0,24"], "cannot be used with the numerical mechanism sw"),
    (["-m", "pm", "-e", "1", "--range", "0,24", "--buckets", "8"], "--buckets"),
    (["-m", "grr", "-e", "1", "-d", "8", "--range", "0,24"], "cannot be used with the frequency mechanism grr"),
])
def test_perturb_kind_options_are_one_line_errors(capsys, tmp_path, hours, argv, needle):
    path, _ = hours
    out = tmp_path / "r.txt"
    line = assert_bad(capsys, "perturb", *argv, "--data", path, "-c", "hour", "--seed", "1", "-o", out)
    assert needle in line and not out.exists()


# --------------------------------------------------------------------------- outputs never replace inputs
def test_an_output_that_is_an_input_is_refused_and_the_input_survives(capsys: pytest.CaptureFixture[str],
                                                                      people: Path, tmp_path: Path) -> None:
    """Issue 10 item 8: `perturb -o in.csv --data in.csv` and `aggregate -o rep.txt --reports rep.txt` destroyed
    the input and exited 0; also through a symbolic link."""
    before = people.read_bytes()
    line = assert_bad(capsys, "perturb", "-m", "grr", "-e", "1", "-d", str(D), "--data", str(people), "-c", "code",
                      "-s", "1", "-o", str(people))
    assert "--data" in line and people.read_bytes() == before
    link = tmp_path / "link.csv"
    link.symlink_to(people)
    assert_bad(capsys, "perturb", "-m", "grr", "-e", "1", "-d", str(D), "--data", str(people), "-c", "code",
               "-s", "1", "-o", str(link))
    assert people.read_bytes() == before
    reports = tmp_path / "r.txt"
    assert main(["perturb", "-m", "grr", "-e", "1", "-d", str(D), "--data", str(people), "-c", "code", "-s", "1",
                 "-o", str(reports)]) == 0
    capsys.readouterr()
    kept = reports.read_bytes()
    assert_bad(capsys, "aggregate", "-m", "grr", "-e", "1", "-d", str(D), "--reports", str(reports), "-o",
               str(reports))
    assert reports.read_bytes() == kept


def test_sigterm_leaves_no_partial_output(tmp_path: Path) -> None:
    """Issue 10 item 8: a SIGTERM in the middle of writing left a hidden partial temporary file."""
    import signal
    import time

    target = tmp_path / "sweep.csv"
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "ldp", "sweep", "--mechanisms", "grr,oue,olh,ss",
                             "--epsilons", ",".join(str(0.1 * k) for k in range(1, 200)), "--users", "100000",
                             "--synthetic", "zipf:d=512", "--trials", "50", "--executor", "serial", "-o", str(target)],
                            env=env, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not any(p.name.endswith(".tmp") for p in tmp_path.iterdir()) and time.monotonic() < deadline:
        time.sleep(0.05)  # wait until the output is being written
    assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
    proc.send_signal(signal.SIGTERM)
    code = proc.wait(timeout=60)
    assert code == 130 and files_in(tmp_path) == set()


def test_aggregate_warns_when_the_reports_do_not_fit_the_configuration(capsys: pytest.CaptureFixture[str],
                                                                       people: Path, tmp_path: Path) -> None:
    """Issue 10 item 7: a header-less OUE file aggregated as SUE was estimated without a word."""
    reports = tmp_path / "r.txt"
    assert main(["perturb", "-m", "oue", "-e", "1", "-d", str(D), "--data", str(people), "-c", "code", "-o",
                 str(reports)]) == 0
    body = [line for line in reports.read_text().splitlines() if not line.startswith("#")]
    bare = tmp_path / "bare.txt"
    bare.write_text("\n".join(body) + "\n")
    capsys.readouterr()
    code, out, err = run(capsys, "aggregate", "-m", "sue", "-e", "1", "-d", str(D), "--reports", str(bare),
                         "--format", "json")
    assert code == 0 and "no ldp-reports header" in err
    assert json.loads(out)["consistency_warnings"] and "another mechanism" in err
    code, out, err = run(capsys, "aggregate", "-m", "oue", "-e", "1", "-d", str(D), "--reports", str(reports),
                         "--format", "json")
    assert code == 0 and json.loads(out)["consistency_warnings"] == [] and "warning" not in err


@pytest.mark.parametrize(("engine", "users"), [("fast", 5_000), ("exact", 3_000), ("fast", None)])
def test_the_command_line_draws_the_same_users_as_the_pages(capsys: pytest.CaptureFixture[str], engine, users):
    """Issue 20: the CLI drew users from the stream ("cli", "users"), the pages from ("population"), sweeps from
    ("sweep", "population", …) — the same seed, three populations. Now every caller goes through
    ``ldp.data.domain.draw_population`` and its one stream: the Playground's computation (the sample's column,
    ``draw_population(counts, users, seed)``, then ``ldp.simulate(…, seed=seed)``, as views/playground.py does) and
    ``ldp simulate`` give the same estimates to 1e-12 (None: the data's own rows, no draw)."""
    from ldp.data import encode_categorical, get_column, load_sample
    from ldp.data.domain import draw_population

    argv = ["simulate", "--mechanism", "oue", "--epsilon", "1", "--sample", "flights", "--column", "dest", "--seed",
            "3", "--engine", engine, "--estimators", "mi,norm-sub", "--format", "json"]
    if users is not None:
        argv += ["--users", str(users)]
    cli = run_json(capsys, *argv)
    column = encode_categorical(get_column(load_sample("flights"), "dest"))
    counts = column.true_counts()
    population = counts if users is None else draw_population(counts, users, 3)
    page = ldp.simulate(ldp.get_mechanism("oue", 1.0, column.d), population, estimators=["mi", "norm-sub"],
                        engine=engine, seed=3)
    np.testing.assert_allclose(cli["true"], page.true_values, rtol=0, atol=1e-12)
    for name in ("mi", "norm-sub"):
        np.testing.assert_allclose(cli["trials"][0]["estimates"][name], page.estimates[name][0], rtol=0, atol=1e-12)


@pytest.mark.parametrize(("field", "value"), [("range", [0, 1, 2]), ("range", 5), ("range", [24, 0]),
                                              ("users", "many"), ("columns", "hour")])
def test_a_malformed_header_field_is_one_line_not_a_traceback(capsys, tmp_path, hours, field, value):
    """A hand-edited header whose range held three numbers (or a number) stopped ``ldp aggregate`` with a
    ValueError/TypeError traceback: the header's known fields are checked when it is read."""
    path, _ = hours
    reports = tmp_path / "reports.txt"
    code, _, err = run(capsys, "perturb", "--mechanism", "sw", "--epsilon", "1", "--data", path, "--column", "hour",
                       "--range", "0,24", "--buckets", "16", "--seed", "5", "--output", reports)
    assert code == 0, err
    lines = reports.read_text().splitlines(keepends=True)
    header = json.loads(lines[0][len("# ldp-reports "):])
    header[field] = value
    reports.write_text("# ldp-reports " + json.dumps(header) + "\n" + "".join(lines[1:]))
    line = assert_bad(capsys, "aggregate", "--mechanism", "sw", "--epsilon", "1", "--buckets", "16",
                      "--reports", reports)
    assert f"{field} must be" in line
