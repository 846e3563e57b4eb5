"""Named random streams (ldp.core.streams): a generator keyed by what it is for, never by its position."""

from __future__ import annotations

import numpy as np
import pytest

import ldp
from ldp.core.streams import key_words, rng_for, seed_for, seed_sequence


def _draw(*args) -> np.ndarray:
    return rng_for(*args).random(8)


def test_same_root_and_names_give_the_same_stream():
    np.testing.assert_array_equal(_draw(7, "sweep", "oue", 1.0, 1000, 16), _draw(7, "sweep", "oue", 1.0, 1000, 16))
    np.testing.assert_array_equal(_draw(np.int64(7), "a"), _draw(7, "a"))


def test_different_names_roots_or_order_give_different_streams():
    base = _draw(7, "sweep", "oue", 1.0)
    for other in [(8, "sweep", "oue", 1.0), (7, "sweep", "grr", 1.0), (7, "sweep", "oue", 2.0),
                  (7, "oue", "sweep", 1.0), (7, "sweep", "oue"), (7, "sweep", "oue", 1.0, "x")]:
        assert not np.array_equal(base, _draw(*other)), other


def test_names_are_typed_and_exact():
    # 1 and 1.0 and "1" are different names; a float is its exact value (0.1 is one name, not 0.1000001)
    assert len({tuple(key_words([x])) for x in (1, 1.0, "1", True, None)}) == 5
    assert key_words([0.1]) == key_words([0.1]) != key_words([0.1 + 1e-17 + 1e-16])
    # containers are names too, and dict keys are sorted
    assert key_words([{"b": 2, "a": 1}]) == key_words([{"a": 1, "b": 2}])
    assert key_words([(1, "x")]) == key_words([[1, "x"]]) != key_words([(1,), "x"])
    assert len(key_words(["a", "b"])) == 4  # two 32-bit words per name
    with pytest.raises(ldp.LDPError, match="stream name"):
        key_words([object()])


def test_a_stream_does_not_depend_on_other_streams():
    """The point of naming: drawing from one stream leaves every other stream as it was."""
    first = rng_for(3, "collection", 0)
    first.random(1000)
    np.testing.assert_array_equal(rng_for(3, "collection", 1).random(5), _draw(3, "collection", 1)[:5])


def test_seeds():
    assert seed_for(5, "x") == seed_for(5, "x") != seed_for(5, "y")
    assert 0 <= seed_for(5, "x") < 2**63
    assert seed_sequence(5, "x").entropy[0] == seed_sequence(5, "y").entropy[0] == 5  # the root, then the names
    assert not np.array_equal(_draw(None, "x"), _draw(None, "x"))  # no root seed: fresh entropy each time
    for bad in (-1, 1.5, "3", True):
        with pytest.raises(ldp.LDPError, match="seed"):
            rng_for(bad, "x")
