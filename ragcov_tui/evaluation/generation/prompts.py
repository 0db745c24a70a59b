"""The judge prompts of the answer-level metrics, and the paraphrase writer.

Each is a :class:`~ragcov_tui.llm.prompt.JsonPrompt` (instruction, user message, reply schema, a
``read`` that checks the reply and gives its typed output); the claim prompts are in
:mod:`~ragcov_tui.evaluation.generation.claim_prompts`. Free-text fields (``reason``,
``rationale``) come back as ``""`` when a reply leaves them out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ragcov_tui.evaluation.generation.claim_prompts import Passages, passages_block
from ragcov_tui.llm.json_reply import ReplyError
from ragcov_tui.llm.prompt import Example, JsonPrompt
from ragcov_tui.llm.reply_checks import expect_bool_list, expect_fields, expect_score, reason
from ragcov_tui.llm.reply_schemas import (
    BASE_TOKENS,
    ITEM_CHARS,
    STRING,
    STRINGS,
    TOKENS_PER_ITEM,
    TOKENS_PER_REASON,
    ReplySchema,
    cap,
    json_object,
)

AGREEMENT_VERDICTS = ("same", "partial", "different")


@dataclass(frozen=True)
class QuestionAnswer:
    question: str
    answer: str


@dataclass(frozen=True)
class AnswerReference:
    question: str
    answer: str
    reference: str


@dataclass(frozen=True)
class ReferencePassages:
    question: str
    reference: str
    passages: Passages


@dataclass(frozen=True)
class AnswerPair:
    """Two answers to one question (asked in different words)."""

    question: str
    first: str
    second: str


@dataclass(frozen=True)
class ParaphraseRequest:
    question: str
    n: int


@dataclass(frozen=True)
class Judged:
    """A judge's yes / no (``verdict``) with its reason."""

    verdict: bool
    reason: str


@dataclass(frozen=True)
class Scored:
    score: float
    reason: str


@dataclass(frozen=True)
class Agreement:
    verdict: str  # one of AGREEMENT_VERDICTS
    reason: str


class RelevancePrompt(JsonPrompt[QuestionAnswer, Scored]):
    name = "relevance_score"
    instruction = """Rate how well an answer addresses a question. Judge relevance only, not truth.
1.0 = addresses exactly what was asked, directly and completely; 0.5 = partly addresses it or
buries it in unrelated content; 0.0 = does not address it, evades or refuses.
Reply with JSON only: {"score": <number from 0 to 1>, "reason": "<short reason>"}"""
    examples = (
        Example(
            QuestionAnswer("What does Pro cost?", "$49 a month."),
            '{"score": 1, "reason": "direct"}',
            Scored(1.0, "direct"),
        ),
    )

    def user(self, data: QuestionAnswer) -> str:
        return f"Question: {data.question}\n\nAnswer: {data.answer}"

    def reply_schema(self, data: QuestionAnswer) -> ReplySchema:
        return ReplySchema(
            self.name, json_object(score={"type": "number"}, reason=STRING), BASE_TOKENS + TOKENS_PER_REASON
        )

    def read(self, data: QuestionAnswer, value: Any) -> Scored:
        checked = expect_score(value)
        return Scored(float(checked["score"]), reason(checked))


class CorrectnessPrompt(JsonPrompt[AnswerReference, Judged]):
    name = "correctness"
    instruction = """Decide whether an answer is correct with respect to a reference answer.
It is correct when it agrees with the reference on every point the question asks about; extra
correct detail is fine, wording may differ. A contradiction, a wrong figure or a missing key fact
makes it incorrect.
Reply with JSON only: {"correct": true | false, "rationale": "<one or two sentences>"}"""
    examples = (
        Example(
            AnswerReference("What does Pro cost?", "$99.", "$49 a month."),
            '{"correct": false, "rationale": "wrong figure"}',
            Judged(False, "wrong figure"),
        ),
    )

    def user(self, data: AnswerReference) -> str:
        return f"Question: {data.question}\n\nReference answer: {data.reference}\n\nAnswer: {data.answer}"

    def reply_schema(self, data: AnswerReference) -> ReplySchema:
        return ReplySchema(
            self.name, json_object(correct={"type": "boolean"}, rationale=STRING), BASE_TOKENS + 2 * TOKENS_PER_REASON
        )

    def read(self, data: AnswerReference, value: Any) -> Judged:
        checked = expect_fields(value, correct=bool)
        return Judged(checked["correct"], reason(checked, "rationale"))


class AbstentionPrompt(JsonPrompt[QuestionAnswer, Judged]):
    name = "abstention"
    instruction = """Decide whether a question-answering system abstained: declined to answer instead of answering.
It abstained when it says it does not know, that the information is not available or not in its
sources, that the question cannot be answered, or refuses. It did not abstain when it states an
answer to the question, even a hedged, partial or wrong one.
Reply with JSON only: {"abstained": true | false, "reason": "<short reason>"}"""
    examples = (
        Example(QuestionAnswer("What does Pro cost?", "I don't know."), '{"abstained": true}', Judged(True, "")),
    )

    def user(self, data: QuestionAnswer) -> str:
        return f"Question: {data.question}\n\nAnswer: {data.answer}"

    def reply_schema(self, data: QuestionAnswer) -> ReplySchema:
        return ReplySchema(
            self.name, json_object(abstained={"type": "boolean"}, reason=STRING), BASE_TOKENS + TOKENS_PER_REASON
        )

    def read(self, data: QuestionAnswer, value: Any) -> Judged:
        checked = expect_fields(value, abstained=bool)
        return Judged(checked["abstained"], reason(checked))


class UsefulnessPrompt(JsonPrompt[ReferencePassages, list[Judged]]):
    """One verdict per passage, in passage order: is it useful for arriving at the reference answer?"""

    name = "passage_usefulness"
    instruction = """Given a question and its reference answer, decide for each passage whether it is
useful for arriving at the reference answer (it states facts the reference answer relies on).
Reply with JSON only, one verdict per passage, in order:
{"verdicts": [{"passage": "<passage id>", "useful": true | false, "reason": "<short reason>"}]}"""
    examples = (
        Example(
            ReferencePassages("What does Pro cost?", "$49 a month.", [("p#1", "Pro: $49."), ("p#2", "Hi.")]),
            '{"verdicts": [{"passage": "p#1", "useful": true, "reason": "states it"}, '
            '{"passage": "p#2", "useful": false}]}',
            [Judged(True, "states it"), Judged(False, "")],
        ),
    )

    def user(self, data: ReferencePassages) -> str:
        return (
            f"Question: {data.question}\n\nReference answer: {data.reference}\n\n"
            f"Passages:\n{passages_block(data.passages)}"
        )

    def reply_schema(self, data: ReferencePassages) -> ReplySchema:
        n = max(1, len(data.passages))
        item = json_object(passage=STRING, useful={"type": "boolean"}, reason=STRING)
        return ReplySchema(
            self.name,
            json_object(verdicts={"type": "array", "items": item}),
            cap(BASE_TOKENS + n * (TOKENS_PER_REASON + 30)),
            max_items=n,
        )

    def read(self, data: ReferencePassages, value: Any) -> list[Judged]:
        return [
            Judged(v["useful"], reason(v)) for v in expect_bool_list(value, "verdicts", "useful", len(data.passages))
        ]


class AgreementPrompt(JsonPrompt[AnswerPair, Agreement]):
    name = "agreement"
    instruction = """Two answers were given to the same question (asked in different words). Do they say
the same thing?
- "same": each answer entails the other (the same facts; wording may differ).
- "partial": they agree in part, but one adds or omits a key fact, or hedges where the other does not.
- "different": they contradict each other or answer differently.
Reply with JSON only: {"verdict": "same" | "partial" | "different", "reason": "<short reason>"}"""
    examples = (
        Example(
            AnswerPair("What does Pro cost?", "$49.", "It is $49 a month."),
            '{"verdict": " Same "}',
            Agreement("same", ""),
        ),
    )

    def user(self, data: AnswerPair) -> str:
        return f"Question: {data.question}\n\nAnswer A: {data.first}\n\nAnswer B: {data.second}"

    def reply_schema(self, data: AnswerPair) -> ReplySchema:
        return ReplySchema(
            self.name,
            json_object(verdict={"type": "string", "enum": list(AGREEMENT_VERDICTS)}, reason=STRING),
            BASE_TOKENS + TOKENS_PER_REASON,
        )

    def read(self, data: AnswerPair, value: Any) -> Agreement:
        checked = expect_fields(value, verdict=str)
        verdict = checked["verdict"].strip().lower()
        if verdict not in AGREEMENT_VERDICTS:
            raise ReplyError('verdict must be "same", "partial" or "different"')
        return Agreement(verdict, reason(checked))


def distinct(items: list[Any], question: str) -> list[str]:
    """The non-blank strings of ``items``, stripped, without repeats or the question itself (case and
    spacing ignored)."""
    seen = {" ".join(question.lower().split())}
    out = []
    for item in items:
        if isinstance(item, str) and item.strip():
            key = " ".join(item.lower().split())
            if key not in seen:
                seen.add(key)
                out.append(item.strip())
    return out


class ParaphrasePrompt(JsonPrompt[ParaphraseRequest, list[str]]):
    """``n`` paraphrases of a question: the first ``n`` distinct ones that differ from it."""

    name = "paraphrases"
    instruction = """Rewrite a question in {n} different ways. Each paraphrase must keep the exact
meaning and have the same answer: change wording and sentence structure, but do not add, drop or
change any constraint, name or figure.
Reply with JSON only: {{"paraphrases": ["...", ...]}} with exactly {n} items."""
    examples = (
        Example(
            ParaphraseRequest("What does Pro cost?", 1),
            '{"paraphrases": ["what does pro cost?", "How much is Pro?"]}',
            ["How much is Pro?"],
        ),
    )

    def system(self, data: ParaphraseRequest) -> str:
        return self.instruction.format(n=data.n)

    def user(self, data: ParaphraseRequest) -> str:
        return f"Question: {data.question}"

    def reply_schema(self, data: ParaphraseRequest) -> ReplySchema:
        n = max(1, data.n)
        return ReplySchema(
            self.name,
            json_object(paraphrases=STRINGS),
            cap(BASE_TOKENS + n * TOKENS_PER_ITEM),
            max_items=n,
            max_chars=ITEM_CHARS,
        )

    def read(self, data: ParaphraseRequest, value: Any) -> list[str]:
        found = distinct(expect_fields(value, paraphrases=list)["paraphrases"], data.question)
        if len(found) < data.n:
            raise ReplyError(f"expected {data.n} distinct paraphrases that differ from the question")
        return found[: data.n]


RELEVANCE = RelevancePrompt()
CORRECTNESS = CorrectnessPrompt()
ABSTENTION = AbstentionPrompt()
USEFULNESS = UsefulnessPrompt()
AGREEMENT = AgreementPrompt()
PARAPHRASE = ParaphrasePrompt()
