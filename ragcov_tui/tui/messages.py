"""The messages panes post to the app (messages up): what happened, never how the app should react.

A pane never calls the app; it posts one of these and the app's ``on_…`` handler (in
:mod:`ragcov_tui.tui.app`) updates the open sessions, the status line and which panes reload.
Each is posted after the pane has updated itself, so the app only deals with the rest of the screen.
"""

from __future__ import annotations

from textual.message import Message
from textual.widget import Widget


class SessionOpened(Message):
    """The user asked to open session ``sid`` (Sessions: ``enter``).

    The app shows it in every pane of its kind, makes it current and switches to Overview."""

    def __init__(self, sid: str) -> None:
        super().__init__()
        self.sid = sid


class SessionDeleted(Message):
    """Session ``sid`` was deleted from the store (Sessions: ``d``, confirmed).

    Where it was open, the app opens the newest remaining session of its kind; every pane reloads."""

    def __init__(self, sid: str) -> None:
        super().__init__()
        self.sid = sid


class DecisionMade(Message):
    """A triage decision (accept / reject / edit / undo) changed session ``sid``'s test file and
    suggestions; ``pane``, which made it, has already shown the result.

    The app marks every other pane stale: each reloads the next time it is shown."""

    def __init__(self, pane: Widget, sid: str) -> None:
        super().__init__()
        self.pane, self.sid = pane, sid

    @property
    def control(self) -> Widget:
        return self.pane


class JobFinished(Message):
    """A job started in the Jobs pane ended (done, partial, failed or cancelled); ``sid``: its
    session, if it made one. The pane has already said how it ended.

    ``open_it``: the app opens ``sid`` (it finished while the Jobs pane was shown); otherwise the
    app lists it at once in Sessions and the pane in use stays as it is."""

    def __init__(self, sid: str | None, *, open_it: bool) -> None:
        super().__init__()
        self.sid, self.open_it = sid, open_it


class LabelsChanged(Message):
    """The user set, cleared or undid a label on an item of eval session ``sid`` (Results); ``pane``
    has already shown it.

    The app marks every other pane stale (Alignment, Overview) and shows the Alignment tab once
    the session has a label."""

    def __init__(self, pane: Widget, sid: str) -> None:
        super().__init__()
        self.pane, self.sid = pane, sid

    @property
    def control(self) -> Widget:
        return self.pane
