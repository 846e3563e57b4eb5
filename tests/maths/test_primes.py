"""Prime numbers for the hash families (ldp.maths.primes)."""

from __future__ import annotations

import pytest

from ldp.maths.primes import is_prime, next_prime

SMALL_PRIMES = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97]


def test_is_prime_by_sieve():
    assert [n for n in range(-5, 100) if is_prime(n)] == SMALL_PRIMES
    assert is_prime(2**31 - 1)  # a Mersenne prime: the largest P the Carter–Wegman family accepts
    assert not is_prime(2**31 - 3) and not is_prime(65537 * 3)


@pytest.mark.parametrize(("n", "expected"), [(-3, 2), (0, 2), (2, 2), (3, 3), (4, 5), (16, 17), (17, 17), (90, 97),
                                              (1000, 1009), (10_000, 10_007)])
def test_next_prime_is_the_smallest_prime_at_least_n(n, expected):
    p = next_prime(n)
    assert p == expected and is_prime(p)
    assert not any(is_prime(m) for m in range(max(n, 2), p))


def test_miller_rabin_decides_large_numbers_and_pseudoprimes_at_once():
    """Issue 10 item 2: a user-given prime=2147483629 ran a trial division for minutes; strong pseudoprimes to
    several bases (3215031751 = 151·751·28351, the Carmichael number 561) must still be rejected."""
    from ldp.maths.primes import is_prime, next_prime

    assert is_prime(2_147_483_629) and is_prime(2_147_483_647) and is_prime(2**61 - 1)
    assert not is_prime(561) and not is_prime(3_215_031_751) and not is_prime(2**61 + 1)
    assert next_prime(2**61) == 2_305_843_009_213_693_967
    assert [n for n in range(100) if is_prime(n)] == [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59,
                                                     61, 67, 71, 73, 79, 83, 89, 97]
