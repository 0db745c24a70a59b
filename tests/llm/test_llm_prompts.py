"""Every LLM prompt as one typed object (issue #29 §5): it renders the very requests ragcov sent before
the prompts were objects, parses a good reply into its output type and refuses a malformed one with
one line.

``prompt_requests.json`` holds the first request of each case below (messages, reply schema
fingerprint, ``response_format`` with the local bounds, ``max_tokens``, ``logprobs``) as the code
before the objects sent it (each prompt called through its old call site with a recording model).
The messages and those parameters are the LLM cache key of every stored reply: a test failing here
means every user's cached replies would be asked again. Change the file only on purpose, and say so.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ragcov_tui.coverage.gap_prompts import MORE_QUESTIONS, THEMES, GapPassages, GapQuestions
from ragcov_tui.evaluation.compare import PAIRWISE, AnswerOrder
from ragcov_tui.evaluation.generation.claim_prompts import (
    DECOMPOSE,
    VERIFY,
    VERIFY_ONE,
    ClaimInPassages,
    ClaimsInPassages,
    ClaimSource,
)
from ragcov_tui.evaluation.generation.judge import Judge, JudgeError
from ragcov_tui.evaluation.generation.prompts import (
    ABSTENTION,
    AGREEMENT,
    CORRECTNESS,
    PARAPHRASE,
    RELEVANCE,
    USEFULNESS,
    AnswerPair,
    AnswerReference,
    ParaphraseRequest,
    QuestionAnswer,
    ReferencePassages,
    Scored,
)
from ragcov_tui.evaluation.references import REFERENCE, JudgedQuery, Passage
from ragcov_tui.evaluation.systems.base import RetrievedChunk
from ragcov_tui.evaluation.systems.builtin import CITED_ANSWER, RetrievedQuestion
from ragcov_tui.llm.base import ChatReply
from ragcov_tui.llm.json_reply import ReplyError
from ragcov_tui.llm.prompt import JsonPrompt, Prompt, TextPrompt
from ragcov_tui.llm.reply_schemas import MAX_REPLY_TOKENS
from tests.evaluation.conftest import judge_server  # noqa: F401 (the fake OpenAI judge fixture)
from tests.evaluation.generation.gen_fake_judge import RuleJudge
from tests.support.fake_api import FakeAPIServer

Q = "What does the Pro plan cost?"
PASSAGES = [("pricing.md#1", "  The Pro plan costs $49 per month.  "), ("faq.md#2", "Seats: 5 per team.")]
LONG = "Refunds are issued within 14 days. " * 40
GOLDEN = json.loads((Path(__file__).parent / "prompt_requests.json").read_text(encoding="utf-8"))

# case name in prompt_requests.json -> (prompt, input, repeat)
CASES: dict[str, tuple[Prompt[Any, Any], Any, int]] = {
    "decompose": (DECOMPOSE, ClaimSource(Q, "It costs $49. Thanks!"), 0),
    "verify": (VERIFY, ClaimsInPassages(["Pro costs $49.", "Pro has 9 seats."], PASSAGES), 0),
    "verify_repeat": (VERIFY, ClaimsInPassages(["Pro costs $49."], []), 2),
    "verify_one": (VERIFY_ONE, ClaimInPassages("Pro costs $49.", PASSAGES), 1),
    "relevance": (RELEVANCE, QuestionAnswer(Q, "It is $49. [pricing.md#1]"), 0),
    "relevance_repeat": (RELEVANCE, QuestionAnswer(Q, "It is $49. [pricing.md#1]"), 3),
    "correctness": (CORRECTNESS, AnswerReference(Q, "$99.", "$49 per month."), 0),
    "abstention": (ABSTENTION, QuestionAnswer(Q, "I don't know."), 0),
    "usefulness": (USEFULNESS, ReferencePassages(Q, "$49 per month.", PASSAGES), 0),
    "usefulness_none": (USEFULNESS, ReferencePassages(Q, "$49 per month.", []), 0),
    "agreement": (AGREEMENT, AnswerPair(Q, "$49.", "It costs $49 a month."), 0),
    "paraphrase": (PARAPHRASE, ParaphraseRequest(Q, 3), 0),
    "pairwise": (PAIRWISE, AnswerOrder(Q, "Answer one.", "Answer two."), 0),
    "themes": (THEMES, GapPassages([LONG] + [f"Passage text {i}." for i in range(7)], 5, 3), 0),
    "cited_answer": (
        CITED_ANSWER,
        RetrievedQuestion(
            Q, [RetrievedChunk("pricing.md#1", "Pro costs $49.", 0.9), RetrievedChunk("faq.md#2", "Seats: 5.", 0.5)]
        ),
        0,
    ),
    "cited_answer_none": (CITED_ANSWER, RetrievedQuestion(Q, []), 0),
    "reference": (
        REFERENCE,
        JudgedQuery(Q, [Passage("d1", "Pro costs $49.", 2.0), Passage("d2", "Seats: 5.", 1.0)]),
        0,
    ),
    "more_questions": (MORE_QUESTIONS, GapQuestions(["Billing", "Seats"], PASSAGES, ["Is there a «free» plan?"], 3), 0),
    "more_questions_unknown": (MORE_QUESTIONS, GapQuestions([], PASSAGES, [], 3), 0),
}
PROMPTS = list({id(p): p for p, _, _ in CASES.values()}.values())


def _request(prompt: Prompt[Any, Any], data: Any, repeat: int) -> dict[str, Any]:
    """The first request the prompt makes for ``data``, as prompt_requests.json records it."""
    request: dict[str, Any] = {
        "messages": prompt.messages(data, repeat),
        "logprobs": 0,
        "schema": None,
        "response_format": None,
    }
    if isinstance(prompt, JsonPrompt):
        schema = prompt.reply_schema(data)
        request.update(
            max_tokens=schema.max_tokens,
            schema=schema.fingerprint(),
            response_format=schema.response_format(bounded=True),
        )
    elif isinstance(prompt, TextPrompt):
        request["max_tokens"] = prompt.max_tokens
    else:
        request.update(max_tokens=VERIFY_ONE.max_tokens, logprobs=VERIFY_ONE.logprobs)
    return request


@pytest.mark.parametrize("case", list(CASES))
def test_a_prompt_renders_the_request_sent_before_it_was_an_object(case: str) -> None:
    prompt, data, repeat = CASES[case]
    assert _request(prompt, data, repeat) == GOLDEN[case]


def test_every_prompt_class_is_in_the_table_and_every_golden_case_is_checked() -> None:
    def concrete(cls: type) -> set[type]:
        found: set[type] = {cls} if not getattr(cls, "__abstractmethods__", None) else set()
        subclasses: list[type] = cls.__subclasses__()
        return found.union(*(concrete(sub) for sub in subclasses))

    assert concrete(Prompt) == {type(p) for p in PROMPTS}
    assert set(CASES) == set(GOLDEN)
    assert len({p.name for p in PROMPTS}) == len(PROMPTS)


@pytest.mark.parametrize("prompt", PROMPTS, ids=[p.name for p in PROMPTS])
def test_a_good_reply_parses_to_the_typed_output(prompt: Prompt[Any, Any]) -> None:
    assert prompt.examples or prompt is VERIFY_ONE  # VERIFY_ONE reads token probabilities: below
    for example in prompt.examples:
        assert prompt.parse(example.input, ChatReply(text=example.reply)) == example.output


BAD_REPLIES: list[tuple[Prompt[Any, Any], Any, str, str]] = [  # prompt, input, reply, the one-line error
    (
        DECOMPOSE,
        CASES["decompose"][1],
        "I cannot find claims.",
        "no JSON object or array found in the reply ('I cannot find claims.')",
    ),
    (DECOMPOSE, CASES["decompose"][1], '{"claims": "one"}', 'expected {"claims": [...]}'),
    (DECOMPOSE, CASES["decompose"][1], '{"claims": [1]}', "every claim must be a string"),
    (VERIFY, CASES["verify"][1], '{"verdicts": [{"verdict": "supported"}]}', "expected 2 verdicts, got 1"),
    (
        VERIFY,
        CASES["verify"][1],
        '{"verdicts": [{"verdict": "supported"}, {"verdict": "maybe"}]}',
        "verdict 2 must be one of supported, contradicted, not_found",
    ),
    (RELEVANCE, CASES["relevance"][1], '{"score": 1.5}', 'field "score" must be a number from 0 to 1, got 1.5'),
    (RELEVANCE, CASES["relevance"][1], '{"score": NaN}', "the reply's JSON is not usable: "),
    (CORRECTNESS, CASES["correctness"][1], '{"correct": "yes"}', 'field "correct" is missing or has the wrong type'),
    (ABSTENTION, CASES["abstention"][1], '["no"]', "expected a JSON object"),
    (USEFULNESS, CASES["usefulness"][1], '{"verdicts": []}', "expected 2 items in verdicts, got 0"),
    (
        USEFULNESS,
        CASES["usefulness"][1],
        '{"verdicts": [{"useful": 1}, {"useful": true}]}',
        'every item needs a boolean "useful"',
    ),
    (AGREEMENT, CASES["agreement"][1], '{"verdict": "kinda"}', 'verdict must be "same", "partial" or "different"'),
    (
        PARAPHRASE,
        CASES["paraphrase"][1],
        json.dumps({"paraphrases": [Q, "How much is Pro?"]}),
        "expected 3 distinct paraphrases that differ from the question",
    ),
    (PAIRWISE, CASES["pairwise"][1], '{"better": "3"}', 'expected {"better": "1" | "2" | "tie", "reason": "..."}'),
    (THEMES, CASES["themes"][1], '{"themes": [], "questions": ["q"]}', "'themes' must be a non-empty list of strings"),
    (THEMES, CASES["themes"][1], "[1]", "expected a JSON object with 'themes' and 'questions'"),
    (MORE_QUESTIONS, CASES["more_questions"][1], '{"questions": [1]}', "every question must be a string"),
]


@pytest.mark.parametrize(
    ("prompt", "data", "reply", "error"), BAD_REPLIES, ids=[f"{p.name}-{i}" for i, (p, *_) in enumerate(BAD_REPLIES)]
)
def test_a_malformed_reply_raises_one_line_saying_why(
    prompt: Prompt[Any, Any], data: Any, reply: str, error: str
) -> None:
    with pytest.raises(ReplyError) as raised:
        prompt.parse(data, ChatReply(text=reply))
    assert str(raised.value).startswith(error) and "\n" not in str(raised.value)


def test_every_json_prompt_has_a_malformed_reply_case() -> None:
    assert {p.name for p in PROMPTS if isinstance(p, JsonPrompt)} == {p.name for p, *_ in BAD_REPLIES}


def test_the_graded_prompt_reads_the_verdict_token_probabilities() -> None:
    data = CASES["verify_one"][1]
    assert VERIFY_ONE.parse(data, ChatReply(text="yes", top_logprobs=[{" yes": -0.1, " no": -2.4}])) == pytest.approx(
        0.9, abs=0.01
    )
    with pytest.raises(ReplyError, match=r"no token probabilities \(logprobs\); use --judge-mode claim"):
        VERIFY_ONE.parse(data, ChatReply(text="yes"))
    with pytest.raises(ReplyError, match="neither yes nor no among the likeliest first tokens"):
        VERIFY_ONE.parse(data, ChatReply(text="Maybe", top_logprobs=[{"Maybe": -0.1}]))


@pytest.mark.parametrize("prompt", [p for p in PROMPTS if isinstance(p, JsonPrompt)], ids=lambda p: p.name)
def test_reply_caps_stay_bounded(prompt: JsonPrompt[Any, Any]) -> None:
    data = next(d for p, d, _ in CASES.values() if p is prompt)
    assert 0 < prompt.reply_schema(data).max_tokens <= MAX_REPLY_TOKENS


def test_judge_ask_returns_the_prompts_typed_output_and_logs_the_call(judge_server: FakeAPIServer) -> None:  # noqa: F811
    from ragcov_tui.llm.openai_chat import OpenAIChat

    calls: list[dict[str, Any]] = []
    judge = Judge(OpenAIChat("gpt-4o-mini"), 1, calls)
    scored = judge.ask("answer_relevance", RELEVANCE, QuestionAnswer(Q, "$49 a month."))
    assert isinstance(scored, Scored) and scored == Scored(1.0, "rule")  # the rule judge: 0.8 + 0.2 on repeat 1
    assert (
        calls[-1]["prompt"] == RELEVANCE.messages(QuestionAnswer(Q, "$49 a month."), 1) and calls[-1]["error"] is None
    )
    rule_judge = judge_server.chat_handler
    assert isinstance(rule_judge, RuleJudge)
    rule_judge.overrides["relevance"] += ['{"score": 7}', '{"score": 8}']
    with pytest.raises(JudgeError, match='after one repair: field "score" must be a number from 0 to 1, got 8'):
        judge.ask("answer_relevance", RELEVANCE, QuestionAnswer(Q, "Something else."))
    assert calls[-1]["raw"] == '{"score": 8}'
