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

    Parameters
    ----------
    true_counts : numpy.ndarray
        n_v, the number of users holding each value, non-negative integers, shape (d,).
    p : float
        p*, the probability that a report supports the user's own value.
    q : float
        q*, the probability that a report supports a given other value.
    rng : numpy.random.Generator
        The generator of the binomial draws.

    Returns
    -------
    numpy.ndarray
        The support counts C (float64, shape (d,)), with E[C(v)] = n_v p + (n − n_v) q.

    References
    ----------
    IBU vs matrix inversion paper, §2.2 Definition 2 (pure LDP: the support probabilities p*, q*).
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

    Parameters
    ----------
    true_counts : numpy.ndarray
        c, the number of users holding each value, shape (d,) (non-negative; read as float64).
    p, q : float
        E X_u and E X_v: the probabilities that one report supports its user's value and a given other value.
    var_t, var_o : float
        Var X_u and Var X_v of one user's support indicators (own value, another value).
    cov_to : float
        Cov(X_u, X_v): own value against another value.
    cov_oo : float
        Cov(X_v, X_w): two distinct other values.
    rng : numpy.random.Generator
        The generator of the d standard normal draws.

    Returns
    -------
    numpy.ndarray
        Support counts (float64, shape (d,), real-valued, not rounded) with mean c p + (n − c) q and covariance Σ;
        the diagonal δ is floored at 10⁻¹² n so the factorisation stays defined.
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
