"""``ragcov references``: a reference answer for each judged query of a BEIR folder, into a new file.

The folder is read as ``ragcov eval`` reads it (:func:`ragcov_tui.testset.beir.read_ir_folder`:
the queries judged in ``qrels/<split>.tsv``) with its ``corpus.jsonl``; each query's answer is
written from its most relevant documents (:mod:`ragcov_tui.evaluation.references`) by ``llm``,
cached in the session database like every LLM call. The output is a JSON Lines test file that
``ragcov eval --questions`` reads, one row per query answered::

    {"id": …, "question": …, "ground_truth": <the answer>, "relevant_doc_ids": {doc: grade, …},
     "reference_generated": {"llm": "openai:…", "documents": [doc, …], "cut": [doc], "source": DIR, "split": …}}

(``relevant_doc_ids`` keeps every judgement, so retrieval is scored as on the folder.) It is written
whole or not at all (a temporary file renamed over ``out``); the BEIR folder is never written:
an ``out`` inside it is refused. Queries whose documents give no answer (none in the corpus, or
the model replies ``NONE``) are left out and listed; a failed call fails the run (nothing written).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import sqlite_utils

from ragcov_tui.corpus.load import load_corpus
from ragcov_tui.corpus.tokens import get_token_counter
from ragcov_tui.evaluation.references import (
    GENERATED_FIELD,
    Passage,
    pick_passages,
    reference_answer,
)
from ragcov_tui.llm.factory import make_llm
from ragcov_tui.services.atomic_file import write_atomically
from ragcov_tui.services.options import default
from ragcov_tui.shared.concurrency import run_bounded
from ragcov_tui.shared.errors import BadInput, ProviderError
from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.shared.progress import Progress
from ragcov_tui.testset.beir import CORPUS_FILE, DEFAULT_SPLIT, is_ir_folder, read_ir_folder
from ragcov_tui.testset.models import Question

STAGE = "writing references"


@dataclass
class ReferenceOptions:
    """One ``ragcov references`` run: the BEIR folder, the model, the output file."""

    questions: str
    llm: str
    out: str
    split: str = DEFAULT_SPLIT
    budget: int = default("budget")  # tokens of relevant documents given per query
    concurrency: int = default("concurrency")
    no_cache: bool = False


@dataclass
class ReferenceSummary:
    out: Path
    written: int
    without_answer: list[str] = field(default_factory=list)  # query ids left out
    usage: JsonObject = field(default_factory=dict)


def write_references(
    opts: ReferenceOptions,
    db: sqlite_utils.Database,
    progress: Progress | None = None,
    warn: Callable[[str], None] | None = None,
) -> ReferenceSummary:
    """Write the reference answers of ``opts.questions`` to ``opts.out`` (see the module docstring)."""
    folder = Path(opts.questions)
    if not is_ir_folder(folder):
        raise BadInput(f"--questions {folder}: not a BEIR folder (no {folder / 'queries.jsonl'})")
    out = Path(opts.out)
    if out.resolve().is_relative_to(folder.resolve()):
        raise BadInput(f"--out {out}: inside the BEIR folder {folder}, which is never written; choose a path outside")
    if not isinstance(opts.budget, int) or opts.budget < 1:
        raise BadInput(f"--budget: must be a whole number of tokens >= 1, got {opts.budget!r}")
    llm = make_llm(opts.llm, db=None if opts.no_cache else db, concurrency=opts.concurrency, warn=warn)
    if llm is None:
        raise BadInput("--llm: a model is needed to write reference answers (e.g. openai:gpt-4o-mini)")
    testset = read_ir_folder(folder, opts.split)
    texts = {d.source: d.text for d in load_corpus([folder / CORPUS_FILE], warn=warn).documents}
    counter = get_token_counter()

    def cut(text: str, n: int) -> str:
        return counter.decode(counter.encode(text)[:n])

    def answer(question: Question) -> tuple[str | None, list[Passage]]:
        passages = pick_passages(question.gold, texts, opts.budget, counter.count, cut)
        return (reference_answer(llm, question.text, passages) if passages else None), passages

    outcomes = run_bounded(answer, testset.questions, concurrency=opts.concurrency, progress=progress, stage=STAGE)
    failed = [(q, o.error) for q, o in zip(testset.questions, outcomes, strict=True) if not o.ok]
    if failed:
        q, error = failed[0]
        raise ProviderError(
            f"{llm.spec} failed on {len(failed)} of {len(outcomes)} queries (first: {q.id}: {error}); "
            "nothing written — run again (finished answers are cached)"
        )
    rows, without = [], []
    for q, o in zip(testset.questions, outcomes, strict=True):
        text, passages = o.value or (None, [])
        if text is None:
            without.append(q.id)
            continue
        rows.append(
            {
                "id": q.id,
                "question": q.text,
                "ground_truth": text,
                "relevant_doc_ids": q.gold,
                GENERATED_FIELD: {
                    "llm": llm.spec,
                    "documents": [p.document for p in passages],
                    "cut": [p.document for p in passages if p.cut],
                    "source": str(folder),
                    "split": opts.split,
                },
            }
        )
    if not rows:
        raise BadInput(f"{folder}: no query got a reference answer (none of their relevant documents answered it)")
    _write_jsonl(out, rows)
    return ReferenceSummary(out, len(rows), without, llm.usage.as_dict())


def _write_jsonl(path: Path, rows: list[JsonObject]) -> None:
    """``rows`` as JSON Lines at ``path``, whole or not at all."""
    write_atomically(path, "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))
