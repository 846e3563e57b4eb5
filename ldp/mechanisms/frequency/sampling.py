"""Samplers shared by the fast engine: aggregate support counts drawn without simulating users."""

from __future__ import annotations

import numpy as np

__all__ = ["binomial_support_counts", "structured_gaussian_counts"]


def binomial_support_counts(true_counts: np.ndarray, p: float, q: float, rng: np.random.Generator) -> np.ndarray:
    """C(v) = Binomial(n_v, p) + Binomial(n − n_v, q), independently over v.

    Exact in distribution when support indicators are independent across values given the input
    (unary encoding, THE); for HR it has the exact marginals and the exact (zero) cross-covariances of
    Hadamard rows; for LH only the exact marginals (Carter–Wegman hashing correlates the supports of
    different values negatively, which independent binomials leave out).
    """
    c = np.asarray(true_counts, dtype=np.int64)
    n = int(c.sum())
    return (rng.binomial(c, p) + rng.binomial(n - c, q)).astype(np.float64)


def structured_gaussian_counts(true_counts: np.ndarray, p: float, q: float, var_t: float, var_o: float,
                               cov_to: float, cov_oo: float, rng: np.random.Generator) -> np.ndarray:
    """Gaussian support counts with the exact mean and covariance of a symmetric mechanism.

    For one user with input u let X_v = 1[report supports v]: E X_u = p, E X_v = q (v ≠ u),
    Var X_u = var_t, Var X_v = var_o, Cov(X_u, X_v) = cov_to, Cov(X_v, X_w) = cov_oo (v ≠ w ≠ u).
    Summed over users with true counts c, the covariance is
    Σ = diag(δ) + U M Uᵀ with U = [1, c], M = [[n·cov_oo, κ], [κ, 0]], κ = cov_to − cov_oo,
    δ_v = c_v var_t + (n − c_v) var_o − n cov_oo − 2 κ c_v.
    We draw x = μ + D^½ (I + Q (S − I) Qᵀ) ξ where D^{-½}U = QR and S = (I + R M Rᵀ)^½, whose
    covariance is D^½ (I + Q R M Rᵀ Qᵀ) D^½ = Σ exactly, in O(d).
    """
    c = np.asarray(true_counts, dtype=np.float64)
    n = float(c.sum())
    mean = c * p + (n - c) * q
    kappa = cov_to - cov_oo
    delta = c * var_t + (n - c) * var_o - n * cov_oo - 2.0 * kappa * c
    delta = np.maximum(delta, 1e-12 * max(n, 1.0))
    root = np.sqrt(delta)
    u = np.stack([np.ones_like(c), c], axis=1) / root[:, None]
    qmat, rmat = np.linalg.qr(u)
    m = np.array([[n * cov_oo, kappa], [kappa, 0.0]])
    inner = np.eye(2) + rmat @ m @ rmat.T
    w, vecs = np.linalg.eigh((inner + inner.T) / 2)
    s = (vecs * np.sqrt(np.clip(w, 0.0, None))) @ vecs.T
    xi = rng.standard_normal(c.shape[0])
    z = xi + qmat @ ((s - np.eye(2)) @ (qmat.T @ xi))
    return mean + root * z
