"""The service beyond the HTTP contract: two app instances on one store (the 1 s cache of the current question
never lets a report into a closed question, nor refuses one for the newly opened question), the rate limiter's
refill, and the join link and its QR code."""

from __future__ import annotations

import pytest

from ldp.classroom import Classroom, open_store
from ldp.classroom.errors import ClassClosed
from ldp.classroom.links import join_url, qr_png, reachable_base
from ldp.classroom.service import RateLimiter
from ldp.core.errors import LDPError

Q = {"question": "q", "labels": ["a", "b", "c"], "mechanism": "grr", "epsilon": 1.0}


def test_two_instances_on_one_store_agree_despite_the_cache(tmp_path):
    store = open_store(database_url="", data_dir=tmp_path)
    clock = [0.0]
    one = Classroom(store, clock=lambda: clock[0])
    other = Classroom(store, clock=lambda: clock[0])
    created = one.create_class(Q)
    code, token = created["code"], created["teacher_token"]
    q1 = other.public_info(code)["question_id"]                   # `other` now caches question 1 as open
    one.close(code, token)
    with pytest.raises(ClassClosed):                                # the INSERT refuses it, whatever the cache says
        other.submit(code, {"report": "1", "nonce": "nonce-0001"})
    one.next_question(code, token, {**Q, "labels": ["x", "y"]})
    q2 = one.public_info(code)["question_id"]
    assert q2 != q1
    # a student who already has question 2 is not refused by an instance still caching question 1
    assert other.submit(code, {"report": "0", "nonce": "nonce-0002", "question": q2})["question_id"] == q2
    with pytest.raises(ClassClosed, match="earlier question"):
        other.submit(code, {"report": "0", "nonce": "nonce-0003", "question": q1})
    clock[0] += 2.0                                                  # past the cache's 1 s: `other` sees question 2
    assert other.public_info(code)["question_id"] == q2
    assert one.summary(code, token)["reports"] == 1


def test_rate_limiter_refills_at_its_rate():
    clock = [0.0]
    limiter = RateLimiter(rate=10.0, burst=2, clock=lambda: clock[0])
    assert [limiter.allow("A") for _ in range(3)] == [True, True, False]
    clock[0] += 0.1                                                  # one token back after 1/rate seconds
    assert [limiter.allow("A") for _ in range(2)] == [True, False]
    assert limiter.allow("B")


def test_join_link_and_qr_code():
    assert join_url("http://10.0.0.5:8501/", "ABCDEF") == "http://10.0.0.5:8501/join/ABCDEF"
    assert reachable_base("lecture.example.org:8501") == "http://lecture.example.org:8501"
    base = reachable_base("localhost:8501")
    assert base.endswith(":8501") and base.startswith("http://")
    with pytest.raises(LDPError, match="http://host:port"):
        join_url("lecture hall", "ABCDEF")
    png = qr_png("http://10.0.0.5:8501/join/ABCDEF")
    assert png[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_flood_from_one_device_is_flagged_and_dropped(tmp_path, backend, request):
    """Issue "hostile room" item 12: 500 forged reports moved a 50-student class's estimate. Each report now
    carries the class's pseudonym of its sender (address and device token, neither stored): the teacher sees
    reports per device, a device with more than a fifth of them is flagged, and dropping it restores the honest
    class's reports. In-process reports (no address) are the dashboard's own."""
    url = request.getfixturevalue("postgres_url") if backend == "postgres" else ""
    room = Classroom(open_store(database_url=url, data_dir=tmp_path))
    created = room.create_class({"question": "q", "range": [0, 10], "mechanism": "pm", "epsilon": 1.0})
    code, token = created["code"], created["teacher_token"]
    mech_s = room.public_info(code)["parameters"]["s"]
    honest = 50
    for i in range(honest):  # fifty phones, one report each (a report on the PM grid: 0 is a grid point)
        room.submit(code, {"report": 0.0, "nonce": f"honest-{i:04d}"}, address=f"10.0.0.{i}", device=f"dev{i:05d}x")
    room.device_limiter.rate = room.device_limiter.burst = 10**6  # let the flood through the rate limits
    room.limiter.rate = room.limiter.burst = 10**6
    for i in range(200):
        room.submit(code, {"report": 0.0 if i % 2 else 0.5, "nonce": f"flood-{i:05d}"}, address="10.0.0.99",
                    device="attacker01")
    listing = room.clients(code, token)
    assert listing["reports"] == honest + 200 and listing["surge"]
    top = listing["clients"][0]
    assert top["reports"] == 200 and top["surge"] and all(not r["surge"] for r in listing["clients"][1:])
    assert len(top["id"]) == 12 and "10.0.0.99" not in top["id"] and "attacker01" not in top["id"]
    assert room.drop_client(code, token, top["id"]) == 200
    after = room.clients(code, token)
    assert after["reports"] == honest and not after["surge"]
    assert room.summary(code, token)["reports"] == honest
    with pytest.raises(LDPError):
        room.clients(code, "wrong-token")
    assert mech_s > 0.5  # 0.5 was a valid report of this mechanism
