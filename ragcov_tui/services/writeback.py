"""How a triage decision reaches the test file: reload, write ahead, settle, reconcile.

- :func:`load`: settle any write a crash left half-recorded (:func:`reconcile`), re-read the file,
  and when its bytes differ from what the session last saw, say in one line what changed (rows
  added / removed / edited, :mod:`ragcov_tui.testset.changes`, and any keep / drop mark the file now contradicts)
  and remember the new version as seen. An outside edit never blocks a write: every splice is
  planned on the bytes just read.
- :func:`write`: the decision is recorded ``pending`` — digests, backup, the row in its payload
  (``change``) — after the backup and before the file is replaced; once it is, the decision is
  settled ``applied`` with its effects (a suggestion marked accepted, an undone decision marked
  undone) in one transaction. A write refused before the replace leaves no decision behind.
- :func:`reconcile`: a ``pending`` decision is ``applied`` when the file has its after-digest, or
  (after later edits) has the row it inserted / lacks the row it removed; else ``abandoned``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import sqlite_utils

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.shared.number_text import count
from ragcov_tui.store import decisions as log
from ragcov_tui.store.decisions import Decision
from ragcov_tui.store.sessions import get_session
from ragcov_tui.store.suggestions import session_question_raw, session_question_raws, set_suggestion_status
from ragcov_tui.store.testset_views import get_view, save_view
from ragcov_tui.testset import writer
from ragcov_tui.testset.beir import is_ir_folder
from ragcov_tui.testset.changes import RowPrint, compare, row_key, row_print
from ragcov_tui.testset.ids import text_key
from ragcov_tui.testset.models import Question
from ragcov_tui.testset.reader import parse_testset
from ragcov_tui.testset.writer import Edit, Snapshot


@dataclass(frozen=True)
class Loaded:
    """The session's test file as just read, and the one-line note on what changed since last seen."""

    path: str
    snap: Snapshot
    note: str | None


BEIR_READ_ONLY = "questions come from a BEIR folder (read-only): accepted questions cannot be written into it"


def testset_path(db: sqlite_utils.Database, sid: str) -> str:
    session = get_session(db, sid)
    if session is None:
        raise BadInput(f"session {sid!r}: no such session")
    path = session["questions_path"]
    if not path:
        raise BadInput(f"session {sid}: it records no test file to write to")
    return path


def load(db: sqlite_utils.Database, sid: str) -> Loaded:
    """Reconcile, re-read and compare the session's test file (see the module docstring)."""
    path = testset_path(db, sid)
    if is_ir_folder(path):  # queries + qrels: nothing is appended to, dropped from or undone in it
        raise BadInput(BEIR_READ_ONLY)
    reconcile(db, path)
    snap = writer.snapshot(path)
    return Loaded(path, snap, _note_changes(db, sid, path, snap))


def _note_changes(db: sqlite_utils.Database, sid: str, path: str, snap: Snapshot) -> str | None:
    view = get_view(db, sid)
    seen_sha: str | None
    if view is not None:
        seen_sha = view.sha256
    else:
        session = get_session(db, sid)
        seen_sha = None if session is None else session["testset_sha256"]
    if snap.sha == seen_sha:
        return None
    seen_rows = view.rows if view else _analysed_rows(db, sid)
    rows = _save_seen(db, sid, path, snap.sha, snap.testset.questions)
    what = str(compare(seen_rows, rows)) if seen_rows is not None else f"{count(len(rows))} rows now"
    stale = _marks_no_longer_true(db, sid, snap)
    more = f"; no longer true: {', '.join(stale[:3])}{' …' if len(stale) > 3 else ''}" if stale else ""
    return f"test file {snap.file.name} changed on disk: {what}; reloaded{more}"


def _marks_no_longer_true(db: sqlite_utils.Database, sid: str, snap: Snapshot) -> list[str]:
    """Standing keep / drop marks the file now contradicts: a dropped row back, a kept row gone.
    The marks stay (undo withdraws one); the note says which."""
    out = []
    for question_id, action in log.question_marks(db, sid).items():
        seen = session_question_raw(db, sid, question_id)
        present = seen is not None and locate(snap, seen) is not None
        if seen is not None and present == (action == "drop"):
            out.append(f"{question_id} {'dropped but back' if present else 'kept but gone'}")
    return out


def locate(snap: Snapshot, seen: JsonObject) -> int | None:
    """Index of the row the analysis read as ``seen``: by its id when it has one, else by its value."""
    key = row_key(seen)
    match = (lambda value: row_key(value) == key) if key is not None else (lambda value: value == seen)
    return next((r.index for r in snap.layout.rows if match(r.value)), None)


def _save_seen(db: sqlite_utils.Database, sid: str, path: str, sha: str, questions: list[Question]) -> list[RowPrint]:
    """Remember this version of the file as what session ``sid`` has seen; returns its row prints."""
    rows = [row_print(q.raw) for q in questions]
    save_view(db, sid, path, sha, rows)
    return rows


def _analysed_rows(db: sqlite_utils.Database, sid: str) -> list[RowPrint] | None:
    """Row prints of the file as the session's analysis read it; None when it kept no raw rows."""
    raws = session_question_raws(db, sid)
    if not raws or None in raws:
        return None
    return [row_print(raw) for raw in raws if raw is not None]


def write(
    db: sqlite_utils.Database,
    sid: str,
    path: str,
    edit: Edit,
    *,
    kind: str,
    target: str,
    action: str,
    payload: JsonObject,
    change: JsonObject | None = None,
    keep_backups: int | None = None,
) -> Decision:
    """Write ``edit`` with its decision recorded ahead (``change`` defaults to ``edit.change``);
    ``keep_backups``: backups of the file kept (None: ``$RAGCOV_KEEP_BACKUPS`` or the default)."""
    pending: list[int] = []

    def record(backup: Path) -> None:
        pending.append(
            log.record_decision(
                db,
                session_id=sid,
                kind=kind,
                target=target,
                action=action,
                testset_path=path,
                state="pending",
                payload={**payload, "change": edit.change if change is None else change},
                sha_before=edit.sha_before,
                sha_after=edit.sha_after,
                backup_path=str(backup),
            ).id
        )

    try:
        result = writer.commit(edit, before_replace=record, keep=keep_backups)
    except BaseException:
        if pending:
            _settle_by_file(db, log.get_decision(db, pending[0]), path, discard=True)
        raise
    decision = settle(db, log.get_decision(db, pending[0]))
    after = edit.after_snap.testset if edit.after_snap else parse_testset(edit.file, edit.after)[0]
    _save_seen(db, sid, path, edit.sha_after, after.questions)
    decision.note = result.note
    return decision


def settle(db: sqlite_utils.Database, decision: Decision) -> Decision:
    """Mark a pending decision applied, with its effects, in one transaction."""
    with db.conn:
        log.mark_applied(db, decision.id)
        apply_effects(db, decision)
    return log.get_decision(db, decision.id)


def apply_effects(db: sqlite_utils.Database, decision: Decision) -> None:
    """What a decision does besides its row: an accepted suggestion is marked so; an undo marks the
    decision it undid, reopens its suggestion and forgets a rejected text."""
    payload = decision.payload
    with db.conn:
        if decision.action in ("accept", "edit"):
            set_suggestion_status(db, int(decision.target), "accepted", payload.get("question_id"))
        if decision.action != "undo":
            return
        log.mark_undone(db, payload["undid"])
        if decision.kind == "suggestion":
            set_suggestion_status(db, int(decision.target), "open", None)
        if payload.get("action") == "reject" and decision.testset_path:
            log.forget_rejected(db, decision.testset_path, text_key(payload.get("text", "")))


def reconcile(db: sqlite_utils.Database, path: str) -> None:
    """Settle every pending decision on ``path`` by what the file holds (see the module docstring);
    left pending while the file cannot be read."""
    for decision in log.pending_decisions(db, path):
        if not _settle_by_file(db, decision, path, discard=False):
            return


def _settle_by_file(db: sqlite_utils.Database, decision: Decision, path: str, *, discard: bool) -> bool:
    """Settle one pending decision ``applied`` or ``abandoned`` (``discard``: deleted instead, for a
    write refused in this process). False when the file cannot be read (left pending)."""
    try:
        snap = writer.snapshot(path)
    except BadInput:
        return False
    if reached_file(decision, snap):
        settle(db, decision)
        if snap.sha == decision.sha_after and decision.session_id:  # its own write: no outside change
            _save_seen(db, decision.session_id, path, snap.sha, snap.testset.questions)
    elif discard:
        log.discard_decision(db, decision.id)
    else:
        log.set_state(db, decision.id, "abandoned")
    return True


def reached_file(decision: Decision, snap: Snapshot) -> bool:
    """True when the file shows the decision's write: its after-digest, or its row inserted / removed."""
    if snap.sha in (decision.sha_after, decision.sha_before):
        return snap.sha == decision.sha_after
    change = decision.payload.get("change") or {}
    if "row" not in change:
        return False
    present = writer.find_row(snap, change["row"]) is not None
    return present if change["effect"] == "insert" else not present
