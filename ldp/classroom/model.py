"""A class question: what is asked, which answers it takes, and the LDP mechanism every student's browser applies.

A question is either *categorical* (answer labels; mechanisms GRR, OUE, OLH — the IBU paper's §3.1 frequency
oracles) or *numeric* (a range [lo, hi] in the question's units; the Piecewise Mechanism of the SW paper §2.2,
whose reports estimate the mean). The answer of a student is mapped to the mechanism's input — the label's
index, or v = 2·(x − lo)/(hi − lo) − 1 in [−1, 1] — and a report is one line of the README's report files
(an integer index for GRR, d characters 0/1 for OUE, ``a b y`` for OLH, a real number for PM), parsed and
validated by the mechanism itself (:meth:`~ldp.mechanisms.base.Mechanism.parse_reports`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from ldp.classroom.errors import ImpossibleReport
from ldp.core.errors import InvalidInput
from ldp.core.registry import MECHANISMS
from ldp.mechanisms import get_mechanism
from ldp.mechanisms.base import Mechanism

__all__ = ["CATEGORICAL_MECHANISMS", "MAX_LABELS", "NUMERIC_MECHANISMS", "QuestionSpec", "is_number", "mechanism_of",
           "parse_report", "randomizer_parameters"]

#: The registered mechanisms whose client the students' pages run (``Mechanism.browser_client``): those taking codes
#: answer categorical questions, those taking numbers in [−1, 1] numeric ones.
CATEGORICAL_MECHANISMS = tuple(c.name for c in MECHANISMS if c.browser_client and c.input_kind == "codes")
NUMERIC_MECHANISMS = tuple(c.name for c in MECHANISMS if c.browser_client and c.input_kind == "signed")
MAX_LABELS = 32
MAX_LABEL_CHARS = 60
MAX_QUESTION_CHARS = 300
EPSILON_RANGE = (0.05, 10.0)
# A report line is at most this long (OUE: MAX_LABELS characters; OLH: three integers; PM: one float).
MAX_REPORT_CHARS = 64


def is_number(x: Any) -> bool:
    """A JSON number that is finite as a float (not a bool; a 400-digit integer is not: float() overflows).

    Parameters
    ----------
    x : object
        A value from a parsed JSON body.

    Returns
    -------
    bool
        True for an int or float (not bool) whose float value is finite.
    """
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return False
    try:
        return math.isfinite(float(x))
    except OverflowError:
        return False


@dataclass(frozen=True)
class QuestionSpec:
    """An immutable, validated question. ``labels`` for a categorical question, ``range`` for a numeric one.

    Build it from a request body with :meth:`from_dict`, which validates every field.

    Parameters
    ----------
    question : str
        The question text (at most 300 characters).
    mechanism : str
        A mechanism whose client runs in the browser: one of :data:`CATEGORICAL_MECHANISMS` (with ``labels``) or
        :data:`NUMERIC_MECHANISMS` (with ``range``).
    epsilon : float
        The privacy budget, in [0.05, 10].
    labels : tuple of str, optional
        The answers of a categorical question (2 to :data:`MAX_LABELS` distinct texts); d = their number.
    range : tuple of float, optional
        [lo, hi] of a numeric question, in its units (mapped to [−1, 1] for the Piecewise Mechanism).

    References
    ----------
    IBU paper (Arcolezi et al., DBSec'23), §3.1 (GRR, OUE, OLH); square-wave paper (Li et al., SIGMOD'20), §2.2
    (the Piecewise Mechanism).
    """

    question: str
    mechanism: str
    epsilon: float
    labels: tuple[str, ...] | None = None
    range: tuple[float, float] | None = None

    @classmethod
    def from_dict(cls, body: Any) -> QuestionSpec:
        """The JSON body ``{question, labels | range, mechanism, epsilon}``; a one-line :class:`LDPError` if bad."""
        if not isinstance(body, dict):
            raise InvalidInput("the question must be a JSON object {question, labels | range, mechanism, epsilon}")
        unknown = set(body) - {"question", "labels", "range", "mechanism", "epsilon"}
        if unknown:
            raise InvalidInput(f"unknown field(s) {sorted(unknown)}: give question, labels or range, "
                               f"mechanism, epsilon")
        question = body.get("question")
        if not isinstance(question, str) or not question.strip() or len(question) > MAX_QUESTION_CHARS:
            raise InvalidInput(f"question must be a non-empty text of at most {MAX_QUESTION_CHARS} characters")
        mechanism = body.get("mechanism")
        if not isinstance(mechanism, str):
            raise InvalidInput("mechanism must be one of " + ", ".join(CATEGORICAL_MECHANISMS + NUMERIC_MECHANISMS))
        mechanism = mechanism.strip().lower()
        epsilon = body.get("epsilon")
        if not is_number(epsilon) or not EPSILON_RANGE[0] <= epsilon <= EPSILON_RANGE[1]:
            raise InvalidInput(f"epsilon must be a number in [{EPSILON_RANGE[0]:g}, {EPSILON_RANGE[1]:g}], "
                               f"got {str(epsilon)[:24]}")
        labels, rng = body.get("labels"), body.get("range")
        if (labels is None) == (rng is None):
            raise InvalidInput("give either labels (a categorical question) or range [lo, hi] (a numeric one)")
        if labels is not None:
            if mechanism not in CATEGORICAL_MECHANISMS:
                raise InvalidInput(f"a question with labels takes mechanism {', '.join(CATEGORICAL_MECHANISMS)}, "
                                   f"got {mechanism!r}")
            if not isinstance(labels, list) or not 2 <= len(labels) <= MAX_LABELS:
                raise InvalidInput(f"labels must be a list of 2 to {MAX_LABELS} texts")
            if not all(isinstance(x, str) and x.strip() and len(x) <= MAX_LABEL_CHARS for x in labels):
                raise InvalidInput(f"every label must be a non-empty text of at most {MAX_LABEL_CHARS} characters")
            clean = tuple(x.strip() for x in labels)
            if len(set(clean)) != len(clean):
                raise InvalidInput("labels must be distinct")
            return cls(question.strip(), mechanism, float(epsilon), labels=clean)
        if mechanism not in NUMERIC_MECHANISMS:
            raise InvalidInput(f"a numeric question (range) takes mechanism {', '.join(NUMERIC_MECHANISMS)}, "
                               f"got {mechanism!r}")
        if not isinstance(rng, list) or len(rng) != 2 or not all(is_number(x) for x in rng) \
                or not float(rng[0]) < float(rng[1]) or not math.isfinite(float(rng[1]) - float(rng[0])):
            raise InvalidInput(f"range must be [lo, hi] with finite numbers lo < hi, got {str(rng)[:40]}")
        return cls(question.strip(), mechanism, float(epsilon), range=(float(rng[0]), float(rng[1])))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"question": self.question, "mechanism": self.mechanism, "epsilon": self.epsilon}
        if self.labels is not None:
            out["labels"] = list(self.labels)
        else:
            out["range"] = list(self.range)
        return out

    @property
    def kind(self) -> str:
        return "categorical" if self.labels is not None else "numeric"

    def to_input(self, answer: Any) -> Any:
        """The mechanism's input for a student's answer: the label's index, or 2·(x − lo)/(hi − lo) − 1 (the
        same floating-point operations as the browser's randomizer, clipped to [−1, 1])."""
        if self.labels is not None:
            if isinstance(answer, str) and answer in self.labels:
                return self.labels.index(answer)
            if isinstance(answer, (int, np.integer)) and not isinstance(answer, bool) \
                    and 0 <= answer < len(self.labels):
                return int(answer)
            raise InvalidInput(f"answer must be one of the labels {list(self.labels)}")
        lo, hi = self.range
        try:
            x = float(answer)
        except (TypeError, ValueError, OverflowError):
            raise InvalidInput(f"answer must be a number in [{lo:g}, {hi:g}]") from None
        if not math.isfinite(x) or not lo <= x <= hi:
            raise InvalidInput(f"answer must be a number in [{lo:g}, {hi:g}], got {answer!r}")
        return min(1.0, max(-1.0, 2.0 * (x - lo) / (hi - lo) - 1.0))

    def from_unit_mean(self, m: float) -> float:
        """A mean on [−1, 1] back in the question's units."""
        lo, hi = self.range
        return lo + (m + 1.0) / 2.0 * (hi - lo)


@lru_cache(maxsize=256)
def mechanism_of(spec: QuestionSpec) -> Mechanism:
    """The question's mechanism (cached: specs are immutable). Categorical: d = number of labels; PM: d = 1.

    Parameters
    ----------
    spec : QuestionSpec
        The question.

    Returns
    -------
    Mechanism
        The configured mechanism (the same instance for equal specs).
    """
    if spec.labels is not None:
        return get_mechanism(spec.mechanism, spec.epsilon, len(spec.labels))
    return get_mechanism(spec.mechanism, spec.epsilon)


def parse_report(spec: QuestionSpec, report: Any) -> str:
    """One report checked against the question's mechanism, returned in its canonical one-line encoding.

    ``report`` is a JSON string (one line of a report file) or, for GRR and PM, a JSON number. Wrong length,
    an out-of-range index, garbage → :class:`LDPError` with the mechanism's one-line reason.

    Parameters
    ----------
    spec : QuestionSpec
        The question.
    report : str, int or float
        The report as received (at most 64 characters, one line).

    Returns
    -------
    str
        The canonical report line.

    Raises
    ------
    ImpossibleReport
        For a well-formed report the mechanism can never produce (HTTP 422).
    InvalidInput
        For anything that is not exactly one valid report of the mechanism.
    """
    if isinstance(report, bool) or not isinstance(report, (str, int, float)):
        raise InvalidInput(f"report must be one line of text ({mechanism_of(spec).report_format})")
    text = report if isinstance(report, str) else repr(report)
    if not text.strip() or len(text) > MAX_REPORT_CHARS or "\n" in text or "\r" in text:
        raise InvalidInput(f"report must be one line of at most {MAX_REPORT_CHARS} characters "
                           f"({mechanism_of(spec).report_format})")
    mech = mechanism_of(spec)
    reason = mech.impossible_report(text)  # a forged report the mechanism can never produce (422)
    if reason is not None:
        raise ImpossibleReport(reason)
    parsed = mech.parse_reports([text])
    if parsed.shape[0] != 1:
        raise InvalidInput(f"exactly one report per request ({mech.report_format})")
    return next(iter(mech.format_reports(parsed)))


def randomizer_parameters(spec: QuestionSpec) -> dict[str, Any]:
    """What the browser's randomizer needs besides the question: the probabilities computed here.

    So the page never evaluates exp itself, whose last bit may differ between JavaScript engines and C libraries.

    Parameters
    ----------
    spec : QuestionSpec
        The question whose randomizer the page runs.

    Returns
    -------
    dict
        The mechanism's ``randomizer_parameters()``, plus ``lo`` and ``hi`` for a numeric question.
    """
    out = mechanism_of(spec).randomizer_parameters()
    if spec.range is not None:
        out.update({"lo": spec.range[0], "hi": spec.range[1]})
    return out
