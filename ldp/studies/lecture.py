"""Pure maths behind the Learn page: the lecture's worked examples, made computable and testable.

Source: the lecture "Local Differential Privacy (Part 1)" (Wang, Blocki, Li, Jha — LDP Protocols
for Frequency Estimation, USENIX Security 2017, and Wang, Li, Jha — heavy hitters / itemsets):

* the ε-LDP definition, checked exactly on a mechanism's enumerated channel (:func:`privacy_check`)
  and analytically for SHE's continuous Laplace reports (:func:`she_privacy`);
* Warner's randomized response with the 80/20 example (:func:`warner_expected_table`,
  :func:`warner_estimate`, :func:`warner_simulate`);
* one user's report under every frequency oracle, its support set, its size in bits and how to read it
  (:func:`one_user_reports`; each mechanism's ``support_set``, ``report_bits`` and ``explain_report``);
* the comparison table with the lecture's closed-form variances (:func:`comparison_table`) and the
  rule "if d < 3e^ε + 2 use DE, else OLH/OUE" (:func:`de_rule`);
* answering Q questions: splitting ε vs partitioning users (:func:`split_vs_partition_variance`), and in between,
  every user answering K of the Q (:func:`k_of_q_variance`);
* GRR's p and q as d grows, beside the lecture's printed table (:func:`grr_probability_table`);
* the unary-encoding worked example in exact fractions (:func:`unary_example`);
* sequential composition on GRR's exact channel: k reports at ε against one at kε (:func:`composition_table`);
* central DP vs LDP noise on a count, Θ(1) against Θ(√n) (:func:`dp_vs_ldp_curves`, :func:`dp_vs_ldp_simulation`);
* Hoeffding and Bernstein bounds on a frequency estimate beside the exact intervals (:func:`bound_widths`).

No Streamlit import here; figures are in :mod:`ldp.viz.lecture`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import ROUND_DOWN, ROUND_HALF_EVEN, Decimal
from fractions import Fraction

import numpy as np
import pandas as pd

from ldp.core.errors import InvalidInput, LDPError
from ldp.core.randomness import make_rng
from ldp.core.registry import MECHANISMS
from ldp.core.streams import rng_for
from ldp.mechanisms import Mechanism, get_mechanism, mechanisms_of
from ldp.studies.attacks import channel_success

__all__ = ["COMPARISON_ORDER", "DP_VS_LDP_MECHANISMS", "LECTURE_GRR_DOMAINS", "LECTURE_GRR_EPSILONS", "LECTURE_GRR_P",
           "LECTURE_UE_P", "LECTURE_UE_REPORTS", "LECTURE_UE_VALUES", "LOSS_RTOL", "MAX_REPEATED_OUTPUTS", "DERule",
           "PrivacyCheck", "SHEPrivacy", "UnaryExample", "WarnerClass", "WarnerSimulation", "agrees_to_printed_digits",
           "bound_widths", "central_count_sd", "composition_table", "concentration_halfwidths", "dp_vs_ldp_curves",
           "dp_vs_ldp_simulation", "grr_accuracy_bound", "grr_probability_grid", "grr_probability_table",
           "ldp_count_sd", "repeated_channel", "unary_example",
           "comparison_table", "de_rule", "k_of_q_closed_form", "k_of_q_label", "k_of_q_simulation", "k_of_q_table",
           "k_of_q_variance", "laplace_densities", "olh_variance", "one_user_reports", "privacy_check", "ratio_table",
           "she_privacy", "split_vs_partition_conclusion", "split_vs_partition_curves", "split_vs_partition_simulation",
           "split_vs_partition_variance", "variance_relative_se", "warner_epsilon", "warner_estimate",
           "warner_expected_table", "warner_probabilities", "warner_real_class", "warner_simulate", "warner_truth_prob",
           "warner_variance", "worst_case"]

# Relative tolerance when comparing a channel's privacy loss with the budget (float rounding only).
LOSS_RTOL = 1e-9


# =========================================================================== ε-LDP live check
@dataclass(frozen=True)
class PrivacyCheck:
    """The outcome of checking Pr[y|v] ≤ e^budget · Pr[y|v'] on a mechanism's exact channel.

    Attributes
    ----------
    mechanism : str
        The mechanism's registry name.
    epsilon : float
        The constructor's ε (ε∞ for a longitudinal mechanism).
    budget : float
        What one report must satisfy: ε, or ε1 for a longitudinal mechanism.
    budget_name : str
        "ε" or "ε1".
    loss : float
        max over y, v, v′ of ln(Pr[y|v] / Pr[y|v′]) on the enumerated channel.
    outputs : int
        |Y|, the number of enumerated outputs.
    worst_output : str
        The label of an output y attaining the maximum.
    worst_inputs : tuple of int
        (v, v′) attaining it: Pr[y|v] the largest, Pr[y|v′] the smallest.
    verdict : str
        "exact" (loss = budget within :data:`LOSS_RTOL`), "under" or "violation".
    message : str
        The verdict in one or two sentences.
    first_step_loss : float or None, default None
        Longitudinal mechanisms: the ln ratio of the memoized first step (ε∞); None otherwise.
    notes : tuple of str, default ()
        Further explanations (the memoization argument).

    References
    ----------
    The lecture "Local Differential Privacy (Part 1)", slide "From DP to LDP: Formal Definition"
    (Pr[A(x) = y] ≤ e^ε Pr[A(x′) = y]).
    """

    mechanism: str
    epsilon: float  # the constructor's ε (ε∞ for longitudinal mechanisms)
    budget: float  # what one report must satisfy: ε, or ε1 for longitudinal mechanisms
    budget_name: str  # "ε" or "ε1"
    loss: float  # max over y, v, v' of ln(Pr[y|v] / Pr[y|v'])
    outputs: int  # |Y|, the number of enumerated outputs
    worst_output: str  # an output y attaining the maximum
    worst_inputs: tuple[int, int]  # (v, v') attaining it: Pr[y|v] is the largest, Pr[y|v'] the smallest
    verdict: str  # "exact" | "under" | "violation"
    message: str
    first_step_loss: float | None = None  # longitudinal: ln ratio of the memoized (first) step
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def ratio(self) -> float:
        return math.exp(self.loss)

    @property
    def bound(self) -> float:
        return math.exp(self.budget)


def worst_case(matrix: np.ndarray) -> tuple[float, int, int, int]:
    """(loss, output column, v, v') of max over y, v, v' of ln(M[v, y] / M[v', y]).

    Parameters
    ----------
    matrix : numpy.ndarray
        A channel, inputs × outputs, entries Pr[y|v] ≥ 0.

    Returns
    -------
    loss : float
        The largest ln ratio over outputs with a positive entry (inf where some input has probability 0 there).
    column : int
        The output attaining it.
    v : int
        The input with the largest probability of that output.
    v_prime : int
        The input with the smallest.
    """
    m = np.asarray(matrix, dtype=np.float64)
    hi, lo = m.max(axis=0), m.min(axis=0)
    with np.errstate(divide="ignore"):
        per_output = np.where(hi > 0, np.log(np.where(hi > 0, hi, 1.0)) - np.log(lo), -np.inf)
    col = int(np.argmax(per_output))
    return float(per_output[col]), col, int(np.argmax(m[:, col])), int(np.argmin(m[:, col]))


def privacy_check(mechanism: Mechanism, max_outputs: int = 4096) -> PrivacyCheck:
    """Enumerate the channel and compare its largest ratio with e^ε (or e^{ε1}).

    Raises ``ValueError`` when the channel has more than ``max_outputs`` outputs or is continuous
    (SHE: use :func:`she_privacy`).

    Parameters
    ----------
    mechanism : Mechanism
        A mechanism with a discrete channel (``Mechanism.channel``).
    max_outputs : int, default 4096
        The most outputs enumerated.

    Returns
    -------
    PrivacyCheck
        The largest ratio, where it is attained, and the verdict against e^ε (e^{ε1} for longitudinal mechanisms).

    Raises
    ------
    InvalidInput
        When the channel has more than ``max_outputs`` outputs.
    NotAvailable
        When the reports are continuous (SHE). Both are ``ValueError`` subclasses.

    References
    ----------
    The lecture "Local Differential Privacy (Part 1)", slides "From DP to LDP: Formal Definition" and "Frequency
    Oracle Framework" (P is ε-LDP iff Pr[P(E(v)) = y] / Pr[P(E(v′)) = y] ≤ e^ε).
    """
    matrix, labels = mechanism.channel(max_outputs)
    loss, col, v, v2 = worst_case(matrix)
    longitudinal = mechanism.collection == "longitudinal"
    budget = float(mechanism.params["epsilon_1"]) if longitudinal else mechanism.epsilon
    budget_name = "ε1" if longitudinal else "ε"
    tol = LOSS_RTOL * max(1.0, budget)
    if loss > budget + tol:
        verdict = "violation"
        message = (f"Violates {budget_name}-LDP: the largest ratio is e^{loss:.4g} > e^{budget:g}.")
    elif loss >= budget - tol:
        verdict = "exact"
        message = (f"Spends exactly {budget_name} = {budget:g}: the worst output is exactly e^{budget_name} "
                   "times more likely under one input than under another, and no output is worse.")
    else:
        verdict = "under"
        message = (f"Spends less than {budget_name}: the largest ratio is e^{loss:.4g} < e^{budget:g}.")
        if not mechanism.spends_full_budget:
            message += (" THE releases the one-hot vector plus Laplace(2/ε) noise (exactly ε-LDP) and then only "
                        "reports which coordinates exceed the threshold θ; thresholding is post-processing, "
                        "which can only lose information, so the bits are strictly more private than ε.")
    first = None
    notes: list[str] = []
    if longitudinal and hasattr(mechanism, "first_step_privacy_loss"):
        first = float(mechanism.first_step_privacy_loss())
        notes.append(f"The memoized first step is ε∞-LDP: its own ratio is e^{first:.4g} "
                     f"(ε∞ = {mechanism.epsilon:g}). Every report is a fresh second randomization of that "
                     f"memoized value, so a single report leaks at most ε1 = {budget:g}, and any number of "
                     f"reports together never more than ε∞.")
    return PrivacyCheck(mechanism=mechanism.name, epsilon=mechanism.epsilon, budget=budget, budget_name=budget_name,
                        loss=loss, outputs=int(matrix.shape[1]), worst_output=labels[col], worst_inputs=(v, v2),
                        verdict=verdict, message=message, first_step_loss=first, notes=tuple(notes))


def ratio_table(matrix: np.ndarray, labels: Sequence[str], top: int = 10) -> pd.DataFrame:
    """The outputs with the largest ratio max_v Pr[y|v] / min_v Pr[y|v], largest first.

    Parameters
    ----------
    matrix : numpy.ndarray
        A channel, inputs × outputs.
    labels : sequence of str
        One label per output column.
    top : int, default 10
        How many outputs to list.

    Returns
    -------
    pandas.DataFrame
        Up to ``top`` rows, largest ratio first: "output y", "max over v of Pr[y|v]", "min over v of Pr[y|v]",
        "ratio" (inf where the minimum is 0) and "ln ratio".
    """
    m = np.asarray(matrix, dtype=np.float64)
    hi, lo = m.max(axis=0), m.min(axis=0)
    with np.errstate(divide="ignore"):
        ratio = np.where(lo > 0, hi / np.where(lo > 0, lo, 1.0), np.inf)
    order = np.argsort(-ratio, kind="stable")[:top]
    return pd.DataFrame({
        "output y": [labels[i] for i in order],
        "max over v of Pr[y|v]": hi[order],
        "min over v of Pr[y|v]": lo[order],
        "ratio": ratio[order],
        "ln ratio": np.log(ratio[order]),
    })


@dataclass(frozen=True)
class SHEPrivacy:
    """SHE's ε-LDP argument: the Laplace density ratio, analytically and at sampled reports.

    Attributes
    ----------
    epsilon : float
        SHE's ε.
    scale : float
        The Laplace scale b = 2/ε.
    per_coordinate_bound : float
        1/b = ε/2: the ln ratio bound of one coordinate whose mean shifts by 1.
    analytic_bound : float
        2/b = ε: two coordinates differ between the one-hot vectors of v and v′.
    worst_report : numpy.ndarray
        Shape (d,): a report attaining the bound for (v, v′) = (0, 1), the one-hot vector of 1.
    worst_loss : float
        ln f(worst | 1) − ln f(worst | 0), equal to ε.
    sampled_max_loss : float
        The largest |ln ratio| over the sampled reports (never above ε).
    samples : int
        The number of sampled reports.

    References
    ----------
    The lecture "Local Differential Privacy (Part 1)", slide "Laplacian (Gaussian)" (Laplace noise on each bit,
    sensitivity 2).
    """

    epsilon: float
    scale: float  # Laplace scale b = 2/ε
    per_coordinate_bound: float  # 1/b = ε/2: ln ratio bound for one coordinate that shifts by 1
    analytic_bound: float  # 2/b = ε: two coordinates differ between the one-hot vectors of v and v'
    worst_report: np.ndarray  # a report attaining the bound for (v, v') = (0, 1)
    worst_loss: float  # ln f(worst|v'=1) − ln f(worst|v=0), = ε
    sampled_max_loss: float  # max |ln ratio| over sampled reports (never above ε)
    samples: int


def she_privacy(mechanism: Mechanism, seed: int = 0, samples: int = 2000) -> SHEPrivacy:
    """SHE is continuous: f(y|v) = Π_j (1/2b) exp(−|y_j − 1[j = v]| / b) with b = 2/ε, so

    ln f(y|v') − ln f(y|v) = (|y_v − 1| − |y_v| + |y_{v'}| − |y_{v'} − 1|) / b ≤ 2/b = ε,

    each bracket being at most 1 (triangle inequality). Equality holds whenever y_v ≤ 0 and
    y_{v'} ≥ 1, e.g. at y = the one-hot vector of v'. We evaluate the density ratio there and at
    reports sampled from both inputs.

    Parameters
    ----------
    mechanism : Mechanism
        A histogram-encoding mechanism with ``laplace_log_density`` (SHE), d ≥ 2.
    seed : int, default 0
        Seed of the sampled reports (``make_rng(seed)``).
    samples : int, default 2000
        Reports sampled, half from v = 0 and half from v = 1.

    Returns
    -------
    SHEPrivacy
        The analytic bound, the loss at the worst report and the largest loss over the samples.

    Raises
    ------
    InvalidInput
        When the mechanism has no Laplace density.

    References
    ----------
    The lecture "Local Differential Privacy (Part 1)", slide "Laplacian (Gaussian)"; Wang, Blocki, Li, Jha,
    "Locally Differentially Private Protocols for Frequency Estimation" (USENIX Security 2017), SHE.
    """
    if not hasattr(mechanism, "laplace_log_density"):
        raise InvalidInput(f"{mechanism.name}: not a Laplace (histogram-encoding) mechanism")
    d, b = mechanism.d, float(mechanism.scale)
    worst = np.zeros(d)
    worst[1] = 1.0
    worst_loss = float(mechanism.laplace_log_density(worst[None], 1)[0]
                       - mechanism.laplace_log_density(worst[None], 0)[0])
    rng = make_rng(seed)
    half = samples // 2
    ys = np.concatenate([mechanism.perturb(np.zeros(half, dtype=np.int64), rng),
                         mechanism.perturb(np.ones(samples - half, dtype=np.int64), rng)]).astype(np.float64)
    diff = mechanism.laplace_log_density(ys, 1) - mechanism.laplace_log_density(ys, 0)
    return SHEPrivacy(epsilon=mechanism.epsilon, scale=b, per_coordinate_bound=1 / b, analytic_bound=2 / b,
                      worst_report=worst, worst_loss=worst_loss, sampled_max_loss=float(np.abs(diff).max()),
                      samples=samples)


def laplace_densities(epsilon: float, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Densities of one SHE coordinate: the user's own value (1 + Lap(2/ε)) and another (Lap(2/ε)).

    Parameters
    ----------
    epsilon : float
        SHE's ε (positive); the noise is Laplace(2/ε).
    x : numpy.ndarray
        Points at which to evaluate the densities.

    Returns
    -------
    own : numpy.ndarray
        The density of 1 + Lap(2/ε) at ``x`` (the coordinate of the user's own value).
    other : numpy.ndarray
        The density of Lap(2/ε) at ``x`` (any other coordinate).
    """
    b = 2.0 / epsilon
    x = np.asarray(x, dtype=np.float64)
    return np.exp(-np.abs(x - 1) / b) / (2 * b), np.exp(-np.abs(x) / b) / (2 * b)


# =========================================================================== Warner's randomized response
@dataclass(frozen=True)
class WarnerClass:
    """A class to run Warner's question on: its size, how many truly answer 'yes', the question, and its source.

    Attributes
    ----------
    n : int
        The class size.
    n_yes : int
        How many truly answer "yes".
    question : str
        The sensitive question.
    source : str
        Where the data come from.
    """

    n: int
    n_yes: int
    question: str
    source: str


def warner_real_class() -> WarnerClass:
    """The bundled election survey (ANES 1996, public domain) as Warner's class: 944 respondents asked "do you
    expect to vote for Dole?" — a secret ballot — of whom 393 truly say yes.

    Returns
    -------
    WarnerClass
        n = 944, n_yes = 393 (from the bundled sample "election", column "votes_dole"), with the question and source.
    """
    from ldp.data import load_sample

    answers = load_sample("election")["votes_dole"]
    return WarnerClass(int(answers.size), int((answers == "yes").sum()), "Do you expect to vote for Dole?",
                       "American National Election Study 1996 (944 respondents; public domain, via statsmodels)")


def warner_probabilities(truth_prob: float) -> tuple[float, float]:
    """(Pr[yes | truth yes], Pr[yes | truth no]) when a coin says "tell the truth" w.p. t and a
    second fair coin decides the answer otherwise: ((1 + t)/2, (1 − t)/2).

    Parameters
    ----------
    truth_prob : float
        t, the probability the first coin says "tell the truth", strictly between 0 and 1.

    Returns
    -------
    tuple of float
        (Pr[yes | truth yes], Pr[yes | truth no]) = ((1 + t)/2, (1 − t)/2); (0.75, 0.25) for t = 1/2.

    Raises
    ------
    InvalidInput
        When t is not in (0, 1).

    References
    ----------
    The lecture "Local Differential Privacy (Part 1)", slide "Random Response (Warner'65)" (answer the truth if
    heads w.p. 0.5, else answer by a second coin: "yes" w.p. 75 % for a patient).
    """
    t = _check_prob(truth_prob)
    return (1 + t) / 2, (1 - t) / 2


def warner_epsilon(truth_prob: float) -> float:
    """ε of Warner's scheme: ln(Pr[yes|yes] / Pr[yes|no]) = ln((1 + t)/(1 − t)); ln 3 for t = 1/2.

    Parameters
    ----------
    truth_prob : float
        The probability t of a truthful answer, strictly between 0 and 1.

    Returns
    -------
    float
        ε = ln((1 + t)/(1 − t)), natural-log units.

    Raises
    ------
    InvalidInput
        For t ≤ 0 or t ≥ 1.

    References
    ----------
    The lecture "Local Differential Privacy (Part 1)", slide "Random Response (Warner'65)" (the ratio 3 = e^ε).
    """
    a, b = warner_probabilities(truth_prob)
    return math.log(a / b)


def warner_truth_prob(epsilon: float) -> float:
    """Inverse of :func:`warner_epsilon`: t = (e^ε − 1)/(e^ε + 1).

    Parameters
    ----------
    epsilon : float
        The privacy budget (positive for a t in (0, 1)).

    Returns
    -------
    float
        t = (e^ε − 1)/(e^ε + 1) = tanh(ε/2).
    """
    e = math.exp(epsilon)
    return (e - 1) / (e + 1)


def warner_expected_table(n_yes: float, n_no: float, truth_prob: float = 0.5) -> pd.DataFrame:
    """The lecture's table: for each true answer, how many answer yes/no, split into the truthful
    (first coin heads) and the random (first coin tails, second coin) part. Expected values.

    Parameters
    ----------
    n_yes : float
        People whose true answer is "yes" (≥ 0).
    n_no : float
        People whose true answer is "no" (≥ 0; at least one person in all).
    truth_prob : float, default 0.5
        t, the probability of answering truthfully.

    Returns
    -------
    pandas.DataFrame
        Indexed by "truth" ("yes", "no"): "people", "→ yes (truthful)", "→ yes (random)", "→ no (truthful)",
        "→ no (random)", "→ yes", "→ no" (expected numbers of people, floats).

    Raises
    ------
    InvalidInput
        When t is not in (0, 1), or a group size is negative or both are 0.

    References
    ----------
    The lecture "Local Differential Privacy (Part 1)", slide "Concrete Example (Let's do math)" (80 patients:
    40 + 20 answer yes, 0 + 20 no; 20 others: 0 + 5 yes, 10 + 5 no).
    """
    t = _check_prob(truth_prob)
    _check_counts(n_yes, n_no)
    rnd = (1 - t) / 2
    rows = []
    for truth, count in (("yes", n_yes), ("no", n_no)):
        truthful_yes = t * count if truth == "yes" else 0.0
        truthful_no = t * count if truth == "no" else 0.0
        rows.append({"truth": truth, "people": float(count),
                     "→ yes (truthful)": truthful_yes, "→ yes (random)": rnd * count,
                     "→ no (truthful)": truthful_no, "→ no (random)": rnd * count,
                     "→ yes": truthful_yes + rnd * count, "→ no": truthful_no + rnd * count})
    return pd.DataFrame(rows).set_index("truth")


def warner_estimate(yes_answers: float | np.ndarray, n: int, truth_prob: float = 0.5) -> float | np.ndarray:
    """Unbiased estimate of the number of true "yes": c = (I − n (1 − t)/2) / t.

    With t = 1/2 this is the lecture's c(n_v) = (I_v − 0.25 n) / 0.5.

    Parameters
    ----------
    yes_answers : float or numpy.ndarray
        I, the number of "yes" answers (one class, or one per class).
    n : int
        The class size.
    truth_prob : float, default 0.5
        The truth coin's probability of heads; the lecture's 1/2 gives c = (I − 0.25 n)/0.5.

    Returns
    -------
    float or numpy.ndarray
        The estimated number of true "yes" (a float for a scalar ``yes_answers``, else an array of its shape).

    Raises
    ------
    InvalidInput
        When ``truth_prob`` is not strictly between 0 and 1.

    References
    ----------
    The lecture "Local Differential Privacy (Part 1)", slides "Random Response (Warner'65)" and "(Simple) Proofs"
    (E[c(n_v)] = n_v).
    """
    t = _check_prob(truth_prob)
    out = (np.asarray(yes_answers, dtype=np.float64) - n * (1 - t) / 2) / t
    return float(out) if out.ndim == 0 else out


def warner_variance(n_yes: int, n_no: int, truth_prob: float = 0.5) -> float:
    """Var of the estimated count: the yes-answers are a sum of independent Bernoullis, so
    Var[c] = (n_yes a(1 − a) + n_no b(1 − b)) / t² with a, b from :func:`warner_probabilities`.

    Parameters
    ----------
    n_yes : int
        Size of the group whose answer is "yes" (each says yes w.p. (1 + t)/2).
    n_no : int
        Size of the group whose answer is "no" (each says yes w.p. (1 − t)/2).
    truth_prob : float, default 0.5
        The probability t of answering truthfully.

    Returns
    -------
    float
        Var[c], in people².

    Raises
    ------
    InvalidInput
        From :func:`warner_probabilities`, for t outside (0, 1).

    References
    ----------
    The lecture "Local Differential Privacy (Part 1)", slide "(Simple) Proofs" ("Variance can be derived similarly").
    """
    a, b = warner_probabilities(truth_prob)
    return (n_yes * a * (1 - a) + n_no * b * (1 - b)) / truth_prob**2


@dataclass(frozen=True)
class WarnerSimulation:
    """One simulated class (every person's two coins) plus many repeated classes for the spread.

    Attributes
    ----------
    n_yes : int
        How many in each class hold "yes".
    n_no : int
        How many hold "no".
    truth_prob : float
        t, the probability of answering truthfully.
    seed : int
        The seed of the simulation.
    table : pandas.DataFrame
        The first class's realised counts, laid out as :func:`warner_expected_table`.
    yes_answers : int
        I of the first class.
    estimate : float
        Its estimate of the number of true "yes".
    estimates : numpy.ndarray
        Shape (classes,): one estimate per simulated class, the first one included.
    """

    n_yes: int
    n_no: int
    truth_prob: float
    seed: int
    table: pd.DataFrame  # realized counts of the first class, same layout as the expected table
    yes_answers: int  # I of the first class
    estimate: float  # its estimate of the number of true "yes"
    estimates: np.ndarray  # one estimate per repeated class (the first one included)

    @property
    def n(self) -> int:
        return self.n_yes + self.n_no

    @property
    def theoretical_sd(self) -> float:
        return math.sqrt(warner_variance(self.n_yes, self.n_no, self.truth_prob))

    @property
    def empirical_sd(self) -> float:
        """The standard deviation of the estimate over the repeated classes."""
        return float(np.std(self.estimates, ddof=1)) if self.estimates.size > 1 else math.nan


def warner_simulate(n_yes: int, n_no: int, truth_prob: float = 0.5, seed: int = 0,
                    classes: int = 1000) -> WarnerSimulation:
    """Simulate the survey: each person flips the truth coin (heads w.p. t) and, on tails, a fair
    coin for the answer. The first class is drawn person by person (its table is shown); the other
    ``classes − 1`` use the equivalent binomial counts of yes-answers.

    Parameters
    ----------
    n_yes : int
        The class's true "yes" (the first n_yes people).
    n_no : int
        Its true "no".
    truth_prob : float, default 0.5
        The truth coin's probability of heads.
    seed : int, default 0
        The seed of the coins (``make_rng(seed)``).
    classes : int, default 1000
        Simulated classes (at least 1).

    Returns
    -------
    WarnerSimulation
        The first class's table and estimate, and every class's estimate.

    Raises
    ------
    InvalidInput
        When t is not in (0, 1), a group size is negative or both are 0, or ``classes`` < 1.

    References
    ----------
    The lecture "Local Differential Privacy (Part 1)", slides "Random Response (Warner'65)" and "Concrete Example
    (Let's do math)".
    """
    t = _check_prob(truth_prob)
    _check_counts(n_yes, n_no)
    n_yes, n_no = int(n_yes), int(n_no)
    if classes < 1:
        raise InvalidInput(f"classes must be at least 1, got {classes}")
    rng = make_rng(seed)
    truth = np.concatenate([np.ones(n_yes, dtype=bool), np.zeros(n_no, dtype=bool)])
    heads = rng.random(truth.size) < t
    coin_yes = rng.random(truth.size) < 0.5
    answer = np.where(heads, truth, coin_yes)
    rows = []
    for label, mask in (("yes", truth), ("no", ~truth)):
        rows.append({"truth": label, "people": int(mask.sum()),
                     "→ yes (truthful)": int(np.sum(mask & heads & answer)),
                     "→ yes (random)": int(np.sum(mask & ~heads & answer)),
                     "→ no (truthful)": int(np.sum(mask & heads & ~answer)),
                     "→ no (random)": int(np.sum(mask & ~heads & ~answer)),
                     "→ yes": int(np.sum(mask & answer)), "→ no": int(np.sum(mask & ~answer))})
    yes = int(answer.sum())
    a, b = warner_probabilities(t)
    more = rng.binomial(n_yes, a, classes - 1) + rng.binomial(n_no, b, classes - 1)
    all_yes = np.concatenate([[yes], more])
    return WarnerSimulation(n_yes=n_yes, n_no=n_no, truth_prob=t, seed=seed,
                            table=pd.DataFrame(rows).set_index("truth"),
                            yes_answers=yes, estimate=float(warner_estimate(yes, n_yes + n_no, t)),
                            estimates=np.asarray(warner_estimate(all_yes, n_yes + n_no, t), dtype=np.float64))


def _check_prob(t: float) -> float:
    t = float(t)
    if not 0.0 < t < 1.0:
        raise InvalidInput(f"the truth probability must be strictly between 0 and 1, got {t:g}")
    return t


def _check_counts(n_yes: float, n_no: float) -> None:
    if n_yes < 0 or n_no < 0 or n_yes + n_no <= 0:
        raise InvalidInput(f"need non-negative group sizes and at least one person, got {n_yes:g} and {n_no:g}")


# =========================================================================== one user's report
def _mechanism_for(name: str, epsilon: float, d: int, epsilon_1: float | None) -> Mechanism:
    cls = MECHANISMS.get(name)
    params = {}
    if cls.collection == "longitudinal":
        params["epsilon_1"] = epsilon_1 if epsilon_1 is not None and epsilon_1 < epsilon else epsilon / 2
    return get_mechanism(name, epsilon, d, **params)


def one_user_reports(value: int, d: int, epsilon: float, seed: int = 0, epsilon_1: float | None = None,
                     names: Sequence[str] | None = None) -> pd.DataFrame:
    """The report every mechanism would send for one user holding ``value``.

    Each mechanism draws from its own generator seeded with ``seed``, so a report does not depend on
    which other mechanisms are listed. Longitudinal mechanisms use ε as ε∞ and ``epsilon_1``
    (default ε/2) for the report.

    Parameters
    ----------
    value : int
        The user's value, in [0, d).
    d : int
        The domain size (at least 2).
    epsilon : float
        The privacy budget (ε∞ for longitudinal mechanisms).
    seed : int, default 0
        The seed of every mechanism's own generator.
    epsilon_1 : float or None, default None
        A longitudinal mechanism's per-report budget; None, or a value not below ε, gives ε/2.
    names : sequence of str or None, default None
        Registry names; None: every frequency oracle.

    Returns
    -------
    pandas.DataFrame
        One row per mechanism: "mechanism", "name", "kind", "report", "supports", "supports own value",
        "support size", "bits", "bits formula", "communication", "how to read it" (a mechanism that cannot be built
        with these parameters gets a row saying why).

    Raises
    ------
    InvalidInput
        When d < 2 or the value is outside [0, d), or a name is unknown.

    References
    ----------
    The lecture "Local Differential Privacy (Part 1)", slides "Frequency Oracle Framework" (x = E(v), y = P(x)) and
    "Summary of LDP Frequency Oracle Mechanisms".
    """
    if not 2 <= d:
        raise InvalidInput(f"the domain needs at least 2 values, got d={d}")
    if not 0 <= value < d:
        raise InvalidInput(f"the value must be in [0, {d}), got {value}")
    rows = []
    for name in names or [cls.name for cls in mechanisms_of("frequency")]:
        try:
            mech = _mechanism_for(name, epsilon, d, epsilon_1)
        except LDPError as exc:  # e.g. an ε1 this longitudinal mechanism cannot reach
            cls = MECHANISMS.get(name)
            rows.append({"mechanism": cls.display_name, "name": name, "kind": cls.collection,
                         "report": "— not available", "supports": "—", "supports own value": None,
                         "support size": None, "bits": None, "bits formula": "", "communication": cls.communication,
                         "how to read it": f"Cannot build it with these parameters: {exc}"})
            continue
        report = mech.perturb(np.array([value]), make_rng(seed))
        text = next(iter(mech.format_reports(report)))
        support = mech.support_set(report)
        rows.append({
            "mechanism": mech.display_name, "name": mech.name, "kind": mech.collection, "report": text,
            "supports": "— (not pure: the server sums)" if support is None else
            ("{" + ", ".join(map(str, support)) + "}"),
            "supports own value": None if support is None else (value in support),
            "support size": None if support is None else len(support),
            "bits": mech.report_bits(), "bits formula": mech.report_bits_formula(),
            "communication": mech.communication, "how to read it": mech.explain_report(text),
        })
    return pd.DataFrame(rows)


# =========================================================================== the comparison table
# The lecture's column order, then the two protocols it lists afterwards.
COMPARISON_ORDER = ("grr", "she", "the", "sue", "oue", "blh", "olh", "ss", "hr")


def comparison_table(epsilon: float, d: int, n: int | None = None) -> pd.DataFrame:
    """The lecture's comparison table filled for this ε and d.

    Columns: the communication cost and the lecture's closed form with its value (each from the mechanism's
    class), our implementation's report size and ``approximate_variance(1)`` (its exact p*, q*: integer g and a
    finite hash family for OLH/BLH, the variance-optimal θ for THE), and, with ``n``, the standard deviation of
    a frequency estimate. 'best' marks the smallest variance of our implementations.

    Parameters
    ----------
    epsilon : float
        The ε at which every mechanism of the table is built.
    d : int
        The number of values (DE's variance grows with it, OUE's and OLH's do not).
    n : int or None, default None
        A number of users for the σ column; None leaves it out.

    Returns
    -------
    pandas.DataFrame
        One row per mechanism of :data:`COMPARISON_ORDER`: "mechanism", "name", "communication",
        "bits per report (ours)", "Var[c̃(i)]/n (lecture formula)", "lecture value", "ours: approximate_variance(1)",
        "our parameters", with ``n`` "σ of f̂ with n = …", and "best" (bool).

    Raises
    ------
    InvalidInput
        When a mechanism cannot be built at this ε and d.

    References
    ----------
    The lecture "Local Differential Privacy (Part 1)", slide "Comparison of Mechanisms" (Table 1); Wang, Blocki, Li,
    Jha (USENIX Security 2017).
    """
    rows = []
    for name in COMPARISON_ORDER:
        mech = get_mechanism(name, epsilon, d)
        ours = mech.approximate_variance(1)
        closed = mech.lecture_variance()
        params = ", ".join(f"{k} = {v:.3f}" if isinstance(v, float) else f"{k} = {v}" for k, v in mech.params.items())
        row = {"mechanism": mech.display_name, "name": name,
               "communication": mech.communication, "bits per report (ours)": mech.report_bits(),
               "Var[c̃(i)]/n (lecture formula)": mech.lecture_formula or "q*(1 − q*) / (p* − q*)²  (no closed form "
                                                                          "in the lecture)",
               "lecture value": ours if closed is None else closed, "ours: approximate_variance(1)": ours,
               "our parameters": params}
        if n is not None:
            row[f"σ of f̂ with n = {n:,}"] = math.sqrt(ours / n)
        rows.append(row)
    table = pd.DataFrame(rows)
    table["best"] = table["ours: approximate_variance(1)"] == table["ours: approximate_variance(1)"].min()
    return table


@dataclass(frozen=True)
class DERule:
    """The lecture's rule: if d < 3e^ε + 2 use DE (GRR), else OLH (communication matters) or OUE.

    Attributes
    ----------
    epsilon : float
        The privacy budget.
    d : int
        The domain size.
    threshold : float
        3e^ε + 2.
    use_de : bool
        Whether d < 3e^ε + 2.
    choice : str
        "grr" or "olh/oue".
    message : str
        The rule applied, in one sentence.

    References
    ----------
    The lecture "Local Differential Privacy (Part 1)", slide "Comparison of Mechanisms" (the decision rule under
    Table 1).
    """

    epsilon: float
    d: int
    threshold: float  # 3e^ε + 2
    use_de: bool
    choice: str  # "grr" or "olh/oue"
    message: str


def de_rule(epsilon: float, d: int) -> DERule:
    """DE's variance (d − 2 + e^ε)/(e^ε − 1)² is below OUE/OLH's 4e^ε/(e^ε − 1)² iff d − 2 + e^ε < 4e^ε,
    i.e. iff d < 3e^ε + 2.

    Parameters
    ----------
    epsilon : float
        The budget each user spends on one report.
    d : int
        The number of values |D| the users hold.

    Returns
    -------
    DERule
        The threshold, the choice and its explanation.

    References
    ----------
    The lecture "Local Differential Privacy (Part 1)", slide "Comparison of Mechanisms": "if d < 3e^ε + 2 use DE
    else if communication cost is important use OLH else use OUE".
    """
    threshold = 3 * math.exp(epsilon) + 2
    use_de = d < threshold
    if use_de:
        message = (f"d = {d} < 3e^ε + 2 = {threshold:.4g}: use DE (GRR) — with so few values, reporting the "
                   "value itself beats unary encoding and hashing.")
    else:
        message = (f"d = {d} ≥ 3e^ε + 2 = {threshold:.4g}: use OLH if communication cost is important "
                   "(a hash and a small value), otherwise OUE (d bits); both have variance 4e^ε/(e^ε − 1)².")
    return DERule(epsilon=epsilon, d=d, threshold=threshold, use_de=use_de,
                  choice="grr" if use_de else "olh/oue", message=message)


# =========================================================================== Q questions
def olh_variance(epsilon: float | np.ndarray, n: float) -> np.ndarray | float:
    """The lecture's OLH variance of a frequency estimate: 4e^ε / (n (e^ε − 1)²).

    Parameters
    ----------
    epsilon : float or numpy.ndarray
        The privacy budget(s).
    n : float
        The number of users answering.

    Returns
    -------
    float or numpy.ndarray
        The variance, a float for a scalar ε, else an array of its shape.

    References
    ----------
    The lecture "Local Differential Privacy (Part 1)", slide "On answering multiple questions"
    (Var[c(v)/n] = q(1 − q)/(n(p − q)²) = 4e^ε/(n(e^ε − 1)²)).
    """
    e = np.exp(np.asarray(epsilon, dtype=np.float64))
    out = 4 * e / (n * (e - 1) ** 2)
    return float(out) if out.ndim == 0 else out


def split_vs_partition_variance(epsilon: float | np.ndarray, questions: int, n: float) -> tuple:
    """Variance of one question's frequency estimate with OLH when each of n users answers Q questions.

    Split the budget: every user answers every question with ε/Q, so Var = 4e^{ε/Q}/(n (e^{ε/Q} − 1)²).
    Partition users: n/Q users answer each question with the full ε, so Var = Q·4e^ε/(n (e^ε − 1)²).
    Returns (split, partition).

    Parameters
    ----------
    epsilon : float or numpy.ndarray
        Each user's total budget.
    questions : int
        Q, the number of questions (at least 1).
    n : float
        The number of users (positive).

    Returns
    -------
    tuple
        (split, partition): the two variances, floats or arrays of ε's shape.

    Raises
    ------
    InvalidInput
        If Q is below 1 or n is not positive.

    References
    ----------
    The lecture "Local Differential Privacy (Part 1)", slide "On answering multiple questions" (split the budget
    against partition users, "it is better to partition users").
    """
    if questions < 1:
        raise InvalidInput(f"the number of questions Q must be at least 1, got {questions}")
    if n <= 0:
        raise InvalidInput(f"the number of users must be positive, got {n}")
    eps = np.asarray(epsilon, dtype=np.float64)
    split = olh_variance(eps / questions, n)
    partition = questions * olh_variance(eps, n)
    return split, partition


def split_vs_partition_curves(questions: int, n: float, epsilons: Sequence[float] | np.ndarray) -> pd.DataFrame:
    """:func:`split_vs_partition_variance` along ε: both strategies' variance of one question's OLH estimate and
    their ratio (above 1: partitioning users wins).

    Parameters
    ----------
    questions : int
        Q, the number of questions.
    n : float
        The number of users.
    epsilons : sequence of float or numpy.ndarray
        The ε axis.

    Returns
    -------
    pandas.DataFrame
        One row per ε: "epsilon", "split the budget", "partition users" (the variances of
        :func:`split_vs_partition_variance`) and "split / partition".

    Raises
    ------
    InvalidInput
        When Q < 1 or n ≤ 0.
    """
    eps = np.asarray(epsilons, dtype=np.float64)
    split, partition = split_vs_partition_variance(eps, questions, n)
    split, partition = np.asarray(split), np.asarray(partition)
    return pd.DataFrame({"epsilon": eps, "split the budget": split, "partition users": partition,
                         "split / partition": split / partition})


def split_vs_partition_conclusion(epsilon: float, questions: int, n: float,
                                  epsilons: Sequence[float] | np.ndarray | None = None) -> str:
    """A one-paragraph conclusion read off the numbers (not assumed).

    Parameters
    ----------
    epsilon : float
        The ε of the headline comparison.
    questions : int
        How many questions each user could answer.
    n : float
        The number of users.
    epsilons : sequence of float, numpy.ndarray or None, default None
        A range of ε to say who wins over; None: the headline only.

    Returns
    -------
    str
        The conclusion (Markdown-free text).

    Raises
    ------
    InvalidInput
        When Q < 1 or n ≤ 0.
    """
    split, partition = split_vs_partition_variance(epsilon, questions, n)
    split, partition = float(split), float(partition)
    if questions == 1:
        return "With one question both strategies are the same: every user answers it with the full ε."
    better = "partitioning users" if partition < split else "splitting the budget"
    factor = max(split, partition) / min(split, partition)
    text = (f"At ε = {epsilon:g} with Q = {questions} questions and n = {int(n):,} users, splitting the budget gives "
            f"variance {split:.3g} per question and partitioning users {partition:.3g}: {better} is "
            f"{factor:.3g}× more accurate (in variance).")
    if epsilons is not None:
        curves = split_vs_partition_curves(questions, n, epsilons)
        ratio = curves["split / partition"].to_numpy()
        if np.all(ratio > 1):
            text += (f" Over the whole range ε ∈ [{curves['epsilon'].min():g}, {curves['epsilon'].max():g}] "
                     f"partitioning wins, by a factor between {ratio.min():.3g} and {ratio.max():.3g}.")
        elif np.all(ratio < 1):
            text += " Over the whole range splitting the budget wins."
        else:
            text += " The winner changes within the range shown."
    return text


def k_of_q_variance(epsilon: float | np.ndarray, questions: int, k: int, n: float) -> np.ndarray | float:
    """Variance of one question's OLH frequency estimate when every user answers K of the Q questions, chosen
    uniformly at random, with ε/K each (sequential composition over the K answers, parallel over the users):
    each question is answered by nK/Q users, so Var = (Q/K)·4e^{ε/K}/(n (e^{ε/K} − 1)²) (the lecture's formula).
    K = Q is "split the budget", K = 1 "partition users".

    Parameters
    ----------
    epsilon : float or numpy.ndarray
        Each user's total budget.
    questions : int
        Q (at least 1).
    k : int
        K, the questions each user answers (1 ≤ K ≤ Q).
    n : float
        The number of users (positive).

    Returns
    -------
    float or numpy.ndarray
        The variance of one question's frequency estimate.

    Raises
    ------
    InvalidInput
        When not 1 ≤ K ≤ Q, or n ≤ 0.

    References
    ----------
    The lecture "Local Differential Privacy (Part 1)", second slide "On answering multiple questions" (K > 1
    questions; the conjecture that splitting wins when K > Q/2).
    """
    q, kk = int(questions), int(k)
    if q < 1 or not 1 <= kk <= q:
        raise InvalidInput(f"need 1 ≤ K ≤ Q with Q ≥ 1, got K = {k}, Q = {questions}")
    if n <= 0:
        raise InvalidInput(f"the number of users must be positive, got {n}")
    return q / kk * olh_variance(np.asarray(epsilon, dtype=np.float64) / kk, n)


def k_of_q_label(questions: int, k: int) -> str:
    """How a page names answering K of the Q questions.

    Parameters
    ----------
    questions : int
        Q.
    k : int
        K.

    Returns
    -------
    str
        "split the budget" (K = Q), "partition users" (K = 1) or "sample K of Q questions".
    """
    return ("split the budget" if k == questions else "partition users" if k == 1 else
            f"sample {k} of {questions} questions")


def k_of_q_closed_form(epsilon: float, questions: int, k: int, n: int, d: int = 32) -> float:
    """The exact variance of one question's frequency estimate, against the frequency among all n users, when a
    random m = ⌊nK/Q⌋ of them answer it with our OLH at ε/K and every value has f = 1/d: OLH's own variance for those
    m users plus the sampling of the answerers, f(1 − f)(n − m)/(m(n − 1)) (hypergeometric). The lecture's formula
    drops the second term ("assume sample variance is small"); it is what makes answering more questions (larger
    K) pay off once ε is large enough for OLH's noise to be small.

    Parameters
    ----------
    epsilon : float
        Each user's total budget (each answer gets ε/K).
    questions : int
        Q, the questions every user could be asked.
    k : int
        K, how many of them each user answers.
    n : int
        All users; m = ⌊nK/Q⌋ answer this question.
    d : int, default 32
        The values of the question, all of frequency 1/d.

    Returns
    -------
    float
        The mean over the d values of the exact variance (a squared frequency).

    Raises
    ------
    InvalidInput
        When ⌊nK/Q⌋ < 1.

    References
    ----------
    The lecture "Local Differential Privacy (Part 1)", slides "On answering multiple questions" (the formula and
    "assume sample variance is small").
    """
    users = int(n) * int(k) // int(questions)
    if users < 1:
        raise InvalidInput(f"need at least one user per question: n·K/Q = {n}·{k}/{questions} < 1")
    f = 1.0 / int(d)
    mech = get_mechanism("olh", float(epsilon) / int(k), int(d))
    sampling = f * (1 - f) * (int(n) - users) / (users * max(int(n) - 1, 1))
    return float(np.mean(mech.variance(np.full(int(d), f), users))) + sampling


def k_of_q_table(epsilon: float, questions: int, n: int, d: int = 32) -> pd.DataFrame:
    """Every K from 1 to Q at one ε: ε per answer, users per question, the lecture's variance, the exact variance
    (:func:`k_of_q_closed_form`) and its ratio to the best K.

    Parameters
    ----------
    epsilon : float
        Each user's total budget.
    questions : int
        Q; K runs over 1 … Q.
    n : int
        The number of users.
    d : int, default 32
        The domain size of each question.

    Returns
    -------
    pandas.DataFrame
        One row per K: "K", "strategy", "ε per answer", "users per question", "lecture formula",
        "closed form (our OLH, f = 1/d)", "vs best K".

    Raises
    ------
    InvalidInput
        When some K leaves no user per question.
    """
    ks = np.arange(1, int(questions) + 1)
    exact = np.array([k_of_q_closed_form(epsilon, questions, int(k), n, d) for k in ks])
    return pd.DataFrame({"K": ks, "strategy": [k_of_q_label(questions, int(k)) for k in ks],
                         "ε per answer": float(epsilon) / ks, "users per question": int(n) * ks // int(questions),
                         "lecture formula": [float(k_of_q_variance(epsilon, questions, int(k), n)) for k in ks],
                         "closed form (our OLH, f = 1/d)": exact, "vs best K": exact / exact.min()})


def k_of_q_simulation(epsilon: float, questions: int, n: int, ks: Sequence[int], d: int = 32, trials: int = 200,
                      seed: int = 0) -> pd.DataFrame:
    """Check :func:`k_of_q_closed_form` by simulation: n users spread equally over d values (n a multiple of d is
    exact); per trial a random ⌊nK/Q⌋ of them (multivariate hypergeometric counts) answer with OLH at ε/K (fast
    engine), and the estimate is compared with the frequencies among all n. Reports, per K, the lecture's
    approximation, the closed form and the simulated mean squared error (averaged over the d values).

    Parameters
    ----------
    epsilon : float
        The budget a user spends over all K answers.
    questions : int
        Q, the number of questions asked of the population.
    n : int
        The population, spread equally over the d values.
    ks : sequence of int
        The K to simulate.
    d : int, default 32
        Values per question.
    trials : int, default 200
        Collections per K.
    seed : int, default 0
        The root seed; each K draws from the stream "k of q"/Q/K.

    Returns
    -------
    pandas.DataFrame
        One row per K: "strategy", "K", "ε per answer", "users per question", "lecture formula",
        "closed form (our OLH, f = 1/d)", "simulated", "trials".

    Raises
    ------
    InvalidInput
        When some K leaves no user per question.
    """
    from ldp.engines import collect

    rows = []
    population = np.full(int(d), int(n) // int(d), dtype=np.int64)
    population[: int(n) - population.sum()] += 1
    truth = population / population.sum()
    for k in ks:
        k = int(k)
        users = int(n) * k // int(questions)
        closed = k_of_q_closed_form(epsilon, questions, k, n, d)  # checks users ≥ 1
        eps = float(epsilon) / k
        mech = get_mechanism("olh", eps, int(d))
        rng = rng_for(seed, "k of q", questions, k)
        errors = np.empty((trials, int(d)))
        for t in range(trials):
            answering = rng.multivariate_hypergeometric(population, users)
            errors[t] = mech.estimate(collect(mech, answering, rng, "fast")).values - truth
        rows.append({"strategy": k_of_q_label(questions, k), "K": k, "ε per answer": eps, "users per question": users,
                     "lecture formula": float(olh_variance(eps, users)), "closed form (our OLH, f = 1/d)": closed,
                     "simulated": float(np.mean(errors ** 2)), "trials": trials})
    return pd.DataFrame(rows)


def split_vs_partition_simulation(epsilon: float, questions: int, n: int, d: int = 32, trials: int = 200,
                                  seed: int = 0) -> pd.DataFrame:
    """The two ends of :func:`k_of_q_simulation`: split (K = Q, OLH(ε/Q) with all n users) and partition (K = 1,
    OLH(ε) with ⌊n/Q⌋ users).

    Parameters
    ----------
    epsilon : float
        ε per user: all of it on one question (partition) or ε/Q on each (split).
    questions : int
        Q (at most n).
    n : int
        The users, at least one per question.
    d : int, default 32
        Values per question, equally frequent.
    trials : int, default 200
        Collections per strategy.
    seed : int, default 0
        The root seed.

    Returns
    -------
    pandas.DataFrame
        :func:`k_of_q_simulation`'s table for K = Q and K = 1 (one row when Q = 1), without the "K" column.

    Raises
    ------
    InvalidInput
        When n < Q.
    """
    if n < questions:
        raise InvalidInput(f"need at least one user per question: n = {n} < Q = {questions}")
    ks = [questions] if questions == 1 else [questions, 1]
    return k_of_q_simulation(epsilon, questions, n, ks, d=d, trials=trials, seed=seed).drop(columns="K")


def variance_relative_se(trials: int, values: int) -> float:
    """Relative standard error of a variance estimated from ``trials`` normal draws and averaged over ``values``
    independent values: √(2 / ((trials − 1)·values)).

    Parameters
    ----------
    trials : int
        Draws per value (at least 2).
    values : int
        Independent values averaged (at least 1).

    Returns
    -------
    float
        √(2/((trials − 1)·values)).

    Raises
    ------
    InvalidInput
        When trials < 2 or values < 1.
    """
    if trials < 2 or values < 1:
        raise InvalidInput(f"need at least two trials and one value, got {trials} and {values}")
    return math.sqrt(2 / ((trials - 1) * values))


# =========================================================================== GRR's p as d grows (the lecture's table)
LECTURE_GRR_EPSILONS = (0.1, 1.0, 2.0, 4.0)
LECTURE_GRR_DOMAINS = (2, 8, 128, 1024)
#: p = Pr[report = own value] as the lecture's slide "Generalized Random Response (Direct Encoding)" prints it, by
#: (ε, d), as printed (the string keeps its digits). Read as the formula truncated to the printed digits, 12 of the
#: 16 agree; the d = 128 column does not (e.g. ε = 4: e⁴/(e⁴ + 127) = 0.3007, printed 0.307) — see
#: :func:`grr_probability_table`.
LECTURE_GRR_P = {
    (0.1, 2): "0.52", (0.1, 8): "0.13", (0.1, 128): "0.016", (0.1, 1024): "0.001",
    (1.0, 2): "0.73", (1.0, 8): "0.27", (1.0, 128): "0.027", (1.0, 1024): "0.002",
    (2.0, 2): "0.88", (2.0, 8): "0.51", (2.0, 128): "0.057", (2.0, 1024): "0.007",
    (4.0, 2): "0.98", (4.0, 8): "0.88", (4.0, 128): "0.307", (4.0, 1024): "0.05",
}


def agrees_to_printed_digits(value: float, printed: str, rounding: str = ROUND_DOWN) -> bool:
    """Whether ``value`` cut to the decimals of ``printed`` (``rounding``: truncated by default, as the lecture's
    table is — 0.1364 is printed 0.13, 0.2797 is printed 0.27) reads exactly ``printed``.

    Parameters
    ----------
    value : float
        The computed value.
    printed : str
        The printed decimal, e.g. "0.13".
    rounding : str, default decimal.ROUND_DOWN
        A ``decimal`` rounding mode (ROUND_HALF_EVEN for "rounded").

    Returns
    -------
    bool
        True when the value quantized to the printed decimals equals it.
    """
    target = Decimal(printed)
    return Decimal(repr(float(value))).quantize(target, rounding=rounding) == target


def grr_probability_table(epsilons: Sequence[float] = LECTURE_GRR_EPSILONS,
                          domains: Sequence[int] = LECTURE_GRR_DOMAINS) -> pd.DataFrame:
    """GRR's p = e^ε/(e^ε + d − 1) and q = 1/(e^ε + d − 1) from the GRR mechanism for every (ε, d), beside the
    value the lecture prints where it has one: whether ours, truncated to the printed digits, reads the same
    ("agrees"), and whether rounding would ("agrees if rounded"; four cells are truncated, not rounded).

    Parameters
    ----------
    epsilons : sequence of float, default LECTURE_GRR_EPSILONS
        The ε values.
    domains : sequence of int, default LECTURE_GRR_DOMAINS
        The domain sizes d.

    Returns
    -------
    pandas.DataFrame
        One row per (ε, d): "ε", "d", "p", "q", "p / q", "lecture p" ("" where not printed), "agrees" and
        "agrees if rounded" (None where not printed).

    References
    ----------
    The lecture "Local Differential Privacy (Part 1)", slide "Generalized Random Response (Direct Encoding)" (the
    table of p for d = 2, 8, 128, 1024); consistency paper (Wang et al., NDSS 2020) Eq. (1).
    """
    rows = []
    for eps in epsilons:
        for d in domains:
            mech = get_mechanism("grr", float(eps), int(d))
            printed = LECTURE_GRR_P.get((float(eps), int(d)))
            rows.append({"ε": float(eps), "d": int(d), "p": mech.p_star, "q": mech.q_star,
                         "p / q": mech.p_star / mech.q_star, "lecture p": printed or "",
                         "agrees": None if printed is None else agrees_to_printed_digits(mech.p_star, printed),
                         "agrees if rounded": None if printed is None else
                         agrees_to_printed_digits(mech.p_star, printed, ROUND_HALF_EVEN)})
    return pd.DataFrame(rows)


def grr_probability_grid(table: pd.DataFrame) -> pd.DataFrame:
    """:func:`grr_probability_table` laid out as the lecture's slide (ε down, d across): each cell our p with the
    lecture's printed value and whether it agrees to the printed digits (words, not ✓/✗ glyphs: a lecture hall's
    browser may lack the font).

    Parameters
    ----------
    table : pandas.DataFrame
        A :func:`grr_probability_table`.

    Returns
    -------
    pandas.DataFrame
        One row per ε: "ε", then one column "p (d = …)" per d holding text cells.
    """
    def cell(row: pd.Series) -> str:
        if not row["lecture p"]:
            return f"{row['p']:.4g}"
        return f"{row['p']:.4g} (lecture {row['lecture p']}: {'agrees' if row['agrees'] else 'DIFFERS'})"

    cells = table.assign(cell=table.apply(cell, axis=1))
    grid = cells.pivot(index="ε", columns="d", values="cell")
    grid.columns = [f"p (d = {d:,})" for d in grid.columns]
    return grid.reset_index()


# =========================================================================== unary encoding, the worked example
#: The lecture's unary-encoding example: five users on D = {1, 2, 3, 4} hold 2, 2, 3, 2, 4 (here 0-based: 1, 1, 2,
#: 1, 3), each one-hot vector perturbed with p = 4/5, q = 1/5 into these reports (slide "Unary Encoding (Basic
#: RAPPOR)"); the slide prints the column sums [1, 3, 2, 1] and the estimate [0, 10/3, 5/3, 0].
LECTURE_UE_VALUES = (1, 1, 2, 1, 3)
LECTURE_UE_REPORTS = ((0, 1, 0, 0), (0, 0, 0, 0), (0, 1, 1, 0), (0, 1, 1, 0), (1, 0, 0, 1))
LECTURE_UE_P = Fraction(4, 5)


@dataclass(frozen=True)
class UnaryExample:
    """The unary-encoding estimate c(v) = (I_v − n q)/(p − q) worked in exact fractions, step by step, with the
    symmetric-UE mechanism's own aggregate and estimate of the same reports beside it.

    Attributes
    ----------
    values : tuple of int
        Each user's value, 0-based.
    encoded : numpy.ndarray
        n × d one-hot vectors x.
    reports : numpy.ndarray
        n × d perturbed bits y.
    p : fractions.Fraction
        Pr[1 → 1] = Pr[0 → 0].
    q : fractions.Fraction
        1 − p.
    epsilon : float
        The symmetric-UE budget with this p: e^{ε/2} = p/q.
    truth : tuple of int
        The true counts n_v.
    observed : tuple of int
        I_v = Σ y[v].
    minus_nq : tuple of fractions.Fraction
        I_v − n q.
    estimate : tuple of fractions.Fraction
        c(v) = (I_v − n q)/(p − q).
    engine_counts : numpy.ndarray
        The SUE mechanism's support counts of the reports.
    engine_estimate : numpy.ndarray
        n · its frequency estimate (floats).

    References
    ----------
    The lecture "Local Differential Privacy (Part 1)", slide "Unary Encoding (Basic RAPPOR)" (p = 4/5, q = 1/5;
    sums [1, 3, 2, 1], estimate [0, 10/3, 5/3, 0]).
    """

    values: tuple[int, ...]  # each user's value (0-based)
    encoded: np.ndarray  # n × d one-hot vectors x
    reports: np.ndarray  # n × d perturbed bits y
    p: Fraction
    q: Fraction
    epsilon: float  # the symmetric-UE budget with this p: e^{ε/2} = p/q
    truth: tuple[int, ...]  # true counts n_v
    observed: tuple[int, ...]  # I_v = Σ y[v]
    minus_nq: tuple[Fraction, ...]  # I_v − n q
    estimate: tuple[Fraction, ...]  # c(v) = (I_v − n q)/(p − q)
    engine_counts: np.ndarray  # the SUE mechanism's support counts of the reports
    engine_estimate: np.ndarray  # n · its frequency estimate (floats)

    @property
    def n(self) -> int:
        return len(self.values)

    def steps(self) -> pd.DataFrame:
        """One row per value v (1-based, as the lecture numbers them): n_v, I_v, I_v − n q, c(v) as fractions
        and as a decimal, and the mechanism's estimate."""
        return pd.DataFrame({
            "v": np.arange(1, len(self.truth) + 1), "true count n_v": self.truth,
            "observed I_v = Σ y[v]": self.observed,
            f"I_v − n·q = I_v − {self.n * self.q}": [str(x) for x in self.minus_nq],
            f"c(v) = (I_v − n·q) / (p − q), p − q = {self.p - self.q}": [str(x) for x in self.estimate],
            "c(v) (decimal)": [float(x) for x in self.estimate],
            "SUE mechanism's estimate (n·f̂)": self.engine_estimate})

    def users(self) -> pd.DataFrame:
        """One row per user: the value (1-based), its one-hot encoding x and the perturbed report y."""
        def bits(row: np.ndarray) -> str:
            return "[" + ", ".join(str(int(b)) for b in row) + "]"
        return pd.DataFrame({"user": np.arange(1, self.n + 1), "value v": np.asarray(self.values) + 1,
                             "encoding x": [bits(r) for r in self.encoded],
                             "report y": [bits(r) for r in self.reports]})


def unary_example(values: Sequence[int] = LECTURE_UE_VALUES, reports: Sequence[Sequence[int]] = LECTURE_UE_REPORTS,
                  p: Fraction = LECTURE_UE_P) -> UnaryExample:
    """Work the lecture's symmetric unary-encoding estimate on given reports: p is kept exact (a ``Fraction``) and
    q = 1 − p (symmetric UE, e^{ε/2} = p/q). The reports also go through the SUE mechanism at that ε
    (``support_counts`` and ``estimate``), whose floats must agree with the fractions.

    Parameters
    ----------
    values : sequence of int, default LECTURE_UE_VALUES
        Each user's value, 0-based, in [0, d).
    reports : sequence of sequence of int, default LECTURE_UE_REPORTS
        One 0/1 report of d ≥ 2 bits per user.
    p : fractions.Fraction, default LECTURE_UE_P
        Pr[a bit is kept], 1/2 < p < 1.

    Returns
    -------
    UnaryExample
        Every step of the estimate in fractions, and the mechanism's.

    Raises
    ------
    InvalidInput
        When the reports are not one 0/1 row of d ≥ 2 bits per user, a value is outside [0, d), or p is not in
        (1/2, 1).

    References
    ----------
    The lecture "Local Differential Privacy (Part 1)", slide "Unary Encoding (Basic RAPPOR)"
    (c(v) = (I_v − n q)/(p − q)).
    """
    y = np.asarray(reports, dtype=np.int64)
    v = np.asarray(values, dtype=np.int64)
    p = Fraction(p)
    if y.ndim != 2 or y.shape[0] != v.shape[0] or y.shape[1] < 2 or not np.isin(y, (0, 1)).all():
        raise InvalidInput(f"need one 0/1 report of d ≥ 2 bits per user, got shape {y.shape} for {v.shape[0]} users")
    d = y.shape[1]
    if not np.all((0 <= v) & (v < d)):
        raise InvalidInput(f"values must lie in [0, {d})")
    if not Fraction(1, 2) < p < 1:
        raise InvalidInput(f"symmetric UE needs 1/2 < p < 1, got p = {p}")
    q = 1 - p
    n = v.shape[0]
    observed = tuple(int(c) for c in y.sum(axis=0))
    minus = tuple(Fraction(c) - n * q for c in observed)
    epsilon = 2 * math.log(p / q)
    mech = get_mechanism("sue", epsilon, d)
    counts = mech.support_counts(y)
    return UnaryExample(values=tuple(int(x) for x in v), encoded=np.eye(d, dtype=np.int64)[v], reports=y, p=p, q=q,
                        epsilon=epsilon, truth=tuple(int(c) for c in np.bincount(v, minlength=d)),
                        observed=observed, minus_nq=minus, estimate=tuple(m / (p - q) for m in minus),
                        engine_counts=counts, engine_estimate=n * mech.estimate(counts, n).values)


# =========================================================================== sequential composition, demonstrated
def repeated_channel(matrix: np.ndarray, reports: int) -> np.ndarray:
    """The channel of ``reports`` independent reports of the same value: Pr[(y₁, …, y_k) | v] = Π_j Pr[y_j | v],
    one column per tuple of outputs (d^k columns for a d-output channel).

    Parameters
    ----------
    matrix : numpy.ndarray
        A channel, inputs × outputs.
    reports : int
        k, the number of independent reports (at least 1).

    Returns
    -------
    numpy.ndarray
        Inputs × outputs^k; the columns run over output tuples, the last report fastest.

    Raises
    ------
    InvalidInput
        When k < 1.

    References
    ----------
    The lecture "Local Differential Privacy (Part 1)", slide "Properties of LDP" (sequential composition: k
    algorithms at ε_i give Σ ε_i-LDP).
    """
    m = np.asarray(matrix, dtype=np.float64)
    if reports < 1:
        raise InvalidInput(f"need at least one report, got {reports}")
    out = m
    for _ in range(int(reports) - 1):
        out = (out[:, :, None] * m[:, None, :]).reshape(m.shape[0], -1)
    return out


def grr_accuracy_bound(epsilon: float | np.ndarray, d: int) -> np.ndarray | float:
    """The best a Bayes attacker can guess a uniformly distributed value from any ε-LDP view: e^ε/(e^ε + d − 1).

    Per output y, max_v Pr[y|v] ≤ e^ε min_v Pr[y|v], so Σ_v Pr[y|v] ≥ max_v Pr[y|v] (1 + (d − 1)e^{−ε}); summing
    over y, (1/d) Σ_y max_v Pr[y|v] ≤ e^ε/(e^ε + d − 1), which GRR(ε) attains (its p).

    Parameters
    ----------
    epsilon : float or numpy.ndarray
        The privacy budget(s).
    d : int
        The domain size.

    Returns
    -------
    float or numpy.ndarray
        The ceiling on the attacker's success probability, of ε's shape.

    References
    ----------
    Consistency paper (Wang et al., NDSS 2020) Eq. (1) (GRR's p = e^ε/(e^ε + d − 1)).
    """
    e = np.exp(np.asarray(epsilon, dtype=np.float64))
    out = e / (e + int(d) - 1)
    return float(out) if out.ndim == 0 else out


#: Most outputs of a repeated channel enumerated by :func:`composition_table` (d^k columns).
MAX_REPEATED_OUTPUTS = 2**16


def composition_table(epsilon: float, d: int, max_reports: int = 4) -> pd.DataFrame:
    """Sequential composition on GRR(ε) with d values: k independent reports of one value at ε each against one
    report at kε, for k = 1 … ``max_reports`` (fewer where d^k would exceed ``MAX_REPEATED_OUTPUTS`` or GRR cannot
    be built at kε — its report probabilities would underflow double precision).

    For each, the privacy loss max ln Pr[y|v]/Pr[y|v′] of the exact (product) channel — both exactly kε: the
    composition theorem's budget is attained — and the Bayes-optimal attacker's success at guessing a uniformly
    distributed value, (1/d) Σ_y max_v Pr[y|v], with the kε-LDP ceiling :func:`grr_accuracy_bound` (which one GRR
    report at kε attains) and the no-report baseline 1/d.

    Parameters
    ----------
    epsilon : float
        The budget of one report (positive).
    d : int
        The domain size (at least 2).
    max_reports : int, default 4
        The largest k.

    Returns
    -------
    pandas.DataFrame
        One row per k: "reports k", "budget spent kε", "loss: k reports at ε", "loss: one report at kε",
        "attacker: k reports at ε", "attacker: one report at kε", "attacker: one report at ε", "kε-LDP ceiling",
        "no report (1/d)".

    Raises
    ------
    InvalidInput
        Unless d ≥ 2 and ε > 0.

    References
    ----------
    The lecture "Local Differential Privacy (Part 1)", slide "Properties of LDP" (sequential composition).
    """
    if not 2 <= int(d) or not epsilon > 0:
        raise InvalidInput(f"need d ≥ 2 and ε > 0, got d = {d}, ε = {epsilon}")
    prior = np.full(int(d), 1.0 / int(d))
    single = get_mechanism("grr", float(epsilon), int(d)).channel()[0]
    rows = []
    for k in range(1, int(max_reports) + 1):
        if int(d) ** k > MAX_REPEATED_OUTPUTS:
            break
        try:
            once = get_mechanism("grr", k * float(epsilon), int(d)).channel()[0]
        except LDPError:  # kε beyond what GRR can sample in double precision: stop there
            break
        repeated = repeated_channel(single, k)
        rows.append({"reports k": k, "budget spent kε": k * float(epsilon),
                     "loss: k reports at ε": worst_case(repeated)[0], "loss: one report at kε": worst_case(once)[0],
                     "attacker: k reports at ε": channel_success(repeated, prior),
                     "attacker: one report at kε": channel_success(once, prior),
                     "attacker: one report at ε": channel_success(single, prior),
                     "kε-LDP ceiling": grr_accuracy_bound(k * float(epsilon), int(d)),
                     "no report (1/d)": 1.0 / int(d)})
    return pd.DataFrame(rows)


# =========================================================================== central DP vs LDP noise on a count
DP_VS_LDP_MECHANISMS = ("grr", "oue", "olh")


def central_count_sd(epsilon: float | np.ndarray) -> np.ndarray | float:
    """σ of a count released with central Laplace noise: a count has sensitivity 1, so the Laplace(1/ε) noise has
    standard deviation √2/ε, whatever n (the lecture's Θ(1)).

    Parameters
    ----------
    epsilon : float or numpy.ndarray
        The privacy budget(s), positive.

    Returns
    -------
    float or numpy.ndarray
        √2/ε, of ε's shape.

    Raises
    ------
    InvalidInput
        When an ε is not positive.

    References
    ----------
    The lecture "Local Differential Privacy (Part 1)", slide "Key difference between DP and LDP" (noise in DP is
    Ω(1): the sensitivity is constant).
    """
    eps = np.asarray(epsilon, dtype=np.float64)
    if not np.all(eps > 0):
        raise InvalidInput(f"ε must be positive, got {epsilon}")
    out = math.sqrt(2) / eps
    return float(out) if out.ndim == 0 else out


def ldp_count_sd(mechanism: Mechanism, n: float | np.ndarray) -> np.ndarray | float:
    """σ of an estimated count n·f̂(v) of a value of negligible frequency: √(n · Var[c̃]/n), Var[c̃]/n being the
    comparison table's entry (the mechanism's ``approximate_variance(1)``) — Θ(√n) (the lecture's Ω(√n)).

    Parameters
    ----------
    mechanism : Mechanism
        A frequency oracle.
    n : float or numpy.ndarray
        The number(s) of users.

    Returns
    -------
    float or numpy.ndarray
        σ of the estimated count, of n's shape.

    References
    ----------
    The lecture "Local Differential Privacy (Part 1)", slide "Key difference between DP and LDP" (in LDP the
    aggregated noise is Ω(√n)).
    """
    n = np.asarray(n, dtype=np.float64)
    out = np.sqrt(n * mechanism.approximate_variance(1))
    return float(out) if out.ndim == 0 else out


def dp_vs_ldp_curves(epsilon: float, d: int, ns: Sequence[float] | np.ndarray,
                     names: Sequence[str] = DP_VS_LDP_MECHANISMS) -> pd.DataFrame:
    """σ of a count against n: central Laplace (constant) and each LDP mechanism (∝ √n); long format with the
    normalised σ/n (the frequency's error: Θ(1/n) against Θ(1/√n)).

    Parameters
    ----------
    epsilon : float
        The privacy budget.
    d : int
        The domain size of the LDP mechanisms.
    ns : sequence of float or numpy.ndarray
        The n axis.
    names : sequence of str, default DP_VS_LDP_MECHANISMS
        The LDP mechanisms.

    Returns
    -------
    pandas.DataFrame
        Long format: "n", "method", "σ of the count", "σ of the frequency (÷ n)".

    Raises
    ------
    InvalidInput
        When ε ≤ 0 or a mechanism cannot be built.

    References
    ----------
    The lecture "Local Differential Privacy (Part 1)", slide "Key difference between DP and LDP" (Ω(1/n) against
    Ω(1/√n) once normalised).
    """
    n = np.asarray(ns, dtype=np.float64)
    parts = [pd.DataFrame({"n": n, "method": "central DP (Laplace)", "σ of the count": central_count_sd(epsilon)
                           * np.ones_like(n)})]
    for name in names:
        mech = get_mechanism(name, float(epsilon), int(d))
        parts.append(pd.DataFrame({"n": n, "method": f"LDP: {mech.display_name}",
                                   "σ of the count": ldp_count_sd(mech, n)}))
    out = pd.concat(parts, ignore_index=True)
    out["σ of the frequency (÷ n)"] = out["σ of the count"] / out["n"]
    return out


def dp_vs_ldp_simulation(epsilon: float, d: int, ns: Sequence[int], names: Sequence[str] = DP_VS_LDP_MECHANISMS,
                         trials: int = 200, seed: int = 0) -> pd.DataFrame:
    """Check :func:`dp_vs_ldp_curves` empirically: per n, ``trials`` central Laplace(1/ε) releases of a count and
    ``trials`` LDP collections (fast engine) of n users who all hold value 1, the count of value 0 (frequency 0,
    where the closed form is exact) estimated; the standard deviation of the errors against the closed form, with
    the relative standard error of a standard deviation from T = ``trials`` draws, ½√((2 + κ)/(T − 1)) (delta
    method on s²; κ the excess kurtosis: 3 for Laplace noise, (1 − 6q(1 − q))/(n q(1 − q)) for the LDP count, a
    Binomial(n, q*) — large when n q* is small, e.g. at large ε).

    Parameters
    ----------
    epsilon : float
        ε of both the central release and every LDP report.
    d : int
        Values the LDP users report over (all hold value 1; value 0's count is estimated).
    ns : sequence of int
        The numbers of users (each positive).
    names : sequence of str, default DP_VS_LDP_MECHANISMS
        The LDP mechanisms.
    trials : int, default 200
        Releases or collections per n and method (at least 2).
    seed : int, default 0
        The root seed (streams "dp vs ldp"/"central"/n and "dp vs ldp"/mechanism/n).

    Returns
    -------
    pandas.DataFrame
        One row per (n, method): "n", "method", "closed form σ", "simulated σ", "simulated / closed form",
        "relative SE", "trials".

    Raises
    ------
    InvalidInput
        When trials < 2 or an n is not positive.
    """
    from ldp.engines import collect

    if trials < 2:
        raise InvalidInput(f"need at least two trials, got {trials}")
    laplace_rse = 0.5 * math.sqrt(5 / (trials - 1))
    rows = []
    for n in ns:
        n = int(n)
        if n < 1:
            raise InvalidInput(f"n must be positive, got {n}")
        noise = rng_for(seed, "dp vs ldp", "central", n).laplace(0.0, 1 / float(epsilon), trials)
        rows.append({"n": n, "method": "central DP (Laplace)", "closed form σ": central_count_sd(epsilon),
                     "simulated σ": float(np.std(noise, ddof=1)), "relative SE": laplace_rse})
        population = np.zeros(int(d), dtype=np.int64)
        population[1] = n
        for name in names:
            mech = get_mechanism(name, float(epsilon), int(d))
            rng = rng_for(seed, "dp vs ldp", name, n)
            errors = np.array([n * mech.estimate(collect(mech, population, rng, "fast")).values[0]
                               for _ in range(trials)])
            spread = mech.q_star * (1 - mech.q_star)
            kurtosis = (1 - 6 * spread) / (n * spread)
            rows.append({"n": n, "method": f"LDP: {mech.display_name}", "closed form σ": ldp_count_sd(mech, n),
                         "simulated σ": float(np.std(errors, ddof=1)),
                         "relative SE": 0.5 * math.sqrt((2 + kurtosis) / (trials - 1))})
    out = pd.DataFrame(rows)
    out.insert(4, "simulated / closed form", out["simulated σ"] / out["closed form σ"])
    out["trials"] = trials
    return out


# =========================================================================== Hoeffding / Bernstein vs exact intervals
def concentration_halfwidths(p: float, q: float, n: int, level: float = 0.95) -> tuple[float, float]:
    """(Hoeffding, Bernstein) half-widths t with P(|f̂(v) − f(v)| ≥ t) ≤ 1 − level for a pure oracle's estimate.

    The lecture ("Probabilistic Analysis") bounds the error by Bernstein or Hoeffding because the support count is
    a sum of independent Bernoullis; it prints no formula, so we write it out. f̂(v) = (1/n) Σ_i X_i with
    X_i = (Y_i − q)/(p − q), Y_i ~ Bern(p) for holders of v and Bern(q) otherwise, independent; L = ln(2/(1 − level)).

    * Hoeffding: each X_i lies in an interval of length 1/(p − q), so P(|f̂ − f| ≥ t) ≤ 2 exp(−2 n t² (p − q)²)
      and t = √(L / (2n)) / (p − q).
    * Bernstein: |X_i − E X_i| ≤ M = max(p, 1 − p, q, 1 − q)/(p − q) and Var X_i ≤ s² = max(p(1 − p), q(1 − q))/(p − q)²
      whatever f (our choice: a bound that needs no knowledge of f, as Hoeffding's), so
      P(|f̂ − f| ≥ t) ≤ 2 exp(−n t² / (2 s² + 2 M t / 3)), and solving n t² − (2 M L/3) t − 2 s² L = 0,
      t = (M L/3 + √((M L/3)² + 2 n s² L)) / n.

    Parameters
    ----------
    p : float
        p*, a holder's probability of supporting v.
    q : float
        q*, a non-holder's, with 0 ≤ q < p ≤ 1.
    n : int
        The number of users (positive).
    level : float, default 0.95
        The confidence level, in (0, 1).

    Returns
    -------
    tuple of float
        (Hoeffding t, Bernstein t), frequencies.

    Raises
    ------
    InvalidInput
        When not 0 ≤ q < p ≤ 1, n < 1, or the level is not in (0, 1).

    References
    ----------
    The lecture "Local Differential Privacy (Part 1)", slide "Probabilistic Analysis" ("Use appropriate inequality to
    bound the error: Bernstein or Hoeffding inequalities").
    """
    if not 0 <= q < p <= 1:
        raise InvalidInput(f"need 0 ≤ q < p ≤ 1, got p = {p}, q = {q}")
    n = int(n)
    if n < 1:
        raise InvalidInput(f"n must be positive, got {n}")
    if not 0 < level < 1:
        raise InvalidInput(f"the level must lie strictly between 0 and 1, got {level}")
    gap = p - q
    big_l = math.log(2 / (1 - level))
    hoeffding = math.sqrt(big_l / (2 * n)) / gap
    m = max(p, 1 - p, q, 1 - q) / gap
    s2 = max(p * (1 - p), q * (1 - q)) / gap**2
    bernstein = (m * big_l / 3 + math.sqrt((m * big_l / 3) ** 2 + 2 * n * s2 * big_l)) / n
    return hoeffding, bernstein


def bound_widths(name: str, d: int, ns: Sequence[int], epsilons: Sequence[float], level: float = 0.95) -> pd.DataFrame:
    """Interval widths for one value's frequency at every (ε, n): Hoeffding's and Bernstein's (2t, from
    :func:`concentration_halfwidths`) beside the project's intervals (``ldp.evaluation.uncertainty
    .frequency_intervals``: exact binomial inversion at small counts, else f̂ ± zσ) computed at the expected support
    counts of n users spread evenly over the d values (f = 1/d), and the plain normal interval 2zσ.

    Parameters
    ----------
    name : str
        A pure frequency oracle's registry name.
    d : int
        The domain size.
    ns : sequence of int
        The numbers of users.
    epsilons : sequence of float
        The privacy budgets.
    level : float, default 0.95
        The confidence level.

    Returns
    -------
    pandas.DataFrame
        One row per (ε, n): "ε", "n", "Hoeffding", "Bernstein", "our interval", "our method", "normal 2zσ",
        "Hoeffding / ours", "Bernstein / ours" (widths are frequencies).

    Raises
    ------
    InvalidInput
        When the mechanism is not a pure frequency oracle, or the level or n is invalid.

    References
    ----------
    The lecture "Local Differential Privacy (Part 1)", slide "Probabilistic Analysis".
    """
    from ldp.evaluation.uncertainty import frequency_intervals, z_value

    rows = []
    for eps in epsilons:
        mech = get_mechanism(name, float(eps), int(d))
        if not getattr(mech, "pure", False):
            raise InvalidInput(f"{mech.display_name} is not a pure frequency oracle: no Bernoulli support counts")
        p, q = mech.p_star, mech.q_star
        f = np.full(int(d), 1.0 / int(d))
        for n in ns:
            n = int(n)
            hoeffding, bernstein = concentration_halfwidths(p, q, n, level)
            counts = np.rint(n * (f * p + (1 - f) * q))
            iv = frequency_intervals(mech, counts, n, level)
            rows.append({"ε": float(eps), "n": n, "Hoeffding": 2 * hoeffding, "Bernstein": 2 * bernstein,
                         "our interval": float(iv.high[0] - iv.low[0]), "our method": str(iv.method[0]),
                         "normal 2zσ": 2 * z_value(level) * float(np.sqrt(mech.variance(f[0], n)))})
    out = pd.DataFrame(rows)
    out["Hoeffding / ours"] = out["Hoeffding"] / out["our interval"]
    out["Bernstein / ours"] = out["Bernstein"] / out["our interval"]
    return out
