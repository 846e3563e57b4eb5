"""Live classroom collection: students' browsers randomize their answers, only reports reach the server, the
class sees its own estimate.

- :mod:`.model` — a question (labels or a numeric range, mechanism GRR/OUE/OLH or PM, ε) and report validation;
- :mod:`.randomizer` — the student's randomizer on a byte stream, the same function as ``static/randomizer.js``;
- :mod:`.store` — SQLite (default, ``$LDP_DATA_DIR``) or Postgres (``$LDP_DATABASE_URL``);
- :mod:`.service` — the operations (create, submit, summary, close, next, reveal, export, delete);
- :mod:`.http` — the HTTP routes mounted beside the dashboard (``serve.py``) and the student page.
"""

from ldp.classroom.errors import ClassroomError, status_of
from ldp.classroom.model import QuestionSpec, mechanism_of, parse_report
from ldp.classroom.randomizer import ByteStreamRandom, randomize
from ldp.classroom.service import Classroom, default_classroom
from ldp.classroom.store import open_store

__all__ = ["ByteStreamRandom", "Classroom", "ClassroomError", "QuestionSpec", "default_classroom", "mechanism_of",
           "open_store", "parse_report", "randomize", "status_of"]
