"""``ldp shuffle``, ``ldp audit``, ``ldp longitudinal`` and ``ldp poison``: JSON keys and values from the library,
one-line errors with exit status 2."""

from __future__ import annotations

import json

import pytest

from ldp.cli import main


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


def test_shuffle_published_numbers(capsys):
    data = run_json(capsys, "shuffle", "--epsilon0", 4, "--users", 100000, "--delta", 1e-6, "--mechanism", "grr",
                    "--domain-size", 10, "--format", "json")
    assert data["closed_form"] == pytest.approx(0.538, abs=1e-3)
    assert data["upper"] == pytest.approx(0.1751, abs=1e-3) and data["lower"] == pytest.approx(0.1675, abs=1e-3)
    assert data["blanket"] is not None and data["domain_size"] == 10


def test_shuffle_invalid_closed_form_is_null_and_inverse(capsys):
    data = run_json(capsys, "shuffle", "--epsilon0", 5, "--users", 10000, "--target-epsilon", 1.0)
    assert data["closed_form"] is None and data["valid"] is False
    assert data["lower"] <= data["upper"] <= 5
    assert data["largest_epsilon0"] > 1.0


def test_audit_json(capsys):
    data = run_json(capsys, "audit", "--mechanism", "grr", "--epsilon", 1, "--domain-size", 2, "--samples", 1000000,
                    "--seed", 1, "--format", "json")
    assert {"epsilon_lower_bound", "epsilon", "inputs", "event"} <= set(data)
    assert 0.9 <= data["epsilon_lower_bound"] <= 1.0 and data["epsilon"] == 1.0


def test_audit_catches_the_teaching_example(capsys):
    data = run_json(capsys, "audit", "-m", "broken-olh", "-e", 0.5, "-d", 8, "--samples", 100000)
    assert data["epsilon_lower_bound"] > data["epsilon"]


def test_poison_and_longitudinal(capsys):
    data = run_json(capsys, "poison", "-m", "grr", "-e", 1, "-d", 16, "--targets", "2,5", "--betas", "0.05",
                    "--trials", 4)
    res = data["results"][0]
    assert res["simulated_gain"]["mi"] == pytest.approx(res["expected_gain"], rel=0.02)
    data = run_json(capsys, "longitudinal", "-d", 4, "-e", 2, "--epsilon-1", 1, "--rounds", "1,10", "--users", 2000)
    assert data["composed_epsilon"] == [1.0, 10.0] and data["memoized_epsilon"] == [1.0, 2.0]


@pytest.mark.parametrize("argv", [
    ("shuffle", "--epsilon0", 4, "--users", 1),
    ("shuffle", "--epsilon0", 4, "--users", 1000, "--mechanism", "oue", "--domain-size", 4),
    ("shuffle", "--epsilon0", 4, "--users", 1000, "--mechanism", "grr"),
    ("shuffle", "--epsilon0", 1, "--users", 1000, "--delta", 0),
    ("audit", "-m", "nope", "-e", 1),
    ("audit", "-m", "grr", "-e", 1, "--samples", 5),
    ("audit", "-m", "grr", "-e", 1, "--inputs", "1"),
    ("poison", "-m", "sue", "-e", 1, "-d", 8, "--targets", 1),
    ("poison", "-m", "grr", "-e", 1, "-d", 8, "--targets", 9),
    ("poison", "-m", "grr", "-e", 1, "-d", 8, "--targets", 1, "--betas", 1.5),
    ("longitudinal", "-d", 4, "-e", 1, "--epsilon-1", 2),
])
def test_bad_input_one_line(capsys, argv):
    assert_bad(capsys, *argv)


def test_audit_without_a_domain_uses_two_values(capsys):
    """Issue 22 item 20: ``ldp audit -m grr`` asked for d although the audit only compares two inputs."""
    import json

    from ldp.cli import main

    assert main(["audit", "-m", "grr", "-e", "1", "--samples", "2000", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["epsilon_lower_bound"] <= 1.0 and "d = 2" in data["note"]
