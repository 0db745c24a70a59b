"""Writer: append / drop / restore keep every other byte, refuse stale files, keep backups."""

from __future__ import annotations

import csv
import io
import json
import os
import re
from pathlib import Path

import pytest

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.testset.ids import content_id
from ragcov_tui.testset.reader import read_testset
from ragcov_tui.testset.writer import (
    BACKUP_DIR,
    DuplicateQuestionError,
    FileChangedError,
    append_question,
    drop_question,
    restore_backup,
)

ROWS: list[dict[str, object]] = [
    {"id": "q007", "question": "Wie funktioniert die Rückerstattung?", "gold_doc_ids": ["billing.md"]},
    {"id": "q030", "question": "How do I reset my password?", "notes": "keep me"},
    {"id": "q012", "question": "What is the SLA?", "ground_truth": "99.9%"},
]
PROVENANCE = {"source": "ragcov", "cluster": 3, "session": "ab12cd34", "origin": "heuristic"}
NEW_QUESTION = "Qu'est-ce que l'été 日本語 covers?"


def csv_text(rows: list[dict[str, object]], newline: str = "\n", bom: str = "") -> str:
    lines = ["id,question,notes"] + [f'{r["id"]},"{r["question"]}",{r.get("notes", "")}' for r in rows]
    return bom + newline.join(lines) + newline


FILES = {
    "jsonl-lf": ("t.jsonl", "".join(json.dumps(r) + "\n" for r in ROWS)),
    "jsonl-crlf": ("t.jsonl", "".join(json.dumps(r, ensure_ascii=False) + "\r\n" for r in ROWS)),
    "jsonl-no-final-newline": ("t.jsonl", "\n".join(json.dumps(r) for r in ROWS)),
    "json-list-indent2": ("t.json", json.dumps(ROWS, indent=2, ensure_ascii=False) + "\n"),
    "json-questions-indent4": ("t.json", json.dumps({"version": 2, "questions": ROWS}, indent=4)),
    "json-one-line": ("t.json", json.dumps(ROWS, ensure_ascii=False)),
    "json-minified-crlf-tab": ("t.json", json.dumps({"questions": ROWS}, indent="\t").replace("\n", "\r\n")),
    "csv-multiline-cell": (
        "t.csv",
        'id,question,notes\nq007,"Line one\nline two?",x\nq030,How do I reset my password?,\n'
        'q012,"Say ""hi"",\r\nthen\n\nleave?",y\n',
    ),
    "csv-bom-crlf": ("t.csv", csv_text(ROWS, "\r\n", "\ufeff")),
}


@pytest.fixture(params=sorted(FILES))
def test_file(request, tmp_path) -> Path:
    name, content = FILES[request.param]
    path = tmp_path / name
    path.write_bytes(content.encode("utf-8"))
    return path


def insertions(before: bytes, after: bytes) -> list[bytes]:
    """Every way ``after`` is ``before`` with one contiguous piece inserted (the position of a
    repeated piece is ambiguous); fails when there is none, i.e. some original byte changed."""
    size = len(after) - len(before)
    assert size > 0
    prefix = next((i for i, (x, y) in enumerate(zip(before, after, strict=False)) if x != y), len(before))
    suffix = next(
        (i for i, (x, y) in enumerate(zip(reversed(before), reversed(after), strict=False)) if x != y), len(before)
    )
    positions = range(max(0, len(before) - suffix), min(prefix, len(before)) + 1)
    assert positions, "original bytes were changed"
    return [after[p : p + size] for p in positions]


def test_append_adds_exactly_one_row_and_keeps_every_original_byte(test_file):
    original = test_file.read_bytes()
    before = read_testset(test_file)
    result = append_question(test_file, NEW_QUESTION, expected_sha256=before.sha256, provenance=PROVENANCE)
    inserted = insertions(original, test_file.read_bytes())
    if original.endswith(b"\n"):  # the new row ends with the file's own terminator
        assert test_file.read_bytes().endswith(b"\r\n") == original.endswith(b"\r\n")
    after = read_testset(test_file)
    assert [q.raw for q in after.questions[:-1]] == [q.raw for q in before.questions]
    new = after.questions[-1]
    assert (new.id, new.text) == (result.question_id, NEW_QUESTION) == ("q031", NEW_QUESTION)
    assert any(NEW_QUESTION.encode("utf-8") in piece for piece in inserted)  # unicode as itself, not \u escapes
    assert after.field_names == before.field_names and after.sha256 == result.sha_after
    if before.format == "csv":
        assert set(new.raw) == {"id", "question", "notes"} and new.raw["notes"] == ""
    else:  # only fields the rows have: these have no provenance field (issue #14 item 5)
        assert new.raw == {"id": "q031", "question": NEW_QUESTION}
    assert result.sha_before == before.sha256 and result.backup_path.read_bytes() == original


def is_row_with_separator(fmt: str, removed: str, question) -> bool:
    """True if ``removed`` is exactly the question's row plus its separator (JSON: one comma)."""
    if fmt == "json":
        core = removed.strip(" \t\r\n")
        if core.startswith(",") == core.endswith(","):
            return False
        removed = core.strip(",").strip(" \t\r\n")
    elif fmt == "jsonl" and "\n" in removed.rstrip("\r\n"):
        return False  # a JSONL row is one line
    try:
        if fmt == "csv":
            return list(csv.reader(io.StringIO(removed, newline=""))) == [list(question.raw.values())]
        return json.loads(removed) == question.raw
    except (json.JSONDecodeError, csv.Error):
        return False


def test_drop_removes_exactly_that_row(test_file):
    before = read_testset(test_file)
    for dropped in ("q030", "q012"):  # a middle row, then the last row
        current = test_file.read_bytes()
        question = read_testset(test_file).by_id(dropped)
        result = drop_question(test_file, dropped, expected_sha256=read_testset(test_file).sha256)
        pieces = insertions(test_file.read_bytes(), current)
        assert any(is_row_with_separator(before.format, p.decode("utf-8"), question) for p in pieces)
        assert result.question_id == dropped and result.backup_path.read_bytes() == current
    assert [q.raw for q in read_testset(test_file).questions] == [before.questions[0].raw]


def test_restore_puts_back_the_exact_original(test_file):
    original = test_file.read_bytes()
    sha = read_testset(test_file).sha256
    appended = append_question(test_file, "Brand new?", expected_sha256=sha, provenance=PROVENANCE)
    dropped = drop_question(test_file, "q007", expected_sha256=appended.sha_after)
    undone = restore_backup(test_file, dropped.backup_path, expected_sha256=dropped.sha_after)
    assert undone.sha_after == appended.sha_after and undone.question_id is None
    restore_backup(test_file, appended.backup_path, expected_sha256=undone.sha_after)
    assert test_file.read_bytes() == original


def test_file_changed_on_disk_is_refused_and_nothing_is_written(test_file):
    stale = read_testset(test_file).sha256
    edited = test_file.read_bytes() + b"\n"
    test_file.write_bytes(edited)
    for write in (
        lambda: append_question(test_file, "New?", expected_sha256=stale, provenance={}),
        lambda: drop_question(test_file, "q007", expected_sha256=stale),
        lambda: restore_backup(test_file, test_file, expected_sha256=stale),
    ):
        with pytest.raises(FileChangedError, match=r"changed on disk since it was read; reload before writing"):
            write()
    assert str(FileChangedError(test_file)) == (
        f"{test_file} changed on disk since it was read; reload before writing (nothing was written)"
    )
    assert test_file.read_bytes() == edited
    assert sorted(p.name for p in test_file.parent.iterdir()) == [test_file.name]  # no backup, no temp file


def test_backup_name_permissions_and_symlinks(tmp_path):
    target = tmp_path / "real.jsonl"
    target.write_text(FILES["jsonl-lf"][1])
    os.chmod(target, 0o600)
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    testset = read_testset(link)
    result = append_question(link, "New?", expected_sha256=testset.sha256, provenance={})
    assert link.is_symlink() and target.stat().st_mode & 0o777 == 0o600
    assert result.backup_path.parent == tmp_path / BACKUP_DIR
    assert re.fullmatch(rf"real\.jsonl\.\d{{8}}T\d{{6}}\.\d{{6}}\.{testset.sha256[:8]}\.bak", result.backup_path.name)
    assert result.backup_path.stat().st_mode & 0o777 == 0o600


def test_duplicate_empty_and_unknown_are_refused(test_file):
    sha = read_testset(test_file).sha256
    original = test_file.read_bytes()
    with pytest.raises(DuplicateQuestionError, match="already in the file as 'q030'"):
        append_question(test_file, "  how do I RESET my   password ", expected_sha256=sha, provenance={})
    with pytest.raises(BadInput, match="the question to add is empty"):
        append_question(test_file, " \n ", expected_sha256=sha, provenance={})
    with pytest.raises(BadInput, match="no question with id 'nope'"):
        drop_question(test_file, "nope", expected_sha256=sha)
    assert test_file.read_bytes() == original and not (test_file.parent / BACKUP_DIR).exists()


def test_the_only_question_cannot_be_dropped(tmp_path):
    path = tmp_path / "one.json"
    path.write_text('[{"question": "Only?"}]')
    with pytest.raises(BadInput, match=f"'{content_id('Only?')}' is the only question"):
        drop_question(path, content_id("Only?"), expected_sha256=read_testset(path).sha256)


def test_json_element_copies_the_previous_elements_style(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"questions": ROWS}, indent=4))
    append_question(path, "New?", expected_sha256=read_testset(path).sha256, provenance={"source": "ragcov"})
    element = json.dumps({"id": "q031", "question": "New?"}, indent=4)
    expected = json.dumps({"questions": ROWS}, indent=4)[: -len("\n    ]\n}")]
    assert path.read_text() == expected + ",\n        " + element.replace("\n", "\n        ") + "\n    ]\n}"


def test_one_line_json_stays_one_line(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(ROWS[:1], separators=(",", ":")))
    append_question(path, "New?", expected_sha256=read_testset(path).sha256, provenance={"cluster": 1})
    assert path.read_text() == json.dumps(ROWS[:1] + [{"id": "q008", "question": "New?"}], separators=(",", ":"))


def test_jsonl_line_endings(tmp_path):
    path = tmp_path / "t.jsonl"
    for name, ending in (("jsonl-crlf", "\r\n"), ("jsonl-no-final-newline", "\n")):
        original = FILES[name][1]
        path.write_bytes(original.encode("utf-8"))
        append_question(path, "New?", expected_sha256=read_testset(path).sha256, provenance={"x": 1})
        new_line = json.dumps({"id": "q031", "question": "New?"}, ensure_ascii=False)
        separator = "" if original.endswith("\n") else "\n"
        assert path.read_bytes() == (original + separator + new_line + ending).encode("utf-8")


def test_rows_without_ids(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text('{"query": "A?"}\n{"query": "B?"}\n')
    first = append_question(path, "C?", expected_sha256=read_testset(path).sha256, provenance={})
    second = append_question(path, "D?", expected_sha256=first.sha_after, provenance={})
    assert (first.question_id, second.question_id) == (content_id("C?"), content_id("D?"))  # no id field is added
    lines = path.read_text().splitlines()
    assert lines == ['{"query": "A?"}', '{"query": "B?"}', '{"query": "C?"}', '{"query": "D?"}']
    dropped = drop_question(path, content_id("A?"), expected_sha256=second.sha_after)
    assert [(q.id, q.text) for q in read_testset(path).questions] == [(content_id(t), t) for t in ("B?", "C?", "D?")]
    assert dropped.question_id == content_id("A?") and path.read_text().startswith('{"query": "B?"}\n')


def test_csv_fills_only_existing_columns(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("question,provenance,notes\nA?,,n\n")
    result = append_question(path, "Has, comma?", expected_sha256=read_testset(path).sha256, provenance={"cluster": 2})
    assert result.question_id == content_id("Has, comma?")
    assert path.read_text() == 'question,provenance,notes\nA?,,n\n"Has, comma?","{""cluster"": 2}",\n'


def test_csv_quote_all_and_semicolons_are_kept(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text('"qid";"query"\r\n"7";"A?"\r\n"12";"B?"\r\n')
    append_question(path, "C?", expected_sha256=read_testset(path).sha256, provenance={})
    assert path.read_bytes().decode() == '"qid";"query"\r\n"7";"A?"\r\n"12";"B?"\r\n"13";"C?"\r\n'


def test_integer_ids_stay_integers(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps([{"id": 4, "question": "A?"}, {"id": 9, "question": "B?"}], indent=2))
    result = append_question(path, "C?", expected_sha256=read_testset(path).sha256, provenance={})
    assert result.question_id == "10" and json.loads(path.read_text())[-1]["id"] == 10


def test_restore_of_a_missing_backup_is_bad_input(test_file):
    with pytest.raises(BadInput, match="no such file"):
        restore_backup(test_file, test_file.parent / "gone.bak", expected_sha256=read_testset(test_file).sha256)


def test_restore_refuses_a_backup_that_is_not_a_test_file(test_file):
    junk = test_file.parent / "junk.bak"
    junk.write_bytes(b"\x00\x01 not a test file")
    original = test_file.read_bytes()
    with pytest.raises(BadInput):
        restore_backup(test_file, junk, expected_sha256=read_testset(test_file).sha256)
    assert test_file.read_bytes() == original


def test_read_only_file_is_not_written(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text(FILES["jsonl-lf"][1])
    os.chmod(path, 0o444)
    with pytest.raises(BadInput, match="the file is read-only"):
        append_question(path, "New?", expected_sha256=read_testset(path).sha256, provenance={})
    assert path.read_text() == FILES["jsonl-lf"][1] and not (tmp_path / BACKUP_DIR).exists()


def test_mixed_id_aliases_still_get_a_fresh_id(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text('{"qid": "q1", "question": "A?"}\n{"id": "q2", "question": "B?"}\n')
    result = append_question(path, "C?", expected_sha256=read_testset(path).sha256, provenance={})
    assert result.question_id == "q3" and json.loads(path.read_text().splitlines()[-1])["qid"] == "q3"
