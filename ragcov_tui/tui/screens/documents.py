"""Documents: coverage per source document, flagged (off-topic / misaligned) first; ``/`` filters by name."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Input

from ragcov_tui.store import queries
from ragcov_tui.tui.screens.base import Pane
from ragcov_tui.tui.screens.filtering import FilterBar
from ragcov_tui.tui.widgets.literal import lit, num
from ragcov_tui.tui.widgets.paged_table import PagedTable


class DocumentsPane(Pane):
    title = "Documents"
    needs = "analysis"
    BINDINGS = [
        Binding("slash", "filter", "Filter"),
        Binding("n", "step(1)", "Next"),
        Binding("N", "step(-1)", "Prev", show=False),
    ]
    query_text = ""

    def compose(self) -> ComposeResult:
        yield self.compose_empty()
        yield FilterBar("filter by document name, enter to apply, esc to clear", id="documents-filter")
        yield PagedTable("Documents, flagged first", [("flag", 7), ("coverage", 8), ("chunks", 7), ("source", None)],
                         key="source", page_size=200, id="documents-table")

    def render_session(self) -> None:
        self.query_one(PagedTable).show(self._fetch, self._row)

    def _fetch(self, offset: int, limit: int) -> queries.Page:
        return queries.document_page(self.ragcov.db, self.sid, offset, limit, query=self.query_text)  # type: ignore[arg-type]

    @staticmethod
    def _row(d: dict[str, Any]) -> list[Text]:
        return [lit("FLAGGED" if d.get("flagged") else "", "bold"), num(d.get("coverage")), num(d.get("chunks")),
                lit(d["source"], width=300)]

    def action_filter(self) -> None:
        self.query_one(FilterBar).open()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.query_text = event.value.strip()
        bar = self.query_one(FilterBar)
        bar.display = bool(self.query_text)
        table = self.query_one(PagedTable)
        table.label = f"Documents matching {self.query_text!r}" if self.query_text else "Documents, flagged first"
        table.show(self._fetch, self._row)
        table.focus()

    def action_step(self, delta: int) -> None:
        self.query_one(PagedTable).step(delta)
