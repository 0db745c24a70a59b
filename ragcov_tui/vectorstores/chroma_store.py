"""``chroma:PATH#COLLECTION``: a Chroma collection, embedded (``PersistentClient``), read with
``get(limit, offset)`` batches and searched with ``query`` (its HNSW index as configured).

Fields: ``id`` is Chroma's ids, ``documents`` its documents (the default text), ``embeddings`` its
vectors (the only vector field); any other name is a metadata key (the default document field is
``document``, else ``source`` when the metadata has it: LangChain's key).
"""

from __future__ import annotations

import threading
from collections.abc import Generator
from pathlib import Path
from typing import Any

import numpy as np

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.vectorstores.base import (
    READ_BATCH,
    FieldMap,
    FieldOverrides,
    Hit,
    StoreBatch,
    StoreReader,
    StoreSpec,
    resolve_optional,
)
from ragcov_tui.vectorstores.matrix import as_float32_rows
from ragcov_tui.vectorstores.registry import client

IDS, DOCUMENTS, EMBEDDINGS = "id", "documents", "embeddings"
DEFAULT_FIELDS = FieldMap(id=IDS, text=DOCUMENTS, vector=EMBEDDINGS, doc="document")


class ChromaReader(StoreReader):
    engine = "Chroma"

    def __init__(self, spec: StoreSpec, overrides: FieldOverrides) -> None:
        chromadb = client("chromadb", "chroma")
        if not Path(spec.location).is_dir():
            raise BadInput(f"{spec.text}: no Chroma database at {spec.location}")
        self.spec = spec
        self.db = chromadb.PersistentClient(path=spec.location)
        names = [getattr(c, "name", c) for c in self.db.list_collections()]
        if spec.name not in names:
            raise BadInput(f"{spec.text}: no collection {spec.name!r}; the database has: {', '.join(names) or 'none'}")
        self.collection = self.db.get_collection(spec.name)
        first = self.collection.get(limit=1, include=["metadatas"])
        keys = sorted((first["metadatas"] or [{}])[0] or {})
        fields = overrides.apply(DEFAULT_FIELDS)
        if overrides.doc is None and "document" not in keys and "source" in keys:
            fields = FieldMap(id=fields.id, text=fields.text, vector=fields.vector, doc="source")
        self.fields = resolve_optional(fields, [IDS, DOCUMENTS, EMBEDDINGS, *keys], overrides, spec)
        if self.fields.vector != EMBEDDINGS:
            raise BadInput(f"{spec.text}: Chroma keeps vectors in {EMBEDDINGS!r} only (--vector-field)")
        self._lock = threading.Lock()  # one call at a time into the embedded engine

    def count(self) -> int:
        return int(self.collection.count())

    def dim(self) -> int:
        first = self.collection.get(limit=1, include=["embeddings"])["embeddings"]
        return 0 if first is None or len(first) == 0 else len(first[0])

    def _column(self, got: dict[str, Any], name: str | None) -> list[Any] | None:
        if name is None:
            return None
        if name == IDS:
            return list(got["ids"])
        if name == DOCUMENTS:
            return list(got["documents"] or [])
        return [(m or {}).get(name) for m in got["metadatas"] or []]

    def batches(self, size: int = READ_BATCH) -> Generator[StoreBatch, None, None]:
        offset = 0
        while True:
            got = self.collection.get(limit=size, offset=offset, include=["embeddings", "documents", "metadatas"])
            n = len(got["ids"])
            if not n:
                return
            ids = [str(v) for v in self._column(got, self.fields.id) or []]
            texts = self._column(got, self.fields.text)
            docs = self._column(got, self.fields.doc)
            yield StoreBatch(
                ids=ids,
                texts=None if texts is None else ["" if t is None else str(t) for t in texts],
                docs=ids if docs is None else [i if d is None else str(d) for d, i in zip(docs, ids, strict=True)],
                vectors=as_float32_rows(np.asarray(got["embeddings"]), n, self.spec, EMBEDDINGS),
            )
            offset += n

    def search(self, vectors: np.ndarray, k: int) -> list[list[Hit]]:
        with self._lock:
            got = self.collection.query(
                query_embeddings=np.asarray(vectors, dtype=np.float32),
                n_results=k,
                include=["documents", "distances", "metadatas"],
            )
        out: list[list[Hit]] = []
        for row in range(len(got["ids"])):
            one = {"ids": got["ids"][row], "documents": got["documents"][row], "metadatas": got["metadatas"][row]}
            ids = [str(v) for v in self._column(one, self.fields.id) or []]
            texts = self._column(one, self.fields.text) or [""] * len(ids)
            out.append(
                [
                    Hit(id=i, text=t or "", score=-float(d))
                    for i, t, d in zip(ids, texts, got["distances"][row], strict=True)
                ]
            )
        return out

    def close(self) -> None:
        """Nothing to release: the embedded client closes with the process."""


def open_reader(spec: StoreSpec, overrides: FieldOverrides) -> StoreReader:
    return ChromaReader(spec, overrides)
