"""How well the offline faithfulness score agrees with people (issue #26 §2).

Reads a labelled set in RAGTruth's layout — ``response.jsonl`` (``id``, ``source_id``,
``response``, ``labels``: the hallucinated spans people marked, ``split``) and
``source_info.jsonl`` (``source_id``, ``task_type`` QA / Summary / Data2txt, ``source_info``: a
``{question, passages}`` record for QA, the article for Summary, a JSON record for Data2txt) —
scores every response of ``--split`` with the product's offline faithfulness (the same
``score_generation`` the CLI runs, default embedder) and prints, in one run:

* ROC-AUC of the score against "faithful" (no labelled span), with a percentile bootstrap 95%
  interval (responses resampled with replacement, ``--resamples`` times);
* balanced accuracy (mean of the true-positive and true-negative rates) at the product's
  threshold ``FAITHFUL_THRESHOLD`` (score >= threshold reads "faithful");
* the same per task type, seconds per item (scoring only, model load excluded);
* the word-overlap baseline on the same items: the share of the answer's content words found
  in the context (``text.content_tokens``).

An answer that makes no factual claim has no faithfulness (undefined in the product); here it
counts as 1.0 (it asserts nothing unfaithful) and the count is printed. ``--convert-halueval``
turns HaluEval's QA files into this layout (``convert_halueval``).

    python benchmarks/faithfulness_agreement.py DIR [--split test] [--limit N] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

RESAMPLES = 1000
_PASSAGE_HEAD = re.compile(r"(?im)^\s*passage \d+\s*:\s*")


@dataclass
class Item:
    """One labelled response: ``faithful`` is True when people marked no hallucinated span."""

    id: str
    task_type: str
    question: str
    answer: str
    passages: list[str]
    faithful: bool


def roc_auc(scores: Sequence[float], positive: Sequence[bool]) -> float | None:
    """P(score of a random positive > score of a random negative), ties counting 1/2
    (Mann-Whitney U / (n_pos · n_neg), with average ranks); None when a class is empty."""
    s = np.asarray(scores, dtype=float)
    y = np.asarray(positive, dtype=bool)
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    if not n_pos or not n_neg:
        return None
    order = np.argsort(s, kind="mergesort")
    ranks = np.empty(len(s))
    sorted_s = s[order]
    i = 0
    while i < len(s):
        j = i
        while j + 1 < len(s) and sorted_s[j + 1] == sorted_s[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return float((ranks[y].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def bootstrap_auc(
    scores: Sequence[float], positive: Sequence[bool], *, resamples: int = RESAMPLES, seed: int = 0
) -> tuple[float, float] | None:
    """Percentile 95% interval of ``roc_auc`` over item resamples (resamples missing a class are
    skipped); None when fewer than 10 resamples were usable."""
    rng = np.random.default_rng(seed)
    s, y = np.asarray(scores, dtype=float), np.asarray(positive, dtype=bool)
    values = []
    for _ in range(resamples):
        pick = rng.integers(0, len(s), len(s))
        auc = roc_auc(s[pick], y[pick])
        if auc is not None:
            values.append(auc)
    if len(values) < 10:
        return None
    return float(np.percentile(values, 2.5)), float(np.percentile(values, 97.5))


def balanced_accuracy(scores: Sequence[float], positive: Sequence[bool], threshold: float) -> float | None:
    """(TPR + TNR) / 2 with "predicted positive" = score >= threshold; None when a class is empty."""
    s, y = np.asarray(scores, dtype=float), np.asarray(positive, dtype=bool)
    if not y.any() or y.all():
        return None
    pred = s >= threshold
    return float(((pred & y).sum() / y.sum() + (~pred & ~y).sum() / (~y).sum()) / 2)


def split_passages(text: str) -> list[str]:
    """RAGTruth QA passages ("passage 1: … passage 2: …") as separate chunks."""
    parts = [p.strip() for p in _PASSAGE_HEAD.split(text)]
    return [p for p in parts if p] or [text]


def item_of(response: dict[str, Any], source: dict[str, Any]) -> Item:
    """A response joined to its source: the context the product would be given."""
    info = source["source_info"]
    task = str(source.get("task_type", "?"))
    question = ""
    if isinstance(info, dict) and "passages" in info:
        question = str(info.get("question", ""))
        passages = split_passages(str(info["passages"]))
    elif isinstance(info, dict):
        passages = [json.dumps(info, ensure_ascii=False, indent=1)]
    else:
        passages = [str(info)]
    return Item(
        str(response["id"]), task, question, str(response["response"]), passages, faithful=not response.get("labels")
    )


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def load(folder: Path, split: str) -> list[Item]:
    sources = {str(s["source_id"]): s for s in read_jsonl(folder / "source_info.jsonl")}
    return [
        item_of(r, sources[str(r["source_id"])])
        for r in read_jsonl(folder / "response.jsonl")
        if r.get("split", "test") == split and r.get("quality", "good") == "good"
    ]


def overlap_score(item: Item) -> float:
    """Word-overlap baseline: share of the answer's content words found in the context."""
    from ragcov_tui.evaluation.generation.text import content_tokens

    words = content_tokens(item.answer)
    if not words:
        return 1.0
    context = set(content_tokens(" ".join(item.passages)))
    return sum(w in context for w in words) / len(words)


def faithfulness_scores(
    items: Iterable[Item], embedder: Any, llm: Any = None, judge_mode: str = "batch"
) -> tuple[list[float], int, float, int]:
    """(score per item, items without claims, seconds per item, judge failures) with the product's
    scorer: offline, or judged by ``llm`` asked as ``judge_mode`` says. A failed judgement scores
    0.5 (no opinion) and is counted."""
    from ragcov_tui.evaluation.generation.models import GenerationInput
    from ragcov_tui.evaluation.generation.scoring import score_generation
    from ragcov_tui.evaluation.systems.base import RetrievedChunk

    items = list(items)
    scores, undefined, failed = [], 0, 0
    start = time.perf_counter()
    for item in items:
        gen = GenerationInput(
            question=item.question,
            answer=item.answer,
            contexts=[RetrievedChunk(f"p{i}", t) for i, t in enumerate(item.passages)],
        )
        result = score_generation(gen, llm=llm, embedder=embedder, metrics={"faithfulness"}, judge_mode=judge_mode)
        value = result.values["faithfulness"]
        failed += "faithfulness" in result.errors
        undefined += value is None and "faithfulness" not in result.errors
        scores.append(0.5 if "faithfulness" in result.errors else 1.0 if value is None else float(value))
        if llm is not None:
            print(
                f"  {len(scores)}/{len(items)} {item.id} faithful={item.faithful} score={scores[-1]:.3f} "
                f"{result.errors.get('faithfulness', '')[:80]}",
                file=sys.stderr,
                flush=True,
            )
    return scores, undefined, (time.perf_counter() - start) / max(1, len(items)), failed


def report(
    items: list[Item], scores: list[float], baseline: list[float], threshold: float, resamples: int, seed: int
) -> list[str]:
    """The printed table: one row per task type and one for all items."""
    lines = [f"{'set':<10} {'n':>5} {'faithful':>8} {'AUC':>6} {'95% CI':>15} {'bal.acc':>7} {'overlap AUC':>11}"]
    groups = sorted({i.task_type for i in items}) + ["all"]
    for group in groups:
        pick = [k for k, i in enumerate(items) if group in ("all", i.task_type)]
        y = [items[k].faithful for k in pick]
        s = [scores[k] for k in pick]
        auc = roc_auc(s, y)
        ci = bootstrap_auc(s, y, resamples=resamples, seed=seed)
        bal = balanced_accuracy(s, y, threshold)
        base = roc_auc([baseline[k] for k in pick], y)
        lines.append(
            f"{group:<10} {len(pick):>5} {sum(y):>8} {_f(auc):>6} "
            f"{'[' + _f(ci[0]) + ', ' + _f(ci[1]) + ']' if ci else '—':>15} {_f(bal):>7} {_f(base):>11}"
        )
    return lines


def _f(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}"


def convert_halueval(repo: Path, out: Path) -> None:
    """HaluEval QA (``generation/qa/qa_one-turn_data.json`` and ``qa_multi-turn_data.json``: the
    same questions, one JSON object a line, each with a right and a hallucinated answer) → RAGTruth
    layout: each question gives a faithful response (``right_answer``) and its two hallucinated
    ones; the first half of the questions is split train, the second half test."""
    one, multi = (read_jsonl(repo / "generation" / "qa" / f"qa_{n}-turn_data.json") for n in ("one", "multi"))
    other = {r["question"]: str(r["hallucinated_answer"]) for r in multi}
    responses, sources = [], []
    for k, r in enumerate(one):
        sid, split = f"h{k}", "train" if k < len(one) // 2 else "test"
        sources.append(
            {
                "source_id": sid,
                "task_type": "QA",
                "source": "HaluEval",
                "source_info": {"question": r["question"], "passages": "passage 1: " + r["knowledge"]},
            }
        )
        responses.append(
            {"id": f"{sid}-a", "source_id": sid, "split": split, "labels": [], "response": str(r["right_answer"])}
        )
        bad_answers = dict.fromkeys([str(r["hallucinated_answer"]), other.get(r["question"], "")])
        for j, bad in enumerate(b for b in bad_answers if b):
            responses.append(
                {
                    "id": f"{sid}-h{j}",
                    "source_id": sid,
                    "split": split,
                    "response": bad,
                    "labels": [{"start": 0, "end": len(bad), "text": bad, "label_type": "Evident Baseless Info"}],
                }
            )
    out.mkdir(parents=True, exist_ok=True)
    for name, data in (("response.jsonl", responses), ("source_info.jsonl", sources)):
        (out / name).write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in data), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="folder with response.jsonl and source_info.jsonl")
    parser.add_argument("--split", default="test")
    parser.add_argument("--limit", type=int, default=0, help="score a random sample of this many responses")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--resamples", type=int, default=RESAMPLES)
    parser.add_argument("--embedder", default=None, help="embedder spec (default: the product's)")
    parser.add_argument("--judge-llm", default=None, help="judge with this LLM (openai:MODEL, llamacpp:PATH.gguf)")
    parser.add_argument("--judge-mode", default="batch", help="batch | claim | graded (as ragcov eval --judge-mode)")
    parser.add_argument(
        "--convert-halueval",
        type=Path,
        metavar="REPO",
        help="write HaluEval QA from REPO into FOLDER in this layout, then score it",
    )
    args = parser.parse_args(argv)
    from ragcov_tui.embeddings.factory import DEFAULT_EMBEDDER, make_embedder
    from ragcov_tui.evaluation.generation.grounding import FAITHFUL_THRESHOLD

    if args.convert_halueval:
        convert_halueval(args.convert_halueval, args.folder)
    items = load(args.folder, args.split)
    if args.limit and args.limit < len(items):
        items = random.Random(args.seed).sample(items, args.limit)
    if not items:
        print(f"no responses of split {args.split!r} in {args.folder}", file=sys.stderr)
        return 2
    embedder = make_embedder(args.embedder or DEFAULT_EMBEDDER)
    embedder.embed(["warm up"])
    from ragcov_tui.llm.factory import make_llm

    llm = make_llm(args.judge_llm)
    scores, undefined, per_item, failed = faithfulness_scores(items, embedder, llm, args.judge_mode)
    baseline = [overlap_score(i) for i in items]
    judge = f"judge {llm.spec} ({args.judge_mode}), {failed} failed (scored 0.5)" if llm is not None else "offline"
    print(
        f"{args.folder} split={args.split}: {len(items)} responses, {judge}, {undefined} without claims "
        f"(scored 1.0), threshold {FAITHFUL_THRESHOLD}, {per_item:.3f} s/item"
    )
    print("\n".join(report(items, scores, baseline, FAITHFUL_THRESHOLD, args.resamples, args.seed)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
