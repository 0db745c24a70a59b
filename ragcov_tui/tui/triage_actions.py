"""Running one triage call from a pane: reload first, ask on a conflict, a notification on refusal.

Before each action (and when a triage pane shows a session) the test file is re-read: an outside
edit is reported in one line and the action goes on against the file as it is now. When the very
row an action touches changed on disk, the core raises a ``ConflictError``; the pane asks (a
yes / no modal) and on yes runs the action again with ``force``.

One key press, one pass: the re-read before the action, the core's own read as it writes, then the
pane redraws once (``redraw``) — never a reload of the pane, which would read the file again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App

from ragcov_tui.shared.errors import RagcovError
from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.testset.writer import ConflictError
from ragcov_tui.tui.messages import DecisionMade
from ragcov_tui.tui.modals import ConfirmScreen
from ragcov_tui.tui.panes.base import Pane


def reload_in(pane: Pane) -> str | None:
    """Re-read the test file of the session ``pane`` shows; notify the one line on what changed on
    disk, if anything. Returns why the file cannot be read (then nothing can be written to it; a
    pane says so beforehand), else None.

    Quiet when the file cannot be read: the action that needs it says why.
    """
    from ragcov_tui.services.triage import reload

    if not pane.sid:
        return None
    try:
        note = reload(pane.context.db, pane.sid)
    except RagcovError as exc:
        return str(exc)
    if note:
        pane.app.notify(note, title="test file reloaded", markup=False, timeout=10)
    return None


def decided(pane: Pane, redraw: Callable[[], None]) -> None:
    """After a decision in ``pane``: tell the app (every other pane goes stale) and ``redraw`` the pane."""
    pane.post_message(DecisionMade(pane, pane.sid))
    redraw()


def run_triage(
    app: App, what: str, call: Callable[[bool], Any], then: Callable[[], None] | None = None, *, force: bool = False
) -> bool:
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


def undo_message(payload: JsonObject, kind: str, target: str) -> str:
    """What an undo says: the decision undone and the question it was about, quoted (a suggestion's
    text; a test-file question by the id the file gives it), never the store's internal ids."""
    what = f'"{payload["text"]}"' if payload.get("text") else f"question {target}" if kind == "question" else kind
    return f"undid {payload.get('action')} of {what}"


def undo_in(pane: Pane, redraw: Callable[[], None]) -> bool:
    """Undo the newest standing decision of the session ``pane`` shows; notify what was undone and
    ``redraw`` the pane (at once, or once the user confirmed an undo over an outside edit).
    True when something was undone at once."""
    from ragcov_tui.services.triage import undo_last

    def undo(force: bool) -> Any:
        d = undo_last(pane.context.db, pane.sid, force=force, keep_backups=pane.context.keep_backups)
        pane.app.notify(undo_message(d.payload, d.kind, d.target), markup=False)
        return d

    reload_in(pane)
    done = run_triage(pane.app, "undo", undo, lambda: decided(pane, redraw))
    if done:
        decided(pane, redraw)
    return done
