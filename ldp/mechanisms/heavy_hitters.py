"""Heavy hitters under LDP: the k most frequent values of a domain of 2^m values (m up to 64), too large to ask a
frequency oracle about every value (the LDP lecture, "Heavy Hitter Estimation").

The protocols here share one client: a **registered frequency oracle over the round's prefix domain**, OLH by
default (parameter ``oracle``: any registered one-time frequency oracle that can serve the domain). Round j's oracle
is ``MECHANISMS.get(oracle).over_bits(ε, L_j)``, over the 2^{L_j} prefixes of L_j bits: while 2^{L_j} is within the
mechanisms' domain range (2^24) it is the registered mechanism as it is (OLH with Carter–Wegman hashing, whose
ε-LDP at the boundary the conformance suite checks on its exact channel); beyond, OLH hashes the prefix's 64 bits
with a seeded SplitMix64 (``hash="mix64"``: a fresh 63-bit seed per user, GRR over the g = round(e^ε + 1) hash
values, so for a fixed seed the two report probabilities are p = e^ε/(e^ε + g − 1) and p/e^ε whatever the hash),
and oracles that must enumerate their domain (GRR, the unary encodings) are refused with :class:`NotAvailable`.
The server never enumerates a prefix domain: it asks the oracle for the support counts of the round's candidates
only (``estimate_candidates``), f̃(c) = (C(c)/n_L − q*)/(p* − q*), unbiased for the fraction of the round's users
whose prefix is c, with variance ≈ q*(1 − q*)/(n_L (p* − q*)²) for a rare c (the oracle's
``approximate_variance``; the detection limit is 3 of its standard deviations).

Every prefix length has its own group of users and its own oracle: prefixes of different lengths never share one,
so "01" and "1" cannot collide (a pitfall of public code). Thresholds are compared on the frequency scale of the
group's own estimates.

- :class:`PEM` (Wang, Li, Jha, TDSC 2021; the lecture's state of the art): g groups; group j reports its prefix of
  γ + jη bits (γ = ⌈log₂ k⌉, the last group all m bits); the server starts from all 2^{γ+η} prefixes, keeps the
  top k (or those above a threshold) and extends each survivor by all 2^η suffixes for the next group; the last
  group's estimates are the frequencies (each group is a uniform sample of the users, so its frequencies estimate
  the population's).
- :class:`TreeHist` as the lecture describes it (Bassily et al., NIPS'17): m groups, one more bit per level.
- :class:`PrivTrie` as the lecture presents it (Wang et al., ICDE'18): interactive, a trie grown one bit per level;
  each user answers one bit — randomized response on "is my value under this node?" — about one node of her level,
  and the levels near the root, whose frontiers are small, get fewer users.
- :class:`SegmentProduct` — the lecture's first solution: s groups each report one m/s-bit segment, the server
  finds the top k patterns of each segment and returns their Cartesian product (k^s candidates: the drawback made
  visible), ranked by the product of the segment frequencies (an independence guess, as the lecture's drawback says).
"""

from __future__ import annotations

import functools
import itertools
import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from ldp.core.cancellation import checkpoint
from ldp.core.errors import InvalidInput
from ldp.core.params import EPSILON, Param
from ldp.core.registry import MECHANISMS, PROTOCOLS
from ldp.mechanisms.frequency.base import FrequencyOracle
from ldp.mechanisms.frequency.local_hashing import mix64
from ldp.mechanisms.prefix_allocation import Allocation, optimise_allocation, prefix_lengths, uniform_expected_found
from ldp.mechanisms.protocol import Protocol

__all__ = ["PEM", "HeavyHitterMethod", "HeavyHitterResult", "MultipleChannel", "PrivTrie", "Round", "SegmentPair",
           "SegmentProduct", "TreeHist", "get_heavy_hitter_method", "round_oracle", "true_heavy_hitters"]

BITS = Param("bits", int, "bits m of each value (a domain of 2^m values)", default=32, low=1, high=64)
TOP_K = Param("top_k", int, "heavy hitters k to find", default=16, low=1, high=4096)
ETA = Param("eta", int, "bits added per round", default=4, low=1, high=20)
START = Param("start", int, "the first round's extra bits γ (default ⌈log₂ k⌉)", optional=True, low=0, high=63)
THRESHOLD = Param("threshold", float, "keep candidates above this frequency instead of the top k", optional=True,
                  low=0.0, high=1.0, high_inclusive=False)
SEGMENTS = Param("segments", int, "segments of the bits", default=4, low=1, high=16)
PAIR_SEGMENTS = Param("segments", int, "segments of the bits", default=4, low=2, high=8)
CHANNELS = Param("channels", int, "channels", default=64, low=2, high=4096)
GROUPS = Param("groups", str, "group sizes and bits per round: 'uniform' (equal groups, eta bits per round) or "
               "'optimised' (solved for the expected number found, at most eta bits per round; "
               "ldp.mechanisms.prefix_allocation)", default="uniform", choices=("uniform", "optimised"))
KEEP = Param("keep", int, "nodes kept per level of the trie (default 2k)", optional=True, low=1, high=4096)
ORACLE = Param("oracle", str, "each round's frequency oracle: a registered one-time frequency oracle that can serve "
               "the round's prefix domain (olh: any; grr, oue, …: up to 2^24 values)", default="olh")
#: Candidates per round the server may probe (the lecture: "the constraint will be the computational power").
MAX_CANDIDATES = 1 << 20
#: (users × channels) cells per block of the Multiple Channel simulation.
BLOCK_CELLS = 1 << 22
#: Report cells (users × numbers per report) one round may hold: a unary encoding over 2^20 prefixes would hold
#: n·2^20 bits.
MAX_REPORT_CELLS = 1 << 28
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def round_oracle(name: str, epsilon: float, bits: int) -> FrequencyOracle:
    """The registered frequency oracle ``name`` at ε over the 2^bits prefixes of a round (``over_bits``).

    Parameters
    ----------
    name : str
        A registered one-time frequency oracle with pure reports ("olh", "grr", "oue", ...).
    epsilon : float
        The privacy budget ε of every report of the round.
    bits : int
        The prefix length L of the round: the oracle's domain is the 2^L prefixes.

    Returns
    -------
    FrequencyOracle
        The oracle over 2^bits values: the registered mechanism itself up to 2^24 values; beyond, OLH with the
        seeded 64-bit hash (``hash="mix64"``).

    Raises
    ------
    InvalidInput
        A name that is not a registered one-time frequency oracle with pure reports (supports of values).
    NotAvailable
        An oracle that cannot serve a domain of 2^bits values (it would enumerate it).
    """
    cls = MECHANISMS.get(name)
    if cls.kind != "frequency" or cls.collection != "one-time" or not cls.pure:
        raise InvalidInput(f"oracle {name!r} is not a one-time frequency oracle whose reports support values; "
                           "choose e.g. olh, grr or oue")
    return cls.over_bits(epsilon, bits)


@dataclass(frozen=True)
class Round:
    """One prefix length: its candidates' estimates, the survivors, and the detection limit (3σ).

    Attributes
    ----------
    length : int
        The prefix length in bits (a segment's or a pair's width for the segment methods).
    users : int
        The users of the round's group.
    candidates : numpy.ndarray of uint64
        The prefixes the server probed.
    estimates : numpy.ndarray of float
        Their estimated frequencies among the group's users (same length as ``candidates``).
    survivors : numpy.ndarray of int
        Indices into ``candidates`` of those kept (best first), extended in the next round.
    detection_limit : float
        3 standard deviations of a rare candidate's estimate: a frequency below it is indistinguishable from 0.
    """

    length: int
    users: int
    candidates: np.ndarray
    estimates: np.ndarray
    survivors: np.ndarray
    detection_limit: float


@dataclass(frozen=True)
class HeavyHitterResult:
    """What a heavy-hitter protocol found: values (best first) with their estimated frequencies, the rounds, and
    the number of candidates the server probed.

    Attributes
    ----------
    method : str
        The registered protocol's name.
    epsilon : float
        The privacy budget of every user's report.
    bits : int
        Bits m of each value.
    top_k : int
        The number k of heavy hitters asked for.
    users : int
        The number of users n.
    values : numpy.ndarray of uint64
        The heavy hitters found, best first (at most k).
    estimates : numpy.ndarray of float
        Their estimated frequencies (fractions of the users); segments and segment-pair give scores built from the
        segments' estimates, multiple-channel each channel's signal strength (see ``notes``).
    rounds : tuple of Round
        Every round of the server, in order.
    parameters : dict
        The protocol's resolved parameters (and its plan, e.g. PEM's optimised shares).
    notes : tuple of str
        What to know when reading the result (e.g. how the segment methods' scores are made).
    """

    method: str
    epsilon: float
    bits: int
    top_k: int
    users: int
    values: np.ndarray
    estimates: np.ndarray
    rounds: tuple[Round, ...]
    parameters: dict[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def candidates_probed(self) -> int:
        return int(sum(r.candidates.size for r in self.rounds))

    def found(self) -> list[dict[str, Any]]:
        return [{"value": int(v), "estimate": float(e)} for v, e in zip(self.values, self.estimates, strict=True)]


class HeavyHitterMethod(Protocol, ABC):
    """A heavy-hitter protocol (registry ``PROTOCOLS``, kind ``heavy-hitters``): constructors store and validate
    parameters only; :meth:`run` simulates every user's report on the client and the server's rounds.

    Parameters
    ----------
    epsilon : float
        The privacy budget ε of each user's one report (in [1e-4, 50]).
    bits : int
        Bits m of each value: the domain is the 2^m integers in [0, 2^m) (1 to 64).
    top_k : int
        The number k of heavy hitters to find (1 to 4096).
    **params
        The subclass's own ``declared_parameters`` (e.g. ``eta``, ``oracle``).

    Raises
    ------
    InvalidInput
        A parameter out of its range, or one the protocol does not declare.

    References
    ----------
    The LDP lecture, slides "The heavy hitter problem" to "Optimize expected utility".
    """

    kind: ClassVar[str] = "heavy-hitters"
    client: ClassVar[str] = ("a registered frequency oracle (parameter oracle, OLH by default) over the round's "
                             "prefix domain: OLH hashes the prefix with a fresh hash per user, GRR over "
                             "g = round(e^ε + 1) hash values")
    cli_command: ClassVar[str] = "heavy-hitters"
    declared_parameters: ClassVar[tuple[Param, ...]] = (BITS, TOP_K)

    def __init__(self, epsilon: float, bits: int, top_k: int, **params: Any) -> None:
        self.epsilon = EPSILON.validate(epsilon, self.name)
        self.bits = BITS.validate(bits, self.name)
        self.top_k = TOP_K.validate(top_k, self.name)
        self._setup(**params)

    #: The small instance (bits, k, parameters) whose clients' exact channels the ε-LDP check enumerates.
    small_instance: ClassVar[dict[str, Any]] = {"bits": 6, "top_k": 2}

    def _setup(self, **params: Any) -> None:
        if params:
            raise InvalidInput(f"{self.name}: unknown parameter(s) {', '.join(sorted(params))}")

    @classmethod
    def round_clients(cls, epsilon: float) -> list[tuple[str, Any]]:
        """The registered frequency oracles of the rounds of :attr:`small_instance`, one per prefix width (see
        :meth:`ldp.mechanisms.protocol.Protocol.round_clients`)."""
        method = cls(epsilon, **cls.small_instance)
        return [(f"{method.oracle} over the 2^{w} prefixes of {w} bits", oracle)
                for w, oracle in sorted(method._oracles.items())]

    def validate_values(self, values: Any) -> np.ndarray:
        arr = np.asarray(values)
        if arr.ndim != 1 or arr.size == 0:
            raise InvalidInput(f"{self.name}: values must be a non-empty 1-D array of integers")
        if arr.dtype.kind not in "iu":
            raise InvalidInput(f"{self.name}: values must be integers (the column's non-negative integers)")
        if arr.dtype.kind == "i" and np.any(arr < 0):
            raise InvalidInput(f"{self.name}: values must be non-negative")
        v = arr.astype(np.uint64)
        if self.bits < 64 and np.any(v >> np.uint64(self.bits)):
            raise InvalidInput(f"{self.name}: a value needs more than {self.bits} bits; raise --bits or "
                               f"filter the column")
        return v

    def prefixes(self, values: np.ndarray, length: int) -> np.ndarray:
        return values >> np.uint64(self.bits - length) if length < self.bits else values

    def run(self, values: Any, rng: np.random.Generator,
            progress: Callable[[float], None] | None = None) -> HeavyHitterResult:
        """Every user's report and the server's rounds; ``progress(fraction)`` after each round if given."""
        self._progress = progress
        try:
            return self._run(self.validate_values(values), rng)
        finally:
            self._progress = None

    def _report(self, fraction: float) -> None:
        if getattr(self, "_progress", None) is not None:
            self._progress(fraction)

    def _set_oracle(self, oracle: str, widths: Sequence[int]) -> None:
        """The rounds' registered frequency oracle, one per prefix width, built (and refused) up front."""
        self.oracle = ORACLE.validate(oracle, self.name)
        self._oracles = {w: round_oracle(self.oracle, self.epsilon, w) for w in sorted(set(widths))}

    def _oracle(self, width: int) -> FrequencyOracle:
        if width not in self._oracles:
            self._oracles[width] = round_oracle(self.oracle, self.epsilon, width)
        return self._oracles[width]

    def _estimate_round(self, width: int, items: np.ndarray, candidates: np.ndarray,
                        rng: np.random.Generator) -> tuple[np.ndarray, float]:
        """One group's round: each user reports her ``width``-bit item through the width's oracle; the server
        estimates the candidates' frequencies (never the whole domain). Returns the estimates and the detection
        limit (3 standard deviations of a rare candidate's estimate)."""
        oracle = self._oracle(width)
        if items.size == 0:
            raise InvalidInput(f"{self.name}: no user reports prefixes of {width} bits: use more users or fewer "
                               "groups")
        if items.size * oracle.report_columns() > MAX_REPORT_CELLS:
            raise InvalidInput(f"{self.name}: {self.oracle} reports over 2^{width} values would hold "
                               f"{items.size * oracle.report_columns():,} numbers; use olh or fewer bits")
        reports = oracle.perturb_integers(items, rng)
        est = oracle.estimate_candidates(reports, candidates)
        return est, 3.0 * math.sqrt(oracle.approximate_variance(int(items.size)))

    @abstractmethod
    def _run(self, values: np.ndarray, rng: np.random.Generator) -> HeavyHitterResult:
        """The rounds on validated values (each family's protocol)."""


def _top(candidates: np.ndarray, estimates: np.ndarray, k: int, threshold: float | None) -> np.ndarray:
    """Indices of the survivors: the k largest estimates (ties by candidate), or those above ``threshold``."""
    order = np.lexsort((candidates, -estimates))
    if threshold is not None:
        return order[estimates[order] > threshold]
    return order[:k]


class PrefixExtending(HeavyHitterMethod):
    """Users in groups by prefix length; round by round the survivors are extended and re-estimated."""

    @abstractmethod
    def lengths(self) -> list[int]:
        """The rounds' prefix lengths, shortest first."""

    def _plan(self, users: int) -> tuple[list[int], np.ndarray | None, dict[str, Any]]:
        """The rounds' prefix lengths, their shares of the users (None: equal groups) and what to report of the
        plan (hook: PEM's optimised groups)."""
        return self.lengths(), None, {}

    def _run(self, values: np.ndarray, rng: np.random.Generator) -> HeavyHitterResult:
        lengths, shares, plan = self._plan(int(values.size))
        if shares is None:
            groups = rng.integers(0, len(lengths), size=values.size)
        else:
            groups = rng.choice(len(lengths), size=values.size, p=shares)
        rounds: list[Round] = []
        candidates = np.arange(1 << lengths[0], dtype=np.uint64)
        for j, length in enumerate(lengths):
            members = values[groups == j]
            if j > 0:
                step = length - lengths[j - 1]
                prev = rounds[-1].candidates[rounds[-1].survivors]
                candidates = (prev[:, None] << np.uint64(step)) | np.arange(1 << step, dtype=np.uint64)[None, :]
                candidates = candidates.ravel()
            if candidates.size > MAX_CANDIDATES:
                raise InvalidInput(f"{self.name}: round {j + 1} would probe {candidates.size:,} candidates (at most "
                                   f"{MAX_CANDIDATES:,}); use fewer bits per round or a smaller k")
            est, limit = self._estimate_round(length, self.prefixes(members, length), candidates, rng)
            last = j == len(lengths) - 1
            survivors = _top(candidates, est, self.top_k, None if last else self._threshold(limit))
            rounds.append(Round(length, int(members.size), candidates, est, survivors, limit))
            self._report((j + 1) / len(lengths))
        final = rounds[-1]
        keep = final.survivors[: self.top_k]
        return HeavyHitterResult(self.name, self.epsilon, self.bits, self.top_k, int(values.size),
                                 final.candidates[keep], final.estimates[keep], tuple(rounds),
                                 {**self.parameters(), **plan})

    def _threshold(self, limit: float) -> float | None:
        return None

    def _setup(self, oracle: str = "olh") -> None:
        self._set_oracle(oracle, self.lengths())

    def parameters(self) -> dict[str, Any]:
        return {"oracle": self.oracle, "prefix_lengths": self.lengths()}


@functools.lru_cache(maxsize=64)
def _solved_allocation(oracle: str, epsilon: float, bits: int, top_k: int, gamma: int, eta: int,
                       users: int) -> tuple[Allocation, float]:
    """PEM's optimised allocation and the model's expected number found with equal groups (solved once per
    configuration: the solver does not depend on the data, only on its size)."""

    def variance(length: int) -> float:
        return round_oracle(oracle, epsilon, length).approximate_variance(1)

    uniform = uniform_expected_found(prefix_lengths(bits, gamma + eta, eta), users, variance, top_k)
    return optimise_allocation(bits, top_k, gamma, eta, users, variance), uniform


@PROTOCOLS.register
class PEM(PrefixExtending):
    """Prefix Extending Method (Wang, Li, Jha, TDSC 2021): see the module docstring. ``eta`` bits per round (the
    lecture's question "more bits or fewer bits per phase?"), ``start`` the first round's extra bits γ (default
    ⌈log₂ k⌉, so the first round already separates k candidates), ``threshold``: keep candidates above this
    frequency instead of the top k (compared with the group's frequency estimates).

    Parameters
    ----------
    epsilon, bits, top_k : float, int, int
        ε, the bits m of a value and the k to find (see :class:`HeavyHitterMethod`).
    eta : int, default 4
        Bits η added per round (1 to 20); with ``groups="optimised"``, the most bits a round may add.
    start : int, optional
        The first round's extra bits γ in [0, m); None: ⌈log₂ k⌉. The first round reports γ + η bits (at most 20).
    threshold : float, optional
        Keep the candidates estimated above this frequency in [0, 1) instead of the top k (the last round always
        keeps the top k); None: the top k.
    oracle : str, default "olh"
        Each round's registered frequency oracle (see :func:`round_oracle`).
    groups : {"uniform", "optimised"}, default "uniform"
        Equal groups with η bits per round, or the groups' shares and bits solved for the expected number found
        (:func:`ldp.mechanisms.prefix_allocation.optimise_allocation`).

    References
    ----------
    The LDP lecture, slides "Prefix Extending Method", "Comparison" and "More Bits or Fewer Bits?"; Wang, Li,
    Jha, "Locally Differentially Private Heavy Hitter Identification", IEEE TDSC 2021.
    """

    name: ClassVar[str] = "pem"
    display_name: ClassVar[str] = "PEM (prefix extending)"
    description: ClassVar[str] = "groups report ever longer prefixes; the top k are extended by η bits per round"
    paper: ClassVar[str] = "Wang, Li, Jha — Locally Differentially Private Heavy Hitter Identification, TDSC 2021"
    declared_parameters: ClassVar[tuple[Param, ...]] = (BITS, TOP_K, ETA, START, THRESHOLD, ORACLE, GROUPS)
    small_instance: ClassVar[dict[str, Any]] = {"bits": 6, "top_k": 2, "eta": 2}  # prefixes of 3, 5 and 6 bits

    def _setup(self, eta: int = 4, start: int | None = None, threshold: float | None = None,
               oracle: str = "olh", groups: str = "uniform") -> None:
        self.groups = GROUPS.validate(groups, self.name)
        self.eta = ETA.validate(eta, self.name)
        gamma = max(0, math.ceil(math.log2(self.top_k))) if start is None else int(start)
        if not 0 <= gamma < self.bits:
            raise InvalidInput(f"{self.name}: start must lie in [0, {self.bits}), got {start}")
        self.gamma = gamma
        if threshold is not None and not (math.isfinite(float(threshold)) and 0 <= float(threshold) < 1):
            raise InvalidInput(f"{self.name}: threshold must be a frequency in [0, 1), got {threshold}")
        self.threshold = None if threshold is None else float(threshold)
        if self.lengths()[0] > 20:
            raise InvalidInput(f"{self.name}: the first round would enumerate 2^{self.lengths()[0]} prefixes; use a "
                               "smaller start or eta")
        self._set_oracle(oracle, self.lengths())

    def lengths(self) -> list[int]:
        """The uniform protocol's prefix lengths: γ + η, γ + 2η, … up to m."""
        return prefix_lengths(self.bits, self.gamma + self.eta, self.eta)

    def _plan(self, users: int) -> tuple[list[int], np.ndarray | None, dict[str, Any]]:
        """groups="optimised": the bits per round (at most η) and the groups' shares that maximise the expected
        number of heavy hitters found under the model of :mod:`ldp.mechanisms.prefix_allocation`."""
        if self.groups == "uniform":
            return super()._plan(users)
        best, uniform = _solved_allocation(self.oracle, self.epsilon, self.bits, self.top_k, self.gamma, self.eta,
                                           users)
        return list(best.lengths), np.asarray(best.shares), {
            "prefix_lengths": list(best.lengths), "shares": [round(x, 6) for x in best.shares],
            "expected_found": best.expected_found, "uniform_expected_found": uniform}

    def _threshold(self, limit: float) -> float | None:
        return self.threshold

    def parameters(self) -> dict[str, Any]:
        out = {"eta": self.eta, "start": self.gamma, "threshold": self.threshold, "oracle": self.oracle,
               "prefix_lengths": self.lengths()}
        if self.groups != "uniform":
            out["groups"] = self.groups
        return out


@PROTOCOLS.register
class TreeHist(PrefixExtending):
    """TreeHist as the lecture describes it (Bassily, Nissim, Stemmer, Thakurta, NIPS'17): the users in m groups,
    group j reports its first j bits; each round keeps the top k prefixes and extends them by one bit. (The paper's
    TreeHist prunes by a threshold and estimates the survivors' frequencies with a separate oracle; the lecture's
    version — one bit per level, partitioned users — is the one compared with PEM here.)

    Parameters
    ----------
    epsilon, bits, top_k : float, int, int
        ε, the m bits of a value (m groups, one per prefix length) and the k prefixes kept per level.
    oracle : str, default "olh"
        Each level's registered frequency oracle (see :func:`round_oracle`).

    References
    ----------
    The LDP lecture, slide "Comparison" (TreeHist: m groups, each reporting one additional bit).
    """

    name: ClassVar[str] = "treehist"
    display_name: ClassVar[str] = "TreeHist (one bit per level)"
    description: ClassVar[str] = "m groups; each round extends the top k prefixes by one bit"
    paper: ClassVar[str] = "Bassily, Nissim, Stemmer, Thakurta — Practical Locally Private Heavy Hitters, NIPS 2017"
    declared_parameters: ClassVar[tuple[Param, ...]] = (BITS, TOP_K, ORACLE)

    def lengths(self) -> list[int]:
        return list(range(1, self.bits + 1))


@PROTOCOLS.register
class PrivTrie(HeavyHitterMethod):
    """PrivTrie as the lecture presents it (Wang, Xiao, Yang, Hoang, Shin, Shin, Ge — ICDE 2018: "interactive",
    "allocate less users on the top, more in the lower levels", "one bit at a time"). Our reading, where the lecture
    leaves the details to the paper:

    - the trie grows one bit per level: level L's frontier is the children of the previous level's kept nodes
      (level 1: the two 1-bit prefixes);
    - the users are split over the m levels in advance (public randomness, independent of the values) in proportion
      to each level's largest possible frontier, min(2^L, 2·keep): every node of every level is then asked of about
      the same number of users, so the levels near the root, with few nodes, get fewer users;
    - interactively, the server asks each user of level L about one node c of the frontier, drawn uniformly; she
      answers one bit, 1[her L-bit prefix is c], through the registered GRR over {0, 1} (randomized response, kept
      with probability p = e^ε/(e^ε + 1)): for a fixed node the two answers' probabilities are p and 1 − p under any
      value, so the bit is ε-LDP (:meth:`report_probability`);
    - the server estimates each node's frequency among the users asked about it by GRR's matrix inversion,
      f̃(c) = (Y_c/n_c − q)/(p − q) with q = 1 − p (unbiased; a node nobody was asked about gets 0), keeps the
      ``keep`` largest (default 2k) and extends them by one bit; the last level's top k are the answer.

    Every user informs one node, not every candidate (as an OLH report does), so at the same n the estimates are
    noisier than PEM's: the price of one bit per user (the lecture's comparison).

    Parameters
    ----------
    epsilon, bits, top_k : float, int, int
        ε of each user's bit, the m bits of a value (m levels) and the k values the last level returns.
    keep : int, optional
        Nodes kept per level and extended by one bit (at least k, at most 4096); None: 2k.

    References
    ----------
    The LDP lecture, slides "Prefix Extending Style Proposals" and "Comparison" (PrivTrie: interactive, fewer
    users at the top, one bit at a time).
    """

    name: ClassVar[str] = "privtrie"
    display_name: ClassVar[str] = "PrivTrie (one bit per node)"
    description: ClassVar[str] = "interactive trie: each user answers one bit about one node; fewer users at the top"
    paper: ClassVar[str] = ("Wang, Xiao, Yang, Hoang, Shin, Shin, Ge — PrivTrie: Effective Frequent Term Discovery "
                            "under Local Differential Privacy, ICDE 2018")
    declared_parameters: ClassVar[tuple[Param, ...]] = (BITS, TOP_K, KEEP)
    client: ClassVar[str] = ("one bit: randomized response (GRR over {0, 1}) on whether the user's value is under "
                             "the trie node the server asks her about")

    def _setup(self, keep: int | None = None) -> None:
        self.keep = 2 * self.top_k if keep is None else KEEP.validate(keep, self.name)
        if self.keep < self.top_k:
            raise InvalidInput(f"{self.name}: keep must be at least k = {self.top_k}, got {self.keep}")
        self._bit = round_oracle("grr", self.epsilon, 1)  # randomized response on one bit

    def level_weights(self) -> np.ndarray:
        """Each level's share of the users: its largest frontier min(2^L, 2·keep), normalised."""
        sizes = np.array([min(2 ** min(level, 62), 2 * self.keep) for level in range(1, self.bits + 1)], dtype=float)
        return sizes / sizes.sum()

    small_instance: ClassVar[dict[str, Any]] = {"bits": 4, "top_k": 2}

    @classmethod
    def client_channels(cls, epsilon: float) -> list[tuple[str, np.ndarray]]:
        """Pr[answer | value, asked about node c at level L] for every level and node of :attr:`small_instance`
        (the node is drawn independently of the value): the true answer 1[the value's L-bit prefix is c] through the
        registered GRR over {0, 1}, so each value's row is that GRR's row of its answer."""
        trie = cls(epsilon, **cls.small_instance)
        bit = trie._bit.channel()[0]
        values = np.arange(1 << trie.bits)
        return [(f"level {length}, node {node}", bit[((values >> (trie.bits - length)) == node).astype(int)])
                for length in range(1, trie.bits + 1) for node in range(1 << length)]

    def _run(self, values: np.ndarray, rng: np.random.Generator) -> HeavyHitterResult:
        level = rng.choice(self.bits, size=values.size, p=self.level_weights())
        frontier = np.arange(2, dtype=np.uint64)
        rounds: list[Round] = []
        for j in range(self.bits):
            length = j + 1
            members = values[level == j]
            if members.size == 0:
                raise InvalidInput(f"{self.name}: no user answers at level {length}: use more users or fewer bits")
            node = rng.integers(0, frontier.size, size=members.size)  # the node each user is asked about
            bit = (self.prefixes(members, length) == frontier[node]).astype(np.int64)
            answers = self._bit.perturb(bit, rng)
            asked = np.bincount(node, minlength=frontier.size)
            yes = np.bincount(node, weights=(answers == 1).astype(float), minlength=frontier.size)
            est = np.where(asked > 0, self._bit.invert(yes, np.maximum(asked, 1)), 0.0)
            limit = 3.0 * math.sqrt(self._bit.approximate_variance(max(1, members.size // frontier.size)))
            last = length == self.bits
            survivors = _top(frontier, est, self.top_k if last else self.keep, None)
            rounds.append(Round(length, int(members.size), frontier, est, survivors, limit))
            if not last:
                frontier = ((frontier[survivors][:, None] << np.uint64(1)) | np.arange(2, dtype=np.uint64)).ravel()
            self._report(length / self.bits)
        final = rounds[-1]
        return HeavyHitterResult(self.name, self.epsilon, self.bits, self.top_k, int(values.size),
                                 final.candidates[final.survivors], final.estimates[final.survivors], tuple(rounds),
                                 {"keep": self.keep, "level_users": [r.users for r in rounds]},
                                 ("each user answered one bit about one node; the levels' users are proportional to "
                                  "their largest frontier, min(2^L, 2·keep)",))


@PROTOCOLS.register
class SegmentProduct(HeavyHitterMethod):
    """The lecture's first solution: ``segments`` groups each report one segment of the bits; the top k patterns
    of each segment are combined by Cartesian product (k^segments candidates), ranked by the product of the
    segments' estimated frequencies — values made of frequent segments that are not themselves frequent rank high,
    which is the drawback the lecture points at.

    Parameters
    ----------
    epsilon, bits, top_k : float, int, int
        ε, the bits m of a value and the k patterns kept per segment (and values returned).
    segments : int, default 4
        Segments s of the bits (1 to 16, at most m; each at most 20 bits wide; k^s at most 2^20).
    oracle : str, default "olh"
        Each segment's registered frequency oracle (see :func:`round_oracle`).

    References
    ----------
    The LDP lecture, the two slides "A First Solution".
    """

    name: ClassVar[str] = "segments"
    display_name: ClassVar[str] = "Segments + Cartesian product"
    description: ClassVar[str] = "each group reports one segment; the product of per-segment top k is the answer"
    paper: ClassVar[str] = "LDP lecture, \"A First Solution\" (heavy hitters)"
    declared_parameters: ClassVar[tuple[Param, ...]] = (BITS, TOP_K, SEGMENTS, ORACLE)

    def _setup(self, segments: int = 4, oracle: str = "olh") -> None:
        self.segments = SEGMENTS.validate(segments, self.name)
        if self.segments > self.bits:
            raise InvalidInput(f"{self.name}: {self.segments} segments of {self.bits} bits: use at most {self.bits}")
        widths = [self.bits // self.segments + (i < self.bits % self.segments) for i in range(self.segments)]
        if max(widths) > 20:
            raise InvalidInput(f"{self.name}: a segment of {max(widths)} bits cannot be enumerated; use more segments")
        if self.top_k ** self.segments > MAX_CANDIDATES:
            raise InvalidInput(f"{self.name}: the product has {self.top_k}^{self.segments} candidates (more than "
                               f"{MAX_CANDIDATES:,}) — the drawback of this method; use fewer segments or a smaller k")
        self.widths = widths
        self._set_oracle(oracle, widths)

    def _run(self, values: np.ndarray, rng: np.random.Generator) -> HeavyHitterResult:
        groups = rng.integers(0, self.segments, size=values.size)
        rounds, tops, freqs = [], [], []
        shift = self.bits
        for j, width in enumerate(self.widths):
            shift -= width
            members = values[groups == j]
            segment = (members >> np.uint64(shift)) & np.uint64((1 << width) - 1)
            candidates = np.arange(1 << width, dtype=np.uint64)
            est, limit = self._estimate_round(width, segment, candidates, rng)
            survivors = _top(candidates, est, self.top_k, None)
            rounds.append(Round(width, int(members.size), candidates, est, survivors, limit))
            tops.append(candidates[survivors])
            freqs.append(np.clip(est[survivors], 0.0, None))
            self._report((j + 1) / len(self.widths))
        combined, score = np.zeros(1, dtype=np.uint64), np.ones(1)
        for width, top, f in zip(self.widths, tops, freqs, strict=True):
            combined = ((combined[:, None] << np.uint64(width)) | top[None, :]).ravel()
            score = (score[:, None] * f[None, :]).ravel()
        order = np.lexsort((combined, -score))[: self.top_k]
        return HeavyHitterResult(self.name, self.epsilon, self.bits, self.top_k, int(values.size), combined[order],
                                 score[order], tuple(rounds), {"segments": self.segments, "widths": self.widths,
                                                               "oracle": self.oracle,
                                                               "product_candidates": int(combined.size)},
                                 (f"{combined.size:,} candidates in the Cartesian product; their frequencies are "
                                  "guessed as products of segment frequencies (no user reports a whole value)",))


def _segments(bits: int, count: int) -> list[int]:
    """Widths of ``count`` segments of ``bits`` bits, the first ones one bit wider when it does not divide."""
    return [bits // count + (i < bits % count) for i in range(count)]


def _segment_values(values: np.ndarray, bits: int, widths: Sequence[int]) -> list[np.ndarray]:
    out, shift = [], bits
    for width in widths:
        shift -= width
        out.append((values >> np.uint64(shift)) & np.uint64((1 << width) - 1))
    return out


@PROTOCOLS.register
class SegmentPair(HeavyHitterMethod):
    """The Segment Pair method (Fanti, Pihur, Erlingsson, PoPETS 2016) as the lecture describes it, at classroom
    scale: the bits are cut into ``segments`` segments; each user, in one group per pair of segments, reports the
    pair's values (2w bits) with OLH at the full ε. The server estimates every value of every pair, keeps the top
    k per pair as the graph's edges (nodes: segment values), and the candidates are the cliques — one value per
    segment whose every pair is an edge (a-priori: a value is frequent only if all its segment pairs are). A
    candidate's frequency is estimated by the smallest of its pairs' estimates (an upper bound; no user reports a
    whole value). The drawback the lecture points at is visible in the rounds: C(s, 2) groups share the users.

    Parameters
    ----------
    epsilon, bits, top_k : float, int, int
        ε, the bits m of a value and the k edges kept per pair of segments (and values returned).
    segments : int, default 4
        Segments s of the bits (2 to 8, at most m); a pair of segments is at most 16 bits wide.
    oracle : str, default "olh"
        Each pair's registered frequency oracle (see :func:`round_oracle`).

    References
    ----------
    The LDP lecture, slide "Segment Pair Method" (steps 1–5, the a-priori principle).
    """

    name: ClassVar[str] = "segment-pair"
    display_name: ClassVar[str] = "Segment Pair (teaching baseline)"
    description: ClassVar[str] = "groups report pairs of segments; candidates are cliques of frequent pairs"
    paper: ClassVar[str] = "Fanti, Pihur, Erlingsson — Building a RAPPOR with the Unknown, PoPETS 2016"
    declared_parameters: ClassVar[tuple[Param, ...]] = (BITS, TOP_K, PAIR_SEGMENTS, ORACLE)

    def _setup(self, segments: int = 4, oracle: str = "olh") -> None:
        self.segments = PAIR_SEGMENTS.validate(segments, self.name)
        if self.segments > self.bits:
            raise InvalidInput(f"{self.name}: {self.segments} segments of {self.bits} bits: use at most {self.bits}")
        self.widths = _segments(self.bits, self.segments)
        if 2 * max(self.widths) > 16:
            raise InvalidInput(f"{self.name}: pairs of {2 * max(self.widths)} bits are beyond classroom scale (≤ 16); "
                               "use fewer bits or more segments")
        self._set_oracle(oracle, [a + b for i, a in enumerate(self.widths) for b in self.widths[i + 1:]])

    def _run(self, values: np.ndarray, rng: np.random.Generator) -> HeavyHitterResult:
        from itertools import combinations

        pairs = list(combinations(range(self.segments), 2))
        groups = rng.integers(0, len(pairs), size=values.size)
        parts = _segment_values(values, self.bits, self.widths)
        rounds, adjacency, tables = [], {}, {}
        for g, (i, j) in enumerate(pairs):
            width = self.widths[i] + self.widths[j]
            member = groups == g
            joined = (parts[i][member] << np.uint64(self.widths[j])) | parts[j][member]
            candidates = np.arange(1 << width, dtype=np.uint64)
            est, limit = self._estimate_round(width, joined, candidates, rng)
            survivors = _top(candidates, est, self.top_k, None)
            rounds.append(Round(width, int(member.sum()), candidates, est, survivors, limit))
            edge = np.zeros((1 << self.widths[i], 1 << self.widths[j]), dtype=bool)
            kept = candidates[survivors]
            edge[kept >> np.uint64(self.widths[j]), kept & np.uint64((1 << self.widths[j]) - 1)] = True
            adjacency[(i, j)] = edge  # the graph's edges between segment i's and segment j's values
            tables[(i, j)] = est
            self._report((g + 1) / len(pairs))
        # the cliques, one segment at a time: a partial value (segments 0..s−1) is extended by every value of
        # segment s that forms an edge with each of its segments (numpy, no loop over the combinations)
        combos = np.arange(1 << self.widths[0], dtype=np.int64)[:, None]
        for s in range(1, self.segments):
            ok = np.ones((combos.shape[0], 1 << self.widths[s]), dtype=bool)
            for i in range(s):
                ok &= adjacency[(i, s)][combos[:, i]]
            rows, cols = np.nonzero(ok)
            combos = np.column_stack([combos[rows], cols])
            checkpoint()
        found = np.zeros(combos.shape[0], dtype=np.uint64)
        for s, width in enumerate(self.widths):
            found = (found << np.uint64(width)) | combos[:, s].astype(np.uint64)
        scores = np.full(combos.shape[0], np.inf)
        for i, j in pairs:
            scores = np.minimum(scores, tables[(i, j)][(combos[:, i] << self.widths[j]) | combos[:, j]])
        order = np.lexsort((found, -scores))[: self.top_k]
        values_out, est_out = found[order], scores[order]
        return HeavyHitterResult(self.name, self.epsilon, self.bits, self.top_k, int(values.size), values_out,
                                 est_out, tuple(rounds), {"segments": self.segments, "widths": self.widths,
                                                          "oracle": self.oracle, "cliques": len(found)},
                                 (f"{len(found):,} cliques of frequent segment pairs; each found value's estimate is "
                                  "the smallest of its pairs' (an upper bound)",))


@PROTOCOLS.register
class MultipleChannel(HeavyHitterMethod):
    """The Multiple Channel method as the lecture describes it (after Bassily & Smith, STOC 2015), at classroom
    scale: a public hash sends each value to one of ``channels`` channels; each user, assigned a bit position t
    (users partitioned over the m positions), sends one bit per channel — bit t of her value in her own channel, a
    uniform bit in the others — each kept with probability p = e^ε/(e^ε + 1) and flipped otherwise. Two values
    change at most two channels' distributions, and the ratio over any output is p/(1 − p) = e^ε. Per channel and
    position the server debiases the mean bit; where one heavy hitter dominates a channel, the signs spell its
    bits. Values that share a channel corrupt each other (the lecture's drawback: ~n^{1.5} channels are needed to
    avoid collisions); each user sends ``channels`` bits.

    Parameters
    ----------
    epsilon, bits, top_k : float, int, int
        ε of each user's report, the bits m of a value and the k channels' values returned.
    channels : int, default 64
        Channels K (2 to 4096): the public hash's range and the bits each user sends.

    References
    ----------
    The LDP lecture, slide "Multiple Channel Method".
    """

    name: ClassVar[str] = "multiple-channel"
    display_name: ClassVar[str] = "Multiple Channel (teaching baseline)"
    description: ClassVar[str] = "a public hash isolates values in channels; each channel's bits are read by sign"
    paper: ClassVar[str] = "Bassily, Smith — Local, Private, Efficient Protocols for Succinct Histograms, STOC 2015"
    declared_parameters: ClassVar[tuple[Param, ...]] = (BITS, TOP_K, CHANNELS)
    client: ClassVar[str] = ("one bit per channel: bit t of the value in its own channel (a public hash), a uniform "
                             "bit elsewhere, each kept with probability e^ε/(e^ε + 1)")

    def _setup(self, channels: int = 64) -> None:
        self.channels = CHANNELS.validate(channels, self.name)

    small_instance: ClassVar[dict[str, Any]] = {"bits": 3, "top_k": 2, "channels": 4}

    @classmethod
    def client_channels(cls, epsilon: float) -> list[tuple[str, np.ndarray]]:
        """Pr[the K sent bits | value] for every bit position of :attr:`small_instance` (the position is drawn
        independently of the value), over all 2^K sent vectors (:meth:`report_probability`)."""
        mc = cls(epsilon, **cls.small_instance)
        sent = list(itertools.product((0, 1), repeat=mc.channels))
        return [(f"bit position {t}", np.array([[mc.report_probability(o, v, t) for o in sent]
                                                for v in range(1 << mc.bits)])) for t in range(mc.bits)]

    def report_probability(self, sent: Sequence[int], value: int, position: int) -> float:
        """Pr[the K sent bits | value, position] exactly (the object of the ε-LDP check; the position is drawn
        independently of the value)."""
        p = math.exp(self.epsilon) / (math.exp(self.epsilon) + 1.0)
        own = int(self.channel_of(np.array([value], dtype=np.uint64))[0])
        bit = (int(value) >> (self.bits - 1 - int(position))) & 1
        prob = 1.0
        for c, b in enumerate(sent):
            prob *= (p if b == bit else 1 - p) if c == own else 0.5
        return prob

    def channel_of(self, values: np.ndarray) -> np.ndarray:
        """The public hash of a value to its channel."""
        return (mix64(np.asarray(values, dtype=np.uint64) ^ _GOLDEN) % np.uint64(self.channels)).astype(np.int64)

    def _run(self, values: np.ndarray, rng: np.random.Generator) -> HeavyHitterResult:
        e = math.exp(self.epsilon)
        p = e / (e + 1.0)
        m, k = self.bits, self.channels
        position = rng.integers(0, m, size=values.size)
        channel = self.channel_of(values)
        own_bit = ((values >> (np.uint64(m - 1) - position.astype(np.uint64))) & np.uint64(1)).astype(np.int8)
        signal = np.zeros((m, k))
        users = np.bincount(position, minlength=m)
        block = max(1, BLOCK_CELLS // k)
        for start in range(0, values.size, block):  # K bits per user, a block of users at a time
            checkpoint()
            stop = min(values.size, start + block)
            bits = rng.integers(0, 2, size=(stop - start, k), dtype=np.int8)
            rows = np.arange(stop - start)
            bits[rows, channel[start:stop]] = own_bit[start:stop]
            flip = rng.random((stop - start, k)) >= p
            sent = np.where(flip, 1 - bits, bits).astype(np.float64) * 2.0 - 1.0
            np.add.at(signal, position[start:stop], sent)
        # E[sent] = (2p − 1)·(±1) in a user's own channel, 0 elsewhere: the share of users of a position whose own
        # channel is c with bit 1, minus those with bit 0
        mean = signal / np.maximum(users, 1)[:, None] / (2 * p - 1)
        bits_read = (mean > 0).astype(np.uint64)
        candidates = np.zeros(k, dtype=np.uint64)
        for t in range(m):
            candidates = (candidates << np.uint64(1)) | bits_read[t]
        strength = np.abs(mean).mean(axis=0)  # ≈ the dominant value's share of the users when it dominates
        consistent = self.channel_of(candidates) == np.arange(k)  # a read value must hash to its own channel
        strength = np.where(consistent, strength, 0.0)
        order = np.lexsort((candidates, -strength))[: self.top_k]
        limit = 3.0 * math.sqrt(1.0 / max(1, int(users.min()))) / (2 * p - 1)
        rnd = Round(m, int(values.size), candidates, strength, np.sort(order), limit)
        return HeavyHitterResult(self.name, self.epsilon, self.bits, self.top_k, int(values.size), candidates[order],
                                 strength[order], (rnd,), {"channels": k, "bits_per_user": k},
                                 (f"{int((~consistent).sum())} of {k} channels read a value that does not hash to "
                                  "them (collisions or noise) and are dropped",))


def get_heavy_hitter_method(name: str, epsilon: float, bits: int, top_k: int, **params: Any) -> HeavyHitterMethod:
    """The registered heavy-hitter protocol ``name``, constructed.

    Parameters
    ----------
    name : str
        A protocol of kind "heavy-hitters" in ``PROTOCOLS`` ("pem", "treehist", "privtrie", "segments",
        "segment-pair", "multiple-channel").
    epsilon : float
        The privacy budget ε of each user's report.
    bits : int
        Bits m of each value.
    top_k : int
        The number k of heavy hitters to find.
    **params
        The protocol's own declared parameters.

    Returns
    -------
    HeavyHitterMethod
        The protocol, its parameters validated (call ``run`` on the values).

    Raises
    ------
    InvalidInput
        An unknown name, a protocol of another kind, or a bad parameter.
    """
    cls = PROTOCOLS.get(name)
    if cls.kind != "heavy-hitters":
        raise InvalidInput(f"{name} is not a heavy-hitter method; choose one of: "
                           f"{', '.join(c.name for c in PROTOCOLS if c.kind == 'heavy-hitters')}")
    return cls(epsilon, bits, top_k, **params)


def true_heavy_hitters(values: Sequence[int] | np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The k most frequent values (ties by value) and their frequencies.

    Parameters
    ----------
    values : array_like of int
        One non-negative integer per user.
    k : int
        How many values to return (fewer when there are fewer distinct values).

    Returns
    -------
    values : numpy.ndarray of uint64
        The k most frequent values, most frequent first (ties: the smaller value first).
    frequencies : numpy.ndarray of float
        Their shares of the users.
    """
    uniq, counts = np.unique(np.asarray(values, dtype=np.uint64), return_counts=True)
    order = np.lexsort((uniq, -counts))[: int(k)]
    return uniq[order], counts[order] / counts.sum()
