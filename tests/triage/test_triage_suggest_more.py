"""`g` in Gaps: more suggestions from an LLM (a real local OpenAI-protocol server), rejected ones filtered."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragcov_tui.errors import BadInput
from ragcov_tui.llm.factory import make_llm
from ragcov_tui.store import open_db
from ragcov_tui.testset import triage
from tests.support.fake_api import FakeAPIServer
from tests.support.synthetic_sessions import make_analysis_session


def test_suggest_more_stores_new_questions_and_skips_rejected(tmp_path: Path, monkeypatch) -> None:
    db = open_db(":memory:")
    sid = make_analysis_session(db, testset_dir=tmp_path, n_chunks=100, n_questions=10)
    cluster, first_id, first_text = db.execute("SELECT cluster, id, text FROM suggestions ORDER BY id LIMIT 1").fetchone()
    triage.reject_suggestion(db, sid, first_id)
    with FakeAPIServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        server.chat_handler = lambda messages, body: json.dumps(
            {"questions": [first_text.lower(), "How are [bold]webhooks[/bold] retried?", "What is the backup policy?"]})
        llm = make_llm("openai:gpt-test", db=db)
        added = triage.suggest_more(db, sid, cluster, llm)
        prompt = server.requests[-1].body["messages"]
        assert "passages" in prompt[0]["content"] and "[c" in prompt[1]["content"]
        server.chat_handler = lambda messages, body: '{"nope": 1}'
        with pytest.raises(BadInput, match="no usable suggestions"):
            triage.suggest_more(db, sid, cluster, make_llm("openai:gpt-other", db=db))
    texts = [t for (t,) in db.execute("SELECT text FROM suggestions WHERE id IN (%s)" % ",".join(map(str, added)))]
    assert texts == ["How are [bold]webhooks[/bold] retried?", "What is the backup policy?"]
    origins = {o for (o,) in db.execute("SELECT origin FROM suggestions WHERE id IN (%s)" % ",".join(map(str, added)))}
    assert origins == {"llm:openai:gpt-test"}
