"""The openai chat model and complete_json against the real local API server."""

from __future__ import annotations

import json
import socket
import time

import pytest

from ragcov_tui.concurrency import run_bounded
from ragcov_tui.errors import BadInput, ConfigError, ProviderError
from ragcov_tui.llm.factory import make_llm
from ragcov_tui.llm.json_reply import complete_json
from ragcov_tui.store.db import open_db
from tests.support.fake_api import FakeAPIServer

ASK = [{"role": "system", "content": "Answer in JSON."}, {"role": "user", "content": "Is the sky blue?"}]


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch):
    with FakeAPIServer() as srv:
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
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
    with pytest.raises(BadInput, match="unknown LLM"):
        make_llm("anthropic:claude")
    with pytest.raises(BadInput, match="name the model"):
        make_llm("openai:")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="OPENAI_API_KEY.*any non-empty value works"):
        make_llm("openai:gpt-4o-mini")


def test_chat_sends_temperature_zero_and_counts_usage_and_cost(server: FakeAPIServer, monkeypatch) -> None:
    server.chat_handler = lambda messages, body: "blue indeed"
    monkeypatch.setenv("RAGCOV_PRICE_PER_MTOK", "gpt-4o-mini=0.15,0.60")  # a local server has no list price
    model = make_llm("openai:gpt-4o-mini")
    reply = model.chat(ASK)
    assert reply.text == "blue indeed" and not reply.cached
    body = server.requests[-1].body
    assert body["temperature"] == 0.0 and body["model"] == "gpt-4o-mini" and "response_format" not in body
    usage = model.usage.as_dict()
    assert (usage["calls"], usage["prompt_tokens"], usage["completion_tokens"]) == (1, 7, 2)
    assert model.usage.cost_usd == pytest.approx((7 * 0.15 + 2 * 0.60) / 1e6, rel=1e-9)
    assert usage["cost_usd"] is not None


def test_unpriced_model_reports_unknown_cost(server: FakeAPIServer) -> None:
    model = make_llm("openai:llama3-local")
    model.chat(ASK)
    assert model.usage.as_dict()["cost_usd"] is None


def test_json_mode_falls_back_silently_when_the_server_rejects_it(server: FakeAPIServer) -> None:
    model = make_llm("openai:m")
    model.chat(ASK, json_mode=True)
    assert server.requests[-1].body["response_format"] == {"type": "json_object"}
    server.reject_response_format = True
    fresh = make_llm("openai:m")
    assert json.loads(fresh.chat(ASK, json_mode=True).text) == {"echo": "Is the sky blue?"}
    assert [("response_format" in r.body) for r in server.requests[-2:]] == [True, False]
    fresh.chat([{"role": "user", "content": "again"}], json_mode=True)
    assert "response_format" not in server.requests[-1].body  # remembered, not asked again


def test_cache_second_run_makes_zero_http_calls(server: FakeAPIServer) -> None:
    db = open_db(":memory:")
    first = make_llm("openai:m", db=db)
    r1 = first.chat(ASK, json_mode=True)
    second = make_llm("openai:m", db=db)
    r2 = second.chat(ASK, json_mode=True)
    assert server.count("/chat/completions") == 1
    assert r2.cached and r2.text == r1.text and r2.prompt_tokens == r1.prompt_tokens
    assert second.usage.as_dict()["calls"] == 0 and second.usage.as_dict()["cached"] == 1
    second.chat(ASK, json_mode=True, temperature=0.7)  # other params: another entry
    assert server.count("/chat/completions") == 2


def test_429_then_success_and_500_forever(server: FakeAPIServer) -> None:
    model = make_llm("openai:m")
    server.fail_next(2, status=429)
    assert model.chat(ASK).text
    assert server.count("/chat/completions") == 3
    server.fail_next(5, status=500)
    with pytest.raises(ProviderError, match=r"openai chat at .*: failed after 3 attempts \(HTTP 500"):
        model.chat([{"role": "user", "content": "other"}])


def test_unreachable_and_invalid_json_are_provider_errors(server: FakeAPIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    server.bad_json_next(1)
    with pytest.raises(ProviderError, match="invalid JSON"):
        make_llm("openai:m").chat(ASK)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{port}/v1")
    with pytest.raises(ProviderError) as err:
        make_llm("openai:m").chat(ASK)
    assert str(err.value) == f"openai chat at http://127.0.0.1:{port}/v1: unreachable after 3 attempts (Connection refused)"


def test_complete_json_parses_fenced_and_prose_replies(server: FakeAPIServer) -> None:
    model = make_llm("openai:m")
    server.chat_handler = lambda m, b: 'Sure! Here it is:\n```json\n{"verdict": "yes", "score": 1,}\n```\nHope it helps.'
    result = complete_json(model, ASK)
    assert result.ok and result.data == {"verdict": "yes", "score": 1} and result.error is None
    assert result.prompt == ASK and "Sure!" in result.raw


def test_complete_json_repairs_once(server: FakeAPIServer) -> None:
    model = make_llm("openai:m")
    server.chat_handler = scripted("I think the answer is yes.", '{"verdict": "yes"}')
    result = complete_json(model, ASK)
    assert result.ok and result.data == {"verdict": "yes"}
    repair = server.requests[-1].body["messages"]
    assert repair[-2] == {"role": "assistant", "content": "I think the answer is yes."}
    assert "no JSON object" in repair[-1]["content"]


def test_complete_json_gives_up_after_one_repair(server: FakeAPIServer) -> None:
    model = make_llm("openai:m")
    server.chat_handler = scripted("nope", "still { not json")
    result = complete_json(model, ASK)
    assert not result.ok and result.data is None and "after one repair" in result.error
    assert server.count("/chat/completions") == 2


def test_complete_json_runs_the_validator(server: FakeAPIServer) -> None:
    model = make_llm("openai:m")
    server.chat_handler = scripted('{"score": 7}', '{"score": 0.7}')

    def in_unit_range(data):
        return None if 0 <= data.get("score", -1) <= 1 else "score must be between 0 and 1"

    result = complete_json(model, ASK, validate=in_unit_range, max_tokens=50)
    assert result.ok and result.data == {"score": 0.7}
    assert "score must be between 0 and 1" in server.requests[-1].body["messages"][-1]["content"]
    assert server.requests[-1].body["max_tokens"] == 50


def test_complete_json_turns_provider_failure_into_error(server: FakeAPIServer) -> None:
    server.fail_next(10, status=503)
    result = complete_json(make_llm("openai:m"), ASK)
    assert not result.ok and "failed after 3 attempts" in result.error


def test_concurrent_calls_are_bounded(server: FakeAPIServer) -> None:
    server.latency = 0.2
    model = make_llm("openai:m", concurrency=4)
    assert model.concurrency == 4
    prompts = [[{"role": "user", "content": f"question {i}"}] for i in range(12)]
    start = time.perf_counter()
    outcomes = run_bounded(model.chat, prompts, concurrency=model.concurrency)
    assert all(o.ok for o in outcomes)
    assert [json.loads(o.value.text)["echo"] for o in outcomes] == [f"question {i}" for i in range(12)]
    assert server.max_in_flight == 4
    assert time.perf_counter() - start < 12 * 0.2 * 0.6
    assert model.usage.as_dict()["calls"] == 12
