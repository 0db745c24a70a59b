"""The ``/`` filter shared by every list pane: enter applies, esc clears, ``n`` / ``N`` step through matches.

A filter narrows the pane's main list to the rows that match (the pane asks the core with its
``query_text``); ``n`` / ``N`` then move to the next / previous match, wrapping around. The main
list's title says which filter is on. A filter the pane cannot apply (``BadInput`` from
``show_filtered``: an unknown column, a malformed comparison) stays in the filter line with the
reason on the line under it; the list and its title keep the filter that was on before.
``esc`` on a list with a filter clears it; on a list without one it backs out (the app's ``esc``).
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.binding import Binding
from textual.reactive import var
from textual.widget import Widget
from textual.widgets import Input, Static

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.tui.panes.base import Pane
from ragcov_tui.tui.widgets.literal import lit
from ragcov_tui.tui.widgets.paged_table import Table

FILTER_BINDINGS = [
    Binding("slash", "filter", "Filter", key_display="/", priority=True),  # see tui/type_ahead.py
    Binding("n", "step(1)", "Next"),
    Binding("N", "step(-1)", "Prev match", show=False),
    Binding("escape", "clear_filter", "Clear filter, else back", key_display="esc", show=False),
]


class FilterBar(Input):
    """A one-line filter input, hidden until ``/``; posts ``Input.Submitted`` on enter."""

    BINDINGS = [Binding("escape", "cancel", "Clear filter")]

    def __init__(self, placeholder: str, id: str | None = None) -> None:
        # selected here, as it opens, not when Textual delivers the focus event: by then keys typed
        # right after / are in it, and a selection made then would let the next key replace them
        super().__init__(placeholder=placeholder, id=id, classes="filter-bar", compact=True, select_on_focus=False)
        self.display = False

    def open(self) -> None:
        """Show the bar and focus it now, so the very next key typed goes into it; the filter it
        shows is selected, so typing replaces it."""
        self.display = True
        self.screen.set_focus(self)
        self.select_all()

    def action_cancel(self) -> None:
        self.value = ""
        self.post_message(Input.Submitted(self, ""))

    def show_error(self, message: str | None) -> None:
        """``message`` on the line under the bar (None: no error line)."""
        parent = self.parent
        if not isinstance(parent, Widget):  # (not mounted)
            return
        found = list(parent.query(".filter-error").results(Static))
        if message is None:
            for line in found:
                line.remove()
        elif found:
            found[0].update(lit(message, "bold"))
        else:
            parent.mount(Static(lit(message, "bold"), classes="filter-error"), after=self)


class Filterable(Pane):
    """A list pane: ``query_text``, the ``/`` bar, ``n`` / ``N`` and ``esc``.

    The pane yields a :class:`FilterBar`, names its main table in ``filter_table`` and implements
    ``show_filtered()`` (reload the main list for ``query_text``; ``BadInput`` if it cannot).
    """

    filter_table: ClassVar[str]
    query_text: var[str] = var("")
    """The filter on ('' : none)."""

    def filter_caption(self) -> str:
        return f" · filter {self.query_text!r}" if self.query_text else ""

    def show_filtered(self) -> None:
        """Reload the main list for ``query_text`` (``BadInput`` if it is not a filter the pane can apply)."""
        raise NotImplementedError

    def action_filter(self) -> None:
        bar = self.query_one(FilterBar)
        bar.value = self.query_text
        bar.open()

    @on(Input.Submitted, "FilterBar")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.apply_filter(event.value)

    def apply_filter(self, text: str) -> None:
        """Show only the rows matching ``text`` ('' clears the filter) and focus the list; a filter
        that cannot be applied leaves the previous one on and says why under the bar."""
        bar = self.query_one(FilterBar)
        before = self.query_text
        self.query_text = text.strip()
        try:
            self.show_filtered()
        except BadInput as exc:
            self.query_text = before
            self.show_filtered()
            bar.display = True
            bar.show_error(f"filter not applied: {exc}")
            bar.focus()
            return
        bar.show_error(None)
        bar.display = bool(self.query_text)
        self.query_one(self.filter_table).focus()

    async def action_clear_filter(self) -> None:
        """``esc``: clear the filter if one is on (or being typed), else back out one level."""
        bar = self.query_one(FilterBar)
        if self.query_text or bar.display:
            bar.value = ""
            self.apply_filter("")
        else:
            await self.app.run_action("back")

    def action_step(self, delta: int) -> None:
        self.query_one(self.filter_table, Table).step(delta)
