"""What a page offers (ldp.studies.choices): registry-driven options that always run."""

from __future__ import annotations

import pytest

import ldp
from ldp.studies import choices


def test_frequency_oracles_are_grouped_by_collection():
    names = choices.frequency_oracles()
    one_time = choices.frequency_oracles(("one-time",))
    assert names[: len(one_time)] == one_time and "l-grr" in names and "l-grr" not in one_time
    assert "she" in one_time and "she" not in choices.frequency_oracles(("one-time",), pure_only=True)
    assert "sw" not in names  # numerical mechanisms are not frequency oracles


def test_estimators_that_apply_to_a_mechanism():
    every = choices.estimators_for()
    assert every[0] == "mi" and "ibu" in every and "ems" not in every
    assert choices.estimators_for("oue") == every  # a pure oracle takes every frequency estimator
    she = choices.estimators_for("she")
    assert "mi" in she and set(she) < set(every)
    assert all(not ldp.ESTIMATORS.get(e).requires_pure for e in she)


def test_reachable_epsilon_1_lie_below_epsilon_and_build():
    grid = [0.05, 0.1, 0.5, 1.0, 2.0, 4.0]
    reach = choices.reachable_epsilon_1("l-oue", 2.0, grid)
    assert reach and all(e < 2.0 for e in reach)
    for e1 in reach:
        ldp.get_mechanism("l-oue", 2.0, 8, epsilon_1=e1)
    assert choices.reachable_epsilon_1("oue", 2.0, grid) == []  # one-time: no ε1
    assert choices.reachable_epsilon_1("l-oue", 0.06, grid) in ([], [0.03])  # ε∞/2 is tried below the grid
    assert choices.closest(reach, 1.0) == min(reach, key=lambda e: abs(e - 1.0))
    with pytest.raises(ldp.LDPError):
        choices.closest([], 1.0)


def test_mechanism_parameters_and_numerical_methods():
    assert choices.mechanism_parameters("oue", 1.0, 0.3) == {}
    assert choices.mechanism_parameters("l-oue", 1.0, None) == {"epsilon_1": 0.5}
    assert choices.mechanism_parameters("l-oue", 1.0, 0.3) == {"epsilon_1": 0.3}
    no_choice = [c.name for c in ldp.mechanisms_of("numerical") if not c.reconstructions]
    chosen = ["sw", *no_choice[:1]]
    methods = choices.numerical_methods(chosen, {"sw": ["ems", "em"]})
    assert methods[:2] == [("sw", "ems"), ("sw", "em")]
    assert methods[2:] == [(name, None) for name in no_choice[:1]]
    assert choices.numerical_methods(["sw"], {}) == []  # no reconstruction chosen: nothing to run
