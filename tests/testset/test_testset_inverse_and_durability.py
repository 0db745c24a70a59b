"""Writer: inverse splices by content in every format after someone else's edit; owner, group and
mode kept; a backup that fails half-way leaves nothing behind."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from ragcov_tui.testset import durable
from ragcov_tui.testset.reader import read_testset
from ragcov_tui.testset.writer import (
    BACKUP_DIR,
    ConflictError,
    append_question,
    commit,
    plan_append,
    plan_drop,
    plan_reinsert,
    plan_remove,
    restore_backup,
    snapshot,
)
from tests.testset.test_testset_writer import test_file  # noqa: F401 (the fixture: every format)

ROOT = os.geteuid() == 0


def raws(path: Path) -> list[dict]:
    return [q.raw for q in read_testset(path).questions]


def teammate_appends(path: Path, text: str = "Theirs?") -> dict:
    """Someone else's write (another tool, another ragcov): an outside edit for us."""
    append_question(path, text, expected_sha256=read_testset(path).sha256, provenance={"by": "teammate"})
    return raws(path)[-1]


def test_undo_of_an_append_after_an_outside_append_takes_out_only_ours(test_file):
    original = raws(test_file)
    ours = plan_append(snapshot(test_file), "Ours?", {"by": "us"})
    commit(ours)
    theirs = teammate_appends(test_file)
    commit(plan_remove(snapshot(test_file), ours.change["row"], "our row"))
    assert raws(test_file) == original + [theirs]


@pytest.mark.parametrize("dropped", [0, 1, 2])
def test_undo_of_a_drop_after_an_outside_append_puts_the_row_back_in_place(test_file, dropped):
    original = raws(test_file)
    edit = plan_drop(snapshot(test_file), dropped)
    commit(edit)
    theirs = teammate_appends(test_file)
    commit(plan_reinsert(snapshot(test_file), edit.change, "the dropped row"))
    assert raws(test_file) == original + [theirs]


def test_undo_of_a_drop_without_outside_edits_is_byte_exact_in_place(test_file):
    original = test_file.read_bytes()
    for index in (0, 1, 2):
        edit = plan_drop(snapshot(test_file), index)
        commit(edit)
        commit(plan_reinsert(snapshot(test_file), edit.change, "the dropped row"))
        assert test_file.read_bytes() == original


def test_an_inverse_that_cannot_apply_cleanly_is_a_conflict_and_writes_nothing(test_file):
    edit = plan_drop(snapshot(test_file), 1)
    commit(edit)
    commit(plan_drop(snapshot(test_file), 1))  # the neighbour it was taken from goes too
    kept = test_file.read_bytes()
    with pytest.raises(ConflictError, match=r"the row next to it in t\.\w+ was edited or removed"):
        plan_reinsert(snapshot(test_file), edit.change, "the dropped row")
    gone = edit.change["row"]
    with pytest.raises(ConflictError, match=r"no longer in t\.\w+ as it was written"):
        plan_remove(snapshot(test_file), gone, "the dropped row")
    assert test_file.read_bytes() == kept


@pytest.mark.skipif(not ROOT, reason="chown to another user needs root")
def test_accept_and_undo_keep_owner_group_and_mode(test_file):
    os.chown(test_file, 65534, 65534)
    os.chmod(test_file, 0o640)

    def owner(path: Path) -> tuple[int, int, int]:
        st = path.stat()
        return st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)

    result = append_question(test_file, "New?", expected_sha256=read_testset(test_file).sha256, provenance={})
    assert owner(test_file) == (65534, 65534, 0o640) and result.note is None
    assert owner(result.backup_path) == (65534, 65534, 0o640)
    restore_backup(test_file, result.backup_path, expected_sha256=result.sha_after)
    assert owner(test_file) == (65534, 65534, 0o640)


@pytest.mark.skipif(not ROOT, reason="chown to another user needs root")
def test_an_owner_that_cannot_be_kept_keeps_the_mode_and_says_so_once(test_file, monkeypatch):
    os.chown(test_file, 65534, 65534)
    os.chmod(test_file, 0o640)

    def refuse(*_args):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(durable.os, "chown", refuse)
    first = append_question(test_file, "New?", expected_sha256=read_testset(test_file).sha256, provenance={})
    second = append_question(test_file, "Newer?", expected_sha256=first.sha_after, provenance={})
    assert first.note == f"{test_file}: could not keep its owner 65534:65534 (not allowed); its mode was kept"
    assert second.note is None and stat.S_IMODE(test_file.stat().st_mode) == 0o640


BACKUP_TOO_BIG = """
import resource, signal, sys
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.testset.reader import read_testset
from ragcov_tui.testset.writer import append_question
path = sys.argv[1]
sha = read_testset(path).sha256
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a real EFBIG from write(), as on a full disk
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[2]), resource.RLIM_INFINITY))
try:
    append_question(path, "New?", expected_sha256=sha, provenance={})
except BadInput as exc:
    print(exc)
"""


def test_a_backup_that_fails_half_way_is_removed_and_reported(tmp_path):
    path = tmp_path / "t.jsonl"
    big = "".join(json.dumps({"id": f"b{i}", "question": f"Padding question {i}?"}) + "\n" for i in range(300)).encode()
    path.write_bytes(big)
    limit = len(big) // 2  # the backup stops half-way through
    run = subprocess.run(
        [sys.executable, "-c", BACKUP_TOO_BIG, str(path), str(limit)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[2],
    )
    message = run.stdout.strip()
    assert run.returncode == 0, run.stderr
    assert message.count("\n") == 0 and "cannot write a backup" in message and "File too large" in message
    assert "no partial backup was left and nothing was written" in message
    assert path.read_bytes() == big
    assert [p.name for p in (tmp_path / BACKUP_DIR).iterdir()] == [".gitignore"]  # no partial backup
