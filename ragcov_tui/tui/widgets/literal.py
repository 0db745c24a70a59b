"""Literal text for untrusted strings: documents, questions and model replies are never parsed as markup.

Every cell, label and notification that shows such text goes through :func:`lit`, which builds a
``rich.text.Text`` (no markup parsing), so ``[/INST]`` or ``[bold red]`` is shown exactly as typed,
and whose control characters are made visible (``ESC`` as ``␛``, see :mod:`ragcov_tui.shared.safe_text`),
so a document cannot retitle or clear the terminal. The app's line filter
(:class:`~ragcov_tui.tui.widgets.screen_guard.ControlCharFilter`) drops whatever slips past.
"""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text

from ragcov_tui.shared.safe_text import single_line, visible

UNDEFINED = "—"


def lit(value: Any, style: str = "", *, width: int | None = None) -> Text:
    """``value`` as literal text on one line (line breaks shown as spaces, other control characters
    visible), cut to ``width`` with an ellipsis."""
    text = UNDEFINED if value is None else single_line(str(value))
    if width is not None and len(text) > width:
        text = text[: max(0, width - 1)] + "…"
    return Text(text, style=style)


def block(value: Any, style: str = "") -> Text:
    """Multi-line literal text (line breaks and tabs kept, other control characters visible)."""
    return Text(UNDEFINED if value is None else visible(str(value)), style=style)


def num(value: float | int | None, digits: int = 3) -> Text:
    """A right-aligned number; None (an undefined metric) shows as an em dash, never as NaN."""
    if value is None:
        return Text(UNDEFINED, justify="right", style="dim")
    if isinstance(value, int) and not isinstance(value, bool):
        return Text(f"{value:,}", justify="right")
    return Text(f"{value:.{digits}f}", justify="right")


def labelled(pairs: list[tuple[str, Any]], label_width: int = 14) -> Text:
    """Lines of ``label  value`` (labels ours, values literal)."""
    out = Text()
    for i, (label, value) in enumerate(pairs):
        if i:
            out.append("\n")
        out.append(f"{label:<{label_width}}", style="bold")
        out.append_text(_as_text(value))
    return out


def labelled_grid(pairs: list[tuple[str, Any]], label_width: int = 14) -> Table:
    """Like :func:`labelled`, for a detail box: a long value wraps under itself, not under the label."""
    grid = Table.grid()
    grid.add_column(width=label_width, no_wrap=True, style="bold")
    grid.add_column(ratio=1)
    for label, value in pairs:
        grid.add_row(Text(label), _as_text(value))
    return grid


def _as_text(value: Any) -> Text:
    return value if isinstance(value, Text) else lit(value)
