"""The embedding cache and the batching loop behind ``Embedder.embed``.

:func:`embed_with_cache` dedupes the texts, looks each distinct text up in the
``embedding_cache`` table by ``(provider, model, sha256(text))``, embeds only the misses, stores
them as float32 little-endian blobs (L2-normalised) and returns one row per input text. A second
run over the same texts therefore calls the provider zero times.

Misses are sorted by length before batching (padding waste is what makes transformer batches
slow; remote APIs do not mind) and sent in batches of ``embedder.batch_size``, at most
``embedder.concurrency`` batches in flight. Batches run in waves so finished vectors are stored
as they come (an interrupted run keeps what it paid for); progress is reported after every batch
in texts. Only the calling thread touches the database; workers only run ``_embed_batch``.
"""

from __future__ import annotations

import hashlib
from contextlib import nullcontext
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Sequence

import numpy as np

from ragcov_tui.concurrency import run_bounded
from ragcov_tui.errors import ProviderError
from ragcov_tui.progress import Progress, report
from ragcov_tui.store.db import connection_lock

if TYPE_CHECKING:
    import sqlite_utils

    from ragcov_tui.embeddings.base import Embedder

LOOKUP_GROUP = 500  # SQLite host-parameter budget per SELECT
BATCHES_PER_WAVE = 4  # per unit of concurrency


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def lookup(db: "sqlite_utils.Database", provider: str, model: str, keys: list[str]) -> dict[str, np.ndarray]:
    """Cached vectors for the given text hashes (missing ones are absent from the result)."""
    found: dict[str, np.ndarray] = {}
    for start in range(0, len(keys), LOOKUP_GROUP):
        group = keys[start:start + LOOKUP_GROUP]
        marks = ",".join("?" * len(group))
        with connection_lock(db):
            rows = db.execute(
                f"SELECT text_sha256, dim, vector FROM embedding_cache WHERE provider = ? AND model = ? "
                f"AND text_sha256 IN ({marks})",
                [provider, model, *group],
            ).fetchall()
        for key, dim, blob in rows:
            vec = np.frombuffer(blob, dtype="<f4")
            if vec.shape[0] == dim:
                found[key] = vec.astype(np.float32)
    return found


def store(db: "sqlite_utils.Database", provider: str, model: str, keys: list[str], vectors: np.ndarray) -> None:
    """Insert (or replace) vectors for text hashes in one transaction."""
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    rows = [(provider, model, key, int(vec.shape[0]), vec.astype("<f4").tobytes(), now)
            for key, vec in zip(keys, vectors)]
    with connection_lock(db), db.conn:
        db.conn.executemany(
            "INSERT OR REPLACE INTO embedding_cache (provider, model, text_sha256, dim, vector, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            rows,
        )


def embed_with_cache(embedder: "Embedder", texts: Sequence[str], progress: Progress | None = None,
                     stage: str = "embedding") -> np.ndarray:
    """Embed ``texts`` through the cache of ``embedder.db`` (if any); rows L2-normalised float32.

    For ``single_flight`` embedders the lookup → embed → store path is one critical section, so a
    thread asking for texts another thread is embedding finds them in the cache afterwards.
    """
    with embedder.flight_lock if embedder.single_flight else nullcontext():
        return _embed_with_cache(embedder, texts, progress, stage)


def _embed_with_cache(embedder: "Embedder", texts: Sequence[str], progress: Progress | None,
                      stage: str) -> np.ndarray:
    from ragcov_tui.embeddings.base import l2_normalise

    texts = list(texts)
    db = getattr(embedder, "db", None)
    stats = embedder.stats
    stats.texts += len(texts)
    keys = [text_sha256(t) for t in texts]
    distinct: dict[str, str] = dict(zip(keys, texts))
    vectors = lookup(db, embedder.provider, embedder.model, list(distinct)) if db is not None else {}
    misses = sorted((k for k in distinct if k not in vectors), key=lambda k: len(distinct[k]))
    stats.cached += sum(1 for k in keys if k in vectors)
    total = len(misses)
    report(progress, stage, 0, total)

    size = max(1, int(embedder.batch_size))
    batches = [misses[i:i + size] for i in range(0, total, size)]
    wave = max(1, int(embedder.concurrency)) * BATCHES_PER_WAVE
    done = 0
    for start in range(0, len(batches), wave):
        group = batches[start:start + wave]

        def embed_batch(batch: list[str]) -> np.ndarray:
            out = l2_normalise(embedder._embed_batch([distinct[k] for k in batch]))
            if out.shape[0] != len(batch):
                raise ProviderError(f"{embedder.spec}: got {out.shape[0]} vectors for {len(batch)} texts")
            return out

        wave_start = done

        def batch_progress(_stage: str, batches_done: int, _total: int) -> None:
            report(progress, stage, min(total, wave_start + batches_done * size), total)

        outcomes = run_bounded(embed_batch, group, concurrency=embedder.concurrency,
                               progress=batch_progress if progress else None, stage=stage)
        first_error: BaseException | None = None
        for batch, outcome in zip(group, outcomes):
            if outcome.ok:
                assert outcome.value is not None
                if db is not None:
                    store(db, embedder.provider, embedder.model, batch, outcome.value)
                vectors.update(zip(batch, outcome.value))
                stats.embedded += len(batch)
                stats.calls += 1
            elif first_error is None:
                first_error = outcome.error
        if first_error is not None:
            raise first_error
        done += sum(len(b) for b in group)
        report(progress, stage, done, total)

    if not texts:
        return np.zeros((0, embedder.dim), dtype=np.float32)
    return np.stack([vectors[k] for k in keys]).astype(np.float32)
