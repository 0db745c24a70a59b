"""Sessions: every stored run, open / rename / delete / compare, and the trend of its test file.

The list follows the database (the app polls it): runs of other processes appear, a running one
shows its progress (``run 30%``), one whose process died shows ``interrupted``. A running session
cannot be deleted (its process is still writing to it); ``d`` says so in one line.
"""

from __future__ import annotations

from pathlib import PurePath

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Static

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.store import queries
from ragcov_tui.store.liveness import percent_done, state_line
from ragcov_tui.store.rows import SessionRow
from ragcov_tui.store.sessions import delete_session, get_session, rename_session
from ragcov_tui.tui.messages import SessionDeleted, SessionOpened
from ragcov_tui.tui.modals import CompareScreen, ConfirmScreen, TextPrompt
from ragcov_tui.tui.widgets.charts import Chart
from ragcov_tui.tui.widgets.filter_bar import FILTER_BINDINGS, Filterable, FilterBar
from ragcov_tui.tui.widgets.literal import labelled_grid, lit, num
from ragcov_tui.tui.widgets.paged_table import PagedTable

HEADLINE = {"analysis": ("basic", "weighted"), "eval": ("retrieval.mrr", "generation.faithfulness")}
WIDE = [
    (" ", 1),
    ("id", 8),
    ("kind", 8),
    ("status", 11),
    ("created", 16),
    ("name", 14),
    ("test file", 13),
    ("embedder/sys", 12),
    ("cov/MRR", 7),
    ("w/faith", 7),
]  # 117 columns: both figures at 120
# below 100 columns (79 in all, both figures kept): the date without its year but with its time, and
# the name cut with an ellipsis past 10 characters (the detail box under the list shows both in full)
NARROW = [
    (" ", 1),
    ("id", 8),
    ("kind", 8),
    ("status", 11),
    ("created", 11),
    ("name", 10),
    ("cov/MRR", 7),
    ("w/faith", 7),
]
MARKS = "> open, * marked"  # the first column's marks, in the list's title (? says more)


def status_cell(session: SessionRow) -> Text:
    """``done`` / ``cancelled`` / ``interrupted``…; a running session with its progress: ``run 30%``."""
    pct = percent_done(session)
    return lit(
        f"run {pct}%" if pct is not None else session["status"],
        "bold" if session["status"] in ("running", "interrupted", "failed") else "",
    )


def headline_cells(session: SessionRow) -> tuple[Text, Text]:
    """The two headline figures of a session (coverage for analyses, MRR / faithfulness for evals)."""
    flat = queries.flat_summary(session.get("summary"))
    first, second = HEADLINE.get(session["kind"], ("", ""))
    return num(flat.get(first)), num(flat.get(second))


def headline_text(session: SessionRow) -> str:
    """The two headline figures named (``basic 0.610 · weighted 0.580``), for the detail box."""
    names = HEADLINE.get(session["kind"], ())
    return "  ·  ".join(
        f"{name.split('.')[-1]} {cell.plain}" for name, cell in zip(names, headline_cells(session), strict=False)
    )


class SessionsPane(Filterable):
    title = "Sessions"
    filter_table = "#sessions-table"
    BINDINGS = [
        Binding("enter", "open", "Open"),
        Binding("r", "rename", "Rename", priority=True),
        Binding("d", "delete", "Delete"),
        Binding("space", "mark", "Mark"),
        Binding("c", "compare", "Compare"),  # two marked sessions side by side
        Binding("t", "toggle_trend", "Trend"),
        *FILTER_BINDINGS,
    ]

    def compose(self) -> ComposeResult:
        yield self.compose_empty()
        yield FilterBar(
            "find in id, name, kind, test file, embedder, system, date · enter apply · esc clear", id="sessions-filter"
        )
        yield PagedTable[SessionRow]("Sessions", WIDE, key=lambda s: s["id"], page_size=500, id="sessions-table")
        yield Static(id="sessions-detail")
        yield Chart(id="sessions-trend")

    def render_session(self) -> None:
        """Every stored session (this pane shows no one session: ``sid`` is '')."""
        self._show(self.query_one(PagedTable).cursor_row)

    def show_filtered(self) -> None:
        self._show(0)

    def _show(self, cursor: int) -> None:
        """Reload; the cursor stays on the session it was on (new sessions arrive at the top)."""
        table = self.query_one(PagedTable)
        on = table.current["id"] if table.current else None
        columns = NARROW if self.app.size.width < 100 else WIDE
        if columns != table.column_spec:
            table.set_columns(columns)
        table.label = f"Sessions, newest first · {MARKS}{self.filter_caption()}"
        table.show(self._fetch, self._row, cursor=cursor)
        ids = [row["id"] for row in table.page.rows]
        if on in ids and ids.index(on) != table.cursor_row:
            table.move_cursor(row=ids.index(on))
        self._draw_trend()

    def action_toggle_trend(self) -> None:
        """Show / hide the trend chart (shown from 30 rows; below, it would leave the list 3 rows)."""
        self.toggle_class("-trend")

    def on_resize(self) -> None:
        """Re-lay out the table when the terminal crosses the narrow / wide width."""
        if (NARROW if self.app.size.width < 100 else WIDE) != self.query_one(PagedTable).column_spec:
            self._show(self.query_one(PagedTable).cursor_row)

    def _fetch(self, offset: int, limit: int) -> queries.Page[SessionRow]:
        return queries.session_page(self.context.db, offset, limit, query=self.query_text)

    def _row(self, s: SessionRow) -> list[Text]:
        table = self.query_one(PagedTable)
        opened = s["id"] in (self.context.sessions.analysis, self.context.sessions.eval)
        mark = "*" if table.is_marked(s) else (">" if opened else " ")
        what = s.get("system") if s["kind"] == "eval" else s.get("embedder")
        widths = dict(table.column_spec)
        created = (s["created_at"] or "")[:16].replace("T", " ")
        cells = {
            "id": lit(s["id"]),
            "kind": lit(s["kind"]),
            "status": status_cell(s),
            "created": lit(created if (widths["created"] or 0) >= 16 else created[5:]),
            "name": lit(s.get("name") or "", width=widths["name"]),
            "test file": lit(PurePath(s.get("questions_path") or "").name, width=widths.get("test file")),
            "embedder/sys": lit(what, width=widths.get("embedder/sys")),
        }
        cells["cov/MRR"], cells["w/faith"] = headline_cells(s)
        return [lit(mark, "bold"), *(cells[title] for title, _ in table.column_spec[1:])]

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._draw_trend()

    def _detail(self) -> None:
        """The highlighted session in full: what a narrow table cuts (test file, corpus, embedder, system, LLM)."""
        s = self.query_one(PagedTable).current
        box = self.query_one("#sessions-detail", Static)
        if s is None:
            box.update(
                lit("No sessions match the filter." if self.query_text else "No sessions yet: start one in Jobs.")
            )
            return
        what = f"system {s.get('system')}  ·  " if s["kind"] == "eval" else ""
        box.update(
            labelled_grid(
                [
                    (
                        s["kind"],
                        f"{s['id']} {s.get('name') or ''}  ·  {s['status']}  ·  {(s['created_at'] or '')[:19].replace('T', ' ')}",
                    ),
                    ("test file", s.get("questions_path")),
                    ("corpus", ", ".join(s.get("corpus") or []) or None),
                    ("with", f"{what}embedder {s.get('embedder') or '—'}  ·  LLM {s.get('llm') or 'none'}"),
                    ("scores", headline_text(s)),
                    *([("state", state_line(s))] if s["status"] != "done" else []),
                ],
                label_width=10,
            )
        )

    def _draw_trend(self) -> None:
        self._detail()
        chart = self.query_one(Chart)
        row = self.query_one(PagedTable).current
        if row is None:
            chart.draw_message("Trend", "no sessions yet")
            return
        log = queries.traffic_source(self.context.db, row["id"]) if row["kind"] == "analysis" else None
        series = queries.trend(self.context.db, row.get("questions_path"), row["kind"], traffic=log)
        if not series:
            chart.draw_message(
                f"Trend · {PurePath(row.get('questions_path') or '').name}", "no finished sessions of this test file"
            )
        else:  # the test file is named in the detail box above; short names keep the key in the title
            chart.draw_lines(
                f"{row['kind']} trend of this test file, oldest → newest",
                {_trend_label(name): values for name, values in series.items()},
            )

    def rerun_sid(self) -> str | None:
        """``R`` here reruns the highlighted session."""
        row = self.query_one(PagedTable).current
        return row["id"] if row else None

    def action_open(self) -> None:
        row = self.query_one(PagedTable).current
        if row is not None:
            self.post_message(SessionOpened(row["id"]))

    def action_mark(self) -> None:
        self.query_one(PagedTable).toggle_mark()

    def action_rename(self) -> None:
        row = self.query_one(PagedTable).current
        if row is None:
            return

        def done(name: str | None) -> None:
            if name is not None:
                rename_session(self.context.db, row["id"], name)
                self.render_session()

        TextPrompt(f"Rename session {row['id']}", row.get("name") or "").open(self.app, done)

    def action_delete(self) -> None:
        row = self.query_one(PagedTable).current
        if row is None:
            return
        if row.get("live"):
            self.app.notify(
                f"Session {row['id']} is running: running sessions can be cancelled, not deleted.",
                severity="warning",
                markup=False,
            )
            return

        def done(yes: bool | None) -> None:
            if yes:
                try:
                    delete_session(self.context.db, row["id"])
                except BadInput as exc:  # it was resumed meanwhile
                    self.app.notify(str(exc), severity="warning", markup=False)
                    return
                self.post_message(SessionDeleted(row["id"]))
                self.render_session()
                name = f" '{row['name']}'" if row.get("name") else ""
                self.app.notify(f"Deleted {row['kind']} session {row['id']}{name}.", markup=False)

        self.app.push_screen(
            ConfirmScreen(f"Delete session {row['id']} ({row['kind']}) and everything stored with it?"), done
        )

    def action_compare(self) -> None:
        table = self.query_one(PagedTable)
        if len(table.marked) != 2:
            self.app.notify("Mark exactly two sessions with space, then press c.", severity="warning")
            return
        a, b = (get_session(self.context.db, sid) for sid in sorted(table.marked))
        if a is None or b is None:  # deleted by another process since it was marked
            self.app.notify("A marked session no longer exists.", severity="warning")
            return
        self.app.push_screen(CompareScreen(a, b, self.context.db_path))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_open()


TREND_LABELS = {"multi_threshold": "multi thr", "multi_n": "multi top-n"}


def _trend_label(name: str) -> str:
    """A short key for the chart title: ``retrieval.mrr`` → ``mrr``, ``multi_n`` → ``multi top-n``."""
    short = name.rpartition(".")[2]
    return TREND_LABELS.get(short, short)
