"""What the app hands down to its panes: the database, its path, the job runner and the open sessions.

Attributes down, messages up: the app builds one :class:`PaneContext` and gives it to every pane
when it composes them; a pane reads it (``self.context.db`` through :mod:`ragcov_tui.store.queries`,
``self.sid``) and never changes it. What a pane wants changed it says with a message
(:mod:`ragcov_tui.tui.messages`), which the app handles.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import sqlite_utils

from ragcov_tui.services.job_request import JobRequest
from ragcov_tui.shared.progress import Progress
from ragcov_tui.store.rows import SessionRow
from ragcov_tui.store.sessions import list_sessions

KINDS = ("analysis", "eval")

JobRunner = Callable[[JobRequest, sqlite_utils.Database, Progress], tuple[str, Mapping[str, Any]]]
"""``runner(request, db, progress) -> (session id, report)``: what the Jobs pane runs in its worker
(the report: the analysis or eval report the run returns; the pane only reads how it went)."""


@dataclass
class OpenSessions:
    """Which analysis and which eval session the app shows (None: none of that kind), and
    ``current``, the one of them opened last (Overview shows it)."""

    analysis: str | None = None
    eval: str | None = None
    current: str | None = None

    def of_kind(self, kind: str) -> str | None:
        """The open session of ``kind`` (``analysis`` or ``eval``)."""
        return self.analysis if kind == "analysis" else self.eval

    def shown_by(self, needs: str | None) -> str:
        """The session a pane that ``needs`` a kind shows: the open analysis / eval, else the
        current one; '' while there is none."""
        return (self.of_kind(needs) if needs in KINDS else self.current) or ""

    def select(self, session: SessionRow) -> None:
        """Open ``session`` (a stored session row) in the panes of its kind and make it current."""
        if session["kind"] == "analysis":
            self.analysis = session["id"]
        else:
            self.eval = session["id"]
        self.current = session["id"]

    def open_newest(self, db: sqlite_utils.Database, kinds: Iterable[str] = KINDS) -> None:
        """Open the newest finished session of each of ``kinds`` (None where there is none); the
        current one stays when it is still open, else it becomes the open analysis, else the eval."""
        for kind in kinds:
            done = [s for s in list_sessions(db, kind=kind) if s["status"] == "done"]
            newest = done[0]["id"] if done else None
            if kind == "analysis":
                self.analysis = newest
            else:
                self.eval = newest
        if self.current not in (self.analysis, self.eval):
            self.current = self.analysis or self.eval

    def kinds_not_in(self, ids: Iterable[str]) -> list[str]:
        """The kinds whose open session is not among ``ids`` (none open counts as not in)."""
        known = set(ids)
        return [kind for kind in KINDS if self.of_kind(kind) not in known]

    def kinds_showing(self, sid: str) -> list[str]:
        """The kinds whose open session is ``sid``."""
        return [kind for kind in KINDS if self.of_kind(kind) == sid]


@dataclass
class PaneContext:
    """Everything a pane may use from the app (the app owns it and keeps ``sessions`` up to date).

    ``db``: the app's connection, read through :mod:`ragcov_tui.store.queries` on the UI thread;
    ``db_path``: what a worker thread opens its own connection on; ``job_runner``: the Jobs pane's
    runner (tests inject a fast one); ``keep_backups``: backups of the test file a write-back keeps
    (``tui --keep-backups`` / ``keep_backups`` in ragcov.toml / ``$RAGCOV_KEEP_BACKUPS``; None: the
    writer's default); ``sessions``: the open sessions."""

    db: sqlite_utils.Database
    db_path: str
    job_runner: JobRunner
    keep_backups: int | None = None
    sessions: OpenSessions = field(default_factory=OpenSessions)
