"""The ``analyze --json`` report, typed: the contract the engine writes and every reader relies on.

:class:`AnalysisReport` is what ``coverage.result.CoverageResult.to_report()`` builds, what
``services.analysis_job.run_analysis`` returns (with ``llm``, ``timings``, ``usage`` and, with
``--traffic``, ``traffic`` added) and what :func:`ragcov_tui.store.analysis.load_analysis_report`
reassembles from the store. The types live in the store, the lowest layer that reads the report
back; the engine above fills them in. They are TypedDicts: the report stays a plain JSON dict.

``NotRequired`` keys may be absent; ``X | None`` values may be null (an undefined number is None,
never NaN). ``tests/core/test_json_contracts.py`` checks a real report against these types, key for
key, so this module is the written-down contract.
No ``from __future__ import annotations`` here: TypedDict reads ``NotRequired`` from evaluated
annotations.
"""

from typing import Any, NotRequired, TypedDict

from ragcov_tui.store.eval_contract import ProbeReport
from ragcov_tui.store.lint_contract import LintSection
from ragcov_tui.store.traffic_contract import TrafficSection


class EmbedderInfo(TypedDict):
    provider: str | None
    model: str | None
    dim: int


class CorpusCounts(TypedDict):
    documents: int
    chunks: int


class QuestionCounts(TypedDict):
    total: int
    inliers: int
    outliers: int


class CoverageFigures(TypedDict):
    """The paper's four coverage figures (None: no inlier question) and the calibrated covered share."""

    basic: float | None
    weighted: float | None
    multi_threshold: float | None
    multi_n: float | None
    threshold: float
    top_n: int
    covered_share: float | None


class Calibration(TypedDict):
    """The answering radius and the gap rule (``coverage/calibration.py``, ``coverage/gaps.py``)."""

    radius: float | None
    radius_from: str | None  # "gold" | "nearest chunk"
    radius_questions: int
    chunks_within_reach: int
    gap_rule: str  # "calibrated" | "threshold" | "undefined"
    gap_cut: float | None
    median_covered_share: float | None
    spread: float | None
    coverage_cut: float | None
    median_coverage: float | None
    uneven_text: str
    text: str
    gaps_text: str


class ClusterReachEntry(TypedDict):
    """A cluster's calibrated figures (``coverage/reach.py``), in both ``clusters[]`` and ``gaps[]``."""

    covered_share: float | None
    priority: float
    uneven: bool
    unreached_documents: list[str]
    unreached_share: float
    documents_without_gold: list[str] | None  # None without gold ids


class ClusterEntry(ClusterReachEntry):
    id: int
    size: int
    share: float
    coverage: float | None
    gap: bool
    themes: list[str]
    covering_questions: list[str]


class SuggestedQuestion(TypedDict):
    text: str
    origin: str
    chunk_id: NotRequired[str | None]  # the chunk it was written from (absent from some LLM replies)
    form: NotRequired[str | None]
    fixes: NotRequired[list[str]]  # with --eval-session: "far from every question" and / or "never retrieved"


class GapEntry(ClusterReachEntry):
    cluster: int
    coverage: float | None
    size: int
    share: float
    themes: list[str]
    themes_origin: str
    suggested_questions: list[SuggestedQuestion]
    flagged_documents: list[str]
    note: str
    advice: str


class DocumentEntry(TypedDict):
    """One document (``coverage/documents.py`` ``DocumentCoverage``), in rank order (1 = least covered)."""

    source: str
    chunks: int
    coverage: float | None
    flagged: bool
    reason: str
    reach: float | None
    covered_share: float | None
    unreached: bool
    gold_count: int | None
    rank: int


class GoldSummary(TypedDict):
    questions_with_gold: int
    questions_matched: int
    documents: int
    documents_named: int
    documents_unnamed: int
    unnamed: list[str]


class OutlierDetection(TypedDict):
    method: str
    rule: str
    threshold: float | None
    neighbors: int
    query_offset: float
    reference_chunks: int


class ClusteringSummary(TypedDict):
    k: int
    k_requested: int | str | None
    method: str
    silhouette: dict[str, float]  # K tried → silhouette (keys are the K as strings)


class RedundantPair(TypedDict):
    a: str
    b: str
    distance: float


class Redundancy(TypedDict):
    threshold: float
    pairs: list[RedundantPair]
    epsilon: float
    removal_impact: dict[str, float]  # inlier question id → basic coverage lost without it
    removable: list[str]


class MapSummary(TypedDict):
    method: str
    points_embedded: int
    max_points: int


class LlmFallback(TypedDict):
    """Gaps whose LLM themes failed and got heuristic ones instead."""

    gaps: int
    asked: int
    cause: str


class HeuristicUse(TypedDict):
    themes: bool
    suggestions: bool
    note: str


class QuestionDetail(TypedDict):
    id: str
    text: str
    lof_score: float | None
    outlier: bool
    nearest_cluster: int
    nearest_chunk: str
    nearest_chunk_dist: float | None
    redundant_with: list[str]
    x: float
    y: float


class ChunkDetail(TypedDict):
    id: str
    source: str
    cluster: int
    mindist: float | None  # None: no inlier question
    nearest_question: str | None
    x: float
    y: float


class AnalysisUsage(TypedDict):
    embeddings: dict[str, Any]  # the embedder's usage() (embeddings/base.py)
    llm: dict[str, Any] | None  # the chat model's usage (llm/base.py), None without --llm


class SampleCluster(TypedDict):
    cluster: int
    chunks: int  # sampled chunks in the cluster
    coverage: list[float] | None  # 95% interval [low, high]; None when undefined
    covered_share: list[float] | None


class SampleEstimate(TypedDict):
    """``--sample N``: the figures are estimates from ``chunks`` of ``of`` (coverage/sampling.py)."""

    chunks: int
    of: int
    method: str
    interval: str  # how the 95% intervals are made
    text: str  # "estimated from N of M chunks"
    basic: list[float] | None
    covered_share: list[float] | None
    clusters: list[SampleCluster]


class SpaceCheckEntry(TypedDict):
    """Did ``--embedder`` reproduce the store's vectors (embeddings/space_check.py)? ``checked`` False: skipped."""

    embedder: str
    checked: bool
    sample: int
    min_cos: float | None
    median_cos: float | None
    line: str


class VectorStoreSection(TypedDict):
    """The vector store the corpus was read from (``--corpus lancedb:…``), its field mapping and the space check."""

    spec: str
    engine: str
    fields: dict[str, str | None]
    rows: int
    dim: int
    has_text: bool
    space_check: SpaceCheckEntry


class ExercisedCluster(TypedDict):
    cluster: int
    chunks: int
    exercised: int
    share: float | None
    themes: list[str]
    traffic_queries: int | None  # logged queries whose nearest chunk is in it (None without --traffic)


class ExercisedDocument(TypedDict):
    source: str
    chunks: int
    exercised: int
    share: float
    unretrievable: int  # its probed chunks the system did not return when asked directly


class ProbeDefect(TypedDict):
    """A chunk the system did not return even for a question written from it."""

    chunk_id: str
    source: str
    cluster: int
    question: str


class ExercisedSection(TypedDict):
    """Retrieval coverage (``analyze --eval-session``, coverage/exercised.py)."""

    eval_session: str
    system: str
    k: int
    questions: int  # the eval's questions with retrieved contexts
    chunks: int
    exercised_chunks: int
    share: float | None
    documents: int
    documents_exercised: int
    document_share: float | None
    unmatched_ids: int  # retrieved ids naming no chunk or document of this corpus
    blind_clusters: list[int]
    blind_documents: list[str]
    blind_traffic: int | None  # logged queries landing in blind clusters (None without --traffic)
    traffic_queries: int | None
    clusters: list[ExercisedCluster]
    document_detail: list[ExercisedDocument]  # least exercised first
    probes: ProbeReport | None  # the eval's retrievability probes (eval --probes N)
    defects: list[ProbeDefect]


class AnalysisReport(TypedDict):
    """The whole ``analyze --json`` report (docs/architecture.md, "JSON contracts")."""

    session_id: str | None
    embedder: EmbedderInfo
    corpus: CorpusCounts
    questions: QuestionCounts
    coverage: CoverageFigures
    message: str | None
    adjustments: list[str]
    calibration: Calibration
    clusters: list[ClusterEntry]
    gaps: list[GapEntry]
    documents: list[DocumentEntry]
    gold: GoldSummary | None
    outlier_detection: OutlierDetection
    clustering: ClusteringSummary
    redundancy: Redundancy
    map: MapSummary
    llm_fallback: LlmFallback | None
    heuristic: HeuristicUse
    params: dict[str, Any]  # coverage/params.py CoverageParams as used (adjusted to what the data allows)
    question_details: NotRequired[list[QuestionDetail]]  # left out with details=False (and in the store)
    chunk_details: NotRequired[list[ChunkDetail]]
    llm: NotRequired[str]  # "heuristic" or the --llm spec: known to the job and the sessions row
    timings: NotRequired[dict[str, float]]
    usage: NotRequired[AnalysisUsage]
    traffic: NotRequired[TrafficSection]  # with --traffic only
    sample: NotRequired[SampleEstimate]  # with --sample only
    vector_store: NotRequired[VectorStoreSection]  # with a vector store as the corpus only
    exercised: NotRequired[ExercisedSection]  # with --eval-session only
    lint: NotRequired[LintSection]  # test-set lint and stale gold (absent from reports of older ragcov versions)


class AnalysisHeadline(TypedDict):
    """The figures stored in ``sessions.summary`` of an analysis (session lists, trend charts)."""

    basic: float | None
    weighted: float | None
    multi_threshold: float | None
    multi_n: float | None
    covered_share: float | None
    documents: int | None
    chunks: int | None
    questions: int | None
    inliers: int | None
    outliers: int | None
    gaps: int
    flagged_documents: int
