"""Markdown building blocks shared by the reports (``coverage/report_md.py``, ``coverage/report_traffic_md.py``,
``evaluation/report_md.py``) and the terminal tables that print the same figures.

Untrusted text goes into a cell through :func:`cell`: one line (:func:`~ragcov_tui.shared.safe_text.single_line`),
with ``\\ | < &`` backslash-escaped so it cannot end a cell or open an HTML tag or entity.
"""

from __future__ import annotations

from typing import Any

from ragcov_tui.shared.safe_text import single_line

_MARKDOWN_ESCAPES = str.maketrans({"\\": "\\\\", "|": "\\|", "<": "\\<", "&": "\\&"})


def fmt(value: float | None, digits: int = 3) -> str:
    """A score for humans: fixed digits, or ``n/a`` when undefined (never ``nan``)."""
    return "n/a" if value is None else f"{value:.{digits}f}"


def pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def cell(text: Any) -> str:
    """A value for a Markdown table cell or inline text: one line (see
    :func:`~ragcov_tui.shared.safe_text.single_line`), with ``\\ | < &`` backslash-escaped."""
    return single_line(str(text)).translate(_MARKDOWN_ESCAPES)


def code(text: Any) -> str:
    """A value as an inline code span on one line (a backtick inside it shown as ``'``)."""
    return "`" + single_line(str(text)).replace("`", "'") + "`"


def table(header: list[str], rows: list[list[Any]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return out
