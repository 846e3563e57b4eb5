"""Means of vectors — the lecture's "Means of numbers and vectors": how to spend one ε on d numbers (split the
budget, sample coordinates, Duchi et al.'s joint mechanism, the (ε, δ) Gaussian), in closed form against d and checked
by simulation on demand (an expander computed only while open) — on uniform vectors or on numerical columns of a
sample or an uploaded table — and the lecture's two-bin pitfall of a mean read off a histogram.

Wiring and text only: the mechanisms are in ``ldp.mechanisms.vector``, the studies in ``ldp.studies.vector_means``,
the figure in ``ldp.viz.vector_means``.
"""

from __future__ import annotations

import streamlit as st

import ldp
from ldp.data import list_samples, load_sample
from ldp.studies import mean_variance
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
SOURCES = ("Uniform vectors", "Sample data", "Upload")
SOURCE = Control("vm_source", "radio", "Vectors of the check", SOURCES[0], options=list(SOURCES), horizontal=True,
                 help="Uniform vectors in [−1, 1]^d, or numerical columns of a table: each row is one user, each "
                      "chosen column one coordinate.")
SAMPLE = Control("vm_sample", "selectbox", "Sample", "weather", options=[s["name"] for s in list_samples()])
#: The sample's numerical columns picked first.
DEFAULT_COLUMNS = {"weather": ["temp", "dewp", "humid"], "flights": ["dep_delay", "arr_delay", "distance"],
                   "income": ["husband_income", "wife_hours", "experience"], "planes": ["seats", "year"]}
COLUMNS = Control("vm_columns", "multiselect", "Columns (the coordinates)",
                  depends=lambda columns, default: {"options": columns, "default": default},
                  help="Numerical columns; each is mapped to [−1, 1] by its own range.")
USERS = Control("vm_users", "number_input", "Users n", min_value=100, max_value=400_000, step=1000,
                depends=lambda rows: {"default": rows},
                help="The sample's complete rows by default; another n draws that many users from them with "
                     "replacement.")
DATA = common.data_controls("vm_data")  # only its uploader key is used (uploads are shared across pages)
CONTROLS = (EPS, DIM, MECH, SEED, SOURCE, SAMPLE, COLUMNS, USERS)
INTRO = ("Every user holds d numbers in [−1, 1] (map each column's range there first). One budget ε: split "
         "it over the coordinates, or report a few coordinates with more of it each, or one random corner "
         "of the cube (Duchi et al.) — or, relaxing to (ε, δ), Gaussian noise on the whole vector.")
DIMS = (1, 2, 4, 8, 16, 32, 64)
SIM_DIMS = (1, 4, 16, 64)
#: Collections of the check on a table's vectors (fewer than on uniform vectors: a table may have many rows).
DATA_TRIALS = 20
#: The two-bin pitfall's population: every user holds this value (the lecture's example), n of them.
PITFALL_VALUE, PITFALL_USERS = 0.01, 10_000
CHECK_TITLE = ("Check by simulation: every mechanism at four d, then one mechanism on uniform vectors or a "
               "table's columns")


@st.cache_data(show_spinner=False, max_entries=32)
def _closed_form(epsilon: float):
    return study.variance_against_d(epsilon, DIMS)


@st.cache_data(show_spinner=False, max_entries=16)
def _simulated(epsilon: float, seed: int):
    return study.simulated_against_d(epsilon, SIM_DIMS, seed=seed, fast=True)  # the Gaussian's sums drawn exactly


@st.cache_data(show_spinner=False, max_entries=32)
def _check(mechanism: str, epsilon: float, d: int, seed: int) -> dict:
    return study.simulated_variance(mechanism, epsilon, d, seed=seed, fast=True)


@st.cache_data(show_spinner=False, max_entries=16)
def _sample_check(sample: str, columns: tuple[str, ...], users: int, mechanism: str, epsilon: float, seed: int):
    return _table_check(load_sample(sample), columns, users, mechanism, epsilon, seed)


def _table_check(table, columns: tuple[str, ...], users: int | None, mechanism: str, epsilon: float, seed: int):
    """The columns' means by ``mechanism`` and the check by simulation on the same users' vectors."""
    result = study.collect_means(mechanism, epsilon, table, columns, users=users, seed=seed)
    values, _, _ = study.unit_vectors(table, columns)
    values, _ = study.draw_users(values, users, seed)
    check = study.simulated_variance(mechanism, epsilon, len(columns), trials=DATA_TRIALS, seed=seed, values=values,
                                     fast=True)
    return result, check


def _columns(table, preferred: list[str]) -> tuple[str, ...]:
    options = study.numeric_columns(table)
    if not options:
        raise ldp.InvalidInput("the table has no numerical column (numbers with many distinct values)")
    default = [c for c in preferred if c in options] or options[:2]
    picked = tuple(render(COLUMNS, columns=options, default=default))
    if not picked:
        st.info(f"No column picked: the check uses {', '.join(default)} (pick the coordinates in “Columns”).")
        return tuple(default)
    return picked


def _data_check(source: str, mech: str, eps: float, seed: int):
    """The check on a sample's or an upload's columns: (result, check, where the users come from)."""
    if source == SOURCES[1]:
        sample = render(SAMPLE)
        table = load_sample(sample)
        columns = _columns(table, DEFAULT_COLUMNS.get(sample, []))
        rows = study.unit_vectors(table, columns)[0].shape[0]
        users = int(render(USERS, rows=rows))
        result, check = _sample_check(sample, columns, users, mech, eps, seed)
        return result, check, f"the {sample} sample"
    name, table = common.uploaded_table(DATA, st)
    columns = _columns(table, [])
    result, check = _table_check(table, columns, None, mech, eps, seed)  # per session: never cached
    return result, check, f"the uploaded file {common.plain(name)} (its own population: every complete row a user)"


def _show_data_result(result, where: str) -> None:
    st.caption(f"{result.users:,} users from {where}; each column mapped to [−1, 1] by its own range [min, max], "
               "taken as **public** (in a deployment the range must be fixed without looking at the users' values). "
               + " ".join(f"{n}." for n in result.notes))
    frame = {"column": list(result.columns), "range": [f"[{lo:g}, {hi:g}]" for lo, hi in result.ranges],
             "true mean": result.true_mean, "estimate": result.mean, "standard error": result.standard_error}
    st.dataframe(frame, hide_index=True, key="vm_data_means")


def _pitfall(eps: float) -> None:
    st.subheader("Why not bins? The lecture's two-bin pitfall")
    table = mean_variance.binned_mean_pitfall(PITFALL_VALUE, eps, PITFALL_USERS)
    two = table.iloc[0]
    sr = table.iloc[-1]
    binned = table.dropna(subset=["bins"])
    best = binned.loc[binned["RMSE"].idxmin()]
    st.markdown(
        f"A frequency oracle over bins of [−1, 1] gives the mean too: the centres weighted by the estimated "
        f"histogram. The lecture's example: all {PITFALL_USERS:,} users hold {PITFALL_VALUE:g}. With two bins "
        f"[−1, 0), [0, 1] every user is in [0, 1], so the expected estimate is its centre, "
        f"**{two['expected estimate']:g}** — a bias of {two['bias']:.2f} that no number of users removes. More bins "
        f"cut the bias and add noise (every bin's estimate is noisy): at ε = {eps:g} the best of these partitions is "
        f"{int(best['bins'])} bins (RMSE {best['RMSE']:.3g}); none is optimal for every population. Rounding the value "
        f"to ±1 without bias first (Stochastic Rounding, the lecture's \"The Method\") is unbiased: RMSE "
        f"{sr['RMSE']:.3g}.")
    st.dataframe(table, hide_index=True, key="vm_bins")


def _simulation_check(eps: float) -> None:
    """The check by simulation, on demand: a lazy expander (closed by default, computed only while open — opening
    it reruns the page) whose state is bound to the URL, so a link with it open shows it at once. Every mechanism
    at four d, then the chosen one on uniform vectors or a table's columns: hundreds of milliseconds of
    simulation that an ε change on the closed-form chart above does not wait for."""
    box = common.lazy_expander(CHECK_TITLE, "vm_check_open")
    with box:
        if not box.open:
            return
        source = render(SOURCE)
        c1, c2, c3 = st.columns(3)
        mech = render(MECH, c2)
        seed = int(render(SEED, c3))
        with common.friendly_errors("the simulation"), st.spinner("Simulating every mechanism at four d…"):
            sims = _simulated(eps, seed)
        fig = common.cached_figure(("vm_sim_chart", eps, seed), lambda: viz.simulated_against_d_figure(sims, eps))
        common.show_figure(fig, "vm_sim_chart", sims, description=(
            "Markers: n × the simulated MSE of the mean per coordinate (20 collections of 2,000 users with uniform "
            "vectors); lines: its closed form for the same users."))
        check = None
        with common.friendly_errors("the check"), st.spinner("Simulating…"):
            if source == SOURCES[0]:
                d = int(render(DIM, c1))
                check = _check(mech, eps, d, seed)
                what = "users with uniform vectors"
            else:
                result, check, where = _data_check(source, mech, eps, seed)
                d = len(result.columns)
                _show_data_result(result, where)
                what = f"users with the table's vectors (d = {d})"
        if check is not None:
            ratio = check["simulated"] / check["closed form"]
            st.markdown(f"{check['trials']} collections of {check['users']:,} {what}: simulated MSE "
                        f"{check['simulated']:.3g} per coordinate, closed form {check['closed form']:.3g} (ratio "
                        f"{ratio:.2f}; a ratio within ±{3 * (2 / (check['trials'] * d)) ** 0.5:.0%} is three "
                        "standard errors of a mean of squared Gaussian errors).")


def main() -> None:
    chart_place = common.page_heading("Means of vectors", INTRO)
    presenting = common.presenting()
    if presenting:  # on a projector ε goes right above the chart, the summary table below it
        eps = float(render(EPS, chart_place))
    st.subheader("The lecture's summary")
    st.dataframe(study.LECTURE_SUMMARY, hide_index=True, key="vm_summary")
    if not presenting:
        eps = float(render(EPS))
    table = _closed_form(eps)
    fig = common.cached_figure(("vm_chart", eps), lambda: viz.variance_against_d_figure(table, eps))
    common.show_figure(fig, "vm_chart", table, main=True, where=chart_place,
                       description=(
        "Closed-form worst case over x ∈ [−1, 1]^d of one user's variance per coordinate; the mean's MSE is this "
        "over n. Dotted: split the budget (grows like d²); solid: sample coordinates (like d); dashed: one joint "
        "randomizer (Duchi; the Gaussian, which is (ε, δ) with δ = 10⁻⁵, its noise calibrated to the L2 norm 2√d)."))
    at_16 = table[table["d"] == 16].set_index("mechanism")["worst-case variance"]
    best = at_16.idxmin()
    st.markdown(f"At ε = {eps:g} and d = 16 the lowest is **{ldp.MECHANISMS.get(best).display_name}** "
                f"({at_16[best]:.3g}); splitting the budget with Laplace costs "
                f"{at_16['split-laplace'] / at_16[best]:.0f}× more.")
    _simulation_check(eps)
    _pitfall(eps)
    st.caption("From the command line: `ldp mean --mechanism pm --epsilon 1 --sample flights --columns "
               "dep_delay,arr_delay,distance` prints each column's mean and its closed-form variance.")


if __name__ == "__main__":  # Streamlit runs a page as __main__; tests import it for its controls
    main()
