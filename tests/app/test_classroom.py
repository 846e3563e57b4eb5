"""AppTest: the Classroom page creates a class from its form, shows the join code and link, counts the reports
students send (through the same ``ldp.classroom`` functions the HTTP routes call), reveals a show of hands, closes
the question, opens the next one and deletes the class — on a SQLite store in a temporary data directory."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("streamlit")
pytest.importorskip("segno")
from streamlit.testing.v1 import AppTest  # noqa: E402

from ldp.classroom import QuestionSpec, randomize, service  # noqa: E402

APP = str(Path(__file__).resolve().parents[2] / "app.py")
PAGE = "views/classroom.py"


@pytest.fixture
def room(tmp_path, monkeypatch):
    monkeypatch.setenv("LDP_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("LDP_DATABASE_URL", raising=False)
    service.default_classroom.cache_clear()
    yield service.default_classroom()
    service.default_classroom.cache_clear()


def _page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page(PAGE)
    at.run()
    assert not at.exception, at.exception
    return at


def _text(at: AppTest) -> str:
    return " ".join(e.value for kind in ("markdown", "info", "caption") for e in getattr(at, kind))


def test_a_class_from_creation_to_deletion(room):
    at = _page()
    at.text_input(key="cls_new_q").set_value("Tea or coffee?")
    at.text_area(key="cls_new_l").set_value("Tea\nCoffee\nNeither")
    at.selectbox(key="cls_new_m").set_value("oue")
    next(b for b in at.button if b.label == "Create class").click()
    at.run()
    assert not at.exception, at.exception
    active = at.session_state["classroom_active"]
    code, token = active["code"], active["token"]
    assert f"Join code **{code}**" in _text(at) and f"/join/{code}" in _text(at)
    assert "No reports yet" in _text(at)

    info = room.public_info(code)
    spec = QuestionSpec.from_dict({"question": info["question"], "labels": info["labels"],
                                   "mechanism": info["mechanism"], "epsilon": info["epsilon"]})
    for i in range(7):
        room.submit(code, {"report": randomize(spec, "Tea"), "nonce": f"student-{i:03d}"})
    at.run()
    assert not at.exception, at.exception
    assert next(m for m in at.metric if m.label == "Reports").value == "7"
    assert "With 7 students the error is ±" in _text(at)

    for i, hands in enumerate((5, 2, 0)):
        at.number_input(key=f"cls_hand_{i}").set_value(hands)
    next(b for b in at.button if b.label == "Reveal").click()
    at.run()
    assert room.summary(code, token)["truth"] == {"Tea": 5 / 7, "Coffee": 2 / 7, "Neither": 0.0}

    next(b for b in at.button if b.key == "cls_close").click()
    at.run()
    assert next(m for m in at.metric if m.label == "Status").value == "closed"
    assert room.public_info(code)["open"] is False

    at.text_input(key="cls_next_q").set_value("Hours of sleep?")
    at.radio(key="cls_next_kind").set_value("A number")
    at.run()
    at.text_input(key="cls_next_q").set_value("Hours of sleep?")
    next(b for b in at.button if b.label.startswith("Open next question")).click()
    at.run()
    assert not at.exception, at.exception
    nxt = room.public_info(code)
    assert nxt["question_number"] == 2 and nxt["mechanism"] == "pm" and nxt["open"]

    next(b for b in at.button if b.key == "cls_delete").click()
    at.run()
    assert "classroom_active" not in at.session_state
    assert "New class" in " ".join(t.label for t in at.tabs)


def test_a_bad_question_says_what_to_change(room):
    at = _page()
    at.text_area(key="cls_new_l").set_value("Only one")
    next(b for b in at.button if b.label == "Create class").click()
    at.run()
    assert not at.exception
    assert any("labels must be a list of 2 to" in e.value for e in at.error)
