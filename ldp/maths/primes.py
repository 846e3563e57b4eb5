"""Primality for the hash families' primes: a deterministic Miller–Rabin test (exact for every n < 3.3·10²⁴ with
the first twelve prime bases — Sorenson & Webster 2015), so a user-given prime such as 2,147,483,629 is checked in
microseconds instead of a trial division that ran for minutes."""

from __future__ import annotations

from ldp.core.errors import InvalidInput

__all__ = ["is_prime", "next_prime"]

_BASES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37)
_LIMIT = 3_317_044_064_679_887_385_961_981  # the bases above decide every n below this exactly


def is_prime(n: int) -> bool:
    """Whether n is prime (deterministic Miller–Rabin; n below 3.3·10²⁴).

    Parameters
    ----------
    n : int
        The number to test (anything below 2 is not prime).

    Returns
    -------
    bool
        True when n is prime.

    Raises
    ------
    InvalidInput
        For an n ≥ 3.3·10²⁴ with no small prime factor (the twelve bases decide only below that).

    References
    ----------
    Sorenson & Webster, "Strong pseudoprimes to twelve prime bases", Math. Comp. 2015.
    """
    n = int(n)
    if n < 2:
        return False
    for p in _BASES:
        if n % p == 0:
            return n == p
    if n >= _LIMIT:
        raise InvalidInput(f"primality of numbers above 3.3e24 is not decided here, got {n}")
    d, s = n - 1, 0
    while d % 2 == 0:
        d //= 2
        s += 1
    for a in _BASES:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def next_prime(n: int) -> int:
    """The smallest prime ≥ n (prime gaps below 2⁶⁴ are under 1,600, so this takes at most that many tests).

    Parameters
    ----------
    n : int
        The lower bound (values below 2 start at 2).

    Returns
    -------
    int
        The smallest prime ≥ max(n, 2).

    Raises
    ------
    InvalidInput
        If the search passes 3.3·10²⁴ (see :func:`is_prime`).
    """
    n = max(2, int(n))
    while not is_prime(n):
        n += 1
    return n
