"""Outliers: questions by LOF score with their nearest chunk (keep / drop / undo), and redundant pairs.

``l`` switches the table to the questions with a test-set lint finding (all kinds, then each kind
the session has: unanswerable, stale gold, …; then back to the outliers), with the reasons in the
detail; keep / drop work on them the same way.

The test file is re-read when the pane shows a session and before each action; dropping a row
that was edited or removed on disk asks first (see :mod:`ragcov_tui.tui.triage_actions`).
"""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.reactive import var
from textual.widgets import DataTable, Static

from ragcov_tui.services import triage
from ragcov_tui.store import queries
from ragcov_tui.store.rows import OutlierRow, RedundantPairRow
from ragcov_tui.testlint.findings import KINDS
from ragcov_tui.tui.context import PaneContext
from ragcov_tui.tui.details.rows import fmt, pair_detail, val
from ragcov_tui.tui.messages import DecisionMade
from ragcov_tui.tui.modals import TextScreen
from ragcov_tui.tui.triage_actions import reload_in, run_triage, undo_in
from ragcov_tui.tui.widgets.filter_bar import FILTER_BINDINGS, Filterable, FilterBar
from ragcov_tui.tui.widgets.literal import block, labelled_grid, lit, num
from ragcov_tui.tui.widgets.paged_table import PagedTable, Table

MARKS = {"keep": "kept", "drop": "DROPPED"}


class OutliersPane(Filterable):
    title = "Outliers"
    needs = "analysis"
    filter_table = "#outliers-table"
    BINDINGS = [
        Binding("a", "keep", "Keep"),
        Binding("d", "drop", "Drop"),
        Binding("u", "undo", "Undo"),  # decisions
        Binding("space", "mark", "Mark"),
        Binding("p", "toggle_pairs", "Pairs"),
        Binding("l", "lint_filter", "Lint"),
        Binding("enter", "full_text", "Full text / pair"),
        *FILTER_BINDINGS,
    ]
    show_pairs: var[bool] = var(False, bindings=True, toggle_class="-pairs")
    """The redundant pairs in place of the outlier list (keep / drop / mark are off meanwhile)."""

    def __init__(self, context: PaneContext, *, id: str | None = None) -> None:
        super().__init__(context, id=id)
        self.pairs: list[RedundantPairRow] = []
        self.lint_kind: str | None = None  # None: outliers; "all": any lint finding; else one kind

    def compose(self) -> ComposeResult:
        yield self.compose_empty()
        yield FilterBar("find in outlier question ids and texts · enter apply · esc clear", id="outliers-filter")
        yield PagedTable[OutlierRow](
            "Outlier questions by LOF",
            [(" ", 1), ("status", 7), ("id", 8), ("LOF", 5), ("dist", 5), ("question", None)],
            key=lambda r: r.question_id,
            id="outliers-table",
        )
        yield Static(id="outliers-detail")
        yield Table(id="outliers-pairs")

    def render_session(self) -> None:
        """The session's outliers and pairs, its test file re-read first (an outside edit said in one line)."""
        reload_in(self)
        table = self.query_one(PagedTable)
        table.marked.clear()
        self._show(table.cursor_row)
        pairs = self.query_one("#outliers-pairs", DataTable)
        pairs.clear(columns=True)
        pairs.add_columns("id", "question", "id", "near-duplicate")
        found = self.pairs = queries.redundant_pairs(self.context.db, self.sid)
        pairs.border_title = f"Redundant question pairs ({len(found)})"
        for p in found:
            pairs.add_row(lit(p["a"]), lit(p["a_text"], width=40), lit(p["b"]), lit(p["b_text"], width=40))
        self._detail()

    def show_filtered(self) -> None:
        if self.show_pairs:
            self.action_toggle_pairs()
        self._show(0)
        self._detail()

    def _show(self, cursor: int) -> None:
        table = self.query_one(PagedTable)
        if self.lint_kind is None:
            table.label = f"Outlier questions by LOF{self.filter_caption()}"
            table.show(
                lambda o, n: queries.outlier_page(self.context.db, self.sid, o, n, query=self.query_text),
                self._row,
                cursor=cursor,
            )
            return
        kind = None if self.lint_kind == "all" else self.lint_kind
        table.label = f"Lint findings: {self.lint_kind} (l: next){self.filter_caption()}"
        table.show(
            lambda o, n: queries.lint_page(self.context.db, self.sid, o, n, kind=kind, query=self.query_text),
            self._row,
            cursor=cursor,
        )

    def action_lint_filter(self) -> None:
        """Outliers → every lint finding → each kind the session has → outliers."""
        if not self.sid:
            return
        present = queries.lint_kind_counts(self.context.db, self.sid)
        steps: list[str | None] = [None, "all", *(k for k in KINDS if k in present)]
        self.lint_kind = steps[(steps.index(self.lint_kind) + 1) % len(steps)] if self.lint_kind in steps else None
        if self.show_pairs:
            self.action_toggle_pairs()
        self._show(0)
        self._detail()

    def _row(self, r: OutlierRow) -> list[Text]:
        marked = self.query_one(PagedTable).is_marked(r)
        status = MARKS.get(r.mark or "", "")
        text = f"[{r.kinds}] {r.text}" if r.kinds else r.text
        return [
            lit("*" if marked else " ", "bold"),
            lit(status, "bold" if status else ""),
            lit(r.question_id),
            num(r.lof_score, 2),
            num(r.nearest_chunk_dist, 2),
            lit(text, width=200),
        ]

    @on(DataTable.RowHighlighted, "#outliers-table")
    def _outlier_highlighted(self) -> None:
        self._detail()

    def _detail(self) -> None:
        row: OutlierRow | None = self.query_one(PagedTable).current
        detail = self.query_one("#outliers-detail", Static)
        if row is None:
            detail.update(
                lit(
                    "No outlier questions in this session."
                    if self.lint_kind is None
                    else "No lint findings of this kind in this session (l: next kind)."
                )
            )
            return
        lint = [("lint", block(row.reasons))] if row.reasons else []
        detail.update(
            labelled_grid(
                [
                    ("question", lit(row.text)),
                    *lint,
                    ("nearest chunk", lit(row.nearest_chunk, "bold")),
                    ("", lit(row.chunk_text, width=400)),
                ],
                label_width=14,
            )
        )

    def action_full_text(self) -> None:
        """The highlighted outlier and its nearest chunk, untruncated (line breaks kept)."""
        row: OutlierRow | None = self.query_one(PagedTable).current
        if row is None or self.show_pairs:
            return
        body = Group(
            labelled_grid(
                [
                    ("question", lit(row.text)),
                    ("LOF", val(row.lof_score)),
                    ("nearest chunk", lit(f"{row.nearest_chunk} · distance {fmt(row.nearest_chunk_dist)}")),
                ],
                label_width=14,
            ),
            Text(""),
            block(row.chunk_text),
        )
        self.app.push_screen(TextScreen(f"Outlier {row.question_id}", body))

    @on(DataTable.RowSelected, "#outliers-table")
    def _outlier_selected(self) -> None:
        self.action_full_text()

    @on(DataTable.RowSelected, "#outliers-pairs")
    def _pair_selected(self, event: DataTable.RowSelected) -> None:
        if 0 <= event.cursor_row < len(self.pairs):
            pair = self.pairs[event.cursor_row]
            self.app.push_screen(TextScreen(f"Redundant pair {pair['a']} · {pair['b']}", pair_detail(pair)))

    def _targets(self) -> list[str]:
        table: PagedTable[OutlierRow] = self.query_one(PagedTable)
        if table.marked:
            return sorted(table.marked)
        return [table.current.question_id] if table.current else []

    def _decide(self, what: str, fn: Any) -> None:
        """``fn(db, sid, question_id, force)`` for each target; a confirmed conflict reports on its own."""
        table = self.query_one(PagedTable)
        reload_in(self)

        def call(qid: str) -> Any:
            return lambda force: fn(self.context.db, self.sid, qid, force)

        def confirmed(qid: str) -> Any:
            return lambda: self._decided(what, [qid])

        done = [qid for qid in self._targets() if run_triage(self.app, what, call(qid), confirmed(qid))]
        table.marked.clear()
        self._decided(what, done)

    def _decided(self, what: str, done: list[str]) -> None:
        """Redraw after a decision; a keep or drop that went through makes every other pane stale
        (an undo already said so through :func:`decided`)."""
        if done:
            self.post_message(DecisionMade(self, self.sid))
        self.query_one(PagedTable).reload()
        self._detail()
        if done:
            self.app.notify(f"{what}: {', '.join(done)}", markup=False)

    def action_keep(self) -> None:
        self._decide("keep", lambda db, sid, qid, _force: triage.keep_question(db, sid, qid))

    def action_drop(self) -> None:
        keep = self.context.keep_backups
        self._decide(
            "drop", lambda db, sid, qid, force: triage.drop_question(db, sid, qid, force=force, keep_backups=keep)
        )

    def action_undo(self) -> None:
        def redraw() -> None:
            self.query_one(PagedTable).marked.clear()
            self._decided("undo", [])

        undo_in(self, redraw)

    def action_mark(self) -> None:
        self.query_one(PagedTable).toggle_mark()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Keep / drop / mark act on the outlier list: off (and out of the footer) while the pairs
        view hides it, or they would decide for a question the user cannot see."""
        return not (action in ("keep", "drop", "mark") and self.show_pairs) and super().check_action(action, parameters)

    def action_toggle_pairs(self) -> None:
        self.show_pairs = not self.show_pairs
        self.query_one("#outliers-pairs" if self.show_pairs else "#outliers-table").focus()
