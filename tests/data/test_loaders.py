"""Tests of ldp.data.loaders: reading CSV / Parquet tables and one-line errors."""

from __future__ import annotations

import gzip
import io
import os

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ldp
from ldp.data import SUPPORTED_EXTENSIONS, get_column, load_table, load_table_bytes


def _one_line(exc: pytest.ExceptionInfo) -> str:
    message = str(exc.value)
    assert "\n" not in message
    return message


# ------------------------------------------------------------------------------------------ happy paths
@pytest.mark.parametrize("name", ["t.csv", "t.txt", "T.CSV"])
def test_plain_csv(tmp_path, name):
    path = tmp_path / name
    path.write_text("city,count\nParis,3\nLyon,4\n", encoding="utf-8")
    df = load_table(path)
    assert list(df.columns) == ["city", "count"]
    assert df["city"].tolist() == ["Paris", "Lyon"]
    assert df["count"].tolist() == [3, 4]


def test_string_path_and_pathlike(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a\n1\n2\n", encoding="utf-8")
    assert load_table(str(path))["a"].tolist() == [1, 2]
    assert load_table(os.fspath(path)).shape == (2, 1)


def test_gzip_csv(tmp_path):
    path = tmp_path / "t.csv.gz"
    path.write_bytes(gzip.compress(b"a,b\n1,x\n2,y\n"))
    df = load_table(path)
    assert df.shape == (2, 2)
    assert df["b"].tolist() == ["x", "y"]


def test_tab_and_semicolon_separators(tmp_path):
    (tmp_path / "t.tsv").write_text("a\tb\n1\t2\n", encoding="utf-8")
    (tmp_path / "s.csv").write_text("a;b\n1;2\n", encoding="utf-8")
    assert list(load_table(tmp_path / "t.tsv").columns) == ["a", "b"]
    assert list(load_table(tmp_path / "s.csv").columns) == ["a", "b"]


def test_utf8_bom_and_non_ascii(tmp_path):
    path = tmp_path / "t.csv"
    path.write_bytes("\ufeffville,n\nSão Paulo,1\nZürich,2\n".encode())
    df = load_table(path)
    assert list(df.columns) == ["ville", "n"]
    assert df["ville"].tolist() == ["São Paulo", "Zürich"]


@pytest.mark.parametrize("ext", [".parquet", ".pq"])
def test_parquet(tmp_path, ext):
    original = pd.DataFrame({"x": [1.5, 2.5], "y": ["a", "b"]})
    path = tmp_path / f"t{ext}"
    original.to_parquet(path, index=False)
    df = load_table(path)
    assert df["x"].tolist() == [1.5, 2.5]
    assert df["y"].tolist() == ["a", "b"]


def test_load_table_bytes_all_formats():
    csv = b"a,b\n1,2\n"
    assert load_table_bytes(csv, "up.csv").shape == (1, 2)
    assert load_table_bytes(bytearray(csv), "up.txt").shape == (1, 2)
    assert load_table_bytes(gzip.compress(csv), "up.csv.gz").shape == (1, 2)
    buf = io.BytesIO()
    pd.DataFrame({"v": [7, 8, 9]}).to_parquet(buf, index=False)
    assert load_table_bytes(buf.getvalue(), "up.parquet")["v"].tolist() == [7, 8, 9]


def test_column_names_become_strings(tmp_path):
    path = tmp_path / "t.parquet"
    df = pd.DataFrame({"a": [1]})
    df.to_parquet(path)
    assert all(isinstance(c, str) for c in load_table(path).columns)


# ------------------------------------------------------------------------------------------ round trips
_TEXT = st.text(alphabet=st.sampled_from(list("abcxyzAZ09 _-,;\"'éßø中")), min_size=0, max_size=8).map(
    lambda s: "s" + s  # a leading letter keeps pandas from reading the value as a number, NA, or boolean
)
_FLOATS = st.floats(min_value=-1e12, max_value=1e12, allow_nan=False, allow_infinity=False)
_INTS = st.integers(min_value=-(2**53), max_value=2**53)


@st.composite
def _frames(draw):
    rows = draw(st.integers(min_value=1, max_value=20))
    return pd.DataFrame({
        "i": draw(st.lists(_INTS, min_size=rows, max_size=rows)),
        "f": draw(st.lists(_FLOATS, min_size=rows, max_size=rows)),
        "s": draw(st.lists(_TEXT, min_size=rows, max_size=rows)),
    })


def _assert_same(df: pd.DataFrame, loaded: pd.DataFrame) -> None:
    assert list(loaded.columns) == ["i", "f", "s"]
    assert loaded["i"].tolist() == df["i"].tolist()
    # pandas' default CSV float parser may differ from the written repr in the last bit: allow 2 ulp.
    np.testing.assert_allclose(loaded["f"].to_numpy(dtype=float), df["f"].to_numpy(), rtol=5e-16, atol=0)
    assert loaded["s"].tolist() == df["s"].tolist()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(df=_frames(), ext=st.sampled_from([".csv", ".csv.gz", ".parquet"]))
def test_write_then_load_round_trip(tmp_path, df, ext):
    path = tmp_path / f"round{ext}"
    if ext == ".parquet":
        df.to_parquet(path, index=False)
    else:
        df.to_csv(path, index=False)
    _assert_same(df, load_table(path))
    _assert_same(df, load_table_bytes(path.read_bytes(), path.name))


# ------------------------------------------------------------------------------------------ error paths
def test_missing_file(tmp_path):
    with pytest.raises(ldp.LDPError, match="not found") as exc:
        load_table(tmp_path / "nope.csv")
    assert "nope.csv" in _one_line(exc)


def test_directory_is_not_a_file(tmp_path):
    (tmp_path / "d.csv").mkdir()
    with pytest.raises(ldp.LDPError, match="not a regular file"):
        load_table(tmp_path / "d.csv")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root can read any file")
def test_unreadable_file(tmp_path):
    path = tmp_path / "locked.csv"
    path.write_text("a\n1\n")
    path.chmod(0)
    with pytest.raises(ldp.LDPError, match="cannot read"):
        load_table(path)


@pytest.mark.parametrize("name", ["t.xlsx", "t.json", "noextension"])
def test_unsupported_extension(tmp_path, name):
    path = tmp_path / name
    path.write_text("a\n1\n")
    with pytest.raises(ldp.LDPError, match="unsupported file type") as exc:
        load_table(path)
    message = _one_line(exc)
    for ext in (".csv", ".csv.gz", ".parquet", ".pq"):
        assert ext in message
    with pytest.raises(ldp.LDPError, match="supported extensions"):
        load_table_bytes(b"a\n1\n", name)


@pytest.mark.parametrize("name", ["e.csv", "e.parquet", "e.csv.gz"])
def test_empty_file(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(b"")
    with pytest.raises(ldp.LDPError, match="is empty"):
        load_table(path)
    with pytest.raises(ldp.LDPError, match="is empty"):
        load_table_bytes(b"", name)


def test_blank_csv_and_empty_gzip_are_empty(tmp_path):
    path = tmp_path / "blank.csv"
    path.write_text("  \n\n")
    with pytest.raises(ldp.LDPError, match="is empty"):
        load_table(path)
    gz = tmp_path / "blank.csv.gz"
    gz.write_bytes(gzip.compress(b""))
    with pytest.raises(ldp.LDPError, match="is empty"):
        load_table(gz)
    with pytest.raises(ldp.LDPError, match="is empty"):
        load_table_bytes(gzip.compress(b"\n"), "blank.csv.gz")


@pytest.mark.parametrize("content", [b"a,b\n1,2\n3,4,5\n", b'a,b\n"1,2\n'])
def test_malformed_csv(tmp_path, content):
    path = tmp_path / "bad.csv"
    path.write_bytes(content)
    with pytest.raises(ldp.LDPError, match="not a well-formed CSV") as exc:
        load_table(path)
    _one_line(exc)
    with pytest.raises(ldp.LDPError, match="not a well-formed CSV"):
        load_table_bytes(content, "bad.csv")


SPREADSHEET = "city,population\nZürich,400000\nGenève,200000\nSão Paulo,12000000\nMünchen,1500000\n"


@pytest.mark.parametrize(("text", "encoding"), [(SPREADSHEET, "cp1252"), ("город,число\nМосква,12\nКиев,3\n", "cp1251"),
                                                (SPREADSHEET, "utf_16")])
def test_a_csv_that_is_not_utf8_is_read_in_its_detected_encoding(tmp_path, text, encoding):
    """Issue 11: a spreadsheet's Windows-1252 export (and Cyrillic, UTF-16) is read, not refused; the encoding used
    is recorded so the page can say it. A cp1250 reading of the Western file would turn 'Genève' into 'Genčve':
    among equally clean code pages Windows-1252 wins."""
    content = text.encode(encoding)
    path = tmp_path / "export.csv"
    path.write_bytes(content)
    for df in (load_table(path), load_table_bytes(content, "export.csv")):
        assert df.attrs["encoding"] == encoding
        expected = [line.split(",")[0] for line in text.strip().splitlines()[1:]]
        assert df.iloc[:, 0].tolist() == expected


def test_undetectable_bytes_are_refused_in_one_line(tmp_path):
    content = bytes(range(128, 256)) * 4
    with pytest.raises(ldp.LDPError, match="not UTF-8 text .* could not be detected") as exc:
        load_table_bytes(content, "x.csv")
    _one_line(exc)


def test_not_utf8_far_into_the_file_is_still_read(tmp_path):
    path = tmp_path / "deep.csv"
    path.write_bytes(b"a,b\n" + b"x,1\n" * 100_000 + b"caf\xe9,2\n")
    df = load_table(path)
    assert df["a"].iloc[-1] == "café" and len(df) == 100_001


def test_header_only_has_no_rows(tmp_path):
    path = tmp_path / "h.csv"
    path.write_text("a,b\n")
    with pytest.raises(ldp.LDPError, match="has no rows"):
        load_table(path)
    with pytest.raises(ldp.LDPError, match="has no rows"):
        load_table_bytes(b"a,b\n", "h.csv")


def test_parquet_without_rows_or_columns(tmp_path):
    no_rows, no_cols = tmp_path / "r.parquet", tmp_path / "c.parquet"
    pd.DataFrame({"a": pd.Series([], dtype="int64")}).to_parquet(no_rows)
    pd.DataFrame().to_parquet(no_cols)
    with pytest.raises(ldp.LDPError, match="has no rows"):
        load_table(no_rows)
    with pytest.raises(ldp.LDPError, match="has no columns"):
        load_table(no_cols)


def test_invalid_parquet_and_gzip(tmp_path):
    bad_pq = tmp_path / "bad.parquet"
    bad_pq.write_bytes(b"this is not parquet")
    with pytest.raises(ldp.LDPError, match="not a valid Parquet file") as exc:
        load_table(bad_pq)
    _one_line(exc)
    bad_gz = tmp_path / "bad.csv.gz"
    bad_gz.write_bytes(b"this is not gzip")
    with pytest.raises(ldp.LDPError, match="not a valid gzip file"):
        load_table(bad_gz)
    with pytest.raises(ldp.LDPError, match="not a valid gzip file"):
        load_table_bytes(b"this is not gzip", "bad.csv.gz")


def test_bytes_type_checked():
    with pytest.raises(ldp.LDPError, match="expected bytes"):
        load_table_bytes("a,b\n1,2\n", "t.csv")  # type: ignore[arg-type]


def test_supported_extensions_listed():
    assert {".csv", ".txt", ".csv.gz", ".parquet", ".pq"} <= set(SUPPORTED_EXTENSIONS)


# ------------------------------------------------------------------------------------------ get_column
def test_get_column_found_and_forgiving():
    df = pd.DataFrame({"dest": [1, 2], " Carrier ": ["a", "b"]})
    assert get_column(df, "dest").tolist() == [1, 2]
    assert get_column(df, "Carrier").tolist() == ["a", "b"]
    assert get_column(df, "carrier").name == " Carrier "


def test_get_column_not_found_lists_columns():
    df = pd.DataFrame({"a": [1], "b": [2], "c": [3]})
    with pytest.raises(ldp.LDPError) as exc:
        get_column(df, "x")
    assert _one_line(exc) == "column 'x' not found; available: a, b, c"


def test_get_column_truncates_long_lists():
    df = pd.DataFrame({f"col{i}": [i] for i in range(40)})
    with pytest.raises(ldp.LDPError, match=r"not found; available: col0, col1, .*\(28 more\)") as exc:
        get_column(df, "zzz")
    assert "col39" not in _one_line(exc)


def test_get_column_ambiguous_case_is_not_guessed():
    df = pd.DataFrame({"Dest": [1], "DEST": [2]})
    with pytest.raises(ldp.LDPError, match="column 'dest' not found"):
        get_column(df, "dest")


@pytest.mark.parametrize("name", ["grades.xlsx", "grades.XLS"])
def test_a_workbook_says_to_save_it_as_csv(name):
    """A spreadsheet is read only with pandas' optional reader (openpyxl / xlrd, not dependencies); otherwise the
    message says what to do instead of a bare "unsupported file type"."""
    import importlib.util

    if importlib.util.find_spec("openpyxl" if name.lower().endswith("xlsx") else "xlrd") is not None:
        with pytest.raises(ldp.LDPError, match="Excel workbook"):  # read, and this is no workbook
            load_table_bytes(b"PK\x03\x04 not a workbook", name)
        return
    with pytest.raises(ldp.LDPError, match="Excel workbook.*save it as CSV"):
        load_table_bytes(b"PK\x03\x04 not a workbook", name)


def test_text_lines_from_bytes_reads_an_upload_and_refuses_in_one_line():
    """An uploaded basket file's lines (a BOM dropped); empty or non-UTF-8 content is refused in one line."""
    from ldp.data import text_lines_from_bytes

    assert text_lines_from_bytes("\ufeffmilk bread\n\neggs\n".encode(), "file 'b.txt'") == ["milk bread", "", "eggs"]
    for raw, phrase in ((b"  \n", "is empty"), (b"caf\xe9", "not UTF-8")):
        with pytest.raises(ldp.LDPError, match=phrase) as err:
            text_lines_from_bytes(raw, "file 'b.txt'")
        assert "\n" not in str(err.value) and "b.txt" in str(err.value)
