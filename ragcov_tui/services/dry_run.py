"""``--dry-run``: what an analysis or an eval would do and cost, found without doing it.

The inputs are read and chunked exactly as the run would; the embedding cache is read (never
written) to find the texts still to embed; their tokens are counted
(:func:`ragcov_tui.embeddings.workload.count_tokens`: exact for ``local`` and ``openai:``); the
cost is ``tokens × price`` at the price that applies to the embedder's server
(:func:`ragcov_tui.llm.cost.price_for`: list prices only at the provider's own API, "cost unknown"
where no price applies); the time is ``tokens / rate`` where ``rate`` is measured by embedding a
seeded sample for about two seconds on this machine (:func:`~ragcov_tui.embeddings.workload.calibrate`;
a remote embedder is never called, so its time is unknown). No session is created, no LLM or
embedding server is called, and the database is opened read-only (not at all when it does not exist).

LLM calls are counted, not priced (their prompts depend on what the run finds):

- analyze: one theme call per gap cluster, at most one per cluster (the gaps are known only after
  the run), none without ``--llm``;
- eval: per question and repeat, :data:`JUDGE_CALLS` calls for each judged generation metric
  (one for the rest), none with the offline judge or with retrieval metrics only.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import sqlite_utils

from ragcov_tui.corpus.models import Chunk
from ragcov_tui.coverage.sampling import sample_rows
from ragcov_tui.embeddings.base import Embedder
from ragcov_tui.embeddings.factory import make_embedder
from ragcov_tui.embeddings.workload import TokenCount, calibrate, count_tokens, misses
from ragcov_tui.evaluation.generation.abstention import SCOPE_METRICS
from ragcov_tui.evaluation.generation.claim_checks import context_units
from ragcov_tui.evaluation.generation.registry import JUDGED_METRICS
from ragcov_tui.evaluation.metric_names import select_metrics
from ragcov_tui.evaluation.scope import out_of_scope_ids
from ragcov_tui.llm.cost import cost_of, price_for
from ragcov_tui.llm.factory import parse_spec as parse_llm_spec
from ragcov_tui.services.analysis_job import AnalyzeOptions, load_inputs
from ragcov_tui.services.corpus_source import LoadedCorpus, load_corpus_source
from ragcov_tui.services.eval_job import EvalOptions
from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.testlint.answerable import NEAREST_CHUNKS
from ragcov_tui.testset.beir import corpus_paths, read_questions
from ragcov_tui.testset.models import TestSet
from ragcov_tui.vectorstores.registry import store_scheme

# Judge calls per question for the judged metrics that split the text into claims and then check
# them (two calls); every other judged metric is one call.
JUDGE_CALLS = {"faithfulness": 2, "context_recall": 2}
DENSE_SYSTEMS = ("builtin:dense", "builtin:hybrid")  # systems that embed the corpus and the questions


@dataclass
class RunPlan:
    """What a run would do (the ``--dry-run --json`` contract; ``None`` = not known before the run)."""

    command: str
    documents: int
    chunks: int
    questions: int
    embedder: str
    texts: int  # distinct texts the run embeds or reads from the cache
    cached: int  # of them, served from the cache
    to_embed: int
    tokens: int  # tokens of the texts to embed
    tokens_exact: bool
    tokenizer: str
    embedding_cost_usd: float | None  # None: cost unknown (no price applies)
    embedding_paid: bool  # a metered API (else it runs here, free)
    tokens_per_second: float | None  # the calibration; None for a remote embedder
    embedding_seconds: float | None
    llm: str | None
    llm_calls: int | None  # None: at most llm_calls_bound
    llm_calls_bound: int | None
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> JsonObject:
        return dataclasses.asdict(self)

    def lines(self) -> list[str]:
        """The plan in plain lines (the CLI prints them)."""
        exact = "exact" if self.tokens_exact else "approximate"
        if not self.embedding_paid:
            cost = "free (runs on this machine)"
        elif self.embedding_cost_usd is None:
            cost = "cost unknown (no price for this model at this server: set $RAGCOV_PRICE_PER_MTOK)"
        else:
            cost = f"${self.embedding_cost_usd:,.4f} at list price"
        if self.embedding_seconds is not None and self.tokens_per_second:
            time_line = (
                f"about {_duration(self.embedding_seconds)} of embedding on this machine "
                f"({self.tokens_per_second:,.0f} tokens/s measured)"
            )
        elif self.to_embed == 0:
            time_line = "no embedding"
        else:
            time_line = "time unknown (a remote embedder is not called by --dry-run)"
        out = [
            f"dry run of {self.command}: nothing was embedded, called or written",
            f"{self.documents:,} documents, {self.chunks:,} chunks, {self.questions:,} questions",
            f"embedder {self.embedder}: {self.texts:,} distinct texts, {self.cached:,} in the cache, "
            f"{self.to_embed:,} to embed",
            f"tokens to embed: {self.tokens:,} ({exact}: {self.tokenizer})",
            f"embedding cost: {cost}",
            f"embedding time: {time_line}",
        ]
        if self.llm is None:
            out.append("LLM calls: none (offline)")
        elif self.llm_calls is not None:
            out.append(
                f"LLM calls ({self.llm}): about {self.llm_calls:,} (cost not estimated: prompts depend on the run)"
            )
        else:
            out.append(
                f"LLM calls ({self.llm}): at most {self.llm_calls_bound:,}, one per gap found "
                "(cost not estimated: prompts depend on the run)"
            )
        return out + self.notes


def _duration(seconds: float) -> str:
    s = max(1, int(round(seconds)))
    return f"{s}s" if s < 60 else f"{s // 60}m{s % 60:02d}s" if s < 3600 else f"{s // 3600}h{s % 3600 // 60:02d}m"


@dataclass(frozen=True)
class _Embedding:
    texts: int
    cached: int
    to_embed: int
    tokens: TokenCount
    cost: float | None
    tokens_per_second: float | None
    seconds: float | None


def _embedding(embedder: Embedder, texts: list[str]) -> _Embedding:
    distinct = len(set(texts))
    todo = misses(embedder, texts)
    tokens = count_tokens(embedder, todo)
    price = price_for(embedder.provider, embedder.model, embedder.base_url) if embedder.paid else (0.0, 0.0)
    rate = calibrate(embedder, todo)
    return _Embedding(
        distinct,
        distinct - len(todo),
        len(todo),
        tokens,
        cost_of(price, tokens.tokens),
        rate,
        tokens.tokens / rate if rate else None,
    )


def _plan(
    command: str,
    embedder: Embedder,
    texts: list[str],
    *,
    documents: int,
    chunks: int,
    questions: int,
    llm: str | None,
    llm_calls: int | None,
    llm_calls_bound: int | None,
    notes: list[str],
) -> RunPlan:
    e = _embedding(embedder, texts)
    return RunPlan(
        command=command,
        documents=documents,
        chunks=chunks,
        questions=questions,
        embedder=embedder.spec,
        texts=e.texts,
        cached=e.cached,
        to_embed=e.to_embed,
        tokens=e.tokens.tokens,
        tokens_exact=e.tokens.exact,
        tokenizer=e.tokens.tokenizer,
        embedding_cost_usd=e.cost,
        embedding_paid=embedder.paid,
        tokens_per_second=e.tokens_per_second,
        embedding_seconds=e.seconds,
        llm=llm,
        llm_calls=llm_calls,
        llm_calls_bound=llm_calls_bound,
        notes=notes,
    )


def plan_analysis(
    opts: AnalyzeOptions, db: sqlite_utils.Database | None, warn: Callable[[str], None] | None = None
) -> RunPlan:
    """The plan of ``run_analysis(opts)`` (``db``: the read-only cache, or None)."""
    params = opts.coverage_params()
    opts, testset, loaded = load_inputs(opts, None, warn)
    documents, chunks = loaded.documents, loaded.chunks
    rows = sample_rows(len(chunks), opts.sample, params.seed)
    if rows is not None:  # --sample: only the sampled chunks are embedded
        chunks = [chunks[i] for i in rows]
    embedder = make_embedder(opts.embedder, db=None if opts.no_cache else db, concurrency=opts.concurrency)
    texts: list[str] = []
    if embedder.provider != "precomputed":
        stored = loaded.store is not None  # a vector store's chunks keep their vectors: only the questions are embedded
        texts = ([] if stored else [c.text for c in chunks]) + [q.text for q in testset.questions]
        texts += lint_texts(testset, chunks, embedder)
    llm = _llm_spec(opts.llm)
    bound = None if llm is None else (params.clusters if isinstance(params.clusters, int) else len(chunks))
    notes = ["--traffic: the log's queries are embedded too (not counted here)"] if opts.traffic else []
    notes.append("test-set lint: the sentences of the chunks near each reference answer (estimated)")
    return _plan(
        "analyze",
        embedder,
        texts,
        documents=len(documents),
        chunks=len(chunks),
        questions=len(testset.questions),
        llm=llm,
        llm_calls=None if llm else 0,
        llm_calls_bound=bound,
        notes=notes,
    )


def lint_texts(testset: TestSet, chunks: Sequence[Chunk], embedder: Embedder) -> list[str]:
    """What the test-set lint of an analysis embeds, estimated before the run: the sentences of each
    reference answer's nearest chunks (``testlint.answerable.NEAREST_CHUNKS`` for the answer and as many
    again for its claims), at most every chunk once. Which chunks are nearest is known only once they
    are embedded, so the first ones stand in for them; a chunk whose own vector is cached was read by an
    earlier run, which embedded (and cached) its sentences then, so it adds nothing."""
    answered = sum(1 for q in testset.questions if (q.ground_truth or "").strip())
    read = chunks[: min(len(chunks), answered * 2 * NEAREST_CHUNKS)]
    new = set(misses(embedder, [c.text for c in read]))
    return [sentence for c in read if c.text in new for sentence in context_units(c.text)[0]]


def plan_eval(
    opts: EvalOptions, db: sqlite_utils.Database | None, warn: Callable[[str], None] | None = None
) -> RunPlan:
    """The plan of ``run_eval(opts)`` for its questions and corpus (``db``: the read-only cache, or None)."""
    opts.check()
    testset = read_questions(opts.questions, split=opts.split, qrels=opts.qrels, warn=warn)
    searched = store_scheme(opts.system) is not None  # the store's own index: only the questions are embedded
    retrieval_only = testset.format == "beir" or searched  # as run_eval selects its metrics
    _, generation = select_metrics(opts.metrics or ("retrieval" if retrieval_only else None), opts.k)
    if not opts.metrics and out_of_scope_ids(testset.questions, no_gold_unanswerable=opts.no_gold_unanswerable):
        generation += [m for m in SCOPE_METRICS if m not in generation]  # as run_eval adds them
    corpus = corpus_paths(opts.questions, opts.corpus)
    loaded = (
        load_corpus_source(corpus, opts, chunk_size=opts.chunk_size, chunk_overlap=opts.chunk_overlap, warn=warn)
        if corpus
        else LoadedCorpus([], [])
    )  # files, or a vector store
    documents, chunks = loaded.documents, loaded.chunks
    embedder = make_embedder(opts.embedder, db=None if opts.no_cache else db, concurrency=opts.concurrency)
    questions = [q.text for q in testset.questions]
    texts = [c.text for c in chunks] + questions if opts.system in DENSE_SYSTEMS else questions if searched else []
    judge = _llm_spec(opts.judge_llm or opts.llm)
    judged = [m for m in generation if m in JUDGED_METRICS]
    per_question = sum(JUDGE_CALLS.get(m, 1) for m in judged)
    calls = (
        0
        if judge is None
        else len(testset.questions) * (opts.repeats * per_question + any(m in SCOPE_METRICS for m in generation))
    )  # one verdict
    notes = []
    if generation:
        notes.append(
            "the answers, contexts and ground truths the offline generation metrics embed are known "
            "only during the run (not counted here)"
        )
    claim_checked = [m for m in judged if m in JUDGE_CALLS]
    if judge is not None and claim_checked and opts.judge_mode != "batch":
        notes.append(
            f"--judge-mode {opts.judge_mode}: {', '.join(claim_checked)} ask one verification call per "
            "claim, known only during the run (counted above as one)"
        )
    if opts.llm and opts.system.startswith("builtin:"):
        notes.append(f"answer generation: one call per question to {_llm_spec(opts.llm)} (not counted above)")
    return _plan(
        "eval",
        embedder,
        texts,
        documents=len(documents),
        chunks=len(chunks),
        questions=len(testset.questions),
        llm=judge,
        llm_calls=calls,
        llm_calls_bound=None,
        notes=notes,
    )


def _llm_spec(spec: str | None) -> str | None:
    """``provider:model`` of an LLM spec, None for the offline one (nothing is built or called)."""
    parsed = parse_llm_spec(spec)
    return None if parsed is None else f"{parsed[0]}:{parsed[1]}"
