"""``qdrant:PATH#COLLECTION``: a Qdrant collection in local mode (``QdrantClient(path=...)``), read
with ``scroll`` batches and searched with ``query_points`` (its index as configured).

Fields: the id is the payload's ``id`` when it has one, else the point id; text and document are
payload keys (``text``, ``document``); the vector is the collection's unnamed vector, or its one
named vector, or the named vector ``--vector-field`` names.
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
    missing_field,
    resolve_optional,
)
from ragcov_tui.vectorstores.matrix import as_float32_rows
from ragcov_tui.vectorstores.registry import client

POINT_ID = "id"
UNNAMED = "(unnamed vector)"


class QdrantReader(StoreReader):
    engine = "Qdrant"

    def __init__(self, spec: StoreSpec, overrides: FieldOverrides) -> None:
        qdrant_client = client("qdrant_client", "qdrant")
        if not Path(spec.location).is_dir():
            raise BadInput(f"{spec.text}: no Qdrant local storage at {spec.location}")
        self.spec = spec
        self.db = qdrant_client.QdrantClient(path=spec.location)
        try:
            self._open(overrides)
        except BaseException:
            self.db.close()
            raise
        self._lock = threading.Lock()  # local mode is one engine in this process: one call at a time

    def _open(self, overrides: FieldOverrides) -> None:
        names = [c.name for c in self.db.get_collections().collections]
        if self.spec.name not in names:
            raise BadInput(
                f"{self.spec.text}: no collection {self.spec.name!r}; the storage has: {', '.join(names) or 'none'}"
            )
        vectors = self.db.get_collection(self.spec.name).config.params.vectors
        named = sorted(vectors) if isinstance(vectors, dict) else []
        self._dim_configured = None if named else int(vectors.size)
        points, _ = self.db.scroll(self.spec.name, limit=1, with_payload=True)
        keys = sorted(points[0].payload or {}) if points else []
        default_vector = named[0] if len(named) == 1 else UNNAMED
        fields = overrides.apply(FieldMap(id=POINT_ID, text="text", vector=default_vector, doc="document"))
        if named and fields.vector not in named:
            raise missing_field(self.spec, "vector", fields.vector, named)
        if not named and overrides.vector:
            raise missing_field(self.spec, "vector", overrides.vector, [UNNAMED])
        self.fields = resolve_optional(fields, [POINT_ID, *keys, *(named or [UNNAMED])], overrides, self.spec)
        self._named = fields.vector if named else None
        if named:
            self._dim_configured = int(vectors[fields.vector].size)

    def count(self) -> int:
        return int(self.db.count(self.spec.name, exact=True).count)

    def dim(self) -> int:
        return self._dim_configured or 0

    def _value(self, point: Any, name: str | None) -> Any:
        if name is None:
            return None
        payload = point.payload or {}
        return payload.get(name, point.id) if name == POINT_ID else payload.get(name)

    def batches(self, size: int = READ_BATCH) -> Generator[StoreBatch, None, None]:
        offset = None
        while True:
            with self._lock:
                points, offset = self.db.scroll(
                    self.spec.name,
                    limit=size,
                    offset=offset,
                    with_payload=True,
                    with_vectors=[self._named] if self._named else True,
                )
            if not points:
                return
            ids = [str(self._value(p, self.fields.id)) for p in points]
            raw = [p.vector[self._named] if self._named else p.vector for p in points]
            texts = (
                None
                if self.fields.text is None
                else ["" if (t := self._value(p, self.fields.text)) is None else str(t) for p in points]
            )
            docs = (
                ids
                if self.fields.doc is None
                else [
                    i if (d := self._value(p, self.fields.doc)) is None else str(d)
                    for p, i in zip(points, ids, strict=True)
                ]
            )
            yield StoreBatch(
                ids=ids,
                texts=texts,
                docs=docs,
                vectors=as_float32_rows(np.asarray(raw, dtype=np.float32), len(points), self.spec, self.fields.vector),
            )
            if offset is None:
                return

    def search(self, vectors: np.ndarray, k: int) -> list[list[Hit]]:
        out: list[list[Hit]] = []
        for vec in np.asarray(vectors, dtype=np.float32):
            with self._lock:
                found = self.db.query_points(
                    self.spec.name, query=vec.tolist(), limit=k, with_payload=True, using=self._named
                ).points
            out.append(
                [
                    Hit(
                        id=str(self._value(p, self.fields.id)),
                        text=str(self._value(p, self.fields.text) or ""),
                        score=float(p.score),
                    )
                    for p in found
                ]
            )
        return out

    def close(self) -> None:
        self.db.close()


def open_reader(spec: StoreSpec, overrides: FieldOverrides) -> StoreReader:
    return QdrantReader(spec, overrides)
