"""Reference contexts become gold ids: each tool's test-file layout read as written, the tiers
in their order, the test file's own gold ids winning, and the one line that says how."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from ragcov_tui.corpus.chunking import chunk_documents
from ragcov_tui.embeddings.factory import make_embedder
from ragcov_tui.evaluation.gold_contexts import context_gold_line, gold_from_contexts
from ragcov_tui.testset.models import Question
from ragcov_tui.testset.reader import read_testset
from tests.evaluation.test_eval_context_index import DOCS, _chunk, _paraphrase
from tests.support.present import present

CHUNKS = chunk_documents(DOCS, chunk_size=60, chunk_overlap=10)


def _q(qid: str, contexts: list[str] | None = None, gold: dict | None = None, seed: str | None = None) -> Question:
    return Question(
        id=qid, text=f"question {qid}?", gold=dict(gold or {}), reference_contexts=contexts, seed_document_id=seed
    )


def _rows(n: int = 4) -> list[tuple[str, list[str], set[str]]]:
    """(question, reference contexts, the chunk ids they must give) for docs 0..n-1."""
    out = []
    for d in range(n):
        a, b = _chunk(d, 1), _chunk(d, 3)
        out.append((f"What does document {d} say?", [a.text[10:], b.text.upper()], {a.id, b.id}))
    return out


def _layouts(tmp: Path) -> dict[str, Path]:
    """One test file per tool, each in that tool's own field names (no gold ids)."""
    rows = _rows()
    files = {
        "ragas.jsonl": "\n".join(
            json.dumps({"user_input": q, "reference": "r", "reference_contexts": c}) for q, c, _ in rows
        ),
        "deepeval.json": json.dumps([{"input": q, "expected_output": "r", "context": c} for q, c, _ in rows]),
        "giskard.jsonl": "\n".join(
            json.dumps(
                {
                    "id": f"g{i}",
                    "question": q,
                    "reference_answer": "r",
                    "reference_context": "\n\n".join(f"Document {n}: {t}" for n, t in enumerate(c)),
                    "conversation_history": [],
                    "metadata": {"question_type": "simple", "seed_document_id": "x"},
                }
            )
            for i, (q, c, _) in enumerate(rows)
        ),
        "llamaindex.json": json.dumps(
            {
                "examples": [
                    {"query": q, "reference_contexts": c, "reference_answer": "r", "query_by": {"type": "ai"}}
                    for q, c, _ in rows
                ]
            }
        ),
    }
    paths = {}
    for name, text in files.items():
        paths[name] = tmp / name
        paths[name].write_text(text + "\n", encoding="utf-8")
    return paths


@pytest.mark.parametrize("layout", ["ragas.jsonl", "deepeval.json", "giskard.jsonl", "llamaindex.json"])
def test_each_tools_reference_contexts_become_gold_chunk_ids(layout: str, tmp_path: Path) -> None:
    questions = read_testset(_layouts(tmp_path)[layout]).questions
    result = present(gold_from_contexts(questions, DOCS, CHUNKS))
    for question, (_, _, expected) in zip(questions, _rows(), strict=True):
        assert expected <= set(question.gold) and set(question.gold.values()) == {1.0}
    assert result is not None and result.matched_questions == result.questions == 4
    assert result.contexts["exact"] == (4 if layout == "giskard.jsonl" else 8)  # Giskard: one text per question


@pytest.mark.parametrize(
    "joined",
    [
        "Document 12: {a}\n\nDocument 40: {b}",  # RAGET's reference_context
        "Document doc-a.md: {a}\n\nDocument 7:{b}",
        "{a}\n\n{b}",  # passages apart by a blank line
        "{a}\n \n\t\n{b}",
    ],
)
def test_a_text_of_several_passages_names_each_passages_chunks(joined: str) -> None:
    a, b = _chunk(2, 0), _chunk(8, 2)
    question = _q("a", [joined.format(a=a.text, b=b.text.lower())])
    result = present(gold_from_contexts([question], DOCS, CHUNKS))
    assert {a.id, b.id} <= set(question.gold) and result.contexts["exact"] == 1


def test_gold_ids_in_the_file_always_win() -> None:
    own = {"doc09.md": 2.0}
    questions = [_q("a", [_chunk(0, 1).text], gold=own), _q("b", [_chunk(0, 1).text])]
    result = present(gold_from_contexts(questions, DOCS, CHUNKS))
    assert questions[0].gold == own and questions[1].gold == {_chunk(0, 1).id: 1.0}
    assert result.explicit == 1 and result.questions == 1
    assert "(1 more kept the test file's gold ids)" in context_gold_line(result.as_dict())


def test_grade_zero_gold_is_no_gold() -> None:
    question = _q("a", [_chunk(2, 0).text], gold={"doc09.md": 0.0})
    gold_from_contexts([question], DOCS, CHUNKS)
    assert question.gold == {_chunk(2, 0).id: 1.0}


@pytest.mark.parametrize(
    "seed, expected",
    [
        ("doc05.md", "doc05.md"),
        ("corpus/doc05.md", "doc05.md"),
        ("doc05", "doc05.md"),
        (_chunk(5, 2).id, _chunk(5, 2).id),
    ],
)
def test_giskard_seed_document_id_gives_gold_when_no_text_matched(seed: str, expected: str) -> None:
    question = _q("a", ["A context written from elsewhere that the corpus never held at all."], seed=seed)
    result = present(gold_from_contexts([question], DOCS, CHUNKS))
    assert question.gold == {expected: 1.0}
    assert result.seed == 1 and result.contexts["unmatched"] == 1 and result.matched_questions == 1


def test_text_matches_come_before_the_seed_document_id() -> None:
    question = _q("a", [_chunk(3, 1).text], seed="doc05.md")
    result = present(gold_from_contexts([question], DOCS, CHUNKS))
    assert question.gold == {_chunk(3, 1).id: 1.0} and result.seed == 0


def test_a_seed_document_id_alone_is_enough() -> None:
    questions = [_q("a", None, seed="doc07.md"), _q("b", None, seed="nowhere.md")]
    result = present(gold_from_contexts(questions, DOCS, CHUNKS))
    assert questions[0].gold == {"doc07.md": 1.0} and questions[1].gold == {}
    assert result.seed == 1 and result.matched_questions == 1 and result.questions == 2


def test_embedding_tier_catches_what_the_text_tiers_miss() -> None:
    target = _chunk(4, 1)
    shuffled = _paraphrase(target.text, random.Random(3)).replace(" indeed", "")
    questions = [_q("a", [shuffled]), _q("b", ["Nothing here resembles the corpus in any way whatsoever, truly."])]
    result = present(gold_from_contexts(questions, DOCS, CHUNKS, embedder=make_embedder("hash")))
    assert questions[0].gold == {target.id: 1.0} and questions[1].gold == {}
    assert result.contexts["embedding"] == 1 and result.contexts["unmatched"] == 1
    assert result.embedded == len(CHUNKS) + 2
    assert "1 by embedding (cos ≥ 0.9), 1 unmatched" in context_gold_line(result.as_dict())


@pytest.mark.parametrize("spec", [None, "precomputed"])
def test_no_embedding_tier_without_an_embedder_that_embeds_text(spec: str | None) -> None:
    question = _q("a", [_paraphrase(_chunk(4, 1).text, random.Random(3)).replace(" indeed", "")])
    result = present(gold_from_contexts([question], DOCS, CHUNKS, embedder=make_embedder(spec) if spec else None))
    assert question.gold == {} and result.contexts["unmatched"] == 1 and result.embedded == 0


def test_nothing_to_say_when_no_question_carries_references() -> None:
    assert gold_from_contexts([_q("a"), _q("b", [])], DOCS, CHUNKS) is None


def test_counts_and_line_for_a_mixed_file() -> None:
    near = " ".join(w if i % 20 != 10 else "zzyzx" for i, w in enumerate(DOCS[6].text.split()[40:140]))
    questions = [
        _q("a", [_chunk(1, 1).text, "Yes."]),
        _q("b", [near]),
        _q("c", ["Entirely unrelated words that no document of this corpus contains anywhere."]),
    ]
    result = present(gold_from_contexts(questions, DOCS, CHUNKS))
    block = result.as_dict()
    assert block["contexts"] == {
        "exact": 1,
        "near-exact": 1,
        "embedding": 0,
        "unmatched": 1,
        "too short": 1,
        "ambiguous": 0,
    }
    assert block["matched_questions"] == 2 and block["questions"] == 3
    assert block["unmatched_examples"] == [
        "Entirely unrelated words that no document of this corpus contains anywhere."
    ]
    assert context_gold_line(block) == (
        "gold from reference contexts: 1 exact, 1 near-exact, 0 by embedding "
        "(cos ≥ 0.9), 1 unmatched, 1 too short; 2 of 3 questions got gold ids"
    )


def test_without_a_corpus_the_line_says_nothing_was_mapped() -> None:
    question = _q("a", [_chunk(0, 1).text])
    result = present(gold_from_contexts([question], [], []))
    assert question.gold == {} and result.as_dict()["mapped"] is False
    assert context_gold_line(result.as_dict()) == (
        "gold from reference contexts: none mapped for 1 question(s) (no --corpus to find them in)"
    )
