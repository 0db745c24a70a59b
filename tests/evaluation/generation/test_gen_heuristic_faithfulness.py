"""The offline faithfulness heuristic: rules checked with the hash embedder, and accuracy measured
on a hand-labelled set with the real local MiniLM embedder.

The labelled set (faithfulness_labelled.json) has a "dev" part, used to calibrate the support
threshold, and a "test" part that measures the heuristic. Labels: supported / contradicted /
not_found.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragcov_tui.embeddings.factory import make_embedder
from ragcov_tui.evaluation.generation import GenerationInput, score_generation
from ragcov_tui.evaluation.generation.support import ContextIndex, claim_sentences, judge_claims
from ragcov_tui.evaluation.systems.base import RetrievedChunk

LABELLED = json.loads((Path(__file__).parent / "faithfulness_labelled.json").read_text())
PRICING = [("billing.md#0", "The Pro plan costs $49 per month. Refunds are available within 30 days.")]


def verdicts(claims: list[str], passages, spec: str = "hash") -> list[dict]:
    embedder = make_embedder(spec)
    return judge_claims(claims, ContextIndex.build(passages, embedder), embedder)


def test_verbatim_claim_is_supported_and_names_its_chunk() -> None:
    [v] = verdicts(["The Pro plan costs $49 per month."], PRICING)
    assert v["verdict"] == "supported" and v["chunk_id"] == "billing.md#0"


def test_a_made_up_figure_fails_even_when_the_words_match() -> None:
    [v] = verdicts(["Refunds are available within 45 days."], PRICING)
    assert v["verdict"] == "contradicted" and "45 days" in v["reason"] and v["chunk_id"] is None
    [w] = verdicts(["The Pro plan costs $49 per month for 3 projects."], PRICING)
    assert w["verdict"] == "not_found" and "3" in w["reason"]


def test_flipped_negation_is_contradicted() -> None:
    [v] = verdicts(["Refunds are not available within 30 days."], PRICING)
    assert v["verdict"] == "contradicted"


def test_claims_skip_pleasantries_and_refusals() -> None:
    assert claim_sentences("Refunds take 30 days [a#1]. I hope this helps! Let me know.") == ["Refunds take 30 days."]
    assert claim_sentences("I don't know. The context does not mention it.") == []


def test_faithfulness_heuristic_through_score_generation() -> None:
    chunk = RetrievedChunk("billing.md#0", PRICING[0][1])
    item = GenerationInput(
        question="What does Pro cost?",
        answer="The Pro plan costs $49 per month. It costs $59 per year.",
        contexts=[chunk],
    )
    s = score_generation(item, llm=None, embedder=make_embedder("hash"), metrics={"faithfulness"})
    assert s.values["faithfulness"] == 0.5 and s.judge == "heuristic"
    assert s.details["faithfulness"]["unsupported"] == ["It costs $59 per year."]
    empty = score_generation(
        GenerationInput(question="q", answer="I don't know.", contexts=[chunk]),
        llm=None,
        embedder=make_embedder("hash"),
        metrics={"faithfulness"},
    )
    assert empty.values["faithfulness"] is None and "no factual claim" in empty.undefined["faithfulness"]
    nothing = score_generation(
        GenerationInput(question="q", answer="Pro costs $49.", contexts=[]),
        llm=None,
        embedder=make_embedder("hash"),
        metrics={"faithfulness"},
    )
    assert nothing.values["faithfulness"] == 0.0


def accuracy(split: str) -> tuple[float, float, list[str]]:
    cases = LABELLED[split]
    got = verdicts([c["claim"] for c in cases], list(LABELLED["contexts"].items()), spec="local")
    three = [g["verdict"] == c["label"] for g, c in zip(got, cases, strict=True)]
    two = [(g["verdict"] == "supported") == (c["label"] == "supported") for g, c in zip(got, cases, strict=True)]
    wrong = [
        f"{c['claim']!r}: {c['label']} → {g['verdict']}" for g, c, ok in zip(got, cases, three, strict=True) if not ok
    ]
    return sum(three) / len(cases), sum(two) / len(cases), wrong


@pytest.mark.slow  # loads the ONNX model: ~6 s
def test_labelled_set_accuracy_with_the_local_embedder() -> None:
    assert len(LABELLED["test"]) >= 12
    acc3, acc2, wrong = accuracy("test")
    # measured: 37/38 on three classes (0.974), 0.974 supported-vs-not; the miss is a semantic
    # contradiction without figures or negation ("weekends" vs "weekdays only")
    assert acc3 >= 0.85, wrong
    assert acc2 >= 0.9, wrong
    dev3, _, _ = accuracy("dev")  # measured 15/18 = 0.833
    assert dev3 >= 0.75
