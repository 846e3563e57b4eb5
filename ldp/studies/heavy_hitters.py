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
from ldp.core.streams import rng_for
from ldp.evaluation.heavy_hitters import heavy_hitter_scores
from ldp.mechanisms.heavy_hitters import HeavyHitterResult, get_heavy_hitter_method, true_heavy_hitters

__all__ = ["HeavyHitterRun", "column_values", "find_heavy_hitters", "precision_against_epsilon",
           "precision_against_users", "zipf_values"]


def zipf_values(users: int, bits: int, *, distinct: int = 1000, s: float = 1.1, seed: int = 0) -> np.ndarray:
    """``users`` values of a Zipf(s) over ``distinct`` values placed at random positions of [0, 2^bits) (the
    heavy values are not at the small numbers, so no prefix is favoured by construction)."""
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
    that is not a non-negative integer below 2^bits is refused with the reason."""
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
    """A protocol's answer with its scores against the population's true top k."""

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
                       **params: Any) -> HeavyHitterRun:
    """Run ``method`` on every user's value (client and server simulated from the stream of ``seed``) and score it."""
    protocol = get_heavy_hitter_method(method, epsilon, bits, top_k, **params)
    result = protocol.run(values, rng_for(seed, "heavy-hitters", method, float(epsilon)))
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
    there are enough rows) from ``values`` by a stream keyed by n, the same users for every method. ``progress``
    receives the share of the work done (0…1, weighted by n) as it goes."""
    rows = []
    total, done = float(sum(int(n) for n in users)) or 1.0, 0.0
    for n in users:
        rng = rng_for(seed, "heavy-hitters", "users", int(n))
        sample = rng.choice(values, size=int(n), replace=int(n) > values.size)
        share = int(n) / total
        inner = (None if progress is None else
                 (lambda f, start=done, share=share: progress(start + share * f)))
        table = precision_against_epsilon(methods, [epsilon], sample, bits=bits, top_k=top_k, seed=seed,
                                          params=params, progress=inner)
        done += share
        rows.append(table.assign(users=int(n)))
    out = pd.concat(rows, ignore_index=True)
    out.attrs["skipped"] = rows[0].attrs.get("skipped", []) if rows else []
    return out


def precision_against_epsilon(methods: Sequence[str], epsilons: Sequence[float], values: np.ndarray, *, bits: int,
                              top_k: int, trials: int = 1, seed: int = 0,
                              params: dict[str, dict[str, Any]] | None = None,
                              progress: Callable[[float], None] | None = None) -> pd.DataFrame:
    """Scores of each method at each ε (mean over ``trials`` seeds): the side-by-side table of the issue.
    ``progress`` receives the share of the (method, ε) runs done (0…1) after each one."""
    rows, skipped = [], []
    steps, step = max(len(methods) * len(epsilons), 1), 0
    for name in methods:
        try:  # a method that refuses this configuration (e.g. pairs of segments too wide) is left out, named
            get_heavy_hitter_method(name, epsilons[0], bits, top_k, **(params or {}).get(name, {}))
        except LDPError as exc:
            skipped.append(f"{name}: {exc}")
            step += len(epsilons)
            continue
        for eps in epsilons:
            runs = [find_heavy_hitters(name, eps, values, bits=bits, top_k=top_k, seed=seed + t,
                                       **(params or {}).get(name, {})) for t in range(int(trials))]
            mean = {k: float(np.mean([r.scores[k] for r in runs])) for k in runs[0].scores}
            rows.append({"method": name, "epsilon": float(eps), **mean,
                         "candidates probed": runs[0].result.candidates_probed})
            step += 1
            if progress is not None:
                progress(step / steps)
    table = pd.DataFrame(rows)
    table.attrs["skipped"] = skipped
    return table
