"""Alignment: how far the open eval's judge agrees with the user's labels (``ragcov align`` on screen).

One row per labelled metric (labels yes / no, true-positive and true-negative rates, balanced
accuracy, kappa, ROC-AUC, each with its 95% interval, the best cut); below it, for the highlighted
metric, the verdict (certified, or about how many more labels of which class would decide it),
the judged mean beside its judge-corrected estimate, the confusion matrix and the calibration
table, and the calibration plot. The figures come from
:func:`ragcov_tui.evaluation.judge_alignment.session_alignment`; this pane only lays them out. The
tab shows while the open eval has labels (set them in Results: the footer names the keys).
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import DataTable, Static

from ragcov_tui.evaluation.judge_alignment import (
    ALIGNMENT_COLUMNS,
    alignment_rows,
    calibration_lines,
    confusion_lines,
    corrected_lines,
    session_alignment,
)
from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.tui.context import PaneContext
from ragcov_tui.tui.panes.base import Pane
from ragcov_tui.tui.widgets.charts import Chart
from ragcov_tui.tui.widgets.literal import lit
from ragcov_tui.tui.widgets.paged_table import Table

NO_LABELS = (
    "No labels in this eval yet. In Results, on an item, press a metric's key (f faithfulness, c correctness, "
    "…: yes, no, none; u undoes), or run `ragcov labels import FILE --session SESSION`."
)


class AlignmentPane(Pane):
    title = "Alignment"
    needs = "eval"

    def __init__(self, context: PaneContext, *, id: str | None = None) -> None:
        super().__init__(context, id=id)
        self.section: JsonObject = {}
        self.report: JsonObject = {}

    def compose(self) -> ComposeResult:
        yield self.compose_empty()
        yield Static(id="alignment-summary")
        yield Table(id="alignment-metrics")
        with Horizontal(id="alignment-lower"):
            yield Static(id="alignment-detail")
            yield Chart(id="alignment-calibration")

    def render_session(self) -> None:
        """The judge against the session's labels; for an eval without labels, how to label."""
        alignment = session_alignment(self.context.db, self.sid)
        s = self.section = alignment.to_dict() if alignment is not None and alignment.metrics else {}
        self.report = {"judge_alignment": s}
        if not s:
            self.hint = NO_LABELS
            return
        unmatched = s.get("unmatched_labels") or 0
        self.query_one("#alignment-summary", Static).update(
            lit(
                f"{s.get('labels', 0)} labels · judge pass: score >= {s.get('verdict_threshold', 0.5):g} · certified when both "
                f"rates' 95% lower bounds >= {s.get('certify_at', 0.8):g} · intervals: Wilson (rates), bootstrap (rest)"
                + (f" · {unmatched} labels on items without a judge score left out" if unmatched else "")
            )
        )
        table = self.query_one("#alignment-metrics", Table)
        table.clear(columns=True)
        table.add_columns(*ALIGNMENT_COLUMNS)
        for row in alignment_rows(s):
            table.add_row(*(lit(c) for c in row), key=row[0])
        self._detail(next(iter(s.get("metrics") or {}), None))

    def _detail(self, metric: str | None) -> None:
        m = (self.section.get("metrics") or {}).get(metric) if metric else None
        detail, chart = self.query_one("#alignment-detail", Static), self.query_one("#alignment-calibration", Chart)
        if m is None:
            detail.update("")
            chart.draw_message("calibration", "no labelled metric")
            return
        out = Text()
        out.append_text(lit(f"{metric}: {m.get('verdict')}", "bold" if m.get("certified") else "bold yellow")).append(
            "\n"
        )
        for name, line in corrected_lines(self.report):
            if name == metric:
                out.append_text(lit(line)).append("\n")
        for line in confusion_lines(m) + calibration_lines(m):
            out.append(line + "\n")
        detail.update(out)
        bins = m.get("calibration") or []
        chart.draw_lines(
            "calibration",
            {"labelled yes": [b.get("yes_share") for b in bins], "mean score": [b.get("mean_score") for b in bins]},
            ticks=[f"{b.get('low', 0):.1f}-{b.get('high', 0):.1f}" for b in bins],
        )

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key is not None and event.row_key.value:
            self._detail(str(event.row_key.value))
