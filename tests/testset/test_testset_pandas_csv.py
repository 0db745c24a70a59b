"""Issue #14 items 1-3: Python-literal list cells, pandas' index / empty header columns, ARAGOG
parallel lists and misnamed extensions — read, refused with one line, or written back exactly."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.testset import writer
from ragcov_tui.testset.beir import read_questions
from ragcov_tui.testset.cells import NotALiteral, python_literal
from ragcov_tui.testset.ids import content_id
from ragcov_tui.testset.reader import read_testset
from tests.testset.peer_files import ANSWERS, ARAGOG, QUESTIONS

ITEMS = [
    ["plain"],
    ["with, comma", "two"],
    ["it's", 'say "hi"', "both ' and \""],
    ["line one\nline two", "tab\there"],
    ["ünïcödé — 日本語 😀"],
    ["back\\slash", "[brackets]", "{braces}"],
    ["ends with |", "a;b"],
    [],
    ["x" * 5000],
]


def csv_file(tmp_path: Path, header: list[str], rows: list[list[str]], name: str = "t.csv") -> Path:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows([header, *rows])
    path = tmp_path / name
    path.write_text(buffer.getvalue(), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "field",
    [
        "retrieved_contexts",
        "reference_contexts",
        "paraphrases",
        "expected_keywords",
        "retrieved_context_ids",
        "reference_context_ids",
        "contexts",
        "retrieval_context",
    ],
)
@pytest.mark.parametrize("items", ITEMS, ids=range(len(ITEMS)))
def test_every_list_field_takes_a_python_literal_as_pandas_writes_it(tmp_path, field, items):
    # no answer field: `contexts` are a Ragas 0.1 test set's reference contexts
    path = csv_file(tmp_path, ["user_input", field], [["Q?", str(items)], ["R?", json.dumps(items)]])
    first, second = read_testset(path).questions
    got = {
        "retrieved_contexts": lambda q: q.retrieved_contexts,
        "contexts": lambda q: q.reference_contexts,
        "retrieval_context": lambda q: q.retrieved_contexts,
        "reference_contexts": lambda q: q.reference_contexts,
        "paraphrases": lambda q: q.paraphrases,
        "expected_keywords": lambda q: q.expected_keywords,
        "retrieved_context_ids": lambda q: q.retrieved_ids,
        "reference_context_ids": lambda q: list(q.gold),
    }[field]
    assert got(first) == got(second)  # the Python literal reads as the JSON list does
    assert got(first) == items or (items == [] and not got(first))


@pytest.mark.parametrize(
    "literal",
    [
        "('a', 'b')",
        "['a', ('b',)]",
        "[1, -2, +3.5]",
        "{'c1': 2, 'c2': 0.5}",
        "[True, None]",
        "['a'  ,  'b' ,]",
        "[\n'multi',\n'line'\n]",
        "[r'raw\\d']",
        "['con' 'cat']",
    ],
)
def test_safe_literals_are_accepted(literal):
    assert python_literal(literal) is not None


@pytest.mark.parametrize(
    "cell",
    [
        "[__import__('os').system('echo hi')]",
        "[open('/etc/passwd').read()]",
        "[x]",
        "[1 + 2]",
        "{'a', 'b'}",
        "[b'bytes']",
        "[f'{1}']",
        "[lambda: 1]",
        "[i for i in 'ab']",
        "['a'][0]",
        "[().__class__]",
        "[...]",
        "[-'a']",
        "[not 1]",
        "['a' if 1 else 'b']",
        "[*'ab']",
        "[1j]",
        "['unterminated]",
        "[" * 300 + "]" * 300,
        "[NaN]",
        "[float('inf')]",
    ],
)
def test_anything_but_a_plain_literal_is_refused_with_one_line(tmp_path, cell):
    with pytest.raises(NotALiteral):
        python_literal(cell)
    path = csv_file(tmp_path, ["question", "retrieved_contexts"], [["Q?", "['ok']"], ["R?", cell]])
    with pytest.raises(BadInput) as caught:
        read_testset(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:3: field 'retrieved_contexts' is neither valid JSON (")
    assert "nor a plain Python list literal" in message and "\n" not in message


def test_a_literal_of_the_wrong_kind_names_the_field(tmp_path):
    path = csv_file(tmp_path, ["question", "retrieved_contexts"], [["Q?", "[1, 2]"]])
    with pytest.raises(BadInput, match=re.escape(f"{path}:2: field 'retrieved_contexts' must be a list of strings")):
        read_testset(path)


def test_giskard_reference_context_is_one_text_even_when_it_starts_with_a_bracket(tmp_path):
    path = csv_file(tmp_path, ["question", "reference_context"], [["Q?", "[1] Intro | more"]])
    assert read_testset(path).questions[0].reference_contexts == ["[1] Intro | more"]


@pytest.mark.parametrize(
    ("header", "row", "note"),
    [
        (["", "question", "answer"], ["0", "Q?", "A"], "column 1 (pandas index)"),
        (["Unnamed: 0", "question", "answer"], ["0", "Q?", "A"], "column 1 (pandas index)"),
        (["question", "answer", ""], ["Q?", "A", ""], "column 3 (no name)"),
        (
            ["", "question", "", "answer", ""],
            ["0", "Q?", "", "A", ""],
            "column 1 (pandas index), column 3 (no name), column 5 (no name)",
        ),
        (["Unnamed: 0", "Unnamed: 0.1", "question"], ["0", "0", "Q?"], None),  # pandas re-read twice: 0.1 is a name
    ],
)
def test_unnamed_columns_are_ignored_with_one_note(tmp_path, header, row, note):
    path = csv_file(tmp_path, header, [row, [*row[:-1], row[-1]]])
    if note is None:
        assert read_testset(path).questions[0].text == "Q?"
        return
    warnings: list[str] = []
    testset = read_questions(path, warn=warnings.append)
    assert testset.questions[0].text == "Q?" and testset.field_names["question"] == "question"
    assert warnings == testset.notes and len(warnings) == 1
    assert warnings[0] == f"{path}: ignoring {note}; kept as is when ragcov writes to the file"


@pytest.mark.parametrize(
    ("header", "message"),
    [
        (["", "Unnamed: 1"], "the CSV header names no column"),
        (["", "Unnamed: 0", "question"], "the CSV header names column 'Unnamed: 0' twice"),
    ],
)
def test_bad_unnamed_headers_are_refused(tmp_path, header, message):
    path = csv_file(tmp_path, header, [["0", "1", "Q?"][: len(header)]])
    with pytest.raises(BadInput, match=re.escape(f"{path}:1: {message}")):
        read_testset(path)


def test_expected_answer_is_a_ground_truth_alias(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text('{"question": "Q?", "expected_answer": "A"}\n')
    assert read_testset(path).questions[0].ground_truth == "A"


def test_aragog_parallel_lists_are_read(tmp_path):
    path = tmp_path / "benchmark.json"
    path.write_text(ARAGOG)
    testset = read_testset(path)
    assert [(q.id, q.text, q.ground_truth) for q in testset.questions] == [
        (content_id(q), q, a) for q, a in zip(QUESTIONS, ANSWERS, strict=True)
    ]
    assert [q.line for q in testset.questions] == [3, 4, 5]


@pytest.mark.parametrize(
    ("document", "message"),
    [
        (
            {"questions": ["A?", "B?", "C?"], "ground_truths": ["a", "b"]},
            "'questions' has 3 entries but 'ground_truths' has 2 (parallel lists must have one entry per question)",
        ),
        ({"questions": ["A?"], "ground_truths": ["a", "b"]}, "'questions' has 1 entries but 'ground_truths' has 2"),
        ({"questions": ["A?", 5], "ground_truths": ["a", "b"]}, "element questions[1] must be a string"),
        ({"questions": ["A?", {"question": "B?"}]}, "element questions[1] must be a string"),
        ({"questions": ["A?"], "ground_truths": [None]}, "element ground_truths[0] must be a string"),
    ],
)
def test_bad_parallel_lists_are_one_line_errors(tmp_path, document, message):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(document))
    with pytest.raises(BadInput, match=re.escape(f"{path}: {message}")):
        read_testset(path)


@pytest.mark.parametrize("action", ["append", "drop"])
def test_parallel_lists_are_read_only(tmp_path, action):
    path = tmp_path / "benchmark.json"
    path.write_text(ARAGOG)
    snap = writer.snapshot(path)
    with pytest.raises(BadInput, match="parallel 'ground_truths' lists; ragcov only reads this layout"):
        writer.plan_append(snap, "New?", {}) if action == "append" else writer.plan_drop(snap, 0)
    assert path.read_text() == ARAGOG


JSONL = '{"question": "A?"}\n{"question": "B?"}\n'
MISNAMED = [
    ("t.json", JSONL, "jsonl", "holds JSON Lines despite its .json name"),
    ("t.json", '{"question": "A?", "id": 1}\n', "jsonl", "holds JSON Lines despite its .json name"),
    ("t.json", '\ufeff{"question": "A?"}\r\n\r\n{"question": "B?"}\r\n', "jsonl", "JSON Lines"),
    ("t.jsonl", json.dumps([{"question": "A?"}, {"question": "B?"}], indent=2), "json", "holds a JSON document"),
    ("t.jsonl", json.dumps({"questions": [{"question": "A?"}]}, indent=1), "json", "holds a JSON document"),
    ("t.jsonl", json.dumps([{"question": "A?"}]), "json", "holds a JSON document despite its .jsonl name"),
    ("t.json", json.dumps({"questions": [{"question": "A?"}]}), "json", None),
    ("t.jsonl", JSONL, "jsonl", None),
]


@pytest.mark.parametrize(("name", "content", "fmt", "note"), MISNAMED)
def test_a_misnamed_extension_is_read_by_content_and_written_back_so(tmp_path, name, content, fmt, note):
    path = tmp_path / name
    path.write_bytes(content.encode("utf-8"))
    testset = read_testset(path)
    assert testset.format == fmt and testset.questions[0].text == "A?"
    assert (testset.notes == []) if note is None else (note in testset.notes[0])
    edit = writer.plan_append(writer.snapshot(path), "New?", {})
    writer.commit(edit)
    assert read_testset(path).questions[-1].text == "New?"
    writer.commit(writer.plan_remove(writer.snapshot(path), edit.change["row"], "it"))
    assert path.read_bytes() == content.encode("utf-8")


@pytest.mark.parametrize(
    ("name", "content", "looks"),
    [
        ("t.json", "question,answer\nQ?,A\n", "this looks like CSV, not a JSON document (rename it to t.csv)"),
        ("t.jsonl", "question;answer\nQ?;A\n", "this looks like CSV, not JSON Lines (rename it to t.csv)"),
        ("t.csv", JSONL, "this looks like JSON Lines, not CSV (rename it to t.jsonl)"),
        (
            "t.csv",
            json.dumps([{"question": "A?"}], indent=2),
            "this looks like a JSON document, not CSV (rename it to t.json)",
        ),
    ],
)
def test_csv_and_json_mixed_up_say_which_it_looks_like(tmp_path, name, content, looks):
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(BadInput, match=re.escape(f"{path}: {looks}")):
        read_testset(path)
