"""Named random streams: a generator keyed by *what* it is for, never by its position in a list.

``rng_for(seed, "sweep", "oue", 1.0, 100000, 64)`` always gives the same generator for that root seed and
that path of names, whatever other streams exist. The names are hashed (BLAKE2b, stable across runs and
platforms) into 32-bit words that extend the root seed's entropy in a :class:`numpy.random.SeedSequence`,
so two different paths give statistically independent streams.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

import numpy as np

from ldp.core.errors import InvalidInput

__all__ = ["key_words", "rng_for", "seed_for", "seed_sequence"]


def _name_bytes(name: Any) -> bytes:
    if isinstance(name, bool) or name is None:
        return repr(name).encode()
    if isinstance(name, (int, np.integer)):
        return b"i" + str(int(name)).encode()
    if isinstance(name, (float, np.floating)):
        return b"f" + float(name).hex().encode()  # exact: 1.0 and 1 are different names, 0.1 is one name
    if isinstance(name, str):
        return b"s" + name.encode()
    if isinstance(name, (tuple, list)):
        return b"(" + b",".join(_name_bytes(x) for x in name) + b")"
    if isinstance(name, dict):
        return b"{" + b",".join(_name_bytes(k) + b":" + _name_bytes(v) for k, v in sorted(name.items())) + b"}"
    raise InvalidInput(f"a stream name must be a string, number, tuple or dict, got {type(name).__name__}")


def key_words(names: Iterable[Any]) -> list[int]:
    """The path of names as 32-bit words (two per name, from an 8-byte BLAKE2b digest).

    Parameters
    ----------
    names : iterable
        Stream names: strings, numbers (``1`` and ``1.0`` are different names), bools, None, or tuples, lists and
        dicts of those.

    Returns
    -------
    list of int
        ``2 × len(names)`` unsigned 32-bit words, stable across runs and platforms.

    Raises
    ------
    InvalidInput
        For a name of another type.
    """
    words: list[int] = []
    for name in names:
        digest = hashlib.blake2b(_name_bytes(name), digest_size=8).digest()
        words += [int.from_bytes(digest[:4], "little"), int.from_bytes(digest[4:], "little")]
    return words


def _check_seed(seed: Any) -> int | None:
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise InvalidInput(f"seed must be a non-negative integer, got {seed!r}")
    if seed < 0:
        raise InvalidInput(f"seed must be non-negative, got {seed}")
    return int(seed)


def seed_sequence(seed: int | None, *names: Any) -> np.random.SeedSequence:
    """The SeedSequence of the stream ``names`` under the root ``seed``.

    Parameters
    ----------
    seed : int or None
        The non-negative root seed; None draws fresh OS entropy (not reproducible).
    *names : object
        The path of names of the stream (see :func:`key_words`).

    Returns
    -------
    numpy.random.SeedSequence
        Entropy ``[seed, *key_words(names)]``.

    Raises
    ------
    InvalidInput
        For a negative or non-integer seed, or a name of an unsupported type.
    """
    root = _check_seed(seed)
    entropy = int(np.random.SeedSequence().entropy) if root is None else root
    return np.random.SeedSequence([entropy, *key_words(names)])


def rng_for(seed: int | None, *names: Any) -> np.random.Generator:
    """A PCG64 generator for the stream ``names`` under the root ``seed``.

    Parameters
    ----------
    seed : int or None
        The non-negative root seed; None draws fresh OS entropy (not reproducible).
    *names : object
        The path of names of the stream (see :func:`key_words`), e.g. ``"sweep", "oue", 1.0``.

    Returns
    -------
    numpy.random.Generator
        The same generator for the same seed and names, independent of every other path.

    Raises
    ------
    InvalidInput
        For a negative or non-integer seed, or a name of an unsupported type.
    """
    return np.random.default_rng(seed_sequence(seed, *names))


def seed_for(seed: int | None, *names: Any) -> int:
    """A 63-bit integer seed for the stream ``names`` (to hand to an API that takes an int).

    Parameters
    ----------
    seed, *names
        As for :func:`seed_sequence` (root seed, or None for OS entropy; the stream's path of names).

    Returns
    -------
    int
        A seed in ``[0, 2**63)``: the top 63 bits of the first 64-bit word the stream's SeedSequence generates.

    Raises
    ------
    InvalidInput
        As :func:`seed_sequence` does (bad seed or name).
    """
    return int(seed_sequence(seed, *names).generate_state(2, np.uint32).view(np.uint64)[0] >> np.uint64(1))
