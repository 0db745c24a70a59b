"""Triage against a test file that others edit: reload and say what changed, splice by content,
ask only when the very row changed, undo by inverse splice, write-ahead and reconcile."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from ragcov_tui.services import triage, writeback
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.store import decisions as log
from ragcov_tui.store import open_db
from ragcov_tui.store.queries import gap_rows
from ragcov_tui.store.rows import SuggestionRow
from ragcov_tui.testset import writer
from ragcov_tui.testset.writer import ConflictError, DuplicateQuestionError
from tests.support.synthetic_sessions import make_analysis_session


@pytest.fixture()
def env(tmp_path: Path):
    db = open_db(":memory:")
    sid = make_analysis_session(db, testset_dir=tmp_path, n_chunks=120, n_questions=12)
    return db, sid, tmp_path / "questions.jsonl"


def open_suggestions(db, sid, path) -> list[SuggestionRow]:
    return [s for g in gap_rows(db, sid, str(path.resolve())) for s in g["suggestions"] if s.status == "open"]


def lines(path: Path) -> list[str]:
    return path.read_text().splitlines(keepends=True)


def append_by_hand(path: Path, qid: str = "x1", text: str = "Added by a teammate?") -> str:
    line = json.dumps({"id": qid, "question": text}) + "\n"
    path.write_text(path.read_text() + line)
    return line


def edit_by_hand(path: Path, qid: str, new_text: str) -> None:
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    path.write_text("".join(json.dumps({**r, "question": new_text} if r["id"] == qid else r) + "\n" for r in rows))


def test_an_outside_append_is_reported_once_and_never_blocks_an_accept(env) -> None:
    db, sid, path = env
    theirs = append_by_hand(path)
    edited = path.read_bytes()
    assert triage.reload(db, sid) == (
        "test file questions.jsonl changed on disk: 1 row added, 0 removed, 0 edited; reloaded"
    )
    assert triage.reload(db, sid) is None  # seen now
    s = open_suggestions(db, sid, path)[0]
    d = triage.accept_suggestion(db, sid, s.id)
    after = path.read_bytes()
    assert after.startswith(edited) and theirs in after.decode()  # both rows, ours after theirs
    assert json.loads(after.decode().splitlines()[-1])["question"] == s.text
    assert d.state == "applied" and triage.reload(db, sid) is None  # our own write is no outside change


def test_the_note_counts_added_removed_and_edited_rows(env) -> None:
    db, sid, path = env
    rows = lines(path)
    edited = json.dumps({**json.loads(rows[3]), "question": "Reworded?"}) + "\n"
    added = [json.dumps({"id": f"n{i}", "question": f"New {i}?"}) + "\n" for i in (1, 2)]
    path.write_text("".join(rows[:1] + rows[2:3] + [edited] + rows[4:] + added))  # row 1 gone, row 3 edited
    assert "2 rows added, 1 removed, 1 edited; reloaded" in (triage.reload(db, sid) or "")


def test_the_note_names_marks_the_file_now_contradicts(env) -> None:
    db, sid, path = env
    dropped = next(line for line in lines(path) if '"q00004"' in line)
    triage.drop_question(db, sid, "q00004")
    triage.keep_question(db, sid, "q00005")
    path.write_text("".join(line for line in lines(path) if '"q00005"' not in line) + dropped)  # a stale pull
    note = triage.reload(db, sid)
    assert note is not None and note.endswith(
        "1 row added, 1 removed, 0 edited; reloaded; no longer true: q00004 dropped but back, q00005 kept but gone"
    )
    assert log.question_marks(db, sid) == {"q00004": "drop", "q00005": "keep"}


def test_a_drop_after_an_outside_append_removes_only_that_row(env) -> None:
    db, sid, path = env
    before = lines(path)
    theirs = append_by_hand(path)
    triage.drop_question(db, sid, "q00004")
    assert lines(path) == [line for line in before if '"q00004"' not in line] + [theirs]


def test_dropping_a_row_edited_on_disk_asks_and_force_drops_the_edited_row(env) -> None:
    db, sid, path = env
    edit_by_hand(path, "q00004", "Rewritten by a teammate?")
    edited = path.read_bytes()
    with pytest.raises(ConflictError, match="q00004 was edited in questions.jsonl since the analysis") as caught:
        triage.drop_question(db, sid, "q00004")
    assert caught.value.question == "Drop the edited row q00004 anyway?"
    assert path.read_bytes() == edited and log.list_decisions(db, sid) == []
    triage.drop_question(db, sid, "q00004", force=True)
    assert "Rewritten" not in path.read_text() and len(lines(path)) == 11


def test_dropping_a_row_removed_on_disk_asks_and_force_records_it_only(env) -> None:
    db, sid, path = env
    path.write_text("".join(line for line in lines(path) if '"q00004"' not in line))
    edited = path.read_bytes()
    with pytest.raises(ConflictError, match="q00004 is no longer in questions.jsonl") as caught:
        triage.drop_question(db, sid, "q00004")
    assert (caught.value.question or "").startswith("Record q00004 as dropped")
    d = triage.drop_question(db, sid, "q00004", force=True)
    assert path.read_bytes() == edited and not d.wrote_file
    assert log.question_marks(db, sid) == {"q00004": "drop"}
    with pytest.raises(BadInput, match="already dropped"):
        triage.drop_question(db, sid, "q00004")
    triage.undo_last(db, sid)
    assert path.read_bytes() == edited and log.question_marks(db, sid) == {}


def test_undo_of_an_accept_after_an_outside_append_takes_out_only_our_row(env) -> None:
    db, sid, path = env
    original = path.read_bytes()
    s = open_suggestions(db, sid, path)[0]
    triage.accept_suggestion(db, sid, s.id)
    theirs = append_by_hand(path)
    triage.undo_last(db, sid)
    assert path.read_bytes() == original + theirs.encode()  # their row kept, ours gone: no old backup restored
    assert db.execute("SELECT status FROM suggestions WHERE id = ?", [s.id]).fetchone()[0] == "open"


def test_undo_of_a_drop_after_outside_edits_puts_the_row_back_beside_its_neighbour(env) -> None:
    db, sid, path = env
    before = lines(path)
    triage.drop_question(db, sid, "q00004")
    theirs = append_by_hand(path)
    path.write_text("".join(line for line in lines(path) if '"q00001"' not in line))  # and one removed above
    triage.undo_last(db, sid)
    assert lines(path) == [line for line in before if '"q00001"' not in line] + [theirs]


def test_undo_that_cannot_be_applied_cleanly_keeps_the_file_and_force_forgets_it(env) -> None:
    db, sid, path = env
    s = open_suggestions(db, sid, path)[0]
    d = triage.accept_suggestion(db, sid, s.id)
    edit_by_hand(path, d.payload["question_id"], "Our row, reworded by a teammate?")
    edited = path.read_bytes()
    with pytest.raises(ConflictError, match=r"cannot undo the accept of suggestion \d+ cleanly: .*the file was kept"):
        triage.undo_last(db, sid)
    assert path.read_bytes() == edited
    triage.undo_last(db, sid, force=True)
    assert path.read_bytes() == edited and log.last_undoable(db, sid) is None
    assert db.execute("SELECT status FROM suggestions WHERE id = ?", [s.id]).fetchone()[0] == "open"


def test_a_teammate_adding_the_same_question_is_a_duplicate_not_a_jam(env) -> None:
    db, sid, path = env
    s, other = open_suggestions(db, sid, path)[:2]
    append_by_hand(path, "x9", s.text)
    with pytest.raises(DuplicateQuestionError, match="already in the file as 'x9'"):
        triage.accept_suggestion(db, sid, s.id)
    triage.accept_suggestion(db, sid, other.id)
    assert other.text in path.read_text()


def test_rows_without_ids_are_found_by_content_when_rows_above_shift(tmp_path: Path) -> None:
    db = open_db(":memory:")
    sid = make_analysis_session(db, testset_dir=tmp_path, n_chunks=60, n_questions=6, tricky=False)
    path = tmp_path / "questions.jsonl"
    plain = [json.dumps({"question": json.loads(line)["question"]}) + "\n" for line in lines(path)]
    path.write_text("".join(plain))
    with db.conn:  # an older ragcov's analysis knew the rows of a file without ids as row-<n>: still found by content
        for n, line in enumerate(plain):
            db.execute(
                "UPDATE questions SET question_id = ?, raw = ? WHERE session_id = ? AND seq = ?",
                [f"row-{n + 1}", line.strip(), sid, n],
            )
        db.execute("UPDATE sessions SET testset_sha256 = ? WHERE id = ?", [writer.snapshot(path).sha, sid])
    top = json.dumps({"question": "Inserted at the top?"}) + "\n"
    path.write_text(top + "".join(plain))
    triage.drop_question(db, sid, "row-3")  # the third row as analysed, now the fourth
    assert lines(path) == [top] + plain[:2] + plain[3:]
    triage.undo_last(db, sid)
    assert lines(path) == [top] + plain


def test_a_crash_between_replace_and_record_is_reconciled_on_the_next_start(env) -> None:
    db, sid, path = env
    s, other = open_suggestions(db, sid, path)[:2]
    original = path.read_bytes()
    loaded = writeback.load(db, sid)
    edit = writer.plan_append(loaded.snap, s.text, {"source": "test"})
    pending = []

    def record(backup: Path) -> None:  # what writeback.write records ahead, then the process dies
        pending.append(
            log.record_decision(
                db,
                session_id=sid,
                kind="suggestion",
                target=str(s.id),
                action="accept",
                testset_path=loaded.path,
                payload={"text": s.text, "question_id": edit.question_id, "change": edit.change},
                sha_before=edit.sha_before,
                sha_after=edit.sha_after,
                backup_path=str(backup),
                state="pending",
            )
        )

    writer.commit(edit, before_replace=record)
    assert log.last_undoable(db, sid) is None and pending[0].state == "pending"
    # next start: the file holds the row, so the decision is applied with its effects
    assert triage.reload(db, sid) is None
    assert log.get_decision(db, pending[0].id).state == "applied"
    assert db.execute("SELECT status FROM suggestions WHERE id = ?", [s.id]).fetchone()[0] == "accepted"
    triage.accept_suggestion(db, sid, other.id)  # not refused
    triage.undo_last(db, sid)
    triage.undo_last(db, sid)
    assert path.read_bytes() == original


def test_a_pending_write_that_never_reached_the_file_is_abandoned(env) -> None:
    db, sid, path = env
    s = open_suggestions(db, sid, path)[0]
    loaded = writeback.load(db, sid)
    edit = writer.plan_append(loaded.snap, s.text, {})
    d = log.record_decision(
        db,
        session_id=sid,
        kind="suggestion",
        target=str(s.id),
        action="accept",
        testset_path=loaded.path,
        payload={"change": edit.change},
        sha_before=edit.sha_before,
        sha_after=edit.sha_after,
        backup_path="/nowhere.bak",
        state="pending",
    )
    append_by_hand(path)  # the file moved on without our row
    triage.reload(db, sid)
    assert log.get_decision(db, d.id).state == "abandoned"
    with pytest.raises(BadInput, match="nothing to undo"):
        triage.undo_last(db, sid)
    assert db.execute("SELECT status FROM suggestions WHERE id = ?", [s.id]).fetchone()[0] == "open"


def racing(monkeypatch, times: int) -> None:
    """The next ``times`` commits find that someone wrote between our check and the rename."""
    real_commit, left = writer.commit, [times]

    def racing_commit(edit, before_replace=None, keep=None):
        def record_then_race(backup: Path) -> None:
            before_replace(backup)
            if left[0]:
                left[0] -= 1
                raise writer.FileChangedError(edit.file)

        return real_commit(edit, before_replace=record_then_race, keep=keep)

    monkeypatch.setattr(writer, "commit", racing_commit)


def test_a_write_refused_at_the_last_moment_leaves_no_decision(env, monkeypatch) -> None:
    db, sid, path = env
    s = open_suggestions(db, sid, path)[0]
    original = path.read_bytes()
    racing(monkeypatch, times=2)  # the write and its one retry both lose the race
    with pytest.raises(writer.FileChangedError):
        triage.accept_suggestion(db, sid, s.id)
    assert path.read_bytes() == original and log.list_decisions(db, sid) == []
    assert [p.name for p in (path.parent / writer.BACKUP_DIR).iterdir()] == [".gitignore"]  # no backup


def test_a_write_that_loses_one_race_is_planned_again_and_goes_through(env, monkeypatch) -> None:
    db, sid, path = env
    s = open_suggestions(db, sid, path)[0]
    racing(monkeypatch, times=1)
    d = triage.accept_suggestion(db, sid, s.id)
    assert [x.id for x in log.list_decisions(db, sid)] == [d.id] and s.text in path.read_text()
    assert len(list((path.parent / writer.BACKUP_DIR).glob("*.bak"))) == 1


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to another user needs root")
def test_accept_and_undo_keep_the_files_owner_group_and_mode(env) -> None:
    db, sid, path = env
    os.chown(path, 65534, 65534)
    os.chmod(path, 0o640)

    def owner() -> tuple[int, int, int]:
        st = path.stat()
        return st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)

    d = triage.accept_suggestion(db, sid, open_suggestions(db, sid, path)[0].id)
    assert owner() == (65534, 65534, 0o640) and d.note is None
    triage.drop_question(db, sid, "q00004")
    assert owner() == (65534, 65534, 0o640)
    for _ in range(2):
        triage.undo_last(db, sid)
        assert owner() == (65534, 65534, 0o640)


def as_format(db, sid: str, folder: Path, fmt: str) -> Path:
    """Rewrite the session's test file as ``fmt`` (JSON list, JSON ``{"questions": [...]}``, CSV) and
    make the session read it so."""
    rows = [json.loads(line) for line in (folder / "questions.jsonl").read_text().splitlines()]
    if fmt == "csv":
        path = folder / "questions.csv"
        path.write_text("id,question\r\n" + "".join(f'{r["id"]},"{r["question"]}"\r\n' for r in rows))
    else:
        path = folder / "questions.json"
        path.write_text(json.dumps(rows if fmt == "json-list" else {"version": 1, "questions": rows}, indent=2))
    snap = writer.snapshot(path)
    with db.conn:
        db.execute(
            "UPDATE sessions SET questions_path = ?, testset_sha256 = ? WHERE id = ?", [str(path), snap.sha, sid]
        )
        for q in snap.testset.questions:
            db.execute(
                "UPDATE questions SET raw = ? WHERE session_id = ? AND question_id = ?", [json.dumps(q.raw), sid, q.id]
            )
    return path


@pytest.mark.parametrize("fmt", ["json-list", "json-object", "csv"])
def test_every_format_goes_on_after_an_outside_append_and_undoes_by_content(env, fmt) -> None:
    db, sid, jsonl = env
    path = as_format(db, sid, jsonl.parent, fmt)
    before = [q.raw for q in writer.snapshot(path).testset.questions]
    writer.append_question(path, "A teammate's question?", expected_sha256=writer.snapshot(path).sha, provenance={})
    theirs = writer.snapshot(path).testset.questions[-1].raw
    assert "1 row added, 0 removed, 0 edited" in (triage.reload(db, sid) or "")
    s = open_suggestions(db, sid, path)[0]
    triage.accept_suggestion(db, sid, s.id)
    triage.drop_question(db, sid, "q00004")
    rows = [q.raw for q in writer.snapshot(path).testset.questions]
    assert rows[:-2] == [r for r in before if r["id"] != "q00004"] and rows[-2] == theirs
    writer.append_question(path, "Another outside one?", expected_sha256=writer.snapshot(path).sha, provenance={})
    triage.undo_last(db, sid)  # the drop: q00004 back in its place
    triage.undo_last(db, sid)  # the accept: our row out, theirs kept
    after = [q.raw for q in writer.snapshot(path).testset.questions]
    assert after[:-2] == before and after[-2] == theirs and after[-1]["question"] == "Another outside one?"


def test_undo_without_its_backup_falls_back_to_the_inverse_splice(env) -> None:
    db, sid, path = env
    original = path.read_bytes()
    triage.accept_suggestion(db, sid, open_suggestions(db, sid, path)[0].id)
    triage.drop_question(db, sid, "q00004")
    for backup in (path.parent / writer.BACKUP_DIR).iterdir():
        backup.unlink()  # someone cleaned up the backups
    triage.undo_last(db, sid)
    triage.undo_last(db, sid)
    assert path.read_bytes() == original
