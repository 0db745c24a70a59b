"""Running one triage call from a pane: refresh on success, a notification with the reason on refusal."""

from __future__ import annotations

from typing import Any, Callable

from textual.app import App

from ragcov_tui.errors import RagcovError


def run_triage(app: App, what: str, call: Callable[[], Any]) -> bool:
    """Call the core; on a ``RagcovError`` (file changed on disk, nothing to undo…) notify and return False."""
    try:
        call()
    except RagcovError as exc:
        app.notify(str(exc), title=f"{what} refused", severity="error", markup=False, timeout=8)
        return False
    return True


def undo_in(app: Any, sid: str) -> bool:
    """Undo the session's newest standing decision; notify what was undone. True when something was."""
    from ragcov_tui.testset.triage import undo_last

    result: list[Any] = []
    if not run_triage(app, "undo", lambda: result.append(undo_last(app.db, sid))):
        return False
    d = result[0]
    app.notify(f"undid {d.payload.get('action')} of {d.kind} {d.target}", markup=False)
    app.mark_stale()
    return True
