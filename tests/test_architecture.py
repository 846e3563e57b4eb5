"""The house rules a newcomer relies on, checked: imports flow one way (import-linter contracts in
pyproject.toml), no import cycle anywhere (function-level imports count), no module named after a page, no
switch on a mechanism's kind or family outside the mechanism classes, no function above radon's rank C in the pages
and the studies, and no top-level ``pages/`` folder (Streamlit would serve it in its legacy pages mode; see the
README)."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import grimp
from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parents[1]
#: Former page names that once named modules (the post-processing "lab" and the "teaching" page).
FORMER_PAGE_NAMES = {"lab", "teaching"}
#: Concepts a page is named after: a module may hold the concept (``ldp.mechanisms.heavy_hitters``) though a page
#: of that name shows it.
CONCEPTS = {"classroom", "heavy_hitters", "itemsets", "joint", "numerical", "privacy", "tradeoff", "vector_means"}


def page_names() -> set[str]:
    """The dashboard's pages: the modules of views/ that app.py registers, and their URL paths."""
    app = (ROOT / "app.py").read_text()
    return set(re.findall(r'st\.Page\("views/(\w+)\.py"', app)) | set(re.findall(r'url_path="(\w+)"', app))


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
    pages = page_names()
    assert {"playground", "story", "reproduce", "heavy_hitters"} <= pages  # the scan of app.py finds the pages
    names = {p.stem for p in (ROOT / "ldp").rglob("*.py")} | {p.name for p in (ROOT / "ldp").rglob("*") if p.is_dir()}
    named_after_a_page = names & ((pages - CONCEPTS) | FORMER_PAGE_NAMES)
    assert not named_after_a_page, named_after_a_page


def test_no_top_level_pages_folder():
    """Streamlit 1.67 serves a top-level ``pages/`` folder in its legacy multipage mode when a fresh server's first
    request is a deep link (raw file names in the sidebar, app.py's page config skipped): pages live in views/."""
    assert not (ROOT / "pages").exists()
    assert (ROOT / "views").is_dir()


#: Where mechanism knowledge must come from class hooks or registry metadata, never from the kind's name: every
#: module outside the mechanisms themselves (``ldp/mechanisms``), the pages and the app.
KIND_FREE = ("ldp", "views", "app.py")
#: ``kind``s that are not a mechanism's: a column's or dataset's data kind (categorical or numerical).
OTHER_KINDS = {("ldp/data/domain.py", "self.kind"), ("ldp/studies/datasets.py", "self.kind"),
               ("ldp/studies/datasets.py", "kind"), ("views/data_picker.py", "kind")}


def _switch_literals() -> set[str]:
    """Every registered mechanism and protocol kind, and every mechanism family."""
    import ldp

    return {*ldp.KINDS, *ldp.PROTOCOL_KINDS, *(c.family for c in ldp.MECHANISMS if hasattr(c, "family"))}


def _literals(node: ast.expr) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [s for element in node.elts for s in _literals(element)]
    return []


def kind_switches(path: Path, source: str, names: set[str]) -> list[str]:
    """``kind``, ``family`` or ``x.kind``/``x.family`` compared with (or tested for membership in) a literal naming
    a mechanism kind, a protocol kind or a mechanism family."""
    rel = path.relative_to(ROOT).as_posix() if path.is_absolute() else str(path)
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        attrs = [o for o in operands if isinstance(o, ast.Attribute) and o.attr in ("kind", "family")
                 or isinstance(o, ast.Name) and o.id in ("kind", "family")]
        if not attrs or not any(set(_literals(o)) & names for o in operands):
            continue
        if all((rel, ast.unparse(a)) in OTHER_KINDS for a in attrs):
            continue
        found.append(f"{rel}:{node.lineno}: {ast.unparse(node)}")
    return found


def _kind_free_files() -> list[Path]:
    files = [p for part in KIND_FREE for p in ([ROOT / part] if part.endswith(".py") else (ROOT / part).rglob("*.py"))]
    return [p for p in files if (ROOT / "ldp" / "mechanisms") not in p.parents]


def test_no_switch_on_a_mechanism_kind_outside_the_mechanisms():
    """Family knowledge lives in class hooks and registry metadata (``bucketed``, ``population_of_numbers``,
    ``mechanisms_of(kind)``, an estimator's declared ``kinds``), never in ``if mech.kind == "..."`` elsewhere."""
    names = _switch_literals()
    found = [hit for path in _kind_free_files() for hit in kind_switches(path, path.read_text(), names)]
    assert found == [], "\n".join(found)


def test_the_kind_switch_scan_finds_a_switch():
    names = _switch_literals()
    caught = kind_switches(Path("ldp/cli/x.py"), 'if cls.kind == "mean":\n    pass\n'
                           'y = m.family in ("split", "sample")\nz = "vector" != mech.kind\n'
                           'kind = kinds.pop()\nif kind == "mean":\n    pass\n', names)
    assert len(caught) == 4, caught
    assert kind_switches(Path("ldp/cli/x.py"), 'if w.kind == "multiselect":\n    pass\n', names) == []


def module_aliases(source: str) -> list[str]:
    """``import ldp.a.b as x`` or ``from ldp.a import b as x`` where x is not b: a module under another name."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [f"{n.name} as {n.asname}" for n in node.names
                      if n.name.startswith("ldp") and n.asname and n.asname != n.name.rpartition(".")[2]]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("ldp"):
            package = ROOT / node.module.replace(".", "/")
            found += [f"{node.module}.{n.name} as {n.asname}" for n in node.names if n.asname and n.asname != n.name
                      and ((package / n.name).is_dir() or (package / f"{n.name}.py").exists())]
    return found


def test_tests_import_modules_by_their_real_names():
    """The tests mirror the package: a module is ``tradeoff`` there, not ``T`` or an old page name (``lab``)."""
    found = [f"{p.relative_to(ROOT)}: {alias}" for p in (ROOT / "tests").rglob("*.py")
             for alias in module_aliases(p.read_text())]
    assert found == [], "\n".join(found)
    assert module_aliases("from ldp.studies import comparison as lab\nimport ldp.simulation as S\n") == [
        "ldp.studies.comparison as lab", "ldp.simulation as S"]


#: The most cyclomatic complexity a function of the pages or the studies may have: radon's rank C ends at 20
#: (issue 20 item 8, "no function above cyclomatic C in views/ and ldp/studies/").
MAX_COMPLEXITY = 20


def complex_functions(paths: list[Path], root: Path = ROOT) -> list[str]:
    """``file:function (complexity)`` (paths relative to ``root``) for every function or method above
    :data:`MAX_COMPLEXITY`."""
    from radon.complexity import cc_visit

    out = []
    for path in paths:
        for block in cc_visit(path.read_text()):
            if block.complexity > MAX_COMPLEXITY:
                out.append(f"{path.relative_to(root)}:{block.name} ({block.complexity})")
    return out


def test_no_function_above_complexity_c_in_the_pages_and_studies():
    paths = sorted((ROOT / "views").glob("*.py")) + sorted((ROOT / "ldp" / "studies").glob("*.py"))
    assert len(paths) > 30
    assert not complex_functions(paths), "split these functions (radon rank above C)"


def test_the_complexity_scan_finds_a_complex_function(tmp_path):
    branches = "\n".join(f"    if x == {i}:\n        return {i}" for i in range(25))
    (tmp_path / "page.py").write_text(f"def main(x):\n{branches}\n    return -1\n")
    assert complex_functions([tmp_path / "page.py"], tmp_path) == ["page.py:main (26)"]


def magic_expressions(source: str) -> list[int]:
    """Lines of the statements Streamlit's "magic" would write to the page: expression statements that are neither
    calls nor docstrings (a bare name, a literal, an f-string...)."""
    lines = []
    scopes = ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
    never_written = ast.Call | ast.Await | ast.Yield | ast.YieldFrom  # magic leaves calls (and yields) alone
    for node in ast.walk(ast.parse(source)):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            for i, stmt in enumerate(block if isinstance(block, list) else []):
                value = getattr(stmt, "value", None)
                if not isinstance(stmt, ast.Expr) or isinstance(value, never_written):
                    continue
                if not (field == "body" and i == 0 and isinstance(node, scopes)
                        and isinstance(value, ast.Constant) and isinstance(value.value, str)):  # not a docstring
                    lines.append(stmt.lineno)
    return lines


def test_no_page_relies_on_magic_which_is_off():
    """.streamlit/config.toml turns magic off (runner.magicEnabled): a bare expression in a page would silently draw
    nothing, so there must be none."""
    assert re.search(r"^magicEnabled = false", (ROOT / ".streamlit" / "config.toml").read_text(), re.M)
    found = {str(p.relative_to(ROOT)): magic_expressions(p.read_text())
             for p in [ROOT / "app.py", ROOT / "serve.py", *sorted((ROOT / "views").glob("*.py"))]}
    assert {k: v for k, v in found.items() if v} == {}


def test_the_magic_scan_finds_a_bare_expression():
    assert magic_expressions('"""doc"""\nimport streamlit as st\nx = 1\nx\nst.write(x)\n"a note"\n') == [4, 6]
    assert magic_expressions("def f():\n    '''doc'''\n    f'{1}'\n") == [3]
    assert magic_expressions("if x:\n    pass\nelse:\n    'shown'\n") == [4]
