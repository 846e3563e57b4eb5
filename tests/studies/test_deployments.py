"""The deployed mechanisms beside the textbook ones (ldp.studies.deployments)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ldp.core.errors import InvalidInput
from ldp.core.registry import MECHANISMS
from ldp.mechanisms import get_mechanism
from ldp.studies.deployments import DEPLOYMENTS, deployed_vs_textbook, memoization_rows, rappor_chrome_epsilons


def test_rappor_chrome_budgets_match_the_paper():
    eps_1, eps_inf = rappor_chrome_epsilons()
    assert eps_inf == pytest.approx(4 * math.log(3))  # 4.39, RAPPOR §5 (h = 2, f = ½)
    # q* = 0.6875, p* = 0.5625: ε₁ = 2 ln(0.6875·0.4375 / (0.5625·0.3125)) ≈ 1.0743
    assert eps_1 == pytest.approx(2 * math.log(0.6875 * 0.4375 / (0.5625 * 0.3125)))
    assert round(eps_1, 2) == 1.07


def test_every_deployment_names_a_registered_mechanism_or_says_why_not():
    for dep in DEPLOYMENTS:
        assert dep.source and dep.epsilon_report > 0
        assert dep.mechanism in MECHANISMS or dep.mechanism == "rappor", dep


def test_deployed_vs_textbook_is_the_closed_form_and_ranks_against_the_best():
    freqs = np.random.default_rng(0).dirichlet(np.ones(40))
    table = deployed_vs_textbook(freqs, 50_000, 1.0)
    grr = table.set_index("name").loc["grr", "MSE"]
    assert grr == pytest.approx(float(np.mean(get_mechanism("grr", 1.0, 40).variance(freqs, 50_000))))
    books = table[table["deployed by"] == ""]
    assert books["× best textbook"].min() == pytest.approx(1.0)
    assert set(table.loc[table["deployed by"] != "", "name"]) >= {"cms", "hcms", "dbitflip"}
    assert table["MSE"].is_monotonic_increasing
    # at d = 40, ε = 1 the textbook winner is an OLH/SS-class oracle and GRR the worst textbook one (d > 3e^ε + 2);
    # RAPPOR's ε is ε∞ (all its reports of a value together), so at ε∞ = 1 it is far noisier still
    assert books.iloc[-1]["name"] == "grr" and books.iloc[-1]["× best textbook"] > 3
    rappor = table.set_index("name").loc["rappor"]
    assert rappor["deployed by"] == "Google" and rappor["× best textbook"] > books.iloc[-1]["× best textbook"]


def test_deployed_vs_textbook_refuses_bad_frequencies():
    with pytest.raises(InvalidInput):
        deployed_vs_textbook([0.5, 0.6], 100, 1.0)


def test_memoization_rows_say_what_it_protects_and_what_not():
    rows = memoization_rows(rounds=20, users=4000).set_index("claim")
    steady = rows.loc["protects: a steady counter reported every round", "number"]
    moving = rows.loc["does not protect: a value that keeps changing", "number"]
    assert 1.0 <= steady < 20 / 5 < moving <= 20  # ε = 1: fresh reports would cost 20
    assert rows["protected"].any() and not rows["protected"].all()


def test_sizes_are_refused_before_the_work():
    with pytest.raises(InvalidInput, match="at most 512 values"):
        deployed_vs_textbook(np.full(1000, 1e-3), 100, 1.0)
    with pytest.raises(InvalidInput, match="reports a repeated collection simulates"):
        memoization_rows(rounds=10_000, users=10_000)


def test_the_sketches_tell_a_few_hundred_values_apart():
    # CMS/HCMS at their default m = 64 cannot separate 512 values (singular collision matrix); the comparison's
    # m = 1,024 can
    table = deployed_vs_textbook(np.full(512, 1 / 512), 100_000, 1.0)
    assert {"cms", "hcms"} <= set(table["name"])
