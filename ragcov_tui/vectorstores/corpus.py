"""A whole vector store as the corpus: chunks (ids, texts, documents) and one float32 matrix.

Rows are read in batches (progress stage ``reading store``, rows done of the store's count) into a
matrix allocated once; texts and ids become :class:`~ragcov_tui.corpus.models.Chunk` records (no
vector on them: the matrix is the vectors). Each document id seen becomes a
``Document(source, text="")`` in first-seen order; a store without a document field makes every
row its own document. A store without text gives chunks of empty text (``has_text`` False).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ragcov_tui.corpus.models import Chunk, Document
from ragcov_tui.errors import BadInput
from ragcov_tui.progress import Progress, report
from ragcov_tui.vectorstores.base import FieldMap, FieldOverrides, StoreReader, StoreSpec
from ragcov_tui.vectorstores.registry import open_store

READ_STAGE = "reading store"


@dataclass
class StoreCorpus:
    """What a store gave: its chunks and documents, the stored vectors (as stored, one row per chunk)."""

    spec: StoreSpec
    engine: str
    fields: FieldMap
    documents: list[Document]
    chunks: list[Chunk]
    vectors: np.ndarray
    has_text: bool


def read_store_corpus(spec: StoreSpec, overrides: FieldOverrides | None = None, *,
                      progress: Progress | None = None) -> StoreCorpus:
    """Open ``spec`` and read every row; BadInput for an empty store, a duplicate id or rows of
    another dimension than the first."""
    reader = open_store(spec, overrides or FieldOverrides())
    try:
        return _read_all(reader, progress)
    finally:
        reader.close()


def _read_all(reader: StoreReader, progress: Progress | None) -> StoreCorpus:
    spec = reader.spec
    total, dim = reader.count(), reader.dim()
    if total == 0:
        raise BadInput(f"{spec.text}: the store is empty")
    vectors = np.empty((total, dim), dtype=np.float32)
    chunks: list[Chunk] = []
    positions: dict[str, int] = {}  # chunks seen per document, in first-seen order
    seen: set[str] = set()
    has_text = reader.fields.text is not None
    report(progress, READ_STAGE, 0, total)
    for batch in reader.batches():
        start = len(chunks)
        if start + len(batch.ids) > total:
            raise BadInput(f"{spec.text}: the store grew while it was read ({total} rows counted); read it again")
        if batch.vectors.shape[1] != dim:
            raise BadInput(f"{spec.text}: row {batch.ids[0]!r} has a {batch.vectors.shape[1]}-dimensional vector, "
                           f"the store's others {dim}")
        vectors[start:start + len(batch.ids)] = batch.vectors
        fresh = set(batch.ids)
        if len(fresh) != len(batch.ids) or not seen.isdisjoint(fresh):
            twice = next(cid for n, cid in enumerate(batch.ids) if cid in seen or cid in batch.ids[:n])
            raise BadInput(f"{spec.text}: id {twice!r} appears twice (field {reader.fields.id!r} must be unique)")
        seen |= fresh
        texts = batch.texts if batch.texts is not None else [""] * len(batch.ids)
        chunks.extend(map(Chunk, batch.ids, texts, batch.docs, _positions(batch.docs, positions)))
        report(progress, READ_STAGE, len(chunks), total)
    documents = [Document(source=doc, text="") for doc in positions]
    return StoreCorpus(spec=spec, engine=reader.engine, fields=reader.fields, documents=documents,
                       chunks=chunks, vectors=vectors[:len(chunks)], has_text=has_text)


def _positions(docs: list[str], seen: dict[str, int]) -> list[int]:
    """Each row's position within its document, counting on from ``seen`` (updated)."""
    out = []
    for doc in docs:
        position = seen.get(doc, 0)
        seen[doc] = position + 1
        out.append(position)
    return out
