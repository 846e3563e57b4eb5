"""One-time categorical frequency oracles: GRR, SUE, OUE, THE, SHE and SS.

Parameters follow the IBU paper §3.1 (Arcolezi et al., DBSec 2023) and the lecture's comparison
table (Wang et al., USENIX Security 2017).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator

import numpy as np

from ldp.core.params import Param
from ldp.core.randomness import RandomSource, bernoulli
from ldp.core.registry import MECHANISMS
from ldp.mechanisms.base import Mechanism, check_int_reports
from ldp.mechanisms.frequency.sampling import binomial_support_counts, structured_gaussian_counts

IBU_PAPER = "Arcolezi, Cerna, Palamidessi — On the Utility Gain of Iterative Bayesian Update (DBSec 2023)"
LECTURE = "Wang, Blocki, Li, Jha — LDP Protocols for Frequency Estimation (USENIX Security 2017), lecture"


# --------------------------------------------------------------------------- GRR
def grr_probabilities(epsilon: float, k: int) -> tuple[float, float]:
    """Eq. (4) of the IBU paper: p = e^ε/(e^ε + k − 1), q = 1/(e^ε + k − 1)."""
    e = math.exp(epsilon)
    return e / (e + k - 1), 1.0 / (e + k - 1)


def grr_randomize(values: np.ndarray, p: float, k: int, rng: RandomSource) -> np.ndarray:
    """Keep each value with probability p, else replace it by a uniform *other* value of [0, k)."""
    keep = bernoulli(rng, p, values.shape[0])
    shift = rng.integers(1, k, size=values.shape[0]) if k > 1 else np.zeros_like(values)
    return np.where(keep, values, (values + shift) % k)


def grr_sample_counts(true_counts: np.ndarray, p: float, q: float, rng: np.random.Generator) -> np.ndarray:
    """Exact GRR output histogram in O(d).

    Row v of the GRR channel is (p − q)·δ_v + (k q)·Uniform(D) with k q + p − q = 1: each user tells
    the truth with probability λ = p − q and otherwise reports a uniform value (possibly its own).
    So the counts are Binomial(n_v, λ) truth-tellers plus one Multinomial(n − Σ, uniform).
    """
    c = np.asarray(true_counts, dtype=np.int64)
    k = c.shape[0]
    truthful = rng.binomial(c, p - q)
    rest = int(c.sum() - truthful.sum())
    return (truthful + rng.multinomial(rest, np.full(k, 1.0 / k))).astype(np.float64)


@MECHANISMS.register
class GRR(Mechanism):
    """Generalized randomized response (direct encoding, k-RR): report the true value with
    probability p, otherwise a uniformly random other value."""

    name = "grr"
    display_name = "GRR (k-RR)"
    family = "grr"
    description = "Generalized randomized response: report the true value w.p. p, else another value"
    paper = IBU_PAPER + ", §3.1 Eq. (4)"
    report_format = "an integer index in [0, d)"
    communication = "O(log d)"

    def _probabilities(self) -> tuple[float, float]:
        return grr_probabilities(self.epsilon, self.d)

    def _perturb(self, values: np.ndarray, rng: RandomSource) -> np.ndarray:
        return grr_randomize(values, self.p_star, self.d, rng)

    def _validate_reports(self, reports: np.ndarray) -> np.ndarray:
        if reports.ndim != 1:
            raise ValueError(f"{self.name}: expected one integer per report, got shape {reports.shape}")
        return check_int_reports(self.name, reports, 0, self.d, "reports")

    def _scalar_reports(self) -> bool:
        return True

    def _support_counts(self, reports: np.ndarray) -> np.ndarray:
        return np.bincount(reports, minlength=self.d)

    def _sample_counts(self, true_counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return grr_sample_counts(true_counts, self.p_star, self.q_star, rng)

    def _output_count(self) -> int:
        return self.d

    def _channel(self) -> tuple[np.ndarray, list[str]]:
        m = np.full((self.d, self.d), self.q_star)
        np.fill_diagonal(m, self.p_star)
        return m, [str(y) for y in range(self.d)]


# --------------------------------------------------------------------------- unary encoding
class BitVectorMechanism(Mechanism):
    """Reports are d bits, one per value, drawn independently: Bernoulli(p*) for the user's own
    value and Bernoulli(q*) elsewhere (UE, THE, and the longitudinal UE chains)."""

    family = "ue"
    report_format = "a string of d characters '0'/'1' (bit v set = supports v)"
    communication = "O(d)"

    def report_width(self) -> int:
        return self.d

    def _perturb(self, values: np.ndarray, rng: RandomSource) -> np.ndarray:
        m = values.shape[0]
        bits = bernoulli(rng, self.q_star, (m, self.d))
        bits[np.arange(m), values] = bernoulli(rng, self.p_star, m)
        return bits

    def _validate_reports(self, reports: np.ndarray) -> np.ndarray:
        if reports.ndim != 2 or reports.shape[1] != self.d:
            raise ValueError(f"{self.name}: each report must have d={self.d} bits, got shape {reports.shape}")
        if reports.dtype != np.bool_:
            reports = check_int_reports(self.name, reports, 0, 2, "report bits")
            reports = reports.astype(bool)
        return reports

    def _support_counts(self, reports: np.ndarray) -> np.ndarray:
        return np.count_nonzero(reports, axis=0)

    def _sample_counts(self, true_counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return binomial_support_counts(true_counts, self.p_star, self.q_star, rng)

    def _output_count(self) -> int:
        return 2**self.d

    def _channel(self) -> tuple[np.ndarray, list[str]]:
        outs = np.array(list(itertools.product([0, 1], repeat=self.d)), dtype=bool)  # (2^d, d)
        p, q = self.p_star, self.q_star
        base = np.where(outs, q, 1 - q).prod(axis=1)  # all bits "other"
        m = np.empty((self.d, outs.shape[0]))
        for v in range(self.d):
            own = np.where(outs[:, v], p, 1 - p) / np.where(outs[:, v], q, 1 - q)
            m[v] = base * own
        return m, ["".join("1" if b else "0" for b in row) for row in outs]

    def _format_reports(self, reports: np.ndarray) -> Iterator[str]:
        table = np.array([ord("0"), ord("1")], dtype=np.uint8)
        for start in range(0, reports.shape[0], 4096):
            block = table[reports[start:start + 4096].astype(np.uint8)]
            for row in block:
                yield row.tobytes().decode("ascii")

    def _parse_line(self, line: str) -> list[int]:
        if len(line) != self.d or set(line) - {"0", "1"}:
            raise ValueError(f"expected {self.d} characters '0'/'1' ({self.name}), got {line[:40]!r}"
                             + (f" of length {len(line)}" if len(line) != self.d else ""))
        return [1 if ch == "1" else 0 for ch in line]


@MECHANISMS.register
class SUE(BitVectorMechanism):
    """Symmetric unary encoding (basic one-time RAPPOR): p = e^{ε/2}/(e^{ε/2}+1), q = 1 − p."""

    name = "sue"
    display_name = "SUE (basic RAPPOR)"
    description = "Symmetric unary encoding: one-hot vector, each bit kept w.p. e^{ε/2}/(e^{ε/2}+1)"
    paper = IBU_PAPER + ", §3.1 Eq. (5)"

    def _probabilities(self) -> tuple[float, float]:
        h = math.exp(self.epsilon / 2)
        return h / (h + 1), 1 / (h + 1)


@MECHANISMS.register
class OUE(BitVectorMechanism):
    """Optimized unary encoding: p = 1/2, q = 1/(e^ε + 1) (Wang et al. 2017)."""

    name = "oue"
    display_name = "OUE"
    description = "Optimized unary encoding: the 1-bit kept w.p. 1/2, 0-bits flipped w.p. 1/(e^ε+1)"
    paper = IBU_PAPER + ", §3.1 Eq. (5)"

    def _probabilities(self) -> tuple[float, float]:
        return 0.5, 1 / (math.exp(self.epsilon) + 1)


def the_probabilities(epsilon: float, theta: float) -> tuple[float, float]:
    """THE (IBU paper §3.1): p* = 1 − ½ e^{ε(θ−1)/2}, q* = ½ e^{−εθ/2}."""
    return 1 - 0.5 * math.exp(epsilon * (theta - 1) / 2), 0.5 * math.exp(-epsilon * theta / 2)


def the_optimal_theta(epsilon: float) -> float:
    """θ in [1/2, 1] minimizing (2e^{εθ/2} − 1)/(1 + e^{ε(θ−1/2)} − 2e^{εθ/2})² (IBU paper §3.1)."""
    def var(theta: float) -> float:
        x = math.exp(epsilon * theta / 2)
        return (2 * x - 1) / (1 + math.exp(epsilon * (theta - 0.5)) - 2 * x) ** 2

    from scipy import optimize  # imported on use: keeps `import ldp` (and app start-up) light

    res = optimize.minimize_scalar(var, bounds=(0.5, 1.0), method="bounded", options={"xatol": 1e-10})
    return float(res.x)


@MECHANISMS.register
class THE(BitVectorMechanism):
    """Thresholding with histogram encoding.

    The client adds Laplace(2/ε) noise to its one-hot vector (histogram encoding, sensitivity 2)
    and reports the support set S(y) = {v | y_v > θ} as d bits. Coordinates are independent, so the
    bit for the user's own value is Bernoulli(Pr[1 + Lap > θ] = p*) and every other bit is
    Bernoulli(Pr[Lap > θ] = q*); the client draws these events directly (same distribution, no
    floats sent). θ defaults to the variance-optimal value in (1/2, 1).

    Budget: the Laplace release is exactly ε-LDP; the thresholded bits are a post-processing of it,
    so their channel ratio p*(1−q*)/(q*(1−p*)) is below e^ε — THE knowingly spends less than ε.
    """

    name = "the"
    display_name = "THE"
    description = "Thresholding histogram encoding: Laplace noise on a one-hot vector, report bits above θ"
    paper = IBU_PAPER + ", §3.1 (THE)"
    extra_parameters = (Param("theta", float, "threshold θ (default: variance-optimal in (0.5, 1))",
                              low=0.0, low_inclusive=False, high=1.0, high_inclusive=False, optional=True),)
    spends_full_budget = False

    def _setup(self) -> None:
        if self._params["theta"] is None:
            self._params["theta"] = the_optimal_theta(self.epsilon)

    @property
    def theta(self) -> float:
        return self._params["theta"]

    def _probabilities(self) -> tuple[float, float]:
        return the_probabilities(self.epsilon, self.theta)


@MECHANISMS.register
class SHE(Mechanism):
    """Summation with histogram encoding: the client sends its one-hot vector plus Laplace(2/ε)
    noise on every coordinate; the server sums. Not pure: the estimate is the sum divided by n,
    with variance 2(2/ε)²/n = 8/(ε² n) (lecture's table)."""

    name = "she"
    display_name = "SHE"
    family = "he"
    description = "Summation histogram encoding: one-hot vector + Laplace(2/ε) noise, summed by the server"
    paper = LECTURE + " (SHE); " + IBU_PAPER + ", §3.1"
    report_format = "d space-separated real numbers (the noisy one-hot vector)"
    communication = "O(d)"
    pure = False

    @property
    def scale(self) -> float:
        return 2.0 / self.epsilon

    def _probabilities(self) -> tuple[float, float]:
        return 1.0, 0.0  # the sum of noisy vectors is already unbiased: f̂ = C / n

    def report_width(self) -> int:
        return 2 * self.d  # float32 noise plus temporaries

    def _perturb(self, values: np.ndarray, rng: RandomSource) -> np.ndarray:
        # Laplace by inversion, in float64: with u uniform on the grid k·2^-53 of [0, 1),
        # v = u − (½ − 2^-54) is exact and symmetric about 0 on (−½, ½) (odd multiples of 2^-54), so
        # c = 1 − 2|v| is exact and uniform on (0, 1) (odd multiples of 2^-53; never 0) and
        # x = −b sgn(v) ln(c) is Laplace(b): |x|/b = −ln(c) is Exp(1), the sign is independent.
        # A block of users at a time, in place, so that the float64 temporaries stay in cache; the
        # report is the float32 rounding of x.
        m, d = values.shape[0], self.d
        noise = np.empty((m, d), dtype=np.float32)
        sign_bit = np.uint64(1 << 63)
        rows = max(1, (1 << 16) // d)
        for start in range(0, m, rows):
            stop = min(m, start + rows)
            v = rng.random((stop - start, d))
            np.subtract(v, 0.5 - 2.0**-54, out=v)
            c = np.abs(v)
            np.multiply(c, -2.0, out=c)
            np.add(c, 1.0, out=c)  # c = 1 − 2|v|
            np.log(c, out=c)
            np.multiply(c, -self.scale, out=c)  # |x| = −b ln(c) > 0
            bits = v.view(np.uint64)
            np.bitwise_and(bits, sign_bit, out=bits)
            np.bitwise_xor(c.view(np.uint64), bits, out=c.view(np.uint64))  # x = sgn(v)·|x|
            noise[start:stop] = c
        noise[np.arange(m), values] += 1.0
        return noise

    def _validate_reports(self, reports: np.ndarray) -> np.ndarray:
        if reports.ndim != 2 or reports.shape[1] != self.d:
            raise ValueError(f"{self.name}: each report must have d={self.d} numbers, got shape {reports.shape}")
        if not np.issubdtype(reports.dtype, np.number) or not np.all(np.isfinite(reports)):
            raise ValueError(f"{self.name}: reports must be finite numbers")
        return reports

    def _support_counts(self, reports: np.ndarray) -> np.ndarray:
        return reports.sum(axis=0, dtype=np.float64)

    def _sample_counts(self, true_counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        # Σ of n Laplace(b) = b (Gamma(n, 1) − Gamma(n, 1)): exact in distribution.
        c = np.asarray(true_counts, dtype=np.float64)
        n = float(c.sum())
        return c + self.scale * (rng.standard_gamma(n, c.shape[0]) - rng.standard_gamma(n, c.shape[0]))

    def variance(self, freqs: np.ndarray | float, n: int) -> np.ndarray:
        f = np.asarray(freqs, dtype=np.float64)
        return np.full(f.shape, 2 * self.scale**2 / n)

    def laplace_log_density(self, y: np.ndarray, v: int) -> np.ndarray:
        """ln of the report density at y (rows) for input v: the object of SHE's ε-LDP check."""
        shifted = np.asarray(y, dtype=np.float64).copy()
        shifted[..., v] -= 1.0
        return -np.abs(shifted).sum(axis=-1) / self.scale - shifted.shape[-1] * math.log(2 * self.scale)

    def _format_reports(self, reports: np.ndarray) -> Iterator[str]:
        return (" ".join(f"{x:.6g}" for x in row) for row in reports)

    def parse_reports(self, lines):
        rows = []
        for number, raw in enumerate(lines, start=1):
            line = raw.strip()
            if not line:
                continue
            try:
                rows.append([float(t) for t in line.split()])
            except ValueError:
                raise ValueError(f"report line {number}: not a {self.name} report ({self.report_format})") from None
        if not rows:
            raise ValueError(f"{self.name}: the report file holds no reports")
        if len({len(r) for r in rows}) != 1:
            raise ValueError(f"{self.name}: reports have different lengths")
        return self.validate_reports(np.asarray(rows, dtype=np.float64))


# --------------------------------------------------------------------------- subset selection
def ss_default_omega(epsilon: float, d: int) -> int:
    """ω = ⌊k/(e^ε + 1)⌋ (IBU paper §3.1), at least 1."""
    return max(1, int(math.floor(d / (math.exp(epsilon) + 1))))


def sample_subsets(universe: int, size: int, m: int, rng: RandomSource, *, exclude: np.ndarray | None = None,
                   include: np.ndarray | None = None) -> np.ndarray:
    """m independent uniform size-subsets of [0, universe), as a sorted (m, size) int64 array.

    With ``exclude`` (one value per row) row i is a uniform subset of [0, universe) ∖ {exclude[i]}; with
    ``include`` as well (one bool per row), the rows where it holds are {exclude[i]} plus a uniform
    (size − 1)-subset of the other values instead (subset selection's report).

    Method (exact): every free cell of an (m, universe) bit matrix is set independently with the same
    probability, so a row's set S is exchangeable — given |S| = K it is a uniform K-subset. A row with
    K above its target t then clears K − t of its set cells and a row below sets t − K of its free cells,
    chosen uniformly without replacement; by symmetry the result is a uniform t-subset for every K.
    The uniform choice is sequential rejection sampling, vectorized over rows in a few rounds: a row
    draws uniform candidate cells and takes, in order, those still in its source set (set cells to
    clear or free cells to set) until it has enough. A round evaluates its candidates against the
    state before the round, so the first ``need`` acceptable candidates of a row may repeat a cell;
    repeats count once and the row's remaining candidates are discarded (unused i.i.d. draws after a
    stopping time), which leaves each accepted cell uniform over the cells still available, exactly
    as one-at-a-time sampling. Reading each row's set bits in order gives sorted subsets.
    """
    m, universe, size = int(m), int(universe), int(size)
    free = universe - (exclude is not None)
    if include is not None and exclude is None:
        raise ValueError("include needs exclude")
    target = np.full(m, size, dtype=np.int64)
    if include is not None:
        target -= np.asarray(include, dtype=bool)
    if size < 0 or np.any(target > free) or np.any(target < 0):
        raise ValueError(f"cannot draw {size} distinct values out of {free}")
    if size == 0 or m == 0:
        return np.empty((m, size), dtype=np.int64)
    rows = np.arange(m)
    # Any common probability works; a multiple of 1/256 near the mean target needs no tie-breaking.
    rate = min(256, round(256 * float(target.mean()) / free)) / 256 if free else 0.0
    chosen = bernoulli(rng, rate, (m, universe))
    if exclude is not None:
        exclude = np.asarray(exclude, dtype=np.int64)
        chosen[rows, exclude] = False
    count = np.add.reduce(chosen.view(np.uint8), axis=1, dtype=np.uint16 if universe < 2**16 else np.int64)
    count = count.astype(np.int64)
    flat = chosen.reshape(-1)
    marks = flat.view(np.uint8)
    if exclude is not None:
        marks[rows * universe + exclude] = 2  # the excluded cells match neither a set nor a free cell
    itype = np.int32 if m * universe < 2**31 else np.int64
    active = np.flatnonzero(count != target)
    while active.size:
        gap = count[active] - target[active]
        clear = gap > 0  # these rows clear set cells; the others set free cells
        need = np.minimum(np.abs(gap), 250)  # ≤ 250 per round: the repeat marks below fit in a byte
        source = np.where(clear, count[active], free - count[active])
        expect = need * (universe / source)  # candidates needed on average
        per_row = np.ceil(expect + np.sqrt(expect) + 2.0).astype(itype)
        owner = np.repeat(np.arange(active.size, dtype=itype), per_row)
        cell = rng.integers(0, universe, size=owner.size, dtype=itype)
        cell += np.repeat((active * universe).astype(itype), per_row)
        ok = marks[cell] == clear.view(np.uint8)[owner]
        # the first `need` acceptable candidates of each row, in draw order
        seen = np.cumsum(ok, dtype=itype)
        ends = np.cumsum(per_row)
        before = np.concatenate((np.zeros(1, itype), seen))[ends - per_row]
        taken = np.flatnonzero(ok & (seen <= np.repeat(before + need.astype(itype), per_row)))
        cell, owner = cell[taken], owner[taken]
        # a cell taken twice by a row counts once: give the takes of a row distinct marks (2..251),
        # write them all, and keep one taker per cell (the one whose mark survived)
        mark = (seen[taken] - before[owner] + 1).astype(np.uint8)
        marks[cell] = mark
        distinct = marks[cell] == mark
        marks[cell] = clear.view(np.uint8)[owner] ^ np.uint8(1)
        done = np.bincount(owner[distinct], minlength=active.size)
        count[active] += np.where(clear, -done, done)
        active = active[count[active] != target[active]]
    if exclude is not None:
        chosen[rows, exclude] = False if include is None else include
    out = np.empty((m, size), dtype=np.int64)
    block = max(1, (1 << 18) // universe)
    for start in range(0, m, block):
        stop = min(m, start + block)
        pos = np.flatnonzero(chosen[start:stop]).reshape(stop - start, size)
        np.subtract(pos, (np.arange(stop - start) * universe)[:, None], out=out[start:stop])
    return out


@MECHANISMS.register
class SS(Mechanism):
    """Subset selection (Wang et al. 2016; Ye & Barg 2018): report a subset Ω of size ω that
    contains the true value with probability p = ω e^ε/(ω e^ε + k − ω), filled with uniform other
    values. Fast engine: Gaussian with the exact mean and covariance of the counts."""

    name = "ss"
    display_name = "SS (subset selection)"
    family = "ss"
    description = "Subset selection: report ω values, including the true one w.p. ωe^ε/(ωe^ε+d−ω)"
    paper = IBU_PAPER + ", §3.1 (SS)"
    report_format = "ω space-separated value indices"
    communication = "O(ω log d)"
    fast_engine_exact = False
    extra_parameters = (Param("omega", int, "subset size ω (default ⌊d/(e^ε+1)⌋)", low=1, optional=True),)

    def _setup(self) -> None:
        if self._params["omega"] is None:
            self._params["omega"] = ss_default_omega(self.epsilon, self.d)
        if self._params["omega"] >= self.d:
            raise ValueError(f"{self.name}: omega must be smaller than d={self.d}, got {self._params['omega']}")

    @property
    def omega(self) -> int:
        return self._params["omega"]

    def _probabilities(self) -> tuple[float, float]:
        w, k, e = self.omega, self.d, math.exp(self.epsilon)
        p = w * e / (w * e + k - w)
        q = (w * e * (w - 1) + (k - w) * w) / ((k - 1) * (w * e + k - w))
        return p, q

    def report_width(self) -> int:
        return self.d

    def _perturb(self, values: np.ndarray, rng: RandomSource) -> np.ndarray:
        # A uniform ω-subset of D ∖ {v}; with probability p* a uniformly chosen element is replaced by v.
        # Dropping a uniformly chosen element of a uniform ω-subset leaves a uniform (ω−1)-subset, so
        # those users report v plus a uniform (ω−1)-subset of D ∖ {v}: sample_subsets draws that directly.
        include = bernoulli(rng, self.p_star, values.shape[0])
        return sample_subsets(self.d, self.omega, values.shape[0], rng, exclude=values, include=include)

    def _validate_reports(self, reports: np.ndarray) -> np.ndarray:
        if reports.ndim != 2 or reports.shape[1] != self.omega:
            raise ValueError(f"{self.name}: each report must list ω={self.omega} values, got shape {reports.shape}")
        reports = check_int_reports(self.name, reports, 0, self.d, "subset entries")
        if self.omega > 1:
            srt = np.sort(reports, axis=1)
            if np.any(srt[:, 1:] == srt[:, :-1]):
                raise ValueError(f"{self.name}: a subset report repeats a value")
        return reports

    def _support_counts(self, reports: np.ndarray) -> np.ndarray:
        return np.bincount(reports.ravel(), minlength=self.d)

    def _sample_counts(self, true_counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        p, q, w, m = self.p_star, self.q_star, self.omega, self.d - 1
        both_other = (p * (w - 1) * (w - 2) + (1 - p) * w * (w - 1)) / (m * (m - 1)) if m > 1 else 0.0
        return structured_gaussian_counts(
            true_counts, p, q, var_t=p * (1 - p), var_o=q * (1 - q),
            cov_to=p * (w - 1) / m - p * q, cov_oo=both_other - q * q, rng=rng)

    def _output_count(self) -> int:
        return math.comb(self.d, self.omega)

    def _channel(self) -> tuple[np.ndarray, list[str]]:
        subsets = list(itertools.combinations(range(self.d), self.omega))
        w, k = self.omega, self.d
        p_in = self.p_star / math.comb(k - 1, w - 1)
        p_out = (1 - self.p_star) / math.comb(k - 1, w)
        m = np.array([[p_in if v in s else p_out for s in subsets] for v in range(k)])
        return m, [" ".join(map(str, s)) for s in subsets]
