"""Figures of the heavy-hitter protocols: one round's candidates (estimates, survivors, the true prefix frequencies
a simulation knows, the detection limit) and precision / NCR against ε."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ldp.core.registry import PROTOCOLS
from ldp.mechanisms.heavy_hitters import HeavyHitterResult
from ldp.studies.heavy_hitters import HeavyHitterRun
from ldp.viz.style import PALETTE, paired_lines

__all__ = ["found_table", "precision_figure", "round_figure", "round_table", "value_names"]

#: Candidates drawn per round (the highest estimates); the rest are in the table.
SHOWN = 48


def round_table(result: HeavyHitterResult, index: int, values: np.ndarray) -> pd.DataFrame:
    """Round ``index``'s candidates, highest estimate first: prefix (binary), estimate, survived, and the true
    frequency of that prefix among all users (``values``: every user's value).

    Parameters
    ----------
    result : ldp.mechanisms.heavy_hitters.HeavyHitterResult
        A heavy-hitter protocol's answer with its rounds.
    index : int
        The round, 0-based (``0 … len(result.rounds) − 1``).
    values : numpy.ndarray of uint64
        Every user's value (``result.bits`` bits), used only for the true prefix frequencies.

    Returns
    -------
    pandas.DataFrame
        One row per candidate of the round, by estimate descending (ties by candidate): ``prefix`` (the candidate's
        ``length`` bits as a 0/1 string), ``value of the prefix`` (uint64), ``estimate``, ``true frequency`` (share of
        all users whose value starts with the prefix; 0 when none) and ``survived`` (bool: kept for the next round or
        the answer).
    """
    r = result.rounds[index]
    order = np.lexsort((r.candidates, -r.estimates))
    cands = r.candidates[order]
    prefixes = values >> np.uint64(result.bits - r.length) if r.length < result.bits else values
    uniq, counts = np.unique(prefixes, return_counts=True)
    truth = dict(zip(uniq.tolist(), (counts / values.size).tolist(), strict=True))
    kept = np.zeros(r.candidates.size, dtype=bool)
    kept[r.survivors] = True
    return pd.DataFrame({"prefix": [format(int(c), f"0{r.length}b") for c in cands],
                         "value of the prefix": cands.astype(np.uint64), "estimate": r.estimates[order],
                         "true frequency": [truth.get(int(c), 0.0) for c in cands], "survived": kept[order]})


def round_figure(result: HeavyHitterResult, index: int, table: pd.DataFrame, threshold: float | None = None
                 ) -> go.Figure:
    """The round's highest candidates as bars (survivors coloured), true frequencies as markers, the detection
    limit (3σ of a rare candidate) as a dashed line and PEM's survival threshold (when one is set) as a dotted one.

    Parameters
    ----------
    result : ldp.mechanisms.heavy_hitters.HeavyHitterResult
        A heavy-hitter protocol's answer with its rounds.
    index : int
        The round drawn, 0-based.
    table : pandas.DataFrame
        :func:`round_table` of the same round; its first :data:`SHOWN` rows are drawn.
    threshold : float or None, default None
        PEM's survival threshold on the estimated frequency, drawn on every round but the last; None draws none.

    Returns
    -------
    plotly.graph_objects.Figure
        Categorical x axis of candidate prefixes (highest estimates first), y the estimated frequency: bars (blue when
        the candidate survived, grey otherwise), red diamonds at the true frequencies, a dashed line at the round's
        detection limit (3σ) and a dotted one at the threshold. A reader sees which true heavy prefixes rise above the
        noise and which survivors are noise.

    References
    ----------
    The lecture (ldp-lecture-frequency-oracles-heavy-hitters-itemsets), "Prefix Extending Method" and "Comparison"
    (PEM: Wang, Li, Jha, "Locally Differentially Private Heavy Hitter Identification").
    """
    r = result.rounds[index]
    shown = table.head(SHOWN)
    colours = [PALETTE[0] if s else "#9aa0a6" for s in shown["survived"]]
    data = [{"type": "bar", "x": shown["prefix"], "y": shown["estimate"], "marker": {"color": colours},
             "name": "estimate (blue: kept)"},
            {"type": "scatter", "x": shown["prefix"], "y": shown["true frequency"], "mode": "markers",
             "name": "true frequency", "marker": {"color": PALETTE[3], "size": 9, "symbol": "diamond"}}]
    # the lines and labels fig.add_hline draws (label top right, or bottom right), declared with the figure: one
    # validation instead of one per call (the page draws this figure on every change of ε)
    lines = [(r.detection_limit, {"dash": "dash", "color": "#444"}, f"detection limit {r.detection_limit:.3g}",
              "bottom")]
    if threshold is not None and index < len(result.rounds) - 1:
        lines.append((threshold, {"dash": "dot", "color": PALETTE[3]}, f"threshold {threshold:g}", "top"))
    shapes = [{"type": "line", "x0": 0, "x1": 1, "xref": "x domain", "y0": y, "y1": y, "yref": "y", "line": line}
              for y, line, _, _ in lines]
    labels = [{"showarrow": False, "text": text, "x": 1, "xanchor": "right", "xref": "x domain", "y": y,
               "yanchor": anchor, "yref": "y"} for y, _, text, anchor in lines]
    last = index == len(result.rounds) - 1
    return go.Figure(data=data, layout={
        "title": {"text": f"Round {index + 1} of {len(result.rounds)}: prefixes of {r.length} bits, {r.users:,} "
                          f"users, {r.candidates.size:,} candidates" + (" (the answer)" if last else "")},
        "xaxis": {"title": {"text": f"candidate prefix (highest {min(SHOWN, len(table))} estimates)"},
                  "type": "category", "tickangle": -60},
        "yaxis": {"title": {"text": "estimated frequency"}}, "shapes": shapes, "annotations": labels})


def precision_figure(table: pd.DataFrame, axis: str = "epsilon") -> go.Figure:
    """Precision (solid) and NCR (dotted) of each method against ε or the number of users (``axis="users"``).

    Parameters
    ----------
    table : pandas.DataFrame
        Scores per method and setting, as from :func:`ldp.studies.heavy_hitters.precision_against_epsilon` or
        :func:`ldp.studies.heavy_hitters.precision_against_users`: columns ``method`` (a registered protocol's name,
        shown by its display name; other names are shown as they are), ``precision``, ``ncr`` and the ``axis`` column.
    axis : str, default "epsilon"
        The x column: ``"epsilon"`` or ``"users"``.

    Returns
    -------
    plotly.graph_objects.Figure
        Log x axis (ε or n), y the share of the true top k in [0, 1.05]: per method one colour, precision solid and
        NCR (the rank-weighted share of the true top k found) dotted, from :func:`ldp.viz.style.paired_lines`.

    References
    ----------
    NCR: Wang, Li, Jha, "Locally Differentially Private Heavy Hitter Identification", IEEE TDSC 2021 (cited in the
    lecture); the scores are computed by :func:`ldp.evaluation.heavy_hitters.heavy_hitter_scores`.
    """
    name = "ε" if axis == "epsilon" else "users n"
    table = table.assign(method=[PROTOCOLS.get(m).display_name if m in PROTOCOLS else m
                                 for m in table["method"]])  # the legend names methods as the page does
    fig = paired_lines(table, "method", axis, ("precision", "ncr"),
                       title=f"Heavy hitters found against {name} (precision solid, NCR dotted)",
                       x_title=f"{name} (log scale)", y_title="share of the true top k")
    fig.update_xaxes(type="log")
    fig.update_yaxes(range=[0, 1.05])
    return fig


def value_names(values: np.ndarray | list[int], what: str = "value") -> str:
    """Values as people read them in a sentence — the decoded number (``what`` = "flight": "flights 1545 and 4"),
    not the protocol's bits (those are in :func:`found_table`).

    Parameters
    ----------
    values : numpy.ndarray or list of int
        The decoded values, in the order to list them.
    what : str, default "value"
        The noun for one value; an "s" is appended for several.

    Returns
    -------
    str
        E.g. ``"flights 1545 and 4"`` or ``"value 7"``; "" when ``values`` is empty.
    """
    shown = [str(int(v)) for v in values]
    if not shown:
        return ""
    plural = what + ("s" if len(shown) > 1 else "")
    listed = shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]
    return f"{plural} {listed}"


def found_table(run: HeavyHitterRun, what: str = "value") -> pd.DataFrame:
    """The found values (best first) — decoded (``what``: "flight" names the column "flight"), with the bits the
    protocol found as detail — their estimates and whether each is in the true top k (a simulation's privilege).

    Parameters
    ----------
    run : ldp.studies.heavy_hitters.HeavyHitterRun
        A protocol's answer with the population's true top k.
    what : str, default "value"
        The name of the decoded-value column.

    Returns
    -------
    pandas.DataFrame
        One row per found value, best first: ``rank`` (1, 2, …), ``<what>`` (the value), ``bits (<b>)`` (the value as
        a b-bit 0/1 string), ``estimate`` (estimated frequency) and ``in the true top k`` (bool).
    """
    truth = set(run.true_values.tolist())
    bits = run.result.bits
    values = run.result.values
    return pd.DataFrame({"rank": np.arange(1, values.size + 1), what: values,
                         f"bits ({bits})": [format(int(v), f"0{bits}b") for v in values.tolist()],
                         "estimate": run.result.estimates,
                         "in the true top k": [int(v) in truth for v in values.tolist()]})
