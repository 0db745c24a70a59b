"""``builtin:bm25`` | ``builtin:dense`` | ``builtin:hybrid`` — a reference RAG over the corpus chunks.

Retrieval (top ``k`` chunks):

- ``bm25``   — Okapi BM25 from the ``bm25s`` library over the chunk texts (lower-cased word tokens,
  English stop words removed); chunks scoring 0 (no query word) are not returned.
- ``dense``  — cosine similarity between the question and the chunk vectors of the session's
  embedder; the chunk matrix is embedded once per system (and cached by the embedder's cache).
- ``hybrid`` — reciprocal-rank fusion of both full rankings: ``score(c) = sum 1 / (60 + rank(c))``.

Generation: with an LLM, the top chunks are shown as ``[chunk-id] text`` and the model is told to
answer only from them and cite the ids it used in [brackets]; the output is labelled
``llm:<model>``. Without an LLM the answer is *extractive* (labelled ``extractive``): the 1–3
sentences or table rows of the retrieved chunks that best answer the question (semantic +
lexical relevance, non-redundant), each followed by the id of its chunk in [brackets] — see
:mod:`ragcov_tui.evaluation.systems.extractive`.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

import bm25s
import numpy as np

from ragcov_tui.corpus.models import Chunk
from ragcov_tui.embeddings.base import Embedder
from ragcov_tui.evaluation.systems.base import DEFAULT_K, RetrievedChunk, SystemOutput
from ragcov_tui.evaluation.systems.extractive import extract_answer
from ragcov_tui.llm.base import ChatModel, ChatReply
from ragcov_tui.llm.prompt import Example, TextPrompt
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.progress import Progress

RETRIEVERS = ("bm25", "dense", "hybrid")
RRF_K = 60


class BuiltinSystem:
    """The reference pipeline: retrieve with ``retriever``, answer with ``llm`` or extractively."""

    def __init__(
        self, retriever: str, *, chunks: Sequence[Chunk], embedder: Embedder, llm: ChatModel | None, k: int = DEFAULT_K
    ) -> None:
        if retriever not in RETRIEVERS:
            raise BadInput(f"--system builtin:{retriever}: unknown retriever; choose one of {', '.join(RETRIEVERS)}")
        if not chunks:
            raise BadInput(f"--system builtin:{retriever}: needs a corpus (--corpus PATH) to retrieve from")
        self.name = f"builtin:{retriever}"
        self.retriever = retriever
        self.chunks = list(chunks)
        self.embedder = embedder
        self.llm = llm
        self.k = k
        self.label = f"llm:{llm.spec}" if llm else "extractive"
        self._lock = threading.Lock()
        self._bm25: bm25s.BM25 | None = None
        self._chunk_vecs: np.ndarray | None = None

    # -- retrieval ---------------------------------------------------------------------------
    def prepare(self, progress: Progress | None = None) -> None:
        """Index the chunks for BM25 and/or embed them, once (the pipeline calls this up front)."""
        with self._lock:
            if self.retriever != "dense" and self._bm25 is None:
                tokens = bm25s.tokenize([c.text for c in self.chunks], stopwords="en", show_progress=False)
                self._bm25 = bm25s.BM25()
                self._bm25.index(tokens, show_progress=False)
            if self.retriever != "bm25" and self._chunk_vecs is None:
                self._chunk_vecs = self.embedder.embed(
                    [c.text for c in self.chunks], progress=progress, stage="embedding chunks"
                )

    def bm25_scores(self, question: str) -> np.ndarray:
        self.prepare()
        words = bm25s.tokenize([question], stopwords="en", return_ids=False, show_progress=False)[0]
        assert self._bm25 is not None
        return self._bm25.get_scores(words) if words else np.zeros(len(self.chunks), dtype=np.float32)

    def dense_scores(self, question: str) -> np.ndarray:
        self.prepare()
        assert self._chunk_vecs is not None
        return self._chunk_vecs @ self.embedder.embed([question])[0]

    def retrieve(self, question: str) -> list[RetrievedChunk]:
        """The top ``k`` chunks for ``question``, best first, with the retriever's score."""
        if self.retriever == "bm25":
            scores = self.bm25_scores(question)
            order = [i for i in top_k(scores, self.k) if scores[i] > 0]
        elif self.retriever == "dense":
            scores = self.dense_scores(question)
            order = top_k(scores, self.k)
        else:
            scores = reciprocal_rank_fusion(
                [_ranked(self.bm25_scores(question)), _ranked(self.dense_scores(question))], len(self.chunks)
            )
            order = top_k(scores, self.k)
        return [RetrievedChunk(self.chunks[i].id, self.chunks[i].text, float(scores[i])) for i in order]

    def retrieve_only(self, question: str) -> SystemOutput:
        """The retrieved chunks without an answer: what a run scoring retrieval metrics only needs
        (no extractive answer, hence no sentence embedding)."""
        return SystemOutput(answer="", contexts=self.retrieve(question), label="retrieval only")

    # -- generation --------------------------------------------------------------------------
    def answer(self, question: str) -> SystemOutput:
        contexts = self.retrieve(question)
        text = (
            generate_cited_answer(self.llm, question, contexts)
            if self.llm
            else extract_answer(question, contexts, self.embedder)
        )
        return SystemOutput(answer=text, contexts=contexts, label=self.label)


ANSWER_MAX_TOKENS = (
    1024  # a cited answer of a few paragraphs; a small model would otherwise ramble to the context's end
)


@dataclass(frozen=True)
class RetrievedQuestion:
    question: str
    contexts: Sequence[RetrievedChunk]


class CitedAnswerPrompt(TextPrompt[RetrievedQuestion, str]):
    """The answer from the retrieved chunks only, citing their ids in [brackets] (the reply, stripped)."""

    name = "cited_answer"
    instruction = (
        "Answer the question using only the context passages below. Each passage starts with its id in "
        "[brackets]. After every statement, cite the id(s) of the passage(s) it comes from in [brackets], "
        "e.g. [doc.md#2-1a2b3c4d]. If the passages do not contain the answer, say you do not know."
    )
    max_tokens = ANSWER_MAX_TOKENS
    examples = (
        Example(
            RetrievedQuestion("What does Pro cost?", [RetrievedChunk("p.md#1", "Pro costs $49.", 1.0)]),
            " Pro costs $49. [p.md#1]\n",
            "Pro costs $49. [p.md#1]",
        ),
    )

    def user(self, data: RetrievedQuestion) -> str:
        passages = "\n\n".join(f"[{c.id}] {c.text}" for c in data.contexts) or "(no passages)"
        return f"Context passages:\n{passages}\n\nQuestion: {data.question}"

    def parse(self, data: RetrievedQuestion, reply: ChatReply) -> str:
        return reply.text.strip()


CITED_ANSWER = CitedAnswerPrompt()


def generate_cited_answer(llm: ChatModel, question: str, contexts: list[RetrievedChunk]) -> str:
    """Ask ``llm`` to answer from ``contexts`` only, citing passage ids in [brackets]."""
    return CITED_ANSWER.ask(llm, RetrievedQuestion(question, contexts))


def reciprocal_rank_fusion(rankings: Sequence[Sequence[int]], n: int, k: int = RRF_K) -> np.ndarray:
    """``score[i] = sum over rankings of 1 / (k + rank of i)`` with 1-based ranks."""
    scores = np.zeros(n, dtype=np.float64)
    for ranking in rankings:
        for rank, i in enumerate(ranking, start=1):
            scores[i] += 1.0 / (k + rank)
    return scores


def top_k(scores: np.ndarray, k: int) -> list[int]:
    """The first ``k`` of :func:`_ranked` without sorting everything: every index scoring at least
    the k-th best score, stably sorted (ties keep corpus order, exactly as the full sort)."""
    values = np.asarray(scores, dtype=np.float64)
    if len(values) <= 4 * k:
        return _ranked(values)[:k]
    kth = np.partition(values, len(values) - k)[len(values) - k]
    candidates = np.flatnonzero(values >= kth)
    return [int(i) for i in candidates[np.argsort(-values[candidates], kind="stable")][:k]]


def _ranked(scores: np.ndarray) -> list[int]:
    """Indices by descending score; ties keep corpus order (stable)."""
    return [int(i) for i in np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")]
