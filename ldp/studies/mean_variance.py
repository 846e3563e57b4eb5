"""Mean and variance of a numerical column in real units with a mean mechanism (square-wave paper §2.2, §6.3).

The mean comes from the unified engine (every user once, with the full ε); the variance from the paper's 50/50
split (:func:`ldp.mechanisms.mean.estimate_variance` on the exact engine, every client;
:func:`ldp.mechanisms.mean.sample_variance_split` on the fast one, no client).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ldp.core.errors import InvalidInput
from ldp.core.params import check_positive_int
from ldp.core.registry import MECHANISMS
from ldp.core.streams import rng_for
from ldp.data.domain import numeric_values
from ldp.mechanisms import mechanisms_of
from ldp.mechanisms.mean import MeanMechanism, estimate_variance, sample_variance_split
from ldp.simulation import simulate

__all__ = ["MeanResult", "binned_mean_pitfall", "engine_note", "lower_variance_mechanism", "mean_values",
           "simulate_histogram_mean", "simulate_mean", "split_note"]


@dataclass
class MeanResult:
    """``trials`` mean (and 50/50-split variance) estimates of one column by SR or PM, in real units.

    Attributes
    ----------
    mechanism : str
        The mean mechanism's registry name ("sr", "pm", ...).
    epsilon : float
        The privacy budget every user spends (the full ε, once).
    engine : str
        "exact" (every report drawn) or "fast" (the aggregate drawn directly); see :func:`engine_note`.
    value_range : tuple of float
        (lo, hi), the real-unit range mapped onto [−1, 1].
    true_mean : float
        The mean of the (clipped) values, real units.
    true_variance : float
        Their population variance (ddof 0), real units².
    estimated_mean : numpy.ndarray
        Shape (trials,): one mean estimate per collection, real units.
    estimated_variance : numpy.ndarray
        Shape (trials,): one 50/50-split variance estimate per collection, real units².
    theoretical_variance : float
        Var[μ̂] in real units² when all n users report their value (``MeanMechanism.mean_variance`` × ((hi − lo)/2)²).
    users : int
        The number of users n.
    clipped : int, default 0
        Values clipped into the range (set by the caller from :func:`mean_values`).
    dropped : int, default 0
        Missing or non-finite values dropped (likewise).
    delta : float, default 0.0
        δ of an (ε, δ) mechanism (the Gaussian ones); 0 for pure ε-LDP.

    References
    ----------
    Li, Wang, Lopuhaä-Zwakenberg, Li, Škorić, "Estimating Numerical Distributions under Local Differential Privacy"
    (SIGMOD 2020), §2.2 (SR and PM) and §6.3 (variance by the 50/50 user split).
    """

    mechanism: str
    epsilon: float
    engine: str
    value_range: tuple[float, float]
    true_mean: float
    true_variance: float
    estimated_mean: np.ndarray  # (trials,)
    estimated_variance: np.ndarray  # (trials,)
    theoretical_variance: float  # Var[μ̂] (real units², all n users report their value)
    users: int
    clipped: int = 0
    dropped: int = 0
    delta: float = 0.0  #: δ of an (ε, δ) mechanism (the Gaussian ones); 0 for pure ε-LDP

    @property
    def theoretical_std_error(self) -> float:
        return math.sqrt(self.theoretical_variance)

    def summary(self) -> dict[str, float]:
        return {"mean_error": float(np.mean(np.abs(self.estimated_mean - self.true_mean))),
                "variance_error": float(np.mean(np.abs(self.estimated_variance - self.true_variance))),
                "mean_rmse": float(np.sqrt(np.mean((self.estimated_mean - self.true_mean) ** 2))),
                "theoretical_std_error": self.theoretical_std_error}


def mean_values(series: Any, value_range: tuple[float, float] | None = None, clip: bool = False,
                ) -> tuple[np.ndarray, tuple[float, float], int, int]:
    """A numerical column → (values in real units, (lo, hi), clipped, dropped): missing values dropped, range
    from ``value_range`` or the data's min/max; values outside an explicit range rejected or clipped.

    Parameters
    ----------
    series : array-like
        The column (a pandas Series or anything ``pd.Series`` accepts); numbers, or text that parses as numbers.
    value_range : tuple of float or None, default None
        (lo, hi) in real units; None takes the data's min and max.
    clip : bool, default False
        Clip values outside an explicit ``value_range`` into it instead of refusing them.

    Returns
    -------
    values : numpy.ndarray
        The kept values, float64, clipped into [lo, hi].
    value_range : tuple of float
        (lo, hi).
    clipped : int
        How many values lay outside the range (and were clipped).
    dropped : int
        How many values were missing or not finite.

    Raises
    ------
    InvalidInput
        When the column is not numerical, has fewer than two numerical values, is constant without an explicit
        range, or has values outside an explicit range and ``clip`` is False.
    """
    series = pd.Series(series)
    x, dropped = numeric_values(series, str(series.name))  # one-line error for a non-numeric column
    keep = np.isfinite(x)
    dropped += int((~keep).sum())
    x = x[keep]
    if x.size < 2:
        raise InvalidInput("the column needs at least two numerical values")
    if value_range is None:
        lo, hi = float(x.min()), float(x.max())
        if lo == hi:
            raise InvalidInput(f"the column is constant ({lo:g}); give --range LO,HI")
    else:
        lo, hi = (float(v) for v in value_range)
    outside = int(((x < lo) | (x > hi)).sum())
    if outside and not clip:
        raise InvalidInput(f"{outside} of {x.size} values are outside the range [{lo:g}, {hi:g}]; widen --range "
                         "or add --clip")
    return np.clip(x, lo, hi), (lo, hi), outside, dropped


def engine_note(mechanism: MeanMechanism, engine: str) -> str:
    """How the engine draws a mean mechanism's reports, from the mechanism's own metadata.

    Parameters
    ----------
    mechanism : MeanMechanism
        The mean mechanism (its ``fast_engine_exact`` and ``fast_engine_note`` are read).
    engine : str
        "exact"; any other value is described as the fast engine.

    Returns
    -------
    str
        One line: how the reports are drawn and whether the fast engine is exact in distribution.
    """
    if engine == "exact":
        return f"exact: every user's report drawn by the client ({type(mechanism).__name__}.perturb)"
    if mechanism.fast_engine_exact:
        return "fast, exact in distribution: the aggregate of the reports is drawn directly"
    return f"fast, approximate: {mechanism.fast_engine_note}"


def split_note(engine: str) -> str:
    """How an engine runs the variance's 50/50 split (§6.3), for a caption.

    Parameters
    ----------
    engine : str
        "exact"; any other value is described as the fast engine.

    Returns
    -------
    str
        One clause: every client simulated, or the split and both halves' aggregates drawn directly.
    """
    if engine == "exact":
        return "every client simulated"
    return ("the random half drawn from the counts (hypergeometric) and each half's reports as one aggregate, as "
            "the mean's")


def simulate_mean(mechanism: str, epsilon: float, values: Any, value_range: tuple[float, float], *,
                  engine: str = "exact", trials: int = 1, seed: int | None = None) -> MeanResult:
    """Estimate the mean and variance of ``values`` (real units in ``value_range``) ``trials`` times with a mean
    mechanism (§2.2): map to [−1, 1] by v = 2(x − lo)/(hi − lo) − 1, collect every user's report (either engine,
    :func:`ldp.simulate`; the population is the distinct values with their multiplicities) and average, and run
    the 50/50 split of §6.3 for the variance (every client on the exact engine,
    :func:`~ldp.mechanisms.mean.estimate_variance`; the split drawn from the values' counts and two fast
    aggregates on the fast one, :func:`~ldp.mechanisms.mean.sample_variance_split`, exact in distribution where
    the mechanism's fast engine is); map both back (mean affinely, variance × ((hi − lo)/2)²).

    Parameters
    ----------
    mechanism : str
        The registry name of a mean mechanism (:func:`ldp.mechanisms.mechanisms_of` ``("mean")``).
    epsilon : float
        The privacy budget of each user's one report.
    values : array-like
        The users' values in real units (one per user); values outside ``value_range`` are clipped to it.
    value_range : tuple of float
        (lo, hi), real units, lo < hi.
    engine : str, default "exact"
        "exact" or "fast" (:func:`ldp.simulate`), for the mean and the variance's 50/50 split alike.
    trials : int, default 1
        The number of independent collections (positive).
    seed : int or None, default None
        The root seed; the collections and the split draw from the streams "mean"/"collections" and
        "mean"/"50/50 split" (:func:`ldp.core.streams.rng_for`). None draws fresh entropy.

    Returns
    -------
    MeanResult
        ``trials`` mean and variance estimates in real units with the true values and the theoretical Var[μ̂]
        (``clipped`` and ``dropped`` left at 0).

    Raises
    ------
    InvalidInput
        When ``mechanism`` is unknown or not a mean mechanism, ``trials`` is not a positive integer, the engine is
        unknown, or there are fewer than two users.

    References
    ----------
    Li, Wang, Lopuhaä-Zwakenberg, Li, Škorić, "Estimating Numerical Distributions under Local Differential Privacy"
    (SIGMOD 2020), §2.2 (SR, PM on [−1, 1]) and §6.3 ("Variance Estimation": half the users estimate the mean, the
    other half report (v_i − μ̃)²).
    """
    mech, trials = _mean_mechanism(mechanism, epsilon), check_positive_int(trials, "trials")
    lo, hi = (float(v) for v in value_range)
    x = np.asarray(values, dtype=np.float64)
    half = (hi - lo) / 2.0
    v = mech.validate_values(np.clip((x - lo) / half - 1.0, -1.0, 1.0))
    support, counts = np.unique(v, return_counts=True)
    means, variances = _collect(mech, counts, support, (lo, hi), engine, trials, seed, users=v)
    return MeanResult(mechanism, mech.epsilon, engine, (lo, hi), float(x.mean()), float(x.var()), means, variances,
                      mech.mean_variance(v) * half * half, int(v.size), delta=mech.delta)


def _mean_mechanism(mechanism: str, epsilon: float) -> MeanMechanism:
    """The registered mean mechanism ``mechanism`` at ``epsilon`` (InvalidInput for any other kind)."""
    cls = MECHANISMS.get(mechanism)
    means = mechanisms_of("mean")
    if cls not in means:  # before building it: other kinds need parameters a mean mechanism does not take
        raise InvalidInput(f"{mechanism} is not a mean mechanism; choose one of: {', '.join(c.name for c in means)}")
    return cls(epsilon)


def _collect(mech: MeanMechanism, counts: np.ndarray, support: np.ndarray, value_range: tuple[float, float],
             engine: str, trials: int, seed: int | None, users: np.ndarray | None = None,
             ) -> tuple[np.ndarray, np.ndarray]:
    """``trials`` means (:func:`ldp.simulate`, either engine) and 50/50-split variances of the population
    ``counts`` × ``support`` (distinct values in [−1, 1]), mapped back to ``value_range``. The split runs every
    client (:func:`estimate_variance` on ``users``, the values one per user) on the exact engine, and
    :func:`sample_variance_split` on the fast one (no client; exact in distribution where the mechanism's fast
    engine is)."""
    lo, hi = value_range
    half = (hi - lo) / 2.0
    result = simulate(mech, counts, support=support, engine=engine, trials=trials,
                      seed=rng_for(seed, "mean", "collections"))
    means = lo + (result.estimates["average"][:, 0] + 1.0) * half
    var_rng = rng_for(seed, "mean", "50/50 split")
    if engine == "exact":
        v = np.repeat(support, counts) if users is None else users
        split = [estimate_variance(mech, v, var_rng) for _ in range(trials)]
    else:
        split = [sample_variance_split(mech, counts, support, var_rng) for _ in range(trials)]
    return means, np.array([s["variance"] * half * half for s in split])


def simulate_histogram_mean(mechanism: str, epsilon: float, counts: np.ndarray, edges: np.ndarray, *,
                            engine: str = "exact", trials: int = 1, seed: int | None = None) -> MeanResult:
    """:func:`simulate_mean` of a bucketized population: ``counts[k]`` users at the centre of bin k (``edges``
    in real units), over the range of the edges.

    On the fast engine no per-user array is built (O(bins) whatever n): the distinct values are the bin centres
    with their counts — the population :func:`simulate_mean` would collect, with the same mean draws — and the
    true mean, variance and Var[μ̂] are the count-weighted sums (equal to the per-user ones up to float rounding).

    Parameters
    ----------
    mechanism : str
        The registry name of a mean mechanism.
    epsilon : float
        The privacy budget of each user's report.
    counts : numpy.ndarray
        Shape (k,), integers: the users in each bin.
    edges : numpy.ndarray
        Shape (k + 1,), increasing: the bin edges in real units; the range is (edges[0], edges[-1]).
    engine : str, default "exact"
        "exact" or "fast", as in :func:`simulate_mean`.
    trials : int, default 1
        The number of independent collections.
    seed : int or None, default None
        The root seed, as in :func:`simulate_mean`.

    Returns
    -------
    MeanResult
        As :func:`simulate_mean`, the true mean and variance being those of the bin centres.

    Raises
    ------
    InvalidInput
        When ``edges`` does not have one more entry than ``counts``, a count is negative or there are fewer than
        two users, or as :func:`simulate_mean`.
    """
    edges = np.asarray(edges, dtype=np.float64)
    counts = np.asarray(counts, dtype=np.int64)
    if edges.shape != (counts.shape[0] + 1,):
        raise InvalidInput(f"{counts.shape[0]} bins need {counts.shape[0] + 1} edges, got {edges.shape[0]}")
    if np.any(counts < 0) or counts.sum() < 2:
        raise InvalidInput("the bins need non-negative counts and at least two users in all")
    centres = (edges[:-1] + edges[1:]) / 2.0
    lo, hi = float(edges[0]), float(edges[-1])
    if engine == "exact":  # every client runs: one value per user
        return simulate_mean(mechanism, epsilon, np.repeat(centres, counts), (lo, hi), engine=engine, trials=trials,
                             seed=seed)
    mech, trials = _mean_mechanism(mechanism, epsilon), check_positive_int(trials, "trials")
    half = (hi - lo) / 2.0
    keep = counts > 0
    values = mech.validate_values(np.clip((centres[keep] - lo) / half - 1.0, -1.0, 1.0))
    support, cell = np.unique(values, return_inverse=True)  # as simulate_mean's np.unique of the users' values
    users = np.bincount(cell, weights=counts[keep], minlength=support.size).astype(np.int64)
    means, variances = _collect(mech, users, support, (lo, hi), engine, trials, seed)
    n = int(counts.sum())
    true_mean = float(counts @ centres) / n
    return MeanResult(mechanism, mech.epsilon, engine, (lo, hi), true_mean,
                      float(counts @ (centres - true_mean) ** 2) / n, means, variances,
                      float(users @ mech.variance(support)) / n ** 2 * half * half, n, delta=mech.delta)


def lower_variance_mechanism(epsilon: float, candidates: tuple[str, ...] = ("sr", "pm")) -> MeanMechanism:
    """Of the mean mechanisms ``candidates`` (default the square-wave paper's pair), the one with the lowest
    worst-case variance at ``epsilon`` (SR below ε ≈ 1.29, PM above; with ``"hm"`` among them, HM at every ε).

    Parameters
    ----------
    epsilon : float
        The privacy budget.
    candidates : tuple of str, default ("sr", "pm")
        Registry names of mean mechanisms to choose from (the first wins a tie).

    Returns
    -------
    MeanMechanism
        The candidate, built at ``epsilon``, with the smallest max over v ∈ [−1, 1] of Var[ṽ | v].

    Raises
    ------
    InvalidInput
        When a candidate name is unknown.

    References
    ----------
    Li, Wang, Lopuhaä-Zwakenberg, Li, Škorić, "Estimating Numerical Distributions under Local Differential Privacy"
    (SIGMOD 2020), §6.3 ("SR performs better than PM when ε is small, but worse when ε is larger").
    """
    mechanisms = [MECHANISMS.get(name)(epsilon) for name in candidates]
    return min(mechanisms, key=lambda m: m.worst_case_variance())


def binned_mean_pitfall(value: float = 0.01, epsilon: float = 1.0, users: int = 10_000,
                        bins: tuple[int, ...] = (2, 4, 8, 16, 64), oracle: str = "oue") -> pd.DataFrame:
    """The lecture's pitfall of a mean through a frequency oracle ("Using Existing Methods": partition [−1, 1] into
    bins, estimate the histogram, read the mean off the bin centres — "all values are 0.01; with two bins [−1, 0),
    [0, +1], estimation will be far from truth"), computed exactly against Stochastic Rounding ("The Method").

    Every one of ``users`` users holds ``value``. With k equal bins (the last one closed) the user falls in one bin,
    whose centre c_J the oracle's unbiased histogram puts the mean at in expectation: E[μ̂] = c_J, a bias c_J − value
    that no number of users removes (two bins: E = 0.5 against 0.01). The noise is Σ_j c_j² Var[f̂_j] (OUE's bits are
    independent, so the bins' estimates are uncorrelated; ``oracle`` must be such a unary-encoding oracle), which
    grows with k: more bins cut the bias and add variance — no partition is optimal. SR is unbiased with variance
    (((e^ε + 1)/(e^ε − 1))² − value²)/n. Columns: method, bins, expected estimate, bias, standard deviation, RMSE.

    Parameters
    ----------
    value : float, default 0.01
        The value every user holds, in [−1, 1].
    epsilon : float, default 1.0
        The privacy budget of each user's one report.
    users : int, default 10_000
        The number of users n (positive).
    bins : tuple of int, default (2, 4, 8, 16, 64)
        The numbers of equal bins k (each at least 2) of [−1, 1] to read the mean through.
    oracle : str, default "oue"
        The registry name of the frequency oracle estimating the histogram (one with uncorrelated bin estimates).

    Returns
    -------
    pandas.DataFrame
        One row per k, then one for SR; columns "method" (str), "bins" (Int64, missing for SR), "expected
        estimate", "bias", "standard deviation" and "RMSE" (floats, in the units of [−1, 1]).

    Raises
    ------
    InvalidInput
        When ``value`` is not a finite number in [−1, 1], ``users`` or a k is not a positive integer, a k is below
        2, or ``oracle`` is unknown.

    References
    ----------
    The lecture "Local Differential Privacy (Part 1)", "Mean estimation": slides "Using Existing Methods" (the
    two-bin example) and "The Method" (stochastic rounding); square-wave paper (Li et al., SIGMOD 2020) §2.2 (SR).
    """
    n = check_positive_int(users, "users")
    v = float(value)
    if not (math.isfinite(v) and -1.0 <= v <= 1.0):
        raise InvalidInput(f"the value must lie in [−1, 1], got {value!r}")
    rows = []
    for k in bins:
        k = check_positive_int(k, "bins")
        if k < 2:
            raise InvalidInput("a partition needs at least 2 bins")
        edges = np.linspace(-1.0, 1.0, k + 1)
        centres = (edges[:-1] + edges[1:]) / 2.0
        j = min(int(np.searchsorted(edges, v, side="right")) - 1, k - 1)
        freqs = np.zeros(k)
        freqs[j] = 1.0
        mech = MECHANISMS.get(oracle)(epsilon, k)
        var = float(centres ** 2 @ mech.variance(freqs, n))
        rows.append({"method": f"{mech.display_name}, {k} bins", "bins": k, "expected estimate": float(centres[j]),
                     "bias": float(centres[j] - v), "standard deviation": math.sqrt(var),
                     "RMSE": math.sqrt((centres[j] - v) ** 2 + var)})
    sr = MECHANISMS.get("sr")(epsilon)
    sd = math.sqrt(float(sr.variance(np.array([v]))[0]) / n)
    rows.append({"method": sr.display_name, "bins": None, "expected estimate": v, "bias": 0.0,
                 "standard deviation": sd, "RMSE": sd})
    out = pd.DataFrame(rows)
    out["bins"] = out["bins"].astype("Int64")
    return out
