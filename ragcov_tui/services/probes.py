"""Retrievability probes (``ragcov eval --probes N``): is an unexercised chunk a test gap or a defect?

After an eval, the chunks no test question retrieved in its top ``k`` are *unexercised*
(:mod:`ragcov_tui.coverage.exercised`). ``N`` of them are drawn uniformly at random with the
run's seed; for each, one question is written from the chunk itself by the offline suggestion
writer (:func:`ragcov_tui.coverage.suggest_offline.chunk_candidates`: the best-shaped question
from its headings and sentences, else the passage itself: its first specific heading or sentence,
as outside English; with ``--llm``, the model writes it from the chunk with the gaps' suggestion
prompt) and put to the system
under test. A chunk that comes back in the top ``k`` is *retrievable*: no question asks about it
yet (a test gap). One that does not, even when asked from its own words, is listed as
*unretrievable*: a corpus or index defect (boilerplate, a broken extraction, a chunk the index
lost), which a new test question would not fix. A sampled chunk that gives no question is counted
``unwritable``; a probe the system fails on is counted in ``errors``. The budget is ``N`` system
calls, asked ``concurrency`` at a time, each a retrieval only where the system can skip the answer
(``retrieve_only``: the builtin systems, a vector store).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ragcov_tui.corpus.models import Chunk
from ragcov_tui.coverage.exercised import exercised_mask
from ragcov_tui.coverage.suggest_offline import Candidate, chunk_candidates, passage
from ragcov_tui.coverage.themes import llm_themes
from ragcov_tui.evaluation.systems.base import System
from ragcov_tui.llm.base import ChatModel
from ragcov_tui.shared.concurrency import run_bounded
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.progress import Progress
from ragcov_tui.store.eval_contract import ProbeAsked, ProbeReport

STAGE = "probing unexercised chunks"
PASSAGE_WRAP = ("Ask about: «", "»")  # suggest_offline's passage form: the system is asked the passage itself


def check_probes(probes: int, system: str, chunks: Sequence[Chunk]) -> None:
    """BadInput before any work when probes cannot be asked: a records file answers only the
    questions it holds, and probes are written from the corpus's chunks."""
    if probes and system.startswith("records:"):
        raise BadInput(
            f"--probes {probes}: a records: file answers only its own questions; probes need a system that "
            "answers new ones (python:, http:, builtin:, a vector store)"
        )
    if probes and not chunks:
        raise BadInput(f"--probes {probes}: needs the corpus (--corpus) to write the probes from")


def probe_question(chunk: Chunk) -> Candidate | None:
    """The question a probe asks about ``chunk``: the best-shaped one, else the passage itself (its
    first specific heading or sentence); None when the chunk has neither."""
    found = chunk_candidates(chunk.id, chunk.text)
    if not found:
        text = passage(chunk.text)
        return None if text is None else Candidate(text, chunk.id, "passage")
    best = found[0]
    head, tail = PASSAGE_WRAP
    if best.form == "passage" and best.text.startswith(head) and best.text.endswith(tail):
        return Candidate(best.text[len(head) : -len(tail)], best.chunk_id, best.form)
    return best


def llm_probe_question(llm: ChatModel, chunk: Chunk) -> Candidate | None:
    """One question the ``--llm`` model writes for ``chunk`` (the gaps' suggestion prompt, one
    passage, one question), or None when its reply is unusable."""
    written = llm_themes(llm, [chunk.text], 3, 1)
    if isinstance(written, str) or not written.questions:
        return None
    return Candidate(written.questions[0]["text"], chunk.id, "llm")


def run_probes(
    system: System,
    chunks: Sequence[Chunk],
    retrieved: Sequence[Sequence[str]],
    *,
    n: int,
    k: int,
    seed: int,
    concurrency: int,
    llm: ChatModel | None = None,
    progress: Progress | None = None,
) -> ProbeReport:
    """Ask about ``n`` sampled unexercised chunks (module doc); ``retrieved``: each test question's
    retrieved ids, best first; ``llm``: the model that writes the questions (offline when None, and
    for a chunk whose LLM reply is unusable)."""
    mask, _ = exercised_mask(chunks, [ids[:k] for ids in retrieved])
    unexercised = np.flatnonzero(~mask)
    rng = np.random.default_rng(seed)
    picked = [chunks[i] for i in np.sort(rng.choice(unexercised, size=min(n, len(unexercised)), replace=False))]
    retrieve = getattr(system, "retrieve_only", None) or system.answer  # no answer needed where it can be skipped

    def ask(chunk: Chunk) -> tuple[Candidate | None, bool]:
        question = (llm_probe_question(llm, chunk) if llm is not None else None) or probe_question(chunk)
        if question is None:
            return None, False
        ids = [c.id for c in retrieve(question.text).contexts[:k]]
        return question, bool(exercised_mask([chunk], [ids])[0][0])

    outcomes = run_bounded(ask, picked, concurrency=concurrency, progress=progress, stage=STAGE)
    asked = [(chunk, o.value) for chunk, o in zip(picked, outcomes, strict=True) if o.ok and o.value and o.value[0]]
    found = [chunk.id for chunk, (_, hit) in asked if hit]
    missed: list[ProbeAsked] = [
        {"chunk_id": chunk.id, "question": q.text, "form": q.form}
        for chunk, (q, hit) in asked
        if q is not None and not hit
    ]
    errors = sum(not o.ok for o in outcomes)
    return {
        "requested": n,
        "unexercised": len(unexercised),
        "seed": seed,
        "k": k,
        "writer": f"llm:{llm.spec}" if llm is not None else "offline",
        "asked": len(asked),
        "found": len(found),
        "unwritable": len(picked) - len(asked) - errors,
        "errors": errors,
        "found_ids": found,
        "unretrievable": missed,
    }
