"""The LLM cache never keeps a reply that is no answer (issue #17, group 4).

Against the real local API server: a reply cut off by the token limit, with ``content: null``,
with no choices, an HTML page, or JSON that fails the caller's validation is not in the cache
afterwards, so once the server is fixed the real reply is used. The stored request names the
server without the password of its URL.
"""

from __future__ import annotations

import json

import pytest

from ragcov_tui.llm.base import ChatReply
from ragcov_tui.llm.cache import LLMCache, cache_key
from ragcov_tui.shared.errors import ProviderError
from ragcov_tui.store.db import open_db
from tests.support.fake_api import FakeAPIServer, api_env
from tests.support.models import chat_model

ASK = [{"role": "user", "content": "Is the sky blue? Reply as JSON."}]
GOOD = json.dumps({"verdict": "yes", "reason": "Rayleigh scattering"})


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch):
    with FakeAPIServer() as srv:
        srv.chat_handler = lambda messages, body: GOOD
        api_env(monkeypatch, srv, attempts=2)
        yield srv


def cache_rows(db) -> list[tuple[str, str]]:
    return db.execute("SELECT request, reply FROM llm_cache").fetchall()


@pytest.mark.parametrize(
    "fault,text,truncated", [("truncated", GOOD[: len(GOOD) // 2], True), ("null_content", "", False)]
)
def test_truncated_and_empty_replies_are_returned_but_never_cached(
    server: FakeAPIServer, fault: str, text: str, truncated: bool
) -> None:
    db = open_db(":memory:")
    llm = chat_model("openai:m", db=db)
    server.fault = fault
    reply = llm.chat(ASK)
    assert (reply.text, reply.truncated, reply.cached) == (text, truncated, False)
    assert cache_rows(db) == []
    server.fault = None
    fixed = llm.chat(ASK)
    assert (fixed.text, fixed.cached) == (GOOD, False)
    assert server.count("/chat/completions") == 2
    assert llm.chat(ASK).cached and len(cache_rows(db)) == 1


@pytest.mark.parametrize(
    "fault,message",
    [
        ("no_choices", "malformed reply (no choices[0].message)"),
        ("html", 'the reply is an HTML page ("Proxy login"), not an API reply'),
    ],
)
def test_replies_that_are_no_completion_fail_in_one_line_and_are_not_cached(
    server: FakeAPIServer, fault: str, message: str
) -> None:
    db = open_db(":memory:")
    llm = chat_model("openai:m", db=db)
    server.fault = fault
    with pytest.raises(ProviderError) as err:
        llm.chat(ASK)
    assert str(err.value) == f"openai chat at {server.base_url}: {message}"
    assert cache_rows(db) == []
    server.fault = None
    assert llm.chat(ASK).text == GOOD


def test_an_empty_reply_cached_by_an_older_version_is_asked_again(server: FakeAPIServer) -> None:
    db = open_db(":memory:")
    llm = chat_model("openai:m", db=db)
    key, request = cache_key(
        "openai", server.base_url, "m", ASK, {"temperature": 0.0, "max_tokens": None, "json_mode": False}
    )
    LLMCache(db).put(key, "openai", "m", request, ChatReply(text="  "))
    assert llm.chat(ASK).text == GOOD and server.count("/chat/completions") == 1
    assert cache_rows(db) == [(request, GOOD)]


def test_the_stored_request_and_messages_hold_no_password(
    server: FakeAPIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://alice:hunter2@127.0.0.1:{server.port}/v1")
    db = open_db(":memory:")
    llm = chat_model("openai:m", db=db)
    assert llm.chat(ASK).text == GOOD
    ((request, _),) = cache_rows(db)
    assert "hunter2" not in request and "alice" not in request
    assert json.loads(request)["base_url"] == f"http://***@127.0.0.1:{server.port}/v1"
    server.fail_next(5, status=500)
    with pytest.raises(ProviderError) as err:
        llm.chat([{"role": "user", "content": "another question"}])
    assert "hunter2" not in str(err.value) and f"http://***@127.0.0.1:{server.port}/v1" in str(err.value)
