"""The footer: every binding, and on a terminal too narrow for all of them, the ones that matter most.

A one-line footer cannot hold a busy pane's keys plus the app's own at 80 columns: Textual's
footer then scrolls sideways, so ``? Help`` and ``^q Quit`` fall off the right edge. Below
:data:`FULL_WIDTH` columns this footer leaves out the keys marked secondary (next tab, rerun,
next match, the palette key), and while a job runs ``^q`` / ``?`` so that ``^x Cancel job`` fits;
``?`` lists them and the status line names ``[ ]`` and ``?``.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey  # not re-exported; textual is < 9 (pyproject)

FULL_WIDTH = 120  # the widest pane's keys (Gaps) plus the app's fit in this many columns
SECONDARY_KEYS = frozenset({"right_square_bracket", "R", "n"})
CANCEL_KEY = "ctrl+x"  # in the footer only while a job runs
WHILE_A_JOB_RUNS = frozenset({"ctrl+q", "question_mark"})  # they make room for it below FULL_WIDTH


class AdaptiveFooter(Footer):
    """``Footer(compact=True)`` whose secondary keys and palette key hide below ``FULL_WIDTH`` columns."""

    def __init__(self) -> None:
        super().__init__(compact=True)

    def on_mount(self) -> None:
        self._fit()

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        lean = self.app.size.width < FULL_WIDTH
        if lean != self.has_class("-lean"):
            self.set_class(lean, "-lean")
            self.show_command_palette = not lean
            self.refresh(recompose=True)

    def compose(self) -> ComposeResult:
        """Below ``FULL_WIDTH``: no secondary keys; while a job runs (``^x Cancel job`` is live) not
        ``^q`` / ``?`` either, which would push it off the right edge of the busiest panes."""
        widgets = list(super().compose())
        hidden: frozenset[str] = frozenset()
        if self.has_class("-lean"):
            job = any(isinstance(w, FooterKey) and w.key == CANCEL_KEY for w in widgets)
            hidden = SECONDARY_KEYS | (WHILE_A_JOB_RUNS if job else frozenset())
        yield from (w for w in widgets if not (isinstance(w, FooterKey) and w.key in hidden))
