"""Arrow record batches (LanceDB, Parquet) → :class:`StoreBatch`: the vector column's values
go straight into one float32 matrix (no Python object per number)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.vectorstores.base import FieldMap, StoreBatch, StoreSpec
from ragcov_tui.vectorstores.matrix import as_float32_rows


def arrow_vector_dim(schema: Any, fields: FieldMap, spec: StoreSpec) -> int | None:
    """The fixed list size of the vector column, None for a variable-length list; BadInput for a
    column that holds no list of numbers."""
    import pyarrow as pa

    kind = schema.field(fields.vector).type
    if not (pa.types.is_fixed_size_list(kind) or pa.types.is_list(kind) or pa.types.is_large_list(kind)) or not (
        pa.types.is_floating(kind.value_type) or pa.types.is_integer(kind.value_type)
    ):
        raise BadInput(
            f"{spec.text}: field {fields.vector!r} ({kind}) is not a list of numbers; name the vector "
            f"column with --vector-field"
        )
    return int(kind.list_size) if pa.types.is_fixed_size_list(kind) else None


def arrow_columns(fields: FieldMap) -> list[str]:
    """The columns to read, each once."""
    return list(dict.fromkeys(c for c in (fields.id, fields.text, fields.doc, fields.vector) if c))


def store_batch(batch: Any, fields: FieldMap, spec: StoreSpec) -> StoreBatch:
    """One record batch as ids, texts, document ids and a float32 matrix."""
    column = batch.column(fields.vector)
    if column.null_count:
        first = next(i for i, v in enumerate(column.is_null().to_pylist()) if v)
        raise BadInput(f"{spec.text}: row {batch.column(fields.id)[first].as_py()!r} has no vector")
    if not hasattr(column.type, "list_size"):  # a variable-length list: every row must have one length
        import pyarrow.compute as pc

        lengths = pc.list_value_length(column)
        if batch.num_rows and pc.min_max(lengths)["min"] != pc.min_max(lengths)["max"]:
            raise BadInput(f"{spec.text}: the vectors in field {fields.vector!r} do not all have the same length")
    values = column.flatten().to_numpy(zero_copy_only=False)
    vectors = as_float32_rows(values, batch.num_rows, spec, fields.vector)
    ids = [str(v) for v in batch.column(fields.id).to_pylist()]
    texts = (
        None if fields.text is None else ["" if t is None else str(t) for t in batch.column(fields.text).to_pylist()]
    )
    docs = (
        ids
        if fields.doc is None
        else [str(d) if d is not None else i for d, i in zip(batch.column(fields.doc).to_pylist(), ids, strict=True)]
    )
    return StoreBatch(ids=ids, texts=texts, docs=docs, vectors=np.ascontiguousarray(vectors))
