"""The sample data set keeps the shape that sample_data/README.md and manifest.json promise.

Plain-file checks only (json, re), so this test does not depend on the corpus loader or the
test-file reader and fails on the data itself when someone edits it carelessly.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

SAMPLE_DIR = Path(__file__).resolve().parents[2] / "sample_data"
CORPUS_DIR = SAMPLE_DIR / "corpus"
REQUIRED_FIELDS = ("id", "question", "ground_truth", "relevant_doc_ids", "expected_keywords")
ON_TOPIC_WORDS = (450, 950)
OFF_TOPIC_WORDS = (900, 1300)


def corpus_files() -> dict[str, Path]:
    """Corpus file names relative to sample_data/corpus/ -> path."""
    return {p.relative_to(CORPUS_DIR).as_posix(): p for p in sorted(CORPUS_DIR.rglob("*")) if p.is_file()}


def document_text(path: Path) -> str:
    """The readable text of a corpus file: HTML loses its tags, scripts and styles."""
    raw = path.read_text(encoding="utf-8")
    if path.suffix.lower() != ".html":
        return raw
    raw = re.sub(r"<(script|style)\b[^>]*>.*?</\1>", " ", raw, flags=re.S | re.I)
    return html.unescape(re.sub(r"<[^>]+>", " ", raw))


def word_count(text: str) -> int:
    """Whitespace-separated tokens holding at least one letter or digit (table pipes do not count)."""
    return sum(1 for token in text.split() if re.search(r"[A-Za-z0-9]", token))


@pytest.fixture(scope="module")
def questions() -> list[dict]:
    lines = (SAMPLE_DIR / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


@pytest.fixture(scope="module")
def manifest() -> dict:
    return json.loads((SAMPLE_DIR / "manifest.json").read_text(encoding="utf-8"))


def test_corpus_has_15_to_20_files_with_every_loader_format() -> None:
    files = corpus_files()
    assert 15 <= len(files) <= 20
    suffixes = {Path(name).suffix for name in files}
    assert {".md", ".txt", ".html"} <= suffixes


def test_exactly_one_off_topic_document_and_it_exists(manifest: dict) -> None:
    assert len(manifest["off_topic_documents"]) == 1
    assert set(manifest["off_topic_documents"]) <= set(corpus_files())


def test_documents_have_the_promised_length(manifest: dict) -> None:
    off_topic = set(manifest["off_topic_documents"])
    for name, path in corpus_files().items():
        low, high = OFF_TOPIC_WORDS if name in off_topic else ON_TOPIC_WORDS
        assert low <= word_count(document_text(path)) <= high, name


def test_question_rows_are_complete_and_ids_unique(questions: list[dict]) -> None:
    assert 28 <= len(questions) <= 36
    ids = [q["id"] for q in questions]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"q\d{3}", qid) for qid in ids)
    for q in questions:
        missing = [f for f in REQUIRED_FIELDS if f not in q]
        assert not missing, (q.get("id"), missing)
        assert q["question"].strip() and q["ground_truth"].strip(), q["id"]
        assert isinstance(q["relevant_doc_ids"], list) and isinstance(q["expected_keywords"], list)
        assert 1 <= len(q["expected_keywords"]) <= 4, q["id"]
        if "paraphrases" in q:
            assert len(q["paraphrases"]) == 2 and q["question"] not in q["paraphrases"], q["id"]
    assert sum("paraphrases" in q for q in questions) >= 8


def test_every_gold_document_exists(questions: list[dict]) -> None:
    files = corpus_files()
    for q in questions:
        for doc_id in q["relevant_doc_ids"]:
            assert doc_id in files, (q["id"], doc_id)


def test_expected_keywords_appear_in_ground_truth_and_gold_text(questions: list[dict]) -> None:
    files = corpus_files()
    for q in questions:
        gold_text = " ".join(document_text(files[d]) for d in q["relevant_doc_ids"]).lower()
        for keyword in q["expected_keywords"]:
            assert keyword.lower() in q["ground_truth"].lower(), (q["id"], keyword)
            if q["relevant_doc_ids"]:
                assert keyword.lower() in gold_text, (q["id"], keyword)


def test_off_topic_questions_have_no_gold_and_on_topic_ones_do(questions: list[dict], manifest: dict) -> None:
    off_topic = set(manifest["off_topic_questions"])
    assert len(off_topic) == 3
    for q in questions:
        assert (q["relevant_doc_ids"] == []) == (q["id"] in off_topic), q["id"]


def test_every_document_is_asked_unasked_or_off_topic_exactly_once(questions: list[dict], manifest: dict) -> None:
    asked = {d for q in questions for d in q["relevant_doc_ids"]}
    unasked = set(manifest["unasked_documents"])
    off_topic = set(manifest["off_topic_documents"])
    assert not asked & unasked and not asked & off_topic and not unasked & off_topic
    assert asked | unasked | off_topic == set(corpus_files())
    assert len(unasked) >= 3


def test_manifest_questions_exist_and_notes_mark_exactly_the_special_rows(
    questions: list[dict], manifest: dict
) -> None:
    by_id = {q["id"]: q for q in questions}
    pairs = manifest["near_duplicate_pairs"]
    assert len(pairs) == 2 and all(len(pair) == 2 for pair in pairs)
    listed = set(manifest["off_topic_questions"]) | {qid for pair in pairs for qid in pair}
    listed |= set(manifest.get("multi_hop_questions", []))
    assert listed <= set(by_id)
    for first, second in pairs:
        assert by_id[first]["relevant_doc_ids"] == by_id[second]["relevant_doc_ids"]
    with_notes = {q["id"] for q in questions if "notes" in q}
    assert with_notes == set(manifest["off_topic_questions"]) | {second for _, second in pairs}
    for qid in manifest.get("multi_hop_questions", []):
        assert len(by_id[qid]["relevant_doc_ids"]) == 2, qid


def test_questions_are_spread_unevenly(questions: list[dict]) -> None:
    per_doc: dict[str, int] = {}
    for q in questions:
        for doc_id in q["relevant_doc_ids"]:
            per_doc[doc_id] = per_doc.get(doc_id, 0) + 1
    heavy = [doc for doc, n in per_doc.items() if n >= 5]
    assert {"billing-and-plans.md", "sso-and-scim.md"} <= set(heavy)
