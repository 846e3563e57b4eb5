"""AppTest: the Learn page renders with defaults and after changing the live check's mechanism, ε and
d (THE, SHE, a longitudinal and a hash mechanism), Warner's controls and simulation, the one-user
value, the comparison's d and the number of questions Q. Only the open tab's sections run (the tabs are bound to
the URL, so switching reruns the page): a test opens the tab it reads (``_tab``), or reads every tab in turn
(``_every``)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("streamlit")
from apptest_tabs import AllTabs, open_tab  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

import ldp  # noqa: E402

APP = str(Path(__file__).resolve().parents[2] / "app.py")
PAGE = "views/learn.py"
TAB_KEY = "learn_tab"
KINDS = ("selectbox", "select_slider", "slider", "radio", "number_input")


def _page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page(PAGE)
    at.run()
    assert not at.exception, at.exception
    return at


def _widget(at: AppTest, key: str):
    return next(w for kind in KINDS for w in getattr(at, kind) if w.key == key)


def _set(at: AppTest, **changes) -> AppTest:
    for key, value in changes.items():
        _widget(at, key).set_value(value)
    at.run()
    assert not at.exception, f"{changes}: {at.exception}"
    assert not at.error, f"{changes}: {[e.value for e in at.error]}"
    return at


def _click(at: AppTest, key: str) -> AppTest:
    next(b for b in at.button if b.key == key).click()
    at.run()
    assert not at.exception, at.exception
    return at


def _tab(at: AppTest, index: int) -> AppTest:
    """Open the page's tab ``index`` (as a click does: its session state, then a rerun)."""
    return open_tab(at, TAB_KEY, index)


def _every(at: AppTest) -> AllTabs:
    """The elements of every tab, each opened in turn; the first tab is open again afterwards."""
    return AllTabs(at, TAB_KEY)


def _texts(at: AppTest, *kinds: str) -> str:
    return " ".join(e.value for kind in kinds for e in getattr(at, kind))


def _charts(at: AppTest) -> set[str]:
    """Keys of the charts on the page (the element id ends with the widget key)."""
    return {c.proto.id.rsplit("-", 1)[-1] for c in at.get("plotly_chart")}


def _frames(at: AppTest, column: str) -> list:
    """The dataframes on the page that have ``column``."""
    return [d.value for d in at.dataframe if column in d.value.columns]


@pytest.fixture(scope="module")
def at() -> AppTest:
    """One session walked through the changes below (each step checked), to keep the file fast."""
    return _page()


def test_defaults_render_every_section(at):
    assert len(at.tabs) == 6
    assert "learn_warner_bars" not in _charts(at)  # only the open (first) tab's sections ran
    at = _every(at)
    assert len(at.latex) >= 6  # definition, check, Warner (3), rule, Q formulas
    # GRR at ε = 1 spends exactly ε.
    assert "Spends exactly ε = 1" in _texts(at, "success")
    assert {"learn_warner_bars", "learn_hm_full", "learn_cmp_fig", "learn_q_fig"} <= _charts(at)
    warner = _frames(at, "→ yes (truthful)")[0].set_index("truth")  # the lecture's 80/20 table
    assert warner.loc["yes", ["→ yes (truthful)", "→ yes (random)", "→ no (truthful)", "→ no (random)"]].tolist() == [
        40, 20, 0, 20]
    assert warner["→ yes"].sum() == 65 and warner["→ no"].sum() == 35
    assert any(m.label == "Estimate of true 'yes'" and m.value == "80" for m in at.metric)
    assert len(_frames(at, "report")) == 1 and len(_frames(at, "Var[c̃(i)]/n (lecture formula)")) == 1
    assert "use OLH" in _texts(at, "success")  # d = 100 ≥ 3e + 2
    assert "partitioning users is 2.13× more accurate" in _texts(at, "markdown")


def test_lecture_extras_in_expanders(at):
    """Issue 23 item 6: composition, central DP vs LDP, the error bounds, the UE example and GRR's table, each in a
    lazy expander under its tab (the tabs and their first screens unchanged): closed, they draw nothing."""
    closed = _every(at)
    labels = [e.label for e in closed.expander]
    for start in ("Sequential composition", "Central DP vs LDP", "How far off", "The lecture's unary-encoding",
                  "GRR's p as d grows", "What the deployments do"):
        assert any(label.startswith(start) for label in labels), (start, labels)
    assert not {"learn_comp_fig", "learn_dp_fig", "learn_bounds_fig"} & _charts(closed)
    extras = ("learn_x_composition", "learn_x_dp", "learn_x_bounds", "learn_x_unary", "learn_x_grr",
              "learn_x_deployed")
    for key in extras:
        at.session_state[key] = True  # open
    at.run()
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
    every = _every(at)
    assert {"learn_comp_fig", "learn_dp_fig", "learn_bounds_fig"} <= _charts(every)
    metrics = {m.label: m.value for m in every.metric}
    assert metrics["Privacy loss: 2 reports at ε"] == metrics["Privacy loss: 1 report at 2ε"] == "2"  # ε = 1
    steps = _frames(every, "true count n_v")[0]
    assert list(steps.iloc[:, 4]) == ["0", "10/3", "5/3", "0"]  # the lecture's estimate
    grid = _frames(every, "p (d = 128)")[0]
    assert grid["p (d = 128)"].str.contains("DIFFERS").all()
    assert "printed 0.307" in _texts(every, "caption")
    sim = _frames(every, "simulated / closed form")[0]
    assert set(sim["n"]) == {1_000, 100_000}
    # issue 24: the deployments' budgets, their oracles against the best textbook one, memoization
    assert {"learn_deployed_deployed", "learn_deployed_memo"} <= _charts(every)
    budgets = _frames(every, "ε per report")[0]
    assert {"Apple", "Google", "Microsoft"} <= set(budgets["company"])
    for key in extras:  # closed again for the tests below (bound to the URL: its parameter goes too, as a click does)
        at.session_state[key] = False
        at.query_params.pop(key, None)
    at.run()
    assert "learn_comp_fig" not in _charts(_every(at))


def test_live_check_the_spends_less(at):
    _tab(at, 0)
    _set(at, learn_mech="the", learn_eps=2.0, learn_d=3)
    assert "Spends less than ε" in _texts(at, "info") and "thresholding" in _texts(at, "info")


def test_live_check_she_is_continuous(at):
    _tab(at, 0)
    _set(at, learn_mech="she", learn_eps=0.5)
    assert "continuous" in _texts(at, "info")
    assert "SHE spends exactly ε = 0.5" in _texts(at, "success")
    every = _every(at)
    assert {"learn_she_density", "learn_hm_she"} <= _charts(every)
    assert len(every.latex) >= 8  # the density and its ratio bound


def test_live_check_longitudinal(at):
    _tab(at, 0)
    _set(at, learn_mech="l-oue", learn_eps=2.0, learn_d=5)
    _set(at, learn_mech_eps1=1.0)
    assert "Spends exactly ε1 = 1" in _texts(at, "success")
    assert any(m.label.startswith("First (memoized) step") for m in at.metric)
    assert "ε∞-LDP" in _texts(at, "caption")


def test_live_check_hash_mechanism_and_heatmap_views(at):
    _tab(at, 0)
    _set(at, learn_mech="olh", learn_eps=1.0, learn_d=4)
    assert "Spends exactly ε = 1" in _texts(at, "success")
    _tab(at, 3)  # the channel matrix
    _set(at, learn_hm_view="Full channel")
    assert "the heatmap shows the first 64" in _texts(at, "info")
    _set(at, learn_eps=10.0)  # g = round(e^10 + 1): far too many outputs to enumerate
    warnings = _texts(_every(at), "warning")
    assert "too large to enumerate" in warnings and "cannot be enumerated" in warnings


def test_warner_controls_and_simulation(at):
    _tab(at, 1)
    _set(at, learn_w_n=200, learn_w_yes=30, learn_w_t=0.7, learn_w_seed=3)
    assert "Simulate this class" in [b.label for b in at.button]
    before = len(_frames(at, "→ yes (truthful)"))
    _click(at, "learn_w_sim")
    assert len(_frames(at, "→ yes (truthful)")) == before + 1  # the simulated class's table
    assert "learn_warner_spread" in _charts(at)
    assert any(m.label == "Observed 'yes' answers" for m in at.metric)


def test_one_user_and_comparison(at):
    _tab(at, 2)
    _set(at, learn_u_d=16)
    _set(at, learn_u_v=15, learn_u_seed=9)
    reports = _frames(at, "report")[0]
    assert len(reports) == len(ldp.mechanisms_of("frequency"))  # one row per registered frequency oracle
    assert reports.loc[reports["mechanism"] == "OUE", "report"].str.len().item() == 16  # d bits
    _tab(at, 4)
    _set(at, learn_eps=1.0, learn_cmp_d=5)
    assert "use DE (GRR)" in _texts(at, "success")  # d = 5 < 3e + 2


def test_questions_and_simulation(at):
    _tab(at, 5)
    _set(at, learn_q=4, learn_q_n=20_000)
    assert "Q = 4 questions" in _texts(at, "markdown")
    assert "learn_kq_fig" in _charts(at) and "the best K is" in _texts(at, "markdown")
    _set(at, learn_q_k=3)
    _click(at, "learn_q_sim")
    sims = _frames(at, "simulated")
    assert len(sims) == 1 and list(sims[0]["K"]) == [1, 3, 4]  # partition, K = 3, split
    _set(at, learn_q=1)
    assert "the same" in _texts(at, "markdown")


def test_unreachable_epsilon_1_grid_values_are_not_offered(at):
    """At ε∞ = 0.06 L-OUE cannot reach any ε1 on the grid (its maximum is about 0.04): the ε1 control
    falls back to ε∞/2, which is reachable, so the page works instead of failing."""
    _widget(at, "learn_mech").set_value("l-oue")
    _widget(at, "learn_eps").set_value(0.06)
    at.run()
    assert not at.exception, at.exception
    every = _every(at)
    assert "not reachable" not in _texts(every, "error")
    assert "learn_warner_bars" in _charts(every) and "learn_q_fig" in _charts(every)


def test_warner_on_the_real_election_survey_and_the_tab_in_the_url():
    """Issue 11: Warner's question on real data (the bundled ANES 1996 survey: 944 people, 393 truly 'yes'), and the
    open Learn tab travels in the URL."""
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["learn_w_source"] = "a real survey: the 1996 US election"  # URLs carry the display label
    at.query_params["learn_tab"] = "2 · Warner's randomized response"
    at.run()
    at.switch_page("views/learn.py")
    at.run()
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["People in the survey"] == "944" and metrics["…truly 'yes'"] == "393"
    table = _frames(at, "→ yes (truthful)")[0].set_index("truth")
    assert table["→ yes"].sum() + table["→ no"].sum() == 944
    assert any("Dole" in c.value for c in at.caption)
    assert at.query_params["learn_tab"] in ("2 · Warner's randomized response", ["2 · Warner's randomized response"])
