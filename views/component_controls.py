"""The controls of the library's components, each declared once with a page's key prefix: the engine, the seed,
ε, the estimators, the mechanism and its parameters (generated from their ``Param`` tables).

Streamlit only: every computation is a call into ``ldp``."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import streamlit as st

import ldp
from ldp.studies import choices
from ldp.studies.choices import Param
from views.controls import (
    Control,
    render,
)

__all__ = ["ENGINE_HELP", "EPS_GRID", "EstimatorControls", "GENERATED_KEYS", "MECHANISM_PARAMETERS_HELP",
           "MechanismControls", "SOURCES", "UPLOAD_KINDS", "UPLOAD_LIMIT_MB", "build_estimators", "engine_control",
           "epsilon_control",
           "estimator_control", "estimator_controls", "estimator_picker", "estimator_specs", "mechanism_controls",
           "mechanism_extras", "mechanism_picker", "param_control", "parameter_controls", "render_parameters",
           "seed_control"]

# ε values offered by the ε controls: log-spaced, so small ε gets fine steps (0.05, 0.06, …, 10).
EPS_GRID: list[float] = sorted({float(f"{x:.2g}") for x in np.geomspace(0.05, 10, 60)} | {0.5, 1.0, 2.0, 4.0})
UPLOAD_LIMIT_MB = 50
SOURCES = ["Sample data", "Synthetic", "Upload"]
UPLOAD_KINDS = ["numerical", "categorical"]  # how an uploaded column may be read
ENGINE_HELP = ("fast samples the aggregated support counts directly (cost O(d) per collection whatever n); exact "
               "randomizes every user's report (cost O(n·d)). Same seed, same distribution of results.")


# --------------------------------------------------------------------------- shared controls
def _controls_of(group: Any) -> Iterator[Control]:
    """The controls of a group of controls, in declaration order."""
    return (value for f in fields(group) if isinstance(value := getattr(group, f.name), Control))


def engine_control(key: str) -> Control:
    return Control(key, "radio", "Engine", "fast", options=["fast", "exact"], horizontal=True, help=ENGINE_HELP)


def seed_control(key: str) -> Control:
    return Control(key, "number_input", "Seed", 0, min_value=0, max_value=2**31 - 1, step=1,
                   help="Same seed and settings → same result.")


def epsilon_control(key: str, label: str = "Privacy budget ε", default: float = 1.0) -> Control:
    """ε from 0.05 to 10 on a log grid (finer steps at small ε)."""
    return Control(key, "select_slider", label, default, options=EPS_GRID,
                   help="Smaller ε = stronger privacy (more noise); larger ε = more accuracy. Steps are finer at "
                        "small ε.")


def _estimator_fields(default: Sequence[str]) -> Any:
    def fields(mechanism: str | None = None, preselected: Sequence[str] | None = None) -> dict[str, Any]:
        options = choices.estimators_for(mechanism)
        return {"options": options, "default": [e for e in (preselected or default) if e in options]}
    return fields


def estimator_control(key: str, default: Sequence[str] = ("mi", "norm-sub")) -> Control:
    """The frequency estimators to compare; with ``mechanism=`` at render, those that apply to it, and with
    ``preselected=`` a computed default."""
    return Control(key, "multiselect", "Estimators / post-processing",
                   format_func=lambda e: ldp.ESTIMATORS.get(e).display_name, depends=_estimator_fields(default),
                   help="Every estimator runs on the same simulated reports, so their errors compare like for like.")


# --------------------------------------------------------------------------- parameters from Param tables
def param_control(key: str, param: Param) -> Control:
    """The control of one library parameter, from its Param table entry: a choice → selectbox, a number with a
    fixed default → number input within its bounds, a default derived from the other parameters (``optional``)
    → a text field left blank for the paper's default. The help names the paper's default."""
    paper = "derived from ε and the domain (leave blank)" if param.default is None else f"{param.default}"
    help_text = f"{param.description}. Paper's default: {paper}."
    label = f"{param.name} (default: {'derived' if param.default is None else param.default})"
    if param.choices is not None:
        options = list(param.choices) if param.default is not None else ["", *param.choices]
        return Control(key, "selectbox", label, param.default if param.default is not None else "", options=options,
                       format_func=lambda v: "default (derived)" if v == "" else str(v), help=help_text)
    if param.type is bool:
        return Control(key, "checkbox", label, bool(param.default), help=help_text)
    if param.default is None or param.type not in (int, float):
        return Control(key, "text_input", label, "" if param.default is None else str(param.default),
                       help=help_text)
    return _number_control(key, param, label, help_text)


def _number_control(key: str, param: Param, label: str, help_text: str) -> Control:
    """A number input within the parameter's bounds (an exclusive integer bound moved by one; an exclusive real
    bound left to the library's validation, which names it)."""
    cast = param.type
    low = param.low if param.low is None or param.low_inclusive else (param.low + 1 if cast is int else None)
    high = param.high if param.high is None or param.high_inclusive else (param.high - 1 if cast is int else None)
    extra = {"step": 1} if cast is int else {"format": "%g"}
    return Control(key, "number_input", label, cast(param.default), min_value=None if low is None else cast(low),
                   max_value=None if high is None else cast(high), help=help_text, **extra)


#: Keys of the controls generated from Param tables (tests exercise them by kind, not one by one).
GENERATED_KEYS: set[str] = set()


def parameter_controls(prefix: str, owners: Sequence[Any], *, skip: Sequence[str] = ("epsilon_1",),
                       ) -> dict[str, tuple[tuple[Param, Control], ...]]:
    """Owner name → its parameters with their controls (keys ``prefix_owner_param``), for the registered
    mechanisms or estimators ``owners`` (``own_parameters()`` or ``parameters``)."""
    out = {}
    for owner in owners:
        table = owner.own_parameters() if hasattr(owner, "own_parameters") else owner.parameters
        pairs = tuple((p, param_control(f"{prefix}_{owner.name}_{p.name}".replace("-", "_"), p))
                      for p in table if p.name not in skip)
        if pairs:
            out[owner.name] = pairs
            GENERATED_KEYS.update(control.key for _, control in pairs)
    return out


def _parameter_value(param: Param, value: Any) -> Any:
    """A widget's value as the library parameter; a blank text or choice means "the paper's default" (omitted),
    unparsable text is passed on as it is so that the library's own error names it in the main panel."""
    if isinstance(value, str):
        text = value.strip()
        if text == "":
            return None
        if param.type in (int, float):
            try:
                return param.parse(text)
            except ldp.LDPError:
                return text
        return text
    return value


def render_parameters(pairs: Sequence[tuple[Param, Control]], title: str, container: Any = st) -> dict[str, Any]:
    """Draw the controls of one owner's parameters in an expander; the values given (blank = paper's default)."""
    out: dict[str, Any] = {}
    with container.expander(title):
        for param, control in pairs:
            value = _parameter_value(param, render(control))
            if value is not None:
                out[param.name] = value
    return out


MECHANISM_PARAMETERS_HELP = "Advanced: {name} parameters (blank or default = the paper's choice)"


@dataclass(frozen=True)
class MechanismControls:
    """A frequency oracle, its ε, for a longitudinal one ε1 (one report) below ε = ε∞, and every mechanism's own
    parameters (advanced; keys ``prefix_<mechanism>_<parameter>``)."""

    mechanism: Control
    epsilon: Control
    epsilon_1: Control | None
    parameters: dict[str, tuple[tuple[Param, Control], ...]]

    def __iter__(self) -> Iterator[Control]:
        yield self.mechanism
        yield self.epsilon
        if self.epsilon_1 is not None:
            yield self.epsilon_1
        for pairs in self.parameters.values():
            yield from (control for _, control in pairs)


@dataclass(frozen=True)
class EstimatorControls:
    """The estimators to compare and every estimator's parameters (advanced; keys ``prefix_<est>_<param>``)."""

    estimators: Control
    parameters: dict[str, tuple[tuple[Param, Control], ...]]

    def __iter__(self) -> Iterator[Control]:
        yield self.estimators
        for pairs in self.parameters.values():
            yield from (control for _, control in pairs)


def estimator_controls(key: str, default: Sequence[str] = ("mi", "norm-sub"), kind: str = "frequency",
                       ) -> EstimatorControls:
    owners = [e for e in ldp.ESTIMATORS if kind in e.kinds]
    return EstimatorControls(estimator_control(key, default), parameter_controls(key, owners))


def estimator_picker(c: EstimatorControls, container: Any = st, **data: Any,
                     ) -> tuple[list[str], dict[str, dict[str, Any]]]:
    """Draw the estimator choice and, for each chosen estimator with parameters, an advanced expander: the chosen
    names and, for those given non-default parameters, name → parameters (for ``ldp.get_estimator``)."""
    names = list(render(c.estimators, container, **data))
    params: dict[str, dict[str, Any]] = {}
    for name in names:
        if name in c.parameters:
            cls = ldp.ESTIMATORS.get(name)
            given = render_parameters(c.parameters[name], f"Advanced: {cls.display_name} parameters", container)
            defaults = {p.name: p.default for p, _ in c.parameters[name]}
            given = {k: v for k, v in given.items() if v != defaults.get(k)}
            if given:
                params[name] = given
    return names, params


def estimator_specs(names: Sequence[str], params: dict[str, dict[str, Any]]) -> tuple[Any, ...]:
    """Hashable (cache-key) form of the chosen estimators: a name, or (name, sorted parameters)."""
    return tuple((n, tuple(sorted(params[n].items()))) if n in params else n for n in names)


def build_estimators(specs: Sequence[Any]) -> list[Any]:
    """The estimators of :func:`estimator_specs` (names stay names; parameters make an ``Estimator``)."""
    return [spec if isinstance(spec, str) else ldp.get_estimator(spec[0], **dict(spec[1])) for spec in specs]


@st.cache_data(show_spinner=False)
def _reachable_epsilon_1(mechanism: str, epsilon: float) -> list[float]:
    return choices.reachable_epsilon_1(mechanism, epsilon, EPS_GRID)


def _epsilon_1_fields(mechanism: str, epsilon: float) -> dict[str, Any]:
    options = _reachable_epsilon_1(mechanism, epsilon)
    return {"options": options, "default": choices.closest(options, epsilon / 2)}


def mechanism_controls(prefix: str, *, eps_key: str, default: str = "oue",
                       collections: Sequence[str] = ("one-time", "longitudinal")) -> MechanismControls:
    """Keys ``prefix`` (the mechanism), ``eps_key`` (ε) and ``prefix_eps1`` (ε1 of longitudinal mechanisms)."""
    names = choices.frequency_oracles(collections)
    mechanism = Control(prefix, "selectbox", "Mechanism", default, options=names,
                        format_func=lambda m: ldp.MECHANISMS.get(m).display_name,
                        help="One-time mechanisms first, then longitudinal ones (memoized, for repeated reports).")
    epsilon_1 = None
    if "longitudinal" in collections:
        epsilon_1 = Control(f"{prefix}_eps1", "select_slider", "ε1 (one report; ε above is ε∞ of the memoized "
                            "value)", depends=_epsilon_1_fields)
    owners = [ldp.MECHANISMS.get(name) for name in names]
    return MechanismControls(mechanism, epsilon_control(eps_key), epsilon_1, parameter_controls(prefix, owners))


def mechanism_picker(c: MechanismControls, container: Any = st) -> tuple[str, float, dict[str, Any]]:
    """Draw the mechanism, ε and (longitudinal mechanisms) ε1 controls: (mechanism, ε, its parameters)."""
    name = render(c.mechanism, container)
    cls = ldp.MECHANISMS.get(name)
    container.caption(f"{cls.collection.capitalize()} · {cls.description}. _{cls.paper}_")
    epsilon = float(render(c.epsilon, container))
    container.caption("◀ more private · · · more accurate ▶")
    return name, epsilon, mechanism_extras(c, name, epsilon, container)


def mechanism_extras(c: MechanismControls, name: str, epsilon: float, container: Any = st) -> dict[str, Any]:
    """Draw what a mechanism takes beyond its name and ε — ε1 of a longitudinal mechanism and its own parameters
    (advanced) — and return its parameters."""
    epsilon_1 = None
    if c.epsilon_1 is not None and _reachable_epsilon_1(name, epsilon):
        epsilon_1 = float(render(c.epsilon_1, container, mechanism=name, epsilon=epsilon))
    # no reachable ε1: the library's own message explains it where the mechanism is built
    params = choices.mechanism_parameters(name, epsilon, epsilon_1)
    if name in c.parameters:
        cls = ldp.MECHANISMS.get(name)
        params.update(render_parameters(c.parameters[name], MECHANISM_PARAMETERS_HELP.format(name=cls.display_name),
                                        container))
    return params
