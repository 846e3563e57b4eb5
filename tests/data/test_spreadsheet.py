"""CSV injection: text a spreadsheet would run as a formula is escaped everywhere the project writes CSV."""

from __future__ import annotations

import csv
import io

import numpy as np
import pandas as pd

from ldp.cli import main
from ldp.data.spreadsheet import csv_cell, safe_frame

HOSTILE = ["=cmd|' /C calc'!A0", "@SUM(1+1)", "=HYPERLINK(\"http://x\")", "+1+1", "-2+3", "\tx"]


def test_cells_that_would_run_are_escaped_and_numbers_are_not():
    for text in HOSTILE:
        assert csv_cell(text) == "'" + text
    assert csv_cell("JFK") == "JFK" and csv_cell(-0.25) == -0.25 and csv_cell(3) == 3 and csv_cell(None) is None
    table = pd.DataFrame({"value": HOSTILE, "=est": np.linspace(-1, 1, len(HOSTILE))})
    safe = safe_frame(table)
    assert list(safe.columns) == ["value", "'=est"]
    assert all(v.startswith("'") for v in safe["value"]) and (safe["'=est"] == table["=est"]).all()
    assert table["value"].iloc[0] == HOSTILE[0]  # the input is not modified


def test_the_command_lines_csv_escapes_labels_from_the_data(tmp_path, capsys):
    data = tmp_path / "d.csv"
    data.write_text("v\n" + "\n".join(f'"{t}"' if "," in t or '"' in t else t for t in HOSTILE * 20) + "\n")
    assert main(["simulate", "-m", "grr", "-e", "1", "--data", str(data), "-c", "v", "--seed", "1",
                 "--format", "csv"]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    cells = [cell for row in rows for cell in row]
    assert not any(cell[:1] in ("=", "@", "+") for cell in cells)
    assert "'=cmd|' /C calc'!A0" in cells
