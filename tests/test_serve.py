"""serve.py: the classroom's routes mounted by their paths and loaded on the first request; the warm-up thread."""

from __future__ import annotations

import re
import sys

import pytest
from starlette.applications import Starlette
from starlette.routing import Route
from starlette.testclient import TestClient

import serve
from ldp.classroom.http import classroom_routes


def _example(path: str) -> str:
    """A concrete URL for a route pattern: every ``{name}`` or ``{name:conv}`` replaced by a code-like value."""
    return re.sub(r"\{[^}]+\}", "ABC123", path)


def test_the_lazy_paths_cover_every_classroom_route():
    lazy = [Route(path, serve.LazyClassroom()) for path in serve.CLASSROOM_PATHS]
    for route in classroom_routes():
        url = _example(route.path)
        scope = {"type": "http", "path": url, "method": next(iter(route.methods or {"GET"})), "root_path": ""}
        assert any(candidate.matches(scope)[0].name == "FULL" for candidate in lazy), f"{route.path} is not mounted"


def test_a_request_reaches_the_classroom_through_the_lazy_routes():
    client = TestClient(Starlette(routes=serve.classroom_routes()))
    script = client.get("/classroom/randomizer.js")
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    assert client.get("/api/classes/NOPE99").status_code == 404  # the classroom's own answer: no such class
    assert client.get("/classroom/nothing-here").status_code == 404  # the classroom's router: no such route
    refused = client.post("/api/classes/ABC123/reports", content=b"{}", headers={"Content-Type": "text/plain"})
    assert refused.status_code == 415  # its request checks apply as when mounted directly


def test_warm_imports_imports_the_modules_and_survives_a_broken_one(monkeypatch):
    monkeypatch.delitem(sys.modules, "json.tool", raising=False)
    serve.warm_imports(("no_such_module_anywhere", "json.tool"), wait_s=0)
    assert "json.tool" in sys.modules


@pytest.mark.parametrize("name", serve.WARM_MODULES)
def test_the_warmed_modules_exist(name):
    __import__(name)
