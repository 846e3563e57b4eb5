"""The story's HTML report stands alone: plotly.js inlined once, every chart, every sentence, the settings and
versions, and what a user typed escaped."""

from __future__ import annotations

import datetime as dt
import re

import numpy as np
import pytest

from ldp.studies.briefing import tell_story
from ldp.viz.briefing import story_figures
from ldp.viz.report import sentence_html, story_report, versions

HOSTILE = '<img src=x onerror="alert(1)">'


@pytest.fixture(scope="module")
def report():
    counts = np.array([500, 300, 150, 50])
    labels = ["a", "<script>alert(2)</script>", "c & d", "e"]
    story = tell_story(counts, labels, name=HOSTILE, mechanism="grr", epsilon=1.0, n=10_000, seed=1)
    html = story_report(story, story_figures(story), created=dt.datetime(2026, 11, 24, tzinfo=dt.UTC),
                        extra_versions={"streamlit": "1.67.0"})
    return story, html


def test_the_report_is_one_standalone_file(report):
    _, html = report
    assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")
    assert not re.search(r"<script[^>]*\bsrc\s*=", html)  # nothing fetched: plotly.js is inlined
    assert not re.search(r"<link[^>]*\bhref\s*=", html)
    assert html.count("Plotly.newPlot(") == 5  # the five charts
    assert len(html) > 3_000_000  # plotly.js itself (~4.5 MB minified) is in the file


def test_the_report_has_every_sentence_the_settings_and_the_versions(report):
    story, html = report
    for step in story.steps:
        assert sentence_html(step.sentence) in html
        assert f'id="step-{step.number}"' in html
    assert "<th>users n</th><td>10,000</td>" in html and "<th>seed</th><td>1</td>" in html
    for name, version in {**versions(), "streamlit": "1.67.0"}.items():
        assert f"<th>{name}</th><td>{version}</td>" in html
    assert "2026-11-24 00:00 UTC" in html


def test_user_text_is_escaped_everywhere(report):
    _, html = report
    assert HOSTILE not in html and "<script>alert(2)</script>" not in html
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in html or "&lt;img src=x onerror=" in html


def test_bold_is_the_only_markup_a_sentence_carries():
    assert sentence_html("**±5 users** of <b>n</b>") == "<strong>±5 users</strong> of &lt;b&gt;n&lt;/b&gt;"


def test_one_figure_per_step(report):
    story, _ = report
    with pytest.raises(ValueError, match="one figure per step"):
        story_report(story, story_figures(story)[:4])
