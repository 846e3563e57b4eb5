"""``ldp itemsets``: `items` (best first) from a basket file, by the library's SVIM or PSFO; bad input exit 2."""

from __future__ import annotations

import json

import numpy as np
import pytest

import ldp
from ldp.cli import main
from ldp.studies.itemsets import read_baskets, svim


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def baskets(tmp_path):
    path = tmp_path / "baskets.txt"
    lines = ["milk bread eggs", "milk,bread", "milk", "bread eggs", "tea"] * 2_000
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path, lines


def test_svim_items_are_the_librarys(capsys, baskets):
    path, lines = baskets
    code, out, err = run(capsys, "itemsets", "--method", "svim", "-e", 3, "-k", 2, "--data", path, "--seed", 4)
    assert code == 0, err
    data = json.loads(out)
    lib = svim(read_baskets(lines), 3.0, top_k=2, seed=4)
    assert data["items"] == lib.to_dict()["items"]
    assert {i["items"][0] for i in data["items"]} == {"bread", "milk"}  # 60 % each (their order is noise), eggs 40 %
    assert data["true_top_k"][0]["frequency"] == pytest.approx(0.6)


@pytest.mark.parametrize(("argv", "phrase"), [
    (["--method", "svim", "-e", 1, "-k", 2, "--length", 3], "--length applies"),
    (["--method", "psfo", "-e", 1, "-k", 0], "--top-k"),
    (["--method", "psfo", "-e", -1, "-k", 2], "epsilon"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, baskets, argv, phrase):
    path, _ = baskets
    code, out, err = run(capsys, "itemsets", "--data", path, *argv)
    assert code == 2 and out == "" and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and phrase in err, err


def test_a_file_that_is_not_text_is_refused(capsys, tmp_path):
    bad = tmp_path / "b.txt"
    bad.write_bytes(b"\xff\xfe\x00bad")
    code, out, err = run(capsys, "itemsets", "--method", "psfo", "-e", 1, "-k", 1, "--data", bad)
    assert code == 2 and "not UTF-8" in err


def test_svsm_prints_items_and_itemsets(capsys, baskets):
    path, _ = baskets
    code, out, err = run(capsys, "itemsets", "--method", "svsm", "-e", 4, "-k", 2, "--data", path)
    assert code == 0, err
    data = json.loads(out)
    assert all(len(i["items"]) == 1 for i in data["items"]) and all(len(i["items"]) >= 2 for i in data["itemsets"])
    assert {tuple(sorted(i["items"])) for i in data["itemsets"]} == {("bread", "milk"), ("bread", "eggs")}


def test_psfo_report_files_round_trip(capsys, tmp_path):
    """Issue 20: ``ldp perturb --mechanism psfo --param length=L --data BASKETS`` writes the registered oracle's
    reports (GRR at ε′ here) with the item domain and ℓ in the header; ``ldp aggregate`` maps every item to ℓ·f̃.
    Every set has at most ℓ = 3 items, so each estimate is unbiased: within 5 of its own standard errors (the exact
    PSFO variance at the estimate) of the true share. Interactive protocols say in one line how to run them."""
    rng = np.random.default_rng(0)
    weights = 1.0 / np.arange(1, 31)
    lines = [" ".join(f"i{j}" for j in rng.choice(30, size=rng.integers(1, 4), replace=False,
                                                 p=weights / weights.sum())) for _ in range(20_000)]
    baskets = tmp_path / "baskets.txt"
    baskets.write_text("\n".join(lines) + "\n")
    reports = tmp_path / "r.txt"
    code, _, err = run(capsys, "perturb", "--mechanism", "psfo", "--epsilon", "2", "--param", "length=3", "--data",
                       baskets, "--seed", "1", "--output", reports)
    assert code == 0, err
    code, out, err = run(capsys, "aggregate", "--mechanism", "psfo", "--epsilon", "2", "--param", "length=3",
                         "--reports", reports, "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["protocol"] == "psfo" and data["length"] == 3 and data["users"] == 20_000
    truth = {f"i{j}": sum(f"i{j}" in line.split() for line in lines) / len(lines) for j in range(30)}
    assert set(data["estimates"]) == set(truth)
    for item, est in data["estimates"].items():
        assert abs(est - truth[item]) < 5 * data["standard_errors"][item], item
    code, _, err = run(capsys, "aggregate", "--mechanism", "psfo", "--epsilon", "2", "--param", "length=4",
                       "--reports", reports)
    assert code == 2 and "disagrees with the report file's length" in err
    code, _, err = run(capsys, "perturb", "--mechanism", "svim", "--epsilon", "2", "--data", baskets, "--output",
                       tmp_path / "x.txt")
    assert code == 2 and "interactive protocol" in err and "ldp itemsets" in err and len(err.strip().splitlines()) == 1


def test_a_bundled_basket_sample(capsys):
    """``--sample plane_destinations``: the bundled Kosarak stand-in, labelled as one in the JSON source; a table
    sample, or both --data and --sample, are refused in one line (exit 2)."""
    code, out, err = run(capsys, "itemsets", "--method", "psfo", "--length", 4, "-e", 4, "-k", 3, "--sample",
                         "plane_destinations", "--users", 5_000, "--engine", "fast")
    assert code == 0, err
    data = json.loads(out)
    assert data["users"] == 5_000 and data["source"]["sample"] == "plane_destinations"
    assert data["source"]["items_in_domain"] == 104
    assert data["source"]["stand_in"].startswith("stand-in for the Kosarak")
    code, out, err = run(capsys, "itemsets", "--method", "svim", "-e", 1, "-k", 2, "--sample", "flights")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "'flights' is a table sample" in err
    code, out, err = run(capsys, "itemsets", "--method", "svim", "-e", 1, "-k", 2, "--sample", "plane_destinations",
                         "--data", "x.txt")
    assert code == 2 and out == "" and "not allowed with argument" in err


def test_the_strawman_runs_on_a_small_domain_and_refuses_a_large_one(capsys, baskets):
    """``--method strawman``: the library's answer on the few items of a small file; the 104 airports of the bundled
    basket sample make 2^104 subsets, refused in one line (exit 2)."""
    path, lines = baskets
    code, out, err = run(capsys, "itemsets", "--method", "strawman", "-e", 3, "-k", 2, "--data", path, "--seed", 4)
    assert code == 0, err
    data = json.loads(out)
    lib = ldp.PROTOCOLS.get("strawman").run(read_baskets(lines), 3.0, top_k=2, seed=4)
    assert data["items"] == lib.to_dict()["items"] and data["parameters"]["subsets"] == 2 ** read_baskets(lines).d
    code, out, err = run(capsys, "itemsets", "--method", "strawman", "-e", 1, "-k", 2, "--sample",
                         "plane_destinations")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "2^104 subsets" in err, err


def test_compare_is_the_librarys_svim_against_ldpminer(capsys, baskets):
    """``--compare``: per method the mean found of the true top k, precision and error, as compare_miners gives them;
    --method and --compare together, or --length with --compare, are refused in one line."""
    from ldp.studies.itemsets import compare_miners

    path, lines = baskets
    data = json.loads(run(capsys, "itemsets", "--compare", "-e", 2, "-k", 2, "--data", path, "--seeds", 2,
                          "--engine", "fast")[1])
    lib = compare_miners(read_baskets(lines), 2.0, top_k=2, seeds=(0, 1), engine="fast")
    assert [m["method"] for m in data["methods"]] == ["svim", "ldpminer"]
    assert data["methods"] == lib.to_dict(orient="records") and data["seeds"] == 2
    assert {"found", "precision", "error"} <= set(data["methods"][0])
    for argv in (["--compare", "--method", "svim"], ["--compare", "--length", "3"]):
        code, out, err = run(capsys, "itemsets", "-e", 1, "-k", 2, "--data", path, *argv)
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
