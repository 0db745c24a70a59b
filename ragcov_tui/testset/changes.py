"""What changed in a test file between two readings, counted by row: added, removed, edited.

A row is remembered as a :data:`RowPrint` ``(key, digest)``: ``key`` is the row's id when it has
one (the same field resolution as the reader), else None; ``digest`` is the first 16 hex digits of
the sha256 of its value as canonical JSON (sorted keys), so re-ordered fields are no edit.

:func:`compare`: rows with ids are matched by id (same id, other digest: edited). Rows without
ids are matched by content, in order (``difflib``): a replaced run of rows counts as edited up to
the shorter side's length, the rest as added or removed.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache

from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.shared.number_text import count
from ragcov_tui.testset.fields import resolve_fields

RowPrint = tuple[str | None, str]


def row_key(value: JsonObject) -> str | None:
    """The row's id as text, or None when it has none (absent, null or blank)."""
    present = tuple(k for k, v in value.items() if v is not None and not (isinstance(v, str) and not v.strip()))
    name = _id_field(present)
    found = value.get(name) if name else None
    return str(found) if isinstance(found, (str, int)) and not isinstance(found, bool) else None


@lru_cache(maxsize=256)
def _id_field(names: tuple[str, ...]) -> str | None:
    """The id field among a row's field names (rows of one file share a few name sets)."""
    return resolve_fields(names).get("id")


def row_print(value: JsonObject) -> RowPrint:
    canonical = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return row_key(value), hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class Changes:
    added: int = 0
    removed: int = 0
    edited: int = 0

    def __str__(self) -> str:
        """``1 row added, 0 removed, 0 edited``."""
        return (
            f"{count(self.added)} row{'' if self.added == 1 else 's'} added, {count(self.removed)} removed, "
            f"{count(self.edited)} edited"
        )


def compare(old: list[RowPrint], new: list[RowPrint]) -> Changes:
    """Rows added, removed and edited from ``old`` to ``new`` (see the module docstring)."""
    before = {k: d for k, d in old if k is not None}
    after = {k: d for k, d in new if k is not None}
    added = len(after.keys() - before.keys())
    removed = len(before.keys() - after.keys())
    edited = sum(before[k] != after[k] for k in before.keys() & after.keys())
    plain_old = [d for k, d in old if k is None]
    plain_new = [d for k, d in new if k is None]
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, plain_old, plain_new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        both = min(i2 - i1, j2 - j1) if tag == "replace" else 0
        edited += both
        removed += i2 - i1 - both
        added += j2 - j1 - both
    return Changes(added, removed, edited)
