"""Traffic: the open analysis's traffic coverage (``ragcov analyze --traffic``), from the store.

A summary (the log, the share of traffic the test set covers, the share it leaves untested, the
content gap; then the traffic health of the selected rows and the cluster where unhappy traffic
concentrates most), the traffic clusters by priority with their health columns (p95 latency, zero
results, low relevance, negative feedback; a rate shown bold is one whose interval lies wholly above
all traffic's), and below them one of three lists, ``v`` cycles:
the selected cluster's queries (most asked first), the queries the corpus cannot answer, and the
tests nobody asks. ``enter`` opens the highlighted row. The tab shows only while the open analysis
has traffic (``9`` reaches it anyway and says how to get some).
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.reactive import var
from textual.widgets import DataTable, Static

from ragcov_tui.coverage.report_traffic_md import selection_text
from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.store.queries import Page
from ragcov_tui.store.traffic import load_traffic, traffic_queries
from ragcov_tui.store.traffic_contract import (
    HealthEntry,
    RateFigure,
    RateName,
    TrafficClusterEntry,
    TrafficSection,
    UnaskedQuestion,
)
from ragcov_tui.traffic.log_formats import suffix_list
from ragcov_tui.tui.context import PaneContext
from ragcov_tui.tui.details.rows import fmt
from ragcov_tui.tui.modals import TextScreen
from ragcov_tui.tui.panes.base import Pane
from ragcov_tui.tui.widgets.literal import lit, num
from ragcov_tui.tui.widgets.paged_table import PagedTable, Table

VIEWS = ("cluster", "unanswerable", "unasked")
NO_TRAFFIC = (
    "This analysis has no traffic. Run `ragcov analyze … --traffic LOG` with a query log "
    f"({suffix_list()}: one query per row, optional count and timestamp)."
)
QUERY_COLUMNS = [("count", 7), ("test sim", 8), ("nearest q", 9), ("query", None)]
GAP_COLUMNS = [("count", 7), ("chunk sim", 9), ("cluster", 7), ("query", None)]
UNASKED_COLUMNS = [("id", 8), ("sim", 6), ("question", 32), ("nearest query", None)]  # at 80 columns both read


def pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def short_pct(figure: RateFigure | None) -> str:
    """A rate in whole percent for a narrow column (``—`` where no row logs it)."""
    return "—" if not figure or figure.get("rate") is None else f"{100 * float(figure['rate'] or 0):.0f}%"


def p95(entry: HealthEntry | None) -> Text:
    value = entry["latency_ms"].get("p95") if entry else None
    return num(None if value is None else int(round(value)))


SHORT: dict[RateName, str] = {"zero_results": "zero", "low_relevance": "low rel", "negative_feedback": "neg fb"}


def health_summary(section: TrafficSection) -> str:
    """``health: p95 1,617 ms · zero 2.4% · low rel 3.9% · neg fb 12.4%`` (the window named when one is
    chosen); empty for a report stored before traffic health."""
    health = section.get("health")
    if not health:
        return ""
    h = health["overall"]
    latency = h["latency_ms"].get("p95")
    where = selection_text(health)
    return (
        f"health{'' if where == 'the whole log' else f' ({where})'}: p95 "
        f"{'—' if latency is None else f'{latency:,.0f} ms'} · "
        + " · ".join(f"{label} {pct(h[m]['rate'])}" for m, label in SHORT.items())
    )


def hotspot_summary(section: TrafficSection) -> str:
    """``unhappy: cluster 0 (8.1%) neg fb 41% low rel 41%, untested · “verify webhook signature” ×29``."""
    health = section.get("health")
    spots = (health.get("hotspots") or []) if health else []
    if not spots:
        return "unhappy: no cluster stands out" if health else ""
    spot = spots[0]
    entry = next((c.get("health") for c in section.get("clusters", []) if c["id"] == spot["cluster"]), None)
    rates = " ".join(f"{SHORT[m]} {short_pct(entry[m] if entry else None)}" for m in spot["worse"])
    top = spot.get("examples") or []
    return (
        f"unhappy: cluster {spot['cluster']} ({pct(spot['share'])}) {rates}"
        + (", untested" if spot["untested"] else "")
        + (f" · \u201c{top[0]['text']}\u201d \u00d7{top[0]['count']}" if top else "")
        + (f" (+{len(spots) - 1} more)" if len(spots) > 1 else "")
    )


def most_asked(cluster: TrafficClusterEntry) -> str:
    """``text ×count`` of the cluster's most asked query (``' ×0'`` when it lists none)."""
    top = cluster.get("examples") or []
    return f"{top[0].get('text', '')} ×{top[0].get('count', 0)}" if top else " ×0"


class TrafficPane(Pane):
    title = "Traffic"
    needs = "analysis"
    BINDINGS = [
        Binding("v", "cycle_view", "List: cluster / unanswerable / unasked"),
        Binding("enter", "detail", "Detail"),
    ]

    view: var[str] = var("cluster", init=False)
    """Which list shows under the clusters (one of VIEWS; ``v`` steps through them)."""

    def __init__(self, context: PaneContext, *, id: str | None = None) -> None:
        super().__init__(context, id=id)
        self.section: TrafficSection | None = None

    def compose(self) -> ComposeResult:
        yield self.compose_empty()
        yield Static(id="traffic-summary")
        yield Table(id="traffic-clusters")
        yield PagedTable[JsonObject]("Queries", QUERY_COLUMNS, key=lambda r: str(r["key"]), id="traffic-list")

    def render_session(self) -> None:
        """The session's traffic; for an analysis run without ``--traffic``, how to get traffic."""
        s = self.section = load_traffic(self.context.db, self.sid, details=False)
        if s is None:
            self.hint = NO_TRAFFIC
            return
        src, gap = s.get("source", {}), s.get("content_gap")
        first, last = (str(src.get(k) or "")[:10] for k in ("first", "last"))
        lines = [
            lit(
                f"{src.get('path')} · {src.get('queries', 0):,} queries, {src.get('distinct', 0):,} distinct"
                + (f" · {first} to {last}" if first else "")
            ),
            lit(
                f"covered by tests {fmt(s.get('coverage'))} · untested {pct(s.get('untested_share'))} · "
                f"corpus cannot answer {pct(gap.get('share') if gap else None)} · tests nobody asks "
                f"{len(self._unasked())}",
                "bold",
            ),
        ]
        health = s.get("health")
        clusters = s.get("clusters", [])
        if health:
            lines += [lit(health_summary(s)), lit(hotspot_summary(s), "bold")]
        self.query_one("#traffic-summary", Static).update(Text("\n").join(lines))
        worse = {spot["cluster"]: set(spot["worse"]) for spot in (health.get("hotspots") or [])} if health else {}
        table = self.query_one("#traffic-clusters", DataTable)
        table.clear(columns=True)
        table.add_columns("id", "share", "cov", "p95 ms", "zero", "low", "neg", "", "most asked")
        table.border_title = f"Traffic clusters ({len(clusters)}), highest priority first"
        for c in clusters:
            h, bad = c.get("health"), worse.get(c["id"], set())
            rates = [
                Text(short_pct(h[m] if h else None), justify="right", style="bold" if m in bad else "")
                for m in ("zero_results", "low_relevance", "negative_feedback")
            ]
            table.add_row(
                num(c["id"]),
                lit(pct(c.get("share"))),
                num(c.get("coverage"), 2),
                p95(h),
                *rates,
                lit("UNTESTED" if c.get("untested") else "", "bold"),
                lit(most_asked(c), width=200),
                key=str(c["id"]),
            )
        self._show_list()

    def _unasked(self) -> list[UnaskedQuestion]:
        """The test questions nobody asks, least asked first."""
        unasked = self.section.get("unasked_questions") if self.section else None
        return unasked.get("questions", []) if unasked else []

    @property
    def cluster(self) -> TrafficClusterEntry | None:
        clusters = self.section.get("clusters", []) if self.section else []
        table = self.query_one("#traffic-clusters", DataTable)
        return clusters[min(table.cursor_row, len(clusters) - 1)] if clusters and table.cursor_row >= 0 else None

    @on(DataTable.RowHighlighted, "#traffic-clusters")
    def _cluster_highlighted(self) -> None:
        if self.view == "cluster":
            self._show_list()

    def action_cycle_view(self) -> None:
        self.view = VIEWS[(VIEWS.index(self.view) + 1) % len(VIEWS)]

    def watch_view(self) -> None:
        self._show_list()

    def _show_list(self) -> None:
        table = self.query_one("#traffic-list", PagedTable)
        sid, db = self.sid, self.context.db
        if self.view == "unasked":
            rows = [{**q, "key": q["id"]} for q in self._unasked()]
            table.label = "Tests nobody asks, least asked first (v: next list)"
            table.set_columns(UNASKED_COLUMNS)
            table.show(lambda o, n: Page(rows[o : o + n], len(rows), o), self._unasked_row)
            return
        if self.view == "unanswerable":
            table.label = "Queries the corpus cannot answer, most asked first (v: next list)"
            table.set_columns(GAP_COLUMNS)
            table.show(
                lambda o, n: self._keyed(traffic_queries(db, sid, answerable=False, offset=o, limit=n)), self._gap_row
            )
            return
        cluster = self.cluster
        table.set_columns(QUERY_COLUMNS)
        if cluster is None:
            table.label = "Queries"
            table.show(None, self._query_row)
            return
        table.label = f"Queries of cluster {cluster['id']}, most asked first (v: next list)"
        table.show(
            lambda o, n: self._keyed(traffic_queries(db, sid, cluster=cluster["id"], offset=o, limit=n)),
            self._query_row,
        )

    @staticmethod
    def _keyed(page: Page[JsonObject]) -> Page[JsonObject]:
        return Page([r | {"key": r["seq"]} for r in page.rows], page.total, page.offset)

    @staticmethod
    def _query_row(r: JsonObject) -> list[Text]:
        mark = "" if r["answerable"] else " (corpus cannot answer)"
        return [
            num(r["count"]),
            num(r["question_similarity"], 2),
            lit(r["nearest_question"]),
            lit(r["text"] + mark, width=300),
        ]

    @staticmethod
    def _gap_row(r: JsonObject) -> list[Text]:
        return [num(r["count"]), num(r["chunk_similarity"], 2), num(r["cluster"]), lit(r["text"], width=300)]

    @staticmethod
    def _unasked_row(q: JsonObject) -> list[Text]:
        return [
            lit(q["id"]),
            num(q.get("similarity"), 2),
            lit(q.get("text"), width=32),
            lit(f"{q.get('nearest_query')} ×{q.get('nearest_query_count')}", width=200),
        ]

    def action_detail(self) -> None:
        row = self.query_one("#traffic-list", PagedTable).current
        if row is None:
            return
        if self.view == "unasked":
            body = Text("\n").join(
                [
                    lit(f"{row['id']}: {row.get('text')}"),
                    lit(
                        f"nearest query ({fmt(row.get('similarity'))}): {row.get('nearest_query')} ×{row.get('nearest_query_count')}"
                    ),
                ]
            )
            self.app.push_screen(TextScreen(f"Test question {row['id']}", body))
            return
        lines = [
            row["text"],
            f"asked {row['count']:,} times"
            + (f", {row['first_seen']} to {row['last_seen']}" if row.get("first_seen") else ""),
            f"traffic cluster {row['cluster']} · nearest test question {row['nearest_question'] or '—'} "
            f"(similarity {fmt(row['question_similarity'])})",
            f"nearest chunk {row['nearest_chunk']} (similarity {fmt(row['chunk_similarity'])})"
            + ("" if row["answerable"] else ": the corpus cannot answer it (a content gap)"),
        ]
        self.app.push_screen(TextScreen("Query", Text("\n").join(lit(line) for line in lines)))

    @on(DataTable.RowSelected, "#traffic-list")
    def _query_selected(self) -> None:
        self.action_detail()
