"""Running one triage call from a pane: reload first, ask on a conflict, a notification on refusal.

Before each action (and when a triage pane shows a session) the test file is re-read: an outside
edit is reported in one line and the action goes on against the file as it is now. When the very
row an action touches changed on disk, the core raises a ``ConflictError``; the pane asks (a
yes / no modal) and on yes runs the action again with ``force``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App

from ragcov_tui.errors import RagcovError
from ragcov_tui.testset.writer import ConflictError
from ragcov_tui.tui.modals import ConfirmScreen


def reload_in(app: Any, sid: str | None) -> None:
    """Re-read the session's test file; notify the one line on what changed on disk, if anything.

    Quiet when the file cannot be read: the action that needs it says why.
    """
    from ragcov_tui.services.triage import reload

    if sid is None:
        return
    try:
        note = reload(app.db, sid)
    except RagcovError:
        return
    if note:
        app.notify(note, title="test file reloaded", markup=False, timeout=10)


def run_triage(app: App, what: str, call: Callable[[bool], Any], then: Callable[[], None] | None = None,
               *, force: bool = False) -> bool:
    """Call the core (``call(force)``); True when it succeeded.

    On a ``ConflictError`` with a question: ask, and on yes call again with ``force`` and run
    ``then`` (the pane's refresh). Any other ``RagcovError`` (nothing to undo…): notify.
    A note the write returns (its owner could not be kept) is shown as a warning.
    """
    try:
        result = call(force)
    except ConflictError as exc:
        if exc.question and not force:
            def answered(yes: bool | None) -> None:
                if yes and run_triage(app, what, call, force=True) and then is not None:
                    then()

            app.push_screen(ConfirmScreen(f"{exc}. {exc.question}"), answered)
        else:
            app.notify(str(exc), title=f"{what} refused", severity="error", markup=False, timeout=8)
        return False
    except RagcovError as exc:
        app.notify(str(exc), title=f"{what} refused", severity="error", markup=False, timeout=8)
        return False
    note = getattr(result, "note", None)
    if note:
        app.notify(note, severity="warning", markup=False, timeout=10)
    return True


def undo_in(app: Any, sid: str, then: Callable[[], None] | None = None) -> bool:
    """Undo the session's newest standing decision; notify what was undone. True when something was."""
    from ragcov_tui.services.triage import undo_last

    def undo(force: bool) -> Any:
        d = undo_last(app.db, sid, force=force)
        app.notify(f"undid {d.payload.get('action')} of {d.kind} {d.target}", markup=False)
        app.mark_stale()
        return d

    reload_in(app, sid)
    return run_triage(app, "undo", undo, then)
