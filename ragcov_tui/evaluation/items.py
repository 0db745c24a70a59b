"""Evaluating one question: ask the system (and its paraphrases), score retrieval and generation,
diagnose. Runs in worker threads; it touches no database and returns the item dict described in
:mod:`ragcov_tui.store.evals`.

A failure of the system on the main question (an exception, or a reply of the wrong shape or with
a non-finite score), of the generation scorer as a whole, or of the judge on any metric (that
metric's value None, its reason in ``errors``) makes the item ``error``: it is not counted as
scored and a resumed run redoes it. A failed paraphrase is recorded in the item and left out of
the robustness metrics.
"""

from __future__ import annotations

from dataclasses import dataclass

from ragcov_tui.embeddings.base import Embedder
from ragcov_tui.evaluation.diagnosis import diagnose
from ragcov_tui.evaluation.generation import GenerationInput, generate_paraphrases, parse_citations, score_generation
from ragcov_tui.evaluation.generation.abstention import (
    SCOPE_METRICS,
    AbstentionVerdict,
    judge_abstained,
    phrase_verdict,
)
from ragcov_tui.evaluation.generation.judge import Judge, JudgeError
from ragcov_tui.evaluation.retrieval import GoldIndex, evaluate_retrieval
from ragcov_tui.evaluation.scope import is_out_of_scope
from ragcov_tui.evaluation.systems.base import System, SystemOutput, output_from_value
from ragcov_tui.llm.base import ChatModel
from ragcov_tui.store.eval_contract import EvalItem, ParaphraseAsked
from ragcov_tui.testset.models import Question
from ragcov_tui.testset.writer import text_key


@dataclass
class EvalContext:
    """Everything shared by the per-question work of one run."""

    system: System
    embedder: Embedder
    k: int
    index: GoldIndex
    retrieval_metrics: list[str]
    generation_metrics: list[str]
    judge_llm: ChatModel | None = None
    paraphrase_llm: ChatModel | None = None
    paraphrases: int = 0
    repeats: int = 1
    judge_mode: str = "batch"  # graded.JUDGE_MODES: how the judge asks for claim verdicts
    retrieval_measured: bool = True  # False: the system's retrieved ids cannot be matched to gold ids
    no_gold_unanswerable: bool = False  # a question with no gold and no reference answer is out of scope

    @property
    def model_metrics(self) -> list[str]:
        """The generation metrics the scorer computes (all but the abstention ones, scored here)."""
        return [m for m in self.generation_metrics if m not in SCOPE_METRICS]


def paraphrases_for(ctx: EvalContext, question: Question) -> tuple[list[str], str]:
    """The paraphrases to ask and where they came from: the test file's (at most N with
    ``--paraphrases N``), topped up to N by the paraphrase LLM when one is set (the LLM cache keeps
    them), else none."""
    given = question.paraphrases[: ctx.paraphrases or None]
    missing = ctx.paraphrases - len(given)
    if missing <= 0 or ctx.paraphrase_llm is None:
        return given, "test file" if given else ""
    known = {text_key(p) for p in [question.text, *given]}
    generated = [
        p for p in generate_paraphrases(question.text, ctx.paraphrases, ctx.paraphrase_llm) if text_key(p) not in known
    ][:missing]
    origin = f"llm:{ctx.paraphrase_llm.spec}"
    return given + generated, f"test file + {origin}" if given else origin


def evaluate_question(ctx: EvalContext, question: Question, seq: int) -> EvalItem:
    """The finished item for ``question`` (status ``done`` or ``error``); never raises for a
    failure of the system or the judge."""
    item: EvalItem = {
        "id": question.id,
        "seq": seq,
        "status": "done",
        "question": question.text,
        "retrieval": {},
        "generation": {},
        "errors": {},
    }
    # A run scoring retrieval only asks a system that can retrieve without answering to do just that.
    ask = getattr(ctx.system, "retrieve_only", None) if not ctx.generation_metrics else None
    # A system that joins stored rows to test questions (records) is asked by the question itself.
    answer_for = getattr(ctx.system, "answer_for", None)
    try:
        output = answer_for(question) if answer_for and not ask else (ask or ctx.system.answer)(question.text)
        output = output_from_value(output, ctx.system.name)  # NaN scores, wrong types: this item's error
    except Exception as exc:  # the user's system failed on this item; the run goes on
        return {**item, "status": "error", "error": f"system: {_message(exc)}", "diagnosis": "undetermined"}
    cited = set(parse_citations(output.answer))
    item.update(
        {
            "answer": output.answer,
            "answer_label": output.label,
            "retrieved": [
                {"id": c.id, "text": c.text, "score": c.score, "cited": c.id in cited} for c in output.contexts
            ],
        }
    )

    relevant_ranks = _score_retrieval(ctx, question, output, item)
    try:
        _score_generation(ctx, question, output, item)
    except Exception as exc:  # the scorer itself failed (not one judge reply): redo on resume
        item.update({"status": "error", "error": f"generation: {_message(exc)}"})
    answerable = not is_out_of_scope(question, no_gold_unanswerable=ctx.no_gold_unanswerable)
    verdict = _score_abstention(ctx, question, output, item, answerable) if ask is None else None
    if item["status"] == "done" and item["errors"]:  # a judgement failed: not done, so --resume redoes it
        item.update({"status": "error", "error": judgement_error(item["errors"])})
    item["diagnosis"] = diagnose(
        relevant_ranks,
        ctx.k,
        item["generation"],
        retrieval_measured=ctx.retrieval_measured,
        abstained=verdict.abstained if verdict else None,
        answerable=answerable,
    )
    return item


def _score_abstention(
    ctx: EvalContext, question: Question, output: SystemOutput, item: EvalItem, answerable: bool
) -> AbstentionVerdict | None:
    """Whether the system abstained (kept in ``details.abstention``) and, when the run scores them, the
    abstention metrics: ``answered`` on an answerable question, ``abstention`` on an out-of-scope one,
    the other one undefined. The judge decides when one is named and these metrics are scored, else the
    phrase matcher (which always gives the diagnosis its ``refused``). None when the judge failed or the
    answer is empty (undefined: an empty answer cannot be told from a records file without answers)."""
    scored = [m for m in SCOPE_METRICS if m in ctx.generation_metrics]
    metric = "answered" if answerable else "abstention"
    if not output.answer.strip():  # nothing said: a records file without answers looks the same, so no verdict
        for name in scored:
            item.setdefault("generation", {})[name] = None
            item.setdefault("undefined", {})[name] = "no answer"
        return None
    try:
        verdict = (
            judge_abstained(Judge(ctx.judge_llm, 0, item.setdefault("judge_calls", [])), question.text, output.answer)
            if scored and ctx.judge_llm is not None
            else phrase_verdict(output.answer)
        )
    except JudgeError as exc:
        item.setdefault("errors", {})[metric] = f"judge reply unusable: {exc}"
        item.setdefault("generation", {})[metric] = None
        return None
    item.setdefault("details", {})["abstention"] = {**verdict.as_dict(), "out_of_scope": not answerable}
    if metric in scored:
        item.setdefault("generation", {})[metric] = float(verdict.abstained != answerable)
    for other in scored:
        if other != metric:
            item.setdefault("generation", {})[other] = None
            item.setdefault("undefined", {})[other] = (
                "the question is answerable" if answerable else "the question is out of scope"
            )
    return verdict


def _score_retrieval(ctx: EvalContext, question: Question, output: SystemOutput, item: EvalItem) -> list[int] | None:
    if not ctx.retrieval_measured:
        item.update({"level": None, "relevant_ranks": None})
        return None
    if not any(g > 0 for g in question.gold.values()):
        item.update({"retrieval": dict.fromkeys(ctx.retrieval_metrics), "level": None, "relevant_ranks": None})
        return None
    result = evaluate_retrieval([c.id for c in output.contexts], question.gold, ctx.k, ctx.index)
    item.update(
        {
            "retrieval": {m: result.values[m] for m in ctx.retrieval_metrics},
            "level": result.level,
            "relevant_ranks": result.relevant_ranks,
        }
    )
    return result.relevant_ranks


def _score_generation(ctx: EvalContext, question: Question, output: SystemOutput, item: EvalItem) -> None:
    if not ctx.model_metrics:
        return
    texts, source = paraphrases_for(ctx, question)
    asked: list[ParaphraseAsked] = []
    outputs = []
    for text in texts:
        try:
            out = ctx.system.answer(text)
        except Exception as exc:
            asked.append({"question": text, "error": _message(exc)})
            continue
        asked.append({"question": text, "answer": out.answer, "retrieved_ids": [c.id for c in out.contexts]})
        outputs.append(out)
    item["paraphrases"] = {"source": source, "items": asked} if texts else None
    scores = score_generation(
        GenerationInput(
            question=question.text,
            answer=output.answer,
            contexts=output.contexts,
            ground_truth=question.ground_truth,
            expected_keywords=question.expected_keywords,
            paraphrase_outputs=outputs,
            main_retrieved_ids=[c.id for c in output.contexts],
            paraphrases=[a["question"] for a in asked if "error" not in a],
        ),
        llm=ctx.judge_llm,
        embedder=ctx.embedder,
        metrics=set(ctx.model_metrics),
        repeats=ctx.repeats,
        judge_mode=ctx.judge_mode,
    )
    item.update(
        {
            "generation": {m: scores.values.get(m) for m in ctx.model_metrics},
            "spread": scores.spread,
            "details": scores.details,
            "judge_calls": scores.judge_calls,
            "judge": scores.judge,
            "errors": dict(scores.errors),
            "undefined": dict(scores.undefined),
        }
    )


def judgement_error(errors: dict[str, str]) -> str:
    """The item's error when metrics failed: ``faithfulness: <reason> (+2 more metrics)``."""
    metric = sorted(errors)[0]
    more = f" (+{len(errors) - 1} more metric{'s' if len(errors) > 2 else ''})" if len(errors) > 1 else ""
    return f"{metric}: {errors[metric]}{more}"


def _message(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
