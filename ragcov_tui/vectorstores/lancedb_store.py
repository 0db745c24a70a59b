"""``lancedb:PATH#TABLE``: a LanceDB table read in Arrow batches, searched by its own index.

Default fields: ``id``, ``text``, ``vector`` (LanceDB's own default name), ``document``. The search
is ``table.search(vector).limit(k)``: whatever ANN index the table has, as configured.
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path

import numpy as np

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.vectorstores.arrow_rows import arrow_columns, arrow_vector_dim, store_batch
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
from ragcov_tui.vectorstores.registry import client

DEFAULT_FIELDS = FieldMap(id="id", text="text", vector="vector", doc="document")


class LanceReader(StoreReader):
    engine = "LanceDB"

    def __init__(self, spec: StoreSpec, overrides: FieldOverrides) -> None:
        lancedb = client("lancedb", "lancedb")
        if not Path(spec.location).is_dir():
            raise BadInput(f"{spec.text}: no LanceDB database at {spec.location}")
        db = lancedb.connect(spec.location)
        tables = list(db.list_tables().tables)
        if spec.name not in tables:
            raise BadInput(f"{spec.text}: no table {spec.name!r}; the database has: {', '.join(tables) or 'none'}")
        self.spec = spec
        self.table = db.open_table(spec.name)
        schema = self.table.schema
        self.fields = resolve_optional(overrides.apply(DEFAULT_FIELDS), schema.names, overrides, spec)
        self._dim = arrow_vector_dim(schema, self.fields, spec)

    def count(self) -> int:
        return int(self.table.count_rows())

    def dim(self) -> int:
        if self._dim is None:  # a variable-length list column: the first row says
            first = next(self.batches(1), None)
            self._dim = 0 if first is None else int(first.vectors.shape[1])
        return self._dim

    def batches(self, size: int = READ_BATCH) -> Generator[StoreBatch, None, None]:
        query = self.table.search().select(arrow_columns(self.fields)).limit(None)
        for batch in query.to_batches(size):
            if batch.num_rows:
                yield store_batch(batch, self.fields, self.spec)

    def search(self, vectors: np.ndarray, k: int) -> list[list[Hit]]:
        columns = [c for c in (self.fields.id, self.fields.text) if c] + ["_distance"]
        out: list[list[Hit]] = []
        for vec in np.asarray(vectors, dtype=np.float32):
            found = self.table.search(vec, vector_column_name=self.fields.vector).select(columns).limit(k).to_arrow()
            ids = found.column(self.fields.id).to_pylist()
            texts = found.column(self.fields.text).to_pylist() if self.fields.text else [""] * len(ids)
            dist = found.column("_distance").to_pylist()
            out.append(
                [Hit(id=str(i), text=t or "", score=-float(d)) for i, t, d in zip(ids, texts, dist, strict=True)]
            )
        return out

    def close(self) -> None:
        """Nothing to release: the files are read on demand."""


def open_reader(spec: StoreSpec, overrides: FieldOverrides) -> StoreReader:
    return LanceReader(spec, overrides)
