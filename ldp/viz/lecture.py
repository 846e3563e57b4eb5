"""Pure figure builders for the Learn page (Plotly; no Streamlit import, so testable alone).

Every figure has a title, axis titles with units, the Okabe–Ito palette, the "plotly_white"
template and a 16 px base font; each builder has a companion table of the plotted values.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ldp.studies.lecture import laplace_densities
from ldp.viz.style import PALETTE

__all__ = ["DP_COLOURS", "FONT", "PROBABILITY_SCALE", "WARNER_PARTS", "bound_width_figure", "comparison_figure",
           "composition_figure", "dp_vs_ldp_figure", "heatmap_table", "k_of_q_figure", "laplace_figure",
           "laplace_points", "laplace_table", "probability_heatmap", "split_vs_partition_figure", "warner_bars",
           "warner_spread"]

FONT = {"size": 16}
BLUE, ORANGE, GREEN, VERMILION, PURPLE, SKY = PALETTE[:6]
# Sequential colour scale from white to the palette's blue (readable for colour-blind viewers).
PROBABILITY_SCALE = [[0.0, "#FFFFFF"], [0.5, SKY], [1.0, BLUE]]


def _layout(fig: go.Figure, title: str, x_title: str, y_title: str, height: int = 460) -> go.Figure:
    fig.update_layout(title={"text": title, "font": {"size": 18}}, xaxis_title=x_title, yaxis_title=y_title,
                      font=FONT, height=height, margin={"t": 70},
                      legend={"title": {"text": "series"}, "font": {"size": 14}, "traceorder": "normal"})
    fig.update_xaxes(tickfont={"size": 14}, title_font={"size": 16})
    fig.update_yaxes(tickfont={"size": 14}, title_font={"size": 16})
    return fig


# --------------------------------------------------------------------------- channel matrix
def probability_heatmap(matrix: np.ndarray, x_labels: Sequence[str], y_labels: Sequence[str], *, title: str,
                        x_title: str, y_title: str = "input value v", max_columns: int | None = None,
                        colorbar_title: str = "probability") -> go.Figure:
    """Heatmap of a probability matrix (rows = inputs). With ``max_columns``, only the first
    columns are drawn and the title says how many of how many are shown.

    Parameters
    ----------
    matrix : numpy.ndarray
        The probabilities, shape (inputs, outputs): row v holds Pr[y | v] (or any matrix of values in [0, ∞)).
    x_labels : sequence of str
        The outputs' labels (columns).
    y_labels : sequence of str
        The inputs' labels (rows).
    title : str
        The figure's title.
    x_title : str
        The x axis title.
    y_title : str, default "input value v"
        The y axis title.
    max_columns : int or None, default None
        Draw only the first ``max_columns`` outputs (the title then says "first c of m outputs"); None draws all.
    colorbar_title : str, default "probability"
        Title of the colour bar.

    Returns
    -------
    plotly.graph_objects.Figure
        Categorical axes, inputs top down and outputs across, colour from white (0) to blue (the matrix's largest
        entry); each cell's value printed when at most 100 cells are drawn. A reader compares a column's entries:
        LDP bounds their ratio by e^ε.

    References
    ----------
    The lecture (ldp-lecture-frequency-oracles-heavy-hitters-itemsets), "Properties of LDP": Pr[A(x) = y] ≤
    exp(ε) · Pr[A(x′) = y].
    """
    m = np.asarray(matrix, dtype=np.float64)
    cols = m.shape[1] if max_columns is None else min(m.shape[1], int(max_columns))
    if cols < m.shape[1]:
        title = f"{title} — first {cols} of {m.shape[1]} outputs"
    x = [str(s) for s in list(x_labels)[:cols]]
    fig = go.Figure(go.Heatmap(
        z=m[:, :cols], x=x, y=[str(s) for s in y_labels], colorscale=PROBABILITY_SCALE, zmin=0,
        zmax=float(m.max()) if m.size else 1.0,
        colorbar={"title": {"text": colorbar_title}},
        hovertemplate="input %{y}<br>output %{x}<br>probability %{z:.4g}<extra></extra>",
        texttemplate="%{z:.3f}" if cols * m.shape[0] <= 100 else None))
    fig.update_xaxes(type="category")
    fig.update_yaxes(type="category", autorange="reversed")
    return _layout(fig, title, x_title, y_title, height=max(320, 60 * m.shape[0] + 160))


def heatmap_table(matrix: np.ndarray, x_labels: Sequence[str], y_labels: Sequence[str],
                  max_columns: int | None = None) -> pd.DataFrame:
    """The values drawn by :func:`probability_heatmap` (rows = inputs, columns = outputs).

    Parameters
    ----------
    matrix : numpy.ndarray
        The probabilities, shape (inputs, outputs).
    x_labels, y_labels : sequence of str
        The outputs' (columns) and inputs' (rows) labels.
    max_columns : int or None, default None
        Keep only the first ``max_columns`` outputs, as the figure does; None keeps all.

    Returns
    -------
    pandas.DataFrame
        The matrix, indexed ``"v = <input>"``, one column per output kept.
    """
    m = np.asarray(matrix, dtype=np.float64)
    cols = m.shape[1] if max_columns is None else min(m.shape[1], int(max_columns))
    return pd.DataFrame(m[:, :cols], index=[f"v = {s}" for s in y_labels],
                        columns=[str(s) for s in list(x_labels)[:cols]])


def laplace_figure(epsilon: float, width: float | None = None) -> go.Figure:
    """SHE's per-coordinate densities: the user's own coordinate 1 + Lap(2/ε) and any other Lap(2/ε).

    Parameters
    ----------
    epsilon : float
        SHE's ε (> 0); each coordinate carries Laplace noise of scale 2/ε.
    width : float or None, default None
        Half-width of the drawn range around 0.5; None uses max(3, 5 · 2/ε) (see :func:`laplace_points`).

    Returns
    -------
    plotly.graph_objects.Figure
        x: the reported coordinate y_j; y: its probability density. A solid line for the user's own value's
        coordinate (1 + Lap(2/ε)) and a dashed one for any other (Lap(2/ε)): the two densities are never more than
        e^(ε/2) apart, which is why SHE is ε-LDP (two coordinates change between two inputs).

    References
    ----------
    The lecture (ldp-lecture-frequency-oracles-heavy-hitters-itemsets), "Laplacian (Gaussian)": Laplace noise on each
    bit of the unary vector, sensitivity 2; SHE's column of Table 1 (variance 8/ε²).
    """
    x, own, other = laplace_points(epsilon, width)
    fig = go.Figure()
    fig.add_scatter(x=x, y=own, mode="lines", name="own value's coordinate: 1 + Lap(2/ε)",
                    line={"color": BLUE, "width": 3})
    fig.add_scatter(x=x, y=other, mode="lines", name="other coordinate: Lap(2/ε)",
                    line={"color": ORANGE, "width": 3, "dash": "dash"})
    fig.update_layout(legend={"orientation": "h", "y": -0.25})
    return _layout(fig, f"SHE report density of one coordinate, ε = {epsilon:g} (ratio ≤ e^(ε/2) everywhere)",
                   "reported coordinate y_j (unitless)", "probability density (per unit of y_j)")


def laplace_points(epsilon: float, width: float | None = None, points: int = 401) -> tuple[np.ndarray, ...]:
    """The points :func:`laplace_figure` draws: a grid of y_j centred on 0.5 (halfway between the other and the own
    coordinate's centre) with both SHE densities on it (:func:`ldp.studies.lecture.laplace_densities`).

    Parameters
    ----------
    epsilon : float
        SHE's ε (> 0): the Laplace scale is b = 2/ε.
    width : float or None, default None
        Half-width of the grid around 0.5; None uses max(3, 5b), wide enough for the tails at any ε.
    points : int, default 401
        Number of grid points (evenly spaced, both ends included).

    Returns
    -------
    x : numpy.ndarray
        The grid, shape (points,).
    own : numpy.ndarray
        The density of the own value's coordinate 1 + Lap(b) at ``x``.
    other : numpy.ndarray
        The density of another coordinate Lap(b) at ``x``.
    """
    b = 2.0 / epsilon
    w = width if width is not None else max(3.0, 5 * b)
    x = np.linspace(0.5 - w, 0.5 + w, points)
    own, other = laplace_densities(epsilon, x)
    return x, own, other


def laplace_table(epsilon: float) -> pd.DataFrame:
    """The values behind :func:`laplace_figure`, on a coarser grid of 41 points.

    Parameters
    ----------
    epsilon : float
        SHE's ε (> 0).

    Returns
    -------
    pandas.DataFrame
        Columns ``y_j``, ``density, own value``, ``density, other value`` and ``ratio own / other`` (which lies in
        [e^(−ε/2), e^(ε/2)]), one row per point.
    """
    x, own, other = laplace_points(epsilon, points=41)
    return pd.DataFrame({"y_j": x, "density, own value": own, "density, other value": other,
                         "ratio own / other": own / other})


# --------------------------------------------------------------------------- Warner
WARNER_PARTS = (("→ yes (truthful)", BLUE, ""), ("→ yes (random)", SKY, "/"),
                ("→ no (truthful)", VERMILION, ""), ("→ no (random)", ORANGE, "/"))


def warner_bars(table: pd.DataFrame, *, title: str) -> go.Figure:
    """Stacked bars per true answer: truthful and coin-decided yes/no answers (the lecture's table).

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`ldp.studies.lecture.warner_expected_table` (or a simulated class's table of the same layout): indexed
        by the true answer (``yes``, ``no``), with ``people`` and the four parts of :data:`WARNER_PARTS`
        (``→ yes (truthful)``, ``→ yes (random)``, ``→ no (truthful)``, ``→ no (random)``).
    title : str
        The figure's title.

    Returns
    -------
    plotly.graph_objects.Figure
        One stacked bar per true answer (x), heights in people (y): solid parts for truthful answers, hatched parts
        for coin-decided ones. A reader sees that every "no" group still sends "yes" answers, so no answer gives a
        person away.

    References
    ----------
    The lecture (ldp-lecture-frequency-oracles-heavy-hitters-itemsets), "Random Response (Warner'65)" and its
    "Concrete Example" table (truth → yes / no).
    """
    groups = [f"truth: {idx} ({table.loc[idx, 'people']:g} people)" for idx in table.index]
    fig = go.Figure()
    for col, colour, pattern in WARNER_PARTS:
        fig.add_bar(x=groups, y=table[col].to_numpy(dtype=float), name=col.replace("→ ", "answers "),
                    marker={"color": colour, "pattern": {"shape": pattern}},
                    hovertemplate="%{x}<br>%{fullData.name}: %{y:.4g} people<extra></extra>")
    fig.update_layout(barmode="stack", legend={"orientation": "h", "y": -0.2})
    return _layout(fig, title, "true answer", "people (count)")


def warner_spread(estimates: np.ndarray, true_yes: int, sd: float, *, title: str, step: float | None = None,
                  bins: int = 40) -> go.Figure:
    """Histogram of the estimated number of true "yes" over repeated classes, with the truth and
    truth ± one theoretical standard deviation. ``step`` is the spacing of possible estimates
    (1/t for Warner's estimator): bins are whole multiples of it, so no bin is systematically empty.

    Parameters
    ----------
    estimates : numpy.ndarray
        The estimated number of true "yes" of each simulated class
        (:attr:`ldp.studies.lecture.WarnerSimulation.estimates`).
    true_yes : int
        The true number of "yes".
    sd : float
        The estimator's theoretical standard deviation (:func:`ldp.studies.lecture.warner_variance`, square-rooted).
    title : str
        The figure's title.
    step : float or None, default None
        The spacing of the possible estimates; bins are then whole multiples of it. None lets Plotly choose.
    bins : int, default 40
        About how many bins to use when ``step`` is given.

    Returns
    -------
    plotly.graph_objects.Figure
        A histogram of the estimates (x: estimated count, y: number of classes), a black line at the truth and dashed
        lines at truth ± σ: the estimates centre on the truth (unbiased) with about two thirds within ±σ.

    References
    ----------
    The lecture (ldp-lecture-frequency-oracles-heavy-hitters-itemsets), "Random Response (Warner'65)" and "(Simple)
    Proofs": E[c(n_v)] = n_v for c(n_v) = (I_v − 0.25n)/0.5.
    """
    est = np.asarray(estimates, dtype=np.float64)
    fig = go.Figure()
    xbins = None
    if step is not None and step > 0 and est.size:
        width = step * max(1, round((est.max() - est.min()) / bins / step))
        xbins = {"start": est.min() - width / 2, "end": est.max() + width / 2, "size": width}
    fig.add_histogram(x=est, name="estimates (one per class)", marker_color=BLUE, opacity=0.85, xbins=xbins)
    fig.add_vline(x=true_yes, line={"color": "#000000", "width": 3}, annotation_text=f"truth {true_yes}",
                  annotation_position="top left")
    for sign in (-1, 1):
        fig.add_vline(x=true_yes + sign * sd, line={"color": VERMILION, "width": 2, "dash": "dash"})
    fig.add_annotation(x=true_yes + sd, y=1, yref="paper", text="±1 σ (theory)", showarrow=False, xanchor="left",
                       yanchor="bottom")
    return _layout(fig, title, "estimated number of people with 'yes' (count)", "classes (count)")


# --------------------------------------------------------------------------- comparison table
def comparison_figure(table: pd.DataFrame, *, title: str) -> go.Figure:
    """Dot plot of Var[c̃(i)]/n per mechanism (log scale): our implementation as circles, the
    lecture's closed form as diamonds; the best mechanism is a large green star.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`ldp.studies.lecture.comparison_table`: columns ``mechanism``, ``ours: approximate_variance(1)``,
        ``lecture value`` and ``best`` (bool).
    title : str
        The figure's title.

    Returns
    -------
    plotly.graph_objects.Figure
        One row per mechanism (categorical y, in the table's order), Var[c̃(i)]/n on a log x axis: orange diamonds
        for the lecture's closed form, blue circles for this implementation's variance and a green star on the lowest.
        Circles on their diamonds confirm the implementation against the lecture.

    References
    ----------
    The lecture (ldp-lecture-frequency-oracles-heavy-hitters-itemsets), Table 1 (variances of DE, SHE, THE, SUE, OUE,
    BLH, OLH).
    """
    names = table["mechanism"].tolist()
    ours = table["ours: approximate_variance(1)"].to_numpy(dtype=float)
    lecture = table["lecture value"].to_numpy(dtype=float)
    best = table["best"].to_numpy(dtype=bool)
    fig = go.Figure()
    fig.add_scatter(y=names, x=lecture, mode="markers", name="lecture closed form",
                    marker={"color": ORANGE, "symbol": "diamond", "size": 13, "line": {"color": "#000000", "width": 1}},
                    hovertemplate="%{y}: %{x:.4g}<extra>lecture</extra>")
    fig.add_scatter(y=names, x=ours, mode="markers", name="our implementation",
                    marker={"color": BLUE, "symbol": "circle", "size": 11},
                    hovertemplate="%{y}: %{x:.4g}<extra>ours</extra>")
    fig.add_scatter(y=[n for n, b in zip(names, best, strict=True) if b], x=ours[best], mode="markers",
                    name="lowest variance", marker={"color": GREEN, "symbol": "star", "size": 22,
                                                    "line": {"color": "#000000", "width": 1}},
                    hovertemplate="%{y}: %{x:.4g}<extra>best</extra>")
    fig.update_xaxes(type="log", showgrid=True)
    fig.update_yaxes(autorange="reversed", type="category", showgrid=True)
    fig.update_layout(legend={"orientation": "h", "y": -0.25})
    return _layout(fig, title, "Var[c̃(i)]/n = n·Var[f̂(i)] (unitless, log scale; lower is better)", "mechanism",
                   height=520)


# --------------------------------------------------------------------------- Q questions
def split_vs_partition_figure(curves: pd.DataFrame, *, epsilon: float, questions: int, n: int) -> go.Figure:
    """Per-question variance vs ε for the two strategies (log–log), with the chosen ε marked.

    Parameters
    ----------
    curves : pandas.DataFrame
        :func:`ldp.studies.lecture.split_vs_partition_curves`: columns ``epsilon``, ``split the budget`` and
        ``partition users`` (the variance of one question's frequency).
    epsilon : float
        The chosen total ε, marked by a dotted vertical line.
    questions : int
        Q, the number of questions.
    n : int
        The number of users, for the title.

    Returns
    -------
    plotly.graph_objects.Figure
        Log–log: total ε per user on x, the variance per question on y; a solid line for splitting the budget (ε/Q
        per answer) and a dashed one for partitioning the users (n/Q per question at full ε). Partitioning stays
        below splitting.

    References
    ----------
    The lecture (ldp-lecture-frequency-oracles-heavy-hitters-itemsets), "On answering multiple questions": OLH's
    Var = 4e^ε / (n(e^ε − 1)²) with ε/2 each against n/2 users each.
    """
    fig = go.Figure()
    fig.add_scatter(x=curves["epsilon"], y=curves["split the budget"], mode="lines",
                    name=f"split the budget (ε/{questions} each)", line={"color": VERMILION, "width": 3})
    fig.add_scatter(x=curves["epsilon"], y=curves["partition users"], mode="lines",
                    name=f"partition users (n/{questions} each, full ε)",
                    line={"color": BLUE, "width": 3, "dash": "dash"})
    fig.add_vline(x=epsilon, line={"color": "#666666", "width": 1, "dash": "dot"}, annotation_text=f"ε = {epsilon:g}")
    ticks = [t for t in (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50)
             if curves["epsilon"].min() <= t <= curves["epsilon"].max()]
    fig.update_xaxes(type="log", tickvals=ticks, ticktext=[f"{t:g}" for t in ticks])
    fig.update_yaxes(type="log", exponentformat="power")
    fig.update_layout(legend={"orientation": "h", "y": -0.25})
    return _layout(fig, f"Answering Q = {questions} questions with OLH, n = {n:,} users: variance per question",
                   "total privacy budget ε per user (log scale)", "Var[f̂(v)] per question (log scale)")


def k_of_q_figure(table: pd.DataFrame, *, epsilon: float, questions: int, n: int) -> go.Figure:
    """Per-question variance against K (each user answers K of the Q questions at ε/K): the lecture's formula and
    the exact variance with the answerers' sampling, the best K marked (log y).

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`ldp.studies.lecture.k_of_q_table`: columns ``K``, ``lecture formula``, ``closed form (our OLH, f =
        1/d)`` and ``vs best K``.
    epsilon : float
        The total ε per user (each of the K answers gets ε/K), for the title.
    questions, n : int
        Q, the number of questions, and n, the number of users (both shown in the title).

    Returns
    -------
    plotly.graph_objects.Figure
        K = 1 … Q on x, the variance per question on a log y axis: the lecture's formula (dashed, ignoring that
        the answerers are a sample), the exact variance with that sampling (solid) and a star at the best K.

    References
    ----------
    The lecture (ldp-lecture-frequency-oracles-heavy-hitters-itemsets), "On answering multiple questions" (K > 1
    questions), as :func:`ldp.studies.lecture.k_of_q_variance` reads it: Var = (Q/K)·4e^(ε/K) / (n(e^(ε/K) − 1)²).
    """
    fig = go.Figure()
    fig.add_scatter(x=table["K"], y=table["lecture formula"], mode="lines+markers",
                    name="lecture's formula (sampling of answerers ignored)", line={"color": BLUE, "width": 3,
                                                                                    "dash": "dash"})
    fig.add_scatter(x=table["K"], y=table["closed form (our OLH, f = 1/d)"], mode="lines+markers",
                    name="exact (OLH noise + sampling of answerers)", line={"color": VERMILION, "width": 3})
    best = table.loc[table["vs best K"].idxmin()]
    fig.add_scatter(x=[best["K"]], y=[best["closed form (our OLH, f = 1/d)"]], mode="markers",
                    name=f"best K = {int(best['K'])}", marker={"size": 16, "color": GREEN, "symbol": "star"})
    fig.update_yaxes(type="log")
    fig.update_xaxes(tickvals=list(table["K"]), ticktext=[str(k) for k in table["K"]])
    fig.update_layout(legend={"orientation": "h", "y": -0.25})
    return _layout(fig, f"Each user answers K of Q = {questions} questions at ε/K (ε = {epsilon:g}, n = {n:,})",
                   "K: questions each user answers (1 = partition users, Q = split the budget)",
                   "Var[f̂(v)] per question (log scale)")


# --------------------------------------------------------------------------- sequential composition
def composition_figure(table: pd.DataFrame, *, epsilon: float, d: int) -> go.Figure:
    """The Bayes attacker's success at guessing a uniform value against the number of GRR reports k (each at ε),
    against one report at kε (which attains the kε-LDP ceiling), one report at ε, and no report (1/d).

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`ldp.studies.lecture.composition_table`: columns ``reports k``, ``attacker: one report at kε``,
        ``attacker: k reports at ε``, ``attacker: one report at ε`` and ``no report (1/d)``.
    epsilon : float
        ε of each report, for the title.
    d : int
        GRR's domain size, for the title.

    Returns
    -------
    plotly.graph_objects.Figure
        Reports k on x, the Bayes attacker's probability of guessing a uniformly drawn value on y (0 … 1.02): one
        report at kε (the kε-LDP ceiling), k reports at ε, one report at ε (dashed) and the no-report guess 1/d
        (dotted). k reports climb towards the ceiling but never above it: sequential composition's budget kε holds.

    References
    ----------
    The lecture (ldp-lecture-frequency-oracles-heavy-hitters-itemsets), "Properties of LDP": sequential composition,
    k algorithms with ε_i each satisfy Σ ε_i-LDP.
    """
    k = table["reports k"]
    fig = go.Figure()
    fig.add_scatter(x=k, y=table["attacker: one report at kε"], mode="lines+markers",
                    name="one report at kε (= the kε-LDP ceiling)", line={"color": VERMILION, "width": 3})
    fig.add_scatter(x=k, y=table["attacker: k reports at ε"], mode="lines+markers", name="k reports at ε each",
                    line={"color": BLUE, "width": 3}, marker={"symbol": "square", "size": 10})
    fig.add_scatter(x=k, y=table["attacker: one report at ε"], mode="lines", name="one report at ε",
                    line={"color": GREEN, "width": 2, "dash": "dash"})
    fig.add_scatter(x=k, y=table["no report (1/d)"], mode="lines", name="no report: guess (1/d)",
                    line={"color": "#666666", "width": 2, "dash": "dot"})
    fig.update_xaxes(tickvals=list(k), ticktext=[str(int(x)) for x in k])
    fig.update_yaxes(range=[0, 1.02])
    fig.update_layout(legend={"orientation": "h", "y": -0.25})
    return _layout(fig, f"GRR, d = {d}, ε = {epsilon:g}: the attacker's best guess after k reports",
                   "reports k (budget spent kε)", "Pr[attacker guesses the value] (uniform prior)")


# --------------------------------------------------------------------------- central DP vs LDP
DP_COLOURS = (BLUE, ORANGE, GREEN, PURPLE, SKY)  # the LDP mechanisms; central DP is black


def dp_vs_ldp_figure(curves: pd.DataFrame, simulated: pd.DataFrame | None = None, *, epsilon: float) -> go.Figure:
    """σ of a count against n (log–log): central Laplace flat, each LDP mechanism a line of slope ½; simulated σ
    (if given) as open markers on the same colours.

    Parameters
    ----------
    curves : pandas.DataFrame
        :func:`ldp.studies.lecture.dp_vs_ldp_curves`: long table with columns ``n``, ``method`` (names starting
        "central" are central DP) and ``σ of the count``.
    simulated : pandas.DataFrame or None, default None
        Simulated points with columns ``n``, ``method`` and ``simulated σ``; None draws none.
    epsilon : float
        ε, for the title.

    Returns
    -------
    plotly.graph_objects.Figure
        Log–log: users n on x, the standard deviation of a released count on y. Central Laplace is a flat black
        line, each LDP mechanism a dashed coloured line of slope ½, simulated σ open circles in the line's colour:
        the local noise grows as √n while the central noise does not.

    References
    ----------
    The lecture (ldp-lecture-frequency-oracles-heavy-hitters-itemsets), "Properties of (Centralized) DP" and the
    Laplace slide ("equivalent to the centralized setting, but the number of records is only 1").
    """
    fig = go.Figure()
    methods = list(dict.fromkeys(curves["method"]))
    local = [m for m in methods if not m.startswith("central")]
    colours = {m: DP_COLOURS[local.index(m) % len(DP_COLOURS)] if m in local else "#000000" for m in methods}
    for m in methods:
        part = curves[curves["method"] == m]
        fig.add_scatter(x=part["n"], y=part["σ of the count"], mode="lines", name=m,
                        line={"color": colours[m], "width": 3, "dash": "dash" if m in local else "solid"})
    if simulated is not None and len(simulated):
        for i, m in enumerate(methods):  # one legend entry for all the simulated markers, each in its line's colour
            part = simulated[simulated["method"] == m]
            fig.add_scatter(x=part["n"], y=part["simulated σ"], mode="markers", name="simulated (open circles)",
                            legendgroup="simulated", showlegend=i == 0,
                            hovertemplate=f"{m}<br>n = %{{x:,}}<br>simulated σ = %{{y:.4g}}<extra></extra>",
                            marker={"color": colours[m], "size": 13, "symbol": "circle-open", "line": {"width": 3}})
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log")
    fig.update_layout(legend={"orientation": "h", "y": -0.25})
    return _layout(fig, f"Noise on a count, ε = {epsilon:g}: central DP Θ(1) against LDP Θ(√n)",
                   "users n (log scale)", "σ of the released count (people, log scale)", height=520)


# --------------------------------------------------------------------------- Hoeffding / Bernstein
def bound_width_figure(table: pd.DataFrame, *, epsilon: float, mechanism: str) -> go.Figure:
    """Width of a 95 % interval for one frequency against n (log–log) at one ε: Hoeffding, Bernstein and ours.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`ldp.studies.lecture.bound_widths`: columns ``ε``, ``n``, ``Hoeffding``, ``Bernstein`` and ``our
        interval`` (widths of a 95 % interval of one frequency); only the rows at ``epsilon`` are drawn.
    epsilon : float
        The ε whose rows are drawn.
    mechanism : str
        The mechanism's name as shown in the title (e.g. "GRR, d = 8").

    Returns
    -------
    plotly.graph_objects.Figure
        Log–log: users n on x, interval width on y, one line each for Hoeffding (dashed), Bernstein (dash-dot) and the
        project's interval (solid). A reader sees how much wider the textbook bounds are.

    References
    ----------
    The lecture (ldp-lecture-frequency-oracles-heavy-hitters-itemsets), "Probabilistic Analysis": bound the error
    with Bernstein or Hoeffding inequalities.
    """
    part = table[table["ε"] == float(epsilon)]
    fig = go.Figure()
    for col, colour, dash in (("Hoeffding", VERMILION, "dash"), ("Bernstein", GREEN, "dashdot"),
                              ("our interval", BLUE, "solid")):
        fig.add_scatter(x=part["n"], y=part[col], mode="lines+markers", name=col,
                        line={"color": colour, "width": 3, "dash": dash})
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log")
    fig.update_layout(legend={"orientation": "h", "y": -0.25})
    return _layout(fig, f"{mechanism}, ε = {epsilon:g}: width of a 95 % interval for one frequency",
                   "users n (log scale)", "interval width (frequency, log scale)")
