"""Fixtures of the worked example: a BEIR folder, a judge, and the two runs the tests assert on.

A team would point ``JUDGE`` at its judge (``openai:gpt-4o-mini``, ``llamacpp:model.gguf``, an
Ollama model through ``OPENAI_BASE_URL``) and ``BEIR`` at its benchmark folder. Here, so that
``pytest examples/`` runs offline, the judge is the test suite's fake OpenAI-compatible server on
127.0.0.1 (``tests/support/fake_api.py``) answering by rule (``RuleJudge``; an answer is correct
when it holds 60% of the reference answer's words), and the folder is the bundled sample in the BEIR layout
(``beir_sample.py``). BEIR folders carry no reference answers, so ``ragcov references`` writes
them first from each query's relevant documents (by the same fake model: the document sentence
sharing most words with the query), into a new file marked synthetic.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from examples.beir_sample import write_beir
from ragcov_tui.evaluation.references import REFERENCE

pytest_plugins = ["ragcov_tui.pytest_plugin.plugin"]  # a no-op where ragcov is installed (entry point pytest11)

SAMPLE = Path(__file__).resolve().parent.parent / "sample_data"
JUDGE = "openai:judge-model"
K = 5


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


def fake_reference(user: str) -> str:
    """The sentence of the passages sharing most words with the query (what the fake model "writes")."""
    passages, query = user.split("Passages:\n", 1)[1].rsplit("\n\nQuery: ", 1)
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n+", passages) if len(s.split()) > 3 and "[" not in s[:1]]
    return max(sentences, key=lambda s: len(_words(s) & _words(query)))


@pytest.fixture(scope="session")
def judge_server():
    """The fake judge, with the environment an OpenAI-compatible judge needs (restored after)."""
    from tests.evaluation.generation.gen_fake_judge import RuleJudge
    from tests.support.fake_api import FakeAPIServer

    class ExampleJudge(RuleJudge):
        def correctness(self, user: str, system: str) -> dict:  # most of the reference's words in the answer
            reference = _words(user.split("Reference answer: ", 1)[1].split("\n\n", 1)[0])
            answer = _words(user.split("\n\nAnswer: ", 1)[1])
            correct = len(reference & answer) >= 0.6 * len(reference)
            return {"correct": correct, "rationale": "agrees with the reference" if correct else "misses it"}

    rules = ExampleJudge()

    def reply(messages: list[dict], body: dict) -> str:
        if messages[0]["content"] == REFERENCE.instruction:
            return fake_reference(messages[1]["content"])
        return rules(messages, body)

    with FakeAPIServer() as server, pytest.MonkeyPatch.context() as env:
        for name, value in (
            ("OPENAI_API_KEY", "test-key"),
            ("OPENAI_BASE_URL", server.base_url),
            ("RAGCOV_RETRY_BASE_DELAY", "0.001"),
        ):
            env.setenv(name, value)
        server.chat_handler = reply
        yield server


@pytest.fixture(scope="session")
def beir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_beir(SAMPLE, tmp_path_factory.mktemp("data") / "skein-beir")


@pytest.fixture(scope="session")
def retrieval(ragcov_eval, beir):
    """Retrieval only, as on any BEIR benchmark: BM25 against the relevance judgements."""
    return ragcov_eval(questions=beir, system="builtin:bm25", k=K)


@pytest.fixture(scope="session")
def references(ragcov_references, judge_server, beir, tmp_path_factory) -> Path:
    return ragcov_references(beir, llm=JUDGE, out=tmp_path_factory.mktemp("refs") / "references.jsonl")


@pytest.fixture(scope="session")
def answers(ragcov_eval, judge_server, references, beir):
    """BM25 with extractive answers, judged for correctness against the synthetic references."""
    return ragcov_eval(
        questions=references,
        corpus=beir / "corpus.jsonl",
        system="builtin:bm25",
        k=K,
        judge_llm=JUDGE,
        metrics=["answer_correctness", "recall"],
    )
