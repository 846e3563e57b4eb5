"""Privacy questions — four questions a stakeholder asks beyond "how wrong is the estimate?": what shuffling the
reports buys, whether the implementation keeps its promise (an empirical audit), what repeated collection reveals,
and what lying users can do.

Wiring and text only: the controls are declared below; the maths is in ``ldp.privacy`` and the figures in
``ldp.viz.privacy``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

import ldp
from ldp.privacy import audit as auditing
from ldp.privacy import longitudinal, poisoning, shuffle
from ldp.viz import privacy as viz
from views import common
from views.controls import Control, render

DELTAS = [1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10]
CURVE_USERS = np.unique(np.round(np.geomspace(1_000, 10_000_000, 9)).astype(int))
AUDIT_SAMPLES = [10_000, 30_000, 100_000, 300_000, 1_000_000]
AUDIT_NAMES = [*ldp.MECHANISMS.names(), *auditing.TEACHING_MECHANISMS]
ROUNDS = [1, 2, 3, 5, 10, 20, 50, 100, 200]
BETAS = [0.0, 0.01, 0.02, 0.05, 0.1, 0.2]
POISON_USERS = 100_000


def _audit_label(name: str) -> str:
    if name in auditing.TEACHING_MECHANISMS:
        return auditing.TEACHING_MECHANISMS[name].display_name
    return ldp.MECHANISMS.get(name).display_name


# --------------------------------------------------------------------------- controls (each stated once)
SH_EPS0 = Control("priv_eps0", "select_slider", "Local ε₀ of each report", 2.0, options=common.EPS_GRID,
                  help="The ε each user's own report satisfies before the shuffler mixes them.")
SH_DELTA = Control("priv_delta", "select_slider", "Central δ", 1e-6, options=DELTAS, format_func=lambda x: f"{x:.0e}",
                   help="Probability with which the central ε may fail; well below 1/n.")
SH_N = Control("priv_n", "number_input", "Users n (shuffled together)", 100_000, min_value=100, max_value=10**9,
               step=10_000)
SH_D = Control("priv_d", "number_input", "Domain size d (GRR's blanket, errors)", 32, min_value=2, max_value=10**6,
               step=1)
SH_TARGET = Control("priv_target", "select_slider", "Target central ε", 0.5, options=common.EPS_GRID,
                    help="The central ε you promise; the page finds the largest ε₀ that keeps it after shuffling.")
AU_MECH = Control("priv_audit_mech", "selectbox", "Mechanism to audit", "grr", options=AUDIT_NAMES,
                  format_func=_audit_label, help="Every registered mechanism, and a broken teaching example.")
AU_EPS = common.epsilon_control("priv_audit_eps", "Claimed ε", 1.0)
AU_D = Control("priv_audit_d", "slider", "Domain size d (or buckets)", 4, min_value=2, max_value=32)
AU_SAMPLES = Control("priv_audit_samples", "select_slider", "Reports per input", 100_000, options=AUDIT_SAMPLES,
                     format_func=lambda x: f"{x:,}")
AU_SEED = common.seed_control("priv_audit_seed")
LO_D = Control("priv_lo_d", "slider", "Domain size d", 4, min_value=2, max_value=32)
LO_EPS_INF = Control("priv_lo_einf", "select_slider", "ε∞ (the memoized value)", 2.0, options=common.EPS_GRID)
LO_EPS_1 = Control("priv_lo_e1", "select_slider", "ε1 (one report)", 0.5, options=common.EPS_GRID)
LO_SEED = common.seed_control("priv_lo_seed")
PO_EPS = common.epsilon_control("priv_po_eps", "ε of the collection", 1.0)
PO_D = Control("priv_po_d", "slider", "Domain size d", 32, min_value=4, max_value=256)
PO_R = Control("priv_po_r", "slider", "Target items r", 3, min_value=1, max_value=10)
PO_SEED = common.seed_control("priv_po_seed")
CONTROLS = (SH_EPS0, SH_DELTA, SH_N, SH_D, SH_TARGET, AU_MECH, AU_EPS, AU_D, AU_SAMPLES, AU_SEED, LO_D, LO_EPS_INF,
            LO_EPS_1, LO_SEED, PO_EPS, PO_D, PO_R, PO_SEED)


def section(func):
    """A section of its own: a library error stays inside it, and its controls rerun only it (a fragment)."""
    return st.fragment(common.section(func))


@st.cache_data(show_spinner=False, max_entries=32)
def _curve(epsilon0: float, delta: float, d: int) -> list[Any]:
    return shuffle.shuffle_curve(CURVE_USERS, epsilon0, delta, d)


@st.cache_data(show_spinner=False, max_entries=32)
def _bounds(n: int, epsilon0: float, delta: float, d: int) -> Any:
    if n in CURVE_USERS:  # the curve's own point: shuffle_curve makes this very call (fine step, no early stop)
        return next(b for b in _curve(epsilon0, delta, d) if b.users == n)
    return shuffle.shuffle_bounds(n, epsilon0, delta, d, shuffle.fine_step(n, epsilon0), early_stop=False)


@st.cache_data(show_spinner=False, max_entries=32)
def _error_bought(target: float, n: int, delta: float, d: int) -> list[dict[str, Any]]:
    return shuffle.error_bought(target, n, delta, d)


@st.cache_data(show_spinner=False, max_entries=16)
def _longitudinal(d: int, e_inf: float, e_1: float, seed: int) -> Any:
    return longitudinal.longitudinal_study(d, e_inf, e_1, ROUNDS, users=10_000, seed=seed)


@st.cache_data(show_spinner=False, max_entries=16)
def _poison(epsilon: float, d: int, r: int, seed: int) -> tuple[list[dict[str, Any]], list[Any]]:
    weights = 1.0 / np.arange(1, d + 1)
    counts = np.floor(weights / weights.sum() * POISON_USERS).astype(np.int64)
    counts[0] += POISON_USERS - int(counts.sum())
    targets = list(range(d - r, d))  # the r least frequent values
    sims = [poisoning.simulate_attack(poisoning.attacked_mechanism(m, epsilon, d), counts, targets, b, trials=5,
                                      seed=seed) for m in poisoning.ATTACKED for b in BETAS[1:]]
    f_t = sims[0].target_frequency
    curves = poisoning.gain_curves(epsilon, d, targets, BETAS, f_t)
    return curves, sims


@st.cache_resource(show_spinner=False, max_entries=16)
def _poison_chart(epsilon: float, d: int, r: int, seed: int) -> tuple[Any, pd.DataFrame]:
    """The chart (shared: ``common.share_figure``) and its table, once per input for every session."""
    fig, table = viz.poisoning_figure(*_poison(epsilon, d, r, seed))
    return common.share_figure(fig), table


@st.cache_resource(show_spinner=False, max_entries=16)
def _longitudinal_chart(d: int, e_inf: float, e_1: float, seed: int) -> tuple[Any, pd.DataFrame]:
    """The chart (shared: ``common.share_figure``) and its table, once per input for every session."""
    fig, table = viz.longitudinal_figure(_longitudinal(d, e_inf, e_1, seed))
    return common.share_figure(fig), table


# --------------------------------------------------------------------------- 1 · shuffling
@section
def shuffle_section() -> None:
    st.subheader("1 · What if the reports are shuffled before we see them?")
    presenting = common.presenting()  # on a projector: the controls, then the chart; the prose and numbers below
    shuffle_intro = ("A trusted shuffler removes who sent which report. The server then sees a multiset of n reports, "
        "and each user hides among the others: the collection as a whole is **(ε, δ)-differentially "
        "private with a central ε far below the local ε₀**. Bounds of Feldman, McMillan & Talwar "
        "(*Hiding among the clones*, FOCS 2021) — their closed form and their numerical analysis (an upper "
        "and a lower bound, computed here with every interval summed) — and, for GRR, Balle et al.'s "
        "privacy blanket (CRYPTO 2019).")
    if not presenting:
        st.markdown(shuffle_intro)
    c1, c2, c3, c4 = st.columns(4)
    epsilon0 = float(render(SH_EPS0, c1))
    delta = float(render(SH_DELTA, c2))
    n = int(render(SH_N, c3))
    d = int(render(SH_D, c4))
    chart_place = common.main_chart_slot()
    b = _bounds(n, epsilon0, delta, d)
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("Central ε, numerical upper bound", f"{b.upper:.4g}")
    m2.metric("…lower bound", f"{b.lower:.4g}")
    m3.metric("Closed form (Thm 3.1)", "condition fails" if b.closed_form is None else f"{b.closed_form:.4g}")
    m4.metric("Privacy blanket (GRR)", "above 1 (not valid)" if b.blanket is None else f"{b.blanket:.4g}")
    if b.closed_form is None:
        limit = math.log(n / (16 * math.log(2 / delta))) if n > 16 * math.log(2 / delta) else float("-inf")
        st.caption(f"The closed form holds only for ε₀ ≤ log(n / (16 log(2/δ))) = {limit:.3g}; it says nothing "
                   "here, so no number is shown.")
    curve = _curve(epsilon0, delta, d)
    fig = common.cached_figure(("priv_shuffle_chart", epsilon0, delta, d), lambda: viz.shuffle_figure(curve)[0])
    common.show_figure(fig, "priv_shuffle_chart", viz.shuffle_table(curve), main=True, where=chart_place,
                       present_height=370,
                       description=f"Central ε of n shuffled ε₀ = {epsilon0:g} reports at δ = {delta:.0e}, for n "
                                   "from 10³ to 10⁷.")
    if presenting:
        st.markdown(shuffle_intro)
    st.markdown("#### The inverse: how much local noise can we drop for a promised central ε?")
    target = float(render(SH_TARGET))
    rows = _error_bought(target, n, delta, d)
    st.markdown(f"With **n = {n:,}** shuffled users, a central **ε = {target:g}** (δ = {delta:.0e}) allows each "
                f"report a local **ε₀ = {rows[0]['epsilon0_shuffled']:.3g}**. The error that buys, from the closed "
                "variance of one frequency estimate (matrix inversion, a rare value):")
    frame = pd.DataFrame(rows)
    frame["std_local"] = np.sqrt(frame["variance_local"])
    frame["std_shuffled"] = np.sqrt(frame["variance_shuffled"])
    st.dataframe(frame[["mechanism", "epsilon_local", "epsilon0_shuffled", "std_local", "std_shuffled",
                        "error_ratio"]].style.format(precision=4), key="priv_error_table", hide_index=True)


# --------------------------------------------------------------------------- 2 · audit
@section
def audit_section() -> None:
    st.subheader("2 · How do we know the implementation keeps its promise?")
    st.markdown("An **empirical audit** (after LDP-Audit, Arcolezi & Gambs, PETS 2024): run the client's "
                "randomizer many times on two inputs, pick the output event that best tells them apart (on "
                "held-out reports), and bound ε from below with Clopper–Pearson intervals at 95 % confidence. A "
                "correct mechanism's bound approaches its ε with more samples but never exceeds it; a bound above "
                "the claim is a bug. *Broken OLH* is a teaching example of a bug found in public code.")
    c1, c2, c3, c4, c5 = st.columns(5)
    name = render(AU_MECH, c1)
    epsilon = float(render(AU_EPS, c2))
    d = int(render(AU_D, c3))
    samples = int(render(AU_SAMPLES, c4))
    seed = int(render(AU_SEED, c5))
    config = (name, epsilon, d, samples, seed)
    if st.button("Run the audit", key="priv_audit_run", type="primary"):
        bar = st.progress(0.0, text="Running the randomizer…")
        fixed = (auditing.TEACHING_MECHANISMS.get(name) or ldp.MECHANISMS.get(name)).domain_parameter.fixed
        mech = auditing.make_audited(name, epsilon, None if fixed else d)  # e.g. a scalar mean: its dimension 1
        result = auditing.audit(mech, samples=samples, seed=seed,
                                progress=lambda f: bar.progress(f, text=f"Running the randomizer… {f:.0%}"))
        bar.empty()
        st.session_state["priv_audit_result"] = (config, result)
    stored = st.session_state.get("priv_audit_result")
    if not stored or stored[0] != config:
        st.caption("Press the button to run the audit for these settings.")
        return
    result = stored[1]
    verdict = ("**exceeds** the claimed ε: the implementation does not keep its promise"
               if result.epsilon_lower_bound > result.epsilon else "stays within the claimed ε")
    claim = f"{result.epsilon:g}, δ = {result.delta:g}" if result.delta else f"{result.epsilon:g}"
    st.markdown(f"With 95 % confidence ε ≥ **{result.epsilon_lower_bound:.3f}**, which {verdict} "
                f"(claimed {claim}). Inputs {result.inputs[0]} vs {result.inputs[1]}; event: "
                f"{result.event}.")
    if result.delta:
        st.caption(f"An (ε, δ) mechanism: events rarer than δ = {result.delta:g} may exceed the ratio e^ε (its density "
                   "ratio is unbounded), so no exact channel's ε is shown; the audit's events are far more likely.")
    fig, table = viz.audit_figure(result)
    common.show_figure(fig, "priv_audit_chart", table, "The audit's lower bound beside the claim.")


# --------------------------------------------------------------------------- 3 · longitudinal
@section
def longitudinal_section() -> None:
    st.subheader("3 · What if we collect every day?")
    st.markdown("One user reports the same value every round with GRR. **Fresh reports** compose: after τ rounds "
                "the guarantee is τ·ε1 and the attacker's posterior on the true value tends to certainty. "
                "**Memoized** reports (L-GRR: a GRR(ε∞) value drawn once, re-randomized each round) cost ε1 each "
                "but never more than ε∞ together: the attacker learns at most the memoized value.")
    d, e_inf, e_1, seed = common.render_row([LO_D, LO_EPS_INF, LO_EPS_1, LO_SEED])
    d, e_inf, e_1, seed = int(d), float(e_inf), float(e_1), int(seed)
    if e_1 >= e_inf:
        st.warning("Choose ε1 below ε∞: one report must cost less than the memoized value.")
        return
    fig, table = _longitudinal_chart(d, e_inf, e_1, seed)
    common.show_figure(fig, "priv_long_chart", table,
                       description="Mean posterior of the Bayes attacker on the true value over 10,000 simulated "
                                   "users (uniform prior), with the ε-DP worst cases.")


# --------------------------------------------------------------------------- 4 · poisoning
@section
def poisoning_section() -> None:
    st.subheader("4 · What if some users lie?")
    st.markdown("Fake users send crafted reports to promote r target items (the **maximal-gain attack** of Cao, "
                "Jia & Gong, USENIX Security 2021): GRR fakes report a target, OUE fakes set every target bit, OLH "
                "fakes pick a hash that maps all targets to one value. The lines are the closed-form gain of the "
                "targets' estimated frequency; markers are simulations (100,000 genuine users, Zipf data, targets "
                "= the r rarest values), with matrix inversion and after Norm-Sub.")
    epsilon, d, r, seed = common.render_row([PO_EPS, PO_D, PO_R, PO_SEED])
    epsilon, d, r, seed = float(epsilon), int(d), int(r), int(seed)
    if r >= d:
        st.warning("Choose fewer targets than values.")
        return
    curves, sims = _poison(epsilon, d, r, seed)
    fig, table = _poison_chart(epsilon, d, r, seed)
    common.show_figure(fig, "priv_poison_chart", table,
                       description="Gain of the targets' total estimated frequency vs the fraction of fake users.")
    at = {row["mechanism"]: row["expected_gain"] for row in curves if row["beta"] == 0.05}
    worst = max(at, key=at.get)
    best = min(at, key=at.get)
    post = {r.mechanism: r.simulated_gain.get("norm-sub") for r in sims if abs(r.beta - 0.05) < 0.005}
    post_text = ", ".join(f"{m.upper()} {g:.3f}" for m, g in post.items() if g is not None)
    st.markdown(f"At ε = {epsilon:g} and 5 % fake users, **{best.upper()}** is the most robust (gain "
                f"{at[best]:.3f} with matrix inversion) and **{worst.upper()}** the least ({at[worst]:.3f}). "
                f"After Norm-Sub (simulated): {post_text} — the consistency step takes back part of the promoted "
                "mass, most where the attack promoted most.")


common.page_heading("Privacy questions", "Four questions beyond the error of one collection. Each section has its "
                    "own controls.")
shuffle_section()
st.divider()
audit_section()
st.divider()
longitudinal_section()
st.divider()
poisoning_section()
