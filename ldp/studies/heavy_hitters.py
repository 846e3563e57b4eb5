"""Heavy hitters on a population: values from a column (non-negative integers below 2^m) or a synthetic Zipf over
2^m with its heavy values at random positions, run through a registered protocol (:mod:`ldp.mechanisms.heavy_hitters`)
and scored against the truth (:mod:`ldp.evaluation.heavy_hitters`); and precision/recall against ε."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ldp.core.errors import InvalidInput, LDPError
from ldp.core.params import check_positive_int
from ldp.core.streams import rng_for
from ldp.evaluation.heavy_hitters import heavy_hitter_scores
from ldp.mechanisms.heavy_hitters import HeavyHitterResult, get_heavy_hitter_method, true_heavy_hitters

__all__ = ["HeavyHitterRun", "column_values", "find_heavy_hitters", "precision_against_epsilon",
           "precision_against_users", "zipf_values"]


def zipf_values(users: int, bits: int, *, distinct: int = 1000, s: float = 1.1, seed: int = 0) -> np.ndarray:
    """``users`` values of a Zipf(s) over ``distinct`` values placed at random positions of [0, 2^bits) (the
    heavy values are not at the small numbers, so no prefix is favoured by construction).

    Parameters
    ----------
    users : int
        The number of values drawn (one per user).
    bits : int
        The domain is [0, 2^bits).
    distinct : int, default 1000
        The Zipf's support size, in [1, 10^7] and at most 2^bits (fewer when random positions collide).
    s : float, default 1.1
        Zipf's exponent: the i-th most common value has weight 1/i^s.
    seed : int, default 0
        The seed; the stream is keyed by (bits, distinct, s), so the same arguments give the same population.

    Returns
    -------
    numpy.ndarray
        The users' values, shape (users,), dtype uint64.

    Raises
    ------
    InvalidInput
        If ``distinct`` is outside [1, 10^7] or exceeds 2^bits.
    """
    if not 1 <= distinct <= 10**7:
        raise InvalidInput(f"distinct values must lie in [1, 10^7], got {distinct}")
    rng = rng_for(seed, "heavy-hitters", "population", bits, distinct, s)
    space = 2.0 ** bits
    if distinct > space:
        raise InvalidInput(f"{distinct} distinct values do not fit in {bits} bits")
    positions = np.unique(rng.integers(0, 2**bits, size=2 * distinct, dtype=np.uint64))
    positions = rng.permutation(positions)[:distinct]
    weights = 1.0 / np.arange(1, positions.size + 1) ** float(s)
    return positions[rng.choice(positions.size, size=int(users), p=weights / weights.sum())]


def column_values(series: pd.Series, bits: int) -> tuple[np.ndarray, int]:
    """A column's values as integers in [0, 2^bits): missing values dropped (their number returned); anything else
    that is not a non-negative integer below 2^bits is refused with the reason.

    Parameters
    ----------
    series : pandas.Series
        The column; values that do not parse as numbers count as missing.
    bits : int
        Values must be integers in [0, 2^bits).

    Returns
    -------
    tuple of (numpy.ndarray, int)
        The values as uint64, shape (rows kept,), and the number of missing values dropped.

    Raises
    ------
    InvalidInput
        If the column has no number, or some value is negative, fractional or ≥ 2^bits.
    """
    num = pd.to_numeric(series, errors="coerce")
    dropped = int(num.isna().sum())
    if dropped == num.size:
        raise InvalidInput(f"column {series.name!r} has no numbers; heavy hitters need non-negative integers")
    num = num.dropna()
    bad = num[(num < 0) | (num != np.floor(num)) | (num >= 2.0 ** bits)]
    if bad.size:
        raise InvalidInput(f"column {series.name!r}: {bad.size:,} values are not integers in [0, 2^{bits}) "
                           f"(e.g. {float(bad.iloc[0]):g}); raise --bits or choose another column")
    return num.to_numpy().astype(np.uint64), dropped


@dataclass(frozen=True)
class HeavyHitterRun:
    """A protocol's answer with its scores against the population's true top k.

    Attributes
    ----------
    result : HeavyHitterResult
        The protocol's answer (values found best first, their estimates, the rounds, notes).
    true_values : numpy.ndarray
        The population's true top k values, most frequent first (ties by value).
    true_frequencies : numpy.ndarray
        Their frequencies, fractions of the users.
    scores : dict of str to float
        :func:`ldp.evaluation.heavy_hitters.heavy_hitter_scores`: ``precision``, ``recall``, ``f1``, ``ncr``,
        ``mse`` and ``relative_error``.
    """

    result: HeavyHitterResult
    true_values: np.ndarray
    true_frequencies: np.ndarray
    scores: dict[str, float]

    def to_dict(self) -> dict[str, Any]:
        r = self.result
        return {"method": r.method, "epsilon": r.epsilon, "bits": r.bits, "top_k": r.top_k, "users": r.users,
                "parameters": r.parameters, "found": r.found(), "candidates_probed": r.candidates_probed,
                "rounds": [{"prefix_bits": x.length, "users": x.users, "candidates": int(x.candidates.size),
                            "survivors": int(x.survivors.size), "detection_limit": x.detection_limit}
                           for x in r.rounds],
                "true_top_k": [{"value": int(v), "frequency": float(f)}
                               for v, f in zip(self.true_values, self.true_frequencies, strict=True)],
                "scores": self.scores, "notes": list(r.notes)}


def find_heavy_hitters(method: str, epsilon: float, values: np.ndarray, *, bits: int, top_k: int, seed: int = 0,
                       progress: Callable[[float], None] | None = None, trial: int = 0,
                       **params: Any) -> HeavyHitterRun:
    """Run ``method`` on every user's value (client and server simulated from the stream of ``seed``) and score it;
    ``progress(fraction)`` after each of the server's rounds.

    Parameters
    ----------
    method : str
        A registered heavy-hitter protocol's name.
    epsilon : float
        Each user's privacy budget ε.
    values : numpy.ndarray
        Every user's value, integers in [0, 2^bits).
    bits : int
        The domain's bit length.
    top_k : int
        The k heavy hitters sought.
    seed : int, default 0
        The seed; the stream is keyed by (method, ε) and, from the second trial on, by the trial.
    progress : Callable[[float], None] or None, default None
        Called with the fraction done; None for no reports.
    trial : int, default 0
        Which repetition this is: trial t > 0 draws from the stream (…, "trial", t), so trials of one seed never
        coincide with another seed's (as ``seed + t`` did); trial 0 is the single run's stream.
    **params : Any
        The protocol's other parameters.

    Returns
    -------
    HeavyHitterRun
        The answer and its scores against the true top k.

    Raises
    ------
    InvalidInput
        If the protocol refuses its parameters or the values (its own checks).

    References
    ----------
    The LDP lecture, "Heavy Hitter Estimation" (prefix extending methods); Wang, Li, Jha, "Locally Differentially
    Private Heavy Hitter Identification" (IEEE TDSC 2021).
    """
    protocol = get_heavy_hitter_method(method, epsilon, bits, top_k, **params)
    first = trial == 0 and not isinstance(trial, bool)
    keys = () if first else ("trial", check_positive_int(trial, "trial", method))
    result = protocol.run(values, rng_for(seed, "heavy-hitters", method, float(epsilon), *keys), progress)
    uniq, counts = np.unique(protocol.validate_values(values), return_counts=True)
    freq = dict(zip(uniq.tolist(), (counts / counts.sum()).tolist(), strict=True))
    true_v, true_f = true_heavy_hitters(values, top_k)
    scores = heavy_hitter_scores(result.values, result.estimates, true_v,
                                 lambda vs: [freq.get(int(v), 0.0) for v in vs])
    return HeavyHitterRun(result, true_v, true_f, scores)


def precision_against_users(methods: Sequence[str], users: Sequence[int], values: np.ndarray, *, epsilon: float,
                            bits: int, top_k: int, seed: int = 0, params: dict[str, dict[str, Any]] | None = None,
                            progress: Callable[[float], None] | None = None) -> pd.DataFrame:
    """Scores of each method against the number of users n at one ε: n users drawn (without replacement while
    there are enough rows) from ``values`` by a stream keyed by n, the same users for every method;
    ``progress(fraction)`` after each method at each n (weighted by n).

    Parameters
    ----------
    methods : Sequence[str]
        Registered heavy-hitter protocols.
    users : Sequence[int]
        The n values.
    values : numpy.ndarray
        The population's values (uint64 in [0, 2^bits)); n are drawn from them for each n.
    epsilon : float
        The one ε.
    bits : int
        The domain's bit length.
    top_k : int
        The k heavy hitters sought.
    seed : int, default 0
        The seed of the draws (a stream keyed by n) and the protocols' runs.
    params : dict of str to dict or None, default None
        The protocols' parameters, keyed by method name.
    progress : Callable[[float], None] or None, default None
        Called with the fraction done, weighted by n.

    Returns
    -------
    pandas.DataFrame
        :func:`precision_against_epsilon`'s rows with a ``users`` column; ``attrs["skipped"]`` lists the methods
        that refused the configuration (with the reason).
    """
    rows, total, done = [], float(sum(int(n) for n in users)) or 1.0, 0.0
    for n in users:
        rng = rng_for(seed, "heavy-hitters", "users", int(n))
        sample = rng.choice(values, size=int(n), replace=int(n) > values.size)
        base = done
        table = precision_against_epsilon(
            methods, [epsilon], sample, bits=bits, top_k=top_k, seed=seed, params=params,
            progress=None if progress is None else (lambda f, base=base, n=n: progress((base + f * int(n)) / total)))
        done += int(n)
        rows.append(table.assign(users=int(n)))
    out = pd.concat(rows, ignore_index=True)
    out.attrs["skipped"] = rows[0].attrs.get("skipped", []) if rows else []
    return out


def precision_against_epsilon(methods: Sequence[str], epsilons: Sequence[float], values: np.ndarray, *, bits: int,
                              top_k: int, trials: int = 1, seed: int = 0,
                              params: dict[str, dict[str, Any]] | None = None,
                              progress: Callable[[float], None] | None = None) -> pd.DataFrame:
    """Scores of each method at each ε (mean over ``trials`` trials): the methods side by side;
    ``progress(fraction)`` after each method at each ε.

    Parameters
    ----------
    methods : Sequence[str]
        Registered heavy-hitter protocols; one that refuses the configuration (an LDPError at the first ε) is
        left out and named in ``attrs["skipped"]``.
    epsilons : Sequence[float]
        The ε values (non-empty).
    values : numpy.ndarray
        Every user's value, uint64 in [0, 2^bits).
    bits : int
        The domain's bit length.
    top_k : int
        The k heavy hitters sought.
    trials : int, default 1
        Runs averaged per cell, trial t from the stream of (``seed``, trial t) (:func:`find_heavy_hitters`).
    seed : int, default 0
        The first trial's seed.
    params : dict of str to dict or None, default None
        Parameters per method name.
    progress : Callable[[float], None] or None, default None
        Called with the fraction done.

    Returns
    -------
    pandas.DataFrame
        One row per (method, ε): ``method``, ``epsilon``, the mean scores (``precision``, ``recall``, ``f1``,
        ``ncr``, ``mse``, ``relative_error``) and ``candidates probed`` (first trial's); ``attrs["skipped"]``
        lists the skipped methods with their reason.

    References
    ----------
    The LDP lecture, "Heavy Hitter Estimation" (prefix extending methods); Wang, Li, Jha, "Locally Differentially
    Private Heavy Hitter Identification" (IEEE TDSC 2021).
    """
    rows, skipped = [], []
    steps, step = len(methods) * len(epsilons) or 1, 0
    for name in methods:
        try:  # a method that refuses this configuration (e.g. pairs of segments too wide) is left out, named
            get_heavy_hitter_method(name, epsilons[0], bits, top_k, **(params or {}).get(name, {}))
        except LDPError as exc:
            skipped.append(f"{name}: {exc}")
            step += len(epsilons)
            continue
        for eps in epsilons:
            step += 1
            if progress is not None:
                progress((step - 1) / steps)
            runs = [find_heavy_hitters(name, eps, values, bits=bits, top_k=top_k, seed=seed, trial=t,
                                       **(params or {}).get(name, {})) for t in range(int(trials))]
            mean = {k: float(np.mean([r.scores[k] for r in runs])) for k in runs[0].scores}
            rows.append({"method": name, "epsilon": float(eps), **mean,
                         "candidates probed": runs[0].result.candidates_probed})
    if progress is not None:
        progress(1.0)
    table = pd.DataFrame(rows)
    table.attrs["skipped"] = skipped
    return table
