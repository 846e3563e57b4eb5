"""A hostile room (issue: "a classroom that withstands a hostile room"): cross-site posts, hostile bodies, storage
failures, strangers creating classes and enumerating codes, one client flooding the class. Every refusal is a JSON
object with a one-line ``error``; nothing answers a plain-text 500."""

from __future__ import annotations

import pytest

pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx: pip install -r requirements-dev.txt")
from classroom_harness import TEACHER_SECRET  # noqa: E402
from starlette.applications import Starlette  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from ldp.classroom import Classroom, open_store  # noqa: E402
from ldp.classroom.http import classroom_routes  # noqa: E402

GRR_Q = {"question": "Favourite season?", "labels": ["spring", "summer", "autumn", "winter"], "mechanism": "grr",
         "epsilon": 1.0}


@pytest.fixture
def room(tmp_path) -> Classroom:
    return Classroom(open_store(database_url="", data_dir=tmp_path))


def _client(room: Classroom, address: str = "testclient") -> TestClient:
    return TestClient(Starlette(routes=classroom_routes(room)), client=(address, 50000),
                      raise_server_exceptions=False)


@pytest.fixture
def client(room) -> TestClient:
    return _client(room)


def _create(client: TestClient, body: dict = GRR_Q) -> tuple[str, dict]:
    resp = client.post("/api/classes", json=body, headers=_teacher(client))
    assert resp.status_code == 201, resp.text
    out = resp.json()
    return out["code"], {"Authorization": f"Bearer {out['teacher_token']}"}


def _teacher(client: TestClient) -> dict:
    """The teacher secret's header (conftest.py sets $LDP_TEACHER_SECRET for every test)."""
    return {"Authorization": f"Bearer {TEACHER_SECRET}"}


def _refusal(resp, status: int) -> str:
    assert resp.status_code == status, (resp.status_code, resp.text)
    assert resp.headers["content-type"].startswith("application/json"), resp.headers
    reason = resp.json()["error"]
    assert reason and "\n" not in reason and "Traceback" not in reason
    return reason


# ------------------------------------------------------------------ 1. cross-site posts
def test_a_body_not_declared_json_is_refused_with_415(client):
    code, auth = _create(client)
    for ctype in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", None):
        headers = {"Content-Type": ctype} if ctype else {}
        resp = client.post(f"/api/classes/{code}/reports", content=b'{"report": "1", "nonce": "nonce-0001"}',
                           headers=headers)
        assert "application/json" in _refusal(resp, 415)
        resp = client.post("/api/classes", content=b'{"question": "x", "labels": ["a", "b"], "mechanism": "grr", '
                           b'"epsilon": 1}', headers={**headers, **_teacher(client)})
        _refusal(resp, 415)
    assert client.get(f"/api/classes/{code}/summary", headers=auth).json()["reports"] == 0
    ok = client.post(f"/api/classes/{code}/reports", content=b'{"report": "1", "nonce": "nonce-0001"}',
                     headers={"Content-Type": "application/json; charset=utf-8"})
    assert ok.status_code == 201, ok.text


def test_a_post_from_another_origin_is_refused_with_403(client):
    code, auth = _create(client)
    body = {"report": "1", "nonce": "nonce-0001"}
    for origin in ("https://elsewhere.example", "http://testserver.evil.example", "http://testserver:8080",
                   "null", "garbage"):
        resp = client.post(f"/api/classes/{code}/reports", json=body, headers={"Origin": origin})
        assert "cross-site" in _refusal(resp, 403)
        resp = client.post("/api/classes", json=GRR_Q, headers={"Origin": origin, **_teacher(client)})
        _refusal(resp, 403)
        _refusal(client.post(f"/api/classes/{code}/close", headers={"Origin": origin, **auth}), 403)
        _refusal(client.delete(f"/api/classes/{code}", headers={"Origin": origin, **auth}), 403)
    # a browser that sends no Origin but says the request is cross-site
    _refusal(client.post(f"/api/classes/{code}/reports", json=body, headers={"Sec-Fetch-Site": "cross-site"}), 403)
    assert client.get(f"/api/classes/{code}/summary", headers=auth).json()["reports"] == 0
    # the server's own page (Origin = Host, default port), and a non-browser client without Origin
    assert client.post(f"/api/classes/{code}/reports", json=body,
                       headers={"Origin": "http://testserver", "Sec-Fetch-Site": "same-origin"}).status_code == 201
    assert client.post(f"/api/classes/{code}/reports", json={**body, "nonce": "nonce-0002"}).status_code == 201
    on_port = client.post(f"/api/classes/{code}/reports", json={**body, "nonce": "nonce-0003"},
                          headers={"Origin": "http://lecture.example:8501", "Host": "lecture.example:8501"})
    assert on_port.status_code == 201, on_port.text


def test_allowed_origins_from_the_environment(client, monkeypatch):
    code, _ = _create(client)
    body = {"report": "1", "nonce": "nonce-0001"}
    headers = {"Origin": "https://proxy.example"}
    _refusal(client.post(f"/api/classes/{code}/reports", json=body, headers=headers), 403)
    monkeypatch.setenv("LDP_ALLOWED_ORIGINS", "https://proxy.example, http://other.example:9000")
    assert client.post(f"/api/classes/{code}/reports", json=body, headers=headers).status_code == 201


# ------------------------------------------------------------------ 2. hostile bodies and storage failures
JSON_HEADERS = {"Content-Type": "application/json"}


@pytest.mark.parametrize("raw", [
    b"[" * 2000 + b"]" * 2000,                                                                  # RecursionError
    b'{"question": "x", "range": [0, 1' + b"0" * 400 + b'], "mechanism": "pm", "epsilon": 1}',   # OverflowError
    b'{"question": "x", "range": [0, 10], "mechanism": "pm", "epsilon": 1' + b"0" * 400 + b"}",
    b'{"question": "x", "range": [-1e308, 1e308], "mechanism": "pm", "epsilon": 1}',
    b'{"question": "x", "range": [0, 10], "mechanism": "pm", "epsilon": NaN}',
    b'{"question": "x", "range": [0, Infinity], "mechanism": "pm", "epsilon": 1}',
    b'{"question": "\\ud800", "labels": ["a", "b"], "mechanism": "grr", "epsilon": 1}',         # a lone surrogate
    b'{"question": "x", "labels": ["a", "\\udfff"], "mechanism": "grr", "epsilon": 1}',
    b'{"\\ud800": 1}',
])
def test_hostile_class_bodies_are_refused_with_one_line(client, raw):
    resp = client.post("/api/classes", content=raw, headers={**JSON_HEADERS, **_teacher(client)})
    _refusal(resp, 400)


def test_hostile_report_and_teacher_bodies_are_refused_with_one_line(client):
    code, auth = _create(client)
    url = f"/api/classes/{code}"
    for raw in (b"[" * 2000 + b"]" * 2000, b'{"report": 1' + b"0" * 400 + b', "nonce": "nonce-0001"}',
                b'{"report": "\\ud800", "nonce": "nonce-0001"}', b'{"report": "1", "nonce": "\\udc00abcdefgh"}'):
        _refusal(client.post(f"{url}/reports", content=raw, headers=JSON_HEADERS), 400)
    for raw in (b'{"truth": {"spring": 1' + b"0" * 400 + b"}}", b'{"truth": 1' + b"0" * 400 + b"}",
                b'{"truth": {"\\ud800": 1}}', b"[" * 2000 + b"]" * 2000):
        _refusal(client.post(f"{url}/reveal", content=raw, headers={**JSON_HEADERS, **auth}), 400)
    _refusal(client.post(f"{url}/questions", content=b'{"question": "\\ud800", "labels": ["a", "b"], '
                         b'"mechanism": "grr", "epsilon": 1}', headers={**JSON_HEADERS, **auth}), 400)
    # the class still works: its question, a report, its summary
    assert client.get(url).status_code == 200
    assert client.post(f"{url}/reports", json={"report": "1", "nonce": "nonce-0001"}).status_code == 201
    assert client.get(f"{url}/summary", headers=auth).json()["reports"] == 1


def test_a_numeric_answer_far_out_of_range_is_a_one_line_error():
    from ldp.classroom import QuestionSpec
    from ldp.core.errors import LDPError

    spec = QuestionSpec.from_dict({"question": "x", "range": [0, 10], "mechanism": "pm", "epsilon": 1})
    with pytest.raises(LDPError, match="answer must be a number"):
        spec.to_input(10**400)


@pytest.mark.parametrize("error", [
    __import__("sqlite3").OperationalError("database or disk is full"),
    __import__("sqlite3").OperationalError("attempt to write a readonly database"),
    __import__("sqlite3").DatabaseError("database disk image is malformed"),
    OSError(28, "No space left on device"),
])
def test_storage_errors_are_503_json_with_retry_after(room, client, monkeypatch, error):
    code, auth = _create(client)

    def fail(*args, **kwargs):
        raise error

    for method in ("add_report", "create_class", "reports", "current_question", "class_row"):
        monkeypatch.setattr(room.store, method, fail)
    room._cache.clear()
    for resp in (client.post(f"/api/classes/{code}/reports", json={"report": "1", "nonce": "nonce-0001"}),
                 client.post("/api/classes", json=GRR_Q, headers=_teacher(client)),
                 client.get(f"/api/classes/{code}"),
                 client.get(f"/api/classes/{code}/summary", headers=auth)):
        reason = _refusal(resp, 503)
        assert "retry" in reason and int(resp.headers["Retry-After"]) > 0


def test_an_unexpected_error_is_a_json_500_without_a_traceback(room, client, monkeypatch):
    code, auth = _create(client)
    monkeypatch.setattr(room, "summary", lambda *a: 1 / 0)
    _refusal(client.get(f"/api/classes/{code}/summary", headers=auth), 500)


def test_a_class_stored_with_a_lone_surrogate_stays_readable(room, client):
    """Classes written before the boundary refused lone surrogates: their answers are still JSON."""
    created = room.create_class({"question": "ok", "labels": ["a", "b"], "mechanism": "grr", "epsilon": 1.0})
    with room.store._tx(True) as run:
        run("UPDATE questions SET spec = :s", s='{"question": "\\ud800", "labels": ["a", "b"], "mechanism": "grr", '
                                                '"epsilon": 1.0}')
    room._cache.clear()
    resp = client.get(f"/api/classes/{created['code']}")
    assert resp.status_code == 200 and resp.json()["question"] == "\ud800"


def test_a_read_only_database_is_a_503_for_the_student_and_a_one_line_error_for_the_teacher(room, client,
                                                                                             monkeypatch):
    """A real SQLite failure (the database opened read-only), not a mock of the store's methods."""
    import sqlite3

    from ldp.classroom.errors import StorageUnavailable

    code, auth = _create(client)
    read_only = sqlite3.connect(f"file:{room.store.path}?mode=ro", uri=True, isolation_level=None,
                                check_same_thread=False)
    monkeypatch.setattr(room.store, "_conn", lambda: read_only)
    resp = client.post(f"/api/classes/{code}/reports", json={"report": "1", "nonce": "nonce-0001"})
    assert "readonly" in _refusal(resp, 503) and resp.headers["Retry-After"]
    with pytest.raises(StorageUnavailable, match="retry"):   # the dashboard's in-process call: an LDPError
        room.create_class(GRR_Q)
    assert client.get(f"/api/classes/{code}").status_code == 200   # reads still work


def test_an_unusable_data_directory_is_a_one_line_error(tmp_path):
    from ldp.classroom.errors import StorageUnavailable

    (tmp_path / "file").write_text("not a directory")
    with pytest.raises(StorageUnavailable, match="retry"):
        open_store(database_url="", data_dir=tmp_path / "file" / "data")


# ------------------------------------------------------------------ 4. without JavaScript
def test_the_student_page_explains_that_it_needs_javascript(client):
    resp = client.get("/join/ABCDEF")
    assert resp.status_code == 200
    noscript = resp.text.split("<noscript>")[-1].split("</noscript>")[0]
    assert "needs JavaScript" in noscript and "randomized" in noscript and "on this phone" in noscript


# ------------------------------------------------------------------ 5. class creation and code enumeration
def test_creating_a_class_over_http_needs_the_teacher_secret(client, room):
    assert "teacher secret" in _refusal(client.post("/api/classes", json=GRR_Q), 401)
    _refusal(client.post("/api/classes", json=GRR_Q, headers={"Authorization": "Bearer guess"}), 403)
    _refusal(client.post("/api/classes", content=b"garbage", headers=JSON_HEADERS), 401)   # refused before reading
    assert client.post("/api/classes", json=GRR_Q, headers=_teacher(client)).status_code == 201
    assert room.create_class(GRR_Q)["code"]   # the dashboard, in the same process, needs no secret
    with room.store._tx(False) as run:
        assert run("SELECT COUNT(*) FROM classes")[0][0] == 2


def test_without_the_environment_variable_each_server_generates_its_own_secret(tmp_path, monkeypatch):
    monkeypatch.delenv("LDP_TEACHER_SECRET")
    one = Classroom(open_store(database_url="", data_dir=tmp_path / "one"))
    other = Classroom(open_store(database_url="", data_dir=tmp_path / "two"))
    assert len(one.teacher_secret) >= 32 and one.teacher_secret != other.teacher_secret
    client = _client(one)
    _refusal(client.post("/api/classes", json=GRR_Q, headers={"Authorization": f"Bearer {other.teacher_secret}"}),
             403)
    assert client.post("/api/classes", json=GRR_Q,
                       headers={"Authorization": f"Bearer {one.teacher_secret}"}).status_code == 201


def test_join_codes_cannot_be_enumerated_from_one_address(tmp_path):
    from ldp.classroom.service import CODE_ALPHABET, MISS_BURST, RateLimiter

    clock = [0.0]
    room = Classroom(open_store(database_url="", data_dir=tmp_path),
                     miss_limiter=RateLimiter(rate=0.2, burst=MISS_BURST, clock=lambda: clock[0]))
    scanner, student = _client(room, "203.0.113.7"), _client(room, "198.51.100.2")
    code, _ = _create(student)
    guesses = ["".join(CODE_ALPHABET[(i * 7 + k) % len(CODE_ALPHABET)] for k in range(6)) for i in range(40)]
    statuses = [scanner.get(f"/api/classes/{g}").status_code for g in guesses if g != code]
    assert statuses[:int(MISS_BURST)] == [404] * int(MISS_BURST) and set(statuses[int(MISS_BURST):]) == {429}
    refused = scanner.get(f"/api/classes/{code}")   # no misses left: even a real code tells nothing
    assert "unknown join codes" in _refusal(refused, 429) and int(refused.headers["Retry-After"]) == 5
    _refusal(scanner.post(f"/api/classes/{guesses[0]}/reports", json={"report": "1", "nonce": "nonce-0001"}), 429)
    assert student.get(f"/api/classes/{code}").status_code == 200          # another address is not affected
    clock[0] += 5.0                                                         # one miss back after 1/rate
    assert scanner.get(f"/api/classes/{code}").status_code == 200


def test_lookups_per_address_are_capped(tmp_path):
    from ldp.classroom.service import RateLimiter

    room = Classroom(open_store(database_url="", data_dir=tmp_path),
                     lookup_limiter=RateLimiter(rate=1e-9, burst=5))
    flood, other = _client(room, "203.0.113.7"), _client(room, "198.51.100.2")
    code, _ = _create(other)
    assert [flood.get(f"/api/classes/{code}").status_code for _ in range(7)] == [200] * 5 + [429] * 2
    resp = flood.get(f"/api/classes/{code}")
    _refusal(resp, 429)
    assert resp.headers["Retry-After"]
    assert other.get(f"/api/classes/{code}").status_code == 200


# ------------------------------------------------------------------ 6. one client cannot starve the class
def _report(client, code, nonce, device=None):
    headers = {"X-LDP-Device": device} if device else {}
    return client.post(f"/api/classes/{code}/reports", json={"report": "1", "nonce": nonce}, headers=headers)


def test_a_flooding_client_cannot_exhaust_the_class_budget(tmp_path):
    """Four flooding clients on one address (devices rotating or absent) against a class budget of 40 reports; an
    honest student elsewhere still gets a 201 — before, the flood took the whole class budget and the student a 429."""
    from ldp.classroom.service import RateLimiter

    clock = [0.0]
    room = Classroom(open_store(database_url="", data_dir=tmp_path),
                     limiter=RateLimiter(rate=1e-9, burst=40, clock=lambda: clock[0]),
                     address_limiter=RateLimiter(rate=1e-9, burst=20, clock=lambda: clock[0]),
                     device_limiter=RateLimiter(rate=1e-9, burst=3, clock=lambda: clock[0]))
    flood, honest = _client(room, "203.0.113.7"), _client(room, "198.51.100.2")
    code, auth = _create(honest)
    statuses = [_report(flood, code, f"flood-{w}-{i:04d}", device=[f"device-{w:04d}", None][w % 2]).status_code
                for i in range(30) for w in range(4)]
    assert statuses.count(201) <= 20 and statuses.count(429) >= 100
    refused = _report(flood, code, "flood-last-0001", device="device-fresh-01")
    assert "network address" in _refusal(refused, 429) and refused.headers["Retry-After"]
    assert _report(honest, code, "honest-0001", device="honest-device-1").status_code == 201
    assert honest.get(f"/api/classes/{code}/summary", headers=auth).json()["reports"] == statuses.count(201) + 1


def test_one_device_is_limited_on_its_own(tmp_path):
    from ldp.classroom.service import RateLimiter

    room = Classroom(open_store(database_url="", data_dir=tmp_path),
                     device_limiter=RateLimiter(rate=1e-9, burst=3))
    client = _client(room)
    code, _ = _create(client)
    assert [_report(client, code, f"one-{i:04d}", device="device-one-1").status_code for i in range(4)] == \
        [201, 201, 201, 429]
    assert "this phone" in _refusal(_report(client, code, "one-0009", device="device-one-1"), 429)
    assert _report(client, code, "two-0001", device="device-two-1").status_code == 201   # a neighbour's phone


@pytest.mark.parametrize("report", [99.0, "-4.5", "4.0829882", "0.1", "0.123456789", "1e-300"])
def test_a_pm_report_no_randomizer_produces_is_422(client, report):
    from ldp.classroom import QuestionSpec, mechanism_of, randomize

    body = {"question": "Hours?", "range": [0, 10], "mechanism": "pm", "epsilon": 1.0}
    code, auth = _create(client, body)
    assert mechanism_of(QuestionSpec.from_dict(body)).s < 4.1
    reason = _refusal(client.post(f"/api/classes/{code}/reports", json={"report": report, "nonce": "nonce-0001"}),
                      422)
    assert "grid" in reason or "outside" in reason
    for i in range(20):   # the randomizer's reports (on the grid, within ±s) are all accepted
        ok = client.post(f"/api/classes/{code}/reports", json={"report": randomize(QuestionSpec.from_dict(body), 7.0),
                                                               "nonce": f"nonce-{i:04d}x"})
        assert ok.status_code == 201, ok.text
    assert client.post(f"/api/classes/{code}/reports", json={"report": "0.5", "nonce": "nonce-half"}).status_code \
        == 201   # 0.5 is a grid point (step 2^-18)
    _refusal(client.post(f"/api/classes/{code}/reports", json={"report": "abc", "nonce": "nonce-abc1"}), 400)
