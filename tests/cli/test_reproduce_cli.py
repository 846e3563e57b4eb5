"""``ldp reproduce``: the registry's figures from the command line."""

from __future__ import annotations

import csv
import importlib.util
import io
import json

import pytest

from ldp.cli import main
from ldp.studies.figures import FIGURES

FAST = ["convolution-fig-3", "--trials", "2", "--epsilons", "2"]  # 2 collections over 128 values: milliseconds


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_list_json_and_table(capsys):
    code, out, _ = run(capsys, "reproduce", "--list")
    items = json.loads(out)
    assert code == 0 and [i["id"] for i in items] == FIGURES.names()
    assert all(i["title"] and i["paper_says"] for i in items)
    on_data = {i["id"]: i["data"] for i in items}
    assert on_data["consistency-fig-4"] == ["categorical"] and on_data["square-wave-fig-7"] == ["numerical"]
    assert on_data["convolution-fig-3"] is None and all(i["no_data"] for i in items if i["data"] is None)
    code, out, _ = run(capsys, "reproduce", "--list", "--format", "table")
    assert code == 0 and "consistency-fig-4" in out and "PAPER SAYS" in out


def test_one_figure_as_json_csv_and_table(capsys):
    code, out, _ = run(capsys, "reproduce", *FAST)
    data = json.loads(out)
    assert code == 0 and {"id", "settings", "rows", "paper_says", "ours"} <= set(data)
    assert data["id"] == "convolution-fig-3" and data["settings"]["epsilon"] == 2.0
    assert data["settings"]["trials"] == 2 and len(data["rows"]) == data["settings"]["d"]
    assert "Theorem 3" in data["ours"]
    code, out, _ = run(capsys, "reproduce", *FAST, "--format", "csv")
    rows = list(csv.reader(io.StringIO(out)))
    assert code == 0 and rows[0] == ["k", "empirical", "Theorem 3"] and len(rows) == 1 + data["settings"]["d"]
    code, out, _ = run(capsys, "reproduce", *FAST, "--format", "table")
    assert code == 0 and "The paper:" in out and "Ours:" in out


def test_figure_html(tmp_path, capsys):
    path = tmp_path / "spectrum.html"
    code, _, _ = run(capsys, "reproduce", *FAST, "--figure", str(path))
    assert code == 0 and "plotly" in path.read_text().lower()


@pytest.mark.skipif(importlib.util.find_spec("kaleido") is not None, reason="kaleido installed: png works")
def test_png_without_kaleido_is_refused_in_one_line(tmp_path, capsys):
    code, _, err = run(capsys, "reproduce", *FAST, "--figure", str(tmp_path / "f.png"))
    assert code == 2 and "kaleido" in err and len(err.strip().splitlines()) == 1


def test_unknown_id_suggests_close_matches(capsys):
    code, _, err = run(capsys, "reproduce", "consistncy-fig-4")
    assert code == 2 and "consistency-fig-4" in err and "Traceback" not in err


@pytest.mark.parametrize("value", ["1,x", "-1", ""])
def test_bad_epsilons_exit_2(capsys, value):
    code, _, err = run(capsys, "reproduce", "consistency-fig-4", "--epsilons", value)
    assert code == 2 and err.startswith("error:")


def test_output_never_overwrites(tmp_path, capsys):
    target = tmp_path / "kept.html"
    target.write_text("precious")
    code, _, err = run(capsys, "reproduce", *FAST, "--output", str(target), "--figure", str(target))
    assert code == 2 and "two files" in err and target.read_text() == "precious"
    code, _, _ = run(capsys, "reproduce", "convolution-fig-9", "--epsilons", "1,2", "--output", str(target))
    assert code == 2 and target.read_text() == "precious"  # a failed run leaves the file as it was
    code, _, _ = run(capsys, "reproduce", *FAST, "--output", str(target))
    assert code == 0 and json.loads(target.read_text())["id"] == "convolution-fig-3"
    assert [p.name for p in tmp_path.iterdir()] == ["kept.html"]  # no temporary file left behind


def test_paper_scale_on_a_reduced_grid(capsys):
    code, out, err = run(capsys, "reproduce", "consistency-fig-4", "--scale", "paper", "--trials", "1",
                         "--epsilons", "1")
    data = json.loads(out)
    assert code == 0 and data["scale"] == "paper"
    assert (data["settings"]["d"], data["settings"]["n"], data["settings"]["zipf_s"]) == (1024, 1_000_000, 1.5)
    assert "estimated" in err  # the estimate is announced before the run
    assert {r["estimator"] for r in data["rows"]} >= {"norm-sub", "mle-apx", "base-cut"}


def test_a_figure_on_a_bundled_sample_s_column(capsys):
    code, out, _ = run(capsys, "reproduce", "consistency-fig-4", "--sample", "flights", "--column", "dest",
                       "--trials", "1", "--epsilons", "1")
    data = json.loads(out)
    assert code == 0 and data["data"]["sample"] == "flights" and data["data"]["column"] == "dest"
    assert data["data"]["kind"] == "categorical" and data["data"]["rows"] > 300_000
    assert data["settings"]["d"] == data["data"]["d"] > 100 and "population" not in data["settings"]
    assert data["verdict"].startswith(("holds: ", "does not hold: ")) and "Base-Cut" in data["verdict"]
    assert len(data["rows"]) == len(FIGURES.get("consistency-fig-4").parameters()["estimators"])


def test_a_figure_on_a_file_s_numerical_column(tmp_path, capsys):
    path = tmp_path / "times.csv"
    path.write_text("hour\n" + "\n".join(f"{(i * 7919) % 2400 / 100:.2f}" for i in range(1_500)) + "\n")
    code, out, _ = run(capsys, "reproduce", "square-wave-fig-5", "--data", str(path), "--column", "hour",
                       "--buckets", "16", "--trials", "1", "--epsilons", "1", "--format", "table")
    assert code == 0 and "on " in out.splitlines()[0] and "Verdict: " in out


@pytest.mark.parametrize("argv, message", [
    (["consistency-fig-4", "--sample", "flights", "--column", "air_time"],
     "consistency-fig-4 takes a categorical column; 'air_time' is numerical"),
    (["square-wave-fig-2", "--sample", "flights", "--column", "dest"],
     "square-wave-fig-2 takes a numerical column; 'dest' is categorical"),
    (["convolution-fig-3", "--sample", "flights", "--column", "dest"], "convolution-fig-3 cannot run on your data"),
    (["consistency-fig-4", "--sample", "flights"], "give the column"),
    (["consistency-fig-4", "--column", "dest"], "--column goes with --data"),
    (["square-wave-fig-7", "--buckets", "1024"], "square-wave-fig-7 has no number of buckets to set"),
    (["square-wave-fig-2", "--buckets", "1"], "--buckets must be at least 2"),
])
def test_the_wrong_data_exits_2_with_one_line(capsys, argv, message):
    code, out, err = run(capsys, "reproduce", *argv)
    assert code == 2 and not out and message in err and len(err.strip().splitlines()) == 1


def test_buckets_set_the_studys_own_d_without_data(capsys):
    """The square-wave paper's Figs. 2–4 at 1,024 buckets as well as 256: --buckets sets the study's d."""
    code, out, err = run(capsys, "reproduce", "square-wave-fig-2", "--buckets", "1024", "--trials", "1",
                         "--epsilons", "4", "--format", "json")
    assert code == 0, err
    assert json.loads(out)["settings"]["d"] == 1024
