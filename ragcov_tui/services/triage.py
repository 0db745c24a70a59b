"""Triage: keep / drop flagged questions, accept / reject / edit suggested ones, undo — written at once.

Decisions only: the suggestions they act on are written by :mod:`ragcov_tui.services.suggestions`.

Mode: **immediate write**. Every decision is recorded in ``decisions`` the moment it is made
(time, ``$USER``) and, when it changes the test file (accept, edit, drop), the file is written in
the same step through :mod:`ragcov_tui.services.writeback` (write-ahead record, atomic, backed up,
every other row byte-for-byte, owner and mode kept). There is no pending batch that a crash
could lose.

The file is re-read before every write (:func:`reload`): an outside edit is reported in one line
and the splice is planned on the current bytes, so an append elsewhere never blocks an accept.
Only a change to the very row an action touches stops it, with a
:class:`~ragcov_tui.testset.writer.ConflictError` whose ``question`` the caller may answer by
calling again with ``force=True``: dropping a row edited on disk drops the edited row; dropping a
row already gone records the drop without writing; an undo that cannot be applied cleanly is
recorded without touching the file.

Undo takes the session's newest standing decision: a write is reverted by restoring its backup
when the file is still exactly what the write left (byte-identical to before), else by the inverse
splice by content (the added row taken out, the dropped row put back beside its old neighbour) —
never by restoring an old backup over someone else's edit. A reject is forgotten, a keep
withdrawn. Rejected texts are remembered per test file and never suggested again.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any, ParamSpec

import sqlite_utils

from ragcov_tui.services import writeback
from ragcov_tui.services.writeback import testset_path
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.store import decisions as log
from ragcov_tui.store.decisions import Decision
from ragcov_tui.store.suggestions import session_question_raw, set_suggestion_status, suggestion_row
from ragcov_tui.testset import writer
from ragcov_tui.testset.writer import ConflictError, Edit, FileChangedError, Snapshot

Args = ParamSpec("Args")


def _again_if_raced(action: Callable[Args, Decision]) -> Callable[Args, Decision]:
    """Run a write once more when the file changed between its read and its replace
    (``FileChangedError``, nothing written): the second run re-reads and plans on the new bytes."""

    @functools.wraps(action)
    def run(*args: Args.args, **kwargs: Args.kwargs) -> Decision:
        try:
            return action(*args, **kwargs)
        except FileChangedError:
            return action(*args, **kwargs)

    return run


def reload(db: sqlite_utils.Database, sid: str) -> str | None:
    """Re-read the session's test file; one line on what changed on disk since last seen, else None."""
    return writeback.load(db, sid).note


def _suggestion(db: sqlite_utils.Database, sid: str, suggestion_id: int) -> dict[str, Any]:
    row = suggestion_row(db, sid, suggestion_id)
    if row is None:
        raise BadInput(f"suggestion {suggestion_id}: not in session {sid}")
    if row["status"] != "open":
        raise BadInput(f"suggestion {suggestion_id} is already {row['status']}")
    return row


@_again_if_raced
def accept_suggestion(
    db: sqlite_utils.Database, sid: str, suggestion_id: int, *, text: str | None = None, keep_backups: int | None = None
) -> Decision:
    """Append the suggestion (or ``text``, its edited form: action ``edit``) to the test file as a new row.

    The provenance is ``{source, cluster, session}``, plus ``edited: true`` for an edited form;
    the decision's payload keeps it (and the ``original``, and the source ``chunk_id`` when the
    suggestion has one), the row only where the file has a place
    for it (:mod:`ragcov_tui.testset.new_row`: a peer's loader must still read the file); a ``text`` that differs
    from the suggestion only in surrounding whitespace is a plain accept. Returns the decision.
    """
    suggestion = _suggestion(db, sid, suggestion_id)
    if text is not None and text.strip() == suggestion["text"].strip():
        text = None
    loaded = writeback.load(db, sid)
    final = suggestion["text"] if text is None else text
    provenance = {
        "source": f"ragcov:{suggestion['origin']}",
        "cluster": suggestion["cluster"],
        "session": sid,
        **({} if text is None else {"edited": True}),
    }
    edit = writer.plan_append(loaded.snap, final, provenance)
    payload = {
        "text": final,
        "question_id": edit.question_id,
        "provenance": provenance,
        **({"chunk_id": suggestion["chunk_id"]} if suggestion.get("chunk_id") else {}),
    }
    if text is not None:
        payload["original"] = suggestion["text"]
    return writeback.write(
        db,
        sid,
        loaded.path,
        edit,
        kind="suggestion",
        target=str(suggestion_id),
        action="accept" if text is None else "edit",
        payload=payload,
        keep_backups=keep_backups,
    )


def reject_suggestion(db: sqlite_utils.Database, sid: str, suggestion_id: int) -> Decision:
    """Mark the suggestion rejected and remember its text for this test file (never suggested again)."""
    suggestion = _suggestion(db, sid, suggestion_id)
    path = testset_path(db, sid)
    log.remember_rejected(db, path, writer.text_key(suggestion["text"]))
    with db.conn:
        set_suggestion_status(db, suggestion_id, "rejected", None)
    return log.record_decision(
        db,
        session_id=sid,
        kind="suggestion",
        target=str(suggestion_id),
        action="reject",
        payload={"text": suggestion["text"]},
        testset_path=path,
    )


def keep_question(db: sqlite_utils.Database, sid: str, question_id: str) -> Decision:
    """Mark a flagged question as intended (no file change)."""
    return log.record_decision(
        db, session_id=sid, kind="question", target=question_id, action="keep", testset_path=testset_path(db, sid)
    )


@_again_if_raced
def drop_question(
    db: sqlite_utils.Database, sid: str, question_id: str, *, force: bool = False, keep_backups: int | None = None
) -> Decision:
    """Remove the question's row from the test file; returns the decision.

    The row is found in the file as it is now: by id, or for a file without ids by the content the
    analysis read. :class:`ConflictError` (nothing written) when that row was edited or removed on
    disk; with ``force`` the edited row is dropped, and a row already gone is recorded as dropped.
    """
    if log.question_marks(db, sid).get(question_id) == "drop":
        raise BadInput(f"{question_id} is already dropped (u undoes it)")
    loaded = writeback.load(db, sid)
    index = _current_row(db, sid, loaded.snap, question_id, force)
    if index is None:
        return log.record_decision(
            db,
            session_id=sid,
            kind="question",
            target=question_id,
            action="drop",
            testset_path=loaded.path,
            payload={"absent": True},
        )
    return writeback.write(
        db,
        sid,
        loaded.path,
        writer.plan_drop(loaded.snap, index),
        kind="question",
        target=question_id,
        action="drop",
        payload={},
        keep_backups=keep_backups,
    )


def _current_row(db: sqlite_utils.Database, sid: str, snap: Snapshot, question_id: str, force: bool) -> int | None:
    """Where the question the analysis read is in the file now (None: gone, and ``force``)."""
    seen = session_question_raw(db, sid, question_id)
    if seen is None:  # not among the analysed rows: by its id in the file as it is
        question = snap.testset.by_id(question_id)
        if question is None:
            raise BadInput(f"{snap.file}: no question with id {question_id!r} (nothing was written)")
        return question.row
    index, rows = writeback.locate(snap, seen), snap.layout.rows
    if force:
        return index
    if index is None:
        raise ConflictError(
            f"{question_id} is no longer in {snap.file.name} (removed or edited on disk); nothing was written",
            question=f"Record {question_id} as dropped, leaving the file as it is?",
        )
    if rows[index].value != seen:
        raise ConflictError(
            f"{question_id} was edited in {snap.file.name} since the analysis read it; nothing was written",
            question=f"Drop the edited row {question_id} anyway?",
        )
    return index


@_again_if_raced
def undo_last(db: sqlite_utils.Database, sid: str, *, force: bool = False, keep_backups: int | None = None) -> Decision:
    """Revert the session's newest standing decision; returns the ``undo`` decision recorded.

    BadInput when there is nothing to undo; :class:`ConflictError` (nothing restored) when the
    inverse cannot be applied cleanly to the file as it is now; with ``force`` the decision is
    then undone in the log only, the file kept as it is.
    """
    last = log.last_undoable(db, sid)
    if last is None:
        raise BadInput("nothing to undo in this session")
    payload = {
        "undid": last.id,
        "action": last.action,
        **({"text": last.payload["text"]} if "text" in last.payload else {}),
    }
    edit = _inverse(db, sid, last, force) if last.wrote_file else None
    if edit is None:
        decision = log.record_decision(
            db,
            session_id=sid,
            kind=last.kind,
            target=last.target,
            action="undo",
            payload=payload,
            testset_path=last.testset_path,
        )
        writeback.apply_effects(db, decision)
        return decision
    change = last.payload.get("change") or {}
    inverse = {"effect": "remove" if change.get("effect") == "insert" else "insert", "row": change.get("row")}
    assert last.testset_path
    return writeback.write(
        db,
        sid,
        last.testset_path,
        edit,
        kind=last.kind,
        target=last.target,
        action="undo",
        payload=payload,
        change=inverse if change else {},
        keep_backups=keep_backups,
    )


def _inverse(db: sqlite_utils.Database, sid: str, last: Decision, force: bool) -> Edit | None:
    """The write that undoes ``last``: its backup when the file is as ``last`` left it, else the
    inverse splice by content. None when that cannot be done cleanly and ``force`` is set."""
    snap = writeback.load(db, sid).snap
    if snap.sha == last.sha_after and last.backup_path and Path(last.backup_path).is_file():
        return writer.plan_restore(snap, last.backup_path)
    what = f"the {last.action} of {last.kind} {last.target}"
    change = last.payload.get("change")
    try:
        if not change:
            raise ConflictError(f"{what} was recorded by an older ragcov that cannot undo it by content")
        row = f"its row {last.payload.get('question_id') or last.target!r}"
        if change["effect"] == "insert":
            return writer.plan_remove(snap, change["row"], row)
        return writer.plan_reinsert(snap, change, row)
    except ConflictError as exc:
        if force:
            return None
        raise ConflictError(
            f"cannot undo {what} cleanly: {exc}; the file was kept as it is",
            question="Forget this decision, leaving the file as it is?",
        ) from None
