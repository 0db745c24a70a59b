"""Shape checks that JSON prompts' ``read`` methods share: each returns the checked object or raises
:class:`~ragcov_tui.llm.json_reply.ReplyError` with one line naming the field at fault (the text the
model reads in its repair turn)."""

from __future__ import annotations

from typing import Any

from ragcov_tui.llm.json_reply import ReplyError
from ragcov_tui.shared.input_values import is_finite_number
from ragcov_tui.shared.json_types import JsonObject


def expect_fields(value: Any, **types: type) -> JsonObject:
    """``value`` when it is an object whose named fields have the given types (``float`` means any
    finite JSON number, booleans excluded)."""
    if not isinstance(value, dict):
        raise ReplyError("expected a JSON object")
    for name, kind in types.items():
        field = value.get(name)
        if not (is_finite_number(field) if kind is float else isinstance(field, kind)):
            raise ReplyError(f'field "{name}" is missing or has the wrong type')
    return value


def expect_score(value: Any, field: str = "score") -> JsonObject:
    """``value`` when its ``field`` is a finite number from 0 to 1: a judge saying 2, -1 or NaN has
    not answered the question, so that is a failed judgement (never clamped to 1 or 0)."""
    checked = expect_fields(value, **{field: float})
    if not 0.0 <= checked[field] <= 1.0:
        raise ReplyError(f'field "{field}" must be a number from 0 to 1, got {checked[field]!r}')
    return checked


def expect_bool_list(value: Any, key: str, field: str, n: int) -> list[JsonObject]:
    """``value[key]`` when it is ``[{field: bool, ...}] * n``."""
    if not isinstance(value, dict) or not isinstance(value.get(key), list):
        raise ReplyError(f'expected {{"{key}": [...]}}')
    items = value[key]
    if len(items) != n:
        raise ReplyError(f"expected {n} items in {key}, got {len(items)}")
    if not all(isinstance(v, dict) and isinstance(v.get(field), bool) for v in items):
        raise ReplyError(f'every item needs a boolean "{field}"')
    return items


def reason(value: JsonObject, field: str = "reason") -> str:
    """The free-text ``field`` of a checked reply, ``""`` when absent or empty."""
    return str(value.get(field) or "")
