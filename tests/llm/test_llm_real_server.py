"""Against llama.cpp's real server with SmolLM2-135M (tests/support/llama_server.py): structured replies,
the cache, context overflow, an unlisted model name, and ``--llm llamacpp:PATH`` in process.

The server runs with a 1,024-token context and 2 threads; through ``openai:`` (no grammar bounds)
``RAGCOV_LLM_MAX_TOKENS`` keeps replies short, so the module stays near a minute on a loaded 2-core box;
``llamacpp:`` runs keep the schemas' caps, which the grammar bounds fit in. A 135M model's replies are
often poor; what is checked is that each one is parsed (llama.cpp enforces the schema by grammar)
or becomes a recorded item error, never a crash, and that a second run asks nothing it already
had an answer to.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from ragcov_tui.cli.main import main
from ragcov_tui.evaluation.generation.claim_prompts import VERIFY, ClaimsInPassages
from ragcov_tui.evaluation.generation.prompts import RELEVANCE, QuestionAnswer
from ragcov_tui.llm.base import JsonResult
from ragcov_tui.llm.json_reply import complete_json
from ragcov_tui.llm.openai_chat import OpenAIChat
from tests.support.llama_server import LlamaServer, llama  # noqa: F401 (the session fixture)

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("llama")]  # one server, on one worker

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"
REPLY_CAP = "96"
TOKEN_COUNTERS = ("prompt_tokens_total", "prompt_tokens_cached_total", "tokens_predicted_total", "n_decode_total")


@pytest.fixture
def via_proxy(llama: LlamaServer, monkeypatch: pytest.MonkeyPatch) -> LlamaServer:
    """``openai:`` specs reach the server through the counting proxy; replies capped."""
    monkeypatch.setenv("OPENAI_API_KEY", "local")
    monkeypatch.setenv("OPENAI_BASE_URL", llama.base_url)
    monkeypatch.setenv("RAGCOV_LLM_MAX_TOKENS", REPLY_CAP)
    monkeypatch.setenv("RAGCOV_RETRY_BASE_DELAY", "0.01")
    return llama


def token_counters(server: LlamaServer) -> dict[str, float]:
    metrics = server.metrics()
    return {name: metrics[name] for name in TOKEN_COUNTERS}


def test_analyze_with_llamacpp_in_process_then_cached(
    llama: LlamaServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name, value in llama.env.items():
        monkeypatch.setenv(name, value)  # the fixture's settings: the run reuses its server
    monkeypatch.delenv("RAGCOV_LLM_MAX_TOKENS", raising=False)  # the schema's own cap: its bounds fit in it
    data = tmp_path / "sample_data"
    shutil.copytree(SAMPLE, data)
    db = tmp_path / "ragcov.db"
    runs = []
    for run in ("cold", "cached"):
        before = token_counters(llama)
        code = main(
            [
                "analyze",
                "-q",
                "--db",
                str(db),
                "--corpus",
                str(data / "corpus"),
                "--questions",
                str(data / "questions.jsonl"),
                "--embedder",
                "hash",
                "--llm",
                f"llamacpp:{llama.model}",
                "--allow-fallback",
                "--json",
                str(tmp_path / f"{run}.json"),
            ]
        )
        assert code == 0
        after = token_counters(llama)
        runs.append({k: after[k] - before[k] for k in TOKEN_COUNTERS})
    cold, cached = (json.loads((tmp_path / f"{run}.json").read_text()) for run in ("cold", "cached"))
    assert runs[0]["tokens_predicted_total"] > 0 and cold["usage"]["llm"]["requests"] >= 1  # the cold run asked
    assert cold["usage"]["llm"]["failed"] == 0
    failed_gaps = [g for g in cold["gaps"] if g["themes_origin"] == "heuristic"]
    for gap in cold["gaps"]:  # themes parsed from the model, or the fallback says why
        assert gap["themes_origin"].startswith("llm:") or "the LLM failed (" in gap["note"]
    if failed_gaps:  # an unusable exchange is forgotten, so asking again really asks (issue #17): the same requests
        assert cached["usage"]["llm"]["requests"] == cold["usage"]["llm"]["requests"]
    else:  # everything came from the cache: the server saw nothing
        assert cached["usage"]["llm"]["requests"] == 0 and runs[1] == dict.fromkeys(TOKEN_COUNTERS, 0)
        assert cached["gaps"] == cold["gaps"]  # the same answers, from the cache


def test_eval_judge_llm_three_items_then_cached(via_proxy: LlamaServer, tmp_path: Path) -> None:
    items = [json.loads(line) for line in (SAMPLE / "questions.jsonl").read_text().splitlines()[:3]]
    questions, records = tmp_path / "q.jsonl", tmp_path / "records.jsonl"
    questions.write_text(
        "".join(json.dumps({k: it[k] for k in ("id", "question", "ground_truth")}) + "\n" for it in items)
    )
    records.write_text(
        "".join(json.dumps({"id": it["id"], "answer": it["ground_truth"], "contexts": []}) + "\n" for it in items)
    )
    reports, requests = [], []
    for run in ("cold", "cached"):
        before = via_proxy.requests()
        code = main(
            [
                "eval",
                "-q",
                "--db",
                str(tmp_path / "ragcov.db"),
                "--questions",
                str(questions),
                "--system",
                f"records:{records}",
                "--embedder",
                "hash",
                "--judge-llm",
                f"openai:{via_proxy.local.model}",
                "--metrics",
                "answer_relevance,answer_correctness",
                "--json",
                str(tmp_path / f"{run}.json"),
                "--no-preflight",
            ]
        )  # a 135M judge may fail the probe: its items' handling is what is pinned
        assert code == 0
        requests.append(via_proxy.requests() - before)
        reports.append(json.loads((tmp_path / f"{run}.json").read_text()))
    cold = reports[0]
    assert requests[0] == cold["usage"]["llm_requests"] >= 6  # 3 items x 2 judges, + a repair per unusable reply
    assert set(via_proxy.statuses()) == {200}
    for item in cold["questions"]:  # every judgement parsed into a score in [0, 1], or an item error saying why
        for metric in ("answer_relevance", "answer_correctness"):
            value = item["generation"].get(metric)
            assert (value is not None and 0 <= value <= 1) or metric in item["errors"] or item["status"] == "error"
    assert all("judge reply unusable" in e["error"] for e in cold["errors"])
    # the second run: every parsed reply served by the cache; only unusable ones are asked again (ask + repair)
    assert requests[1] == 2 * len(cold["errors"])
    assert reports[1]["aggregate"] == cold["aggregate"] or cold["errors"]


def test_the_judge_preflight_judges_the_small_model_in_one_line(via_proxy: LlamaServer) -> None:
    """The probe reaches the real server and is judged: a 135M model without grammar bounds often
    replies off-shape or wrong, and then the preflight says so in one line naming the model."""
    from ragcov_tui.evaluation.generation.preflight import preflight_judge
    from ragcov_tui.shared.errors import BadInput

    try:
        preflight_judge(OpenAIChat(via_proxy.local.model))
    except BadInput as exc:
        assert str(exc).startswith(f"judge preflight failed for openai:{via_proxy.local.model}: ")
        assert "\n" not in str(exc)


def test_a_graded_judge_reads_the_verdict_probability_from_the_real_server(via_proxy: LlamaServer) -> None:
    """llama.cpp returns the likeliest tokens of each position (its n_probs, asked as OpenAI's
    logprobs / top_logprobs), streamed: the graded verdict is P(yes) / (P(yes) + P(no)), a number
    strictly between 0 and 1 (no 135M model is certain)."""
    from ragcov_tui.evaluation.generation.graded import TOP_LOGPROBS
    from ragcov_tui.evaluation.generation.judge import Judge

    llm = OpenAIChat(via_proxy.local.model)
    reply = llm.chat(
        [{"role": "user", "content": "Is Paris in France? Answer yes or no."}], max_tokens=2, logprobs=TOP_LOGPROBS
    )
    assert reply.top_logprobs and all(len(top) <= TOP_LOGPROBS for top in reply.top_logprobs)
    assert all(value <= 0.0 for top in reply.top_logprobs for value in top.values())
    calls: list[dict] = []
    verdicts = Judge(llm, 0, calls, "graded").verify(
        "faithfulness",
        ["The Pro plan costs $49 per month."],
        [("p0", "The Pro plan costs $49 per month and includes 5 team seats.")],
    )
    p = verdicts[0]["p_supported"]
    assert 0.0 < p < 1.0 and verdicts[0]["verdict"] == ("supported" if p >= 0.5 else "not_found")
    assert len(calls) == 1 and calls[0]["error"] is None and calls[0]["p_supported"] == round(p, 6)


def test_a_passage_longer_than_the_context_is_trimmed_answered_and_not_retried(via_proxy: LlamaServer) -> None:
    llm = OpenAIChat(via_proxy.local.model)  # an openai: model: the context size is learned from the refusal
    passage = " ".join(f"The Skein team plan costs {i} dollars per member." for i in range(400))  # ~4,000 tokens
    messages = [
        {"role": "system", "content": "Judge the claim against the passage. Reply with JSON only."},
        {"role": "user", "content": f"Passages:\n[billing] {passage}\n\nClaims:\n1. The plan costs 8 dollars."},
    ]
    before = len(via_proxy.statuses())
    result: JsonResult[Any] = complete_json(
        llm, messages, schema=VERIFY.reply_schema(ClaimsInPassages(["The plan costs 8 dollars."], []))
    )
    statuses = via_proxy.statuses()[before:]
    assert statuses[:2] == [400, 200]  # refused once for its length, then answered trimmed
    assert statuses.count(400) == 1  # never the same prompt four times
    assert llm.window.n_ctx == via_proxy.n_ctx
    assert result.ok or "unusable JSON" in (result.error or "")
    # the next long prompt is trimmed before it is sent
    before = len(via_proxy.statuses())
    llm.chat(
        [messages[0], {"role": "user", "content": messages[1]["content"].replace("8 dollars", "9 dollars")}],
        max_tokens=16,
    )
    assert via_proxy.statuses()[before:] == [200]


def test_a_model_name_the_server_does_not_serve_still_gets_answers(via_proxy: LlamaServer) -> None:
    llm = OpenAIChat("gpt-4o-mini")  # llama.cpp answers any name with its one model
    result: JsonResult[Any] = complete_json(
        llm,
        [
            {"role": "system", "content": "Reply with JSON only."},
            {"role": "user", "content": "Question: Is Paris in France?\n\nAnswer: yes"},
        ],
        schema=RELEVANCE.reply_schema(QuestionAnswer("Is Paris in France?", "yes")),
    )
    assert result.ok or "unusable JSON" in (result.error or "")
    assert llm.usage.as_dict()["failed"] == 0 and via_proxy.statuses()[-1] == 200


def test_embedder_llamacpp_embeds_in_process_and_caches_by_file(
    llama: LlamaServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from ragcov_tui.embeddings.factory import make_embedder
    from ragcov_tui.store.db import open_db

    monkeypatch.setenv("RAGCOV_LLAMACPP_CTX", "512")  # a second server, in embedding mode (mean pooling)
    db = open_db(tmp_path / "e.db")
    texts = ["How much does the Team plan cost?", "The Team plan costs $8 per member.", "Mobile apps sync offline."]
    embedder = make_embedder(f"llamacpp:{llama.model}", db=db)
    vectors = embedder.embed(texts)
    assert vectors.shape == (3, 576) and abs(float(vectors[0] @ vectors[0]) - 1) < 1e-4
    assert embedder.spec == f"llamacpp:{llama.model}" and embedder.cache_model.startswith("llamacpp://")
    again = make_embedder(f"llamacpp:{llama.model}", db=db)
    assert (again.embed(texts) == vectors).all() and again.usage()["embedded"] == 0  # from the cache
