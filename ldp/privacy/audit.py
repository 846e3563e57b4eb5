"""An empirical audit of the LDP guarantee: a statistical lower bound on ε from the client randomizer alone.

After LDP-Audit (Arcolezi & Gambs, *Revealing the True Cost of Locally Differentially Private Protocols: An
Auditing Perspective*, PETS 2024): run ``perturb`` S times on each of two inputs v₀, v₁; for an output event E,
p₀ = Pr[M(v₀) ∈ E] and p₁ = Pr[M(v₁) ∈ E] satisfy p₀ ≤ e^ε p₁ for an ε-LDP mechanism, so with one-sided
Clopper–Pearson bounds at α/2 each (Bonferroni), ε ≥ ln(p̲₀ / p̄₁) holds with confidence 1 − α.

The event is chosen on *held-out* samples (a separate selection run, never the counted ones, so the bound stays
valid): each report is mapped to a small discrete key and E is the set of keys with the largest observed ratio
(a prefix of the keys sorted by ratio — the empirical Neyman–Pearson region), in whichever direction gives the
best bound on the selection samples. The key of a report (our choice per report family; LDP-Audit uses the
support of v₀ and v₁ likewise):

- reports that support values (unary encoding, local hashing, subset selection, Hadamard response, and their
  longitudinal forms): (does it support v₀?, does it support v₁?) — 4 keys;
- one integer per report (GRR, L-GRR): the report itself;
- one real number per report (Square Wave, waves, Piecewise, Stochastic Rounding): one of 64 bins, the bins'
  edges the selection samples' quantiles; SHE's real vectors: the same on the difference of coordinates v₀, v₁;
- any other report: the report's row hashed to 64 bits (colliding rows merge into one event, which is still an
  event).

``epsilon`` in the result is what one report claims: ε, or ε1 for a longitudinal mechanism (a report of one
round). :class:`BrokenOLH` is a teaching example of a bug found in public code, never registered as a usable
mechanism: OLH that forces g ≥ 3 and keeps the hashed value with probability ½, which at ε < ln 2 spends ln 2.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ldp.core.errors import InvalidInput, LDPError
from ldp.core.registry import MECHANISMS
from ldp.core.streams import rng_for
from ldp.mechanisms import Mechanism, get_mechanism
from ldp.mechanisms.frequency.local_hashing import OLH

__all__ = ["TEACHING_MECHANISMS", "AuditResult", "BrokenOLH", "audit", "clopper_pearson", "make_audited"]

BINS = 64
MAX_CHUNK = 1 << 18


class BrokenOLH(OLH):
    """Teaching example (not registered): OLH with g forced to at least 3 and the hashed value kept with p = ½.

    At ε < ln 2 the correct OLH has g = 2 and p = e^ε/(e^ε + 1); this one reports y = H(v) w.p. ½ and each other
    of its g = 3 values w.p. ¼, a ratio of 2 whatever ε it claims: it spends ln 2 ≈ 0.693.

    Parameters
    ----------
    epsilon : float
        The ε it claims.
    d : int, optional
        The domain size.
    **params
        OLH's own parameters (see :class:`ldp.mechanisms.frequency.local_hashing.OLH`).

    References
    ----------
    Arcolezi & Gambs, "Revealing the True Cost of Locally Differentially Private Protocols: An Auditing Perspective"
    (LDP-Audit), PETS 2024: bugs found in public LDP code.
    """

    name = "broken-olh"
    display_name = "Broken OLH (teaching example)"
    description = "Teaching example of a bug: OLH forcing g ≥ 3 with p = 1/2 (spends ln 2 whatever ε it claims)"
    paper = "LDP-Audit (Arcolezi & Gambs, PETS 2024): bugs found in public LDP code"

    def _default_g(self) -> int:
        return max(3, int(round(math.exp(self.epsilon) + 1)))

    def _hashed_probabilities(self) -> tuple[float, float]:
        return 0.5, 0.5 / (self.g - 1)


#: Mechanisms the audit (and only the audit) accepts besides the registry: examples that break their promise.
TEACHING_MECHANISMS: dict[str, type[Mechanism]] = {BrokenOLH.name: BrokenOLH}


def make_audited(name: str, epsilon: float, d: int | None = None, **params: Any) -> Mechanism:
    """A registered mechanism, or a teaching example of :data:`TEACHING_MECHANISMS`, by name.

    Parameters
    ----------
    name : str
        A registered mechanism name or ``"broken-olh"`` (case-insensitive).
    epsilon : float
        The privacy budget.
    d : int, optional
        The domain size (frequency mechanisms).
    **params
        The mechanism's own parameters.

    Returns
    -------
    Mechanism
        The configured mechanism.

    Raises
    ------
    InvalidInput
        For an unknown name or invalid parameters.
    """
    key = str(name).strip().lower()
    if key in TEACHING_MECHANISMS:
        return TEACHING_MECHANISMS[key](epsilon, d, **params)
    if key not in MECHANISMS:
        raise InvalidInput(f"unknown mechanism {name!r}; choose one of: {', '.join(MECHANISMS.names())} "
                           f"(or the teaching example {', '.join(TEACHING_MECHANISMS)})")
    return get_mechanism(key, epsilon=epsilon, d=d, **params)


def clopper_pearson(successes: np.ndarray | int, trials: int, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """One-sided Clopper–Pearson bounds at level α each: (lower, upper) on a binomial proportion.

    Parameters
    ----------
    successes : int or array_like
        Successes x out of ``trials`` (each in [0, trials]).
    trials : int
        The number of trials m.
    alpha : float
        The one-sided error of each bound, in (0, 1).

    Returns
    -------
    tuple of numpy.ndarray
        ``(lower, upper)``: Beta(α; x, m − x + 1) (0 when x = 0) and Beta(1 − α; x + 1, m − x) (1 when x = m).
    """
    from scipy import stats

    x = np.asarray(successes, dtype=np.float64)
    lower = np.where(x > 0, stats.beta.ppf(alpha, np.maximum(x, 1), trials - x + 1), 0.0)
    upper = np.where(x < trials, stats.beta.ppf(1 - alpha, x + 1, np.maximum(trials - x, 1)), 1.0)
    return lower, upper


@dataclass(frozen=True)
class AuditResult:
    """The audit's answer: ε ≥ ``epsilon_lower_bound`` with probability ``confidence``.

    Parameters
    ----------
    mechanism : str
        The audited mechanism's name.
    epsilon : float
        The ε one report claims (ε1 for a longitudinal mechanism).
    epsilon_lower_bound : float
        The certified lower bound ln(p̲₀ / p̄₁), at least 0.
    confidence : float
        1 − α.
    samples : int
        Counted reports per input.
    selection_samples : int
        Held-out reports per input that chose the event.
    inputs : tuple
        (v₀, v₁), the input whose event probability is larger first.
    event : str
        The output event E, in words.
    counts : tuple of int
        Reports in E under v₀ and under v₁.
    probabilities : tuple of float
        Those counts divided by ``samples``.
    channel_epsilon : float or None
        The mechanism's own privacy loss of its channel, when it can compute it (None for an (ε, δ) mechanism,
        whose density ratio is unbounded).
    seed : int or None
        The root seed of the reports' streams.
    delta : float, default 0
        The δ the mechanism claims beside ε (its ``delta``: 0 for pure ε-LDP). An event of probability below δ may
        exceed the ratio e^ε, so an audit of an (ε, δ) mechanism certifies ε only on events more likely than that.
    """

    mechanism: str
    epsilon: float
    epsilon_lower_bound: float
    confidence: float
    samples: int
    selection_samples: int
    inputs: tuple[Any, Any]
    event: str
    counts: tuple[int, int]
    probabilities: tuple[float, float]
    channel_epsilon: float | None
    seed: int | None
    delta: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["inputs"] = [np.asarray(v).tolist() for v in self.inputs]
        out["counts"] = list(self.counts)
        out["probabilities"] = list(self.probabilities)
        return out


def _claimed(mech: Mechanism) -> float:
    return float(getattr(mech, "epsilon_1", None) or mech.epsilon)


class _Keys:
    """Maps reports to discrete keys for one (mechanism, v₀, v₁); real-valued projections are binned with edges
    fixed from the selection samples (``fit``)."""

    def __init__(self, mech: Mechanism, v0: Any, v1: Any) -> None:
        self.mech, self.v0, self.v1 = mech, v0, v1
        self.edges: np.ndarray | None = None
        self.rows: np.ndarray | None = None
        self.kind = ""

    def _raw(self, reports: np.ndarray) -> tuple[str, np.ndarray]:
        return self.mech.output_events(reports, self.v0, self.v1)  # the mechanism says how to read its reports

    def fit(self, reports: list[np.ndarray]) -> None:
        kind, raw = zip(*(self._raw(r) for r in reports), strict=True)
        self.kind = kind[0]
        both = np.concatenate(raw)
        if self.kind == "real":
            qs = np.quantile(both, np.linspace(0, 1, BINS + 1)[1:-1])
            self.edges = np.unique(qs)
        elif self.kind in ("integer", "row"):
            values, counts = np.unique(both, return_counts=True)
            self.rows = np.sort(values[np.argsort(counts)[::-1][:4096]])

    @property
    def size(self) -> int:
        if self.kind == "support":
            return 4
        if self.kind == "real":
            return int(self.edges.size) + 1
        return int(self.rows.size) + 1  # + one key for every report not seen in selection

    def __call__(self, reports: np.ndarray) -> np.ndarray:
        kind, raw = self._raw(reports)
        if kind == "support":
            return raw
        if kind == "real":
            return np.searchsorted(self.edges, raw, side="right")
        pos = np.searchsorted(self.rows, raw)
        found = (pos < self.rows.size) & (self.rows[np.minimum(pos, self.rows.size - 1)] == raw)
        return np.where(found, pos, self.rows.size)

    def describe(self, keys: np.ndarray, names: tuple[str, str]) -> str:
        keys = [int(k) for k in keys]
        if self.kind == "support":
            label = {0: f"supports neither {names[0]} nor {names[1]}", 1: f"supports {names[1]} but not {names[0]}",
                     2: f"supports {names[0]} but not {names[1]}", 3: f"supports both {names[0]} and {names[1]}"}
            return "report " + " or ".join(label[k] for k in sorted(keys))
        if self.kind == "real":
            edges = np.concatenate([[-np.inf], self.edges, [np.inf]])
            what = self.mech.output_event_label(names)
            spans = ", ".join(f"[{edges[k]:.4g}, {edges[k + 1]:.4g})" for k in sorted(keys)[:6])
            return f"{what} in {spans}" + (f" and {len(keys) - 6} more bins" if len(keys) > 6 else "")
        if self.kind == "integer":
            shown = [str(int(self.rows[k])) if k < self.rows.size else "another" for k in sorted(keys)[:8]]
            return "report ∈ {" + ", ".join(shown) + (", …" if len(keys) > 8 else "") + "}"
        return f"one of {len(keys)} report patterns (rows hashed)"


def _best_event(c0: np.ndarray, c1: np.ndarray, m: int, alpha: float) -> tuple[np.ndarray, bool, float]:
    """The prefix of keys sorted by observed ratio with the largest Clopper–Pearson bound (either direction)."""
    best = (np.array([0]), False, -np.inf)
    for swap in (False, True):
        a, b = (c1, c0) if swap else (c0, c1)
        order = np.argsort(-((a + 0.5) / (b + 0.5)), kind="stable")
        x, y = np.cumsum(a[order]), np.cumsum(b[order])
        lo, _ = clopper_pearson(x, m, alpha / 2)
        _, hi = clopper_pearson(y, m, alpha / 2)
        with np.errstate(divide="ignore"):
            bound = np.log(lo) - np.log(hi)
        j = int(np.argmax(bound))
        if bound[j] > best[2]:
            best = (order[: j + 1], swap, float(bound[j]))
    return best


def _users(mech: Mechanism, value: Any, count: int) -> np.ndarray:
    """``count`` users holding ``value`` (a code, a number or a vector)."""
    one = np.asarray([value], dtype=np.int64 if mech.input_kind == "codes" else np.float64)
    return np.repeat(one, count, axis=0)


def _name(value: Any) -> str:
    arr = np.asarray(value)
    return str(value) if arr.ndim == 0 else "(" + ", ".join(f"{float(x):g}" for x in arr) + ")"


def _draw(mech: Mechanism, value: Any, count: int, seed: int | None, role: str, index: int,
          chunk: int) -> list[np.ndarray]:
    out = []
    for start in range(0, count, chunk):
        m = min(chunk, count - start)
        rng = rng_for(seed, "audit", mech.name, mech.epsilon, mech.d, role, index, start // chunk)
        out.append(mech.perturb(_users(mech, value, m), rng))
    return out


def audit(mechanism: Mechanism, samples: int = 100_000, seed: int | None = 0, inputs: tuple[Any, Any] | None = None,
          confidence: float = 0.95, selection: int | None = None,
          progress: Callable[[float], None] | None = None) -> AuditResult:
    """Empirical lower bound on the ε of one report of ``mechanism`` (see the module docstring).

    ``samples`` reports per input are counted (in chunks, each from its own named stream of ``seed``);
    ``selection`` further reports per input (default max(2000, samples/10)) choose the event.

    Parameters
    ----------
    mechanism : Mechanism
        The configured mechanism (see :func:`make_audited`).
    samples : int, default 100000
        Counted reports per input, in [100, 10⁸].
    seed : int or None, default 0
        Root seed of the named streams (None: fresh entropy).
    inputs : tuple, optional
        The two different inputs (v₀, v₁); default the mechanism's ``audit_inputs()``.
    confidence : float, default 0.95
        The confidence 1 − α of the bound, in [0.5, 1).
    selection : int, optional
        Held-out reports per input that choose the event (default max(2000, samples // 10)).
    progress : callable (fraction) -> None, optional
        Called with the fraction of reports drawn so far.

    Returns
    -------
    AuditResult
        The bound, the event and the counts behind it.

    Raises
    ------
    InvalidInput
        For a non-mechanism, bad ``samples`` or ``confidence``, inputs outside the mechanism's domain, or equal inputs.

    References
    ----------
    Arcolezi & Gambs, LDP-Audit, PETS 2024 (Clopper–Pearson bounds at α/2 each, Bonferroni).
    """
    if not isinstance(mechanism, Mechanism):
        raise InvalidInput("audit: give a mechanism instance (see make_audited)")
    if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) or samples < 100:
        raise InvalidInput(f"audit: samples must be an integer ≥ 100, got {samples!r}")
    if samples > 10**8:
        raise InvalidInput(f"audit: samples must be at most 1e8 per input, got {samples}")
    if not (0.5 <= confidence < 1):
        raise InvalidInput(f"audit: confidence must lie in [0.5, 1), got {confidence!r}")
    mech = mechanism
    v0, v1 = mech.audit_inputs() if inputs is None else inputs
    mech.validate_values(np.stack([np.asarray(v0), np.asarray(v1)]))
    if np.array_equal(np.asarray(v0), np.asarray(v1)):
        raise InvalidInput("audit: the two inputs must differ")
    m_sel = int(selection) if selection is not None else max(2000, samples // 10)
    alpha = 1 - confidence
    chunk = int(min(MAX_CHUNK, mech.chunk_size()))
    total = 2 * (m_sel + samples)
    done = 0

    def tick(n: int) -> None:
        nonlocal done
        done += n
        if progress is not None:
            progress(min(1.0, done / total))

    keys = _Keys(mech, v0, v1)
    sel = []
    for i, v in enumerate((v0, v1)):
        sel.append(np.concatenate(_draw(mech, v, m_sel, seed, "select", i, chunk)))
        tick(m_sel)
    keys.fit(sel)
    size = keys.size
    c_sel = [np.bincount(keys(r), minlength=size).astype(np.float64) for r in sel]
    event, swap, _ = _best_event(c_sel[0], c_sel[1], m_sel, alpha)
    del sel
    in_event = np.zeros(size, dtype=bool)
    in_event[event] = True
    counts = []
    for i, v in enumerate((v0, v1)):
        hits = 0
        for start in range(0, samples, chunk):
            m = min(chunk, samples - start)
            rng = rng_for(seed, "audit", mech.name, mech.epsilon, mech.d, "count", i, start // chunk)
            hits += int(in_event[keys(mech.perturb(_users(mech, v, m), rng))].sum())
            tick(m)
        counts.append(hits)
    hi_in, lo_in = (1, 0) if swap else (0, 1)  # the input whose probability of the event is larger comes first
    lo_b, _ = clopper_pearson(counts[hi_in], samples, alpha / 2)
    _, up_b = clopper_pearson(counts[lo_in], samples, alpha / 2)
    bound = float(np.log(lo_b) - np.log(up_b)) if lo_b > 0 else 0.0
    names = (_name(v0), _name(v1))
    try:
        channel = float(mech.privacy_loss())
    except LDPError:
        channel = None
    if channel is not None and not math.isfinite(channel):  # an (ε, δ) mechanism: no finite ratio to show
        channel = None
    return AuditResult(mech.name, _claimed(mech), max(0.0, bound), float(confidence), int(samples), m_sel,
                       ((v0, v1)[hi_in], (v0, v1)[lo_in]), keys.describe(event, names),  # inputs as given
                       (counts[hi_in], counts[lo_in]), (counts[hi_in] / samples, counts[lo_in] / samples), channel,
                       seed, delta=float(getattr(mech, "delta", 0.0)))
