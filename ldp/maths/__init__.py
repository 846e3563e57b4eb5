"""Numerical routines that know nothing of LDP: EM on a channel, simplex projection, rounding to integer
counts, the Walsh–Hadamard transform and prime numbers. Mechanisms and estimators both build on them."""

__all__: list[str] = []
