"""``ldp deployments``: the published budgets, the deployed oracles against the textbook ones on a population, the
memoization rows; one error line with exit status 2 on bad input."""

from __future__ import annotations

import json

import pytest

from ldp.cli import main


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_on_a_bundled_column(capsys) -> None:
    code, out, err = run(capsys, "deployments", "--sample", "flights", "--column", "origin", "--epsilon", 2,
                         "--rounds", 10)
    assert code == 0, err
    data = json.loads(out)
    assert {b["company"] for b in data["budgets"]} == {"Apple", "Google", "Microsoft"}
    rows = {r["name"]: r for r in data["comparison"]}
    assert {"grr", "oue", "cms", "hcms", "dbitflip", "rappor"} <= set(rows)
    assert min(r["× best textbook"] for r in rows.values() if not r["deployed by"]) == pytest.approx(1.0)
    assert data["settings"]["users"] == 328_521 and data["settings"]["d"] == 3  # the table is its own population
    claims = [m["claim"] for m in data["memoization"]]
    assert any(c.startswith("protects: a steady counter") for c in claims)
    assert any(c.startswith("does not protect") for c in claims)


def test_table_format_and_default_population(capsys) -> None:
    code, out, err = run(capsys, "deployments", "--format", "table", "--rounds", 5)
    assert code == 0, err
    assert "memoization:" in out and "same epsilon = 1, 100,000 users, d = 100" in out and "RAPPOR" in out


@pytest.mark.parametrize("argv, message", [
    (("--gamma", 0.5), "--gamma must lie in [0, 0.5)"),
    (("--epsilon", 0), "--epsilon must be a positive number"),
    (("--rounds", 0), "--rounds and --steps must be positive integers"),
    (("--sample", "nope", "--column", "x"), "nope"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, message) -> None:
    code, out, err = run(capsys, "deployments", *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err
