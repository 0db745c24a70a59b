"""Each system type: records (our, Ragas and DeepEval names), python callables, http, builtin."""

from __future__ import annotations

import json
import re
import sys
import textwrap
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from ragcov_tui.corpus.models import Chunk
from ragcov_tui.embeddings.hashing import HashEmbedder
from ragcov_tui.evaluation.systems.base import RetrievedChunk, SystemOutput, output_from_value
from ragcov_tui.evaluation.systems.builtin import reciprocal_rank_fusion
from ragcov_tui.evaluation.systems.factory import make_system
from ragcov_tui.evaluation.systems.http_system import HttpSystem
from ragcov_tui.shared.errors import BadInput, ProviderError
from ragcov_tui.shared.http_retry import RetryPolicy
from ragcov_tui.testset.models import Question
from tests.support.models import chat_model

CHUNKS = [
    Chunk("billing#0", "Invoices are sent on the first day of each month. Payment is due in 30 days.", "billing.md", 0),
    Chunk("billing#1", "Refunds are issued within 14 days to the original card.", "billing.md", 1),
    Chunk(
        "security#0",
        "Passwords must have twelve characters. Two-factor login uses an authenticator app.",
        "security.md",
        0,
    ),
    Chunk("setup#0", "Install the agent with the installer, then restart the server.", "setup.md", 0),
]


def _system(spec: str, **kw):
    return make_system(spec, chunks=CHUNKS, embedder=HashEmbedder(dim=128), llm=None, k=kw.pop("k", 2), **kw)


# -- records ---------------------------------------------------------------------------------------
def test_records_ragas_names_jsonl(tmp_path: Path) -> None:
    path = tmp_path / "ragas.jsonl"
    rows = [
        {
            "user_input": "When are invoices sent?",
            "response": "On the first day.",
            "retrieved_contexts": [CHUNKS[0].text, "some text not in the corpus"],
        }
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    out = _system(f"records:{path}").answer("when are invoices  sent?")
    assert out.answer == "On the first day."
    assert [c.id for c in out.contexts] == ["billing#0", "#2"]  # text matched to its chunk, else by rank


def test_records_deepeval_names_by_question_id(tmp_path: Path) -> None:
    path = tmp_path / "deepeval.json"
    path.write_text(
        json.dumps(
            [{"id": "q1", "actual_output": "Twelve characters.", "retrieved_context_ids": ["security#0", "setup#0"]}]
        )
    )
    q = Question(id="q1", text="How long must a password be?")
    system = _system(f"records:{path}", questions=[q])
    out = system.answer(q.text)
    assert out.answer == "Twelve characters."
    assert [(c.id, c.text) for c in out.contexts] == [("security#0", CHUNKS[2].text), ("setup#0", CHUNKS[3].text)]
    with pytest.raises(BadInput, match="no record"):
        system.answer("A question nobody recorded")


def test_records_csv_and_mismatched_lengths(tmp_path: Path) -> None:
    path = tmp_path / "records.csv"
    path.write_text('id,answer,retrieved_ids,retrieval_context\nq1,yes,"[""a"", ""b""]",only one\n')
    with pytest.raises(BadInput, match=r"records.csv:2: 2 retrieved ids but 1 retrieved contexts"):
        _system(f"records:{path}", questions=[Question(id="q1", text="Q?")])  # refused on reading


def test_records_row_without_outputs_is_bad_input(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"id": "q1", "note": "nothing"}) + "\n")
    with pytest.raises(BadInput, match=r"bad.jsonl:1.*no answer or retrieved field"):
        _system(f"records:{path}")


# -- python callables ------------------------------------------------------------------------------
@pytest.fixture()
def user_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    (tmp_path / "my_rag_eval_mod.py").write_text(
        textwrap.dedent("""
        import asyncio
        CALLS = []
        def answer(q):
            CALLS.append(q)
            return {"answer": "sync " + q, "contexts": [{"id": "billing#0", "text": "t", "score": 0.9}, "plain"]}
        async def answer_async(q):
            await asyncio.sleep(0)
            return ("async " + q, [{"id": "setup#0", "text": "t"}])
        def broken(q):
            return 42
        NOT_CALLABLE = 3
    """)
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "my_rag_eval_mod"
    sys.modules.pop("my_rag_eval_mod", None)


def test_python_callable_sync_and_async(user_module: str) -> None:
    out = _system(f"python:{user_module}:answer").answer("hi")
    assert out.answer == "sync hi"
    assert out.contexts == [RetrievedChunk("billing#0", "t", 0.9), RetrievedChunk("#2", "plain")]
    out = _system(f"python:{user_module}:answer_async").answer("hi")
    assert out.answer == "async hi" and out.contexts[0].id == "setup#0"


def test_python_callable_bad_specs(user_module: str) -> None:
    for spec, message in [
        ("python:nocolon", "expected python:package.module:function"),
        ("python:no_such_module_xyz:f", "cannot import"),
        (f"python:{user_module}:missing", "has no attribute"),
        (f"python:{user_module}:NOT_CALLABLE", "is not callable"),
    ]:
        with pytest.raises(BadInput, match=message):
            _system(spec)
    with pytest.raises(BadInput, match="expected {'answer'"):
        _system(f"python:{user_module}:broken").answer("q")


def test_output_shapes() -> None:
    given = SystemOutput("a", [RetrievedChunk("x", "t")])
    assert output_from_value(given, "w") == given
    with pytest.raises(BadInput, match="'score' must be a number"):
        output_from_value({"answer": "a", "contexts": [{"id": "x", "text": "t", "score": "high"}]}, "w")
    with pytest.raises(BadInput, match="'answer' must be a string"):
        output_from_value({"answer": 3}, "w")


# -- http ------------------------------------------------------------------------------------------
class _Handler(BaseHTTPRequestHandler):
    fail_first = 1
    requests: list[dict] = []

    def do_POST(self) -> None:  # noqa: N802 (http.server naming)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append(body)
        if type(self).fail_first > 0:
            type(self).fail_first -= 1
            self.send_response(500)
            self.end_headers()
            self.wfile.write(b"boom")
            return
        reply = json.dumps({"answer": "echo " + body["question"], "contexts": [{"id": "c1", "text": "t"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture()
def http_server():
    _Handler.fail_first, _Handler.requests = 1, []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/rag"
    server.shutdown()
    server.server_close()


def test_http_system_retries_500_then_succeeds(http_server: str) -> None:
    system = HttpSystem(http_server, policy=RetryPolicy(attempts=3, base_delay=0.001, timeout=5))
    out = system.answer("what?")
    assert out.answer == "echo what?" and out.contexts[0].id == "c1"
    assert _Handler.requests == [{"question": "what?"}] * 2


def test_http_system_gives_up_with_provider_error(http_server: str) -> None:
    _Handler.fail_first = 10
    system = HttpSystem(http_server, policy=RetryPolicy(attempts=2, base_delay=0.001, timeout=5))
    with pytest.raises(ProviderError, match="HTTP 500"):
        system.answer("q")
    with pytest.raises(BadInput, match="expected an http:// or https:// URL"):
        _system("http:ftp://x")


def test_a_bare_url_is_the_http_scheme(http_server: str) -> None:
    for spec in (http_server, f"http:{http_server}"):
        system = _system(spec)
        assert isinstance(system, HttpSystem) and system.answer("hi").answer == "echo hi"


# -- builtin ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("retriever", ["bm25", "dense", "hybrid"])
def test_builtin_retrievers_find_the_right_chunk(retriever: str) -> None:
    out = _system(f"builtin:{retriever}").answer("How many characters must passwords have?")
    assert out.contexts[0].id == "security#0"
    assert len(out.contexts) <= 2 and out.label == "extractive"
    cited = re.findall(r"\[([^\]]+)\]", out.answer)
    assert cited and set(cited) <= {c.id for c in out.contexts}
    assert "twelve characters" in out.answer


def test_builtin_bm25_drops_chunks_sharing_no_word() -> None:
    assert _system("builtin:bm25").answer("zebra quantum").contexts == []


def test_reciprocal_rank_fusion() -> None:
    scores = reciprocal_rank_fusion([[0, 1, 2], [2, 0, 1]], 3)
    assert scores[0] == pytest.approx(1 / 61 + 1 / 62)
    assert scores[2] == pytest.approx(1 / 63 + 1 / 61)


def test_builtin_and_factory_bad_input() -> None:
    with pytest.raises(BadInput, match="unknown retriever"):
        _system("builtin:tfidf")
    with pytest.raises(BadInput, match="needs a corpus"):
        make_system("builtin:bm25", chunks=[], embedder=HashEmbedder(dim=8))
    with pytest.raises(BadInput, match="unknown scheme 'grpc'.*records:FILE"):
        _system("grpc:x")


def test_builtin_generates_with_llm_citing_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.support.fake_api import FakeAPIServer

    with FakeAPIServer() as server:
        monkeypatch.setenv("OPENAI_API_KEY", "k")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        server.chat_handler = lambda messages, body: "Twelve characters [security#0]."
        system = make_system(
            "builtin:hybrid", chunks=CHUNKS, embedder=HashEmbedder(dim=128), llm=chat_model("openai:gen"), k=2
        )
        out = system.answer("How many characters must passwords have?")
        prompt = server.requests[-1].body["messages"]
    assert out.answer == "Twelve characters [security#0]." and out.label == "llm:openai:gen"
    assert "[security#0] Passwords must have twelve characters." in prompt[-1]["content"]
    assert "[brackets]" in prompt[0]["content"]
