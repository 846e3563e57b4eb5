"""Figures of the Trade-off page: error curves (simulated band + closed form + crossovers) and the
utility-against-attack-success chart. Pure Plotly; no Streamlit."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ldp.core.errors import LDPError
from ldp.core.registry import ESTIMATORS, MECHANISMS
from ldp.evaluation.metrics import get_metric
from ldp.viz.style import PALETTE

FONT = {"size": 16}
# Line dash per estimator (dotted is kept for the closed form).
DASHES = ["solid", "dash", "dashdot", "longdash", "longdashdot"]
AXIS_TITLES = {"epsilon": "privacy budget ε (log scale)", "users": "users n (log scale)",
               "d": "domain size d (number of values, log scale)"}
LEGEND = {"orientation": "h", "yanchor": "top", "y": -0.18, "xanchor": "left", "x": 0, "font": {"size": 14}}
AXIS_SYMBOLS = {"epsilon": "ε", "users": "n", "d": "d"}
METRIC_UNITS = {"mse": "(fraction of users)²", "topk_mse": "(fraction of users)²", "mae": "fraction of users",
                "max_abs": "fraction of users", "l1": "sum of fractions of users", "ks": "fraction of users",
                "wasserstein": "bins × fraction of users"}


def mechanism_colours(mechanisms: Sequence[str]) -> dict[str, str]:
    """One palette colour per mechanism, in the order given (stable across charts).

    Parameters
    ----------
    mechanisms : sequence of str
        Mechanism names, in the order the colours are handed out (:data:`ldp.viz.style.PALETTE`, cycling after 8).

    Returns
    -------
    dict of str to str
        Mechanism name → hex colour.
    """
    return {m: PALETTE[i % len(PALETTE)] for i, m in enumerate(mechanisms)}


def _display(name: str) -> str:
    return MECHANISMS.get(name).display_name if name in MECHANISMS else name


def _estimator_display(name: str) -> str:
    return ESTIMATORS.get(name).display_name if name in ESTIMATORS else name


def metric_label(metric: str) -> str:
    """The metric's display name (``"MSE"`` for ``"mse"``), or ``metric`` itself when no metric of that name is
    registered.

    Parameters
    ----------
    metric : str
        A metric name of :func:`ldp.evaluation.metrics.get_metric`, or any text.

    Returns
    -------
    str
        The name to show on an axis, a legend or a title.
    """
    try:
        return get_metric(metric).display_name
    except LDPError:
        return metric


def metric_axis_title(metric: str, log: bool = True) -> str:
    """The metric's name on one line and its unit on the next ("MSE, log scale<br>(fraction of users)²"): on one
    line the title was longer than a 400 px chart and Plotly cut its end.

    Parameters
    ----------
    metric : str
        The metric's name (its unit comes from :data:`METRIC_UNITS`; a metric without one gets no second line).
    log : bool, default True
        Whether the axis is on a log scale (adds ", log scale").

    Returns
    -------
    str
        The axis title, with an HTML ``<br>`` before the unit.
    """
    unit = METRIC_UNITS.get(metric, "")
    return f"{metric_label(metric)}{', log scale' if log else ''}{f'<br>{unit}' if unit else ''}"


def _fmt(x: float, axis: str) -> str:
    return f"{x:.3g}" if axis == "epsilon" else f"{int(round(x)):,}"


def error_curves_figure(mechanisms: Sequence[str], *, summary: pd.DataFrame | None = None,
                        closed_form: pd.DataFrame | None = None,
                        crossings: Sequence[tuple[float, str, str]] = (), axis: str = "epsilon",
                        metric: str = "mse", title: str | None = None) -> go.Figure:
    """Error against ε (or n, d) on log–log axes.

    ``summary``: columns mechanism, estimator, x, mean, ci_low, ci_high (simulated mean over trials
    and its confidence band); ``closed_form``: mechanism, x, value (dotted, MI only);
    ``crossings``: (x, a, b) drawn as vertical dotted markers labelled "A = B".
    Colour = mechanism, dash = estimator.

    Parameters
    ----------
    mechanisms : sequence of str
        The mechanisms drawn, in colour order (:func:`mechanism_colours`); rows of other mechanisms are not drawn.
    summary : pandas.DataFrame or None, default None
        Simulated errors: one row per (mechanism, estimator, x) with columns ``mechanism``, ``estimator``, ``x``,
        ``mean``, ``ci_low`` and ``ci_high``. None or empty draws no simulation.
    closed_form : pandas.DataFrame or None, default None
        Matrix inversion's closed-form error, columns ``mechanism``, ``x`` and ``value`` (as from
        :func:`ldp.studies.tradeoff.closed_form_curves`); a mechanism whose values are all NaN is skipped.
    crossings : sequence of (float, str, str), default ()
        Crossovers ``(x, a, b)`` of the closed-form curves (:func:`ldp.studies.tradeoff.crossovers`).
    axis : {"epsilon", "users", "d"}, default "epsilon"
        What x is: ε, the number of users n or the domain size d.
    metric : str, default "mse"
        The metric of ``summary`` and ``closed_form``, for the titles and the hover text.
    title : str or None, default None
        The figure's title; None writes "<metric> against <axis>".

    Returns
    -------
    plotly.graph_objects.Figure
        Log–log: x along ``axis``, the error on y. Per mechanism and estimator a line of the simulated mean (colour =
        mechanism, dash = estimator) in a shaded confidence band (lower edge clipped at a tenth of the mean to stay
        positive), the closed form as a dotted line of the mechanism's colour, and each crossover as a vertical dotted
        segment labelled "A = B" above the curves (labels staggered when closer than 0.3 decade). A reader sees
        which mechanism is best where, and whether the simulation agrees with the theory.

    Raises
    ------
    KeyError
        When ``axis`` is not one of the three.

    References
    ----------
    Wang, Blocki, Li, Jha, "Locally Differentially Private Protocols for Frequency Estimation" (USENIX Security
    2017), as taught in the lecture (ldp-lecture-frequency-oracles-heavy-hitters-itemsets): Table 1 (the oracles'
    variances behind the closed forms) and its rule "if d < 3e^ε + 2 use DE" (the GRR/OUE crossover).
    """
    colours = mechanism_colours(mechanisms)
    fig = go.Figure()
    if summary is not None and not summary.empty:
        estimators = list(dict.fromkeys(summary["estimator"]))
        for mech in mechanisms:
            for j, est in enumerate(estimators):
                part = summary[(summary["mechanism"] == mech) & (summary["estimator"] == est)].sort_values("x")
                if part.empty:
                    continue
                x = part["x"].to_numpy(dtype=float)
                mean = part["mean"].to_numpy(dtype=float)
                # On a log axis a band edge must stay positive: clip the lower edge at a tenth of the mean.
                low = np.maximum(part["ci_low"].to_numpy(dtype=float), mean / 10)
                high = part["ci_high"].to_numpy(dtype=float)
                name = f"{_display(mech)} · {_estimator_display(est)}"
                fig.add_scatter(x=np.concatenate([x, x[::-1]]), y=np.concatenate([high, low[::-1]]),
                                fill="toself", fillcolor=colours[mech], opacity=0.18, line={"width": 0},
                                hoverinfo="skip", showlegend=False, legendgroup=name, name=f"{name} band")
                fig.add_scatter(x=x, y=mean, mode="lines+markers", name=name, legendgroup=name,
                                line={"color": colours[mech], "dash": DASHES[j % len(DASHES)], "width": 2.5},
                                marker={"size": 7},
                                hovertemplate=f"{name}<br>{AXIS_SYMBOLS[axis]} = %{{x:.3g}}<br>"
                                              f"mean {metric_label(metric)} = %{{y:.3g}}<extra></extra>")
    if closed_form is not None and not closed_form.empty:
        for mech in mechanisms:
            part = closed_form[closed_form["mechanism"] == mech].sort_values("x")
            vals = part["value"].to_numpy(dtype=float)
            if part.empty or not np.isfinite(vals).any():
                continue
            fig.add_scatter(x=part["x"], y=vals, mode="lines", name=f"{_display(mech)} · closed form (MI)",
                            line={"color": colours[mech], "dash": "dot", "width": 2},
                            hovertemplate=f"{_display(mech)} closed form<br>{AXIS_SYMBOLS[axis]} = %{{x:.3g}}"
                                          "<br>%{y:.3g}<extra></extra>")
    if crossings:
        ys = [float(v) for t in fig.data if t.y is not None for v in t.y
              if v is not None and np.isfinite(v) and v > 0]
        lo, hi = (min(ys), max(ys)) if ys else (1e-6, 1.0)
        seg_x: list[float | None] = []
        seg_y: list[float | None] = []
        lab_x, lab_y, labels, hover = [], [], [], []
        step = max(0.3, 0.13 * (math.log10(hi) - math.log10(lo)))  # decades per label row (~2 text lines)
        last_at_level: dict[int, float] = {}
        for xc, a, b in crossings:
            # stagger labels whose positions are closer than ~0.3 decade on the log x axis
            level = next(k for k in range(len(crossings) + 1)
                         if k not in last_at_level or math.log10(xc) - math.log10(last_at_level[k]) > 0.3)
            last_at_level[level] = xc
            seg_x += [xc, xc, None]
            seg_y += [lo, hi, None]
            lab_x.append(xc)
            lab_y.append(hi * 10 ** (step * (level + 0.6)))
            labels.append(f"{a.upper()} = {b.upper()}<br>{AXIS_SYMBOLS[axis]} ≈ {_fmt(xc, axis)}")
            hover.append(f"{_display(a)} and {_display(b)} cross at {AXIS_SYMBOLS[axis]} ≈ {_fmt(xc, axis)}")
        fig.add_scatter(x=seg_x, y=seg_y, mode="lines", name="crossover (closed form)",
                        line={"color": "#555555", "dash": "dot", "width": 1.5}, hoverinfo="skip")
        fig.add_scatter(x=lab_x, y=lab_y, mode="text", text=labels, textfont={"size": 14, "color": "#333333"},
                        showlegend=False, name="crossover labels", hovertext=hover, hoverinfo="text")
    axis_word = {"epsilon": "ε", "users": "the number of users", "d": "the domain size"}[axis]
    fig.update_layout(
        title=title or f"{metric_label(metric)} against {axis_word}",
        xaxis_title=AXIS_TITLES[axis], yaxis_title=metric_axis_title(metric),
        xaxis_type="log", yaxis_type="log", font=FONT, height=620,
        yaxis_exponentformat="power", legend=LEGEND | {"title": "colour = mechanism, dash = estimator:"},
        hoverlabel={"font_size": 14}, margin={"t": 70},
    )
    return fig


def utility_privacy_figure(points: pd.DataFrame, mechanisms: Sequence[str], *, baseline: float,
                           metric: str = "mse", simulated: pd.DataFrame | None = None,
                           title: str | None = None) -> go.Figure:
    """Error (y, log) against the Bayes-optimal attacker's success probability (x) over the ε grid.

    ``points``: mechanism, epsilon, attack_success, closed_form (one line per mechanism, ε in the
    hover); ``simulated``: optional mechanism, epsilon, attack_success, mean (markers); ``baseline``:
    the attacker's success without any report (guessing the most common value), a vertical line.

    Parameters
    ----------
    points : pandas.DataFrame
        Closed-form points, columns ``mechanism``, ``epsilon``, ``attack_success`` (the Bayes-optimal attacker's
        success from one report; NaN rows are skipped) and ``closed_form`` (the error).
    mechanisms : sequence of str
        The mechanisms drawn, in colour order.
    baseline : float
        The attacker's success without any report (guessing the most common value), in [0, 1].
    metric : str, default "mse"
        The error metric, for the titles.
    simulated : pandas.DataFrame or None, default None
        Simulated points, columns ``mechanism``, ``epsilon``, ``attack_success`` and ``mean``; None draws none.
    title : str or None, default None
        The figure's title; None writes "Utility against privacy: …".

    Returns
    -------
    plotly.graph_objects.Figure
        x: the attacker's success probability (0 … 1.02), y: the error on a log axis. One line per mechanism over
        the ε grid (ε in the hover), simulated points as crosses, and a dashed vertical line at ``baseline``. The
        lower-left is best: a reader sees which mechanism buys the least error for the same risk.
    """
    colours = mechanism_colours(mechanisms)
    fig = go.Figure()
    for mech in mechanisms:
        part = points[(points["mechanism"] == mech) & points["attack_success"].notna()].sort_values("epsilon")
        if part.empty:
            continue
        fig.add_scatter(x=part["attack_success"], y=part["closed_form"], mode="lines+markers",
                        name=f"{_display(mech)} · closed form (MI)", customdata=part["epsilon"],
                        line={"color": colours[mech], "width": 2.5}, marker={"size": 7},
                        hovertemplate=f"{_display(mech)}<br>ε = %{{customdata:.3g}}<br>attacker success = "
                                      "%{x:.3f}<br>error = %{y:.3g}<extra></extra>")
        if simulated is not None and not simulated.empty:
            sim = simulated[(simulated["mechanism"] == mech) & simulated["attack_success"].notna()]
            if not sim.empty:
                fig.add_scatter(x=sim["attack_success"], y=sim["mean"], mode="markers",
                                name=f"{_display(mech)} · simulated", customdata=sim["epsilon"],
                                marker={"color": colours[mech], "symbol": "x", "size": 10},
                                hovertemplate=f"{_display(mech)} simulated<br>ε = %{{customdata:.3g}}<br>"
                                              "attacker success = %{x:.3f}<br>error = %{y:.3g}<extra></extra>")
    ys = [v for t in fig.data for v in (t.y if t.y is not None else []) if v is not None and v > 0]
    lo, hi = (min(ys), max(ys)) if ys else (1e-6, 1.0)
    fig.add_scatter(x=[baseline, baseline], y=[lo, hi], mode="lines", name=f"no report: guess the most common "
                    f"value ({baseline:.3f})", line={"color": "#000000", "dash": "dash", "width": 2},
                    hoverinfo="name")
    fig.update_layout(
        title=title or f"Utility against privacy: {metric_label(metric)} vs the attacker's success",
        xaxis_title="attacker's success probability (Bayes-optimal guess from one report)",
        yaxis_title=metric_axis_title(metric), yaxis_type="log", yaxis_exponentformat="power",
        xaxis={"range": [0, 1.02]}, font=FONT, height=600, legend=LEGEND,
        hoverlabel={"font_size": 14}, margin={"t": 70},
    )
    return fig


def describe_crossings(crossings: Sequence[tuple[float, str, str]], axis: str = "epsilon") -> str:
    """One sentence listing the crossovers (for captions).

    Parameters
    ----------
    crossings : sequence of (float, str, str)
        Crossovers ``(x, a, b)``: mechanisms ``a`` and ``b`` have equal closed-form error at x.
    axis : {"epsilon", "users", "d"}, default "epsilon"
        What x is (ε is written to 3 significant digits, n and d as integers).

    Returns
    -------
    str
        "The closed-form curves cross: A and B at ε ≈ x; …." or, without crossovers, a sentence saying none
        overtakes another.
    """
    if not crossings:
        return "No mechanism overtakes another on this range."
    parts = [f"{_display(a)} and {_display(b)} at {AXIS_SYMBOLS[axis]} ≈ {_fmt(x, axis)}" for x, a, b in crossings]
    return "The closed-form curves cross: " + "; ".join(parts) + "."


def crossings_table(crossings: Sequence[tuple[float, str, str]], axis: str = "epsilon") -> pd.DataFrame:
    """The crossovers as a table (for the page's expander).

    Parameters
    ----------
    crossings : sequence of (float, str, str)
        Crossovers ``(x, a, b)``: mechanisms ``a`` and ``b`` have equal closed-form error at x.
    axis : {"epsilon", "users", "d"}, default "epsilon"
        What x is; names the first column.

    Returns
    -------
    pandas.DataFrame
        One row per crossover with columns ``ε`` (or ``n``, ``d``), ``mechanism A`` and ``mechanism B`` (display
        names); empty with those columns when there is none.
    """
    return pd.DataFrame([{AXIS_SYMBOLS[axis]: x, "mechanism A": _display(a), "mechanism B": _display(b)}
                         for x, a, b in crossings], columns=[AXIS_SYMBOLS[axis], "mechanism A", "mechanism B"])


__all__ = ["crossings_table", "describe_crossings", "error_curves_figure", "mechanism_colours", "metric_axis_title",
           "metric_label", "utility_privacy_figure"]
