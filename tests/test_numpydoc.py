"""Every public function and class (named in its module's ``__all__`` and defined there) of the documented modules has
numpydoc sections — issue 20 item 10.

A function that takes parameters (besides ``self``/``cls``) needs a ``Parameters`` section, and one that returns
something (its return annotation is not ``None``; without an annotation, its body has a ``return <value>``) needs a
``Returns`` (or ``Yields``) section. A class whose constructor takes parameters needs ``Parameters`` (or
``Attributes``, the numpydoc place for a dataclass's fields); a class keeping the constructor of a builtin base (the
exceptions) or a ``typing.Protocol`` (an interface, never constructed) needs only its summary. Every module of the
package is checked (a new module is covered as it lands).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import textwrap

import pytest

PARAMETERS = "Parameters\n----------"
RETURNS = ("Returns\n-------", "Yields\n------")
ATTRIBUTES = "Attributes\n----------"


def documented_modules() -> list[str]:
    """Every module of the ``ldp`` package, its subpackages' included."""
    import ldp

    return sorted({"ldp"} | {info.name for info in pkgutil.walk_packages(ldp.__path__, "ldp.")})


def _own_parameters(signature: inspect.Signature) -> list[str]:
    return [p for p in signature.parameters if p not in ("self", "cls")]


def _returns_something(func) -> bool:
    annotation = inspect.signature(func).return_annotation
    if annotation is not inspect.Signature.empty:
        return annotation not in (None, "None", "NoReturn", "Never")
    tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    body = tree.body[0]
    nested = {id(n) for node in ast.walk(body) if node is not body
              and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) for n in ast.walk(node)}
    return any(id(node) not in nested and (isinstance(node, ast.Yield | ast.YieldFrom)
                                           or (isinstance(node, ast.Return) and node.value is not None))
               for node in ast.walk(body))


def _constructor_parameters(cls) -> list[str]:
    if getattr(cls, "_is_protocol", False):
        return []  # a typing.Protocol describes an interface; it is never constructed
    own = [klass for klass in cls.__mro__ if klass.__module__.startswith("ldp")
           and ({"__init__", "__new__"} & set(vars(klass)) or "__dataclass_fields__" in vars(klass))]
    if not own:
        return []  # builtin constructor (exceptions): nothing of ours to document
    return _own_parameters(inspect.signature(cls))


def missing_sections(module_name: str) -> list[str]:
    """``name: what is missing`` for each public function/class of the module lacking a numpydoc section."""
    module = importlib.import_module(module_name)
    missing = []
    for name in getattr(module, "__all__", ()):
        obj = getattr(module, name)
        func = inspect.unwrap(obj) if callable(obj) and not inspect.isclass(obj) else obj
        if not (inspect.isfunction(func) or inspect.isclass(func)) or func.__module__ != module_name:
            continue  # constants, registries and re-exports (documented where they are defined)
        doc = inspect.getdoc(func) or ""
        if not doc.strip():
            missing.append(f"{name}: docstring")
            continue
        if inspect.isclass(func):
            if _constructor_parameters(func) and PARAMETERS not in doc and ATTRIBUTES not in doc:
                missing.append(f"{name}: Parameters")
            continue
        if _own_parameters(inspect.signature(func)) and PARAMETERS not in doc:
            missing.append(f"{name}: Parameters")
        if _returns_something(func) and not any(section in doc for section in RETURNS):
            missing.append(f"{name}: Returns")
    return missing


def test_the_walk_finds_the_modules():
    names = documented_modules()
    assert {"ldp.core.errors", "ldp.maths.em", "ldp.classroom.service", "ldp.report_files", "ldp.cli.commands",
            "ldp.mechanisms.frequency.grr", "ldp.studies.lecture", "ldp.viz.estimates"} <= set(names)


@pytest.mark.parametrize("module_name", documented_modules())
def test_public_names_have_numpydoc_sections(module_name):
    missing = missing_sections(module_name)
    assert not missing, f"{module_name} lacks numpydoc sections: " + "; ".join(missing)
