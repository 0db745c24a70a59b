"""Suggested questions for a gap, beyond those the analysis wrote: stored for triage to accept or reject.

:func:`more_suggestions` (``g`` in the app's Gaps pane) asks the LLM the session ran with
(:data:`~ragcov_tui.coverage.gap_prompts.MORE_QUESTIONS`, :func:`suggest_more`) or, without one, the
offline heuristic (:func:`suggest_more_heuristic`). Either way :func:`add_suggestions` stores only
texts not already taken: blank, already suggested for the gap, rejected for the test file, or a
question of the file. Decisions on them are :mod:`ragcov_tui.services.triage`'s.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

import numpy as np
import sqlite_utils

from ragcov_tui.coverage.gap_prompts import MORE_QUESTIONS, GapQuestions
from ragcov_tui.llm.base import ChatModel
from ragcov_tui.services.writeback import testset_path
from ragcov_tui.shared.errors import BadInput, RagcovError
from ragcov_tui.store import decisions as log
from ragcov_tui.store.sessions import get_session
from ragcov_tui.store.suggestions import (
    add_suggestion,
    gap_suggestion_texts,
    least_covered_chunks,
    session_question_texts,
)
from ragcov_tui.testset import writer
from ragcov_tui.testset.reader import read_testset

if TYPE_CHECKING:  # the suggester's lexicon imports scikit-learn (0.6 s): not at the app's start
    from ragcov_tui.coverage.suggest_offline import Embed

HEURISTIC_ORIGIN = "heuristic"


def _taken_keys(db: sqlite_utils.Database, sid: str, cluster: int, path: str) -> set[str]:
    """Normalised texts a new suggestion for ``cluster`` must not repeat: the gap's own suggestions,
    every text rejected for this test file, and the questions of the file (as stored by the session,
    plus the file on disk when it can be read)."""
    taken = log.rejected_keys(db, path)
    taken |= {writer.text_key(t) for t in gap_suggestion_texts(db, sid, cluster)}
    taken |= {writer.text_key(t) for t in session_question_texts(db, sid)}
    with contextlib.suppress(BadInput):  # moved or unreadable: the stored questions stand in for it
        taken |= {writer.text_key(q.text) for q in read_testset(path).questions}
    return taken


def add_suggestions(
    db: sqlite_utils.Database,
    sid: str,
    cluster: int,
    texts: list[str],
    origin: str,
    sources: list[tuple[str, str]] | None = None,
) -> list[int]:
    """Store new suggestions for a gap, skipping blanks and texts already taken (see ``_taken_keys``);
    ``sources[i]`` is text ``i``'s (chunk id, form) when known (NULL otherwise)."""
    seen = _taken_keys(db, sid, cluster, testset_path(db, sid))
    ids = []
    for i, text in enumerate(texts):
        key = writer.text_key(text)
        if not key or key in seen:
            continue
        seen.add(key)
        chunk_id, form = sources[i] if sources else (None, None)
        ids.append(add_suggestion(db, sid, cluster, text.strip(), origin, chunk_id, form))
    return ids


def suggest_more_heuristic(
    db: sqlite_utils.Database, sid: str, cluster: int, *, n: int = 3, passages: int = 40
) -> list[int]:
    """``n`` more offline suggestions for a gap; returns the ids stored (origin ``heuristic``).

    The coverage engine's own heuristic (:func:`ragcov_tui.coverage.suggest_offline.offline_suggestions`:
    questions shaped from headings and sentences, or passages to ask about in a text that is not
    English) runs over the gap's ``passages`` least-covered chunks — more of them than the
    analysis read. Candidates already suggested, rejected or in the test file (or close to one
    of them in wording, or — with the session's question vectors and embedder — in meaning) are
    skipped, so each call goes further down the list. ``[]`` when nothing new is left.
    """
    from ragcov_tui.coverage.lexicon import words
    from ragcov_tui.coverage.suggest_offline import offline_suggestions

    chunks = least_covered_chunks(db, sid, cluster, passages)
    if not chunks:
        raise BadInput(f"cluster {cluster}: no chunks stored for it in session {sid}")
    taken = _taken_keys(db, sid, cluster, testset_path(db, sid))
    known = frozenset(w for _, text in chunks for w in words(text))
    question_vecs, embed = paraphrase_check(db, sid)
    found, _ = offline_suggestions(
        chunks, n, existing=sorted(taken), known=known, question_vecs=question_vecs, embed=embed
    )
    return add_suggestions(
        db, sid, cluster, [c.text for c in found], HEURISTIC_ORIGIN, [(c.chunk_id, c.form) for c in found]
    )


def paraphrase_check(db: sqlite_utils.Database, sid: str) -> tuple[np.ndarray | None, Embed | None]:
    """The session's stored question vectors and its embedder's ``embed``, so that a suggestion
    close in meaning to a test question is dropped; (None, None) when the session stored no
    vectors or its embedder cannot be built here."""
    from ragcov_tui.embeddings.factory import make_embedder
    from ragcov_tui.store.vectors import load_vectors

    _, vecs = load_vectors(db, sid, "question")
    session = get_session(db, sid)
    spec = None if session is None else session["embedder"]
    if not len(vecs) or not spec:
        return None, None
    try:
        return vecs, make_embedder(spec, db=db).embed
    except RagcovError:
        return None, None


def more_suggestions(db: sqlite_utils.Database, sid: str, cluster: int, *, n: int = 3) -> tuple[list[int], str]:
    """``g`` in Gaps: more suggestions for a gap from the LLM the session ran with, or the offline
    heuristic when it ran without one. Returns (ids stored, origin: ``llm:<spec>`` or ``heuristic``)."""
    from ragcov_tui.llm.factory import make_llm

    session = get_session(db, sid)
    llm = make_llm(None if session is None else session["llm"], db=db)
    if llm is None:
        return suggest_more_heuristic(db, sid, cluster, n=n), HEURISTIC_ORIGIN
    return suggest_more(db, sid, cluster, llm, n=n), f"llm:{llm.spec}"


def suggest_more(
    db: sqlite_utils.Database, sid: str, cluster: int, llm: ChatModel, *, n: int = 3, passages: int = 6
) -> list[int]:
    """Ask ``llm`` for ``n`` more questions for a gap cluster (from its least-covered chunks); store the new ones.

    Returns the ids of the suggestions added (rejected and duplicate texts are skipped).
    BadInput when the model's reply cannot be used.
    """
    from ragcov_tui.store.queries import analysis_report, cluster_chunk_page

    themes: list[str] = next(
        (g.get("themes", []) for g in analysis_report(db, sid).get("gaps", []) if g["cluster"] == cluster), []
    )
    chunks = cluster_chunk_page(db, sid, cluster, limit=passages).rows
    asked = GapQuestions(themes, [(c.chunk_id, c.text) for c in chunks], gap_suggestion_texts(db, sid, cluster), n)
    reply = MORE_QUESTIONS.ask(llm, asked)
    if not reply.ok:
        raise BadInput(f"{llm.spec}: no usable suggestions ({reply.error})")
    return add_suggestions(db, sid, cluster, reply.value(), f"llm:{llm.spec}")
