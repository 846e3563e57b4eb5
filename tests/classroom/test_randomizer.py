"""The browser's randomizer (ldp/classroom/static/randomizer.js) and the Python one are the same function: both
are fed the same random bytes and must give the same report and consume the same number of bytes. The Python side
is the mechanisms' own ``perturb`` on a :class:`ByteStreamRandom`, so this also pins the JavaScript to
``ldp.mechanisms``. The JavaScript runs in node (present on the CI image); tests/e2e/test_classroom_browser.py runs
it in Chromium too."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from ldp.classroom import ByteStreamRandom, QuestionSpec, mechanism_of, randomize
from ldp.core.errors import LDPError

JS = Path(__file__).resolve().parents[2] / "ldp" / "classroom" / "static" / "randomizer.js"
LABELS5 = ["A", "B", "C", "D", "E"]
LABELS8 = [f"L{i}" for i in range(8)]
SPECS = [
    {"question": "q", "labels": LABELS5, "mechanism": "grr", "epsilon": 1.0},
    {"question": "q", "labels": ["yes", "no"], "mechanism": "grr", "epsilon": 0.3},
    {"question": "q", "labels": LABELS8, "mechanism": "oue", "epsilon": 1.5},
    {"question": "q", "labels": LABELS5, "mechanism": "olh", "epsilon": 1.0},
    {"question": "q", "labels": LABELS8, "mechanism": "olh", "epsilon": 3.0},
    {"question": "q", "range": [0, 120], "mechanism": "pm", "epsilon": 1.0},
    {"question": "q", "range": [-5.5, 7.25], "mechanism": "pm", "epsilon": 4.0},
]

NODE_RUNNER = """
const R = require(process.argv[2]);
const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const out = cases.map((c) => {
  const src = R.fixedSource(Uint8Array.from(Buffer.from(c.bytes, 'hex')));
  const report = R.randomize(c.mechanism, c.params, c.answer, src);
  return {report: report, consumed: src.consumed};
});
process.stdout.write(JSON.stringify(out));
"""


def _cases(seed: int = 14, per_spec: int = 300) -> list[dict]:
    """Random bytes per case, plus crafted prefixes: a Bernoulli tie (the first byte equal to ⌊256 p⌋) and a
    rejected uint32 (0xFFFFFFFF is rejected for every span that does not divide 2^32)."""
    rng = np.random.default_rng(seed)
    cases = []
    for body in SPECS:
        spec = QuestionSpec.from_dict(body)
        from ldp.classroom.model import randomizer_parameters
        params = randomizer_parameters(spec)
        tie_p = params.get("keep", params.get("p", 0.5)) if spec.mechanism != "oue" else params["q"]
        for i in range(per_spec):
            buf = bytearray(rng.integers(0, 256, size=400, dtype=np.uint8).tobytes())
            if i % 10 == 1:
                buf[0] = int(256 * tie_p)           # the first Bernoulli byte ties
            if i % 10 == 2:
                buf[4:8] = b"\xff\xff\xff\xff"       # the second uint32 draw is rejected
            if spec.labels is not None:
                answer = int(rng.integers(0, len(spec.labels)))
            else:
                lo, hi = spec.range
                answer = [lo, hi, float(rng.uniform(lo, hi))][i % 3]
            cases.append({"spec": body, "mechanism": spec.mechanism, "params": params, "answer": answer,
                          "bytes": bytes(buf).hex()})
    return cases


def _python(case: dict) -> tuple[str, int]:
    spec = QuestionSpec.from_dict(case["spec"])
    src = ByteStreamRandom(bytes.fromhex(case["bytes"]))
    return randomize(spec, case["answer"], src), src.consumed


def test_javascript_and_python_give_the_same_reports_from_the_same_bytes(tmp_path):
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the JavaScript randomizer is compared in Chromium by tests/e2e only")
    cases = _cases()
    runner = tmp_path / "run.js"
    runner.write_text(NODE_RUNNER)
    proc = subprocess.run([node, str(runner), str(JS)], input=json.dumps(cases), capture_output=True, text=True,
                          timeout=60, check=True)
    js = json.loads(proc.stdout)
    ties = 0
    for case, got in zip(cases, js, strict=True):
        report, consumed = _python(case)
        if case["mechanism"] == "pm":
            assert float(got["report"]) == float(report), case
        else:
            assert got["report"] == report, case
        assert got["consumed"] == consumed, case
        ties += consumed > {"grr": 8, "oue": 4 * 5, "olh": 16, "pm": 16}[case["mechanism"]]
    assert ties > 50  # the tie and rejection branches were exercised on both sides


def test_python_randomizer_is_the_mechanism_on_bytes():
    """randomize() is the mechanism's perturb: the report parses back, and byte use follows the documented rules."""
    spec = QuestionSpec.from_dict(SPECS[0])
    mech = mechanism_of(spec)
    src = ByteStreamRandom(bytes([0] * 8))  # byte 0 < ⌊256 p⌋: keep; then shift drawn from u32 = 0 → 1
    assert randomize(spec, "C", src) == "2" and src.consumed == 8
    assert mech.parse_reports([randomize(spec, "A")]).shape == (1,)
    with pytest.raises(LDPError, match="ran out"):
        randomize(spec, "A", ByteStreamRandom(b"\x00\x00"))


def test_uniform_integers_reject_the_biased_tail():
    # span 3: u = 2^32 − 1 is rejected (2^32 mod 3 = 1), the next word 5 gives 5 mod 3 = 2
    src = ByteStreamRandom(b"\xff\xff\xff\xff" + (5).to_bytes(4, "little"))
    assert src.integers(0, 3) == 2 and src.consumed == 8
    src = ByteStreamRandom((2**32 - 1).to_bytes(4, "little"))
    assert src.integers(0, 4) == 3  # span 4 divides 2^32: nothing rejected
    src = ByteStreamRandom(bytes(4) + bytes([0xFF] * 4))
    assert src.random() == (2**21 - 1) * 2**32 / 2**53
