"""The analysis job end to end: load → chunk → embed → analyse → store a session.

Used by ``ragcov analyze``, ``ragcov demo`` and the TUI's Jobs pane alike. Every stage reports
through ``progress``; a :class:`~ragcov_tui.shared.errors.Cancelled` raised by the callback stops the
job and marks the session ``cancelled``; any other failure marks it ``failed`` with the reason and
re-raises, so nothing half-written is shown as a finished session.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import sqlite_utils

from ragcov_tui.corpus.models import Chunk
from ragcov_tui.coverage.analysis import analyze, as_unit_matrix
from ragcov_tui.coverage.engine import make_engine, require_engine
from ragcov_tui.coverage.exercised import exercised_mask, exercised_section
from ragcov_tui.coverage.params import CoverageParams
from ragcov_tui.coverage.ray_engine import RaySource
from ragcov_tui.coverage.result import CoverageResult
from ragcov_tui.coverage.sampling import sample_estimate, sample_rows
from ragcov_tui.coverage.themes import check_llm_fallback
from ragcov_tui.coverage.traffic import traffic_of
from ragcov_tui.embeddings.base import Embedder, discarded_note
from ragcov_tui.embeddings.factory import embed_items, make_embedder
from ragcov_tui.llm.factory import make_llm
from ragcov_tui.services.corpus_source import (
    LoadedCorpus,
    StoreOptions,
    load_corpus_source,
    session_corpus,
    store_section,
    verify_space,
)
from ragcov_tui.services.eval_retrievals import EvalRetrievals, eval_retrievals
from ragcov_tui.services.lint_section import lint_section
from ragcov_tui.services.options import default
from ragcov_tui.shared.errors import BadInput, Cancelled
from ragcov_tui.shared.progress import Progress
from ragcov_tui.shared.row_blocks import take
from ragcov_tui.store.analysis import save_analysis
from ragcov_tui.store.analysis_contract import (
    AnalysisHeadline,
    AnalysisReport,
    AnalysisUsage,
    ExercisedSection,
    SampleEstimate,
)
from ragcov_tui.store.lint import save_content_hashes, save_lint
from ragcov_tui.store.sessions import create_session, finish_session
from ragcov_tui.store.traffic import save_traffic
from ragcov_tui.store.traffic_contract import TrafficSection
from ragcov_tui.store.vectors import save_documents, save_vectors
from ragcov_tui.testset.beir import DEFAULT_SPLIT, corpus_paths, read_questions
from ragcov_tui.testset.models import TestSet
from ragcov_tui.traffic.reader import TrafficLog, read_traffic
from ragcov_tui.traffic.windows import parse_window
from ragcov_tui.vectorstores.corpus import StoreCorpus

# AnalyzeOptions fields that map one-to-one onto CoverageParams when set.
PARAM_FIELDS = ("clusters", "threshold", "top_n", "gap_threshold", "lof_neighbors", "contamination", "seed")


@dataclass
class AnalyzeOptions(StoreOptions):
    """Everything one analysis run needs; ``None`` means "the engine's default". A vector store
    as the corpus adds the field mapping and the space check (:class:`StoreOptions`)."""

    corpus: list[str]
    questions: str
    embedder: str = default("embedder")
    llm: str | None = None
    clusters: int | str | None = None
    chunk_size: int = default("chunk_size")
    chunk_overlap: int = default("chunk_overlap")
    threshold: float | None = None
    top_n: int | None = None
    gap_threshold: float | None = None
    lof_neighbors: int | None = None
    contamination: float | str | None = None
    seed: int | None = None
    name: str | None = None
    concurrency: int = default("concurrency")
    split: str = DEFAULT_SPLIT  # the qrels split of a BEIR folder given as questions
    qrels: str | None = None  # a qrels file whose judgements become the questions' gold ids
    allow_fallback: bool = False  # --llm answered no theme call: accept heuristic themes (exit 0) instead of failing
    no_cache: bool = False  # neither read nor write the embedding / LLM caches
    traffic: str | None = None  # a query log (--traffic): traffic coverage, see coverage/traffic.py
    window: str | None = None  # --window / --since / --until: the rows traffic health covers (traffic/windows.py)
    since: str | None = None
    until: str | None = None
    sample: int | None = None  # --sample N: estimate from N chunks drawn at random (coverage/sampling.py)
    eval_session: str | None = None  # --eval-session: retrieval coverage from that eval (coverage/exercised.py)
    baseline: str | None = None  # --baseline SESSION: stale gold against it (default: the test file's last session)
    engine: str = "local"  # --engine: where the per-chunk pass runs (coverage/engine.py): local | ray
    ray_cpus: int | None = None  # --ray-cpus: CPUs of the local Ray instance (default: all; not with RAY_ADDRESS)
    extra: dict[str, Any] = field(default_factory=dict)

    def coverage_params(self) -> CoverageParams:
        """The engine's parameters, validated (BadInput naming the option) before any work starts."""
        given = {k: getattr(self, k) for k in PARAM_FIELDS if getattr(self, k) is not None}
        known = {f.name for f in dataclasses.fields(CoverageParams)}
        unknown = set(self.extra) - known
        if unknown:
            raise BadInput(f"unknown analysis parameter(s): {', '.join(sorted(unknown))}")
        return dataclasses.replace(CoverageParams(), **given, **self.extra).validated()


def _read_log(path: str | None, warn: Callable[[str], None] | None) -> TrafficLog | None:
    """The query log (``--traffic``), each of its notes given to ``warn``; None without one."""
    if not path:
        return None
    log = read_traffic(path)
    if warn is not None:
        for note in log.notes:
            warn(note)
    return log


def run_analysis(
    opts: AnalyzeOptions,
    db: sqlite_utils.Database,
    progress: Progress | None = None,
    warn: Callable[[str], None] | None = None,
) -> tuple[str, AnalysisReport]:
    """Run one analysis and store it; returns ``(session_id, report)`` (the ``--json`` contract)."""
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    params = opts.coverage_params()
    require_engine(opts.engine)  # a missing extra is one line before any work
    window = parse_window(opts.window, opts.since, opts.until, traffic=opts.traffic)
    opts, testset, loaded = load_inputs(opts, progress, warn)
    documents, chunks, store = loaded.documents, loaded.chunks, loaded.store
    all_chunks = len(chunks)
    rows = sample_rows(all_chunks, opts.sample, params.seed)
    joined = _join_eval(db, opts.eval_session, chunks, rows)  # on every chunk: a sample keeps its rows
    if rows is not None:
        chunks = [chunks[i] for i in rows]
    timings["load"] = time.perf_counter() - t0
    t = time.perf_counter()
    log = _read_log(opts.traffic, warn)
    if log is not None:
        timings["traffic_read"] = time.perf_counter() - t

    traffic: TrafficSection | None = None
    cache = None if opts.no_cache else db
    embedder = make_embedder(opts.embedder, db=cache, concurrency=opts.concurrency)
    if log is not None and embedder.provider == "precomputed":
        raise BadInput(
            f"query log {opts.traffic}: the precomputed embedder has no vectors for the log's queries; "
            "name the embedder that made the vectors (e.g. --embedder openai:MODEL)"
        )
    # the store's vectors are the chunks' vectors: check the embedder makes the same ones, before anything else
    space = verify_space(embedder, store, opts, seed=params.seed, warn=warn) if store is not None else None
    llm = make_llm(opts.llm, db=cache, concurrency=opts.concurrency)
    sid = create_session(
        db,
        "analysis",
        corpus=session_corpus(opts.corpus),
        questions_path=str(Path(opts.questions).resolve()),
        testset_sha256=testset.sha256,
        embedder=embedder.spec,
        llm=llm.spec if llm else "heuristic",
        params={
            **dataclasses.asdict(params),
            "chunk_size": opts.chunk_size,
            "chunk_overlap": opts.chunk_overlap,
            **opts.field_settings(),
            **({"traffic": str(Path(opts.traffic).resolve())} if opts.traffic else {}),  # R reruns with it
            **({"sample": opts.sample} if opts.sample else {}),
            **joined.params(),
        },
        name=opts.name,
    )
    try:
        t = time.perf_counter()
        chunk_vecs = chunk_vectors(embedder, chunks, store, rows, progress)
        question_vecs = embed_items(
            embedder,
            [q.text for q in testset.questions],
            [q.vector for q in testset.questions],
            what=Path(opts.questions).name,
            progress=progress,
            labels=[q.id for q in testset.questions],
        )
        _check_dims(chunk_vecs, question_vecs)
        timings["embed"] = time.perf_counter() - t
        if log is not None:
            t = time.perf_counter()
            traffic_vecs = embedder.embed(log.texts, progress=progress, stage="embedding traffic")
            timings["traffic_embed"] = time.perf_counter() - t

        t = time.perf_counter()
        engine = make_engine(
            opts.engine, source=ray_source(store, chunks) if rows is None else None, cpus=opts.ray_cpus
        )
        try:
            result = analyze(
                chunk_vecs,
                question_vecs,
                chunks,
                testset.questions,
                params,
                llm=llm,
                progress=progress,
                embed=embedder.embed,
                exercised=joined.mask,
                engine=engine,
            )
        finally:
            engine.close()
        if rows is not None:
            result.sample = sampled(result, all_chunks)
        for note in result.adjustments:  # an option the data could not honour: say what was used
            if warn is not None:
                warn(note)
        if llm is not None:
            check_llm_fallback(result.themes, llm.spec, allow=opts.allow_fallback, warn=warn)
        timings["analyze"] = time.perf_counter() - t
        t = time.perf_counter()
        lint, hashes = lint_section(
            db,
            sid,
            opts.baseline,
            testset,
            documents,
            loaded.chunks,
            chunks,
            chunk_vecs,
            question_vecs,
            embedder,
            result.redundant_pairs,
            progress,
        )
        timings["lint"] = time.perf_counter() - t
        if log is not None:
            t = time.perf_counter()
            traffic = traffic_of(
                result, log, traffic_vecs, chunk_vecs, question_vecs, window=window, progress=progress
            ).to_report()
            timings["traffic"] = time.perf_counter() - t

        result.exercised = joined.section(result, traffic)
        t = time.perf_counter()
        save_documents(db, sid, documents, chunks)
        save_vectors(db, sid, "chunk", [c.id for c in chunks], chunk_vecs)
        save_vectors(db, sid, "question", [q.id for q in testset.questions], question_vecs)
        save_analysis(db, sid, result, chunks, testset.questions)
        save_content_hashes(db, sid, hashes)
        save_lint(db, sid, lint)
        if traffic is not None:
            save_traffic(db, sid, traffic)
        timings["store"] = time.perf_counter() - t
        timings["total"] = time.perf_counter() - t0

        result.vector_store = store_section(store, space)
        report = result.to_report()
        report["session_id"] = sid
        report["embedder"] = {"provider": embedder.provider, "model": embedder.model, "dim": int(chunk_vecs.shape[1])}
        report["llm"] = llm.spec if llm else "heuristic"
        report["timings"] = {k: round(v, 3) for k, v in timings.items()}
        usage: AnalysisUsage = {"embeddings": embedder.usage(), "llm": llm.usage.as_dict() if llm else None}
        report["usage"] = usage
        if traffic is not None:
            report["traffic"] = traffic
        report["lint"] = lint
        if warn is not None and (healed := discarded_note(embedder)):
            warn(healed)
        finish_session(db, sid, "done", summary=analysis_headline(report), timings=timings, usage=usage)
        return sid, report
    except Cancelled:
        finish_session(db, sid, "cancelled", error="cancelled by the user")
        raise
    except BaseException as exc:
        finish_session(db, sid, "failed", error=f"{type(exc).__name__}: {exc}")
        raise


@dataclass(frozen=True)
class EvalJoin:
    """An eval session's retrievals met with this analysis's chunks (``--eval-session``); all
    None without one."""

    retrievals: EvalRetrievals | None = None
    mask: np.ndarray | None = None  # per chunk: retrieved by some question in the eval's top k
    unmatched: int = 0  # retrieved ids naming nothing in this corpus

    def params(self) -> dict[str, str]:
        """The session parameter naming the joined eval (so R in the app reruns with it)."""
        return {} if self.retrievals is None else {"eval_session": self.retrievals.session_id}

    def section(self, result: CoverageResult, traffic: TrafficSection | None) -> ExercisedSection | None:
        """The report's ``exercised`` key (coverage/exercised.py), with the log's queries when given."""
        r = self.retrievals
        if r is None or self.mask is None:
            return None
        return exercised_section(
            self.mask,
            result.clustering.labels,
            result.clustering.k,
            result.chunk_ids,
            result.chunk_sources,
            themes=[t.themes for t in result.themes],
            eval_session=r.session_id,
            system=r.system,
            top_k=r.k,
            questions=len(r.retrieved),
            unmatched_ids=self.unmatched,
            probes=r.probes,
            traffic=None if traffic is None else [(q["nearest_chunk"], q["count"]) for q in traffic.get("details", [])],
        )


def _join_eval(db: sqlite_utils.Database, ref: str | None, chunks: list[Chunk], rows: np.ndarray | None) -> EvalJoin:
    """The eval session ``ref`` met with ``chunks`` (an empty join without one), the mask kept for
    the sampled ``rows`` only (``--sample``); BadInput when none of its retrieved ids is in this corpus."""
    if not ref:
        return EvalJoin()
    retrievals = eval_retrievals(db, ref)
    mask, unmatched = exercised_mask(chunks, retrievals.retrieved)
    if unmatched == len({i for ids in retrievals.retrieved for i in ids}):
        raise BadInput(
            f"--eval-session {ref}: none of the {unmatched:,} ids session {retrievals.session_id} retrieved "
            "is a chunk or document of this corpus (chunk the same way: the same --chunk-size and "
            "--chunk-overlap)"
        )
    return EvalJoin(retrievals, mask if rows is None else mask[rows], unmatched)


def load_inputs(
    opts: AnalyzeOptions, progress: Progress | None, warn: Callable[[str], None] | None
) -> tuple[AnalyzeOptions, TestSet, LoadedCorpus]:
    """The test set and the corpus, chunked or read from a vector store (``opts.corpus`` filled in
    from a BEIR folder); BadInput when either is empty or no corpus is given."""
    testset = read_questions(opts.questions, split=opts.split, qrels=opts.qrels, warn=warn)
    if not testset.questions:
        raise BadInput(f"{opts.questions}: the test file has no questions")
    opts = dataclasses.replace(opts, corpus=corpus_paths(opts.questions, opts.corpus))
    if not opts.corpus:
        raise BadInput(
            "--corpus: required (files or directories) unless --questions is a BEIR folder with corpus.jsonl"
        )
    loaded = load_corpus_source(
        opts.corpus, opts, chunk_size=opts.chunk_size, chunk_overlap=opts.chunk_overlap, warn=warn, progress=progress
    )
    if not loaded.chunks:
        raise BadInput("corpus: no text to analyse after loading and chunking")
    return opts, testset, loaded


def sampled(result: CoverageResult, total: int) -> SampleEstimate:
    """The 95% intervals of an analysis run on a sample of ``total`` chunks (coverage/sampling.py)."""
    radius = result.calibration["radius"]
    within = None if result.mindist is None or radius is None else result.mindist <= radius
    return sample_estimate(result.mindist, within, result.clustering.labels, result.clustering.k, total)


def chunk_vectors(
    embedder: Embedder,
    chunks: list[Chunk],
    store: StoreCorpus | None,
    rows: np.ndarray | None,
    progress: Progress | None,
) -> np.ndarray:
    """The chunks' unit vectors: a store's as stored (the sampled ``rows`` of them), else embedded."""
    if store is not None:
        return as_unit_matrix(store.vectors if rows is None else take(store.vectors, rows), "chunk", len(chunks))
    return embed_items(
        embedder,
        [c.text for c in chunks],
        [c.vector for c in chunks],
        what="chunks",
        progress=progress,
        labels=[c.id for c in chunks],
    )


def ray_source(store: StoreCorpus | None, chunks: list[Chunk]) -> RaySource | None:
    """Where Ray tasks read a ``lancedb:`` / ``parquet:`` store's vectors themselves (None otherwise:
    they read the rows analyze is given)."""
    if store is None or store.spec.scheme not in ("lancedb", "parquet"):
        return None
    return RaySource(
        kind="lance" if store.spec.scheme == "lancedb" else "parquet",
        location=store.spec.location,
        table=store.spec.name,
        id_field=store.fields.id,
        vector_field=store.fields.vector,
        ids=[c.id for c in chunks],
    )


def _check_dims(chunk_vecs: np.ndarray, question_vecs: np.ndarray) -> None:
    if chunk_vecs.shape[1] != question_vecs.shape[1]:
        raise BadInput(
            f"chunk vectors have {chunk_vecs.shape[1]} dimensions but question vectors {question_vecs.shape[1]}:"
            " they must come from the same embedder"
        )


def analysis_headline(report: AnalysisReport) -> AnalysisHeadline:
    """The figures shown in session lists and trend charts (a flat dict of numbers / None)."""
    cov = report.get("coverage", {})
    q = report.get("questions", {})
    return {
        "basic": cov.get("basic"),
        "weighted": cov.get("weighted"),
        "multi_threshold": cov.get("multi_threshold"),
        "multi_n": cov.get("multi_n"),
        "covered_share": cov.get("covered_share"),
        "documents": report.get("corpus", {}).get("documents"),
        "chunks": report.get("corpus", {}).get("chunks"),
        "questions": q.get("total"),
        "inliers": q.get("inliers"),
        "outliers": q.get("outliers"),
        "gaps": len(report.get("gaps", [])),
        "flagged_documents": sum(1 for d in report.get("documents", []) if d.get("flagged")),
    }
