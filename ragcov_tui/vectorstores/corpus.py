"""A whole vector store as the corpus: chunks (ids, texts, documents) and one float32 matrix.

Rows are read in batches (progress stage ``reading store``, rows done of the store's count) into a
matrix allocated once; texts and ids become :class:`~ragcov_tui.corpus.models.Chunk` records (no
vector on them: the matrix is the vectors). Each document id seen becomes a
``Document(source, text="")`` in first-seen order; a store without a document field makes every
row its own document. A store without text gives chunks of empty text (``has_text`` False).

Bounded memory (issue #25 §1): vectors of more than ``memory_map_above`` bytes (default
``MEMORY_MAP_ABOVE_BYTES``) are written to a memory-mapped ``.npy`` in a temporary folder (removed
with the :class:`StoreCorpus`, or by :meth:`StoreCorpus.close`), each batch's pages handed back once
written, so the matrix never has to fit in memory; every pass of the analysis reads it block by
block (:mod:`ragcov_tui.shared.row_blocks`).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ragcov_tui.corpus.models import Chunk, Document
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.progress import Progress, report
from ragcov_tui.shared.row_blocks import release
from ragcov_tui.vectorstores.base import FieldMap, FieldOverrides, StoreReader, StoreSpec
from ragcov_tui.vectorstores.registry import open_store

READ_STAGE = "reading store"
MEMORY_MAP_ABOVE_BYTES = 512 * 1024 * 1024


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
    spill: tempfile.TemporaryDirectory[str] | None = None  # the folder of a memory-mapped ``vectors``

    def close(self) -> None:
        """Remove the memory-mapped vectors' folder, if any (the array must not be used after)."""
        if self.spill is not None:
            self.spill.cleanup()
            self.spill = None


def read_store_corpus(
    spec: StoreSpec,
    overrides: FieldOverrides | None = None,
    *,
    progress: Progress | None = None,
    memory_map_above: int | None = None,
) -> StoreCorpus:
    """Open ``spec`` and read every row; BadInput for an empty store, a duplicate id or rows of
    another dimension than the first. Vectors past ``memory_map_above`` bytes (None: ``MEMORY_MAP_ABOVE_BYTES``)
    go to a memory map."""
    reader = open_store(spec, overrides or FieldOverrides())
    try:
        return _read_all(reader, progress, MEMORY_MAP_ABOVE_BYTES if memory_map_above is None else memory_map_above)
    finally:
        reader.close()


def _allocate(
    total: int, dim: int, memory_map_above: int
) -> tuple[np.ndarray, tempfile.TemporaryDirectory[str] | None]:
    """The float32 matrix the rows are read into: in memory, or a memory-mapped file past the limit."""
    if total * dim * 4 <= memory_map_above:
        return np.empty((total, dim), dtype=np.float32), None
    folder = tempfile.TemporaryDirectory(prefix="ragcov-vectors-")
    path = Path(folder.name) / "vectors.npy"
    return np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(total, dim)), folder


def _read_all(reader: StoreReader, progress: Progress | None, memory_map_above: int) -> StoreCorpus:
    spec = reader.spec
    total, dim = reader.count(), reader.dim()
    if total == 0:
        raise BadInput(f"{spec.text}: the store is empty")
    vectors, spill = _allocate(total, dim, memory_map_above)
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
            raise BadInput(
                f"{spec.text}: row {batch.ids[0]!r} has a {batch.vectors.shape[1]}-dimensional vector, "
                f"the store's others {dim}"
            )
        vectors[start : start + len(batch.ids)] = batch.vectors
        release(vectors, start, start + len(batch.ids))  # a memory map's written pages: back to the OS
        fresh = set(batch.ids)
        if len(fresh) != len(batch.ids) or not seen.isdisjoint(fresh):
            twice = next(cid for n, cid in enumerate(batch.ids) if cid in seen or cid in batch.ids[:n])
            raise BadInput(f"{spec.text}: id {twice!r} appears twice (field {reader.fields.id!r} must be unique)")
        seen |= fresh
        texts = batch.texts if batch.texts is not None else [""] * len(batch.ids)
        chunks.extend(map(Chunk, batch.ids, texts, batch.docs, _positions(batch.docs, positions)))
        report(progress, READ_STAGE, len(chunks), total)
    documents = [Document(source=doc, text="") for doc in positions]
    return StoreCorpus(
        spec=spec,
        engine=reader.engine,
        fields=reader.fields,
        documents=documents,
        chunks=chunks,
        vectors=vectors[: len(chunks)],
        has_text=has_text,
        spill=spill,
    )


def _positions(docs: list[str], seen: dict[str, int]) -> list[int]:
    """Each row's position within its document, counting on from ``seen`` (updated)."""
    out = []
    for doc in docs:
        position = seen.get(doc, 0)
        seen[doc] = position + 1
        out.append(position)
    return out
