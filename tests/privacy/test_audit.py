"""The empirical audit: power on tight mechanisms, soundness, THE below ε, and the broken teaching example."""

import pytest

from ldp.core.errors import LDPError
from ldp.core.registry import MECHANISMS
from ldp.privacy.audit import BrokenOLH, audit, clopper_pearson, make_audited


def test_clopper_pearson_known_interval():
    # the exact two-sided 95 % interval of 5 successes in 10 trials is (0.1871, 0.8129)
    lo, hi = clopper_pearson(5, 10, 0.025)
    assert float(lo) == pytest.approx(0.1871, abs=1e-4) and float(hi) == pytest.approx(0.8129, abs=1e-4)
    lo0, _ = clopper_pearson(0, 10, 0.025)
    _, hi1 = clopper_pearson(10, 10, 0.025)
    assert float(lo0) == 0.0 and float(hi1) == 1.0


def test_grr_reaches_ninety_percent_of_epsilon_with_a_million_samples():
    # GRR d = 2, ε = 1: p = 0.731, q = 0.269. With S = 1e6 the one-sided 97.5 % Clopper–Pearson margins are
    # ≈ 1.96·sqrt(pq/S) ≈ 8.7e-4 on each, so ln(p̲/q̄) ≈ 1 − 8.7e-4/0.731 − 8.7e-4/0.269 ≈ 0.995 ≥ 0.9.
    res = audit(make_audited("grr", 1.0, 2), samples=1_000_000, seed=3)
    assert 0.9 <= res.epsilon_lower_bound <= 1.0
    assert res.epsilon == 1.0 and res.channel_epsilon == pytest.approx(1.0)
    assert (res.event, res.inputs) in (("report ∈ {0}", (0, 1)), ("report ∈ {1}", (1, 0)))  # d = 2 is symmetric


def test_thresholded_histogram_encoding_stays_below_epsilon():
    mech = make_audited("the", 1.0, 8)
    res = audit(mech, samples=200_000, seed=4)
    assert res.channel_epsilon < 0.9  # THE's bits spend less than ε (post-processing of the Laplace release)
    assert res.epsilon_lower_bound < res.channel_epsilon < res.epsilon
    assert res.epsilon_lower_bound > 0.7  # and the audit is close to what they spend


@pytest.mark.parametrize("name,epsilon,d", [("oue", 1.0, 8), ("olh", 1.0, 8), ("ss", 1.0, 8), ("hr", 1.0, 8),
                                            ("l-grr", 2.0, 4), ("l-oue", 2.0, 4), ("sw", 1.0, 16), ("pm", 1.0, None),
                                            ("she", 1.0, 4)])
def test_sound_and_powerful_on_registered_mechanisms(name, epsilon, d):
    mech = make_audited(name, epsilon, d)
    res = audit(mech, samples=100_000, seed=5)
    claimed = res.epsilon  # ε1 for a longitudinal mechanism: one report
    assert res.epsilon_lower_bound <= claimed  # 95 % guarantee; the seed is fixed
    assert res.epsilon_lower_bound > 0.5 * claimed


def test_broken_olh_is_caught_and_not_registered():
    assert "broken-olh" not in MECHANISMS
    assert all(cls is not BrokenOLH for cls in MECHANISMS)
    broken = make_audited("broken-olh", 0.5, 8)
    assert broken.g == 3 and broken.privacy_loss() == pytest.approx(0.6931, abs=1e-4)
    res = audit(broken, samples=100_000, seed=6)
    assert res.epsilon == 0.5 and res.epsilon_lower_bound > 0.55
    honest = audit(make_audited("olh", 0.5, 8), samples=100_000, seed=6)
    assert honest.epsilon_lower_bound <= 0.5


def test_reproducible_with_progress():
    seen = []
    a = audit(make_audited("oue", 1.0, 4), samples=5_000, seed=9, progress=seen.append)
    b = audit(make_audited("oue", 1.0, 4), samples=5_000, seed=9)
    assert a == b and seen[-1] == 1.0 and seen == sorted(seen)


@pytest.mark.parametrize("kwargs", [dict(samples=10), dict(inputs=(1, 1)), dict(inputs=(0, 9)), dict(confidence=1.0)])
def test_bad_input(kwargs):
    with pytest.raises(LDPError) as err:
        audit(make_audited("grr", 1.0, 4), **{"samples": 1000, **kwargs})
    assert "\n" not in str(err.value)


def test_unknown_mechanism():
    with pytest.raises(LDPError, match="unknown mechanism"):
        make_audited("nope", 1.0, 4)


@pytest.mark.parametrize("name", MECHANISMS.names())
def test_every_registered_mechanism_can_be_audited(name):
    # soundness at 95 % for each (fixed seed); every mechanism has an event family (support, value, bins, rows)
    cls = MECHANISMS.get(name)
    res = audit(make_audited(name, 1.0, None if cls.population_by_support else 8), samples=20_000, seed=2)
    assert 0.0 < res.epsilon_lower_bound <= res.epsilon


def test_an_epsilon_delta_mechanism_is_audited_with_its_delta():
    """The Gaussian's density ratio is unbounded: no exact channel ε is reported, its δ is; the certified bound stays
    below ε (the audit's events are far more likely than δ = 1e-5)."""
    res = audit(make_audited("gaussian", 1.0, None), samples=20_000, seed=2)
    assert res.channel_epsilon is None and res.delta == 1e-5 and res.to_dict()["delta"] == 1e-5
    assert 0.0 < res.epsilon_lower_bound <= 1.0
    assert audit(make_audited("sr", 1.0, None), samples=2_000, seed=2).delta == 0.0
