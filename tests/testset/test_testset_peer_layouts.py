"""Issue #14 items 1, 2, 3 and 5: peers' test files are read, written back byte-exact, and still
load in the peer's own loader afterwards (re-created in :mod:`tests.testset.peer_loaders`)."""

from __future__ import annotations

import ast
import csv
import io
import json
from pathlib import Path

import pytest

from ragcov_tui.testset import writer
from ragcov_tui.testset.ids import content_id
from ragcov_tui.testset.reader import read_testset
from tests.testset.peer_files import ANSWERS, CONTEXTS, GISKARD_ROWS, LAYOUTS, QUESTIONS, RESPONSES
from tests.testset.peer_loaders import LOADERS, PeerLoadError, giskard_qatestset_load

PROVENANCE = {"source": "ragcov:heuristic", "cluster": 2, "session": "ab12cd34"}
NEW = 'Können Admins "Gäste" einladen, und wie — per E-Mail?'


def put(tmp_path: Path, layout: str) -> Path:
    name, text, _ = LAYOUTS[layout]
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


TESTSET_NOTE = "read as a Ragas 0.1 test set ('contexts' and no answer field)"
# layout -> (which contexts the rows hold, answers read, the notes expected, in order)
READS: dict[str, tuple[str | None, list[str] | None, tuple[str, ...]]] = {
    "ragas-eval-csv-index": ("retrieved", RESPONSES, ("ignoring column 1 (pandas index)",)),
    "ragas-eval-csv-unnamed-0": ("retrieved", RESPONSES, ("ignoring column 1 (pandas index)",)),
    "ragas-eval-csv-trailing-comma": ("retrieved", RESPONSES, ("ignoring column 7 (no name)",)),
    "ragas-eval-jsonl": ("retrieved", RESPONSES, ()),
    "ragas-testset-jsonl": ("reference", None, ()),
    "ragas-testset-csv": ("reference", None, ("ignoring column 1 (pandas index)",)),
    "ragas01-testset-jsonl": ("reference", None, (TESTSET_NOTE,)),
    "ragas01-testset-csv": ("reference", None, ("ignoring column 1 (pandas index)", TESTSET_NOTE)),
    "ragas01-records-jsonl": ("retrieved", RESPONSES, ("read as Ragas records (the rows have answers)",)),
    "deepeval-goldens-json": ("both", RESPONSES, ()),
    "deepeval-goldens-csv": ("both", RESPONSES, ()),
    "giskard-jsonl": ("giskard", None, ()),
    "giskard-jsonl-named-json": ("giskard", None, ("holds JSON Lines despite its .json name",)),
    "giskard-csv": ("giskard", None, ()),
    "llamaindex-labelled-rag-json": ("reference", None, ()),
    "json-list-named-jsonl": (None, None, ("holds a JSON document despite its .jsonl name",)),
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_each_peer_layout_reads_its_questions_answers_and_contexts(tmp_path, layout):
    testset = read_testset(put(tmp_path, layout))
    contexts, answers, notes = READS[layout]
    questions = testset.questions
    assert [q.text for q in questions] == QUESTIONS
    assert [q.ground_truth for q in questions] == ANSWERS
    expected: list[str | None] = [*answers] if answers else [None] * 3
    assert [q.answer for q in questions] == expected
    retrieved = [q.retrieved_contexts for q in questions]
    reference = [q.reference_contexts for q in questions]
    if contexts == "retrieved":
        assert retrieved == CONTEXTS and reference == [None] * 3
    elif contexts == "reference":
        assert reference == CONTEXTS and retrieved == [None] * 3
    elif contexts == "both":  # DeepEval: context is the reference, retrieval_context what was retrieved
        assert reference == CONTEXTS and retrieved == [c[:1] for c in CONTEXTS]
    elif contexts == "giskard":  # one text, never split
        assert reference == [[row["reference_context"]] for row in GISKARD_ROWS]
        assert [q.seed_document_id for q in questions] == ["doc-0", "doc-1", "doc-2"]
        assert [q.id for q in questions] == [row["id"] for row in GISKARD_ROWS]
    assert len(testset.notes) == len(notes)
    assert all(note in got and "\n" not in got for note, got in zip(notes, testset.notes, strict=True))


@pytest.mark.parametrize("layout", sorted(k for k, v in LAYOUTS.items() if v[2]))
def test_the_fixture_as_published_passes_the_peers_loader(tmp_path, layout):
    loader = LAYOUTS[layout][2]
    assert loader is not None and LOADERS[loader](put(tmp_path, layout)) == 3


def test_the_loader_checks_can_fail(tmp_path):
    """Giskard's QuestionSample(**record) refuses the key ragcov used to add (the issue's report)."""
    path = put(tmp_path, "giskard-jsonl")
    path.write_text(path.read_text() + json.dumps({"id": "x", "question": "Q?", "provenance": {}}) + "\n")
    with pytest.raises(PeerLoadError, match="unexpected keyword argument 'provenance'"):
        giskard_qatestset_load(path)


def only_inserted(before: bytes, after: bytes) -> bool:
    """``after`` is ``before`` with one contiguous piece inserted, every original byte kept."""
    prefix = next((i for i, (x, y) in enumerate(zip(before, after, strict=False)) if x != y), len(before))
    suffix = next(
        (i for i, (x, y) in enumerate(zip(reversed(before), reversed(after), strict=False)) if x != y), len(before)
    )
    return len(after) > len(before) and prefix + suffix >= len(before)


def accept(path: Path, text: str, provenance: dict) -> writer.Edit:
    edit = writer.plan_append(writer.snapshot(path), text, provenance)
    writer.commit(edit)
    return edit


ACTIONS = ["accept", "edit-accept", "undo-accept", "undo-edit-accept", "drop-undo"]


@pytest.mark.parametrize("action", ACTIONS)
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_writeback_keeps_bytes_fields_and_the_peers_loader(tmp_path, layout, action):
    path = put(tmp_path, layout)
    original = path.read_bytes()
    before = read_testset(path)
    if action == "drop-undo":
        drop = writer.plan_drop(writer.snapshot(path), 1)
        writer.commit(drop)
        assert [q.text for q in read_testset(path).questions] == [QUESTIONS[0], QUESTIONS[2]]
        writer.commit(writer.plan_reinsert(writer.snapshot(path), drop.change, "the row"))
        assert path.read_bytes() == original
        return
    edited = action.endswith("edit-accept")
    edit = accept(path, NEW, {**PROVENANCE, "edited": True} if edited else PROVENANCE)
    after_bytes = path.read_bytes()
    assert only_inserted(original, after_bytes)
    after = read_testset(path)
    assert [q.raw for q in after.questions[:-1]] == [q.raw for q in before.questions]
    assert after.questions[-1].text == NEW and after.field_names == before.field_names
    had = {name for q in before.questions for name in q.raw}
    assert set(after.questions[-1].raw) <= had  # only fields the rows already have
    peer = LAYOUTS[layout][2]
    if peer is not None:
        LOADERS[peer](path)
    if before.format == "csv":
        records = list(csv.reader(io.StringIO(after_bytes.decode("utf-8"))))
        assert len(records[-1]) == len(records[0])  # the column count is kept
    if action.startswith("undo"):
        writer.commit(writer.plan_remove(writer.snapshot(path), edit.change["row"], "the row"))
        assert path.read_bytes() == original


@pytest.mark.parametrize(
    ("layout", "expected"),
    [
        # a column of lists gets [] (pandas' empty list; an empty cell is NaN to ast.literal_eval)
        ("ragas-eval-csv-index", ["3", NEW, "[]", "", "", "", ""]),
        ("ragas-eval-csv-unnamed-0", ["3", NEW, "[]", "", "", "", ""]),
        ("ragas-eval-csv-trailing-comma", [NEW, "[]", "", "", "", "", ""]),
        ("ragas-testset-csv", ["3", NEW, "[]", "", "ragcov:heuristic"]),
        ("giskard-csv", ["ragcov-1", NEW, "", "", "[]", repr({"provenance": PROVENANCE})]),
        ("deepeval-goldens-csv", [NEW, *[""] * 12, json.dumps({"provenance": PROVENANCE}), "", ""]),
    ],
)
def test_a_new_csv_record_keeps_index_and_empty_columns(tmp_path, layout, expected):
    path = put(tmp_path, layout)
    accept(path, NEW, PROVENANCE)
    records = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))
    assert records[-1] == expected
    for name, cell in zip(records[0], records[-1], strict=True):  # how Ragas users read list columns back
        if name.endswith("contexts"):
            assert ast.literal_eval(cell) == []


@pytest.mark.parametrize(
    ("layout", "expected"),
    [
        (
            "giskard-jsonl",
            {"id": "ragcov-1", "question": NEW, "conversation_history": [], "metadata": {"provenance": PROVENANCE}},
        ),
        ("ragas-testset-jsonl", {"user_input": NEW, "synthesizer_name": "ragcov:heuristic"}),
        ("ragas-eval-jsonl", {"user_input": NEW}),
        ("deepeval-goldens-json", {"input": NEW, "additional_metadata": {"provenance": PROVENANCE}}),
        ("llamaindex-labelled-rag-json", {"query": NEW}),
        ("json-list-named-jsonl", {"question": NEW}),
    ],
)
def test_provenance_goes_where_the_rows_have_a_place_for_it(tmp_path, layout, expected):
    path = put(tmp_path, layout)
    edit = accept(path, NEW, PROVENANCE)
    assert read_testset(path).questions[-1].raw == expected
    assert edit.question_id == (expected.get("id") or content_id(NEW))


def test_a_provenance_field_the_rows_have_gets_the_provenance(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text('{"question": "A?", "provenance": {"source": "human"}}\n{"question": "B?"}\n')
    accept(path, NEW, PROVENANCE)
    assert read_testset(path).questions[-1].raw == {"question": NEW, "provenance": PROVENANCE}


def test_the_next_pandas_index_follows_the_largest_after_a_drop(tmp_path):
    path = put(tmp_path, "ragas-eval-csv-index")
    writer.commit(writer.plan_drop(writer.snapshot(path), 2))
    accept(path, NEW, PROVENANCE)
    accept(path, "And one more?", PROVENANCE)
    assert [r[0] for r in csv.reader(io.StringIO(path.read_text(encoding="utf-8")))] == ["", "0", "1", "2", "3"]


@pytest.mark.parametrize(
    ("index", "expected"),
    [
        (["0", "1"], "2"),
        (["7", "x"], "8"),
        (["a", "b"], ""),
        (["", ""], ""),
        (["0", "²"], "1"),
        (["3", "9" * 5000], "4"),
        (["١", "2"], "3"),  # isdigit() but not for int() (issue #23 §3)
    ],
)
def test_an_unnamed_first_column_gets_the_next_integer_or_stays_empty(tmp_path, index, expected):
    path = tmp_path / "t.csv"
    path.write_text(",question\n" + "".join(f"{i},Q{n}?\n" for n, i in enumerate(index)))
    accept(path, NEW, PROVENANCE)
    assert list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))[-1] == [expected, NEW]
