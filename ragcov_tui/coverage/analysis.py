"""``analyze``: the semantic-coverage method end to end on given vectors.

Stages (each reports ``progress(stage, done, total)``): outliers → clusters → nearest → metrics →
redundancy → documents → themes → map. The chunk × question similarity is computed once, block
by block (``nearest.cross_nearest``), with the inlier questions placed first so one pass yields
each chunk's nearest and second-nearest inlier and each question's nearest chunk.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

import numpy as np

from ragcov_tui.corpus.models import Chunk
from ragcov_tui.coverage import metrics
from ragcov_tui.coverage.calibration import answering_radius, reach_line
from ragcov_tui.coverage.clustering import cluster_chunks
from ragcov_tui.coverage.documents import document_coverage, source_codes
from ragcov_tui.coverage.engine import ChunkEngine, LocalEngine
from ragcov_tui.coverage.gaps import flagged_content, rank_gaps
from ragcov_tui.coverage.gold import gold_chunk_sets, gold_coverage, gold_distances
from ragcov_tui.coverage.outliers import detect_outliers
from ragcov_tui.coverage.params import CoverageParams, used_params
from ragcov_tui.coverage.projection import project
from ragcov_tui.coverage.reach import cluster_reach, mark_uneven
from ragcov_tui.coverage.redundancy import near_duplicate_pairs, removal_impact
from ragcov_tui.coverage.result import CoverageResult
from ragcov_tui.coverage.suggest_offline import Embed
from ragcov_tui.coverage.themes import ClusterThemes, gap_themes, textless_themes
from ragcov_tui.llm.base import ChatModel
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.progress import Progress, report
from ragcov_tui.shared.row_blocks import blocks, is_mapped
from ragcov_tui.store.analysis_contract import Calibration, CoverageFigures
from ragcov_tui.testset.models import Question

THEME_TEXTS_PER_CLUSTER = 200
T = TypeVar("T")
ROW_BLOCK = 65536


def as_unit_matrix(vecs: np.ndarray, what: str, count: int) -> np.ndarray:
    """float32 C-contiguous rows of unit length (renormalised only when needed; a writable memory
    map in place, block by block, so it never has to fit in memory); BadInput if unusable."""
    vecs = np.asarray(vecs)
    if vecs.ndim != 2 or vecs.shape[0] != count:
        raise BadInput(f"{what} vectors: expected {count} rows, got shape {tuple(vecs.shape)}")
    vecs = np.ascontiguousarray(vecs, dtype=np.float32)  # a float32 memory map stays one (no copy)
    norms = (
        np.concatenate([np.sqrt(np.einsum("ij,ij->i", block, block)) for _, block in blocks(vecs, ROW_BLOCK)])
        if count
        else np.ones(0)
    )
    if not np.all(np.isfinite(norms)):
        raise BadInput(f"{what} vectors: row {int(np.flatnonzero(~np.isfinite(norms))[0])} has a NaN or infinite value")
    if np.any(norms == 0):
        raise BadInput(f"{what} vectors: row {int(np.flatnonzero(norms == 0)[0])} is all zeros")
    if np.abs(norms - 1.0).max(initial=0.0) <= 1e-3:
        return vecs
    if not (is_mapped(vecs) and vecs.flags.writeable):
        return vecs / norms[:, None].astype(np.float32)
    for start, block in blocks(vecs, ROW_BLOCK):
        np.divide(block, norms[start : start + len(block), None].astype(np.float32), out=block)
    return vecs


def central_texts(
    chunk_vecs: np.ndarray, texts: Sequence[T], labels: np.ndarray, unit_centroids: np.ndarray, per_cluster: int
) -> list[list[T]]:
    """Per cluster, the texts (or any per-chunk items) of its ``per_cluster`` chunks nearest the
    centroid, nearest first."""
    sim = np.concatenate(
        [
            np.einsum("ij,ij->i", block, unit_centroids[labels[s : s + len(block)]])
            for s, block in blocks(chunk_vecs, ROW_BLOCK)
        ]
    )
    order = np.lexsort((-sim, labels))
    bounds = np.searchsorted(labels[order], np.arange(len(unit_centroids) + 1))
    return [[texts[i] for i in order[bounds[k] : bounds[k + 1]][:per_cluster]] for k in range(len(unit_centroids))]


def least_covered_texts(
    texts: Sequence[T],
    labels: np.ndarray,
    mindist: np.ndarray | None,
    cluster: int,
    limit: int,
    blind: np.ndarray | None = None,
) -> list[T]:
    """The texts of ``cluster``'s chunks farthest from every question first (empty when undefined).
    With ``blind`` (per chunk, how many of "far from every question" and "never retrieved" hold,
    0–2: :func:`blind_spot_reasons`), the chunks with more of them come first, then the farthest."""
    if mindist is None:
        return []
    members = np.flatnonzero(labels == cluster)
    order = np.argsort(-mindist[members], kind="stable")
    if blind is not None:
        order = order[np.argsort(-blind[members][order], kind="stable")]
    return [texts[i] for i in members[order][:limit]]


FAR, NEVER_RETRIEVED = "far from every question", "never retrieved"


def blind_spot_reasons(within: np.ndarray | None, exercised: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per chunk: far (outside the answering radius; every chunk when no radius is known) and never
    retrieved by an eval's questions (``~exercised``), as two boolean arrays."""
    far = np.ones(len(exercised), dtype=bool) if within is None else ~within
    return far, ~exercised


def mark_fixes(
    themes: Sequence[ClusterThemes], index: dict[str, int], far: np.ndarray, unretrieved: np.ndarray
) -> None:
    """Each suggestion written from a chunk says which of the two blind spots it fixes (``fixes``)."""
    for t in themes:
        for s in t.questions:
            i = index.get(s.get("chunk_id") or "")
            if i is not None:
                s["fixes"] = [name for name, flag in ((FAR, far[i]), (NEVER_RETRIEVED, unretrieved[i])) if flag]


def analyze(
    chunk_vecs: np.ndarray,
    question_vecs: np.ndarray,
    chunks: list[Chunk],
    questions: list[Question],
    params: CoverageParams,
    *,
    llm: ChatModel | None = None,
    progress: Progress | None = None,
    embed: Embed | None = None,
    exercised: np.ndarray | None = None,
    engine: ChunkEngine | None = None,
) -> CoverageResult:
    """Run the whole method; see the stage modules for every formula. ``embed`` (the run's
    embedder) lets the offline suggestions be checked against the test questions for paraphrases.
    ``exercised`` (per chunk: retrieved by an eval's questions, :mod:`.exercised`) aims the gaps'
    suggestions at chunks both far from every question and never retrieved, and each says which
    of the two it fixes. ``engine`` runs the per-chunk pass (cluster labels, the nearest search):
    :mod:`.engine`, this process by default."""
    engine = engine or LocalEngine()
    params = params.validated()
    if not chunks:
        raise BadInput("corpus: no chunk to analyse")
    if not questions:
        raise BadInput("questions: the test set has no question")
    C = as_unit_matrix(chunk_vecs, "chunk", len(chunks))
    Q = as_unit_matrix(question_vecs, "question", len(questions))
    if C.shape[1] != Q.shape[1]:
        raise BadInput(f"chunk vectors have {C.shape[1]} dimensions but question vectors {Q.shape[1]}")
    budget = params.memory_budget_mb
    n, m = len(chunks), len(questions)
    question_ids = [q.id for q in questions]

    report(progress, "outliers", 0, 1)
    outliers = detect_outliers(
        C,
        Q,
        neighbors=params.lof_neighbors,
        offset=params.lof_query_offset,
        contamination=params.contamination,
        lof_threshold=params.lof_threshold,
        sample=params.lof_sample,
        seed=params.seed,
        memory_budget_mb=budget,
    )
    report(progress, "outliers", 1, 1)
    clustering = cluster_chunks(
        C,
        params.clusters,
        seed=params.seed,
        minibatch_above=params.minibatch_above,
        progress=progress,
        assign_rows=engine.assign,
    )
    labels, k, centroids = clustering.labels, clustering.k, clustering.unit_centroids
    params, adjustments = used_params(
        params, k=k, lof_neighbors=outliers.neighbors, reference_size=outliers.reference_size
    )

    inliers = np.flatnonzero(~outliers.outlier)
    order = np.concatenate([inliers, np.flatnonzero(outliers.outlier)])
    found = engine.cross_nearest(C, Q[order], n_cols_for_rows=len(inliers), memory_budget_mb=budget, progress=progress)
    nearest_chunk = np.empty(m, dtype=np.int64)
    nearest_chunk_dist = np.empty(m)
    nearest_chunk[order], nearest_chunk_dist[order] = found.col_index, found.col_dist
    nearest_cluster = (Q @ centroids.T).argmax(axis=1) if m else np.zeros(0, dtype=np.int64)

    report(progress, "metrics", 0, 1)
    has_inliers = len(inliers) > 0
    mindist = found.row_dist if has_inliers else None
    nearest_question = inliers[found.row_index] if has_inliers else np.full(n, -1, dtype=np.int64)
    per_cluster = metrics.cluster_coverage(mindist, labels, k)
    Q_in = Q[inliers]
    cover_t = metrics.cover_by_threshold(Q_in, centroids, params.threshold)
    cover_n = metrics.cover_by_top_n(Q_in, centroids, params.top_n)
    multi: dict[str, float | None] = {}
    for name, cover in (("multi_threshold", cover_t), ("multi_n", cover_n)):
        md = (
            metrics.multi_mindist(C, Q_in, labels, cover, found.row_index, found.row_dist, budget)
            if has_inliers
            else None
        )
        multi[name] = metrics.multi_coverage(md, labels, cover)
    coverage: CoverageFigures = {
        "basic": metrics.basic_coverage(mindist),
        "weighted": metrics.weighted_coverage(mindist, labels, k),
        "multi_threshold": multi["multi_threshold"],
        "multi_n": multi["multi_n"],
        "threshold": params.threshold,
        "top_n": params.top_n,
        "covered_share": None,
    }  # covered_share: below, once the radius is known
    covering = [[question_ids[inliers[j]] for j in np.flatnonzero(cover_t[c])] for c in range(k)]
    report(progress, "metrics", 1, 1)

    report(progress, "redundancy", 0, 1)
    pairs = [
        (question_ids[inliers[a]], question_ids[inliers[b]], d)
        for a, b, d in near_duplicate_pairs(Q_in, params.redundancy_threshold, budget)
    ]
    redundant_with: list[list[str]] = [[] for _ in range(m)]
    position = {qid: j for j, qid in enumerate(question_ids)}
    for a, b, _ in pairs:
        redundant_with[position[a]].append(b)
        redundant_with[position[b]].append(a)
    impact = removal_impact(found.row_index, found.row_dist, found.row_second, len(inliers)) if has_inliers else None
    impacts = {} if impact is None else {question_ids[inliers[j]]: float(v) for j, v in enumerate(impact)}
    report(progress, "redundancy", 1, 1)

    report(progress, "documents", 0, 1)
    sources = [c.source for c in chunks]
    gold_sets = gold_chunk_sets(questions, chunks)
    has_gold = any(len(g) for g in gold_sets)
    radius = answering_radius(nearest_chunk_dist, gold_distances(C, Q, gold_sets) if has_gold else None, inliers)
    within = None if mindist is None or radius is None else mindist <= radius.value
    coverage["covered_share"] = None if within is None else float(within.mean())
    doc_names, doc_codes = source_codes(sources)
    gold = gold_coverage(questions, gold_sets, doc_codes, doc_names)
    gold_counts = None if gold is None else gold.counts
    documents = document_coverage(
        sources,
        mindist,
        within=within,
        gold_counts=gold_counts,
        mad_k=params.document_mad_k,
        floor=params.document_floor,
    )
    reach, cut = cluster_reach(labels, k, doc_codes, doc_names, mindist, within, gold_counts)
    gaps, rule = rank_gaps(per_cluster, clustering.sizes.tolist(), reach, cut, params.gap_threshold)
    uneven = mark_uneven(reach, {g.cluster for g in gaps}, None if cut is None else cut.median)
    flagged_content(gaps, labels, sources, {d.source for d in documents if d.flagged})
    coverage_cut = rule.coverage_cut
    calibration: Calibration = {
        "radius": None if radius is None else radius.value,
        "radius_from": None if radius is None else radius.source,
        "radius_questions": 0 if radius is None else radius.questions,
        "chunks_within_reach": 0 if within is None else int(within.sum()),
        "gap_rule": rule.mode,
        "gap_cut": rule.cut,
        "median_covered_share": rule.median,
        "spread": rule.spread,
        "coverage_cut": None if coverage_cut is None else coverage_cut.value,
        "median_coverage": None if coverage_cut is None else coverage_cut.median,
        "uneven_text": uneven,
        "text": reach_line(radius, 0 if within is None else int(within.sum()), n),
        "gaps_text": rule.text,
    }
    report(progress, "documents", 1, 1)

    report(progress, "themes", 0, 1)
    items = [(c.id, c.text) for c in chunks]
    central = central_texts(C, items, labels, centroids, THEME_TEXTS_PER_CLUSTER)
    reasons = None if exercised is None else blind_spot_reasons(within, exercised)
    blind = None if reasons is None else reasons[0].astype(np.int8) + reasons[1]
    gap_chunks = {
        g.cluster: least_covered_texts(items, labels, mindist, g.cluster, THEME_TEXTS_PER_CLUSTER, blind)
        or central[g.cluster]
        for g in gaps
    }
    themes = (
        gap_themes(
            llm,
            [[t for _, t in ts] for ts in central],
            gap_chunks,
            n_themes=params.n_themes,
            n_questions=params.n_suggestions,
            progress=progress,
            existing=[q.text for q in questions],
            question_vecs=Q,
            embed=embed,
        )
        if any(c.text for c in chunks)
        else textless_themes(k)
    )
    if reasons is not None:
        mark_fixes(themes, {c.id: i for i, c in enumerate(chunks)}, *reasons)
    report(progress, "themes", 1, 1)

    report(progress, "map", 0, 1)
    projection = project(
        C, Q, labels, max_points=params.max_projection_points, seed=params.seed, memory_budget_mb=budget
    )
    report(progress, "map", 1, 1)

    message = None
    if not has_inliers:
        message = (
            f"All {m} questions were flagged as outliers (far from every document), so coverage is undefined. "
            "Check that the test file belongs to this corpus, or loosen --contamination / lof_threshold."
        )
    return CoverageResult(
        params=params,
        chunk_ids=[c.id for c in chunks],
        chunk_sources=sources,
        question_ids=question_ids,
        question_texts=[q.text for q in questions],
        dim=int(C.shape[1]),
        clustering=clustering,
        outliers=outliers,
        mindist=mindist,
        nearest_question=nearest_question,
        nearest_chunk=nearest_chunk,
        nearest_chunk_dist=nearest_chunk_dist,
        nearest_cluster=nearest_cluster,
        coverage=coverage,
        cluster_coverage=per_cluster,
        covering_questions=covering,
        gaps=gaps,
        calibration=calibration,
        cluster_reach=reach,
        gold=gold,
        themes=themes,
        documents=documents,
        redundant_pairs=pairs,
        redundant_with=redundant_with,
        removal_impact=impacts,
        projection=projection,
        message=message,
        adjustments=adjustments,
    )
