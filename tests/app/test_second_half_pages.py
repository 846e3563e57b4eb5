"""AppTest: the Frequent items page (SVIM on the flights' baskets by default; SVSM's itemsets; PSFO with ℓ and the
padding trade-off), the Means of vectors page (the lecture's summary, variance against d, a simulation check on
demand) and the More than one column page (the truth and every joint method's estimate, their errors, split's
independence limit)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest  # noqa: E402

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def _page(path: str, query: dict | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update(query or {})
    at.switch_page(path)
    at.run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    return at


def _widget(at: AppTest, key: str):
    return next(w for kind in ("selectbox", "radio", "slider", "number_input", "select_slider", "multiselect")
                for w in getattr(at, kind) if w.key == key)


def test_frequent_items_page():
    at = _page("views/itemsets.py")
    assert [c.key for c in at.get("plotly_chart")] == ["is_found_chart", "is_padding_chart"]
    assert any("21,105 users, 104 items" in m.value for m in at.markdown)  # the flights' hourly baskets
    assert any("balances them" in m.value for m in at.markdown)
    # the headline (six more miner runs) sits in a lazy expander: closed by default, it computes nothing
    assert any(e.label.startswith("SVIM against LDPMiner") for e in at.main.expander)
    assert not any("found of the true top 8" in d.value.columns for d in at.dataframe)
    at.session_state["is_compare_open"] = True  # opened (as a click does): it computes
    at.run()
    compare = next(d.value for d in at.dataframe if "found of the true top 8" in d.value.columns)
    assert len(compare) == 2 and any("LDPMiner" in m.value and "3× more" in m.value for m in at.markdown)
    link = AppTest.from_file(APP, default_timeout=120)  # a link with the expander open shows it at once
    link.query_params["is_compare_open"] = "true"  # the expander's state in the URL (bind="query-params")
    link.switch_page("views/itemsets.py")
    link.run()
    assert any("found of the true top 8" in d.value.columns for d in link.dataframe)
    _widget(at, "is_method").set_value("svsm")
    at.run()
    found = next(d.value for d in at.dataframe if "in the true top k" in d.value.columns)
    assert not at.exception and all(" + " in items for items in found["items"])  # itemsets of two or more
    _widget(at, "is_method").set_value("psfo")
    at.run()
    _widget(at, "is_length").set_value(12)
    at.run()
    assert {m.label: m.value for m in at.metric}["Padding ℓ used"] == "12"
    _widget(at, "is_source").set_value("plane_destinations")  # the bundled basket sample, a Kosarak stand-in
    at.run()
    assert not at.exception and any("37,876 users, 104 items" in m.value for m in at.markdown)
    assert any("stand-in for the Kosarak click-stream" in c.value for c in at.caption)
    _widget(at, "is_method").set_value("strawman")  # 2^104 subsets: refused in one line, then run on 8 items
    at.run()
    assert any("at most 20 items" in e.value for e in at.error)
    _widget(at, "is_source").set_value("synthetic")
    at.run()
    _widget(at, "is_users").set_value(20_000)
    _widget(at, "is_items").set_value(8)
    at.run()
    assert not at.exception and not at.error and any("20,000 users, 8 items" in m.value for m in at.markdown)
    _widget(at, "is_source").set_value("upload")  # a basket file: one user per line, its own population
    _widget(at, "is_method").set_value("svim")
    at.run()
    assert not at.exception and any("Upload a basket file" in i.value for i in at.info)
    lines = [" ".join(f"i{j}" for j in range(u % 5 + 1)) for u in range(3_000)]  # i0 in every set, i4 in a fifth
    next(u for u in at.file_uploader if u.key == "is_upload").set_value(("b.txt", "\n".join(lines).encode(),
                                                                         "text/plain"))
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("3,000 users, 5 items" in m.value for m in at.markdown)


def test_means_of_vectors_page():
    closed = _page("views/vector_means.py")  # the check by simulation on demand: its expander is closed at first
    assert [c.key for c in closed.get("plotly_chart")] == ["vm_chart"]
    assert any("lowest is" in m.value for m in closed.markdown)
    assert any(e.label.startswith("Check by simulation") for e in closed.expander)
    assert not any("simulated MSE" in m.value for m in closed.markdown)
    assert "vm_source" not in [w.key for w in closed.radio]  # its controls are drawn only while it is open
    # the lecture's two-bin pitfall, its numbers computed (all users at 0.01: two bins expect 0.5)
    assert any("**0.5**" in m.value and "bias of 0.49" in m.value for m in closed.markdown)
    at = _page("views/vector_means.py", {"vm_check_open": "true"})  # a link with it open shows it at once
    assert [c.key for c in at.get("plotly_chart")] == ["vm_chart", "vm_sim_chart"]
    check = next(m.value for m in at.markdown if "simulated MSE" in m.value)
    ratio = float(check.split("(ratio ")[1].split(";")[0])
    assert 0.7 < ratio < 1.3  # 50 trials × 8 coordinates: 3 SE of the ratio ≈ 0.21
    # the vectors of a sample: the weather's temp, dewp and humid, 3,000 users drawn from its rows
    _widget(at, "vm_source").set_value("Sample data")
    at.run()
    _widget(at, "vm_users").set_value(3000)
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    means = next(d.value for d in at.dataframe if "true mean" in d.value.columns)
    assert list(means["column"]) == ["temp", "dewp", "humid"]
    assert any("3,000 users from the weather sample" in c.value and "public" in c.value for c in at.caption)
    assert any("users with the table's vectors (d = 3)" in m.value for m in at.markdown)
    # an upload is its own population: every complete row a user, no n to choose
    rows = pd.DataFrame({"x": [float(i % 97) for i in range(1500)], "y": [float(i % 31) for i in range(1500)]})
    at.session_state["_uploads"] = {("vectors.csv", 1, 1): rows}
    _widget(at, "vm_source").set_value("Upload")
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert "vm_users" not in [w.key for w in at.number_input]
    assert any("1,500 users from the uploaded file vectors.csv" in c.value for c in at.caption)


def test_frequent_items_share_a_bundled_sample_across_seeds_but_not_synthetic_sets():
    """A bundled sample does not depend on the synthetic controls or the seed: its key names the sample alone, so
    sessions on their own seeds share it (ten seeds made ten keys for one sample and thrashed the cache)."""
    from views import itemsets

    one, sets = itemsets._population("flights", 1_000, 10, 1)
    other, again = itemsets._population("flights", 5_000, 20, 2)
    assert one == other and sets.users == again.users and sets.d == again.d
    first, _ = itemsets._population("synthetic", 1_000, 10, 1)
    second, _ = itemsets._population("synthetic", 1_000, 10, 2)
    assert first != second


def test_frequent_items_legend_names_the_method_as_the_page_does():
    """Issue "lecture hall" item 6: the legend said "found by svim"."""
    at = _page("views/itemsets.py")
    spec = next(c for c in at.get("plotly_chart") if c.key == "is_found_chart").proto.spec
    assert "found by SVIM (items)" in spec and "found by svim" not in spec


def test_more_than_one_column_page_shows_the_independence_failure():
    at = _page("views/joint.py")
    assert [c.key for c in at.get("plotly_chart")] == ["jt_chart"]
    table = next(d.value for d in at.dataframe if "tvd" in d.value.columns)
    assert list(table["method"]) == ["product", "split", "calm", "hdg"]
    tvd = table.set_index("method")["tvd"]
    assert tvd["split"] > 3 * tvd["product"]  # ρ = 0.8 by default: split's limit is far from the truth
    text = next(m.value for m in at.markdown if "Total variation distance" in m.value)
    assert "independent table" in text and "→ product" in text
    _widget(at, "jt_rho").set_value(0.0)
    at.run()
    tvd = next(d.value for d in at.dataframe if "tvd" in d.value.columns).set_index("method")["tvd"]
    assert tvd["split"] < tvd["product"]  # independent columns: split's far smaller noise wins


def test_more_than_one_column_page_reads_a_table_as_its_own_population():
    """Issue 24 item 2: pick two (three) columns of a bundled table or an upload; each row is one user."""
    at = _page("views/joint.py")
    _widget(at, "jt_source").set_value("Sample data")
    at.run()
    assert not at.exception, at.exception
    assert _widget(at, "jt_columns").value == ["origin", "carrier"]  # carriers fly from their hubs
    caption = next(c.value for c in at.sidebar.caption if "its own population" in c.value)
    assert "328,521 rows" in caption
    tvd = next(d.value for d in at.dataframe if "tvd" in d.value.columns).set_index("method")["tvd"]
    assert tvd["split"] > 2 * tvd["product"]  # the dependence split cannot see
    _widget(at, "jt_columns").set_value(["origin"])
    at.run()
    assert any("pick two or three columns" in e.value for e in at.main.error)
    # an upload: its rows are the users (the session's parsed upload, as a file uploader leaves it)
    at.session_state["_uploads"] = {("pairs.csv", 1, 1): pd.DataFrame({"a": list("xxyy") * 300,
                                                                       "b": list("ppqq") * 300})}
    _widget(at, "jt_source").set_value("Upload")
    at.run()
    _widget(at, "jt_columns").set_value(["a", "b"])
    at.run()
    assert not at.exception, at.exception
    assert any("1,200 rows" in c.value for c in at.sidebar.caption)
    spec = json.loads(next(c for c in at.get("plotly_chart") if c.key == "jt_chart").proto.spec)
    assert spec["layout"]["title"]["text"].startswith("2 × 2 combinations")
