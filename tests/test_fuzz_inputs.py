"""Property-based fuzzing of what users hand the library (issue 10): report lines, table files and the mechanisms'
public API. Any input ends in a result or in the library's own one-line error — never another exception."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ldp
from ldp.data import load_table_bytes

NAMES = [c.name for c in ldp.MECHANISMS]
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("name", ["grr", "oue", "olh", "ss", "she", "sw", "hh", "pm", "l-oue", "hr"])
@FUZZ
@given(lines=st.lists(st.text(max_size=40), min_size=1, max_size=8))
def test_report_lines_parse_or_refuse(name, lines):
    mech = ldp.get_mechanism(name, 1.0, None if ldp.MECHANISMS.get(name).kind == "mean" else 8)
    try:
        reports = mech.parse_reports(lines)
    except ldp.LDPError as exc:
        assert "\n" not in str(exc)
        return
    agg = mech.aggregate(reports)
    assert np.all(np.isfinite(agg.counts))


@FUZZ
@given(data=st.binary(max_size=400), name=st.sampled_from(["t.csv", "t.tsv", "t.csv.gz", "t.parquet", "t.txt"]))
def test_table_bytes_load_or_refuse(data, name):
    try:
        table = load_table_bytes(data, name)
    except ldp.LDPError as exc:
        assert "\n" not in str(exc)
        return
    assert table.shape[0] >= 1 and table.shape[1] >= 1


@FUZZ
@given(name=st.sampled_from(NAMES), epsilon=st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                                                       st.integers(-5, 100)),
       d=st.one_of(st.integers(-3, 300), st.floats(allow_nan=True)),
       values=st.lists(st.one_of(st.integers(-5, 400), st.floats(allow_nan=True, allow_infinity=True)),
                       min_size=0, max_size=20))
def test_mechanisms_build_perturb_and_estimate_or_refuse(name, epsilon, d, values):
    try:
        mech = ldp.get_mechanism(name, epsilon, d)
        reports = mech.perturb(np.array(values), np.random.default_rng(0))
        estimate = mech.estimate(mech.aggregate(reports))
    except ldp.LDPError as exc:
        assert "\n" not in str(exc)
        return
    assert np.all(np.isfinite(estimate.values))
