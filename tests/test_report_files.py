"""Report files: header, streaming writes, validation on read, atomic writes."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ldp_test_support import build, sample_inputs

import ldp
from ldp import report_files
from ldp.report_files import (
    HEADER_TAG,
    atomic_write,
    check_header,
    load_reports,
    perturb_to_file,
    read_header,
    report_header,
    write_report_file,
)

D = 8


def _values(n: int = 200, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, D, n)


def _leftovers(directory: Path) -> list[str]:
    return [p.name for p in directory.iterdir() if p.name.endswith(".tmp")]


# --------------------------------------------------------------------------- atomic writes
def test_atomic_write_replaces_on_success(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_text("old\n")
    with atomic_write(target) as fh:
        fh.write("new\n")
        assert target.read_text() == "old\n"  # not visible before the end
    assert target.read_text() == "new\n"
    assert _leftovers(tmp_path) == []


def test_atomic_write_leaves_nothing_on_failure(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    with pytest.raises(RuntimeError), atomic_write(target) as fh:
        fh.write("partial")
        raise RuntimeError("boom")
    assert not target.exists()
    assert _leftovers(tmp_path) == []
    target.write_text("keep\n")
    with pytest.raises(RuntimeError), atomic_write(target) as fh:
        fh.write("partial")
        raise RuntimeError("boom")
    assert target.read_text() == "keep\n"


def test_atomic_write_errors(tmp_path: Path) -> None:
    with pytest.raises(ldp.LDPError, match="directory"), atomic_write(tmp_path):
        pass
    with pytest.raises(OSError), atomic_write(tmp_path / "missing" / "x.txt"):
        pass


# --------------------------------------------------------------------------- header
def test_header_records_resolved_parameters() -> None:
    mech = ldp.get_mechanism("l-olh", 2.0, D, epsilon_1=1.0)
    header = report_header(mech, users=5)
    assert header["mechanism"] == "l-olh" and header["epsilon"] == 2.0 and header["epsilon_1"] == 1.0
    assert header["d"] == D and header["users"] == 5
    assert header["params"] == {"g": mech.g, "prime": mech.prime}
    json.dumps(header)  # JSON-able
    check_header(json.loads(json.dumps(header)), mech)


@pytest.mark.parametrize(("other", "needle"), [
    (("grr", 1.0, D, {}), "mechanism 'olh' in the file, 'grr' here"),
    (("olh", 2.0, D, {}), "epsilon 1.0 in the file, 2.0 here"),
    (("olh", 1.0, 9, {}), "d 8 in the file, 9 here"),
    (("olh", 1.0, D, {"g": 5}), "parameter g"),
    (("olh", 1.0, D, {"prime": 13}), "parameter prime 11 in the file, 13 here"),
])
def test_check_header_names_the_difference(other: tuple, needle: str) -> None:
    header = report_header(ldp.get_mechanism("olh", 1.0, D))
    name, eps, d, params = other
    with pytest.raises(ldp.LDPError, match="other settings") as err:
        check_header(header, ldp.get_mechanism(name, eps, d, **params))
    assert needle in str(err.value)
    assert "\n" not in str(err.value)


def test_partial_header_checks_only_present_fields() -> None:
    mech = ldp.get_mechanism("grr", 1.0, D)
    check_header({"mechanism": "grr"}, mech)
    check_header({"mechanism": "grr", "d": D}, mech)
    with pytest.raises(ldp.LDPError, match="d 9 in the file"):
        check_header({"mechanism": "grr", "d": 9}, mech)
    with pytest.raises(ldp.LDPError, match="parameter prime"):
        check_header({"mechanism": "olh", "params": {"g": 4}}, ldp.get_mechanism("olh", 1.0, D))


# --------------------------------------------------------------------------- write and read
@pytest.mark.parametrize("name", ldp.MECHANISMS.names())
def test_round_trip_every_mechanism(tmp_path: Path, name: str) -> None:
    mech = build(name, 1.0, D)
    values = sample_inputs(mech, 200, np.random.default_rng(0))
    path = tmp_path / "r.txt"
    assert perturb_to_file(path, mech, values, ldp.make_rng(3)) == values.shape[0]
    expected = mech.perturb(values, ldp.make_rng(3))  # one chunk: the same draws as the library call
    reports, header = load_reports(path, mech)
    assert header is not None and header["users"] == values.shape[0]
    assert header["mechanism"] == name and header["d"] == mech.d
    if name == "she":  # real numbers are written with 6 significant digits
        np.testing.assert_allclose(reports, expected, rtol=1e-5, atol=1e-5)
    elif np.issubdtype(np.asarray(expected).dtype, np.floating):  # SW, GW, SR, PM: repr round-trips exactly
        np.testing.assert_array_equal(reports, expected)
    else:
        np.testing.assert_array_equal(np.asarray(reports, dtype=np.int64), np.asarray(expected, dtype=np.int64))
    np.testing.assert_allclose(mech.aggregate(reports).counts, mech.aggregate(expected).counts, rtol=1e-5, atol=1e-3)
    lines = path.read_text().splitlines()
    assert lines[0].startswith(HEADER_TAG)
    assert sum(not line.startswith("#") for line in lines) == values.shape[0]
    assert read_header(path) == header


def test_streaming_in_small_chunks_and_blocks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(report_files, "WRITE_BLOCK", 7)
    mech = ldp.get_mechanism("oue", 1.0, D)
    values = _values(101)
    path = tmp_path / "r.txt"
    assert perturb_to_file(path, mech, values, ldp.make_rng(1), chunk_size=10) == 101
    reports, _ = load_reports(path, mech)
    assert reports.shape == (101, D)
    assert np.array_equal(mech.support_counts(reports), reports.sum(axis=0))


def test_write_report_file_accepts_chunks(tmp_path: Path) -> None:
    mech = ldp.get_mechanism("grr", 1.0, D)
    chunks = [np.array([0, 1, 2]), np.array([7])]
    path = tmp_path / "r.txt"
    assert write_report_file(path, mech, chunks, users=4, comments=["hello\nworld"]) == 4
    text = path.read_text()
    assert "# hello world\n" in text
    assert text.endswith("0\n1\n2\n7\n")


def test_file_without_header_is_accepted(tmp_path: Path) -> None:
    mech = ldp.get_mechanism("grr", 1.0, D)
    path = tmp_path / "r.txt"
    path.write_text("0\n3\n\n7\n")
    reports, header = load_reports(path, mech)
    assert header is None and reports.tolist() == [0, 3, 7]
    assert read_header(path) is None


def test_a_header_naming_only_the_mechanism_warns_as_no_header_does(tmp_path: Path) -> None:
    """``{"mechanism": "grr"}`` alone silenced the no-header warning while checking neither ε nor d: a header
    missing any of them now says which cannot be checked; a full header says nothing."""
    mech = ldp.get_mechanism("grr", 1.0, D)
    path = tmp_path / "r.txt"
    path.write_text(HEADER_TAG + json.dumps({"mechanism": "grr", "d": D}) + "\n0\n3\n")
    with pytest.warns(UserWarning, match="has no epsilon, params"):
        reports, _ = load_reports(path, mech)
    assert reports.tolist() == [0, 3]
    full = tmp_path / "full.txt"
    perturb_to_file(full, mech, _values(20), ldp.make_rng(0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_reports(full, mech)


@pytest.mark.parametrize(("text", "needle"), [
    ("", "holds no reports"),
    ("# just a comment\n\n", "holds no reports"),
    ("0\n8\n", "out of range"),
    ("0\n-1\n", "out of range"),
    ("0\nx\n", "report line 2"),
    ("0 1\n2 3\n", "one integer per report"),
    ("1\n99999999999999999999\n", "out of range"),
])
def test_bad_grr_files(tmp_path: Path, text: str, needle: str) -> None:
    path = tmp_path / "r.txt"
    path.write_text(text)
    with pytest.raises(ldp.LDPError, match=needle) as err:
        load_reports(path, ldp.get_mechanism("grr", 1.0, D))
    assert "\n" not in str(err.value) and "r.txt" in str(err.value)


def test_line_numbers_count_header_lines(tmp_path: Path) -> None:
    mech = ldp.get_mechanism("sue", 1.0, 4)
    header = HEADER_TAG + json.dumps(report_header(mech)) + "\n# comment\n"
    path = tmp_path / "r.txt"
    path.write_text(header + "0101\n01\n")
    with pytest.raises(ldp.LDPError, match="report line 4"):
        load_reports(path, mech)


def test_truncated_file_is_detected(tmp_path: Path) -> None:
    mech = ldp.get_mechanism("oue", 1.0, D)
    path = tmp_path / "r.txt"
    perturb_to_file(path, mech, _values(50), ldp.make_rng(0))
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:-3]))
    with pytest.raises(ldp.LDPError, match="holds 47 reports but its header announces 50"):
        load_reports(path, mech)


@pytest.mark.parametrize(("head", "needle"), [
    (HEADER_TAG + "{not json\n", "malformed ldp-reports header"),
    (HEADER_TAG + "[1, 2]\n", "malformed ldp-reports header"),
    (HEADER_TAG + '{"mechanism": "grr", "format": 99}\n', "unsupported report file format"),
    (HEADER_TAG + '{"mechanism": "grr", "users": -1}\n', "users must be a whole number"),
    (HEADER_TAG + '{"mechanism": "grr", "range": [1, 1]}\n', "range must be two finite numbers"),
    (HEADER_TAG + '{"mechanism": "grr", "items": ["a", "a"]}\n', "items must be a list of distinct items"),
    (HEADER_TAG + '{"mechanism": "grr", "length": 0}\n', "length must be a whole number"),
    (HEADER_TAG + '{"mechanism": "grr", "protocol_epsilon": "1"}\n', "protocol_epsilon must be a positive"),
])
def test_malformed_headers(tmp_path: Path, head: str, needle: str) -> None:
    path = tmp_path / "r.txt"
    path.write_text(head + "1\n")
    with pytest.raises(ldp.LDPError, match=needle):
        load_reports(path, ldp.get_mechanism("grr", 1.0, D))


def test_second_header_rejected(tmp_path: Path) -> None:
    mech = ldp.get_mechanism("grr", 1.0, D)
    line = HEADER_TAG + json.dumps(report_header(mech)) + "\n"
    path = tmp_path / "r.txt"
    path.write_text(line + line + "1\n")
    with pytest.raises(ldp.LDPError, match="second ldp-reports header"):
        load_reports(path, mech)


def test_unreadable_files(tmp_path: Path) -> None:
    mech = ldp.get_mechanism("grr", 1.0, D)
    with pytest.raises(ldp.LDPError, match="not found"):
        load_reports(tmp_path / "missing.txt", mech)
    with pytest.raises(ldp.LDPError, match="not a regular file"):
        load_reports(tmp_path, mech)
    path = tmp_path / "bin.txt"
    path.write_bytes(b"1\n\xff\xfe\x00\n")
    with pytest.raises(ldp.LDPError, match="not UTF-8"):
        load_reports(path, mech)


def test_no_users_to_perturb(tmp_path: Path) -> None:
    with pytest.raises(ldp.LDPError, match="no users"):
        perturb_to_file(tmp_path / "r.txt", ldp.get_mechanism("grr", 1.0, D), np.array([], dtype=int),
                        ldp.make_rng(0))
    assert list(tmp_path.iterdir()) == []


def test_failed_perturb_leaves_no_file(tmp_path: Path) -> None:
    with pytest.raises(ldp.LDPError, match="outside the domain"):
        perturb_to_file(tmp_path / "r.txt", ldp.get_mechanism("grr", 1.0, D), np.array([0, 8]), ldp.make_rng(0))
    assert list(tmp_path.iterdir()) == []


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, D - 1), min_size=1, max_size=40), st.sampled_from(["grr", "ss", "hr", "olh", "l-sue"]))
def test_round_trip_property(tmp_path_factory: pytest.TempPathFactory, values: list[int], name: str) -> None:
    mech = ldp.get_mechanism(name, 1.5, D)
    path = tmp_path_factory.mktemp("prop") / "r.txt"
    reports = mech.perturb(np.array(values), ldp.make_rng(0))
    write_report_file(path, mech, [reports], users=len(values))
    back, _ = load_reports(path, mech)
    assert np.array_equal(mech.support_counts(back), mech.support_counts(reports))


# --------------------------------------------------------------------------- issue 10 item 7
def test_reports_read_with_the_wrong_configuration_are_flagged(tmp_path):
    """OUE reports read as SUE gave an estimate summing to −9.7 and a GRR file read with a larger d errors of 0.42,
    with no word; now a header-less file warns and the support counts are checked against the configuration (5σ
    bounds derived in FrequencyOracle.consistency_warnings), and the right configuration stays quiet."""
    import warnings

    from ldp.report_files import load_reports

    rng = np.random.default_rng(0)
    values = rng.integers(0, 8, 20_000)
    oue = ldp.get_mechanism("oue", 1.0, 8)
    plain = tmp_path / "plain.txt"
    plain.write_text("\n".join(oue.format_reports(oue.perturb(values, rng))) + "\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        reports, header = load_reports(plain, oue)
    assert header is None and any("no ldp-reports header" in str(w.message) for w in caught)
    assert oue.consistency_warnings(oue.aggregate(reports)) == []
    sue = ldp.get_mechanism("sue", 1.0, 8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        as_sue, _ = load_reports(plain, sue)
    assert sue.consistency_warnings(sue.aggregate(as_sue))
    grr = ldp.get_mechanism("grr", 2.0, 8)
    grr_file = tmp_path / "grr.txt"
    grr_file.write_text("\n".join(grr.format_reports(grr.perturb(values, rng))) + "\n")
    wider = ldp.get_mechanism("grr", 2.0, 12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        as_wider, _ = load_reports(grr_file, wider)
    assert wider.consistency_warnings(wider.aggregate(as_wider))


def test_she_reports_beyond_what_the_client_sends_and_deep_headers_are_refused(tmp_path):
    from ldp.report_files import load_reports

    she = ldp.get_mechanism("she", 1.0, 3)
    huge = tmp_path / "she.txt"
    huge.write_text("1e308 0 0\n0 1e308 0\n")
    with pytest.raises(ldp.LDPError, match="beyond"):
        load_reports(huge, she)
    deep = tmp_path / "deep.txt"
    deep.write_text("# ldp-reports " + "[" * 100_000 + "\n0\n")
    with pytest.raises(ldp.LDPError, match="nested too deeply|malformed"):
        load_reports(deep, ldp.get_mechanism("grr", 1.0, 3))
