"""The numerical reconstructions as registered estimators (EM/EMS, HH-ADMM/CI, Haar) and the paper's fidelity
findings for EM/EMS (square-wave paper §6.2, §6.4). The EM/EMS solver itself is tested in tests/maths/test_em.py."""

from __future__ import annotations

import numpy as np
import pytest

import ldp
from ldp.evaluation.metrics import ks_distance, wasserstein
from ldp.mechanisms.numerical.square_wave import SquareWave, mutual_information_b

D = 256  # the paper's Beta(5, 2) resolution (§6.1)
N = 100_000
EDGES = np.linspace(0.0, 1.0, D + 1)


def _beta_population(rng: np.random.Generator, n: int = N) -> tuple[np.ndarray, np.ndarray]:
    values = rng.beta(5, 2, n)
    counts = np.bincount(np.minimum((values * D).astype(np.int64), D - 1), minlength=D)
    return values, counts


def _w1(truth: np.ndarray, est: np.ndarray) -> float:
    """W1 on [0, 1] of both projected onto the simplex (as the lab's distance always did)."""
    return wasserstein(truth, est, EDGES, project=True)


def _binning_estimate(name: str, eps: float, bins: int, fine_counts: np.ndarray, rng: np.random.Generator):
    """CFO with binning (§4.1): a categorical oracle on ``bins`` bins, Norm-Sub, uniform within a bin."""
    mech = ldp.get_mechanism(name, eps, bins)
    agg = ldp.run_fast(mech, fine_counts.reshape(bins, -1).sum(axis=1), rng)
    coarse = ldp.norm_sub(mech.estimate(agg).values)
    return np.repeat(coarse / (D // bins), D // bins)


# ------------------------------------------------------------------------------------------- registered estimators
RECONSTRUCTIONS = {"sw": ("ems", "em"), "sw-discrete": ("ems", "em"), "gw": ("ems", "em"), "hh": ("hh-admm", "hh-ci"),
                   "haar-hrr": ("haar", "haar-ns"), "cfo-binning": ("norm-sub",)}


@pytest.mark.parametrize("name", sorted(RECONSTRUCTIONS))
def test_each_reconstruction_is_a_registered_estimator(name):
    mech = ldp.get_mechanism(name, 1.0, 16)
    assert mech.reconstructions == RECONSTRUCTIONS[name]
    assert mech.default_estimator == mech.reconstructions[0]
    counts = np.random.default_rng(0).multinomial(20_000, np.full(16, 1 / 16))
    agg = ldp.run_fast(mech, counts, np.random.default_rng(1))
    own = mech.estimate(agg)
    assert own.estimator == mech.default_estimator
    for method in mech.reconstructions:
        via_estimator = ldp.get_estimator(method).estimate(mech, agg)
        direct = mech.reconstruct(agg, method=method)
        assert via_estimator.estimator == direct.estimator == method
        np.testing.assert_array_equal(via_estimator.values, direct.values)
        assert via_estimator.values.shape == (16,) and np.all(np.isfinite(via_estimator.values))
        if ldp.ESTIMATORS.get(method).consistent:
            assert np.all(via_estimator.values >= -1e-12) and via_estimator.values.sum() == pytest.approx(1.0)
    np.testing.assert_array_equal(own.values, mech.reconstruct(agg).values)
    with pytest.raises(ldp.LDPError, match="offers the reconstructions"):
        mech.reconstruct(agg, method="mi" if name != "cfo-binning" else "ems")
    # a reconstruction applies to the mechanisms that list it, and to no other
    for est in ("ems", "hh-admm", "haar"):
        assert ldp.ESTIMATORS.get(est).applies_to(mech) == (est in mech.reconstructions)


def test_reconstruction_parameters_reach_the_solver():
    sw = ldp.get_mechanism("sw", 1.0, 32)
    agg = ldp.run_fast(sw, np.full(32, 500), np.random.default_rng(2))
    capped = ldp.get_estimator("ems", max_iter=3, tol=0.0).estimate(sw, agg)
    assert not capped.converged and capped.iterations == 3 and capped.warnings
    assert "max_iter=3" in capped.warnings[0]
    free = ldp.get_estimator("ems").estimate(sw, agg)
    assert free.converged and free.diagnostics["tol"] == 1e-3 and not free.warnings
    with pytest.raises(ldp.LDPError, match="unknown parameter"):
        ldp.get_estimator("hh-admm", tol=1e-3)


# ------------------------------------------------------------------------------------------- paper findings
@pytest.mark.slow
@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0])
def test_sw_ems_beats_cfo_binning_on_beta_5_2(eps):
    """§6.2 / Fig. 2: Beta(5, 2), 10^5 users, 256 buckets: SW with EMS has a lower Wasserstein distance than
    OUE or GRR on 16, 32 or 64 bins with Norm-Sub (uniform within a bin), and EMS beats plain EM.

    Exact client, seed 2020, 20 populations, 100 baseline draws per configuration. EMS/EM: over 10 populations
    the ratio of mean W1 at ε = 0.5 is 0.91 ± 0.035 (12 seeds, before and after the client's grid snapping), so
    a 20-population mean has sd ≈ 0.025 and "EMS < EM" holds by > 3σ; a 0.95 margin (1.6σ) would be a coin
    flip on the seed, so it is asserted only where the gap is wide (ε ≥ 1: ratio ≈ 0.6–0.75). For reference, the means
    over 20 populations of ``benchmarks/bench_numerical.py`` table 2 (W1 on [0, 1]):
    ε = 0.5: EMS 0.0097, EM 0.0109, best binning OUE-16 0.0146;
    ε = 1:   EMS 0.0055, EM 0.0074, best binning OUE-16 0.0078;
    ε = 2:   EMS 0.0022, EM 0.0037, best binning GRR-16 0.0034 — EMS / best binning ≈ 0.65–0.7, asserted < 0.9.
    """
    rng = np.random.default_rng(2020)
    sw = SquareWave(eps, D)
    w: dict[str, list[float]] = {}
    ks: dict[str, list[float]] = {}
    for _ in range(20):
        values, counts = _beta_population(rng)
        truth = counts / N
        agg = sw.aggregate(sw.perturb(values, rng))
        for method in ("ems", "em"):
            est = sw.reconstruct(agg, method=method)
            assert est.converged
            w.setdefault(method, []).append(_w1(truth, est.values))
            ks.setdefault(method, []).append(ks_distance(truth, est.values, EDGES, project=True))
        for _ in range(5):
            for name in ("oue", "grr"):
                for bins in (16, 32, 64):
                    est = _binning_estimate(name, eps, bins, counts, rng)
                    w.setdefault(f"{name}-{bins}", []).append(_w1(truth, est))
    mean = {k: float(np.mean(v)) for k, v in w.items()}
    best_binning = min(v for k, v in mean.items() if k not in ("em", "ems"))
    assert mean["ems"] < 0.9 * best_binning, mean
    assert mean["ems"] < (1.0 if eps < 1 else 0.95) * mean["em"], mean
    assert np.mean(ks["ems"]) < np.mean(ks["em"])


@pytest.mark.slow
@pytest.mark.parametrize("eps", [1.0, 2.0])
def test_mutual_information_b_is_near_the_best_b(eps):
    """§6.4 / Fig. 6: sweeping b from 0.02 to 0.5, the mutual-information b is among the best.

    Fast engine, Beta(5, 2), 10^5 users, 256 buckets, EMS, 6 trials per b (common seeds). Means over 20
    populations (bench table 3): ε = 1 (b_MI = 0.256): 0.0051 at b_MI, best 0.0047 (b = 0.3), 0.020 at
    b = 0.02; ε = 2 (b_MI = 0.129): 0.0023 at b_MI, best 0.0022 (b = 0.1), 0.0051 at b = 0.02.
    """
    b_mi = mutual_information_b(eps)
    grid = [0.02, 0.05, 0.1, 0.2, b_mi, 0.3, 0.5]
    mean = {}
    for b in grid:
        rng = np.random.default_rng(77)
        sw = SquareWave(eps, D, b=b)
        errors = []
        for _ in range(6):
            _, counts = _beta_population(rng)
            est = sw.estimate(sw.sample_aggregate(counts, rng))
            errors.append(_w1(counts / N, est.values))
        mean[b] = float(np.mean(errors))
    best = min(mean.values())
    assert mean[b_mi] <= 1.35 * best, mean
    assert mean[b_mi] < 0.5 * mean[0.02], mean  # far better than a too-narrow wave


def test_ems_is_at_least_as_good_as_em_on_smooth_data_fast_engine():
    rng = np.random.default_rng(31)
    sw = SquareWave(1.0, 128)
    edges = np.linspace(0, 1, 129)
    truth = np.diff(np.clip(np.linspace(0, 1, 129), 0, 1) ** 3)  # smooth density 3v²
    diffs = []
    for _ in range(4):
        counts = rng.multinomial(50_000, truth)
        agg = sw.sample_aggregate(counts, rng)
        f = counts / counts.sum()
        w_ems = wasserstein(f, sw.reconstruct(agg, method="ems").values, edges, project=True)
        w_em = wasserstein(f, sw.reconstruct(agg, method="em").values, edges, project=True)
        diffs.append(w_ems - w_em)
    assert np.mean(diffs) <= 0.0


def test_population_to_reconstruction_on_both_engines():
    """The uniform pipeline (true bucket counts → one collection on either engine → the mechanism's own
    reconstruction) returns a distribution close to the truth: W1 in bucket units well below the uniform
    distribution's. (Formerly ``simulate_population``; now ``ldp.collect`` + ``estimate``.)"""
    from ldp.data.synthetic import true_distribution

    f = true_distribution("beta:d=128,a=5,b=2")
    counts = np.random.default_rng(0).multinomial(100_000, f)
    uniform_w1 = np.abs(np.cumsum(np.full(128, 1 / 128)) - np.cumsum(f)).sum()
    for name in ("sw", "sw-discrete"):
        mech = ldp.get_mechanism(name, 1.0, 128)
        for engine in ("fast", "exact"):
            agg = ldp.collect(mech, counts, np.random.default_rng(1), engine)
            est = mech.estimate(agg).values
            assert est.shape == (128,) and abs(est.sum() - 1) < 1e-9 and est.min() >= 0
            assert np.abs(np.cumsum(est) - np.cumsum(counts / counts.sum())).sum() < 0.25 * uniform_w1
            same = ldp.simulate(mech, counts, engine=engine, seed=np.random.default_rng(1)).estimates["ems"][0]
            np.testing.assert_array_equal(same, est)
        with pytest.raises(ldp.LDPError, match="does not apply"):
            ldp.simulate(mech, counts, estimators=["hh-admm"])
