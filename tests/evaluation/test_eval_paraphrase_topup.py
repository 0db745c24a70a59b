"""``--paraphrases N``: the test file's paraphrases first, topped up to N by the paraphrase LLM."""

from __future__ import annotations

import json

from ragcov_tui.evaluation.items import EvalContext, paraphrases_for
from ragcov_tui.llm.base import ChatModel, ChatReply, Message
from ragcov_tui.llm.structured import ReplySchema
from ragcov_tui.testset.models import Question


class Paraphraser(ChatModel):
    provider, model = "scripted", "para"

    def chat(
        self,
        messages: list[Message],
        *,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        json_mode: bool | ReplySchema = False,
        logprobs: int = 0,
    ) -> ChatReply:
        return ChatReply(
            json.dumps(
                {"paraphrases": ["What's the price of Team?", "Team plan cost per seat?", "How much is the Team plan?"]}
            )
        )


def ctx(n: int, llm: ChatModel | None) -> EvalContext:
    return EvalContext(
        system=None,  # type: ignore[arg-type]  # a top-up reads none of system, embedder, index
        embedder=None,  # type: ignore[arg-type]
        k=5,
        index=None,  # type: ignore[arg-type]
        retrieval_metrics=[],
        generation_metrics=[],
        paraphrase_llm=llm,
        paraphrases=n,
    )


def test_file_paraphrases_are_topped_up_without_repeating_them() -> None:
    q = Question(id="q1", text="How much does Team cost?", paraphrases=["How much is the Team plan?"])
    texts, origin = paraphrases_for(ctx(3, Paraphraser()), q)
    assert texts == ["How much is the Team plan?", "What's the price of Team?", "Team plan cost per seat?"]
    assert origin == "test file + llm:scripted:para"


def test_enough_file_paraphrases_or_no_llm_use_the_file_only() -> None:
    q = Question(id="q1", text="How much does Team cost?", paraphrases=["a?", "b?", "c?"])
    assert paraphrases_for(ctx(2, Paraphraser()), q) == (["a?", "b?"], "test file")
    assert paraphrases_for(ctx(5, None), q) == (["a?", "b?", "c?"], "test file")
    assert paraphrases_for(ctx(0, None), Question(id="q2", text="x")) == ([], "")
