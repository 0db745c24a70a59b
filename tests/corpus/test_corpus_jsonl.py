"""Pre-chunked .jsonl input: field aliases, vectors, generated ids, and every malformed row."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ragcov_tui.corpus.chunking import chunk_id
from ragcov_tui.corpus.load import load_corpus
from ragcov_tui.shared.errors import BadInput


def write_rows(path: Path, rows: list[object]) -> Path:
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def load_rows(tmp_path: Path, rows: list[object], warn=None):
    return load_corpus([write_rows(tmp_path / "chunks.jsonl", rows)], warn=warn)


def test_rows_with_vectors(tmp_path):
    corpus = load_rows(
        tmp_path,
        [
            {"id": "c1", "text": "Refunds take 5 days.", "source": "billing.md", "vector": [0.1, 2, -3.5]},
            {"id": "c2", "text": "Reset your password.", "source": "account.md", "vector": [1, 0, 0]},
            {"id": "c3", "text": "Second billing chunk.", "source": "billing.md", "vector": [0, 1, 0]},
        ],
    )
    assert corpus.documents == []
    c1, c2, c3 = corpus.prechunked
    assert (c1.id, c1.source, c1.position, c1.vector) == ("c1", "billing.md", 0, [0.1, 2.0, -3.5])
    assert (c2.source, c2.position) == ("account.md", 0)
    assert (c3.source, c3.position) == ("billing.md", 1)
    assert c1.n_tokens > 0 and all(isinstance(x, float) for x in c1.vector)


def test_field_aliases(tmp_path):
    corpus = load_rows(
        tmp_path,
        [
            {"chunk_id": "a", "content": "one", "doc_id": "d1"},
            {"chunk_id": 7, "page_content": "two", "document_id": "d2"},
            {"id": "c", "chunk": "three", "metadata": {"source": "d3", "page": 1}},
        ],
    )
    assert [(c.id, c.text, c.source, c.vector) for c in corpus.prechunked] == [
        ("a", "one", "d1", None),
        ("7", "two", "d2", None),
        ("c", "three", "d3", None),
    ]


def test_defaults_for_missing_id_and_source(tmp_path):
    corpus = load_rows(tmp_path, [{"text": "alpha"}, "", {"text": "beta", "source": "x"}, {"text": "gamma"}])
    a, b, g = corpus.prechunked
    assert a.source == g.source == "chunks.jsonl" and b.source == "x"
    assert a.id == chunk_id("chunks.jsonl", 0, "alpha")
    assert g.id == chunk_id("chunks.jsonl", 1, "gamma")
    assert b.id == chunk_id("x", 0, "beta")


def test_blank_text_rows_are_skipped_with_one_warning(tmp_path):
    seen: list[str] = []
    corpus = load_rows(tmp_path, [{"text": "  "}, {"text": ""}, {"text": "kept"}], warn=seen.append)
    assert [c.text for c in corpus.prechunked] == ["kept"]
    assert seen == [f"{tmp_path}/chunks.jsonl: skipped 2 row(s) with blank text"]


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (['{"text": "ok"}', '{"text": oops}'], r"chunks\.jsonl:2: invalid JSON \(Expecting value"),
        (['["a list"]'], r"chunks\.jsonl:1: expected a JSON object, got list"),
        (
            [{"id": "x", "body": "no text"}],
            r"chunks\.jsonl:1: no chunk text \(expected one of the fields text, content, page_content, chunk\)",
        ),
        ([{"text": 42}], r"chunks\.jsonl:1: field 'text' must be a string"),
        (
            [{"text": "a", "id": "dup"}, {"text": "b"}, {"text": "c", "id": "dup"}],
            r"chunks\.jsonl:3: duplicate chunk id 'dup' \(first at .*chunks\.jsonl:1\)",
        ),
        (
            [{"text": "a", "vector": "0.1,0.2"}],
            r"chunks\.jsonl:1: field 'vector' must be a non-empty list of finite numbers",
        ),
        ([{"text": "a", "vector": [0.1, "x"]}], r"chunks\.jsonl:1: field 'vector'"),
        ([{"text": "a", "vector": [True, False]}], r"chunks\.jsonl:1: field 'vector'"),
        (['{"text": "a", "vector": [NaN, 1]}'], r"chunks\.jsonl:1: invalid JSON \(NaN is not valid JSON"),
        (['{"text": "a", "vector": [1e400, 1]}'], r"chunks\.jsonl:1: invalid JSON \(number 1e400 is too large"),
        ([{"text": "a", "vector": [0, 0.0, -0.0]}], r"chunks\.jsonl:1: field 'vector' is all zeros"),
        ([{"text": "a", "vector": [1e-46, 0]}], r"chunks\.jsonl:1: field 'vector' is all zeros"),
        ([{"text": "a", "vector": [1e39, 1]}], r"chunks\.jsonl:1: field 'vector' has a number beyond the 32-bit"),
        ([{"text": "a", "vector": [1e20, 1e20]}], r"chunks\.jsonl:1: field 'vector' is too long"),
        ([{"text": "a", "vector": [10**400]}], r"chunks\.jsonl:1: field 'vector' must be a non-empty list of finite"),
        (
            ['{"text": "a", "vector": ' + "[" * 100_000 + "]" * 100_000 + "}"],
            r"chunks\.jsonl:1: invalid JSON \(nested deeper than 100 levels",
        ),
        (
            ['{"text": "a", "id": ' + "7" * 5000 + "}"],
            r"chunks\.jsonl:1: invalid JSON \(a number with more than 4300 digits",
        ),
        (
            ['{"text": "\\ud800 half a pair"}'],
            r"chunks\.jsonl:1: invalid JSON \(\\ud800 escape without its surrogate pair",
        ),
        ([{"text": "a", "vector": []}], r"chunks\.jsonl:1: field 'vector'"),
        (
            [{"text": "a", "vector": [1, 2]}, {"text": "b", "vector": [1, 2, 3]}],
            r"chunks\.jsonl:2: field 'vector' has 3 numbers but .*chunks\.jsonl:1 has 2",
        ),
        ([{"text": "a", "id": {"x": 1}}], r"chunks\.jsonl:1: field 'id' must be a non-empty string or integer"),
        ([{"text": "a", "source": ""}], r"chunks\.jsonl:1: field 'source' must be a non-empty string or integer"),
    ],
)
def test_malformed_rows(tmp_path, rows, message):
    with pytest.raises(BadInput, match=message) as caught:
        load_rows(tmp_path, rows)
    assert "\n" not in str(caught.value)


def test_duplicate_ids_across_files_name_both(tmp_path):
    first = write_rows(tmp_path / "a.jsonl", [{"id": "same", "text": "one"}])
    second = write_rows(tmp_path / "b.jsonl", [{"text": "x"}, {"id": "same", "text": "two"}])
    with pytest.raises(BadInput, match=re.escape(f"{second}:2: duplicate chunk id 'same' (first at {first}:1)")):
        load_corpus([first, second])


def test_jsonl_next_to_documents_in_a_directory(tmp_path):
    (tmp_path / "guide.md").write_text("A guide.", encoding="utf-8")
    write_rows(tmp_path / "extra.jsonl", [{"id": "e1", "text": "Extra chunk.", "source": "faq"}])
    corpus = load_corpus([tmp_path])
    assert [d.source for d in corpus.documents] == ["guide.md"]
    assert [c.id for c in corpus.prechunked] == ["e1"]


def test_empty_jsonl_is_skipped_with_a_warning(tmp_path):
    seen: list[str] = []
    (tmp_path / "empty.jsonl").write_text("\n\n", encoding="utf-8")
    (tmp_path / "doc.txt").write_text("text", encoding="utf-8")
    corpus = load_corpus([tmp_path], warn=seen.append)
    assert corpus.prechunked == [] and len(corpus.documents) == 1
    assert seen == [f"{tmp_path}/empty.jsonl: empty or whitespace only; skipped"]
