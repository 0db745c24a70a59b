"""Every judge call carries its reply schema and a token cap, and the builtin system's answers a cap
(issue #14 items 7 and 8), seen from the server's side: ``ragcov eval`` with every metric against
the fake API server, whose rule judge answers each prompt."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragcov_tui.cli.main import main
from ragcov_tui.coverage.gap_prompts import MORE_QUESTIONS, GapQuestions
from ragcov_tui.evaluation.generation.claim_prompts import VERIFY, ClaimsInPassages
from ragcov_tui.evaluation.generation.prompts import PARAPHRASE, USEFULNESS, ParaphraseRequest, ReferencePassages
from ragcov_tui.evaluation.systems.builtin import ANSWER_MAX_TOKENS, CITED_ANSWER
from ragcov_tui.llm import reply_schemas
from ragcov_tui.llm.prompt import JsonPrompt
from ragcov_tui.llm.reply_schemas import ReplySchema
from tests.evaluation.conftest import judge_server  # noqa: F401 (the fake OpenAI judge fixture)
from tests.llm.test_llm_prompts import CASES

REPO = Path(__file__).resolve().parents[2]
SCHEMAS = {
    s.name: s
    for prompt, data, _ in CASES.values()
    if isinstance(prompt, JsonPrompt)
    for s in [prompt.reply_schema(data)]
}


def test_every_judge_request_has_a_schema_and_a_cap(judge_server, tmp_path: Path) -> None:  # noqa: F811
    rows = [json.loads(line) for line in (REPO / "sample_data" / "questions.jsonl").read_text().splitlines()[:4]]
    questions = tmp_path / "q.jsonl"
    questions.write_text("".join(json.dumps(r) + "\n" for r in rows))
    rule_judge = judge_server.chat_handler
    judge_server.chat_handler = lambda messages, body: (
        "The Team plan costs $8 per member per month. [billing-and-plans.md]"
        if messages[0]["content"] == CITED_ANSWER.instruction
        else rule_judge(messages, body)
    )
    code = main(
        [
            "eval",
            "-q",
            "--db",
            str(tmp_path / "r.db"),
            "--questions",
            str(questions),
            "--corpus",
            str(REPO / "sample_data" / "corpus"),
            "--system",
            "builtin:bm25",
            "--embedder",
            "hash",
            "--llm",
            "openai:gpt-4o-mini",
            "--paraphrases",
            "1",
            "--json",
            str(tmp_path / "r.json"),
        ]
    )
    assert code == 0
    chats = [r.body for r in judge_server.requests if r.path.endswith("/chat/completions")]
    judged = [b for b in chats if "response_format" in b]
    answers = [b for b in chats if "response_format" not in b]
    names = {b["response_format"]["json_schema"]["name"] for b in judged}
    assert {"claims", "claim_verdicts", "relevance_score", "correctness", "passage_usefulness"} <= names
    for body in judged:
        fmt = body["response_format"]
        assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
        assert fmt["json_schema"]["schema"] == SCHEMAS[fmt["json_schema"]["name"]].schema or fmt["json_schema"][
            "name"
        ] in ("claim_verdicts", "passage_usefulness", "paraphrases")
        assert 0 < body["max_tokens"] <= reply_schemas.MAX_REPLY_TOKENS
    assert answers and all(b["max_tokens"] == ANSWER_MAX_TOKENS for b in answers)


def _strict(schema: object) -> list[str]:
    """Where ``schema`` breaks OpenAI's strict mode: an object without every property required or
    without ``additionalProperties: false``, or a length / count keyword."""
    problems = []
    if isinstance(schema, dict):
        if schema.get("type") == "object":
            if sorted(schema.get("required", [])) != sorted(schema.get("properties", {})):
                problems.append("not every property required")
            if schema.get("additionalProperties") is not False:
                problems.append("additionalProperties is not false")
        problems += [k for k in ("maxLength", "minLength", "maxItems", "minItems") if k in schema]
        for value in schema.values():
            problems += _strict(value)
    elif isinstance(schema, list):
        for value in schema:
            problems += _strict(value)
    return problems


@pytest.mark.parametrize("schema", list(SCHEMAS.values()), ids=list(SCHEMAS))
def test_every_schema_keeps_to_openai_strict_mode(schema: ReplySchema) -> None:
    assert _strict(schema.schema) == []
    assert schema.response_format()["json_schema"]["strict"] is True


@pytest.mark.parametrize("schema", list(SCHEMAS.values()), ids=list(SCHEMAS))
def test_the_local_bounds_only_add_lengths_and_counts(schema: ReplySchema) -> None:
    bounded = schema.response_format(bounded=True)["json_schema"]["schema"]
    text = json.dumps(bounded)
    assert "maxLength" in text and _strict(bounded) and set(_strict(bounded)) <= {"maxLength", "maxItems"}


@pytest.mark.parametrize("n", [0, 1, 3, 10, 50, 1000])
def test_caps_grow_with_the_items_asked_and_stay_bounded(n: int) -> None:
    makers = [
        lambda n: VERIFY.reply_schema(ClaimsInPassages(["c"] * n, [])),
        lambda n: USEFULNESS.reply_schema(ReferencePassages("q", "r", [("p", "t")] * n)),
        lambda n: PARAPHRASE.reply_schema(ParaphraseRequest("q", n)),
        lambda n: MORE_QUESTIONS.reply_schema(GapQuestions([], [], [], n)),
    ]
    for make in makers:
        cap = make(n).max_tokens
        assert reply_schemas.BASE_TOKENS < cap <= reply_schemas.MAX_REPLY_TOKENS
        assert make(n + 1).max_tokens >= cap
