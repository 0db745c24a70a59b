"""The shared fake API server itself: protocol shapes, auth, scripting, the request log."""

from __future__ import annotations

import httpx
import openai
import pytest

from tests.support.fake_api import FakeAPIServer

AUTH = {"Authorization": "Bearer test"}


def test_openai_client_embeddings_and_chat_round_trip() -> None:
    with FakeAPIServer(dim=16) as server:
        client = openai.OpenAI(api_key="test", base_url=server.base_url, max_retries=0)
        emb = client.embeddings.create(model="m", input=["alpha beta", "gamma"])
        assert [d.index for d in emb.data] == [0, 1]
        assert len(emb.data[0].embedding) == 16
        assert emb.usage.prompt_tokens == 3
        server.chat_handler = lambda messages, body: "hi " + messages[-1]["content"]
        reply = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "there"}])
        assert reply.choices[0].message.content == "hi there"
        assert server.count("/embeddings") == 1 and server.count("/chat/completions") == 1


def test_voyage_route_auth_and_scripted_failures() -> None:
    with FakeAPIServer(dim=8) as server:
        url = server.voyage_base_url + "/embeddings"
        assert httpx.post(url, json={"input": ["x"], "model": "v"}).status_code == 401
        server.fail_next(1, status=503, retry_after=0)
        failed = httpx.post(url, json={"input": ["x"], "model": "v"}, headers=AUTH)
        assert failed.status_code == 503 and failed.headers["Retry-After"] == "0"
        server.bad_json_next(1)
        with pytest.raises(ValueError):
            httpx.post(url, json={"input": ["x"], "model": "v"}, headers=AUTH).json()
        ok = httpx.post(url, json={"input": ["x y"], "model": "v", "input_type": "document"}, headers=AUTH).json()
        assert ok["usage"] == {"total_tokens": 2} and len(ok["data"][0]["embedding"]) == 8
        assert server.count("/voyage/v1/embeddings") == 4
        assert server.requests[-1].body["input_type"] == "document"


def test_reject_response_format_gives_400() -> None:
    with FakeAPIServer() as server:
        server.reject_response_format = True
        r = httpx.post(
            server.base_url + "/chat/completions",
            headers=AUTH,
            json={"model": "m", "messages": [], "response_format": {"type": "json_object"}},
        )
        assert r.status_code == 400
