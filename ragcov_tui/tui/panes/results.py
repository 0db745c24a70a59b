"""Results (eval sessions): the per-question table, sortable, ``/`` filter (text, or ``metric<0.5``),
``n`` / ``N`` through the matches, ``enter`` for the detail view, histograms of faithfulness and robustness."""

from __future__ import annotations

import re
from dataclasses import replace

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.reactive import var
from textual.widgets import DataTable

from ragcov_tui.evaluation.judge_alignment import judged_metrics
from ragcov_tui.services.reference import question_reference
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.store import queries
from ragcov_tui.store.labels import item_labels, set_label, undo_label
from ragcov_tui.store.rows import EvalItemRow
from ragcov_tui.store.sessions import get_session
from ragcov_tui.tui.context import PaneContext
from ragcov_tui.tui.details.eval_item import EvalItemScreen
from ragcov_tui.tui.messages import LabelsChanged
from ragcov_tui.tui.widgets.charts import Chart
from ragcov_tui.tui.widgets.filter_bar import FILTER_BINDINGS, Filterable, FilterBar
from ragcov_tui.tui.widgets.literal import lit, num
from ragcov_tui.tui.widgets.paged_table import PagedTable

PREFERRED = (
    "hit@",
    "mrr",
    "faithfulness",
    "answer_correctness",
    "abstention",
    "answered",
    "ndcg@",
    "answer_relevance",
    "robustness",
)
HISTOGRAMS = ("faithfulness", "robustness")
DIAGNOSIS_LABELS = {  # stored diagnosis -> the short form the table shows (the detail view and help give both)
    "ok": "ok",
    "retrieval_failure": "retr fail",
    "ranking_failure": "rank fail",
    "generation_failure": "gen fail",
    "no_gold": "no gold",
    "undetermined": "unscored",
    "refused": "refused",
    "answered_unanswerable": "no abst",  # "I don't know" to an answerable / out-of-scope question
}
FAILURES = frozenset({"retrieval_failure", "ranking_failure", "generation_failure", "refused", "answered_unanswerable"})


def diagnosis_label(diagnosis: str | None) -> Text:
    """The short, readable form of a stored diagnosis (failures in bold, so they stand out without colour)."""
    label = DIAGNOSIS_LABELS.get(diagnosis or "", diagnosis)
    return lit(label, "bold" if diagnosis in FAILURES else "", width=9)


SHORT_NAMES = {
    "faithfulness": "faith",
    "answer_relevance": "relev",
    "answer_correctness": "corr",
    "robustness": "robust",
    "abstention": "abst",
    "answered": "answd",
}
COMPARISON = re.compile(r"^\s*([\w@.]+)\s*(<=|>=|<|>|=)\s*(-?\d+(?:\.\d*)?|-?\.\d+)\s*$")


def short_name(metric: str) -> str:
    """The column title of a metric (``faithfulness`` → ``faith``); ``/`` accepts either form."""
    return SHORT_NAMES.get(metric, metric)


def filter_query(text: str, metrics: list[str]) -> str:
    """The core's query for a typed filter: a comparison on a metric by its column title, its full
    name or, for a metric with a cut-off, its name without it as ``--metrics`` and ``--fail-under``
    read it (``faith<0.5`` → ``faithfulness<0.5``, ``ndcg<0.5`` → ``ndcg@10<0.5``), else text to
    find; a short diagnosis label (``gen fail``) finds the stored name (``generation_failure``).

    BadInput for a comparison on a name that is not one of ``metrics``, or text with ``<`` / ``>``
    / ``=`` that is not ``NAME OP NUMBER``."""
    match = COMPARISON.match(text)
    names = {
        **{m.partition("@")[0]: m for m in metrics if "@" in m},
        **{m: m for m in metrics},
        **{short_name(m): m for m in metrics},
    }
    shown = ", ".join(dict.fromkeys(short_name(m) for m in metrics)) or "none in this session"
    if match:
        name, op, value = match.groups()
        if name not in names:
            raise BadInput(f"unknown column {name!r} in {text.strip()!r}; columns: {shown}")
        return f"{names[name]}{op}{value}"
    if any(c in text for c in "<>="):
        raise BadInput(f"malformed filter {text.strip()!r}: write COLUMN<0.5 (<, <=, =, >=, >); columns: {shown}")
    full = {short: name for name, short in DIAGNOSIS_LABELS.items()}
    return full.get(text.strip().lower(), text)


# A person's verdict on the highlighted item, one key per judged metric: each press steps
# none → yes → no → none (stored at once, store/labels.py); u undoes the session's newest change.
LABEL_KEYS = {
    "faithfulness": "f",
    "answer_relevance": "v",
    "answer_correctness": "c",
    "answer_correctness_graded": "d",
    "context_precision": "p",
    "context_recall": "r",
    "robustness": "b",
}
NEXT_LABEL = {None: 1, 1: 0, 0: None}
LABEL_WORDS = {1: "yes", 0: "no", None: "none"}


class ResultsPane(Filterable):
    title = "Results"
    needs = "eval"
    filter_table = "#results-table"
    BINDINGS = [
        Binding("enter", "detail", "Detail"),
        *FILTER_BINDINGS,
        Binding("s", "sort", "Sort"),
        Binding("S", "reverse", "Reverse", show=False),
        Binding("h", "toggle_charts", "Histograms"),
        # the footer has room for one label key (faithfulness); ? lists them all
        *(
            Binding(key, f"label('{metric}')", f"Label {short_name(metric)}", show=metric == "faithfulness")
            for metric, key in LABEL_KEYS.items()
        ),
        Binding("u", "undo_label", "Undo label"),
        Binding("A", "alignment", "Alignment", show=False),
    ]
    judged: var[list[str]] = var(list, bindings=True)
    """The session's judged metrics: the label keys that work (and show in the footer)."""
    sort_key: var[str] = var("id")
    descending: var[bool] = var(False)

    def __init__(self, context: PaneContext, *, id: str | None = None) -> None:
        super().__init__(context, id=id)
        self.metrics: list[str] = []  # the metric columns shown, in PREFERRED order
        self.present: list[str] = []  # every metric the session holds, the shown ones first
        self.charts: list[str] = []  # the HISTOGRAMS the session holds values of
        self.charts_drawn = False

    def compose(self) -> ComposeResult:
        yield self.compose_empty()
        yield FilterBar(
            "text to find, or a test like faith<0.5 or ndcg<0.5 (a column title or full name) · "
            "enter apply · esc clear",
            id="results-filter",
        )
        yield PagedTable[EvalItemRow]("Results", [], key=lambda r: r.question_id, id="results-table")
        with Horizontal(id="results-charts"):
            for metric in HISTOGRAMS:
                yield Chart(id=f"results-{metric}")

    def render_session(self) -> None:
        self.judged = judged_metrics(self.context.db, self.sid)
        keys = queries.eval_metric_keys(self.context.db, self.sid)
        present = keys["retrieval"] + keys["generation"]
        self.metrics = [m for p in PREFERRED for m in present if m.startswith(p) and (p.endswith("@") or m == p)]
        if self.sort_key not in ("id", "diagnosis", *present):
            self.sort_key = "id"
        table = self.query_one(PagedTable)
        narrow = self.app.size.width < 100
        self.metrics = self.metrics[:4] if narrow else self.metrics
        self.present = [*self.metrics, *(m for m in present if m not in self.metrics)]  # the shown columns first
        table.set_columns(
            [("id", 8), ("question", 21 if narrow else 40), ("diagnosis", 9)]
            + [(short_name(m), max(6, len(short_name(m)))) for m in self.metrics]
        )  # never cut
        self._show()
        self.charts = [m for m in HISTOGRAMS if queries.metric_defined(self.context.db, self.sid, m)]
        for metric in HISTOGRAMS:  # no empty chart for a metric the run did not score (a retrieval-only run)
            self.query_one(f"#results-{metric}", Chart).set_class(metric not in self.charts, "-unmeasured")
        self.set_class(not self.charts, "-unmeasured")
        self.charts_drawn = False
        self.call_after_refresh(self._draw_charts)

    def _draw_charts(self) -> None:
        """Fill the histograms once they are on screen (they are hidden on short terminals until ``h``)."""
        if self.charts_drawn or not self.query_one("#results-charts").display or not self.sid:
            return
        self.charts_drawn = True
        for metric in self.charts:
            values = queries.metric_values(self.context.db, self.sid, metric)
            self.query_one(f"#results-{metric}", Chart).draw_bars(
                f"{metric} (n={len(values)})",
                [f"{i / 10:.1f}" for i in range(10)],
                queries.histogram(values, 10, 0.0, 1.0),
            )

    def _fetch(self, offset: int, limit: int) -> queries.Page[EvalItemRow]:
        return queries.eval_page(
            self.context.db,
            self.sid,
            sort=self.sort_key,
            descending=self.descending,
            query=filter_query(self.query_text, self.present),
            offset=offset,
            limit=limit,
        )

    def _row(self, r: EvalItemRow) -> list[Text]:
        values = {**r.retrieval, **r.generation}
        return [
            lit(r.question_id),
            lit(r.question, width=40),
            diagnosis_label(r.diagnosis),
            *(num(values.get(m), 2) for m in self.metrics),
        ]

    def _show(self, cursor: int = 0) -> None:
        table = self.query_one(PagedTable)
        arrow = "↓" if self.descending else "↑"
        table.label = f"Results by {self.sort_key} {arrow}{self.filter_caption()}"
        table.show(self._fetch, self._row, cursor=cursor)

    def show_filtered(self) -> None:
        """Only the rows matching ``query_text`` (see :func:`filter_query`); BadInput if it is not a filter."""
        self._show()

    def action_sort(self) -> None:
        order = ["id", "diagnosis", *self.metrics]
        self.sort_key = order[(order.index(self.sort_key) + 1) % len(order)] if self.sort_key in order else "id"
        self.descending = self.sort_key in self.metrics
        self._show()

    def action_reverse(self) -> None:
        self.descending = not self.descending
        self._show()

    def on_resize(self) -> None:
        """A terminal grown past 30 rows shows the histograms: fill them then, not only on ``h``."""
        self.call_after_refresh(self._draw_charts)

    def action_toggle_charts(self) -> None:
        if self.sid and not self.charts:
            self.app.notify(f"No histograms: {' and '.join(HISTOGRAMS)} were not measured in this session")
            return
        self.toggle_class("-charts")
        self.call_after_refresh(self._draw_charts)

    def action_detail(self) -> None:
        row: EvalItemRow | None = self.query_one(PagedTable).current
        item = queries.eval_detail(self.context.db, self.sid, row.question_id) if row is not None else None
        if item is not None:
            session = get_session(self.context.db, self.sid)
            item = replace(item, labels=item_labels(self.context.db, self.sid, item.question_id))
            self.app.push_screen(EvalItemScreen(item, question_reference(session, item.question_id)))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A label key works (and shows in the footer) only for a judged metric the session scored."""
        if action == "label":
            return bool(self.sid) and parameters[0] in self.judged
        if action == "undo_label":
            return bool(self.sid) and bool(self.judged)
        return super().check_action(action, parameters)

    def action_label(self, metric: str) -> None:
        """The metric's key: the highlighted item's label steps none → yes → no → none."""
        row: EvalItemRow | None = self.query_one(PagedTable).current
        if row is None:
            return
        qid = row.question_id
        now = item_labels(self.context.db, self.sid, qid).get(metric)
        change = set_label(self.context.db, self.sid, qid, metric, NEXT_LABEL[now])
        self._said(f"{qid} {metric}: labelled {LABEL_WORDS[change.after]} (was {LABEL_WORDS[change.before]}; u undoes)")

    def action_undo_label(self) -> None:
        change = undo_label(self.context.db, self.sid)
        if change is None:
            self.app.notify("No label change to undo in this session.", severity="warning")
            return
        self._said(
            f"undone: {change.question_id} {change.metric} back to {LABEL_WORDS[change.after]} "
            f"(was {LABEL_WORDS[change.before]})"
        )

    def _said(self, line: str) -> None:
        self.app.notify(line, markup=False)
        self.post_message(LabelsChanged(self, self.sid))

    def action_alignment(self) -> None:
        """``A``: the Alignment pane (the judge against this session's labels)."""
        self.call_after_refresh(self.app.run_action, "show('alignment')")

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_detail()
