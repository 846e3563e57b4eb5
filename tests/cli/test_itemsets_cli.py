"""``ldp itemsets``: `items` (best first) from a basket file, by the library's SVIM or PSFO; bad input exit 2."""

from __future__ import annotations

import json

import pytest

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
