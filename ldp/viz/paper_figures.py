"""The seed papers' headline figures, redrawn (pure Plotly) from the tables of :mod:`ldp.studies.paper_figures`;
the "Reproduce the papers" page shows them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from ldp.estimators import ESTIMATORS
from ldp.mechanisms import MECHANISMS
from ldp.studies.figures import ReproducibleFigure, Setting
from ldp.viz.style import PALETTE, paired_lines

__all__ = ["b_figure", "convergence_figure", "draw", "gain_by_mechanism_figure", "gain_figure", "gain_trend_figure",
           "granularity_figure", "methods_figure", "n_prime_figure", "postprocessor_figure", "set_query_figure",
           "spectrum_figure", "shapes_b_figure", "shapes_figure", "top_k_figure", "wiener_figure"]

def readable(name: object) -> str:
    """A legend's name as people read it: a registered mechanism's or estimator's display name ("GRR (k-RR)",
    "Norm-Sub"), anything else as it is.

    Parameters
    ----------
    name : object
        A legend entry: a mechanism's or estimator's registry name, or any other value.

    Returns
    -------
    str
        The registered display name, or ``str(name)``.
    """
    text = str(name)
    for registry in (MECHANISMS, ESTIMATORS):
        if text in registry:
            return registry.get(text).display_name
    return text


LAYOUT = {"font": {"size": 16}, "height": 440, "hoverlabel": {"font_size": 14}}


def gain_figure(table: pd.DataFrame) -> go.Figure:
    """Γ (%) against ε per mechanism: the converged MLE (solid) and the paper's plain 10⁴ iterations (dashed).

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`ldp.studies.paper_figures.ibu_gain_table`: per mechanism and ε, columns ``mechanism``, ``epsilon``,
        ``Γ IBU limit (%)`` and ``Γ plain Eq. (3), 10⁴ iterations (%)``.

    Returns
    -------
    plotly.graph_objects.Figure
        ε on x, Γ (%) on y; per mechanism one colour, the converged MLE solid and the paper's plain 10⁴ iterations
        dashed. A reader sees where IBU gains over the baseline, and how far the plain iterations are from the limit.

    References
    ----------
    Arcolezi, Cerna, Palamidessi, "On the Utility Gain of Iterative Bayesian Update for Locally Differentially
    Private Mechanisms" (DBSec 2023): Γ of Eq. (1), the update of Eq. (3), Table 2.
    """
    fig = go.Figure()
    for i, (name, part) in enumerate(table.groupby("mechanism", sort=False)):
        colour = PALETTE[i % len(PALETTE)]
        fig.add_scatter(x=part["epsilon"], y=part["Γ IBU limit (%)"], mode="lines+markers",
                        name=f"{readable(name)} · MLE",
                        line={"color": colour, "width": 3})
        fig.add_scatter(x=part["epsilon"], y=part["Γ plain Eq. (3), 10⁴ iterations (%)"], mode="lines+markers",
                        name=f"{readable(name)} · plain Eq. (3)", line={"color": colour, "width": 2, "dash": "dash"})
    fig.update_layout(title="Utility gain Γ of IBU over the baseline (IBU paper Table 2)", xaxis_title="ε",
                      yaxis_title="Γ (%)", **LAYOUT)
    return fig


def b_figure(table: pd.DataFrame, epsilon: float) -> go.Figure:
    """Both errors against b / b_MI (log x), the paper's choice at 1.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`ldp.studies.paper_figures.b_sweep`: columns ``b / b_MI``, ``Wasserstein`` and ``range-query MAE (α =
        0.1)``, and optionally ``outputs' W1, Lemma 1 (Δ = ½)`` and ``outputs' W1, simulated (Δ = ½)``.
    epsilon : float
        The sweep's ε, for the title.

    Returns
    -------
    plotly.graph_objects.Figure
        b / b_MI on a log x axis, the error on y: one line per error, and (when the table has them) Lemma 1's W1
        between the outputs of v = ¼ and ¾ as a dotted line with the simulated W1 as markers on a right-hand axis; a
        dotted vertical line marks the paper's b (1). A reader sees whether the mutual-information choice of b is
        near the error's minimum.

    References
    ----------
    Li et al., "Estimating Numerical Distributions under Local Differential Privacy" (SIGMOD 2020): §5.3 (b_MI),
    Lemma 1 (W1 = Δ(1 − (2b + 1)q)) and Fig. 6.
    """
    fig = go.Figure()
    for i, column in enumerate(("Wasserstein", "range-query MAE (α = 0.1)")):
        fig.add_scatter(x=table["b / b_MI"], y=table[column], mode="lines+markers", name=column,
                        line={"color": PALETTE[i], "width": 3})
    lemma, simulated = "outputs' W1, Lemma 1 (Δ = ½)", "outputs' W1, simulated (Δ = ½)"
    if lemma in table:  # Lemma 1 beside the measured W1 between the outputs of v = ¼ and ¾ (right axis)
        fig.add_scatter(x=table["b / b_MI"], y=table[lemma], mode="lines", name="Lemma 1: ½(1 − (2b+1)q)",
                        yaxis="y2", line={"color": PALETTE[3], "width": 2, "dash": "dot"})
        fig.add_scatter(x=table["b / b_MI"], y=table[simulated], mode="markers", yaxis="y2",
                        name="outputs' W1, simulated reports", marker={"color": PALETTE[3], "size": 9})
        fig.update_layout(yaxis2={"title": "W1 between the outputs of v = ¼ and ¾", "overlaying": "y",
                                  "side": "right", "rangemode": "tozero"})
    fig.add_vline(x=1.0, line_dash="dot", line_color="#444444", annotation_text="paper's b (MI)")
    fig.update_layout(title=f"SW + EMS error against b at ε = {epsilon:g} (square-wave paper Fig. 6)",
                      xaxis_title="b / b_MI (log scale)", yaxis_title="error", **LAYOUT)
    fig.update_xaxes(type="log")
    return fig


def spectrum_figure(table: pd.DataFrame) -> go.Figure:
    """The empirical noise power per frequency and Theorem 3's level.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`ldp.studies.paper_figures.noise_spectrum`: columns ``k`` (DFT frequency), ``empirical`` (the mean
        |FFT(noise)|²) and ``Theorem 3`` (the predicted level).

    Returns
    -------
    plotly.graph_objects.Figure
        Frequency k on x, power on y: the simulated power as markers and Theorem 3's level as a line; markers
        scattered around a flat line show the noise is white, as the theorem says.

    References
    ----------
    Fang, Chen, Liu, Gao, "Locally Differentially Private Frequency Estimation Based on Convolution Framework":
    Theorem 3 (Eq. (19)) and Fig. 3.
    """
    fig = go.Figure()
    fig.add_scatter(x=table["k"], y=table["empirical"], mode="markers", name="simulated |FFT(noise)|²",
                    marker={"color": PALETTE[0], "size": 6})
    fig.add_scatter(x=table["k"], y=table["Theorem 3"], mode="lines", name="Theorem 3",
                    line={"color": PALETTE[3], "width": 3})
    fig.update_layout(title="Noise power spectrum of the support counts (convolution paper Fig. 3)",
                      xaxis_title="frequency k", yaxis_title="power", yaxis_exponentformat="power", **LAYOUT)
    return fig


def convergence_figure(table: pd.DataFrame) -> go.Figure:
    """MSE against Wiener filterings (log–log): one colour per ε, IIW solid, IIW-G dashed, MI dotted.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`ldp.studies.paper_figures.iiw_convergence`: columns ``epsilon``, ``method`` (``IIW`` or ``IIW-G``),
        ``filterings``, ``MSE`` and ``MI MSE`` (constant per ε).

    Returns
    -------
    plotly.graph_objects.Figure
        Log–log: Wiener filterings on x, MSE on y; one colour per ε with IIW solid, IIW-G dashed and matrix inversion's
        MSE as a dotted horizontal line. A reader sees how few filterings the iteration needs to settle below MI.

    References
    ----------
    Convolution paper (Fang et al.), the IIW algorithm (its update, Eq. (22), and fixed points, Eqs. (23)–(24)) and
    Figs. 4–5.
    """
    fig = go.Figure()
    for i, (eps, part) in enumerate(table.groupby("epsilon")):
        colour = PALETTE[i % len(PALETTE)]
        for method, dash in (("IIW", "solid"), ("IIW-G", "dash")):
            rows = part[part["method"] == method]
            fig.add_scatter(x=rows["filterings"], y=rows["MSE"], mode="lines+markers", name=f"ε = {eps:g} · {method}",
                            line={"color": colour, "dash": dash, "width": 2.5})
        fig.add_scatter(x=[part["filterings"].min(), part["filterings"].max()], y=[part["MI MSE"].iloc[0]] * 2,
                        mode="lines", name=f"ε = {eps:g} · MI", line={"color": colour, "dash": "dot", "width": 1.5})
    fig.update_layout(title="IIW and IIW-G against the number of filterings (convolution paper Figs. 4–5)",
                      xaxis_title="Wiener filterings (log scale)", yaxis_title="MSE (log scale)",
                      yaxis_exponentformat="power", **LAYOUT)
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log")
    return fig


def _lines_by(table: pd.DataFrame, by: str | list[str], y: str, *, title: str, y_title: str,
              band: bool = False, x: str = "epsilon", x_title: str = "ε", log_y: bool = True,
              log_x: bool = False) -> go.Figure:
    """One line per group of ``table`` against ``x`` (log y with 10⁻⁶ labels unless ``log_y`` is false); with
    ``band`` its 95 % error bars."""
    fig = go.Figure()
    for i, (key, part) in enumerate(table.groupby(by, sort=False)):
        name = (" · ".join(readable(k) for k in key if k is not None) if isinstance(key, tuple)
                else readable(key))
        error = ({"type": "data", "symmetric": False, "array": part["ci_high"] - part[y],
                  "arrayminus": part[y] - part["ci_low"], "visible": True} if band else None)
        fig.add_scatter(x=part[x], y=part[y], mode="lines+markers", name=name, error_y=error,
                        line={"color": PALETTE[i % len(PALETTE)], "width": 2.5,
                              "dash": ("solid", "dash", "dot")[i // len(PALETTE) % 3]})
    fig.update_layout(title=title, xaxis_title=x_title, yaxis_title=y_title, yaxis_exponentformat="power", **LAYOUT)
    if log_y:
        fig.update_yaxes(type="log")
    if log_x:
        fig.update_xaxes(type="log")
    return fig


def methods_figure(summary: pd.DataFrame, metric: str = "Wasserstein distance", figure: str = "Figs. 2–4"
                   ) -> go.Figure:
    """Mean error against ε per numerical method with its 95 % band (log y).

    Parameters
    ----------
    summary : pandas.DataFrame
        :func:`ldp.studies.paper_figures.numerical_methods`: per mechanism, estimator and ε, columns ``mechanism``,
        ``estimator``, ``epsilon``, ``mean``, ``ci_low`` and ``ci_high``.
    metric : str, default "Wasserstein distance"
        The error's name, for the titles.
    figure : str, default "Figs. 2–4"
        The paper's figure, for the title.

    Returns
    -------
    plotly.graph_objects.Figure
        ε on x, the mean error on a log y axis with 95 % error bars, one line per (mechanism, estimator) named by
        their display names.

    References
    ----------
    Square-wave paper (Li et al., SIGMOD 2020), §6.2–6.3 and Figs. 2–4.
    """
    return _lines_by(summary, ["mechanism", "estimator"], "mean", band=True, y_title=f"{metric} (log scale)",
                     title=f"Numerical methods against ε: {metric} (square-wave paper {figure})")


def shapes_figure(table: pd.DataFrame) -> go.Figure:
    """Wasserstein against ε per wave shape (log y).

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`ldp.studies.paper_figures.wave_shapes`: columns ``shape``, ``epsilon`` and ``Wasserstein``.

    Returns
    -------
    plotly.graph_objects.Figure
        ε on x, the Wasserstein distance on a log y axis, one line per wave shape (all with EMS): which shape of
        wave recovers the distribution best at each ε.

    References
    ----------
    Square-wave paper (Li et al., SIGMOD 2020), §6.4 "Wave Shapes and Parameters" and Fig. 5.
    """
    return _lines_by(table, "shape", "Wasserstein", y_title="Wasserstein distance (log scale)",
                     title="Wave shapes with EMS (square-wave paper §6.4)")


def shapes_b_figure(table: pd.DataFrame, epsilon: float) -> go.Figure:
    """Wasserstein against b / b_MI (log x) per wave shape at one ε (square-wave paper Fig. 5).

    Parameters
    ----------
    table : pandas.DataFrame
        Per wave shape, ε and b: columns ``shape``, ``epsilon``, ``b / b_MI`` and ``Wasserstein``.
    epsilon : float
        The ε whose rows are drawn (rows are matched exactly).

    Returns
    -------
    plotly.graph_objects.Figure
        Log b / b_MI on x, the Wasserstein distance on a log y axis, one line per shape, and a dotted vertical line at
        b_MI.

    References
    ----------
    Square-wave paper (Li et al., SIGMOD 2020), §5.3 (b_MI), §6.4 and Fig. 5.
    """
    part = table[table["epsilon"] == epsilon]
    fig = _lines_by(part, "shape", "Wasserstein", x="b / b_MI", x_title="b / b_MI (log scale)", log_x=True,
                    y_title="Wasserstein distance (log scale)",
                    title=f"Wave shapes against b at ε = {epsilon:g} (square-wave paper Fig. 5)")
    fig.add_vline(x=1.0, line_dash="dot", line_color="#444444", annotation_text="b_MI")
    return fig


def postprocessor_figure(table: pd.DataFrame) -> go.Figure:
    """Full-domain MSE against ε per post-processor (log y).

    Parameters
    ----------
    table : pandas.DataFrame
        The full-domain errors of :func:`ldp.studies.paper_figures.postprocessor_curves`, one row per post-processor
        and ε: columns ``estimator``, ``epsilon`` and ``MSE``.

    Returns
    -------
    plotly.graph_objects.Figure
        ε on x, the full-domain MSE on a log y axis, one line per post-processor (display names).

    References
    ----------
    Wang, Lopuhaä-Zwakenberg, Li, Skoric, Li, "Locally Differentially Private Frequency Estimation with
    Consistency" (NDSS 2020), §V, Fig. 4.
    """
    return _lines_by(table, "estimator", "MSE", y_title="MSE (log scale)",
                     title="Post-processors: full-domain MSE against ε (consistency paper Fig. 4)")


def gain_by_mechanism_figure(grid: pd.DataFrame, collection: str, gain: str = "Γ (%)") -> go.Figure:
    """Γ (%) per mechanism (bars) for each ε, averaged over the grid's distributions, n and k (IBU Figs. 1–2);
    ``gain`` is the grid's column to draw (the limit's or the plain run's Γ, on the MSE or the MAE).

    Parameters
    ----------
    grid : pandas.DataFrame
        :func:`ldp.studies.paper_figures.ibu_gain_grid`: one row per cell, with columns ``epsilon``, ``mechanism``
        and the one named by ``gain``.
    collection : str
        ``"one-time"`` or ``"longitudinal"``: picks the paper's figure (1 or 2) and the legend's ε∞.
    gain : str, default "Γ (%)"
        The grid's column to draw (the limit's or the plain run's Γ, on the MSE or the MAE).

    Returns
    -------
    plotly.graph_objects.Figure
        Grouped bars: mechanisms on x, the mean Γ (%) over the grid's distributions, n and k on y, one bar colour per ε.

    References
    ----------
    IBU paper (Arcolezi et al., DBSec 2023), Eq. (1) and Figs. 1–2.
    """
    fig = go.Figure()
    mean = grid.groupby(["epsilon", "mechanism"], sort=False)[gain].mean().reset_index()
    for i, (eps, part) in enumerate(mean.groupby("epsilon")):
        fig.add_bar(x=part["mechanism"], y=part[gain], name=f"ε{'∞' if collection == 'longitudinal' else ''} = "
                    f"{eps:g}", marker_color=PALETTE[i % len(PALETTE)])
    number = "2" if collection == "longitudinal" else "1"
    fig.update_layout(title=f"IBU's gain per {collection} mechanism (IBU paper Fig. {number})", barmode="group",
                      xaxis_title="mechanism", yaxis_title=gain, **LAYOUT)
    return fig


def gain_trend_figure(grid: pd.DataFrame, vary: str, collection: str, gain: str = "Γ (%)",
                      labels: dict[str, str] | None = None) -> go.Figure:
    """Γ (%) by distribution against ε, n or k, averaged over the mechanisms and the other axes (IBU Figs. 3–4);
    ``labels`` names the distributions in the legend (e.g. Zipf as the stand-in for the paper's Income data).

    Parameters
    ----------
    grid : pandas.DataFrame
        :func:`ldp.studies.paper_figures.ibu_gain_grid`: columns ``distribution``, ``epsilon``, ``n``, ``k`` and the
        one named by ``gain``.
    vary : {"ε", "n", "k"}
        The x axis (n on a log scale).
    collection : str
        ``"one-time"`` or ``"longitudinal"``: picks the paper's figure (3 or 4).
    gain : str, default "Γ (%)"
        The grid's column to draw.
    labels : dict of str to str or None, default None
        Legend names of the distributions (others keep their own name).

    Returns
    -------
    plotly.graph_objects.Figure
        ``vary`` on x, the mean Γ (%) over the mechanisms and the other axes on a linear y axis, one line per
        distribution.

    Raises
    ------
    KeyError
        When ``vary`` is none of "ε", "n", "k".

    References
    ----------
    IBU paper (Arcolezi et al., DBSec 2023), Eq. (1) and Figs. 3–4.
    """
    column = {"ε": "epsilon", "n": "n", "k": "k"}[vary]
    mean = grid.groupby(["distribution", column], sort=False)[gain].mean().reset_index()
    if labels:
        mean["distribution"] = mean["distribution"].map(lambda d: labels.get(d, d))
    number = "4" if collection == "longitudinal" else "3"
    return _lines_by(mean, "distribution", gain, x=column, x_title=vary, log_y=False, log_x=column == "n",
                     y_title=gain, title=f"IBU's gain by distribution against {vary} ({collection}; IBU paper "
                                         f"Fig. {number})")


def n_prime_figure(table: pd.DataFrame) -> go.Figure:
    """n′ against n per post-processor: users MI would need for the method's error (consistency paper Fig. 5).

    Parameters
    ----------
    table : pandas.DataFrame
        The ``n_prime`` part of :func:`ldp.studies.paper_figures.postprocessor_tasks`: columns ``estimator``, ``n`` and
        ``n′``.

    Returns
    -------
    plotly.graph_objects.Figure
        Users n on x, n′ (the users matrix inversion would need for the same MSE) on a linear y axis, one line per
        post-processor; a line above y = n means the post-processor is worth that many extra users.

    References
    ----------
    Consistency paper (Wang et al., NDSS 2020), §V "Benefit of Post-Processing" and Fig. 5.
    """
    return _lines_by(table, "estimator", "n′", x="n", x_title="users n", log_y=False,
                     y_title="n′ (users MI needs for the same MSE)",
                     title="Users saved by post-processing (consistency paper Fig. 5)")


def set_query_figure(table: pd.DataFrame) -> go.Figure:
    """Set-query MSE against ρ per post-processor (consistency paper Figs. 6–7).

    Parameters
    ----------
    table : pandas.DataFrame
        The ``set`` part of :func:`ldp.studies.paper_figures.postprocessor_tasks`: columns ``estimator``, ``ρ`` (the
        queried share of the domain) and ``MSE``.

    Returns
    -------
    plotly.graph_objects.Figure
        Log–log: ρ on x, the set-query MSE on y, one line per post-processor.

    References
    ----------
    Consistency paper (Wang et al., NDSS 2020), §V, Figs. 6–7.
    """
    return _lines_by(table, "estimator", "MSE", x="ρ", x_title="set size ρ (fraction of the domain, log scale)",
                     log_x=True, y_title="MSE (log scale)",
                     title="Set queries: MSE against the set size (consistency paper Figs. 6–7)")


def top_k_figure(table: pd.DataFrame, by: str = "estimator", source: str = "consistency paper Fig. 10") -> go.Figure:
    """MSE over the k most frequent values against k, one line per ``by``.

    Parameters
    ----------
    table : pandas.DataFrame
        Columns ``by``, ``k`` and ``MSE``: the ``top_k`` part of :func:`ldp.studies.paper_figures.postprocessor_tasks`
        or of ``wiener_curves``.
    by : str, default "estimator"
        The column whose groups become the lines (``"method"`` for the convolution paper's table).
    source : str, default "consistency paper Fig. 10"
        The paper's figure, for the title.

    Returns
    -------
    plotly.graph_objects.Figure
        k on x, the MSE over the k most frequent values on a log y axis, one line per group.

    References
    ----------
    Consistency paper (Wang et al., NDSS 2020), Fig. 10; convolution paper (Fang et al.), Fig. 8.
    """
    return _lines_by(table, by, "MSE", x="k", x_title="k (most frequent values)", y_title="MSE (log scale)",
                     title=f"Top-k values: MSE against k ({source})")


def wiener_figure(table: pd.DataFrame, axis: str) -> go.Figure:
    """Full-domain MSE of each mechanism + Wiener estimator against ε or d (convolution paper Figs. 6–7).

    Parameters
    ----------
    table : pandas.DataFrame
        The ``epsilon`` or ``d`` part of ``wiener_curves`` (:mod:`ldp.studies.paper_figures`): columns ``method``,
        ``MSE`` and ``epsilon`` or ``d``.
    axis : str
        ``"epsilon"`` for MSE against ε; anything else draws MSE against d.

    Returns
    -------
    plotly.graph_objects.Figure
        ε (linear) or d (log) on x, the full-domain MSE on a log y axis, one line per mechanism + estimator.

    References
    ----------
    Convolution paper (Fang et al.), Figs. 6 (against ε) and 7 (against d).
    """
    if axis == "epsilon":
        return _lines_by(table, "method", "MSE", y_title="MSE (log scale)",
                         title="Smooth data: MSE against ε (convolution paper Fig. 6)")
    return _lines_by(table, "method", "MSE", x="d", x_title="domain size d (log scale)", log_x=True,
                     y_title="MSE (log scale)", title="Smooth data: MSE against d (convolution paper Fig. 7)")


def positives_figure(table: pd.DataFrame) -> go.Figure:
    """True (solid) and false (dotted) positives against the count threshold, one colour per method
    (convolution paper Fig. 9).

    Parameters
    ----------
    table : pandas.DataFrame
        The ``positives`` part of :func:`ldp.studies.paper_figures.wiener_curves`: columns ``method``, ``threshold``,
        ``true positives`` and ``false positives``.

    Returns
    -------
    plotly.graph_objects.Figure
        The count threshold on x, the number of values reported above it on y; per method one colour, true positives
        solid and false positives dotted (:func:`ldp.viz.style.paired_lines`).

    References
    ----------
    Convolution paper (Fang et al.), Fig. 9.
    """
    return paired_lines(table, "method", "threshold", ("true positives", "false positives"),
                         title="Values reported above a count threshold: true (solid) and false (dotted) positives "
                               "(convolution paper Fig. 9)", x_title="threshold (count of users)",
                         y_title="values reported")


def fixed_sets_figure(table: pd.DataFrame) -> go.Figure:
    """MSE of the fixed category queries per estimator against ε (consistency paper Fig. 8).

    Parameters
    ----------
    table : pandas.DataFrame
        The ``mse`` part of :func:`ldp.studies.paper_figures.fixed_set_study`: columns ``estimator``, ``epsilon`` and
        ``MSE``.

    Returns
    -------
    plotly.graph_objects.Figure
        ε on x, the MSE of the 68 category frequencies on a log y axis, one line per estimator.

    References
    ----------
    Consistency paper (Wang et al., NDSS 2020), §V, Fig. 8.
    """
    return _lines_by(table, "estimator", "MSE", y_title="MSE of the 68 category frequencies (log scale)",
                     title="Fixed set queries: MSE against ε (consistency paper Fig. 8)")


def synthetic_selection_figure(table: pd.DataFrame) -> go.Figure:
    """Each estimator's error expected from a synthetic refit of one collection (solid) and its actual error on
    that collection (dotted) against ε (consistency paper Fig. 9).

    Parameters
    ----------
    table : pandas.DataFrame
        The ``synthetic`` part of :func:`ldp.studies.paper_figures.fixed_set_study`: columns ``estimator``,
        ``epsilon``, ``expected`` and ``actual``.

    Returns
    -------
    plotly.graph_objects.Figure
        ε on x, the MSE on a log y axis; per estimator one colour, the error expected from the synthetic refit solid
        and the actual error dotted. Where they agree, the reports alone pick the right method.

    References
    ----------
    Consistency paper (Wang et al., NDSS 2020), §V, Fig. 9.
    """
    return paired_lines(table, "estimator", "epsilon", ("expected", "actual"), log_y=True,
                         title="Choosing the method from the reports: expected (solid) and actual (dotted) error "
                               "(consistency paper Fig. 9)", x_title="ε", y_title="MSE (log scale)")


def granularity_figure(table: pd.DataFrame) -> go.Figure:
    """SW + EMS's Wasserstein distance against the number of buckets, per ε (square-wave paper Fig. 7).

    Parameters
    ----------
    table : pandas.DataFrame
        ``bucket_granularity`` (:mod:`ldp.studies.paper_figures`): columns ``epsilon``, ``d`` and ``Wasserstein``.

    Returns
    -------
    plotly.graph_objects.Figure
        Buckets d on a log x axis, the Wasserstein distance on a log y axis, one line per ε.

    References
    ----------
    Square-wave paper (Li et al., SIGMOD 2020), §5.4 "Bucketizing" and Fig. 7.
    """
    table = table.assign(series=[f"ε = {e:g}" for e in table["epsilon"]])
    return _lines_by(table, "series", "Wasserstein", x="d", x_title="buckets d (log scale)", log_x=True,
                     y_title="Wasserstein distance (log scale)",
                     title="Bucket granularity: SW + EMS against d (square-wave paper Fig. 7)")


def draw(figure: ReproducibleFigure, table: pd.DataFrame, settings: Mapping[str, Any]) -> go.Figure:
    """The Plotly figure of a registered reproducible figure (:data:`ldp.studies.figures.FIGURES`) from its tidy
    table: its builder of this module with its arguments (a :class:`~ldp.studies.figures.Setting` read from
    ``settings``).

    Parameters
    ----------
    figure : ldp.studies.figures.ReproducibleFigure
        The registered figure; its ``figure`` names a builder of this module and ``figure_args`` its arguments after
        the table.
    table : pandas.DataFrame
        The rows its builder draws (the study's table, or the part and rows the figure takes from it).
    settings : mapping of str to Any
        The run's settings; each :class:`~ldp.studies.figures.Setting` of ``figure_args`` is read from it.

    Returns
    -------
    plotly.graph_objects.Figure
        The builder's figure.

    Raises
    ------
    KeyError
        When a :class:`~ldp.studies.figures.Setting` argument is missing from ``settings``.
    """
    args = [settings[a] if isinstance(a, Setting) else a for a in figure.figure_args]
    return globals()[figure.figure](table, *args)
