"""The Learn page's maths (ldp.studies.lecture) against the lecture's numbers and closed forms."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from ldp_test_support import build, sample_inputs

import ldp
from ldp.mechanisms.frequency.local_hashing import cw_hash
from ldp.mechanisms.frequency.unary import the_probabilities
from ldp.studies import lecture


# --------------------------------------------------------------------------- Warner (lecture's 80/20 example)
def test_warner_expected_table_is_the_lectures():
    table = lecture.warner_expected_table(80, 20, 0.5)
    # truth yes: 80 → 40 + 20 yes, 0 + 20 no; truth no: 20 → 0 + 5 yes, 10 + 5 no
    assert table.loc["yes", ["→ yes (truthful)", "→ yes (random)", "→ no (truthful)", "→ no (random)"]].tolist() == [
        40, 20, 0, 20]
    assert table.loc["no", ["→ yes (truthful)", "→ yes (random)", "→ no (truthful)", "→ no (random)"]].tolist() == [
        0, 5, 10, 5]
    assert table["→ yes"].sum() == 65 and table["→ no"].sum() == 35  # observed 65 / 35


def test_warner_estimates_are_80_and_20():
    assert lecture.warner_estimate(65, 100, 0.5) == 80  # c(n_v) = (I_v − 0.25 n) / 0.5
    assert lecture.warner_estimate(35, 100, 0.5) == 20  # the same estimator on the "no" answers


def test_warner_epsilon_is_ln3_and_inverts():
    assert lecture.warner_probabilities(0.5) == (0.75, 0.25)
    assert lecture.warner_epsilon(0.5) == pytest.approx(math.log(3), rel=1e-15)
    for t in (0.05, 0.3, 0.9):
        assert lecture.warner_truth_prob(lecture.warner_epsilon(t)) == pytest.approx(t, rel=1e-12)


@pytest.mark.parametrize(("n_yes", "n_no", "t"), [(80, 20, 0.5), (7, 93, 0.2), (500, 0, 0.85)])
def test_warner_estimator_is_unbiased_on_expected_answers(n_yes, n_no, t):
    table = lecture.warner_expected_table(n_yes, n_no, t)
    assert lecture.warner_estimate(table["→ yes"].sum(), n_yes + n_no, t) == pytest.approx(n_yes, abs=1e-9)


def test_warner_variance_equals_grr_with_two_values():
    # Warner with a fair truth coin is GRR with d = 2 and ε = ln 3; count variance = n² Var[f̂].
    grr = ldp.get_mechanism("grr", math.log(3), 2)
    n_yes, n_no = 80, 20
    n = n_yes + n_no
    expected = n**2 * grr.variance(np.array([n_yes / n]), n)[0]
    assert lecture.warner_variance(n_yes, n_no, 0.5) == pytest.approx(expected, rel=1e-12)


def test_warner_simulation_is_seeded_and_consistent():
    a = lecture.warner_simulate(80, 20, 0.5, seed=7, classes=1000)
    b = lecture.warner_simulate(80, 20, 0.5, seed=7, classes=1000)
    assert a.table.equals(b.table) and np.array_equal(a.estimates, b.estimates)
    tab = a.table
    assert tab.loc["yes", "people"] == 80 and tab.loc["no", "people"] == 20
    assert tab.loc["no", "→ yes (truthful)"] == 0 and tab.loc["yes", "→ no (truthful)"] == 0
    assert tab["→ yes"].sum() == a.yes_answers
    assert (tab["→ yes"] + tab["→ no"] == tab["people"]).all()
    assert a.estimate == lecture.warner_estimate(a.yes_answers, 100, 0.5) == a.estimates[0]
    # Mean within 5 standard errors of the truth; σ within 5 standard errors of the theory.
    sd = a.theoretical_sd
    assert abs(a.estimates.mean() - 80) < 5 * sd / math.sqrt(1000)
    assert abs(a.estimates.std(ddof=1) / sd - 1) < 5 * math.sqrt(1 / (2 * 999))


def test_warner_rejects_bad_inputs():
    with pytest.raises(ldp.LDPError, match="strictly between"):
        lecture.warner_expected_table(80, 20, 1.0)
    with pytest.raises(ldp.LDPError, match="at least one person"):
        lecture.warner_simulate(0, 0, 0.5)


# --------------------------------------------------------------------------- ε-LDP live check
def test_worst_case_on_a_hand_matrix():
    m = np.array([[0.5, 0.3, 0.2], [0.25, 0.25, 0.5]])
    loss, col, v, v2 = lecture.worst_case(m)
    assert col == 2 and (v, v2) == (1, 0) and loss == pytest.approx(math.log(2.5))


@pytest.mark.parametrize("name", ["grr", "sue", "oue", "ss", "blh", "olh", "hr"])
def test_pure_one_time_mechanisms_spend_exactly_epsilon(name):
    check = lecture.privacy_check(ldp.get_mechanism(name, 1.3, 4))
    assert check.verdict == "exact" and check.loss == pytest.approx(1.3, rel=1e-9)
    assert check.budget_name == "ε" and check.ratio == pytest.approx(math.exp(1.3))


def test_the_spends_less_than_epsilon():
    mech = ldp.get_mechanism("the", 1.0, 4)
    check = lecture.privacy_check(mech)
    p, q = mech.p_star, mech.q_star
    assert check.verdict == "under" and "THE" in check.message
    assert check.loss == pytest.approx(math.log(p * (1 - q) / (q * (1 - p))), rel=1e-12)
    assert check.loss < 1.0


@pytest.mark.parametrize("name", ["l-grr", "l-oue", "l-sue", "l-olh"])
def test_longitudinal_reports_spend_epsilon1_and_first_step_epsilon_inf(name):
    check = lecture.privacy_check(ldp.get_mechanism(name, 2.0, 4, epsilon_1=0.7))
    assert check.budget_name == "ε1" and check.budget == 0.7
    assert check.verdict == "exact" and check.loss == pytest.approx(0.7, rel=1e-9)
    assert check.first_step_loss == pytest.approx(2.0, rel=1e-9) and check.notes


def test_too_large_channel_and_she_raise():
    with pytest.raises(ldp.LDPError, match="outputs"):
        lecture.privacy_check(ldp.get_mechanism("olh", 10.0, 8))
    with pytest.raises(ldp.LDPError):
        lecture.privacy_check(ldp.get_mechanism("she", 1.0, 4))


def test_she_density_ratio_bound():
    info = lecture.she_privacy(ldp.get_mechanism("she", 1.5, 5), seed=3, samples=4000)
    assert info.scale == pytest.approx(2 / 1.5)
    assert info.analytic_bound == pytest.approx(1.5) and info.per_coordinate_bound == pytest.approx(0.75)
    assert info.worst_loss == pytest.approx(1.5, rel=1e-12)  # attained at y = one-hot(v')
    assert info.sampled_max_loss <= 1.5 * (1 + 1e-6)  # float32 reports: rounding only


def test_ratio_table_sorted():
    mech = ldp.get_mechanism("ss", 1.0, 5)
    matrix, labels = mech.channel()
    table = lecture.ratio_table(matrix, labels, top=4)
    assert len(table) == 4 and table["ratio"].is_monotonic_decreasing
    assert table["ln ratio"].iloc[0] == pytest.approx(1.0)


def test_laplace_densities_ratio_bounded():
    x = np.linspace(-10, 10, 2001)
    own, other = lecture.laplace_densities(2.0, x)
    assert np.all(np.abs(np.log(own / other)) <= 1.0 + 1e-12)  # ε/2 per coordinate
    assert np.trapezoid(own, x) == pytest.approx(1, abs=1e-2)


# --------------------------------------------------------------------------- one user's report
def test_support_sets():
    grr = ldp.get_mechanism("grr", 1.0, 8)
    assert grr.support_set(np.array([5])) == [5]
    oue = ldp.get_mechanism("oue", 1.0, 4)
    assert oue.support_set(np.array([[1, 0, 1, 0]], dtype=bool)) == [0, 2]
    assert ldp.get_mechanism("she", 1.0, 4).support_set(np.zeros((1, 4))) is None
    olh = ldp.get_mechanism("olh", 1.0, 8)
    a, b, y = 3, 5, 1
    expected = [v for v in range(8) if cw_hash(a, b, v, olh.prime, olh.g) == y]
    assert olh.support_set(np.array([[a, b, y]])) == expected
    hr = ldp.get_mechanism("hr", 1.0, 8)
    assert hr.support_set(np.array([[6, 0]])) == [v for v in range(8) if bin(6 & v).count("1") % 2 == 0]
    # reports that support a fixed number of values, and the numbers on one line of a report file
    ss = ldp.get_mechanism("ss", 1.0, 8)
    assert (grr.support_size(), ss.support_size(), oue.support_size(), olh.support_size()) == (1, ss.omega, None,
                                                                                                None)
    assert [m.report_columns() for m in (grr, oue, ss, olh, hr)] == [1, 4, ss.omega, 3, 2]
    with pytest.raises(ldp.LDPError, match="exactly one report"):
        grr.support_set(np.array([1, 2]))


def test_report_bits():
    d = 8
    assert ldp.get_mechanism("grr", 1.0, d).report_bits() == 3
    assert ldp.get_mechanism("oue", 1.0, d).report_bits() == d
    assert ldp.get_mechanism("the", 1.0, d).report_bits() == d
    assert ldp.get_mechanism("she", 1.0, d).report_bits() == 32 * d
    ss = ldp.get_mechanism("ss", 1.0, d)
    assert ss.report_bits() == ss.omega * 3
    olh = ldp.get_mechanism("olh", 1.0, d)  # P = 11, g = 4: a, b need 4 bits each, y 2 bits
    assert (olh.prime, olh.g) == (11, 4) and olh.report_bits() == 10
    assert ldp.get_mechanism("hr", 1.0, d).report_bits() == 4  # K = 8 → 3 bits + 1 bit
    assert ldp.get_mechanism("l-grr", 1.0, d).report_bits() == 3


def test_one_user_reports_cover_the_registry_and_are_seeded():
    table = lecture.one_user_reports(3, 8, 1.0, seed=4)
    again = lecture.one_user_reports(3, 8, 1.0, seed=4)
    assert table.equals(again)
    assert table["name"].tolist() == [cls.name for cls in ldp.mechanisms_of("frequency")]  # the lecture's oracles
    for _, row in table.iterrows():
        mech = lecture._mechanism_for(row["name"], 1.0, 8, None)
        assert row["bits"] == mech.report_bits() and row["bits formula"] == mech.report_bits_formula()
        assert row["how to read it"] == mech.explain_report(row["report"])
        assert row["kind"] == mech.collection and row["communication"] == mech.communication
        if mech.pure:
            assert row["supports own value"] == ("3" in row["supports"].strip("{}").split(", "))
    she = table.set_index("name").loc["she"]
    assert she["supports own value"] is None and len(she["report"].split()) == 8
    with pytest.raises(ldp.LDPError, match="value"):
        lecture.one_user_reports(8, 8, 1.0)


def test_every_mechanism_sizes_and_explains_its_reports(mechanism_name):
    """Report size and explanation are mechanism methods for every kind (formerly lecture functions)."""
    mech = build(mechanism_name, 1.0, 8)
    values = sample_inputs(mech, 1, np.random.default_rng(0))
    text = next(iter(mech.format_reports(mech.perturb(values, np.random.default_rng(1)))))
    bits = mech.report_bits()
    assert isinstance(bits, int) and bits >= 1
    if mech.name in ("sw", "gw", "pm"):
        assert bits == 64  # one float64
    assert isinstance(mech.report_bits_formula(), str) and mech.report_bits_formula()
    explanation = mech.explain_report(text)
    assert isinstance(explanation, str) and explanation
    if mech.has_discrete_channel():
        assert 2**bits >= mech.output_count()  # enough bits to tell every possible report apart
    if mech.kind == "frequency" and mech.pure:
        support = mech.support_set(mech.parse_reports([text]))
        assert support is not None and all(0 <= v < 8 for v in support)
        fixed = mech.support_size()
        assert fixed is None or len(support) == fixed


# --------------------------------------------------------------------------- channel summaries
@pytest.mark.parametrize("name", ["grr", "sue", "the", "ss", "blh", "olh", "hr", "l-grr", "l-oue", "l-blh"])
def test_support_probabilities_from_the_channel_are_p_and_q(name):
    mech = ldp.get_mechanism(name, 1.2, 5)
    matrix, labels = mech.channel()
    got = mech.support_probabilities(matrix, labels)
    np.testing.assert_allclose(got, mech.support_probabilities(), rtol=0, atol=1e-12)
    assert got[0, 0] == pytest.approx(mech.p_star) and got[0, 1] == pytest.approx(mech.q_star)


def test_support_probabilities_reject_she():
    with pytest.raises(ldp.LDPError, match="not pure"):
        ldp.get_mechanism("she", 1.0, 3).support_probabilities()


# --------------------------------------------------------------------------- comparison table
def _lecture_by_hand(name: str, eps: float, d: int) -> float:
    e, h = math.exp(eps), math.exp(eps / 2)
    return {"grr": (d - 2 + e) / (e - 1) ** 2, "she": 8 / eps**2, "the": (2 * h - 1) / (h - 1) ** 2,
            "sue": h / (h - 1) ** 2, "oue": 4 * e / (e - 1) ** 2, "blh": (e + 1) ** 2 / (e - 1) ** 2,
            "olh": 4 * e / (e - 1) ** 2, "hr": (e + 1) ** 2 / (e - 1) ** 2}[name]


@pytest.mark.parametrize(("eps", "d"), [(0.5, 10), (1.0, 100), (4.0, 1000)])
def test_comparison_table_matches_the_lectures_closed_forms(eps, d):
    table = lecture.comparison_table(eps, d, n=10_000).set_index("name")
    assert list(table.index) == list(lecture.COMPARISON_ORDER)
    for name in ("grr", "she", "the", "sue", "oue", "blh", "olh", "hr"):
        assert table.loc[name, "lecture value"] == pytest.approx(_lecture_by_hand(name, eps, d), rel=1e-12)
    ours = table["ours: approximate_variance(1)"]
    # Our implementation equals the closed form where the lecture's parameters are exact.
    for name in ("grr", "she", "sue", "oue", "hr"):
        # SHE's noise is a discrete Laplace on its output grid (step δ ≤ b·2⁻¹², b = 2/ε): its variance
        # 2a/(1 − a)²·δ² is 2b² − δ²/6 + O(δ⁴/b²), a relative gap ≤ 2⁻²⁴/12 ≈ 5·10⁻⁹ from the lecture's 8/ε²
        rel = 1e-8 if name == "she" else 1e-12
        assert ours[name] == pytest.approx(table.loc[name, "lecture value"], rel=rel)
        assert ours[name] == pytest.approx(ldp.get_mechanism(name, eps, d).approximate_variance(1), rel=1e-15)
    # THE: optimal θ is never worse than the lecture's θ = 1.
    assert ours["the"] <= table.loc["the", "lecture value"] * (1 + 1e-12)
    assert table.loc[ours.idxmin(), "best"] and table["best"].sum() == (ours == ours.min()).sum()
    assert table[f"σ of f̂ with n = {10_000:,}"].to_numpy() == pytest.approx(np.sqrt(ours.to_numpy() / 10_000))
    for name in lecture.COMPARISON_ORDER:
        cls = ldp.MECHANISMS.get(name)
        assert table.loc[name, "communication"] == cls.communication
        assert table.loc[name, "bits per report (ours)"] == ldp.get_mechanism(name, eps, d).report_bits()
        if cls.lecture_formula:
            assert table.loc[name, "Var[c̃(i)]/n (lecture formula)"] == cls.lecture_formula


def test_the_lecture_value_is_theta_one():
    eps = 1.7
    p, q = the_probabilities(eps, 1.0)
    assert q * (1 - q) / (p - q) ** 2 == pytest.approx(ldp.get_mechanism("the", eps, 5).lecture_variance(), rel=1e-12)


@pytest.mark.parametrize("d", [1009, 10007])
def test_hashing_tends_to_the_lecture_as_the_prime_grows(d):
    eps = math.log(3)  # e^ε + 1 = 4: OLH's integer g equals the lecture's real g
    for name in ("blh", "olh"):
        mech = ldp.get_mechanism(name, eps, d)
        rel = mech.approximate_variance(1) / ldp.get_mechanism(name, eps, d).lecture_variance() - 1
        assert abs(rel) < 4 / mech.prime  # the collision probability differs from 1/g by O(1/P)


def test_de_rule_threshold():
    eps = 1.0
    threshold = 3 * math.e + 2  # 10.15…
    assert lecture.de_rule(eps, 10).use_de and lecture.de_rule(eps, 10).choice == "grr"
    assert not lecture.de_rule(eps, 11).use_de and lecture.de_rule(eps, 11).choice == "olh/oue"
    assert lecture.de_rule(eps, 10).threshold == pytest.approx(threshold)
    # The rule is exactly "DE's closed form is below OUE/OLH's".
    for e in (0.1, 0.7, 2.0, 5.0):
        for d in range(2, 500, 7):
            de = ldp.get_mechanism("grr", e, d).lecture_variance()
            oue = ldp.get_mechanism("oue", e, d).lecture_variance()
            if not math.isclose(de, oue, rel_tol=1e-12):
                assert lecture.de_rule(e, d).use_de == (de < oue)


# --------------------------------------------------------------------------- Q questions
def test_split_vs_partition_formulas():
    n = 1000
    split, part = lecture.split_vs_partition_variance(1.0, 2, n)
    e = math.e
    assert split == pytest.approx(4 * math.exp(0.5) / (n * (math.exp(0.5) - 1) ** 2), rel=1e-12)
    assert part == pytest.approx(8 * e / (n * (e - 1) ** 2), rel=1e-12)  # the lecture's Q = 2 case
    s1, p1 = lecture.split_vs_partition_variance(1.3, 1, n)
    assert s1 == pytest.approx(p1, rel=1e-15)
    eps = np.geomspace(0.05, 10, 50)
    for q in (2, 3, 5, 10):
        s, p = lecture.split_vs_partition_variance(eps, q, n)
        assert np.all(p < s)  # "algebra shows that it is better to partition users"
    s, p = lecture.split_vs_partition_variance(eps, 2, n)
    assert np.all(s / p >= 2 - 1e-12)  # for Q = 2 partitioning wins by at least a factor 2: (x + 1)² ≥ 4x
    with pytest.raises(ldp.LDPError):
        lecture.split_vs_partition_variance(1.0, 0, n)


def test_split_vs_partition_conclusion_reads_the_numbers():
    text = lecture.split_vs_partition_conclusion(1.0, 2, 10_000, np.geomspace(0.05, 10, 20))
    assert "partitioning users is 2.13× more accurate" in text and "partitioning wins" in text
    assert "the same" in lecture.split_vs_partition_conclusion(1.0, 1, 10_000)


def test_split_vs_partition_simulation_matches_theory():
    trials, d = 200, 32
    table = lecture.split_vs_partition_simulation(1.0, 2, 20_000, d=d, trials=trials, seed=5).set_index("strategy")
    again = lecture.split_vs_partition_simulation(1.0, 2, 20_000, d=d, trials=trials, seed=5).set_index("strategy")
    assert table.equals(again)
    assert table.loc["split the budget", "users per question"] == 20_000
    assert table.loc["partition users", "users per question"] == 10_000
    # Relative standard error of a variance from `trials` draws, averaged over d independent values.
    rel_se = math.sqrt(2 / ((trials - 1) * d))
    for strategy in table.index:
        ratio = table.loc[strategy, "simulated"] / table.loc[strategy, "closed form (our OLH, f = 1/d)"]
        assert abs(ratio - 1) < 5 * rel_se
    assert table.loc["partition users", "simulated"] < table.loc["split the budget", "simulated"]


def test_one_user_reports_mark_unbuildable_mechanisms():
    # ε∞ = 0.06 with ε1 = 0.05: L-OUE's second step cannot reach ε1, L-GRR can.
    table = lecture.one_user_reports(0, 8, 0.06, seed=0, epsilon_1=0.05).set_index("name")
    assert "not available" in table.loc["l-oue", "report"] and "not reachable" in table.loc["l-oue", "how to read it"]
    assert "not available" not in table.loc["l-grr", "report"]


def test_warner_spread_and_the_precision_of_a_simulated_variance():
    sim = lecture.warner_simulate(80, 20, 0.5, seed=0, classes=500)
    assert sim.empirical_sd == pytest.approx(np.std(sim.estimates, ddof=1))
    assert sim.empirical_sd == pytest.approx(sim.theoretical_sd, rel=0.15)
    assert lecture.variance_relative_se(200, 32) == pytest.approx(math.sqrt(2 / (199 * 32)))
    with pytest.raises(ldp.LDPError):
        lecture.variance_relative_se(1, 32)


def test_k_of_q_has_split_and_partition_as_its_ends():
    eps, n = np.geomspace(0.1, 10, 30), 10_000
    split, partition = lecture.split_vs_partition_variance(eps, 5, n)
    np.testing.assert_allclose(lecture.k_of_q_variance(eps, 5, 5, n), split, rtol=1e-12)
    np.testing.assert_allclose(lecture.k_of_q_variance(eps, 5, 1, n), partition, rtol=1e-12)
    with pytest.raises(ldp.LDPError, match="K ≤ Q"):
        lecture.k_of_q_variance(1.0, 3, 4, n)


def test_the_best_k_grows_with_epsilon():
    """With the lecture's formula (sampling variance dropped) partitioning (K = 1) always wins. With the answerers'
    sampling kept (f(1 − f)(n − m)/(m(n − 1)), hypergeometric) it wins only while OLH's own noise dominates: at
    small ε K = 1 is best, at large ε more answers per user pay off."""
    best = {eps: int(lecture.k_of_q_table(eps, 10, 10_000).set_index("K")["vs best K"].idxmin()) for eps in
            (0.5, 2.0, 8.0, 20.0)}
    assert best[0.5] == 1 and best[2.0] == 1
    assert 1 < best[8.0] <= best[20.0] <= 10
    table = lecture.k_of_q_table(8.0, 10, 10_000).set_index("K")
    assert (table["lecture formula"].idxmin()) == 1  # the lecture's model: partition always
    assert list(table["strategy"][[1, 2, 10]]) == ["partition users", "sample 2 of 10 questions", "split the budget"]


def test_k_of_q_simulation_matches_the_closed_form():
    trials, d = 200, 32
    table = lecture.k_of_q_simulation(8.0, 10, 3_200, [1, 3, 10], d=d, trials=trials, seed=2).set_index("K")
    assert table.loc[3, "users per question"] == 960
    # relative SE of a mean squared (Gaussian) error over `trials` draws and d values: √(2/(trials·d)) = 1.8 %
    rel_se = math.sqrt(2 / (trials * d))
    for k in (1, 3, 10):
        ratio = table.loc[k, "simulated"] / table.loc[k, "closed form (our OLH, f = 1/d)"]
        assert abs(ratio - 1) < 5 * rel_se, (k, ratio)
    assert table.loc[1, "simulated"] < table.loc[10, "simulated"]


# --------------------------------------------------------------------------- GRR's p as d grows (the lecture's table)
def test_grr_table_is_the_formula_and_the_lectures_printed_digits():
    table = lecture.grr_probability_table().set_index(["ε", "d"])
    assert len(table) == 16
    for (eps, d), row in table.iterrows():
        e = math.exp(eps)
        assert row["p"] == pytest.approx(e / (e + d - 1), rel=1e-14)
        assert row["q"] == pytest.approx(1 / (e + d - 1), rel=1e-14)
        assert row["p"] + (d - 1) * row["q"] == pytest.approx(1, rel=1e-14)  # the lecture's q = (1 − p)/(d − 1)
    # The slide's p, truncated to its printed digits: every cell agrees except the d = 128 column, whose printed
    # values (0.016, 0.027, 0.057, 0.307) the formula does not give (0.0086, 0.021, 0.055, 0.3007).
    assert set(table.index[~table["agrees"].astype(bool)]) == {(0.1, 128), (1.0, 128), (2.0, 128), (4.0, 128)}
    assert table.loc[(4.0, 128), "p"] == pytest.approx(0.3007, abs=5e-5)
    # The slide truncates rather than rounds: four agreeing cells would read one digit higher if rounded.
    truncated_only = table["agrees"].astype(bool) & ~table["agrees if rounded"].astype(bool)
    assert set(table.index[truncated_only]) == {(0.1, 8), (1.0, 8), (1.0, 1024), (4.0, 8)}


def test_printed_digits_and_the_grid():
    from decimal import ROUND_HALF_EVEN

    assert lecture.agrees_to_printed_digits(0.13635, "0.13")
    assert not lecture.agrees_to_printed_digits(0.13635, "0.14")
    assert lecture.agrees_to_printed_digits(0.13635, "0.14", ROUND_HALF_EVEN)
    assert lecture.agrees_to_printed_digits(0.05067, "0.05") and not lecture.agrees_to_printed_digits(0.0499, "0.05")
    grid = lecture.grr_probability_grid(lecture.grr_probability_table())
    assert grid.shape == (4, 5) and list(grid["ε"]) == [0.1, 1.0, 2.0, 4.0]
    assert grid["p (d = 128)"].str.contains("DIFFERS").all() and grid["p (d = 2)"].str.contains("agrees").all()
    assert grid.iloc[0]["p (d = 2)"] == "0.525 (lecture 0.52: agrees)"


# --------------------------------------------------------------------------- the unary-encoding worked example
def test_unary_example_is_the_lectures_in_exact_fractions():
    ex = lecture.unary_example()
    assert ex.p == Fraction(4, 5) and ex.q == Fraction(1, 5)
    assert ex.truth == (0, 3, 1, 1)  # "Truth is [0, 3, 1, 1]"
    assert ex.observed == (1, 3, 2, 1)  # the slide's column sums
    assert ex.minus_nq == (0, 2, 1, 0)  # I_v − n q with n q = 5 · 1/5 = 1
    assert ex.estimate == (0, Fraction(10, 3), Fraction(5, 3), 0)  # "[0, 10/3, 5/3, 0]", divided by p − q = 3/5
    assert all(isinstance(x, Fraction) for x in ex.estimate)
    # symmetric UE with p = 4/5: e^{ε/2} = p/q = 4, ε = ln 16; the SUE mechanism aggregates and estimates the same
    assert ex.epsilon == pytest.approx(math.log(16), rel=1e-15)
    assert ldp.get_mechanism("sue", ex.epsilon, 4).p_star == pytest.approx(0.8, rel=1e-14)
    np.testing.assert_array_equal(ex.engine_counts, [1, 3, 2, 1])
    np.testing.assert_allclose(ex.engine_estimate, [float(x) for x in ex.estimate], atol=1e-12)
    steps, users = ex.steps(), ex.users()
    assert list(steps.iloc[:, 4]) == ["0", "10/3", "5/3", "0"]
    assert list(users["value v"]) == [2, 2, 3, 2, 4] and users.loc[4, "report y"] == "[1, 0, 0, 1]"
    # another p: the steps follow the formula, not the example's numbers
    other = lecture.unary_example(p=Fraction(3, 4))
    assert other.estimate == tuple((Fraction(c) - 5 * Fraction(1, 4)) / Fraction(1, 2) for c in (1, 3, 2, 1))


def test_unary_example_rejects_bad_input():
    with pytest.raises(ldp.LDPError, match="1/2 < p < 1"):
        lecture.unary_example(p=Fraction(1, 2))
    with pytest.raises(ldp.LDPError, match="0/1 report"):
        lecture.unary_example(values=(0, 1), reports=((0, 2), (1, 0)))


# --------------------------------------------------------------------------- sequential composition
def test_repeated_channel_is_the_product_channel():
    m = ldp.get_mechanism("grr", 1.0, 3).channel()[0]
    two = lecture.repeated_channel(m, 2)
    assert two.shape == (3, 9)
    np.testing.assert_allclose(two.sum(axis=1), 1.0, rtol=1e-14)
    assert two[0, 0 * 3 + 2] == pytest.approx(m[0, 0] * m[0, 2])  # Pr[(0, 2) | 0] = Pr[0|0] Pr[2|0]


@pytest.mark.parametrize(("eps", "d"), [(0.5, 2), (1.0, 3), (2.0, 4)])
def test_composition_two_reports_at_eps_spend_what_one_at_2eps_does(eps, d):
    table = lecture.composition_table(eps, d, max_reports=4).set_index("reports k")
    k = table.index.to_numpy()
    # Privacy loss of the exact product channel: exactly kε, as one report at kε — the theorem's sum is attained.
    np.testing.assert_allclose(table["loss: k reports at ε"], k * eps, rtol=1e-12)
    np.testing.assert_allclose(table["loss: one report at kε"], k * eps, rtol=1e-12)
    # One GRR report at kε attains the kε-LDP ceiling e^{kε}/(e^{kε} + d − 1); k reports at ε never exceed it.
    np.testing.assert_allclose(table["attacker: one report at kε"], table["kε-LDP ceiling"], rtol=1e-12)
    assert (table["attacker: k reports at ε"] <= table["kε-LDP ceiling"] + 1e-12).all()
    assert (table.loc[2:, "attacker: k reports at ε"] < table.loc[2:, "attacker: one report at kε"]).all()
    # GRR, uniform prior: two reports at ε guess exactly as well as one — equal reports give p², different ones pq
    # (pick either), so (1/d)(d p² + d(d − 1) p q) = p (p + (d − 1) q) = p. A third report does help.
    p = ldp.get_mechanism("grr", eps, d).p_star
    assert table.loc[2, "attacker: k reports at ε"] == pytest.approx(p, rel=1e-12)
    assert table.loc[1, "attacker: one report at ε"] == pytest.approx(p, rel=1e-12)
    assert table.loc[3, "attacker: k reports at ε"] > p
    assert (table["no report (1/d)"] == 1 / d).all()


def test_composition_table_stops_before_the_channel_is_too_large():
    table = lecture.composition_table(1.0, 8, max_reports=10)  # 8^5 = 32 768 ≤ 2^16 < 8^6 outputs
    assert list(table["reports k"]) == [1, 2, 3, 4, 5]
    assert list(lecture.composition_table(10.0, 3, max_reports=5)["reports k"]) == [1, 2]  # GRR at 30: underflow
    with pytest.raises(ldp.LDPError):
        lecture.composition_table(1.0, 1)


# --------------------------------------------------------------------------- central DP vs LDP
def test_dp_noise_is_constant_and_ldp_noise_grows_like_root_n():
    curves = lecture.dp_vs_ldp_curves(1.0, 16, [100, 10_000, 1_000_000])
    central = curves[curves["method"] == "central DP (Laplace)"]
    np.testing.assert_allclose(central["σ of the count"], math.sqrt(2), rtol=1e-15)  # Laplace(1/ε): √2/ε
    for name in lecture.DP_VS_LDP_MECHANISMS:
        mech = ldp.get_mechanism(name, 1.0, 16)
        sd = curves.loc[curves["method"] == f"LDP: {mech.display_name}", "σ of the count"].to_numpy()
        np.testing.assert_allclose(sd[1:] / sd[:-1], 10.0, rtol=1e-12)  # 100× the users, 10× the noise
        assert sd[0] == pytest.approx(100 * math.sqrt(mech.approximate_variance(100)), rel=1e-12)  # n·σ(f̂)
    np.testing.assert_allclose(curves["σ of the frequency (÷ n)"], curves["σ of the count"] / curves["n"])
    assert lecture.central_count_sd(0.5) == pytest.approx(2 * math.sqrt(2))


def test_dp_vs_ldp_simulation_matches_the_closed_forms():
    trials = 400
    sim = lecture.dp_vs_ldp_simulation(1.0, 4, [1_000, 20_000], trials=trials, seed=5)
    assert len(sim) == 8 and (sim["trials"] == trials).all()
    # relative SE of a standard deviation from T draws ≈ ½√((2 + κ)/(T − 1)): 5.6 % (Laplace, κ = 3), ≈ 3.5 % for the
    # counts here (Binomial(n, q*) with n q* ≥ 100: κ ≤ 0.01)
    assert (abs(sim["simulated / closed form"] - 1) < 5 * sim["relative SE"]).all(), sim
    assert sim["relative SE"].iloc[1] == pytest.approx(1 / math.sqrt(2 * (trials - 1)), rel=0.01)
    # a count of tiny expected size (n q* = 0.045 at ε = 10, d = 2) is heavy-tailed: its SE is far larger
    rare = lecture.dp_vs_ldp_simulation(10.0, 2, [1_000], names=("grr",), trials=trials, seed=5)
    assert rare["relative SE"].iloc[1] > 3 * sim["relative SE"].iloc[1]  # κ ≈ 1/(n q*) = 22: ½√(24/399) = 12 %
    assert abs(rare["simulated / closed form"].iloc[1] - 1) < 5 * rare["relative SE"].iloc[1]
    big = sim[sim["n"] == 20_000].set_index("method")
    assert big.loc["LDP: OUE", "simulated σ"] > 50 * big.loc["central DP (Laplace)", "simulated σ"]


# --------------------------------------------------------------------------- Hoeffding / Bernstein bounds
def test_concentration_halfwidths_by_hand():
    # Warner's fair coin: p = 3/4, q = 1/4, n = 100, 95 %: Hoeffding t = √(ln 40 / 200) / (1/2)
    h, b = lecture.concentration_halfwidths(0.75, 0.25, 100, 0.95)
    assert h == pytest.approx(math.sqrt(math.log(40) / 200) / 0.5, rel=1e-14)
    lam, m, s2 = math.log(40), 0.75 / 0.5, 0.1875 / 0.25
    assert b == pytest.approx((m * lam / 3 + math.sqrt((m * lam / 3) ** 2 + 2 * 100 * s2 * lam)) / 100, rel=1e-14)
    assert 100 * b**2 == pytest.approx(lam * (2 * s2 + 2 * m * b / 3), rel=1e-12)  # the tail bound equals 5 % at t
    with pytest.raises(ldp.LDPError):
        lecture.concentration_halfwidths(0.25, 0.75, 100)


def test_the_bounds_hold_and_are_wider_than_the_exact_intervals():
    table = lecture.bound_widths("grr", 4, [100, 1_000, 10_000, 100_000], [0.5, 1.0, 4.0])
    assert (table["Hoeffding / ours"] > 1).all() and (table["Bernstein / ours"] > 1).all()  # conservative
    assert set(table["our method"]) == {"exact", "normal"}
    one = table[table["ε"] == 1.0].set_index("n")
    assert one.loc[100, "Hoeffding"] / one.loc[10_000, "Hoeffding"] == pytest.approx(10, rel=1e-12)  # ∝ 1/√n
    big = table[table["ε"] == 4.0].set_index("n")  # p − q large, variance small: Bernstein beats Hoeffding
    assert (big.loc[1_000:, "Bernstein"] < big.loc[1_000:, "Hoeffding"]).all()
    # Coverage: the support count is Bin(n_v, p) + Bin(n − n_v, q); both bounds cover ≥ 95 % of 20 000 draws
    # (the shortfall from 95 % would be ≥ 0.15 % = 1 SE of a 95 % proportion over 20 000 draws; they cover ~100 %).
    mech, n, n_v = ldp.get_mechanism("grr", 1.0, 4), 1_000, 250
    rng = np.random.default_rng(11)
    counts = rng.binomial(n_v, mech.p_star, 20_000) + rng.binomial(n - n_v, mech.q_star, 20_000)
    err = np.abs((counts / n - mech.q_star) / (mech.p_star - mech.q_star) - n_v / n)
    for col in ("Hoeffding", "Bernstein"):
        assert np.mean(err <= one.loc[n, col] / 2) >= 0.95
    with pytest.raises(ldp.LDPError, match="not a pure"):
        lecture.bound_widths("she", 4, [100], [1.0])
