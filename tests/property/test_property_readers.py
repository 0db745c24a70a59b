"""Property tests over every reader of a user's file (issue #17): whatever the bytes or the JSON,
a reader returns a result or raises BadInput whose one printable line starts with the file's
name (``file:line`` where the error is in a row, with a line the file has) — never anything else.

Readers: the test file (``.jsonl`` / ``.json`` / ``.csv``), a ``records:`` file (same formats),
corpus files (``.txt .md .rst .html .pdf`` and ``.jsonl`` chunk or document rows) and qrels.
JSON is generated as text so that it can hold what Python's ``json`` accepts but JSON does not
(``NaN``, ``Infinity``, ``1e400``), 5000-digit integers, lone surrogate escapes and nesting deeper
than any reader allows; field names are drawn mostly from the alias tables, so rows get past the
shape checks into the value checks.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragcov_tui.corpus.load import load_corpus
from ragcov_tui.evaluation.systems.records import load_records
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.testset.fields import CONTAINER_KEYS, FIELD_ALIASES
from ragcov_tui.testset.qrels import read_qrels
from ragcov_tui.testset.reader import read_testset

PROPERTY = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
# Rows of generated JSON cost more to draw than to read: fewer, still covering every kind of value.
PROPERTY_ROWS = settings(PROPERTY, max_examples=60)

FIELD_NAMES = sorted({alias for aliases in FIELD_ALIASES.values() for alias in aliases})
CHUNK_FIELDS = [
    "text",
    "content",
    "page_content",
    "chunk",
    "id",
    "chunk_id",
    "source",
    "doc_id",
    "document_id",
    "metadata",
    "vector",
    "_id",
    "title",
]
RECORD_CONTEXT_FIELDS = ["id", "text", "score"]
HOSTILE_TOKENS = [
    "NaN",
    "Infinity",
    "-Infinity",
    "1e400",
    "-1e999",
    "1" * 5000,
    "0",
    "-0.0",
    "1e-400",
    "3.5e38",
    "1e39",
    '"\\ud800"',
    '"x\\udc00"',
    '"\\ud83d\\ude00"',
    '"\\u0000"',
    "[" * 150 + "]" * 150,
    '{"a":' * 120 + "1" + "}" * 120,
    "[]",
    "{}",
    '""',
    '" "',
    "true",
    "false",
    "null",
    "[0, 0, 0]",
    "[1, 2]",
    "[1, 2, 3]",
    '["a", "b"]',
    '{"a": 1, "b": 0.5}',
    '{"a": -1}',
    '{"a": NaN}',
    "[[1]]",
    '[{"id": "c1", "text": "t", "score": NaN}]',
]


def _dump(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


SCALARS = st.one_of(
    st.sampled_from(HOSTILE_TOKENS),
    st.integers(min_value=-(10**40), max_value=10**40).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(json.dumps),
    st.text(max_size=20).map(_dump),
    st.text(max_size=20).map(json.dumps),  # \u escapes
)


def _array(items: list[str]) -> str:
    return "[" + ", ".join(items) + "]"


def _object(pairs: list[tuple[str, str]]) -> str:
    return "{" + ", ".join(f"{_dump(k)}: {v}" for k, v in pairs) + "}"


def keys(names: list[str]) -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(names), st.sampled_from(names), st.text(max_size=8))


def json_values(names: list[str]) -> st.SearchStrategy[str]:
    """JSON texts (possibly non-strict) whose objects mostly use ``names`` as keys."""
    return st.recursive(
        SCALARS,
        lambda kids: st.one_of(
            st.lists(kids, max_size=4).map(_array),
            st.lists(st.tuples(keys(names), kids), max_size=4).map(_object),
        ),
        max_leaves=6,
    )


def rows(names: list[str]) -> st.SearchStrategy[list[str]]:
    """Rows: objects over ``names`` mostly, sometimes any JSON value."""
    row = st.one_of(
        st.lists(st.tuples(keys(names), json_values(names)), min_size=1, max_size=5).map(_object),
        st.lists(st.tuples(keys(names), json_values(names)), min_size=1, max_size=5).map(_object),
        json_values(names),
    )
    return st.lists(row, min_size=0, max_size=4)


def as_jsonl(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


def as_json(lines: list[str], container: str | None) -> str:
    array = "[\n" + ",\n".join(lines) + "\n]"
    return array if container is None else f'{{"{container}": {array}}}'


def as_csv(header: list[str], table: list[list[str]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(header)
    writer.writerows(table)
    return out.getvalue()


def csv_tables(names: list[str]) -> st.SearchStrategy[str]:
    cell = st.one_of(json_values(names), st.text(max_size=30))
    return st.lists(st.sampled_from(names), min_size=1, max_size=5, unique=True).flatmap(
        lambda header: st.lists(st.lists(cell, min_size=0, max_size=len(header) + 1), max_size=5).map(
            lambda table: as_csv(header, table)
        )
    )


def check_contract(read: Callable[[Path], Any], path: Path, data: bytes | str, shown: str | None = None) -> None:
    """``read(path)`` after writing ``data`` returns, or raises BadInput naming the file (and a real line)."""
    raw = data.encode("utf-8", errors="surrogatepass") if isinstance(data, str) else data
    path.write_bytes(raw)
    name = shown if shown is not None else str(path)
    try:
        read(path)
    except BadInput as exc:
        message = str(exc)
        assert name in message, message
        assert message.isprintable(), message  # one line, control characters escaped
        located = re.match(re.escape(name) + r":(\d+)", message)
        if located and message.startswith(name):
            assert 1 <= int(located.group(1)) <= raw.count(b"\n") + 1, message


def corpus_reader(warnings: list[str]) -> Callable[[Path], Any]:
    def read(path: Path) -> Any:
        warnings.clear()
        result = load_corpus([path], warn=warnings.append)
        assert all("\n" not in w for w in warnings), warnings
        return result

    return read


# --- arbitrary bytes ------------------------------------------------------------------------------

# The test file and a records file share the formats; records rows may also hold context objects.
TABLE_READERS = {
    "test file": (read_testset, FIELD_NAMES),
    "records": (load_records, FIELD_NAMES + RECORD_CONTEXT_FIELDS),
}
TEST_FILE_SUFFIXES = [".jsonl", ".json", ".csv"]
CORPUS_SUFFIXES = [".txt", ".md", ".rst", ".html", ".pdf", ".jsonl"]


@pytest.mark.parametrize("reader", TABLE_READERS)
@pytest.mark.parametrize("suffix", TEST_FILE_SUFFIXES)
@PROPERTY
@given(data=st.binary(max_size=400))
def test_test_or_records_file_of_any_bytes(tmp_path, reader, suffix, data):
    check_contract(TABLE_READERS[reader][0], tmp_path / f"t{suffix}", data)


@pytest.mark.parametrize("suffix", CORPUS_SUFFIXES)
@PROPERTY
@given(data=st.binary(max_size=400))
def test_corpus_file_of_any_bytes(tmp_path, suffix, data):
    check_contract(corpus_reader([]), tmp_path / f"doc{suffix}", data)


@pytest.mark.parametrize("prefix", [b"%PDF-1.4\n", b"<html><body>", b"<![", b"\xef\xbb\xbf"])
@PROPERTY
@given(data=st.binary(max_size=400))
def test_corpus_documents_with_a_plausible_start(tmp_path, prefix, data):
    suffix = {b"%PDF-1.4\n": ".pdf", b"<html><body>": ".html", b"<![": ".htm"}.get(prefix, ".txt")
    check_contract(corpus_reader([]), tmp_path / f"doc{suffix}", prefix + data)


@PROPERTY
@given(data=st.binary(max_size=400))
def test_qrels_of_any_bytes(tmp_path, data):
    check_contract(read_qrels, tmp_path / "qrels.tsv", data)


# --- arbitrary JSON -------------------------------------------------------------------------------


@pytest.mark.parametrize("reader", TABLE_READERS)
@PROPERTY_ROWS
@given(data=st.data())
def test_jsonl_of_any_rows(tmp_path, reader, data):
    read, names = TABLE_READERS[reader]
    check_contract(read, tmp_path / "t.jsonl", as_jsonl(data.draw(rows(names))))


@pytest.mark.parametrize("reader", TABLE_READERS)
@PROPERTY_ROWS
@given(data=st.data(), container=st.sampled_from([None, *CONTAINER_KEYS]))
def test_json_of_any_rows(tmp_path, reader, data, container):
    read, names = TABLE_READERS[reader]
    check_contract(read, tmp_path / "t.json", as_json(data.draw(rows(names)), container))


@pytest.mark.parametrize("reader", TABLE_READERS)
@PROPERTY_ROWS
@given(data=st.data())
def test_csv_of_any_cells(tmp_path, reader, data):
    read, names = TABLE_READERS[reader]
    check_contract(read, tmp_path / "t.csv", data.draw(csv_tables(names)))


@PROPERTY_ROWS
@given(lines=rows(CHUNK_FIELDS))
def test_corpus_jsonl_of_any_rows(tmp_path, lines):
    check_contract(corpus_reader([]), tmp_path / "chunks.jsonl", as_jsonl(lines))


@PROPERTY_ROWS
@given(value=json_values(FIELD_NAMES))
def test_any_json_document_as_a_test_file(tmp_path, value):
    check_contract(read_testset, tmp_path / "t.json", value)


@PROPERTY_ROWS
@given(
    table=st.lists(st.lists(st.one_of(SCALARS, st.text(max_size=12)), max_size=5), max_size=6),
    separator=st.sampled_from(["\t", " ", "  "]),
)
def test_qrels_of_any_fields(tmp_path, table, separator):
    check_contract(read_qrels, tmp_path / "qrels.tsv", "".join(separator.join(row) + "\n" for row in table))
