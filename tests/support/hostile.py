"""Hostile text for the terminal-escape tests: every C0/C1 control code, DEL, the bidi controls, and
the OSC 0 (title), OSC 8 (hyperlink), OSC 52 (clipboard) and CSI (clear screen) sequences.

:func:`poison_database` puts it in front of every stored text a pane can show (session names and
paths, document names, chunk, question, suggestion and answer texts, ids, every string inside the
JSON columns), the same prefix everywhere so references between tables still match, and in front
so a cell cut to its width still shows it.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from ragcov_tui.shared.safe_text import BIDI_CONTROLS, UNSAFE

EVERY_CONTROL = "".join(chr(c) for c in range(0x20)) + "\x7f" + "".join(chr(c) for c in range(0x80, 0xA0))
SEQUENCES = (
    "\x1b]0;PWNTITLE\x07\x1b[2J\x1b]52;c;ZXZpbA==\x07\x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\\x9b2J"
)
HOSTILE = SEQUENCES + EVERY_CONTROL + BIDI_CONTROLS + "\u2028\u2029"
HOSTILE_NO_NUL = HOSTILE.replace("\x00", "")  # for file names (and SQLite text, which ends at NUL in SQL functions)

# columns whose value the app keys off (enumerations, timestamps, the session id): left as they are
PROTECTED = {
    "session_id",
    "kind",
    "status",
    "created_at",
    "finished_at",
    "testset_sha256",
    "user",
    "diagnosis",
    "origin",
    "action",
    "state",
}


def leaked(text: str) -> list[str]:
    """The unsafe characters in ``text`` (line breaks allowed), as ``U+XXXX`` names."""
    return sorted({f"U+{ord(c):04X}" for c in UNSAFE.findall(text) if c != "\n"})


def _poison_json(value: Any, prefix: str) -> Any:
    if isinstance(value, str):
        return prefix + value
    if isinstance(value, list):
        return [_poison_json(v, prefix) for v in value]
    if isinstance(value, dict):
        return {k: v if k in PROTECTED else _poison_json(v, prefix) for k, v in value.items()}
    return value


def _poison_value(value: Any, prefix: str) -> Any:
    if not isinstance(value, str):
        return value
    if value[:1] in "[{":
        try:
            return json.dumps(_poison_json(json.loads(value), prefix))
        except ValueError:
            pass
    return prefix + value


def poison_database(path: Path, prefix: str = HOSTILE_NO_NUL) -> None:
    """Put ``prefix`` in front of every unprotected text in the session tables of the database at ``path``."""
    conn = sqlite3.connect(path)
    tables = [
        "sessions",
        "documents",
        "chunks",
        "questions",
        "reports",
        "chunk_results",
        "question_results",
        "suggestions",
        "eval_items",
    ]
    with conn:
        for table in tables:
            columns = [
                row[1]
                for row in conn.execute(f"PRAGMA table_info({table})")
                if row[1] not in PROTECTED and not (table == "sessions" and row[1] == "id")
            ]
            for rowid, *values in conn.execute(f"SELECT rowid, {', '.join(columns)} FROM {table}").fetchall():
                new = [_poison_value(v, prefix) for v in values]
                if new != values:
                    assignments = ", ".join(f"{c} = ?" for c in columns)
                    conn.execute(f"UPDATE {table} SET {assignments} WHERE rowid = ?", (*new, rowid))
    conn.close()
