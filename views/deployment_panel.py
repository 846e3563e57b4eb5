""""What the deployments do" — a panel the Learn and Story pages share: the published budgets of Apple's,
Google's and Microsoft's deployments, what the same ε gives with each deployed mechanism on the page's data
against the best textbook oracle, and what memoization protects and what it does not.

Wiring and text only: the numbers come from ``ldp.studies.deployments``, the figures from ``ldp.viz.deployments``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from ldp.studies.deployments import DEPLOYMENTS, MAX_COMPARED_VALUES, deployed_vs_textbook, memoization_rows
from ldp.viz.deployments import deployed_figure, memoization_figure
from views import common

__all__ = ["MAX_COMPARED_VALUES", "budgets_table", "show_deployments"]


@st.cache_data(show_spinner=False, max_entries=16)
def _comparison(freqs: np.ndarray, n: int, epsilon: float) -> pd.DataFrame:
    return deployed_vs_textbook(freqs, n, epsilon)


@st.cache_data(show_spinner=False, max_entries=4)
def _memoization(epsilon: float, rounds: int) -> pd.DataFrame:
    return memoization_rows(epsilon=epsilon, rounds=rounds)


def budgets_table() -> pd.DataFrame:
    """The published budgets, one row per deployment (sources in ``ldp.studies.deployments``)."""
    return pd.DataFrame([{"company": d.company, "use": d.use, "mechanism": d.mechanism,
                          "ε per report": round(d.epsilon_report, 2),
                          "ε per day": "not published" if d.epsilon_day is None else d.epsilon_day,
                          "memoized": "yes" if d.memoized else "no", "note": d.note, "source": d.source}
                         for d in DEPLOYMENTS])


def show_deployments(freqs: np.ndarray, n: int, epsilon: float, key: str, data_name: str) -> None:
    """The panel for frequencies ``freqs`` of ``n`` users at ``epsilon`` (``data_name`` names the data)."""
    st.markdown("##### Published budgets")
    st.caption("Each deployment's ε for one report, and per day where it is published or was measured.")
    st.dataframe(budgets_table(), hide_index=True, key=f"{key}_budgets")
    with common.friendly_errors("the deployed mechanisms' comparison"):
        table = _comparison(np.asarray(freqs, dtype=np.float64), int(n), float(epsilon))
        best = table[table["deployed by"] == ""].iloc[0]
        deployed = table[table["deployed by"] != ""]
        st.markdown(f"##### The same ε = {epsilon:g} on {data_name}, {n:,} users")
        st.markdown(f"The best textbook oracle here is "
                    f"{best['mechanism']}; the deployed ones are {deployed['× best textbook'].min():.2f}× to "
                    f"{deployed['× best textbook'].max():.2f}× its error (expected MSE over all values, closed "
                    "form). Deployments trade some accuracy for short reports and a server that scales; RAPPOR, "
                    "memoized, takes ε as ε∞ — the budget of all its reports of one value together.")
        common.show_figure(deployed_figure(table), f"{key}_deployed", table)
    rounds = 30
    rows = _memoization(float(epsilon), rounds).set_index("claim")
    steady = float(rows.iloc[0]["number"])
    moving = float(rows.loc["does not protect: a value that keeps changing", "number"])
    st.markdown("##### What memoization protects, and what it does not")
    st.markdown(f"Memoization (Microsoft's 1BitMean, RAPPOR's permanent response): a user reports every day "
                f"for {rounds} days at ε = {epsilon:g}. Fresh reports would cost {rounds * epsilon:g}; memoized, a "
                f"steady counter costs {steady:.3g} and one that moves every day {moving:.3g}.")
    common.show_figure(memoization_figure(float(epsilon), rounds, steady, moving), f"{key}_memo",
                       rows.reset_index())
    st.dataframe(rows.reset_index()[["claim", "detail"]], hide_index=True, key=f"{key}_claims")
