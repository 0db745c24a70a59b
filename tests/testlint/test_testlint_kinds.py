"""The lint kinds one by one (issue #27 §1, §2): on small real texts, with the real offline embedder
and the real language identifier (nothing mocked)."""

from __future__ import annotations

import numpy as np
import pytest

from ragcov_tui.corpus.models import Chunk, Document
from ragcov_tui.embeddings.factory import make_embedder
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.testlint import language
from ragcov_tui.testlint.answerable import AnswerCheck, check_answers, claims_of
from ragcov_tui.testlint.duplicates import duplicate_groups
from ragcov_tui.testlint.gates import check_lint_gates, lint_shares, parse_lint_gates
from ragcov_tui.testlint.lint import LintInputs, lint_report
from ragcov_tui.testlint.stale import content_hashes, stale_gold
from ragcov_tui.testlint.wording import answer_in_question, vagueness
from ragcov_tui.testset.models import Question

TEXTS = {
    "billing.md": "The Team plan costs $8 per member per month when billed annually. Monthly billing costs $10 per "
    "member per month. Every new organization gets a 14-day free trial of the Business plan.",
    "sso.md": "Skein works with any identity provider that supports SAML 2.0. SCIM provisioning is available only on "
    "the Enterprise plan.",
    "bread.md": "A sourdough country loaf needs a levain built the night before. Bake it at 250 degrees for 20 minutes "
    "with the lid on, then 25 minutes with the lid off.",
}


def chunk(source: str, text: str, position: int = 0) -> Chunk:
    return Chunk(
        id=f"{source}#{position}-00000000", source=source, text=text, position=position, n_tokens=len(text.split())
    )


@pytest.fixture(scope="module")
def embedder():
    return make_embedder("local")


@pytest.fixture(scope="module")
def corpus(embedder):
    chunks = [chunk(s, t) for s, t in TEXTS.items()]
    return chunks, np.asarray(embedder.embed([c.text for c in chunks]))


def check(embedder, qid: str, question: str, answer: str, gold: list[int]) -> AnswerCheck:
    return AnswerCheck(
        qid, question, answer, np.asarray(embedder.embed([question]))[0], np.asarray(gold, dtype=np.int64)
    )


def test_an_answer_the_corpus_holds_passes_and_one_it_lacks_is_unanswerable(embedder, corpus) -> None:
    chunks, vecs = corpus
    checks = [
        check(
            embedder,
            "ok",
            "How much is the Team plan on annual billing?",
            "The Team plan costs $8 per member per month when billed annually.",
            [0],
        ),
        check(
            embedder,
            "absent",
            "Who won the 2018 World Cup?",
            "France won the 2018 World Cup, beating Croatia 4-2 in the final in Moscow.",
            [],
        ),
    ]
    found = check_answers(checks, chunks, vecs, embedder)
    assert [(f["question_id"], f["kind"]) for f in found] == [("absent", "unanswerable")]
    assert found[0]["evidence"]["searched"] and "reason" in found[0]


def test_gold_that_does_not_hold_the_answer_names_the_chunk_that_does(embedder, corpus) -> None:
    chunks, vecs = corpus
    wrong_gold = check(
        embedder,
        "q1",
        "Which plan has SCIM provisioning?",
        "SCIM provisioning is available only on the Enterprise plan.",
        [2],
    )  # gold: the bread recipe
    right_gold = check(
        embedder,
        "q2",
        "Which plan has SCIM provisioning?",
        "SCIM provisioning is available only on the Enterprise plan.",
        [1],
    )
    found = check_answers([wrong_gold, right_gold], chunks, vecs, embedder)
    assert [(f["question_id"], f["kind"]) for f in found] == [("q1", "gold_without_answer")]
    assert found[0]["evidence"]["suggested_gold"] == [chunks[1].id]


def test_a_short_answer_is_checked_with_its_question() -> None:
    assert claims_of("In what country is Normandy located?", "France") == [
        "In what country is Normandy located? France"
    ]
    assert claims_of("q", "The loaf bakes for 45 minutes in total. It rests an hour.") == [
        "The loaf bakes for 45 minutes in total.",
        "It rests an hour.",
    ]


def test_wrong_language_against_the_corpus_language() -> None:
    assert language.corpus_language(list(TEXTS.values())) == "en"
    assert (language.wrong_language("Wie setze ich mein Passwort zurück?", "en") or ("",))[0] == "de"
    assert (language.wrong_language("Quelle est la capitale de la France ?", "en") or ("",))[0] == "fr"
    for english in (
        "How do I reset my password?",
        "Which plan includes SCIM provisioning?",
        "0-dimensional biomaterials show inductive properties.",
    ):
        assert language.wrong_language(english, "en") is None, english
    assert not language.checkable("SSO?")


def test_answer_in_question_and_vague_questions() -> None:
    assert answer_in_question("Is the refund window 30 days?", "30 days") == ["30", "days"]
    assert answer_in_question("Is the refund window 30 days?", "Yes.") is None
    assert answer_in_question("How long is the refund window?", "30 days") is None
    assert vagueness("What does it cost?", english=True) is not None
    assert "'it'" in (vagueness("How does it handle refunds?", english=True) or "")
    assert vagueness("What is the boiling point of water and how does it vary with altitude?", english=True) is None
    assert vagueness("When did he win the Nobel prize?", english=True) is None  # a name to refer to
    assert vagueness("How does the Team plan handle refunds?", english=True) is None
    assert vagueness("退款需要多长时间？", english=False) is None  # no spaces: not checked by words


def test_duplicate_groups_join_chains() -> None:
    assert duplicate_groups([(0, 3, 0.01), (3, 5, 0.02), (1, 2, 0.03)], 6) == [[0, 3, 5], [1, 2]]
    assert duplicate_groups([], 3) == []


def test_stale_gold_changed_and_missing_documents() -> None:
    docs = [Document(s, t) for s, t in TEXTS.items()]
    chunks = [chunk(s, t) for s, t in TEXTS.items()]
    before = content_hashes(docs, chunks)
    edited = [Document("billing.md", TEXTS["billing.md"].replace("$8", "$9")), Document("bread.md", TEXTS["bread.md"])]
    now_chunks = [chunk("billing.md", edited[0].text), chunk("bread.md", TEXTS["bread.md"])]
    now = content_hashes(edited, now_chunks)
    questions = [
        Question("q1", "price?", gold={"billing.md": 1}),
        Question("q2", "sso?", gold={"sso.md": 1}),
        Question("q3", "bread?", gold={"bread.md": 1}),
        Question("q4", "none"),
    ]
    stale = stale_gold(questions, now_chunks, now, before, "session abcd (2026-11-20)")
    assert [(f["question_id"], f["kind"]) for f in stale.findings] == [("q1", "stale_gold"), ("q2", "gold_missing")]
    assert stale.changed == ["billing.md"] and stale.missing == ["sso.md"] and stale.checked == 3
    assert "since session abcd (2026-11-20)" in stale.findings[0]["reason"]


def test_report_counts_not_checked_never_as_clean_and_gates(embedder, corpus) -> None:
    chunks, vecs = corpus
    questions = [
        Question(
            "a",
            "How much is the Team plan on annual billing?",
            ground_truth="The Team plan costs $8 per member per month when billed annually.",
        ),
        Question("b", "How long do I bake the sourdough loaf with the lid on?"),
    ]  # no reference answer
    qvecs = np.asarray(embedder.embed([q.text for q in questions]))
    section = lint_report(LintInputs(questions, qvecs, chunks, vecs, [np.zeros(0, np.int64)] * 2, []), embedder)
    kinds = {k["kind"]: k for k in section["kinds"]}
    assert kinds["unanswerable"]["checked"] == 1 and kinds["unanswerable"]["not_checked"] == 1
    assert "1 not checked (no reference answer)" in kinds["unanswerable"]["text"]
    assert kinds["stale_gold"]["checked"] == 0 and section["baseline"] is None
    assert (
        kinds["stale_gold"]["text"] == "stale_gold: not checked (no earlier session of this test file to compare with)"
    )
    assert section["clean"] == 2 and section["clean_share"] == 1.0
    assert lint_shares(section)["stale_gold"] is None  # nothing checked: undefined, so a gate on it fails
    assert [str(b) for b in check_lint_gates(section, parse_lint_gates(["clean=1", "stale_gold=0.5"]))] == [
        "stale_gold: not measured < required 0.5"
    ]
    with pytest.raises(BadInput, match="unknown lint gate 'lint'"):
        parse_lint_gates(["lint=0.9"])
    with pytest.raises(BadInput, match="can never be met"):
        parse_lint_gates(["clean=1.5"])
