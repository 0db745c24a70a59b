"""The ``/`` filter bar shared by the list panes: enter applies, esc clears, ``n`` / ``N`` step through matches."""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import Input


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
