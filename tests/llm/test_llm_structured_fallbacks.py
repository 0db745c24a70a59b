"""Structured output and its fallbacks, and context fitting, against the real local fake API server.

json_schema → json_object → prompt-only, each step only on a refusal of that format; a context
overflow trims the passages and never downgrades; each downgrade is said once and lasts the run.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from ragcov_tui.evaluation.generation.prompts import RELEVANCE, QuestionAnswer
from ragcov_tui.llm.base import JsonResult
from ragcov_tui.llm.context_window import TRIM_MARK
from ragcov_tui.llm.json_reply import complete_json
from ragcov_tui.llm.openai_chat import OpenAIChat
from ragcov_tui.llm.reply_schemas import ReplySchema
from ragcov_tui.shared.errors import ProviderError
from ragcov_tui.store.db import open_db
from tests.support.fake_api import FakeAPIServer, api_env

SCHEMA = RELEVANCE.reply_schema(QuestionAnswer("why?", "because."))
ASK = [
    {"role": "system", "content": "Rate it. Reply with JSON only."},
    {"role": "user", "content": "Question: why?\n\nAnswer: because."},
]
REPLY = '{"score": 1, "reason": "fine"}'
REFUSE_SCHEMA = json.dumps(
    {
        "error": {
            "message": "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
            "type": "invalid_request_error",
        }
    }
)
REFUSE_OBJECT = json.dumps(
    {
        "error": {
            "message": 'response_format type must be one of "text", got: json_object',
            "type": "invalid_request_error",
        }
    }
)
OVERFLOW = json.dumps(
    {
        "error": {
            "code": 400,
            "message": "request (3000 tokens) exceeds the available context size (1024 tokens), try increasing it",
            "type": "exceed_context_size_error",
            "n_prompt_tokens": 3000,
            "n_ctx": 1024,
        }
    }
)


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch):
    with FakeAPIServer() as srv:
        api_env(monkeypatch, srv, attempts=4)
        srv.chat_handler = lambda messages, body: REPLY
        yield srv


def formats(server: FakeAPIServer) -> list[str | None]:
    """The response_format type of every JSON chat request, in order (the warm-up left out)."""
    return [
        (r.body.get("response_format") or {}).get("type")
        for r in server.requests
        if r.path.endswith("/chat/completions") and r.body["messages"] != WARM_UP
    ]


WARM_UP = [{"role": "user", "content": "warm up"}]


def chats(server: FakeAPIServer) -> list:
    """The chat requests after the warm-up."""
    return [r for r in server.requests if r.path.endswith("/chat/completions") and r.body["messages"] != WARM_UP]


def model(**kwargs) -> OpenAIChat:
    """An OpenAIChat whose first request (and the one-time model-list check before it) is done, so
    that ``fail_next`` scripts the requests the test is about."""
    llm = OpenAIChat("m", **kwargs)
    llm.chat(WARM_UP)
    return llm


def test_a_schema_is_sent_as_strict_json_schema_with_its_cap(server: FakeAPIServer) -> None:
    result: JsonResult[Any] = complete_json(OpenAIChat("m"), ASK, schema=SCHEMA)
    assert result.ok and result.data == {"score": 1, "reason": "fine"}
    body = server.requests[-1].body
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "relevance_score", "schema": SCHEMA.schema, "strict": True},
    }
    assert body["max_tokens"] == SCHEMA.max_tokens


def test_a_refused_json_schema_falls_back_to_json_object_once_for_the_run(server: FakeAPIServer) -> None:
    warnings: list[str] = []
    llm = model(warn=warnings.append)
    server.fail_next(1, status=400, body=REFUSE_SCHEMA)
    assert complete_json(llm, ASK, schema=SCHEMA).ok
    assert complete_json(llm, [*ASK, {"role": "user", "content": "again"}], schema=SCHEMA).ok
    assert formats(server) == ["json_schema", "json_object", "json_object"]
    assert len(warnings) == 1 and "json_schema" in warnings[0] and "plain JSON mode" in warnings[0]
    assert llm.usage.as_dict()["failed"] == 0  # the refusal was a step down, not a failed call


def test_a_server_refusing_both_formats_gets_prompt_only(server: FakeAPIServer) -> None:
    warnings: list[str] = []
    llm = model(warn=warnings.append)
    server.fail_next(1, status=400, body=REFUSE_SCHEMA)
    server.fail_next(1, status=400, body=REFUSE_OBJECT)
    assert complete_json(llm, ASK, schema=SCHEMA).ok
    assert complete_json(llm, [*ASK, {"role": "user", "content": "again"}], schema=SCHEMA).ok
    assert formats(server) == ["json_schema", "json_object", None, None]
    assert len(warnings) == 2 and "prompt-only" in warnings[1]


def test_plain_json_mode_starts_at_json_object_and_steps_to_prompt_only(server: FakeAPIServer) -> None:
    llm = model()
    server.reject_response_format = True
    assert complete_json(llm, ASK).ok
    assert formats(server) == ["json_object", None]


def test_a_context_overflow_never_downgrades_and_trims_the_passages(server: FakeAPIServer) -> None:
    warnings: list[str] = []
    llm = model(warn=warnings.append)
    passages = "\n\n".join(f"[doc-{i}] " + "lorem ipsum dolor sit amet " * 120 for i in range(4))
    messages = [
        {"role": "system", "content": "Judge each claim. Reply with JSON only."},
        {"role": "user", "content": f"Passages:\n{passages}\n\nClaims:\n1. The sky is blue."},
    ]
    server.fail_next(1, status=400, body=OVERFLOW)
    result: JsonResult[Any] = complete_json(llm, messages, schema=SCHEMA)
    assert result.ok
    sent_requests = chats(server)
    assert len(sent_requests) == 2  # the overflow, then the trimmed prompt: no retry of the same prompt
    assert formats(server) == ["json_schema", "json_schema"]
    sent = sent_requests[1].body["messages"]
    assert sent[0] == messages[0]  # the instructions are untouched
    assert "Claims:\n1. The sky is blue." in sent[1]["content"]  # so are the claims
    assert sent[1]["content"].count(TRIM_MARK) == 4 and len(sent[1]["content"]) < len(messages[1]["content"]) / 2
    assert all(f"[doc-{i}]" in sent[1]["content"] for i in range(4))
    assert llm.window.n_ctx == 1024
    assert not any("response_format" in w for w in warnings)
    # the next long prompt is trimmed before it is sent: no second overflow
    complete_json(llm, [messages[0], {"role": "user", "content": messages[1]["content"] + " more"}], schema=SCHEMA)
    assert len(chats(server)) == 3


def test_an_overflow_that_trimming_cannot_fix_fails_once_not_four_times(server: FakeAPIServer) -> None:
    llm = model()
    huge_instructions = [{"role": "system", "content": "rule " * 3000}, {"role": "user", "content": "[p] text"}]
    server.fail_next(1, status=400, body=OVERFLOW)
    with pytest.raises(ProviderError, match="does not fit the model's context of 1024 tokens"):
        llm.chat(huge_instructions, max_tokens=50)
    assert len(chats(server)) == 1


@pytest.mark.parametrize("status", [400, 500])
def test_an_overflow_is_not_retried_as_an_outage(server: FakeAPIServer, status: int) -> None:
    llm = model()
    body = json.dumps(
        {
            "error": {
                "message": "the request exceeds the available context size. try increasing the "
                "context size or enable context shift",
                "n_prompt_tokens": 5000,
                "n_ctx": 256,
            }
        }
    )
    server.fail_next(3, status=status, body=body)  # the server keeps refusing, whatever is sent
    with pytest.raises(ProviderError):
        llm.chat([{"role": "user", "content": "[p] " + "word " * 30}], max_tokens=20)
    assert len(chats(server)) <= 3  # first try + at most 2 trimmed resends, never 4 of the same


def test_a_plain_400_is_neither_a_downgrade_nor_a_retry(server: FakeAPIServer) -> None:
    llm = model()
    server.fail_next(1, status=400, body=json.dumps({"error": {"message": "temperature: Input should be <= 2"}}))
    result: JsonResult[Any] = complete_json(llm, ASK, schema=SCHEMA)
    assert not result.ok and "HTTP 400" in (result.error or "")
    assert len(chats(server)) == 1
    assert llm.ladder.rung == 0


def test_the_schema_is_part_of_the_cache_key(server: FakeAPIServer, tmp_path) -> None:
    db = open_db(tmp_path / "c.db")
    llm = OpenAIChat("m", db=db)
    other = ReplySchema("relevance_score", {**SCHEMA.schema, "description": "changed"}, SCHEMA.max_tokens)
    assert complete_json(llm, ASK, schema=SCHEMA).ok
    assert complete_json(llm, ASK, schema=SCHEMA).ok
    assert server.count("/chat/completions") == 1
    assert complete_json(llm, ASK, schema=other).ok
    assert server.count("/chat/completions") == 2
    fresh = OpenAIChat("m", db=db)  # a downgrade is per run; the cache is not
    assert complete_json(fresh, ASK, schema=SCHEMA).ok and server.count("/chat/completions") == 2


def test_the_max_tokens_env_caps_every_reply(server: FakeAPIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGCOV_LLM_MAX_TOKENS", "40")
    complete_json(OpenAIChat("m"), ASK, schema=SCHEMA)
    OpenAIChat("m").chat(ASK)
    assert [r.body["max_tokens"] for r in server.requests] == [40, 40]


@pytest.mark.parametrize("raw", ["0", "-3", "x", "1.5"])
def test_a_bad_max_tokens_env_is_one_line(server: FakeAPIServer, monkeypatch: pytest.MonkeyPatch, raw: str) -> None:
    from ragcov_tui.shared.errors import ConfigError

    monkeypatch.setenv("RAGCOV_LLM_MAX_TOKENS", raw)
    with pytest.raises(ConfigError, match=r"\$RAGCOV_LLM_MAX_TOKENS"):
        OpenAIChat("m").chat(ASK)
