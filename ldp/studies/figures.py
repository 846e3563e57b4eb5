"""The papers' reproducible figures: one registry entry per figure or table the "Reproduce the papers" page draws.

Each :class:`ReproducibleFigure` names the study of :mod:`ldp.studies.paper_figures` that computes its tidy table, the
part of that table it draws, what the paper says (:data:`ldp.studies.paper_figures.PRINTED`), a one-line finding
computed from our rows (:meth:`ReproducibleFigure.finding`), and two sets of settings: ``lecture`` (what the page
uses by default, seconds) and ``paper`` (the paper's own d, n, ε grid and trial count, with the section they come
from in ``paper_source``). The page and ``ldp reproduce`` both run a figure through :meth:`ReproducibleFigure.run`,
so they call the same study with the same settings.

The figure itself is built by :mod:`ldp.viz.paper_figures` (a layer above this one), named here by ``figure`` (a
function of that module) and ``figure_args``: :func:`ldp.viz.paper_figures.draw` resolves it.

Executors: a study whose grid cells seed themselves from what they are (``rng_for(seed, …, ε, …)``, never from
their position) is split along ``split`` into one task per value and run by :func:`ldp.core.executors.run_ordered`
— the same table on every executor. ``numerical_methods`` takes the executor itself (its sweep driver). The others
(``noise_spectrum``: its trials share one stream; ``postprocessor_tasks`` and ``wiener_curves``: one collection
serves several parts) run in this process whatever the executor (:attr:`ReproducibleFigure.executor_note`).
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ldp.core.errors import ConvergenceWarning, InvalidInput
from ldp.core.executors import EXECUTORS, run_ordered
from ldp.core.registry import Registry
from ldp.mechanisms import mechanisms_of
from ldp.studies import paper_figures

__all__ = ["FIGURES", "PAPERS", "SCALES", "SECONDS_PER_UNIT", "ReproducibleFigure", "Setting"]

PAPERS = ("ibu", "consistency", "convolution", "square-wave")
SCALES = ("lecture", "paper", "tiny")

#: Seconds per work unit. A study's units count its collections × estimators × domain values, times the relative
#: cost of its estimators per domain value (IBU's 10⁴ plain iterations, EMS, range queries … — the factor in each
#: ``_u_*`` function, measured once at the lecture scale on the development machine: 2 shared cores, under the load
#: of other jobs; checked against paper-scale runs of 11 figures: within about 2.5× either way).
SECONDS_PER_UNIT = 2.0e-6

_RUN_KEYS = ("progress", "executor", "workers", "address")


def _pure(collection: str) -> tuple[str, ...]:
    return tuple(c.name for c in mechanisms_of("frequency") if c.collection == collection and c.pure)


Table = pd.DataFrame


class Setting(str):
    """A figure builder's argument read from the run's settings (e.g. the one ε of a b sweep), not a constant."""


@dataclass(frozen=True, eq=False)
class ReproducibleFigure:
    """One figure (or table) of a seed paper, reproducible at the lecture's or the paper's scale."""

    name: str                                   #: ``{paper}-{fig|table}-{n}``
    title: str
    printed: str                                #: key of :data:`ldp.studies.paper_figures.PRINTED`
    study: str                                  #: function of :mod:`ldp.studies.paper_figures`
    lecture: Mapping[str, Any]
    paper: Mapping[str, Any]
    paper_source: str                           #: where in the paper the paper settings come from
    figure: str                                 #: builder in :mod:`ldp.viz.paper_figures`
    ours: Callable[[Table], str]                #: the one-line finding from our rows
    units: Callable[[Mapping[str, Any]], float]  #: work units of a run (:data:`SECONDS_PER_UNIT` each)
    figure_args: tuple[Any, ...] = ()
    part: str | None = None                     #: key of a study that returns several tables
    rows: Callable[[Table, Mapping[str, Any]], Table] | None = None  #: the rows this figure draws
    split: str | None = None                    #: grid argument whose values are independent cells
    native_executor: bool = False               #: the study takes ``executor`` itself
    epsilon_key: str | None = "epsilons"        #: the setting ``--epsilons`` replaces ("epsilon": one value)
    tiny: Mapping[str, Any] = field(default_factory=dict)  #: overrides of ``lecture`` for the tests

    @property
    def paper_name(self) -> str:
        return self.name.split("-fig-")[0].split("-table-")[0]

    @property
    def paper_says(self) -> str:
        return paper_figures.PRINTED[self.printed]

    @property
    def function(self) -> Callable[..., Any]:
        return getattr(paper_figures, self.study)

    @property
    def executor_note(self) -> str:
        if self.native_executor:
            return "its sweep runs on the executor"
        if self.split:
            return f"one task per value of {self.split} on the executor"
        return "runs in this process whatever the executor (its cells share collections or a random stream)"

    def parameters(self) -> dict[str, Any]:
        """The study's keyword settings and their defaults (positional ones have none)."""
        return {k: (None if p.default is inspect.Parameter.empty else p.default)
                for k, p in inspect.signature(self.function).parameters.items() if k not in _RUN_KEYS}

    def settings(self, scale: str = "lecture", *, trials: int | None = None, epsilons: Sequence[float] | None = None,
                 seed: int | None = None, **overrides: Any) -> dict[str, Any]:
        """Every setting of the study at ``scale`` ("lecture", "paper" or "tiny" for tests), with ``trials``,
        ``epsilons`` (the figure's ε axis, or its one ε), ``seed`` and any other study argument replaced. Lists
        become tuples (hashable: the page caches by them)."""
        if scale not in SCALES:
            raise InvalidInput(f"unknown scale {scale!r}; choose one of: {', '.join(SCALES)}")
        known = self.parameters()
        base = {"lecture": self.lecture, "paper": self.paper, "tiny": {**self.lecture, **self.tiny}}[scale]
        out = {**known, **base}
        for key, value in overrides.items():
            if key not in known:
                raise InvalidInput(f"{self.name}: the study {self.study} has no setting {key!r}")
            out[key] = value
        if trials is not None:
            if "trials" not in known:
                raise InvalidInput(f"{self.name} runs one collection per cell: it has no trials")
            out["trials"] = int(trials)
        if seed is not None:
            out["seed"] = int(seed)
        if epsilons is not None:
            out.update(self._epsilons(epsilons))
        return {k: tuple(v) if isinstance(v, list) else v for k, v in out.items()}

    def _epsilons(self, epsilons: Sequence[float]) -> dict[str, Any]:
        values = tuple(float(e) for e in epsilons)
        if not values or any(not np.isfinite(e) or e <= 0 for e in values):
            raise InvalidInput(f"ε values must be positive numbers, got {list(epsilons)}")
        if self.epsilon_key is None:
            raise InvalidInput(f"{self.name} has no ε axis to replace")
        if self.epsilon_key == "epsilon":
            if len(values) != 1:
                raise InvalidInput(f"{self.name} runs at one ε; give one value, got {len(values)}")
            return {"epsilon": values[0]}
        return {self.epsilon_key: values}

    def compute(self, settings: Mapping[str, Any], *, executor: str = "serial", workers: int | None = None,
                address: str | None = None, progress: Callable[[float], None] | None = None) -> Any:
        """The study's whole result (a table, or a dict of tables) for ``settings`` (see the module docstring for
        the executors)."""
        if executor not in EXECUTORS:
            raise InvalidInput(f"unknown executor {executor!r}; choose one of: {', '.join(EXECUTORS)}")
        kwargs = dict(settings)
        if self.native_executor:
            kwargs.update(executor=executor, workers=workers, address=address)
        elif self.split and executor != "serial" and len(kwargs[self.split]) > 1:
            tasks = [(self.name, {**kwargs, self.split: (value,)}) for value in kwargs[self.split]]
            parts = list(run_ordered(_compute_cell, tasks, executor=executor, workers=workers, address=address,
                                     progress=None if progress is None else lambda done, total: progress(done / total)))
            return _concat(parts)
        with warnings.catch_warnings():
            # IBU paper Table 2: the plain Eq. (3) stops at 10⁴ iterations on purpose, before converging.
            warnings.simplefilter("ignore", ConvergenceWarning)
            return self.function(**kwargs, progress=progress)

    def select(self, result: Any, settings: Mapping[str, Any]) -> Table:
        """This figure's rows of a study result."""
        table = result[self.part] if self.part is not None else result
        return (self.rows(table, settings) if self.rows is not None else table).reset_index(drop=True)

    def run(self, settings: Mapping[str, Any], **run: Any) -> Table:
        """This figure's tidy table for ``settings`` (``run``: executor, workers, address, progress)."""
        return self.select(self.compute(settings, **run), settings)

    def finding(self, table: Table) -> str:
        """What our rows say, in one line, in the terms of the paper's statement."""
        return self.ours(table)

    def estimated_seconds(self, settings: Mapping[str, Any]) -> float:
        """Seconds one core needs for ``settings`` (work units × :data:`SECONDS_PER_UNIT`)."""
        return float(self.units(settings)) * SECONDS_PER_UNIT

    def describe(self) -> dict[str, Any]:
        """JSON-able metadata (``ldp reproduce --list``)."""
        return {"id": self.name, "title": self.title, "paper": self.paper_name, "paper_says": self.paper_says,
                "study": self.study, "paper_source": self.paper_source, "executor": self.executor_note}


def _compute_cell(task: tuple[str, dict[str, Any]]) -> Any:
    """One cell of a split study, in any process (module level: picklable)."""
    name, settings = task
    return FIGURES.get(name).compute(settings)


def _concat(parts: list[Any]) -> Any:
    if isinstance(parts[0], dict):
        return {key: pd.concat([p[key] for p in parts], ignore_index=True) for key in parts[0]}
    return pd.concat(parts, ignore_index=True)


FIGURES: Registry[ReproducibleFigure] = Registry("reproducible figure")


# --------------------------------------------------------------------------- findings (one line from our rows)
def _ranking(values: pd.Series, unit: str = "", spec: str = ".3g", best_first_low: bool = True) -> str:
    ordered = values.sort_values(ascending=best_first_low)
    return ", ".join(f"{name} {value:{spec}}{unit}" for name, value in ordered.items())


def _best_counts(table: Table, by: str, group: str, value: str) -> str:
    best = table.loc[table.groupby(by)[value].idxmin(), group].value_counts()
    return ", ".join(f"{name} ({count} of {table[by].nunique()})" for name, count in best.items())


def _ibu_table(t: Table) -> str:
    mean = t.groupby("mechanism", sort=False)[["Γ IBU limit (%)", "Γ plain Eq. (3), 10⁴ iterations (%)"]].mean()
    low, high = t["epsilon"].min(), t["epsilon"].max()
    plain = t.groupby("epsilon")["Γ plain Eq. (3), 10⁴ iterations (%)"].mean()
    return ("mean Γ over ε, MLE / plain Eq. (3): "
            + ", ".join(f"{m} {r.iloc[0]:.1f} % / {r.iloc[1]:.1f} %" for m, r in mean.iterrows())
            + f"; plain Γ averages {plain[low]:.1f} % at ε = {low:g} and {plain[high]:.1f} % at ε = {high:g}")


def _ibu_mechanisms(t: Table) -> str:
    return "Γ per mechanism (mean over the grid): " + _ranking(
        t.groupby("mechanism")["Γ (%)"].mean(), " %", ".1f", best_first_low=False)


def _ibu_trend(t: Table) -> str:
    by_eps = t.groupby("epsilon")["Γ (%)"].mean()
    return ("Γ by distribution: " + _ranking(t.groupby("distribution")["Γ (%)"].mean(), " %", ".1f", False)
            + "; against ε: " + ", ".join(f"{e:g}: {g:.1f} %" for e, g in by_eps.items()))


def _numerical(t: Table) -> str:
    return "lowest error per ε: " + _best_counts(t, "epsilon", "mechanism", "mean")


def _shapes(t: Table) -> str:
    wide = t.pivot(index="shape", columns="epsilon", values="Wasserstein")
    ranks = wide.rank().loc["square"]
    return "the square wave ranks " + ", ".join(f"{int(r)} of {len(wide)} at ε = {e:g}" for e, r in ranks.items())


def _b(t: Table) -> str:
    best = t.loc[t["Wasserstein"].idxmin()]
    at_mi = t.loc[(t["b / b_MI"] - 1.0).abs().idxmin(), "Wasserstein"]
    return (f"smallest Wasserstein {best['Wasserstein']:.3g} at b = {best['b / b_MI']:g} × b_MI; "
            f"{at_mi:.3g} at b_MI ({at_mi / best['Wasserstein']:.2f}× the best)")


def _granularity(t: Table) -> str:
    spread = t.groupby("epsilon")["Wasserstein"].agg(lambda w: w.max() / w.min())
    return "Wasserstein max/min over d: " + ", ".join(f"{s:.2f}× at ε = {e:g}" for e, s in spread.items())


def _postprocessors(t: Table) -> str:
    wide = t.pivot(index="estimator", columns="epsilon", values="MSE")
    gap = float((wide.loc["norm-sub"] / wide.loc["mle-apx"] - 1).abs().max()) if {"norm-sub", "mle-apx"} <= set(
        wide.index) else float("nan")
    return (f"mean MSE over ε: {_ranking(wide.mean(axis=1))}; Norm-Sub and MLE-Apx differ by at most {gap:.1%}")


def _n_prime(t: Table) -> str:
    last = t[t["n"] == t["n"].max()].set_index("estimator")["n′"] / t["n"].max()
    return f"n′/n at n = {t['n'].max():,}: " + _ranking(last, "", ".2f", best_first_low=False)


def _by_estimator(t: Table, axis: str) -> str:
    ends = sorted({t[axis].min(), t[axis].max()})
    return ", ".join(f"at {axis} = {v:g}: best " + ", ".join(t[t[axis] == v].nsmallest(2, "MSE")["estimator"])
                     for v in ends) + "; mean MSE: " + _ranking(t.groupby("estimator")["MSE"].mean())


def _fixed_sets(t: Table) -> str:
    return "lowest MSE per ε: " + _best_counts(t, "epsilon", "estimator", "MSE")


def _synthetic(t: Table) -> str:
    hits = sum(bool(p.loc[p["recommended"], "actual"].min() <= 1.25 * p["actual"].min())
               for _, p in t.groupby("epsilon"))
    return (f"the method chosen from the reports is within 25 % of the actual best at {hits} of "
            f"{t['epsilon'].nunique()} ε")


def _spectrum(t: Table) -> str:
    ratio = float(t["empirical"].iloc[1:].mean() / t["Theorem 3"].iloc[1:].mean())
    return f"the empirical level is {ratio:.3f}× Theorem 3's; P₀ = {t['empirical'].iloc[0]:.2g}"


def _iiw(t: Table) -> str:
    out = []
    for (eps, method), part in t.groupby(["epsilon", "method"]):
        part = part.sort_values("filterings")
        first, last = part["MSE"].iloc[0], part["MSE"].iloc[-1]
        out.append(f"{method} at ε = {eps:g}: MSE {last / part['MI MSE'].iloc[0]:.2f}× MI's after "
                   f"{part['filterings'].iloc[-1]} filterings (changed {abs(last / first - 1):.0%})")
    return "; ".join(out)


def _wiener_ratio(t: Table, axis: str) -> str:
    out = []
    for value, part in t.groupby(axis):
        mse = part.set_index("method")["MSE"]
        out.append(f"{axis} = {value:g}: IIW/MI {mse.get('GRR-IIW', np.nan) / mse.get('GRR-MI', np.nan):.2f} (GRR), "
                   f"{mse.get('OUE-IIW', np.nan) / mse.get('OUE-MI', np.nan):.2f} (OUE)")
    return "; ".join(out)


def _top_k_wiener(t: Table) -> str:
    return "mean top-k MSE: " + _ranking(t.groupby("method")["MSE"].mean())


def _positives(t: Table) -> str:
    middle = sorted(t["threshold"].unique())[t["threshold"].nunique() // 2]
    at = t[t["threshold"] == middle].set_index("method")
    return f"at a threshold of {middle:,.0f} users: " + ", ".join(
        f"{m} {r['true positives']:.0f} true / {r['false positives']:.0f} false" for m, r in at.iterrows())


# --------------------------------------------------------------------------- work units (collections × estimators × d)
def _u_ibu_table(s: Mapping[str, Any]) -> float:
    return len(s["mechanisms"]) * len(s["epsilons"]) * s["trials"] * 3 * s["d"] * 180  # plain Eq. (3): 10⁴ iterations


#: The plain Eq. (3) at 10,000 iterations against the converged MLE alone on the IBU grid (383 s against 3 s for
#: the page's one-time grid, measured on the 2 shared cores at load ≈ 10).
PLAIN_IBU_FACTOR = 130.0


def _u_ibu_grid(s: Mapping[str, Any]) -> float:
    return (len(s["distributions"]) * sum(s["domain_sizes"]) * len(s["users"]) * len(s["mechanisms"])
            * len(s["epsilons"]) * s["trials"] * 2 * 2.3 * (1.0 + PLAIN_IBU_FACTOR * bool(s.get("plain"))))


def _u_iiw(s: Mapping[str, Any]) -> float:
    return len(s["epsilons"]) * s["d"] * 2 * sum(s["checkpoints"]) * 0.02  # one FFT pair per filtering


def _u_tasks(s: Mapping[str, Any]) -> float:
    return (len(s["users"]) + 1) * s["trials"] * (len(s["estimators"]) + 1) * s["d"] * 1.0


def _u_wiener(s: Mapping[str, Any]) -> float:
    sizes = len(s["epsilons"]) * s["d"] + sum(s["domain_sizes"]) + s["d"]
    return sizes * s["trials"] * len(s["methods"]) * 0.5


def _u_fixed(s: Mapping[str, Any]) -> float:
    return len(s["epsilons"]) * (s["trials"] + s["advisor_trials"]) * len(s["estimators"]) * s["d"] * 6.6


def _select(column: str, keep: Callable[[pd.Series, Mapping[str, Any]], pd.Series]
            ) -> Callable[[Table, Mapping[str, Any]], Table]:
    return lambda t, s: t[keep(t[column], s)]


ONE_TIME, LONGITUDINAL = _pure("one-time"), _pure("longitudinal")
IBU_STABILITY = "§4.1 'Stability': 20 runs"
SW_SETUP = ("§6.1: Beta(5, 2), 10⁵ samples, 256 buckets, each experiment repeated 100 times; the text lists no ε "
            "values, so the ε axis is the page's")
CONSISTENCY_SETUP = ("§V.A: OLH, Zipf(s = 1.5) over 1,024 values, 10⁶ reports, 30 runs ('Plotting Convention')")
#: The consistency paper's Figs. 5–7 and 10 at once (one run of their study serves the four).
CONSISTENCY_TASKS = {"n": 1_000_000, "trials": 30, "users": tuple(200_000 * i for i in range(1, 11)),
                     "rhos": (0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.3, 0.5, 0.7, 0.9), "ks": (2, 4, 8, 16, 32)}
TAXI = 2_834_264  # convolution paper §V.A: records of its Taxi dataset (the smooth case)
CONVOLUTION_SETUP = f"§V.A: Taxi ({TAXI:,} records, smooth), d = 1000, each experiment repeated 10 times"

IBU_USERS, IBU_SIZES = (20_000, 100_000), (2, 50, 100, 200)  # the grid of IBU Tables 2–3
#: Square-wave Figs. 2–4's whole method set (§6.1): SW + EMS and + EM, HH (plain and ADMM; the hierarchy dividing
#: the population and the budget, §4.2), HaarHRR, CFO-binning at 16/32/64 bins; PM and SR for the mean/variance.
SW_METHOD_SET = {"methods": paper_figures.PAPER_NUMERICAL_METHODS, "cfo_bins": paper_figures.PAPER_CFO_BINS,
                 "mean_mechanisms": paper_figures.PAPER_MEAN_MECHANISMS, "hh_splits": ("population", "budget")}


def _sw_methods(s: dict[str, Any]) -> int:
    """The number of method runs of a numerical_methods setting (the cost model's multiplier)."""
    return len(s["methods"]) + len(s.get("cfo_bins") or ()) + len(s.get("hh_splits") or ())
_GRID_TINY = {"users": (2_000,), "domain_sizes": (4,), "distributions": ("zipf",), "trials": 1, "epsilons": (2.0,)}

for _entry in (
    ReproducibleFigure(
        "ibu-table-2", "IBU's gain over the baseline per mechanism and ε: converged MLE and plain Eq. (3)",
        "IBU Table 2", "ibu_gain_table",
        lecture={"mechanisms": ("grr", "oue", "olh"), "epsilons": (0.5, 1.0, 2.0, 4.0), "d": 100, "n": 100_000,
                 "trials": 5},
        paper={"mechanisms": ONE_TIME, "epsilons": (1.0, 2.0, 4.0), "d": 100, "n": 20_000, "trials": 20},
        paper_source=(f"Table 2 (§4.2): ε ∈ {{1, 2, 4}}, every one-time pure mechanism; {IBU_STABILITY}. The study "
                      "takes one n and k where Table 2 averages k ∈ {2, 50, 100, 200} and n ∈ {20,000, 100,000}: "
                      "Fig. 1's n = 20,000, k = 100"),
        figure="gain_figure", ours=_ibu_table, units=_u_ibu_table, split="mechanisms",
        tiny={"mechanisms": ("grr",), "epsilons": (1.0,), "d": 8, "n": 2_000, "trials": 1}),
    *(ReproducibleFigure(
        f"ibu-fig-{number}", title, "IBU Figs. 1–4", "ibu_gain_grid",
        lecture={"mechanisms": mechs, "epsilons": eps, "users": IBU_USERS, "domain_sizes": IBU_SIZES, "trials": 3,
                 "plain": False},
        paper={"mechanisms": mechs, "epsilons": eps, "trials": 20, "users": IBU_USERS, "domain_sizes": IBU_SIZES,
               "plain": True,
               **({"users": (20_000,), "domain_sizes": (100,), "distributions": ("zipf",)} if bars else {})},
        paper_source=f"{source}; {IBU_STABILITY}", figure="gain_by_mechanism_figure" if bars else "gain_trend_figure",
        figure_args=(collection,) if bars else ("ε", collection), ours=_ibu_mechanisms if bars else _ibu_trend,
        units=_u_ibu_grid, split="distributions", tiny={**_GRID_TINY, "mechanisms": mechs[:1]})
      for number, collection, mechs, eps, bars, title, source in (
          (1, "one-time", ONE_TIME, (1.0, 2.0, 4.0), True, "IBU's gain per one-time mechanism",
           "Fig. 1 caption: n = 20,000, k = 100, ε ∈ {1, 2, 4}, its real data (Zipf here)"),
          (2, "longitudinal", LONGITUDINAL, (2.0, 4.0, 8.0), True, "IBU's gain per longitudinal mechanism (ε1 = ε∞/2)",
           "Fig. 2 caption: n = 20,000, k = 100, ε∞ ∈ {2, 4, 8}, ε1 = ε∞/2, its real data (Zipf here)"),
          (3, "one-time", ONE_TIME, (1.0, 2.0, 4.0), False,
           "IBU's gain by distribution against ε, n and k (one-time; its averages are Table 2)",
           "Fig. 3 and Table 2 captions: k ∈ {2, 50, 100, 200}, n ∈ {20,000, 100,000}, ε ∈ {1, 2, 4}"),
          (4, "longitudinal", LONGITUDINAL, (2.0, 4.0, 8.0), False,
           "IBU's gain by distribution against ε∞, n and k (longitudinal; its averages are Table 3)",
           "Fig. 4 and Table 3 captions: k ∈ {2, 50, 100, 200}, n ∈ {20,000, 100,000}, ε∞ ∈ {2, 4, 8}, "
           "ε1 = ε∞/2"))),
    *(ReproducibleFigure(
        f"square-wave-fig-{number}", f"Numerical methods against ε: {label}", "square-wave Figs. 2–5",
        "numerical_methods",
        lecture={"epsilons": (0.5, 1.0, 2.0, 4.0), "d": 64, "n": 100_000, "trials": 5, "metric": metric,
                 **SW_METHOD_SET},
        paper={"epsilons": (0.5, 1.0, 2.0, 4.0), "d": 256, "n": 100_000, "trials": 100, "metric": metric,
               **SW_METHOD_SET},
        paper_source=f"Figure {number} ({label}); {SW_SETUP}", figure="methods_figure",
        figure_args=(label, f"Fig. {number}"), ours=_numerical, native_executor=True,
        units=lambda s: len(s["epsilons"]) * s["trials"] * _sw_methods(s) * s["d"] * 130,
        tiny={"epsilons": (1.0,), "d": 8, "n": 2_000, "trials": 2})
      for number, metric, label in ((2, "wasserstein", "Wasserstein distance"),
                                    (3, "range_mae", "range-query MAE (α = 0.1)"),
                                    (4, "mean_error", "mean estimation error"))),
    ReproducibleFigure(
        "square-wave-fig-5", "Wave shapes with EMS", "square-wave §6.4", "wave_shapes",
        lecture={"epsilons": (0.5, 1.0, 2.0, 4.0), "d": 64, "n": 100_000, "trials": 5},
        paper={"epsilons": (0.5, 1.0, 2.0, 4.0), "d": 256, "n": 100_000, "trials": 100},
        paper_source=f"Figure 5 (§6.4: square, trapezoid and triangle waves in GW); {SW_SETUP}",
        figure="shapes_figure", ours=_shapes, split="shapes",
        units=lambda s: len(s["shapes"]) * len(s["epsilons"]) * s["trials"] * s["d"] * 140,
        tiny={"epsilons": (1.0,), "d": 8, "n": 2_000, "trials": 1}),
    ReproducibleFigure(
        "square-wave-fig-6", "SW + EMS against the wave's half-width b", "square-wave Fig. 6", "b_sweep",
        lecture={"epsilon": 1.0, "d": 64, "n": 100_000, "trials": 5},
        paper={"epsilon": 1.0, "d": 256, "n": 100_000, "trials": 100},
        paper_source=(f"Figure 6 (b from 0.01 to 0.38 at fixed ε: here multiples of b_MI at ε = 1); {SW_SETUP}"),
        figure="b_figure", figure_args=(Setting("epsilon"),), ours=_b, split="factors", epsilon_key="epsilon",
        units=lambda s: len(s["factors"]) * s["trials"] * s["d"] * 400,
        tiny={"d": 8, "n": 2_000, "trials": 1, "factors": (0.5, 1.0)}),
    ReproducibleFigure(
        "square-wave-fig-7", "SW + EMS against the number of buckets d", "square-wave Fig. 7", "bucket_granularity",
        lecture={"epsilons": (0.5, 1.0, 2.0, 4.0), "domain_sizes": paper_figures.PAPER_GRANULARITY,
                 "n": 100_000, "trials": 5},
        paper={"epsilons": (0.5, 1.0, 2.0, 4.0), "domain_sizes": (256, 512, 1024, 2048), "n": 100_000,
               "trials": 100},
        paper_source=f"§6.4 'Bucketization granularity': 256, 512, 1024 and 2048 buckets; {SW_SETUP}",
        figure="granularity_figure", ours=_granularity, split="domain_sizes",
        units=lambda s: len(s["epsilons"]) * s["trials"] * sum(s["domain_sizes"]) * 110,
        tiny={"epsilons": (1.0,), "domain_sizes": (8, 16), "n": 2_000, "trials": 1}),
    ReproducibleFigure(
        "consistency-fig-4", "Post-processors: full-domain MSE against ε", "consistency Fig. 4",
        "postprocessor_curves",
        lecture={"epsilons": (0.5, 1.0, 2.0, 4.0), "d": 100, "n": 100_000, "trials": 5, "zipf_s": 1.1},
        paper={"epsilons": (0.2, 0.5, 1.0, 2.0, 3.0, 4.0), "d": 1024, "n": 1_000_000, "trials": 30, "zipf_s": 1.5},
        paper_source=f"Fig. 4 (ε from 0.2 to 4; six points here); {CONSISTENCY_SETUP}",
        figure="postprocessor_figure", ours=_postprocessors, split="epsilons",
        units=lambda s: len(s["epsilons"]) * s["trials"] * len(s["estimators"]) * s["d"] * 1.5,
        tiny={"epsilons": (1.0,), "d": 8, "n": 2_000, "trials": 1}),
    ReproducibleFigure(
        "consistency-fig-5", "Users saved by post-processing: n′ against n", "consistency Fig. 5",
        "postprocessor_tasks", part="n_prime",
        lecture={"n": 100_000, "trials": 5},
        paper=CONSISTENCY_TASKS,
        paper_source=f"Fig. 5: ε = 1, n from 0.2·10⁶ to 2·10⁶; {CONSISTENCY_SETUP}",
        figure="n_prime_figure", ours=_n_prime, epsilon_key="epsilon", units=_u_tasks,
        tiny={"d": 16, "n": 2_000, "trials": 1, "users": (2_000, 4_000), "rhos": (0.01, 0.5), "ks": (2, 4),
              "queries": 5}),
    *(ReproducibleFigure(
        f"consistency-fig-{number}", f"Set queries: MSE against the set size ρ ({span})", "consistency Figs. 6–7, 10",
        "postprocessor_tasks", part="set", rows=rows, lecture={"n": 100_000, "trials": 5},
        paper=CONSISTENCY_TASKS,
        paper_source=f"Fig. {number}: ε = 1, ρ from {span}; {CONSISTENCY_SETUP}",
        figure="set_query_figure", ours=lambda t: _by_estimator(t, "ρ"), epsilon_key="epsilon", units=_u_tasks,
        tiny={"d": 16, "n": 2_000, "trials": 1, "users": (2_000,), "rhos": (0.01, 0.5), "ks": (2,), "queries": 5})
      for number, span, rows in ((6, "10 % to 90 %", _select("ρ", lambda r, s: r >= 0.1)),
                                 (7, "1 % to 10 %", _select("ρ", lambda r, s: r <= 0.1)))),
    ReproducibleFigure(
        "consistency-fig-10", "Top-k values: MSE against k", "consistency Figs. 6–7, 10", "postprocessor_tasks",
        part="top_k", lecture={"n": 100_000, "trials": 5},
        paper=CONSISTENCY_TASKS,
        paper_source=f"Fig. 10: ε = 1, k from 2 to 32; {CONSISTENCY_SETUP}",
        figure="top_k_figure", ours=lambda t: _by_estimator(t, "k"), epsilon_key="epsilon", units=_u_tasks,
        tiny={"d": 16, "n": 2_000, "trials": 1, "users": (2_000,), "rhos": (0.5,), "ks": (2, 4), "queries": 5}),
    ReproducibleFigure(
        "consistency-fig-8", "Fixed set queries (68 categories) against ε", "consistency Fig. 8", "fixed_set_study",
        part="mse", lecture={"trials": 3},
        paper={"trials": 30, "epsilons": (0.2, 0.5, 1.0, 2.0, 3.0, 4.0)},
        paper_source=(f"Fig. 8 and §V.D: 68 categories of 10.4 values (its Emoji data is not public: a stand-in), ε "
                      f"from 0.2 to 4; {CONSISTENCY_SETUP}"),
        figure="fixed_sets_figure", ours=_fixed_sets, split="epsilons", units=_u_fixed,
        tiny={"epsilons": (1.0,), "d": 1024, "n": 2_000, "trials": 1, "advisor_trials": 2,
              "estimators": ("mi", "base-pos")}),
    ReproducibleFigure(
        "consistency-fig-9", "Choosing the method from the reports: expected and actual error", "consistency Fig. 9",
        "fixed_set_study", part="synthetic", lecture={"trials": 3},
        paper={"trials": 30, "epsilons": (0.2, 0.5, 1.0, 2.0, 3.0, 4.0)},
        paper_source=f"Fig. 9 and §V.D (the synthetic dataset fitted to the reports); {CONSISTENCY_SETUP}",
        figure="synthetic_selection_figure", ours=_synthetic, split="epsilons", units=_u_fixed,
        tiny={"epsilons": (1.0,), "d": 1024, "n": 2_000, "trials": 1, "advisor_trials": 2,
              "estimators": ("mi", "base-pos")}),
    ReproducibleFigure(
        "convolution-fig-3", "Noise power spectrum of the support counts against Theorem 3", "convolution Fig. 3",
        "noise_spectrum", lecture={"mechanism": "grr", "epsilon": 2.0, "d": 128, "n": 100_000, "trials": 20},
        paper={"mechanism": "grr", "epsilon": 4.0, "d": 1000, "n": TAXI, "trials": 10},
        paper_source=f"Fig. 3 (§V.B): ε = 4, one experiment and the average of 10; {CONVOLUTION_SETUP}",
        figure="spectrum_figure", ours=_spectrum, epsilon_key="epsilon",
        units=lambda s: s["trials"] * s["d"] * 2, tiny={"d": 16, "n": 2_000, "trials": 2}),
    ReproducibleFigure(
        "convolution-fig-4", "IIW converging at ε = 4", "convolution Figs. 4–5", "iiw_convergence",
        rows=lambda t, s: t[t["method"] == "IIW"],
        lecture={"epsilons": (4.0,)}, paper={"epsilons": (4.0,), "d": 1000, "n": TAXI},
        paper_source=f"Fig. 4: ε = 4, IIW; one collection per ε here; {CONVOLUTION_SETUP}",
        figure="convergence_figure", ours=_iiw, split="epsilons",
        units=_u_iiw,
        tiny={"d": 32, "n": 5_000, "checkpoints": (1, 2)}),
    ReproducibleFigure(
        "convolution-fig-5", "IIW and IIW-G converging, per ε", "convolution Figs. 4–5", "iiw_convergence",
        lecture={"epsilons": (1.0, 2.0, 3.0, 4.0)}, paper={"epsilons": (1.0, 2.0, 3.0, 4.0), "d": 1000, "n": TAXI},
        paper_source=f"Fig. 5: d = 1000, Taxi, ε = 1…4; one collection per ε here; {CONVOLUTION_SETUP}",
        figure="convergence_figure", ours=_iiw, split="epsilons",
        units=_u_iiw,
        tiny={"epsilons": (1.0, 4.0), "d": 32, "n": 5_000, "checkpoints": (1, 2)}),
    *(ReproducibleFigure(
        f"convolution-fig-{number}", title, "convolution Fig. 9" if number == 9 else "convolution Figs. 6–8",
        "wiener_curves", part=part, lecture={"trials": 3},
        paper={"trials": 10, "n": TAXI, "epsilons": (1.0, 2.0, 3.0, 4.0, 5.0), "ks": tuple(range(10, 101, 10))},
        paper_source=f"{source}; {CONVOLUTION_SETUP}", figure=builder, figure_args=args, ours=ours,
        epsilon_key="epsilons" if number == 6 else "epsilon", units=_u_wiener,
        tiny={"epsilons": (4.0,), "domain_sizes": (32,), "ks": (2, 4), "d": 32, "n": 5_000, "trials": 1,
              "thresholds": (50, 100)})
      for number, part, title, builder, args, source, ours in (
          (6, "epsilon", "The Wiener family on smooth data: MSE against ε", "wiener_figure", ("epsilon",),
           "Fig. 6 (§V.C): ε from 1 to 5", lambda t: _wiener_ratio(t, "epsilon")),
          (7, "d", "The Wiener family on smooth data: MSE against d", "wiener_figure", ("d",),
           "Fig. 7: ε = 4, varying d", lambda t: _wiener_ratio(t, "d")),
          (8, "top_k", "The Wiener family: top-k MSE against k", "top_k_figure",
           ("method", "convolution paper Fig. 8"), "Fig. 8: ε = 4, k from 10 to 100", _top_k_wiener),
          (9, "positives", "Values reported above a count threshold", "positives_figure", (),
           "Fig. 9 (§V.E): ε = 4, thresholds 500–2,000", _positives))),
):
    FIGURES.register(_entry)
