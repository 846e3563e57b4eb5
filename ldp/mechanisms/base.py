"""The one mechanism protocol: a validated public API over a few private hooks (scipy.stats style).

Every kind of mechanism — categorical frequency oracles (one-time and longitudinal), numerical-distribution
mechanisms and mean mechanisms — derives from :class:`Mechanism` and
implements the same steps:

=============================  ==========================  ===============================================
step                           public method               hook a subclass implements
=============================  ==========================  ===============================================
client randomizer              ``perturb(values, rng)``    ``_perturb`` (values already validated)
inputs of a population cell    ``cell_inputs``             ``_cell_inputs`` (default: the cell is the value)
server aggregation             ``aggregate(reports)``      ``_validate_reports``, ``_aggregate``
fast engine                    ``sample_aggregate``        ``_sample_aggregate``
theory of the aggregate        ``expected_aggregate``      same name (``aggregate_variance`` too)
estimation                     ``estimate(aggregate)``     ``_estimate`` (the kind's default estimator)
privacy                        ``privacy_loss()``,         ``_channel`` (discrete) or ``_privacy_loss`` and
                               ``log_density``             ``_log_density`` (continuous)
one report                     ``report_bits``,            ``_report_bits``, ``_explain_report``,
                               ``explain_report``,         ``_attack_success`` — each with a generic
                               ``attack_success``          fallback computed from the channel
report files                   ``format_reports``,         ``_format_line``, ``_parse_line``
                               ``parse_reports``
=============================  ==========================  ===============================================

An :class:`~ldp.core.results.Aggregate` is an additive statistic of the reports (its layout is the
mechanism's: support counts, a report histogram, per-layer counts, a sum), so the exact engine can aggregate
chunk by chunk and the fast engine can draw it directly; :mod:`ldp.engines` serves every kind through these
methods and never calls a hook.

A population is given as users per input *cell* (``true_counts``, length ``cells``): a categorical value, a
bucket of a numerical domain, or — for mean mechanisms — one distinct input value, whose values are then
passed as ``support``.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator
from typing import Any, ClassVar

import numpy as np

from ldp.core.errors import InvalidInput, LDPError, NotAvailable
from ldp.core.params import DOMAIN_SIZE, EPSILON, Param, check_positive_int, resolve_params, validate_codes
from ldp.core.randomness import RandomSource, check_random_source
from ldp.core.results import Aggregate, Estimate

__all__ = ["KINDS", "Mechanism", "channel_privacy_loss", "check_int_reports", "ceil_log2"]

#: What a mechanism estimates: a frequency vector over categories, a distribution of a numerical attribute,
#: or a mean. Pages, the CLI and the conformance suite group mechanisms by it.
KINDS = {
    "frequency": "Frequency oracles (categorical values)",
    "numerical": "Numerical distributions",
    "mean": "Means of numbers",
    "vector": "Means of vectors",
}

# Target number of report cells (users × report width) held in memory by one chunk of the exact engine.
CHUNK_CELLS = 1 << 23
# Largest channel (inputs × outputs) the generic attacker fallback enumerates.
EXACT_ATTACK_CELLS = 2_000_000


def ceil_log2(x: int) -> int:
    """⌈log₂ x⌉ bits to tell x things apart (at least 1).

    Parameters
    ----------
    x : int
        The number of things (reports, values) to tell apart; 0 and 1 need one bit too.

    Returns
    -------
    int
        ``max(1, ⌈log₂ x⌉)`` — the width of the smallest fixed-length binary code for x things.
    """
    return max(1, math.ceil(math.log2(x))) if x > 1 else 1


#: The most users a population may have: 2⁵³, below which every count is exact in a float64 (and int64 sums
#: cannot overflow, which silently wrapped ten counts of 2⁶¹).
MAX_USERS = 2 ** 53


def _total_at_most(counts: np.ndarray, limit: int) -> bool:
    """Whether Σ counts ≤ ``limit``, exactly, for counts each in [0, ``limit``] with ``limit`` ≤ 2⁵³ (so every count
    is exact as a float64): the float64 sum decides unless it lies within its rounding error of the limit (below
    cells · 2⁻⁵² of the sum), and only then are the counts added as Python integers (an int64 sum could wrap)."""
    approx = float(counts.sum(dtype=np.float64))
    slack = counts.size * 2.0 ** -52 * approx
    if approx + slack < limit:
        return True
    if approx - slack > limit:
        return False
    return sum(int(c) for c in counts.ravel().tolist()) <= limit


class Mechanism(ABC):
    """A local randomizer (client) plus its server-side aggregation and default estimator.

    The constructor only validates and stores the parameters and derives defaults in ``_setup``; instances are
    immutable and hashable. Subclasses implement the private hooks listed in the module docstring; the public methods
    validate and call them (scipy.stats style), and the conformance suite checks every registered subclass.

    Parameters
    ----------
    epsilon : float
        The privacy budget ε (ε∞ of the memoized step for longitudinal mechanisms).
    d : int, optional
        The kind's domain parameter — values, buckets or dimension (default: the kind's, where it has one).
    **params
        The declared ``extra_parameters`` (``parameters_info()`` lists them with their ranges and defaults).

    Attributes
    ----------
    name, display_name, kind, collection, description, paper : str
        Registry metadata the CLI, the pages and the tests read.
    input_kind : str
        What the inputs are: "codes", "unit", "signed" or "vector".
    fast_engine_exact : bool
        Whether the fast engine draws the aggregate exactly in distribution (else ``fast_engine_note`` says what).
    population_by_support, bucketed, population_of_numbers : bool
        What a population of the kind is (users per value with the values; buckets of a numerical range; one real
        number per user): the simulation, the sweep driver and the CLI read these instead of the kind's name.
    """

    # ------------------------------------------------------------------ metadata (read by the CLI, pages, tests)
    name: ClassVar[str]
    display_name: ClassVar[str]
    kind: ClassVar[str]
    #: Frequency oracles: "one-time", or "longitudinal" (memoized; ε is ε∞ and ε1 bounds one report).
    collection: ClassVar[str] = "one-time"
    description: ClassVar[str]
    paper: ClassVar[str]
    report_format: ClassVar[str] = ""
    communication: ClassVar[str] = ""
    domain_parameter: ClassVar[Param] = DOMAIN_SIZE
    extra_parameters: ClassVar[tuple[Param, ...]] = ()
    #: What the inputs are: "codes" (integers in [0, d)), "unit" (reals in [0, 1]) or "signed" (reals in [−1, 1]).
    input_kind: ClassVar[str] = "codes"
    #: Whether a population is given by its distinct values (``support``) and users per value, any number of cells
    #: (mean and vector mechanisms), rather than users per category or bucket of a fixed domain.
    population_by_support: ClassVar[bool] = False
    #: Whether the cells are equal buckets of a numerical range (numerical distributions): a population needs
    #: real-unit bucket edges, and the metrics project estimates onto the simplex and draw range queries.
    bucketed: ClassVar[bool] = False
    #: Whether each user holds one real number whose mean is estimated (mean mechanisms): the command line reads
    #: such a population as a column of numbers in real units, not as a histogram, so histogram sweeps do not apply.
    population_of_numbers: ClassVar[bool] = False
    #: Whether reports support values with probabilities p* (own value) and q* (others) (IBU paper Def. 2).
    pure: ClassVar[bool] = False
    #: Whether the fast engine draws the aggregate exactly in distribution (else: see ``fast_engine_note``).
    fast_engine_exact: ClassVar[bool] = True
    fast_engine_note: ClassVar[str] = ""
    #: Whether the report's channel attains the full ratio e^ε (False where the mechanism knowingly
    #: post-processes a tight release, e.g. THE's threshold).
    spends_full_budget: ClassVar[bool] = True
    #: Registered estimator the mechanism's own :meth:`estimate` corresponds to.
    default_estimator: ClassVar[str]

    def __init__(self, epsilon: float, d: int | None = None, **params: Any) -> None:
        owner = self.name
        self._epsilon = EPSILON.validate(epsilon, owner)
        if d is None:
            d = self.domain_parameter.default
        self._d = self.domain_parameter.validate(d, owner)
        self._params = resolve_params(owner, self.own_parameters(), params)
        self._cache: dict[str, Any] = {}
        self._setup()

    def _setup(self) -> None:
        """Derive defaults of optional parameters and constants (hook); write defaults back into ``_params``."""

    # ------------------------------------------------------------------ parameters
    @classmethod
    def own_parameters(cls) -> tuple[Param, ...]:
        """Parameters beyond ε and the domain parameter."""
        return cls.extra_parameters

    @classmethod
    def parameter_table(cls) -> tuple[Param, ...]:
        return (EPSILON, cls.domain_parameter) + cls.own_parameters()

    @classmethod
    def parameters_info(cls) -> list[dict[str, Any]]:
        return [p.to_dict() for p in cls.parameter_table()]

    @classmethod
    def epsilon_breakpoints(cls, lo: float, hi: float, d: int | None = None,
                            params: dict[str, Any] | None = None) -> list[float] | None:
        """The ε in (lo, hi) where a parameter the mechanism derives from ε as an integer changes (OLH's g),
        sorted; ``[]`` when none does. Hook ``_epsilon_breakpoints`` gives them in closed form; None (the
        generic answer) means "not known here": callers locate them by comparing resolved parameters."""
        return cls._epsilon_breakpoints(float(lo), float(hi), d, dict(params or {}))

    @classmethod
    def _epsilon_breakpoints(cls, lo: float, hi: float, d: int | None, params: dict[str, Any]) -> list[float] | None:
        return None

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

    @property
    def cells(self) -> int:
        """Number of input cells of a population given by its counts (the domain size; mean mechanisms: any)."""
        return self._d

    def _cached(self, key: str, build: Callable[[], Any]) -> Any:
        if key not in self._cache:
            self._cache[key] = build()
        return self._cache[key]

    def __repr__(self) -> str:
        extra = "".join(f", {k}={v!r}" for k, v in self._params.items())
        return f"{type(self).__name__}(epsilon={self._epsilon!r}, d={self._d}{extra})"

    def __eq__(self, other: object) -> bool:
        return (type(self) is type(other) and self._epsilon == other._epsilon  # type: ignore[attr-defined]
                and self._d == other._d and self._params == other._params)  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._epsilon, self._d, tuple(sorted(self._params.items()))))

    # ------------------------------------------------------------------ client side
    def perturb(self, values: Iterable[Any] | np.ndarray, rng: RandomSource) -> np.ndarray:
        """Randomize each user's value into one report (the client side).

        Parameters
        ----------
        values : array_like
            One input per user, as ``input_kind`` says (codes in [0, d), reals in [0, 1] or [−1, 1], or rows of
            d reals).
        rng : numpy.random.Generator or SecureRandom
            A seeded generator (a simulation) or the operating system's secure randomness (a genuine collection).

        Returns
        -------
        numpy.ndarray
            One report per user (the first axis is the user), in the layout of ``report_format``.

        Raises
        ------
        InvalidInput
            Inputs outside the mechanism's domain, or a random source that cannot drive a randomizer.
        """
        return self._perturb(self.validate_values(values), check_random_source(rng, self.name))

    @abstractmethod
    def _perturb(self, values: np.ndarray, rng: RandomSource) -> np.ndarray: ...

    def validate_values(self, values: Any) -> np.ndarray:
        """Inputs as the mechanism takes them (see ``input_kind``); one-line :class:`LDPError` otherwise."""
        if self.input_kind == "codes":
            return validate_codes(self.name, values, self._d)
        low = 0.0 if self.input_kind == "unit" else -1.0
        arr = np.asarray(values)
        if arr.ndim != 1:
            raise InvalidInput(f"{self.name}: values must be a 1-D array of numbers in [{low:g}, 1], got shape "
                               f"{arr.shape}")
        if arr.size and not (np.issubdtype(arr.dtype, np.floating) or np.issubdtype(arr.dtype, np.integer)):
            raise InvalidInput(f"{self.name}: values must be real numbers in [{low:g}, 1], got dtype {arr.dtype}")
        arr = arr.astype(np.float64)
        bad = ~np.isfinite(arr) | (arr < low) | (arr > 1.0)
        if bad.any():
            hint = "ValueScale(lo, hi).to_unit" if low == 0.0 else "2·ValueScale(lo, hi).to_unit(x) − 1"
            raise InvalidInput(f"{self.name}: value {arr[bad][0]!r} is outside [{low:g}, 1]; map real units with "
                               f"{hint} first")
        return arr

    def cell_inputs(self, cells: np.ndarray, rng: RandomSource, support: np.ndarray | None = None) -> np.ndarray:
        """The inputs of users given by their cell index (the exact engine's population → users step)."""
        return self._cell_inputs(np.asarray(cells, dtype=np.int64), rng, support)

    def _cell_inputs(self, cells: np.ndarray, rng: RandomSource, support: np.ndarray | None) -> np.ndarray:
        return cells

    # ------------------------------------------------------------------ server side
    def aggregate(self, reports: np.ndarray, *, trusted: bool = False) -> Aggregate:
        """The server's statistic of real reports (see :class:`~ldp.core.results.Aggregate`).

        Reports are validated (``validate_reports``) at this trust boundary: whatever comes from a file, the
        network or any caller. ``trusted=True`` skips the validation and is meant only for reports this very
        mechanism's ``perturb`` has just produced in this process — the exact engine's own chunks
        (:func:`ldp.engines.run_exact`) and a composite mechanism's ``_aggregate`` handing its already validated
        parts to its inner oracles; re-checking them cost up to a third of a
        simulation. Never pass it for reports that crossed a process, file or API boundary.
        """
        if trusted:
            rep = np.asarray(reports)
            return Aggregate(np.asarray(self._aggregate(rep), dtype=np.float64), int(rep.shape[0]), "reports")
        rep = self.validate_reports(reports)
        return Aggregate(np.asarray(self._aggregate(rep), dtype=np.float64), int(rep.shape[0]), "reports")

    @abstractmethod
    def _aggregate(self, reports: np.ndarray) -> np.ndarray: ...

    def perturb_aggregate(self, values: Any, rng: RandomSource) -> Aggregate:
        """Every user's report, aggregated where it is made: what ``aggregate(perturb(values, rng), trusted=True)``
        returns, drawing the same randomness — the exact engine's path (:func:`ldp.engines.run_exact`).

        Parameters
        ----------
        values : array_like
            One input per user (as :meth:`perturb` takes them).
        rng : numpy.random.Generator or SecureRandom
            The randomness (as :meth:`perturb`).

        Returns
        -------
        Aggregate
            The reports' statistic and their number.

        Notes
        -----
        Hook ``_perturb_aggregate`` lets a family skip the report matrix when its statistic can be accumulated from
        the client's draws directly (SHE: the column sums of the noisy grid indices); it must give exactly the
        statistic of the reports the same draws would have produced. The generic fallback materialises them.
        """
        arr, source = self.validate_values(values), check_random_source(rng, self.name)
        statistic = self._perturb_aggregate(arr, source)
        if statistic is None:
            return self.aggregate(self._perturb(arr, source), trusted=True)
        return Aggregate(np.asarray(statistic, dtype=np.float64), int(arr.shape[0]), "reports")

    def _perturb_aggregate(self, values: np.ndarray, rng: RandomSource) -> np.ndarray | None:
        return None

    def validate_reports(self, reports: Any) -> np.ndarray:
        """Check the shape, type and range of a report array (hook ``_validate_reports`` does the rest)."""
        rep = np.asarray(reports)
        if rep.ndim == 0 or rep.shape[0] == 0:
            raise InvalidInput(f"{self.name}: there are no reports")
        if np.iscomplexobj(rep) or rep.dtype == object:
            raise InvalidInput(f"{self.name}: reports must be real numbers, got {rep.dtype} values")
        return self._validate_reports(rep)

    @abstractmethod
    def _validate_reports(self, reports: np.ndarray) -> np.ndarray: ...

    def statistic_size(self) -> int:
        """Length of the aggregate statistic (``Aggregate.counts``)."""
        return self._d

    def as_aggregate(self, counts: Aggregate | Any, n: int | None = None) -> Aggregate:
        """An :class:`Aggregate` of this mechanism from an aggregate or from (statistic, n), validated: the shape,
        finite numbers, n ≥ 1 and, unless the library drew or checked it (``Aggregate.trusted``: an engine's),
        what the family's statistic must satisfy (hook ``_check_statistics``) — an ``Aggregate`` built by a caller
        is checked as bare counts are, whatever its ``engine`` says."""
        if isinstance(counts, Aggregate):
            if n is not None and int(n) != counts.n:
                raise InvalidInput(f"{self.name}: n={n} disagrees with the aggregate's n={counts.n}")
            agg = counts
        else:
            if n is None:
                raise InvalidInput(f"{self.name}: give the number of reports n with the counts")
            agg = Aggregate(counts, check_positive_int(n, "n", self.name))
        size = self.statistic_size()
        if agg.counts.shape != (size,):
            raise InvalidInput(f"{self.name}: the aggregate must have {size} entries, got shape {agg.counts.shape}")
        if not agg.finite:
            raise InvalidInput(f"{self.name}: the aggregate holds NaN or infinite numbers")
        if agg.n < 1:
            raise InvalidInput(f"{self.name}: n must be a positive integer, got {agg.n}")
        if not agg.trusted:
            self._check_statistics(agg.counts[None, :], agg.n)
        return agg

    def as_aggregates(self, counts: Aggregate | Any, n: int | None = None) -> tuple[np.ndarray, int]:
        """Rows of statistics (trials × statistic), all from n reports, validated as :meth:`as_aggregate` validates
        one: the shape, finite numbers, n ≥ 1 and — unless the rows are an engine's (an ``Aggregate`` of stacked
        rows that ``Aggregate.simulated`` says an engine drew, :func:`ldp.engines.stack_aggregates`) — the family's
        conditions on every row (hook ``_check_statistics``). What an estimator's batch takes.

        Parameters
        ----------
        counts : Aggregate or array_like
            One statistic per row, shape (trials, ``statistic_size()``) (one row may be given as a vector), bare or
            as an ``Aggregate`` of all the rows.
        n : int, optional
            The reports behind every row (the aggregate's own when one is given).

        Returns
        -------
        tuple of (numpy.ndarray, int)
            The rows as float64, shape (trials, ``statistic_size()``), and n.

        Raises
        ------
        InvalidInput
            For a wrong shape, a NaN or infinite entry, n that is not a positive integer (or that disagrees with the
            aggregate's), or a row the family refuses (e.g. a pure oracle's support count outside [0, n]).
        """
        trusted = False
        if isinstance(counts, Aggregate):
            if n is not None and int(n) != counts.n:
                raise InvalidInput(f"{self.name}: n={n} disagrees with the aggregate's n={counts.n}")
            counts, n, trusted = counts.counts, counts.n, counts.trusted
        if n is None:
            raise InvalidInput(f"{self.name}: give the number of reports n with the counts")
        n = check_positive_int(n, "n", self.name)
        size = self.statistic_size()
        try:
            shape = np.shape(counts)  # checked before any float64 copy is made
        except (TypeError, ValueError):  # a ragged list
            raise InvalidInput(f"{self.name}: the statistics must be rows of numbers of one length") from None
        if len(shape) not in (1, 2) or shape[-1] != size:
            raise InvalidInput(f"{self.name}: each row of statistics must have {size} entries, got shape {shape}")
        try:
            c = np.atleast_2d(np.asarray(counts, dtype=np.float64))
        except (TypeError, ValueError):
            raise InvalidInput(f"{self.name}: the statistics must be numbers") from None
        if not np.all(np.isfinite(c)):
            raise InvalidInput(f"{self.name}: the statistics hold NaN or infinite numbers")
        if not trusted:
            self._check_statistics(c, n)
        return c, n

    def consistency_warnings(self, aggregate: Aggregate, z: float = 5.0) -> list[str]:
        """Lines saying where real reports' statistic disagrees with this configuration beyond ``z`` standard
        deviations (hook; frequency oracles check their support counts; none by default)."""
        return []

    def report_range(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The least and the most one report adds to each entry of the statistic (arrays of ``statistic_size()``),
        so that n reports' statistic lies entry by entry in [n·least, n·most]; None where the family bounds nothing
        (hook ``_report_range``). The conformance suite checks every engine's aggregates against it."""
        bounds = self._report_range()
        if bounds is None:
            return None
        size = self.statistic_size()
        return tuple(np.broadcast_to(np.asarray(b, dtype=np.float64), (size,)) for b in bounds)  # type: ignore

    def _report_range(self) -> tuple[Any, Any] | None:
        return None

    def _check_statistics(self, counts: np.ndarray, n: int) -> None:
        """Hook: what statistics given by hand (rows of ``counts``, each from n reports; not drawn by an engine)
        must satisfy beyond their shape. Generic: every entry within n times :meth:`report_range` (up to a relative
        10⁻⁹ for sums of real reports); a family adds its own conditions by overriding it."""
        bounds = self.report_range()
        if bounds is None:
            return
        least, most = n * bounds[0], n * bounds[1]
        slack = 1e-9 * np.maximum(np.abs(least), np.abs(most))
        bad = (counts < least - slack) | (counts > most + slack)
        if bad.any():
            row, col = (int(i) for i in np.argwhere(bad)[0])
            raise InvalidInput(f"{self.name}: entry {col} of the statistic is {counts[row, col]:.6g}, but {n:,} "
                               f"reports add up to between {least[col]:.6g} and {most[col]:.6g} there — a statistic "
                               "of another mechanism, ε, d or n?")

    def report_width(self) -> int:
        """Cells one report occupies in memory; sets the exact engine's chunk size."""
        return 1

    def chunk_size(self) -> int:
        """Users per chunk of the exact engine (memory ≈ chunk × report width cells)."""
        return max(1, CHUNK_CELLS // max(1, self.report_width()))  # never more cells than CHUNK_CELLS:
        # a floor of 1,024 users made OUE at d = 2²² hold 4·10⁹ cells, 9 GB, for 2,000 users)

    # ------------------------------------------------------------------ fast engine
    def check_population(self, true_counts: Any, support: Any = None) -> tuple[np.ndarray, np.ndarray | None]:
        """Users per cell as int64 (non-negative integers, at least one user), and the cells' values."""
        counts = np.asarray(true_counts)
        if counts.ndim != 1 or counts.size < 1:
            raise InvalidInput(f"{self.name}: true counts must be a 1-D array of users per cell, got shape "
                               f"{counts.shape}")
        if not self.population_by_support and counts.shape != (self.cells,):
            raise InvalidInput(f"{self.name}: true counts must have length {self.cells}, got {counts.shape[0]}")
        if not np.issubdtype(counts.dtype, np.integer):
            if not (np.issubdtype(counts.dtype, np.floating) and np.all(np.isfinite(counts))
                    and np.all(counts == np.round(counts))):
                raise InvalidInput(f"{self.name}: true counts must be non-negative integers")
        if np.any(counts < 0):
            raise InvalidInput(f"{self.name}: true counts must be non-negative integers")
        if np.any(counts > MAX_USERS) or not _total_at_most(counts, MAX_USERS):
            raise InvalidInput(f"{self.name}: at most {MAX_USERS:,} users (2⁵³, counts stay exact in a float64), "
                               "got more")
        counts = counts.astype(np.int64)
        if counts.sum() < 1:
            raise InvalidInput(f"{self.name}: need at least one user (n ≥ 1)")
        return counts, self._check_support(support, counts.size)

    def _check_support(self, support: Any, cells: int) -> np.ndarray | None:
        if support is not None:
            raise InvalidInput(f"{self.name}: a population of categories or buckets takes no support values")
        return None

    def sample_aggregate(self, true_counts: Any, rng: np.random.Generator, support: Any = None) -> Aggregate:
        """Draw the aggregate of a population directly, without simulating users (the fast engine).

        Parameters
        ----------
        true_counts : array_like of int
            Users per input cell.
        rng : numpy.random.Generator
            The collection's random stream.
        support : array_like, optional
            The cells' values (mean and vector mechanisms).

        Returns
        -------
        Aggregate
            The aggregate (``engine="fast"``), exact in distribution unless ``fast_engine_note`` says otherwise.
        """
        counts, sup = self.check_population(true_counts, support)
        stat = np.asarray(self._sample_aggregate(counts, rng, sup), dtype=np.float64)
        return Aggregate._from_engine(stat, int(counts.sum()), "fast")

    @abstractmethod
    def _sample_aggregate(self, true_counts: np.ndarray, rng: np.random.Generator,
                          support: np.ndarray | None) -> np.ndarray: ...

    # ------------------------------------------------------------------ theory of the aggregate (conformance)
    def expected_aggregate(self, true_counts: Any, support: Any = None) -> np.ndarray | None:
        """E[statistic] for the population, or None where no closed form is implemented."""
        counts, sup = self.check_population(true_counts, support)
        return self._expected_aggregate(counts, sup)

    def _expected_aggregate(self, true_counts: np.ndarray, support: np.ndarray | None) -> np.ndarray | None:
        return None

    def aggregate_variance(self, true_counts: Any, support: Any = None) -> np.ndarray | None:
        """Var[statistic] per entry for the population, or None where no closed form is implemented."""
        counts, sup = self.check_population(true_counts, support)
        return self._aggregate_variance(counts, sup)

    def _aggregate_variance(self, true_counts: np.ndarray, support: np.ndarray | None) -> np.ndarray | None:
        return None

    # ------------------------------------------------------------------ estimation
    def frequency_view(self) -> tuple[Mechanism, Callable[[np.ndarray], np.ndarray]] | None:
        """For a mechanism whose aggregate is a categorical frequency oracle's (CFO with binning): that oracle and
        the map lifting its estimate to this mechanism's domain, so every categorical estimator applies. None
        otherwise (hook)."""
        return None

    def estimate(self, aggregate: Aggregate | Any, n: int | None = None) -> Estimate:
        """The mechanism's own estimate (its ``default_estimator``) from an aggregate.

        Parameters
        ----------
        aggregate : Aggregate or array_like
            The aggregate, or its statistic (then give ``n``).
        n : int, optional
            The number of reports, with a bare statistic.

        Returns
        -------
        Estimate
            The estimate with its diagnostics (matrix inversion for frequency oracles, the kind's reconstruction for
            numerical mechanisms, the average for mean and vector mechanisms), with the consistency warnings of a
            statistic that no engine drew (:meth:`with_consistency_warnings`).
        """
        agg = self.as_aggregate(aggregate, n)
        return self.with_consistency_warnings(self._estimate(agg), agg)

    def with_consistency_warnings(self, estimate: Estimate, aggregate: Aggregate) -> Estimate:
        """``estimate`` with :meth:`consistency_warnings` of ``aggregate`` added to its warnings (those it lacks),
        unless an engine drew the aggregate (``Aggregate.simulated``): then it is this configuration's.

        Parameters
        ----------
        estimate : Estimate
            An estimate made from ``aggregate``.
        aggregate : Aggregate
            The validated aggregate.

        Returns
        -------
        Estimate
            The estimate itself, or a copy with the extra warnings.
        """
        if aggregate.simulated:
            return estimate
        extra = tuple(w for w in self.consistency_warnings(aggregate) if w not in estimate.warnings)
        return estimate.with_warnings(extra) if extra else estimate

    @abstractmethod
    def _estimate(self, aggregate: Aggregate) -> Estimate: ...

    def true_values(self, true_counts: Any, support: Any = None) -> np.ndarray:
        """What an estimate of this population should come out as: its frequencies (mean mechanisms: its mean)."""
        counts, _ = self.check_population(true_counts, support)
        return counts / counts.sum()

    def estimate_variance(self, true_counts: Any, support: Any = None) -> np.ndarray | None:
        """Closed-form variance of each entry of the default estimate, or None where there is none."""
        counts, sup = self.check_population(true_counts, support)
        return self._estimate_variance(counts, sup)

    def _estimate_variance(self, true_counts: np.ndarray, support: np.ndarray | None) -> np.ndarray | None:
        return None

    # ------------------------------------------------------------------ privacy: the exact channel
    def channel(self, max_outputs: int = 4096) -> tuple[np.ndarray, list[str]]:
        """Exact output distribution per input: matrix (inputs × outputs) and output labels (report lines).

        Only for discrete mechanisms with few outputs; :class:`LDPError` if there would be more than
        ``max_outputs`` outputs or the reports are continuous.
        """
        size = self.output_count()
        if size > max_outputs:
            raise InvalidInput(f"{self.name}: the channel has {size} outputs (more than {max_outputs}); use a smaller "
                               "domain")
        matrix, labels = self._channel()
        return np.asarray(matrix, dtype=np.float64), labels

    def output_count(self) -> int:
        """Number of distinct reports (:class:`LDPError` for continuous reports)."""
        return self._output_count()

    def _output_count(self) -> int:
        raise NotAvailable(f"{self.name}: its reports are continuous; it has no discrete channel")

    def _channel(self) -> tuple[np.ndarray, list[str]]:
        raise NotAvailable(f"{self.name}: its reports are continuous; it has no discrete channel")

    def has_discrete_channel(self) -> bool:
        try:
            self.output_count()
        except NotAvailable:
            return False
        return True

    def privacy_loss(self, max_outputs: int = 4096) -> float:
        """ln of the largest ratio Pr[y|v] / Pr[y|v'] over reports and input pairs: the ε the mechanism actually spends.

        From the exact channel where the reports are discrete (generic), else the hook ``_privacy_loss`` (the density
        ratio of a continuous mechanism, in closed form).

        Parameters
        ----------
        max_outputs : int, default 4096
            The largest channel enumerated.

        Returns
        -------
        float
            The privacy loss (``inf`` where some report is impossible under one input and possible under another).
        """
        if self.has_discrete_channel():
            return channel_privacy_loss(self.channel(max_outputs)[0])
        return float(self._privacy_loss())

    def _privacy_loss(self) -> float:
        raise NotAvailable(f"{self.name}: no privacy-loss computation for its continuous reports")

    # ------------------------------------------------------------------ privacy: (ε, δ) mechanisms
    @property
    def delta(self) -> float:
        """The δ of an (ε, δ)-LDP guarantee: 0 for the pure ε-LDP mechanisms (the default); an approximate-DP
        mechanism (e.g. the Gaussian ones) returns its parameter and implements :meth:`privacy_profile`."""
        return 0.0

    def privacy_profile(self, epsilon: float) -> float:
        """δ(ε'): the smallest δ such that one report is (ε', δ)-LDP — the largest hockey-stick divergence
        ∫ (f(y | v) − e^{ε'} f(y | v'))₊ dy over pairs of inputs (hook ``_privacy_profile``). A pure ε-LDP mechanism
        has δ(ε') = 0 for ε' at or above its :meth:`privacy_loss`; below it, and for mechanisms without a closed
        form, :class:`NotAvailable`."""
        eps = float(epsilon)
        if not (math.isfinite(eps) and eps >= 0.0):
            raise InvalidInput(f"{self.name}: the privacy profile takes ε' ≥ 0, got {epsilon!r}")
        return float(self._privacy_profile(eps))

    def _privacy_profile(self, epsilon: float) -> float:
        if self.delta == 0.0 and epsilon >= self.privacy_loss():
            return 0.0
        raise NotAvailable(f"{self.name}: no closed-form privacy profile below its privacy loss")

    def log_density(self, reports: Any, inputs: Any) -> np.ndarray:
        """ln Pr[report | input] — a density for continuous reports, a probability for the discrete reports of
        continuous inputs — for every (report, input) pair: an array of shape (reports, inputs).

        The object of the density-ratio privacy check of mechanisms without a finite channel: the largest
        ln f(y | v) − ln f(y | v') over reports y and inputs v, v' is the privacy loss (hook ``_log_density``;
        :class:`LDPError` where a mechanism has a discrete channel instead, or no density).
        """
        rep = self.validate_reports(reports)
        values = self.validate_values(inputs)
        if values.size == 0:
            raise InvalidInput(f"{self.name}: give at least one input")
        return np.asarray(self._log_density(rep, values), dtype=np.float64)

    def _log_density(self, reports: np.ndarray, inputs: np.ndarray) -> np.ndarray:
        if self.has_discrete_channel():
            raise NotAvailable(f"{self.name}: its reports are discrete; read Pr[report | input] from channel()")
        raise NotAvailable(f"{self.name}: no report density is implemented")

    # ------------------------------------------------------------------ a client in a browser (the classroom)
    #: Whether the classroom's JavaScript client (ldp/classroom/static/randomizer.js) implements this mechanism.
    browser_client: ClassVar[bool] = False

    def randomizer_parameters(self) -> dict[str, Any]:
        """What a client in another language needs besides the input: the probabilities and constants computed
        here (so the client never evaluates exp itself, whose last bit may differ between engines). Hook
        ``_randomizer_parameters``; :class:`NotAvailable` where no such client exists."""
        out = self._randomizer_parameters()
        if out is None:
            raise NotAvailable(f"{self.name}: no client outside Python implements it")
        return out

    def _randomizer_parameters(self) -> dict[str, Any] | None:
        return None

    def impossible_report(self, text: str) -> str | None:
        """Why one report line (valid in form) is one this mechanism can never produce at this ε — a forged report
        — or None (hook; e.g. the Piecewise Mechanism's reports beyond ±s or off its output grid)."""
        return None

    # ------------------------------------------------------------------ privacy: what an auditor reads
    def audit_inputs(self) -> tuple[Any, Any]:
        """Two inputs whose reports differ the most (the privacy audit's default pair): codes 0 and 1, or the two
        ends of the input interval (hook; vector mechanisms: opposite corners)."""
        if self.input_kind == "codes":
            if self._d < 2:
                raise InvalidInput(f"audit: {self.name} needs a domain of at least 2 values")
            return 0, 1
        return (0.0, 1.0) if self.input_kind == "unit" else (-1.0, 1.0)

    def output_events(self, reports: np.ndarray, v0: Any, v1: Any) -> tuple[str, np.ndarray]:
        """How the privacy audit reads reports when it tells input ``v0`` from ``v1``: ``(kind, keys)`` — kind
        "support" (keys 0–3: 2·[supports v0] + [supports v1]), "real" (a real statistic the audit bins), "integer"
        (the report itself) or "row" (a hash of each report row). Hook ``_output_events`` gives a family's reading;
        the generic fallback reads the report as it is."""
        out = self._output_events(reports, v0, v1)
        if out is not None:
            return out
        if reports.ndim == 1:
            if np.issubdtype(reports.dtype, np.floating):
                return "real", reports.astype(np.float64)
            return "integer", reports.astype(np.int64)
        rows = np.ascontiguousarray(reports.reshape(reports.shape[0], -1))
        mix = np.random.default_rng(12345).integers(1, 2**61, size=rows.shape[1])
        if np.issubdtype(reports.dtype, np.floating):
            return "row", (rows.astype(np.float64) * mix.astype(np.float64)).sum(axis=1)
        return "row", (rows.astype(np.int64) * mix).sum(axis=1)

    def _output_events(self, reports: np.ndarray, v0: Any, v1: Any) -> tuple[str, np.ndarray] | None:
        return None

    def output_event_label(self, names: tuple[str, str]) -> str:
        """What the "real" statistic of :meth:`output_events` is, in words (hook)."""
        return "report"

    # ------------------------------------------------------------------ one report, for people
    def attack_success(self, prior: Any) -> float | None:
        """Success probability of the Bayes-optimal attacker who sees one report and knows the prior over
        inputs: Σ_y max_v π_v Pr[y | v] (None where it is not computed, e.g. continuous reports).

        Hook ``_attack_success(prior)`` gives a family's closed form; the generic fallback enumerates the
        exact channel when it has at most ``EXACT_ATTACK_CELLS`` entries.
        """
        pi = np.asarray(prior, dtype=np.float64)
        if pi.shape != (self._d,):
            raise InvalidInput(f"{self.name}: the prior must have one probability per value (d={self._d}), got shape "
                               f"{pi.shape}")
        if not np.all(np.isfinite(pi)) or np.any(pi < 0) or pi.sum() <= 0:
            raise InvalidInput(f"{self.name}: the prior must be finite, non-negative, with a positive sum")
        pi = pi / pi.sum()
        try:
            small = self._d * self.output_count() <= EXACT_ATTACK_CELLS
        except NotAvailable:
            small = False
        if small:
            matrix = self.channel(max_outputs=EXACT_ATTACK_CELLS)[0]
            return float((pi[:, None] * matrix).max(axis=0).sum())
        return self._attack_success(pi)

    def _attack_success(self, prior: np.ndarray) -> float | None:
        return None

    def report_bits(self) -> int:
        """Size of one report in bits as this implementation encodes it (the lecture's 'communication')."""
        return int(self._report_bits())

    def _report_bits(self) -> int:
        return ceil_log2(self.output_count())

    def report_bits_formula(self) -> str:
        """The formula behind :meth:`report_bits`, in words."""
        return "⌈log₂ (number of possible reports)⌉"

    def explain_report(self, report_text: str) -> str:
        """How to read one report of this mechanism (one sentence)."""
        return self._explain_report(report_text)

    def _explain_report(self, report_text: str) -> str:
        return f"A report of {self.display_name}: {self.report_format}."

    # ------------------------------------------------------------------ report files
    def format_reports(self, reports: np.ndarray) -> Iterator[str]:
        """One line of text per report (see ``report_format``)."""
        return self._format_reports(self.validate_reports(reports))

    def _format_reports(self, reports: np.ndarray) -> Iterator[str]:
        if reports.ndim == 1:
            return (str(int(x)) for x in reports)
        return (" ".join(str(int(x)) for x in row) for row in reports)

    def parse_reports(self, lines: Iterable[str]) -> np.ndarray:
        """Inverse of :meth:`format_reports`; :class:`LDPError` naming the first bad line."""
        rows: list[list[Any]] = []
        for number, raw in enumerate(lines, start=1):
            line = raw.strip()
            if not line:
                continue
            try:
                rows.append(self._parse_line(line))
            except LDPError as exc:
                raise InvalidInput(f"report line {number}: {exc}") from None
        if not rows:
            raise InvalidInput(f"{self.name}: the report file holds no reports")
        widths = {len(r) for r in rows}
        if len(widths) != 1:
            raise InvalidInput(f"{self.name}: reports have different lengths {sorted(widths)[:4]}; expected "
                               f"{self.report_format}")
        try:
            arr = np.asarray(rows, dtype=self._report_dtype())
        except OverflowError:
            raise InvalidInput(f"{self.name}: report entries out of range") from None
        if arr.shape[1] == 1 and self._scalar_reports():
            arr = arr[:, 0]
        return self.validate_reports(arr)

    def _report_dtype(self) -> Any:
        return np.int64

    def _scalar_reports(self) -> bool:
        return False

    def _parse_line(self, line: str) -> list[Any]:
        try:
            return [int(tok) for tok in line.split()]
        except ValueError:
            raise InvalidInput(f"not a {self.name} report ({self.report_format}): {line[:60]!r}") from None


def channel_privacy_loss(matrix: np.ndarray) -> float:
    """max over outputs y and inputs v, v' of ln(Pr[y|v] / Pr[y|v']) for an inputs × outputs channel.

    Outputs no input can produce (an all-zero column) are ignored.

    Parameters
    ----------
    matrix : array_like, shape (inputs, outputs)
        The channel: row v holds Pr[y | v] over the outputs y.

    Returns
    -------
    float
        The privacy loss ε actually spent (the ln of the largest column ratio); ``inf`` where some output is
        possible under one input and impossible under another.

    References
    ----------
    The ε-LDP condition Pr[y | v] ≤ e^ε Pr[y | v'] (IBU vs matrix inversion paper, Definition 1).
    """
    m = np.asarray(matrix, dtype=np.float64)
    hi = m.max(axis=0)
    lo = m.min(axis=0)
    live = hi > 0
    if np.any(lo[live] == 0):
        return math.inf
    return float(np.log(hi[live] / lo[live]).max())


def check_int_reports(name: str, reports: np.ndarray, low: int, high: int, what: str) -> np.ndarray:
    """Integer reports within [low, high); one-line :class:`LDPError` otherwise.

    Booleans and floats holding whole numbers are accepted and converted to int64.

    Parameters
    ----------
    name : str
        The mechanism's name, the start of the error message.
    reports : numpy.ndarray
        The reports to check (any shape).
    low, high : int
        The allowed range of every entry, ``low`` included and ``high`` excluded.
    what : str
        What the entries are, in words, for the error message (e.g. "reports", "hash seeds").

    Returns
    -------
    numpy.ndarray
        The reports as integers (the same array when it already had an integer dtype), same shape.

    Raises
    ------
    InvalidInput
        An entry that is not a whole number, or one outside [low, high).
    """
    if reports.size and not np.issubdtype(reports.dtype, np.integer):
        if np.issubdtype(reports.dtype, np.bool_):
            reports = reports.astype(np.int64)
        elif np.issubdtype(reports.dtype, np.floating) and np.all(np.isfinite(reports)) \
                and np.all(reports == np.round(reports)):
            reports = reports.astype(np.int64)
        else:
            raise InvalidInput(f"{name}: {what} must be integers, got dtype {reports.dtype}")
    if reports.size and (reports.min() < low or reports.max() >= high):
        raise InvalidInput(f"{name}: {what} out of range [{low}, {high}) — is this a report file of another "
                           "mechanism or domain?")
    return reports
