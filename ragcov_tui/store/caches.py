"""The two caches' tables: ``embedding_cache`` and ``llm_cache`` (schema in :mod:`ragcov_tui.store.schema`).

Only the SQL lives here; what goes in and what may be served is decided above, by
:mod:`ragcov_tui.embeddings.cache` (float32 little-endian vectors, checked before they are stored
or served) and :mod:`ragcov_tui.llm.cache` (the request's key, replies checked by their callers).
Embedders and LLM judges work from worker threads on one shared connection, so every statement
holds :func:`~ragcov_tui.store.db.connection_lock`; each write is its own transaction.
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlite_utils

from ragcov_tui.store.db import connection_lock

LOOKUP_GROUP = 500  # SQLite host-parameter budget per SELECT


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def embedding_rows(
    db: sqlite_utils.Database, provider: str, model: str, keys: list[str]
) -> list[tuple[str, int, bytes]]:
    """``(text_sha256, dim, vector blob)`` of the cached entries among ``keys`` (absent keys give no
    row), read ``LOOKUP_GROUP`` keys per SELECT."""
    rows: list[tuple[str, int, bytes]] = []
    for start in range(0, len(keys), LOOKUP_GROUP):
        group = keys[start : start + LOOKUP_GROUP]
        marks = ",".join("?" * len(group))
        with connection_lock(db):
            rows += db.execute(
                f"SELECT text_sha256, dim, vector FROM embedding_cache WHERE provider = ? AND model = ? "
                f"AND text_sha256 IN ({marks})",
                [provider, model, *group],
            ).fetchall()
    return rows


def put_embeddings(db: sqlite_utils.Database, provider: str, model: str, entries: list[tuple[str, int, bytes]]) -> None:
    """Insert (or replace) ``(text_sha256, dim, vector blob)`` entries in one transaction."""
    now = _now()
    with connection_lock(db), db.conn:
        db.conn.executemany(
            "INSERT OR REPLACE INTO embedding_cache (provider, model, text_sha256, dim, vector, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [(provider, model, key, dim, blob, now) for key, dim, blob in entries],
        )


def purge_embeddings(db: sqlite_utils.Database, provider: str, model: str, *, keep_dim: int) -> None:
    """Delete the cached vectors of ``(provider, model)`` whose dimension is not ``keep_dim``."""
    with connection_lock(db), db.conn:
        db.conn.execute(
            "DELETE FROM embedding_cache WHERE provider = ? AND model = ? AND dim != ?", [provider, model, keep_dim]
        )


def llm_reply(db: sqlite_utils.Database, key: str) -> tuple[str, int | None, int | None] | None:
    """``(reply, prompt_tokens, completion_tokens)`` stored under ``key``, None when there is none."""
    with connection_lock(db):
        row = db.execute(
            "SELECT reply, prompt_tokens, completion_tokens FROM llm_cache WHERE key = ?", [key]
        ).fetchone()
    return None if row is None else (row[0], row[1], row[2])


def put_llm_reply(
    db: sqlite_utils.Database,
    key: str,
    *,
    provider: str,
    model: str,
    request: str,
    reply: str,
    prompt_tokens: int,
    completion_tokens: int,
) -> None:
    """Insert (or replace) the reply stored under ``key``; ``request`` is its canonical JSON (no secret)."""
    now = _now()
    with connection_lock(db), db.conn:
        db.conn.execute(
            "INSERT OR REPLACE INTO llm_cache (key, provider, model, request, reply, prompt_tokens, "
            "completion_tokens, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [key, provider, model, request, reply, prompt_tokens, completion_tokens, now],
        )


def delete_llm_reply(db: sqlite_utils.Database, key: str) -> None:
    """Drop the entry stored under ``key`` (absent keys are fine)."""
    with connection_lock(db), db.conn:
        db.conn.execute("DELETE FROM llm_cache WHERE key = ?", [key])
