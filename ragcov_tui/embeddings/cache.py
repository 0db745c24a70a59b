"""The embedding cache and the batching loop behind ``Embedder.embed``.

:func:`embed_with_cache` dedupes the texts, looks each distinct text up in the
``embedding_cache`` table by ``(provider, Embedder.cache_model, sha256(text))``, embeds only the
misses, stores them as float32 little-endian blobs (L2-normalised) and returns one row per input
text. A second run over the same texts therefore calls the provider zero times. ``cache_model`` is
the model name, plus ``@`` and the (redacted) base URL for remote providers: the same model name
on another server is another entry.

Only usable vectors are ever stored or served (:func:`bad_rows`): every number finite, unit
length after normalisation, and one dimension per embedder instance (``Embedder.run_dim``: the
first batch it embedded, or failing that the dimension most of its cached vectors have). A reply
with a NaN, an all-zero vector or another dimension is a one-line ProviderError naming the server,
and nothing from it is cached, so a fixed server is simply asked again. A cached vector that is
not usable (written by an older version, or of a dimension the model no longer has) is not served:
it is embedded again and replaced, and counted in ``stats.discarded``. When the server's dimension
changes after vectors were already served from the cache in this run, the stale entries are
deleted and the error says to run again. ``--no-cache`` (``db=None``) neither reads nor writes.

Misses are sorted by length before batching (padding waste is what makes transformer batches
slow; remote APIs do not mind) and sent in batches of ``embedder.batch_size``, at most
``embedder.concurrency`` batches in flight. Batches run in waves so finished vectors are stored
as they come (an interrupted run keeps what it paid for); progress is reported after every batch
in texts. Only the calling thread touches the database; workers only run ``_embed_batch``.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from contextlib import nullcontext
from datetime import UTC, datetime
from typing import TYPE_CHECKING

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


def lookup(db: sqlite_utils.Database, provider: str, model: str, keys: list[str]) -> dict[str, np.ndarray]:
    """Cached vectors for the given text hashes (missing or truncated ones are absent from the result)."""
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


def bad_rows(vectors: np.ndarray) -> np.ndarray:
    """Indices of the rows of the L2-normalised ``vectors`` that are not usable: not finite, or a
    squared length outside 1 ± 2e-3 (an all-zero vector). One pass: NaN and infinity fail the test."""
    squared = np.einsum("ij,ij->i", vectors, vectors, dtype=np.float64)
    return np.flatnonzero(~(np.abs(squared - 1.0) <= 2e-3))


def vector_problem(vectors: np.ndarray) -> str | None:
    """None when every row of ``vectors`` is usable (:func:`bad_rows`), else the first bad row
    (1-based) and why: NaN / infinity, or zero length (an all-zero vector)."""
    bad = bad_rows(vectors)
    if not bad.size:
        return None
    i = int(bad[0])
    why = "has NaN or infinite values" if not np.isfinite(vectors[i]).all() else "is all zeros"
    return f"vector {i + 1} of {len(vectors)} {why}"


def store(db: sqlite_utils.Database, provider: str, model: str, keys: list[str], vectors: np.ndarray) -> None:
    """Insert (or replace) vectors for text hashes in one transaction."""
    now = datetime.now(UTC).isoformat(timespec="seconds")
    rows = [(provider, model, key, int(vec.shape[0]), vec.astype("<f4").tobytes(), now)
            for key, vec in zip(keys, vectors, strict=True)]
    with connection_lock(db), db.conn:
        db.conn.executemany(
            "INSERT OR REPLACE INTO embedding_cache (provider, model, text_sha256, dim, vector, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            rows,
        )


def discarded_note(embedder: Embedder) -> str | None:
    """A warning line when cached vectors were unusable and embedded again (the cache healed
    itself), else None."""
    n = embedder.stats.discarded
    if not n:
        return None
    return (f"{n} cached vector(s) of {embedder.spec} were unusable (NaN, all zeros or another dimension) "
            "and were embedded again; the cache now holds the new ones")


def purge(db: sqlite_utils.Database, provider: str, model: str, *, keep_dim: int) -> None:
    """Delete the cached vectors of ``(provider, model)`` whose dimension is not ``keep_dim``."""
    with connection_lock(db), db.conn:
        db.conn.execute("DELETE FROM embedding_cache WHERE provider = ? AND model = ? AND dim != ?",
                        [provider, model, keep_dim])


def embed_with_cache(embedder: Embedder, texts: Sequence[str], progress: Progress | None = None,
                     stage: str = "embedding") -> np.ndarray:
    """Embed ``texts`` through the cache of ``embedder.db`` (if any); rows L2-normalised float32.

    For ``single_flight`` embedders the lookup → embed → store path is one critical section, so a
    thread asking for texts another thread is embedding finds them in the cache afterwards.
    """
    with embedder.flight_lock if embedder.single_flight else nullcontext():
        return _embed_with_cache(embedder, texts, progress, stage)


def _usable_cached(embedder: Embedder, keys: list[str]) -> dict[str, np.ndarray]:
    """The cached vectors that pass :func:`bad_rows` and match ``embedder.run_dim`` when set."""
    if embedder.db is None:
        return {}
    found = lookup(embedder.db, embedder.provider, embedder.cache_model, keys)
    by_dim: dict[int, list[str]] = {}
    for key, vec in found.items():
        by_dim.setdefault(vec.shape[0], []).append(key)
    usable: dict[str, np.ndarray] = {}
    for dim, group in by_dim.items():
        if embedder.run_dim in (None, dim):
            bad = set(bad_rows(np.stack([found[k] for k in group])).tolist())
            usable.update((k, found[k]) for i, k in enumerate(group) if i not in bad)
    embedder.stats.discarded += len(found) - len(usable)
    return usable


def _settle_dim(embedder: Embedder, vectors: dict[str, np.ndarray]) -> list[str]:
    """Fix ``embedder.run_dim`` (from the cache when nothing was embedded) and return the keys of
    cached vectors of another dimension, to embed again."""
    if embedder.run_dim is None and vectors:
        dims = Counter(v.shape[0] for v in vectors.values())
        embedder.run_dim, embedder.run_dim_cached = dims.most_common(1)[0][0], True
    stale = [k for k, v in vectors.items() if v.shape[0] != embedder.run_dim]
    embedder.stats.discarded += len(stale)
    for key in stale:
        del vectors[key]
    return stale


def _embed_with_cache(embedder: Embedder, texts: Sequence[str], progress: Progress | None,
                      stage: str) -> np.ndarray:
    texts = list(texts)
    stats = embedder.stats
    stats.texts += len(texts)
    keys = [text_sha256(t) for t in texts]
    distinct: dict[str, str] = dict(zip(keys, texts, strict=True))
    vectors = _usable_cached(embedder, list(distinct))
    stats.cached += sum(1 for k in keys if k in vectors)
    _embed_misses(embedder, distinct, [k for k in distinct if k not in vectors], vectors, progress, stage)
    stale = _settle_dim(embedder, vectors)
    if stale:
        stale_keys = set(stale)
        stats.cached -= sum(1 for k in keys if k in stale_keys)
        _embed_misses(embedder, distinct, stale, vectors, progress, stage)
    if not texts:
        return np.zeros((0, embedder.dim), dtype=np.float32)
    return np.stack([vectors[k] for k in keys]).astype(np.float32)


def _embed_misses(embedder: Embedder, distinct: dict[str, str], misses: list[str],
                  vectors: dict[str, np.ndarray], progress: Progress | None, stage: str) -> None:
    """Embed ``misses`` (text hashes) into ``vectors``, storing each usable batch as it comes."""
    from ragcov_tui.embeddings.base import l2_normalise

    db, stats, where = embedder.db, embedder.stats, embedder.what or embedder.spec
    misses = sorted(misses, key=lambda k: len(distinct[k]))
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
                raise ProviderError(f"{where}: got {out.shape[0]} vectors for {len(batch)} texts")
            problem = vector_problem(out)
            if problem is not None:
                raise ProviderError(f"{where}: unusable reply: {problem} (nothing from it was cached; "
                                    "fix the server, then run again)")
            return out

        def batch_progress(_stage: str, batches_done: int, _total: int, wave_start: int = done) -> None:
            report(progress, stage, min(total, wave_start + batches_done * size), total)

        outcomes = run_bounded(embed_batch, group, concurrency=embedder.concurrency,
                               progress=batch_progress if progress else None, stage=stage)
        first_error: BaseException | None = None
        for batch, outcome in zip(group, outcomes, strict=True):
            error = outcome.error if not outcome.ok else _dim_error(embedder, outcome.value, where)
            if error is None:
                assert outcome.value is not None
                if db is not None:
                    store(db, embedder.provider, embedder.cache_model, batch, outcome.value)
                vectors.update(zip(batch, outcome.value, strict=True))
                stats.embedded += len(batch)
                stats.calls += 1
            elif first_error is None:
                first_error = error
        if first_error is not None:
            raise first_error
        done += sum(len(b) for b in group)
        report(progress, stage, done, total)


def _dim_error(embedder: Embedder, out: np.ndarray | None, where: str) -> ProviderError | None:
    """None when ``out`` has the embedder's dimension (the first batch sets it), else the error.

    When that dimension came from the cache, the server is right and the cache is stale: its
    entries of the old dimension are deleted, so the next run starts clean.
    """
    assert out is not None
    dim = int(out.shape[1])
    if embedder.run_dim is None:
        embedder.run_dim, embedder.run_dim_cached = dim, False
    if dim == embedder.run_dim:
        return None
    if embedder.run_dim_cached and embedder.db is not None:
        purge(embedder.db, embedder.provider, embedder.cache_model, keep_dim=dim)
        return ProviderError(f"{where}: the server now sends {dim}-dimensional vectors but the cached ones of "
                             f"{embedder.spec} have {embedder.run_dim}; the stale cache entries were deleted, "
                             "run again")
    return ProviderError(f"{where}: unusable reply: {dim}-dimensional vectors, but earlier replies had "
                         f"{embedder.run_dim} (nothing from it was cached)")
