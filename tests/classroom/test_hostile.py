"""A hostile room (issue: "a classroom that withstands a hostile room"): cross-site posts, hostile bodies, storage
failures, strangers creating classes and enumerating codes, one client flooding the class. Every refusal is a JSON
object with a one-line ``error``; nothing answers a plain-text 500."""

from __future__ import annotations

import pytest

pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx: pip install -r requirements-dev.txt")
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
    secret = getattr(client.app.routes[0].endpoint, "__ldp_secret__", None)
    return {"Authorization": f"Bearer {secret}"} if secret else {}


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
