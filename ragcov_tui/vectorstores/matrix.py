"""Stored vectors as one float32 matrix."""

from __future__ import annotations

import numpy as np

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.vectorstores.base import StoreSpec


def as_float32_rows(values: np.ndarray, rows: int, spec: StoreSpec, field: str) -> np.ndarray:
    """A flat or 2-D numeric array as a ``(rows, dim)`` float32 matrix; BadInput when rows differ in length."""
    flat = np.asarray(values, dtype=np.float32)
    if rows == 0:
        return flat.reshape(0, 0)
    if flat.ndim == 2 and flat.shape[0] == rows:
        return flat
    if flat.size % rows:
        raise BadInput(f"{spec.text}: the vectors in field {field!r} do not all have the same length")
    return flat.reshape(rows, flat.size // rows)
