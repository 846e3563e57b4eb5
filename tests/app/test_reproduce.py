"""AppTest: the "Reproduce the papers" page draws each paper's figures with the papers' findings beside ours. The
figures are grouped by paper in tabs bound to the URL (``rp_paper``): only the open tab's sections run, so a test
opens the tab it reads (``open_tab``) or reads every tab in turn (``AllTabs``)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("streamlit")
from apptest_tabs import AllTabs, labels, open_tab  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

from ldp.studies.paper_figures import b_choice  # noqa: E402
from views.reproduce import PAPERS  # noqa: E402

APP = str(Path(__file__).resolve().parents[2] / "app.py")
TAB_KEY = "rp_paper"
#: Each tab's charts, in the page's order, and its "**The paper…**" lines (21 charts and 15 lines in all), its lazy
#: expanders closed; the b sweep's (Fig. 6) adds one chart and one line when open (``SWEEP``).
CHARTS = {
    "IBU paper": ["rp_gain", "rp_grid_mech", "rp_grid_trend"],
    "Square-wave paper": ["rp_num", "rp_spiky", "rp_shapes", "rp_shapes_b", "rp_gran"],
    "Convolution paper": ["rp_iiw", "rp_spec", "rp_wiener_eps", "rp_wiener_d", "rp_wiener_topk",
                          "rp_wiener_positives", "rp_wiener_rough"],
    "Consistency paper": ["rp_post", "rp_nprime", "rp_set", "rp_topk", "rp_fixed_sets", "rp_synthetic_selection"],
}
FINDINGS = {"IBU paper": 2, "Square-wave paper": 5, "Convolution paper": 5, "Consistency paper": 3}
SWEEP = "rp_sweep_open"


def _keys(at) -> list[str]:
    return [c.key for c in at.get("plotly_chart")]


def _tab(at: AppTest, paper: str) -> AppTest:
    return open_tab(at, TAB_KEY, list(PAPERS).index(paper))


def test_the_page_regenerates_each_figure():
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page("views/reproduce.py")
    at.run()
    assert not at.exception and not at.error
    assert labels(at) == list(PAPERS) == list(CHARTS)
    # the first tab is open: its charts alone, the main chart (rp_gain, presentation mode's) first
    assert _keys(at) == CHARTS["IBU paper"]
    every = AllTabs(at, TAB_KEY)
    assert [[c.key for c in run["plotly_chart"]] for run in every.runs] == list(CHARTS.values())
    assert [sum("**The paper" in m.value for m in run["markdown"]) for run in every.runs] == list(FINDINGS.values())
    assert not every.error
    next(w for w in at.multiselect if w.key == "rp_gain_mechs").set_value(["grr"])
    next(w for w in at.radio if w.key == "rp_grid_collection").set_value("longitudinal")
    next(w for w in at.radio if w.key == "rp_grid_vary").set_value("k")
    at.run()
    assert not at.exception and _keys(at) == CHARTS["IBU paper"]
    assert any("Table 3" in c.value for c in at.caption)  # the longitudinal table
    assert any("differ from the paper's Table 3" in m.value for m in at.markdown)  # the one-line reason
    trend = next(c for c in at.get("plotly_chart") if c.key == "rp_grid_trend")
    assert "against k" in trend.proto.spec
    # Square-wave Figs. 2–4: each metric of the paper's figures is one choice away.
    _tab(at, "Square-wave paper")
    next(w for w in at.selectbox if w.key == "rp_num_metric").set_value("quantile_error")
    at.run()
    methods = next(c for c in at.get("plotly_chart") if c.key == "rp_num")
    assert not at.exception and "Fig. 4, quantiles" in methods.proto.spec
    # Beside each figure, the paper's scale on demand: its settings and estimated time first, then a button.
    _tab(at, "Convolution paper")
    assert not any(c.key.startswith("rp_paper_fig_") for c in at.get("plotly_chart"))
    next(w for w in at.toggle if w.key == "rp_paper_convolution-fig-3").set_value(True)
    at.run()
    assert any("convolution-fig-3 at the paper's scale" in c.value and "Estimated" in c.value for c in at.caption)
    assert not any(c.key == "rp_paper_fig_convolution-fig-3" for c in at.get("plotly_chart"))
    next(b for b in at.button if b.key == "rp_paper_run_convolution-fig-3").click()
    at.run()
    assert not at.exception and not at.error
    assert any(c.key == "rp_paper_fig_convolution-fig-3" for c in at.get("plotly_chart"))
    assert any("At the paper's scale (convolution-fig-3)" in m.value for m in at.markdown)
    # Beside the figures that can take data: the same study on a bundled column, with the verdict line.
    assert not any(t.key == "rp_own_convolution-fig-3" for t in at.toggle)  # the spectrum cannot take data
    _tab(at, "Consistency paper")
    next(w for w in at.toggle if w.key == "rp_own_consistency-fig-4").set_value(True)
    at.run()
    assert not at.exception and not at.error
    own = next(c for c in at.get("plotly_chart") if c.key == "rp_own_fig_consistency-fig-4")
    assert own is not None
    verdict = next(m.value for m in at.markdown if m.value.startswith("**On your data (consistency-fig-4):**"))
    assert verdict.split("** ")[1].startswith(("holds: ", "does not hold: ")) and "Base-Cut" in verdict
    # Fig. 6, the b sweep at the tab's ε (8 b × the trials of SW + EMS), is simulated on demand: closed (the
    # default), a change of ε draws its closed forms only (b_MI and Lemma 1's W1 at that ε); opened, the sweep at that
    # ε with the paper's finding, and the paper's scale and the own-data run beside it
    _tab(at, "Square-wave paper")
    next(w for w in at.select_slider if w.key == "rp_b_eps").set_value(2.0)
    at.run()
    line = next(m.value for m in at.markdown if m.value.startswith("At ε = 2 the paper's choice is **b_MI = "))
    choice = b_choice(2.0)
    assert f"{choice['b_MI']:.3g}**" in line and f"{choice['W1, Lemma 1 (Δ = ½)']:.3g}" in line
    assert _keys(at) == CHARTS["Square-wave paper"] and not at.exception
    assert not any(t.key == "rp_own_square-wave-fig-6" for t in at.toggle)
    at.session_state[SWEEP] = True  # opened, as a click does
    at.run()
    assert not at.exception and not at.error and _keys(at) == ["rp_b", *CHARTS["Square-wave paper"]]
    assert "= 2 (square-wave paper Fig. 6)" in next(c for c in at.get("plotly_chart") if c.key == "rp_b").proto.spec
    assert any(m.value.startswith("**The paper:** ") and "× b_MI" in m.value for m in at.markdown)
    # a link with the expander open (``?rp_sweep_open=true``, what the browser writes when it is opened): a new session
    # shows the sweep at once
    link = AppTest.from_file(APP, default_timeout=120)
    link.query_params.update({TAB_KEY: "Square-wave paper", SWEEP: "true", "rp_b_eps": "2.0"})
    link.run()
    link.switch_page("views/reproduce.py")
    link.run()
    assert not link.exception and _keys(link) == ["rp_b", *CHARTS["Square-wave paper"]]
    next(w for w in at.toggle if w.key == "rp_own_square-wave-fig-6").set_value(True)  # a numerical column
    at.run()
    assert not at.exception and not at.error
    assert any(m.value.startswith("**On your data (square-wave-fig-6):** ") for m in at.markdown)
    assert next(w for w in at.selectbox if w.key == "rp_own_square-wave-fig-6_column").value == "dep_time_hours"
    # a toggle keeps its value while another tab, where it is not drawn, is looked at
    _tab(at, "Consistency paper")
    assert next(w for w in at.toggle if w.key == "rp_own_consistency-fig-4").value
    assert any(c.key == "rp_own_fig_consistency-fig-4" for c in at.get("plotly_chart"))


def test_a_link_opens_the_paper_it_names():
    """A shared link opens the tab it names (the tab's label in ``?rp_paper=``, which the browser writes when a tab
    is clicked: tests/e2e checks that half), with that paper's figures only; a label no tab has is ignored (the open
    tab stays, no error)."""
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update({TAB_KEY: "Convolution paper", "rp_users": "20000"})  # small n: only the tabs are read
    at.run()
    at.switch_page("views/reproduce.py")
    at.run()
    assert not at.exception and not at.error
    assert _keys(at) == CHARTS["Convolution paper"]
    at.query_params[TAB_KEY] = "Consistency paper"  # another link, in the same session
    at.run()
    assert not at.exception and _keys(at) == CHARTS["Consistency paper"]
    at.query_params[TAB_KEY] = "<script>"
    at.run()
    assert not at.exception and not at.error and _keys(at) == CHARTS["Consistency paper"]

