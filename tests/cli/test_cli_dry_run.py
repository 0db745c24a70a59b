"""``--dry-run`` (issue #25): what a run would embed, call and cost, without one remote call,
without a session, and close to what the real run then embeds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import CORPUS, QUESTIONS, run_cli
from tests.support.fake_api import FakeAPIServer
from tests.vectorstores.stores import build_parquet, sample_rows

EMBEDDER = "openai:text-embedding-3-small"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch):
    with FakeAPIServer(dim=64) as srv:
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
        monkeypatch.setenv("RAGCOV_RETRY_BASE_DELAY", "0.001")
        yield srv


def dry_run(tmp_path: Path, *argv: str) -> dict:
    out = tmp_path / "plan.json"
    assert run_cli(*argv, "--quiet", "--db", str(tmp_path / "db"), "--dry-run", "--json", str(out)) == 0
    return json.loads(out.read_text())


def test_analyze_dry_run_calls_nothing_writes_no_session_and_counts_the_real_runs_tokens(
    server: FakeAPIServer, tmp_path: Path
) -> None:
    inputs = [
        "analyze",
        "--corpus",
        str(CORPUS),
        "--questions",
        str(QUESTIONS),
        "--embedder",
        EMBEDDER,
        "--llm",
        "openai:gpt-4o-mini",
    ]
    plan = dry_run(tmp_path, *inputs)
    assert server.requests == []  # not one request: no embedding, no chat, no model list
    assert not (tmp_path / "db").exists()  # no database, so no session
    assert plan["cached"] == 0 and plan["to_embed"] == plan["texts"] > 0
    assert plan["embedding_paid"] and plan["embedding_cost_usd"] is None  # no list price at a local server
    assert plan["embedding_seconds"] is None  # a remote embedder is not calibrated (that would call it)
    assert plan["llm"] == "openai:gpt-4o-mini" and plan["llm_calls_bound"] > 0

    assert run_cli(*inputs, "--quiet", "--db", str(tmp_path / "db")) == 0
    again = dry_run(tmp_path, *inputs)  # the cache is read: nothing left to embed
    assert again["to_embed"] == 0 and again["cached"] == again["texts"] and again["tokens"] == 0


def test_a_sampled_run_plans_the_sample(server: FakeAPIServer, tmp_path: Path) -> None:
    inputs = ["analyze", "--corpus", str(CORPUS), "--questions", str(QUESTIONS), "--embedder", EMBEDDER]
    whole = dry_run(tmp_path, *inputs)
    sampled = dry_run(tmp_path, *inputs, "--sample", "20")
    assert sampled["chunks"] == 20 < whole["chunks"] and sampled["to_embed"] < whole["to_embed"]
    assert server.requests == []


def test_a_price_makes_a_cost(server: FakeAPIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGCOV_PRICE_PER_MTOK", "text-embedding-3-small=0.02")
    plan = dry_run(tmp_path, "analyze", "--corpus", str(CORPUS), "--questions", str(QUESTIONS), "--embedder", EMBEDDER)
    assert plan["embedding_cost_usd"] == pytest.approx(plan["tokens"] * 0.02 / 1e6)


def test_eval_dry_run_counts_the_judge_calls_and_calls_nothing(
    server: FakeAPIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = dry_run(
        tmp_path,
        "eval",
        "--corpus",
        str(CORPUS),
        "--questions",
        str(QUESTIONS),
        "--system",
        "builtin:dense",
        "--embedder",
        EMBEDDER,
        "--judge-llm",
        "openai:gpt-4o-mini",
        "--metrics",
        "faithfulness,answer_relevance",
        "--repeats",
        "2",
    )
    assert server.requests == [] and not (tmp_path / "db").exists()
    questions = sum(1 for line in QUESTIONS.read_text().splitlines() if line.strip())
    assert plan["questions"] == questions
    assert plan["llm_calls"] == questions * 2 * (2 + 1)  # faithfulness: claims, then verdicts; relevance: one
    assert plan["texts"] == plan["chunks"] + questions  # the dense index and the questions


def test_a_per_claim_judge_mode_says_its_verification_calls_are_not_counted(
    server: FakeAPIServer, tmp_path: Path
) -> None:
    plan = dry_run(
        tmp_path,
        "eval",
        "--corpus",
        str(CORPUS),
        "--questions",
        str(QUESTIONS),
        "--system",
        "builtin:bm25",
        "--judge-llm",
        "openai:gpt-4o-mini",
        "--metrics",
        "faithfulness",
        "--judge-mode",
        "graded",
    )
    assert server.requests == []
    assert (
        "--judge-mode graded: faithfulness ask one verification call per claim, known only during the run "
        "(counted above as one)"
    ) in plan["notes"]


def test_local_dry_run_tokens_and_time_are_the_real_runs(tmp_path: Path) -> None:
    """The bundled model's own tokenizer: the plan's tokens are the run's (±30% is the promise; the
    word pieces of every window make it exact up to the texts the offline suggestions embed), and the
    calibrated time is of the order of the run's embedding time."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name in ("faq.md", "webhooks.md", "billing-and-plans.md", "mobile-apps.txt", "sso-and-scim.md"):
        (corpus / name).write_text((CORPUS / name).read_text())
    questions = tmp_path / "questions.jsonl"
    questions.write_text("".join(QUESTIONS.read_text().splitlines(keepends=True)[:8]))
    inputs = ["analyze", "--corpus", str(corpus), "--questions", str(questions), "--embedder", "local"]
    plan = dry_run(tmp_path, *inputs)
    assert plan["tokens_exact"] and plan["tokens_per_second"] > 0
    real = tmp_path / "real.json"
    assert run_cli(*inputs, "--quiet", "--db", str(tmp_path / "db"), "--json", str(real)) == 0
    report = json.loads(real.read_text())
    tokens = report["usage"]["embeddings"]["tokens"]
    assert abs(plan["tokens"] - tokens) <= 0.3 * tokens
    assert plan["embedding_seconds"] < 20 * report["timings"]["embed"]  # a loaded machine varies, but not 20×


def test_local_dry_run_times_the_embedding_on_this_machine(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "db"
    assert (
        run_cli(
            "analyze",
            "--quiet",
            "--db",
            str(db),
            "--corpus",
            str(CORPUS),
            "--questions",
            str(QUESTIONS),
            "--embedder",
            "hash",
            "--dry-run",
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "nothing was embedded, called or written" in out and "free (runs on this machine)" in out
    assert "tokens/s measured" in out and not db.exists()


def test_eval_dry_run_reads_a_vector_store_as_the_corpus_and_as_the_system(
    server: FakeAPIServer, tmp_path: Path
) -> None:
    rows = sample_rows()
    store = build_parquet(tmp_path / "store.parquet", rows)
    questions = sum(1 for line in QUESTIONS.read_text().splitlines() if line.strip())
    dense = dry_run(
        tmp_path,
        "eval",
        "--corpus",
        store,
        "--questions",
        str(QUESTIONS),
        "--system",
        "builtin:dense",
        "--embedder",
        EMBEDDER,
    )
    assert dense["chunks"] == len(rows.ids) and dense["texts"] == len(rows.ids) + questions  # the index embeds texts
    searched = dry_run(tmp_path, "eval", "--questions", str(QUESTIONS), "--system", store, "--embedder", EMBEDDER)
    assert searched["texts"] == questions  # the store's own index: only the questions are embedded
    assert server.requests == [] and not (tmp_path / "db").exists()
