"""Local hashing with hash="xxh32": the hash and report layout of the IBU paper's reference
implementation (multi-freq-ldpy), so that ``ldp aggregate`` reads reports produced by that library.

* :func:`xxh32_decimal` equals the ``xxhash`` package on str(v).encode(), including how the package
  reduces seeds ≥ 2^32 (and negative ones) to their low 32 bits;
* reports made by multi-freq-ldpy's own clients (BLH, OLH, L-BLH, L-OLH), written as ``y seed`` lines
  and parsed by ``parse_reports``, give the support counts of a direct count with ``xxhash``, our
  Norm-Mul equals the reference's MI output (its clip-and-renormalize step; the scale 1/(p* − q*)
  cancels, so only q* = 1/g matters and L-OLH's differing p2 does not) and our IBU its
  ``LH_Aggregator_IBU``, to 1e-9 (for L-LH the reference's IBU uses another channel, q = p1·q2 + p2/g;
  IBU with that channel on our counts reproduces it);
* our own client round-trips, the reference aggregator reads our reports, and matrix inversion is
  unbiased with the ideal-hash q* = 1/g (conformance-style 5σ checks).

multi-freq-ldpy is written for xxhash 3.x, which hashed ``str`` arguments; xxhash ≥ 4 rejects str, so
the tests give its modules an ``xxhash`` whose ``xxh32`` encodes str as ASCII first (the bytes xxhash
3.x hashed). Its GRR client and IBU are numba functions; we call their pure-Python originals
(``.py_func``: same code, no JIT compile, seeded by ``np.random.seed``).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import ldp
from ldp.estimators.ibu import ibu_observed, iterative_bayesian_update
from ldp.mechanisms.frequency.local_hashing import XXH32_SEED_HIGH, xxh32_hash, xxh32_support_counts
from ldp.mechanisms.frequency.xxh32 import MAX_VALUE, seed32, xxh32_decimal
from ldp.report_files import load_reports, perturb_to_file, read_header

xxhash = pytest.importorskip("xxhash")

D = 20
N = 2000
LH_NAMES = ("blh", "olh", "l-blh", "l-olh")


def _ref_digest(value: int, seed: int) -> int:
    return xxhash.xxh32(str(int(value)).encode("ascii"), seed=int(seed)).intdigest()


def _direct_counts(reports: np.ndarray, d: int, g: int) -> np.ndarray:
    """Support counts with the xxhash package, pair by pair (the reference aggregators' loop)."""
    return np.array([sum(int(y) == _ref_digest(v, s) % g for y, s in reports) for v in range(d)], dtype=np.float64)


def _mech(name: str, epsilon: float, d: int, **params):
    if name.startswith("l-"):
        params.setdefault("epsilon_1", epsilon / 2)
    return ldp.get_mechanism(name, epsilon, d, hash="xxh32", **params)


def _population(d: int, n: int) -> np.ndarray:
    weights = 1.0 / np.arange(1, d + 1) ** 1.1
    counts = np.floor(n * weights / weights.sum()).astype(np.int64)
    counts[0] += n - counts.sum()
    return counts


# --------------------------------------------------------------------------- the hash itself
def test_xxh32_equals_the_xxhash_package():
    rng = np.random.default_rng(11)
    values = np.concatenate([np.arange(0, 1200), rng.integers(0, MAX_VALUE + 1, 800),
                             [10**k for k in range(15)], [10**k - 1 for k in range(1, 16)]]).astype(np.int64)
    seeds = rng.integers(0, 2**63 - 1, values.size)  # 63-bit, like np.random.randint(0, sys.maxsize)
    seeds[:6] = [0, 1, 2**32 - 1, 2**32, 2**32 + 1, 2**63 - 2]
    got = xxh32_decimal(values, seeds)
    assert got.dtype == np.uint32
    expected = np.array([_ref_digest(v, s) for v, s in zip(values, seeds, strict=True)], dtype=np.uint32)
    np.testing.assert_array_equal(got, expected)
    # small seeds too (mostly < 2^32)
    small = rng.integers(0, 2**32, values.size)
    np.testing.assert_array_equal(xxh32_decimal(values, small),
                                  [_ref_digest(v, s) for v, s in zip(values, small, strict=True)])


def test_the_package_keeps_the_low_32_bits_of_a_seed():
    """What python-xxhash does with seeds outside [0, 2^32) — and that we do the same."""
    for seed in (2**32, 2**40 + 12345, 2**63 - 1, 2**64 + 5, 2**70 + 3, -1, -(2**40) - 7):
        for value in (0, 7, 12345, 10**14):
            ref = xxhash.xxh32(str(value).encode(), seed=seed).intdigest()
            assert ref == xxhash.xxh32(str(value).encode(), seed=seed % 2**32).intdigest()
            assert int(xxh32_decimal(value, seed)) == ref
    np.testing.assert_array_equal(seed32(np.array([2**63 - 2, -1, 5])), [2**32 - 2, 2**32 - 1, 5])
    np.testing.assert_array_equal(seed32(np.array([2**64 + 5, 2**80], dtype=object)), [5, 0])


def test_xxh32_broadcasts_users_by_values():
    rng = np.random.default_rng(3)
    seeds = rng.integers(0, 2**63 - 1, 37)
    values = np.arange(150)
    table = xxh32_decimal(values[None, :], seeds[:, None])
    assert table.shape == (37, 150)
    for i in (0, 17, 36):
        np.testing.assert_array_equal(table[i], [_ref_digest(v, seeds[i]) for v in values])
    assert xxh32_decimal(5, 9).shape == ()
    np.testing.assert_array_equal(xxh32_hash(values, seeds[0], 7), table[0] % 7)


def test_xxh32_rejects_what_it_cannot_hash():
    with pytest.raises(ldp.LDPError, match="values"):
        xxh32_decimal(np.array([-1]), 0)
    with pytest.raises(ldp.LDPError, match="values"):
        xxh32_decimal(np.array([MAX_VALUE + 1]), 0)
    with pytest.raises(ldp.LDPError, match="values must be integers"):  # formerly TypeError: a user error now
        xxh32_decimal(np.array([0.5]), 0)
    with pytest.raises(ldp.LDPError, match="seeds must be integers"):
        xxh32_decimal(1, np.array([0.5]))


@pytest.mark.parametrize("block_cells", [40, 300, 1 << 20])
def test_chunked_support_counts_equal_a_direct_count(block_cells):
    """Blocks cross the decimal-length edges 10 and 100 and split both users and values."""
    rng = np.random.default_rng(5)
    d, g, n = 123, 3, 400
    reports = np.stack([rng.integers(0, g, n), rng.integers(0, 2**63 - 1, n)], axis=1)
    got = xxh32_support_counts(reports[:, 0], reports[:, 1], d, g, block_cells=block_cells)
    np.testing.assert_array_equal(got, _direct_counts(reports, d, g))


def test_other_values_collide_with_probability_one_over_g():
    """The ideal-hash assumption behind q* = 1/g, per pair of values over random seeds (5σ)."""
    rng = np.random.default_rng(8)
    seeds = rng.integers(0, 2**63 - 1, 100_000)
    for g in (2, 5):
        h = xxh32_hash(np.arange(D)[None, :], seeds[:, None], g)
        same = (h[:, :, None] == h[:, None, :]).mean(axis=0)[np.triu_indices(D, 1)]
        sd = math.sqrt((1 / g) * (1 - 1 / g) / seeds.size)
        assert np.abs(same - 1 / g).max() < 5 * sd


# --------------------------------------------------------------------------- multi-freq-ldpy's reports
class _XXHashStr:
    """xxhash 3.x behaviour for the reference code: str arguments are hashed as their ASCII bytes."""

    @staticmethod
    def xxh32(data, seed=0):
        return xxhash.xxh32(data.encode("ascii") if isinstance(data, str) else data, seed=seed)


@pytest.fixture
def reference(monkeypatch):
    """multi-freq-ldpy's LH and L-LH modules, runnable with xxhash 4 and without numba compiles."""
    pytest.importorskip("multi_freq_ldpy")
    from multi_freq_ldpy.long_freq_est import L_GRR, L_LH
    from multi_freq_ldpy.pure_frequency_oracles import LH

    def plain(func):
        return getattr(func, "py_func", func)

    for module in (LH, L_LH):
        monkeypatch.setattr(module, "xxhash", _XXHashStr)
        monkeypatch.setattr(module, "IBU", plain(module.IBU))
    monkeypatch.setattr(LH, "GRR_Client", plain(LH.GRR_Client))
    monkeypatch.setattr(L_GRR, "GRR_Client", plain(L_GRR.GRR_Client))
    return LH, L_LH


def _reference_g_l_olh(eps_perm: float, eps_1: float) -> int:
    """L-OLH's g as multi-freq-ldpy computes it (L_LH_Client)."""
    a = eps_1 / eps_perm
    e = np.exp
    num = (np.sqrt(e(4 * eps_perm) - 14 * e(2 * eps_perm) - 12 * e(2 * eps_perm * (a + 1)) + 12 * e(eps_perm * (a + 1))
                   + 12 * e(eps_perm * (a + 3)) + 1) - e(2 * eps_perm) + 6 * e(eps_perm) - 6 * e(eps_perm * a) + 1)
    return int(max(np.rint(num / (6 * (e(eps_perm) - e(eps_perm * a)))), 2))


def _values() -> np.ndarray:
    counts = _population(D, N)
    return np.random.default_rng(21).permutation(np.repeat(np.arange(D), counts))


CASES = [  # (our mechanism, ε (= ε∞), ε1, optimal)
    ("blh", 1.5, None, False),
    ("olh", 2.0, None, True),
    ("l-blh", 2.0, 1.0, False),
    ("l-olh", 2.0, 1.0, True),
]


@pytest.mark.parametrize(("name", "epsilon", "epsilon_1", "optimal"), CASES, ids=[c[0] for c in CASES])
def test_reference_reports_aggregate_to_the_reference_estimates(reference, tmp_path, name, epsilon, epsilon_1,
                                                                optimal):
    lh, l_lh = reference
    values = _values()
    np.random.seed(1234)  # noqa: NPY002 - the reference clients draw from numpy's global generator
    if epsilon_1 is None:
        tuples = [lh.LH_Client(int(v), D, epsilon, optimal) for v in values]
        g = int(round(np.exp(epsilon))) + 1 if optimal else 2
        mech = _mech(name, epsilon, D)
        assert mech.g == g
    else:
        tuples = [l_lh.L_LH_Client(int(v), D, epsilon, epsilon_1, optimal) for v in values]
        g = _reference_g_l_olh(epsilon, epsilon_1) if optimal else 2
        mech = _mech(name, epsilon, D, epsilon_1=epsilon_1, g=g)  # the reference rounds L-OLH's g differently
    assert max(int(s) for _, s in tuples) >= 2**32  # 63-bit seeds: the hash uses their low 32 bits
    path = tmp_path / "reference.txt"
    path.write_text("".join(f"{int(y)} {int(s)}\n" for y, s in tuples))  # the reference's (value, seed) order

    reports, header = load_reports(path, mech)  # what `ldp aggregate` does with a header-less file
    assert header is None and reports.shape == (N, 2)
    counts = mech.support_counts(reports)
    np.testing.assert_array_equal(counts, _direct_counts(reports, D, g))

    ours = ldp.get_estimator("norm-mul").estimate(mech, counts, N).values
    if epsilon_1 is None:
        theirs = lh.LH_Aggregator_MI(tuples, D, epsilon, optimal)
    else:
        theirs = l_lh.L_LH_Aggregator_MI(tuples, D, epsilon, epsilon_1, optimal)
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-9)
    assert np.abs(ours - theirs).max() < 1e-12
    if epsilon_1 is None:
        # the reference runs the paper's plain Eq. (3) iterations (10,000, tol 1e-12): our method="em"
        ours_ibu = ldp.get_estimator("ibu", method="em").estimate(mech, counts, N).values
        np.testing.assert_allclose(ours_ibu, lh.LH_Aggregator_IBU(tuples, D, epsilon, optimal), rtol=0, atol=1e-9)
    else:
        # The reference's L-LH IBU runs on another channel: q = p1·q2 + p2/g (not the 1/g of its own MI) and,
        # for g > 2, its p2 of the paper's closed form; on our counts, IBU with that channel is its output.
        p1 = np.exp(epsilon) / (np.exp(epsilon) + g - 1)
        q1 = (1 - p1) / (g - 1)
        e1 = np.exp(epsilon_1)
        p2 = (q1 - e1 * p1) / (-p1 * e1 + g * q1 * e1 - q1 * e1 - p1 * (g - 1) + q1)
        q2 = (1 - p2) / (g - 1)
        theirs_ibu = l_lh.L_LH_Aggregator_IBU(tuples, D, epsilon, epsilon_1, optimal)
        same_channel, _ = iterative_bayesian_update(ibu_observed(counts), p1 * p2 + (1 - p1) * q2, p1 * q2 + p2 / g)
        np.testing.assert_allclose(same_channel, theirs_ibu, rtol=0, atol=1e-9)


def test_cli_aggregates_a_reference_report_file(reference, tmp_path, capsys):
    from ldp.cli import main

    lh, _ = reference
    values = _values()
    np.random.seed(99)  # noqa: NPY002
    tuples = [lh.LH_Client(int(v), D, 2.0, True) for v in values]
    path = tmp_path / "olh.txt"
    path.write_text("".join(f"({int(y)}, {int(s)})\n" for y, s in tuples))  # Python's print of the tuples
    code = main(["aggregate", "-m", "olh", "-e", "2", "-d", str(D), "--param", "hash=xxh32", "--reports", str(path),
                 "--estimators", "norm-mul,ibu", "--estimator-param", "ibu.method=em"])  # the reference's iterations
    out, err = capsys.readouterr()
    assert code == 0, err
    result = json.loads(out)
    assert result["parameters"] == {"g": 8, "hash": "xxh32"} and result["users"] == N
    np.testing.assert_allclose(result["estimates"]["norm-mul"], lh.LH_Aggregator_MI(tuples, D, 2.0, True), atol=1e-9)
    np.testing.assert_allclose(result["estimates"]["ibu"], lh.LH_Aggregator_IBU(tuples, D, 2.0, True), atol=1e-9)


def test_the_reference_aggregator_reads_our_reports(reference):
    lh, _ = reference
    mech = _mech("olh", 2.0, D)
    reports = mech.perturb(_values(), np.random.default_rng(4))
    tuples = [(int(y), int(s)) for y, s in reports]
    ours = ldp.get_estimator("norm-mul").estimate(mech, mech.support_counts(reports), N).values
    np.testing.assert_allclose(ours, lh.LH_Aggregator_MI(tuples, D, 2.0, True), rtol=0, atol=1e-12)


# --------------------------------------------------------------------------- our client
@pytest.mark.parametrize("name", LH_NAMES)
def test_our_client_hashes_like_the_reference(name):
    """At ε = 25 GRR keeps the hash except with probability (g − 1)/(e²⁵ + g − 1) < 6·10⁻¹¹ per user (all 300
    keep it for this seed), so y = XXH32(str(v), seed) mod g for every user. (ε ≥ ~28 is refused: the flip
    probability would fall below what double-precision sampling represents.)"""
    mech = _mech(name, 25.0, D, **({"epsilon_1": 24.0, "g": 5} if name == "l-olh" else
                                   {"epsilon_1": 24.0} if name == "l-blh" else {"g": 5} if name == "olh" else {}))
    values = np.arange(300) % D
    reports = mech.perturb(values, np.random.default_rng(6))
    assert reports.dtype == np.int64 and reports.shape == (300, 2)
    seeds = reports[:, 1]
    assert seeds.min() >= 0 and seeds.max() < XXH32_SEED_HIGH and (seeds >= 2**32).mean() > 0.9
    expected = [_ref_digest(v, s) % mech.g for v, s in zip(values, seeds, strict=True)]
    np.testing.assert_array_equal(reports[:, 0], expected)


@pytest.mark.parametrize("name", LH_NAMES)
def test_round_trip_through_a_report_file(tmp_path, name):
    mech = _mech(name, 2.0, D)
    values = _values()
    path = tmp_path / "r.txt"
    perturb_to_file(path, mech, values, np.random.default_rng(2))
    header = read_header(path)
    assert header["params"]["hash"] == "xxh32" and "prime" not in header["params"]
    reports, _ = load_reports(path, mech)
    np.testing.assert_array_equal(reports, mech.perturb(values, np.random.default_rng(2)))
    assert list(mech.format_reports(reports[:2])) == [f"{y} {s}" for y, s in reports[:2]]
    np.testing.assert_array_equal(mech.support_counts(reports), _direct_counts(reports, D, mech.g))
    with pytest.raises(ldp.LDPError, match="other settings"):  # a Carter–Wegman mechanism refuses the file
        load_reports(path, ldp.get_mechanism(name, 2.0, D, **({"epsilon_1": 1.0} if name.startswith("l-") else {})))


@pytest.mark.parametrize("engine", ["exact", "fast"])
@pytest.mark.parametrize("name", LH_NAMES)
def test_unbiased_with_the_ideal_hash_q(name, engine):
    """Conformance-style: mean of the matrix-inversion estimates within 5σ/√R of the truth, MSE near theory."""
    d, n, trials = 16, 10_000, 60
    mech = _mech(name, 1.0, d)
    counts = _population(d, n)
    truth = counts / n
    result = ldp.simulate(mech, counts, estimators=["mi"], engine=engine, trials=trials, seed=20261122)
    est = result.estimates["mi"]
    sigma2 = mech.variance(truth, n)
    z = (est.mean(axis=0) - truth) / np.sqrt(sigma2 / trials)
    assert np.abs(z).max() < 5, f"{name}/{engine}: max |z| = {np.abs(z).max():.2f}"
    mse = result.metrics["mi"]["mse"].mean()
    sd = np.sqrt(2 * np.sum(sigma2**2)) / (d * np.sqrt(trials))
    assert abs(mse - sigma2.mean()) < 5 * 1.25 * sd


# --------------------------------------------------------------------------- parameters and validation
@pytest.mark.parametrize("name", LH_NAMES)
def test_parameters_and_probabilities(name):
    mech = _mech(name, 1.2, D)
    cw = ldp.get_mechanism(name, 1.2, D, **({"epsilon_1": 0.6} if name.startswith("l-") else {}))
    assert mech.hash_family == "xxh32" and cw.hash_family == "cw"
    assert mech.prime is None and set(mech.params) - {"epsilon_1"} == {"g", "hash"}
    assert set(cw.params) - {"epsilon_1"} == {"g", "prime"}  # the default leaves headers unchanged
    assert ldp.get_mechanism(name, 1.2, D, hash="cw", **({"epsilon_1": 0.6} if name.startswith("l-") else {})) == cw
    assert mech != cw and hash(mech) != hash(cw)
    assert ldp.get_mechanism(name, 1.2, D, **mech.params) == mech
    assert mech.g == cw.g and mech.p_star == cw.p_star and mech.q_star == 1.0 / mech.g
    assert "y seed" in mech.report_format and "a b y" in type(mech).report_format
    info = {p["name"]: p for p in type(mech).parameters_info()}
    assert info["hash"]["choices"] == ["cw", "xxh32", "mix64"] and info["hash"]["default"] == "cw"
    with pytest.raises(ldp.LDPError, match="pairwise"):
        mech.channel()
    with pytest.raises(ldp.LDPError, match="pairwise"):
        mech.privacy_loss()
    with pytest.raises(ldp.LDPError, match="prime"):
        _mech(name, 1.2, D, prime=23)
    with pytest.raises(ldp.LDPError, match="hash"):
        ldp.get_mechanism(name, 1.2, D, hash="md5", **({"epsilon_1": 0.6} if name.startswith("l-") else {}))


def test_bad_reports_are_rejected():
    mech = _mech("olh", 2.0, D)  # g = 8
    with pytest.raises(ldp.LDPError, match="y seed"):
        mech.support_counts(np.array([[1, 2, 3]]))
    with pytest.raises(ldp.LDPError, match="g=8"):
        mech.support_counts(np.array([[8, 2]]))
    with pytest.raises(ldp.LDPError, match="out of range"):
        mech.support_counts(np.array([[1, -2]]))
    with pytest.raises(ldp.LDPError, match="out of range"):
        mech.parse_reports([f"1 {2**63}"])
    with pytest.raises(ldp.LDPError, match="line 2"):
        mech.parse_reports(["1 5", "1 x"])
    with pytest.raises(ldp.LDPError):
        mech.parse_reports(["3 7 1"])  # a Carter–Wegman line
    with pytest.raises(ldp.LDPError):
        ldp.get_mechanism("olh", 2.0, D).parse_reports(["3 7"])
    parsed = mech.parse_reports(["(3, 9)", "1,5", "  2   7  ", "", f"7 {2**63 - 1}"])
    np.testing.assert_array_equal(parsed, [[3, 9], [1, 5], [2, 7], [7, 2**63 - 1]])
    assert parsed.dtype == np.int64


def test_secure_randomness_drives_the_xxh32_client():
    mech = _mech("l-olh", 2.0, D)
    reports = mech.perturb(np.arange(200) % D, ldp.SecureRandom())
    assert reports.shape == (200, 2) and reports[:, 1].min() >= 0
    assert np.all(np.isfinite(mech.support_counts(reports)))


def test_support_counts_scale_to_many_users_and_values():
    mech = _mech("olh", 2.0, 1000)
    rng = np.random.default_rng(0)
    reports = mech.perturb(rng.integers(0, 1000, 20_000), rng)
    counts = mech.support_counts(reports)
    assert counts.sum() == pytest.approx(20_000 * (mech.p_star + 999 / mech.g), rel=0.01)
    sample = rng.integers(0, 1000, 5)
    direct = [sum(int(y) == _ref_digest(v, s) % mech.g for y, s in reports) for v in sample]
    np.testing.assert_array_equal(counts[sample], direct)
