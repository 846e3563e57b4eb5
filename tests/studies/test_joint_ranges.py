"""HDG and 2-D range queries: the answers are sums over rectangles, the guideline's granularities, and HDG beats
the 1-D-only (independence) answer on a correlated pair."""

from __future__ import annotations

import numpy as np
import pytest

from ldp.core.errors import InvalidInput
from ldp.core.streams import rng_for
from ldp.data.joint import joint_synthetic
from ldp.studies.joint import estimate_joint
from ldp.studies.joint_ranges import hdg_granularities, random_rectangles, range_answers, range_mse, with_range_mse


def test_range_answers_are_sums_over_the_rectangles() -> None:
    table = np.random.default_rng(0).random((6, 7))
    rects = random_rectangles(table.shape, 50, rng_for(0, "test", "queries"))
    assert np.all(rects[:, :, 0] < rects[:, :, 1]) and np.all(rects[:, 0, 1] <= 6) and np.all(rects[:, 1, 1] <= 7)
    direct = [table[r[0, 0]:r[0, 1], r[1, 0]:r[1, 1]].sum() for r in rects]
    np.testing.assert_allclose(range_answers(table, rects), direct)
    assert range_mse(table, table, rects) == 0.0
    with pytest.raises(InvalidInput):
        range_answers(np.ones((2, 2, 2)), rects)


def test_the_guideline_grows_with_n_and_epsilon() -> None:
    """(H1), (H2): g₁ ∝ n^(1/3), g₂ ∝ n^(1/4); g₁ a multiple of g₂, both within the fine domain."""
    small, large = hdg_granularities(10_000, 1.0, 256, 256), hdg_granularities(10_000_000, 1.0, 256, 256)
    assert small[0] < large[0] and small[1] <= large[1]
    for g1, g2 in (small, large, hdg_granularities(10**9, 5.0, 16, 20)):
        assert g1 % g2 == 0 and 2 <= g2 <= g1
    assert hdg_granularities(10**9, 5.0, 16, 20)[0] <= 16


def test_hdg_beats_the_one_dimensional_answer_on_a_correlated_pair() -> None:
    pop = joint_synthetic("correlated:d1=64,d2=64,rho=0.8,s=0.5", 200_000, rng_for(0, "test", "population"))[0]
    rng = rng_for(0, "test", "queries")
    hdg = with_range_mse(estimate_joint(pop, 2.0, "hdg", seed=1), 300, rng)
    rng = rng_for(0, "test", "queries")  # the same queries for both
    split = with_range_mse(estimate_joint(pop, 2.0, "split", seed=1), 300, rng)
    # split's answers converge to the independent table's, whose range error here is ~2.5e-3 whatever n; HDG's
    # 2-D grid carries the correlation
    assert hdg.metrics["range_mse"] < 0.5 * split.metrics["range_mse"]
    d = hdg.diagnostics
    assert sum(d["users_per_group"].values()) == pop.n and len(d["users_per_group"]) == 3
    assert hdg.estimate.sum() == pytest.approx(1.0) and hdg.estimate.min() >= 0
    assert hdg.settings["g1"] % hdg.settings["g2"] == 0


def test_hdg_granularities_can_be_fixed_and_are_checked() -> None:
    pop = joint_synthetic("correlated:d1=16,d2=16", 20_000, rng_for(0, "test", "population"))[0]
    res = estimate_joint(pop, 1.0, "hdg", g1=8, g2=4)
    assert (res.settings["g1"], res.settings["g2"]) == (8, 4)
    with pytest.raises(InvalidInput, match="multiple"):
        estimate_joint(pop, 1.0, "hdg", g1=6, g2=4)
    with pytest.raises(InvalidInput, match="true distribution"):
        with_range_mse(res.__class__(res.method, res.columns, res.labels, res.estimate, {}, {}), 5, rng_for(0, "q"))
