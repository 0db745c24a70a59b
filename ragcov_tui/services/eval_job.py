"""The eval job end to end: read → (chunk) → build the system → evaluate every question → store.

Used by ``ragcov eval``, ``ragcov demo`` and the TUI alike. Questions are evaluated concurrently
(at most ``concurrency`` at once) by :func:`ragcov_tui.evaluation.items.evaluate_question` in
worker threads; each finished item is written to ``eval_items`` by the calling thread as soon as
it finishes, so a killed or cancelled run resumes with ``resume=<session id>``: the session is
reused and items already ``done`` are skipped (failed ones are redone). The returned report is
the stored one (:func:`ragcov_tui.store.evals.load_eval_report`), i.e. the ``eval --json``
contract: ``k``, ``aggregate`` {``retrieval``, ``generation``}, ``questions`` [{``id``,
``retrieval``, ``generation``, ``diagnosis``, …}] plus ``system``, ``judge``, ``counts``,
``usage``, ``errors``….
"""

from __future__ import annotations

import dataclasses
import queue
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlite_utils

from ragcov_tui.embeddings.base import discarded_note
from ragcov_tui.embeddings.factory import make_embedder
from ragcov_tui.evaluation.embedding_use import embedding_use, snapshot
from ragcov_tui.evaluation.generation.abstention import SCOPE_METRICS
from ragcov_tui.evaluation.generation.preflight import preflight_judge
from ragcov_tui.evaluation.generation.registry import METRICS
from ragcov_tui.evaluation.gold_contexts import gold_from_contexts
from ragcov_tui.evaluation.items import EvalContext, evaluate_question
from ragcov_tui.evaluation.metric_names import select_metrics
from ragcov_tui.evaluation.references import synthetic_references
from ragcov_tui.evaluation.report import aggregate_items, count_items, eval_headline, item_errors
from ragcov_tui.evaluation.resume import check_same_questions
from ragcov_tui.evaluation.resume_inputs import INPUTS_KEY, check_same_inputs, input_identity
from ragcov_tui.evaluation.retrieval import GoldIndex
from ragcov_tui.evaluation.scope import out_of_scope_ids, scope_counts
from ragcov_tui.evaluation.systems.factory import make_system
from ragcov_tui.evaluation.systems.records_join import join_line
from ragcov_tui.llm.base import ChatModel
from ragcov_tui.llm.factory import make_llm
from ragcov_tui.services.corpus_source import LoadedCorpus, StoreOptions, load_corpus_source, session_corpus
from ragcov_tui.services.lint_section import eval_stale_gold
from ragcov_tui.services.options import check_values, default
from ragcov_tui.services.probes import check_probes, run_probes
from ragcov_tui.services.stratified_sample import stratified_sample
from ragcov_tui.shared.concurrency import run_bounded
from ragcov_tui.shared.errors import BadInput, Cancelled
from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.shared.progress import Progress, report, report_failed
from ragcov_tui.shared.redact import redact_text, redact_values
from ragcov_tui.store.eval_contract import EvalItem, EvalReport, EvalUsage, ProbeReport, SampleInfo
from ragcov_tui.store.evals import (
    NonFiniteValue,
    done_ids,
    load_eval_items,
    load_eval_report,
    save_eval_header,
    save_eval_item,
)
from ragcov_tui.store.lint import save_content_hashes
from ragcov_tui.store.sessions import create_session, finish_session, resolve_session, resume_session
from ragcov_tui.testset.beir import DEFAULT_SPLIT, corpus_paths, read_questions
from ragcov_tui.testset.gold_ids import match_gold_ids
from ragcov_tui.testset.models import TestSet
from ragcov_tui.vectorstores.registry import store_scheme

STAGE = "evaluating"


@dataclass
class EvalOptions(StoreOptions):
    """Everything one eval run needs. ``judge_llm`` / ``paraphrase_llm`` default to ``llm``;
    ``metrics`` None means every metric (see :mod:`ragcov_tui.evaluation.metric_names`)."""

    questions: str
    system: str
    corpus: list[str] = field(default_factory=list)
    embedder: str = default("embedder")
    llm: str | None = None
    judge_llm: str | None = None
    paraphrase_llm: str | None = None
    metrics: list[str] | str | None = None
    k: int = default("k")
    paraphrases: int = default("paraphrases")
    repeats: int = default("repeats")
    concurrency: int = default("concurrency")
    chunk_size: int = default("chunk_size")
    chunk_overlap: int = default("chunk_overlap")
    name: str | None = None
    resume: str | None = None
    split: str = DEFAULT_SPLIT  # the qrels split of a BEIR folder given as questions
    qrels: str | None = None  # a qrels file whose judgements become the questions' gold ids
    no_cache: bool = False  # neither read nor write the embedding / LLM caches
    join: str = default("join")  # how a records: file's rows meet the questions (systems.records_join.JOINS)
    no_preflight: bool = False  # skip the judge's known-answer probe before a judged run
    probes: int = default("probes")  # --probes N: unexercised chunks asked about directly (services/probes.py)
    seed: int = default("seed")  # the draws of --probes and --sample
    judge_mode: str = default(
        "judge_mode"
    )  # claim verdicts: all in one request | one per request | graded (graded.JUDGE_MODES)
    no_gold_unanswerable: bool = False  # questions without gold ids or a reference answer are out of scope
    sample: int | None = None  # --sample N: a seeded sample stratified by topic (services/stratified_sample.py)

    def check(self) -> None:
        """BadInput for a count out of its declared bounds (a caller that built these options itself:
        the pytest plugin, a script; the settings merge has checked them already)."""
        check_values({key: getattr(self, key) for key in ("k", "repeats", "paraphrases", "concurrency", "probes")})


# Options that must be the same when a run resumes an earlier session.
RESUME_KEYS = (
    "system",
    "k",
    "metrics",
    "embedder",
    "llm",
    "judge_llm",
    "paraphrases",
    "repeats",
    "join",
    "judge_mode",
    "no_gold_unanswerable",
    "sample",
)


def run_eval(
    opts: EvalOptions,
    db: sqlite_utils.Database,
    progress: Progress | None = None,
    warn: Callable[[str], None] | None = None,
) -> tuple[str, EvalReport]:
    """Run (or resume) one evaluation and store it; returns ``(session_id, report)``."""
    t0 = time.perf_counter()
    opts.check()
    testset = read_questions(opts.questions, split=opts.split, qrels=opts.qrels, warn=warn)
    # An IR folder holds queries and judgements only, a vector store retrieves only: retrieval metrics unless asked.
    retrieval_only = testset.format == "beir" or store_scheme(opts.system) is not None
    retrieval_metrics, generation_metrics = select_metrics(
        opts.metrics or ("retrieval" if retrieval_only else None), opts.k
    )
    out_of_scope = out_of_scope_ids(testset.questions, no_gold_unanswerable=opts.no_gold_unanswerable)
    if out_of_scope and not opts.metrics:  # the abstention metrics score what the test file marked
        generation_metrics += [m for m in SCOPE_METRICS if m not in generation_metrics]
    opts = dataclasses.replace(opts, corpus=corpus_paths(opts.questions, opts.corpus))
    llms = _llms(opts, db, warn)
    if (
        llms["judge"] is not None
        and not opts.no_preflight
        and any(m in SCOPE_METRICS or METRICS[m].uses_llm for m in generation_metrics)
    ):
        preflight_judge(llms["judge"], opts.judge_mode)  # a judge that cannot answer stops the run here, in one line
    loaded = (
        load_corpus_source(
            opts.corpus,
            opts,
            chunk_size=opts.chunk_size,
            chunk_overlap=opts.chunk_overlap,
            warn=warn,
            progress=progress,
        )
        if opts.corpus
        else LoadedCorpus([], [])
    )
    documents, chunks = loaded.documents, loaded.chunks
    check_probes(opts.probes, opts.system, chunks)
    roots = [] if loaded.store else opts.corpus  # gold ids relative to a corpus folder
    gold_ids = match_gold_ids(testset.questions, chunks, roots, warn=warn).as_dict() if chunks else None
    embedder = make_embedder(opts.embedder, db=None if opts.no_cache else db, concurrency=opts.concurrency)
    # file gold ids first (above), then reference-context texts for the questions without any
    from_contexts = gold_from_contexts(testset.questions, documents, chunks, roots, embedder, progress)
    system = make_system(
        opts.system,
        chunks=chunks,
        embedder=embedder,
        llm=llms["llm"],
        k=opts.k,
        questions=testset.questions,
        join=opts.join,
        fields=opts.field_overrides(),
        skip_space_check=opts.skip_space_check,
    )
    # records whose contexts are bare texts, with no corpus to find them in: no retrieval metric
    unmeasured = system.retrieval_unmeasured() if hasattr(system, "retrieval_unmeasured") else None
    if unmeasured and not generation_metrics:
        raise BadInput(f"retrieval cannot be measured: {unmeasured}")
    retrieval_metrics = [] if unmeasured else retrieval_metrics
    records_join = system.join_report() if hasattr(system, "join_report") else None
    if warn is not None and records_join and (records_join["missing"] or records_join["ambiguous"]):
        warn(join_line(records_join))
    if opts.paraphrases and llms["paraphrase"] is None and warn is not None:
        warn(f"--paraphrases {opts.paraphrases}: no LLM to generate paraphrases; only the test file's are used")
    # stored and compared on --resume without the credentials a --system URL may carry
    params = redact_values(
        {
            **dataclasses.asdict(opts),
            "metrics": retrieval_metrics + generation_metrics,
            INPUTS_KEY: input_identity(testset, chunks, opts.qrels, opts.corpus),
        }
    )
    sid = _session(db, opts, params, testset, embedder.spec, llms["judge"])
    try:
        start = snapshot(embedder.stats)
        prepare = getattr(system, "prepare", None)  # optional hook: index / embed before fanning out
        if prepare is not None:
            prepare(progress)
        prepared = snapshot(embedder.stats)
        skip = done_ids(db, sid)
        chosen, sampled = _sample(opts, testset, embedder, warn)
        todo = [
            (seq, q)
            for seq, q in enumerate(testset.questions)
            if q.id not in skip and (chosen is None or seq in chosen)
        ]
        total = len(testset.questions) if chosen is None else len(chosen)
        ctx = EvalContext(
            system=system,
            embedder=embedder,
            k=opts.k,
            index=GoldIndex(chunks),
            retrieval_metrics=retrieval_metrics,
            generation_metrics=generation_metrics,
            judge_llm=llms["judge"],
            paraphrase_llm=llms["paraphrase"],
            paraphrases=opts.paraphrases,
            repeats=opts.repeats,
            judge_mode=opts.judge_mode,
            retrieval_measured=not unmeasured,
            no_gold_unanswerable=opts.no_gold_unanswerable,
        )
        _evaluate_all(db, sid, ctx, todo, len(skip), total, opts.concurrency, progress)
        items = load_eval_items(db, sid)
        probed = (
            run_probes(
                system,
                chunks,
                [[c["id"] for c in i["retrieved"]] for i in items if i["status"] == "done"],
                n=opts.probes,
                k=opts.k,
                seed=opts.seed,
                concurrency=opts.concurrency,
                llm=llms["llm"],
                progress=progress,
            )
            if opts.probes
            else None
        )
        header: EvalReport = {
            "session_id": sid,
            "name": opts.name,
            "kind": "eval",
            "questions_path": str(Path(opts.questions).resolve()),
            "system": system.name,
            "answer_label": next((label for i in items if (label := i.get("answer_label"))), ""),
            "judge": f"llm:{llms['judge'].spec}" if llms["judge"] else "heuristic",
            "embedder": embedder.spec,
            "k": opts.k,
            "metrics": {"retrieval": retrieval_metrics, "generation": generation_metrics},
            "repeats": opts.repeats,
            "resumed": bool(opts.resume),
            "skipped_done": len(skip),
            "aggregate": aggregate_items(items, retrieval_metrics, generation_metrics, opts.repeats),
            "counts": count_items(items, total),
            "errors": item_errors(items),
            "scope": scope_counts(items),
            "gold_ids": gold_ids,
            "gold_from_contexts": from_contexts.as_dict() if from_contexts else None,
            "records_join": records_join,
            "embedding": embedding_use(
                start, prepared, snapshot(embedder.stats), system=system.name, generation_metrics=generation_metrics
            ),
            "usage": _usage(embedder, llms),
            "timings": {"total": round(time.perf_counter() - t0, 3)},
        }
        _optional_sections(
            db, header, testset, documents, chunks, unmeasured=unmeasured, probed=probed, sampled=sampled
        )
        save_eval_header(db, sid, header)
        if warn is not None and (healed := discarded_note(embedder)):
            warn(healed)
        finish_session(db, sid, "done", summary=eval_headline(header), timings=header["timings"], usage=header["usage"])
        return sid, load_eval_report(db, sid)
    except Cancelled:  # what was spent so far is kept with the session
        finish_session(db, sid, "cancelled", error="cancelled by the user", usage=_stopped_usage(embedder, llms))
        raise
    except BaseException as exc:  # Ctrl-C / SIGTERM: recorded as interrupted
        finish_session(db, sid, "failed", error=f"{type(exc).__name__}: {exc}", usage=_stopped_usage(embedder, llms))
        raise
    finally:
        close = getattr(system, "close", None)  # optional hook: release connections (http systems)
        if close is not None:
            close()


def _optional_sections(
    db: sqlite_utils.Database,
    header: EvalReport,
    testset: TestSet,
    documents: list,
    chunks: list,
    *,
    unmeasured: str | None,
    probed: ProbeReport | None,
    sampled: SampleInfo | None,
) -> None:
    """The report's sections that only some runs have: retrieval not measured, the probes, synthetic
    reference answers, stale gold (and this run's content hashes for the next), the question sample."""
    if unmeasured:
        header["retrieval_not_measured"] = unmeasured
    if probed is not None:
        header["probes"] = probed
    if synthetic := synthetic_references(q.raw for q in testset.questions):
        header["synthetic_references"] = synthetic  # generated by `ragcov references`: said in every report
    if chunks:  # content hashes for the next run's stale gold, and this run's against the last one
        header["stale_gold"], hashes = eval_stale_gold(db, header["session_id"], testset, documents, chunks)
        save_content_hashes(db, header["session_id"], hashes)
    if sampled is not None:
        header["sample"] = sampled


def _evaluate_all(
    db: sqlite_utils.Database,
    sid: str,
    ctx: EvalContext,
    todo: list,
    skipped: int,
    total: int,
    concurrency: int,
    progress: Progress | None,
) -> None:
    """Fan the questions out; store each finished item from this thread before reporting it."""
    finished: queue.SimpleQueue[EvalItem] = queue.SimpleQueue()
    failed = 0

    def work(pair: tuple[int, Any]) -> None:
        finished.put(evaluate_question(ctx, pair[1], pair[0]))

    def store_then_report(stage: str, done: int, _n: int) -> None:
        nonlocal failed
        while not finished.empty():
            failed += not _store_item(db, sid, finished.get())
        report_failed(progress, stage, failed)
        report(progress, stage, skipped + done, total)

    outcomes = run_bounded(work, todo, concurrency=concurrency, progress=store_then_report, stage=STAGE)
    store_then_report(STAGE, len(todo), len(todo))
    bug = next((o.error for o in outcomes if o.error is not None), None)
    if bug is not None:  # evaluate_question never raises for a user-side failure: this is a bug
        raise bug


def _store_item(db: sqlite_utils.Database, sid: str, item: EvalItem) -> bool:
    """Save one item; one the store refuses (a NaN that got past the checks) is saved as failed.
    True when it was stored ``done``."""
    try:
        save_eval_item(db, sid, item)
    except NonFiniteValue as exc:
        save_eval_item(
            db,
            sid,
            {
                "id": item["id"],
                "seq": item["seq"],
                "status": "error",
                "question": item.get("question"),
                "error": f"internal: {exc}",
                "diagnosis": "undetermined",
            },
        )
        return False
    return item["status"] == "done"


def _llms(
    opts: EvalOptions, db: sqlite_utils.Database, warn: Callable[[str], None] | None
) -> dict[str, ChatModel | None]:
    """The system's, the judge's and the paraphraser's models; one instance per distinct spec
    (``warn`` hears once per model whose server does not list it)."""
    made: dict[str, ChatModel | None] = {}

    def get(spec: str | None) -> ChatModel | None:
        key = spec or ""
        if key not in made:
            made[key] = make_llm(spec, db=None if opts.no_cache else db, concurrency=opts.concurrency, warn=warn)
        return made[key]

    llm = get(opts.llm)
    return {
        "llm": llm,
        "judge": get(opts.judge_llm) if opts.judge_llm else llm,
        "paraphrase": get(opts.paraphrase_llm) if opts.paraphrase_llm else llm,
    }


def _usage(embedder: Any, llms: dict[str, ChatModel | None]) -> EvalUsage:
    """Token, request and cost totals of this run (models shared between roles counted once):
    ``llm_requests`` every HTTP request sent, retried and failed ones included; ``cost_usd`` is
    None when a model's price is unknown."""
    models = {id(m): m for m in llms.values() if m is not None}
    per_model = {m.spec: m.usage.as_dict() for m in models.values()}
    return {
        "embeddings": embedder.usage(),
        "llm": per_model,
        "llm_calls": sum(u["calls"] for u in per_model.values()),
        "llm_cached": sum(u["cached"] for u in per_model.values()),
        "llm_requests": sum(u["requests"] for u in per_model.values()),
        "llm_retried": sum(u["retried"] for u in per_model.values()),
        "llm_failed": sum(u["failed"] for u in per_model.values()),
        "prompt_tokens": sum(u["prompt_tokens"] for u in per_model.values()),
        "completion_tokens": sum(u["completion_tokens"] for u in per_model.values()),
        "cost_usd": None
        if any(u["cost_usd"] is None for u in per_model.values())
        else round(sum(u["cost_usd"] for u in per_model.values()), 6),
    }


def _stopped_usage(embedder: Any, llms: dict[str, ChatModel | None]) -> EvalUsage:
    """The usage of a run that stopped, after its models and embedder stopped sending (the
    abandoned calls' requests in flight are counted ``abandoned``; none starts after this)."""
    for tally in [m.usage for m in llms.values() if m is not None] + [getattr(embedder, "tally", None)]:
        if tally is not None:
            tally.stop()
    return _usage(embedder, llms)


def _sample(
    opts: EvalOptions, testset: TestSet, embedder: Any, warn: Callable[[str], None] | None
) -> tuple[set[int] | None, SampleInfo | None]:
    """The question rows ``--sample`` keeps (None: every question) and how they were drawn."""
    n = len(testset.questions)
    if opts.sample is None or opts.sample >= n:
        if opts.sample is not None and warn is not None:
            warn(f"--sample {opts.sample}: the test file has {n} questions; every one is scored")
        return None, None
    rows, clusters = stratified_sample(
        [q.text for q in testset.questions],
        opts.sample,
        lambda texts: embedder.embed(texts, stage="embedding questions for --sample"),
        opts.seed,
    )
    return set(rows.tolist()), {
        "size": len(rows),
        "of": n,
        "clusters": clusters,
        "seed": opts.seed,
        "rule": f"seeded, stratified by {clusters} K-means clusters of the question texts "
        "(places proportional to cluster size, largest remainder)",
    }


def _session(
    db: sqlite_utils.Database,
    opts: EvalOptions,
    params: JsonObject,
    testset: TestSet,
    embedder: str,
    judge: ChatModel | None,
) -> str:
    """A new running session, or the resumed one (BadInput when it is no eval session, its
    settings differ, it ran on another test file, other gold or another corpus)."""
    if opts.resume:
        session = resolve_session(db, opts.resume, kind="eval")
        check_same_questions(db, session, testset, opts.resume)
        before = session.get("params") or {}
        check_same_inputs(before, params[INPUTS_KEY], session["id"], opts.resume)
        changed = [key for key in RESUME_KEYS if key in before and before[key] != params[key]]
        if changed:
            raise BadInput(
                f"--resume {opts.resume}: session {session['id']} was run with different "
                f"{', '.join(changed)}; start a new run instead"
            )
        resume_session(db, session["id"])  # BadInput while another process still runs it
        return session["id"]
    return create_session(
        db,
        "eval",
        corpus=session_corpus(opts.corpus),
        questions_path=str(Path(opts.questions).resolve()),
        testset_sha256=testset.sha256,
        embedder=embedder,
        llm=judge.spec if judge else "heuristic",
        system=redact_text(opts.system),
        params=params,
        name=opts.name,
    )
