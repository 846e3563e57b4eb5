"""Hierarchical histograms (HH) over the d input buckets, with constrained inference and HH-ADMM.

Square-wave paper (Li et al., SIGMOD 2020) §4.2–§4.3, after Kulkarni et al. [21] and Hay et al. [17].

Tree. A β-ary tree (``branching`` β, default 4 as in the paper's experiments, §6.1) over D = β^h ≥ d
leaves; when d is not a power of β the domain is padded with D − d empty buckets, which the server
knows to be empty (the ADMM step constrains them to 0; they are dropped from the output). Depth 0 is the
root (frequency 1, known), depth k ∈ {1, …, h} has β^k nodes, depth h are the leaves.

Collection (§4.2, "divide the population", ``split="population"``, the default). Every user picks a layer
k ∈ {1, …, h} uniformly at random and reports, with the whole budget ε, the index of her value's ancestor at
depth k through a categorical frequency oracle over β^k values. With ``split="budget"`` (§4.2, "divide the privacy
budget", the centralized setting's choice) every user reports her ancestor in every layer, each with ε/h (basic
composition: ε in all), so every layer has all n users but a noisier oracle. Per-node noise variance at depth k
(:meth:`HierarchicalHistogram.split_variances`): V_k(ε, n/h) dividing the population (≈ h·V_k(ε, n)), V_k(ε/h, n)
dividing the budget — with OLH's V(ε) = 4e^ε/(e^ε − 1)²/n, at ε = 1 and h = 3 that is 11.0/n against 35.7/n, so
in LDP dividing the population wins (§4.2: "it is better to divide the population instead of privacy budget";
its sampling error, the groups' differing distributions, is in the multinomial split and small beside the
noise). The oracle of each layer is the variance-optimal one of GRR and OLH
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

Aggregate. The per-layer support counts (β + β² + … + β^h entries) followed by the number of users in each
layer (h entries); additive over users. The fast engine splits users among the layers with a per-bucket
multinomial (exactly the distribution of independent uniform layer choices) and samples each layer's support
counts with its oracle's own sampler (exact in distribution for GRR, exact marginals for OLH but not its
cross-covariances, see ``LocalHashing.fast_engine_note``).
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from ldp.core.errors import InvalidInput
from ldp.core.params import BUCKETS, Param
from ldp.core.randomness import RandomSource
from ldp.core.registry import MECHANISMS
from ldp.core.results import Aggregate, Estimate
from ldp.maths.hadamard import fwht, hadamard_sign
from ldp.maths.simplex import norm_sub
from ldp.maths.trees import admm_tree, aggregate_tree, constrained_inference, tree_height
from ldp.mechanisms.frequency.base import FrequencyOracle
from ldp.mechanisms.numerical import NumericalMechanism

__all__ = ["HaarHRR", "HierarchicalHistogram", "check_layer_sizes"]

PAPER = ("Li, Wang, Lopuhaä-Zwakenberg, Li, Škorić — Estimating Numerical Distributions under Local "
         "Differential Privacy, SIGMOD 2020, §4.2–4.3")

BRANCHING = Param("branching", int, "branching factor β of the hierarchy (paper: 4, §6.1)", default=4, low=2, high=64)
ORACLE = Param("oracle", str, "frequency oracle per layer: variance-optimal GRR/OLH (auto), or fixed",
               default="auto", choices=("auto", "grr", "olh"))
SPLIT = Param("split", str, "how the layers share the privacy (§4.2): 'population' — each user reports in one random "
              "layer with the whole ε — or 'budget' — each user reports in every layer with ε/h",
              default="population", choices=("population", "budget"))


def check_layer_sizes(name: str, counts: np.ndarray, n: int, layers: int,
                      every_user_in_every_layer: bool) -> np.ndarray:
    """The users per layer — the last ``layers`` entries of each row of a layered statistic — as whole numbers ≥ 0
    that add up to n (each user reports in one layer) or each equal n (every user in every layer).

    Parameters
    ----------
    name : str
        The mechanism, for the message.
    counts : numpy.ndarray
        Rows of statistics, shape (rows, size), finite.
    n : int
        The reports behind every row.
    layers : int
        The number of layers h.
    every_user_in_every_layer : bool
        Whether the budget is divided (every user reports in every layer) rather than the users.

    Returns
    -------
    numpy.ndarray
        The sizes, int64 of shape (rows, layers).

    Raises
    ------
    InvalidInput
        If a size is negative or fractional, or the sizes do not account for the n users.
    """
    sizes = counts[:, counts.shape[1] - layers:]
    if np.any(sizes < 0) or np.any(sizes != np.round(sizes)):
        raise InvalidInput(f"{name}: the users per layer (the statistic's last {layers} entries) must be whole "
                           "numbers ≥ 0")
    if every_user_in_every_layer:
        if np.any(sizes != n):
            raise InvalidInput(f"{name}: every one of the n = {n:,} users reports in every layer (the budget is "
                               "divided), so each layer's user count must be n")
    elif np.any(sizes.sum(axis=1) != n):
        raise InvalidInput(f"{name}: each of the n = {n:,} users reports in one layer, so the users per layer must "
                           "add up to n")
    return sizes.astype(np.int64)


@MECHANISMS.register
class HierarchicalHistogram(NumericalMechanism):
    """HH in LDP (§4.2): users split uniformly over the h layers of a β-ary tree, one CFO report each.

    Parameters
    ----------
    epsilon : float
        The privacy budget ε of each user (in [1e-4, 50]): her one report's whole budget when dividing the
        population, ε/h for each of her h reports when dividing the budget.
    d : int
        The number of equal input buckets of [0, 1], the leaves reconstructed (2 to 2^24; required); the tree has
        D = β^h ≥ d leaves, h = ⌈log_β d⌉ ≥ 1, the last D − d padding.
    branching : int, default 4
        The branching factor β of the tree (2 to 64; the paper's experiments use 4, §6.1).
    oracle : {"auto", "grr", "olh"}, default "auto"
        The frequency oracle of every layer; "auto" takes, layer by layer, GRR while β^k < 3e^ε' + 2 and OLH
        beyond (ε' the budget of one report) — §2.1's idealized variance comparison, not the closed forms
        :func:`ldp.mechanisms.numerical.binning.choose_oracle` compares.
    split : {"population", "budget"}, default "population"
        How the layers share the privacy (§4.2): each user in one random layer with the whole ε, or in every
        layer with ε/h (basic composition).

    Raises
    ------
    InvalidInput
        If ε, d or ``branching`` is outside its range, or ``oracle`` or ``split`` is not one of its choices.

    References
    ----------
    Square-wave paper (Li et al., SIGMOD 2020), §4.2 "Hierarchy-based Methods" (HH in LDP, "Difference from the
    Centralized Setting") and §4.3 "HH-ADMM", Eq. (2) (the ``hh-admm`` reconstruction); Hay et al. [17] for the
    constrained inference of ``hh-ci``.
    """

    name: ClassVar[str] = "hh"
    display_name: ClassVar[str] = "Hierarchical histogram (HH)"
    description: ClassVar[str] = ("each user reports her value's ancestor in one random layer of a β-ary tree "
                                  "with GRR or OLH; HH-ADMM or constrained inference makes the tree consistent")
    paper: ClassVar[str] = PAPER
    report_format: ClassVar[str] = ("four integers per user: the layer k ∈ [1, h], then the layer oracle's "
                                    "report (GRR: the index, then 0 0; OLH: a b y)")
    domain_parameter: ClassVar[Param] = BUCKETS
    extra_parameters: ClassVar[tuple[Param, ...]] = (BRANCHING, ORACLE, SPLIT)
    reconstructions: ClassVar[tuple[str, ...]] = ("hh-admm", "hh-ci")
    default_estimator: ClassVar[str] = "hh-admm"
    fast_engine_exact: ClassVar[bool] = False
    fast_engine_note: ClassVar[str] = ("users split over the layers exactly; each layer's support counts from its "
                                       "oracle's sampler (exact with GRR; exact marginals but not the "
                                       "cross-covariances with OLH)")

    def _setup(self) -> None:
        self._beta = int(self._params["branching"])
        self._h = tree_height(self._d, self._beta)
        self._leaves = self._beta ** self._h
        self._budget = self._params["split"] == "budget"
        eps = self._epsilon / self._h if self._budget else self._epsilon  # ε per report
        choice = self._params["oracle"]
        self._oracles: list[FrequencyOracle] = []
        for k in range(1, self._h + 1):
            size = self._beta ** k
            if choice == "auto":
                name = "grr" if size < 3.0 * math.exp(eps) + 2.0 else "olh"
            else:
                name = choice
            self._oracles.append(MECHANISMS.get(name)(eps, size))
        self._layer_sizes = [self._beta ** k for k in range(1, self._h + 1)]
        self._offsets = np.concatenate([[0], np.cumsum(self._layer_sizes)])

    # ----------------------------------------------------------------- structure
    @property
    def branching(self) -> int:
        """β, the branching factor of the tree."""
        return self._beta

    @property
    def height(self) -> int:
        """h: the number of reporting layers (depths 1..h; depth h are the leaves)."""
        return self._h

    @property
    def leaves(self) -> int:
        """D = β^h ≥ d leaves (the last D − d are padding, known empty)."""
        return self._leaves

    @property
    def split(self) -> str:
        """'population' (each user in one random layer, whole ε) or 'budget' (every layer, ε/h each), §4.2."""
        return str(self._params["split"])

    def split_variances(self, n: int) -> np.ndarray:
        """Per-depth variance (index 0 = the root, 0) of a node estimate of negligible frequency with n users under
        this mechanism's split: the layer's oracle with n/h users (population) or with n users at ε/h (budget)."""
        share = 1.0 if self._budget else 1.0 / self._h
        return self.noise_variances(np.full(self._h, max(1.0, float(n) * share)))

    def oracle(self, layer: int) -> FrequencyOracle:
        """The categorical frequency oracle of depth ``layer`` ∈ [1, h] (over β^layer nodes)."""
        return self._oracles[layer - 1]

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
    def _perturb(self, v: np.ndarray, rng: RandomSource) -> np.ndarray:
        """Bucketize into the d buckets, pick a layer uniformly, report the ancestor with that layer's oracle; when
        dividing the budget, one such four-integer block per layer (layer k in block k, ε/h each)."""
        bucket = self.bucket_of(v)
        if self._budget:
            out = np.zeros((v.size, 4 * self._h), dtype=np.int64)
            for k in range(1, self._h + 1):
                node = bucket // (self._beta ** (self._h - k))
                rep = np.asarray(self._oracles[k - 1].perturb(node, rng)).reshape(v.size, -1)
                out[:, 4 * (k - 1)] = k
                out[:, 4 * (k - 1) + 1:4 * (k - 1) + 1 + rep.shape[1]] = rep
            return out
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
    def _layer_reports(self, reports: np.ndarray, k: int) -> np.ndarray:
        part = reports[reports[:, 0] == k, 1:]
        columns = self._oracles[k - 1].report_columns()
        return part[:, 0] if columns == 1 else part[:, :columns]

    def _rows(self, reports: np.ndarray) -> np.ndarray:
        """The (layer, report) rows of the reports: one per user, or h per user when dividing the budget."""
        return reports.reshape(-1, 4) if self._budget else reports

    def _validate_reports(self, rep: np.ndarray) -> np.ndarray:
        width = 4 * self._h if self._budget else 4
        if rep.ndim != 2 or rep.shape[1] != width:
            raise InvalidInput(f"{self.name}: reports must be an (n, {width}) integer array, got shape {rep.shape}")
        if not np.issubdtype(rep.dtype, np.integer):
            raise InvalidInput(f"{self.name}: reports must be integers, got dtype {rep.dtype}")
        if self._budget and np.any(rep[:, 0::4] != np.arange(1, self._h + 1)):
            raise InvalidInput(f"{self.name}: dividing the budget, block k of every report must be layer k")
        rep = self._rows(rep)
        if np.any((rep[:, 0] < 1) | (rep[:, 0] > self._h)):
            raise InvalidInput(f"{self.name}: the layer (first number) must lie in [1, {self._h}]")
        for k in range(1, self._h + 1):
            part = self._layer_reports(rep, k)
            if part.shape[0]:
                self._oracles[k - 1].validate_reports(part)
        return rep.reshape(-1, width)

    def statistic_size(self) -> int:
        return int(self._offsets[-1]) + self._h

    def _check_statistics(self, counts: np.ndarray, n: int) -> None:
        """The users per layer (:func:`check_layer_sizes`), then each layer's oracle statistic against its own
        users (what that oracle checks)."""
        sizes = check_layer_sizes(self.name, counts, n, self._h, self._budget)
        for k in range(1, self._h + 1):
            block = counts[:, self._offsets[k - 1]:self._offsets[k]]
            for size in np.unique(sizes[:, k - 1]):
                if size > 0:
                    self._oracles[k - 1]._check_statistics(block[sizes[:, k - 1] == size], int(size))
                elif np.any(block[sizes[:, k - 1] == 0] != 0):
                    raise InvalidInput(f"{self.name}: layer {k} has no users but a non-zero statistic")

    def _aggregate(self, reports: np.ndarray) -> np.ndarray:
        reports = self._rows(reports)
        out = np.zeros(self.statistic_size())
        for k in range(1, self._h + 1):
            part = self._layer_reports(reports, k)
            out[self._offsets[-1] + k - 1] = part.shape[0]
            if part.shape[0]:  # the parts were validated with the whole (or come from the engine): trusted
                out[self._offsets[k - 1]:self._offsets[k]] = self._oracles[k - 1].aggregate(part, trusted=True).counts
        return out

    def split_users(self, counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Users of every bucket split uniformly over the h layers: an (h, d) count array (exact); every user in
        every layer when dividing the budget."""
        if self._budget:
            return np.tile(np.asarray(counts, dtype=np.int64), (self._h, 1))
        return rng.multinomial(np.asarray(counts, dtype=np.int64), np.full(self._h, 1.0 / self._h)).T

    def _layer_populations(self, split: np.ndarray) -> list[np.ndarray]:
        return [self.layer_counts(split[k - 1])[k].astype(np.int64) for k in range(1, self._h + 1)]

    def _sample_aggregate(self, true_counts: np.ndarray, rng: np.random.Generator,
                          support: np.ndarray | None) -> np.ndarray:
        out = np.zeros(self.statistic_size())
        for k, layer in enumerate(self._layer_populations(self.split_users(true_counts, rng)), start=1):
            out[self._offsets[-1] + k - 1] = layer.sum()
            if layer.sum():
                out[self._offsets[k - 1]:self._offsets[k]] = self._oracles[k - 1].sample_aggregate(layer, rng).counts
        return out

    def layer_estimates(self, aggregate: Aggregate | Any, n: int | None = None) -> tuple[list[np.ndarray],
                                                                                          np.ndarray]:
        """Per-depth frequency estimates (depth 0: the root, 1) by matrix inversion within each layer's users,
        and the users per layer."""
        agg = self.as_aggregate(aggregate, n)
        sizes = agg.counts[self._offsets[-1]:].astype(np.int64)
        levels = [np.ones(1)]
        for k in range(1, self._h + 1):
            n_k = int(sizes[k - 1])
            support = agg.counts[self._offsets[k - 1]:self._offsets[k]]
            levels.append(self._oracles[k - 1].invert(support, n_k) if n_k else np.full(self._beta ** k,
                                                                                          self._beta ** -k))
        return levels, sizes

    def _reconstruct(self, aggregate: Aggregate, method: str, **options: Any) -> Estimate:
        """Frequencies of the d input buckets from the per-depth estimates by ``hh-admm`` or ``hh-ci``."""
        levels, sizes = self.layer_estimates(aggregate)
        var = self.noise_variances(sizes)
        if method == "hh-ci":
            return Estimate(constrained_inference(levels, var, self._beta)[-1][:self._d], method)
        pad = np.zeros(self._leaves, dtype=bool)
        pad[self._d:] = True
        leaves, trace = admm_tree(levels, var, self._beta, fixed_zero=pad)
        warnings = () if trace.converged else (f"HH-ADMM stopped after {trace.iterations} iterations without meeting "
                                               "its residual tolerances",)
        return Estimate(leaves[:self._d], method, converged=trace.converged, iterations=trace.iterations,
                        warnings=warnings)

    def _expected_aggregate(self, true_counts: np.ndarray, support: np.ndarray | None) -> np.ndarray:
        """E[C_k(v)] = (N_k(v) p*_k + (n − N_k(v)) q*_k)/h and E[n_k] = n/h (see :meth:`_aggregate_variance`)."""
        out = np.zeros(self.statistic_size())
        expected_layers = self.layer_counts(true_counts if self._budget else true_counts / self._h)
        for k in range(1, self._h + 1):
            layer_f = expected_layers[k]
            n_k = layer_f.sum()
            oracle = self._oracles[k - 1]
            out[self._offsets[k - 1]:self._offsets[k]] = layer_f * oracle.p_star + (n_k - layer_f) * oracle.q_star
            out[self._offsets[-1] + k - 1] = n_k
        return out

    def _aggregate_variance(self, true_counts: np.ndarray, support: np.ndarray | None) -> np.ndarray:
        """Var of every entry of the aggregate, in closed form.

        Support count of node v at depth k: C_k(v) = Σ_u X_u with X_u = 1[u picked layer k]·1[u's report supports
        v]. A user picks layer k with probability 1/h, independently of everything else, and her layer-k oracle
        report supports v with probability p*_k if v is her ancestor at depth k, q*_k otherwise (the oracle's
        Def. 2 probabilities, exact for GRR and for Carter–Wegman OLH). So X_u is Bernoulli(p*_k/h) for the
        N_k(v) users below v and Bernoulli(q*_k/h) for the n − N_k(v) others, independently over users:

            Var C_k(v) = N_k(v)·(p*/h)(1 − p*/h) + (n − N_k(v))·(q*/h)(1 − q*/h).

        Users per layer: n_k = Σ_u 1[u picked layer k] is Binomial(n, 1/h), Var n_k = n (1/h)(1 − 1/h).
        Dividing the budget every user is in every layer: the same with 1/h replaced by 1 (Var n_k = 0).
        """
        out = np.zeros(self.statistic_size())
        n = float(true_counts.sum())
        layers = self.layer_counts(true_counts)
        pick = 1.0 if self._budget else 1.0 / self._h
        for k in range(1, self._h + 1):
            below = layers[k]
            oracle = self._oracles[k - 1]
            p, q = oracle.p_star * pick, oracle.q_star * pick
            out[self._offsets[k - 1]:self._offsets[k]] = below * p * (1 - p) + (n - below) * q * (1 - q)
            out[self._offsets[-1] + k - 1] = n * pick * (1.0 - pick)
        return out

    # ----------------------------------------------------------------- privacy: a mixture over layers
    def _output_count(self) -> int:
        if self._budget:
            return math.prod(self._oracles[k].output_count() for k in range(self._h))
        return sum(self._oracles[k].output_count() for k in range(self._h))

    def _channel(self) -> tuple[np.ndarray, list[str]]:
        if self._budget:  # independent reports in every layer: the product channel
            matrix, labels = np.ones((self._d, 1)), [""]
            for k in range(1, self._h + 1):
                oracle = self._oracles[k - 1]
                layer, names = oracle.channel(max_outputs=oracle.output_count())
                node = np.minimum(np.arange(self._d), self._leaves - 1) // (self._beta ** (self._h - k))
                matrix = (matrix[:, :, None] * layer[node][:, None, :]).reshape(self._d, -1)
                pad = " 0" * (4 - 1 - oracle.report_columns())
                labels = [f"{old} {k} {name}{pad}".strip() for old in labels for name in names]
            return matrix, labels
        blocks, labels = [], []
        for k in range(1, self._h + 1):
            oracle = self._oracles[k - 1]
            matrix, names = oracle.channel(max_outputs=oracle.output_count())
            node = np.minimum(np.arange(self._d), self._leaves - 1) // (self._beta ** (self._h - k))
            blocks.append(matrix[node] / self._h)
            pad = 4 - 1 - oracle.report_columns()
            labels += [f"{k} {name}" + " 0" * pad for name in names]
        return np.concatenate(blocks, axis=1), labels

    def _report_bits(self) -> int:
        if self._budget:
            return sum(o.report_bits() for o in self._oracles)
        return math.ceil(math.log2(self._h + 1)) + max(o.report_bits() for o in self._oracles)


# The fast HaarHRR engine draws the Hadamard index of every (node, sign) group with one multinomial while the
# table has at most this many cells; beyond it draws one index per user (both exact in distribution).
HAAR_FAST_CELLS = 1 << 22


@MECHANISMS.register
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

    Parameters
    ----------
    epsilon : float
        The privacy budget ε of each user's one report (in [1e-4, 50]): y is kept with probability e^ε/(e^ε + 1).
    d : int
        The number of equal input buckets of [0, 1], the leaves reconstructed (2 to 2^24; required); the binary
        tree has D = 2^h ≥ d leaves, h = ⌈log₂ d⌉, the last D − d padding.

    Raises
    ------
    InvalidInput
        If ε or d is outside its range.

    References
    ----------
    Square-wave paper (Li et al., SIGMOD 2020), §4.2 "HaarHRR" (the Haar coefficient c_a = (C_l − C_r)/2^(h(a)/2),
    one random layer, HRR with the 2^(h−ℓ) Hadamard matrix), after Kulkarni et al. [21].
    """

    name: ClassVar[str] = "haar-hrr"
    display_name: ClassVar[str] = "HaarHRR"
    description: ClassVar[str] = ("each user reports one Haar coefficient of a random layer with Hadamard "
                                  "randomized response; the inverse Haar transform gives the histogram")
    paper: ClassVar[str] = PAPER
    report_format: ClassVar[str] = "three integers per user: the height ℓ ∈ [1, h], the Hadamard row j, y = ±1"
    domain_parameter: ClassVar[Param] = BUCKETS
    reconstructions: ClassVar[tuple[str, ...]] = ("haar", "haar-ns")
    default_estimator: ClassVar[str] = "haar"

    def _setup(self) -> None:
        self._h = tree_height(self._d, 2)
        self._leaves = 2 ** self._h
        e = math.exp(self._epsilon)
        self._keep = e / (e + 1.0)
        self._scale = (e + 1.0) / (e - 1.0)
        self._offsets = np.concatenate([[0], np.cumsum([1 << (self._h - ell) for ell in range(1, self._h + 1)])])

    @property
    def height(self) -> int:
        """h = ⌈log₂ d⌉: the number of Haar layers (heights 1..h) a user may report on."""
        return self._h

    @property
    def leaves(self) -> int:
        """D = 2^h ≥ d leaves of the binary tree (the last D − d are padding, known empty)."""
        return self._leaves

    def coefficient_variance(self, n_layer: float) -> float:
        """Var θ̂_a ≈ scale²/n_ℓ (each term φ y has variance 1 − (θ/scale)² ≤ 1; exact for θ_a = 0)."""
        return self._scale ** 2 / n_layer

    # ----------------------------------------------------------------- client side
    def _perturb(self, v: np.ndarray, rng: RandomSource) -> np.ndarray:
        return self._perturb_buckets(self.bucket_of(v), rng)

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
    def _validate_reports(self, rep: np.ndarray) -> np.ndarray:
        if rep.ndim != 2 or rep.shape[1] != 3:
            raise InvalidInput(f"{self.name}: reports must be an (n, 3) integer array, got shape {rep.shape}")
        if not np.issubdtype(rep.dtype, np.integer):
            raise InvalidInput(f"{self.name}: reports must be integers, got dtype {rep.dtype}")
        layer = rep[:, 0]
        if np.any((layer < 1) | (layer > self._h)):
            raise InvalidInput(f"{self.name}: the height (first number) must lie in [1, {self._h}]")
        rows = np.int64(1) << (self._h - layer)
        if np.any((rep[:, 1] < 0) | (rep[:, 1] >= rows)) or np.any(np.abs(rep[:, 2]) != 1):
            raise InvalidInput(f"{self.name}: malformed report (the row j must lie in [0, 2^(h−ℓ)) and y be ±1)")
        return rep

    def statistic_size(self) -> int:
        return int(self._offsets[-1]) + self._h

    def _check_statistics(self, counts: np.ndarray, n: int) -> None:
        """The users per layer (:func:`check_layer_sizes`); each report adds ±1 to one sum of its layer, so a
        layer's sums add up in absolute value to at most its users."""
        sizes = check_layer_sizes(self.name, counts, n, self._h, False)
        for ell in range(1, self._h + 1):
            spent = np.abs(counts[:, self._offsets[ell - 1]:self._offsets[ell]]).sum(axis=1)
            if np.any(spent > sizes[:, ell - 1] * (1 + 1e-12)):
                raise InvalidInput(f"{self.name}: layer {ell}'s sums add up to more (in absolute value) than its "
                                   "users: each report adds ±1 to one of them")

    def _aggregate(self, reports: np.ndarray) -> np.ndarray:
        out = np.zeros(self.statistic_size())
        for ell in range(1, self._h + 1):
            part = reports[reports[:, 0] == ell]
            out[self._offsets[-1] + ell - 1] = part.shape[0]
            out[self._offsets[ell - 1]:self._offsets[ell]] = np.bincount(
                part[:, 1], weights=part[:, 2].astype(np.float64), minlength=1 << (self._h - ell))
        return out

    def layer_sums(self, aggregate: Aggregate | Any, n: int | None = None) -> tuple[list[np.ndarray], np.ndarray]:
        """Per height ℓ = 1..h: S_j = Σ y over reports with Hadamard row j, and the users per layer."""
        agg = self.as_aggregate(aggregate, n)
        sums = [agg.counts[self._offsets[ell - 1]:self._offsets[ell]] for ell in range(1, self._h + 1)]
        return sums, agg.counts[self._offsets[-1]:].astype(np.int64)

    def _reconstruct(self, aggregate: Aggregate, method: str, **options: Any) -> Estimate:
        """Leaf frequencies of the d input buckets from the per-layer Hadamard sums (inverse Haar transform)."""
        sums, sizes = self.layer_sums(aggregate)
        nodes = np.ones(1)
        for ell in range(self._h, 0, -1):
            n_l = int(sizes[ell - 1])
            theta = self._scale * fwht(sums[ell - 1]) / n_l if n_l else np.zeros(nodes.size)
            nodes = np.stack([(nodes + theta) / 2.0, (nodes - theta) / 2.0], axis=1).ravel()
        leaves = nodes[:self._d].copy()
        return Estimate(norm_sub(leaves) if method == "haar-ns" else leaves, method)

    def _sample_aggregate(self, true_counts: np.ndarray, rng: np.random.Generator,
                          support: np.ndarray | None) -> np.ndarray:
        sums, sizes = self.sample_sums(true_counts, rng)
        return np.concatenate([*sums, sizes])

    # ----------------------------------------------------------------- theory of the aggregate
    def _signed_subtree_counts(self, true_counts: np.ndarray, ell: int) -> np.ndarray:
        """D_a = N(left subtree of a) − N(right subtree of a) for the m = 2^(h−ℓ) nodes a at height ℓ."""
        padded = np.zeros(self._leaves)
        padded[:self._d] = true_counts
        halves = padded.reshape(1 << (self._h - ell), 2, 1 << (ell - 1)).sum(axis=2)  # (node, left/right)
        return halves[:, 0] - halves[:, 1]

    def _expected_aggregate(self, true_counts: np.ndarray, support: np.ndarray | None) -> np.ndarray:
        """E of the per-layer Hadamard sums and of the users per layer, in closed form.

        At height ℓ (m = 2^(h−ℓ) nodes and Hadamard rows) user u contributes X_u(j) = y_u·1[ℓ_u = ℓ, j_u = j] to
        S_j. She picks ℓ with probability 1/h and j with 1/m, and then y = s_u φ[j, a_u] (her sign s_u = ±1 and
        ancestor a_u at height ℓ) is kept with probability κ = e^ε/(e^ε + 1), else negated, so
        E[y | ℓ, j] = (2κ − 1) s_u φ[j, a_u] with 2κ − 1 = (e^ε − 1)/(e^ε + 1) = 1/scale. Summing over users,

            E[S_j] = (2κ − 1)/(h m) · Σ_a φ[j, a] D_a = (2κ − 1)/(h m) · (H_m D)_j,

        with D_a = N(left subtree of a) − N(right subtree of a) and H_m D one fast Walsh–Hadamard transform.
        Users per layer: E[n_ℓ] = n/h.
        """
        n = float(true_counts.sum())
        bias = 1.0 / self._scale
        sums = [fwht(self._signed_subtree_counts(true_counts, ell)) * bias / (self._h * (1 << (self._h - ell)))
                for ell in range(1, self._h + 1)]
        return np.concatenate([*sums, np.full(self._h, n / self._h)])

    def _aggregate_variance(self, true_counts: np.ndarray, support: np.ndarray | None) -> np.ndarray:
        """Var of the per-layer Hadamard sums and of the users per layer, in closed form.

        The X_u(j) of :meth:`_expected_aggregate` are independent over users and take values in {−1, 0, 1} with
        X_u(j)² = 1[ℓ_u = ℓ, j_u = j] (every real user has a non-zero Haar entry at every height), so
        E[X_u(j)²] = 1/(h m) and (E X_u(j))² = ((2κ − 1)/(h m))²·(s_u φ[j, a_u])² = ((2κ − 1)/(h m))², whatever
        the user's value. Hence the variance does not depend on the data beyond n:

            Var S_j = n/(h m) · (1 − (2κ − 1)²/(h m)).

        Users per layer: n_ℓ is Binomial(n, 1/h), Var n_ℓ = n (1/h)(1 − 1/h).
        """
        n = float(true_counts.sum())
        bias2 = self._scale ** -2
        parts = []
        for ell in range(1, self._h + 1):
            m = 1 << (self._h - ell)
            share = 1.0 / (self._h * m)
            parts.append(np.full(m, n * share * (1.0 - bias2 * share)))
        return np.concatenate([*parts, np.full(self._h, n * (1.0 / self._h) * (1.0 - 1.0 / self._h))])

    # ----------------------------------------------------------------- privacy
    def _output_count(self) -> int:
        return 2 * int(self._offsets[-1])

    def _channel(self) -> tuple[np.ndarray, list[str]]:
        blocks, labels = [], []
        bucket = np.arange(self._d)
        for ell in range(1, self._h + 1):
            m = 1 << (self._h - ell)
            node, sign = bucket >> ell, 1 - 2 * ((bucket >> (ell - 1)) & 1)
            y0 = sign[:, None] * hadamard_sign(np.arange(m)[None, :], node[:, None])  # (d, m) pre-flip value
            plus = np.where(y0 > 0, self._keep, 1 - self._keep) / (self._h * m)
            blocks.append(np.stack([plus, 1 / (self._h * m) - plus], axis=2).reshape(self._d, 2 * m))
            labels += [f"{ell} {j} {y}" for j in range(m) for y in (1, -1)]
        return np.concatenate(blocks, axis=1), labels

    def _report_bits(self) -> int:
        return math.ceil(math.log2(self._h + 1)) + self._h + 1

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
