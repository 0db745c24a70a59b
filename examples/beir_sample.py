"""The bundled sample (``sample_data/``) in the BEIR layout, as a benchmark would ship it.

``write_beir(sample, out)`` writes ``out/corpus.jsonl`` (one document per sample file, its text as
ragcov reads it), ``out/queries.jsonl`` (every question) and ``out/qrels/test.tsv`` (grade 1 for each
relevant document; questions without one are not judged). There are no reference answers: a
BEIR folder has none, which is why the example writes them with ``ragcov references``.

    python examples/beir_sample.py sample_data /tmp/skein-beir
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ragcov_tui.corpus.load import load_corpus


def write_beir(sample: Path, out: Path) -> Path:
    (out / "qrels").mkdir(parents=True, exist_ok=True)
    documents = load_corpus([sample / "corpus"]).documents
    with (out / "corpus.jsonl").open("w", encoding="utf-8") as f:
        for d in documents:
            f.write(
                json.dumps({"_id": d.source, "title": Path(d.source).stem.replace("-", " "), "text": d.text}) + "\n"
            )
    rows = [json.loads(line) for line in (sample / "questions.jsonl").read_text(encoding="utf-8").splitlines() if line]
    with (out / "queries.jsonl").open("w", encoding="utf-8") as f:
        f.writelines(json.dumps({"_id": r["id"], "text": r["question"]}) + "\n" for r in rows)
    with (out / "qrels" / "test.tsv").open("w", encoding="utf-8") as f:
        f.write("query-id\tcorpus-id\tscore\n")
        f.writelines(f"{r['id']}\t{doc}\t1\n" for r in rows for doc in r.get("relevant_doc_ids") or ())
    return out


if __name__ == "__main__":
    write_beir(Path(sys.argv[1]), Path(sys.argv[2]))
