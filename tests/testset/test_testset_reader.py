"""read_testset: every format, every alias family, graded gold, and each bad input's message."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.testset.fields import FIELD_ALIASES, resolve_fields
from ragcov_tui.testset.ids import content_id
from ragcov_tui.testset.reader import read_testset


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return path


def jsonl(*rows: dict) -> str:
    return "".join(json.dumps(row) + "\n" for row in rows)


def test_ragas_deepeval_giskard_rows_resolve_to_the_same_fields(tmp_path):
    path = write(
        tmp_path,
        "mixed.jsonl",
        jsonl(
            {
                "user_input": "Ragas?",
                "reference": "R",
                "response": "A",
                "retrieved_contexts": ["c1", "c2"],
                "reference_context_ids": ["d1"],
            },
            {
                "input": "DeepEval?",
                "expected_output": "E",
                "actual_output": "B",
                "retrieval_context": ["c3"],
                "retrieved_context_ids": ["x", 7],
            },
            {
                "question": "Giskard?",
                "reference_answer": "G",
                "question_id": "g1",
                "keywords": ["k"],
                "question_variants": ["Giskard??"],
                "embedding": [1, 0.5],
            },
        ),
    )
    first, second, third = read_testset(path).questions
    assert (first.text, first.ground_truth, first.answer) == ("Ragas?", "R", "A")
    assert first.retrieved_contexts == ["c1", "c2"]
    assert first.gold == {"d1": 1.0}
    assert (second.text, second.ground_truth, second.answer) == ("DeepEval?", "E", "B")
    assert second.retrieved_ids == ["x", "7"]
    assert second.retrieved_contexts == ["c3"]
    assert (third.id, third.text, third.ground_truth) == ("g1", "Giskard?", "G")
    assert third.expected_keywords == ["k"] and third.paraphrases == ["Giskard??"] and third.vector == [1.0, 0.5]


def test_field_names_record_the_files_own_names_and_unknown_fields_stay_raw(tmp_path):
    path = write(tmp_path, "t.jsonl", jsonl({"qid": 1, "query": "What?", "gold_doc_ids": ["a"], "team": "x"}))
    testset = read_testset(path)
    assert testset.field_names == {"id": "qid", "question": "query", "gold": "gold_doc_ids"}
    assert testset.format == "jsonl" and testset.has_ids and testset.container is None
    question = testset.questions[0]
    assert question.id == "1" and question.raw["team"] == "x"
    assert testset.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


def test_first_alias_present_wins():
    assert resolve_fields(["query", "question", "input"]) == {"question": "question"}
    assert resolve_fields(["must_be_grounded_in", "relevant_doc_ids"])["gold"] == "relevant_doc_ids"
    assert all(aliases for aliases in FIELD_ALIASES.values())


def test_rows_without_id_get_content_ids_and_blank_lines_keep_line_numbers(tmp_path):
    path = write(tmp_path, "t.jsonl", '{"question": "A?"}\n\n   \n{"question": "B?"}\n')
    testset = read_testset(path)
    assert [(q.id, q.row, q.line, q.id_in_file) for q in testset.questions] == [
        (content_id("A?"), 0, 1, False),
        (content_id("B?"), 1, 4, False),
    ]
    assert not testset.has_ids


@pytest.mark.parametrize("key", ["questions", "data", "examples", "samples"])
def test_json_object_container_keys(tmp_path, key):
    path = write(tmp_path, "t.json", json.dumps({"meta": 1, key: [{"id": "a", "question": "Q?"}]}, indent=2))
    testset = read_testset(path)
    assert testset.container == key and testset.format == "json"
    assert testset.questions[0].line == 4  # the line of the element's "{"


def test_json_list_and_graded_gold(tmp_path):
    rows = [
        {"id": "a", "question": "Q?", "gold_chunk_ids": {"c1": 3, "c2": 0.5}},
        {"id": "b", "question": "R?", "relevant_chunk_ids": "c9"},
    ]
    questions = read_testset(write(tmp_path, "t.json", json.dumps(rows))).questions
    assert questions[0].gold == {"c1": 3.0, "c2": 0.5}
    assert questions[1].gold == {"c9": 1.0}


def test_csv_with_bom_lists_and_graded_gold(tmp_path):
    content = (
        "\ufeffid,question,gold_doc_ids,expected_keywords,paraphrases,vector\r\n"
        'q1,"What, exactly?",a;b,x|y,"P one; with prose|P two","[1, 2]"\r\n'
        'q2,Graded?,"{""a"": 2}","[""k1"", ""k2""]",,\r\n'
    )
    testset = read_testset(write(tmp_path, "t.csv", content))
    first, second = testset.questions
    assert testset.field_names["id"] == "id"  # the BOM is not part of the first column name
    assert (first.id, first.text, first.gold) == ("q1", "What, exactly?", {"a": 1.0, "b": 1.0})
    assert first.expected_keywords == ["x", "y"]
    assert first.paraphrases == ["P one; with prose", "P two"]
    assert first.vector == [1.0, 2.0]
    assert second.gold == {"a": 2.0} and second.expected_keywords == ["k1", "k2"] and second.paraphrases == []
    assert (first.line, second.line) == (2, 3)


def test_csv_multiline_cell_semicolon_delimiter_and_short_rows(tmp_path):
    content = 'question;ground_truth;id\n"Line one\nline two?";"GT";a\nShort?\n'
    testset = read_testset(write(tmp_path, "t.csv", content))
    assert [q.text for q in testset.questions] == ["Line one\nline two?", "Short?"]
    assert testset.questions[1].line == 4 and testset.questions[1].id == content_id("Short?")


BAD_INPUTS = [
    ("t.jsonl", "", r"t\.jsonl: the file is empty"),
    ("t.jsonl", "\n  \n", r"t\.jsonl: the file is empty"),
    ("t.json", "[]", r"t\.json: no questions in the file"),
    ("t.jsonl", '{"question": "A?"}\n{"question": "B?",}\n', r"t\.jsonl:2: malformed JSON line"),
    ("t.jsonl", '{"question": "A?"}\n["B?"]\n', r"t\.jsonl:2: a question row must be a JSON object, got a list"),
    (
        "t.jsonl",
        '{"q": "A?"}\n',
        r"t\.jsonl:1: no question field \(expected one of: question, query, user_input, input\)",
    ),
    ("t.jsonl", '{"question": "  "}\n', r"t\.jsonl:1: field 'question' is empty"),
    ("t.jsonl", '{"query": null}\n', r"t\.jsonl:1: field 'query' is empty"),
    ("t.jsonl", '{"question": 3}\n', r"t\.jsonl:1: field 'question' must be a string"),
    (
        "t.jsonl",
        '{"id": "a", "question": "A?"}\n\n{"id": "a", "question": "B?"}\n',
        r"t\.jsonl:3: duplicate id 'a' \(also on line 1\)",
    ),
    (
        "t.jsonl",
        '{"question": "A?", "expected_keywords": "k"}\n',
        r"t\.jsonl:1: field 'expected_keywords' must be a list of strings \(got str\)",
    ),
    ("t.jsonl", '{"question": "A?", "paraphrases": [1]}\n', r"field 'paraphrases' must be a list of strings"),
    ("t.jsonl", '{"question": "A?", "id": [1]}\n', r"t\.jsonl:1: field 'id' must be a string or an integer"),
    (
        "t.jsonl",
        '{"question": "A?", "gold_doc_ids": {"a": -1}}\n',
        r"t\.jsonl:1: field 'gold_doc_ids': grade of 'a' must be >= 0",
    ),
    ("t.jsonl", '{"question": "A?", "gold_doc_ids": {"a": "high"}}\n', r"grade of 'a' must be a finite number"),
    ("t.jsonl", '{"question": "A?", "gold_doc_ids": 5}\n', r"field 'gold_doc_ids' must be a list of ids or an object"),
    ("t.jsonl", '{"question": "A?", "vector": []}\n', r"field 'vector' must be a non-empty list of finite numbers"),
    ("t.jsonl", '{"question": "A?", "response": ["x"]}\n', r"field 'response' must be a string"),
    (
        "t.json",
        '[\n  {"question": "A?"},\n  {"question": "B?", "keywords": [1]}\n]',
        r"t\.json:3: element \[1\]: field 'keywords' must be a list of strings",
    ),
    (
        "t.json",
        '{"questions": [{"question": "A?"}, 3]}',
        r"t\.json:1: element questions\[1\]: a question row must be a JSON object",
    ),
    ("t.json", '{"items": []}', r"t\.json: expected a list of questions, or an object with a 'questions' / 'data'"),
    ("t.json", '"just text"', r"t\.json: expected a list of questions, got a string"),
    ("t.json", '[\n{"question": "A?"\n', r"t\.json:3: malformed JSON"),
    ("t.csv", "id,question\na,A?\nb,B?,extra\n", r"t\.csv:3: 3 cells but the header has 2 columns"),
    ("t.csv", 'id,question\na,"A?\n', r"t\.csv:2: malformed CSV"),
    ("t.csv", "id,question,id\na,A?,b\n", r"t\.csv:1: the CSV header names column 'id' twice"),
    ("t.csv", "id,question\na,A?\nb,\n", r"t\.csv:3: field 'question' is empty"),
    ("t.csv", "id,question,gold_doc_ids\na,A?,[oops\n", r"t\.csv:2: field 'gold_doc_ids' is neither valid JSON"),
    ("t.txt", "question\n", r"t\.txt: unsupported test file type '\.txt'"),
    ("t.jsonl", b'{"question": "A?"}\n{"question": "\xff"}\n', r"t\.jsonl:2: not valid UTF-8"),
]


@pytest.mark.parametrize(("name", "content", "message"), BAD_INPUTS)
def test_bad_inputs_raise_one_line_messages(tmp_path, name, content, message):
    path = write(tmp_path, name, content)
    with pytest.raises(BadInput, match=message) as caught:
        read_testset(path)
    assert "\n" not in str(caught.value)
    assert str(caught.value).startswith(str(path))


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(BadInput, match=r"missing\.jsonl: no such file"):
        read_testset(tmp_path / "missing.jsonl")
    with pytest.raises(BadInput, match="is a directory"):
        read_testset(tmp_path)


def test_reference_contexts_and_giskard_seed_document_id_are_read_as_texts(tmp_path):
    path = write(
        tmp_path,
        "t.jsonl",
        jsonl(
            {"user_input": "Ragas?", "reference_contexts": ["c1", "c2"]},
            {"input": "DeepEval?", "context": ["d1"]},
            {
                "question": "Giskard?",
                "reference_context": "Document 1: text",
                "metadata": {"question_type": "simple", "seed_document_id": "doc-7"},
            },
            {"question": "None?"},
        ),
    )
    questions = read_testset(path).questions
    assert [q.reference_contexts for q in questions] == [["c1", "c2"], ["d1"], ["Document 1: text"], None]
    assert [q.seed_document_id for q in questions] == [None, None, "doc-7", None]
