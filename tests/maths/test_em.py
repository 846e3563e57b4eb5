"""EM / EMS on a channel (ldp.maths.em, square-wave paper §5.5): the smoothing step, the paper's tolerances, the
stopping rule, the likelihood and its maximizer, with a dense matrix and with the square wave's O(d + d̃)
operator as channels."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ldp
from ldp.maths.em import (
    DenseChannel,
    EMTrace,
    as_channel,
    default_tolerance,
    em,
    ems,
    expectation_maximization,
    expectation_maximization_batch,
    log_likelihood,
    smooth_binomial,
)
from ldp.mechanisms.numerical.square_wave import SquareWave


def test_smoothing_is_the_binomial_121_step_and_preserves_mass():
    x = np.array([0.1, 0.4, 0.2, 0.3])
    s = smooth_binomial(x)
    assert s[1] == pytest.approx(0.5 * 0.4 + 0.25 * (0.1 + 0.2))
    assert s[2] == pytest.approx(0.5 * 0.2 + 0.25 * (0.4 + 0.3))
    assert s[0] == pytest.approx(0.75 * 0.1 + 0.25 * 0.4)  # end value repeated
    assert s.sum() == pytest.approx(1.0, abs=1e-15)
    with pytest.raises(ldp.LDPError, match="at least 2"):
        smooth_binomial(np.array([1.0]))


def test_default_tolerances_are_the_papers():
    assert default_tolerance("em", 2.0) == pytest.approx(1e-3 * math.exp(2.0))
    assert default_tolerance("ems", 2.0) == 1e-3
    assert default_tolerance("EMS", None) == 1e-3
    with pytest.raises(ldp.LDPError, match="needs ε"):
        default_tolerance("em", None)
    with pytest.raises(ldp.LDPError, match="method"):
        default_tolerance("admm", 1.0)


def test_dense_channel_validation():
    with pytest.raises(ldp.LDPError, match="sum to 1"):
        DenseChannel(np.ones((3, 2)))
    with pytest.raises(ldp.LDPError, match="2-D"):
        DenseChannel(np.ones(3))
    with pytest.raises(ldp.LDPError, match="non-negative"):
        DenseChannel(np.array([[1.5], [-0.5]]))
    m = np.array([[0.75, 0.25], [0.25, 0.75]])
    ch = as_channel(m)
    assert isinstance(ch, DenseChannel) and ch.shape == (2, 2)
    np.testing.assert_allclose(ch.dot(np.array([1.0, 0.0])), [0.75, 0.25])
    np.testing.assert_allclose(ch.tdot(np.array([1.0, 0.0])), [0.75, 0.25])
    assert as_channel(ch) is ch


def _small_problem():
    sw = SquareWave(1.0, 12, d_tilde=16)
    rng = np.random.default_rng(0)
    truth = rng.dirichlet(np.ones(12) * 2)
    hist = sw.sample_histogram(rng.multinomial(20_000, truth), rng)
    return sw, hist


def test_em_increases_the_likelihood_and_reaches_the_mle():
    sw, hist = _small_problem()
    m = sw.transition_matrix()
    x, trace = em(hist, m, tol=0.0, max_iter=20_000)
    lls = trace.log_likelihood
    assert np.all(np.diff(lls) >= -1e-7)  # EM never decreases L (up to rounding)
    assert lls[-1] == pytest.approx(log_likelihood(hist, m, x), abs=1e-8)
    # KKT conditions of max Σ_j n_j ln (Mx)_j on the simplex: ∂L/∂x_i = n where x_i > 0, ≤ n where x_i = 0
    grad = m.T @ (hist / (m @ x))
    n = hist.sum()
    live = x > 1e-6
    np.testing.assert_allclose(grad[live], n, rtol=1e-3)
    assert np.all(grad[~live] <= n * (1 + 1e-3))
    # the O(d + d̃) operator and the dense matrix give the same iterates
    x2, trace2 = em(hist, sw.transition_operator(), tol=0.0, max_iter=200)
    x3, _ = em(hist, m, tol=0.0, max_iter=200)
    np.testing.assert_allclose(x2, x3, rtol=1e-9, atol=1e-15)


def test_stopping_rule_is_the_absolute_change_of_the_total_log_likelihood():
    sw, hist = _small_problem()
    channel = sw.transition_operator()
    for method, smoothing in (("em", False), ("ems", True)):
        tau = default_tolerance(method, sw.epsilon)
        x, trace = expectation_maximization(hist, channel, smoothing=smoothing, tol=tau)
        assert isinstance(trace, EMTrace)
        assert trace.converged and trace.method == method and trace.tol == tau
        changes = trace.changes
        assert changes.size == trace.iterations == trace.log_likelihood.size - 1
        assert changes[-1] < tau and np.all(changes[:-1] >= tau)  # stops at the first change below τ
        assert trace.log_likelihood[-1] == pytest.approx(log_likelihood(hist, channel, x), abs=1e-9)
        assert x.sum() == pytest.approx(1.0) and np.all(x >= 0)
    # τ is compared with the change over all n reports: ten times the reports (same shape) → larger
    # changes for the same iterates → at least as many iterations
    _, t1 = ems(hist, channel)
    _, t10 = ems(10 * hist, channel)
    assert t10.iterations > t1.iterations
    np.testing.assert_allclose(t10.log_likelihood[: t1.iterations + 1] - 10 * t1.log_likelihood,
                               t10.log_likelihood[0] - 10 * t1.log_likelihood[0], atol=1e-6)


def test_max_iter_caps_and_reports_non_convergence():
    sw, hist = _small_problem()
    x, trace = ems(hist, sw.transition_operator(), tol=0.0, max_iter=7)
    assert not trace.converged and trace.iterations == 7 and "max_iter=7" in trace.note
    assert x.shape == (12,) and x.sum() == pytest.approx(1.0)
    assert trace.to_dict()["converged"] is False
    with pytest.raises(ldp.LDPError, match="max_iter"):
        ems(hist, sw.transition_operator(), max_iter=0)


def test_em_validation():
    sw, hist = _small_problem()
    channel = sw.transition_operator()
    with pytest.raises(ldp.LDPError, match="d̃=16"):
        ems(hist[:-1], channel)
    with pytest.raises(ldp.LDPError, match="non-negative"):
        ems(-hist, channel)
    with pytest.raises(ldp.LDPError, match="empty"):
        ems(np.zeros(16), channel)
    with pytest.raises(ldp.LDPError, match="needs ε"):
        em(hist, channel)
    with pytest.raises(ldp.LDPError, match="tol"):
        ems(hist, channel, tol=-1.0)
    with pytest.raises(ldp.LDPError, match="init"):
        ems(hist, channel, init=np.ones(11))
    # the mechanism's reconstruction: the paper's τ for EM at its ε, the EM trace on the Estimate
    res = sw.reconstruct(hist, int(hist.sum()), method="em")
    assert res.estimator == "em" and res.diagnostics["tol"] == pytest.approx(1e-3 * math.e) and res.d == 12
    assert res.converged and res.iterations == res.trace.size - 1  # trace: log-likelihoods L(x̂⁰) … L(x̂ᵗ)
    np.testing.assert_allclose(sw.input_edges(), np.linspace(0, 1, 13))


def test_zero_report_buckets_are_handled():
    sw = SquareWave(4.0, 8, d_tilde=8)
    hist = np.zeros(8)
    hist[2] = 50
    x, trace = ems(hist, sw.transition_operator())
    assert trace.converged and np.all(np.isfinite(x)) and x.sum() == pytest.approx(1.0)


def test_init_is_a_starting_point_and_one_iteration_is_algorithm_1():
    sw, hist = _small_problem()
    m = sw.transition_matrix()
    x0 = np.random.default_rng(5).dirichlet(np.ones(12))
    x1, trace = em(hist, m, tol=0.0, max_iter=1, init=3 * x0)  # init is normalized
    assert trace.log_likelihood[0] == pytest.approx(log_likelihood(hist, m, x0), abs=1e-9)
    p = x0 * (m.T @ (hist / (m @ x0)))  # E-step
    np.testing.assert_allclose(x1, p / p.sum(), rtol=1e-12)  # M-step
    s1, _ = ems(hist, m, tol=0.0, max_iter=1, init=x0)
    np.testing.assert_allclose(s1, smooth_binomial(p / p.sum()), rtol=1e-12)  # S-step after the M-step


@pytest.mark.parametrize(("epsilon", "d", "form"), [(1.0, 64, "band"), (0.3, 64, "antiderivative"),
                                                    (2.0, 16, "dense")])
def test_a_batch_is_every_rows_own_run_bit_for_bit(epsilon, d, form):
    """EM/EMS over a block of collections: each row's estimate and trace are expectation_maximization's on it,
    exactly (rows that stop early, a row with empty report buckets, the cap) — the block only shares the
    interpreter's work."""
    sw = SquareWave(epsilon, d)
    op = sw.transition_operator()
    assert form == "dense" or op.form == form
    channel = op.dense() if form == "dense" else op
    rng = np.random.default_rng(5)
    truth = rng.dirichlet(np.full(d, 0.5))
    rows = [sw.sample_aggregate(rng.multinomial(n, truth), rng).counts for n in (200, 5_000, 50_000, 20)]
    sparse = np.zeros(sw.d_tilde)
    sparse[[1, 5]] = (30, 12)
    hist = np.stack([*rows, sparse])
    assert not np.all(hist[-1] > 0)
    for smoothing, tol, cap in ((True, 1e-3, 10_000), (False, 1e-2, 10_000), (True, 0.0, 6)):
        x, traces = expectation_maximization_batch(hist, channel, smoothing=smoothing, tol=tol, max_iter=cap)
        assert x.shape == (hist.shape[0], d) and len(traces) == hist.shape[0]
        for row, got, trace in zip(hist, x, traces, strict=True):
            want, one = expectation_maximization(row, channel, smoothing=smoothing, tol=tol, max_iter=cap)
            np.testing.assert_array_equal(got, want)
            assert (trace.iterations, trace.converged, trace.note) == (one.iterations, one.converged, one.note)
            np.testing.assert_array_equal(trace.log_likelihood, one.log_likelihood)
            # the block's L is log_likelihood's Σ n_j ln (M x)_j (one dot product), bit for bit
            assert trace.log_likelihood[-1] == log_likelihood(row, channel, got)
        assert len({t.iterations for t in traces}) > 1 or cap == 6  # the rows stopped at their own iterations
    with pytest.raises(ldp.LDPError, match="2-D"):
        expectation_maximization_batch(hist[0], channel, tol=1e-3)
    with pytest.raises(ldp.LDPError, match="empty"):
        expectation_maximization_batch(np.vstack([hist[0], np.zeros(sw.d_tilde)]), channel, tol=1e-3)
    with pytest.raises(ldp.LDPError, match="max_iter"):
        expectation_maximization_batch(hist, channel, tol=1e-3, max_iter=0)


def test_the_square_wave_channel_multiplies_a_block_as_row_by_row():
    rng = np.random.default_rng(2)
    for epsilon in (1.0, 0.3):  # the band and the antiderivative forms
        op = SquareWave(epsilon, 40).transition_operator()
        x, r = rng.random((5, 40)), rng.random((5, op.shape[0]))
        got_x, got_r = op.dot_rows(x), op.tdot_rows(r)
        assert got_x.flags.c_contiguous and got_r.flags.c_contiguous
        np.testing.assert_array_equal(got_x, np.stack([op.dot(row) for row in x]))
        np.testing.assert_array_equal(got_r, np.stack([op.tdot(row) for row in r]))


def test_a_batch_with_a_channel_per_row_is_every_rows_own_run_bit_for_bit():
    """A sweep of b (band and antiderivative channels in one block) through the square wave's stack hook, and the
    same rows through dense channels (the row-by-row fallback): every row's estimate and trace are
    expectation_maximization's through its own channel, exactly — rows stopping at their own iterations (the
    stack rebuilds its block products as rows leave, and stale rows must not leak into the others)."""
    epsilon, d = 0.3, 64
    b_mi = SquareWave(epsilon, d).b
    mechs = [SquareWave(epsilon, d, b=f * b_mi) for f in (0.25, 1.0, 4.0)]
    assert {m.transition_operator().form for m in mechs} == {"band", "antiderivative"}
    rng = np.random.default_rng(3)
    truth = rng.dirichlet(np.full(d, 0.5))
    hist, ops = [], []
    for m in mechs:
        for n in (100, 2_000, 30_000):
            hist.append(m.sample_aggregate(rng.multinomial(n, truth), rng).counts)
            ops.append(m.transition_operator())
    hist = np.stack(hist)
    # the stack in the sweep's order (band rows first), with a wide row first (its block product reorders the
    # rows), and the dense channels
    turned = np.r_[6:9, 0:6]
    for rows, channels in ((hist, ops), (hist[turned], [ops[t] for t in turned]), (hist, [op.dense() for op in ops])):
        x, traces = expectation_maximization_batch(rows, channels, smoothing=True, tol=1e-3)
        for row, channel, got, trace in zip(rows, channels, x, traces, strict=True):
            want, one = expectation_maximization(row, channel, smoothing=True, tol=1e-3)
            np.testing.assert_array_equal(got, want)
            assert (trace.iterations, trace.converged) == (one.iterations, one.converged)
            np.testing.assert_array_equal(trace.log_likelihood, one.log_likelihood)
        assert len({t.iterations for t in traces}) > 3
    with pytest.raises(ldp.LDPError, match="one channel per histogram"):
        expectation_maximization_batch(hist, ops[:2], tol=1e-3)
    with pytest.raises(ldp.LDPError, match="one shape"):
        expectation_maximization_batch(hist[:2], [ops[0], SquareWave(epsilon, 8).transition_operator()], tol=1e-3)
