"""Learn — the lecture "Local Differential Privacy (Part 1)" made interactive: the ε-LDP definition
checked live on a mechanism's exact channel, Warner's randomized response with the 80/20 example,
one user's report under every mechanism, the channel matrix, the comparison table for the chosen ε
and d, and answering several questions (split ε or partition users); in expanders under their tabs, sequential
composition on GRR's exact channel, central-DP vs LDP noise on a count, Hoeffding/Bernstein bounds against the exact
intervals, the unary-encoding worked example and GRR's p as d grows (the lecture's table).

Wiring and text only: the controls are declared below; the maths is in ``ldp.studies.lecture`` and the figures
in ``ldp.viz.lecture``.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

import ldp
from ldp.studies import choices, lecture
from ldp.viz import lecture as viz
from views import common
from views.controls import Control, render
from views.deployment_panel import MAX_COMPARED_VALUES, show_deployments

MAX_HEATMAP_COLUMNS = 64  # a full channel with more outputs is drawn truncated (and says so)
WARNER_CLASSES = 1000  # repeated classes for the spread of Warner's estimate
SIM_TRIALS, SIM_D = 200, 32  # split-vs-partition simulation: collections and values per question
VIEWS = {"Support probabilities": "Pr[report supports u | v], a d × d matrix",
         "Full channel": "Pr[y | v] for every output y"}

# --------------------------------------------------------------------------- controls (each stated once)
MECH = common.mechanism_controls("learn_mech", eps_key="learn_eps", default="grr")
D = Control("learn_d", "slider", "Domain size d (small: the channel is enumerated)", 4, min_value=2, max_value=8)
TABS = ("1 · ε-LDP definition", "2 · Warner's randomized response", "3 · One user's report", "4 · Channel matrix",
        "5 · Comparison table", "6 · Q questions")
W_SOURCE = Control("learn_w_source", "radio", "The class", "described", options=["described", "election"],
                   horizontal=True, format_func={"described": "a class you describe",
                                                 "election": "a real survey: the 1996 US election"}.get,
                   help="The real survey asks 944 people whether they expect to vote for Dole — a secret ballot.")
W_N = Control("learn_w_n", "number_input", "People in the class", 100, min_value=2, max_value=100_000, step=10)
W_YES = Control("learn_w_yes", "number_input", "…of whom truly 'yes'", min_value=0, step=1,
                depends=lambda n: {"max_value": n, "default": min(80, n)})
W_T = Control("learn_w_t", "slider", "Truth coin: Pr[heads]", 0.5, min_value=0.05, max_value=0.95, step=0.05,
              help="Probability of answering truthfully; the lecture uses 0.5")
W_SEED = common.seed_control("learn_w_seed")
U_D = Control("learn_u_d", "slider", "Domain size d", 8, min_value=2, max_value=16)
U_V = Control("learn_u_v", "selectbox", "The user's value v",
              depends=lambda d: {"options": list(range(d)), "default": min(3, d - 1)})
U_SEED = common.seed_control("learn_u_seed")
HM_VIEW = Control("learn_hm_view", "radio", "View", options=list(VIEWS), horizontal=True,
                  depends=lambda single: {"default": "Full channel" if single else "Support probabilities"},
                  help=" · ".join(f"{view}: {what}" for view, what in VIEWS.items()))
CMP_D = Control("learn_cmp_d", "number_input", "Domain size d", 100, min_value=2, max_value=2**24, step=1)
CMP_N = Control("learn_cmp_n", "number_input", "Users n (for the typical error)", 10_000, min_value=1,
                max_value=10**9, step=1000)
Q = Control("learn_q", "slider", "Questions Q", 2, min_value=1, max_value=10)
Q_N = Control("learn_q_n", "number_input", "Users n", 10_000, min_value=10, max_value=10**8, step=1000)
Q_K = Control("learn_q_k", "slider", "K: questions each user answers", min_value=1,
              depends=lambda questions: {"max_value": questions, "default": min(2, questions)},
              help="Each user answers K of the Q questions, chosen at random, with ε/K each.")
Q_SEED = common.seed_control("learn_q_seed")
CONTROLS = (W_SOURCE, *MECH, D, W_N, W_YES, W_T, W_SEED, U_D, U_V, U_SEED, HM_VIEW, CMP_D, CMP_N, Q, Q_N, Q_K, Q_SEED)


# --------------------------------------------------------------------------- helpers


section = common.section


def _simulated(title: str, seed: Control, button: str, key: str, config: Sequence[Any], waiting: str) -> int | None:
    """A seed and a button (``key``) under ``title``: the seed once the button was pressed for this configuration
    (until the configuration or the seed changes), else None after showing ``waiting``."""
    st.markdown(f"#### {title}")
    c1, c2 = st.columns([1, 2])
    value = int(render(seed, c1))
    pressed = f"{key}_pressed_for"  # the configuration the button was last pressed for (an action, not a setting)
    if c2.button(button, key=key, type="primary"):
        st.session_state[pressed] = (*config, value)
    if st.session_state.get(pressed) != (*config, value):
        st.caption(waiting)
        return None
    return value


def _mechanism(name: str, epsilon: float, d: int, epsilon_1: float | None) -> ldp.Mechanism:
    return ldp.get_mechanism(name, epsilon, d, **choices.mechanism_parameters(name, epsilon, epsilon_1))


@st.cache_data(show_spinner=False, max_entries=64)
def _channel(name: str, epsilon: float, d: int, epsilon_1: float | None) -> tuple[np.ndarray, list[str]]:
    return _mechanism(name, epsilon, d, epsilon_1).channel()


@st.cache_data(show_spinner=False, max_entries=64)
def _privacy_check(name: str, epsilon: float, d: int, epsilon_1: float | None) -> lecture.PrivacyCheck:
    return lecture.privacy_check(_mechanism(name, epsilon, d, epsilon_1))


@st.cache_data(show_spinner=False, max_entries=64)
def _support_probabilities(name: str, epsilon: float, d: int, epsilon_1: float | None) -> np.ndarray:
    matrix, labels = _channel(name, epsilon, d, epsilon_1)
    return _mechanism(name, epsilon, d, epsilon_1).support_probabilities(matrix, labels)


@st.cache_data(show_spinner=False, max_entries=16)
def _warner_simulate(n_yes: int, n_no: int, t: float, seed: int) -> lecture.WarnerSimulation:
    return lecture.warner_simulate(n_yes, n_no, t, seed=seed, classes=WARNER_CLASSES)


@st.cache_data(show_spinner=False, max_entries=32)
def _one_user(value: int, d: int, epsilon: float, seed: int, epsilon_1: float | None) -> pd.DataFrame:
    return lecture.one_user_reports(value, d, epsilon, seed=seed, epsilon_1=epsilon_1)


@st.cache_data(show_spinner=False, max_entries=16)
def _k_of_q_simulation(epsilon: float, questions: int, n: int, ks: tuple[int, ...], seed: int) -> pd.DataFrame:
    return lecture.k_of_q_simulation(epsilon, questions, n, ks, d=SIM_D, trials=SIM_TRIALS, seed=seed)


def _fmt(table: pd.DataFrame, digits: str = "{:.4g}") -> Any:
    numeric = [c for c in table.columns if pd.api.types.is_float_dtype(table[c])]
    return table.style.format(digits, subset=numeric)


# --------------------------------------------------------------------------- 1 · definition
@st.fragment
@section
def definition_section(name: str, epsilon: float, d: int, epsilon_1: float | None) -> None:
    st.subheader("The ε-LDP definition")
    if common.presenting():  # on a projector the definition's picture comes first, the prose follows it
        _definition_picture(name, epsilon, d, epsilon_1)
    st.markdown("Each user randomizes their own value before it leaves their device. A randomized algorithm "
                "A satisfies **ε-local differential privacy** iff for any two inputs x, x′ and any output y")
    st.latex(r"\Pr[A(x) = y] \;\le\; e^{\varepsilon}\,\Pr[A(x') = y].")
    st.markdown("Any output is about as likely whatever the user's secret is: seeing the report, nobody can be "
                "sure of the value. **Smaller ε → stronger privacy.** Like central DP, post-processing a report "
                "is free and k reports with budgets ε₁, …, εₖ cost Σεᵢ (sequential composition); unlike it, "
                "there is no parallel composition inside one user — each user has only one record.")
    st.markdown("#### Live check on the chosen mechanism")
    st.caption("Mechanism, ε and d come from the sidebar. The check enumerates every output of the mechanism "
               "(every report, hash function or subset) and takes the largest ratio over outputs and input pairs:")
    st.latex(r"\max_{y}\;\max_{v,\,v'}\;\frac{\Pr[y \mid v]}{\Pr[y \mid v']}\;\overset{?}{\le}\;e^{\varepsilon}")
    mech = _mechanism(name, epsilon, d, epsilon_1)
    if not mech.pure:
        _she_explanation(mech)
        return
    try:
        check = _privacy_check(name, epsilon, d, epsilon_1)
    except ldp.LDPError as exc:
        hint = "Lower d (or ε, where a parameter such as OLH's hash range grows with it) to enumerate it."
        st.warning(f"The exact channel is too large to enumerate here ({exc}). {hint} The mechanism itself is "
                   "unaffected: only this exhaustive check needs a small output set.")
        return
    c1, c2, c3 = st.columns(3)
    c1.metric("Largest ratio Pr[y|v] / Pr[y|v′]", f"{check.ratio:.6g}", help=f"over {check.outputs:,} outputs")
    c2.metric(f"Bound e^{check.budget_name}", f"{check.bound:.6g}", help=f"{check.budget_name} = {check.budget:g}")
    gap = check.loss - check.budget
    c3.metric("Privacy loss ln(ratio)", f"{check.loss:.6g}", delta_color="off",
              delta=None if check.verdict == "exact" else f"{gap:+.3g} vs {check.budget_name}")
    {"exact": st.success, "under": st.info, "violation": st.error}[check.verdict](check.message)
    v, v2 = check.worst_inputs
    st.markdown(f"Worst case: output **y = `{check.worst_output}`** is {check.ratio:.4g}× more likely when the user "
                f"holds **v = {v}** than when they hold **v′ = {v2}** ({check.outputs:,} outputs enumerated).")
    if check.first_step_loss is not None:
        c1, c2 = st.columns(2)
        c1.metric("First (memoized) step: ln ratio", f"{check.first_step_loss:.6g}")
        c2.metric("ε∞", f"{mech.epsilon:g}")
        for note in check.notes:
            st.caption(note)
    matrix, labels = _channel(name, epsilon, d, epsilon_1)
    with st.expander("The outputs with the largest ratios"):
        st.dataframe(_fmt(lecture.ratio_table(matrix, labels)), hide_index=True, key="learn_ratio_table")


def _definition_picture(name: str, epsilon: float, d: int, epsilon_1: float | None) -> None:
    """The chosen mechanism's support probabilities as a heatmap: the definition's ratio, p*/q* ≤ e^ε, at a glance."""
    try:
        mech = _mechanism(name, epsilon, d, epsilon_1)
        if not mech.pure:  # support probabilities p*, q* exist for pure mechanisms only
            return
        support = mech.support_probabilities()
    except ldp.LDPError:
        return  # the live check below says why
    values = [str(v) for v in range(d)]
    fig = viz.probability_heatmap(support, values, values,
                                  title=f"{mech.display_name}: Pr[report supports u | v], ε = {epsilon:g}",
                                  x_title="supported value u")
    common.show_figure(fig, "learn_def_support", viz.heatmap_table(support, values, values), main=True,
                       present_height=400, description=(
        f"p* = {mech.p_star:.3g} on the diagonal (the report supports the user's own value), q* = {mech.q_star:.3g} "
        f"elsewhere: their ratio {mech.p_star / mech.q_star:.3g} is at most e^ε = {math.exp(epsilon):.3g}."))


def _she_explanation(mech: ldp.Mechanism) -> None:
    info = lecture.she_privacy(mech)
    st.info("SHE's reports are **continuous** (the one-hot vector plus Laplace noise on every coordinate), so "
            "there is no finite channel to enumerate: the check is a bound on the density ratio.")
    st.latex(r"f(y \mid v) = \prod_{j=1}^{d} \frac{1}{2b}\, e^{-|y_j - \mathbb{1}[j = v]|/b}, \qquad b = 2/\varepsilon")
    st.latex(r"\ln\frac{f(y\mid v')}{f(y\mid v)} = "
             r"\frac{\big(|y_v - 1| - |y_v|\big) + \big(|y_{v'}| - |y_{v'} - 1|\big)}{b}"
             r"\;\le\; \frac{1 + 1}{b} = \varepsilon")
    st.markdown("Each bracket is at most 1 (triangle inequality) and only the two coordinates v and v′ differ, so "
                "the ratio is at most e^(2/b) = e^ε, with equality whenever y_v ≤ 0 and y_v′ ≥ 1.")
    c1, c2, c3 = st.columns(3)
    c1.metric("Laplace scale b = 2/ε", f"{info.scale:.4g}")
    c2.metric("ln ratio at y = one-hot(v′)", f"{info.worst_loss:.6g}", help="attains the bound ε exactly")
    c3.metric(f"max |ln ratio| over {info.samples:,} sampled reports", f"{info.sampled_max_loss:.6g}",
              help="never above ε (reports are float32, so rounding may show in the last digits)")
    st.success(f"SHE spends exactly ε = {info.epsilon:g}: the bound is attained, never exceeded.")
    common.show_figure(viz.laplace_figure(info.epsilon), "learn_she_density", viz.laplace_table(info.epsilon),
                       description=(f"Two Laplace densities with scale {info.scale:.3g}, centred at 1 (the user's own "
                                    "value) and 0 (any other value); at every point their ratio is between "
                                    f"e^(−ε/2) and e^(ε/2) = {math.exp(info.epsilon / 2):.3g}."))


# --------------------------------------------------------------------------- 2 · Warner
@st.fragment
@section
def warner_section() -> None:
    st.subheader("Warner's randomized response (1965)")
    st.markdown("A survey asks a sensitive yes/no question (*do you have the disease?*). Each person flips a "
                "secret coin: on **heads** they answer truthfully; on **tails** they flip a second fair coin and "
                "answer *yes* or *no* by it. Seeing an answer, nobody is certain of the secret.")
    source = render(W_SOURCE)
    c1, c2, c3 = st.columns(3)
    if source == "election":  # Warner's question on real data: the bundled ANES 1996 survey
        real = lecture.warner_real_class()
        n, n_yes = real.n, real.n_yes
        c1.metric("People in the survey", f"{n:,}")
        c2.metric("…truly 'yes'", f"{n_yes:,}", help=real.question)
        st.caption(f"**{real.question}** — {real.source}. The true answers are in the file; Warner's coins decide "
                   "what each respondent would say.")
    else:
        n = int(render(W_N, c1))
        n_yes = int(render(W_YES, c2, n=n))
    t = float(render(W_T, c3))
    n_no = n - n_yes
    a, b = lecture.warner_probabilities(t)
    eps = lecture.warner_epsilon(t)
    st.latex(rf"\Pr[\text{{yes}}\mid\text{{yes}}] = t + \tfrac{{1-t}}{{2}} = {a:.4g},\qquad "
             rf"\Pr[\text{{yes}}\mid\text{{no}}] = \tfrac{{1-t}}{{2}} = {b:.4g}")
    st.latex(rf"e^{{\varepsilon}} = \frac{{\Pr[\text{{yes}}\mid\text{{yes}}]}}{{\Pr[\text{{yes}}\mid\text{{no}}]}} = "
             rf"\frac{{{a:.4g}}}{{{b:.4g}}} = {math.exp(eps):.4g},\qquad \varepsilon = {eps:.4g}")
    if abs(t - 0.5) < 1e-9:
        st.caption("With the lecture's fair coin, e^ε = 0.75/0.25 = 3, i.e. ε = ln 3 ≈ 1.0986.")
    st.caption(f"Here the coin sets ε (= {eps:.4g}); the sidebar's ε drives the other sections, not this one.")
    table = lecture.warner_expected_table(n_yes, n_no, t)
    yes = float(table["→ yes"].sum())
    estimate = lecture.warner_estimate(yes, n, t)
    st.markdown("**Expected answers** (the lecture's table; truthful + random):")
    st.dataframe(_fmt(table.reset_index(), "{:.4g}"), hide_index=True, key="learn_warner_expected")
    m1, m2, m3 = st.columns(3)
    m1.metric("Expected 'yes' answers I", f"{yes:.4g}")
    m2.metric("Expected 'no' answers", f"{n - yes:.4g}")
    m3.metric("Estimate of true 'yes'", f"{estimate:.4g}", help="equals the truth: the estimator is unbiased")
    st.latex(rf"E[I] = {a:.4g}\,n_{{yes}} + {b:.4g}\,(n - n_{{yes}}),\qquad "
             rf"c = \frac{{I - {b:.4g}\,n}}{{{t:.4g}}} = \frac{{{yes:.4g} - {b * n:.4g}}}{{{t:.4g}}} = {estimate:.4g}")
    bars = viz.warner_bars(table, title=f"Expected answers, {n_yes} true 'yes' and {n_no} true 'no', t = {t:g}")
    common.show_figure(bars, "learn_warner_bars", table.reset_index(),
                       description=(f"Stacked bars: of the {n_yes} people whose truth is yes, "
                                    f"{table.loc['yes', '→ yes']:.4g} are expected to answer yes; of the {n_no} "
                                    "whose truth is no, "
                                    f"{table.loc['no', '→ yes']:.4g}. In total {yes:.4g} yes answers."))

    seed = _simulated("Simulate this class", W_SEED, "Simulate this class", "learn_w_sim", (n_yes, n_no, t),
                      f"Draws every person's two coins (seeded), then repeats the class {WARNER_CLASSES:,} times to "
                      "show how much the estimate varies.")
    if seed is None:
        return
    sim = _warner_simulate(n_yes, n_no, t, seed)
    st.dataframe(sim.table.reset_index(), hide_index=True, key="learn_warner_sim_table")
    sd_emp = sim.empirical_sd
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("Observed 'yes' answers", f"{sim.yes_answers}")
    m2.metric("Estimate of true 'yes'", f"{sim.estimate:.4g}", delta=f"{sim.estimate - n_yes:+.4g} vs truth",
              delta_color="off")
    m3.metric(f"Mean over {WARNER_CLASSES:,} classes", f"{np.mean(sim.estimates):.4g}")
    m4.metric("Spread σ (simulated / theory)", f"{sd_emp:.3g} / {sim.theoretical_sd:.3g}")
    common.show_figure(
        viz.warner_spread(sim.estimates, n_yes, sim.theoretical_sd,
                          title=f"Estimated true 'yes' over {WARNER_CLASSES:,} simulated classes (seed {seed})",
                          step=1 / t),
        "learn_warner_spread", pd.DataFrame({"class": np.arange(1, sim.estimates.size + 1), "estimate": sim.estimates}),
        description=(f"Histogram of {WARNER_CLASSES:,} estimates centred near the truth {n_yes}; their standard "
                     f"deviation is {sd_emp:.3g}, theory says {sim.theoretical_sd:.3g}."))
    st.caption("The estimate is unbiased but noisy: its σ grows like √n while the count grows like n, so the "
               "relative error shrinks as the class grows.")


# --------------------------------------------------------------------------- 3 · one user
@st.fragment
@section
def one_user_section(epsilon: float, epsilon_1: float | None) -> None:
    st.subheader("One user's value and the report each mechanism would send")
    c1, c2, c3 = st.columns(3)
    d = int(render(U_D, c1))
    value = int(render(U_V, c2, d=d))
    seed = int(render(U_SEED, c3))
    eps1 = epsilon_1 if epsilon_1 is not None else epsilon / 2
    st.caption(f"ε = {epsilon:g} (sidebar); longitudinal mechanisms use ε∞ = {epsilon:g} and ε1 = {eps1:g} for the "
               "report. A report 'supports' the values whose count C(v) it increments; the server estimates "
               "f̂(v) = (C(v) − n q*) / (n (p* − q*)).")
    table = _one_user(value, d, epsilon, seed, epsilon_1)
    shown = table.drop(columns=["name"]).copy()
    shown["support size"] = shown["support size"].astype("Int64")
    order = ["mechanism", "report", "supports", "supports own value", "bits", "bits formula", "communication", "kind",
             "how to read it"]
    st.dataframe(shown, hide_index=True, key="learn_one_user", column_order=order, height=38 + 35 * len(shown),
                 column_config={
                     "report": st.column_config.TextColumn("report (as sent)", width="medium"),
                     "bits": st.column_config.NumberColumn("size (bits)", format="%d"),
                     "how to read it": st.column_config.TextColumn(width="large"),
                 })
    own = table["supports own value"].dropna().astype(bool)
    st.caption(f"With this seed {int(own.sum())} of {own.size} pure mechanisms' reports support the true value "
               f"{value}: each does with probability p*, any other value with q* < p* — that gap is all the "
               "server learns from.")


# --------------------------------------------------------------------------- 4 · channel heatmap
@st.fragment
@section
def heatmap_section(name: str, epsilon: float, d: int, epsilon_1: float | None) -> None:
    st.subheader("The channel matrix Pr[y | v]")
    mech = _mechanism(name, epsilon, d, epsilon_1)
    st.caption(f"{mech.display_name}, ε = {epsilon:g}, d = {d} (sidebar). Row v is the distribution of the report "
               "when the user holds v; ε-LDP bounds the ratio of any two entries in the same column by e^ε.")
    if not mech.pure:
        st.info("SHE's reports are real vectors: its channel is a density, not a matrix. Each coordinate is "
                "Laplace noise centred at 1 (the user's own value) or 0 (any other value):")
        common.show_figure(viz.laplace_figure(epsilon), "learn_hm_she", viz.laplace_table(epsilon),
                           description="The two per-coordinate densities of an SHE report; their ratio never exceeds "
                                       f"e^(ε/2) = {math.exp(epsilon / 2):.3g}.")
        return
    views = list(VIEWS)
    view = render(HM_VIEW, single=mech.support_size() == 1)
    values = [str(v) for v in range(d)]
    try:
        matrix, labels = _channel(name, epsilon, d, epsilon_1)
    except ldp.LDPError as exc:
        matrix, labels = None, None
        st.warning(f"The full channel cannot be enumerated here ({exc}); showing the support probabilities, "
                   "computed from p* and q*.")
        view = views[0]
    if view == views[0]:
        support = (_support_probabilities(name, epsilon, d, epsilon_1) if matrix is not None
                   else mech.support_probabilities())
        source = (f"summed over all {len(labels):,} outputs of the exact channel" if labels is not None
                  else "from p* and q*")
        extra = " (For bit-vector reports these are the per-bit probabilities Pr[bit u = 1 | v].)"
        fig = viz.probability_heatmap(support, values, values,
                                      title=f"{mech.display_name}: Pr[report supports u | v], ε = {epsilon:g}",
                                      x_title="supported value u")
        common.show_figure(fig, "learn_hm_support", viz.heatmap_table(support, values, values), description=(
            f"A {d} × {d} heatmap: p* = {mech.p_star:.3g} on the diagonal (the report supports the user's own value) "
            f"and q* = {mech.q_star:.3g} elsewhere, {source}.{extra}"))
        return
    cols = len(labels)
    if cols > MAX_HEATMAP_COLUMNS:
        st.info(f"The channel has {cols:,} outputs; the heatmap shows the first {MAX_HEATMAP_COLUMNS} "
                "(the table below the chart lists the same columns). The support view summarises all of them.")
    fig = viz.probability_heatmap(matrix, labels, values, title=f"{mech.display_name}: Pr[y | v], ε = {epsilon:g}",
                                  x_title=f"report y: {mech.report_format}", max_columns=MAX_HEATMAP_COLUMNS)
    common.show_figure(fig, "learn_hm_full", viz.heatmap_table(matrix, labels, values, MAX_HEATMAP_COLUMNS),
                       description=(f"Heatmap of {d} inputs by {min(cols, MAX_HEATMAP_COLUMNS)} outputs; in every "
                                    f"column the largest entry is at most e^ε = {math.exp(epsilon):.3g} times the "
                                    "smallest."))


# --------------------------------------------------------------------------- 5 · comparison
@st.fragment
@section
def comparison_section(epsilon: float) -> None:
    st.subheader("Comparison of mechanisms")
    c1, c2 = st.columns(2)
    d = int(render(CMP_D, c1))
    n = int(render(CMP_N, c2))
    st.caption(f"ε = {epsilon:g} (sidebar). Var[c̃(i)]/n is the variance of an estimated count divided by n "
               "(= n·Var[f̂(i)]) for a value of negligible frequency; lower is better.")
    table = lecture.comparison_table(epsilon, d, n)
    best = table.loc[table["best"], "mechanism"].tolist()

    def highlight(row: pd.Series) -> list[str]:
        return ["background-color: #CCE8DE; font-weight: bold" if row["best"] else ""] * len(row)

    st.dataframe(_fmt(table.drop(columns=["name"])).apply(highlight, axis=1), hide_index=True, key="learn_cmp_table")
    rule = lecture.de_rule(epsilon, d)
    st.markdown("**The lecture's rule** (DE's variance beats OUE/OLH's exactly when d − 2 + e^ε < 4e^ε):")
    st.latex(r"\text{if } d < 3e^{\varepsilon} + 2 \text{ use DE (GRR), else OLH (if communication matters) or OUE}")
    st.success(rule.message)
    st.markdown(f"Smallest variance in the table (our implementations): **{', '.join(best)}**. SS (not in the "
                "lecture's table) is slightly better than OUE, especially for small d.")
    st.caption("Differences between the lecture and our values: THE's lecture value is for θ = 1, ours uses the "
               "variance-optimal θ; BLH/OLH's lecture value assumes g = e^ε + 1 and q* = 1/g, ours uses an integer g "
               "and the exact collision probability of a finite hash family (mod a prime P ≥ d). The lecture counts "
               "a hash function as O(log n) bits (a seed per user); we send its parameters a, b.")
    common.show_figure(viz.comparison_figure(table, title=f"Var[c̃(i)]/n per mechanism, ε = {epsilon:g}, d = {d:,}"),
                       "learn_cmp_fig", table[["mechanism", "lecture value", "ours: approximate_variance(1)", "best"]],
                       description=(f"Horizontal bars (log scale) of each mechanism's variance; the lowest is "
                                    f"{', '.join(best)} at {table['ours: approximate_variance(1)'].min():.4g}."))


# --------------------------------------------------------------------------- 6 · Q questions
@st.fragment
@section
def questions_section(epsilon: float) -> None:
    st.subheader("Answering Q questions: split the budget or partition the users?")
    st.markdown("Each of n users could answer all Q questions with ε/Q each (sequential composition), or the users "
                "could be split into Q groups that each answer one question with the full ε. With OLH:")
    st.latex(r"\text{split: } \operatorname{Var}[\hat f(v)] = \frac{4e^{\varepsilon/Q}}{n\,(e^{\varepsilon/Q}-1)^2}"
             r"\qquad \text{partition: } \operatorname{Var}[\hat f(v)] = "
             r"\frac{Q\cdot 4e^{\varepsilon}}{n\,(e^{\varepsilon}-1)^2}")
    c1, c2 = st.columns(2)
    q = int(render(Q, c1))
    n = int(render(Q_N, c2))
    grid = np.asarray(common.EPS_GRID)
    curves = lecture.split_vs_partition_curves(q, n, grid)
    split, part = lecture.split_vs_partition_variance(epsilon, q, n)
    m1, m2, m3 = st.columns(3)
    m1.metric(f"Split the budget (ε/{q} each)", f"{float(split):.3g}")
    m2.metric(f"Partition users (n/{q} each)", f"{float(part):.3g}")
    m3.metric("split / partition", f"{float(split) / float(part):.3g}")
    st.markdown(lecture.split_vs_partition_conclusion(epsilon, q, n, grid))
    ratio = curves["split / partition"]
    common.show_figure(viz.split_vs_partition_figure(curves, epsilon=epsilon, questions=q, n=n), "learn_q_fig", curves,
                       description=("Two curves of the per-question variance against ε (both axes logarithmic); "
                                    + ("with one question they coincide." if q == 1 else
                                       f"the partition curve is below the split curve by a factor of {ratio.min():.3g} "
                                       f"to {ratio.max():.3g}." if ratio.min() > 1 else
                                       f"their ratio split / partition ranges from {ratio.min():.3g} to "
                                       f"{ratio.max():.3g}.")))
    k = 1
    if q >= 2:
        st.markdown("**In between: every user answers K of the Q questions**, chosen at random, with ε/K each — "
                    "K = 1 is partitioning, K = Q splitting. Each question then has about nK/Q answers. The lecture "
                    "drops the variance of *which* users answer; kept, it makes more answers per user pay off once "
                    "ε is large enough that OLH's own noise is small.")
        k = int(render(Q_K, questions=q))
        if n < q:
            st.error(f"Every question needs at least one answer: raise n above Q = {q}.")
            return
        table = lecture.k_of_q_table(epsilon, q, n, d=SIM_D)
        best = int(table.loc[table["vs best K"].idxmin(), "K"])
        mine = table.set_index("K").loc[k]
        common.show_figure(viz.k_of_q_figure(table, epsilon=epsilon, questions=q, n=n), "learn_kq_fig", table,
                           description=(f"Per-question variance against K, {SIM_D} equally frequent values per "
                                        "question: the lecture's formula (dashed) and the exact variance with the "
                                        "answerers' sampling (solid)."))
        st.markdown(f"At ε = {epsilon:g}, the best K is **{best}** ({lecture.k_of_q_label(q, best)}); K = {k} "
                    f"({lecture.k_of_q_label(q, k)}) has {mine['vs best K']:.3g}× its variance.")
    ks = tuple(sorted({1, k, q}))
    seed = _simulated("Verify by simulation", Q_SEED, "Simulate the strategies", "learn_q_sim", (epsilon, q, n, k),
                      f"Runs {SIM_TRIALS} collections of one question (OLH, fast engine, {SIM_D} equally frequent "
                      "values, a random set of answerers each time) for K = " + ", ".join(map(str, ks))
                      + " and measures the squared error of the frequency estimates against all n users.")
    if seed is None:
        return
    if n < q:
        st.error(f"Partitioning needs at least one user per question: raise n above Q = {q}.")
        return
    with st.spinner("Simulating…"):
        result = _k_of_q_simulation(epsilon, q, n, ks, seed)
    st.dataframe(_fmt(result), hide_index=True, key="learn_q_sim_table")
    rel = lecture.variance_relative_se(SIM_TRIALS + 1, SIM_D)
    st.caption(f"The simulated errors should match the closed form within a few × {rel:.1%} (the relative "
               f"standard error of a mean squared error from {SIM_TRIALS} trials and {SIM_D} values); the lecture's "
               "formula ignores the f(1 − f) terms and OLH's integer g, so it differs.")


# --------------------------------------------------------------------------- more from the lecture (in expanders)
# Each below sits in an expander under the tab it belongs to, so a tab's first screen is unchanged, and runs only
# while open. Streamlit does not nest expanders, so these charts draw their plotted values as a table right below.
DP_NS = np.geomspace(10, 1e7, 25)  # users for the central-DP vs LDP curves
DP_SIM_NS, DP_SIM_TRIALS = (1_000, 100_000), 200  # the empirical check
BOUND_NS, BOUND_EPS = (100, 1_000, 10_000, 100_000), (0.5, 1.0, 2.0, 4.0)
COMPOSITION_REPORTS = 5


@contextlib.contextmanager
def _expander(title: str, key: str, intro: str = "", *formulas: str) -> Iterator[bool]:
    """A collapsed section of the lecture that runs only while open (a lazy expander: opening it reruns its
    fragment), so the closed sections cost a page nothing. Draws the introduction and formulas when open and
    yields whether it is; the ``with`` block returns when it is not. Its state is bound to the URL, like the tabs: it
    stays open while another tab (whose sections do not run) is shown, and a link reopens it."""
    box = common.lazy_expander(title, key)
    with box:
        if box.open:
            if intro:
                st.markdown(intro)
            for formula in formulas:
                st.latex(formula)
        yield bool(box.open)


def _figure_and_values(fig: Any, key: str, table: pd.DataFrame, description: str) -> None:
    """A chart inside an expander, with its values as a table right below it (``{key}_fig``, ``{key}_table``)."""
    common.show_figure(fig, f"{key}_fig", description=description)
    st.dataframe(_fmt(table), hide_index=True, key=f"{key}_table")


@st.cache_data(show_spinner=False, max_entries=32)
def _composition(epsilon: float, d: int) -> pd.DataFrame:
    return lecture.composition_table(epsilon, d, COMPOSITION_REPORTS)


@st.cache_data(show_spinner=False, max_entries=16)
def _dp_simulation(epsilon: float, d: int) -> pd.DataFrame:
    return lecture.dp_vs_ldp_simulation(epsilon, d, DP_SIM_NS, trials=DP_SIM_TRIALS, seed=0)


@st.cache_data(show_spinner=False, max_entries=16)
def _bound_widths(d: int, epsilons: tuple[float, ...]) -> pd.DataFrame:
    return lecture.bound_widths("grr", d, BOUND_NS, epsilons)


@st.fragment
@section
def composition_section(epsilon: float, d: int) -> None:
    with _expander("Sequential composition, demonstrated: two reports at ε against one at 2ε", "learn_x_composition",
                   f"One user reports the same value k times with GRR at ε = {epsilon:g} each (d = {d}, sidebar). "
                   "Sequential composition says the k reports together are kε-LDP. Below, both the privacy loss and "
                   "the best guess of an attacker who knows the mechanism (and that the value is uniform on the d "
                   "values) are computed exactly from the channel of the k reports, Pr[(y₁, …, yₖ) | v] = "
                   "Π Pr[yⱼ | v], against one report at kε.") as shown:
        if not shown:
            return
        table = _composition(epsilon, d)
        if len(table) < 2:
            st.info(f"GRR cannot be built at 2ε = {2 * epsilon:g}: lower ε to compare.")
            return
        row = table.set_index("reports k").loc[2]
        c1, c2, c3, c4 = st.columns(4)
        c1.metric("Privacy loss: 2 reports at ε", f"{row['loss: k reports at ε']:.6g}")
        c2.metric("Privacy loss: 1 report at 2ε", f"{row['loss: one report at kε']:.6g}")
        c3.metric("Attacker: 2 reports at ε", f"{row['attacker: k reports at ε']:.4g}",
                  help=f"one report at ε: {row['attacker: one report at ε']:.4g}; no report: {1 / d:.4g}")
        c4.metric("Attacker: 1 report at 2ε", f"{row['attacker: one report at kε']:.4g}",
                  help="= the 2ε-LDP ceiling e^(2ε) / (e^(2ε) + d − 1)")
        same = abs(row["attacker: k reports at ε"] - row["attacker: one report at ε"]) < 1e-12
        st.markdown(
            f"**The privacy loss is the same**: both spend exactly 2ε = {2 * epsilon:g} (the worst output, two equal "
            "reports, is e^(2ε) times likelier under one value than another) — the composition bound is attained. "
            f"**The attacker's guess is not**: one report at 2ε reaches the 2ε ceiling "
            f"({row['attacker: one report at kε']:.4g}), two at ε reach {row['attacker: k reports at ε']:.4g}"
            + (" — no better than a single report at ε: when the two reports differ, the attacker can only pick one "
               "of them." if same else ".")
            + " The budget bounds what any attacker can learn; it does not say every way to spend it leaks alike.")
        once, many = table["attacker: one report at kε"], table["attacker: k reports at ε"]
        _figure_and_values(viz.composition_figure(table, epsilon=epsilon, d=d), "learn_comp", table, (
            f"Lines of the attacker's success against k = 1 to {int(table['reports k'].max())}: one report at kε "
            f"rises from {once.iloc[0]:.3g} to {once.iloc[-1]:.3g}, k reports at ε from {many.iloc[0]:.3g} to "
            f"{many.iloc[-1]:.3g}."))


@st.fragment
@section
def dp_vs_ldp_section(epsilon: float, d: int) -> None:
    with _expander("Central DP vs LDP: how much noise on a count?", "learn_x_dp",
                   "Central DP protects **neighbouring datasets**: one person changes a count by at most 1, so "
                   "Laplace noise of scale 1/ε suffices, whatever n. LDP protects **any two values** of each user: "
                   "every report is noisy, and the noise of n reports adds up.",
                   r"\text{central: } \sigma = \frac{\sqrt2}{\varepsilon} = \Theta(1)\qquad"
                   r"\text{LDP: } \sigma = \sqrt{n\cdot\operatorname{Var}[\tilde c(i)]/n} = \Theta(\sqrt n)") as shown:
        if not shown:
            return
        curves = lecture.dp_vs_ldp_curves(epsilon, d, DP_NS)
        sim = _dp_simulation(epsilon, d)
        big = curves[curves["n"] == curves["n"].max()]
        central = float(lecture.central_count_sd(epsilon))
        worst = sim["simulated / closed form"].sub(1).abs().div(sim["relative SE"]).max()
        st.caption(f"Divided by n (a frequency), the noise is Θ(1/n) against Θ(1/√n). Simulation: the count of a "
                   f"value nobody holds, {DP_SIM_TRIALS} runs per n (fast engine, seed 0); the worst simulated σ is "
                   f"{worst:.2g} standard errors from its closed form.")
        _figure_and_values(viz.dp_vs_ldp_figure(curves, sim, epsilon=epsilon), "learn_dp", sim, (
            f"Log–log lines of σ against n (ε = {epsilon:g}, d = {d}): central Laplace stays at {central:.3g} people; "
            f"the LDP lines rise with slope ½, to {big['σ of the count'].iloc[1:].min():,.0f}–"
            f"{big['σ of the count'].iloc[1:].max():,.0f} people at n = {int(big['n'].max()):,}. Open circles: "
            f"{DP_SIM_TRIALS} simulated collections at n = " + " and ".join(f"{n:,}" for n in DP_SIM_NS) + "."))


@st.fragment
@section
def bounds_section(epsilon: float, d: int) -> None:
    with _expander("How far off can an estimate be? Hoeffding and Bernstein against exact intervals", "learn_x_bounds",
                   "The lecture bounds the error of an estimate with Hoeffding's or Bernstein's inequality, since the "
                   "support count is a sum of independent Bernoullis (probability p for the value's holders, q for "
                   "the others). With L = ln(2/0.05), each gives a 95 % half-width t:",
                   r"\text{Hoeffding: } t = \frac{1}{p-q}\sqrt{\frac{L}{2n}}\qquad "
                   r"\text{Bernstein: } t = \frac{ML/3 + \sqrt{(ML/3)^2 + 2ns^2L}}{n},",
                   r"M = \frac{\max(p, 1-p, q, 1-q)}{p-q}\ \text{(largest deviation)},\qquad "
                   r"s^2 = \frac{\max(p(1-p), q(1-q))}{(p-q)^2}\ \text{(largest variance)}") as shown:
        if not shown:
            return
        epsilons = tuple(sorted({*BOUND_EPS, float(epsilon)}))
        table = _bound_widths(d, epsilons)
        mine = table[table["ε"] == float(epsilon)]
        st.caption("Ours: the package's confidence intervals (exact binomial inversion where counts are small, else "
                   f"f̂ ± zσ) at the expected counts of n users spread evenly over the d = {d} values (sidebar). The "
                   "bounds are valid for any frequency, so they are wider; Bernstein uses the variance and wins when "
                   "p − q is large.")
        fig = viz.bound_width_figure(table, epsilon=epsilon, mechanism=f"GRR, d = {d}")
        _figure_and_values(fig, "learn_bounds", table, (
            f"Log–log lines of the 95 % interval width against n at ε = {epsilon:g}: Hoeffding is "
            f"{mine['Hoeffding / ours'].min():.2g}–{mine['Hoeffding / ours'].max():.2g}× and Bernstein "
            f"{mine['Bernstein / ours'].min():.2g}–{mine['Bernstein / ours'].max():.2g}× as wide as our intervals."))


@st.fragment
@section
def unary_example_section() -> None:
    with _expander("The lecture's unary-encoding example, step by step", "learn_x_unary") as shown:
        if not shown:
            return
        ex = lecture.unary_example()
        st.markdown(f"Five users on D = {{1, 2, 3, 4}} encode their value as a one-hot vector x and keep each bit "
                    f"with probability p = {ex.p} (flip it with q = {ex.q}: symmetric UE, ε = 2 ln(p/q) = "
                    f"{ex.epsilon:.4g}). The server sums the reports and inverts:")
        st.dataframe(ex.users(), hide_index=True, key="learn_ue_users")
        st.latex(rf"c(v) = \frac{{I_v - n\,q}}{{p - q}} = \frac{{I_v - {ex.n}\cdot {ex.q}}}{{{ex.p} - {ex.q}}}")
        st.dataframe(_fmt(ex.steps()), hide_index=True, key="learn_ue_steps")
        st.caption("Computed in exact fractions; the last column runs the same reports through the package's SUE "
                   f"mechanism at ε = {ex.epsilon:.4g}. Truth {list(ex.truth)}, estimate "
                   f"[{', '.join(str(x) for x in ex.estimate)}]: accuracy increases with the number of users.")


@st.fragment
@section
def grr_table_section() -> None:
    with _expander("GRR's p as d grows: the lecture's table", "learn_x_grr") as shown:
        if not shown:
            return
        st.markdown("GRR keeps the value with p = e^ε/(e^ε + d − 1) and reports each other value with q = "
                    "1/(e^ε + d − 1): for the same ε, p falls as the domain grows — why unary encoding and hashing "
                    "win for large d.")
        table = lecture.grr_probability_table()
        st.dataframe(lecture.grr_probability_grid(table), hide_index=True, key="learn_grr_grid")
        off = table[table["agrees"] == False]  # noqa: E712 (None: no printed value)
        truncated = table[(table["agrees"] == True) & (table["agrees if rounded"] == False)]  # noqa: E712
        note = ("All cells agree with the lecture's printed digits." if off.empty else
                f"{len(off)} of {len(table)} printed values do not follow from the formula: " + "; ".join(
                    f"ε = {r['ε']:g}, d = {r['d']:,}: {r['p']:.4g}, printed {r['lecture p']}"
                    for _, r in off.iterrows()) + ".")
        st.caption(f"'agrees': our p, cut to the lecture's printed digits, reads the printed value (the slide "
                   f"truncates: {len(truncated)} cells would differ if rounded). {note}")
        st.dataframe(_fmt(table), hide_index=True, key="learn_grr_table")




@st.fragment
@section
def deployments_section(epsilon: float) -> None:
    with _expander("What the deployments do: Apple's, Google's and Microsoft's mechanisms",
                   "learn_x_deployed") as shown:
        if not shown:
            return
        d = min(int(st.session_state.get(CMP_D.key, CMP_D.default)), MAX_COMPARED_VALUES)
        n = int(st.session_state.get(CMP_N.key, CMP_N.default))
        st.markdown(f"The comparison table's d and n (d capped at {MAX_COMPARED_VALUES:,}) with every value equally "
                    "likely; the Story page runs the same comparison on your own data.")
        show_deployments(np.full(d, 1.0 / d), n, epsilon, "learn_deployed", f"{d:,} equally likely values")


# --------------------------------------------------------------------------- page
def main() -> None:
    st.title("Learn: local differential privacy, step by step")
    if not common.presenting():  # a projector shows the tabs and the chart, not the introduction
        st.markdown("Based on the lecture *Local Differential Privacy (Part 1)* (Wang, Blocki, Li, Jha — *Locally "
                    "Differentially Private Protocols for Frequency Estimation*, USENIX Security 2017). Every number "
                    "on this page is computed live from the mechanisms in the `ldp` package.")

    with st.sidebar:
        st.header("Mechanism for the live sections")
        mech_name, epsilon, mech_params = common.mechanism_picker(MECH, container=st.sidebar)
        small_d = int(render(D))
        eps1 = mech_params.get("epsilon_1")
        try:  # an impossible combination (e.g. an unreachable ε1) only disables the sections that use it
            _mechanism(mech_name, epsilon, small_d, eps1)
        except ldp.LDPError as exc:
            st.error(f"Cannot build this mechanism: {exc}. Change ε1 or ε; the ε-LDP check and the channel "
                     "heatmap need a valid mechanism, the other sections still work.")
        st.caption("Used by the ε-LDP check, the channel heatmap (mechanism, ε, d), the one-user reports and the "
                   "comparison table (ε); the composition, central-DP and error-bound expanders use ε and d with GRR.")

    # the open tab is part of the URL: a link opens Learn on the section the lecturer was showing
    tabs = st.tabs(list(TABS), key="learn_tab", bind="query-params")
    # Bound to the URL, the tabs rerun the page when a student switches; only the open tab's sections are drawn
    # (each rerun of six tabs cost 6× the work a student sees, and ten students at once queued on it).
    if tabs[0].open:
        with tabs[0]:
            definition_section(mech_name, epsilon, small_d, eps1)
            composition_section(epsilon, small_d)
            dp_vs_ldp_section(epsilon, small_d)
    if tabs[1].open:
        with tabs[1]:
            warner_section()
            bounds_section(epsilon, small_d)
    if tabs[2].open:
        with tabs[2]:
            one_user_section(epsilon, eps1)
            unary_example_section()
    if tabs[3].open:
        with tabs[3]:
            heatmap_section(mech_name, epsilon, small_d, eps1)
    if tabs[4].open:
        with tabs[4]:
            comparison_section(epsilon)
            grr_table_section()
            deployments_section(epsilon)
    if tabs[5].open:
        with tabs[5]:
            questions_section(epsilon)


if __name__ == "__main__":  # Streamlit runs a page as __main__; tests import it for its controls
    main()
