"""The ``/`` filter shared by every list pane: enter applies, esc clears, ``n`` / ``N`` step through matches.

A filter narrows the pane's main list to the rows that match (the pane asks the core with its
``query_text``); ``n`` / ``N`` then move to the next / previous match, wrapping around. The main
list's title says which filter is on.
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual.binding import Binding
from textual.widgets import Input

FILTER_BINDINGS = [
    Binding("slash", "filter", "Filter", key_display="/"),
    Binding("n", "step(1)", "Next"),
    Binding("N", "step(-1)", "Prev match", show=False),
]


class FilterBar(Input):
    """A one-line filter input, hidden until ``/``; posts ``Input.Submitted`` on enter."""

    BINDINGS = [Binding("escape", "cancel", "Clear filter")]

    def __init__(self, placeholder: str, id: str | None = None) -> None:
        super().__init__(placeholder=placeholder, id=id, classes="filter-bar", compact=True)
        self.display = False

    def open(self) -> None:
        self.display = True
        self.focus()

    def action_cancel(self) -> None:
        self.value = ""
        self.post_message(Input.Submitted(self, ""))


class Filterable:
    """Mixin for a list pane: ``query_text``, the ``/`` bar and ``n`` / ``N``.

    The pane yields a :class:`FilterBar`, names its main table in ``filter_table`` and implements
    ``show_filtered()`` (reload the main list for ``query_text``).
    """

    filter_table: ClassVar[str]
    query_text: str = ""

    def filter_caption(self) -> str:
        return f" · filter {self.query_text!r}" if self.query_text else ""

    def action_filter(self: Any) -> None:
        bar = self.query_one(FilterBar)
        bar.value = self.query_text
        bar.open()

    def on_input_submitted(self: Any, event: Input.Submitted) -> None:
        if isinstance(event.input, FilterBar):
            event.stop()
            self.apply_filter(event.value)

    def apply_filter(self: Any, text: str) -> None:
        """Show only the rows matching ``text`` ('' clears the filter) and focus the list."""
        self.query_text = text.strip()
        self.query_one(FilterBar).display = bool(self.query_text)
        self.show_filtered()
        self.query_one(self.filter_table).focus()

    def action_step(self: Any, delta: int) -> None:
        self.query_one(self.filter_table).step(delta)
