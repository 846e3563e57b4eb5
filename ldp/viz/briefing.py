"""The stakeholder briefing's five charts (one per step of :mod:`ldp.studies.briefing`), each drawn from its step's
table."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ldp.core.errors import InvalidInput
from ldp.studies.briefing import Story
from ldp.viz.estimates import histogram_figure
from ldp.viz.style import PALETTE, label_log_axes, plain_text

__all__ = ["attack_figure", "data_figure", "estimate_figure", "needs_figure", "postprocessing_figure", "step_figure",
           "story_figures"]

GREY = "#5f6368"


def data_figure(story: Story) -> go.Figure:
    """Step 1: each shown value's share of the users.

    Parameters
    ----------
    story : ldp.studies.briefing.Story
        The briefing; step 1's table has columns ``value`` and ``share of users`` (the shown values' true
        frequencies); ``settings["data"]`` names the data in the title.

    Returns
    -------
    plotly.graph_objects.Figure
        Grey bars, one per shown value (x, as text), of its share of the users in percent (y): the distribution the
        story simulates.
    """
    step = story.step(1)
    t = step.table
    fig = go.Figure(go.Bar(x=[plain_text(v) for v in t["value"]], y=100 * t["share of users"], marker_color=GREY,
                           hovertemplate="%{x}: %{y:.3g} % of users<extra></extra>"))
    fig.update_layout(title=f"1 · Your data: {plain_text(story.settings['data'])}", yaxis_title="% of users",
                      xaxis_title="value", showlegend=False)
    return fig


def attack_figure(story: Story) -> go.Figure:
    """Step 2: the Bayes attacker's success from one report against ε, the no-report guess, the chosen ε marked.

    Parameters
    ----------
    story : ldp.studies.briefing.Story
        The briefing; step 2's table has columns ``epsilon``, ``attacker's success`` (NaN for continuous reports),
        ``guess without the report`` and ``chosen`` (True on the story's ε).

    Returns
    -------
    plotly.graph_objects.Figure
        x: ε; y: % of users whose value is guessed right. A red line for the Bayes attacker who sees one report, a
        dashed grey line for the best guess without it, and a diamond on the story's ε: the gap between the two lines
        is what one report reveals.
    """
    t = story.step(2).table
    fig = go.Figure()
    fig.add_scatter(x=t["epsilon"], y=100 * t["attacker's success"], mode="lines+markers",
                    name="attacker who sees one report", line={"color": PALETTE[3], "width": 3})
    fig.add_scatter(x=t["epsilon"], y=100 * t["guess without the report"], mode="lines",
                    name="guess without the report", line={"color": GREY, "width": 2, "dash": "dash"})
    chosen = t[t["chosen"]]
    fig.add_scatter(x=chosen["epsilon"], y=100 * chosen["attacker's success"], mode="markers",
                    name=f"this story (ε = {story.mechanism.epsilon:g})",
                    marker={"size": 16, "color": PALETTE[0], "symbol": "diamond"})
    fig.update_layout(title="2 · What one user's report reveals", xaxis_title="ε (privacy budget)",
                      yaxis_title="% of users guessed right")
    return fig


def estimate_figure(story: Story) -> go.Figure:
    """Step 3: true shares as bars, the matrix-inversion estimate with its per-value intervals.

    Parameters
    ----------
    story : ldp.studies.briefing.Story
        The briefing; step 3's table has columns ``value``, ``true share``, ``estimate`` (matrix inversion), ``low``
        and ``high`` (the per-value interval at ``story.verdict.level``).

    Returns
    -------
    plotly.graph_objects.Figure
        The figure of :func:`ldp.viz.estimates.histogram_figure`: true shares as bars, the matrix-inversion estimate
        with its intervals, per value; the title names the mechanism, ε and n.
    """
    t = story.step(3).table
    mech = story.mechanism
    level = float(story.verdict.level)
    return histogram_figure(list(t["value"]), t["true share"].to_numpy(), {"estimate": t["estimate"].to_numpy()},
                            (t["low"].to_numpy(), t["high"].to_numpy()), interval_for="estimate", level=level,
                            title=f"3 · How wrong the histogram is: {mech.display_name}, ε = {mech.epsilon:g}, "
                                  f"n = {story.n:,}", x_title="value")


def postprocessing_figure(story: Story) -> go.Figure:
    """Step 4: each estimator's typical error per value, in users (matrix inversion grey).

    Parameters
    ----------
    story : ldp.studies.briefing.Story
        The briefing; step 4's table has columns ``estimator`` (registry name), ``display name`` and ``typical error
        (users)`` (n × the root mean squared error per value, over the simulated collections).

    Returns
    -------
    plotly.graph_objects.Figure
        Horizontal bars, the largest error on top, of each estimator's typical error per value in users (labelled
        ±…); matrix inversion grey, the post-processed estimators green, so a reader sees what post-processing the
        same reports buys.
    """
    t = story.step(4).table.sort_values("typical error (users)", ascending=False)
    colours = [GREY if e == "mi" else PALETTE[2] for e in t["estimator"]]
    fig = go.Figure(go.Bar(x=t["typical error (users)"], y=t["display name"], orientation="h", marker_color=colours,
                           text=[f"±{v:,.0f}" for v in t["typical error (users)"]], textposition="auto",
                           hovertemplate="%{y}: ±%{x:,.0f} users per value<extra></extra>"))
    fig.update_layout(title="4 · What post-processing buys (same reports)",
                      xaxis_title=f"typical error per value (users of {story.n:,})", showlegend=False)
    return fig


def needs_figure(story: Story) -> go.Figure:
    """Step 5: the smallest share told from zero against n (log–log), an average value's share, this n.

    Parameters
    ----------
    story : ldp.studies.briefing.Story
        The briefing; step 5's table has columns ``users``, ``smallest share told from zero`` and ``average value's
        share`` (1/d); ``story.verdict`` gives the confidence level and d.

    Returns
    -------
    plotly.graph_objects.Figure
        Log–log against the number of users n: the smallest share (in %) told from zero at the verdict's level (a
        line falling as 1/√n), the average value's share 1/d (dashed) and a marker at the story's n. Where the first
        line falls below the second, an average value can be told from zero.
    """
    t = story.step(5).table
    v = story.verdict
    fig = go.Figure()
    fig.add_scatter(x=t["users"], y=100 * t["smallest share told from zero"], mode="lines",
                    name=f"smallest share told from zero ({v.level:.0%})", line={"color": PALETTE[0], "width": 3})
    fig.add_scatter(x=t["users"], y=100 * t["average value's share"], mode="lines",
                    name=f"an average value's share (1/{v.d:,})", line={"color": GREY, "width": 2, "dash": "dash"})
    here = t[t["users"] == story.n]
    fig.add_scatter(x=here["users"], y=100 * here["smallest share told from zero"], mode="markers",
                    name=f"this story (n = {story.n:,})", marker={"size": 14, "color": PALETTE[3]})
    fig.update_layout(title=f"5 · How many users you need at ε = {story.mechanism.epsilon:g}",
                      xaxis_title="users n (log scale)", yaxis_title="% of users (log scale)")
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log")
    return label_log_axes(fig)


def step_figure(story: Story, number: int) -> go.Figure:
    """The chart of step ``number`` alone (a page that shows one step at a time builds only that one).

    Parameters
    ----------
    story : ldp.studies.briefing.Story
        The briefing, as built by :func:`ldp.studies.briefing.tell_story`.
    number : int
        The step, 1 to 5.

    Returns
    -------
    plotly.graph_objects.Figure
        The figure of :func:`data_figure`, :func:`attack_figure`, :func:`estimate_figure`,
        :func:`postprocessing_figure` or :func:`needs_figure` for step 1, 2, 3, 4 or 5.

    Raises
    ------
    ldp.core.errors.InvalidInput
        When ``number`` is not a step, 1 to 5.
    """
    if isinstance(number, bool) or not isinstance(number, (int, np.integer)) or not 1 <= number <= len(STEP_FIGURES):
        raise InvalidInput(f"a story's step is 1 to {len(STEP_FIGURES)}, not {number!r}")
    return STEP_FIGURES[int(number) - 1](story)


def story_figures(story: Story) -> list[go.Figure]:
    """The five charts, in the story's order.

    Parameters
    ----------
    story : ldp.studies.briefing.Story
        The briefing, as built by :func:`ldp.studies.briefing.tell_story`.

    Returns
    -------
    list of plotly.graph_objects.Figure
        The five figures of :func:`data_figure`, :func:`attack_figure`, :func:`estimate_figure`,
        :func:`postprocessing_figure` and :func:`needs_figure`, in that order (one per step).
    """
    return [figure(story) for figure in STEP_FIGURES]


#: Each step's chart, in step order (step k is ``STEP_FIGURES[k - 1]``).
STEP_FIGURES = (data_figure, attack_figure, estimate_figure, postprocessing_figure, needs_figure)
