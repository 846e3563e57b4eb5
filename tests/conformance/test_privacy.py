"""ε-LDP at the boundary, for every mechanism of every kind (generated over the registry).

Discrete reports: the exact channel (output distribution per input, enumerated over outputs, hash functions or
subsets) gives the privacy loss max ln Pr[y|v]/Pr[y|v']. It must not exceed the budget, and must equal it where the
mechanism is meant to spend its whole budget — OpenDP-style: the claim holds at exactly ε and fails just below,
i.e. a claim of ε·(1 − 10⁻⁶) would be violated. ``spends_full_budget = False`` (THE's threshold, a
post-processing of a tight release) only has to stay within ε. Longitudinal mechanisms: one report spends ε1, the
memoized first step ε∞.

Continuous reports (SW, GW, PM, SHE; and SR, whose two reports have probabilities depending on a real input):
a density-ratio check with ``Mechanism.log_density``. Reports are drawn by the mechanism itself from a grid of
inputs that includes the extremes; the inputs are that grid plus every report that is itself a valid input (so the
peak of a wave, at ṽ = v, is on the grid). The largest ln f(y|v) − ln f(y|v') over the grid must not exceed ε,
must reach ε·(1 − 10⁻⁶), and must agree with the closed form ``privacy_loss()``.

(ε, δ) mechanisms (``Mechanism.delta > 0``, the Gaussian ones): no density ratio is bounded, so the check is on the
closed-form privacy profile δ(ε') (``privacy_profile``): at most δ at ε, above δ just below ε, and equal — within
Monte Carlo error — to the hockey-stick divergence estimated from the mechanism's own reports and log density.

Finite precision. A log density is computed in float64 from a few operations (a ratio of p and q, or the sum of
d Laplace terms), so its rounding error is at most a few ulps of its magnitude: |δ ln f| ≤ (d + 4)·2⁻⁵³·max(1, |ln f|),
and a difference of two carries twice that. We allow TOL = 2⁻⁴⁶·max(1, max |ln f|) (= 128·2⁻⁵³: d + 4 ≤ 64
coordinates with a factor 2 to spare). For every grid here TOL < 10⁻¹² ≪ 10⁻⁶·ε, so the boundary stays decidable
(both "≤ ε + TOL" and "> ε(1 − 10⁻⁶)" are asserted). The exact channels are products of at most d Bernoulli
probabilities and use the same tolerance, with max |ln Pr| over the channel.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from ldp_test_support import Case, build, parametrize_with_checks, report_epsilon

import ldp
from ldp.mechanisms.frequency.hadamard import HR
from ldp.mechanisms.frequency.local_hashing import LocalHashing

EPSILONS = (0.3, 1.0, 2.5)
DOMAINS = (2, 4)
BOUNDARY = 1e-6  # the claim must fail at ε·(1 − BOUNDARY)
SIGMAS_MC = 5.0  # Monte Carlo allowance of the (ε, δ) cross-check, in standard deviations


def tolerance(log_values: np.ndarray) -> float:
    """Finite-precision allowance for a difference of two log probabilities (see the module docstring)."""
    finite = np.abs(log_values[np.isfinite(log_values)])
    return 2.0 ** -46 * max(1.0, float(finite.max(initial=0.0)))


def assert_at_boundary(case: Case, loss: float, target: float, tol: float, spends_full_budget: bool) -> None:
    assert loss <= target + tol, f"{case.id} leaks: loss {loss!r} > ε {target!r} (+ {tol:.1e})"
    if spends_full_budget:
        assert loss > target * (1 - BOUNDARY), f"{case.id} wastes budget: loss {loss!r} < ε(1 − 1e-6), ε = {target!r}"
    assert tol < 1e-3 * BOUNDARY * target, "the tolerance must keep the boundary decidable"


def check_channel_privacy_at_boundary(case: Case, epsilon: float, d: int) -> None:
    mech = case.mechanism(epsilon, d)
    matrix, labels = mech.channel(max_outputs=20000)
    assert matrix.shape == (d, len(labels)) == (d, mech.output_count())
    np.testing.assert_allclose(matrix.sum(axis=1), 1.0, atol=1e-12)
    assert np.all(matrix >= 0)
    loss = ldp.mechanisms.channel_privacy_loss(matrix)
    assert mech.privacy_loss(max_outputs=20000) == loss
    with np.errstate(divide="ignore"):
        tol = tolerance(np.log(matrix))
    assert_at_boundary(case, loss, report_epsilon(mech), tol, mech.spends_full_budget)


def input_grid(mech: Any, count: int) -> np.ndarray:
    """``count`` inputs spread over the input domain, its two ends included (codes: every code; vectors: the 2^d
    corners of the cube, where each coordinate's ratio peaks, and ``count`` points on its diagonal)."""
    if mech.input_kind == "codes":
        return np.arange(mech.d)
    if mech.input_kind == "vector":
        corners = np.array(np.meshgrid(*[[-1.0, 1.0]] * mech.d, indexing="ij")).reshape(mech.d, -1).T
        return np.vstack([corners, np.linspace(-1.0, 1.0, count)[:, None] * np.ones(mech.d)])
    low = 0.0 if mech.input_kind == "unit" else -1.0
    return np.linspace(low, 1.0, count)


def check_density_ratio_at_boundary(case: Case, epsilon: float, d: int) -> None:
    mech = case.mechanism(epsilon, d)
    assert not mech.has_discrete_channel()
    with pytest.raises(ldp.LDPError, match="continuous"):
        mech.channel()
    rng = np.random.default_rng(20261123)
    grid = input_grid(mech, 21)
    reports = mech.perturb(np.repeat(grid, 40, axis=0), rng)
    inputs = grid
    if mech.input_kind in ("unit", "signed"):  # every report that is a valid input is an input too (a wave's peak)
        low = 0.0 if mech.input_kind == "unit" else -1.0
        inputs = np.union1d(grid, reports[(reports >= low) & (reports <= 1.0)])
    log_f = mech.log_density(reports, inputs)
    assert log_f.shape == (reports.shape[0], inputs.shape[0])
    assert np.all(np.isfinite(log_f)), "every report the mechanism draws has a positive density under every input"
    loss = float((log_f.max(axis=1) - log_f.min(axis=1)).max())
    tol = tolerance(log_f)
    assert_at_boundary(case, loss, report_epsilon(mech), tol, mech.spends_full_budget)
    closed = mech.privacy_loss()
    assert loss <= closed + tol and abs(closed - report_epsilon(mech)) <= tol


def check_approximate_ldp_at_boundary(case: Case, epsilon: float) -> None:
    """An (ε, δ) mechanism (``delta > 0``): its closed-form privacy profile δ(ε') holds at exactly (ε, δ) and fails
    just below ε (δ(ε(1 − 10⁻⁶)) > δ), and it agrees with the mechanism's own reports and log density.

    The cross-check: the profile is the hockey-stick divergence E_{y ~ f(·|v)}[(1 − e^{ε' − L(y)})₊] with
    L = ln f(y|v) − ln f(y|v') at the worst pair (``audit_inputs``, the two ends: distinct one-hot vectors or
    opposite corners). Its Monte Carlo estimate from m reports drawn by ``perturb`` — terms in [0, 1], so each term's
    variance is at most its mean δ(ε') — lies within 5·√(δ(ε')/m) of the closed form (plus 10⁻¹² for rounding),
    at ε' = 0 (the total variation, ≈ 0.1–0.3 here: a sharp check), ε/2 and ε. Every other pair of a grid of inputs
    stays below the worst pair's profile at ε' = 0 within the same allowance (joint convexity / a smaller
    distance). The density ratio itself is unbounded, and ``privacy_loss()`` says so (∞)."""
    mech = case.mechanism(epsilon, 1)
    delta = mech.delta
    assert 0.0 < delta < 1.0 and delta == mech.params["delta"]
    assert mech.privacy_loss() == math.inf
    target = report_epsilon(mech)
    profile = mech.privacy_profile(target)
    assert profile <= delta * (1 + 1e-9), f"{case.id} leaks: δ(ε) = {profile!r} > δ = {delta!r}"
    assert profile > delta * (1 - BOUNDARY), f"{case.id} wastes budget: δ(ε) = {profile!r} < δ(1 − 1e-6)"
    assert mech.privacy_profile(target * (1 - BOUNDARY)) > delta, f"{case.id}: the claim must fail just below ε"
    rng = np.random.default_rng(20261126)
    v0, v1 = (np.atleast_1d(np.asarray(v, dtype=np.float64)) for v in mech.audit_inputs())
    m = 20000
    draws = np.repeat(v0[None, :], m, axis=0) if mech.input_kind == "vector" else np.repeat(v0, m)
    reports = mech.perturb(draws, rng)
    pair = np.stack([v0, v1]) if mech.input_kind == "vector" else np.concatenate([v0, v1])
    log_f = mech.log_density(reports, pair)
    loss = log_f[:, 0] - log_f[:, 1]
    for eps_prime in (0.0, target / 2, target):
        closed = mech.privacy_profile(eps_prime)
        estimate = float(np.mean(np.clip(-np.expm1(eps_prime - loss), 0.0, None)))
        allowance = SIGMAS_MC * math.sqrt(closed / m) + 1e-12
        assert abs(estimate - closed) <= allowance, (
            f"{case.id}: Monte Carlo δ({eps_prime:g}) = {estimate:.5g} vs closed form {closed:.5g} (± {allowance:.2g})")
    grid = input_grid(mech, 7)
    per = 2000
    reports = mech.perturb(np.repeat(grid, per, axis=0), rng)
    log_f = mech.log_density(reports, grid).reshape(grid.shape[0], per, grid.shape[0])
    own = np.stack([log_f[i, :, i] for i in range(grid.shape[0])])[:, :, None]  # ln f(y | v_i), y ~ v_i
    tv = np.clip(-np.expm1(-(own - log_f)), 0.0, None).mean(axis=1)  # δ̂(0) for each pair (v_i, v_j)
    worst = mech.privacy_profile(0.0)
    assert tv.max() <= worst + SIGMAS_MC * math.sqrt(worst / per), f"{case.id}: a pair beats the declared worst pair"


def check_discrete_mechanisms_have_no_density(case: Case) -> None:
    mech = case.mechanism(1.0, 4)
    with pytest.raises(ldp.LDPError, match="channel"):
        mech.log_density(mech.perturb(np.zeros(1, dtype=int) if mech.input_kind == "codes" else np.zeros(1),
                                      np.random.default_rng(0)), np.zeros(1, dtype=int))


def check_longitudinal_first_step_spends_eps_inf(case: Case, epsilon: float) -> None:
    mech = case.mechanism(epsilon, 4)
    assert mech.params["epsilon_1"] < epsilon
    assert mech.first_step_privacy_loss() == pytest.approx(epsilon, rel=1e-9)


def yield_privacy_checks(case: Case) -> Iterator[Any]:
    mech = case.mechanism(1.0, 4)
    for epsilon in EPSILONS:
        if mech.delta > 0:  # (ε, δ): the privacy profile, not a bounded ratio
            yield functools.partial(check_approximate_ldp_at_boundary, epsilon=epsilon)
            continue
        for d in DOMAINS if not mech.population_by_support else (1,):  # mean/vector: d is the dimension
            if mech.has_discrete_channel():
                yield functools.partial(check_channel_privacy_at_boundary, epsilon=epsilon, d=d)
            else:
                yield functools.partial(check_density_ratio_at_boundary, epsilon=epsilon, d=d)
    if mech.has_discrete_channel():
        yield check_discrete_mechanisms_have_no_density
    if mech.collection == "longitudinal":
        for epsilon in (1.0, 3.0):
            yield functools.partial(check_longitudinal_first_step_spends_eps_inf, epsilon=epsilon)


@parametrize_with_checks(ldp.MECHANISMS, yield_privacy_checks)
def test_mechanism(case, check):
    check(case)


# ------------------------------------------------------------------------------ family-specific cross-checks
@pytest.mark.parametrize("epsilon", EPSILONS)
def test_the_threshold_is_post_processing(epsilon):
    """THE spends less than ε by design: its bits' ratio is p*(1−q*)/(q*(1−p*)) < e^ε, while the Laplace(2/ε)
    release it thresholds (SHE's) is exactly ε-LDP."""
    mech = build("the", epsilon, 3)
    p, q = mech.p_star, mech.q_star
    loss = mech.privacy_loss()
    assert loss == pytest.approx(math.log(p * (1 - q) / (q * (1 - p))), rel=1e-12)
    assert loss < epsilon
    she = build("she", epsilon, 3)  # the same Laplace(2/ε) release before thresholding
    y = np.array([[1.0, 0.0, 0.0]])
    assert she.laplace_log_density(y, 0)[0] - she.laplace_log_density(y, 1)[0] == pytest.approx(epsilon)


def test_support_probabilities_match_channel_for_grr_family():
    """p*, q* of (L-)GRR read off the exact channel (support set of y is {y})."""
    for name in ("grr", "l-grr"):
        mech = build(name, 1.3, 5)
        matrix, _ = mech.channel()
        assert np.allclose(np.diag(matrix), mech.p_star)
        assert np.allclose(matrix[~np.eye(5, dtype=bool)], mech.q_star)


@pytest.mark.parametrize("name", ["blh", "olh", "l-blh", "l-olh", "hr", "ss"])
def test_support_probabilities_match_channel_enumerated(name):
    """Sum the exact channel over the outputs that support v: p* for the holder, q* otherwise."""
    d = 4 if name != "ss" else 5
    mech = build(name, 1.1, d)
    matrix, labels = mech.channel(max_outputs=20000)
    fields = [list(map(int, lab.split())) for lab in labels]
    support = np.zeros((len(labels), d), dtype=bool)
    for i, f in enumerate(fields):
        for v in range(d):
            if isinstance(mech, LocalHashing):
                a, b, y = f
                support[i, v] = ((a * v + b) % mech.prime) % mech.g == y
            elif isinstance(mech, HR):
                j, y = f
                support[i, v] = (bin(j & v).count("1") & 1) == y
            else:
                support[i, v] = v in f
    prob = matrix @ support  # prob[u, v] = Pr[report supports v | input u]
    assert np.allclose(np.diag(prob), mech.p_star, atol=1e-12)
    assert np.allclose(prob[~np.eye(d, dtype=bool)], mech.q_star, atol=1e-12)
    # the mechanism's own reading of its channel agrees (it parses the labels and counts supports)
    np.testing.assert_allclose(mech.support_probabilities(matrix, labels), prob, atol=1e-12)
    np.testing.assert_allclose(mech.support_probabilities(), prob, atol=1e-12)


def test_log_density_validates_its_arguments():
    sw = build("sw", 1.0, 8)
    with pytest.raises(ldp.LDPError, match="outside"):
        sw.log_density(np.array([0.5]), np.array([2.0]))
    with pytest.raises(ldp.LDPError, match="outside"):
        sw.log_density(np.array([5.0]), np.array([0.5]))
    with pytest.raises(ldp.LDPError, match="at least one input"):
        sw.log_density(np.array([0.5]), np.array([]))
