"""Hierarchical histograms (HH) over the d input buckets, with constrained inference and HH-ADMM.

Square-wave paper (Li et al., SIGMOD 2020) §4.2–§4.3, after Kulkarni et al. [21] and Hay et al. [17].

Tree. A β-ary tree (``branching`` β, default 4 as in the paper's experiments, §6.1) over D = β^h ≥ d
leaves; when d is not a power of β the domain is padded with D − d empty buckets, which the server
knows to be empty (the ADMM step constrains them to 0; they are dropped from the output). Depth 0 is the
root (frequency 1, known), depth k ∈ {1, …, h} has β^k nodes, depth h are the leaves.

Collection (§4.2, "divide the population"). Every user picks a layer k ∈ {1, …, h} uniformly at random and
reports, with the whole budget ε, the index of her value's ancestor at depth k through a categorical
frequency oracle over β^k values. The oracle of each layer is the variance-optimal one of GRR and OLH
(§4.1: GRR iff β^k < 3e^ε + 2) unless ``oracle`` fixes it. The server estimates each layer's node
frequencies by matrix inversion within that layer's group.

Reconstructions.

- ``hh-admm`` (default, §4.3): the post-processed tree minimizes ½‖x̂ − x̃‖²_W subject to A x̂ = 0 (every
  internal node equals the sum of its children), x̂ ≥ 0 and x̂_root = 1, Eq. (2). W is the inverse noise
  variance of each layer (all equal in the paper's all-OLH setup, where this is exactly the paper's plain
  L2 norm; with a GRR/OLH mix it is the Gaussian MLE the paper motivates). Solved by ADMM (Boyd et al.
  [7] §5): x-update = projection onto consistent trees with root 1 (the CI two-pass below, exact and O(D)),
  z-update = clipping at 0, scaled dual update; stopped by Boyd's primal/dual residual rule (§3.3.1) with
  ε_abs = 1e-9, ε_rel = 1e-6, at most 2000 iterations, ρ adapted by residual balancing (§3.4.1). The paper
  gives no stopping rule or ρ, so these are our defaults. The leaves are returned (sum to one, ≥ 0).
- ``hh-ci``: Hay et al.'s constrained inference, generalized to level-dependent variances: bottom-up
  weighted averaging z_v = (x̃_v/σ_v² + Σ_c z_c / (β s²_{k+1})) / (1/σ_v² + 1/(β s²_{k+1})) with
  s²_k = Var z at depth k, then top-down mean consistency x̄_c = z_c + (x̄_v − Σ_siblings z)/β, the root
  fixed at 1. This is the generalized-least-squares (BLUE) consistent tree; its leaves are unbiased, sum
  to one but may be negative (HH "does not result in valid distributions", §6.2).

Engines. ``exact`` runs the real per-layer client (``run_exact``) on each layer's users; ``fast`` samples
each layer's support counts with the oracle's ``sample_support_counts`` (exact in distribution for GRR,
moment-matched for OLH — see :mod:`ldp.engines`). Both split users among the layers with the same
per-bucket multinomial, which is exactly the distribution of independent uniform layer choices.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ldp.core.params import Param
from ldp.core.randomness import RandomSource
from ldp.engines import run_exact, run_fast
from ldp.mechanisms import get_mechanism
from ldp.mechanisms.base import Mechanism
from ldp.mechanisms.numerical import BUCKETS, NUMERICAL_MECHANISMS, NumericalMechanism, ValueScale

__all__ = [
    "ADMM_EPS_ABS", "ADMM_EPS_REL", "ADMM_MAX_ITER", "AdmmTrace", "HaarHRR", "HierarchicalHistogram", "admm_tree",
    "aggregate_tree", "constrained_inference", "fast_walsh_hadamard", "hadamard_sign", "tree_height",
]

PAPER = ("Li, Wang, Lopuhaä-Zwakenberg, Li, Škorić — Estimating Numerical Distributions under Local "
         "Differential Privacy, SIGMOD 2020, §4.2–4.3")

BRANCHING = Param("branching", int, "branching factor β of the hierarchy (paper: 4, §6.1)", default=4, low=2, high=64)
ORACLE = Param("oracle", str, "frequency oracle per layer: variance-optimal GRR/OLH (auto), or fixed",
               default="auto", choices=("auto", "grr", "olh"))

ADMM_EPS_ABS = 1e-9
ADMM_EPS_REL = 1e-6
ADMM_MAX_ITER = 2000


def tree_height(d: int, branching: int) -> int:
    """h = ⌈log_β d⌉ (at least 1): the tree has β^h ≥ d leaves."""
    h, size = 1, branching
    while size < d:
        size *= branching
        h += 1
    return h


def aggregate_tree(leaves: np.ndarray, branching: int) -> list[np.ndarray]:
    """Node values of every depth 0..h from the β^h leaf values (parent = sum of children)."""
    leaves = np.asarray(leaves, dtype=np.float64)
    h = round(math.log(leaves.size, branching))
    if branching ** h != leaves.size:
        raise ValueError(f"{leaves.size} leaves is not a power of {branching}")
    levels = [leaves]
    for _ in range(h):
        levels.append(levels[-1].reshape(-1, branching).sum(axis=1))
    return levels[::-1]


def constrained_inference(levels: list[np.ndarray], variances: Any, branching: int,
                          root: float | None = 1.0) -> list[np.ndarray]:
    """Hay et al.'s two-pass constrained inference with a noise variance per depth (§4.2, [17]).

    ``levels[k]`` are the noisy node estimates at depth k (β^k values; ``levels[0]`` the root),
    ``variances[k]`` their common variance. ``root`` fixes the root (variance 0) — the known total; with
    ``root=None`` the root's own estimate and variance are used. Returns the consistent tree (every node
    the sum of its children) that minimizes Σ_k Σ_v (x̄_v − x̃_v)²/σ_k²: exact GLS, since siblings share
    their variance. O(β^h).
    """
    h = len(levels) - 1
    var = np.asarray(variances, dtype=np.float64)
    z: list[np.ndarray] = [np.asarray(x, dtype=np.float64) for x in levels]
    s2 = np.empty(h + 1)
    s2[h] = var[h]
    for k in range(h - 1, -1, -1):  # bottom-up weighted averaging
        child_sum = z[k + 1].reshape(-1, branching).sum(axis=1)
        child_var = branching * s2[k + 1]
        if k == 0 and root is not None:
            z[0] = np.array([float(root)])
            s2[0] = 0.0
            continue
        if var[k] == np.inf:
            z[k], s2[k] = child_sum, child_var
            continue
        a, b = 1.0 / var[k], 1.0 / child_var
        z[k] = (a * z[k] + b * child_sum) / (a + b)
        s2[k] = 1.0 / (a + b)
    out = [z[0]]
    for k in range(1, h + 1):  # top-down mean consistency
        zk = z[k].reshape(-1, branching)
        gap = out[k - 1] - zk.sum(axis=1)
        out.append((zk + gap[:, None] / branching).ravel())
    return out


@dataclass(frozen=True)
class AdmmTrace:
    """How ADMM stopped: iterations run, final primal/dual residuals, whether the rule was met."""

    iterations: int
    primal_residual: float
    dual_residual: float
    converged: bool


def admm_tree(levels: list[np.ndarray], variances: Any, branching: int, *, fixed_zero: np.ndarray | None = None,
              rho: float = 1.0, eps_abs: float = ADMM_EPS_ABS, eps_rel: float = ADMM_EPS_REL,
              max_iter: int = ADMM_MAX_ITER) -> tuple[np.ndarray, AdmmTrace]:
    """HH-ADMM, Eq. (2) of §4.3: min ½‖x − x̃‖²_W s.t. A x = 0, x ≥ 0, x_root = 1, W = diag(1/σ²_depth).

    Split x (consistent tree, root 1) and z (x ≥ 0): Boyd et al. [7] scaled-form ADMM,
    x ← Proj_W+ρ(consistent, root 1)[(W x̃ + ρ(z − u))/(W + ρ)]  (= :func:`constrained_inference` with
    per-depth variances 1/(w_k + ρ)), z ← max(0, x + u) (0 on ``fixed_zero`` leaves, e.g. padding),
    u ← u + x − z. Stops when ‖r‖ ≤ √N ε_abs + ε_rel max(‖x‖, ‖z‖) and ‖s‖ ≤ √N ε_abs + ε_rel ‖ρu‖ (Boyd
    §3.3.1); ρ is rebalanced ×/÷2 when one residual exceeds 10× the other (§3.4.1). Returns the leaves of
    z renormalized to sum exactly to one, and the trace.
    """
    h = len(levels) - 1
    var = np.asarray(variances, dtype=np.float64)[1:]
    w = 1.0 / var
    w = w / w.mean()  # scale-free objective so that ρ = 1 is a sensible start
    sizes = [branching ** k for k in range(1, h + 1)]
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    n_nodes = int(offsets[-1])
    xt = np.concatenate([np.asarray(levels[k], dtype=np.float64) for k in range(1, h + 1)])
    wv = np.repeat(w, sizes)
    zero_mask = np.zeros(n_nodes, dtype=bool)
    if fixed_zero is not None and np.any(fixed_zero):
        leaf_zero = np.asarray(fixed_zero, dtype=bool)
        for k in range(1, h + 1):  # a node is forced to 0 if all its leaves are
            zero_mask[offsets[k - 1]:offsets[k]] = leaf_zero.reshape(sizes[k - 1], -1).all(axis=1)
    # warm start from the (weighted) CI solution clipped at 0
    ci = constrained_inference([np.ones(1)] + [xt[offsets[k - 1]:offsets[k]] for k in range(1, h + 1)],
                               np.concatenate([[0.0], var]), branching)
    x = np.concatenate(ci[1:])
    z = np.maximum(x, 0.0)
    z[zero_mask] = 0.0
    u = np.zeros(n_nodes)
    sqrt_n = math.sqrt(n_nodes)
    r_norm = s_norm = math.inf
    it = 0
    converged = False
    while it < max_iter:
        it += 1
        denom = wv + rho
        c = (wv * xt + rho * (z - u)) / denom
        lv = np.concatenate([[0.0], 1.0 / (w + rho)])
        tree = constrained_inference([np.ones(1)] + [c[offsets[k - 1]:offsets[k]] for k in range(1, h + 1)],
                                     lv, branching)
        x = np.concatenate(tree[1:])
        z_old = z
        z = np.maximum(x + u, 0.0)
        z[zero_mask] = 0.0
        r = x - z
        u = u + r
        r_norm = float(np.linalg.norm(r))
        s_norm = rho * float(np.linalg.norm(z - z_old))
        eps_pri = sqrt_n * eps_abs + eps_rel * max(float(np.linalg.norm(x)), float(np.linalg.norm(z)))
        eps_dual = sqrt_n * eps_abs + eps_rel * rho * float(np.linalg.norm(u))
        if r_norm <= eps_pri and s_norm <= eps_dual:
            converged = True
            break
        if r_norm > 10.0 * s_norm:
            rho *= 2.0
            u /= 2.0
        elif s_norm > 10.0 * r_norm:
            rho /= 2.0
            u *= 2.0
    leaves = z[offsets[h - 1]:offsets[h]].copy()
    total = leaves.sum()
    leaves = leaves / total if total > 0 else np.where(zero_mask[offsets[h - 1]:], 0.0, 1.0) / max(
        1, int((~zero_mask[offsets[h - 1]:]).sum()))
    return leaves, AdmmTrace(it, r_norm, s_norm, converged)


@NUMERICAL_MECHANISMS.register
class HierarchicalHistogram(NumericalMechanism):
    """HH in LDP (§4.2): users split uniformly over the h layers of a β-ary tree, one CFO report each."""

    name: ClassVar[str] = "hh"
    display_name: ClassVar[str] = "Hierarchical histogram (HH)"
    family: ClassVar[str] = "hierarchy"
    description: ClassVar[str] = ("each user reports her value's ancestor in one random layer of a β-ary tree "
                                  "with GRR or OLH; HH-ADMM or constrained inference makes the tree consistent")
    paper: ClassVar[str] = PAPER
    input_kind: ClassVar[str] = "continuous"
    report_format: ClassVar[str] = ("four integers per user: the layer k ∈ [1, h], then the layer oracle's "
                                    "report (GRR: the index, then 0 0; OLH: a b y)")
    domain_parameter: ClassVar[Param] = BUCKETS
    extra_parameters: ClassVar[tuple[Param, ...]] = (BRANCHING, ORACLE)
    reconstructions: ClassVar[tuple[str, ...]] = ("hh-admm", "hh-ci")

    def _setup(self) -> None:
        self._beta = int(self._params["branching"])
        self._h = tree_height(self._d, self._beta)
        self._leaves = self._beta ** self._h
        choice = self._params["oracle"]
        self._oracles: list[Mechanism] = []
        for k in range(1, self._h + 1):
            size = self._beta ** k
            if choice == "auto":
                name = "grr" if size < 3.0 * math.exp(self._epsilon) + 2.0 else "olh"
            else:
                name = choice
            self._oracles.append(get_mechanism(name, self._epsilon, size))

    # ----------------------------------------------------------------- structure
    @property
    def branching(self) -> int:
        return self._beta

    @property
    def height(self) -> int:
        """h: the number of reporting layers (depths 1..h; depth h are the leaves)."""
        return self._h

    @property
    def leaves(self) -> int:
        """D = β^h ≥ d leaves (the last D − d are padding, known empty)."""
        return self._leaves

    def oracle(self, layer: int) -> Mechanism:
        """The categorical frequency oracle of depth ``layer`` ∈ [1, h] (over β^layer nodes)."""
        return self._oracles[layer - 1]

    def input_edges(self, scale: ValueScale | None = None) -> np.ndarray:
        return (scale or ValueScale()).edges(self._d)

    def layer_counts(self, counts: Any) -> list[np.ndarray]:
        """Per-depth node counts (depths 0..h) of d bucket counts, padded to β^h leaves."""
        c = np.zeros(self._leaves, dtype=np.float64)
        c[:self._d] = np.asarray(counts, dtype=np.float64)
        return aggregate_tree(c, self._beta)

    def noise_variances(self, layer_sizes: Any) -> np.ndarray:
        """Per-depth variance (index 0 = root, 0) of a node estimate of negligible frequency, given the
        number of users in each layer (used as the CI/ADMM weights; it is data-independent)."""
        sizes = np.asarray(layer_sizes, dtype=np.float64)
        out = np.zeros(self._h + 1)
        for k in range(1, self._h + 1):
            out[k] = self._oracles[k - 1].approximate_variance(max(1, int(sizes[k - 1]))) if sizes[k - 1] else np.inf
        return out

    # ----------------------------------------------------------------- client side
    def validate_values(self, values: Any) -> np.ndarray:
        arr = np.asarray(values)
        if arr.ndim != 1:
            raise ValueError(f"{self.name}: values must be a 1-D array of numbers in [0, 1], got shape {arr.shape}")
        arr = arr.astype(np.float64)
        bad = ~np.isfinite(arr) | (arr < 0.0) | (arr > 1.0)
        if bad.any():
            raise ValueError(f"{self.name}: value {arr[bad][0]!r} is outside [0, 1]; map real units with "
                             "ValueScale(lo, hi).to_unit first")
        return arr

    def perturb(self, values: Any, rng: RandomSource) -> np.ndarray:
        """Bucketize into the d buckets, pick a layer uniformly, report the ancestor with that layer's oracle."""
        v = self.validate_values(values)
        bucket = np.minimum((v * self._d).astype(np.int64), self._d - 1)
        layer = rng.integers(1, self._h + 1, size=v.size)
        out = np.zeros((v.size, 4), dtype=np.int64)
        out[:, 0] = layer
        for k in range(1, self._h + 1):
            sel = np.flatnonzero(layer == k)
            if sel.size == 0:
                continue
            node = bucket[sel] // (self._beta ** (self._h - k))
            rep = np.asarray(self._oracles[k - 1].perturb(node, rng)).reshape(sel.size, -1)
            out[sel, 1:1 + rep.shape[1]] = rep
        return out

    # ----------------------------------------------------------------- server side
    def layer_estimates(self, reports: Any) -> tuple[list[np.ndarray], np.ndarray]:
        """Per-depth frequency estimates (depth 0: the root, 1) and users per layer from raw reports."""
        rep = np.asarray(reports)
        if rep.ndim != 2 or rep.shape[1] != 4 or rep.shape[0] == 0:
            raise ValueError(f"{self.name}: reports must be an (n, 4) integer array")
        supports, sizes = [], np.zeros(self._h, dtype=np.int64)
        for k in range(1, self._h + 1):
            part = rep[rep[:, 0] == k, 1:]
            sizes[k - 1] = part.shape[0]
            mech = self._oracles[k - 1]
            if part.shape[0] == 0:
                supports.append(np.zeros(mech.d))
                continue
            part = part[:, 0] if mech.name == "grr" else part[:, :3]
            supports.append(mech.support_counts(part))
        return self._estimates(supports, sizes), sizes

    def _estimates(self, supports: list[np.ndarray], sizes: np.ndarray) -> list[np.ndarray]:
        levels = [np.ones(1)]
        for k in range(1, self._h + 1):
            n_k = int(sizes[k - 1])
            levels.append(self._oracles[k - 1].estimate(supports[k - 1], n_k) if n_k else
                          np.full(self._beta ** k, self._beta ** -k))
        return levels

    def estimate(self, levels: list[np.ndarray], layer_sizes: Any, *, method: str = "hh-admm") -> np.ndarray:
        """Frequencies of the d input buckets from the per-depth estimates by ``hh-admm`` or ``hh-ci``."""
        var = self.noise_variances(layer_sizes)
        if method == "hh-ci":
            return constrained_inference(levels, var, self._beta)[-1][:self._d].copy()
        if method != "hh-admm":
            raise ValueError(f"{self.name}: unknown reconstruction {method!r}; choose hh-admm or hh-ci")
        pad = np.zeros(self._leaves, dtype=bool)
        pad[self._d:] = True
        leaves, _ = admm_tree(levels, var, self._beta, fixed_zero=pad)
        return leaves[:self._d]

    def split_users(self, counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Users of every bucket split uniformly over the h layers: an (h, d) count array (exact)."""
        return rng.multinomial(np.asarray(counts, dtype=np.int64), np.full(self._h, 1.0 / self._h)).T

    def _simulate_population(self, counts: np.ndarray, rng: np.random.Generator, engine: str,
                             method: str | None) -> np.ndarray:
        split = self.split_users(counts, rng)
        supports, sizes = [], split.sum(axis=1)
        for k in range(1, self._h + 1):
            mech = self._oracles[k - 1]
            layer = self.layer_counts(split[k - 1])[k].astype(np.int64)
            if sizes[k - 1] == 0:
                supports.append(np.zeros(mech.d))
            elif engine == "fast":
                supports.append(run_fast(mech, layer, rng).counts)
            else:
                supports.append(run_exact(mech, rng, true_counts=layer).counts)
        return self.estimate(self._estimates(supports, sizes), sizes, method=method or "hh-admm")


# ============================================================================================ HaarHRR
def hadamard_sign(j: np.ndarray, a: np.ndarray) -> np.ndarray:
    """φ[j, a] = (−1)^popcount(j & a), the Sylvester–Hadamard entry (broadcast)."""
    return 1 - 2 * (np.bitwise_count(np.bitwise_and(j, a)) & 1).astype(np.int64)


def fast_walsh_hadamard(x: np.ndarray) -> np.ndarray:
    """H x for the m × m Sylvester–Hadamard matrix (m a power of 2), O(m log m)."""
    y = np.array(x, dtype=np.float64)
    m = y.size
    step = 1
    while step < m:
        y = y.reshape(-1, 2, step)
        y = np.stack([y[:, 0] + y[:, 1], y[:, 0] - y[:, 1]], axis=1).reshape(m)
        step *= 2
    return y


# The fast HaarHRR engine draws the Hadamard index of every (node, sign) group with one multinomial while the
# table has at most this many cells; beyond it draws one index per user (both exact in distribution).
HAAR_FAST_CELLS = 1 << 22


@NUMERICAL_MECHANISMS.register
class HaarHRR(NumericalMechanism):
    """HaarHRR (§4.2, Kulkarni et al. [21]): Haar coefficients of one random layer through Hadamard RR.

    Binary tree over D = 2^h ≥ d leaves (padded). A user picks a height ℓ ∈ {1, …, h} uniformly; at height ℓ
    her Haar vector has one non-zero entry, s = +1 (−1) at her ancestor a if she is in a's left (right)
    subtree. HRR with the m = 2^(h−ℓ) Hadamard matrix φ: she draws j uniform in [0, m), and reports (ℓ, j, y)
    with y = s·φ[j, a] kept with probability e^ε/(e^ε + 1), else negated (ε-LDP: only y carries the input).
    Server: θ̂_a = (e^ε + 1)/(e^ε − 1) · (1/n_ℓ) Σ_u φ[j_u, a] y_u (one fast Walsh–Hadamard transform per
    layer) is unbiased for F_left(a) − F_right(a) (the Haar coefficient c_a = θ_a·n/2^(ℓ/2) of the paper in
    frequency units), and the inverse transform F_left = (F_a + θ_a)/2, F_right = (F_a − θ_a)/2 from the
    root F = 1 gives the leaves. ``haar`` returns them as they are (consistent, may be negative: "not a valid
    distribution", §6.2); ``haar-ns`` applies Norm-Sub (§4.1) to make a distribution.
    """

    name: ClassVar[str] = "haar-hrr"
    display_name: ClassVar[str] = "HaarHRR"
    family: ClassVar[str] = "hierarchy"
    description: ClassVar[str] = ("each user reports one Haar coefficient of a random layer with Hadamard "
                                  "randomized response; the inverse Haar transform gives the histogram")
    paper: ClassVar[str] = PAPER
    input_kind: ClassVar[str] = "continuous"
    report_format: ClassVar[str] = "three integers per user: the height ℓ ∈ [1, h], the Hadamard row j, y = ±1"
    domain_parameter: ClassVar[Param] = BUCKETS
    reconstructions: ClassVar[tuple[str, ...]] = ("haar", "haar-ns")

    def _setup(self) -> None:
        self._h = tree_height(self._d, 2)
        self._leaves = 2 ** self._h
        e = math.exp(self._epsilon)
        self._keep = e / (e + 1.0)
        self._scale = (e + 1.0) / (e - 1.0)

    @property
    def height(self) -> int:
        return self._h

    @property
    def leaves(self) -> int:
        return self._leaves

    def input_edges(self, scale: ValueScale | None = None) -> np.ndarray:
        return (scale or ValueScale()).edges(self._d)

    def coefficient_variance(self, n_layer: float) -> float:
        """Var θ̂_a ≈ scale²/n_ℓ (each term φ y has variance 1 − (θ/scale)² ≤ 1; exact for θ_a = 0)."""
        return self._scale ** 2 / n_layer

    # ----------------------------------------------------------------- client side
    def perturb(self, values: Any, rng: RandomSource) -> np.ndarray:
        v = HierarchicalHistogram.validate_values(self, values)  # same [0, 1] check
        bucket = np.minimum((v * self._d).astype(np.int64), self._d - 1)
        return self._perturb_buckets(bucket, rng)

    def _perturb_buckets(self, bucket: np.ndarray, rng: RandomSource) -> np.ndarray:
        n = bucket.size
        layer = rng.integers(1, self._h + 1, size=n)
        node = bucket >> layer
        sign = 1 - 2 * ((bucket >> (layer - 1)) & 1)
        j = rng.integers(0, 1 << 62, size=n) & ((np.int64(1) << (self._h - layer)) - 1)
        y = sign * hadamard_sign(j, node)
        y = np.where(rng.random(n) < self._keep, y, -y)
        return np.stack([layer, j, y], axis=1).astype(np.int64)

    # ----------------------------------------------------------------- server side
    def layer_sums(self, reports: Any) -> tuple[list[np.ndarray], np.ndarray]:
        """Per height ℓ = 1..h: S_j = Σ y over reports with Hadamard row j, and the users per layer."""
        rep = np.asarray(reports)
        if rep.ndim != 2 or rep.shape[1] != 3 or rep.shape[0] == 0:
            raise ValueError(f"{self.name}: reports must be an (n, 3) integer array")
        sums, sizes = [], np.zeros(self._h, dtype=np.int64)
        for ell in range(1, self._h + 1):
            part = rep[rep[:, 0] == ell]
            sizes[ell - 1] = part.shape[0]
            m = 1 << (self._h - ell)
            if np.any((part[:, 1] < 0) | (part[:, 1] >= m)) or np.any(np.abs(part[:, 2]) != 1):
                raise ValueError(f"{self.name}: malformed report at height {ell}")
            sums.append(np.bincount(part[:, 1], weights=part[:, 2].astype(np.float64), minlength=m))
        return sums, sizes

    def estimate(self, sums: list[np.ndarray], sizes: Any, *, method: str = "haar") -> np.ndarray:
        """Leaf frequencies of the d input buckets from the per-layer Hadamard sums (inverse Haar transform)."""
        if method not in self.reconstructions:
            raise ValueError(f"{self.name}: unknown reconstruction {method!r}; choose haar or haar-ns")
        nodes = np.ones(1)
        for ell in range(self._h, 0, -1):
            n_l = int(sizes[ell - 1])
            theta = self._scale * fast_walsh_hadamard(sums[ell - 1]) / n_l if n_l else np.zeros(nodes.size)
            nodes = np.stack([(nodes + theta) / 2.0, (nodes - theta) / 2.0], axis=1).ravel()
        leaves = nodes[:self._d].copy()
        if method == "haar-ns":
            from ldp.estimators.consistency import norm_sub
            leaves = norm_sub(leaves)
        return leaves

    def _simulate_population(self, counts: np.ndarray, rng: np.random.Generator, engine: str,
                             method: str | None) -> np.ndarray:
        if engine == "exact":  # the real client on every user, in chunks
            sums = [np.zeros(1 << (self._h - ell)) for ell in range(1, self._h + 1)]
            sizes = np.zeros(self._h, dtype=np.int64)
            codes_all = np.repeat(np.arange(self._d), counts)
            for start in range(0, codes_all.size, 1 << 20):
                s, z = self.layer_sums(self._perturb_buckets(codes_all[start:start + (1 << 20)], rng))
                sums = [a + b for a, b in zip(sums, s, strict=True)]
                sizes += z
        else:
            sums, sizes = self.sample_sums(counts, rng)
        return self.estimate(sums, sizes, method=method or "haar")

    def sample_sums(self, counts: np.ndarray, rng: np.random.Generator) -> tuple[list[np.ndarray], np.ndarray]:
        """The per-layer Hadamard sums drawn directly (exact in distribution).

        Users are split over the layers by a per-bucket multinomial; in a layer, the users of node a with
        sign s draw their rows j by Multinomial(n_{a,s}, uniform) (or one by one when the m × 2m table is
        large), the pre-flip value s·φ[j, a] of each (j, a, s) group is fixed, and the kept ones are binomial.
        """
        padded = np.zeros(self._leaves, dtype=np.int64)
        padded[:self._d] = counts
        split = rng.multinomial(padded, np.full(self._h, 1.0 / self._h)).T
        sums, sizes = [], split.sum(axis=1)
        for ell in range(1, self._h + 1):
            m = 1 << (self._h - ell)
            groups = split[ell - 1].reshape(m, 2, 1 << (ell - 1)).sum(axis=2)  # (node, left/right)
            if 2 * m * m <= HAAR_FAST_CELLS:
                drawn = rng.multinomial(groups.ravel(), np.full(m, 1.0 / m)).reshape(m, 2, m)  # (a, s, j)
                phi = hadamard_sign(np.arange(m)[None, :], np.arange(m)[:, None])  # (a, j)
                plus = np.where(phi > 0, drawn[:, 0], drawn[:, 1]).sum(axis=0)  # pre-flip y = +1, per j
                total = drawn.sum(axis=(0, 1))
            else:
                a = np.repeat(np.repeat(np.arange(m), 2), groups.ravel())
                s = np.repeat(np.tile(np.array([1, -1]), m), groups.ravel())
                j = rng.integers(0, m, size=a.size)
                y0 = s * hadamard_sign(j, a)
                plus = np.bincount(j[y0 > 0], minlength=m)
                total = np.bincount(j, minlength=m)
            ones = rng.binomial(plus, self._keep) + rng.binomial(total - plus, 1.0 - self._keep)
            sums.append((2 * ones - total).astype(np.float64))
        return sums, sizes
