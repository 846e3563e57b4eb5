"""Every public function and class (named in its module's ``__all__`` and defined there) of the documented modules has
numpydoc sections — issue 20 item 10.

A function that takes parameters (besides ``self``/``cls``) needs a ``Parameters`` section, and one that returns
something (its return annotation is not ``None``; without an annotation, its body has a ``return <value>``) needs a
``Returns`` (or ``Yields``) section. A class whose constructor takes parameters needs ``Parameters`` (or
``Attributes``, the numpydoc place for a dataclass's fields); a class keeping the constructor of a builtin base (the
exceptions) or a ``typing.Protocol`` (an interface, never constructed) needs only its summary. To document more of
the package, add its modules to ``PACKAGES``/``MODULES``.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import textwrap

import pytest

PACKAGES = ("ldp.core", "ldp.evaluation", "ldp.maths", "ldp.privacy", "ldp.classroom", "ldp.data")  # all modules inside
MODULES = ("ldp.estimators.consistency", "ldp.estimators.wiener", "ldp.estimators.reconstruction",
           "ldp.estimators.blind", "ldp.mechanisms.memoization", "ldp.studies.deployments", "ldp.report_files",
           "ldp.estimators.base", "ldp.estimators.ibu", "ldp.simulation", "ldp.engines")
MODULES += ("ldp.mechanisms.numerical.binning", "ldp.mechanisms.numerical.hierarchy",
            "ldp.mechanisms.numerical.square_wave", "ldp.mechanisms.numerical.waves")  # nd-num
MODULES += ("ldp.mechanisms.frequency.base", "ldp.mechanisms.frequency.bitflip",
            "ldp.mechanisms.frequency.count_mean_sketch", "ldp.mechanisms.frequency.fast_local_hashing",
            "ldp.mechanisms.frequency.grr", "ldp.mechanisms.frequency.hadamard",
            "ldp.mechanisms.frequency.histogram_encoding", "ldp.mechanisms.frequency.local_hashing",
            "ldp.mechanisms.frequency.rappor", "ldp.mechanisms.frequency.sampling",
            "ldp.mechanisms.frequency.subset_selection", "ldp.mechanisms.frequency.unary",
            "ldp.mechanisms.frequency.xxh32")  # nd-freq
PACKAGES += ("ldp.mechanisms", "ldp.cli")  # nd-mech
MODULES += ("ldp.studies.verdicts", "ldp.studies.mean_variance", "ldp.studies.vector_means",
            "ldp.studies.paper_figures", "ldp.studies.tradeoff", "ldp.studies.lecture")  # nd-studies2
PACKAGES += ("ldp.viz",)  # nd-viz
MODULES += ("ldp.studies", "ldp.studies.advisor", "ldp.studies.attacks", "ldp.studies.briefing", "ldp.studies.choices",
            "ldp.studies.comparison", "ldp.studies.configuration", "ldp.studies.cost", "ldp.studies.datasets",
            "ldp.studies.figures", "ldp.studies.heavy_hitters", "ldp.studies.itemsets", "ldp.studies.joint",
            "ldp.studies.joint_estimates", "ldp.studies.joint_ranges")  # nd-studies1

PARAMETERS = "Parameters\n----------"
RETURNS = ("Returns\n-------", "Yields\n------")
ATTRIBUTES = "Attributes\n----------"


def documented_modules() -> list[str]:
    names = list(MODULES)
    for package in PACKAGES:
        names.append(package)
        names += [f"{package}.{info.name}" for info in pkgutil.iter_modules(importlib.import_module(package).__path__)]
    return sorted(names)


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
    assert {"ldp.core.errors", "ldp.maths.em", "ldp.classroom.service", "ldp.report_files"} <= set(names)


@pytest.mark.parametrize("module_name", documented_modules())
def test_public_names_have_numpydoc_sections(module_name):
    missing = missing_sections(module_name)
    assert not missing, f"{module_name} lacks numpydoc sections: " + "; ".join(missing)
