"""``H``: write the session in view as one self-contained HTML page (:mod:`ragcov_tui.services.html_export`).

The user confirms or edits the file name (default ``ragcov-<kind>-<id>.html`` in the folder ragcov
was started from); the page is made in a thread worker on its own database connection, and a
notification says where it went (its absolute path, to ``scp``) or why it could not be written.
"""

from __future__ import annotations

import os
from pathlib import Path

from textual.app import App

from ragcov_tui.shared.errors import RagcovError
from ragcov_tui.shared.number_text import count
from ragcov_tui.store import open_db
from ragcov_tui.store.rows import SessionRow
from ragcov_tui.tui.modals import TextPrompt


def default_name(session: SessionRow) -> str:
    return f"ragcov-{session['kind']}-{session['id']}.html"


def export_html(app: App, db_path: str, session: SessionRow) -> None:
    """Ask for the file name, then write the page in a worker and notify."""
    if session["status"] != "done":
        app.notify(
            f"{session['kind']} {session['id']} is {session['status']}: only a finished session has a report "
            "to export.",
            severity="warning",
            markup=False,
        )
        return

    def chosen(name: str | None) -> None:
        if name and name.strip():
            app.run_worker(
                lambda: _write(app, db_path, session, name.strip()), thread=True, group="html", exit_on_error=False
            )

    TextPrompt(f"Write {session['kind']} {session['id']} as an HTML page to:", default_name(session)).open(app, chosen)


def _write(app: App, db_path: str, session: SessionRow, name: str) -> None:
    """Worker: the page from the stored session, written atomically; the outcome as a notification."""
    from ragcov_tui.services.html_export import session_page, write_page

    db = open_db(db_path)
    try:
        path = write_page(name, session_page(db, session["id"], session["kind"]))
        said, severity = f"wrote {os.path.abspath(path)} ({count(Path(path).stat().st_size // 1024)} KB)", "information"
    except (RagcovError, OSError, KeyError) as exc:
        said, severity = f"No HTML written: {exc}", "error"
    finally:
        db.conn.close()
    app.call_from_thread(app.notify, said, severity=severity, markup=False)
