"""A synthetic held-out-topic corpus: the check the held-out benchmark runs on public corpora, in small.

``topics`` topics, each of ``docs`` documents of ``chunks`` chunks. A chunk's vector = its topic's
direction + its document's own direction (a narrow sub-topic) + noise; a question = the vector of
one chunk of its document (its gold document) + noise + a shared "question style" direction (the
query/document asymmetry of real embedders). Every document gets ``per_doc`` questions; then the
questions of the held-out documents are dropped.
"""

from __future__ import annotations

import numpy as np

from ragcov_tui.corpus.models import Chunk
from ragcov_tui.coverage.analysis import analyze
from ragcov_tui.coverage.params import CoverageParams
from ragcov_tui.coverage.result import CoverageResult
from ragcov_tui.testset.models import Question
from tests.coverage.coverage_data import unit

WORDS = ["billing", "login", "search", "export", "backup", "webhook", "mobile", "editor", "invoice", "token"]


def doc_name(topic: int, doc: int) -> str:
    return f"{WORDS[topic]}/doc{doc}.md"


def heldout_inputs(
    *,
    seed: int,
    held_out: set[tuple[int, int]],
    topics: int = 6,
    docs: int = 5,
    chunks: int = 4,
    per_doc: int = 2,
    dim: int = 48,
    gold: bool = True,
):
    """(chunk vectors, question vectors, chunks, questions, params) of the corpus without the questions
    of the ``held_out`` (topic, doc) pairs (module doc)."""
    rng = np.random.default_rng(seed)
    basis = np.linalg.qr(rng.standard_normal((dim, dim)))[0]
    topic_dirs = basis[:topics]
    doc_dirs = unit(rng.standard_normal((topics * docs, dim)))
    style = basis[-1]
    vecs, chunk_rows, question_vecs, questions = [], [], [], []
    for t in range(topics):
        for d in range(docs):
            source = doc_name(t, d)
            own = topic_dirs[t] + 0.45 * doc_dirs[t * docs + d]
            for c in range(chunks):
                vecs.append(own + 0.25 * rng.standard_normal(dim))
                chunk_rows.append(
                    Chunk(
                        f"{source}#{c}",
                        f"The {WORDS[t]} guide, part {d}.{c}: how {WORDS[t]} settings work for section {d} item {c}.",
                        source,
                        c,
                    )
                )
            if (t, d) in held_out:
                continue
            for j in range(per_doc):
                target = vecs[-1 - rng.integers(chunks)]
                question_vecs.append(target + 0.3 * rng.standard_normal(dim) + 0.6 * style)
                questions.append(
                    Question(
                        f"q{t}-{d}-{j}",
                        f"How do {WORDS[t]} settings work in section {d}?",
                        gold={source: 1.0} if gold else {},
                    )
                )
    params = CoverageParams(clusters=topics, max_projection_points=10, contamination=0.01)
    return unit(np.asarray(vecs)), unit(np.asarray(question_vecs)), chunk_rows, questions, params


def heldout_case(*, seed: int, held_out: set[tuple[int, int]], **kwargs) -> tuple[CoverageResult, set[str]]:
    """Analyse the corpus without the questions of the ``held_out`` (topic, doc) pairs; returns the
    result and the held-out document names."""
    C, Q, chunks, questions, params = heldout_inputs(seed=seed, held_out=held_out, **kwargs)
    return analyze(C, Q, chunks, questions, params), {doc_name(t, d) for t, d in held_out}


def topic_of(result: CoverageResult, sources: set[str]) -> set[int]:
    """The clusters holding most of the given documents' chunks."""
    labels = result.clustering.labels
    picked = [labels[i] for i, s in enumerate(result.chunk_sources) if s in sources]
    values, counts = np.unique(picked, return_counts=True)
    return {int(v) for v, c in zip(values, counts, strict=True) if c >= 0.25 * len(picked)}
