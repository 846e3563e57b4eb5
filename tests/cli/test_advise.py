"""``ldp advise`` and ``ldp tasks``: perturb a small synthetic CSV with ``main(["perturb", ...])``, then ask
the advisor which estimator to use; bad input ends with one ``error:`` line and exit status 2."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ldp.cli import main
from ldp.engines import aggregate_reports
from ldp.evaluation.tasks import TASKS
from ldp.mechanisms import get_mechanism
from ldp.report_files import load_reports
from ldp.studies.advisor import recommend

D = 12
ROWS = 4000


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: object) -> dict:
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    return json.loads(out)


def assert_bad(capsys: pytest.CaptureFixture[str], *argv: object) -> str:
    code, out, err = run(capsys, *argv)
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err and out == ""
    return lines[0]


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """GRR (ε = 2) reports of a Zipf-like column of integer codes in [0, D), written by ``ldp perturb``."""
    folder = tmp_path_factory.mktemp("advise")
    rng = np.random.default_rng(11)
    freqs = 1 / np.arange(1, D + 1) ** 1.5
    codes = rng.choice(D, size=ROWS, p=freqs / freqs.sum())
    data = folder / "codes.csv"
    data.write_text("code\n" + "\n".join(map(str, codes)) + "\n")
    out = folder / "reports.txt"
    assert main(["perturb", "-m", "grr", "-e", "2", "-d", str(D), "--data", str(data), "-c", "code", "-s", "3",
                 "-o", str(out)]) == 0
    return out


ARGS = ("-m", "grr", "-e", "2", "-d", D)


def test_tasks_listing(capsys: pytest.CaptureFixture[str]) -> None:
    items = run_json(capsys, "tasks")
    assert [t["name"] for t in items] == TASKS.names()
    topk = next(t for t in items if t["name"] == "topk")
    assert topk["parameters"] == {"k": 10} and topk["better"] == "lower" and "§V.E" in topk["paper"]
    code, out, _ = run(capsys, "tasks", "--format", "table")
    assert code == 0 and out.splitlines()[0].split()[:3] == ["NAME", "PARAMETERS", "BETTER"]
    assert all(name in out for name in TASKS.names())


def test_advise_json_matches_the_library(capsys: pytest.CaptureFixture[str], reports: Path) -> None:
    out = run_json(capsys, "advise", *ARGS, "--reports", reports, "--trials", 6, "--seed", 4,
                   "--candidates", "mi,norm-sub,base-pos,post-pos,norm-mul")
    assert {"best", "task", "candidates", "trials", "users"} <= set(out)
    assert out["task"] == "mse" and out["trials"] == 6 and out["users"] == ROWS and out["d"] == D
    names = [c["estimator"] for c in out["candidates"]]
    assert sorted(names) == ["base-pos", "mi", "norm-mul", "norm-sub", "post-pos"] and names[0] == out["best"]
    for c in out["candidates"]:
        assert c["expected_error"] > 0 and c["standard_error"] > 0
        # Γ over the IBU paper's baseline, MI clipped and renormalised (a candidate here)
        assert c["equivalent_users"] > 0 and 0 <= c["gain_percent"] <= 100
    assert next(c for c in out["candidates"] if c["estimator"] == "norm-mul")["gain_percent"] == 0
    errors = [c["expected_error"] for c in out["candidates"]]
    assert errors == sorted(errors)
    # The same call through the library gives the same numbers (the CLI only parses and prints).
    mech = get_mechanism("grr", 2.0, D)
    agg = aggregate_reports(mech, load_reports(reports, mech)[0])
    rec = recommend(mech, agg.counts, agg.n, task="mse", trials=6, seed=4,
                    candidates=["mi", "norm-sub", "base-pos", "post-pos", "norm-mul"])
    assert rec.best == out["best"]
    np.testing.assert_allclose(errors, rec.table["expected error"].to_numpy())


def test_advise_topk_set_and_table(capsys: pytest.CaptureFixture[str], reports: Path) -> None:
    out = run_json(capsys, "advise", *ARGS, "--reports", reports, "--task", "topk", "--k", 3, "--trials", 4,
                   "--candidates", "mi,norm-sub")
    assert out["task"] == "topk" and out["task_params"] == {"k": 3}
    assert "equivalent_users" not in out["candidates"][0]  # defined for the full-domain MSE only
    out = run_json(capsys, "advise", *ARGS, "--reports", reports, "--task", "set-value", "--rho", 0.25,
                   "--queries", 50, "--trials", 4, "--candidates", "mi,post-pos")
    assert out["task"] == "set" and out["task_params"] == {"rho": 0.25, "queries": 50}
    out = run_json(capsys, "advise", *ARGS, "--reports", reports, "--task", "topk-precision", "--k", 2,
                   "--trials", 3, "--candidates", "mi,norm-sub")
    assert out["better"] == "higher" and all(0 <= c["expected_score"] <= 1 for c in out["candidates"])
    out = run_json(capsys, "advise", *ARGS, "--reports", reports, "--task", "subsets", "--group", "top=0,1",
                   "--group", "tail=9,10,11", "--trials", 3, "--candidates", "mi,norm-sub")
    assert out["task"] == "subsets"
    out = run_json(capsys, "advise", *ARGS, "--reports", reports, "--task", "threshold", "--threshold", 0.05,
                   "--trials", 3, "--candidates", "mi,norm-sub")
    assert out["task"] == "threshold"
    code, text, _ = run(capsys, "advise", *ARGS, "--reports", reports, "--trials", 3, "--candidates", "mi,norm-sub",
                        "--format", "table")
    assert code == 0 and text.startswith("best: ")
    assert "RANK" in text and "mi" in text and "norm-sub" in text


def test_advise_writes_output_file(capsys: pytest.CaptureFixture[str], reports: Path, tmp_path: Path) -> None:
    target = tmp_path / "advice.json"
    code, out, _ = run(capsys, "advise", *ARGS, "--reports", reports, "--trials", 3, "--candidates", "mi",
                       "--output", target)
    assert code == 0 and out == ""
    assert json.loads(target.read_text())["best"] == "mi"


@pytest.mark.parametrize(("extra", "message"), [
    (("--task", "median"), "unknown task 'median'"),
    (("--task", "topk", "--k", D + 1), f"k must be an integer between 1 and the domain size {D}"),
    (("--task", "mse", "--k", 3), "--k does not apply to task mse"),
    (("--task", "set", "--rho", 10), "--rho is a fraction"),
    (("--task", "threshold",), "needs threshold"),
    (("--task", "subsets", "--group", "a=0,99"), "unknown value(s) 99"),
    (("--task", "subsets", "--group", "nomembers"), "--group expects NAME=V1,V2"),
    (("--trials", 1), "--trials must be at least 2"),
    (("--candidates", "mi,nope"), "unknown estimator 'nope'"),
])
def test_advise_bad_input_is_one_line(capsys: pytest.CaptureFixture[str], reports: Path, extra: tuple,
                                      message: str) -> None:
    line = assert_bad(capsys, "advise", *ARGS, "--reports", reports, *extra)
    assert message in line


def test_advise_checks_the_report_file(capsys: pytest.CaptureFixture[str], reports: Path, tmp_path: Path) -> None:
    assert "not found" in assert_bad(capsys, "advise", *ARGS, "--reports", tmp_path / "missing.txt")
    # Options that disagree with the file's header are rejected exactly as by 'aggregate'.
    line = assert_bad(capsys, "advise", "-m", "grr", "-e", "1", "-d", D, "--reports", reports)
    assert line == assert_bad(capsys, "aggregate", "-m", "grr", "-e", "1", "-d", D, "--reports", reports)
    assert_bad(capsys, "advise", *ARGS)  # --reports is required


def test_json_carries_the_papers_guideline_beside_the_choice(capsys, reports):
    out = run_json(capsys, "advise", *ARGS, "--reports", reports, "--task", "topk", "--k", 3, "--trials", 3,
                   "--seed", 1, "--candidates", "mi,norm-sub", "--format", "json")
    assert out["guideline"]["estimator"] == "norm"  # consistency paper §V.F: frequent values → Norm
    assert out["guideline"]["expected_error"] > 0
    assert "norm" not in [c["estimator"] for c in out["candidates"]]
