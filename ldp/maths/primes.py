"""Prime numbers for hash families."""

from __future__ import annotations

import math

__all__ = ["is_prime", "next_prime"]


def is_prime(n: int) -> bool:
    """Whether n is prime (trial division; the hash families here use primes below 2^31)."""
    n = int(n)
    if n < 2:
        return False
    if n < 4:
        return True
    if n % 2 == 0:
        return False
    return all(n % f for f in range(3, math.isqrt(n) + 1, 2))


def next_prime(n: int) -> int:
    """The smallest prime ≥ n."""
    n = max(2, int(n))
    while not is_prime(n):
        n += 1
    return n
