"""Figures of the Privacy questions page: central ε of shuffled reports vs n, the audit's bound against the
claim, the attacker's posterior over rounds, and the poisoning gain vs the fraction of fake users. Pure Plotly;
no Streamlit. Each builder also returns the plotted values as a table."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from ldp.viz.style import PALETTE

__all__ = ["audit_figure", "longitudinal_figure", "poisoning_figure", "shuffle_figure", "shuffle_table"]

FONT = {"size": 15}
LEGEND = {"orientation": "h", "yanchor": "top", "y": -0.2, "xanchor": "left", "x": 0}


def shuffle_table(bounds: Sequence[Any]) -> pd.DataFrame:
    """One row per n: closed form (None where its condition fails), numerical lower/upper, blanket.

    Parameters
    ----------
    bounds : sequence of ldp.privacy.shuffle.ShuffleBounds
        One bound per number of users, e.g. from :func:`ldp.privacy.shuffle.shuffle_curve`.

    Returns
    -------
    pandas.DataFrame
        One row per bound, in the given order, with columns ``users``, ``epsilon0``, ``closed_form``, ``lower``,
        ``upper`` and ``blanket_grr`` (central ε values; None/NaN where a bound does not apply).
    """
    return pd.DataFrame([{"users": b.users, "epsilon0": b.epsilon0, "closed_form": b.closed_form, "lower": b.lower,
                          "upper": b.upper, "blanket_grr": b.blanket} for b in bounds])


def shuffle_figure(bounds: Sequence[Any]) -> tuple[go.Figure, pd.DataFrame]:
    """Central ε vs n (log–log): FMT closed form where valid, numerical upper and lower, GRR's blanket, ε₀.

    Parameters
    ----------
    bounds : sequence of ldp.privacy.shuffle.ShuffleBounds
        The curve to draw, one bound per n in increasing n (:func:`ldp.privacy.shuffle.shuffle_curve` makes it).

    Returns
    -------
    figure : plotly.graph_objects.Figure
        Log–log: users n on x, central ε on y. Lines for FMT's numerical upper (solid) and lower (dotted) bounds, the
        closed form (dashed, only where it holds) and GRR's privacy blanket (dash-dot) — each drawn only when it has a
        value somewhere — and a thin dotted line at the local ε₀. A reader sees the central ε fall below ε₀ as n grows.
    table : pandas.DataFrame
        The plotted values, :func:`shuffle_table` of ``bounds``.

    References
    ----------
    Feldman, McMillan, Talwar, "Hiding Among the Clones", FOCS 2021, Theorem 3.1 (closed form) and §4.3 (numerical
    bounds); Balle, Bell, Gascón, Nissim, "The Privacy Blanket of the Shuffle Model", CRYPTO 2019, Theorem 3.1.
    """
    table = shuffle_table(bounds)
    fig = go.Figure()
    series = (("upper", "numerical upper bound (FMT)", PALETTE[0], "solid"),
              ("lower", "numerical lower bound (FMT)", PALETTE[5], "dot"),
              ("closed_form", "closed form (FMT Thm 3.1, where valid)", PALETTE[1], "dash"),
              ("blanket_grr", "privacy blanket, GRR (Balle et al.)", PALETTE[2], "dashdot"))
    for col, name, colour, dash in series:
        if table[col].notna().any():
            fig.add_trace(go.Scatter(x=table["users"], y=table[col], mode="lines+markers", name=name,
                                     line={"color": colour, "dash": dash}))
    fig.add_trace(go.Scatter(x=table["users"], y=table["epsilon0"], mode="lines", name="local ε₀ (no shuffling)",
                             line={"color": PALETTE[7], "dash": "dot", "width": 1}))
    fig.update_layout(xaxis={"type": "log", "title": "users n (log scale)"},
                      yaxis={"type": "log", "title": "central ε (log scale)"}, font=FONT, legend=LEGEND,
                      margin={"t": 30})
    return fig, table


def audit_figure(result: Any) -> tuple[go.Figure, pd.DataFrame]:
    """The audit's lower bound next to the claimed ε and the exact channel's ε (where known).

    Parameters
    ----------
    result : ldp.privacy.audit.AuditResult
        The audit of one mechanism (:func:`ldp.privacy.audit.audit`); its ``epsilon``, ``channel_epsilon``,
        ``confidence`` and ``epsilon_lower_bound`` are drawn.

    Returns
    -------
    figure : plotly.graph_objects.Figure
        Horizontal bars of ε, labelled with their values: the claimed ε of one report (black), the exact channel's ε
        when the mechanism can compute it (green) and the audit's lower bound at its confidence (red). A lower bound
        above the claim means the implementation breaks its promise.
    table : pandas.DataFrame
        The plotted values: columns ``quantity`` (the bar's label) and ``epsilon``, two or three rows.
    """
    rows = [("claimed ε of one report", result.epsilon), ("audit: lower bound at "
                                                            f"{result.confidence:.0%} confidence",
                                                            result.epsilon_lower_bound)]
    if result.channel_epsilon is not None:
        rows.insert(1, ("exact channel's ε", result.channel_epsilon))
    table = pd.DataFrame(rows, columns=["quantity", "epsilon"])
    colours = [PALETTE[7], PALETTE[2], PALETTE[3]][: len(rows)] if len(rows) == 3 else [PALETTE[7], PALETTE[3]]
    fig = go.Figure(go.Bar(x=table["epsilon"], y=table["quantity"], orientation="h", marker_color=colours,
                           text=[f"{v:.3f}" for v in table["epsilon"]], textposition="auto"))
    fig.update_layout(xaxis={"title": "ε"}, font=FONT, margin={"t": 30}, height=260)
    return fig, table


def longitudinal_figure(result: Any) -> tuple[go.Figure, pd.DataFrame]:
    """The attacker's mean posterior on the true value vs rounds, fresh vs memoized, with the DP bounds.

    Parameters
    ----------
    result : ldp.privacy.longitudinal.LongitudinalResult
        The study of repeated reports (:func:`ldp.privacy.longitudinal.longitudinal_study`).

    Returns
    -------
    figure : plotly.graph_objects.Figure
        Rounds τ on a log x axis, the attacker's mean posterior on the true value on y (0 … 1.02): simulated lines for
        fresh reports (red) and memoized L-GRR (blue), their closed-form worst cases dotted in the same colours, and
        horizontal lines at the memoized τ → ∞ limit and at the prior's largest probability. A reader sees fresh
        reports give the value away as τ grows while memoization caps what the attacker learns.
    table : pandas.DataFrame
        ``result.rows()``: one row per τ with ``rounds`` and the result's per-round series (ε composed and memoized,
        posteriors, bounds, MAP accuracies).
    """
    table = pd.DataFrame(result.rows())
    fig = go.Figure()
    for col, name, colour, dash in (
            ("posterior_fresh", "fresh reports (simulated)", PALETTE[3], "solid"),
            ("posterior_memoized", "memoized L-GRR (simulated)", PALETTE[0], "solid"),
            ("bound_fresh", "worst case, τ·ε1 (closed form)", PALETTE[3], "dot"),
            ("bound_memoized", "worst case, min(τ·ε1, ε∞) (closed form)", PALETTE[0], "dot")):
        fig.add_trace(go.Scatter(x=table["rounds"], y=table[col], mode="lines+markers", name=name,
                                 line={"color": colour, "dash": dash}))
    fig.add_hline(y=result.memoized_limit, line={"color": PALETTE[0], "dash": "dash", "width": 1},
                  annotation_text="memoized, τ → ∞ (closed form)")
    fig.add_hline(y=result.prior_max, line={"color": PALETTE[7], "dash": "dot", "width": 1},
                  annotation_text="no report (prior)")
    fig.update_layout(xaxis={"type": "log", "title": "rounds τ (log scale)"},
                      yaxis={"title": "attacker's posterior on the true value", "range": [0, 1.02]}, font=FONT,
                      legend=LEGEND, margin={"t": 30})
    return fig, table


def poisoning_figure(curves: Sequence[dict[str, Any]], simulated: Sequence[Any] = ()) -> tuple[go.Figure, pd.DataFrame]:
    """Closed-form MGA gain vs β per mechanism (lines) and simulated gains (markers: MI and Norm-Sub).

    Parameters
    ----------
    curves : sequence of dict
        Closed-form rows ``{"mechanism", "beta", "expected_gain"}``, as from :func:`ldp.privacy.poisoning.gain_curves`.
    simulated : sequence of ldp.privacy.poisoning.PoisonResult, default ()
        Simulated attacks; each contributes one marker per estimator of its ``simulated_gain``.

    Returns
    -------
    figure : plotly.graph_objects.Figure
        The fraction of fake users β on x, the gain of the targets' estimated total frequency on y: one closed-form
        line per mechanism, and the simulated gains as markers of the mechanism's colour (circles for MI, crosses for
        the other estimators). Markers on their line confirm the closed form.
    table : pandas.DataFrame
        The rows of ``curves``, with one column per estimator of the simulated gains joined on ``mechanism`` and
        ``beta`` (NaN where not simulated) when ``simulated`` is not empty.

    References
    ----------
    Cao, Jia, Gong, "Data Poisoning Attacks to Local Differential Privacy Protocols", USENIX Security 2021 (the
    maximal gain attack, MGA).
    """
    table = pd.DataFrame(list(curves))
    fig = go.Figure()
    names = list(dict.fromkeys(table["mechanism"]))
    colours = {m: PALETTE[i % len(PALETTE)] for i, m in enumerate(names)}
    for m in names:
        part = table[table["mechanism"] == m]
        fig.add_trace(go.Scatter(x=part["beta"], y=part["expected_gain"], mode="lines", name=f"{m.upper()} closed form",
                                 line={"color": colours[m]}))
    sim_rows = []
    for r in simulated:
        for est, gain in r.simulated_gain.items():
            sim_rows.append({"mechanism": r.mechanism, "beta": r.beta, "estimator": est, "simulated_gain": gain})
    sim = pd.DataFrame(sim_rows)
    if not sim.empty:
        for (m, est), part in sim.groupby(["mechanism", "estimator"], sort=False):
            fig.add_trace(go.Scatter(x=part["beta"], y=part["simulated_gain"], mode="markers",
                                     name=f"{m.upper()} simulated, {est}",
                                     marker={"color": colours.get(m, PALETTE[7]),
                                             "symbol": "circle" if est == "mi" else "x", "size": 9}))
        table = table.merge(sim.pivot_table(index=["mechanism", "beta"], columns="estimator",
                                            values="simulated_gain").reset_index(), how="left",
                            on=["mechanism", "beta"])
    fig.update_layout(xaxis={"title": "fraction of fake users β"},
                      yaxis={"title": "gain of the targets' estimated frequency"}, font=FONT, legend=LEGEND,
                      margin={"t": 30})
    return fig, table
