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
    assert [c.key for c in at.get("plotly_chart")] == ["rp_gain", "rp_b", "rp_num", "rp_shapes", "rp_iiw",
                                                     "rp_post", "rp_spec"]
    assert sum("**The paper:**" in m.value for m in at.markdown) == 7
    next(w for w in at.multiselect if w.key == "rp_gain_mechs").set_value(["grr"])
    at.run()
    assert not at.exception and len(at.get("plotly_chart")) == 7
