"""Declared controls: a page states each widget once — key, kind, label, default, bounds or options — and that
one declaration draws the widget, binds it to the URL and keeps its value across page switches.

    USERS = Control("users", "number_input", "Number of users n", 1_000_000, min_value=10, max_value=10**9,
                    step=100_000, help="Users are drawn from the dataset's distribution.")
    TOPK = Control("topk", "number_input", "k (top values)", 10, min_value=1, step=1,
                   depends=lambda d: {"max_value": d, "default": min(10, d)})
    users = render(USERS)             # st.number_input(..., key="users", bind="query-params", persist_state="session")
    k = render(TOPK, container=c2, d=data.d)

The URL query parameter is the key; Streamlit writes it when the value differs from the default and drops it
when it equals the default. Selection widgets (selectbox, radio, multiselect, select_slider) carry the label
they show (``format_func``) in the URL, so labels are kept short. Streamlit ignores an invalid URL value
(unknown option, number out of range, NaN) and starts the widget from its default.

What Streamlit does not validate: an integer number input given a number too large for an integer
(``users=1e400``, ``seed=Infinity``) raises OverflowError while the widget is built. :func:`render` therefore
checks a numeric control's URL value against the declaration before the URL seeds the widget (the widget has no
value yet in this session) and refuses one that is not a finite number within the control's (possibly
data-dependent) bounds, with a message; the widget then starts from its default.

Bounds, options or a default that depend on data (k ≤ d, a column's range, the ε1 a longitudinal mechanism
can reach) are declared by ``depends``: a function of named data that returns the fields it fills in; the
page passes that data to :func:`render`. ``follows_data=True`` says that a value chosen for other data means
nothing here (a range of one column for another column): when the data-dependent default changes, the value
returns to it. Without it, a value the user never moved from the old data-dependent default still follows the
new one (a k of 8 that was merely the default for 8 values becomes 10 for 105 values; a k the user chose stays): a
value the user did not choose never lingers in the shared URL as if chosen.
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import streamlit as st
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

__all__ = ["WIDGET_KINDS", "Control", "render", "values"]

WIDGET_KINDS = ("slider", "select_slider", "number_input", "selectbox", "radio", "multiselect", "checkbox", "toggle",
         "text_input")
NUMERIC = ("slider", "number_input")
CHOICE = ("select_slider", "selectbox", "radio", "multiselect")
# A plain decimal number as a URL may hold it ("NaN", "Infinity" and hexadecimal are not numbers here).
NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
_FOLLOWED = "_control_default:"  # session-state prefix: the data-dependent default a value was chosen under
DEFAULT = object()  # Control.read_url: start from the control's default


def _quote(text: str) -> str:
    return text if len(text) <= 24 else text[:21] + "…"


def _choices(labels: Sequence[str]) -> str:
    shown = ", ".join(_quote(str(label)) for label in labels[:8])
    return shown + (f" and {len(labels) - 8} more" if len(labels) > 8 else "")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _same_number(option: Any, text: str) -> bool:
    return _is_number(option) and NUMBER.fullmatch(text) is not None and float(text) == float(option)


@dataclass(frozen=True)
class Control:
    """One widget, declared once: what it is, its default and its bounds or options."""

    key: str
    kind: str
    label: str
    default: Any = None
    min_value: Any = None
    max_value: Any = None
    step: Any = None
    options: Sequence[Any] = ()
    format: str | None = None
    format_func: Callable[[Any], str] | None = None
    help: str | None = None
    horizontal: bool = False
    depends: Callable[..., Mapping[str, Any]] | None = field(default=None, compare=False)
    follows_data: bool = False

    def __post_init__(self) -> None:
        if self.kind not in WIDGET_KINDS:
            raise ValueError(f"unknown control kind {self.kind!r}; one of {', '.join(WIDGET_KINDS)}")
        if not self.key:
            raise ValueError("a control needs a key: it names the URL query parameter")
        if self.follows_data and self.depends is None:
            raise ValueError(f"{self.key}: follows_data needs a data-dependent default (depends)")

    def at(self, **data: Any) -> Control:
        """This control with its data-dependent fields filled in from ``data`` (itself when it has none)."""
        if self.depends is None:
            if data:
                raise TypeError(f"{self.key} takes no data, got {', '.join(data)}")
            return self
        return replace(self, depends=None, follows_data=False, **self.depends(**data))

    def refusal(self, raw: Sequence[str]) -> str | None:
        """Why a URL value (the query parameter's values) cannot be this control's value as written, or None
        (the message of :meth:`read_url`)."""
        found = self.read_url(raw)
        return None if found is None else found[1]

    def read_url(self, raw: Sequence[str]) -> tuple[Any, str | None] | None:
        """What a URL value (the query parameter's values; the last counts, as in Streamlit) means for this
        control when Streamlit would not take it as written: ``(value, message)`` — the value to start from
        (:data:`DEFAULT`: the control's default) and what the page says about it (None: nothing to say, e.g. a
        mechanism given by its registry name ``grr`` rather than its label ``GRR (k-RR)``). None when the URL
        holds no value or one Streamlit takes as it is."""
        if not raw or self.kind == "text_input":
            return None
        if self.kind == "multiselect":
            return self._read_many(raw)
        text = raw[-1].strip()
        if text == "" and self.kind != "select_slider":
            return None
        if self.kind in NUMERIC:
            return self._read_number(text)
        if self.kind in ("checkbox", "toggle"):
            if text.lower() in ("true", "false"):
                return None
            return DEFAULT, (f"The link's value for “{self.label}” ({_quote(text)}) is neither true nor false: it "
                             f"starts {'on' if self.default else 'off'} instead.")
        return self._read_choice(text)

    def _read_number(self, text: str) -> tuple[Any, str | None] | None:
        value = float(text) if NUMBER.fullmatch(text) else math.nan
        if math.isfinite(value) and self._within(value):
            return None
        return DEFAULT, (f"The link's value for “{self.label}” ({_quote(text)}) is not a number from "
                         f"{self._show(self.min_value)} to {self._show(self.max_value)}: it starts from "
                         f"{self._show(self.default)} instead.")

    def _read_choice(self, text: str) -> tuple[Any, str | None] | None:
        """A choice written as its label, as the option itself (a registry name such as grr), or — for numeric
        options — as a number between two steps (the nearest) or out of range (the default)."""
        options = list(self.options)
        if not options:
            return None
        labels = [self._label(o) for o in options]
        if text in labels:
            return None
        for option in options:
            if str(option) == text or _same_number(option, text):
                return option, None
        if all(_is_number(o) for o in options) and NUMBER.fullmatch(text):
            low, high = min(options), max(options)
            value = float(text)
            if low <= value <= high:
                near = min(options, key=lambda o: abs(o - value))
                return near, (f"The link's value for “{self.label}” ({_quote(text)}) is not one of its steps: it "
                              f"starts from the nearest, {self._label(near)}.")
            return DEFAULT, (f"The link's value for “{self.label}” ({_quote(text)}) is outside its range "
                             f"{self._label(low)} to {self._label(high)}: it starts from {self._label(self.default)} "
                             "instead.")
        return DEFAULT, (f"The link's value for “{self.label}” ({_quote(text)}) is not one of its choices ("
                         f"{_choices(labels)}): it starts from {self._label(self.default)} instead.")

    def _read_many(self, raw: Sequence[str]) -> tuple[Any, str | None] | None:
        options = list(self.options)
        if not options or list(raw) == [""]:
            return None
        labels = [self._label(o) for o in options]
        if all(r in labels for r in raw):
            return None
        by_name = {str(o): o for o in options} | {lab: o for lab, o in zip(labels, options, strict=True)}
        kept = list(dict.fromkeys(by_name[r] for r in raw if r in by_name))
        unknown = [r for r in raw if r not in by_name]
        if not unknown:
            return kept, None
        left = (", ".join(self._label(o) for o in kept) if kept else
                ", ".join(self._label(o) for o in self.default or []) + " (the default)")
        return (kept or DEFAULT), (f"The link's value for “{self.label}” names {_choices(unknown)}, not among its "
                                   f"choices ({_choices(labels)}): left out; it starts from {left or 'none'}.")

    def _label(self, option: Any) -> str:
        return str((self.format_func or str)(option))

    def _within(self, value: float) -> bool:
        return ((self.min_value is None or value >= self.min_value)
                and (self.max_value is None or value <= self.max_value))

    @staticmethod
    def _show(value: Any) -> str:
        if value is None:
            return "any"
        return f"{value:,}" if isinstance(value, int) else f"{value:g}"

    def widget_arguments(self) -> dict[str, Any]:
        """The keyword arguments of the matching ``st.<kind>`` call (besides key, help and the bindings)."""
        if self.default is None and self.kind in (*NUMERIC, "select_slider", "selectbox", "radio"):
            raise ValueError(f"{self.key}: a {self.kind} needs a default (declared, or from its data)")
        if self.kind in NUMERIC:
            out = {"min_value": self.min_value, "max_value": self.max_value, "value": self.default,
                   "step": self.step, "format": self.format}
            return {k: v for k, v in out.items() if v is not None or k == "value"}
        if self.kind in CHOICE:
            options = list(self.options)
            out: dict[str, Any] = {"options": options}
            if self.format_func is not None:
                out["format_func"] = self.format_func
            if self.kind == "multiselect":
                out["default"] = list(self.default or [])
            elif self.kind == "select_slider":
                out["value"] = self.default
            else:
                out["index"] = options.index(self.default) if options else None
            if self.kind == "radio":
                out["horizontal"] = self.horizontal
            return out
        if self.kind in ("checkbox", "toggle"):
            return {"value": bool(self.default)}
        return {"value": "" if self.default is None else str(self.default)}


_AREA = threading.local()  # this thread's (this script run's) message area, opened by app.py above every page


def open_message_area() -> None:
    """Open this run's message area at the top of the main panel (app.py, before the page runs): errors and
    refusals raised while a page draws its sidebar are shown there, where they are seen (they used to land in
    the narrow sidebar while the main panel stayed blank)."""
    _AREA.dg = st.container()


def message_area() -> Any:
    """Where a page's errors and refusals go: the run's message area in a full run, the current place otherwise
    (a fragment's rerun draws inside its own container only)."""
    ctx = get_script_run_ctx(suppress_warning=True)
    area = getattr(_AREA, "dg", None)
    if area is None or ctx is None or ctx.fragment_ids_this_run:
        return st
    return area


def render(control: Control, container: Any = st, *, disabled: bool = False, **data: Any) -> Any:
    """Draw ``control`` with the matching ``st.<kind>`` call: ``key`` = the control's key, bound to the URL
    query parameter of that name and kept for the whole session; returns the widget's value.

    ``data`` feeds the control's data-dependent fields (``depends``); ``container`` is where it is drawn (the
    sidebar, a column)."""
    spec = control.at(**data)
    bind: str | None = "query-params"
    # The URL seeds a widget that has no value yet in this session (a page opened from a link); afterwards the
    # widget's own value wins over the URL, which Streamlit keeps in step (and then resets a value that new
    # bounds exclude to the default itself).
    if spec.key not in st.session_state:
        found = spec.read_url(st.query_params.get_all(spec.key))
        if found is not None:
            value, reason = found
            if reason is not None:  # in the main panel, where it is seen (not under a sidebar widget)
                message_area().warning(reason, icon=":material/link:")
            # Out of the URL, or written as the widget writes it (a label); not bound yet, since the widget has
            # no value yet. This run only, the widget starts from the value read (or its default), not the URL's.
            del st.query_params[spec.key]
            bind = None
            if value is not DEFAULT:
                st.session_state[spec.key] = value
                st.query_params[spec.key] = url_value(spec, value)
    if control.depends is not None:  # a data-dependent default: follow it (unless set by the user, by default)
        _follow_default(spec, only_untouched=not control.follows_data)
    widget = getattr(container, spec.kind)
    return widget(spec.label, key=spec.key, help=spec.help, disabled=disabled, bind=bind, persist_state="session",
                  **spec.widget_arguments())


def _follow_default(spec: Control, *, only_untouched: bool = False) -> None:
    """Return the value to a data-dependent default that has changed since the value was chosen (with
    ``only_untouched``: only a value still at the old default, i.e. one the user never set)."""
    record = _FOLLOWED + spec.key
    state = st.session_state
    previous = state[record] if record in state else spec.default
    state[record] = spec.default
    if previous != spec.default and spec.key in state:
        if only_untouched and state[spec.key] != previous:
            return
        state[spec.key] = spec.default


def values(controls: Iterable[Control]) -> dict[str, Any]:
    """The current values of these controls as plain JSON data (for a 'download configuration' button)."""
    out: dict[str, Any] = {}
    for control in controls:
        if control.key in st.session_state:
            value = st.session_state[control.key]
            out[control.key] = list(value) if isinstance(value, tuple) else value
    return out


def url_value(control: Control, value: Any) -> str | list[str]:
    """How the browser writes ``value`` of ``control`` into the URL: a number as written, ``true``/``false``, or
    for a selection the label it shows (a list for a multiselect)."""
    label = control.format_func or str
    if control.kind in ("checkbox", "toggle"):
        return "true" if value else "false"
    if control.kind == "multiselect":
        return [str(label(v)) for v in value]
    if control.kind in CHOICE:
        return str(label(value))
    return str(value)


PENDING = "_pending_configuration"


def _acceptable(control: Control, value: Any) -> Any:
    """``value`` as this control's value, or ``None`` when the control cannot take it (options known in advance
    are checked here; data-dependent ones by Streamlit, which falls back to the default)."""
    if control.kind in NUMERIC:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            return None
        if not control._within(float(value)):
            return None
        return int(value) if isinstance(control.default, int) and float(value).is_integer() else value
    if control.kind in ("checkbox", "toggle"):
        return value if isinstance(value, bool) else None
    if control.kind == "text_input":
        return value if isinstance(value, str) else None
    options = list(control.options)
    if control.kind == "multiselect":
        if not isinstance(value, list) or (options and not all(v in options for v in value)):
            return None
        return value
    return value if not options or value in options else None


def load_configuration(controls: Iterable[Control], config: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """Queue a downloaded configuration for the next run (:func:`apply_pending_configuration`, called before any
    widget is drawn): every declared control it names with a value the control can take. Returns the keys queued
    and the labels of the settings refused (a value the control cannot take, e.g. above its bound)."""
    queued: dict[str, Any] = {}
    refused: list[str] = []
    for control in controls:
        if control.key not in config:
            continue
        value = _acceptable(control, config[control.key])
        if value is None:
            refused.append(control.label)
        else:
            queued[control.key] = value
    st.session_state[PENDING] = queued
    return list(queued), refused


def apply_pending_configuration() -> None:
    """Set the widgets' values queued by :func:`load_configuration` (at the start of a run, before any widget)."""
    queued = st.session_state.pop(PENDING, None)
    for key, value in (queued or {}).items():
        st.session_state[key] = value


#: Presentation mode (a projector): larger type, the sidebar collapsed when a link opens it, the key controls in
#: one row above the chart. Declared once, bound to the URL (``?present=true``), drawn by app.py on every page.
PRESENT = Control("present", "toggle", "Presentation mode (projector)", False,
                  help="Larger type and the key controls (mechanism, ε, n) in one row above the chart. A link with "
                       "this on opens with the sidebar collapsed.")


def presenting() -> bool:
    """Whether this session is in presentation mode (its toggle, or the URL before the toggle is drawn)."""
    if PRESENT.key in st.session_state:
        return bool(st.session_state[PRESENT.key])
    return st.query_params.get(PRESENT.key, "false") == "true"
