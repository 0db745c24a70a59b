"""Honest accounting (issue #14 item 10) against the real local API server: every request counts
(retried, failed, abandoned), prices apply only at the provider's own host, an unpriced or unknown
cost is never shown as ``$``, and a model the server does not list is warned about once."""

from __future__ import annotations

import socket
import threading

import pytest

from ragcov_tui.llm.accounting import usage_lines
from ragcov_tui.llm.cost import PRICE_ENV, price_for, user_prices
from ragcov_tui.shared.concurrency import run_bounded
from ragcov_tui.shared.errors import ConfigError, ProviderError
from ragcov_tui.store.db import open_db
from tests.support.fake_api import FakeAPIServer, api_env
from tests.support.models import chat_model

ASK = [{"role": "user", "content": "Is the sky blue?"}]


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch):
    with FakeAPIServer() as srv:
        api_env(monkeypatch, srv, attempts=3)
        monkeypatch.delenv(PRICE_ENV, raising=False)
        yield srv


def counts(model) -> tuple[int, int, int, int]:
    u = model.usage.as_dict()
    return u["requests"], u["retried"], u["failed"], u["calls"]


def assert_balanced(model, server: FakeAPIServer) -> None:
    """requests == what the server received == calls + retried + failed (nothing in flight)."""
    u = model.usage.as_dict()
    assert u["requests"] == server.count("/chat/completions")
    assert u["requests"] == u["calls"] + u["retried"] + u["failed"] and u["abandoned"] == 0


@pytest.mark.parametrize("failures", [0, 1, 2])
@pytest.mark.parametrize("status", [429, 500, 503])
def test_retried_requests_are_counted(server: FakeAPIServer, failures: int, status: int) -> None:
    server.fail_next(failures, status=status)
    model = chat_model("openai:gpt-4o-mini")
    assert model.chat(ASK).text
    assert counts(model) == (failures + 1, failures, 0, 1)
    assert_balanced(model, server)


@pytest.mark.parametrize("status,sent", [(429, 3), (500, 3), (400, 1), (401, 1), (404, 1)])
def test_failed_calls_are_counted_with_every_request_they_sent(server: FakeAPIServer, status: int, sent: int) -> None:
    server.fail_next(5, status=status)
    model = chat_model("openai:gpt-4o-mini")
    with pytest.raises(ProviderError):
        model.chat(ASK)
    assert counts(model) == (sent, sent - 1, 1, 0)
    assert_balanced(model, server)


def test_a_malformed_200_is_a_failed_request(server: FakeAPIServer) -> None:
    server.fault = "no_choices"
    model = chat_model("openai:gpt-4o-mini")
    with pytest.raises(ProviderError):
        model.chat(ASK)
    assert counts(model) == (1, 0, 1, 0)
    assert_balanced(model, server)


def test_json_mode_refused_then_asked_plainly_counts_both_requests(server: FakeAPIServer) -> None:
    server.reject_response_format = True
    model = chat_model("openai:gpt-4o-mini")
    model.chat(ASK, json_mode=True)
    assert counts(model) == (2, 1, 0, 1)
    assert_balanced(model, server)


def test_concurrent_calls_with_scripted_failures_match_the_servers_count(server: FakeAPIServer) -> None:
    server.fail_next(7, status=429)
    model = chat_model("openai:gpt-4o-mini")
    outcomes = run_bounded(
        lambda i: model.chat([{"role": "user", "content": f"question {i}"}]), list(range(24)), concurrency=8
    )
    failed = sum(not o.ok for o in outcomes)
    requests, retried, failed_calls, calls = counts(model)
    assert (calls, failed_calls) == (24 - failed, failed)
    assert retried + failed_calls == 7  # every scripted failure was a request, counted once
    assert_balanced(model, server)


def test_an_unreachable_server_counts_failed_requests_and_cost_stays_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{port}/v1")
    monkeypatch.setenv("RAGCOV_RETRY_BASE_DELAY", "0.001")
    monkeypatch.setenv("RAGCOV_RETRY_ATTEMPTS", "2")
    model = chat_model("openai:gpt-4o-mini")
    with pytest.raises(ProviderError, match="unreachable after 2 attempts"):
        model.chat(ASK)
    u = model.usage.as_dict()
    assert (u["requests"], u["retried"], u["failed"], u["cost_usd"]) == (2, 1, 1, None)
    [line] = usage_lines({"llm": u})
    assert line == "llm: requests: 2 (1 retried, 1 failed), 0 cached, 0 tokens, cost unknown" and "$" not in line


def test_a_local_server_never_gets_a_list_price(server: FakeAPIServer) -> None:
    model = chat_model("openai:gpt-4o-mini")  # a known model name, but served at 127.0.0.1
    model.chat(ASK)
    assert model.usage.as_dict()["cost_usd"] is None
    assert all("$" not in line and "cost unknown" in line for line in usage_lines({"llm": model.usage.as_dict()}))


def test_a_cached_run_of_an_unpriced_model_is_cost_unknown_not_zero(server: FakeAPIServer, tmp_path) -> None:
    db = open_db(tmp_path / "r.db")
    chat_model("openai:llama3-local", db=db).chat(ASK)
    again = chat_model("openai:llama3-local", db=db)
    again.chat(ASK)
    u = again.usage.as_dict()
    assert (u["requests"], u["cached"], u["cost_usd"]) == (0, 1, None)
    [line] = usage_lines({"llm": u})
    assert line == "llm: requests: 0, 1 cached, 0 tokens, cost unknown"


def test_a_user_price_applies_on_any_server(server: FakeAPIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PRICE_ENV, "1,2")
    model = chat_model("openai:llama3-local")
    model.chat(ASK)
    u = model.usage.as_dict()
    assert u["cost_usd"] == pytest.approx((u["prompt_tokens"] * 1 + u["completion_tokens"] * 2) / 1e6)
    assert usage_lines({"llm": u})[0].endswith(f", ${u['cost_usd']:.4f}")


OPENAI, VOYAGE = "https://api.openai.com/v1", "https://api.voyageai.com/v1"
LOCAL = "http://127.0.0.1:8000/v1"


@pytest.mark.parametrize(
    "provider,model,url,env,expected",
    [
        ("openai", "gpt-4o-mini", OPENAI, "", (0.15, 0.60)),
        ("openai", "gpt-4o-mini-2024-07-18", OPENAI, "", (0.15, 0.60)),
        ("openai", "GPT-4o-mini", "https://API.OPENAI.COM/v1/", "", (0.15, 0.60)),
        ("openai", "gpt-4o-mini", LOCAL, "", None),
        ("openai", "gpt-4o-mini", "https://api.openai.com.evil.example/v1", "", None),
        ("openai", "gpt-4o-mini", "https://my-proxy.example/openai/v1", "", None),
        ("openai", "gpt-4o-mini", "http://localhost:11434/v1", "", None),
        ("openai", "gpt-4o-mini", VOYAGE, "", None),  # another provider's host
        ("openai", "voyage-3", OPENAI, "", (0.06, 0.0)),  # the table is by model; the host decides
        ("voyage", "voyage-3", VOYAGE, "", (0.06, 0.0)),
        ("voyage", "voyage-3", "http://127.0.0.1:9/voyage/v1", "", None),
        ("voyage", "voyage-3", OPENAI, "", None),
        ("openai", "llama3:8b", OPENAI, "", None),
        ("openai", "llama3:8b", LOCAL, "", None),
        ("openai", "llama3:8b", LOCAL, "0.1,0.2", (0.1, 0.2)),
        ("openai", "llama3:8b", LOCAL, "0.3", (0.3, 0.3)),
        ("openai", "gpt-4o-mini", LOCAL, "0.1,0.2", (0.1, 0.2)),
        ("openai", "gpt-4o-mini", OPENAI, "0.1,0.2", (0.15, 0.60)),  # a bare price does not override a list price
        ("openai", "gpt-4o-mini", OPENAI, "gpt-4o-mini=0.1,0.2", (0.1, 0.2)),  # a named one does
        ("openai", "gpt-4o-mini", LOCAL, "gpt-4o-mini=0.1,0.2", (0.1, 0.2)),
        ("openai", "llama3:8b", LOCAL, "gpt-4o-mini=0.1,0.2", None),
        ("openai", "llama3:8b", LOCAL, "gpt-4o-mini=0.1,0.2; 0,0", (0.0, 0.0)),
        ("openai", "org/Model-X", LOCAL, " org/model-x = 1 , 2 ;", (1.0, 2.0)),
        ("openai", "a=b", LOCAL, "a=b=5,6", (5.0, 6.0)),  # the last '=' splits the name from the price
    ],
)
def test_which_price_applies(
    monkeypatch: pytest.MonkeyPatch, provider: str, model: str, url: str, env: str, expected: tuple[float, float] | None
) -> None:
    monkeypatch.setenv(PRICE_ENV, env)
    assert price_for(provider, model, url) == expected


@pytest.mark.parametrize("raw", ["x", "1,2,3", "-1", "nan", "inf,1", "1e7", "m=", "m=a,b", ",", "1,,2", "m=1;n"])
def test_a_malformed_price_is_one_line_naming_the_variable(raw: str) -> None:
    with pytest.raises(ConfigError) as err:
        user_prices(raw)
    message = str(err.value)
    assert message.startswith(f"${PRICE_ENV}: expected IN,OUT or MODEL=IN,OUT") and "\n" not in message


@pytest.mark.parametrize(
    "usage,expected",
    [
        (
            {
                "llm": {
                    "calls": 12,
                    "cached": 3,
                    "requests": 14,
                    "retried": 2,
                    "failed": 1,
                    "abandoned": 0,
                    "prompt_tokens": 4000,
                    "completion_tokens": 512,
                    "cost_usd": 0.0031,
                }
            },
            ["llm: requests: 14 (2 retried, 1 failed), 3 cached, 4,512 tokens, $0.0031"],
        ),
        (
            {
                "llm": {
                    "openai:a": {
                        "calls": 1,
                        "cached": 0,
                        "requests": 5,
                        "retried": 0,
                        "failed": 0,
                        "abandoned": 4,
                        "prompt_tokens": 1,
                        "completion_tokens": 1,
                        "cost_usd": None,
                    }
                },
                "llm_calls": 1,
            },
            ["llm openai:a: requests: 5 (4 abandoned), 0 cached, 2 tokens, cost unknown"],
        ),
        (
            {"embeddings": {"calls": 3, "cached": 12, "tokens": 1204, "cost_usd": None}},  # an old report
            ["embeddings: 3 calls (12 cached), 1,204 tokens, cost unknown"],
        ),
        (
            {
                "embeddings": {
                    "texts": 20,
                    "calls": 3,
                    "cached": 12,
                    "tokens": 1204,
                    "cost_usd": 0.5,
                    "requests": 4,
                    "retried": 1,
                    "failed": 0,
                    "abandoned": 0,
                }
            },
            ["embeddings: requests: 4 (1 retried), 12 texts cached, 1,204 tokens, $0.5000"],
        ),
        ({"embeddings": {"calls": 3, "cached": 0, "tokens": 10}}, ["embeddings: 3 calls (0 cached), 10 tokens"]),
        (
            {
                "llm": {"calls": 2, "cached": 1, "prompt_tokens": 5, "completion_tokens": 5, "cost_usd": 0.0}
            },  # an old report
            ["llm: 2 calls (1 cached), 10 tokens, $0.0000"],
        ),
        ({"llm": None, "cost_usd": None}, []),
    ],
)
def test_usage_lines(usage: dict, expected: list[str]) -> None:
    assert usage_lines(usage) == expected


# ---------------------------------------------------------------- the model-list check


def chat_in_threads(model, n: int = 6) -> None:
    threads = [threading.Thread(target=model.chat, args=([{"role": "user", "content": f"q{i}"}],)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def test_a_model_the_server_does_not_list_is_warned_about_once(server: FakeAPIServer) -> None:
    server.models = ["llama-3.1-8b-instruct", "qwen2.5-7b", "phi-4", "mistral-7b"]
    warnings: list[str] = []
    model = chat_model("openai:gpt-4o-mini", warn=warnings.append)
    chat_in_threads(model)
    model.chat(ASK)
    assert warnings == [
        f"openai chat at {server.base_url} does not list model 'gpt-4o-mini' (it serves "
        "'llama-3.1-8b-instruct', 'mistral-7b', 'phi-4', +1 more); its replies may come from another model"
    ]
    assert server.count("/models") == 1
    assert model.usage.as_dict()["requests"] == server.count("/chat/completions") == 7  # the GET is not usage


@pytest.mark.parametrize("models", [None, ["gpt-4o-mini"], ["x", "gpt-4o-mini"], []])
def test_a_listed_model_or_a_server_without_a_list_is_silent(server: FakeAPIServer, models: list[str] | None) -> None:
    server.models = models
    warnings: list[str] = []
    model = chat_model("openai:gpt-4o-mini", warn=warnings.append)
    chat_in_threads(model, 3)
    assert warnings == [] and server.count("/models") == 1


def test_no_listener_no_check_and_a_cached_run_asks_nothing(server: FakeAPIServer, tmp_path) -> None:
    server.models = ["other"]
    chat_model("openai:gpt-4o-mini").chat(ASK)
    assert server.count("/models") == 0
    db = open_db(tmp_path / "r.db")
    chat_model("openai:gpt-4o-mini", db=db).chat(ASK)
    before, warnings = server.count(), list[str]()
    chat_model("openai:gpt-4o-mini", db=db, warn=warnings.append).chat(ASK)
    assert server.count() == before and warnings == []  # all from the cache: no GET, no warning


# ---------------------------------------------------------------- embeddings count their requests too


@pytest.mark.parametrize(
    "spec,path", [("openai:text-embedding-3-small", "/v1/embeddings"), ("voyage:voyage-3", "/voyage/v1/embeddings")]
)
@pytest.mark.parametrize("failures", [0, 2])
def test_embedding_requests_are_counted_like_the_server(
    server: FakeAPIServer, spec: str, path: str, failures: int
) -> None:
    from ragcov_tui.embeddings.factory import make_embedder

    server.fail_next(failures, status=503)
    embedder = make_embedder(spec)
    embedder.embed([f"text number {i}" for i in range(300)])  # three batches of at most 128
    u = embedder.usage()
    assert (u["requests"], u["retried"], u["failed"], u["abandoned"]) == (server.count(path), failures, 0, 0)
    assert u["requests"] == u["calls"] + failures and u["cost_usd"] is None  # a local server: no list price
    [line] = usage_lines({"embeddings": u})
    assert line.startswith(f"embeddings: requests: {u['requests']}") and line.endswith(", cost unknown")


def test_a_failed_embedding_call_is_counted(server: FakeAPIServer) -> None:
    from ragcov_tui.embeddings.factory import make_embedder

    server.fail_next(9, status=500)
    embedder = make_embedder("openai:text-embedding-3-small")
    with pytest.raises(ProviderError):
        embedder.embed(["one text"])
    u = embedder.usage()
    assert (u["requests"], u["retried"], u["failed"]) == (3, 2, 1) == (server.count("/embeddings"), 2, 1)
    assert usage_lines({"embeddings": u}) == [
        "embeddings: requests: 3 (2 retried, 1 failed), 0 texts cached, 0 tokens, cost unknown"
    ]
