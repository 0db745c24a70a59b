"""The real OpenAI code paths end to end through the CLI, against a local protocol server.

``analyze --embedder openai:… --llm openai:…`` embeds over HTTP and asks the model for gap themes
and questions; a second identical run is served entirely from the SQLite caches (zero requests).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import CORPUS, QUESTIONS, run_cli
from tests.support.fake_api import FakeAPIServer


def themes_reply(messages: list[dict], body: dict) -> str:
    return json.dumps(
        {
            "themes": ["Search operators", "Quick search"],
            "questions": ["How do I search for an exact phrase?", "Which filters does search support?"],
        }
    )


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch):
    with FakeAPIServer(dim=64) as srv:
        srv.chat_handler = themes_reply
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
        monkeypatch.setenv("RAGCOV_RETRY_BASE_DELAY", "0.001")
        yield srv


def test_openai_embeddings_and_llm_themes_then_a_cached_rerun(server: FakeAPIServer, tmp_path: Path) -> None:
    db, out = tmp_path / "db", tmp_path / "r.json"
    argv = [
        "analyze",
        "--quiet",
        "--db",
        str(db),
        "--corpus",
        str(CORPUS),
        "--questions",
        str(QUESTIONS),
        "--embedder",
        "openai:text-embedding-3-small",
        "--llm",
        "openai:gpt-4o-mini",
        "--json",
        str(out),
        "--gap-threshold",
        "0.99",
    ]  # the paper's rule: gaps to ask the LLM about on the fake embedder
    assert run_cli(*argv) == 0
    report = json.loads(out.read_text())
    assert report["embedder"] == {"provider": "openai", "model": "text-embedding-3-small", "dim": 64}
    gap = report["gaps"][0]
    assert gap["themes"] == ["Search operators", "Quick search"]
    assert gap["suggested_questions"][0] == {
        "text": "How do I search for an exact phrase?",
        "origin": "llm:openai:gpt-4o-mini",
    }
    assert server.count("/embeddings") > 0 and server.count("/chat/completions") == len(report["gaps"])
    assert all(
        b"test-key" not in p.read_bytes() for p in tmp_path.glob("db*") if p.is_file()
    )  # the key is never stored
    emb = report["usage"]["embeddings"]
    assert emb["tokens"] > 0 and emb["cost_usd"] is None  # a list price is for api.openai.com, not this server
    before = len(server.requests)
    assert run_cli(*argv) == 0
    assert len(server.requests) == before  # embeddings and themes all from the cache


def test_server_errors_become_one_line_failures(server: FakeAPIServer, tmp_path: Path, capsys) -> None:
    server.fail_next(100, status=500)
    code = run_cli(
        "analyze",
        "--quiet",
        "--db",
        str(tmp_path / "db"),
        "--corpus",
        str(CORPUS),
        "--questions",
        str(QUESTIONS),
        "--embedder",
        "openai:text-embedding-3-small",
    )
    err = capsys.readouterr().err.strip()
    assert code == 1 and len(err.splitlines()) == 1 and "500" in err
