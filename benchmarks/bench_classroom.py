"""Live classroom under load, on the real server (``serve.py``, what ``./dev app`` starts), localhost only.

Table 1 — 200 simulated students submitting concurrently: each round the teacher opens a question, all students
are released at once by a barrier, each fetches the question, randomizes in Python (the same function as the
browser's) and POSTs its report; a 429 or a lost connection is retried with the *same* nonce (a 409 "nonce already
used" on a retry means the first attempt was stored). Checks that every accepted report is counted exactly once
(the summary's count and the CSV export's nonces against the students' accepted nonces) and prints the POST
latency percentiles; target p95 ≤ 200 ms on 2 cores. Rows: SQLite (default) and, when Debian's Postgres binaries
are installed, Postgres (a throwaway server).

Table 2 — the server SIGKILLed mid-class and restarted: reports acknowledged before the kill, stored after, lost.

    .venv/bin/python benchmarks/bench_classroom.py [--students 200] [--rounds 5] [--quick] [--no-postgres]
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "tests" / "classroom"))

import classroom_harness as h  # noqa: E402
from test_restart import kill_and_restart  # noqa: E402

from ldp.classroom import ByteStreamRandom, QuestionSpec, randomize  # noqa: E402

P95_TARGET_MS = 200.0
# The teacher's pause between questions: the class's rate-limit bucket (500 reports, 200/s) refills in 2.5 s, so
# each round starts as a fresh class would (without it, back-to-back rounds of 200 exceed 200 reports/s: 429s).
ROUND_PAUSE_S = 3.0
QUESTION = {"question": "Which season do you like best?", "labels": ["spring", "summer", "autumn", "winter"],
            "mechanism": "oue", "epsilon": 1.0}


async def _http(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, method: str, path: str,
                body: object | None = None) -> tuple[int, object]:
    """One HTTP/1.1 request on a kept-alive connection (as a phone's browser does), JSON in and out."""
    data = json.dumps(body).encode() if body is not None else b""
    writer.write(f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                 f"Content-Length: {len(data)}\r\n\r\n".encode() + data)
    await writer.drain()
    status = int((await reader.readline()).split()[1])
    length = 0
    while (line := await reader.readline()) not in (b"\r\n", b""):
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    return status, json.loads(await reader.readexactly(length)) if length else None


async def _student(port: int, code: str, sid: int, rnd: int, go: asyncio.Event, out: dict) -> None:
    """A phone: opens its connection, fetches the question, randomizes locally, POSTs the report; retries a 429 or a
    lost connection with the same nonce."""
    rng = np.random.default_rng([sid, rnd])
    await go.wait()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        status, info = await _http(reader, writer, "GET", f"/api/classes/{code}")
        if status != 200:
            out.update(error=f"GET {status}")
            return
        spec = QuestionSpec.from_dict({k: info[k] for k in ("question", "labels", "mechanism", "epsilon")})
        report = randomize(spec, int(rng.integers(0, len(spec.labels))), ByteStreamRandom())
        nonce = f"s{sid:04d}-r{rnd}-{rng.integers(1 << 40):x}"
        body = {"report": report, "nonce": nonce, "question": info["question_id"]}
        latencies, retries, limited = [], 0, 0
        for attempt in range(20):
            t0 = time.perf_counter()
            try:
                status, resp = await _http(reader, writer, "POST", f"/api/classes/{code}/reports", body)
            except (OSError, asyncio.IncompleteReadError, ValueError, IndexError):
                retries += 1
                writer.close()
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                continue
            latencies.append(time.perf_counter() - t0)
            if status == 201 or (status == 409 and attempt > 0 and "nonce" in str(resp)):
                out.update(nonce=nonce, question=info["question_id"], latencies=latencies, retries=retries,
                           limited=limited)
                return
            if status == 429:
                limited += 1
                await asyncio.sleep(0.2)
                continue
            out.update(error=f"POST {status}: {resp}", latencies=latencies)
            return
        out.update(error="gave up after 20 attempts", latencies=latencies)
    finally:
        writer.close()


async def _round(port: int, code: str, students: int, rnd: int) -> list[dict]:
    go = asyncio.Event()
    outs = [{} for _ in range(students)]
    tasks = [asyncio.create_task(_student(port, code, s, rnd, go, outs[s])) for s in range(students)]
    await asyncio.sleep(0.05)
    go.set()   # every student at once
    await asyncio.gather(*tasks)
    return outs


def load_run(url: str, students: int, rounds: int) -> dict:
    """``rounds`` questions, each answered by ``students`` concurrent phones (one asyncio client: its own CPU use
    stays small, so the latencies are the server's)."""
    port = int(url.rsplit(":", 1)[1])
    # warm-up (not measured): the first requests open the store and import the estimators
    _, warm = h.call("POST", f"{url}/api/classes", QUESTION, token=h.TEACHER_SECRET)
    h.call("POST", f"{url}/api/classes/{warm['code']}/reports", {"report": "0000", "nonce": "warm-up-1"})
    h.call("GET", f"{url}/api/classes/{warm['code']}/summary", token=warm["teacher_token"])
    status, created = h.call("POST", f"{url}/api/classes", QUESTION, token=h.TEACHER_SECRET)
    code, token = created["code"], created["teacher_token"]
    results: list[dict] = []
    wall = 0.0
    for rnd in range(rounds):
        if rnd:
            time.sleep(ROUND_PAUSE_S)
            h.call("POST", f"{url}/api/classes/{code}/questions", QUESTION, token=token)
        t0 = time.perf_counter()
        outs = asyncio.run(_round(port, code, students, rnd))
        wall += time.perf_counter() - t0
        _, summary = h.call("GET", f"{url}/api/classes/{code}/summary", token=token)
        lat_round = np.array([x for o in outs for x in o.get("latencies", [])]) * 1000
        print(f"  round {rnd + 1}: p50 {np.percentile(lat_round, 50):.0f} ms, p95 "
              f"{np.percentile(lat_round, 95):.0f} ms, load average {os.getloadavg()[0]:.1f}", file=sys.stderr)
        accepted = [o for o in outs if "nonce" in o]
        for o in outs:
            o["round_count_ok"] = summary["reports"] == len(accepted)
        results += outs
    _, text = h.call("GET", f"{url}/api/classes/{code}/reports.csv", token=token)
    stored = [row["nonce"] for row in csv.DictReader(io.StringIO(text))]
    accepted = [o["nonce"] for o in results if "nonce" in o]
    lat = np.array([x for o in results for x in o.get("latencies", [])]) * 1000
    return {"posts": int(lat.size), "accepted": len(accepted), "errors": sum("error" in o for o in results),
            "stored": len(stored),
            "exactly_once": sorted(stored) == sorted(accepted) and all(o["round_count_ok"] for o in results),
            "limited": sum(o.get("limited", 0) for o in results), "retries": sum(o.get("retries", 0) for o in results),
            "p50": float(np.percentile(lat, 50)), "p95": float(np.percentile(lat, 95)),
            "p99": float(np.percentile(lat, 99)), "max": float(lat.max()), "rate": len(accepted) / wall}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--students", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="2 rounds, no restart table")
    ap.add_argument("--no-postgres", action="store_true")
    args = ap.parse_args()
    rounds = 2 if args.quick else args.rounds
    tmp = Path(tempfile.mkdtemp(prefix="bench-classroom-"))
    rows = []
    backends = [("SQLite", None)] + ([] if args.no_postgres else [("Postgres", "pg")])
    for name, kind in backends:
        print(f"[{name}] {args.students} students × {rounds} rounds …", file=sys.stderr)
        try:
            with h.postgres_server() if kind else _nothing() as pg_url:
                env = {"LDP_DATABASE_URL": pg_url} if kind else {"LDP_DATA_DIR": str(tmp / "data"),
                                                                  "LDP_DATABASE_URL": ""}
                app = h.start_app(env, tmp / f"{name}.log")
                try:
                    rows.append((name, load_run(app.url, args.students, rounds)))
                finally:
                    h.stop_app(app)
        except h.Unavailable as exc:
            print(f"[{name}] skipped: {exc}", file=sys.stderr)

    load = os.getloadavg()
    print(f"\nTable 1 — {args.students} concurrent students, {rounds} questions, POST latency (target p95 ≤ "
          f"{P95_TARGET_MS:.0f} ms; {os.cpu_count()} cores, load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}; "
          "client and server share the cores)")
    head = (f"{'store':9} {'POSTs':>6} {'accepted':>8} {'stored':>6} {'once':>5} {'429s':>5} {'retries':>7} "
            f"{'errors':>6} {'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7} {'max ms':>7} {'rep/s':>6}  verdict")
    print(head)
    print("-" * len(head))
    for name, r in rows:
        ok = r["p95"] <= P95_TARGET_MS and r["exactly_once"] and not r["errors"]
        print(f"{name:9} {r['posts']:6d} {r['accepted']:8d} {r['stored']:6d} {'yes' if r['exactly_once'] else 'NO':>5} "
              f"{r['limited']:5d} {r['retries']:7d} {r['errors']:6d} {r['p50']:7.1f} {r['p95']:7.1f} {r['p99']:7.1f} "
              f"{r['max']:7.1f} {r['rate']:6.0f}  {'PASS' if ok else 'FAIL'}")

    if not args.quick:
        print("\nTable 2 — SIGKILL mid-class, restart on the same data directory (SQLite)", flush=True)
        r = kill_and_restart(tmp / "restart")
        print(f"{'acknowledged':>12} {'stored':>6} {'lost':>4} {'restart s':>9}  verdict")
        print(f"{r['acknowledged']:12d} {r['stored']:6d} {r['lost']:4d} {r['restart_s']:9.1f}  "
              f"{'PASS' if r['lost'] == 0 and r['stored'] == r['distinct_stored'] else 'FAIL'}")


class _nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


if __name__ == "__main__":
    main()
