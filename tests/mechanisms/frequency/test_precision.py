"""ε where double precision cannot sample the channel is refused (issue 10 item 14): at GRR's ε ≥ 37 p* rounded
to exactly 1, no report was ever randomized, and privacy_loss() still reported 37–50."""

from __future__ import annotations

import pytest

import ldp
from ldp.mechanisms.frequency.base import MIN_PROBABILITY

PURE = [c.name for c in ldp.MECHANISMS if c.kind == "frequency" and c.pure]


@pytest.mark.parametrize("name", PURE)
def test_accepted_channels_are_sampleable_and_the_rest_refused(name):
    for eps in (0.5, 5.0, 15.0, 25.0, 30.0, 40.0, 50.0):
        params = {"epsilon_1": eps / 2} if ldp.MECHANISMS.get(name).collection == "longitudinal" else {}
        try:
            mech = ldp.get_mechanism(name, eps, 8, **params)
        except ldp.LDPError as exc:
            assert "double-precision" in str(exc) and "\n" not in str(exc)
            continue
        p, q = mech.p_star, mech.q_star
        assert min(p, 1 - p, q, 1 - q) >= MIN_PROBABILITY
        assert 0 < 1 - p and q > 0  # something is always randomized


def test_grr_at_epsilon_40_is_refused_with_the_reason():
    with pytest.raises(ldp.LDPError, match="double-precision sampling"):
        ldp.get_mechanism("grr", 40.0, 10)
    assert ldp.get_mechanism("grr", 25.0, 10).privacy_loss() == pytest.approx(25.0)
