"""Lossless write-back into the user's test file: append a question, drop one, undo.

Every write follows the same steps, so the user's file is never damaged:

1. read the file's current bytes and refuse (:class:`FileChangedError`, nothing written) unless
   their sha256 is ``expected_sha256`` — the digest of the version the caller read;
2. compute the new text by splicing exactly one row in or out (:mod:`.splice`), then re-parse it
   and check that every other row is unchanged (else refuse, nothing written);
3. copy the current bytes to ``<dir>/.ragcov-backups/<name>.<UTC yyyymmddThhmmss.ffffff>.<sha8>.bak``
   (sha8: the first 8 hex digits of those bytes' sha256; same permissions as the file);
4. write a temp file in the same directory, fsync, give it the file's permissions, check the
   digest once more, and ``os.replace`` it over the file (atomic).

Undo is :func:`restore_backup` with the ``WriteResult`` of the write being undone:
``restore_backup(path, result.backup_path, expected_sha256=result.sha_after)``.
A symlinked test file is written through to its target.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import tempfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ragcov_tui.errors import BadInput, RagcovError
from ragcov_tui.testset.fields import PROVENANCE_FIELD
from ragcov_tui.testset.ids import fresh_id, text_key
from ragcov_tui.testset.layout import Layout
from ragcov_tui.testset.models import Question, TestSet
from ragcov_tui.testset.reader import parse_testset, read_bytes
from ragcov_tui.testset.splice import append_row, drop_row

__all__ = [
    "BACKUP_DIR", "DuplicateQuestionError", "FileChangedError", "WriteResult",
    "append_question", "drop_question", "restore_backup", "text_key",
]

BACKUP_DIR = ".ragcov-backups"


class FileChangedError(BadInput):
    """The file on disk is not the version the caller read; nothing was written."""

    def __init__(self, path: Path | str) -> None:
        super().__init__(f"{path} changed on disk since it was read; reload before writing (nothing was written)")


class DuplicateQuestionError(BadInput):
    """The question to append is already in the file (same :func:`text_key`); nothing was written."""


@dataclass(frozen=True)
class WriteResult:
    """What a write did: digests before/after, where the previous bytes were saved, which row.

    ``question_id`` is the appended or dropped row's id (for a CSV file without an id column, the
    appended row's synthetic ``row-<n>``); None for :func:`restore_backup`.
    """

    sha_before: str
    sha_after: str
    backup_path: Path
    question_id: str | None


def append_question(path: str | Path, text: str, *, expected_sha256: str, provenance: dict[str, Any]) -> WriteResult:
    """Add ``text`` as a new last row with a fresh id, in the file's own field names and style.

    JSON / JSONL rows get ``{<id field>: <fresh id>, <question field>: text, "provenance": {...}}``
    (the id field is ``id`` when the file has none). CSV rows fill only existing columns: id,
    question, and ``provenance`` (as JSON) if the header has it. BadInput for empty text;
    :class:`DuplicateQuestionError` if the file already has the question.
    """
    file, current = _current_bytes(path, expected_sha256)
    testset, layout = parse_testset(file, current)
    text = text.strip()
    if not text:
        raise BadInput(f"{path}: the question to add is empty (nothing was written)")
    duplicate = next((q for q in testset.questions if text_key(q.text) == text_key(text)), None)
    if duplicate is not None:
        raise DuplicateQuestionError(
            f"{path}: the question is already in the file as {duplicate.id!r} (nothing was written)"
        )
    row, question_id = _new_row(testset, layout, text, provenance)
    new_bytes = append_row(layout, row).encode("utf-8")
    after = parse_testset(file, new_bytes)[0].questions
    _check_rows(path, after[:-1], testset.questions)
    if (after[-1].text, after[-1].id) != (text, question_id):
        raise RagcovError(f"{path}: internal error, the appended row did not read back (nothing was written)")
    return _commit(file, current, new_bytes, expected_sha256, question_id)


def drop_question(path: str | Path, question_id: str, *, expected_sha256: str) -> WriteResult:
    """Remove the row whose id is ``question_id`` (a synthetic ``row-<n>`` works too).

    BadInput when no row has that id, or when it is the file's only question.
    """
    file, current = _current_bytes(path, expected_sha256)
    testset, layout = parse_testset(file, current)
    question = testset.by_id(question_id)
    if question is None:
        raise BadInput(f"{path}: no question with id {question_id!r} (nothing was written)")
    if len(testset.questions) == 1:
        raise BadInput(
            f"{path}: {question_id!r} is the only question; a test file keeps at least one (nothing was written)"
        )
    new_bytes = drop_row(layout, question.row).encode("utf-8")
    _check_rows(path, parse_testset(file, new_bytes)[0].questions, [q for q in testset.questions if q is not question])
    return _commit(file, current, new_bytes, expected_sha256, question_id)


def restore_backup(path: str | Path, backup_path: str | Path, *, expected_sha256: str) -> WriteResult:
    """Put the backup's bytes back exactly (undo); the bytes replaced are themselves backed up.

    BadInput (nothing written) when the backup is missing or is not a readable test file.
    """
    file, current = _current_bytes(path, expected_sha256)
    restored = read_bytes(Path(backup_path))
    parse_testset(file, restored)
    return _commit(file, current, restored, expected_sha256, None)


def _current_bytes(path: str | Path, expected_sha256: str) -> tuple[Path, bytes]:
    """The real file (symlinks followed) and its bytes, if they still have ``expected_sha256``."""
    file = Path(os.path.realpath(path))
    current = read_bytes(file)
    if hashlib.sha256(current).hexdigest() != expected_sha256:
        raise FileChangedError(path)
    return file, current


def _new_row(testset: TestSet, layout: Layout, text: str, provenance: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The row to append (in the file's field names) and the id it will read back with."""
    names = testset.field_names
    if "question" not in names and testset.format == "csv":
        raise BadInput(f"{testset.path}: the CSV header has no question column (nothing was written)")
    question_field = names.get("question", "question")
    new_id = fresh_id([q.raw.get(names["id"], q.id) for q in testset.questions if q.id_in_file])
    if testset.format == "csv":
        row: dict[str, Any] = {question_field: text}
        if "id" in names:
            row[names["id"]] = str(new_id)
        if PROVENANCE_FIELD in layout.header:
            row[PROVENANCE_FIELD] = json.dumps(provenance, ensure_ascii=False)
        return row, str(new_id) if "id" in names else f"row-{len(testset.questions) + 1}"
    return {names.get("id", "id"): new_id, question_field: text, PROVENANCE_FIELD: dict(provenance)}, str(new_id)


def _check_rows(path: str | Path, after: list[Question], expected: list[Question]) -> None:
    """Refuse the write unless the edited text reads back with exactly the expected rows."""
    if [q.raw for q in after] != [q.raw for q in expected]:
        raise RagcovError(
            f"{path}: internal error, the edited file did not read back as expected (nothing was written)"
        )


def _commit(file: Path, current: bytes, new: bytes, expected_sha256: str, question_id: str | None) -> WriteResult:
    if not os.access(file, os.W_OK) or not file.stat().st_mode & stat.S_IWUSR:
        raise BadInput(f"{file}: the file is read-only (nothing was written)")
    backup = _write_backup(file, current, expected_sha256)
    _replace_atomically(file, new, expected_sha256)
    return WriteResult(expected_sha256, hashlib.sha256(new).hexdigest(), backup, question_id)


def _write_backup(file: Path, data: bytes, sha: str) -> Path:
    """Save ``data`` under ``<dir>/.ragcov-backups/`` with a UTC timestamp and the sha prefix."""
    folder = file.parent / BACKUP_DIR
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S.%f")
    try:
        folder.mkdir(exist_ok=True)
        for attempt in range(100):
            suffix = f".{attempt}" if attempt else ""
            backup = folder / f"{file.name}.{stamp}.{sha[:8]}{suffix}.bak"
            try:
                with open(backup, "xb") as handle:
                    os.chmod(backup, stat.S_IMODE(file.stat().st_mode))
                    handle.write(data)
                    handle.flush()
                    os.fsync(handle.fileno())
                return backup
            except FileExistsError:
                continue
        raise FileExistsError(f"{folder}: too many backups named {file.name}.{stamp}")
    except OSError as exc:
        raise BadInput(f"{file}: cannot write a backup in {folder} ({exc}); nothing was written") from None


def _replace_atomically(file: Path, data: bytes, expected_sha256: str) -> None:
    """Write ``data`` to a temp file beside ``file``, fsync, keep the mode, ``os.replace``."""
    mode = stat.S_IMODE(file.stat().st_mode)
    try:
        handle_fd, temp_name = tempfile.mkstemp(dir=file.parent, prefix=f".{file.name}.", suffix=".ragcov-tmp")
    except OSError as exc:
        raise BadInput(f"{file}: cannot write in {file.parent} ({exc.strerror}); nothing was written") from None
    temp = Path(temp_name)
    try:
        with os.fdopen(handle_fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, mode)
        if hashlib.sha256(file.read_bytes()).hexdigest() != expected_sha256:
            raise FileChangedError(file)
        os.replace(temp, file)
    except OSError as exc:
        temp.unlink(missing_ok=True)
        raise RagcovError(f"{file}: cannot write ({exc}); nothing was written") from None
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    _fsync_directory(file.parent)


def _fsync_directory(folder: Path) -> None:
    """Make the rename durable where the platform allows it (not on Windows)."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)
