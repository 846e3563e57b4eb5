"""AppTest: the "Reproduce the papers" page draws its three figures with the papers' findings beside ours."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest  # noqa: E402

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def test_the_page_regenerates_each_figure():
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page("views/reproduce.py")
    at.run()
    assert not at.exception and not at.error
    keys = ["rp_gain", "rp_b", "rp_num", "rp_spiky", "rp_shapes", "rp_shapes_b", "rp_iiw", "rp_post", "rp_spec",
            "rp_grid_mech", "rp_grid_trend", "rp_nprime", "rp_set", "rp_topk", "rp_fixed_sets",
            "rp_synthetic_selection", "rp_wiener_eps", "rp_wiener_d", "rp_wiener_topk", "rp_wiener_positives",
            "rp_wiener_rough", "rp_gran"]
    assert [c.key for c in at.get("plotly_chart")] == keys
    assert sum("**The paper" in m.value for m in at.markdown) == 16
    next(w for w in at.multiselect if w.key == "rp_gain_mechs").set_value(["grr"])
    next(w for w in at.radio if w.key == "rp_grid_collection").set_value("longitudinal")
    next(w for w in at.radio if w.key == "rp_grid_vary").set_value("k")
    at.run()
    assert not at.exception and len(at.get("plotly_chart")) == len(keys)
    assert any("Table 3" in c.value for c in at.caption)  # the longitudinal table
    assert any("differ from the paper's Table 3" in m.value for m in at.markdown)  # the one-line reason
    trend = next(c for c in at.get("plotly_chart") if c.key == "rp_grid_trend")
    assert "against k" in trend.proto.spec
    # Square-wave Figs. 2–4: each metric of the paper's figures is one choice away.
    next(w for w in at.selectbox if w.key == "rp_num_metric").set_value("quantile_error")
    at.run()
    methods = next(c for c in at.get("plotly_chart") if c.key == "rp_num")
    assert not at.exception and "Fig. 4, quantiles" in methods.proto.spec
    # Beside each figure, the paper's scale on demand: its settings and estimated time first, then a button.
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
    next(w for w in at.toggle if w.key == "rp_own_consistency-fig-4").set_value(True)
    next(w for w in at.toggle if w.key == "rp_own_square-wave-fig-6").set_value(True)  # a numerical column
    at.run()
    assert any(m.value.startswith("**On your data (square-wave-fig-6):** ") for m in at.markdown)
    assert next(w for w in at.selectbox if w.key == "rp_own_square-wave-fig-6_column").value == "dep_time_hours"
    assert not at.exception and not at.error
    own = next(c for c in at.get("plotly_chart") if c.key == "rp_own_fig_consistency-fig-4")
    assert own is not None
    verdict = next(m.value for m in at.markdown if m.value.startswith("**On your data (consistency-fig-4):**"))
    assert verdict.split("** ")[1].startswith(("holds: ", "does not hold: ")) and "Base-Cut" in verdict
