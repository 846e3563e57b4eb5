"""Query tasks and measures (ldp.evaluation.tasks) against hand-computed values."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import ldp
from ldp.data.synthetic import true_distribution
from ldp.estimators import ESTIMATORS
from ldp.evaluation import tasks
from ldp.evaluation.metrics import top_k_indices, top_k_mse

TRUE = np.array([0.5, 0.3, 0.2])


# ------------------------------------------------------------------------------------------ full domain
def test_full_domain_error_by_hand():
    assert tasks.full_domain_error(TRUE, [0.4, 0.4, 0.2]) == pytest.approx(0.02 / 3)
    est = np.array([0.6, 0.5, -0.1])
    assert tasks.full_domain_error(TRUE, est) == pytest.approx((0.01 + 0.04 + 0.09) / 3)
    # Post-Pos answers each single value clipped at 0 (= Base-Pos, §IV-A)
    assert tasks.full_domain_error(TRUE, est, clip=True) == pytest.approx((0.01 + 0.04 + 0.04) / 3)


def test_stacked_estimates_give_one_error_per_trial():
    stack = np.array([[0.4, 0.4, 0.2], [0.5, 0.3, 0.2]])
    out = tasks.full_domain_error(TRUE, stack)
    assert isinstance(out, np.ndarray) and out.shape == (2,)
    np.testing.assert_allclose(out, [0.02 / 3, 0.0], atol=1e-18)
    assert isinstance(tasks.full_domain_error(TRUE, stack[0]), float)
    with pytest.raises(ldp.LDPError, match="shape"):
        tasks.full_domain_error(TRUE, [0.5, 0.5])


# ------------------------------------------------------------------------------------------ top-k
def test_top_k_error_and_precision_by_hand():
    true = np.array([0.1, 0.5, 0.3, 0.1])
    est = np.array([0.2, 0.4, 0.35, 0.05])
    assert top_k_mse(true, est, k=2) == pytest.approx((0.1**2 + 0.05**2) / 2)
    assert top_k_mse(true, est, k=1) == pytest.approx(0.01)
    assert tasks.top_k_precision(true, est, k=2) == 1.0
    assert tasks.top_k_precision(true, [0.5, 0.4, 0.1, 0.0], k=2) == 0.5
    np.testing.assert_allclose(tasks.top_k_precision(true, np.array([est, [0.5, 0.4, 0.1, 0.0]]), k=2), [1.0, 0.5])
    # clipping only touches negative answers among the top k
    assert top_k_mse(true, [0.0, -0.1, 0.3, 0.1], k=2, clip=True) == pytest.approx(0.5**2 / 2)


@pytest.mark.parametrize("fn", [top_k_mse, tasks.top_k_precision])
def test_k_larger_than_the_domain_names_the_domain_size(fn):
    with pytest.raises(ldp.LDPError, match="domain size 3"):
        fn(TRUE, TRUE, k=4)
    with pytest.raises(ldp.LDPError, match="domain size 3"):
        fn(TRUE, TRUE, k=0)


def test_top_k_curve_is_the_top_k_error_for_every_k():
    rng = np.random.default_rng(6)
    truth = rng.dirichlet(np.ones(12))
    est = truth + rng.normal(0, 0.05, (5, 12))
    ks = [1, 4, 12]
    curve = tasks.top_k_curve(est, truth, ks)
    assert curve.shape == (3, 5)
    for row, k in zip(curve, ks, strict=True):
        np.testing.assert_allclose(row, top_k_mse(truth, est, k))
    np.testing.assert_allclose(curve[-1], tasks.full_domain_error(truth, est))  # k = d: the full domain
    np.testing.assert_allclose(tasks.top_k_curve(est, truth, ks, clip=True)[1], top_k_mse(truth, est, 4,
                                                                                                 clip=True))
    with pytest.raises(ldp.LDPError, match="domain size 12"):
        tasks.top_k_curve(est, truth, [13])


# ------------------------------------------------------------------------------------------ set-value queries
def test_random_subsets_have_rho_d_values():
    masks = tasks.random_subsets(200, 0.1, 30, np.random.default_rng(1))
    assert masks.shape == (30, 200) and masks.dtype == bool
    assert np.all(masks.sum(axis=1) == 20)
    np.testing.assert_array_equal(masks, tasks.random_subsets(200, 0.1, 30, np.random.default_rng(1)))
    assert tasks.subset_size(1000, 0.1) == 100 and tasks.subset_size(5, 0.01) == 1
    with pytest.raises(ldp.LDPError, match="ρ"):
        tasks.subset_size(10, 0.0)
    with pytest.raises(ldp.LDPError, match="queries"):
        tasks.random_subsets(10, 0.1, 0, np.random.default_rng(0))


def test_random_subsets_and_set_value_answers_are_sums():
    rng = np.random.default_rng(0)
    masks = tasks.random_subsets(50, 0.1, 30, rng)
    assert masks.shape == (30, 50) and np.all(masks.sum(axis=1) == 5)
    est = rng.normal(size=(4, 50))
    answers = tasks.answer_queries(est, masks)
    for t in range(4):
        for q in range(30):
            assert answers[t, q] == pytest.approx(sum(est[t, v] for v in range(50) if masks[q, v]))


def test_set_value_mse_expected_is_the_average_over_all_subsets():
    rng = np.random.default_rng(4)
    truth = rng.dirichlet(np.ones(6))
    est = truth + rng.normal(0, 0.05, (3, 6))
    for m in (1, 2, 3, 6):
        subsets = list(itertools.combinations(range(6), m))
        masks = np.zeros((len(subsets), 6), dtype=bool)
        for i, s in enumerate(subsets):
            masks[i, list(s)] = True
        np.testing.assert_allclose(tasks.set_query_error(truth, est, masks),
                                   tasks.set_value_mse_expected(est, truth, m))
    with pytest.raises(ldp.LDPError, match="subset size"):
        tasks.set_value_mse_expected(est, truth, 7)
    # every size at once: the same floats as one call per size
    curve = tasks.set_value_mse_curve(est, truth, [1, 2, 3, 6])
    assert curve.shape == (4, 3)
    for row, m in zip(curve, (1, 2, 3, 6), strict=True):
        np.testing.assert_array_equal(row, tasks.set_value_mse_expected(est, truth, m))
    with pytest.raises(ldp.LDPError, match="subset size"):
        tasks.set_value_mse_curve(est, truth, [2, 0])


def test_the_set_value_task_scores_as_set_query_error_does():
    """The bound set-value task keeps its random sets as a 0/1 matrix made once (not again per estimator): its
    scores are set_query_error's on the same sets, clipped or not, and a domain of another size is refused."""
    rng = np.random.default_rng(5)
    truth = rng.dirichlet(np.ones(20))
    est = truth + rng.normal(0, 0.05, (4, 20))
    bound = tasks.get_task("set").bind(20, rng=np.random.default_rng(9), rho=0.25, queries=40)
    masks = tasks.random_subsets(20, 0.25, 40, np.random.default_rng(9))
    for clip in (False, True):
        np.testing.assert_array_equal(bound.score(truth, est, clip), tasks.set_query_error(truth, est, masks,
                                                                                           clip=clip))
    with pytest.raises(ldp.LDPError, match="subset mask"):
        bound.score(truth[:10] / truth[:10].sum(), est[:, :10], False)


def test_answers_and_set_query_error_by_hand():
    est = np.array([0.1, -0.3, 0.2, 0.4])
    subsets = [[0, 1], [2, 3]]
    np.testing.assert_allclose(tasks.answer_queries(est, subsets), [-0.2, 0.6])
    np.testing.assert_allclose(tasks.answer_queries(est, subsets, clip=True), [0.0, 0.6])
    assert not hasattr(tasks, "set_query_answers")  # the alias is gone: answer_queries
    true = np.full(4, 0.25)
    assert tasks.set_query_error(true, est, subsets) == pytest.approx((0.7**2 + 0.1**2) / 2)
    assert tasks.set_query_error(true, est, subsets, clip=True) == pytest.approx((0.5**2 + 0.1**2) / 2)
    mask = np.array([[True, True, False, False], [False, False, True, True]])
    assert tasks.set_query_error(true, est, mask) == pytest.approx((0.7**2 + 0.1**2) / 2)
    # a stack of estimates against the same queries
    out = tasks.set_query_error(true, np.array([est, true]), subsets)
    np.testing.assert_allclose(out, [0.25, 0.0], atol=1e-18)


def test_clipped_answers_by_hand():
    truth = np.array([0.5, 0.1, 0.4])
    est = np.array([[0.5, -0.1, 0.6]])
    np.testing.assert_allclose(tasks.full_domain_error(truth, est), [(0 + 0.04 + 0.04) / 3])
    np.testing.assert_allclose(tasks.full_domain_error(truth, est, clip=True), [(0 + 0.01 + 0.04) / 3])
    np.testing.assert_allclose(top_k_mse(truth, est, 3, clip=True), [(0.01 + 0.04) / 3])
    np.testing.assert_allclose(tasks.top_k_curve(est, truth, [1, 2, 3], clip=True)[:, 0],
                               [0.0, 0.04 / 2, 0.05 / 3])  # ranking by truth: values 0, 2, 1
    masks = np.array([[False, True, False], [True, True, False]])
    np.testing.assert_allclose(tasks.answer_queries(est, masks), [[-0.1, 0.4]])
    np.testing.assert_allclose(tasks.answer_queries(est, masks, clip=True), [[0.0, 0.4]])
    # true sums 0.1 and 0.6: clipped errors 0.1 and 0.2
    np.testing.assert_allclose(tasks.set_query_error(truth, est, masks, clip=True), [(0.01 + 0.04) / 2])


def test_post_pos_clips_answers_like_answer_query():
    est = np.array([0.1, -0.3, 0.2, 0.4])
    assert tasks.clip_for("post-pos") and not tasks.clip_for("mi") and not tasks.clip_for(ESTIMATORS.get("norm-sub"))
    assert tasks.clip_for(ldp.get_estimator("post-pos")) and not tasks.clip_for(ldp.get_estimator("ibu"))
    # an unknown name is a user error (one registry), not silently "does not clip"
    with pytest.raises(ldp.LDPError, match="unknown estimator"):
        tasks.clip_for("not-registered")
    for subset in ([0, 1], [2, 3]):
        assert tasks.answer_queries(est, [subset], clip=True)[0] == pytest.approx(
            ldp.estimators.answer_query("post-pos", est, subset))


def test_fixed_subsets_by_label_index_and_mask():
    labels = ["apple", "pear", "kale", "leek"]
    true = np.array([0.4, 0.1, 0.3, 0.2])
    est = np.array([0.3, 0.1, 0.4, 0.2])
    groups = {"fruit": ["apple", "pear"], "veg": [2, 3]}
    names, mask = tasks.subset_masks(groups, 4, labels)
    assert names == ["fruit", "veg"]
    np.testing.assert_array_equal(mask, [[1, 1, 0, 0], [0, 0, 1, 1]])
    assert tasks.fixed_subset_error(true, est, groups, labels=labels) == pytest.approx((0.1**2 + 0.1**2) / 2)
    as_mask = {"fruit": np.array([True, True, False, False]), "veg": np.array([False, False, True, True])}
    assert tasks.fixed_subset_error(true, est, as_mask) == pytest.approx(0.01)


def test_empty_or_bad_subsets_are_errors():
    with pytest.raises(ldp.LDPError, match="subset 'x' is empty"):
        tasks.fixed_subset_error(TRUE, TRUE, {"a": [0], "x": []})
    with pytest.raises(ldp.LDPError, match="subset 'x' is empty"):
        tasks.subset_masks({"x": np.zeros(3, dtype=bool)}, 3)
    with pytest.raises(ldp.LDPError, match=r"\[0, 3\)"):
        tasks.subset_masks({"a": [5]}, 3)
    with pytest.raises(ldp.LDPError, match="unknown value"):
        tasks.subset_masks({"a": ["plum"]}, 3, ["x", "y", "z"])


# ------------------------------------------------------------------------------------------ threshold
def test_threshold_positives_by_hand():
    true = np.array([0.3, 0.2, 0.05, 0.0])
    est = np.array([0.25, 0.1, 0.15, 0.01])
    tp, fp = tasks.threshold_positives(true, est, 0.12)
    assert (tp, fp) == (1, 1)  # value 0 found; value 2 false alarm; value 1 missed
    assert tasks.threshold_errors(true, est, 0.12) == 2.0
    assert tasks.threshold_errors(true, true, 0.12) == 0.0
    np.testing.assert_array_equal(tasks.threshold_errors(true, np.array([est, true]), 0.12), [2.0, 0.0])


# ------------------------------------------------------------------------------------------ utility gain
def test_utility_gain_formula_and_clipping():
    assert tasks.utility_gain(10.0, 7.0) == pytest.approx(30.0)
    assert tasks.utility_gain(4.0, 1.0) == pytest.approx(75.0)
    assert tasks.utility_gain(10.0, 12.0) == 0.0  # worse than the baseline: clipped to "no gain"
    assert tasks.utility_gain(0.0, 0.0) == 0.0
    np.testing.assert_allclose(tasks.utility_gain(np.array([10.0, 10.0]), np.array([5.0, 20.0])), [50.0, 0.0])
    with pytest.raises(ldp.LDPError):
        tasks.utility_gain(-1.0, 1.0)


# ------------------------------------------------------------------------------------------ equivalent users
def test_closed_form_mi_mse_is_the_papers_expression():
    mech = ldp.get_mechanism("olh", 1.0, 1024)
    p, q, n, d = mech.p_star, mech.q_star, 100_000, 1024
    paper = q * (1 - q) / (n * (p - q) ** 2) + (1 - p - q) / (d * n * (p - q))  # §V.C, Eq. (3)
    assert tasks.closed_form_mi_mse(mech, n) == pytest.approx(paper, rel=1e-12)
    zipf = true_distribution("zipf:s=1.5,d=1024")
    assert tasks.closed_form_mi_mse(mech, n, zipf) == pytest.approx(paper, rel=1e-12)  # independent of f


def test_equivalent_users_formula():
    assert tasks.equivalent_users(1000, 0.5, 1.0) == pytest.approx(2000.0)
    np.testing.assert_allclose(tasks.equivalent_users(1000, np.array([1.0, 2.0]), 1.0), [1000.0, 500.0])
    mech = ldp.get_mechanism("grr", 1.0, 16)
    mse = tasks.closed_form_mi_mse(mech, 500)
    assert tasks.equivalent_users(500, mse, mechanism=mech) == pytest.approx(500.0)
    with pytest.raises(ldp.LDPError, match="mechanism"):
        tasks.equivalent_users(500, mse)
    with pytest.raises(ldp.LDPError):
        tasks.equivalent_users(500, 0.0, 1.0)


def test_equivalent_users_mi_is_n_and_norm_sub_saves_users_on_zipf():
    """Consistency paper Fig. 5: Base is the line n′ = n; Norm-Sub lies far above it on Zipf data,
    where most of the 1024 values have tiny frequencies."""
    d, n, trials = 1024, 100_000, 20
    mech = ldp.get_mechanism("olh", 1.0, d)
    truth = true_distribution(f"zipf:s=1.5,d={d}")
    population = np.round(truth * n).astype(np.int64)
    n = int(population.sum())
    truth = population / n
    result = ldp.simulate(mech, population, estimators=["mi", "norm-sub"], trials=trials, seed=3)
    mse_mi = tasks.full_domain_error(truth, result.estimates["mi"])
    mse_ns = tasks.full_domain_error(truth, result.estimates["norm-sub"])
    # MI against its own trials: exactly n
    assert tasks.equivalent_users(n, mse_mi.mean(), mse_mi.mean()) == pytest.approx(n)
    # MI against the closed form: n within the trials' sampling error (4 standard errors)
    n_mi = tasks.equivalent_users(n, mse_mi.mean(), mechanism=mech, true=truth)
    rel_se = mse_mi.std(ddof=1) / np.sqrt(trials) / mse_mi.mean()
    assert abs(n_mi / n - 1) < 4 * rel_se
    n_ns = tasks.equivalent_users(n, mse_ns.mean(), mechanism=mech)
    assert n_ns > 5 * n  # the paper reports ≈ 10× (Norm-Sub reduces MSE by about a factor of 10)


# ------------------------------------------------------------------------------------------ bias / variance
def test_bias_variance_by_hand():
    est = np.array([[0.6, 0.4], [0.4, 0.6], [0.5, 0.5]])
    bv = tasks.bias_variance(est, np.array([0.4, 0.6]))
    assert isinstance(bv, tasks.BiasVariance)
    np.testing.assert_allclose(bv.bias, [0.1, -0.1])
    np.testing.assert_allclose(bv.variance, [0.01, 0.01])
    bv = tasks.bias_variance(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([1.0, 1.0]))
    np.testing.assert_allclose(bv.mean, [2, 3])
    np.testing.assert_allclose(bv.bias, [1, 2])
    np.testing.assert_allclose(bv.variance, [2, 2])  # ddof = 1
    np.testing.assert_allclose(bv.bias_se, [1, 1])  # √(2 / 2)
    np.testing.assert_array_equal(tasks.bias_variance(np.zeros((3, 3)), np.array([0.2, 0.5, 0.3])).order, [1, 2, 0])
    with pytest.raises(ldp.LDPError, match="at least 2 trials"):
        tasks.bias_variance(np.zeros((1, 2)), np.zeros(2))
    with pytest.raises(ldp.LDPError, match="shape"):
        tasks.bias_variance(np.zeros((3, 2)), np.zeros(3))


# ------------------------------------------------------------------------------------------ registry
def test_tasks_registry_lists_callable_tasks():
    assert {"mse", "topk", "topk-precision", "set", "subsets", "threshold"} <= set(tasks.TASKS.names())
    assert tasks.TASKS is ldp.core.registry.TASKS and list(tasks.QUERY_TASKS) == tasks.TASKS.names()
    for name, task in tasks.TASKS.items():
        assert task.name == name and task.display_name and task.description and callable(task.function)
        assert task.better in ("lower", "higher")
    assert tasks.get_task("full") is tasks.TASKS["mse"]
    assert tasks.get_task(" TopK ") is tasks.TASKS["topk"]
    with pytest.raises(ldp.LDPError, match="choose one of: mse"):
        tasks.get_task("nope")
    for name, (display, description, fn) in tasks.MEASURES.items():
        assert name and display and description and callable(fn)


def test_bind_checks_parameters_once():
    with pytest.raises(ldp.LDPError, match="domain size 8"):
        tasks.TASKS["topk"].bind(8, k=9)
    with pytest.raises(ldp.LDPError, match="unknown parameter"):
        tasks.TASKS["mse"].bind(8, k=3)
    with pytest.raises(ldp.LDPError, match="needs groups"):
        tasks.TASKS["subsets"].bind(8)
    with pytest.raises(ldp.LDPError, match="subset 'b' is empty"):
        tasks.TASKS["subsets"].bind(8, groups={"a": [1], "b": []})
    with pytest.raises(ldp.LDPError, match="ρ"):
        tasks.TASKS["set"].bind(8, rho=1.5)
    bound = tasks.TASKS["set"].bind(8, rng=np.random.default_rng(0), rho=0.25, queries=5)
    truth = np.full(8, 1 / 8)
    assert bound.score(truth, np.array([truth, truth]), False).tolist() == [0.0, 0.0]
    assert "k=3" in tasks.TASKS["topk"].bind(8, k=3).label


def test_tasks_are_registered_components_with_their_own_bind_hook():
    """Issue "one protocol" item 7: one registry of tasks (ldp.core.registry.TASKS), one set of names (aliases such
    as ``full`` resolve to them, never listed), and each family checks its parameters in its own ``prepare``."""
    from ldp.core.registry import TASKS, Registry

    assert "full" in TASKS and TASKS.get("full").name == "mse" and "full" not in TASKS.names()
    assert TASKS.get("set-value") is TASKS.get("set") and TASKS["groups"] is TASKS.get("subsets")
    families = {name: type(task).prepare for name, task in TASKS.items()}
    assert families["topk"] is families["topk-precision"] is tasks.TopKTask.prepare
    assert families["mse"] is tasks.Task.prepare
    assert len({families[n] for n in ("mse", "topk", "set", "subsets", "threshold")}) == 5

    class Double(tasks.Task):
        def prepare(self, d, params, *, rng, labels):
            return lambda t, e, c: 2 * np.atleast_1d(tasks.full_domain_error(t, e, clip=c))

    mine = Registry("task")
    mine.register(Double("double", "Twice the MSE", "a task from outside", tasks.full_domain_error, aliases=("x2",)))
    truth = np.full(4, 0.25)
    assert mine.get("X2").bind(4).score(truth, np.array([truth + 0.1]), False).tolist() == pytest.approx([0.02])
    with pytest.raises(RuntimeError, match="twice"):
        mine.register(Double("other", "", "", tasks.full_domain_error, aliases=("double",)))


def test_one_top_k_mse_gives_the_numbers_of_both_former_implementations():
    """Issue "one protocol" item 7, step 3: the metric topk_mse and the task topk were two implementations; the one
    left (ldp.evaluation.metrics.top_k_mse) gives exactly the numbers each gave (their code, inlined here)."""
    rng = np.random.default_rng(3)
    truth = rng.dirichlet(np.full(40, 0.3))
    stack = truth + rng.normal(0, 0.02, (7, 40))

    def former_metric(true, estimate, k):  # ldp.evaluation.metrics.top_k_mse before
        idx = top_k_indices(true, k)
        return float(np.mean((true[idx] - estimate[idx]) ** 2))

    def former_task(true, estimate, k, clip):  # ldp.evaluation.tasks.top_k_error before
        idx = top_k_indices(true, k)
        answers = np.maximum(estimate[..., idx], 0.0) if clip else estimate[..., idx]
        return np.mean((answers - true[idx]) ** 2, axis=-1)

    for k in (1, 5, 17, 40):
        for row in stack:
            assert top_k_mse(truth, row, k) == former_metric(truth, row, k)
            assert ldp.compute_metrics(truth, row, ["topk_mse"], k=k)["topk_mse"] == former_metric(truth, row, k)
        for clip in (False, True):
            np.testing.assert_array_equal(top_k_mse(truth, stack, k, clip=clip), former_task(truth, stack, k, clip))
            bound = tasks.TASKS.get("topk").bind(40, k=k)
            np.testing.assert_array_equal(bound.score(truth, stack, clip), former_task(truth, stack, k, clip))
    assert tasks.TASKS.get("topk").function is top_k_mse and not hasattr(tasks, "top_k_error")
