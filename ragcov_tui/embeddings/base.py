"""The embedder interface every provider implements, and the cached, batched loop behind ``embed``.

``embed(texts)`` returns a float32 matrix of shape ``(len(texts), dim)`` whose rows are
L2-normalised, so cosine distance is ``1 - a @ b``. Providers implement ``_embed_batch`` for one
batch of raw texts; the base class does batching, progress and (when given a cache) the
SQLite embedding cache, so a second run with the same texts embeds nothing.

:func:`embed_with_cache` dedupes the texts, looks each distinct text up in the embedding cache
(:mod:`ragcov_tui.embeddings.cache`: the key, the stored form, which vectors are usable), embeds only
the misses, stores them and returns one row per input text. A second run over the same texts
therefore calls the provider zero times.

One dimension per embedder instance (``Embedder.run_dim``: the first batch it embedded, or failing
that the dimension most of its cached vectors have). A reply with a NaN, an all-zero vector or
another dimension is a one-line ProviderError naming the server, and nothing from it is cached, so
a fixed server is simply asked again. A cached vector that is not usable (written by an older
version, or of a dimension the model no longer has) is not served: it is embedded again and
replaced, and counted in ``stats.discarded``. When the server's dimension changes after vectors
were already served from the cache in this run, the stale entries are deleted and the error says to
run again. ``--no-cache`` (``db=None``) neither reads nor writes.

Misses are sorted by length before batching (padding waste is what makes transformer batches
slow; remote APIs do not mind) and sent in batches of ``embedder.batch_size``, at most
``embedder.concurrency`` batches in flight. Batches run in waves so finished vectors are stored
as they come (an interrupted run keeps what it paid for); progress is reported after every batch
in texts, and the work done in characters (:func:`ragcov_tui.shared.progress.report_work`: tokens and
windows grow with them, so the time left is estimated from them, not from texts — the short
texts go first). Only the calling thread touches the database; workers only run ``_embed_batch``.
"""

from __future__ import annotations

import dataclasses
import threading
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ragcov_tui.embeddings.cache import bad_rows, lookup, store, text_sha256, vector_problem
from ragcov_tui.llm.cost import cost_of, price_for
from ragcov_tui.shared.concurrency import run_bounded
from ragcov_tui.shared.errors import ProviderError
from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.shared.progress import Progress, report, report_work
from ragcov_tui.store.caches import purge_embeddings

if TYPE_CHECKING:
    import sqlite_utils

BATCHES_PER_WAVE = 4  # per unit of concurrency
EMBED_STAGE = "embedding"  # the progress stage of embed() when the caller names none


@dataclass
class EmbedStats:
    """What one embedder instance did: texts asked for, served from cache, sent, calls, tokens."""

    texts: int = 0
    cached: int = 0
    embedded: int = 0
    calls: int = 0
    tokens: int = 0
    discarded: int = 0  # cached vectors not served (unusable or of another dimension) and embedded again


class Embedder(ABC):
    """A text → vector model. ``provider``/``model`` name it in sessions and in the cache key."""

    provider: str = ""
    model: str = ""
    batch_size: int = 64
    concurrency: int = 1  # batches in flight at once (remote providers raise it)
    db: sqlite_utils.Database | None = None  # the embedding cache; set by make_embedder(db=...)
    # CPU-bound models (ONNX, sentence-transformers) already use every core per call: callers on
    # several threads take turns (single flight), so no text is embedded twice at the same moment
    # and the calls do not fight over the cores. Remote providers keep their concurrency.
    single_flight: bool = False
    paid: bool = False  # a metered API: usage() adds the estimated cost
    what: str = ""  # where the vectors come from in messages (remote: the redacted server URL)
    base_url: str = ""  # the server a remote provider calls (its price depends on it: llm.cost)
    # The dimension of every vector this instance returns: set by the first batch embedded (or from
    # the cache when nothing needed embedding); run_dim_cached says which (embed_with_cache).
    run_dim: int | None = None
    run_dim_cached: bool = False

    def __init__(self) -> None:
        self.stats = EmbedStats()
        self._stats_lock = threading.Lock()
        self.flight_lock = threading.Lock()

    def _add_tokens(self, n: int) -> None:
        """Count tokens reported by a provider (thread-safe: ``_embed_batch`` runs in workers)."""
        with self._stats_lock:
            self.stats.tokens += int(n)

    def usage(self) -> JsonObject:
        """The stats as a dict; a ``paid`` provider adds ``cost_usd`` = tokens × the price that
        applies at its server (:func:`ragcov_tui.llm.cost.price_for`), None when none does."""
        out: JsonObject = dataclasses.asdict(self.stats)
        if self.paid:
            usd = cost_of(price_for(self.provider, self.model, self.base_url), self.stats.tokens)
            out["cost_usd"] = None if usd is None else round(usd, 6)
        return out

    @property
    def spec(self) -> str:
        """``provider:model`` as shown to users and stored in sessions."""
        return f"{self.provider}:{self.model}"

    @property
    def cache_model(self) -> str:
        """The ``model`` column of this embedder's cache entries (remote providers add the server)."""
        return self.model

    @property
    @abstractmethod
    def dim(self) -> int:
        """Vector dimension (may trigger loading the model)."""

    @abstractmethod
    def _embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        """Embed one batch; returns ``(len(texts), dim)`` float32 (normalisation done by caller)."""

    def embed(self, texts: Sequence[str], progress: Progress | None = None, stage: str = EMBED_STAGE) -> np.ndarray:
        """Embed ``texts`` in batches through the cache; rows L2-normalised float32 (:func:`embed_with_cache`)."""
        return embed_with_cache(self, texts, progress=progress, stage=stage)


def l2_normalise(m: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero); float32."""
    m = np.asarray(m, dtype=np.float32)
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return m / norms


def discarded_note(embedder: Embedder) -> str | None:
    """A warning line when cached vectors were unusable and embedded again (the cache healed
    itself), else None."""
    n = embedder.stats.discarded
    if not n:
        return None
    return (
        f"{n} cached vector(s) of {embedder.spec} were unusable (NaN, all zeros or another dimension) "
        "and were embedded again; the cache now holds the new ones"
    )


def embed_with_cache(
    embedder: Embedder, texts: Sequence[str], progress: Progress | None = None, stage: str = EMBED_STAGE
) -> np.ndarray:
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


def _embed_with_cache(embedder: Embedder, texts: Sequence[str], progress: Progress | None, stage: str) -> np.ndarray:
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


def _embed_misses(
    embedder: Embedder,
    distinct: dict[str, str],
    misses: list[str],
    vectors: dict[str, np.ndarray],
    progress: Progress | None,
    stage: str,
) -> None:
    """Embed ``misses`` (text hashes) into ``vectors``, storing each usable batch as it comes."""
    db, stats, where = embedder.db, embedder.stats, embedder.what or embedder.spec
    misses = sorted(misses, key=lambda k: len(distinct[k]))
    total = len(misses)
    work = np.concatenate([[0], np.cumsum([len(distinct[k]) for k in misses])]).tolist()  # chars of the first n

    def advance(n: int) -> None:
        report_work(progress, stage, work[n], work[-1])
        report(progress, stage, n, total)

    advance(0)
    size = max(1, int(embedder.batch_size))
    batches = [misses[i : i + size] for i in range(0, total, size)]
    wave = max(1, int(embedder.concurrency)) * BATCHES_PER_WAVE
    done = 0
    for start in range(0, len(batches), wave):
        group = batches[start : start + wave]

        def embed_batch(batch: list[str]) -> np.ndarray:
            out = l2_normalise(embedder._embed_batch([distinct[k] for k in batch]))
            if out.shape[0] != len(batch):
                raise ProviderError(f"{where}: got {out.shape[0]} vectors for {len(batch)} texts")
            problem = vector_problem(out)
            if problem is not None:
                raise ProviderError(
                    f"{where}: unusable reply: {problem} (nothing from it was cached; fix the server, then run again)"
                )
            return out

        def batch_progress(_stage: str, batches_done: int, _total: int, wave_start: int = done) -> None:
            advance(min(total, wave_start + batches_done * size))

        outcomes = run_bounded(
            embed_batch,
            group,
            concurrency=embedder.concurrency,
            progress=batch_progress if progress else None,
            stage=stage,
        )
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
        advance(done)


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
        purge_embeddings(embedder.db, embedder.provider, embedder.cache_model, keep_dim=dim)
        return ProviderError(
            f"{where}: the server now sends {dim}-dimensional vectors but the cached ones of "
            f"{embedder.spec} have {embedder.run_dim}; the stale cache entries were deleted, "
            "run again"
        )
    return ProviderError(
        f"{where}: unusable reply: {dim}-dimensional vectors, but earlier replies had "
        f"{embedder.run_dim} (nothing from it was cached)"
    )
