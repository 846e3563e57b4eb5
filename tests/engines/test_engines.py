"""Engines: both return an Aggregate for every kind of mechanism; the exact engine streams users in bounded
chunks."""

from __future__ import annotations

import numpy as np
import pytest
from ldp_test_support import build, sample_inputs

import ldp
from ldp.engines import chunk_bounds, collect, run_exact


def test_values_and_counts_paths_agree_in_distribution():
    mech = ldp.get_mechanism("grr", 2.0, 5)
    counts = np.array([100, 0, 50, 0, 10])
    values = np.repeat(np.arange(5), counts)
    a = run_exact(mech, np.random.default_rng(0), values=values, chunk_size=32)
    b = run_exact(mech, np.random.default_rng(0), true_counts=counts, chunk_size=32)
    np.testing.assert_array_equal(a.counts, b.counts)  # same users in the same order, same seeds
    assert a.n == b.n == 160 and a.engine == "exact"


@pytest.mark.parametrize("name, d", [("sw-discrete", 6), ("sr", None), ("pm", None)])
def test_values_and_counts_paths_agree_for_other_kinds(name, d):
    """Where a cell's input is fixed (codes of the discrete SW; the cells' values of a mean mechanism) both paths
    give the same users in the same order."""
    mech = ldp.get_mechanism(name, 1.5, d)
    counts = np.array([40, 0, 25, 7, 0, 3])
    support = np.linspace(-1, 1, 6) if mech.kind == "mean" else None
    cells = np.repeat(np.arange(6), counts)
    values = cells if support is None else support[cells]
    a = run_exact(mech, np.random.default_rng(4), values=values, chunk_size=16)
    b = run_exact(mech, np.random.default_rng(4), true_counts=counts, support=support, chunk_size=16)
    np.testing.assert_array_equal(a.counts, b.counts)
    assert a.n == b.n == 75 and a.counts.shape == (mech.statistic_size(),)


@pytest.mark.parametrize("name", ["oue", "sw", "hh", "haar-hrr", "cfo-binning", "pm"])
def test_every_engine_returns_an_aggregate(name):
    mech = ldp.get_mechanism(name, 1.0, 8 if name != "pm" else None)
    counts = np.full(8, 30)
    support = np.linspace(-1, 1, 8) if mech.kind == "mean" else None
    for engine in ("fast", "exact"):
        agg = collect(mech, counts, np.random.default_rng(0), engine, support=support)
        assert isinstance(agg, ldp.Aggregate) and agg.engine == engine and agg.n == 240
        assert agg.counts.shape == (mech.statistic_size(),) and not agg.counts.flags.writeable
    values = np.repeat(np.arange(8), counts) / 8.0 if mech.input_kind == "unit" else (
        np.repeat(support, counts) if support is not None else np.repeat(np.arange(8), counts))
    reports = mech.perturb(values, np.random.default_rng(1))
    direct = ldp.aggregate_reports(mech, reports)
    assert direct.engine == "reports" and direct.n == 240
    np.testing.assert_array_equal(direct.counts, mech.aggregate(reports).counts)


def test_chunks_bound_memory(monkeypatch):
    """The randomizer never sees more than one chunk of users at a time."""
    mech = ldp.get_mechanism("oue", 1.0, 64)
    seen: list[int] = []
    original = type(mech)._perturb

    def spy(self, values, rng):
        seen.append(values.shape[0])
        return original(self, values, rng)

    monkeypatch.setattr(type(mech), "_perturb", spy)
    run_exact(mech, np.random.default_rng(0), true_counts=np.full(64, 1000), chunk_size=5000, workers=1)
    assert max(seen) <= 5000 and sum(seen) == 64000


def test_engine_errors():
    mech = ldp.get_mechanism("grr", 1.0, 3)
    with pytest.raises(ldp.LDPError, match="engine"):
        collect(mech, np.array([1, 2, 3]), np.random.default_rng(0), engine="slow")
    with pytest.raises(ldp.LDPError, match="n ≥ 1"):
        ldp.run_fast(mech, np.zeros(3, dtype=int), np.random.default_rng(0))
    with pytest.raises(ldp.LDPError, match="exactly one"):
        run_exact(mech, np.random.default_rng(0))
    with pytest.raises(ldp.LDPError, match="exactly one"):
        run_exact(mech, np.random.default_rng(0), values=np.zeros(3, dtype=int), true_counts=np.ones(3, dtype=int))
    with pytest.raises(ldp.LDPError, match="chunk_size"):
        run_exact(mech, np.random.default_rng(0), true_counts=np.ones(3, dtype=int), chunk_size=0)
    with pytest.raises(ldp.LDPError, match="workers"):
        run_exact(mech, np.random.default_rng(0), true_counts=np.ones(3, dtype=int), workers=0)
    with pytest.raises(ldp.LDPError, match="n ≥ 1"):
        ldp.simulate(mech, np.zeros(3, dtype=int))
    with pytest.raises(ldp.LDPError, match="trials"):
        ldp.simulate(mech, np.ones(3, dtype=int), trials=0)


def test_fast_engine_handles_a_billion_users():
    mech = ldp.get_mechanism("olh", 1.0, 1024)
    counts = np.random.default_rng(0).multinomial(10**9, np.full(1024, 1 / 1024))
    agg = ldp.run_fast(mech, counts, np.random.default_rng(1))
    assert agg.n == 10**9 and agg.counts.shape == (1024,)


def test_secure_source_runs_sequentially():
    mech = ldp.get_mechanism("hr", 1.0, 16)
    agg = run_exact(mech, ldp.SecureRandom(), true_counts=np.full(16, 50))
    assert agg.n == 800


def test_chunk_bounds_split_users_into_an_even_number_of_equal_chunks():
    assert list(chunk_bounds(20_000, 8192)) == [(0, 5000), (5000, 10_000), (10_000, 15_000), (15_000, 20_000)]
    assert list(chunk_bounds(8192, 8192)) == [(0, 8192)]  # one chunk stays one
    assert list(chunk_bounds(8193, 8192)) == [(0, 4097), (4097, 8193)]
    assert len(list(chunk_bounds(10**6, 8192))) == 124
    for n in range(1, 120):
        for chunk in (1, 2, 3, 7, 64, 256):
            bounds = list(chunk_bounds(n, chunk))
            sizes = [stop - start for start, stop in bounds]
            assert bounds[0][0] == 0 and bounds[-1][1] == n
            assert all(a[1] == b[0] for a, b in zip(bounds, bounds[1:], strict=False))  # contiguous
            assert 1 <= min(sizes) and max(sizes) <= chunk and max(sizes) - min(sizes) <= 1
            assert len(bounds) in (1, n) or len(bounds) % 2 == 0  # odd only when each user is its own chunk


# ---------------------------------------------------------------------------------------------- trust boundary
@pytest.mark.parametrize("name", list(ldp.MECHANISMS.names()))
def test_exact_engine_trusts_its_own_reports_with_unchanged_results(name, monkeypatch):
    """The exact engine does not re-validate the reports its own client just produced (issue "Fast everywhere":
    up to a third of SHE's and SS's time), and its aggregate is the one the validating public path gives: the same
    chunks, the same child generators, ``mechanism.aggregate(reports)`` summed."""
    mech = build(name, 1.0, 16)
    values = sample_inputs(mech, 700, np.random.default_rng(3))
    expected = np.zeros(mech.statistic_size())
    parent = np.random.default_rng(9)
    for start, stop in chunk_bounds(values.shape[0], 256):  # 700 users: four chunks of 175
        child = parent.spawn(1)[0]
        expected += mech.aggregate(mech.perturb(values[start:stop], child)).counts  # validated

    def refuse(self, reports):
        raise AssertionError("the exact engine re-validated its own reports")

    monkeypatch.setattr(type(mech), "_validate_reports", refuse)
    for workers in (1, 2):
        agg = run_exact(mech, np.random.default_rng(9), values=values, chunk_size=256, workers=workers)
        np.testing.assert_array_equal(agg.counts, expected)
        assert agg.n == 700


def _bad_reports(name: str, mech) -> list[np.ndarray]:
    good = mech.perturb(np.arange(4) % mech.d, np.random.default_rng(0))
    if name == "grr":
        return [np.array([0, mech.d]), np.array([-1]), np.array([0.5]), good.reshape(2, 2)]
    if name == "oue":
        bad = good.astype(np.int64)
        bad[0, 0] = 2
        return [bad, good[:, :-1]]
    if name == "she":
        nan, huge = good.astype(np.float64), good.astype(np.float64)
        nan[1, 2] = np.nan
        huge[0, 0] = 1e30
        return [nan, huge, good[:, :-1]]
    if name == "ss":
        dup = good.copy()
        dup[0, 1] = dup[0, 0]
        out = good.copy()
        out[2, 0] = mech.d
        return [dup, out, good[:, :-1]]
    if name == "olh":
        a0, y = good.copy(), good.copy()
        a0[0, 0] = 0  # hash multiplier a must be ≥ 1
        y[1, 2] = mech.g
        return [a0, y, good[:, :2]]
    raise AssertionError(name)


@pytest.mark.parametrize("name", ["grr", "oue", "she", "ss", "olh"])
def test_reports_from_outside_are_still_refused(name):
    """Validation stays at the trust boundary: the public aggregate (and aggregate_reports, which the report
    files and the classroom use) refuses bad reports by default."""
    mech = ldp.get_mechanism(name, 1.0, 16)
    for bad in _bad_reports(name, mech):
        with pytest.raises(ldp.LDPError):
            mech.aggregate(bad)
        with pytest.raises(ldp.LDPError):
            ldp.aggregate_reports(mech, bad)


def test_ss_refuses_a_repeated_value_in_any_block_of_rows():
    """SS's duplicate check marks each row's values in a byte map a block of rows at a time (1,024 rows at
    d = 1,024): a repeat in a later block is found, and genuine reports pass."""
    mech = ldp.get_mechanism("ss", 1.0, 1024)
    reports = mech.perturb(np.arange(3000) % 1024, np.random.default_rng(5))
    assert mech.aggregate(reports).n == 3000
    for row in (0, 1023, 1024, 2999):
        bad = reports.copy()
        bad[row, -1] = bad[row, 0]
        with pytest.raises(ldp.LDPError, match="repeats"):
            mech.aggregate(bad)


def test_a_chunk_lists_its_users_cell_by_cell():
    """The users of a chunk [start, stop) of a population given by counts are its cells listed cell by cell, each
    as often as it has users in the chunk: the definition (a search per user) on random counts with empty cells and
    chunks that begin and end inside a cell."""
    from ldp.engines import _cells_in_range

    rng = np.random.default_rng(0)
    for _ in range(300):
        counts = rng.integers(0, 5, int(rng.integers(1, 20)))
        counts[int(rng.integers(0, counts.size))] += 1  # at least one user
        cumulative = np.cumsum(counts)
        start = int(rng.integers(0, cumulative[-1]))
        stop = int(rng.integers(start + 1, cumulative[-1] + 1))
        expected = np.searchsorted(cumulative, np.arange(start, stop), side="right")
        got = _cells_in_range(cumulative, start, stop)
        np.testing.assert_array_equal(got, expected)
        assert got.dtype == np.int64


def test_an_engine_batch_is_taken_as_drawn_and_any_other_is_checked():
    """``stack_aggregates`` keeps the engines' mark on a batch (its rows are not re-checked, as one engine aggregate
    is not); a batch of hand-made, mixed or differently sized aggregates is a plain one (checked) or refused. PM
    took a sum of 10⁹ from one user and answered a mean of 10⁹ on [−1, 1]; now only an engine may hand that in."""
    pm = ldp.get_mechanism("pm", 1.0)
    rng = np.random.default_rng(0)
    drawn = [ldp.run_fast(pm, np.array([3, 2]), rng, support=np.array([-0.5, 0.5])) for _ in range(4)]
    batch = ldp.engines.stack_aggregates(drawn)
    assert batch.simulated and batch.counts.shape == (4, 1) and batch.n == 5
    np.testing.assert_array_equal(ldp.get_estimator("average").estimate_batch(pm, batch)[:, 0],
                                  [a.counts[0] / 5 for a in drawn])
    with pytest.raises(ldp.LDPError, match="between"):
        pm.estimate([1e9], 1)
    with pytest.raises(ldp.LDPError, match="between"):
        ldp.get_estimator("average").estimate_batch(pm, np.array([[1e9]]), 1)
    beyond = ldp.Aggregate._from_engine(np.array([[1e9]]), 1, "fast")  # an engine's (here: pretended) batch
    assert ldp.get_estimator("average").estimate_batch(pm, beyond)[0, 0] == 1e9
    mixed = ldp.engines.stack_aggregates([drawn[0], ldp.Aggregate(drawn[1].counts, 5, "fast")])
    assert not mixed.simulated
    with pytest.raises(ldp.LDPError, match="share n"):
        ldp.engines.stack_aggregates([drawn[0], ldp.Aggregate(drawn[1].counts, 6, "fast")])
    with pytest.raises(ldp.LDPError, match="at least one"):
        ldp.engines.stack_aggregates([])
