"""Clusters: the cluster table, the selected cluster's chunks (paged) and the 2-D map."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable

from ragcov_tui.store import queries
from ragcov_tui.store.rows import ChunkRow, ClusterRow
from ragcov_tui.store.traffic import traffic_points
from ragcov_tui.tui.context import PaneContext
from ragcov_tui.tui.details.rows import cluster_detail, fmt
from ragcov_tui.tui.modals import TextScreen
from ragcov_tui.tui.widgets.charts import Chart
from ragcov_tui.tui.widgets.filter_bar import FILTER_BINDINGS, Filterable, FilterBar
from ragcov_tui.tui.widgets.literal import block, lit, num
from ragcov_tui.tui.widgets.paged_table import PagedTable, Table

MAP_POINTS = 2000
TRAFFIC_POINTS = 500  # the most asked answerable queries, each at its nearest chunk


class ClustersPane(Filterable):
    title = "Clusters"
    needs = "analysis"
    filter_table = "#clusters-table"
    BINDINGS = [
        Binding("m", "toggle_map", "Map"),
        Binding("enter", "detail", "Detail / chunk text"),
        *FILTER_BINDINGS,
    ]

    def __init__(self, context: PaneContext, *, id: str | None = None) -> None:
        super().__init__(context, id=id)
        self.clusters: list[ClusterRow] = []
        self.points = queries.MapPoints()
        self.traffic: list[tuple[float, float]] = []

    def compose(self) -> ComposeResult:
        yield self.compose_empty()
        yield FilterBar("find a cluster by id or theme · enter apply · esc clear", id="clusters-filter")
        with Horizontal(id="clusters-body"):
            with Vertical(id="clusters-left"):
                yield Table(id="clusters-table")
                yield PagedTable[ChunkRow](
                    "Chunks",
                    [("dist", 6), ("source", 14), ("nearest q", 9), ("text", None)],
                    key=lambda r: r.chunk_id,
                    id="clusters-chunks",
                )
            yield Chart(id="clusters-map")

    def render_session(self) -> None:
        table = self.query_one("#clusters-table", DataTable)
        table.clear(columns=True)
        table.add_columns("id", "size", "share", "cov", "q's", "themes")
        self.clusters = queries.cluster_rows(self.context.db, self.sid, query=self.query_text)
        table.border_title = f"Clusters ({len(self.clusters)}){self.filter_caption()}"
        for c in self.clusters:
            table.add_row(
                num(c["id"]),
                num(c["size"]),
                num(c["share"], 2),
                num(c["coverage"], 2),
                num(c["covering"]),
                lit(", ".join(c.get("themes") or []), width=60),
                key=str(c["id"]),
            )
        self.points = queries.map_points(self.context.db, self.sid, MAP_POINTS)
        self.traffic = traffic_points(self.context.db, self.sid, TRAFFIC_POINTS)
        self._show_cluster()

    def show_filtered(self) -> None:
        self.render_session()

    @property
    def selected(self) -> ClusterRow | None:
        table = self.query_one("#clusters-table", DataTable)
        if not self.clusters or table.cursor_row < 0:
            return None
        return self.clusters[min(table.cursor_row, len(self.clusters) - 1)]

    @on(DataTable.RowHighlighted, "#clusters-table")
    def _cluster_highlighted(self) -> None:
        self._show_cluster()

    def _show_cluster(self) -> None:
        cluster = self.selected
        chunks = self.query_one(PagedTable)
        if cluster is None:
            chunks.show(None, self._chunk_row)
            self.query_one(Chart).draw_message("Map", "no clusters")
            return
        cid = cluster["id"]
        chunks.label = f"Chunks of cluster {cid}, least covered first"
        chunks.show(lambda o, n: queries.cluster_chunk_page(self.context.db, self.sid, cid, o, n), self._chunk_row)
        self._draw_map(cid)

    @staticmethod
    def _chunk_row(r: ChunkRow) -> list[Text]:
        return [num(r.mindist, 2), lit(r.source, width=14), lit(r.nearest_question), lit(r.text, width=200)]

    def _draw_map(self, highlight: int) -> None:
        p = self.points
        if not p.chunks:
            self.query_one(Chart).draw_message("Map", "this session has no 2-D projection")
            return
        others = [(x, y) for x, y, c in p.chunks if c != highlight]
        chosen = [(x, y) for x, y, c in p.chunks if c == highlight]
        inliers = [(x, y) for x, y, o in p.questions if not o]
        outliers = [(x, y) for x, y, o in p.questions if o]
        shown = (
            f"{len(p.chunks):,} of {p.chunk_total:,} chunks"
            if len(p.chunks) < p.chunk_total
            else f"{p.chunk_total:,} chunks"
        )
        self.query_one(Chart).draw_scatter(
            f"Map · {shown}",
            [
                ("chunk", [x for x, _ in others], [y for _, y in others], "dot"),
                (
                    "test",
                    [x for x, _ in inliers],
                    [y for _, y in inliers],
                    "+",
                ),  # a test question; short: the key fits 80 columns
                ("outlier", [x for x, _ in outliers], [y for _, y in outliers], "x"),
                (
                    f"cluster {highlight}",
                    [x for x, _ in chosen],
                    [y for _, y in chosen],
                    "o",
                ),  # on top: the point of the map
                (
                    "traffic",
                    [x for x, _ in self.traffic],
                    [y for _, y in self.traffic],
                    "*",
                ),  # absent without --traffic
            ],
        )

    def action_toggle_map(self) -> None:
        self.toggle_class("-map")

    def action_detail(self) -> None:
        row = self.query_one(PagedTable).current
        if row is not None:
            body = Text.assemble(
                lit(
                    f"{row.chunk_id} · {row.source} · distance {fmt(row.mindist)} · nearest question "
                    f"{row.nearest_question}",
                    "dim",
                ),
                "\n\n",
                block(row.text),
            )
            self.app.push_screen(TextScreen(f"Chunk {row.chunk_id}", body))

    @on(DataTable.RowSelected, "#clusters-chunks")
    def _chunk_selected(self) -> None:
        self.action_detail()

    @on(DataTable.RowSelected, "#clusters-table")
    def _cluster_selected(self) -> None:
        if self.selected is not None:
            self.app.push_screen(TextScreen(f"Cluster {self.selected['id']}", cluster_detail(self.selected)))
