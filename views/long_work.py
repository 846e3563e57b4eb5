"""Work that takes seconds: a closed tab stops its run, a long run waits for a button, results computed once per
server with a progress bar, studies precomputed in the background.

Streamlit only: every computation is a call into ``ldp``."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable
from typing import Any

import streamlit as st
from streamlit import runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

__all__ = ["accessibility", "button_pressed", "cached_with_progress", "is_cached", "precompute", "session_gone",
           "wait_for_button"]

def session_gone() -> bool:
    """Whether the browser session this run draws for has disconnected (its tab closed or navigated away).

    Installed by ``app.py`` as the cancellation predicate (:func:`ldp.core.cancellation.cancel_when`): the
    library's long loops stop within ~0.2 s of the tab closing instead of computing for nobody (three closed tabs
    once kept the server busy for 100 s). Outside a running server (AppTest, bare mode) nothing is gone.
    """
    ctx = get_script_run_ctx()
    if ctx is None or not runtime.exists():
        return False
    return not runtime.get_instance().is_active_session(ctx.session_id)


def button_pressed(seconds: float, signature: Any, key: str, label: str) -> bool:
    """Whether a run that takes about ``seconds`` may start: its button ``label`` (showing the estimate) pressed once
    for this configuration (``signature``); later reruns of the same configuration (the charts' own
    interactions) go straight on. Unlike :func:`wait_for_button` the rest of the page still draws."""
    if st.session_state.get(f"_{key}_ran") == signature:
        return True
    if not st.button(f"{label} (about {seconds:.0f} s)", key=key, type="primary"):
        return False
    st.session_state[f"_{key}_ran"] = signature
    return True


def wait_for_button(seconds: float, above: float, signature: Any, key: str, label: str) -> None:
    """A link alone never starts a long run: above ``above`` seconds (estimated), the page stops here until the
    button ``label`` is pressed, once per configuration (``signature``); later reruns of the same configuration
    (the charts' own interactions) go straight on."""
    if seconds <= above or button_pressed(seconds, signature, key, label):
        return
    st.info("This configuration takes a while, so it runs when you press the button.")
    st.stop()


_STUDIES: dict[Any, Any] = {}  # process-wide results of cached_with_progress, least recently used first
#: Studies kept (tables of a few kB to a few MB). A page shows up to ~6 at a time per seed: with 32 kept in the order
#: they were computed, ten sessions each on its own seed evicted one another's and recomputed them on every rerun.
_STUDIES_MAX = 256


def is_cached(key: Any) -> bool:
    """Whether :func:`cached_with_progress` holds a result for ``key`` (shown at once, without asking)."""
    return key in _STUDIES


def cached_with_progress(key: Any, label: str, compute: Callable[[Callable[[float], None]], Any]) -> Any:
    """``compute(progress)`` once per ``key`` for the whole server (like ``st.cache_data``, shared by every session),
    drawing its own progress bar while it runs. ``st.cache_data`` cannot do this: it records the bar's updates
    made inside the cached function and fails to replay them on a block that no longer exists. Results are
    treated as read-only; the least recently used are evicted beyond ``_STUDIES_MAX`` entries.

    A key is computed by one caller at a time: a session (or the background :func:`precompute`) that asks for a key
    another is computing waits for it, drawing that run's progress, instead of computing it again — ten sessions
    moving to the same ε once ran the same study ten times at once (the Reproduce page's b sweep: 12 s each instead
    of ≈ 1 s, benchmarks/bench_concurrency.py). If that run fails or is cancelled (its tab closed), the next waiter
    computes the key itself, so an error is shown where it is asked for. Inside :func:`precompute` (no page to draw
    on) nothing is drawn."""
    background = getattr(_BACKGROUND, "active", False)
    while True:
        with _CLAIM:
            if key in _STUDIES:
                _STUDIES[key] = _STUDIES.pop(key)  # most recently used: evicted last
                return _STUDIES[key]
            pending = _PENDING.get(key)
            if pending is None:
                state = _PENDING[key] = {"done": threading.Event(), "fraction": 0.0}
        if pending is None:
            return _compute(key, label, compute, state, background)
        if background:
            pending["done"].wait()
            continue
        bar = st.progress(0.0, text=label)
        try:
            while not pending["done"].wait(0.2):
                if session_gone():  # this tab closed while it waited: end its run
                    st.stop()
                bar.progress(min(max(pending["fraction"], 0.0), 1.0), text=f"{label} {pending['fraction']:.0%}")
        finally:
            bar.empty()


def _compute(key: Any, label: str, compute: Callable[[Callable[[float], None]], Any], state: dict[str, Any],
             background: bool) -> Any:
    """Run ``compute`` for the caller that claimed ``key`` (its progress in ``state`` for the waiters, and in a bar
    unless in the background), store the result, and release the waiters whatever happens."""
    bar = None if background else st.progress(0.0, text=label)

    def progress(fraction: float) -> None:
        state["fraction"] = float(fraction)
        if bar is not None:
            bar.progress(min(max(float(fraction), 0.0), 1.0), text=f"{label} {fraction:.0%}")

    try:
        result = compute(progress)
        with _CLAIM:
            _store(key, result)
        return result
    finally:
        if bar is not None:
            bar.empty()
        with _CLAIM:
            _PENDING.pop(key, None)
        state["done"].set()


def _store(key: Any, result: Any) -> None:
    _STUDIES[key] = result
    while len(_STUDIES) > _STUDIES_MAX:
        _STUDIES.pop(next(iter(_STUDIES)))


_PENDING: dict[Any, dict[str, Any]] = {}  # keys being computed now (by a page or the background): event, progress
_CLAIM = threading.Lock()  # guards _STUDIES and _PENDING: who computes a key, and its result
_BACKGROUND = threading.local()


#: Seconds the background precompute waits before it starts: the server has sent the first page by then, but the
#: browser is still drawing it, and the precompute's first seconds took 0.4 s from that (cold start to a drawn
#: page 3.42 → 3.01 s without it, median of 5, benchmarks/bench_dashboard.py). A page that needs a study meanwhile
#: computes it itself, as it would without the precompute.
PRECOMPUTE_DELAY_S = 3.0


def precompute(work: Callable[[], None], delay_s: float | None = None) -> threading.Thread:
    """Run ``work`` (calls of page helpers that go through :func:`cached_with_progress`) in a background thread,
    after ``delay_s`` seconds (default :data:`PRECOMPUTE_DELAY_S`): their results land in the server-wide cache, and a
    page that asks for one meanwhile waits for it. Errors are swallowed (the page computes that study again and shows
    the error itself). The thread runs at the lowest CPU priority (Linux schedules threads by their own nice value),
    so pages drawn meanwhile come first."""
    delay_s = PRECOMPUTE_DELAY_S if delay_s is None else delay_s

    def run() -> None:
        _BACKGROUND.active = True
        with contextlib.suppress(AttributeError, OSError):  # os.setpriority is POSIX-only
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
        time.sleep(delay_s)
        with contextlib.suppress(Exception):
            work()

    thread = threading.Thread(target=run, name="ldp-precompute", daemon=True)
    thread.start()
    return thread


_A11Y_JS = """
export default function () {
    // Accessible names the page's HTML lacks: each Plotly chart becomes an image named by its
    // title (screen readers otherwise announce an unnamed graphic), and Material icon ligatures
    // ("keyboard_arrow_right") are hidden from the accessibility tree so they stop prefixing expanders' names.
    // Installed once per browser tab; a MutationObserver keeps it true as Streamlit redraws.
    if (window.__ldpA11y) return;
    window.__ldpA11y = true;
    const apply = () => {
        document.querySelectorAll('[data-testid="stPlotlyChart"] .js-plotly-plot').forEach((plot) => {
            const title = plot.querySelector('.gtitle');
            const name = title ? title.textContent.trim() : '';
            if (name && plot.getAttribute('aria-label') !== 'Chart: ' + name) {
                plot.setAttribute('role', 'img');
                plot.setAttribute('aria-label', 'Chart: ' + name);
            }
        });
        document.querySelectorAll('[data-testid="stIconMaterial"]:not([aria-hidden])').forEach((icon) => {
            icon.setAttribute('aria-hidden', 'true');
        });
    };
    apply();
    // Once per frame at most: a page's first render and Plotly's drawing are hundreds of mutation batches, each
    // of which ran both queries over the whole page on the browser's main thread.
    let pending = false;
    new MutationObserver(() => {
        if (pending) return;
        pending = true;
        requestAnimationFrame(() => { pending = false; apply(); });
    }).observe(document.body, {childList: true, subtree: true});
}
"""
_a11y_component = None


def accessibility() -> None:
    """Mount the accessibility fixes of :data:`_A11Y_JS` (a JavaScript-only ``st.components.v2`` component: it runs in
    the page itself, not in an iframe, so it can name the charts)."""
    global _a11y_component
    if _a11y_component is None:
        _a11y_component = st.components.v2.component("ldp_accessibility", js=_A11Y_JS)
    _a11y_component(key="ldp_accessibility")
