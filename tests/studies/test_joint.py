"""Joint distributions: the product oracle is unbiased, split is biased exactly by the columns' dependence,
CALM's consistency step makes shared marginals agree, and the advisor follows the closed-form variances."""

from __future__ import annotations

import itertools
import pickle

import numpy as np
import pytest

from ldp.core.errors import InvalidInput
from ldp.core.streams import rng_for
from ldp.data.joint import JointPopulation, joint_synthetic
from ldp.mechanisms import get_mechanism
from ldp.studies.joint import (
    JOINT_METHODS,
    advise_joint,
    dependence,
    estimate_joint,
    make_consistent,
    predicted_errors,
)

CORRELATED = "correlated:d1=4,d2=4,rho=0.8"


@pytest.fixture(scope="module")
def correlated() -> JointPopulation:
    return joint_synthetic(CORRELATED, 200_000, rng_for(0, "test", "population"))[0]


@pytest.mark.parametrize("oracle", ["grr", "olh"])
def test_the_product_method_is_unbiased(oracle: str) -> None:
    pop = joint_synthetic("correlated:d1=3,d2=3,rho=0.6", 100_000, rng_for(1, "test", "population"))[0]
    trials = 20
    runs = np.stack([estimate_joint(pop, 2.0, "product", seed=s, oracle=oracle, postprocess="mi").estimate
                     for s in range(trials)])
    f = pop.frequencies()
    # the mean of T independent matrix-inversion estimates has standard deviation sqrt(Var[f̂]/T), Var[f̂] the
    # oracle's closed form [f p*(1 − p*) + (1 − f) q*(1 − q*)] / (n (p* − q*)²); 9 cells each within 4.5 sd fail
    # together with probability < 9 · 7e-6
    sd = np.sqrt(get_mechanism(oracle, 2.0, 9).variance(f.ravel(), pop.n) / trials).reshape(f.shape)
    assert np.all(np.abs(runs.mean(axis=0) - f) <= 4.5 * sd)


def test_split_is_biased_by_the_dependence_while_product_and_calm_are_not(correlated: JointPopulation) -> None:
    f = correlated.frequencies()
    independent = np.outer(f.sum(axis=1), f.sum(axis=0))
    bias_tvd = 0.5 * np.abs(f - independent).sum()  # split's limit: the product of the true marginals
    assert bias_tvd > 0.3
    split = estimate_joint(correlated, 2.0, "split")
    assert split.diagnostics["assumes"].startswith("independence")
    product = estimate_joint(correlated, 2.0, "product")
    calm = estimate_joint(correlated, 2.0, "calm")
    # E tvd ≤ ½ Σ_cells sd ≤ ½ sqrt(D · Σ Var) (Cauchy–Schwarz), Σ Var the product oracle's closed form; Norm-Sub is
    # the projection onto the simplex, which holds the truth, so it only shrinks the L2 error
    bound = 0.5 * np.sqrt(f.size * product.diagnostics["expected_sq_error"])
    assert product.metrics["tvd"] < 3 * bound < 0.1
    np.testing.assert_array_equal(calm.estimate, product.estimate)  # 2 columns: CALM is the product method
    assert "product method" in calm.diagnostics["note"]
    assert split.metrics["tvd"] == pytest.approx(bias_tvd, abs=0.05)  # the marginals are accurate, the joint is not
    # on independent columns the same split is right: the error is the assumption's, not the oracle's
    indep = joint_synthetic("independent:d1=4,d2=4", 200_000, rng_for(0, "test", "population"))[0]
    assert estimate_joint(indep, 2.0, "split").metrics["tvd"] < 0.05


def test_split_budget_option_divides_epsilon(correlated: JointPopulation) -> None:
    res = estimate_joint(correlated, 2.0, "split", budget="epsilon")
    assert res.settings["epsilon_per_report"] == 1.0
    assert res.diagnostics["users_per_group"] == {"x1": correlated.n, "x2": correlated.n}
    with pytest.raises(InvalidInput, match="budget"):
        estimate_joint(correlated, 2.0, "split", budget="half")


def test_calm_on_three_columns_is_consistent_and_beats_split() -> None:
    pop = joint_synthetic("correlated:d1=5,d2=4,d3=3,rho=0.7", 300_000, rng_for(2, "test", "population"))[0]
    calm = estimate_joint(pop, 2.0, "calm", seed=3)
    d = calm.diagnostics
    assert d["disagreement_before_consistency"] > 1e-4 and d["disagreement_after_consistency"] < 1e-12
    assert calm.estimate.sum() == pytest.approx(1.0) and calm.estimate.min() >= 0
    assert sum(d["users_per_group"].values()) == pop.n and len(d["users_per_group"]) == 3
    assert d["ipf_residual"] < 1e-6
    split = estimate_joint(pop, 2.0, "split", seed=3)
    # the chain x1 → x2 → x3 has no three-way interaction: CALM's maximum-entropy joint is unbiased in the limit;
    # split's limit is 0.5·|f − f1 f2 f3|₁ away
    assert calm.metrics["tvd"] < 0.1 < split.metrics["tvd"]


def test_the_consistency_step_makes_shared_marginals_agree() -> None:
    rng = np.random.default_rng(5)
    sizes = (3, 4, 5)
    pairs = list(itertools.combinations(range(3), 2))
    marginals = {p: rng.dirichlet(np.ones(sizes[p[0]] * sizes[p[1]])).reshape(sizes[p[0]], sizes[p[1]])
                 for p in pairs}
    variances = {p: v for p, v in zip(pairs, (1e-4, 2e-4, 5e-5), strict=True)}
    out = make_consistent(marginals, variances)
    for a, b in itertools.combinations(pairs, 2):
        (attr,) = set(a) & set(b)
        pa = out[a].sum(axis=1 - a.index(attr))
        pb = out[b].sum(axis=1 - b.index(attr))
        np.testing.assert_allclose(pa, pb, atol=1e-14)
    for p in pairs:
        assert out[p].sum() == pytest.approx(1.0)
    # with equal cell counts and variances the shared projection is the plain average
    two = {(0, 1): np.array([[0.5, 0.0], [0.0, 0.5]]), (0, 2): np.array([[0.1, 0.1], [0.4, 0.4]])}
    fixed = make_consistent(two, {(0, 1): 1.0, (0, 2): 1.0})
    np.testing.assert_allclose(fixed[(0, 1)].sum(axis=1), [0.35, 0.65])
    np.testing.assert_allclose(fixed[(0, 2)], [[0.175, 0.175], [0.325, 0.325]])


def test_the_exact_engine_runs_every_method_too() -> None:
    pop = joint_synthetic("correlated:d1=3,d2=3,d3=2", 3_000, rng_for(0, "test", "population"))[0]
    for name in ("product", "split", "calm"):
        res = estimate_joint(pop, 1.0, name, engine="exact")
        assert res.settings["engine"] == "exact" and res.estimate.shape == (3, 3, 2)
        assert set(res.metrics) == {"tvd", "mse"}


def test_results_are_frozen_and_list_every_cell(correlated: JointPopulation) -> None:
    res = estimate_joint(correlated, 1.0, "product")
    with pytest.raises(ValueError):
        res.estimate[0, 0] = 1.0
    with pytest.raises(TypeError):
        res.settings["epsilon"] = 3  # type: ignore[index]
    again = pickle.loads(pickle.dumps(res))  # st.cache_data pickles results
    assert again.metrics == res.metrics and np.array_equal(again.estimate, res.estimate)
    advice = advise_joint((3, 3), 100, 1.0)
    assert pickle.loads(pickle.dumps(advice)) == advice
    rows = res.rows()
    assert len(rows) == 16 and rows[5] == {"x1": "1", "x2": "1", "frequency": pytest.approx(res.estimate[1, 1])}


def test_the_advisor_follows_the_closed_form_variances() -> None:
    two = advise_joint((10, 10), 100_000, 1.0)
    assert two.method == "product" and "assumes independence" in two.reasoning and two.split_wins_below > 0
    # knowing the columns are nearly independent, split wins (its noise is far smaller); correlated, it loses
    assert advise_joint((10, 10), 100_000, 1.0, dependence_sq=0.0).method == "split"
    assert advise_joint((10, 10), 100_000, 1.0, dependence_sq=1.0).method == "product"
    three = advise_joint((20, 20, 20), 100_000, 1.0)
    assert three.method == "calm" and "three-way" in three.reasoning
    predicted = predicted_errors((10, 10), 100_000, 1.0)
    assert predicted["calm"] == predicted["product"]
    assert dependence(np.outer([0.5, 0.5], [0.2, 0.8])) == pytest.approx(0.0)
    assert dependence(np.array([[0.5, 0.0], [0.0, 0.5]])) == pytest.approx(4 * 0.25 ** 2)


def test_bad_requests_are_refused(correlated: JointPopulation) -> None:
    with pytest.raises(InvalidInput, match="unknown joint method"):
        estimate_joint(correlated, 1.0, "nope")
    with pytest.raises(InvalidInput, match="frequency oracle"):
        estimate_joint(correlated, 1.0, "product", oracle="sw")
    with pytest.raises(InvalidInput, match="engine"):
        estimate_joint(correlated, 1.0, "product", engine="warp")
    pop3 = joint_synthetic("correlated:d1=2,d2=2,d3=2", 100, rng_for(0, "t"))[0]
    with pytest.raises(InvalidInput, match="hdg takes 2"):
        estimate_joint(pop3, 1.0, "hdg")
    tiny = JointPopulation(("a", "b"), (("0", "1"), ("0", "1")), np.array([[1, 0], [0, 0]]))
    with pytest.raises(InvalidInput, match="no user fell"):
        estimate_joint(tiny, 1.0, "split", seed=0)
    assert {"product", "split", "calm", "hdg"} <= set(JOINT_METHODS.names())
