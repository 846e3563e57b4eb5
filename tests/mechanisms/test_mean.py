"""Mean mechanisms (§2.2) and the 50/50 variance split (§6.3): unbiasedness, closed-form variances, LDP."""

import math

import numpy as np
import pytest

from ldp.mechanisms.mean import MEAN_MECHANISMS, PiecewiseMechanism, StochasticRounding, estimate_variance


@pytest.mark.parametrize("name", ["sr", "pm"])
@pytest.mark.parametrize("eps", [0.5, 1.0, 4.0])
@pytest.mark.parametrize("v0", [-1.0, -0.3, 0.0, 0.8, 1.0])
def test_per_user_unbiased_with_closed_form_variance(name, eps, v0):
    mech = MEAN_MECHANISMS[name](eps)
    rng = np.random.default_rng(11)
    n = 200_000
    rep = mech.perturb(np.full(n, v0), rng)
    lo, hi = mech.output_range
    assert np.all((rep >= lo) & (rep <= hi))
    var = float(mech.variance(v0))
    assert abs(rep.mean() - v0) < 5 * math.sqrt(var / n)
    # sample variance: s.e. ≈ sqrt((μ4 − σ⁴)/n); bounded by the output range: μ4 ≤ (2·hi)²·σ²
    se = math.sqrt(((2 * hi) ** 2 * var) / n)
    assert abs(rep.var() - var) < 5 * se


@pytest.mark.parametrize("name", ["sr", "pm"])
def test_mean_estimate_over_trials(name):
    mech = MEAN_MECHANISMS[name](1.0)
    rng = np.random.default_rng(2)
    values = np.clip(rng.normal(0.3, 0.3, 2000), -1, 1)
    est = np.array([mech.estimate_mean(mech.perturb(values, rng)) for _ in range(400)])
    v = mech.mean_variance(values)
    assert abs(est.mean() - values.mean()) < 5 * math.sqrt(v / 400)
    assert abs(est.var(ddof=1) / v - 1) < 5 * math.sqrt(2 / 399)


def test_sr_pm_crossover():
    """§6.2 / [33]: SR has the smaller worst-case variance for small ε, PM for large ε."""
    assert StochasticRounding(0.5).worst_case_variance() < PiecewiseMechanism(0.5).worst_case_variance()
    assert PiecewiseMechanism(4.0).worst_case_variance() < StochasticRounding(4.0).worst_case_variance()


@pytest.mark.parametrize("eps", [0.3, 1.0, 5.0])
def test_ldp(eps):
    pm = PiecewiseMechanism(eps)
    y = np.linspace(-pm.s, pm.s, 2001)
    dens = pm.density(y[:, None], np.linspace(-1, 1, 81)[None, :])
    assert dens.max() / dens.min() == pytest.approx(math.exp(eps), rel=1e-12)
    assert pm.privacy_loss() == pytest.approx(eps)
    # each density integrates to 1: p_high·(r − ℓ) + p_low·(2s − (r − ℓ))
    width = 2 / (pm.t - 1)
    assert pm.p_high * width + pm.p_low * (2 * pm.s - width) == pytest.approx(1.0)
    assert StochasticRounding(eps).privacy_loss() == pytest.approx(eps)


@pytest.mark.parametrize("name", ["sr", "pm"])
@pytest.mark.parametrize("method", ["centered", "moment"])
def test_variance_with_half_split(name, method):
    rng = np.random.default_rng(4)
    values = np.clip(rng.normal(0.2, 0.35, 4000), -1, 1)
    sigma2 = values.var()
    mech = MEAN_MECHANISMS[name](2.0)
    res = [estimate_variance(mech, None, values, rng, method=method) for _ in range(300)]
    est = np.array([r["variance"] for r in res])
    assert res[0]["n_mean"] == 2000 and res[0]["n_variance"] == 2000
    # O(1/n) bias ±Var[μ̂] (μ̂ from 2000 users) plus 5 standard errors of the trial mean
    var_mu = mech.mean_variance(values[:2000])
    assert abs(est.mean() - sigma2) < 5 * est.std(ddof=1) / math.sqrt(300) + 2 * var_mu
    with pytest.raises(ValueError):
        estimate_variance("xx", 1.0, values, rng)
