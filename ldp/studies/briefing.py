"""The briefing for stakeholders (the "story" the Story page tells): five steps from "your data" to "how many users
or what ε you need", each a table (the chart's data) and one sentence, computed from one configuration (data,
mechanism, ε, n, seed).

1. **Your data** — the distribution the users are drawn from: its most common values and their shares.
2. **What one report reveals** — the Bayes-optimal attacker (:mod:`ldp.studies.attacks`) who knows the distribution
   and sees one report, against guessing the most common value without it, over ε; and e^ε, the most any report can
   favour one value over another (plausible deniability).
3. **How wrong the histogram is** — one collection's matrix-inversion estimate with its per-value intervals and the
   plain verdict of :mod:`ldp.studies.verdicts` (±users of n, traffic lights).
4. **What post-processing buys** — a handful of estimators on the *same* collections (``trials`` of them): the
   typical error per value in users (n·RMSE), against matrix inversion's. Post-processing uses only the reports, so
   it costs no privacy.
5. **How many users or what ε you need** — the noise floor σ₀ (one standard deviation of a value of frequency ≈ 0,
   consistency paper Eq. (5); σ₀² ∝ 1/n exactly) against n, beside an average value's share 1/d; the verdict's
   users and ε that tell an average value from zero at the chosen level.

Every number comes from the library's own functions (the tests check that), so the story and the other pages agree.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ldp.core.errors import InvalidInput
from ldp.core.params import check_positive_int
from ldp.core.registry import ESTIMATORS
from ldp.core.streams import rng_for
from ldp.evaluation.uncertainty import estimate_intervals, z_value
from ldp.mechanisms import get_mechanism, mechanisms_of
from ldp.mechanisms.base import Mechanism
from ldp.simulation import simulate
from ldp.studies.attacks import attack_success, baseline_success, plausible_deniability_ratio
from ldp.studies.comparison import draw_population
from ldp.studies.verdicts import Verdict, verdict

__all__ = ["STORY_ESTIMATORS", "STORY_TITLES", "Story", "StoryStep", "tell_story"]

#: The post-processors the story compares with matrix inversion (those that apply to the mechanism are used).
STORY_ESTIMATORS = ("mi", "norm-sub", "base-cut", "power-ns", "ibu")
STORY_TITLES = ("Your data", "What one user's report reveals", "How wrong the histogram is",
                "What post-processing buys", "How many users or what ε you need")
#: Values the data and estimate steps show (the most common ones), so a chart stays readable on a projector.
SHOWN_VALUES = 30
#: ε for the attacker curve of step 2 (with the story's ε added).
ATTACK_EPSILONS = (0.1, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0)
#: The largest n (users) the story simulates: the fast engine's collections are drawn per value, not per user.
MAX_USERS = 10**9


@dataclass(frozen=True)
class StoryStep:
    """One step: its title, its sentence (Markdown: ``**bold**`` only) and the table its chart draws.

    Attributes
    ----------
    number : int
        The step's number, 1 to 5 (the module docstring's list).
    title : str
        Its title, one of :data:`STORY_TITLES`.
    sentence : str
        The one-sentence finding, Markdown with ``**bold**`` only.
    table : pandas.DataFrame
        The data its chart draws (columns depend on the step, e.g. ``value`` and ``share of users`` for step 1,
        ``users``, ``noise floor (share)``, ``smallest share told from zero`` and ``average value's share`` for
        step 5).
    """

    number: int
    title: str
    sentence: str
    table: pd.DataFrame = field(repr=False)


@dataclass(frozen=True)
class Story:
    """The five steps of one configuration, the settings that made them and what to show beside them.

    Attributes
    ----------
    steps : tuple of StoryStep
        The five steps, in order (``step(k)`` returns step k, 1-based).
    settings : Mapping[str, Any]
        What made them, for display: data name, title and source, mechanism display name, ε, the mechanism's other
        parameters, users n, seed, collections for step 4 and confidence level.
    mechanism : Mechanism
        The frequency oracle the users report with.
    n : int
        The number of simulated users.
    verdict : Verdict
        The plain verdict of :func:`ldp.studies.verdicts.verdict` on step 3's estimate (noise floor, users and ε
        needed).
    warnings : tuple of str, default ()
        Diagnostics of step 4's estimators (did not converge, validity), shown beside it.
    """

    steps: tuple[StoryStep, ...]
    settings: Mapping[str, Any]
    mechanism: Mechanism
    n: int
    verdict: Verdict
    #: Diagnostics of the estimators (did not converge, validity), shown beside step 4.
    warnings: tuple[str, ...] = ()

    def step(self, number: int) -> StoryStep:
        return self.steps[number - 1]


def _users(x: float) -> str:
    return f"{x:,.0f}" if x >= 10 else f"{x:.2g}"


def _pct(x: float) -> str:
    return f"{100 * x:.2g} %"


def _shown(freqs: np.ndarray, ordered: bool) -> np.ndarray:
    """Indices of the values a chart shows: all of them up to :data:`SHOWN_VALUES`, else the most common (in the
    domain's order when it has one)."""
    if freqs.size <= SHOWN_VALUES:
        return np.arange(freqs.size)
    top = np.argsort(-freqs, kind="stable")[:SHOWN_VALUES]
    return np.sort(top) if ordered else top


def _data_step(name: str, labels: Sequence[str], freqs: np.ndarray, rows: int | None, n: int,
               ordered: bool) -> StoryStep:
    idx = _shown(freqs, ordered)
    table = pd.DataFrame({"value": [str(labels[i]) for i in idx], "share of users": freqs[idx]})
    top = int(np.argmax(freqs))
    held = float(np.sort(freqs)[::-1][:len(idx)].sum())
    source = f"{rows:,} rows" if rows is not None else "a synthetic distribution"
    shown = (f"the {len(idx)} most common hold {_pct(held)} of them" if len(idx) < freqs.size
             else "every value is shown")
    sentence = (f"**{name}**: {source} over **{freqs.size:,} values**; {shown}, and the most common, "
                f"'{labels[top]}', is {_pct(float(freqs[top]))}. The story simulates **{n:,} users** drawn from this "
                "distribution, each sending one private report.")
    return StoryStep(1, STORY_TITLES[0], sentence, table)


def _attack_step(mech: Mechanism, freqs: np.ndarray, labels: Sequence[str], params: Mapping[str, Any]) -> StoryStep:
    eps_grid = sorted({*ATTACK_EPSILONS, float(mech.epsilon)})
    base = baseline_success(freqs)
    rows = []
    for eps in eps_grid:
        other = mech if eps == float(mech.epsilon) else get_mechanism(mech.name, eps, mech.d, **_epsilon_free(params))
        s = attack_success(other, freqs)
        rows.append({"epsilon": eps, "attacker's success": math.nan if s is None else float(s),
                     "guess without the report": base, "chosen": eps == float(mech.epsilon)})
    table = pd.DataFrame(rows)
    s = table.loc[table["chosen"], "attacker's success"].item()
    ratio = plausible_deniability_ratio(float(mech.epsilon))
    top = labels[int(np.argmax(freqs))]
    if math.isnan(s):
        head = f"{mech.display_name}'s reports are continuous, so this attacker's success is not computed here. "
    else:
        head = (f"An attacker who knows this distribution and sees **one user's report** guesses that user's value "
                f"right **{_pct(s)}** of the time, against **{_pct(base)}** without the report (always guessing "
                f"'{top}'). ")
    sentence = head + (f"At ε = {mech.epsilon:g} no report makes one value more than **e^ε = {ratio:.3g}×** as likely "
                       "as another, so every user can plausibly deny any value.")
    return StoryStep(2, STORY_TITLES[1], sentence, table)


def _epsilon_free(params: Mapping[str, Any]) -> dict[str, Any]:
    """The user's parameters minus those tied to one ε (a longitudinal ε1 must stay below each ε: it is derived)."""
    return {k: v for k, v in params.items() if k != "epsilon_1"}


def _estimate_step(mech: Mechanism, labels: Sequence[str], truth: np.ndarray, mi: np.ndarray, n: int, level: float,
                   ordered: bool) -> tuple[StoryStep, Verdict]:
    iv = estimate_intervals(mech, mi, n, level)
    plain = verdict(mech, mi, n, level, intervals=iv)
    idx = _shown(truth, ordered)
    table = pd.DataFrame({"value": [str(labels[i]) for i in idx], "true share": truth[idx], "estimate": mi[idx],
                          "low": iv.low[idx], "high": iv.high[idx], "light": plain.lights[idx]})
    eps1 = mech.params.get("epsilon_1") if mech.collection == "longitudinal" else None
    return StoryStep(3, STORY_TITLES[2], plain.sentence(mech.display_name, mech.epsilon, eps1), table), plain


def _postprocessing_step(mech: Mechanism, population: np.ndarray, estimators: Sequence[str], trials: int,
                         seed: int) -> tuple[StoryStep, tuple[str, ...]]:
    names = [e for e in dict.fromkeys(("mi", *estimators)) if ESTIMATORS.get(e).applies_to(mech)]
    result = simulate(mech, population, estimators=names, trials=trials, seed=rng_for(seed, "story", "post"),
                      metrics=("mse",))
    n = result.n
    truth = result.true_frequencies
    rows = []
    for name in names:
        mse = np.mean((result.estimates[name] - truth) ** 2, axis=1)
        rows.append({"estimator": name, "display name": ESTIMATORS.get(name).display_name,
                     "typical error (users)": float(n * np.sqrt(np.mean(mse))), "MSE": float(np.mean(mse))})
    table = pd.DataFrame(rows)
    mi = table.loc[table["estimator"] == "mi", "typical error (users)"].item()
    table["vs matrix inversion"] = table["typical error (users)"] / mi
    best = table.loc[table["typical error (users)"].idxmin()]
    runs = f"{trials} simulated collection{'s' if trials > 1 else ''}"
    if best["estimator"] == "mi":
        sentence = (f"Here post-processing buys nothing: matrix inversion's typical error, **±{_users(mi)} users** per "
                    f"value, is already the lowest of the {len(names)} estimators ({runs}).")
    else:
        sentence = (f"Same reports, better answer: **{best['display name']}** cuts the typical error per value from "
                    f"**±{_users(mi)}** (matrix inversion) to **±{_users(best['typical error (users)'])} users** "
                    f"({1 - best['vs matrix inversion']:.0%} less, over {runs}). Post-processing uses only the "
                    "reports, so it costs no privacy.")
    return StoryStep(4, STORY_TITLES[3], sentence, table), result.warnings


def _needs_step(plain: Verdict, mech: Mechanism) -> StoryStep:
    n = plain.n
    grid = np.unique(np.round(np.geomspace(max(10, n / 1000), min(MAX_USERS, max(n * 1000, plain.users_needed * 10)),
                                           61)).astype(np.int64))
    grid = np.unique(np.append(grid, [n, min(plain.users_needed, MAX_USERS)]))
    sigma = plain.sigma * np.sqrt(n / grid)  # σ₀² ∝ 1/n exactly (module docstring)
    z = z_value(plain.level)
    table = pd.DataFrame({"users": grid, "noise floor (share)": sigma, "smallest share told from zero": z * sigma,
                          "average value's share": plain.typical})
    level = f"{plain.level:.0%}"
    if plain.users_needed <= n:
        need = (f"With {n:,} users at ε = {mech.epsilon:g} an average value (1/{plain.d:,} = {_pct(plain.typical)}) "
                f"is already told from zero at {level}; about **{plain.users_needed:,} users** would suffice.")
    else:
        eps = plain.epsilon_needed
        alt = (f", or **ε ≥ {eps:.2g}** with these {n:,} users" if eps is not None
               else "; no ε up to 10 does it with these users")
        need = (f"To tell an average value (1/{plain.d:,} = {_pct(plain.typical)}) from zero at {level} you need "
                f"about **{plain.users_needed:,} users** at ε = {mech.epsilon:g}{alt}.")
    return StoryStep(5, STORY_TITLES[4], need + " The error shrinks as 1/√n: four times the users halve it.", table)


def tell_story(counts: np.ndarray, labels: Sequence[str], *, name: str, mechanism: str, epsilon: float, n: int,
               seed: int = 0, params: Mapping[str, Any] | None = None, estimators: Sequence[str] = STORY_ESTIMATORS,
               trials: int = 5, level: float = 0.95, ordered: bool = False, rows: int | None = None,
               source: str = "", title: str = "") -> Story:
    """The five steps for ``n`` users drawn from the data ``counts`` (users per value, ``labels`` naming them) who
    report with ``mechanism`` at ``epsilon`` (``params``: its other parameters). ``trials`` collections for the
    post-processing step (the first one is step 3's); ``ordered``: whether the domain's order means something;
    ``rows``: the table's size (None for a synthetic distribution).

    Parameters
    ----------
    counts : numpy.ndarray
        The data's users per value, shape (d,), d ≥ 2; the simulated population is drawn from it with
        :func:`ldp.data.domain.draw_population`.
    labels : Sequence[str]
        One label per value (length d).
    name : str
        The data's name, shown in step 1's sentence and the settings.
    mechanism : str
        A registered frequency oracle's name.
    epsilon : float
        The privacy budget ε of each report.
    n : int
        Users to simulate, 1 to :data:`MAX_USERS`.
    seed : int, default 0
        The seed; the population and every collection draw from streams keyed by name from it.
    params : Mapping[str, Any] or None, default None
        The mechanism's other parameters (e.g. ``epsilon_1`` of a longitudinal one); None for none.
    estimators : Sequence[str], default STORY_ESTIMATORS
        The estimators step 4 compares with matrix inversion (always included); those that do not apply to the
        mechanism are left out.
    trials : int, default 5
        Collections averaged in step 4, 1 to 50 (drawn from the stream ``rng_for(seed, "story", "post")``, apart
        from step 3's one collection).
    level : float, default 0.95
        Confidence level of step 3's intervals and of step 5's "told from zero".
    ordered : bool, default False
        Whether the domain's order means something (charts then keep the shown values in domain order).
    rows : int or None, default None
        The table's number of rows, for step 1's sentence; None for a synthetic distribution.
    source : str, default ""
        Where the data come from, for the settings ("" uses ``name``).
    title : str, default ""
        The data's title, for the settings ("" uses ``name``).

    Returns
    -------
    Story
        The five steps, the settings, the mechanism, n, step 3's verdict and step 4's warnings.

    Raises
    ------
    InvalidInput
        If there are fewer than two values or not one label per value, n is not a positive integer or exceeds
        :data:`MAX_USERS`, trials is not in 1..50, or the mechanism is not a frequency oracle (its own parameter
        checks raise too).

    References
    ----------
    Wang, Lopuhaä-Zwakenberg, Li, Škorić, Li, "Locally Differentially Private Frequency Estimation with
    Consistency" (NDSS 2020), Eq. (5): the noise floor σ₀ of step 5.
    """
    c = np.asarray(counts)
    if c.ndim != 1 or c.size < 2 or len(labels) != c.size:
        raise InvalidInput(f"the story needs at least two values with one label each, got {c.size} counts and "
                           f"{len(labels)} labels")
    n = check_positive_int(n, "n")
    if n > MAX_USERS:
        raise InvalidInput(f"the story simulates at most {MAX_USERS:,} users, got {n:,}")
    trials = check_positive_int(trials, "trials")
    if trials > 50:
        raise InvalidInput(f"the story averages at most 50 collections, got {trials}")
    user = dict(params or {})
    mech = get_mechanism(mechanism, float(epsilon), int(c.size), **user)
    if type(mech) not in mechanisms_of("frequency"):
        raise InvalidInput(f"the story is told with a frequency oracle; {mech.display_name} is a {mech.kind} mechanism")
    population = draw_population(c, n, int(seed))
    truth = population / population.sum()
    one = simulate(mech, population, estimators=["mi"], seed=rng_for(int(seed), "story", "collection"),
                   metrics=("mse",))
    data = _data_step(name, labels, truth, rows, n, ordered)
    attack = _attack_step(mech, truth, labels, user)
    estimate, plain = _estimate_step(mech, labels, truth, one.estimates["mi"][0], n, level, ordered)
    post, warnings = _postprocessing_step(mech, population, estimators, trials, int(seed))
    needs = _needs_step(plain, mech)
    settings = {"data": name, "data title": title or name, "data source": source or name,
                "mechanism": mech.display_name, "ε": float(epsilon),
                **{k: v for k, v in mech.params.items() if v is not None}, "users n": n, "seed": int(seed),
                "collections for step 4": trials, "confidence level": level}
    return Story(steps=(data, attack, estimate, post, needs), settings=settings, mechanism=mech, n=n, verdict=plain,
                 warnings=tuple(warnings))
