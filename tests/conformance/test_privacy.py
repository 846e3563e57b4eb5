"""ε-LDP conformance over the whole registry, from each mechanism's exact channel.

For every discrete mechanism the channel (output distribution per input, enumerated over outputs,
hash functions or subsets) is built exactly; the privacy loss max ln Pr[y|v]/Pr[y|v'] must not
exceed the claimed budget, and must equal it where the mechanism is meant to spend its whole
budget (OpenDP-style boundary test: the claim holds at exactly ε and fails just below).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from ldp_test_support import build, report_epsilon

import ldp

EPSILONS = [0.3, 1.0, 2.5]
TOL = 1e-9


def _discrete(name: str) -> bool:
    return ldp.MECHANISMS.get(name).pure


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("d", [2, 4])
def test_privacy_loss_at_budget(mechanism_name, epsilon, d):
    if not _discrete(mechanism_name):
        pytest.skip("continuous reports: see test_she_laplace_density_ratio")
    mech = build(mechanism_name, epsilon, d)
    matrix, labels = mech.channel(max_outputs=20000)
    assert matrix.shape == (d, len(labels))
    np.testing.assert_allclose(matrix.sum(axis=1), 1.0, atol=1e-12)
    loss = mech.privacy_loss(max_outputs=20000)
    target = report_epsilon(mech)
    assert loss <= target + TOL, f"{mechanism_name} leaks: loss {loss} > ε {target}"
    if mech.spends_full_budget:
        # holds at exactly ε and fails just below: a claim of ε(1 − 1e-6) would be violated
        assert loss > target * (1 - 1e-6), f"{mechanism_name} wastes budget: loss {loss} < ε {target}"


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
def test_longitudinal_first_step_spends_eps_inf(mechanism_name, epsilon):
    mech = build(mechanism_name, epsilon, 4)
    if mech.kind != "longitudinal":
        pytest.skip("one-time mechanism")
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
            if mech.family == "lh":
                a, b, y = f
                support[i, v] = ((a * v + b) % mech.prime) % mech.g == y
            elif mech.family == "hr":
                j, y = f
                support[i, v] = (bin(j & v).count("1") & 1) == y
            else:
                support[i, v] = v in f
    prob = matrix @ support  # prob[u, v] = Pr[report supports v | input u]
    assert np.allclose(np.diag(prob), mech.p_star, atol=1e-12)
    assert np.allclose(prob[~np.eye(d, dtype=bool)], mech.q_star, atol=1e-12)
