"""Figures of the "Reproduce the papers" page (pure Plotly; the tables come from ``ldp.studies.reproduce``)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from ldp.viz.style import PALETTE

__all__ = ["b_figure", "convergence_figure", "gain_figure", "methods_figure", "postprocessor_figure",
           "spectrum_figure", "shapes_figure"]

LAYOUT = {"font": {"size": 16}, "height": 440, "hoverlabel": {"font_size": 14}}


def gain_figure(table: pd.DataFrame) -> go.Figure:
    """Γ (%) against ε per mechanism: the converged MLE (solid) and the paper's plain 10⁴ iterations (dashed)."""
    fig = go.Figure()
    for i, (name, part) in enumerate(table.groupby("mechanism", sort=False)):
        colour = PALETTE[i % len(PALETTE)]
        fig.add_scatter(x=part["epsilon"], y=part["Γ IBU limit (%)"], mode="lines+markers", name=f"{name} · MLE",
                        line={"color": colour, "width": 3})
        fig.add_scatter(x=part["epsilon"], y=part["Γ plain Eq. (3), 10⁴ iterations (%)"], mode="lines+markers",
                        name=f"{name} · plain Eq. (3)", line={"color": colour, "width": 2, "dash": "dash"})
    fig.update_layout(title="Utility gain Γ of IBU over the baseline (IBU paper Table 2)", xaxis_title="ε",
                      yaxis_title="Γ (%)", **LAYOUT)
    return fig


def b_figure(table: pd.DataFrame, epsilon: float) -> go.Figure:
    """Both errors against b / b_MI (log x), the paper's choice at 1."""
    fig = go.Figure()
    for i, column in enumerate(("Wasserstein", "range-query MAE (α = 0.1)")):
        fig.add_scatter(x=table["b / b_MI"], y=table[column], mode="lines+markers", name=column,
                        line={"color": PALETTE[i], "width": 3})
    fig.add_vline(x=1.0, line_dash="dot", line_color="#444444", annotation_text="paper's b (MI)")
    fig.update_layout(title=f"SW + EMS error against b at ε = {epsilon:g} (square-wave paper Fig. 6)",
                      xaxis_title="b / b_MI (log scale)", yaxis_title="error", **LAYOUT)
    fig.update_xaxes(type="log")
    return fig


def spectrum_figure(table: pd.DataFrame) -> go.Figure:
    """The empirical noise power per frequency and Theorem 3's level."""
    fig = go.Figure()
    fig.add_scatter(x=table["k"], y=table["empirical"], mode="markers", name="simulated |FFT(noise)|²",
                    marker={"color": PALETTE[0], "size": 6})
    fig.add_scatter(x=table["k"], y=table["Theorem 3"], mode="lines", name="Theorem 3",
                    line={"color": PALETTE[3], "width": 3})
    fig.update_layout(title="Noise power spectrum of the support counts (convolution paper Fig. 3)",
                      xaxis_title="frequency k", yaxis_title="power", yaxis_exponentformat="power", **LAYOUT)
    return fig


def convergence_figure(table: pd.DataFrame) -> go.Figure:
    """MSE against Wiener filterings (log–log): one colour per ε, IIW solid, IIW-G dashed, MI dotted."""
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
              band: bool = False) -> go.Figure:
    """One line per group of ``table`` against ε (log y, 10⁻⁶ labels); with ``band`` its 95 % error bars."""
    fig = go.Figure()
    for i, (key, part) in enumerate(table.groupby(by, sort=False)):
        name = " · ".join(str(k) for k in key if k is not None) if isinstance(key, tuple) else str(key)
        error = ({"type": "data", "symmetric": False, "array": part["ci_high"] - part[y],
                  "arrayminus": part[y] - part["ci_low"], "visible": True} if band else None)
        fig.add_scatter(x=part["epsilon"], y=part[y], mode="lines+markers", name=name, error_y=error,
                        line={"color": PALETTE[i % len(PALETTE)], "width": 2.5,
                              "dash": ("solid", "dash", "dot")[i // len(PALETTE) % 3]})
    fig.update_layout(title=title, xaxis_title="ε", yaxis_title=y_title, yaxis_exponentformat="power", **LAYOUT)
    fig.update_yaxes(type="log")
    return fig


def methods_figure(summary: pd.DataFrame) -> go.Figure:
    """Mean error against ε per numerical method with its 95 % band (log y)."""
    return _lines_by(summary, ["mechanism", "estimator"], "mean", band=True, y_title="Wasserstein distance (log scale)",
                     title="Numerical methods against ε (square-wave paper Figs. 2–5)")


def shapes_figure(table: pd.DataFrame) -> go.Figure:
    """Wasserstein against ε per wave shape (log y)."""
    return _lines_by(table, "shape", "Wasserstein", y_title="Wasserstein distance (log scale)",
                     title="Wave shapes with EMS (square-wave paper §6.4)")


def postprocessor_figure(table: pd.DataFrame) -> go.Figure:
    """Full-domain MSE against ε per post-processor (log y)."""
    return _lines_by(table, "estimator", "MSE", y_title="MSE (log scale)",
                     title="Post-processors: full-domain MSE against ε (consistency paper Fig. 4)")
