"""The row a test expects under a table's cursor."""

from __future__ import annotations

from typing import TypeVar

from ragcov_tui.tui.widgets.paged_table import PagedTable

RowT = TypeVar("RowT")


def current(table: PagedTable[RowT]) -> RowT:
    """The row under the cursor of ``table``; fails the test when the table is empty."""
    row = table.current
    assert row is not None, f"{table.id}: no row under the cursor"
    return row
