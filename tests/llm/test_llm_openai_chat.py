"""The chat providers and complete_json against a real local server speaking each one's protocol.

The battery runs once per provider that sends requests: ``openai:`` (OpenAI's chat completions),
``ollama:`` (Ollama's OpenAI-compatible endpoint at ``$OLLAMA_HOST``) and ``anthropic:``
(Anthropic's Messages API); tests of one protocol's own features follow it.
"""

from __future__ import annotations

import importlib.util
import json
import socket
import time
from typing import Any

import pytest

from ragcov_tui.llm.anthropic_chat import AnthropicChat
from ragcov_tui.llm.base import JsonResult
from ragcov_tui.llm.cached_chat import CachedChat
from ragcov_tui.llm.factory import make_llm
from ragcov_tui.llm.json_reply import ReplyError, complete_json, json_value
from ragcov_tui.llm.openai_chat import OpenAIChat
from ragcov_tui.shared.concurrency import run_bounded
from ragcov_tui.shared.errors import BadInput, ConfigError, ProviderError
from ragcov_tui.store.db import open_db
from tests.support.fake_api import FakeAPIServer
from tests.support.models import chat_model

ASK = [{"role": "system", "content": "Answer in JSON."}, {"role": "user", "content": "Is the sky blue?"}]


PROVIDERS = ("openai", "ollama", "anthropic")
CHAT_PATH = {"openai": "/chat/completions", "ollama": "/chat/completions", "anthropic": "/messages"}


def point_at(monkeypatch: pytest.MonkeyPatch, provider: str, root: str) -> None:
    """Send ``provider``'s requests to the server at ``root`` (``http://127.0.0.1:PORT``)."""
    if provider == "openai":
        monkeypatch.setenv("OPENAI_BASE_URL", f"{root}/v1")
    elif provider == "ollama":
        monkeypatch.setenv("OLLAMA_HOST", root.removeprefix("http://"))  # as Ollama users write it
    else:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", f"{root}/anthropic")


@pytest.fixture(params=PROVIDERS)
def provider(request: pytest.FixtureRequest) -> str:
    if request.param == "anthropic":
        pytest.importorskip("anthropic")
    return request.param


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch, provider: str):
    with FakeAPIServer() as srv:
        for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
            monkeypatch.setenv(name, "test-key")
        point_at(monkeypatch, provider, srv.root_url)
        monkeypatch.setenv("RAGCOV_RETRY_BASE_DELAY", "0.001")
        monkeypatch.setenv("RAGCOV_RETRY_ATTEMPTS", "3")
        yield srv


def scripted(*replies: str):
    """A chat handler that returns the given replies in turn (the last one forever)."""
    queue = list(replies)
    return lambda messages, body: queue.pop(0) if len(queue) > 1 else queue[0]


@pytest.mark.parametrize("spec", [None, "", "heuristic", "none", " Heuristic "])
def test_offline_specs_give_no_model(spec: str | None) -> None:
    assert make_llm(spec) is None


def test_bad_specs_and_missing_key(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(
        BadInput, match="unknown LLM 'claude:opus'; expected openai:MODEL, ollama:MODEL, anthropic:MODEL"
    ):
        make_llm("claude:opus")
    with pytest.raises(BadInput, match="name the model, e.g. openai:gpt-4o-mini"):
        make_llm("openai:")
    with pytest.raises(BadInput, match="name the model, e.g. ollama:"):
        make_llm("ollama: ")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="OPENAI_API_KEY.*any non-empty value works"):
        make_llm("openai:gpt-4o-mini")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    if importlib.util.find_spec("anthropic") is not None:
        with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
            make_llm("anthropic:claude-haiku-4-5")


def test_chat_sends_temperature_zero_and_counts_usage_and_cost(
    server: FakeAPIServer, provider: str, monkeypatch
) -> None:
    server.chat_handler = lambda messages, body: "blue indeed"
    monkeypatch.setenv("RAGCOV_PRICE_PER_MTOK", "gpt-4o-mini=0.15,0.60")  # a local server has no list price
    model = chat_model(f"{provider}:gpt-4o-mini")
    reply = model.chat(ASK)
    assert reply.text == "blue indeed" and not reply.cached
    body = server.requests[-1].body
    assert body.get("temperature") == (None if provider == "anthropic" else 0.0)  # Anthropic's SDK 2 has none
    assert body["model"] == "gpt-4o-mini"
    assert "response_format" not in body and "tools" not in body
    usage = model.usage.as_dict()
    assert (usage["calls"], usage["prompt_tokens"], usage["completion_tokens"]) == (1, 7, 2)
    assert model.usage.cost_usd == pytest.approx((7 * 0.15 + 2 * 0.60) / 1e6, rel=1e-9)
    assert usage["cost_usd"] is not None


def test_unpriced_model_reports_unknown_cost(server: FakeAPIServer, provider: str) -> None:
    model = chat_model(f"{provider}:llama3-local")
    model.chat(ASK)
    assert model.usage.as_dict()["cost_usd"] is None


@pytest.mark.parametrize("provider", ["openai", "ollama"])  # response_format: the OpenAI protocol's
def test_json_mode_falls_back_silently_when_the_server_rejects_it(server: FakeAPIServer, provider: str) -> None:
    model = chat_model(f"{provider}:m")
    model.chat(ASK, json_mode=True)
    assert server.requests[-1].body["response_format"] == {"type": "json_object"}
    server.reject_response_format = True
    fresh = chat_model(f"{provider}:m")
    assert json.loads(fresh.chat(ASK, json_mode=True).text) == {"echo": "Is the sky blue?"}
    assert [("response_format" in r.body) for r in server.requests[-2:]] == [True, False]
    fresh.chat([{"role": "user", "content": "again"}], json_mode=True)
    assert "response_format" not in server.requests[-1].body  # remembered, not asked again


def test_cache_second_run_makes_zero_http_calls(server: FakeAPIServer, provider: str) -> None:
    db = open_db(":memory:")
    first = chat_model(f"{provider}:m", db=db)
    r1 = first.chat(ASK, json_mode=True)
    second = chat_model(f"{provider}:m", db=db)
    r2 = second.chat(ASK, json_mode=True)
    assert server.count(CHAT_PATH[provider]) == 1
    assert r2.cached and r2.text == r1.text and r2.prompt_tokens == r1.prompt_tokens
    assert second.usage.as_dict()["calls"] == 0 and second.usage.as_dict()["cached"] == 1
    second.chat(ASK, json_mode=True, temperature=0.7)  # other params: another entry
    assert server.count(CHAT_PATH[provider]) == 2


def test_429_then_success_and_500_forever(server: FakeAPIServer, provider: str) -> None:
    model = chat_model(f"{provider}:m")
    server.fail_next(2, status=429)
    assert model.chat(ASK).text
    assert server.count(CHAT_PATH[provider]) == 3
    server.fail_next(5, status=500)
    with pytest.raises(ProviderError, match=rf"{provider} chat at .*: failed after 3 attempts \(HTTP 500"):
        model.chat([{"role": "user", "content": "other"}])


def test_unreachable_and_invalid_json_are_provider_errors(
    server: FakeAPIServer, provider: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.bad_json_next(1)
    with pytest.raises(ProviderError, match="invalid JSON"):
        chat_model(f"{provider}:m").chat(ASK)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    point_at(monkeypatch, provider, f"http://127.0.0.1:{port}")
    with pytest.raises(ProviderError) as err:
        chat_model(f"{provider}:m").chat(ASK)
    url = f"http://127.0.0.1:{port}" + ("/anthropic" if provider == "anthropic" else "/v1")
    assert str(err.value) == f"{provider} chat at {url}: unreachable after 3 attempts (Connection refused)"


def test_complete_json_parses_fenced_and_prose_replies(server: FakeAPIServer, provider: str) -> None:
    model = chat_model(f"{provider}:m")
    server.chat_handler = lambda m, b: (
        'Sure! Here it is:\n```json\n{"verdict": "yes", "score": 1,}\n```\nHope it helps.'
    )
    result: JsonResult[Any] = complete_json(model, ASK)
    assert result.ok and result.data == {"verdict": "yes", "score": 1} and result.error is None
    assert result.prompt == ASK and "Sure!" in result.raw


def test_complete_json_repairs_once(server: FakeAPIServer, provider: str) -> None:
    model = chat_model(f"{provider}:m")
    server.chat_handler = scripted("I think the answer is yes.", '{"verdict": "yes"}')
    result: JsonResult[Any] = complete_json(model, ASK)
    assert result.ok and result.data == {"verdict": "yes"}
    repair = server.requests[-1].body["messages"]
    assert repair[-2] == {"role": "assistant", "content": "I think the answer is yes."}
    assert "no JSON object" in repair[-1]["content"]


def test_complete_json_gives_up_after_one_repair(server: FakeAPIServer, provider: str) -> None:
    model = chat_model(f"{provider}:m")
    server.chat_handler = scripted("nope", "still { not json")
    result: JsonResult[Any] = complete_json(model, ASK)
    assert not result.ok and result.data is None and "after one repair" in (result.error or "")
    assert server.count(CHAT_PATH[provider]) == 2


def test_complete_json_runs_the_validator(server: FakeAPIServer, provider: str) -> None:
    model = chat_model(f"{provider}:m")
    server.chat_handler = scripted('{"score": 7}', '{"score": 0.7}')

    def in_unit_range(reply):
        data = json_value(reply)
        if not 0 <= data.get("score", -1) <= 1:
            raise ReplyError("score must be between 0 and 1")
        return data

    result: JsonResult[Any] = complete_json(model, ASK, parse=in_unit_range, max_tokens=50)
    assert result.ok and result.data == {"score": 0.7}
    assert "score must be between 0 and 1" in server.requests[-1].body["messages"][-1]["content"]
    assert server.requests[-1].body["max_tokens"] == 50


def test_complete_json_turns_provider_failure_into_error(server: FakeAPIServer, provider: str) -> None:
    server.fail_next(10, status=503)
    result: JsonResult[Any] = complete_json(chat_model(f"{provider}:m"), ASK)
    assert not result.ok and "failed after 3 attempts" in (result.error or "")


def test_concurrent_calls_are_bounded(server: FakeAPIServer, provider: str) -> None:
    server.latency = 0.2
    model = chat_model(f"{provider}:m", concurrency=4)
    assert isinstance(model, OpenAIChat | AnthropicChat) and model.concurrency == 4
    prompts = [[{"role": "user", "content": f"question {i}"}] for i in range(12)]
    start = time.perf_counter()
    outcomes = run_bounded(model.chat, prompts, concurrency=model.concurrency)
    assert all(o.ok for o in outcomes)
    assert [json.loads(o.value.text)["echo"] for o in outcomes if o.value is not None] == [
        f"question {i}" for i in range(12)
    ]
    assert server.max_in_flight == 4
    assert time.perf_counter() - start < 12 * 0.2 * 0.6
    assert model.usage.as_dict()["calls"] == 12


# -- Anthropic's Messages API ------------------------------------------------------------------


@pytest.mark.parametrize("provider", ["anthropic"])
def test_anthropic_system_prompt_is_marked_for_prompt_caching_and_cached_tokens_count(
    server: FakeAPIServer, provider: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.chat_handler = lambda messages, body: "blue"
    server.anthropic_cache_read = 3  # the API served 3 prompt tokens from its cache
    monkeypatch.setenv("RAGCOV_PRICE_PER_MTOK", "claude-x=1,5")
    model = chat_model("anthropic:claude-x")
    assert model.chat(ASK).text == "blue"
    body = server.requests[-1].body
    assert body["system"] == [{"type": "text", "text": "Answer in JSON.", "cache_control": {"type": "ephemeral"}}]
    assert body["messages"] == [{"role": "user", "content": "Is the sky blue?"}]
    headers = server.requests[-1].headers
    assert body["max_tokens"] == 4096 and "test-key" in (
        headers.get("x-api-key"),
        headers.get("authorization", "").removeprefix("Bearer "),
    )
    assert (model.usage.prompt_tokens, model.usage.completion_tokens) == (7, 1)  # cache reads are prompt tokens
    assert model.usage.cost_usd == pytest.approx((7 * 1 + 1 * 5) / 1e6)


@pytest.mark.parametrize("provider", ["anthropic"])
def test_anthropic_schema_bound_reply_comes_through_a_forced_tool(server: FakeAPIServer, provider: str) -> None:
    from ragcov_tui.evaluation.generation.claim_prompts import DECOMPOSE, ClaimSource

    server.chat_handler = lambda messages, body: '{"claims": ["The sky is blue."]}'
    schema = DECOMPOSE.reply_schema(ClaimSource("Is the sky blue?", "It is."))
    result: JsonResult[Any] = complete_json(chat_model("anthropic:m"), ASK, schema=schema)
    assert result.ok and result.data == {"claims": ["The sky is blue."]}
    body = server.requests[-1].body
    assert body["tools"][0]["input_schema"] == schema.schema and body["tools"][0]["name"] == schema.name
    assert body["tool_choice"] == {"type": "tool", "name": schema.name} and body["max_tokens"] == schema.max_tokens
    assert "response_format" not in body


@pytest.mark.parametrize("provider", ["anthropic"])
def test_anthropic_overloaded_529_is_retried_and_a_cut_reply_is_not_cached(
    server: FakeAPIServer, provider: str
) -> None:
    db = open_db(":memory:")
    model = chat_model("anthropic:m", db=db)
    server.fail_next(
        1, status=529, body='{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}'
    )
    server.fault = "truncated"
    assert model.chat(ASK).truncated
    assert server.count("/messages") == 2
    model.chat(ASK)
    assert server.count("/messages") == 3  # a text reply cut by max_tokens is never served from the cache


@pytest.mark.parametrize("provider", ["anthropic"])
def test_anthropic_prompt_too_long_is_trimmed_and_sent_again(server: FakeAPIServer, provider: str) -> None:
    too_long = '{"type": "error", "error": {"type": "invalid_request_error", "message": "prompt is too long: 1500 tokens > 600 maximum"}}'
    server.fail_next(1, status=400, body=too_long)
    passages = "\n\n".join(f"[d{i}] " + "word " * 120 for i in range(10))
    model = chat_model("anthropic:m")
    model.chat([{"role": "system", "content": "Judge."}, {"role": "user", "content": passages}], max_tokens=50)
    sent = server.requests[-1].body["messages"][0]["content"]
    assert server.count("/messages") == 2 and len(sent.split()) < len(passages.split()) / 2 and "[…]" in sent


def test_claude_list_prices_apply_at_anthropic_only() -> None:
    from ragcov_tui.llm.cost import price_for

    assert price_for("anthropic", "claude-sonnet-4-5-20250929", "https://api.anthropic.com") == (3.0, 15.0)
    assert price_for("anthropic", "claude-haiku-4-5", "https://api.anthropic.com") == (1.0, 5.0)
    assert price_for("anthropic", "claude-haiku-4-5", "http://127.0.0.1:8080") is None  # a gateway bills its own


# -- Ollama ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("show", "n_ctx"),
    [
        ({"parameters": 'stop "<|eot_id|>"\nnum_ctx 512', "model_info": {"llama.context_length": 131072}}, 512),
        ({"parameters": "", "model_info": {"general.architecture": "qwen2", "qwen2.context_length": 640}}, 640),
    ],
)
@pytest.mark.parametrize("provider", ["ollama"])
def test_ollama_context_is_read_from_the_server_and_prompts_fit_it(
    server: FakeAPIServer, provider: str, show: dict, n_ctx: int
) -> None:
    server.ollama_show = show
    passages = "\n\n".join(f"[d{i}] " + "word " * 120 for i in range(10))
    model = chat_model("ollama:llama3.1:8b")
    model.chat([{"role": "system", "content": "Judge."}, {"role": "user", "content": passages}], max_tokens=50)
    assert server.requests[0].path == "/api/show" and server.requests[0].body == {"model": "llama3.1:8b"}
    assert isinstance(model, CachedChat) and model.window.n_ctx == n_ctx
    sent = server.requests[-1].body["messages"][1]["content"]
    assert len(sent.split()) < n_ctx and "[…]" in sent  # trimmed before sending: Ollama would cut silently
    model.chat(ASK, max_tokens=20)
    assert server.count("/api/show") == 1  # asked once per model


@pytest.mark.parametrize("provider", ["ollama"])
def test_ollama_without_show_sends_the_prompt_whole(server: FakeAPIServer, provider: str) -> None:
    model = chat_model("ollama:m")  # ollama_show None: /api/show answers 404
    assert isinstance(model, CachedChat) and model.chat(ASK).text and model.window.n_ctx is None


@pytest.mark.parametrize(
    ("raw", "host"),
    [
        ("", "http://127.0.0.1:11434"),
        ("0.0.0.0", "http://0.0.0.0:11434"),
        ("127.0.0.1:9000", "http://127.0.0.1:9000"),
        ("https://ollama.example.org", "https://ollama.example.org"),
        ("http://gpu:8080/", "http://gpu:8080"),
    ],
)
def test_ollama_host_is_read_as_ollama_reads_it(raw: str, host: str) -> None:
    from ragcov_tui.llm.ollama import ollama_host

    assert ollama_host(raw) == host


def test_bad_ollama_host_is_one_line_naming_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", "http://box:99999")
    with pytest.raises(BadInput, match=r"^\$OLLAMA_HOST http://box:99999: the port must be"):
        make_llm("ollama:m")


def test_anthropic_without_its_sdk_says_which_extra_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "anthropic", None)  # import anthropic now raises ImportError
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    with pytest.raises(ConfigError, match=r"pip install 'ragcov-tui\[anthropic\]'"):
        make_llm("anthropic:claude-haiku-4-5")
