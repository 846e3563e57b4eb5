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
    frequency of that prefix among all users (``values``: every user's value)."""
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
    limit (3σ of a rare candidate) as a dashed line and PEM's survival threshold (when one is set) as a dotted one."""
    r = result.rounds[index]
    shown = table.head(SHOWN)
    colours = [PALETTE[0] if s else "#9aa0a6" for s in shown["survived"]]
    fig = go.Figure()
    fig.add_bar(x=shown["prefix"], y=shown["estimate"], marker_color=colours, name="estimate (blue: kept)")
    fig.add_scatter(x=shown["prefix"], y=shown["true frequency"], mode="markers", name="true frequency",
                    marker={"color": PALETTE[3], "size": 9, "symbol": "diamond"})
    fig.add_hline(y=r.detection_limit, line={"dash": "dash", "color": "#444"},
                  annotation_text=f"detection limit {r.detection_limit:.3g}")
    if threshold is not None and index < len(result.rounds) - 1:
        fig.add_hline(y=threshold, line={"dash": "dot", "color": PALETTE[3]},
                      annotation_text=f"threshold {threshold:g}", annotation_position="bottom right")
    last = index == len(result.rounds) - 1
    fig.update_layout(title=f"Round {index + 1} of {len(result.rounds)}: prefixes of {r.length} bits, "
                            f"{r.users:,} users, {r.candidates.size:,} candidates" + (" (the answer)" if last else ""),
                      xaxis_title=f"candidate prefix (highest {min(SHOWN, len(table))} estimates)",
                      yaxis_title="estimated frequency", xaxis={"type": "category", "tickangle": -60})
    return fig


def precision_figure(table: pd.DataFrame, axis: str = "epsilon") -> go.Figure:
    """Precision (solid) and NCR (dotted) of each method against ε or the number of users (``axis="users"``)."""
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
    not the protocol's bits (those are in :func:`found_table`)."""
    shown = [str(int(v)) for v in values]
    if not shown:
        return ""
    plural = what + ("s" if len(shown) > 1 else "")
    listed = shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]
    return f"{plural} {listed}"


def found_table(run: HeavyHitterRun, what: str = "value") -> pd.DataFrame:
    """The found values (best first) — decoded (``what``: "flight" names the column "flight"), with the bits the
    protocol found as detail — their estimates and whether each is in the true top k (a simulation's privilege)."""
    truth = set(run.true_values.tolist())
    bits = run.result.bits
    values = run.result.values
    return pd.DataFrame({"rank": np.arange(1, values.size + 1), what: values,
                         f"bits ({bits})": [format(int(v), f"0{bits}b") for v in values.tolist()],
                         "estimate": run.result.estimates,
                         "in the true top k": [int(v) in truth for v in values.tolist()]})
