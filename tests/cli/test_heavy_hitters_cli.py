"""``ldp heavy-hitters``: `found` (value, estimate; best first) with the method's parameters and its scores against
the truth, from the library (ldp.studies.heavy_hitters); bad input is one line and exit status 2."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from ldp.cli import main
from ldp.studies.heavy_hitters import find_heavy_hitters, zipf_values


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_synthetic_zipf_is_the_librarys_answer(capsys):
    code, out, err = run(capsys, "heavy-hitters", "--method", "pem", "-e", 4, "--bits", 16, "-k", 8, "--synthetic",
                         "zipf:s=1.1,d=1000", "--users", 100_000, "--seed", 5)
    assert code == 0, err
    data = json.loads(out)
    lib = find_heavy_hitters("pem", 4.0, zipf_values(100_000, 16, distinct=1000, s=1.1, seed=5), bits=16, top_k=8,
                             seed=5)
    assert data["found"] == lib.result.found() and len(data["found"]) == 8
    assert data["parameters"] == {"eta": 4, "start": 3, "threshold": None, "oracle": "olh",
                                  "prefix_lengths": [7, 11, 15, 16]}
    # the 8th value's lead over the 9th is within the noise (tests/mechanisms/test_heavy_hitters.py): 7 of 8 at least
    assert data["scores"]["precision"] >= 7 / 8 and [r["prefix_bits"] for r in data["rounds"]] == [7, 11, 15, 16]
    assert set(data) >= {"method", "epsilon", "bits", "top_k", "users", "candidates_probed", "true_top_k", "seed"}


def test_a_column_of_integers(capsys, tmp_path):
    path = tmp_path / "ids.csv"
    rng = np.random.default_rng(0)
    ids = np.concatenate([np.full(30_000, 4242), np.full(20_000, 77), rng.integers(0, 2**20, 50_000)])
    pd.DataFrame({"id": np.concatenate([ids, [np.nan]])}).to_csv(path, index=False)
    code, out, err = run(capsys, "heavy-hitters", "--method", "pem", "-e", 3, "--bits", 20, "-k", 2, "--data", path,
                         "--column", "id", "--eta", 5)
    assert code == 0, err
    data = json.loads(out)
    assert [f["value"] for f in data["found"]] == [4242, 77]
    assert data["source"]["dropped"] == 1 and abs(data["found"][0]["estimate"] - 0.3) < 0.05


@pytest.mark.parametrize(("argv", "phrase"), [
    (["--method", "nope", "-e", 1, "--bits", 16, "-k", 4, "--synthetic", "zipf:d=100", "-n", 1000], "unknown"),
    (["--method", "pem", "-e", 1, "--bits", 70, "-k", 4, "--synthetic", "zipf:d=100", "-n", 1000], "bits"),
    (["--method", "pem", "-e", 1, "--bits", 16, "-k", 4, "--synthetic", "zipf:d=100"], "--users is required"),
    (["--method", "pem", "-e", 1, "--bits", 16, "-k", 4, "--synthetic", "uniform:d=100", "-n", 10], "zipf"),
    (["--method", "treehist", "-e", 1, "--bits", 16, "-k", 4, "--synthetic", "zipf:d=100", "-n", 10, "--eta", 2],
     "does not apply"),
    (["--method", "pem", "-e", 1, "--bits", 8, "-k", 4, "--sample", "flights", "--column", "distance"],
     "not integers in [0, 2^8)"),
    (["--method", "pem", "-e", 1, "--bits", 8, "-k", 4, "--sample", "flights", "--column", "carrier"], "no numbers"),
    (["--method", "privtrie", "-e", 1, "--bits", 16, "-k", 4, "--synthetic", "zipf:d=100", "-n", 10, "--groups",
      "optimised"], "does not apply"),
    (["--method", "pem", "-e", 1, "--bits", 32, "-k", 4, "--synthetic", "zipf:d=100", "-n", 10, "--oracle", "grr"],
     "grr cannot serve a domain of 2^26 values"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, phrase):
    code, out, err = run(capsys, "heavy-hitters", *argv)
    assert code == 2 and out == "" and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and phrase in err, err
