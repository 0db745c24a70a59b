"""The shapes of stored rows the store hands out: the read models of :mod:`ragcov_tui.store.queries`.

Two kinds, by where the row comes from:

- entries of a JSON document stay JSON-shaped (TypedDicts: plain dicts at run time):
  :class:`SessionRow` is a ``sessions`` row as :mod:`ragcov_tui.store.sessions` returns it (JSON
  columns decoded, ``live`` added; ``ragcov sessions --json`` prints a list of them);
  :class:`ClusterRow`, :class:`GapRow` and ``DocumentEntry`` are entries of the stored report with
  what the app adds; :class:`RedundantPairRow` pairs two questions;
- rows read from a per-item table are frozen dataclasses, read by attribute:
  :class:`ChunkRow`, :class:`SourceChunk`, :class:`OutlierRow`, :class:`SuggestionRow`,
  :class:`EvalItemRow`, :class:`EvalDetail`.

Rows written with sqlite-utils stay ``JsonObject`` (its ``insert`` takes no TypedDict).
``tests/core/test_json_contracts.py`` checks real session rows against :class:`SessionRow`.
No ``from __future__ import annotations`` here: TypedDict reads ``NotRequired`` from evaluated
annotations.
"""

from dataclasses import dataclass, field
from typing import TypedDict

from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.store.analysis_contract import ClusterEntry, GapEntry


class SessionRow(TypedDict):
    """One run (``kind`` "analysis" | "eval"); columns in table order (store/schema.py)."""

    id: str
    kind: str
    name: str | None
    status: str  # running | done | failed | cancelled | interrupted (a running row whose owner is gone)
    created_at: str
    finished_at: str | None
    user: str | None
    corpus: list[str] | None
    questions_path: str | None
    testset_sha256: str | None
    embedder: str | None
    llm: str | None
    system: str | None
    params: JsonObject | None  # every parameter of the run (credentials redacted)
    summary: JsonObject | None  # an AnalysisHeadline or an EvalHeadline
    timings: dict[str, float] | None
    usage: JsonObject | None  # an AnalysisUsage or an EvalUsage
    error: str | None
    pid: int | None  # the owner while it runs (store/liveness.py)
    host: str | None
    heartbeat_at: str | None
    progress: JsonObject | None  # the owner's latest {stage, done, total}
    live: bool  # a process is still working on it


class ClusterRow(ClusterEntry):
    """A cluster as the Clusters pane lists it (``store.queries.cluster_rows``)."""

    covering: int  # inlier questions whose nearest cluster it is


class RedundantPairRow(TypedDict):
    """Two near-duplicate questions (``store.queries.redundant_pairs``), ``a`` < ``b``."""

    a: str
    a_text: str
    b: str
    b_text: str


@dataclass(frozen=True)
class SuggestionRow:
    """A stored suggested question as the Gaps pane lists it (``store.queries.gap_rows``).

    Accepted in an edited form, ``text`` is what was written, ``edited`` True and ``suggested`` the
    original (None otherwise); ``chunk_id`` / ``form`` are None for suggestions stored without them.
    """

    id: int
    cluster: int
    text: str
    status: str  # open | accepted | rejected
    question_id: str | None  # the row written into the test file
    origin: str  # llm:<model> | heuristic
    chunk_id: str | None
    form: str | None
    edited: bool = False
    suggested: str | None = None


class GapRow(GapEntry):
    """A gap of the report as the Gaps pane lists it: ``rank`` (1 = highest priority), ``share`` of its
    cluster and the suggestions still open or accepted (``store.queries.gap_rows``)."""

    rank: int
    suggestions: list[SuggestionRow]


@dataclass(frozen=True)
class ChunkRow:
    """A chunk with its analysis figures (``cluster_chunk_page``, ``document_chunks``): ``mindist`` is
    the distance to the nearest inlier question (None: none), ``cluster`` None for a noise chunk."""

    chunk_id: str
    source: str
    cluster: int | None
    mindist: float | None
    nearest_question: str | None
    text: str


@dataclass(frozen=True)
class SourceChunk:
    """The chunk a suggestion was written from (``suggestion_chunk``); ``source`` and ``text`` None when
    the session holds no such chunk."""

    chunk_id: str
    source: str | None
    text: str | None


@dataclass(frozen=True)
class OutlierRow:
    """A question of the Outliers pane (``outlier_page``; ``lint_page`` adds ``kinds``, comma-separated,
    and ``reasons``, one per line) with its nearest chunk and triage ``mark`` (None: undecided)."""

    question_id: str
    text: str
    lof_score: float | None
    nearest_chunk: str | None
    nearest_chunk_dist: float | None
    chunk_text: str | None
    mark: str | None = None
    kinds: str | None = None
    reasons: str | None = None


@dataclass(frozen=True)
class EvalItemRow:
    """One eval item as the Results table lists it (``eval_page``): metric values by name (None: undefined)."""

    question_id: str
    seq: int
    status: str  # done | error
    question: str | None
    diagnosis: str | None
    retrieval: dict[str, float | None]
    generation: dict[str, float | None]


@dataclass(frozen=True)
class EvalDetail:
    """One eval item with its JSON columns decoded (``eval_detail``): what the item screen shows.

    ``retrieved`` is ``[{id, text, score, cited}]``, ``details`` the claims, verdicts, paraphrase
    answers and spreads, ``judge_calls`` ``[{metric, prompt, raw, error, repeat}]``; ``labels`` the
    people's labels of the item by metric (read apart, from ``store.labels``).
    """

    question_id: str
    seq: int
    status: str
    question: str | None
    answer: str | None
    retrieved: list[JsonObject]
    retrieval: dict[str, float | None]
    generation: dict[str, float | None]
    details: JsonObject
    judge_calls: list[JsonObject]
    diagnosis: str | None
    error: str | None
    finished_at: str | None
    labels: dict[str, int] = field(default_factory=dict)
