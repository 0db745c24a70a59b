"""Does ``ragcov analyze`` find a topic nobody asked about? (issue #16 item 4; prints figures, not a test)

On public corpora whose questions no one here wrote, remove each topic's questions in turn, run
the whole ``analyze`` pipeline (the ``--json`` report of :func:`run_analysis`, default options,
the offline ``local`` embedder) on the remaining questions **without gold ids** (the test file
passed to it holds only ``id`` and ``question``), and measure where the documents that lost every
question ("held out") show up:

* **rank** — the place in the gap list of the cluster where the held-out chunks concentrate
  (``before``: the same cluster's rank in the run with every question, the control);
* **top-3 share** — held-out share of the chunks in the first three gaps, against the base rate
  (held-out chunks / all chunks), and the recall of held-out chunks in those gaps;
* **P@N** — precision of the N lowest-coverage documents, N = the number held out, against the
  base rate (held-out / all documents), and the ratio.

Definitions: ``heldout_metrics.py``. Topics never come from ragcov: a data set's own document
labels where it has them (``topics.tsv``: SQuAD's article titles), else K-means (k=8, seed 7) on
TF-IDF of the document texts; a topic is the questions whose gold documents all lie in one
group. Goals (the issue): every topic with ≥ 5 % of the questions ranks in the top 3 gaps, and
P@N ≥ 3× its base rate.

Data sets (sources and what is kept: ``heldout_data.py``): ``squad`` (646 Wikipedia paragraphs,
2,910 crowd-written questions, topics = the 16 articles), ``scifact`` (148 abstracts, 265 expert
claims, every abstract cited), ``scifact-open`` (the same claims among 2,101 abstracts, 1,953 of
them never cited: the stress case). Nothing is downloaded at run time::

    git clone https://github.com/chrischute/squad
    git clone https://github.com/Kirloxious/CSI4107_Assignment2
    git clone https://github.com/nice-hku-coder/coder_data
    .venv/bin/python benchmarks/heldout_topic.py DATA --prepare squad CSI4107_Assignment2 coder_data
    OMP_NUM_THREADS=2 .venv/bin/python benchmarks/heldout_topic.py DATA [--json out.json]

Embeddings are cached in ``DATA/ragcov.db``: the first run embeds each corpus once (on the loaded
2-core box: squad 4 min, scifact-open 17 min); later runs take 2-20 s per analysis, about 7 min
for all three. The sessions each run stores are deleted again. Any other BEIR-layout folder under
DATA works too (``--datasets NAME``; ``topics.tsv`` optional).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from heldout_data import prepare  # noqa: E402
from heldout_metrics import (  # noqa: E402
    concentration_cluster,
    gap_rank,
    held_out_documents,
    precision_at_held_out,
    ranked_documents,
    ratio,
    top_gaps_share,
    topics_from_groups,
)

GOAL_SHARE, GOAL_RATIO, TOP = 0.05, 3.0, 3


@dataclass
class Dataset:
    name: str
    folder: Path
    docs: dict[str, str]
    gold: dict[str, set[str]]
    queries: dict[str, str]
    groups: dict[str, str]
    topic_source: str


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def tfidf_groups(docs: dict[str, str], k: int, seed: int) -> dict[str, str]:
    """K-means on TF-IDF of the texts: independent of ragcov's clustering (other space, k, seed);
    a group is named by the three heaviest terms of its centre."""
    from sklearn.cluster import KMeans
    from sklearn.feature_extraction.text import TfidfVectorizer

    tfidf = TfidfVectorizer(stop_words="english", min_df=2, sublinear_tf=True)
    kmeans = KMeans(n_clusters=k, n_init=10, random_state=seed)
    labels = kmeans.fit_predict(tfidf.fit_transform(list(docs.values())))
    terms = tfidf.get_feature_names_out()
    names = [
        f"g{g}: " + " ".join(terms[i] for i in centre.argsort()[::-1][:3])
        for g, centre in enumerate(kmeans.cluster_centers_)
    ]
    return {d: names[label] for d, label in zip(docs, labels.tolist(), strict=True)}


def load(folder: Path, k: int, seed: int) -> Dataset:
    docs = {str(r["_id"]): r["text"] for r in _jsonl(folder / "corpus.jsonl")}
    queries = {str(r["_id"]): r["text"] for r in _jsonl(folder / "queries.jsonl")}
    gold: dict[str, set[str]] = {}
    for line in (folder / "qrels" / "test.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        q, d, score = line.split("\t")
        if int(score) > 0 and q in queries:
            gold.setdefault(q, set()).add(d)
    labels = folder / "topics.tsv"
    if labels.is_file():
        groups = dict(line.split("\t", 1) for line in labels.read_text(encoding="utf-8").splitlines())
        return Dataset(folder.name, folder, docs, gold, queries, groups, "data set labels (topics.tsv)")
    return Dataset(
        folder.name, folder, docs, gold, queries, tfidf_groups(docs, k, seed), f"K-means k={k} seed={seed} on TF-IDF"
    )


def analyze_report(ds: Dataset, keep: list[str], db, work: Path, embedder: str) -> tuple[dict, float]:
    """The ``analyze --json`` report for the questions ``keep``, passed without gold ids."""
    from ragcov_tui.services.analysis_job import AnalyzeOptions, run_analysis
    from ragcov_tui.store.sessions import delete_session

    questions = work / f"{ds.name}-questions.jsonl"
    questions.write_text(
        "".join(json.dumps({"id": q, "question": ds.queries[q]}) + "\n" for q in keep), encoding="utf-8"
    )
    t = time.perf_counter()
    sid, report = run_analysis(
        AnalyzeOptions(corpus=[str(ds.folder / "corpus.jsonl")], questions=str(questions), embedder=embedder), db
    )
    seconds = time.perf_counter() - t
    delete_session(db, sid)
    if report.get("gold") is not None:  # the report's gold coverage exists only when gold ids were read
        raise RuntimeError(f"{questions}: gold ids reached analyze")
    return report, seconds


def measure(report: dict, held_out: set[str]) -> dict:
    """The figures of one report for one held-out set (heldout_metrics)."""
    chunks = [(c["source"], c["cluster"]) for c in report["chunk_details"]]
    gaps = [g["cluster"] for g in report["gaps"]]
    cluster = concentration_cluster(chunks, held_out)
    share, base, recall = top_gaps_share(chunks, gaps, held_out, TOP)
    ranked, order = ranked_documents(report["documents"])
    precision, doc_base = precision_at_held_out(ranked, held_out)
    in_cluster = sum(1 for s, c in chunks if c == cluster and s in held_out)
    entry = next((c for c in report["clusters"] if c["id"] == cluster), {})
    calibration = report.get("calibration") or {}
    return {
        "gaps": len(gaps),
        "clusters": len(report["clusters"]),
        "cluster": cluster,
        "cluster_covered": entry.get("covered_share"),
        "gap_cut": calibration.get("gap_cut"),
        "median_covered": calibration.get("median_covered_share"),
        "cluster_coverage": entry.get("coverage"),
        "coverage_cut": calibration.get("coverage_cut"),
        "priority_place": priority_place(report["clusters"], cluster),
        "cluster_holds": in_cluster / max(1, sum(s in held_out for s, _ in chunks)),
        "rank": gap_rank(gaps, cluster),
        "top_share": share,
        "chunk_base": base,
        "top_ratio": ratio(share, base),
        "top_recall": recall,
        "doc_order": order,
        "precision": precision,
        "doc_base": doc_base,
        "p_ratio": ratio(precision, doc_base),
    }


def priority_place(clusters: list[dict], cluster: int | None) -> int | None:
    """1-based place of ``cluster`` among all clusters in the gap order (priority descending, then
    size descending): where it would stand had the gap rule listed every cluster. None without
    priorities in the report."""
    if cluster is None or not clusters or any(c.get("priority") is None for c in clusters):
        return None
    order = sorted(clusters, key=lambda c: (-round(c["priority"], 9), -c["size"], c["id"]))
    return [c["id"] for c in order].index(cluster) + 1


def run_dataset(ds: Dataset, db, work: Path, embedder: str, say) -> list[dict]:
    everyone = list(ds.gold)
    baseline, seconds = analyze_report(ds, everyone, db, work, embedder)
    say(
        f"{ds.name}: {len(ds.docs)} documents, {baseline['corpus']['chunks']} chunks, {len(everyone)} questions; "
        f"all questions: {len(baseline['gaps'])} gaps of {len(baseline['clusters'])} clusters ({seconds:.1f} s)"
    )
    say(HEADER)
    topics = sorted(topics_from_groups(ds.gold, ds.groups).items(), key=lambda t: (-len(t[1]), t[0]))
    rows = []
    for label, removed in topics:
        held_out = held_out_documents(ds.gold, removed)
        if not held_out:
            continue
        gone = set(removed)
        report, seconds = analyze_report(ds, [q for q in everyone if q not in gone], db, work, embedder)
        row = {
            "dataset": ds.name,
            "topic": label,
            "removed": len(removed),
            "removed_share": len(removed) / len(everyone),
            "held_out": len(held_out),
            "documents": len(ds.docs),
            "seconds": round(seconds, 2),
            **measure(report, held_out),
        }
        before = measure(baseline, held_out)
        row |= {
            "rank_before": gap_rank([g["cluster"] for g in baseline["gaps"]], row["cluster"]),
            "precision_before": before["precision"],
        }
        rows.append(row)
        say(format_row(row))
    return rows


def _f(value, fmt: str, none: str = "—") -> str:
    return none if value is None else format(value, fmt)


HEADER = (
    f"{'data set':8} {'topic':28} {'removed':>11} {'held':>5} {'rank':>4} {'(before)':>8} {'place':>5} "
    f"{'top-3 share/base':>17} {'×':>5} {'recall':>6} {'P@N/base':>13} {'×':>5} {'s':>5}  covered/cut coverage/cut"
)


def format_row(r: dict) -> str:
    return (
        f"{r['dataset']:8} {r['topic'][:28]:28} {r['removed']:>4} {r['removed_share']:>6.1%} {r['held_out']:>5} "
        f"{_f(r['rank'], 'd'):>4} {_f(r['rank_before'], 'd'):>8} {_f(r['priority_place'], 'd'):>5} "
        f"{_f(r['top_share'], '.2f'):>8}/{r['chunk_base']:.3f} {_f(r['top_ratio'], '.1f'):>5} {r['top_recall']:>6.2f} "
        f"{r['precision']:>6.2f}/{r['doc_base']:.3f} {_f(r['p_ratio'], '.1f'):>5} {r['seconds']:>5.1f}  "
        f"{_f(r['cluster_covered'], '.2f')}/{_f(r['gap_cut'], '.2f')} "
        f"{_f(r['cluster_coverage'], '.3f'):>7}/{_f(r['coverage_cut'], '.3f')}"
    )


def _times(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}×"


def markdown(rows: list[dict]) -> str:
    """The README's table: one row per data set × topic."""
    lines = [
        "| data set | topic | questions removed | held-out docs | rank (before) | top-3 gaps: held-out share / base (×) "
        "| P@N lowest-covered docs / base (×) | s |",
        "|---|---|--:|--:|--:|--:|--:|--:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['dataset']} | {r['topic']} | {r['removed']} ({r['removed_share']:.1%}) | {r['held_out']} of {r['documents']} "
            f"| **{_f(r['rank'], 'd')}** ({_f(r['rank_before'], 'd')}) "
            f"| {_f(r['top_share'], '.2f')} / {r['chunk_base']:.3f} ({_times(r['top_ratio'])}) "
            f"| {r['precision']:.2f} / {r['doc_base']:.3f} (**{_times(r['p_ratio'])}**) | {r['seconds']:.1f} |"
        )
    return "\n".join(lines) + "\n"


def goals(rows: list[dict]) -> list[str]:
    """Per data set: how many topics meet each of the issue's two goals."""
    out = []
    for name in dict.fromkeys(r["dataset"] for r in rows):
        mine = [r for r in rows if r["dataset"] == name]
        broad = [r for r in mine if r["removed_share"] >= GOAL_SHARE]
        top = [r for r in broad if r["rank"] is not None and r["rank"] <= TOP]
        good = [r for r in mine if (r["p_ratio"] or 0) >= GOAL_RATIO]
        out.append(
            f"{name}: topics with ≥ {GOAL_SHARE:.0%} of the questions in the top {TOP} gaps {len(top)} of "
            f"{len(broad)}; least-covered documents ≥ {GOAL_RATIO:g}× the base rate {len(good)} of {len(mine)}"
        )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("data", type=Path, help="folder holding one BEIR-layout folder per data set")
    parser.add_argument(
        "--prepare",
        nargs="+",
        type=Path,
        metavar="REPO",
        help="convert these fetched repositories into DATA (see heldout_data.py), then stop",
    )
    parser.add_argument(
        "--datasets", default="squad,scifact,scifact-open", help="comma-separated folder names under DATA"
    )
    parser.add_argument("--k", type=int, default=8, help="K-means groups for data sets without topic labels")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--embedder", default="local")
    parser.add_argument("--json", type=Path, help="write the rows and the summary here")
    parser.add_argument("--markdown", type=Path, help="write the table as Markdown here (the README's)")
    args = parser.parse_args(argv)
    if args.prepare:
        return 0 if prepare(args.data, args.prepare) else 1

    from ragcov_tui.store.db import open_db

    names = args.datasets.split(",")
    missing = [n for n in names if not (args.data / n / "corpus.jsonl").is_file()]
    if missing:
        print(
            f"{args.data}: no prepared {', '.join(missing)} (corpus.jsonl); fetch the repositories and run "
            "--prepare first (see this script's docstring)",
            file=sys.stderr,
        )
        return 2
    db = open_db(args.data / "ragcov.db")
    rows: list[dict] = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            ds = load(args.data / name, args.k, args.seed)
            print(f"{name}: topics from {ds.topic_source}")
            rows += run_dataset(ds, db, Path(tmp), args.embedder, print)
    summary = goals(rows)
    print("\n".join(summary) + f"\ntotal {time.perf_counter() - started:.0f} s")
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "summary": summary}, indent=1), encoding="utf-8")
    if args.markdown:
        args.markdown.write_text(markdown(rows), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
