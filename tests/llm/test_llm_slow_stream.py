"""Slow local servers (issue #23 §8): a chat reply streams, so a server that keeps sending tokens is
never cut off however long its whole reply takes, and one that stops mid-reply fails at once with
one line, not after four attempts. Against the real fake OpenAI server on 127.0.0.1."""

from __future__ import annotations

import time

import pytest

from ragcov_tui.shared.errors import ProviderError
from ragcov_tui.store.db import open_db
from tests.support.fake_api import FakeAPIServer, api_env
from tests.support.models import chat_model

ASK = [{"role": "user", "content": "Is the sky blue today?"}]
TEN_WORDS = "one two three four five six seven eight nine ten"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch):
    with FakeAPIServer() as srv:
        api_env(monkeypatch, srv, attempts=4)
        monkeypatch.setenv("RAGCOV_HTTP_IDLE_TIMEOUT", "1")
        monkeypatch.setenv("RAGCOV_HTTP_TIMEOUT", "2")  # smaller than the whole reply takes
        srv.chat_handler = lambda messages, body: TEN_WORDS
        yield srv


def test_a_slow_but_steady_reply_succeeds_in_one_request_with_usage_and_cache(server: FakeAPIServer, tmp_path) -> None:
    server.token_delay = 0.3  # a token every 0.3 s: 3 s in all
    llm = chat_model("openai:slow", db=open_db(tmp_path / "r.db"))
    start = time.monotonic()
    reply = llm.chat(ASK)
    assert time.monotonic() - start >= 2.9
    assert (reply.text, reply.truncated) == (TEN_WORDS, False)
    assert (reply.prompt_tokens, reply.completion_tokens) == (5, 10)  # the server's counts, from the usage chunk
    assert server.count("/chat/completions") == 1
    [request] = [r for r in server.requests if r.path.endswith("/chat/completions")]
    assert request.body["stream"] is True and request.body["stream_options"] == {"include_usage": True}
    usage = llm.usage.as_dict()
    assert (usage["requests"], usage["retried"], usage["prompt_tokens"], usage["completion_tokens"]) == (1, 0, 5, 10)

    again = chat_model("openai:slow", db=open_db(tmp_path / "r.db")).chat(ASK)  # a rerun: from the cache
    assert again.text == TEN_WORDS and server.count("/chat/completions") == 1


def test_a_reply_that_stalls_fails_at_once_with_one_line(server: FakeAPIServer) -> None:
    server.stall = (3, 3.0)  # three words, then 3 s of silence
    llm = chat_model("openai:stuck")
    start = time.monotonic()
    with pytest.raises(ProviderError) as caught:
        llm.chat(ASK)
    assert time.monotonic() - start < 2.5  # the idle timeout (1 s), not the stall, not four attempts
    assert str(caught.value) == (
        f"openai chat at {server.base_url}: stalled: no token for 1 s after 3 chunks of the "
        "reply ($RAGCOV_HTTP_IDLE_TIMEOUT)"
    )
    assert server.count("/chat/completions") == 1  # not retried from scratch
    assert llm.usage.as_dict()["failed"] == 1


def test_a_server_silent_before_its_first_token_is_retried_as_a_timeout(server: FakeAPIServer) -> None:
    server.latency = 1.5  # nothing at all for longer than the idle timeout: it never began this reply
    llm = chat_model("openai:busy")
    with pytest.raises(ProviderError, match=r"failed after 4 attempts \(timed out\)$"):
        llm.chat(ASK)
    assert server.count("/chat/completions") == 4


def test_a_server_that_ignores_stream_is_read_as_one_reply(server: FakeAPIServer) -> None:
    server.ignore_stream = True
    reply = chat_model("openai:plain").chat(ASK)
    assert (reply.text, reply.prompt_tokens, reply.completion_tokens) == (TEN_WORDS, 5, 10)


def test_a_server_that_refuses_stream_is_asked_whole_from_then_on(server: FakeAPIServer) -> None:
    server.reject_stream = True
    notes: list[str] = []
    llm = chat_model("openai:old", warn=notes.append)
    assert [llm.chat(ASK).text, llm.chat([{"role": "user", "content": "again"}]).text] == [TEN_WORDS, TEN_WORDS]
    assert [bool(r.body.get("stream")) for r in server.requests if r.path.endswith("/chat/completions")] == [
        True,
        False,
        False,
    ]  # refused once, then asked whole
    assert notes == [
        "LLM openai:old: the server refuses streamed replies ('stream' is not supported by this server); "
        "replies are asked whole, each within $RAGCOV_HTTP_TIMEOUT"
    ]
