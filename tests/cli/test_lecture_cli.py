"""``ldp lecture ITEM``: the Learn page's lecture items (GRR table, unary-encoding example, composition, central DP vs
LDP, concentration bounds) as JSON rows or a text table; one error line with exit status 2 on bad input."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from ldp.cli import main


def run(capsys, *argv):
    code = main(["lecture", *(str(a) for a in argv)])
    out, err = capsys.readouterr()
    return code, out, err


def data(capsys, *argv) -> dict:
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    return json.loads(out)


def test_grr_table_is_the_formula_and_flags_the_lectures_d_128_column(capsys) -> None:
    got = data(capsys, "grr-table")
    rows = got["rows"]
    assert len(rows) == 16 and got["settings"] == {"epsilons": [0.1, 1.0, 2.0, 4.0], "domains": [2, 8, 128, 1024]}
    for r in rows:
        e = math.exp(r["ε"])
        assert r["p"] == pytest.approx(e / (e + r["d"] - 1), rel=1e-12)
        assert r["q"] == pytest.approx(1 / (e + r["d"] - 1), rel=1e-12)
        assert r["agrees"] is (r["d"] != 128)  # the slide's d = 128 column is not the formula (e.g. 0.3007 vs 0.307)
    assert {r["lecture p"] for r in rows if r["d"] == 128} == {"0.016", "0.027", "0.057", "0.307"}


def test_grr_table_takes_lists_and_leaves_unprinted_cells_unjudged(capsys) -> None:
    rows = data(capsys, "grr-table", "--epsilon", "0.5,4", "--d", "2,3")["rows"]
    assert [(r["ε"], r["d"]) for r in rows] == [(0.5, 2), (0.5, 3), (4.0, 2), (4.0, 3)]
    printed = {(r["ε"], r["d"]): (r["lecture p"], r["agrees"]) for r in rows}
    assert printed.pop((4.0, 2)) == ("0.98", True)  # the one cell the lecture prints
    assert set(printed.values()) == {("", None)}  # the others are not judged


def test_ue_example_is_the_lectures_in_exact_fractions(capsys) -> None:
    got = data(capsys, "ue-example")
    assert got["estimate"] == ["0", "10/3", "5/3", "0"]
    assert got["estimate_values"] == pytest.approx([0, 10 / 3, 5 / 3, 0])
    assert got["settings"]["p"] == "4/5" and got["settings"]["q"] == "1/5"
    assert got["settings"]["epsilon"] == pytest.approx(2 * math.log(4))
    assert [r["observed I_v"] for r in got["rows"]] == [1, 3, 2, 1]  # the slide's column sums
    assert [r["SUE mechanism's estimate"] for r in got["rows"]] == pytest.approx(got["estimate_values"])
    assert [u["value"] for u in got["users"]] == [2, 2, 3, 2, 4]


def test_ue_example_with_another_p(capsys) -> None:
    # p = 3/4, q = 1/4, n q = 5/4, p − q = 1/2: c = (I − 5/4)·2 on I = [1, 3, 2, 1]
    got = data(capsys, "ue-example", "--p", "3/4")
    assert got["estimate"] == ["-1/2", "7/2", "3/2", "-1/2"]
    assert [r["I_v - n q"] for r in got["rows"]] == ["-1/4", "7/4", "3/4", "-1/4"]
    assert data(capsys, "ue-example", "--p", "0.75")["estimate"] == got["estimate"]


def test_composition_losses_are_equal_and_the_attacker_is_not(capsys) -> None:
    got = data(capsys, "composition", "--epsilon", 1, "--d", 4, "--max-reports", 3)
    rows = got["rows"]
    assert got["equal_losses"] is True and [r["reports k"] for r in rows] == [1, 2, 3]
    for r in rows:
        k = r["reports k"]
        assert r["loss: k reports at ε"] == pytest.approx(k) and r["loss: one report at kε"] == pytest.approx(k)
        e = math.exp(k)
        assert r["attacker: one report at kε"] == pytest.approx(e / (e + 3))  # GRR attains the kε-LDP ceiling
    # two reports at ε: when they differ the attacker can only pick one — no better than one report at ε
    assert rows[1]["attacker: k reports at ε"] == pytest.approx(rows[0]["attacker: one report at kε"])
    assert rows[1]["attacker: k reports at ε"] < rows[1]["attacker: one report at kε"]


def test_dp_vs_ldp_closed_forms_and_a_seeded_simulation(capsys) -> None:
    closed = data(capsys, "dp-vs-ldp", "--epsilon", 2, "--d", 8, "--ns", "100,10000", "--trials", 0)
    central = [r for r in closed["rows"] if r["method"] == "central DP (Laplace)"]
    assert [r["σ of the count"] for r in central] == pytest.approx([math.sqrt(2) / 2] * 2)  # √2/ε whatever n
    grr = [r["σ of the count"] for r in closed["rows"] if r["method"].startswith("LDP: GRR")]
    assert grr[1] / grr[0] == pytest.approx(10.0)  # ∝ √n: 100× the users, 10× the noise
    assert "simulated σ" not in closed["rows"][0]

    argv = ("dp-vs-ldp", "--users", "1000", "--mechanism", "grr,olh", "--trials", 40, "--seed", 3)
    sim = data(capsys, *argv)
    assert sim == data(capsys, *argv)  # seeded
    assert sim["settings"]["mechanisms"] == ["grr", "olh"] and len(sim["rows"]) == 3
    for r in sim["rows"]:
        # the relative SE of a σ from 40 draws is ≈ ½√((2 + κ)/39) ≤ 0.14 (κ = 3 for Laplace); 5 SE is far enough
        # that the seeded draw cannot sit outside by chance, near enough to catch a wrong closed form (×√2 or more)
        assert abs(r["simulated / closed form"] - 1) < 5 * r["relative SE"]


def test_bounds_widths_by_hand(capsys) -> None:
    got = data(capsys, "bounds", "--epsilon", "1,2", "--users", "100,1000", "--d", 4)
    assert [(r["ε"], r["n"]) for r in got["rows"]] == [(1.0, 100), (1.0, 1000), (2.0, 100), (2.0, 1000)]
    for r in got["rows"]:
        e = math.exp(r["ε"])
        gap = (e - 1) / (e + 3)  # GRR's p − q at d = 4
        assert r["Hoeffding"] == pytest.approx(2 * math.sqrt(math.log(40) / (2 * r["n"])) / gap)
        assert r["Hoeffding / ours"] > 1 and r["Bernstein / ours"] > 1  # valid for any f, so wider than ours


@pytest.mark.parametrize("item, expected", [
    ("grr-table", "4 of the lecture's 16 printed values do not follow from the formula"),
    ("ue-example", "10/3"),
    ("composition", "privacy losses equal (kε)"),
    ("dp-vs-ldp", "central DP (Laplace)"),
    ("bounds", "Hoeffding / ours"),
])
def test_table_format(capsys, item, expected) -> None:
    argv = (item, "--format", "table", *(("--trials", 0) if item == "dp-vs-ldp" else ()))
    code, out, err = run(capsys, *argv)
    assert code == 0 and err == ""
    assert expected in out and not out.lstrip().startswith("{")


def test_output_file(capsys, tmp_path: Path) -> None:
    target = tmp_path / "ue.json"
    code, out, err = run(capsys, "ue-example", "--output", target)
    assert code == 0 and out == "" and err == ""
    assert json.loads(target.read_text(encoding="utf-8"))["estimate"] == ["0", "10/3", "5/3", "0"]


@pytest.mark.parametrize("argv, message", [
    (("nope",), "invalid choice: 'nope'"),
    (("composition", "--epsilon", 0), "--epsilon must be positive, got 0"),
    (("bounds", "--epsilon", "1,-2"), "--epsilon must be positive, got -2"),
    (("grr-table", "--epsilon", "nan"), "--epsilon values must be finite"),
    (("composition", "--d", 1), "--d (the domain size) must be at least 2, got 1"),
    (("grr-table", "--d", "2,1"), "--d (the domain size) must be at least 2, got 1"),
    (("ue-example", "--p", "4/x"), "--p expects a fraction such as 4/5"),
    (("ue-example", "--p", "1/0"), "--p expects a fraction such as 4/5"),
    (("ue-example", "--p", "2/5"), "symmetric UE needs 1/2 < p < 1, got p = 2/5"),
    (("grr-table", "--p", "4/5"), "--p does not apply to grr-table"),
    (("composition", "--epsilon", "1,2"), "--epsilon takes one value for composition"),
    (("composition", "--max-reports", 0), "--max-reports must be a positive integer"),
    (("dp-vs-ldp", "--mechanism", "sw"), "--mechanism sw: not a pure frequency oracle"),
    (("dp-vs-ldp", "--trials", 1), "--trials must be 0 (closed forms only) or lie in [2,"),
    (("dp-vs-ldp", "--d", 100_000, "--trials", 1000), "the simulation would draw 800,000,000 counts"),
    (("bounds", "--d", 100_000), "interval computations, more than"),
    (("bounds", "--users", "0"), "--users must lie in [1,"),
    (("bounds", "--level", 1), "--level must lie strictly between 0 and 1"),
    (("bounds", "--mechanism", "grr,oue"), "--mechanism takes one value for bounds"),
    (("dp-vs-ldp", "--mechanism", "grr,GRR"), "--mechanism lists grr twice"),
    (("dp-vs-ldp", "--users", "10,10"), "--users lists 10 twice"),
    (("bounds", "--epsilon", "1,1.0"), "--epsilon lists 1 twice"),
    (("dp-vs-ldp", "--seed", -1), "seed must be non-negative"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, message) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: ") and message in err


def test_two_bins_is_the_lectures_pitfall(capsys):
    """All users at 0.01: two bins put the mean at 0.5 (bias 0.49) whatever n; SR is unbiased and far closer."""
    code, out, err = run(capsys, "two-bins", "--users", "10000")
    assert code == 0, err
    rows = json.loads(out)["rows"]
    two = next(r for r in rows if r["bins"] == 2)
    assert two["expected estimate"] == pytest.approx(0.5) and two["bias"] == pytest.approx(0.49)
    sr = next(r for r in rows if "SR" in str(r["method"]) or "Stochastic" in str(r["method"]))
    assert sr["RMSE"] < min(r["RMSE"] for r in rows if r is not sr)
