"""The standard IR layout: qrels files (TREC / BEIR TSV), BEIR folders as test sets, --qrels."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.testset.beir import attach_qrels, corpus_paths, is_ir_folder, read_questions
from ragcov_tui.testset.qrels import parse_qrels, read_qrels


def write_beir(
    root: Path,
    *,
    queries: list[dict[str, object]],
    qrels: dict[str, str],
    corpus: list[dict[str, object]] | None = None,
) -> Path:
    """A BEIR folder under ``root``: ``qrels`` maps split name → TSV text."""
    root.mkdir(parents=True, exist_ok=True)
    rows = corpus if corpus is not None else [{"_id": "d1", "title": "T", "text": "x"}]
    (root / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (root / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries))
    (root / "qrels").mkdir(exist_ok=True)
    for split, text in qrels.items():
        (root / "qrels" / f"{split}.tsv").write_text(text)
    return root


QUERIES: list[dict[str, object]] = [
    {"_id": "q1", "text": "first?"},
    {"_id": "q2", "text": "second?"},
    {"_id": 3, "text": " third? "},
]


# -- qrels files ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text, expected",
    [
        ("query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t2\n", {"q1": {"d1": 1.0, "d2": 2.0}}),
        ("q1\td1\t1\nq2\td3\t0\n", {"q1": {"d1": 1.0}, "q2": {"d3": 0.0}}),
        ("q1 0 d1 1\nq1 0 d2 3\n", {"q1": {"d1": 1.0, "d2": 3.0}}),
        ("q1 Q0 d1 1\n", {"q1": {"d1": 1.0}}),
        ("q1\t0\td1\t2\n", {"q1": {"d1": 2.0}}),
        ("q1 0 d1 -1\n", {"q1": {"d1": 0.0}}),  # trec_eval: negative = judged non-relevant
        ("\n\nq1\td1\t1\n\n", {"q1": {"d1": 1.0}}),
        ("q1\td1\t1\nq1\td1\t2\n", {"q1": {"d1": 2.0}}),  # the last judgement wins
        ("query_id corpus_id score\nq1 d1 1.5\n", {"q1": {"d1": 1.5}}),
        ("q-1\tsample_data/corpus/a.md\t1\n", {"q-1": {"sample_data/corpus/a.md": 1.0}}),
    ],
)
def test_qrels_layouts(text: str, expected: dict) -> None:
    assert parse_qrels(text, "q.tsv") == expected


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "no judgements"),
        ("query-id\tcorpus-id\tscore\n", "no judgements"),
        ("q1\td1\n", "q.tsv:1: expected"),
        ("q1 0 d1 1 extra\n", "q.tsv:1: expected"),
        ("q1\td1\tyes\n", "q.tsv:1: grade 'yes' is not a number"),
        ("q1\td1\t1\nq2\td2\tnan\n", "q.tsv:2: grade 'nan' must be a finite number"),
        ("q1\td1\t1\nq2 0 d2 1\n", "q.tsv:2: 4 fields where the lines above have 3"),
        ("q1\t\t1\n", "q.tsv:1: empty query or document id"),
    ],
)
def test_qrels_errors_name_the_line(text: str, message: str) -> None:
    with pytest.raises(BadInput, match=message.replace("(", r"\(")):
        parse_qrels(text, "q.tsv")


def test_read_qrels_missing_file(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match="no such qrels file"):
        read_qrels(tmp_path / "nope.tsv")


# -- BEIR folders --------------------------------------------------------------------------------
def test_folder_reads_only_judged_queries_in_file_order_with_graded_gold(tmp_path: Path) -> None:
    folder = write_beir(
        tmp_path / "b", queries=QUERIES, qrels={"test": "query-id\tcorpus-id\tscore\n3\td9\t2\nq1\td1\t1\n"}
    )
    assert is_ir_folder(folder)
    testset = read_questions(folder)
    assert testset.format == "beir"
    assert [(q.id, q.text, q.gold) for q in testset.questions] == [
        ("q1", "first?", {"d1": 1.0}),
        ("3", "third?", {"d9": 2.0}),
    ]
    assert corpus_paths(folder, None) == [str(folder / "corpus.jsonl")]
    assert corpus_paths(folder, ["other"]) == ["other"]


def test_a_beir_folder_given_as_the_corpus_is_its_corpus_file_not_its_queries(tmp_path: Path) -> None:
    """Walked as a folder, a BEIR folder's queries.jsonl, qrels and notes would become documents
    (SciFact as --corpus read 6,293 documents instead of 5,183)."""
    folder = write_beir(tmp_path / "b", queries=QUERIES, qrels={"test": "q1\td1\t1\n"})
    plain = tmp_path / "docs"
    plain.mkdir()
    assert corpus_paths("q.jsonl", [str(folder), str(plain), "lancedb:x#t"]) == [
        str(folder / "corpus.jsonl"),
        str(plain),
        "lancedb:x#t",
    ]


def test_split_picks_the_qrels_file_and_a_missing_split_lists_the_others(tmp_path: Path) -> None:
    folder = write_beir(tmp_path / "b", queries=QUERIES, qrels={"test": "q1\td1\t1\n", "dev": "q2\td1\t1\n"})
    assert [q.id for q in read_questions(folder, split="dev").questions] == ["q2"]
    with pytest.raises(BadInput, match=r"no qrels for split 'train' .*splits: dev, test"):
        read_questions(folder, split="train")
    with pytest.raises(BadInput, match="not a split name"):
        read_questions(folder, split="../x")


def test_sha_changes_with_the_qrels(tmp_path: Path) -> None:
    a = read_questions(write_beir(tmp_path / "a", queries=QUERIES, qrels={"test": "q1\td1\t1\n"})).sha256
    b = read_questions(write_beir(tmp_path / "b", queries=QUERIES, qrels={"test": "q1\td1\t2\n"})).sha256
    assert a != b


@pytest.mark.parametrize(
    "line, message",
    [
        ("{not json", "queries.jsonl:2: invalid JSON"),
        ("[1, 2]", "queries.jsonl:2: expected a JSON object"),
        ('{"text": "no id"}', "queries.jsonl:2: field '_id'"),
        ('{"_id": true, "text": "x"}', "queries.jsonl:2: field '_id'"),
        ('{"_id": "q9", "text": ""}', "queries.jsonl:2: field 'text'"),
        ('{"_id": "q9", "text": 5}', "queries.jsonl:2: field 'text'"),
        ("[" * 100000, "queries.jsonl:2: "),
        ('{"_id": ' + "9" * 5000 + "}", "queries.jsonl:2: invalid JSON"),
    ],
)
def test_bad_query_lines_are_one_line_errors(tmp_path: Path, line: str, message: str) -> None:
    folder = write_beir(tmp_path / "b", queries=QUERIES[:1], qrels={"test": "q1\td1\t1\n"})
    with open(folder / "queries.jsonl", "a") as f:
        f.write(line + "\n")
    with pytest.raises(BadInput, match=message):
        read_questions(folder)


def test_no_judged_query_is_an_error(tmp_path: Path) -> None:
    folder = write_beir(tmp_path / "b", queries=QUERIES, qrels={"test": "zz\td1\t1\n"})
    with pytest.raises(BadInput, match="no query has a judgement"):
        read_questions(folder)


def test_a_directory_without_queries_is_explained(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match="a directory without queries.jsonl"):
        read_questions(tmp_path)


# -- --qrels on a test file ---------------------------------------------------------------------
def test_qrels_attach_to_a_test_file(tmp_path: Path) -> None:
    tests = tmp_path / "q.jsonl"
    tests.write_text('{"id": "q1", "question": "a?", "gold_doc_ids": ["old.md"]}\n{"id": "q2", "question": "b?"}\n')
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q2 0 new.md 2\n")
    warnings: list[str] = []
    testset = read_questions(tests, qrels=qrels, warn=warnings.append)
    assert [q.gold for q in testset.questions] == [{"old.md": 1.0}, {"new.md": 2.0}]
    assert warnings and "1 of 2 questions have no judgement" in warnings[0]


def test_qrels_that_judge_no_question_are_an_error(tmp_path: Path) -> None:
    tests = tmp_path / "q.jsonl"
    tests.write_text('{"id": "q1", "question": "a?"}\n')
    qrels = tmp_path / "qrels.tsv"
    qrels.write_text("x1\td1\t1\n")
    with pytest.raises(BadInput, match="judges none of the test file's question ids"):
        read_questions(tests, qrels=qrels)


def test_attach_keeps_a_question_order(tmp_path: Path) -> None:
    folder = write_beir(tmp_path / "b", queries=QUERIES, qrels={"test": "q1\td1\t1\nq2\td1\t1\n"})
    testset = read_questions(folder)
    attach_qrels(testset, {"q2": {"d5": 3.0}}, "extra.tsv")
    assert [q.gold for q in testset.questions] == [{"d1": 1.0}, {"d5": 3.0}]
