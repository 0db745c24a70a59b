"""Themes and suggested questions for clusters.

Offline (``origin: "heuristic"``):

* themes — :mod:`~ragcov_tui.coverage.ctfidf`: class-based TF-IDF over words and 2–3-word phrases
  of any language, corpus-wide terms pushed down, headings counted extra, no theme word shared by
  more than a third of the clusters, title-cased;
* suggested questions — :mod:`~ragcov_tui.coverage.suggest_offline`: shaped from the headings and
  sentences of the gap's least-covered chunks (so the suggestions target what the test set
  misses), each with the ``chunk_id`` it came from; a passage to ask about where the text is not
  English; none that repeats a test question. Template questions over corpus text: the report
  says so, and the TUI lets a person edit one before accepting it.

With an LLM (``ChatModel``): the model reads the cluster's most representative chunks and returns
``{"themes": [...], "questions": [...]}`` (:data:`~ragcov_tui.coverage.gap_prompts.THEMES`: checked,
cached by the LLM layer); any failure falls
back to the heuristic for that gap, never silently: the cause is kept in ``fallback`` and ``note``,
and :func:`llm_fallback` sums the gaps up for the report, the warning line and the exit code (an
``--llm`` that answered no call at all fails the run unless ``--allow-fallback``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ragcov_tui.coverage.ctfidf import cluster_themes
from ragcov_tui.coverage.gap_prompts import THEMES, GapPassages
from ragcov_tui.coverage.suggest_offline import Embed, offline_suggestions
from ragcov_tui.llm.base import ChatModel
from ragcov_tui.shared.concurrency import run_bounded
from ragcov_tui.shared.errors import ProviderError, Unreachable
from ragcov_tui.shared.number_text import count
from ragcov_tui.shared.progress import Progress
from ragcov_tui.store.analysis_contract import LlmFallback, SuggestedQuestion

HEURISTIC = "heuristic"
PASSAGE_NOTE = (
    "offline heuristic: this text is not English, so the suggestions name passages to ask about; "
    "use --llm for written questions"
)
SUGGESTION_CHUNKS = 24  # least-covered chunks an offline suggestion may come from


@dataclass
class ClusterThemes:
    themes: list[str]
    questions: list[SuggestedQuestion] = field(default_factory=list)
    origin: str = HEURISTIC
    note: str = ""
    fallback: str = ""  # why the LLM asked for this gap gave nothing usable (then the heuristic's are used)


ChunkText = tuple[str, str]  # (chunk id, text)


def heuristic_themes(
    texts_by_cluster: list[list[str]],
    n_themes: int,
    n_questions: int,
    question_chunks: dict[int, list[ChunkText]],
    *,
    existing: Sequence[str] = (),
    question_vecs: np.ndarray | None = None,
    embed: Embed | None = None,
) -> list[ClusterThemes]:
    """Offline themes for every cluster; offline suggestions for the clusters in ``question_chunks``.

    ``texts_by_cluster[k]`` lists cluster k's texts, most central (nearest the centroid) first;
    ``question_chunks[k]`` the chunks to draw gap k's suggestions from (least covered first);
    ``existing`` the test questions no suggestion may repeat (unit vectors ``question_vecs``,
    checked with ``embed`` when given).
    """
    themes, terms = cluster_themes(texts_by_cluster, n_themes)
    known = frozenset(terms.words)
    out = []
    for k, names in enumerate(themes):
        source = question_chunks.get(k)
        if not source:
            out.append(ClusterThemes(names))
            continue
        found, note = offline_suggestions(
            source[:SUGGESTION_CHUNKS],
            n_questions,
            existing=existing,
            question_vecs=question_vecs,
            embed=embed,
            known=known,
        )
        if any(c.form == "passage" for c in found):
            note = "; ".join(filter(None, [PASSAGE_NOTE, note]))
        out.append(ClusterThemes(names, [c.as_dict(HEURISTIC) for c in found], note=note))
    return out


def llm_themes(llm: ChatModel, central_texts: list[str], n_themes: int, n_questions: int) -> ClusterThemes | str:
    """Themes + questions from the LLM, or the error string when the reply is unusable."""
    result = THEMES.ask(llm, GapPassages(central_texts, n_themes, n_questions))
    if result.unreachable:  # no server at the address: the caller's fallback says so, exit 2
        raise Unreachable(result.error or "unreachable")
    if not result.ok:
        return result.error or "unusable reply"
    origin = f"llm:{llm.spec}"
    written = result.value()
    questions: list[SuggestedQuestion] = [{"text": s, "origin": origin} for s in written.questions]
    return ClusterThemes(written.themes, questions, origin)


def gap_themes(
    llm: ChatModel | None,
    texts_by_cluster: list[list[str]],
    gap_chunks: dict[int, list[ChunkText]],
    *,
    n_themes: int,
    n_questions: int,
    progress: Progress | None = None,
    existing: Sequence[str] = (),
    question_vecs: np.ndarray | None = None,
    embed: Embed | None = None,
) -> list[ClusterThemes]:
    """Themes for every cluster and suggested questions for each gap ``k`` in ``gap_chunks`` (LLM when
    given, else heuristic), drawn from ``gap_chunks[k]``: the gap's (chunk id, text), least covered
    first. Offline suggestions repeat no question of ``existing`` (see :func:`heuristic_themes`)."""
    base = heuristic_themes(
        texts_by_cluster, n_themes, n_questions, gap_chunks, existing=existing, question_vecs=question_vecs, embed=embed
    )
    gap_clusters = list(gap_chunks)
    if llm is None or not gap_clusters:
        return base
    outcomes = run_bounded(
        lambda k: llm_themes(llm, [t for _, t in gap_chunks[k]], n_themes, n_questions),
        gap_clusters,
        concurrency=4,
        progress=progress,
        stage="themes",
    )
    for k, outcome in zip(gap_clusters, outcomes, strict=True):
        value = outcome.value if outcome.ok else f"{type(outcome.error).__name__}: {outcome.error}"
        if isinstance(value, ClusterThemes):
            base[k] = value
        else:  # the reason llm_themes gave, or the exception
            base[k].fallback = str(value)
            base[k].note = f"heuristic themes and questions: the LLM failed ({value})"
    return base


NO_TEXT_NOTE = (
    "no themes or suggested questions: the corpus has no chunk text (a vector store: map it with --text-field)"
)


def textless_themes(k: int) -> list[ClusterThemes]:
    """What a corpus without text gives each of its ``k`` clusters: no theme, a note saying what is needed."""
    return [ClusterThemes(themes=[], note=NO_TEXT_NOTE) for _ in range(k)]


def llm_fallback(themes: list[ClusterThemes]) -> LlmFallback | None:
    """``{"gaps": failed, "asked": asked, "cause": first failure}`` when the LLM was asked for gap
    themes and failed for at least one gap (those gaps carry heuristic themes), else None."""
    failed = [t.fallback for t in themes if t.fallback]
    if not failed:
        return None
    asked = len(failed) + sum(1 for t in themes if t.origin != HEURISTIC)
    return {"gaps": len(failed), "asked": asked, "cause": failed[0]}


def check_llm_fallback(
    themes: list[ClusterThemes], llm_spec: str, *, allow: bool, warn: Callable[[str], None] | None
) -> None:
    """Say when gaps fell back to heuristic themes: one ``warn`` line naming how many and the first
    cause; a ProviderError (exit 1) instead when not one LLM call succeeded, unless ``allow``."""
    fallback = llm_fallback(themes)
    if fallback is None:
        return
    every = fallback["gaps"] == fallback["asked"]
    share = "every gap" if every else f"{count(fallback['gaps'])} of {count(fallback['asked'])} gaps"
    message = f"--llm {llm_spec}: themes and questions of {share} fell back to the heuristic ({fallback['cause']})"
    if every and not allow:  # no server at the address at all (Unreachable, exit 2), or a failing one
        failed = [t.fallback for t in themes if t.fallback]
        error = Unreachable if all(f.startswith(f"{Unreachable.__name__}: ") for f in failed) else ProviderError
        raise error(f"{message}; fix the model server, or pass --allow-fallback to accept heuristic themes")
    if warn is not None:
        warn(message)
