"""The offline extractive answerer of builtin:* and the Markdown-aware sentence units it shares
with the heuristic metrics (tables, headings, hard-wrapped lines, list items)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from ragcov_tui.embeddings.factory import make_embedder
from ragcov_tui.embeddings.hashing import HashEmbedder
from ragcov_tui.evaluation.generation.support import ContextIndex, claim_sentences
from ragcov_tui.evaluation.generation.text import split_sentences, text_units
from ragcov_tui.evaluation.systems.base import RetrievedChunk
from ragcov_tui.evaluation.systems.extractive import (
    ABSTAIN_ANSWER,
    candidates,
    extract_answer,
    lexical_scores,
    select_mmr,
)

BILLING = """# Billing and plans

Skein is billed per organization, per **paid member** (seat). Guests are free. You can pay monthly
or annually; annual billing saves 20%.

## Plans and prices

| Plan | Billed monthly | Billed annually | Best for |
|---|---|---|---|
| **Free** | $0 | $0 | Up to 10 members trying Skein |
| **Team** | $10 | $8 | Growing teams that need more storage and integrations |
| **Business** | $20 | $16 | Companies that need SSO, audit logs and page-level permissions |

## Free trial

Every new organization gets a **14-day free trial of the Business plan**. No credit card is
required. Three days before the trial ends, Owners get an email reminder. If no plan is chosen,
the organization moves to the Free plan.
"""
CITED = re.compile(r"(?<=[.!])\s\[([^\]]+)\]")


def test_units_join_wrapped_lines_render_table_rows_and_drop_heading_markers() -> None:
    units = text_units(BILLING)
    texts = [u.text for u in units]
    assert "If no plan is chosen, the organization moves to the Free plan." in texts
    assert "You can pay monthly or annually; annual billing saves 20%." in texts
    assert (
        "Plan: Team; Billed monthly: $10; Billed annually: $8; "
        "Best for: Growing teams that need more storage and integrations."
    ) in texts
    assert [u.text for u in units if u.kind == "heading"] == ["Billing and plans", "Plans and prices", "Free trial"]
    assert not any(t.startswith("#") or "|" in t or "**" in t for t in texts)
    assert {u.section for u in units if u.kind == "row"} == {"Plans and prices"}
    assert "Billing and plans" not in split_sentences(BILLING)  # headings are not sentences


def test_units_of_lists_setext_headings_flattened_html_and_code() -> None:
    text = (
        "NOTES\n=====\nNew\n- Page analytics: see views for the last\n  90 days (Business).\n- Swimlanes\n\n"
        "Response times depend on your plan:\nPlan Support\nFree Community forum\n"
        "| Team | $8 |\n```\ncurl -X POST /v2/pages\n```"
    )
    units = [(u.kind, u.text) for u in text_units(text)]
    assert units == [
        ("heading", "NOTES"),
        ("sentence", "New"),
        ("item", "Page analytics: see views for the last 90 days (Business)."),
        ("item", "Swimlanes"),
        ("sentence", "Response times depend on your plan:"),
        ("sentence", "Plan Support"),
        ("sentence", "Free Community forum"),
        ("row", "Team; $8."),
        ("code", "curl -X POST /v2/pages"),
    ]


def test_candidates_are_complete_sentences_once_each_with_their_best_chunk() -> None:
    contexts = [
        RetrievedChunk("b#1", "the end of a cut sentence. Owners can pay by card.\n## Cards\nIs it free?"),
        RetrievedChunk("b#0", "Owners can pay by card. It is charged monthly. Short one."),
    ]
    pool = candidates(contexts)
    assert [(c.text, c.chunk_id) for c in pool] == [
        ("Owners can pay by card.", "b#1"),
        ("It is charged monthly.", "b#0"),
    ]
    assert pool[1].rendered() == "Owners can pay by card. It is charged monthly."  # the pronoun's referent


def test_lexical_score_weights_rare_question_terms() -> None:
    scores = lexical_scores(
        "Which plans have SCIM?",
        ["SCIM is on Enterprise.", "Every plan has a trial.", "Each plan lists SCIM.", "A plan."],
    )
    assert scores[2] == pytest.approx(1.0) and scores[0] > scores[1] > 0  # "plans" matches "plan"
    assert lexical_scores("the of and", ["anything"]).tolist() == [0.0]


def test_mmr_skips_a_near_duplicate_and_stops_below_the_keep_ratio() -> None:
    relevance = np.array([0.9, 0.88, 0.8, 0.3])
    similarity = np.array([[1, 0.99, 0.2, 0], [0.99, 1, 0.2, 0], [0.2, 0.2, 1, 0], [0, 0, 0, 1]])
    assert select_mmr(relevance, similarity) == [0, 2, 1]
    assert select_mmr(relevance, similarity, limit=2) == [0, 2]
    assert select_mmr(np.array([]), np.zeros((0, 0))) == []


def test_answers_cite_each_sentence_and_abstain_off_topic() -> None:
    contexts = [RetrievedChunk("billing.md#0", BILLING)]
    answer = extract_answer("How long is the free trial?", contexts, HashEmbedder(dim=256))
    assert "14-day free trial" in answer
    assert CITED.findall(answer) and set(CITED.findall(answer)) == {"billing.md#0"}
    assert len(CITED.findall(answer)) == len(re.findall(r"\[", answer))  # a citation after each sentence
    assert extract_answer("zebra quantum moons?", contexts, HashEmbedder(dim=256)) == ABSTAIN_ANSWER
    assert claim_sentences(ABSTAIN_ANSWER) == []  # a refusal, not a claim
    assert extract_answer("anything", [RetrievedChunk("x#0", "# Only a heading")], HashEmbedder(dim=8)) == ""


@pytest.mark.slow  # loads the local ONNX model (~2 s)
def test_price_question_picks_the_price_row_of_the_real_sample_file() -> None:
    text = (Path(__file__).parents[2] / "sample_data/corpus/billing-and-plans.md").read_text()
    answer = extract_answer(
        "How much does the Team plan cost per member if we pay annually?",
        [RetrievedChunk("billing-and-plans.md#0", text)],
        make_embedder("local"),
    )
    assert "Plan: Team; Billed monthly: $10; Billed annually: $8;" in answer
    sentences = split_sentences(answer)
    assert 1 <= len(sentences) <= 3 + 1 and all(s.endswith((".", "!")) and s[0].isupper() for s in sentences)
    assert "#" not in re.sub(r"\[[^\]]+\]", "", answer) and "|" not in answer


def test_context_index_embeds_sentences_once_and_derives_pair_vectors() -> None:
    embedder = HashEmbedder(dim=64)
    index = ContextIndex.build([("billing.md#0", BILLING)], embedder)
    sentences = split_sentences(BILLING)
    assert embedder.stats.texts == len(sentences) and embedder.stats.calls == 1  # no pair is embedded
    assert len(index.units) == 2 * len(sentences) - 1
    a, b = embedder.embed(sentences[:2])
    expected = (a + b) / np.linalg.norm(a + b)
    assert np.allclose(index.vectors[len(sentences)], expected, atol=1e-6)
    assert index.units[len(sentences)] == f"{sentences[0]} {sentences[1]}"


def test_offline_scoring_embeds_an_items_texts_in_one_call() -> None:
    from ragcov_tui.evaluation.generation import GENERATION_METRICS, GenerationInput, score_generation
    from ragcov_tui.evaluation.systems.base import SystemOutput

    chunk = RetrievedChunk("billing.md#0", BILLING)
    item = GenerationInput(
        question="What does Team cost annually?",
        contexts=[chunk],
        answer="Plan: Team; Billed monthly: $10; Billed annually: $8. [billing.md#0]",
        ground_truth="$8 per member per month billed annually.",
        paraphrase_outputs=[SystemOutput("Team is $8 a month on annual billing.", [chunk])],
        paraphrases=["Annual Team price?"],
    )
    embedder = HashEmbedder(dim=64)
    scores = score_generation(item, llm=None, embedder=embedder, metrics=set(GENERATION_METRICS))
    assert embedder.stats.calls == 1 and not scores.errors
    assert scores.values["faithfulness"] == 1.0  # the answer's row is a context unit verbatim
    empty = HashEmbedder(dim=64)
    score_generation(
        GenerationInput(question="q", answer="", contexts=[]), llm=None, embedder=empty, metrics=set(GENERATION_METRICS)
    )
    assert empty.stats.texts == 0  # nothing to compare: nothing embedded
