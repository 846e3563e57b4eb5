"""Google's RAPPOR (Erlingsson, Pihur, Korolova, "RAPPOR: Randomized Aggregatable Privacy-Preserving Ordinal
Response", CCS 2014): a Bloom filter per cohort, a memoized permanent randomized response and an instantaneous one.
(The paper is not in ../shared/papers; sections are cited as in the CCS version: §2 the algorithm, §3 its
differential privacy, §4 the decoding.)

Client (§2, steps 1–4). A user is assigned a cohort j uniformly in [0, m) once. Its value v is hashed onto the
cohort's Bloom filter of k bits with h hash functions, B_i = 1 iff some hash of v lands on bit i; here the l-th hash
of cohort j is XXH32(str(v), seed = j·h + l) mod k (the project's XXH32, as CMS and FLH; the paper's reference code
uses MD5 of the cohort and the value — any public deterministic hash will do). Then

- permanent randomized response (PRR, step 2): B'_i = 1 w.p. f/2, 0 w.p. f/2, B_i w.p. 1 − f. It is *memoized*:
  drawn once per (client, value) and reused for every later report of that value, which is what bounds the
  longitudinal leak by ε∞ however many reports the client sends;
- instantaneous randomized response (IRR, step 3): each report S has P(S_i = 1) = q if B'_i = 1, p if B'_i = 0,
  fresh for every report;
- the report (step 4) is the cohort and the k bits: "j b₁ … b_k".

A simulation gives every user one value and one report (τ = 1, as the project's L-UE mechanisms do), so drawing the
PRR once per user *is* the memoization: each user's report is one IRR of its own PRR. :meth:`RAPPOR.perturb_rounds`
sends τ reports per user from one memoized PRR, the longitudinal situation the memoization is for.

The per-bit chain B → B' → S has P(S_i = 1 | B_i = 1) = q* and P(S_i = 1 | B_i = 0) = p* (§3.2, its q* and p*):

    q* = ½f(p + q) + (1 − f)q,        p* = ½f(p + q) + (1 − f)p,

independently over the bits given the cohort and the value, so one report's law is a product of Bernoullis.

Privacy (§3.1 the PRR, §3.2 one IRR). Two values differ in at most 2h bits of a cohort's filter. The PRR's per-bit ratio
is (1 − f/2)/(f/2), so ε∞ = 2h·ln((1 − f/2)/(f/2)); one report's is ε1 = h·ln(q*(1 − p*) / (p*(1 − q*))). These are
the paper's worst cases; for the fixed public hashes the exact channel of one report (the cohort uniform, then the
product channel over its bits) has privacy loss max over cohorts and pairs of values of a·ln(q*/p*) +
b·ln((1 − p*)/(1 − q*)) with a, b the bits set for one value and not the other (:meth:`RAPPOR.exact_privacy_loss`),
which equals ε1 as soon as two values have disjoint sets of h distinct bits in some cohort.

Our convention (the registry's longitudinal one, as L-SUE's): the constructor's ε is ε∞, and f is derived from it,
f/2 = 1/(1 + e^{ε∞/(2h)}) — per bit, the PRR is SUE at ε∞/h (:func:`~ldp.mechanisms.frequency.unary.
sue_probabilities`). ``epsilon_1`` is one report's budget: by default what the paper's p = 0.5, q = 0.75 give; when
it is given, q is solved (p fixed) so that one report spends exactly ε1 (as L-UE derives its second step).

Reduction to unary encoding. Per bit the chain is L-UE's: a symmetric first step (SUE at ε∞/h) memoized, a second
step re-drawing each bit (1 → 1 w.p. q, 0 → 1 w.p. p). With h = 1, one cohort and p = 1 − q, RAPPOR is L-SUE
(the IBU paper's "basic RAPPOR") applied to the bit v hashes to, and without the IRR (f only) basic one-time
RAPPOR, i.e. SUE at ε∞; symmetrically, with f = 0 (no PRR, ε∞ = ∞, outside our ε range) and p = 1 − q one report
is SUE at ε1 (tests/mechanisms/frequency/test_rappor.py checks the channels agree).

Server (§4). The aggregate is, per cohort j, the counts c_ji of reports with bit i set and the cohort's size N_j
(m·(k + 1) entries, additive over users). The true bit counts are estimated by t_ji = (c_ji − p*·N_j)/(q* − p*)
(unbiased: E[c_ji] = p*N_j + (q* − p*)·#{users of cohort j whose B_i = 1}). They are regressed on the design
matrix X (rows (j, i), one column per candidate value, X[(j, i), v] = B_ji(v)): the paper selects candidates with
the Lasso and then fits OLS on them; the candidates here are the whole domain [0, d), so we fit OLS on all of them
(β̂ = (XᵀX)⁻¹Xᵀt, the estimated users of v per cohort; the count is m·β̂, unbiased since cohorts are uniform) —
and test each coefficient as the paper does: a t-test with the OLS standard error σ̂²(XᵀX)⁻¹ (σ̂² = RSS/(mk − d)),
Bonferroni-corrected at α = 0.05 over the d candidates. Our choice: one-sided (H₁: the count is positive; a
significantly negative count is not a detection), written in :meth:`RAPPOR.decode`.

Variance (our derivation). The estimate is linear in the aggregate, f̂ = (m/n)·G Σ_j W_j a_j with G = (XᵀX)⁻¹ and
W_j the map from cohort j's block to Xⱼᵀt_j. One user holding v contributes, with D_vj = diag(π(1 − π)) its bits'
Bernoulli variances (π = q* on v's bits, p* elsewhere) and u_vj = X_jᵀX_j e_v,

    Cov = (1/m) Σ_j (X_jᵀ D_vj X_j/(q* − p*)² + u_vj u_vjᵀ) − (1/m²)(XᵀX e_v)(XᵀX e_v)ᵀ

(the first term is the bits' binomial noise, Var[t_ji] = Σ users' π(1 − π)/(q* − p*)², the others the random
cohort split). Users are independent, so Var[f̂_u] = (1/n) Σ_v f_v C[v, u] with
C[v, u] = m Σ_j [Σ_i D_vj,i Y_{ji,u}²/(q* − p*)² + ((X_jᵀY_j)[v, u])²] − 1[u = v], Y = XG — exact, linear in f.
With h = 1, m = 1 and an injective hash (X = I) it is the unary-encoding variance [f q*(1 − q*) + (1 − f)p*(1 − p*)]
/(n (q* − p*)²).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ldp.core.errors import InvalidInput
from ldp.core.params import Param
from ldp.core.randomness import RandomSource, bernoulli_select
from ldp.core.registry import MECHANISMS
from ldp.core.results import Aggregate, Estimate, frozen_array
from ldp.maths.roots import brentq
from ldp.mechanisms.base import ceil_log2, check_int_reports
from ldp.mechanisms.frequency.base import MIN_PROBABILITY, FrequencyOracle
from ldp.mechanisms.frequency.count_mean_sketch import ATTACK_ENUMERATION_CELLS
from ldp.mechanisms.frequency.fast_local_hashing import MAX_CONDITION
from ldp.mechanisms.frequency.local_hashing import xxh32_hash
from ldp.mechanisms.frequency.unary import sue_probabilities, ue_ratio
from ldp.mechanisms.longitudinal import LongitudinalMixin

__all__ = ["ALPHA", "PAPER_Q", "RAPPOR", "RAPPOR_PAPER", "RapporDecoding", "rappor_bit_probabilities",
           "rappor_epsilons"]

RAPPOR_PAPER = ("Erlingsson, Pihur, Korolova — RAPPOR: Randomized Aggregatable Privacy-Preserving Ordinal Response "
                "(CCS 2014)")

#: The paper's instantaneous randomized response (its running example): P(S_i = 1 | B'_i = 0), P(S_i = 1 | B'_i = 1).
PAPER_P, PAPER_Q = 0.5, 0.75
#: Family-wise level of the paper's significance test (§4, Bonferroni over the candidates).
ALPHA = 0.05

EPSILON_1 = Param("epsilon_1", float, "ε1: privacy of a single report (IRR); default: what p and q give "
                  "(paper: p = 0.5, q = 0.75); given, q is derived", low=1e-4, optional=True)


def rappor_bit_probabilities(f: float, p: float, q: float) -> tuple[float, float]:
    """(q*, p*) = (P(S_i = 1 | B_i = 1), P(S_i = 1 | B_i = 0)) = (½f(p + q) + (1 − f)q, ½f(p + q) + (1 − f)p) (§3.2).

    Parameters
    ----------
    f : float
        The permanent randomized response's f in [0, 1]: a Bloom bit is replaced by a fair coin with probability f.
    p : float
        P(report bit = 1 | permanent bit = 0), in (0, 1).
    q : float
        P(report bit = 1 | permanent bit = 1), in (0, 1).

    Returns
    -------
    tuple of float
        ``(q_star, p_star)`` in the paper's order and naming: the probability that a report bit is 1 when the
        Bloom bit is 1, then when it is 0.

    References
    ----------
    Erlingsson, Pihur, Korolova, "RAPPOR" (CCS 2014), §3.2 (q* and p* of one report).
    """
    shared = 0.5 * f * (p + q)
    return shared + (1 - f) * q, shared + (1 - f) * p


def rappor_epsilons(f: float, p: float, q: float, h: int) -> tuple[float, float]:
    """The paper's (ε∞, ε1) (§3.1 and §3.2): 2h·ln((1 − f/2)/(f/2)) and h·ln(q*(1 − p*)/(p*(1 − q*))).

    Parameters
    ----------
    f : float
        The permanent randomized response's f, in (0, 1] (f = 0 would make ε∞ infinite: a division by zero).
    p : float
        P(report bit = 1 | permanent bit = 0), in (0, 1).
    q : float
        P(report bit = 1 | permanent bit = 1), in (0, 1).
    h : int
        The number of hash functions per Bloom filter (two values differ in at most 2h bits).

    Returns
    -------
    tuple of float
        ``(epsilon_inf, epsilon_1)``: the longitudinal bound of the memoized PRR and the budget of one report
        (negative ε1 when q < p).

    References
    ----------
    Erlingsson, Pihur, Korolova, "RAPPOR" (CCS 2014), §3.1 (the PRR's ε∞) and §3.2 (one IRR's ε1).
    """
    q_star, p_star = rappor_bit_probabilities(f, p, q)
    return 2 * h * math.log((1 - f / 2) / (f / 2)), h * math.log(ue_ratio(q_star, p_star))


def _solve_q(f: float, p: float, h: int, epsilon_1: float, owner: str) -> float:
    """The q in (p, 1) with h·ln(q*(1 − p*)/(p*(1 − q*))) = ε1 (increasing in q; p and f fixed)."""
    def gap(q: float) -> float:
        return rappor_epsilons(f, p, q, h)[1] - epsilon_1

    top = 1.0 - 2.0**-40
    if gap(top) <= 0:
        raise InvalidInput(f"{owner}: ε1 = {epsilon_1:g} is not reachable with p = {p:g} at this ε∞; ε1 must be below "
                           f"{rappor_epsilons(f, p, top, h)[1]:.4g}")
    return float(brentq(gap, p, top, xtol=1e-15, rtol=1e-15, maxiter=500))


@dataclass(frozen=True)
class RapporDecoding:
    """The paper's decoding of one aggregate (§4): OLS counts of the d candidates and their t-tests.

    Attributes
    ----------
    counts : numpy.ndarray
        Estimated users per candidate, m·β̂ (read-only float64, shape (d,)).
    frequencies : numpy.ndarray
        The counts divided by n (read-only, shape (d,)).
    std_errors : numpy.ndarray
        The OLS standard errors of the frequencies (read-only, shape (d,)).
    t_statistics : numpy.ndarray
        β̂ / standard error per candidate (±inf where the standard error is 0 and β̂ ≠ 0, NaN where both are 0).
    p_values : numpy.ndarray
        One-sided p-values of Student's t with ``residual_dof`` degrees of freedom (H₁: the count is positive).
    detected : tuple of int
        The candidates with p < α/d (Bonferroni over the d candidates), increasing.
    alpha : float
        The family-wise level α (default ``ALPHA`` = 0.05).
    residual_dof : int
        The residual degrees of freedom mk − d.
    residual_variance : float
        σ̂² = RSS/(mk − d).

    References
    ----------
    Erlingsson, Pihur, Korolova, "RAPPOR" (CCS 2014), §4 (regression of the bit counts and the Bonferroni-corrected
    significance test).
    """

    counts: np.ndarray
    frequencies: np.ndarray
    std_errors: np.ndarray
    t_statistics: np.ndarray
    p_values: np.ndarray
    detected: tuple[int, ...]
    alpha: float
    residual_dof: int
    residual_variance: float


@MECHANISMS.register
class RAPPOR(LongitudinalMixin, FrequencyOracle):
    """RAPPOR (module docstring): cohort Bloom filters, a memoized PRR (ε∞, the constructor's ε) and an IRR per
    report (ε1); reports 'j b₁ … b_k'; the server regresses the estimated bit counts on the candidates.

    Defaults: k = 128 bits and h = 2 hashes (the paper's examples), p = 0.5 and q = 0.75 (its IRR), m = 64 cohorts
    (more cohorts separate more candidates — the regression needs d < m·k — at the cost of m·(k + 1) counts). At the
    paper's f = 0.5 (ε∞ = 4 ln 3 with h = 2) this is its running example. ``spends_full_budget``: one report attains
    ε1 exactly when two values have disjoint sets of h distinct bits in some cohort (:meth:`exact_privacy_loss`;
    true for every configuration the conformance suite builds, and for nearly any domain once k ≫ h); otherwise it
    spends less.

    Parameters
    ----------
    epsilon : float
        ε∞, the memoized PRR's budget; f is derived from it, f/2 = 1/(1 + e^{ε∞/(2h)}).
    d : int
        The number of candidate values (codes in [0, d)); must be below m·k.
    epsilon_1 : float, optional
        One report's budget ε1 < ε∞; None: what p and q give. Given without q, q is solved so that a report
        spends exactly ε1; given with q, the two must agree.
    k : int, default 128
        Bloom filter size in bits, in [1, 4096], at least h.
    h : int, default 2
        Hash functions per Bloom filter, in [1, 64].
    m : int, default 64
        Number of cohorts, in [1, 4096].
    p : float, default 0.5
        P(report bit = 1 | permanent bit = 0), in (0, 1).
    q : float, optional
        P(report bit = 1 | permanent bit = 1), in (p, 1); None: 0.75 (the paper's), or derived from ε1.

    Raises
    ------
    InvalidInput
        When h > k, d ≥ m·k, ε1 ≥ ε∞, q ≤ p, q and ε1 disagree, ε1 is unreachable with this p, or a report
        probability falls below 2⁻⁴⁰.

    References
    ----------
    Erlingsson, Pihur, Korolova, "RAPPOR: Randomized Aggregatable Privacy-Preserving Ordinal Response" (CCS 2014),
    §2 (client), §3 (ε∞ and ε1), §4 (decoding); IBU vs matrix inversion paper, §3.2 (L-SUE, "Basic RAPPOR", which
    RAPPOR reduces to with h = 1, one cohort and p = 1 − q).
    """

    name = "rappor"
    display_name = "RAPPOR (Google)"
    description = ("Google's RAPPOR: a cohort's Bloom filter, a memoized permanent randomized response (ε∞), an "
                   "instantaneous one per report (ε1)")
    paper = RAPPOR_PAPER + ", §2–4"
    report_format = "k + 1 integers 'j b₁ … b_k': the cohort j and the k bits of the instantaneous response"
    communication = "O(k + log m)"
    pure = False
    default_estimator: ClassVar[str] = "mi"
    extra_parameters = (
        Param("k", int, "k: Bloom filter size in bits (the paper's examples: 128)", default=128, low=1, high=4096),
        Param("h", int, "h: hash functions per Bloom filter (paper: 2)", default=2, low=1, high=64),
        Param("m", int, "m: number of cohorts, each with its own hash functions", default=64, low=1, high=4096),
        Param("p", float, "p: P(report bit = 1 | permanent bit = 0) (paper: 0.5)", default=PAPER_P, low=0.0,
              low_inclusive=False, high=1.0, high_inclusive=False),
        Param("q", float, "q: P(report bit = 1 | permanent bit = 1) (paper: 0.75; default: derived from ε1 when "
              "ε1 is given)", low=0.0, low_inclusive=False, high=1.0, high_inclusive=False, optional=True),
    )

    @classmethod
    def own_parameters(cls) -> tuple[Param, ...]:
        return (EPSILON_1,) + cls.extra_parameters

    @classmethod
    def _epsilon_breakpoints(cls, lo: float, hi: float, d: int | None, params: dict[str, Any]) -> list[float] | None:
        return []  # nothing integer is derived from ε

    def _setup(self) -> None:
        params = self._params
        k, h, p = self.k, self.h, self.p
        if h > k:
            raise InvalidInput(f"{self.name}: h = {h} hash functions need at least as many Bloom bits, got k = {k}")
        if self.d >= self.m * k:  # §4: the regression of m·k bit counts on d candidates needs d < m·k
            raise InvalidInput(f"{self.name}: the server regresses m·k = {self.m * k} bit counts on the d = {self.d} "
                               "candidates and needs d < m·k; use more bits k or more cohorts m")
        keep, flip = sue_probabilities(self.epsilon / h)  # per bit, the PRR is SUE at ε∞/h: 1 − f/2 and f/2
        self._first = (keep, flip)
        f = 2 * flip
        eps1 = params["epsilon_1"]
        if eps1 is not None and eps1 >= self.epsilon:
            raise InvalidInput(f"{self.name}: epsilon_1 (one report) must be smaller than epsilon (ε∞, the memoized "
                               f"value), got ε1={eps1:g} ≥ ε∞={self.epsilon:g}")
        q = params["q"]
        if q is None:
            q = PAPER_Q if eps1 is None else _solve_q(f, p, h, eps1, self.name)
        if q <= p:
            raise InvalidInput(f"{self.name}: q (report bit for a permanent 1) must exceed p, got {q:g} ≤ {p:g}")
        spent = rappor_epsilons(f, p, q, h)[1]
        if eps1 is not None and params["q"] is not None and not math.isclose(spent, eps1, rel_tol=1e-9):
            raise InvalidInput(f"{self.name}: q = {q:g} gives ε1 = {spent:.6g}, not the epsilon_1 = {eps1:g} given; "
                               "give one of them")
        params["q"], params["epsilon_1"] = float(q), float(spent if eps1 is None else eps1)
        self._bits = rappor_bit_probabilities(f, p, q)
        tiny = min(flip, p, 1 - p, q, 1 - q, *self._bits, *(1 - b for b in self._bits))
        if tiny < MIN_PROBABILITY:
            raise InvalidInput(f"{self.name}: ε = {self.epsilon:g} is beyond what double-precision sampling can "
                               f"represent (a report probability of {tiny:.2g} < 2⁻⁴⁰); use a smaller ε")

    # ------------------------------------------------------------------ parameters
    @property
    def k(self) -> int:
        """Bits of a Bloom filter."""
        return self._params["k"]

    @property
    def h(self) -> int:
        """Hash functions per Bloom filter."""
        return self._params["h"]

    @property
    def m(self) -> int:
        """Number of cohorts."""
        return self._params["m"]

    @property
    def p(self) -> float:
        return self._params["p"]

    @property
    def q(self) -> float:
        return self._params["q"]

    @property
    def f(self) -> float:
        """The PRR's f, derived from ε∞: f/2 = 1/(1 + e^{ε∞/(2h)})."""
        return 2 * self._first[1]

    @property
    def bit_probabilities(self) -> tuple[float, float]:
        """(q*, p*): P(a report bit is 1 | the Bloom bit is 1), and | 0 (§3.2)."""
        return self._bits

    @property
    def paper_epsilons(self) -> tuple[float, float]:
        """The paper's (ε∞, ε1) from f, p, q, h (§3.1–3.2): the worst case over any hashes."""
        return rappor_epsilons(self.f, self.p, self.q, self.h)

    def _probabilities(self) -> tuple[float, float]:
        return 1.0, 0.0  # not pure: the estimate regresses the bit counts (module docstring)

    # ------------------------------------------------------------------ Bloom filters
    def hash_positions(self) -> np.ndarray:
        """P[j, l, v] = XXH32(str(v), seed = j·h + l) mod k: the bit hash l of cohort j sets for v (m × h × d)."""
        def build() -> np.ndarray:
            seeds = np.arange(self.m * self.h, dtype=np.int64).reshape(self.m, self.h, 1)
            out = xxh32_hash(np.arange(self.d, dtype=np.int64)[None, None, :], seeds, self.k)
            out.flags.writeable = False
            return out
        return self._cached("positions", build)

    def bloom(self) -> np.ndarray:
        """B[j, i, v] = 1 iff some hash of cohort j sets bit i for v (m × k × d booleans)."""
        def build() -> np.ndarray:
            pos = self.hash_positions()
            out = np.zeros((self.m, self.k, self.d), dtype=bool)
            out[np.arange(self.m)[:, None, None], pos, np.arange(self.d)[None, None, :]] = True
            out.flags.writeable = False
            return out
        return self._cached("bloom", build)

    def design_matrix(self) -> np.ndarray:
        """X[(j, i), v] = B_ji(v): rows are cohort-major (m·k × d, float)."""
        return self._cached("design", lambda: self.bloom().reshape(self.m * self.k, self.d).astype(np.float64))

    # ------------------------------------------------------------------ client
    def report_width(self) -> int:
        return self.k + 1

    def report_columns(self) -> int:
        return self.k + 1

    def bloom_filters(self, values: Any, cohorts: Any) -> np.ndarray:
        """Step 1: each user's Bloom filter B in its cohort (n × k booleans)."""
        v = self.validate_values(values)
        c = np.asarray(cohorts, dtype=np.int64)
        if c.shape != v.shape or (c.size and (c.min() < 0 or c.max() >= self.m)):
            raise InvalidInput(f"{self.name}: give one cohort in [0, m={self.m}) per value")
        out = np.zeros((v.shape[0], self.k), dtype=bool)
        out[np.arange(v.shape[0])[:, None], self.hash_positions()[c, :, v]] = True
        return out

    def permanent_response(self, bloom: np.ndarray, rng: RandomSource) -> np.ndarray:
        """Step 2, the PRR B': a bit is 1 w.p. f/2, 0 w.p. f/2 and B_i w.p. 1 − f — that is, 1 w.p. 1 − f/2 where
        B_i = 1 and f/2 where B_i = 0, drawn here in one Bernoulli per bit. Memoize it: draw it once per value."""
        keep, flip = self._first
        return bernoulli_select(rng, np.asarray(bloom, dtype=bool), keep, flip)

    def instantaneous_response(self, permanent: np.ndarray, rng: RandomSource) -> np.ndarray:
        """Step 3, the IRR S: P(S_i = 1) = q where B'_i = 1, p where B'_i = 0 (fresh for every report)."""
        return bernoulli_select(rng, np.asarray(permanent, dtype=bool), self.q, self.p)

    def _perturb(self, values: np.ndarray, rng: RandomSource) -> np.ndarray:
        cohorts = rng.integers(0, self.m, size=values.shape[0])
        permanent = self.permanent_response(self.bloom_filters(values, cohorts), rng)  # once per user: memoized
        return self._report(cohorts, self.instantaneous_response(permanent, rng))

    @staticmethod
    def _report(cohorts: np.ndarray, bits: np.ndarray) -> np.ndarray:
        """Rows 'j b₁ … b_k' as int16 (m ≤ 4096 cohorts; a quarter of int64's memory traffic)."""
        out = np.empty((bits.shape[0], bits.shape[1] + 1), dtype=np.int16)
        out[:, 0] = cohorts
        out[:, 1:] = bits
        return out

    def perturb_rounds(self, values: Any, rounds: int, rng: RandomSource) -> np.ndarray:
        """``rounds`` reports of every user (rounds × n × (k + 1)) from one cohort and one memoized PRR per user:
        every round is a fresh IRR of the same B' (§2, step 2), so together they never reveal more than ε∞."""
        if isinstance(rounds, bool) or not isinstance(rounds, (int, np.integer)) or rounds < 1:
            raise InvalidInput(f"{self.name}: rounds must be a positive integer, got {rounds!r}")
        v = self.validate_values(values)
        cohorts = rng.integers(0, self.m, size=v.shape[0])
        permanent = self.permanent_response(self.bloom_filters(v, cohorts), rng)
        return np.stack([self._report(cohorts, self.instantaneous_response(permanent, rng)) for _ in range(rounds)])

    # ------------------------------------------------------------------ server
    def _validate_reports(self, reports: np.ndarray) -> np.ndarray:
        if reports.ndim != 2 or reports.shape[1] != self.k + 1:
            raise InvalidInput(f"{self.name}: each report must be k + 1 = {self.k + 1} integers 'j b₁ … b_k', got "
                               f"shape {reports.shape}")
        reports = check_int_reports(self.name, reports, 0, max(self.m, 2), "report fields")
        if np.any(reports[:, 0] >= self.m) or np.any(reports[:, 1:] > 1):
            raise InvalidInput(f"{self.name}: reports need a cohort 0 ≤ j < m={self.m} and bits b of 0 or 1")
        return reports

    def statistic_size(self) -> int:
        return self.m * (self.k + 1)

    def _layout(self, stat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(c, N): bit counts (…, m, k) and cohort sizes (…, m) of statistics (…, m·(k + 1))."""
        blocks = np.asarray(stat, dtype=np.float64).reshape(np.shape(stat)[:-1] + (self.m, self.k + 1))
        return blocks[..., :self.k], blocks[..., self.k]

    def _report_range(self) -> tuple[float, float]:
        return 0.0, 1.0  # a report adds its bits (0 or 1) and 1 to its cohort's size

    def _support_counts(self, reports: np.ndarray) -> np.ndarray:
        # rows sorted by cohort and summed cohort by cohort (a boolean mask over n·k cells cost three times more)
        cohorts = reports[:, 0].astype(np.int64)
        sizes = np.bincount(cohorts, minlength=self.m)
        ones = np.zeros((self.m, self.k), dtype=np.int64)
        live = sizes > 0
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])[live]
        ranked = reports[np.argsort(cohorts, kind="stable"), 1:]
        ones[live] = np.add.reduceat(ranked, starts, axis=0, dtype=np.int64)
        return np.concatenate([ones, sizes[:, None]], axis=1).ravel().astype(np.float64)

    def _sample_counts(self, true_counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        # users of each value split uniformly over the cohorts; given the split a report's bits are independent,
        # Bernoulli(q*) on the Bloom bits and Bernoulli(p*) elsewhere: exact in distribution
        q_star, p_star = self._bits
        split = rng.multinomial(np.asarray(true_counts, dtype=np.int64), np.full(self.m, 1.0 / self.m))  # d × m
        sizes = split.sum(axis=0)
        bloom = self._cached("bloom-int", lambda: self.bloom().astype(np.int64))
        ones = (bloom @ split.T[:, :, None])[:, :, 0]  # users of cohort j whose Bloom bit i is set
        c = rng.binomial(ones, q_star) + rng.binomial(sizes[:, None] - ones, p_star)
        return np.concatenate([c, sizes[:, None]], axis=1).ravel().astype(np.float64)

    def _bit_one_probability(self) -> np.ndarray:
        """π[j, i, v] = P(report bit i = 1 | value v, cohort j) = p* + (q* − p*)·B_ji(v)."""
        q_star, p_star = self._bits
        return p_star + (q_star - p_star) * self.bloom()

    def _expected_aggregate(self, true_counts: np.ndarray, support: np.ndarray | None) -> np.ndarray:
        n = float(true_counts.sum())
        ones = self._bit_one_probability() @ true_counts.astype(np.float64) / self.m
        return np.concatenate([ones, np.full((self.m, 1), n / self.m)], axis=1).ravel()

    def _aggregate_variance(self, true_counts: np.ndarray, support: np.ndarray | None) -> np.ndarray:
        # per user an entry is Bernoulli(π/m) (its cohort and its bit), or Bernoulli(1/m) for N_j; users independent
        n = float(true_counts.sum())
        pi = self._bit_one_probability() / self.m
        ones = (pi * (1 - pi)) @ true_counts.astype(np.float64)
        return np.concatenate([ones, np.full((self.m, 1), n * (1 - 1 / self.m) / self.m)], axis=1).ravel()

    # ------------------------------------------------------------------ estimation (§4)
    def _decoder(self) -> tuple[np.ndarray, np.ndarray]:
        """(G, G Xᵀ) with G = (XᵀX)⁻¹, refusing a design that cannot tell the d candidates apart."""
        def build() -> tuple[np.ndarray, np.ndarray]:
            x = self.design_matrix()
            gram = x.T @ x
            if np.linalg.cond(gram) > MAX_CONDITION:
                raise InvalidInput(f"{self.name}: {self.m} cohorts of {self.k}-bit Bloom filters cannot tell "
                                   f"{self.d} values apart (the design matrix is singular); use more bits k or more "
                                   "cohorts m")
            g = np.linalg.inv(gram)
            return g, g @ x.T
        return self._cached("decoder", build)

    def bit_count_estimates(self, stat: np.ndarray) -> np.ndarray:
        """t_ji = (c_ji − p*·N_j)/(q* − p*), the estimated users of cohort j with Bloom bit i set (…, m·k)."""
        q_star, p_star = self._bits
        c, sizes = self._layout(stat)
        t = (c - p_star * sizes[..., None]) / (q_star - p_star)
        return t.reshape(t.shape[:-2] + (self.m * self.k,))

    def invert(self, counts: np.ndarray, n: int) -> np.ndarray:
        """f̂ = m·(XᵀX)⁻¹Xᵀt / n, the OLS frequencies (row-wise on a (trials, m·(k + 1)) array)."""
        return self.m * (self.bit_count_estimates(counts) @ self._decoder()[1].T) / n

    def decode(self, aggregate: Aggregate | Any, n: int | None = None, alpha: float = ALPHA) -> RapporDecoding:
        """The paper's decoding (§4) of an aggregate: OLS on the candidates and a t-test of each coefficient, with the
        OLS standard error σ̂²(XᵀX)⁻¹_vv, σ̂² = RSS/(mk − d), against a t(mk − d) law. Our choice: one-sided (H₁: the
        count is positive); detected = p < α/d (Bonferroni over the d candidates, α = 0.05 in the paper)."""
        if not (isinstance(alpha, (int, float)) and 0 < alpha < 1):
            raise InvalidInput(f"{self.name}: the significance level alpha must lie in (0, 1), got {alpha!r}")
        agg = self.as_aggregate(aggregate, n)
        g, solve = self._decoder()
        t = self.bit_count_estimates(agg.counts)
        beta = solve @ t
        dof = self.m * self.k - self.d
        rss = float(np.sum((t - self.design_matrix() @ beta) ** 2))
        sigma2 = rss / dof
        se = np.sqrt(sigma2 * np.diag(g))
        from scipy import stats  # imported on use: keeps `import ldp` light

        with np.errstate(divide="ignore", invalid="ignore"):
            tstat = np.where(se > 0, beta / se, np.sign(beta) * np.inf)
        pvals = np.where(np.isnan(tstat), 1.0, stats.t.sf(tstat, dof))
        detected = tuple(int(v) for v in np.flatnonzero(pvals < alpha / self.d))
        scale = self.m / agg.n
        return RapporDecoding(frozen_array(self.m * beta), frozen_array(scale * beta), frozen_array(scale * se),
                              frozen_array(tstat), frozen_array(pvals), detected, float(alpha), dof, sigma2)

    def _estimate(self, aggregate: Aggregate) -> Estimate:
        dec = self.decode(aggregate)
        return Estimate(dec.frequencies, "mi", diagnostics={
            "method": "OLS of the estimated Bloom bit counts on the d candidates (RAPPOR §4)",
            "detected": dec.detected, "p_values": dec.p_values, "std_errors": dec.std_errors, "alpha": dec.alpha,
            "residual_dof": dec.residual_dof, "detected_count": len(dec.detected),
            "detected_values": ", ".join(map(str, dec.detected))})  # the scalar form summaries and the CLI show

    # ------------------------------------------------------------------ theory of the estimate
    def variance_matrix(self) -> np.ndarray:
        """C[v, u]: n·Var[f̂_u] contributed per unit frequency of v, so Var[f̂_u] = (1/n) Σ_v f_v C[v, u] (module
        docstring, exact for these hashes and the random cohorts)."""
        def build() -> np.ndarray:
            q_star, p_star = self._bits
            gap2 = (q_star - p_star) ** 2
            x = self.design_matrix()
            g = self._decoder()[0]
            y = x @ g
            y2 = y * y
            base, extra = p_star * (1 - p_star), q_star * (1 - q_star) - p_star * (1 - p_star)
            noise = (base * y2.sum(axis=0)[None, :] + extra * (x.T @ y2)) / gap2
            split = np.zeros((self.d, self.d))
            for j in range(self.m):
                rows = slice(j * self.k, (j + 1) * self.k)
                split += (x[rows].T @ y[rows]) ** 2
            out = self.m * (noise + split) - np.eye(self.d)
            out.flags.writeable = False
            return out
        return self._cached("variance", build)

    def variance(self, freqs: np.ndarray | float, n: int) -> np.ndarray:
        """Exact variance of the OLS frequency estimate for the population with frequencies ``freqs`` (a vector of d):
        (1/n) Σ_v f_v C[v, u]. Anything else (one frequency, other shapes): each entry f is read as "a value of
        frequency f, the other d − 1 sharing 1 − f equally", averaged over which value it is."""
        f = np.asarray(freqs, dtype=np.float64)
        super().variance(freqs, n)  # validates f and n
        c = self.variance_matrix()
        if f.shape == (self.d,):
            return f @ c / n
        own = np.diag(c)
        others = (c.sum(axis=0) - own) / (self.d - 1)
        return np.mean(f[..., None] * own + (1 - f[..., None]) * others, axis=-1) / n

    # ------------------------------------------------------------------ privacy
    def _worst_pair(self, gain_own: float, gain_other: float) -> float:
        """max over cohorts and values v, w of a·gain_own + b·gain_other, a (b) the bits of the cohort set for v and
        not w (for w and not v). Both are at most h, so one cohort with two disjoint sets of h bits attains the bound
        h·(gain_own + gain_other) — checked first, in O(d·k) per cohort; otherwise every pair, in blocks."""
        bloom = self.bloom()
        sizes = bloom.sum(axis=1)  # m × d
        for j in range(self.m):
            full = np.flatnonzero(sizes[j] == self.h)
            if full.size >= 2 and np.any(bloom[j][:, full[0]].astype(np.int64) @ bloom[j][:, full[1:]] == 0):
                return self.h * (gain_own + gain_other)
        best = 0.0
        rows = max(1, (1 << 20) // self.d)
        for j in range(self.m):
            b = bloom[j].astype(np.int64)  # k × d
            for start in range(0, self.d, rows):
                shared = b[:, start:start + rows].T @ b  # bits set for both v (this block) and w
                own = sizes[j, start:start + rows, None] - shared
                other = sizes[j][None, :] - shared
                best = max(best, float((own * gain_own + other * gain_other).max()))
        return best

    def exact_privacy_loss(self) -> float:
        """One report's privacy loss for these hashes: max over cohorts and values v ≠ w of a·ln(q*/p*) +
        b·ln((1 − p*)/(1 − q*)), a and b the bits set for v only and for w only (the product channel's worst ratio);
        the paper's ε1 when two values have disjoint sets of h distinct bits in some cohort."""
        q_star, p_star = self._bits
        return self._worst_pair(math.log(q_star / p_star), math.log((1 - p_star) / (1 - q_star)))

    def first_step_privacy_loss(self) -> float:
        """The memoized PRR's privacy loss for these hashes: (a + b)·ln((1 − f/2)/(f/2)) at the worst pair (ε∞ = 2h
        ln((1 − f/2)/(f/2)) when two values' bits are disjoint in some cohort)."""
        keep, flip = self._first
        return self._worst_pair(math.log(keep / flip), math.log(keep / flip))

    def _output_count(self) -> int:
        return self.m * 2**self.k

    def _channel(self) -> tuple[np.ndarray, list[str]]:
        patterns = np.array(list(itertools.product((0, 1), repeat=self.k)), dtype=bool)  # 2^k × k
        pi = self._bit_one_probability().transpose(2, 0, 1)[:, :, None, :]  # d × m × 1 × k
        probs = np.where(patterns[None, None], pi, 1 - pi).prod(axis=-1) / self.m  # d × m × 2^k
        labels = [f"{j} " + " ".join(map(str, row)) for j in range(self.m) for row in patterns.astype(int).tolist()]
        return probs.reshape(self.d, -1), labels

    def _report_supports(self, reports: np.ndarray, v: int) -> np.ndarray:
        """Whether each report's bits at v's Bloom positions in its cohort are all 1 — the Bloom filter's membership
        query, the privacy audit's "support" events (probability q*^{h_v} for a holder of v, h_v ≤ h bits)."""
        positions = self.hash_positions()[reports[:, 0].astype(np.int64), :, v]  # n × h
        return np.all(np.take_along_axis(reports[:, 1:], positions, axis=1) == 1, axis=1)

    def _attack_success(self, prior: np.ndarray) -> float | None:
        """Σ_y max_v π_v Pr[y | v] without enumerating the 2^k reports: a bit no value sets in a cohort has the same
        law (p*) under every value, so per cohort only the patterns of the bits some value sets count (2^u of them,
        u ≤ h·d); None when those patterns would exceed ``ATTACK_ENUMERATION_CELLS`` with the d values."""
        bloom = self.bloom()
        used = [np.flatnonzero(bloom[j].any(axis=1)) for j in range(self.m)]
        if self.d * sum(2**u.size for u in used) > ATTACK_ENUMERATION_CELLS:
            return None
        q_star, p_star = self._bits
        total = 0.0
        for j, bits in enumerate(used):
            patterns = np.array(list(itertools.product((0.0, 1.0), repeat=bits.size))).reshape(-1, bits.size)
            pi = p_star + (q_star - p_star) * bloom[j][bits]  # u × d
            log_p = patterns @ np.log(pi) + (1 - patterns) @ np.log1p(-pi)  # 2^u × d
            total += float((np.exp(log_p) * prior[None, :]).max(axis=1).sum())
        return total / self.m

    def _report_bits(self) -> int:
        return (ceil_log2(self.m) if self.m > 1 else 0) + self.k

    def report_bits_formula(self) -> str:
        return "⌈log₂ m⌉ + k (the cohort and the k bits)"

    def _explain_report(self, report_text: str) -> str:
        fields = report_text.split()
        ones = [i for i, b in enumerate(fields[1:]) if b == "1"]
        shown = ", ".join(map(str, ones[:12])) + (", …" if len(ones) > 12 else "")
        q_star, p_star = self._bits
        return (f"Cohort {fields[0]} and k = {self.k} report bits, 1 at {{{shown}}}: a bit of the user's Bloom filter "
                f"(the h = {self.h} bits its value hashes to in this cohort) is 1 with probability q* = {q_star:.3g}, "
                f"any other with p* = {p_star:.3g}.")

