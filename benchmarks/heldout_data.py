"""Public corpora for ``heldout_topic.py``, converted from their GitHub repositories to BEIR layout.

Neither corpus nor its questions were written here. Fetch the repositories (a clone, or a bare git
directory: files are read from the work tree when present, else with ``git show HEAD:path``)::

    git clone https://github.com/chrischute/squad                       # SQuAD 2.0 dev half
    git clone https://github.com/Kirloxious/CSI4107_Assignment2          # SciFact claims + qrels
    git clone https://github.com/nice-hku-coder/coder_data               # SciFact abstracts (subset)
    .venv/bin/python benchmarks/heldout_topic.py DATA --prepare squad CSI4107_Assignment2 coder_data

What each data set becomes (``DATA/<name>/corpus.jsonl``, ``queries.jsonl``, ``qrels/test.tsv``,
and ``topics.tsv`` where the data set labels its documents):

* ``squad`` — ``data/dev-v2.0.json`` of chrischute/squad (the CS224N half of SQuAD 2.0 dev: 16
  Wikipedia articles, crowd-written questions). A document is a paragraph (its text only: the
  article title is left out of the text so it does not hand the topic to the clustering); a
  question is an answerable one (``is_impossible`` false), judged relevant to its paragraph;
  ``topics.tsv`` gives each paragraph its article title.
* ``scifact`` — SciFact (Wadden et al. 2020: claims written by experts from cited abstracts): the
  claims and train + test qrels of Kirloxious/CSI4107_Assignment2 (``scifact/``; the test qrels
  there are ``qid 0 doc rel`` rows, the train ones BEIR rows, both read) and the abstracts of
  nice-hku-coder/coder_data ``scifact_antonym/corpus_candidate.jsonl`` — a length-filtered 2,101
  of SciFact's 5,183 (the full ``corpus.jsonl`` in these repositories is a Git LFS object that
  is not stored). Kept: the claims whose every cited abstract is in that subset, and as corpus
  the abstracts those claims cite (the documents the test set is about, so that removing a topic
  makes the only hole).
* ``scifact-open`` — the same claims over all 2,101 abstracts of that subset: 1,953 of them no
  claim cites, as in a real corpus where most documents have no question yet. The held-out
  documents are then one kind of unasked document among many, which a run without gold ids
  cannot tell apart: the figures say how visible a freshly dropped topic stays among them.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

SOURCES: dict[str, dict[str, tuple[str, ...]]] = {
    "squad": {"chrischute/squad": ("data/dev-v2.0.json",)},
    "scifact": {
        "Kirloxious/CSI4107_Assignment2": (
            "scifact/queries.jsonl",
            "scifact/qrels/train.tsv",
            "scifact/qrels/test.tsv",
        ),
        "nice-hku-coder/coder_data": ("scifact_antonym/corpus_candidate.jsonl",),
    },
}
SOURCES["scifact-open"] = SOURCES["scifact"]


def read_repo_file(repo: Path, path: str) -> str | None:
    """``path`` from a clone's work tree, else from its git directory's HEAD; None when absent."""
    if (repo / path).is_file():
        return (repo / path).read_text(encoding="utf-8")
    for git_dir in (repo / ".git", repo / "repo" / ".git", repo / "repo", repo):
        if (git_dir / "HEAD").is_file():
            done = subprocess.run(
                ["git", "--git-dir", str(git_dir), "show", f"HEAD:{path}"], capture_output=True, text=True
            )
            if done.returncode == 0 and not done.stdout.startswith("version https://git-lfs"):
                return done.stdout
    return None


def _find(repos: list[Path], files: tuple[str, ...]) -> dict[str, str] | None:
    """The files from the first repository that holds all of them."""
    for repo in repos:
        texts = {f: read_repo_file(repo, f) for f in files}
        if all(t is not None for t in texts.values()):
            return texts  # type: ignore[return-value]
    return None


def _write(
    out: Path,
    docs: dict[str, str],
    queries: dict[str, str],
    qrels: dict[str, set[str]],
    topics: dict[str, str] | None = None,
) -> None:
    (out / "qrels").mkdir(parents=True, exist_ok=True)
    with open(out / "corpus.jsonl", "w", encoding="utf-8") as f:
        f.writelines(json.dumps({"_id": d, "text": t}) + "\n" for d, t in docs.items())
    with open(out / "queries.jsonl", "w", encoding="utf-8") as f:
        f.writelines(json.dumps({"_id": q, "text": queries[q]}) + "\n" for q in qrels)
    with open(out / "qrels" / "test.tsv", "w", encoding="utf-8") as f:
        f.write("query-id\tcorpus-id\tscore\n")
        f.writelines(f"{q}\t{d}\t1\n" for q, ds in qrels.items() for d in sorted(ds))
    if topics:
        (out / "topics.tsv").write_text("".join(f"{d}\t{t}\n" for d, t in topics.items()), encoding="utf-8")


def squad(files: dict[str, str], out: Path) -> str:
    docs, queries, qrels, topics = {}, {}, {}, {}
    for a, article in enumerate(json.loads(files["data/dev-v2.0.json"])["data"]):
        for p, para in enumerate(article["paragraphs"]):
            doc = f"{a:02d}-{p:02d}"
            answerable = [qa for qa in para["qas"] if not qa.get("is_impossible")]
            if not answerable:
                continue
            docs[doc], topics[doc] = para["context"], article["title"]
            for qa in answerable:
                queries[qa["id"]], qrels[qa["id"]] = qa["question"], {doc}
    _write(out, docs, queries, qrels, topics)
    return f"{len(docs)} paragraphs, {len(qrels)} questions, {len(set(topics.values()))} articles"


def parse_qrels_rows(text: str) -> dict[str, set[str]]:
    """``qid doc rel`` (BEIR, header skipped) or ``qid 0 doc rel`` (TREC) rows with rel > 0."""
    out: dict[str, set[str]] = {}
    for line in text.splitlines():
        cells = line.split()
        if len(cells) not in (3, 4) or not cells[-1].lstrip("-").isdigit() or int(cells[-1]) <= 0:
            continue
        out.setdefault(cells[0], set()).add(cells[2] if len(cells) == 4 else cells[1])
    return out


def scifact(files: dict[str, str], out: Path, *, unasked: bool = False) -> str:
    abstracts = {
        str(r["doc_id"]): r["text"]
        for r in map(json.loads, files["scifact_antonym/corpus_candidate.jsonl"].splitlines())
        if r
    }
    claims = {str(r["_id"]): r["text"] for r in map(json.loads, files["scifact/queries.jsonl"].splitlines()) if r}
    judged = parse_qrels_rows(files["scifact/qrels/train.tsv"])
    for q, ds in parse_qrels_rows(files["scifact/qrels/test.tsv"]).items():
        judged.setdefault(q, set()).update(ds)
    qrels = {
        q: ds for q, ds in sorted(judged.items(), key=lambda x: int(x[0])) if q in claims and ds <= abstracts.keys()
    }
    cited = set().union(*qrels.values())
    kept = sorted(abstracts if unasked else cited, key=int)
    _write(out, {d: abstracts[d] for d in kept}, claims, qrels)
    return (
        f"{len(kept)} abstracts ({len(cited)} cited), {len(qrels)} claims (of {len(judged)} judged; "
        "the others cite abstracts outside the subset)"
    )


CONVERTERS: dict[str, Callable[[dict[str, str], Path], str]] = {
    "squad": squad,
    "scifact": scifact,
    "scifact-open": lambda files, out: scifact(files, out, unasked=True),
}


def prepare(data: Path, repos: list[Path], say: Callable[[str], None] = print) -> list[str]:
    """Write every data set whose source files the given repositories hold; returns their names."""
    done = []
    for name, needs in SOURCES.items():
        files: dict[str, str] = {}
        for repo_name, paths in needs.items():
            found = _find(repos, paths)
            if found is None:
                say(f"{name}: skipped, no repository given holds {repo_name}'s {', '.join(paths)}")
                break
            files.update(found)
        else:
            say(f"{name}: {CONVERTERS[name](files, data / name)} → {data / name}")
            done.append(name)
    return done
