"""The public API (``ldp.__all__``) is documented in numpydoc: every function has Parameters and Returns sections,
every class Parameters or Attributes (its constructor or what it holds) — issue 20 item 10."""

from __future__ import annotations

import inspect

import pytest

import ldp

EXCEPTIONS = {"LDPError", "InvalidInput", "NotAvailable", "ConvergenceWarning"}  # one-line classes by design


@pytest.mark.parametrize("name", [n for n in ldp.__all__ if n not in EXCEPTIONS])
def test_public_api_has_numpydoc_sections(name):
    obj = getattr(ldp, name)
    if not (inspect.isfunction(obj) or inspect.isclass(obj)):
        return  # registries and constants
    doc = inspect.getdoc(obj) or ""
    if inspect.isclass(obj):
        assert "Parameters\n----------" in doc or "Attributes\n----------" in doc or "Examples\n--------" in doc, name
    else:
        assert "Parameters\n----------" in doc and "Returns\n-------" in doc, name


@pytest.mark.parametrize("method", ["perturb", "estimate", "sample_aggregate", "privacy_loss"])
def test_the_mechanism_protocol_is_documented(method):
    doc = inspect.getdoc(getattr(ldp.Mechanism, method)) or ""
    assert "Parameters\n----------" in doc and "Returns\n-------" in doc
