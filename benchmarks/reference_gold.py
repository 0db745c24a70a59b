"""How long reference contexts take to become gold ids on a real-sized corpus.

Generates ``--docs`` documents (paragraphs of Zipf-distributed words, about 400 words each),
chunks them as ``ragcov eval`` does (500 / 50 tokens), and ``--questions`` questions with
``--contexts`` reference contexts each: passages of 40-120 words cut at random character
offsets (mid-word), a third of them re-cased and re-spaced, one in ten with a word in twenty
changed (near-exact), one in twenty spanning two documents' worth of unrelated text (unmatched).
Prints the time to index the corpus and to map every context, and the tier counts.

    .venv/bin/python benchmarks/reference_gold.py --docs 5000 --questions 2000 --contexts 3
"""

from __future__ import annotations

import argparse
import random
import time

from ragcov_tui.corpus.chunking import chunk_documents
from ragcov_tui.corpus.models import Document
from ragcov_tui.evaluation.context_index import ContextIndex
from ragcov_tui.evaluation.gold_contexts import context_gold_line, gold_from_contexts
from ragcov_tui.testset.models import Question


def _vocabulary(rng: random.Random, n: int = 20_000) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    return ["".join(rng.choice(letters) for _ in range(rng.randint(2, 10))) for _ in range(n)]


def make_corpus(n_docs: int, seed: int = 0) -> list[Document]:
    rng = random.Random(seed)
    vocab = _vocabulary(rng)
    weights = [1 / (rank + 1) for rank in range(len(vocab))]
    docs = []
    for d in range(n_docs):
        words = rng.choices(vocab, weights, k=400)
        sentences = [" ".join(words[i : i + 16]).capitalize() + "." for i in range(0, len(words), 16)]
        paragraphs = ["\n".join(sentences[i : i + 5]) for i in range(0, len(sentences), 5)]
        docs.append(Document(f"docs/{d:05d}.md", "\n\n".join(paragraphs)))
    return docs


def make_questions(docs: list[Document], n: int, per: int, seed: int = 1) -> list[Question]:
    rng = random.Random(seed)
    questions = []
    for q in range(n):
        contexts = []
        for _ in range(per):
            text = rng.choice(docs).text
            start = rng.randrange(0, max(1, len(text) - 900))
            passage = text[start : start + rng.randint(250, 800)]
            roll = rng.random()
            if roll < 0.05:
                passage = " ".join(rng.sample(passage.split(), k=len(passage.split())))  # a paraphrase: unmatched
            elif roll < 0.15:
                words = passage.split()
                passage = " ".join("changed" if i % 20 == 10 else w for i, w in enumerate(words))
            elif roll < 0.45:
                passage = "  ".join(passage.upper().split())
            contexts.append(passage)
        questions.append(Question(id=f"q{q}", text=f"question {q}?", reference_contexts=contexts))
    return questions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=5000)
    parser.add_argument("--questions", type=int, default=2000)
    parser.add_argument("--contexts", type=int, default=3)
    args = parser.parse_args()
    docs = make_corpus(args.docs)
    t0 = time.perf_counter()
    chunks = chunk_documents(docs)
    t1 = time.perf_counter()
    questions = make_questions(docs, args.questions, args.contexts)
    t2 = time.perf_counter()
    ContextIndex(docs, chunks)
    t3 = time.perf_counter()
    result = gold_from_contexts(questions, docs, chunks)
    t4 = time.perf_counter()
    words = sum(len(d.text.split()) for d in docs)
    print(f"corpus: {len(docs):,} documents, {words:,} words, {len(chunks):,} chunks (chunking {t1 - t0:.1f} s)")
    print(f"index alone: {t3 - t2:.2f} s")
    print(f"gold from {args.questions * args.contexts:,} contexts (index included): {t4 - t3:.2f} s")
    print(context_gold_line(result.as_dict()))


if __name__ == "__main__":
    main()
