"""Issue "The lecture hall on a real projector" item 6: what people read names things as people name them — display
names in legends (not "grr · MLE", "norm-sub", "found by svim", "Laplace, budget split (split)"), the data's
readable name in the report's title (not "dest"), an axis title that fits its chart, and words rather than coloured
emoji (boxes without an emoji font) in the read-out."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ldp.studies import datasets
from ldp.studies.briefing import tell_story
from ldp.studies.verdicts import verdict
from ldp.viz import paper_figures, tradeoff, vector_means
from ldp.viz.briefing import story_figures
from ldp.viz.report import story_report

EMOJI = re.compile("[\U0001F000-\U0001FAFF\u2600-\u27BF]")


def _names(fig) -> list[str]:
    return [t.name for t in fig.data]


def test_reproduce_legends_use_display_names():
    table = pd.DataFrame({"mechanism": ["grr", "grr"], "epsilon": [1.0, 2.0], "Γ IBU limit (%)": [1.0, 2.0],
                          "Γ plain Eq. (3), 10⁴ iterations (%)": [1.0, 2.0]})
    assert _names(paper_figures.gain_figure(table)) == ["GRR (k-RR) · MLE", "GRR (k-RR) · plain Eq. (3)"]
    lines = pd.DataFrame({"estimator": ["norm-sub", "mi"], "epsilon": [1.0, 1.0], "MSE": [1e-4, 2e-4]})
    drawn = paper_figures._lines_by(lines, "estimator", "MSE", title="t", y_title="y")
    assert _names(drawn) == ["Norm-Sub", "MI (Base)"]


def test_vector_legends_say_the_family_once():
    table = pd.DataFrame({"mechanism": ["split-laplace", "harmony"], "display_name": ["Laplace, budget split",
                          "Harmony"], "family": ["split", "sample"], "d": [4, 4], "worst-case variance": [1.0, 2.0]})
    names = _names(vector_means.variance_against_d_figure(table, 1.0))
    assert names[0] == "Laplace, budget split" and "(split)" not in " ".join(names)


def test_the_trade_off_axis_title_fits_a_chart():
    for metric in tradeoff.METRIC_UNITS:
        lines = tradeoff.metric_axis_title(metric).split("<br>")
        assert all(len(line) <= 30 for line in lines), lines  # one line was up to 49 characters, cut by Plotly


def test_the_report_is_titled_with_the_data_as_people_name_it():
    data = datasets.sample_dataset("flights", "dest", 0, None)
    assert data.name == "dest" and "Destination airport" in data.readable_name and "NYC flights" in data.readable_name
    story = tell_story(np.asarray(data.counts), data.labels, name=data.name, mechanism="grr", epsilon=1.0, n=10_000,
                       seed=1, title=data.readable_name)
    html = story_report(story, story_figures(story))
    title = re.search(r"<h1>(.*?)</h1>", html).group(1)
    assert "Destination airport" in title and "NYC flights" in title and not title.endswith(" dest")


def test_the_readout_has_no_emoji():
    import ldp

    mech = ldp.get_mechanism("oue", 1.0, 4)
    text = verdict(mech, np.array([0.5, 0.3, 0.15, 0.05]), 10_000).sentence("OUE", 1.0)
    assert not EMOJI.search(text), text
    assert "clearly above zero" in text and "cannot be told from zero" in text


def test_pages_use_no_emoji():
    """A lecture hall's browser without an emoji font draws boxes: pages use words or Streamlit's material icons
    (the trade-off page's title began with 📉, the tab's icon was 🔒)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    for path in [root / "app.py", *sorted((root / "views").glob("*.py"))]:
        found = EMOJI.findall(path.read_text(encoding="utf-8"))
        assert not found, f"{path.name}: {found}"
