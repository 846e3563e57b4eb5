"""Figures of frequent-item mining: the found items against the truth, and PSFO's two error sources against ℓ."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from ldp.studies.itemsets import ItemsetResult
from ldp.viz.style import PALETTE, plain_text

__all__ = ["found_items_figure", "found_items_table", "padding_figure"]


def found_items_table(res: ItemsetResult) -> pd.DataFrame:
    """Found items or itemsets (best first) with their estimates and whether each is in the true top k.

    Parameters
    ----------
    res : ldp.studies.itemsets.ItemsetResult
        A mining result: the found items (best first) with their estimates, and the true top k.

    Returns
    -------
    pandas.DataFrame
        One row per found item or itemset, best first, with columns ``rank`` (1, 2, …), ``items`` (the item names
        joined by " + "), ``estimate`` (estimated share of users) and ``in the true top k`` (bool).
    """
    truth = set(res.true_items)
    return pd.DataFrame({"rank": range(1, len(res.items) + 1), "items": [" + ".join(i) for i in res.items],
                         "estimate": res.estimates, "in the true top k": [i in truth for i in res.items]})


def found_items_figure(res: ItemsetResult, method_name: str | None = None) -> go.Figure:
    """The true top k (bars) beside the estimates of the found ones (markers), by name; ``method_name``: the
    method as people read it (default: its registry name in capitals).

    Parameters
    ----------
    res : ldp.studies.itemsets.ItemsetResult
        A mining result: the found items (best first) with their estimates, and the true top k with their shares.
    method_name : str or None, default None
        The method's name as shown in the legend and title; None uses ``res.method`` in capitals.

    Returns
    -------
    plotly.graph_objects.Figure
        Categorical x axis of item (or itemset) names, y the share of users: grey bars for the true top k, blue
        diamonds for the found ones' estimates. A found name outside the true top k appears as a diamond without a bar,
        a missed one as a bar without a diamond.
    """
    method = method_name or res.method.upper()
    true_names = [plain_text(" + ".join(i)) for i in res.true_items]
    found_names = [plain_text(" + ".join(i)) for i in res.items]
    fig = go.Figure()
    fig.add_bar(x=true_names, y=res.true_frequencies, name="true top k (share of users)", marker_color="#9aa0a6")
    fig.add_scatter(x=found_names, y=res.estimates, mode="markers", name=f"found by {method} (estimate)",
                    marker={"color": PALETTE[0], "size": 12, "symbol": "diamond"})
    fig.update_layout(title=f"{method} at ε = {res.epsilon:g}: found vs the true top {len(res.true_items)}",
                      xaxis_title="item" if all(len(i) == 1 for i in res.items) else "itemset",
                      yaxis_title="share of users", xaxis={"type": "category"})
    return fig


def padding_figure(table: pd.DataFrame) -> go.Figure:
    """Squared under-estimation, oracle variance and their sum (MSE) against ℓ (log y), the best ℓ marked.

    Parameters
    ----------
    table : pandas.DataFrame
        The table of :func:`ldp.studies.itemsets.padding_tradeoff`: columns ``ℓ``, ``squared under-estimation``,
        ``oracle variance`` and ``MSE`` (their sum), one row per padding length.

    Returns
    -------
    plotly.graph_objects.Figure
        Three lines against ℓ on a log y axis — squared under-estimation (dashed, falling), the oracle's variance
        (dotted, rising) and the MSE (solid) — with a star at the ℓ of least MSE: the reader sees the two error
        sources cross and where padding is best.

    References
    ----------
    The lecture (ldp-lecture-frequency-oracles-heavy-hitters-itemsets), "Pad and Sample Frequency Oracle" and
    "Sources of error" (FO variance grows with ℓ quadratically, under-estimation falls as ℓ grows).
    """
    fig = go.Figure()
    for column, colour, dash in (("squared under-estimation", PALETTE[3], "dash"),
                                 ("oracle variance", PALETTE[0], "dot"), ("MSE", "#222222", "solid")):
        fig.add_scatter(x=table["ℓ"], y=table[column], mode="lines+markers", name=column,
                        line={"color": colour, "width": 3, "dash": dash})
    best = table.loc[table["MSE"].idxmin()]
    fig.add_scatter(x=[best["ℓ"]], y=[best["MSE"]], mode="markers", name=f"best ℓ = {int(best['ℓ'])}",
                    marker={"size": 16, "color": PALETTE[2], "symbol": "star"})
    fig.update_yaxes(type="log")
    fig.update_layout(title="Padding length ℓ: under-estimation falls, the oracle's variance grows (lecture)",
                      xaxis_title="ℓ (padding length)", yaxis_title="per-item error, top k (log scale)")
    return fig
