"""How each logged query was served: latency, retrieved documents and scores, answer, feedback, session.

The optional fields of a query log row beside query / count / timestamp (:mod:`.reader`), with the
names tracing exports use (Langfuse, Phoenix / OpenInference, LangSmith, plain JSONL / CSV). The
first alias present with a value wins, as for the other roles:

- **latency**, reported in milliseconds: ``latency_ms`` | ``duration_ms`` | ``response_time_ms`` |
  ``elapsed_ms`` are milliseconds; ``latency`` | ``duration`` | ``latency_s`` | ``elapsed`` are
  seconds (Langfuse exports ``latency`` in seconds). A number ≥ 0, or text with a unit that
  overrides the field's: ``"850ms"``, ``"1.2s"``.
- **retrieved** documents: ``retrieved`` | ``retrieved_documents`` | ``documents`` |
  ``retrieval.documents`` | ``contexts`` | ``sources``: a list (in CSV, a JSON list in the cell)
  of texts or of objects with an id (``id`` | ``doc_id`` | ``document_id`` | ``document.id`` |
  ``chunk_id``), a text (``text`` | ``content`` | ``page_content`` | ``document.content``) and a
  score (``score`` | ``similarity`` | ``relevance_score`` | ``document.score``: a finite number,
  higher is better). An empty list is a **zero-results** query; the best score is the highest one.
  Separately, ``scores`` | ``retrieval_scores``: a list of numbers.
- **answer**: ``answer`` | ``response`` | ``output`` | ``completion``: text (or an object with
  ``content`` | ``text`` | ``answer``); only whether one was logged is counted here.
- **feedback**: ``feedback`` | ``thumbs`` | ``user_feedback`` | ``vote``: up / down, positive /
  negative, good / bad, 1 / 0, +1 / −1, true / false, 👍 / 👎 (or an object with ``score`` |
  ``value``, as LangSmith feedback has); ``rating`` | ``stars`` | ``user_rating``: a whole number
  1–5, 4–5 positive, 1–2 negative, 3 neutral.
- **session**: ``session_id`` | ``user_id`` | ``conversation_id`` | ``thread_id`` | ``session``:
  text or a number; only the number of distinct ones is kept.

A bad value is a :class:`BadInput` naming ``file:line`` and the field.
"""

from __future__ import annotations

import math
import re
from typing import Any, NamedTuple

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.input_values import InvalidJson, is_finite_number, parse_json, quoted
from ragcov_tui.shared.json_types import JsonObject

LATENCY_MS_FIELDS = ("latency_ms", "duration_ms", "response_time_ms", "elapsed_ms")
LATENCY_S_FIELDS = ("latency", "duration", "latency_s", "elapsed")
RETRIEVED_FIELDS = ("retrieved", "retrieved_documents", "documents", "retrieval.documents", "contexts", "sources")
SCORES_FIELDS = ("scores", "retrieval_scores")
ANSWER_FIELDS = ("answer", "response", "output", "completion")
FEEDBACK_FIELDS = ("feedback", "thumbs", "user_feedback", "vote")
RATING_FIELDS = ("rating", "stars", "user_rating")
SESSION_FIELDS = ("session_id", "user_id", "conversation_id", "thread_id", "session")
DOC_SCORE_KEYS = ("score", "similarity", "relevance_score", "document.score")
ANSWER_KEYS = ("content", "text", "answer")
MAX_LATENCY_MS = 7 * 24 * 3600 * 1000.0  # a week: anything longer is a unit mistake

POSITIVE, NEUTRAL, NEGATIVE, NO_FEEDBACK = 1, 0, -1, -2
_FEEDBACK_WORDS = {
    **dict.fromkeys(
        ("up", "thumbs_up", "thumbsup", "positive", "good", "yes", "true", "1", "+1", "👍", "like"), POSITIVE
    ),
    **dict.fromkeys(
        ("down", "thumbs_down", "thumbsdown", "negative", "bad", "no", "false", "0", "-1", "👎", "dislike"), NEGATIVE
    ),
    **dict.fromkeys(("neutral", "mixed"), NEUTRAL),
}
_DURATION = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(ms|s|sec|seconds?)?\s*$")


class Served(NamedTuple):
    """One row's service figures; NaN / -1 / NO_FEEDBACK / None where the row does not say."""

    latency_ms: float
    zero_results: int  # 1 an empty result list, 0 some results, -1 not logged
    best_score: float  # the highest retrieval score, NaN when none is logged
    feedback: int  # POSITIVE / NEUTRAL / NEGATIVE / NO_FEEDBACK
    answered: bool
    session: str | None


NOT_SERVED = Served(math.nan, -1, math.nan, NO_FEEDBACK, False, None)
ROLES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("latency", LATENCY_MS_FIELDS + LATENCY_S_FIELDS),
    ("retrieved", RETRIEVED_FIELDS),
    ("scores", SCORES_FIELDS),
    ("answer", ANSWER_FIELDS),
    ("feedback", FEEDBACK_FIELDS),
    ("rating", RATING_FIELDS),
    ("session", SESSION_FIELDS),
)


def served(where: str, value: JsonObject, names: list[str | None], is_text: bool) -> Served:
    """The figures of one row, ``names`` the field chosen for each of :data:`ROLES` (None: absent)."""
    lat, ret, sco, ans, fb, rat, ses = (None if n is None else value[n] for n in names)
    latency = math.nan if lat is None else _latency(where, str(names[0]), lat)
    zero, best = -1, math.nan
    if ret is not None:
        docs = _list(where, str(names[1]), ret, is_text)
        zero, best = int(not docs), _best([_doc_score(where, str(names[1]), d) for d in docs])
    if sco is not None:
        scores = _list(where, str(names[2]), sco, is_text)
        best = _best([_score(where, str(names[2]), s, is_text) for s in scores] + [best])
        zero = int(not scores) if zero < 0 else zero
    feedback = NO_FEEDBACK
    if fb is not None:
        feedback = _feedback(where, str(names[4]), fb)
    elif rat is not None:
        feedback = _rating(where, str(names[5]), rat, is_text)
    if ans is not None:
        _answer_text(where, str(names[3]), ans)
    if ses is not None and (not isinstance(ses, (str, int)) or isinstance(ses, bool)):
        raise BadInput(f"{where}: field {names[6]!r} must be text or a whole number (got {quoted(ses, 30)})")
    return Served(latency, zero, best, feedback, ans is not None, None if ses is None else str(ses))


def _latency(where: str, name: str, value: Any) -> float:
    """Milliseconds: the field's unit (:data:`LATENCY_MS_FIELDS` or seconds), unless text names one."""
    scale = 1.0 if name in LATENCY_MS_FIELDS else 1000.0
    number: Any = value
    if isinstance(value, str):
        match = _DURATION.match(value)
        number = None if match is None else float(match.group(1))
        if match and match.group(2):
            scale = 1.0 if match.group(2) == "ms" else 1000.0
    if not is_finite_number(number) or not 0 <= number * scale <= MAX_LATENCY_MS:
        unit = "milliseconds" if scale == 1.0 else "seconds"
        raise BadInput(
            f"{where}: field {name!r} must be a duration from 0 to a week in {unit}, or text like "
            f"'850ms' / '1.2s' (got {quoted(value, 30)})"
        )
    return float(number * scale)


def _list(where: str, name: str, value: Any, is_text: bool) -> list[Any]:
    if is_text and isinstance(value, str):
        try:
            value = parse_json(value)
        except InvalidJson:
            value = None
    if not isinstance(value, list):
        raise BadInput(
            f"{where}: field {name!r} must be a list{' (JSON in the cell)' if is_text else ''} "
            f"(got {quoted(value, 30)})"
        )
    return value


def _score(where: str, name: str, value: Any, is_text: bool = False) -> float:
    number = value
    if is_text and isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            number = None
    if not is_finite_number(number):
        raise BadInput(f"{where}: field {name!r}: a retrieval score must be a finite number (got {quoted(value, 30)})")
    return float(number)


def _doc_score(where: str, name: str, doc: Any) -> float:
    """A document's score (NaN without one); BadInput for anything but a text or an object."""
    if isinstance(doc, str):
        return math.nan
    if not isinstance(doc, dict):
        raise BadInput(f"{where}: field {name!r}: each document must be a text or an object (got {quoted(doc, 30)})")
    key = next((k for k in DOC_SCORE_KEYS if doc.get(k) is not None), None)
    return math.nan if key is None else _score(where, f"{name}[].{key}", doc[key])


def _best(scores: list[float]) -> float:
    known = [s for s in scores if not math.isnan(s)]
    return max(known) if known else math.nan


def _feedback(where: str, name: str, value: Any) -> int:
    """Thumbs / positive-negative / 1-0 (module doc), or an object's ``score`` / ``value``."""
    if isinstance(value, dict):
        key = next((k for k in ("score", "value") if k in value), None)
        if key is not None:
            return _feedback(where, f"{name}.{key}", value[key])
    word = str(value).strip().casefold() if isinstance(value, (str, int, float)) else None
    if isinstance(value, float) and value in (0.0, 1.0, -1.0):
        word = str(int(value))
    found = _FEEDBACK_WORDS.get(word) if word is not None else None
    if found is None:
        raise BadInput(
            f"{where}: field {name!r} must be up/down, positive/negative, good/bad, 1/0 or true/false "
            f"(got {quoted(value, 30)})"
        )
    return found


def _rating(where: str, name: str, value: Any, is_text: bool) -> int:
    """A 1–5 rating: 4–5 positive, 3 neutral, 1–2 negative."""
    number: Any = value
    if is_text and isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            number = None
    if not is_finite_number(number) or number not in (1, 2, 3, 4, 5):
        raise BadInput(f"{where}: field {name!r} must be a whole-number rating from 1 to 5 (got {quoted(value, 30)})")
    return POSITIVE if number >= 4 else NEGATIVE if number <= 2 else NEUTRAL


def _answer_text(where: str, name: str, value: Any) -> str:
    if isinstance(value, dict):
        value = next((value[k] for k in ANSWER_KEYS if isinstance(value.get(k), str)), value)
    if not isinstance(value, str):
        raise BadInput(f"{where}: field {name!r} must be text (got {quoted(value, 30)})")
    return value
