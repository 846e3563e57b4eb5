"""The story as a standalone HTML report to send after a meeting: one file that opens offline in any browser —
plotly.js inlined once, the five charts, the five sentences, the settings and the versions that made them.

Everything a user typed (a file or column name, a category) is HTML-escaped; the sentences' ``**bold**`` is the
only markup carried over. No ``<script src=…>`` and no other fetch: the report works without a network.
"""

from __future__ import annotations

import datetime as _dt
import html
import platform
import re
from collections.abc import Mapping, Sequence
from typing import Any

import plotly.graph_objects as go

from ldp.studies.briefing import Story

__all__ = ["sentence_html", "story_report", "versions"]

_BOLD = re.compile(r"\*\*(.+?)\*\*")

_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2328; max-width: 1100px;
       margin: 2rem auto; padding: 0 1.5rem; line-height: 1.5; font-size: 17px; }
h1 { font-size: 1.8rem; margin-bottom: 0.2rem; }
h2 { font-size: 1.3rem; margin-top: 2.5rem; border-top: 1px solid #d0d7de; padding-top: 1.2rem; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; }
th, td { text-align: left; padding: 0.2rem 0.9rem 0.2rem 0; border-bottom: 1px solid #eaeef2; }
.meta { color: #424a53; font-size: 0.95rem; }
.warning { background: #fff8c5; padding: 0.5rem 0.8rem; border-left: 4px solid #d4a72c; }
"""


def sentence_html(sentence: str) -> str:
    """A story sentence (Markdown with ``**bold**`` only) as HTML: escaped first, then bold restored.

    Parameters
    ----------
    sentence : str
        One sentence of a :class:`ldp.studies.briefing.Story` step; ``**…**`` marks bold, any other markup is text.

    Returns
    -------
    str
        HTML fragment (no enclosing tag): ``<``, ``>`` and ``&`` escaped, each ``**…**`` turned into
        ``<strong>…</strong>``.
    """
    return _BOLD.sub(r"<strong>\1</strong>", html.escape(sentence, quote=False))


def versions() -> dict[str, str]:
    """The versions behind a report: this package, Python and the numerical libraries.

    Returns
    -------
    dict of str to str
        Display name → version string, for ``"LDP Explorer (ldp)"``, ``"Python"``, ``"numpy"``, ``"scipy"``,
        ``"pandas"`` and ``"plotly"`` (in that order).
    """
    import numpy
    import pandas
    import plotly
    import scipy

    import ldp

    return {"LDP Explorer (ldp)": ldp.__version__, "Python": platform.python_version(), "numpy": numpy.__version__,
            "scipy": scipy.__version__, "pandas": pandas.__version__, "plotly": plotly.__version__}


def _rows(items: Mapping[str, Any]) -> str:
    def fmt(v: Any) -> str:
        if isinstance(v, float):
            return f"{v:g}"
        if isinstance(v, int) and not isinstance(v, bool):
            return f"{v:,}"
        return str(v)

    return "".join(f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(fmt(v))}</td></tr>" for k, v in items.items())


def story_report(story: Story, figures: Sequence[go.Figure], *, created: _dt.datetime | None = None,
                 extra_versions: Mapping[str, str] | None = None) -> str:
    """The standalone HTML of ``story`` with its ``figures`` (one per step, :func:`ldp.viz.briefing.story_figures`).
    ``extra_versions``: more versions to list (e.g. the dashboard's Streamlit).

    Parameters
    ----------
    story : ldp.studies.briefing.Story
        The briefing story: its steps (number, title, sentence), warnings (shown under step 4) and settings.
    figures : sequence of plotly.graph_objects.Figure
        One figure per step of ``story``, in step order.
    created : datetime.datetime or None, default None
        Time stamp printed in the report (as ``YYYY-MM-DD HH:MM UTC``); None means now (UTC).
    extra_versions : mapping of str to str or None, default None
        Added to the versions table after :func:`versions`.

    Returns
    -------
    str
        A complete HTML document: one section per step (title, sentence, chart; plotly.js inlined once, in the first
        chart), then the settings and versions tables.

    Raises
    ------
    ValueError
        When ``figures`` does not hold exactly one figure per step.
    """
    if len(figures) != len(story.steps):
        raise ValueError(f"one figure per step: {len(story.steps)} steps, {len(figures)} figures")
    when = (created or _dt.datetime.now(_dt.UTC)).strftime("%Y-%m-%d %H:%M UTC")
    data = html.escape(str(story.settings.get("data title") or story.settings.get("data", "")))
    parts = [
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>LDP Explorer: what local differential privacy does to {data}</title>",
        f"<style>{_STYLE}</style>", "</head>", "<body>",
        f"<h1>What local differential privacy does to {data}</h1>",
        f'<p class="meta">A five-step story made with LDP Explorer on {when}. Every number below was simulated with '
        "the settings listed at the end; the same settings and seed give the same numbers.</p>",
    ]
    for i, (step, fig) in enumerate(zip(story.steps, figures, strict=True)):
        parts.append(f'<section id="step-{step.number}"><h2>{step.number}. {html.escape(step.title)}</h2>')
        parts.append(f"<p>{sentence_html(step.sentence)}</p>")
        if step.number == 4 and story.warnings:
            parts.append('<p class="warning">' + "<br>".join(html.escape(w) for w in story.warnings) + "</p>")
        parts.append(fig.to_html(full_html=False, include_plotlyjs=i == 0, div_id=f"chart-{step.number}",
                                 config={"displaylogo": False, "responsive": True}))
        parts.append("</section>")
    parts += [
        '<section id="settings"><h2>Settings</h2>', f"<table>{_rows(story.settings)}</table>",
        "<h2>Versions</h2>", f"<table>{_rows({**versions(), **(extra_versions or {})})}</table></section>",
        "</body>", "</html>",
    ]
    return "\n".join(parts)
