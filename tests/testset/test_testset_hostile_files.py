"""Hostile test files and records files (issue #17 groups 3, 9, 10): what the path is (FIFO, socket,
device, folder, link loop, dangling link) and what the bytes hold (deep nesting, NaN, 1e400, huge
integers, lone surrogates, NUL, UTF-16, zero vectors, duplicate ids…). Each case is one BadInput
line naming the file (and the line where there is one), raised at once: a FIFO is never read.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ragcov_tui.evaluation.systems.records import load_records
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.testset.beir import read_ir_folder
from ragcov_tui.testset.reader import read_testset
from tests.support.deadline import call_within
from tests.support.special_files import make_socket

READERS = {"test file": read_testset, "records": load_records}
DEEP = "[" * 100_000 + "]" * 100_000


def refused(read, path: Path, pattern: str) -> str:
    with pytest.raises(BadInput, match=pattern) as caught:
        call_within(10, read, path)
    message = str(caught.value)
    assert str(path) in message and message.isprintable(), message
    return message


# -- what the path is ------------------------------------------------------------------------------
def make_fifo(path: Path) -> None:
    os.mkfifo(path)


def make_self_link(path: Path) -> None:
    os.symlink(path, path)


def make_loop_pair(path: Path) -> None:
    os.symlink(path.with_name("other.jsonl"), path)
    os.symlink(path, path.with_name("other.jsonl"))


def make_dangling_link(path: Path) -> None:
    os.symlink(path.with_name("gone.jsonl"), path)


def make_device_link(path: Path) -> None:
    os.symlink("/dev/null", path)


def make_folder(path: Path) -> None:
    path.mkdir()


PATH_KINDS = [
    (make_fifo, "is a named pipe \\(FIFO\\), not a regular file"),
    (make_self_link, "is a symbolic link loop"),
    (make_loop_pair, "is a symbolic link loop"),
    (make_dangling_link, "is a broken symbolic link"),
    (make_device_link, "is a character device, not a regular file"),
    (make_folder, "is a directory"),
    (make_socket, "is a socket, not a regular file"),
]


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize(("make", "pattern"), PATH_KINDS, ids=[m.__name__ for m, _ in PATH_KINDS])
@pytest.mark.parametrize("suffix", [".jsonl", ".json", ".csv"])
def test_a_path_that_is_no_regular_file_is_refused_by_name(tmp_path, reader, make, pattern, suffix):
    path = tmp_path / f"q{suffix}"
    make(path)
    refused(READERS[reader], path, f"^{path}: {pattern}")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
@pytest.mark.parametrize("reader", READERS)
def test_an_unreadable_file_is_refused_by_name(tmp_path, reader):
    path = tmp_path / "q.jsonl"
    path.write_text('{"id": "1", "question": "Q?", "answer": "A"}\n')
    path.chmod(0)
    refused(READERS[reader], path, f"^{path}: cannot read \\(permission denied\\)")


# -- what the bytes hold (both readers share the layout code) --------------------------------------
Q = '{"id": "q1", "question": "Q?", "answer": "A"}'
BYTES_CASES = [
    ("t.jsonl", '{"question": ' + DEEP + "}\n", r":1: malformed JSON line \(nested deeper than 100 levels"),
    ("t.jsonl", Q + "\n" + DEEP + "\n", r":2: malformed JSON line \(nested deeper than 100 levels"),
    ("t.json", DEEP, r":1: malformed JSON \(nested deeper than 100 levels"),
    (
        "t.json",
        "[\n" + Q + ",\n" + '{"question": "B?", "x": ' + DEEP + "}]",
        r":3: malformed JSON \(nested deeper than 100 levels",
    ),
    ("t.jsonl", '{"question": "Q?", "answer": NaN}\n', r":1: malformed JSON line \(NaN is not valid JSON"),
    ("t.jsonl", '{"question": "Q?", "answer": Infinity}\n', r":1: malformed JSON line \(Infinity is not valid"),
    ("t.jsonl", Q + '\n{"question": "Q?", "answer": -Infinity}\n', r":2: malformed JSON line \(-Infinity is not"),
    ("t.json", '[\n{"question": "Q?",\n "answer": 1e400}]', r":3: malformed JSON \(number 1e400 is too large"),
    ("t.jsonl", '{"question": "Q?", "id": ' + "9" * 5000 + "}\n", r":1: malformed JSON line \(a number with more"),
    ("t.jsonl", '{"question": "\\ud800?", "answer": "A"}\n', r":1: malformed JSON line \(\\ud800 escape without"),
    ("t.jsonl", Q + "\n\0\n", r":2: NUL byte"),
    ("t.csv", 'id,question,answer\n1,"Q\0?",A\n', r":2: NUL byte"),
    ("t.jsonl", ('{"question": "Q?"}\n').encode("utf-16"), r": UTF-16 text \(save the file as UTF-8\)"),
    ("t.csv", b"id,question,answer\n1,Q?,\xff\n", r":2: not valid UTF-8"),
    ("t.jsonl", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", r":1: (not valid UTF-8|NUL byte)"),
    ("t.jsonl", "", r": (the file is empty|no records)"),
    ("t.jsonl", "\ufeff", r": (the file is empty|no records)"),
    ("t.json", "  \n\t", r"(: the file is empty|:2: malformed JSON)"),
    ("t.jsonl", "[1, 2]\n", r":1: a question row must be a JSON object, got a list"),
    ("t.jsonl", "null\n", r":1: a question row must be a JSON object, got null"),
    ("t.jsonl", '"text"\n', r":1: a question row must be a JSON object, got a string"),
    ("t.jsonl", "12\n", r":1: a question row must be a JSON object, got a number"),
    ("t.json", "[\n" + Q + ",\n  true\n]", r":3: element \[1\]: a question row must be a JSON object, got a boolean"),
    ("t.csv", "id,question,answer\n1,Q?,A,extra\n", r":2: 4 cells but the header has 3 columns"),
    ("t.csv", 'id,question,answer\n1,"Q?,A\n', r":2: malformed CSV"),
    ("t.json", '{"\\n\\u001b[31mkey": 1}', r": expected a list of questions, or an object with .*'\\n\\x1b\[31mkey'"),
]


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize(("name", "content", "pattern"), BYTES_CASES, ids=range(len(BYTES_CASES)))
def test_hostile_bytes_are_one_line_naming_file_and_line(tmp_path, reader, name, content, pattern):
    path = tmp_path / name
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    refused(READERS[reader], path, f"^{path}{pattern}")


TEST_FILE_CASES = [
    ('{"id": 1.5, "question": "Q?"}\n', r":1: field 'id' must be a string or an integer \(got float\)"),
    ('{"id": true, "question": "Q?"}\n', r":1: field 'id' must be a string or an integer \(got bool\)"),
    ('{"id": {"a": 1}, "question": "Q?"}\n', r":1: field 'id' must be a string or an integer \(got dict\)"),
    ('{"id": 7, "question": "A?"}\n{"id": "7", "question": "B?"}\n', r":2: duplicate id '7' \(also on line 1\)"),
    (
        '{"question": "A?", "id": "' + "x" * 500 + '"}\n{"question": "B?", "id": "' + "x" * 500 + '"}\n',
        r":2: duplicate id 'x{10,60}… \(also on line 1\)$",
    ),
    ('{"question": 5}\n', r":1: field 'question' must be a string \(got int\)"),
    ('{"question": "Q?", "reference": 5}\n', r":1: field 'reference' must be a string \(got int\)"),
    ('{"question": "Q?", "gold_doc_ids": {"d": ' + "9" * 400 + "}}\n", r":1: .*grade of 'd' must be a finite number"),
    ('{"question": "Q?", "gold_doc_ids": {"d": true}}\n', r":1: .*grade of 'd' must be a finite number"),
    ('{"question": "Q?", "vector": [0, 0, 0]}\n', r":1: field 'vector' is all zeros"),
    ('{"question": "Q?", "vector": [1e-46]}\n', r":1: field 'vector' is all zeros"),
    ('{"question": "Q?", "vector": [1e39, 1]}\n', r":1: field 'vector' has a number beyond the 32-bit float range"),
    ('{"question": "Q?", "vector": [1e20, 1e20]}\n', r":1: field 'vector' is too long"),
    ('{"question": "Q?", "vector": [1, ' + "9" * 400 + "]}\n", r":1: field 'vector' must be a non-empty list"),
    (
        '{"question": "A?", "vector": [1, 0]}\n\n{"question": "B?", "embedding": [1, 0, 0]}\n',
        r":3: field 'embedding' has 3 numbers but the vector on line 1 has 2",
    ),
]


@pytest.mark.parametrize(("content", "pattern"), TEST_FILE_CASES, ids=range(len(TEST_FILE_CASES)))
def test_test_file_values(tmp_path, content, pattern):
    path = tmp_path / "t.jsonl"
    path.write_text(content, encoding="utf-8")
    refused(read_testset, path, f"^{path}{pattern}")


def test_csv_vector_cell_is_checked_like_json(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text('question,vector\nA?,"[0, 0]"\nB?,"[NaN]"\n', encoding="utf-8")
    refused(read_testset, path, f"^{path}:2: field 'vector' is all zeros")
    path.write_text('question,vector\nA?,"[1, 0]"\nB?,"[NaN]"\n', encoding="utf-8")
    refused(read_testset, path, f"^{path}:3: field 'vector' is neither valid JSON \\(NaN is not valid JSON")


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("bom.jsonl", '\ufeff{"question": "Q?"}\n'),
        ("bom.csv", "\ufeffquestion\nQ?\n"),
        ("crlf.jsonl", '{"question": "Q?"}\r\n\r\n'),
        ("pair.jsonl", '{"question": "Q\\ud83d\\ude00?"}\n'),
        ("escaped.jsonl", '{"question": "Q\\\\ud800?"}\n'),  # a backslash then text, not an escape
        ("deep99.jsonl", '{"question": "Q?", "extra": ' + "[" * 98 + "]" * 98 + "}\n"),
        ("big.jsonl", '{"question": "Q' + " w" * 2_000_000 + '?"}\n'),
        ("bigcell.csv", 'question,retrieved_contexts\nQ?,"' + "c" * 1_000_000 + '"\n'),
        ("intid.jsonl", '{"id": ' + "7" * 4000 + ', "question": "Q?"}\n'),
    ],
    ids=lambda value: value if len(value) < 20 else "",
)
def test_unusual_but_valid_files_are_read(tmp_path, name, content):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    [question] = read_testset(path).questions
    assert question.text.startswith("Q") and question.text.endswith("?")


# -- records ---------------------------------------------------------------------------------------
RECORDS_CASES = [
    ('{"id": "q1", "answer": "a"}\n{"id": "q1", "answer": "b"}\n', r":2: repeated id 'q1' \(first on .*:1\)"),
    ('{"id": 1, "answer": "a"}\n{"id": "1", "answer": "b"}\n', r":2: repeated id '1' \(first on .*:1\)"),
    ('{"id": 1.5, "answer": "a"}\n', r":1: field 'id' must be a string or a whole number \(got float\)"),
    ('{"id": false, "answer": "a"}\n', r":1: field 'id' must be a string or a whole number \(got bool\)"),
    ('{"id": "q1", "answer": 3}\n', r":1: field 'answer' must be a string"),
    ('{"id": "q1", "retrieved_ids": [true]}\n', r":1: field 'retrieved_ids' must be a list of strings"),
    (
        '{"id": "q1", "answer": "' + "[" * 10 + '"}\n{"id": "q2", "answer": ' + DEEP + "}\n",
        r":2: malformed JSON line \(nested deeper than 100 levels",
    ),
]


@pytest.mark.parametrize(("content", "pattern"), RECORDS_CASES, ids=range(len(RECORDS_CASES)))
def test_records_rows(tmp_path, content, pattern):
    path = tmp_path / "records.jsonl"
    path.write_text(content, encoding="utf-8")
    refused(load_records, path, f"^{path}{pattern}")


def test_records_csv_duplicate_ids_name_both_lines(tmp_path):
    path = tmp_path / "records.csv"
    path.write_text("id,answer\nq1,first\nq2,other\nq1,second\n", encoding="utf-8")
    refused(load_records, path, f"^{path}:4: repeated id 'q1' \\(first on {path}:2\\)$")


@pytest.mark.parametrize(
    ("row", "why"),
    [
        ('{"_id": "q2", "text": "half \\udc00 a pair?"}', r"\\udc00 escape without its surrogate pair"),
        ('{"_id": "q2", "text": "q?", "score": Infinity}', "Infinity is not valid JSON"),
        ('{"_id": "q2", "text": "q?", "x": ' + DEEP + "}", "nested deeper than 100 levels"),
    ],
    ids=["surrogate", "infinity", "deep"],
)
def test_beir_query_rows_are_strict_json_at_file_and_line(tmp_path, row, why):
    (tmp_path / "qrels").mkdir()
    (tmp_path / "qrels" / "test.tsv").write_text("q1\td1\t1\nq2\td1\t1\n")
    queries = tmp_path / "queries.jsonl"
    queries.write_text('{"_id": "q1", "text": "fine?"}\n\u2028\n' + row + "\n", encoding="utf-8")
    refused(read_ir_folder, tmp_path, f"^{queries}:3: invalid JSON \\({why}")
