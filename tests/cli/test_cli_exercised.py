"""End-to-end: retrieval coverage (``analyze --eval-session``), retrievability probes (``eval --probes``)
and suggestions aimed at blind spots (issue #27 §3–§5), on a corpus built so that one chunk cannot
be retrieved by BM25 at k = 1: ``router-copy.md`` says what ``router.md`` says, padded with numbers,
so the shorter ``router.md`` outranks it for every question written from it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import QUESTIONS, run_cli
from tests.support.fake_api import FakeAPIServer, api_env

TOPICS = {
    "billing.md": "# Billing\n\nInvoices are emailed on the first day of each month. You can change the payment card "
    "in the billing settings.",
    "sso.md": "# Single sign-on\n\nSingle sign-on uses SAML with your identity provider. Certificates rotate every year.",
    "webhooks.md": "# Webhooks\n\nWebhooks post a JSON body to your endpoint. Failed deliveries are retried five times.",
    "sourdough.md": "# Sourdough\n\nFeed the starter with flour and water twelve hours before baking. The dough rises "
    "overnight in the fridge.",
    "mobile.md": "# Mobile apps\n\nThe mobile app works offline and syncs drafts when the phone reconnects.",
    "router.md": "# Router\n\nReset the router password from the admin console.",
}
TESTS = [
    ("q1", "When are invoices emailed?"),
    ("q2", "Which protocol does single sign-on use?"),
    ("q3", "How many times are failed webhook deliveries retried?"),
]
EXERCISED = {"billing.md", "sso.md", "webhooks.md"}  # one chunk each, the one its question retrieves
TRAFFIC = [("how do I feed the sourdough starter", 7), ("when are invoices emailed", 2)]


def write_corpus(root: Path) -> Path:
    """The corpus (``root/corpus``), the test file and a query log; returns ``root``."""
    docs = root / "corpus"
    docs.mkdir()
    for name, text in TOPICS.items():
        (docs / name).write_text(text + "\n")
    pad = " ".join(str(10000 + 7919 * i % 89999) for i in range(120))
    (docs / "router-copy.md").write_text(f"{TOPICS['router.md']}\n\n{pad}\n")
    (root / "questions.jsonl").write_text("".join(json.dumps({"id": i, "question": q}) + "\n" for i, q in TESTS))
    (root / "traffic.jsonl").write_text("".join(json.dumps({"query": q, "count": n}) + "\n" for q, n in TRAFFIC))
    return root


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("exercised"))


def _eval(root: Path, db: Path, *extra: str) -> int:
    return run_cli(
        "eval",
        "--quiet",
        "--db",
        str(db),
        "--questions",
        str(root / "questions.jsonl"),
        "--corpus",
        str(root / "corpus"),
        "--system",
        "builtin:bm25",
        "--k",
        "1",
        "--metrics",
        "retrieval",
        "--embedder",
        "hash",
        *extra,
    )


@pytest.fixture(scope="module")
def probed(corpus: Path) -> tuple[dict, Path]:
    """An eval at k = 1 with probes on every unexercised chunk; (report, db)."""
    db, out = corpus / "ragcov.db", corpus / "eval.json"
    assert (
        _eval(
            corpus, db, "--probes", "10", "--name", "probed", "--json", str(out), "--markdown", str(corpus / "eval.md")
        )
        == 0
    )
    return json.loads(out.read_text()), db


def test_a_probe_lists_the_chunk_bm25_cannot_return_and_finds_the_others(probed: tuple[dict, Path]) -> None:
    probes = probed[0]["probes"]
    assert probes["unexercised"] == 4 and probes["asked"] == 4 and probes["unwritable"] == 0
    assert probes["writer"] == "offline"
    assert [p["chunk_id"].split("#")[0] for p in probes["unretrievable"]] == ["router-copy.md"]
    assert sorted(i.split("#")[0] for i in probes["found_ids"]) == ["mobile.md", "router.md", "sourdough.md"]
    assert "router password" in probes["unretrievable"][0]["question"]


def test_probes_are_sampled_with_the_seed_within_the_budget(corpus: Path) -> None:
    db = corpus / "budget.db"
    picked = []
    for seed in ("1", "1", "2"):
        out = corpus / f"budget-{seed}.json"
        assert _eval(corpus, db, "--probes", "2", "--seed", seed, "--json", str(out)) == 0
        probes = json.loads(out.read_text())["probes"]
        assert probes["asked"] == 2 and probes["requested"] == 2
        picked.append(sorted(probes["found_ids"] + [p["chunk_id"] for p in probes["unretrievable"]]))
    assert picked[0] == picked[1]


def test_the_eval_markdown_lists_the_defect(probed: tuple[dict, Path], corpus: Path) -> None:
    text = (corpus / "eval.md").read_text()
    assert "## Retrievability probes" in text and "router-copy.md#0-" in text


def test_probes_refuse_a_records_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = tmp_path / "records.jsonl"
    records.write_text(json.dumps({"id": "q1", "answer": "x", "contexts": []}) + "\n")
    code = run_cli(
        "eval",
        "--quiet",
        "--db",
        str(tmp_path / "db"),
        "--questions",
        str(QUESTIONS),
        "--system",
        f"records:{records}",
        "--probes",
        "3",
    )
    assert code == 2 and "records: file answers only its own questions" in capsys.readouterr().err


@pytest.fixture(scope="module")
def joined(corpus: Path, probed: tuple[dict, Path]) -> tuple[dict, Path]:
    """``analyze --eval-session probed --traffic``; (report, folder)."""
    out = corpus / "analysis.json"
    assert (
        run_cli(
            "analyze",
            "--quiet",
            "--db",
            str(probed[1]),
            "--questions",
            str(corpus / "questions.jsonl"),
            "--corpus",
            str(corpus / "corpus"),
            "--embedder",
            "hash",
            "--clusters",
            "3",
            "--eval-session",
            "probed",
            "--traffic",
            str(corpus / "traffic.jsonl"),
            "--json",
            str(out),
            "--markdown",
            str(corpus / "analysis.md"),
        )
        == 0
    )
    return json.loads(out.read_text()), corpus


def test_exercised_share_per_cluster_and_document(joined: tuple[dict, Path], probed: tuple[dict, Path]) -> None:
    ex = joined[0]["exercised"]
    assert ex["eval_session"] == probed[0]["session_id"] and ex["k"] == 1 and ex["questions"] == 3
    assert (ex["chunks"], ex["exercised_chunks"]) == (7, 3) and ex["share"] == pytest.approx(3 / 7)
    assert (ex["documents"], ex["documents_exercised"]) == (7, 3) and ex["unmatched_ids"] == 0
    assert sorted(ex["blind_documents"]) == sorted(set(TOPICS) - EXERCISED | {"router-copy.md"})
    assert {d["source"] for d in ex["document_detail"] if d["exercised"]} == EXERCISED
    assert sum(c["exercised"] for c in ex["clusters"]) == 3 and sum(c["chunks"] for c in ex["clusters"]) == 7
    assert ex["blind_clusters"] == [c["cluster"] for c in ex["clusters"] if c["exercised"] == 0]


def test_blind_spots_name_the_logged_queries_and_the_defects(joined: tuple[dict, Path]) -> None:
    ex = joined[0]["exercised"]
    assert ex["traffic_queries"] == 9 and sum(c["traffic_queries"] for c in ex["clusters"]) == 9
    assert ex["blind_traffic"] == sum(c["traffic_queries"] for c in ex["clusters"] if c["exercised"] == 0)
    assert [d["source"] for d in ex["defects"]] == ["router-copy.md"]
    assert next(d for d in ex["document_detail"] if d["source"] == "router-copy.md")["unretrievable"] == 1


def test_suggestions_say_which_blind_spot_they_fix(joined: tuple[dict, Path]) -> None:
    found = [s for g in joined[0]["gaps"] for s in g["suggested_questions"]]
    assert found and all("fixes" in s for s in found)
    blind = {c["id"] for c in joined[0]["chunk_details"] if c["source"] not in EXERCISED}
    assert all(("never retrieved" in s["fixes"]) == (s["chunk_id"] in blind) for s in found)


def test_markdown_and_report_show_the_section(joined: tuple[dict, Path], capsys: pytest.CaptureFixture[str]) -> None:
    text = (joined[1] / "analysis.md").read_text()
    assert "## Retrieval coverage (chunks the test set exercises)" in text
    assert "3 of 7 chunks (42.9%)" in text and "### Retrievability probes" in text and "| fixes |" in text
    assert run_cli("report", "--db", str(joined[1] / "ragcov.db"), "latest-analysis") == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert "3 of 7 chunks (42.9%), 3 of 7 documents; blind spots:" in printed


def test_exercised_share_gate(joined: tuple[dict, Path], capsys: pytest.CaptureFixture[str]) -> None:
    root = joined[1]
    base = (
        "analyze",
        "--quiet",
        "--db",
        str(root / "ragcov.db"),
        "--questions",
        str(root / "questions.jsonl"),
        "--corpus",
        str(root / "corpus"),
        "--embedder",
        "hash",
        "--eval-session",
        "probed",
    )
    assert run_cli(*base, "--fail-under", "exercised_share=0.5") == 3
    assert "exercised_share: 0.4286 < required 0.5" in capsys.readouterr().err
    assert run_cli(*base, "--fail-under", "exercised_share=0.4") == 0


def test_gate_and_join_mistakes_are_exit_2(joined: tuple[dict, Path], capsys: pytest.CaptureFixture[str]) -> None:
    root = joined[1]
    base = (
        "analyze",
        "--quiet",
        "--db",
        str(root / "ragcov.db"),
        "--questions",
        str(root / "questions.jsonl"),
        "--embedder",
        "hash",
    )
    assert run_cli(*base, "--corpus", str(root / "corpus"), "--fail-under", "exercised_share=0.5") == 2
    assert "exercised_share: needs --eval-session" in capsys.readouterr().err
    assert run_cli(*base, "--corpus", str(root / "corpus"), "--eval-session", "latest-analysis") == 2
    assert "analysis" in capsys.readouterr().err
    other = root / "other"
    other.mkdir(exist_ok=True)
    (other / "x.md").write_text("# Other\n\nNothing the eval retrieved lives here.\n")
    assert run_cli(*base, "--corpus", str(other), "--eval-session", "probed") == 2
    assert "is a chunk or document of this corpus" in capsys.readouterr().err


def test_llm_writes_the_probe_questions(corpus: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With --llm the model writes each probe's question from the chunk (one request per chunk, no answers)."""
    prompts: list[str] = []

    def write(messages: list[dict], body: dict) -> str:
        passage = messages[-1]["content"].split("Passage 1:\n", 1)[1]
        prompts.append(passage)
        sentence = next(line for line in passage.splitlines() if line and not line.startswith("#"))
        return json.dumps({"themes": ["a", "b", "c"], "questions": [sentence.split(".")[0] + "?"]})

    out = corpus / "llm.json"
    with FakeAPIServer() as server:
        api_env(monkeypatch, server)
        server.chat_handler = write
        assert (
            _eval(corpus, corpus / "llm.db", "--probes", "10", "--llm", "openai:gpt-4o-mini", "--json", str(out)) == 0
        )
    probes = json.loads(out.read_text())["probes"]
    assert probes["writer"] == "llm:openai:gpt-4o-mini" and probes["asked"] == 4 and len(prompts) == 4
    assert [(p["chunk_id"].split("#")[0], p["form"], p["question"]) for p in probes["unretrievable"]] == [
        ("router-copy.md", "llm", "Reset the router password from the admin console?")
    ]


def test_a_sample_counts_its_own_chunks_and_every_retrieved_id_still_matches(joined: tuple[dict, Path]) -> None:
    root = joined[1]
    out = root / "sampled.json"
    assert (
        run_cli(
            "analyze",
            "--quiet",
            "--db",
            str(root / "ragcov.db"),
            "--questions",
            str(root / "questions.jsonl"),
            "--corpus",
            str(root / "corpus"),
            "--embedder",
            "hash",
            "--eval-session",
            "probed",
            "--sample",
            "5",
            "--json",
            str(out),
        )
        == 0
    )
    ex = json.loads(out.read_text())["exercised"]
    assert ex["chunks"] == 5 and ex["unmatched_ids"] == 0 and ex["exercised_chunks"] <= 3
