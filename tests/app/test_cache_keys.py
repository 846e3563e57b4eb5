"""A page's cached functions are keyed once per compiled function (views/cache_keys.py): the key is Streamlit's
own, a rerun of the same compiled page does not read the source again, and an edited page is keyed afresh; their
arguments are named once per code object too."""

from __future__ import annotations

import functools
import inspect
import types

import pytest
from streamlit.runtime.caching import cache_utils
from streamlit.runtime.caching.cache_type import CacheType

from views import cache_keys

PAGE = '''
import streamlit as st

@st.cache_data(show_spinner=False)
def doubled(x, factor={factor}):
    return x * factor
'''


def _page_code(factor: int, path: str = "page.py"):  # what Streamlit's script cache holds: the page compiled once
    return compile(PAGE.format(factor=factor), path, "exec")


def _run(code) -> object:  # one rerun: the script executed in a fresh namespace, its functions declared again
    namespace: dict = {"__name__": "__main__"}
    exec(code, namespace)
    return namespace["doubled"]


@pytest.fixture
def remembering(monkeypatch):
    original = cache_utils._make_function_key
    monkeypatch.setattr(cache_utils, "_make_function_key", cache_keys._remembering(original))
    return original


def test_a_rerun_keys_the_same_compiled_function_without_reading_its_source(remembering, monkeypatch):
    def source_of(func):  # the one line-by-line read the key maker does
        reads.append(func.__qualname__)
        return PAGE

    reads: list[str] = []
    monkeypatch.setattr(inspect, "getsource", source_of)
    code = _page_code(2)
    first, second = _run(code), _run(code)
    assert reads == ["doubled"]  # read for the first declaration only
    assert first._function_key == second._function_key == remembering(CacheType.DATA, first.__wrapped__)
    assert first(3) == second(3) == 6  # one cache: the second declaration finds the first one's value


def test_an_edited_page_is_keyed_afresh(remembering, tmp_path):
    page = tmp_path / "page.py"
    page.write_text(PAGE.format(factor=2))
    before = _run(_page_code(2, str(page)))
    page.write_text(PAGE.format(factor=3))  # the file changed: compiled again
    after = _run(_page_code(3, str(page)))
    assert before._function_key != after._function_key  # a new default, a new key (the source differs)
    assert after(3) == 9


def test_streamlits_key_maker_is_wrapped_once():
    assert cache_keys.remember_function_keys() is True
    wrapped = cache_utils._make_function_key
    assert cache_keys.remember_function_keys() is True and cache_utils._make_function_key is wrapped  # not twice


def test_a_callable_without_code_is_keyed_by_streamlit_every_time():
    made: list[object] = []
    make = cache_keys._remembering(lambda cache_type, func: made.append(func) or f"key {len(made)}")
    callable_object = functools.partial(max, 0)  # no __code__: nothing to remember it by
    assert make(CacheType.RESOURCE, callable_object) == "key 1"
    assert make(CacheType.RESOURCE, callable_object) == "key 2" and made == [callable_object] * 2


def _many(a, b, /, c, *rest, d=1, **more):  # every kind of parameter
    return a


def test_argument_names_are_streamlits_own_and_read_once_per_code_object(monkeypatch):
    """Streamlit names each positional argument of a cached call (those starting with "_" are not hashed): the
    remembered answers are its own for every kind of parameter and past the end, and a function's signature is read
    once per index, not on every call."""
    real = cache_utils._get_positional_arg_name
    asked: list[tuple[object, int]] = []

    def counting(func, index):
        asked.append((func, index))
        return real(func, index)

    name = cache_keys._naming(counting)
    expected = [real(_many, i) for i in range(-1, 6)]
    assert expected == [None, "a", "b", "c", None, None, None]  # *rest, then past the end
    assert [name(_many, i) for i in range(-1, 6)] == expected
    assert [name(_many, i) for i in range(-1, 6)] == expected
    assert len(asked) == 7  # the second pass was remembered

    def page(_result, run):  # a rerun declares the same compiled function again: same code, a new function
        return run

    again = types.FunctionType(page.__code__, globals())
    assert name(page, 0) == "_result" and name(again, 0) == "_result" and len(asked) == 8


def test_a_wrapped_or_signed_callable_is_named_by_streamlit_every_time():
    asked: list[int] = []
    name = cache_keys._naming(lambda func, index: asked.append(index) or "x")

    @functools.wraps(_many)
    def wrapper(*args, **kwargs):
        return _many(*args, **kwargs)

    for func in (wrapper, functools.partial(_many, 1), max):
        name(func, 0)
        name(func, 0)
    assert len(asked) == 6
