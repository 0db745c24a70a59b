"""The result of one analysis and its ``analyze --json`` report (typed in :mod:`ragcov_tui.store.analysis_contract`).

``CoverageResult.to_report()`` returns every contract key. ``session_id`` and ``embedder``
{provider, model} are not known to the engine: the caller sets ``result.session_id`` /
``result.embedder`` before calling, or overwrites the keys afterwards (``embedder.dim`` is always
filled from the vectors). Undefined numbers are ``None``, never NaN; ``message`` explains why.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ragcov_tui.coverage.advice import gap_advice
from ragcov_tui.coverage.clustering import Clustering
from ragcov_tui.coverage.documents import DocumentCoverage
from ragcov_tui.coverage.gaps import Gap
from ragcov_tui.coverage.gold import GoldCoverage
from ragcov_tui.coverage.outliers import OutlierResult
from ragcov_tui.coverage.params import CoverageParams
from ragcov_tui.coverage.projection import Projection
from ragcov_tui.coverage.reach import ClusterReach
from ragcov_tui.coverage.themes import HEURISTIC, ClusterThemes, llm_fallback
from ragcov_tui.store.analysis_contract import (
    AnalysisReport,
    Calibration,
    ChunkDetail,
    ClusterEntry,
    ClusterReachEntry,
    CoverageFigures,
    DocumentEntry,
    EmbedderInfo,
    ExercisedSection,
    GapEntry,
    QuestionDetail,
    SampleEstimate,
    VectorStoreSection,
)


def gap_note(gap: Gap, themes_note: str) -> str:
    """The gap's note: misplaced content first (see gaps.flagged_content), then any theme note."""
    notes = [themes_note] if themes_note else []
    if gap.flagged_documents:
        notes.insert(
            0,
            f"mostly content of flagged document(s) {', '.join(gap.flagged_documents)}: "
            "check whether it belongs in the corpus before adding questions",
        )
    return "; ".join(notes)


def _opt(value: Any) -> float | None:
    """A float for JSON, or None when undefined / not finite."""
    if value is None:
        return None
    value = float(value)
    return value if np.isfinite(value) else None


@dataclass
class CoverageResult:
    """Everything :func:`ragcov_tui.coverage.analysis.analyze` computed, as arrays and small records.

    Per chunk i: ``labels[i]`` (clustering), ``mindist[i]`` (None overall when no inlier),
    ``nearest_question[i]`` (index into the questions, −1 when none). Per question j:
    ``nearest_chunk[j]``, ``nearest_chunk_dist[j]``, ``nearest_cluster[j]``, ``redundant_with[j]``
    (ids), ``removal_impact`` (None for outliers). ``covering_questions[k]``: inlier ids covering
    cluster k in the threshold form. ``calibration``: the answering radius and the gap rule (the
    report's ``calibration`` key); ``cluster_reach[k]``: covered share, priority, unreached part;
    ``gold``: None when the test file has no gold ids.
    """

    params: CoverageParams
    chunk_ids: list[str]
    chunk_sources: list[str]
    question_ids: list[str]
    question_texts: list[str]
    dim: int
    clustering: Clustering
    outliers: OutlierResult
    mindist: np.ndarray | None
    nearest_question: np.ndarray
    nearest_chunk: np.ndarray
    nearest_chunk_dist: np.ndarray
    nearest_cluster: np.ndarray
    coverage: CoverageFigures
    cluster_coverage: list[float | None]
    covering_questions: list[list[str]]
    gaps: list[Gap]
    themes: list[ClusterThemes]
    documents: list[DocumentCoverage]
    redundant_pairs: list[tuple[str, str, float]]
    redundant_with: list[list[str]]
    removal_impact: dict[str, float]
    projection: Projection
    calibration: Calibration
    cluster_reach: list[ClusterReach] = field(default_factory=list)
    gold: GoldCoverage | None = None
    message: str | None = None
    adjustments: list[str] = field(default_factory=list)  # options lowered to what the data allows
    session_id: str | None = None
    embedder: dict[str, str | None] = field(default_factory=dict)  # provider, model (set by the caller)
    sample: SampleEstimate | None = None  # --sample: the intervals (coverage/sampling.py; set by the caller)
    vector_store: VectorStoreSection | None = None  # the corpus's store and its space check (set by the caller)
    exercised: ExercisedSection | None = None  # --eval-session: retrieval coverage (coverage/exercised.py; the caller)

    def to_report(self, *, details: bool = True) -> AnalysisReport:
        """The ``analyze --json`` report; ``details=False`` leaves out the per-item lists."""
        n = len(self.chunk_ids)
        outlier = self.outliers.outlier
        embedder: EmbedderInfo = {
            "provider": self.embedder.get("provider"),
            "model": self.embedder.get("model"),
            "dim": self.dim,
        }
        report: AnalysisReport = {
            "session_id": self.session_id,
            "embedder": embedder,
            "corpus": {"documents": len(self.documents), "chunks": n},
            "questions": {
                "total": len(self.question_ids),
                "inliers": int((~outlier).sum()),
                "outliers": int(outlier.sum()),
            },
            "coverage": self.coverage,
            "message": self.message,
            "adjustments": self.adjustments,
            "calibration": self.calibration,
            "clusters": [self.cluster_entry(k) for k in range(self.clustering.k)],
            "gaps": [self.gap_entry(g) for g in self.gaps],
            "documents": [self.document_entry(d) for d in sorted(self.documents, key=lambda d: d.rank)],
            "gold": None if self.gold is None else self.gold.as_report(),
            "outlier_detection": {
                "method": "LOF novelty (fitted on chunk embeddings, scoring questions)",
                "rule": self.outliers.rule,
                "threshold": _opt(self.outliers.threshold),
                "neighbors": self.outliers.neighbors,
                "query_offset": self.outliers.offset,
                "reference_chunks": self.outliers.reference_size,
            },
            "clustering": {
                "k": self.clustering.k,
                "k_requested": self.clustering.k_requested,
                "method": self.clustering.method,
                "silhouette": {str(k): v for k, v in self.clustering.silhouette.items()},
            },
            "redundancy": {
                "threshold": self.params.redundancy_threshold,
                "pairs": [{"a": a, "b": b, "distance": d} for a, b, d in self.redundant_pairs],
                "epsilon": self.params.removal_epsilon,
                "removal_impact": self.removal_impact,
                "removable": [q for q, v in self.removal_impact.items() if v <= self.params.removal_epsilon],
            },
            "map": {
                "method": self.projection.method,
                "points_embedded": self.projection.points_embedded,
                "max_points": self.params.max_projection_points,
            },
            "llm_fallback": llm_fallback(self.themes),  # gaps whose LLM themes failed: heuristic ones instead
            "heuristic": {
                "themes": any(t.origin == HEURISTIC for t in self.themes),
                "suggestions": any(self.themes[g.cluster].origin == HEURISTIC for g in self.gaps),
                "note": (
                    "offline heuristic: themes by class-based TF-IDF over words and phrases; questions shaped "
                    "from the headings and sentences of the least-covered chunks (a passage to ask about where "
                    "the text is not English); use --llm for written questions"
                ),
            },
            "params": dataclasses.asdict(self.params),
        }
        if self.sample is not None:
            report["sample"] = self.sample
        if self.vector_store is not None:
            report["vector_store"] = self.vector_store
        if self.exercised is not None:
            report["exercised"] = self.exercised
        if details:
            report["question_details"] = self.question_details()
            report["chunk_details"] = self.chunk_details()
        return report

    def reach_entry(self, k: int) -> ClusterReachEntry:
        """Cluster k's calibrated figures (:mod:`.reach`)."""
        r = self.cluster_reach[k]
        return {
            "covered_share": _opt(r.covered_share),
            "priority": r.priority,
            "uneven": r.uneven,
            "unreached_documents": r.unreached_documents,
            "unreached_share": r.unreached_share,
            "documents_without_gold": r.documents_without_gold,
        }

    def cluster_entry(self, k: int) -> ClusterEntry:
        size = int(self.clustering.sizes[k])
        return {
            "id": k,
            "size": size,
            "share": size / len(self.chunk_ids),
            "coverage": _opt(self.cluster_coverage[k]),
            **self.reach_entry(k),
            "gap": any(g.cluster == k for g in self.gaps),
            "themes": self.themes[k].themes,
            "covering_questions": self.covering_questions[k],
        }

    def gap_entry(self, g: Gap) -> GapEntry:
        themes = self.themes[g.cluster]
        entry: GapEntry = {
            "cluster": g.cluster,
            "coverage": _opt(g.coverage),
            "size": g.size,
            "share": g.share,
            **self.reach_entry(g.cluster),
            "themes": themes.themes,
            "themes_origin": themes.origin,
            "suggested_questions": themes.questions,
            "flagged_documents": list(g.flagged_documents),
            "note": gap_note(g, themes.note),
            "advice": "",
        }
        entry["advice"] = gap_advice(entry)  # from the entry's other keys
        return entry

    @staticmethod
    def document_entry(d: DocumentCoverage) -> DocumentEntry:
        return {
            "source": d.source,
            "chunks": d.chunks,
            "coverage": _opt(d.coverage),
            "flagged": d.flagged,
            "reason": d.reason,
            "reach": _opt(d.reach),
            "covered_share": d.covered_share,
            "unreached": d.unreached,
            "gold_count": d.gold_count,
            "rank": d.rank,
        }

    def question_details(self) -> list[QuestionDetail]:
        scores = self.outliers.scores
        qxy = self.projection.question_xy
        return [
            {
                "id": qid,
                "text": self.question_texts[j],
                "lof_score": None if scores is None else _opt(scores[j]),
                "outlier": bool(self.outliers.outlier[j]),
                "nearest_cluster": int(self.nearest_cluster[j]),
                "nearest_chunk": self.chunk_ids[self.nearest_chunk[j]],
                "nearest_chunk_dist": _opt(self.nearest_chunk_dist[j]),
                "redundant_with": self.redundant_with[j],
                "x": float(qxy[j, 0]),
                "y": float(qxy[j, 1]),
            }
            for j, qid in enumerate(self.question_ids)
        ]

    def chunk_details(self) -> list[ChunkDetail]:
        labels = self.clustering.labels.tolist()
        mindist = [None] * len(labels) if self.mindist is None else self.mindist.tolist()
        nearest = [self.question_ids[j] if j >= 0 else None for j in self.nearest_question.tolist()]
        xy = self.projection.chunk_xy.tolist()
        return [
            {
                "id": cid,
                "source": self.chunk_sources[i],
                "cluster": labels[i],
                "mindist": mindist[i],
                "nearest_question": nearest[i],
                "x": xy[i][0],
                "y": xy[i][1],
            }
            for i, cid in enumerate(self.chunk_ids)
        ]
