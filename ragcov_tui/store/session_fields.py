"""Every stored field of a ``sessions`` row, read defensively: the one place a row is trusted.

A database file travels: another host, an older or newer ragcov, a hand edit or a half-written
migration can leave any value in any column (SQLite keeps what it is given, whatever the declared
type). :func:`read_fields` turns a raw row into a :class:`~ragcov_tui.store.rows.SessionRow`
(``live`` still False: :mod:`ragcov_tui.store.sessions` adds it) that readers may use without checks:

- text columns are text or None (a number is written out, bytes decoded with replacement);
- JSON columns that do not hold JSON, or hold the wrong shape, read as None: ``corpus`` a list of
  text, ``params`` / ``timings`` / ``usage`` objects, ``summary`` an object whose figures are
  finite numbers (``system`` and ``judge`` text), :func:`read_progress` for ``progress``;
- ``pid`` is a positive int or None;
- ``heartbeat_at`` stays the stored text: :func:`ragcov_tui.store.liveness.heartbeat_age` judges it
  (no time zone, unreadable or in the future beyond the allowed clock skew: no heartbeat).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.store.rows import SessionRow

TEXT_IN_SUMMARY = ("system", "judge")  # the summary's only text figures (EvalHeadline)
OBJECTS_IN_SUMMARY = ("means", "n", "counts")  # its only objects (EvalHeadline), every other figure a number
MAX_PID = 2**31 - 1  # beyond any pid_t: not a process id


def read_fields(row: Mapping[str, Any]) -> SessionRow:
    """The row with every field of the shape :class:`SessionRow` promises (``live`` False)."""
    return {
        "id": text(row.get("id")) or "",
        "kind": text(row.get("kind")) or "",
        "name": text(row.get("name")),
        "status": text(row.get("status")) or "",
        "created_at": text(row.get("created_at")) or "",
        "finished_at": text(row.get("finished_at")),
        "user": text(row.get("user")),
        "corpus": _text_list(_json(row.get("corpus"))),
        "questions_path": text(row.get("questions_path")),
        "testset_sha256": text(row.get("testset_sha256")),
        "embedder": text(row.get("embedder")),
        "llm": text(row.get("llm")),
        "system": text(row.get("system")),
        "params": _object(_json(row.get("params"))),
        "summary": _summary(_json(row.get("summary"))),
        "timings": _numbers(_json(row.get("timings"))),
        "usage": _object(_json(row.get("usage"))),
        "error": text(row.get("error")),
        "pid": _pid(row.get("pid")),
        "host": text(row.get("host")),
        "heartbeat_at": text(row.get("heartbeat_at")),
        "progress": read_progress(_json(row.get("progress"))),
        "live": False,
    }


def text(value: Any) -> str | None:
    """A text column's value as text (None stays None)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def read_progress(value: Any) -> JsonObject | None:
    """``{stage: text, done: int ≥ 0, total: int ≥ 0}`` from a decoded progress column, or None
    when it is not that shape (a list, text, a count that is no whole finite number…)."""
    if not isinstance(value, dict) or not isinstance(value.get("stage"), str):
        return None
    counts = [value.get("done", 0), value.get("total", 0)]
    if not all(_count(c) for c in counts):
        return None
    return {"stage": value["stage"], "done": int(counts[0]), "total": int(counts[1])}


def _json(value: Any) -> Any:
    """A JSON column decoded; None for anything that is not JSON text; a number that is no finite
    float (``NaN`` of old versions, ``1e400``) reads as None (missing)."""
    raw = text(value)
    if raw is None:
        return None
    try:
        return json.loads(raw, parse_constant=lambda _: None, parse_float=_finite_float)
    except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
        return None


def _finite_float(literal: str) -> float | None:
    number = float(literal)
    return number if math.isfinite(number) else None


def _count(value: Any) -> bool:
    return _finite(value) and value >= 0 and float(value).is_integer() and value < 2**63


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _pid(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 < value <= MAX_PID else None


def _object(value: Any) -> JsonObject | None:
    return value if isinstance(value, dict) else None


def _text_list(value: Any) -> list[str] | None:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else None


def _numbers(value: Any) -> JsonObject | None:
    """An object of finite numbers (nested objects of them kept), anything else dropped."""
    if not isinstance(value, dict):
        return None
    kept: JsonObject = {}
    for key, item in value.items():
        if _finite(item) or item is None:
            kept[key] = item
        elif isinstance(item, dict):
            kept[key] = _numbers(item)
    return kept


def _summary(value: Any) -> JsonObject | None:
    """A headline (AnalysisHeadline / EvalHeadline): its figures numbers, ``means`` / ``n`` / ``counts``
    objects of numbers, ``system`` / ``judge`` text; a figure of the wrong shape is dropped."""
    kept = _numbers(value)
    if kept is None or not isinstance(value, dict):
        return kept
    kept = {key: item for key, item in kept.items() if isinstance(item, dict) == (key in OBJECTS_IN_SUMMARY)}
    return kept | {key: value[key] for key in TEXT_IN_SUMMARY if isinstance(value.get(key), str)}
