"""Lossless write-back into the user's test file: append a question, drop one, and their inverses.

A write is planned, then committed. Planning (:func:`plan_append`, :func:`plan_drop`,
:func:`plan_remove`, :func:`plan_reinsert`, :func:`plan_restore`) works on a :class:`Snapshot` —
the file's bytes as just read — splices exactly one row in or out (:mod:`.splice`), re-parses the
result and checks that every other row is unchanged (else refuses, nothing written). The
:class:`Edit` it returns also says what it changed, to invert or recognise it by content
(``Edit.change``).
:func:`commit` then writes it durably (:mod:`.durable`):

1. copy the snapshot's bytes to ``<dir>/.ragcov-backups/<name>.<UTC stamp>.<sha8>.bak`` (temp
   name, fsync, rename: a backup is whole or absent);
2. run the caller's ``before_replace`` (the triage log records the decision as pending there);
3. write a temp file beside the file, fsync, give it the file's owner, group and mode, check the
   file still has the snapshot's digest, and ``os.replace`` it over the file (atomic).

The change is ``{"effect": "insert" | "remove", "row": {"text", "value"}}`` — the exact text of
the row's span and its parsed value — plus, for a removal, ``"removed"`` (the exact text taken out,
separators included) and ``"anchor"`` (``{"side": "before" | "after", "text", "value"}``: the
neighbour it was taken from). A row is found again by its exact text, else by its value.

:func:`append_question`, :func:`drop_question` and :func:`restore_backup` plan and commit in one
call, refusing (:class:`FileChangedError`) unless the file has ``expected_sha256``. A symlinked
test file is written through to its target.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ragcov_tui.shared.errors import BadInput, RagcovError
from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.testset.durable import (
    BACKUP_DIR,
    FileChangedError,
    backups_kept,
    prune_backups,
    replace_atomically,
    write_backup,
)
from ragcov_tui.testset.ids import text_key
from ragcov_tui.testset.layout import Layout, RawRow
from ragcov_tui.testset.models import Question, TestSet
from ragcov_tui.testset.new_row import new_row, refuse_parallel
from ragcov_tui.testset.reader import parse_testset, read_bytes
from ragcov_tui.testset.splice import append_row, drop_row, drop_span

__all__ = [
    "BACKUP_DIR",
    "ConflictError",
    "DuplicateQuestionError",
    "Edit",
    "FileChangedError",
    "Snapshot",
    "WriteResult",
    "append_question",
    "commit",
    "drop_question",
    "find_row",
    "plan_append",
    "plan_drop",
    "plan_reinsert",
    "plan_remove",
    "plan_restore",
    "restore_backup",
    "snapshot",
    "text_key",
]


class DuplicateQuestionError(BadInput):
    """The question to append is already in the file (same :func:`text_key`); nothing was written."""


class ConflictError(BadInput):
    """The row an action touches changed or vanished on disk; nothing was written.

    ``question`` is what to ask the user before doing it anyway (``force``), None when there is
    nothing to force.
    """

    def __init__(self, message: str, question: str | None = None) -> None:
        super().__init__(message)
        self.question = question


@dataclass(frozen=True)
class Snapshot:
    """The test file as just read: the real path (symlinks followed), its bytes, parsed."""

    file: Path
    data: bytes
    testset: TestSet
    layout: Layout

    @property
    def sha(self) -> str:
        return self.testset.sha256

    def row_text(self, row: RawRow) -> str:
        return self.layout.text[row.start : row.end]

    def row_ref(self, row: RawRow) -> JsonObject:
        """How a row is found again: its exact text and its value."""
        return {"text": self.row_text(row), "value": row.value}


_LAST_READ: dict[Path, Snapshot] = {}  # the newest snapshot of one file: bytes unchanged, no new parse


def snapshot(path: str | Path) -> Snapshot:
    """Read and parse the test file at ``path`` (BadInput when it cannot be read or parsed).

    The bytes are read every time; they are parsed again only when they differ from the newest
    snapshot this process took or wrote of the same file.
    """
    file = Path(os.path.realpath(path))
    data = read_bytes(file)
    last = _LAST_READ.get(file)
    return last if last is not None and last.data == data else _remember(_parsed(file, data))


def _remember(snap: Snapshot) -> Snapshot:
    _LAST_READ.clear()
    _LAST_READ[snap.file] = snap
    return snap


@dataclass(frozen=True)
class Edit:
    """A planned change of a test file: the bytes before and after, the row it adds or removes,
    and how to invert it by content (see the module docstring)."""

    file: Path
    before: bytes
    after: bytes
    question_id: str | None = None
    change: JsonObject = field(default_factory=dict)
    after_snap: Snapshot | None = field(default=None, repr=False, compare=False)  # ``after`` as parsed

    @property
    def sha_before(self) -> str:
        return hashlib.sha256(self.before).hexdigest()

    @property
    def sha_after(self) -> str:
        return hashlib.sha256(self.after).hexdigest()


@dataclass(frozen=True)
class WriteResult:
    """What a write did: digests before/after, where the previous bytes were saved, which row.

    ``question_id`` is the appended or dropped row's id (for a file without ids, the appended row's
    content id); None for a restore or re-insert. ``note`` is a one-line
    remark for the user (the owner could not be kept), else None.
    """

    sha_before: str
    sha_after: str
    backup_path: Path
    question_id: str | None
    note: str | None = None


def plan_append(snap: Snapshot, text: str, provenance: JsonObject) -> Edit:
    """Add ``text`` as a new last row, in the file's own field names and style, carrying only
    fields the rows already have (:mod:`.new_row`: a fresh id when the rows have ids, the
    provenance where the rows have a place for it). BadInput for empty text or a file ragcov only
    reads; :class:`DuplicateQuestionError` if the file already has the question.
    """
    testset, text = snap.testset, text.strip()
    if not text:
        raise BadInput(f"{snap.file}: the question to add is empty (nothing was written)")
    duplicate = next((q for q in testset.questions if text_key(q.text) == text_key(text)), None)
    if duplicate is not None:
        raise DuplicateQuestionError(
            f"{snap.file}: the question is already in the file as {duplicate.id!r} (nothing was written)"
        )
    row, question_id = new_row(testset, snap.layout, text, provenance)
    new = _parsed(snap.file, append_row(snap.layout, row).encode("utf-8"))
    _check_rows(snap.file, new.testset.questions[:-1], testset.questions)
    added = new.testset.questions[-1]
    if (added.text, added.id) != (text, question_id):
        raise RagcovError(f"{snap.file}: internal error, the appended row did not read back (nothing was written)")
    change = {"effect": "insert", "row": new.row_ref(new.layout.rows[-1])}
    return Edit(snap.file, snap.data, new.data, question_id, change, new)


def plan_drop(snap: Snapshot, index: int) -> Edit:
    """Remove row ``index``; BadInput when it is the file's only question."""
    question = snap.testset.questions[index]
    if snap.layout.parallel:
        raise refuse_parallel(snap.testset, snap.layout)
    if len(snap.testset.questions) == 1:
        raise BadInput(
            f"{snap.file}: {question.id!r} is the only question; a test file keeps at least one (nothing was written)"
        )
    rows = snap.layout.rows
    start, end = drop_span(snap.layout, index)
    after = _parsed(snap.file, drop_row(snap.layout, index).encode("utf-8"))
    _check_rows(snap.file, after.testset.questions, [q for q in snap.testset.questions if q is not question])
    side, neighbour = ("before", rows[index + 1]) if index + 1 < len(rows) else ("after", rows[index - 1])
    change = {
        "effect": "remove",
        "row": snap.row_ref(rows[index]),
        "removed": snap.layout.text[start:end],
        "anchor": {"side": side, **snap.row_ref(neighbour)},
    }
    return Edit(snap.file, snap.data, after.data, question.id, change, after)


def plan_remove(snap: Snapshot, row: JsonObject, what: str) -> Edit:
    """Take out the row ``row`` (``{"text", "value"}``) wherever it is now — the inverse of an
    append. :class:`ConflictError` when it is no longer in the file (gone, or edited)."""
    index = find_row(snap, row)
    if index is None:
        raise ConflictError(f"{what} is no longer in {snap.file.name} as it was written (edited or removed on disk)")
    return plan_drop(snap, index)


def plan_reinsert(snap: Snapshot, removal: JsonObject, what: str) -> Edit:
    """Put a removed row back beside its old neighbour — the inverse of a drop (``removal`` is the
    drop's ``Edit.change``).

    :class:`ConflictError` when the row is already there again, the neighbour is gone, or the
    result would not read back as the current rows plus that row.
    """
    if find_row(snap, removal["row"]) is not None:
        raise ConflictError(f"{what} is already in {snap.file.name} again")
    anchor = find_row(snap, removal["anchor"])
    if anchor is None:
        raise ConflictError(
            f"cannot put {what} back: the row next to it in {snap.file.name} was edited or removed on disk"
        )
    after_anchor = removal["anchor"]["side"] == "after"
    at = snap.layout.rows[anchor].end if after_anchor else snap.layout.rows[anchor].start
    text = snap.layout.text
    data = (text[:at] + _as_lines(snap.layout, at, removal["removed"]) + text[at:]).encode("utf-8")
    try:
        new = _parsed(snap.file, data)
    except BadInput as exc:
        raise ConflictError(f"cannot put {what} back in {snap.file.name} cleanly ({exc})") from None
    expected = [q.raw for q in snap.testset.questions]
    expected.insert(anchor + after_anchor, removal["row"]["value"])
    if [q.raw for q in new.testset.questions] != expected:
        raise ConflictError(f"cannot put {what} back in {snap.file.name} cleanly (the rows around it changed)")
    return Edit(snap.file, snap.data, data, change={"effect": "insert", "row": removal["row"]}, after_snap=new)


def _as_lines(layout: Layout, at: int, piece: str) -> str:
    """JSONL / CSV: ``piece`` with the line breaks it needs at ``at`` (a last row taken from a file
    without a final newline has none, and may go back where a row now follows)."""
    if layout.format == "json":
        return piece
    text = layout.text
    before = layout.newline if at > 0 and text[at - 1] != "\n" else ""
    after = layout.newline if at < len(text) and not piece.endswith("\n") else ""
    return before + piece + after


def plan_restore(snap: Snapshot, backup_path: str | Path) -> Edit:
    """Put the backup's bytes back exactly; BadInput when it is missing or not a readable test file."""
    restored = read_bytes(Path(backup_path))
    return Edit(snap.file, snap.data, restored, after_snap=_parsed(snap.file, restored))


def find_row(snap: Snapshot, ref: JsonObject) -> int | None:
    """Index of the row with exactly ``ref["text"]``, else the first with value ``ref["value"]``."""
    rows = snap.layout.rows
    exact = next((r.index for r in rows if snap.row_text(r) == ref["text"]), None)
    return exact if exact is not None else next((r.index for r in rows if r.value == ref["value"]), None)


def commit(edit: Edit, before_replace: Callable[[Path], None] | None = None, *, keep: int | None = None) -> WriteResult:
    """Write ``edit`` durably: backup, ``before_replace(backup_path)``, atomic replace that keeps the
    file's owner, group and mode; then only the newest ``keep`` backups of the file stay (None:
    :func:`backups_kept`). If the file was not replaced the backup is removed again."""
    file = edit.file
    if not os.access(file, os.W_OK) or not file.stat().st_mode & stat.S_IWUSR:
        raise BadInput(f"{file}: the file is read-only (nothing was written)")
    if keep is None:
        keep = backups_kept()  # a bad $RAGCOV_KEEP_BACKUPS fails before anything is written
    backup = write_backup(file, edit.before, edit.sha_before)
    try:
        note = replace_atomically(
            file, edit.after, edit.sha_before, None if before_replace is None else lambda: before_replace(backup)
        )
    except BaseException:
        with contextlib.suppress(OSError):
            if hashlib.sha256(file.read_bytes()).hexdigest() != edit.sha_after:  # not replaced after all
                backup.unlink(missing_ok=True)
        raise
    prune_backups(file, keep)
    if edit.after_snap is not None:
        _remember(edit.after_snap)
    return WriteResult(edit.sha_before, edit.sha_after, backup, edit.question_id, note)


def append_question(path: str | Path, text: str, *, expected_sha256: str, provenance: JsonObject) -> WriteResult:
    """Plan and commit :func:`plan_append` on the file, if it still has ``expected_sha256``."""
    return commit(plan_append(_expected(path, expected_sha256), text, provenance))


def drop_question(path: str | Path, question_id: str, *, expected_sha256: str) -> WriteResult:
    """Remove the row whose id is ``question_id`` (the content id of a row without one works too).

    BadInput when no row has that id, or when it is the file's only question.
    """
    snap = _expected(path, expected_sha256)
    question = snap.testset.by_id(question_id)
    if question is None:
        raise BadInput(f"{path}: no question with id {question_id!r} (nothing was written)")
    return commit(plan_drop(snap, question.row))


def restore_backup(path: str | Path, backup_path: str | Path, *, expected_sha256: str) -> WriteResult:
    """Put the backup's bytes back exactly (undo); the bytes replaced are themselves backed up."""
    return commit(plan_restore(_expected(path, expected_sha256), backup_path))


def _expected(path: str | Path, expected_sha256: str) -> Snapshot:
    """The file's snapshot, if its bytes still have ``expected_sha256`` (else FileChangedError)."""
    file = Path(os.path.realpath(path))
    data = read_bytes(file)
    if hashlib.sha256(data).hexdigest() != expected_sha256:
        raise FileChangedError(path)
    return Snapshot(file, data, *parse_testset(file, data))


def _parsed(file: Path, data: bytes) -> Snapshot:
    return Snapshot(file, data, *parse_testset(file, data))


def _check_rows(path: str | Path, after: list[Question], expected: list[Question]) -> None:
    """Refuse the write unless the edited text reads back with exactly the expected rows."""
    if [q.raw for q in after] != [q.raw for q in expected]:
        raise RagcovError(
            f"{path}: internal error, the edited file did not read back as expected (nothing was written)"
        )
