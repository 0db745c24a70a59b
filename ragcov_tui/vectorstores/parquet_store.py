"""``parquet:FILE``: a Parquet file of rows (default fields ``id``, ``text``, ``vector``,
``document``) read one row group batch at a time with pyarrow. It has no index: use it as a corpus."""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.vectorstores.arrow_rows import arrow_columns, arrow_vector_dim, store_batch
from ragcov_tui.vectorstores.base import (
    READ_BATCH,
    FieldMap,
    FieldOverrides,
    StoreBatch,
    StoreReader,
    StoreSpec,
    resolve_optional,
)
from ragcov_tui.vectorstores.registry import client

DEFAULT_FIELDS = FieldMap(id="id", text="text", vector="vector", doc="document")


class ParquetReader(StoreReader):
    engine = "Parquet"

    def __init__(self, spec: StoreSpec, overrides: FieldOverrides) -> None:
        client("pyarrow", "parquet")
        import pyarrow.parquet as pq

        if not Path(spec.location).is_file():
            raise BadInput(f"{spec.text}: no such file")
        try:
            self.file = pq.ParquetFile(spec.location)
        except Exception as exc:  # pyarrow's ArrowInvalid / OSError: not a Parquet file
            raise BadInput(f"{spec.text}: not a readable Parquet file ({exc})") from None
        self.spec = spec
        schema = self.file.schema_arrow
        self.fields = resolve_optional(overrides.apply(DEFAULT_FIELDS), schema.names, overrides, spec)
        self._dim = arrow_vector_dim(schema, self.fields, spec)

    def count(self) -> int:
        return int(self.file.metadata.num_rows)

    def dim(self) -> int:
        if self._dim is None:
            first = next(self.batches(1), None)
            self._dim = 0 if first is None else int(first.vectors.shape[1])
        return self._dim

    def batches(self, size: int = READ_BATCH) -> Generator[StoreBatch, None, None]:
        for batch in self.file.iter_batches(batch_size=size, columns=arrow_columns(self.fields)):
            if batch.num_rows:
                yield store_batch(batch, self.fields, self.spec)

    def close(self) -> None:
        """Nothing to release: the files are read on demand."""


def open_reader(spec: StoreSpec, overrides: FieldOverrides) -> StoreReader:
    return ParquetReader(spec, overrides)
