"""Gold ids from reference contexts, for questions the test file gives no gold ids.

Ragas / LlamaIndex ``reference_contexts``, DeepEval ``context`` and Giskard ``reference_context``
(``Question.reference_contexts``) are texts, not ids. Each is looked up in the corpus
(:class:`~ragcov_tui.evaluation.context_index.ContextIndex`), tiers tried in order per context:

1. ``exact``       — the normalised context is a substring of the normalised corpus;
2. ``near-exact``  — at least 75 % of its 4-word shingles found in one place;
3. ``seed``        — a question none of whose contexts matched by text gets Giskard's
   ``metadata.seed_document_id`` when that names a corpus id (by the rules of
   :mod:`ragcov_tui.testset.gold_ids`);
4. ``embedding``   — a context still unmatched takes the chunk whose vector (the run's embedder)
   has cosine ≥ :data:`EMBEDDING_MIN` with its own, the best one. Only a context's first
   :data:`~ragcov_tui.shared.input_values.EMBED_TEXT_CHARS` characters are embedded (the test-file
   reader warns, naming the line, when one is longer).

A context found in several chunks makes all of them gold (grade 1). Gold ids written in the test
file always win: a question that has any is left alone. The result counts contexts per tier and
says it in one line: ``gold from reference contexts: 41 exact, 3 near-exact, 2 by embedding (cos
≥ 0.9), 4 unmatched; 1 question from seed_document_id; 32 of 34 questions got gold ids``.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ragcov_tui.corpus.models import Chunk, Document
from ragcov_tui.embeddings.base import Embedder
from ragcov_tui.evaluation.context_index import ContextIndex
from ragcov_tui.shared.input_values import EMBED_TEXT_CHARS
from ragcov_tui.shared.number_text import count
from ragcov_tui.shared.progress import Progress
from ragcov_tui.store.eval_contract import GoldFromContexts
from ragcov_tui.testset.gold_ids import CorpusIds
from ragcov_tui.testset.models import Question

EMBEDDING_MIN = 0.9
_GISKARD_DOCUMENT = re.compile(r"(?m)^Document [^\n:]{1,80}:[ \t]*")  # how RAGET joins its context documents
_PARAGRAPHS = re.compile(r"\n[ \t]*\n")
TIERS = ("exact", "near-exact", "embedding")


@dataclass
class ContextGold:
    """What mapping reference contexts found: contexts per tier, questions given gold."""

    questions: int = 0  # questions without gold ids in the file that carry references
    explicit: int = 0  # questions with references whose file gold ids won
    matched_questions: int = 0
    contexts: Counter = field(default_factory=Counter)  # tier | "unmatched" | "too short" | "ambiguous"
    seed: int = 0
    embedded: int = 0  # texts the embedding tier asked the embedder for
    unmatched_examples: list[str] = field(default_factory=list)
    seconds: float = 0.0
    mapped: bool = True  # False: no corpus to find the texts in (no --corpus)

    def as_dict(self) -> GoldFromContexts:
        return {
            "mapped": self.mapped,
            "questions": self.questions,
            "explicit": self.explicit,
            "matched_questions": self.matched_questions,
            "contexts": {k: self.contexts.get(k, 0) for k in (*TIERS, "unmatched", "too short", "ambiguous")},
            "seed_document_id": self.seed,
            "embedding_min": EMBEDDING_MIN,
            "embedded": self.embedded,
            "unmatched_examples": self.unmatched_examples[:3],
            "seconds": round(self.seconds, 3),
        }


def context_gold_line(block: GoldFromContexts) -> str:
    """The report's one line for a ``gold_from_contexts`` block (see the module docstring)."""
    if not block.get("mapped", True):
        n = block.get("questions", 0)
        return f"gold from reference contexts: none mapped for {count(n)} question(s) (no --corpus to find them in)"
    counts = block.get("contexts") or {}
    parts = [
        f"{count(counts.get('exact', 0))} exact",
        f"{count(counts.get('near-exact', 0))} near-exact",
        f"{count(counts.get('embedding', 0))} by embedding (cos ≥ {block.get('embedding_min', EMBEDDING_MIN)})",
        f"{count(counts.get('unmatched', 0))} unmatched",
    ]
    parts += [f"{count(counts[k])} {k}" for k in ("too short", "ambiguous") if counts.get(k)]
    line = "gold from reference contexts: " + ", ".join(parts)
    if block.get("seed_document_id"):
        line += f"; {count(block['seed_document_id'])} question(s) from seed_document_id"
    if block.get("embedded"):
        line += f" ({count(block['embedded'])} texts embedded for it)"
    line += f"; {count(block.get('matched_questions', 0))} of {count(block.get('questions', 0))} questions got gold ids"
    if block.get("explicit"):
        line += f" ({count(block['explicit'])} more kept the test file's gold ids)"
    return line


def gold_from_contexts(
    questions: Sequence[Question],
    documents: Sequence[Document],
    chunks: Sequence[Chunk],
    roots: Iterable[str | Path] = (),
    embedder: Embedder | None = None,
    progress: Progress | None = None,
) -> ContextGold | None:
    """Set ``gold`` on every question without gold ids from its reference contexts / seed
    document id; None when no question carries either (nothing to say); ``mapped`` False and
    no gold set when there is no corpus."""
    t0 = time.perf_counter()
    carrying = [q for q in questions if q.reference_contexts or q.seed_document_id]
    if not carrying:
        return None
    result = ContextGold()
    todo = []
    for q in carrying:
        if any(g > 0 for g in q.gold.values()):
            result.explicit += 1
        else:
            todo.append(q)
    result.questions = len(todo)
    if not chunks:
        result.mapped = False
        return result
    index = ContextIndex(documents, chunks) if any(q.reference_contexts for q in todo) else None
    pending: list[tuple[Question, str]] = []  # contexts no text tier matched, for the embedding tier
    corpus_ids = None
    for q in todo:
        gold: dict[str, float] = {}
        misses = []
        for text in q.reference_contexts or []:
            outcome, found = _match(index, text) if index is not None else ("unmatched", [])
            result.contexts[outcome] += 1
            gold.update(dict.fromkeys(found, 1.0))
            if outcome == "unmatched":
                misses.append(text)
        if not gold and q.seed_document_id:
            corpus_ids = corpus_ids or CorpusIds(chunks, roots)
            target, _, _ = corpus_ids.resolve(q.seed_document_id)
            if target is not None:  # the question has gold: its unmatched texts stay counted, not embedded
                gold[target] = 1.0
                result.seed += 1
                misses = []
        pending += [(q, text) for text in misses]
        q.gold = gold
    _embedding_tier(pending, chunks, embedder, result, progress)
    for q, text in pending:
        if not q.gold and len(result.unmatched_examples) < 3:
            result.unmatched_examples.append(text[:80])
    result.matched_questions = sum(1 for q in todo if q.gold)
    result.seconds = time.perf_counter() - t0
    return result


def _match(index: ContextIndex, text: str) -> tuple[str, list[str]]:
    """``(outcome, chunk ids)`` for one reference context. A text of several passages (Giskard's
    ``Document <id>: …`` blocks, or paragraphs apart by a blank line, when the whole does not
    match) is matched passage by passage: the union of what they name, ``exact`` when every
    passage that matched did so exactly."""
    parts = [p for p in _GISKARD_DOCUMENT.split(text) if p.strip()]
    if len(parts) == 1:
        outcome, places = index.find(text)
        if outcome != "unmatched" or len(parts := [p for p in _PARAGRAPHS.split(text) if p.strip()]) == 1:
            return outcome, [cid for place in places for cid in place.chunk_ids]
    found = [index.find(part) for part in parts]
    tiers = {outcome for outcome, places in found if places}
    if not tiers:
        return ("too short" if all(o == "too short" for o, _ in found) else "unmatched"), []
    return ("exact" if tiers == {"exact"} else "near-exact"), [
        cid for _, places in found for p in places for cid in p.chunk_ids
    ]


def _embedding_tier(
    pending: list[tuple[Question, str]],
    chunks: Sequence[Chunk],
    embedder: Embedder | None,
    result: ContextGold,
    progress: Progress | None,
) -> None:
    """Match each pending context to its nearest chunk when the cosine is ≥ EMBEDDING_MIN (the
    corpus vectors come from the embedding cache when the run's system embedded it before)."""
    if not pending or not chunks or embedder is None or embedder.provider == "precomputed":
        return
    chunk_vectors = embedder.embed(
        [c.text for c in chunks], progress=progress, stage="embedding the corpus for reference contexts"
    )
    context_vectors = embedder.embed(
        [text[:EMBED_TEXT_CHARS] for _, text in pending], progress=progress, stage="embedding reference contexts"
    )
    result.embedded += len(chunks) + len(pending)
    sims = context_vectors @ chunk_vectors.T
    best = np.argmax(sims, axis=1)
    for (q, _), row, j in zip(pending, sims, best, strict=True):
        if row[j] >= EMBEDDING_MIN:
            q.gold[chunks[int(j)].id] = 1.0
            result.contexts["embedding"] += 1
            result.contexts["unmatched"] -= 1
