"""``ragcov align``: the judge's agreement with the session's labels, printed (the figures come from
:mod:`ragcov_tui.evaluation.judge_alignment`; nothing is computed here)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ragcov_tui.cli.safe_console import plain_line
from ragcov_tui.evaluation.judge_alignment import (
    ALIGNMENT_COLUMNS,
    alignment_rows,
    calibration_lines,
    confusion_lines,
    corrected_lines,
)


def print_alignment(console: Console, sid: str, report: Mapping[str, Any]) -> None:
    """Per metric: the figures with their 95% intervals, the verdict, the confusion matrix and
    calibration table, then the judged means next to their judge-corrected estimates."""
    section = report.get("judge_alignment") or {}
    console.print(
        plain_line(
            f"Judge alignment of session {sid}: {section.get('labels', 0)} labels "
            f"(95% intervals: Wilson for the rates, seeded bootstrap for the rest)"
        )
    )
    if section.get("unmatched_labels"):
        console.print(
            plain_line(
                f"{section['unmatched_labels']} labels left out: their item has no judge score "
                "for that metric (failed, undefined, or not done)",
                style="yellow",
            )
        )
    t = Table(title="Judge against labels", title_justify="left")
    for col in ALIGNMENT_COLUMNS:
        t.add_column(col, justify="left" if col == "metric" else "right")
    for row in alignment_rows(section):
        t.add_row(*(plain_line(c) for c in row))
    console.print(t)
    for metric, m in (section.get("metrics") or {}).items():
        console.print(
            plain_line(f"{metric}: {m.get('verdict')}", style="bold" if m.get("certified") else "bold yellow"),
            soft_wrap=True,
        )
        for line in confusion_lines(m) + calibration_lines(m):  # our own figures: kept aligned
            console.print(Text("  " + line), soft_wrap=True)
    for metric, line in corrected_lines(report):
        console.print(plain_line(f"{metric}: {line}"), soft_wrap=True)
