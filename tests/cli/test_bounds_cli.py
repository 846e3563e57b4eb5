"""Issue "every command bounded": each command estimates its cost before the work starts and refuses in one line
(or answers by a closed form where n is huge), honours SIGTERM, and refuses silent coercions."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ldp.cli import main

REPO = Path(__file__).resolve().parents[2]


def ldp(*argv: object, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Run ``python -m ldp`` in a child process (a hang fails the test instead of blocking the run)."""
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "ldp", *map(str, argv)], env=env, capture_output=True, text=True,
                          timeout=timeout, cwd=REPO)


def assert_refused(proc: subprocess.CompletedProcess[str], *phrases: str) -> str:
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    for phrase in phrases:
        assert phrase in lines[0], lines[0]
    return lines[0]


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def assert_bad(capsys: pytest.CaptureFixture[str], *argv: object) -> str:
    code, out, err = run(capsys, *argv)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: "), (out, err)
    assert "Traceback" not in err and out == ""
    return lines[0]


def sigterm_after(tmp_path: Path, *argv: object, wait: float = 4.0) -> None:
    """Start the command writing to a file in tmp_path, SIGTERM it while it works: exit 130 within seconds, one
    'error: interrupted' line, no file left behind."""
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "ldp", *map(str, argv), "-o", str(tmp_path / "out.json")],
                            env=env, stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=REPO)
    time.sleep(wait)
    assert proc.poll() is None, proc.communicate()
    proc.send_signal(signal.SIGTERM)
    start = time.monotonic()
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 130 and err.strip() == "error: interrupted", err
    assert time.monotonic() - start < 10
    assert [p.name for p in tmp_path.iterdir() if p.name != "baskets.txt"] == []


# --------------------------------------------------------------------------- item 1: time bounds
def test_shuffle_with_a_huge_population_answers_by_the_closed_form_at_once() -> None:
    """`ldp shuffle --epsilon0 2 --users 1e15` ran for minutes (4.3 million intervals of binomial cdfs, beyond the
    range where SciPy's bdtr is exact) and ignored SIGTERM meanwhile; 1e15 itself was not accepted."""
    start = time.monotonic()
    proc = ldp("shuffle", "--epsilon0", 2, "--users", "1e15", "--delta", 1e-6, timeout=60)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["users"] == 10**15 and data["closed_form"] == pytest.approx(2.042e-6, rel=1e-3)
    assert data["lower"] is None and data["upper"] is None  # beyond the numerical analysis: the closed form
    assert time.monotonic() - start < 30


def test_shuffle_refuses_a_step_too_fine_for_the_population() -> None:
    line = assert_refused(ldp("shuffle", "--epsilon0", 2, "--users", 10**9, "--step", 1, timeout=60),
                          "intervals", "--step")
    assert "at least 22" in line


def test_shuffle_numerical_bound_is_kept_where_it_is_exact(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "shuffle", "--epsilon0", 2, "--users", "1e9")
    data = json.loads(out)
    assert code == 0 and data["step"] == 100 and 0 < data["lower"] <= data["upper"] < data["closed_form"]


def test_poison_refuses_an_unbounded_number_of_trials() -> None:
    """`ldp poison ... --trials 100000000` ran forever."""
    assert_refused(ldp("poison", "-m", "oue", "-e", 1, "-d", 20, "--targets", "1,2", "--users", 20000, "--trials",
                       100_000_000, timeout=60), "--trials", "at most")
    assert_refused(ldp("poison", "-m", "oue", "-e", 1, "-d", 2000, "--targets", "1,2", "--users", "1e9",
                       "--betas", 0.5, timeout=60), "fake users")


@pytest.mark.slow  # seconds: left out of ./dev test --fast, run by the full suite
def test_itemsets_refuses_the_exact_engine_over_a_huge_domain(tmp_path: Path) -> None:
    """`ldp itemsets` on 200,000 distinct items: every OLH report checked against every item, for minutes."""
    path = tmp_path / "baskets.txt"
    path.write_text("\n".join(f"i{3 * u} i{3 * u + 1} i{3 * u + 2}" for u in range(70_000)) + "\n")
    for method in ("psfo", "svim"):
        assert_refused(ldp("itemsets", "--method", method, "-e", 1, "-k", 10, "--data", path, timeout=60),
                       "--engine fast")
    proc = ldp("itemsets", "--method", "svim", "-e", 1, "-k", 10, "--data", path, "--engine", "fast", timeout=60)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.slow  # seconds: left out of ./dev test --fast, run by the full suite
def test_sigterm_stops_a_long_poison_simulation(tmp_path: Path) -> None:
    sigterm_after(tmp_path, "poison", "-m", "oue", "-e", 1, "-d", 20, "--targets", "1,2", "--users", 20000,
                  "--trials", 6000)


@pytest.mark.slow  # seconds: left out of ./dev test --fast, run by the full suite
def test_sigterm_stops_a_long_itemsets_collection(tmp_path: Path) -> None:
    path = tmp_path / "baskets.txt"
    path.write_text("\n".join(f"i{3 * u} i{3 * u + 1} i{3 * u + 2}" for u in range(35_000)) + "\n")
    sigterm_after(tmp_path, "itemsets", "--method", "psfo", "-e", 1, "-k", 10, "--data", path)


# --------------------------------------------------------------------------- item 2: non-finite rows, negative ranges
@pytest.fixture
def with_inf(tmp_path: Path) -> Path:
    path = tmp_path / "f.csv"
    rows = [f"{'inf' if i % 10 == 0 else (i % 7) - 3},{(i % 5) - 2}" for i in range(100)]
    path.write_text("x,y\n" + "\n".join(rows) + "\n")
    return path


def test_mean_leaves_out_rows_with_a_non_finite_value(capsys: pytest.CaptureFixture[str], with_inf: Path) -> None:
    """`ldp mean -m pm --columns x,y` with inf in 10 rows of x: a traceback (column_stack of 90 vs 100 rows)."""
    code, out, err = run(capsys, "mean", "-m", "pm", "-e", 1, "--data", with_inf, "--columns", "x,y")
    assert code == 0, err
    data = json.loads(out)
    assert data["users"] == 90 and any("10 rows" in n and "non-finite" in n for n in data["notes"])
    assert data["true_mean"][0] == pytest.approx(sum((i % 7) - 3 for i in range(100) if i % 10) / 90)


def test_a_negative_range_can_be_typed(capsys: pytest.CaptureFixture[str], with_inf: Path) -> None:
    """`--range -5,5` was taken for an option by argparse; `--range=-5,5` keeps working."""
    for spelling in (["--range", "-5,5"], ["--range=-5,5"], ["--range", "-5.5,-0.5", "--clip"]):
        code, out, err = run(capsys, "mean", "-m", "pm", "-e", 1, "--data", with_inf, "--columns", "x,y", *spelling)
        assert code == 0, err
        lo = float(spelling[0].partition("=")[2].split(",")[0] if "=" in spelling[0] else spelling[1].split(",")[0])
        assert json.loads(out)["range"][0][0] == lo
    assert "--range" in assert_bad(capsys, "mean", "-m", "pm", "-e", 1, "--data", with_inf, "--columns", "x",
                                   "--range", "-5")


# --------------------------------------------------------------------------- item 3: no silent coercions
def test_psfo_length_zero_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """`ldp itemsets --method psfo --length 0` ran with l = 1."""
    path = tmp_path / "baskets.txt"
    path.write_text("milk bread\nmilk\ntea\n" * 100)
    for length in (0, -2):
        assert "--length" in assert_bad(capsys, "itemsets", "--method", "psfo", "-e", 1, "-k", 2, "--data", path,
                                        "--length", length)
    code, out, err = run(capsys, "itemsets", "--method", "psfo", "-e", 1, "-k", 2, "--data", path, "--length", 2)
    assert code == 0 and json.loads(out)["parameters"]["length"] == 2, err


def test_poison_refuses_duplicate_targets(capsys: pytest.CaptureFixture[str]) -> None:
    """`ldp poison --targets 1,1` ran with [1]."""
    line = assert_bad(capsys, "poison", "-m", "oue", "-e", 1, "-d", 20, "--targets", "1,1", "--users", 20000)
    assert "target 1" in line and "once" in line
    from ldp.core.errors import InvalidInput
    from ldp.privacy.poisoning import attacked_mechanism, expected_gain

    with pytest.raises(InvalidInput, match="once"):
        expected_gain(attacked_mechanism("grr", 1.0, 10), [3, 2, 3], 0.1)


# --------------------------------------------------------------------------- item 4: still open
def test_perturb_refuses_a_huge_domain_at_once(tmp_path: Path) -> None:
    """`ldp perturb -m oue -e 1 -d 1000000000` ran for a minute (a billion labels built) before refusing."""
    data = tmp_path / "p.csv"
    data.write_text("code\n1\n2\n3\n")
    start = time.monotonic()
    assert_refused(ldp("perturb", "-m", "oue", "-e", 1, "-d", 10**9, "--data", data, "-c", "code", "-o",
                       tmp_path / "r.txt", timeout=60))
    assert time.monotonic() - start < 20 and not (tmp_path / "r.txt").exists()


def test_report_size_is_bounded_before_perturbing() -> None:
    import numpy as np

    from ldp.core.errors import InvalidInput
    from ldp.mechanisms import get_mechanism
    from ldp.report_files import MAX_REPORT_CELLS, check_report_size

    oue = get_mechanism("oue", 1.0, 1 << 20)
    with pytest.raises(InvalidInput, match="fewer users"):
        check_report_size(oue, MAX_REPORT_CELLS // (1 << 20) + 1)
    check_report_size(get_mechanism("grr", 1.0, 1 << 20), 10**6)
    assert np.isfinite(oue.approximate_variance(10))


def test_a_huge_hash_prime_is_refused_before_any_allocation(capsys: pytest.CaptureFixture[str]) -> None:
    """`--param prime=2147483629` allocated 4.2 GB per report (support counting) before failing."""
    line = assert_bad(capsys, "simulate", "-m", "olh", "-e", 1, "--param", "prime=2147483629", "--synthetic",
                      "zipf:d=10", "--users", 1000, "--engine", "exact")
    assert "prime" in line and "at most" in line


def test_closed_form_variances_refuse_impossible_arguments() -> None:
    """`variance(-5.0, 100)` returned −0.196 (a frequency oracle's, f = −5); a mean mechanism's at v = −5, −20.3."""
    from ldp.core.errors import InvalidInput
    from ldp.mechanisms import get_mechanism

    grr = get_mechanism("grr", 1.0, 10)
    for freqs, n in ((-5.0, 100), (1.5, 100), (float("nan"), 100), (0.1, 0), (0.1, -3), (0.1, 2.5)):
        with pytest.raises(InvalidInput):
            grr.variance(freqs, n)
    assert grr.variance(0.1, 100) > 0
    for name in ("sr", "pm", "hm", "laplace"):
        mech = get_mechanism(name, 1.0)
        with pytest.raises(InvalidInput, match=r"\[−1, 1\]"):
            mech.variance(-5.0)
        assert mech.variance(-1.0) > 0
