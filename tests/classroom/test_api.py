"""The classroom's HTTP contract, driven through Starlette's TestClient on the real routes (no server): the
status codes and one-line reasons, the rules (teacher token, one report per nonce, validation by the mechanism,
size cap, rate limit, closed questions), two classes at once, what is stored, and the estimate itself."""

from __future__ import annotations

import math
import sqlite3

import numpy as np
import pytest

pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx: pip install -r requirements-dev.txt")
from starlette.applications import Starlette  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from ldp.classroom import ByteStreamRandom, Classroom, QuestionSpec, mechanism_of, open_store, randomize  # noqa: E402
from ldp.classroom.http import MAX_BODY_BYTES, classroom_routes  # noqa: E402
from ldp.classroom.service import RateLimiter, csv_cell, hash_token  # noqa: E402

TEACHER = {"Authorization": "Bearer harness-teacher-secret"}   # conftest.py: $LDP_TEACHER_SECRET in every test
GRR_Q = {"question": "Favourite season?", "labels": ["spring", "summer", "autumn", "winter"], "mechanism": "grr",
         "epsilon": 1.0}


@pytest.fixture(params=["sqlite", "postgres"])
def classroom(request, tmp_path) -> Classroom:
    """Every contract test runs on both stores: SQLite in a temporary data directory, and a throwaway Postgres server
    (conftest.py; skipped with the reason when Postgres is not installed)."""
    if request.param == "postgres":
        return Classroom(open_store(database_url=request.getfixturevalue("postgres_url")))
    return Classroom(open_store(database_url="", data_dir=tmp_path))


@pytest.fixture
def client(classroom) -> TestClient:
    return TestClient(Starlette(routes=classroom_routes(classroom)))


@pytest.fixture
def sqlite_client(tmp_path) -> TestClient:
    return TestClient(Starlette(routes=classroom_routes(Classroom(open_store(database_url="", data_dir=tmp_path)))))


def _create(client, body=GRR_Q) -> tuple[str, dict]:
    resp = client.post("/api/classes", json=body, headers=TEACHER)
    assert resp.status_code == 201, resp.text
    out = resp.json()
    return out["code"], {"Authorization": f"Bearer {out['teacher_token']}"}


def _post(client, code, report, nonce, **extra):
    return client.post(f"/api/classes/{code}/reports", json={"report": report, "nonce": nonce, **extra})


def test_round_trip_for_every_mechanism(client):
    bodies = [GRR_Q, {**GRR_Q, "mechanism": "oue"}, {**GRR_Q, "mechanism": "olh", "epsilon": 2.0},
              {"question": "Hours of sleep?", "range": [0, 12], "mechanism": "pm", "epsilon": 2.0}]
    for body in bodies:
        code, auth = _create(client, body)
        info = client.get(f"/api/classes/{code}").json()
        assert info["mechanism"] == body["mechanism"] and info["open"] and "parameters" in info
        spec = QuestionSpec.from_dict(body)
        answers = ["summer", "winter", "spring"] if spec.labels else [7.5, 8.0, 6.0]
        for i, answer in enumerate(answers * 4):
            resp = _post(client, code, randomize(spec, answer), f"nonce-{i:04d}", question=info["question_id"])
            assert resp.status_code == 201, resp.text
        summary = client.get(f"/api/classes/{code}/summary", headers=auth).json()
        assert summary["reports"] == 12
        assert set(summary["estimate"]) == (set(spec.labels) if spec.labels else {"mean"})
        assert summary["error"] > 0 and summary["intervals"]


def test_teacher_token_guards_every_teacher_route(client):
    code, auth = _create(client)
    other_code, other_auth = _create(client)
    for method, path in [("get", "summary"), ("post", "close"), ("get", "reports.csv")]:
        url = f"/api/classes/{code}/{path}"
        assert getattr(client, method)(url).status_code == 401                      # a student: no token
        assert getattr(client, method)(url, headers={"Authorization": "Bearer nope"}).status_code == 403
        assert getattr(client, method)(url, headers=other_auth).status_code == 403  # another class's teacher
    assert client.delete(f"/api/classes/{code}", headers={"Authorization": "Basic x"}).status_code == 401
    assert client.post(f"/api/classes/{code}/reveal", json={"truth": None}).status_code == 401
    assert client.get(f"/api/classes/{code}/summary", headers=auth).status_code == 200
    assert client.get(f"/api/classes/{other_code}/summary", headers=other_auth).status_code == 200


def test_two_classes_see_only_their_own_reports(client):
    a, auth_a = _create(client)
    b, auth_b = _create(client, {**GRR_Q, "mechanism": "oue"})
    for i in range(5):
        assert _post(client, a, str(i % 4), f"same-nonce-{i}").status_code == 201
    for i in range(3):  # the same nonces in another class are other students' reports
        assert _post(client, b, "0101", f"same-nonce-{i}").status_code == 201
    assert client.get(f"/api/classes/{a}/summary", headers=auth_a).json()["reports"] == 5
    sb = client.get(f"/api/classes/{b}/summary", headers=auth_b).json()
    assert sb["reports"] == 3 and sb["histogram"] == {"spring": 0, "summer": 3, "autumn": 0, "winter": 3}
    assert _post(client, b, "2", "x-nonce-01").status_code == 400  # a GRR report is not an OUE report


@pytest.mark.parametrize(("mechanism", "bad"), [
    ("grr", "4"), ("grr", "-1"), ("grr", "1 2"), ("grr", "abc"), ("grr", True), ("grr", None), ("grr", [1]),
    ("oue", "010"), ("oue", "01011"), ("oue", "01a0"), ("oue", 101),
    ("olh", "0 1 1"), ("olh", "1 1 9"), ("olh", "1 1"), ("olh", "1 1 1 1"),
    ("pm", "nan"), ("pm", "inf"), ("pm", "0.1 0.2"), ("grr", "1\n2"), ("grr", "1" * 100),
])
def test_malformed_reports_are_refused_with_one_line(client, mechanism, bad):
    body = GRR_Q if mechanism != "pm" else {"question": "x", "range": [0, 1], "mechanism": "pm", "epsilon": 1.0}
    code, auth = _create(client, {**body, "mechanism": mechanism})
    resp = _post(client, code, bad, "nonce-bad-1")
    assert resp.status_code == 400, resp.text
    assert "\n" not in resp.json()["error"] and resp.json()["error"]
    assert client.get(f"/api/classes/{code}/summary", headers=auth).json()["reports"] == 0


def test_duplicate_nonce_size_cap_and_bad_bodies(client):
    code, auth = _create(client)
    assert _post(client, code, "1", "nonce-0001").status_code == 201
    dup = _post(client, code, "2", "nonce-0001")
    assert dup.status_code == 409 and "nonce" in dup.json()["error"]
    big = client.post(f"/api/classes/{code}/reports", content=b'{"report": "1", "nonce": "' + b"a" * MAX_BODY_BYTES
                      + b'"}', headers={"Content-Type": "application/json"})
    assert big.status_code == 413
    assert client.post(f"/api/classes/{code}/reports", content=b"{not json",
                       headers={"Content-Type": "application/json"}).status_code == 400
    assert client.post(f"/api/classes/{code}/reports", content=b"{not json").status_code == 415  # not declared JSON
    assert _post(client, code, "1", "short").status_code == 400                   # nonce too short
    assert _post(client, code, "1", "nonce-0002", answer="summer").status_code == 400   # no other field accepted
    assert client.get("/api/classes/ZZZZZZ").status_code == 404
    assert client.get("/api/classes/../etc").status_code == 404
    assert client.get(f"/api/classes/{code}/summary", headers=auth).json()["reports"] == 1


def test_closed_question_accepts_nothing_and_the_next_one_opens(client):
    code, auth = _create(client)
    q1 = client.get(f"/api/classes/{code}").json()["question_id"]
    assert _post(client, code, "1", "nonce-0001", question=q1).status_code == 201
    assert client.post(f"/api/classes/{code}/close", headers=auth).status_code == 200
    assert client.get(f"/api/classes/{code}").json()["open"] is False
    assert _post(client, code, "1", "nonce-0002").status_code == 409
    nxt = client.post(f"/api/classes/{code}/questions", headers=auth,
                      json={"question": "Coffee?", "labels": ["yes", "no"], "mechanism": "oue", "epsilon": 2})
    assert nxt.status_code == 201 and nxt.json()["question_number"] == 2
    assert _post(client, code, "1", "nonce-0003", question=q1).status_code == 409   # randomized for question 1
    assert _post(client, code, "10", "nonce-0003").status_code == 201
    summary = client.get(f"/api/classes/{code}/summary", headers=auth).json()
    assert summary["question"] == "Coffee?" and summary["reports"] == 1


def test_rate_limit_per_class(tmp_path):
    clock = [0.0]
    room = Classroom(open_store(database_url="", data_dir=tmp_path),
                     limiter=RateLimiter(rate=1.0, burst=3, clock=lambda: clock[0]))
    client = TestClient(Starlette(routes=classroom_routes(room)))
    a, _ = _create(client)
    b, _ = _create(client)
    assert [_post(client, a, "1", f"nonce-a{i:03d}").status_code for i in range(4)] == [201, 201, 201, 429]
    assert _post(client, b, "1", "nonce-b001").status_code == 201   # another class has its own bucket
    clock[0] += 1.0
    assert _post(client, a, "1", "nonce-a100").status_code == 201


def test_reveal_export_and_delete(client, classroom):
    code, auth = _create(client, {**GRR_Q, "question": "=HYPERLINK(\"http://x\")", "labels": ["+1", "-1", "@a", "b"]})
    assert _post(client, code, "2", "-nonce-0001").status_code == 201
    resp = client.post(f"/api/classes/{code}/reveal", headers=auth, json={"truth": {"+1": 3, "-1": 1}})
    assert resp.status_code == 200
    summary = client.get(f"/api/classes/{code}/summary", headers=auth).json()
    assert summary["truth"] == {"+1": 0.75, "-1": 0.25, "@a": 0.0, "b": 0.0}
    assert client.post(f"/api/classes/{code}/reveal", headers=auth, json={"truth": {"zz": 1}}).status_code == 400
    csv_text = client.get(f"/api/classes/{code}/reports.csv", headers=auth).text
    row = csv_text.splitlines()[1]
    assert row.startswith("1,'=HYPERLINK") or row.startswith('1,"\'=HYPERLINK')
    assert ",'-nonce-0001,2," in row
    assert [csv_cell(x) for x in ("=1", "+1", "-1", "@1", "a=1", 3)] == ["'=1", "'+1", "'-1", "'@1", "a=1", 3]
    assert client.delete(f"/api/classes/{code}", headers=auth).status_code == 200
    assert client.get(f"/api/classes/{code}").status_code == 404
    with classroom.store._tx(False) as run:
        assert run("SELECT COUNT(*) FROM reports r JOIN classes c ON c.id = r.class_id WHERE c.code = :c",
                   c=code)[0][0] == 0
        assert run("SELECT COUNT(*) FROM classes WHERE code = :c", c=code)[0][0] == 0


def test_only_report_nonce_and_timestamp_are_stored_and_the_token_is_hashed(sqlite_client, tmp_path):
    client = sqlite_client
    resp = client.post("/api/classes", json=GRR_Q, headers=TEACHER)
    code, token = resp.json()["code"], resp.json()["teacher_token"]
    assert _post(client, code, "3", "nonce-0001").status_code == 201
    db = sqlite3.connect(tmp_path / "classroom.sqlite3")
    columns = {row[1] for row in db.execute("PRAGMA table_info(reports)")}
    # "client" is the class's keyed pseudonym of the sender (address and device token), for the teacher's
    # per-device view and dropping a flood (item 12); neither the address nor a token is stored
    assert columns == {"id", "class_id", "question_id", "nonce", "report", "created", "client"}
    (pseudonym,) = db.execute("SELECT client FROM reports").fetchone()
    assert len(pseudonym) == 12 and all(ch in "0123456789abcdef" for ch in pseudonym)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("SELECT token_hash FROM classes").fetchone()[0] == hash_token(token)
    db.close()
    raw = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert token.encode() not in raw and b"testclient" not in raw   # neither the token nor the client's address


def test_the_class_estimate_is_unbiased(tmp_path):
    """600 students answer from f = (0.5, 0.3, 0.15, 0.05) through the real randomizer (seeded bytes). MI's error
    has sd σ_v = √Var[f̂(v)] (closed form, Wang et al. 2017 Eq. (2)); every value within 4σ_v (a false failure has
    probability < 4·6.3e-5) and the 95 % intervals are reported around the estimate."""
    classroom = Classroom(open_store(database_url="", data_dir=tmp_path), limiter=RateLimiter(rate=1e9, burst=1e9))
    out = classroom.create_class(GRR_Q)
    code, token = out["code"], out["teacher_token"]
    spec = QuestionSpec.from_dict(GRR_Q)
    f = np.array([0.5, 0.3, 0.15, 0.05])
    n = 600
    answers = np.repeat(np.arange(4), np.round(f * n).astype(int))
    rng = np.random.default_rng(2024)
    src = ByteStreamRandom(lambda k: rng.bytes(k))
    for i, a in enumerate(answers):
        classroom.submit(code, {"report": randomize(spec, int(a), src), "nonce": f"student-{i:05d}"})
    summary = classroom.summary(code, token)
    est = np.array([summary["estimate"][label] for label in spec.labels])
    sd = np.sqrt(mechanism_of(spec).variance(f, n))
    assert np.all(np.abs(est - f) < 4 * sd), (est, f, sd)
    consistent = np.array(list(summary["estimates"]["norm-sub"].values()))
    assert np.all(consistent >= 0) and math.isclose(consistent.sum(), 1.0)
    assert summary["error"] == pytest.approx(1.959964 * math.sqrt(mechanism_of(spec).approximate_variance(n)))
    assert all(lo < hi for lo, hi in summary["intervals"].values())
