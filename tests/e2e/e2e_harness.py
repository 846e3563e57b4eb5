"""End-to-end harness: a real ``streamlit run app.py`` on a free localhost port, driven by Playwright
in headless Debian Chromium (``/usr/bin/chromium``; ``./dev test`` installs it with apt-get when missing).

Playwright's own browser download is never used: the Python wheel ships the driver, and the browser is
the distribution's. The tests skip, with the reason, only when Playwright or Chromium cannot be found.
Screenshots of every test's final state go to ``test-artifacts/screenshots/`` (gitignored).

Plain functions (server start/stop, Chromium launch, waiting for Streamlit to settle, reading the charts),
used by the fixtures in ``conftest.py`` and by ``benchmarks/bench_dashboard.py``, which measures with
exactly the same code.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The app under test; LDP_E2E_ROOT points the tests at another checkout (e.g. a work tree being built).
APP_ROOT = Path(os.environ.get("LDP_E2E_ROOT", ROOT)).resolve()
ARTIFACTS = ROOT / "test-artifacts"
SCREENSHOTS = ARTIFACTS / "screenshots"

# Flags for this machine's closed network: without the background-networking ones Chromium keeps trying
# to reach Google services and its connections are refused.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
VIEWPORT = {"width": 1400, "height": 1000}
SERVER_START_TIMEOUT_S = 60
# Generous: a cold first render computes and caches; on a 2-core CI machine that is not instant.
RENDER_TIMEOUT_MS = 90_000

CHART = '[data-testid="stPlotlyChart"] .js-plotly-plot'
EXCEPTION = '[data-testid="stException"]'
ERROR = '[data-testid="stAlertContentError"]'

# Counts Streamlit script runs: each time the app root's data-test-script-state turns "running".
# (Checked on every DOM mutation batch, so a root that is created already "running" counts too.)
_RUN_COUNTER_JS = """
(() => {
  window.__stRuns = 0;
  let last = null;
  new MutationObserver(() => {
    const app = document.querySelector('[data-testid="stApp"]');
    const state = app ? app.getAttribute("data-test-script-state") : null;
    if (state === "running" && last !== "running") window.__stRuns += 1;
    last = state;
  }).observe(document, {subtree: true, childList: true, attributes: true,
                        attributeFilter: ["data-test-script-state"]});
})();
"""

_IDLE_JS = """
() => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.getAttribute("data-test-script-state") !== "notRunning") return false;
  if (app.getAttribute("data-test-connection-state") !== "CONNECTED") return false;
  // elements whose code is still loading show a skeleton (React Suspense fallback)
  if (document.querySelector('[data-testid="stSkeleton"], [data-testid="stAppSkeleton"]')) return false;
  return document.querySelectorAll('[data-testid="stElementContainer"][data-stale="true"]').length === 0;
}
"""

# One string per Plotly chart on the page: its traces' data and its title (changes whenever the figure does).
_CHART_SIGNATURES_JS = """
() => Array.from(document.querySelectorAll('[data-testid="stPlotlyChart"] .js-plotly-plot')).map((gd) => {
  const plain = (v) => (ArrayBuffer.isView(v) ? Array.from(v) : v);
  const traces = (gd.data || []).map((t) => JSON.stringify(t, (k, v) => plain(v)));
  const title = gd.layout && gd.layout.title ? JSON.stringify(gd.layout.title) : "";
  return title + "|" + traces.join("|");
})
"""


# --------------------------------------------------------------------------- locating the tools
def find_chromium() -> str | None:
    """Debian's chromium (``/usr/bin/chromium``), or ``$LDP_CHROMIUM``, or a chromium on PATH."""
    for cand in (os.environ.get("LDP_CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium"),
                 shutil.which("chromium-browser")):
        if cand and os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    return None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --------------------------------------------------------------------------- the streamlit server
@dataclass
class Server:
    url: str
    port: int
    process: subprocess.Popen
    log_path: Path
    started_at: float  # time.perf_counter() just before the process was started
    healthy_after_s: float = float("nan")

    def log_tail(self, chars: int = 3000) -> str:
        with contextlib.suppress(OSError):
            return self.log_path.read_text(errors="replace")[-chars:]
        return ""


def start_server(app_root: Path = APP_ROOT, *, log_path: Path | None = None,
                 timeout_s: float = SERVER_START_TIMEOUT_S, extra_args: tuple[str, ...] = (),
                 script: str = "app.py") -> Server:
    """``streamlit run <script>`` (default ``app.py``) on a free localhost port; returns once ``/_stcore/health``
    answers ok."""
    port = free_port()
    log_path = log_path or ARTIFACTS / f"streamlit-{port}.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(app_root), os.environ.get("PYTHONPATH")])),
           "PYTHONUNBUFFERED": "1"}
    cmd = [sys.executable, "-m", "streamlit", "run", script,
           "--server.headless", "true", "--server.port", str(port), "--server.address", "127.0.0.1",
           "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none", *extra_args]
    log = open(log_path, "w")  # noqa: SIM115 - closed with the process
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=app_root, env=env, stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL)
    log.close()
    server = Server(url=f"http://127.0.0.1:{port}", port=port, process=proc, log_path=log_path, started_at=t0)
    deadline = t0 + timeout_s
    while time.perf_counter() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with code {proc.returncode} before answering:\n{server.log_tail()}")
        with contextlib.suppress(OSError, ValueError):
            with urllib.request.urlopen(f"{server.url}/_stcore/health", timeout=2) as resp:
                if resp.status == 200 and resp.read().strip() == b"ok":
                    server.healthy_after_s = time.perf_counter() - t0
                    return server
        time.sleep(0.05)
    stop_server(server)
    raise RuntimeError(f"streamlit did not answer on port {port} within {timeout_s:.0f} s:\n{server.log_tail()}")


def stop_server(server: Server) -> None:
    proc = server.process
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


# --------------------------------------------------------------------------- the browser
def launch_chromium(playwright, executable: str):
    return playwright.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)


def new_page(browser, viewport: dict | None = None):
    context = browser.new_context(viewport=viewport or VIEWPORT, locale="en-US")
    context.add_init_script(_RUN_COUNTER_JS)
    page = context.new_page()
    page.set_default_timeout(RENDER_TIMEOUT_MS)
    return page


# --------------------------------------------------------------------------- waiting for streamlit
def wait_idle(page, timeout_ms: int = RENDER_TIMEOUT_MS) -> None:
    """Connected, no script running, no stale (greyed-out) element left, no element still loading its code."""
    page.wait_for_function(_IDLE_JS, timeout=timeout_ms, polling=50)


def runs(page) -> int:
    return int(page.evaluate("() => window.__stRuns || 0"))


def rerun(page, action: Callable[[], object], *, timeout_ms: int = RENDER_TIMEOUT_MS, start_ms: int = 5000) -> None:
    """Do ``action`` (a widget change) and wait until the rerun it triggers has finished."""
    before = runs(page)
    action()
    with contextlib.suppress(Exception):  # a very fast run may never paint "running"; then idle is enough
        page.wait_for_function(f"() => (window.__stRuns || 0) > {before}", timeout=start_ms, polling=20)
    wait_idle(page, timeout_ms)


def open_page(page, server: Server, path: str = "", *, query: str = "", timeout_ms: int = RENDER_TIMEOUT_MS):
    url = f"{server.url}/{path}" + (f"?{query}" if query else "")
    page.goto(url, wait_until="domcontentloaded")
    # The first script run must have started (or drawn something) before "idle" means "rendered".
    page.wait_for_function(
        "() => (window.__stRuns || 0) > 0 || "
        "document.querySelectorAll('[data-testid=\"stMain\"] [data-testid=\"stElementContainer\"]').length > 0",
        timeout=timeout_ms, polling=20)
    wait_idle(page, timeout_ms)
    return page


def wait_for_path(page, path: str, timeout_ms: int = RENDER_TIMEOUT_MS) -> None:
    """Client-side navigation (history.pushState, no load event): wait until the url path is ``/path``."""
    page.wait_for_function("(p) => location.pathname.replace(/\\/+$/, '') === p", arg=f"/{path}".rstrip("/"),
                           timeout=timeout_ms, polling=50)


def chart_signatures(page) -> list[str]:
    return page.evaluate(_CHART_SIGNATURES_JS)


def wait_for_charts(page, minimum: int = 1, timeout_ms: int = RENDER_TIMEOUT_MS) -> None:
    page.wait_for_function(
        f"() => document.querySelectorAll('{CHART}').length >= {minimum} && "
        f"Array.from(document.querySelectorAll('{CHART}')).every(g => g.data && g.data.length > 0)",
        timeout=timeout_ms, polling=50)


def wait_for_chart_change(page, before: list[str], timeout_ms: int = RENDER_TIMEOUT_MS) -> None:
    page.wait_for_function(
        "(before) => { const now = (" + _CHART_SIGNATURES_JS + ")();"
        " return now.length > 0 && JSON.stringify(now) !== JSON.stringify(before); }",
        arg=before, timeout=timeout_ms, polling=20)


def wait_for_every_chart_change(page, before: list[str], timeout_ms: int = RENDER_TIMEOUT_MS,
                                polling: int | str = 20) -> None:
    """Every chart that was on the page has been redrawn with new data or a new title."""
    page.wait_for_function(
        "(before) => { const now = (" + _CHART_SIGNATURES_JS + ")();"
        " return now.length >= before.length && before.every((s, i) => now[i] !== s); }",
        arg=before, timeout=timeout_ms, polling=polling)


def exceptions(page) -> list[str]:
    return [t.strip() for t in page.locator(EXCEPTION).all_inner_texts()]


def errors(page) -> list[str]:
    return [t.strip() for t in page.locator(ERROR).all_inner_texts()]


def epsilon_slider(page, label: str = "Privacy budget ε"):
    """The ε control: a select slider rendered as a range input labelled by its widget label."""
    exact = page.locator(f'input[type="range"][aria-label="{label}"]')
    if exact.count():
        return exact.first
    return page.locator('input[type="range"][aria-label*="ε"]').first


def slider_text(slider) -> str:
    return slider.get_attribute("aria-valuetext") or ""


def radio_option(page, label: str, option: str):
    """The clickable label of ``option`` in the radio group labelled ``label``."""
    group = page.locator('[data-testid="stRadio"]').filter(has=page.get_by_text(label, exact=True))
    return group.locator("label").filter(has_text=re.compile(rf"^\s*{re.escape(option)}\s*$")).first


def choose_radio(page, label: str, option: str) -> bool:
    """Select ``option`` in the radio group ``label`` and wait for the rerun; False if it was already selected."""
    choice = radio_option(page, label, option)
    if choice.locator("input").is_checked():
        return False
    rerun(page, choice.click)
    return True


def choose_selectbox(page, label: str, option: str | re.Pattern) -> None:
    """Pick ``option`` (text or regex) in the select box labelled ``label`` (a react-aria combobox)."""
    box = page.get_by_role("combobox", name=label, exact=True).first
    box.click()
    page.get_by_role("option", name=option).first.click()


NAV_LINK = '[data-testid="stSidebarNavLink"]'


def show_all_pages(page) -> None:
    """Unfold the sidebar's navigation: past ten pages Streamlit shows the rest behind a "View more" button."""
    more = page.locator('[data-testid="stSidebarNavViewButton"]')
    if more.count() and "more" in more.first.inner_text().lower():
        more.first.click()


def nav_link(page, title: str):
    """The sidebar's link to the page called ``title`` (unfolding the navigation when it is folded away)."""
    link = page.locator(NAV_LINK).filter(has_text=title).first
    if not link.is_visible():
        show_all_pages(page)
    return link


def screenshot(page, name: str, *, full_page: bool = True) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / (re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") + ".png")
    page.screenshot(path=str(path), full_page=full_page)
    return path




def dump(obj) -> str:
    return json.dumps(obj, indent=1, default=str)[:2000]
