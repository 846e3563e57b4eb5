"""The live classroom in headless Chromium on the real server (``serve.py``: the dashboard and the classroom routes):

- the page's randomizer (crypto.getRandomValues) draws 10⁵ reports per mechanism that pass a χ² test against the
  mechanism's exact channel (GRR, OUE, OLH) or its density (PM, binned);
- fed fixed bytes, Chromium's randomizer gives the Python randomizer's reports (tests/classroom checks node too);
- every request the student page makes is intercepted: none carries the raw answer;
- the teacher's projector view and a phone-sized student page, screenshotted (test-artifacts/screenshots/).
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from e2e_harness import CHART, ROOT, SCREENSHOTS, new_page, open_page, screenshot, wait_idle
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "classroom"))
from classroom_harness import TEACHER_SECRET, call, start_app, stop_app  # noqa: E402

from ldp.classroom import QuestionSpec, mechanism_of, randomize  # noqa: E402

pytestmark = pytest.mark.e2e

DRAWS = 100_000
# χ² p-value below which a test fails. The browser's randomness cannot be seeded (that is the point: it is the
# real crypto source), so each of the four tests fails by chance with probability 1e-4 when all is well.
ALPHA = 1e-4
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def classroom_server(tmp_path_factory) -> Iterator[object]:
    tmp = tmp_path_factory.mktemp("classroom-e2e")
    app = start_app({"LDP_DATA_DIR": str(tmp / "data"), "LDP_DATABASE_URL": ""}, tmp / "serve.log")
    try:
        yield app
    finally:
        stop_app(app)


def _create(server, body: dict) -> dict:
    status, out = call("POST", f"{server.url}/api/classes", body, token=TEACHER_SECRET)
    assert status == 201, out
    return out


def _student_page(browser, server, code: str, viewport=PHONE):
    context = browser.new_context(viewport=viewport, locale="en-US", is_mobile=True, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(60_000)
    return page


DRAW_JS = """
([mechanism, params, answer, draws]) => {
  const src = LDPRandomizer.cryptoSource();
  const counts = {};
  for (let i = 0; i < draws; i++) {
    const r = LDPRandomizer.randomize(mechanism, params, answer, src);
    counts[r] = (counts[r] || 0) + 1;
  }
  return counts;
}
"""
PM_DRAW_JS = """
([params, answer, draws]) => {
  const src = LDPRandomizer.cryptoSource();
  const out = new Float64Array(draws);
  for (let i = 0; i < draws; i++) out[i] = Number(LDPRandomizer.randomize("pm", params, answer, src));
  return Array.from(out);
}
"""


@pytest.mark.parametrize("mechanism", ["grr", "oue", "olh"])
def test_chromium_reports_follow_the_channel(browser, classroom_server, mechanism):
    body = {"question": "chi2", "labels": ["a", "b", "c", "d"], "mechanism": mechanism, "epsilon": 1.0}
    code = _create(classroom_server, body)["code"]
    page = _student_page(browser, classroom_server, code)
    try:
        page.goto(f"{classroom_server.url}/join/{code}")
        page.wait_for_function("() => window.LDPRandomizer !== undefined")
        info = call("GET", f"{classroom_server.url}/api/classes/{code}")[1]
        answer = 2
        counts = page.evaluate(DRAW_JS, [mechanism, info["parameters"], answer, DRAWS])
    finally:
        page.context.close()
    mech = mechanism_of(QuestionSpec.from_dict(body))
    channel, labels = mech.channel()
    expected = channel[answer] * DRAWS
    observed = np.array([counts.pop(label, 0) for label in labels], dtype=float)
    assert not counts, f"reports outside the channel's outputs: {list(counts)[:5]}"
    assert observed.sum() == DRAWS
    keep = expected > 0   # outputs impossible for this answer (none here) would have to be unobserved
    assert np.all(observed[~keep] == 0)
    p = stats.chisquare(observed[keep], expected[keep]).pvalue
    assert p > ALPHA, f"{mechanism}: χ² p = {p:.2e} over {keep.sum()} outputs"


def test_chromium_pm_reports_follow_the_density(browser, classroom_server):
    body = {"question": "chi2", "range": [0, 10], "mechanism": "pm", "epsilon": 1.0}
    code = _create(classroom_server, body)["code"]
    page = _student_page(browser, classroom_server, code)
    try:
        page.goto(f"{classroom_server.url}/join/{code}")
        page.wait_for_function("() => window.LDPRandomizer !== undefined")
        info = call("GET", f"{classroom_server.url}/api/classes/{code}")[1]
        reports = np.array(page.evaluate(PM_DRAW_JS, [info["parameters"], 7.5, DRAWS]))
    finally:
        page.context.close()
    mech = mechanism_of(QuestionSpec.from_dict(body))
    v = 2 * 7.5 / 10 - 1
    lo, hi = mech.interval(v)
    # the density is p_high on [ℓ, r] and p_low elsewhere on [−s, s] (SW paper §2.2): exact bin probabilities
    edges = np.linspace(-mech.s, mech.s, 41)
    inside = np.clip(np.minimum(edges[1:], hi) - np.maximum(edges[:-1], lo), 0, None)
    probs = mech.p_low * np.diff(edges) + (mech.p_high - mech.p_low) * inside
    assert math.isclose(probs.sum(), 1.0, rel_tol=1e-9)
    observed, _ = np.histogram(reports, bins=edges)
    assert observed.sum() == DRAWS
    p = stats.chisquare(observed, probs * DRAWS).pvalue
    assert p > ALPHA, f"pm: χ² p = {p:.2e}"


def test_chromium_and_python_agree_on_the_same_bytes(browser, classroom_server):
    from test_randomizer import _cases, _python  # tests/classroom: the node comparison's cases

    cases = _cases(seed=7, per_spec=60)
    code = _create(classroom_server, {"question": "x", "labels": ["a", "b"], "mechanism": "grr", "epsilon": 1})["code"]
    page = _student_page(browser, classroom_server, code)
    try:
        page.goto(f"{classroom_server.url}/join/{code}")
        page.wait_for_function("() => window.LDPRandomizer !== undefined")
        got = page.evaluate("""(cases) => cases.map((c) => {
            const bytes = Uint8Array.from(c.bytes.match(/../g).map((h) => parseInt(h, 16)));
            const src = LDPRandomizer.fixedSource(bytes);
            return [LDPRandomizer.randomize(c.mechanism, c.params, c.answer, src), src.consumed];
        })""", cases)
    finally:
        page.context.close()
    for case, (report, consumed) in zip(cases, got, strict=True):
        expected, used = _python(case)
        assert (float(report) == float(expected)) if case["mechanism"] == "pm" else report == expected, case
        assert consumed == used, case


@pytest.mark.parametrize("kind", ["categorical", "numeric"])
def test_no_request_of_the_student_page_carries_the_answer(browser, classroom_server, kind):
    if kind == "categorical":
        body = {"question": "Where would you rather live?", "labels": ["Oslo", "Zanzibar-Island", "Lima"],
                "mechanism": "oue", "epsilon": 1.0}
        secret = "Zanzibar-Island"
    else:
        body = {"question": "How many hours did you sleep?", "range": [0, 12], "mechanism": "pm", "epsilon": 1.0}
        secret = "7.317"
    created = _create(classroom_server, body)
    code = created["code"]
    page = _student_page(browser, classroom_server, code)
    seen: list[dict] = []
    page.on("request", lambda req: seen.append({"url": req.url, "method": req.method, "body": req.post_data or "",
                                                "headers": json.dumps(req.headers)}))
    try:
        page.goto(f"{classroom_server.url}/join/{code}")
        page.wait_for_selector("#answers input")
        if kind == "categorical":
            page.get_by_text(secret, exact=True).click()
        else:
            page.fill("#number", secret)
        page.click("#send")
        page.wait_for_selector("#result:not([hidden])")
        page.wait_for_timeout(3500)   # one poll of the question as well
        shown = page.inner_text("#sent")
    finally:
        page.context.close()
    assert secret in shown   # the page itself tells the student what they answered …
    posts = [r for r in seen if r["method"] == "POST"]
    assert len(posts) == 1 and posts[0]["url"].endswith(f"/api/classes/{code}/reports")
    sent = json.loads(posts[0]["body"])
    assert set(sent) == {"report", "nonce", "question"}
    for r in seen:   # … but no request carries it: not in a URL, a body or a header
        assert secret not in r["url"] + r["body"] + r["headers"], r
        assert r["url"].startswith(classroom_server.url), r   # nothing leaves for another host
    summary = call("GET", f"{classroom_server.url}/api/classes/{code}/summary", token=created["teacher_token"])[1]
    assert summary["reports"] == 1


def test_projector_view_and_phone_page(browser, classroom_server):
    """The teacher creates a class on the Classroom page; 40 students answer; the show of hands is revealed."""
    context = browser.new_context(viewport={"width": 1400, "height": 1250}, locale="en-US")
    page = context.new_page()
    page.set_default_timeout(90_000)
    try:
        page.goto(f"{classroom_server.url}/")   # app.py's st.navigation must have run once (see tests/e2e)
        open_page(page, classroom_server, "classroom")
        page.get_by_role("button", name="Create class").click()
        page.wait_for_selector("text=Join code")
        wait_idle(page)
        code = re.search(r"Join code ([A-Z0-9]{6})", page.inner_text("body")).group(1)
        info = call("GET", f"{classroom_server.url}/api/classes/{code}")[1]
        spec = QuestionSpec.from_dict({k: info[k] for k in ("question", "labels", "mechanism", "epsilon")})
        hands = {"Spring": 9, "Summer": 17, "Autumn": 10, "Winter": 4}
        answers = [label for label, k in hands.items() for _ in range(k)]
        for i, answer in enumerate(answers):
            assert call("POST", f"{classroom_server.url}/api/classes/{code}/reports",
                        {"report": randomize(spec, answer), "nonce": f"student-{i:04d}"})[0] == 201
        page.get_by_text("Reveal the show of hands").click()
        for label, k in hands.items():
            page.get_by_label(label, exact=True).fill(str(k))
        page.get_by_role("button", name="Reveal").click()
        page.wait_for_function("() => document.body.innerText.includes('With 40 students')", timeout=20_000)
        page.wait_for_timeout(2500)   # the live view's next refresh draws the show of hands
        wait_idle(page)
        assert "With 40 students the error is ±" in page.inner_text("body")
        page.get_by_text("Reveal the show of hands").click()   # fold the form again for the picture
        page.evaluate("() => { window.scrollTo(0, 0); document.querySelectorAll('[data-testid=\"stMain\"], "
                      "[data-testid=\"stAppViewContainer\"]').forEach((e) => e.scrollTo(0, 0)); }")
        page.wait_for_timeout(800)
        screenshot(page, "classroom-projector", full_page=False)

        phone = _student_page(browser, classroom_server, code)
        try:
            phone.goto(f"{classroom_server.url}/join/{code}")
            phone.get_by_text("Summer", exact=True).click()
            phone.click("#send")
            phone.wait_for_selector("#result:not([hidden])")
            screenshot(phone, "classroom-student-phone", full_page=True)
        finally:
            phone.context.close()
    finally:
        context.close()
    assert (SCREENSHOTS / "classroom-projector.png").exists()


def test_a_retry_sends_the_same_report_and_a_reload_says_already_sent(browser, classroom_server):
    """The first POST fails (a plain-text 500, then a JSON 503): each tap again sends the same report and nonce (one
    report per answer: ε, not 2ε); the page shows the server's reasons; after the 201 a reload says "already sent"
    and offers no second answer."""
    body = {"question": "Retry?", "labels": ["yes", "no", "maybe"], "mechanism": "grr", "epsilon": 1.0}
    created = _create(classroom_server, body)
    code = created["code"]
    page = _student_page(browser, classroom_server, code)
    posts: list[dict] = []
    failures = [(500, "text/plain", "Internal Server Error"),
                (503, "application/json", json.dumps({"error": "the class's storage is unavailable right now "
                                                               "(disk full); retry in a few seconds"}))]

    def intercept(route, request):
        if request.method != "POST":
            return route.continue_()
        posts.append({**json.loads(request.post_data), "device": request.headers.get("x-ldp-device")})
        if failures:
            status, ctype, text = failures.pop(0)
            return route.fulfill(status=status, content_type=ctype, body=text, headers={"Retry-After": "5"})
        return route.continue_()

    try:
        page.route(f"**/api/classes/{code}/reports", intercept)
        page.goto(f"{classroom_server.url}/join/{code}")
        page.get_by_text("maybe", exact=True).click()
        page.click("#send")
        page.wait_for_function("() => document.getElementById('error').textContent.includes('HTTP 500')")
        assert "Unexpected token" not in page.inner_text("#error")
        assert page.inner_text("#send") == "Send my report again"
        assert page.is_disabled("#answers input >> nth=0")   # the report is drawn: the answer is locked
        page.click("#send")
        page.wait_for_function("() => document.getElementById('error').textContent.includes('disk full')")
        page.click("#send")
        page.wait_for_selector("#result:not([hidden])")
        assert "You answered “maybe”" in page.inner_text("#sent")
        assert page.inner_text("#error") == ""
        page.reload()
        page.wait_for_selector("#result:not([hidden])")
        assert "Already sent" in page.inner_text("#sent")
        assert page.is_disabled("#send") and page.inner_text("#send") == "Already sent"
        page.click("#send", force=True)
        page.wait_for_timeout(500)
    finally:
        page.context.close()
    assert len(posts) == 3, posts
    assert all(p == posts[0] for p in posts), posts   # the same report, nonce and question every time
    assert re.fullmatch(r"[A-Za-z0-9_-]{8,64}", posts[0]["device"] or ""), posts   # the per-client limit's token
    summary = call("GET", f"{classroom_server.url}/api/classes/{code}/summary", token=created["teacher_token"])[1]
    assert summary["reports"] == 1


def test_without_javascript_the_page_says_why_it_needs_it(browser, classroom_server):
    created = _create(classroom_server, {"question": "JS?", "labels": ["a", "b"], "mechanism": "grr",
                                         "epsilon": 1.0})
    context = browser.new_context(viewport=PHONE, locale="en-US", java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(f"{classroom_server.url}/join/{created['code']}")
        text = page.inner_text("body")
        screenshot(page, "classroom-student-no-javascript", full_page=True)
    finally:
        context.close()
    assert "This page needs JavaScript" in text and "on this phone" in text
    assert "Loading…" not in text



@pytest.mark.parametrize("present", [True, False], ids=["presenting", "normal"])
def test_the_teacher_view_fits_1280x720_and_keeps_the_token_off_screen(browser, classroom_server, present):
    """Issue "The lecture hall on a real projector", item 3: the live chart beside the join code and QR code, inside a
    1280x720 screen on first load; the teacher token is nowhere in the page (not even in the folded expander) until
    the teacher turns "Show the teacher token" on."""
    created = _create(classroom_server, {"question": "Tea or coffee?", "labels": ["Tea", "Coffee"],
                                         "mechanism": "grr", "epsilon": 1.0})
    code, token = created["code"], created["teacher_token"]
    page = new_page(browser, {"width": 1280, "height": 720})
    try:
        page.goto(f"{classroom_server.url}/")   # app.py's st.navigation must have run once (see tests/e2e)
        open_page(page, classroom_server, "classroom", query="present=true" if present else "")
        page.get_by_role("tab", name="Reopen a class").click()
        page.get_by_label("Join code").fill(code)
        page.get_by_label("Teacher token").fill(token)
        page.get_by_role("button", name="Reopen").click()
        page.wait_for_selector(f"text=Join code {code}")
        page.locator(CHART).first.locator(".main-svg").first.wait_for(state="visible")
        wait_idle(page)
        assert page.evaluate("() => window.scrollY") == 0
        box = page.locator('[class*="st-key-main_chart"] .js-plotly-plot').first.bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 720, box
        qr = page.locator('[data-testid="stImage"] img').first.bounding_box()
        assert qr is not None and qr["x"] + qr["width"] <= box["x"], (qr, box)  # side by side: QR left of the chart
        assert qr["y"] + qr["height"] <= 720, qr
        assert token not in page.content() and token not in page.inner_text("body"), "the token is on the page"
        if present and os.environ.get("LDP_UPDATE_SCREENSHOTS") == "1":
            page.screenshot(path=str(ROOT / "docs" / "screenshots" / "present-classroom-1280x720.png"))
        screenshot(page, f"classroom-teacher-1280x720-{'present' if present else 'normal'}", full_page=False)
        page.get_by_text("Teacher token", exact=True).click()  # the teacher can still see it, on purpose
        page.get_by_text("Show the teacher token").click()
        page.wait_for_function("(t) => document.body.innerText.includes(t)", arg=token, timeout=20_000)
    finally:
        page.context.close()


def test_the_dashboard_shell_loads_the_chart_library_early_and_the_student_page_does_not(browser, classroom_server):
    """serve.py's ChartPreload: the dashboard's HTML shell (at / and at a page's path) imports Streamlit's Plotly
    chunk, which the browser then requests before the first chart arrives; a student's page is left as it is."""
    import urllib.request

    def html(path: str) -> str:
        with urllib.request.urlopen(f"{classroom_server.url}{path}", timeout=30) as answer:
            return answer.read().decode()

    preload = 'import("./static/js/PlotlyChart.'
    assert preload in html("/") and preload in html("/playground")
    code = _create(classroom_server, {"question": "x", "labels": ["a", "b"], "mechanism": "grr", "epsilon": 1})["code"]
    assert preload not in html(f"/join/{code}")
    page = new_page(browser)
    try:
        chunks = []
        page.on("request", lambda request: chunks.append(request.url) if "/PlotlyChart." in request.url else None)
        page.goto(f"{classroom_server.url}/learn")  # a page whose first view draws no chart
        wait_idle(page)
        assert len(chunks) == 1 and page.locator(CHART).count() == 0
    finally:
        page.context.close()
