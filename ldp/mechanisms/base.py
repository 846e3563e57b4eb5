"""The mechanism base class: validated public API over a few private hooks (scipy.stats style).

A concrete mechanism declares its metadata and extra parameters and implements
``_perturb`` (client randomizer), ``_support_counts`` (server aggregation), ``_sample_counts`` (fast
engine), ``_probabilities`` (p*, q*) and, for small domains, ``_channel`` (exact output distribution
per input). Everything users call — validation of parameters, values and reports, matrix
inversion, the closed-form variance, report files — lives here once.

Notation follows the IBU paper (Arcolezi et al., DBSec 2023): a mechanism is *pure* (Def. 2) when a
report supports the user's own value with probability p* and any other value with probability
q* < p*; matrix inversion is Eq. (2): f̂(v) = (C(v) − n q*) / (n (p* − q*)), where C(v) is the
number of reports supporting v.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator
from typing import Any, ClassVar

import numpy as np

from ldp.core.params import DOMAIN_SIZE, EPSILON, Param, resolve_params, validate_codes
from ldp.core.randomness import RandomSource

EPSILON_1 = Param("epsilon_1", float, "ε1: privacy of a single report (second step); default ε∞/2",
                  low=0.0, low_inclusive=False, optional=True)

# Target number of report cells (users × report width) held in memory by one chunk of the exact engine.
CHUNK_CELLS = 1 << 23


class Mechanism(ABC):
    """A local randomizer plus its server-side aggregation.

    Construct with ``Mechanism(epsilon, d, **params)``; the constructor only validates and stores
    parameters (and derives p*, q*). Instances are immutable.
    """

    name: ClassVar[str]
    display_name: ClassVar[str]
    kind: ClassVar[str] = "one-time"  # "one-time" | "longitudinal"
    family: ClassVar[str]
    description: ClassVar[str]
    paper: ClassVar[str]
    extra_parameters: ClassVar[tuple[Param, ...]] = ()
    pure: ClassVar[bool] = True
    # Whether the fast engine samples support counts exactly in distribution (else: exact mean and
    # covariance, see the class docstring).
    fast_engine_exact: ClassVar[bool] = True
    # Whether the discrete channel of the reports attains the full ratio e^ε (False where the
    # mechanism knowingly post-processes a tight release, e.g. THE's threshold).
    spends_full_budget: ClassVar[bool] = True
    report_format: ClassVar[str]
    communication: ClassVar[str] = ""

    def __init__(self, epsilon: float, d: int, **params: Any) -> None:
        owner = self.name
        self._epsilon = EPSILON.validate(epsilon, owner)
        self._d = DOMAIN_SIZE.validate(d, owner)
        self._params = resolve_params(owner, self.own_parameters(), params)
        self._setup()
        p_star, q_star = self._probabilities()
        self._p_star, self._q_star = float(p_star), float(q_star)
        if self.pure and not (0.0 <= self._q_star < self._p_star <= 1.0):
            raise ValueError(f"{owner}: parameters give p*={self._p_star:.6g} ≤ q*={self._q_star:.6g}; "
                             "the mechanism would carry no information")

    # ----------------------------------------------------------------- metadata and parameters
    @classmethod
    def own_parameters(cls) -> tuple[Param, ...]:
        """Parameters beyond ε and d (ε1 for longitudinal mechanisms, g, ω, θ, …)."""
        extra = (EPSILON_1,) if cls.kind == "longitudinal" else ()
        return extra + cls.extra_parameters

    @classmethod
    def parameter_table(cls) -> tuple[Param, ...]:
        return (EPSILON, DOMAIN_SIZE) + cls.own_parameters()

    @classmethod
    def parameters_info(cls) -> list[dict[str, Any]]:
        return [p.to_dict() for p in cls.parameter_table()]

    @property
    def epsilon(self) -> float:
        return self._epsilon

    @property
    def d(self) -> int:
        return self._d

    @property
    def params(self) -> dict[str, Any]:
        """Resolved mechanism-specific parameters (derived defaults filled in)."""
        return dict(self._params)

    def _setup(self) -> None:
        """Derive defaults of optional parameters (hook)."""

    def __repr__(self) -> str:
        extra = "".join(f", {k}={v!r}" for k, v in self._params.items())
        return f"{type(self).__name__}(epsilon={self._epsilon!r}, d={self._d}{extra})"

    def __eq__(self, other: object) -> bool:
        return (type(self) is type(other) and self._epsilon == other._epsilon  # type: ignore[attr-defined]
                and self._d == other._d and self._params == other._params)  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._epsilon, self._d, tuple(sorted(self._params.items()))))

    # ----------------------------------------------------------------- pure-LDP parameters
    @property
    def p_star(self) -> float:
        """Probability that a report supports the user's own value (Def. 2 of the IBU paper)."""
        return self._p_star

    @property
    def q_star(self) -> float:
        """Probability that a report supports a given other value (Def. 2 of the IBU paper)."""
        return self._q_star

    @abstractmethod
    def _probabilities(self) -> tuple[float, float]: ...

    # ----------------------------------------------------------------- client side
    def perturb(self, values: Iterable[int] | np.ndarray, rng: RandomSource) -> np.ndarray:
        """Randomize each user's value (integers in [0, d)) into one report per user.

        Returns a numpy array whose first axis is the user; its layout is ``report_format``.
        """
        arr = self.validate_values(values)
        return self._perturb(arr, rng)

    @abstractmethod
    def _perturb(self, values: np.ndarray, rng: RandomSource) -> np.ndarray: ...

    def validate_values(self, values: Iterable[int] | np.ndarray) -> np.ndarray:
        return validate_codes(self.name, values, self._d)

    # ----------------------------------------------------------------- server side
    def support_counts(self, reports: np.ndarray) -> np.ndarray:
        """C(v) = number of reports that support v, for every v (float64, length d)."""
        rep = self.validate_reports(reports)
        return np.asarray(self._support_counts(rep), dtype=np.float64)

    @abstractmethod
    def _support_counts(self, reports: np.ndarray) -> np.ndarray: ...

    def validate_reports(self, reports: np.ndarray) -> np.ndarray:
        """Check shape, dtype and range of a report array; hook ``_validate_reports`` does the rest."""
        rep = np.asarray(reports)
        if rep.shape[:1] == (0,):
            raise ValueError(f"{self.name}: there are no reports")
        return self._validate_reports(rep)

    @abstractmethod
    def _validate_reports(self, reports: np.ndarray) -> np.ndarray: ...

    def report_width(self) -> int:
        """Cells one report occupies in memory; sets the exact engine's chunk size."""
        return 1

    def chunk_size(self) -> int:
        return max(1024, CHUNK_CELLS // max(1, self.report_width()))

    # ----------------------------------------------------------------- fast engine hook
    def sample_support_counts(self, true_counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Draw the support-count vector of n = sum(true_counts) users directly (the fast engine)."""
        counts = np.asarray(true_counts)
        if counts.shape != (self._d,):
            raise ValueError(f"{self.name}: true counts must have length d={self._d}, got {counts.shape}")
        if np.any(counts < 0):
            raise ValueError(f"{self.name}: true counts must be non-negative")
        return np.asarray(self._sample_counts(counts.astype(np.int64), rng), dtype=np.float64)

    @abstractmethod
    def _sample_counts(self, true_counts: np.ndarray, rng: np.random.Generator) -> np.ndarray: ...

    # ----------------------------------------------------------------- estimation and theory
    def estimate(self, counts: np.ndarray, n: int) -> np.ndarray:
        """Matrix inversion, Eq. (2) of the IBU paper: unbiased, unclipped."""
        c = np.asarray(counts, dtype=np.float64)
        return (c - n * self._q_star) / (n * (self._p_star - self._q_star))

    def variance(self, freqs: np.ndarray | float, n: int) -> np.ndarray:
        """Closed-form variance of the matrix-inversion estimate f̂(v) for true frequency f(v).

        Each user's support indicator for v is Bernoulli(p*) if they hold v and Bernoulli(q*)
        otherwise, independently across users, so
        Var[f̂(v)] = [f p*(1−p*) + (1−f) q*(1−q*)] / (n (p*−q*)²)
        (Wang et al. 2017, Eq. (2); its f → 0 limit is the lecture's comparison table).
        """
        f = np.asarray(freqs, dtype=np.float64)
        p, q = self._p_star, self._q_star
        return (f * p * (1 - p) + (1 - f) * q * (1 - q)) / (n * (p - q) ** 2)

    def approximate_variance(self, n: int) -> float:
        """Var of f̂(v) for a value of negligible frequency (the lecture's table entry divided by n)."""
        return float(self.variance(0.0, n))

    # ----------------------------------------------------------------- exact channel (tests, Learn page)
    def channel(self, max_outputs: int = 4096) -> tuple[np.ndarray, list[str]]:
        """Exact output distribution per input: matrix (d × |Y|) and output labels.

        Enumerates every output (or every hash function / subset with the output), so only small
        domains are allowed; raises ``ValueError`` if there would be more than ``max_outputs``.
        """
        size = self._output_count()
        if size > max_outputs:
            raise ValueError(f"{self.name}: the channel has {size} outputs (more than {max_outputs}); "
                             "use a smaller domain")
        matrix, labels = self._channel()
        return np.asarray(matrix, dtype=np.float64), labels

    def _output_count(self) -> int:
        raise ValueError(f"{self.name}: has no discrete channel")

    def _channel(self) -> tuple[np.ndarray, list[str]]:  # pragma: no cover - overridden
        raise ValueError(f"{self.name}: has no discrete channel")

    def privacy_loss(self, max_outputs: int = 4096) -> float:
        """ln of the largest ratio Pr[y|v] / Pr[y|v'] over outputs and input pairs (exact channel)."""
        matrix, _ = self.channel(max_outputs)
        return channel_privacy_loss(matrix)

    # ----------------------------------------------------------------- report files
    def format_reports(self, reports: np.ndarray) -> Iterator[str]:
        """One line of text per report (see ``report_format``)."""
        rep = self.validate_reports(reports)
        return self._format_reports(rep)

    def _format_reports(self, reports: np.ndarray) -> Iterator[str]:
        if reports.ndim == 1:
            return (str(int(x)) for x in reports)
        return (" ".join(str(int(x)) for x in row) for row in reports)

    def parse_reports(self, lines: Iterable[str]) -> np.ndarray:
        """Inverse of :meth:`format_reports`; ``ValueError`` naming the first bad line."""
        rows: list[list[int]] = []
        for number, raw in enumerate(lines, start=1):
            line = raw.strip()
            if not line:
                continue
            try:
                rows.append(self._parse_line(line))
            except ValueError as exc:
                raise ValueError(f"report line {number}: {exc}") from None
        if not rows:
            raise ValueError(f"{self.name}: the report file holds no reports")
        widths = {len(r) for r in rows}
        if len(widths) != 1:
            raise ValueError(f"{self.name}: reports have different lengths {sorted(widths)[:4]}; "
                             f"expected {self.report_format}")
        try:
            arr = np.asarray(rows, dtype=np.int64)
        except OverflowError:
            raise ValueError(f"{self.name}: report entries out of range") from None
        if arr.shape[1] == 1 and self._scalar_reports():
            arr = arr[:, 0]
        return self.validate_reports(arr)

    def _scalar_reports(self) -> bool:
        return False

    def _parse_line(self, line: str) -> list[int]:
        try:
            return [int(tok) for tok in line.split()]
        except ValueError:
            raise ValueError(f"not a {self.name} report ({self.report_format}): {line[:60]!r}") from None


def channel_privacy_loss(matrix: np.ndarray) -> float:
    """max over outputs y and inputs v, v' of ln(Pr[y|v] / Pr[y|v']) for a d × |Y| channel."""
    m = np.asarray(matrix, dtype=np.float64)
    hi = m.max(axis=0)
    lo = m.min(axis=0)
    live = hi > 0
    if np.any(lo[live] == 0):
        return math.inf
    return float(np.log(hi[live] / lo[live]).max())


def check_int_reports(name: str, reports: np.ndarray, low: int, high: int, what: str) -> np.ndarray:
    """Integer reports within [low, high); one-line errors otherwise."""
    if reports.size and not np.issubdtype(reports.dtype, np.integer):
        if np.issubdtype(reports.dtype, np.bool_):
            reports = reports.astype(np.int64)
        elif np.issubdtype(reports.dtype, np.floating) and np.all(reports == np.round(reports)):
            reports = reports.astype(np.int64)
        else:
            raise TypeError(f"{name}: {what} must be integers, got dtype {reports.dtype}")
    if reports.size and (reports.min() < low or reports.max() >= high):
        raise ValueError(f"{name}: {what} out of range [{low}, {high}) — is this a report file of "
                         "another mechanism or domain?")
    return reports
