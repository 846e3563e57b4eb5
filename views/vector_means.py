"""Means of vectors — the lecture's "Means of numbers and vectors": how to spend one ε on d numbers (split the
budget, sample coordinates, Duchi et al.'s joint mechanism), in closed form against d and checked by simulation.

Wiring and text only: the mechanisms are in ``ldp.mechanisms.vector``, the studies in ``ldp.studies.vector_means``,
the figure in ``ldp.viz.vector_means``.
"""

from __future__ import annotations

import streamlit as st

import ldp
from ldp.studies import vector_means as study
from ldp.viz import vector_means as viz
from views import common
from views.controls import Control, render

EPS = common.epsilon_control("vm_eps", default=1.0)
DIM = Control("vm_d", "select_slider", "Dimension d (for the check)", 8, options=[1, 2, 4, 8, 16, 32, 64])
MECH = Control("vm_mech", "selectbox", "Mechanism (for the check)", "kd-pm",
               options=[cls.name for cls in ldp.mechanisms_of("vector")],
               format_func=lambda m: ldp.MECHANISMS.get(m).display_name)
SEED = common.seed_control("vm_seed")
CONTROLS = (EPS, DIM, MECH, SEED)
INTRO = ("Every user holds d numbers in [−1, 1] (map each column's range there first). One budget ε: split "
         "it over the coordinates, or report a few coordinates with more of it each, or one random corner "
         "of the cube (Duchi et al.).")
DIMS = (1, 2, 4, 8, 16, 32, 64)
SIM_DIMS = (1, 4, 16, 64)


@st.cache_data(show_spinner=False, max_entries=16)
def _simulated(epsilon: float, seed: int):
    return study.simulated_against_d(epsilon, SIM_DIMS, seed=seed)


@st.cache_data(show_spinner=False, max_entries=32)
def _check(mechanism: str, epsilon: float, d: int, seed: int) -> dict:
    return study.simulated_variance(mechanism, epsilon, d, seed=seed)


def main() -> None:
    chart_place = common.page_heading("Means of vectors", INTRO)
    presenting = common.presenting()
    if presenting:  # on a projector ε goes right above the chart, the summary table below it
        eps = float(render(EPS, chart_place))
    st.subheader("The lecture's summary")
    st.dataframe(study.LECTURE_SUMMARY, hide_index=True, key="vm_summary")
    if not presenting:
        eps = float(render(EPS))
    table = study.variance_against_d(eps, DIMS)
    common.show_figure(viz.variance_against_d_figure(table, eps), "vm_chart", table, main=True, where=chart_place,
                       description=(
        "Closed-form worst case over x ∈ [−1, 1]^d of one user's variance per coordinate; the mean's MSE is this "
        "over n. Dotted: split the budget (grows like d²); solid: sample coordinates (like d); dashed: Duchi."))
    at_16 = table[table["d"] == 16].set_index("mechanism")["worst-case variance"]
    best = at_16.idxmin()
    st.markdown(f"At ε = {eps:g} and d = 16 the lowest is **{ldp.MECHANISMS.get(best).display_name}** "
                f"({at_16[best]:.3g}); splitting the budget with Laplace costs "
                f"{at_16['split-laplace'] / at_16[best]:.0f}× more.")
    st.subheader("Check by simulation")
    c1, c2, c3 = st.columns(3)
    d = int(render(DIM, c1))
    mech = render(MECH, c2)
    seed = int(render(SEED, c3))
    with common.friendly_errors("the simulation"), st.spinner("Simulating every mechanism at four d…"):
        sims = _simulated(eps, seed)
    common.show_figure(viz.simulated_against_d_figure(sims, eps), "vm_sim_chart", sims, description=(
        "Markers: n × the simulated MSE of the mean per coordinate (20 collections of 2,000 users with uniform "
        "vectors); lines: its closed form for the same users."))
    with common.friendly_errors("the check"), st.spinner("Simulating…"):
        check = _check(mech, eps, d, seed)
    ratio = check["simulated"] / check["closed form"]
    st.markdown(f"{check['trials']} collections of {check['users']:,} users with uniform vectors: simulated MSE "
                f"{check['simulated']:.3g} per coordinate, closed form {check['closed form']:.3g} (ratio "
                f"{ratio:.2f}; a ratio within ±{3 * (2 / (check['trials'] * d)) ** 0.5:.0%} is three standard "
                "errors of a mean of squared Gaussian errors).")
    st.caption("From the command line: `ldp mean --mechanism pm --epsilon 1 --sample flights --columns "
               "dep_delay,arr_delay,distance` prints each column's mean and its closed-form variance.")


if __name__ == "__main__":  # Streamlit runs a page as __main__; tests import it for its controls
    main()
