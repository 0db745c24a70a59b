"""The base of every pane (one tab): it knows which session it shows and reloads from the core."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from ragcov_tui.tui.widgets.literal import lit

if TYPE_CHECKING:
    from ragcov_tui.tui.app import RagcovApp


class Pane(Vertical):
    """A tab's content. ``needs`` names the session kind it shows: ``analysis``, ``eval``,
    ``any`` (the current session, whichever kind) or None (it shows no session).

    The app marks every pane stale when a session is opened; a pane reloads when it is stale and
    shown, so opening a session only queries what is on screen.
    """

    BINDINGS = [
        Binding("tab", "cycle_lists(1)", "Next list", show=False),
        Binding("shift+tab", "cycle_lists(-1)", "Previous list", show=False),
    ]
    title: ClassVar[str] = ""
    needs: ClassVar[str | None] = None
    stale: bool = True

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
    def ragcov(self) -> RagcovApp:
        return self.app  # type: ignore[return-value]

    @property
    def sid(self) -> str | None:
        """The session this pane shows (the app's current analysis or eval session)."""
        if self.needs == "analysis":
            return self.ragcov.analysis_sid
        if self.needs == "eval":
            return self.ragcov.eval_sid
        return self.ragcov.current_sid

    def rerun_sid(self) -> str | None:
        """The session ``R`` reruns from this pane: the one it shows."""
        return self.sid

    def compose_empty(self) -> Static:
        return Static("", id=f"{self.id}-empty", classes="empty")

    def refresh_if_stale(self) -> None:
        if self.stale:
            self.stale = False
            self.load()

    def load(self) -> None:
        """Query the core and render; shows a hint instead when there is no session to show."""
        if self.needs and not self.sid:
            what, command = {"analysis": ("analysis", "analyze"), "eval": ("eval", "eval")}.get(
                self.needs, ("", "analyze` / `ragcov eval"))
            self.query_one(".empty", Static).update(lit(
                f"No {what + ' ' if what else ''}session yet: start one in Jobs (or `ragcov {command}`), then open it in Sessions."))
            self.set_class(True, "-empty")
            return
        self.set_class(False, "-empty")
        self.render_session()

    def render_session(self) -> None:
        """Fill the pane from the core for ``self.sid`` (overridden by each pane)."""
        raise NotImplementedError
