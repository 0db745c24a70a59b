"""Fixtures shared by the evaluation tests."""

from __future__ import annotations

import pytest


@pytest.fixture()
def judge_server(monkeypatch: pytest.MonkeyPatch):
    """A fake OpenAI-compatible server on 127.0.0.1 answering judge prompts by rule (RuleJudge);
    ``openai:<model>`` specs reach it, with retries made instant."""
    from tests.evaluation.generation.gen_fake_judge import RuleJudge
    from tests.support.fake_api import FakeAPIServer

    with FakeAPIServer() as server:
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("RAGCOV_RETRY_BASE_DELAY", "0.001")
        server.chat_handler = RuleJudge()
        yield server
