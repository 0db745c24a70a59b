"""A DataTable that shows one page of a core query at a time (never 100k rows at once).

``PagedTable[RowT]`` is generic over the row type of its query (``store/rows.py``): the owner gives
``key(row) -> str`` (the row's DataTable key), ``fetch(offset, limit) -> Page[RowT]`` and
``render(row) -> cells``; moving the cursor
past the last row of a page loads the next one, above the first loads the previous one; pgdn / pgup
move a screenful of rows across page boundaries alike. The top border shows
``label  first–last of total`` (thousands separated, e.g. ``5,001–5,183 of 5,183``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from rich.text import Text
from textual.binding import Binding
from textual.widgets import DataTable

from ragcov_tui.store.queries import Page

RowT = TypeVar("RowT")
Fetch = Callable[[int, int], Page[RowT]]
Render = Callable[[RowT], Sequence[Text | str]]


class Table(DataTable):
    """A row-cursor DataTable that also moves with ``j`` / ``k`` and jumps with ``g`` / ``G`` (home / end)."""

    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        Binding("g,home", "first", "First row", key_display="g/home", show=False),
        Binding("G,end", "last", "Last row", key_display="G/end", show=False),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)

    def step(self, delta: int) -> None:
        """Move one row down (+1) or up (-1), wrapping around the ends (``n`` / ``N``)."""
        if self.row_count:
            self.move_cursor(row=(self.cursor_row + delta) % self.row_count)

    def action_first(self) -> None:
        if self.row_count:
            self.move_cursor(row=0)

    def action_last(self) -> None:
        if self.row_count:
            self.move_cursor(row=self.row_count - 1)


class PagedTable(Table, Generic[RowT]):
    """A row-cursor table over a paged query; ``marked`` holds the keys marked with space."""

    def __init__(
        self,
        label: str,
        columns: Sequence[tuple[str, int | None]],
        key: Callable[[RowT], str],
        *,
        page_size: int = 100,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.label = label
        self.column_spec = list(columns)
        self.key = key
        self.page_size = page_size
        self.fetch: Fetch[RowT] | None = None
        self.render_row: Render[RowT] | None = None
        self.page: Page[RowT] = Page([], 0, 0)  # rows as the query returns them
        self.marked: set[str] = set()

    def on_mount(self) -> None:
        self.set_columns(self.column_spec)

    def set_columns(self, columns: Sequence[tuple[str, int | None]]) -> None:
        """Replace the columns (``(title, width)``; width None: fit the content)."""
        self.column_spec = list(columns)
        self.clear(columns=True)
        for title, width in self.column_spec:
            self.add_column(title, width=width)
        self.border_title = self.label

    def show(self, fetch: Fetch[RowT] | None, render: Render[RowT], *, offset: int = 0, cursor: int = 0) -> None:
        """Load the page at ``offset`` from ``fetch`` (None: empty) and put the cursor on row ``cursor``."""
        self.fetch, self.render_row = fetch, render
        self.page = fetch(offset, self.page_size) if fetch else Page([], 0, 0)
        self.clear()
        for row in self.page.rows:
            self.add_row(*render(row), key=self.key(row))
        if self.page.rows:
            self.move_cursor(row=min(cursor, len(self.page.rows) - 1))
        self._caption()

    def reload(self) -> None:
        """Fetch the current page again, keeping the cursor row."""
        if self.render_row is not None:
            self.show(self.fetch, self.render_row, offset=self.page.offset, cursor=self.cursor_row)

    def _caption(self) -> None:
        p = self.page
        span = f"{p.offset + 1:,}–{p.offset + len(p.rows):,} of {p.total:,}" if p.rows else "none"
        marks = f" · {len(self.marked)} marked" if self.marked else ""
        self.border_title = f"{self.label}  {span}{marks}"

    @property
    def current(self) -> RowT | None:
        """The row under the cursor, as the query returned it."""
        if not self.page.rows or self.cursor_row < 0:
            return None
        return self.page.rows[min(self.cursor_row, len(self.page.rows) - 1)]

    def toggle_mark(self) -> None:
        row = self.current
        if row is None:
            return
        key = self.key(row)
        self.marked.symmetric_difference_update({key})
        if self.render_row:
            cells = self.render_row(row)
            self.update_cell(key, next(iter(self.columns)), cells[0])
        self._caption()

    def is_marked(self, row: RowT) -> bool:
        return self.key(row) in self.marked

    def action_cursor_down(self) -> None:
        p = self.page
        if self.fetch and self.render_row and self.cursor_row >= len(p.rows) - 1 and p.offset + len(p.rows) < p.total:
            self.show(self.fetch, self.render_row, offset=p.offset + self.page_size, cursor=0)
        else:
            super().action_cursor_down()

    def action_cursor_up(self) -> None:
        p = self.page
        if self.fetch and self.render_row and self.cursor_row <= 0 and p.offset > 0:
            self.show(self.fetch, self.render_row, offset=max(0, p.offset - self.page_size), cursor=self.page_size)
        else:
            super().action_cursor_up()

    def action_first(self) -> None:
        """The first row of the whole query (``g`` / home), loading its page."""
        self.step(-(self.page.offset + self.cursor_row))

    def action_last(self) -> None:
        """The last row of the whole query (``G`` / end), loading its page."""
        self.step(self.page.total - 1 - (self.page.offset + self.cursor_row))

    def action_page_down(self) -> None:
        """pgdn: a screenful of rows down, into the next page when it starts there; stops at the last row."""
        self._move_to(min(self.page.total - 1, self.page.offset + self.cursor_row + self._screenful()))

    def action_page_up(self) -> None:
        """pgup: a screenful of rows up, into the previous page; stops at the first row."""
        self._move_to(max(0, self.page.offset + self.cursor_row - self._screenful()))

    def _screenful(self) -> int:
        """The rows one screen of the table shows (at least one)."""
        header = self.header_height if self.show_header else 0
        return max(1, self.scrollable_content_region.height - header)

    def step(self, delta: int) -> None:
        """Move ``delta`` rows (``n`` / ``N``: one), across pages, wrapping around the ends."""
        if self.page.total:
            self._move_to((self.page.offset + self.cursor_row + delta) % self.page.total)

    def _move_to(self, at: int) -> None:
        """Put the cursor on row ``at`` of the whole query, loading its page when it is not the one shown."""
        p = self.page
        if p.total == 0 or at < 0:
            return
        if p.offset <= at < p.offset + len(p.rows):
            self.move_cursor(row=at - p.offset)
        elif self.fetch and self.render_row:
            start = (at // self.page_size) * self.page_size
            self.show(self.fetch, self.render_row, offset=start, cursor=at - start)
