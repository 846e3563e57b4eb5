"""Declarative parameter constraints (in the spirit of scikit-learn's ``_parameter_constraints``).

A component declares a tuple of :class:`Param`; the base class validates values against it, so each
mechanism states its parameters once and the CLI, the dashboard and the tests read the same table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ldp.core.errors import InvalidInput

__all__ = ["BUCKETS", "DIMENSION", "DOMAIN_SIZE", "EPSILON", "Param", "check_paired", "check_positive_int",
           "resolve_params", "validate_codes"]


@dataclass(frozen=True)
class Param:
    """One declared parameter of a component: its type, allowed range, default and a one-line description.

    Parameters
    ----------
    name : str
        The parameter's keyword name (e.g. ``"epsilon"``).
    type : type
        ``int``, ``float``, ``str`` or ``bool``; :meth:`validate` coerces values to it.
    description : str
        One line shown by the CLI and the pages.
    default : object, optional
        The value used when the caller gives none (None: required, unless ``optional``).
    low, high : float, optional
        Bounds of the allowed range (None: unbounded on that side).
    low_inclusive, high_inclusive : bool, default True
        Whether ``low``/``high`` themselves are allowed.
    choices : tuple, optional
        The allowed values, when the parameter is categorical.
    optional : bool, default False
        Whether None is allowed (meaning "derive the default from the other parameters").
    """

    name: str
    type: type
    description: str
    default: Any = None
    low: float | None = None
    high: float | None = None
    low_inclusive: bool = True
    high_inclusive: bool = True
    choices: tuple[Any, ...] | None = None
    optional: bool = False  # None allowed (meaning "derive the default from the other parameters")

    @property
    def fixed(self) -> bool:
        """Whether the range admits one value only (e.g. the dimension 1 of the scalar mean mechanisms)."""
        return self.low is not None and self.low == self.high

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "type": self.type.__name__, "description": self.description}
        if self.default is not None:
            out["default"] = self.default
        if self.low is not None:
            out["min"] = self.low
        if self.high is not None:
            out["max"] = self.high
        if self.choices is not None:
            out["choices"] = list(self.choices)
        return out

    def parse(self, text: str) -> Any:
        """Convert a command-line string to this parameter's type (:class:`LDPError` on failure)."""
        try:
            if self.type is bool:
                low = text.strip().lower()
                if low in ("1", "true", "yes", "on"):
                    return True
                if low in ("0", "false", "no", "off"):
                    return False
                raise ValueError
            return self.type(text)
        except ValueError:
            raise InvalidInput(f"parameter {self.name} expects type {self.type.__name__}, got {text!r}") from None

    def validate(self, value: Any, owner: str) -> Any:
        """Return ``value`` coerced to the declared type, or raise a one-line :class:`LDPError`."""
        if value is None:
            if self.optional:
                return None
            raise InvalidInput(f"{owner}: parameter {self.name} is required")
        if self.type is int:
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                if isinstance(value, (float, np.floating)) and float(value).is_integer():
                    value = int(value)
                else:
                    raise InvalidInput(f"{owner}: {self.name} must be an integer, got {value!r}")
            value = int(value)
        elif self.type is float:
            if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
                raise InvalidInput(f"{owner}: {self.name} must be a number, got {value!r}")
            value = float(value)
            if not math.isfinite(value):
                raise InvalidInput(f"{owner}: {self.name} must be finite, got {value}")
        elif self.type is str:
            if not isinstance(value, str):
                raise InvalidInput(f"{owner}: {self.name} must be a string, got {value!r}")
        if self.choices is not None and value not in self.choices:
            raise InvalidInput(f"{owner}: {self.name} must be one of {list(self.choices)}, got {value!r}")
        if self.low is not None:
            bad = value < self.low if self.low_inclusive else value <= self.low
            if bad:
                op = ">=" if self.low_inclusive else ">"
                raise InvalidInput(f"{owner}: {self.name} must be {op} {self.low}, got {value}")
        if self.high is not None:
            bad = value > self.high if self.high_inclusive else value >= self.high
            if bad:
                op = "<=" if self.high_inclusive else "<"
                raise InvalidInput(f"{owner}: {self.name} must be {op} {self.high}, got {value}")
        return value


#: ε's range: below 10⁻⁴ a channel carries no usable information at any n a simulation can hold (p* − q* of GRR is
#: ≈ ε/d), and its longitudinal second step is not computable in doubles (found by fuzzing: ε = 2·10⁻⁸⁰ raised a
#: ZeroDivisionError in L-GRR); above 50 nothing is sampleable either (see the frequency oracles' precision check).
EPSILON = Param("epsilon", float, "privacy budget ε (smaller is more private)", low=1e-4, high=50.0)
DOMAIN_SIZE = Param("d", int, "domain size (number of distinct values)", low=2, high=2**24)
BUCKETS = Param("d", int, "number of input buckets of the reconstructed histogram (square-wave paper §5.4)", low=2,
                high=2**24)
DIMENSION = Param("d", int, "dimension of each user's value (1: one number)", default=1, low=1, high=1)


def resolve_params(owner: str, table: tuple[Param, ...] | list[Param], given: dict[str, Any]) -> dict[str, Any]:
    """Validate a component's own parameters against its declared table, filling in defaults.

    Shared by mechanisms, numerical mechanisms and estimators: unknown names get one line listing the accepted ones.

    Parameters
    ----------
    owner : str
        The component's name, prefixed to error messages.
    table : tuple or list of Param
        The component's declared parameters.
    given : dict
        The values the caller passed, by parameter name.

    Returns
    -------
    dict
        Every declared parameter name mapped to its validated value (the default when not given).

    Raises
    ------
    InvalidInput
        For an unknown parameter name or a value that fails its :class:`Param` (type, range, choices, required).
    """
    known = {p.name: p for p in table}
    unknown = set(given) - set(known)
    if unknown:
        names = ", ".join(known) or "none"
        raise InvalidInput(f"{owner}: unknown parameter(s) {', '.join(sorted(unknown))}; it accepts: {names}")
    return {name: p.validate(given.get(name, p.default), owner) for name, p in known.items()}


def validate_codes(owner: str, values: Any, d: int) -> np.ndarray:
    """Check and convert user values to a 1-D int64 array of codes in ``[0, d)``.

    Integral floats (e.g. ``3.0``) are accepted and converted; anything else gets a one-line error.

    Parameters
    ----------
    owner : str
        The caller's name, prefixed to error messages.
    values : array_like
        The values, one per user.
    d : int
        The domain size.

    Returns
    -------
    numpy.ndarray
        The codes as int64, shape ``(n,)``.

    Raises
    ------
    InvalidInput
        If ``values`` is not 1-D, holds non-integral numbers, or has a value outside ``[0, d)``.
    """
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise InvalidInput(f"{owner}: values must be a 1-D array of integers, got shape {arr.shape}")
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        if np.issubdtype(arr.dtype, np.floating) and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
            arr = arr.astype(np.int64)
        else:
            raise InvalidInput(f"{owner}: values must be integers in [0, {d}), got dtype {arr.dtype}")
    arr = arr.astype(np.int64, copy=False)
    if arr.size and (arr.min() < 0 or arr.max() >= d):
        bad = int(arr[(arr < 0) | (arr >= d)][0])
        raise InvalidInput(f"{owner}: value {bad} is outside the domain [0, {d})")
    return arr


def check_paired(items: Any, partners: Any, what: str) -> None:
    """Refuse ``partners`` that do not pair up one to one with ``items``.

    Parameters
    ----------
    items : sequence
        The items (e.g. the mechanisms of a sweep).
    partners : sequence
        One partner per item (e.g. their seeds).
    what : str
        What a partner is, for the message: "one {what}: got len(partners) for len(items)" (e.g.
        ``"seed per mechanism"``).

    Raises
    ------
    InvalidInput
        When the lengths differ.
    """
    if len(partners) != len(items):
        raise InvalidInput(f"one {what}: got {len(partners)} for {len(items)}")


def check_positive_int(value: Any, what: str, owner: str = "") -> int:
    """``value`` as an int ≥ 1 (integral numbers only, not bool).

    Parameters
    ----------
    value : object
        The value to check; integral floats (e.g. ``5.0``) are accepted.
    what : str
        What the value is, for the error message (e.g. ``"n"``).
    owner : str, default ""
        The caller's name, prefixed to the error message when given.

    Returns
    -------
    int
        ``value`` as a Python int.

    Raises
    ------
    InvalidInput
        If ``value`` is a bool, not an integral number, or below 1.
    """
    prefix = f"{owner}: " if owner else ""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        if isinstance(value, (float, np.floating)) and math.isfinite(value) and float(value).is_integer():
            value = int(value)
        else:
            raise InvalidInput(f"{prefix}{what} must be a positive integer, got {value!r}")
    if value < 1:
        raise InvalidInput(f"{prefix}{what} must be a positive integer, got {value}")
    return int(value)
