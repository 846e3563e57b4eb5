"""The classroom's operations — create a class, take a student's report, summarize, close, next, reveal, export,
delete — as plain functions of JSON-like bodies over a :class:`~ldp.classroom.store.Store`. The HTTP routes
(:mod:`ldp.classroom.http`) and the teacher's page call these and nothing else.

Rules enforced here: teacher controls need the teacher token (stored as its SHA-256; no token → 401, a wrong one
→ 403); a student can only read the public question and submit; one report per nonce per class; reports are
validated by the question's mechanism; a closed question accepts nothing; each class has a token-bucket rate
limit (per process: with several app instances on Postgres each instance limits its own share).

Creating a class belongs to the teacher: over HTTP it needs the server's *teacher secret* (``Authorization: Bearer
<secret>``; 401 without, 403 if wrong) — ``$LDP_TEACHER_SECRET`` when set, else a random secret generated when the
process first opens its classroom (the dashboard in the same process calls :meth:`Classroom.create_class` directly and
needs no secret; a script that creates classes over HTTP sets ``LDP_TEACHER_SECRET`` for the server and itself).
Join codes cannot be enumerated: each client address may miss (ask for a code that does not exist) only
``MISS_BURST`` times, then once per ``1/MISS_RATE`` s (429 with ``Retry-After``; its other lookups are refused too
while it has no misses left), and its lookups of the question are capped at ``LOOKUP_RATE`` per second.
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
import json
import math
import os
import re
import secrets
import threading
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from ldp.classroom.errors import ClassClosed, Forbidden, NotFound, RateLimited, Unauthorized
from ldp.classroom.model import QuestionSpec, is_number, mechanism_of, parse_report, randomizer_parameters
from ldp.classroom.store import Store, open_store
from ldp.core.errors import InvalidInput
from ldp.data.spreadsheet import csv_cell
from ldp.estimators import estimate_all
from ldp.evaluation.uncertainty import frequency_intervals, z_value

__all__ = ["CODE_ALPHABET", "Classroom", "RateLimiter", "csv_cell", "default_classroom", "hash_token"]

# Join codes: 6 characters without look-alikes (0/O, 1/I/L) — 31^6 ≈ 8.9·10^8 codes.
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LENGTH = 6
NONCE_RE = re.compile(r"^[A-Za-z0-9_-]{8,64}$")
CODE_RE = re.compile(rf"^[{CODE_ALPHABET}]{{{CODE_LENGTH}}}$")
# Per class: bursts of up to RATE_BURST reports, RATE_PER_SECOND sustained (a lecture hall of 500 answering in
# the same second fits the burst; a script flooding one class is held at 200 reports/s).
RATE_PER_SECOND = 200.0
RATE_BURST = 500.0
LEVEL = 0.95
# Per client address: lookups of codes that do not exist (a burst for typos, then one per 5 s — enumerating
# 8.9·10^8 codes is hopeless), and all lookups of the question (a lecture hall behind one NAT polls every 3 s:
# 500 phones ≈ 170/s).
MISS_RATE = 0.2
MISS_BURST = 20.0
LOOKUP_RATE = 200.0
LOOKUP_BURST = 1000.0
# Reports per client, checked before the class's bucket (a refused flood takes nothing from the class): per device
# (the token the student page keeps in localStorage, with the address) a student's tap and a few retries; per address
# half the class's budget, so one address — with or without device tokens, rotating them or not — cannot exhaust it.
DEVICE_RATE = 1.0
DEVICE_BURST = 10.0
ADDRESS_RATE = RATE_PER_SECOND / 2
ADDRESS_BURST = RATE_BURST / 2
MAX_BUCKETS = 100_000   # keys a limiter keeps; full buckets are forgotten beyond (they equal a new one)
DEVICE_RE = re.compile(r"^[A-Za-z0-9_-]{8,64}$")
# Each process remembers a class's current question this long (a GET or POST then needs no query): safe, since
# the INSERT itself only stores a report while its question is open, and this process forgets on its own teacher
# actions; another instance's "next question" is seen within this delay.
CURRENT_TTL_S = 1.0
SECONDARY_ESTIMATOR = "norm-sub"   # consistent (non-negative, sums to one): consistency paper §IV
PM_BINS = 10
MAX_HANDS = 1_000_000   # a show of hands counts people in a room


#: A client sending more than this share of a question's reports (and at least 3) is flagged to the teacher.
SURGE_SHARE = 0.2

def hash_token(token: str) -> str:
    """The SHA-256 (hex) of a token: what the store keeps instead of the token itself.

    Parameters
    ----------
    token : str
        A teacher token or secret.

    Returns
    -------
    str
        64 hexadecimal characters.
    """
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class RateLimiter:
    """A token bucket per key: ``burst`` tokens, refilled at ``rate`` per second.

    Thread-safe; at most ``MAX_BUCKETS`` keys are kept (full buckets are forgotten beyond, as they equal a new one).

    Parameters
    ----------
    rate : float, default 200.0
        Tokens added per second (> 0).
    burst : float, default 500.0
        Bucket capacity, the tokens a new key starts with.
    clock : callable () -> float, default time.monotonic
        The time source, in seconds (tests inject a fake clock).

    Attributes
    ----------
    rate, burst : float
        As given.
    clock : callable
        As given.
    """

    def __init__(self, rate: float = RATE_PER_SECOND, burst: float = RATE_BURST, clock=time.monotonic) -> None:
        self.rate, self.burst, self.clock = float(rate), float(burst), clock
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def available(self, key: str) -> bool:
        """Whether ``key`` has a token left (none is taken)."""
        with self._lock:
            now = self.clock()
            tokens, last = self._buckets.get(key, (self.burst, now))
            return min(self.burst, tokens + (now - last) * self.rate) >= 1.0

    def retry_after(self) -> int:
        """Whole seconds until an empty bucket holds one token again."""
        return max(1, math.ceil(1.0 / self.rate))

    def allow(self, key: str) -> bool:
        with self._lock:
            now = self.clock()
            tokens, last = self._buckets.get(key, (self.burst, now))
            tokens = min(self.burst, tokens + (now - last) * self.rate)
            ok = tokens >= 1.0
            self._buckets[key] = (tokens - 1.0 if ok else tokens, now)
            if len(self._buckets) > MAX_BUCKETS:   # rotating keys (addresses, device tokens) cannot fill memory
                self._buckets = {k: (t, at) for k, (t, at) in self._buckets.items()
                                 if t + (now - at) * self.rate < self.burst}
            return ok


@dataclass(frozen=True)
class _Current:
    class_id: int
    question_id: int
    seq: int
    spec: QuestionSpec
    closed: bool
    truth: Any


@lru_cache(maxsize=1024)
def _spec(spec_json: str) -> QuestionSpec:
    return QuestionSpec.from_dict(json.loads(spec_json))


def _clean(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


class Classroom:
    """The classroom's operations over one store (thread-safe: the store opens a connection per thread).

    Parameters
    ----------
    store : Store
        Where classes, questions and reports are kept (:func:`~ldp.classroom.store.open_store`).
    limiter : RateLimiter, optional
        The per-class report budget (default 200/s, bursts of 500).
    clock : callable () -> float, default time.monotonic
        The time source of the current-question cache.
    teacher_secret : str, optional
        The secret that authorises creating a class over HTTP (default ``$LDP_TEACHER_SECRET``, else a random one).
    miss_limiter, lookup_limiter : RateLimiter, optional
        Per client address: lookups of unknown codes (default a burst of 20, then one per 5 s) and all lookups
        (default 200/s, bursts of 1000).
    device_limiter, address_limiter : RateLimiter, optional
        Reports per device token (default 1/s, bursts of 10) and per address (default half the class's budget).

    Attributes
    ----------
    store : Store
        As given.
    teacher_secret : str
        The secret in force.
    """

    def __init__(self, store: Store, *, limiter: RateLimiter | None = None, clock=time.monotonic,
                 teacher_secret: str | None = None, miss_limiter: RateLimiter | None = None,
                 lookup_limiter: RateLimiter | None = None, device_limiter: RateLimiter | None = None,
                 address_limiter: RateLimiter | None = None) -> None:
        self.store = store
        self.limiter = limiter if limiter is not None else RateLimiter()
        self.teacher_secret = teacher_secret or os.environ.get("LDP_TEACHER_SECRET") or secrets.token_urlsafe(32)
        self.miss_limiter = miss_limiter if miss_limiter is not None else RateLimiter(MISS_RATE, MISS_BURST)
        self.lookup_limiter = lookup_limiter if lookup_limiter is not None else RateLimiter(LOOKUP_RATE, LOOKUP_BURST)
        self.device_limiter = device_limiter if device_limiter is not None else RateLimiter(DEVICE_RATE, DEVICE_BURST)
        self.address_limiter = address_limiter if address_limiter is not None \
            else RateLimiter(ADDRESS_RATE, ADDRESS_BURST)
        self._clock = clock
        self._cache: dict[str, tuple[float, _Current]] = {}

    # ---------------------------------------------------------------- lookup and authorization
    def _current(self, code: Any, *, fresh: bool = False) -> _Current:
        """The class's current question; from this process's memory if read less than ``CURRENT_TTL_S`` ago."""
        if not isinstance(code, str) or not CODE_RE.match(code.upper()):
            raise NotFound(f"no class with code {str(code)[:16]!r}")
        code = code.upper()
        now = self._clock()
        hit = self._cache.get(code)
        if hit is not None and not fresh and now - hit[0] < CURRENT_TTL_S:
            return hit[1]
        row = self.store.current_question(code)
        if row is None:
            self._cache.pop(code, None)
            raise NotFound(f"no class with code {code!r}")
        cid, qid, seq, spec, closed, truth = row
        current = _Current(cid, qid, seq, _spec(spec), bool(closed), json.loads(truth) if truth else None)
        self._cache[code] = (now, current)
        return current

    def _forget(self, code: str) -> None:
        self._cache.pop(code.upper(), None)

    def authorize(self, code: Any, token: str | None) -> _Current:
        """The class's current question if ``token`` is its teacher token; 401 without a token, 403 if wrong."""
        if not token:
            raise Unauthorized("this needs the teacher token (header Authorization: Bearer <teacher_token>)")
        current = self._current(code, fresh=True)
        row = self.store.class_row(code.upper())
        if row is None or not hmac.compare_digest(row[1], hash_token(token)):
            raise Forbidden("wrong teacher token for this class")
        return current

    def check_teacher_secret(self, secret: str | None) -> None:
        """Creating a class over HTTP: 401 without the server's teacher secret, 403 with a wrong one."""
        if not secret:
            raise Unauthorized("creating a class needs the teacher secret (header Authorization: Bearer <secret>; "
                               "the dashboard's Classroom page needs none)")
        if not hmac.compare_digest(hash_token(secret), hash_token(self.teacher_secret)):
            raise Forbidden("wrong teacher secret")

    def check_lookup(self, client: str) -> None:
        """Before a lookup by join code from ``client`` (an address): 429 once it has no misses or lookups left."""
        if not self.miss_limiter.available(client):
            raise RateLimited("too many unknown join codes from this address; check the code and retry later",
                              retry_after=self.miss_limiter.retry_after())
        if not self.lookup_limiter.allow(client):
            raise RateLimited("too many requests from this address right now; retry in a second")

    def missed(self, client: str) -> None:
        """``client`` asked for a code that does not exist: one of its misses is spent."""
        self.miss_limiter.allow(client)

    # ---------------------------------------------------------------- teacher
    def create_class(self, body: Any) -> dict[str, str]:
        """``{question, labels | range, mechanism, epsilon}`` → ``{code, teacher_token}``."""
        spec = QuestionSpec.from_dict(body)
        mechanism_of(spec)  # the mechanism accepts the parameters
        token = secrets.token_urlsafe(32)
        for _ in range(20):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            if self.store.class_row(code) is None:
                break
        else:  # pragma: no cover - 20 collisions in 8.9e8 codes
            raise InvalidInput("could not find a free join code; try again")
        self.store.create_class(code, hash_token(token), json.dumps(spec.to_dict()))
        return {"code": code, "teacher_token": token}

    def next_question(self, code: str, token: str | None, body: Any) -> dict[str, Any]:
        """Close the current question and open ``body`` (same fields as a new class) under the same join code."""
        current = self.authorize(code, token)
        spec = QuestionSpec.from_dict(body)
        mechanism_of(spec)
        self.store.add_question(current.class_id, json.dumps(spec.to_dict()))
        self._forget(code)
        return self.public_info(code)

    def close(self, code: str, token: str | None) -> dict[str, Any]:
        current = self.authorize(code, token)
        self.store.close_question(current.question_id)
        self._forget(code)
        return {"closed": True, "question_id": current.question_id}

    def reveal(self, code: str, token: str | None, truth: Any) -> dict[str, Any]:
        """Record the show of hands: answer counts per label (categorical) or the true mean (numeric); None hides."""
        current = self.authorize(code, token)
        spec = current.spec
        if truth is None:
            self.store.set_truth(current.question_id, None)
            self._forget(code)
            return {"truth": None}
        if spec.labels is not None:
            if not isinstance(truth, dict) or set(truth) - set(spec.labels):
                raise InvalidInput(f"the show of hands is a mapping label → count over the labels {list(spec.labels)}")
            counts = [truth.get(label, 0) for label in spec.labels]
            if not all(isinstance(c, int) and not isinstance(c, bool) and 0 <= c <= MAX_HANDS for c in counts) \
                    or sum(counts) == 0:
                raise InvalidInput(f"the show of hands needs whole counts from 0 to {MAX_HANDS:,}, at least one hand")
            value: Any = dict(zip(spec.labels, counts, strict=True))
        else:
            if not is_number(truth):
                raise InvalidInput("the true mean of a numeric question must be a number")
            value = float(truth)
        self.store.set_truth(current.question_id, json.dumps(value))
        self._forget(code)
        return {"truth": value}

    def delete(self, code: str, token: str | None) -> dict[str, Any]:
        current = self.authorize(code, token)
        self.store.delete_class(current.class_id)
        self._forget(code)
        return {"deleted": code.upper()}

    def export_csv(self, code: str, token: str | None) -> str:
        """Every report of the class: question number, question, mechanism, ε, nonce, report, timestamp (UTC)."""
        current = self.authorize(code, token)
        specs = {seq: _spec(spec) for _, seq, spec, _ in self.store.questions(current.class_id)}
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["question_number", "question", "mechanism", "epsilon", "nonce", "report", "received_utc"])
        for seq, nonce, report, created in self.store.report_rows(current.class_id):
            s = specs[seq]
            stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(created))
            writer.writerow([csv_cell(x) for x in (seq, s.question, s.mechanism, s.epsilon, nonce, report, stamp)])
        return out.getvalue()

    def client_pseudonym(self, class_id: int, address: str, device: str | None) -> str:
        """A short pseudonym of the sending client (its address and the page's device token), keyed by this server's
        secret and the class: the same client gets the same name within a class, unlinkable across classes, and
        neither the address nor the token is stored."""
        key = f"{self.teacher_secret}|{class_id}".encode()
        return hmac.new(key, f"{address}|{device or ''}".encode(), "sha256").hexdigest()[:12]

    def clients(self, code: str, token: str | None) -> dict[str, Any]:
        """Reports per client of the current question (teacher only): ``{reports, clients: [{client, reports,
        share, surge}], surge}`` — a client is a surge when it sent at least 3 reports and more than
        ``SURGE_SHARE`` of them (a phone sends one report per question; a script floods)."""
        current = self.authorize(code, token)
        rows = self.store.client_counts(current.question_id)
        total = sum(n for _, n in rows) or 1
        listed = [{"client": c or "this dashboard", "id": c, "reports": n, "share": n / total,
                   "surge": c is not None and n >= 3 and n / total > SURGE_SHARE} for c, n in rows]
        return {"reports": sum(n for _, n in rows), "clients": listed, "surge": any(x["surge"] for x in listed)}

    def drop_client(self, code: str, token: str | None, client: str) -> int:
        """Delete one client's reports of the current question (teacher only); how many were dropped."""
        current = self.authorize(code, token)
        if not isinstance(client, str) or not client:
            raise InvalidInput("give the client whose reports to drop")
        return self.store.drop_client(current.question_id, client)

    def summary(self, code: str, token: str | None) -> dict[str, Any]:
        """``{reports, estimate, ...}``: the count, the report histogram, MI and a consistent estimate (label →
        frequency) with 95 % intervals, the ± error at this n, and the revealed show of hands."""
        current = self.authorize(code, token)
        return self._summarize(current, self.store.reports(current.question_id))

    def _summarize(self, current: _Current, lines: list[str]) -> dict[str, Any]:
        spec = current.spec
        mech = mechanism_of(spec)
        n = len(lines)
        out: dict[str, Any] = {**self._describe(current), "reports": n, "level": LEVEL}
        if spec.labels is not None:
            labels = list(spec.labels)
            truth = current.truth
            out["truth"] = ({k: v / sum(truth.values()) for k, v in truth.items()} if truth else None)
            out["truth_counts"] = truth
            if n == 0:
                out.update(histogram=dict.fromkeys(labels, 0), estimate=None, estimates={}, intervals=None,
                           error=None)
                return out
            agg = mech.aggregate(mech.parse_reports(lines))
            chain = estimate_all(mech, agg, ["mi", SECONDARY_ESTIMATOR])
            iv = frequency_intervals(mech, agg.counts, n, LEVEL)
            out["histogram"] = {lab: int(c) for lab, c in zip(labels, agg.counts, strict=True)}
            out["estimate"] = {lab: float(v) for lab, v in zip(labels, chain["mi"].values, strict=True)}
            out["estimates"] = {name: {lab: float(v) for lab, v in zip(labels, est.values, strict=True)}
                                for name, est in chain.items()}
            out["intervals"] = {lab: [float(lo), float(hi)] for lab, lo, hi in zip(labels, iv.low, iv.high,
                                                                                   strict=True)}
            # ± for a rare answer: z·√Var[f̂] at f = 0 (Wang et al. 2017 Eq. (2); the lecture's table / n)
            out["error"] = z_value(LEVEL) * math.sqrt(mech.approximate_variance(n))
            return out
        lo, hi = spec.range
        out["truth"] = current.truth
        out["truth_counts"] = None
        if n == 0:
            out.update(histogram={}, estimate=None, estimates={}, intervals=None, error=None)
            return out
        reports = mech.parse_reports(lines)
        unit_mean = float(mech.estimate(mech.aggregate(reports)).values[0])
        scale = (hi - lo) / 2.0
        # the mechanism's worst case over the inputs of one report's variance (PM: |v| = 1), over n reports
        half = z_value(LEVEL) * math.sqrt(mech.worst_case_variance() / n) * scale
        mean = spec.from_unit_mean(unit_mean)
        edges = np.linspace(*mech.output_range, PM_BINS + 1)
        hist, _ = np.histogram(reports, bins=edges)
        names = [f"{spec.from_unit_mean(a):.3g} … {spec.from_unit_mean(b):.3g}" for a, b in zip(edges[:-1], edges[1:],
                                                                                              strict=True)]
        out["histogram"] = {name: int(c) for name, c in zip(names, hist, strict=True)}
        out["estimate"] = {"mean": _clean(mean)}
        out["estimates"] = {"average": {"mean": _clean(mean)},
                            "average-clipped": {"mean": _clean(min(hi, max(lo, mean)))}}
        out["intervals"] = {"mean": [mean - half, mean + half]}
        out["error"] = half
        return out

    # ---------------------------------------------------------------- students
    def _describe(self, current: _Current) -> dict[str, Any]:
        spec = current.spec
        mech = mechanism_of(spec)
        return {"question_id": current.question_id, "question_number": current.seq, "question": spec.question,
                "kind": spec.kind, "labels": list(spec.labels) if spec.labels else None,
                "range": list(spec.range) if spec.range else None, "mechanism": spec.mechanism,
                "mechanism_name": mech.display_name, "epsilon": spec.epsilon, "open": not current.closed,
                "report_format": mech.report_format}

    def _limit_client(self, address: str, device: str | None) -> None:
        """The per-client budgets (before the class's): the device's, when the page sent a well-formed token, and
        the address's, always (a client that drops or rotates its token is still held by its address)."""
        if device is not None and DEVICE_RE.match(device) and not self.device_limiter.allow(f"{address}|{device}"):
            raise RateLimited("too many reports from this phone right now; retry in a second",
                              retry_after=self.device_limiter.retry_after())
        if not self.address_limiter.allow(address):
            raise RateLimited("too many reports from this network address right now; retry in a second",
                              retry_after=self.address_limiter.retry_after())

    def public_info(self, code: str) -> dict[str, Any]:
        """What a student needs to randomize: the question, labels or range, mechanism, ε and its parameters."""
        current = self._current(code)
        return {"code": code.upper(), **self._describe(current), "parameters": randomizer_parameters(current.spec)}

    def submit(self, code: str, body: Any, *, address: str | None = None, device: str | None = None
               ) -> dict[str, Any]:
        """``{report, nonce}`` (and optionally ``question``: the id the student randomized for) → stored, or a
        one-line :class:`LDPError` (400 malformed, 404 unknown class, 409 closed / duplicate nonce, 422 a report
        the mechanism cannot produce, 429). ``address`` (the HTTP client's) and ``device`` (the page's device
        token) drive the per-client rate limits and are stored only as the class's pseudonym of the pair
        (:meth:`client_pseudonym`), so the teacher can see a surge from one client and drop it; in-process calls
        pass neither."""
        if not isinstance(body, dict) or set(body) - {"report", "nonce", "question"} or "report" not in body \
                or "nonce" not in body:
            raise InvalidInput("the body must be a JSON object {report, nonce}")
        current = self._current(code)
        nonce = body["nonce"]
        if not isinstance(nonce, str) or not NONCE_RE.match(nonce):
            raise InvalidInput("nonce must be 8 to 64 characters A-Z a-z 0-9 _ -")
        if current.closed:
            raise ClassClosed("this question is closed: it accepts no more reports")
        asked = body.get("question")
        if asked is not None and asked != current.question_id:
            current = self._current(code, fresh=True)
            if current.closed:
                raise ClassClosed("this question is closed: it accepts no more reports")
        if asked is not None and asked != current.question_id:
            raise ClassClosed("this report answers an earlier question; reload the page for the current one")
        report = parse_report(current.spec, body["report"])
        if address is not None:
            self._limit_client(address, device)
        if not self.limiter.allow(code.upper()):
            raise RateLimited("too many reports for this class right now; retry in a second")
        client = None if address is None else self.client_pseudonym(current.class_id, address, device)
        if not self.store.add_report(current.class_id, current.question_id, nonce, report, client):
            self._forget(code)
            raise ClassClosed("this question is closed: it accepts no more reports")
        return {"accepted": True, "question_id": current.question_id, "report": report}


@lru_cache(maxsize=1)
def default_classroom() -> Classroom:
    """The process's classroom on the store named by the environment (``LDP_DATABASE_URL`` or ``LDP_DATA_DIR``).

    The HTTP routes and the teacher's page share it (and its rate limiter); cached, so it is created once.

    Returns
    -------
    Classroom
        The shared classroom.
    """
    return Classroom(open_store())
