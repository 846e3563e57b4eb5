"""The house rules a newcomer relies on, checked: imports flow one way (import-linter contracts in
pyproject.toml), no import cycle anywhere (function-level imports count), no module named after a page, and no
top-level ``pages/`` folder (Streamlit would serve it in its legacy pages mode; see the README)."""

from __future__ import annotations

import sys
from pathlib import Path

import grimp
from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parents[1]
PAGE_NAMES = {"playground", "postprocessing", "lab", "learn", "teaching"}


def test_import_linter_contracts_are_kept(monkeypatch):
    monkeypatch.chdir(ROOT)
    assert lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True) == 0


def _strongly_connected(graph: grimp.ImportGraph, modules: set[str]) -> list[list[str]]:
    """Tarjan's algorithm over the package's modules: every component of more than one module is a cycle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.find_modules_directly_imported_by(v) & modules:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for module in sorted(modules):
            if module not in index:
                visit(module)
    finally:
        sys.setrecursionlimit(limit)
    return out


def test_there_is_no_import_cycle():
    graph = grimp.build_graph("ldp", "views")  # every import statement, including those inside functions
    modules = {m for m in graph.modules if m.split(".")[0] in ("ldp", "views")}
    assert _strongly_connected(graph, modules) == []


def test_modules_are_named_by_concept_not_by_page():
    names = {p.stem for p in (ROOT / "ldp").rglob("*.py")}
    assert not names & PAGE_NAMES, names & PAGE_NAMES


def test_no_top_level_pages_folder():
    """Streamlit 1.67 serves a top-level ``pages/`` folder in its legacy multipage mode when a fresh server's first
    request is a deep link (raw file names in the sidebar, app.py's page config skipped): pages live in views/."""
    assert not (ROOT / "pages").exists()
    assert (ROOT / "views").is_dir()
