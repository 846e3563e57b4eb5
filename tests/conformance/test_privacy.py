"""ε-LDP conformance over the whole registry (every kind), from each mechanism's exact channel or density.

For every discrete mechanism the channel (output distribution per input, enumerated over outputs,
hash functions or subsets) is built exactly; the privacy loss max ln Pr[y|v]/Pr[y|v'] must not
exceed the claimed budget, and must equal it where the mechanism is meant to spend its whole
budget (OpenDP-style boundary test: the claim holds at exactly ε and fails just below). Mechanisms with
continuous reports state their loss in closed form (``privacy_loss``); it is checked the same way, and against
the report densities themselves on a grid where the mechanism exposes them.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from ldp_test_support import build, report_epsilon

import ldp
from ldp.mechanisms.frequency.hadamard import HR
from ldp.mechanisms.frequency.local_hashing import LocalHashing

EPSILONS = [0.3, 1.0, 2.5]
TOL = 1e-9
LONGITUDINAL = [cls.name for cls in ldp.mechanisms_of("frequency") if cls.collection == "longitudinal"]


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("d", [2, 4])
def test_privacy_loss_at_budget(mechanism_name, epsilon, d):
    mech = build(mechanism_name, epsilon, d)
    if mech.has_discrete_channel():
        matrix, labels = mech.channel(max_outputs=20000)
        assert matrix.shape == (d, len(labels)) == (d, mech.output_count())
        np.testing.assert_allclose(matrix.sum(axis=1), 1.0, atol=1e-12)
        assert ldp.mechanisms.channel_privacy_loss(matrix) == mech.privacy_loss(max_outputs=20000)
    else:  # continuous reports: the closed form (checked against the densities below)
        with pytest.raises(ldp.LDPError, match="continuous"):
            mech.channel()
    loss = mech.privacy_loss(max_outputs=20000)
    target = report_epsilon(mech)
    assert loss <= target + TOL, f"{mechanism_name} leaks: loss {loss} > ε {target}"
    if mech.spends_full_budget:
        # holds at exactly ε and fails just below: a claim of ε(1 − 1e-6) would be violated
        assert loss > target * (1 - 1e-6), f"{mechanism_name} wastes budget: loss {loss} < ε {target}"


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("name, params", [("sw", {}), ("gw", {"shape": "triangle"}), ("gw", {"shape": "trapezoid:0.5"}),
                                          ("pm", {})])
def test_continuous_density_ratio(name, params, epsilon):
    """The report densities of SW, GW and PM on a grid of reports and inputs: the largest ratio is e^ε."""
    mech = build(name, epsilon, 8, **params)
    lo, hi = mech.output_range
    y = np.linspace(lo, hi, 801)
    v = np.linspace(-1.0, 1.0, 41) if mech.kind == "mean" else np.linspace(0.0, 1.0, 41)
    dens = mech.density(y[None, :], v[:, None])  # (inputs, reports)
    assert np.all(dens > 0)
    loss = float(np.log(dens.max(axis=0) / dens.min(axis=0)).max())
    assert loss <= epsilon + TOL
    assert loss == pytest.approx(epsilon, rel=1e-9)
    assert mech.privacy_loss() == pytest.approx(epsilon, rel=1e-12)


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_stochastic_rounding_report_probabilities(epsilon):
    """SR's two reports: Pr[+] over inputs in [−1, 1] differ by at most e^ε (and so do Pr[−])."""
    mech = build("sr", epsilon, 1)
    plus = mech.plus_probability(np.linspace(-1, 1, 101))
    loss = max(math.log(plus.max() / plus.min()), math.log((1 - plus.min()) / (1 - plus.max())))
    assert loss == pytest.approx(epsilon, rel=1e-12)
    assert mech.privacy_loss() == pytest.approx(loss, rel=1e-12)


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_the_threshold_is_post_processing(epsilon):
    mech = build("the", epsilon, 3)
    p, q = mech.p_star, mech.q_star
    loss = mech.privacy_loss()
    assert loss == pytest.approx(math.log(p * (1 - q) / (q * (1 - p))), rel=1e-12)
    assert loss < epsilon


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_she_laplace_density_ratio(epsilon):
    """SHE / HE: the Laplace(2/ε) release of a one-hot vector is exactly ε-LDP (sensitivity 2)."""
    mech = build("she", epsilon, 3)
    rng = np.random.default_rng(7)
    y = rng.normal(0.5, 3.0, size=(5000, 3))
    losses = mech.laplace_log_density(y, 0) - mech.laplace_log_density(y, 1)
    assert losses.max() <= epsilon + TOL
    extreme = np.array([[1.0, 0.0, 0.3]])  # y_0 ≥ 1 and y_1 ≤ 0: the ratio is attained
    assert (mech.laplace_log_density(extreme, 0) - mech.laplace_log_density(extreme, 1))[0] == pytest.approx(epsilon)


@pytest.mark.parametrize("name", ["the"])
def test_the_underlying_laplace_is_tight(name):
    mech = build(name, 1.0, 3)
    she = build("she", 1.0, 3)  # same Laplace(2/ε) release before thresholding
    y = np.array([[1.0, 0.0, 0.0]])
    assert she.laplace_log_density(y, 0)[0] - she.laplace_log_density(y, 1)[0] == pytest.approx(mech.epsilon)


@pytest.mark.parametrize("epsilon", [1.0, 3.0])
@pytest.mark.parametrize("name", LONGITUDINAL)
def test_longitudinal_first_step_spends_eps_inf(name, epsilon):
    mech = build(name, epsilon, 4)
    assert mech.first_step_privacy_loss() == pytest.approx(epsilon, rel=1e-9)


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
