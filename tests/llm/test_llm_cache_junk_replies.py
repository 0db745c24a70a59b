"""Replies that failed the caller's validation (junk JSON, a wrong shape) are not replayed from the
cache once the server is fixed: judge-style ``complete_json`` calls and gap themes alike."""

from __future__ import annotations

import json

import pytest

from ragcov_tui.coverage.themes import ClusterThemes, llm_themes
from ragcov_tui.llm.json_reply import ReplyError, complete_json, json_value
from ragcov_tui.store.db import open_db
from tests.llm.test_llm_cache_validation import ASK, GOOD, cache_rows, server  # noqa: F401 (fixture)
from tests.support.fake_api import FakeAPIServer
from tests.support.models import chat_model

THEMES = json.dumps({"themes": ["Refund window", "Refund method"], "questions": ["How long do refunds take?"]})


@pytest.mark.parametrize("junk", ["not json at all", '{"verdict": ', "[]", '{"other": 1}', "```json\n```"])
def test_a_reply_failing_validation_is_not_replayed_after_the_server_is_fixed(server: FakeAPIServer, junk: str) -> None:
    db = open_db(":memory:")
    llm = chat_model("openai:m", db=db)
    server.chat_handler = lambda messages, body: junk

    def validate(reply):
        data = json_value(reply)
        if not (isinstance(data, dict) and "verdict" in data):
            raise ReplyError("expected {'verdict': ...}")
        return data

    result = complete_json(llm, ASK, parse=validate)
    assert not result.ok
    assert all(reply != junk for _, reply in cache_rows(db))
    server.chat_handler = lambda messages, body: GOOD
    again = complete_json(chat_model("openai:m", db=db), ASK, parse=validate)
    assert again.ok and again.data is not None and again.data["verdict"] == "yes"


@pytest.mark.parametrize(
    "junk",
    [
        "no json",
        json.dumps({"themes": [], "questions": ["q"]}),
        json.dumps({"themes": ["a"], "questions": [3]}),
        "null",
    ],
)
def test_a_junk_theme_reply_is_not_replayed_after_the_server_is_fixed(server: FakeAPIServer, junk: str) -> None:
    db = open_db(":memory:")
    server.chat_handler = lambda messages, body: junk
    failed = llm_themes(chat_model("openai:m", db=db), ["Refunds are issued within 14 days."], 5, 3)
    assert isinstance(failed, str)
    server.chat_handler = lambda messages, body: THEMES
    fixed = llm_themes(chat_model("openai:m", db=db), ["Refunds are issued within 14 days."], 5, 3)
    assert isinstance(fixed, ClusterThemes) and fixed.themes == ["Refund window", "Refund method"]
    assert fixed.origin == "llm:openai:m"
