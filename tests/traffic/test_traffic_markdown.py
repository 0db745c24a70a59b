"""The Markdown and terminal forms of the traffic section: escaped, one line per cell, no NaN."""

from __future__ import annotations

import io
from typing import cast

from rich.console import Console

from ragcov_tui.cli.traffic_views import print_traffic
from ragcov_tui.coverage.report_traffic_md import traffic_markdown
from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.shared.safe_text import is_safe
from ragcov_tui.store.analysis_contract import AnalysisReport

SECTION: JsonObject = {
    "source": {"path": "logs/\x1b]0;x\x07q.jsonl", "rows": 3, "queries": 7, "distinct": 2, "first": None, "last": None},
    "coverage": None,
    "answerable_share": 1.0,
    "untested_share": 0.5,
    "untested": {"threshold": 0.4, "rule": "coverage below 0.400"},
    "clusters": [
        {
            "id": 0,
            "queries": 1,
            "count": 5,
            "share": 5 / 7,
            "answerable_share": 5 / 7,
            "coverage": None,
            "priority": 0.0,
            "untested": True,
            "examples": [{"text": "a | b <script>", "count": 5}],
            "nearest_questions": [],
        }
    ],
    "content_gap": {
        "threshold": None,
        "rule": "r",
        "queries": 1,
        "count": 2,
        "share": 2 / 7,
        "examples": [{"text": "pipe|text\u202e", "count": 2, "similarity": 0.1, "nearest_chunk": "c#1", "cluster": 0}],
    },
    "unasked_questions": {"threshold": None, "rule": "r", "questions": []},
}


def test_markdown_escapes_cells_and_shows_undefined_as_na() -> None:
    text = traffic_markdown(cast(AnalysisReport, {"traffic": SECTION}))
    assert is_safe(text) and "\\| b \\<script>" in text and "pipe\\|text\\<U+202E>" in text
    assert "n/a" in text and "nan" not in text.lower().split()
    assert traffic_markdown(cast(AnalysisReport, {})) == ""


def test_terminal_summary_is_safe() -> None:
    out = io.StringIO()
    print_traffic(Console(file=out, width=100, color_system=None), cast(AnalysisReport, {"traffic": SECTION}))
    printed = out.getvalue()
    assert "\x1b" not in printed and "\u202e" not in printed and "tests nobody asks: 0" in printed
