"""Documents: the document view — least covered first (those no question names as gold first, when the
test file has gold ids; then reach: the similarity of the document's closest chunk to its nearest
question; then covered share), with the gold count and the flags
(``UNREACH``: no chunk within the answering radius, ``FLAGGED``: misaligned); ``/`` filters by name."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable

from ragcov_tui.store import queries
from ragcov_tui.store.analysis_contract import DocumentEntry
from ragcov_tui.tui.details.rows import document_detail
from ragcov_tui.tui.modals import TextScreen
from ragcov_tui.tui.widgets.filter_bar import FILTER_BINDINGS, Filterable, FilterBar
from ragcov_tui.tui.widgets.literal import lit, num
from ragcov_tui.tui.widgets.paged_table import PagedTable


class DocumentsPane(Filterable):
    title = "Documents"
    needs = "analysis"
    filter_table = "#documents-table"
    BINDINGS = [Binding("enter", "detail", "Detail"), *FILTER_BINDINGS]

    def compose(self) -> ComposeResult:
        yield self.compose_empty()
        yield FilterBar("filter by document name, enter to apply, esc to clear", id="documents-filter")
        yield PagedTable[DocumentEntry](
            "Documents, least covered first",
            [("flag", 7), ("reach", 6), ("covd", 5), ("gold", 4), ("chunks", 6), ("source", None)],
            key=lambda d: d["source"],
            page_size=200,
            id="documents-table",
        )

    def render_session(self) -> None:
        self._show(self.query_one(PagedTable).cursor_row)

    def show_filtered(self) -> None:
        self._show(0)

    def _show(self, cursor: int) -> None:
        table = self.query_one(PagedTable)
        table.label = f"Documents, least covered first{self.filter_caption()}"
        table.show(self._fetch, self._row, cursor=cursor)

    def _fetch(self, offset: int, limit: int) -> queries.Page[DocumentEntry]:
        return queries.document_page(self.context.db, self.sid, offset, limit, query=self.query_text)

    @staticmethod
    def _row(d: DocumentEntry) -> list[Text]:
        flag = "FLAGGED" if d.get("flagged") else "UNREACH" if d.get("unreached") else ""
        return [
            lit(flag, "bold"),
            num(d.get("reach")),
            num(d.get("covered_share"), 2),
            num(d.get("gold_count")),
            num(d.get("chunks")),
            lit(d["source"], width=300),
        ]

    def action_detail(self) -> None:
        """The highlighted document: its coverage, why it is flagged, its chunks."""
        doc = self.query_one(PagedTable).current
        if doc is not None:
            self.app.push_screen(
                TextScreen(f"Document {doc['source']}", document_detail(self.context.db, self.sid, doc))
            )

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_detail()
