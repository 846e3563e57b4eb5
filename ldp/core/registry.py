"""Registries: one per kind of pluggable component (mechanisms, estimators, metrics, query tasks, …).

Adding a component is one class (or function) and one ``@REGISTRY.register`` line. The CLI, the
Python API, the dashboard and the conformance tests all list components from here, so nothing
keeps a second list of names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from types import MappingProxyType
from typing import Any, Generic, TypeVar

from ldp.core.errors import InvalidInput

__all__ = ["ESTIMATORS", "MECHANISMS", "METRICS", "PROTOCOLS", "T", "TASKS", "Registry", "describe"]

T = TypeVar("T")


class Registry(Generic[T]):
    """A name → component mapping that keeps registration order and explains unknown names.

    Names are looked up case-insensitively (stripped); a component's ``aliases`` are accepted by :meth:`get` but never
    listed. One registry exists per kind of component (:data:`MECHANISMS`, :data:`ESTIMATORS`, ...).

    Parameters
    ----------
    kind : str
        What the registry holds (e.g. ``"mechanism"``), used in error messages.

    Attributes
    ----------
    kind : str
        As given.
    """

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._items: dict[str, T] = {}
        self._aliases: dict[str, str] = {}

    def register(self, item: T) -> T:
        """Register ``item`` under its ``name`` attribute (usable as a class decorator), and under the other names
        of its ``aliases`` attribute if it has one (accepted by :meth:`get`, never listed)."""
        name = getattr(item, "name", None)
        if not isinstance(name, str) or not name:
            raise TypeError(f"a registered {self.kind} needs a non-empty string attribute 'name'")
        aliases = tuple(getattr(item, "aliases", ()))
        if name in self._items or name in self._aliases:
            raise RuntimeError(f"{self.kind} {name!r} is registered twice")
        for alias in aliases:
            if alias in self._items or alias in self._aliases or alias == name:
                raise RuntimeError(f"{self.kind} alias {alias!r} is registered twice")
        self._items[name] = item
        self._aliases.update(dict.fromkeys(aliases, name))
        return item

    def _key(self, name: str) -> str:
        key = name.strip().lower()
        return self._aliases.get(key, key)

    def get(self, name: str) -> T:
        """Return the component called ``name`` (or one of its aliases); an ``InvalidInput`` lists the valid names
        otherwise."""
        if not isinstance(name, str):
            raise InvalidInput(f"{self.kind} name must be a string, got {type(name).__name__}")
        key = self._key(name)
        if key not in self._items:
            raise InvalidInput(f"unknown {self.kind} {name!r}; choose one of: {', '.join(self._items)}")
        return self._items[key]

    def __getitem__(self, name: str) -> T:
        return self.get(name)

    def names(self) -> list[str]:
        return list(self._items)

    def items(self) -> list[tuple[str, T]]:
        return list(self._items.items())

    def mapping(self) -> Mapping[str, T]:
        """A read-only live view name → component (for code that wants a mapping, e.g. a page's options)."""
        return MappingProxyType(self._items)

    def filter(self, predicate: Callable[[T], bool]) -> list[T]:
        return [item for item in self._items.values() if predicate(item)]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._key(name) in self._items

    def __iter__(self) -> Iterator[T]:
        return iter(list(self._items.values()))

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:  # pragma: no cover - cosmetic
        return f"Registry({self.kind!r}, {self.names()!r})"


def describe(item: Any) -> dict[str, Any]:
    """Metadata of a registered component as plain JSON-able data (used by the CLI and the pages).

    Parameters
    ----------
    item : object
        A registered component (class or function) with a ``name`` attribute, and optionally ``kind``,
        ``display_name``, ``description``, ``paper``, ``assumes_order`` and ``parameters``/``parameters_info``.

    Returns
    -------
    dict
        ``name``, the optional attributes it has, and ``parameters`` (a list of dicts, see :meth:`Param.to_dict`).
    """
    out: dict[str, Any] = {"name": item.name}
    for key in ("kind", "display_name", "description", "paper", "assumes_order"):
        if hasattr(item, key):
            out[key] = getattr(item, key)
    if hasattr(item, "parameters_info"):
        out["parameters"] = item.parameters_info()
    else:
        out["parameters"] = [p.to_dict() for p in getattr(item, "parameters", ())]
    return out


MECHANISMS: Registry[Any] = Registry("mechanism")
ESTIMATORS: Registry[Any] = Registry("estimator")
METRICS: Registry[Any] = Registry("metric")
#: Interactive protocols (heavy hitters, itemset miners): ldp.mechanisms.protocol.
PROTOCOLS: Registry[Any] = Registry("protocol")
#: Query tasks on frequency vectors (:mod:`ldp.evaluation.tasks`): what an analyst asks of an estimate.
TASKS: Registry[Any] = Registry("task")
