"""Gaps: the ranked gap list (the paper's gap table) and its suggested questions.

Keys act on the highlighted suggestion (or every marked one): ``a`` accept into the test file (the
cursor moves on to the next open suggestion),
``d`` reject (remembered; the cursor stays on its row, now the next suggestion), ``e`` edit then
accept (listed with the edited text and origin ``edited``; the box shows it as suggested too),
``u`` undo, ``m`` more suggestions (the session's LLM, or the offline heuristic when it ran
without one), ``/`` filter the gaps.
Writes are immediate (see :mod:`ragcov_tui.services.triage`); the test file is re-read first and an
outside edit is reported in one line (:mod:`ragcov_tui.tui.triage_actions`). The table lists the gaps least
covered first with their priority and covered share (:mod:`ragcov_tui.coverage.gaps`); the box under
the lists shows how the gaps were chosen, the selected gap's advice (the same words as the CLI and
the Markdown report), its unreached part, full themes, note and flagged documents, and the
highlighted suggestion in full.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePath
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.notifications import SeverityLevel
from textual.widgets import DataTable, Static
from textual.worker import get_current_worker

from ragcov_tui.coverage.advice import open_gap_advice, unreached_text
from ragcov_tui.services import suggestions, triage
from ragcov_tui.shared.errors import RagcovError
from ragcov_tui.store import open_db, queries
from ragcov_tui.store.rows import GapRow, SuggestionRow
from ragcov_tui.store.sessions import get_session
from ragcov_tui.tui.context import PaneContext
from ragcov_tui.tui.details.rows import gap_detail
from ragcov_tui.tui.modals import TextPrompt, TextScreen
from ragcov_tui.tui.triage_actions import decided, reload_in, run_triage, undo_in
from ragcov_tui.tui.widgets.filter_bar import FILTER_BINDINGS, Filterable, FilterBar
from ragcov_tui.tui.widgets.literal import labelled_grid, lit, num
from ragcov_tui.tui.widgets.paged_table import PagedTable, Table

STATUS = {"open": "", "accepted": "ADDED"}
FLAG = "!"  # in the gap table: the gap is mostly content of flagged documents


class GapsPane(Filterable):
    title = "Gaps"
    needs = "analysis"
    filter_table = "#gaps-table"
    BINDINGS = [
        # decisions, then looking around (g / G jump to the first / last row in every table)
        Binding("a", "accept", "Accept"),
        Binding("d", "reject", "Reject"),
        Binding("e", "edit", "Edit+add", priority=True),
        Binding("u", "undo", "Undo"),
        Binding("enter", "detail", "Detail"),
        Binding("m", "generate", "More"),
        Binding("space", "mark", "Mark"),
        *FILTER_BINDINGS,
    ]

    def __init__(self, context: PaneContext, *, id: str | None = None) -> None:
        super().__init__(context, id=id)
        self.gaps: list[GapRow] = []
        self.rule: str | None = None  # how the gaps were chosen (the report's calibration.gaps_text)
        self.testset: str | None = None  # the session's test file, where accepted questions go
        self.write_problem: str | None = None  # why accepted questions cannot go to the test file (None: they can)
        self.listed: tuple[str | None, int | None] | None = None  # (session, gap cluster) the lower list shows

    def compose(self) -> ComposeResult:
        yield self.compose_empty()
        yield FilterBar(
            "find in themes, notes, flagged documents, suggestions · enter apply · esc clear", id="gaps-filter"
        )
        yield Table(id="gaps-table")
        yield PagedTable[SuggestionRow](
            "Suggested questions",
            [(" ", 1), ("status", 6), ("origin", 10), ("question", None)],
            key=lambda s: str(s.id),
            id="gaps-suggestions",
        )
        yield Static(id="gaps-detail")

    def render_session(self) -> None:
        """The session's gaps, its test file re-read first (an outside edit said in one line)."""
        self.write_problem = reload_in(self)
        session = get_session(self.context.db, self.sid)
        self.testset = session.get("questions_path") if session else None
        self.rule = (queries.analysis_report(self.context.db, self.sid).get("calibration") or {}).get("gaps_text")
        self._draw()

    def _draw(self, cursor: int | None = None, *, next_open: bool = False) -> None:
        """Query and list the gaps (the gap cursor stays on its row) and the selected gap's
        suggestions with the cursor on row ``cursor`` (see :meth:`_show_suggestions`); ``next_open``:
        on the first open suggestion from that row on (after a decision, see :meth:`_next_open`)."""
        table = self.query_one("#gaps-table", DataTable)
        keep = table.cursor_row
        table.clear(columns=True)
        table.add_columns("#", FLAG, "cluster", "prio", "covd", "cov", "size", "share", "themes")
        self.gaps = queries.gap_rows(self.context.db, self.sid, self.testset, query=self.query_text)
        flagged = sum(1 for g in self.gaps if g["flagged_documents"])
        legend = f" · {FLAG} = mostly flagged documents" if flagged else ""
        table.border_title = f"Gaps ({len(self.gaps)}), least covered first{legend}{self.filter_caption()}"
        for g in self.gaps:
            table.add_row(
                num(g["rank"]),
                lit(FLAG if g["flagged_documents"] else "", "bold"),
                num(g["cluster"]),
                num(g["priority"], 2),
                num(g.get("covered_share"), 2),
                num(g["coverage"], 2),
                num(g["size"]),
                num(g.get("share"), 2),
                lit(", ".join(g.get("themes") or []), width=60),
            )
        if self.gaps:
            table.move_cursor(row=max(0, min(keep, len(self.gaps) - 1)))
        self._show_suggestions(self._next_open(cursor) if next_open and cursor is not None else cursor)

    def show_filtered(self) -> None:
        self.query_one("#gaps-table", DataTable).move_cursor(row=0)
        self._draw()

    @property
    def gap(self) -> GapRow | None:
        row = self.query_one("#gaps-table", DataTable).cursor_row
        return self.gaps[row] if self.gaps and 0 <= row < len(self.gaps) else None

    @on(DataTable.RowHighlighted, "#gaps-table")
    def _gap_highlighted(self) -> None:
        """Another gap: list its suggestions. The highlight a rebuilt table sends for the gap already
        listed changes nothing (the pass that rebuilt it listed them)."""
        if (self.sid, self.gap["cluster"] if self.gap else None) != self.listed:
            self._show_suggestions()

    @on(DataTable.RowHighlighted, "#gaps-suggestions")
    def _suggestion_highlighted(self) -> None:
        self._detail()

    def _show_suggestions(self, cursor: int | None = None) -> None:
        """List the selected gap's suggestions with the cursor on row ``cursor`` of the whole list;
        None: the row it is on when the gap is the one already listed (a refresh, or the highlight
        event a rebuilt gap table sends after a decision), else the first."""
        table = self.query_one(PagedTable)
        gap = self.gap
        rows = gap["suggestions"] if gap else []
        cluster = gap["cluster"] if gap else None
        if cursor is None:
            cursor = self._position() if (self.sid, cluster) == self.listed else 0
        self.listed = (self.sid, cluster)
        table.label = f"Suggested questions for cluster {cluster}" if gap else "Suggested questions"
        cursor = max(0, min(cursor, len(rows) - 1))
        offset = cursor - cursor % table.page_size
        table.show(
            lambda o, n: queries.Page(rows[o : o + n], len(rows), o), self._row, offset=offset, cursor=cursor - offset
        )
        self._detail()

    def _position(self) -> int:
        """The suggestion cursor's row in the whole list (across pages)."""
        table = self.query_one(PagedTable)
        return table.page.offset + max(0, table.cursor_row)

    def _detail(self) -> None:
        """The selected gap's full themes, note and flagged documents, and the highlighted suggestion in full."""
        gap, suggestion = self.gap, self.query_one(PagedTable).current
        box = self.query_one("#gaps-detail", Static)
        if gap is None:
            empty = "No gaps match the filter." if self.query_text else "No gaps: every cluster is covered."
            box.update(lit(f"{empty} {self.rule or ''}".strip()))
            return
        pairs: list[tuple[str, Any]] = [("advice", lit(open_gap_advice(gap), "bold"))]
        pairs.append(
            ("cannot add", lit(self.write_problem, "bold"))
            if self.write_problem
            else ("adds to", PurePath(self.testset or "").name or None)
        )  # the path: in Sessions' detail
        if text := unreached_text(gap):
            pairs.append(("unreached", text.removeprefix("unreached: ")))
        pairs.append(("themes", ", ".join(gap.get("themes") or []) or None))
        if self.rule:
            pairs.append(("rule", self.rule))
        if gap["note"]:
            pairs.append(("note", lit(gap["note"], "bold")))
        if gap["flagged_documents"] and gap["flagged_documents"][0] not in gap["note"]:
            pairs.append(("flagged docs", ", ".join(gap["flagged_documents"])))
        if suggestion is not None and suggestion.edited:
            pairs += [("edited", suggestion.text), (suggestion.origin, suggestion.suggested)]
        elif suggestion is not None:
            pairs.append((suggestion.origin, suggestion.text))
        else:
            pairs.append(("suggestions", "none yet: m asks for more"))
        box.update(labelled_grid(pairs, label_width=13))

    def action_detail(self) -> None:
        """The highlighted gap in full, with the highlighted suggestion."""
        gap = self.gap
        if gap is not None:
            suggestion = self.query_one(PagedTable).current
            chunk = queries.suggestion_chunk(self.context.db, self.sid, suggestion.chunk_id if suggestion else None)
            self.app.push_screen(TextScreen(f"Gap: cluster {gap['cluster']}", gap_detail(gap, suggestion, chunk)))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_detail()

    def _row(self, s: SuggestionRow) -> list[Text]:
        marked = self.query_one(PagedTable).is_marked(s)
        return [
            lit("*" if marked else " ", "bold"),
            lit(STATUS.get(s.status, s.status), "bold"),
            lit("edited" if s.edited else s.origin, width=10),
            lit(s.text, width=300),
        ]

    def _targets(self) -> list[SuggestionRow]:
        table: PagedTable[SuggestionRow] = self.query_one(PagedTable)
        rows = table.page.rows
        chosen = [s for s in rows if table.is_marked(s)] or ([table.current] if table.current else [])
        return [s for s in chosen if s.status == "open"]

    def _decide(self, what: str, fn: Callable[[SuggestionRow], Any]) -> None:
        targets = self._targets()
        if not targets:
            self.app.notify("No open suggestion here.", severity="warning")
            return
        cursor = self._position()
        self.write_problem = reload_in(self)

        def call(s: SuggestionRow) -> Callable[[bool], Any]:
            return lambda _force: fn(s)

        done = sum(run_triage(self.app, what, call(s)) for s in targets)
        self.query_one(PagedTable).marked.clear()
        decided(self, lambda: self._draw(cursor, next_open=bool(done)))
        if done:
            self.app.notify(
                f"{what}: {done} suggestion{'s' if done > 1 else ''}"
                + (f" → {self.testset}" if what != "reject" else ""),
                markup=False,
            )

    def action_accept(self) -> None:
        self._decide(
            "accepted",
            lambda s: triage.accept_suggestion(self.context.db, self.sid, s.id, keep_backups=self.context.keep_backups),
        )

    def action_reject(self) -> None:
        self._decide("reject", lambda s: triage.reject_suggestion(self.context.db, self.sid, s.id))

    def action_edit(self) -> None:
        targets = self._targets()
        if not targets:
            self.app.notify("No open suggestion here.", severity="warning")
            return
        s = targets[0]

        def done(text: str | None) -> None:
            if text is not None and text.strip():
                what = "accepted" if text.strip() == s.text.strip() else "edited and accepted"  # the core's rule
                self._decide(
                    what,
                    lambda _s: triage.accept_suggestion(
                        self.context.db, self.sid, s.id, text=text, keep_backups=self.context.keep_backups
                    ),
                )

        TextPrompt("Edit the question, enter to accept it into the test file", s.text).open(self.app, done)

    def _next_open(self, cursor: int) -> int:
        """After a decision: the first open suggestion of the gap from row ``cursor`` on (an accepted
        one stays listed as ADDED, a rejected one leaves), else the nearest before it, else ``cursor``."""
        rows = self.gap["suggestions"] if self.gap else []
        order = [*range(cursor, len(rows)), *range(min(cursor, len(rows)) - 1, -1, -1)]
        return next((i for i in order if rows[i].status == "open"), cursor)

    def action_undo(self) -> None:
        cursor = self._position()
        undo_in(self, lambda: self._draw(cursor))

    def action_mark(self) -> None:
        self.query_one(PagedTable).toggle_mark()

    def action_generate(self) -> None:
        gap = self.gap
        if gap is None or not self.sid:
            return
        self.app.notify(f"Looking for more questions for cluster {gap['cluster']}…")
        self._generate(self.context.db_path, self.sid, gap["cluster"])

    @work(thread=True, group="suggest", exit_on_error=False, exclusive=True)
    def _generate(self, db_path: str, sid: str, cluster: int) -> None:
        """Worker: its own database connection; the session's LLM, or the offline heuristic."""
        db = open_db(db_path)
        severity: SeverityLevel
        try:
            added, origin = suggestions.more_suggestions(db, sid, cluster)
            if added:
                message, severity = f"{len(added)} new {origin} suggestion(s) for cluster {cluster}", "information"
            else:
                message, severity = (
                    (
                        f"no new {origin} suggestions for cluster {cluster}: every candidate is already "
                        "suggested, rejected or in the test file"
                    ),
                    "warning",
                )
        except RagcovError as exc:
            message, severity = str(exc), "error"
        finally:
            db.conn.close()
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._generated, message, severity)

    def _generated(self, message: str, severity: SeverityLevel) -> None:
        self.app.notify(message, severity=severity, markup=False)
        self._draw(self._position())
