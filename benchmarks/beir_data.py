"""A synthetic BEIR-shaped data set: ``corpus.jsonl``, ``queries.jsonl``, ``qrels/test.tsv``.

Made to be retrieved like real abstracts: documents are 120-280 English words (entries of the
MiniLM vocabulary, some glued into longer terms: about 1.3 word pieces per word, so most fit the
model's 256-piece window as abstracts do), a title and a body drawn from a Zipf background vocabulary mixed
with the words of one of ``topics`` topics and a few words of the document's own. Each query is
written from one to three documents of one topic: some of their own words, topic words, and
function words; the documents it was written from are judged relevant (grade 2 for the first,
1 for the others). Same arguments → same bytes.

    .venv/bin/python benchmarks/beir_data.py OUT_DIR --docs 5000 --queries 300
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
from pathlib import Path

VOCAB_FILE = Path(__file__).resolve().parents[1] / "ragcov_tui" / "embeddings" / "assets" / "minilm-tokenizer.json"
FUNCTION_WORDS = (
    "the",
    "of",
    "and",
    "in",
    "to",
    "a",
    "is",
    "for",
    "with",
    "that",
    "by",
    "on",
    "as",
    "are",
    "was",
    "we",
    "from",
    "this",
    "at",
    "be",
    "which",
    "these",
    "an",
    "between",
    "both",
)
QUESTION_STARTS = ("what is the role of", "does", "how does", "is there evidence that", "which", "do")


def _words(rng: random.Random, n: int) -> list[str]:
    """``n`` distinct English words: whole-word entries of the MiniLM vocabulary (one word piece
    each), one in five glued to another (two or three pieces, like rare technical terms)."""
    vocab = json.loads(VOCAB_FILE.read_text(encoding="utf-8"))["model"]["vocab"]
    words = sorted(t for t in vocab if t.isascii() and t.isalpha() and t.islower() and len(t) >= 4)
    rng.shuffle(words)
    out = list(dict.fromkeys(w + rng.choice(words) if rng.random() < 0.2 else w for w in words))
    return out[:n]


def write_beir(
    out: Path, *, docs: int = 5000, queries: int = 300, words: int = 200, topics: int = 400, seed: int = 0
) -> Path:
    """Write the data set under ``out`` (created) and return ``out``."""
    rng = random.Random(seed)
    vocab = _words(rng, 20000)
    background, topical, own_pool = vocab[:6000], vocab[6000:14000], vocab[14000:]
    cumulative = list(itertools.accumulate(1.0 / (r + 1) for r in range(len(background))))
    topic_words = [rng.sample(topical, 60) for _ in range(topics)]
    doc_topic, doc_own = [], []
    (out / "qrels").mkdir(parents=True, exist_ok=True)
    with open(out / "corpus.jsonl", "w", encoding="utf-8") as f:
        for d in range(docs):
            topic = rng.randrange(topics)
            own = rng.sample(own_pool, 6)
            doc_topic.append(topic)
            doc_own.append(own)
            body = []
            for _ in range(rng.randint(words - 80, words + 80)):
                roll = rng.random()
                body.append(
                    rng.choice(FUNCTION_WORDS)
                    if roll < 0.35
                    else rng.choice(topic_words[topic])
                    if roll < 0.55
                    else rng.choice(own)
                    if roll < 0.6
                    else rng.choices(background, cum_weights=cumulative)[0]
                )
            title = " ".join(rng.sample(topic_words[topic], 3) + own[:2])
            text = ". ".join(" ".join(body[i : i + 18]).capitalize() for i in range(0, len(body), 18)) + "."
            f.write(json.dumps({"_id": str(4000 + d * 7), "title": title.capitalize(), "text": text}) + "\n")
    by_topic: dict[int, list[int]] = {}
    for d, t in enumerate(doc_topic):
        by_topic.setdefault(t, []).append(d)
    with (
        open(out / "queries.jsonl", "w", encoding="utf-8") as fq,
        open(out / "qrels" / "test.tsv", "w", encoding="utf-8") as fr,
    ):
        fr.write("query-id\tcorpus-id\tscore\n")
        for q in range(queries):
            first = rng.randrange(docs)
            group = by_topic[doc_topic[first]]
            relevant = [first] + rng.sample(
                [d for d in group if d != first], min(len(group) - 1, rng.choice((0, 0, 1, 2)))
            )
            terms = [rng.choice(doc_own[d]) for d in relevant for _ in range(2)]
            terms += rng.sample(topic_words[doc_topic[first]], 3) + [rng.choice(background[:2000])]
            rng.shuffle(terms)
            fq.write(
                json.dumps({"_id": str(q + 1), "text": f"{rng.choice(QUESTION_STARTS)} {' '.join(terms)}?"}) + "\n"
            )
            for rank, d in enumerate(relevant):
                fr.write(f"{q + 1}\t{4000 + d * 7}\t{2 if rank == 0 else 1}\n")
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out")
    p.add_argument("--docs", type=int, default=5000)
    p.add_argument("--queries", type=int, default=300)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    print(write_beir(Path(args.out), docs=args.docs, queries=args.queries, seed=args.seed))


if __name__ == "__main__":
    main()
