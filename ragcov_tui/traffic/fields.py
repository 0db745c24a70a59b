"""The fields of a query log row: which field plays each role, and the checks of each value.

Per role, the first alias present with a value wins: query ← ``query`` | ``question`` | ``text`` |
``input`` | ``user_input`` | ``prompt``; count ← ``count`` | ``n`` | ``frequency`` | ``hits`` (optional,
default 1: a whole number from 1 to 10¹²; ``3.0`` is 3, ``2.5``, ``0``, negatives, NaN, ``true`` are
refused); timestamp ← ``timestamp`` | ``ts`` | ``time`` (optional: ISO 8601 text, or Unix seconds —
milliseconds when above 10¹¹; between the years 1 and 9999 once in UTC). How each query was served
comes from the optional fields of :mod:`.served`. Other fields are ignored. A query is made safe
where it enters (:func:`~ragcov_tui.shared.safe_text.single_line`). Every bad value is a
:class:`BadInput` naming ``file:line`` and the field.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.input_values import is_finite_number, quoted
from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.shared.safe_text import single_line
from ragcov_tui.traffic import served as served_fields
from ragcov_tui.traffic.served import NOT_SERVED

QUERY_FIELDS = ("query", "question", "text", "input", "user_input", "prompt")
COUNT_FIELDS = ("count", "n", "frequency", "hits")
TIME_FIELDS = ("timestamp", "ts", "time")
MAX_COUNT = 10**12
EPOCH_MS_ABOVE = 1e11  # a Unix time above this is in milliseconds (1e11 s is the year 5138)
YEAR_1, YEAR_10000 = -62135596800.0, 253402300800.0  # the Unix seconds datetime can show

Row = tuple  # (query text, count, Unix seconds or None, "file:line", Served)


def clean_query(where: str, name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise BadInput(f"{where}: field {name!r} must be text (got {type(value).__name__})")
    text = single_line(value)
    if not text:
        raise BadInput(f"{where}: field {name!r} is empty (no query text)")
    return text


def _count(where: str, name: str, value: Any, is_text: bool) -> int:
    """A whole number of times from 1 to MAX_COUNT; BadInput naming the field otherwise."""
    number = value
    if is_text and isinstance(value, str):
        try:
            number = float(value.strip()) if value.strip() else None
        except ValueError:
            number = None
    bad = BadInput(f"{where}: field {name!r} must be a whole number from 1 to {MAX_COUNT:,} (got {quoted(value, 30)})")
    if not is_finite_number(number) or not 1 <= number <= MAX_COUNT or number != math.floor(number):
        raise bad
    return int(number)


def _time(where: str, name: str, value: Any, is_text: bool) -> float:
    """Unix seconds of an ISO 8601 time (no zone: UTC) or of Unix seconds / milliseconds."""
    bad = BadInput(f"{where}: field {name!r} must be an ISO 8601 time or Unix seconds (got {quoted(value, 40)})")
    number: Any = value
    if is_text and isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = value
    try:
        if is_finite_number(number):
            seconds = float(number / 1000 if number > EPOCH_MS_ABOVE else number)
        elif isinstance(number, str):  # a zone offset can carry 9999-12-31 past the year 9999 in UTC
            moment = datetime.fromisoformat(number.strip())
            seconds = (moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment).timestamp()
        else:
            raise bad
    except (ValueError, OverflowError, OSError):
        raise bad from None
    if not YEAR_1 <= seconds < YEAR_10000:
        raise BadInput(
            f"{where}: field {name!r} is out of range: {quoted(value, 40)} is not between the years 1 and 9999 in UTC"
        )
    return seconds


def first_alias(names: Any, aliases: tuple[str, ...], present: Any = None) -> str | None:
    """The first of ``aliases`` among ``names`` (whose value is ``present``, when given)."""
    return next((a for a in aliases if a in names and (present is None or present(a))), None)


ROLES = (("query", QUERY_FIELDS), ("count", COUNT_FIELDS), ("timestamp", TIME_FIELDS)) + served_fields.ROLES


def row(
    where: str, value: JsonObject, is_text: bool, names: dict[tuple[str, ...], list[str | None]], fields: dict[str, str]
) -> Row:
    """(query, count, seconds, where, served) of one row: per role, the first alias present with a
    value. Rows of one log share their keys, so ``names`` resolves each key set once (and notes ``fields``)."""
    keys = tuple(value)
    chosen = names.get(keys)
    if chosen is None:
        chosen = names[keys] = [first_alias(keys, aliases) for _, aliases in ROLES]
        for (role, _), name in zip(ROLES, chosen, strict=True):
            if name is not None:
                fields.setdefault(role, name)

    def given(name: str) -> bool:
        cell = value[name]
        return cell is not None and not (is_text and isinstance(cell, str) and not cell.strip())

    picked = [
        n if n is None or given(n) else first_alias(value, aliases, given)
        for n, (_, aliases) in zip(chosen, ROLES, strict=True)
    ]
    qname, cname, tname = picked[:3]
    if qname is None:
        if chosen[0] is not None:
            raise BadInput(f"{where}: field {chosen[0]!r} is empty (no query text)")
        raise BadInput(f"{where}: no query field (expected one of: {', '.join(QUERY_FIELDS)})")
    count = _count(where, cname, value[cname], is_text) if cname else 1
    time = _time(where, tname, value[tname], is_text) if tname else None
    how = served_fields.served(where, value, picked[3:], is_text) if any(picked[3:]) else NOT_SERVED
    return clean_query(where, qname, value[qname]), count, time, where, how
