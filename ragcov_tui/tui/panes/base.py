"""The base of every pane (one tab): it knows which session it shows and reloads from the core."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding
from textual.containers import Vertical
from textual.reactive import var
from textual.widgets import DataTable, Input, Static, TabbedContent

from ragcov_tui.tui.context import PaneContext
from ragcov_tui.tui.type_ahead import TEXT_OPENERS
from ragcov_tui.tui.widgets.literal import lit


class Pane(Vertical):
    """A tab's content. ``needs`` names the session kind it shows: ``analysis``, ``eval``,
    ``any`` (the current session, whichever kind) or None (it shows no session).

    The app marks every pane stale when a session is opened; a pane reloads when it is stale and
    shown, so opening a session only queries what is on screen.

    One lifecycle hook: :meth:`render_session` fills the pane for ``self.sid`` (the base shows the
    hint instead while there is no session to show). A pane that has nothing to show for the
    session (no traffic, no labels) sets :attr:`hint`. What a pane does after a key (a decision, a
    sort, a filter) redraws only what changed, in one pass: it never goes through a reload.

    Attributes down, messages up: the app hands every pane its :class:`PaneContext` (the database,
    the open sessions); the pane reads it and posts a :mod:`ragcov_tui.tui.messages` message for
    anything the app should do.
    """

    BINDINGS = [
        Binding("tab", "cycle_lists(1)", "Next list", show=False),
        Binding("shift+tab", "cycle_lists(-1)", "Previous list", show=False),
    ]
    title: ClassVar[str] = ""
    needs: ClassVar[str | None] = None
    hint: var[str] = var("", init=False, toggle_class="-empty")
    """Shown instead of the pane's content while set ('' : the content shows)."""

    def __init__(self, context: PaneContext, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.context = context
        self.stale = True  # reload the next time the pane is shown

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A key that opens a text field (:data:`~ragcov_tui.tui.type_ahead.TEXT_OPENERS`, bound with
        priority) is off while a text field has focus: the key is typed there."""
        return not (action in TEXT_OPENERS and isinstance(self.app.focused, Input))

    def action_cycle_lists(self, step: int) -> None:
        """``tab`` / ``shift+tab``: focus the next / previous list shown in this pane (a pane with
        fewer than two lists, such as the Jobs form, moves through its fields instead)."""
        lists = [t for t in self.query(DataTable) if t.display and t.focusable and t.region.area]
        if len(lists) < 2:
            self.screen.focus_next() if step > 0 else self.screen.focus_previous()
            return
        at = lists.index(self.app.focused) if self.app.focused in lists else (-1 if step > 0 else 0)
        lists[(at + step) % len(lists)].focus()

    @property
    def sid(self) -> str:
        """The session this pane shows: the open session of the kind it ``needs``, else the current
        one; '' while there is none (then the pane shows its hint and queries nothing)."""
        return self.context.sessions.shown_by(self.needs)

    @property
    def on_active_tab(self) -> bool:
        """True while this pane's tab is the active one (a pop-up may cover it)."""
        tab = self.parent
        return tab is not None and self.query_ancestor(TabbedContent).active == tab.id

    def rerun_sid(self) -> str | None:
        """The session ``R`` reruns from this pane: the one it shows."""
        return self.sid or None

    def compose_empty(self) -> Static:
        return Static("", id=f"{self.id}-empty", classes="empty")

    def refresh_if_stale(self) -> None:
        if self.stale:
            self.stale = False
            self.load()

    def reload(self) -> None:
        """Query the core and render now, as when the pane is shown stale."""
        self.stale = True
        self.refresh_if_stale()

    def load(self) -> None:
        """Query the core and render; shows a hint instead when there is no session to show."""
        if self.needs and not self.sid:
            what, command = {"analysis": ("analysis", "analyze"), "eval": ("eval", "eval")}.get(
                self.needs, ("", "analyze` / `ragcov eval")
            )
            self.hint = (
                f"No {what + ' ' if what else ''}session yet: start one in Jobs (or `ragcov {command}`), "
                "then open it in Sessions."
            )
            return
        self.hint = ""
        self.render_session()

    def watch_hint(self, hint: str) -> None:
        self.query_one(".empty", Static).update(lit(hint))

    def render_session(self) -> None:
        """Fill the pane from the core for ``self.sid`` (each pane's one hook for showing a session;
        a pane that needs no session is called with ``sid`` '')."""
        raise NotImplementedError
