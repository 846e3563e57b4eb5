"""The papers' reproducible figures: one registry entry per figure or table the "Reproduce the papers" page draws.

Each :class:`ReproducibleFigure` names the study of :mod:`ldp.studies.paper_figures` that computes its tidy table, the
part of that table it draws, what the paper says (:data:`ldp.studies.paper_figures.PRINTED`), a one-line finding
computed from our rows (:meth:`ReproducibleFigure.finding`), and two sets of settings: ``lecture`` (what the page
uses by default, seconds) and ``paper`` (the paper's own d, n, ε grid and trial count, with the section they come
from in ``paper_source``). The page and ``ldp reproduce`` both run a figure through :meth:`ReproducibleFigure.run`,
so they call the same study with the same settings.

Your own data: a figure whose study can take a population instead of its synthetic one lists the kinds of column it
takes in ``data`` (else ``no_data`` says why not); :meth:`ReproducibleFigure.dataset` builds the column (a bundled
sample's or a table's, a numerical one cut into :meth:`ReproducibleFigure.buckets_for` buckets),
:meth:`ReproducibleFigure.on_data` puts it in the settings (``population``, d and n the data's), and
:meth:`ReproducibleFigure.verdict` says in one line whether the paper's finding holds on the rows.

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
from ldp.core.registry import ESTIMATORS, Registry
from ldp.data import get_column
from ldp.mechanisms import mechanisms_of
from ldp.studies import datasets, paper_figures
from ldp.studies.datasets import Dataset

__all__ = ["DATA_KINDS", "FIGURES", "PAPERS", "SCALES", "SECONDS_PER_UNIT", "ReproducibleFigure", "Setting"]

PAPERS = ("ibu", "consistency", "convolution", "square-wave")
SCALES = ("lecture", "paper", "tiny")

#: Seconds per work unit. A study's units count its collections × estimators × domain values, times the relative
#: cost of its estimators per domain value (IBU's 10⁴ plain iterations, EMS, range queries … — the factor in each
#: ``_u_*`` function, measured once at the lecture scale on the development machine). Calibrated against every
#: figure's paper-scale run by ``ldp reproduce ID --scale paper`` on the 2-core development machine at load 0.4–2.5
#: (26 runs, 0.9 s to 105 s each): the median of measured/estimated; the figures range from 0.4× to 4.5× it (the
#: smallest are mostly the command's ~1 s start). Under other jobs' load (≈ 10) runs took up to 10× longer.
SECONDS_PER_UNIT = 2.0e-7

_RUN_KEYS = ("progress", "executor", "workers", "address")

#: The kinds of column a figure can run on (:attr:`ReproducibleFigure.data`).
DATA_KINDS = ("categorical", "numerical")


def _pure(collection: str) -> tuple[str, ...]:
    return tuple(c.name for c in mechanisms_of("frequency") if c.collection == collection and c.pure)


Table = pd.DataFrame


class Setting(str):
    """A figure builder's argument read from the run's settings (e.g. the one ε of a b sweep), not a constant."""


@dataclass(frozen=True, eq=False)
class ReproducibleFigure:
    """One figure (or table) of a seed paper, reproducible at the lecture's or the paper's scale.

    Attributes
    ----------
    name : str
        The figure's identifier, ``{paper}-{fig|table}-{n}`` with ``paper`` one of :data:`PAPERS`.
    title : str
        Its title, as the page shows it.
    printed : str
        Key of :data:`ldp.studies.paper_figures.PRINTED`, what the paper states (:attr:`paper_says`).
    study : str
        Name of the function of :mod:`ldp.studies.paper_figures` that computes the tidy table.
    lecture : Mapping[str, Any]
        The study's settings at the lecture scale (the page's default, seconds).
    paper : Mapping[str, Any]
        The study's settings at the paper's scale (its d, n, ε grid and trials).
    paper_source : str
        Where in the paper the ``paper`` settings come from (section, figure caption).
    figure : str
        Name of the builder function in :mod:`ldp.viz.paper_figures`.
    ours : Callable[[DataFrame], str]
        The one-line finding computed from our rows (:meth:`finding`).
    units : Callable[[Mapping[str, Any]], float]
        Work units of a run at given settings; :data:`SECONDS_PER_UNIT` seconds each.
    figure_args : tuple, default ()
        Extra arguments of the builder (a :class:`Setting` is read from the run's settings).
    part : str or None, default None
        Key of the table this figure draws when the study returns several; None when it returns one.
    rows : Callable[[DataFrame, Mapping[str, Any]], DataFrame] or None, default None
        Selects the rows this figure draws from the table; None keeps them all.
    split : str or None, default None
        The grid argument whose values are independent cells (one executor task per value); None: not split.
    native_executor : bool, default False
        Whether the study takes ``executor``, ``workers`` and ``address`` itself.
    epsilon_key : str or None, default "epsilons"
        The setting ``--epsilons`` replaces (``"epsilon"``: one value); None when there is no ε axis.
    tiny : Mapping[str, Any], default {}
        Overrides of ``lecture`` for the tests' "tiny" scale.
    data : tuple of str, default ()
        The kinds of column (:data:`DATA_KINDS`) the study takes as its ``population``, the first the one it is
        about; () when it cannot take data.
    no_data : str, default ""
        Why it cannot take data (when ``data`` is empty).
    verdict_of : Callable[[DataFrame, Mapping[str, Any]], str] or None, default None
        Says whether the paper's finding holds on the rows (:meth:`verdict`); None when the finding is not a
        ranking that rows can decide.
    """

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
    #: The kinds of column (:data:`DATA_KINDS`) its study takes as its ``population`` instead of its synthetic one,
    #: the first the one it is about; () when it cannot take data (``no_data`` says why).
    data: tuple[str, ...] = ()
    no_data: str = ""
    #: One line: does the paper's finding hold on these rows ("holds: …" / "does not hold: …")? (table, settings).
    verdict_of: Callable[[Table, Mapping[str, Any]], str] | None = None

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

    def verdict(self, table: Table, settings: Mapping[str, Any]) -> str:
        """One line from the rows against the paper's stated finding (:attr:`paper_says`): "holds: …" or "does not
        hold: …", with the numbers that decide it."""
        if self.verdict_of is None:
            raise InvalidInput(f"{self.name} has no verdict: its finding ({self.paper_says}) is not a ranking the "
                               "rows can check")
        return self.verdict_of(table, settings)

    # ----------------------------------------------------------------------- the user's own data
    @property
    def takes_data(self) -> bool:
        return bool(self.data)

    def buckets_for(self, column: str, kind: str, settings: Mapping[str, Any], buckets: int | None = None
                    ) -> int | None:
        """How a ``kind`` column named ``column`` becomes this study's population: None — its values as they are (a
        categorical column); else the number of equal-width buckets to cut a numerical column into (``buckets``, by
        default the study's d, or its largest number of buckets). One-line :class:`InvalidInput` when the study
        cannot take data or not this kind (a numerical column for a study of categories needs ``buckets``)."""
        if not self.data:
            raise InvalidInput(f"{self.name} cannot run on your data: {self.no_data}")
        if kind not in DATA_KINDS:
            raise InvalidInput(f"a column is categorical or numerical, got {kind!r}")
        if buckets is not None and (int(buckets) != buckets or buckets < 2):
            raise InvalidInput(f"the number of buckets must be an integer ≥ 2, got {buckets}")
        if kind == "categorical":
            if "categorical" not in self.data:
                raise InvalidInput(f"{self.name} takes a numerical column; {column!r} is categorical")
            return None
        if "numerical" not in self.data and buckets is None:
            raise InvalidInput(f"{self.name} takes a categorical column; {column!r} is numerical: give the number "
                               "of buckets to cut it into bins")
        if buckets is not None:
            return int(buckets)
        return int(settings["d"]) if "d" in settings else int(max(settings["domain_sizes"]))

    def dataset(self, settings: Mapping[str, Any], column: str, *, sample: str | None = None,
                table: pd.DataFrame | None = None, source: str = "your file", buckets: int | None = None) -> Dataset:
        """The population this figure runs on from a bundled ``sample``'s column or a column of the user's
        ``table`` (named ``source``): categorical values as they are, a numerical column cut into
        :meth:`buckets_for` equal-width buckets (a sample's over its natural range, a table's over its min..max)."""
        if (sample is None) == (table is None):
            raise InvalidInput("give a bundled sample or a table, not both")
        if sample is not None:
            kind = datasets.sample_column_info(sample, column)["kind"]
            bins = self.buckets_for(column, kind, settings, buckets)
            return datasets.sample_dataset(sample, column, 48 if bins is None else bins)
        kind = datasets.guess_kind(get_column(table, column))
        bins = self.buckets_for(column, kind, settings, buckets)
        return datasets.table_dataset(table, column, "categorical" if bins is None else "numerical",
                                      bins=48 if bins is None else bins, source=source)

    def on_data(self, settings: Mapping[str, Any], data: Dataset) -> dict[str, Any]:
        """``settings`` with the study's population replaced by ``data``'s users per value (``population``), its d
        and n those of the data; a study that varies the number of buckets keeps those that divide the data's (its
        buckets merged), none for a categorical column."""
        if not self.data:
            raise InvalidInput(f"{self.name} cannot run on your data: {self.no_data}")
        counts = paper_figures.own_population(data.counts)
        out = {**settings, "population": tuple(int(c) for c in counts)}
        out.update({k: v for k, v in (("d", int(counts.size)), ("n", int(counts.sum()))) if k in settings})
        if "domain_sizes" in settings:
            kept = tuple(int(k) for k in settings["domain_sizes"] if data.numerical and counts.size % int(k) == 0)
            if not kept and "d" not in settings:
                sizes = ", ".join(str(int(k)) for k in settings["domain_sizes"])
                raise InvalidInput(f"none of {self.name}'s numbers of buckets ({sizes}) divides the column's "
                                   f"{counts.size}: give a multiple of one of them")
            out["domain_sizes"] = kept
        return out

    def estimated_seconds(self, settings: Mapping[str, Any]) -> float:
        """Seconds one core needs for ``settings`` (work units × :data:`SECONDS_PER_UNIT`)."""
        return float(self.units(settings)) * SECONDS_PER_UNIT

    def describe(self) -> dict[str, Any]:
        """JSON-able metadata (``ldp reproduce --list``)."""
        return {"id": self.name, "title": self.title, "paper": self.paper_name, "paper_says": self.paper_says,
                "study": self.study, "paper_source": self.paper_source, "executor": self.executor_note,
                "data": list(self.data) if self.data else None, **({"no_data": self.no_data} if not self.data else {})}


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


# --------------------------------------------------------------------------- verdicts (the paper's finding on our rows)
# Where the paper's words are qualitative, the thresholds are our reading of them, named here once: "almost exactly
# the same" — within SAME; "recommended", "among the best" — within NEAR of the best; "generally performs the best" —
# best at at least half of the ε values.
SAME = 0.10
NEAR = 0.10


def _holds(ok: bool, text: str) -> str:
    return ("holds: " if ok else "does not hold: ") + text


Verdict = Callable[[Table, Mapping[str, Any]], str]


def _needs(column: str, *names: str) -> Callable[[Verdict], Verdict]:
    """A verdict about ``names`` (values of ``column``): "cannot tell" when the rows lack one of them (a run
    without that estimator or method), instead of failing."""
    def wrap(verdict: Verdict) -> Verdict:
        def checked(t: Table, s: Mapping[str, Any]) -> str:
            present = set(t[column]) if column in t else set()
            missing = [n for n in names if n not in present]
            return f"cannot tell: the rows have no {', '.join(missing)}" if missing else verdict(t, s)
        checked.__doc__ = verdict.__doc__
        return checked
    return wrap


def _one(values: Any, axis: str) -> str | None:
    """The verdict when the rows have one value of the ``axis`` the finding is about: nothing to compare."""
    return f"cannot tell: the rows have one {axis} only" if pd.Series(values).nunique() < 2 else None


def _name(estimator: str) -> str:
    return ESTIMATORS.get(estimator).display_name if estimator in ESTIMATORS else estimator


@_needs("estimator", "norm-sub", "mle-apx", "base-cut")
def _v_postprocessors(t: Table, s: Mapping[str, Any]) -> str:
    """Consistency Fig. 4: Norm-Sub ≈ MLE-Apx (within SAME at every ε) and Base-Cut best (mean MSE over ε, within
    NEAR of the lowest)."""
    wide = t.pivot(index="estimator", columns="epsilon", values="MSE")
    mean = wide.mean(axis=1)
    gap = float((wide.loc["norm-sub"] / wide.loc["mle-apx"] - 1).abs().max())
    best, cut = str(mean.idxmin()), float(mean["base-cut"])
    same, near = gap <= SAME, cut <= (1 + NEAR) * float(mean.min())
    pair = f"Norm-Sub and MLE-Apx within {gap:.0%}" if same else f"Norm-Sub and MLE-Apx differ by {gap:.0%}"
    cut_text = ("Base-Cut best" if best == "base-cut" else
                f"Base-Cut within {cut / mean.min() - 1:.0%} of the best ({_name(best)})" if near else
                f"on this data {_name(best)} beats Base-Cut (mean MSE {mean.min():.3g} against {cut:.3g})")
    return _holds(same and near, f"{pair}, {cut_text}")


@_needs("estimator", "power-ns", "norm-mul")
def _v_n_prime(t: Table, s: Mapping[str, Any]) -> str:
    """Consistency Fig. 5: PowerNS saves the most users (n′/n largest) and at least half of them (the paper: about
    90 %); Norm-Mul saves almost none (n′/n ≤ 1 + 2·NEAR)."""
    top = t["n"].max()
    ratio = t[t["n"] == top].set_index("estimator")["n′"] / top
    saved = 1 - 1 / ratio
    ok = ratio.idxmax() == "power-ns" and saved["power-ns"] >= 0.5 and ratio["norm-mul"] <= 1 + 2 * NEAR
    most = "" if ratio.idxmax() == "power-ns" else f"; {_name(str(ratio.idxmax()))} saves more ({saved.max():.0%})"
    return _holds(ok, f"at n = {top:,}, PowerNS saves {saved['power-ns']:.0%} of the users, Norm-Mul "
                      f"{saved['norm-mul']:.0%}{most}")


@_needs("estimator", "mi")
def _v_sets(t: Table, s: Mapping[str, Any]) -> str:
    """Consistency Figs. 6–7: the set-query errors grow with ρ (MI's, whose errors add up over the set)."""
    if _one(t["ρ"], "ρ"):
        return _one(t["ρ"], "ρ")
    mi = t[t["estimator"] == "mi"].set_index("ρ")["MSE"].sort_index()
    low, high = mi.index[0], mi.index[-1]
    best = t[t["ρ"] == low].set_index("estimator")["MSE"].idxmin()
    return _holds(bool(mi.iloc[-1] > mi.iloc[0]), f"MI's set-query MSE goes from {mi.iloc[0]:.3g} at ρ = {low:g} to "
                  f"{mi.iloc[-1]:.3g} at ρ = {high:g}; best at ρ = {low:g}: {_name(str(best))}")


@_needs("estimator", "base-cut", "power-ns")
def _v_top_k(t: Table, s: Mapping[str, Any]) -> str:
    """Consistency Fig. 10: Base-Cut and PowerNS among the best — both in the top three by mean top-k MSE."""
    rank = t.groupby("estimator")["MSE"].mean().rank(method="min")
    ok = rank["base-cut"] <= 3 and rank["power-ns"] <= 3
    return _holds(bool(ok), f"by mean top-k MSE Base-Cut ranks {int(rank['base-cut'])} and PowerNS "
                            f"{int(rank['power-ns'])} of {len(rank)} (best: {_name(str(rank.idxmin()))})")


def _v_ibu_table(t: Table, s: Mapping[str, Any]) -> str:
    """IBU Table 2: the plain Eq. (3)'s Γ grows as ε falls (mean over the mechanisms, smallest ε against largest)."""
    if _one(t["epsilon"], "ε"):
        return _one(t["epsilon"], "ε")
    plain = t.groupby("epsilon")["Γ plain Eq. (3), 10⁴ iterations (%)"].mean()
    low, high = plain.index.min(), plain.index.max()
    return _holds(bool(plain[low] > plain[high]), f"plain Γ averages {plain[low]:.1f} % at ε = {low:g} and "
                                                  f"{plain[high]:.1f} % at ε = {high:g}")


def _v_ibu_grid(t: Table, s: Mapping[str, Any]) -> str:
    """IBU Figs. 1–4: IBU improves on the baseline for every mechanism (mean Γ > 0) and gains most at small ε."""
    per = t.groupby("mechanism")["Γ (%)"].mean()
    by_eps = t.groupby("epsilon")["Γ (%)"].mean()
    ok = bool((per > 0).all() and by_eps.iloc[0] >= by_eps.iloc[-1])
    return _holds(ok, f"mean Γ from {per.min():.1f} % ({per.idxmin()}) to {per.max():.1f} % ({per.idxmax()}); "
                      f"{by_eps.iloc[0]:.1f} % at ε = {by_eps.index[0]:g}, {by_eps.iloc[-1]:.1f} % at ε = "
                      f"{by_eps.index[-1]:g}")


def _method(row: pd.Series) -> str:
    est = row.get("estimator")
    return f"{row['mechanism']}+{est}" if isinstance(est, str) and est not in ("average",) else str(row["mechanism"])


def _v_numerical(t: Table, s: Mapping[str, Any]) -> str:
    """Square-wave Figs. 2–4: SW + EMS generally the best — the lowest error at at least half of the ε values."""
    named = t.assign(method=t.apply(_method, axis=1))
    best = named.loc[named.groupby("epsilon")["mean"].idxmin()].set_index("epsilon")["method"]
    wins = int((best == "sw+ems").sum())
    others = ", ".join(f"{m} at ε = {e:g}" for e, m in best.items() if m != "sw+ems")
    return _holds(2 * wins >= len(best), f"SW + EMS is best at {wins} of {len(best)} ε"
                  + (f" ({others})" if others else ""))


@_needs("shape", "square")
def _v_shapes(t: Table, s: Mapping[str, Any]) -> str:
    """Square-wave §6.4: the square wave the best shape at at least half of the ε values (at b_MI)."""
    at = t[t["b / b_MI"] == 1.0] if "b / b_MI" in t else t
    best = at.loc[at.groupby("epsilon")["Wasserstein"].idxmin()].set_index("epsilon")["shape"]
    wins = int((best == "square").sum())
    others = ", ".join(f"{m} at ε = {e:g}" for e, m in best.items() if m != "square")
    return _holds(2 * wins >= len(best), f"the square wave is best at {wins} of {len(best)} ε"
                  + (f" ({others})" if others else ""))


def _v_b(t: Table, s: Mapping[str, Any]) -> str:
    """Square-wave Fig. 6: b_MI among the best — its Wasserstein distance within NEAR of the smallest."""
    best = t.loc[t["Wasserstein"].idxmin()]
    at_mi = float(t.loc[(t["b / b_MI"] - 1.0).abs().idxmin(), "Wasserstein"])
    excess = at_mi / float(best["Wasserstein"]) - 1
    return _holds(excess <= NEAR, f"at b_MI the distance is {excess:.0%} above the smallest (at "
                                  f"b = {best['b / b_MI']:g} × b_MI)")


def _v_granularity(t: Table, s: Mapping[str, Any]) -> str:
    """Square-wave Fig. 7: results are similar while d̃ stays near √N — at every ε the d nearest √N (in ratio) is
    within 2·NEAR of the smallest distance."""
    wide = t.pivot(index="d", columns="epsilon", values="Wasserstein")
    root = float(np.sqrt(s["n"]))
    near = min(wide.index, key=lambda d: abs(np.log(d / root)))
    excess = float((wide.loc[near] / wide.min() - 1).max())
    return _holds(excess <= 2 * NEAR, f"at d = {near:,} (√N = {root:,.0f}) the distance is at most {excess:.0%} "
                                      f"above the smallest, whose d is " + ", ".join(f"{d:,}" for d in wide.idxmin()))


def _v_wiener(t: Table, axis: str) -> str:
    """Convolution Figs. 6–7: IIW cuts MI's MSE for GRR and OUE — at the largest ε (Fig. 6), at every d (Fig. 7)."""
    missing = [m for m in ("GRR-IIW", "GRR-MI", "OUE-IIW", "OUE-MI") if m not in set(t["method"])]
    if missing:
        return f"cannot tell: the rows have no {', '.join(missing)}"
    values = [t[axis].max()] if axis == "epsilon" else sorted(t[axis].unique())
    ratios = []
    for v in values:
        mse = t[t[axis] == v].set_index("method")["MSE"]
        ratios += [(v, m, float(mse[f"{m}-IIW"] / mse[f"{m}-MI"])) for m in ("GRR", "OUE")]
    worst = max(r for _, _, r in ratios)
    text = ", ".join(f"{r:.2f}× ({m}, {'ε' if axis == 'epsilon' else axis} = {v:g})" for v, m, r in ratios)
    return _holds(worst < 1, f"IIW's MSE is {text} MI's" + (" (the paper: a third to a quarter at ε = 5)"
                                                            if axis == "epsilon" else ""))


@_needs("method", "GRR-IIW", "GRR-MI", "OUE-IIW", "OUE-MI")
def _v_top_k_wiener(t: Table, s: Mapping[str, Any]) -> str:
    """Convolution Fig. 8: the gain holds for the top k — IIW's mean top-k MSE below MI's for GRR and OUE."""
    mse = t.groupby("method")["MSE"].mean()
    ratios = {m: float(mse[f"{m}-IIW"] / mse[f"{m}-MI"]) for m in ("GRR", "OUE")}
    return _holds(max(ratios.values()) < 1, "IIW's mean top-k MSE is " + ", ".join(
        f"{r:.2f}× MI's ({m})" for m, r in ratios.items()))


@_needs("method", "GRR-MI", "GRR-IIW-G")
def _v_positives(t: Table, s: Mapping[str, Any]) -> str:
    """Convolution Fig. 9: at the middle threshold GRR's MI has the most false positives of the GRR methods, and
    GRR-IIW-G the most true minus false ones."""
    middle = sorted(t["threshold"].unique())[t["threshold"].nunique() // 2]
    at = t[(t["threshold"] == middle) & t["method"].str.startswith("GRR")].set_index("method")
    net = at["true positives"] - at["false positives"]
    ok = at["false positives"].idxmax() == "GRR-MI" and net.idxmax() == "GRR-IIW-G"
    return _holds(bool(ok), f"at a threshold of {middle:,.0f}: most false positives {at['false positives'].idxmax()} "
                            f"({at['false positives'].max():.0f}), most true minus false {net.idxmax()}")


def _v_spectrum(t: Table, s: Mapping[str, Any]) -> str:
    """Convolution Fig. 3: flat at Theorem 3's level — the empirical mean level within SAME of it."""
    ratio = float(t["empirical"].iloc[1:].mean() / t["Theorem 3"].iloc[1:].mean())
    return _holds(abs(ratio - 1) <= SAME, f"the empirical level is {ratio:.3f}× Theorem 3's")


def _v_iiw(t: Table, s: Mapping[str, Any]) -> str:
    """Convolution Figs. 4–5: IIW converges — at every ε its MSE at the last checkpoint within SAME of that at the
    first checkpoint of 30 or more filterings (or the last two checkpoints when none reaches 30)."""
    changes = []
    for eps, part in t[t["method"] == "IIW"].groupby("epsilon"):
        part = part.sort_values("filterings")
        late = part[part["filterings"] >= 30]
        ref = late["MSE"].iloc[0] if len(late) > 1 else part["MSE"].iloc[-2]
        changes.append((eps, abs(part["MSE"].iloc[-1] / ref - 1)))
    worst = max(c for _, c in changes)
    return _holds(worst <= SAME, "IIW's MSE changes after the 30th filtering by at most "
                                 + ", ".join(f"{c:.0%} (ε = {e:g})" for e, c in changes))


def _v_synthetic(t: Table, s: Mapping[str, Any]) -> str:
    """Consistency Fig. 9: the method chosen from the reports within 25 % of the actual best at every ε."""
    hits = sum(bool(p.loc[p["recommended"], "actual"].min() <= 1.25 * p["actual"].min())
               for _, p in t.groupby("epsilon"))
    return _holds(hits == t["epsilon"].nunique(), f"the method chosen from the reports is within 25 % of the "
                                                  f"actual best at {hits} of {t['epsilon'].nunique()} ε")


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
    return sizes * s["trials"] * len(s["methods"] or paper_figures.WIENER_METHODS) * 0.5


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
IIW_NO_DATA = ("its ε grid is set by the paper's validity ratios d·√Var* (10.9 … 0.36), those of one population "
               "size and d")
#: The convolution paper's figures on data: a numerical column (its buckets in order: the paper's Taxi pick-up times
#: are one) or a categorical one, whose values in their order are a non-smooth domain (the paper's Kosarak).
ORDERED = ("numerical", "categorical")
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
        figure="gain_figure", ours=_ibu_table, units=_u_ibu_table, split="mechanisms", data=("categorical",),
        verdict_of=_v_ibu_table,
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
        units=_u_ibu_grid, split="distributions", tiny={**_GRID_TINY, "mechanisms": mechs[:1]},
        no_data="it runs a grid over the paper's synthetic distributions, numbers of users and domain sizes",
        verdict_of=_v_ibu_grid)
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
        figure_args=(label, f"Fig. {number}"), ours=_numerical, native_executor=True, data=("numerical",),
        verdict_of=_v_numerical,
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
        figure="shapes_figure", ours=_shapes, split="shapes", data=("numerical",), verdict_of=_v_shapes,
        units=lambda s: len(s["shapes"]) * len(s["epsilons"]) * s["trials"] * s["d"] * 140,
        tiny={"epsilons": (1.0,), "d": 8, "n": 2_000, "trials": 1}),
    ReproducibleFigure(
        "square-wave-fig-6", "SW + EMS against the wave's half-width b", "square-wave Fig. 6", "b_sweep",
        lecture={"epsilon": 1.0, "d": 64, "n": 100_000, "trials": 5},
        paper={"epsilon": 1.0, "d": 256, "n": 100_000, "trials": 100},
        paper_source=(f"Figure 6 (b from 0.01 to 0.38 at fixed ε: here multiples of b_MI at ε = 1); {SW_SETUP}"),
        figure="b_figure", figure_args=(Setting("epsilon"),), ours=_b, split="factors", epsilon_key="epsilon",
        data=("numerical",), verdict_of=_v_b,
        units=lambda s: len(s["factors"]) * s["trials"] * s["d"] * 400,
        tiny={"d": 8, "n": 2_000, "trials": 1, "factors": (0.5, 1.0)}),
    ReproducibleFigure(
        "square-wave-fig-7", "SW + EMS against the number of buckets d", "square-wave Fig. 7", "bucket_granularity",
        lecture={"epsilons": (0.5, 1.0, 2.0, 4.0), "domain_sizes": paper_figures.PAPER_GRANULARITY,
                 "n": 100_000, "trials": 5},
        paper={"epsilons": (0.5, 1.0, 2.0, 4.0), "domain_sizes": (256, 512, 1024, 2048), "n": 100_000,
               "trials": 100},
        paper_source=f"§6.4 'Bucketization granularity': 256, 512, 1024 and 2048 buckets; {SW_SETUP}",
        figure="granularity_figure", ours=_granularity, split="domain_sizes", data=("numerical",),
        verdict_of=_v_granularity,
        units=lambda s: len(s["epsilons"]) * s["trials"] * sum(s["domain_sizes"]) * 110,
        tiny={"epsilons": (1.0,), "domain_sizes": (8, 16), "n": 2_000, "trials": 1}),
    ReproducibleFigure(
        "consistency-fig-4", "Post-processors: full-domain MSE against ε", "consistency Fig. 4",
        "postprocessor_curves",
        lecture={"epsilons": (0.5, 1.0, 2.0, 4.0), "d": 100, "n": 100_000, "trials": 5, "zipf_s": 1.1},
        paper={"epsilons": (0.2, 0.5, 1.0, 2.0, 3.0, 4.0), "d": 1024, "n": 1_000_000, "trials": 30, "zipf_s": 1.5},
        paper_source=f"Fig. 4 (ε from 0.2 to 4; six points here); {CONSISTENCY_SETUP}",
        figure="postprocessor_figure", ours=_postprocessors, split="epsilons", data=("categorical",),
        verdict_of=_v_postprocessors,
        units=lambda s: len(s["epsilons"]) * s["trials"] * len(s["estimators"]) * s["d"] * 1.5,
        tiny={"epsilons": (1.0,), "d": 8, "n": 2_000, "trials": 1}),
    ReproducibleFigure(
        "consistency-fig-5", "Users saved by post-processing: n′ against n", "consistency Fig. 5",
        "postprocessor_tasks", part="n_prime",
        lecture={"n": 100_000, "trials": 5},
        paper=CONSISTENCY_TASKS,
        paper_source=f"Fig. 5: ε = 1, n from 0.2·10⁶ to 2·10⁶; {CONSISTENCY_SETUP}",
        figure="n_prime_figure", ours=_n_prime, epsilon_key="epsilon", units=_u_tasks, data=("categorical",),
        verdict_of=_v_n_prime,
        tiny={"d": 16, "n": 2_000, "trials": 1, "users": (2_000, 4_000), "rhos": (0.01, 0.5), "ks": (2, 4),
              "queries": 5}),
    *(ReproducibleFigure(
        f"consistency-fig-{number}", f"Set queries: MSE against the set size ρ ({span})", "consistency Figs. 6–7, 10",
        "postprocessor_tasks", part="set", rows=rows, lecture={"n": 100_000, "trials": 5},
        paper=CONSISTENCY_TASKS,
        paper_source=f"Fig. {number}: ε = 1, ρ from {span}; {CONSISTENCY_SETUP}",
        figure="set_query_figure", ours=lambda t: _by_estimator(t, "ρ"), epsilon_key="epsilon", units=_u_tasks,
        data=("categorical",), verdict_of=_v_sets,
        tiny={"d": 16, "n": 2_000, "trials": 1, "users": (2_000,), "rhos": (0.01, 0.5), "ks": (2,), "queries": 5})
      for number, span, rows in ((6, "10 % to 90 %", _select("ρ", lambda r, s: r >= 0.1)),
                                 (7, "1 % to 10 %", _select("ρ", lambda r, s: r <= 0.1)))),
    ReproducibleFigure(
        "consistency-fig-10", "Top-k values: MSE against k", "consistency Figs. 6–7, 10", "postprocessor_tasks",
        part="top_k", lecture={"n": 100_000, "trials": 5},
        paper=CONSISTENCY_TASKS,
        paper_source=f"Fig. 10: ε = 1, k from 2 to 32; {CONSISTENCY_SETUP}",
        figure="top_k_figure", ours=lambda t: _by_estimator(t, "k"), epsilon_key="epsilon", units=_u_tasks,
        data=("categorical",), verdict_of=_v_top_k,
        tiny={"d": 16, "n": 2_000, "trials": 1, "users": (2_000,), "rhos": (0.5,), "ks": (2, 4), "queries": 5}),
    ReproducibleFigure(
        "consistency-fig-8", "Fixed set queries (68 categories) against ε", "consistency Fig. 8", "fixed_set_study",
        part="mse", lecture={"trials": 3},
        paper={"trials": 30, "epsilons": (0.2, 0.5, 1.0, 2.0, 3.0, 4.0)},
        paper_source=(f"Fig. 8 and §V.D: 68 categories of 10.4 values (its Emoji data is not public: a stand-in), ε "
                      f"from 0.2 to 4; {CONSISTENCY_SETUP}"),
        figure="fixed_sets_figure", ours=_fixed_sets, split="epsilons", units=_u_fixed,
        no_data=("its 68 fixed categories stand in for the paper's Emoji categories, groups of values a column "
                 "does not have"),
        tiny={"epsilons": (1.0,), "d": 1024, "n": 2_000, "trials": 1, "advisor_trials": 2,
              "estimators": ("mi", "base-pos")}),
    ReproducibleFigure(
        "consistency-fig-9", "Choosing the method from the reports: expected and actual error", "consistency Fig. 9",
        "fixed_set_study", part="synthetic", lecture={"trials": 3},
        paper={"trials": 30, "epsilons": (0.2, 0.5, 1.0, 2.0, 3.0, 4.0)},
        paper_source=f"Fig. 9 and §V.D (the synthetic dataset fitted to the reports); {CONSISTENCY_SETUP}",
        figure="synthetic_selection_figure", ours=_synthetic, split="epsilons", units=_u_fixed,
        no_data=("its 68 fixed categories stand in for the paper's Emoji categories, groups of values a column "
                 "does not have"), verdict_of=_v_synthetic,
        tiny={"epsilons": (1.0,), "d": 1024, "n": 2_000, "trials": 1, "advisor_trials": 2,
              "estimators": ("mi", "base-pos")}),
    ReproducibleFigure(
        "convolution-fig-3", "Noise power spectrum of the support counts against Theorem 3", "convolution Fig. 3",
        "noise_spectrum", lecture={"mechanism": "grr", "epsilon": 2.0, "d": 128, "n": 100_000, "trials": 20},
        paper={"mechanism": "grr", "epsilon": 4.0, "d": 1000, "n": TAXI, "trials": 10},
        paper_source=f"Fig. 3 (§V.B): ε = 4, one experiment and the average of 10; {CONVOLUTION_SETUP}",
        figure="spectrum_figure", ours=_spectrum, epsilon_key="epsilon", verdict_of=_v_spectrum,
        no_data="the noise's spectrum is Theorem 3's whatever the data: there is nothing of the data to test",
        units=lambda s: s["trials"] * s["d"] * 2, tiny={"d": 16, "n": 2_000, "trials": 2}),
    ReproducibleFigure(
        "convolution-fig-4", "IIW converging at ε = 4", "convolution Figs. 4–5", "iiw_convergence",
        rows=lambda t, s: t[t["method"] == "IIW"],
        lecture={"epsilons": (4.0,)}, paper={"epsilons": (4.0,), "d": 1000, "n": TAXI},
        paper_source=f"Fig. 4: ε = 4, IIW; one collection per ε here; {CONVOLUTION_SETUP}",
        figure="convergence_figure", ours=_iiw, split="epsilons", no_data=IIW_NO_DATA, verdict_of=_v_iiw,
        units=_u_iiw,
        tiny={"d": 32, "n": 5_000, "checkpoints": (1, 2)}),
    ReproducibleFigure(
        "convolution-fig-5", "IIW and IIW-G converging, per ε", "convolution Figs. 4–5", "iiw_convergence",
        lecture={"epsilons": (1.0, 2.0, 3.0, 4.0)}, paper={"epsilons": (1.0, 2.0, 3.0, 4.0), "d": 1000, "n": TAXI},
        paper_source=f"Fig. 5: d = 1000, Taxi, ε = 1…4; one collection per ε here; {CONVOLUTION_SETUP}",
        figure="convergence_figure", ours=_iiw, split="epsilons", no_data=IIW_NO_DATA, verdict_of=_v_iiw,
        units=_u_iiw,
        tiny={"epsilons": (1.0, 4.0), "d": 32, "n": 5_000, "checkpoints": (1, 2)}),
    *(ReproducibleFigure(
        f"convolution-fig-{number}", title, "convolution Fig. 9" if number == 9 else "convolution Figs. 6–8",
        "wiener_curves", part=part, lecture={"trials": 3},
        paper={"trials": 10, "n": TAXI, "epsilons": (1.0, 2.0, 3.0, 4.0, 5.0), "ks": tuple(range(10, 101, 10))},
        paper_source=f"{source}; {CONVOLUTION_SETUP}", figure=builder, figure_args=args, ours=ours,
        epsilon_key="epsilons" if number == 6 else "epsilon", units=_u_wiener, data=kinds, verdict_of=verdict,
        tiny={"epsilons": (4.0,), "domain_sizes": (32,), "ks": (2, 4), "d": 32, "n": 5_000, "trials": 1,
              "thresholds": (50, 100)})
      for number, part, title, builder, args, source, ours, verdict, kinds in (
          (6, "epsilon", "The Wiener family on smooth data: MSE against ε", "wiener_figure", ("epsilon",),
           "Fig. 6 (§V.C): ε from 1 to 5", lambda t: _wiener_ratio(t, "epsilon"),
           lambda t, s: _v_wiener(t, "epsilon"), ORDERED),
          (7, "d", "The Wiener family on smooth data: MSE against d", "wiener_figure", ("d",),
           "Fig. 7: ε = 4, varying d", lambda t: _wiener_ratio(t, "d"), lambda t, s: _v_wiener(t, "d"),
           ("numerical",)),
          (8, "top_k", "The Wiener family: top-k MSE against k", "top_k_figure",
           ("method", "convolution paper Fig. 8"), "Fig. 8: ε = 4, k from 10 to 100", _top_k_wiener,
           _v_top_k_wiener, ORDERED),
          (9, "positives", "Values reported above a count threshold", "positives_figure", (),
           "Fig. 9 (§V.E): ε = 4, thresholds 500–2,000", _positives, _v_positives, ORDERED))),
):
    FIGURES.register(_entry)
