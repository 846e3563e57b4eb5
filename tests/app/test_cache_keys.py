"""A page's cached functions are keyed once per compiled function (views/cache_keys.py): the key is Streamlit's
own, a rerun of the same compiled page does not read the source again, and an edited page is keyed afresh."""

from __future__ import annotations

import functools
import inspect

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
